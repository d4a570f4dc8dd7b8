/* nn_functional.c - paddle.nn.functional beyond the table: convolutions, pooling, norms, dropout. */
#include "lib/paddle/functions_priv.h"

#include <string.h>
#include <strings.h>

/* ======================================================================
 * paddle.nn.functional: irregular functions
 * ====================================================================== */

/* An int or a pair [a, b] into two values. */
int d2_pd_pair_arg(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t v[2])
{
    int64_t t[4];
    int n;
    if (d2_pd_ints(I, o, fname, what, t, &n, 4) < 0)
        return -1;
    if (n == 1) {
        v[0] = v[1] = t[0];
        return 0;
    }
    if (n == 2) {
        v[0] = t[0];
        v[1] = t[1];
        return 0;
    }
    d2_raise(I, "ValueError", "%s: %s must be an int or a list of 2 ints, got %d values", fname,
             what, n);
    return -1;
}

/* Paddle's padding argument: an int, [ph, pw], [top, bottom, left, right],
 * or 'SAME' / 'VALID'. Writes paddings[4] (top, bottom, left, right) and
 * the algorithm. */
static int padding_arg(d2_interp *I, d2_obj *o, const char *fname, int64_t pad[4], const char **alg)
{
    *alg = "EXPLICIT";
    pad[0] = pad[1] = pad[2] = pad[3] = 0;
    if (o->kind == D2_OBJ_STR) {
        const char *s = D2_AS(d2_str, o)->s;
        if (strcasecmp(s, "same") == 0)
            *alg = "SAME";
        else if (strcasecmp(s, "valid") == 0)
            *alg = "VALID";
        else {
            d2_raise(I, "ValueError", "%s: padding must be 'SAME', 'VALID' or ints, got '%s'",
                     fname, s);
            return -1;
        }
        return 0;
    }
    int64_t t[8];
    int n;
    if (d2_pd_ints(I, o, fname, "padding", t, &n, 8) < 0)
        return -1;
    if (n == 1)
        pad[0] = pad[1] = pad[2] = pad[3] = t[0];
    else if (n == 2) {
        pad[0] = pad[1] = t[0];
        pad[2] = pad[3] = t[1];
    } else if (n == 4) {
        memcpy(pad, t, 4 * sizeof *pad);
    } else {
        d2_raise(I, "ValueError", "%s: padding must have 1, 2 or 4 values, got %d", fname, n);
        return -1;
    }
    return 0;
}

int d2_pd_check_nchw(d2_interp *I, d2_obj *df, const char *fname)
{
    if (is_none(I, df))
        return 0;
    const char *s = d2_pd_get_str(I, df, fname, "data_format");
    if (!s)
        return -1;
    if (strcmp(s, "NCHW") != 0) {
        d2_raise(I, "ValueError", "%s: only data_format='NCHW' is supported, got '%s'", fname, s);
        return -1;
    }
    return 0;
}

d2_obj *d2_pd_conv2d(d2_interp *I, const char *fname, d2_obj *x, d2_obj *w, d2_obj *bias,
                     d2_obj *stride, d2_obj *padding, d2_obj *dilation, d2_obj *groups)
{
    int64_t st[2], dil[2], pad[4], g;
    const char *alg;
    if (d2_pd_pair_arg(I, stride, fname, "stride", st) < 0 ||
        d2_pd_pair_arg(I, dilation, fname, "dilation", dil) < 0 ||
        padding_arg(I, padding, fname, pad, &alg) < 0 ||
        d2_pd_get_int(I, groups, fname, "groups", &g) < 0)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_conv2d);
    d2_ab_ints(&b, "strides", st, 2);
    d2_ab_ints(&b, "dilations", dil, 2);
    d2_ab_ints(&b, "paddings", pad, 4);
    d2_ab_int(&b, "groups", g);
    d2_ab_str(&b, "padding_algorithm", alg);
    d2_obj *in[3] = {x, w, is_none(I, bias) ? NULL : bias};
    return d2_pd_opn(I, fname, D2_OP_conv2d, in, 3, &b);
}

