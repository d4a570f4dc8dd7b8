# paddle.nn.initializer's Dirac (with groups, 3-D to 5-D), Bilinear and Orthogonal, and
# calculate_gain, used through ParamAttr by layers; Orthogonal's sample is random, so it is
# checked by its orthogonality and gain. Bad arguments. Values rounded to 4 decimals.
import numpy as np
import paddle
import paddle.nn as nn

I = paddle.nn.initializer


def show(name, t):
    print(name, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


for nl in ["sigmoid", "conv2d", "tanh", "relu", "selu"]:
    print("gain", nl, round(I.calculate_gain(nl), 6))
print("gain leaky", round(I.calculate_gain("leaky_relu"), 6),
      round(I.calculate_gain("leaky_relu", 0.5), 6))
show("dirac conv2d", nn.Conv2D(3, 4, 3, weight_attr=paddle.ParamAttr(
    initializer=I.Dirac()), bias_attr=False).weight)
show("dirac groups", nn.Conv1D(2, 4, 3, groups=1, weight_attr=paddle.ParamAttr(
    initializer=I.Dirac(2)), bias_attr=False).weight)
print("dirac 3d sum", float(nn.Conv3D(2, 2, 3, weight_attr=paddle.ParamAttr(
    initializer=I.Dirac())).weight.sum()))
x = paddle.to_tensor(np.random.RandomState(0).rand(1, 3, 5, 5).astype("float32"))
conv = nn.Conv2D(3, 3, 3, padding=1, weight_attr=paddle.ParamAttr(initializer=I.Dirac()),
                 bias_attr=False)
print("dirac keeps input", bool(paddle.allclose(conv(x), x)))
show("bilinear", nn.Conv2DTranspose(2, 1, 4, weight_attr=paddle.ParamAttr(
    initializer=I.Bilinear()), bias_attr=False).weight)
show("bilinear 3", nn.Conv2DTranspose(1, 1, 3, weight_attr=paddle.ParamAttr(
    initializer=I.Bilinear()), bias_attr=False).weight)
for shape, gain in [([4, 6], 1.0), ([6, 4], 2.0)]:
    lin = nn.Linear(shape[0], shape[1], weight_attr=paddle.ParamAttr(initializer=I.Orthogonal(gain)))
    w = lin.weight.numpy()
    small = min(shape)
    g = w @ w.T if shape[0] <= shape[1] else w.T @ w
    print("orthogonal", shape, gain, np.allclose(g, gain * gain * np.eye(small), atol=1e-4))
cw = nn.Conv2D(2, 3, 2, weight_attr=paddle.ParamAttr(initializer=I.Orthogonal())).weight
m = cw.numpy().reshape(3, -1)
print("orthogonal conv", list(cw.shape), np.allclose(m @ m.T, np.eye(3), atol=1e-4))
err("gain unknown", lambda: I.calculate_gain("swish"))
err("dirac 2d", lambda: nn.Linear(3, 3, weight_attr=paddle.ParamAttr(initializer=I.Dirac())))
err("dirac groups", lambda: nn.Conv2D(3, 3, 3, weight_attr=paddle.ParamAttr(
    initializer=I.Dirac(2))))
err("bilinear not square", lambda: nn.Conv2DTranspose(1, 1, (3, 4), weight_attr=paddle.ParamAttr(
    initializer=I.Bilinear())))
err("orthogonal 1d", lambda: paddle.create_parameter([4], "float32",
                                                     default_initializer=I.Orthogonal()))
