# to_static: for loops over ranges with tensor bounds, over tensors, and lists grown in tensor loops.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


@paddle.jit.to_static
def sum_range(n):
    total = paddle.zeros([1], dtype="int64")
    for i in range(n):
        total = total + i * i
    return total


@paddle.jit.to_static
def python_range(x):
    for i in range(3):
        x = x + i
    return x


@paddle.jit.to_static
def rows(x):
    acc = paddle.zeros([x.shape[1]], dtype="float32")
    for row in x:
        acc = acc + row * 2
    return acc


@paddle.jit.to_static
def collect(n):
    out = []
    i = paddle.zeros([1], dtype="int64")
    while i < n:
        out.append(i * 10)
        i = i + 1
    return paddle.concat(out), paddle.stack(out)


@paddle.jit.to_static
def range_break(n, stop_at):
    total = paddle.zeros([1], dtype="int64")
    for i in range(n):
        if i == stop_at:
            break
        total = total + 1
    return total


@paddle.jit.to_static
def enumerate_list(x):
    total = x * 0
    for k, w in enumerate([1.0, 2.0, 3.0]):
        total = total + x * w * k
    return total


n5 = paddle.to_tensor([5], dtype="int64")
show("sum_range", sum_range(n5))
show("sum_range 0", sum_range(paddle.to_tensor([0], dtype="int64")))
show("python_range", python_range(paddle.to_tensor([1.0])))
show("rows", rows(paddle.to_tensor(np.arange(12).reshape(4, 3).astype("float32"))))
c, s = collect(paddle.to_tensor([4], dtype="int64"))
show("collect concat", c)
show("collect stack", s)
show("range_break", range_break(n5, paddle.to_tensor([3], dtype="int64")))
show("range_break none", range_break(n5, paddle.to_tensor([9], dtype="int64")))
show("enumerate", enumerate_list(paddle.to_tensor([1.0, -1.0])))
