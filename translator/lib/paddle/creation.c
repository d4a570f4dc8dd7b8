/* creation.c - paddle.to_tensor, zeros, ones, full, arange, linspace, eye, random, assign. */
#include "lib/paddle/functions_priv.h"

#include <math.h>
#include <stdlib.h>

/* ======================================================================
 * Creating tensors: zeros, ones, full, arange, linspace, eye
 * ====================================================================== */

int d2_pd_dtype_arg(d2_interp *I, d2_obj *o, const char *fname, int def, int *dt)
{
    if (d2_pd_parse_dtype(I, o, fname, false, dt) < 0)
        return -1;
    if (*dt < 0)
        *dt = def;
    return 0;
}

/* full(shape, value, dtype) through the op (shape may hold tensors). */
static d2_obj *make_full(d2_interp *I, const char *fname, d2_obj *shape, double v, int dt)
{
    d2_ab b;
    d2_ab_init(&b, D2_OP_full);
    d2_obj *si = NULL;
    int64_t partial[D2_MAX_DIMS];
    int n_partial;
    if (d2_pd_shape_arg(I, shape, fname, &b, &si, partial, &n_partial) < 0) {
        d2_ab_free(&b);
        return NULL;
    }
    d2_ab_float(&b, "value", v);
    d2_ab_int(&b, "dtype", dt);
    d2_obj *r = d2_pd_opn(I, fname, D2_OP_full, si ? &si : NULL, si ? 1 : 0, &b);
    d2_decref(si);
    d2_pd_refine_dims(I, r, partial, n_partial);
    return r;
}

static d2_obj *fill_value(d2_interp *I, d2_obj *o, const char *fname, double *v, int *kind)
{
    if (is_number(o)) {
        *v = num_value(o);
        *kind = o->kind == D2_OBJ_FLOAT ? 2 : is_bool(o) ? 0 : 1;
        return o;
    }
    if (is_tensor(o) && !is_sym(o)) {
        double f;
        if (d2_pd_get_float(I, o, fname, "fill_value", &f) < 0)
            return NULL;
        *v = f;
        *kind = 2;
        return o;
    }
    if (o->kind == D2_OBJ_STR) { /* Paddle also takes the number as a string: "0.5" */
        const char *str = D2_AS(d2_str, o)->s;
        char *end;
        double f = strtod(str, &end);
        if (end != str && *end == 0) {
            *v = f;
            *kind = 2;
            return o;
        }
    }
    return d2_raise(I, "TypeError", "%s: fill_value must be a number, got %s", fname,
                    d2_type_name(o));
}

D2_FN(f_zeros)
{
    int dt;
    if (d2_pd_dtype_arg(I, a[1], "paddle.zeros", D2_F32, &dt) < 0)
        return NULL;
    return make_full(I, "paddle.zeros", a[0], 0, dt);
}

D2_FN(f_ones)
{
    int dt;
    if (d2_pd_dtype_arg(I, a[1], "paddle.ones", D2_F32, &dt) < 0)
        return NULL;
    return make_full(I, "paddle.ones", a[0], 1, dt);
}

D2_FN(f_empty)
{
    int dt;
    if (d2_pd_dtype_arg(I, a[1], "paddle.empty", D2_F32, &dt) < 0)
        return NULL;
    return make_full(I, "paddle.empty", a[0], 0, dt);
}

D2_FN(f_full)
{
    double v;
    int kind, dt;
    if (!fill_value(I, a[1], "paddle.full", &v, &kind) ||
        d2_pd_dtype_arg(I, a[2], "paddle.full", D2_F32, &dt) < 0)
        return NULL;
    return make_full(I, "paddle.full", a[0], v, dt);
}

static d2_obj *like(d2_interp *I, const char *fname, d2_obj *x, d2_obj *dto, double v)
{
    int dt;
    if (d2_pd_parse_dtype(I, dto, fname, false, &dt) < 0)
        return NULL;
    d2_obj *t = d2_pd_as_tensor(I, x, -1, fname);
    if (!t)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_full_like);
    d2_ab_float(&b, "value", v);
    d2_ab_int(&b, "dtype", dt);
    d2_obj *r = op1(I, fname, D2_OP_full_like, t, &b);
    d2_decref(t);
    return r;
}

