/* bindings.c - PADDLE_BINDINGS: one table row per simple paddle function or Tensor method. */
#include "lib/paddle/functions_priv.h"

#include <pthread.h>
#include <string.h>

/* ======================================================================
 * Table-driven bindings: one row per simple function
 * ====================================================================== */

/* X(cname, python name, op, parameters (d2_parse_args spec), map, where)
 *
 * map has one entry per parameter, in order:
 *   x        tensor input (a non-tensor converts with to_tensor; a Python
 *            number takes the dtype of the first tensor input)
 *   x?       optional tensor input (None: absent)
 *   xs       list/tuple of tensors: the variadic inputs
 *   idx      index tensor input (lists become int64)
 *   -        accepted and ignored
 *   cast     a dtype: input 0 is cast to it first when not None
 *   T:attr   attribute attr from the argument, T one of int, float, bool,
 *            str, ints, dtype, axes (None: [], int: [i]), shape (ints, or
 *            tensors inside: the op's shape input); None keeps the default
 * where: P paddle.NAME, M Tensor method, F paddle.nn.functional.NAME,
 *        B binary op (Paddle's dtype rules for two operands). */
#define W_P 1u
#define W_M 2u
#define W_F 4u
#define W_B 8u

#define UNARY(c, op, w) X(c, #c, op, "x, name=None", "x, -", w)
#define BINARY(c, op, w) X(c, #c, op, "x, y, name=None", "x, x, -", w | W_B)
#define REDUCE(c, op)                                                                              \
    X(c, #c, op, "x, axis=None, keepdim=False, name=None", "x, axes:axis, bool:keepdim, -",        \
      W_P | W_M)

/* Special functions, activations, bitwise ops and the one-op scans and index
 * functions (ops.def's sections of them). */
#define UNARY_PM(c) UNARY(c, D2_OP_##c, W_P | W_M)
#define ACT1(c, op, spec, map) X(c, #c, op, "x, " spec ", name=None", "x, " map ", -", W_F)
#define PADDLE_EXT_BINDINGS(X)                                                                     \
    UNARY_PM(erf) UNARY_PM(erfinv) UNARY_PM(lgamma) UNARY_PM(digamma) UNARY_PM(expm1)              \
    UNARY_PM(log1p) UNARY_PM(log2) UNARY_PM(log10) UNARY_PM(tan) UNARY_PM(asin) UNARY_PM(acos)     \
    UNARY_PM(atan) UNARY_PM(sinh) UNARY_PM(cosh) UNARY_PM(asinh) UNARY_PM(acosh) UNARY_PM(atanh)   \
    UNARY_PM(isnan) UNARY_PM(isinf) UNARY_PM(isfinite)                             \
    X(trunc, "trunc", D2_OP_trunc, "input, name=None", "x, -", W_P | W_M)                          \
    UNARY(softsign, D2_OP_softsign, W_F)                                                           \
    UNARY(mish, D2_OP_mish, W_F)                                                                   \
    UNARY(tanhshrink, D2_OP_tanhshrink, W_F)                                                       \
    UNARY(hardswish, D2_OP_hardswish, W_F)                                                         \
    UNARY(swish, D2_OP_silu, W_F)                                                                  \
    UNARY(log_sigmoid, D2_OP_logsigmoid, W_F)                                                      \
    ACT1(softplus, D2_OP_softplus, "beta=1, threshold=20", "float:beta, float:threshold")          \
    ACT1(elu, D2_OP_elu, "alpha=1.0", "float:alpha")                                               \
    ACT1(selu, D2_OP_selu, "scale=1.0507009873554805, alpha=1.6732632423543772",                   \
         "float:scale, float:alpha")                                                               \
    ACT1(hardsigmoid, D2_OP_hardsigmoid, "slope=0.1666667, offset=0.5",                            \
         "float:slope, float:offset")                                                              \
    ACT1(hardshrink, D2_OP_hardshrink, "threshold=0.5", "float:threshold")                         \
    ACT1(softshrink, D2_OP_softshrink, "threshold=0.5", "float:threshold")                         \
    ACT1(thresholded_relu, D2_OP_thresholded_relu, "threshold=1.0", "float:threshold")             \
    ACT1(hardtanh, D2_OP_clip, "min=-1.0, max=1.0", "float:min, float:max")                        \
    X(stanh, "stanh", D2_OP_stanh, "x, scale_a=0.67, scale_b=1.7159, name=None",                   \
      "x, float:scale_a, float:scale_b, -", W_P | W_M)                                             \
    X(logit, "logit", D2_OP_logit, "x, eps=None, name=None", "x, float:eps, -", W_P | W_M)         \
    X(bitwise_and, "bitwise_and", D2_OP_bitwise_and, "x, y, out=None, name=None", "x, x, -, -",    \
      W_P | W_M)                                                                                   \
    X(bitwise_or, "bitwise_or", D2_OP_bitwise_or, "x, y, out=None, name=None", "x, x, -, -",       \
      W_P | W_M)                                                                                   \
    X(bitwise_xor, "bitwise_xor", D2_OP_bitwise_xor, "x, y, out=None, name=None", "x, x, -, -",    \
      W_P | W_M)                                                                                   \
    X(bitwise_not, "bitwise_not", D2_OP_bitwise_not, "x, out=None, name=None", "x, -, -",          \
      W_P | W_M)                                                                                   \
    X(gcd, "gcd", D2_OP_gcd, "x, y, name=None", "x, x, -", W_P | W_M)                              \
    X(lcm, "lcm", D2_OP_lcm, "x, y, name=None", "x, x, -", W_P | W_M)                              \
    X(reverse, "reverse", D2_OP_flip, "x, axis, name=None", "x, axes:axis, -", W_P | W_M)          \
    X(gather_nd, "gather_nd", D2_OP_gather_nd, "x, index, name=None", "x, idx, -", W_P | W_M)      \
    X(scatter, "scatter", D2_OP_scatter, "x, index, updates, overwrite=True, name=None",           \
      "x, idx, x, bool:overwrite, -", W_P | W_M)                                                   \
    X(scatter_nd_add, "scatter_nd_add", D2_OP_scatter_nd_add, "x, index, updates, name=None",      \
      "x, idx, x, -", W_P | W_M)

