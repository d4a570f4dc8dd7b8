/* manipulation.c - paddle.where, concat/stack, split/chunk/unbind, expand_as, flip, t, nonzero. */
#include "lib/paddle/functions_priv.h"

/* ======================================================================
 * Manipulation: where, concat, stack, split, unbind, expand_as, flip, t
 * ====================================================================== */

/* ---- where, concat, stack, split ---- */

static d2_obj *nonzero_impl(d2_interp *I, const char *fname, d2_obj *xo, bool as_tuple);

D2_FN(f_where)
{
    const char *fname = "paddle.where";
    if (is_none(I, a[1]) && is_none(I, a[2]))
        return nonzero_impl(I, fname, a[0], true);
    if (is_none(I, a[1]) || is_none(I, a[2]))
        return d2_raise(I, "ValueError", "%s: either both or neither of x and y should be given",
                        fname);
    d2_obj *c = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!c)
        return NULL;
    d2_obj *x = NULL, *y = NULL, *xc = NULL, *yc = NULL, *cc = NULL, *r = NULL;
    int hint = is_tensor(a[1])   ? (int)obj_type(a[1])->dtype
               : is_tensor(a[2]) ? (int)obj_type(a[2])->dtype
                                 : -1;
    /* Python floats become float64 and ints int64, as Paddle does */
    x = is_number(a[1]) ? d2_pd_scalar_tensor(I, a[1],
                                              a[1]->kind == D2_OBJ_FLOAT ? D2_F64
                                              : hint >= 0                ? (d2_dtype)hint
                                                                         : D2_I64)
                        : d2_pd_as_tensor(I, a[1], -1, fname);
    y = !x                ? NULL
        : is_number(a[2]) ? d2_pd_scalar_tensor(I, a[2],
                                                a[2]->kind == D2_OBJ_FLOAT ? D2_F64
                                                : hint >= 0                ? (d2_dtype)hint
                                                                           : D2_I64)
                          : d2_pd_as_tensor(I, a[2], -1, fname);
    if (!y)
        goto done;
    d2_dtype dx = obj_type(x)->dtype, dy = obj_type(y)->dtype, dt = dx;
    if (dx != dy) {
        if (d2_dtype_is_float(dx) && d2_dtype_is_float(dy))
            dt = D2_F64;
        else if (d2_dtype_is_float(dy))
            dt = dy;
    }
    xc = d2_pd_cast_to(I, fname, x, dt);
    yc = xc ? d2_pd_cast_to(I, fname, y, dt) : NULL;
    cc = yc ? d2_pd_cast_to(I, fname, c, D2_BOOL) : NULL;
    if (cc) {
        d2_obj *in[3] = {cc, xc, yc};
        r = d2_pd_opn(I, fname, D2_OP_where, in, 3, NULL);
    }
done:
    d2_decref(c);
    d2_decref(x);
    d2_decref(y);
    d2_decref(xc);
    d2_decref(yc);
    d2_decref(cc);
    return r;
}

/* concat/stack over n tensors, in chunks of 16 (the eager port limit). */
static d2_obj *join(d2_interp *I, const char *fname, d2_op_id op, d2_obj **xs, int n, int64_t axis)
{
    if (n <= 16) {
        d2_ab b;
        d2_ab_init(&b, op);
        d2_ab_int(&b, "axis", axis);
        return d2_pd_opn(I, fname, op, xs, n, &b);
    }
    if (op == D2_OP_stack) {
        /* stack = unsqueeze each, then concat */
        d2_obj **u = d2_calloc((size_t)n, sizeof *u);
        if (!u)
            return nomem(I);
        d2_obj *r = NULL;
        int ndim = obj_type(xs[0])->shape.ndim;
        int64_t ax = axis < 0 ? axis + ndim + 1 : axis;
        int i;
        for (i = 0; i < n; i++) {
            d2_ab b;
            d2_ab_init(&b, D2_OP_unsqueeze);
            d2_ab_ints(&b, "axis", &ax, 1);
            u[i] = op1(I, fname, D2_OP_unsqueeze, xs[i], &b);
            if (!u[i])
                break;
        }
        if (i == n)
            r = join(I, fname, D2_OP_concat, u, n, ax);
        for (int k = 0; k < n; k++)
            d2_decref(u[k]);
        d2_free(u);
        return r;
    }
    int groups = (n + 15) / 16;
    d2_obj **g = d2_calloc((size_t)groups, sizeof *g);
    if (!g)
        return nomem(I);
    d2_obj *r = NULL;
    int k;
    for (k = 0; k < groups; k++) {
        int m = n - k * 16 < 16 ? n - k * 16 : 16;
        g[k] = join(I, fname, op, xs + k * 16, m, axis);
        if (!g[k])
            break;
    }
    if (k == groups)
        r = join(I, fname, op, g, groups, axis);
    for (int j = 0; j < groups; j++)
        d2_decref(g[j]);
    d2_free(g);
    return r;
}

