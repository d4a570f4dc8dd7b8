"""Runs every sample under real PaddlePaddle (eager and to_static) and writes the expected outputs.

    tests/oracle/install.sh                       # once: venv with the pinned Paddle wheel
    tests/oracle/venv/bin/python tests/oracle/run_oracle.py [SAMPLE ...]

With no SAMPLE it also runs every conformance generator (tests/gen/gen_*_expected.py,
gen_pickle.py, and tests/docs/gen_expected.py on the fetched doc examples), so
this one command rewrites every file that real Paddle produces, and records the
Paddle and NumPy versions in tests/oracle/expected/VERSIONS.json.

For each sample in samples/ (a module with build_model(), INPUT_SPEC and
example_inputs(), optionally other_inputs()), it builds the model, gives every
entry of its state_dict deterministic values (seeded by the entry's name, so
they do not depend on Paddle's initialisers), runs it eagerly and through
paddle.jit.to_static on each input set, checks that the two agree, and writes
tests/oracle/expected/SAMPLE.npz holding:

    param/<state_dict key>      the weights used
    <set>/input<i>              the inputs of input set <set> ("example", "other")
    <set>/eager<i>              real Paddle's eager outputs
    <set>/static<i>             real Paddle's to_static outputs

and tests/oracle/expected/SAMPLE.json with the Paddle and NumPy versions, the
shapes, and the tolerance the comparison uses. dy2st never produces these files.
"""
import importlib.util
import json
import os
import sys
import zlib

import numpy as np

os.environ.setdefault("GLOG_minloglevel", "3")
import paddle  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.join(ROOT, "samples")
OUT = os.path.join(HERE, "expected")

SAMPLE_NAMES = ["simple_fc", "mnist_cnn", "lenet_branch", "char_rnn", "lstm_cell", "lstm_tagger",
                "unet_small", "resnet_small", "transformer_encoder", "greedy_decoder",
                "resnet18", "mobilenetv3_small", "transformer_beam"]

# Eager and to_static must agree within this (float32 outputs); the same bound
# is what dy2st's outputs are held to.
RTOL = 1e-5
ATOL = 1e-5


def load_sample(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SAMPLES, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def deterministic_weights(model):
    """Values for every state_dict entry, seeded by the entry's name."""
    values = {}
    for key, tensor in model.state_dict().items():
        shape = tuple(tensor.shape)
        rng = np.random.RandomState(zlib.crc32(key.encode()) & 0x7FFFFFFF)
        dtype = str(tensor.numpy().dtype)
        if key.endswith("_variance") or key.endswith("variance"):
            v = rng.uniform(0.5, 1.5, size=shape)
        elif key.endswith("_mean") or key.endswith("mean"):
            v = rng.uniform(-0.2, 0.2, size=shape)
        else:
            fan_in = shape[0] if len(shape) == 2 else int(np.prod(shape[1:])) if len(shape) > 2 else max(shape[0] if shape else 1, 1)
            bound = 1.0 / np.sqrt(max(fan_in, 1))
            v = rng.uniform(-bound, bound, size=shape)
        values[key] = v.astype(dtype)
    return values


def to_list(out):
    if isinstance(out, (list, tuple)):
        return [o.numpy() for o in out]
    return [out.numpy()]


def run_sample(name):
    mod = load_sample(name)
    paddle.seed(0)
    np.random.seed(0)
    model = mod.build_model()
    weights = deterministic_weights(model)
    model.set_state_dict({k: paddle.to_tensor(v) for k, v in weights.items()})
    model.eval()
    sets = {"example": mod.example_inputs()}
    if hasattr(mod, "other_inputs"):
        sets["other"] = mod.other_inputs()

    arrays = {"param/" + k: v for k, v in weights.items()}
    meta = {"sample": name, "paddle": paddle.__version__, "numpy": np.__version__,
            "rtol": RTOL, "atol": ATOL, "sets": {}}
    for set_name, inputs in sets.items():
        tensors = [paddle.to_tensor(a) for a in inputs]
        paddle.jit.enable_to_static(False)
        eager = to_list(model(*tensors))
        paddle.jit.enable_to_static(True)
        static = to_list(model(*tensors))
        for e, s in zip(eager, static):
            np.testing.assert_allclose(s, e, rtol=RTOL, atol=ATOL,
                                       err_msg=f"{name}/{set_name}: eager and to_static differ")
        for i, a in enumerate(inputs):
            arrays[f"{set_name}/input{i}"] = a
        for i, (e, s) in enumerate(zip(eager, static)):
            arrays[f"{set_name}/eager{i}"] = e
            arrays[f"{set_name}/static{i}"] = s
        meta["sets"][set_name] = {
            "inputs": [[list(a.shape), str(a.dtype)] for a in inputs],
            "outputs": [[list(e.shape), str(e.dtype)] for e in eager],
        }
    os.makedirs(OUT, exist_ok=True)
    np.savez(os.path.join(OUT, name + ".npz"), **arrays)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"oracle: {name}: {len(sets)} input set(s), paddle {paddle.__version__}")


# The conformance corpora's generators (each runs its scripts under this same
# Paddle and rewrites its expected files): run after the samples when no
# sample is named, so one command refreshes every Paddle-made file.
GENERATORS = [
    ["tests/gen/gen_paddle_expected.py"],      # tests/py_paddle: eager API corpus
    ["tests/gen/gen_static_expected.py"],      # tests/py_static: to_static corpus
    ["tests/gen/gen_trace_expected.py"],       # tests/trace: fallback/trace corpus
    ["tests/gen/gen_static_api_expected.py"],  # tests/py_static_api: Executor API
    ["tests/gen/gen_pickle.py"],               # tests/golden/pickle: .pdparams
    ["tests/gen/gen_data_parallel_expected.py"],  # tests/data_parallel: one-process training
]


def run_generators():
    import subprocess
    import tempfile
    env = dict(os.environ, PYTHONHASHSEED="0")
    for cmd in GENERATORS:
        print("oracle: running", " ".join(cmd), flush=True)
        subprocess.run([sys.executable] + cmd, cwd=ROOT, env=env, check=True)
    # Paddle's documented examples: fetched from the pinned wheel, run here.
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["sh", "tests/docs/fetch_examples.sh", tmp], cwd=ROOT, env=env,
                       check=True)
        print("oracle: running tests/docs/gen_expected.py", flush=True)
        subprocess.run([sys.executable, "tests/docs/gen_expected.py",
                        os.path.join(tmp, "examples")], cwd=ROOT, env=env, check=True)
    with open(os.path.join(OUT, "VERSIONS.json"), "w") as f:
        json.dump({"paddle": paddle.__version__, "numpy": np.__version__,
                   "files": ["tests/oracle/expected"] + [c[0] for c in GENERATORS] +
                            ["tests/docs/gen_expected.py"]}, f, indent=1)
        f.write("\n")
    print(f"oracle: every expected file rewritten with paddle {paddle.__version__}")


def main(argv):
    names = argv or SAMPLE_NAMES
    for name in names:
        run_sample(name)
    if not argv:
        run_generators()


if __name__ == "__main__":
    main(sys.argv[1:])
