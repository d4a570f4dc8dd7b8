/* linalg_api.c - paddle.linalg: the LAPACK ops of ops_linalg.c and the functions composed of them (Python). */
#include "lib/paddle/functions_priv.h"

#include <string.h>

/* paddle._linalg._op(name, n_out, x, y, ...): runs one linear-algebra op with
 * the attributes given (None keeps the op's default); one output is a tensor,
 * several a tuple. Only the ops of ops.def's linear-algebra section. */
D2_FN(f_op)
{
    static const char *const OPS[] = {"inv",      "det", "slogdet", "solve", "triangular_solve",
                                      "cholesky", "qr",  "svd",     "eigh", "lu"};
    static const char *const BOOLS[] = {"upper", "transpose", "unitriangular", "full_matrices"};
    static const char *const STRS[] = {"mode", "UPLO"};
    const char *name = d2_to_cstr(I, a[0], "name");
    int64_t n_out;
    if (!name || d2_to_int64(I, a[1], "n_out", &n_out) < 0)
        return NULL;
    const d2_opdef *od = NULL;
    for (size_t i = 0; i < D2_COUNTOF(OPS) && !od; i++)
        if (strcmp(name, OPS[i]) == 0)
            od = d2_op_lookup(name, strlen(name));
    if (!od || n_out != od->n_outs)
        return d2_raise(I, "ValueError", "paddle._linalg._op: unknown op '%s' or output count",
                        name);
    char fname[64];
    snprintf(fname, sizeof fname, "paddle.linalg.%s", name);
    d2_ab b;
    d2_ab_init(&b, od->id);
    for (size_t i = 0; i < D2_COUNTOF(BOOLS); i++) {
        d2_obj *v = a[4 + i];
        bool bv;
        if (v && v != d2_none(I)) {
            if (d2_to_bool(I, v, BOOLS[i], &bv) < 0) {
                d2_ab_free(&b);
                return NULL;
            }
            d2_ab_bool(&b, BOOLS[i], bv);
        }
    }
    for (size_t i = 0; i < D2_COUNTOF(STRS); i++) {
        d2_obj *v = a[8 + i];
        if (v && v != d2_none(I)) {
            const char *sv = d2_to_cstr(I, v, STRS[i]);
            if (!sv) {
                d2_ab_free(&b);
                return NULL;
            }
            d2_ab_str(&b, STRS[i], sv);
        }
    }
    if (b.bad) {
        d2_ab_free(&b);
        return d2_raise(I, "RuntimeError", "%s: internal error building attributes", fname);
    }
    d2_obj *in[2] = {a[2], a[3] && a[3] != d2_none(I) ? a[3] : NULL};
    int n_in = od->n_ins;
    d2_obj *outs[D2_MAX_PORTS] = {NULL};
    int rc = d2_pd_apply_named(I, fname, od->id, in, n_in, &b.a, outs, (int)n_out);
    d2_ab_free(&b);
    if (rc < 0)
        return NULL;
    if (n_out == 1)
        return outs[0];
    d2_obj *t = d2_tuple_from_array(I, outs, (size_t)n_out);
    for (int i = 0; i < n_out; i++)
        d2_decref(outs[i]);
    return t;
}

