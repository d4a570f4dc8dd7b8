/* mathmod.c - the math module (not math.c: runtime/cpu/math.c shares the library). */
#include "lib/std/std.h"

#include <math.h>

/* The doubles of a[0..want), with math's message for a non-number. */
static int num_arg(d2_interp *I, d2_obj **a, size_t want, double *x)
{
    for (size_t i = 0; i < want; i++)
        if (d2_to_double(I, a[i], "must be real number", &x[i]) < 0) {
            if (d2_exc_matches(I, d2_exc_class(I, "TypeError"))) {
                d2_exc_clear(I);
                d2_raise(I, "TypeError", "must be real number, not %s", d2_type_name(a[i]));
            }
            return -1;
        }
    return 0;
}

static d2_obj *math_result(d2_interp *I, double r, bool domain_ok)
{
    if (!domain_ok || isnan(r))
        return d2_raise(I, "ValueError", "math domain error");
    return d2_float_new(I, r);
}

#define MATH1(cname, expr, domain)                                                               \
    D2_FN(cname)                                                                                   \
    {                                                                                              \
        double x[1];                                                                               \
        if (num_arg(I, a, 1, x) < 0)                                                               \
            return NULL;                                                                           \
        double v = x[0];                                                                           \
        if (isnan(v))                                                                              \
            return d2_float_new(I, v);                                                             \
        return math_result(I, (expr), (domain));                                                   \
    }

MATH1(m_sqrt, sqrt(v), v >= 0)
MATH1(m_exp, exp(v), true)
MATH1(m_log2, log2(v), v > 0)
MATH1(m_log10, log10(v), v > 0)
MATH1(m_log1p, log1p(v), v > -1)
MATH1(m_sin, sin(v), !isinf(v))
MATH1(m_cos, cos(v), !isinf(v))
MATH1(m_tan, tan(v), !isinf(v))
MATH1(m_asin, asin(v), v >= -1 && v <= 1)
MATH1(m_acos, acos(v), v >= -1 && v <= 1)
MATH1(m_atan, atan(v), true)
MATH1(m_sinh, sinh(v), true)
MATH1(m_cosh, cosh(v), true)
MATH1(m_tanh, tanh(v), true)
MATH1(m_erf, erf(v), true)
MATH1(m_erfc, erfc(v), true)
MATH1(m_fabs, fabs(v), true)
MATH1(m_degrees, v * 180.0 / M_PI, true)
MATH1(m_radians, v * M_PI / 180.0, true)
MATH1(m_gamma, tgamma(v), !(v <= 0 && v == floor(v)))
MATH1(m_lgamma, lgamma(v), !(v <= 0 && v == floor(v)))

D2_FN(m_log) /* a[0] x, a[1] base or NULL */
{
    double x, b = 0;
    if (d2_to_double(I, a[0], "log() argument", &x) < 0 ||
        (a[1] && d2_to_double(I, a[1], "log() base", &b) < 0))
        return NULL;
    if (x <= 0 || (a[1] && (b <= 0 || b == 1)))
        return d2_raise(I, "ValueError", "math domain error");
    return d2_float_new(I, a[1] ? log(x) / log(b) : log(x));
}

static d2_obj *round_fn(d2_interp *I, d2_obj *v, int mode)
{
    if (v->kind == D2_OBJ_INT || v->kind == D2_OBJ_BOOL)
        return d2_int_new(I, D2_AS(d2_int, v)->v);
    double x;
    if (num_arg(I, &v, 1, &x) < 0)
        return NULL;
    double r = mode == 0 ? floor(x) : mode == 1 ? ceil(x) : trunc(x);
    if (isnan(r))
        return d2_raise(I, "ValueError", "cannot convert float NaN to integer");
    if (isinf(r) || fabs(r) >= 9.2e18)
        return d2_raise(I, "OverflowError", "cannot convert float infinity to integer");
    return d2_int_new(I, (int64_t)r);
}

D2_FN(m_floor) { return round_fn(I, a[0], 0); }
D2_FN(m_ceil) { return round_fn(I, a[0], 1); }
D2_FN(m_trunc) { return round_fn(I, a[0], 2); }

