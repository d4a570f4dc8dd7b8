# Storage dtypes (float16, bfloat16, int8, int16, uint8): paddle.to_tensor with a dtype, printing,
# astype/cast between dtypes (float16/bfloat16 rounding, overflow to inf, subnormals, integer
# wrap), tolist/item/numpy, zeros/ones/full, tensors from NumPy arrays, ToTensor on uint8 images,
# and the ops Paddle 2.6.2's CPU build refuses for these dtypes (printed as "error").
import numpy as np
import paddle


def show(name, t):
    print(name, str(t.dtype).replace("paddle.", ""), t.shape, t.tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception:
        print(name, "error")


for d in ["int8", "int16", "uint8", "float16", "bfloat16"]:
    print(paddle.to_tensor([[1, 2, 3], [-4, 5, 100]], dtype=d))
print(paddle.to_tensor([1.5, -2.7, 65504.0, 1e-5], dtype="float16"))
print(paddle.to_tensor([1.5, -2.7, 3.0e38], dtype="bfloat16"))
print(paddle.to_tensor([0, 128, 255], dtype=paddle.uint8))
print(paddle.to_tensor(7, dtype="int8"))

x = paddle.to_tensor([300.0, -129.5, 1e10, float("nan"), float("inf"), -1.0, 2.7, -2.7,
                      65519.0, 65520.0, 70000.0, 1e-5, 3.0e-8, 1.00146484375, 1.01171875])
for d in ["int8", "int16", "uint8", "float16", "bfloat16", "int32", "bool"]:
    y = x.astype(d)
    show("f32->" + d, y.astype("float32") if d == "bfloat16" else y)
    show("cast " + d, paddle.cast(x, d).astype("float64"))
i = paddle.to_tensor([100, -100, 200, 70000, -32769, 2147483647], dtype="int32")
for d in ["int8", "int16", "uint8", "float16", "bfloat16", "bool", "int64"]:
    show("i32->" + d, i.astype(d).astype("float64"))
for s in ["int8", "int16", "uint8", "float16", "bfloat16"]:
    t = paddle.to_tensor([0, 1, 2, 127], dtype=s)
    for d in ["float32", "float64", "int32", "int64", "bool", "int8", "int16", "uint8", "float16",
              "bfloat16"]:
        show(s + "->" + d, t.astype(d).astype("float64"))

# tolist, item and numpy
h = paddle.to_tensor([1.5, -2.7, 65504.0], dtype="float16")
print(h.tolist(), h.numpy().dtype, h.numpy().tolist(), h.item(1))
b = paddle.to_tensor([1.5, 2.7], dtype="bfloat16")
print(b.astype("float32").tolist(), b.astype("float32").numpy().tolist())
u = paddle.to_tensor([1, 200], dtype="uint8")
print(u.tolist(), u.numpy().dtype, u.numpy().tolist(), u.item(1))
print(paddle.to_tensor([-5, 5], dtype="int8").numpy().dtype,
      paddle.to_tensor([-5, 5], dtype="int16").numpy().dtype)

# creation
for d in ["int8", "int16", "uint8", "float16", "bfloat16"]:
    show("zeros " + d, paddle.zeros([2], dtype=d).astype("float32"))
    show("ones " + d, paddle.ones([2], dtype=d).astype("float32"))
    show("full " + d, paddle.full([2], 7, dtype=d).astype("float32"))

# NumPy arrays keep their dtype
for nd in [np.uint8, np.int8, np.int16, np.float16]:
    a = np.array([[1, 2], [3, 250]]).astype(nd)
    t = paddle.to_tensor(a)
    show("np", t.astype("float64"))
    print(t.numpy().dtype, t.numpy().tolist())

# uint8 HWC image -> CHW float32 in [0, 1]
from paddle.vision.transforms import ToTensor
img = np.array([(14 * k) % 256 for k in range(18)], dtype=np.uint8).reshape(2, 3, 3)
out = ToTensor()(img)
print(out.dtype, out.shape, ["%.5f" % v for v in out.numpy().ravel().tolist()])

# layout ops move the stored values as they are
for d in ["int8", "int16", "uint8", "float16", "bfloat16"]:
    m = paddle.to_tensor([[1, 2, 3], [-4, 5, 6]], dtype=d)
    for name, fn in [("reshape", lambda m: m.reshape([3, 2])),
                     ("transpose", lambda m: m.transpose([1, 0])),
                     ("concat", lambda m: paddle.concat([m, m], axis=1)),
                     ("stack", lambda m: paddle.stack([m, m])),
                     ("slice", lambda m: m[:, 1:]),
                     ("row", lambda m: m[1]),
                     ("unsqueeze", lambda m: m.unsqueeze(0)),
                     ("flatten", lambda m: m.flatten()),
                     ("expand", lambda m: m[0:1].expand([2, 3])),
                     ("gather", lambda m: paddle.gather(m, paddle.to_tensor([1, 0])))]:
        try:
            r = fn(m)
            show(d + " " + name, r.astype("float64"))
        except Exception:
            print(d, name, "error")

# comparisons (Paddle's CPU build compares every dtype)
for d in ["int8", "int16", "uint8", "float16", "bfloat16"]:
    p = paddle.to_tensor([[1, 2, 3], [-4, 5, 100]], dtype=d)
    q = paddle.to_tensor([2, 2, -4], dtype=d)
    print(d, (p < q).tolist(), (p <= q).tolist(), (p > q).tolist(), (p >= q).tolist(),
          (p == q).tolist(), (p != q).tolist())
f = paddle.to_tensor([float("nan"), 1.0, 65519.0], dtype="float16")
print((f == f).tolist(), (f != f).tolist(), (f < paddle.to_tensor([0.0, 2.0, 1.0], dtype="float16")).tolist())

# bad inputs and ops Paddle's CPU build has no kernel for
a8 = paddle.to_tensor([1, 2, 3], dtype="int8")
h16 = paddle.to_tensor([1, 2, 3], dtype="float16")
err("add int8", lambda: a8 + a8)
err("matmul float16", lambda: paddle.matmul(h16.reshape([1, 3]), h16.reshape([3, 1])))
err("mul uint8", lambda: paddle.to_tensor([1], dtype="uint8") * paddle.to_tensor([1], dtype="uint8"))
err("to_tensor float8", lambda: paddle.to_tensor([1], dtype="float8"))
err("astype bad name", lambda: x.astype("int9"))
err("compare mixed", lambda: paddle.to_tensor([1], dtype="int8") < paddle.to_tensor([1], dtype="int16"))
