# Recurrent layers traced: the time loop is recorded step by step; the traced Program run on the
# same input gives Paddle's eager outputs.
import numpy as np
import paddle

try:
    import _jst  # noqa: F401  (only under dy2st)
    DY2ST = True
except ImportError:
    DY2ST = False


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(np.asarray(t).astype("float64"), 4) + 0.0).tolist())


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lstm = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirect")
        self.gru = paddle.nn.RNN(paddle.nn.GRUCell(8, 2), is_reverse=True)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        z, s = self.gru(y)
        return z, h, s


paddle.seed(5)
net = Net()
sd = net.state_dict()
rs = np.random.RandomState(4)
net.set_state_dict({k: rs.uniform(-0.5, 0.5, sd[k].shape).astype("float32") for k in sorted(sd)})
x = paddle.to_tensor(rs.rand(2, 5, 3).astype("float32") - 0.5)
if DY2ST:
    outs, traced = paddle.jit.TracedLayer.trace(net, inputs=[x])
    for i, v in enumerate(traced([x])):
        show("traced%d" % i, v)
    for i, v in enumerate(outs):
        show("eager%d" % i, v.numpy())
else:
    for name in ("traced", "eager"):
        for i, v in enumerate(net(x)):
            show(name + "%d" % i, v.numpy())