D2_FN(f_zeros_like)
{
    return like(I, "paddle.zeros_like", a[0], a[1], 0);
}

D2_FN(f_ones_like)
{
    return like(I, "paddle.ones_like", a[0], a[1], 1);
}

D2_FN(f_empty_like)
{
    return like(I, "paddle.empty_like", a[0], a[1], 0);
}

D2_FN(f_full_like)
{
    double v;
    int kind;
    if (!fill_value(I, a[1], "paddle.full_like", &v, &kind))
        return NULL;
    return like(I, "paddle.full_like", a[0], a[2], v);
}

D2_FN(f_arange)
{
    const char *fname = "paddle.arange";
    d2_obj *st = a[0], *en = a[1], *sp = a[2];
    if (is_none(I, en)) {
        en = st;
        st = NULL;
    }
    d2_obj *vals[3] = {st, en, sp};
    bool any_float = false, any_tensor = false;
    for (int i = 0; i < 3; i++) {
        if (!vals[i])
            continue;
        if (vals[i]->kind == D2_OBJ_FLOAT)
            any_float = true;
        else if (is_tensor(vals[i])) {
            any_tensor = true;
            if (d2_dtype_is_float(obj_type(vals[i])->dtype))
                any_float = true;
        } else if (!is_int(vals[i]) && !is_bool(vals[i])) {
            return d2_raise(I, "TypeError",
                            "%s: start, end and step must be numbers or tensors, got %s", fname,
                            d2_type_name(vals[i]));
        }
    }
    int dt;
    if (d2_pd_dtype_arg(I, a[3], fname, any_float ? D2_F32 : D2_I64, &dt) < 0)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_arange);
    d2_ab_int(&b, "dtype", dt);
    static const char *names[3] = {"start", "end", "step"};
    d2_obj *in[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        if (!vals[i])
            continue;
        if (is_tensor(vals[i])) {
            in[i] = d2_pd_cast_to(I, fname, vals[i], dt);
            if (!in[i])
                goto fail;
        } else {
            d2_ab_float(&b, names[i], num_value(vals[i]));
        }
    }
    d2_obj *r = d2_pd_opn(I, fname, D2_OP_arange, in, any_tensor ? 3 : 0, &b);
    for (int i = 0; i < 3; i++)
        d2_decref(in[i]);
    return r;
fail:
    d2_ab_free(&b);
    for (int i = 0; i < 3; i++)
        d2_decref(in[i]);
    return NULL;
}

/* A tensor of dtype dt and this shape, and its staging buffer of doubles,
 * fit: 0, or -1 with MemoryError / ValueError raised. */
static int check_staging(d2_interp *I, const char *fname, int dt, int ndim, const int64_t *shape)
{
    d2_err err = {0};
    if (d2_tensor_check_size((d2_dtype)dt, ndim, shape, &err) == 0 &&
        d2_tensor_check_size(D2_F64, ndim, shape, &err) == 0)
        return 0;
    d2_pd_raise_err_named(I, fname, NULL, &err);
    return -1;
}

D2_FN(f_linspace)
{
    const char *fname = "paddle.linspace";
    double s, e;
    int64_t n;
    int dt;
    if (d2_pd_get_float(I, a[0], fname, "start", &s) < 0 ||
        d2_pd_get_float(I, a[1], fname, "stop", &e) < 0 ||
        d2_pd_get_int(I, a[2], fname, "num", &n) < 0 ||
        d2_pd_dtype_arg(I, a[3], fname, D2_F32, &dt) < 0)
        return NULL;
    if (n <= 0)
        return d2_raise(I, "ValueError", "%s: num must be positive, got %lld", fname, (long long)n);
    if (check_staging(I, fname, dt, 1, &n) < 0)
        return NULL;
    double *v = d2_malloc((size_t)n * sizeof *v);
    if (!v)
        return nomem(I);
    double step = n > 1 ? (e - s) / (double)(n - 1) : 0;
    /* Paddle's kernel: the first half from start, the second half from stop */
    int64_t half = n / 2;
    for (int64_t i = 0; i < n; i++)
        v[i] = i < half || n == 1 ? s + step * (double)i : e - step * (double)(n - 1 - i);
    d2_tensor *t = d2_pd_host_from_doubles(I, (d2_dtype)dt, 1, &n, v);
    d2_free(v);
    return t ? d2_pd_wrap_host(I, t) : NULL;
}

