# Edges of tensor functions beyond their doc examples: put_along_axis's
# reductions and include_self, unique over an axis, quantile / nanquantile /
# nanmedian over several axes, tensordot's axes forms, set_flags/get_flags,
# and their errors.
import paddle

x = paddle.to_tensor([[1.5, -2.0, 4.0], [0.5, 3.0, -1.0]])
idx = paddle.to_tensor([[1, 0, 1], [1, 1, 0]])
val = paddle.to_tensor([[2.0, 8.0, -3.0], [6.0, 1.0, 5.0]])
for red in ["assign", "add", "mul", "mean", "amin", "amax"]:
    for inc in [True, False]:
        r = paddle.put_along_axis(x, idx, val, 0, red, inc, False)
        print(red, inc, r.numpy().round(5).tolist())
xi = paddle.to_tensor([[7, -3], [5, 9]])
print("int mean", paddle.put_along_axis(xi, paddle.to_tensor([[0, 0]]), paddle.to_tensor([[-2, 4]]),
                                        0, "mean").numpy().tolist())
print("broadcast", paddle.put_along_axis(x, paddle.to_tensor([[2]]), 9.0, 1).numpy().tolist())
try:
    paddle.put_along_axis(x, idx, val, 0, "median")
except ValueError as e:
    print("ValueError")

u = paddle.to_tensor([[1, 2, 1, 2], [3, 0, 3, 0], [1, 2, 1, 2]])
out, index, inverse, counts = paddle.unique(u, return_index=True, return_inverse=True,
                                            return_counts=True, axis=1)
print("unique axis 1", out.numpy().tolist(), index.numpy().tolist(), inverse.numpy().tolist(),
      counts.numpy().tolist())
out, inverse, counts = paddle.unique_consecutive(u, return_inverse=True, return_counts=True,
                                                 axis=0)
print("unique_consecutive axis 0", out.numpy().tolist(), inverse.numpy().tolist(),
      counts.numpy().tolist())
f = paddle.to_tensor([[0.5, 0.25], [0.5, 0.25], [-1.0, 0.0]])
print("unique float axis 0", paddle.unique(f, axis=0).numpy().tolist())

y = paddle.arange(24, dtype="float32").reshape([2, 3, 4])
print("quantile [0, 2]", paddle.quantile(y, 0.3, axis=[0, 2]).numpy().round(5).tolist())
print("quantile [2, 0] keepdim", paddle.quantile(y, [0.25, 0.75], axis=[2, 0],
                                                 keepdim=True).shape)
y[0, 1, 2] = float("nan")
print("nanquantile [-1, 1]", paddle.nanquantile(y, 0.5, axis=[-1, 1]).numpy().round(5).tolist())
print("nanmedian (1, 2) keepdim", paddle.nanmedian(y, axis=(1, 2), keepdim=True).numpy().tolist())
for bad in [[0, 0], (0, 1), [0, 3]]:
    try:
        paddle.quantile(y, 0.5, axis=bad)
        print("no error")
    except ValueError:
        print("ValueError")

a = paddle.arange(24, dtype="float64").reshape([2, 3, 4])
b = paddle.arange(36, dtype="float64").reshape([3, 3, 4])
print("tensordot [1, 2]", paddle.tensordot(a, b, axes=[1, 2]).numpy().tolist())
print("tensordot [[1], [0, 2]]", paddle.tensordot(a, paddle.arange(48, dtype="float64").reshape(
    [3, 4, 4]), axes=[[1], [0, 2]]).shape)
c = paddle.ones([2, 1, 4], dtype="float64")
print("tensordot size 1", paddle.tensordot(c, b, axes=[[1], [0]]).shape)

paddle.set_flags({"FLAGS_use_stride_kernel": True})
print(paddle.get_flags("FLAGS_use_stride_kernel"))
print(paddle.base.get_flags(["FLAGS_use_stride_kernel"]))

