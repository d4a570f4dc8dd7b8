"""Which functions are converted: to_static spellings, not_to_static, and undecorated code."""
import paddle
from paddle.jit import to_static, not_to_static
from paddle.static import InputSpec


def plain(x):
    if x > 0:
        return x
    return -x


@to_static
def bare_name(x):
    return plain(x)


@paddle.jit.to_static(input_spec=[InputSpec(shape=[None], dtype='float32')])
def with_spec(x):
    if x > 0:
        x = x - 1
    return x


@paddle.jit.not_to_static
@paddle.jit.to_static
def opted_out(x):
    if x > 0:
        x = x - 1
    return x


@staticmethod
@paddle.jit.to_static
def keeps_other_decorators(x):
    """A docstring stays first."""
    if x:
        return 1
    return 2


class Net:

    @paddle.jit.to_static
    def forward(self, x):
        return self.head(x) if x else x

    def head(self, x):
        return x
