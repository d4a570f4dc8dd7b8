"""Turns the benchmark's raw results into bench/results/results.{json,csv}, ratios.png and RESULTS.md.

    report.py --raw WORK [--build-dir DIR] [--results DIR] [--markdown FILE]

Reads WORK/peers.json (peers.py), WORK/dy2st.json (dy2st_bench.py),
WORK/convert.json (convert_bench.py, conversion times), WORK/opencl.md (from
opencl_bench.sh, included as it is), WORK/train.md (train_bench.py's table,
included as it is, followed by the dated sections of bench/RESULTS-train.md), WORK/gemm.txt (the GEMM benchmark's
output) and WORK/commands.txt (the commands run_bench.sh ran). What it writes names no directory of the machine
it ran on: the work, build and source directories become WORK, BUILD and
paths relative to the source tree. Every ratio is a peer's median latency divided by
the baseline's: dy2st where dy2st ran the sample, otherwise Paddle eager
(labelled so), so a ratio above 1 means that peer is slower than the baseline.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
from peers import PEERS, PEER_LABELS  # noqa: E402

ALL = ["dy2st"] + PEERS
LABELS = dict(PEER_LABELS, dy2st="dy2st")


def machine():
    info = {"cpu": "?", "cores": os.cpu_count(), "memory_gib": None,
            "kernel": platform.release(), "python": platform.python_version()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/cpuinfo") as f:
            flags = next((ln for ln in f if ln.startswith("flags")), "").split()
        info["simd"] = " ".join(x for x in ("avx2", "fma", "avx512f", "avx512_vnni") if x in flags)
        with open("/proc/meminfo") as f:
            kb = int(next(ln for ln in f if ln.startswith("MemTotal")).split()[1])
            info["memory_gib"] = round(kb / 1024 / 1024, 1)
    except (OSError, StopIteration, ValueError):
        pass
    try:
        cc = subprocess.run(["cc", "--version"], capture_output=True, text=True, timeout=10)
        info["cc"] = cc.stdout.splitlines()[0] if cc.stdout else "?"
    except (OSError, subprocess.SubprocessError):
        info["cc"] = "?"
    return info


def collect(raw):
    """One record per (sample, tool, threads) from both raw files."""
    peers = C.read_json(os.path.join(raw, "peers.json"), {}) or {}
    dy = C.read_json(os.path.join(raw, "dy2st.json"), {}) or {}
    recs = {}
    for r in peers.get("results", []):
        recs[(r["sample"], r["peer"], r["threads"])] = r
    for name, e in dy.get("samples", {}).items():
        for t in dy.get("threads", C.THREADS):
            if e.get("status") in ("pending",) or "by_threads" not in e:
                rec = {"sample": name, "peer": "dy2st", "threads": t,
                       "status": e.get("status", "failed"),
                       "reason": e.get("reason", dy.get("unavailable", "not run")),
                       "dy2st_message": e.get("dy2st_message")}
            else:
                rec = dict(e["by_threads"].get(str(t), {"status": "failed", "reason": "not run"}))
                rec.update(sample=name, peer="dy2st", threads=t,
                           convert_s=e.get("convert_s"), convert_what=e.get("convert_what"))
            recs[(name, "dy2st", t)] = rec
    if not dy.get("samples") and peers.get("samples"):
        for name in peers["samples"]:
            for t in peers.get("threads", C.THREADS):
                recs[(name, "dy2st", t)] = {"sample": name, "peer": "dy2st", "threads": t,
                                            "status": "unavailable",
                                            "reason": dy.get("unavailable", "dy2st side not run")}
    return peers, dy, recs


def lat(rec, key):
    if not rec or rec.get("status") != "ok":
        return None
    v = rec.get("latency", {}).get(key)
    return v["median_s"] if v else None


def baseline_of(recs, sample, threads):
    """('dy2st' or 'paddle_eager', label) for a sample: dy2st whenever it ran."""
    if all((recs.get((sample, "dy2st", t)) or {}).get("status") == "ok" for t in threads):
        return "dy2st", "dy2st"
    return "paddle_eager", "Paddle eager (dy2st pending)"


def fmt_ms(s):
    if s is None:
        return "-"
    ms = s * 1e3
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def fmt_us(s):
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def fmt_s(s):
    if s is None:
        return "-"
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def fmt_ratio(x):
    if x is None:
        return "-"
    return f"{x:.2g}x" if x < 0.1 else (f"{x:.2f}x" if x < 10 else f"{x:.1f}x")


def fmt_diff(d):
    if d is None:
        return "-"
    return "0" if d == 0 else f"{d:.1e}"


def short(text, n=110):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 3] + "..."


def build_rows(peers, recs, threads):
    """Flat rows (one per sample, tool, threads, batch) with ratios to the baseline."""
    rows = []
    samples = peers.get("samples") or C.SAMPLE_NAMES
    prepared = peers.get("prepared", {})
    for name in samples:
        meta = prepared.get(name) or {}
        keys = C.batch_keys(meta) if meta else ["b1", "b32"]
        base, base_label = baseline_of(recs, name, threads)
        for tool in ALL:
            for t in threads:
                rec = recs.get((name, tool, t)) or {"status": "not run"}
                for key in keys:
                    v = lat(rec, key)
                    b = lat(recs.get((name, base, t)), key)
                    rows.append({
                        "sample": name, "tool": tool, "threads": t, "batch": key,
                        "status": rec.get("status"), "latency_ms": v * 1e3 if v else None,
                        "latency_min_ms": (rec.get("latency", {}).get(key, {}).get("min_s", 0) * 1e3
                                           if v else None),
                        "runs": rec.get("latency", {}).get(key, {}).get("runs") if v else None,
                        "convert_s": rec.get("convert_s"), "load_s": rec.get("load_s"),
                        "peak_rss_mb": rec.get("rss_mb"),
                        "check_max_abs_diff": rec.get("check_max_abs_diff"),
                        "baseline": base, "ratio_to_baseline": (v / b) if v and b else None,
                        "note": rec.get("reason") or rec.get("exporter") or "",
                    })
    return rows


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["sample"])
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else (f"{v:.6g}" if isinstance(v, float) else v))
                        for k, v in r.items()})


def plot(rows, samples, path, crows=()):
    """Bar chart of latency ratios to the baseline (1 thread), one panel per batch setting,
    and one of conversion-time ratios (Paddle / dy2st) where they were measured."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:
        return f"no chart: matplotlib unavailable ({C.short_error(e)})"
    panels = [("b1", "batch 1 (fixed batch where the input spec has no batch dim)"),
              ("b32", "batch 32")]
    conv = [r for r in crows if r.get("ratio")]
    fig, axes = plt.subplots(len(panels) + (1 if conv else 0), 1,
                             figsize=(12, 8.5 + (3.5 if conv else 0)), squeeze=False)
    tools = [t for t in ALL if any(r["tool"] == t and r["ratio_to_baseline"] for r in rows)]
    width = 0.8 / max(len(tools), 1)
    if conv:
        ax = axes[-1, 0]
        xs = [i for i, name in enumerate(samples) if any(r["sample"] == name for r in conv)]
        vals = [next(r["ratio"] for r in conv if r["sample"] == samples[i]) for i in xs]
        ax.bar([x - 0.27 for x in xs], vals, 0.27, color="C0",
               label="wall time, medians (dy2st: load + lower)")
        for x, v in zip(xs, vals):
            ax.text(x - 0.27, v, f"{v:.0f}x", ha="center", va="bottom", fontsize=7)
        for off, key, color, label in (
                (0.0, "ratio_scope", "C2", "wall time, to_static scope (dy2st: decorate + lower)"),
                (0.27, "ratio_cpu_program_cmd", "C1", "CPU time (errs against dy2st)")):
            more = [(i, next((r.get(key) for r in conv if r["sample"] == samples[i]), None))
                    for i in xs]
            more = [(x, v) for x, v in more if v]
            if not more:
                continue
            ax.bar([x + off for x, _ in more], [v for _, v in more], 0.27, color=color,
                   label=label)
            for x, v in more:
                ax.text(x + off, v, f"{v:.0f}x", ha="center", va="bottom", fontsize=7)
            vals += [v for _, v in more]
        ax.legend(loc="upper right", fontsize=7)
        ax.set_ylim(1.0, max(vals + [100.0]) * 3)
        ax.axhline(100.0, color="red", linewidth=0.8, linestyle="--")
        ax.text(-0.45, 100.0, "target 100x", color="red", ha="left", va="top", fontsize=8)
        ax.set_yscale("log")
        ax.set_xlim(-0.5, len(samples) - 0.5)
        ax.set_xticks(range(len(samples)))
        ax.set_xticklabels(samples, fontsize=7)
        ax.set_ylabel("Paddle / dy2st (log)")
        ax.set_title("conversion time: Paddle's first to_static call (AST, Program built) / "
                     "dy2st's conversion and lowering; higher = dy2st faster", fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
    for ax, (key, title) in zip(axes[:len(panels), 0], panels):
        labels = []
        for i, name in enumerate(samples):
            use = key
            if key == "b1" and not any(r["sample"] == name and r["batch"] == "b1" for r in rows):
                use = "fixed"
            base = next((r["baseline"] for r in rows if r["sample"] == name), "paddle_eager")
            labels.append(f"{name}\n(vs {'dy2st' if base == 'dy2st' else 'Paddle eager'})")
            if not any(r["sample"] == name and r["batch"] == use for r in rows):
                ax.text(i, 1.0, "fixed batch:\nsee the upper panel", ha="center", va="bottom",
                        fontsize=7, color="gray")
            for j, tool in enumerate(tools):
                r = next((r for r in rows if r["sample"] == name and r["tool"] == tool and
                          r["threads"] == 1 and r["batch"] == use), None)
                if r and r["ratio_to_baseline"]:
                    ax.bar(i + (j - (len(tools) - 1) / 2) * width, r["ratio_to_baseline"], width,
                           color=f"C{ALL.index(tool)}", label=LABELS[tool] if i == 0 else None)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xlim(-0.5, len(samples) - 0.5)
        ax.set_xticks(range(len(samples)))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("latency / baseline (log)")
        ax.set_title(f"median latency ratio, 1 thread, {title}", fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
    handles, names = [], []
    for ax in axes[:len(panels), 0]:
        for h, n in zip(*ax.get_legend_handles_labels()):
            if n not in names:
                handles.append(h)
                names.append(n)
    if names:
        fig.legend(handles, names, loc="upper center", ncol=len(names), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=110)
    return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def conversion_rows(conv, samples):
    """One row per sample of the conversion benchmark (convert_bench.py)."""
    rows = []
    for name in samples:
        e = (conv.get("samples") or {}).get(name) or {}
        p, d = e.get("paddle") or {}, e.get("dy2st") or {}
        rows.append({
            "sample": name, "paddle_convert_ms": ms(p.get("convert_s")),
            "paddle_convert_min_ms": ms(min(p["all_s"])) if p.get("all_s") else None,
            "paddle_ops": p.get("ops"), "paddle_warmup_ms": ms(p.get("warmup_s")),
            "dy2st_convert_ms": ms(d.get("convert_s")),
            "dy2st_convert_min_ms": ms(min(d["all_s"])) if d.get("all_s") else None,
            "dy2st_load_ms": ms(d.get("load_s")), "dy2st_lower_ms": ms(d.get("lower_s")),
            "dy2st_build_ms": ms(d.get("build_s")),
            "dy2st_decorate_ms": ms(d.get("decorate_s")),
            "dy2st_scope_ms": ms(d.get("scope_s")),
            "dy2st_program_cmd_net_ms": ms(d.get("program_net_s")),
            "paddle_cpu_ms": ms(p.get("cpu_s")),
            "ratio": e.get("ratio"), "ratio_min": e.get("ratio_min"),
            "ratio_scope": e.get("ratio_scope"),
            "ratio_cpu_program_cmd": e.get("ratio_cmd"),
            "paddle_runs": len(p.get("all_s", [])), "dy2st_runs": len(d.get("all_s", [])),
            "note": "; ".join(x for x in (
                "Paddle: " + e["paddle_error"] if e.get("paddle_error") else "",
                "dy2st: " + e["dy2st_error"] if e.get("dy2st_error") else "") if x),
        })
    return rows


def why_not(rec):
    """Why a tool has no number for a sample: its status and reason, one line."""
    why = rec.get("reason") or rec.get("status") or "not run"
    label = LABELS.get(rec.get("peer"), "")
    if label and why.startswith(label + ":"):
        why = why[len(label) + 1:].strip()
    if rec.get("dy2st_message"):
        why += f" (dy2st says: {rec['dy2st_message']})"
    return (f"{label}: " if label else "") + why


def ms(s):
    return None if s is None else s * 1e3


def fmt_cms(v):
    """A conversion time in ms."""
    if v is None:
        return "-"
    return f"{v:.3g} ms" if v < 1000 else f"{v / 1e3:.2f} s"


def geomean(xs):
    import math
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def conversion_section(conv, samples):
    L = []
    add = L.append
    add("## Conversion time: dy2st against Paddle's first to_static call\n")
    if not conv:
        add("Not run (`bench/convert_bench.py`).\n")
        return L
    crow = conversion_rows(conv, samples)
    target = conv.get("target_ratio", 100)
    add("Converting each sample's model and building its static Program, without running it, "
        "on the sample's `INPUT_SPEC` and `build_model()`; fresh processes at 1 thread, imports "
        "and the Layer's construction not timed, Paddle's and dy2st's runs alternating, "
        "samples taking turns run by run; medians "
        f"of {conv.get('runs')} Paddle and {conv.get('dy2st_runs')} dy2st processes per sample "
        "(load average %s at the start of this step, %s at its end). Method in detail: "
        "`bench/convert_bench.py`'s docstring.\n" % (conv.get("loadavg_start", "?"),
                                                     conv.get("loadavg_end", "?")))
    add("- **Paddle**: `paddle.jit.to_static(layer, input_spec=INPUT_SPEC, full_graph=True)` + "
        "`.forward.concrete_program` (the AST ProgramTranslator: conversion of forward and "
        "what it calls, plus construction of the static Program), after one trivial function "
        "was converted so that the dy2static machinery's lazy imports are not counted.")
    add("- **dy2st**: inside `dy2st exec` (timed with `time.perf_counter` in dy2st's "
        "interpreter): load = read, parse and run the sample file, whose "
        "`@paddle.jit.to_static` converts forward; lower = `_jst._program`, building the "
        "Program (helpers converted on the way) and printing it to a string. Conversion = "
        "load + lower; the Layer's construction (`build_model()`) is not counted, as on "
        "Paddle's side. to_static scope = decorate + lower, where decorate is the time "
        "the decorator spent converting forward during load (`_jst._stats()`): the work "
        "Paddle's timer covers, without reading, parsing and running the module file, which "
        "Python's import did on Paddle's side before its timer started (about two thirds of "
        "dy2st's load is tree-sitter parsing the whole file).")
    add("- **Ratio, wall time** (like for like: the same steps timed the same way on both "
        "sides): Paddle's median / dy2st's median of the in-process times above; and the same "
        "with each side's fastest run (a run of a few milliseconds that loses its core once is "
        "slowed several times over, one of a second averages the load out).")
    add("- **Ratio, CPU time** (a bound that errs against dy2st): Paddle's median CPU time "
        "(`time.process_time` around the steps above) / the median CPU time (user + system, "
        "from `wait4`) of a whole `dy2st program samples/X.py` minus that of a `dy2st "
        "program` on a two-line function (process start, interpreter start-up, a trivial "
        "conversion). dy2st's side here also counts building the Layer, printing the Program "
        "and freeing everything at exit, which Paddle's side does not.\n")
    first = True
    for key, what in (("ratio", "wall time, medians"),
                      ("ratio_scope", "wall time, to_static scope, medians"),
                      ("ratio_min", "wall time, fastest runs"),
                      ("ratio_cpu_program_cmd", "CPU time (errs against dy2st)")):
        xs = [r[key] for r in crow if r[key]]
        if not xs:
            continue
        line = (f"{what}: dy2st {min(xs):.0f}x to {max(xs):.0f}x faster (geometric mean "
                f"{geomean(xs):.0f}x) over {len(xs)} samples, "
                f"{sum(1 for x in xs if x >= target)} of {len(xs)} at issue #4's target of "
                f"{target:.0f}x or more.")
        add(f"**{line[0].upper() + line[1:]}**" if first else line[0].upper() + line[1:])
        first = False
    stretch = [r["paddle_convert_ms"] / r["paddle_cpu_ms"] for r in crow
               if r["paddle_convert_ms"] and r["paddle_cpu_ms"]]
    if stretch and max(stretch) < 1.2:
        add("\nOn this run Paddle's conversion was on a core for all of its wall time (the "
            "machine was idle), so the wall-time ratios are the like-for-like figure; the "
            "CPU-time ratios charge dy2st for more work than Paddle (process start, building "
            "the Layer, teardown) and understate its lead.")
    elif stretch:
        add(f"\nOn this run Paddle's conversion was on a core for only 1/{max(stretch):.1f} to "
            f"1/{min(stretch):.1f} of its wall time (the machine was loaded), while a run of "
            "dy2st's few milliseconds is often not preempted at all (compare its medians with "
            "its fastest runs): the wall-time ratios therefore overstate dy2st's lead over an "
            "idle machine, and the CPU-time ratios, which charge dy2st for more work than "
            "Paddle, understate it; the idle-machine figure most likely lies between the two.")
    add("")
    add("| sample | Paddle ops | wall: Paddle median (fastest) "
        "| wall: dy2st load + lower, median (fastest) | wall: dy2st lower | ratio, wall "
        "medians | ratio, wall fastest | wall: dy2st decorate + lower | ratio, to_static "
        "scope | CPU: Paddle | CPU: dy2st `program` - trivial | ratio, CPU |")
    add("|---|---|---|---|---|---|---|---|---|---|---|---|")
    notes = []
    for r in crow:
        def both(med, low):
            return "-" if med is None else f"{fmt_cms(med)} ({fmt_cms(low)})"
        def rx(x, bold=False):
            return "-" if not x else (f"**{x:.0f}x**" if bold else f"{x:.0f}x")
        add(f"| {r['sample']} | {r['paddle_ops'] if r['paddle_ops'] is not None else '-'} | "
            f"{both(r['paddle_convert_ms'], r['paddle_convert_min_ms'])} | "
            f"{both(r['dy2st_convert_ms'], r['dy2st_convert_min_ms'])} | "
            f"{fmt_cms(r['dy2st_lower_ms'])} | {rx(r['ratio'], True)} | {rx(r['ratio_min'])} | "
            f"{fmt_cms(r['dy2st_scope_ms'])} | {rx(r['ratio_scope'])} | "
            f"{fmt_cms(r['paddle_cpu_ms'])} | {fmt_cms(r['dy2st_program_cmd_net_ms'])} | "
            f"{rx(r['ratio_cpu_program_cmd'])} |")
        if r["note"]:
            notes.append(f"- {r['sample']}: {short(r['note'], 220)}")
    add("")
    warm = [r["paddle_warmup_ms"] for r in crow if r["paddle_warmup_ms"]]
    build = [r["dy2st_build_ms"] for r in crow if r["dy2st_build_ms"] is not None]
    extra = []
    if warm:
        extra.append("Not counted above: Paddle's conversion of the trivial function (the "
                     f"machinery's first use) took {fmt_cms(statistics.median(warm))} (median over "
                     "samples)")
    if build:
        extra.append(f"dy2st's construction of the Layer took {fmt_cms(min(build))} to "
                     f"{fmt_cms(max(build))}")
    if conv.get("trivial_cpu_s") is not None:
        extra.append("the trivial `dy2st program` (the cross-check's baseline) took "
                     f"{fmt_cms(conv['trivial_cpu_s'] * 1e3)} of CPU time")
    if extra:
        add("; ".join(extra) + ".\n")
    if notes:
        add("\n".join(notes) + "\n")
    return L


def markdown(peers, dy, recs, rows, mach, raw, chart_note, conv=None):
    threads = peers.get("threads") or list(C.THREADS)
    samples = peers.get("samples") or C.SAMPLE_NAMES
    prepared = peers.get("prepared", {})
    L = []
    add = L.append
    stamps = [os.path.getmtime(os.path.join(raw, f))
              for f in ("peers.json", "dy2st.json", "convert.json", "opencl.md")
              if os.path.exists(os.path.join(raw, f))]
    stamp = max(stamps) if stamps else None
    when = datetime.datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M") if stamp else "?"
    add("# Benchmark results: dy2st against Paddle, PyTorch and ONNX Runtime\n")
    add(f"Measured (finished) {when} by `make bench` (`bench/run_bench.sh BUILD_DIR`); raw data in "
        "`bench/results/` (`results.json`, `results.csv`, `ratios.png`, `gemm.txt`). "
        "How the numbers are taken: `bench/README.md`.\n")
    dy_ok = [s for s in samples if baseline_of(recs, s, threads)[0] == "dy2st"]
    if not dy_ok:
        add("**dy2st cannot convert any sample yet** (its translator is pending: "
            + ("the `dy2st` built here has no `save` command" if dy.get("has_save") is False
               else "`dy2st save` fails on every sample") +
            "). Until it can, every ratio below is against **Paddle eager**, not against "
            "dy2st, and the dy2st rows are empty. The runner picks dy2st's numbers up by "
            "itself once `dy2st save` works; nothing here is estimated.\n")
    elif len(dy_ok) == len(samples):
        add(f"dy2st converted and ran all {len(samples)} samples, with outputs matching real "
            "Paddle's; every ratio below is against dy2st (above 1 = slower than dy2st).\n")
    else:
        add(f"dy2st ran {len(dy_ok)} of {len(samples)} samples; ratios of those are against "
            "dy2st, the others' against Paddle eager (labelled per table).\n")
    add("**Noise.** The machine has 2 cores, shared with whatever else ran (load average %s "
        "at the start of the latency measurements, %s at their end; above about 1, other "
        "work competed for the cores), so single numbers can be off by 2x or more on a busy "
        "machine, the 2-thread ones most; only medians are reported, and small differences "
        "mean nothing.\n" % (
            peers.get("loadavg_start", "?"), peers.get("loadavg_end", "?")))

    notes = ["PyTorch is the default index's CUDA-enabled wheel, run on the CPU; its peak RSS "
             "includes the CUDA libraries it maps at import, so it is higher than a CPU-only "
             "build's would be."]
    try:
        busy = max(float(x) for x in (peers.get("loadavg_start", "0").split() +
                                      peers.get("loadavg_end", "0").split()))
    except ValueError:
        busy = 0
    if busy > (mach.get("cores") or 1):
        notes.append("With more runnable processes than cores, a 2-thread run likely waits "
                     "whenever one of its two threads is descheduled: tools that split even small "
                     "operations over a team of threads (Paddle, PyTorch, dy2st's GEMM) then "
                     "show 2-thread times far above their 1-thread times, while ONNX Runtime, "
                     "which keeps small work on one thread, hardly changes. Compare 2-thread "
                     "numbers only from an idle machine.")
    add("**Reading these numbers.** " + " ".join(notes) + "\n")
    add("## Machine and versions\n")
    add(f"- CPU: {mach['cpu']} ({mach.get('simd', '')}), {mach['cores']} cores visible, "
        f"{mach['memory_gib']} GiB memory, Linux {mach['kernel']}, {mach.get('cc', '?')}")
    vers = {}
    for meta in prepared.values():
        vers.update((meta or {}).get("versions", {}))
        tp = (meta or {}).get("torch_port") or {}
        if "torch" in tp:
            vers["torch"] = tp["torch"]
    for r in peers.get("results", []):
        vers.update(r.get("versions", {}))
    add("- " + ", ".join(f"{k} {v}" for k, v in sorted(vers.items())) +
        (f", {dy.get('version')}" if dy.get("version") else ""))
    add(f"- Threads: every measurement at {' and '.join(map(str, threads))} thread(s): "
        "OMP_NUM_THREADS / MKL_NUM_THREADS / DY2ST_NUM_THREADS in each worker's environment, "
        "plus `paddle.base.core.set_num_threads`, `Config.set_cpu_math_library_num_threads`, "
        "`torch.set_num_threads` (inter-op 1), ORT `intra_op_num_threads` (inter-op 1).")
    tm = peers.get("timing", {})
    add(f"- Latency: one forward call on inputs already in the tool's tensor type, "
        f"{tm.get('warmup', '?')} warm-up calls, then calls until {tm.get('max_runs', '?')} or "
        f"{tm.get('budget_s', '?')} s (at least {tm.get('min_runs', '?')}); the median. Paddle "
        "Inference and ONNX Runtime include copying inputs in and outputs out (their API needs "
        "it); dy2st is called through its C API with ctypes (a few microseconds per call).")
    add("- Every tool's outputs are first checked against real Paddle's (`tests/oracle/expected`, "
        f"all input sets); one that differs by more than {C.CHECK_ATOL:g} is not timed.")
    add("- Peak RSS: `ru_maxrss` of the worker process (a fresh one per tool, sample and thread "
        "count) from `wait4`, so it includes the Python interpreter and the framework; dy2st's "
        "is that of `dy2st run` on the batch-32 inputs (no Python).")
    add("- Convert (per-sample tables): Paddle to_static = first call (translation + first "
        "run) in Paddle 2.6's default mode, which translates bytecode (SOT, `full_graph=False`); "
        "Paddle Inference = `paddle.jit.save` (AST translation, Program, writing the files); "
        "TorchScript = `torch.jit.script`; ONNX Runtime = the export "
        "(paddle2onnx, or torch.onnx where paddle2onnx failed); dy2st = the whole `dy2st save` "
        "command's wall time (process start, conversion, loading the .npz, writing the model). "
        "Conversion alone, against Paddle's, has its own section below. "
        "Load: eager ones = build the model + load the weights; Paddle Inference = Config + "
        "`create_predictor`; TorchScript = `torch.jit.load`; ORT = `InferenceSession` "
        "(includes its graph optimisation); dy2st = `dy2st_model_load`. Both at 1 thread.\n")

    add("## Summary: median latency relative to the baseline (1 thread)\n")
    add("Ratio = tool's latency / baseline's latency; above 1 = slower than the baseline.\n")
    add("![latency ratios](results/ratios.png)\n" if not chart_note else f"({chart_note})\n")
    na_reasons = []
    hdr = "| sample | baseline | batch | " + " | ".join(LABELS[t] for t in ALL) + " |"
    add(hdr)
    add("|" + "---|" * (3 + len(ALL)))
    for name in samples:
        meta = prepared.get(name) or {}
        _, blabel = baseline_of(recs, name, threads)
        for key in (C.batch_keys(meta) if meta else ["b1", "b32"]):
            cells = []
            for tool in ALL:
                r = next((r for r in rows if r["sample"] == name and r["tool"] == tool and
                          r["threads"] == 1 and r["batch"] == key), None)
                if r and r["ratio_to_baseline"]:
                    cells.append(fmt_ratio(r["ratio_to_baseline"]))
                elif not r or r["status"] != "ok":
                    why = why_not(recs.get((name, tool, 1)) or {})
                    if why not in na_reasons:
                        na_reasons.append(why)
                    cells.append(f"n/a [{na_reasons.index(why) + 1}]")
                else:
                    cells.append("-")
            add(f"| {name} | {blabel} | {batch_label(meta, key)} | " + " | ".join(cells) + " |")
    add("")
    heads = []
    for tool in PEERS:
        for t in threads:
            xs = [r["ratio_to_baseline"] for r in rows if r["tool"] == tool and
                  r["threads"] == t and r["baseline"] == "dy2st" and r["ratio_to_baseline"]]
            if xs:
                heads.append(f"| {LABELS[tool]} | {t} | {fmt_ratio(geomean(xs))} | "
                             f"{fmt_ratio(min(xs))} | {fmt_ratio(max(xs))} | {len(xs)} |")
    if heads:
        add("Per peer, over the rows where dy2st is the baseline (geometric mean; above 1 = "
            "the peer is slower than dy2st):\n")
        add("| peer | threads | geometric mean | lowest | highest | rows |")
        add("|---|---|---|---|---|---|")
        add("\n".join(sorted(heads, key=lambda h: int(h.split("|")[2]))) + "\n")
    if na_reasons:
        add("Why a cell is n/a (1 thread; the per-sample sections give each thread count):\n")
        add("\n".join(f"{i + 1}. {short(w, 260)}" for i, w in enumerate(na_reasons)) + "\n")

    L.extend(conversion_section(conv or {}, samples))

    add("## dy2st\n")
    if dy.get("unavailable"):
        add(f"Not measured: {dy['unavailable']}.\n")
    else:
        add(f"`dy2st --version`: {dy.get('version', '?')}; `dy2st save` "
            f"{'exists' if dy.get('has_save') else 'does not exist yet'}.\n")
        add("| sample | status | detail |")
        add("|---|---|---|")
        for name in samples:
            e = dy.get("samples", {}).get(name, {})
            detail = e.get("dy2st_message") or e.get("reason") or ""
            if e.get("status") == "ok":
                detail = "converted in " + fmt_s(e.get("convert_s"))
            add(f"| {name} | {e.get('status', 'not run')} | {short(detail, 140)} |")
        add("")
        sc = dy.get("selfcheck")
        if sc:
            parts = []
            for t, r in sorted(sc["results"].items()):
                if r.get("status") == "ok":
                    parts.append(f"{t} thread(s): load {fmt_s(r.get('load_s'))}, " + ", ".join(
                        f"{batch_label({}, k)} {fmt_us(v['median_s'])}"
                        for k, v in r["latency"].items()))
                else:
                    parts.append(f"{t} thread(s): {r.get('status')}: {short(r.get('reason'), 100)}")
            add(f"Harness check (not a sample result): the same C-API timing path on the "
                f"hand-written Program `{sc['program']}` (x: float32[-1,4], two linear layers "
                f"and a while_loop) gives " + "; ".join(parts) + ".\n")

    add("## Per sample\n")
    add("Latency cells: median ms (ratio to the baseline). `-` = not measured; the reason "
        "follows the table.\n")
    for name in samples:
        meta = prepared.get(name) or {}
        base, blabel = baseline_of(recs, name, threads)
        keys = C.batch_keys(meta) if meta else ["b1", "b32"]
        shapes = "; ".join(f"{batch_label(meta, k)}: " + ", ".join(
            "x".join(str(n) for n in s) for s in meta.get("batches", {}).get(k, {}).get("shapes", []))
            for k in keys)
        add(f"### {name}\n")
        add(f"Inputs {shapes}. Baseline: {blabel}.\n")
        cols = [f"{t}T {batch_label(meta, k)}" for t in threads for k in keys]
        add("| tool | max abs diff | convert | load | peak RSS (MiB) | " + " | ".join(cols) + " |")
        add("|" + "---|" * (5 + len(cols)))
        notes = []
        for tool in ALL:
            r1 = recs.get((name, tool, threads[0])) or {}
            cells = []
            for t in threads:
                r = recs.get((name, tool, t)) or {}
                for k in keys:
                    v = lat(r, k)
                    b = lat(recs.get((name, base, t)), k)
                    cells.append("-" if v is None else
                                 f"{fmt_ms(v)}" + (f" ({fmt_ratio(v / b)})" if b else ""))
            label = LABELS[tool]
            if tool == "ort" and r1.get("exporter"):
                label += f" ({r1['exporter']})"
            rss = max([x for x in ((recs.get((name, tool, t)) or {}).get("rss_mb") for t in threads)
                       if x] or [0]) or None
            add(f"| {label} | {fmt_diff(r1.get('check_max_abs_diff'))} | "
                f"{fmt_s(r1.get('convert_s'))} | {fmt_s(r1.get('load_s'))} | "
                f"{'-' if not rss else f'{rss:.0f}'} | " + " | ".join(cells) + " |")
            for t in threads:
                r = recs.get((name, tool, t)) or {}
                if r.get("status") != "ok":
                    why = r.get("reason") or r.get("status") or "not run"
                    if r.get("dy2st_message"):
                        why += f" (dy2st says: {r['dy2st_message']})"
                    if why.startswith(LABELS[tool] + ":"):
                        why = why[len(LABELS[tool]) + 1:].strip()
                    note = f"- {LABELS[tool]}: {short(why, 220)}"
                    if note not in notes:
                        notes.append(note)
        add("")
        if notes:
            add("\n".join(notes) + "\n")

    add("## ONNX export and PyTorch ports\n")
    add("| sample | PyTorch port max abs diff | paddle2onnx | torch.onnx | ORT runs |")
    add("|---|---|---|---|---|")
    for name in samples:
        meta = prepared.get(name) or {}
        port = meta.get("torch_port") or {}
        pdiff = port.get("error") or fmt_diff(port.get("max_abs_diff"))
        cells = {"paddle2onnx": "-", "torch.onnx": "not tried (paddle2onnx's export is used)"}
        for a in meta.get("onnx_attempts", []):
            kind = "paddle2onnx" if a["exporter"] == "paddle2onnx" else "torch.onnx"
            if "error" in a:
                cells[kind] = "failed: " + short(a["error"], 120)
            else:
                cells[kind] = (f"{a['exporter']} ok ({fmt_s(a.get('export_s'))}), max abs diff "
                               f"{fmt_diff(a.get('max_abs_diff'))}")
        chosen = meta.get("onnx")
        add(f"| {name} | {short(pdiff, 80)} | {cells['paddle2onnx']} | {cells['torch.onnx']} | "
            f"{chosen['exporter'] if chosen else 'none'} |")
    add("")

    opencl = read_text(os.path.join(raw, "opencl.md"))
    if opencl:
        add("## OpenCL (bench/opencl_bench.sh)\n")
        add(opencl.rstrip() + "\n")

    # the training-step benchmark: this run's table (WORK/train.md, from
    # train_bench.py), then the dated sections kept in RESULTS-train.md
    train = read_text(os.path.join(raw, "train.md"))
    history = read_text(os.path.join(C.BENCH, "RESULTS-train.md"))
    if train or history:
        add("## Training step (bench/train_bench.py)\n")
        if train:
            add(train.rstrip() + "\n")
        if history:
            add("Earlier training-step measurements (`RESULTS-train.md`):\n")
            body = history.split("\n", 1)[1] if history.startswith("# ") else history
            # its "## DATE" sections become "### DATE" under this "##" heading
            add("\n".join("#" + l if l.startswith("## ") else l
                          for l in body.strip().splitlines()) + "\n")
    # the eager micro-benchmarks are run by hand (bench/eager/run.sh); their
    # write-up is kept in its own file and copied in as it is
    eager = read_text(os.path.join(C.BENCH, "RESULTS-eager.md"))
    if eager:
        add(eager.rstrip() + "\n")

    gemm = read_text(os.path.join(raw, "gemm.txt"))
    add("## GEMM (bench/gemm_bench)\n")
    if gemm:
        add("Output of the GEMM benchmark in this run (see `RESULTS-gemm.md` for its own "
            "write-up):\n")
        add("```\n" + gemm.rstrip() + "\n```\n")
    else:
        add("Not run.\n")

    add("## Commands\n")
    cmds = read_text(os.path.join(raw, "commands.txt"))
    add("```")
    if cmds:
        add(cmds.rstrip())
    for k, v in sorted(peers.get("commands", {}).items()):
        add(f"# peers {k}:\n{v}")
    for k, v in sorted(dy.get("commands", {}).items()):
        add(f"# dy2st {k}:\n{v}")
    for k, v in sorted((conv or {}).get("commands", {}).items()):
        add(f"# conversion ({k}):\n{v}")
    if (conv or {}).get("driver"):
        add("# conversion: WORK/convert_driver.py, run by dy2st exec:\n" + conv["driver"].rstrip())
    for name in samples:
        e = dy.get("samples", {}).get(name, {})
        if e.get("command"):
            add(e["command"])
    add("```")
    return "\n".join(L) + "\n"


def scrubber(raw, build, extra=()):
    """A function that replaces the machine's directories in a text by neutral names."""
    pairs = [(os.path.realpath(raw), "WORK"), (raw, "WORK")]
    if build:
        pairs += [(os.path.realpath(build), "BUILD"), (build, "BUILD")]
    pairs += [(p, n) for p, n in extra if p]
    if build:
        rel = os.path.relpath(os.path.realpath(build), os.path.realpath(C.ROOT))
        if not rel.startswith(".."):  # a build directory inside the source tree
            pairs += [(rel + os.sep, "BUILD" + os.sep)]
    pairs += [(C.ROOT + os.sep, ""), (C.ROOT, "."), (os.path.expanduser("~"), "~")]
    pairs.sort(key=lambda p: -len(p[0]))

    def scrub(text):
        for path, name in pairs:
            if path and len(path) > 1:
                text = text.replace(path, name)
        return text
    return scrub


def batch_label(meta, key):
    if key == "fixed":
        shapes = meta.get("batches", {}).get("fixed", {}).get("shapes") or [[None]]
        return f"fixed batch {shapes[0][0]}"
    return {"b1": "batch 1", "b32": "batch 32"}.get(key, key)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--raw", required=True, help="the work directory of the run")
    ap.add_argument("--build-dir", default=None)
    ap.add_argument("--results", default=C.RESULTS)
    ap.add_argument("--markdown", default=os.path.join(C.BENCH, "RESULTS.md"))
    args = ap.parse_args(argv)
    os.makedirs(args.results, exist_ok=True)
    peers, dy, recs = collect(args.raw)
    conv = C.read_json(os.path.join(args.raw, "convert.json"), {}) or {}
    scrub = scrubber(args.raw, args.build_dir or dy.get("build_dir"),
                     [(peers.get("workdir"), "WORK"), (dy.get("build_dir"), "BUILD"),
                      (os.path.dirname(os.path.dirname(sys.executable)), "bench/venv")])
    threads = peers.get("threads") or list(C.THREADS)
    samples = peers.get("samples") or C.SAMPLE_NAMES
    rows = build_rows(peers, recs, threads)
    mach = machine()
    csv_path = os.path.join(args.results, "results.csv")
    write_csv(rows, csv_path)
    with open(csv_path) as f:
        text = scrub(f.read())
    with open(csv_path, "w") as f:
        f.write(text)
    crows = conversion_rows(conv, samples) if conv else []
    conv_csv = os.path.join(args.results, "conversion.csv")
    if crows:
        write_csv(crows, conv_csv)
    elif os.path.exists(conv_csv):
        os.unlink(conv_csv)
    chart_note = plot(rows, samples, os.path.join(args.results, "ratios.png"), crows)
    merged = json.dumps({"machine": mach, "peers": peers, "dy2st": dy, "conversion": conv,
                         "rows": rows, "conversion_rows": crows},
                        indent=1, sort_keys=True, default=str)
    with open(os.path.join(args.results, "results.json"), "w") as f:
        f.write(scrub(merged) + "\n")
    gemm = read_text(os.path.join(args.raw, "gemm.txt"))
    if gemm is not None:
        with open(os.path.join(args.results, "gemm.txt"), "w") as f:
            f.write(scrub(gemm))
    with open(args.markdown, "w") as f:
        f.write(scrub(markdown(peers, dy, recs, rows, mach, args.raw, chart_note, conv)))
    C.log(f"report: wrote {args.markdown}, {args.results}/results.json, results.csv, ratios.png")


if __name__ == "__main__":
    main(sys.argv[1:])
