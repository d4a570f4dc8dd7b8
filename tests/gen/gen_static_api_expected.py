"""Runs every script in tests/py_static_api under real PaddlePaddle and stores its stdout.

    <python with paddlepaddle 2.6 and numpy 1.26> tests/gen/gen_static_api_expected.py [NAME ...]

(for instance the oracle environment made by tests/oracle/install.sh). The
scripts save models with paddle.jit.save, switch to static mode and run them
with paddle.static.Executor after paddle.static.load_inference_model, or
build static Programs by hand (paddle.static.data, static.nn.fc,
program_guard; weights set with Assign/Constant initializers, no RNG) and
run, save and load them; for each
tests/py_static_api/NAME.py this writes tests/py_static_api/NAME.out with what
the script printed. Scripts whose name starts with '_' are helpers; the
errors/ and selfcheck/ folders hold scripts that real Paddle 2.6 cannot run
(dy2st's diagnostics, the fluid and ProgramTranslator spellings) and are not
run here. tests/cli/test_static_api.sh runs the same scripts with
`dy2st exec` in a scratch directory, as here, and compares the output with
the file. Values are printed rounded to 4 decimals (tolerance 1e-4) and
compared with the eager run inside the script with atol 1e-5. dy2st never
produces these files.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(os.path.dirname(HERE), "py_static_api")


def main(names):
    scripts = sorted(p for p in glob.glob(os.path.join(DIR, "*.py"))
                     if not os.path.basename(p).startswith("_"))
    if names:
        scripts = [s for s in scripts if os.path.splitext(os.path.basename(s))[0] in names]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", GLOG_minloglevel="3", PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="")
    for path in scripts:
        scratch = tempfile.mkdtemp()  # scripts write their models there
        res = subprocess.run([sys.executable, path], cwd=scratch, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        shutil.rmtree(scratch, ignore_errors=True)
        if res.returncode != 0:
            sys.stderr.write(res.stderr)
            sys.exit("%s failed under real Paddle (exit %d)" % (path, res.returncode))
        out = os.path.splitext(path)[0] + ".out"
        with open(out, "w") as f:
            f.write(res.stdout)
        print("wrote", os.path.relpath(out, os.path.dirname(os.path.dirname(HERE))))


if __name__ == "__main__":
    main(sys.argv[1:])
