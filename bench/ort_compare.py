"""dy2st's C API against ONNX Runtime, alternately, on a few samples: CPU time per run.

    <bench venv python> bench/ort_compare.py --workdir DIR --build BUILD_DIR
        [--samples mnist_cnn,resnet_small,transformer_encoder] [--rounds 3] [--threads 1]
        [--before LIBDIR]

DIR is a `peers.py prepare-paddle --workdir DIR` directory (each sample's paddle2onnx
export and its batch-1 and batch-32 inputs). Each round measures every sample and batch
once with ONNX Runtime (a fresh Python process, intra-op threads as given, graph
optimisations all on) and once with dy2st (`bench/model_bench` on the model `dy2st save`
wrote with the oracle's weights), one after the other, so that load from other work
falls on both alike. Both report the CPU time (user + system) of their timed runs per
run, which a busy machine disturbs less than the wall clock, and the wall median. With
--before, a third measurement in each round runs the same model_bench against the
libdy2st.so.0 in LIBDIR (an earlier build), for a before/after column.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import common as C  # noqa: E402


def ort_child(onnx, inputs, threads, budget):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(onnx, so, providers=["CPUExecutionProvider"])
    with np.load(inputs) as z:
        arrays = [z[k] for k in sorted(z.files)]
    feed = {i.name: a for i, a in zip(sess.get_inputs(), arrays)}
    for _ in range(3):
        sess.run(None, feed)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.1:
        sess.run(None, feed)
        n += 1
    per = max(1, int(n * 0.05 / (time.perf_counter() - t0)))
    walls, c0 = [], time.process_time()
    runs = 0
    t_end = time.perf_counter() + budget
    while len(walls) < 7 or time.perf_counter() < t_end:
        a = time.perf_counter()
        for _ in range(per):
            sess.run(None, feed)
        walls.append((time.perf_counter() - a) / per * 1e6)
        runs += per
        if len(walls) >= 41:
            break
    cpu = (time.process_time() - c0) / runs * 1e6
    print(json.dumps({"wall_us": statistics.median(walls), "cpu_us": cpu}))


def ort_measure(onnx, inputs, threads, budget):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--ort-child", onnx, inputs,
                          str(threads), str(budget)], env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def dy2st_measure(build, model, batch, seq, threads, libdir=None):
    env = dict(os.environ, DY2ST_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    argv = [os.path.join(build, "bench", "model_bench"), model, str(batch), "9"]
    if libdir:  # the uninstalled binary, loading that library
        env["LD_LIBRARY_PATH"] = libdir
        argv[0] = os.path.join(build, "bench", ".libs", "model_bench")
    if seq:
        argv.append(str(seq))
    out = subprocess.run(argv, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"median ([\d.]+) us/run.*cpu ([\d.]+) us/run", out)
    return {"wall_us": float(m.group(1)), "cpu_us": float(m.group(2))}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--ort-child":
        ort_child(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--samples", default="mnist_cnn,resnet_small,transformer_encoder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--before", default=None)
    args = ap.parse_args()
    dy2st = os.path.join(args.build, "dy2st")
    rows = []
    for s in args.samples.split(","):
        wd = os.path.join(args.workdir, s)
        meta = json.load(open(os.path.join(wd, "meta.json")))
        model = os.path.join(wd, "model.dy2st")
        subprocess.run([dy2st, "save", f"{C.SAMPLES}/{s}.py:{C.SAMPLE_CLASSES[s]}",
                        "--params", C.oracle_path(s), "-o", model], check=True,
                       stdout=subprocess.DEVNULL)
        for key in sorted(meta["batches"]):
            shapes = meta["batches"][key]["shapes"]
            batch = shapes[0][0]
            seq = shapes[0][1] if s == "transformer_encoder" else 0
            rows.append((s, key, os.path.join(wd, "paddle2onnx.onnx"),
                         os.path.join(wd, f"inputs_{key}.npz"), model, batch, seq))
    res = {r[:2]: {"ort": [], "dy2st": [], "before": []} for r in rows}
    print("load average at the start:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for _ in range(args.rounds):
        for s, key, onnx, inputs, model, batch, seq in rows:
            res[(s, key)]["ort"].append(ort_measure(onnx, inputs, args.threads, 0.5))
            res[(s, key)]["dy2st"].append(dy2st_measure(args.build, model, batch, seq,
                                                        args.threads))
            if args.before:
                res[(s, key)]["before"].append(dy2st_measure(args.build, model, batch, seq,
                                                             args.threads, args.before))
    print("load average at the end:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print("| sample | batch | ORT CPU us/run | dy2st CPU us/run | ORT / dy2st (CPU) "
          "| ORT wall us | dy2st wall us | before CPU us/run | ORT / before (CPU) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    ratios, before_ratios = [], []
    for (s, key), v in res.items():
        oc = statistics.median(x["cpu_us"] for x in v["ort"])
        dc = statistics.median(x["cpu_us"] for x in v["dy2st"])
        ow = statistics.median(x["wall_us"] for x in v["ort"])
        dw = statistics.median(x["wall_us"] for x in v["dy2st"])
        ratios.append(oc / dc)
        bc = statistics.median(x["cpu_us"] for x in v["before"]) if v["before"] else None
        if bc:
            before_ratios.append(oc / bc)
        btxt = f"{bc:.1f} | {oc / bc:.2f}" if bc else "- | -"
        print(f"| {s} | {key} | {oc:.1f} | {dc:.1f} | {oc / dc:.2f} | {ow:.1f} | {dw:.1f} "
              f"| {btxt} |")
    gm = float(np.exp(np.mean(np.log(ratios))))
    print(f"geometric mean ORT / dy2st (CPU): {gm:.2f}")
    if before_ratios:
        gb = float(np.exp(np.mean(np.log(before_ratios))))
        print(f"geometric mean ORT / before (CPU): {gb:.2f}")


if __name__ == "__main__":
    main()
