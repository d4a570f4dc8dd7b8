/* init.c - paddle.nn.initializer, ParamAttr and create_parameter. */
#include "lib/paddle/layers_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ======================================================================
 * Initializers, ParamAttr, create_parameter
 * ====================================================================== */

/* Initializer instances keep their kind and arguments in the instance dict:
 * _kind ("constant", "normal", "uniform", "xavier_uniform", ...) and the
 * constructor's arguments under their names. */
#define INITIALIZERS(X)                                                                            \
    X(Constant, "constant", "value=0.0")                                                           \
    X(Normal, "normal", "mean=0.0, std=1.0, name=None")                                            \
    X(TruncatedNormal, "truncated_normal", "mean=0.0, std=1.0, a=-2.0, b=2.0, name=None")          \
    X(Uniform, "uniform", "low=-1.0, high=1.0, name=None")                                         \
    X(XavierUniform, "xavier_uniform", "fan_in=None, fan_out=None, gain=1.0, name=None")           \
    X(XavierNormal, "xavier_normal", "fan_in=None, fan_out=None, gain=1.0, name=None")             \
    X(KaimingUniform, "kaiming_uniform",                                                           \
      "fan_in=None, negative_slope=0.0, nonlinearity='relu', name=None")                           \
    X(KaimingNormal, "kaiming_normal",                                                             \
      "fan_in=None, negative_slope=0.0, nonlinearity='relu', name=None")                           \
    X(Assign, "assign", "value, name=None")

const char *d2_pd_param_name(const char *spec, int k, char *buf, size_t cap)
{
    /* k-th parameter name of a d2_parse_args spec */
    const char *p = spec;
    for (int i = 0; i < k; i++) {
        p = strchr(p, ',');
        if (!p)
            return NULL;
        p++;
    }
    while (*p == ' ')
        p++;
    size_t n = 0;
    while (*p && *p != '=' && *p != ',' && n + 1 < cap)
        buf[n++] = *p++;
    buf[n] = 0;
    return buf;
}

/* Initializer.__init__ of every kind: def->data is the kind, def->sig
 * names the arguments stored. */
D2_FN(init_ctor)
{
    const char *kind = def->data;
    if (iset_take(I, self, "_kind", d2_str_from(I, kind)) < 0)
        return NULL;
    for (int i = 0; i < 8; i++) {
        char nb[32];
        if (!d2_pd_param_name(def->sig, i, nb, sizeof nb))
            break;
        if (a[i] && iset(I, self, nb, a[i]) < 0)
            return NULL;
    }
    return d2_none(I);
}

/* One row per initializer class (INIT_DEFS[k] is class k's __init__). */
static const d2_def INIT_DEFS[] = {
#define X(c, kind, spec) D2_DEF_DATA("__init__", spec, init_ctor, #c ".__init__", kind),
    INITIALIZERS(X)
#undef X
};

static double iget_float(d2_interp *I, d2_obj *o, const char *name, double def)
{
    d2_obj *v = iget(I, o, name);
    return v && is_number(v) ? num_value(v) : def;
}

/* Paddle's _compute_fans. */
static void compute_fans(const int64_t *shape, int nd, double *fin, double *fout)
{
    if (nd == 0) {
        *fin = *fout = 1;
    } else if (nd == 1) {
        *fin = *fout = (double)shape[0];
    } else if (nd == 2) {
        *fin = (double)shape[0];
        *fout = (double)shape[1];
    } else {
        double rf = 1;
        for (int i = 2; i < nd; i++)
            rf *= (double)shape[i];
        *fin = (double)shape[1] * rf;
        *fout = (double)shape[0] * rf;
    }
}

static double kaiming_gain(d2_interp *I, d2_obj *init)
{
    d2_obj *nl = iget(I, init, "nonlinearity");
    const char *s = nl && nl->kind == D2_OBJ_STR ? D2_AS(d2_str, nl)->s : "relu";
    double slope = iget_float(I, init, "negative_slope", 0);
    if (strcmp(s, "relu") == 0)
        return sqrt(2.0);
    if (strcmp(s, "leaky_relu") == 0)
        return sqrt(2.0 / (1 + slope * slope));
    if (strcmp(s, "tanh") == 0)
        return 5.0 / 3;
    if (strcmp(s, "selu") == 0)
        return 3.0 / 4;
    return 1.0;
}