#define PADDLE_BINDINGS(X)                                                                         \
    PADDLE_EXT_BINDINGS(X)                                                                         \
    UNARY(exp, D2_OP_exp, W_P | W_M)                                                               \
    UNARY(log, D2_OP_log, W_P | W_M)                                                               \
    UNARY(sqrt, D2_OP_sqrt, W_P | W_M)                                                             \
    UNARY(rsqrt, D2_OP_rsqrt, W_P | W_M)                                                           \
    UNARY(reciprocal, D2_OP_reciprocal, W_P | W_M)                                                 \
    UNARY(floor, D2_OP_floor, W_P | W_M)                                                           \
    UNARY(ceil, D2_OP_ceil, W_P | W_M)                                                             \
    UNARY(sin, D2_OP_sin, W_P | W_M)                                                               \
    UNARY(cos, D2_OP_cos, W_P | W_M)                                                               \
    UNARY(tanh, D2_OP_tanh, W_P | W_M | W_F)                                                       \
    UNARY(sigmoid, D2_OP_sigmoid, W_P | W_M | W_F)                                                 \
    UNARY(abs, D2_OP_abs, W_P | W_M)                                                               \
    UNARY(neg, D2_OP_neg, W_P | W_M)                                                               \
    UNARY(sign, D2_OP_sign, W_P | W_M)                                                             \
    UNARY(square, D2_OP_square, W_P | W_M)                                                         \
    UNARY(relu, D2_OP_relu, W_P | W_F)                                                             \
    UNARY(silu, D2_OP_silu, W_F)                                                                   \
    UNARY(logical_not, D2_OP_logical_not, W_P | W_M)                                               \
    BINARY(add, D2_OP_add, W_P | W_M)                                                              \
    BINARY(subtract, D2_OP_subtract, W_P | W_M)                                                    \
    BINARY(multiply, D2_OP_multiply, W_P | W_M)                                                    \
    BINARY(divide, D2_OP_divide, W_P | W_M)                                                        \
    BINARY(floor_divide, D2_OP_floor_divide, W_P | W_M)                                            \
    BINARY(remainder, D2_OP_remainder, W_P | W_M)                                                  \
    BINARY(mod, D2_OP_remainder, W_P | W_M)                                                        \
    BINARY(floor_mod, D2_OP_remainder, W_P | W_M)                                                  \
    BINARY(pow, D2_OP_pow, W_P | W_M)                                                              \
    BINARY(maximum, D2_OP_maximum, W_P | W_M)                                                      \
    BINARY(minimum, D2_OP_minimum, W_P | W_M)                                                      \
    BINARY(equal, D2_OP_equal, W_P | W_M)                                                          \
    BINARY(not_equal, D2_OP_not_equal, W_P | W_M)                                                  \
    BINARY(less_than, D2_OP_less_than, W_P | W_M)                                                  \
    BINARY(less_equal, D2_OP_less_equal, W_P | W_M)                                                \
    BINARY(greater_than, D2_OP_greater_than, W_P | W_M)                                            \
    BINARY(greater_equal, D2_OP_greater_equal, W_P | W_M)                                          \
    BINARY(logical_and, D2_OP_logical_and, W_P | W_M)                                              \
    BINARY(logical_or, D2_OP_logical_or, W_P | W_M)                                                \
    BINARY(logical_xor, D2_OP_logical_xor, W_P | W_M)                                              \
    X(sum, "sum", D2_OP_sum, "x, axis=None, dtype=None, keepdim=False, name=None",                 \
      "x, axes:axis, dtype:dtype, bool:keepdim, -", W_P | W_M)                                     \
    REDUCE(mean, D2_OP_mean)                                                                       \
    REDUCE(max, D2_OP_max)                                                                         \
    REDUCE(min, D2_OP_min)                                                                         \
    REDUCE(amax, D2_OP_amax)                                                                       \
    REDUCE(amin, D2_OP_amin)                                                                       \
    REDUCE(any, D2_OP_any)                                                                         \
    REDUCE(all, D2_OP_all)                                                                         \
    X(prod, "prod", D2_OP_prod, "x, axis=None, keepdim=False, dtype=None, name=None",              \
      "x, axes:axis, bool:keepdim, cast, -", W_P | W_M)                                            \
    X(cast, "cast", D2_OP_cast, "x, dtype", "x, dtype:dtype", W_P | W_M)                           \
    X(astype, "astype", D2_OP_cast, "x, dtype", "x, dtype:dtype", W_M)                             \
    X(reshape, "reshape", D2_OP_reshape, "x, shape, name=None", "x, shape:shape, -", W_P | W_M)    \
    X(flatten, "flatten", D2_OP_flatten, "x, start_axis=0, stop_axis=-1, name=None",               \
      "x, int:start_axis, int:stop_axis, -", W_P | W_M)                                            \
    X(squeeze, "squeeze", D2_OP_squeeze, "x, axis=None, name=None", "x, axes:axis, -", W_P | W_M)  \
    X(unsqueeze, "unsqueeze", D2_OP_unsqueeze, "x, axis, name=None", "x, axes:axis, -", W_P | W_M) \
    X(transpose, "transpose", D2_OP_transpose, "x, perm, name=None", "x, ints:perm, -", W_P | W_M) \
    X(gather, "gather", D2_OP_gather, "x, index, axis=None, name=None", "x, idx, int:axis, -",     \
      W_P | W_M)                                                                                   \
    X(index_select, "index_select", D2_OP_index_select, "x, index, axis=0, name=None",             \
      "x, idx, int:axis, -", W_P | W_M)                                                            \
    X(expand, "expand", D2_OP_expand, "x, shape, name=None", "x, shape:shape, -", W_P | W_M)       \
    X(broadcast_to, "broadcast_to", D2_OP_expand, "x, shape, name=None", "x, shape:shape, -",      \
      W_P | W_M)                                                                                   \
    X(tile, "tile", D2_OP_tile, "x, repeat_times, name=None", "x, ints:repeat_times, -",           \
      W_P | W_M)                                                                                   \
    X(matmul, "matmul", D2_OP_matmul, "x, y, transpose_x=False, transpose_y=False, name=None",     \
      "x, x, bool:transpose_x, bool:transpose_y, -", W_P | W_M)                                    \
    X(mm, "mm", D2_OP_matmul, "input, mat2, name=None", "x, x, -", W_P | W_M)                      \
    X(bmm, "bmm", D2_OP_matmul, "x, y, name=None", "x, x, -", W_P | W_M)                           \
    X(clip, "clip", D2_OP_clip, "x, min=None, max=None, name=None", "x, float:min, float:max, -",  \
      W_P | W_M)                                                                                   \
    X(scale, "scale", D2_OP_scale,                                                                 \
      "x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None",                        \
      "x, float:scale, float:bias, bool:bias_after_scale, -, -", W_P | W_M)                        \
    X(shape, "shape", D2_OP_shape, "input", "x", W_P)                                              \
    X(numel, "numel", D2_OP_numel, "x, name=None", "x, -", W_P | W_M)                              \
    X(clone, "clone", D2_OP_assign, "x, name=None", "x, -", W_P | W_M)                             \
    X(softmax, "softmax", D2_OP_softmax, "x, axis=-1, dtype=None, name=None",                      \
      "x, int:axis, cast, -", W_F)                                                                 \
    X(log_softmax, "log_softmax", D2_OP_log_softmax, "x, axis=-1, dtype=None, name=None",          \
      "x, int:axis, cast, -", W_F)                                                                 \
    X(gelu, "gelu", D2_OP_gelu, "x, approximate=False, name=None", "x, bool:approximate, -", W_F)  \
    X(leaky_relu, "leaky_relu", D2_OP_leaky_relu, "x, negative_slope=0.01, name=None",             \
      "x, float:negative_slope, -", W_F)                                                           \
    X(linear, "linear", D2_OP_linear, "x, weight, bias=None, name=None", "x, x, x?, -", W_F)

