# paddle.nn.functional activations and their paddle.nn layers, on fixed inputs.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def show(name, t):
    a = t.numpy()
    print(name, t.dtype, t.shape, np.round(a.astype("float64"), 4).tolist())


rng = np.random.RandomState(11)
x = paddle.to_tensor(rng.randn(2, 6).astype("float32") * 2)
x64 = paddle.to_tensor(rng.randn(3, 4) * 3)
for name in ["elu", "celu", "selu", "softplus", "softsign", "softshrink", "hardshrink",
             "hardsigmoid", "hardswish", "hardtanh", "mish", "log_sigmoid", "tanhshrink",
             "thresholded_relu", "swish", "silu", "relu6"]:
    f = getattr(F, name)
    show(name, f(x))
    show(name + "_f64", f(x64))
show("elu_a", F.elu(x, alpha=0.3))
show("celu_a", F.celu(x, alpha=2.5))
show("selu_a", F.selu(x, scale=1.5, alpha=0.7))
show("softplus_bt", F.softplus(x, beta=2, threshold=3))
show("softshrink_t", F.softshrink(x, threshold=1.2))
show("hardshrink_t", F.hardshrink(x, threshold=1.5))
show("hardsigmoid_so", F.hardsigmoid(x, slope=0.2, offset=0.4))
show("hardtanh_mm", F.hardtanh(x, min=-0.5, max=2.0))
show("thresholded_relu_t", F.thresholded_relu(x, threshold=0.5))
img = paddle.to_tensor(rng.randn(2, 4, 3, 3).astype("float32"))
show("prelu_1", F.prelu(img, paddle.to_tensor([0.25], dtype="float32")))
show("prelu_c", F.prelu(img, paddle.to_tensor([0.1, 0.2, 0.3, 0.4], dtype="float32")))
nhwc = paddle.to_tensor(rng.randn(2, 3, 3, 4).astype("float32"))
show("prelu_nhwc", F.prelu(nhwc, paddle.to_tensor([0.1, 0.2, 0.3, 0.4], dtype="float32"), data_format="NHWC"))
show("glu", F.glu(x))
show("glu0", F.glu(x, axis=0))
show("maxout", F.maxout(img, groups=2))
show("maxout_last", F.maxout(nhwc, groups=2, axis=-1))
show("rrelu_eval", F.rrelu(x, training=False))
show("rrelu_eval_lu", F.rrelu(x, lower=0.2, upper=0.4, training=False))
r = F.rrelu(x, training=True)
neg = x.numpy() < 0
ratio = r.numpy()[neg] / x.numpy()[neg]
print("rrelu_train_in_range", bool(((ratio >= 0.125 - 1e-6) & (ratio <= 1 / 3 + 1e-6)).all()),
      bool((r.numpy()[~neg] == x.numpy()[~neg]).all()))

for layer in [nn.CELU(), nn.CELU(0.5), nn.ELU(), nn.ELU(0.2), nn.SELU(), nn.GLU(), nn.Hardshrink(),
              nn.Hardshrink(1.0), nn.Softshrink(0.3), nn.Hardsigmoid(), nn.Hardswish(), nn.Hardtanh(),
              nn.Hardtanh(-2.0, 0.5), nn.LogSigmoid(), nn.Mish(), nn.Silu(), nn.Swish(),
              nn.Softplus(), nn.Softplus(2, 5), nn.Softsign(), nn.Tanhshrink(), nn.ThresholdedReLU(),
              nn.ThresholdedReLU(0.2)]:
    print(layer)
    show(type(layer).__name__, layer(x))
for layer in [nn.Maxout(2), nn.Softmax2D(), nn.PReLU(), nn.PReLU(4, 0.1), nn.RReLU(0.1, 0.3)]:
    print(layer)
layer = nn.RReLU(0.1, 0.3)
layer.eval()
show("RReLU_eval", layer(x))
show("Maxout", nn.Maxout(2)(img))
show("Softmax2D", nn.Softmax2D()(img))
p = nn.PReLU(4, 0.1)
show("PReLU", p(img))
print([(n, list(q.shape)) for n, q in p.named_parameters()])
p = nn.PReLU(4, 0.3, data_format="NHWC")
show("PReLU_nhwc", p(nhwc))
seq = nn.Sequential(nn.Linear(6, 4), nn.Hardswish(), nn.Linear(4, 3), nn.Mish())
paddle.seed(0)
print(seq)
for bad in [lambda: F.celu(x, alpha=0.0), lambda: F.maxout(img, groups=3)]:
    try:
        bad()
        print("no error")
    except Exception as e:
        print("error", type(e).__name__)
try:
    F.elu(paddle.to_tensor([1, 2]))
    print("no error")
except Exception:
    print("error")
