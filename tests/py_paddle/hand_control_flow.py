# paddle.static.nn.cond / while_loop called by hand in dygraph, paddle.tensor, add_n, increment,
# softsign.
import numpy as np
import paddle
import paddle.nn.functional as F


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


x = paddle.to_tensor([-2.0, 0.5, 3.0, 0.0])
show("softsign", F.softsign(x))
show("add_n list", paddle.add_n([x, x * 2, x]))
show("add_n one", paddle.add_n(x))
show("add_n tuple", paddle.add_n((x, x)))

i = paddle.zeros([1], "int64")
j = paddle.increment(i)
show("increment i", i)
show("increment j", j)
print("increment same", j is i)
f = paddle.full([1], 1.5, "float32")
paddle.increment(f, 2.0)
show("increment f", f)

show("tensor.fill_constant", paddle.tensor.fill_constant([2, 3], "float32", 2.5))
show("tensor.fill_constant int", paddle.tensor.fill_constant([2], "int64", 7))
show("tensor.matmul", paddle.tensor.matmul(paddle.ones([2, 3]), paddle.ones([3, 2])))
show("tensor.add", paddle.tensor.add(x, x))
show("tensor.sum", paddle.tensor.sum(x))
show("tensor.reshape", paddle.tensor.reshape(x, [2, 2]))


def cond(i, ten):
    return i < ten


def body(i, ten):
    i = i + 1
    return [i, ten]


i = paddle.full(shape=[1], fill_value=0, dtype="int64")
ten = paddle.full(shape=[1], fill_value=10, dtype="int64")
out = paddle.static.nn.while_loop(cond, body, [i, ten])
print("while_loop kind", type(out).__name__, len(out))
show("while_loop i", out[0])
show("while_loop ten", out[1])
show("while_loop input i", i)

s = paddle.zeros([2])
k = paddle.zeros([1], "int64")
k2, s2 = paddle.static.nn.while_loop(lambda k, s: k < 3, lambda k, s: (k + 1, s + x[:2]), (k, s))
show("while_loop k", k2)
show("while_loop s", s2)
n = paddle.full([1], 5, "int64")
(n2,) = paddle.static.nn.while_loop(lambda n: n > 0, lambda n: n - 2, [n])
show("while_loop one", n2)

a = paddle.to_tensor([1.0])
b = paddle.to_tensor([2.0])
show("cond true", paddle.static.nn.cond(a < b, lambda: a + b, lambda: a - b))
show("cond false", paddle.static.nn.cond(a > b, lambda: a + b, lambda: a - b))
p, q = paddle.static.nn.cond(a > b, lambda: (a, b), lambda: (b * 3, a * 3))
show("cond tuple p", p)
show("cond tuple q", q)
print("cond no false_fn", paddle.static.nn.cond(a > b, lambda: a))
print("cond no true_fn", paddle.static.nn.cond(a < b, None, lambda: a))

# bad calls: the exception's type is Paddle's
one = paddle.to_tensor([1.0])
cases = [
    ("cond pred int", lambda: paddle.static.nn.cond(1, lambda: one, lambda: one)),
    ("cond pred two elements", lambda: paddle.static.nn.cond(paddle.ones([2]) > 0, lambda: one)),
    ("while empty", lambda: paddle.static.nn.while_loop(lambda: one < 1, lambda: one, [])),
    ("while arity", lambda: paddle.static.nn.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1],
                                                        [one, one])),
    ("add_n empty", lambda: paddle.add_n([])),
    ("increment two elements", lambda: paddle.increment(paddle.ones([2]))),
]
for name, f in cases:
    try:
        f()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__)
print("cond float pred", paddle.static.nn.cond(one, lambda: "yes", lambda: "no"))
