"""Runs every script in tests/py_static under real PaddlePaddle and stores its stdout.

    <python with paddlepaddle 2.6 and numpy 1.26> tests/gen/gen_static_expected.py [NAME ...]

(for instance the oracle environment made by tests/oracle/install.sh). The
scripts use paddle.jit.to_static with data-dependent if/while/for, break,
continue and return; for each tests/py_static/NAME.py this writes
tests/py_static/NAME.out with what the script printed. dy2st's test runs the
same script with `dy2st exec` (in a scratch directory, as here) and compares its output with the file. Values
are printed rounded (np.round(v, 4)) so that float noise does not matter:
the tolerance is half a unit of the 4th decimal. dy2st never produces these
files.

Each script runs twice here: as written (to_static) and eagerly, with
"import paddle; paddle.jit.enable_to_static(False); " put in front of its
first line (a comment, so line numbers stay); the two outputs must be
identical, so the committed file is what real Paddle prints both ways.
dy2st's test runs both variants too. Scripts run under Paddle's default
to_static (SOT on Python 3.11); a script with the line
"# real Paddle: AST mode" runs with ENABLE_FALL_BACK=False, Paddle's AST
transformer (SOT cannot trace int()/float() of a tensor).
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
    env0 = dict(os.environ, GLOG_minloglevel="3", PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="")
    for path in scripts:
        with open(path) as f:
            src = f.read()
        if not src.startswith("#"):
            sys.exit("%s: the first line must be a comment" % path)
        env = dict(env0)
        if "\n# real Paddle: AST mode\n" in src:
            env["ENABLE_FALL_BACK"] = "False"
        outs = []
        for eager in (False, True):
            scratch = tempfile.mkdtemp()  # scripts may write files (paddle.jit.save)
            run = path
            if eager:
                run = os.path.join(scratch, os.path.basename(path))
                with open(run, "w") as f:
                    f.write("import paddle; paddle.jit.enable_to_static(False); " + src)
            res = subprocess.run([sys.executable, run], cwd=scratch, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if res.returncode != 0:
                sys.stderr.write(res.stderr)
                sys.exit("%s failed under real Paddle%s (exit %d)"
                         % (path, " (eager)" if eager else "", res.returncode))
            outs.append(res.stdout)
        if outs[0] != outs[1]:
            sys.exit("%s: real Paddle prints different things to_static and eager" % path)
        out = os.path.splitext(path)[0] + ".out"
        with open(out, "w") as f:
            f.write(outs[0])
        print("wrote", os.path.relpath(out, os.path.dirname(os.path.dirname(HERE))))


if __name__ == "__main__":
    main(sys.argv[1:])
