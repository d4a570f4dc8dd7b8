/* random.c - numpy.random: RandomState with the legacy streams (runtime/rng.h). */
#include "lib/numpy/numpy_priv.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static void mt_free(void *p) { d2_free(p); }

/* The generator of a RandomState instance (or the module's global one). */
static d2_mt19937 *rs_state(d2_interp *I, d2_obj *self)
{
    if (!self)
        self = NS(I)->global_rs;
    d2_obj *o = self && self->kind == D2_OBJ_INSTANCE
                    ? d2_dict_get_str(I, D2_AS(d2_instance, self)->dict, "_mt")
                    : NULL;
    if (!o || o->kind != D2_OBJ_OPAQUE) {
        d2_raise(I, "TypeError", "RandomState: the generator is not initialised");
        return NULL;
    }
    return D2_AS(d2_opaque, o)->payload;
}

static int rs_seed_with(d2_interp *I, d2_mt19937 *mt, d2_obj *seed)
{
    if (is_none(I, seed)) {
        static uint32_t counter;
        d2_mt_seed(mt, (uint32_t)time(NULL) ^ (uint32_t)(uintptr_t)mt ^ (counter++ * 2654435761u));
        return 0;
    }
    if (seed->kind == D2_OBJ_INT || seed->kind == D2_OBJ_BOOL ||
        (is_nd(seed) && NDA(seed)->t->ndim == 0)) {
        int64_t s;
        if (d2_to_int64(I, seed, "seed", &s) < 0)
            return -1;
        if (s < 0 || s > 0xffffffffLL) {
            d2_raise(I, "ValueError", "Seed must be between 0 and 2**32 - 1");
            return -1;
        }
        d2_mt_seed(mt, (uint32_t)s);
        return 0;
    }
    d2_tensor *t = arr(I, seed, D2_I64, "RandomState.seed");
    if (!t)
        return -1;
    int64_t n = d2_tensor_numel(t);
    uint32_t *key = d2_malloc(sizeof(uint32_t) * (size_t)(n + 1));
    int rc = -1;
    if (!key) {
        nomem(I);
    } else if (n == 0 || t->ndim != 1) {
        d2_raise(I, "ValueError", "Seed must be non-empty and 1-D");
    } else {
        rc = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t v = d2_tensor_get_i64(t, i);
            if (v < 0 || v > 0xffffffffLL) {
                d2_raise(I, "ValueError", "Seed values must be between 0 and 2**32 - 1");
                rc = -1;
                break;
            }
            key[i] = (uint32_t)v;
        }
        if (rc == 0)
            d2_mt_seed_array(mt, key, (int)n);
    }
    d2_free(key);
    d2_tensor_unref(t);
    return rc;
}

