# A branch that depends on data. Traced on a positive input and run on a negative one, the
# TracedLayer keeps the branch seen while tracing (and warns where it was frozen); the same
# model under to_static takes the right branch on both inputs. The printed values are Paddle's
# eager and to_static outputs; the dy2st-only part checks the frozen behaviour against them.
import numpy as np
import paddle

try:
    import _jst  # noqa: F401  (only under dy2st)
    DY2ST = True
except ImportError:
    DY2ST = False


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


class Gate(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.fc.weight.set_value(np.linspace(-0.5, 1.0, 9).astype("float32").reshape(3, 3))
        self.fc.bias.set_value(np.zeros([3], dtype="float32"))

    def forward(self, x):
        y = self.fc(x)
        if y.mean() > 0:
            out = y * 2.0
        else:
            out = y - 1.0
        return out


net = Gate()
net.eval()
pos = paddle.to_tensor(np.array([[1.0, 2.0, 3.0]], dtype="float32"))
neg = paddle.to_tensor(np.array([[-1.0, -2.0, -3.0]], dtype="float32"))
show("eager pos", net(pos))
show("eager neg", net(neg))
static = paddle.jit.to_static(Gate())
show("static pos", static(pos))
show("static neg", static(neg))

if DY2ST:
    out, traced = paddle.jit.TracedLayer.trace(net, inputs=[pos])
    on_pos = traced([pos])[0]
    on_neg = traced([neg])[0]
    assert np.allclose(out.numpy(), net(pos).numpy())
    assert np.allclose(on_pos, net(pos).numpy())
    # frozen: the branch taken for `pos` (y * 2) also on `neg`
    assert np.allclose(on_neg, (net.fc(neg) * 2.0).numpy()), on_neg
    assert not np.allclose(on_neg, net(neg).numpy())
    assert np.allclose(static(neg).numpy(), net(neg).numpy())
