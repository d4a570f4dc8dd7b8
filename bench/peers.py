"""Measures the peers dy2st is compared with: Paddle (eager, to_static, Inference), PyTorch
(eager, TorchScript) and ONNX Runtime (on paddle2onnx's or torch.onnx's export, and on
dy2st's own `dy2st export`), on every sample with the oracle's weights and inputs.

    peers.py run [--workdir DIR] [--samples a,b] [--threads 1,2] [--peers p,q] [--out FILE]

`run` drives everything; each measurement is a fresh worker process
(`peers.py measure --sample S --peer P --workdir DIR`) with OMP_NUM_THREADS and
the framework's own thread setting fixed, whose peak RSS is read with wait4().
Before that, `prepare-paddle` (one Paddle process) writes for each sample the
oracle data, the benchmark inputs, the paddle.jit.save model and its
paddle2onnx export, and `prepare-torch` (one PyTorch process) checks each
PyTorch port against the oracle and, where paddle2onnx failed or disagrees,
exports the port with torch.onnx instead.
"""
import argparse
import importlib.util
import inspect
import json
import os
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

PEERS = ["paddle_eager", "paddle_static", "paddle_infer", "torch_eager", "torchscript", "ort",
         "ort_dy2st"]
PEER_LABELS = {
    "paddle_eager": "Paddle eager", "paddle_static": "Paddle to_static",
    "paddle_infer": "Paddle Inference", "torch_eager": "PyTorch eager",
    "torchscript": "TorchScript", "ort": "ORT on paddle2onnx/torch.onnx's export",
    "ort_dy2st": "ORT on dy2st's export",
}
PEER_MODULES = {
    "paddle_eager": ["paddle"], "paddle_static": ["paddle"], "paddle_infer": ["paddle"],
    "torch_eager": ["torch"], "torchscript": ["torch"], "ort": ["onnxruntime"],
    "ort_dy2st": ["onnxruntime"],
}
# Samples whose forward has data-dependent control flow: torch.onnx exports the
# scripted port for them (a traced one would freeze one path).
CONTROL_FLOW = {"lenet_branch", "char_rnn", "lstm_cell", "greedy_decoder"}
ONNX_OPSET = 13
TORCH_ONNX_OPSET = 17


# ---- preparation (Paddle process) ------------------------------------------------------

def _paddle_dtype(dtype):
    from paddle.base.data_feeder import convert_dtype
    return convert_dtype(dtype)


