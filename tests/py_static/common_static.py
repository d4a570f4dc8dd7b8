# Padding, interpolation, shuffles, unfold/fold, 1-D pooling and distances under to_static, saved.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.pad = nn.Pad2D([1, 1, 0, 1], mode="reflect")
        self.up = nn.Upsample(scale_factor=2, mode="bilinear")
        self.shuffle = nn.PixelShuffle(2)
        self.unshuffle = nn.PixelUnshuffle(2)
        self.cs = nn.ChannelShuffle(2)
        self.pool = nn.AvgPool1D(2)
        self.unfold = nn.Unfold([2, 2], strides=2)
        self.cos = nn.CosineSimilarity(axis=1)
        self.flat = nn.Unflatten(1, [4, 8])
        self.ident = nn.Identity()

    def forward(self, x):
        y = self.pad(x)                                   # [N, 4, 5, 6]
        y = self.up(y)                                    # [N, 4, 10, 12]
        if paddle.mean(y) > 0.5:
            y = F.interpolate(y, size=[8, 8], mode="bicubic", align_corners=True)
        else:
            y = F.interpolate(y, size=[8, 8], mode="nearest")
        s = self.cs(self.unshuffle(self.shuffle(y)))      # [N, 4, 8, 8]
        cols = self.unfold(s)                             # [N, 16, 16]
        back = F.fold(cols, [8, 8], [2, 2], strides=2)
        p = self.pool(paddle.flatten(back, 2))            # [N, 4, 32]
        c = self.cos(p, F.pad(p[:, :, 1:], [0, 1], mode="circular", data_format="NCL"))
        return self.ident(self.flat(c)), F.max_pool1d(p, 4)


rs = np.random.RandomState(0)
x = paddle.to_tensor(rs.rand(2, 4, 4, 4).astype("float32"))
net = Net()
static = paddle.jit.to_static(net)
a, b = static(x)
show("static a", a)
show("static b", b)

paddle.jit.enable_to_static(True)
paddle.jit.save(net, "common_net", input_spec=[InputSpec([None, 4, 4, 4], "float32", "x")])
loaded = paddle.jit.load("common_net")
a, b = loaded(x)
show("loaded a", a)
show("loaded b", b)
