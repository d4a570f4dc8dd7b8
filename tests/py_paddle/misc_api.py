# no_grad, dtypes, initializers, ParamAttr, state_dict loading rules, container details.
import numpy as np
import paddle
import paddle.nn as nn


x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
y = x * 2
print(y.stop_gradient)
with paddle.no_grad():
    z = x * 2
print(z.stop_gradient)


@paddle.no_grad()
def doubled(t):
    return t * 2


print(doubled(x).stop_gradient, doubled(x).numpy().tolist())
print(paddle.get_device(), paddle.in_dynamic_mode())
print(str(paddle.float32), str(paddle.int64), str(paddle.bool))
print(paddle.to_tensor([1]).dtype == paddle.int64, paddle.float32 == paddle.float64)

lin = nn.Linear(3, 2, weight_attr=paddle.ParamAttr(trainable=False,
                                                   initializer=nn.initializer.Constant(0.5)),
                bias_attr=paddle.ParamAttr(initializer=nn.initializer.Constant(-1.0)))
print(lin.weight.stop_gradient, lin.bias.stop_gradient, lin.weight.numpy().tolist(),
      lin.bias.numpy().tolist())
w = np.arange(6, dtype="float32").reshape(2, 3)
conv = nn.Conv2D(1, 2, [1, 3], weight_attr=paddle.ParamAttr(
    initializer=nn.initializer.Assign(w.reshape(2, 1, 1, 3))))
print(conv.weight.shape, conv.weight.numpy().reshape(2, 3).tolist(), conv.bias.numpy().tolist())
k = nn.Linear(64, 32, weight_attr=nn.initializer.KaimingNormal())
print(k.weight.shape, abs(float(k.weight.numpy().std()) - (2.0 / 64) ** 0.5) < 0.03)
xu = nn.Linear(100, 50)
lim = (6.0 / 150) ** 0.5
print(bool((xu.weight.abs() <= lim).all()), float(xu.weight.abs().max()) > lim * 0.9)
print(xu.bias.numpy().sum())


class Holder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.register_buffer("persist", paddle.ones([2]))
        self.register_buffer("scratch", paddle.zeros([2]), persistable=False)


h = Holder()
print(list(h.state_dict().keys()), [n for n, _ in h.named_buffers()])
print(list(h.state_dict(structured_name_prefix="model.").keys()))
sd = {"fc.weight": np.ones((2, 2), dtype="float32"), "fc.bias": np.ones((3,), dtype="float32"),
      "extra": np.zeros(1, dtype="float32")}
missing, unexpected = h.set_state_dict(sd)
print(missing, unexpected, h.fc.weight.numpy().tolist())
print(len(h.sublayers()), len(h.sublayers(include_self=True)))

seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
print(len(seq[1:]), type(seq[-1]).__name__, [n for n, _ in seq.named_sublayers()])
ll = nn.LayerList([nn.Linear(1, 1)])
ll.extend([nn.ReLU(), nn.Tanh()])
ll.insert(1, nn.Sigmoid())
ll[0] = nn.GELU()
print([type(l).__name__ for l in ll], len(ll))
shared = nn.Linear(1, 1)


class Twice(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = shared
        self.b = shared


t = Twice()
print(len(t.parameters()), [n for n, _ in t.named_parameters()], len(list(t.children())))
visited = []
seq.apply(lambda layer: visited.append(type(layer).__name__))
print(visited)
print(seq.to("cpu") is seq)
e = paddle.to_tensor(np.array([[1.0, 2.0]], dtype="float64"))
print(e.dtype, paddle.to_tensor(e, dtype="float32").dtype, e.astype(paddle.float32).dtype)
bn = nn.BatchNorm1D(3)
xb = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
print(bn(xb).numpy().round(3).tolist())
print(bn._mean.numpy().round(3).tolist(), bn._variance.numpy().round(3).tolist())
bn.eval()
print(bn(xb).numpy().round(3).tolist())