def prepare_paddle(workdir, samples):
    """Writes oracle data, inputs, the jit.save model and the paddle2onnx export per sample."""
    os.environ.setdefault("GLOG_minloglevel", "3")
    import paddle
    sys.path.insert(0, C.ORACLE)
    import run_oracle  # the oracle's own loader and deterministic weights

    versions = {"paddle": paddle.__version__, "numpy": np.__version__,
                "python": sys.version.split()[0]}
    try:
        import paddle2onnx
        versions["paddle2onnx"] = paddle2onnx.__version__
    except Exception as e:  # recorded; ONNX then comes from torch.onnx only
        paddle2onnx = None
        p2o_missing = C.short_error(e)
    for name in samples:
        wd = C.workdir(workdir, name)
        meta = {"sample": name, "class": C.SAMPLE_CLASSES[name]}
        mod = run_oracle.load_sample(name)
        paddle.seed(0)
        np.random.seed(0)
        model = mod.build_model()
        if os.path.exists(C.oracle_path(name)):
            shutil.copyfile(C.oracle_path(name), os.path.join(wd, "oracle.npz"))
            meta["oracle"] = "tests/oracle/expected/%s.npz" % name
            weights = C.oracle_weights(C.load_oracle(name))
        else:
            # No oracle file: the oracle's deterministic weights, and Paddle's
            # eager outputs as the expected values.
            weights = run_oracle.deterministic_weights(model)
            meta["oracle"] = "regenerated (run_oracle.deterministic_weights)"
        model.set_state_dict({k: paddle.to_tensor(v) for k, v in weights.items()})
        model.eval()
        if meta["oracle"].startswith("regenerated"):
            arrays = {"param/" + k: v for k, v in weights.items()}
            paddle.jit.enable_to_static(False)
            ins = mod.example_inputs()
            outs = run_oracle.to_list(model(*[paddle.to_tensor(a) for a in ins]))
            paddle.jit.enable_to_static(True)
            for i, a in enumerate(ins):
                arrays[f"example/input{i}"] = a
            for i, o in enumerate(outs):
                arrays[f"example/eager{i}"] = o
            np.savez(os.path.join(wd, "oracle.npz"), **arrays)

        specs = mod.INPUT_SPEC
        meta["inputs"] = [{"name": s.name, "dtype": _paddle_dtype(s.dtype),
                           "shape": [-1 if d is None else int(d) for d in s.shape]}
                          for s in specs]
        params = inspect.signature(mod.example_inputs).parameters
        dynamic = all(s.shape[0] in (None, -1) for s in specs) and "batch" in params
        meta["dynamic_batch"] = bool(dynamic)
        sets = {"b1": {"batch": 1}, "b32": {"batch": 32}} if dynamic else {"fixed": {}}
        meta["batches"] = {}
        for key, kw in sets.items():
            ins = mod.example_inputs(**kw)
            np.savez(os.path.join(wd, f"inputs_{key}.npz"),
                     **{f"input{i}": a for i, a in enumerate(ins)})
            meta["batches"][key] = {"shapes": [list(a.shape) for a in ins]}

        # paddle.jit.save with the sample's INPUT_SPEC (Paddle Inference reads it).
        prefix = os.path.join(wd, "paddle", "model")
        paddle.jit.enable_to_static(True)
        try:
            t0 = time.perf_counter()
            paddle.jit.save(model, prefix, input_spec=specs)
            meta["jit_save_s"] = time.perf_counter() - t0
            meta["paddle_model"] = prefix
        except Exception as e:
            meta["jit_save_error"] = C.short_error(e)
        # paddle2onnx on the jit.save output.
        attempts = []
        if "paddle_model" in meta and paddle2onnx is not None:
            attempts.append(_paddle2onnx(prefix, os.path.join(wd, "paddle2onnx.onnx")))
        elif paddle2onnx is None:
            attempts.append({"exporter": "paddle2onnx", "error": "unavailable: " + p2o_missing})
        else:
            attempts.append({"exporter": "paddle2onnx",
                             "error": "no jit.save model: " + meta["jit_save_error"]})
        meta["onnx_attempts"] = attempts
        meta["versions"] = versions
        C.write_json(os.path.join(wd, "meta.json"), meta)
        C.log(f"peers: prepared {name} (jit.save {'ok' if 'paddle_model' in meta else 'failed'}, "
              f"paddle2onnx {'ok' if 'path' in attempts[-1] else 'failed'})")


def _paddle2onnx(prefix, path):
    """Exports the jit.save model at `prefix` with paddle2onnx in a child process.

    paddle2onnx aborts the whole process on an operator it does not support, so
    it runs apart; returns the attempt record (path and export_s, or error).
    """
    argv = [sys.executable, os.path.abspath(__file__), "paddle2onnx", "--prefix", prefix,
            "--onnx", path]
    r = C.spawn_measured(argv, 1, 300)
    got = C.last_json_line(r["stdout"])
    if r["rc"] == 0 and got and os.path.exists(path) and os.path.getsize(path) > 0:
        return {"exporter": "paddle2onnx", "path": path, "export_s": got["export_s"]}
    lines = [ln.strip() for ln in (r["stdout"] + r["stderr"]).splitlines() if ln.strip()]
    why = "; ".join(ln for ln in lines if "not supported" in ln) or \
        next((ln for ln in lines if "[ERROR]" in ln or "Error" in ln), None) or \
        (lines[-1] if lines else "no output")
    why = why.replace("[Paddle2ONNX] ", "")
    if r["rc"] is not None and r["rc"] < 0:
        why += f" (process killed by signal {-r['rc']})"
    return {"exporter": "paddle2onnx", "error": C.short_error(why, 200)}


def paddle2onnx_export(prefix, path):
    """The child side of _paddle2onnx: prints {"export_s": ...} on success."""
    import paddle2onnx
    t0 = time.perf_counter()
    paddle2onnx.export(prefix + ".pdmodel", prefix + ".pdiparams", path,
                       opset_version=ONNX_OPSET, enable_onnx_checker=True)
    print(json.dumps({"export_s": time.perf_counter() - t0}))