static d2_obj *concat_or_stack(d2_interp *I, const char *fname, d2_op_id op, d2_obj **a)
{
    if (!is_seq(a[0]) || seq_len(a[0]) == 0)
        return d2_raise(I, "TypeError",
                        "%s: x must be a non-empty list or tuple of Tensors, got %s", fname,
                        d2_type_name(a[0]));
    int64_t axis;
    if (d2_pd_get_int(I, a[1], fname, "axis", &axis) < 0)
        return NULL;
    int n = (int)seq_len(a[0]);
    d2_obj **xs = d2_calloc((size_t)n, sizeof *xs);
    if (!xs)
        return nomem(I);
    d2_obj *r = NULL;
    int i;
    for (i = 0; i < n; i++) {
        xs[i] = d2_pd_as_tensor(I, seq_item(a[0], (size_t)i), -1, fname);
        if (!xs[i])
            break;
    }
    if (i == n)
        r = join(I, fname, op, xs, n, axis);
    for (int k = 0; k < n; k++)
        d2_decref(xs[k]);
    d2_free(xs);
    return r;
}

D2_FN(f_concat)
{
    return concat_or_stack(I, "paddle.concat", D2_OP_concat, a);
}

D2_FN(f_stack)
{
    return concat_or_stack(I, "paddle.stack", D2_OP_stack, a);
}

/* Splits x along axis into pieces of the given sizes (one -1 allowed) with
 * slice ops; returns a list. */
static d2_obj *split_sizes(d2_interp *I, const char *fname, d2_obj *x, int64_t *sizes, int n,
                           int64_t axis, bool squeeze)
{
    const d2_shape *xs = &obj_type(x)->shape;
    if (xs->ndim == 0)
        return d2_raise(I, "ValueError", "%s: cannot split a 0-D tensor", fname);
    if (axis < -xs->ndim || axis >= xs->ndim)
        return d2_raise(I, "ValueError", "%s: axis %lld is out of range for a %d-D tensor", fname,
                        (long long)axis, xs->ndim);
    if (axis < 0)
        axis += xs->ndim;
    int64_t dim = xs->dims[axis];
    int neg = -1;
    int64_t known = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] == -1 && neg < 0)
            neg = i;
        else if (sizes[i] < 0)
            return d2_raise(I, "ValueError", "%s: section sizes must be >= 0 (one may be -1)",
                            fname);
        else
            known += sizes[i];
    }
    if (dim >= 0) {
        if (neg >= 0)
            sizes[neg] = dim - known;
        if ((neg >= 0 && sizes[neg] < 0) || (neg < 0 && known != dim))
            return d2_raise(I, "ValueError",
                            "%s: the sections add up to %lld but axis %lld has size %lld", fname,
                            (long long)known, (long long)axis, (long long)dim);
    } else if (neg >= 0) {
        return d2_raise(I, "ValueError", "%s: a -1 section needs a static size along axis %lld",
                        fname, (long long)axis);
    }
    d2_obj *list = d2_list_new(I, 0);
    if (!list)
        return NULL;
    int64_t start = 0;
    for (int i = 0; i < n; i++) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_slice);
        int64_t end = start + sizes[i];
        d2_ab_ints(&b, "axes", &axis, 1);
        d2_ab_ints(&b, "starts", &start, 1);
        d2_ab_ints(&b, "ends", &end, 1);
        if (squeeze)
            d2_ab_ints(&b, "decrease_axis", &axis, 1);
        d2_obj *piece = op1(I, fname, D2_OP_slice, x, &b);
        if (!piece || d2_list_append(I, list, piece) < 0) {
            d2_decref(piece);
            d2_decref(list);
            return NULL;
        }
        d2_decref(piece);
        start = end;
    }
    return list;
}

