# Recursion. With a Python bound it is converted (each level inline); when a tensor decides the
# depth, both branches of the converted `if` would recurse without end, so dy2st traces the
# function instead and the depth seen while tracing is frozen.
import numpy as np
import paddle


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def halve_n(x, n=3):
    if n == 0:
        return x
    return halve_n(x * 0.5 + 1.0, n - 1)


@paddle.jit.to_static
def grow(x):
    if x.sum() > 100.0:
        return x
    return grow(x * 2.0)


x = paddle.to_tensor(np.array([1.0, 2.0], dtype="float32"))
show("halve", halve_n(x))
show("halve5", halve_n(x, 5))
show("grow", grow(x))
show("grow2", grow(x * 0.9))
