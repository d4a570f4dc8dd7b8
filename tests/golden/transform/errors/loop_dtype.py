import paddle


@paddle.jit.to_static
def count(x):
    i = paddle.zeros([1], dtype="int64")
    while i < 3:
        i = paddle.cast(i, "float32") + 1
    return i


count(paddle.to_tensor([1.0, 2.0]))