D2_FN(F_conv2d)
{
    const char *fname = "paddle.nn.functional.conv2d";
    if (d2_pd_check_nchw(I, a[7], fname) < 0)
        return NULL;
    if (!is_tensor(a[0]) || !is_tensor(a[1]) || (!is_none(I, a[2]) && !is_tensor(a[2])))
        return d2_raise(I, "TypeError", "%s: x, weight and bias must be Tensors", fname);
    return d2_pd_conv2d(I, fname, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
}

static d2_obj *permute4(d2_interp *I, const char *fname, d2_obj *x, const int64_t perm[4])
{
    d2_ab b;
    d2_ab_init(&b, D2_OP_transpose);
    d2_ab_ints(&b, "perm", perm, 4);
    return op1(I, fname, D2_OP_transpose, x, &b);
}

/* paddle.nn.functional.conv2d_transpose: the conv2d_transpose op on NCHW; NHWC goes through
 * transposes. output_size (ints, or None) is checked by the op against the inferred size. */
D2_FN(F_conv2d_transpose)
{
    const char *fname = "paddle.nn.functional.conv2d_transpose";
    if (!is_tensor(a[0]) || !is_tensor(a[1]) || (!is_none(I, a[2]) && !is_tensor(a[2])))
        return d2_raise(I, "TypeError", "%s: x, weight and bias must be Tensors", fname);
    bool nhwc = false;
    if (!is_none(I, a[8])) {
        const char *df = d2_pd_get_str(I, a[8], fname, "data_format");
        if (!df)
            return NULL;
        nhwc = strcmp(df, "NHWC") == 0;
        if (!nhwc && strcmp(df, "NCHW") != 0)
            return d2_raise(I, "ValueError",
                            "%s: data_format must be 'NCHW' or 'NHWC', got '%s'", fname, df);
    }
    int64_t st[2], dil[2], op[2], pad[4], osz[2], g;
    const char *alg;
    int nos = 0;
    if (d2_pd_pair_arg(I, a[3], fname, "stride", st) < 0 ||
        d2_pd_pair_arg(I, a[7], fname, "dilation", dil) < 0 ||
        d2_pd_pair_arg(I, a[5], fname, "output_padding", op) < 0 ||
        padding_arg(I, a[4], fname, pad, &alg) < 0 ||
        d2_pd_get_int(I, a[6], fname, "groups", &g) < 0)
        return NULL;
    if (!is_none(I, a[9])) {
        if (d2_pd_pair_arg(I, a[9], fname, "output_size", osz) < 0)
            return NULL;
        nos = 2;
        op[0] = op[1] = 0;
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_conv2d_transpose);
    d2_ab_ints(&b, "strides", st, 2);
    d2_ab_ints(&b, "dilations", dil, 2);
    d2_ab_ints(&b, "paddings", pad, 4);
    d2_ab_ints(&b, "output_padding", op, 2);
    d2_ab_ints(&b, "output_size", osz, nos);
    d2_ab_int(&b, "groups", g);
    d2_ab_str(&b, "padding_algorithm", alg);
    static const int64_t to_nchw[4] = {0, 3, 1, 2}, to_nhwc[4] = {0, 2, 3, 1};
    d2_obj *x = nhwc ? permute4(I, fname, a[0], to_nchw) : d2_incref(a[0]);
    if (!x)
        return NULL;
    d2_obj *in[3] = {x, a[1], is_none(I, a[2]) ? NULL : a[2]};
    d2_obj *y = d2_pd_opn(I, fname, D2_OP_conv2d_transpose, in, 3, &b);
    d2_decref(x);
    if (!y || !nhwc)
        return y;
    d2_obj *r = permute4(I, fname, y, to_nhwc);
    d2_decref(y);
    return r;
}

/* max_pool2d's return_mask, eagerly on the host: for each output element the
 * flat index h * W + w in its input plane of the window's first maximum (as
 * Paddle's kernel; padding never wins), int32 like Paddle's. */
static d2_obj *max_pool_mask(d2_interp *I, const char *fname, d2_obj *x, d2_obj *out,
                             const int64_t ks[2], const int64_t st[2], const int64_t pad[4])
{
    if (D2_MODE(I)->builder || is_sym(x))
        return d2_raise(I, "NotImplementedError",
                        "%s: return_mask=True is not supported inside to_static", fname);
    d2_tensor *hx = d2_pd_host(I, x, fname);
    if (!hx)
        return NULL;
    const d2_shape *os = &obj_type(out)->shape;
    d2_shape xs;
    d2_tensor_get_shape(hx, &xs);
    if (xs.ndim != 4 || os->ndim != 4) {
        d2_tensor_unref(hx);
        return d2_raise(I, "ValueError", "%s: return_mask needs a 4-D NCHW input", fname);
    }
    int64_t N = xs.dims[0], C = xs.dims[1], H = xs.dims[2], W = xs.dims[3];
    int64_t OH = os->dims[2], OW = os->dims[3];
    int64_t md[4] = {N, C, OH, OW};
    d2_err err = {0};
    d2_tensor *m = d2_tensor_new(NULL, D2_I32, 4, md, &err);
    if (!m) {
        d2_tensor_unref(hx);
        return d2_raise_err(I, &err);
    }
    int32_t *mp = d2_tensor_data(m);
    for (int64_t nc = 0; nc < N * C; nc++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t h0 = oh * st[0] - pad[0], w0 = ow * st[1] - pad[2];
                int64_t h1 = h0 + ks[0] < H ? h0 + ks[0] : H, w1 = w0 + ks[1] < W ? w0 + ks[1] : W;
                int64_t best = -1;
                double bv = 0;
                for (int64_t h = h0 < 0 ? 0 : h0; h < h1; h++)
                    for (int64_t w = w0 < 0 ? 0 : w0; w < w1; w++) {
                        double v = d2_tensor_get_f64(hx, nc * H * W + h * W + w);
                        if (best < 0 || v > bv) {
                            bv = v;
                            best = h * W + w;
                        }
                    }
                mp[(nc * OH + oh) * OW + ow] = (int32_t)(best < 0 ? 0 : best);
            }
    d2_tensor_unref(hx);
    return d2_pd_wrap_host(I, m);
}

static d2_obj *pool_impl_m(d2_interp *I, const char *fname, d2_obj *x, const char *type,
                           d2_obj *ksize, d2_obj *stride, d2_obj *padding, bool ceil_mode,
                           bool exclusive, bool adaptive, d2_obj **mask);

d2_obj *d2_pd_pool2d(d2_interp *I, const char *fname, d2_obj *x, const char *type, d2_obj *ksize,
                     d2_obj *stride, d2_obj *padding, bool ceil_mode, bool exclusive, bool adaptive)
{
    return pool_impl_m(I, fname, x, type, ksize, stride, padding, ceil_mode, exclusive, adaptive,
                       NULL);
}

/* mask: when not NULL (max pooling, not adaptive), also the indices of the maxima */
static d2_obj *pool_impl_m(d2_interp *I, const char *fname, d2_obj *x, const char *type,
                           d2_obj *ksize, d2_obj *stride, d2_obj *padding, bool ceil_mode,
                           bool exclusive, bool adaptive, d2_obj **mask)
{
    int64_t ks[2], st[2], pad[4] = {0, 0, 0, 0};
    const char *alg = "EXPLICIT";
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor, got %s", fname, d2_type_name(x));
    if (adaptive) {
        /* output_size: int, pair; None entries keep the input size */
        const d2_shape *xs = &obj_type(x)->shape;
        if (is_seq(ksize)) {
            if (seq_len(ksize) != 2)
                return d2_raise(I, "ValueError", "%s: output_size must have 2 values", fname);
            for (int i = 0; i < 2; i++) {
                d2_obj *it = seq_item(ksize, (size_t)i);
                if (is_none(I, it)) {
                    if (xs->ndim != 4 || xs->dims[2 + i] < 0)
                        return d2_raise(I, "ValueError",
                                        "%s: a None output size needs a static input size", fname);
                    ks[i] = xs->dims[2 + i];
                } else if (d2_pd_get_int(I, it, fname, "output_size", &ks[i]) < 0) {
                    return NULL;
                }
            }
        } else if (d2_pd_pair_arg(I, ksize, fname, "output_size", ks) < 0) {
            return NULL;
        }
        st[0] = st[1] = 1;
    } else {
        if (d2_pd_pair_arg(I, ksize, fname, "kernel_size", ks) < 0)
            return NULL;
        if (is_none(I, stride)) {
            st[0] = ks[0];
            st[1] = ks[1];
        } else if (d2_pd_pair_arg(I, stride, fname, "stride", st) < 0) {
            return NULL;
        }
        if (padding_arg(I, padding, fname, pad, &alg) < 0)
            return NULL;
        if (strcmp(alg, "EXPLICIT") != 0) {
            /* SAME/VALID pooling: compute explicit paddings from the static input size */
            const d2_shape *xs = &obj_type(x)->shape;
            if (strcmp(alg, "SAME") == 0) {
                for (int i = 0; i < 2; i++) {
                    int64_t in = xs->ndim == 4 ? xs->dims[2 + i] : -1;
                    if (in < 0)
                        return d2_raise(I, "ValueError",
                                        "%s: padding='SAME' needs static spatial sizes", fname);
                    int64_t out = (in + st[i] - 1) / st[i];
                    int64_t tot = (out - 1) * st[i] + ks[i] - in;
                    if (tot < 0)
                        tot = 0;
                    pad[2 * i] = tot / 2;
                    pad[2 * i + 1] = tot - tot / 2;
                }
            }
        }
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_pool2d);
    d2_ab_str(&b, "pooling_type", type);
    d2_ab_ints(&b, "ksize", ks, 2);
    d2_ab_ints(&b, "strides", st, 2);
    d2_ab_ints(&b, "paddings", pad, 4);
    d2_ab_bool(&b, "adaptive", adaptive);
    d2_ab_bool(&b, "ceil_mode", ceil_mode);
    d2_ab_bool(&b, "exclusive", exclusive);
    d2_obj *out = op1(I, fname, D2_OP_pool2d, x, &b);
    if (!out || !mask)
        return out;
    if (!(*mask = max_pool_mask(I, fname, x, out, ks, st, pad))) {
        d2_decref(out);
        return NULL;
    }
    return out;
}

/* (out, mask) as a tuple, or out alone. */
d2_obj *d2_pd_max_pool2d(d2_interp *I, const char *fname, d2_obj *x, d2_obj *ksize, d2_obj *stride,
                         d2_obj *padding, bool ceil_mode, bool want_mask)
{
    if (!want_mask)
        return d2_pd_pool2d(I, fname, x, "max", ksize, stride, padding, ceil_mode, true, false);
    /* Paddle's max_pool2d_with_index has no ceil_mode: with return_mask it is ignored */
    D2_UNUSED(ceil_mode);
    d2_obj *m = NULL;
    d2_obj *out = pool_impl_m(I, fname, x, "max", ksize, stride, padding, false, true, false, &m);
    if (!out)
        return NULL;
    d2_obj *t = tuple_new(I, 2);
    if (!t) {
        d2_decref(out);
        d2_decref(m);
        return NULL;
    }
    D2_AS(d2_tuple, t)->items[0] = out;
    D2_AS(d2_tuple, t)->items[1] = m;
    return t;
}

D2_FN(F_max_pool2d)
{
    const char *fname = "paddle.nn.functional.max_pool2d";
    bool ceil_mode, mask;
    if (d2_pd_get_bool(I, a[4], fname, "ceil_mode", &ceil_mode) < 0 ||
        d2_pd_get_bool(I, a[5], fname, "return_mask", &mask) < 0 ||
        d2_pd_check_nchw(I, a[6], fname) < 0)
        return NULL;
    return d2_pd_max_pool2d(I, fname, a[0], a[1], a[2], a[3], ceil_mode, mask);
}

D2_FN(F_avg_pool2d)
{
    const char *fname = "paddle.nn.functional.avg_pool2d";
    bool ceil_mode, excl;
    if (d2_pd_get_bool(I, a[4], fname, "ceil_mode", &ceil_mode) < 0 ||
        d2_pd_get_bool(I, a[5], fname, "exclusive", &excl) < 0 ||
        d2_pd_check_nchw(I, a[7], fname) < 0)
        return NULL;
    if (!is_none(I, a[6]))
        return d2_raise(I, "NotImplementedError", "%s: divisor_override is not supported", fname);
    return d2_pd_pool2d(I, fname, a[0], "avg", a[1], a[2], a[3], ceil_mode, excl, false);
}

D2_FN(F_adaptive_avg_pool2d)
{
    const char *fname = "paddle.nn.functional.adaptive_avg_pool2d";
    if (d2_pd_check_nchw(I, a[2], fname) < 0)
        return NULL;
    return d2_pd_pool2d(I, fname, a[0], "avg", a[1], NULL, NULL, false, true, true);
}

/* adaptive_max_pool2d(x, output_size, return_mask=True): (out, mask), composed
 * of registry ops by paddle.nn.layer.common_ext's Python, window by window. */
d2_obj *d2_pd_adaptive_max_mask(d2_interp *I, const char *fname, d2_obj *x, d2_obj *output_size)
{
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor, got %s", fname, d2_type_name(x));
    if (obj_type(x)->shape.ndim != 4)
        return d2_raise(I, "ValueError", "%s: x must be 4-D (NCHW), got %d-D", fname,
                        obj_type(x)->shape.ndim);
    d2_obj *m = d2_import(I, "paddle.nn.layer.common_ext", NULL);
    d2_obj *f = m ? d2_getattr(I, m, "_adaptive_max_mask") : NULL;
    d2_decref(m);
    d2_obj *n = f ? d2_int_new(I, 2) : NULL;
    d2_obj *fn = n ? d2_str_from(I, fname) : NULL;
    d2_obj *args[4] = {x, output_size, n, fn};
    d2_obj *r = fn ? d2_call(I, f, args, 4, NULL) : NULL;
    d2_decref(fn);
    d2_decref(n);
    d2_decref(f);
    return r;
}

D2_FN(F_adaptive_max_pool2d)
{
    const char *fname = "paddle.nn.functional.adaptive_max_pool2d";
    bool mask;
    if (d2_pd_get_bool(I, a[2], fname, "return_mask", &mask) < 0)
        return NULL;
    if (mask)
        return d2_pd_adaptive_max_mask(I, fname, a[0], a[1]);
    return d2_pd_pool2d(I, fname, a[0], "max", a[1], NULL, NULL, false, true, true);
}

/* Batch statistics over all axes but 1 (training-mode batch_norm):
 * returns new refs in *mean, *var (shape [C]). */
static int batch_stats(d2_interp *I, const char *fname, d2_obj *x, d2_obj **mean, d2_obj **var)
{
    int nd = obj_type(x)->shape.ndim;
    int64_t axes[D2_MAX_DIMS];
    int na = 0;
    for (int i = 0; i < nd; i++)
        if (i != 1)
            axes[na++] = i;
    d2_ab b;
    d2_ab_init(&b, D2_OP_mean);
    d2_ab_ints(&b, "axis", axes, na);
    d2_ab_bool(&b, "keepdim", true);
    d2_obj *mk = op1(I, fname, D2_OP_mean, x, &b);
    d2_obj *diff = mk ? op2(I, fname, D2_OP_subtract, x, mk, NULL) : NULL;
    d2_obj *sq = diff ? op1(I, fname, D2_OP_square, diff, NULL) : NULL;
    *var = NULL;
    *mean = NULL;
    if (sq) {
        d2_ab_init(&b, D2_OP_mean);
        d2_ab_ints(&b, "axis", axes, na);
        *var = op1(I, fname, D2_OP_mean, sq, &b);
        d2_ab_init(&b, D2_OP_mean);
        d2_ab_ints(&b, "axis", axes, na);
        *mean = *var ? op1(I, fname, D2_OP_mean, x, &b) : NULL;
    }
    d2_decref(mk);
    d2_decref(diff);
    d2_decref(sq);
    if (!*mean) {
        d2_setref(var, NULL);
        return -1;
    }
    return 0;
}

/* running = running * momentum + batch * (1 - momentum), in place (eager). */
static int update_running(d2_interp *I, const char *fname, d2_obj *running, d2_obj *batch,
                          double momentum)
{
    if (!is_tensor(running) || is_sym(running) || is_sym(batch))
        return 0;
    d2_ab b;
    d2_ab_init(&b, D2_OP_scale);
    d2_ab_float(&b, "scale", momentum);
    d2_obj *r1 = op1(I, fname, D2_OP_scale, running, &b);
    d2_ab_init(&b, D2_OP_scale);
    d2_ab_float(&b, "scale", 1 - momentum);
    d2_obj *b1 = r1 ? op1(I, fname, D2_OP_scale, batch, &b) : NULL;
    d2_obj *s = b1 ? op2(I, fname, D2_OP_add, r1, b1, NULL) : NULL;
    if (s) {
        d2_tensor_unref(TOBJ(running)->t);
        TOBJ(running)->t = d2_tensor_ref(TOBJ(s)->t);
    }
    d2_decref(r1);
    d2_decref(b1);
    d2_decref(s);
    return s ? 0 : -1;
}

/* running * momentum + batch * (1 - momentum) as ops of batch's builder b, running (a
 * concrete tensor) read as the Program's persistable variable: new reference or NULL. */
static d2_obj *running_update_sym(d2_interp *I, const char *fname, d2_builder *b, d2_obj *running,
                                  d2_obj *batch, double momentum)
{
    int v = d2_pd_lift(I, b, running);
    d2_obj *rs = v >= 0 ? d2_pd_symbolic(I, b, v) : NULL;
    d2_ab ab;
    d2_ab_init(&ab, D2_OP_scale);
    d2_ab_float(&ab, "scale", momentum);
    d2_obj *r1 = rs ? op1(I, fname, D2_OP_scale, rs, &ab) : NULL;
    d2_ab_init(&ab, D2_OP_scale);
    d2_ab_float(&ab, "scale", 1 - momentum);
    d2_obj *b1 = r1 ? op1(I, fname, D2_OP_scale, batch, &ab) : NULL;
    d2_obj *s = b1 ? op2(I, fname, D2_OP_add, r1, b1, NULL) : NULL;
    d2_decref(rs);
    d2_decref(r1);
    d2_decref(b1);
    return s;
}

/* A training batch_norm of a static Program built op by op (program_guard): Executor.run
 * updates the running statistics rm and rv with the batch's bm and bv, and a test clone reads
 * rm and rv (Paddle's batch_norm op with MeanOut / VarianceOut and is_test). Nothing for
 * other builders (to_static) or eager tensors. 0, or -1 with an exception. */
static int static_running_stats(d2_interp *I, const char *fname, d2_obj *rm, d2_obj *rv,
                                d2_obj *bm, d2_obj *bv, double momentum)
{
    d2_builder *b = is_sym(bm) && is_sym(bv) ? TOBJ(bm)->builder : NULL;
    const d2_pd_upcalls *up = &D2_MODE(I)->up;
    if (!b || TOBJ(bv)->builder != b || is_sym(rm) || is_sym(rv) || !up->static_builds ||
        !up->static_batch_norm || !up->static_builds(I, b))
        return 0;
    d2_obj *um = running_update_sym(I, fname, b, rm, bm, momentum);
    d2_obj *uv = um ? running_update_sym(I, fname, b, rv, bv, momentum) : NULL;
    int vm = uv ? d2_pd_lift(I, b, rm) : -1;
    int vv = vm >= 0 ? d2_pd_lift(I, b, rv) : -1;
    int rc = vv >= 0 ? up->static_batch_norm(I, b, TOBJ(bm)->var, TOBJ(bv)->var, vm, vv,
                                             TOBJ(um)->var, TOBJ(uv)->var)
                     : -1;
    d2_decref(um);
    d2_decref(uv);
    return rc;
}

d2_obj *d2_pd_batch_norm(d2_interp *I, const char *fname, d2_obj *x, d2_obj *rm, d2_obj *rv,
                         d2_obj *w, d2_obj *bias, bool training, double momentum, double eps,
                         bool use_global)
{
    if (!is_tensor(x) || !is_tensor(rm) || !is_tensor(rv))
        return d2_raise(I, "TypeError", "%s: x, running_mean and running_var must be Tensors",
                        fname);
    d2_obj *scale = NULL, *shift = NULL, *r = NULL;
    int64_t c = obj_type(x)->shape.ndim >= 2 ? obj_type(x)->shape.dims[1] : -1;
    d2_dtype dt = obj_type(x)->dtype;
    if (is_none(I, w)) {
        scale = d2_pd_const_tensor(I, 1, 0, false, dt);
        if (scale && c >= 0) {
            d2_ab b;
            d2_ab_init(&b, D2_OP_expand);
            d2_ab_ints(&b, "shape", &c, 1);
            d2_obj *e = op1(I, fname, D2_OP_expand, scale, &b);
            d2_decref(scale);
            scale = e;
        }
    } else {
        scale = d2_incref(w);
    }
    if (!scale)
        return NULL;
    if (is_none(I, bias)) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_full_like);
        d2_ab_float(&b, "value", 0);
        shift = op1(I, fname, D2_OP_full_like, scale, &b);
    } else {
        shift = d2_incref(bias);
    }
    if (!shift) {
        d2_decref(scale);
        return NULL;
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_batch_norm);
    d2_ab_float(&b, "epsilon", eps);
    if (training && !use_global) {
        d2_obj *bm, *bv;
        if (batch_stats(I, fname, x, &bm, &bv) == 0) {
            d2_obj *in[5] = {x, bm, bv, scale, shift};
            r = d2_pd_opn(I, fname, D2_OP_batch_norm, in, 5, &b);
            if (r && (update_running(I, fname, rm, bm, momentum) < 0 ||
                      update_running(I, fname, rv, bv, momentum) < 0 ||
                      static_running_stats(I, fname, rm, rv, bm, bv, momentum) < 0))
                d2_setref(&r, NULL);
            d2_decref(bm);
            d2_decref(bv);
        } else {
            d2_ab_free(&b);
        }
    } else {
        d2_obj *in[5] = {x, rm, rv, scale, shift};
        r = d2_pd_opn(I, fname, D2_OP_batch_norm, in, 5, &b);
    }
    d2_decref(scale);
    d2_decref(shift);
    return r;
}

