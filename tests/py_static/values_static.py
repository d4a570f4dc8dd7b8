# to_static: float()/int()/bool() of a tensor, Tensor.item() and Tensor.numpy()
# keep a tensor inside converted code (Paddle's Variable flows on), and give
# Python values eagerly; the results agree.
# real Paddle: AST mode
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    v = t.numpy() if isinstance(t, paddle.Tensor) else np.array(t)
    print(name, (np.round(v.astype("float64").reshape(-1), 4) + 0.0).tolist())


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32"), InputSpec([1], "int32")])
def values(x, n):
    a = float(x.sum())
    b = int(x.max())
    c = bool(x.min() > 0)
    d = x.mean().item()
    e = x.numpy()
    k = int(n)
    y = x * a + b + d
    return y, c, e * 2, k + 1


x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
n = paddle.to_tensor([7], dtype="int32")
y, c, e, k = values(x, n)
show("y", y)
show("c", c)
show("e", e)
show("k", k)
y, c, e, k = values(-x, n)
show("y", y)
show("c", c)
