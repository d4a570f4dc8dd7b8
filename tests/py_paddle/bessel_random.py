# i0, i0e, i1, i1e (functions, methods, i0_) over small, negative, series/asymptotic-boundary and
# large inputs, and polygamma (orders 0 to 5, negative and zero x), printed to 5 significant
# digits (relative tolerance 1e-5); paddle.normal_ and multinomial by their properties (their
# samples come from each library's own random stream); bad arguments.
import numpy as np
import paddle


def sig(name, t):
    print(name, t.shape, str(t.dtype).replace("paddle.", ""),
          ["%.5g" % v for v in t.numpy().astype("float64").ravel().tolist()])


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


x = paddle.to_tensor([0.0, 1e-3, 0.5, -1.0, 3.0, 10.0, -29.9, 30.1, 45.0, 80.0, 200.0])
for f in ["i0", "i0e", "i1", "i1e"]:
    sig(f, getattr(paddle, f)(x))
x64 = paddle.to_tensor([[0.25, -7.5], [15.0, 60.0]], dtype="float64")
sig("i0e f64", paddle.i0e(x64))
sig("i1 method", x64.i1())
y = paddle.to_tensor([1.0, -2.0, 4.0])
y.i0_()
sig("i0_", y)

px = paddle.to_tensor([0.5, 1.0, 2.5, 10.0, 100.0, -0.5, -1.5, 0.0, 1e-3, -40.3])
for n in [0, 1, 2, 3, 5]:
    sig("polygamma %d" % n, paddle.polygamma(px, n))
sig("polygamma f64 method", paddle.to_tensor([[0.25, 7.0]], dtype="float64").polygamma(4))
pg = paddle.to_tensor([1.0, 3.0])
pg.polygamma_(1)
sig("polygamma_", pg)

paddle.seed(7)
z = paddle.zeros([20000])
paddle.normal_(z, mean=2.0, std=0.5)
print("normal_ mean", abs(float(z.mean()) - 2.0) < 0.02, "std", abs(float(z.std()) - 0.5) < 0.02)
m = paddle.multinomial(paddle.to_tensor([0.0, 0.0, 3.0, 0.0]), 4, replacement=True)
print("multinomial one-hot", m.dtype, m.numpy().tolist())
m2 = paddle.multinomial(paddle.to_tensor([[0.0, 1.0, 0.0, 1.0], [5.0, 0.0, 0.0, 0.0]]), 1)
print("multinomial rows", m2.shape, m2.numpy()[1].tolist(), int(m2.numpy()[0, 0]) in (1, 3))
m3 = paddle.to_tensor([0.0, 2.0, 0.0, 2.0]).multinomial(2)
print("multinomial no replacement", sorted(m3.numpy().tolist()))
f = paddle.multinomial(paddle.to_tensor([0.2, 0.3, 0.5]), 30000, replacement=True).numpy()
freq = np.array([float((f == k).sum()) for k in range(3)]) / 30000.0
print("multinomial freq", np.allclose(freq, [0.2, 0.3, 0.5], atol=0.02))
perm = paddle.multinomial(paddle.ones([6]), 6).numpy()
print("multinomial permutation", sorted(perm.tolist()))

err("i0 int", lambda: paddle.i0(paddle.to_tensor([1, 2])))
err("polygamma negative n", lambda: paddle.polygamma(px, -1))
err("polygamma float n", lambda: paddle.polygamma(px, 1.5))
err("multinomial too many", lambda: paddle.multinomial(paddle.ones([3]), 4))
err("multinomial 3d", lambda: paddle.multinomial(paddle.ones([2, 2, 2])))
