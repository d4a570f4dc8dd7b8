# paddle.nn.LayerDict (the dict protocol, parameters, a forward over it) and
# paddle.static.accuracy / paddle.metric.accuracy with k = 1 and k > 1.
from collections import OrderedDict

import numpy as np
import paddle


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


sub = OrderedDict([("linear", paddle.nn.Linear(4, 3)), ("conv2d", paddle.nn.Conv2D(4, 2, 3)),
                   ("bn", paddle.nn.BatchNorm2D(2))])
ld = paddle.nn.LayerDict(sublayers=sub)
print(len(ld), list(ld.keys()), "bn" in ld, "nope" in ld)
for k in ld:
    print(k, type(ld[k]).__name__)
print("parameters", len(ld.parameters()), [list(p.shape) for p in ld.parameters()])
ld["relu"] = paddle.nn.ReLU()
print(list(ld.keys()))
p = ld.pop("linear")
print(type(p).__name__, len(ld))
del ld["bn"]
print([k for k, v in ld.items()], [type(v).__name__ for v in ld.values()])
ld.update([("tanh", paddle.nn.Tanh())])
ld.update({"sig": paddle.nn.Sigmoid()})
print(list(ld.keys()))
ld.clear()
print(len(ld))
try:
    ld["x"]
except KeyError as e:
    print("KeyError", e)


class Heads(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.heads = paddle.nn.LayerDict({"a": paddle.nn.Linear(3, 2), "b": paddle.nn.Linear(3, 2)})
        for i, prm in enumerate(self.parameters()):
            prm.set_value(np.linspace(-1, 1, int(np.prod(prm.shape))).reshape(prm.shape)
                          .astype("float32") * (i + 1))

    def forward(self, x):
        return [self.heads[k](x) for k in ["a", "b"]]


h = Heads()
print("named", [n for n, _ in h.named_parameters()])
for o in h(paddle.to_tensor([[1.0, 2.0, -1.0]])):
    show("head", o)

scores = paddle.to_tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
label = paddle.to_tensor([[1], [1], [2], [0]], "int64")
show("accuracy k1", paddle.static.accuracy(scores, label))
show("accuracy k2", paddle.static.accuracy(input=scores, label=label, k=2))
show("accuracy k3", paddle.static.accuracy(scores, label, k=3))
show("metric accuracy", paddle.metric.accuracy(scores, label))
