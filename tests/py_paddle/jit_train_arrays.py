# Training through to_static when a list grown in a tensor-bounded loop is read in other ways:
# appended to inside an `if` on a tensor (a cond in the loop body whose branches append
# different values), and read back at an earlier item (outs[i - 1], a recurrence over the
# list itself). The gradient replays each iteration on the final list cut to the length the
# iteration started with. Two small cells trained with Adam and SGD, and their inputs'
# gradients. Values printed with 5 decimals (gradients with 4).
import numpy as np
import paddle


def fmt(a, digits=5):
    a = np.asarray(a, dtype="float64")
    a = np.where(np.abs(a) < 0.5 * 10.0 ** -digits, 0.0, a)
    return " ".join("%.*f" % (digits, v) for v in a.flatten())


class CondAppend(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    @paddle.jit.to_static
    def forward(self, x, n):
        outs = []
        h = x
        i = 0
        while i < n:
            h = paddle.tanh(self.fc(h))
            if h.mean() > 0:
                outs.append(h * 2.0)
            else:
                outs.append(paddle.exp(h))
            i += 1
        return paddle.stack(outs)


class ReadPrev(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3, 3])
        self.b = self.create_parameter([3], is_bias=True)

    @paddle.jit.to_static
    def forward(self, x, n):
        outs = [x]
        i = 1
        while i < n:
            prev = outs[i - 1]
            outs.append(paddle.tanh(paddle.matmul(prev, self.w) + self.b) * outs[0])
            i += 1
        return paddle.stack(outs)


X = paddle.to_tensor(np.linspace(-1.0, 1.2, 6).astype("float32").reshape(2, 3))
N = paddle.to_tensor(4)
for cls, make_opt in ((CondAppend, lambda ps: paddle.optimizer.Adam(0.05, parameters=ps)),
                      (ReadPrev, lambda ps: paddle.optimizer.SGD(0.1, parameters=ps))):
    net = cls()
    prng = np.random.RandomState(3)
    for p in net.parameters():
        p.set_value(prng.uniform(-0.8, 0.8, p.shape).astype("float32"))
    opt = make_opt(net.parameters())
    target = paddle.to_tensor(prng.uniform(-0.5, 0.5, (4, 2, 3)).astype("float32"))
    for step in range(5):
        out = net(X, N)
        loss = ((out - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        print(cls.__name__, "step", step, "loss", fmt(loss.numpy()))
    for name, p in net.named_parameters():
        print(" ", name, fmt(p.numpy()))
    for n in (1, 3):
        x = X.clone()
        x.stop_gradient = False
        out = net(x, paddle.to_tensor(n))
        w = paddle.arange(out.size, dtype="float32").reshape(out.shape) * 0.01
        (out * w).sum().backward()
        print("  n", n, "x grad", fmt(x.grad.numpy(), 4))
