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

    def forward(self, x):
        _jst.Print('input', x, sep='=')
        _jst.Assert(x >= 0, 'x must be non-negative')
        _jst.Assert(x < 1000)
        n = _jst.Cast(x / 2, 'int') + _jst.Len(self.items)
        f = _jst.Cast(n, 'float')
        b = _jst.Cast(n, 'bool')
        self.items.append(_jst.Call(self.step)(x))

        def if_true_31():
            y = _jst.Call(super(__class__, self).scale)(_jst.Call(helper)(x))
            return y

        def if_false_31():
            y = _jst.IfExp(False, lambda: paddle.to_tensor(x), lambda: _jst.Call(helper)(n))
            return y
        y = _jst.IfElse(x > 2, if_true_31, if_false_31, (), ('y',))
        return (y, f, b, F)

def casts_kept(s):
    return (int(s, 16), float(*[s]), str(s))

def run_model(x):
    return Model().forward(x)
EXAMPLES = {'run_model': [3, 1], 'casts_kept': ['ff']}