static d2_obj *do_split(d2_interp *I, const char *fname, d2_obj *xo, d2_obj *sec, d2_obj *axo,
                        bool chunk)
{
    int64_t axis;
    if (d2_pd_get_int(I, axo, fname, "axis", &axis) < 0)
        return NULL;
    d2_obj *x = d2_pd_as_tensor(I, xo, -1, fname);
    if (!x)
        return NULL;
    const d2_shape *xs = &obj_type(x)->shape;
    int64_t sizes[256];
    int n = 0;
    d2_obj *r = NULL;
    if (is_int(sec)) {
        int64_t k = D2_AS(d2_int, sec)->v;
        int64_t ax = axis < 0 ? axis + xs->ndim : axis;
        if (ax < 0 || ax >= xs->ndim) {
            r = d2_raise(I, "ValueError", "%s: axis %lld is out of range for a %d-D tensor", fname,
                         (long long)axis, xs->ndim);
            goto done;
        }
        int64_t dim = xs->dims[ax];
        if (k <= 0 || k > 256) {
            r = d2_raise(I, "ValueError",
                         "%s: the number of sections must be in [1, 256], got %lld", fname,
                         (long long)k);
            goto done;
        }
        if (dim < 0) {
            /* dynamic: the split op divides at run time */
            d2_ab b;
            d2_ab_init(&b, D2_OP_split);
            d2_ab_int(&b, "num", k);
            d2_ab_int(&b, "axis", axis);
            d2_obj *outs[256] = {NULL};
            if (b.bad || d2_pd_apply_named(I, fname, D2_OP_split, &x, 1, &b.a, outs, (int)k) < 0) {
                d2_ab_free(&b);
                goto done;
            }
            d2_ab_free(&b);
            r = d2_list_new(I, 0);
            for (int64_t i = 0; i < k; i++) {
                if (r && d2_list_append(I, r, outs[i]) < 0)
                    d2_setref(&r, NULL);
                d2_decref(outs[i]);
            }
            goto done;
        }
        if (dim % k != 0 && !chunk) {
            r = d2_raise(I, "ValueError",
                         "%s: axis %lld of size %lld cannot be split into %lld equal sections",
                         fname, (long long)axis, (long long)dim, (long long)k);
            goto done;
        }
        if (chunk && dim % k != 0) {
            r = d2_raise(I, "ValueError", "%s: axis of size %lld is not divisible by chunks %lld",
                         fname, (long long)dim, (long long)k);
            goto done;
        }
        for (int64_t i = 0; i < k; i++)
            sizes[n++] = dim / k;
    } else {
        if (d2_pd_ints(I, sec, fname, "num_or_sections", sizes, &n, 256) < 0)
            goto done;
    }
    r = split_sizes(I, fname, x, sizes, n, axis, false);
done:
    d2_decref(x);
    return r;
}

D2_FN(f_split)
{
    return do_split(I, "paddle.split", a[0], a[1], a[2], false);
}

D2_FN(f_chunk)
{
    if (!is_int(a[1]))
        return d2_raise(I, "TypeError", "paddle.chunk: chunks must be an int");
    return do_split(I, "paddle.chunk", a[0], a[1], a[2], true);
}