D2_FN(F_batch_norm)
{
    const char *fname = "paddle.nn.functional.batch_norm";
    bool training, global = false;
    double mom, eps;
    if (d2_pd_get_bool(I, a[5], fname, "training", &training) < 0 ||
        d2_pd_get_float(I, a[6], fname, "momentum", &mom) < 0 ||
        d2_pd_get_float(I, a[7], fname, "epsilon", &eps) < 0 ||
        (!is_none(I, a[9]) && d2_pd_get_bool(I, a[9], fname, "use_global_stats", &global) < 0))
        return NULL;
    const char *df = is_none(I, a[8]) ? "NCHW" : d2_pd_get_str(I, a[8], fname, "data_format");
    if (!df)
        return NULL;
    if (strcmp(df, "NCHW") != 0 && strcmp(df, "NCL") != 0 && strcmp(df, "NC") != 0)
        return d2_raise(I, "ValueError",
                        "%s: data_format '%s' is not supported (channels first only)", fname, df);
    return d2_pd_batch_norm(I, fname, a[0], a[1], a[2], a[3], a[4], training, mom, eps, global);
}

d2_obj *d2_pd_layer_norm(d2_interp *I, const char *fname, d2_obj *x, d2_obj *nshape, d2_obj *w,
                         d2_obj *bias, double eps)
{
    int64_t ns[D2_MAX_DIMS];
    int n;
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    if (d2_pd_ints(I, nshape, fname, "normalized_shape", ns, &n, D2_MAX_DIMS) < 0)
        return NULL;
    const d2_shape *xs = &obj_type(x)->shape;
    if (n == 0 || n > xs->ndim)
        return d2_raise(I, "ValueError", "%s: normalized_shape has %d dims but x has %d", fname, n,
                        xs->ndim);
    for (int i = 0; i < n; i++) {
        int64_t d = xs->dims[xs->ndim - n + i];
        if (d >= 0 && d != ns[i])
            return d2_raise(I, "ValueError",
                            "%s: normalized_shape[%d] = %lld does not match x's dim %lld", fname, i,
                            (long long)ns[i], (long long)d);
    }
    d2_obj *fw = NULL, *fb = NULL, *r = NULL;
    int64_t total = 1;
    for (int i = 0; i < n; i++)
        total *= ns[i];
    /* scale and bias are flattened vectors */
    if (!is_none(I, w)) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_reshape);
        d2_ab_ints(&b, "shape", &total, 1);
        fw = is_tensor(w) && obj_type(w)->shape.ndim == 1 ? (d2_ab_free(&b), d2_incref(w))
                                                          : op1(I, fname, D2_OP_reshape, w, &b);
        if (!fw)
            return NULL;
    }
    if (!is_none(I, bias)) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_reshape);
        d2_ab_ints(&b, "shape", &total, 1);
        fb = is_tensor(bias) && obj_type(bias)->shape.ndim == 1
                 ? (d2_ab_free(&b), d2_incref(bias))
                 : op1(I, fname, D2_OP_reshape, bias, &b);
        if (!fb) {
            d2_decref(fw);
            return NULL;
        }
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_layer_norm);
    d2_ab_float(&b, "epsilon", eps);
    d2_ab_int(&b, "begin_norm_axis", xs->ndim - n);
    d2_obj *in[3] = {x, fw, fb};
    r = d2_pd_opn(I, fname, D2_OP_layer_norm, in, 3, &b);
    d2_decref(fw);
    d2_decref(fb);
    return r;
}

