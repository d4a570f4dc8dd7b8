"""Measures dy2st itself on every sample: conversion (`dy2st save`), load and run latency.

    dy2st_bench.py run --build-dir DIR --workdir DIR [--samples a,b] [--threads 1,2]
                       [--device cpu|opencl[:N]] [--out FILE]

For each sample it runs

    dy2st save samples/X.py:CLASS --input NAME:DTYPE[DIMS]... --params ORACLE.npz -o WORK/X/model.dy2st

timing the whole command (conversion); a sample that `dy2st save` cannot
convert yet (or a dy2st without a `save` command) is recorded as such, with
dy2st's own message, and nothing is timed. A saved model is then loaded and
run through the public C API (libdy2st, called with ctypes) in a fresh worker
process per thread count: its outputs are checked against real Paddle's, then
the median latency at batch 1 and 32 is taken like the peers'. Peak RSS comes
from `dy2st run` on the batch-32 inputs, a process without Python.

The same C-API path is also run on samples/programs/mlp_loop.d2p (a
hand-written Program, no translator involved) as a check that the timing
harness works; that number is not a sample result.

--device picks the backend the models are loaded on (the C API's device
string: cpu, the default, or opencl[:N] for an OpenCL device as listed by
`dy2st devices`); inputs are uploaded and outputs read back inside each timed
run, as an application calling dy2st_model_run would see it.
"""
import argparse
import ctypes
import json
import os
import shlex
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

PENDING = "dy2st: not yet able to convert this sample (translator pending)"
SELFCHECK_PROGRAM = os.path.join("samples", "programs", "mlp_loop.d2p")

DTYPES = {"float32": 0, "float64": 1, "int32": 2, "int64": 3, "bool": 4}
NP_OF = {0: np.float32, 1: np.float64, 2: np.int32, 3: np.int64, 4: np.bool_}


class _Status(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 1024)]


