"""print, assert, casts, len and calls: helpers that decide by the value at evaluation time."""
import paddle
import paddle.nn.functional as F


def helper(v):
    return v * 3


class Base:
    def scale(self, v):
        return v * 10


class Model(Base):
    def __init__(self):
        self.items = []

    def step(self, v):
        return v + 1

    @paddle.jit.to_static
    def forward(self, x):
        print('input', x, sep='=')
        assert x >= 0, 'x must be non-negative'
        assert x < 1000
        n = int(x / 2) + len(self.items)
        f = float(n)
        b = bool(n)
        self.items.append(self.step(x))
        if x > 2:
            y = super().scale(helper(x))
        else:
            y = paddle.to_tensor(x) if False else helper(n)
        return y, f, b, F


@paddle.jit.to_static
def casts_kept(s):
    return int(s, 16), float(*[s]), str(s)


def run_model(x):
    return Model().forward(x)


EXAMPLES = {
    'run_model': [3, 1],
    'casts_kept': ['ff'],
}