/* Fills a new host tensor of shape/dt as init says (NULL init: zeros). */
static d2_tensor *init_fill(d2_interp *I, d2_obj *init, const int64_t *shape, int nd, d2_dtype dt)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    const char *kind = "constant";
    if (init) {
        d2_obj *k = iget(I, init, "_kind");
        if (!k || k->kind != D2_OBJ_STR) {
            d2_raise(I, "TypeError", "create_parameter: %s is not a paddle.nn.initializer object",
                     d2_type_name(init));
            return NULL;
        }
        kind = D2_AS(d2_str, k)->s;
    }
    /* an initializer written in Python (kind "python"): its _fill(shape) gives the values,
     * which then go the way of Assign's */
    d2_obj *pyval = NULL;
    if (strcmp(kind, "python") == 0) {
        d2_obj *shp = d2_list_new(I, (size_t)nd);
        for (int i = 0; shp && i < nd; i++) {
            D2_AS(d2_list, shp)->items[i] = d2_int_new(I, shape[i]);
            if (!D2_AS(d2_list, shp)->items[i]) {
                d2_decref(shp);
                shp = NULL;
            }
        }
        if (!shp)
            return NULL;
        pyval = d2_call_method(I, init, "_fill", &shp, 1, NULL);
        d2_decref(shp);
        if (!pyval)
            return NULL;
    }
    if (pyval || strcmp(kind, "assign") == 0) {
        d2_tensor *v = d2_pd_from_py(I, pyval ? pyval : iget(I, init, "value"), dt, D2_F32,
                                     pyval ? "Initializer" : "Assign");
        d2_decref(pyval);
        if (!v)
            return NULL;
        if (d2_tensor_numel(v) != n) {
            d2_tensor_unref(v);
            d2_raise(I, "ValueError",
                     "Assign initializer: the value has %lld elements, the parameter %lld",
                     (long long)d2_tensor_numel(v), (long long)n);
            return NULL;
        }
        d2_err err = {0};
        d2_tensor *r = d2_tensor_reshape_view(v, nd, shape, &err);
        d2_tensor_unref(v);
        if (!r)
            d2_raise_err(I, &err);
        return r;
    }
    double *v = d2_malloc((size_t)n * sizeof *v + 1);
    if (!v) {
        nomem(I);
        return NULL;
    }
    double fin, fout;
    compute_fans(shape, nd, &fin, &fout);
    if (init) {
        d2_obj *fi = iget(I, init, "fan_in"), *fo = iget(I, init, "fan_out");
        if (fi && is_number(fi))
            fin = num_value(fi);
        if (fo && is_number(fo))
            fout = num_value(fo);
    }
    /* drawn from paddle.seed's generator as Paddle's uniform and gaussian
     * kernels draw, so that seeded initial weights equal Paddle's */
    bool ok = true;
    if (strcmp(kind, "constant") == 0) {
        double c = init ? iget_float(I, init, "value", 0) : 0;
        for (int64_t i = 0; i < n; i++)
            v[i] = c;
    } else if (strcmp(kind, "normal") == 0) {
        d2_pd_random_fill(I, D2_RND_NORMAL, dt, iget_float(I, init, "mean", 0),
                          iget_float(I, init, "std", 1), v, n);
    } else if (strcmp(kind, "truncated_normal") == 0) {
        /* not Paddle's truncated-gaussian stream: normals redrawn outside [a, b] */
        double m = iget_float(I, init, "mean", 0), sd = iget_float(I, init, "std", 1);
        double lo = iget_float(I, init, "a", -2), hi = iget_float(I, init, "b", 2);
        for (int64_t i = 0; i < n; i++) {
            double g = 0;
            for (int tries = 0; tries < 100; tries++) {
                d2_pd_random_fill(I, D2_RND_NORMAL, D2_F64, 0, 1, &g, 1);
                if (g >= lo && g <= hi)
                    break;
            }
            v[i] = m + sd * g;
        }
    } else if (strcmp(kind, "uniform") == 0) {
        d2_pd_random_fill(I, D2_RND_UNIFORM, dt, iget_float(I, init, "low", -1),
                          iget_float(I, init, "high", 1), v, n);
    } else if (strcmp(kind, "xavier_uniform") == 0) {
        double gain = init ? iget_float(I, init, "gain", 1) : 1;
        double lim = gain * sqrt(6.0 / (fin + fout));
        d2_pd_random_fill(I, D2_RND_UNIFORM, dt, -lim, lim, v, n);
    } else if (strcmp(kind, "xavier_normal") == 0) {
        double std = iget_float(I, init, "gain", 1) * sqrt(2.0 / (fin + fout));
        d2_pd_random_fill(I, D2_RND_NORMAL, dt, 0, std, v, n);
    } else if (strcmp(kind, "kaiming_uniform") == 0) {
        double lim = kaiming_gain(I, init) * sqrt(3.0 / fin);
        d2_pd_random_fill(I, D2_RND_UNIFORM, dt, -lim, lim, v, n);
    } else if (strcmp(kind, "kaiming_normal") == 0) {
        double std = kaiming_gain(I, init) / sqrt(fin);
        d2_pd_random_fill(I, D2_RND_NORMAL, dt, 0, std, v, n);
    } else {
        ok = false;
        d2_raise(I, "ValueError", "unknown initializer kind '%s'", kind);
    }
    d2_tensor *t = ok ? d2_pd_host_from_doubles(I, dt, nd, shape, v) : NULL;
    d2_free(v);
    return t;
}

