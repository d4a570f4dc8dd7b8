# Training through to_static: a Layer whose forward is @paddle.jit.to_static
# trains like an eager one (the converted Program's run is one tape node whose
# backward runs its gradient Program). An MLP with SGD and with Adam, a
# data-dependent `if` on a tensor, a `while` loop whose trip count is a
# tensor, eager ops after the converted call, gradients of inputs, no_grad and
# eval. Losses and weights printed with 5 decimals (tolerance 1e-5; the losses of
# the cond model, which are larger, with 4).
import numpy as np
import paddle


def fmt(a, digits=5):
    a = np.asarray(a, dtype="float64")
    a = np.where(np.abs(a) < 0.5 * 10.0 ** -digits, 0.0, a)
    return " ".join("%.*f" % (digits, v) for v in a.flatten())


def init(net, seed):
    rng = np.random.RandomState(seed)
    for p in net.parameters():
        p.set_value(rng.uniform(-0.5, 0.5, p.shape).astype("float32"))


rng = np.random.RandomState(0)
X = paddle.to_tensor(rng.uniform(-1, 1, (8, 3)).astype("float32"))
T = paddle.to_tensor((X.numpy().sum(axis=1, keepdims=True) * 0.5).astype("float32"))


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(3, 4)
        self.fc2 = paddle.nn.Linear(4, 1)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc2(paddle.tanh(self.fc1(x)))


def train(net, opt, steps, loss_in_forward=False):
    for step in range(steps):
        out = net(X)
        loss = ((out - T) ** 2).mean()  # eager ops on the converted output
        loss.backward()
        opt.step()
        opt.clear_grad()
        print("step", step, "loss", fmt(loss.numpy()))
    for name, p in net.named_parameters():
        print(" ", name, fmt(p.numpy()))


print("== MLP, SGD")
net = MLP()
init(net, 1)
out = net(X)
print("stop_gradient", out.stop_gradient)
train(net, paddle.optimizer.SGD(0.1, parameters=net.parameters()), 5)

print("== MLP, Adam")
net = MLP()
init(net, 2)
train(net, paddle.optimizer.Adam(0.05, parameters=net.parameters()), 5)

# the gradients accumulate into .grad as eager ones do
print("== accumulation")
net = MLP()
init(net, 3)
((net(X) - T) ** 2).mean().backward()
g1 = net.fc1.weight.grad.numpy().copy()
((net(X) - T) ** 2).mean().backward()
print("twice", np.allclose(net.fc1.weight.grad.numpy(), 2 * g1, atol=1e-6))
print("fc1.weight.grad", fmt(g1))

# an input that does not stop gradients gets one
print("== input gradient")
xs = paddle.to_tensor(X.numpy()[:2], stop_gradient=False)
y = net(xs).sum()
y.backward()
print("x.grad", fmt(xs.grad.numpy()))


class Gate(paddle.nn.Layer):
    """A data-dependent branch (converted to cond)."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    @paddle.jit.to_static
    def forward(self, x):
        h = self.fc(x)
        if x.mean() > 0:
            y = paddle.tanh(h) * 2.0
        else:
            y = h * h - 1.0
        return y.sum(axis=1, keepdim=True)


print("== cond")
net = Gate()
init(net, 4)
opt = paddle.optimizer.SGD(0.01, parameters=net.parameters())
for step in range(6):
    x = X if step % 2 == 0 else -X  # each branch in turn
    loss = ((net(x) - T) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("step", step, "loss", fmt(loss.numpy(), 4))
for name, p in net.named_parameters():
    print(" ", name, fmt(p.numpy()))


class Power(paddle.nn.Layer):
    """A tensor while loop: x @ W applied n times, n a tensor."""

    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3, 3])
        self.out = paddle.nn.Linear(3, 1)

    @paddle.jit.to_static
    def forward(self, x, n):
        i = paddle.zeros([1], dtype="int64")
        h = x
        while i < n:
            h = paddle.tanh(paddle.matmul(h, self.w))
            i = i + 1
        return self.out(h)


print("== while")
net = Power()
init(net, 5)
opt = paddle.optimizer.Adam(0.05, parameters=net.parameters())
n = paddle.to_tensor([3], dtype="int64")
for step in range(5):
    loss = ((net(X, n) - T) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("step", step, "loss", fmt(loss.numpy()))
for name, p in net.named_parameters():
    print(" ", name, fmt(p.numpy()))

print("== no_grad and eval")
with paddle.no_grad():
    y = net(X, n)
print("no_grad stop_gradient", y.stop_gradient)
net.eval()
y = net(X, n)
print("eval stop_gradient", y.stop_gradient, fmt(y.numpy()[:3]))


class Two(paddle.nn.Layer):
    """Several outputs, one of them integer; only the first reaches the loss."""

    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(3, 4)
        self.fc2 = paddle.nn.Linear(4, 1)

    @paddle.jit.to_static
    def forward(self, x):
        h = paddle.tanh(self.fc1(x))
        return self.fc2(h), h, paddle.argmax(h, axis=1)


print("== several outputs, a frozen parameter")
net = Two()
init(net, 6)
net.fc1.weight.stop_gradient = True
out, h, idx = net(X)
print("stop_gradient", out.stop_gradient, h.stop_gradient, idx.stop_gradient)
((out - T) ** 2).mean().backward()
print("fc1.weight.grad", net.fc1.weight.grad is None)
print("fc1.bias.grad", fmt(net.fc1.bias.grad.numpy()))
print("fc2.weight.grad", fmt(net.fc2.weight.grad.numpy()))
net.clear_gradients()
out, h, idx = net(X)
(h.sum() + out.sum()).backward()
print("both outputs fc1.bias.grad", fmt(net.fc1.bias.grad.numpy()))


class Plain(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


print("== paddle.jit.to_static(layer)")
net = Plain()
init(net, 7)
net = paddle.jit.to_static(net)
opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
for step in range(3):
    loss = (net(X) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("step", step, "loss", fmt(loss.numpy()))


@paddle.jit.to_static
def gated(a, b):
    if a.sum() > 0:
        return a * b
    return a - b


print("== a function of inputs that want gradients")
a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
b = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
ga, gb = paddle.grad([gated(a, b).sum()], [a, b])
print("paddle.grad", fmt(ga.numpy()), "|", fmt(gb.numpy()))
y = gated(-a, b)
(y * y).sum().backward()
print("backward", fmt(a.grad.numpy()), "|", fmt(b.grad.numpy()))
