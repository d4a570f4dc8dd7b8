# x[mask] = v and tensor indices separated by a slice inside to_static, as Paddle 2.6 assigns them.
import numpy as np
import paddle


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def mask_row_values(x):
    # a mask of x's shape: the value is expanded to x's shape (not one per selected element)
    y = x.clone()
    y[x > 0] = paddle.to_tensor([10.0, 20.0, 30.0])
    return y


@paddle.jit.to_static
def mask_column_values(x, v):
    y = x.clone()
    y[x < 0] = v
    return y


@paddle.jit.to_static
def mask_in_loop(x):
    y = x.clone()
    for i in range(3):
        y[y > i] = y.mean() - i
    return y


@paddle.jit.to_static
def mask_in_cond(x):
    y = x.clone()
    if x.sum() > 0:
        y[x > 0] = 0.0
    else:
        y[x < 0] = paddle.to_tensor([1.0, 2.0, 3.0])
    return y


@paddle.jit.to_static
def leading_mask(x):
    y = x.clone()
    y[x[:, :, 0] > 3] = paddle.to_tensor([100.0, 200.0])
    return y


@paddle.jit.to_static
def mask_one_row_each(x, v):
    # a mask over the leading dim with one value per selected row
    y = x.clone()
    y[x.sum(axis=1) > 0] = v
    return y


@paddle.jit.to_static
def mask_rows_2d(x):
    # a mask over two leading dims of a [2, 3, 2] tensor (4 selected): one [2] row for each
    y = x.clone()
    m = x[:, :, 0] > 3
    y[m] = paddle.arange(8, dtype="float32").reshape([4, 2]) * -1.0
    return y


@paddle.jit.to_static
def mask_rows_in_loop(x):
    y = x.clone()
    for i in range(2):
        y[y.sum(axis=1) > i] = paddle.to_tensor([[10.0], [20.0]]) + float(i)
    return y


@paddle.jit.to_static
def too_many_values(x):
    y = x.clone()
    try:
        y[x > 0] = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    except ValueError as e:
        print("too_many_values: ValueError")
    return y


@paddle.jit.to_static
def separated_scalar(x):
    y = x.clone()
    i = paddle.to_tensor([0, 1])
    j = paddle.to_tensor([1, 0])
    y[i, :, j] = 7.0
    return y


@paddle.jit.to_static
def separated_values(x):
    y = x.clone()
    i = paddle.to_tensor([0, 1])
    j = paddle.to_tensor([1, 0])
    y[i, :, j] = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    return y


@paddle.jit.to_static
def separated_int(x, k):
    y = x.clone()
    y[1, :, k] = paddle.to_tensor([-1.0, -2.0, -3.0])
    return y


x = paddle.to_tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
x3 = paddle.arange(12, dtype="float32").reshape([2, 3, 2])
show("mask_row_values", mask_row_values(x))
show("mask_column_values", mask_column_values(x, paddle.to_tensor([[-1.0], [-2.0]])))
show("mask_column_values", mask_column_values(x, paddle.to_tensor(9.0)))
show("mask_in_loop", mask_in_loop(x))
show("mask_in_cond", mask_in_cond(x))
show("mask_in_cond", mask_in_cond(-x - 1))
show("leading_mask", leading_mask(x3))
show("mask_one_row_each", mask_one_row_each(paddle.to_tensor([[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0], [2.0, 2.0, 2.0]]),
                                            paddle.to_tensor([[7.0, 8.0, 9.0], [4.0, 5.0, 6.0]])))
show("mask_one_row_each", mask_one_row_each(x * x, paddle.to_tensor([[7.0, 8.0, 9.0], [4.0, 5.0, 6.0]])))
show("mask_rows_2d", mask_rows_2d(x3))
show("mask_rows_in_loop", mask_rows_in_loop(paddle.to_tensor([[1.0, 1.0], [3.0, 3.0]])))
show("too_many_values", too_many_values(x))
show("separated_scalar", separated_scalar(x3))
show("separated_values", separated_values(x3))
show("separated_int", separated_int(x3, paddle.to_tensor([1])))
