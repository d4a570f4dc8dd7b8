# to_static: and/or/not, casts, len, assert, shapes (static and dynamic via InputSpec), Python predicates.
# real Paddle: AST mode
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    # values only: int()/float()/bool()/not of a tensor give Python values in eager mode
    # and tensors in a static program
    if isinstance(t, paddle.Tensor):
        t = t.numpy()
    v = np.asarray(t).astype("float64").reshape([-1])
    print(name, (np.round(v, 4) + 0.0).tolist())


@paddle.jit.to_static
def logic(x, flag):
    a = paddle.sum(x) > 0
    b = paddle.max(x) > 2
    both = a and b
    either = a or b
    neither = not (a or b)
    left_py_and = flag and a
    left_py_or = flag or b
    return both, either, neither, left_py_and, left_py_or


@paddle.jit.to_static
def short_circuit(x, y):
    # y is None: the right operand is never evaluated
    if y is not None and paddle.sum(y) > 0:
        x = x + y
    if y is None or paddle.sum(y) < 0:
        x = x * 10
    return x


@paddle.jit.to_static
def casts(x):
    n = int(paddle.sum(x))
    f = float(paddle.max(x))
    b = bool(paddle.min(x) > 0)
    return n, f, b


@paddle.jit.to_static
def lengths(x):
    # len() and x.shape of a tensor with static dims are Python ints
    n = len(x)
    rows, cols = x.shape
    return x * n + rows * 10 + cols


@paddle.jit.to_static
def checked_sqrt(x):
    assert paddle.min(x) >= 0, "negative input"
    return paddle.sqrt(x)


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32", "x")])
def dynamic_batch(x):
    # x.shape[0] is a tensor (dynamic), x.shape[1] the int 3
    b = x.shape[0]
    c = x.shape[1]
    if c == 3:
        y = x * 2
    else:
        y = paddle.reshape(x, [7, 7])  # never emitted: c is a Python int
    z = paddle.zeros([b, 2])
    return paddle.sum(y, axis=1) + paddle.sum(z, axis=1), len(x)


@paddle.jit.to_static
def python_flags(x, scale, mode):
    # Python-valued predicates run as Python: only the taken branch is emitted
    if mode == "double":
        x = x * 2
    elif mode == "square":
        x = x * x
    else:
        x = paddle.reshape(x, [5, 5, 5])
    if scale is not None:
        x = x * scale
    while x.shape[0] < 4:
        x = paddle.concat([x, x])
    return x


@paddle.jit.to_static
def one_side_writes(x):
    # each branch writes a different variable; both exist before the if
    a = x * 1
    b = x * 2
    if paddle.mean(x) > 1:
        a = a + 100
    elif paddle.mean(x) > 0:
        b = b - 100
    else:
        a = a * 0
        b = b * 0
    return a, b


x = paddle.to_tensor([1.0, 2.5, -0.5])
for flag in [0, 1]:
    r = logic(x, flag)
    for k, v in zip(["both", "either", "neither", "py_and", "py_or"], r):
        show("logic %d %s" % (flag, k), v)
r = logic(x * -1, 1)
show("logic neg", r)
show("short none", short_circuit(x, None))
show("short pos", short_circuit(x, x + 1))
show("short neg", short_circuit(x, x - 5))
for k, v in zip(["int", "float", "bool"], casts(x * 3)):
    show("casts " + k, v)
for k, v in zip(["int", "float", "bool"], casts(x + 1)):
    show("casts pos " + k, v)
show("lengths", lengths(paddle.ones([2, 3])))
show("sqrt", checked_sqrt(paddle.to_tensor([4.0, 9.0])))
try:
    checked_sqrt(paddle.to_tensor([4.0, -9.0]))
    print("assert passed")
except Exception:
    print("assert raised")
m = paddle.to_tensor(np.arange(12).reshape(4, 3).astype("float32"))
s, n = dynamic_batch(m)
show("dynamic", s)
show("dynamic len", n)
s, n = dynamic_batch(m[:2])
show("dynamic 2", s)
show("dynamic 2 len", n)
show("flags double", python_flags(paddle.to_tensor([1.0, 2.0]), None, "double"))
show("flags square", python_flags(paddle.to_tensor([1.0, 2.0, 3.0]), 0.5, "square"))
for v in [[3.0, 3.0], [0.5, 0.5], [-1.0, -2.0]]:
    a, b = one_side_writes(paddle.to_tensor(v))
    show("one_side a", a)
    show("one_side b", b)