D2_FN(F_layer_norm)
{
    const char *fname = "paddle.nn.functional.layer_norm";
    double eps;
    if (d2_pd_get_float(I, a[4], fname, "epsilon", &eps) < 0)
        return NULL;
    return d2_pd_layer_norm(I, fname, a[0], a[1], a[2], a[3], eps);
}

d2_obj *d2_pd_embedding(d2_interp *I, const char *fname, d2_obj *ids, d2_obj *w,
                        d2_obj *padding_idx)
{
    if (!is_tensor(w))
        return d2_raise(I, "TypeError", "%s: weight must be a Tensor", fname);
    d2_ab b;
    d2_ab_init(&b, D2_OP_embedding);
    if (!is_none(I, padding_idx)) {
        int64_t p;
        if (d2_pd_get_int(I, padding_idx, fname, "padding_idx", &p) < 0) {
            d2_ab_free(&b);
            return NULL;
        }
        int64_t v = obj_type(w)->shape.dims[0];
        if (p < 0)
            p += v;
        d2_ab_int(&b, "padding_idx", p);
    }
    d2_obj *x = d2_pd_as_tensor(I, ids, -1, fname);
    if (!x) {
        d2_ab_free(&b);
        return NULL;
    }
    d2_obj *r = op2(I, fname, D2_OP_embedding, x, w, &b);
    d2_decref(x);
    return r;
}

