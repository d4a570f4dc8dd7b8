/* elem.c - CPU kernels for special functions, parameterised activations, isnan/isinf/isfinite, bitwise ops, gcd and lcm. */
#include "../ops.h"

#include <math.h>
#include <string.h>

typedef uint8_t b8;

/* ---- special functions without a C library counterpart ---- */

/* Inverse error function: a rational first guess refined by Newton steps on
 * erf, exact to double precision; y >= 1 gives inf and y <= -1 -inf, as Paddle. */
static double erfinv_d(double y)
{
    if (isnan(y))
        return NAN;
    if (y >= 1)
        return INFINITY;
    if (y <= -1)
        return -INFINITY;
    double w = -log((1 - y) * (1 + y)), x;
    if (w < 5) {
        w -= 2.5;
        double p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
        x = p * y;
    } else {
        w = sqrt(w) - 3;
        double p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
        x = p * y;
    }
    for (int it = 0; it < 3; it++) {
        double d = 1.1283791670955126 * exp(-x * x); /* erf'(x) */
        if (d == 0)
            break;
        x -= (erf(x) - y) / d;
    }
    return x;
}

/* Digamma: reflection for negative x, recurrence up to x >= 10, then the
 * asymptotic series. Poles (0 and negative integers) give NaN, as Eigen. */
static double digamma_d(double x)
{
    if (isnan(x) || x == -INFINITY)
        return NAN;
    if (x == INFINITY)
        return INFINITY;
    double r = 0;
    if (x <= 0) {
        if (x == floor(x))
            return NAN;
        r = -M_PI / tan(M_PI * x);
        x = 1 - x;
    }
    while (x < 10) {
        r -= 1 / x;
        x += 1;
    }
    double f = 1 / (x * x);
    double t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 +
                                                                    f * (-1.0 / 132)))));
    return r + log(x) - 0.5 / x + t;
}

static double softplus_d(double x, double beta, double thr)
{
    double bx = beta * x;
    return bx > thr ? x : log1p(exp(bx)) / beta;
}

/* ---- the unary float kernels: each op one expression of a (double) and the
 * attribute values p[0], p[1] (schema order) ---- */

#define EXPRS(X)                                                                                   \
    X(erfinv, erfinv_d(a))                                                                         \
    X(lgamma, lgamma(a))                                                                           \
    X(digamma, digamma_d(a))                                                                       \
    X(expm1, expm1(a))                                                                             \
    X(log1p, log1p(a))                                                                             \
    X(log2, log2(a))                                                                               \
    X(log10, log10(a))                                                                             \
    X(tan, tan(a))                                                                                 \
    X(asin, asin(a))                                                                               \
    X(acos, acos(a))                                                                               \
    X(atan, atan(a))                                                                               \
    X(sinh, sinh(a))                                                                               \
    X(cosh, cosh(a))                                                                               \
    X(asinh, asinh(a))                                                                             \
    X(acosh, acosh(a))                                                                             \
    X(atanh, atanh(a))                                                                             \
    X(trunc, trunc(a))                                                                             \
    X(round, round(a))                                                                             \
    X(softsign, a / (1 + fabs(a)))                                                                 \
    X(mish, a * tanh(softplus_d(a, 1, 20)))                                                        \
    X(logsigmoid, fmin(a, 0) - log1p(exp(-fabs(a))))                                               \
    X(tanhshrink, a - tanh(a))                                                                     \
    X(hardswish, a * fmin(fmax(a + 3, 0), 6) / 6)                                                  \
    X(softplus, softplus_d(a, p[0], p[1]))                                                         \
    X(elu, a > 0 ? a : p[0] * expm1(a))                                                            \
    X(celu, a > 0 ? a : p[0] * expm1(a / p[0]))                                          \
    X(selu, p[0] * (a > 0 ? a : p[1] * expm1(a)))                                                  \
    X(hardsigmoid, clip01(p[0] * a + p[1]))                                              \
    X(hardshrink, a * (double)(a > p[0] || a < -p[0]))                                                 \
    X(softshrink, a > p[0] ? a - p[0] : a < -p[0] ? a + p[0] : 0)                                  \
    X(thresholded_relu, a * (double)(a > p[0]))                                                          \
    X(stanh, p[1] * tanh(p[0] * a))                                                                \
    X(logit, logit_d(a, p[0]))

/* Clamps to [0, 1]; NaN stays NaN. */
static double clip01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

static double logit_d(double a, double eps)
{
    if (eps > 0)
        a = a < eps ? eps : a > 1 - eps ? 1 - eps : a;
    return log(a / (1 - a));
}

static int float_only(d2_kctx *k)
{
    return d2_err_set(k->err, D2_ERR_DTYPE, "%s: expected a float32 or float64 input, got %s",
                      k->def->name, d2_dtype_name(k->in[0]->dtype));
}

