/* ops_index.c - shape/dtype inference for scans, sorting, triangles, flips, rolls and index/scatter ops. */
#include "ops.h"

#include <string.h>

#define OPN(ic) ((ic)->def->name)

static int want_in(d2_infer_ctx *ic, int i)
{
    const d2_type *t = &ic->in[i];
    if (i >= ic->n_in || (unsigned)t->dtype >= D2_NUM_DTYPES)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' is missing", OPN(ic),
                          ic->def->in_names[i]);
    if (t->kind != D2_VALUE_TENSOR)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' is a tensor array, not a tensor",
                          OPN(ic), ic->def->in_names[i]);
    if (!d2_dtype_supported(t->dtype))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: dtype %s of input '%s' is not supported",
                          OPN(ic), d2_dtype_name(t->dtype), ic->def->in_names[i]);
    return 0;
}

static int want_int_in(d2_infer_ctx *ic, int i)
{
    if (want_in(ic, i) < 0)
        return -1;
    if (!d2_dtype_is_int(ic->in[i].dtype))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: %s must be int32 or int64, got %s", OPN(ic),
                          ic->def->in_names[i], d2_dtype_name(ic->in[i].dtype));
    return 0;
}

static void out_type(d2_infer_ctx *ic, int i, d2_dtype dt, const d2_shape *s)
{
    ic->out[i].kind = D2_VALUE_TENSOR;
    ic->out[i].dtype = dt;
    ic->out[i].shape = *s;
}

/* Axis of a per-axis op; a 0-d input takes axis 0 or -1 as its only element. */
static int axis_of(d2_infer_ctx *ic, int64_t axis, int ndim)
{
    if (ndim == 0) {
        if (axis == 0 || axis == -1)
            return 0;
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: axis %lld is out of range for a 0-D input", OPN(ic),
                          (long long)axis);
    }
    return d2_norm_axis(axis, ndim, ic->def, ic->err);
}

static bool dims_match(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }

/* Known element count of s, or -1 when a dim is dynamic; -2 on overflow. */
static int64_t numel_of(const d2_shape *s)
{
    int64_t n = 1;
    for (int k = 0; k < s->ndim; k++) {
        if (s->dims[k] < 0)
            return -1;
        if (!d2_mul_i64(n, s->dims[k], &n))
            return -2;
    }
    return n;
}

/* cumsum, cumprod, logcumsumexp, cummax, cummin: same shape (flattened to
 * [numel] when flatten), same dtype; cummax/cummin also give indices. */
int infer_cum(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0)
        return -1;
    const d2_type *x = &ic->in[0];
    d2_op_id id = ic->def->id;
    if (x->dtype == D2_BOOL)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: bool inputs are not supported", OPN(ic));
    if (id == D2_OP_logcumsumexp && !d2_dtype_is_float(x->dtype))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: expected a float32 or float64 input, got %s",
                          OPN(ic), d2_dtype_name(x->dtype));
    d2_shape s = x->shape;
    if (ATTR_BOOL(ic, "flatten")) {
        int64_t n = numel_of(&x->shape);
        if (n == -2)
            return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: input is too large", OPN(ic));
        s.ndim = 1;
        s.dims[0] = n;
    } else if (axis_of(ic, ATTR_INT(ic, "axis"), x->shape.ndim) < 0) {
        return -1;
    }
    out_type(ic, 0, x->dtype, &s);
    if (id == D2_OP_cummax || id == D2_OP_cummin) {
        int dt = ATTR_DTYPE(ic, "dtype");
        if (dt != D2_I32 && dt != D2_I64)
            return d2_err_set(ic->err, D2_ERR_INVALID,
                              "%s: the dtype of indices must be int32 or int64", OPN(ic));
        out_type(ic, 1, (d2_dtype)dt, &s);
    }
    return 0;
}

/* argsort: the sorted values (x's type) and int64 indices, x's shape. */
int infer_argsort(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0 || axis_of(ic, ATTR_INT(ic, "axis"), ic->in[0].shape.ndim) < 0)
        return -1;
    out_type(ic, 0, ic->in[0].dtype, &ic->in[0].shape);
    out_type(ic, 1, D2_I64, &ic->in[0].shape);
    return 0;
}

/* topk: k of the axis's elements; 1 <= k <= the axis's size. */
int infer_topk(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape;
    int axis = axis_of(ic, ATTR_INT(ic, "axis"), x->ndim);
    if (axis < 0)
        return -1;
    int64_t k = ATTR_INT(ic, "k"), len = x->ndim ? x->dims[axis] : 1;
    if (k < 1 || (len >= 0 && k > len))
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: k must be in [1, %lld] (the size of axis %d), but received %lld",
                          OPN(ic), (long long)len, axis, (long long)k);
    d2_shape s = *x;
    if (s.ndim)
        s.dims[axis] = k;
    out_type(ic, 0, ic->in[0].dtype, &s);
    out_type(ic, 1, D2_I64, &s);
    return 0;
}

