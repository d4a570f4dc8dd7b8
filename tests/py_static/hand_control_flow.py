# to_static: paddle.static.nn.while_loop and cond called by hand, add_n, increment, softsign,
# paddle.tensor.fill_constant.
# real Paddle: AST mode
import numpy as np
import paddle
import paddle.nn.functional as F


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


@paddle.jit.to_static
def accumulate(x, limit):
    def cond(i, s):
        return i < limit

    def body(i, s):
        return i + 1, s + x

    i = paddle.zeros([1], "int64")
    s = paddle.zeros_like(x)
    i, s = paddle.static.nn.while_loop(cond, body, [i, s])
    return i, s


@paddle.jit.to_static
def choose(x):
    y = paddle.static.nn.cond(paddle.sum(x) > 0, lambda: F.softsign(x) * 2, lambda: x - 1)
    a, b = paddle.static.nn.cond(paddle.mean(x) < 1, lambda: (x, x + 1), lambda: (x * 0, x))
    return y, a, b


@paddle.jit.to_static
def sums(x):
    c = paddle.tensor.fill_constant([3], "float32", 0.5)
    t = paddle.add_n([x, x, c])
    n = paddle.full([1], 2.0, "float32")
    paddle.increment(n, 3.0)
    return t * n


for v, lim in (([1.0, 2.0, 3.0], 4), ([0.5, -1.0, 0.25], 0), ([2.0, 2.0, 2.0], 1)):
    x = paddle.to_tensor(v)
    i, s = accumulate(x, paddle.to_tensor([lim], "int64"))
    show("accumulate i", i)
    show("accumulate s", s)
    y, a, b = choose(x)
    show("choose y", y)
    show("choose a", a)
    show("choose b", b)
    show("sums", sums(x))
