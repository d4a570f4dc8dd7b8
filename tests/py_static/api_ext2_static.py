# to_static: the attention, loss, spatial-sampling and tensor functions written over registry ops
# (MultiHeadAttention with a mask, ctc/triplet/cosine-embedding losses, affine_grid + grid_sample,
# cdist, diagonal_scatter, i0e, gather_tree) inside converted code with a tensor `if`, and a
# layer using attention and spatial sampling under an InputSpec.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec


def show(name, t):
    if isinstance(t, (tuple, list)):
        for i, e in enumerate(t):
            show("%s[%d]" % (name, i), e)
        return
    a = t.numpy()
    if a.dtype == np.bool_ or a.dtype.kind in "iu":
        print(name, t.dtype, t.shape, a.tolist())
    else:
        print(name, t.dtype, t.shape, (np.round(a.astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def losses(x, y, z, logits, labels, in_len, lab_len):
    a = F.triplet_margin_loss(x, y, z, margin=0.5)
    b = F.cosine_embedding_loss(x, y, paddle.to_tensor([1, -1, 1]))
    c = F.ctc_loss(logits, labels, in_len, lab_len, reduction="none")
    if paddle.mean(c) > 3.0:
        c = c / 2
    return a, b, c


@paddle.jit.to_static
def tensor_fns(x, y):
    d = paddle.cdist(x, y)
    s = paddle.diagonal_scatter(x, paddle.to_tensor([9.0, 8.0, 7.0]))
    e = paddle.i0e(x * 10)
    if paddle.sum(d) > 0:
        e = e + 1
    return d, s, e


@paddle.jit.to_static(input_spec=[InputSpec([None, 2, 4], "float32"), InputSpec([2, 2], "int32"),
                                  InputSpec([2], "int64"), InputSpec([2], "int64")])
def ctc_dynamic_time(logits, labels, in_len, lab_len):
    # the time dim is dynamic in the spec: dy2st specialises on the call's shapes
    return F.ctc_loss(logits, labels, in_len, lab_len, reduction="none")


@paddle.jit.to_static
def beams(ids, parents):
    return F.gather_tree(ids, parents)


class Warp(nn.Layer):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiHeadAttention(4, 2)
        self.loc = nn.Linear(4, 6)

    @paddle.jit.to_static(input_spec=[InputSpec([2, 3, 4], "float32", "x"),
                                      InputSpec([2, 1, 3, 3], "float32", "img")])
    def forward(self, x, img):
        mask = paddle.tril(paddle.ones([3, 3], "float32"))
        h = self.attn(x, attn_mask=paddle.cast(mask, "bool"))
        theta = paddle.reshape(paddle.tanh(self.loc(paddle.mean(h, axis=1))), [2, 2, 3])
        grid = F.affine_grid(theta, [2, 1, 4, 4], align_corners=False)
        return h, F.grid_sample(img, grid, align_corners=False)


rng = np.random.RandomState(4)
x = paddle.to_tensor(rng.randn(3, 4).astype("float32"))
y = paddle.to_tensor(rng.randn(3, 4).astype("float32"))
z = paddle.to_tensor(rng.randn(3, 4).astype("float32"))
logits = paddle.to_tensor(rng.randn(5, 2, 4).astype("float32"))
labels = paddle.to_tensor(np.array([[1, 2], [3, 0]], "int32"))
show("losses", losses(x, y, z, logits, labels, paddle.to_tensor([5, 4], dtype="int64"),
                      paddle.to_tensor([2, 1], dtype="int64")))
show("ctc_dynamic_time", ctc_dynamic_time(logits, labels, paddle.to_tensor([5, 3], dtype="int64"),
                                          paddle.to_tensor([2, 1], dtype="int64")))
show("tensor_fns", tensor_fns(x, paddle.to_tensor(rng.randn(2, 4).astype("float32"))))
show("beams", beams(paddle.to_tensor([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]]),
                    paddle.to_tensor([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])))
net = Warp()
for p in net.parameters():
    p.set_value(paddle.to_tensor(rng.uniform(-0.5, 0.5, p.shape).astype("float32")))
xs = paddle.to_tensor(rng.randn(2, 3, 4).astype("float32"))
img = paddle.to_tensor(rng.rand(2, 1, 3, 3).astype("float32"))
show("warp", net(xs, img))
show("warp rows", net(xs * 2, img[::-1]))
