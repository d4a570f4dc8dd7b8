import paddle


@paddle.jit.to_static
def fallback(x):
    if paddle.max(x) > 3:
        pass
    else:
        low = x - 1
    return low * 2


fallback(paddle.to_tensor([1.0, 2.0]))
