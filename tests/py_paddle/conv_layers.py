# Convolutions beyond conv2d: conv2d_transpose, conv1d, conv3d (and transposed), their layers.
import numpy as np
import paddle
import paddle.nn.functional as F


def show(name, t):
    print(name, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


def setw(layer, seed):
    rs = np.random.RandomState(seed)
    sd = layer.state_dict()
    layer.set_state_dict({k: rs.rand(*sd[k].shape).astype("float32") - 0.5 for k in sorted(sd)})


rs = np.random.RandomState(0)
x = paddle.to_tensor(rs.rand(2, 4, 5, 4).astype("float32") - 0.5)
w = paddle.to_tensor(rs.rand(4, 3, 3, 2).astype("float32") - 0.5)
b = paddle.to_tensor(rs.rand(3).astype("float32"))

# ---- F.conv2d_transpose
show("ct", F.conv2d_transpose(x, w))
show("ct bias stride", F.conv2d_transpose(x, w, b, stride=2))
show("ct pad", F.conv2d_transpose(x, w, b, stride=2, padding=1, output_padding=1))
show("ct pad4", F.conv2d_transpose(x, w, stride=[2, 3], padding=[1, 0, 2, 1], dilation=2))
show("ct same", F.conv2d_transpose(x, w, stride=2, padding="SAME"))
show("ct valid", F.conv2d_transpose(x, w, stride=[1, 2], padding="VALID"))
show("ct output_size", F.conv2d_transpose(x, w, b, stride=2, output_size=[12, 9]))
wg = paddle.to_tensor(rs.rand(4, 2, 2, 2).astype("float32") - 0.5)
show("ct groups", F.conv2d_transpose(x, wg, stride=2, groups=2))
wd = paddle.to_tensor(rs.rand(4, 1, 3, 3).astype("float32") - 0.5)
show("ct depthwise", F.conv2d_transpose(x, wd, padding=1, groups=4))
xh = paddle.transpose(x, [0, 2, 3, 1])
show("ct nhwc", F.conv2d_transpose(xh, w, b, stride=2, data_format="NHWC"))

# ---- F.conv1d, F.conv1d_transpose
x1 = paddle.to_tensor(rs.rand(2, 4, 7).astype("float32") - 0.5)
w1 = paddle.to_tensor(rs.rand(6, 4, 3).astype("float32") - 0.5)
b1 = paddle.to_tensor(rs.rand(6).astype("float32"))
show("c1", F.conv1d(x1, w1))
show("c1 bias pad stride", F.conv1d(x1, w1, b1, stride=2, padding=1))
show("c1 pad2 dilation", F.conv1d(x1, w1, padding=[2, 1], dilation=2))
show("c1 same", F.conv1d(x1, w1, padding="same", stride=2))
w1g = paddle.to_tensor(rs.rand(6, 2, 3).astype("float32") - 0.5)
show("c1 groups", F.conv1d(x1, w1g, groups=2))
show("c1 nlc", F.conv1d(paddle.transpose(x1, [0, 2, 1]), w1, b1, data_format="NLC"))
wt1 = paddle.to_tensor(rs.rand(4, 5, 3).astype("float32") - 0.5)
show("ct1", F.conv1d_transpose(x1, wt1))
show("ct1 stride pad", F.conv1d_transpose(x1, wt1, stride=2, padding=1, output_padding=1))
show("ct1 output_size", F.conv1d_transpose(x1, wt1, stride=3, output_size=[22]))
show("ct1 nlc", F.conv1d_transpose(paddle.transpose(x1, [0, 2, 1]), wt1, stride=2,
                                   data_format="NLC"))

# ---- layers
paddle.seed(1)
for layer, inp in [
        (paddle.nn.Conv1D(4, 6, 3), x1),
        (paddle.nn.Conv1D(4, 6, 3, stride=2, padding=1, dilation=1, groups=2), x1),
        (paddle.nn.Conv1D(4, 4, 3, padding="same", groups=4, bias_attr=False), x1),
        (paddle.nn.Conv1D(4, 2, 2, data_format="NLC"), paddle.transpose(x1, [0, 2, 1])),
        (paddle.nn.Conv1DTranspose(4, 3, 3, stride=2, padding=1, output_padding=1), x1),
        (paddle.nn.Conv1DTranspose(4, 6, 2, groups=2, dilation=2), x1),
        (paddle.nn.Conv2DTranspose(4, 3, 3), x),
        (paddle.nn.Conv2DTranspose(4, 6, (3, 2), stride=2, padding=1, groups=2), x),
        (paddle.nn.Conv2DTranspose(4, 2, 2, stride=2, data_format="NHWC"), xh),
]:
    print(layer, [(n, p.shape) for n, p in layer.named_parameters()])
    setw(layer, 3)
    show(type(layer).__name__, layer(inp))
up = paddle.nn.Conv2DTranspose(4, 2, 3, stride=2, padding=1)
setw(up, 4)
show("output_size", up(x, output_size=[10, 8]))
up1 = paddle.nn.Conv1DTranspose(4, 2, 3, stride=2, padding=1)
setw(up1, 4)
show("output_size 1d", up1(x1, output_size=[14]))

# ---- 3-D convolutions
rs = np.random.RandomState(5)
x5 = paddle.to_tensor(rs.rand(2, 4, 4, 5, 3).astype("float32") - 0.5)
w3 = paddle.to_tensor(rs.rand(6, 4, 2, 3, 2).astype("float32") - 0.5)
wg3 = paddle.to_tensor(rs.rand(6, 2, 3, 2, 2).astype("float32") - 0.5)
b3 = paddle.to_tensor(rs.rand(6).astype("float32"))
show("c3", F.conv3d(x5, w3))
show("c3 b s p", F.conv3d(x5, w3, b3, stride=2, padding=1))
show("c3 pad6 dil", F.conv3d(x5, w3, padding=[1, 0, 2, 1, 0, 1], dilation=[2, 1, 1],
                            stride=[1, 2, 1]))
show("c3 same", F.conv3d(x5, w3, padding="SAME", stride=2))
show("c3 groups", F.conv3d(x5, wg3, groups=2, padding=[1, 1, 1]))
show("c3 ndhwc", F.conv3d(paddle.transpose(x5, [0, 2, 3, 4, 1]), w3, b3, data_format="NDHWC"))
wt = paddle.to_tensor(rs.rand(4, 3, 2, 3, 2).astype("float32") - 0.5)
wtg = paddle.to_tensor(rs.rand(4, 2, 3, 2, 2).astype("float32") - 0.5)
show("ct3", F.conv3d_transpose(x5, wt))
show("ct3 s", F.conv3d_transpose(x5, wt, stride=2))
show("ct3 s p op", F.conv3d_transpose(x5, wt, stride=[2, 3, 2], padding=1,
                                      output_padding=[1, 0, 1]))
show("ct3 dil", F.conv3d_transpose(x5, wt, stride=2, dilation=[2, 1, 2],
                                   padding=[1, 0, 0, 1, 1, 0]))
show("ct3 groups", F.conv3d_transpose(x5, wtg, paddle.to_tensor([1.0, 2.0, 3.0, 4.0]), stride=2,
                                      groups=2))
show("ct3 same", F.conv3d_transpose(x5, wt, stride=2, padding="SAME"))
show("ct3 output_size", F.conv3d_transpose(x5, wt, stride=2, output_size=[9, 11, 7]))
show("ct3 ndhwc", F.conv3d_transpose(paddle.transpose(x5, [0, 2, 3, 4, 1]), wt, stride=2,
                                     data_format="NDHWC"))
paddle.seed(3)
for layer in [paddle.nn.Conv3D(4, 2, 3, padding=1),
              paddle.nn.Conv3D(4, 4, [1, 2, 2], stride=2, groups=4),
              paddle.nn.Conv3DTranspose(4, 2, 2, stride=2),
              paddle.nn.Conv3DTranspose(4, 2, 3, padding=1, output_padding=1, stride=2)]:
    sd = layer.state_dict()
    layer.set_state_dict({k: rs.rand(*sd[k].shape).astype("float32") - 0.5 for k in sorted(sd)})
    print(layer, [(n, p.shape) for n, p in layer.named_parameters()])
    show(type(layer).__name__, layer(x5))
