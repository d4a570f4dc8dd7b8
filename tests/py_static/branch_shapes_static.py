# if/else branches whose shapes differ (in a dynamic dim, rank-preserving): the cond result takes -1 where they differ.
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    if isinstance(t, (list, tuple)):
        for u in t:
            show(name, u)
        return
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def p_a(x):
    if paddle.sum(x) > 0:
        return x[:2], paddle.ones([1])
    return x, paddle.ones([3])


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def p_b(x):
    y = x
    if paddle.sum(x) > 0:
        y = x[:2]
    if paddle.mean(x) > 0:
        y = paddle.concat([y, y])
    return y


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32"), InputSpec([None], "int64")])
def p_c(x, n):
    out = x
    for i in range(n.shape[0]):
        if n[i] > 0:
            out = paddle.concat([out, x[:1]])
    return out


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def p_d(x):
    if paddle.sum(x) > 0:
        y = paddle.reshape(x, [-1])
    else:
        y = paddle.reshape(x, [3, -1])[0]
    return y


@paddle.jit.to_static(input_spec=[InputSpec([None, None], "float32")])
def p_e(x):
    if x.shape[1] > 2:
        y = x[:, :2]
    else:
        y = x
    return y


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def p_f(x):
    res = []
    if paddle.sum(x) > 0:
        res.append(x)
    else:
        res.append(x[1:])
    return res[0]


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def p_g(x):
    y = paddle.zeros([0, 3])
    i = paddle.to_tensor(0)
    while i < x.shape[0]:
        if x[i].sum() > 0:
            y = paddle.concat([y, x[i:i+1]])
        i += 1
    return y


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def p_h(x):
    p_d = {"v": x}
    if paddle.sum(x) > 0:
        p_d["v"] = x[:1]
    return p_d["v"]


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def p_m(x):
    y = x[:1] if paddle.sum(x) > 0 else paddle.ones([2, 3])
    return y



@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def q_a(x):
    if paddle.sum(x) > 0:
        ys = [x, x[:1]]
    else:
        ys = [x[:2], x]
    return ys[0] + 0, ys[1] + 0


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def q_b(x):
    if paddle.sum(x) > 0:
        y = 1
    else:
        y = paddle.to_tensor(2)
    return x * y


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def q_c(x):
    if paddle.sum(x) > 0:
        y = paddle.expand(x[:1], [4, 3])
    else:
        y = paddle.tile(x, [2, 1])
    return y


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def q_d(x):
    if paddle.sum(x) > 0:
        y = x.reshape([-1, 1, 3])
    else:
        y = x.unsqueeze(1)[:1]
    return y


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def q_e(x):
    y = x
    for i in range(2):
        if paddle.sum(y) > 0:
            y = paddle.concat([y, y[:1]])
    return y


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def q_f(x):
    if paddle.sum(x) > 0:
        y = paddle.zeros([2, 3], dtype="float32")
    else:
        y = paddle.zeros([3, 3], dtype="float32")
    return y + x[:1]



for fn in (p_a, p_b, p_c, p_d, p_e, p_f, p_g, p_h, p_m, q_a, q_b, q_c, q_d, q_e, q_f):
    for x in (paddle.ones([4, 3]), -paddle.ones([4, 3]), paddle.to_tensor([[1.0, 2, 3], [-1, -2, -3], [4, 5, 6]])):
        args = (x,) if fn is not p_c else (x, paddle.to_tensor([1, -1, 1]))
        show(fn.__name__, fn(*args))
