# paddle.grad: leaves and intermediates, allow_unused, grad_outputs,
# no_grad_vars, create_graph (double grad of x**3, tanh, matmul) and the other
# spellings (paddle.autograd.grad/backward, fluid.dygraph.grad). Values are
# printed with 4 decimals (tolerance 5e-5).
import numpy as np
import paddle


def show(name, t):
    if t is None:
        print(name, None)
        return
    a = np.asarray(t.numpy(), dtype="float64")
    a = np.where(np.abs(a) < 5e-5, 0.0, a)
    print(name, list(a.shape), " ".join("%.4f" % v for v in a.flatten()), t.stop_gradient)


x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = paddle.to_tensor([0.5, -1.0, 2.0], stop_gradient=False)
z = x * y + x * x
gx, gy = paddle.grad([z.sum()], [x, y])
show("gx", gx)
show("gy", gy)
print("grad leaves untouched:", x.grad, y.grad)

# an intermediate as input
m = x * 2.0
n = (m * m).sum()
(gm,) = paddle.grad(n, m)
show("gm again", paddle.grad(n, m)[0])
show("gm", gm)
print(type(paddle.grad(n, [m], retain_graph=True)).__name__)

# allow_unused
u = paddle.to_tensor([1.0, 1.0], stop_gradient=False)
res = paddle.grad([(x * 3.0).sum()], [x, u], allow_unused=True)
show("used", res[0])
print("unused", res[1])

# grad_outputs weights the outputs
g = paddle.grad([x * x], [x], grad_outputs=[paddle.to_tensor([1.0, 0.0, 2.0])])[0]
show("weighted", g)
a1 = x * 2.0
a2 = x * x
g = paddle.grad([a1, a2], [x], grad_outputs=[None, paddle.to_tensor([1.0, 1.0, 1.0])])[0]
show("two outputs", g)

# no_grad_vars stops the gradient through a variable
k = x * x
w = (k + x).sum()
(g,) = paddle.grad([w], [x], no_grad_vars=[k])
show("no_grad_vars", g)

# double grad: x**3
(g1,) = paddle.grad([x ** 3], [x], create_graph=True)
show("d(x^3)", g1)
(g2,) = paddle.grad([g1], [x], create_graph=True)
show("d2(x^3)", g2)
(g3,) = paddle.grad([g2.sum()], [x])
show("d3(x^3)", g3)

# double grad: tanh
t = paddle.to_tensor([0.2, -0.5, 1.0], stop_gradient=False)
(gt,) = paddle.grad([paddle.tanh(t).sum()], [t], create_graph=True)
show("dtanh", gt)
(gt2,) = paddle.grad([gt.sum()], [t])
show("d2tanh", gt2)

# double grad: matmul, a gradient penalty as in WGAN-GP
A = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
B = paddle.to_tensor([[0.5, -1.0], [2.0, 0.25]], stop_gradient=False)
C = paddle.matmul(A, B)
out = (C * C).sum()
(gA,) = paddle.grad([out], [A], create_graph=True)
show("dA", gA)
pen = (gA * gA).sum()
pen.backward()
show("A.grad", A.grad)
show("B.grad", B.grad)

# create_graph then backward through the gradient (Paddle 1.8 notes)
x2 = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
y2 = x2 * x2
dx = paddle.base.dygraph.grad(outputs=[y2], inputs=[x2], create_graph=True, retain_graph=True)[0]
zz = y2 + dx
zz.backward()
show("x2.grad", x2.grad)

# paddle.autograd spellings
v = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
(gv,) = paddle.autograd.grad([(v * v).sum()], [v])
show("autograd.grad", gv)
paddle.autograd.backward([(v * 3.0).sum(), (v * v).sum()])
show("autograd.backward", v.grad)
v.clear_grad()
paddle.autograd.backward([v * 2.0], [paddle.to_tensor([1.0, 3.0])])
show("autograd.backward seeded", v.grad)

# edge cases: a leaf as root, an output as its own input, duplicate outputs,
# a constant gradient under create_graph, 0-d tensors
e = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
e.backward()
show("leaf root", e.grad)
show("grad of itself", paddle.grad([e], [e])[0])
f = e * 2
show("intermediate of itself", paddle.grad([f], [f])[0])
try:
    paddle.grad([f, f], [e])
except RuntimeError as err:
    print(str(err).split("\n")[0])
show("constant under create_graph", paddle.grad([(e * 3).sum()], [e], create_graph=True)[0])
s0 = paddle.to_tensor(2.0, stop_gradient=False)
(s0 * s0).backward()
(s0 * s0 * s0).backward()
show("0-d", s0.grad)
