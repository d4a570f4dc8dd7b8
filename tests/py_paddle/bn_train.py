# Training with batch normalization in dygraph (train mode): Conv2D, then
# BatchNorm2D, ReLU and Linear, three SGD steps. Batch statistics carry
# gradients, so the convolution's bias, which the normalization removes, gets
# a zero gradient. Then BatchNorm1D on a 2-D and a 3-D input, and eval mode
# with the running statistics. Values printed with 4 decimals.
import numpy as np
import paddle


def fmt(a):
    a = np.asarray(a, dtype="float64")
    a = np.where(np.abs(a) < 5e-5, 0.0, a)
    return " ".join("%.4f" % v for v in a.flatten())


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(2, 3, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(3)
        self.fc = paddle.nn.Linear(3 * 4 * 4, 2)

    def forward(self, x):
        y = paddle.nn.functional.relu(self.bn(self.conv(x)))
        return self.fc(paddle.flatten(y, 1))


rng = np.random.RandomState(0)
net = Net()
for p in net.parameters():
    if not p.stop_gradient:
            p.set_value(rng.uniform(-0.5, 0.5, p.shape).astype("float32"))
x = paddle.to_tensor(rng.uniform(-1, 1, (4, 2, 4, 4)).astype("float32"))
t = paddle.to_tensor(rng.uniform(-1, 1, (4, 2)).astype("float32"))
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
net.train()
for step in range(3):
    loss = ((net(x) - t) ** 2).mean()
    loss.backward()
    print("step", step, "loss", fmt(loss.numpy()))
    for name, p in net.named_parameters():
        print(" ", name, p.grad is not None and fmt(p.grad.numpy()))
    opt.step()
    opt.clear_grad()
print("running mean", fmt(net.bn._mean.numpy()))
print("running var", fmt(net.bn._variance.numpy()))
net.eval()
print("eval", fmt(net(x).numpy()))

# BatchNorm1D on [N, C] and [N, C, L]
for shape in [(5, 3), (3, 3, 4)]:
    bn = paddle.nn.BatchNorm1D(3)
    bn.weight.set_value(rng.uniform(0.5, 1.5, (3,)).astype("float32"))
    bn.bias.set_value(rng.uniform(-0.5, 0.5, (3,)).astype("float32"))
    bn.train()
    xs = paddle.to_tensor(rng.uniform(-1, 1, shape).astype("float32"), stop_gradient=False)
    w = paddle.to_tensor(rng.uniform(-1, 1, shape).astype("float32"))
    out = bn(xs)
    (out * w).sum().backward()
    print(bn, shape, "out", fmt(out.numpy()))
    print("  dx", fmt(xs.grad.numpy()))
    print("  dweight", fmt(bn.weight.grad.numpy()), "dbias", fmt(bn.bias.grad.numpy()))
    print("  running", fmt(bn._mean.numpy()), fmt(bn._variance.numpy()))

# channels last: BatchNorm2D NHWC and BatchNorm1D NLC
for cls, fmt_, shape in [(paddle.nn.BatchNorm2D, "NHWC", (2, 3, 4, 3)),
                         (paddle.nn.BatchNorm1D, "NLC", (3, 5, 3))]:
    bn = cls(3, data_format=fmt_)
    bn.weight.set_value(rng.uniform(0.5, 1.5, (3,)).astype("float32"))
    bn.train()
    xs = paddle.to_tensor(rng.uniform(-1, 1, shape).astype("float32"), stop_gradient=False)
    w = paddle.to_tensor(rng.uniform(-1, 1, shape).astype("float32"))
    out = bn(xs)
    (out * w).sum().backward()
    print(bn, fmt_, "out", fmt(out.numpy()))
    print("  dx", fmt(xs.grad.numpy()))
    print("  dweight", fmt(bn.weight.grad.numpy()), "dbias", fmt(bn.bias.grad.numpy()))
    print("  running", fmt(bn._mean.numpy()), fmt(bn._variance.numpy()))
    bn.eval()
    print("  eval", fmt(bn(xs).numpy()[0]))
