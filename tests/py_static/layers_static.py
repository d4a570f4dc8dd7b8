# to_static on Layers: decorated forward, to_static(layer, input_spec), enable_to_static, save/load.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


def load_weights(model):
    sd = {}
    for key, value in model.state_dict().items():
        seed = 0
        for ch in key:
            seed = (seed * 31 + ord(ch)) % 2147483647
        rng = np.random.RandomState(seed)
        sd[key] = rng.uniform(-0.5, 0.5, size=value.shape).astype("float32")
    model.set_state_dict(sd)


class Gate(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.alt = nn.Linear(4, 3)

    @paddle.jit.to_static
    def forward(self, x):
        h = self.fc(x)
        if paddle.mean(h) > 0:
            out = F.relu(h)
        else:
            out = self.alt(x) * 2
        return out


class Counter(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def step(self, h):
        return paddle.tanh(self.fc(h))

    def forward(self, x, n):
        i = paddle.zeros([1], dtype="int64")
        while i < n:
            x = self.step(x)
            i = i + 1
        return x


print(InputSpec([None, 4], "float32", "x"))
x = paddle.to_tensor(np.linspace(-1, 1, 8).reshape(2, 4).astype("float32"))
gate = Gate()
load_weights(gate)
show("gate", gate(x))
show("gate neg", gate(-x))
paddle.jit.enable_to_static(False)
show("gate eager", gate(x))
paddle.jit.enable_to_static(True)

counter = Counter()
load_weights(counter)
static_counter = paddle.jit.to_static(
    counter, input_spec=[InputSpec([None, 3], "float32", "x"), InputSpec([1], "int64", "n")])
h = paddle.to_tensor(np.array([[0.1, 0.2, 0.3]], dtype="float32"))
show("counter 3", static_counter(h, paddle.to_tensor([3], dtype="int64")))
h2 = paddle.to_tensor(np.array([[0.1, 0.2, 0.3], [1.0, -1.0, 0.5]], dtype="float32"))
show("counter batch 2", static_counter(h2, paddle.to_tensor([2], dtype="int64")))

path = "saved_gate"  # relative: the test runs in a scratch directory
paddle.jit.save(gate, path, input_spec=[InputSpec([None, 4], "float32", "x")])
loaded = paddle.jit.load(path)
show("loaded", loaded(x))
show("loaded neg", loaded(-x))
