"""Code shared by the benchmark scripts: sample metadata, oracle data, timing and worker processes.

Nothing here imports Paddle, PyTorch or ONNX Runtime, so that a worker process
measuring one framework loads only that framework.
"""
import json
import os
import resource
import statistics
import sys
import time

import numpy as np

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
SAMPLES = os.path.join(ROOT, "samples")
ORACLE = os.path.join(ROOT, "tests", "oracle")
EXPECTED = os.path.join(ORACLE, "expected")
RESULTS = os.path.join(BENCH, "results")

SAMPLE_NAMES = ["simple_fc", "mnist_cnn", "lenet_branch", "char_rnn", "lstm_cell",
                "resnet_small", "transformer_encoder", "greedy_decoder"]

# The NAME of `dy2st save samples/X.py:NAME` for each sample: its Layer class, or
# build_model where the class's constructor takes arguments (SimpleFcLayer).
SAMPLE_CLASSES = {
    "simple_fc": "build_model", "mnist_cnn": "MNIST", "lenet_branch": "LeNetBranch",
    "char_rnn": "CharRNN", "lstm_cell": "LSTMCellLoop", "resnet_small": "SmallResNet",
    "transformer_encoder": "EncoderLayer", "greedy_decoder": "GreedyDecoder",
}

THREADS = (1, 2)
BATCHES = (1, 32)
# A port or export whose outputs differ from real Paddle's by more than this is
# not timed.
CHECK_ATOL = 1e-4

# Timing: WARMUP runs, then runs until MAX_RUNS or BUDGET_S seconds (but at
# least MIN_RUNS); the median is reported. Overridable from the environment so
# that a quick run (BENCH_QUICK=1) stays short.
WARMUP = int(os.environ.get("BENCH_WARMUP", "3"))
MIN_RUNS = int(os.environ.get("BENCH_MIN_RUNS", "5"))
MAX_RUNS = int(os.environ.get("BENCH_MAX_RUNS", "30"))
BUDGET_S = float(os.environ.get("BENCH_BUDGET_S", "0.6"))


def oracle_path(sample):
    return os.path.join(EXPECTED, sample + ".npz")


def load_oracle_file(path):
    """An oracle file as a dict: weights ("param/<key>"), inputs and Paddle's outputs."""
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def load_oracle(sample):
    return load_oracle_file(oracle_path(sample))


def oracle_weights(data):
    return {k[len("param/"):]: v for k, v in data.items() if k.startswith("param/")}


def oracle_io(data, set_name="example"):
    """(inputs, expected outputs) of one input set of the oracle file, as lists."""
    ins, outs, i = [], [], 0
    while f"{set_name}/input{i}" in data:
        ins.append(data[f"{set_name}/input{i}"])
        i += 1
    i = 0
    while f"{set_name}/eager{i}" in data:
        outs.append(data[f"{set_name}/eager{i}"])
        i += 1
    return ins, outs


def oracle_sets(data):
    return sorted({k.split("/")[0] for k in data if not k.startswith("param/")})


def max_abs_diff(got, want):
    """Largest |got - want| over all outputs; inf when the shapes or counts differ."""
    if len(got) != len(want):
        return float("inf")
    worst = 0.0
    for g, w in zip(got, want):
        g = np.asarray(g)
        if g.shape != w.shape:
            return float("inf")
        if g.size:
            worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))))
    return worst


def workdir(base, sample):
    d = os.path.join(base, sample)
    os.makedirs(d, exist_ok=True)
    return d


def read_json(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True, default=str)
        f.write("\n")
    os.replace(tmp, path)


def load_inputs(wd, batch_key):
    """The benchmark inputs prepared for one batch setting ("b1", "b32"), or None."""
    path = os.path.join(wd, f"inputs_{batch_key}.npz")
    if not os.path.exists(path):
        return None
    with np.load(path) as z:
        return [z[f"input{i}"] for i in range(len(z.files))]


def time_runs(fn):
    """Median, minimum and count of fn()'s wall time in seconds after warm-up runs."""
    for _ in range(WARMUP):
        fn()
    samples = []
    start = time.perf_counter()
    while len(samples) < MAX_RUNS:
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
        if len(samples) >= MIN_RUNS and time.perf_counter() - start > BUDGET_S:
            break
    return {"median_s": statistics.median(samples), "min_s": min(samples), "runs": len(samples)}


