"""Runs every script in tests/py_paddle under real PaddlePaddle and NumPy and stores its stdout.

    <python with paddlepaddle 2.6 and numpy 1.26> tests/gen/gen_paddle_expected.py [NAME ...]

(for instance the oracle environment made by tests/oracle/install.sh). For each
tests/py_paddle/NAME.py this writes tests/py_paddle/NAME.out with what the
script printed; dy2st's test runs the same script and compares its output with
the file. The scripts print values rounded or formatted so that float noise
does not matter. dy2st never produces these files.
"""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(os.path.dirname(HERE), "py_paddle")


def main(names):
    scripts = sorted(glob.glob(os.path.join(DIR, "*.py")))
    if names:
        scripts = [s for s in scripts if os.path.splitext(os.path.basename(s))[0] in names]
    env = dict(os.environ, GLOG_minloglevel="3", PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="")
    for path in scripts:
        res = subprocess.run([sys.executable, path], cwd=DIR, env=env, stdout=subprocess.PIPE,
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
