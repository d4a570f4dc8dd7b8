import paddle


@paddle.jit.to_static
def pick(x):
    return x * 2 if paddle.mean(x) > 0 else paddle.cast(x, "int32")


pick(paddle.to_tensor([1.0, 2.0]))