D2_FN(RS_init) /* a[0] seed */
{
    if (self->kind != D2_OBJ_INSTANCE)
        return d2_raise(I, "TypeError", "RandomState.__init__: bad receiver");
    d2_mt19937 *mt = d2_calloc(1, sizeof *mt);
    if (!mt)
        return nomem(I);
    d2_obj *op = d2_obj_alloc(I, D2_OBJ_OPAQUE, d2_pd_layout_class(I, D2_OBJ_OPAQUE, NULL),
                              sizeof(d2_opaque));
    if (!op) {
        d2_free(mt);
        return NULL;
    }
    D2_AS(d2_opaque, op)->payload = mt;
    D2_AS(d2_opaque, op)->fin = mt_free;
    int rc = d2_dict_set_str(I, D2_AS(d2_instance, self)->dict, "_mt", op);
    d2_decref(op);
    if (rc < 0 || rs_seed_with(I, mt, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(RS_seed) /* a[0] seed */
{
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt || rs_seed_with(I, mt, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

/* size argument: None (a scalar result), an int, or a tuple. */
static int size_arg(d2_interp *I, d2_obj *o, const char *fname, int64_t *dims, int *n, bool *scalar)
{
    *scalar = is_none(I, o);
    *n = 0;
    if (*scalar)
        return 0;
    if (d2_pd_ints(I, o, fname, "size", dims, n, D2_MAX_DIMS) < 0)
        return -1;
    for (int i = 0; i < *n; i++)
        if (dims[i] < 0) {
            d2_raise(I, "ValueError", "%s: negative dimensions are not allowed", fname);
            return -1;
        }
    return 0;
}

typedef enum { R_DOUBLE, R_GAUSS, R_UNIFORM, R_NORMAL } rkind;

static d2_obj *draw(d2_interp *I, d2_mt19937 *mt, const char *fname, rkind k, double p0, double p1,
                    const int64_t *dims, int n, bool scalar)
{
    if (scalar) {
        double v = k == R_DOUBLE    ? d2_mt_double(mt)
                   : k == R_GAUSS   ? d2_mt_gauss(mt)
                   : k == R_UNIFORM ? p0 + p1 * d2_mt_double(mt)
                                    : p0 + p1 * d2_mt_gauss(mt);
        return d2_float_new(I, v);
    }
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, D2_F64, n, dims, &err);
    if (!t)
        return d2_raise_err(I, &err);
    D2_UNUSED(fname);
    int64_t cnt = d2_tensor_numel(t);
    double *p = d2_tensor_data(t);
    for (int64_t i = 0; i < cnt; i++)
        p[i] = k == R_DOUBLE    ? d2_mt_double(mt)
               : k == R_GAUSS   ? d2_mt_gauss(mt)
               : k == R_UNIFORM ? p0 + p1 * d2_mt_double(mt)
                                : p0 + p1 * d2_mt_gauss(mt);
    return wrap(I, t);
}

/* random(size=None) / standard_normal(size=None) */
static d2_obj *draw_size(d2_interp *I, d2_obj *self, d2_obj *size, rkind k, const char *fname)
{
    d2_mt19937 *mt = rs_state(I, self);
    int64_t dims[D2_MAX_DIMS];
    int n;
    bool sc;
    if (!mt || size_arg(I, size, fname, dims, &n, &sc) < 0)
        return NULL;
    return draw(I, mt, fname, k, 0, 0, dims, n, sc);
}

D2_FN(RS_random) { return draw_size(I, self, a[0], R_DOUBLE, "numpy.random.random"); }

D2_FN(RS_standard_normal)
{
    return draw_size(I, self, a[0], R_GAUSS, "numpy.random.standard_normal");
}

/* rand(d0, d1, ...) / randn(d0, d1, ...): a[0] *args, a[1] **kwargs */
static d2_obj *rand_dims(d2_interp *I, d2_obj *self, d2_obj **a, rkind k, const char *fname)
{
    d2_obj **args = D2_AS(d2_tuple, a[0])->items;
    size_t nargs = D2_AS(d2_tuple, a[0])->n;
    if (D2_AS(d2_dict, a[1])->live)
        return d2_raise(I, "TypeError", "%s() takes no keyword arguments", fname);
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt)
        return NULL;
    if (nargs > D2_MAX_DIMS)
        return d2_raise(I, "ValueError", "%s: too many dimensions", fname);
    int64_t dims[D2_MAX_DIMS];
    for (size_t i = 0; i < nargs; i++) {
        if (d2_to_int64(I, args[i], "dimension", &dims[i]) < 0)
            return NULL;
        if (dims[i] < 0)
            return d2_raise(I, "ValueError", "negative dimensions are not allowed");
    }
    return draw(I, mt, fname, k, 0, 0, dims, (int)nargs, nargs == 0);
}

D2_FN(RS_rand) { return rand_dims(I, self, a, R_DOUBLE, "numpy.random.rand"); }

D2_FN(RS_randn) { return rand_dims(I, self, a, R_GAUSS, "numpy.random.randn"); }

D2_FN(RS_uniform) /* a[0] low, a[1] high, a[2] size */
{
    const char *fname = "numpy.random.uniform";
    d2_mt19937 *mt = rs_state(I, self);
    double lo, hi;
    int64_t dims[D2_MAX_DIMS];
    int n;
    bool sc;
    if (!mt || d2_to_double(I, a[0], "low", &lo) < 0 || d2_to_double(I, a[1], "high", &hi) < 0 ||
        size_arg(I, a[2], fname, dims, &n, &sc) < 0)
        return NULL;
    return draw(I, mt, fname, R_UNIFORM, lo, hi - lo, dims, n, sc);
}

D2_FN(RS_normal) /* a[0] loc, a[1] scale, a[2] size */
{
    const char *fname = "numpy.random.normal";
    d2_mt19937 *mt = rs_state(I, self);
    double loc, sc_;
    int64_t dims[D2_MAX_DIMS];
    int n;
    bool sc;
    if (!mt || d2_to_double(I, a[0], "loc", &loc) < 0 || d2_to_double(I, a[1], "scale", &sc_) < 0 ||
        size_arg(I, a[2], fname, dims, &n, &sc) < 0)
        return NULL;
    if (sc_ < 0)
        return d2_raise(I, "ValueError", "scale < 0");
    return draw(I, mt, fname, R_NORMAL, loc, sc_, dims, n, sc);
}

D2_FN(RS_randint) /* a[0] low, a[1] high, a[2] size, a[3] dtype */
{
    const char *fname = "numpy.random.randint";
    d2_mt19937 *mt = rs_state(I, self);
    int64_t lo, hi;
    int64_t dims[D2_MAX_DIMS];
    int n, dt;
    bool sc;
    if (!mt || d2_to_int64(I, a[0], "low", &lo) < 0 ||
        size_arg(I, a[2], fname, dims, &n, &sc) < 0 || dt_arg(I, a[3], fname, &dt) < 0)
        return NULL;
    if (is_none(I, a[1])) {
        hi = lo;
        lo = 0;
    } else if (d2_to_int64(I, a[1], "high", &hi) < 0) {
        return NULL;
    }
    if (lo >= hi)
        return d2_raise(I, "ValueError", "low >= high");
    if (dt < 0)
        dt = D2_I64;
    if (dt != D2_I64 && dt != D2_I32 && dt != D2_BOOL)
        return d2_raise(I, "TypeError", "%s: unsupported dtype %s", fname, dtn(dt));
    uint64_t rng = (uint64_t)hi - (uint64_t)lo - 1;
    if (sc)
        return d2_int_new(I, lo + (int64_t)d2_mt_bounded(mt, rng));
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)dt, n, dims, &err);
    if (!t)
        return d2_raise_err(I, &err);
    int64_t cnt = d2_tensor_numel(t);
    for (int64_t i = 0; i < cnt; i++) {
        int64_t v = lo + (int64_t)d2_mt_bounded(mt, rng);
        if (dt == D2_I64)
            ((int64_t *)d2_tensor_data(t))[i] = v;
        else if (dt == D2_I32)
            ((int32_t *)d2_tensor_data(t))[i] = (int32_t)v;
        else
            ((uint8_t *)d2_tensor_data(t))[i] = v != 0;
    }
    return wrap(I, t);
}

/* Legacy in-place shuffle along the first axis. */
static int shuffle_tensor(d2_mt19937 *mt, d2_tensor *t)
{
    if (t->ndim == 0)
        return 0;
    int64_t n = t->shape[0];
    size_t row = d2_dtype_size(t->dtype);
    for (int d = 1; d < t->ndim; d++)
        row *= (size_t)t->shape[d];
    char *p = d2_tensor_data(t);
    char *tmp = d2_malloc(row + 1);
    if (!tmp)
        return -1;
    for (int64_t i = n - 1; i >= 1; i--) {
        int64_t j = (int64_t)d2_mt_bounded(mt, (uint64_t)i);
        if (j != i) {
            memcpy(tmp, p + row * (size_t)i, row);
            memcpy(p + row * (size_t)i, p + row * (size_t)j, row);
            memcpy(p + row * (size_t)j, tmp, row);
        }
    }
    d2_free(tmp);
    return 0;
}

D2_FN(RS_shuffle) /* a[0] x */
{
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt)
        return NULL;
    if (a[0]->kind == D2_OBJ_LIST) {
        d2_list *l = D2_AS(d2_list, a[0]);
        for (int64_t i = (int64_t)l->n - 1; i >= 1; i--) {
            int64_t j = (int64_t)d2_mt_bounded(mt, (uint64_t)i);
            d2_obj *t = l->items[i];
            l->items[i] = l->items[j];
            l->items[j] = t;
        }
        return d2_none(I);
    }
    if (!is_nd(a[0]))
        return d2_raise(I, "TypeError", "numpy.random.shuffle: x must be a list or an ndarray");
    d2_err err = {0};
    d2_tensor *c = d2_tensor_copy_to(NDA(a[0])->t, NULL, &err);
    if (!c)
        return d2_raise_err(I, &err);
    if (shuffle_tensor(mt, c) < 0) {
        d2_tensor_unref(c);
        return nomem(I);
    }
    d2_tensor_unref(NDA(a[0])->t);
    NDA(a[0])->t = c;
    return d2_none(I);
}

