# to_static: ifs on tensors become cond ops, ifs on Python values are decided while converting.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


@paddle.jit.to_static
def branch(x):
    if paddle.mean(x) > 0:
        y = x * 2
    else:
        y = -x
    return y + 1


@paddle.jit.to_static
def elif_chain(x):
    s = paddle.sum(x)
    if s < -10:
        out = x * 3
    elif s < 0:
        out = x * 2
    elif s == 0:
        out = x + 100
    else:
        out = x - 1
    return out


@paddle.jit.to_static
def python_flag(x, flag):
    if flag:
        x = x + 1
    else:
        x = x - 1
    if x.shape[0] == 3:
        x = x * 10
    return x


@paddle.jit.to_static
def nested(x, y):
    z = x * 0
    if paddle.sum(x) > 0:
        if paddle.sum(y) > 0:
            z = x + y
        else:
            z = x - y
        z = z * 10
    return z


@paddle.jit.to_static
def early_return(x):
    if paddle.max(x) > 5:
        return x * 0 + 5
    y = x * 2
    return y


@paddle.jit.to_static
def scalar_branches(x):
    if paddle.sum(x) > 0:
        k = 3
    else:
        k = 4
    return x * k


@paddle.jit.to_static
def bool_ops(x, y):
    a = paddle.sum(x) > 0
    b = paddle.sum(y) > 0
    if a and b:
        r = x + y
    elif a or b:
        r = x - y
    else:
        r = x * y
    if not a:
        r = r * 2
    return r


@paddle.jit.to_static
def ternary(x):
    y = x * 2 if paddle.sum(x) > 0 else x * -3
    return y


@paddle.jit.to_static
def tuple_out(x):
    if paddle.sum(x) > 0:
        a, b = x + 1, x - 1
    else:
        a, b = x * 2, x * 3
    return a, b


pos = paddle.to_tensor(np.array([1.0, 2.0, 3.0], dtype="float32"))
neg = paddle.to_tensor(np.array([-1.0, -2.0, -3.5], dtype="float32"))
zero = paddle.to_tensor(np.array([1.0, -1.0, 0.0], dtype="float32"))
big = paddle.to_tensor(np.array([-20.0, 1.0, 2.0], dtype="float32"))
for name, x in [("pos", pos), ("neg", neg), ("zero", zero), ("big", big)]:
    show("branch " + name, branch(x))
    show("elif " + name, elif_chain(x))
    show("early " + name, early_return(x * 3))
    show("scalar " + name, scalar_branches(x))
    show("ternary " + name, ternary(x))
    a, b = tuple_out(x)
    show("tuple a " + name, a)
    show("tuple b " + name, b)
show("flag true", python_flag(pos, True))
show("flag false", python_flag(pos, False))
show("flag 4", python_flag(paddle.to_tensor([1.0, 2.0, 3.0, 4.0]), True))
for x, y in [(pos, pos), (pos, neg), (neg, pos), (neg, neg)]:
    show("nested", nested(x, y))
    show("bool_ops", bool_ops(x, y))
