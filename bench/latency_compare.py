"""dy2st's run latency against ONNX Runtime and Paddle Inference, measured alternately.

    <bench venv python> bench/latency_compare.py run --build BUILD_DIR [--workdir DIR]
        [--samples a,b] [--threads 1,2] [--batches 1,32] [--rounds 5] [--budget 0.3]
        [--tools ort,paddle_infer,dy2st] [--before LIBDIR] [--json FILE] [--markdown FILE]

For every sample, batch (1 and 32 where the sample's INPUT_SPEC has a dynamic batch, else
its fixed batch once) and thread count, each round runs one measurement of each tool, one
after the other (dy2st and ORT always back to back; the order rotates over four rounds),
each in a fresh process, so that load from other work falls on all of them alike:

- ONNX Runtime: peers.py's session (intra-op threads as given, graph optimisation all on)
  on the export peers.py chose: paddle2onnx's, or torch.onnx's of the (scripted) PyTorch
  port where paddle2onnx fails or disagrees with Paddle;
- Paddle Inference: peers.py's predictor on the paddle.jit.save model, default CPU Config
  (oneDNN on), set_cpu_math_library_num_threads; a timed run copies the inputs in and the
  outputs out, as peers.py's does;
- dy2st: bench/model_bench on the model `dy2st save` writes with the oracle's weights, fed
  the same input arrays (.npy files in the model's input order);
- with --before LIBDIR, dy2st again: the same model_bench against an earlier build's
  libdy2st.so.0 in LIBDIR.

Every measurement warms up for 0.1 s and then takes BUDGET/50 ms samples of the run count
that fills 50 ms (common.time_runs_cpu, the same method as model_bench): the median wall
time per run and the CPU time (user + system, all threads) per run. The table gives the
medians over the rounds, the ratios ORT / dy2st and Paddle Inference / dy2st (above 1:
dy2st faster), the paired ratio (median over the rounds of ORT / dy2st measured back to
back in one round), their geometric means per thread count, a flag where dy2st is slower than
ORT, and each tool's peak RSS (ru_maxrss of its worker process, the largest over the
rounds: a Python process with its framework for ORT and Paddle, a C process for dy2st).
Before timing, dy2st's and Paddle Inference's outputs on the oracle's inputs are compared
with real Paddle's (ORT's export was checked when peers.py chose it); a tool that differs
by more than common.CHECK_ATOL is not timed on that sample.

The samples are prepared by peers.py (prepare-paddle, prepare-torch) into --workdir unless
that directory already holds them (as after `peers.py run` in `make bench`).
"""
import argparse
import json
import math
import os
import platform
import re
import shlex
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common as C  # noqa: E402

TOOLS = ["ort", "paddle_infer", "dy2st"]
LABELS = {"ort": "ORT", "paddle_infer": "Paddle Inference", "dy2st": "dy2st",
          "before": "dy2st before"}
# Rough seconds a worker process spends outside its timed part (start-up, imports, load,
# warm-up) on an idle machine: only for the estimate printed at the start.
STARTUP_S = {"ort": 0.8, "paddle_infer": 2.5, "dy2st": 0.2, "before": 0.2}


# ---- workers (fresh processes) ---------------------------------------------------------

def _meta(workdir, sample):
    return C.read_json(os.path.join(workdir, sample, "meta.json"))


def worker(args):
    """One measurement of ORT or Paddle Inference on one sample and batch; prints JSON."""
    import peers
    wd = os.path.join(args.workdir, args.sample)
    meta = _meta(args.workdir, args.sample)
    res = {"tool": args.tool}
    if args.tool == "ort":
        import onnxruntime as ort
        res["version"] = ort.__version__
        sess = peers._ort_session(meta["onnx"]["path"], args.threads)
        names = [i.name for i in sess.get_inputs()]
        feed = peers._ort_feed(names, meta, C.load_inputs(wd, args.key))
        res.update(C.time_runs_cpu(lambda: sess.run(None, feed), args.budget))
    else:
        os.environ.setdefault("GLOG_minloglevel", "3")
        import paddle
        paddle.base.core.set_num_threads(args.threads)
        res["version"] = paddle.__version__
        cfg, run_np = peers.paddle_infer_runner(meta, args.threads)
        res["mkldnn"] = bool(cfg.mkldnn_enabled())
        if args.check:
            data = C.load_oracle_file(os.path.join(wd, "oracle.npz"))
            worst = 0.0
            for set_name in C.oracle_sets(data):
                ins, want = C.oracle_io(data, set_name)
                worst = max(worst, C.max_abs_diff(run_np(ins), want))
            res["check_max_abs_diff"] = worst
            if not worst <= C.CHECK_ATOL:
                print(json.dumps(res))
                return
        arrays = C.load_inputs(wd, args.key)
        res.update(C.time_runs_cpu(lambda: run_np(arrays), args.budget))
    print(json.dumps(res))


