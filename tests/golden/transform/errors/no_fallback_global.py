# run with --no-fallback
import paddle

calls = 0


@paddle.jit.to_static
def counted(x):
    global calls
    calls += 1
    return x * 2


counted(paddle.to_tensor([1.0, 2.0]))
