# paddle scans, sorting, top-k, triangles, rolls, gathers and scatters.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, (tuple, list)):
        for i, e in enumerate(t):
            show("%s[%d]" % (name, i), e)
        return
    a = t.numpy()
    if a.dtype == np.bool_ or a.dtype.kind in "iu":
        print(name, t.dtype, t.shape, a.tolist())
    else:
        print(name, t.dtype, t.shape, np.round(a.astype("float64"), 4).tolist())


rng = np.random.RandomState(3)
x = paddle.to_tensor(rng.randn(3, 4).astype("float32"))
xi = paddle.to_tensor(rng.randint(-5, 5, (3, 4)))
show("cumsum", paddle.cumsum(x))
show("cumsum0", paddle.cumsum(x, axis=0))
show("cumsum_m", x.cumsum(-1))
show("cumsum_dt", paddle.cumsum(xi, axis=1, dtype="float64"))
show("cumsum_int", paddle.cumsum(xi, 1))
show("cumprod", paddle.cumprod(x, dim=1))
show("cumprod_m", xi.cumprod(0))
show("logcumsumexp", paddle.logcumsumexp(x))
show("logcumsumexp1", paddle.logcumsumexp(x, axis=1))
show("cummax", paddle.cummax(x, axis=1))
show("cummin", paddle.cummin(xi, axis=0))
show("cummax_flat", paddle.cummax(xi))
show("cummin_i32", paddle.cummin(x, axis=-1, dtype="int32"))
show("sort", paddle.sort(x))
show("sort0d", paddle.sort(x, axis=0, descending=True))
show("argsort", paddle.argsort(x))
show("argsort_m", x.argsort(axis=0, descending=True))
show("sort_int", xi.sort(axis=1))
show("topk", paddle.topk(x, 2))
show("topk0", paddle.topk(x, k=2, axis=0, largest=False))
show("topk_m", x.topk(3))
show("topk_t", paddle.topk(x, paddle.to_tensor(1)))
show("kthvalue", paddle.kthvalue(x, 2))
show("kthvalue0", paddle.kthvalue(x, 1, axis=0, keepdim=True))
show("tril", paddle.tril(x))
show("tril1", paddle.tril(x, 1))
show("triu", paddle.triu(x, -1))
show("triu_m", xi.triu())
show("tril_m", xi.tril(diagonal=-1))
show("roll", paddle.roll(x, 1))
show("roll_ax", paddle.roll(x, shifts=[1, -2], axis=[0, 1]))
show("roll_m", xi.roll(-3, 1))
show("flip", paddle.flip(x, [0, 1]))
show("reverse", paddle.reverse(x, 1))
idx = paddle.to_tensor([[2, 1, 0, 2], [0, 0, 1, 1]])
show("take_along_axis", paddle.take_along_axis(x, idx, 0))
show("take_along_axis1", paddle.take_along_axis(x, paddle.to_tensor([[3], [0], [1]]), 1))
show("take_along_axis_m", x.take_along_axis(paddle.argsort(x, axis=1), 1))
show("put_along_axis", paddle.put_along_axis(x, paddle.to_tensor([[0, 1, 2, 0]]), 9.0, 0))
show("put_along_axis_add", paddle.put_along_axis(xi, paddle.to_tensor([[1], [2], [3]]),
                                                 paddle.to_tensor([[10], [20], [30]]), 1, reduce="add"))
show("put_along_axis_mul", paddle.put_along_axis(x, paddle.to_tensor([[1, 1, 1, 1]]), 2.0, 0,
                                                 reduce="multiply"))
show("gather_nd", paddle.gather_nd(x, paddle.to_tensor([[0, 1], [2, 3]])))
show("gather_nd_rows", paddle.gather_nd(x, paddle.to_tensor([[2], [0]])))
show("gather_nd_m", xi.gather_nd(paddle.to_tensor([[[1, 1]], [[0, 3]]])))
upd = paddle.to_tensor(rng.randn(2, 4).astype("float32"))
show("scatter", paddle.scatter(x, paddle.to_tensor([2, 0]), upd))
show("scatter_add", paddle.scatter(x, paddle.to_tensor([1, 1]), upd, overwrite=False))
show("scatter_m", x.scatter(paddle.to_tensor([1]), upd[:1]))
show("scatter_nd_add", paddle.scatter_nd_add(x, paddle.to_tensor([[0, 0], [0, 0], [2, 3]]),
                                             paddle.to_tensor([1.0, 2.0, 3.0])))
show("scatter_nd_add_rows", paddle.scatter_nd_add(x, paddle.to_tensor([[1], [1]]), upd))
for bad in [lambda: paddle.topk(x, 5), lambda: paddle.tril(paddle.to_tensor([1.0, 2.0])),
            lambda: paddle.gather_nd(x, paddle.to_tensor([[3, 0]]))]:
    try:
        bad()
        print("no error")
    except Exception:
        print("error")
