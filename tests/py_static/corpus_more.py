# Conformance corpus: more forms from Paddle's dy2st unit tests (dict iteration, with, attributes, spec'd Layers).
import numpy as np
import paddle
from paddle.static import InputSpec

SCALE = 0.5


def show(name, t):
    if isinstance(t, (list, tuple)):
        print(name, type(t).__name__, len(t))
        for i, u in enumerate(t):
            show("%s[%d]" % (name, i), u)
    elif isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


class Counter(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.hidden = 4
        self.fc = paddle.nn.Linear(2, 2)
        self.fc.weight.set_value(paddle.to_tensor([[1.0, 0.5], [-0.5, 1.0]]))
        self.fc.bias.set_value(paddle.to_tensor([0.0, 0.1]))

    def forward(self, x):
        self.steps = 0
        while x.abs().sum() < self.hidden:
            x = self.fc(x) * 2
            self.steps += 1
        return x


@paddle.jit.to_static
def dict_items_loop(x):
    weights = {"a": 1.0, "b": 2.0, "c": -1.0}
    out = x * 0
    for k, w in weights.items():
        if k != "b":
            out = out + x * w
    return out


@paddle.jit.to_static
def with_no_grad(x):
    with paddle.no_grad():
        y = x * 2
    if y.sum() > 0:
        y = y + 1
    return y


@paddle.jit.to_static
def global_constant(x):
    for _ in range(2):
        x = x * SCALE
    return x


@paddle.jit.to_static
def for_tensor_break(x):
    acc = paddle.zeros([2])
    for row in x:
        if row.sum() < 0:
            break
        acc = acc + row
    return acc


@paddle.jit.to_static
def nested_loop_return(x):
    for i in range(3):
        for j in range(3):
            if x[i, j] > 4:
                return x[i, j] * 10
    return x.sum()


@paddle.jit.to_static
def continue_in_tensor_range(x, n):
    s = paddle.zeros([])
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + x[i]
    return s


@paddle.jit.to_static
def python_and_tensor_cond(x, flag=True):
    if flag and x.mean() > 0:
        return x + 1
    if not flag or x.max() > 10:
        return x - 1
    return x


@paddle.jit.to_static
def list_comprehension_rows(x):
    rows = [r * (i + 1) for i, r in enumerate(paddle.unbind(x, axis=0))]
    return paddle.stack(rows)


@paddle.jit.to_static
def shape_unpack(x):
    b, c = x.shape
    y = paddle.reshape(x, [-1, c * 2])
    return y, c


@paddle.jit.to_static
def zip_lists(x):
    a = [x, x + 1, x + 2]
    b = [1.0, -1.0, 0.5]
    out = paddle.zeros_like(x)
    for t, w in zip(a, b):
        out = out + t * w
    return out


@paddle.jit.to_static
def max_of_ints(x):
    n = max(x.shape[0], 3)
    m = min(len([1, 2]), 5)
    return paddle.full([n, m], 1.0) * x.mean()


@paddle.jit.to_static
def while_tensor_or(x):
    i = paddle.to_tensor(0)
    while i < 2 or x.sum() < 10:
        x = x + 1
        i = i + 1
    return x, i


counter = paddle.jit.to_static(Counter())
show("counter", counter(paddle.to_tensor([0.1, 0.2])))
show("dict_items_loop", dict_items_loop(paddle.to_tensor([1.0, 2.0])))
show("with_no_grad", with_no_grad(paddle.to_tensor([1.0, 2.0])))
show("global_constant", global_constant(paddle.to_tensor([1.0, 2.0])))
show("for_tensor_break", for_tensor_break(paddle.to_tensor([[1.0, 2.0], [3.0, -9.0], [1.0, 1.0]])))
show("nested_loop_return", nested_loop_return(paddle.arange(9, dtype="float32").reshape([3, 3])))
show("nested_loop_return", nested_loop_return(paddle.ones([3, 3])))
show("continue_in_tensor_range", continue_in_tensor_range(paddle.arange(6, dtype="float32"), paddle.to_tensor(5)))
show("python_and_tensor_cond", python_and_tensor_cond(paddle.to_tensor([1.0, 2.0])))
show("python_and_tensor_cond", python_and_tensor_cond(paddle.to_tensor([1.0, 2.0]), False))
show("python_and_tensor_cond", python_and_tensor_cond(paddle.to_tensor([-1.0, -2.0])))
show("list_comprehension_rows", list_comprehension_rows(paddle.ones([3, 2])))
show("shape_unpack", shape_unpack(paddle.ones([2, 3])))
show("zip_lists", zip_lists(paddle.to_tensor([1.0, 2.0])))
show("max_of_ints", max_of_ints(paddle.to_tensor([[1.0, 3.0]])))
show("while_tensor_or", while_tensor_or(paddle.to_tensor([1.0, 2.0])))