class Dy2st:
    """The few entry points of <dy2st/dy2st.h> the benchmark needs, through ctypes."""

    def __init__(self, lib_path):
        # Lazy binding: a library whose translator half is still incomplete
        # loads, and the runtime entry points used here still resolve.
        L = self.lib = ctypes.CDLL(lib_path, mode=os.RTLD_LAZY | os.RTLD_LOCAL)
        vp, st = ctypes.c_void_p, ctypes.POINTER(_Status)
        L.dy2st_version.restype = ctypes.c_char_p
        L.dy2st_model_load.restype = vp
        L.dy2st_model_load.argtypes = [ctypes.c_char_p, ctypes.c_char_p, st]
        L.dy2st_model_free.argtypes = [vp]
        L.dy2st_model_num_inputs.argtypes = [vp]
        L.dy2st_model_num_outputs.argtypes = [vp]
        L.dy2st_model_input_name.restype = ctypes.c_char_p
        L.dy2st_model_input_name.argtypes = [vp, ctypes.c_int]
        L.dy2st_tensor_new.restype = vp
        L.dy2st_tensor_new.argtypes = [ctypes.c_int, ctypes.c_int,
                                       ctypes.POINTER(ctypes.c_int64), vp, st]
        L.dy2st_tensor_free.argtypes = [vp]
        L.dy2st_tensor_dtype.argtypes = [vp]
        L.dy2st_tensor_ndim.argtypes = [vp]
        L.dy2st_tensor_dim.restype = ctypes.c_int64
        L.dy2st_tensor_dim.argtypes = [vp, ctypes.c_int]
        L.dy2st_tensor_numel.restype = ctypes.c_int64
        L.dy2st_tensor_numel.argtypes = [vp]
        L.dy2st_tensor_data.restype = vp
        L.dy2st_tensor_data.argtypes = [vp]
        L.dy2st_model_run.argtypes = [vp, ctypes.POINTER(vp), ctypes.c_int,
                                      ctypes.POINTER(vp), ctypes.c_int, st]

    def version(self):
        return self.lib.dy2st_version().decode()

    def load(self, path, device="cpu"):
        st = _Status()
        m = self.lib.dy2st_model_load(path.encode(), device.encode(), ctypes.byref(st))
        if not m:
            raise RuntimeError(st.message.decode(errors="replace"))
        return m

    def input_names(self, m):
        return [self.lib.dy2st_model_input_name(m, i).decode()
                for i in range(self.lib.dy2st_model_num_inputs(m))]

    def tensors(self, arrays):
        """New dy2st tensors holding copies of `arrays` (free with free_tensors)."""
        out = (ctypes.c_void_p * max(len(arrays), 1))()
        for i, a in enumerate(arrays):
            a = np.ascontiguousarray(a)
            dt = DTYPES.get(str(a.dtype))
            if dt is None:
                raise ValueError(f"dtype {a.dtype} has no dy2st counterpart")
            shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
            st = _Status()
            t = self.lib.dy2st_tensor_new(dt, a.ndim, shape, a.ctypes.data_as(ctypes.c_void_p),
                                          ctypes.byref(st))
            if not t:
                raise RuntimeError(st.message.decode(errors="replace"))
            out[i] = t
        return out, len(arrays)

    def free_tensors(self, ts, n):
        for i in range(n):
            if ts[i]:
                self.lib.dy2st_tensor_free(ts[i])

    def to_numpy(self, t):
        L = self.lib
        shape = tuple(L.dy2st_tensor_dim(t, d) for d in range(L.dy2st_tensor_ndim(t)))
        dtype = NP_OF[L.dy2st_tensor_dtype(t)]
        n = L.dy2st_tensor_numel(t)
        if n == 0:
            return np.zeros(shape, dtype)
        buf = (ctypes.c_char * (n * np.dtype(dtype).itemsize)).from_address(L.dy2st_tensor_data(t))
        return np.frombuffer(buf, dtype=dtype).reshape(shape).copy()

    def run(self, m, ins, n_in, keep=False):
        """Runs model m; returns the outputs as numpy arrays, or None when keep is False."""
        n_out = self.lib.dy2st_model_num_outputs(m)
        outs = (ctypes.c_void_p * max(n_out, 1))()
        st = _Status()
        if self.lib.dy2st_model_run(m, ins, n_in, outs, n_out, ctypes.byref(st)) < 0:
            raise RuntimeError(st.message.decode(errors="replace"))
        got = [self.to_numpy(outs[i]) for i in range(n_out)] if keep else None
        self.free_tensors(outs, n_out)
        return got


def order_inputs(names, spec_names, arrays):
    """The arrays in the model's input order (matched by name where the names agree)."""
    if sorted(names) == sorted(spec_names):
        by = dict(zip(spec_names, arrays))
        return [by[n] for n in names]
    return list(arrays)


# ---- worker: one model, one thread count -----------------------------------------------

def measure(args):
    d = Dy2st(args.lib)
    res = {"threads": args.threads, "dy2st": d.version(), "device": args.device}
    t0 = time.perf_counter()
    m = d.load(args.model, args.device)
    res["load_s"] = time.perf_counter() - t0
    names = d.input_names(m)
    if args.selfcheck:
        rng = np.random.RandomState(0)
        keys = {"b1": [rng.randn(1, 4).astype("float32")],
                "b32": [rng.randn(32, 4).astype("float32")]}
    else:
        wd = C.workdir(args.workdir, args.sample)
        meta = C.read_json(os.path.join(wd, "meta.json"))
        spec_names = [i["name"] for i in meta["inputs"]]
        data = C.load_oracle_file(os.path.join(wd, "oracle.npz"))
        worst = 0.0
        for set_name in C.oracle_sets(data):
            ins, want = C.oracle_io(data, set_name)
            ts, n = d.tensors(order_inputs(names, spec_names, ins))
            try:
                worst = max(worst, C.max_abs_diff(d.run(m, ts, n, keep=True), want))
            finally:
                d.free_tensors(ts, n)
        res["check_max_abs_diff"] = worst
        if not worst <= C.CHECK_ATOL:
            res["status"] = "mismatch"
            res["reason"] = (f"outputs differ from real Paddle's by {worst:.3g} "
                             f"(> {C.CHECK_ATOL:g}); not timed")
            return res
        keys = {k: order_inputs(names, spec_names, C.load_inputs(wd, k))
                for k in C.batch_keys(meta)}
    res["latency"] = {}
    for key, arrays in keys.items():
        ts, n = d.tensors(arrays)
        try:
            res["latency"][key] = C.time_runs(lambda: d.run(m, ts, n))
        finally:
            d.free_tensors(ts, n)
    d.lib.dy2st_model_free(m)
    res["status"] = "ok"
    return res