/* tril/triu: at least 2-D, same type. */
int infer_tril_triu(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0)
        return -1;
    if (ic->in[0].shape.ndim < 2)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: x must have at least 2 dims, got %d", OPN(ic),
                          ic->in[0].shape.ndim);
    out_type(ic, 0, ic->in[0].dtype, &ic->in[0].shape);
    return 0;
}

/* flip: each axis in range and listed once. */
int infer_flip(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0)
        return -1;
    int n, nd = ic->in[0].shape.ndim;
    const int64_t *ax = ATTR_INTS(ic, "axis", &n);
    bool seen[D2_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        int a = axis_of(ic, ax[i], nd);
        if (a < 0)
            return -1;
        if (seen[a])
            return d2_err_set(ic->err, D2_ERR_INVALID, "%s: axis %d is listed twice", OPN(ic), a);
        seen[a] = true;
    }
    out_type(ic, 0, ic->in[0].dtype, &ic->in[0].shape);
    return 0;
}

/* roll: one shift per axis; no axes rolls the flattened input by one shift. */
int infer_roll(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0)
        return -1;
    int ns, na, nd = ic->in[0].shape.ndim;
    ATTR_INTS(ic, "shifts", &ns);
    const int64_t *ax = ATTR_INTS(ic, "axis", &na);
    if (na == 0 ? ns != 1 : ns != na)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: shifts (%d values) must have one value per axis (%d), or one "
                          "value when axis is None",
                          OPN(ic), ns, na);
    for (int i = 0; i < na; i++)
        if (axis_of(ic, ax[i], nd) < 0)
            return -1;
    out_type(ic, 0, ic->in[0].dtype, &ic->in[0].shape);
    return 0;
}

/* The k of an index [..., k] into x: its last dim, which must be known and at most x's rank. */
static int index_depth(d2_infer_ctx *ic, const d2_shape *x, const d2_shape *idx)
{
    if (idx->ndim < 1)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: index must have at least 1 dim", OPN(ic));
    int64_t k = idx->dims[idx->ndim - 1];
    if (k < 0)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: the last dim of index must be known",
                          OPN(ic));
    if (k > x->ndim)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: the last dim of index (%lld) must not exceed the rank of x (%d)",
                          OPN(ic), (long long)k, x->ndim);
    if (idx->ndim - 1 + x->ndim - k > D2_MAX_DIMS)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: the result has more than %d dims", OPN(ic),
                          D2_MAX_DIMS);
    return (int)k;
}

/* gather_nd: index.shape[:-1] + x.shape[k:]. */
int infer_gather_nd(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0 || want_int_in(ic, 1) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape, *idx = &ic->in[1].shape;
    int k = index_depth(ic, x, idx);
    if (k < 0)
        return -1;
    d2_shape s = {0};
    for (int i = 0; i < idx->ndim - 1; i++)
        s.dims[s.ndim++] = idx->dims[i];
    for (int i = k; i < x->ndim; i++)
        s.dims[s.ndim++] = x->dims[i];
    out_type(ic, 0, ic->in[0].dtype, &s);
    return 0;
}

static int same_dtype(d2_infer_ctx *ic, int a, int b)
{
    if (ic->in[a].dtype == ic->in[b].dtype)
        return 0;
    return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: %s (%s) and %s (%s) must have the same dtype",
                      OPN(ic), ic->def->in_names[a], d2_dtype_name(ic->in[a].dtype),
                      ic->def->in_names[b], d2_dtype_name(ic->in[b].dtype));
}

static int shape_mismatch(d2_infer_ctx *ic, const char *what)
{
    return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: %s", OPN(ic), what);
}

/* scatter: index 1-D (or 0-D) rows of x; updates [len(index)] + x.shape[1:]. */
int infer_scatter(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0 || want_int_in(ic, 1) < 0 || want_in(ic, 2) < 0 || same_dtype(ic, 0, 2) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape, *idx = &ic->in[1].shape, *u = &ic->in[2].shape;
    if (x->ndim < 1)
        return shape_mismatch(ic, "x must have at least 1 dim");
    if (idx->ndim > 1)
        return shape_mismatch(ic, "index must be 1-D or 0-D");
    int64_t n = idx->ndim ? idx->dims[0] : 1;
    bool ok = u->ndim == x->ndim ? dims_match(u->dims[0], n)
                                 : idx->ndim == 0 && u->ndim == x->ndim - 1;
    int off = u->ndim == x->ndim ? 1 : 0;
    for (int d = 1; ok && d < x->ndim; d++)
        ok = dims_match(u->dims[d - 1 + off], x->dims[d]);
    if (!ok)
        return shape_mismatch(ic, "updates must have the shape [len(index)] + x.shape[1:]");
    out_type(ic, 0, ic->in[0].dtype, x);
    return 0;
}