# ---- preparation (PyTorch process) -----------------------------------------------------

def _ort_session(path, threads=1):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])


def _ort_check(path, meta, data):
    """Largest difference between ORT's outputs of `path` and the oracle over every input set."""
    sess = _ort_session(path)
    names = [i.name for i in sess.get_inputs()]
    worst = 0.0
    for set_name in C.oracle_sets(data):
        ins, want = C.oracle_io(data, set_name)
        got = sess.run(None, _ort_feed(names, meta, ins))
        worst = max(worst, C.max_abs_diff(got, want))
    return worst


def _ort_feed(names, meta, arrays):
    """ORT's feed dict: by the sample's input names where the model kept them, else in order."""
    spec_names = [i["name"] for i in meta["inputs"]]
    if sorted(names) == sorted(spec_names):
        return {n: a for n, a in zip(spec_names, arrays)}
    return {n: a for n, a in zip(names, arrays)}


def _torch_onnx_export(name, model, meta, data, path):
    import torch
    ins, _ = C.oracle_io(data, "example")
    args = tuple(torch.from_numpy(a) for a in ins)
    input_names = [i["name"] for i in meta["inputs"]]
    dynamic_axes = {}
    for spec in meta["inputs"]:
        dyn = {d: f"{spec['name']}_d{d}" for d, n in enumerate(spec["shape"]) if n == -1}
        if dyn:
            dynamic_axes[spec["name"]] = dyn
    target = torch.jit.script(model) if name in CONTROL_FLOW else model
    kw = {}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kw["dynamo"] = False
    torch.onnx.export(target, args, path, input_names=input_names,
                      dynamic_axes=dynamic_axes or None, opset_version=TORCH_ONNX_OPSET, **kw)


def prepare_torch(workdir, samples):
    """Checks each port against the oracle; adds a torch.onnx export where paddle2onnx failed."""
    import torch
    import torch_models
    torch.set_num_threads(1)
    try:
        importlib.import_module("onnxruntime")  # only: can it be imported?
        ort_missing = None
    except Exception as e:
        ort_missing = C.short_error(e)
    for name in samples:
        wd = C.workdir(workdir, name)
        meta = C.read_json(os.path.join(wd, "meta.json"))
        if meta is None:
            continue
        data = C.load_oracle_file(os.path.join(wd, "oracle.npz"))
        weights = C.oracle_weights(data)
        port = {"torch": torch.__version__}
        model = None
        try:
            model = torch_models.build(name, weights)
            worst = 0.0
            with torch.inference_mode():
                for set_name in C.oracle_sets(data):
                    ins, want = C.oracle_io(data, set_name)
                    got = _as_list(model(*[torch.from_numpy(a) for a in ins]))
                    worst = max(worst, C.max_abs_diff([g.numpy() for g in got], want))
            port["max_abs_diff"] = worst
        except Exception as e:
            port["error"] = C.short_error(e)
        meta["torch_port"] = port

        attempts = meta.get("onnx_attempts", [])
        chosen = None
        if ort_missing:
            meta["onnx_unavailable"] = "onnxruntime unavailable: " + ort_missing
        else:
            for a in attempts:
                if "path" in a:
                    try:
                        a["max_abs_diff"] = _ort_check(a["path"], meta, data)
                        if a["max_abs_diff"] <= C.CHECK_ATOL:
                            chosen = a
                    except Exception as e:
                        a["error"] = "ONNX Runtime cannot run it: " + C.short_error(e)
                        del a["path"]
            if chosen is None and model is not None and port.get("max_abs_diff", 1) <= C.CHECK_ATOL:
                path = os.path.join(wd, "torch_onnx.onnx")
                a = {"exporter": "torch.onnx" + (" (scripted)" if name in CONTROL_FLOW else "")}
                try:
                    t0 = time.perf_counter()
                    _torch_onnx_export(name, model, meta, data, path)
                    a["export_s"] = time.perf_counter() - t0
                    a["path"] = path
                    a["max_abs_diff"] = _ort_check(path, meta, data)
                    if a["max_abs_diff"] <= C.CHECK_ATOL:
                        chosen = a
                except Exception as e:
                    a["error"] = C.short_error(e)
                    a.pop("path", None)
                attempts.append(a)
        meta["onnx_attempts"] = attempts
        meta["onnx"] = chosen
        C.write_json(os.path.join(wd, "meta.json"), meta)
        C.log(f"peers: checked {name}: torch port "
              f"{port.get('max_abs_diff', port.get('error'))}; onnx via "
              f"{chosen['exporter'] if chosen else 'none'}")


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