D2_FN(m_pow)
{
    double x[2];
    if (num_arg(I, a, 2, x) < 0)
        return NULL;
    if (x[0] == 0 && x[1] < 0)
        return d2_raise(I, "ValueError", "math domain error");
    double r = pow(x[0], x[1]);
    if (isnan(r) && !isnan(x[0]) && !isnan(x[1]))
        return d2_raise(I, "ValueError", "math domain error");
    if (isinf(r) && isfinite(x[0]) && isfinite(x[1]))
        return d2_raise(I, "OverflowError", "math range error");
    return d2_float_new(I, r);
}

D2_FN(m_atan2)
{
    double x[2];
    return num_arg(I, a, 2, x) < 0 ? NULL : d2_float_new(I, atan2(x[0], x[1]));
}

D2_FN(m_fmod)
{
    double x[2];
    if (num_arg(I, a, 2, x) < 0)
        return NULL;
    if (x[1] == 0 || isinf(x[0]))
        return d2_raise(I, "ValueError", "math domain error");
    return d2_float_new(I, fmod(x[0], x[1]));
}

D2_FN(m_copysign)
{
    double x[2];
    return num_arg(I, a, 2, x) < 0 ? NULL : d2_float_new(I, copysign(x[0], x[1]));
}

D2_FN(m_hypot) /* a[0] the coordinates */
{
    d2_tuple *t = D2_AS(d2_tuple, a[0]);
    double acc = 0;
    for (size_t i = 0; i < t->n; i++) {
        double v;
        if (d2_to_double(I, t->items[i], "hypot() argument", &v) < 0)
            return NULL;
        acc = hypot(acc, v);
    }
    return d2_float_new(I, acc);
}

static d2_obj *classify_fn(d2_interp *I, d2_obj **a, int what)
{
    double x[1];
    if (num_arg(I, a, 1, x) < 0)
        return NULL;
    return d2_bool(I, what == 0 ? isnan(x[0]) : what == 1 ? isinf(x[0]) : isfinite(x[0]));
}

D2_FN(m_isnan) { return classify_fn(I, a, 0); }
D2_FN(m_isinf) { return classify_fn(I, a, 1); }
D2_FN(m_isfinite) { return classify_fn(I, a, 2); }

D2_FN(m_isclose) /* a[0] a, a[1] b, a[2] rel_tol, a[3] abs_tol */
{
    double x, y, rt, at;
    if (d2_to_double(I, a[0], "isclose() a", &x) < 0 ||
        d2_to_double(I, a[1], "isclose() b", &y) < 0 || d2_to_double(I, a[2], "rel_tol", &rt) < 0 ||
        d2_to_double(I, a[3], "abs_tol", &at) < 0)
        return NULL;
    if (x == y)
        return d2_bool(I, true);
    if (isinf(x) || isinf(y))
        return d2_bool(I, false);
    double d = fabs(x - y);
    return d2_bool(I, d <= fabs(rt * y) || d <= fabs(rt * x) || d <= at);
}

D2_FN(m_gcd) /* a[0] the integers */
{
    d2_tuple *t = D2_AS(d2_tuple, a[0]);
    int64_t g = 0;
    for (size_t i = 0; i < t->n; i++) {
        int64_t v;
        if (d2_index(I, t->items[i], &v) < 0)
            return NULL;
        uint64_t x = g < 0 ? (uint64_t)-g : (uint64_t)g,
                 y = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        while (y) {
            uint64_t r = x % y;
            x = y;
            y = r;
        }
        g = (int64_t)x;
    }
    return d2_int_new(I, g);
}

D2_FN(m_factorial)
{
    int64_t v;
    if (d2_index(I, a[0], &v) < 0)
        return NULL;
    if (v < 0)
        return d2_raise(I, "ValueError", "factorial() not defined for negative values");
    int64_t r = 1;
    for (int64_t i = 2; i <= v; i++)
        if (__builtin_mul_overflow(r, i, &r))
            return d2_raise(I, "OverflowError", "integer result out of range (ints are 64-bit)");
    return d2_int_new(I, r);
}