D2_FN(f_eye)
{
    const char *fname = "paddle.eye";
    int64_t r, c;
    int dt;
    if (d2_pd_get_int(I, a[0], fname, "num_rows", &r) < 0 ||
        d2_pd_dtype_arg(I, a[2], fname, D2_F32, &dt) < 0)
        return NULL;
    c = r;
    if (!is_none(I, a[1]) && d2_pd_get_int(I, a[1], fname, "num_columns", &c) < 0)
        return NULL;
    if (r < 0 || c < 0)
        return d2_raise(I, "ValueError", "%s: sizes must be non-negative", fname);
    int64_t shape[2] = {r, c};
    if (check_staging(I, fname, dt, 2, shape) < 0)
        return NULL;
    double *v = d2_calloc((size_t)(r * c) + 1, sizeof *v);
    if (!v)
        return nomem(I);
    for (int64_t i = 0; i < r && i < c; i++)
        v[i * c + i] = 1;
    d2_tensor *t = d2_pd_host_from_doubles(I, (d2_dtype)dt, 2, shape, v);
    d2_free(v);
    return t ? d2_pd_wrap_host(I, t) : NULL;
}

/* ---- random ---- */

int d2_pd_shape_list(d2_interp *I, d2_obj *o, const char *fname, int64_t *shape, int *n)
{
    if (d2_pd_ints(I, o, fname, "shape", shape, n, D2_MAX_DIMS) < 0)
        return -1;
    for (int i = 0; i < *n; i++)
        if (shape[i] < 0) {
            d2_raise(I, "ValueError", "%s: shape entries must be non-negative, got %lld", fname,
                     (long long)shape[i]);
            return -1;
        }
    return 0;
}

/* Whether shape (a tensor, or a list of ints and tensors) holds a symbolic tensor: a size the
 * Program learns when it runs (paddle.shape(x) of a static Program's input). */
static bool shape_is_symbolic(d2_obj *shape)
{
    if (is_sym(shape))
        return true;
    for (size_t i = 0; is_seq(shape) && i < seq_len(shape); i++)
        if (is_sym(seq_item(shape, i)))
            return true;
    return false;
}

/* A 1-D host tensor of doubles v[0..n) as dtype dt. New reference or NULL. */
static d2_obj *host_vector(d2_interp *I, d2_dtype dt, int64_t n, const double *v)
{
    d2_tensor *t = d2_pd_host_from_doubles(I, dt, 1, &n, v);
    return t ? d2_pd_wrap_host(I, t) : NULL;
}

/* Uniform draws in [0, 1) of a symbolic shape, as ops of the Program that shape belongs to, so
 * every run draws anew: the keep mask of dropout_train (p = 0.5: one fair bit per element, a
 * new stream per run) over ones shaped shape + [K], weighted by 2^-1 .. 2^-K and summed over
 * the last axis. K is the dtype's mantissa (24 bits for float32, 53 for float64): each value
 * of that grid is exact and equally likely. The mask is read, so clone(for_test=True) and a
 * saved inference model keep drawing, as Paddle's uniform_random does. */
