"""Training-step benchmark: dy2st against Paddle dygraph, Paddle to_static, Paddle static and PyTorch.

    bench/venv/bin/python bench/train_bench.py run --build-dir BUILD [--runs 3] [--steps 30]
        [--warmup 3] [--batch 32] [--workdir DIR] [--markdown FILE] [--json FILE]

Times one training step (forward, cross-entropy, backward, the optimizer's update
and clear_grad) of samples/mnist_cnn.py (Momentum) and samples/char_rnn.py
(Adam, sequences of 8) at batch 32 on 1 thread. Every measurement is a fresh
process that times its own loop with time.perf_counter after warm-up steps, so
start-up, imports and the first (converting) calls are not counted:

- dy2st eager / to_static / static: `dy2st exec bench/train_step.py` (the
  sample's to_static switched off, on, or paddle.enable_static + minimize);
- Paddle eager / to_static / static: the same script under real Paddle (its
  to_static is Paddle 2.6's default, SOT); static for mnist_cnn only, since
  char_rnn's tensor `while` needs the to_static conversion;
- PyTorch eager: the port of bench/torch_models.py (`worker-torch`).

All tools start from the same weights and data (NumPy, fixed seeds) and the
first step's loss of each is printed, so that a tool that trains something
else shows, and a tool whose steps leave parameters unchanged is reported,
not timed. The runs alternate (run 1 of every tool, then run 2, ...); the
table gives the median wall time over all timed steps of all runs, the
spread of the per-run medians, the median CPU time of the process per step
(steadier than the wall time on a loaded machine) and the ratios to dy2st
eager, with the load average before and after. A tool that fails is listed with its error, not timed.
"""
import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import common as C

TOOLS = ["dy2st eager", "dy2st to_static", "dy2st static", "Paddle eager", "Paddle to_static",
         "Paddle static", "PyTorch eager"]
SAMPLES = ["mnist_cnn", "char_rnn"]


def torch_worker(sample, batch, steps, warmup):
    import time

    import numpy as np
    import torch
    import torch.nn.functional as F

    import torch_models as TM

    torch.set_num_threads(1)
    model = TM.PORTS[sample]()
    modules = dict(model.named_modules())
    wr = np.random.RandomState(1)
    weights = {}
    for name, p in model.named_parameters():
        owner, _, leaf = name.rpartition(".")
        shape = list(p.shape)
        if isinstance(modules.get(owner), torch.nn.Linear) and leaf == "weight":
            shape = shape[::-1]  # Paddle's Linear weight is [in, out]
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 10
        weights[name] = (wr.uniform(-1, 1, shape) / np.sqrt(fan_in)).astype("float32")
    TM.load_paddle_weights(model, weights)
    model.train()
    rng = np.random.RandomState(0)
    if sample == "mnist_cnn":
        xs = rng.rand(4, batch, 1, 28, 28).astype("float32")
        ys = rng.randint(0, 10, size=(4, batch, 1)).astype("int64")
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    else:
        xs = rng.randint(0, 32, size=(4, batch, 8)).astype("int64")
        ys = rng.randint(0, 32, size=(4, batch, 1)).astype("int64")
        opt = torch.optim.Adam(model.parameters(), lr=0.001)
    xt = [torch.from_numpy(xs[k]) for k in range(4)]
    yt = [torch.from_numpy(ys[k][:, 0]) for k in range(4)]
    times, cpu, loss0 = [], [], None
    for i in range(warmup + steps):
        c0 = time.process_time()
        t0 = time.perf_counter()
        loss = F.cross_entropy(model(xt[i % 4]), yt[i % 4])
        loss.backward()
        opt.step()
        opt.zero_grad()
        lv = float(loss)
        t1 = time.perf_counter()
        c1 = time.process_time()
        if i == 0:
            loss0 = lv
        if i >= warmup:
            times.append(t1 - t0)
            cpu.append(c1 - c0)
    print("loss0 %.6f" % loss0)
    print("times " + " ".join("%.7f" % t for t in times))
    print("cpu " + " ".join("%.7f" % t for t in cpu))


def command(tool, sample, args, work):
    step_args = [sample, tool.split()[1], str(args.batch), str(args.steps), str(args.warmup)]
    if tool.startswith("dy2st"):
        return [os.path.join(args.build_dir, "dy2st"), "exec", "train_step.py"] + step_args
    if tool.startswith("Paddle"):
        return [sys.executable, "train_step.py"] + step_args
    return [sys.executable, os.path.join(C.BENCH, "train_bench.py"), "worker-torch", sample,
            str(args.batch), str(args.steps), str(args.warmup)]


def parse(out):
    loss0, times, cpu = None, None, None
    for line in out.splitlines():
        if line.startswith("loss0 "):
            loss0 = float(line.split()[1])
        elif line.startswith("times "):
            times = [float(v) for v in line.split()[1:]]
        elif line.startswith("cpu "):
            cpu = [float(v) for v in line.split()[1:]]
    return loss0, times, cpu


def one_line(text):
    lines = [l for l in text.strip().splitlines() if "error" in l.lower()] or text.strip().splitlines()
    return " ".join((lines[-1] if lines else "no output").split())[:200]