typedef struct binding {
    d2_op_id op;
    const char *map;
    unsigned where;
} binding;

enum {
#define X(c, py, op, spec, map, w) BI_##c,
    PADDLE_BINDINGS(X)
#undef X
        BI_COUNT
};

static const binding BINDINGS[] = {
#define X(c, py, op, spec, map, w) {op, map, w},
    PADDLE_BINDINGS(X)
#undef X
};

/* Copies the next comma-separated map entry into buf; returns the rest. */
static const char *map_next(const char *m, char *buf, size_t cap)
{
    while (*m == ' ' || *m == ',')
        m++;
    size_t n = 0;
    while (*m && *m != ',') {
        if (*m != ' ' && n + 1 < cap)
            buf[n++] = *m;
        m++;
    }
    buf[n] = 0;
    return m;
}

/* A binding's map, parsed once for all interpreters: one entry per
 * argument, its kind and the attribute it sets. */
enum { M_X, M_XOPT, M_IDX, M_XS, M_SKIP, M_CAST, M_INT, M_FLOAT, M_BOOL, M_STR, M_AXES,
       M_DTYPE, M_SHAPE, M_BAD };
#define MAP_MAX 24

typedef struct {
    int n;
    unsigned char kind[MAP_MAX];
    const char *attr[MAP_MAX]; /* the attribute, or the entry's text for M_BAD */
} map_code;

