# Fallback at run time: the `if` of a list comprehension tests a tensor, which the transforms
# leave to Python; building the Program fails there, so dy2st traces the function instead.
import numpy as np
import paddle


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def positive_sum(xs, scale):
    kept = [v * scale for v in xs if v.sum() > 0]
    total = kept[0]
    for v in kept[1:]:
        total = total + v
    return total


xs = [paddle.to_tensor(np.array([1.0, 2.0], dtype="float32")),
      paddle.to_tensor(np.array([-3.0, 1.0], dtype="float32")),
      paddle.to_tensor(np.array([0.5, 0.25], dtype="float32"))]
show("sum", positive_sum(xs, 2.0))
show("sum2", positive_sum([v * 3.0 for v in xs], 2.0))
