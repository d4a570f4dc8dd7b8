# Tensor creation from Python values, attributes, printing and conversions.
import numpy as np
import paddle


def show(name, t):
    a = t.numpy()
    print(name, t.dtype, t.shape, np.round(a.astype("float64"), 4).tolist())


a = paddle.to_tensor([1.0, 2.0, 3.0])
b = paddle.to_tensor([[1, 2, 3], [4, 5, 6]])
c = paddle.to_tensor(np.array([1.5, -2.25]))
d = paddle.to_tensor([True, False, True])
e = paddle.to_tensor(3.5)
f = paddle.to_tensor(7)
g = paddle.to_tensor([1, 2], dtype="float32")
h = paddle.to_tensor(np.arange(6, dtype="int32").reshape(2, 3))
for name, t in [("a", a), ("b", b), ("c", c), ("d", d), ("e", e), ("f", f), ("g", g), ("h", h)]:
    print(name, t.dtype, t.shape, t.ndim, t.size, t.stop_gradient)

print(a)
print(b)
print(c)
print(d)
print(e)
print(f)
print(h)
print(paddle.to_tensor([[1.5, -2.0, 3.0], [4.0, 5.0, 600000.0]]))
print(paddle.to_tensor([0.5, 0.25, 0.125, 100.0]))
print(paddle.to_tensor(np.zeros((2, 0), dtype="float32")))
print(paddle.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 4) - 10.0))
print(paddle.to_tensor(np.arange(10, dtype="int64") * 3))
print(paddle.to_tensor(np.arange(2000, dtype="float32").reshape(40, 50) / 4.0))

print(a.numpy().dtype, b.numpy().dtype, c.numpy().dtype, d.numpy().dtype)
print(a.tolist(), b.tolist(), d.tolist())
print(e.item(), f.item(), float(e), int(f), a[1].item())
print(len(b), b.shape[0], b.shape[-1])

show("astype", b.astype("float32") / 2)
show("cast", paddle.cast(c, "int64"))
show("reshape", paddle.reshape(b, [3, 2]))
show("reshape0", paddle.reshape(h, [0, -1]))
show("transpose", paddle.transpose(b, [1, 0]))
show("T", b.T)
show("flatten", paddle.flatten(paddle.to_tensor(np.ones((2, 3, 4), dtype="float32")), 1))
show("squeeze", paddle.squeeze(paddle.to_tensor([[[1.0], [2.0]]])))
show("squeeze_ax", paddle.squeeze(paddle.to_tensor([[[1.0], [2.0]]]), axis=0))
show("unsqueeze", paddle.unsqueeze(a, 0))
show("unsqueeze2", paddle.unsqueeze(a, [0, 2]))
show("detach", a.detach())
show("clone", b.clone())
x = paddle.to_tensor([1.0, 2.0])
x.set_value(np.array([5.0, 6.0], dtype="float32"))
show("set_value", x)
print(paddle.is_tensor(a), paddle.is_tensor([1]))
print(a.dtype == paddle.float32, b.dtype == paddle.int64, str(d.dtype))
print(paddle.shape(b).numpy().tolist(), paddle.shape(b).dtype)
print(paddle.numel(b).item())
print(x.place)