static map_code map_codes[BI_COUNT];
static pthread_once_t map_once = PTHREAD_ONCE_INIT;

static int map_kind(const char *e)
{
    static const struct {
        const char *s;
        int k;
    } names[] = {{"x", M_X},         {"x?", M_XOPT},   {"idx", M_IDX},     {"xs", M_XS},
                 {"-", M_SKIP},      {"cast", M_CAST}, {"int", M_INT},     {"float", M_FLOAT},
                 {"bool", M_BOOL},   {"str", M_STR},   {"ints", M_AXES},   {"axes", M_AXES},
                 {"dtype", M_DTYPE}, {"shape", M_SHAPE}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(e, names[i].s) == 0)
            return names[i].k;
    return M_BAD;
}

static void map_compile(void)
{
    for (int b = 0; b < BI_COUNT; b++) {
        map_code *mc = &map_codes[b];
        const char *m = BINDINGS[b].map;
        char e[64];
        for (;;) {
            m = map_next(m, e, sizeof e);
            if (!e[0])
                break;
            if (mc->n == MAP_MAX) { /* caught by every test of the binding */
                mc->kind[MAP_MAX - 1] = M_BAD;
                mc->attr[MAP_MAX - 1] = "too many entries";
                break;
            }
            char *colon = strchr(e, ':');
            if (colon)
                *colon = 0;
            int k = map_kind(e);
            if (colon && k < M_INT)
                k = M_BAD;
            char *text = d2_strdup(k == M_BAD ? e : colon ? colon + 1 : e);
            mc->kind[mc->n] = (unsigned char)(text ? k : M_BAD);
            mc->attr[mc->n] = text ? text : "out of memory";
            mc->n++;
        }
    }
}