# ---- one measurement (worker process) --------------------------------------------------

def _check_and_time(result, meta, data, wd, run_np, run_prepared, prepare):
    """Checks run_np (numpy in, numpy list out) against the oracle, then times each batch.

    prepare(arrays) turns numpy inputs into whatever run_prepared() takes, so
    conversions stay outside the timed call.
    """
    worst = 0.0
    for set_name in C.oracle_sets(data):
        ins, want = C.oracle_io(data, set_name)
        worst = max(worst, C.max_abs_diff(run_np(ins), want))
    result["check_max_abs_diff"] = worst
    if not worst <= C.CHECK_ATOL:
        result["status"] = "mismatch"
        result["reason"] = (f"outputs differ from real Paddle's by {worst:.3g} "
                            f"(> {C.CHECK_ATOL:g}); not timed")
        return result
    result["latency"] = {}
    for key in C.batch_keys(meta):
        arrays = C.load_inputs(wd, key)
        prepared = prepare(arrays)
        result["latency"][key] = C.time_runs(lambda: run_prepared(prepared))
    result["status"] = "ok"
    return result


def paddle_infer_runner(meta, threads):
    """Paddle Inference on the sample's jit.save model with the default CPU Config (oneDNN on,
    as Paddle 2.6 has it), `threads` math threads: (the Config, run_np), where run_np(arrays)
    copies the inputs in, runs the predictor and copies the outputs out as numpy arrays."""
    from paddle import inference
    cfg = inference.Config(meta["paddle_model"] + ".pdmodel", meta["paddle_model"] + ".pdiparams")
    cfg.disable_gpu()
    cfg.set_cpu_math_library_num_threads(threads)
    cfg.disable_glog_info()
    pred = inference.create_predictor(cfg)
    in_names = pred.get_input_names()
    in_handles = [pred.get_input_handle(n) for n in in_names]
    out_handles = [pred.get_output_handle(n) for n in pred.get_output_names()]

    def run_np(arrays):
        for h, a in zip(in_handles, arrays):
            h.reshape(list(a.shape))
            h.copy_from_cpu(np.ascontiguousarray(a))
        pred.run()
        return [h.copy_to_cpu() for h in out_handles]
    return cfg, run_np


def measure_paddle(peer, name, wd, meta, data, threads, result):
    os.environ.setdefault("GLOG_minloglevel", "3")
    import paddle
    from paddle.base import core
    core.set_num_threads(threads)
    result["versions"] = {"paddle": paddle.__version__}

    def to_list(out):
        return [o.numpy() for o in _as_list(out)]

    if peer == "paddle_infer":
        if "paddle_model" not in meta:
            result["status"] = "failed"
            result["reason"] = "paddle.jit.save failed: " + meta.get("jit_save_error", "?")
            return result
        result["convert_s"] = meta["jit_save_s"]
        result["convert_what"] = "paddle.jit.save"
        t0 = time.perf_counter()
        _, run_np = paddle_infer_runner(meta, threads)
        result["load_s"] = time.perf_counter() - t0
        result["load_what"] = "Config + create_predictor"
        return _check_and_time(result, meta, data, wd, run_np, run_np, lambda a: a)

    sys.path.insert(0, C.ORACLE)
    import run_oracle
    t0 = time.perf_counter()
    mod = run_oracle.load_sample(name)
    paddle.seed(0)
    np.random.seed(0)
    model = mod.build_model()
    model.set_state_dict({k: paddle.to_tensor(v) for k, v in C.oracle_weights(data).items()})
    model.eval()
    result["load_s"] = time.perf_counter() - t0
    result["load_what"] = "build the Layer + set_state_dict"
    paddle.jit.enable_to_static(peer == "paddle_static")

    def run_t(tensors):
        with paddle.no_grad():
            return model(*tensors)

    def prepare(arrays):
        return [paddle.to_tensor(a) for a in arrays]

    if peer == "paddle_static":
        first = prepare(C.load_inputs(wd, C.batch_keys(meta)[0]))
        t0 = time.perf_counter()
        run_t(first)
        result["convert_s"] = time.perf_counter() - t0
        result["convert_what"] = "first to_static call (translation + first run)"
    return _check_and_time(result, meta, data, wd, lambda a: to_list(run_t(prepare(a))),
                           run_t, prepare)


