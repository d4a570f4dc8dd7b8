# to_static: helper functions and methods that branch and loop on tensors, not_to_static.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


def grow(x):
    # a helper with a tensor while
    while paddle.sum(x) < 10:
        x = x * 2
    return x


def pick(x, y):
    # a helper with a tensor if that calls another helper
    if paddle.mean(x) > paddle.mean(y):
        return grow(x)
    return y - 1


@paddle.jit.not_to_static
def pad_rows(x, n):
    # kept as written: branches only on Python values
    if x.shape[0] < n:
        x = paddle.concat([x, paddle.zeros([n - x.shape[0], x.shape[1]])])
    return x


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        if paddle.max(x) > 4:
            return x / self.k
        return x * self.k


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.scaler = Scaler(2.0)

    def shift(self, x):
        # a method with a tensor if
        if paddle.min(x) < 0:
            x = x - paddle.min(x)
        else:
            x = x + 1
        return x

    @paddle.jit.to_static
    def forward(self, x, y):
        z = self.shift(pick(x, y))
        return self.scaler.apply(z)


@paddle.jit.to_static
def padded(x):
    y = pad_rows(x, 3)
    if paddle.sum(y) > 0:
        y = y + 1
    return y


net = Net()
a = paddle.to_tensor([1.0, 2.0])
b = paddle.to_tensor([-3.0, 0.5])
show("net ab", net(a, b))
show("net ba", net(b, a))
show("net small", net(a * 0.1, b))
show("padded", padded(paddle.ones([2, 2])))
show("padded full", padded(paddle.ones([3, 2]) * -1))