D2_FN(F_embedding)
{
    const char *fname = "paddle.nn.functional.embedding";
    return d2_pd_embedding(I, fname, a[0], a[1], a[2]);
}

static d2_obj *dropout_impl(d2_interp *I, const char *fname, d2_obj *x, double p, bool training,
                            const char *mode)
{
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    if (!(p >= 0 && p <= 1))
        return d2_raise(I, "ValueError", "%s: p must be in [0, 1], got %g", fname, p);
    bool up = strcmp(mode, "upscale_in_train") == 0;
    if (!up && strcmp(mode, "downscale_in_infer") != 0)
        return d2_raise(I, "ValueError",
                        "%s: mode must be 'upscale_in_train' or 'downscale_in_infer', got '%s'",
                        fname, mode);
    d2_ab b;
    if (!training || p == 0) {
        /* inference semantics */
        d2_ab_init(&b, D2_OP_dropout);
        d2_ab_float(&b, "p", p);
        d2_ab_str(&b, "mode", mode);
        return op1(I, fname, D2_OP_dropout, x, &b);
    }
    if (!D2_MODE(I)->builder && !D2_MODE(I)->tracer && !is_sym(x)) {
        /* eager: Paddle's CPU mask, drawn on the host from paddle.seed's
         * generator (keep where a uniform float is >= p); x * mask */
        const d2_shape *xs = &obj_type(x)->shape;
        int64_t n = 1;
        for (int d = 0; d < xs->ndim; d++)
            n *= xs->dims[d];
        double *m = d2_malloc((size_t)n * sizeof *m + 1);
        if (!m)
            return nomem(I);
        for (int64_t i = 0; i < n; i++)
            m[i] = d2_mt64_canon_f(&ST(I)->rng) >= (float)p ? (up ? 1.0 / (1.0 - p) : 1.0)
                                                                : 0.0;
        d2_tensor *mt = d2_pd_host_from_doubles(I, obj_type(x)->dtype, xs->ndim, xs->dims, m);
        d2_free(m);
        d2_obj *mo = mt ? d2_pd_wrap_host(I, mt) : NULL;
        d2_obj *r = mo ? op2(I, fname, D2_OP_multiply, x, mo, NULL) : NULL;
        d2_decref(mo);
        return r;
    }
    /* training in a Program: a keep mask from a seed drawn from paddle.seed's
     * generator (a constant of the Program in static mode); the mask is an
     * output, so the gradient is dout * mask */
    d2_obj *seed = d2_pd_const_tensor(I, 0, (int64_t)(d2_mt64_next(&ST(I)->rng) >> 1), true,
                                      D2_I64);
    if (!seed)
        return NULL;
    d2_ab_init(&b, D2_OP_dropout_train);
    d2_ab_float(&b, "p", p);
    d2_ab_str(&b, "mode", mode);
    d2_obj *in[2] = {x, seed}, *outs[2] = {NULL, NULL};
    if (b.bad) {
        d2_ab_free(&b);
        d2_decref(seed);
        return d2_raise(I, "RuntimeError", "%s: internal error building attributes", fname);
    }
    int rc = d2_pd_apply_named(I, fname, D2_OP_dropout_train, in, 2, &b.a, outs, 2);
    d2_ab_free(&b);
    d2_decref(seed);
    if (rc < 0)
        return NULL;
    d2_decref(outs[1]);
    return outs[0];
}