# einsum with '...': broadcast dims of different ranks, implicit outputs
e1 = paddle.arange(24, dtype="float32").reshape([2, 3, 4])
e2 = paddle.arange(20, dtype="float32").reshape([4, 5])
e3 = paddle.arange(12, dtype="float32").reshape([1, 3, 4])
print("einsum ...ij,jk", paddle.einsum("...ij,jk", e1, e2).shape)
print("einsum ...ij,jk->...ik", paddle.einsum("...ij,jk->...ik", e1, e2).numpy()[1].tolist())
print("einsum bij,...ij->...", paddle.einsum("bij,...ij->...", e1, e3).numpy().tolist())
print("einsum i...->...", paddle.einsum("i...->...", e1).numpy().tolist())
print("einsum ...", paddle.einsum("...", e2).shape)
for bad in ["i...j...->ij", "ijkl...->i"]:
    try:
        paddle.einsum(bad, e1)
        print("no error")
    except (ValueError, AssertionError):  # Paddle asserts; dy2st raises ValueError
        print("error")

# poisson from Paddle's generator: small rates (product of uniforms) and
# rates of 12 and more (rejection), float32 and float64
paddle.seed(7)
for means in [[0.0, 0.5, 3.0, 11.9], [12.0, 12.5, 30.0, 100.0], [1000.0, 55555.0, 2.5, 17.0]]:
    print("poisson", paddle.poisson(paddle.to_tensor(means * 5)).numpy().astype("int64").tolist())
print("poisson f64", paddle.poisson(paddle.to_tensor([[20.0, 40.0], [7.0, 250.0]],
                                                     dtype="float64")).numpy().tolist())
try:
    paddle.poisson(paddle.to_tensor([1, 2]))
    print("no error")
except (TypeError, RuntimeError):  # Paddle: no int64 kernel (RuntimeError); dy2st: TypeError
    print("error")

# as_strided (offset 0: Paddle 2.6 counts a nonzero offset in bytes) and view as a dtype
s = paddle.arange(12, dtype="float32").reshape([3, 4])
print("as_strided", paddle.as_strided(s, [2, 3], [4, 1]).numpy().tolist())
print("as_strided transposed", paddle.as_strided(s, [4, 3], [1, 4]).numpy().tolist())
print("view int32", paddle.view(s, "int32").numpy()[0].tolist())
print("view int64 as int32", paddle.view(paddle.to_tensor([1, 2], dtype="int64"),
                                         "int32").numpy().tolist())
print("view float16", paddle.view(s, "float16").shape)

# tensor_array_to_tensor: concat (sizes along axis) or stack
arr = [paddle.ones([2, 3]), paddle.zeros([2, 1])]
o, i = paddle.tensor.manipulation.tensor_array_to_tensor(arr)
print("tensor_array_to_tensor", o.numpy().tolist(), i.numpy().tolist(), i.dtype)
o, i = paddle.tensor.manipulation.tensor_array_to_tensor(input=[paddle.ones([2, 3])] * 2, axis=0,
                                                         use_stack=True)
print("tensor_array_to_tensor stack", o.shape, i.numpy().tolist())

# set_flags errors: a name that is not a flag, flags that are not a dict
try:
    paddle.set_flags({"x": 1})
except ValueError:
    print("ValueError")
try:
    paddle.set_flags(3)
except TypeError:
    print("TypeError")

# pca_lowrank, seeded: wide, tall without centring, float32; a bad q
paddle.seed(5)
for r in paddle.linalg.pca_lowrank(paddle.randn((4, 7), dtype="float64"), q=3):
    print("pca wide", r.numpy().round(6).tolist())
for r in paddle.linalg.pca_lowrank(paddle.randn((7, 4), dtype="float64"), q=3, center=False):
    print("pca tall", r.numpy().round(6).tolist())
for r in paddle.linalg.pca_lowrank(paddle.randn((6, 3))):
    print("pca f32", r.numpy().round(4).tolist())
try:
    paddle.linalg.pca_lowrank(paddle.ones([3, 4]), q=5)
except ValueError:
    print("ValueError")
