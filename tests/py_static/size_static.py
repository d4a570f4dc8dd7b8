# to_static: Tensor.size of a tensor with a dynamic dim is its element count at run time.
# real Paddle: AST mode
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def count(x):
    n = paddle.to_tensor(x.size, dtype="int64")
    return n * 2, x.sum() / n.astype("float32")


a, b = count(paddle.arange(6, dtype="float32").reshape([2, 3]))
show("twice", a)
show("mean", b)
a, b = count(paddle.ones([4, 3]))
show("twice", a)
show("mean", b)
