/* layers.c - the builtin layers: Linear, Conv2D, pooling, norms, Embedding, Dropout, Sequential. */
#include "lib/paddle/layers_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ======================================================================
 * Builtin layers
 * ====================================================================== */

/* Stores the constructor arguments a[0..] under the spec's names with a
 * leading underscore (Paddle's private attribute style). */
static int store_args(d2_interp *I, d2_obj *self, const char *spec, d2_obj **a, int n)
{
    for (int i = 0; i < n; i++) {
        char nb[40], key[48];
        if (!d2_pd_param_name(spec, i, nb, sizeof nb))
            break;
        snprintf(key, sizeof key, "_%s", nb);
        if (a[i] && iset(I, self, key, a[i]) < 0)
            return -1;
    }
    return 0;
}

/* Borrowed stored argument. */
static d2_obj *arg_of(d2_interp *I, d2_obj *self, const char *name)
{
    d2_obj *v = iget(I, self, name);
    return v ? v : I->none;
}

static bool layer_training(d2_interp *I, d2_obj *self)
{
    d2_obj *t = iget(I, self, "training");
    return !t || !is_number(t) || num_value(t) != 0;
}

/* Appends repr(o) to b; false with an exception pending. */
static bool repr_of(d2_interp *I, d2_buf *b, d2_obj *o)
{
    d2_obj *r = d2_repr(I, o);
    if (r)
        d2_buf_puts(b, D2_AS(d2_str, r)->s);
    d2_decref(r);
    return r != NULL;
}

static d2_obj *buf_result(d2_interp *I, d2_buf *b, bool ok)
{
    d2_obj *r = !ok ? NULL : b->oom ? nomem(I) : d2_str_new(I, b->data ? b->data : "", b->len);
    d2_buf_free(b);
    return r;
}

/* Applies act ('relu', 'sigmoid', 'tanh', 'softmax', None) after an old-style layer. */
static d2_obj *apply_act(d2_interp *I, const char *fname, d2_obj *x, d2_obj *act)
{
    if (!x || is_none(I, act))
        return x;
    const char *s = d2_pd_get_str(I, act, fname, "act");
    d2_obj *r = NULL;
    if (!s)
        r = NULL;
    else if (strcmp(s, "relu") == 0)
        r = op1(I, fname, D2_OP_relu, x, NULL);
    else if (strcmp(s, "sigmoid") == 0)
        r = op1(I, fname, D2_OP_sigmoid, x, NULL);
    else if (strcmp(s, "tanh") == 0)
        r = op1(I, fname, D2_OP_tanh, x, NULL);
    else if (strcmp(s, "softmax") == 0)
        r = op1(I, fname, D2_OP_softmax, x, NULL);
    else
        r = d2_raise(I, "ValueError", "%s: unsupported act '%s'", fname, s);
    d2_decref(x);
    return r;
}

/* ---- Linear ---- */

static d2_obj *linear_forward(d2_interp *I, const char *fname, d2_obj *self, d2_obj *x)
{
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *b = w ? d2_getattr(I, self, "bias") : NULL;
    d2_obj *r = NULL;
    if (b) {
        d2_obj *xt = d2_pd_as_tensor(I, x, -1, fname);
        if (xt) {
            d2_obj *in[3] = {xt, w, is_none(I, b) ? NULL : b};
            r = d2_pd_opn(I, fname, D2_OP_linear, in, 3, NULL);
        }
        d2_decref(xt);
    }
    d2_decref(w);
    d2_decref(b);
    return r;
}

