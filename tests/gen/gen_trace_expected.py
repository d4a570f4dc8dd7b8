"""Runs the scripts of tests/trace under real PaddlePaddle's eager mode and stores their stdout.

    <python with paddlepaddle 2.6 and numpy 1.26> tests/gen/gen_trace_expected.py [NAME ...]

(for instance the oracle environment made by tests/oracle/install.sh). The scripts
exercise dy2st's trace mode: to_static functions whose syntax cannot be converted
(dy2st traces them instead), and values frozen by tracing. Their expected outputs
are what Paddle's eager (dygraph) run prints: each script runs here with
paddle.jit.enable_to_static(False), and for each tests/trace/NAME.py this writes
tests/trace/NAME.out. Parts that only dy2st can run (TracedLayer, which Paddle
2.6 no longer has; jit.save of a traced function) are guarded by `import _jst`
in the scripts and print the eager values here. Values are printed rounded to 4
decimals, so the comparison tolerance is 5e-5 absolute. The doc_*.py scripts make
the calls of the TracedLayer examples in Paddle 2.x's documentation (written for
this suite, not copied): their NAME.out holds what the documentation says those
examples print, and they are not run here. The warnings dy2st must give
(NAME.warn) are written by hand. dy2st never produces these files.
"""
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(os.path.dirname(HERE), "trace")

RUNNER = (
    "import sys, runpy, paddle\n"
    "paddle.jit.enable_to_static(False)\n"
    "sys.argv = [sys.argv[1]]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def main(names):
    scripts = sorted(glob.glob(os.path.join(DIR, "*.py")))
    scripts = [s for s in scripts if not os.path.basename(s).startswith("doc_")]
    if names:
        scripts = [s for s in scripts if os.path.splitext(os.path.basename(s))[0] in names]
    env = dict(os.environ, GLOG_minloglevel="3", PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="")
    for path in scripts:
        scratch = tempfile.mkdtemp()
        res = subprocess.run([sys.executable, "-c", RUNNER, path], cwd=scratch, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if res.returncode != 0:
            sys.stderr.write(res.stderr)
            sys.exit("%s failed under real Paddle (exit %d)" % (path, res.returncode))
        out = os.path.splitext(path)[0] + ".out"
        with open(out, "w") as f:
            f.write(res.stdout)
        print("wrote", os.path.relpath(out, os.path.dirname(os.path.dirname(HERE))))


if __name__ == "__main__":
    main(sys.argv[1:])
