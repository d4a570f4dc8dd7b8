/* tensor_math.c - paddle.argmax/argmin, dot, norm, round, std/var, allclose/equal_all, is_tensor. */
#include "lib/paddle/functions_priv.h"

#include <math.h>
#include <string.h>

/* ======================================================================
 * Search, logic and linear algebra: argmax, dot, allclose, is_tensor
 * ====================================================================== */

/* ---- reductions with irregular arguments ---- */

#define ARGMINMAX_SPEC "x, axis=None, keepdim=False, dtype='int64', name=None"

static d2_obj *argminmax(d2_interp *I, const char *fname, d2_op_id op, d2_obj **a)
{
    d2_ab b;
    d2_ab_init(&b, op);
    int dt;
    bool keep;
    if (d2_pd_parse_dtype(I, a[3], fname, false, &dt) < 0 ||
        d2_pd_get_bool(I, a[2], fname, "keepdim", &keep) < 0) {
        d2_ab_free(&b);
        return NULL;
    }
    if (dt >= 0)
        d2_ab_int(&b, "dtype", dt);
    d2_ab_bool(&b, "keepdim", keep);
    if (is_none(I, a[1])) {
        d2_ab_bool(&b, "flatten", true);
    } else {
        int64_t ax;
        if (d2_pd_get_int(I, a[1], fname, "axis", &ax) < 0) {
            d2_ab_free(&b);
            return NULL;
        }
        d2_ab_int(&b, "axis", ax);
    }
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!x) {
        d2_ab_free(&b);
        return NULL;
    }
    d2_obj *r = op1(I, fname, op, x, &b);
    d2_decref(x);
    return r;
}

/* paddle.argmax(x, ...) and x.argmax(...): one row each, the name in
 * messages differs (def->qualname). */
D2_FN(f_argmax)
{
    return argminmax(I, def->qualname, D2_OP_argmax, a);
}

D2_FN(f_argmin)
{
    return argminmax(I, def->qualname, D2_OP_argmin, a);
}

D2_FN(f_dot)
{
    const char *fname = "paddle.dot";
    d2_obj *r = NULL;
    d2_obj *m = d2_pd_binary(I, fname, D2_OP_multiply, a[0], a[1], true);
    if (m) {
        int nd = obj_type(m)->shape.ndim;
        if (nd < 1 || nd > 2) {
            r = d2_raise(I, "ValueError", "%s: x and y must be 1-D or 2-D", fname);
        } else {
            d2_ab b;
            d2_ab_init(&b, D2_OP_sum);
            int64_t ax = -1;
            d2_ab_ints(&b, "axis", &ax, 1);
            r = op1(I, fname, D2_OP_sum, m, &b);
        }
        d2_decref(m);
    }
    return r;
}

/* x's values as a contiguous float64 host tensor (concrete tensors only). */
static d2_tensor *host_f64(d2_interp *I, d2_obj *o, const char *fname)
{
    if (!is_tensor(o)) {
        d2_raise(I, "TypeError", "%s: expected a Tensor, got %s", fname, d2_type_name(o));
        return NULL;
    }
    if (is_sym(o)) {
        d2_raise(I, "NotImplementedError", "%s: not supported inside to_static", fname);
        return NULL;
    }
    d2_obj *c = d2_pd_cast_to(I, fname, o, D2_F64);
    d2_tensor *h = c ? d2_pd_host(I, c, fname) : NULL;
    d2_decref(c);
    if (!h)
        return NULL;
    d2_err err = {0};
    d2_tensor *r = d2_tensor_contiguous(h, &err);
    d2_tensor_unref(h);
    if (!r)
        d2_raise_err(I, &err);
    return r;
}

/* paddle.allclose and paddle.equal_all: a 0-d bool tensor, computed on the host.
 * close: |x - y| <= atol + rtol * |y|, infinities equal when equal, NaNs when equal_nan. */
