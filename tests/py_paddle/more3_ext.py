# diagonal_scatter, select_scatter, unfold, cdist, combinations, frexp, renorm, multigammaln,
# shard_index, crop, nextafter (subnormals, overflow, NaN, exact), angle/conj on real input,
# in-place where_/ldexp_/renorm_/multigammaln_, finfo/iinfo and batch, as functions and Tensor
# methods; edge cases and bad arguments. Values rounded to 4 decimals (tolerance 1e-4).
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, (tuple, list)):
        for i, e in enumerate(t):
            show("%s[%d]" % (name, i), e)
        return
    if not isinstance(t, paddle.Tensor):
        print(name, t)
        return
    a = t.numpy()
    if a.dtype == np.bool_ or a.dtype.kind in "iu":
        print(name, str(t.dtype).replace("paddle.", ""), t.shape, a.tolist())
    else:
        print(name, str(t.dtype).replace("paddle.", ""), t.shape,
              (np.round(a.astype("float64"), 4) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


rs = np.random.RandomState(3)
x = paddle.to_tensor(rs.randn(3, 4).astype("float32"))
x3 = paddle.to_tensor(rs.randn(2, 3, 4).astype("float32"))

show("diagonal_scatter", paddle.diagonal_scatter(x, paddle.to_tensor([1.0, 2.0, 3.0])))
show("diagonal_scatter off", x.diagonal_scatter(paddle.to_tensor([7.0, 8.0, 9.0]), offset=1))
show("diagonal_scatter neg", paddle.diagonal_scatter(x, paddle.to_tensor([5.0, 6.0]), offset=-1))
show("diagonal_scatter 3d", paddle.diagonal_scatter(x3, paddle.ones([3, 2]), 0, 0, 2))
show("diagonal_scatter int", paddle.diagonal_scatter(paddle.zeros([3, 3], "int64"),
                                                     paddle.to_tensor([4, 5, 6])))
show("select_scatter", paddle.select_scatter(x, paddle.to_tensor([1.0, 2.0, 3.0]), 1, 2))
show("select_scatter neg", x3.select_scatter(paddle.zeros([2, 4]), 1, -1))
show("unfold", paddle.arange(8, dtype="float32").unfold(0, 3, 2))
show("unfold 2d", x.unfold(1, 2, 1))
show("unfold whole", x.unfold(0, 3, 5))
y = paddle.to_tensor(rs.randn(5, 4).astype("float32"))
show("cdist", paddle.cdist(x, y))
show("cdist p1", paddle.cdist(x, y, p=1.0))
show("cdist p0", paddle.cdist(paddle.round(x), paddle.round(y), p=0))
show("cdist p3", paddle.cdist(x, y, p=3))
show("cdist inf", paddle.cdist(x, y, p=float("inf")))
show("cdist batch", paddle.cdist(x3, paddle.to_tensor(rs.randn(2, 2, 4).astype("float32"))))
v = paddle.to_tensor([1, 2, 3, 4])
show("combinations", paddle.combinations(v))
show("combinations 3", v.combinations(3))
show("combinations repl", paddle.combinations(paddle.to_tensor([1.0, 2.0, 3.0]),
                                              with_replacement=True))
show("combinations r>n", paddle.combinations(v, 5))
show("frexp", paddle.frexp(paddle.to_tensor([8.0, -0.3, 0.0, 1.0, 1000.5, -7.0])))
show("frexp m", x.frexp())
show("renorm", paddle.renorm(x, 2.0, 0, 1.5))
show("renorm axis1 p1", x.renorm(1.0, 1, 1.0))
show("multigammaln", paddle.multigammaln(paddle.to_tensor([2.5, 3.0, 10.0]), 2))
show("multigammaln p1", paddle.to_tensor([[1.5, 4.0]]).multigammaln(1))
lab = paddle.to_tensor([[16], [1], [7], [19]])
show("shard_index", paddle.shard_index(lab, 20, 2, 0))
show("shard_index 1", lab.shard_index(20, 2, 1, ignore_value=-5))
show("crop", paddle.crop(x, shape=[2, 2], offsets=[1, 1]))
show("crop -1", paddle.crop(x3, shape=[1, -1, 2], offsets=[1, 0, 2]))
show("crop none", paddle.crop(x))
show("angle", paddle.angle(paddle.to_tensor([-2.0, 0.0, 3.0])))
show("angle m", x.angle())
show("conj", paddle.conj(x))
c = x.clone()
c.where_(c > 0, paddle.zeros_like(c)) if False else paddle.where_(c > 0, c, paddle.zeros_like(c))
show("where_", c)
d = paddle.to_tensor([1.0, 2.0, 3.0])
d.ldexp_(paddle.to_tensor([1, 2, -1]))
show("ldexp_", d)
r = x.clone()
r.renorm_(2.0, 1, 0.5)
show("renorm_", r)
g = paddle.to_tensor([2.5, 4.0])
g.multigammaln_(3)
show("multigammaln_", g)
fi = paddle.finfo(paddle.float32)
print("finfo32", fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.resolution)
f6 = paddle.finfo(paddle.float64)
print("finfo64", f6.bits, f6.eps, f6.max, f6.tiny)
for dt in [paddle.int32, paddle.int64]:
    ii = paddle.iinfo(dt)
    print("iinfo", ii.bits, ii.min, ii.max)


def reader():
    return iter(range(7))


print("batch", list(paddle.batch(reader, 3)()))
print("batch drop", list(paddle.batch(reader, 3, drop_last=True)()))
print("disable_signal_handler", paddle.disable_signal_handler())

nx = paddle.to_tensor([1.0, 1.0, 0.0, 0.0, 2.0, -2.0, 3.0, 1e-40, 3.4028235e38, 5.0,
                       1.1754944e-38, 0.75])
ny = paddle.to_tensor([2.0, 0.0, 1.0, -1.0, 3.0, 0.0, 3.0, 0.0, 1e39, float("nan"), 0.0, -5.0])
print("nextafter", [repr(float(v)) for v in paddle.nextafter(nx, ny).numpy()])
print("nextafter f64", paddle.to_tensor([1.0, -3.5, 0.0], dtype="float64").nextafter(
    paddle.to_tensor([2.0, -4.0, -1.0], dtype="float64")).numpy().tolist())

err("nextafter shapes", lambda: paddle.nextafter(nx, ny[:3]))
err("diagonal_scatter shape", lambda: paddle.diagonal_scatter(x, paddle.ones([2])))
err("select_scatter shape", lambda: paddle.select_scatter(x, paddle.ones([4]), 1, 0))
err("unfold size", lambda: x.unfold(1, 5, 1))
err("cdist dims", lambda: paddle.cdist(x, paddle.ones([5, 3])))
err("combinations 2d", lambda: paddle.combinations(x))
err("frexp int", lambda: paddle.frexp(v))
err("renorm axis", lambda: paddle.renorm(x, 2.0, 2, 1.0))
err("multigammaln p0", lambda: paddle.multigammaln(x, 0))
err("shard_index id", lambda: paddle.shard_index(lab, 20, 2, 2))
err("batch size", lambda: paddle.batch(reader, 0))
err("finfo int", lambda: paddle.finfo(paddle.int32))
