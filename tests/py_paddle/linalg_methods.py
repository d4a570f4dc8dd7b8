# paddle.linalg's functions as Tensor methods and as paddle.tensor functions; values rounded to
# 4 decimals (tolerance 1e-4); a batch, a 1x1 edge case and bad inputs.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, (list, tuple)):
        for i, e in enumerate(t):
            show("%s[%d]" % (name, i), e)
        return
    a = t.numpy()
    if a.dtype.kind in "iub":
        print(name, t.shape, a.tolist())
        return
    print(name, t.shape, (np.round(a.astype("float64"), 4) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


rs = np.random.RandomState(4)
a = rs.rand(3, 3).astype("float32")
spd = paddle.to_tensor(a @ a.T + 3 * np.eye(3, dtype="float32"))
m = paddle.to_tensor(rs.rand(3, 3).astype("float32") + np.eye(3, dtype="float32"))
b = paddle.to_tensor(rs.rand(3, 2).astype("float32"))
batch = paddle.to_tensor(rs.rand(2, 3, 3).astype("float32") + 2 * np.eye(3, dtype="float32"))

show("cholesky", spd.cholesky())
show("cholesky upper", spd.cholesky(upper=True))
show("cholesky_solve", b.cholesky_solve(spd.cholesky()))
show("inverse", m.inverse())
show("inverse batch", batch.inverse())
show("solve", m.solve(b))
show("matrix_power 3", m.matrix_power(3))
show("matrix_power -1", m.matrix_power(-1))
show("matrix_power 0", m.matrix_power(0))
show("pinv", paddle.to_tensor(rs.rand(2, 3).astype("float32")).pinv())
q, r = m.qr()
show("qr recon", paddle.matmul(q, r))
show("eigvalsh", spd.eigvalsh())
show("cond", spd.cond())
show("cov", b.cov())
show("corrcoef", paddle.to_tensor(rs.rand(2, 5).astype("float32")).corrcoef())
sol = m.lstsq(b)
show("lstsq solution", sol[0])
lu, piv = m.lu()
show("lu", lu)
show("lu pivots", piv)
P, L, U = lu.lu_unpack(piv)
show("lu_unpack recon", paddle.matmul(P, paddle.matmul(L, U)))
show("householder", paddle.to_tensor(rs.rand(3, 2).astype("float32")).householder_product(
    paddle.to_tensor([1.2, 0.5])))
show("tensor.inverse", paddle.tensor.inverse(m))
show("tensor.svd s", paddle.tensor.svd(m)[1])
show("tensor.eigh w", paddle.tensor.eigh(spd)[0])
one = paddle.to_tensor([[4.0]])
show("1x1 inverse", one.inverse())
show("1x1 cholesky", one.cholesky())
err("inverse not square", lambda: paddle.ones([2, 3]).inverse())
err("solve shapes", lambda: m.solve(paddle.ones([2, 2])))
err("matrix_power 1d", lambda: paddle.ones([3]).matrix_power(2))
