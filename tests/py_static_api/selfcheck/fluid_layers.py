# fluid.layers and the other Paddle 1.x spellings (gone from Paddle 2.6), checked against
# their Paddle 2.x forms and NumPy: eagerly, inside to_static, and in a static Program;
# fluid.enable_imperative / disable_imperative, fluid.Linear, fluid.initializer,
# paddle.Executor, TracedLayer.save_inference_model(dirname=...).
import numpy as np
import paddle
import paddle.fluid as fluid
import paddle.fluid.layers as layers
import paddle.base.layers as base_layers
from paddle.base.dygraph.nn import Pool2D

assert base_layers is layers and paddle.base.layers is layers and Pool2D is fluid.dygraph.Pool2D

xn = np.arange(-3.0, 3.0, 0.5).astype("float32").reshape(2, 3, 2)
yn = np.linspace(0.5, 2.0, 3).astype("float32")
x = paddle.to_tensor(xn)
y = paddle.to_tensor(yn)


def close(a, b):
    a = a.numpy() if isinstance(a, paddle.Tensor) else a
    b = b.numpy() if isinstance(b, paddle.Tensor) else b
    assert a.shape == b.shape and np.allclose(a, b, atol=1e-5), (a, b)


def all_layers(x, y):
    return [
        layers.reshape(x, shape=[-1, 4]),
        layers.reshape(x, [3, 4], act="relu"),
        layers.relu(x),
        layers.sigmoid(x),
        layers.tanh(x),
        layers.softmax(x),
        layers.softmax(x, axis=1),
        layers.concat([x, x * 2], axis=2),
        layers.fill_constant(shape=[2, 2], dtype="float32", value=1.5),
        layers.elementwise_add(x, x),
        layers.elementwise_sub(x, y, axis=1),
        layers.elementwise_mul(x, paddle.ones([2]), axis=0, act="tanh"),
        layers.elementwise_div(x, y, axis=1),
        layers.reduce_sum(x),
        layers.reduce_sum(x, dim=1, keep_dim=True),
        layers.reduce_mean(x, dim=[0, 2]),
        layers.reduce_max(x, dim=-1),
        layers.reduce_min(x, dim=0),
        layers.mean(x),
        layers.matmul(x, x, transpose_y=True, alpha=0.5),
        layers.transpose(x, perm=[2, 0, 1]),
        layers.cast(x, "int32"),
        layers.argmax(x),
        layers.zeros([2, 3], "int64"),
        layers.ones(shape=[3], dtype="float32"),
    ]


y3 = yn.reshape(1, 3, 1)
want = [
    xn.reshape(3, 4), np.maximum(xn.reshape(3, 4), 0), np.maximum(xn, 0), 1 / (1 + np.exp(-xn)),
    np.tanh(xn), np.exp(xn) / np.exp(xn).sum(-1, keepdims=True),
    np.exp(xn) / np.exp(xn).sum(1, keepdims=True), np.concatenate([xn, xn * 2], 2),
    np.full((2, 2), 1.5, "float32"), xn + xn, xn - y3, np.tanh(xn), xn / y3, xn.sum(),
    xn.sum(1, keepdims=True), xn.mean((0, 2)), xn.max(-1), xn.min(0), xn.mean(),
    0.5 * np.matmul(xn, xn.transpose(0, 2, 1)), xn.transpose(2, 0, 1), xn.astype("int32"),
    xn.argmax(0), np.zeros((2, 3), "int64"), np.ones(3, "float32"),
]
for got, w in zip(all_layers(x, y), want):
    close(got, w.astype(got.numpy().dtype) if isinstance(w, np.ndarray) else np.array(w))
for got, w in zip(paddle.jit.to_static(all_layers)(x, y), want):
    close(got, np.asarray(w).astype(got.numpy().dtype))

# fluid.initializer's 1.x keywords
lin = fluid.Linear(3, 2, param_attr=fluid.ParamAttr(
    initializer=fluid.initializer.ConstantInitializer(value=0.25)),
    bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5)), act="softmax")
close(lin.weight, np.full((3, 2), 0.25, "float32"))
close(lin(paddle.ones([1, 3])), np.full((1, 2), 0.5, "float32"))
w = fluid.initializer.NormalInitializer(loc=1.0, scale=0.0)
assert isinstance(w, paddle.nn.initializer.Normal)
try:
    layers.relu(x, act="relu")
    raise AssertionError("expected a TypeError")
except TypeError as e:
    assert "act" in str(e), str(e)
try:
    layers.elementwise_add(x, y, axis=3)
    raise AssertionError("expected a ValueError")
except ValueError as e:
    assert "axis 3" in str(e), str(e)


# TracedLayer.save_inference_model with Paddle 1.8's dirname keyword
class Proj(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = fluid.dygraph.Linear(2, 3, act="relu")

    def forward(self, v):
        return layers.reduce_sum(self.fc(v), dim=1)


proj = Proj()
vn = np.array([[1.0, -2.0], [0.5, 0.25]], "float32")
eager, traced = paddle.jit.TracedLayer.trace(proj, inputs=[paddle.to_tensor(vn)])
traced.save_inference_model(dirname="traced_dir", feed=[0], fetch=[0])
try:
    traced.save_inference_model()
    raise AssertionError("expected a TypeError")
except TypeError as e:
    assert "path or dirname" in str(e), str(e)

# static mode through the 1.x switches: fluid.layers.data, fc, paddle.Executor
fluid.disable_imperative()
assert not paddle.in_dynamic_mode()
exe = paddle.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model("traced_dir", exe)
(got,) = exe.run(prog, feed={feeds[0]: vn}, fetch_list=fetches)
close(got, eager)
main = paddle.static.Program()
with paddle.static.program_guard(main, paddle.static.Program()):
    d = layers.data(name="d", shape=[3], dtype="float32")
    assert list(d.shape) == [-1, 3], d.shape
    h = layers.fc(input=d, size=2, param_attr=fluid.ParamAttr(
        initializer=fluid.initializer.Constant(0.5)), act="relu")
    s = layers.reduce_sum(layers.elementwise_mul(h, h), dim=1)
(out,) = exe.run(main, feed={"d": np.ones((2, 3), "float32")}, fetch_list=[s])
close(out, np.full(2, 4.5, "float32"))
fluid.enable_imperative()
assert paddle.in_dynamic_mode()
print("selfcheck OK")
