# paddle.uniform, rand, randn, standard_normal, normal and randint with a shape given as a
# Tensor or as a list holding Tensors, as Paddle's docs show: in dygraph (concrete shapes) and
# in a static Program where the shape comes from paddle.shape of a fed input (known only when
# the Program runs), and with plain int shapes in static mode (Variables drawing on every run,
# not constants). Random streams differ from Paddle's, so this prints shapes, dtypes,
# bounds and loose statistics (the draws of 8000 values: mean within 0.1, std within 0.1).
import numpy as np
import paddle

shape_t = paddle.to_tensor([2, 3], dtype="int64")
dim_t = paddle.to_tensor(4, dtype="int32")
for name, t in [("uniform", paddle.uniform(shape_t, min=-1.0, max=1.0)),
                ("rand", paddle.rand([dim_t, 5])),
                ("randn", paddle.randn(shape_t)),
                ("standard_normal", paddle.standard_normal([2, dim_t])),
                ("normal", paddle.normal(0.0, 2.0, shape=shape_t)),
                ("randint", paddle.randint(0, 10, shape=[dim_t, 2]))]:
    print("dygraph", name, t.shape, t.dtype)

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 8], "float32")
    s = paddle.shape(x)
    u = paddle.uniform(s, dtype="float32", min=-2.0, max=3.0)
    r = paddle.rand([s[0], 4], dtype="float64")
    n = paddle.randn(s)
    sn = paddle.standard_normal([s[0], 8])
    nm = paddle.normal(1.0, 2.0, shape=s)
    ri = paddle.randint(-3, 4, shape=[s[0], 8])
    noisy = x + 0.1 * paddle.randn(paddle.shape(x))
    test = main.clone(for_test=True)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
xv = np.zeros((1000, 8), "float32")
outs = exe.run(main, feed={"x": xv}, fetch_list=[u, r, n, sn, nm, ri, noisy])
names = ["uniform", "rand", "randn", "standard_normal", "normal", "randint", "noisy"]
for nmn, o in zip(names, outs):
    print("static", nmn, o.shape, o.dtype)
uv, rv, nv, snv, nmv, riv, nov = outs
print("uniform in [-2, 3)", bool(uv.min() >= -2 and uv.max() < 3))
print("uniform mean 0.5, std 1.443", abs(float(uv.mean()) - 0.5) < 0.1, abs(float(uv.std()) - 5 / 12 ** 0.5) < 0.1)
print("rand in [0, 1)", bool(rv.min() >= 0 and rv.max() < 1), abs(float(rv.mean()) - 0.5) < 0.05)
for nmn, v, m, sd in [("randn", nv, 0, 1), ("standard_normal", snv, 0, 1), ("normal", nmv, 1, 2)]:
    print(nmn, "mean", m, "std", sd, abs(float(v.mean()) - m) < 0.1 * sd, abs(float(v.std()) - sd) < 0.1 * sd)
print("randint in [-3, 4)", bool(riv.min() == -3 and riv.max() == 3),
      sorted(set(riv.ravel().tolist())) == list(range(-3, 4)))
print("noise std 0.1", abs(float(nov.std()) - 0.1) < 0.01)
u2, = exe.run(main, feed={"x": xv[:7]}, fetch_list=[u])
print("batch of 7", u2.shape)
a, = exe.run(main, feed={"x": xv[:7]}, fetch_list=[u])
print("new draws per run", bool((a != u2).any()))
t1, t2 = exe.run(test, feed={"x": xv[:5]}, fetch_list=[u, n])
print("for_test clone draws too", t1.shape, t2.shape, bool(t1.min() >= -2 and t1.max() < 3))

# shapes of plain ints in static mode: still Variables of the Program, drawn on every run
main2, startup2 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main2, startup2):
    x2 = paddle.static.data("x2", [None, 3], "float32")
    cn = paddle.randn([2, 3])
    cu = paddle.uniform([4], min=2.0, max=3.0)
    cri = paddle.randint(5)
    cy = x2 + paddle.rand([3])
exe.run(startup2)
a = exe.run(main2, feed={"x2": np.zeros((2, 3), "float32")}, fetch_list=[cn, cu, cri, cy])
b = exe.run(main2, feed={"x2": np.zeros((2, 3), "float32")}, fetch_list=[cn, cu, cri, cy])
print("int shapes", [v.shape for v in a], [str(v.dtype) for v in a])
print("int shapes draw per run", [bool((p != q).any()) for p, q in zip(a, b)][:2],
      bool((a[3] != b[3]).any()))
print("uniform in [2, 3)", bool(a[1].min() >= 2 and a[1].max() < 3), "randint in [0, 5)",
      0 <= int(a[2][0]) < 5)
