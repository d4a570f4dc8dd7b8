"""ONNX Runtime on dy2st's export against ONNX Runtime on paddle2onnx's (or torch.onnx's)
export of the same sample, alternately in one process: CPU time and wall time per run.

    <bench venv python> bench/ort_exports.py --workdir DIR [--samples a,b] [--rounds 5]
        [--runs 20] [--threads 1]

DIR is a `peers.py run --peers ort,ort_dy2st --workdir DIR` directory: each sample's
meta.json (the chosen export), its inputs, and dy2st_export.onnx. Each round times
--runs calls of one session, then of the other, on every batch of inputs, so that load
from other work falls on both alike; the report is the median over rounds of the CPU
time (time.process_time) and wall time per call.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
from peers import _ort_feed, _ort_session  # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--samples", default=",".join(C.SAMPLE_NAMES))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    print("loadavg %.1f %.1f %.1f" % os.getloadavg())
    print("| sample | batch | exporter | CPU us/call (theirs) | CPU us/call (dy2st) | "
          "wall us/call (theirs) | wall us/call (dy2st) | dy2st / theirs (CPU) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.samples.split(","):
        wd = os.path.join(args.workdir, name)
        meta = C.read_json(os.path.join(wd, "meta.json"))
        chosen = (meta or {}).get("onnx")
        mine = os.path.join(wd, "dy2st_export.onnx")
        if not chosen or not os.path.exists(mine):
            print(f"| {name} | - | - | n/a | n/a | n/a | n/a | n/a |")
            continue
        sess = {"theirs": _ort_session(chosen["path"], args.threads),
                "dy2st": _ort_session(mine, args.threads)}
        names = {k: [i.name for i in s.get_inputs()] for k, s in sess.items()}
        for key in C.batch_keys(meta):
            z = np.load(os.path.join(wd, f"inputs_{key}.npz"))
            arrays = [z[f"input{i}"] for i in range(len(meta["inputs"]))]
            feeds = {k: _ort_feed(names[k], meta, arrays) for k in sess}
            got = {k: {"cpu": [], "wall": []} for k in sess}
            for k in sess:  # warm-up
                for _ in range(3):
                    sess[k].run(None, feeds[k])
            for _ in range(args.rounds):
                for k in sess:
                    c0, w0 = time.process_time(), time.perf_counter()
                    for _ in range(args.runs):
                        sess[k].run(None, feeds[k])
                    got[k]["cpu"].append((time.process_time() - c0) / args.runs * 1e6)
                    got[k]["wall"].append((time.perf_counter() - w0) / args.runs * 1e6)
            m = {k: {q: statistics.median(v[q]) for q in v} for k, v in got.items()}
            print(f"| {name} | {key} | {chosen.get('exporter', '?')} | {m['theirs']['cpu']:.0f} | "
                  f"{m['dy2st']['cpu']:.0f} | {m['theirs']['wall']:.0f} | {m['dy2st']['wall']:.0f} | "
                  f"{m['dy2st']['cpu'] / max(m['theirs']['cpu'], 1e-9):.2f} |")
    print("loadavg %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main(sys.argv[1:])
