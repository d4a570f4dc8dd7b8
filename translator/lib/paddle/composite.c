/* composite.c - paddle functions composed of registry ops (masked_fill, logsumexp, einsum, meshgrid, ...) and the in-place variants. */
#include "lib/paddle/functions_priv.h"

#include <math.h>
#include <string.h>

/* ======================================================================
 * A pool of temporaries: the helpers below keep every intermediate result
 * in it and pass NULL through after a failure, so a composite reads as a
 * straight line of ops; the caller takes a new reference of its result and
 * drains the pool.
 * ====================================================================== */

enum { POOL_MAX = 128 };

typedef struct pool {
    d2_interp *I;
    const char *fname;
    d2_obj *o[POOL_MAX];
    int n;
} pool;

static d2_obj *keep(pool *p, d2_obj *o)
{
    if (!o)
        return NULL;
    if (p->n == POOL_MAX) {
        d2_decref(o);
        return d2_raise(p->I, "RuntimeError", "%s: too many intermediate values", p->fname);
    }
    p->o[p->n++] = o;
    return o;
}

/* Drains the pool; returns a new reference to r (NULL stays NULL). */
static d2_obj *done(pool *p, d2_obj *r)
{
    if (r)
        d2_incref(r);
    for (int i = 0; i < p->n; i++)
        d2_decref(p->o[i]);
    p->n = 0;
    return r;
}

static d2_obj *T(pool *p, d2_obj *o) /* an argument as a tensor */
{
    return o ? keep(p, d2_pd_as_tensor(p->I, o, -1, p->fname)) : NULL;
}

static d2_obj *U(pool *p, d2_op_id op, d2_obj *x)
{
    return x ? keep(p, op1(p->I, p->fname, op, x, NULL)) : NULL;
}

static d2_obj *B(pool *p, d2_op_id op, d2_obj *x, d2_obj *y)
{
    return x && y ? keep(p, op2(p->I, p->fname, op, x, y, NULL)) : NULL;
}

static d2_obj *C(pool *p, double v, d2_obj *like) /* a 0-d constant of like's dtype */
{
    return like ? keep(p, d2_pd_const_tensor(p->I, v, (int64_t)v, !d2_dtype_is_float(
                                                                  obj_type(like)->dtype),
                                             obj_type(like)->dtype))
                : NULL;
}

static d2_obj *cast(pool *p, d2_obj *x, int dt)
{
    if (!x)
        return NULL;
    if (obj_type(x)->dtype == (d2_dtype)dt)
        return x;
    return keep(p, d2_pd_cast_to(p->I, p->fname, x, dt));
}

static d2_obj *where3(pool *p, d2_obj *c, d2_obj *x, d2_obj *y)
{
    if (!c || !x || !y)
        return NULL;
    d2_obj *in[3] = {c, x, y};
    return keep(p, d2_pd_opn(p->I, p->fname, D2_OP_where, in, 3, NULL));
}

static d2_obj *reduce(pool *p, d2_op_id op, d2_obj *x, const int64_t *axes, int n, bool keepdim)
{
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, op);
    d2_ab_ints(&b, "axis", axes, n);
    d2_ab_bool(&b, "keepdim", keepdim);
    return keep(p, op1(p->I, p->fname, op, x, &b));
}

/* One op on x whose only attribute set is the ints attribute `attr`. */
static d2_obj *ints_op(pool *p, d2_op_id op, const char *attr, d2_obj *x, const int64_t *v, int n)
{
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, op);
    d2_ab_ints(&b, attr, v, n);
    return keep(p, op1(p->I, p->fname, op, x, &b));
}

static d2_obj *reshape(pool *p, d2_obj *x, const int64_t *dims, int n)
{
    return ints_op(p, D2_OP_reshape, "shape", x, dims, n);
}

static d2_obj *transpose(pool *p, d2_obj *x, const int64_t *perm, int n)
{
    return ints_op(p, D2_OP_transpose, "perm", x, perm, n);
}

static d2_obj *expand(pool *p, d2_obj *x, const int64_t *dims, int n)
{
    return ints_op(p, D2_OP_expand, "shape", x, dims, n);
}

static d2_obj *slice1(pool *p, d2_obj *x, int64_t axis, int64_t start, int64_t end, int64_t step)
{
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_slice);
    d2_ab_ints(&b, "axes", &axis, 1);
    d2_ab_ints(&b, "starts", &start, 1);
    d2_ab_ints(&b, "ends", &end, 1);
    d2_ab_ints(&b, "strides", &step, 1);
    return keep(p, op1(p->I, p->fname, D2_OP_slice, x, &b));
}

static d2_obj *matmul(pool *p, d2_obj *x, d2_obj *y, bool tx, bool ty)
{
    if (!x || !y)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_matmul);
    d2_ab_bool(&b, "transpose_x", tx);
    d2_ab_bool(&b, "transpose_y", ty);
    return keep(p, op2(p->I, p->fname, D2_OP_matmul, x, y, &b));
}

static d2_obj *scale(pool *p, d2_obj *x, double s, double bias)
{
    return x ? keep(p, d2_pd_scale_by(p->I, p->fname, x, s, bias)) : NULL;
}

/* Paddle's binary op rules (a Python number takes the tensor's dtype). */
static d2_obj *PB(pool *p, d2_op_id op, d2_obj *x, d2_obj *y)
{
    return x && y ? keep(p, d2_pd_binary(p->I, p->fname, op, x, y, false)) : NULL;
}

static const d2_shape *shp(d2_obj *x) { return &obj_type(x)->shape; }

static d2_obj *unsqueeze_last(pool *p, d2_obj *x)
{
    if (!x)
        return NULL;
    int64_t ax = -1;
    d2_ab b;
    d2_ab_init(&b, D2_OP_unsqueeze);
    d2_ab_ints(&b, "axis", &ax, 1);
    return keep(p, op1(p->I, p->fname, D2_OP_unsqueeze, x, &b));
}

static int fail_static_dims(pool *p, const char *what)
{
    d2_raise(p->I, "ValueError", "%s: %s must be known (not -1) here", p->fname, what);
    return -1;
}

/* All axes 0..nd-1 into v. */
static int all_axes(int nd, int64_t *v)
{
    for (int i = 0; i < nd; i++)
        v[i] = i;
    return nd;
}

/* An axis argument: None (all: n = 0), an int or a list. */
static int axes_of(pool *p, d2_obj *o, int64_t *v, int *n)
{
    *n = 0;
    if (is_none(p->I, o))
        return 0;
    return d2_pd_ints(p->I, o, p->fname, "axis", v, n, D2_MAX_DIMS);
}

#define POOL(name) pool P_ = {I, (name), {NULL}, 0}, *p = &P_

/* ======================================================================
 * Masking, reductions, elementwise composites
 * ====================================================================== */

/* masked_fill(x, mask, value): where(mask, value, x). */
D2_FN(f_masked_fill)
{
    POOL("paddle.masked_fill");
    d2_obj *x = T(p, a[0]), *m = T(p, a[1]);
    d2_obj *v = x ? (is_tensor(a[2]) ? cast(p, a[2], obj_type(x)->dtype)
                                     : keep(p, d2_pd_scalar_tensor(I, a[2], obj_type(x)->dtype)))
                  : NULL;
    if (m && obj_type(m)->dtype != D2_BOOL)
        m = cast(p, m, D2_BOOL);
    return done(p, where3(p, m, v, x));
}

/* logsumexp(x, axis=None, keepdim=False): max-shifted, a non-finite max taken as 0. */
D2_FN(f_logsumexp)
{
    POOL("paddle.logsumexp");
    int64_t ax[D2_MAX_DIMS];
    int n;
    bool kd;
    if (axes_of(p, a[1], ax, &n) < 0 || d2_pd_get_bool(I, a[2], p->fname, "keepdim", &kd) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (x && n == 0)
        n = all_axes(shp(x)->ndim, ax);
    d2_obj *m = reduce(p, D2_OP_max, x, ax, n, true);
    d2_obj *m0 = where3(p, U(p, D2_OP_isfinite, m), m, C(p, 0, m));
    d2_obj *s = reduce(p, D2_OP_sum, U(p, D2_OP_exp, B(p, D2_OP_subtract, x, m0)), ax, n, true);
    d2_obj *r = B(p, D2_OP_add, U(p, D2_OP_log, s), m0);
    if (r && !kd && n > 0) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_squeeze);
        d2_ab_ints(&b, "axis", ax, n);
        r = keep(p, op1(I, p->fname, D2_OP_squeeze, r, &b));
    }
    return done(p, r);
}

