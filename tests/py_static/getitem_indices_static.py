# x[T1, T2], x[T1, :, T2] and x[i, list] inside to_static (several tensor indices in one subscript).
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def diag_sum(x, n):
    s = paddle.zeros([])
    for i in range(n):
        s = s + x[i, i]
    return s


@paddle.jit.to_static
def pairs(x):
    return x[paddle.to_tensor([0, 1]), paddle.to_tensor([1, 2])]


@paddle.jit.to_static
def separated(x):
    return x[paddle.to_tensor([0, 1]), :, paddle.to_tensor([1, 0])]


@paddle.jit.to_static
def inner_pair(x):
    return x[:, paddle.to_tensor([0, 2]), paddle.to_tensor([1, 1])]


@paddle.jit.to_static
def scalar_and_list(x, i):
    return x[i, [0, 1, 1]]


@paddle.jit.to_static(input_spec=[InputSpec([None, 3, 2], "float32")])
def dynamic_batch(x):
    return x[:, paddle.to_tensor([2, 0]), paddle.to_tensor([1, 0])]


@paddle.jit.to_static(input_spec=[InputSpec([None, None], "float32"), InputSpec([None], "int64"),
                                  InputSpec([None], "int64")])
def dynamic_indexed_dims(x, i, j):
    # both indexed dims dynamic
    return x[i, j]


@paddle.jit.to_static(input_spec=[InputSpec([None, None, 4], "float32")])
def dynamic_separated(x):
    # indices on dims 0 and 2 around a dynamic dim: the index's dim goes first
    return x[paddle.to_tensor([1, 0, 1]), :, paddle.to_tensor([3, 0, 2])]


@paddle.jit.to_static(input_spec=[InputSpec([None, None, None], "float32")])
def dynamic_inner_pair(x):
    # two adjacent indices after a full slice, every dim dynamic; 0-D and 1-D broadcast
    return x[:, paddle.to_tensor(2), paddle.to_tensor([0, 3])] * 2


x3 = paddle.arange(24, dtype="float32").reshape([2, 3, 4])
show("diag_sum", diag_sum(paddle.arange(9, dtype="float32").reshape([3, 3]), paddle.to_tensor(3)))
show("pairs", pairs(paddle.arange(9, dtype="float32").reshape([3, 3])))
show("separated", separated(x3))
show("inner_pair", inner_pair(x3))
show("scalar_and_list", scalar_and_list(paddle.arange(9, dtype="float32").reshape([3, 3]), paddle.to_tensor(2)))
show("dynamic_batch", dynamic_batch(paddle.arange(12, dtype="float32").reshape([2, 3, 2])))
show("dynamic_indexed_dims", dynamic_indexed_dims(paddle.arange(12, dtype="float32").reshape([3, 4]),
                                                  paddle.to_tensor([0, 2, 1]), paddle.to_tensor([1, 3, 0])))
show("dynamic_separated", dynamic_separated(x3))
show("dynamic_inner_pair", dynamic_inner_pair(x3))