/* scatter_nd_add: updates index.shape[:-1] + x.shape[k:]. */
int infer_scatter_nd_add(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0 || want_int_in(ic, 1) < 0 || want_in(ic, 2) < 0 || same_dtype(ic, 0, 2) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape, *idx = &ic->in[1].shape, *u = &ic->in[2].shape;
    int k = index_depth(ic, x, idx);
    if (k < 0)
        return -1;
    bool ok = u->ndim == idx->ndim - 1 + x->ndim - k;
    for (int i = 0; ok && i < idx->ndim - 1; i++)
        ok = dims_match(u->dims[i], idx->dims[i]);
    for (int i = k; ok && i < x->ndim; i++)
        ok = dims_match(u->dims[idx->ndim - 1 + i - k], x->dims[i]);
    if (!ok)
        return shape_mismatch(ic, "updates must have the shape index.shape[:-1] + x.shape[k:]");
    out_type(ic, 0, ic->in[0].dtype, x);
    return 0;
}

/* take_along_axis: arr and indices of one rank; the other dims broadcast,
 * the axis's size comes from indices. */
int infer_take_along_axis(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0 || want_int_in(ic, 1) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape, *idx = &ic->in[1].shape;
    if (x->ndim != idx->ndim || x->ndim == 0)
        return shape_mismatch(ic, "indices must have the same (nonzero) rank as arr");
    int axis = d2_norm_axis(ATTR_INT(ic, "axis"), x->ndim, ic->def, ic->err);
    if (axis < 0)
        return -1;
    d2_shape s = *idx;
    for (int d = 0; d < x->ndim; d++) {
        if (d == axis)
            continue;
        int64_t a = x->dims[d], b = idx->dims[d];
        if (a == 1 || b == 1 || a < 0 || b < 0 || a == b)
            s.dims[d] = a == 1 ? b : b == 1 ? a : (a < 0 || b < 0) ? -1 : a;
        else
            return shape_mismatch(ic, "arr and indices cannot be broadcast outside axis");
    }
    out_type(ic, 0, ic->in[0].dtype, &s);
    return 0;
}

/* put_along_axis: indices of arr's rank and at most arr's size outside axis;
 * values broadcast to indices; reduce is assign, add, mul, mean, amin or amax. */
int infer_put_along_axis(d2_infer_ctx *ic)
{
    if (want_in(ic, 0) < 0 || want_int_in(ic, 1) < 0 || want_in(ic, 2) < 0 || same_dtype(ic, 0, 2) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape, *idx = &ic->in[1].shape, *v = &ic->in[2].shape;
    const char *r = ATTR_STR(ic, "reduce");
    if (strcmp(r, "assign") && strcmp(r, "add") && strcmp(r, "mul") && strcmp(r, "multiply") &&
        strcmp(r, "mean") && strcmp(r, "amin") && strcmp(r, "amax"))
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: reduce must be 'assign', 'add', 'mul', 'multiply', 'mean', 'amin' "
                          "or 'amax', got '%s'",
                          OPN(ic), r);
    if (x->ndim != idx->ndim || x->ndim == 0)
        return shape_mismatch(ic, "indices must have the same (nonzero) rank as arr");
    int axis = d2_norm_axis(ATTR_INT(ic, "axis"), x->ndim, ic->def, ic->err);
    if (axis < 0)
        return -1;
    for (int d = 0; d < x->ndim; d++)
        if (d != axis && x->dims[d] >= 0 && idx->dims[d] > x->dims[d])
            return shape_mismatch(ic, "indices must not be larger than arr outside axis");
    if (v->ndim > idx->ndim)
        return shape_mismatch(ic, "values must broadcast to the shape of indices");
    for (int d = 0; d < v->ndim; d++) {
        int64_t a = v->dims[v->ndim - 1 - d], b = idx->dims[idx->ndim - 1 - d];
        if (a != 1 && !dims_match(a, b))
            return shape_mismatch(ic, "values must broadcast to the shape of indices");
    }
    out_type(ic, 0, ic->in[0].dtype, x);
    return 0;
}
