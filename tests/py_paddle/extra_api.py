# paddle.round, paddle.norm / paddle.linalg.norm, paddle.nonzero and the
# one-argument paddle.where, dropout's axis argument, max_pool2d's return_mask
# and the paddle.nn.layer.* module paths.
import numpy as np
import paddle
import paddle.nn as nn


def show(t):
    """dtype, shape and values to 4 decimals (so float noise does not matter)"""
    v = t.numpy()
    print(t.dtype, t.shape, np.round(v.astype("float64"), 4).tolist() if v.dtype.kind == "f" else v.tolist())


# round: halves away from zero (not to even), negative zero kept
x = paddle.to_tensor([-2.5, -1.5, -0.5, -0.2, 0.0, 0.49999997, 0.5, 1.5, 2.5, 3.7])
show(paddle.round(x))
print([str(v) for v in paddle.round(x).numpy().tolist()[:4]])
show(x.round())
show(paddle.round(paddle.to_tensor([[0.5, -1.25], [7.5, -8.5]], dtype="float64")))
show(paddle.round(paddle.to_tensor(2.5)))


@paddle.jit.to_static
def rounded(t):
    return paddle.round(t * 3.0) + t.round()


show(rounded(paddle.to_tensor([0.5, -0.5, 1.16, -2.5])))

# norm: Paddle's vector norms, a matrix norm over two axes being the norm of
# the flattened matrix
a = paddle.arange(24, dtype="float32").reshape([2, 3, 4]) - 12
show(paddle.norm(a))
show(paddle.norm(a, p="fro", axis=[0, 1]))
show(paddle.linalg.norm(a, p=2, axis=-1))
show(paddle.linalg.norm(a, p=2, axis=(1, 2), keepdim=True))
show(paddle.linalg.norm(a, p=1, axis=[1]))
show(paddle.linalg.norm(a, p=3, axis=2))
show(paddle.linalg.norm(a, p=0.5, axis=0))
show(paddle.linalg.norm(a, p=0, axis=1))
show(paddle.linalg.norm(a, p=0))
show(paddle.linalg.norm(a, p=float("inf"), axis=[0, 2]))
show(paddle.linalg.norm(a, p=-float("inf"), axis=1, keepdim=True))
show(a.norm(p=3))
show(paddle.norm(paddle.to_tensor([3.0, -4.0], dtype="float64"), p=2))

# nonzero and the one-argument where
m = paddle.to_tensor([[1.0, 0.0, 2.0], [0.0, 0.0, -3.0]])
show(paddle.nonzero(m))
rows, cols = paddle.nonzero(m, as_tuple=True)
show(rows)
show(cols)
show(m.nonzero())
show(paddle.nonzero(paddle.to_tensor([True, False, True])))
show(paddle.nonzero(paddle.to_tensor([0, 0, 0])))
(idx,) = paddle.where(paddle.to_tensor([0.5, 1.5, 2.5, 0.0]) > 1)
show(idx)
print(len(paddle.where(m)))
try:
    paddle.where(m > 0, m)
except ValueError as e:
    print("ValueError")

# dropout's axis: one draw per index of the given axes, shared along the others
# (the values are random; what is printed is not)
ones = paddle.ones([4, 6])
for ax in [0, 1, [0, 1]]:
    v = paddle.nn.functional.dropout(ones, 0.5, axis=ax).numpy()
    print(ax, sorted(set(v.flatten().tolist()) | {0.0, 2.0}), (v == v[:1]).all() if ax == 1 else (v == v[:, :1]).all() if ax == 0 else "-")
d = nn.Dropout(0.5, axis=1)
v = d(ones).numpy()
print(bool((v == v[:1]).all()))
d.eval()
print(d(ones).numpy().sum())
print(paddle.nn.functional.dropout(ones, 0.25, axis=0, training=False, mode="downscale_in_infer").numpy()[0, 0])
for bad in [2, -1]:
    try:
        paddle.nn.functional.dropout(ones, 0.5, axis=bad)
    except ValueError:
        print("ValueError")

# max_pool2d's return_mask: flat indices of the window maxima in each input plane
# (the first of equal values; Paddle ignores ceil_mode when return_mask=True)
import paddle.nn.functional as F
np.random.seed(3)
px = paddle.to_tensor(np.random.rand(2, 3, 7, 6).astype("float32"))
for kw in [dict(kernel_size=2, stride=2), dict(kernel_size=3, stride=2, padding=1),
           dict(kernel_size=3, stride=2, ceil_mode=True),
           dict(kernel_size=[2, 3], stride=[1, 2], padding=[1, 0])]:
    out, mask = F.max_pool2d(px, return_mask=True, **kw)
    same = np.array_equal(out.numpy(), F.max_pool2d(px, **dict(kw, ceil_mode=False)).numpy())
    print(out.shape, mask.shape, mask.dtype, mask.numpy().sum(), same)
    print(mask.numpy()[1, 2].tolist())
o, mask = nn.MaxPool2D(2, 2, return_mask=True)(px)
print(o.shape, mask.shape, mask.numpy()[0, 0].tolist())
print(F.max_pool2d(paddle.ones([1, 1, 2, 2]), 2, return_mask=True)[1].numpy().tolist())

# the module paths Paddle defines its layers in
print(nn.layer.norm.BatchNorm is nn.BatchNorm, nn.layer.common.Linear is nn.Linear)
print(nn.layer.conv.Conv2D is nn.Conv2D, nn.layer.pooling.MaxPool2D is nn.MaxPool2D)
print(nn.layer.activation.ReLU is nn.ReLU, nn.layer.container.Sequential is nn.Sequential)
print(nn.layer.layers.Layer is nn.Layer, nn.layer.norm.LayerNorm is nn.LayerNorm)
from paddle.nn.layer.norm import BatchNorm2D
print(BatchNorm2D is nn.BatchNorm2D)
