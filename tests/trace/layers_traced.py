# Convolution, normalisation, padding and interpolation layers traced: the traced Program run
# on the same input gives Paddle's eager outputs.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

try:
    import _jst  # noqa: F401  (only under dy2st)
    DY2ST = True
except ImportError:
    DY2ST = False


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(np.asarray(t).astype("float64"), 4) + 0.0).tolist())


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.up = nn.Conv2DTranspose(3, 4, 2, stride=2)
        self.gn = nn.GroupNorm(2, 4)
        self.pad = nn.Pad2D(1, mode="replicate")
        self.c1 = nn.Conv1D(4, 2, 3, padding=1)
        self.c3 = nn.Conv3D(1, 2, 2)
        self.lrn = nn.LocalResponseNorm(3)

    def forward(self, x):
        y = self.lrn(self.gn(self.up(x)))                        # [N, 4, 8, 8]
        y = F.interpolate(self.pad(y), size=[5, 5], mode="bilinear")
        z = self.c1(paddle.mean(y, axis=3))                      # [N, 2, 5]
        v = self.c3(paddle.unsqueeze(y[:, :2], [1]))             # [N, 2, 1, 4, 4]
        return z, F.adaptive_avg_pool3d(v, 1), F.pixel_shuffle(y[:, :4, :4, :4], 2)


paddle.seed(2)
net = Net()
sd = net.state_dict()
rs = np.random.RandomState(7)
net.set_state_dict({k: rs.uniform(0.1, 0.9, sd[k].shape).astype("float32") for k in sorted(sd)})
x = paddle.to_tensor(rs.rand(2, 3, 4, 4).astype("float32") - 0.5)
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
