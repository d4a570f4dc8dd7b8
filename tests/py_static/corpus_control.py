# Conformance corpus: tensor-dependent control flow as Paddle's dy2st tests and model zoos write it.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, (list, tuple)):
        print(name, type(t).__name__, len(t))
        for i, u in enumerate(t):
            show("%s[%d]" % (name, i), u)
    elif isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


@paddle.jit.to_static
def while_break(x):
    i = paddle.zeros([1], dtype="int64")
    s = paddle.zeros([1])
    while i < 10:
        s = s + x[i]
        if s > 5:
            break
        i += 1
    return s, i


@paddle.jit.to_static
def while_continue(x):
    i = 0
    s = paddle.zeros([])
    n = paddle.shape(x)[0]
    while i < n:
        i += 1
        if x[i - 1] < 0:
            continue
        s += x[i - 1]
    return s


@paddle.jit.to_static
def for_return_inside(x):
    for i in range(5):
        if x.sum() > 10:
            return x * 0 + i
        x = x + 2
    return x


@paddle.jit.to_static
def early_return_if(x):
    if x.mean() > 0:
        return x - 1
    y = x * 2
    if y.min() < -5:
        return y + 100
    return y


@paddle.jit.to_static
def for_over_tensor(x):
    total = paddle.zeros([3])
    for row in x:
        total = total + row * 2
    return total


@paddle.jit.to_static
def while_compound(x, limit):
    i = paddle.to_tensor(0)
    acc = paddle.to_tensor(0.0)
    while i < 8 and acc < limit:
        acc = acc + x[i]
        i = i + 1
    return acc, i


@paddle.jit.to_static
def range_tensor_bounds(x, n):
    out = paddle.zeros_like(x)
    for i in range(1, n):
        out = out + x * i
    return out


@paddle.jit.to_static
def nested_loops_break(x):
    count = paddle.zeros([1], dtype="int32")
    for i in range(4):
        for j in range(4):
            if x[i, j] > 0.5:
                count += 1
            if j >= i:
                break
    return count


@paddle.jit.to_static
def while_not_cond(x):
    y = x
    done = paddle.to_tensor(False)
    steps = 0
    while not done:
        y = y / 2
        steps += 1
        done = y.abs().max() < 1
    return y


@paddle.jit.to_static
def if_elif_else_tensor(x):
    m = x.mean()
    if m > 1:
        r = x * 10
    elif m > 0:
        r = x * 5
    elif m > -1:
        r = x
    else:
        r = -x
    return r


@paddle.jit.to_static
def loop_with_if_assign_new(x):
    s = paddle.zeros([2])
    for i in range(3):
        if x[i].sum() > 0:
            t = x[i] * 2
        else:
            t = x[i] - 1
        s = s + t
    return s


xs = paddle.to_tensor([1.0, 2.0, -3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0])
show("while_break", while_break(xs))
show("while_continue", while_continue(xs))
show("for_return_inside", for_return_inside(paddle.to_tensor([1.0, 2.0])))
show("for_return_inside", for_return_inside(paddle.to_tensor([-10.0, -20.0])))
show("early_return_if", early_return_if(paddle.to_tensor([1.0, 2.0])))
show("early_return_if", early_return_if(paddle.to_tensor([-1.0, -4.0])))
show("early_return_if", early_return_if(paddle.to_tensor([-0.5, 0.2])))
show("for_over_tensor", for_over_tensor(paddle.arange(6, dtype="float32").reshape([2, 3])))
show("while_compound", while_compound(xs, paddle.to_tensor(6.0)))
show("while_compound", while_compound(xs, paddle.to_tensor(100.0)))
show("range_tensor_bounds", range_tensor_bounds(paddle.to_tensor([1.0, -1.0]), paddle.to_tensor(4)))
show("nested_loops_break", nested_loops_break(paddle.to_tensor(np.linspace(0, 1, 16).reshape(4, 4).astype("float32"))))
show("while_not_cond", while_not_cond(paddle.to_tensor([10.0, -3.0])))
for v in (2.0, 0.5, -0.5, -3.0):
    show("if_elif_else_tensor", if_elif_else_tensor(paddle.to_tensor([v, v])))
show("loop_with_if_assign_new", loop_with_if_assign_new(paddle.to_tensor([[1.0, 2.0], [-3.0, -4.0], [5.0, -1.0]])))
