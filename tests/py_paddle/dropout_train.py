# Dropout in training mode. Random streams differ from Paddle's, so this
# prints statistics as booleans: the fraction of zeros near p, kept values
# scaled by 1/(1-p) (upscale_in_train) or unscaled (downscale_in_infer), the
# gradient equal to the mask's scaling, eval mode as identity (or x (1-p)),
# and a to_static Layer in train mode dropping as well.
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.seed(7)
x = paddle.to_tensor(np.random.RandomState(0).uniform(1, 2, (100, 80)).astype("float32"),
                     stop_gradient=False)
xn = x.numpy()

for p in [0.2, 0.5, 0.8]:
    y = F.dropout(x, p)
    yn = y.numpy()
    kept = yn != 0
    frac = 1 - kept.mean()
    print("p", p, "zeros near p", abs(float(frac) - p) < 0.03,
          "scaled", bool(np.allclose(yn[kept], xn[kept] / (1 - p), rtol=1e-5)))
    (g,) = paddle.grad([(y * 3).sum()], [x])
    gn = g.numpy()
    print("  grad is 3 mask", bool(np.allclose(gn[kept], 3 / (1 - p), rtol=1e-5)),
          bool((gn[~kept] == 0).all()))

y = F.dropout(x, 0.4, mode="downscale_in_infer")
yn = y.numpy()
kept = yn != 0
print("downscale train: zeros near p", abs(float(1 - kept.mean()) - 0.4) < 0.03,
      "unscaled", bool(np.allclose(yn[kept], xn[kept])))
print("downscale eval", bool(np.allclose(F.dropout(x, 0.4, training=False,
                                                    mode="downscale_in_infer").numpy(), xn * 0.6)))
print("upscale eval identity", bool((F.dropout(x, 0.4, training=False).numpy() == xn).all()))
print("p=0 identity", bool((F.dropout(x, 0.0).numpy() == xn).all()))
print("p=1 zeros", bool((F.dropout(x, 1.0).numpy() == 0).all()))

a = F.dropout(x, 0.5).numpy()
b = F.dropout(x, 0.5).numpy()
print("fresh mask per call", bool((a != b).any()))
paddle.seed(11)
a = F.dropout(x, 0.5).numpy()
paddle.seed(11)
b = F.dropout(x, 0.5).numpy()
print("paddle.seed repeats", bool((a == b).all()))

layer = paddle.nn.Dropout(0.25)
layer.train()
yn = layer(x).numpy()
print("layer train zeros near p", abs(float((yn == 0).mean()) - 0.25) < 0.03)
layer.eval()
print("layer eval identity", bool((layer(x).numpy() == xn).all()))


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.drop = paddle.nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(x) * 2


net = Net()
st = paddle.jit.to_static(net)
net.train()
yn = st(x).numpy()
kept = yn != 0
print("to_static train zeros near p", abs(float(1 - kept.mean()) - 0.5) < 0.03,
      "scaled", bool(np.allclose(yn[kept], xn[kept] * 4, rtol=1e-5)))
net.eval()
print("to_static eval", bool(np.allclose(st(x).numpy(), xn * 2)))