static d2_obj *sym_uniform01(d2_interp *I, const char *fname, d2_obj *shape, d2_dtype dt)
{
    const int K = dt == D2_F64 ? 53 : 24;
    double w[53], kd = K;
    for (int k = 0; k < K; k++)
        w[k] = ldexp(1.0, -(k + 1));
    d2_obj *ones = NULL;
    if (is_tensor(shape)) {
        if (!d2_dtype_is_int(obj_type(shape)->dtype) || obj_type(shape)->shape.ndim != 1)
            return d2_raise(I, "TypeError", "%s: shape must be a list of ints or a 1-D int tensor",
                            fname);
        d2_obj *si = d2_pd_cast_to(I, fname, shape, D2_I64);
        d2_obj *kt = si ? host_vector(I, D2_I64, 1, &kd) : NULL;
        d2_obj *cat = kt ? op2(I, fname, D2_OP_concat, si, kt, NULL) : NULL;
        d2_decref(si);
        d2_decref(kt);
        ones = cat ? make_full(I, fname, cat, 1, dt) : NULL;
        d2_decref(cat);
    } else {
        size_t n = seq_len(shape);
        d2_obj *l = d2_list_new(I, 0);
        for (size_t i = 0; l && i < n; i++)
            if (d2_list_append(I, l, seq_item(shape, i)) < 0)
                d2_setref(&l, NULL);
        d2_obj *ko = l ? d2_int_new(I, K) : NULL;
        if (ko && d2_list_append(I, l, ko) < 0)
            d2_setref(&l, NULL);
        d2_decref(ko);
        ones = l ? make_full(I, fname, l, 1, dt) : NULL;
        d2_decref(l);
    }
    if (!ones)
        return NULL;
    d2_obj *seed = d2_pd_const_tensor(I, 0, (int64_t)(d2_mt64_next(&ST(I)->rng) >> 1), true,
                                      D2_I64);
    d2_ab b;
    d2_ab_init(&b, D2_OP_dropout_train);
    d2_ab_float(&b, "p", 0.5);
    d2_ab_str(&b, "mode", "downscale_in_infer");
    d2_obj *in[2] = {ones, seed}, *outs[2] = {NULL, NULL};
    int rc = !seed || b.bad ? -1 : d2_pd_apply_named(I, fname, D2_OP_dropout_train, in, 2, &b.a,
                                                      outs, 2);
    d2_ab_free(&b);
    d2_decref(seed);
    d2_decref(ones);
    d2_decref(outs[0]);
    if (rc < 0)
        return I->exc ? NULL : d2_raise(I, "RuntimeError", "%s: out of memory", fname);
    d2_obj *wt = host_vector(I, dt, K, w);
    d2_obj *bits = wt ? op2(I, fname, D2_OP_multiply, outs[1], wt, NULL) : NULL;
    d2_decref(wt);
    d2_decref(outs[1]);
    if (!bits)
        return NULL;
    int64_t last = -1;
    d2_ab_init(&b, D2_OP_sum);
    d2_ab_ints(&b, "axis", &last, 1);
    d2_obj *u = op1(I, fname, D2_OP_sum, bits, &b);
    d2_decref(bits);
    return u;
}

/* scale * x + bias through the scale op (consumes x). */
static d2_obj *affine(d2_interp *I, const char *fname, d2_obj *x, double scale, double bias)
{
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_scale);
    d2_ab_float(&b, "scale", scale);
    d2_ab_float(&b, "bias", bias);
    d2_obj *r = op1(I, fname, D2_OP_scale, x, &b);
    d2_decref(x);
    return r;
}

/* A unary op on x (consumes x). */
static d2_obj *unary(d2_interp *I, const char *fname, d2_op_id op, d2_obj *x)
{
    if (!x)
        return NULL;
    d2_obj *r = op1(I, fname, op, x, NULL);
    d2_decref(x);
    return r;
}

/* n values drawn from paddle.seed's generator as Paddle's CPU kernels draw
 * them: uniform in [p0, p1), normal with mean p0 and std p1, or integers in
 * [p0, p1); in float arithmetic for float32 (and smaller) dtypes, in double
 * for float64, so that seeded values equal Paddle's. */
void d2_pd_random_fill_from(d2_mt64 *rng, d2_pd_rnd kind, d2_dtype dt, double p0, double p1,
                             double *v, int64_t n)
{
    bool wide = dt == D2_F64, has = false;
    /* libstdc++'s uniform_real_distribution<float> spans b - a in float */
    float fsaved = 0, flo = (float)p0, fspan = (float)p1 - (float)p0, fsd = (float)p1;
    double dsaved = 0;
    for (int64_t i = 0; i < n; i++) {
        if (kind == D2_RND_UNIFORM)
            v[i] = wide ? d2_mt64_canon_d(rng) * (p1 - p0) + p0
                        : (double)(d2_mt64_canon_f(rng) * fspan + flo);
        else if (kind == D2_RND_NORMAL)
            v[i] = wide ? d2_mt64_normal_d(rng, &has, &dsaved) * p1 + p0
                        : (double)(d2_mt64_normal_f(rng, &has, &fsaved) * fsd + flo);
        else
            v[i] = p0 + (double)d2_mt64_below(rng, (uint64_t)(p1 - p0));
    }
}