static d2_obj *all_close(d2_interp *I, const char *fname, d2_obj *x, d2_obj *y, bool exact,
                         double rtol, double atol, bool equal_nan)
{
    d2_tensor *hx = host_f64(I, x, fname);
    d2_tensor *hy = hx ? host_f64(I, y, fname) : NULL;
    if (!hy) {
        if (hx)
            d2_tensor_unref(hx);
        return NULL;
    }
    d2_shape sx, sy;
    d2_tensor_get_shape(hx, &sx);
    d2_tensor_get_shape(hy, &sy);
    bool same = sx.ndim == sy.ndim;
    for (int k = 0; same && k < sx.ndim; k++)
        same = sx.dims[k] == sy.dims[k];
    d2_obj *r = NULL;
    if (!same && !exact) {
        r = d2_raise(I, "ValueError", "%s: x and y must have the same shape", fname);
    } else {
        bool ok = same;
        const double *a = d2_tensor_data(hx), *b = d2_tensor_data(hy);
        for (int64_t i = 0, n = d2_tensor_numel(hx); ok && i < n; i++) {
            if (exact)
                ok = a[i] == b[i];
            else if (isnan(a[i]) || isnan(b[i]))
                ok = equal_nan && isnan(a[i]) && isnan(b[i]);
            else if (isinf(a[i]) || isinf(b[i]))
                ok = a[i] == b[i];
            else
                ok = fabs(a[i] - b[i]) <= atol + rtol * fabs(b[i]);
        }
        r = d2_pd_const_tensor(I, 0, ok, true, D2_BOOL);
    }
    d2_tensor_unref(hx);
    d2_tensor_unref(hy);
    return r;
}

D2_FN(f_allclose)
{
    const char *fname = "paddle.allclose";
    if (!is_number(a[2]) || !is_number(a[3]))
        return d2_raise(I, "TypeError", "%s: rtol and atol must be numbers", fname);
    return all_close(I, fname, a[0], a[1], false, num_value(a[2]), num_value(a[3]),
                     d2_truthy(I, a[4]) == 1);
}

D2_FN(f_equal_all)
{
    return all_close(I, "paddle.equal_all", a[0], a[1], true, 0, 0, false);
}

D2_FN(f_is_tensor)
{
    return d2_bool(I, is_tensor(a[0]));
}

/* ======================================================================
 * Composite functions: built from registry ops, so they work in every mode
 * ====================================================================== */

/* reduce op over axes (NULL/0: all) with keepdim. */
static d2_obj *reduce_axes(d2_interp *I, const char *fname, d2_op_id op, d2_obj *x,
                           const int64_t *axes, int na, bool keep)
{
    d2_ab b;
    d2_ab_init(&b, op);
    d2_ab_ints(&b, "axis", axes, na);
    d2_ab_bool(&b, "keepdim", keep);
    return op1(I, fname, op, x, &b);
}

d2_obj *d2_pd_scale_by(d2_interp *I, const char *fname, d2_obj *x, double sc, double bias)
{
    d2_ab b;
    d2_ab_init(&b, D2_OP_scale);
    d2_ab_float(&b, "scale", sc);
    d2_ab_float(&b, "bias", bias);
    return op1(I, fname, D2_OP_scale, x, &b);
}

d2_obj *d2_pd_clip_to(d2_interp *I, const char *fname, d2_obj *x, double lo, double hi)
{
    d2_ab b;
    d2_ab_init(&b, D2_OP_clip);
    d2_ab_float(&b, "min", lo);
    d2_ab_float(&b, "max", hi);
    return op1(I, fname, D2_OP_clip, x, &b);
}

/* Reads an optional axis list; *n = 0 for None (all axes). */
static int opt_axes(d2_interp *I, d2_obj *o, const char *fname, int64_t *v, int *n)
{
    *n = 0;
    if (is_none(I, o))
        return 0;
    return d2_pd_ints(I, o, fname, "axis", v, n, D2_MAX_DIMS);
}

/* p-norm over axes, as Paddle's (a matrix norm over two axes is the vector
 * norm of the flattened matrix): 'fro'/2, 1, inf (max |x|), -inf (min |x|),
 * 0 (count of nonzeros) and any other p as (sum |x|^p)^(1/p). */
