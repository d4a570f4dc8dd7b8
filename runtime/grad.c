/* grad.c - gradient rules of the op registry, written in registry ops, and the eager builder. */
#include "grad.h"

#include <math.h>
#include <string.h>

/* ---- what a rule works with ----
 * A rule keeps every handle it makes in a small pool released when it
 * returns; emitting stops at the first error (every later emit yields NULL),
 * so a rule reads straight through and reports once at the end. */

#define MAX_TMP 1024
#define MAX_ATTRS 24
#define MAX_PARTS 128 /* inputs of concat and stack, outputs of split */

typedef struct R {
    d2_gctx *g;
    d2_gbuilder *b;
    d2_gval tmp[MAX_TMP];
    int ntmp;
    d2_attrs at[MAX_ATTRS];
    int nat;
    int rc;
} R;

static int fail_code(R *r, d2_errcode code, const char *what)
{
    if (r->rc == 0)
        d2_err_set(r->g->err, code, "gradient of %s: %s", r->g->def->name, what);
    r->rc = -1;
    return -1;
}

/* an input or attribute the rule cannot use */
static int fail(R *r, const char *what) { return fail_code(r, D2_ERR_INVALID, what); }

static d2_gval keep(R *r, d2_gval v)
{
    if (r->ntmp == MAX_TMP) {
        r->b->vt->release(r->b, v);
        fail_code(r, D2_ERR_LIMIT, "too many intermediate values");
        return NULL;
    }
    return r->tmp[r->ntmp++] = v;
}

