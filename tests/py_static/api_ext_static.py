# to_static: activations, scans, sorting, gathers/scatters, and composites in converted code.
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
def acts(x):
    a = F.elu(x) + F.selu(x) + F.celu(x, 0.5)
    b = F.softplus(x, beta=2.0) * F.mish(x) - F.log_sigmoid(x)
    c = F.hardswish(x) + F.hardsigmoid(x) + F.hardtanh(x) + F.softshrink(x) + F.tanhshrink(x)
    if paddle.mean(a) > 0:
        c = c + F.swish(x)
    else:
        c = c - F.thresholded_relu(x, 0.2)
    return a, b, c


@paddle.jit.to_static
def math_fns(x):
    y = paddle.erf(x) + paddle.expm1(x) + paddle.atan(x) + paddle.sinh(x) + paddle.trunc(x * 3)
    z = paddle.lgamma(paddle.abs(x) + 1.0) + paddle.digamma(paddle.abs(x) + 1.0)
    finite = paddle.isfinite(paddle.log(x))
    return y, z, finite


@paddle.jit.to_static
def scans(x):
    s = paddle.cumsum(x, axis=1)
    m, mi = paddle.cummax(x, axis=0)
    v, i = paddle.topk(x, 2)
    srt = paddle.sort(x, axis=0, descending=True)
    arg = paddle.argsort(x)
    lse = paddle.logsumexp(x, axis=1)
    return s, m, mi, v, i, srt, arg, lse


@paddle.jit.to_static
def index_ops(x, idx):
    g = paddle.gather_nd(x, idx)
    t = paddle.take_along_axis(x, paddle.argsort(x, axis=1), 1)
    p = paddle.put_along_axis(x, paddle.to_tensor([[0], [1], [2]]), paddle.zeros([3, 1]), 1)
    sc = paddle.scatter(x, paddle.to_tensor([0, 2]), paddle.ones([2, 4]))
    tr = paddle.tril(x) + paddle.triu(x, 1) * 2
    r = paddle.roll(x, 1, axis=1)
    mf = paddle.masked_fill(x, x < 0, 0.0)
    return g, t, p, sc, tr, r, mf


@paddle.jit.to_static
def composites(x, y):
    e = paddle.einsum("ij,kj->ik", x, y)
    gx, gy = paddle.meshgrid(paddle.arange(3), paddle.arange(2))
    rep = paddle.repeat_interleave(x, 2, axis=0)
    k = paddle.kron(x[:2, :2], paddle.ones([2, 2]))
    o = paddle.outer(x[0], y[0])
    d = paddle.diagonal(x) + paddle.trace(x)
    parts = paddle.chunk(x, 2, axis=1)
    return e, gx, gy, rep, k, o, d, parts[0] - parts[1]


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.act1 = nn.Hardswish()
        self.fc2 = nn.Linear(6, 4)
        self.act2 = nn.PReLU(4, 0.2)
        self.act3 = nn.Mish()
        self.glu = nn.GLU()

    @paddle.jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def forward(self, x):
        h = self.act1(self.fc1(x))
        h = self.act2(self.fc2(h))
        return self.glu(self.act3(h))


rng = np.random.RandomState(21)
x = paddle.to_tensor(rng.randn(3, 4).astype("float32"))
y = paddle.to_tensor(rng.randn(2, 4).astype("float32"))
show("acts", acts(x))
show("acts_neg", acts(-x - 1))
show("math_fns", math_fns(x))
show("scans", scans(x))
show("index_ops", index_ops(x, paddle.to_tensor([[0, 1], [2, 3]])))
show("composites", composites(x, y))
paddle.seed(5)
net = Net()
for p in net.parameters():
    p.set_value(paddle.to_tensor(rng.uniform(-0.5, 0.5, p.shape).astype("float32")))
show("net", net(x))
show("net_rows", net(paddle.to_tensor(rng.randn(5, 4).astype("float32"))))