D2_FN(Init_call)
{
    if (!is_tensor(a[0]) || is_sym(a[0]))
        return d2_raise(I, "TypeError", "Initializer.__call__: param must be a concrete Tensor");
    const d2_type *ty = obj_type(a[0]);
    d2_tensor *t = init_fill(I, self, ty->shape.dims, ty->shape.ndim, ty->dtype);
    t = t ? d2_pd_to_backend(I, t) : NULL;
    if (!t)
        return NULL;
    d2_tensor_unref(TOBJ(a[0])->t);
    TOBJ(a[0])->t = t;
    return d2_incref(a[0]);
}

#define PARAM_ATTR_SPEC                                                                            \
    "name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True, "           \
    "do_model_average=True, need_clip=True"

D2_FN(PA_init)
{
    for (int i = 0; i < 7; i++) {
        char nb[32];
        d2_pd_param_name(def->sig, i, nb, sizeof nb);
        if (iset(I, self, nb, a[i]) < 0)
            return NULL;
    }
    return d2_none(I);
}

/* Records the ParamAttr of parameter `name` in paddle._param_attrs (name ->
 * ParamAttr), where the optimizers read its regularizer and learning-rate
 * multiplier as Paddle's read param.regularizer and param.optimize_attr; a
 * parameter made without one drops a stale entry of the same name. */
static int record_param_attr(d2_interp *I, const char *name, d2_obj *pattr)
{
    pd_state *s = ST(I);
    d2_obj *d = d2_dict_get_str(I, s->paddle->dict, "_param_attrs");
    if (!d || d->kind != D2_OBJ_DICT) {
        d2_obj *nd = d2_dict_new(I);
        if (!nd || d2_dict_set_str(I, s->paddle->dict, "_param_attrs", nd) < 0) {
            if (nd)
                d2_decref(nd);
            return -1;
        }
        d2_decref(nd);
        d = nd;
    }
    if (pattr)
        return d2_dict_set_str(I, D2_AS(d2_dict, d), name, pattr);
    if (!d2_dict_get_str(I, D2_AS(d2_dict, d), name))
        return 0;
    d2_obj *k = d2_str_from(I, name);
    int rc = k ? d2_dict_del(I, D2_AS(d2_dict, d), k) : -1;
    if (k)
        d2_decref(k);
    return rc;
}

/* Paddle's Layer.create_parameter / LayerHelper.create_parameter. attr may be
 * None, False (no parameter: returns None), a name string or a ParamAttr.
 * default_init NULL: Constant(0) for biases, Xavier uniform otherwise. */
