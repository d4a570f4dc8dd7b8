#!/usr/bin/env python3
"""gen_pickle.py - writes the .pdparams fixtures of the restricted unpickler's tests.

Run with the Python that has PaddlePaddle 2.6 installed:
    python tests/gen/gen_pickle.py
Writes tests/golden/pickle/:
  tiny.py               a small Layer (Linear 4->3, a float64 parameter, an
                        int64 buffer) and tiny_fc.py, a Linear-only Layer the
                        CLI test saves
  tiny_p2/p3/p4.pdparams  paddle.save(layer.state_dict(), protocol=2/3/4)
  tiny.npz              numpy.savez of the same state_dict: the expected values
  nested.pdparams       paddle.save of {"model": state_dict, "epoch": 3,
                        "s": numpy.float32(2.5), "layers": [Tensor, Tensor]}
  adam.pdopt            paddle.save of an Adam optimizer's state_dict
  layouts.pdparams      paddle.save of a dict of NumPy arrays in Fortran order,
                        big-endian, bool, int32 and 0-d
  layouts_np2.pdparams  the same dict pickled by NumPy itself with protocol 2
                        (paddle.save converts big-endian arrays; this keeps them)
  layouts.npz           the same arrays in C order, little-endian
  big_p2.pdparams       the layout paddle.save (protocol 2/3) uses for arrays over
                        1 GiB ("KEY@@.i" slices and "UnpackBigParamInfor@@"),
                        made with small arrays by the same rule
  tiny_fc.pdparams, tiny_fc.npz  parameters of tiny_fc.py in both formats
  tiny_fc_out.npy       its output for x = (arange(12).reshape(3, 4) - 5) / 4
  bad_*.pkl             hostile or malformed pickles (see HOSTILE below)
Deterministic: fixed seeds. Values are compared exactly (tolerance 0).
"""
import io
import os
import pickle
import struct
import sys

import numpy as np
import paddle

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "golden", "pickle")
sys.path.insert(0, OUT)

from tiny import Tiny  # noqa: E402
from tiny_fc import build_model as build_tiny_fc  # noqa: E402


def path(name):
    return os.path.join(OUT, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)


def npdict(sd):
    return {k: v.numpy() for k, v in sd.items()}


def main():
    paddle.seed(7)
    np.random.seed(7)
    m = Tiny()
    sd = m.state_dict()
    for proto in (2, 3, 4):
        paddle.save(sd, path("tiny_p%d.pdparams" % proto), protocol=proto)
    np.savez(path("tiny.npz"), **npdict(sd))

    lin = [paddle.to_tensor(np.arange(3, dtype="float32")),
           paddle.to_tensor(np.array([[1, -2]], dtype="int64"))]
    paddle.save({"model": sd, "epoch": 3, "s": np.float32(2.5), "layers": lin},
                path("nested.pdparams"))

    opt = paddle.optimizer.Adam(parameters=m.fc.parameters())
    loss = m.fc(paddle.ones([2, 4])).sum()
    loss.backward()
    opt.step()
    paddle.save(opt.state_dict(), path("adam.pdopt"))
    np.savez(path("adam.npz"), **{k: v.numpy() for k, v in opt.state_dict().items()
                                  if hasattr(v, "numpy")})

    rng = np.random.RandomState(3)
    base = {
        "fortran": rng.rand(2, 3, 4).astype("float32"),
        "big_endian": rng.rand(3, 2),
        "flags": np.array([True, False, True]),
        "i32": np.array([[1, -7], [2**31 - 1, -2**31]], dtype="int32"),
        "zero_d": np.array(-1.5, dtype="float64"),
        "empty": np.zeros((0, 3), dtype="float32"),
    }
    odd = dict(base)
    odd["fortran"] = np.asfortranarray(base["fortran"])
    odd["big_endian"] = base["big_endian"].astype(">f8")
    # paddle.save makes big-endian arrays little-endian (in the dict it is
    # given); NumPy's own pickle keeps them
    with open(path("layouts_np2.pdparams"), "wb") as f:
        pickle.dump(odd, f, protocol=2)
    paddle.save(dict(odd), path("layouts.pdparams"))
    np.savez(path("layouts.npz"), **base)

    # paddle.save's large-array layout, made by its rule with a small limit
    w = rng.rand(5, 2).astype("float32")
    flat = w.flatten()
    big = {"b": np.ones(2, dtype="float32"),
           "w@@.0": flat[:4], "w@@.1": flat[4:8], "w@@.2": flat[8:],
           "UnpackBigParamInfor@@": {"w": {"OriginShape": w.shape,
                                           "slices": ["w@@.0", "w@@.1", "w@@.2"]}}}
    with open(path("big_p2.pdparams"), "wb") as f:
        pickle.dump(big, f, protocol=2)
    np.savez(path("big.npz"), b=big["b"], w=w)

    paddle.seed(11)
    fc = build_tiny_fc()
    paddle.save(fc.state_dict(), path("tiny_fc.pdparams"))
    np.savez(path("tiny_fc.npz"), **npdict(fc.state_dict()))
    x = (np.arange(12, dtype="float32").reshape(3, 4) - 5) / 4
    fc.eval()
    np.save(path("tiny_fc_out.npy"), fc(paddle.to_tensor(x)).numpy())

    hostile()


