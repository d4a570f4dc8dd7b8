# to_static: module-level names stored through (G[k] = v) inside tensor loops and ifs stay globals.
import numpy as np
import paddle

SCALE = 2.0
CONFIG = {"mode": "train"}


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def loop(x):
    i = paddle.zeros([], dtype="int64")
    while i < 3:
        CONFIG["mode"] = "eval"
        x = x * SCALE
        i = i + 1
    return x


@paddle.jit.to_static
def branch(x):
    if x.sum() > 0:
        CONFIG["sign"] = "positive"
        y = x + SCALE
    else:
        y = x - SCALE
    return y


show("loop", loop(paddle.ones([2])))
show("branch", branch(paddle.ones([2])))
print(sorted(CONFIG.items()))