# ---- driver ----------------------------------------------------------------------------

def has_save(dy2st):
    r = C.spawn_measured([dy2st, "help", "save"], 1, 30)
    return r["rc"] == 0


def input_decls(meta):
    return ["%s:%s[%s]" % (i["name"], i["dtype"], ",".join(str(n) for n in i["shape"]))
            for i in meta["inputs"]]


def _rel(path):
    rel = os.path.relpath(path, C.ROOT)
    return path if rel.startswith("..") else rel


def _worker(argv, threads, timeout):
    r = C.spawn_measured(argv, threads, timeout)
    got = C.last_json_line(r["stdout"])
    if got is None:
        tail = [ln for ln in r["stderr"].splitlines() if ln.strip()][-1:]
        got = {"status": "failed", "reason": ("timed out" if r["rc"] is None else
                                              f"worker failed (rc {r['rc']}): ") +
               C.short_error(" ".join(tail) or "no output")}
    got["wall_s"] = r["wall_s"]
    return got


def _dy2st_run_rss(dy2st, model, meta, wd, threads, device="cpu"):
    """Peak RSS (MiB) of `dy2st run` on the largest inputs, or None when it fails."""
    key = C.batch_keys(meta)[-1]
    arrays = C.load_inputs(wd, key)
    argv = [dy2st, "run", model]
    for spec, a in zip(meta["inputs"], arrays):
        path = os.path.join(wd, f"{key}_{spec['name']}.npy")
        np.save(path, a)
        argv += ["--input", f"{spec['name']}={path}"]
    argv += ["--output-dir", os.path.join(wd, "dy2st_out")]
    if device != "cpu":
        argv += ["--device", device]
    r = C.spawn_measured(argv, threads, 120)
    return (r["rss_mb"] if r["rc"] == 0 else None), " ".join(shlex.quote(a) for a in argv)