D2_FN(Linear_init)
{
    const char *fname = "paddle.nn.Linear";
    int64_t in, out;
    if (d2_pd_get_int(I, a[0], fname, "in_features", &in) < 0 ||
        d2_pd_get_int(I, a[1], fname, "out_features", &out) < 0 ||
        d2_pd_layer_base_init(I, self) < 0)
        return NULL;
    int64_t ws[2] = {in, out};
    if (d2_pd_add_param(I, self, "weight", ws, 2, a[2], false, NULL) < 0 ||
        d2_pd_add_param(I, self, "bias", &out, 1, a[3], true, NULL) < 0 ||
        iset(I, self, "name", a[4]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(Linear_forward)
{
    return linear_forward(I, "paddle.nn.Linear", self, a[0]);
}

static d2_obj *Linear_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                 d2_dict *kw)
{
    SELF_ARG("Linear.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *w = d2_getattr(I, self, "weight");
    if (!w)
        return NULL;
    d2_obj *r;
    /* Paddle prints the layer's _dtype: the dtype argument, or what to()/astype() set */
    d2_obj *dt = iget(I, self, "_dtype");
    d2_obj *ds = dt ? d2_str_of(I, dt) : NULL;
    if (dt && !ds) {
        d2_decref(w);
        return NULL;
    }
    if (is_tensor(w) && obj_type(w)->shape.ndim == 2)
        r = d2_str_printf(I, "in_features=%lld, out_features=%lld, dtype=%s",
                          (long long)obj_type(w)->shape.dims[0],
                          (long long)obj_type(w)->shape.dims[1],
                          ds ? D2_AS(d2_str, ds)->s : dtname(obj_type(w)->dtype));
    else
        r = d2_str_from(I, "");
    d2_decref(ds);
    d2_decref(w);
    return r;
}

/* fluid.dygraph.Linear(input_dim, output_dim, param_attr, bias_attr, act, dtype) */
D2_FN(FLinear_init)
{
    const char *fname = "fluid.dygraph.Linear";
    int64_t in, out;
    if (d2_pd_get_int(I, a[0], fname, "input_dim", &in) < 0 ||
        d2_pd_get_int(I, a[1], fname, "output_dim", &out) < 0 ||
        d2_pd_layer_base_init(I, self) < 0 || iset(I, self, "_dtype", a[5]) < 0)
        return NULL;
    int64_t ws[2] = {in, out};
    if (d2_pd_add_param(I, self, "weight", ws, 2, a[2], false, NULL) < 0 ||
        d2_pd_add_param(I, self, "bias", &out, 1, a[3], true, NULL) < 0 ||
        iset(I, self, "_act", a[4]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(FLinear_forward)
{
    const char *fname = "fluid.dygraph.Linear";
    return apply_act(I, fname, linear_forward(I, fname, self, a[0]), arg_of(I, self, "_act"));
}

/* ---- Conv2D ---- */

static int conv_setup(d2_interp *I, d2_obj *self, const char *fname, int64_t in_ch, int64_t out_ch,
                      d2_obj *ksize, d2_obj *stride, d2_obj *padding, d2_obj *dilation,
                      int64_t groups, d2_obj *wattr, d2_obj *battr)
{
    int64_t ks[2], st[2], dil[2];
    if (d2_pd_pair_arg(I, ksize, fname, "kernel_size", ks) < 0 ||
        d2_pd_pair_arg(I, stride, fname, "stride", st) < 0 ||
        d2_pd_pair_arg(I, dilation, fname, "dilation", dil) < 0)
        return -1;
    if (groups <= 0 || in_ch % groups != 0 || out_ch % groups != 0) {
        d2_raise(
            I, "ValueError",
            "%s: in_channels (%lld) and out_channels (%lld) must be divisible by groups (%lld)",
            fname, (long long)in_ch, (long long)out_ch, (long long)groups);
        return -1;
    }
    d2_obj *ksl = d2_pd_shape_pylist(I, &(d2_shape){2, {ks[0], ks[1]}});
    d2_obj *stl = d2_pd_shape_pylist(I, &(d2_shape){2, {st[0], st[1]}});
    d2_obj *dil_l = d2_pd_shape_pylist(I, &(d2_shape){2, {dil[0], dil[1]}});
    d2_obj *ic = d2_int_new(I, in_ch), *oc = d2_int_new(I, out_ch), *g = d2_int_new(I, groups);
    int rc = (ksl && stl && dil_l && ic && oc && g && iset(I, self, "_kernel_size", ksl) == 0 &&
              iset(I, self, "_stride", stl) == 0 && iset(I, self, "_dilation", dil_l) == 0 &&
              iset(I, self, "_in_channels", ic) == 0 && iset(I, self, "_out_channels", oc) == 0 &&
              iset(I, self, "_groups", g) == 0 && iset(I, self, "_padding", padding) == 0)
                 ? 0
                 : -1;
    d2_decref(ksl);
    d2_decref(stl);
    d2_decref(dil_l);
    d2_decref(ic);
    d2_decref(oc);
    d2_decref(g);
    if (rc < 0)
        return -1;
    double std = sqrt(2.0 / (double)(ks[0] * ks[1] * in_ch));
    d2_obj *init = d2_pd_make_init(I, "normal", "mean", 0.0, "std", std);
    if (!init)
        return -1;
    int64_t ws[4] = {out_ch, in_ch / groups, ks[0], ks[1]};
    rc = d2_pd_add_param(I, self, "weight", ws, 4, wattr, false, init);
    d2_decref(init);
    if (rc < 0 || d2_pd_add_param(I, self, "bias", &out_ch, 1, battr, true, NULL) < 0)
        return -1;
    return 0;
}

static d2_obj *conv_forward(d2_interp *I, const char *fname, d2_obj *self, d2_obj *x)
{
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *b = w ? d2_getattr(I, self, "bias") : NULL;
    d2_obj *r = NULL;
    if (b) {
        d2_obj *dl = iget(I, self, "_dilation"), *g = iget(I, self, "_groups");
        r = d2_pd_conv2d(I, fname, x, w, b, arg_of(I, self, "_stride"), arg_of(I, self, "_padding"),
                         dl ? dl : I->none, g ? g : I->none);
    }
    d2_decref(w);
    d2_decref(b);
    return r;
}

D2_FN(Conv2D_init)
{
    const char *fname = "paddle.nn.Conv2D";
    int64_t in, out, g;
    if (d2_pd_get_int(I, a[0], fname, "in_channels", &in) < 0 ||
        d2_pd_get_int(I, a[1], fname, "out_channels", &out) < 0 ||
        d2_pd_get_int(I, a[6], fname, "groups", &g) < 0 || d2_pd_check_nchw(I, a[10], fname) < 0)
        return NULL;
    const char *pm = d2_pd_get_str(I, a[7], fname, "padding_mode");
    if (!pm)
        return NULL;
    if (strcmp(pm, "zeros") != 0)
        return d2_raise(I, "NotImplementedError",
                        "%s: padding_mode '%s' is not supported (zeros only)", fname, pm);
    if (d2_pd_layer_base_init(I, self) < 0 ||
        conv_setup(I, self, fname, in, out, a[2], a[3], a[4], a[5], g, a[8], a[9]) < 0 ||
        iset(I, self, "_padding_mode", a[7]) < 0 || iset(I, self, "_data_format", a[10]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(Conv2D_forward)
{
    return conv_forward(I, "paddle.nn.Conv2D", self, a[0]);
}

static d2_obj *Conv2D_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                 d2_dict *kw)
{
    SELF_ARG("Conv2D.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    bool ok = repr_of(I, &b, arg_of(I, self, "_in_channels"));
    d2_buf_puts(&b, ", ");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_out_channels"));
    d2_buf_puts(&b, ", kernel_size=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_kernel_size"));
    d2_obj *st = arg_of(I, self, "_stride");
    if (ok && st->kind == D2_OBJ_LIST &&
        !(D2_AS(d2_list, st)->n == 2 && num_value(D2_AS(d2_list, st)->items[0]) == 1 &&
          num_value(D2_AS(d2_list, st)->items[1]) == 1)) {
        d2_buf_puts(&b, ", stride=");
        ok = repr_of(I, &b, st);
    }
    d2_obj *pad = arg_of(I, self, "_padding");
    if (ok && !(is_int(pad) && D2_AS(d2_int, pad)->v == 0)) {
        d2_buf_puts(&b, ", padding=");
        ok = repr_of(I, &b, pad);
    }
    d2_obj *dil = arg_of(I, self, "_dilation");
    if (ok && dil->kind == D2_OBJ_LIST &&
        !(D2_AS(d2_list, dil)->n == 2 && num_value(D2_AS(d2_list, dil)->items[0]) == 1 &&
          num_value(D2_AS(d2_list, dil)->items[1]) == 1)) {
        d2_buf_puts(&b, ", dilation=");
        ok = repr_of(I, &b, dil);
    }
    d2_obj *g = arg_of(I, self, "_groups");
    if (ok && is_int(g) && D2_AS(d2_int, g)->v != 1)
        d2_buf_printf(&b, ", groups=%lld", (long long)D2_AS(d2_int, g)->v);
    d2_buf_puts(&b, ", data_format=NCHW");
    return buf_result(I, &b, ok);
}

/* fluid.dygraph.Conv2D(num_channels, num_filters, filter_size, ...) */
D2_FN(FConv2D_init)
{
    const char *fname = "fluid.dygraph.Conv2D";
    int64_t in, out, g = 1;
    if (d2_pd_get_int(I, a[0], fname, "num_channels", &in) < 0 ||
        d2_pd_get_int(I, a[1], fname, "num_filters", &out) < 0 ||
        (!is_none(I, a[6]) && d2_pd_get_int(I, a[6], fname, "groups", &g) < 0))
        return NULL;
    if (d2_pd_layer_base_init(I, self) < 0 || iset(I, self, "_dtype", a[11]) < 0 ||
        conv_setup(I, self, fname, in, out, a[2], a[3], a[4], a[5], g, a[7], a[8]) < 0 ||
        iset(I, self, "_act", a[10]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(FConv2D_forward)
{
    const char *fname = "fluid.dygraph.Conv2D";
    return apply_act(I, fname, conv_forward(I, fname, self, a[0]), arg_of(I, self, "_act"));
}

/* ---- pooling ---- */

#define POOL_SPEC_MAX                                                                              \
    "kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False, "                    \
    "data_format='NCHW', "                                                                         \
    "name=None"
#define POOL_SPEC_AVG                                                                              \
    "kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, "                       \
    "divisor_override=None, "                                                                      \
    "data_format='NCHW', name=None"

/* MaxPool2D / AvgPool2D.__init__: stores the arguments (def->sig). */
D2_FN(pool_init)
{
    if (d2_pd_layer_base_init(I, self) < 0 || store_args(I, self, def->sig, a, 8) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *pool_forward(d2_interp *I, d2_obj *self, d2_obj **a, bool max)
{
    const char *fname = max ? "paddle.nn.MaxPool2D" : "paddle.nn.AvgPool2D";
    bool ceil_mode = false, excl = true, want_mask = false;
    if (d2_pd_get_bool(I, arg_of(I, self, "_ceil_mode"), fname, "ceil_mode", &ceil_mode) < 0 ||
        (!max && d2_pd_get_bool(I, arg_of(I, self, "_exclusive"), fname, "exclusive", &excl) < 0) ||
        (max &&
         d2_pd_get_bool(I, arg_of(I, self, "_return_mask"), fname, "return_mask", &want_mask) < 0))
        return NULL;
    d2_obj *pad = iget(I, self, "_padding");
    d2_obj *zero = d2_int_new(I, 0);
    d2_obj *r =
        !zero ? NULL
        : max ? d2_pd_max_pool2d(I, fname, a[0], arg_of(I, self, "_kernel_size"),
                                 arg_of(I, self, "_stride"), pad ? pad : zero, ceil_mode, want_mask)
              : d2_pd_pool2d(I, fname, a[0], "avg", arg_of(I, self, "_kernel_size"),
                             arg_of(I, self, "_stride"), pad ? pad : zero, ceil_mode, excl, false);
    d2_decref(zero);
    return r;
}

D2_FN(MaxPool2D_forward)
{
    return pool_forward(I, self, a, true);
}

D2_FN(AvgPool2D_forward)
{
    return pool_forward(I, self, a, false);
}

static d2_obj *Pool_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Pool2D.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "kernel_size=");
    bool ok = repr_of(I, &b, arg_of(I, self, "_kernel_size"));
    d2_buf_puts(&b, ", stride=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_stride"));
    d2_buf_puts(&b, ", padding=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_padding"));
    return buf_result(I, &b, ok);
}

D2_FN(AdaptivePool_init)
{
    if (d2_pd_layer_base_init(I, self) < 0 || iset(I, self, "_output_size", a[0]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(AdaptiveMaxPool_init)
{
    if (d2_pd_layer_base_init(I, self) < 0 || iset(I, self, "_output_size", a[0]) < 0 ||
        iset(I, self, "_return_mask", a[1]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(AdaptiveAvg_forward)
{
    return d2_pd_pool2d(I, "paddle.nn.AdaptiveAvgPool2D", a[0], "avg",
                        arg_of(I, self, "_output_size"), NULL, NULL, false, true, true);
}

D2_FN(AdaptiveMax_forward)
{
    const char *fname = "paddle.nn.AdaptiveMaxPool2D";
    d2_obj *rm = arg_of(I, self, "_return_mask");
    bool mask = false;
    if (rm && d2_pd_get_bool(I, rm, fname, "return_mask", &mask) < 0)
        return NULL;
    if (mask)
        return d2_pd_adaptive_max_mask(I, fname, a[0], arg_of(I, self, "_output_size"));
    return d2_pd_pool2d(I, fname, a[0], "max", arg_of(I, self, "_output_size"), NULL, NULL, false,
                        true, true);
}

static d2_obj *Adaptive_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                   d2_dict *kw)
{
    SELF_ARG("AdaptivePool2D.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "output_size=");
    return buf_result(I, &b, repr_of(I, &b, arg_of(I, self, "_output_size")));
}

/* fluid.dygraph.Pool2D(pool_size, pool_type, pool_stride, pool_padding, global_pooling, ...) */
D2_FN(FPool2D_init)
{
    const char *t = d2_pd_get_str(I, a[1], "fluid.dygraph.Pool2D", "pool_type");
    if (!t)
        return NULL;
    if (strcmp(t, "max") != 0 && strcmp(t, "avg") != 0)
        return d2_raise(I, "ValueError",
                        "fluid.dygraph.Pool2D: pool_type must be 'max' or 'avg', got '%s'", t);
    if (d2_pd_layer_base_init(I, self) < 0 || store_args(I, self, def->sig, a, 9) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(FPool2D_forward)
{
    const char *fname = "fluid.dygraph.Pool2D";
    bool global, ceil_mode, excl;
    d2_obj *gp = arg_of(I, self, "_global_pooling");
    if (d2_pd_get_bool(I, gp, fname, "global_pooling", &global) < 0 ||
        d2_pd_get_bool(I, arg_of(I, self, "_ceil_mode"), fname, "ceil_mode", &ceil_mode) < 0 ||
        d2_pd_get_bool(I, arg_of(I, self, "_exclusive"), fname, "exclusive", &excl) < 0)
        return NULL;
    const char *type = D2_AS(d2_str, arg_of(I, self, "_pool_type"))->s;
    if (global) {
        d2_obj *one = d2_int_new(I, 1);
        d2_obj *r =
            one ? d2_pd_pool2d(I, fname, a[0], type, one, NULL, NULL, false, true, true) : NULL;
        d2_decref(one);
        return r;
    }
    return d2_pd_pool2d(I, fname, a[0], type, arg_of(I, self, "_pool_size"),
                        arg_of(I, self, "_pool_stride"), arg_of(I, self, "_pool_padding"),
                        ceil_mode, excl, false);
}

/* ---- normalisation ---- */

static int bn_params(d2_interp *I, d2_obj *self, int64_t c, d2_obj *wattr, d2_obj *battr,
                     d2_obj *mean_name, d2_obj *var_name)
{
    d2_obj *one = d2_pd_make_init(I, "constant", "value", 1.0, NULL, 0);
    if (!one)
        return -1;
    int rc = d2_pd_add_param(I, self, "weight", &c, 1, wattr, false, one);
    d2_decref(one);
    if (rc < 0 || d2_pd_add_param(I, self, "bias", &c, 1, battr, true, NULL) < 0)
        return -1;
    /* running statistics: parameters that do not train */
    d2_obj *zi = d2_pd_make_init(I, "constant", "value", 0.0, NULL, 0);
    d2_obj *oi = zi ? d2_pd_make_init(I, "constant", "value", 1.0, NULL, 0) : NULL;
    d2_obj *pa0 = oi ? d2_instance_new(I, ST(I)->param_attr_cls) : NULL;
    d2_obj *pa1 = pa0 ? d2_instance_new(I, ST(I)->param_attr_cls) : NULL;
    rc = -1;
    if (pa1 && iset(I, pa0, "name", mean_name ? mean_name : I->none) == 0 &&
        iset(I, pa0, "initializer", zi) == 0 && iset(I, pa0, "trainable", I->false_) == 0 &&
        iset(I, pa1, "name", var_name ? var_name : I->none) == 0 &&
        iset(I, pa1, "initializer", oi) == 0 && iset(I, pa1, "trainable", I->false_) == 0 &&
        d2_pd_add_param(I, self, "_mean", &c, 1, pa0, false, NULL) == 0 &&
        d2_pd_add_param(I, self, "_variance", &c, 1, pa1, false, NULL) == 0)
        rc = 0;
    d2_decref(zi);
    d2_decref(oi);
    d2_decref(pa0);
    d2_decref(pa1);
    return rc;
}

D2_FN(BatchNormND_init)
{
    const char *fname = "paddle.nn.BatchNorm2D";
    int64_t c;
    if (d2_pd_get_int(I, a[0], fname, "num_features", &c) < 0 ||
        d2_pd_layer_base_init(I, self) < 0 || store_args(I, self, def->sig, a, 8) < 0 ||
        bn_params(I, self, c, a[3], a[4], NULL, NULL) < 0)
        return NULL;
    return d2_none(I);
}

/* paddle.nn.BatchNorm / fluid.dygraph.BatchNorm (num_channels, act, is_test, ...) */
D2_FN(BatchNorm_init)
{
    const char *fname = "paddle.nn.BatchNorm";
    int64_t c;
    if (d2_pd_get_int(I, a[0], fname, "num_channels", &c) < 0 ||
        d2_pd_layer_base_init(I, self) < 0 || iset(I, self, "_dtype", a[7]) < 0 ||
        store_args(I, self, def->sig, a, 15) < 0 ||
        bn_params(I, self, c, a[5], a[6], is_none(I, a[10]) ? NULL : a[10],
                  is_none(I, a[11]) ? NULL : a[11]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *bn_forward(d2_interp *I, d2_obj *self, d2_obj *x, const char *fname, bool old)
{
    double mom, eps;
    bool global = false, is_test = false;
    if (d2_pd_get_float(I, arg_of(I, self, "_momentum"), fname, "momentum", &mom) < 0 ||
        d2_pd_get_float(I, arg_of(I, self, "_epsilon"), fname, "epsilon", &eps) < 0)
        return NULL;
    d2_obj *ug = arg_of(I, self, "_use_global_stats");
    if (!is_none(I, ug) && d2_pd_get_bool(I, ug, fname, "use_global_stats", &global) < 0)
        return NULL;
    if (old && d2_pd_get_bool(I, arg_of(I, self, "_is_test"), fname, "is_test", &is_test) < 0)
        return NULL;
    bool training = layer_training(I, self) && !is_test;
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: input must be a Tensor, got %s", fname,
                        d2_type_name(x));
    int nd = obj_type(x)->shape.ndim;
    if (nd < 2 || nd > 5)
        return d2_raise(I, "ValueError", "%s: expected a 2-D to 5-D input, got %d-D", fname, nd);
    /* channels last (NLC, NHWC, NDHWC): normalise a transposed copy */
    bool last = false;
    if (!old) {
        d2_obj *df = arg_of(I, self, "_data_format");
        const char *f = is_none(I, df) ? "NCHW" : d2_pd_get_str(I, df, fname, "data_format");
        if (!f)
            return NULL;
        size_t fl = strlen(f);
        last = fl > 2 && f[0] == 'N' && f[fl - 1] == 'C';
        if (!last && !(fl >= 2 && f[0] == 'N' && f[1] == 'C'))
            return d2_raise(I, "ValueError", "%s: data_format '%s' is not supported", fname, f);
        /* as Paddle, the 1-D layouts read as their 2-D names from the first call */
        if (strcmp(f, "NC") == 0 || strcmp(f, "NCL") == 0 || strcmp(f, "NLC") == 0) {
            d2_obj *nf = d2_str_from(I, last ? "NHWC" : "NCHW");
            if (!nf || iset(I, self, "_data_format", nf) < 0) {
                d2_decref(nf);
                return NULL;
            }
            d2_decref(nf);
        }
    }
    int64_t to_first[D2_MAX_DIMS], to_last[D2_MAX_DIMS];
    to_first[0] = to_last[0] = 0;
    to_first[1] = nd - 1;
    to_last[nd - 1] = 1;
    for (int d = 2; d < nd; d++) {
        to_first[d] = d - 1;
        to_last[d - 1] = d;
    }
    d2_obj *xt = d2_incref(x);
    if (last && nd > 2) {
        d2_ab tb;
        d2_ab_init(&tb, D2_OP_transpose);
        d2_ab_ints(&tb, "perm", to_first, nd);
        d2_setref(&xt, op1(I, fname, D2_OP_transpose, x, &tb));
        if (!xt)
            return NULL;
    }
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *b = w ? d2_getattr(I, self, "bias") : NULL;
    d2_obj *m = b ? d2_getattr(I, self, "_mean") : NULL;
    d2_obj *v = m ? d2_getattr(I, self, "_variance") : NULL;
    d2_obj *r = v ? d2_pd_batch_norm(I, fname, xt, m, v, w, b, training, mom, eps, global) : NULL;
    d2_decref(xt);
    if (r && last && nd > 2) {
        d2_ab tb;
        d2_ab_init(&tb, D2_OP_transpose);
        d2_ab_ints(&tb, "perm", to_last, nd);
        d2_obj *rt = op1(I, fname, D2_OP_transpose, r, &tb);
        d2_decref(r);
        r = rt;
    }
    d2_decref(w);
    d2_decref(b);
    d2_decref(m);
    d2_decref(v);
    if (old)
        r = apply_act(I, fname, r, arg_of(I, self, "_act"));
    return r;
}

D2_FN(BatchNormND_forward)
{
    return bn_forward(I, self, a[0], "paddle.nn.BatchNorm2D", false);
}

D2_FN(BatchNorm_forward)
{
    return bn_forward(I, self, a[0], "paddle.nn.BatchNorm", true);
}

static d2_obj *BatchNormND_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                      d2_dict *kw)
{
    SELF_ARG("BatchNorm2D.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "num_features=");
    bool ok = repr_of(I, &b, arg_of(I, self, "_num_features"));
    d2_buf_puts(&b, ", momentum=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_momentum"));
    d2_buf_puts(&b, ", epsilon=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_epsilon"));
    d2_obj *df = arg_of(I, self, "_data_format");
    if (df && df->kind == D2_OBJ_STR && strcmp(D2_AS(d2_str, df)->s, "NCHW") != 0)
        d2_buf_printf(&b, ", data_format=%s", D2_AS(d2_str, df)->s);
    return buf_result(I, &b, ok);
}

D2_FN(LayerNorm_init)
{
    const char *fname = "paddle.nn.LayerNorm";
    int64_t ns[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, a[0], fname, "normalized_shape", ns, &n, D2_MAX_DIMS) < 0)
        return NULL;
    int64_t total = 1;
    for (int i = 0; i < n; i++)
        total *= ns[i];
    d2_obj *nsl = d2_pd_shape_pylist(I, &(d2_shape){n, {0}});
    if (!nsl)
        return NULL;
    for (int i = 0; i < n; i++) {
        d2_obj *v = d2_int_new(I, ns[i]);
        d2_setref(&D2_AS(d2_list, nsl)->items[i], v);
    }
    d2_obj *one = d2_pd_make_init(I, "constant", "value", 1.0, NULL, 0);
    int rc = one && d2_pd_layer_base_init(I, self) == 0 &&
                     iset(I, self, "_normalized_shape", nsl) == 0 &&
                     iset(I, self, "_epsilon", a[1]) == 0 &&
                     d2_pd_add_param(I, self, "weight", &total, 1, a[2], false, one) == 0 &&
                     d2_pd_add_param(I, self, "bias", &total, 1, a[3], true, NULL) == 0
                 ? 0
                 : -1;
    d2_decref(one);
    d2_decref(nsl);
    return rc < 0 ? NULL : d2_none(I);
}

D2_FN(LayerNorm_forward)
{
    const char *fname = "paddle.nn.LayerNorm";
    double eps;
    if (d2_pd_get_float(I, arg_of(I, self, "_epsilon"), fname, "epsilon", &eps) < 0)
        return NULL;
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *b = w ? d2_getattr(I, self, "bias") : NULL;
    d2_obj *r =
        b ? d2_pd_layer_norm(I, fname, a[0], arg_of(I, self, "_normalized_shape"), w, b, eps)
          : NULL;
    d2_decref(w);
    d2_decref(b);
    return r;
}

static d2_obj *LayerNorm_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                    d2_dict *kw)
{
    SELF_ARG("LayerNorm.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "normalized_shape=");
    bool ok = repr_of(I, &b, arg_of(I, self, "_normalized_shape"));
    d2_buf_puts(&b, ", epsilon=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_epsilon"));
    return buf_result(I, &b, ok);
}

/* ---- Embedding ---- */

D2_FN(Embedding_init)
{
    const char *fname = "paddle.nn.Embedding";
    int64_t v, d;
    if (d2_pd_get_int(I, a[0], fname, "num_embeddings", &v) < 0 ||
        d2_pd_get_int(I, a[1], fname, "embedding_dim", &d) < 0)
        return NULL;
    d2_obj *pad = a[2];
    if (!is_none(I, pad)) {
        int64_t p;
        if (d2_pd_get_int(I, pad, fname, "padding_idx", &p) < 0)
            return NULL;
        if (p >= v || p < -v)
            return d2_raise(I, "ValueError", "%s: padding_idx must be within [-%lld, %lld)", fname,
                            (long long)v, (long long)v);
    }
    /* kept as given (Paddle's repr shows it so); the lookup counts a negative one from the end */
    int64_t ws[2] = {v, d};
    int rc = d2_pd_layer_base_init(I, self) == 0 && iset(I, self, "_num_embeddings", a[0]) == 0 &&
                     iset(I, self, "_embedding_dim", a[1]) == 0 &&
                     iset(I, self, "_padding_idx", pad) == 0 &&
                     iset(I, self, "_sparse", a[3]) == 0 &&
                     d2_pd_add_param(I, self, "weight", ws, 2, a[4], false, NULL) == 0
                 ? 0
                 : -1;
    return rc < 0 ? NULL : d2_none(I);
}

D2_FN(Embedding_forward)
{
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *r =
        w ? d2_pd_embedding(I, "paddle.nn.Embedding", a[0], w, arg_of(I, self, "_padding_idx"))
          : NULL;
    d2_decref(w);
    return r;
}

static d2_obj *Embedding_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                    d2_dict *kw)
{
    SELF_ARG("Embedding.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    bool ok = repr_of(I, &b, arg_of(I, self, "_num_embeddings"));
    d2_buf_puts(&b, ", ");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_embedding_dim"));
    d2_obj *p = arg_of(I, self, "_padding_idx");
    if (ok && !is_none(I, p)) {
        d2_buf_puts(&b, ", padding_idx=");
        ok = repr_of(I, &b, p);
    }
    d2_buf_puts(&b, ", sparse=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_sparse"));
    return buf_result(I, &b, ok);
}

/* fluid.dygraph.Embedding(size, is_sparse, is_distributed, padding_idx, param_attr, dtype) */
D2_FN(FEmbedding_init)
{
    const char *fname = "fluid.dygraph.Embedding";
    int64_t sz[2];
    if (d2_pd_pair_arg(I, a[0], fname, "size", sz) < 0)
        return NULL;
    d2_obj *padv = NULL;
    if (!is_none(I, a[3])) {
        int64_t p;
        if (d2_pd_get_int(I, a[3], fname, "padding_idx", &p) < 0)
            return NULL;
        padv = d2_int_new(I, p < 0 ? p + sz[0] : p);
        if (!padv)
            return NULL;
    }
    d2_obj *v = d2_int_new(I, sz[0]), *d = d2_int_new(I, sz[1]);
    int rc = v && d && d2_pd_layer_base_init(I, self) == 0 && iset(I, self, "_dtype", a[5]) == 0 &&
                     iset(I, self, "_num_embeddings", v) == 0 &&
                     iset(I, self, "_embedding_dim", d) == 0 &&
                     iset(I, self, "_padding_idx", padv ? padv : I->none) == 0 &&
                     iset(I, self, "_sparse", a[1]) == 0 &&
                     d2_pd_add_param(I, self, "weight", sz, 2, a[4], false, NULL) == 0
                 ? 0
                 : -1;
    d2_decref(v);
    d2_decref(d);
    d2_decref(padv);
    return rc < 0 ? NULL : d2_none(I);
}

/* ---- Dropout ---- */

D2_FN(Dropout_init)
{
    if (d2_pd_layer_base_init(I, self) < 0 || iset(I, self, "p", a[0]) < 0 ||
        iset(I, self, "axis", a[1]) < 0 || iset(I, self, "mode", a[2]) < 0 ||
        iset(I, self, "name", a[3]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(Dropout_forward)
{
    const char *fname = "paddle.nn.Dropout";
    double p;
    const char *mode;
    if (d2_pd_get_float(I, arg_of(I, self, "p"), fname, "p", &p) < 0 ||
        !(mode = d2_pd_get_str(I, arg_of(I, self, "mode"), fname, "mode")))
        return NULL;
    return d2_pd_dropout(I, fname, a[0], p, layer_training(I, self), mode, arg_of(I, self, "axis"));
}

static d2_obj *Dropout_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                  d2_dict *kw)
{
    SELF_ARG("Dropout.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "p=");
    bool ok = repr_of(I, &b, arg_of(I, self, "p"));
    d2_buf_puts(&b, ", axis=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "axis"));
    d2_obj *m = arg_of(I, self, "mode");
    d2_buf_printf(&b, ", mode=%s", m->kind == D2_OBJ_STR ? D2_AS(d2_str, m)->s : "?");
    d2_obj *n = arg_of(I, self, "name");
    if (!is_none(I, n) && n->kind == D2_OBJ_STR)
        d2_buf_printf(&b, ", name=%s", D2_AS(d2_str, n)->s);
    return buf_result(I, &b, ok);
}

/* fluid.dygraph.Dropout(p, seed, dropout_implementation, is_test) */
D2_FN(FDropout_init)
{
    const char *impl = d2_pd_get_str(I, a[2], "fluid.dygraph.Dropout", "dropout_implementation");
    if (!impl)
        return NULL;
    d2_obj *mode = d2_str_from(I, strcmp(impl, "upscale_in_train") == 0 ? "upscale_in_train"
                                                                        : "downscale_in_infer");
    int rc = mode && d2_pd_layer_base_init(I, self) == 0 && iset(I, self, "p", a[0]) == 0 &&
                     iset(I, self, "axis", I->none) == 0 && iset(I, self, "mode", mode) == 0 &&
                     iset(I, self, "name", I->none) == 0
                 ? 0
                 : -1;
    d2_decref(mode);
    if (rc == 0 && is_number(a[3]) && num_value(a[3]) != 0)
        rc = iset(I, self, "training", I->false_);
    return rc < 0 ? NULL : d2_none(I);
}

/* ---- activations and other stateless layers ----
 * X(class, functional implementation, __init__ spec, stored args shown by extra_repr) */
static d2_obj *act_apply(d2_interp *I, const char *cls, d2_obj *self, d2_obj *x);

#define ACT_LAYERS(X)                                                                              \
    X(ReLU, "name=None", "")                                                                       \
    X(ReLU6, "name=None", "")                                                                      \
    X(Sigmoid, "name=None", "")                                                                    \
    X(Tanh, "name=None", "")                                                                       \
    X(SiLU, "name=None", "")                                                                       \
    X(Identity, "*args, **kwargs", "")                                                             \
    X(GELU, "approximate=False, name=None", "approximate")                                         \
    X(Softmax, "axis=-1, name=None", "axis")                                                       \
    X(LogSoftmax, "axis=-1, name=None", "axis")                                                    \
    X(LeakyReLU, "negative_slope=0.01, name=None", "negative_slope")                               \
    X(Flatten, "start_axis=1, stop_axis=-1", "")

/* __init__ and forward of every activation layer: def->data is the class. */
D2_FN(act_init)
{
    if (d2_pd_layer_base_init(I, self) < 0)
        return NULL;
    if (strcmp(def->data, "Identity") != 0 && store_args(I, self, def->sig, a, 4) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(act_forward)
{
    return act_apply(I, def->data, self, a[0]);
}

#define X(c, spec, shown)                                                                          \
    static const d2_def ACT_DEFS_##c[] = {                                                         \
        D2_DEF_DATA("__init__", spec, act_init, "paddle.nn." #c, #c),                              \
        D2_DEF_DATA("forward", "x", act_forward, #c ".forward", #c),                               \
    };                                                                                             \
    static d2_obj *A_repr_##c(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,             \
                              d2_dict *kw)                                                         \
    {                                                                                              \
        SELF_ARG(#c ".extra_repr");                                                                \
        D2_UNUSED(args);                                                                           \
        D2_UNUSED(kw);                                                                             \
        if (!(shown)[0])                                                                           \
            return d2_str_from(I, "");                                                             \
        d2_buf b;                                                                                  \
        d2_buf_init(&b);                                                                           \
        d2_buf_puts(&b, shown "=");                                                                \
        return buf_result(I, &b, repr_of(I, &b, arg_of(I, self, "_" shown)));                      \
    }
ACT_LAYERS(X)
#undef X

static d2_obj *act_apply(d2_interp *I, const char *cls, d2_obj *self, d2_obj *x)
{
    char fname[64];
    snprintf(fname, sizeof fname, "paddle.nn.%s", cls);
    if (strcmp(cls, "Identity") == 0)
        return d2_incref(x);
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: input must be a Tensor, got %s", fname,
                        d2_type_name(x));
    d2_ab b;
    if (strcmp(cls, "ReLU") == 0)
        return op1(I, fname, D2_OP_relu, x, NULL);
    if (strcmp(cls, "Sigmoid") == 0)
        return op1(I, fname, D2_OP_sigmoid, x, NULL);
    if (strcmp(cls, "Tanh") == 0)
        return op1(I, fname, D2_OP_tanh, x, NULL);
    if (strcmp(cls, "SiLU") == 0)
        return op1(I, fname, D2_OP_silu, x, NULL);
    if (strcmp(cls, "ReLU6") == 0) {
        d2_ab_init(&b, D2_OP_clip);
        d2_ab_float(&b, "min", 0);
        d2_ab_float(&b, "max", 6);
        return op1(I, fname, D2_OP_clip, x, &b);
    }
    if (strcmp(cls, "GELU") == 0) {
        bool ap;
        if (d2_pd_get_bool(I, arg_of(I, self, "_approximate"), fname, "approximate", &ap) < 0)
            return NULL;
        d2_ab_init(&b, D2_OP_gelu);
        d2_ab_bool(&b, "approximate", ap);
        return op1(I, fname, D2_OP_gelu, x, &b);
    }
    if (strcmp(cls, "Softmax") == 0 || strcmp(cls, "LogSoftmax") == 0) {
        int64_t ax;
        if (d2_pd_get_int(I, arg_of(I, self, "_axis"), fname, "axis", &ax) < 0)
            return NULL;
        d2_op_id op = cls[0] == 'S' ? D2_OP_softmax : D2_OP_log_softmax;
        d2_ab_init(&b, op);
        d2_ab_int(&b, "axis", ax);
        return op1(I, fname, op, x, &b);
    }
    if (strcmp(cls, "LeakyReLU") == 0) {
        double s;
        if (d2_pd_get_float(I, arg_of(I, self, "_negative_slope"), fname, "negative_slope", &s) < 0)
            return NULL;
        d2_ab_init(&b, D2_OP_leaky_relu);
        d2_ab_float(&b, "negative_slope", s);
        return op1(I, fname, D2_OP_leaky_relu, x, &b);
    }
    if (strcmp(cls, "Flatten") == 0) {
        int64_t s, e;
        if (d2_pd_get_int(I, arg_of(I, self, "_start_axis"), fname, "start_axis", &s) < 0 ||
            d2_pd_get_int(I, arg_of(I, self, "_stop_axis"), fname, "stop_axis", &e) < 0)
            return NULL;
        d2_ab_init(&b, D2_OP_flatten);
        d2_ab_int(&b, "start_axis", s);
        d2_ab_int(&b, "stop_axis", e);
        return op1(I, fname, D2_OP_flatten, x, &b);
    }
    return d2_raise(I, "RuntimeError", "internal: unknown activation layer %s", cls);
}

/* ---- containers: Sequential and LayerList ---- */

static d2_obj *sub_values(d2_interp *I, d2_obj *self)
{
    d2_obj *l = d2_list_new(I, 0);
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    for (size_t i = 0; l && subs && i < subs->n; i++)
        if (subs->entries[i].key && d2_list_append(I, l, subs->entries[i].value) < 0)
            d2_setref(&l, NULL);
    return l;
}

static d2_obj *Sequential_init(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Sequential.__init__");
    D2_UNUSED(kw);
    if (d2_pd_layer_base_init(I, self) < 0)
        return NULL;
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    if (nargs > 0 && is_seq(args[0])) {
        for (size_t i = 0; i < nargs; i++) {
            if (!is_seq(args[i]) || seq_len(args[i]) != 2 ||
                seq_item(args[i], 0)->kind != D2_OBJ_STR)
                return d2_raise(I, "TypeError",
                                "Sequential: named layers must be (name, layer) pairs");
            if (!d2_pd_is_layer(I, seq_item(args[i], 1)))
                return d2_raise(I, "TypeError", "Sequential: %s is not a Layer",
                                d2_type_name(seq_item(args[i], 1)));
            if (d2_dict_set(I, subs, seq_item(args[i], 0), seq_item(args[i], 1)) < 0)
                return NULL;
        }
        return d2_none(I);
    }
    for (size_t i = 0; i < nargs; i++) {
        if (!d2_pd_is_layer(I, args[i]))
            return d2_raise(I, "TypeError", "Sequential: argument %zu is not a Layer (got %s)", i,
                            d2_type_name(args[i]));
        char key[32];
        snprintf(key, sizeof key, "%zu", i);
        if (d2_dict_set_str(I, subs, key, args[i]) < 0)
            return NULL;
    }
    return d2_none(I);
}

D2_FN(Sequential_forward)
{
    d2_obj *vals = sub_values(I, self);
    if (!vals)
        return NULL;
    d2_obj *x = d2_incref(a[0]);
    for (size_t i = 0; x && i < D2_AS(d2_list, vals)->n; i++) {
        d2_obj *l = D2_AS(d2_list, vals)->items[i];
        if (is_none(I, l))
            continue;
        d2_obj *y = d2_call(I, l, &x, 1, NULL);
        d2_decref(x);
        x = y;
    }
    d2_decref(vals);
    return x;
}

/* Index into the ordered sublayers: ints (negative from the end), strings
 * (Sequential), slices (a new container of the same class). */
static d2_obj *container_getitem(d2_interp *I, d2_obj *self, d2_obj *key, const char *cls)
{
    d2_obj *vals = sub_values(I, self);
    if (!vals)
        return NULL;
    int64_t n = (int64_t)D2_AS(d2_list, vals)->n;
    d2_obj *r = NULL;
    if (key->kind == D2_OBJ_STR) {
        d2_obj *v = d2_dict_get(I, d2_pd_layer_dict(I, self, "_sub_layers"), key);
        r = v ? d2_incref(v)
              : d2_raise(I, "KeyError", "%s: no sublayer '%s'", cls, D2_AS(d2_str, key)->s);
    } else if (key->kind == D2_OBJ_SLICE) {
        d2_obj *sub = d2_getitem(I, vals, key);
        if (sub) {
            d2_obj *cls_obj = (d2_obj *)self->cls;
            if (strcmp(cls, "LayerList") == 0) {
                r = d2_call(I, cls_obj, &sub, 1, NULL);
            } else {
                r = d2_call(I, cls_obj, D2_AS(d2_list, sub)->items, D2_AS(d2_list, sub)->n, NULL);
            }
            d2_decref(sub);
        }
    } else {
        int64_t i;
        if (d2_pd_get_int(I, key, cls, "index", &i) == 0) {
            if (i < -n || i >= n)
                r = d2_raise(I, "IndexError", "index %lld is out of range", (long long)i);
            else
                r = d2_incref(D2_AS(d2_list, vals)->items[i < 0 ? i + n : i]);
        }
    }
    d2_decref(vals);
    return r;
}

D2_FN(Sequential_getitem)
{
    return container_getitem(I, self, a[0], "Sequential");
}

static d2_obj *Container_len(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("__len__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    return d2_int_new(I, subs ? (int64_t)subs->live : 0);
}

static d2_obj *Container_iter(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("__iter__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *vals = sub_values(I, self);
    if (!vals)
        return NULL;
    d2_obj *it = d2_get_iter(I, vals);
    d2_decref(vals);
    return it;
}

static int layerlist_append(d2_interp *I, d2_obj *self, d2_obj *l)
{
    if (!d2_pd_is_layer(I, l)) {
        d2_raise(I, "TypeError", "LayerList: %s is not a Layer", d2_type_name(l));
        return -1;
    }
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    char key[32];
    snprintf(key, sizeof key, "%zu", subs->live);
    return d2_dict_set_str(I, subs, key, l);
}

D2_FN(LayerList_init)
{
    if (d2_pd_layer_base_init(I, self) < 0)
        return NULL;
    if (is_none(I, a[0]))
        return d2_none(I);
    d2_obj *l = d2_list_from_iterable(I, a[0]);
    if (!l)
        return NULL;
    for (size_t i = 0; i < D2_AS(d2_list, l)->n; i++)
        if (layerlist_append(I, self, D2_AS(d2_list, l)->items[i]) < 0) {
            d2_decref(l);
            return NULL;
        }
    d2_decref(l);
    return d2_none(I);
}

D2_FN(LayerList_append)
{
    if (layerlist_append(I, self, a[0]) < 0)
        return NULL;
    return d2_incref(self);
}

D2_FN(LayerList_extend)
{
    d2_obj *l = d2_list_from_iterable(I, a[0]);
    if (!l)
        return NULL;
    for (size_t i = 0; i < D2_AS(d2_list, l)->n; i++)
        if (layerlist_append(I, self, D2_AS(d2_list, l)->items[i]) < 0) {
            d2_decref(l);
            return NULL;
        }
    d2_decref(l);
    return d2_incref(self);
}

D2_FN(LayerList_getitem)
{
    if (a[0]->kind == D2_OBJ_STR)
        return d2_raise(I, "TypeError", "LayerList indices must be integers or slices");
    return container_getitem(I, self, a[0], "LayerList");
}

D2_FN(LayerList_setitem)
{
    int64_t i;
    if (d2_pd_get_int(I, a[0], "LayerList.__setitem__", "index", &i) < 0)
        return NULL;
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    int64_t n = (int64_t)subs->live;
    if (i < -n || i >= n)
        return d2_raise(I, "IndexError", "index %lld is out of range", (long long)i);
    if (!d2_pd_is_layer(I, a[1]))
        return d2_raise(I, "TypeError", "LayerList: %s is not a Layer", d2_type_name(a[1]));
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)(i < 0 ? i + n : i));
    if (d2_dict_set_str(I, subs, key, a[1]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(LayerList_insert)
{
    int64_t idx;
    if (d2_pd_get_int(I, a[0], "LayerList.insert", "index", &idx) < 0)
        return NULL;
    if (!d2_pd_is_layer(I, a[1]))
        return d2_raise(I, "TypeError", "LayerList: %s is not a Layer", d2_type_name(a[1]));
    d2_obj *vals = sub_values(I, self);
    if (!vals)
        return NULL;
    int64_t n = (int64_t)D2_AS(d2_list, vals)->n;
    if (idx < 0)
        idx += n;
    if (idx < 0)
        idx = 0;
    if (idx > n)
        idx = n;
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    int rc = 0;
    for (int64_t k = 0; rc == 0 && k <= n; k++) {
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)k);
        d2_obj *v = k < idx    ? D2_AS(d2_list, vals)->items[k]
                    : k == idx ? a[1]
                               : D2_AS(d2_list, vals)->items[k - 1];
        rc = d2_dict_set_str(I, subs, key, v);
    }
    d2_decref(vals);
    return rc < 0 ? NULL : d2_none(I);
}

/* ---- LayerDict: sublayers by name, in insertion order ---- */

static int layerdict_set(d2_interp *I, d2_obj *self, d2_obj *key, d2_obj *l)
{
    if (key->kind != D2_OBJ_STR) {
        d2_raise(I, "TypeError", "LayerDict: a key must be a str, got %s", d2_type_name(key));
        return -1;
    }
    if (!d2_pd_is_layer(I, l)) {
        d2_raise(I, "TypeError", "LayerDict: %s is not a Layer", d2_type_name(l));
        return -1;
    }
    return d2_dict_set(I, d2_pd_layer_dict(I, self, "_sub_layers"), key, l);
}

/* The (key, layer) pairs of a dict, or of an iterable of pairs, into self. */
static int layerdict_update(d2_interp *I, d2_obj *self, d2_obj *src)
{
    if (src->kind == D2_OBJ_DICT) {
        d2_dict *d = D2_AS(d2_dict, src);
        for (size_t i = 0; i < d->n; i++)
            if (d->entries[i].key && layerdict_set(I, self, d->entries[i].key,
                                                   d->entries[i].value) < 0)
                return -1;
        return 0;
    }
    d2_obj *l = d2_list_from_iterable(I, src);
    if (!l)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < D2_AS(d2_list, l)->n; i++) {
        d2_obj *kv = D2_AS(d2_list, l)->items[i];
        if (!is_seq(kv) || seq_len(kv) != 2) {
            d2_raise(I, "TypeError", "LayerDict: element %zu of the sublayers is not a "
                     "(key, layer) pair", i);
            rc = -1;
        } else {
            rc = layerdict_set(I, self, seq_item(kv, 0), seq_item(kv, 1));
        }
    }
    d2_decref(l);
    return rc;
}

D2_FN(LayerDict_init) /* sublayers */
{
    if (d2_pd_layer_base_init(I, self) < 0)
        return NULL;
    if (!is_none(I, a[0]) && layerdict_update(I, self, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(LayerDict_update) /* sublayers */
{
    return layerdict_update(I, self, a[0]) < 0 ? NULL : d2_none(I);
}

D2_FN(LayerDict_getitem) /* key */
{
    d2_obj *v = d2_dict_get(I, d2_pd_layer_dict(I, self, "_sub_layers"), a[0]);
    if (v)
        return d2_incref(v);
    if (d2_exc_pending(I))
        return NULL;
    d2_obj *r = a[0]->kind == D2_OBJ_STR ? d2_incref(a[0]) : d2_repr(I, a[0]);
    if (!r)
        return NULL;
    d2_raise(I, "KeyError", "%s", D2_AS(d2_str, r)->s);
    d2_decref(r);
    return NULL;
}

D2_FN(LayerDict_setitem) /* key, sublayer */
{
    return layerdict_set(I, self, a[0], a[1]) < 0 ? NULL : d2_none(I);
}

D2_FN(LayerDict_delitem) /* key */
{
    return d2_dict_del(I, d2_pd_layer_dict(I, self, "_sub_layers"), a[0]) < 0 ? NULL
                                                                              : d2_none(I);
}

D2_FN(LayerDict_contains) /* key */
{
    d2_obj *v = d2_dict_get(I, d2_pd_layer_dict(I, self, "_sub_layers"), a[0]);
    return d2_exc_pending(I) ? NULL : d2_bool(I, v != NULL);
}

D2_FN(LayerDict_pop) /* key */
{
    d2_obj *v = LayerDict_getitem(I, self, a, def);
    if (v && d2_dict_del(I, d2_pd_layer_dict(I, self, "_sub_layers"), a[0]) < 0)
        d2_setref(&v, NULL);
    return v;
}

D2_FN(LayerDict_clear)
{
    D2_UNUSED(a);
    D2_UNUSED(def);
    d2_obj *l = d2_list_new(I, 0);
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    for (size_t i = 0; l && subs && i < subs->n; i++)
        if (subs->entries[i].key && d2_list_append(I, l, subs->entries[i].key) < 0)
            d2_setref(&l, NULL);
    for (size_t i = 0; l && i < D2_AS(d2_list, l)->n; i++)
        if (d2_dict_del(I, subs, D2_AS(d2_list, l)->items[i]) < 0)
            d2_setref(&l, NULL);
    if (!l)
        return NULL;
    d2_decref(l);
    return d2_none(I);
}

/* keys / values / items of the sublayers as a list (def->data: 0, 1, 2). */
static d2_obj *layerdict_view(d2_interp *I, d2_obj *self, int which)
{
    d2_obj *l = d2_list_new(I, 0);
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    for (size_t i = 0; l && subs && i < subs->n; i++) {
        d2_obj *k = subs->entries[i].key, *v = subs->entries[i].value, *e;
        if (!k)
            continue;
        if (which == 2) {
            e = tuple_new(I, 2);
            if (e) {
                D2_AS(d2_tuple, e)->items[0] = d2_incref(k);
                D2_AS(d2_tuple, e)->items[1] = d2_incref(v);
            }
        } else {
            e = d2_incref(which == 0 ? k : v);
        }
        if (!e || d2_list_append(I, l, e) < 0)
            d2_setref(&l, NULL);
        d2_decref(e);
    }
    return l;
}

D2_FN(LayerDict_view)
{
    D2_UNUSED(a);
    return layerdict_view(I, self, (int)(intptr_t)def->data);
}

static d2_obj *LayerDict_iter(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                              d2_dict *kw)
{
    SELF_ARG("__iter__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *keys = layerdict_view(I, self, 0);
    d2_obj *it = keys ? d2_get_iter(I, keys) : NULL;
    d2_decref(keys);
    return it;
}

/* ---- the rows of the builtin layers (each class's arguments, as Paddle's) ---- */

static const d2_def LINEAR_DEFS[] = {
    D2_DEF("__init__", "in_features, out_features, weight_attr=None, bias_attr=None, name=None",
           Linear_init, "paddle.nn.Linear"),
    D2_DEF("forward", "input", Linear_forward, "Linear.forward"),
};

static const d2_def FLINEAR_DEFS[] = {
    D2_DEF("__init__",
           "input_dim, output_dim, param_attr=None, bias_attr=None, act=None, dtype='float32'",
           FLinear_init, "fluid.dygraph.Linear"),
    D2_DEF("forward", "input", FLinear_forward, "Linear.forward"),
};

static const d2_def CONV2D_DEFS[] = {
    D2_DEF("__init__",
           "in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, "
           "padding_mode='zeros', weight_attr=None, bias_attr=None, data_format='NCHW'",
           Conv2D_init, "paddle.nn.Conv2D"),
    D2_DEF("forward", "x", Conv2D_forward, "Conv2D.forward"),
};

static const d2_def FCONV2D_DEFS[] = {
    D2_DEF("__init__",
           "num_channels, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, "
           "param_attr=None, bias_attr=None, use_cudnn=True, act=None, dtype='float32'",
           FConv2D_init, "fluid.dygraph.Conv2D"),
    D2_DEF("forward", "input", FConv2D_forward, "Conv2D.forward"),
};

static const d2_def MAXPOOL2D_DEFS[] = {
    D2_DEF("__init__", POOL_SPEC_MAX, pool_init, "paddle.nn.MaxPool2D"),
    D2_DEF("forward", "x", MaxPool2D_forward, "Pool2D.forward"),
};

static const d2_def AVGPOOL2D_DEFS[] = {
    D2_DEF("__init__", POOL_SPEC_AVG, pool_init, "paddle.nn.AvgPool2D"),
    D2_DEF("forward", "x", AvgPool2D_forward, "Pool2D.forward"),
};

static const d2_def ADAPTIVE_AVG_DEFS[] = {
    D2_DEF("__init__", "output_size, data_format='NCHW', name=None", AdaptivePool_init,
           "paddle.nn.AdaptiveAvgPool2D"),
    D2_DEF("forward", "x", AdaptiveAvg_forward, "AdaptiveAvgPool2D.forward"),
};

static const d2_def ADAPTIVE_MAX_DEFS[] = {
    D2_DEF("__init__", "output_size, return_mask=False, name=None", AdaptiveMaxPool_init,
           "paddle.nn.AdaptiveMaxPool2D"),
    D2_DEF("forward", "x", AdaptiveMax_forward, "AdaptiveMaxPool2D.forward"),
};

static const d2_def FPOOL2D_DEFS[] = {
    D2_DEF("__init__",
           "pool_size=-1, pool_type='max', pool_stride=1, pool_padding=0, global_pooling=False, "
           "use_cudnn=True, ceil_mode=False, exclusive=True, data_format='NCHW'",
           FPool2D_init, "fluid.dygraph.Pool2D"),
    D2_DEF("forward", "input", FPool2D_forward, "Pool2D.forward"),
};

static const d2_def BATCHNORM_ND_DEFS[] = {
    D2_DEF("__init__",
           "num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, "
           "data_format='NCHW', use_global_stats=None, name=None",
           BatchNormND_init, "paddle.nn.BatchNorm2D"),
    D2_DEF("forward", "input", BatchNormND_forward, "BatchNorm2D.forward"),
};

static const d2_def BATCHNORM_1D_DEFS[] = {
    D2_DEF("__init__",
           "num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, "
           "data_format='NCL', use_global_stats=None, name=None",
           BatchNormND_init, "paddle.nn.BatchNorm1D"),
    D2_DEF("forward", "input", BatchNormND_forward, "BatchNorm1D.forward"),
};

static const d2_def BATCHNORM_DEFS[] = {
    D2_DEF("__init__",
           "num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, "
           "bias_attr=None, dtype='float32', data_layout='NCHW', in_place=False, "
           "moving_mean_name=None, moving_variance_name=None, "
           "do_model_average_for_mean_and_var=True, use_global_stats=False, "
           "trainable_statistics=False",
           BatchNorm_init, "paddle.nn.BatchNorm"),
    D2_DEF("forward", "input", BatchNorm_forward, "BatchNorm.forward"),
};

static const d2_def LAYERNORM_DEFS[] = {
    D2_DEF("__init__",
           "normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None, name=None",
           LayerNorm_init, "paddle.nn.LayerNorm"),
    D2_DEF("forward", "input", LayerNorm_forward, "LayerNorm.forward"),
};

static const d2_def EMBEDDING_DEFS[] = {
    D2_DEF("__init__",
           "num_embeddings, embedding_dim, padding_idx=None, sparse=False, weight_attr=None, "
           "name=None",
           Embedding_init, "paddle.nn.Embedding"),
    D2_DEF("forward", "x", Embedding_forward, "Embedding.forward"),
};

static const d2_def FEMBEDDING_DEFS[] = {
    D2_DEF("__init__",
           "size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None, "
           "dtype='float32'",
           FEmbedding_init, "fluid.dygraph.Embedding"),
    D2_DEF("forward", "x", Embedding_forward, "Embedding.forward"),
};

static const d2_def DROPOUT_DEFS[] = {
    D2_DEF("__init__", "p=0.5, axis=None, mode='upscale_in_train', name=None", Dropout_init,
           "paddle.nn.Dropout"),
    D2_DEF("forward", "input", Dropout_forward, "Dropout.forward"),
};

static const d2_def FDROPOUT_DEFS[] = {
    D2_DEF("__init__",
           "p=0.5, seed=None, dropout_implementation='downgrade_in_infer', is_test=False",
           FDropout_init, "fluid.dygraph.Dropout"),
    D2_DEF("forward", "input", Dropout_forward, "Dropout.forward"),
};

static const d2_def SEQUENTIAL_DEFS[] = {
    D2_DEF("forward", "input", Sequential_forward, "Sequential.forward"),
    D2_DEF("__getitem__", "name", Sequential_getitem, "Sequential.__getitem__"),
};

static const d2_def LAYERDICT_DEFS[] = {
    D2_DEF("__init__", "sublayers=None", LayerDict_init, "paddle.nn.LayerDict"),
    D2_DEF("__getitem__", "key", LayerDict_getitem, "LayerDict.__getitem__"),
    D2_DEF("__setitem__", "key, sublayer", LayerDict_setitem, "LayerDict.__setitem__"),
    D2_DEF("__delitem__", "key", LayerDict_delitem, "LayerDict.__delitem__"),
    D2_DEF("__contains__", "key", LayerDict_contains, "LayerDict.__contains__"),
    D2_DEF("pop", "key", LayerDict_pop, "LayerDict.pop"),
    D2_DEF("clear", "", LayerDict_clear, "LayerDict.clear"),
    D2_DEF("update", "sublayers", LayerDict_update, "LayerDict.update"),
    D2_DEF_DATA("keys", "", LayerDict_view, "LayerDict.keys", (void *)0),
    D2_DEF_DATA("values", "", LayerDict_view, "LayerDict.values", (void *)1),
    D2_DEF_DATA("items", "", LayerDict_view, "LayerDict.items", (void *)2),
};

static const d2_def LAYERLIST_DEFS[] = {
    D2_DEF("__init__", "sublayers=None", LayerList_init, "paddle.nn.LayerList"),
    D2_DEF("append", "sublayer", LayerList_append, "LayerList.append"),
    D2_DEF("extend", "sublayers", LayerList_extend, "LayerList.extend"),
    D2_DEF("insert", "index, sublayer", LayerList_insert, "LayerList.insert"),
    D2_DEF("__getitem__", "idx", LayerList_getitem, "LayerList.__getitem__"),
    D2_DEF("__setitem__", "idx, sublayer", LayerList_setitem, "LayerList.__setitem__"),
};

/* The builtin layer classes of paddle.nn and paddle.fluid.dygraph (after
 * d2_pd_layer_add). */
int d2_pd_layers_add(d2_interp *I, pd_state *s)
{
    d2_module *nn = s->nn, *dyg = s->dygraph;
    d2_class *layer = s->layer_cls;
#define LAYER(mod, name, defs, ...)                                                                \
    {                                                                                              \
        static const method_entry m_[] = {__VA_ARGS__};                                            \
        d2_class *c_ = d2_pd_new_class(I, mod, name, layer, m_, D2_COUNTOF(m_));                   \
        if (!c_ || d2_class_add_defs(I, c_, defs, D2_COUNTOF(defs), 0) < 0)                          \
            return -1;                                                                             \
    }
#define LAYER_ROWS(mod, name, defs)                                                                \
    {                                                                                              \
        d2_class *c_ = d2_pd_new_class(I, mod, name, layer, NULL, 0);                              \
        if (!c_ || d2_class_add_defs(I, c_, defs, D2_COUNTOF(defs), 0) < 0)                          \
            return -1;                                                                             \
    }
    LAYER(nn, "Linear", LINEAR_DEFS, {"extra_repr", Linear_extra_repr})
    LAYER(nn, "Conv2D", CONV2D_DEFS, {"extra_repr", Conv2D_extra_repr})
    LAYER(nn, "MaxPool2D", MAXPOOL2D_DEFS, {"extra_repr", Pool_extra_repr})
    LAYER(nn, "AvgPool2D", AVGPOOL2D_DEFS, {"extra_repr", Pool_extra_repr})
    LAYER(nn, "AdaptiveAvgPool2D", ADAPTIVE_AVG_DEFS, {"extra_repr", Adaptive_extra_repr})
    LAYER(nn, "AdaptiveMaxPool2D", ADAPTIVE_MAX_DEFS, {"extra_repr", Adaptive_extra_repr})
    LAYER(nn, "BatchNorm2D", BATCHNORM_ND_DEFS, {"extra_repr", BatchNormND_extra_repr})
    LAYER(nn, "BatchNorm1D", BATCHNORM_1D_DEFS, {"extra_repr", BatchNormND_extra_repr})
    LAYER_ROWS(nn, "BatchNorm", BATCHNORM_DEFS)
    LAYER_ROWS(dyg, "BatchNorm", BATCHNORM_DEFS)
    LAYER(nn, "LayerNorm", LAYERNORM_DEFS, {"extra_repr", LayerNorm_extra_repr})
    LAYER(nn, "Embedding", EMBEDDING_DEFS, {"extra_repr", Embedding_extra_repr})
    LAYER(dyg, "Embedding", FEMBEDDING_DEFS, {"extra_repr", Embedding_extra_repr})
    LAYER(nn, "Dropout", DROPOUT_DEFS, {"extra_repr", Dropout_extra_repr})
    LAYER(dyg, "Dropout", FDROPOUT_DEFS, {"extra_repr", Dropout_extra_repr})
    LAYER(nn, "Sequential", SEQUENTIAL_DEFS, {"__init__", Sequential_init},
          {"__len__", Container_len}, {"__iter__", Container_iter})
    LAYER(dyg, "Sequential", SEQUENTIAL_DEFS, {"__init__", Sequential_init},
          {"__len__", Container_len}, {"__iter__", Container_iter})
    LAYER(nn, "LayerList", LAYERLIST_DEFS, {"__len__", Container_len}, {"__iter__", Container_iter})
    LAYER(nn, "LayerDict", LAYERDICT_DEFS, {"__len__", Container_len}, {"__iter__", LayerDict_iter})
    LAYER(dyg, "Linear", FLINEAR_DEFS, {"extra_repr", Linear_extra_repr})
    LAYER(dyg, "Conv2D", FCONV2D_DEFS, {"extra_repr", Conv2D_extra_repr})
    LAYER_ROWS(dyg, "Pool2D", FPOOL2D_DEFS)
#define X(c, spec, shown) LAYER(nn, #c, ACT_DEFS_##c, {"extra_repr", A_repr_##c})
    ACT_LAYERS(X)
#undef X
#undef LAYER_ROWS
#undef LAYER
    {
        d2_obj *ll = d2_dict_get_str(I, nn->dict, "LayerList");
        if (!ll || set_attr(I, dyg, "LayerList", ll) < 0)
            return -1;
    }
    return 0;
}
