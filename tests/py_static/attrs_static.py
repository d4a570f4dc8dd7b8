# to_static: attributes (self.x = ..., obj.x = ...) assigned inside tensor if/while/for.
import numpy as np
import paddle


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


class Box:
    pass


class Counter(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.steps = 0

    @paddle.jit.to_static
    def forward(self, x):
        i = paddle.zeros([], dtype="int64")
        self.total = x * 0
        while i < 3:
            self.total = self.total + x
            i = i + 1
        if self.total.sum() > 5:
            self.flag = self.total * 2
        else:
            self.flag = self.total - 1
        for k in range(paddle.shape(x)[0]):
            self.total[k] = -1.0
        return self.total + self.flag


@paddle.jit.to_static
def plain_object(x):
    box = Box()
    box.value = x
    n = paddle.to_tensor(0)
    while n < 4:
        box.value = box.value * 2
        n += 1
    return box.value


show("counter small", Counter()(paddle.ones([2])))
show("counter big", Counter()(paddle.full([3], 2.0)))
show("plain_object", plain_object(paddle.ones([2])))
