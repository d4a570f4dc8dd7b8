"""Writes tests/golden/dtypes_cast.txt: the cast op between every pair of dtypes, storage dtypes
(float16, bfloat16, int8, int16, uint8) included, with the results of real PaddlePaddle 2.6.2 on
CPU (Tensor.astype).

    <python with paddlepaddle 2.6 and numpy 1.26> tests/gen/gen_dtypes.py

Edge cases: float16 overflow to inf (65520) and the largest finite value (65504, 65519),
float16 subnormals and underflow to zero, bfloat16 round-to-nearest-even ties, NaN, infinities
and -0.0, and float-to-integer casts out of range, which wrap as Paddle's CPU cast does (through
int32). Values are exact: float16/bfloat16 values are printed as the float64 they represent.
The file is not named ops_*.txt, so the OpenCL conformance run does not replay it: OpenCL has no
storage-dtype kernels and refuses them (tested in test_opencl.c).
"""
import os

import numpy as np
import paddle

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "golden", "dtypes_cast.txt")

DTYPES = ["float32", "float64", "int32", "int64", "bool", "float16", "bfloat16", "int8", "int16",
          "uint8"]

# source values per source dtype (made as float64/int64 tensors, then cast by Paddle)
FLOAT_SRC = [0.0, -0.0, 1.5, -2.7, 2.5, 300.0, -129.5, 65504.0, 65519.0, 65520.0, 70000.0,
             1e10, -1e10, float("inf"), float("-inf"), float("nan"), 3.0e-5, 6.0e-8, 2.9e-8,
             1.00390625, 1.01171875, 1.0 + 2.0 ** -23, 3.3895313892515355e38, 1e-40]
INT_SRC = [0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535, 70000,
           2147483647, -2147483648, 16777217]


def values(t):
    """The exact values of tensor t as a flat list (bfloat16 from its bits)."""
    a = t.numpy()
    if str(t.dtype) == "paddle.bfloat16":
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a.ravel().tolist()


def fmt(t, dt):
    vals = values(t)
    if dt == "bool":
        s = ["1" if v else "0" for v in vals]
    elif dt in ("float32", "float64", "float16", "bfloat16"):
        s = [repr(float(v)) for v in vals]
    else:
        s = [str(int(v)) for v in vals]
    return " ".join([dt, "[%d]" % len(vals)] + s)


def source(dt):
    if dt in ("float32", "float64", "float16", "bfloat16"):
        return paddle.to_tensor(FLOAT_SRC, dtype="float64").astype(dt)
    if dt == "bool":
        return paddle.to_tensor([True, False, True])
    return paddle.to_tensor(INT_SRC, dtype="int64").astype(dt)


def main():
    paddle.set_device("cpu")
    lines = ["# cast between every pair of dtypes, from real Paddle 2.6.2 (tests/gen/gen_dtypes.py)"]
    n = 0
    for fr in DTYPES:
        x = source(fr)
        for to in DTYPES:
            y = x.astype(to)
            lines += ["case cast_%s_%s" % (fr, to), "op cast", "attrs dtype = " + to,
                      "in " + fmt(x, fr), "out " + fmt(y, to), "end"]
            n += 1
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d cases -> %s" % (n, os.path.relpath(OUT, os.path.dirname(os.path.dirname(HERE)))))


if __name__ == "__main__":
    main()
