# to_static: the losses and loss Layers inside converted functions and a Layer's forward,
# with a data-dependent branch around them; InputSpec with a dynamic batch dim.
# Values printed rounded to 4 decimals.
import numpy as np
import paddle
import paddle.nn.functional as F
from paddle.static import InputSpec


def show(name, t):
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


@paddle.jit.to_static
def ce_losses(x, label, w):
    a = F.cross_entropy(x, label)
    b = F.cross_entropy(x, label, weight=w, reduction="sum")
    c = F.cross_entropy(x, label, reduction="none", label_smoothing=0.1)
    if paddle.mean(x) > 0:
        d = F.nll_loss(F.log_softmax(x), label)
    else:
        d = F.nll_loss(F.log_softmax(x), label, reduction="sum")
    return a, b, c, d


@paddle.jit.to_static
def reg_losses(x, y):
    return (F.mse_loss(x, y), F.l1_loss(x, y, reduction="sum"), F.smooth_l1_loss(x, y, delta=0.5),
            F.binary_cross_entropy(F.sigmoid(x), F.sigmoid(y)),
            F.binary_cross_entropy_with_logits(x, F.sigmoid(y), pos_weight=paddle.ones([3]) * 2),
            F.kl_div(F.log_softmax(x), F.softmax(y), reduction="batchmean"))


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3, weight_attr=paddle.nn.initializer.Assign(
            np.eye(3, dtype="float32") * 0.5), bias_attr=paddle.nn.initializer.Constant(0.1))
        self.ce = paddle.nn.CrossEntropyLoss()
        self.bce = paddle.nn.BCEWithLogitsLoss(reduction="none")

    @paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32"),
                                      InputSpec([None], "int64")])
    def forward(self, x, label):
        out = self.fc(x)
        return self.ce(out, label), self.bce(out, F.one_hot(label, 3))


x = paddle.to_tensor((np.sin(np.arange(12) * 0.8) * 2).reshape(4, 3).astype("float32"))
y = paddle.to_tensor((np.cos(np.arange(12) * 0.4)).reshape(4, 3).astype("float32"))
label = paddle.to_tensor(np.array([2, 0, 1, 1], dtype="int64"))
w = paddle.to_tensor(np.array([1.0, 0.5, 2.0], dtype="float32"))
for i, v in enumerate(ce_losses(x, label, w)):
    show("ce%d" % i, v)
for i, v in enumerate(ce_losses(-x, label, w)):
    show("ce neg%d" % i, v)
for i, v in enumerate(reg_losses(x, y)):
    show("reg%d" % i, v)
net = Net()
a, b = net(x, label)
show("net ce", a)
show("net bce", b)
a, b = net(x[:2], label[:2])
show("net ce 2", a)
