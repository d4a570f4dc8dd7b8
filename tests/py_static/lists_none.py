# to_static: lists grown under tensor conditions, loop variables that start as None.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


@paddle.jit.to_static
def none_init(x, n):
    best = None
    i = paddle.zeros([1], dtype="int64")
    while i < n:
        best = x * paddle.cast(i, "float32")
        i = i + 1
    return best


@paddle.jit.to_static
def grow_in_branches(xs):
    out = []
    for v in [1.0, 2.0, 3.0]:
        if paddle.sum(xs) > v * 3:
            out.append(xs * v)
        else:
            out.append(xs * 0)
    return paddle.concat(out)


@paddle.jit.to_static
def rows_break(x):
    total = paddle.zeros([2])
    for row in x:
        if paddle.sum(row) > 5:
            break
        total = total + row
    return total


show("none_init", none_init(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3], dtype="int64")))
show("grow", grow_in_branches(paddle.to_tensor([2.0, 2.0])))
x = paddle.to_tensor(np.array([[1, 1], [2, 2], [3, 3], [1, 1]], dtype="float32"))
show("rows_break", rows_break(x))
show("rows_break none", rows_break(x * 0.1))