D2_FN(RS_permutation) /* a[0] x */
{
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt)
        return NULL;
    d2_tensor *t;
    d2_err err = {0};
    if (a[0]->kind == D2_OBJ_INT) {
        int64_t n = D2_AS(d2_int, a[0])->v;
        if (n < 0)
            return d2_raise(I, "ValueError", "negative dimensions are not allowed");
        t = d2_tensor_new(NULL, D2_I64, 1, &n, &err);
        if (!t)
            return d2_raise_err(I, &err);
        for (int64_t i = 0; i < n; i++)
            ((int64_t *)d2_tensor_data(t))[i] = i;
    } else {
        d2_tensor *x = arr(I, a[0], -1, "numpy.random.permutation");
        if (!x)
            return NULL;
        t = d2_tensor_copy_to(x, NULL, &err);
        d2_tensor_unref(x);
        if (!t)
            return d2_raise_err(I, &err);
    }
    if (shuffle_tensor(mt, t) < 0) {
        d2_tensor_unref(t);
        return nomem(I);
    }
    return wrap(I, t);
}

/* The first index of cdf[0..n) above u (NumPy's searchsorted side='right'). */
static int64_t search_right(const double *cdf, int64_t n, double u)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] <= u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* choice(..., p=p) as NumPy's legacy RandomState draws it: with replacement
 * one uniform per sample searched in p's normalised cumulative sum; without,
 * rounds of uniforms with the found entries' probabilities zeroed, keeping
 * the first of equal draws. Fills idx[0..cnt); 0, or -1 with ValueError. */
