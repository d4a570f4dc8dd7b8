# to_static: for loops over ranges whose bounds are tensors, in several
# forms: range(n), enumerate(range(n)), enumerate(range(a, b, step)) with a
# start, range(paddle.shape(x)[0]), negative steps, rows of a tensor.
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    print(name, (np.round(t.numpy().astype("float64").reshape(-1), 4) + 0.0).tolist())


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32"), InputSpec([1], "int64")])
def loops(x, n):
    s = paddle.zeros([3])
    for k, i in enumerate(range(n)):
        s = s + x[0] * i + k
    for k, i in enumerate(range(1, n + 3, 2), 5):
        s = s - k * 0.25 + i * 0.5
    for i in range(paddle.shape(x)[0]):
        s = s + x[i]
    for i in range(n - 1, 0, -1):
        s = s - i
    for i, row in enumerate(x):
        s = s + row * (i + 1)
    return s


x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
for k in (1, 4):
    show("s", loops(x, paddle.to_tensor([k], dtype="int64")))
show("s", loops(paddle.ones([3, 3]), paddle.to_tensor([3], dtype="int64")))