d2_obj *d2_pd_pnorm(d2_interp *I, const char *fname, d2_obj *x, double p, const int64_t *axes,
                    int na, bool keep)
{
    d2_obj *t = NULL, *s = NULL, *r = NULL, *c = NULL, *u = NULL;
    d2_dtype dt = obj_type(x)->dtype;
    if (p == 2) {
        t = op1(I, fname, D2_OP_square, x, NULL);
        s = t ? reduce_axes(I, fname, D2_OP_sum, t, axes, na, keep) : NULL;
        r = s ? op1(I, fname, D2_OP_sqrt, s, NULL) : NULL;
    } else if (p == 1 || isinf(p)) {
        t = op1(I, fname, D2_OP_abs, x, NULL);
        r = t ? reduce_axes(I, fname, p == 1 ? D2_OP_sum : p > 0 ? D2_OP_max : D2_OP_min, t, axes,
                            na, keep)
              : NULL;
    } else if (p == 0) {
        c = d2_pd_const_tensor(I, 0, 0, false, dt);
        u = c ? op2(I, fname, D2_OP_not_equal, x, c, NULL) : NULL;
        t = u ? d2_pd_cast_to(I, fname, u, dt) : NULL;
        r = t ? reduce_axes(I, fname, D2_OP_sum, t, axes, na, keep) : NULL;
    } else if (!isnan(p)) {
        d2_obj *e = NULL;
        if ((u = op1(I, fname, D2_OP_abs, x, NULL)) &&
            (c = d2_pd_const_tensor(I, p, 0, false, dt)) &&
            (t = op2(I, fname, D2_OP_pow, u, c, NULL)) &&
            (s = reduce_axes(I, fname, D2_OP_sum, t, axes, na, keep)) &&
            (e = d2_pd_const_tensor(I, 1.0 / p, 0, false, dt)))
            r = op2(I, fname, D2_OP_pow, s, e, NULL);
        d2_decref(e);
    } else {
        r = d2_raise(I, "ValueError", "%s: p must not be nan", fname);
    }
    d2_decref(t);
    d2_decref(s);
    d2_decref(c);
    d2_decref(u);
    return r;
}

static int p_arg(d2_interp *I, d2_obj *o, const char *fname, double *p)
{
    if (o->kind == D2_OBJ_STR) {
        if (strcmp(D2_AS(d2_str, o)->s, "fro") != 0) {
            d2_raise(I, "ValueError", "%s: p must be 'fro' or a number, got '%s'", fname,
                     D2_AS(d2_str, o)->s);
            return -1;
        }
        *p = 2;
        return 0;
    }
    return d2_pd_get_float(I, o, fname, "p", p);
}

D2_FN(f_norm)
{
    const char *fname = "paddle.norm";
    d2_obj *r = NULL;
    double p;
    bool keep;
    int64_t axes[D2_MAX_DIMS];
    int n;
    if (p_arg(I, a[1], fname, &p) == 0 && opt_axes(I, a[2], fname, axes, &n) == 0 &&
        d2_pd_get_bool(I, a[3], fname, "keepdim", &keep) == 0) {
        d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
        if (x)
            r = d2_pd_pnorm(I, fname, x, p, axes, n, keep);
        d2_decref(x);
    }
    return r;
}

/* paddle.round: halves away from zero, as Paddle (std::round), composed from
 * existing ops: sign(x) * (f + (|x| - f >= 0.5)) with f = floor(|x|), exact
 * because |x| - f is. Integer tensors are returned as a copy. */
D2_FN(f_round)
{
    const char *fname = "paddle.round";
    d2_obj *x = NULL, *r = NULL;
    d2_obj *ab_ = NULL, *f = NULL, *d = NULL, *h = NULL, *c = NULL, *cf = NULL, *s = NULL,
           *sg = NULL;
    if (!(x = d2_pd_as_tensor(I, a[0], -1, fname)))
        goto done;
    d2_dtype dt = obj_type(x)->dtype;
    if (!d2_dtype_is_float(dt)) {
        r = op1(I, fname, D2_OP_assign, x, NULL);
        goto done;
    }
    if ((ab_ = op1(I, fname, D2_OP_abs, x, NULL)) && (f = op1(I, fname, D2_OP_floor, ab_, NULL)) &&
        (d = op2(I, fname, D2_OP_subtract, ab_, f, NULL)) &&
        (h = d2_pd_const_tensor(I, 0.5, 0, false, dt)) &&
        (c = op2(I, fname, D2_OP_greater_equal, d, h, NULL)) &&
        (cf = d2_pd_cast_to(I, fname, c, dt)) && (s = op2(I, fname, D2_OP_add, f, cf, NULL)) &&
        (sg = op1(I, fname, D2_OP_sign, x, NULL)))
        r = op2(I, fname, D2_OP_multiply, sg, s, NULL);
done:
    d2_decref(x);
    d2_decref(ab_);
    d2_decref(f);
    d2_decref(d);
    d2_decref(h);
    d2_decref(c);
    d2_decref(cf);
    d2_decref(s);
    d2_decref(sg);
    return r;
}