/* In static mode, a shape list mixing ints and tensors leaves every dim of
 * the result open in inference; the ints are known, so the result's declared
 * type takes them (positive entries only: 0 and -1 mean "copy"/"infer"). */
void d2_pd_refine_dims(d2_interp *I, d2_obj *out, const int64_t *dims, int n)
{
    if (!out || !is_sym(out) || n < 0 || !TOBJ(out)->builder)
        return;
    d2_tensor_obj *t = TOBJ(out);
    d2_var *v = &t->builder->prog->vars[t->var];
    if (v->type.shape.ndim != n)
        return;
    for (int k = 0; k < n; k++)
        if (dims[k] > 0 && v->type.shape.dims[k] < 0)
            v->type.shape.dims[k] = t->type.shape.dims[k] = dims[k];
    D2_UNUSED(I);
}

/* Builds the shape of reshape/expand/full: ints go to the attribute, a list
 * holding tensors (or a tensor) becomes the op's int64 shape input. *shape_in
 * receives a new reference or stays NULL. */
int d2_pd_shape_arg(d2_interp *I, d2_obj *o, const char *fname, d2_ab *b, d2_obj **shape_in,
                    int64_t *partial, int *n_partial)
{
    *shape_in = NULL;
    *n_partial = -1;
    bool has_sym = false;
    if (is_tensor(o)) {
        if (!d2_dtype_is_int(obj_type(o)->dtype) || obj_type(o)->shape.ndim != 1) {
            d2_raise(I, "TypeError", "%s: shape must be a list of ints or a 1-D int tensor", fname);
            return -1;
        }
        if (is_sym(o)) {
            *shape_in = d2_pd_cast_to(I, fname, o, D2_I64);
            return *shape_in ? 0 : -1;
        }
    } else if (is_seq(o)) {
        for (size_t i = 0; i < seq_len(o); i++)
            if (is_sym(seq_item(o, i)))
                has_sym = true;
    }
    if (!has_sym) {
        int64_t v[D2_MAX_DIMS];
        int n;
        if (d2_pd_ints(I, o, fname, "shape", v, &n, D2_MAX_DIMS) < 0)
            return -1;
        d2_ab_ints(b, "shape", v, n);
        return 0;
    }
    /* a list mixing ints and (symbolic) tensors: concat the pieces as int64 */
    size_t n = seq_len(o);
    d2_obj *parts[D2_MAX_DIMS] = {NULL};
    int rc = -1;
    if (n > D2_MAX_DIMS) {
        d2_raise(I, "ValueError", "%s: shape has %zu dims, at most %d", fname, n, D2_MAX_DIMS);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        d2_obj *it = seq_item(o, i);
        partial[i] = -1;
        if (is_tensor(it)) {
            if (!d2_dtype_is_int(obj_type(it)->dtype) || obj_type(it)->shape.ndim > 1) {
                d2_raise(I, "TypeError",
                         "%s: shape[%zu] must be an int or a one-element int tensor", fname, i);
                goto done;
            }
            d2_obj *c = d2_pd_cast_to(I, fname, it, D2_I64);
            if (!c)
                goto done;
            d2_ab rb;
            d2_ab_init(&rb, D2_OP_reshape);
            int64_t one = 1;
            d2_ab_ints(&rb, "shape", &one, 1);
            parts[i] = op1(I, fname, D2_OP_reshape, c, &rb);
            d2_decref(c);
        } else {
            int64_t v;
            if (d2_pd_get_int(I, it, fname, "a shape entry", &v) < 0)
                goto done;
            partial[i] = v;
            d2_ab fb;
            d2_ab_init(&fb, D2_OP_full);
            int64_t one = 1;
            d2_ab_ints(&fb, "shape", &one, 1);
            d2_ab_float(&fb, "value", (double)v);
            d2_ab_int(&fb, "dtype", D2_I64);
            parts[i] = d2_pd_opn(I, fname, D2_OP_full, NULL, 0, &fb);
        }
        if (!parts[i])
            goto done;
    }
    {
        d2_ab cb;
        d2_ab_init(&cb, D2_OP_concat);
        *shape_in = d2_pd_opn(I, fname, D2_OP_concat, parts, (int)n, &cb);
        rc = *shape_in ? 0 : -1;
        *n_partial = (int)n;
    }
done:
    for (size_t i = 0; i < n; i++)
        d2_decref(parts[i]);
    return rc;
}

