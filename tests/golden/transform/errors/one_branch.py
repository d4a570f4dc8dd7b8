import paddle


@paddle.jit.to_static
def clipped(x):
    if paddle.sum(x) > 0:
        big = x * 2
    return big + 1


clipped(paddle.to_tensor([1.0, 2.0]))