def dy2st_check(args):
    """Checks the saved model against real Paddle's outputs and writes each batch setting's
    inputs as .npy files in the model's input order (model_bench -i); prints JSON."""
    import dy2st_bench as DB
    wd = os.path.join(args.workdir, args.sample)
    meta = _meta(args.workdir, args.sample)
    d = DB.Dy2st(args.lib)
    m = d.load(args.model)
    names = d.input_names(m)
    spec_names = [i["name"] for i in meta["inputs"]]
    data = C.load_oracle_file(os.path.join(wd, "oracle.npz"))
    worst = 0.0
    for set_name in C.oracle_sets(data):
        ins, want = C.oracle_io(data, set_name)
        ts, n = d.tensors(DB.order_inputs(names, spec_names, ins))
        try:
            worst = max(worst, C.max_abs_diff(d.run(m, ts, n, keep=True), want))
        finally:
            d.free_tensors(ts, n)
    d.lib.dy2st_model_free(m)
    files = {}
    for key in args.keys.split(","):
        arrays = DB.order_inputs(names, spec_names, C.load_inputs(wd, key))
        files[key] = []
        for i, a in enumerate(arrays):
            path = os.path.join(wd, f"latency_{key}_in{i}.npy")
            np.save(path, np.ascontiguousarray(a))
            files[key].append(path)
    print(json.dumps({"check_max_abs_diff": worst, "version": d.version(), "inputs": files}))


def make_inputs(args):
    """Writes inputs_bN.npz for batch sizes peers.py does not prepare (it writes b1, b32)."""
    sys.path.insert(0, C.ORACLE)
    import run_oracle
    for name in args.samples.split(","):
        meta = _meta(args.workdir, name)
        if not meta or not meta.get("dynamic_batch"):
            continue
        mod = run_oracle.load_sample(name)
        for b in args.batches.split(","):
            path = os.path.join(args.workdir, name, f"inputs_b{b}.npz")
            if not os.path.exists(path):
                ins = mod.example_inputs(batch=int(b))
                np.savez(path, **{f"input{i}": a for i, a in enumerate(ins)})
                C.log(f"latency: wrote {name} inputs at batch {b}")


# ---- the driver ------------------------------------------------------------------------

def _me():
    return [sys.executable, os.path.abspath(__file__)]


def _failure(r, what):
    if r["rc"] is None:
        return f"{what} timed out"
    tail = [ln for ln in (r["stderr"] + r["stdout"]).splitlines() if ln.strip()][-1:]
    return f"{what} failed (rc {r['rc']}): " + C.short_error(" ".join(tail) or "no output", 200)


