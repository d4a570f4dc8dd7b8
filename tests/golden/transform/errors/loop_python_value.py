import paddle


@paddle.jit.to_static
def trail(x):
    path = "start"
    while paddle.sum(x) < 10:
        x = x * 2
        path = path + "x2"
    return x, path


trail(paddle.to_tensor([1.0, 2.0]))
