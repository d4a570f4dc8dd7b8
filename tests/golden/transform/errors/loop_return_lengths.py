import paddle


@paddle.jit.to_static
def search(x):
    i = paddle.zeros([1], dtype="int64")
    while i < 10:
        if paddle.sum(x) > 100:
            return x, i
        if paddle.sum(x) < -100:
            return x
        x = x * 2
        i = i + 1
    return x, i


search(paddle.to_tensor([1.0, 2.0]))
