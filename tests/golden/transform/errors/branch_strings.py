import paddle


@paddle.jit.to_static
def labelled(x):
    if paddle.sum(x) > 0:
        mode = "up"
    else:
        mode = "down"
    return x, mode


labelled(paddle.to_tensor([1.0, 2.0]))