static d2_obj *make_param(d2_interp *I, d2_obj *layer, const int64_t *shape, int nd, int dt,
                          d2_obj *attr, bool is_bias, d2_obj *default_init)
{
    pd_state *s = ST(I);
    if (attr && is_bool(attr) && !D2_AS(d2_int, attr)->v)
        return d2_none(I);
    const char *name = NULL;
    d2_obj *init = NULL, *pattr = NULL;
    bool trainable = true;
    if (attr && attr->kind == D2_OBJ_STR) {
        name = D2_AS(d2_str, attr)->s;
    } else if (attr && attr->kind == D2_OBJ_INSTANCE && d2_isinstance(I, attr, s->param_attr_cls)) {
        d2_obj *n = iget(I, attr, "name");
        if (n && n->kind == D2_OBJ_STR)
            name = D2_AS(d2_str, n)->s;
        d2_obj *in = iget(I, attr, "initializer");
        if (in && !is_none(I, in))
            init = in;
        d2_obj *tr = iget(I, attr, "trainable");
        if (tr && is_number(tr))
            trainable = num_value(tr) != 0;
        pattr = attr;
    } else if (attr && attr->kind == D2_OBJ_INSTANCE && s->init_cls &&
               d2_isinstance(I, attr, s->init_cls)) {
        init = attr;
    } else if (attr && !is_none(I, attr) && !(is_bool(attr) && D2_AS(d2_int, attr)->v)) {
        return d2_raise(I, "TypeError",
                        "create_parameter: attr must be a ParamAttr, a name, None or False, got %s",
                        d2_type_name(attr));
    }
    if (!init && default_init && !is_none(I, default_init))
        init = default_init;
    for (int i = 0; i < nd; i++)
        if (shape[i] < 0)
            return d2_raise(I, "ValueError",
                            "create_parameter: the shape must be static and non-negative");
    if (!name) {
        /* a layer's parameters take its full name; paddle.create_parameter's a
         * create_parameter_N of their own, as Paddle's LayerHelper gives them */
        d2_obj *fn = layer ? iget(I, layer, "_full_name") : NULL;
        const char *owner = fn && fn->kind == D2_OBJ_STR ? D2_AS(d2_str, fn)->s : NULL;
        if (!layer && !(owner = d2_pd_unique_name(I, "create_parameter")))
            return NULL;
        char key[300];
        snprintf(key, sizeof key, "%s.%s", owner ? owner : "param", is_bias ? "b" : "w");
        name = d2_pd_unique_name(I, key);
        if (!name)
            return NULL;
    } else {
        name = d2_arena_strdup(I->arena, name);
    }
    d2_tensor *t;
    if (init) {
        t = init_fill(I, init, shape, nd, (d2_dtype)dt);
    } else if (is_bias) {
        t = init_fill(I, NULL, shape, nd, (d2_dtype)dt);
    } else {
        d2_obj *x = d2_instance_new(I, s->init_cls);
        if (!x)
            return NULL;
        if (iset_take(I, x, "_kind", d2_str_from(I, "xavier_uniform")) < 0) {
            d2_decref(x);
            return NULL;
        }
        t = init_fill(I, x, shape, nd, (d2_dtype)dt);
        d2_decref(x);
    }
    d2_obj *p = t ? d2_pd_wrap_host(I, t) : NULL;
    if (!p)
        return NULL;
    TOBJ(p)->persistable = true;
    TOBJ(p)->stop_gradient = !trainable;
    TOBJ(p)->name = name;
    if (record_param_attr(I, name, pattr) < 0) {
        d2_decref(p);
        return NULL;
    }
    return p;
}

D2_FN(L_create_parameter)
{
    const char *fname = "Layer.create_parameter";
    int64_t shape[D2_MAX_DIMS];
    int nd, dt;
    bool is_bias;
    if (d2_pd_shape_list(I, a[0], fname, shape, &nd) < 0 ||
        d2_pd_parse_dtype(I, a[2], fname, false, &dt) < 0 ||
        d2_pd_get_bool(I, a[3], fname, "is_bias", &is_bias) < 0)
        return NULL;
    if (dt < 0) {
        d2_obj *ld = iget(I, self, "_dtype");
        if (!ld || d2_pd_parse_dtype(I, ld, fname, false, &dt) < 0 || dt < 0)
            dt = D2_F32;
    }
    return make_param(I, self, shape, nd, dt, a[1], is_bias, a[4]);
}

D2_FN(f_create_parameter)
{
    const char *fname = "paddle.create_parameter";
    int64_t shape[D2_MAX_DIMS];
    int nd, dt;
    bool is_bias;
    if (d2_pd_shape_list(I, a[0], fname, shape, &nd) < 0 ||
        d2_pd_dtype_arg(I, a[1], fname, D2_F32, &dt) < 0 ||
        d2_pd_get_bool(I, a[4], fname, "is_bias", &is_bias) < 0)
        return NULL;
    d2_obj *attr = !is_none(I, a[3]) ? a[3] : !is_none(I, a[2]) ? a[2] : NULL;
    return make_param(I, NULL, shape, nd, dt, attr, is_bias, a[5]);
}

/* Creates parameter `attr_name` on layer self and sets it (also None). */
int d2_pd_add_param(d2_interp *I, d2_obj *self, const char *attr_name, const int64_t *shape, int nd,
                    d2_obj *attr, bool is_bias, d2_obj *default_init)
{
    int dt = D2_F32;
    d2_obj *ld = iget(I, self, "_dtype");
    if (ld && d2_pd_parse_dtype(I, ld, "Layer", false, &dt) < 0)
        return -1;
    if (dt < 0)
        dt = D2_F32;
    d2_obj *p = make_param(I, self, shape, nd, dt, attr, is_bias, default_init);
    if (!p)
        return -1;
    int rc =
        is_none(I, p) ? iset(I, self, attr_name, p) : d2_pd_layer_setattr(I, self, attr_name, p);
    d2_decref(p);
    return rc;
}