static const char LINALG_SRC[] =
    "import paddle\n"
    "from paddle._linalg import _op\n"
    "\n"
    "def inv(x, name=None):\n"
    "    return _op('inv', 1, x)\n"
    "\n"
    "def det(x, name=None):\n"
    "    return _op('det', 1, x)\n"
    "\n"
    "def slogdet(x, name=None):\n"
    "    s, l = _op('slogdet', 2, x)\n"
    "    return paddle.stack([s, l])\n"
    "\n"
    "def _batch_like(x, y):\n"
    "    xb, yb = list(x.shape[:-2]), list(y.shape[:-2])\n"
    "    if xb != yb:\n"
    "        b = paddle.broadcast_shape(xb, yb)\n"
    "        x = x.expand(b + list(x.shape[-2:]))\n"
    "        y = y.expand(b + list(y.shape[-2:]))\n"
    "    return x, y\n"
    "\n"
    "def solve(x, y, name=None):\n"
    "    vec = len(y.shape) == 1\n"
    "    if vec:\n"
    "        y = y.unsqueeze(-1)\n"
    "    x, y = _batch_like(x, y)\n"
    "    out = _op('solve', 1, x, y)\n"
    "    return out.squeeze(-1) if vec else out\n"
    "\n"
    "def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):\n"
    "    x, y = _batch_like(x, y)\n"
    "    return _op('triangular_solve', 1, x, y, upper, transpose, unitriangular)\n"
    "\n"
    "def cholesky(x, upper=False, name=None):\n"
    "    return _op('cholesky', 1, x, None, upper)\n"
    "\n"
    "def cholesky_solve(x, y, upper=False, name=None):\n"
    "    y, x = _batch_like(y, x)\n"
    "    z = _op('triangular_solve', 1, y, x, upper, upper, False)\n"
    "    return _op('triangular_solve', 1, y, z, upper, not upper, False)\n"
    "\n"
    "def qr(x, mode='reduced', name=None):\n"
    "    q, r = _op('qr', 2, x, None, None, None, None, None, mode)\n"
    "    return r if mode == 'r' else (q, r)\n"
    "\n"
    "def svd(x, full_matrices=False, name=None):\n"
    "    return _op('svd', 3, x, None, None, None, None, full_matrices)\n"
    "\n"
    "def eigh(x, UPLO='L', name=None):\n"
    "    return _op('eigh', 2, x, None, None, None, None, None, None, UPLO)\n"
    "\n"
    "def eigvalsh(x, UPLO='L', name=None):\n"
    "    return eigh(x, UPLO)[0]\n"
    "\n"
    "def _eye_like(x):\n"
    "    n = x.shape[-1]\n"
    "    return paddle.eye(n, dtype=x.dtype).expand(x.shape)\n"
    "\n"
    "def matrix_power(x, n, name=None):\n"
    "    if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:\n"
    "        raise ValueError('matrix_power: x must be a batch of square matrices [*, n, n], got '\n"
    "                         'shape %s' % (x.shape,))\n"
    "    if n == 0:\n"
    "        return _eye_like(x)\n"
    "    if n < 0:\n"
    "        x = inv(x)\n"
    "        n = -n\n"
    "    out = None\n"
    "    base = x\n"
    "    while n > 0:\n"
    "        if n % 2 == 1:\n"
    "            out = base if out is None else paddle.matmul(out, base)\n"
    "        n = n // 2\n"
    "        if n > 0:\n"
    "            base = paddle.matmul(base, base)\n"
    "    return out\n"
    "\n"
    "def multi_dot(x, name=None):\n"
    "    if len(x) < 2:\n"
    "        raise ValueError('multi_dot(): expect 2 or more matrices, but got %d' % len(x))\n"
    "    out = x[0]\n"
    "    for m in x[1:]:\n"
    "        out = paddle.matmul(out, m)\n"
    "    return out\n"
    "\n"
    "def _eps(x):\n"
    "    return 1.1920928955078125e-07 if x.dtype == paddle.float32 else 2.220446049250313e-16\n"
    "\n"
    "def pinv(x, rcond=1e-15, hermitian=False, name=None):\n"
    "    u, s, vh = svd(x, False)\n"
    "    cutoff = s.max(axis=-1, keepdim=True) * rcond\n"
    "    sinv = paddle.where(s > cutoff, 1.0 / s, paddle.zeros_like(s))\n"
    "    v = vh.transpose(list(range(len(vh.shape) - 2)) + [len(vh.shape) - 1, len(vh.shape) - 2])\n"
    "    return paddle.matmul(v * sinv.unsqueeze(-2), u, transpose_y=True)\n"
    "\n"
    "def matrix_rank(x, tol=None, hermitian=False, name=None):\n"
    "    if len(x.shape) < 2:\n"
    "        raise ValueError('matrix_rank: x must have at least 2 dims')\n"
    "    s = svd(x, False)[1]\n"
    "    if hermitian:\n"
    "        s = s.abs()\n"
    "    if tol is None:\n"
    "        m, n = x.shape[-2], x.shape[-1]\n"
    "        tol = s.max(axis=-1, keepdim=True) * (max(m, n) * _eps(x))\n"
    "    elif isinstance(tol, paddle.Tensor):\n"
    "        tol = tol.unsqueeze(-1)\n"
    "    return (s > tol).astype('int32').sum(axis=-1).astype('int32')\n"
    "\n"
    "def cond(x, p=None, name=None):\n"
    "    if p is None or p == 2 or p == -2:\n"
    "        s = svd(x, False)[1]\n"
    "        big, small = s.max(axis=-1), s.min(axis=-1)\n"
    "        return small / big if p == -2 else big / small\n"
    "    return _mnorm(x, p) * _mnorm(inv(x), p)\n"
    "\n"
    "def _mnorm(x, p):\n"
    "    inf = float('inf')\n"
    "    if p == 'fro':\n"
    "        return (x * x).sum(axis=[-2, -1]).sqrt()\n"
    "    if p == 'nuc':\n"
    "        return svd(x, False)[1].sum(axis=-1)\n"
    "    if p == 1 or p == -1:\n"
    "        c = x.abs().sum(axis=-2)\n"
    "        return c.max(axis=-1) if p == 1 else c.min(axis=-1)\n"
    "    if p == inf or p == -inf:\n"
    "        c = x.abs().sum(axis=-1)\n"
    "        return c.max(axis=-1) if p == inf else c.min(axis=-1)\n"
    "    raise ValueError('only support p is 2, -2, 1, -1, inf, -inf, fro or nuc, but got %s' % (p,))\n"
    "\n"
    "def lstsq(x, y, rcond=None, driver=None, name=None):\n"
    "    if driver is None:\n"
    "        driver = 'gelsy'\n"
    "    if driver not in ('gels', 'gelsy', 'gelsd', 'gelss'):\n"
    "        raise ValueError(\"Only support lstsq api for CPU device, driver must be one of 'gels', 'gelsy', 'gelsd', 'gelss', but got %s\" % driver)\n"
    "    m, n = x.shape[-2], x.shape[-1]\n"
    "    u, s, vh = svd(x, False)\n"
    "    if rcond is None:\n"
    "        rcond = _eps(x) * max(m, n)\n"
    "    keep = s > s.max(axis=-1, keepdim=True) * rcond\n"
    "    sinv = paddle.where(keep, 1.0 / s, paddle.zeros_like(s))\n"
    "    nd = len(vh.shape)\n"
    "    v = vh.transpose(list(range(nd - 2)) + [nd - 1, nd - 2])\n"
    "    sol = paddle.matmul(v * sinv.unsqueeze(-2), paddle.matmul(u, y, transpose_x=True))\n"
    "    rank = keep.astype('int32').sum(axis=-1).astype('int32')\n"
    "    if m > n and int(rank.min()) == n:\n"
    "        d = paddle.matmul(x, sol) - y\n"
    "        res = (d * d).sum(axis=-2)\n"
    "    else:\n"
    "        res = paddle.zeros([0], dtype=x.dtype)\n"
    "    sv = s if driver in ('gelsd', 'gelss') else paddle.zeros([0], dtype=x.dtype)\n"
    "    return sol, res, rank, sv\n"
    "\n"
    "def lu(x, pivot=True, get_infos=False, name=None):\n"
    "    if not pivot:\n"
    "        raise NotImplementedError('paddle.linalg.lu: pivot=False is not supported on CPU')\n"
    "    out, piv, infos = _op('lu', 3, x)\n"
    "    if len(x.shape) == 2:\n"
    "        infos = infos.reshape([1])\n"
    "    return (out, piv, infos) if get_infos else (out, piv)\n"
    "\n"
    "def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):\n"
    "    m, n = x.shape[-2], x.shape[-1]\n"
    "    k = min(m, n)\n"
    "    l = u = p = None\n"
    "    if unpack_ludata:\n"
    "        l = paddle.tril(x, -1)[..., :k] + paddle.eye(m, k, dtype=x.dtype)\n"
    "        u = paddle.triu(x)[..., :k, :]\n"
    "    if unpack_pivots:\n"
    "        batch = list(y.shape[:-1])\n"
    "        rows = y.reshape([-1, k]).numpy().tolist()\n"
    "        mats = []\n"
    "        for r in rows:\n"
    "            perm = list(range(m))\n"
    "            for i, s in enumerate(r):\n"
    "                perm[i], perm[int(s) - 1] = perm[int(s) - 1], perm[i]\n"
    "            mats.append([[1.0 if perm[c] == rr else 0.0 for c in range(m)] for rr in range(m)])\n"
    "        p = paddle.to_tensor(mats, dtype=x.dtype).reshape(batch + [m, m])\n"
    "    return p, l, u\n"
    "\n"
    "def householder_product(x, tau, name=None):\n"
    "    m, n, k = x.shape[-2], x.shape[-1], tau.shape[-1]\n"
    "    if m < n or k > n:\n"
    "        raise ValueError('householder_product: x must be [*, m, n] with m >= n and tau [*, k] with k <= n')\n"
    "    q = paddle.eye(m, dtype=x.dtype)\n"
    "    for i in range(k):\n"
    "        e = paddle.to_tensor([[1.0 if j == i else 0.0] for j in range(n)], dtype=x.dtype)\n"
    "        below = paddle.to_tensor([[1.0 if r > i else 0.0] for r in range(m)], dtype=x.dtype)\n"
    "        on = paddle.to_tensor([[1.0 if r == i else 0.0] for r in range(m)], dtype=x.dtype)\n"
    "        v = paddle.matmul(x, e) * below + on\n"
    "        ek = paddle.to_tensor([[1.0 if j == i else 0.0] for j in range(k)], dtype=x.dtype)\n"
    "        t = paddle.matmul(tau.unsqueeze(-2), ek)\n"
    "        q = q - t * paddle.matmul(paddle.matmul(q, v), v, transpose_y=True)\n"
    "    return q[..., :n]\n"
    "\n"
    "def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):\n"
    "    if fweights is not None or aweights is not None:\n"
    "        raise NotImplementedError('paddle.linalg.cov: fweights and aweights are not supported')\n"
    "    if len(x.shape) == 1:\n"
    "        x = x.unsqueeze(0)\n"
    "    if not rowvar:\n"
    "        x = x.t()\n"
    "    n = x.shape[1]\n"
    "    xm = x - x.mean(axis=1, keepdim=True)\n"
    "    c = paddle.matmul(xm, xm, transpose_y=True) / (n - 1 if ddof else n)\n"
    "    return c.squeeze() if c.shape[0] == 1 else c\n"
    "\n"
    "def _swap_last(x):\n"
    "    perm = list(range(len(x.shape)))\n"
    "    perm = perm[:-2] + [perm[-1]] + [perm[-2]]\n"
    "    return paddle.transpose(x, perm)\n"
    "\n"
    "def _approximate_basis(x, q, niter):\n"
    "    \"\"\"Paddle's randomized range finder: Q of x @ R (R from paddle.randn), refined niter times.\"\"\"\n"
    "    n = x.shape[-1]\n"
    "    R = paddle.randn((n, q), dtype=x.dtype)\n"
    "    a_h = _swap_last(x)\n"
    "    Q = qr(paddle.matmul(x, R))[0]\n"
    "    for i in range(niter):\n"
    "        Q = qr(paddle.matmul(a_h, Q))[0]\n"
    "        Q = qr(paddle.matmul(x, Q))[0]\n"
    "    return Q\n"
    "\n"
    "def _svd_lowrank(x, q, niter):\n"
    "    m, n = x.shape[-2:]\n"
    "    a_t = _swap_last(x)\n"
    "    if m < n or n > q:\n"
    "        Q = _approximate_basis(a_t, q, niter)\n"
    "        U, S, Vh = svd(paddle.matmul(x, Q), full_matrices=False)\n"
    "        V = Q.matmul(_swap_last(Vh))\n"
    "    else:\n"
    "        Q = _approximate_basis(x, q, niter)\n"
    "        U, S, Vh = svd(_swap_last(paddle.matmul(a_t, Q)), full_matrices=False)\n"
    "        V = _swap_last(Vh)\n"
    "        U = Q.matmul(U)\n"
    "    return U, S, V\n"
    "\n"
    "def pca_lowrank(x, q=None, center=True, niter=2, name=None):\n"
    "    \"\"\"(U, S, V) of a rank-q approximation of x (centred), drawn as Paddle draws it.\"\"\"\n"
    "    if not paddle.is_tensor(x):\n"
    "        raise ValueError(\"Input must be tensor, but got %s\" % type(x))\n"
    "    if len(x.shape) < 2:\n"
    "        raise ValueError(\"pca_lowrank: x must have at least 2 dims, got %d\" % len(x.shape))\n"
    "    m, n = x.shape[-2:]\n"
    "    if q is None:\n"
    "        q = min(6, m, n)\n"
    "    elif not (q >= 0 and q <= min(m, n)):\n"
    "        raise ValueError(\"q(=%s) must be non-negative integer and not greater than \"\n"
    "                         \"min(m, n)=%d\" % (q, min(m, n)))\n"
    "    if not (niter >= 0):\n"
    "        raise ValueError(\"niter(=%s) must be non-negative integer\" % niter)\n"
    "    if center:\n"
    "        x = x - x.mean(axis=-2, keepdim=True)\n"
    "    return _svd_lowrank(x, q, niter)\n"
    "\n"
    "def corrcoef(x, rowvar=True, name=None):\n"
    "    c = cov(x, rowvar)\n"
    "    if len(c.shape) == 0:\n"
    "        return c / c\n"
    "    d = paddle.diagonal(c).sqrt()\n"
    "    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clip(-1, 1)\n";

