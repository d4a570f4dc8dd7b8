# More paddle functions: elementwise extras, shapes, statistics, searches, unique.
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


rng = np.random.RandomState(4)
x = paddle.to_tensor(rng.randn(3, 4).astype("float32"))
y = paddle.to_tensor(rng.randn(3, 4).astype("float32"))
show("logaddexp", paddle.logaddexp(x, y))
show("hypot", paddle.hypot(x, y))
show("deg2rad", paddle.deg2rad(paddle.to_tensor([180.0, 90.0, -45.0])))
show("rad2deg", paddle.rad2deg(x))
show("sgn", paddle.sgn(x))
show("atan2", paddle.atan2(x, y))
show("atan2_edges", paddle.atan2(paddle.to_tensor([0.0, 1.0, -1.0, 0.0, 2.0]),
                                 paddle.to_tensor([-1.0, 0.0, 0.0, 1.0, -3.0])))
show("atan2_int", paddle.atan2(paddle.to_tensor([1, -1]), paddle.to_tensor([-1, 0])))
show("take", paddle.take(x, paddle.to_tensor([[0, 5], [11, -1]])))
show("take_wrap", paddle.take(x, paddle.to_tensor([13, -14]), mode="wrap"))
show("take_clip", x.take(paddle.to_tensor([20, -3]), mode="clip"))
show("unstack", paddle.unstack(x, axis=1))
show("vsplit", paddle.vsplit(paddle.to_tensor(rng.randn(4, 2).astype("float32")), 2))
show("unflatten", paddle.unflatten(x, 1, [2, -1]))
show("view", x.view([4, 3]))
show("view_as", paddle.view_as(x, paddle.zeros([2, 6])))
show("diagflat", paddle.diagflat(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])))
show("diagflat_off", paddle.diagflat(paddle.to_tensor([1, 2]), offset=1))
show("index_sample", paddle.index_sample(x, paddle.to_tensor([[0, 3], [1, 1], [2, 0]])))
show("slice", paddle.slice(x, axes=[0, 1], starts=[1, 0], ends=[3, 2]))
show("strided_slice", paddle.strided_slice(x, axes=[1], starts=[0], ends=[4], strides=[2]))
print("dtype preds", paddle.is_floating_point(x), paddle.is_integer(x), paddle.is_complex(x),
      paddle.is_integer(paddle.to_tensor([1])))
print("broadcast_shape", paddle.broadcast_shape([2, 1, 3], [4, 1]))
show("dist", paddle.dist(x, y))
show("dist1", paddle.dist(x, y, p=1))
show("logspace", paddle.logspace(0, 2, 3))
show("logspace_b", paddle.logspace(1.0, 3.0, 3, base=2.0, dtype="float64"))
show("trapezoid", paddle.trapezoid(x))
show("trapezoid_dx", paddle.trapezoid(x, dx=0.5, axis=0))
show("trapezoid_x", paddle.trapezoid(x, x=paddle.to_tensor([0.0, 1.0, 3.0, 6.0])))
show("cumulative_trapezoid", paddle.cumulative_trapezoid(x))
show("vander", paddle.vander(paddle.to_tensor([1.0, 2.0, 3.0])))
show("vander_inc", paddle.vander(paddle.to_tensor([1, 2, 3]), n=4, increasing=True))
show("tril_indices", paddle.tril_indices(3, 4, 1))
show("triu_indices", paddle.triu_indices(3, 3, -1))
show("tensordot", paddle.tensordot(x, paddle.to_tensor(rng.randn(4, 2).astype("float32")), axes=1))
show("tensordot_lists", paddle.tensordot(paddle.to_tensor(rng.randn(2, 3, 4).astype("float32")),
                                         paddle.to_tensor(rng.randn(4, 3, 5).astype("float32")),
                                         axes=[[1, 2], [1, 0]]))
show("median", paddle.median(x))
show("median_ax", paddle.median(x, axis=1))
show("median_kd", paddle.median(x, axis=0, keepdim=True))
show("median_int", paddle.median(paddle.to_tensor([[1, 5, 2], [4, 3, 3]]), axis=1))
show("quantile", paddle.quantile(x, 0.3))
show("quantile_ax", paddle.quantile(x, 0.75, axis=1))
show("quantile_list", paddle.quantile(x, [0.25, 0.5], axis=0, keepdim=True))
seq = paddle.to_tensor([1.0, 3.0, 5.0, 7.0])
show("searchsorted", paddle.searchsorted(seq, paddle.to_tensor([3.0, 6.0, 9.0, 0.0])))
show("searchsorted_r", paddle.searchsorted(seq, paddle.to_tensor([3.0, 7.0]), right=True, out_int32=True))
show("searchsorted_2d", paddle.searchsorted(paddle.to_tensor([[1, 3, 5], [2, 4, 6]]),
                                            paddle.to_tensor([[4], [4]])))
show("bucketize", paddle.bucketize(paddle.to_tensor([[0.5, 4.0], [7.0, 8.0]]), seq))
show("histogram", paddle.histogram(paddle.to_tensor([1.0, 2.0, 1.0, 5.0]), bins=4, min=0, max=4))
show("histogram_auto", paddle.histogram(x, bins=5))
show("bincount", paddle.bincount(paddle.to_tensor([1, 1, 3, 0])))
show("bincount_w", paddle.bincount(paddle.to_tensor([1, 1, 3]), weights=paddle.to_tensor([0.5, 1.0, 2.0]),
                                   minlength=6))
u = paddle.to_tensor([3, 1, 3, 2, 1, 1])
show("unique", paddle.unique(u))
show("unique_all", paddle.unique(u, return_index=True, return_inverse=True, return_counts=True))
show("unique_f", paddle.unique(paddle.to_tensor([[2.5, 1.0], [2.5, -1.0]]), return_counts=True))
show("unique_consecutive", paddle.unique_consecutive(u))
show("unique_consecutive_all", paddle.unique_consecutive(u, return_inverse=True, return_counts=True))
