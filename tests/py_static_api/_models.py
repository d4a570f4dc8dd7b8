# Small models with deterministic weights, saved with paddle.jit.save, shared by the scripts here.
import numpy as np
import paddle


def fill(layer):
    """Sets every parameter to a fixed pattern (no RNG, so every runtime agrees)."""
    sd = layer.state_dict()
    new = {}
    for i, (k, v) in enumerate(sd.items()):
        n = int(np.prod(v.shape))
        new[k] = (np.sin(np.arange(n, dtype="float32") * 0.37 + i) * 0.5).reshape(v.shape).astype("float32")
    layer.set_state_dict(new)
    return layer


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 8)
        self.fc2 = paddle.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(paddle.nn.functional.relu(self.fc1(x)))


class TwoInTwoOut(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, x, y):
        h = self.fc(x)
        return h + y, paddle.tanh(h) * 2.0


def save_mlp(prefix):
    net = fill(MLP())
    net.eval()
    spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
    paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), prefix)
    return net