/* Tensor.NAME(*args) and paddle.tensor.NAME(x, *args): the function the def's data names
 * ("module:function", or a function of paddle.linalg) with the tensor first; looked up at the
 * call, so the Python-written ones load on first use. */
D2_FN(f_linalg_forward)
{
    const char *name = def->data, *colon = strchr(name, ':');
    char module[64] = "paddle.linalg";
    if (colon) {
        snprintf(module, sizeof module, "%.*s", (int)(colon - name), name);
        name = colon + 1;
    }
    d2_obj *m = d2_import(I, module, NULL);
    if (!m)
        return NULL;
    d2_obj *fn = d2_getattr(I, m, name);
    d2_decref(m);
    if (!fn)
        return NULL;
    d2_obj *args = a[1];
    size_t n = seq_len(args);
    d2_obj *argv[16];
    if (n + 1 > 16) {
        d2_decref(fn);
        return d2_raise(I, "TypeError", "paddle.linalg.%s: too many arguments", name);
    }
    argv[0] = a[0];
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = seq_item(args, i);
    d2_obj *r = d2_call(I, fn, argv, n + 1, D2_AS(d2_dict, a[2]));
    d2_decref(fn);
    return r;
}

#define LINALG_FORWARD(X)                                                                          \
    X(cholesky, cholesky) X(cholesky_solve, cholesky_solve) X(cond, cond) X(corrcoef, corrcoef)    \
    X(cov, cov) X(eigvalsh, eigvalsh) X(householder_product, householder_product)                  \
    X(inverse, inv) X(lstsq, lstsq) X(lu, lu) X(lu_unpack, lu_unpack)                              \
    X(matrix_power, matrix_power) X(multi_dot, multi_dot) X(pinv, pinv) X(qr, qr) X(solve, solve)
