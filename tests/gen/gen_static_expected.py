"""Runs every script in tests/py_static under real PaddlePaddle and stores its stdout.

    <python with paddlepaddle 2.6 and numpy 1.26> tests/gen/gen_static_expected.py [NAME ...]

(for instance the oracle environment made by tests/oracle/install.sh). The
scripts use paddle.jit.to_static with data-dependent if/while/for, break,
continue and return; for each tests/py_static/NAME.py this writes
tests/py_static/NAME.out with what the script printed. dy2st's test runs the
same script with `dy2st exec` (in a scratch directory, as here) and compares its output with the file. Values
are printed rounded so that float noise does not matter. dy2st never
produces these files.
"""
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(os.path.dirname(HERE), "py_static")


def main(names):
    scripts = sorted(glob.glob(os.path.join(DIR, "*.py")))
    if names:
        scripts = [s for s in scripts if os.path.splitext(os.path.basename(s))[0] in names]
    env = dict(os.environ, GLOG_minloglevel="3", PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="")
    for path in scripts:
        scratch = tempfile.mkdtemp()  # scripts may write files (paddle.jit.save)
        res = subprocess.run([sys.executable, path], cwd=scratch, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        if res.returncode != 0:
            sys.stderr.write(res.stderr)
            sys.exit("%s failed under real Paddle (exit %d)" % (path, res.returncode))
        out = os.path.splitext(path)[0] + ".out"
        with open(out, "w") as f:
            f.write(res.stdout)
        print("wrote", os.path.relpath(out, os.path.dirname(os.path.dirname(HERE))))


if __name__ == "__main__":
    main(sys.argv[1:])
