# to_static: a Layer whose sublayers live in a paddle.nn.LayerDict, chosen by a Python key and by
# a tensor condition, with paddle.static.accuracy of its scores.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


class Heads(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.heads = paddle.nn.LayerDict({"a": paddle.nn.Linear(3, 4), "b": paddle.nn.Linear(3, 4)})
        self.heads["act"] = paddle.nn.Softmax()
        for i, prm in enumerate(self.parameters()):
            prm.set_value(np.linspace(-1, 1, int(np.prod(prm.shape))).reshape(prm.shape)
                          .astype("float32") * (i + 1))

    @paddle.jit.to_static
    def forward(self, x, label, key="a"):
        h = self.heads[key](x)
        if paddle.mean(h) > 0:
            h = h + self.heads["b"](x)
        p = self.heads["act"](h)
        return p, paddle.static.accuracy(p, label), paddle.static.accuracy(p, label, k=2)


net = Heads()
net.eval()
x = paddle.to_tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0], [-1.0, 0.0, 1.0]])
label = paddle.to_tensor([[3], [0], [1]], "int64")
for key in ("a", "b"):
    for scale in (1.0, -1.0):
        p, a1, a2 = net(x * scale, label, key)
        show("probs " + key, p)
        show("acc1", a1)
        show("acc2", a2)
