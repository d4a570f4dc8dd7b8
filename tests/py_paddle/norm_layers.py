# Normalisation layers: GroupNorm, InstanceNorm1D/2D/3D, BatchNorm3D, SyncBatchNorm (built),
# LocalResponseNorm, and F.instance_norm / local_response_norm / normalize.
import numpy as np
import paddle
import paddle.nn.functional as F


def show(name, t):
    print(name, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


def setw(layer, seed):
    rs = np.random.RandomState(seed)
    sd = layer.state_dict()
    vals = {}
    for k in sorted(sd):
        v = rs.rand(*sd[k].shape).astype("float32")
        vals[k] = v + 0.5 if "variance" in k else v - 0.5
    layer.set_state_dict(vals)


rs = np.random.RandomState(0)
x4 = paddle.to_tensor(rs.rand(2, 6, 3, 4).astype("float32") * 2 - 1)
x3 = paddle.to_tensor(rs.rand(2, 6, 5).astype("float32") * 2 - 1)
x5 = paddle.to_tensor(rs.rand(2, 4, 2, 3, 2).astype("float32") * 2 - 1)

for layer, inp in [
        (paddle.nn.GroupNorm(3, 6), x4),
        (paddle.nn.GroupNorm(2, 6, epsilon=1e-3), x3),
        (paddle.nn.GroupNorm(6, 6, weight_attr=False, bias_attr=False), x4),
        (paddle.nn.GroupNorm(2, 6, data_format="NHWC"), paddle.transpose(x4, [0, 2, 3, 1])),
        (paddle.nn.InstanceNorm1D(6), x3),
        (paddle.nn.InstanceNorm2D(6, epsilon=1e-3), x4),
        (paddle.nn.InstanceNorm2D(6, weight_attr=False, bias_attr=False), x4),
        (paddle.nn.InstanceNorm3D(4), x5),
        (paddle.nn.BatchNorm3D(4), x5),
        (paddle.nn.LocalResponseNorm(3), x4),
        (paddle.nn.LocalResponseNorm(4, alpha=0.1, beta=0.5, k=2.0), x3),
        (paddle.nn.LocalResponseNorm(2, data_format="NHWC"), paddle.transpose(x4, [0, 2, 3, 1])),
        (paddle.nn.LocalResponseNorm(5), x5),
]:
    print(layer, sorted(layer.state_dict().keys()))
    setw(layer, 1)
    layer.eval()
    show(type(layer).__name__, layer(inp))

bn = paddle.nn.BatchNorm3D(4, momentum=0.5)
setw(bn, 2)
bn.train()
show("bn3d train", bn(x5))
show("bn3d running mean", bn._mean)
show("bn3d running var", bn._variance)
# SyncBatchNorm: Paddle runs it on GPUs only; its construction and conversion
print(paddle.nn.SyncBatchNorm(6), sorted(paddle.nn.SyncBatchNorm(6).state_dict().keys()))
model = paddle.nn.Sequential(paddle.nn.Conv2D(6, 6, 1), paddle.nn.BatchNorm2D(6))
setw(model, 4)
model = paddle.nn.SyncBatchNorm.convert_sync_batchnorm(model)
print(model)
print(sorted(model.state_dict().keys()))
show("converted weight", model[1].weight)
try:
    paddle.nn.GroupNorm(4, 6)(x4)
except ValueError as e:
    print("ValueError")

w = paddle.to_tensor(rs.rand(6).astype("float32"))
bb = paddle.to_tensor(rs.rand(6).astype("float32"))
show("F.instance_norm", F.instance_norm(x4, weight=w, bias=bb, eps=1e-4))
show("F.instance_norm nlc", F.instance_norm(paddle.transpose(x3, [0, 2, 1]), eps=1e-3,
                                            data_format="NLC"))
show("F.lrn", F.local_response_norm(x4, 3, alpha=0.01))
show("F.normalize", F.normalize(x3))
show("F.normalize p1 axis-1", F.normalize(x3, p=1, axis=-1))
show("F.normalize p3", F.normalize(x4, p=3, axis=2))
show("F.normalize eps", F.normalize(paddle.zeros([2, 3]), epsilon=0.5))