void d2_pd_random_fill(d2_interp *I, d2_pd_rnd kind, d2_dtype dt, double p0, double p1, double *v,
                       int64_t n)
{
    d2_pd_random_fill_from(&ST(I)->rng, kind, dt, p0, p1, v, n);
}

/* Shuffles v[0..n) with paddle.seed's generator as Paddle's randperm does:
 * libstdc++'s std::shuffle, which draws one integer per two positions when
 * the generator's range allows (it always does for n < 2^32). */
void d2_pd_random_shuffle(d2_interp *I, int64_t *v, int64_t n)
{
    d2_mt64_shuffle(&ST(I)->rng, v, n);
}

typedef enum { RND_UNIFORM, RND_NORMAL, RND_INT } rnd_kind;

/* random_tensor of a symbolic shape (or any shape in static mode): ops of its Program over
 * sym_uniform01. Normal draws by
 * Box-Muller, sqrt(-2 ln(1 - u1)) cos(2 pi u2); integers as floor(low + (high - low) u) from
 * float64 draws, clipped to high - 1. */
static d2_obj *sym_random(d2_interp *I, const char *fname, d2_obj *shape, int dt, rnd_kind k,
                          double p0, double p1)
{
    if (k == RND_UNIFORM)
        return affine(I, fname, sym_uniform01(I, fname, shape, (d2_dtype)dt), p1 - p0, p0);
    if (k == RND_INT) {
        d2_obj *f = unary(I, fname, D2_OP_floor,
                          affine(I, fname, sym_uniform01(I, fname, shape, D2_F64), p1 - p0, p0));
        if (!f)
            return NULL;
        d2_ab b;
        d2_ab_init(&b, D2_OP_clip);
        d2_ab_float(&b, "min", p0);
        d2_ab_float(&b, "max", p1 - 1);
        d2_obj *c = op1(I, fname, D2_OP_clip, f, &b);
        d2_decref(f);
        d2_obj *r = c ? d2_pd_cast_to(I, fname, c, dt) : NULL;
        d2_decref(c);
        return r;
    }
    d2_obj *r = unary(I, fname, D2_OP_sqrt,
                      affine(I, fname,
                             unary(I, fname, D2_OP_log,
                                   affine(I, fname, sym_uniform01(I, fname, shape, (d2_dtype)dt),
                                          -1, 1)),
                             -2, 0));
    d2_obj *c = r ? unary(I, fname, D2_OP_cos,
                          affine(I, fname, sym_uniform01(I, fname, shape, (d2_dtype)dt),
                                 2 * 3.14159265358979323846, 0))
                  : NULL;
    d2_obj *z = c ? op2(I, fname, D2_OP_multiply, r, c, NULL) : NULL;
    d2_decref(r);
    d2_decref(c);
    return affine(I, fname, z, p1, p0);
}

/* Samples as Paddle's CPU kernels draw them from its generator (ST->rng,
 * or a fresh engine seeded with seed when seed is not 0, as paddle.uniform's
 * seed argument does): uniform_real_distribution and normal_distribution in
 * float arithmetic for float32 (double for float64), uniform_int_distribution
 * over [p0, p1) for integers. */
