"""Runs the extracted Paddle docstring examples under real PaddlePaddle and stores their output.

    <python with paddlepaddle 2.6.2> tests/docs/gen_expected.py EXAMPLES_DIR [ID ...]

EXAMPLES_DIR is where tests/docs/fetch_examples.sh extracted the examples (it
holds index.txt and ID.py). For each example to run, this writes
tests/docs/expected/ID.out: a first line `# sha256 DIGEST` naming the example's
text, then what the example printed. Each example runs twice, the second time
with Paddle's and NumPy's generators seeded differently; when the two outputs
differ (random values printed without a seed) it is reported and no
file is written, so that it can be excluded in apis.txt. Paddle is imported
once and each run is a child process forked from the generator, so that every
example starts from a freshly imported Paddle without paying for the import.
Object addresses (`at 0x...`) are written as `at 0x...`. dy2st never produces
these files; only outputs are stored, never Paddle's code.
"""
import os
import re
import runpy
import sys
import traceback

os.environ.update(GLOG_minloglevel="3", PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="")
import numpy  # noqa: E402,F401  (imported once, before the examples are forked)
import paddle  # noqa: E402,F401

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected")


def run(path, cwd, reseed):
    """Runs one example in a child forked from this process (which imported
    Paddle once): returns (exit status, stdout text, last stderr line). With
    reseed, Paddle's and NumPy's random generators start from another seed, so
    an example that prints unseeded random values prints different ones."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(out_r)
        os.close(err_r)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.chdir(cwd)
        code = 0
        try:
            if reseed:
                paddle.seed(987654321)
                numpy.random.seed(987654321)
            runpy.run_path(path, run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    os.close(out_w)
    os.close(err_w)
    with os.fdopen(out_r, encoding="utf-8") as f:
        out = f.read()
    with os.fdopen(err_r, encoding="utf-8", errors="replace") as f:
        err = f.read()
    _, status = os.waitpid(pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    return rc, normalize(out), (err.strip().splitlines() or ["?"])[-1]


def normalize(text):
    """Object addresses differ between runs: `at 0x7f..` becomes `at 0x...`."""
    return re.sub(r"\bat 0x[0-9a-fA-F]+", "at 0x...", text)


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: gen_expected.py EXAMPLES_DIR [ID ...]")
    exdir = os.path.abspath(argv[1])
    only = set(argv[2:])
    os.makedirs(EXPECTED, exist_ok=True)
    bad = 0
    wanted = set()
    with open(os.path.join(exdir, "index.txt"), encoding="utf-8") as f:
        entries = [line.split() for line in f if line.strip()]
    for words in entries:
        ex, digest, status = words[0], words[1], words[2]
        if status != "run":
            continue
        wanted.add(ex + ".out")
        if only and ex not in only:
            continue
        path = os.path.join(exdir, ex + ".py")
        rc, first, err = run(path, exdir, False)
        if rc != 0:
            bad += 1
            print("%s: fails under Paddle (exit %d): %s" % (ex, rc, err))
            continue
        rc, second, err = run(path, exdir, True)
        if second != first:
            bad += 1
            print("%s: prints different values on each run (unseeded random values)" % ex)
            continue
        with open(os.path.join(EXPECTED, ex + ".out"), "w", encoding="utf-8") as out:
            out.write("# sha256 %s\n" % digest)
            out.write(first)
    if not only:
        for name in sorted(os.listdir(EXPECTED)):
            if name not in wanted:
                print("removing stale %s" % name)
                os.remove(os.path.join(EXPECTED, name))
    if bad:
        sys.exit("%d example(s) need an 'exclude' line in apis.txt" % bad)


if __name__ == "__main__":
    main(sys.argv)
