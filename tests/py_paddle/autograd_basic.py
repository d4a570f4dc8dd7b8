# Eager autograd: backward through elementwise, matmul and reduction ops with
# broadcasting, accumulation, retain_graph, clear_grad, leaves, detach and the
# grad modes. Gradients are printed with 4 decimals (float32 summation order
# differs between implementations; the tolerance is 5e-5).
import numpy as np
import paddle


def show(name, t):
    if t is None:
        print(name, None)
        return
    a = np.asarray(t.numpy() if isinstance(t, paddle.Tensor) else t, dtype="float64")
    a = np.where(np.abs(a) < 5e-5, 0.0, a)
    print(name, list(a.shape), " ".join("%.4f" % v for v in a.flatten()))


x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
b = paddle.to_tensor([0.5, -1.0, 2.0], stop_gradient=False)
c = paddle.to_tensor([[2.0], [3.0]])
print(x.stop_gradient, x.is_leaf, c.stop_gradient, c.is_leaf, x.grad)

# broadcasting: b is added to every row, c multiplies every column
y = (x + b) * c - x / (b + 3.0)
print(y.stop_gradient, y.is_leaf)
loss = y.sum()
loss.backward()
show("x.grad", x.grad)
show("b.grad", b.grad)
print(c.grad)

# a second backward through a new graph accumulates into .grad
loss2 = (x * x).mean()
loss2.backward()
show("x.grad acc", x.grad)
x.clear_grad()
show("x.grad cleared", x.grad)
x.clear_gradient(False)
print("x.grad dropped", x.grad)

# matmul, tanh, exp, sigmoid, reductions over axes
w = paddle.to_tensor([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], stop_gradient=False)
h = paddle.matmul(x, w)
z = paddle.tanh(h).sum(axis=1) + paddle.exp(h * 0.1).mean(axis=0).sum()
z = paddle.nn.functional.sigmoid(z)
z.sum().backward()
show("x.grad mm", x.grad)
show("w.grad mm", w.grad)
print(type(w.gradient()).__name__)
show("w.gradient()", w.gradient())

# retain_graph: backward twice through the same graph
x.clear_grad()
p = paddle.to_tensor([1.0, -2.0, 3.0], stop_gradient=False)
q = (p * p * p).sum()
q.backward(retain_graph=True)
show("p.grad 1", p.grad)
q.backward()
show("p.grad 2", p.grad)

# a non-scalar root: Paddle seeds it with ones; or with grad_tensor
p.clear_grad()
r = p * 2.0
r.backward()
show("p.grad ones", p.grad)
p.clear_grad()
r = p * p
r.backward(paddle.to_tensor([1.0, 0.5, 0.25]))
show("p.grad seeded", p.grad)

# a variable used several times sums its gradients
p.clear_grad()
u = p * 3.0
v = u * u + u + paddle.sin(u)
v.sum().backward()
show("p.grad reuse", p.grad)

# detach, no_grad, set_grad_enabled, enable_grad, is_grad_enabled
d = u.detach()
print("detach", d.stop_gradient, d.is_leaf)
print("enabled", paddle.is_grad_enabled())
with paddle.no_grad():
    print("no_grad", paddle.is_grad_enabled(), (p * 2).stop_gradient)
    with paddle.enable_grad():
        print("enable_grad", paddle.is_grad_enabled(), (p * 2).stop_gradient)
    print("back in no_grad", paddle.is_grad_enabled())
with paddle.set_grad_enabled(False):
    print("set_grad_enabled(False)", paddle.is_grad_enabled(), (p * 2).stop_gradient)
print("after", paddle.is_grad_enabled())
paddle.set_grad_enabled(False)
print("call form", paddle.is_grad_enabled(), (p + 1).stop_gradient)
paddle.set_grad_enabled(True)
print("restored", paddle.is_grad_enabled(), (p + 1).stop_gradient)


@paddle.no_grad()
def frozen(t):
    return t * 2


print("decorated no_grad", frozen(p).stop_gradient)

# stop_gradient setter: a tensor made a leaf that requires a gradient
s = paddle.to_tensor([2.0, 3.0])
s.stop_gradient = False
(s * s).sum().backward()
show("s.grad", s.grad)
# a non-leaf whose stop_gradient is set stops the flow through it
t = s * 2.0
t.stop_gradient = True
s.clear_grad()
((t + s) * s).sum().backward()
show("s.grad stopped", s.grad)

# comparisons and argmax give tensors that stop gradients
print((p > 0).stop_gradient, paddle.argmax(p).stop_gradient)

# parameters are leaves that require gradients
lin = paddle.nn.Linear(3, 2)
print(lin.weight.stop_gradient, lin.weight.is_leaf, lin.weight.grad)
out = lin(paddle.to_tensor([[1.0, 2.0, 3.0]]))
print(out.stop_gradient, out.is_leaf)
out.sum().backward()
show("bias.grad", lin.bias.grad)
show("weight.grad", lin.weight.grad)
lin.clear_gradients()
show("weight.grad cleared", lin.weight.grad)

# in-place assignment into tensors on the tape (set_value)
x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = x * 2
v = paddle.to_tensor([7.0], stop_gradient=False)
y[1:2] = v
y[2] = 0.0
print("inplace", y.stop_gradient, y.is_leaf)
(y * y).sum().backward()
show("x.grad inplace", x.grad)
show("v.grad inplace", v.grad)
z = paddle.zeros([3])
z[0:2] = x[0:2] * 3
print("into a constant", z.stop_gradient)
z.sum().backward()
show("x.grad inplace 2", x.grad)

# fluid.dygraph.guard leaves the grad mode alone
with paddle.no_grad():
    with paddle.base.dygraph.guard():
        pass
    print("no_grad after guard", paddle.is_grad_enabled())

# assigning a gradient; backward then adds to it
g0 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
g0.grad = paddle.to_tensor([5.0, 6.0])
show("assigned grad", g0.grad)
(g0 * g0).sum().backward()
show("assigned grad + backward", g0.grad)
try:
    g0.grad = None
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0].split(" (at ")[0])