def prepare(args, samples, keys_wanted):
    """peers.py's preparation where the work directory lacks it, extra batch inputs, and per
    sample `dy2st save` plus the dy2st check. Returns {sample: info}."""
    import dy2st_bench as DB
    import peers
    todo = [s for s in samples if not (_meta(args.workdir, s) or {}).get("torch_port")]
    if todo:
        pp = [sys.executable, os.path.join(HERE, "peers.py")]
        for stage, what in (("prepare-paddle", "Paddle preparation"),
                            ("prepare-torch", "PyTorch preparation")):
            peers._stage(pp + [stage, "--workdir", args.workdir, "--samples", ",".join(todo)],
                         900, what)
    extra = [b for b in keys_wanted if b not in (1, 32)]
    if extra:
        r = C.spawn_measured(_me() + ["make-inputs", "--workdir", args.workdir, "--samples",
                                      ",".join(samples), "--batches",
                                      ",".join(str(b) for b in extra)], 1, 300)
        if r["rc"] != 0:
            C.log("latency: " + _failure(r, "making the extra batch inputs"))
    build = os.path.abspath(args.build)
    dy2st = os.path.join(build, "dy2st")
    lib = os.path.join(build, ".libs", "libdy2st.so")
    info = {}
    for s in samples:
        meta = _meta(args.workdir, s)
        e = info[s] = {"keys": [], "skip": {}}
        if meta is None:
            e["error"] = "not prepared (peers.py prepare-paddle failed)"
            continue
        e["keys"] = [f"b{b}" for b in keys_wanted] if meta.get("dynamic_batch") else ["fixed"]
        missing = [k for k in e["keys"]
                   if not os.path.exists(os.path.join(args.workdir, s, f"inputs_{k}.npz"))]
        if missing:
            e["error"] = "no inputs for " + ", ".join(missing) + " (not measured)"
        e["keys"] = [k for k in e["keys"] if k not in missing]
        e["batch"] = {k: meta["batches"][k]["shapes"][0][0] if k in meta.get("batches", {})
                      else int(k[1:]) for k in e["keys"]}
        onnx = meta.get("onnx")
        if onnx:
            e["onnx"] = {"exporter": onnx["exporter"], "max_abs_diff": onnx.get("max_abs_diff")}
        else:
            e["skip"]["ort"] = "no ONNX export that ONNX Runtime runs and agrees with Paddle: " + (
                "; ".join("%s: %s" % (a["exporter"], a.get("error") or "outputs differ by %.3g"
                                      % a.get("max_abs_diff", float("nan")))
                          for a in meta.get("onnx_attempts", [])) or "none")
        if "paddle_model" not in meta:
            e["skip"]["paddle_infer"] = "paddle.jit.save failed: " + meta.get("jit_save_error", "?")
        model = os.path.join(args.workdir, s, "model.dy2st")
        params = C.oracle_path(s) if os.path.exists(C.oracle_path(s)) else \
            os.path.join(args.workdir, s, "oracle.npz")
        argv = [dy2st, "save", f"samples/{s}.py:{meta['class']}"]
        for decl in DB.input_decls(meta):
            argv += ["--input", decl]
        argv += ["--params", params, "-o", model]
        r = C.spawn_measured(argv, 1, 300)
        if r["rc"] != 0 or not os.path.exists(model):
            e["skip"]["dy2st"] = e["skip"]["before"] = _failure(r, "dy2st save")
            continue
        e["model"] = model
        r = C.spawn_measured(_me() + ["dy2st-check", "--workdir", args.workdir, "--sample", s,
                                      "--lib", lib, "--model", model, "--keys",
                                      ",".join(e["keys"])], 1, 300)
        got = C.last_json_line(r["stdout"])
        if got is None:
            e["skip"]["dy2st"] = e["skip"]["before"] = _failure(r, "the dy2st check")
            continue
        e["dy2st_check"] = got["check_max_abs_diff"]
        e["dy2st_version"] = got["version"]
        e["inputs"] = got["inputs"]
        if not got["check_max_abs_diff"] <= C.CHECK_ATOL:
            e["skip"]["dy2st"] = e["skip"]["before"] = (
                f"outputs differ from real Paddle's by {got['check_max_abs_diff']:.3g} "
                f"(> {C.CHECK_ATOL:g}); not timed")
    return info