/* The mask of a training dropout of x (0, or the kept scale): dropout_train's second output.
 * Reading it keeps the op a draw in clone(for_test=True) and saved inference models, as
 * Paddle's dropout along axes, built of uniform_random (no is_test), keeps drawing there. */
static d2_obj *train_mask(d2_interp *I, const char *fname, d2_obj *x, double p, const char *mode)
{
    d2_obj *seed = d2_pd_const_tensor(I, 0, (int64_t)(d2_mt64_next(&ST(I)->rng) >> 1), true,
                                      D2_I64);
    if (!seed)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_dropout_train);
    d2_ab_float(&b, "p", p);
    d2_ab_str(&b, "mode", mode);
    d2_obj *in[2] = {x, seed}, *outs[2] = {NULL, NULL};
    int rc = b.bad ? -1 : d2_pd_apply_named(I, fname, D2_OP_dropout_train, in, 2, &b.a, outs, 2);
    bool bad = b.bad;
    d2_ab_free(&b);
    d2_decref(seed);
    if (rc < 0)
        return bad ? d2_raise(I, "RuntimeError", "%s: internal error building attributes", fname)
                   : NULL;
    d2_decref(outs[0]);
    return outs[1];
}

/* dropout with Paddle's axis argument: in training one keep/drop draw per
 * index of the given axes, shared along the others (a mask of x's dims on
 * those axes and 1 elsewhere, broadcast); otherwise as dropout_impl. */
