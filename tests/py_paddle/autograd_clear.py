# clear_grad between training steps: the gradient is zeroed where it lies (a
# reference taken before sees the zeros), a gradient other tensors share is not
# zeroed for them, and accumulation starts again from zero. Values are printed
# with 4 decimals (float32 summation order differs; the tolerance is 5e-5).
import numpy as np
import paddle


def show(name, t):
    a = np.asarray(t.numpy(), dtype="float64")
    a = np.where(np.abs(a) < 5e-5, 0.0, a)
    print(name, list(a.shape), " ".join("%.4f" % v for v in a.flatten()))


w = paddle.to_tensor([[0.5, -1.0], [2.0, 0.25]], stop_gradient=False)
x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
(paddle.matmul(x, w) ** 2).sum().backward()
g = w.grad
show("w.grad", w.grad)
w.clear_grad()
show("held reference after clear_grad", g)
show("w.grad after clear_grad", w.grad)
for step in range(3):
    (paddle.matmul(x, w) * (step + 1)).sum().backward()
    show("w.grad step %d" % step, w.grad)
    w.clear_grad()

# a + b: both gradients come from the same upstream gradient
a = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
b = paddle.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
(a + b).sum().backward()
a.clear_grad()
show("a.grad cleared", a.grad)
show("b.grad kept", b.grad)

# an optimizer loop: clear_grad through the optimizer, gradients never leak
lin = paddle.nn.Linear(2, 2)
lin.weight.set_value(paddle.to_tensor([[0.1, 0.2], [0.3, 0.4]]))
lin.bias.set_value(paddle.to_tensor([0.0, 0.1]))
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
for step in range(3):
    loss = (lin(x) ** 2).mean()
    loss.backward()
    show("bias.grad step %d" % step, lin.bias.grad)
    opt.step()
    opt.clear_grad()
    show("bias.grad cleared %d" % step, lin.bias.grad)
show("weight", lin.weight)
