import paddle


@paddle.jit.to_static
def mixed(x):
    if paddle.sum(x) > 0:
        y = x
    else:
        y = paddle.cast(x, "int64")
    return y


mixed(paddle.to_tensor([1.0, 2.0]))