static d2_obj *std_var(d2_interp *I, d2_obj **a, bool sd)
{
    const char *fname = sd ? "paddle.std" : "paddle.var";
    d2_obj *r = NULL, *x = NULL, *m = NULL, *d = NULL, *sq = NULL, *s = NULL;
    bool unbiased, keep;
    int64_t axes[D2_MAX_DIMS];
    int n;
    if (opt_axes(I, a[1], fname, axes, &n) < 0 ||
        d2_pd_get_bool(I, a[2], fname, "unbiased", &unbiased) < 0 ||
        d2_pd_get_bool(I, a[3], fname, "keepdim", &keep) < 0 ||
        !(x = d2_pd_as_tensor(I, a[0], -1, fname)))
        goto done;
    const d2_shape *xs = &obj_type(x)->shape;
    int64_t cnt = 1;
    bool all = n == 0;
    for (int d = 0; d < xs->ndim; d++) {
        bool in = all;
        for (int k = 0; k < n; k++)
            if (axes[k] == d || axes[k] + xs->ndim == d)
                in = true;
        if (in)
            cnt = xs->dims[d] < 0 || cnt < 0 ? -1 : cnt * xs->dims[d];
    }
    if (cnt < 0) {
        r = d2_raise(I, "ValueError", "%s: the reduced dims must be static", fname);
        goto done;
    }
    m = reduce_axes(I, fname, D2_OP_mean, x, axes, n, true);
    d = m ? op2(I, fname, D2_OP_subtract, x, m, NULL) : NULL;
    sq = d ? op1(I, fname, D2_OP_square, d, NULL) : NULL;
    s = sq ? reduce_axes(I, fname, D2_OP_sum, sq, axes, n, keep) : NULL;
    if (s) {
        double div = (double)cnt - (unbiased ? 1.0 : 0.0);
        d2_obj *v = d2_pd_scale_by(I, fname, s, div > 0 ? 1.0 / div : NAN, 0);
        r = v && sd ? op1(I, fname, D2_OP_sqrt, v, NULL) : d2_incref(v);
        d2_decref(v);
    }
done:
    d2_decref(x);
    d2_decref(m);
    d2_decref(d);
    d2_decref(sq);
    d2_decref(s);
    return r;
}

D2_FN(f_std)
{
    return std_var(I, a, true);
}

D2_FN(f_var)
{
    return std_var(I, a, false);
}

/* paddle.add_n(inputs): the sum of a tensor or a list of tensors of one shape and dtype */
D2_FN(f_add_n)
{
    const char *fname = "paddle.add_n";
    d2_obj *one[1] = {a[0]};
    d2_obj **xs = one;
    size_t n = 1;
    if (is_seq(a[0])) {
        n = seq_len(a[0]);
        xs = a[0]->kind == D2_OBJ_LIST ? D2_AS(d2_list, a[0])->items : D2_AS(d2_tuple, a[0])->items;
    }
    if (n == 0)
        return d2_raise(I, "ValueError", "%s: inputs should not be empty", fname);
    for (size_t i = 0; i < n; i++)
        if (!is_tensor(xs[i]))
            return d2_raise(I, "TypeError", "%s: inputs[%zu] must be a Tensor, got %s", fname, i,
                            d2_type_name(xs[i]));
    d2_obj *r = n == 1 ? op1(I, fname, D2_OP_assign, xs[0], NULL) : d2_incref(xs[0]);
    for (size_t i = 1; r && i < n; i++) {
        d2_obj *nr = op2(I, fname, D2_OP_add, r, xs[i], NULL);
        d2_decref(r);
        r = nr;
    }
    return r;
}

