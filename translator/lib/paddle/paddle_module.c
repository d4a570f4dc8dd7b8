/* paddle_module.c - module setup: the paddle module tree and every file's rows and classes. */
#include "lib/paddle/layers_priv.h"

#include <stdio.h>

static d2_module *new_module(d2_interp *I, const char *name, d2_module *parent, const char *attr)
{
    d2_obj *existing = d2_dict_get_str(I, I->modules, name);
    d2_module *m = existing && existing->kind == D2_OBJ_MODULE ? D2_AS(d2_module, existing)
                                                               : d2_module_new_builtin(I, name);
    if (!m)
        return NULL;
    if (parent && d2_dict_set_str(I, parent->dict, attr, (d2_obj *)m) < 0)
        return NULL;
    return m;
}

/* What a tensor or ndarray object owns: its storage, (symbolic) its place
 * in a builder's list, and its autograd state. */
static void tensor_obj_free(d2_obj *o)
{
    d2_tensor_obj *t = D2_AS(d2_tensor_obj, o);
    d2_pd_sym_unlink(t);
    d2_pd_grad_clear(t);
    if (t->t)
        d2_tensor_unref(t->t);
}

static void ndarray_obj_free(d2_obj *o)
{
    if (D2_AS(d2_ndarray, o)->t)
        d2_tensor_unref(D2_AS(d2_ndarray, o)->t);
}

int d2_tensor_api_init(d2_interp *I)
{
    d2_err err = {0};
    d2_layout_set_free(D2_OBJ_TENSOR, tensor_obj_free);
    d2_layout_set_free(D2_OBJ_NDARRAY, ndarray_obj_free);
    if (d2_ops_init(&err) < 0) {
        d2_raise_err(I, &err);
        return -1;
    }
    pd_state *s = ST(I);
    if (!s) {
        nomem(I);
        return -1;
    }
    d2_obj *nc = d2_dict_new(I);
    if (!nc)
        return -1;
    s->name_counters = D2_AS(d2_dict, nc);
    d2_module *pd = s->paddle = new_module(I, "paddle", NULL, NULL);
    if (!pd || d2_dict_set_str(I, pd->dict, "__unique_name_counters__", nc) < 0) {
        d2_decref(nc);
        return -1;
    }
    d2_decref(nc);
    d2_module *nn = s->nn = new_module(I, "paddle.nn", pd, "nn");
    d2_module *F = s->F = new_module(I, "paddle.nn.functional", nn, "functional");
    d2_module *ini = s->init =
        nn ? new_module(I, "paddle.nn.initializer", nn, "initializer") : NULL;
    d2_module *fluid = s->fluid = new_module(I, "paddle.fluid", pd, "fluid");
    d2_module *dyg = s->dygraph =
        fluid ? new_module(I, "paddle.fluid.dygraph", fluid, "dygraph") : NULL;
    d2_module *fw = new_module(I, "paddle.framework", pd, "framework");
    d2_module *la = s->linalg = new_module(I, "paddle.linalg", pd, "linalg");
    if (!nn || !F || !ini || !fluid || !dyg || !fw || !la)
        return -1;
    /* Paddle 2.6 names paddle.fluid paddle.base; its docs use both spellings
     * (import paddle.base as base; from paddle.base.dygraph.base import to_variable) */
    if (set_attr(I, pd, "base", (d2_obj *)fluid) < 0 ||
        d2_dict_set_str(I, I->modules, "paddle.base", (d2_obj *)fluid) < 0 ||
        d2_dict_set_str(I, I->modules, "paddle.base.dygraph", (d2_obj *)dyg) < 0 ||
        d2_dict_set_str(I, I->modules, "paddle.base.dygraph.base", (d2_obj *)dyg) < 0)
        return -1;
    /* paddle.seed returns the generator, which doc examples show by its repr */
    d2_module *lp = new_module(I, "paddle.base.libpaddle", NULL, NULL);
    if (!lp || !d2_pd_new_class(I, lp, "Generator", NULL, NULL, 0))
        return -1;
    /* the tensor floor: paddle.Tensor and the dtypes */
    if (d2_pd_tensor_class_init(I, s) < 0 || d2_pd_dtype_init(I, s) < 0)
        return -1;
    /* functions (and the Tensor methods that are functions too) */
    if (d2_pd_bindings_add(I, s) < 0 || d2_pd_creation_add(I, s) < 0 ||
        d2_pd_manipulation_add(I, s) < 0 || d2_pd_math_add(I, s) < 0 ||
        d2_pd_linalg_add(I, s) < 0 ||
        d2_pd_functional_add(I, s) < 0 || d2_pd_framework_add(I, s) < 0 ||
        d2_pd_search_add(I, s) < 0 || d2_pd_composite_add(I, s) < 0 ||
        d2_pd_activation_add(I, s) < 0 ||
        d2_pd_autograd_add(I, s) < 0 ||
        set_attr(I, la, "matmul", d2_dict_get_str(I, pd->dict, "matmul")) < 0 ||
        set_attr(I, fw, "no_grad", (d2_obj *)s->ctx_cls) < 0)
        return -1;
    /* Layer, initializers and parameters, the builtin layers */
    if (d2_pd_layer_add(I, s) < 0 || d2_pd_init_add(I, s) < 0 || d2_pd_layers_add(I, s) < 0 ||
        d2_pd_layers_py_add(I, s) < 0 ||
        d2_pd_act_layers_add(I, s) < 0)
        return -1;
    /* fluid.dygraph.guard also as paddle.fluid.dygraph.base.guard-like alias */
    if (set_attr(I, fluid, "dygraph", (d2_obj *)dyg) < 0)
        return -1;
    /* the module paths Paddle defines its layers in (paddle.nn.layer.norm.BatchNorm, ...):
     * each holds every layer class of paddle.nn */
    {
        static const char *const subs[] = {"layers", "common", "conv",      "pooling",
                                           "norm",   "activation", "container"};
        d2_module *lm = new_module(I, "paddle.nn.layer", nn, "layer");
        if (!lm)
            return -1;
        d2_module *sm[D2_COUNTOF(subs)];
        for (size_t k = 0; k < D2_COUNTOF(subs); k++) {
            char full[64];
            snprintf(full, sizeof full, "paddle.nn.layer.%s", subs[k]);
            if (!(sm[k] = new_module(I, full, lm, subs[k])))
                return -1;
        }
        d2_dict *nd = nn->dict;
        for (size_t i = 0; i < nd->n; i++) {
            d2_obj *key = nd->entries[i].key, *v = nd->entries[i].value;
            if (!key || key->kind != D2_OBJ_STR || !v || v->kind != D2_OBJ_CLASS)
                continue;
            const char *name = D2_AS(d2_str, key)->s;
            if (set_attr(I, lm, name, v) < 0)
                return -1;
            for (size_t k = 0; k < D2_COUNTOF(subs); k++)
                if (set_attr(I, sm[k], name, v) < 0)
                    return -1;
        }
    }
    return 0;
}
