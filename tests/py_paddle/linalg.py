# paddle.linalg: factorizations, solvers, norms and their gradients.
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, (list, tuple)):
        for i, v in enumerate(t):
            show("%s[%d]" % (name, i), v)
        return
    a = t.numpy()
    vals = [round(float(v), 4) + 0.0 for v in a.flatten().tolist()]
    print(name, list(a.shape), str(a.dtype), vals)


a = paddle.to_tensor([[3.0, 1.0, 0.5], [-1.0, 2.0, 0.3], [0.2, -0.4, 4.0]])
s = paddle.to_tensor([[4.0, 1.0, 0.5], [1.0, 5.0, 1.0], [0.5, 1.0, 6.0]])
b = paddle.to_tensor([[1.0, 0.0], [2.0, 1.0], [3.0, -1.0]])
batch = paddle.stack([a, s, a * 2.0])
print(sorted(n for n in ["inv", "det", "slogdet", "solve", "cholesky", "qr", "svd", "eigh",
                         "eigvalsh", "norm", "matrix_power", "pinv", "matrix_rank", "cond",
                         "triangular_solve", "cholesky_solve", "multi_dot", "cov", "corrcoef",
                         "lstsq", "householder_product", "lu", "lu_unpack"]
             if hasattr(paddle.linalg, n)))
show("inv", paddle.linalg.inv(a))
show("inv_batch", paddle.linalg.inv(batch))
show("inv64", paddle.linalg.inv(a.astype("float64")))
show("det", paddle.linalg.det(a))
show("det_batch", paddle.linalg.det(batch))
show("det_singular", paddle.linalg.det(paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]])))
show("slogdet", paddle.linalg.slogdet(batch * -1.0))
show("solve", paddle.linalg.solve(a, b))
show("solve_vec", paddle.linalg.solve(a, paddle.to_tensor([1.0, 2.0, 3.0])))
show("solve_batch", paddle.linalg.solve(batch, paddle.stack([b, b, b])))
show("cholesky", paddle.linalg.cholesky(s))
show("cholesky_upper", paddle.linalg.cholesky(s, upper=True))
show("triangular_solve", paddle.linalg.triangular_solve(s, b))
show("triangular_solve_lt", paddle.linalg.triangular_solve(s, b, upper=False, transpose=True))
show("triangular_solve_unit", paddle.linalg.triangular_solve(s, b, unitriangular=True))
show("cholesky_solve", paddle.linalg.cholesky_solve(b, paddle.linalg.cholesky(s)))
show("cholesky_solve_upper", paddle.linalg.cholesky_solve(b, paddle.linalg.cholesky(s, upper=True), upper=True))
q, r = paddle.linalg.qr(a)
show("qr_r", r)
show("qr_qr", paddle.matmul(q, r))
tall = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
q, r = paddle.linalg.qr(tall, mode="complete")
print("qr_complete", q.shape, r.shape)
show("qr_complete_qr", paddle.matmul(q, r))
show("qr_mode_r", paddle.linalg.qr(tall, mode="r"))
u, sv, vh = paddle.linalg.svd(tall)
print("svd", u.shape, sv.shape, vh.shape)
show("svd_s", sv)
show("svd_usv", paddle.matmul(u * sv.unsqueeze(-2), vh))
u, sv, vh = paddle.linalg.svd(tall, full_matrices=True)
print("svd_full", u.shape, sv.shape, vh.shape)
w, v = paddle.linalg.eigh(s)
show("eigh_w", w)
show("eigh_vvt", paddle.matmul(v * w.unsqueeze(-2), v, transpose_y=True))
show("eigh_abs_v", v.abs())
show("eigvalsh_U", paddle.linalg.eigvalsh(paddle.triu(s), UPLO="U"))
show("matrix_power3", paddle.linalg.matrix_power(a, 3))
show("matrix_power0", paddle.linalg.matrix_power(a, 0))
show("matrix_power-2", paddle.linalg.matrix_power(a, -2))
show("multi_dot", paddle.linalg.multi_dot([a, s, b]))
show("pinv", paddle.linalg.pinv(tall))
show("pinv_singular", paddle.linalg.pinv(paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]]), rcond=1e-5))
show("matrix_rank", paddle.linalg.matrix_rank(paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]])))
show("matrix_rank_batch", paddle.linalg.matrix_rank(batch))
show("matrix_rank_tol", paddle.linalg.matrix_rank(a, tol=3.0))
for p in [None, "fro", "nuc", 1, -1, float("inf"), float("-inf"), -2]:
    show("cond_%s" % (p,), paddle.linalg.cond(a, p))
sol, res, rank, sv = paddle.linalg.lstsq(tall, b[:, :1] + 1.0)
show("lstsq", [sol, res, sv])
print("lstsq_rank", rank.dtype, int(rank))
sol, res, rank, sv = paddle.linalg.lstsq(tall, b[:, :1], driver="gelsd")
show("lstsq_gelsd", [sol, res, sv])
show("householder", paddle.linalg.householder_product(tall, paddle.to_tensor([1.2, 0.5])))
tall2 = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
lu, piv, infos = paddle.linalg.lu(tall2, get_infos=True)
show("lu", [lu, piv, infos])
P, L, U = paddle.linalg.lu_unpack(lu, piv)
show("lu_unpack", [P, L, U])
lu, piv = paddle.linalg.lu(batch)
show("lu_batch", [lu, piv])
show("lu_unpack_batch", paddle.linalg.lu_unpack(lu, piv))
show("cov", paddle.linalg.cov(a))
show("cov_cols", paddle.linalg.cov(a, rowvar=False, ddof=False))
show("corrcoef", paddle.linalg.corrcoef(a))
for name, f in [("inv", lambda: paddle.linalg.inv(paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]]))),
                ("cholesky", lambda: paddle.linalg.cholesky(paddle.to_tensor([[1.0, 2.0], [2.0, 1.0]])))]:
    try:
        f()
    except ValueError as e:
        print(name, "ValueError", "not invertible" in str(e) or "positive definite" in str(e))

# gradients
x = paddle.to_tensor([[3.0, 1.0], [0.5, 2.0]], stop_gradient=False)
paddle.linalg.det(x).backward()
show("det_grad", x.grad)
x = paddle.to_tensor([[3.0, 1.0], [0.5, 2.0]], stop_gradient=False)
(paddle.linalg.inv(x) * paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
show("inv_grad", x.grad)
x = paddle.to_tensor([[3.0, 1.0], [0.5, 2.0]], stop_gradient=False)
paddle.linalg.slogdet(x)[1].backward()
show("slogdet_grad", x.grad)
x = paddle.to_tensor([[3.0, 1.0], [0.5, 2.0]], stop_gradient=False)
y = paddle.to_tensor([[1.0], [2.0]], stop_gradient=False)
paddle.linalg.solve(x, y).sum().backward()
show("solve_grad_x", x.grad)
show("solve_grad_y", y.grad)
m = paddle.to_tensor([[2.0, 0.5], [0.3, 1.5]], stop_gradient=False)
spd = paddle.matmul(m, m, transpose_y=True)
(paddle.linalg.cholesky(spd) * paddle.to_tensor([[1.0, 0.0], [2.0, 3.0]])).sum().backward()
show("cholesky_grad_m", m.grad)
m = paddle.to_tensor([[2.0, 0.5], [0.3, 1.5]], stop_gradient=False)
sym = paddle.matmul(m, m, transpose_y=True)
w, v = paddle.linalg.eigh(sym)
(w * paddle.to_tensor([1.0, 2.0])).sum().backward()
show("eigh_grad_m", m.grad)
