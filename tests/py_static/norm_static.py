# Group, instance and local response normalisation, BatchNorm3D and normalize under to_static, saved.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


def load_weights(model):
    sd = {}
    for key, value in model.state_dict().items():
        seed = 0
        for ch in key:
            seed = (seed * 31 + ord(ch)) % 2147483647
        rng = np.random.RandomState(seed)
        sd[key] = rng.uniform(0.5, 1.5, size=value.shape).astype("float32")
    model.set_state_dict(sd)


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 6, 3, padding=1)
        self.gn = nn.GroupNorm(3, 6)
        self.inorm = nn.InstanceNorm2D(6)
        self.lrn = nn.LocalResponseNorm(3, alpha=0.05)
        self.bn = nn.BatchNorm3D(2)

    def forward(self, x):
        y = self.gn(self.conv(x))
        if paddle.max(y) > 1.0:
            y = self.inorm(y)
        y = self.lrn(F.relu(y))
        z = self.bn(paddle.reshape(y, [0, 2, 3, 4, 5]))
        return F.normalize(paddle.flatten(z, 1), axis=1)


rs = np.random.RandomState(0)
x = paddle.to_tensor(rs.rand(2, 3, 4, 5).astype("float32") - 0.5)
net = Net()
load_weights(net)
net.eval()
static = paddle.jit.to_static(net)
show("static", static(x))

paddle.jit.enable_to_static(True)
paddle.jit.save(net, "norm_net", input_spec=[InputSpec([None, 3, 4, 5], "float32", "x")])
loaded = paddle.jit.load("norm_net")
show("loaded", loaded(x))