def measure_torch(peer, name, wd, meta, data, threads, result):
    import torch
    import torch_models
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    result["versions"] = {"torch": torch.__version__}
    port = meta.get("torch_port", {})
    if "error" in port:
        result["status"] = "failed"
        result["reason"] = "port does not build: " + port["error"]
        return result
    t0 = time.perf_counter()
    model = torch_models.build(name, C.oracle_weights(data))
    result["load_s"] = time.perf_counter() - t0
    result["load_what"] = "build the port + load Paddle's weights"
    if peer == "torchscript":
        try:
            t0 = time.perf_counter()
            scripted = torch.jit.script(model)
            result["convert_s"] = time.perf_counter() - t0
            result["convert_what"] = "torch.jit.script"
            path = os.path.join(wd, f"torchscript_{os.getpid()}.pt")
            scripted.save(path)
            t0 = time.perf_counter()
            model = torch.jit.load(path)
            model.eval()
            result["load_s"] = time.perf_counter() - t0
            result["load_what"] = "torch.jit.load"
            os.unlink(path)
        except Exception as e:
            result["status"] = "failed"
            result["reason"] = "torch.jit.script failed: " + C.short_error(e)
            return result

    def run_t(tensors):
        with torch.inference_mode():
            return model(*tensors)

    def prepare(arrays):
        return [torch.from_numpy(np.ascontiguousarray(a)) for a in arrays]
    return _check_and_time(result, meta, data, wd,
                           lambda a: [o.numpy() for o in _as_list(run_t(prepare(a)))],
                           run_t, prepare)


def measure_ort(name, wd, meta, data, threads, result):
    import onnxruntime as ort
    result["versions"] = {"onnxruntime": ort.__version__}
    chosen = meta.get("onnx")
    if not chosen:
        result["status"] = "failed"
        result["reason"] = "; ".join(
            "%s: %s" % (a["exporter"], a.get("error") or
                        "outputs differ by %.3g" % a.get("max_abs_diff", float("nan")))
            for a in meta.get("onnx_attempts", [])) or meta.get("onnx_unavailable", "no ONNX export")
        return result
    result["exporter"] = chosen["exporter"]
    result["convert_s"] = chosen["export_s"]
    result["convert_what"] = chosen["exporter"] + " export"
    t0 = time.perf_counter()
    sess = _ort_session(chosen["path"], threads)
    result["load_s"] = time.perf_counter() - t0
    result["load_what"] = "InferenceSession (load + graph optimisation)"
    names = [i.name for i in sess.get_inputs()]

    def run_feed(feed):
        return sess.run(None, feed)
    return _check_and_time(result, meta, data, wd,
                           lambda a: run_feed(_ort_feed(names, meta, a)), run_feed,
                           lambda a: _ort_feed(names, meta, a))


