/* functions.c - numpy's module-level functions: reductions, math, shapes, creation, comparisons. */
#include "lib/numpy/numpy_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "syntax/ast.h"

/* Writes "axis = [...]" for an axis argument (None: all axes) into buf;
 * 0, or -1 with an exception for a bad or out-of-range axis. */
static int axis_text(d2_interp *I, d2_obj *axis, const char *fname, char *buf, size_t cap, int ndim)
{
    if (is_none(I, axis)) {
        snprintf(buf, cap, "axis = []");
        return 0;
    }
    int64_t v[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, axis, fname, "axis", v, &n, D2_MAX_DIMS) < 0)
        return -1;
    size_t l = (size_t)snprintf(buf, cap, "axis = [");
    for (int i = 0; i < n; i++) {
        if (v[i] < -ndim || v[i] >= ndim) {
            d2_raise(I, "ValueError", "%s: axis %lld is out of bounds for array of dimension %d",
                     fname, (long long)v[i], ndim);
            return -1;
        }
        l += (size_t)snprintf(buf + l, cap - l, "%s%lld", i ? ", " : "", (long long)v[i]);
    }
    snprintf(buf + l, cap - l, "]");
    return 0;
}

/* ---- reductions ---- */

static d2_tensor *np_reduce_t(d2_interp *I, const char *fname, d2_op_id op, d2_tensor *x,
                              d2_obj *axis, bool keep, int dt)
{
    char at[200];
    if (axis_text(I, axis, fname, at, sizeof at, x->ndim) < 0)
        return NULL;
    d2_tensor *src = NULL;
    int want = dt;
    if (op == D2_OP_mean && want < 0 && !d2_dtype_is_float(x->dtype))
        want = D2_F64;
    if ((op == D2_OP_sum || op == D2_OP_prod) && want < 0 && !d2_dtype_is_float(x->dtype))
        want = D2_I64;
    src = want >= 0 ? d2np_cast(I, fname, x, want) : d2_tensor_ref(x);
    if (!src)
        return NULL;
    char attrs[260];
    snprintf(attrs, sizeof attrs, "%s, keepdim = %s", at, keep ? "true" : "false");
    d2_tensor *r = d2np_run(I, fname, op, &src, 1, attrs);
    d2_tensor_unref(src);
    return r;
}

/* a[0] a, a[1] axis, then (has_dtype) a[2] dtype, a[3] out, a[4] keepdims
 * or a[2] out, a[3] keepdims */