static int choice_p(d2_interp *I, d2_mt19937 *mt, d2_obj *po, int64_t pop, int64_t cnt,
                    bool replace, int64_t *idx)
{
    d2_tensor *pt = arr(I, po, D2_F64, "numpy.random.choice");
    if (!pt)
        return -1;
    int rc = -1;
    double *p = NULL, *cdf = NULL;
    if (pt->ndim != 1) {
        d2_raise(I, "ValueError", "'p' must be 1-dimensional");
        goto out;
    }
    if (pt->shape[0] != pop) {
        d2_raise(I, "ValueError", "'a' and 'p' must have same size");
        goto out;
    }
    p = d2_malloc(sizeof(double) * (size_t)pop + 8);
    cdf = d2_malloc(sizeof(double) * (size_t)pop + 8);
    if (!p || !cdf) {
        nomem(I);
        goto out;
    }
    double sum = 0;
    int64_t nonzero = 0;
    for (int64_t i = 0; i < pop; i++) {
        p[i] = d2_tensor_get_f64(pt, i);
        if (!isfinite(p[i])) {
            d2_raise(I, "ValueError", "probabilities contain NaN");
            goto out;
        }
        if (p[i] < 0) {
            d2_raise(I, "ValueError", "probabilities are not non-negative");
            goto out;
        }
        sum += p[i];
        nonzero += p[i] > 0;
    }
    if (fabs(sum - 1.0) > 1.4901161193847656e-08) {
        d2_raise(I, "ValueError", "probabilities do not sum to 1");
        goto out;
    }
    if (!replace && cnt > pop) {
        d2_raise(I, "ValueError", "Cannot take a larger sample than population when 'replace=False'");
        goto out;
    }
    if (!replace && nonzero < cnt) {
        d2_raise(I, "ValueError", "Fewer non-zero entries in p than size");
        goto out;
    }
    int64_t found = 0;
    while (found < cnt) {
        double c = 0;
        for (int64_t i = 0; i < pop; i++)
            cdf[i] = c += p[i];
        for (int64_t i = 0; i < pop; i++)
            cdf[i] /= c;
        int64_t want = cnt - found, round0 = found;
        double *u = d2_malloc(sizeof(double) * (size_t)want + 8);
        if (!u) {
            nomem(I);
            goto out;
        }
        for (int64_t i = 0; i < want; i++)
            u[i] = d2_mt_double(mt);
        for (int64_t i = 0; i < want; i++) {
            int64_t k = search_right(cdf, pop, u[i]);
            bool dup = false;
            for (int64_t j = round0; !replace && j < found && !dup; j++)
                dup = idx[j] == k;
            if (!dup)
                idx[found++] = k;
        }
        d2_free(u);
        if (!replace) {
            /* entries found are never drawn again */
            for (int64_t j = round0; j < found; j++)
                p[idx[j]] = 0;
        }
    }
    rc = 0;
out:
    d2_free(p);
    d2_free(cdf);
    d2_tensor_unref(pt);
    return rc;
}