/* count_nonzero(x, axis=None, keepdim=False): int64. */
D2_FN(f_count_nonzero)
{
    POOL("paddle.count_nonzero");
    int64_t ax[D2_MAX_DIMS];
    int n;
    bool kd;
    if (axes_of(p, a[1], ax, &n) < 0 || d2_pd_get_bool(I, a[2], p->fname, "keepdim", &kd) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    d2_obj *nz = cast(p, B(p, D2_OP_not_equal, x, C(p, 0, x)), D2_I64);
    return done(p, reduce(p, D2_OP_sum, nz, ax, n, kd));
}

/* nansum(x, axis=None, dtype=None, keepdim=False) and nanmean(x, axis=None, keepdim=False). */
static d2_obj *nan_reduce(d2_interp *I, const char *fname, d2_obj *xo, d2_obj *axo, d2_obj *dto,
                          d2_obj *kdo, bool mean)
{
    POOL(fname);
    int64_t ax[D2_MAX_DIMS];
    int n, dt = -1;
    bool kd;
    if (axes_of(p, axo, ax, &n) < 0 || d2_pd_get_bool(I, kdo, fname, "keepdim", &kd) < 0 ||
        (dto && d2_pd_dtype_arg(I, dto, fname, -1, &dt) < 0))
        return NULL;
    d2_obj *x = T(p, xo);
    if (x && dt >= 0)
        x = cast(p, x, dt);
    d2_obj *nan = U(p, D2_OP_isnan, x);
    d2_obj *s = reduce(p, D2_OP_sum, where3(p, nan, C(p, 0, x), x), ax, n, kd);
    if (!mean)
        return done(p, s);
    d2_obj *cnt = reduce(p, D2_OP_sum, cast(p, U(p, D2_OP_logical_not, nan), obj_type(x)->dtype),
                         ax, n, kd);
    return done(p, B(p, D2_OP_divide, s, cnt));
}

D2_FN(f_nansum) { return nan_reduce(I, "paddle.nansum", a[0], a[1], a[2], a[3], false); }
D2_FN(f_nanmean) { return nan_reduce(I, "paddle.nanmean", a[0], a[1], NULL, a[2], true); }

/* nan_to_num(x, nan=0.0, posinf=None, neginf=None): infinities default to the dtype's extremes. */
D2_FN(f_nan_to_num)
{
    POOL("paddle.nan_to_num");
    double nv, pv, nnv;
    if (d2_pd_get_float(I, a[1], p->fname, "nan", &nv) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    double big = obj_type(x)->dtype == D2_F32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
    pv = big;
    nnv = -big;
    if ((!is_none(I, a[2]) && d2_pd_get_float(I, a[2], p->fname, "posinf", &pv) < 0) ||
        (!is_none(I, a[3]) && d2_pd_get_float(I, a[3], p->fname, "neginf", &nnv) < 0))
        return done(p, NULL);
    if (!d2_dtype_is_float(obj_type(x)->dtype))
        return done(p, x);
    d2_obj *r = where3(p, U(p, D2_OP_isnan, x), C(p, nv, x), x);
    d2_obj *inf = U(p, D2_OP_isinf, x);
    d2_obj *pos = B(p, D2_OP_greater_than, x, C(p, 0, x));
    r = where3(p, B(p, D2_OP_logical_and, inf, pos), C(p, pv, x), r);
    r = where3(p, B(p, D2_OP_logical_and, inf, U(p, D2_OP_logical_not, pos)), C(p, nnv, x), r);
    return done(p, r);
}

/* isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False): |x - y| <= atol + rtol |y|. */
static d2_obj *isclose_of(pool *p, d2_obj *xo, d2_obj *yo, d2_obj *ro, d2_obj *ao, d2_obj *eo)
{
    double rt, at;
    bool en;
    if (d2_pd_get_float(p->I, ro, p->fname, "rtol", &rt) < 0 ||
        d2_pd_get_float(p->I, ao, p->fname, "atol", &at) < 0 ||
        d2_pd_get_bool(p->I, eo, p->fname, "equal_nan", &en) < 0)
        return NULL;
    d2_obj *x = T(p, xo), *y = T(p, yo);
    d2_obj *diff = U(p, D2_OP_abs, B(p, D2_OP_subtract, x, y));
    d2_obj *tol = scale(p, U(p, D2_OP_abs, y), rt, at);
    d2_obj *r = B(p, D2_OP_logical_or, B(p, D2_OP_less_equal, diff, tol), B(p, D2_OP_equal, x, y));
    if (r && en && d2_dtype_is_float(obj_type(x)->dtype))
        r = B(p, D2_OP_logical_or, r,
              B(p, D2_OP_logical_and, U(p, D2_OP_isnan, x), U(p, D2_OP_isnan, y)));
    return r;
}

D2_FN(f_isclose)
{
    POOL("paddle.isclose");
    return done(p, isclose_of(p, a[0], a[1], a[2], a[3], a[4]));
}

/* lerp(x, y, weight): x + weight (y - x). */
D2_FN(f_lerp)
{
    POOL("paddle.lerp");
    d2_obj *x = T(p, a[0]), *y = T(p, a[1]);
    d2_obj *w = is_tensor(a[2]) ? a[2] : x ? keep(p, d2_pd_scalar_tensor(I, a[2], obj_type(x)->dtype)) : NULL;
    return done(p, B(p, D2_OP_add, x, B(p, D2_OP_multiply, w, B(p, D2_OP_subtract, y, x))));
}

/* heaviside(x, y): 0 below zero, 1 above, y at zero (where broadcasts all three). */
D2_FN(f_heaviside)
{
    POOL("paddle.heaviside");
    d2_obj *x = T(p, a[0]), *y = T(p, a[1]);
    d2_obj *step = x ? cast(p, B(p, D2_OP_greater_than, x, C(p, 0, x)), obj_type(x)->dtype) : NULL;
    return done(p, where3(p, B(p, D2_OP_equal, x, C(p, 0, x)), y, step));
}

/* fmax / fmin(x, y): NaN loses against a number. */
static d2_obj *fminmax(d2_interp *I, const char *fname, d2_obj **a, d2_op_id op)
{
    POOL(fname);
    d2_obj *x = T(p, a[0]), *y = T(p, a[1]);
    d2_obj *m = B(p, op, x, y);
    if (m && d2_dtype_is_float(obj_type(m)->dtype))
        m = where3(p, U(p, D2_OP_isnan, x), y, where3(p, U(p, D2_OP_isnan, y), x, m));
    return done(p, m);
}

D2_FN(f_fmax) { return fminmax(I, "paddle.fmax", a, D2_OP_maximum); }
D2_FN(f_fmin) { return fminmax(I, "paddle.fmin", a, D2_OP_minimum); }

/* frac(x): x - trunc(x). */
D2_FN(f_frac)
{
    POOL("paddle.frac");
    d2_obj *x = T(p, a[0]);
    return done(p, B(p, D2_OP_subtract, x, U(p, D2_OP_trunc, x)));
}

/* diff(x, n=1, axis=-1, prepend=None, append=None). */
D2_FN(f_diff)
{
    POOL("paddle.diff");
    int64_t n, axis;
    if (d2_pd_get_int(I, a[1], p->fname, "n", &n) < 0 ||
        d2_pd_get_int(I, a[2], p->fname, "axis", &axis) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (x && (!is_none(I, a[3]) || !is_none(I, a[4]))) {
        d2_obj *parts[3];
        int k = 0;
        if (!is_none(I, a[3]))
            parts[k++] = T(p, a[3]);
        parts[k++] = x;
        if (!is_none(I, a[4]))
            parts[k++] = T(p, a[4]);
        for (int i = 0; i < k; i++)
            if (!parts[i])
                return done(p, NULL);
        d2_ab b;
        d2_ab_init(&b, D2_OP_concat);
        d2_ab_int(&b, "axis", axis);
        x = keep(p, d2_pd_opn(I, p->fname, D2_OP_concat, parts, k, &b));
    }
    for (int64_t i = 0; x && i < n; i++) {
        int64_t big = INT64_MAX;
        d2_obj *hi = slice1(p, x, axis, 1, big, 1), *lo = slice1(p, x, axis, 0, -1, 1);
        x = obj_type(x)->dtype == D2_BOOL ? B(p, D2_OP_logical_xor, hi, lo)
                                          : B(p, D2_OP_subtract, hi, lo);
    }
    return done(p, x);
}

/* ======================================================================
 * Linear-algebra composites
 * ====================================================================== */

/* outer(x, y): x flattened as a column times y flattened as a row. */
D2_FN(f_outer)
{
    POOL("paddle.outer");
    int64_t col[2] = {-1, 1}, row[2] = {1, -1};
    return done(p, PB(p, D2_OP_multiply, reshape(p, T(p, a[0]), col, 2),
                      reshape(p, T(p, a[1]), row, 2)));
}

/* inner(x, y): sum over the last dims; x.shape[:-1] + y.shape[:-1]. */
D2_FN(f_inner)
{
    POOL("paddle.inner");
    d2_obj *x = T(p, a[0]), *y = T(p, a[1]);
    if (!x || !y)
        return done(p, NULL);
    const d2_shape *xs = shp(x), *ys = shp(y);
    if (xs->ndim == 0 || ys->ndim == 0)
        return done(p, PB(p, D2_OP_multiply, x, y));
    int64_t k = ys->dims[ys->ndim - 1], flat[2] = {-1, k}, out[2 * D2_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < xs->ndim - 1; d++)
        out[n++] = xs->dims[d];
    for (int d = 0; d < ys->ndim - 1; d++)
        out[n++] = ys->dims[d];
    for (int d = 0; d < n; d++)
        if (out[d] < 0)
            return fail_static_dims(p, "the dims of x and y") < 0 ? done(p, NULL) : NULL;
    if (n > D2_MAX_DIMS)
        return done(p, d2_raise(I, "ValueError", "%s: too many dims", p->fname));
    d2_obj *m = matmul(p, x, reshape(p, y, flat, 2), false, true);
    return done(p, reshape(p, m, out, n));
}

/* mv(x, vec) and addmm(input, x, y, beta=1.0, alpha=1.0). */
D2_FN(f_mv)
{
    POOL("paddle.mv");
    return done(p, matmul(p, T(p, a[0]), T(p, a[1]), false, false));
}

D2_FN(f_addmm)
{
    POOL("paddle.addmm");
    double beta, alpha;
    if (d2_pd_get_float(I, a[3], p->fname, "beta", &beta) < 0 ||
        d2_pd_get_float(I, a[4], p->fname, "alpha", &alpha) < 0)
        return NULL;
    d2_obj *m = scale(p, matmul(p, T(p, a[1]), T(p, a[2]), false, false), alpha, 0);
    return done(p, B(p, D2_OP_add, scale(p, T(p, a[0]), beta, 0), m));
}

/* kron(x, y): both padded to one rank; x as [x0,1,x1,1,..] times y as [1,y0,1,y1,..]. */
D2_FN(f_kron)
{
    POOL("paddle.kron");
    d2_obj *x = T(p, a[0]), *y = T(p, a[1]);
    if (!x || !y)
        return done(p, NULL);
    const d2_shape *xs = shp(x), *ys = shp(y);
    int nd = xs->ndim > ys->ndim ? xs->ndim : ys->ndim;
    int64_t xd[2 * D2_MAX_DIMS], yd[2 * D2_MAX_DIMS], od[D2_MAX_DIMS];
    if (2 * nd > D2_MAX_DIMS)
        return done(p, d2_raise(I, "ValueError", "%s: at most %d dims", p->fname, D2_MAX_DIMS / 2));
    for (int d = 0; d < nd; d++) {
        int xi = d - (nd - xs->ndim), yi = d - (nd - ys->ndim);
        int64_t a0 = xi >= 0 ? xs->dims[xi] : 1, b0 = yi >= 0 ? ys->dims[yi] : 1;
        if (a0 < 0 || b0 < 0)
            return fail_static_dims(p, "the dims of x and y") < 0 ? done(p, NULL) : NULL;
        xd[2 * d] = a0;
        xd[2 * d + 1] = 1;
        yd[2 * d] = 1;
        yd[2 * d + 1] = b0;
        od[d] = a0 * b0;
    }
    d2_obj *m = PB(p, D2_OP_multiply, reshape(p, x, xd, 2 * nd), reshape(p, y, yd, 2 * nd));
    return done(p, reshape(p, m, od, nd));
}

/* cross(x, y, axis=9): axis 9 (None) picks the first dim of size 3. */
D2_FN(f_cross)
{
    POOL("paddle.cross");
    d2_obj *x = T(p, a[0]), *y = T(p, a[1]);
    int64_t axis = 9;
    if (!x || !y || (!is_none(I, a[2]) && d2_pd_get_int(I, a[2], p->fname, "axis", &axis) < 0))
        return done(p, NULL);
    const d2_shape *xs = shp(x);
    if (axis == 9) {
        axis = -1;
        for (int d = 0; d < xs->ndim && axis < 0; d++)
            if (xs->dims[d] == 3)
                axis = d;
    }
    if (axis < 0)
        axis += xs->ndim;
    if (axis < 0 || axis >= xs->ndim || xs->dims[axis] != 3)
        return done(p, d2_raise(I, "ValueError", "%s: the size of the cross axis must be 3",
                                p->fname));
    d2_obj *xc[3], *yc[3], *r[3];
    for (int i = 0; i < 3; i++) {
        xc[i] = slice1(p, x, axis, i, i + 1, 1);
        yc[i] = slice1(p, y, axis, i, i + 1, 1);
    }
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        r[i] = B(p, D2_OP_subtract, B(p, D2_OP_multiply, xc[j], yc[k]),
                 B(p, D2_OP_multiply, xc[k], yc[j]));
        if (!r[i])
            return done(p, NULL);
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_concat);
    d2_ab_int(&b, "axis", axis);
    return done(p, keep(p, d2_pd_opn(I, p->fname, D2_OP_concat, r, 3, &b)));
}

/* The diagonal of axes (a1, a2) with offset, as the last axis. */
static d2_obj *diagonal_of(pool *p, d2_obj *x, int64_t off, int64_t a1, int64_t a2)
{
    if (!x)
        return NULL;
    const d2_shape *s = shp(x);
    int nd = s->ndim;
    if (nd < 2) {
        d2_raise(p->I, "ValueError", "%s: x must have at least 2 dims", p->fname);
        return NULL;
    }
    a1 = a1 < 0 ? a1 + nd : a1;
    a2 = a2 < 0 ? a2 + nd : a2;
    if (a1 < 0 || a1 >= nd || a2 < 0 || a2 >= nd || a1 == a2) {
        d2_raise(p->I, "ValueError", "%s: axis1 and axis2 must be two different axes", p->fname);
        return NULL;
    }
    int64_t perm[D2_MAX_DIMS], dims[D2_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < nd; d++)
        if (d != a1 && d != a2)
            perm[k++] = d;
    perm[k++] = a1;
    perm[k++] = a2;
    int64_t r = s->dims[a1], c = s->dims[a2];
    if (r < 0 || c < 0) {
        fail_static_dims(p, "the diagonal's dims");
        return NULL;
    }
    for (int d = 0; d < nd - 2; d++)
        dims[d] = s->dims[perm[d]] < 0 ? -1 : 0;
    int unknown = 0;
    for (int d = 0; d < nd - 2; d++)
        unknown += dims[d] < 0;
    if (unknown > 1) {
        fail_static_dims(p, "the batch dims");
        return NULL;
    }
    dims[nd - 2] = r * c;
    int64_t len = off >= 0 ? (c - off < r ? c - off : r) : (r + off < c ? r + off : c);
    if (len < 0)
        len = 0;
    int64_t start = off >= 0 ? off : -off * c;
    int64_t end = len > 0 ? start + (len - 1) * (c + 1) + 1 : start;
    if (len == 0)
        start = end = 0;
    d2_obj *t = transpose(p, x, perm, nd);
    for (int d = 0; d < nd - 2; d++)
        if (dims[d] == 0)
            dims[d] = s->dims[perm[d]];
    return slice1(p, reshape(p, t, dims, nd - 1), nd - 2, start, end, c + 1);
}

D2_FN(f_diagonal)
{
    POOL("paddle.diagonal");
    int64_t off, a1, a2;
    if (d2_pd_get_int(I, a[1], p->fname, "offset", &off) < 0 ||
        d2_pd_get_int(I, a[2], p->fname, "axis1", &a1) < 0 ||
        d2_pd_get_int(I, a[3], p->fname, "axis2", &a2) < 0)
        return NULL;
    return done(p, diagonal_of(p, T(p, a[0]), off, a1, a2));
}

D2_FN(f_trace)
{
    POOL("paddle.trace");
    int64_t off, a1, a2, last = -1;
    if (d2_pd_get_int(I, a[1], p->fname, "offset", &off) < 0 ||
        d2_pd_get_int(I, a[2], p->fname, "axis1", &a1) < 0 ||
        d2_pd_get_int(I, a[3], p->fname, "axis2", &a2) < 0)
        return NULL;
    return done(p, reduce(p, D2_OP_sum, diagonal_of(p, T(p, a[0]), off, a1, a2), &last, 1, false));
}

/* diag(x, offset=0, padding_value=0): a 1-D x becomes a matrix, a 2-D x gives its diagonal. */
D2_FN(f_diag)
{
    POOL("paddle.diag");
    int64_t off;
    double pad;
    if (d2_pd_get_int(I, a[1], p->fname, "offset", &off) < 0 ||
        d2_pd_get_float(I, a[2], p->fname, "padding_value", &pad) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    if (shp(x)->ndim == 2)
        return done(p, diagonal_of(p, x, off, 0, 1));
    if (shp(x)->ndim != 1)
        return done(p, d2_raise(I, "ValueError", "%s: x must be 1-D or 2-D", p->fname));
    int64_t n = shp(x)->dims[0];
    if (n < 0)
        return fail_static_dims(p, "the length of x") < 0 ? done(p, NULL) : NULL;
    int64_t k = off < 0 ? -off : off, N = n + k;
    /* v padded to N, as a column (offset >= 0: row i holds v[i]) or a row */
    d2_obj *v = x;
    if (k > 0) {
        d2_ab fb;
        d2_ab_init(&fb, D2_OP_full);
        d2_ab_ints(&fb, "shape", &k, 1);
        d2_ab_int(&fb, "dtype", obj_type(x)->dtype);
        d2_obj *z = keep(p, d2_pd_opn(I, p->fname, D2_OP_full, NULL, 0, &fb));
        d2_obj *parts[2] = {x, z};
        d2_ab cb;
        d2_ab_init(&cb, D2_OP_concat);
        v = z ? keep(p, d2_pd_opn(I, p->fname, D2_OP_concat, parts, 2, &cb)) : NULL;
    }
    int64_t col[2] = {N, 1}, row[2] = {1, N}, sq[2] = {N, N};
    d2_obj *vb = expand(p, reshape(p, v, off >= 0 ? col : row, 2), sq, 2);
    d2_ab ab;
    d2_ab_init(&ab, D2_OP_arange);
    d2_ab_float(&ab, "end", (double)N);
    d2_obj *ar = keep(p, d2_pd_opn(I, p->fname, D2_OP_arange, NULL, 0, &ab));
    d2_obj *ri = reshape(p, ar, col, 2), *ci = reshape(p, ar, row, 2);
    d2_obj *ofs = ar ? keep(p, d2_pd_const_tensor(I, 0, off, true, D2_I64)) : NULL;
    d2_obj *mask = B(p, D2_OP_equal, B(p, D2_OP_subtract, ci, ri), ofs);
    return done(p, where3(p, mask, vb, C(p, pad, x)));
}

/* ======================================================================
 * Shapes: moveaxis, atleast_nd, meshgrid, broadcast_tensors, repeat_interleave
 * ====================================================================== */

D2_FN(f_moveaxis)
{
    POOL("paddle.moveaxis");
    int64_t src[D2_MAX_DIMS], dst[D2_MAX_DIMS], perm[D2_MAX_DIMS];
    int ns, nd_;
    if (d2_pd_ints(I, a[1], p->fname, "source", src, &ns, D2_MAX_DIMS) < 0 ||
        d2_pd_ints(I, a[2], p->fname, "destination", dst, &nd_, D2_MAX_DIMS) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    int nd = shp(x)->ndim;
    if (ns != nd_)
        return done(p, d2_raise(I, "ValueError",
                                "%s: source and destination must have the same number of axes",
                                p->fname));
    bool used[D2_MAX_DIMS] = {false}, placed[D2_MAX_DIMS] = {false};
    for (int i = 0; i < ns; i++) {
        src[i] = src[i] < 0 ? src[i] + nd : src[i];
        dst[i] = dst[i] < 0 ? dst[i] + nd : dst[i];
        if (src[i] < 0 || src[i] >= nd || dst[i] < 0 || dst[i] >= nd || used[src[i]] ||
            placed[dst[i]])
            return done(p, d2_raise(I, "ValueError", "%s: bad or repeated axis", p->fname));
        used[src[i]] = placed[dst[i]] = true;
        perm[dst[i]] = src[i];
    }
    int k = 0;
    for (int d = 0; d < nd; d++) {
        if (placed[d])
            continue;
        while (used[k])
            k++;
        perm[d] = k++;
    }
    return done(p, transpose(p, x, perm, nd));
}

/* atleast_1d/2d/3d(*inputs): one tensor, or a list for several. */
static d2_obj *atleast(d2_interp *I, const char *fname, d2_obj *args, int want)
{
    POOL(fname);
    size_t n = seq_len(args);
    d2_obj *list = n == 1 ? NULL : keep(p, d2_list_new(I, 0));
    for (size_t i = 0; i < n; i++) {
        d2_obj *x = T(p, seq_item(args, i));
        if (!x || (n != 1 && !list))
            return done(p, NULL);
        const d2_shape *s = shp(x);
        if (s->ndim < want) {
            /* numpy's rules: 0-D -> [1]*want; 1-D [n] -> [1, n] (3-D: [1, n, 1]); 2-D -> [m, n, 1] */
            int64_t dims[3] = {1, 1, 1};
            int k = want;
            for (int d = 0; d < s->ndim; d++)
                dims[want == 3 && s->ndim == 2 ? d : s->ndim == 1 ? 1 : d] =
                    s->dims[d] < 0 ? 0 : s->dims[d];
            x = reshape(p, x, dims, k);
        }
        if (n == 1)
            return done(p, x);
        if (!x || d2_list_append(I, list, x) < 0)
            return done(p, NULL);
    }
    return done(p, list);
}

D2_FN(f_atleast_1d) { return atleast(I, "paddle.atleast_1d", a[0], 1); }
D2_FN(f_atleast_2d) { return atleast(I, "paddle.atleast_2d", a[0], 2); }
D2_FN(f_atleast_3d) { return atleast(I, "paddle.atleast_3d", a[0], 3); }

/* meshgrid(*args): each 1-D input reshaped along its own axis and expanded ('ij'). */
D2_FN(f_meshgrid)
{
    POOL("paddle.meshgrid");
    d2_obj *args = a[0];
    if (seq_len(args) == 1 && is_seq(seq_item(args, 0)))
        args = seq_item(args, 0);
    size_t n = seq_len(args);
    if (n == 0 || n > D2_MAX_DIMS)
        return d2_raise(I, "ValueError", "%s: expected 1 to %d tensors", p->fname, D2_MAX_DIMS);
    int64_t full[D2_MAX_DIMS];
    d2_obj *xs[D2_MAX_DIMS];
    for (size_t i = 0; i < n; i++) {
        xs[i] = T(p, seq_item(args, i));
        if (!xs[i])
            return done(p, NULL);
        if (shp(xs[i])->ndim > 1)
            return done(p, d2_raise(I, "ValueError", "%s: every input must be 0-D or 1-D",
                                    p->fname));
        if (obj_type(xs[i])->dtype != obj_type(xs[0])->dtype)
            return done(p, d2_raise(I, "ValueError",
                                    "%s: the inputs must have one dtype, got %s and %s", p->fname,
                                    dtname(obj_type(xs[0])->dtype), dtname(obj_type(xs[i])->dtype)));
        full[i] = shp(xs[i])->ndim ? shp(xs[i])->dims[0] : 1;
        if (full[i] < 0)
            return fail_static_dims(p, "the lengths of the inputs") < 0 ? done(p, NULL) : NULL;
    }
    d2_obj *list = keep(p, d2_list_new(I, 0));
    for (size_t i = 0; list && i < n; i++) {
        int64_t dims[D2_MAX_DIMS];
        for (size_t d = 0; d < n; d++)
            dims[d] = d == i ? full[i] : 1;
        d2_obj *r = expand(p, reshape(p, xs[i], dims, (int)n), full, (int)n);
        if (!r || d2_list_append(I, list, r) < 0)
            return done(p, NULL);
    }
    return done(p, list);
}

/* broadcast_tensors(input): every tensor expanded to the common (static) shape. */
D2_FN(f_broadcast_tensors)
{
    POOL("paddle.broadcast_tensors");
    if (!is_seq(a[0]) || seq_len(a[0]) == 0)
        return d2_raise(I, "TypeError", "%s: input must be a non-empty list of Tensors", p->fname);
    size_t n = seq_len(a[0]);
    d2_shape s = {0};
    for (size_t i = 0; i < n; i++) {
        d2_obj *x = T(p, seq_item(a[0], i));
        if (!x)
            return done(p, NULL);
        const d2_shape *xs = shp(x);
        d2_shape r = {0};
        r.ndim = xs->ndim > s.ndim ? xs->ndim : s.ndim;
        for (int d = 0; d < r.ndim; d++) {
            int xi = d - (r.ndim - xs->ndim), si = d - (r.ndim - s.ndim);
            int64_t u = xi >= 0 ? xs->dims[xi] : 1, v = si >= 0 ? s.dims[si] : 1;
            if (u != v && u != 1 && v != 1)
                return done(p, d2_raise(I, "ValueError", "%s: shapes cannot be broadcast together",
                                        p->fname));
            r.dims[d] = u == 1 ? v : u;
        }
        s = r;
    }
    d2_obj *list = keep(p, d2_list_new(I, 0));
    for (size_t i = 0; list && i < n; i++) {
        d2_obj *r = expand(p, T(p, seq_item(a[0], i)), s.dims, s.ndim);
        if (!r || d2_list_append(I, list, r) < 0)
            return done(p, NULL);
    }
    return done(p, list);
}

/* repeat_interleave(x, repeats, axis=None): an int repeats each element;
 * a 1-D tensor of repeats (concrete) gives per-element counts. */
D2_FN(f_repeat_interleave)
{
    POOL("paddle.repeat_interleave");
    d2_obj *x = T(p, a[0]);
    int64_t axis = 0;
    if (!x || (!is_none(I, a[2]) && d2_pd_get_int(I, a[2], p->fname, "axis", &axis) < 0))
        return done(p, NULL);
    if (is_none(I, a[2])) {
        int64_t m1 = -1;
        x = reshape(p, x, &m1, 1);
    }
    if (!x)
        return done(p, NULL);
    const d2_shape *s = shp(x);
    int nd = s->ndim;
    axis = axis < 0 ? axis + nd : axis;
    if (axis < 0 || axis >= nd)
        return done(p, d2_raise(I, "ValueError", "%s: axis is out of range", p->fname));
    if (is_tensor(a[1])) {
        if (is_sym(a[1]))
            return done(p, d2_raise(I, "TypeError",
                                    "%s: repeats must be a concrete tensor here", p->fname));
        d2_tensor *h = d2_pd_host(I, a[1], p->fname);
        if (!h)
            return done(p, NULL);
        int64_t n = d2_tensor_numel(h), len = s->dims[axis], total = 0;
        if (n != len && n != 1) {
            d2_tensor_unref(h);
            return done(p, d2_raise(I, "ValueError",
                                    "%s: repeats must have one value per element of the axis",
                                    p->fname));
        }
        for (int64_t i = 0; i < len; i++) {
            int64_t r = d2_tensor_get_i64(h, n == 1 ? 0 : i);
            if (r < 0 || !d2_add_i64(total, r, &total)) {
                d2_tensor_unref(h);
                return done(p, d2_raise(I, "ValueError", "%s: bad repeats", p->fname));
            }
        }
        d2_err err = {0};
        d2_tensor *idx = d2_tensor_new(NULL, D2_I64, 1, &total, &err);
        if (!idx) {
            d2_tensor_unref(h);
            d2_raise_err(I, &err);
            return done(p, NULL);
        }
        int64_t *iv = d2_tensor_data(idx), k = 0;
        for (int64_t i = 0; i < len; i++)
            for (int64_t r = d2_tensor_get_i64(h, n == 1 ? 0 : i); r > 0; r--)
                iv[k++] = i;
        d2_tensor_unref(h);
        d2_obj *io = keep(p, d2_pd_wrap_host(I, idx));
        d2_ab b;
        d2_ab_init(&b, D2_OP_index_select);
        d2_ab_int(&b, "axis", axis);
        return done(p, io ? keep(p, op2(I, p->fname, D2_OP_index_select, x, io, &b)) : NULL);
    }
    int64_t rep;
    if (d2_pd_get_int(I, a[1], p->fname, "repeats", &rep) < 0)
        return done(p, NULL);
    if (rep < 0)
        return done(p, d2_raise(I, "ValueError", "%s: repeats must not be negative", p->fname));
    if (nd + 1 > D2_MAX_DIMS)
        return done(p, d2_raise(I, "ValueError", "%s: too many dims", p->fname));
    int64_t up[D2_MAX_DIMS], out[D2_MAX_DIMS];
    for (int d = 0, k = 0; d < nd; d++) {
        if (s->dims[d] < 0 && d != axis)
            return fail_static_dims(p, "the dims of x outside axis") < 0 ? done(p, NULL) : NULL;
        up[k++] = s->dims[d] < 0 ? -1 : s->dims[d];
        if (d == axis)
            up[k++] = 1;
        out[d] = d == axis ? -1 : s->dims[d];
    }
    d2_obj *u = reshape(p, x, up, nd + 1);
    int64_t rt[D2_MAX_DIMS];
    for (int d = 0; d <= nd; d++)
        rt[d] = d == axis + 1 ? rep : 1;
    d2_ab tb;
    d2_ab_init(&tb, D2_OP_tile);
    d2_ab_ints(&tb, "repeat_times", rt, nd + 1);
    d2_obj *t = u ? keep(p, op1(I, p->fname, D2_OP_tile, u, &tb)) : NULL;
    return done(p, reshape(p, t, out, nd));
}

/* masked_select(x, mask): the elements where mask (broadcast) is true, 1-D; eager only. */
D2_FN(f_masked_select)
{
    POOL("paddle.masked_select");
    d2_obj *x = T(p, a[0]), *m = T(p, a[1]);
    if (!x || !m)
        return done(p, NULL);
    if (is_sym(x) || is_sym(m))
        return done(p, d2_raise(I, "TypeError",
                                "%s: the result's size depends on the data, which a static "
                                "Program cannot express; use paddle.where",
                                p->fname));
    d2_obj *pair = keep(p, tuple_new(I, 2));
    if (!pair)
        return done(p, NULL);
    D2_AS(d2_tuple, pair)->items[0] = d2_incref(x);
    D2_AS(d2_tuple, pair)->items[1] = d2_incref(cast(p, m, D2_BOOL));
    d2_obj *lst = keep(p, f_broadcast_tensors(I, NULL, &pair, def));
    if (!lst)
        return done(p, NULL);
    int64_t m1 = -1;
    d2_obj *fx = reshape(p, D2_AS(d2_list, lst)->items[0], &m1, 1);
    d2_obj *fm = reshape(p, D2_AS(d2_list, lst)->items[1], &m1, 1);
    d2_tensor *h = fm ? d2_pd_host(I, fm, p->fname) : NULL;
    if (!h)
        return done(p, NULL);
    int64_t n = d2_tensor_numel(h), cnt = 0;
    for (int64_t i = 0; i < n; i++)
        cnt += d2_tensor_get_i64(h, i) != 0;
    d2_err err = {0};
    d2_tensor *idx = d2_tensor_new(NULL, D2_I64, 1, &cnt, &err);
    if (!idx) {
        d2_tensor_unref(h);
        d2_raise_err(I, &err);
        return done(p, NULL);
    }
    int64_t *iv = d2_tensor_data(idx), k = 0;
    for (int64_t i = 0; i < n; i++)
        if (d2_tensor_get_i64(h, i))
            iv[k++] = i;
    d2_tensor_unref(h);
    d2_obj *io = keep(p, d2_pd_wrap_host(I, idx));
    return done(p, io ? keep(p, op2(I, p->fname, D2_OP_index_select, fx, io, NULL)) : NULL);
}

/* ======================================================================
 * einsum: every operand's letters aligned on one list (transpose, then
 * unsqueeze the missing ones), multiplied with broadcasting, summed over
 * the letters not in the output, and transposed to the output's order.
 * An ellipsis becomes letters the equation does not use (right-aligned over
 * each operand's remaining dims, broadcast as usual); no letter repeated
 * within one operand.
 * ====================================================================== */

/* The equation with each '...' spelled out as unused letters and the output
 * made explicit (the ellipsis dims first, then the letters that occur once,
 * in order), written to buf; 0, or -1 with an exception. */
static int einsum_expand(pool *p, const char *eq, d2_obj *ops, char *buf, size_t cap)
{
    d2_interp *I = p->I;
    const char *arrow = strstr(eq, "->");
    size_t nops = seq_len(ops), t = 0;
    int ell[D2_MAX_DIMS + 1], n_ell = 0, count[128] = {0};
    bool used[128] = {false};
    for (const char *c = eq; *c; c++)
        if ((unsigned char)*c < 128)
            used[(int)*c] = true;
    /* each term's ellipsis width: the operand's dims its letters leave */
    const char *c = eq;
    for (;; t++) {
        int letters = 0;
        bool has = false;
        for (; *c && *c != ',' && c != arrow; c++) {
            if (*c == '.') {
                if (strncmp(c, "...", 3) != 0 || has)
                    return (d2_raise(I, "ValueError", "%s: a term may hold one '...'",
                                    p->fname), -1);
                has = true;
                c += 2;
            } else if (*c != ' ') {
                letters++;
                count[(int)(unsigned char)*c & 127]++;
            }
        }
        if (t >= nops || t >= D2_MAX_DIMS)
            return (d2_raise(I, "ValueError", "%s: more terms than operands", p->fname), -1);
        d2_obj *x = T(p, seq_item(ops, t));
        if (!x)
            return -1;
        ell[t] = has ? shp(x)->ndim - letters : 0;
        if (ell[t] < 0)
            return (d2_raise(I, "ValueError", "%s: operand %zu has %d dims but its term names %d",
                            p->fname, t, shp(x)->ndim, letters), -1);
        n_ell = ell[t] > n_ell ? ell[t] : n_ell;
        if (*c != ',')
            break;
        c++;
    }
    char el[D2_MAX_DIMS + 1];
    int ne = 0;
    for (int ch = 'A'; ch <= 'z' && ne < n_ell; ch++)
        if (((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')) && !used[ch])
            el[ne++] = (char)ch;
    if (ne < n_ell)
        return (d2_raise(I, "ValueError", "%s: too many dims", p->fname), -1);
    size_t k = 0;
    t = 0;
#define PUT(ch)                                                                                        do {                                                                                                   if (k + 1 >= cap)                                                                                      return (d2_raise(I, "ValueError", "%s: the equation is too long", p->fname), -1);         buf[k++] = (ch);                                                                               } while (0)
    for (c = eq; *c && c != arrow; c++) {
        if (*c == ',') {
            t++;
            PUT(',');
        } else if (*c == '.') {
            for (int i = n_ell - ell[t]; i < n_ell; i++)
                PUT(el[i]);
            c += 2;
        } else if (*c != ' ') {
            PUT(*c);
        }
    }
    PUT('-');
    PUT('>');
    if (arrow) {
        for (c = arrow + 2; *c; c++) {
            if (*c == '.') {
                if (strncmp(c, "...", 3) != 0)
                    return (d2_raise(I, "ValueError", "%s: bad '...'", p->fname), -1);
                for (int i = 0; i < n_ell; i++)
                    PUT(el[i]);
                c += 2;
            } else if (*c != ' ') {
                PUT(*c);
            }
        }
    } else {
        for (int i = 0; i < n_ell; i++)
            PUT(el[i]);
        for (int ch = 'A'; ch <= 'z'; ch++)
            if (count[ch] == 1)
                PUT((char)ch);
    }
#undef PUT
    buf[k] = 0;
    return 0;
}

D2_FN(f_einsum)
{
    POOL("paddle.einsum");
    const char *eq = d2_pd_get_str(I, a[0], p->fname, "equation");
    if (!eq)
        return NULL;
    d2_obj *ops = a[1];
    if (seq_len(ops) == 1 && is_seq(seq_item(ops, 0)))
        ops = seq_item(ops, 0);
    size_t nops = seq_len(ops);
    char expanded[256];
    if (strstr(eq, "...")) {
        if (einsum_expand(p, eq, ops, expanded, sizeof expanded) < 0)
            return done(p, NULL);
        eq = expanded;
    }
    char terms[D2_MAX_DIMS + 1][D2_MAX_DIMS + 1];
    char out[D2_MAX_DIMS + 1] = {0};
    size_t nt = 0, k = 0;
    bool arrow = false;
    int count[128] = {0};
    for (const char *c = eq;; c++) {
        if (*c == ' ')
            continue;
        if (*c == ',' || *c == 0 || (*c == '-' && c[1] == '>')) {
            if (!arrow) {
                if (nt >= D2_MAX_DIMS)
                    return done(p, d2_raise(I, "ValueError", "%s: too many operands", p->fname));
                terms[nt][k] = 0;
                nt++;
            } else {
                out[k] = 0;
            }
            k = 0;
            if (*c == 0)
                break;
            if (*c == '-') {
                if (arrow)
                    return done(p, d2_raise(I, "ValueError", "%s: bad equation", p->fname));
                arrow = true;
                c++;
            }
            continue;
        }
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')) || k >= D2_MAX_DIMS)
            return done(p, d2_raise(I, "ValueError",
                                    "%s: only letters and '...' are supported in the equation, "
                                    "at most %d per term",
                                    p->fname, D2_MAX_DIMS));
        if (arrow)
            out[k++] = *c;
        else {
            terms[nt][k++] = *c;
            count[(int)*c]++;
        }
    }
    if (nt != nops)
        return done(p, d2_raise(I, "ValueError",
                                "%s: the equation has %zu operands but %zu were given", p->fname,
                                nt, nops));
    if (!arrow) {
        for (int ch = 'A'; ch <= 'z'; ch++)
            if (count[ch] == 1 && k < D2_MAX_DIMS)
                out[k++] = (char)ch;
        out[k] = 0;
    }
    /* all letters: the output's first, then the summed ones */
    char all[2 * D2_MAX_DIMS + 1];
    size_t na = 0;
    for (const char *c = out; *c; c++)
        all[na++] = *c;
    for (int ch = 'A'; ch <= 'z'; ch++)
        if (count[ch] && !strchr(out, ch)) {
            if (na >= D2_MAX_DIMS)
                return done(p, d2_raise(I, "ValueError", "%s: more than %d letters", p->fname,
                                        D2_MAX_DIMS));
            all[na++] = (char)ch;
        }
    all[na] = 0;
    d2_obj *acc = NULL;
    for (size_t i = 0; i < nt; i++) {
        d2_obj *x = T(p, seq_item(ops, i));
        if (!x)
            return done(p, NULL);
        size_t tl = strlen(terms[i]);
        if ((int)tl != shp(x)->ndim)
            return done(p, d2_raise(I, "ValueError",
                                    "%s: operand %zu has %d dims but its term '%s' has %zu",
                                    p->fname, i, shp(x)->ndim, terms[i], tl));
        int64_t perm[D2_MAX_DIMS], dims[D2_MAX_DIMS];
        size_t pk = 0;
        for (size_t l = 0; l < na; l++) {
            const char *at = strchr(terms[i], all[l]);
            if (at) {
                if (strchr(at + 1, all[l]))
                    return done(p, d2_raise(I, "ValueError",
                                            "%s: a letter repeated within one term is not "
                                            "supported",
                                            p->fname));
                perm[pk++] = at - terms[i];
            }
        }
        x = transpose(p, x, perm, (int)pk);
        if (!x)
            return done(p, NULL);
        pk = 0;
        for (size_t l = 0; l < na; l++)
            dims[l] = strchr(terms[i], all[l]) ? shp(x)->dims[pk++] : 1;
        for (size_t l = 0; l < na; l++)
            if (dims[l] < 0) {
                int unknown = 0;
                for (size_t q = 0; q < na; q++)
                    unknown += dims[q] < 0;
                if (unknown > 1)
                    return fail_static_dims(p, "the operands' dims") < 0 ? done(p, NULL) : NULL;
            }
        x = reshape(p, x, dims, (int)na);
        acc = acc ? B(p, D2_OP_multiply, acc, x) : x;
        if (!acc)
            return done(p, NULL);
    }
    size_t no = strlen(out);
    if (na > no) {
        int64_t ax[D2_MAX_DIMS];
        for (size_t l = no; l < na; l++)
            ax[l - no] = (int64_t)l;
        acc = reduce(p, D2_OP_sum, acc, ax, (int)(na - no), false);
    }
    return done(p, acc);
}

/* ======================================================================
 * In-place variants: the functional form, then its result written back
 * ====================================================================== */

/* x takes r's value: eagerly its data is overwritten (views of it see the
 * change) when shape and dtype agree, else x's tensor is replaced; while a
 * Program is built x comes to stand for r's variable. */
static int write_back(d2_interp *I, const char *fname, d2_obj *x, d2_obj *r)
{
    if (!is_tensor(x) || !is_tensor(r)) {
        d2_raise(I, "TypeError", "%s: expected a Tensor", fname);
        return -1;
    }
    if (is_sym(x) || is_sym(r)) {
        if (!is_sym(x) || !is_sym(r) || !d2_pd_sym_in_current_block(I, x) ||
            TOBJ(x)->builder != TOBJ(r)->builder) {
            d2_raise(I, "TypeError",
                     "%s: an in-place op on a tensor defined outside the current branch or "
                     "loop body is not supported here; use the functional form",
                     fname);
            return -1;
        }
        d2_pd_sym_rebind(x, r);
        return 0;
    }
    if (D2_MODE(I)->tracer)
        trace_frozen(I, x, D2_FREEZE_SETITEM);
    d2_tensor *xt = TOBJ(x)->t, *rt = TOBJ(r)->t;
    d2_shape xs, rs;
    d2_tensor_get_shape(xt, &xs);
    d2_tensor_get_shape(rt, &rs);
    if (xt->dtype == rt->dtype && d2_shape_equal(&xs, &rs) && d2_tensor_is_contiguous(xt) &&
        xt->storage && rt->storage && xt->storage->backend == rt->storage->backend &&
        d2_tensor_is_contiguous(rt)) {
        size_t es = d2_dtype_size(xt->dtype), n = (size_t)d2_tensor_numel(xt) * es;
        d2_err err = {0};
        d2_backend *be = xt->storage->backend;
        if (n && be->copy(be, xt->storage->data, (size_t)xt->offset * es, rt->storage->data,
                          (size_t)rt->offset * es, n, &err) < 0) {
            d2_raise_err(I, &err);
            return -1;
        }
        return 0;
    }
    d2_tensor_unref(xt);
    TOBJ(x)->t = d2_tensor_ref(rt);
    TOBJ(x)->type = TOBJ(r)->type;
    return 0;
}

/* Rows NAME_ forward to the function NAME of paddle (or of paddle.nn.functional
 * for names listed with F), then write the result back into x; def->data is
 * the functional name. */
D2_FN(f_inplace)
{
    const char *base = def->data;
    const char *fname = def->qualname;
    pd_state *s = ST(I);
    bool func = strncmp(fname, "paddle.nn.functional.", 21) == 0;
    d2_obj *fn = d2_dict_get_str(I, (func ? s->F : s->paddle)->dict, base);
    if (!fn)
        return d2_raise(I, "AttributeError", "%s: no function %s", fname, base);
    d2_obj *args = a[1];
    size_t n = seq_len(args);
    d2_obj *argv[16];
    if (n + 1 > 16)
        return d2_raise(I, "TypeError", "%s: too many arguments", fname);
    argv[0] = a[0];
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = seq_item(args, i);
    d2_obj *r = d2_call(I, fn, argv, n + 1, D2_AS(d2_dict, a[2]));
    if (!r)
        return NULL;
    int rc = write_back(I, fname, a[0], r);
    d2_decref(r);
    return rc < 0 ? NULL : d2_incref(a[0]);
}

/* fill_(value) and zero_(): Tensor methods. */
static d2_obj *fill_with(d2_interp *I, const char *fname, d2_obj *x, d2_obj *value)
{
    POOL(fname);
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: expected a Tensor", p->fname);
    double v = 0;
    if (value && d2_pd_get_float(I, value, p->fname, "value", &v) < 0)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_full_like);
    d2_ab_float(&b, "value", v);
    d2_obj *r = keep(p, op1(I, p->fname, D2_OP_full_like, x, &b));
    if (!r || write_back(I, p->fname, x, r) < 0)
        return done(p, NULL);
    done(p, NULL);
    return d2_incref(x);
}

D2_FN(f_fill_) { return fill_with(I, "Tensor.fill_", a[0], a[1]); }
D2_FN(f_zero_) { return fill_with(I, "Tensor.zero_", a[0], NULL); }

/* Paddle 2.6's in-place names: in paddle and as Tensor methods (BOTH), in
 * paddle only, as Tensor methods only, in paddle.nn.functional. */
#define INPLACE_BOTH(X)                                                                            \
    X(abs) X(acos) X(asin) X(atan) X(sinh) X(cosh) X(tan) X(sin) X(cos) X(log) X(log2) X(log10)   \
    X(log1p) X(trunc) X(frac) X(neg) X(tanh) X(lgamma) X(digamma) X(logit) X(multiply) X(divide)  \
    X(floor_divide) X(remainder) X(mod) X(floor_mod) X(pow) X(cast) X(reshape) X(squeeze)          \
    X(unsqueeze) X(transpose) X(tril) X(triu) X(cumsum) X(cumprod) X(masked_fill) X(scatter)       \
    X(nan_to_num) X(equal) X(not_equal) X(less_than) X(less_equal) X(greater_than)                 \
    X(greater_equal) X(logical_and) X(logical_or) X(logical_xor) X(logical_not) X(bitwise_and)     \
    X(bitwise_or) X(bitwise_xor) X(bitwise_not) X(index_fill) X(index_add) X(hypot) X(addmm) X(t)   \
    X(gcd) X(lcm)                                                                                  \
    X(index_put)
#define INPLACE_P_ONLY(X) X(expm1) X(square) X(erf)
#define INPLACE_M_ONLY(X)                                                                          \
    X(exp) X(sqrt) X(rsqrt) X(reciprocal) X(floor) X(ceil) X(round) X(sigmoid) X(erfinv) X(add)    \
    X(subtract) X(scale) X(clip) X(flatten) X(put_along_axis) X(lerp) X(acosh) X(asinh) X(atanh)
#define INPLACE_F(X)                                                                               \
    X(relu) X(elu) X(softmax) X(tanh) X(hardtanh) X(leaky_relu) X(thresholded_relu)

#define INPLACE_ROW(n) D2_DEF_DATA(#n "_", "x, *args, **kwargs", f_inplace, "paddle." #n "_", #n),
static const d2_def INPLACE_DEFS[] = {INPLACE_BOTH(INPLACE_ROW)};
static const d2_def INPLACE_P_DEFS[] = {INPLACE_P_ONLY(INPLACE_ROW)};
static const d2_def INPLACE_M_DEFS[] = {INPLACE_M_ONLY(INPLACE_ROW)};
#undef INPLACE_ROW

static const d2_def INPLACE_F_DEFS[] = {
#define X(n) D2_DEF_DATA(#n "_", "x, *args, **kwargs", f_inplace, "paddle.nn.functional." #n "_", #n),
    INPLACE_F(X)
#undef X
};

static const d2_def TENSOR_ONLY_DEFS[] = {
    D2_DEF("fill_", "x, value", f_fill_, "Tensor.fill_"),
    D2_DEF("zero_", "x", f_zero_, "Tensor.zero_"),
};

/* ======================================================================
 * index_add / index_fill (composed of scatter over the moved axis)
 * ====================================================================== */

/* x with its axis moved to the front; *perm receives the permutation (its own inverse is computed by the caller). */
static d2_obj *axis_front(pool *p, d2_obj *x, int64_t axis, int64_t *perm, int *nd)
{
    if (!x)
        return NULL;
    *nd = shp(x)->ndim;
    axis = axis < 0 ? axis + *nd : axis;
    if (axis < 0 || axis >= *nd) {
        d2_raise(p->I, "ValueError", "%s: axis is out of range", p->fname);
        return NULL;
    }
    int k = 0;
    perm[k++] = axis;
    for (int d = 0; d < *nd; d++)
        if (d != axis)
            perm[k++] = d;
    return transpose(p, x, perm, *nd);
}

static d2_obj *axis_back(pool *p, d2_obj *x, const int64_t *perm, int nd)
{
    int64_t inv[D2_MAX_DIMS];
    for (int d = 0; d < nd; d++)
        inv[perm[d]] = d;
    return transpose(p, x, inv, nd);
}

/* index_add(x, index, axis, value): rows of value added at index along axis. */
D2_FN(f_index_add)
{
    POOL("paddle.index_add");
    int64_t axis, perm[D2_MAX_DIMS];
    int nd;
    if (d2_pd_get_int(I, a[2], p->fname, "axis", &axis) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]), *idx = T(p, a[1]), *v = T(p, a[3]);
    d2_obj *xt = axis_front(p, x, axis, perm, &nd);
    d2_obj *vt = xt && v ? transpose(p, cast(p, v, obj_type(x)->dtype), perm, nd) : NULL;
    d2_obj *zero = xt ? keep(p, op1(I, p->fname, D2_OP_full_like, xt, NULL)) : NULL;
    if (!vt || !zero || !idx)
        return done(p, NULL);
    /* scatter(overwrite=False) zeroes the picked rows before summing: start from zeros, add x */
    d2_obj *in[3] = {zero, idx, vt};
    d2_ab b;
    d2_ab_init(&b, D2_OP_scatter);
    d2_ab_bool(&b, "overwrite", false);
    d2_obj *acc = keep(p, d2_pd_opn(I, p->fname, D2_OP_scatter, in, 3, &b));
    return done(p, axis_back(p, B(p, D2_OP_add, xt, acc), perm, nd));
}

/* index_fill(x, index, axis, value): rows at index along axis set to value. */
D2_FN(f_index_fill)
{
    POOL("paddle.index_fill");
    int64_t axis, perm[D2_MAX_DIMS];
    int nd;
    if (d2_pd_get_int(I, a[2], p->fname, "axis", &axis) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]), *idx = T(p, a[1]);
    d2_obj *xt = axis_front(p, x, axis, perm, &nd);
    if (!xt || !idx)
        return done(p, NULL);
    int64_t m1 = -1;
    idx = reshape(p, idx, &m1, 1);
    d2_obj *rows = keep(p, op2(I, p->fname, D2_OP_gather, xt, idx, NULL));
    d2_obj *val = is_tensor(a[3]) ? cast(p, a[3], obj_type(x)->dtype)
                                  : keep(p, d2_pd_scalar_tensor(I, a[3], obj_type(x)->dtype));
    d2_obj *upd = rows && val ? B(p, D2_OP_add, B(p, D2_OP_multiply, rows, C(p, 0, rows)), val)
                              : NULL;
    if (!upd)
        return done(p, NULL);
    d2_obj *in[3] = {xt, idx, upd};
    d2_obj *r = keep(p, d2_pd_opn(I, p->fname, D2_OP_scatter, in, 3, NULL));
    return done(p, axis_back(p, r, perm, nd));
}

/* ======================================================================
 * Small queries: rank, is_empty
 * ====================================================================== */

D2_FN(f_rank)
{
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "paddle.rank: input must be a Tensor");
    return d2_pd_const_tensor(I, 0, obj_type(a[0])->shape.ndim, true, D2_I32);
}

D2_FN(f_is_empty)
{
    POOL("paddle.is_empty");
    d2_obj *x = T(p, a[0]);
    d2_obj *n = U(p, D2_OP_numel, x);
    return done(p, B(p, D2_OP_equal, n, C(p, 0, n)));
}

/* ======================================================================
 * More composites: elementwise, shapes, statistics and searches
 * ====================================================================== */

/* paddle.NAME(args...) through the module (its own checks and messages). */
static d2_obj *call_paddle(pool *p, const char *name, d2_obj **args, size_t n)
{
    d2_obj *fn = d2_dict_get_str(p->I, ST(p->I)->paddle->dict, name);
    if (!fn) {
        d2_raise(p->I, "RuntimeError", "internal: no paddle.%s", name);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!args[i])
            return NULL;
    return keep(p, d2_call(p->I, fn, args, n, NULL));
}

/* A float tensor: integers (and bool) cast to dt. */
static d2_obj *as_float(pool *p, d2_obj *x, d2_dtype dt)
{
    return x && !d2_dtype_is_float(obj_type(x)->dtype) ? cast(p, x, dt) : x;
}

/* logaddexp(x, y) = max + log1p(exp(-|x - y|)) */
D2_FN(f_logaddexp)
{
    POOL("paddle.logaddexp");
    d2_obj *x = as_float(p, T(p, a[0]), D2_F32), *y = as_float(p, T(p, a[1]), D2_F32);
    d2_obj *m = B(p, D2_OP_maximum, x, y);
    d2_obj *d = U(p, D2_OP_neg, U(p, D2_OP_abs, B(p, D2_OP_subtract, x, y)));
    return done(p, B(p, D2_OP_add, m, U(p, D2_OP_log1p, U(p, D2_OP_exp, d))));
}

/* hypot(x, y) = sqrt(x^2 + y^2) */
D2_FN(f_hypot)
{
    POOL("paddle.hypot");
    d2_obj *x = as_float(p, T(p, a[0]), D2_F32), *y = as_float(p, T(p, a[1]), D2_F32);
    return done(p, U(p, D2_OP_sqrt, B(p, D2_OP_add, U(p, D2_OP_square, x), U(p, D2_OP_square, y))));
}

static d2_obj *scaled(d2_interp *I, const char *fname, d2_obj *xo, double s)
{
    POOL(fname);
    return done(p, scale(p, as_float(p, T(p, xo), D2_F32), s, 0));
}

D2_FN(f_deg2rad) { return scaled(I, "paddle.deg2rad", a[0], M_PI / 180); }
D2_FN(f_rad2deg) { return scaled(I, "paddle.rad2deg", a[0], 180 / M_PI); }

/* sgn: sign for real tensors */
D2_FN(f_sgn)
{
    POOL("paddle.sgn");
    return done(p, U(p, D2_OP_sign, T(p, a[0])));
}

/* atan2(x, y): the angle of (y, x) as numpy's arctan2(x, y); integers in float64 */
D2_FN(f_atan2)
{
    POOL("paddle.atan2");
    d2_obj *y = as_float(p, T(p, a[0]), D2_F64), *x = as_float(p, T(p, a[1]), D2_F64);
    d2_obj *base = U(p, D2_OP_atan, B(p, D2_OP_divide, y, x));
    d2_obj *z = C(p, 0, x);
    d2_obj *left = where3(p, B(p, D2_OP_greater_equal, y, z), scale(p, base, 1, M_PI),
                          scale(p, base, 1, -M_PI));
    d2_obj *axis = where3(p, B(p, D2_OP_greater_than, y, z), C(p, M_PI / 2, x),
                          where3(p, B(p, D2_OP_less_than, y, z), C(p, -M_PI / 2, x), z));
    d2_obj *r = where3(p, B(p, D2_OP_greater_than, x, z), base,
                       where3(p, B(p, D2_OP_less_than, x, z), left, axis));
    return done(p, r);
}

/* take(x, index, mode='raise'): elements of the flattened x; negative indices
 * count from the end; 'wrap' wraps, 'clip' clamps. */
D2_FN(f_take)
{
    POOL("paddle.take");
    const char *mode = d2_pd_get_str(I, a[2], p->fname, "mode");
    if (!mode)
        return NULL;
    if (strcmp(mode, "raise") && strcmp(mode, "wrap") && strcmp(mode, "clip"))
        return d2_raise(I, "ValueError", "%s: mode must be 'raise', 'wrap' or 'clip', got '%s'",
                        p->fname, mode);
    d2_obj *x = T(p, a[0]), *idx = T(p, a[1]);
    if (!x || !idx)
        return done(p, NULL);
    int64_t m1 = -1, n = 1;
    for (int d = 0; d < shp(x)->ndim; d++)
        n = shp(x)->dims[d] < 0 || n < 0 ? -1 : n * shp(x)->dims[d];
    if (n < 0)
        return fail_static_dims(p, "the dims of x") < 0 ? done(p, NULL) : NULL;
    d2_obj *flat = reshape(p, x, &m1, 1);
    idx = cast(p, idx, D2_I64);
    d2_obj *nn = keep(p, d2_pd_const_tensor(I, 0, n, true, D2_I64));
    if (strcmp(mode, "wrap") == 0) {
        idx = B(p, D2_OP_remainder, idx, nn);
    } else if (strcmp(mode, "clip") == 0) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_clip);
        d2_ab_float(&b, "min", 0);
        d2_ab_float(&b, "max", (double)(n - 1));
        idx = idx ? keep(p, op1(I, p->fname, D2_OP_clip, idx, &b)) : NULL;
    } else {
        idx = where3(p, B(p, D2_OP_less_than, idx, C(p, 0, idx)), B(p, D2_OP_add, idx, nn), idx);
    }
    if (!idx)
        return done(p, NULL);
    const d2_shape *is = shp(idx);
    d2_obj *fi = reshape(p, idx, &m1, 1);
    d2_obj *g = fi ? keep(p, op2(I, p->fname, D2_OP_gather, flat, fi, NULL)) : NULL;
    int64_t dims[D2_MAX_DIMS];
    for (int d = 0; d < is->ndim; d++)
        dims[d] = is->dims[d] < 0 ? 0 : is->dims[d];
    return done(p, reshape(p, g, dims, is->ndim));
}

/* unstack(x, axis=0, num=None): unbind */
D2_FN(f_unstack)
{
    POOL("paddle.unstack");
    d2_obj *args[2] = {a[0], a[1]};
    return done(p, call_paddle(p, "unbind", args, 2));
}

/* vsplit(x, num_or_sections): split along axis 0 of an at least 2-D tensor */
D2_FN(f_vsplit)
{
    POOL("paddle.vsplit");
    d2_obj *x = T(p, a[0]);
    if (x && shp(x)->ndim < 2)
        return done(p, d2_raise(I, "ValueError",
                                "%s: the input must have at least 2 dims, got %d", p->fname,
                                shp(x)->ndim));
    d2_obj *zero = keep(p, d2_int_new(I, 0));
    d2_obj *args[3] = {x, a[1], zero};
    return done(p, call_paddle(p, "split", args, 3));
}

/* unflatten(x, axis, shape): axis replaced by the dims of shape (one may be -1) */
D2_FN(f_unflatten)
{
    POOL("paddle.unflatten");
    int64_t axis, sh[D2_MAX_DIMS];
    int ns;
    if (d2_pd_get_int(I, a[1], p->fname, "axis", &axis) < 0 ||
        d2_pd_ints(I, a[2], p->fname, "shape", sh, &ns, D2_MAX_DIMS) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    const d2_shape *s = shp(x);
    int nd = s->ndim;
    axis = axis < 0 ? axis + nd : axis;
    if (axis < 0 || axis >= nd || nd - 1 + ns > D2_MAX_DIMS || ns == 0)
        return done(p, d2_raise(I, "ValueError", "%s: bad axis or shape", p->fname));
    int64_t dims[D2_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < nd; d++) {
        if (d == axis)
            for (int i = 0; i < ns; i++)
                dims[k++] = sh[i];
        else if (s->dims[d] < 0)
            return fail_static_dims(p, "the other dims of x") < 0 ? done(p, NULL) : NULL;
        else
            dims[k++] = s->dims[d];
    }
    return done(p, reshape(p, x, dims, k));
}

/* view(x, shape_or_dtype) (a shape only) and view_as(x, other): reshapes */
/* x's bytes read as dtype dt (paddle.view with a dtype): the last dim scaled
 * by the ratio of the element sizes; a copy of the concrete data (dy2st's
 * views copy, as reshape does). */
static d2_obj *view_dtype(pool *p, d2_obj *x, int dt)
{
    d2_interp *I = p->I;
    if (!x)
        return NULL;
    if (is_sym(x))
        return d2_raise(I, "TypeError", "%s: viewing a tensor as another dtype needs its data "
                        "(not inside to_static)", p->fname);
    int nd = shp(x)->ndim;
    size_t es0 = d2_dtype_size(obj_type(x)->dtype), es1 = d2_dtype_size((d2_dtype)dt);
    int64_t dims[D2_MAX_DIMS];
    for (int d = 0; d < nd; d++)
        dims[d] = shp(x)->dims[d];
    if (es0 != es1) {
        if (nd == 0)
            return d2_raise(I, "ValueError", "%s: a 0-D tensor cannot change its element size",
                            p->fname);
        int64_t bytes = dims[nd - 1] * (int64_t)es0;
        if (bytes % (int64_t)es1 != 0)
            return d2_raise(I, "ValueError", "%s: the last dim (%lld bytes) is not a multiple of "
                            "the new element size (%zu)", p->fname, (long long)bytes, es1);
        dims[nd - 1] = bytes / (int64_t)es1;
    }
    d2_tensor *h0 = d2_pd_host(I, x, p->fname);
    d2_err err = {0};
    d2_tensor *h = h0 ? d2_tensor_contiguous(h0, &err) : NULL;
    d2_tensor_unref(h0);
    d2_tensor *t = h ? d2_tensor_new(NULL, (d2_dtype)dt, nd, dims, &err) : NULL;
    if (!t) {
        d2_tensor_unref(h);
        if (h0)
            d2_raise_err(I, &err);
        return NULL;
    }
    size_t n = (size_t)d2_tensor_numel(h) * es0;
    if (n)
        memcpy(d2_tensor_data(t), d2_tensor_data(h), n);
    d2_tensor_unref(h);
    return keep(p, d2_pd_wrap_host(I, t));
}

D2_FN(f_view)
{
    POOL("paddle.view");
    int64_t sh[D2_MAX_DIMS];
    int ns;
    if (!is_seq(a[1])) {
        int dt;
        if (d2_pd_parse_dtype(I, a[1], p->fname, false, &dt) < 0)
            return NULL;
        if (dt < 0)
            return d2_raise(I, "TypeError", "%s: shape_or_dtype must be a shape or a dtype",
                            p->fname);
        return done(p, view_dtype(p, T(p, a[0]), dt));
    }
    if (d2_pd_ints(I, a[1], p->fname, "shape", sh, &ns, D2_MAX_DIMS) < 0)
        return NULL;
    return done(p, reshape(p, T(p, a[0]), sh, ns));
}

/* as_strided(x, shape, stride, offset=0): the elements of x (its values in
 * row-major order) at offset + sum(i_d * stride_d), gathered (a copy) */
D2_FN(f_as_strided)
{
    POOL("paddle.as_strided");
    int64_t sh[D2_MAX_DIMS], st[D2_MAX_DIMS], off;
    int ns, nst;
    if (d2_pd_ints(I, a[1], p->fname, "shape", sh, &ns, D2_MAX_DIMS) < 0 ||
        d2_pd_ints(I, a[2], p->fname, "stride", st, &nst, D2_MAX_DIMS) < 0 ||
        d2_pd_get_int(I, a[3], p->fname, "offset", &off) < 0)
        return NULL;
    if (ns != nst)
        return d2_raise(I, "ValueError", "%s: shape has %d dims but stride %d", p->fname, ns, nst);
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    int64_t numel = 1, total = 1;
    for (int d = 0; d < shp(x)->ndim; d++) {
        if (shp(x)->dims[d] < 0)
            return fail_static_dims(p, "the dims of x") < 0 ? done(p, NULL) : NULL;
        numel *= shp(x)->dims[d];
    }
    for (int d = 0; d < ns; d++) {
        if (sh[d] < 0 || st[d] < 0)
            return done(p, d2_raise(I, "ValueError", "%s: shape and stride must be non-negative",
                                    p->fname));
        if (!d2_mul_i64(total, sh[d], &total))
            return done(p, d2_raise(I, "ValueError", "%s: shape is too large", p->fname));
    }
    int64_t last = off;
    for (int d = 0; d < ns && total > 0; d++)
        last += (sh[d] - 1) * st[d];
    if (off < 0 || (total > 0 && last >= numel))
        return done(p, d2_raise(I, "ValueError", "%s: shape, stride and offset %lld reach element "
                                "%lld of a tensor of %lld", p->fname, (long long)off,
                                (long long)last, (long long)numel));
    d2_err err = {0};
    d2_tensor *idx = d2_tensor_new(NULL, D2_I64, 1, &total, &err);
    if (!idx) {
        d2_raise_err(I, &err);
        return done(p, NULL);
    }
    int64_t *iv = d2_tensor_data(idx), m[D2_MAX_DIMS] = {0};
    for (int64_t i = 0; i < total; i++) {
        int64_t e = off;
        for (int d = 0; d < ns; d++)
            e += m[d] * st[d];
        iv[i] = e;
        for (int d = ns - 1; d >= 0; d--) {
            if (++m[d] < sh[d])
                break;
            m[d] = 0;
        }
    }
    d2_obj *io = keep(p, d2_pd_wrap_host(I, idx));
    int64_t m1 = -1;
    d2_obj *flat = reshape(p, x, &m1, 1);
    d2_obj *g = io && flat ? keep(p, op2(I, p->fname, D2_OP_gather, flat, io, NULL)) : NULL;
    return done(p, reshape(p, g, sh, ns));
}

D2_FN(f_view_as)
{
    POOL("paddle.view_as");
    d2_obj *o = T(p, a[1]);
    if (!o)
        return done(p, NULL);
    int64_t sh[D2_MAX_DIMS];
    for (int d = 0; d < shp(o)->ndim; d++)
        sh[d] = shp(o)->dims[d];
    return done(p, reshape(p, T(p, a[0]), sh, shp(o)->ndim));
}

/* diagflat(x, offset=0): diag of the flattened x */
D2_FN(f_diagflat)
{
    POOL("paddle.diagflat");
    int64_t m1 = -1;
    d2_obj *flat = reshape(p, T(p, a[0]), &m1, 1);
    d2_obj *args[2] = {flat, a[1]};
    return done(p, call_paddle(p, "diag", args, 2));
}

/* index_sample(x, index): take_along_axis on axis 1 */
D2_FN(f_index_sample)
{
    POOL("paddle.index_sample");
    d2_obj *x = T(p, a[0]), *idx = T(p, a[1]);
    if (!x || !idx)
        return done(p, NULL);
    d2_ab b;
    d2_ab_init(&b, D2_OP_take_along_axis);
    d2_ab_int(&b, "axis", 1);
    return done(p, keep(p, op2(I, p->fname, D2_OP_take_along_axis, x, idx, &b)));
}

/* slice(input, axes, starts, ends) and strided_slice(x, axes, starts, ends, strides) */
static d2_obj *slice_call(d2_interp *I, const char *fname, d2_obj **a, bool strided)
{
    POOL(fname);
    int64_t ax[D2_MAX_DIMS], st[D2_MAX_DIMS], en[D2_MAX_DIMS], sd[D2_MAX_DIMS];
    int na, ns, ne, nsd = 0;
    if (d2_pd_ints(I, a[1], fname, "axes", ax, &na, D2_MAX_DIMS) < 0 ||
        d2_pd_ints(I, a[2], fname, "starts", st, &ns, D2_MAX_DIMS) < 0 ||
        d2_pd_ints(I, a[3], fname, "ends", en, &ne, D2_MAX_DIMS) < 0 ||
        (strided && d2_pd_ints(I, a[4], fname, "strides", sd, &nsd, D2_MAX_DIMS) < 0))
        return NULL;
    if (ns != na || ne != na || (strided && nsd != na))
        return d2_raise(I, "ValueError", "%s: axes, starts, ends%s must have one length", fname,
                        strided ? " and strides" : "");
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    d2_ab b;
    d2_ab_init(&b, D2_OP_slice);
    d2_ab_ints(&b, "axes", ax, na);
    d2_ab_ints(&b, "starts", st, na);
    d2_ab_ints(&b, "ends", en, na);
    if (strided)
        d2_ab_ints(&b, "strides", sd, na);
    return done(p, keep(p, op1(I, fname, D2_OP_slice, x, &b)));
}

D2_FN(f_slice) { return slice_call(I, "paddle.slice", a, false); }
D2_FN(f_strided_slice) { return slice_call(I, "paddle.strided_slice", a, true); }

/* is_floating_point / is_integer / is_complex: Python bools from the dtype */
static d2_obj *dtype_is(d2_interp *I, d2_obj *x, const char *fname, int kind)
{
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor, got %s", fname, d2_type_name(x));
    d2_dtype dt = obj_type(x)->dtype;
    return d2_bool(I, kind == 0 ? d2_dtype_is_float(dt) : kind == 1 ? d2_dtype_is_int(dt) : false);
}

D2_FN(f_is_floating_point) { return dtype_is(I, a[0], "paddle.is_floating_point", 0); }
D2_FN(f_is_integer) { return dtype_is(I, a[0], "paddle.is_integer", 1); }
D2_FN(f_is_complex) { return dtype_is(I, a[0], "paddle.is_complex", 2); }

/* broadcast_shape(x_shape, y_shape): numpy's broadcast of two shape lists */
D2_FN(f_broadcast_shape)
{
    const char *fname = "paddle.broadcast_shape";
    int64_t xs[D2_MAX_DIMS], ys[D2_MAX_DIMS];
    int nx, ny;
    if (d2_pd_ints(I, a[0], fname, "x_shape", xs, &nx, D2_MAX_DIMS) < 0 ||
        d2_pd_ints(I, a[1], fname, "y_shape", ys, &ny, D2_MAX_DIMS) < 0)
        return NULL;
    int n = nx > ny ? nx : ny;
    d2_obj *l = d2_list_new(I, 0);
    for (int d = 0; l && d < n; d++) {
        int xi = d - (n - nx), yi = d - (n - ny);
        int64_t u = xi >= 0 ? xs[xi] : 1, v = yi >= 0 ? ys[yi] : 1;
        if (u != v && u != 1 && v != 1) {
            d2_decref(l);
            return d2_raise(I, "ValueError", "%s: shapes cannot be broadcast together", fname);
        }
        d2_obj *e = d2_int_new(I, u == 1 ? v : u);
        if (!e || d2_list_append(I, l, e) < 0)
            d2_setref(&l, NULL);
        d2_decref(e);
    }
    return l;
}

/* dist(x, y, p=2): the p-norm of x - y */
D2_FN(f_dist)
{
    POOL("paddle.dist");
    double pv;
    if (d2_pd_get_float(I, a[2], p->fname, "p", &pv) < 0)
        return NULL;
    d2_obj *d = B(p, D2_OP_subtract, T(p, a[0]), T(p, a[1]));
    return done(p, d ? keep(p, d2_pd_pnorm(I, p->fname, d, pv, NULL, 0, false)) : NULL);
}

/* logspace(start, stop, num, base=10.0, dtype=None): base ** linspace(start, stop, num) */
D2_FN(f_logspace)
{
    POOL("paddle.logspace");
    double base;
    if (d2_pd_get_float(I, a[3], p->fname, "base", &base) < 0)
        return NULL;
    d2_obj *args[4] = {a[0], a[1], a[2], a[4]};
    d2_obj *lin = call_paddle(p, "linspace", args, 4);
    d2_obj *lin_f = as_float(p, lin, D2_F32);
    d2_obj *r = lin_f ? B(p, D2_OP_pow, C(p, base, lin_f), lin_f) : NULL;
    if (r && lin && obj_type(lin)->dtype != obj_type(r)->dtype)
        r = cast(p, r, obj_type(lin)->dtype);
    return done(p, r);
}

/* trapezoid / cumulative_trapezoid(y, x=None, dx=None, axis=-1) */
static d2_obj *trapz(d2_interp *I, const char *fname, d2_obj **a, bool cumulative)
{
    POOL(fname);
    int64_t axis;
    if (d2_pd_get_int(I, a[3], fname, "axis", &axis) < 0)
        return NULL;
    if (!is_none(I, a[1]) && !is_none(I, a[2]))
        return d2_raise(I, "ValueError", "%s: x and dx cannot both be given", fname);
    d2_obj *y = as_float(p, T(p, a[0]), D2_F32);
    int64_t big = INT64_MAX;
    d2_obj *avg = scale(p, B(p, D2_OP_add, slice1(p, y, axis, 1, big, 1), slice1(p, y, axis, 0, -1, 1)),
                        0.5, 0);
    d2_obj *w;
    if (!is_none(I, a[1])) {
        d2_obj *x = cast(p, T(p, a[1]), y ? obj_type(y)->dtype : D2_F32);
        int64_t xa = x && shp(x)->ndim == 1 ? 0 : axis;
        d2_obj *dx = B(p, D2_OP_subtract, slice1(p, x, xa, 1, big, 1), slice1(p, x, xa, 0, -1, 1));
        if (dx && y && shp(x)->ndim == 1 && shp(y)->ndim > 1) {
            int nd = shp(y)->ndim;
            int64_t ax = axis < 0 ? axis + nd : axis, dims[D2_MAX_DIMS];
            for (int d = 0; d < nd; d++)
                dims[d] = d == ax ? -1 : 1;
            dx = reshape(p, dx, dims, nd);
        }
        w = B(p, D2_OP_multiply, avg, dx);
    } else {
        double dxv = 1;
        if (!is_none(I, a[2]) && d2_pd_get_float(I, a[2], fname, "dx", &dxv) < 0)
            return done(p, NULL);
        w = scale(p, avg, dxv, 0);
    }
    if (!w)
        return done(p, NULL);
    d2_ab b;
    d2_ab_init(&b, cumulative ? D2_OP_cumsum : D2_OP_sum);
    if (cumulative) {
        d2_ab_int(&b, "axis", axis);
        return done(p, keep(p, op1(I, fname, D2_OP_cumsum, w, &b)));
    }
    d2_ab_ints(&b, "axis", &axis, 1);
    return done(p, keep(p, op1(I, fname, D2_OP_sum, w, &b)));
}

D2_FN(f_trapezoid) { return trapz(I, "paddle.trapezoid", a, false); }
D2_FN(f_cumulative_trapezoid) { return trapz(I, "paddle.cumulative_trapezoid", a, true); }

/* vander(x, n=None, increasing=False): columns x^(n-1) .. x^0 (or ascending) */
D2_FN(f_vander)
{
    POOL("paddle.vander");
    bool inc;
    if (d2_pd_get_bool(I, a[2], p->fname, "increasing", &inc) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (!x || shp(x)->ndim != 1)
        return done(p, x ? d2_raise(I, "ValueError", "%s: x must be 1-D", p->fname) : NULL);
    int64_t n = shp(x)->dims[0];
    if (!is_none(I, a[1]) && d2_pd_get_int(I, a[1], p->fname, "n", &n) < 0)
        return done(p, NULL);
    if (n < 0)
        return done(p, d2_raise(I, "ValueError", "%s: n must be non-negative", p->fname));
    d2_ab b;
    d2_ab_init(&b, D2_OP_arange);
    d2_ab_float(&b, "start", inc ? 0 : (double)(n - 1));
    d2_ab_float(&b, "end", inc ? (double)n : -1);
    d2_ab_float(&b, "step", inc ? 1 : -1);
    d2_ab_int(&b, "dtype", obj_type(x)->dtype);
    d2_obj *pw = keep(p, d2_pd_opn(I, p->fname, D2_OP_arange, NULL, 0, &b));
    int64_t col[2] = {-1, 1}, row[2] = {1, -1};
    return done(p, B(p, D2_OP_pow, reshape(p, x, col, 2), reshape(p, pw, row, 2)));
}

/* tril_indices / triu_indices(row, col, offset=0, dtype='int64'): [2, n] coordinates */
static d2_obj *tri_indices(d2_interp *I, const char *fname, d2_obj **a, bool lower)
{
    int64_t row, col, off;
    int dt;
    if (d2_pd_get_int(I, a[0], fname, "row", &row) < 0 ||
        (is_none(I, a[1]) ? (col = row, 0) : d2_pd_get_int(I, a[1], fname, "col", &col)) < 0 ||
        d2_pd_get_int(I, a[2], fname, "offset", &off) < 0 ||
        d2_pd_dtype_arg(I, a[3], fname, D2_I64, &dt) < 0)
        return NULL;
    if (row < 0 || col < 0 || row > (1 << 20) || col > (1 << 20))
        return d2_raise(I, "ValueError", "%s: row and col must be in [0, 2^20]", fname);
    int64_t cnt = 0;
    for (int64_t i = 0; i < row; i++)
        for (int64_t j = 0; j < col; j++)
            cnt += lower ? j - i <= off : j - i >= off;
    int64_t shape[2] = {2, cnt};
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, D2_I64, 2, shape, &err);
    if (!t) {
        d2_raise_err(I, &err);
        return NULL;
    }
    int64_t *v = d2_tensor_data(t), k = 0;
    for (int64_t i = 0; i < row; i++)
        for (int64_t j = 0; j < col; j++)
            if (lower ? j - i <= off : j - i >= off) {
                v[k] = i;
                v[cnt + k] = j;
                k++;
            }
    d2_obj *r = d2_pd_wrap_host(I, t);
    if (r && dt != D2_I64) {
        d2_obj *c = d2_pd_cast_to(I, fname, r, dt);
        d2_decref(r);
        r = c;
    }
    return r;
}

D2_FN(f_tril_indices) { return tri_indices(I, "paddle.tril_indices", a, true); }
D2_FN(f_triu_indices) { return tri_indices(I, "paddle.triu_indices", a, false); }

/* tensordot(x, y, axes=2): an int contracts the last axes of x with the first of y;
 * a pair of lists names them */
D2_FN(f_tensordot)
{
    POOL("paddle.tensordot");
    d2_obj *x = T(p, a[0]), *y = T(p, a[1]);
    if (!x || !y)
        return done(p, NULL);
    int nx = shp(x)->ndim, ny = shp(y)->ndim;
    int64_t ax[D2_MAX_DIMS], ay[D2_MAX_DIMS];
    int n = 0;
    if (is_int(a[2]) || is_tensor(a[2])) {
        int64_t k;
        if (d2_pd_get_int(I, a[2], p->fname, "axes", &k) < 0)
            return done(p, NULL);
        if (k < 0 || k > nx || k > ny)
            return done(p, d2_raise(I, "ValueError", "%s: axes is out of range", p->fname));
        n = (int)k;
        for (int i = 0; i < n; i++) {
            ax[i] = nx - n + i;
            ay[i] = i;
        }
    } else if (is_seq(a[2])) {
        /* Paddle: a list of ints names x's axes (y's are the same); a list
         * of lists names x's, then y's; the shorter list takes the longer
         * one's tail */
        int n2 = 0;
        size_t len = seq_len(a[2]);
        if (len == 0 || is_int(seq_item(a[2], 0))) {
            if (d2_pd_ints(I, a[2], p->fname, "axes", ax, &n, D2_MAX_DIMS) < 0)
                return done(p, NULL);
        } else if (len > 2) {
            return done(p, d2_raise(I, "ValueError", "%s: axes holds at most two lists, got %zu",
                                    p->fname, len));
        } else if (d2_pd_ints(I, seq_item(a[2], 0), p->fname, "axes", ax, &n, D2_MAX_DIMS) < 0 ||
                   (len > 1 && d2_pd_ints(I, seq_item(a[2], 1), p->fname, "axes", ay, &n2,
                                          D2_MAX_DIMS) < 0)) {
            return done(p, NULL);
        }
        for (int i = n2; i < n; i++)
            ay[i] = ax[i];
        for (int i = n; i < n2; i++)
            ax[i] = ay[i];
        n = n > n2 ? n : n2;
    } else {
        return done(p, d2_raise(I, "TypeError", "%s: axes must be an int or two lists",
                                p->fname));
    }
    bool cx[D2_MAX_DIMS] = {false}, cy[D2_MAX_DIMS] = {false};
    int64_t px[D2_MAX_DIMS], py[D2_MAX_DIMS], out[2 * D2_MAX_DIMS], kdim = 1;
    int k = 0, no = 0;
    for (int i = 0; i < n; i++) {
        ax[i] = ax[i] < 0 ? ax[i] + nx : ax[i];
        ay[i] = ay[i] < 0 ? ay[i] + ny : ay[i];
        if (ax[i] < 0 || ax[i] >= nx || ay[i] < 0 || ay[i] >= ny || cx[ax[i]] || cy[ay[i]])
            return done(p, d2_raise(I, "ValueError", "%s: bad axes", p->fname));
        int64_t sx = shp(x)->dims[ax[i]], sy = shp(y)->dims[ay[i]];
        if (sx == 1 && sy != 1) { /* Paddle sums the other side's axis away */
            y = reduce(p, D2_OP_sum, y, &ay[i], 1, true);
        } else if (sy == 1 && sx != 1) {
            x = reduce(p, D2_OP_sum, x, &ax[i], 1, true);
        } else if (sx != sy) {
            return done(p, d2_raise(I, "ValueError",
                                    "%s: x has size %lld in dim %lld but y has size %lld in dim %lld",
                                    p->fname, (long long)sx, (long long)ax[i], (long long)sy,
                                    (long long)ay[i]));
        }
        if (!x || !y)
            return done(p, NULL);
        cx[ax[i]] = cy[ay[i]] = true;
        kdim *= shp(x)->dims[ax[i]];
    }
    int64_t mx = 1, my = 1;
    for (int d = 0; d < nx; d++)
        if (!cx[d]) {
            px[k++] = d;
            out[no++] = shp(x)->dims[d];
            mx *= shp(x)->dims[d];
        }
    for (int i = 0; i < n; i++)
        px[k++] = ax[i];
    k = 0;
    for (int i = 0; i < n; i++)
        py[k++] = ay[i];
    for (int d = 0; d < ny; d++)
        if (!cy[d]) {
            py[k++] = d;
            out[no++] = shp(y)->dims[d];
            my *= shp(y)->dims[d];
        }
    for (int d = 0; d < no; d++)
        if (out[d] < 0)
            return fail_static_dims(p, "the dims of x and y") < 0 ? done(p, NULL) : NULL;
    if (no > D2_MAX_DIMS)
        return done(p, d2_raise(I, "ValueError", "%s: too many dims", p->fname));
    int64_t xm[2] = {mx, kdim}, ym[2] = {kdim, my};
    d2_obj *m = matmul(p, reshape(p, transpose(p, x, px, nx), xm, 2),
                       reshape(p, transpose(p, y, py, ny), ym, 2), false, false);
    return done(p, reshape(p, m, out, no));
}

/* median(x, axis=None, keepdim=False): the middle of the sorted values, the
 * mean of the two middle ones for an even count; integers give float32 */
/* x sorted along the axis axis_arg names (all of x, flattened, when it is
 * NULL): *axis gets that axis, normalised, and *n its static size. NULL with
 * an exception on a bad axis or a dynamic size. */
static d2_obj *sort_along(pool *p, d2_obj *x, d2_obj *axis_arg, int64_t *axis, int64_t *n)
{
    d2_interp *I = p->I;
    int64_t m1 = -1;
    *axis = 0;
    if (!axis_arg)
        x = reshape(p, x, &m1, 1);
    else if (d2_pd_get_int(I, axis_arg, p->fname, "axis", axis) < 0)
        return NULL;
    if (!x)
        return NULL;
    int nd = shp(x)->ndim;
    *axis = *axis < 0 ? *axis + nd : *axis;
    if (*axis < 0 || *axis >= nd)
        return d2_raise(I, "ValueError", "%s: axis is out of range", p->fname);
    *n = shp(x)->dims[*axis];
    if (*n <= 0) {
        fail_static_dims(p, "the size of the axis");
        return NULL;
    }
    d2_obj *args[3] = {x, keep(p, d2_int_new(I, *axis)), I->false_};
    return call_paddle(p, "sort", args, 3);
}

/* r, a reduction of an nd0-dim tensor along axis (kept as size 1), shaped as
 * Paddle returns it: all dims 1 (keepdim) or 0-d when all axes were reduced,
 * else the axis kept or squeezed. */
static d2_obj *unreduce(pool *p, d2_obj *r, bool all, int nd0, bool kd, int64_t axis)
{
    if (!r)
        return NULL;
    if (all) {
        int64_t ones[D2_MAX_DIMS];
        for (int d = 0; d < nd0; d++)
            ones[d] = 1;
        return reshape(p, r, ones, kd ? nd0 : 0);
    }
    if (kd)
        return r;
    d2_ab b;
    d2_ab_init(&b, D2_OP_squeeze);
    d2_ab_ints(&b, "axis", &axis, 1);
    return keep(p, op1(p->I, p->fname, D2_OP_squeeze, r, &b));
}

D2_FN(f_median)
{
    POOL("paddle.median");
    bool kd;
    if (d2_pd_get_bool(I, a[2], p->fname, "keepdim", &kd) < 0)
        return NULL;
    d2_obj *x = as_float(p, T(p, a[0]), D2_F32);
    if (!x)
        return done(p, NULL);
    int64_t axis, n;
    bool all = is_none(I, a[1]);
    int nd0 = shp(x)->ndim;
    d2_obj *srt = sort_along(p, x, all ? NULL : a[1], &axis, &n);
    if (!srt)
        return done(p, NULL);
    d2_obj *r = slice1(p, srt, axis, (n - 1) / 2, (n - 1) / 2 + 1, 1);
    if (n % 2 == 0)
        r = scale(p, B(p, D2_OP_add, r, slice1(p, srt, axis, n / 2, n / 2 + 1, 1)), 0.5, 0);
    if (!r)
        return done(p, NULL);
    return done(p, unreduce(p, r, all, nd0, kd, axis));
}

/* The q argument of quantile/nanquantile (a number or a list of 1 to 64) into
 * qs, each checked to lie in [0, 1]; their count, or -1 with an exception. */
static int quantile_qs(pool *p, d2_obj *q, double qs[64])
{
    d2_interp *I = p->I;
    int nq = 0;
    if (is_seq(q)) {
        if (seq_len(q) == 0 || seq_len(q) > 64) {
            d2_raise(I, "ValueError", "%s: q must have 1 to 64 values", p->fname);
            return -1;
        }
        for (size_t i = 0; i < seq_len(q); i++)
            if (d2_pd_get_float(I, seq_item(q, i), p->fname, "q", &qs[nq++]) < 0)
                return -1;
    } else if (d2_pd_get_float(I, q, p->fname, "q", &qs[nq++]) < 0) {
        return -1;
    }
    for (int i = 0; i < nq; i++)
        if (!(qs[i] >= 0 && qs[i] <= 1)) {
            d2_raise(I, "ValueError", "%s: q should be in range [0, 1]", p->fname);
            return -1;
        }
    return nq;
}

/* quantile, nanquantile and nanmedian over a list or tuple of axes, as
 * Paddle does it: those axes moved last (in the order given) and merged into
 * one, fn run over it with keepdim, and the result shaped back (size 1 at the
 * reduced axes with keepdim, else without them). a[xi] is x, a[ai] the axes,
 * a[ki] keepdim; a list q stacks its results on axis 0 (qlist). */
static d2_obj *over_axes(d2_interp *I, const d2_def *def, d2_obj **a, int xi, int ai, int ki,
                         bool qlist,
                         d2_obj *(*fn)(d2_interp *, d2_obj *, d2_obj **, const d2_def *))
{
    POOL(def->qualname);
    bool kd;
    if (d2_pd_get_bool(I, a[ki], p->fname, "keepdim", &kd) < 0)
        return done(p, NULL);
    d2_obj *x = T(p, a[xi]);
    if (!x)
        return done(p, NULL);
    int nd = shp(x)->ndim, na;
    int64_t axes[D2_MAX_DIMS], perm[D2_MAX_DIMS], kshape[D2_MAX_DIMS + 1], rest[D2_MAX_DIMS + 2];
    if (d2_pd_ints(I, a[ai], p->fname, "axis", axes, &na, D2_MAX_DIMS) < 0)
        return done(p, NULL);
    bool red[D2_MAX_DIMS] = {false};
    for (int i = 0; i < na; i++) {
        int64_t ax = axes[i] < 0 ? axes[i] + nd : axes[i];
        if (ax < 0 || ax >= nd || red[ax])
            return done(p, d2_raise(I, "ValueError", "%s: axis %lld is out of range or repeated",
                                    p->fname, (long long)axes[i]));
        red[ax] = true;
        axes[i] = ax;
    }
    int k = 0, nr = 0, nk = 0;
    int64_t merged = 1;
    if (qlist)
        rest[nr++] = kshape[nk++] = (int64_t)seq_len(a[1]);
    for (int d = 0; d < nd; d++) {
        int64_t dim = shp(x)->dims[d];
        if (dim < 0)
            return fail_static_dims(p, "the dims of x") < 0 ? done(p, NULL) : NULL;
        kshape[nk++] = red[d] ? 1 : dim;
        if (!red[d]) {
            perm[k++] = d;
            rest[nr++] = dim;
        }
    }
    int64_t flat[D2_MAX_DIMS];
    for (int d = 0; d < k; d++)
        flat[d] = shp(x)->dims[perm[d]];
    for (int i = 0; i < na; i++) {
        perm[k + i] = axes[i];
        merged *= shp(x)->dims[axes[i]];
    }
    flat[k] = merged;
    d2_obj *xm = reshape(p, transpose(p, x, perm, nd), flat, k + 1);
    d2_obj *last = keep(p, d2_int_new(I, -1));
    if (!xm || !last)
        return done(p, NULL);
    d2_obj *args[8];
    for (int i = 0; i <= ki; i++)
        args[i] = a[i];
    args[xi] = xm;
    args[ai] = last;
    args[ki] = I->true_;
    d2_obj *r = keep(p, fn(I, NULL, args, def));
    return done(p, kd ? reshape(p, r, kshape, nk) : reshape(p, r, rest, nr));
}

/* quantile(x, q, axis=None, keepdim=False): linear interpolation between the
 * sorted values (float64 results, as Paddle); a list q stacks on a new axis 0 */
D2_FN(f_quantile)
{
    if (a[2]->kind == D2_OBJ_LIST) /* Paddle takes a list, not a tuple */
        return over_axes(I, def, a, 0, 2, 3, is_seq(a[1]), f_quantile);
    if (is_seq(a[2]))
        return d2_raise(I, "ValueError", "%s: axis should be None, int, or a list", def->qualname);
    POOL("paddle.quantile");
    bool kd;
    double qs[64];
    int nq;
    bool qlist = is_seq(a[1]);
    if (d2_pd_get_bool(I, a[3], p->fname, "keepdim", &kd) < 0 || (nq = quantile_qs(p, a[1], qs)) < 0)
        return NULL;
    d2_obj *x = cast(p, T(p, a[0]), D2_F64);
    if (!x)
        return done(p, NULL);
    int64_t axis, n;
    bool all = is_none(I, a[2]);
    int nd0 = shp(x)->ndim;
    d2_obj *srt = sort_along(p, x, all ? NULL : a[2], &axis, &n);
    if (!srt)
        return done(p, NULL);
    d2_obj *parts[64];
    for (int i = 0; i < nq; i++) {
        double pos = qs[i] * (double)(n - 1);
        int64_t lo = (int64_t)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
        double w = pos - (double)lo;
        d2_obj *vl = slice1(p, srt, axis, lo, lo + 1, 1), *vh = slice1(p, srt, axis, hi, hi + 1, 1);
        d2_obj *r = B(p, D2_OP_add, vl, scale(p, B(p, D2_OP_subtract, vh, vl), w, 0));
        if (!r)
            return done(p, NULL);
        r = unreduce(p, r, all, nd0, kd, axis);
        if (!r)
            return done(p, NULL);
        parts[i] = r;
    }
    if (!qlist)
        return done(p, parts[0]);
    d2_ab sb;
    d2_ab_init(&sb, D2_OP_stack);
    return done(p, keep(p, d2_pd_opn(I, p->fname, D2_OP_stack, parts, nq, &sb)));
}

/* searchsorted(sorted_sequence, values, out_int32=False, right=False): per value,
 * the count of sequence entries below it (at most it with right), over the last axis */
static d2_obj *search_count(pool *p, d2_obj *seq, d2_obj *v, d2_obj *i32o, d2_obj *righto)
{
    bool i32, right;
    if (d2_pd_get_bool(p->I, i32o, p->fname, "out_int32", &i32) < 0 ||
        d2_pd_get_bool(p->I, righto, p->fname, "right", &right) < 0 || !seq || !v)
        return NULL;
    if (obj_type(v)->dtype != obj_type(seq)->dtype)
        v = cast(p, v, obj_type(seq)->dtype);
    int64_t last = -1;
    int ns = shp(seq)->ndim;
    d2_obj *vv = v ? unsqueeze_last(p, v) : NULL;
    d2_obj *ss = seq;
    if (ns > 1) {
        int64_t ax = ns - 1;
        d2_ab b;
        d2_ab_init(&b, D2_OP_unsqueeze);
        d2_ab_ints(&b, "axis", &ax, 1);
        ss = keep(p, op1(p->I, p->fname, D2_OP_unsqueeze, seq, &b));
        ss = ss ? ss : NULL;
    }
    d2_obj *cmp = B(p, right ? D2_OP_less_equal : D2_OP_less_than, ss, vv);
    d2_obj *cnt = reduce(p, D2_OP_sum, cast(p, cmp, D2_I64), &last, 1, false);
    return i32 ? cast(p, cnt, D2_I32) : cnt;
}

D2_FN(f_searchsorted)
{
    POOL("paddle.searchsorted");
    return done(p, search_count(p, T(p, a[0]), T(p, a[1]), a[2], a[3]));
}

D2_FN(f_bucketize)
{
    POOL("paddle.bucketize");
    d2_obj *seq = T(p, a[1]);
    if (seq && shp(seq)->ndim != 1)
        return done(p, d2_raise(I, "ValueError", "%s: sorted_sequence must be 1-D", p->fname));
    return done(p, search_count(p, seq, T(p, a[0]), a[2], a[3]));
}

/* histogram(input, bins=100, min=0, max=0): int64 counts of equal-width bins over
 * [min, max] (the data's range when both are 0); values outside are dropped */
D2_FN(f_histogram)
{
    POOL("paddle.histogram");
    int64_t bins;
    double lo, hi;
    if (d2_pd_get_int(I, a[1], p->fname, "bins", &bins) < 0 ||
        d2_pd_get_float(I, a[2], p->fname, "min", &lo) < 0 ||
        d2_pd_get_float(I, a[3], p->fname, "max", &hi) < 0)
        return NULL;
    if (bins < 1 || bins > (1 << 24))
        return d2_raise(I, "ValueError", "%s: bins must be in [1, 2^24]", p->fname);
    if (hi < lo)
        return d2_raise(I, "ValueError", "%s: max must be larger or equal to min", p->fname);
    int64_t m1 = -1, col[2] = {-1, 1};
    d2_obj *x = reshape(p, cast(p, T(p, a[0]), D2_F64), &m1, 1);
    if (!x)
        return done(p, NULL);
    d2_obj *lov, *hiv;
    if (lo == 0 && hi == 0) {
        lov = reduce(p, D2_OP_min, x, NULL, 0, false);
        hiv = reduce(p, D2_OP_max, x, NULL, 0, false);
    } else {
        lov = C(p, lo, x);
        hiv = C(p, hi, x);
    }
    /* equal bounds widen by 1 on each side, as Paddle */
    d2_obj *same = B(p, D2_OP_equal, lov, hiv);
    lov = where3(p, same, scale(p, lov, 1, -1), lov);
    hiv = where3(p, same, scale(p, hiv, 1, 1), hiv);
    d2_obj *pos = scale(p, B(p, D2_OP_divide, B(p, D2_OP_subtract, x, lov),
                             B(p, D2_OP_subtract, hiv, lov)),
                        (double)bins, 0);
    d2_obj *idx = cast(p, U(p, D2_OP_floor, pos), D2_I64);
    d2_obj *top = keep(p, d2_pd_const_tensor(I, 0, bins - 1, true, D2_I64));
    idx = where3(p, B(p, D2_OP_greater_than, idx, top), top, idx);
    d2_obj *in = B(p, D2_OP_logical_and, B(p, D2_OP_greater_equal, x, lov),
                   B(p, D2_OP_less_equal, x, hiv));
    idx = where3(p, in, idx, C(p, 0, idx));
    d2_obj *ones = cast(p, in, D2_I64);
    d2_ab fb;
    d2_ab_init(&fb, D2_OP_full);
    d2_ab_ints(&fb, "shape", &bins, 1);
    d2_ab_int(&fb, "dtype", D2_I64);
    d2_obj *z = keep(p, d2_pd_opn(I, p->fname, D2_OP_full, NULL, 0, &fb));
    d2_obj *in3[3] = {z, reshape(p, idx, col, 2), ones};
    if (!in3[0] || !in3[1] || !in3[2])
        return done(p, NULL);
    return done(p, keep(p, d2_pd_opn(I, p->fname, D2_OP_scatter_nd_add, in3, 3, NULL)));
}

/* bincount(x, weights=None, minlength=0): the size max(x) + 1 is read from the
 * data, so x must be concrete */
D2_FN(f_bincount)
{
    POOL("paddle.bincount");
    int64_t minlen;
    if (d2_pd_get_int(I, a[2], p->fname, "minlength", &minlen) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    if (is_sym(x))
        return done(p, d2_raise(I, "TypeError",
                                "%s: the result's size depends on the data, which a static "
                                "Program cannot express",
                                p->fname));
    if (!d2_dtype_is_int(obj_type(x)->dtype) || shp(x)->ndim != 1)
        return done(p, d2_raise(I, "TypeError", "%s: x must be a 1-D integer tensor", p->fname));
    d2_tensor *h = d2_pd_host(I, x, p->fname);
    if (!h)
        return done(p, NULL);
    int64_t n = d2_tensor_numel(h), mx = -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = d2_tensor_get_i64(h, i);
        if (v < 0) {
            d2_tensor_unref(h);
            return done(p, d2_raise(I, "ValueError",
                                    "%s: the elements of x must be non-negative", p->fname));
        }
        mx = v > mx ? v : mx;
    }
    d2_tensor_unref(h);
    int64_t size = mx + 1 > minlen ? mx + 1 : minlen, col[2] = {-1, 1};
    if (size > (int64_t)1 << 30)
        return done(p, d2_raise(I, "ValueError", "%s: the result is too large", p->fname));
    d2_obj *w = is_none(I, a[1]) ? NULL : T(p, a[1]);
    int dt = w ? (int)obj_type(w)->dtype : D2_I64;
    d2_ab fb;
    d2_ab_init(&fb, D2_OP_full);
    d2_ab_ints(&fb, "shape", &size, 1);
    d2_ab_int(&fb, "dtype", dt);
    d2_obj *z = keep(p, d2_pd_opn(I, p->fname, D2_OP_full, NULL, 0, &fb));
    d2_obj *upd = w ? w : (z ? keep(p, op1(I, p->fname, D2_OP_full_like, cast(p, x, D2_I64), NULL)) : NULL);
    if (upd && !w) {
        d2_ab ob;
        d2_ab_init(&ob, D2_OP_full_like);
        d2_ab_float(&ob, "value", 1);
        upd = keep(p, op1(I, p->fname, D2_OP_full_like, upd, &ob));
    }
    d2_obj *in3[3] = {z, reshape(p, cast(p, x, D2_I64), col, 2), upd};
    if (!in3[0] || !in3[1] || !in3[2])
        return done(p, NULL);
    return done(p, keep(p, d2_pd_opn(I, p->fname, D2_OP_scatter_nd_add, in3, 3, NULL)));
}

/* Rows i and j of h (a contiguous [n, len] host tensor) compared
 * lexicographically: <0, 0 or >0. */
static int row_cmp(const d2_tensor *h, int64_t len, bool fl, int64_t i, int64_t j)
{
    for (int64_t c = 0; c < len; c++) {
        if (fl) {
            double u = d2_tensor_get_f64(h, i * len + c), v = d2_tensor_get_f64(h, j * len + c);
            if (u != v)
                return u < v ? -1 : 1;
        } else {
            int64_t u = d2_tensor_get_i64(h, i * len + c), v = d2_tensor_get_i64(h, j * len + c);
            if (u != v)
                return u < v ? -1 : 1;
        }
    }
    return 0;
}

/* A stable merge sort of the row indices idx[0..n-1] (tmp has room for n). */
static void sort_rows(const d2_tensor *h, int64_t len, bool fl, int64_t *idx, int64_t *tmp,
                      int64_t n)
{
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = row_cmp(h, len, fl, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof *idx);
    }
}

/* unique / unique_consecutive over the flattened x (axis None) or over the
 * slices along an axis (compared as rows, in lexicographic order): the
 * positions are computed from the concrete data, the values gathered by a
 * registry op */
static d2_obj *unique_impl(d2_interp *I, const char *fname, d2_obj *xo, bool ret_index,
                           bool ret_inverse, bool ret_counts, d2_obj *axis, d2_obj *dto,
                           bool consecutive)
{
    POOL(fname);
    int dt;
    if (d2_pd_dtype_arg(I, dto, fname, D2_I64, &dt) < 0)
        return NULL;
    d2_obj *x = T(p, xo);
    if (!x)
        return done(p, NULL);
    if (is_sym(x))
        return done(p, d2_raise(I, "TypeError",
                                "%s: the result's size depends on the data, which a static "
                                "Program cannot express",
                                fname));
    bool by_axis = !is_none(I, axis);
    int64_t ax = 0, len = 1, m1 = -1;
    d2_obj *flat;
    if (by_axis) {
        int nd = shp(x)->ndim;
        if (d2_pd_get_int(I, axis, fname, "axis", &ax) < 0)
            return done(p, NULL);
        ax = ax < 0 ? ax + nd : ax;
        if (ax < 0 || ax >= nd)
            return done(p, d2_raise(I, "ValueError", "%s: axis %lld is out of range for a %d-D "
                                    "tensor", fname, (long long)ax, nd));
        int64_t perm[D2_MAX_DIMS], rows[2] = {shp(x)->dims[ax], 1};
        perm[0] = ax;
        for (int d = 0, k = 1; d < nd; d++)
            if (d != ax) {
                perm[k++] = d;
                rows[1] *= shp(x)->dims[d];
            }
        len = rows[1];
        flat = reshape(p, transpose(p, x, perm, nd), rows, 2);
    } else {
        flat = reshape(p, x, &m1, 1);
    }
    d2_obj *args[1] = {flat};
    d2_obj *order = consecutive || by_axis ? NULL : call_paddle(p, "argsort", args, 1);
    d2_tensor *h0 = flat ? d2_pd_host(I, flat, fname) : NULL;
    d2_err err = {0};
    d2_tensor *h = h0 ? d2_tensor_contiguous(h0, &err) : NULL;
    if (h0 && !h)
        d2_raise_err(I, &err);
    d2_tensor_unref(h0);
    d2_tensor *ho = h && order ? d2_pd_host(I, order, fname) : NULL;
    if (!h || (!consecutive && !by_axis && !ho)) {
        d2_tensor_unref(h);
        d2_tensor_unref(ho);
        return done(p, NULL);
    }
    int64_t n = by_axis ? h->shape[0] : d2_tensor_numel(h);
    int64_t *rord = NULL;
    if (by_axis && !consecutive) {
        rord = d2_malloc((size_t)(2 * n + 1) * sizeof *rord);
        if (!rord) {
            d2_tensor_unref(h);
            return done(p, nomem(I));
        }
        for (int64_t k = 0; k < n; k++)
            rord[k] = k;
        sort_rows(h, len, d2_dtype_is_float(h->dtype), rord, rord + n, n);
    }
    int64_t n1 = n > 0 ? n : 0;
    d2_tensor *first = d2_tensor_new(NULL, D2_I64, 1, &n1, &err);
    d2_tensor *inv = first ? d2_tensor_new(NULL, D2_I64, 1, &n1, &err) : NULL;
    d2_tensor *cnt = inv ? d2_tensor_new(NULL, D2_I64, 1, &n1, &err) : NULL;
    if (!cnt) {
        d2_tensor_unref(h);
        d2_tensor_unref(ho);
        d2_tensor_unref(first);
        d2_tensor_unref(inv);
        d2_free(rord);
        d2_raise_err(I, &err);
        return done(p, NULL);
    }
    int64_t *fv = d2_tensor_data(first), *iv = d2_tensor_data(inv), *cv = d2_tensor_data(cnt);
    int64_t u = 0;
    bool fl = d2_dtype_is_float(h->dtype);
    for (int64_t k = 0; k < n; k++) {
        int64_t i = consecutive ? k : rord ? rord[k] : d2_tensor_get_i64(ho, k);
        int64_t prev = k == 0         ? -1
                       : consecutive ? k - 1
                       : rord        ? rord[k - 1]
                                     : d2_tensor_get_i64(ho, k - 1);
        bool same = k > 0 && row_cmp(h, len, fl, i, prev) == 0;
        if (!same) {
            fv[u] = i;
            cv[u] = 0;
            u++;
        } else if (i < fv[u - 1]) {
            fv[u - 1] = i;
        }
        cv[u - 1]++;
        iv[i] = u - 1;
    }
    d2_tensor_unref(h);
    d2_tensor_unref(ho);
    d2_free(rord);
    first->shape[0] = cnt->shape[0] = u;
    d2_obj *fo = keep(p, d2_pd_wrap_host(I, first));
    d2_obj *io = keep(p, d2_pd_wrap_host(I, inv));
    d2_obj *co = keep(p, d2_pd_wrap_host(I, cnt));
    d2_ab gb;
    d2_ab_init(&gb, D2_OP_gather);
    d2_ab_int(&gb, "axis", ax);
    d2_obj *vals = fo ? keep(p, op2(I, fname, D2_OP_gather, by_axis ? x : flat, fo, &gb)) : NULL;
    if (!vals || !io || !co)
        return done(p, NULL);
    if (!ret_index && !ret_inverse && !ret_counts)
        return done(p, vals);
    d2_obj *items[4] = {vals, NULL, NULL, NULL};
    size_t k = 1;
    if (ret_index && !consecutive)
        items[k++] = cast(p, fo, dt);
    if (ret_inverse)
        items[k++] = cast(p, io, dt);
    if (ret_counts)
        items[k++] = cast(p, co, dt);
    d2_obj *t = keep(p, tuple_new(I, k));
    for (size_t i = 0; t && i < k; i++) {
        if (!items[i])
            return done(p, NULL);
        D2_AS(d2_tuple, t)->items[i] = d2_incref(items[i]);
    }
    return done(p, t);
}

D2_FN(f_unique)
{
    bool ri, rv, rc;
    const char *fname = "paddle.unique";
    if (d2_pd_get_bool(I, a[1], fname, "return_index", &ri) < 0 ||
        d2_pd_get_bool(I, a[2], fname, "return_inverse", &rv) < 0 ||
        d2_pd_get_bool(I, a[3], fname, "return_counts", &rc) < 0)
        return NULL;
    return unique_impl(I, fname, a[0], ri, rv, rc, a[4], a[5], false);
}

D2_FN(f_unique_consecutive)
{
    bool rv, rc;
    const char *fname = "paddle.unique_consecutive";
    if (d2_pd_get_bool(I, a[1], fname, "return_inverse", &rv) < 0 ||
        d2_pd_get_bool(I, a[2], fname, "return_counts", &rc) < 0)
        return NULL;
    return unique_impl(I, fname, a[0], false, rv, rc, a[3], a[4], true);
}

static const d2_def MORE_DEFS[] = {
    D2_DEF("logaddexp", "x, y, name=None", f_logaddexp, "paddle.logaddexp"),
    D2_DEF("hypot", "x, y, name=None", f_hypot, "paddle.hypot"),
    D2_DEF("deg2rad", "x, name=None", f_deg2rad, "paddle.deg2rad"),
    D2_DEF("rad2deg", "x, name=None", f_rad2deg, "paddle.rad2deg"),
    D2_DEF("sgn", "x, name=None", f_sgn, "paddle.sgn"),
    D2_DEF("atan2", "x, y, name=None", f_atan2, "paddle.atan2"),
    D2_DEF("take", "x, index, mode='raise', name=None", f_take, "paddle.take"),
    D2_DEF("unstack", "x, axis=0, num=None", f_unstack, "paddle.unstack"),
    D2_DEF("vsplit", "x, num_or_sections, name=None", f_vsplit, "paddle.vsplit"),
    D2_DEF("unflatten", "x, axis, shape, name=None", f_unflatten, "paddle.unflatten"),
    D2_DEF("view", "x, shape_or_dtype, name=None", f_view, "paddle.view"),
    D2_DEF("as_strided", "x, shape, stride, offset=0, name=None", f_as_strided,
           "paddle.as_strided"),
    D2_DEF("view_as", "x, other, name=None", f_view_as, "paddle.view_as"),
    D2_DEF("diagflat", "x, offset=0, name=None", f_diagflat, "paddle.diagflat"),
    D2_DEF("index_sample", "x, index", f_index_sample, "paddle.index_sample"),
    D2_DEF("slice", "input, axes, starts, ends", f_slice, "paddle.slice"),
    D2_DEF("strided_slice", "x, axes, starts, ends, strides, name=None", f_strided_slice,
           "paddle.strided_slice"),
    D2_DEF("is_floating_point", "x", f_is_floating_point, "paddle.is_floating_point"),
    D2_DEF("is_integer", "x", f_is_integer, "paddle.is_integer"),
    D2_DEF("is_complex", "x", f_is_complex, "paddle.is_complex"),
    D2_DEF("dist", "x, y, p=2, name=None", f_dist, "paddle.dist"),
    D2_DEF("trapezoid", "y, x=None, dx=None, axis=-1, name=None", f_trapezoid, "paddle.trapezoid"),
    D2_DEF("cumulative_trapezoid", "y, x=None, dx=None, axis=-1, name=None", f_cumulative_trapezoid,
           "paddle.cumulative_trapezoid"),
    D2_DEF("vander", "x, n=None, increasing=False, name=None", f_vander, "paddle.vander"),
    D2_DEF("tensordot", "x, y, axes=2, name=None", f_tensordot, "paddle.tensordot"),
    D2_DEF("median", "x, axis=None, keepdim=False, name=None", f_median, "paddle.median"),
    D2_DEF("quantile", "x, q, axis=None, keepdim=False", f_quantile, "paddle.quantile"),
    D2_DEF("bucketize", "x, sorted_sequence, out_int32=False, right=False, name=None", f_bucketize,
           "paddle.bucketize"),
    D2_DEF("histogram", "input, bins=100, min=0, max=0, name=None", f_histogram,
           "paddle.histogram"),
    D2_DEF("bincount", "x, weights=None, minlength=0, name=None", f_bincount, "paddle.bincount"),
    D2_DEF("unique",
           "x, return_index=False, return_inverse=False, return_counts=False, axis=None, "
           "dtype='int64', name=None",
           f_unique, "paddle.unique"),
    D2_DEF("unique_consecutive",
           "x, return_inverse=False, return_counts=False, axis=None, dtype='int64', name=None",
           f_unique_consecutive, "paddle.unique_consecutive"),
};

static const d2_def MORE_PADDLE_DEFS[] = {
    D2_DEF("searchsorted", "sorted_sequence, values, out_int32=False, right=False, name=None",
           f_searchsorted, "paddle.searchsorted"),
    D2_DEF("logspace", "start, stop, num, base=10.0, dtype=None, name=None", f_logspace,
           "paddle.logspace"),
    D2_DEF("tril_indices", "row, col, offset=0, dtype='int64'", f_tril_indices,
           "paddle.tril_indices"),
    D2_DEF("triu_indices", "row, col=None, offset=0, dtype='int64'", f_triu_indices,
           "paddle.triu_indices"),
    D2_DEF("broadcast_shape", "x_shape, y_shape", f_broadcast_shape, "paddle.broadcast_shape"),
};

/* ======================================================================
 * Rotations, scatters into zeros, mode, nanmedian, random helpers
 * ====================================================================== */

/* rot90(x, k=1, axes=[0, 1]): flips and a transpose of the two axes */
D2_FN(f_rot90)
{
    POOL("paddle.rot90");
    int64_t k, ax[D2_MAX_DIMS];
    int na;
    ax[0] = 0;
    ax[1] = 1;
    na = 2;
    if (d2_pd_get_int(I, a[1], p->fname, "k", &k) < 0 ||
        (!is_none(I, a[2]) && d2_pd_ints(I, a[2], p->fname, "axes", ax, &na, D2_MAX_DIMS) < 0))
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    int nd = shp(x)->ndim;
    if (na != 2 || nd < 2)
        return done(p, d2_raise(I, "ValueError", "%s: axes must name two axes of an at least 2-D x",
                                p->fname));
    int64_t a0 = ax[0] < 0 ? ax[0] + nd : ax[0], a1 = ax[1] < 0 ? ax[1] + nd : ax[1];
    if (a0 < 0 || a0 >= nd || a1 < 0 || a1 >= nd || a0 == a1)
        return done(p, d2_raise(I, "ValueError", "%s: bad axes", p->fname));
    k = ((k % 4) + 4) % 4;
    if (k == 0)
        return done(p, x);
    int64_t perm[D2_MAX_DIMS];
    for (int d = 0; d < nd; d++)
        perm[d] = d == a0 ? a1 : d == a1 ? a0 : d;
    d2_ab b;
    if (k == 2) {
        int64_t both[2] = {a0, a1};
        d2_ab_init(&b, D2_OP_flip);
        d2_ab_ints(&b, "axis", both, 2);
        return done(p, keep(p, op1(I, p->fname, D2_OP_flip, x, &b)));
    }
    int64_t fa = k == 1 ? a1 : a0;
    d2_ab_init(&b, D2_OP_flip);
    d2_ab_ints(&b, "axis", &fa, 1);
    d2_obj *f = keep(p, op1(I, p->fname, D2_OP_flip, x, &b));
    return done(p, transpose(p, f, perm, nd));
}

/* scatter_nd(index, updates, shape): updates added into zeros of shape */
D2_FN(f_scatter_nd)
{
    POOL("paddle.scatter_nd");
    int64_t sh[D2_MAX_DIMS];
    int ns;
    if (d2_pd_ints(I, a[2], p->fname, "shape", sh, &ns, D2_MAX_DIMS) < 0)
        return NULL;
    d2_obj *idx = T(p, a[0]), *upd = T(p, a[1]);
    if (!idx || !upd)
        return done(p, NULL);
    d2_ab fb;
    d2_ab_init(&fb, D2_OP_full);
    d2_ab_ints(&fb, "shape", sh, ns);
    d2_ab_int(&fb, "dtype", obj_type(upd)->dtype);
    d2_obj *z = keep(p, d2_pd_opn(I, p->fname, D2_OP_full, NULL, 0, &fb));
    d2_obj *in3[3] = {z, idx, upd};
    return done(p, z ? keep(p, d2_pd_opn(I, p->fname, D2_OP_scatter_nd_add, in3, 3, NULL)) : NULL);
}

/* ldexp(x, y) = x * 2^y (float result) */
D2_FN(f_ldexp)
{
    POOL("paddle.ldexp");
    d2_obj *x = as_float(p, T(p, a[0]), D2_F32), *y = T(p, a[1]);
    y = x ? cast(p, y, obj_type(x)->dtype) : NULL;
    return done(p, B(p, D2_OP_multiply, x, B(p, D2_OP_pow, C(p, 2, y), y)));
}

/* The last axis of x compared with itself: [..., n, n] of x_i == x_j. */
static d2_obj *pairwise_eq(pool *p, d2_obj *x)
{
    int64_t m2 = -2;
    d2_ab b;
    d2_ab_init(&b, D2_OP_unsqueeze);
    d2_ab_ints(&b, "axis", &m2, 1);
    d2_obj *row = x ? keep(p, op1(p->I, p->fname, D2_OP_unsqueeze, x, &b)) : NULL;
    return B(p, D2_OP_equal, unsqueeze_last(p, x), row);
}

/* mode(x, axis=-1, keepdim=False) -> (values, indices): the most frequent value
 * (the smallest among equally frequent ones) and its last position */
D2_FN(f_mode)
{
    POOL("paddle.mode");
    int64_t axis, last = -1;
    bool kd;
    if (d2_pd_get_int(I, a[1], p->fname, "axis", &axis) < 0 ||
        d2_pd_get_bool(I, a[2], p->fname, "keepdim", &kd) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    int nd = shp(x)->ndim;
    int64_t ax = axis < 0 ? axis + nd : axis;
    if (nd == 0 || ax < 0 || ax >= nd)
        return done(p, d2_raise(I, "ValueError", "%s: axis is out of range", p->fname));
    int64_t perm[D2_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < nd; d++)
        if (d != ax)
            perm[k++] = d;
    perm[k] = ax;
    d2_obj *xt = transpose(p, x, perm, nd);
    d2_obj *args[1] = {xt};
    d2_obj *srt = call_paddle(p, "sort", args, 1);
    d2_obj *cnt = reduce(p, D2_OP_sum, cast(p, pairwise_eq(p, srt), D2_I64), &last, 1, false);
    d2_ab b;
    d2_ab_init(&b, D2_OP_argmax);
    d2_ab_int(&b, "axis", -1);
    d2_ab_bool(&b, "keepdim", true);
    d2_obj *best = cnt ? keep(p, op1(I, p->fname, D2_OP_argmax, cnt, &b)) : NULL;
    d2_obj *val = NULL;
    if (best) {
        d2_ab tb;
        d2_ab_init(&tb, D2_OP_take_along_axis);
        d2_ab_int(&tb, "axis", -1);
        val = keep(p, op2(I, p->fname, D2_OP_take_along_axis, srt, best, &tb));
    }
    /* the last position of val: max over j of j where x_j == val, else -1 */
    d2_obj *n_ar = NULL;
    if (val) {
        d2_ab ab;
        d2_ab_init(&ab, D2_OP_arange);
        d2_ab_float(&ab, "end", (double)shp(xt)->dims[nd - 1]);
        n_ar = keep(p, d2_pd_opn(I, p->fname, D2_OP_arange, NULL, 0, &ab));
    }
    d2_obj *hit = B(p, D2_OP_equal, xt, val);
    d2_obj *pos = where3(p, hit, n_ar, keep(p, d2_pd_const_tensor(I, 0, -1, true, D2_I64)));
    d2_obj *idx = reduce(p, D2_OP_max, pos, &last, 1, true);
    d2_obj *outs[2] = {val, idx};
    d2_obj *t = keep(p, tuple_new(I, 2));
    for (int i = 0; t && i < 2; i++) {
        d2_obj *o = outs[i];
        if (!o)
            return done(p, NULL);
        /* back to x's axis order, then drop the reduced axis unless keepdim */
        int64_t inv[D2_MAX_DIMS];
        for (int d = 0; d < nd; d++)
            inv[perm[d]] = d;
        o = transpose(p, o, inv, nd);
        if (o && !kd) {
            d2_ab sb;
            d2_ab_init(&sb, D2_OP_squeeze);
            d2_ab_ints(&sb, "axis", &ax, 1);
            o = keep(p, op1(I, p->fname, D2_OP_squeeze, o, &sb));
        }
        if (!o)
            return done(p, NULL);
        D2_AS(d2_tuple, t)->items[i] = d2_incref(o);
    }
    return done(p, t);
}

/* nanmedian(x, axis=None, keepdim=False): the median of the values that are
 * not NaN (sorted first; NaN sorts last), NaN where every value is */
D2_FN(f_nanmedian)
{
    if (is_seq(a[1]))
        return over_axes(I, def, a, 0, 1, 2, false, f_nanmedian);
    POOL("paddle.nanmedian");
    bool kd;
    if (d2_pd_get_bool(I, a[2], p->fname, "keepdim", &kd) < 0)
        return NULL;
    d2_obj *x = as_float(p, T(p, a[0]), D2_F32);
    if (!x)
        return done(p, NULL);
    int nd0 = shp(x)->ndim;
    int64_t axis = -1, m1 = -1, last = -1;
    bool all = is_none(I, a[1]);
    if (all)
        x = reshape(p, x, &m1, 1);
    else if (d2_pd_get_int(I, a[1], p->fname, "axis", &axis) < 0)
        return done(p, NULL);
    if (!x)
        return done(p, NULL);
    int nd = shp(x)->ndim;
    int64_t ax = axis < 0 ? axis + nd : axis;
    if (ax < 0 || ax >= nd)
        return done(p, d2_raise(I, "ValueError", "%s: axis is out of range", p->fname));
    int64_t perm[D2_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < nd; d++)
        if (d != ax)
            perm[k++] = d;
    perm[k] = ax;
    d2_obj *xt = transpose(p, x, perm, nd);
    d2_obj *args[1] = {xt};
    d2_obj *srt = call_paddle(p, "sort", args, 1);
    d2_obj *cnt = reduce(p, D2_OP_sum, cast(p, U(p, D2_OP_logical_not, U(p, D2_OP_isnan, xt)),
                                                D2_I64),
                         &last, 1, true);
    d2_obj *one = keep(p, d2_pd_const_tensor(I, 0, 1, true, D2_I64));
    d2_obj *two = keep(p, d2_pd_const_tensor(I, 0, 2, true, D2_I64));
    d2_obj *zero = keep(p, d2_pd_const_tensor(I, 0, 0, true, D2_I64));
    d2_obj *lo = B(p, D2_OP_floor_divide, B(p, D2_OP_subtract, cnt, one), two);
    d2_obj *hi = B(p, D2_OP_floor_divide, cnt, two);
    lo = where3(p, B(p, D2_OP_less_than, lo, zero), zero, lo);
    d2_ab tb;
    d2_ab_init(&tb, D2_OP_take_along_axis);
    d2_ab_int(&tb, "axis", -1);
    d2_obj *vl = lo ? keep(p, op2(I, p->fname, D2_OP_take_along_axis, srt, lo, &tb)) : NULL;
    d2_ab_init(&tb, D2_OP_take_along_axis);
    d2_ab_int(&tb, "axis", -1);
    d2_obj *vh = hi && vl ? keep(p, op2(I, p->fname, D2_OP_take_along_axis, srt, hi, &tb)) : NULL;
    d2_obj *r = scale(p, B(p, D2_OP_add, vl, vh), 0.5, 0);
    r = where3(p, B(p, D2_OP_equal, cnt, zero), C(p, NAN, r), r);
    if (!r)
        return done(p, NULL);
    if (all) {
        int64_t ones[D2_MAX_DIMS];
        for (int d = 0; d < nd0; d++)
            ones[d] = 1;
        return done(p, reshape(p, r, ones, kd ? nd0 : 0));
    }
    int64_t inv[D2_MAX_DIMS];
    for (int d = 0; d < nd; d++)
        inv[perm[d]] = d;
    r = transpose(p, r, inv, nd);
    if (r && !kd) {
        d2_ab sb;
        d2_ab_init(&sb, D2_OP_squeeze);
        d2_ab_ints(&sb, "axis", &ax, 1);
        r = keep(p, op1(I, p->fname, D2_OP_squeeze, r, &sb));
    }
    return done(p, r);
}

/* nanquantile(x, q, axis=None, keepdim=False): quantile over the values that
 * are not NaN (NaN sorts last; the interpolation position comes from their
 * count), NaN where every value is; float64 as quantile */
D2_FN(f_nanquantile)
{
    if (a[2]->kind == D2_OBJ_LIST) /* Paddle takes a list, not a tuple */
        return over_axes(I, def, a, 0, 2, 3, is_seq(a[1]), f_nanquantile);
    if (is_seq(a[2]))
        return d2_raise(I, "ValueError", "%s: axis should be None, int, or a list", def->qualname);
    POOL("paddle.nanquantile");
    bool kd;
    double qs[64];
    int nq;
    bool qlist = is_seq(a[1]);
    if (d2_pd_get_bool(I, a[3], p->fname, "keepdim", &kd) < 0 || (nq = quantile_qs(p, a[1], qs)) < 0)
        return NULL;
    d2_obj *x = cast(p, T(p, a[0]), D2_F64);
    if (!x)
        return done(p, NULL);
    int nd0 = shp(x)->ndim;
    int64_t axis = -1, m1 = -1, last = -1;
    bool all = is_none(I, a[2]);
    if (all)
        x = reshape(p, x, &m1, 1);
    else if (d2_pd_get_int(I, a[2], p->fname, "axis", &axis) < 0)
        return done(p, NULL);
    if (!x)
        return done(p, NULL);
    int nd = shp(x)->ndim;
    int64_t ax = axis < 0 ? axis + nd : axis;
    if (ax < 0 || ax >= nd)
        return done(p, d2_raise(I, "ValueError", "%s: axis is out of range", p->fname));
    int64_t perm[D2_MAX_DIMS], inv[D2_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < nd; d++)
        if (d != ax)
            perm[k++] = d;
    perm[k] = ax;
    for (int d = 0; d < nd; d++)
        inv[perm[d]] = d;
    d2_obj *xt = transpose(p, x, perm, nd);
    d2_obj *args[1] = {xt};
    d2_obj *srt = call_paddle(p, "sort", args, 1);
    d2_obj *cnt = reduce(p, D2_OP_sum, cast(p, U(p, D2_OP_logical_not, U(p, D2_OP_isnan, xt)),
                                                D2_F64),
                         &last, 1, true);
    d2_obj *top = scale(p, cnt, 1, -1);
    d2_obj *zero = C(p, 0, cnt);
    top = where3(p, B(p, D2_OP_less_than, top, zero), zero, top);
    d2_obj *parts[64];
    for (int i = 0; i < nq; i++) {
        d2_obj *pos = scale(p, top, qs[i], 0);
        d2_obj *lo = U(p, D2_OP_floor, pos);
        d2_obj *hi = B(p, D2_OP_minimum, scale(p, lo, 1, 1), top);
        d2_obj *w = B(p, D2_OP_subtract, pos, lo);
        d2_ab tb;
        d2_ab_init(&tb, D2_OP_take_along_axis);
        d2_ab_int(&tb, "axis", -1);
        d2_obj *li = cast(p, lo, D2_I64), *hi_i = cast(p, hi, D2_I64);
        d2_obj *vl = li ? keep(p, op2(I, p->fname, D2_OP_take_along_axis, srt, li, &tb)) : NULL;
        d2_ab_init(&tb, D2_OP_take_along_axis);
        d2_ab_int(&tb, "axis", -1);
        d2_obj *vh = hi_i && vl ? keep(p, op2(I, p->fname, D2_OP_take_along_axis, srt, hi_i, &tb))
                                : NULL;
        d2_obj *r = B(p, D2_OP_add, vl, B(p, D2_OP_multiply, B(p, D2_OP_subtract, vh, vl), w));
        r = where3(p, B(p, D2_OP_equal, cnt, zero), C(p, NAN, r), r);
        if (!r)
            return done(p, NULL);
        if (all) {
            int64_t ones[D2_MAX_DIMS];
            for (int d = 0; d < nd0; d++)
                ones[d] = 1;
            r = reshape(p, r, ones, kd ? nd0 : 0);
        } else {
            r = transpose(p, r, inv, nd);
            if (r && !kd) {
                d2_ab sb;
                d2_ab_init(&sb, D2_OP_squeeze);
                d2_ab_ints(&sb, "axis", &ax, 1);
                r = keep(p, op1(I, p->fname, D2_OP_squeeze, r, &sb));
            }
        }
        if (!r)
            return done(p, NULL);
        parts[i] = r;
    }
    if (!qlist)
        return done(p, parts[0]);
    d2_ab sb;
    d2_ab_init(&sb, D2_OP_stack);
    return done(p, keep(p, d2_pd_opn(I, p->fname, D2_OP_stack, parts, nq, &sb)));
}

/* diag_embed(input, offset=0, dim1=-2, dim2=-1): the last axis of input laid
 * on the diagonal `offset` of new axes dim1 and dim2 (zeros elsewhere) */
D2_FN(f_diag_embed)
{
    POOL("paddle.diag_embed");
    int64_t off, d1, d2;
    if (d2_pd_get_int(I, a[1], p->fname, "offset", &off) < 0 ||
        d2_pd_get_int(I, a[2], p->fname, "dim1", &d1) < 0 ||
        d2_pd_get_int(I, a[3], p->fname, "dim2", &d2) < 0)
        return NULL;
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    int nd = shp(x)->ndim, on = nd + 1;
    if (nd < 1 || on > D2_MAX_DIMS)
        return done(p, d2_raise(I, "ValueError", "%s: input must have 1 to %d dims", p->fname,
                                D2_MAX_DIMS - 1));
    d1 = d1 < 0 ? d1 + on : d1;
    d2 = d2 < 0 ? d2 + on : d2;
    if (d1 < 0 || d1 >= on || d2 < 0 || d2 >= on || d1 == d2)
        return done(p, d2_raise(I, "ValueError", "%s: dim1 and dim2 must be two different dims",
                                p->fname));
    int64_t n = shp(x)->dims[nd - 1];
    if (n < 0)
        return fail_static_dims(p, "the last dim of input") < 0 ? done(p, NULL) : NULL;
    int64_t kk = off < 0 ? -off : off, N = n + kk;
    d2_obj *v = x;
    if (kk > 0) {
        int64_t zs[D2_MAX_DIMS];
        for (int d = 0; d < nd; d++)
            zs[d] = d == nd - 1 ? kk : shp(x)->dims[d];
        d2_ab fb;
        d2_ab_init(&fb, D2_OP_full);
        d2_ab_ints(&fb, "shape", zs, nd);
        d2_ab_int(&fb, "dtype", obj_type(x)->dtype);
        d2_obj *z = keep(p, d2_pd_opn(I, p->fname, D2_OP_full, NULL, 0, &fb));
        d2_obj *parts[2] = {x, z};
        d2_ab cb;
        d2_ab_init(&cb, D2_OP_concat);
        d2_ab_int(&cb, "axis", -1);
        v = z ? keep(p, d2_pd_opn(I, p->fname, D2_OP_concat, parts, 2, &cb)) : NULL;
    }
    /* [..., N, N]: row i holds v[i] (offset >= 0) or column j holds v[j] */
    d2_obj *vb = off >= 0 ? unsqueeze_last(p, v) : NULL;
    if (off < 0 && v) {
        int64_t m2 = -2;
        d2_ab ub;
        d2_ab_init(&ub, D2_OP_unsqueeze);
        d2_ab_ints(&ub, "axis", &m2, 1);
        vb = keep(p, op1(I, p->fname, D2_OP_unsqueeze, v, &ub));
    }
    d2_ab ab;
    d2_ab_init(&ab, D2_OP_arange);
    d2_ab_float(&ab, "end", (double)N);
    d2_obj *ar = keep(p, d2_pd_opn(I, p->fname, D2_OP_arange, NULL, 0, &ab));
    int64_t col[2] = {-1, 1}, row[2] = {1, -1};
    d2_obj *ofs = keep(p, d2_pd_const_tensor(I, 0, off, true, D2_I64));
    d2_obj *mask = B(p, D2_OP_equal, B(p, D2_OP_subtract, reshape(p, ar, row, 2), reshape(p, ar, col, 2)), ofs);
    d2_obj *r = where3(p, mask, vb, C(p, 0, x));
    if (!r)
        return done(p, NULL);
    /* the two new axes from the end to dim1 and dim2 */
    int64_t perm[D2_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < on; d++) {
        if (d == d1)
            perm[d] = on - 2;
        else if (d == d2)
            perm[d] = on - 1;
        else
            perm[d] = k++;
    }
    return done(p, transpose(p, r, perm, on));
}

/* multiplex(inputs, index): row i of the result is row i of inputs[index[i]] */
D2_FN(f_multiplex)
{
    POOL("paddle.multiplex");
    if (!is_seq(a[0]) || seq_len(a[0]) == 0 || seq_len(a[0]) > 256)
        return d2_raise(I, "TypeError", "%s: inputs must be a list of 1 to 256 Tensors", p->fname);
    size_t n = seq_len(a[0]);
    d2_obj *xs[256];
    for (size_t i = 0; i < n; i++)
        if (!(xs[i] = T(p, seq_item(a[0], i))))
            return done(p, NULL);
    d2_ab b;
    d2_ab_init(&b, D2_OP_stack);
    d2_ab_int(&b, "axis", 1);
    d2_obj *st = keep(p, d2_pd_opn(I, p->fname, D2_OP_stack, xs, (int)n, &b));
    d2_obj *idx = cast(p, T(p, a[1]), D2_I64);
    if (!st || !idx)
        return done(p, NULL);
    int nd = shp(st)->ndim;
    int64_t dims[D2_MAX_DIMS];
    dims[0] = -1;
    for (int d = 1; d < nd; d++)
        dims[d] = 1;
    d2_obj *ri = reshape(p, idx, dims, nd);
    int64_t full[D2_MAX_DIMS];
    for (int d = 0; d < nd; d++)
        full[d] = d == 1 ? 1 : shp(st)->dims[d];
    d2_obj *ei = expand(p, ri, full, nd);
    d2_ab tb;
    d2_ab_init(&tb, D2_OP_take_along_axis);
    d2_ab_int(&tb, "axis", 1);
    d2_obj *r = ei ? keep(p, op2(I, p->fname, D2_OP_take_along_axis, st, ei, &tb)) : NULL;
    int64_t one = 1;
    d2_ab sb;
    d2_ab_init(&sb, D2_OP_squeeze);
    d2_ab_ints(&sb, "axis", &one, 1);
    return done(p, r ? keep(p, op1(I, p->fname, D2_OP_squeeze, r, &sb)) : NULL);
}

/* index_put(x, indices, value, accumulate=False): x[indices] = value (or +=) */
D2_FN(f_index_put)
{
    POOL("paddle.index_put");
    bool acc;
    if (d2_pd_get_bool(I, a[3], p->fname, "accumulate", &acc) < 0)
        return NULL;
    if (!is_seq(a[1]) || seq_len(a[1]) == 0 || seq_len(a[1]) > D2_MAX_DIMS)
        return d2_raise(I, "TypeError", "%s: indices must be a tuple of 1 to %d Tensors",
                        p->fname, D2_MAX_DIMS);
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    size_t n = seq_len(a[1]);
    d2_obj *in[D2_MAX_DIMS + 2];
    in[0] = x;
    in[1] = is_tensor(a[2]) ? cast(p, a[2], obj_type(x)->dtype)
                            : keep(p, d2_pd_scalar_tensor(I, a[2], obj_type(x)->dtype));
    for (size_t i = 0; i < n; i++)
        if (!(in[2 + i] = T(p, seq_item(a[1], i))))
            return done(p, NULL);
    if (!in[1])
        return done(p, NULL);
    if (n == 1 && obj_type(in[2])->dtype == D2_BOOL) {
        d2_obj *m = in[2];
        return done(p, where3(p, m, B(p, D2_OP_add, in[1], B(p, D2_OP_multiply, x, C(p, acc, x))), x));
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_index_put);
    d2_ab_bool(&b, "accumulate", acc);
    return done(p, keep(p, d2_pd_opn(I, p->fname, D2_OP_index_put, in, (int)n + 2, &b)));
}

/* Random helpers over paddle's own random functions and registry ops. */
D2_FN(f_standard_normal)
{
    POOL("paddle.standard_normal");
    d2_obj *args[2] = {a[0], a[1]};
    return done(p, call_paddle(p, "randn", args, 2));
}

D2_FN(f_randint_like)
{
    POOL("paddle.randint_like");
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    d2_obj *shape = keep(p, d2_pd_shape_pylist(I, shp(x)));
    d2_obj *dt = is_none(I, a[3]) ? keep(p, d2_pd_dtype_obj_new(I, obj_type(x)->dtype, false)) : a[3];
    d2_obj *args[4] = {a[1], a[2], shape, dt};
    return done(p, call_paddle(p, "randint", args, 4));
}

/* randperm(n, dtype='int64'): 0..n-1 shuffled by paddle.seed's generator as
 * Paddle's CPU kernel shuffles them */
D2_FN(f_randperm)
{
    const char *fname = "paddle.randperm";
    int64_t n;
    int dt;
    if (d2_pd_get_int(I, a[0], fname, "n", &n) < 0 ||
        d2_pd_dtype_arg(I, a[1], fname, D2_I64, &dt) < 0)
        return NULL;
    if (n < 0)
        return d2_raise(I, "ValueError", "%s: n must be non-negative", fname);
    if (n > ((int64_t)1 << 40))
        return d2_raise(I, "ValueError", "%s: n = %lld is too large", fname, (long long)n);
    int64_t *v = d2_malloc((size_t)n * sizeof *v + 8);
    double *d = v ? d2_malloc((size_t)n * sizeof *d + 8) : NULL;
    if (!d) {
        d2_free(v);
        return d2_raise(I, "MemoryError", "%s: out of memory for n = %lld", fname, (long long)n);
    }
    for (int64_t i = 0; i < n; i++)
        v[i] = i;
    d2_pd_random_shuffle(I, v, n);
    for (int64_t i = 0; i < n; i++)
        d[i] = (double)v[i];
    d2_free(v);
    d2_tensor *t = d2_pd_host_from_doubles(I, (d2_dtype)dt, 1, &n, d);
    d2_free(d);
    return t ? d2_pd_wrap_host(I, t) : NULL;
}

/* bernoulli(x): 1 with probability x */
D2_FN(f_bernoulli)
{
    POOL("paddle.bernoulli");
    d2_obj *x = T(p, a[0]);
    if (!x)
        return done(p, NULL);
    d2_obj *shape = keep(p, d2_pd_shape_pylist(I, shp(x)));
    d2_obj *dt = keep(p, d2_pd_dtype_obj_new(I, obj_type(x)->dtype, false));
    d2_obj *args[2] = {shape, dt};
    d2_obj *u = call_paddle(p, "rand", args, 2);
    return done(p, cast(p, B(p, D2_OP_less_than, u, x), obj_type(x)->dtype));
}

D2_FN(f_get_default_dtype) { return d2_str_from(I, "float32"); }

/* uniform_ / normal_ / exponential_: x refilled with samples, in place */
static d2_obj *refill(d2_interp *I, const char *fname, d2_obj *x, const char *gen, double p0,
                      double p1, bool expo)
{
    POOL(fname);
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: expected a Tensor", fname);
    d2_obj *shape = keep(p, d2_pd_shape_pylist(I, shp(x)));
    d2_obj *dt = keep(p, d2_pd_dtype_obj_new(I, obj_type(x)->dtype, false));
    d2_obj *v0 = keep(p, d2_float_new(I, p0)), *v1 = keep(p, d2_float_new(I, expo ? 1 : p1));
    d2_obj *r;
    if (strcmp(gen, "normal") == 0) {
        d2_obj *args[3] = {v0, v1, shape};
        r = cast(p, call_paddle(p, gen, args, 3), obj_type(x)->dtype);
    } else {
        d2_obj *args[4] = {shape, dt, v0, v1};
        r = call_paddle(p, gen, args, 4);
    }
    if (expo) /* -log(1 - u) / lam, u in [0, 1) */
        r = scale(p, U(p, D2_OP_log1p, U(p, D2_OP_neg, r)), -1 / p1, 0);
    if (!r || write_back(I, fname, x, r) < 0)
        return done(p, NULL);
    done(p, NULL);
    return d2_incref(x);
}

D2_FN(f_uniform_)
{
    double lo, hi;
    if (d2_pd_get_float(I, a[1], "Tensor.uniform_", "min", &lo) < 0 ||
        d2_pd_get_float(I, a[2], "Tensor.uniform_", "max", &hi) < 0)
        return NULL;
    return refill(I, "Tensor.uniform_", a[0], "uniform", lo, hi, false);
}

D2_FN(f_normal_)
{
    double m, sd;
    if (d2_pd_get_float(I, a[1], "Tensor.normal_", "mean", &m) < 0 ||
        d2_pd_get_float(I, a[2], "Tensor.normal_", "std", &sd) < 0)
        return NULL;
    return refill(I, "Tensor.normal_", a[0], "normal", m, sd, false);
}

D2_FN(f_exponential_)
{
    double lam;
    if (d2_pd_get_float(I, a[1], "Tensor.exponential_", "lam", &lam) < 0)
        return NULL;
    if (!(lam > 0))
        return d2_raise(I, "ValueError", "Tensor.exponential_: lam must be positive");
    return refill(I, "Tensor.exponential_", a[0], "uniform", 0, lam, true);
}

/* fill_diagonal_(x, value, offset=0, wrap=False): the diagonal of a 2-D x set, in place */
D2_FN(f_fill_diagonal_)
{
    POOL("Tensor.fill_diagonal_");
    int64_t off;
    if (d2_pd_get_int(I, a[2], p->fname, "offset", &off) < 0)
        return NULL;
    d2_obj *x = a[0];
    if (!is_tensor(x) || shp(x)->ndim != 2 || shp(x)->dims[0] < 0 || shp(x)->dims[1] < 0)
        return d2_raise(I, "ValueError", "%s: x must be a 2-D Tensor of known shape", p->fname);
    int64_t r = shp(x)->dims[0], c = shp(x)->dims[1], col[2] = {-1, 1}, row[2] = {1, -1};
    d2_ab ab;
    d2_ab_init(&ab, D2_OP_arange);
    d2_ab_float(&ab, "end", (double)r);
    d2_obj *ri = reshape(p, keep(p, d2_pd_opn(I, p->fname, D2_OP_arange, NULL, 0, &ab)), col, 2);
    d2_ab_init(&ab, D2_OP_arange);
    d2_ab_float(&ab, "end", (double)c);
    d2_obj *ci = reshape(p, keep(p, d2_pd_opn(I, p->fname, D2_OP_arange, NULL, 0, &ab)), row, 2);
    d2_obj *ofs = keep(p, d2_pd_const_tensor(I, 0, off, true, D2_I64));
    d2_obj *m = B(p, D2_OP_equal, B(p, D2_OP_subtract, ci, ri), ofs);
    d2_obj *v = keep(p, d2_pd_scalar_tensor(I, a[1], obj_type(x)->dtype));
    d2_obj *res = where3(p, m, v, x);
    if (!res || write_back(I, p->fname, x, res) < 0)
        return done(p, NULL);
    done(p, NULL);
    return d2_incref(x);
}

/* Tensor methods that are paddle functions taking the tensor first. */
D2_FN(f_forward)
{
    const char *base = def->data;
    d2_obj *fn = d2_dict_get_str(I, ST(I)->paddle->dict, base);
    if (!fn)
        return d2_raise(I, "AttributeError", "Tensor.%s: no function paddle.%s", base, base);
    d2_obj *args = a[1];
    size_t n = seq_len(args);
    d2_obj *argv[16];
    if (n + 1 > 16)
        return d2_raise(I, "TypeError", "Tensor.%s: too many arguments", base);
    argv[0] = a[0];
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = seq_item(args, i);
    return d2_call(I, fn, argv, n + 1, D2_AS(d2_dict, a[2]));
}

#define FORWARD_METHODS(X)                                                                         \
    X(add_n) X(allclose) X(broadcast_shape) X(broadcast_tensors) X(concat) X(equal_all)            \
    X(increment) X(stack) X(where) X(is_tensor)
static const d2_def FORWARD_DEFS[] = {
#define X(n) D2_DEF_DATA(#n, "x, *args, **kwargs", f_forward, "Tensor." #n, #n),
    FORWARD_METHODS(X)
#undef X
};

static const d2_def RANDOM_DEFS[] = {
    D2_DEF("standard_normal", "shape, dtype=None, name=None", f_standard_normal,
           "paddle.standard_normal"),
    D2_DEF("randint_like", "x, low=0, high=None, dtype=None, name=None", f_randint_like,
           "paddle.randint_like"),
    D2_DEF("randperm", "n, dtype='int64', name=None", f_randperm, "paddle.randperm"),
    D2_DEF("bernoulli", "x, name=None", f_bernoulli, "paddle.bernoulli"),
    D2_DEF("get_default_dtype", "", f_get_default_dtype, "paddle.get_default_dtype"),
};

static const d2_def TENSOR_FILL_DEFS[] = {
    D2_DEF("uniform_", "x, min=-1.0, max=1.0, seed=0, name=None", f_uniform_, "Tensor.uniform_"),
    D2_DEF("normal_", "x, mean=0.0, std=1.0, name=None", f_normal_, "Tensor.normal_"),
    D2_DEF("exponential_", "x, lam=1.0, name=None", f_exponential_, "Tensor.exponential_"),
    D2_DEF("fill_diagonal_", "x, value, offset=0, wrap=False, name=None", f_fill_diagonal_,
           "Tensor.fill_diagonal_"),
};

static const d2_def MORE2_DEFS[] = {
    D2_DEF("rot90", "x, k=1, axes=None, name=None", f_rot90, "paddle.rot90"),
    D2_DEF("scatter_nd", "index, updates, shape, name=None", f_scatter_nd, "paddle.scatter_nd"),
    D2_DEF("ldexp", "x, y, name=None", f_ldexp, "paddle.ldexp"),
    D2_DEF("mode", "x, axis=-1, keepdim=False, name=None", f_mode, "paddle.mode"),
    D2_DEF("nanmedian", "x, axis=None, keepdim=False, name=None", f_nanmedian, "paddle.nanmedian"),
    D2_DEF("multiplex", "inputs, index, name=None", f_multiplex, "paddle.multiplex"),
    D2_DEF("nanquantile", "x, q, axis=None, keepdim=False", f_nanquantile, "paddle.nanquantile"),
    D2_DEF("diag_embed", "input, offset=0, dim1=-2, dim2=-1", f_diag_embed, "paddle.diag_embed"),
    D2_DEF("index_put", "x, indices, value, accumulate=False, name=None", f_index_put,
           "paddle.index_put"),
};

static const d2_def COMPOSITE_DEFS[] = {
    D2_DEF("masked_fill", "x, mask, value, name=None", f_masked_fill, "paddle.masked_fill"),
    D2_DEF("masked_select", "x, mask, name=None", f_masked_select, "paddle.masked_select"),
    D2_DEF("logsumexp", "x, axis=None, keepdim=False, name=None", f_logsumexp, "paddle.logsumexp"),
    D2_DEF("count_nonzero", "x, axis=None, keepdim=False, name=None", f_count_nonzero,
           "paddle.count_nonzero"),
    D2_DEF("nansum", "x, axis=None, dtype=None, keepdim=False, name=None", f_nansum,
           "paddle.nansum"),
    D2_DEF("nanmean", "x, axis=None, keepdim=False, name=None", f_nanmean, "paddle.nanmean"),
    D2_DEF("nan_to_num", "x, nan=0.0, posinf=None, neginf=None, name=None", f_nan_to_num,
           "paddle.nan_to_num"),
    D2_DEF("isclose", "x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None", f_isclose,
           "paddle.isclose"),
    D2_DEF("lerp", "x, y, weight, name=None", f_lerp, "paddle.lerp"),
    D2_DEF("heaviside", "x, y, name=None", f_heaviside, "paddle.heaviside"),
    D2_DEF("fmax", "x, y, name=None", f_fmax, "paddle.fmax"),
    D2_DEF("fmin", "x, y, name=None", f_fmin, "paddle.fmin"),
    D2_DEF("frac", "x, name=None", f_frac, "paddle.frac"),
    D2_DEF("diff", "x, n=1, axis=-1, prepend=None, append=None, name=None", f_diff, "paddle.diff"),
    D2_DEF("outer", "x, y, name=None", f_outer, "paddle.outer"),
    D2_DEF("inner", "x, y, name=None", f_inner, "paddle.inner"),
    D2_DEF("mv", "x, vec, name=None", f_mv, "paddle.mv"),
    D2_DEF("addmm", "input, x, y, beta=1.0, alpha=1.0, name=None", f_addmm, "paddle.addmm"),
    D2_DEF("kron", "x, y, name=None", f_kron, "paddle.kron"),
    D2_DEF("cross", "x, y, axis=9, name=None", f_cross, "paddle.cross"),
    D2_DEF("diagonal", "x, offset=0, axis1=0, axis2=1, name=None", f_diagonal, "paddle.diagonal"),
    D2_DEF("trace", "x, offset=0, axis1=0, axis2=1, name=None", f_trace, "paddle.trace"),
    D2_DEF("diag", "x, offset=0, padding_value=0, name=None", f_diag, "paddle.diag"),
    D2_DEF("moveaxis", "x, source, destination, name=None", f_moveaxis, "paddle.moveaxis"),
    D2_DEF("atleast_1d", "*inputs, name=None", f_atleast_1d, "paddle.atleast_1d"),
    D2_DEF("atleast_2d", "*inputs, name=None", f_atleast_2d, "paddle.atleast_2d"),
    D2_DEF("atleast_3d", "*inputs, name=None", f_atleast_3d, "paddle.atleast_3d"),
    D2_DEF("repeat_interleave", "x, repeats, axis=None, name=None", f_repeat_interleave,
           "paddle.repeat_interleave"),
    D2_DEF("index_add", "x, index, axis, value, name=None", f_index_add, "paddle.index_add"),
    D2_DEF("index_fill", "x, index, axis, value, name=None", f_index_fill, "paddle.index_fill"),
    D2_DEF("is_empty", "x, name=None", f_is_empty, "paddle.is_empty"),
};

/* Functions of paddle that are not Tensor methods. */
static const d2_def PADDLE_ONLY_DEFS[] = {
    D2_DEF("meshgrid", "*args, **kwargs", f_meshgrid, "paddle.meshgrid"),
    D2_DEF("broadcast_tensors", "input, name=None", f_broadcast_tensors,
           "paddle.broadcast_tensors"),
    D2_DEF("einsum", "equation, *operands", f_einsum, "paddle.einsum"),
};

static const d2_def RANK_DEFS[] = {
    D2_DEF("rank", "input", f_rank, "paddle.rank"),
};

int d2_pd_composite_add(d2_interp *I, pd_state *s)
{
    if (d2_pd_add_tensor_fns(I, s, COMPOSITE_DEFS, D2_COUNTOF(COMPOSITE_DEFS)) < 0 ||
        d2_pd_add_tensor_fns(I, s, INPLACE_DEFS, D2_COUNTOF(INPLACE_DEFS)) < 0 ||
        d2_module_add_defs(I, s->paddle, INPLACE_P_DEFS, D2_COUNTOF(INPLACE_P_DEFS)) < 0 ||
        d2_class_add_defs(I, s->tensor_cls, INPLACE_M_DEFS, D2_COUNTOF(INPLACE_M_DEFS),
                          D2_DEF_SELF) < 0 ||
        d2_pd_add_tensor_fns(I, s, RANK_DEFS, D2_COUNTOF(RANK_DEFS)) < 0 ||
        d2_pd_add_tensor_fns(I, s, MORE_DEFS, D2_COUNTOF(MORE_DEFS)) < 0 ||
        d2_pd_add_tensor_fns(I, s, MORE2_DEFS, D2_COUNTOF(MORE2_DEFS)) < 0 ||
        d2_module_add_defs(I, s->paddle, RANDOM_DEFS, D2_COUNTOF(RANDOM_DEFS)) < 0 ||
        d2_class_add_defs(I, s->tensor_cls, FORWARD_DEFS, D2_COUNTOF(FORWARD_DEFS), D2_DEF_SELF) < 0 ||
        d2_class_add_defs(I, s->tensor_cls, TENSOR_FILL_DEFS, D2_COUNTOF(TENSOR_FILL_DEFS),
                          D2_DEF_SELF) < 0 ||
        d2_module_add_defs(I, s->paddle, MORE_PADDLE_DEFS, D2_COUNTOF(MORE_PADDLE_DEFS)) < 0 ||
        d2_module_add_defs(I, s->paddle, PADDLE_ONLY_DEFS, D2_COUNTOF(PADDLE_ONLY_DEFS)) < 0 ||
        d2_module_add_defs(I, s->F, INPLACE_F_DEFS, D2_COUNTOF(INPLACE_F_DEFS)) < 0 ||
        d2_class_add_defs(I, s->tensor_cls, TENSOR_ONLY_DEFS, D2_COUNTOF(TENSOR_ONLY_DEFS),
                          D2_DEF_SELF) < 0)
        return -1;
    return 0;
}