/* Axis-list argument: None (all), an int, or a list/tuple of ints. */
static int axes_arg(d2_interp *I, d2_obj *o, const char *fname, const char *what, d2_ab *b,
                    const char *attr)
{
    int64_t v[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, o, fname, what, v, &n, D2_MAX_DIMS) < 0)
        return -1;
    d2_ab_ints(b, attr, v, n);
    return 0;
}

/* The body of every row: def->data is the binding, a[] the arguments (the
 * receiver first for a Tensor method), def->qualname the name in messages. */
D2_FN(bind_call)
{
    const binding *bd = def->data;
    const char *fname = def->qualname;
    d2_obj *r = NULL;
    if (bd->where & W_B)
        return d2_pd_binary(I, fname, bd->op, a[0], a[1], true);
    d2_ab b;
    d2_ab_init(&b, bd->op);
    d2_obj *in[D2_MAX_PORTS + 1] = {NULL};
    d2_obj **vin = NULL; /* variadic inputs (owned refs) */
    int n_in = 0, n_vin = 0;
    int dt_hint = -1, cast_dt = -1;
    int64_t partial[D2_MAX_DIMS];
    int n_partial = -1;
    pthread_once(&map_once, map_compile);
    const map_code *mc = &map_codes[bd - BINDINGS];
    bool fail = false;
    for (int i = 0; !fail && i < mc->n; i++) {
        int kind = mc->kind[i];
        const char *attr = mc->attr[i];
        d2_obj *o = a[i];
        bool none = is_none(I, o);
        switch (kind) {
        case M_X:
        case M_XOPT:
        case M_IDX:
            if (none && kind == M_XOPT) {
                in[n_in++] = NULL;
                continue;
            }
            if (none) {
                d2_raise(I, "TypeError", "%s: argument %d must be a Tensor, got None", fname,
                         i + 1);
                fail = true;
                break;
            }
            in[n_in] = kind == M_IDX ? d2_pd_as_tensor(I, o, -1, fname)
                                     : d2_pd_as_tensor(I, o, is_number(o) ? dt_hint : -1, fname);
            if (!in[n_in]) {
                fail = true;
                break;
            }
            if (dt_hint < 0 && is_tensor(o))
                dt_hint = obj_type(o)->dtype;
            n_in++;
            break;
        case M_XS:
            if (!is_seq(o) || seq_len(o) == 0) {
                d2_raise(I, "TypeError",
                         "%s: x must be a non-empty list or tuple of Tensors, got %s", fname,
                         none ? "None" : d2_type_name(o));
                fail = true;
                break;
            }
            n_vin = (int)seq_len(o);
            vin = d2_calloc((size_t)n_vin, sizeof *vin);
            if (!vin) {
                nomem(I);
                fail = true;
                break;
            }
            for (int k = 0; k < n_vin && !fail; k++) {
                d2_obj *it = seq_item(o, (size_t)k);
                vin[k] = d2_pd_as_tensor(I, it, -1, fname);
                fail = !vin[k];
            }
            break;
        case M_SKIP:
            break;
        case M_CAST:
            if (d2_pd_parse_dtype(I, o, fname, false, &cast_dt) < 0)
                fail = true;
            break;
        default:
            if (none)
                continue;
            if (kind == M_INT) {
                int64_t v;
                fail = d2_pd_get_int(I, o, fname, attr, &v) < 0;
                d2_ab_int(&b, attr, v);
            } else if (kind == M_FLOAT) {
                double v;
                fail = d2_pd_get_float(I, o, fname, attr, &v) < 0;
                d2_ab_float(&b, attr, v);
            } else if (kind == M_BOOL) {
                bool v;
                fail = d2_pd_get_bool(I, o, fname, attr, &v) < 0;
                d2_ab_bool(&b, attr, v);
            } else if (kind == M_STR) {
                const char *v = d2_pd_get_str(I, o, fname, attr);
                fail = !v;
                if (v)
                    d2_ab_str(&b, attr, v);
            } else if (kind == M_AXES) {
                fail = axes_arg(I, o, fname, attr, &b, attr) < 0;
            } else if (kind == M_DTYPE) {
                int dt;
                fail = d2_pd_parse_dtype(I, o, fname, false, &dt) < 0;
                d2_ab_int(&b, attr, dt);
            } else if (kind == M_SHAPE) {
                d2_obj *si = NULL;
                fail = d2_pd_shape_arg(I, o, fname, &b, &si, partial, &n_partial) < 0;
                if (si) {
                    while (n_in < 1)
                        in[n_in++] = NULL;
                    in[n_in++] = si;
                }
            } else {
                d2_raise(I, "RuntimeError", "%s: internal: bad binding entry '%s'", fname, attr);
                fail = true;
            }
        }
    }
    if (!fail && cast_dt >= 0 && in[0]) {
        d2_obj *c = d2_pd_cast_to(I, fname, in[0], cast_dt);
        d2_decref(in[0]);
        in[0] = c;
        fail = !c;
    }
    if (!fail) {
        if (vin)
            r = d2_pd_opn(I, fname, bd->op, vin, n_vin, &b);
        else
            r = d2_pd_opn(I, fname, bd->op, in, n_in, &b);
        if (bd->op != D2_OP_expand)
            d2_pd_refine_dims(I, r, partial, n_partial);
    } else {
        d2_ab_free(&b);
    }
    for (int k = 0; k < n_in; k++)
        d2_decref(in[k]);
    for (int k = 0; k < n_vin; k++)
        d2_decref(vin[k]);
    d2_free(vin);
    return r;
}