D2_FN(RS_choice) /* a[0] a, a[1] size, a[2] replace, a[3] p */
{
    const char *fname = "numpy.random.choice";
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt)
        return NULL;
    d2_tensor *pool = NULL;
    int64_t pop;
    if (a[0]->kind == D2_OBJ_INT) {
        pop = D2_AS(d2_int, a[0])->v;
    } else {
        pool = arr(I, a[0], -1, fname);
        if (!pool)
            return NULL;
        if (pool->ndim != 1) {
            d2_tensor_unref(pool);
            return d2_raise(I, "ValueError", "a must be 1-dimensional");
        }
        pop = pool->shape[0];
    }
    int64_t dims[D2_MAX_DIMS];
    int n;
    bool sc;
    bool replace = !is_pynum(a[2]) || D2_AS(d2_int, a[2])->v;
    if (pop <= 0 || size_arg(I, a[1], fname, dims, &n, &sc) < 0) {
        if (pool)
            d2_tensor_unref(pool);
        return pop <= 0 ? d2_raise(I, "ValueError", "a must be greater than 0") : NULL;
    }
    int64_t cnt = 1;
    for (int i = 0; i < n; i++)
        cnt *= dims[i];
    int64_t *idx = d2_malloc(sizeof(int64_t) * (size_t)(cnt > pop ? cnt : pop) + 8);
    if (!idx) {
        if (pool)
            d2_tensor_unref(pool);
        return nomem(I);
    }
    d2_obj *r = NULL;
    if (!is_none(I, a[3])) {
        if (choice_p(I, mt, a[3], pop, cnt, replace, idx) < 0)
            r = NULL;
    } else if (replace) {
        for (int64_t i = 0; i < cnt; i++)
            idx[i] = (int64_t)d2_mt_bounded(mt, (uint64_t)pop - 1);
    } else if (cnt > pop) {
        r = d2_raise(I, "ValueError",
                     "Cannot take a larger sample than population when 'replace=False'");
    } else {
        for (int64_t i = 0; i < pop; i++)
            idx[i] = i;
        for (int64_t i = pop - 1; i >= 1; i--) {
            int64_t j = (int64_t)d2_mt_bounded(mt, (uint64_t)i), t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
    }
    if (!d2_exc_pending(I)) {
        d2_err err = {0};
        d2_dtype dt = pool ? pool->dtype : D2_I64;
        d2_tensor *o = d2_tensor_new(NULL, dt, sc ? 0 : n, dims, &err);
        if (!o) {
            r = d2_raise_err(I, &err);
        } else {
            size_t es = d2_dtype_size(dt);
            d2_tensor *pc = pool ? d2_tensor_contiguous(pool, &err) : NULL;
            for (int64_t i = 0; i < cnt; i++) {
                if (pc)
                    memcpy((char *)d2_tensor_data(o) + es * (size_t)i,
                           (char *)d2_tensor_data(pc) + es * (size_t)idx[i], es);
                else
                    ((int64_t *)d2_tensor_data(o))[i] = idx[i];
            }
            if (pc)
                d2_tensor_unref(pc);
            r = sc ? d2_pd_item(I, o, 0) : d2_ndarray_wrap(I, o);
            d2_tensor_unref(o);
        }
    }
    d2_free(idx);
    if (pool)
        d2_tensor_unref(pool);
    return r;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

/* The methods of RandomState that are also numpy.random functions: a
 * method draws from its instance, a function (self NULL) from the global
 * RandomState (rs_state). */
static const d2_def RS_DEFS[] = {
    D2_DEF("seed", "seed=None", RS_seed, "numpy.random.seed"),
    D2_DEF("random", "size=None", RS_random, "numpy.random.random"),
    D2_DEF("random_sample", "size=None", RS_random, "numpy.random.random"),
    D2_DEF("rand", "*args, **kwargs", RS_rand, "numpy.random.rand"),
    D2_DEF("randn", "*args, **kwargs", RS_randn, "numpy.random.randn"),
    D2_DEF("standard_normal", "size=None", RS_standard_normal, "numpy.random.standard_normal"),
    D2_DEF("uniform", "low=0.0, high=1.0, size=None", RS_uniform, "numpy.random.uniform"),
    D2_DEF("normal", "loc=0.0, scale=1.0, size=None", RS_normal, "numpy.random.normal"),
    D2_DEF("randint", "low, high=None, size=None, dtype=None", RS_randint, "numpy.random.randint"),
    D2_DEF("shuffle", "x", RS_shuffle, "numpy.random.shuffle"),
    D2_DEF("permutation", "x", RS_permutation, "numpy.random.permutation"),
    D2_DEF("choice", "a, size=None, replace=True, p=None", RS_choice, "numpy.random.choice"),
};

static const d2_def RS_INIT_DEF[] = {
    D2_DEF("__init__", "seed=None", RS_init, "numpy.random.RandomState"),
};

static const d2_def RANDOM_FN_DEFS[] = {
    D2_DEF("sample", "size=None", RS_random, "numpy.random.random"),
};

int d2np_random_init(d2_interp *I, d2_module *rnd)
{
    np_state *s = NS(I);
    d2_class *rs = s->rs_cls = d2_class_new_builtin(I, "RandomState", NULL, D2_OBJ_INSTANCE, rnd);
    if (!rs || d2_dict_set_str(I, rnd->dict, "RandomState", (d2_obj *)rs) < 0)
        return -1;
    if (d2_class_add_defs(I, rs, RS_INIT_DEF, D2_COUNTOF(RS_INIT_DEF), 0) < 0 ||
        d2_class_add_defs(I, rs, RS_DEFS, D2_COUNTOF(RS_DEFS), 0) < 0)
        return -1;
    d2_obj *g = d2_instance_new(I, rs);
    if (!g)
        return -1;
    int rc = d2_dict_set_str(I, rnd->dict, "_rand", g);
    d2_decref(g);
    if (rc < 0)
        return -1;
    s->global_rs = g; /* kept alive by numpy.random._rand */
    d2_obj *seed0 = d2_int_new(I, 0);
    d2_obj *r = seed0 ? d2_def_call(I, RS_INIT_DEF, g, &seed0, 1, NULL) : NULL;
    d2_decref(seed0);
    if (!r)
        return -1;
    d2_decref(r);
    if (d2_module_add_defs(I, rnd, RS_DEFS, D2_COUNTOF(RS_DEFS)) < 0 ||
        d2_module_add_defs(I, rnd, RANDOM_FN_DEFS, D2_COUNTOF(RANDOM_FN_DEFS)) < 0)
        return -1;
    return 0;
}