def peak_rss_mb_self():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def short_error(exc, limit=160):
    """One line naming an exception, cut to `limit` characters."""
    text = f"{type(exc).__name__}: {exc}" if isinstance(exc, BaseException) else str(exc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # Paddle's C++ errors put the useful line after a stack dump.
    for ln in lines:
        if "Error" in ln and ("]" in ln or ":" in ln) and "Traceback" not in ln:
            text = ln
            break
    else:
        text = lines[0] if lines else type(exc).__name__
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def thread_env(threads):
    """The environment of a worker process pinned to `threads` threads."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                "DY2ST_NUM_THREADS"):
        env[var] = str(threads)
    env.setdefault("GLOG_minloglevel", "3")
    env.setdefault("FLAGS_call_stack_level", "0")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def last_json_line(text):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def spawn_measured(argv, threads, timeout, cwd=ROOT):
    """Runs argv in a fresh process and reports its own peak RSS (via wait4).

    Returns a dict: rc (None on timeout), stdout, stderr, rss_mb, wall_s and cpu_s
    (its user + system CPU time).
    """
    import signal
    t0 = time.perf_counter()
    r_out, w_out = os.pipe()
    r_err, w_err = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.setsid()
            os.chdir(cwd)
            os.dup2(w_out, 1)
            os.dup2(w_err, 2)
            for fd in (r_out, w_out, r_err, w_err):
                os.close(fd)
            os.execvpe(argv[0], argv, thread_env(threads))
        finally:
            os._exit(127)
    os.close(w_out)
    os.close(w_err)
    import selectors
    sel = selectors.DefaultSelector()
    bufs = {r_out: [], r_err: []}
    for fd in bufs:
        sel.register(fd, selectors.EVENT_READ)
    open_fds = set(bufs)
    killed = False
    while open_fds:
        left = timeout - (time.perf_counter() - t0)
        if left <= 0 and not killed:
            os.killpg(pid, signal.SIGKILL)
            killed = True
        for key, _ in sel.select(timeout=max(min(left, 1.0), 0.05)):
            chunk = os.read(key.fd, 65536)
            if chunk:
                bufs[key.fd].append(chunk)
            else:
                sel.unregister(key.fd)
                os.close(key.fd)
                open_fds.discard(key.fd)
    _, status, usage = os.wait4(pid, 0)
    rc = None if killed else (os.waitstatus_to_exitcode(status))
    return {"rc": rc, "stdout": b"".join(bufs[r_out]).decode(errors="replace"),
            "stderr": b"".join(bufs[r_err]).decode(errors="replace"),
            "rss_mb": usage.ru_maxrss / 1024.0, "wall_s": time.perf_counter() - t0,
            "cpu_s": usage.ru_utime + usage.ru_stime}


def batch_keys(meta):
    """The batch settings a sample is measured at: "b1"/"b32", or "fixed" alone."""
    return ["b1", "b32"] if meta.get("dynamic_batch") else ["fixed"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def samples_of(budget_s):
    """How many samples of >= 50 ms a measurement with this time budget takes (as model_bench's
    SAMPLES argument): at least 3."""
    return max(3, int(round(budget_s / 0.05)))


def time_runs_cpu(fn, budget_s):
    """Times fn() the way bench/model_bench does: warm-up runs for 0.1 s (at least 3), then
    samples_of(budget_s) samples of the run count that fills 50 ms. Returns the median wall
    time per run, the CPU time (user + system, all threads of this process) per run over all
    samples, both in microseconds, and the number of timed runs."""
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.1 or reps < 3:
        fn()
        reps += 1
    per = int(reps * 0.05 / (time.perf_counter() - t0)) + 1
    walls, c0 = [], time.process_time()
    for _ in range(samples_of(budget_s)):
        a = time.perf_counter()
        for _ in range(per):
            fn()
        walls.append((time.perf_counter() - a) / per * 1e6)
    cpu = (time.process_time() - c0) / (per * len(walls)) * 1e6
    return {"wall_us": statistics.median(walls), "cpu_us": cpu, "runs": per * len(walls)}