d2_obj *d2_pd_dropout(d2_interp *I, const char *fname, d2_obj *x, double p, bool training,
                      const char *mode, d2_obj *axis)
{
    if (is_none(I, axis) || !training || p == 0 || !is_tensor(x) || !(p >= 0 && p <= 1))
        return dropout_impl(I, fname, x, p, training, mode);
    int64_t axes[D2_MAX_DIMS];
    int na;
    if (d2_pd_ints(I, axis, fname, "axis", axes, &na, D2_MAX_DIMS) < 0)
        return NULL;
    const d2_shape *xs = &obj_type(x)->shape;
    int64_t md[D2_MAX_DIMS];
    for (int d = 0; d < xs->ndim; d++)
        md[d] = 1;
    for (int k = 0; k < na; k++) {
        /* Paddle takes no negative axes here */
        int64_t ax = axes[k];
        if (ax < 0 || ax >= xs->ndim)
            return d2_raise(I, "ValueError",
                            "%s: axis values must be in [0, %d) (the dims of x), got %lld", fname,
                            xs->ndim, (long long)ax);
        md[ax] = xs->dims[ax];
    }
    bool up = strcmp(mode, "upscale_in_train") == 0;
    if (!up && strcmp(mode, "downscale_in_infer") != 0)
        return dropout_impl(I, fname, x, p, training, mode); /* raises the mode error */
    if (D2_MODE(I)->builder || is_sym(x)) {
        /* static (to_static, or paddle.static.data's Program): the mask is dropout_train's
         * mask of ones shaped md, drawn on every run; where a dim is fed at run time (-1), or
         * no build is active, the ones are full_like of x cut to one index on the other axes */
        bool dynamic = !D2_MODE(I)->builder; /* full without inputs would run eagerly */
        for (int d = 0; d < xs->ndim; d++)
            dynamic |= md[d] < 0;
        d2_ab b;
        d2_obj *ones;
        if (dynamic) {
            int64_t cut[D2_MAX_DIMS], zero[D2_MAX_DIMS], one[D2_MAX_DIMS];
            int nc = 0;
            for (int d = 0; d < xs->ndim; d++)
                if (md[d] == 1 && xs->dims[d] != 1) {
                    cut[nc] = d;
                    zero[nc] = 0;
                    one[nc++] = 1;
                }
            d2_obj *cx = NULL;
            if (nc > 0) {
                d2_ab_init(&b, D2_OP_slice);
                d2_ab_ints(&b, "axes", cut, nc);
                d2_ab_ints(&b, "starts", zero, nc);
                d2_ab_ints(&b, "ends", one, nc);
                cx = d2_pd_opn(I, fname, D2_OP_slice, &x, 1, &b);
            } else {
                cx = d2_incref(x);
            }
            if (!cx)
                return NULL;
            d2_ab_init(&b, D2_OP_full_like);
            d2_ab_float(&b, "value", 1);
            ones = d2_pd_opn(I, fname, D2_OP_full_like, &cx, 1, &b);
            d2_decref(cx);
        } else {
            d2_ab_init(&b, D2_OP_full);
            d2_ab_ints(&b, "shape", md, xs->ndim);
            d2_ab_float(&b, "value", 1);
            d2_ab_int(&b, "dtype", obj_type(x)->dtype);
            ones = d2_pd_opn(I, fname, D2_OP_full, NULL, 0, &b);
        }
        d2_obj *mk = ones ? train_mask(I, fname, ones, p, mode) : NULL;
        d2_obj *r = mk ? op2(I, fname, D2_OP_multiply, x, mk, NULL) : NULL;
        d2_decref(ones);
        d2_decref(mk);
        return r;
    }
    int64_t n = 1;
    for (int d = 0; d < xs->ndim; d++)
        n *= md[d] > 0 ? md[d] : 0;
    double *m = d2_malloc((size_t)n * sizeof *m + 1);
    if (!m)
        return nomem(I);
    d2_mt64 *rng = &ST(I)->rng;
    for (int64_t i = 0; i < n; i++) {
        bool keep = d2_mt64_canon_f(rng) >= (float)p; /* Paddle's CPU dropout mask */
        m[i] = keep ? (up ? (p < 1 ? 1.0 / (1.0 - p) : 0) : 1.0) : 0.0;
    }
    d2_tensor *mt = d2_pd_host_from_doubles(I, obj_type(x)->dtype, xs->ndim, md, m);
    d2_free(m);
    d2_obj *mo = mt ? d2_pd_wrap_host(I, mt) : NULL;
    d2_obj *r = mo ? op2(I, fname, D2_OP_multiply, x, mo, NULL) : NULL;
    d2_decref(mo);
    return r;
}

