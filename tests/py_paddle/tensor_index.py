# Indexing, slicing, assignment and iteration.
import numpy as np
import paddle


def show(name, t):
    a = t.numpy()
    print(name, t.dtype, t.shape, np.round(a.astype("float64"), 4).tolist())


x = paddle.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 4))
show("x[0]", x[0])
show("x[-1]", x[-1])
show("x[1, 2]", x[1, 2])
show("x[1, 2, 3]", x[1, 2, 3])
show("x[:, 1]", x[:, 1])
show("x[..., 1]", x[..., 1])
show("x[0, ..., 2]", x[0, ..., 2])
show("x[:, ::2]", x[:, ::2])
show("x[:, :, ::-1]", x[:, :, ::-1])
show("x[::-1]", x[::-1])
show("x[:, 1:]", x[:, 1:])
show("x[:, -2:, 1:3]", x[:, -2:, 1:3])
show("x[None]", x[None])
show("x[:, None]", x[:, None])
show("x[..., None]", x[..., None])
show("x[0, None, :, None]", x[0, None, :, None])
show("x[idx]", x[paddle.to_tensor([1, 0])])
show("x[:, idx]", x[:, paddle.to_tensor([2, 0, 2])])
show("x[:, t0]", x[:, paddle.to_tensor(1)])
show("x[list]", x[[1, 1, 0]])
show("x[5:]", x[5:])
show("x[0, 10:]", x[0, 10:])
show("x[1:2, 1:2, 1:2]", x[1:2, 1:2, 1:2])

y = paddle.to_tensor(np.zeros((3, 4), dtype="float32"))
y[0] = 1.0
show("y[0]=1", y)
y[1, 2] = 5.0
show("y[1,2]=5", y)
y[:, 3] = paddle.to_tensor([7.0, 8.0, 9.0])
show("y[:,3]=t", y)
y[1:, :2] = 2.0
show("y[1:,:2]=2", y)
y[2] = np.array([1.0, 2.0, 3.0, 4.0], dtype="float32")
show("y[2]=np", y)
y[-1, ::2] = -1.0
show("y[-1,::2]=-1", y)

for row in paddle.to_tensor([[1, 2], [3, 4], [5, 6]]):
    print("row", row.numpy().tolist(), row.shape)
print(len(x), len(x[0]))
z = paddle.to_tensor([10, 20, 30])
print([int(v) for v in z])
m = paddle.to_tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
show("m[m>0]", m[m > 0])
mm = m.clone()
mm[mm < 0] = 0.0
show("mm[mm<0]=0", mm)
mm[m > 4] = paddle.to_tensor(9.0)
show("mm[m>4]=9", mm)
k = paddle.to_tensor([1, 2, 3, 2])
show("k[k!=2]", k[k != 2])
