# A gradient-penalty training step (as in WGAN-GP) on a small MLP in dygraph:
# the gradient of the critic's output with respect to its input is taken with
# paddle.grad(create_graph=True), its norm is penalised, and loss.backward()
# differentiates through that gradient (double grad) into the weights, which
# Adam updates. Weights come from NumPy (seed 3) through set_state_dict. Per-step
# losses, penalties and a checksum of each final weight are printed rounded to
# 5 decimals (tolerance 5e-6 on each printed value).
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


class Critic(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 8)
        self.fc3 = nn.Linear(8, 1)

    def forward(self, x):
        h = paddle.tanh(self.fc1(x))
        h = F.sigmoid(self.fc2(h)) * h[:, :8]
        return self.fc3(h)


def checksum(name, a):
    shape = list(a.shape)
    a = np.asarray(a, dtype="float64").ravel()
    k = np.cos(np.arange(a.size) * 0.1)
    print(name, shape, "%.5f %.5f %.5f" % (a.sum(), np.abs(a).mean(), (a * k).sum()))


rng = np.random.RandomState(3)
critic = Critic()
critic.set_state_dict({name: (rng.uniform(-1, 1, p.shape) * 0.6).astype("float32")
                       for name, p in critic.named_parameters()})
real = rng.randn(6, 4, 6).astype("float32")
fake = rng.randn(6, 4, 6).astype("float32") * 0.5 + 0.3
alpha = rng.rand(6, 4, 1).astype("float32")
opt = paddle.optimizer.Adam(learning_rate=0.02, parameters=critic.parameters())

for step in range(6):
    r = paddle.to_tensor(real[step].T[:, :4])
    f = paddle.to_tensor(fake[step].T[:, :4])
    a = paddle.to_tensor(alpha[step].T[:, :1])
    mix = a * r + (1 - a) * f
    mix.stop_gradient = False
    out = critic(mix)
    (g,) = paddle.grad(outputs=[out.sum()], inputs=[mix], create_graph=True)
    norm = paddle.sqrt((g * g).sum(axis=1) + 1e-12)
    penalty = ((norm - 1.0) ** 2).mean()
    loss = critic(f).mean() - critic(r).mean() + 10.0 * penalty
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("step", step, "loss %.5f penalty %.5f" % (float(loss), float(penalty)),
          "mix.grad", mix.grad is None)

for name, p in critic.named_parameters():
    checksum(name, p.numpy())
