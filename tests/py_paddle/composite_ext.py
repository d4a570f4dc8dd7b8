# paddle functions composed of several ops: masks, einsum, grids, repeats, linear algebra, index updates.
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


rng = np.random.RandomState(9)
x = paddle.to_tensor(rng.randn(3, 4).astype("float32"))
y = paddle.to_tensor(rng.randn(4, 2).astype("float32"))
show("masked_fill", paddle.masked_fill(x, x > 0, 0.5))
show("masked_fill_t", x.masked_fill(paddle.to_tensor([True, False, True, False]), paddle.to_tensor(-1.0)))
show("masked_select", paddle.masked_select(x, x < 0))
show("masked_select_m", x.masked_select(paddle.to_tensor([[True], [False], [True]])))
show("einsum_mm", paddle.einsum("ij,jk->ik", x, y))
show("einsum_t", paddle.einsum("ij->ji", x))
show("einsum_sum", paddle.einsum("ij->", x))
show("einsum_implicit", paddle.einsum("ij,jk", x, y))
show("einsum_outer", paddle.einsum("i,j->ij", paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3.0, 4.0, 5.0])))
b1 = paddle.to_tensor(rng.randn(2, 3, 4).astype("float32"))
b2 = paddle.to_tensor(rng.randn(2, 4, 5).astype("float32"))
show("einsum_bmm", paddle.einsum("bij,bjk->bik", b1, b2))
show("einsum_attn", paddle.einsum("bqd,bkd->bqk", b1, b1))
show("meshgrid", paddle.meshgrid(paddle.arange(3).astype("float32"), paddle.to_tensor([1.0, 2.0])))
try:
    paddle.meshgrid(paddle.arange(3), paddle.to_tensor([1.0, 2.0]))
    print("no error")
except ValueError:
    print("meshgrid dtypes: ValueError")
show("meshgrid_list", paddle.meshgrid([paddle.arange(2), paddle.arange(3), paddle.arange(2)]))
show("broadcast_tensors", paddle.broadcast_tensors([paddle.ones([2, 1]), paddle.zeros([3])]))
show("repeat_interleave", paddle.repeat_interleave(x, 2, axis=1))
show("repeat_interleave_flat", paddle.repeat_interleave(paddle.to_tensor([[1, 2], [3, 4]]), 2))
show("repeat_interleave_t", paddle.repeat_interleave(x, paddle.to_tensor([1, 0, 2]), axis=0))
show("repeat_interleave_m", x.repeat_interleave(3, 0))
show("outer", paddle.outer(paddle.to_tensor([1.0, 2.0, 3.0]), paddle.to_tensor([1.0, -1.0])))
show("inner", paddle.inner(x, paddle.to_tensor(rng.randn(2, 4).astype("float32"))))
show("inner_1d", paddle.inner(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3.0, 4.0])))
show("mv", paddle.mv(x, paddle.to_tensor([1.0, 0.5, -1.0, 2.0])))
show("addmm", paddle.addmm(paddle.ones([3, 2]), x, y, beta=0.5, alpha=2.0))
show("kron", paddle.kron(paddle.to_tensor([[1, 2], [3, 4]]), paddle.to_tensor([[1, 10, 100]])))
show("kron_f", x.kron(paddle.to_tensor([1.0, -1.0])))
c1 = paddle.to_tensor(rng.randn(2, 3).astype("float32"))
c2 = paddle.to_tensor(rng.randn(2, 3).astype("float32"))
show("cross", paddle.cross(c1, c2))
show("cross_ax", paddle.cross(c1.t(), c2.t(), axis=0))
show("diagonal", paddle.diagonal(x))
show("diagonal_off", paddle.diagonal(x, offset=1))
show("diagonal_neg", paddle.diagonal(x, offset=-1))
show("diagonal_3d", paddle.diagonal(b1, 0, 1, 2))
show("trace", paddle.trace(x))
show("trace_off", x.trace(offset=1))
show("diag_vec", paddle.diag(paddle.to_tensor([1.0, 2.0, 3.0])))
show("diag_vec_off", paddle.diag(paddle.to_tensor([1, 2]), offset=-1, padding_value=7))
show("diag_mat", paddle.diag(x, 1))
show("moveaxis", paddle.moveaxis(b1, 0, 2))
show("moveaxis2", paddle.moveaxis(b1, [0, 1], [2, 0]))
show("atleast_1d", paddle.atleast_1d(paddle.to_tensor(3.0)))
show("atleast_2d", paddle.atleast_2d(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor(1.0)))
show("atleast_3d", paddle.atleast_3d(x))
show("index_add", paddle.index_add(x, paddle.to_tensor([0, 2]), 0, paddle.ones([2, 4])))
show("index_add1", x.index_add(paddle.to_tensor([1, 1]), 1, paddle.ones([3, 2])))
show("index_fill", paddle.index_fill(x, paddle.to_tensor([1, 3]), 1, -2.0))
show("index_fill0", x.index_fill(paddle.to_tensor([0]), 0, paddle.to_tensor(5.0)))
