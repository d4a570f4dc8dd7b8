/* activation.c - paddle.nn.functional activations that need more than one op: prelu, glu, maxout, rrelu. */
#include "lib/paddle/functions_priv.h"

#include <string.h>

/* prelu(x, weight, data_format='NCHW'): x where positive, weight * x elsewhere;
 * a weight of C values applies per channel (axis 1, or the last axis for NHWC/NLC/NDHWC). */
D2_FN(F_prelu)
{
    const char *fname = "paddle.nn.functional.prelu";
    const char *df = d2_pd_get_str(I, a[2], fname, "data_format");
    if (!df)
        return NULL;
    if (!is_tensor(a[0]) || !is_tensor(a[1]))
        return d2_raise(I, "TypeError", "%s: x and weight must be Tensors", fname);
    d2_obj *x = a[0], *w = a[1];
    const d2_shape *xs = &obj_type(x)->shape;
    int64_t nw = 1;
    for (int d = 0; d < obj_type(w)->shape.ndim; d++)
        nw *= obj_type(w)->shape.dims[d];
    bool last = df[0] == 'N' && df[strlen(df) - 1] == 'C';
    int cax = last ? xs->ndim - 1 : 1;
    d2_obj *wb = NULL;
    if (nw == 1) {
        wb = d2_incref(w);
    } else {
        if (xs->ndim < 2 || xs->dims[cax] != nw)
            return d2_raise(I, "ValueError",
                            "%s: weight has %lld values but x has %lld channels (data_format %s)",
                            fname, (long long)nw, xs->ndim < 2 ? 0LL : (long long)xs->dims[cax],
                            df);
        int64_t dims[D2_MAX_DIMS];
        for (int d = 0; d < xs->ndim; d++)
            dims[d] = d == cax ? nw : 1;
        d2_ab b;
        d2_ab_init(&b, D2_OP_reshape);
        d2_ab_ints(&b, "shape", dims, xs->ndim);
        wb = op1(I, fname, D2_OP_reshape, w, &b);
    }
    if (!wb)
        return NULL;
    d2_obj *zero = d2_pd_const_tensor(I, 0, 0, false, obj_type(x)->dtype);
    d2_obj *pos = zero ? op2(I, fname, D2_OP_greater_than, x, zero, NULL) : NULL;
    d2_obj *neg = pos ? op2(I, fname, D2_OP_multiply, x, wb, NULL) : NULL;
    d2_obj *r = NULL;
    if (neg) {
        d2_obj *in[3] = {pos, x, neg};
        r = d2_pd_opn(I, fname, D2_OP_where, in, 3, NULL);
    }
    d2_decref(wb);
    d2_decref(zero);
    d2_decref(pos);
    d2_decref(neg);
    return r;
}

/* glu(x, axis=-1): the first half times the sigmoid of the second. */
D2_FN(F_glu)
{
    const char *fname = "paddle.nn.functional.glu";
    int64_t axis;
    if (d2_pd_get_int(I, a[1], fname, "axis", &axis) < 0)
        return NULL;
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    d2_ab b;
    d2_ab_init(&b, D2_OP_split);
    d2_ab_int(&b, "num", 2);
    d2_ab_int(&b, "axis", axis);
    d2_obj *halves[2] = {NULL, NULL};
    int rc = d2_pd_apply_named(I, fname, D2_OP_split, &a[0], 1, &b.a, halves, 2);
    d2_ab_free(&b);
    if (rc < 0)
        return NULL;
    d2_obj *g = op1(I, fname, D2_OP_sigmoid, halves[1], NULL);
    d2_obj *r = g ? op2(I, fname, D2_OP_multiply, halves[0], g, NULL) : NULL;
    d2_decref(halves[0]);
    d2_decref(halves[1]);
    d2_decref(g);
    return r;
}

/* maxout(x, groups, axis=1): channels C split into C/groups of groups, the max of each. */
D2_FN(F_maxout)
{
    const char *fname = "paddle.nn.functional.maxout";
    int64_t g, axis;
    if (d2_pd_get_int(I, a[1], fname, "groups", &g) < 0 ||
        d2_pd_get_int(I, a[2], fname, "axis", &axis) < 0)
        return NULL;
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    const d2_shape *xs = &obj_type(a[0])->shape;
    int nd = xs->ndim;
    if (axis < 0)
        axis += nd;
    if (nd != 4 || (axis != 1 && axis != 3))
        return d2_raise(I, "ValueError", "%s: x must be 4-D and axis 1, 3 or -1", fname);
    int64_t c = xs->dims[axis];
    if (g <= 0 || (c >= 0 && c % g != 0))
        return d2_raise(I, "ValueError",
                        "%s: the number of channels (%lld) must be divisible by groups (%lld)",
                        fname, (long long)c, (long long)g);
    if (c < 0)
        return d2_raise(I, "ValueError", "%s: the number of channels must be known", fname);
    int64_t dims[D2_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < nd; d++) {
        if (d == axis) {
            dims[k++] = c / g;
            dims[k++] = g;
        } else {
            dims[k++] = d == 0 ? (xs->dims[0] < 0 ? -1 : xs->dims[0]) : xs->dims[d];
        }
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_reshape);
    d2_ab_ints(&b, "shape", dims, k);
    d2_obj *r = op1(I, fname, D2_OP_reshape, a[0], &b);
    if (!r)
        return NULL;
    int64_t rax = axis + 1;
    d2_ab_init(&b, D2_OP_max);
    d2_ab_ints(&b, "axis", &rax, 1);
    d2_obj *m = op1(I, fname, D2_OP_max, r, &b);
    d2_decref(r);
    return m;
}

