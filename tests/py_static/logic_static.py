# to_static: float tensors in and/or of an if test are cast to bool, as Paddle does.
import numpy as np
import paddle


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def both(x, y):
    if x.sum() and y.sum() > 0:
        r = x + 1
    else:
        r = x - 1
    return r


@paddle.jit.to_static
def either(x, y):
    if x.mean() or y.mean():
        r = x * 2
    else:
        r = x * 0 + 7
    return r


show("both 1 1", both(paddle.ones([2]), paddle.ones([2])))
show("both 0 1", both(paddle.zeros([2]), paddle.ones([2])))
show("either 0 1", either(paddle.zeros([2]), paddle.ones([2])))
show("either 0 0", either(paddle.zeros([2]), paddle.zeros([2])))