static d2_obj *np_reduce(d2_interp *I, const char *fname, d2_op_id op, d2_obj **a, bool has_dtype)
{
    int dt = -1;
    if (has_dtype && dt_arg(I, a[2], fname, &dt) < 0)
        return NULL;
    d2_obj *keep = has_dtype ? a[4] : a[3];
    bool k = keep && is_pynum(keep) && D2_AS(d2_int, keep)->v;
    d2_tensor *x = arr(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_tensor *r = np_reduce_t(I, fname, op, x, a[1], k, dt);
    d2_tensor_unref(x);
    return wrap(I, r);
}

/* the signatures of the reductions with and without a dtype */
#define SIG_REDUCE_DT "a, axis=None, dtype=None, out=None, keepdims=False"
#define SIG_REDUCE "a, axis=None, out=None, keepdims=False"

#define REDUCER(name, op, dt)                                                                      \
    D2_FN(n_##name) { return np_reduce(I, "numpy." #name, op, a, dt); }
REDUCER(sum, D2_OP_sum, true)
REDUCER(mean, D2_OP_mean, true)
REDUCER(prod, D2_OP_prod, true)
REDUCER(max, D2_OP_max, false)
REDUCER(min, D2_OP_min, false)
REDUCER(all, D2_OP_all, false)
REDUCER(any, D2_OP_any, false)
#undef REDUCER

/* a[0] a, a[1] axis, a[2] out, a[3] keepdims */
static d2_obj *np_arg(d2_interp *I, const char *fname, d2_op_id op, d2_obj **a)
{
    d2_tensor *x = arr(I, a[0], -1, fname);
    if (!x)
        return NULL;
    char attrs[160];
    bool keep = is_pynum(a[3]) && D2_AS(d2_int, a[3])->v;
    if (is_none(I, a[1])) {
        snprintf(attrs, sizeof attrs, "flatten = true, keepdim = %s", keep ? "true" : "false");
    } else {
        int64_t ax;
        if (d2_to_int64(I, a[1], "axis", &ax) < 0) {
            d2_tensor_unref(x);
            return NULL;
        }
        snprintf(attrs, sizeof attrs, "axis = %lld, keepdim = %s", (long long)ax,
                 keep ? "true" : "false");
    }
    d2_tensor *r = d2np_run(I, fname, op, &x, 1, attrs);
    d2_tensor_unref(x);
    return wrap(I, r);
}

D2_FN(n_argmax) { return np_arg(I, "numpy.argmax", D2_OP_argmax, a); }

D2_FN(n_argmin) { return np_arg(I, "numpy.argmin", D2_OP_argmin, a); }

/* std / var: sqrt(mean(|x - mean(x)|^2)) over axis, with ddof.
 * a[0] a, a[1] axis, a[2] dtype, a[3] out, a[4] ddof, a[5] keepdims */
static d2_obj *np_var(d2_interp *I, d2_obj **a, bool sd)
{
    const char *fname = sd ? "numpy.std" : "numpy.var";
    d2_obj *r = NULL;
    d2_tensor *x = NULL, *m = NULL, *d = NULL, *sq = NULL, *s = NULL, *cnt = NULL, *q = NULL;
    int64_t ddof;
    if (d2_to_int64(I, a[4], "ddof", &ddof) < 0)
        return NULL;
    bool keep = is_pynum(a[5]) && D2_AS(d2_int, a[5])->v;
    d2_tensor *x0 = arr(I, a[0], -1, fname);
    if (!x0)
        return NULL;
    x = d2np_cast(I, fname, x0, d2_dtype_is_float(x0->dtype) ? (int)x0->dtype : D2_F64);
    d2_tensor_unref(x0);
    if (!x)
        return NULL;
    m = np_reduce_t(I, fname, D2_OP_mean, x, a[1], true, -1);
    d2_tensor *in2[2] = {x, m};
    d = m ? d2np_run(I, fname, D2_OP_subtract, in2, 2, NULL) : NULL;
    sq = d ? d2np_run(I, fname, D2_OP_square, &d, 1, NULL) : NULL;
    s = sq ? np_reduce_t(I, fname, D2_OP_sum, sq, a[1], keep, -1) : NULL;
    if (s) {
        int64_t n = d2_tensor_numel(x) / (d2_tensor_numel(s) ? d2_tensor_numel(s) : 1);
        double div = (double)(n - ddof);
        char at[64];
        snprintf(at, sizeof at, "scale = %.17g", 1.0 / div);
        q = d2np_run(I, fname, D2_OP_scale, &s, 1, at);
        if (q && sd) {
            d2_tensor *rt = d2np_run(I, fname, D2_OP_sqrt, &q, 1, NULL);
            d2_tensor_unref(q);
            q = rt;
        }
        r = wrap(I, q);
        q = NULL;
    }
    d2_tensor *ts[] = {x, m, d, sq, s, cnt, q};
    for (size_t i = 0; i < D2_COUNTOF(ts); i++)
        if (ts[i])
            d2_tensor_unref(ts[i]);
    return r;
}

D2_FN(n_std) { return np_var(I, a, true); }

D2_FN(n_var) { return np_var(I, a, false); }

/* ---- elementwise ---- */

/* a[0] x, a[1] out */
static d2_obj *np_unary(d2_interp *I, const char *fname, d2_op_id op, d2_obj **a, bool float_only)
{
    d2_tensor *x = arr(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_tensor *c = float_only && !d2_dtype_is_float(x->dtype) ? d2np_cast(I, fname, x, D2_F64)
                                                              : d2_tensor_ref(x);
    d2_tensor_unref(x);
    if (!c)
        return NULL;
    d2_tensor *r = d2np_run(I, fname, op, &c, 1, NULL);
    d2_tensor_unref(c);
    return wrap(I, r);
}

#define UNARY_FN(name, op, fl)                                                                     \
    D2_FN(n_##name) { return np_unary(I, "numpy." #name, op, a, fl); }
UNARY_FN(exp, D2_OP_exp, true)
UNARY_FN(log, D2_OP_log, true)
UNARY_FN(sqrt, D2_OP_sqrt, true)
UNARY_FN(tanh, D2_OP_tanh, true)
UNARY_FN(sin, D2_OP_sin, true)
UNARY_FN(cos, D2_OP_cos, true)
UNARY_FN(floor, D2_OP_floor, true)
UNARY_FN(ceil, D2_OP_ceil, true)
UNARY_FN(abs, D2_OP_abs, false)
UNARY_FN(sign, D2_OP_sign, false)
UNARY_FN(square, D2_OP_square, false)
UNARY_FN(negative, D2_OP_neg, false)
UNARY_FN(logical_not, D2_OP_logical_not, false)
#undef UNARY_FN

/* a[0] x1, a[1] x2, a[2] out */
#define BIN_FN(name, op)                                                                           \
    D2_FN(n_##name) { return wrap(I, d2np_binary_t(I, "numpy." #name, op, a[0], a[1])); }
BIN_FN(add, D2_OP_ADD)
BIN_FN(subtract, D2_OP_SUB)
BIN_FN(multiply, D2_OP_MULT)
BIN_FN(divide, D2_OP_DIV)
BIN_FN(true_divide, D2_OP_DIV)
BIN_FN(floor_divide, D2_OP_FLOOR_DIV)
BIN_FN(mod, D2_OP_MOD)
BIN_FN(power, D2_OP_POW)
BIN_FN(matmul, D2_OP_MAT_MULT)
#undef BIN_FN

/* maximum/minimum/comparisons through a direct op after promotion
 * (a[0] x1, a[1] x2, a[2] out) */
#define BINOP_FN(name, op)                                                                         \
    D2_FN(n_##name) { return d2np_promoted_op(I, "numpy." #name, op, a[0], a[1]); }
BINOP_FN(maximum, D2_OP_maximum)
BINOP_FN(minimum, D2_OP_minimum)
BINOP_FN(equal, D2_OP_equal)
BINOP_FN(logical_and, D2_OP_logical_and)
BINOP_FN(logical_or, D2_OP_logical_or)
#undef BINOP_FN

D2_FN(n_where) /* a[0] condition, a[1] x, a[2] y */
{
    const char *fname = "numpy.where";
    if (is_none(I, a[1]) || is_none(I, a[2]))
        return d2_raise(I, "NotImplementedError", "%s: the one-argument form is not supported",
                        fname);
    bool xs = is_pynum(a[1]), ys = is_pynum(a[2]);
    d2_tensor *c = arr(I, a[0], D2_BOOL, fname);
    d2_tensor *x = c ? arr(I, a[1], -1, fname) : NULL;
    d2_tensor *y = x ? arr(I, a[2], -1, fname) : NULL;
    d2_tensor *r = NULL;
    if (y) {
        d2_dtype dt = d2np_result_dt(x, xs, y, ys);
        d2_tensor *xc = d2np_cast(I, fname, x, dt);
        d2_tensor *yc = xc ? d2np_cast(I, fname, y, dt) : NULL;
        if (yc) {
            d2_tensor *in[3] = {c, xc, yc};
            r = d2np_run(I, fname, D2_OP_where, in, 3, NULL);
        }
        if (xc)
            d2_tensor_unref(xc);
        if (yc)
            d2_tensor_unref(yc);
    }
    d2_tensor *ts[] = {c, x, y};
    for (int i = 0; i < 3; i++)
        if (ts[i])
            d2_tensor_unref(ts[i]);
    return wrap(I, r);
}

D2_FN(n_clip) /* a[0] a, a[1] a_min, a[2] a_max, a[3] out */
{
    const char *fname = "numpy.clip";
    d2_obj *r = NULL;
    d2_tensor *x = arr(I, a[0], -1, fname);
    if (x) {
        char at[128];
        double lo = -INFINITY, hi = INFINITY;
        if ((is_none(I, a[1]) || d2_to_double(I, a[1], "a_min", &lo) == 0) &&
            (is_none(I, a[2]) || d2_to_double(I, a[2], "a_max", &hi) == 0)) {
            snprintf(at, sizeof at, "min = %.17g, max = %.17g", lo, hi);
            r = wrap(I, d2np_run(I, fname, D2_OP_clip, &x, 1, at));
        }
        d2_tensor_unref(x);
    }
    return r;
}

D2_FN(n_round) /* a[0] a, a[1] decimals, a[2] out */
{
    const char *fname = "numpy.round";
    int64_t dec = 0;
    if (d2_to_int64(I, a[1], "decimals", &dec) < 0)
        return NULL;
    d2_tensor *x = arr(I, a[0], -1, fname);
    d2_err err = {0};
    d2_tensor *c = x ? d2_tensor_copy_to(x, NULL, &err) : NULL;
    if (x && !c)
        d2_raise_err(I, &err);
    if (c && d2_dtype_is_float(c->dtype)) {
        int64_t n = d2_tensor_numel(c);
        double sc = pow(10.0, (double)dec);
        for (int64_t i = 0; i < n; i++) {
            double v = d2_tensor_get_f64(c, i);
            /* NumPy: round half to even of v * 10**dec, then divide */
            double y = dec >= 0 ? v * sc : v / pow(10.0, (double)-dec);
            double ry = nearbyint(y);
            double out = dec >= 0 ? ry / sc : ry * pow(10.0, (double)-dec);
            if (c->dtype == D2_F32)
                ((float *)d2_tensor_data(c))[i] = (float)out;
            else
                ((double *)d2_tensor_data(c))[i] = out;
        }
    }
    if (x)
        d2_tensor_unref(x);
    return wrap(I, c);
}

/* ---- shape manipulation ---- */

D2_FN(n_reshape) /* a[0] a, a[1] newshape, a[2] order */
{
    int64_t dims[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, a[1], "numpy.reshape", "newshape", dims, &n, D2_MAX_DIMS) < 0)
        return NULL;
    d2_tensor *x = arr(I, a[0], -1, "numpy.reshape");
    if (!x)
        return NULL;
    d2_tensor *r = d2np_reshape_t(I, "numpy.reshape", x, dims, n);
    d2_tensor_unref(x);
    return wrap(I, r);
}

D2_FN(n_ravel) /* a[0] a, a[1] order */
{
    d2_obj *r = NULL;
    d2_tensor *x = arr(I, a[0], -1, "numpy.ravel");
    int64_t n = -1;
    if (x) {
        r = wrap(I, d2np_reshape_t(I, "numpy.ravel", x, &n, 1));
        d2_tensor_unref(x);
    }
    return r;
}

D2_FN(n_transpose) /* a[0] a, a[1] axes */
{
    int64_t p[D2_MAX_DIMS];
    int n = 0;
    if (!is_none(I, a[1]) && d2_pd_ints(I, a[1], "numpy.transpose", "axes", p, &n, D2_MAX_DIMS) < 0)
        return NULL;
    d2_tensor *x = arr(I, a[0], -1, "numpy.transpose");
    if (!x)
        return NULL;
    d2_obj *r = d2np_transpose_t(I, x, p, n);
    d2_tensor_unref(x);
    return r;
}

D2_FN(n_squeeze) /* a[0] a, a[1] axis */
{
    d2_obj *r = NULL;
    d2_tensor *x = arr(I, a[0], -1, "numpy.squeeze");
    char at[200];
    if (x && axis_text(I, a[1], "numpy.squeeze", at, sizeof at, x->ndim) == 0)
        r = wrap(I, d2np_run(I, "numpy.squeeze", D2_OP_squeeze, &x, 1, at));
    if (x)
        d2_tensor_unref(x);
    return r;
}

D2_FN(n_expand_dims) /* a[0] a, a[1] axis */
{
    d2_tensor *x = arr(I, a[0], -1, "numpy.expand_dims");
    if (!x)
        return NULL;
    char at[200];
    d2_obj *r = NULL;
    if (axis_text(I, a[1], "numpy.expand_dims", at, sizeof at, x->ndim + 1) == 0)
        r = wrap(I, d2np_run(I, "numpy.expand_dims", D2_OP_unsqueeze, &x, 1, at));
    d2_tensor_unref(x);
    return r;
}

static d2_obj *join(d2_interp *I, const char *fname, d2_op_id op, d2_obj *seq, int64_t axis)
{
    d2_obj *l = d2_list_from_iterable(I, seq);
    if (!l)
        return NULL;
    size_t n = D2_AS(d2_list, l)->n;
    if (n == 0) {
        d2_decref(l);
        return d2_raise(I, "ValueError", "%s: need at least one array", fname);
    }
    d2_tensor **ts = d2_calloc(n, sizeof *ts);
    d2_obj *r = NULL;
    if (!ts) {
        d2_decref(l);
        return nomem(I);
    }
    size_t i;
    d2_dtype dt = D2_BOOL;
    for (i = 0; i < n; i++) {
        ts[i] = arr(I, D2_AS(d2_list, l)->items[i], -1, fname);
        if (!ts[i])
            break;
        dt = i == 0 ? ts[i]->dtype : d2np_promote(dt, ts[i]->dtype);
    }
    if (i == n) {
        for (i = 0; i < n; i++) {
            d2_tensor *c = d2np_cast(I, fname, ts[i], dt);
            d2_tensor_unref(ts[i]);
            ts[i] = c;
            if (!c)
                break;
        }
    }
    if (i == n) {
        /* the op takes at most 16 inputs eagerly: join in groups */
        d2_tensor *acc = NULL;
        char at[64];
        if (op == D2_OP_stack) {
            /* stack = expand dims, then concat */
            int nd = ts[0]->ndim;
            int64_t ax = axis < 0 ? axis + nd + 1 : axis;
            snprintf(at, sizeof at, "axis = [%lld]", (long long)ax);
            for (size_t k = 0; k < n; k++) {
                d2_tensor *u = d2np_run(I, fname, D2_OP_unsqueeze, &ts[k], 1, at);
                d2_tensor_unref(ts[k]);
                ts[k] = u;
                if (!u)
                    break;
            }
            axis = ax;
        }
        snprintf(at, sizeof at, "axis = %lld", (long long)axis);
        bool ok = true;
        for (size_t k = 0; k < n && ok; k++)
            ok = ts[k] != NULL;
        for (size_t k = 0; ok && k < n; k += 15) {
            d2_tensor *grp[16];
            int g = 0;
            if (acc)
                grp[g++] = acc;
            for (size_t j = k; j < n && j < k + 15; j++)
                grp[g++] = ts[j];
            d2_tensor *nx = d2np_run(I, fname, D2_OP_concat, grp, g, at);
            if (acc)
                d2_tensor_unref(acc);
            acc = nx;
            ok = nx != NULL;
        }
        r = wrap(I, acc);
    }
    for (i = 0; i < n; i++)
        if (ts[i])
            d2_tensor_unref(ts[i]);
    d2_free(ts);
    d2_decref(l);
    return r;
}

D2_FN(n_concatenate) /* a[0] arrays, a[1] axis, a[2] out */
{
    int64_t ax;
    if (d2_to_int64(I, a[1], "axis", &ax) < 0)
        return NULL;
    return join(I, "numpy.concatenate", D2_OP_concat, a[0], ax);
}

D2_FN(n_stack) /* a[0] arrays, a[1] axis, a[2] out */
{
    int64_t ax;
    if (d2_to_int64(I, a[1], "axis", &ax) < 0)
        return NULL;
    return join(I, "numpy.stack", D2_OP_stack, a[0], ax);
}

/* ---- creation ---- */

D2_FN(n_array) /* a[0] object, a[1] dtype, a[2] copy, a[3] order, a[4] subok, a[5] ndmin */
{
    int dt;
    if (dt_arg(I, a[1], "numpy.array", &dt) < 0)
        return NULL;
    d2_tensor *t = arr(I, a[0], dt, "numpy.array");
    if (!t)
        return NULL;
    int64_t ndmin;
    if (d2_to_int64(I, a[5], "ndmin", &ndmin) < 0) {
        d2_tensor_unref(t);
        return NULL;
    }
    if (ndmin > t->ndim && ndmin <= D2_MAX_DIMS) {
        int64_t d[D2_MAX_DIMS];
        int k = (int)ndmin - t->ndim;
        for (int i = 0; i < k; i++)
            d[i] = 1;
        for (int i = 0; i < t->ndim; i++)
            d[k + i] = t->shape[i];
        d2_err err = {0};
        d2_tensor *v = d2_tensor_reshape_view(t, (int)ndmin, d, &err);
        d2_tensor_unref(t);
        if (!v)
            return d2_raise_err(I, &err);
        t = v;
    }
    return wrap(I, t);
}

D2_FN(n_asarray) /* a[0] a, a[1] dtype, a[2] order */
{
    int dt;
    if (dt_arg(I, a[1], "numpy.asarray", &dt) < 0)
        return NULL;
    if (is_nd(a[0]) && (dt < 0 || dt == (int)NDA(a[0])->t->dtype))
        return d2_incref(a[0]);
    return wrap(I, arr(I, a[0], dt, "numpy.asarray"));
}

d2_tensor *d2np_filled(d2_interp *I, const char *fname, const int64_t *dims, int n, int dt,
                       double v)
{
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)dt, n, dims, &err);
    if (!t) {
        d2_raise_err(I, &err);
        return NULL;
    }
    D2_UNUSED(fname);
    int64_t k = d2_tensor_numel(t);
    void *p = d2_tensor_data(t);
    for (int64_t i = 0; i < k; i++) {
        switch (dt) {
        case D2_F32: ((float *)p)[i] = (float)v; break;
        case D2_F64: ((double *)p)[i] = v; break;
        case D2_I32: ((int32_t *)p)[i] = (int32_t)v; break;
        case D2_I64: ((int64_t *)p)[i] = (int64_t)v; break;
        case D2_BOOL: ((uint8_t *)p)[i] = v != 0; break;
        default: break;
        }
    }
    return t;
}

/* a[0] shape, then (has_fill) a[1] fill_value, a[2] dtype, a[3] order
 * or a[1] dtype, a[2] order */
static d2_obj *np_fill_fn(d2_interp *I, const char *fname, d2_obj **a, double v, bool has_fill)
{
    int64_t dims[D2_MAX_DIMS];
    int n, dt;
    if (d2_pd_ints(I, a[0], fname, "shape", dims, &n, D2_MAX_DIMS) < 0 ||
        dt_arg(I, a[has_fill ? 2 : 1], fname, &dt) < 0)
        return NULL;
    for (int i = 0; i < n; i++)
        if (dims[i] < 0)
            return d2_raise(I, "ValueError", "%s: negative dimensions are not allowed", fname);
    if (has_fill) {
        if (!is_pynum(a[1]) && !is_nd(a[1]))
            return d2_raise(I, "TypeError", "%s: fill_value must be a number", fname);
        d2_tensor *fv = arr(I, a[1], -1, fname);
        if (!fv)
            return NULL;
        if (dt < 0)
            dt = fv->dtype;
        v = d2_tensor_numel(fv) ? d2_tensor_get_f64(fv, 0) : 0;
        d2_tensor_unref(fv);
    }
    if (dt < 0)
        dt = D2_F64;
    return wrap(I, d2np_filled(I, fname, dims, n, dt, v));
}

#define FILL_FN(name, v, has_fill)                                                                 \
    D2_FN(n_##name) { return np_fill_fn(I, "numpy." #name, a, v, has_fill); }
FILL_FN(zeros, 0, false)
FILL_FN(ones, 1, false)
FILL_FN(empty, 0, false)
FILL_FN(full, 0, true)
#undef FILL_FN

/* a[0] a, then (has_fill) a[1] fill_value, a[2] dtype or a[1] dtype */
static d2_obj *np_like(d2_interp *I, const char *fname, d2_obj **a, double v, bool has_fill)
{
    int dt;
    if (dt_arg(I, a[has_fill ? 2 : 1], fname, &dt) < 0)
        return NULL;
    if (has_fill && d2_to_double(I, a[1], "fill_value", &v) < 0)
        return NULL;
    d2_tensor *x = arr(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_tensor *r = d2np_filled(I, fname, x->shape, x->ndim, dt < 0 ? (int)x->dtype : dt, v);
    d2_tensor_unref(x);
    return wrap(I, r);
}

#define LIKE_FN(name, v, has_fill)                                                                 \
    D2_FN(n_##name) { return np_like(I, "numpy." #name, a, v, has_fill); }
LIKE_FN(zeros_like, 0, false)
LIKE_FN(ones_like, 1, false)
LIKE_FN(full_like, 0, true)
#undef LIKE_FN

D2_FN(n_arange) /* a[0] start, a[1] stop, a[2] step, a[3] dtype */
{
    const char *fname = "numpy.arange";
    d2_obj *st = a[0], *sp = a[1], *se = a[2];
    if (is_none(I, sp)) {
        sp = st;
        st = NULL;
    }
    bool flt = false;
    d2_obj *vs[3] = {st, sp, se};
    double v[3] = {0, 0, 1};
    for (int i = 0; i < 3; i++) {
        if (!vs[i] || is_none(I, vs[i]))
            continue;
        if (vs[i]->kind == D2_OBJ_FLOAT)
            flt = true;
        if (d2_to_double(I, vs[i], "arange argument", &v[i]) < 0)
            return NULL;
    }
    int dt;
    if (dt_arg(I, a[3], fname, &dt) < 0)
        return NULL;
    if (dt < 0)
        dt = flt ? D2_F64 : D2_I64;
    if (v[2] == 0)
        return d2_raise(I, "ZeroDivisionError", "%s: step must not be zero", fname);
    double len = ceil((v[1] - v[0]) / v[2]);
    int64_t n = len > 0 ? (int64_t)len : 0;
    if (n > ((int64_t)1 << 40))
        return d2_raise(I, "ValueError", "%s: the result would be too large", fname);
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)dt, 1, &n, &err);
    if (!t)
        return d2_raise_err(I, &err);
    void *p = d2_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        double x = v[0] + (double)i * v[2];
        switch (dt) {
        case D2_F32: ((float *)p)[i] = (float)x; break;
        case D2_F64: ((double *)p)[i] = x; break;
        case D2_I32: ((int32_t *)p)[i] = (int32_t)x; break;
        case D2_I64: ((int64_t *)p)[i] = (int64_t)x; break;
        default: ((uint8_t *)p)[i] = x != 0; break;
        }
    }
    return wrap(I, t);
}

/* a[0] start, a[1] stop, a[2] num, a[3] endpoint, a[4] retstep, a[5] dtype, a[6] axis */
D2_FN(n_linspace)
{
    const char *fname = "numpy.linspace";
    double s, e;
    int64_t n;
    int dt;
    bool endpoint = !is_pynum(a[3]) || D2_AS(d2_int, a[3])->v;
    if (d2_to_double(I, a[0], "start", &s) < 0 || d2_to_double(I, a[1], "stop", &e) < 0 ||
        d2_to_int64(I, a[2], "num", &n) < 0 || dt_arg(I, a[5], fname, &dt) < 0)
        return NULL;
    if (n < 0)
        return d2_raise(I, "ValueError", "Number of samples, %lld, must be non-negative.",
                        (long long)n);
    if (dt < 0)
        dt = D2_F64;
    double div = endpoint ? (double)(n - 1) : (double)n;
    double step = div > 0 ? (e - s) / div : 0;
    double *v = d2_malloc(sizeof(double) * (size_t)(n + 1));
    if (!v)
        return nomem(I);
    for (int64_t i = 0; i < n; i++)
        v[i] = (double)i * step + s;
    if (endpoint && n > 1)
        v[n - 1] = e;
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, D2_F64, 1, &n, &err);
    if (t)
        memcpy(d2_tensor_data(t), v, sizeof(double) * (size_t)n);
    d2_free(v);
    if (!t)
        return d2_raise_err(I, &err);
    d2_tensor *c = d2np_cast(I, fname, t, dt);
    d2_tensor_unref(t);
    return wrap(I, c);
}

/* a[0] N, a[1] M, a[2] k, a[3] dtype */
static d2_obj *np_eye(d2_interp *I, d2_obj **a)
{
    const char *fname = "numpy.eye";
    int64_t n, m, k;
    int dt;
    if (d2_to_int64(I, a[0], "N", &n) < 0 || d2_to_int64(I, a[2], "k", &k) < 0 ||
        dt_arg(I, a[3], fname, &dt) < 0)
        return NULL;
    m = n;
    if (!is_none(I, a[1]) && d2_to_int64(I, a[1], "M", &m) < 0)
        return NULL;
    if (n < 0 || m < 0)
        return d2_raise(I, "ValueError", "%s: negative dimensions are not allowed", fname);
    int64_t dims[2] = {n, m};
    d2_tensor *t = d2np_filled(I, fname, dims, 2, dt < 0 ? D2_F64 : dt, 0);
    if (!t)
        return NULL;
    size_t es = d2_dtype_size(t->dtype);
    d2_tensor *one = d2np_filled(I, fname, dims, 0, t->dtype, 1);
    if (!one) {
        d2_tensor_unref(t);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t j = i + k;
        if (j >= 0 && j < m)
            memcpy((char *)d2_tensor_data(t) + es * (size_t)(i * m + j), d2_tensor_data(one), es);
    }
    d2_tensor_unref(one);
    return wrap(I, t);
}

D2_FN(n_eye) { return np_eye(I, a); }

D2_FN(n_identity) /* a[0] n, a[1] dtype: numpy.eye(n, dtype=dtype) */
{
    d2_obj *k = d2_int_new(I, 0);
    if (!k)
        return NULL;
    d2_obj *ea[4] = {a[0], I->none, k, a[1]};
    d2_obj *r = np_eye(I, ea);
    d2_decref(k);
    return r;
}

D2_FN(n_dot) /* a[0] a, a[1] b, a[2] out */
{
    d2_obj *r = NULL;
    d2_tensor *x = arr(I, a[0], -1, "numpy.dot");
    d2_tensor *y = x ? arr(I, a[1], -1, "numpy.dot") : NULL;
    if (y) {
        if (x->ndim == 0 || y->ndim == 0) {
            r = wrap(I, d2np_binary_t(I, "numpy.dot", D2_OP_MULT, a[0], a[1]));
        } else if (x->ndim == 1 && y->ndim == 1) {
            d2_tensor *m = d2np_binary_t(I, "numpy.dot", D2_OP_MULT, a[0], a[1]);
            if (m) {
                r = wrap(I, d2np_run(I, "numpy.dot", D2_OP_sum, &m, 1, NULL));
                d2_tensor_unref(m);
            }
        } else {
            r = wrap(I, d2np_binary_t(I, "numpy.dot", D2_OP_MAT_MULT, a[0], a[1]));
        }
    }
    if (x)
        d2_tensor_unref(x);
    if (y)
        d2_tensor_unref(y);
    return r;
}

/* ---- comparisons of whole arrays ---- */

/* Broadcasts x and y to a common shape as contiguous float64 tensors. */
int d2np_bcast_f64(d2_interp *I, const char *fname, d2_tensor *x, d2_tensor *y, d2_tensor **bx,
                   d2_tensor **by)
{
    *bx = *by = NULL;
    d2_tensor *xc = d2np_cast(I, fname, x, D2_F64);
    d2_tensor *yc = xc ? d2np_cast(I, fname, y, D2_F64) : NULL;
    if (!yc) {
        if (xc)
            d2_tensor_unref(xc);
        return -1;
    }
    int rc = d2np_broadcast(I, fname, xc, yc, bx, by);
    d2_tensor_unref(xc);
    d2_tensor_unref(yc);
    return rc;
}

bool d2np_close_enough(double x, double y, double rtol, double atol, bool equal_nan)
{
    if (isnan(x) || isnan(y))
        return equal_nan && isnan(x) && isnan(y);
    if (isinf(x) || isinf(y))
        return x == y;
    return fabs(x - y) <= atol + rtol * fabs(y);
}

/* a[0] a, a[1] b, a[2] rtol, a[3] atol, a[4] equal_nan */
static d2_obj *np_close(d2_interp *I, d2_obj **a, bool all)
{
    const char *fname = all ? "numpy.allclose" : "numpy.isclose";
    double rtol, atol;
    bool eqn = is_pynum(a[4]) && D2_AS(d2_int, a[4])->v;
    if (d2_to_double(I, a[2], "rtol", &rtol) < 0 || d2_to_double(I, a[3], "atol", &atol) < 0)
        return NULL;
    d2_tensor *x = arr(I, a[0], -1, fname);
    d2_tensor *y = x ? arr(I, a[1], -1, fname) : NULL;
    d2_tensor *bx = NULL, *by = NULL;
    d2_obj *r = NULL;
    if (y && d2np_bcast_f64(I, fname, x, y, &bx, &by) == 0) {
        int64_t n = d2_tensor_numel(bx);
        if (all) {
            bool ok = true;
            for (int64_t i = 0; i < n && ok; i++)
                ok = d2np_close_enough(d2_tensor_get_f64(bx, i), d2_tensor_get_f64(by, i), rtol,
                                       atol, eqn);
            r = d2_bool(I, ok);
        } else {
            d2_err err = {0};
            d2_tensor *o = d2_tensor_new(NULL, D2_BOOL, bx->ndim, bx->shape, &err);
            if (o) {
                for (int64_t i = 0; i < n; i++)
                    ((uint8_t *)d2_tensor_data(o))[i] = d2np_close_enough(
                        d2_tensor_get_f64(bx, i), d2_tensor_get_f64(by, i), rtol, atol, eqn);
                r = wrap(I, o);
            } else {
                r = d2_raise_err(I, &err);
            }
        }
    }
    d2_tensor *ts[] = {x, y, bx, by};
    for (int i = 0; i < 4; i++)
        if (ts[i])
            d2_tensor_unref(ts[i]);
    return r;
}

D2_FN(n_allclose) { return np_close(I, a, true); }

D2_FN(n_isclose) { return np_close(I, a, false); }

D2_FN(n_array_equal) /* a[0] a1, a[1] a2, a[2] equal_nan */
{
    d2_tensor *x = arr(I, a[0], -1, "numpy.array_equal");
    d2_tensor *y = x ? arr(I, a[1], -1, "numpy.array_equal") : NULL;
    d2_obj *r = NULL;
    if (y) {
        bool eq = d2np_same_shape(x, y);
        d2_err err = {0};
        d2_tensor *xc = eq ? d2_tensor_contiguous(x, &err) : NULL;
        d2_tensor *yc = xc ? d2_tensor_contiguous(y, &err) : NULL;
        if (eq && !yc) {
            r = d2_raise_err(I, &err);
        } else {
            int64_t n = eq ? d2_tensor_numel(xc) : 0;
            for (int64_t i = 0; i < n && eq; i++)
                eq = d2_tensor_get_f64(xc, i) == d2_tensor_get_f64(yc, i);
            r = d2_bool(I, eq);
        }
        if (xc)
            d2_tensor_unref(xc);
        if (yc)
            d2_tensor_unref(yc);
    }
    if (x)
        d2_tensor_unref(x);
    if (y)
        d2_tensor_unref(y);
    return r;
}

/* a[0] x */
static d2_obj *np_classify(d2_interp *I, d2_obj **a, int which)
{
    static const char *names[] = {"numpy.isnan", "numpy.isinf", "numpy.isfinite"};
    d2_tensor *x = arr(I, a[0], -1, names[which]);
    if (!x)
        return NULL;
    d2_err err = {0};
    d2_tensor *xc = d2_tensor_contiguous(x, &err);
    d2_tensor_unref(x);
    d2_tensor *o = xc ? d2_tensor_new(NULL, D2_BOOL, xc->ndim, xc->shape, &err) : NULL;
    if (!o) {
        if (xc)
            d2_tensor_unref(xc);
        return d2_raise_err(I, &err);
    }
    int64_t n = d2_tensor_numel(xc);
    for (int64_t i = 0; i < n; i++) {
        double v = d2_tensor_get_f64(xc, i);
        ((uint8_t *)d2_tensor_data(o))[i] = which == 0   ? isnan(v)
                                            : which == 1 ? isinf(v)
                                                         : isfinite(v);
    }
    d2_tensor_unref(xc);
    return wrap(I, o);
}

D2_FN(n_isnan) { return np_classify(I, a, 0); }

D2_FN(n_isinf) { return np_classify(I, a, 1); }

D2_FN(n_isfinite) { return np_classify(I, a, 2); }

/* ======================================================================
 * Registration
 * ====================================================================== */

/* The row of numpy.<name> with the body n_<name>; an alias names the row
 * of numpy.<of> (its name in messages) under another attribute. */
#define ROW(name, sig) D2_DEF(#name, sig, n_##name, "numpy." #name)
#define ALIAS(name, sig, of) D2_DEF(#name, sig, n_##of, "numpy." #of)
#define SIG_UNARY "x, out=None"
#define SIG_BINARY "x1, x2, out=None"
#define SIG_ROUND "a, decimals=0, out=None"
#define SIG_VAR "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"
#define SIG_CLOSE "a, b, rtol=1e-05, atol=1e-08, equal_nan=False"
#define SIG_FILL "shape, dtype=None, order='C'"
#define SIG_LIKE "a, dtype=None"

/* numpy functions that are also ndarray methods (the array is the first
 * parameter: D2_DEF_SELF on the class) */
static const d2_def NP_SHARED_DEFS[] = {
    ROW(ravel, "a, order='C'"),
    ROW(sum, SIG_REDUCE_DT),
    ROW(mean, SIG_REDUCE_DT),
    ROW(prod, SIG_REDUCE_DT),
    ROW(max, SIG_REDUCE),
    ROW(min, SIG_REDUCE),
    ROW(all, SIG_REDUCE),
    ROW(any, SIG_REDUCE),
    ROW(argmax, SIG_REDUCE),
    ROW(argmin, SIG_REDUCE),
    ROW(std, SIG_VAR),
    ROW(var, SIG_VAR),
    ROW(squeeze, "a, axis=None"),
    ROW(clip, "a, a_min=None, a_max=None, out=None"),
    ROW(round, SIG_ROUND),
    ROW(dot, "a, b, out=None"),
};

static const d2_def NP_FN_DEFS[] = {
    ROW(array, "object, dtype=None, copy=True, order=None, subok=False, ndmin=0"),
    ROW(asarray, "a, dtype=None, order=None"),
    ALIAS(ascontiguousarray, "a, dtype=None, order=None", asarray),
    ROW(zeros, SIG_FILL),
    ROW(ones, SIG_FILL),
    ROW(empty, SIG_FILL),
    ROW(full, "shape, fill_value, dtype=None, order='C'"),
    ROW(zeros_like, SIG_LIKE),
    ROW(ones_like, SIG_LIKE),
    ROW(full_like, "a, fill_value, dtype=None"),
    ROW(arange, "start, stop=None, step=None, dtype=None"),
    ROW(linspace, "start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0"),
    ROW(eye, "N, M=None, k=0, dtype=None"),
    ROW(identity, "n, dtype=None"),
    ROW(concatenate, "arrays, axis=0, out=None"),
    ROW(stack, "arrays, axis=0, out=None"),
    ROW(reshape, "a, newshape, order='C'"),
    ROW(transpose, "a, axes=None"),
    ROW(expand_dims, "a, axis"),
    ALIAS(amax, SIG_REDUCE, max),
    ALIAS(amin, SIG_REDUCE, min),
    ROW(exp, SIG_UNARY),
    ROW(log, SIG_UNARY),
    ROW(sqrt, SIG_UNARY),
    ROW(tanh, SIG_UNARY),
    ROW(sin, SIG_UNARY),
    ROW(cos, SIG_UNARY),
    ROW(floor, SIG_UNARY),
    ROW(ceil, SIG_UNARY),
    ROW(abs, SIG_UNARY),
    ALIAS(absolute, SIG_UNARY, abs),
    ROW(sign, SIG_UNARY),
    ROW(square, SIG_UNARY),
    ROW(negative, SIG_UNARY),
    ROW(logical_not, SIG_UNARY),
    ROW(logical_and, SIG_BINARY),
    ROW(logical_or, SIG_BINARY),
    ROW(add, SIG_BINARY),
    ROW(subtract, SIG_BINARY),
    ROW(multiply, SIG_BINARY),
    ROW(divide, SIG_BINARY),
    ROW(true_divide, SIG_BINARY),
    ROW(floor_divide, SIG_BINARY),
    ROW(mod, SIG_BINARY),
    ALIAS(remainder, SIG_BINARY, mod),
    ROW(power, SIG_BINARY),
    ROW(matmul, SIG_BINARY),
    ROW(maximum, SIG_BINARY),
    ROW(minimum, SIG_BINARY),
    ROW(equal, SIG_BINARY),
    ROW(where, "condition, x=None, y=None"),
    ALIAS(around, SIG_ROUND, round),
    ROW(allclose, SIG_CLOSE),
    ROW(isclose, SIG_CLOSE),
    ROW(array_equal, "a1, a2, equal_nan=False"),
    ROW(isnan, "x"),
    ROW(isinf, "x"),
    ROW(isfinite, "x"),
};

int d2np_functions_init(d2_interp *I, d2_module *np, d2_class *nc)
{
    if (d2_module_add_defs(I, np, NP_FN_DEFS, D2_COUNTOF(NP_FN_DEFS)) < 0 ||
        d2_module_add_defs(I, np, NP_SHARED_DEFS, D2_COUNTOF(NP_SHARED_DEFS)) < 0 ||
        d2_class_add_defs(I, nc, NP_SHARED_DEFS, D2_COUNTOF(NP_SHARED_DEFS), D2_DEF_SELF) < 0)
        return -1;
    return 0;
}