D2_FN(f_unbind)
{
    const char *fname = "paddle.unbind";
    d2_obj *r = NULL;
    int64_t axis;
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (x && d2_pd_get_int(I, a[1], fname, "axis", &axis) == 0) {
        const d2_shape *xs = &obj_type(x)->shape;
        int64_t ax = axis < 0 ? axis + xs->ndim : axis;
        if (ax < 0 || ax >= xs->ndim || xs->dims[ax] < 0 || xs->dims[ax] > 4096) {
            r = d2_raise(I, "ValueError", "%s: axis %lld must be a static dim of the input", fname,
                         (long long)axis);
        } else {
            int64_t n = xs->dims[ax];
            int64_t *sizes = d2_malloc(sizeof(int64_t) * (size_t)(n + 1));
            if (sizes) {
                for (int64_t i = 0; i < n; i++)
                    sizes[i] = 1;
                d2_obj *l = split_sizes(I, fname, x, sizes, (int)n, ax, true);
                d2_free(sizes);
                if (l) {
                    r = tuple_new(I, (size_t)n);
                    for (int64_t i = 0; r && i < n; i++)
                        D2_AS(d2_tuple, r)->items[i] = d2_incref(D2_AS(d2_list, l)->items[i]);
                    d2_decref(l);
                }
            } else {
                nomem(I);
            }
        }
    }
    d2_decref(x);
    return r;
}

D2_FN(f_expand_as)
{
    const char *fname = "paddle.expand_as";
    d2_obj *r = NULL;
    if (!is_tensor(a[1])) {
        r = d2_raise(I, "TypeError", "%s: y must be a Tensor", fname);
    } else {
        d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
        const d2_shape *ys = &obj_type(a[1])->shape;
        if (x && d2_shape_is_static(ys)) {
            d2_ab b;
            d2_ab_init(&b, D2_OP_expand);
            d2_ab_ints(&b, "shape", ys->dims, ys->ndim);
            r = op1(I, fname, D2_OP_expand, x, &b);
        } else if (x) {
            d2_obj *s = op1(I, fname, D2_OP_shape, a[1], NULL);
            d2_obj *s64 = s ? d2_pd_cast_to(I, fname, s, D2_I64) : NULL;
            if (s64)
                r = op2(I, fname, D2_OP_expand, x, s64, NULL);
            d2_decref(s);
            d2_decref(s64);
        }
        d2_decref(x);
    }
    return r;
}

/* ---- composites: flip, nonzero, t ---- */

D2_FN(f_flip)
{
    const char *fname = "paddle.flip";
    d2_obj *r = NULL;
    int64_t axes[D2_MAX_DIMS], st[D2_MAX_DIMS], en[D2_MAX_DIMS], sp[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, a[1], fname, "axis", axes, &n, D2_MAX_DIMS) == 0) {
        d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
        if (x) {
            for (int i = 0; i < n; i++) {
                st[i] = INT64_MAX;
                en[i] = INT64_MIN;
                sp[i] = -1;
            }
            d2_ab b;
            d2_ab_init(&b, D2_OP_slice);
            d2_ab_ints(&b, "axes", axes, n);
            d2_ab_ints(&b, "starts", st, n);
            d2_ab_ints(&b, "ends", en, n);
            d2_ab_ints(&b, "strides", sp, n);
            r = op1(I, fname, D2_OP_slice, x, &b);
            d2_decref(x);
        }
    }
    return r;
}

/* The int64 indices of x's nonzero elements, eagerly on the host (the result's
 * size depends on the data): [k, ndim], or with as_tuple one [k, 1] tensor per
 * dim, as paddle.nonzero and the one-argument paddle.where. */
