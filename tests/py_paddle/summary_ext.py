# paddle.summary on a CNN with batch norm (non-trainable statistics), a Sequential, a model with
# two inputs given as InputSpecs, a sublayer with tuple outputs, a layer with frozen parameters, a
# None batch dim; paddle.set_default_dtype("float32"); bad arguments.
import numpy as np
import paddle
import paddle.nn as nn
from paddle.static import InputSpec


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 4, 3)
        self.bn = nn.BatchNorm2D(4)
        self.pool = nn.MaxPool2D(2)
        self.fc = nn.Linear(36, 10)

    def forward(self, x):
        x = self.pool(paddle.nn.functional.relu(self.bn(self.conv(x))))
        return self.fc(paddle.flatten(x, 1))


class Two(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 5)
        self.b = nn.Linear(4, 5)

    def forward(self, x, y):
        return self.a(x) + self.b(y)


class Seq(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.split = Split()
        self.out = nn.Linear(3, 2)

    def forward(self, ids):
        a, b = self.split(self.emb(ids))
        return self.out(a * b)


class Split(nn.Layer):
    def forward(self, x):
        return x[:, :, :3], x[:, :, 3:]


paddle.set_default_dtype("float32")
net = Net()
net.train()
print(paddle.summary(net, (1, 1, 8, 8)))
print("still training", net.training)
print(paddle.summary(nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)), (None, 4)))
print(paddle.summary(Two(), [InputSpec([2, 3]), InputSpec([2, 4])]))
print(paddle.summary(Seq(), input=paddle.to_tensor([[1, 2, 3, 4]])))
frozen = nn.Linear(5, 5)
frozen.weight.stop_gradient = True
print(paddle.summary(frozen, [(3, 5)]))
err("no size", lambda: paddle.summary(net))
err("two unknown", lambda: paddle.summary(net, (None, 1, -1, 8)))
err("default int32", lambda: paddle.set_default_dtype("int32"))
