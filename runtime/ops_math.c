/* ops_math.c - shape/dtype inference for elementwise, comparison, logical, activation and reduction ops. */
#include "ops.h"

#include <math.h>
#include <string.h>

/* Checks that input i is present, a tensor (not a tensor array) and of a
 * dtype with kernels. */
static int check_input(d2_infer_ctx *ic, int i)
{
    const d2_type *t = &ic->in[i];
    const char *name = i < ic->def->n_ins ? ic->def->in_names[i] : "input";
    if ((unsigned)t->dtype >= D2_NUM_DTYPES)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' is missing", ic->def->name, name);
    if (t->kind != D2_VALUE_TENSOR)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' is a tensor array, not a tensor",
                          ic->def->name, name);
    if (!d2_dtype_supported(t->dtype))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: dtype %s of input '%s' is not supported",
                          ic->def->name, d2_dtype_name(t->dtype), name);
    return 0;
}

static int require_float(d2_infer_ctx *ic, int i)
{
    if (d2_dtype_is_float(ic->in[i].dtype))
        return 0;
    return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: expected a float32 or float64 input, got %s",
                      ic->def->name, d2_dtype_name(ic->in[i].dtype));
}

static int reject_bool(d2_infer_ctx *ic, int i)
{
    if (ic->in[i].dtype != D2_BOOL)
        return 0;
    return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: bool inputs are not supported", ic->def->name);
}

static void set_out(d2_infer_ctx *ic, d2_dtype dt, const d2_shape *s)
{
    ic->out[0].kind = D2_VALUE_TENSOR;
    ic->out[0].dtype = dt;
    ic->out[0].shape = *s;
}

/* Both inputs present, same dtype; broadcast shape into *s. */
static int binary_common(d2_infer_ctx *ic, d2_shape *s)
{
    if (check_input(ic, 0) < 0 || check_input(ic, 1) < 0)
        return -1;
    if (ic->in[0].dtype != ic->in[1].dtype)
        return d2_err_set(ic->err, D2_ERR_DTYPE,
                          "%s: x and y must have the same dtype, got %s and %s", ic->def->name,
                          d2_dtype_name(ic->in[0].dtype), d2_dtype_name(ic->in[1].dtype));
    return d2_broadcast_shapes(&ic->in[0].shape, &ic->in[1].shape, s, ic->def, ic->err);
}

/* x (op) y with numpy broadcasting; the result has the inputs' dtype. On bool
 * only add/multiply/maximum/minimum are defined (as or/and, like numpy). */
int infer_binary(d2_infer_ctx *ic)
{
    d2_shape s;
    if (binary_common(ic, &s) < 0)
        return -1;
    d2_op_id id = ic->def->id;
    bool bool_ok = id == D2_OP_add || id == D2_OP_multiply || id == D2_OP_maximum ||
                   id == D2_OP_minimum;
    if (!bool_ok && reject_bool(ic, 0) < 0)
        return -1;
    set_out(ic, ic->in[0].dtype, &s);
    return 0;
}

/* Comparisons and binary logical ops: same dtype on both sides, bool result. */
int infer_compare(d2_infer_ctx *ic)
{
    d2_shape s;
    /* comparisons also take the storage dtypes, compared exactly as float64 */
    const d2_type *x = &ic->in[0], *y = &ic->in[1];
    d2_op_id id = ic->def->id;
    bool cmp = id == D2_OP_equal || id == D2_OP_not_equal || id == D2_OP_less_than ||
               id == D2_OP_less_equal || id == D2_OP_greater_than || id == D2_OP_greater_equal;
    if (cmp && ic->n_in >= 2 && x->kind == D2_VALUE_TENSOR && y->kind == D2_VALUE_TENSOR &&
        (unsigned)x->dtype < D2_NUM_DTYPES && !d2_dtype_supported(x->dtype) &&
        x->dtype == y->dtype) {
        if (d2_broadcast_shapes(&x->shape, &y->shape, &s, ic->def, ic->err) < 0)
            return -1;
        set_out(ic, D2_BOOL, &s);
        return 0;
    }
    if (binary_common(ic, &s) < 0)
        return -1;
    set_out(ic, D2_BOOL, &s);
    return 0;
}

/* Elementwise op on any numeric dtype (not bool), same dtype out. Checks the
 * min/max attributes of clip. */