/* paddle.increment(x, value=1.0): x += value in place (x has one element); returns x */
D2_FN(f_increment)
{
    const char *fname = "paddle.increment";
    double v;
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor, got %s", fname,
                        d2_type_name(a[0]));
    if (d2_pd_get_float(I, a[1], fname, "value", &v) < 0)
        return NULL;
    const d2_shape *sh = &obj_type(a[0])->shape;
    int64_t numel = 1;
    for (int d = 0; d < sh->ndim; d++)
        numel = sh->dims[d] < 0 ? -1 : numel * sh->dims[d];
    if (numel != 1 && numel != -1)
        return d2_raise(I, "ValueError",
                        "%s: x must have exactly one element, but it has %lld", fname,
                        (long long)numel);
    d2_obj *r = d2_pd_scale_by(I, fname, a[0], 1, v);
    if (!r)
        return NULL;
    d2_tensor_obj *x = TOBJ(a[0]), *y = TOBJ(r);
    if (x->t && y->t) {
        d2_tensor_unref(x->t);
        x->t = d2_tensor_ref(y->t);
    } else if (!x->t && !y->t && x->builder == y->builder) {
        x->var = y->var;
    } else {
        return r;
    }
    x->type = y->type;
    d2_decref(r);
    return d2_incref(a[0]);
}

/* ======================================================================
 * The rows
 * ====================================================================== */

static const d2_def MATH_DEFS[] = {
    D2_DEF("argmax", ARGMINMAX_SPEC, f_argmax, "paddle.argmax"),
    D2_DEF("argmin", ARGMINMAX_SPEC, f_argmin, "paddle.argmin"),
    D2_DEF("is_tensor", "x", f_is_tensor, "paddle.is_tensor"),
    D2_DEF("allclose", "x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None", f_allclose,
           "paddle.allclose"),
    D2_DEF("equal_all", "x, y, name=None", f_equal_all, "paddle.equal_all"),
    D2_DEF("add_n", "inputs, name=None", f_add_n, "paddle.add_n"),
    D2_DEF("increment", "x, value=1.0, name=None", f_increment, "paddle.increment"),
};

/* Functions that are also Tensor methods (the receiver is x). */
static const d2_def TENSOR_FN_DEFS[] = {
    D2_DEF("dot", "x, y, name=None", f_dot, "paddle.dot"),
    D2_DEF("norm", "x, p='fro', axis=None, keepdim=False, name=None", f_norm, "paddle.norm"),
    D2_DEF("std", "x, axis=None, unbiased=True, keepdim=False, name=None", f_std, "paddle.std"),
    D2_DEF("var", "x, axis=None, unbiased=True, keepdim=False, name=None", f_var, "paddle.var"),
    D2_DEF("round", "x, name=None", f_round, "paddle.round"),
};

/* x.argmax / x.argmin: their messages name Tensor, not paddle. */
static const d2_def TENSOR_ARG_DEFS[] = {
    D2_DEF("argmax", ARGMINMAX_SPEC, f_argmax, "Tensor.argmax"),
    D2_DEF("argmin", ARGMINMAX_SPEC, f_argmin, "Tensor.argmin"),
};

static const d2_def LINALG_DEFS[] = {
    D2_DEF("norm", "x, p='fro', axis=None, keepdim=False, name=None", f_norm, "paddle.norm"),
};

int d2_pd_math_add(d2_interp *I, pd_state *s)
{
    if (d2_module_add_defs(I, s->paddle, MATH_DEFS, D2_COUNTOF(MATH_DEFS)) < 0 ||
        d2_pd_add_tensor_fns(I, s, TENSOR_FN_DEFS, D2_COUNTOF(TENSOR_FN_DEFS)) < 0 ||
        d2_class_add_defs(I, s->tensor_cls, TENSOR_ARG_DEFS, D2_COUNTOF(TENSOR_ARG_DEFS),
                          D2_DEF_SELF) < 0 ||
        d2_module_add_defs(I, s->linalg, LINALG_DEFS, D2_COUNTOF(LINALG_DEFS)) < 0)
        return -1;
    return 0;
}
