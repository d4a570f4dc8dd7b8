/* ops_linalg.c - shape/dtype inference for the linear-algebra ops (inv, det, solve, qr, svd, eigh, ...). */
#include "ops.h"

#include <string.h>

#define OPN(ic) ((ic)->def->name)

static void out_type(d2_infer_ctx *ic, int i, d2_dtype dt, const d2_shape *s)
{
    ic->out[i].kind = D2_VALUE_TENSOR;
    ic->out[i].dtype = dt;
    ic->out[i].shape = *s;
}

/* Input i: a float32/float64 tensor of at least 2 dims. */
static int want_matrix(d2_infer_ctx *ic, int i)
{
    const d2_type *t = &ic->in[i];
    if (i >= ic->n_in || (unsigned)t->dtype >= D2_NUM_DTYPES)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' is missing", OPN(ic),
                          ic->def->in_names[i]);
    if (t->kind != D2_VALUE_TENSOR)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' is a tensor array, not a tensor",
                          OPN(ic), ic->def->in_names[i]);
    if (t->dtype != D2_F32 && t->dtype != D2_F64)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: %s must be float32 or float64, got %s",
                          OPN(ic), ic->def->in_names[i], d2_dtype_name(t->dtype));
    if (t->shape.ndim < 2)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: %s must have at least 2 dims (a batch of matrices), got %d",
                          OPN(ic), ic->def->in_names[i], t->shape.ndim);
    return 0;
}

static bool dims_match(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }

/* Input i: a batch of square matrices. */
static int want_square(d2_infer_ctx *ic, int i)
{
    if (want_matrix(ic, i) < 0)
        return -1;
    const d2_shape *s = &ic->in[i].shape;
    if (!dims_match(s->dims[s->ndim - 1], s->dims[s->ndim - 2]))
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: %s must be a batch of square matrices, got [..., %lld, %lld]",
                          OPN(ic), ic->def->in_names[i], (long long)s->dims[s->ndim - 2],
                          (long long)s->dims[s->ndim - 1]);
    return 0;
}

static int64_t min_dim(int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return -1;
    return a < b ? a : b;
}

int infer_linalg_square(d2_infer_ctx *ic)
{
    if (want_square(ic, 0) < 0)
        return -1;
    out_type(ic, 0, ic->in[0].dtype, &ic->in[0].shape);
    return 0;
}

/* det / slogdet: each output has the batch shape. */
int infer_linalg_det(d2_infer_ctx *ic)
{
    if (want_square(ic, 0) < 0)
        return -1;
    d2_shape s = ic->in[0].shape;
    s.ndim -= 2;
    for (int i = 0; i < ic->n_out; i++)
        out_type(ic, i, ic->in[0].dtype, &s);
    return 0;
}

int infer_linalg_solve(d2_infer_ctx *ic)
{
    if (want_square(ic, 0) < 0 || want_matrix(ic, 1) < 0)
        return -1;
    const d2_shape *a = &ic->in[0].shape, *b = &ic->in[1].shape;
    if (ic->in[0].dtype != ic->in[1].dtype)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: x and y must have one dtype, got %s and %s",
                          OPN(ic), d2_dtype_name(ic->in[0].dtype),
                          d2_dtype_name(ic->in[1].dtype));
    bool ok = a->ndim == b->ndim && dims_match(a->dims[a->ndim - 1], b->dims[b->ndim - 2]);
    for (int k = 0; ok && k < a->ndim - 2; k++)
        ok = dims_match(a->dims[k], b->dims[k]);
    if (!ok) {
        char sa[128], sb[128];
        d2_shape_str(a, sa, sizeof sa);
        d2_shape_str(b, sb, sizeof sb);
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: x %s and y %s do not match: y must be [..., n, k] with x's batch "
                          "dims for x [..., n, n]",
                          OPN(ic), sa, sb);
    }
    out_type(ic, 0, ic->in[1].dtype, b);
    return 0;
}

int infer_linalg_qr(d2_infer_ctx *ic)
{
    if (want_matrix(ic, 0) < 0)
        return -1;
    const char *mode = ATTR_STR(ic, "mode");
    bool complete = strcmp(mode, "complete") == 0;
    if (!complete && strcmp(mode, "reduced") != 0 && strcmp(mode, "r") != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: mode must be 'reduced', 'complete' or 'r', got '%s'", OPN(ic),
                          mode);
    const d2_shape *x = &ic->in[0].shape;
    int nd = x->ndim;
    int64_t m = x->dims[nd - 2], n = x->dims[nd - 1], k = complete ? m : min_dim(m, n);
    d2_shape q = *x, r = *x;
    q.dims[nd - 1] = k;
    r.dims[nd - 2] = k;
    out_type(ic, 0, ic->in[0].dtype, &q);
    out_type(ic, 1, ic->in[0].dtype, &r);
    return 0;
}

int infer_linalg_svd(d2_infer_ctx *ic)
{
    if (want_matrix(ic, 0) < 0)
        return -1;
    bool full = ATTR_BOOL(ic, "full_matrices");
    const d2_shape *x = &ic->in[0].shape;
    int nd = x->ndim;
    int64_t m = x->dims[nd - 2], n = x->dims[nd - 1], k = min_dim(m, n);
    d2_shape u = *x, s = *x, vh = *x;
    u.dims[nd - 1] = full ? m : k;
    s.ndim = nd - 1;
    s.dims[nd - 2] = k;
    vh.dims[nd - 2] = full ? n : k;
    out_type(ic, 0, ic->in[0].dtype, &u);
    out_type(ic, 1, ic->in[0].dtype, &s);
    out_type(ic, 2, ic->in[0].dtype, &vh);
    return 0;
}

int infer_linalg_eigh(d2_infer_ctx *ic)
{
    if (want_square(ic, 0) < 0)
        return -1;
    const char *uplo = ATTR_STR(ic, "UPLO");
    if (strcmp(uplo, "L") != 0 && strcmp(uplo, "U") != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: UPLO must be 'L' or 'U', got '%s'",
                          OPN(ic), uplo);
    const d2_shape *x = &ic->in[0].shape;
    d2_shape w = *x;
    w.ndim--;
    if (w.dims[w.ndim - 1] < 0)
        w.dims[w.ndim - 1] = x->dims[x->ndim - 1];
    out_type(ic, 0, ic->in[0].dtype, &w);
    out_type(ic, 1, ic->in[0].dtype, x);
    return 0;
}

/* lu: lu like x, pivots [..., min(m, n)] and infos [...] in int32 */
int infer_linalg_lu(d2_infer_ctx *ic)
{
    if (want_matrix(ic, 0) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape;
    d2_shape piv = *x, info = *x;
    piv.ndim--;
    piv.dims[piv.ndim - 1] = min_dim(x->dims[x->ndim - 2], x->dims[x->ndim - 1]);
    info.ndim -= 2;
    out_type(ic, 0, ic->in[0].dtype, x);
    out_type(ic, 1, D2_I32, &piv);
    out_type(ic, 2, D2_I32, &info);
    return 0;
}