def measure_ort_dy2st(name, wd, meta, data, threads, result):
    """ONNX Runtime on the file `dy2st export` writes from the sample's source and the oracle's
    weights (the dy2st binary of the build at the top of the tree, or $DY2ST)."""
    import onnxruntime as ort
    result["versions"] = {"onnxruntime": ort.__version__}
    dy2st = os.environ.get("DY2ST") or os.path.join(C.ROOT, "dy2st")
    params = C.oracle_path(name) if os.path.exists(C.oracle_path(name)) else \
        os.path.join(wd, "oracle.npz")
    path = os.path.join(wd, "dy2st_export.onnx")
    argv = [dy2st, "export", f"samples/{name}.py:{meta['class']}"]
    for i in meta["inputs"]:
        argv += ["--input", "%s:%s[%s]" % (i["name"], i["dtype"],
                                           ",".join(str(n) for n in i["shape"]))]
    argv += ["--params", params, "-o", path]
    r = C.spawn_measured(argv, 1, 300)
    if r["rc"] != 0 or not os.path.exists(path):
        msg = [ln for ln in (r["stderr"] + r["stdout"]).splitlines() if ln.strip()]
        result["status"] = "failed"
        result["reason"] = "dy2st export failed: " + C.short_error(msg[-1] if msg else
                                                                   f"rc {r['rc']}", 200)
        return result
    result["exporter"] = "dy2st export"
    result["convert_s"] = r["wall_s"]
    result["convert_what"] = "dy2st export (whole command: conversion and export)"
    t0 = time.perf_counter()
    sess = _ort_session(path, threads)
    result["load_s"] = time.perf_counter() - t0
    result["load_what"] = "InferenceSession (load + graph optimisation)"
    names = [i.name for i in sess.get_inputs()]

    def run_feed(feed):
        return sess.run(None, feed)
    return _check_and_time(result, meta, data, wd,
                           lambda a: run_feed(_ort_feed(names, meta, a)), run_feed,
                           lambda a: _ort_feed(names, meta, a))


def measure(name, peer, workdir, threads):
    wd = C.workdir(workdir, name)
    meta = C.read_json(os.path.join(wd, "meta.json"))
    result = {"sample": name, "peer": peer, "threads": threads}
    if meta is None:
        result.update(status="failed", reason="not prepared (Paddle preparation failed)")
        return result
    data = C.load_oracle_file(os.path.join(wd, "oracle.npz"))
    try:
        if peer.startswith("paddle"):
            measure_paddle(peer, name, wd, meta, data, threads, result)
        elif peer in ("torch_eager", "torchscript"):
            measure_torch(peer, name, wd, meta, data, threads, result)
        elif peer == "ort_dy2st":
            measure_ort_dy2st(name, wd, meta, data, threads, result)
        else:
            measure_ort(name, wd, meta, data, threads, result)
    except Exception as e:
        result["status"] = "failed"
        result["reason"] = C.short_error(e)
    result["rss_self_mb"] = C.peak_rss_mb_self()
    return result


# ---- the driver ------------------------------------------------------------------------

def _available(peer):
    """None when the peer's Python modules are installed, else the reason."""
    for mod in PEER_MODULES[peer]:
        if importlib.util.find_spec(mod) is None:
            return f"unavailable: Python module '{mod}' is not installed (run bench/install.sh)"
    return None


def _stage(argv, timeout, what):
    C.log("peers: $ " + " ".join(argv[1:]))
    r = C.spawn_measured(argv, 1, timeout)
    for line in r["stderr"].splitlines():
        if line.startswith("peers:"):
            C.log(line)
    if r["rc"] != 0:
        tail = [ln for ln in r["stderr"].splitlines() if ln.strip()][-3:]
        C.log(f"peers: {what} failed (rc {r['rc']}): " + " | ".join(tail))
        return "%s failed (rc %s): %s" % (what, r["rc"], C.short_error(" ".join(tail[-1:]) or "?"))
    return None


