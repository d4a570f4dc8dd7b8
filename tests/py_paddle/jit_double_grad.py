# Double grad through to_static: paddle.grad(create_graph=True) of a converted function (with a
# tensor `if` in it) gives a gradient that is differentiable again, as in dygraph: a second
# derivative, the gradient of a gradient penalty with respect to the input and the parameters,
# and three WGAN-GP style training steps. Real Paddle 2.6.2 does not differentiate the gradient
# of its compiled run (its RunProgram node has no double grad: x.grad stays None), so the
# reference is Paddle's dygraph run of the same code: under real Paddle this script turns
# to_static off; dy2st runs it converted. Values printed with 5 decimals (4 for gradients).
import sys

import numpy as np
import paddle

if "dy2st" not in sys.version:
    paddle.jit.enable_to_static(False)


def fmt(a, digits=5):
    a = np.asarray(a, dtype="float64")
    a = np.where(np.abs(a) < 0.5 * 10.0 ** -digits, 0.0, a)
    return " ".join("%.*f" % (digits, v) for v in a.flatten())


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(3, 4)
        self.fc2 = paddle.nn.Linear(4, 1)

    @paddle.jit.to_static
    def forward(self, x):
        h = paddle.tanh(self.fc1(x))
        if h.mean() > 0:
            h = h * h
        else:
            h = paddle.nn.functional.sigmoid(h)
        return self.fc2(h)


@paddle.jit.to_static
def cube(x):
    return (x * x * x).sum()


net = Net()
prng = np.random.RandomState(5)
for p in net.parameters():
    p.set_value(prng.uniform(-0.7, 0.7, p.shape).astype("float32"))
x = paddle.to_tensor(np.linspace(-1, 1, 6).astype("float32").reshape(2, 3), stop_gradient=False)

(g,) = paddle.grad([cube(x)], [x], create_graph=True)
print("cube first", fmt(g.numpy()))
(gg,) = paddle.grad([g.sum()], [x])
print("cube second", fmt(gg.numpy()))

y = net(x)
(gx,) = paddle.grad([y.sum()], [x], create_graph=True)
print("net dy/dx", fmt(gx.numpy()))
penalty = (gx * gx).sum() * 1000.0
penalty.backward()
print("x second", fmt(x.grad.numpy(), 4))
for name, p in net.named_parameters():
    print(name, "no gradient" if p.grad is None else fmt(p.grad.numpy(), 4))

# a gradient-penalty training step (WGAN-GP style) through the converted forward
opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
for step in range(3):
    xs = paddle.to_tensor(np.linspace(-1, 1, 6).astype("float32").reshape(2, 3) * (step + 1) * 0.5,
                          stop_gradient=False)
    out = net(xs)
    (gxs,) = paddle.grad([out.sum()], [xs], create_graph=True)
    loss = out.mean() + ((gxs.norm(2, axis=1) - 1) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("gp step", step, fmt(loss.numpy()))