/* rrelu(x, lower=1/8, upper=1/3, training=True): a random negative slope in
 * [lower, upper] per element while training, their mean otherwise. */
D2_FN(F_rrelu)
{
    const char *fname = "paddle.nn.functional.rrelu";
    double lo, hi;
    bool training;
    if (d2_pd_get_float(I, a[1], fname, "lower", &lo) < 0 ||
        d2_pd_get_float(I, a[2], fname, "upper", &hi) < 0 ||
        d2_pd_get_bool(I, a[3], fname, "training", &training) < 0)
        return NULL;
    if (lo < 0 || lo > 1 || hi < lo || hi > 1)
        return d2_raise(I, "ValueError",
                        "%s: 0 <= lower <= upper <= 1 must hold, got lower %g, upper %g", fname, lo,
                        hi);
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    if (!training) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_leaky_relu);
        d2_ab_float(&b, "negative_slope", (lo + hi) / 2);
        return op1(I, fname, D2_OP_leaky_relu, a[0], &b);
    }
    d2_obj *slope;
    if (!D2_MODE(I)->builder && !D2_MODE(I)->tracer && !is_sym(a[0])) {
        /* eager: as Paddle's CPU kernel, one uniform slope drawn from
         * paddle.seed's generator per negative element, in order */
        d2_tensor *hx = d2_pd_host(I, a[0], fname);
        if (!hx)
            return NULL;
        int64_t n = d2_tensor_numel(hx);
        double *v = d2_malloc((size_t)n * sizeof *v + 1);
        if (!v) {
            d2_tensor_unref(hx);
            return d2_raise(I, "MemoryError", "%s: out of memory", fname);
        }
        for (int64_t i = 0; i < n; i++) {
            v[i] = 1.0;
            if (d2_tensor_get_f64(hx, i) < 0)
                d2_pd_random_fill(I, D2_RND_UNIFORM, obj_type(a[0])->dtype, lo, hi, &v[i], 1);
        }
        d2_shape xs;
        d2_tensor_get_shape(hx, &xs);
        d2_tensor_unref(hx);
        d2_tensor *st = d2_pd_host_from_doubles(I, obj_type(a[0])->dtype, xs.ndim, xs.dims, v);
        d2_free(v);
        slope = st ? d2_pd_wrap_host(I, st) : NULL;
    } else {
        d2_obj *uni = d2_dict_get_str(I, ST(I)->paddle->dict, "uniform");
        d2_obj *shape = uni ? d2_pd_shape_pylist(I, &obj_type(a[0])->shape) : NULL;
        if (!shape)
            return NULL;
        d2_obj *dt = d2_pd_dtype_obj_new(I, obj_type(a[0])->dtype, false);
        d2_obj *lo_o = d2_float_new(I, lo), *hi_o = d2_float_new(I, hi);
        d2_obj *args[4] = {shape, dt, lo_o, hi_o};
        slope = dt && lo_o && hi_o ? d2_call(I, uni, args, 4, NULL) : NULL;
        d2_decref(shape);
        d2_decref(dt);
        d2_decref(lo_o);
        d2_decref(hi_o);
    }
    if (!slope)
        return NULL;
    d2_obj *zero = d2_pd_const_tensor(I, 0, 0, false, obj_type(a[0])->dtype);
    d2_obj *pos = zero ? op2(I, fname, D2_OP_greater_equal, a[0], zero, NULL) : NULL;
    d2_obj *neg = pos ? op2(I, fname, D2_OP_multiply, a[0], slope, NULL) : NULL;
    d2_obj *r = NULL;
    if (neg) {
        d2_obj *in[3] = {pos, a[0], neg};
        r = d2_pd_opn(I, fname, D2_OP_where, in, 3, NULL);
    }
    d2_decref(slope);
    d2_decref(zero);
    d2_decref(pos);
    d2_decref(neg);
    return r;
}

/* celu(x, alpha=1.0): alpha 0 is Paddle's ZeroDivisionError. */
D2_FN(F_celu)
{
    const char *fname = "paddle.nn.functional.celu";
    double alpha;
    if (d2_pd_get_float(I, a[1], fname, "alpha", &alpha) < 0)
        return NULL;
    if (alpha == 0)
        return d2_raise(I, "ZeroDivisionError", "alpha cannot be 0 for celu");
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_celu);
    d2_ab_float(&b, "alpha", alpha);
    d2_obj *r = op1(I, fname, D2_OP_celu, x, &b);
    d2_decref(x);
    return r;
}

static const d2_def ACTIVATION_DEFS[] = {
    D2_DEF("celu", "x, alpha=1.0, name=None", F_celu, "paddle.nn.functional.celu"),
    D2_DEF("prelu", "x, weight, data_format='NCHW', name=None", F_prelu,
           "paddle.nn.functional.prelu"),
    D2_DEF("glu", "x, axis=-1, name=None", F_glu, "paddle.nn.functional.glu"),
    D2_DEF("maxout", "x, groups, axis=1, name=None", F_maxout, "paddle.nn.functional.maxout"),
    D2_DEF("rrelu", "x, lower=0.125, upper=0.3333333333333333, training=True, name=None", F_rrelu,
           "paddle.nn.functional.rrelu"),
};

int d2_pd_activation_add(d2_interp *I, pd_state *s)
{
    return d2_module_add_defs(I, s->F, ACTIVATION_DEFS, D2_COUNTOF(ACTIVATION_DEFS));
}