/* The default attributes of op id, owned by r; NULL after a failure. */
static d2_attrs *attrs_of(R *r, d2_op_id id)
{
    if (r->rc < 0)
        return NULL;
    const d2_opdef *def = d2_op_def(id);
    if (r->nat == MAX_ATTRS) {
        fail_code(r, D2_ERR_LIMIT, "too many attribute sets");
        return NULL;
    }
    d2_attrs *a = &r->at[r->nat];
    d2_attrs_init_default(def, a);
    if (a->n != def->n_attrs) {
        fail_code(r, D2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    r->nat++;
    return a;
}

#define SET(r, a, id, kind, name, ...)                                                             \
    do {                                                                                           \
        if ((a) && d2_attr_set_##kind(d2_op_def(id), (a), name, __VA_ARGS__) < 0)                  \
            fail(r, "cannot set an attribute");                                                    \
    } while (0)

/* Emits op id with n_out outputs into outs (kept by r). */
static int emitm(R *r, d2_op_id id, const d2_attrs *a, d2_gval *ins, int n_in, d2_gval *outs,
                 int n_out)
{
    for (int i = 0; i < n_out; i++)
        outs[i] = NULL;
    if (r->rc < 0)
        return -1;
    if (r->b->vt->emit(r->b, id, a, ins, n_in, outs, n_out, r->g->err) < 0) {
        r->rc = -1;
        return -1;
    }
    for (int i = 0; i < n_out; i++)
        if (!keep(r, outs[i]))
            return -1;
    return 0;
}

static d2_gval emit1(R *r, d2_op_id id, const d2_attrs *a, d2_gval *ins, int n_in)
{
    d2_gval out;
    return emitm(r, id, a, ins, n_in, &out, 1) < 0 ? NULL : out;
}

#define NARGS(...) ((int)(sizeof((d2_gval[]){__VA_ARGS__}) / sizeof(d2_gval)))
/* E(r, op, attrs, inputs...): one op, one output. */
#define E(r, op, a, ...) emit1(r, D2_OP_##op, a, (d2_gval[]){__VA_ARGS__}, NARGS(__VA_ARGS__))

static void type_of(R *r, d2_gval v, d2_type *t) { r->b->vt->type_of(r->b, v, t); }

static d2_dtype dtype_of(R *r, d2_gval v)
{
    d2_type t;
    type_of(r, v, &t);
    return t.dtype;
}

static int ndim_of(R *r, d2_gval v)
{
    d2_type t;
    type_of(r, v, &t);
    return t.shape.ndim;
}

/* Sets din[i] to v (a new reference) when input i's gradient is wanted. */
static void give(R *r, int i, d2_gval v)
{
    if (r->rc < 0 || !v || i >= r->g->n_in || !r->g->need[i])
        return;
    r->g->din[i] = r->b->vt->ref(r->b, v);
}

#define NEED(r, i) ((i) < (r)->g->n_in && (r)->g->need[i] && (r)->g->in[i])
#define X(r) ((r)->g->in[0])
#define Y(r) ((r)->g->in[1])
#define OUT(r) ((r)->g->out[0])
#define DOUT(r) ((r)->g->dout[0])

/* ---- small compositions ---- */

/* A 0-d constant of dtype dt. */
static d2_gval cst(R *r, d2_dtype dt, double v)
{
    d2_attrs *a = attrs_of(r, D2_OP_full);
    SET(r, a, D2_OP_full, float, "value", v);
    SET(r, a, D2_OP_full, int, "dtype", (int64_t)dt);
    return r->rc < 0 ? NULL : emit1(r, D2_OP_full, a, NULL, 0);
}

static d2_gval scale(R *r, d2_gval x, double s, double bias)
{
    d2_attrs *a = attrs_of(r, D2_OP_scale);
    SET(r, a, D2_OP_scale, float, "scale", s);
    SET(r, a, D2_OP_scale, float, "bias", bias);
    return E(r, scale, a, x);
}

static bool static_equal(R *r, d2_gval a, d2_gval b)
{
    d2_type ta, tb;
    type_of(r, a, &ta);
    type_of(r, b, &tb);
    return d2_shape_is_static(&ta.shape) && d2_shape_equal(&ta.shape, &tb.shape);
}

/* v summed down to like's shape (undoes broadcasting); v itself when the
 * shapes are statically equal. */
static d2_gval sum_to(R *r, d2_gval v, d2_gval like)
{
    if (r->rc < 0 || !v)
        return NULL;
    return static_equal(r, v, like) ? v : E(r, reduce_as, NULL, v, like);
}

/* v broadcast to like's shape (read at run time). */
static d2_gval expand_to(R *r, d2_gval v, d2_gval like)
{
    if (r->rc < 0 || !v)
        return NULL;
    if (static_equal(r, v, like))
        return v;
    return E(r, expand, NULL, v, E(r, shape, NULL, like));
}

/* v reshaped to like's shape (read at run time). */
static d2_gval reshape_to(R *r, d2_gval v, d2_gval like)
{
    if (r->rc < 0 || !v)
        return NULL;
    if (static_equal(r, v, like))
        return v;
    return E(r, reshape, NULL, v, E(r, shape, NULL, like));
}

static d2_gval unsqueeze(R *r, d2_gval x, const int64_t *axes, int n)
{
    if (n == 0)
        return x;
    d2_attrs *a = attrs_of(r, D2_OP_unsqueeze);
    SET(r, a, D2_OP_unsqueeze, ints, "axis", axes, n);
    return E(r, unsqueeze, a, x);
}

static d2_gval transpose(R *r, d2_gval x, const int64_t *perm, int n)
{
    d2_attrs *a = attrs_of(r, D2_OP_transpose);
    SET(r, a, D2_OP_transpose, ints, "perm", perm, n);
    return E(r, transpose, a, x);
}

static d2_gval matmul(R *r, d2_gval x, d2_gval y, bool tx, bool ty)
{
    d2_attrs *a = attrs_of(r, D2_OP_matmul);
    SET(r, a, D2_OP_matmul, bool, "transpose_x", tx);
    SET(r, a, D2_OP_matmul, bool, "transpose_y", ty);
    return E(r, matmul, a, x, y);
}

/* sum (op sum or mean with keepdim) of x over axes */
static d2_gval reduce(R *r, d2_op_id id, d2_gval x, const int64_t *axes, int n, bool keepdim)
{
    d2_attrs *a = attrs_of(r, id);
    SET(r, a, id, ints, "axis", axes, n);
    SET(r, a, id, bool, "keepdim", keepdim);
    return emit1(r, id, a, &x, 1);
}

static d2_gval cast(R *r, d2_gval x, d2_dtype dt)
{
    if (r->rc < 0 || !x)
        return NULL;
    if (dtype_of(r, x) == dt)
        return x;
    d2_attrs *a = attrs_of(r, D2_OP_cast);
    SET(r, a, D2_OP_cast, int, "dtype", (int64_t)dt);
    return E(r, cast, a, x);
}

/* where(cond, v, 0) */
static d2_gval mask(R *r, d2_gval cond, d2_gval v)
{
    if (r->rc < 0)
        return NULL;
    return E(r, where, NULL, cond, v, cst(r, dtype_of(r, v), 0));
}

/* ---- elementwise binary: gradients summed back over broadcast dims ---- */

static int g_add(R *r)
{
    if (NEED(r, 0))
        give(r, 0, sum_to(r, DOUT(r), X(r)));
    if (NEED(r, 1))
        give(r, 1, sum_to(r, DOUT(r), Y(r)));
    return r->rc;
}

static int g_subtract(R *r)
{
    if (NEED(r, 0))
        give(r, 0, sum_to(r, DOUT(r), X(r)));
    if (NEED(r, 1))
        give(r, 1, sum_to(r, E(r, neg, NULL, DOUT(r)), Y(r)));
    return r->rc;
}

static int g_multiply(R *r)
{
    if (NEED(r, 0))
        give(r, 0, sum_to(r, E(r, multiply, NULL, DOUT(r), Y(r)), X(r)));
    if (NEED(r, 1))
        give(r, 1, sum_to(r, E(r, multiply, NULL, DOUT(r), X(r)), Y(r)));
    return r->rc;
}

/* dx = dout / y, dy = -dout * out / y */
static int g_divide(R *r)
{
    d2_gval dx = E(r, divide, NULL, DOUT(r), Y(r));
    if (NEED(r, 0))
        give(r, 0, sum_to(r, dx, X(r)));
    if (NEED(r, 1))
        give(r, 1, sum_to(r, E(r, neg, NULL, E(r, multiply, NULL, dx, OUT(r))), Y(r)));
    return r->rc;
}

/* out = x - floor(x / y) * y: dx = dout, dy = -dout * floor(x / y) */
static int g_remainder(R *r)
{
    if (NEED(r, 0))
        give(r, 0, sum_to(r, DOUT(r), X(r)));
    if (NEED(r, 1)) {
        d2_gval q = E(r, floor, NULL, E(r, divide, NULL, X(r), Y(r)));
        give(r, 1, sum_to(r, E(r, neg, NULL, E(r, multiply, NULL, DOUT(r), q)), Y(r)));
    }
    return r->rc;
}

/* dx = dout * y * x^(y-1), dy = dout * out * log(x) (Paddle's formulas) */
static int g_pow(R *r)
{
    if (NEED(r, 0)) {
        d2_gval p = E(r, pow, NULL, X(r), scale(r, Y(r), 1, -1));
        give(r, 0, sum_to(r, E(r, multiply, NULL, DOUT(r), E(r, multiply, NULL, Y(r), p)), X(r)));
    }
    if (NEED(r, 1)) {
        d2_gval l = E(r, multiply, NULL, OUT(r), E(r, log, NULL, X(r)));
        give(r, 1, sum_to(r, E(r, multiply, NULL, DOUT(r), l), Y(r)));
    }
    return r->rc;
}

/* Paddle: maximum sends dout to x where x > y and to y elsewhere; minimum
 * to x where x < y. */
static int minmax(R *r, d2_op_id cmp)
{
    d2_gval xs[2] = {X(r), Y(r)};
    d2_gval c = emit1(r, cmp, NULL, xs, 2);
    d2_gval dy = NULL;
    if (NEED(r, 0))
        give(r, 0, sum_to(r, mask(r, c, DOUT(r)), X(r)));
    if (NEED(r, 1)) {
        dy = E(r, where, NULL, c, cst(r, dtype_of(r, DOUT(r)), 0), DOUT(r));
        give(r, 1, sum_to(r, dy, Y(r)));
    }
    return r->rc;
}

static int g_maximum(R *r) { return minmax(r, D2_OP_greater_than); }
static int g_minimum(R *r) { return minmax(r, D2_OP_less_than); }

/* ---- elementwise unary: dx = dout * f'(x) ---- */

static int unary_give(R *r, d2_gval factor)
{
    if (NEED(r, 0))
        give(r, 0, E(r, multiply, NULL, DOUT(r), factor));
    return r->rc;
}

static int g_neg(R *r)
{
    give(r, 0, E(r, neg, NULL, DOUT(r)));
    return r->rc;
}

static int g_abs(R *r) { return unary_give(r, E(r, sign, NULL, X(r))); }

/* Piecewise constant: the gradient is zero (Paddle's sign, floor and ceil
 * gradients); din stays NULL. */
static int g_zero(R *r) { return r->rc; }

static int g_square(R *r) { return unary_give(r, scale(r, X(r), 2, 0)); }
static int g_exp(R *r) { return unary_give(r, OUT(r)); }

static int g_log(R *r)
{
    give(r, 0, E(r, divide, NULL, DOUT(r), X(r)));
    return r->rc;
}

static int g_sqrt(R *r)
{
    give(r, 0, E(r, divide, NULL, scale(r, DOUT(r), 0.5, 0), OUT(r)));
    return r->rc;
}

/* d rsqrt = -0.5 out^3 */
static int g_rsqrt(R *r)
{
    d2_gval o3 = E(r, multiply, NULL, OUT(r), E(r, square, NULL, OUT(r)));
    return unary_give(r, scale(r, o3, -0.5, 0));
}

static int g_reciprocal(R *r) { return unary_give(r, E(r, neg, NULL, E(r, square, NULL, OUT(r)))); }
static int g_sin(R *r) { return unary_give(r, E(r, cos, NULL, X(r))); }
static int g_cos(R *r) { return unary_give(r, E(r, neg, NULL, E(r, sin, NULL, X(r)))); }
static int g_tanh(R *r) { return unary_give(r, scale(r, E(r, square, NULL, OUT(r)), -1, 1)); }

static int g_sigmoid(R *r)
{
    return unary_give(r, E(r, multiply, NULL, OUT(r), scale(r, OUT(r), -1, 1)));
}

/* d erf = 2/sqrt(pi) exp(-x^2) */
static int g_erf(R *r)
{
    d2_gval e = E(r, exp, NULL, scale(r, E(r, square, NULL, X(r)), -1, 0));
    return unary_give(r, scale(r, e, 1.1283791670955126, 0));
}

/* one op over relu's result (out > 0 exactly where x > 0, NaN included) */
static int g_relu(R *r)
{
    give(r, 0, E(r, relu_grad, NULL, OUT(r), DOUT(r)));
    return r->rc;
}

/* relu_grad is linear in dout with the same mask; out gets none */
static int g_relu_grad(R *r)
{
    give(r, 1, E(r, relu_grad, NULL, X(r), DOUT(r)));
    return r->rc;
}

/* d silu = s (1 + x (1 - s)), s = sigmoid(x) */
static int g_silu(R *r)
{
    d2_gval s = E(r, sigmoid, NULL, X(r));
    d2_gval t = E(r, multiply, NULL, X(r), scale(r, s, -1, 1));
    return unary_give(r, E(r, multiply, NULL, s, scale(r, t, 1, 1)));
}

/* exact: Phi(x) + x phi(x) with Phi = (1 + erf(x/sqrt 2))/2, phi = exp(-x^2/2)/sqrt(2 pi);
 * tanh form: with u = c (x + a x^3), t = tanh(u):
 * (1 + t)/2 + x/2 (1 - t^2) c (1 + 3 a x^2) */
static int g_gelu(R *r)
{
    d2_gval x = X(r), f;
    if (d2_attr_bool(r->g->def, r->g->attrs, "approximate")) {
        const double c = 0.79788456080286535588, a = 0.044715;
        d2_gval x2 = E(r, square, NULL, x);
        d2_gval u = E(r, multiply, NULL, x, scale(r, x2, c * a, c));
        d2_gval t = E(r, tanh, NULL, u);
        d2_gval du = scale(r, x2, 3 * c * a, c);
        d2_gval sech2 = scale(r, E(r, square, NULL, t), -1, 1);
        d2_gval right = E(r, multiply, NULL, scale(r, x, 0.5, 0), E(r, multiply, NULL, sech2, du));
        f = E(r, add, NULL, scale(r, t, 0.5, 0.5), right);
    } else {
        d2_gval cdf = scale(r, E(r, erf, NULL, scale(r, x, M_SQRT1_2, 0)), 0.5, 0.5);
        d2_gval pdf = scale(r, E(r, exp, NULL, scale(r, E(r, square, NULL, x), -0.5, 0)),
                            0.3989422804014327, 0);
        f = E(r, add, NULL, cdf, E(r, multiply, NULL, x, pdf));
    }
    return unary_give(r, f);
}

static int g_leaky_relu(R *r)
{
    double slope = d2_attr_float(r->g->def, r->g->attrs, "negative_slope");
    d2_gval pos = E(r, greater_than, NULL, X(r), cst(r, dtype_of(r, X(r)), 0));
    give(r, 0, E(r, where, NULL, pos, DOUT(r), scale(r, DOUT(r), slope, 0)));
    return r->rc;
}

static int g_scale(R *r)
{
    give(r, 0, scale(r, DOUT(r), d2_attr_float(r->g->def, r->g->attrs, "scale"), 0));
    return r->rc;
}

/* Paddle: the gradient flows where min < x < max */
static int g_clip(R *r)
{
    double lo = d2_attr_float(r->g->def, r->g->attrs, "min");
    double hi = d2_attr_float(r->g->def, r->g->attrs, "max");
    d2_dtype dt = dtype_of(r, X(r));
    d2_gval in = NULL;
    if (lo > -INFINITY)
        in = E(r, greater_than, NULL, X(r), cst(r, dt, lo));
    if (hi < INFINITY) {
        d2_gval below = E(r, less_than, NULL, X(r), cst(r, dt, hi));
        in = in ? E(r, logical_and, NULL, in, below) : below;
    }
    give(r, 0, in ? mask(r, in, DOUT(r)) : DOUT(r));
    return r->rc;
}

static d2_gval sum_axis_keep(R *r, d2_gval v)
{
    int64_t axis = d2_attr_int(r->g->def, r->g->attrs, "axis");
    return reduce(r, D2_OP_sum, v, &axis, 1, true);
}

/* dx = out (dout - sum(dout out)) */
static int g_softmax(R *r)
{
    d2_gval s = sum_axis_keep(r, E(r, multiply, NULL, DOUT(r), OUT(r)));
    give(r, 0, E(r, multiply, NULL, OUT(r), E(r, subtract, NULL, DOUT(r), s)));
    return r->rc;
}

/* dx = dout - exp(out) sum(dout) */
static int g_log_softmax(R *r)
{
    d2_gval s = sum_axis_keep(r, DOUT(r));
    give(r, 0, E(r, subtract, NULL, DOUT(r), E(r, multiply, NULL, E(r, exp, NULL, OUT(r)), s)));
    return r->rc;
}

static int g_cast(R *r)
{
    give(r, 0, cast(r, DOUT(r), dtype_of(r, X(r))));
    return r->rc;
}

/* identity-like ops */
static int g_assign(R *r)
{
    give(r, 0, DOUT(r));
    return r->rc;
}

/* training dropout: dx = dout * mask (the mask holds the scaling) */
static int g_dropout_train(R *r)
{
    give(r, 0, E(r, multiply, NULL, DOUT(r), r->g->out[1]));
    return r->rc;
}

/* inference dropout: identity, or x (1 - p) for downscale_in_infer */
static int g_dropout(R *r)
{
    const char *mode = d2_attr_str(r->g->def, r->g->attrs, "mode");
    if (strcmp(mode, "downscale_in_infer") == 0)
        give(r, 0, scale(r, DOUT(r), 1 - d2_attr_float(r->g->def, r->g->attrs, "p"), 0));
    else
        give(r, 0, DOUT(r));
    return r->rc;
}

/* where(cond, x, y): dx = where(cond, dout, 0), dy = where(cond, 0, dout) */
static int g_where(R *r)
{
    d2_gval c = r->g->in[0], x = r->g->in[1], y = r->g->in[2];
    d2_gval zero = cst(r, dtype_of(r, DOUT(r)), 0);
    if (NEED(r, 1))
        give(r, 1, sum_to(r, E(r, where, NULL, c, DOUT(r), zero), x));
    if (NEED(r, 2))
        give(r, 2, sum_to(r, E(r, where, NULL, c, zero, DOUT(r)), y));
    return r->rc;
}

/* ---- reductions ---- */

/* The reduced axes of a reduction (all for []), normalised and ascending. */
static int reduced_axes(R *r, int nd, int64_t *axes)
{
    int n;
    const int64_t *v = d2_attr_ints(r->g->def, r->g->attrs, "axis", &n);
    bool red[D2_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        int64_t a = v[i] < 0 ? v[i] + nd : v[i];
        if (a >= 0 && a < nd)
            red[a] = true;
    }
    int k = 0;
    for (int d = 0; d < nd; d++)
        if (red[d] || n == 0)
            axes[k++] = d;
    return k;
}

/* v (shaped like the reduction's output) with the reduced dims put back as 1s. */
static d2_gval keepdims(R *r, d2_gval v)
{
    if (r->rc < 0 || !v)
        return NULL;
    int nd = ndim_of(r, X(r));
    if (d2_attr_bool(r->g->def, r->g->attrs, "keepdim") || ndim_of(r, v) == nd)
        return v;
    int64_t axes[D2_MAX_DIMS];
    int n = reduced_axes(r, nd, axes);
    return unsqueeze(r, v, axes, n);
}

static int g_sum(R *r)
{
    d2_gval d = cast(r, DOUT(r), dtype_of(r, X(r)));
    give(r, 0, expand_to(r, keepdims(r, d), X(r)));
    return r->rc;
}

static int g_mean(R *r)
{
    d2_type tx, to;
    type_of(r, X(r), &tx);
    type_of(r, OUT(r), &to);
    int64_t nx = d2_shape_numel(&tx.shape), no = d2_shape_numel(&to.shape);
    d2_gval d = expand_to(r, keepdims(r, DOUT(r)), X(r));
    if (nx > 0 && no >= 0) {
        give(r, 0, scale(r, d, (double)no / (double)nx, 0));
    } else {
        d2_gval f = E(r, divide, NULL, cast(r, E(r, numel, NULL, OUT(r)), tx.dtype),
                      cast(r, E(r, numel, NULL, X(r)), tx.dtype));
        give(r, 0, E(r, multiply, NULL, d, f));
    }
    return r->rc;
}

/* Paddle: every element equal to the extreme gets dout */
static int g_maxmin(R *r)
{
    d2_gval eq = E(r, equal, NULL, X(r), keepdims(r, OUT(r)));
    give(r, 0, E(r, where, NULL, eq, keepdims(r, DOUT(r)), cst(r, dtype_of(r, X(r)), 0)));
    return r->rc;
}

/* Paddle's amax / amin: dout split evenly among the elements equal to the extreme */
static int g_amaxmin(R *r)
{
    d2_dtype dt = dtype_of(r, X(r));
    d2_gval m = cast(r, E(r, equal, NULL, X(r), keepdims(r, OUT(r))), dt);
    int64_t axes[D2_MAX_DIMS];
    int n = reduced_axes(r, ndim_of(r, X(r)), axes);
    d2_gval cnt = reduce(r, D2_OP_sum, m, axes, n, true);
    give(r, 0, E(r, divide, NULL, E(r, multiply, NULL, m, keepdims(r, DOUT(r))), cnt));
    return r->rc;
}

/* Paddle: dx = dout * out / x */
static int g_prod(R *r)
{
    d2_gval t = E(r, multiply, NULL, keepdims(r, DOUT(r)), keepdims(r, OUT(r)));
    give(r, 0, E(r, divide, NULL, t, X(r)));
    return r->rc;
}

/* ---- matmul and linear ----
 * 1-D operands become [1,K] / [K,1] (flags ignored), dout gets the dropped
 * dims back, and batch dims are summed back to each operand's shape. */
static int g_matmul(R *r)
{
    d2_gval x = X(r), y = Y(r), d = DOUT(r);
    bool tx = d2_attr_bool(r->g->def, r->g->attrs, "transpose_x");
    bool ty = d2_attr_bool(r->g->def, r->g->attrs, "transpose_y");
    bool x1 = ndim_of(r, x) == 1, y1 = ndim_of(r, y) == 1;
    int64_t a0 = 0, a1 = 1, ad = ndim_of(r, d);
    if (x1) {
        x = unsqueeze(r, x, &a0, 1);
        tx = false;
    }
    if (y1) {
        y = unsqueeze(r, y, &a1, 1);
        ty = false;
    }
    if (x1 && y1) {
        int64_t both[2] = {0, 1};
        d = unsqueeze(r, d, both, 2);
    } else if (x1) {
        int64_t ax = ad - 1;
        d = unsqueeze(r, d, &ax, 1);
    } else if (y1) {
        d = unsqueeze(r, d, &ad, 1);
    }
    if (NEED(r, 0)) {
        d2_gval dx = !tx ? matmul(r, d, y, false, !ty) : matmul(r, y, d, ty, true);
        give(r, 0, reshape_to(r, sum_to(r, dx, x), X(r)));
    }
    if (NEED(r, 1)) {
        d2_gval dy = !ty ? matmul(r, x, d, !tx, false) : matmul(r, d, x, true, tx);
        give(r, 1, reshape_to(r, sum_to(r, dy, y), Y(r)));
    }
    return r->rc;
}

/* out = x W + b with x [..., in], W [in, out] */
static int g_linear(R *r)
{
    d2_gval x = X(r), w = Y(r), d = DOUT(r);
    if (NEED(r, 0))
        give(r, 0, matmul(r, d, w, false, true));
    if (NEED(r, 1)) {
        int nd = ndim_of(r, x);
        d2_gval x2 = x, d2 = d;
        if (nd == 1) {
            int64_t a0 = 0;
            x2 = unsqueeze(r, x, &a0, 1);
            d2 = unsqueeze(r, d, &a0, 1);
        } else if (nd > 2) {
            d2_attrs *a = attrs_of(r, D2_OP_flatten);
            SET(r, a, D2_OP_flatten, int, "start_axis", 0);
            SET(r, a, D2_OP_flatten, int, "stop_axis", nd - 2);
            x2 = E(r, flatten, a, x);
            d2 = E(r, flatten, a, d);
        }
        give(r, 1, matmul(r, x2, d2, true, false));
    }
    if (NEED(r, 2))
        give(r, 2, sum_to(r, d, r->g->in[2]));
    return r->rc;
}

/* ---- shape manipulation ---- */

static int g_reshape_like(R *r)
{
    give(r, 0, reshape_to(r, DOUT(r), X(r)));
    return r->rc;
}

static int g_transpose(R *r)
{
    int n;
    const int64_t *p = d2_attr_ints(r->g->def, r->g->attrs, "perm", &n);
    int64_t inv[D2_MAX_DIMS];
    if (n > D2_MAX_DIMS)
        return fail(r, "bad perm");
    for (int i = 0; i < n; i++) {
        int64_t a = p[i] < 0 ? p[i] + n : p[i];
        if (a < 0 || a >= n)
            return fail(r, "bad perm");
        inv[a] = i;
    }
    give(r, 0, transpose(r, DOUT(r), inv, n));
    return r->rc;
}

/* Splits dout along axis into pieces shaped like the inputs: split when their
 * sizes along axis are static, else index_select over run-time ranges. */
static int g_concat(R *r)
{
    d2_gctx *g = r->g;
    int n = g->n_in, nd = ndim_of(r, g->in[0]);
    if (n > MAX_PARTS)
        return fail(r, "too many inputs");
    int64_t axis = d2_attr_int(g->def, g->attrs, "axis");
    axis = axis < 0 ? axis + nd : axis;
    if (axis < 0 || axis >= nd)
        return fail(r, "bad axis");
    int64_t sec[MAX_PARTS];
    bool known = true;
    for (int i = 0; i < n; i++) {
        d2_type t;
        type_of(r, g->in[i], &t);
        sec[i] = t.shape.dims[axis];
        known = known && sec[i] >= 0;
    }
    if (known) {
        d2_attrs *a = attrs_of(r, D2_OP_split);
        SET(r, a, D2_OP_split, ints, "sections", sec, n);
        SET(r, a, D2_OP_split, int, "axis", axis);
        d2_gval parts[MAX_PARTS];
        if (emitm(r, D2_OP_split, a, &DOUT(r), 1, parts, n) < 0)
            return -1;
        for (int i = 0; i < n; i++)
            give(r, i, parts[i]);
        return r->rc;
    }
    d2_attrs *sl = attrs_of(r, D2_OP_slice);
    int64_t z = 0, e = axis + 1;
    SET(r, sl, D2_OP_slice, ints, "axes", &z, 1);
    SET(r, sl, D2_OP_slice, ints, "starts", &axis, 1);
    SET(r, sl, D2_OP_slice, ints, "ends", &e, 1);
    d2_attrs *sel = attrs_of(r, D2_OP_index_select);
    SET(r, sel, D2_OP_index_select, int, "axis", axis);
    d2_gval start = NULL;
    for (int i = 0; i < n; i++) {
        d2_gval len = cast(r, E(r, slice, sl, E(r, shape, NULL, g->in[i])), D2_I64);
        d2_gval end = start ? E(r, add, NULL, start, len) : len;
        if (NEED(r, i)) {
            d2_gval lo = start ? start : cst(r, D2_I64, 0);
            d2_gval idx = E(r, arange, NULL, lo, end, NULL);
            give(r, i, E(r, index_select, sel, DOUT(r), idx));
        }
        start = end;
    }
    return r->rc;
}

/* the slices of dout along axis, each without that axis */
static int g_stack(R *r)
{
    d2_gctx *g = r->g;
    int n = g->n_in;
    if (n > MAX_PARTS)
        return fail(r, "too many inputs");
    int64_t axis = d2_attr_int(g->def, g->attrs, "axis");
    int nd = ndim_of(r, DOUT(r));
    axis = axis < 0 ? axis + nd : axis;
    d2_attrs *a = attrs_of(r, D2_OP_split);
    SET(r, a, D2_OP_split, int, "num", n);
    SET(r, a, D2_OP_split, int, "axis", axis);
    d2_attrs *sq = attrs_of(r, D2_OP_squeeze);
    SET(r, sq, D2_OP_squeeze, ints, "axis", &axis, 1);
    d2_gval parts[MAX_PARTS];
    if (emitm(r, D2_OP_split, a, &DOUT(r), 1, parts, n) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (NEED(r, i))
            give(r, i, E(r, squeeze, sq, parts[i]));
    return r->rc;
}

/* ---- tensor arrays: array gradients are arrays with an item per item ---- */

/* d array: zeros like the array with dout written at i */
static int g_array_read(R *r)
{
    d2_gval z = E(r, array_zeros_like, NULL, X(r));
    give(r, 0, E(r, array_write, NULL, z, Y(r), DOUT(r)));
    return r->rc;
}

/* d x: item i of dout; d array: dout with item i zeroed */
static int g_array_write(R *r)
{
    d2_gval i = Y(r), dx = E(r, array_read, NULL, DOUT(r), i);
    if (NEED(r, 2))
        give(r, 2, dx);
    if (NEED(r, 0))
        give(r, 0, E(r, array_write, NULL, DOUT(r), i, E(r, full_like, NULL, dx)));
    return r->rc;
}

/* the slices of dout along axis */
static int g_array_stack(R *r)
{
    d2_attrs *a = attrs_of(r, D2_OP_array_unstack);
    SET(r, a, D2_OP_array_unstack, int, "axis", d2_attr_int(r->g->def, r->g->attrs, "axis"));
    give(r, 0, E(r, array_unstack, a, DOUT(r)));
    return r->rc;
}

/* dout cut along axis into pieces like the items */
static int g_array_concat(R *r)
{
    d2_attrs *a = attrs_of(r, D2_OP_array_split_like);
    SET(r, a, D2_OP_array_split_like, int, "axis", d2_attr_int(r->g->def, r->g->attrs, "axis"));
    give(r, 0, E(r, array_split_like, a, DOUT(r), X(r)));
    return r->rc;
}

/* concat of the outputs' gradients, zeros where none flows */
static int g_split(R *r)
{
    d2_gctx *g = r->g;
    if (g->n_out > MAX_PARTS)
        return fail(r, "too many outputs");
    d2_gval parts[MAX_PARTS];
    for (int k = 0; k < g->n_out; k++) {
        parts[k] = g->dout[k];
        if (!parts[k]) {
            d2_attrs *a = attrs_of(r, D2_OP_full_like);
            SET(r, a, D2_OP_full_like, float, "value", 0.0);
            parts[k] = E(r, full_like, a, g->out[k]);
        }
    }
    d2_attrs *a = attrs_of(r, D2_OP_concat);
    SET(r, a, D2_OP_concat, int, "axis", d2_attr_int(g->def, g->attrs, "axis"));
    if (r->rc == 0)
        give(r, 0, emit1(r, D2_OP_concat, a, parts, g->n_out));
    return r->rc;
}

static d2_gval zeros_like(R *r, d2_gval x)
{
    d2_attrs *a = attrs_of(r, D2_OP_full_like);
    SET(r, a, D2_OP_full_like, float, "value", 0.0);
    return E(r, full_like, a, x);
}

/* Copies the slice attributes of the forward op into set_value's or slice's. */
static d2_attrs *slice_attrs(R *r, d2_op_id id)
{
    static const char *names[] = {"axes", "starts", "ends", "strides", "decrease_axis"};
    d2_attrs *a = attrs_of(r, id);
    for (int i = 0; i < 5; i++) {
        int n;
        const int64_t *v = d2_attr_ints(r->g->def, r->g->attrs, names[i], &n);
        SET(r, a, id, ints, names[i], v, n);
    }
    return a;
}

/* dout with the dims slice's decrease_axis removed put back */
static d2_gval undecrease(R *r, d2_gval d, int nd)
{
    int n;
    const int64_t *dec = d2_attr_ints(r->g->def, r->g->attrs, "decrease_axis", &n);
    bool drop[D2_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        int64_t a = dec[i] < 0 ? dec[i] + nd : dec[i];
        if (a >= 0 && a < nd)
            drop[a] = true;
    }
    int64_t axes[D2_MAX_DIMS];
    int k = 0;
    for (int i = 0; i < nd; i++)
        if (drop[i])
            axes[k++] = i;
    return unsqueeze(r, d, axes, k);
}

/* dx = zeros with dout written into the slice; dout has the decreased axes
 * put back, so the set_value keeps them (a full-rank region) */
static int g_slice(R *r)
{
    d2_gval d = undecrease(r, DOUT(r), ndim_of(r, X(r)));
    d2_attrs *a = slice_attrs(r, D2_OP_set_value);
    SET(r, a, D2_OP_set_value, ints, "decrease_axis", NULL, 0);
    give(r, 0, E(r, set_value, a, zeros_like(r, X(r)), d));
    return r->rc;
}

/* dx = dout with the slice zeroed; dvalue = the slice of dout summed to value's shape */
static int g_set_value(R *r)
{
    if (NEED(r, 0))
        give(r, 0,
             E(r, set_value, slice_attrs(r, D2_OP_set_value), DOUT(r),
               cst(r, dtype_of(r, DOUT(r)), 0)));
    if (NEED(r, 1)) {
        /* v may have more (leading, size-1) dims than the slot it fills, as
         * y[1] = v with v of shape [1]: align the ranks first */
        d2_gval s = E(r, slice, slice_attrs(r, D2_OP_slice), DOUT(r));
        int extra = ndim_of(r, Y(r)) - (s ? ndim_of(r, s) : 0);
        if (extra > 0) {
            int64_t lead[D2_MAX_DIMS];
            for (int i = 0; i < extra; i++)
                lead[i] = i;
            s = unsqueeze(r, s, lead, extra);
        }
        give(r, 1, sum_to(r, s, Y(r)));
    }
    return r->rc;
}

/* index_put with accumulate into zeros shaped like x */
static d2_gval scatter_add(R *r, d2_gval x, d2_gval v, d2_gval *idx, int n, int64_t axis)
{
    d2_attrs *a = attrs_of(r, D2_OP_index_put);
    SET(r, a, D2_OP_index_put, int, "axis", axis);
    SET(r, a, D2_OP_index_put, bool, "accumulate", true);
    if (r->rc < 0 || n > D2_MAX_DIMS)
        return NULL;
    d2_gval ins[2 + D2_MAX_DIMS] = {zeros_like(r, x), v};
    for (int i = 0; i < n; i++)
        ins[2 + i] = idx[i];
    return emit1(r, D2_OP_index_put, a, ins, 2 + n);
}

/* gather / index_select: dout added at the picked positions (repeats add up) */
static int g_gather(R *r)
{
    int nd = ndim_of(r, X(r));
    int64_t axis = d2_attr_int(r->g->def, r->g->attrs, "axis");
    axis = axis < 0 ? axis + nd : axis;
    d2_gval idx = Y(r), d = DOUT(r);
    if (ndim_of(r, idx) == 0) {
        int64_t z = 0;
        idx = unsqueeze(r, idx, &z, 1);
        d = unsqueeze(r, d, &axis, 1);
    }
    give(r, 0, scatter_add(r, X(r), d, &idx, 1, axis));
    return r->rc;
}

/* index_put: dx = dout, zeroed where values were written (unless accumulating);
 * dvalue = the written elements of dout summed to value's shape. With repeated
 * indices and no accumulation only the last write is live in the forward op,
 * but every repeat gets its gradient here. */
static int g_index_put(R *r)
{
    d2_gctx *g = r->g;
    int n = g->n_in - 2;
    if (n < 1 || n > D2_MAX_DIMS)
        return fail(r, "bad index count");
    int64_t axis = d2_attr_int(g->def, g->attrs, "axis");
    d2_gval ins[2 + D2_MAX_DIMS];
    if (NEED(r, 0)) {
        if (d2_attr_bool(g->def, g->attrs, "accumulate")) {
            give(r, 0, DOUT(r));
        } else {
            d2_attrs *a = attrs_of(r, D2_OP_index_put);
            SET(r, a, D2_OP_index_put, int, "axis", axis);
            ins[0] = DOUT(r);
            ins[1] = cst(r, dtype_of(r, DOUT(r)), 0);
            for (int i = 0; i < n; i++)
                ins[2 + i] = g->in[2 + i];
            if (r->rc == 0)
                give(r, 0, emit1(r, D2_OP_index_put, a, ins, 2 + n));
        }
    }
    if (NEED(r, 1)) {
        d2_attrs *a = attrs_of(r, D2_OP_index_get);
        SET(r, a, D2_OP_index_get, int, "axis", axis);
        ins[0] = DOUT(r);
        for (int i = 0; i < n; i++)
            ins[1 + i] = g->in[2 + i];
        if (r->rc == 0)
            give(r, 1, sum_to(r, emit1(r, D2_OP_index_get, a, ins, 1 + n), Y(r)));
    }
    return r->rc;
}

static int g_index_get(R *r)
{
    d2_gctx *g = r->g;
    give(r, 0,
         scatter_add(r, X(r), DOUT(r), g->in + 1, g->n_in - 1,
                     d2_attr_int(g->def, g->attrs, "axis")));
    return r->rc;
}

static int g_expand(R *r)
{
    give(r, 0, sum_to(r, DOUT(r), X(r)));
    return r->rc;
}

/* dout viewed as [r0, d0, r1, d1, ...] (x padded with leading 1s to the rank of
 * the result) summed over the repeat dims; the shape is built at run time
 * unless x's dims are static. */
static int g_tile(R *r)
{
    int nr, nx = ndim_of(r, X(r));
    const int64_t *rep = d2_attr_ints(r->g->def, r->g->attrs, "repeat_times", &nr);
    int n = nr > nx ? nr : nx;
    if (n > D2_MAX_DIMS / 2) {
        /* more than 4 dims: the [r, d] view would exceed the rank limit */
        return fail_code(r, D2_ERR_UNSUPPORTED, "tile of more than 4 dims has no gradient");
    }
    d2_type tx;
    type_of(r, X(r), &tx);
    int64_t reps[D2_MAX_DIMS], view[D2_MAX_DIMS], axes[D2_MAX_DIMS];
    for (int k = 0; k < n; k++) {
        int ri = k - (n - nr);
        reps[k] = ri >= 0 ? rep[ri] : 1;
        axes[k] = 2 * k;
    }
    d2_gval v;
    if (d2_shape_is_static(&tx.shape)) {
        for (int k = 0; k < n; k++) {
            int xi = k - (n - nx);
            view[2 * k] = reps[k];
            view[2 * k + 1] = xi >= 0 ? tx.shape.dims[xi] : 1;
        }
        d2_attrs *a = attrs_of(r, D2_OP_reshape);
        SET(r, a, D2_OP_reshape, ints, "shape", view, 2 * n);
        v = E(r, reshape, a, DOUT(r));
    } else {
        d2_gval dims = E(r, shape, NULL, X(r));
        d2_gval cols[2] = {NULL, dims};
        if (n > nx) {
            d2_attrs *a = attrs_of(r, D2_OP_full);
            int64_t pad = n - nx;
            SET(r, a, D2_OP_full, ints, "shape", &pad, 1);
            SET(r, a, D2_OP_full, float, "value", 1.0);
            SET(r, a, D2_OP_full, int, "dtype", (int64_t)D2_I32);
            d2_gval ones = emit1(r, D2_OP_full, a, NULL, 0);
            d2_gval two[2] = {ones, dims};
            cols[1] = emit1(r, D2_OP_concat, NULL, two, 2);
        }
        d2_gval rv[D2_MAX_DIMS];
        for (int k = 0; k < n; k++) {
            d2_attrs *a = attrs_of(r, D2_OP_full);
            int64_t one = 1;
            SET(r, a, D2_OP_full, ints, "shape", &one, 1);
            SET(r, a, D2_OP_full, float, "value", (double)reps[k]);
            SET(r, a, D2_OP_full, int, "dtype", (int64_t)D2_I32);
            rv[k] = emit1(r, D2_OP_full, a, NULL, 0);
        }
        cols[0] = emit1(r, D2_OP_concat, NULL, rv, n);
        d2_attrs *st = attrs_of(r, D2_OP_stack);
        SET(r, st, D2_OP_stack, int, "axis", 1);
        d2_gval pairs = emit1(r, D2_OP_stack, st, cols, 2);
        d2_attrs *fl = attrs_of(r, D2_OP_reshape);
        int64_t m1 = -1;
        SET(r, fl, D2_OP_reshape, ints, "shape", &m1, 1);
        v = E(r, reshape, NULL, DOUT(r), E(r, reshape, fl, pairs));
    }
    give(r, 0, reshape_to(r, reduce(r, D2_OP_sum, v, axes, n, false), X(r)));
    return r->rc;
}

/* dweight: dout rows added at the ids' rows, except where ids == padding_idx */
static int g_embedding(R *r)
{
    d2_gval ids = X(r), w = Y(r), d = DOUT(r);
    int64_t pad = d2_attr_int(r->g->def, r->g->attrs, "padding_idx");
    if (pad != -1) {
        d2_type tw;
        type_of(r, w, &tw);
        d2_dtype it = dtype_of(r, ids);
        d2_gval pv;
        if (pad >= 0 || tw.shape.dims[0] >= 0) {
            pv = cst(r, it, (double)(pad >= 0 ? pad : pad + tw.shape.dims[0]));
        } else {
            /* counted from the run-time vocabulary size */
            int64_t z = 0, one = 1;
            d2_attrs *sl = attrs_of(r, D2_OP_slice);
            SET(r, sl, D2_OP_slice, ints, "axes", &z, 1);
            SET(r, sl, D2_OP_slice, ints, "starts", &z, 1);
            SET(r, sl, D2_OP_slice, ints, "ends", &one, 1);
            SET(r, sl, D2_OP_slice, ints, "decrease_axis", &z, 1);
            d2_gval v = cast(r, E(r, slice, sl, E(r, shape, NULL, w)), it);
            pv = E(r, add, NULL, v, cst(r, it, (double)pad));
        }
        d2_gval keep = E(r, not_equal, NULL, ids, pv);
        int64_t last = ndim_of(r, ids);
        d = mask(r, unsqueeze(r, keep, &last, 1), d);
    }
    give(r, 1, scatter_add(r, w, d, &ids, 1, 0));
    return r->rc;
}

/* Normalisation over axes [b, nd): x^ = (x - mean) rstd, y = x^ scale + bias;
 * dx = rstd (g - mean(g) - x^ mean(g x^)) with g = dout scale. Everything in
 * registry ops, so the rule is differentiable again. */
static int g_layer_norm(R *r)
{
    d2_gctx *gc = r->g;
    d2_gval x = X(r), sc = gc->n_in > 1 ? gc->in[1] : NULL, bi = gc->n_in > 2 ? gc->in[2] : NULL;
    int nd = ndim_of(r, x);
    int64_t b = d2_attr_int(gc->def, gc->attrs, "begin_norm_axis");
    b = b < 0 ? b + nd : b;
    if (b < 0 || b >= nd)
        return fail(r, "bad begin_norm_axis");
    double eps = d2_attr_float(gc->def, gc->attrs, "epsilon");
    int64_t nax[D2_MAX_DIMS], lax[D2_MAX_DIMS];
    int nn = 0, nl = 0;
    for (int i = 0; i < nd; i++) {
        if (i >= b)
            nax[nn++] = i;
        else
            lax[nl++] = i;
    }
    d2_gval mu = reduce(r, D2_OP_mean, x, nax, nn, true);
    d2_gval xc = E(r, subtract, NULL, x, mu);
    d2_gval var = reduce(r, D2_OP_mean, E(r, square, NULL, xc), nax, nn, true);
    d2_gval rstd = E(r, rsqrt, NULL, scale(r, var, 1, eps));
    d2_gval xh = E(r, multiply, NULL, xc, rstd);
    d2_gval d = DOUT(r);
    if (NEED(r, 0)) {
        d2_gval g = d;
        if (sc) {
            /* scale is flat over the normalised dims: give it their shape */
            int64_t z = 0, end = nd;
            d2_attrs *sl = attrs_of(r, D2_OP_slice);
            SET(r, sl, D2_OP_slice, ints, "axes", &z, 1);
            SET(r, sl, D2_OP_slice, ints, "starts", &b, 1);
            SET(r, sl, D2_OP_slice, ints, "ends", &end, 1);
            d2_gval shp = E(r, slice, sl, E(r, shape, NULL, x));
            g = E(r, multiply, NULL, d, E(r, reshape, NULL, sc, shp));
        }
        d2_gval m1 = reduce(r, D2_OP_mean, g, nax, nn, true);
        d2_gval m2 = reduce(r, D2_OP_mean, E(r, multiply, NULL, g, xh), nax, nn, true);
        d2_gval t = E(r, subtract, NULL, E(r, subtract, NULL, g, m1), E(r, multiply, NULL, xh, m2));
        give(r, 0, E(r, multiply, NULL, rstd, t));
    }
    if (sc && NEED(r, 1)) {
        d2_gval t = E(r, multiply, NULL, d, xh);
        give(r, 1, reshape_to(r, nl ? reduce(r, D2_OP_sum, t, lax, nl, false) : t, sc));
    }
    if (bi && NEED(r, 2))
        give(r, 2, reshape_to(r, nl ? reduce(r, D2_OP_sum, d, lax, nl, false) : d, bi));
    return r->rc;
}

/* ---- convolution, pooling, batch norm ---- */

/* The attributes of the forward op copied onto op id (same schema names). */
static d2_attrs *same_attrs(R *r, d2_op_id id)
{
    d2_attrs *a = attrs_of(r, id);
    if (!a)
        return NULL;
    const d2_opdef *def = d2_op_def(id);
    for (int i = 0; i < def->n_attrs; i++) {
        int j = d2_attr_index(r->g->def, def->attrs[i].name);
        if (j < 0 || j >= r->g->attrs->n)
            continue;
        d2_attrs one = {1, &r->g->attrs->v[j]}, copy;
        if (d2_attrs_copy(&copy, &one, r->g->err) < 0) {
            fail_code(r, D2_ERR_NOMEM, "out of memory");
            return NULL;
        }
        d2_attr_value_free(&a->v[i]);
        a->v[i] = copy.v[0];
        d2_free(copy.v);
    }
    return a;
}

static int g_conv2d(R *r)
{
    d2_gctx *g = r->g;
    d2_gval x = X(r), w = Y(r), d = DOUT(r);
    if (NEED(r, 0))
        give(r, 0, E(r, conv2d_grad_input, same_attrs(r, D2_OP_conv2d_grad_input), x, w, d));
    if (NEED(r, 1))
        give(r, 1, E(r, conv2d_grad_filter, same_attrs(r, D2_OP_conv2d_grad_filter), x, w, d));
    if (g->n_in > 2 && NEED(r, 2)) {
        int64_t axes[3] = {0, 2, 3};
        give(r, 2, reduce(r, D2_OP_sum, d, axes, 3, false));
    }
    return r->rc;
}

/* dx = conv2d_grad_input(x, w, dout) is linear in w and dout */
static int g_conv2d_grad_input(R *r)
{
    d2_gval w = Y(r), dy = r->g->in[2], gg = DOUT(r);
    if (NEED(r, 1))
        give(r, 1, E(r, conv2d_grad_filter, same_attrs(r, D2_OP_conv2d_grad_filter), gg, w, dy));
    if (NEED(r, 2))
        give(r, 2, E(r, conv2d, same_attrs(r, D2_OP_conv2d), gg, w));
    return r->rc;
}

/* dw = conv2d_grad_filter(x, w, dout) is linear in x and dout */
static int g_conv2d_grad_filter(R *r)
{
    d2_gval x = X(r), dy = r->g->in[2], gg = DOUT(r);
    if (NEED(r, 0))
        give(r, 0, E(r, conv2d_grad_input, same_attrs(r, D2_OP_conv2d_grad_input), x, gg, dy));
    if (NEED(r, 2))
        give(r, 2, E(r, conv2d, same_attrs(r, D2_OP_conv2d), x, gg));
    return r->rc;
}

/* conv2d_transpose is conv2d's input gradient: its adjoint in x is conv2d(dout, w), in w
 * conv2d_grad_filter(dout, w, x), with the same geometry. SAME's paddings come from x's
 * (static) size, so they are passed to the adjoints explicitly. */
static d2_attrs *conv_t_adjoint_attrs(R *r, d2_op_id id, d2_gval x, d2_gval w)
{
    d2_attrs *a = same_attrs(r, id);
    const char *alg = d2_attr_str(r->g->def, r->g->attrs, "padding_algorithm");
    d2_type xt, wt;
    type_of(r, x, &xt);
    type_of(r, w, &wt);
    if (!a || strcmp(alg, "SAME") != 0 || xt.shape.ndim != 4 || wt.shape.ndim != 4)
        return a;
    int n;
    const int64_t *st = d2_attr_ints(r->g->def, r->g->attrs, "strides", &n);
    int64_t pads[4], one[2] = {1, 1};
    for (int i = 0; i < 2; i++) {
        int64_t in = xt.shape.dims[2 + i], k = wt.shape.dims[2 + i];
        if (in < 0 || k < 0 || n != 2)
            return a;
        int64_t out = (in + st[i] - 1) / st[i], sum = (out - 1) * st[i] + k - in;
        sum = sum > 0 ? sum : 0;
        pads[2 * i] = sum / 2;
        pads[2 * i + 1] = sum - sum / 2;
    }
    SET(r, a, id, ints, "paddings", pads, 4);
    SET(r, a, id, ints, "dilations", one, 2);
    SET(r, a, id, str, "padding_algorithm", "EXPLICIT");
    return a;
}

static int g_conv2d_transpose(R *r)
{
    d2_gctx *g = r->g;
    d2_gval x = X(r), w = Y(r), d = DOUT(r);
    if (NEED(r, 0))
        give(r, 0, E(r, conv2d, conv_t_adjoint_attrs(r, D2_OP_conv2d, x, w), d, w));
    if (NEED(r, 1))
        give(r, 1, E(r, conv2d_grad_filter,
                     conv_t_adjoint_attrs(r, D2_OP_conv2d_grad_filter, x, w), d, w, x));
    if (g->n_in > 2 && NEED(r, 2)) {
        int64_t axes[3] = {0, 2, 3};
        give(r, 2, reduce(r, D2_OP_sum, d, axes, 3, false));
    }
    return r->rc;
}

static int g_pool2d(R *r)
{
    give(r, 0, E(r, pool2d_grad, same_attrs(r, D2_OP_pool2d_grad), X(r), OUT(r), DOUT(r)));
    return r->rc;
}

/* Average pooling's gradient spreads dout with the divisors of the forward op,
 * so its transpose is that average pooling itself. Max pooling's routing has
 * no registry op yet. */
static int g_pool2d_grad(R *r)
{
    if (strcmp(d2_attr_str(r->g->def, r->g->attrs, "pooling_type"), "avg") != 0)
        return fail_code(r, D2_ERR_UNSUPPORTED,
                         "the second derivative of max pooling is not supported");
    give(r, 2, E(r, pool2d, same_attrs(r, D2_OP_pool2d), DOUT(r)));
    return r->rc;
}

/* Batch norm, y = (x - mean) s rstd + bias per channel (axis 1),
 * rstd = (var + eps)^-1/2: dx = dout s rstd, dscale = sum(dout (x - mean) rstd),
 * dbias = sum(dout), dmean = -sum(dout) s rstd,
 * dvar = -1/2 sum(dout (x - mean)) s rstd^3 (sums over every axis but 1).
 * Running statistics do not require gradients, so only the batch statistics
 * of training mode, computed by differentiable ops, get dmean and dvar. */
static int g_batch_norm(R *r)
{
    d2_gctx *g = r->g;
    d2_gval x = X(r), mean = g->in[1], var = g->in[2], sc = g->in[3], d = DOUT(r);
    int nd = ndim_of(r, x);
    int64_t bax[D2_MAX_DIMS];
    int nb = 0;
    for (int i = 0; i < nd; i++)
        if (i != 1)
            bax[nb++] = i;
    double eps = d2_attr_float(g->def, g->attrs, "epsilon");
    d2_gval rstd = E(r, rsqrt, NULL, scale(r, var, 1, eps));
    if (NEED(r, 0))
        give(r, 0, E(r, multiply, NULL, d, unsqueeze(r, E(r, multiply, NULL, sc, rstd), bax, nb)));
    d2_gval sdxc = NULL;
    if (NEED(r, 3) || NEED(r, 2)) {
        d2_gval xc = E(r, subtract, NULL, x, unsqueeze(r, mean, bax, nb));
        sdxc = reduce(r, D2_OP_sum, E(r, multiply, NULL, d, xc), bax, nb, false);
    }
    if (NEED(r, 3))
        give(r, 3, E(r, multiply, NULL, sdxc, rstd));
    d2_gval sd = NULL;
    if (NEED(r, 4) || NEED(r, 1))
        sd = reduce(r, D2_OP_sum, d, bax, nb, false);
    if (NEED(r, 4))
        give(r, 4, sd);
    if (NEED(r, 1))
        give(r, 1, scale(r, E(r, multiply, NULL, sd, E(r, multiply, NULL, sc, rstd)), -1, 0));
    if (NEED(r, 2)) {
        d2_gval r3 = E(r, multiply, NULL, rstd, E(r, square, NULL, rstd));
        d2_gval t = E(r, multiply, NULL, E(r, multiply, NULL, sdxc, sc), r3);
        give(r, 2, scale(r, t, -0.5, 0));
    }
    return r->rc;
}

/* ---- gradient helpers ---- */

static int g_reduce_as(R *r)
{
    give(r, 0, expand_to(r, DOUT(r), X(r)));
    return r->rc;
}

/* ---- special functions, activations, scans, sorting and index ops (ops_elem.c,
 * ops_index.c) ---- */

#define AF(name) d2_attr_float(r->g->def, r->g->attrs, name)
#define AI(name) d2_attr_int(r->g->def, r->g->attrs, name)
#define AB(name) d2_attr_bool(r->g->def, r->g->attrs, name)

/* A 0-d constant of like's dtype; NULL after a failure (like may be NULL then). */
static d2_gval cst_like(R *r, d2_gval like, double v)
{
    return r->rc < 0 || !like ? NULL : cst(r, dtype_of(r, like), v);
}

/* dout * f where cond, 0 elsewhere */
static int give_masked(R *r, d2_gval cond, d2_gval f)
{
    give(r, 0, mask(r, cond, f ? E(r, multiply, NULL, DOUT(r), f) : DOUT(r)));
    return r->rc;
}

/* d erfinv = sqrt(pi)/2 exp(out^2) */
static int g_erfinv(R *r)
{
    return unary_give(r, scale(r, E(r, exp, NULL, E(r, square, NULL, OUT(r))), 0.88622692545275801, 0));
}

static int g_lgamma(R *r) { return unary_give(r, E(r, digamma, NULL, X(r))); }
static int g_expm1(R *r) { return unary_give(r, scale(r, OUT(r), 1, 1)); }

static int g_log1p(R *r)
{
    give(r, 0, E(r, divide, NULL, DOUT(r), scale(r, X(r), 1, 1)));
    return r->rc;
}

static int g_logb(R *r, double ln_b)
{
    give(r, 0, E(r, divide, NULL, DOUT(r), scale(r, X(r), ln_b, 0)));
    return r->rc;
}
static int g_log2(R *r) { return g_logb(r, M_LN2); }
static int g_log10(R *r) { return g_logb(r, M_LN10); }
static int g_tan(R *r) { return unary_give(r, scale(r, E(r, square, NULL, OUT(r)), 1, 1)); }

/* dout / sqrt(s x^2 + c) */
static int g_inv_sqrt_quad(R *r, double s, double c, double sign)
{
    d2_gval q = E(r, sqrt, NULL, scale(r, E(r, square, NULL, X(r)), s, c));
    give(r, 0, E(r, divide, NULL, scale(r, DOUT(r), sign, 0), q));
    return r->rc;
}
static int g_asin(R *r) { return g_inv_sqrt_quad(r, -1, 1, 1); }
static int g_acos(R *r) { return g_inv_sqrt_quad(r, -1, 1, -1); }
static int g_asinh(R *r) { return g_inv_sqrt_quad(r, 1, 1, 1); }
static int g_acosh(R *r) { return g_inv_sqrt_quad(r, 1, -1, 1); }

/* dout / (s x^2 + c) */
static int g_inv_quad(R *r, double s, double c)
{
    give(r, 0, E(r, divide, NULL, DOUT(r), scale(r, E(r, square, NULL, X(r)), s, c)));
    return r->rc;
}
static int g_atan(R *r) { return g_inv_quad(r, 1, 1); }
static int g_atanh(R *r) { return g_inv_quad(r, -1, 1); }
static int g_sinh(R *r) { return unary_give(r, E(r, cosh, NULL, X(r))); }
static int g_cosh(R *r) { return unary_give(r, E(r, sinh, NULL, X(r))); }

/* d softsign = 1 / (1 + |x|)^2 */
static int g_softsign(R *r)
{
    give(r, 0, E(r, divide, NULL, DOUT(r), E(r, square, NULL, scale(r, E(r, abs, NULL, X(r)), 1, 1))));
    return r->rc;
}

/* mish = x tanh(sp), sp = softplus(x): tanh(sp) + x (1 - tanh(sp)^2) sigmoid(x) */
static int g_mish(R *r)
{
    d2_attrs *a = attrs_of(r, D2_OP_softplus);
    d2_gval t = E(r, tanh, NULL, E(r, softplus, a, X(r)));
    d2_gval sech2 = scale(r, E(r, square, NULL, t), -1, 1);
    d2_gval right = E(r, multiply, NULL, X(r), E(r, multiply, NULL, sech2, E(r, sigmoid, NULL, X(r))));
    return unary_give(r, E(r, add, NULL, t, right));
}

/* d logsigmoid = sigmoid(-x) */
static int g_logsigmoid(R *r) { return unary_give(r, E(r, sigmoid, NULL, E(r, neg, NULL, X(r)))); }
static int g_tanhshrink(R *r) { return unary_give(r, E(r, square, NULL, E(r, tanh, NULL, X(r)))); }

/* hardswish: 0 below -3, 1 above 3, (2x + 3)/6 between */
static int g_hardswish(R *r)
{
    d2_gval x = X(r);
    d2_gval mid = E(r, where, NULL, E(r, greater_than, NULL, x, cst_like(r, x, 3)), cst_like(r, x, 1),
                    scale(r, x, 1.0 / 3, 0.5));
    return give_masked(r, E(r, greater_equal, NULL, x, cst_like(r, x, -3)), mid);
}

/* softplus: sigmoid(beta x), 1 where beta x > threshold */
static int g_softplus(R *r)
{
    d2_gval bx = scale(r, X(r), AF("beta"), 0);
    d2_gval big = E(r, greater_than, NULL, bx, cst_like(r, bx, AF("threshold")));
    give(r, 0, E(r, where, NULL, big, DOUT(r), E(r, multiply, NULL, DOUT(r), E(r, sigmoid, NULL, bx))));
    return r->rc;
}

/* elu: 1 above 0, alpha exp(x) below; selu the same scaled; celu exp(x / alpha) below */
static int g_elu_like(R *r, double sc, double alpha, double inv)
{
    d2_gval x = X(r);
    d2_gval pos = E(r, greater_than, NULL, x, cst_like(r, x, 0));
    d2_gval below = scale(r, E(r, exp, NULL, scale(r, x, inv, 0)), sc * alpha, 0);
    give(r, 0, E(r, multiply, NULL, DOUT(r), E(r, where, NULL, pos, cst_like(r, x, sc), below)));
    return r->rc;
}
static int g_elu(R *r) { return g_elu_like(r, 1, AF("alpha"), 1); }
static int g_celu(R *r) { return g_elu_like(r, 1, 1, 1 / AF("alpha")); }
static int g_selu(R *r) { return g_elu_like(r, AF("scale"), AF("alpha"), 1); }

/* hardsigmoid: slope where 0 < slope x + offset < 1 */
static int g_hardsigmoid(R *r)
{
    d2_gval v = scale(r, X(r), AF("slope"), AF("offset"));
    d2_gval in = E(r, logical_and, NULL, E(r, greater_than, NULL, v, cst_like(r, v, 0)),
                   E(r, less_than, NULL, v, cst_like(r, v, 1)));
    return give_masked(r, in, cst_like(r, v, AF("slope")));
}

/* hardshrink / softshrink: 1 where |x| > threshold */
static int g_shrink(R *r)
{
    d2_gval a = E(r, abs, NULL, X(r));
    return give_masked(r, E(r, greater_than, NULL, a, cst_like(r, a, AF("threshold"))), NULL);
}

static int g_thresholded_relu(R *r)
{
    return give_masked(r, E(r, greater_than, NULL, X(r), cst_like(r, X(r), AF("threshold"))), NULL);
}

/* stanh = b tanh(a x): a b (1 - tanh(a x)^2) */
static int g_stanh(R *r)
{
    double a = AF("scale_a"), b = AF("scale_b");
    d2_gval t = E(r, tanh, NULL, scale(r, X(r), a, 0));
    return unary_give(r, scale(r, E(r, square, NULL, t), -a * b, a * b));
}

/* logit: 1 / (x (1 - x)), zero outside [eps, 1 - eps] when eps > 0 */
static int g_logit(R *r)
{
    d2_gval x = X(r);
    d2_gval f = E(r, divide, NULL, DOUT(r), E(r, multiply, NULL, x, scale(r, x, -1, 1)));
    double eps = AF("eps");
    if (eps > 0) {
        d2_gval in = E(r, logical_and, NULL, E(r, greater_equal, NULL, x, cst_like(r, x, eps)),
                       E(r, less_equal, NULL, x, cst_like(r, x, 1 - eps)));
        f = mask(r, in, f);
    }
    give(r, 0, f);
    return r->rc;
}

/* A cumulative op of the same family run on v: cumsum with the forward's axis
 * and flatten, reverse flipped, exclusive as given. */
static d2_gval cumsum_back(R *r, d2_gval v, bool exclusive)
{
    d2_attrs *a = attrs_of(r, D2_OP_cumsum);
    SET(r, a, D2_OP_cumsum, int, "axis", AI("axis"));
    SET(r, a, D2_OP_cumsum, bool, "flatten", AB("flatten"));
    SET(r, a, D2_OP_cumsum, bool, "exclusive", exclusive);
    SET(r, a, D2_OP_cumsum, bool, "reverse", !AB("reverse"));
    return reshape_to(r, E(r, cumsum, a, v), X(r));
}

/* cumsum: the cumulative sum of dout the other way */
static int g_cumsum(R *r)
{
    give(r, 0, cumsum_back(r, DOUT(r), AB("exclusive")));
    return r->rc;
}

/* cumprod (x without zeros): sum over later outputs of dout out, over x */
static int g_cumprod(R *r)
{
    d2_gval s = cumsum_back(r, E(r, multiply, NULL, DOUT(r), OUT(r)), AB("exclusive"));
    give(r, 0, E(r, divide, NULL, s, X(r)));
    return r->rc;
}

/* logcumsumexp: exp(x) times the reverse sum of dout exp(-out) */
static int g_logcumsumexp(R *r)
{
    d2_gval w = E(r, multiply, NULL, DOUT(r), E(r, exp, NULL, E(r, neg, NULL, OUT(r))));
    give(r, 0, E(r, multiply, NULL, E(r, exp, NULL, X(r)), cumsum_back(r, w, AB("exclusive"))));
    return r->rc;
}

/* dout added into zeros shaped like x at idx along axis (put_along_axis, add) */
static d2_gval put_add(R *r, d2_gval x, d2_gval idx, d2_gval d, int64_t axis)
{
    d2_attrs *a = attrs_of(r, D2_OP_put_along_axis);
    SET(r, a, D2_OP_put_along_axis, int, "axis", axis);
    SET(r, a, D2_OP_put_along_axis, str, "reduce", "add");
    return E(r, put_along_axis, a, zeros_like(r, x), idx, d);
}

/* cummax / cummin, argsort, topk: dout goes back to the source index of each value */
static int g_picked(R *r)
{
    if (!DOUT(r))
        return r->rc;
    bool flat = d2_attr_index(r->g->def, "flatten") >= 0 && AB("flatten");
    int nd = ndim_of(r, X(r));
    if (nd == 0) {
        give(r, 0, reshape_to(r, DOUT(r), X(r)));
        return r->rc;
    }
    d2_gval x = X(r);
    if (flat) {
        int64_t m1 = -1;
        d2_attrs *a = attrs_of(r, D2_OP_reshape);
        SET(r, a, D2_OP_reshape, ints, "shape", &m1, 1);
        x = E(r, reshape, a, x);
    }
    d2_gval idx = cast(r, r->g->out[1], D2_I64);
    give(r, 0, reshape_to(r, put_add(r, x, idx, DOUT(r), flat ? 0 : AI("axis")), X(r)));
    return r->rc;
}

/* tril_triu, flip: the same op on dout; roll: the opposite shifts */
static int g_same_op(R *r)
{
    give(r, 0, emit1(r, r->g->def->id, r->g->attrs, &DOUT(r), 1));
    return r->rc;
}

static int g_roll(R *r)
{
    int n;
    const int64_t *sh = d2_attr_ints(r->g->def, r->g->attrs, "shifts", &n);
    int64_t neg[D2_MAX_DIMS];
    for (int i = 0; i < n && i < D2_MAX_DIMS; i++)
        neg[i] = sh[i] == INT64_MIN ? INT64_MAX : -sh[i];
    /* the forward's attributes with the shifts negated; attrs_of's defaults
     * are replaced, so they are freed first */
    d2_attrs *a = attrs_of(r, D2_OP_roll);
    if (a) {
        d2_attrs_free(a);
        if (d2_attrs_copy(a, r->g->attrs, r->g->err) < 0)
            return fail(r, "cannot copy attributes");
    }
    SET(r, a, D2_OP_roll, ints, "shifts", neg, n < D2_MAX_DIMS ? n : D2_MAX_DIMS);
    give(r, 0, E(r, roll, a, DOUT(r)));
    return r->rc;
}

/* gather_nd: dout added back at the gathered positions */
static int g_gather_nd(R *r)
{
    give(r, 0, E(r, scatter_nd_add, NULL, zeros_like(r, X(r)), Y(r), DOUT(r)));
    return r->rc;
}

/* scatter: dx is dout with the written rows zeroed; dupdates the rows of dout
 * at index (every repeat gets its row) */
static int g_scatter(R *r)
{
    d2_gval idx = Y(r), upd = r->g->in[2];
    if (NEED(r, 0)) {
        d2_attrs *a = attrs_of(r, D2_OP_scatter);
        give(r, 0, E(r, scatter, a, DOUT(r), idx, zeros_like(r, upd)));
    }
    if (NEED(r, 2)) {
        d2_gval i1 = idx;
        if (ndim_of(r, idx) == 0) {
            int64_t z = 0;
            i1 = unsqueeze(r, idx, &z, 1);
        }
        give(r, 2, reshape_to(r, E(r, gather, NULL, DOUT(r), i1), upd));
    }
    return r->rc;
}

/* scatter_nd_add: dx = dout, dupdates = gather_nd(dout, index) */
static int g_scatter_nd_add(R *r)
{
    if (NEED(r, 0))
        give(r, 0, DOUT(r));
    if (NEED(r, 2))
        give(r, 2, E(r, gather_nd, NULL, DOUT(r), Y(r)));
    return r->rc;
}

/* take_along_axis (arr not broadcast): dout added back at the taken positions */
static int g_take_along_axis(R *r)
{
    give(r, 0, put_add(r, X(r), Y(r), DOUT(r), AI("axis")));
    return r->rc;
}

/* put_along_axis: assign zeroes the written positions of dout for arr, add
 * passes dout; values get dout at the positions (summed to their shape);
 * multiply has no rule here */
static int g_put_along_axis(R *r)
{
    const char *red = d2_attr_str(r->g->def, r->g->attrs, "reduce");
    bool assign = strcmp(red, "assign") == 0;
    if (!assign && strcmp(red, "add") != 0)
        return fail(r, "no gradient for reduce 'mul', 'mean', 'amin' or 'amax'");
    if (!assign && !d2_attr_bool(r->g->def, r->g->attrs, "include_self"))
        return fail(r, "no gradient for reduce 'add' without include_self");
    d2_gval idx = Y(r), val = r->g->in[2];
    int64_t axis = AI("axis");
    if (NEED(r, 0)) {
        if (assign) {
            d2_attrs *a = attrs_of(r, D2_OP_put_along_axis);
            SET(r, a, D2_OP_put_along_axis, int, "axis", axis);
            give(r, 0, E(r, put_along_axis, a, DOUT(r), idx, cst(r, dtype_of(r, DOUT(r)), 0)));
        } else {
            give(r, 0, DOUT(r));
        }
    }
    if (NEED(r, 2)) {
        d2_attrs *a = attrs_of(r, D2_OP_take_along_axis);
        SET(r, a, D2_OP_take_along_axis, int, "axis", axis);
        give(r, 2, sum_to(r, E(r, take_along_axis, a, DOUT(r), idx), val));
    }
    return r->rc;
}

#undef AF
#undef AI
#undef AB

/* ==== linear algebra (ops_linalg.c): inv, det, slogdet, solve,
 * triangular_solve, cholesky, eigh. qr and svd have no rule yet (NO_GRAD). ==== */

/* x with its last two axes swapped */
static d2_gval swap_last(R *r, d2_gval x)
{
    if (r->rc < 0 || !x)
        return NULL;
    int nd = ndim_of(r, x);
    int64_t perm[D2_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        perm[i] = i;
    perm[nd - 2] = nd - 1;
    perm[nd - 1] = nd - 2;
    return transpose(r, x, perm, nd);
}

/* v [...] as [..., 1, 1] */
static d2_gval unsq_last2(R *r, d2_gval v)
{
    if (r->rc < 0 || !v)
        return NULL;
    int64_t nd = ndim_of(r, v), ax[2] = {nd, nd + 1};
    return unsqueeze(r, v, ax, 2);
}

static d2_gval tri(R *r, d2_gval x, int64_t diagonal, bool lower)
{
    d2_attrs *a = attrs_of(r, D2_OP_tril_triu);
    SET(r, a, D2_OP_tril_triu, int, "diagonal", diagonal);
    SET(r, a, D2_OP_tril_triu, bool, "lower", lower);
    return E(r, tril_triu, a, x);
}

static d2_gval tri_solve(R *r, d2_gval a, d2_gval b, bool upper, bool trans, bool unit)
{
    d2_attrs *at = attrs_of(r, D2_OP_triangular_solve);
    SET(r, at, D2_OP_triangular_solve, bool, "upper", upper);
    SET(r, at, D2_OP_triangular_solve, bool, "transpose", trans);
    SET(r, at, D2_OP_triangular_solve, bool, "unitriangular", unit);
    return E(r, triangular_solve, at, a, b);
}

/* The gradient of an op that reads one triangle of a symmetric input, from
 * the gradient g of its symmetric form: off-diagonal entries of the read
 * triangle take g_ij + g_ji, the diagonal g_ii, the other triangle nothing. */
static d2_gval from_sym(R *r, d2_gval g, bool lower)
{
    d2_gval h = E(r, add, NULL, g, swap_last(r, g));
    return scale(r, E(r, add, NULL, tri(r, h, 0, lower), tri(r, h, lower ? -1 : 1, lower)), 0.5,
                 0);
}

/* y = x^-1: dx = -y^T dy y^T */
static int g_inv(R *r)
{
    if (NEED(r, 0))
        give(r, 0, E(r, neg, NULL, matmul(r, matmul(r, OUT(r), DOUT(r), true, false), OUT(r),
                                          false, true)));
    return r->rc;
}

/* d det / dx = det x^-T; d log|det| / dx = x^-T */
static int g_det(R *r)
{
    if (NEED(r, 0)) {
        d2_gval c = E(r, multiply, NULL, DOUT(r), OUT(r));
        give(r, 0, E(r, multiply, NULL, unsq_last2(r, c), swap_last(r, E(r, inv, NULL, X(r)))));
    }
    return r->rc;
}

static int g_slogdet(R *r)
{
    d2_gval d = r->g->dout[1];
    if (NEED(r, 0) && d)
        give(r, 0, E(r, multiply, NULL, unsq_last2(r, d), swap_last(r, E(r, inv, NULL, X(r)))));
    return r->rc;
}

/* out = x^-1 y: dy = x^-T dout, dx = -dy out^T */
static int g_solve(R *r)
{
    d2_gval dy = E(r, solve, NULL, swap_last(r, X(r)), DOUT(r));
    if (NEED(r, 0))
        give(r, 0, E(r, neg, NULL, matmul(r, dy, OUT(r), false, true)));
    if (NEED(r, 1))
        give(r, 1, dy);
    return r->rc;
}

/* out = op(x)^-1 y with x triangular: as solve, the gradient of x kept to its triangle */
static int g_triangular_solve(R *r)
{
    bool upper = d2_attr_bool(r->g->def, r->g->attrs, "upper");
    bool trans = d2_attr_bool(r->g->def, r->g->attrs, "transpose");
    bool unit = d2_attr_bool(r->g->def, r->g->attrs, "unitriangular");
    d2_gval dy = tri_solve(r, X(r), DOUT(r), upper, !trans, unit);
    if (NEED(r, 0)) {
        d2_gval dop = trans ? matmul(r, OUT(r), dy, false, true) : matmul(r, dy, OUT(r), false, true);
        give(r, 0, E(r, neg, NULL, tri(r, dop, unit ? (upper ? 1 : -1) : 0, !upper)));
    }
    if (NEED(r, 1))
        give(r, 1, dy);
    return r->rc;
}

/* x = l l^T (l read from x's lower triangle): with phi(m) = the lower triangle
 * of m with its diagonal halved, the gradient of the symmetric form is
 * sym(s) for s = l^-T phi(l^T dl) l^-1, which from_sym takes to the lower triangle. */
static int g_cholesky(R *r)
{
    if (!NEED(r, 0))
        return r->rc;
    bool upper = d2_attr_bool(r->g->def, r->g->attrs, "upper");
    d2_gval l = upper ? swap_last(r, OUT(r)) : OUT(r);
    d2_gval dl = upper ? swap_last(r, DOUT(r)) : DOUT(r);
    d2_gval m = matmul(r, l, dl, true, false);
    d2_gval phi = scale(r, E(r, add, NULL, tri(r, m, 0, true), tri(r, m, -1, true)), 0.5, 0);
    d2_gval z = tri_solve(r, l, phi, false, true, false);
    d2_gval s = swap_last(r, tri_solve(r, l, swap_last(r, z), false, true, false));
    give(r, 0, from_sym(r, s, true));
    return r->rc;
}

/* x = v diag(w) v^T from x's UPLO triangle: the symmetric gradient is
 * sym(v (diag(dw) + f o (v^T dv)) v^T) with f_ij = 1 / (w_j - w_i), f_ii = 0. */
static int g_eigh(R *r)
{
    if (!NEED(r, 0))
        return r->rc;
    bool lower = d2_attr_str(r->g->def, r->g->attrs, "UPLO")[0] != 'U';
    d2_gval w = r->g->out[0], v = r->g->out[1], dw = r->g->dout[0], dv = r->g->dout[1];
    int64_t nw = ndim_of(r, w), am1 = nw, am2 = nw - 1;
    d2_gval inner = NULL;
    if (dv) {
        d2_gval diff = E(r, subtract, NULL, unsqueeze(r, w, &am2, 1), unsqueeze(r, w, &am1, 1));
        d2_gval off = E(r, not_equal, NULL, diff, cst(r, dtype_of(r, w), 0));
        d2_gval f = mask(r, off, E(r, reciprocal, NULL, E(r, where, NULL, off, diff,
                                                          cst(r, dtype_of(r, w), 1))));
        inner = matmul(r, v, E(r, multiply, NULL, f, matmul(r, v, dv, true, false)), false, false);
    }
    if (dw) {
        d2_gval vd = E(r, multiply, NULL, v, unsqueeze(r, dw, &am2, 1));
        inner = inner ? E(r, add, NULL, inner, vd) : vd;
    }
    d2_gval g0 = matmul(r, inner, v, false, true);
    give(r, 0, from_sym(r, scale(r, E(r, add, NULL, g0, swap_last(r, g0)), 0.5, 0), lower));
    return r->rc;
}
/* ==== end of linear algebra ==== */

/* ---- the table ---- */

typedef int (*rule_fn)(R *r);

typedef struct {
    rule_fn fn;
    unsigned nodiff; /* bit i: no gradient flows into input port i */
} rule_t;

static const rule_t rules[D2_NUM_OPS] = {
    /* elementwise binary */
    [D2_OP_add] = {g_add, 0},
    [D2_OP_subtract] = {g_subtract, 0},
    [D2_OP_multiply] = {g_multiply, 0},
    [D2_OP_divide] = {g_divide, 0},
    [D2_OP_remainder] = {g_remainder, 0},
    [D2_OP_pow] = {g_pow, 0},
    [D2_OP_maximum] = {g_maximum, 0},
    [D2_OP_minimum] = {g_minimum, 0},
    /* elementwise unary and activations */
    [D2_OP_neg] = {g_neg, 0},
    [D2_OP_abs] = {g_abs, 0},
    [D2_OP_sign] = {g_zero, 0},
    [D2_OP_floor] = {g_zero, 0},
    [D2_OP_ceil] = {g_zero, 0},
    [D2_OP_square] = {g_square, 0},
    [D2_OP_exp] = {g_exp, 0},
    [D2_OP_log] = {g_log, 0},
    [D2_OP_sqrt] = {g_sqrt, 0},
    [D2_OP_rsqrt] = {g_rsqrt, 0},
    [D2_OP_reciprocal] = {g_reciprocal, 0},
    [D2_OP_sin] = {g_sin, 0},
    [D2_OP_cos] = {g_cos, 0},
    [D2_OP_tanh] = {g_tanh, 0},
    [D2_OP_sigmoid] = {g_sigmoid, 0},
    [D2_OP_erf] = {g_erf, 0},
    [D2_OP_relu] = {g_relu, 0},
    [D2_OP_silu] = {g_silu, 0},
    [D2_OP_gelu] = {g_gelu, 0},
    [D2_OP_leaky_relu] = {g_leaky_relu, 0},
    [D2_OP_scale] = {g_scale, 0},
    [D2_OP_clip] = {g_clip, 0},
    [D2_OP_softmax] = {g_softmax, 0},
    [D2_OP_log_softmax] = {g_log_softmax, 0},
    [D2_OP_cast] = {g_cast, 0},
    [D2_OP_where] = {g_where, 1u << 0},
    [D2_OP_dropout] = {g_dropout, 0},
    [D2_OP_dropout_train] = {g_dropout_train, 1u << 1},
    /* reductions */
    [D2_OP_sum] = {g_sum, 0},
    [D2_OP_mean] = {g_mean, 0},
    [D2_OP_max] = {g_maxmin, 0},
    [D2_OP_min] = {g_maxmin, 0},
    [D2_OP_amax] = {g_amaxmin, 0},
    [D2_OP_amin] = {g_amaxmin, 0},
    [D2_OP_prod] = {g_prod, 0},
    /* shape manipulation */
    [D2_OP_reshape] = {g_reshape_like, 1u << 1},
    [D2_OP_flatten] = {g_reshape_like, 0},
    [D2_OP_squeeze] = {g_reshape_like, 0},
    [D2_OP_unsqueeze] = {g_reshape_like, 0},
    [D2_OP_transpose] = {g_transpose, 0},
    [D2_OP_assign] = {g_assign, 0},
    [D2_OP_concat] = {g_concat, 0},
    [D2_OP_stack] = {g_stack, 0},
    [D2_OP_split] = {g_split, 0},
    [D2_OP_array_read] = {g_array_read, 1u << 1},
    [D2_OP_array_write] = {g_array_write, 1u << 1},
    [D2_OP_array_stack] = {g_array_stack, 0},
    [D2_OP_array_concat] = {g_array_concat, 0},
    [D2_OP_slice] = {g_slice, 0},
    [D2_OP_set_value] = {g_set_value, 0},
    [D2_OP_gather] = {g_gather, 1u << 1},
    [D2_OP_index_select] = {g_gather, 1u << 1},
    [D2_OP_index_put] = {g_index_put, 1u << 2},
    [D2_OP_index_get] = {g_index_get, 1u << 1},
    [D2_OP_expand] = {g_expand, 1u << 1},
    [D2_OP_tile] = {g_tile, 0},
    /* neural-network ops */
    [D2_OP_matmul] = {g_matmul, 0},
    [D2_OP_linear] = {g_linear, 0},
    [D2_OP_conv2d] = {g_conv2d, 0},
    [D2_OP_pool2d] = {g_pool2d, 0},
    [D2_OP_batch_norm] = {g_batch_norm, 0},
    [D2_OP_layer_norm] = {g_layer_norm, 0},
    [D2_OP_embedding] = {g_embedding, 1u << 0},
    /* gradient helpers */
    [D2_OP_reduce_as] = {g_reduce_as, 1u << 1},
    [D2_OP_conv2d_grad_input] = {g_conv2d_grad_input, 1u << 0},
    [D2_OP_conv2d_grad_filter] = {g_conv2d_grad_filter, 1u << 1},
    [D2_OP_pool2d_grad] = {g_pool2d_grad, 1u << 0 | 1u << 1},
    [D2_OP_relu_grad] = {g_relu_grad, 1u << 0},
    /* layers */
    [D2_OP_conv2d_transpose] = {g_conv2d_transpose, 0},
    /* special functions, activations, scans, sorting, index ops */
    [D2_OP_erfinv] = {g_erfinv, 0},
    [D2_OP_lgamma] = {g_lgamma, 0},
    [D2_OP_expm1] = {g_expm1, 0},
    [D2_OP_log1p] = {g_log1p, 0},
    [D2_OP_log2] = {g_log2, 0},
    [D2_OP_log10] = {g_log10, 0},
    [D2_OP_tan] = {g_tan, 0},
    [D2_OP_asin] = {g_asin, 0},
    [D2_OP_acos] = {g_acos, 0},
    [D2_OP_atan] = {g_atan, 0},
    [D2_OP_sinh] = {g_sinh, 0},
    [D2_OP_cosh] = {g_cosh, 0},
    [D2_OP_asinh] = {g_asinh, 0},
    [D2_OP_acosh] = {g_acosh, 0},
    [D2_OP_atanh] = {g_atanh, 0},
    [D2_OP_trunc] = {g_zero, 0},
    [D2_OP_round] = {g_zero, 0},
    [D2_OP_softsign] = {g_softsign, 0},
    [D2_OP_mish] = {g_mish, 0},
    [D2_OP_logsigmoid] = {g_logsigmoid, 0},
    [D2_OP_tanhshrink] = {g_tanhshrink, 0},
    [D2_OP_hardswish] = {g_hardswish, 0},
    [D2_OP_softplus] = {g_softplus, 0},
    [D2_OP_elu] = {g_elu, 0},
    [D2_OP_celu] = {g_celu, 0},
    [D2_OP_selu] = {g_selu, 0},
    [D2_OP_hardsigmoid] = {g_hardsigmoid, 0},
    [D2_OP_hardshrink] = {g_shrink, 0},
    [D2_OP_softshrink] = {g_shrink, 0},
    [D2_OP_thresholded_relu] = {g_thresholded_relu, 0},
    [D2_OP_stanh] = {g_stanh, 0},
    [D2_OP_logit] = {g_logit, 0},
    [D2_OP_cumsum] = {g_cumsum, 0},
    [D2_OP_cumprod] = {g_cumprod, 0},
    [D2_OP_logcumsumexp] = {g_logcumsumexp, 0},
    [D2_OP_cummax] = {g_picked, 0},
    [D2_OP_cummin] = {g_picked, 0},
    [D2_OP_argsort] = {g_picked, 0},
    [D2_OP_topk] = {g_picked, 0},
    [D2_OP_tril_triu] = {g_same_op, 0},
    [D2_OP_flip] = {g_same_op, 0},
    [D2_OP_roll] = {g_roll, 0},
    [D2_OP_gather_nd] = {g_gather_nd, 1u << 1},
    [D2_OP_scatter] = {g_scatter, 1u << 1},
    [D2_OP_scatter_nd_add] = {g_scatter_nd_add, 1u << 1},
    [D2_OP_take_along_axis] = {g_take_along_axis, 1u << 1},
    [D2_OP_put_along_axis] = {g_put_along_axis, 1u << 1},
    /* linear algebra */
    [D2_OP_inv] = {g_inv, 0},
    [D2_OP_det] = {g_det, 0},
    [D2_OP_slogdet] = {g_slogdet, 0},
    [D2_OP_solve] = {g_solve, 0},
    [D2_OP_triangular_solve] = {g_triangular_solve, 0},
    [D2_OP_cholesky] = {g_cholesky, 0},
    [D2_OP_eigh] = {g_eigh, 0},
};

/* Every op's rule is reached through this one entry, which finds the rule
 * from g->def, supplies default attributes when g->attrs is NULL, returns
 * zero gradients (din all NULL) when no output has a gradient, and on failure
 * releases whatever the rule stored in din. */
static int dispatch(d2_gctx *g)
{
    for (int i = 0; i < g->n_in; i++)
        g->din[i] = NULL;
    bool any = false;
    for (int k = 0; k < g->n_out; k++)
        any = any || g->dout[k];
    if (!any)
        return 0;
    d2_attrs defaults = {0, NULL};
    const d2_attrs *saved = g->attrs;
    if (!g->attrs) {
        d2_attrs_init_default(g->def, &defaults);
        if (defaults.n != g->def->n_attrs)
            return d2_err_set(g->err, D2_ERR_NOMEM, "gradient of %s: out of memory", g->def->name);
        g->attrs = &defaults;
    }
    /* only the counts are set: zeroing tmp[] and at[] (some 10 KB, used
     * up to ntmp and nat) was a fifth of a small training step */
    R r;
    r.g = g;
    r.b = g->b;
    r.ntmp = r.nat = r.rc = 0;
    int rc = rules[g->def->id].fn(&r);
    for (int i = 0; i < r.ntmp; i++)
        r.b->vt->release(r.b, r.tmp[i]);
    for (int i = 0; i < r.nat; i++)
        d2_attrs_free(&r.at[i]);
    g->attrs = saved;
    d2_attrs_free(&defaults);
    if (rc < 0 || r.rc < 0) {
        for (int i = 0; i < g->n_in; i++) {
            g->b->vt->release(g->b, g->din[i]);
            g->din[i] = NULL;
        }
        return -1;
    }
    return 0;
}

d2_grad_fn d2_op_grad(d2_op_id id)
{
    if ((unsigned)id >= D2_NUM_OPS || !rules[id].fn)
        return NULL;
    return dispatch;
}

bool d2_op_input_differentiable(d2_op_id id, int i)
{
    if ((unsigned)id >= D2_NUM_OPS || !rules[id].fn || i < 0)
        return false;
    const d2_opdef *def = d2_op_def(id);
    int port = i;
    if (i >= def->n_ins) {
        if (!def->ins_variadic)
            return false;
        port = def->n_ins - 1;
    }
    return !(rules[id].nodiff & (1u << port));
}

bool d2_dtype_differentiable(d2_dtype dt) { return dt == D2_F32 || dt == D2_F64; }

int d2_grad_run(d2_gctx *g)
{
    const d2_opdef *def = g->def;
    for (int i = 0; i < g->n_in; i++)
        g->din[i] = NULL;
    if (!def || !d2_op_grad(def->id))
        return d2_err_set(g->err, D2_ERR_UNSUPPORTED, "op %s has no gradient",
                          def ? def->name : "?");
    int rc = dispatch(g);
    if (rc < 0 && g->err && strncmp(g->err->msg, "gradient of ", 12) != 0)
        d2_err_prefix(g->err, "gradient of %s", def->name);
    return rc;
}

/* ---- the eager builder ---- */

static int eager_emit(d2_gbuilder *b, d2_op_id id, const d2_attrs *attrs, d2_gval *ins, int n_in,
                      d2_gval *outs, int n_out, d2_err *err)
{
    d2_grad_eager *e = (d2_grad_eager *)b;
    return d2_op_run(e->be, id, attrs, (d2_tensor **)ins, n_in, (d2_tensor **)outs, n_out, err);
}

static void eager_type_of(d2_gbuilder *b, d2_gval v, d2_type *out)
{
    (void)b;
    const d2_tensor *t = v;
    out->kind = t->kind;
    out->dtype = t->dtype;
    d2_tensor_get_shape(t, &out->shape);
}

static d2_gval eager_ref(d2_gbuilder *b, d2_gval v)
{
    (void)b;
    return d2_tensor_ref(v);
}

static void eager_release(d2_gbuilder *b, d2_gval v)
{
    (void)b;
    if (v)
        d2_tensor_unref(v);
}

static const d2_gbuilder_vt eager_vt = {eager_emit, eager_type_of, eager_ref, eager_release};

void d2_grad_eager_init(d2_grad_eager *b, struct d2_backend *be)
{
    b->base.vt = &eager_vt;
    b->be = be;
}
