# to_static: while loops whose test is a tensor become while_loop ops, with break and continue.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


@paddle.jit.to_static
def count_to(n):
    i = paddle.zeros([1], dtype="int64")
    s = paddle.zeros([1], dtype="float32")
    while i < n:
        s = s + paddle.cast(i, "float32") * 0.5
        i = i + 1
    return s, i


@paddle.jit.to_static
def collatz(n):
    steps = paddle.zeros([1], dtype="int64")
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = n * 3 + 1
        steps = steps + 1
    return steps


@paddle.jit.to_static
def with_break(x, limit):
    total = paddle.zeros([1], dtype="float32")
    i = 0
    while i < 100:
        total = total + x
        if total > limit:
            break
        i += 1
    return total


@paddle.jit.to_static
def with_continue(n):
    i = paddle.zeros([1], dtype="int64")
    odd = paddle.zeros([1], dtype="int64")
    while i < n:
        i = i + 1
        if i % 2 == 0:
            continue
        odd = odd + i
    return odd


@paddle.jit.to_static
def python_loop(x):
    k = 0
    while k < 3:
        x = x * 2
        k += 1
    return x


@paddle.jit.to_static
def shrink(x):
    # the loop variable keeps its shape; its values change
    while paddle.max(x) > 1.0:
        x = x / 2
    return x


@paddle.jit.to_static
def early_exit(x):
    i = paddle.zeros([1], dtype="int64")
    while i < 10:
        if paddle.sum(x) > 50:
            return x
        x = x * 2
        i = i + 1
    return x - 1


for n in [0, 1, 6]:
    s, i = count_to(paddle.to_tensor([n], dtype="int64"))
    show("count_to %d s" % n, s)
    show("count_to %d i" % n, i)
for n in [1, 6, 27]:
    show("collatz %d" % n, collatz(paddle.to_tensor([n], dtype="int64")))
show("break", with_break(paddle.to_tensor([1.5]), paddle.to_tensor([7.0])))
show("break never", with_break(paddle.to_tensor([0.01]), paddle.to_tensor([7.0])))
show("continue", with_continue(paddle.to_tensor([9], dtype="int64")))
show("python loop", python_loop(paddle.to_tensor([1.0, 2.0])))
show("shrink", shrink(paddle.to_tensor([3.0, 40.0, 0.5])))
show("early exit", early_exit(paddle.to_tensor([1.0, 2.0])))
show("no exit", early_exit(paddle.to_tensor([0.001, 0.002])))
