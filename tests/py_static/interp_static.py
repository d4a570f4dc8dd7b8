# interpolate in Programs whose spatial sizes are dynamic (index and weight tensors computed at run
# time), saved with InputSpec [None, C, None, None] and run on two sizes.
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
        self.conv = nn.Conv2D(2, 2, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        a = F.interpolate(y, scale_factor=2, mode="bilinear")
        b = F.interpolate(y, scale_factor=2, mode="nearest")
        c = F.interpolate(y, size=[5, 3], mode="bilinear", align_corners=True)
        d = F.interpolate(y, size=[4, 6], mode="bilinear", align_mode=1)
        e = F.interpolate(y, scale_factor=[1.5, 0.5], mode="nearest")
        f = F.interpolate(y, size=[y.shape[2] * 2, y.shape[3] + 1], mode="bilinear")
        g = F.interpolate(y, size=[3, y.shape[3] * 2], mode="nearest")
        return a, b, c, d, e, f, g


rs = np.random.RandomState(0)
net = Net()
net.conv.weight.set_value(rs.rand(2, 2, 3, 3).astype("float32") - 0.5)
net.conv.bias.set_value(rs.rand(2).astype("float32"))
paddle.jit.enable_to_static(True)
paddle.jit.save(net, "interp_net", input_spec=[InputSpec([None, 2, None, None], "float32", "x")])
loaded = paddle.jit.load("interp_net")
for shape in [(1, 2, 3, 4), (2, 2, 5, 2)]:
    x = paddle.to_tensor(rs.rand(*shape).astype("float32"))
    for i, v in enumerate(loaded(x)):
        show("%s out%d" % (list(shape), i), v)
