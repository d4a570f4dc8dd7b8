# Fallback: a nested function writes a nonlocal variable; the to_static function is traced.
import numpy as np
import paddle


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def accumulate(xs):
    total = paddle.zeros([2])

    def add(v):
        nonlocal total
        total = total + v * v

    for v in xs:
        add(v)
    return paddle.sqrt(total)


xs = [paddle.to_tensor(np.array([1.0, 2.0], dtype="float32")),
      paddle.to_tensor(np.array([2.0, -2.0], dtype="float32")),
      paddle.to_tensor(np.array([2.0, 1.0], dtype="float32"))]
show("norm", accumulate(xs))
show("norm2", accumulate([v * 2.0 for v in xs]))
