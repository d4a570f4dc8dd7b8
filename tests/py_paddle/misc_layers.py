# Channel and alpha dropout, sequence_mask, max unpooling, temporal_shift and SpectralNorm.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def show(name, t):
    print(name, t.shape, str(t.dtype), (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


rs = np.random.RandomState(3)
print(F.sequence_mask(paddle.to_tensor([2, 0, 3]), dtype="float32").numpy().tolist())
show("sequence_mask", F.sequence_mask(paddle.to_tensor([[1], [3]]), 4))
show("sequence_mask int32", F.sequence_mask(paddle.to_tensor(np.array([1, 2], "int32")), 3,
                                            dtype="bool"))
x4 = paddle.to_tensor(rs.rand(2, 3, 4, 4).astype("float32"))
print(nn.Dropout2D(0.3), nn.Dropout3D(), nn.AlphaDropout(0.2))
for layer, inp in [(nn.Dropout2D(0.3), x4), (nn.Dropout3D(0.5), paddle.unsqueeze(x4, [2])),
                   (nn.AlphaDropout(0.4), x4)]:
    layer.eval()
    show(type(layer).__name__ + " eval", layer(inp))
show("dropout2d p0", F.dropout2d(x4, 0.0))
show("dropout2d p1", F.dropout2d(x4, 1.0))
show("alpha_dropout p1", F.alpha_dropout(x4, 1.0))
show("alpha_dropout eval", F.alpha_dropout(x4, 0.5, training=False))
pooled, idx = F.max_pool2d(x4, 2, return_mask=True)
show("max_unpool2d", F.max_unpool2d(pooled, idx, 2))
show("max_unpool2d output_size", F.max_unpool2d(pooled, idx, 2, output_size=[5, 5]))
print(nn.MaxUnPool2D(2), nn.MaxUnPool1D(2, 1, output_size=[5]))
show("MaxUnPool2D", nn.MaxUnPool2D(2)(pooled, idx))
x3 = paddle.to_tensor(rs.rand(2, 3, 6).astype("float32"))
p1, i1 = F.max_pool1d(x3, 2, return_mask=True)
show("max_unpool1d", F.max_unpool1d(p1, i1, 2))
show("MaxUnPool1D", nn.MaxUnPool1D(2)(p1, i1))
xt = paddle.to_tensor(np.arange(2 * 4 * 4 * 2 * 2).reshape(8, 4, 2, 2).astype("float32"))
show("temporal_shift", F.temporal_shift(xt, 4))
show("temporal_shift 0.4", F.temporal_shift(xt, 2, 0.4))
show("temporal_shift nhwc", F.temporal_shift(paddle.transpose(xt, [0, 2, 3, 1]), 4, 0.25,
                                             data_format="NHWC"))
sn = nn.SpectralNorm([3, 4], dim=1, power_iters=2)
sn.weight_u.set_value(rs.rand(4).astype("float32"))
sn.weight_v.set_value(rs.rand(3).astype("float32"))
print(sn, [(n, p.shape, p.stop_gradient) for n, p in sn.named_parameters()])
show("SpectralNorm", sn(paddle.to_tensor(rs.rand(3, 4).astype("float32"))))
sn2 = nn.SpectralNorm([2, 3, 2], dim=0)
sn2.weight_u.set_value(rs.rand(2).astype("float32"))
sn2.weight_v.set_value(rs.rand(6).astype("float32"))
show("SpectralNorm 3d", sn2(paddle.to_tensor(rs.rand(2, 3, 2).astype("float32"))))
sn3 = nn.SpectralNorm([2, 3, 2], dim=2, power_iters=3, eps=1e-3)
sn3.weight_u.set_value(rs.rand(2).astype("float32"))
sn3.weight_v.set_value(rs.rand(6).astype("float32"))
try:
    sn3(paddle.to_tensor(rs.rand(2, 3, 2).astype("float32")))
except ValueError:
    print("SpectralNorm dim2: ValueError")