static d2_obj *random_tensor_seeded(d2_interp *I, const char *fname, d2_obj *shape, int dt,
                                    rnd_kind k, double p0, double p1, uint64_t seed)
{
    int64_t dims[D2_MAX_DIMS];
    int nd;
    if (shape_is_symbolic(shape))
        return sym_random(I, fname, shape, dt, k, p0, p1);
    /* static mode (paddle.enable_static, outside to_static and tracing): a Variable of the
     * default main Program that draws on every run, as Paddle's random ops do */
    d2_builder *sb = NULL;
    const d2_pd_upcalls *up = &D2_MODE(I)->up;
    if (!D2_MODE(I)->builder && !D2_MODE(I)->tracer && up->static_param_builder &&
        up->static_param_builder(I, &sb) < 0)
        return NULL;
    if (sb) {
        d2_obj *l = NULL;
        if (is_none(I, shape)) {
            d2_obj *one = d2_int_new(I, 1);
            l = one ? d2_list_new(I, 0) : NULL;
            if (l && d2_list_append(I, l, one) < 0)
                d2_setref(&l, NULL);
            d2_decref(one);
            if (!l)
                return NULL;
        } else if (d2_pd_shape_list(I, shape, fname, dims, &nd) < 0) {
            return NULL;
        }
        D2_MODE(I)->builder = sb;
        d2_obj *r = sym_random(I, fname, l ? l : shape, dt, k, p0, p1);
        D2_MODE(I)->builder = NULL;
        d2_decref(l);
        return r;
    }
    if (is_none(I, shape)) {
        dims[0] = 1; /* paddle.randint's default shape [1] */
        nd = 1;
    } else if (d2_pd_shape_list(I, shape, fname, dims, &nd) < 0) {
        return NULL;
    }
    if (check_staging(I, fname, dt, nd, dims) < 0)
        return NULL;
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= dims[i]; /* fits: checked above */
    double *v = d2_malloc((size_t)n * sizeof *v + 1);
    if (!v)
        return nomem(I);
    d2_mt64 own, *rng = &ST(I)->rng;
    if (seed) {
        d2_mt64_seed_int(&own, seed);
        rng = &own;
    }
    d2_pd_random_fill_from(rng, k == RND_UNIFORM ? D2_RND_UNIFORM
                                : k == RND_NORMAL ? D2_RND_NORMAL
                                                  : D2_RND_INT,
                           (d2_dtype)dt, p0, p1, v, n);
    d2_tensor *t = d2_pd_host_from_doubles(I, (d2_dtype)dt, nd, dims, v);
    d2_free(v);
    return t ? d2_pd_wrap_host(I, t) : NULL;
}

static d2_obj *random_tensor(d2_interp *I, const char *fname, d2_obj *shape, int dt, rnd_kind k,
                             double p0, double p1)
{
    return random_tensor_seeded(I, fname, shape, dt, k, p0, p1, 0);
}

D2_FN(f_rand)
{
    int dt;
    if (d2_pd_dtype_arg(I, a[1], "paddle.rand", D2_F32, &dt) < 0)
        return NULL;
    return random_tensor(I, "paddle.rand", a[0], dt, RND_UNIFORM, 0, 1);
}

D2_FN(f_randn)
{
    int dt;
    if (d2_pd_dtype_arg(I, a[1], "paddle.randn", D2_F32, &dt) < 0)
        return NULL;
    return random_tensor(I, "paddle.randn", a[0], dt, RND_NORMAL, 0, 1);
}

D2_FN(f_uniform)
{
    const char *fname = "paddle.uniform";
    int dt;
    double lo, hi;
    int64_t seed;
    if (d2_pd_dtype_arg(I, a[1], fname, D2_F32, &dt) < 0 ||
        d2_pd_get_float(I, a[2], fname, "min", &lo) < 0 ||
        d2_pd_get_float(I, a[3], fname, "max", &hi) < 0 ||
        d2_pd_get_int(I, a[4], fname, "seed", &seed) < 0)
        return NULL;
    return random_tensor_seeded(I, fname, a[0], dt, RND_UNIFORM, lo, hi, (uint64_t)seed);
}

D2_FN(f_normal)
{
    const char *fname = "paddle.normal";
    double m, s;
    if (d2_pd_get_float(I, a[0], fname, "mean", &m) < 0 ||
        d2_pd_get_float(I, a[1], fname, "std", &s) < 0)
        return NULL;
    if (is_none(I, a[2]))
        return d2_raise(I, "TypeError", "%s: shape is required (tensor mean/std are not supported)",
                        fname);
    return random_tensor(I, fname, a[2], D2_F32, RND_NORMAL, m, s);
}