int infer_unary(d2_infer_ctx *ic)
{
    if (check_input(ic, 0) < 0 || reject_bool(ic, 0) < 0)
        return -1;
    if (d2_attr_index(ic->def, "min") >= 0 && d2_attr_index(ic->def, "max") >= 0) {
        double lo = ATTR_FLOAT(ic, "min"), hi = ATTR_FLOAT(ic, "max");
        if (isnan(lo) || isnan(hi) || lo > hi)
            return d2_err_set(ic->err, D2_ERR_INVALID,
                              "%s: attribute min (%g) must not be greater than max (%g)",
                              ic->def->name, lo, hi);
    }
    set_out(ic, ic->in[0].dtype, &ic->in[0].shape);
    return 0;
}

/* Any dtype in, bool out (logical_not). */
int infer_unary_bool(d2_infer_ctx *ic)
{
    if (check_input(ic, 0) < 0)
        return -1;
    set_out(ic, D2_BOOL, &ic->in[0].shape);
    return 0;
}

/* Float-only elementwise op: float32/float64 in, same out. */
int infer_unary_float(d2_infer_ctx *ic)
{
    if (check_input(ic, 0) < 0 || require_float(ic, 0) < 0)
        return -1;
    set_out(ic, ic->in[0].dtype, &ic->in[0].shape);
    return 0;
}

/* softmax / log_softmax: float input, axis in range, same type out. */
int infer_softmax(d2_infer_ctx *ic)
{
    if (check_input(ic, 0) < 0 || require_float(ic, 0) < 0)
        return -1;
    if (d2_norm_axis(ATTR_INT(ic, "axis"), ic->in[0].shape.ndim, ic->def, ic->err) < 0)
        return -1;
    set_out(ic, ic->in[0].dtype, &ic->in[0].shape);
    return 0;
}

/* cast: any dtype to the dtype attribute, storage-only dtypes included. */
int infer_cast(d2_infer_ctx *ic)
{
    const d2_type *t = &ic->in[0];
    if (ic->n_in < 1 || t->kind != D2_VALUE_TENSOR || (unsigned)t->dtype >= D2_NUM_DTYPES)
        return check_input(ic, 0);
    int dt = ATTR_DTYPE(ic, "dtype");
    if (dt < 0 || (unsigned)dt >= D2_NUM_DTYPES)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: bad attribute dtype: %s is not supported",
                          ic->def->name, dt < 0 ? "none" : d2_dtype_name((d2_dtype)dt));
    set_out(ic, (d2_dtype)dt, &ic->in[0].shape);
    return 0;
}

/* where(cond, x, y): cond bool, x and y one dtype, all three broadcast. */
int infer_where(d2_infer_ctx *ic)
{
    for (int i = 0; i < 3; i++)
        if (check_input(ic, i) < 0)
            return -1;
    if (ic->in[0].dtype != D2_BOOL)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: cond must be bool, got %s", ic->def->name,
                          d2_dtype_name(ic->in[0].dtype));
    if (ic->in[1].dtype != ic->in[2].dtype)
        return d2_err_set(ic->err, D2_ERR_DTYPE,
                          "%s: x and y must have the same dtype, got %s and %s", ic->def->name,
                          d2_dtype_name(ic->in[1].dtype), d2_dtype_name(ic->in[2].dtype));
    d2_shape s1, s2;
    if (d2_broadcast_shapes(&ic->in[0].shape, &ic->in[1].shape, &s1, ic->def, ic->err) < 0 ||
        d2_broadcast_shapes(&s1, &ic->in[2].shape, &s2, ic->def, ic->err) < 0)
        return -1;
    set_out(ic, ic->in[1].dtype, &s2);
    return 0;
}

/* Marks the reduced axes of an ndim-d tensor in red[]: [] means all; negative
 * axes count from the end; duplicates and out-of-range axes are errors. */
static int reduce_axes(const d2_opdef *def, const int64_t *axes, int n, int ndim, bool *red,
                       d2_err *err)
{
    memset(red, 0, D2_MAX_DIMS * sizeof *red);
    if (n == 0) {
        for (int i = 0; i < ndim; i++)
            red[i] = true;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int a = d2_norm_axis(axes[i], ndim, def, err);
        if (a < 0)
            return -1;
        if (red[a])
            return d2_err_set(err, D2_ERR_INVALID, "%s: axis %lld is given more than once",
                              def->name, (long long)axes[i]);
        red[a] = true;
    }
    return 0;
}