def measure_once(args, tool, s, key, t, e, check):
    """One measurement in a fresh process: a dict with wall_us, cpu_us, rss_mb, or error."""
    if tool in ("dy2st", "before"):
        exe = os.path.join(os.path.abspath(args.build), "bench", "model_bench")
        if tool == "before":  # the uninstalled binary, loading the earlier library
            exe = os.path.join(os.path.abspath(args.build), "bench", ".libs", "model_bench")
        argv = [exe, e["model"]]
        for f in e["inputs"][key]:
            argv += ["-i", f]
        argv += [str(e["batch"][key]), str(C.samples_of(args.budget))]
        if tool == "before":
            # spawn_measured takes its environment from ours plus the thread settings
            os.environ["LD_LIBRARY_PATH"] = args.before
        try:
            r = C.spawn_measured(argv, t, args.timeout)
        finally:
            if tool == "before":
                del os.environ["LD_LIBRARY_PATH"]
        m = re.search(r"median ([\d.]+) us/run.*cpu ([\d.]+) us/run", r["stdout"])
        if r["rc"] != 0 or not m:
            return {"error": _failure(r, "model_bench")}
        return {"wall_us": float(m.group(1)), "cpu_us": float(m.group(2)),
                "rss_mb": r["rss_mb"]}
    argv = _me() + ["worker", "--tool", tool, "--sample", s, "--key", key, "--threads", str(t),
                    "--workdir", args.workdir, "--budget", str(args.budget)]
    if check:
        argv.append("--check")
    r = C.spawn_measured(argv, t, args.timeout)
    got = C.last_json_line(r["stdout"])
    if got is None:
        return {"error": _failure(r, LABELS[tool] + " worker")}
    got["rss_mb"] = r["rss_mb"]
    if "check_max_abs_diff" in got and not got["check_max_abs_diff"] <= C.CHECK_ATOL:
        got["error"] = (f"outputs differ from real Paddle's by {got['check_max_abs_diff']:.3g} "
                        f"(> {C.CHECK_ATOL:g}); not timed")
    return got


def _round_order(tools, rnd):
    """The order of the tools in round rnd. dy2st and ORT always run back to back, so that a
    slow spell of the machine (this class of virtual machine has some that last seconds, seen
    alike in a bare FMA loop) tends to fall on both; which of the two goes first, and whether
    the other tools go before or after them, rotates over four rounds."""
    pair = [t for t in ("dy2st", "ort") if t in tools]
    rest = [t for t in tools if t not in pair]
    if rnd % 2:
        pair.reverse()
    return pair + rest if rnd % 4 < 2 else rest + pair


def _paired_ratio(row, tool):
    """Median over the rounds of tool's wall time / dy2st's in the same round, or None."""
    d = {m["round"]: m["wall_us"] for m in row["runs"].get("dy2st", []) if "wall_us" in m}
    rs = [m["wall_us"] / d[m["round"]] for m in row["runs"].get(tool, [])
          if "wall_us" in m and m.get("round") in d]
    return statistics.median(rs) if rs else None


def _gmean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _loadavg():
    return "%.2f %.2f %.2f" % os.getloadavg()


def summarize(out, tools):
    """Medians over the rounds, ratios and geometric means (added to out)."""
    rows = []
    for row in out["rows"]:
        meds = {}
        for tool in tools:
            ms = [m for m in row["runs"].get(tool, []) if "wall_us" in m]
            if ms:
                meds[tool] = {"wall_us": statistics.median(m["wall_us"] for m in ms),
                              "cpu_us": statistics.median(m["cpu_us"] for m in ms),
                              "rss_mb": max(m["rss_mb"] for m in ms), "rounds": len(ms)}
        row["median"] = meds
        d = meds.get("dy2st")
        row["ratios"] = {}
        for tool in tools:
            if tool != "dy2st" and d and tool in meds:
                row["ratios"][tool] = {"wall": meds[tool]["wall_us"] / d["wall_us"],
                                       "cpu": meds[tool]["cpu_us"] / d["cpu_us"],
                                       "paired": _paired_ratio(row, tool)}
        o = row["ratios"].get("ort")
        row["dy2st_slower_than_ort"] = bool(o and o["wall"] < 1.0)
        rows.append(row)
    out["geomean"] = {}
    for t in out["threads"]:
        g = {}
        for tool in tools:
            if tool == "dy2st":
                continue
            rs = [r["ratios"][tool] for r in rows if r["threads"] == t and tool in r["ratios"]]
            if rs:
                g[tool] = {"wall": _gmean([x["wall"] for x in rs]),
                           "cpu": _gmean([x["cpu"] for x in rs]), "rows": len(rs)}
        out["geomean"][str(t)] = g
    ort_rows = [r for r in rows if "ort" in r["ratios"]]
    out["verdict"] = {
        "rows_with_ort": len(ort_rows),
        "rows_dy2st_slower_than_ort": [f"{r['sample']} {r['key']} {r['threads']}T"
                                       for r in ort_rows if r["dy2st_slower_than_ort"]],
        "geomean_ort_over_dy2st_wall": _gmean([r["ratios"]["ort"]["wall"] for r in ort_rows]),
        "rows_dy2st_slower_paired": [f"{r['sample']} {r['key']} {r['threads']}T"
                                     for r in ort_rows
                                     if (r["ratios"]["ort"].get("paired") or 1.0) < 1.0],
    }


