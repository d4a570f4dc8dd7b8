# Layer.to(dtype=...), Layer.float(), Layer.astype() and to_static_state_dict: parameters and
# buffers cast in place (gradients too), each layer's printed dtype, bad arguments.
import paddle


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 3)
        self.bn = paddle.nn.BatchNorm1D(3)
        self.register_buffer("steps", paddle.to_tensor([1, 2], dtype="int64"))
        self.register_buffer("scratch", paddle.ones([2]), persistable=False)

    def forward(self, x):
        return self.bn(self.fc(x))


def show(tag, net):
    print(tag, net.fc)
    print("  ", [(n, str(p.dtype)) for n, p in net.named_parameters()])
    print("  ", [(n, str(b.dtype)) for n, b in net.named_buffers()])


paddle.seed(1)
net = Net()
net.fc.weight.set_value(paddle.to_tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]))
x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
net(x).sum().backward()
print(sorted(net.state_dict().keys()))
print(sorted(net.to_static_state_dict().keys()))
print(net.to() is net, net.to(device="cpu") is net)
show("to(cpu)", net)
net.to(dtype="float64")
show("to float64", net)
print("grad", net.fc.weight.grad.dtype)
print(net.fc(paddle.to_tensor([[1.0, 2.0]], dtype="float64")).numpy().round(4))
net.float()
show("float", net)
net.astype("float16")
show("astype float16", net)
net.astype(paddle.float32)
show("astype paddle.float32", net)
lin = paddle.nn.Linear(2, 2).astype("int32")
print(lin, lin.weight.dtype, lin.bias.numpy())
lin2 = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(
    initializer=paddle.nn.initializer.Constant(1.5))).float(excluded_layers=[paddle.nn.Linear])
print(lin2)
for bad in [lambda: net.astype("int4"), lambda: net.astype(3), lambda: net.to(device=3)]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", e)
try:
    net.float(excluded_layers=3)
except TypeError:
    print("TypeError")  # Paddle formats its message as a tuple