/* sum/mean/max/min/prod/any/all over the axis list. sum of bool/int32 gives
 * int64 unless the dtype attribute says otherwise; mean wants floats;
 * max/min/prod reject bool; any/all take any dtype and give bool. */
int infer_reduce(d2_infer_ctx *ic)
{
    if (check_input(ic, 0) < 0)
        return -1;
    const d2_opdef *def = ic->def;
    d2_dtype in = ic->in[0].dtype, out = in;
    d2_op_id id = def->id;
    if (id == D2_OP_mean) {
        if (require_float(ic, 0) < 0)
            return -1;
    } else if (id == D2_OP_any || id == D2_OP_all) {
        out = D2_BOOL;
    } else if (d2_attr_index(def, "dtype") >= 0) {
        int dt = ATTR_DTYPE(ic, "dtype");
        if (dt >= 0) {
            if (!d2_dtype_supported((d2_dtype)dt) || dt == D2_BOOL)
                return d2_err_set(ic->err, D2_ERR_INVALID,
                                  "%s: bad attribute dtype: %s is not supported", def->name,
                                  d2_dtype_name((d2_dtype)dt));
            out = (d2_dtype)dt;
        } else if (in == D2_BOOL || in == D2_I32) {
            out = D2_I64;
        }
    } else if (reject_bool(ic, 0) < 0) {
        return -1;
    }
    int n;
    const int64_t *axes = ATTR_INTS(ic, "axis", &n);
    bool keep = ATTR_BOOL(ic, "keepdim");
    bool red[D2_MAX_DIMS];
    const d2_shape *xs = &ic->in[0].shape;
    if (reduce_axes(def, axes, n, xs->ndim, red, ic->err) < 0)
        return -1;
    d2_shape s = {0, {0}};
    for (int i = 0; i < xs->ndim; i++) {
        if (!red[i])
            s.dims[s.ndim++] = xs->dims[i];
        else if (keep)
            s.dims[s.ndim++] = 1;
    }
    set_out(ic, out, &s);
    return 0;
}

/* argmax/argmin along axis (or over all elements with flatten); the index
 * dtype is int64 (default) or int32. */
int infer_argminmax(d2_infer_ctx *ic)
{
    if (check_input(ic, 0) < 0 || reject_bool(ic, 0) < 0)
        return -1;
    int dt = ATTR_DTYPE(ic, "dtype");
    if (dt != D2_I32 && dt != D2_I64)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: bad attribute dtype: %s (expected int32 or int64)", ic->def->name,
                          dt < 0 ? "none" : d2_dtype_name((d2_dtype)dt));
    const d2_shape *xs = &ic->in[0].shape;
    bool keep = ATTR_BOOL(ic, "keepdim");
    d2_shape s = {0, {0}};
    if (ATTR_BOOL(ic, "flatten")) {
        if (keep) {
            s.ndim = xs->ndim;
            for (int i = 0; i < xs->ndim; i++)
                s.dims[i] = 1;
        }
    } else {
        int a = d2_norm_axis(ATTR_INT(ic, "axis"), xs->ndim, ic->def, ic->err);
        if (a < 0)
            return -1;
        for (int i = 0; i < xs->ndim; i++) {
            if (i != a)
                s.dims[s.ndim++] = xs->dims[i];
            else if (keep)
                s.dims[s.ndim++] = 1;
        }
    }
    set_out(ic, (d2_dtype)dt, &s);
    return 0;
}

/* reduce_as(x, target): target's shape must broadcast to x's (numpy rules,
 * dynamic dims pass); the result has x's dtype and target's shape. */
int infer_reduce_as(d2_infer_ctx *ic)
{
    if (check_input(ic, 0) < 0 || check_input(ic, 1) < 0 || reject_bool(ic, 0) < 0)
        return -1;
    const d2_shape *xs = &ic->in[0].shape, *ts = &ic->in[1].shape;
    bool ok = ts->ndim <= xs->ndim;
    for (int i = 0; ok && i < ts->ndim; i++) {
        int64_t t = ts->dims[i], x = xs->dims[i + xs->ndim - ts->ndim];
        ok = t == 1 || t == x || t < 0 || x < 0;
    }
    if (!ok) {
        char a[160], b[160];
        d2_shape_str(xs, a, sizeof a);
        d2_shape_str(ts, b, sizeof b);
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: target shape %s does not broadcast to x's shape %s", ic->def->name,
                          b, a);
    }
    set_out(ic, ic->in[0].dtype, ts);
    return 0;
}
