# Training through to_static when the forward appends to a Python list inside
# a loop whose trip count is a tensor: the list becomes a tensor array grown in
# a while_loop and stacked (or concatenated) after it, and the gradient flows
# back through the stack, the writes and the loop. A small recurrent cell
# trained with SGD, and the gradient of its input. Values printed with 5
# decimals (the input's gradient with 4).
import numpy as np
import paddle


def fmt(a, digits=5):
    a = np.asarray(a, dtype="float64")
    a = np.where(np.abs(a) < 0.5 * 10.0 ** -digits, 0.0, a)
    return " ".join("%.*f" % (digits, v) for v in a.flatten())


class Cell(paddle.nn.Layer):
    def __init__(self, concat=False):
        super().__init__()
        self.wx = paddle.nn.Linear(3, 4)
        self.wh = paddle.nn.Linear(4, 4, bias_attr=False)
        self.concat = concat

    @paddle.jit.to_static
    def forward(self, x):
        h = paddle.zeros([x.shape[0], 4])
        outs = []
        for t in range(paddle.shape(x)[1]):
            h = paddle.tanh(self.wx(x[:, t]) + self.wh(h))
            outs.append(h)
        if self.concat:
            return paddle.concat(outs, axis=1)
        return paddle.stack(outs, axis=1)


rng = np.random.RandomState(0)
X = paddle.to_tensor(rng.uniform(-1, 1, (2, 5, 3)).astype("float32"))

for concat in (False, True):
    net = Cell(concat)
    prng = np.random.RandomState(1)
    for p in net.parameters():
        p.set_value(prng.uniform(-0.5, 0.5, p.shape).astype("float32"))
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=net.parameters())
    target = paddle.to_tensor(prng.uniform(-0.5, 0.5, (2, 20)).astype("float32"))
    for step in range(4):
        out = net(X)
        loss = ((out.reshape([2, 20]) - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        print("concat" if concat else "stack", "step", step, "loss", fmt(loss.numpy()))
    for name, p in net.named_parameters():
        print(" ", name, fmt(p.numpy()))
    x = X.clone()
    x.stop_gradient = False
    out = net(x)
    w = paddle.arange(40, dtype="float32").reshape(out.shape) * 0.01
    (out * w).sum().backward()
    print("  x grad", fmt(x.grad.numpy(), 4))