def _f(x, nd=1):
    return "-" if x is None else f"{x:.{nd}f}"


def markdown(out, tools):
    lines = [f"## Latency: dy2st against ONNX Runtime and Paddle Inference (alternating, "
             f"{out['date']})", ""]
    lines += [f"Machine: {out['cpu']}, {out['cores']} cores; load average "
              f"{out['loadavg_start']} at the start, {out['loadavg_end']} at the end "
              f"(1, 5, 15 min). Rounds: {out['rounds']}; per measurement a fresh process, "
              f"0.1 s of warm-up, then {out['samples_per_measurement']} samples of >= 50 ms. "
              f"Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(out["versions"].items())) +
              f". Paddle Inference's oneDNN: {out.get('paddle_mkldnn', '?')}.", ""]
    lines += ["Command:", "", "```sh", out["command"], "```", ""]
    lines += ["Per row: median over the rounds of the wall time per run (us) and of the CPU "
              "time per run (us, user + system of all the process's threads); ratios are the "
              "peer's time / dy2st's (above 1: dy2st faster), wall first, CPU in brackets; "
              "ORT paired is the median over the rounds of ORT's wall time / dy2st's in the "
              "same round (the two run back to back); "
              "RSS is each tool's peak (MiB, ru_maxrss of its worker). **SLOWER** marks rows "
              "where dy2st's wall time is above ORT's.", ""]
    peers_ = [t for t in tools if t != "dy2st"]
    for t in out["threads"]:
        lines.append(f"### {t} thread{'s' if t > 1 else ''}")
        lines.append("")
        head = "| sample | batch | dy2st wall | dy2st CPU |"
        sep = "|---|---|---:|---:|"
        for p in peers_:
            head += f" {LABELS[p]} wall | {LABELS[p]} CPU | {LABELS[p]} / dy2st |"
            sep += "---:|---:|---:|"
            if p == "ort":
                head += " ORT paired |"
                sep += "---:|"
        head += " RSS MiB (" + " / ".join(LABELS[x] for x in tools) + ") | |"
        sep += "---|---|"
        lines += [head, sep]
        for r in out["rows"]:
            if r["threads"] != t:
                continue
            m = r["median"]
            d = m.get("dy2st", {})
            cells = [r["sample"], str(r["batch"]), _f(d.get("wall_us")), _f(d.get("cpu_us"))]
            for p in peers_:
                pm, ra = m.get(p, {}), r["ratios"].get(p)
                cells += [_f(pm.get("wall_us")), _f(pm.get("cpu_us")),
                          f"{ra['wall']:.2f} ({ra['cpu']:.2f})" if ra else "-"]
                if p == "ort":
                    cells.append(_f(ra.get("paired") if ra else None, 2))
            cells.append(" / ".join(_f(m.get(x, {}).get("rss_mb"), 0) for x in tools))
            cells.append("**SLOWER**" if r["dy2st_slower_than_ort"] else "")
            lines.append("| " + " | ".join(cells) + " |")
        g = out["geomean"].get(str(t), {})
        lines.append("")
        lines.append("Geometric mean, %d thread%s: " % (t, "s" if t > 1 else "") + "; ".join(
            f"{LABELS[p]} / dy2st {v['wall']:.2f} wall ({v['cpu']:.2f} CPU) over {v['rows']} rows"
            for p, v in g.items()) + ".")
        lines.append("")
    v = out["verdict"]
    slower = v["rows_dy2st_slower_than_ort"]
    gm = v["geomean_ort_over_dy2st_wall"]
    if not v["rows_with_ort"]:
        lines.append("Issue #16's targets: not checked (no row with ORT measured).")
    else:
        lines.append(f"Issue #16's targets (wall time): dy2st at least as fast as ORT on every "
                     f"row: {'yes' if not slower else 'no'} "
                     f"({len(slower)} of {v['rows_with_ort']} rows slower"
                     f"{': ' + ', '.join(slower) if slower else ''}); geometric mean ORT / dy2st "
                     f"over all rows {_f(gm, 2)} (target >= 1.25). By the paired ratio: "
                     f"{len(v['rows_dy2st_slower_paired'])} rows slower"
                     f"{': ' + ', '.join(v['rows_dy2st_slower_paired']) if v['rows_dy2st_slower_paired'] else ''}.")
    notes = []
    for s, e in out["samples"].items():
        diffs = []
        if e.get("onnx") and "ort" in tools:
            notes.append(f"{s}: ORT runs {e['onnx']['exporter']}'s export")
            diffs.append(("ORT", e["onnx"].get("max_abs_diff")))
        diffs.append(("dy2st", e.get("dy2st_check")))
        checked = [m.get("check_max_abs_diff") for r in out["rows"] if r["sample"] == s
                   for m in r["runs"].get("paddle_infer", []) if "check_max_abs_diff" in m]
        diffs.append(("Paddle Inference", max(checked) if checked else None))
        notes.append(f"{s}: largest difference from real Paddle's outputs (oracle inputs): " +
                     ", ".join(f"{n} {d:.2g}" for n, d in diffs if d is not None))
        for tool, why in sorted(e.get("skip", {}).items()):
            if tool in tools:
                notes.append(f"{s}: {LABELS[tool]} not measured: {why}")
        if e.get("error"):
            notes.append(f"{s}: {e['error']}")
    for r in out["rows"]:
        for tool in tools:
            errs = {m["error"] for m in r["runs"].get(tool, []) if "error" in m}
            for err in sorted(errs):
                notes.append(f"{r['sample']} {r['key']} {r['threads']}T: {LABELS[tool]}: {err}")
    if notes:
        lines += ["", "Notes:", ""] + ["- " + n for n in notes]
    return "\n".join(lines) + "\n"


