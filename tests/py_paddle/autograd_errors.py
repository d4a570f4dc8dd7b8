# What Paddle does with misuse of autograd: backward on a tensor that stops
# gradients, a second backward without retain_graph, unused inputs of
# paddle.grad, a wrong grad_tensor shape, integer tensors. Only the first
# line of each message is printed (Paddle appends where in its C++ it failed).
import paddle


def attempt(label, fn):
    try:
        r = fn()
        print(label, "ok", r)
    except Exception as e:
        print(label, type(e).__name__, str(e).split("\n")[0])


# backward on a tensor that stops gradients does nothing
x = paddle.to_tensor([1.0, 2.0, 3.0])
attempt("stop_gradient backward", lambda: x.sum().backward())
print(x.grad)

# a second backward through a freed graph
p = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
loss = (p * p).sum()
loss.backward()
try:
    loss.backward()
except Exception as e:
    lines = str(e).split("\n")
    print(type(e).__name__, "TensorWrappers" in lines[0], lines[1])
print("grad kept", p.grad.numpy().tolist())

# the same through an intermediate that was freed
y = p * 2.0
(y * 3.0).sum().backward()
try:
    (y * 4.0).sum().backward()
except Exception as e:
    print(type(e).__name__, "do not exist" in str(e))

# paddle.grad with an input the outputs do not depend on
q = paddle.to_tensor([1.0, 1.0], stop_gradient=False)
attempt("unused", lambda: paddle.grad([(p * 2.0).sum()], [p, q]))
attempt("unused stop_gradient", lambda: paddle.grad([(p * 2.0).sum()], [x]))
print(paddle.grad([(p * 2.0).sum()], [q], allow_unused=True))

# grad_tensor of the wrong shape
try:
    (p * 2.0).backward(paddle.to_tensor([1.0, 2.0, 3.0]))
except Exception as e:
    print(type(e).__name__, str(e).startswith("Tensor shape not match"))

# integer tensors: Paddle differentiates integer arithmetic
i = paddle.to_tensor([1, 2, 3], stop_gradient=False)
(i * 2).sum().backward()
print(i.grad.dtype, i.grad.numpy().tolist())
# an op with no gradient: indices stop gradients
f = paddle.to_tensor([1.5, 2.5], stop_gradient=False)
print("argmax", paddle.argmax(f).stop_gradient)

# in-place assignment into a leaf that requires a gradient
try:
    p[0] = 5.0
except Exception as e:
    print(type(e).__name__, "can't use inplace strategy" in str(e))

# a cast to an integer type keeps the gradient flowing, as integer arithmetic does
c = paddle.to_tensor([1.5, 2.5], stop_gradient=False)
k = paddle.cast(c, "int64")
print("cast to int", k.stop_gradient, paddle.shape(c).stop_gradient)
(k.astype("float32") * 3).sum().backward()
print(c.grad.numpy().tolist())
