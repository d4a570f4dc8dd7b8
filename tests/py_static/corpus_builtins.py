# Conformance corpus: builtins, sub-Layers and dynamic dims inside to_static.
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    if isinstance(t, (list, tuple)):
        print(name, type(t).__name__, len(t))
        for i, u in enumerate(t):
            show("%s[%d]" % (name, i), u)
    elif isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


class Inner(paddle.nn.Layer):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        if x.mean() > 0:
            return x * self.scale
        return x


class Outer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = paddle.nn.LayerList([Inner(2.0), Inner(-1.0), Inner(0.5)])
        self.names = ["first", "second", "third"]

    def pick(self, name):
        return self.blocks[self.names.index(name)]

    @paddle.jit.to_static
    def forward(self, x):
        for name in reversed(self.names):
            x = self.pick(name)(x)
        if hasattr(self, "names") and len(self.names) == 3:
            x = x + 1
        return x


@paddle.jit.to_static(input_spec=[InputSpec([None, 2], "float32")])
def dynamic_len(x):
    n = len(x)
    s = paddle.zeros([2])
    for i in range(x.shape[0]):
        s = s + x[i]
    return s / n


@paddle.jit.to_static
def tensor_pow_floordiv(x):
    y = x ** 2
    z = paddle.floor_divide(paddle.cast(y, "int64"), paddle.to_tensor(3, dtype="int64"))
    w = paddle.cast(y, "int64") % 3
    return y, z, w


@paddle.jit.to_static
def sorted_keys(x):
    d = {"b": x * 2, "a": x, "c": x * 3}
    out = []
    for k in sorted(d.keys()):
        out.append(d[k])
    return paddle.concat(out)


@paddle.jit.to_static
def any_all_python(x, flags=(True, False)):
    if any(flags) and not all(flags):
        x = x + 10
    return x


@paddle.jit.to_static
def while_return_in_nested_if(x):
    i = paddle.to_tensor(0)
    while i < 5:
        if x.sum() > 20:
            if i > 2:
                return x, i
        x = x * 2
        i = i + 1
    return x, i


def helper_depth(x, depth):
    if depth <= 0:
        return x
    if x.sum() > 0:
        x = x - 1
    else:
        x = x + 1
    return helper_depth(x, depth - 1)


@paddle.jit.to_static
def recursive_helper(x):
    return helper_depth(x, 3)


@paddle.jit.to_static
def getattr_layer(x):
    fn = getattr(paddle.nn.functional, "relu")
    return fn(x) + getattr(paddle, "abs")(x)


outer = Outer()
show("outer", outer(paddle.to_tensor([1.0, 2.0])))
show("outer", outer(paddle.to_tensor([-1.0, -2.0])))
show("dynamic_len", dynamic_len(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])))
show("tensor_pow_floordiv", tensor_pow_floordiv(paddle.to_tensor([2.0, 4.0])))
show("sorted_keys", sorted_keys(paddle.to_tensor([1.0])))
show("any_all_python", any_all_python(paddle.to_tensor([1.0])))
show("any_all_python", any_all_python(paddle.to_tensor([1.0]), (True, True)))
show("while_return_in_nested_if", while_return_in_nested_if(paddle.to_tensor([3.0, 4.0])))
show("while_return_in_nested_if", while_return_in_nested_if(paddle.to_tensor([-3.0, -4.0])))
show("recursive_helper", recursive_helper(paddle.to_tensor([1.5])))
show("recursive_helper", recursive_helper(paddle.to_tensor([-0.5])))
show("getattr_layer", getattr_layer(paddle.to_tensor([-1.0, 2.0])))