def run(args):
    build = os.path.abspath(args.build_dir)
    dy2st = os.path.join(build, "dy2st")
    lib = os.path.join(build, ".libs", "libdy2st.so")
    samples = args.samples.split(",") if args.samples else C.SAMPLE_NAMES
    threads = [int(t) for t in args.threads.split(",")]
    workdir = args.workdir or tempfile.mkdtemp(prefix="dy2st-bench-")
    me = [sys.executable, os.path.abspath(__file__)]
    out = {"build_dir": build, "threads": threads, "device": args.device, "samples": {},
           "commands": {}}
    if not os.access(dy2st, os.X_OK):
        out["unavailable"] = f"no dy2st binary in the build directory ({dy2st}); build it first"
        C.write_json(args.out, out)
        C.log("dy2st: " + out["unavailable"])
        return
    ver = C.spawn_measured([dy2st, "--version"], 1, 30)
    out["version"] = ver["stdout"].strip() or ver["stderr"].strip()
    out["has_save"] = has_save(dy2st)
    out["has_lib"] = os.path.exists(lib)

    # The harness itself, on a hand-written Program.
    if out["has_lib"]:
        sc = {}
        for t in threads:
            argv = me + ["measure", "--lib", lib, "--model", os.path.join(C.ROOT, SELFCHECK_PROGRAM),
                         "--selfcheck", "--threads", str(t), "--device", args.device]
            sc[str(t)] = _worker(argv, t, 120)
        out["selfcheck"] = {"program": SELFCHECK_PROGRAM, "results": sc}
        C.log("dy2st: harness check on %s: %s" % (SELFCHECK_PROGRAM, ", ".join(
            "%sT %s" % (t, " ".join("%s=%.1fus" % (k, v["median_s"] * 1e6)
                                    for k, v in r.get("latency", {}).items()) or r.get("reason"))
            for t, r in sc.items())))

    for name in samples:
        wd = C.workdir(workdir, name)
        meta = C.read_json(os.path.join(wd, "meta.json"))
        entry = {"sample": name}
        out["samples"][name] = entry
        if not out["has_save"]:
            entry.update(status="pending", reason=PENDING + "; this dy2st has no `save` command")
            C.log(f"dy2st: {name}: pending (no `dy2st save`)")
            continue
        if meta is None:
            entry.update(status="failed", reason="sample not prepared (needs peers.py's preparation)")
            continue
        params = C.oracle_path(name) if os.path.exists(C.oracle_path(name)) else \
            os.path.join(wd, "oracle.npz")
        model = os.path.join(wd, "model.dy2st")
        argv = [dy2st, "save", f"samples/{name}.py:{meta['class']}"]
        for decl in input_decls(meta):
            argv += ["--input", decl]
        argv += ["--params", _rel(params), "-o", model]
        entry["command"] = " ".join(shlex.quote(_rel(a) if a.startswith(C.ROOT) else a) for a in argv)
        r = C.spawn_measured(argv, 1, 300)
        if r["rc"] != 0 or not os.path.exists(model):
            msg = [ln for ln in (r["stderr"] + r["stdout"]).splitlines() if ln.strip()]
            entry.update(status="pending", reason=PENDING,
                         dy2st_message=C.short_error(msg[0] if msg else f"rc {r['rc']}", 200))
            C.log(f"dy2st: {name}: cannot convert yet: {entry['dy2st_message']}")
            continue
        entry["convert_s"] = r["wall_s"]
        entry["convert_rss_mb"] = r["rss_mb"]
        entry["convert_what"] = "dy2st save (whole command)"
        entry["by_threads"] = {}
        for t in threads:
            argv = me + ["measure", "--lib", lib, "--model", model, "--sample", name,
                         "--workdir", workdir, "--threads", str(t), "--device", args.device]
            res = _worker(argv, t, args.timeout) if out["has_lib"] else \
                {"status": "failed", "reason": "libdy2st.so not built"}
            res["rss_mb"], out["commands"]["rss"] = _dy2st_run_rss(dy2st, model, meta, wd, t,
                                                                   args.device)
            entry["by_threads"][str(t)] = res
            C.log("dy2st: %-20s %dT %s %s" % (name, t, res.get("status"), " ".join(
                "%s=%.3fms" % (k, v["median_s"] * 1e3) for k, v in res.get("latency", {}).items())
                or res.get("reason", "")))
        statuses = {r.get("status") for r in entry["by_threads"].values()}
        entry["status"] = "ok" if statuses == {"ok"} else sorted(statuses - {"ok"})[0]
    out["commands"]["measure"] = (" ".join(me[1:]) + " measure --lib LIBDY2ST --model MODEL "
                                  "--sample SAMPLE --workdir WORK --threads N --device " +
                                  args.device)
    C.write_json(args.out, out)
    C.log(f"dy2st: wrote {args.out}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("--build-dir", required=True)
    p.add_argument("--workdir", default=None)
    p.add_argument("--samples", default=None)
    p.add_argument("--threads", default=",".join(str(t) for t in C.THREADS))
    p.add_argument("--out", default=os.path.join(C.RESULTS, "dy2st.json"))
    p.add_argument("--timeout", type=int, default=240)
    p.add_argument("--device", default="cpu", help="cpu (default) or opencl[:N]")
    p = sub.add_parser("measure")
    p.add_argument("--lib", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--sample")
    p.add_argument("--workdir")
    p.add_argument("--selfcheck", action="store_true")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", default="cpu")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        run(args)
    else:
        try:
            res = measure(args)
        except Exception as e:
            res = {"status": "failed", "reason": C.short_error(e)}
        res["rss_self_mb"] = C.peak_rss_mb_self()
        print(json.dumps(res))


if __name__ == "__main__":
    main(sys.argv[1:])
