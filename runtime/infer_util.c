/* infer_util.c - helpers shared by shape/dtype inference functions, and trivial inference. */
#include "ops.h"

#include <stdio.h>
#include <string.h>

int d2_norm_axis(int64_t axis, int ndim, const d2_opdef *def, d2_err *err)
{
    /* a 0-d tensor takes axis 0 or -1, as in Paddle */
    int64_t a = axis < 0 ? axis + (ndim > 0 ? ndim : 1) : axis;
    if (a < 0 || a >= (ndim > 0 ? ndim : 1))
        return d2_err_set(err, D2_ERR_INVALID, "%s: axis %lld is out of range for a %d-d tensor",
                          def ? def->name : "op", (long long)axis, ndim);
    return (int)a;
}

int d2_broadcast_shapes(const d2_shape *a, const d2_shape *b, d2_shape *out, const d2_opdef *def,
                        d2_err *err)
{
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    out->ndim = n;
    for (int i = 0; i < n; i++) {
        int ia = a->ndim - n + i, ib = b->ndim - n + i;
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        int64_t d;
        if (da == db)
            d = da;
        else if (da == 1)
            d = db;
        else if (db == 1)
            d = da;
        else if (da < 0)
            d = db;
        else if (db < 0)
            d = da;
        else {
            char sa[160], sb[160];
            d2_shape_str(a, sa, sizeof sa);
            d2_shape_str(b, sb, sizeof sb);
            return d2_err_set(err, D2_ERR_SHAPE,
                              "%s: shapes %s and %s cannot be broadcast (dim %d: %lld vs %lld)",
                              def ? def->name : "op", sa, sb, i, (long long)da, (long long)db);
        }
        out->dims[i] = d;
    }
    return 0;
}

static __attribute__((noinline, cold)) int negative_dim(const d2_type *t, int64_t d, d2_err *err)
{
    char ts[160];
    d2_type_str(t, ts, sizeof ts);
    return d2_err_set(err, D2_ERR_SHAPE, "%s has a negative dim %lld", ts, (long long)d);
}

int d2_type_check_size(const d2_type *t, d2_err *err)
{
    if (t->shape.ndim < 0 || t->shape.ndim > D2_MAX_DIMS)
        return d2_err_set(err, D2_ERR_SHAPE, "rank %d exceeds the maximum of %d", t->shape.ndim,
                          D2_MAX_DIMS);
    int64_t known[D2_MAX_DIMS];
    for (int i = 0; i < t->shape.ndim; i++) {
        int64_t d = t->shape.dims[i];
        if (__builtin_expect(d < -1, 0))
            return negative_dim(t, d, err);
        known[i] = d < 0 ? 1 : d;
    }
    if ((unsigned)t->dtype >= D2_NUM_DTYPES)
        return 0; /* left open by inference */
    return d2_tensor_check_size(t->dtype, t->shape.ndim, known, err);
}

int d2_infer_checked(d2_infer_ctx *ic)
{
    if (ic->def->infer(ic) < 0)
        return -1;
    for (int i = 0; i < ic->n_out; i++)
        if (d2_type_check_size(&ic->out[i], ic->err) < 0) {
            d2_err_prefix(ic->err, "%s: output %d", ic->def->name, i);
            return -1;
        }
    return 0;
}

void d2_type_str(const d2_type *t, char *out, size_t n)
{
    char s[160];
    d2_shape_str(&t->shape, s, sizeof s);
    if (t->kind == D2_VALUE_ARRAY)
        snprintf(out, n, "array<%s%s>", d2_dtype_name(t->dtype), s);
    else
        snprintf(out, n, "%s%s", d2_dtype_name(t->dtype), s);
}

int infer_none(d2_infer_ctx *ic)
{
    D2_UNUSED(ic);
    return 0;
}

int infer_assign(d2_infer_ctx *ic)
{
    ic->out[0] = ic->in[0];
    return 0;
}