def run(args):
    samples = args.samples.split(",") if args.samples else C.SAMPLE_NAMES
    threads = [int(t) for t in args.threads.split(",")]
    chosen = [p for p in args.peers.split(",") if p]
    bad = [p for p in chosen if p not in PEERS]
    if bad:
        sys.exit("peers.py: unknown peer(s) %s (known: %s)" % (", ".join(bad), ", ".join(PEERS)))
    workdir = args.workdir or tempfile.mkdtemp(prefix="dy2st-bench-")
    os.makedirs(workdir, exist_ok=True)
    me = [sys.executable, os.path.abspath(__file__)]
    out = {"workdir": workdir, "threads": threads, "samples": samples,
           "timing": {"warmup": C.WARMUP, "min_runs": C.MIN_RUNS, "max_runs": C.MAX_RUNS,
                      "budget_s": C.BUDGET_S},
           "commands": {}, "stages": {}, "results": [], "prepared": {}}
    out["loadavg_start"] = "%.1f %.1f %.1f" % os.getloadavg()
    t_start = time.perf_counter()
    prep = {}
    if _available("paddle_eager") is None:
        argv = me + ["prepare-paddle", "--workdir", workdir, "--samples", ",".join(samples)]
        out["commands"]["prepare-paddle"] = " ".join(argv[1:])
        prep["paddle"] = _stage(argv, 900, "Paddle preparation")
    else:
        prep["paddle"] = _available("paddle_eager")
    if _available("torch_eager") is None:
        argv = me + ["prepare-torch", "--workdir", workdir, "--samples", ",".join(samples)]
        out["commands"]["prepare-torch"] = " ".join(argv[1:])
        prep["torch"] = _stage(argv, 900, "PyTorch preparation")
    else:
        prep["torch"] = _available("torch_eager")
    out["stages"] = prep
    out["commands"]["measure"] = (" ".join(me[1:]) + " measure --sample SAMPLE --peer PEER "
                                  "--threads N --workdir " + workdir +
                                  "   (env OMP_NUM_THREADS=MKL_NUM_THREADS=N)")
    for name in samples:
        out["prepared"][name] = C.read_json(os.path.join(workdir, name, "meta.json"))
    for t in threads:
        for name in samples:
            for peer in chosen:
                res = {"sample": name, "peer": peer, "threads": t}
                why = _available(peer)
                if why:
                    res.update(status="unavailable", reason=why)
                else:
                    argv = me + ["measure", "--sample", name, "--peer", peer,
                                 "--threads", str(t), "--workdir", workdir]
                    r = C.spawn_measured(argv, t, args.timeout)
                    got = C.last_json_line(r["stdout"])
                    if r["rc"] is None:
                        res.update(status="failed", reason=f"timed out after {args.timeout} s")
                    elif got is None:
                        tail = [ln for ln in r["stderr"].splitlines() if ln.strip()][-1:]
                        res.update(status="failed", reason=f"worker crashed (rc {r['rc']}): " +
                                   C.short_error(" ".join(tail) or "no output"))
                    else:
                        res = got
                    res["rss_mb"] = r["rss_mb"]
                    res["wall_s"] = r["wall_s"]
                lat = res.get("latency", {})
                C.log("peers: %-20s %-13s %dT %-9s %s" % (
                    name, peer, t, res.get("status"),
                    " ".join("%s=%.3fms" % (k, v["median_s"] * 1e3) for k, v in lat.items())
                    or res.get("reason", "")))
                out["results"].append(res)
    out["total_s"] = time.perf_counter() - t_start
    out["loadavg_end"] = "%.1f %.1f %.1f" % os.getloadavg()
    C.write_json(args.out, out)
    C.log(f"peers: wrote {args.out} ({out['total_s']:.0f} s)")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for cmd in ("run", "prepare-paddle", "prepare-torch", "measure", "paddle2onnx"):
        p = sub.add_parser(cmd)
        p.add_argument("--workdir", default=None)
        p.add_argument("--samples", default=None)
        if cmd == "run":
            p.add_argument("--threads", default=",".join(str(t) for t in C.THREADS))
            p.add_argument("--out", default=os.path.join(C.RESULTS, "peers.json"))
            p.add_argument("--timeout", type=int, default=240)
            p.add_argument("--peers", default=",".join(PEERS),
                           help="the peers to measure (default: all)")
        if cmd == "measure":
            p.add_argument("--sample", required=True)
            p.add_argument("--peer", required=True, choices=PEERS)
            p.add_argument("--threads", type=int, default=1)
        if cmd == "paddle2onnx":
            p.add_argument("--prefix", required=True)
            p.add_argument("--onnx", required=True)
    args = ap.parse_args(argv)
    samples = args.samples.split(",") if args.samples else C.SAMPLE_NAMES
    if args.cmd != "run":
        warnings.filterwarnings("ignore")  # Paddle's dy2static warnings are not results
    if args.cmd == "run":
        run(args)
    elif args.cmd == "prepare-paddle":
        prepare_paddle(args.workdir, samples)
    elif args.cmd == "prepare-torch":
        prepare_torch(args.workdir, samples)
    elif args.cmd == "paddle2onnx":
        paddle2onnx_export(args.prefix, args.onnx)
    else:
        print(json.dumps(measure(args.sample, args.peer, args.workdir, args.threads),
                         default=float))


if __name__ == "__main__":
    main(sys.argv[1:])
