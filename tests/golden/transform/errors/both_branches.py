import paddle


@paddle.jit.to_static
def split(x):
    if paddle.sum(x) > 0:
        pos = x
    else:
        neg = -x
    return pos + neg


split(paddle.to_tensor([1.0, 2.0]))
