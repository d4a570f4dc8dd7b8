# Fallback: for...else and while...else cannot be converted; each function is traced instead.
import numpy as np
import paddle


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


class Stack(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.fc.weight.set_value(np.linspace(-0.5, 0.5, 9).astype("float32").reshape(3, 3))
        self.fc.bias.set_value(np.array([0.0, 0.1, 0.2], dtype="float32"))

    @paddle.jit.to_static
    def forward(self, x):
        h = x
        for i in range(3):
            h = paddle.tanh(self.fc(h)) + i
        else:
            h = h * 0.5
        return h


@paddle.jit.to_static
def countdown(x, n):
    i = 0
    while i < n:
        x = x * 2.0 - 1.0
        i += 1
    else:
        x = x + 100.0
    return x


net = Stack()
net.eval()
x = paddle.to_tensor(np.linspace(-1, 1, 6).astype("float32").reshape(2, 3))
show("stack", net(x))
show("stack2", net(x * 3.0))
show("countdown2", countdown(x, 2))
show("countdown3", countdown(x, 3))
