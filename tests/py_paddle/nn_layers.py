# nn.Layer subclasses: parameters and names, state_dict, hooks, containers, forward.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def show(name, t):
    a = t.numpy()
    print(name, t.dtype, t.shape, np.round(a.astype("float64"), 4).tolist())


class Block(nn.Layer):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, 3, padding=1, bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.block = Block(2, 4)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(4, 3)
        self.head = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
        self.extra = nn.LayerList([nn.Linear(3, 2), nn.Linear(2, 2)])
        self.register_buffer("scale", paddle.to_tensor([2.0]))
        self.offset = paddle.to_tensor([0.5])
        self.plain = 3

    def forward(self, x):
        h = self.pool(self.block(x))
        h = paddle.flatten(h, 1)
        h = self.head(self.fc(h))
        for layer in self.extra:
            h = layer(h)
        return h * self.scale + self.offset


net = Net()
print(net.full_name(), net.block.full_name(), net.fc.full_name())
for name, p in net.named_parameters():
    print("param", name, p.name, p.shape, p.dtype, p.stop_gradient, p.persistable)
print("state", list(net.state_dict().keys()))
print("buffers", [n for n, _ in net.named_buffers()])
print("sublayers", [n for n, _ in net.named_sublayers()])
print("children", [type(c).__name__ for c in net.children()])
print("nparams", len(net.parameters()), len(net.block.parameters()))
print("training", net.training, net.block.bn.training)
net.eval()
print("eval", net.training, net.block.bn.training, net.head[0].training)
net.train()
print("train", net.training, net.head[1].training)
net.eval()
print(net.plain, len(net.head), len(net.extra), type(net.head[0]).__name__, type(net.extra[-1]).__name__)

# deterministic weights from NumPy, loaded by name
sd = {}
for key, value in net.state_dict().items():
    rng = np.random.RandomState(len(key) * 7 + len(value.shape))
    arr = rng.uniform(-0.5, 0.5, size=value.shape).astype("float32")
    if key.endswith("_variance"):
        arr = np.abs(arr) + 0.5
    sd[key] = arr
missing, unexpected = net.set_state_dict(sd)
print("load", missing, unexpected)
inp = paddle.to_tensor(np.random.RandomState(3).rand(2, 2, 5, 5).astype("float32"))
out = net(inp)
show("out", out)
print(out.stop_gradient)


def pre_hook(layer, inputs):
    print("pre_hook", type(layer).__name__, len(inputs))
    return (inputs[0] * 2.0,)


def post_hook(layer, inputs, output):
    print("post_hook", output.shape)
    return output + 1.0


fc = nn.Linear(2, 2)
fc.set_state_dict({"weight": np.array([[1.0, 2.0], [3.0, 4.0]], dtype="float32"),
                   "bias": np.array([0.5, -0.5], dtype="float32")})
h1 = fc.register_forward_pre_hook(pre_hook)
h2 = fc.register_forward_post_hook(post_hook)
show("hooked", fc(paddle.to_tensor([[1.0, 1.0]])))
h1.remove()
h2.remove()
show("unhooked", fc(paddle.to_tensor([[1.0, 1.0]])))

seq = nn.Sequential(("first", nn.Linear(2, 3)), ("act", nn.ReLU()))
print([n for n, _ in seq.named_children()], type(seq["act"]).__name__)
ll = nn.LayerList()
ll.append(nn.Linear(1, 1))
ll.append(nn.ReLU())
print(len(ll), [type(l).__name__ for l in ll])

p = fc.create_parameter([2, 3])
print(p.shape, p.dtype, p.persistable)
init_const = paddle.nn.initializer.Constant(0.25)
lin = nn.Linear(3, 2, weight_attr=paddle.ParamAttr(initializer=init_const), bias_attr=False)
print(lin.bias, lin.weight.numpy().tolist())
lin2 = nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name="my_weight"))
print(lin2.weight.name, lin2.bias.name)
emb = nn.Embedding(5, 3, padding_idx=0)
print(emb.weight.shape, emb.weight.name)
ln = nn.LayerNorm([4])
print([(n, p.shape) for n, p in ln.named_parameters()])
drop = nn.Dropout(0.3)
drop.eval()
show("dropout", drop(paddle.to_tensor([1.0, 2.0])))
print(nn.Linear(4, 3))
print(nn.Conv2D(2, 3, 3, stride=2, padding=1))
print(nn.BatchNorm2D(3), nn.LayerNorm(4), nn.Embedding(10, 4))
print(nn.MaxPool2D(2, 2), nn.AvgPool2D(3), nn.AdaptiveAvgPool2D(1))
print(nn.ReLU(), nn.Flatten(), nn.Softmax(), nn.GELU(), nn.Dropout(0.5))
print(Block(1, 2))
