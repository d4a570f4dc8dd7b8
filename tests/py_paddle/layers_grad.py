# Gradients through the new layers eagerly: recurrent nets (with sequence lengths), transposed
# and 1-D/3-D convolutions, group/instance norm, padding and interpolation.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def show(name, t):
    print(name, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


def setw(layer, seed):
    rs = np.random.RandomState(seed)
    sd = layer.state_dict()
    layer.set_state_dict({k: rs.rand(*sd[k].shape).astype("float32") - 0.5 for k in sorted(sd)})


def grads(name, layer, *inputs, owner=None):
    xs = [paddle.to_tensor(v, stop_gradient=False) for v in inputs]
    out = layer(*xs)
    flat = out if isinstance(out, (list, tuple)) else [out]
    loss = 0
    for i, o in enumerate(flat):
        while isinstance(o, (list, tuple)):
            o = o[0]
        loss = loss + paddle.sum(o * o) * (i + 1)
    loss.backward()
    print(name, "loss", round(float(loss), 4))
    for i, x in enumerate(xs):
        show(name + " dx%d" % i, x.grad)
    for n, p in (owner or layer).named_parameters():
        if p.grad is not None:
            show(name + " d" + n, p.grad)


rs = np.random.RandomState(0)
seq = rs.rand(2, 4, 3).astype("float32") - 0.5

lstm = nn.LSTM(3, 2, direction="bidirect")
setw(lstm, 1)
grads("lstm", lstm, seq)
gru = nn.GRU(3, 2, num_layers=2)
setw(gru, 2)
grads("gru", lambda x: gru(x, sequence_length=paddle.to_tensor([4, 2])), seq, owner=gru)
cell = nn.SimpleRNNCell(3, 2)
setw(cell, 3)
grads("rnn", nn.RNN(cell, is_reverse=True), seq)

img = rs.rand(1, 2, 3, 3).astype("float32") - 0.5
ct = nn.Conv2DTranspose(2, 2, 3, stride=2, padding=1, output_padding=1)
setw(ct, 4)
grads("conv2d_transpose", ct, img)
c1 = nn.Conv1D(3, 2, 2, padding=1)
setw(c1, 5)
grads("conv1d", c1, np.transpose(seq, [0, 2, 1]))
c3 = nn.Conv3D(1, 2, 2)
setw(c3, 6)
grads("conv3d", c3, rs.rand(1, 1, 3, 3, 3).astype("float32"))
gn = nn.GroupNorm(2, 4)
setw(gn, 7)
grads("group_norm", gn, rs.rand(2, 4, 2, 3).astype("float32"))
inorm = nn.InstanceNorm2D(2)
setw(inorm, 8)
grads("instance_norm", inorm, img)
grads("pad_interp", lambda x: F.interpolate(F.pad(x, [1, 0, 0, 1], mode="reflect"),
                                            scale_factor=2, mode="bilinear"), img,
      owner=nn.Identity())
grads("unfold", lambda x: F.unfold(x, 2), img, owner=nn.Identity())
