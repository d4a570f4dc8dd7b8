# Python values taken out of traced tensors become constants of the traced Program: each place
# warns once. Traced and run on the same input, the outputs equal Paddle's eager ones.
import numpy as np
import paddle

try:
    import _jst  # noqa: F401  (only under dy2st)
    DY2ST = True
except ImportError:
    DY2ST = False


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(np.asarray(t).astype("float64"), 4) + 0.0).tolist())


class Freezer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)
        self.fc.weight.set_value(np.linspace(-1.0, 1.0, 16).astype("float32").reshape(4, 4))
        self.fc.bias.set_value(np.linspace(0.0, 0.3, 4).astype("float32"))

    def forward(self, x):
        y = self.fc(x)
        n = x.shape[0]
        scale = float(y.max())
        k = int(y.argmax())
        m = y.mean().item()
        base = paddle.to_tensor(y.numpy())
        flat = paddle.reshape(y, [n, -1])
        for _ in range(2):
            flat = flat + 1.0
        return flat / scale + k + m - base


net = Freezer()
net.eval()
x = paddle.to_tensor(np.linspace(-1, 2, 8).astype("float32").reshape(2, 4))
if DY2ST:
    out, traced = paddle.jit.TracedLayer.trace(net, inputs=[x])
    show("traced", traced([x])[0])
    show("eager", out.numpy())
else:
    show("traced", net(x).numpy())
    show("eager", net(x).numpy())
