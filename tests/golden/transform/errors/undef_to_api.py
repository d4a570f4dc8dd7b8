import paddle


@paddle.jit.to_static
def unbound(x, flag=False):
    if flag:
        y = x + 1
    return paddle.tanh(y)


unbound(paddle.to_tensor([1.0, 2.0]))