D2_FN(f_randint)
{
    const char *fname = "paddle.randint";
    int64_t lo, hi;
    int dt;
    if (d2_pd_get_int(I, a[0], fname, "low", &lo) < 0)
        return NULL;
    if (is_none(I, a[1])) {
        hi = lo;
        lo = 0;
    } else if (d2_pd_get_int(I, a[1], fname, "high", &hi) < 0) {
        return NULL;
    }
    if (hi <= lo)
        return d2_raise(I, "ValueError", "%s: high (%lld) must be greater than low (%lld)", fname,
                        (long long)hi, (long long)lo);
    if (d2_pd_dtype_arg(I, a[3], fname, D2_I64, &dt) < 0)
        return NULL;
    return random_tensor(I, fname, a[2], dt, RND_INT, (double)lo, (double)hi);
}

/* poisson(x): a draw of Poisson(x[i]) per element, from Paddle's generator as
 * its CPU kernel draws them (x's dtype) */
D2_FN(f_poisson)
{
    const char *fname = "paddle.poisson";
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor, got %s", fname,
                        d2_type_name(a[0]));
    if (is_sym(a[0]))
        return d2_raise(I, "TypeError", "%s: not supported inside to_static (it draws from "
                        "paddle's generator as it runs)", fname);
    int dt = obj_type(a[0])->dtype;
    if (dt != D2_F32 && dt != D2_F64)
        return d2_raise(I, "TypeError", "%s: x must be float32 or float64, got %s", fname,
                        d2_dtype_name((d2_dtype)dt));
    d2_tensor *h = d2_pd_host(I, a[0], fname);
    if (!h)
        return NULL;
    int64_t n = d2_tensor_numel(h);
    double *v = d2_malloc((size_t)n * sizeof *v + 1);
    if (!v) {
        d2_tensor_unref(h);
        return nomem(I);
    }
    for (int64_t i = 0; i < n; i++) {
        double mean = d2_tensor_get_f64(h, i);
        if (!(mean >= 0) || isinf(mean)) {
            d2_tensor_unref(h);
            d2_free(v);
            return d2_raise(I, "ValueError", "%s: every rate must be finite and non-negative, got "
                            "%g", fname, mean);
        }
        v[i] = (double)d2_mt64_poisson(&ST(I)->rng, mean);
    }
    d2_shape sh;
    d2_tensor_get_shape(h, &sh);
    d2_tensor_unref(h);
    d2_tensor *t = d2_pd_host_from_doubles(I, (d2_dtype)dt, sh.ndim, sh.dims, v);
    d2_free(v);
    return t ? d2_pd_wrap_host(I, t) : NULL;
}

D2_FN(f_seed)
{
    int64_t s;
    if (d2_pd_get_int(I, a[0], "paddle.seed", "seed", &s) < 0)
        return NULL;
    d2_mt64_seed(&ST(I)->rng, (uint64_t)s);
    d2_obj *m = d2_dict_get_str(I, I->modules, "paddle.base.libpaddle");
    d2_obj *g = m && m->kind == D2_OBJ_MODULE
                    ? d2_dict_get_str(I, D2_AS(d2_module, m)->dict, "Generator")
                    : NULL;
    if (!g || g->kind != D2_OBJ_CLASS)
        return d2_none(I);
    return d2_instance_new(I, D2_AS(d2_class, g));
}

/* ---- to_tensor, assign, to_variable ---- */

D2_FN(f_to_tensor)
{
    const char *fname = "paddle.to_tensor";
    int dt;
    bool sg;
    if (d2_pd_parse_dtype(I, a[1], fname, false, &dt) < 0 ||
        d2_pd_get_bool(I, a[3], fname, "stop_gradient", &sg) < 0)
        return NULL;
    d2_obj *r;
    if (is_tensor(a[0])) {
        r = d2_to_tensor(I, a[0], dt);
    } else {
        d2_tensor *t = d2_pd_from_py(I, a[0], dt, D2_F32, fname);
        r = t ? d2_pd_wrap_host(I, t) : NULL;
    }
    if (r)
        TOBJ(r)->stop_gradient = sg;
    return r;
}