D2_FN(F_dropout)
{
    const char *fname = "paddle.nn.functional.dropout";
    double p;
    bool training;
    const char *mode;
    if (d2_pd_get_float(I, a[1], fname, "p", &p) < 0 ||
        d2_pd_get_bool(I, a[3], fname, "training", &training) < 0 ||
        !(mode = d2_pd_get_str(I, a[4], fname, "mode")))
        return NULL;
    return d2_pd_dropout(I, fname, a[0], p, training, mode, a[2]);
}

D2_FN(F_relu6)
{
    const char *fname = "paddle.nn.functional.relu6";
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    d2_ab b;
    d2_ab_init(&b, D2_OP_clip);
    d2_ab_float(&b, "min", 0);
    d2_ab_float(&b, "max", 6);
    return op1(I, fname, D2_OP_clip, a[0], &b);
}

/* ---- composites: one_hot, normalize ---- */

D2_FN(F_one_hot)
{
    const char *fname = "paddle.nn.functional.one_hot";
    int64_t nc;
    if (d2_pd_get_int(I, a[1], fname, "num_classes", &nc) < 0)
        return NULL;
    if (nc <= 0)
        return d2_raise(I, "ValueError", "%s: num_classes must be positive, got %lld", fname,
                        (long long)nc);
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!x)
        return NULL;
    if (!d2_dtype_is_int(obj_type(x)->dtype)) {
        d2_decref(x);
        return d2_raise(I, "TypeError", "%s: x must be an int32/int64 tensor, got %s", fname,
                        dtname(obj_type(x)->dtype));
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_arange);
    d2_ab_float(&b, "end", (double)nc);
    d2_ab_int(&b, "dtype", obj_type(x)->dtype);
    d2_obj *classes = d2_pd_opn(I, fname, D2_OP_arange, NULL, 0, &b);
    int64_t last = -1;
    d2_ab_init(&b, D2_OP_unsqueeze);
    d2_ab_ints(&b, "axis", &last, 1);
    d2_obj *ux = classes ? op1(I, fname, D2_OP_unsqueeze, x, &b) : NULL;
    d2_obj *eq = ux ? op2(I, fname, D2_OP_equal, ux, classes, NULL) : NULL;
    d2_obj *r = eq ? d2_pd_cast_to(I, fname, eq, D2_F32) : NULL;
    d2_decref(x);
    d2_decref(classes);
    d2_decref(ux);
    d2_decref(eq);
    return r;
}

D2_FN(F_normalize)
{
    const char *fname = "paddle.nn.functional.normalize";
    double p, eps;
    int64_t axis;
    if (d2_pd_get_float(I, a[1], fname, "p", &p) < 0 ||
        d2_pd_get_int(I, a[2], fname, "axis", &axis) < 0 ||
        d2_pd_get_float(I, a[3], fname, "epsilon", &eps) < 0)
        return NULL;
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    d2_obj *nrm = x ? d2_pd_pnorm(I, fname, x, p, &axis, 1, true) : NULL;
    d2_obj *e = nrm ? d2_pd_const_tensor(I, eps, 0, false, obj_type(nrm)->dtype) : NULL;
    d2_obj *den = e ? op2(I, fname, D2_OP_maximum, nrm, e, NULL) : NULL;
    d2_obj *r = den ? op2(I, fname, D2_OP_divide, x, den, NULL) : NULL;
    d2_decref(x);
    d2_decref(nrm);
    d2_decref(e);
    d2_decref(den);
    return r;
}

/* ======================================================================
 * The rows
 * ====================================================================== */

static const d2_def FUNCTIONAL_DEFS[] = {
    D2_DEF("conv2d",
           "x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format='NCHW', "
           "name=None",
           F_conv2d, "paddle.nn.functional.conv2d"),
    D2_DEF("conv2d_transpose",
           "x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, "
           "data_format='NCHW', output_size=None, name=None",
           F_conv2d_transpose, "paddle.nn.functional.conv2d_transpose"),
    D2_DEF("max_pool2d",
           "x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False, "
           "data_format='NCHW', name=None",
           F_max_pool2d, "paddle.nn.functional.max_pool2d"),
    D2_DEF("avg_pool2d",
           "x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, "
           "divisor_override=None, data_format='NCHW', name=None",
           F_avg_pool2d, "paddle.nn.functional.avg_pool2d"),
    D2_DEF("adaptive_avg_pool2d", "x, output_size, data_format='NCHW', name=None",
           F_adaptive_avg_pool2d, "paddle.nn.functional.adaptive_avg_pool2d"),
    D2_DEF("adaptive_max_pool2d", "x, output_size, return_mask=False, name=None",
           F_adaptive_max_pool2d, "paddle.nn.functional.adaptive_max_pool2d"),
    D2_DEF("batch_norm",
           "x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9, "
           "epsilon=1e-05, data_format='NCHW', use_global_stats=None, name=None",
           F_batch_norm, "paddle.nn.functional.batch_norm"),
    D2_DEF("layer_norm", "x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None",
           F_layer_norm, "paddle.nn.functional.layer_norm"),
    D2_DEF("embedding", "x, weight, padding_idx=None, sparse=False, name=None", F_embedding,
           "paddle.nn.functional.embedding"),
    D2_DEF("dropout", "x, p=0.5, axis=None, training=True, mode='upscale_in_train', name=None",
           F_dropout, "paddle.nn.functional.dropout"),
    D2_DEF("relu6", "x, name=None", F_relu6, "paddle.nn.functional.relu6"),
    D2_DEF("one_hot", "x, num_classes, name=None", F_one_hot, "paddle.nn.functional.one_hot"),
    D2_DEF("normalize", "x, p=2, axis=1, epsilon=1e-12, name=None", F_normalize,
           "paddle.nn.functional.normalize"),
};

int d2_pd_functional_add(d2_interp *I, pd_state *s)
{
    return d2_module_add_defs(I, s->F, FUNCTIONAL_DEFS, D2_COUNTOF(FUNCTIONAL_DEFS));
}
