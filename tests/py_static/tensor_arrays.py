# to_static and eager: paddle.tensor.create_array, array_write (in place and into a new array),
# array_read and array_length.
# real Paddle: AST mode
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


@paddle.jit.to_static
def arrays(x):
    arr = paddle.tensor.create_array("float32")
    i = paddle.zeros([1], "int64")
    arr = paddle.tensor.array_write(x, i, array=arr)
    i = i + 1
    paddle.tensor.array_write(x * 2, i, array=arr)
    n = paddle.tensor.array_length(arr)
    a0 = paddle.tensor.array_read(arr, paddle.zeros([1], "int64"))
    a1 = paddle.tensor.array_read(arr, i)
    fresh = paddle.tensor.array_write(x + 1, paddle.zeros([1], "int64"))
    b0 = paddle.tensor.array_read(fresh, paddle.zeros([1], "int64"))
    init = paddle.tensor.create_array("float32", [x, x - 1])
    c1 = paddle.tensor.array_read(init, paddle.ones([1], "int64"))
    return a0, a1, n, b0, c1, paddle.tensor.array_length(init)


for v in ([1.0, 2.0], [-0.5, 3.0]):
    a0, a1, n, b0, c1, m = arrays(paddle.to_tensor(v))
    for t in (a0, a1, b0, c1):
        show("arr", t)
    print("lengths", int(n), int(m))
