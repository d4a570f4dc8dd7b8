# Training by hand in dygraph: an MLP whose parameters are set from NumPy,
# mean squared error, backward, a plain SGD update under no_grad, and
# Layer.clear_gradients; the loss of each step and the final weights are
# printed with 4 decimals (tolerance 5e-5).
import numpy as np
import paddle


def fmt(a):
    a = np.asarray(a, dtype="float64")
    a = np.where(np.abs(a) < 5e-5, 0.0, a)
    return " ".join("%.4f" % v for v in a.flatten())


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(3, 4)
        self.fc2 = paddle.nn.Linear(4, 1)

    def forward(self, x):
        return self.fc2(paddle.tanh(self.fc1(x)))


rng = np.random.RandomState(0)
net = MLP()
for p in net.parameters():
    p.set_value(rng.uniform(-0.5, 0.5, p.shape).astype("float32"))
x = paddle.to_tensor(rng.uniform(-1, 1, (8, 3)).astype("float32"))
t = paddle.to_tensor((x.numpy().sum(axis=1, keepdims=True) * 0.5).astype("float32"))

for step in range(20):
    loss = ((net(x) - t) ** 2).mean()
    loss.backward()
    with paddle.no_grad():
        for p in net.parameters():
            p.set_value(p - 0.2 * p.grad)
    net.clear_gradients()
    if step % 4 == 0 or step == 19:
        print("step", step, "loss", fmt(loss.numpy()))

for name, p in net.named_parameters():
    print(name, p.shape, fmt(p.numpy()), p.grad is not None and fmt(p.grad.numpy()))

# the gradient of the loss with respect to the input, as in saliency maps
xs = paddle.to_tensor(x.numpy(), stop_gradient=False)
(gx,) = paddle.grad([((net(xs) - t) ** 2).mean()], [xs])
print("saliency", fmt(gx.numpy()[:2]))