static d2_obj *nonzero_impl(d2_interp *I, const char *fname, d2_obj *xo, bool as_tuple)
{
    if (is_sym(xo) || D2_MODE(I)->builder)
        return d2_raise(I, "NotImplementedError",
                        "%s: nonzero indices are not supported inside to_static (the result's "
                        "size depends on the data)",
                        fname);
    d2_obj *x = d2_pd_as_tensor(I, xo, -1, fname);
    if (!x)
        return NULL;
    d2_tensor *h = d2_pd_host(I, x, fname);
    d2_decref(x);
    if (!h)
        return NULL;
    d2_shape xs;
    d2_tensor_get_shape(h, &xs);
    int nd = xs.ndim;
    if (nd < 1) {
        d2_tensor_unref(h);
        return d2_raise(I, "ValueError", "%s: the input must have at least 1 dimension", fname);
    }
    int64_t n = d2_tensor_numel(h), k = 0;
    bool fl = d2_dtype_is_float(h->dtype);
    for (int64_t i = 0; i < n; i++)
        k += fl ? d2_tensor_get_f64(h, i) != 0 : d2_tensor_get_i64(h, i) != 0;
    d2_err err = {0};
    int64_t dims[2] = {k, nd};
    d2_tensor *t = d2_tensor_new(NULL, D2_I64, 2, dims, &err);
    if (!t) {
        d2_tensor_unref(h);
        return d2_raise_err(I, &err);
    }
    int64_t *p = d2_tensor_data(t);
    for (int64_t i = 0, j = 0; i < n; i++) {
        if (fl ? d2_tensor_get_f64(h, i) == 0 : d2_tensor_get_i64(h, i) == 0)
            continue;
        for (int64_t rem = i, dd = nd - 1; dd >= 0; dd--) {
            p[j * nd + dd] = rem % xs.dims[dd];
            rem /= xs.dims[dd];
        }
        j++;
    }
    d2_tensor_unref(h);
    if (!as_tuple)
        return d2_pd_wrap_host(I, t);
    d2_obj *tup = tuple_new(I, (size_t)nd);
    for (int dd = 0; tup && dd < nd; dd++) {
        int64_t cd[2] = {k, 1};
        d2_tensor *c = d2_tensor_new(NULL, D2_I64, 2, cd, &err);
        if (!c) {
            d2_decref(tup);
            tup = d2_raise_err(I, &err);
            break;
        }
        int64_t *cp = d2_tensor_data(c);
        for (int64_t j = 0; j < k; j++)
            cp[j] = p[j * nd + dd];
        if (!(D2_AS(d2_tuple, tup)->items[dd] = d2_pd_wrap_host(I, c))) {
            d2_decref(tup);
            tup = NULL;
        }
    }
    d2_tensor_unref(t);
    return tup;
}

D2_FN(f_nonzero)
{
    const char *fname = "paddle.nonzero";
    d2_obj *r = NULL;
    bool tup;
    if (d2_pd_get_bool(I, a[1], fname, "as_tuple", &tup) == 0)
        r = nonzero_impl(I, fname, a[0], tup);
    return r;
}

D2_FN(f_t)
{
    d2_obj *r = NULL;
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, "paddle.t");
    if (x && obj_type(x)->shape.ndim > 2)
        r = d2_raise(I, "ValueError", "paddle.t: the input must be 0-D, 1-D or 2-D, got %d-D",
                     obj_type(x)->shape.ndim);
    else if (x && obj_type(x)->shape.ndim == 2)
        r = d2_pd_transpose_all(I, x);
    else if (x)
        r = d2_incref(x);
    d2_decref(x);
    return r;
}

/* ======================================================================
 * The rows
 * ====================================================================== */

static const d2_def MANIPULATION_DEFS[] = {
    D2_DEF("where", "condition, x=None, y=None, name=None", f_where, "paddle.where"),
    D2_DEF("concat", "x, axis=0, name=None", f_concat, "paddle.concat"),
    D2_DEF("stack", "x, axis=0, name=None", f_stack, "paddle.stack"),
};

/* Functions that are also Tensor methods (the receiver is x). */
static const d2_def TENSOR_FN_DEFS[] = {
    D2_DEF("split", "x, num_or_sections, axis=0, name=None", f_split, "paddle.split"),
    D2_DEF("chunk", "x, chunks, axis=0, name=None", f_chunk, "paddle.chunk"),
    D2_DEF("unbind", "input, axis=0", f_unbind, "paddle.unbind"),
    D2_DEF("expand_as", "x, y, name=None", f_expand_as, "paddle.expand_as"),
    D2_DEF("flip", "x, axis, name=None", f_flip, "paddle.flip"),
    D2_DEF("t", "input, name=None", f_t, "paddle.t"),
    D2_DEF("nonzero", "x, as_tuple=False", f_nonzero, "paddle.nonzero"),
};

int d2_pd_manipulation_add(d2_interp *I, pd_state *s)
{
    if (d2_module_add_defs(I, s->paddle, MANIPULATION_DEFS, D2_COUNTOF(MANIPULATION_DEFS)) < 0 ||
        d2_pd_add_tensor_fns(I, s, TENSOR_FN_DEFS, D2_COUNTOF(TENSOR_FN_DEFS)) < 0)
        return -1;
    return 0;
}