D2_FN(f_assign)
{
    const char *fname = "paddle.assign";
    d2_obj *src = is_tensor(a[0]) ? d2_incref(a[0]) : d2_pd_as_tensor(I, a[0], -1, fname);
    if (!src)
        return NULL;
    if (!is_tensor(a[0]) && !is_ndarray(a[0])) {
        /* Python floats assign as float32 (Paddle's rule for lists) */
    }
    d2_obj *r = op1(I, fname, D2_OP_assign, src, NULL);
    d2_decref(src);
    if (r && !is_none(I, a[1])) {
        if (!is_tensor(a[1]) || is_sym(a[1]) || is_sym(r)) {
            d2_decref(r);
            return d2_raise(I, "TypeError", "%s: output must be a concrete Tensor", fname);
        }
        d2_tensor_unref(TOBJ(a[1])->t);
        TOBJ(a[1])->t = d2_tensor_ref(TOBJ(r)->t);
        TOBJ(a[1])->type = TOBJ(r)->type;
        d2_decref(r);
        return d2_incref(a[1]);
    }
    return r;
}

D2_FN(f_to_variable)
{
    const char *fname = "fluid.dygraph.to_variable";
    int dt;
    if (d2_pd_parse_dtype(I, a[3], fname, false, &dt) < 0)
        return NULL;
    if (is_tensor(a[0]))
        return d2_to_tensor(I, a[0], dt);
    d2_tensor *t = d2_pd_from_py(I, a[0], dt, D2_F32, fname);
    return t ? d2_pd_wrap_host(I, t) : NULL;
}

/* ======================================================================
 * The rows
 * ====================================================================== */

static const d2_def CREATION_DEFS[] = {
    D2_DEF("to_tensor", "data, dtype=None, place=None, stop_gradient=True", f_to_tensor,
           "paddle.to_tensor"),
    D2_DEF("zeros", "shape, dtype=None, name=None", f_zeros, "paddle.zeros"),
    D2_DEF("ones", "shape, dtype=None, name=None", f_ones, "paddle.ones"),
    D2_DEF("full", "shape, fill_value, dtype=None, name=None", f_full, "paddle.full"),
    D2_DEF("empty", "shape, dtype=None, name=None", f_empty, "paddle.empty"),
    D2_DEF("zeros_like", "x, dtype=None, name=None", f_zeros_like, "paddle.zeros_like"),
    D2_DEF("ones_like", "x, dtype=None, name=None", f_ones_like, "paddle.ones_like"),
    D2_DEF("full_like", "x, fill_value, dtype=None, name=None", f_full_like, "paddle.full_like"),
    D2_DEF("empty_like", "x, dtype=None, name=None", f_empty_like, "paddle.empty_like"),
    D2_DEF("arange", "start=0, end=None, step=1, dtype=None, name=None", f_arange, "paddle.arange"),
    D2_DEF("linspace", "start, stop, num, dtype=None, name=None", f_linspace, "paddle.linspace"),
    D2_DEF("eye", "num_rows, num_columns=None, dtype=None, name=None", f_eye, "paddle.eye"),
    D2_DEF("rand", "shape, dtype=None, name=None", f_rand, "paddle.rand"),
    D2_DEF("randn", "shape, dtype=None, name=None", f_randn, "paddle.randn"),
    D2_DEF("uniform", "shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None", f_uniform,
           "paddle.uniform"),
    D2_DEF("normal", "mean=0.0, std=1.0, shape=None, name=None", f_normal, "paddle.normal"),
    D2_DEF("randint", "low=0, high=None, shape=None, dtype=None, name=None", f_randint,
           "paddle.randint"),
    D2_DEF("seed", "seed", f_seed, "paddle.seed"),
    D2_DEF("poisson", "x, name=None", f_poisson, "paddle.poisson"),
    D2_DEF("assign", "x, output=None", f_assign, "paddle.assign"),
};

static const d2_def DYGRAPH_DEFS[] = {
    D2_DEF("to_variable", "value, name=None, zero_copy=None, dtype=None", f_to_variable,
           "fluid.dygraph.to_variable"),
};

int d2_pd_creation_add(d2_interp *I, pd_state *s)
{
    if (d2_module_add_defs(I, s->paddle, CREATION_DEFS, D2_COUNTOF(CREATION_DEFS)) < 0 ||
        d2_module_add_defs(I, s->dygraph, DYGRAPH_DEFS, D2_COUNTOF(DYGRAPH_DEFS)) < 0)
        return -1;
    return 0;
}