class Reduce:
    """An object whose pickle calls fn(*args) when loaded."""

    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return (self.fn, self.args)


def hostile():
    good = open(path("tiny_p4.pdparams"), "rb").read()
    write("bad_os_system.pkl", pickle.dumps({"w": Reduce(os.system, ("echo pwned",))}, 4))
    write("bad_eval.pkl", pickle.dumps({"w": Reduce(eval, ("1+1",))}, 2))
    write("bad_truncated.pkl", good[:len(good) // 2])
    # BINGET 5 with nothing memoized
    write("bad_memo.pkl", b"\x80\x04}h\x05s.")
    # BINUNICODE8 claiming 2**62 bytes
    write("bad_giant.pkl", b"\x80\x04\x8d" + struct.pack("<Q", 2**62) + b"ab.")
    # 300 nested MARKs
    write("bad_marks.pkl", b"\x80\x04" + b"(" * 300 + b"t" * 300 + b".")
    # dicts nested 40 deep
    d = {"w": np.zeros(1, dtype="float32")}
    for _ in range(40):
        d = {"x": d}
    write("bad_nest.pkl", pickle.dumps(d, 4))
    # 30 levels of {"a": x, "b": x}: 2**30 paths to one array from a small file
    x = np.zeros(1, dtype="float32")
    for _ in range(30):
        x = {"a": x, "b": x}
    write("bad_shared.pkl", pickle.dumps(x, 4))
    # an ndarray whose data is 4 bytes short: shape (2, 3) float32, 20 bytes
    a = pickle.dumps({"w": np.zeros((2, 3), dtype="float32")}, 4)
    k = a.index(b"C\x18")
    b = a[:k] + b"C\x14" + a[k + 2:k + 2 + 20] + a[k + 2 + 24:]
    assert b[2:3] == b"\x95"  # FRAME: shorten it by the 4 bytes taken out
    frame = struct.unpack("<Q", b[3:11])[0] - 4
    write("bad_bytes.pkl", b[:3] + struct.pack("<Q", frame) + b[11:])
    # a zero-size array whose other dims multiply past int64: shape (0, 2**62, 2**62)
    a = pickle.dumps({"w": np.zeros((0, 2, 3), dtype="float32")}, 2)
    huge = b"\x8a\x08" + struct.pack("<q", 2**62)
    assert a.count(b"K\x00K\x02K\x03\x87") == 1
    write("bad_dims.pkl", a.replace(b"K\x00K\x02K\x03\x87", b"K\x00" + huge + huge + b"\x87"))
    write("bad_persid.pkl", b"\x80\x04}\x8c\x01w\x8c\x03pidQs.")
    write("bad_ext.pkl", b"\x80\x04}\x8c\x01w\x82\x01s.")
    write("bad_inst.pkl", b"\x80\x02}(\x8c\x01w(\x8c\x02lsios\nsystem\nu.")
    write("bad_list.pkl", pickle.dumps([np.zeros(2, dtype="float32")], 4))
    write("bad_complex.pkl", pickle.dumps({"w": np.zeros(2, dtype="complex64")}, 4))
    write("bad_object.pkl", pickle.dumps({"w": np.array([None, 1], dtype=object)}, 4))
    write("bad_trailing.pkl", good + b"N")
    write("bad_underflow.pkl", b"\x80\x04s.")
    write("bad_unknown.pkl", b"\x80\x04}\xff.")


if __name__ == "__main__":
    main()