def run(args):
    work = args.workdir or tempfile.mkdtemp(prefix="dy2st-train-")
    os.makedirs(work, exist_ok=True)
    for f in (os.path.join(C.SAMPLES, "mnist_cnn.py"), os.path.join(C.SAMPLES, "char_rnn.py"),
              os.path.join(C.BENCH, "train_step.py")):
        shutil.copy(f, work)
    env = C.thread_env(1)
    env["PYTHONPATH"] = C.BENCH
    load_start = "%.2f %.2f %.2f" % os.getloadavg()
    res = {(s, t): {"runs": [], "cpu": [], "loss0": None, "error": None} for s in SAMPLES for t in TOOLS}
    for r in range(args.runs):
        for s in SAMPLES:
            for t in TOOLS:
                cell = res[(s, t)]
                if cell["error"]:
                    continue
                if t == "Paddle static" and s == "char_rnn":
                    cell["error"] = ("not measured: char_rnn's `while` over a tensor needs the "
                                     "to_static conversion, which Paddle refuses in static mode")
                    continue
                cmd = command(t, s, args, work)
                try:
                    p = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True, timeout=args.timeout)
                    out, rc = p.stdout, p.returncode
                except subprocess.TimeoutExpired:
                    out, rc = "timed out after %d s" % args.timeout, -1
                loss0, times, cpu = parse(out)
                if rc != 0 or not times or not cpu:
                    cell["error"] = "failed (exit %d): %s" % (rc, one_line(out))
                    continue
                upd = [l.split() for l in out.splitlines() if l.startswith("updated ")]
                if upd and upd[-1][1] != upd[-1][3]:
                    cell["error"] = ("not timed: the steps updated %s of %s parameters (no "
                                     "gradient reached the others); forward-only time %.3f ms" %
                                     (upd[-1][1], upd[-1][3], 1e3 * statistics.median(times)))
                    continue
                cell["loss0"] = loss0
                cell["runs"].append(times)
                cell["cpu"].append(cpu)
                print("train_bench: run %d %s %s: median %.3f ms (CPU %.3f ms)" %
                      (r + 1, s, t, 1e3 * statistics.median(times), 1e3 * statistics.median(cpu)),
                      file=sys.stderr)
    load_end = "%.2f %.2f %.2f" % os.getloadavg()
    md = report(res, args, load_start, load_end)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(md)
    print(md)
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)


def report(res, args, load_start, load_end):
    lines = ["### Training step, %s" % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), "",
             "Batch %d, 1 thread, %d runs per tool alternating, %d timed steps per run after %d "
             "warm-up steps; load average (1, 5, 15 min) %s at the start, %s at the end." %
             (args.batch, args.runs, args.steps, args.warmup, load_start, load_end), ""]
    for s in SAMPLES:
        base = res[(s, "dy2st eager")]
        base_med = statistics.median(sum(base["runs"], [])) if base["runs"] else None
        base_cpu = statistics.median(sum(base["cpu"], [])) if base["cpu"] else None
        lines += ["**%s** (%s)" % (s, "Momentum" if s == "mnist_cnn" else "Adam, sequences of 8"), "",
                  "| tool | wall ms/step | per-run medians | x dy2st eager | CPU ms/step | "
                  "x dy2st eager (CPU) | first loss |",
                  "|---|---:|---|---:|---:|---:|---:|"]
        notes = []
        for t in TOOLS:
            c = res[(s, t)]
            if not c["runs"]:
                lines.append("| %s | - | - | - | - | - | - |" % t)
                notes.append("- %s: %s" % (t, c["error"] or "no result"))
                continue
            med = statistics.median(sum(c["runs"], []))
            runs = ", ".join("%.3f" % (1e3 * statistics.median(x)) for x in c["runs"])
            ratio = "%.2f" % (med / base_med) if base_med else "-"
            cmed = statistics.median(sum(c["cpu"], []))
            cratio = "%.2f" % (cmed / base_cpu) if base_cpu else "-"
            lines.append("| %s | %.3f | %s | %s | %.3f | %s | %.5f |" %
                         (t, 1e3 * med, runs, ratio, 1e3 * cmed, cratio, c["loss0"]))
        lines.append("")
        if notes:
            lines += notes + [""]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--build-dir", default=".")
    r.add_argument("--workdir")
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--steps", type=int, default=30)
    r.add_argument("--warmup", type=int, default=3)
    r.add_argument("--batch", type=int, default=32)
    r.add_argument("--timeout", type=int, default=600)
    r.add_argument("--markdown")
    w = sub.add_parser("worker-torch")
    w.add_argument("sample")
    w.add_argument("batch", type=int)
    w.add_argument("steps", type=int)
    w.add_argument("warmup", type=int)
    a = ap.parse_args()
    if a.cmd == "worker-torch":
        torch_worker(a.sample, a.batch, a.steps, a.warmup)
    else:
        a.build_dir = os.path.abspath(a.build_dir)
        run(a)


if __name__ == "__main__":
    main()
