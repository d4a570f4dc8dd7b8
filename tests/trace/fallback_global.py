# Fallback: a to_static function (not a method) that assigns a global variable; traced instead.
import numpy as np
import paddle

SCALE = 1.0


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def scaled_sum(x, y, k=2):
    global SCALE
    SCALE = 0.5
    z = x * SCALE + y
    for _ in range(k):
        z = paddle.nn.functional.relu(z) - 0.25
    return z, paddle.sum(z, axis=-1)


a = paddle.to_tensor(np.linspace(-1, 1, 6).astype("float32").reshape(2, 3))
b = paddle.to_tensor(np.linspace(0, 2, 6).astype("float32").reshape(2, 3))
z, s = scaled_sum(a, b)
show("z", z)
show("s", s)
z, s = scaled_sum(b, a, k=3)
show("z3", z)
show("s3", s)
print("SCALE", SCALE)
