#!/usr/bin/env python3
"""gen_py_expected.py - writes tests/py/NAME.out: what CPython prints for each tests/py/NAME.py.

CPython is the independent oracle for dy2st's interpreter: every test script
in tests/py (files starting with "_" are helper modules, not tests) is run
under python3 from its own directory, without writing bytecode caches, and
its standard output is stored next to it. tests/translator/test_interp.c runs
the same scripts with dy2st's interpreter and compares.

The expected diagnostics of tests/py/errors/*.err are written by hand, not
here: dy2st renders uncaught exceptions compiler-style, which CPython does not.

Usage: gen_py_expected.py            regenerate every .out file
       gen_py_expected.py NAME...    regenerate the named scripts only
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PY_DIR = os.path.join(os.path.dirname(HERE), "py")


def scripts(names):
    if names:
        return [n if n.endswith(".py") else n + ".py" for n in names]
    return sorted(f for f in os.listdir(PY_DIR) if f.endswith(".py") and not f.startswith("_"))


def main():
    failed = False
    for name in scripts(sys.argv[1:]):
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8")
        proc = subprocess.run([sys.executable, "-B", name], cwd=PY_DIR, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0 or proc.stderr:
            sys.stderr.write("%s: python3 failed or warned:\n%s" % (name, proc.stderr.decode()))
            failed = True
            continue
        with open(os.path.join(PY_DIR, name[:-3] + ".out"), "wb") as f:
            f.write(proc.stdout)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