#define KERNEL(NAME, EXPR)                                                                         \
    int cpu_##NAME(d2_kctx *k)                                                                     \
    {                                                                                              \
        double p[2] = {0, 0};                                                                      \
        for (int j = 0; j < k->def->n_attrs && j < 2; j++)                                         \
            p[j] = k->attrs->v[j].u.f;                                                             \
        (void)p;                                                                                   \
        int64_t n = d2_tensor_numel(k->in[0]);                                                     \
        if (k->in[0]->dtype == D2_F32) {                                                           \
            const float *x = d2_tensor_data(k->in[0]);                                             \
            float *o = d2_tensor_data(k->out[0]);                                                  \
            for (int64_t i = 0; i < n; i++) {                                                      \
                double a = x[i];                                                                   \
                o[i] = (float)(EXPR);                                                              \
            }                                                                                      \
        } else if (k->in[0]->dtype == D2_F64) {                                                    \
            const double *x = d2_tensor_data(k->in[0]);                                            \
            double *o = d2_tensor_data(k->out[0]);                                                 \
            for (int64_t i = 0; i < n; i++) {                                                      \
                double a = x[i];                                                                   \
                o[i] = (EXPR);                                                                     \
            }                                                                                      \
        } else {                                                                                   \
            return float_only(k);                                                                  \
        }                                                                                          \
        return 0;                                                                                  \
    }
EXPRS(KERNEL)
#undef KERNEL

/* ---- isnan, isinf, isfinite: any dtype, bool out ---- */

static int classify(d2_kctx *k, int which)
{
    const d2_tensor *x = k->in[0];
    int64_t n = d2_tensor_numel(x);
    b8 *o = d2_tensor_data(k->out[0]);
    if (!d2_dtype_is_float(x->dtype)) {
        memset(o, which == 2, (size_t)n);
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        double v = x->dtype == D2_F32 ? ((const float *)d2_tensor_data(x))[i]
                                      : ((const double *)d2_tensor_data(x))[i];
        o[i] = which == 0 ? isnan(v) != 0 : which == 1 ? isinf(v) != 0 : isfinite(v) != 0;
    }
    return 0;
}

int cpu_isnan(d2_kctx *k) { return classify(k, 0); }
int cpu_isinf(d2_kctx *k) { return classify(k, 1); }
int cpu_isfinite(d2_kctx *k) { return classify(k, 2); }

/* ---- bitwise ops with numpy broadcasting ---- */

/* Element strides of t for the output shape (0 along broadcast dims). */
static void bcast_strides(const d2_tensor *t, const d2_tensor *out, int64_t *st)
{
    int off = out->ndim - t->ndim;
    int64_t s = 1;
    for (int d = out->ndim - 1; d >= 0; d--) {
        st[d] = 0;
        if (d >= off) {
            int64_t dim = t->shape[d - off];
            st[d] = dim == 1 ? 0 : s;
            s *= dim;
        }
    }
}

static int64_t get_int(const d2_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case D2_I32: return ((const int32_t *)d2_tensor_data(t))[i];
    case D2_I64: return ((const int64_t *)d2_tensor_data(t))[i];
    default: return ((const b8 *)d2_tensor_data(t))[i];
    }
}

static void put_int(d2_tensor *t, int64_t i, int64_t v)
{
    switch (t->dtype) {
    case D2_I32: ((int32_t *)d2_tensor_data(t))[i] = (int32_t)v; break;
    case D2_I64: ((int64_t *)d2_tensor_data(t))[i] = v; break;
    default: ((b8 *)d2_tensor_data(t))[i] = (b8)(v & 1); break;
    }
}

/* gcd (or lcm) of |a| and |b| in unsigned arithmetic (so INT64_MIN does not
 * overflow); the result wraps to the output dtype like Paddle's. */
static int64_t gcd_lcm(int64_t a, int64_t b, bool lcm)
{
    uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
    uint64_t p = x, q = y;
    while (q) {
        uint64_t t = p % q;
        p = q;
        q = t;
    }
    if (!lcm)
        return (int64_t)p;
    return p == 0 ? 0 : (int64_t)(x / p * y);
}

static int bitwise(d2_kctx *k, int op)
{
    d2_tensor *out = k->out[0];
    if (d2_dtype_is_float(k->in[0]->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: no CPU kernel for dtype %s", k->def->name,
                          d2_dtype_name(k->in[0]->dtype));
    int64_t n = d2_tensor_numel(out);
    if (op == 3) {
        for (int64_t i = 0; i < n; i++)
            put_int(out, i, ~get_int(k->in[0], i));
        return 0;
    }
    int64_t sx[D2_MAX_DIMS], sy[D2_MAX_DIMS], idx[D2_MAX_DIMS] = {0};
    bcast_strides(k->in[0], out, sx);
    bcast_strides(k->in[1], out, sy);
    int64_t ox = 0, oy = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a = get_int(k->in[0], ox), b = get_int(k->in[1], oy);
        put_int(out, i, op == 0 ? (a & b) : op == 1 ? (a | b) : op == 2 ? (a ^ b) : gcd_lcm(a, b, op == 5));
        for (int d = out->ndim - 1; d >= 0; d--) {
            ox += sx[d];
            oy += sy[d];
            if (++idx[d] < out->shape[d])
                break;
            ox -= sx[d] * out->shape[d];
            oy -= sy[d] * out->shape[d];
            idx[d] = 0;
        }
    }
    return 0;
}

int cpu_bitwise_and(d2_kctx *k) { return bitwise(k, 0); }
int cpu_bitwise_or(d2_kctx *k) { return bitwise(k, 1); }
int cpu_bitwise_xor(d2_kctx *k) { return bitwise(k, 2); }
int cpu_bitwise_not(d2_kctx *k) { return bitwise(k, 3); }
int cpu_gcd(d2_kctx *k) { return bitwise(k, 4); }
int cpu_lcm(d2_kctx *k) { return bitwise(k, 5); }
