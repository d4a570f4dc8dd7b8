/* act_layers.c - the paddle.nn activation layers that call one functional form with their stored arguments. */
#include "lib/paddle/layers_priv.h"

#include <string.h>

/* One row per layer: its class name, the signature of its __init__, the
 * paddle.nn.functional function forward calls, and how many of the stored
 * arguments (in signature order) forward passes after x. */
typedef struct act_layer {
    const char *cls, *sig, *fn;
    int n_pass;
} act_layer;

static const act_layer ACTS[] = {
    {"CELU", "alpha=1.0, name=None", "celu", 1},
    {"ELU", "alpha=1.0, name=None", "elu", 1},
    {"SELU", "scale=1.0507009873554805, alpha=1.6732632423543772, name=None", "selu", 2},
    {"GLU", "axis=-1, name=None", "glu", 1},
    {"Hardshrink", "threshold=0.5, name=None", "hardshrink", 1},
    {"Softshrink", "threshold=0.5, name=None", "softshrink", 1},
    {"Hardsigmoid", "name=None", "hardsigmoid", 0},
    {"Hardswish", "name=None", "hardswish", 0},
    {"Hardtanh", "min=-1.0, max=1.0, name=None", "hardtanh", 2},
    {"LogSigmoid", "name=None", "log_sigmoid", 0},
    {"Maxout", "groups, axis=1, name=None", "maxout", 2},
    {"Mish", "name=None", "mish", 0},
    {"Silu", "name=None", "silu", 0},
    {"Swish", "name=None", "swish", 0},
    {"Softplus", "beta=1, threshold=20, name=None", "softplus", 2},
    {"Softsign", "name=None", "softsign", 0},
    {"Tanhshrink", "name=None", "tanhshrink", 0},
    {"ThresholdedReLU", "threshold=1.0, name=None", "thresholded_relu", 1},
    {"Softmax2D", "name=None", "softmax", 0},
    {"RReLU", "lower=0.125, upper=0.3333333333333333, name=None", "rrelu", 2},
};

static const act_layer *row_of(const d2_def *def) { return def->data; }

/* Stores each argument as self._<param>. */
D2_FN(act_init)
{
    const act_layer *L = row_of(def);
    if (d2_pd_layer_base_init(I, self) < 0)
        return NULL;
    for (int i = 0;; i++) {
        char nb[40], key[48];
        if (!d2_pd_param_name(L->sig, i, nb, sizeof nb))
            break;
        snprintf(key, sizeof key, "_%s", nb);
        if (a[i] && iset(I, self, key, a[i]) < 0)
            return NULL;
    }
    return d2_none(I);
}

/* forward(x): F.<fn>(x, stored args...); Softmax2D over axis -3, RReLU with self.training. */
D2_FN(act_forward)
{
    const act_layer *L = row_of(def);
    d2_obj *fn = d2_dict_get_str(I, ST(I)->F->dict, L->fn);
    if (!fn)
        return d2_raise(I, "RuntimeError", "internal: no paddle.nn.functional.%s", L->fn);
    d2_obj *args[4] = {a[0], NULL, NULL, NULL};
    d2_obj *own[4] = {NULL, NULL, NULL, NULL};
    int n = 1;
    for (int i = 0; i < L->n_pass; i++) {
        char nb[40], key[48];
        d2_pd_param_name(L->sig, i, nb, sizeof nb);
        snprintf(key, sizeof key, "_%s", nb);
        d2_obj *v = iget(I, self, key);
        args[n++] = v ? v : I->none;
    }
    if (strcmp(L->cls, "Softmax2D") == 0) {
        if (!is_tensor(a[0]) || (obj_type(a[0])->shape.ndim != 3 && obj_type(a[0])->shape.ndim != 4))
            return d2_raise(I, "ValueError",
                            "paddle.nn.Softmax2D: the input must be a 3-D or 4-D Tensor");
        args[n++] = own[0] = d2_int_new(I, -3);
    }
    if (strcmp(L->cls, "RReLU") == 0) {
        d2_obj *t = iget(I, self, "training");
        args[n++] = own[1] = d2_bool(I, !t || !is_number(t) || num_value(t) != 0);
    }
    d2_obj *r = NULL;
    bool ok = true;
    for (int i = 0; i < n; i++)
        ok &= args[i] != NULL;
    if (ok)
        r = d2_call(I, fn, args, (size_t)n, NULL);
    d2_decref(own[0]);
    d2_decref(own[1]);
    return r;
}