/* A new initializer object of the given kind with one float argument. */
d2_obj *d2_pd_make_init(d2_interp *I, const char *kind, const char *arg, double v, const char *arg2,
                        double v2)
{
    d2_obj *x = d2_instance_new(I, ST(I)->init_cls);
    if (!x)
        return NULL;
    if (iset_take(I, x, "_kind", d2_str_from(I, kind)) < 0 ||
        (arg && iset_take(I, x, arg, d2_float_new(I, v)) < 0) ||
        (arg2 && iset_take(I, x, arg2, d2_float_new(I, v2)) < 0)) {
        d2_decref(x);
        return NULL;
    }
    return x;
}

/* ======================================================================
 * The classes and rows
 * ====================================================================== */

/* paddle.nn.initializer, paddle.ParamAttr, paddle.create_parameter and
 * Layer.create_parameter (after d2_pd_layer_add). */
int d2_pd_init_add(d2_interp *I, pd_state *s)
{
    d2_module *ini = s->init;
    static const d2_def init_defs[] = {
        D2_DEF("__call__", "param, block=None", Init_call, "Initializer.__call__"),
    };
    s->init_cls = d2_pd_new_class(I, ini, "Initializer", NULL, NULL, 0);
    if (!s->init_cls || d2_class_add_defs(I, s->init_cls, init_defs, D2_COUNTOF(init_defs), 0) < 0)
        return -1;
    static const char *const init_names[] = {
#define X(c, kind, spec) #c,
        INITIALIZERS(X)
#undef X
    };
    for (size_t k = 0; k < D2_COUNTOF(init_names); k++) {
        d2_class *c = d2_pd_new_class(I, ini, init_names[k], s->init_cls, NULL, 0);
        if (!c || d2_class_add_defs(I, c, &INIT_DEFS[k], 1, 0) < 0)
            return -1;
    }
    {
        d2_obj *xu = d2_dict_get_str(I, ini->dict, "XavierUniform");
        d2_obj *kn = d2_dict_get_str(I, ini->dict, "KaimingNormal");
        d2_obj *ku = d2_dict_get_str(I, ini->dict, "KaimingUniform");
        d2_obj *nm = d2_dict_get_str(I, ini->dict, "Normal");
        if (set_attr(I, ini, "Xavier", xu) < 0 || set_attr(I, ini, "MSRA", kn) < 0 ||
            set_attr(I, ini, "KaimingUniformInitializer", ku) < 0 ||
            set_attr(I, ini, "NormalInitializer", nm) < 0)
            return -1;
    }
    static const d2_def pa_defs[] = {
        D2_DEF("__init__", PARAM_ATTR_SPEC, PA_init, "paddle.ParamAttr"),
    };
    s->param_attr_cls = d2_pd_new_class(I, s->paddle, "ParamAttr", NULL, NULL, 0);
    if (!s->param_attr_cls ||
        d2_class_add_defs(I, s->param_attr_cls, pa_defs, D2_COUNTOF(pa_defs), 0) < 0 ||
        set_attr(I, s->fluid, "ParamAttr", (d2_obj *)s->param_attr_cls) < 0)
        return -1;
    d2_obj *fw = d2_dict_get_str(I, I->modules, "paddle.framework");
    if (fw && fw->kind == D2_OBJ_MODULE &&
        set_attr(I, D2_AS(d2_module, fw), "ParamAttr", (d2_obj *)s->param_attr_cls) < 0)
        return -1;
    static const d2_def create_param_defs[] = {
        D2_DEF("create_parameter",
               "shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None",
               f_create_parameter, "paddle.create_parameter"),
    };
    static const d2_def layer_create_param_defs[] = {
        D2_DEF("create_parameter",
               "shape, attr=None, dtype=None, is_bias=False, default_initializer=None",
               L_create_parameter, "Layer.create_parameter"),
    };
    if (d2_module_add_defs(I, s->paddle, create_param_defs, D2_COUNTOF(create_param_defs)) < 0 ||
        d2_class_add_defs(I, s->layer_cls, layer_create_param_defs,
                          D2_COUNTOF(layer_create_param_defs), 0) < 0)
        return -1;
    return 0;
}