def _neutral(text, args):
    """A command line with this machine's directories named neutrally (BUILD, WORK, TMP)."""
    dirs = [(os.path.abspath(args.before), "BEFORE")] if args.before else []
    for path, name in dirs + [(os.path.abspath(args.build), "BUILD"), (args.workdir, "WORK"),
                       (C.ROOT + "/", ""), (tempfile.gettempdir(), "TMP")]:
        text = text.replace(path, name)
    return text


def run(args):
    samples = args.samples.split(",") if args.samples else list(C.SAMPLE_NAMES)
    bad = [s for s in samples if s not in C.SAMPLE_CLASSES]
    if bad:
        sys.exit("latency_compare.py: error: unknown sample(s) %s (known: %s)"
                 % (", ".join(bad), ", ".join(C.SAMPLE_NAMES)))
    tools = [t for t in args.tools.split(",") if t]
    if any(t not in TOOLS for t in tools) or "dy2st" not in tools:
        sys.exit("latency_compare.py: error: --tools takes dy2st and any of ort, paddle_infer")
    if args.before:
        tools.append("before")
        if not os.path.exists(os.path.join(args.before, "libdy2st.so.0")):
            sys.exit(f"latency_compare.py: error: no libdy2st.so.0 in --before {args.before}")
    threads = [int(t) for t in args.threads.split(",")]
    batches = [int(b) for b in args.batches.split(",")]
    if not os.access(os.path.join(args.build, "bench", "model_bench"), os.X_OK):
        sys.exit("latency_compare.py: error: no bench/model_bench in the build directory "
                 f"{args.build} (make bench/model_bench)")
    args.workdir = os.path.abspath(args.workdir or tempfile.mkdtemp(prefix="dy2st-latency-"))
    os.makedirs(args.workdir, exist_ok=True)
    command = "bench/venv/bin/python bench/latency_compare.py " + " ".join(
        shlex.quote(a) for a in sys.argv[1:])
    out = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpu": _cpu_name(),
           "cores": os.cpu_count(), "loadavg_start": _loadavg(), "rounds": args.rounds,
           "budget_s": args.budget, "samples_per_measurement": C.samples_of(args.budget),
           "threads": threads, "tools": tools, "command": _neutral(command, args), "versions": {},
           "rows": []}
    C.log(f"latency: load average {out['loadavg_start']}; preparing {len(samples)} samples "
          f"in {args.workdir}")
    t_prep = time.perf_counter()
    out["samples"] = info = prepare(args, samples, batches)
    C.log(f"latency: prepared in {time.perf_counter() - t_prep:.0f} s")
    for s in samples:
        if info[s].get("dy2st_version"):
            out["versions"]["dy2st"] = info[s]["dy2st_version"]
        for t in threads:
            for key in info[s]["keys"]:
                out["rows"].append({"sample": s, "key": key, "batch": info[s]["batch"][key],
                                    "threads": t, "runs": {tool: [] for tool in tools}})
    n_meas = {tool: sum(1 for r in out["rows"] if tool not in info[r["sample"]]["skip"])
              for tool in tools}
    per_round = sum(n * (STARTUP_S[tool] + 0.1 + args.budget) for tool, n in n_meas.items())
    C.log(f"latency: {len(out['rows'])} rows x {args.rounds} rounds, "
          f"{sum(n_meas.values())} measurements per round; estimate {per_round:.0f} s per round, "
          f"{per_round * args.rounds / 60:.1f} min in all on an idle machine")
    t0 = time.perf_counter()
    for rnd in range(args.rounds):
        order = _round_order(tools, rnd)
        for row in out["rows"]:
            e = info[row["sample"]]
            for tool in order:
                if tool in e["skip"]:
                    continue
                prev = row["runs"][tool]
                if any("error" in m for m in prev):
                    continue  # failed once (mismatch, crash): not retried every round
                m = measure_once(args, tool, row["sample"], row["key"], row["threads"], e,
                                 check=(not prev and tool == "paddle_infer"))
                if "version" in m:
                    out["versions"][{"ort": "onnxruntime", "paddle_infer": "paddle"}[tool]] = \
                        m["version"]
                if "mkldnn" in m:
                    out["paddle_mkldnn"] = "on" if m["mkldnn"] else "off"
                m["round"] = rnd
                prev.append(m)
        done = time.perf_counter() - t0
        C.log(f"latency: round {rnd + 1}/{args.rounds} done in {done / (rnd + 1):.0f} s; "
              f"about {done / (rnd + 1) * (args.rounds - rnd - 1) / 60:.1f} min left; "
              f"load average {_loadavg()}")
    out["loadavg_end"] = _loadavg()
    out["measure_s"] = time.perf_counter() - t0
    summarize(out, tools)
    md = _neutral(markdown(out, tools), args)
    for path, text in ((args.json, _neutral(json.dumps(out, indent=1, sort_keys=True,
                                                       default=str), args) + "\n"),
                       (args.markdown, md)):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    print(md)
    C.log(f"latency: wrote {args.json} and {args.markdown}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run", help="measure (the driver)")
    p.add_argument("--build", required=True, help="the build directory (dy2st, model_bench)")
    p.add_argument("--workdir", default=None,
                   help="peers.py's work directory (prepared here when it lacks a sample)")
    p.add_argument("--samples", default=None, help="default: every sample of common.py")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--batches", default="1,32",
                   help="batch sizes of samples with a dynamic batch (fixed ones run once)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--budget", type=float, default=0.3,
                   help="seconds of timed samples per measurement (50 ms each)")
    p.add_argument("--tools", default=",".join(TOOLS))
    p.add_argument("--before", default=None,
                   help="a directory holding an earlier build's libdy2st.so.0")
    p.add_argument("--timeout", type=int, default=120, help="seconds per worker")
    p.add_argument("--json", default=os.path.join(C.RESULTS, "latency.json"))
    p.add_argument("--markdown", default=os.path.join(C.RESULTS, "latency.md"))
    p = sub.add_parser("worker")
    p.add_argument("--tool", required=True, choices=["ort", "paddle_infer"])
    p.add_argument("--sample", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--threads", type=int, required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--budget", type=float, required=True)
    p.add_argument("--check", action="store_true")
    p = sub.add_parser("dy2st-check")
    for a in ("--workdir", "--sample", "--lib", "--model", "--keys"):
        p.add_argument(a, required=True)
    p = sub.add_parser("make-inputs")
    for a in ("--workdir", "--samples", "--batches"):
        p.add_argument(a, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "run":
        run(args)
    elif args.cmd == "worker":
        worker(args)
    elif args.cmd == "dy2st-check":
        dy2st_check(args)
    else:
        make_inputs(args)


if __name__ == "__main__":
    main(sys.argv[1:])
