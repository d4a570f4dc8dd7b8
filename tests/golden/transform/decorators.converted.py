"""Which functions are converted: to_static spellings, not_to_static, and undecorated code."""
import paddle
from paddle.jit import to_static, not_to_static
from paddle.static import InputSpec

def plain(x):
    if x > 0:
        return x
    return -x

def bare_name(x):
    return _jst.Call(plain)(x)

def with_spec(x):

    def if_true_20(x):
        x = x - 1
        return x

    def if_false_20(x):
        return x
    x = _jst.IfElse(x > 0, if_true_20, if_false_20, (x,), ('x',))
    return x

@paddle.jit.not_to_static
@paddle.jit.to_static
def opted_out(x):
    if x > 0:
        x = x - 1
    return x

@staticmethod
def keeps_other_decorators(x):
    """A docstring stays first."""

    def if_true_37():
        _return_value = 1
        return _return_value

    def if_false_37():
        _return_value = 2
        return _return_value
    _return_value = _jst.IfElse(x, if_true_37, if_false_37, (), ('_return_value',))
    return _return_value

class Net:

    def forward(self, x):
        return _jst.IfExp(x, lambda: _jst.Call(self.head)(x), lambda: x)

    def head(self, x):
        return x