/* the functions of paddle._more_py (the Python-written ones paddle's __getattr__ finds) that
 * are Tensor methods too */
#define MORE_FORWARD(X)                                                                            \
    X(angle) X(cdist) X(combinations) X(conj) X(diagonal_scatter) X(frexp) X(ldexp_)               \
    X(multigammaln) X(multigammaln_) X(renorm) X(renorm_) X(select_scatter) X(shard_index)         \
    X(unfold) X(where_) X(i0) X(i0_) X(i0e) X(i1) X(i1e) X(multinomial) X(polygamma)           \
    X(polygamma_) X(nextafter)
/* Tensor methods of paddle._tensor_more_py (no paddle function of that name) */
#define TENSOR_MORE_FORWARD(X)                                                                     \
    X(element_size) X(contiguous) X(is_same_shape) X(copy_) X(fill_diagonal_tensor)                \
    X(fill_diagonal_tensor_)
/* The Tensor methods (and paddle.tensor functions) that are paddle.linalg's and
 * paddle._more_py's. */
static const d2_def LINALG_METHODS[] = {
#define X(n, f) D2_DEF_DATA(#n, "x, *args, **kwargs", f_linalg_forward, "Tensor." #n, #f),
    LINALG_FORWARD(X)
#undef X
#define X(n) D2_DEF_DATA(#n, "x, *args, **kwargs", f_linalg_forward, "Tensor." #n,             \
                         "paddle._more_py:" #n),
    MORE_FORWARD(X)
#undef X
#define X(n) D2_DEF_DATA(#n, "x, *args, **kwargs", f_linalg_forward, "Tensor." #n,             \
                         "paddle._tensor_more_py:" #n),
    TENSOR_MORE_FORWARD(X)
#undef X
};
/* paddle.tensor's: the methods' functions and svd, eigh */
static const d2_def LINALG_TENSOR_FNS[] = {
#define X(n, f) D2_DEF_DATA(#n, "x, *args, **kwargs", f_linalg_forward, "paddle.tensor." #n, #f),
    LINALG_FORWARD(X) X(svd, svd) X(eigh, eigh)
#undef X
#define X(n) D2_DEF_DATA(#n, "x, *args, **kwargs", f_linalg_forward, "paddle.tensor." #n,      \
                         "paddle._more_py:" #n),
    MORE_FORWARD(X)
#undef X
    D2_DEF_DATA("tensor_array_to_tensor", "input, *args, **kwargs", f_linalg_forward,
                "paddle.tensor.tensor_array_to_tensor", "paddle._more_py:tensor_array_to_tensor"),
};

const d2_def *d2_pd_linalg_tensor_fns(size_t *n)
{
    *n = D2_COUNTOF(LINALG_TENSOR_FNS);
    return LINALG_TENSOR_FNS;
}

int d2_pd_linalg_add(d2_interp *I, pd_state *s)
{
    static const d2_def defs[] = {
        D2_DEF("_op",
               "name, n_out, x, y=None, upper=None, transpose=None, unitriangular=None, "
               "full_matrices=None, mode=None, UPLO=None",
               f_op, "paddle._linalg._op"),
    };
    d2_module *m = d2_module_new_builtin(I, "paddle._linalg");
    if (!m)
        return -1;
    int rc = d2_module_add_defs(I, m, defs, D2_COUNTOF(defs));
    d2_decref((d2_obj *)m);
    if (rc < 0 || d2_module_add_source(I, "paddle._linalg_py", LINALG_SRC) < 0 ||
        d2_class_add_defs(I, s->tensor_cls, LINALG_METHODS, D2_COUNTOF(LINALG_METHODS),
                          D2_DEF_SELF) < 0)
        return -1;
    return 0;
}
