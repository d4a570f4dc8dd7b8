# Tensor.register_hook on intermediate tensors of a dygraph training loop: a
# hook that scales the gradient flowing back through a hidden activation, one
# that clips it, one that only records it (returns None), and one removed after
# the first step. An MLP whose weights come from NumPy (seed 3) through
# set_value is trained 4 steps with SGD on MSE. Per-step losses, the recorded
# gradient norms and a checksum of each final weight are printed rounded to
# 5 decimals (tolerance 5e-6 on each printed value).
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 12)
        self.fc2 = nn.Linear(12, 6)
        self.fc3 = nn.Linear(6, 2)


def checksum(name, a):
    shape = list(a.shape)
    a = np.asarray(a, dtype="float64").ravel()
    k = np.cos(np.arange(a.size) * 0.1)
    print(name, shape, "%.5f %.5f %.5f" % (a.sum(), np.abs(a).mean(), (a * k).sum()))


rng = np.random.RandomState(3)
m = MLP()
for p in m.parameters():
    p.set_value((rng.uniform(-1, 1, p.shape) * 0.5).astype("float32"))
xs = rng.randn(4, 8, 5).astype("float32")
ts = rng.randn(4, 8, 2).astype("float32")
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=m.parameters())
seen = []


def record(g):
    seen.append(float((g * g).sum().sqrt()))


for step in range(4):
    x = paddle.to_tensor(xs[step])
    h1 = paddle.tanh(m.fc1(x))
    h1.register_hook(lambda g: g * 2.0)
    h1.register_hook(record)
    h2 = F.relu(m.fc2(h1))
    h2.register_hook(lambda g: paddle.clip(g, -0.05, 0.05))
    out = m.fc3(h2)
    handle = out.register_hook(lambda g: g * 0.5)
    if step > 0:
        handle.remove()
    loss = F.mse_loss(out, paddle.to_tensor(ts[step]))
    loss.backward()
    print("step", step, "loss %.5f" % float(loss), "|dh1| %.5f" % seen[-1],
          "mean|fc1.w.grad| %.5f" % float(m.fc1.weight.grad.abs().mean()))
    opt.step()
    opt.clear_grad()

for name, p in m.named_parameters():
    checksum(name, p.numpy())
