# Rotations, scatter_nd, mode, nanmedian, multiplex, index_put, random helpers, method forms.
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
        print(name, t.dtype, t.shape, a.tolist())
    else:
        print(name, t.dtype, t.shape, np.round(a.astype("float64"), 4).tolist())


rng = np.random.RandomState(8)
x = paddle.to_tensor(rng.randn(3, 4).astype("float32"))
show("rot90", paddle.rot90(x))
show("rot90_2", paddle.rot90(x, 2))
show("rot90_m1", x.rot90(-1))
show("rot90_axes", paddle.rot90(paddle.to_tensor(rng.randn(2, 3, 4).astype("float32")), 1, [1, 2]))
show("scatter_nd", paddle.scatter_nd(paddle.to_tensor([[1], [3], [1]]), paddle.to_tensor([9.0, 10.0, 11.0]), [5]))
show("scatter_nd_rows", paddle.scatter_nd(paddle.to_tensor([[0, 1], [2, 0]]), paddle.ones([2, 3]), [3, 2, 3]))
show("ldexp", paddle.ldexp(paddle.to_tensor([1.0, 2.0, -3.0]), paddle.to_tensor([2, 3, -1])))
m = paddle.to_tensor([[1, 2, 2, 3], [4, 4, 1, 1], [7, 5, 5, 7]])
show("mode", paddle.mode(m))
show("mode0", paddle.mode(m, axis=0, keepdim=True))
show("mode_f", paddle.mode(paddle.to_tensor([[0.5, 0.5, 1.5], [2.0, 1.0, 1.0]])))
nn_ = paddle.to_tensor([[1.0, float("nan"), 3.0, 0.5], [2.0, 5.0, float("nan"), float("nan")],
                        [float("nan")] * 4])
show("nanmedian", paddle.nanmedian(nn_, axis=1))
show("nanmedian_kd", paddle.nanmedian(nn_, axis=-1, keepdim=True))
show("nanmedian_all", paddle.nanmedian(paddle.to_tensor([3.0, float("nan"), 1.0, 2.0])))
show("nanquantile", paddle.nanquantile(nn_, 0.3, axis=1))
show("nanquantile_list", paddle.nanquantile(nn_, [0.5, 0.9], axis=1, keepdim=True))
show("nanquantile_all", paddle.nanquantile(paddle.to_tensor([3.0, float("nan"), 1.0, 2.0]), 0.25))
show("diag_embed", paddle.diag_embed(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])))
show("diag_embed_off", paddle.diag_embed(paddle.to_tensor([1.0, 2.0]), offset=1))
show("diag_embed_neg", paddle.diag_embed(paddle.to_tensor([1, 2]), offset=-1))
show("diag_embed_dims", paddle.diag_embed(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]]), offset=-1, dim1=0, dim2=2))
show("multiplex", paddle.multiplex([paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]]),
                                    paddle.to_tensor([[5.0, 6.0], [7.0, 8.0]])],
                                   paddle.to_tensor([[1], [0]], dtype="int32")))
show("index_put", paddle.index_put(x, (paddle.to_tensor([0, 2]), paddle.to_tensor([1, 3])),
                                   paddle.to_tensor(7.0)))
show("index_put_acc", paddle.index_put(x, (paddle.to_tensor([1, 1]),), paddle.ones([4]), accumulate=True))
y = x.clone()
y.index_put_((paddle.to_tensor([0]),), paddle.zeros([4]))
show("index_put_", y)
y = paddle.to_tensor([[3.0, 4.0]])
y.hypot_(paddle.to_tensor([[4.0, 3.0]]))
show("hypot_", y)
z = paddle.ones([2, 2])
z.addmm_(paddle.ones([2, 3]), paddle.ones([3, 2]), beta=0.5, alpha=2.0)
show("addmm_", z)
t = paddle.to_tensor([[1.0, 2.0, 3.0]])
t.t_()
show("t_", t)
d = paddle.zeros([3, 4])
d.fill_diagonal_(5.0)
show("fill_diagonal_", d)
d = paddle.zeros([3, 3])
d.fill_diagonal_(2.0, offset=1)
show("fill_diagonal_off", d)
show("allclose_m", x.allclose(x + 1e-9))
show("equal_all_m", x.equal_all(x))
show("concat_m", x.concat([x], axis=0) if False else paddle.concat([x, x]))
show("stack_m", paddle.to_tensor([1, 2]).stack([paddle.to_tensor([3, 4])]) if False else paddle.stack([x[0], x[1]]))
show("where_m", (x > 0).where(x, paddle.zeros_like(x)))
show("increment_m", paddle.to_tensor([1.0]).increment(2.0))
print("is_tensor_m", x.is_tensor())
print("default dtype", paddle.get_default_dtype())
paddle.seed(1)
r = paddle.randperm(6)
print("randperm", r.dtype, r.shape, sorted(r.numpy().tolist()))
s = paddle.standard_normal([2, 3])
print("standard_normal", s.dtype, s.shape)
ri = paddle.randint_like(paddle.zeros([2, 2], dtype="int64"), 0, 5)
print("randint_like", ri.dtype, ri.shape, bool(((ri.numpy() >= 0) & (ri.numpy() < 5)).all()))
b = paddle.bernoulli(paddle.to_tensor([0.0, 1.0, 0.0, 1.0]))
show("bernoulli", b)
u = paddle.zeros([100])
u.uniform_(2.0, 3.0)
print("uniform_", u.dtype, bool(((u.numpy() >= 2.0) & (u.numpy() < 3.0)).all()))
n = paddle.zeros([1000])
n.normal_(5.0, 0.1)
print("normal_", n.dtype, bool(abs(float(n.mean()) - 5.0) < 0.05))
e = paddle.zeros([100])
e.exponential_(2.0)
print("exponential_", e.dtype, bool((e.numpy() >= 0).all()))