/* The rows: as paddle.NAME / paddle.nn.functional.NAME (a function also in
 * paddle keeps its paddle name there), and as the Tensor method x.NAME. */
static const d2_def BINDING_DEFS[] = {
#define X(c, py, op, spec, map, w)                                                                 \
    D2_DEF_DATA(py, spec, bind_call,                                                               \
                ((w) & (W_P | W_M)) ? "paddle." py : "paddle.nn.functional." py,                   \
                &BINDINGS[BI_##c]),
    PADDLE_BINDINGS(X)
#undef X
};

static const d2_def BINDING_METHOD_DEFS[] = {
#define X(c, py, op, spec, map, w)                                                                 \
    D2_DEF_DATA(py, spec, bind_call, "Tensor." py, &BINDINGS[BI_##c]),
    PADDLE_BINDINGS(X)
#undef X
};

/* Adds the rows: paddle.NAME, paddle.nn.functional.NAME and Tensor methods. */
int d2_pd_bindings_add(d2_interp *I, pd_state *s)
{
    for (int i = 0; i < BI_COUNT; i++) {
        if ((BINDINGS[i].where & W_P) && d2_module_add_defs(I, s->paddle, &BINDING_DEFS[i], 1) < 0)
            return -1;
        if ((BINDINGS[i].where & W_F) && d2_module_add_defs(I, s->F, &BINDING_DEFS[i], 1) < 0)
            return -1;
        if ((BINDINGS[i].where & W_M) &&
            d2_class_add_defs(I, s->tensor_cls, &BINDING_METHOD_DEFS[i], 1, D2_DEF_SELF) < 0)
            return -1;
    }
    return 0;
}
