# F.hsigmoid_loss and nn.HSigmoidLoss: the default complete tree for even and odd class counts
# (every label), with and without bias, a custom tree, the gradients; bad arguments. Values
# rounded to 4 decimals (tolerance 1e-4).
import numpy as np
import paddle
import paddle.nn.functional as F


def show(name, t):
    a = t.numpy()
    print(name, t.shape, (np.round(a.astype("float64"), 4) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


rs = np.random.RandomState(5)
x = paddle.to_tensor(rs.randn(6, 4).astype("float32"))
for C in [6, 7, 2]:
    w = paddle.to_tensor((rs.rand(C - 1, 4) - 0.5).astype("float32"))
    b = paddle.to_tensor((rs.rand(C - 1, 1) - 0.5).astype("float32"))
    lab = paddle.to_tensor(np.arange(6) % C, dtype="int64")
    show("hsig C=%d" % C, F.hsigmoid_loss(x, lab, C, w, b))
    show("hsig nobias C=%d" % C, F.hsigmoid_loss(x, lab, C, w))
table = paddle.to_tensor(np.array([[0, 1, -1], [0, 2, 3], [0, 1, 4], [0, 2, -1], [0, -1, -1],
                                   [0, 2, 3]], "int64"))
code = paddle.to_tensor(np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 0], [1, 0, 0],
                                  [0, 0, 1]], "int64"))
wc = paddle.to_tensor((rs.rand(5, 4) - 0.5).astype("float32"))
bc = paddle.to_tensor((rs.rand(5, 1) - 0.5).astype("float32"))
show("hsig custom", F.hsigmoid_loss(x, paddle.zeros([6, 1], "int64"), 5, wc, bc, table, code))
layer = paddle.nn.HSigmoidLoss(4, 5)
print("layer params", [(n, p.shape) for n, p in layer.named_parameters()])
layer.weight.set_value(paddle.to_tensor((rs.rand(4, 4) - 0.5).astype("float32")))
layer.bias.set_value(paddle.to_tensor((rs.rand(4, 1) - 0.5).astype("float32")))
xg = paddle.to_tensor(x.numpy(), stop_gradient=False)
out = layer(xg, paddle.to_tensor([[0], [1], [2], [3], [4], [2]], dtype="int64"))
show("layer", out)
out.sum().backward()
show("grad x", xg.grad)
show("grad w", layer.weight.grad)
err("one class", lambda: F.hsigmoid_loss(x, paddle.zeros([6], "int64"), 1, w))
err("layer one class", lambda: paddle.nn.HSigmoidLoss(4, 1))
