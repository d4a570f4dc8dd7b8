# Conformance corpus: helpers, methods, containers and builtins inside to_static, as model code writes them.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, (list, tuple)):
        print(name, type(t).__name__, len(t))
        for i, u in enumerate(t):
            show("%s[%d]" % (name, i), u)
    elif isinstance(t, dict):
        for k in sorted(t):
            show("%s[%r]" % (name, k), t[k])
    elif isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


def scale_helper(x, factor=2.0):
    if x.sum() > 0:
        return x * factor
    return x / factor


def recurse_sum(x, depth):
    if depth == 0:
        return x
    return recurse_sum(x + depth, depth - 1)


class Block(paddle.nn.Layer):
    scale = 3.0

    def __init__(self, n_layers=2):
        super().__init__()
        self.n_layers = n_layers
        self.fc = paddle.nn.Linear(2, 2)
        self.fc.weight.set_value(paddle.to_tensor([[0.5, -0.25], [0.75, 1.0]]))
        self.fc.bias.set_value(paddle.to_tensor([0.1, -0.1]))

    def helper(self, x, times):
        for _ in range(times):
            x = paddle.tanh(self.fc(x))
        return x

    def gate(self, x):
        if paddle.mean(x) > 0:
            return self.helper(x, self.n_layers)
        return x * self.scale

    @paddle.jit.to_static
    def forward(self, x, mode="sum"):
        y = self.gate(x)
        if mode == "sum":
            return y.sum(axis=-1)
        return y


@paddle.jit.to_static
def nested_function(x):
    def inner(t, k=1):
        return t * k + 1

    y = inner(x)
    if y.sum() > 0:
        y = inner(y, k=3)
    return y


@paddle.jit.to_static
def default_args(x, alpha=0.5, use_relu=True):
    y = x * alpha
    if use_relu:
        y = paddle.nn.functional.relu(y)
    return y


def sum_all(*args, weight=1.0):
    total = args[0]
    for a in args[1:]:
        total = total + a * weight
    return total, len(args)


@paddle.jit.to_static
def star_args(x):
    parts = [x, x * 2, x * 3]
    return sum_all(*parts, weight=0.5)


@paddle.jit.to_static
def tuple_return(x):
    a, b = paddle.split(x, 2, axis=0)
    if a.sum() > b.sum():
        return a, b
    return b, a


@paddle.jit.to_static
def isinstance_check(x, y=None):
    if isinstance(y, paddle.Tensor):
        return x + y
    if isinstance(x, (list, tuple)):
        return x[0]
    return x * 2


@paddle.jit.to_static
def len_of_things(x):
    items = [x, x * 2, x * 3]
    n = len(items)
    m = len(x)
    return paddle.to_tensor(float(n * 10 + m)) + x.sum()


@paddle.jit.to_static
def list_in_loop(x):
    outs = []
    for i in range(3):
        outs.append(x * i)
    outs.pop(0)
    return paddle.concat(outs)


@paddle.jit.to_static
def dict_in_loop(x):
    d = {"a": x, "b": x * 0}
    for i in range(3):
        d["b"] = d["b"] + d["a"] * i
        if i == 1:
            d["c"] = d["b"] * 10
    return d


@paddle.jit.to_static
def list_tensor_loop(x):
    res = []
    i = 0
    while i < x.shape[0]:
        if x[i] > 0:
            res.append(x[i] * 2)
        i += 1
    return paddle.stack(res) if len(res) > 0 else x


@paddle.jit.to_static
def recursion_helper(x):
    return recurse_sum(x, 3)


@paddle.jit.to_static
def call_helper_default(x):
    return scale_helper(x) + scale_helper(x, factor=4.0)


@paddle.jit.to_static
def print_inside(x):
    y = x + 1
    print(y)
    if y.sum() > 0:
        y = y * 2
        print(y)
    return y


@paddle.jit.to_static
def tensor_list_index(x):
    layers = [paddle.tanh, paddle.nn.functional.relu, paddle.abs]
    out = x
    for fn in layers:
        out = fn(out) + 0.5
    return out


@paddle.jit.to_static
def enumerate_zip(x, y):
    acc = paddle.zeros([2])
    for i, (a, b) in enumerate(zip([x, x * 2], [y, y * 3])):
        acc = acc + (a - b) * (i + 1)
    return acc


x2 = paddle.to_tensor([[1.0, -2.0], [0.5, 0.25]])
blk = Block()
show("block_sum", blk(x2))
show("block_raw", blk(-x2 - 1, mode="raw"))
show("nested_function", nested_function(paddle.to_tensor([1.0, 2.0])))
show("nested_function", nested_function(paddle.to_tensor([-5.0, 2.0])))
show("default_args", default_args(paddle.to_tensor([1.0, -2.0])))
show("default_args", default_args(paddle.to_tensor([1.0, -2.0]), 2.0, False))
show("star_args", star_args(paddle.ones([2])))
show("tuple_return", tuple_return(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])))
show("isinstance_check", isinstance_check(paddle.ones([2]), paddle.ones([2])))
show("isinstance_check", isinstance_check(paddle.ones([2])))
show("len_of_things", len_of_things(paddle.ones([4])))
show("list_in_loop", list_in_loop(paddle.to_tensor([1.0, 2.0])))
show("dict_in_loop", dict_in_loop(paddle.to_tensor([1.0, 2.0])))
show("list_tensor_loop", list_tensor_loop(paddle.to_tensor([1.0, -2.0, 3.0])))
show("recursion_helper", recursion_helper(paddle.to_tensor([1.0])))
show("call_helper_default", call_helper_default(paddle.to_tensor([1.0, 2.0])))
show("call_helper_default", call_helper_default(paddle.to_tensor([-1.0, -2.0])))
show("print_inside", print_inside(paddle.to_tensor([1.0, 2.0])))
show("tensor_list_index", tensor_list_index(paddle.to_tensor([-1.0, 2.0])))
show("enumerate_zip", enumerate_zip(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([0.5, 0.5])))
