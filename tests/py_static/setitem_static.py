# to_static: x[key] = v on tensors becomes set_value / index_put / where ops and rebinds x.
import numpy as np
import paddle


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def basic(x, y):
    x[0] = 5.0
    x[1:3, :] = y
    x[:, 1] = paddle.to_tensor([7.0, 8.0, 9.0, 10.0])
    x[-1, ::2] = -3
    x[..., 2] += 100
    return x


@paddle.jit.to_static
def alias(x):
    z = x * 1
    w = z
    z[0, 0] = 42.0
    return w


@paddle.jit.to_static
def masked(x):
    x[x > 6] = 0
    x[x < 2] = x.mean()
    return x


@paddle.jit.to_static
def masked_rows(x):
    m = x[:, 0] > 4
    x[m] = paddle.to_tensor([1.0, 2.0, 3.0])
    return x


@paddle.jit.to_static
def tensor_index(x):
    x[[1, 2], [2, 0]] = -1.0
    idx = paddle.to_tensor([0, 3])
    x[idx] = paddle.to_tensor([[9.0, 9.0, 9.0], [8.0, 8.0, 8.0]])
    x[:, paddle.to_tensor([1])] = 0.5
    x[1:3, paddle.to_tensor([2])] = 6.0
    return x


@paddle.jit.to_static
def in_branch(x):
    if x.sum() > 0:
        x[0] = 1.0
    else:
        x[1, 1:] = 2.0
    return x


@paddle.jit.to_static
def in_loop(x, n):
    i = paddle.zeros([], dtype="int64")
    while i < n:
        x[i] = i.astype("float32") * 10
        x[i, 2] = -1.0
        i = i + 1
    return x


@paddle.jit.to_static
def in_for(x):
    for i in range(paddle.shape(x)[0]):
        x[:, i % 3] += 1.0
    return x


@paddle.jit.to_static
def containers(x):
    lst = [x, x + 1]
    lst[1] = x * 3
    d = {"a": x}
    d["b"] = x - 1
    grid = [x * 0, x * 0]
    grid[0][1] = 7.0
    return lst[1] + d["b"] + grid[0]


show("basic", basic(paddle.ones([4, 3]), paddle.full([2, 3], 2.0)))
show("alias", alias(paddle.ones([2, 2])))
show("masked", masked(paddle.arange(12, dtype="float32").reshape([4, 3])))
show("masked_rows", masked_rows(paddle.arange(12, dtype="float32").reshape([4, 3])))
show("tensor_index", tensor_index(paddle.arange(12, dtype="float32").reshape([4, 3])))
show("in_branch pos", in_branch(paddle.ones([3, 3])))
show("in_branch neg", in_branch(-paddle.ones([3, 3])))
show("in_loop", in_loop(paddle.ones([4, 3]), paddle.to_tensor(3)))
show("in_for", in_for(paddle.zeros([4, 3])))
show("containers", containers(paddle.ones([2, 2])))
