# Tensor hooks (register_hook, remove), retain_grads and the gradient of
# intermediates. Values are printed with 4 decimals (tolerance 5e-5).
import numpy as np
import paddle


def show(name, t):
    if t is None:
        print(name, None)
        return
    a = np.asarray(t.numpy(), dtype="float64")
    a = np.where(np.abs(a) < 5e-5, 0.0, a)
    print(name, list(a.shape), " ".join("%.4f" % v for v in a.flatten()))


x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
seen = []


def record(g):
    seen.append(g.numpy().tolist())


def double(g):
    return g * 2.0


h1 = x.register_hook(record)
h2 = x.register_hook(double)
print(type(h1).__name__)
(x * x).sum().backward()
show("x.grad doubled", x.grad)
print("hook saw", seen)
print(h2.remove(), h2.remove())
x.clear_grad()
(x * x).sum().backward()
show("x.grad after remove", x.grad)
h1.remove()

# a hook on an intermediate changes what flows below it
x.clear_grad()
y = x * 3.0
y.register_hook(lambda g: g + 1.0)
z = (y * y).sum()
z.backward()
show("x.grad via hooked y", x.grad)
print("y.grad without retain_grads", y.grad)

# retain_grads keeps an intermediate's gradient
x.clear_grad()
y = x * 0.3
y.retain_grads()
w = paddle.tanh(y)
w.retain_grads()
w.sum().backward()
show("y.grad", y.grad)
show("w.grad", w.grad)
show("x.grad", x.grad)
print(y.is_leaf, w.is_leaf, x.is_leaf)

# hooks run once per backward on the summed gradient of a reused tensor
count = []
x.clear_grad()
y = x * 2.0
y.register_hook(lambda g: count.append(1))
(y * y + y).sum().backward()
print("hook calls", len(count))
show("x.grad reused", x.grad)

# a hook on a parameter, as gradient clipping by hand
lin = paddle.nn.Linear(2, 2)
lin.weight.register_hook(lambda g: paddle.clip(g, -0.5, 0.5))
out = lin(paddle.to_tensor([[1.0, -2.0], [3.0, 0.5]]))
out.sum().backward()
show("clipped weight.grad", lin.weight.grad)
show("bias.grad", lin.bias.grad)

# a hook on a tensor that stops gradients is refused
try:
    paddle.to_tensor([1.0]).register_hook(record)
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])

# retained gradients are replaced, not summed, by each backward
v = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
y = v * 2
y.retain_grads()
l = (y * y).sum()
l.backward(retain_graph=True)
show("y.grad 1", y.grad)
l.backward()
show("y.grad 2", y.grad)
show("v.grad 2", v.grad)

# paddle.grad runs the hooks of intermediates and sets retained gradients,
# but not the hooks of leaves
seen = []
v.register_hook(lambda g: seen.append("leaf"))
z = v * 3
z.register_hook(lambda g: g * 10)
z.retain_grads()
show("grad through hooked z", paddle.grad([(z * z).sum()], [v])[0])
show("z.grad", z.grad)
show("grad of z itself", paddle.grad([(z * z).sum()], [z])[0])
print("leaf hook calls", seen)