/* extra_repr: name=value of each stored argument but name, as Paddle prints them. */
D2_FN(act_repr)
{
    const act_layer *L = row_of(def);
    d2_buf b = {0};
    bool ok = true;
    for (int i = 0; ok; i++) {
        char nb[40], key[48];
        if (!d2_pd_param_name(L->sig, i, nb, sizeof nb) || strcmp(nb, "name") == 0)
            break;
        snprintf(key, sizeof key, "_%s", nb);
        d2_obj *v = iget(I, self, key);
        d2_obj *s = d2_str_of(I, v ? v : I->none);
        if (!s) {
            ok = false;
            break;
        }
        d2_buf_printf(&b, "%s%s=%s", i ? ", " : "", nb, D2_AS(d2_str, s)->s);
        d2_decref(s);
    }
    if (ok && strcmp(L->cls, "RReLU") == 0) {
        d2_obj *t = iget(I, self, "training");
        d2_buf_printf(&b, ", training=%s, dtype=float32",
                      !t || !is_number(t) || num_value(t) != 0 ? "True" : "False");
    }
    d2_obj *r = !ok ? NULL : b.oom ? nomem(I) : d2_str_new(I, b.data ? b.data : "", b.len);
    d2_buf_free(&b);
    return r;
}

/* PReLU(num_parameters=1, init=0.25, weight_attr=None, data_format='NCHW', name=None). */
D2_FN(PReLU_init)
{
    const char *fname = "paddle.nn.PReLU";
    int64_t n;
    double init;
    if (d2_pd_get_int(I, a[0], fname, "num_parameters", &n) < 0 ||
        d2_pd_get_float(I, a[1], fname, "init", &init) < 0 || d2_pd_layer_base_init(I, self) < 0)
        return NULL;
    if (n < 1)
        return d2_raise(I, "ValueError", "%s: num_parameters must be positive", fname);
    d2_obj *ini = d2_pd_make_init(I, "constant", "value", init, NULL, 0);
    if (!ini)
        return NULL;
    int rc = d2_pd_add_param(I, self, "_weight", &n, 1, a[2], false, ini);
    d2_decref(ini);
    if (rc < 0 || iset(I, self, "_num_parameters", a[0]) < 0 || iset(I, self, "_init", a[1]) < 0 ||
        iset(I, self, "_data_format", a[3]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(PReLU_forward)
{
    d2_obj *fn = d2_dict_get_str(I, ST(I)->F->dict, "prelu");
    d2_obj *w = d2_getattr(I, self, "_weight");
    if (!fn || !w)
        return w ? (d2_decref(w), NULL) : NULL;
    d2_obj *df = iget(I, self, "_data_format");
    d2_obj *args[3] = {a[0], w, df ? df : I->none};
    d2_obj *r = d2_call(I, fn, args, 3, NULL);
    d2_decref(w);
    return r;
}

D2_FN(PReLU_repr)
{
    d2_obj *n = iget(I, self, "_num_parameters"), *df = iget(I, self, "_data_format"),
           *in = iget(I, self, "_init");
    d2_obj *sn = d2_str_of(I, n ? n : I->none), *sd = sn ? d2_str_of(I, df ? df : I->none) : NULL,
           *si = sd ? d2_str_of(I, in ? in : I->none) : NULL;
    d2_obj *r = si ? d2_str_printf(I, "num_parameters=%s, data_format=%s, init=%s, dtype=float32",
                                   D2_AS(d2_str, sn)->s, D2_AS(d2_str, sd)->s,
                                   D2_AS(d2_str, si)->s)
                   : NULL;
    d2_decref(sn);
    d2_decref(sd);
    d2_decref(si);
    return r;
}

static const d2_def PRELU_DEFS[] = {
    D2_DEF("__init__", "num_parameters=1, init=0.25, weight_attr=None, data_format='NCHW', name=None",
           PReLU_init, "paddle.nn.PReLU"),
    D2_DEF("forward", "x", PReLU_forward, "PReLU.forward"),
    D2_DEF("extra_repr", "", PReLU_repr, "PReLU.extra_repr"),
};

/* Three rows per activation layer (__init__, forward, extra_repr), built at start-up. */
static d2_def act_defs[D2_COUNTOF(ACTS)][3];

int d2_pd_act_layers_add(d2_interp *I, pd_state *s)
{
    for (size_t i = 0; i < D2_COUNTOF(ACTS); i++) {
        const act_layer *L = &ACTS[i];
        d2_def *d = act_defs[i];
        d[0] = (d2_def)D2_DEF_DATA("__init__", L->sig, act_init, L->cls, L);
        d[1] = (d2_def)D2_DEF_DATA("forward", "x", act_forward, L->cls, L);
        d[2] = (d2_def)D2_DEF_DATA("extra_repr", "", act_repr, L->cls, L);
        d2_class *c = d2_pd_new_class(I, s->nn, L->cls, s->layer_cls, NULL, 0);
        if (!c || d2_class_add_defs(I, c, d, 3, 0) < 0)
            return -1;
    }
    d2_class *c = d2_pd_new_class(I, s->nn, "PReLU", s->layer_cls, NULL, 0);
    if (!c || d2_class_add_defs(I, c, PRELU_DEFS, D2_COUNTOF(PRELU_DEFS), 0) < 0)
        return -1;
    return 0;
}
