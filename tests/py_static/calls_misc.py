# to_static: helper functions converted on call, not_to_static, len, casts, dynamic shapes, InputSpec.
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


def clip_helper(x):
    # converted on call: its if depends on the data
    if paddle.max(x) > 2:
        x = paddle.clip(x, -2.0, 2.0)
    return x


@paddle.jit.not_to_static
def plain_helper(x, k):
    return x * k


@paddle.jit.to_static
def calls(x):
    y = clip_helper(x)
    return plain_helper(y, 3)


@paddle.jit.to_static
def lengths(x):
    n = len(x)
    out = x * n
    return out, n


@paddle.jit.to_static(input_spec=[InputSpec([None, 2], "float32", "x")])
def dynamic_rows(x):
    total = paddle.zeros([2], dtype="float32")
    for row in x:
        if paddle.sum(row) > 0:
            total = total + row
    return total


@paddle.jit.to_static
def stepped(n):
    acc = paddle.zeros([1], dtype="int64")
    for i in range(1, n, 3):
        acc = acc + i
    return acc


@paddle.jit.to_static
def python_list(x):
    parts = []
    for k in range(3):
        parts.append(x * k)
    return paddle.stack(parts)


@paddle.jit.to_static
def logic_values(x, a, b):
    # and/or on Python values keep Python semantics
    c = a and b
    d = a or b
    if c:
        x = x + 1
    if d:
        x = x * 2
    return x, c, d


@paddle.jit.to_static
def minmax(x):
    lo = paddle.min(x)
    hi = paddle.max(x)
    if hi - lo > 3 and lo < 0:
        r = x - lo
    else:
        r = x + hi
    return r


x = paddle.to_tensor(np.array([1.0, 5.0, -3.0], dtype="float32"))
show("calls", calls(x))
show("calls small", calls(x / 10))
o, n = lengths(x)
show("lengths", o)
show("lengths n", n)
m = paddle.to_tensor(np.array([[1, 2], [-5, 1], [3, -1], [0.5, 0.5]], dtype="float32"))
show("dynamic rows", dynamic_rows(m))
show("dynamic rows 2", dynamic_rows(m[:2]))
show("stepped", stepped(paddle.to_tensor([11], dtype="int64")))
show("python list", python_list(paddle.to_tensor([1.0, 2.0])))
r, c, d = logic_values(x, 0, 3)
show("logic", r)
show("logic c", c)
show("logic d", d)
show("minmax", minmax(x))
show("minmax pos", minmax(x + 4))
