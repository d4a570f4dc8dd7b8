# run with --no-fallback
import paddle


@paddle.jit.to_static
def guarded(x):
    try:
        y = x + 1
    except ValueError:
        y = x
    return y


guarded(paddle.to_tensor([1.0, 2.0]))