D2_FN(m_prod) /* a[0] iterable, a[1] start */
{
    d2_obj *it = d2_get_iter(I, a[0]);
    if (!it)
        return NULL;
    d2_obj *acc = d2_incref(a[1]);
    for (;;) {
        bool done = false;
        d2_obj *v = d2_iter_next(I, it, &done);
        if (!v)
            break;
        d2_obj *r = d2_binop(I, D2_OP_MULT, acc, v);
        d2_decref(v);
        d2_decref(acc);
        acc = r;
        if (!acc)
            break;
    }
    d2_decref(it);
    if (d2_exc_pending(I)) {
        d2_decref(acc);
        return NULL;
    }
    return acc;
}

static const d2_def MATH_DEFS[] = {
    D2_DEF_POS("sqrt", "x, /", m_sqrt, NULL),
    D2_DEF_POS("exp", "x, /", m_exp, NULL),
    D2_DEF_POS("log", "x, [base], /", m_log, NULL),
    D2_DEF_POS("log2", "x, /", m_log2, NULL),
    D2_DEF_POS("log10", "x, /", m_log10, NULL),
    D2_DEF_POS("log1p", "x, /", m_log1p, NULL),
    D2_DEF_POS("sin", "x, /", m_sin, NULL),
    D2_DEF_POS("cos", "x, /", m_cos, NULL),
    D2_DEF_POS("tan", "x, /", m_tan, NULL),
    D2_DEF_POS("asin", "x, /", m_asin, NULL),
    D2_DEF_POS("acos", "x, /", m_acos, NULL),
    D2_DEF_POS("atan", "x, /", m_atan, NULL),
    D2_DEF_POS("atan2", "y, x, /", m_atan2, NULL),
    D2_DEF_POS("sinh", "x, /", m_sinh, NULL),
    D2_DEF_POS("cosh", "x, /", m_cosh, NULL),
    D2_DEF_POS("tanh", "x, /", m_tanh, NULL),
    D2_DEF_POS("erf", "x, /", m_erf, NULL),
    D2_DEF_POS("erfc", "x, /", m_erfc, NULL),
    D2_DEF_POS("fabs", "x, /", m_fabs, NULL),
    D2_DEF_POS("floor", "x, /", m_floor, NULL),
    D2_DEF_POS("ceil", "x, /", m_ceil, NULL),
    D2_DEF_POS("trunc", "x, /", m_trunc, NULL),
    D2_DEF_POS("pow", "x, y, /", m_pow, NULL),
    D2_DEF_POS("fmod", "x, y, /", m_fmod, NULL),
    D2_DEF_POS("copysign", "x, y, /", m_copysign, NULL),
    D2_DEF_POS("hypot", "*coordinates", m_hypot, NULL),
    D2_DEF_POS("isnan", "x, /", m_isnan, NULL),
    D2_DEF_POS("isinf", "x, /", m_isinf, NULL),
    D2_DEF_POS("isfinite", "x, /", m_isfinite, NULL),
    D2_DEF("isclose", "a, b, /, *, rel_tol=1e-09, abs_tol=0.0", m_isclose, NULL),
    D2_DEF_POS("gcd", "*integers", m_gcd, NULL),
    D2_DEF_POS("factorial", "n, /", m_factorial, NULL),
    D2_DEF("prod", "iterable, /, *, start=1", m_prod, NULL),
    D2_DEF_POS("degrees", "x, /", m_degrees, NULL),
    D2_DEF_POS("radians", "x, /", m_radians, NULL),
    D2_DEF_POS("gamma", "x, /", m_gamma, NULL),
    D2_DEF_POS("lgamma", "x, /", m_lgamma, NULL),
};

int d2_std_math_init(d2_interp *I)
{
    d2_module *m = d2_std_module_defs(I, "math", MATH_DEFS, D2_COUNTOF(MATH_DEFS));
    return !m || d2_std_set(I, m->dict, "pi", d2_float_new(I, M_PI)) < 0 ||
                   d2_std_set(I, m->dict, "e", d2_float_new(I, M_E)) < 0 ||
                   d2_std_set(I, m->dict, "tau", d2_float_new(I, 2 * M_PI)) < 0 ||
                   d2_std_set(I, m->dict, "inf", d2_float_new(I, INFINITY)) < 0 ||
                   d2_std_set(I, m->dict, "nan", d2_float_new(I, NAN)) < 0
               ? -1
               : 0;
}
