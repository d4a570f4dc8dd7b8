# to_static: a list grown in a tensor while loop, then indexed from the end
# and assigned into (a tensor array: array_read / array_write).
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    print(name, (np.round(t.numpy().astype("float64").reshape(-1), 4) + 0.0).tolist())


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32"), InputSpec([1], "int64")])
def grow(x, n):
    outs = []
    i = paddle.zeros([1], dtype="int64")
    while i < n:
        outs.append(x * i.astype("float32"))
        i = i + 1
    last = outs[-1] - outs[-2]
    outs[0] = x + 100
    outs[-1] = outs[1] * 10
    outs[i - 2] = last
    return paddle.concat(outs, axis=0), last


x = paddle.to_tensor([[1.0, 2.0, 3.0]])
for k in (3, 5):
    all_, last = grow(x, paddle.to_tensor([k], dtype="int64"))
    show("all", all_)
    show("last", last)
