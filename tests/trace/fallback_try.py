# Fallback: forward() uses try/except, which to_static cannot convert; dy2st traces it instead
# (once per input signature) and freezes its data-dependent branch. Both calls take the branch
# seen while tracing, so the outputs equal Paddle's eager ones.
import numpy as np
import paddle

try:
    import _jst  # noqa: F401  (only under dy2st)
    DY2ST = True
except ImportError:
    DY2ST = False


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)
        self.fc.weight.set_value(np.linspace(-1, 1, 12).astype("float32").reshape(4, 3))
        self.fc.bias.set_value(np.array([0.1, -0.2, 0.3], dtype="float32"))

    @paddle.jit.to_static
    def forward(self, x):
        try:
            y = self.fc(x)
        except ValueError:
            y = x[:, :3]
        if paddle.mean(y) > -5.0:
            y = y + 1.0
        return paddle.tanh(y) * 2.0


net = Net()
net.eval()
x1 = paddle.to_tensor(np.linspace(0, 1, 8).astype("float32").reshape(2, 4))
x2 = paddle.to_tensor(np.linspace(-2, 1, 8).astype("float32").reshape(2, 4))
show("call1", net(x1))
show("call2", net(x2))
if DY2ST:
    spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
    paddle.jit.save(net, "net_saved", input_spec=spec)
    loaded = paddle.jit.load("net_saved")
    show("loaded1", loaded(x1))
    show("loaded2", loaded(x2))
else:
    show("loaded1", net(x1))
    show("loaded2", net(x2))
