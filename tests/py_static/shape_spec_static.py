# to_static with an InputSpec whose dynamic dims the function cannot be built for: specialised per call shape.
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def dtype_by_rows(x):
    if x.shape[0] > 1:
        y = paddle.cast(x, "float64")
    else:
        y = paddle.cast(x, "int64")
    return y


@paddle.jit.to_static(input_spec=[InputSpec([None, None], "float32")])
def numpy_of_shape(x):
    z = np.ones(x.shape, dtype="float32") * 2
    return x + paddle.to_tensor(z)


class Head(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)
        self.fc.weight.set_value(paddle.to_tensor([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]]))
        self.fc.bias.set_value(paddle.to_tensor([0.01, -0.02]))

    @paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
    def forward(self, x):
        y = self.fc(x)
        if x.shape[0] == 1:
            return y[0]
        return y


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def still_dynamic(x):
    return paddle.sum(x, axis=0) * 2


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32")])
def traced_by_rows(x):
    # `try` cannot be converted: traced, on each call's shapes
    try:
        y = x * 2
    except ValueError:
        y = x
    if x.shape[0] > 1:
        return y.sum(axis=0)
    return paddle.cast(y, "int64")


x2 = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
x1 = paddle.to_tensor([[1.5, -2.0, 0.5]])
x4 = paddle.arange(12, dtype="float32").reshape([4, 3])
for x in (x2, x1, x4, x2):
    show("dtype_by_rows", dtype_by_rows(x))
    show("numpy_of_shape", numpy_of_shape(x))
    show("still_dynamic", still_dynamic(x))
    show("traced_by_rows", traced_by_rows(x))
head = Head()
for x in (x2, x1, x4):
    show("head", head(x))
