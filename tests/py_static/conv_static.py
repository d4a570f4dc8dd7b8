# Transposed and 1-D convolutions under to_static, saved with a dynamic batch and size, and loaded.
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
        sd[key] = rng.uniform(-0.5, 0.5, size=value.shape).astype("float32")
    model.set_state_dict(sd)


class Decoder(nn.Layer):
    """Down with a strided conv, up with a transposed one, a 1-D conv over the rows."""

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2D(3, 4, 3, stride=2, padding=1)
        self.up = nn.Conv2DTranspose(4, 3, 3, stride=2, padding=1, output_padding=1)
        self.dw = nn.Conv2DTranspose(3, 3, 2, stride=2, groups=3)
        self.row = nn.Conv1D(3, 2, 3, padding=1)
        self.row_t = nn.Conv1DTranspose(2, 2, 2, stride=2)

    def forward(self, x):
        y = F.relu(self.down(x))
        y = self.up(y)
        if paddle.mean(y) > 0:
            y = y + x
        z = self.dw(y)
        r = self.row(paddle.mean(y, axis=2))
        return z, self.row_t(r)


rs = np.random.RandomState(0)
x = paddle.to_tensor(rs.rand(2, 3, 6, 8).astype("float32") - 0.5)
net = Decoder()
load_weights(net)
static = paddle.jit.to_static(net)
show("static z", static(x)[0])
show("static r", static(x)[1])

paddle.jit.enable_to_static(True)
paddle.jit.save(net, "conv_decoder", input_spec=[InputSpec([None, 3, None, None], "float32", "x")])
loaded = paddle.jit.load("conv_decoder")
z, r = loaded(x)
show("loaded z", z)
show("loaded r", r)
x2 = paddle.to_tensor(rs.rand(1, 3, 4, 10).astype("float32") - 0.5)
z, r = loaded(x2)
show("loaded other z", z)
show("loaded other r", r)
