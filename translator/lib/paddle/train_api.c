/* train_api.c - training support: optimizer updates written back in place, gradients, lazy modules. */
#include "lib/paddle/train.h"

#include "lib/paddle/functions_priv.h"
#include "lib/paddle/layers_priv.h"
#include "lib/paddle/static_api.h"

#include <stdio.h>
#include <string.h>

/* The tensor argument `what` of fname, concrete (eager); NULL with an exception. */
static d2_obj *concrete(d2_interp *I, d2_obj *o, const char *fname, const char *what)
{
    if (!is_tensor(o))
        return d2_raise(I, "TypeError", "%s: %s must be a Tensor, got %s", fname, what,
                        d2_type_name(o));
    if (is_sym(o))
        return d2_raise(I, "NotImplementedError",
                        "%s: updating a parameter of a static Program is not supported; "
                        "optimizers run in dygraph mode",
                        fname);
    return o;
}

/* Copies the data of s (on dst's backend) into dst's storage, so that every
 * tensor object sharing that storage sees it; where the layouts differ, dst
 * takes s instead. */
static int write_tensor(d2_interp *I, d2_obj *dst, d2_tensor *s)
{
    d2_tensor *d = TOBJ(dst)->t;
    int64_t n = d2_tensor_numel(d);
    if (d->dtype == s->dtype && n == d2_tensor_numel(s) && d2_tensor_is_contiguous(d) &&
        d2_tensor_is_contiguous(s) && d->storage && s->storage &&
        d->storage->backend == s->storage->backend && d->kind == D2_VALUE_TENSOR) {
        if (n == 0 || d->storage == s->storage)
            return 0;
        d2_backend *be = d->storage->backend ? d->storage->backend : d2_cpu_backend();
        size_t es = d2_dtype_size(d->dtype);
        d2_err err;
        D2_ERR_FRESH(err);
        if (be->copy(be, d->storage->data, (size_t)d->offset * es, s->storage->data,
                     (size_t)s->offset * es, (size_t)n * es, &err) < 0) {
            d2_raise_err(I, &err);
            return -1;
        }
        return 0;
    }
    d2_tensor_unref(d);
    TOBJ(dst)->t = d2_tensor_ref(s);
    d2_tensor_get_shape(s, &TOBJ(dst)->type.shape);
    TOBJ(dst)->type.dtype = s->dtype;
    return 0;
}

/* write_tensor of src (concrete), moved first to dst's backend when it lives
 * elsewhere (a loaded CPU state_dict for a tensor on a device). */
static int write_into(d2_interp *I, d2_obj *dst, d2_obj *src)
{
    d2_tensor *d = TOBJ(dst)->t, *s = TOBJ(src)->t, *moved = NULL;
    d2_err err;
    D2_ERR_FRESH(err);
    if (d->storage && s->storage && d->storage->backend != s->storage->backend) {
        /* a CPU value (a loaded state_dict) for a tensor on a device, or back */
        if (!(moved = d2_tensor_copy_to(s, d->storage->backend, &err))) {
            d2_raise_err(I, &err);
            return -1;
        }
        s = moved;
    }
    int rc = write_tensor(I, dst, s);
    d2_tensor_unref(moved);
    return rc;
}

/* Sets attribute `name` of op builder b from a Python value, by the schema's type. */
static int set_op_attr(d2_interp *I, d2_ab *b, const char *fname, const char *name, d2_obj *v)
{
    int idx = d2_attr_index(b->def, name);
    if (idx < 0) {
        d2_raise(I, "TypeError", "%s: op %s has no attribute '%s'", fname, b->def->name, name);
        return -1;
    }
    switch (b->def->attrs[idx].type) {
    case D2_ATTR_BOOL: {
        bool x;
        if (d2_to_bool(I, v, name, &x) < 0)
            return -1;
        d2_ab_bool(b, name, x);
        break;
    }
    case D2_ATTR_INT: {
        int64_t x;
        if (d2_to_int64(I, v, name, &x) < 0)
            return -1;
        d2_ab_int(b, name, x);
        break;
    }
    case D2_ATTR_FLOAT: {
        double x;
        if (d2_to_double(I, v, name, &x) < 0)
            return -1;
        d2_ab_float(b, name, x);
        break;
    }
    case D2_ATTR_STR: {
        const char *x = d2_to_cstr(I, v, name);
        if (!x)
            return -1;
        d2_ab_str(b, name, x);
        break;
    }
    default:
        d2_raise(I, "TypeError", "%s: attribute '%s' cannot be set here", fname, name);
        return -1;
    }
    return 0;
}

/* _optim.update(op, param, grad, lr, states, attrs): runs optimizer op `op`
 * (ops.def: param, grad, lr, state... -> param, state...) and writes the
 * results back into param and the state tensors in place. lr is a number
 * or a one-element tensor. With grad a gradient Variable of a static
 * Program (Optimizer.minimize in static mode) the op is appended to that
 * Program instead, param, lr and the states become its persistable
 * variables, and each result is registered as the write-back of the
 * variable it updates (Executor.run copies it there after every run). */
D2_FN(T_update)
{
    const char *fname = "paddle._optim.update";
    const char *opname = d2_to_cstr(I, a[0], "op");
    if (!opname)
        return NULL;
    const d2_opdef *od = d2_op_lookup(opname, strlen(opname));
    if (!od || !od->infer || od->n_ins < 3 || od->n_outs != od->n_ins - 2)
        return d2_raise(I, "ValueError", "%s: '%s' is not an optimizer op", fname, opname);
    d2_builder *sb = is_tensor(a[2]) && is_sym(a[2]) ? TOBJ(a[2])->builder : NULL;
    if (!concrete(I, a[1], fname, "param") || (!sb && !concrete(I, a[2], fname, "grad")))
        return NULL;
    if (!is_seq(a[4]) || seq_len(a[4]) != (size_t)od->n_ins - 3)
        return d2_raise(I, "TypeError", "%s: %s takes %d state tensors", fname, opname,
                        od->n_ins - 3);
    if (a[5]->kind != D2_OBJ_DICT)
        return d2_raise(I, "TypeError", "%s: attrs must be a dict", fname);
    d2_dtype dt = TOBJ(a[1])->type.dtype;
    d2_obj *ins[D2_MAX_PORTS] = {a[1], NULL, NULL};
    d2_obj *outs[D2_MAX_PORTS] = {NULL};
    d2_obj *r = NULL;
    ins[1] = d2_pd_cast_to(I, fname, a[2], dt);
    ins[2] = is_tensor(a[3]) ? d2_pd_cast_to(I, fname, a[3], dt) : d2_pd_scalar_tensor(I, a[3], dt);
    d2_ab b;
    d2_ab_init(&b, od->id);
    int n_in = od->n_ins, n_out = od->n_outs;
    if (!ins[1] || !ins[2])
        goto done;
    for (int i = 3; i < n_in; i++)
        if (!(ins[i] = d2_incref(concrete(I, seq_item(a[4], (size_t)i - 3), fname, "a state"))))
            goto done;
    d2_dict *ad = D2_AS(d2_dict, a[5]);
    for (size_t i = 0; i < ad->n; i++) {
        d2_obj *k = ad->entries[i].key;
        if (!k)
            continue;
        const char *kn = d2_to_cstr(I, k, "attribute name");
        if (!kn || set_op_attr(I, &b, fname, kn, ad->entries[i].value) < 0)
            goto done;
    }
    if (b.bad) {
        nomem(I);
        goto done;
    }
    if (d2_pd_apply_named(I, fname, od->id, ins, n_in, &b.a, outs, n_out) < 0)
        goto done;
    for (int i = 0; i < n_out; i++) {
        d2_obj *dst = i == 0 ? a[1] : ins[i + 2];
        if (sb) {
            int v = d2_pd_lift(I, sb, dst);
            if (v < 0 || d2_static_write_back(I, sb, v, TOBJ(outs[i])->var) < 0)
                goto done;
        } else if (write_into(I, dst, outs[i]) < 0)
            goto done;
    }
    r = d2_none(I);
done:
    d2_ab_free(&b);
    for (int i = 1; i < n_in; i++)
        d2_decref(ins[i]);
    for (int i = 0; i < n_out; i++)
        d2_decref(outs[i]);
    return r;
}

/* _optim.static_lr(loss, lr, scheduler): Executor.run of loss's Program
 * writes scheduler() into lr before every run. */
D2_FN(T_static_lr)
{
    return d2_static_set_lr(I, a[0], a[1], a[2]) < 0 ? NULL : d2_none(I);
}

/* _optim.static_param(var, param): param (a concrete tensor: a parameter,
 * the learning rate) as a Variable of the static Program of Variable var (a
 * symbolic tensor of its persistable variable), so that ops on it (weight
 * decay, a group's learning-rate factor) read its value on every run. */
D2_FN(T_static_param)
{
    const char *fname = "paddle._optim.static_param";
    if (!is_tensor(a[0]) || !is_sym(a[0]))
        return d2_raise(I, "TypeError", "%s: var must be a Variable of a static Program", fname);
    if (!concrete(I, a[1], fname, "param"))
        return NULL;
    d2_builder *b = TOBJ(a[0])->builder;
    int v = d2_pd_lift(I, b, a[1]);
    return v < 0 ? NULL : d2_pd_symbolic(I, b, v);
}

/* _optim.write(dst, src): src's values into dst's storage (set_state_dict). */
D2_FN(T_write)
{
    const char *fname = "paddle._optim.write";
    if (!concrete(I, a[0], fname, "dst") || !concrete(I, a[1], fname, "src"))
        return NULL;
    d2_obj *s = d2_pd_cast_to(I, fname, a[1], TOBJ(a[0])->type.dtype);
    if (!s)
        return NULL;
    if (!d2_shape_equal(&TOBJ(a[0])->type.shape, &TOBJ(s)->type.shape)) {
        d2_decref(s);
        return d2_raise(I, "ValueError", "%s: shapes differ", fname);
    }
    int rc = write_into(I, a[0], s);
    d2_decref(s);
    return rc < 0 ? NULL : d2_none(I);
}

/* _optim.grad(p): the gradient backward accumulated into p, or None. */
D2_FN(T_grad)
{
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "grad: expected a Tensor, got %s", d2_type_name(a[0]));
    d2_obj *g = TOBJ(a[0])->grad;
    return d2_incref(g ? g : I->none);
}

/* _optim.set_grad(p, g) and Tensor._set_grad_ivar(g): p's gradient becomes g
 * (None clears it). */
D2_FN(T_set_grad)
{
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "_set_grad_ivar: expected a Tensor, got %s",
                        d2_type_name(a[0]));
    d2_obj *g = a[1];
    if (is_none(I, g)) {
        d2_setref(&TOBJ(a[0])->grad, NULL);
        return d2_none(I);
    }
    if (!is_tensor(g))
        return d2_raise(I, "TypeError", "_set_grad_ivar: the gradient must be a Tensor, got %s",
                        d2_type_name(g));
    if (!d2_shape_equal(&TOBJ(a[0])->type.shape, &TOBJ(g)->type.shape))
        return d2_raise(I, "ValueError",
                        "_set_grad_ivar: the gradient's shape differs from the tensor's");
    d2_setref(&TOBJ(a[0])->grad, d2_incref(g));
    return d2_none(I);
}

/* ======================================================================
 * Lazy modules: a module's __getattr__ (PEP 562) finds a missing name as a
 * Python-written submodule (paddle.optimizer) or in companion modules
 * (paddle.nn.CrossEntropyLoss in paddle.nn.layer.loss), then keeps it.
 * ====================================================================== */

typedef struct lazy_row {
    const char *module;
    const char *companions[3];
} lazy_row;

static const lazy_row LAZY[] = {
    /* paddle.DataParallel, ...; paddle.is_compiled_with_cuda and the other device queries */
    {"paddle", {"paddle.distributed", "paddle._more_py", "paddle.device"}},
    {"paddle.nn", {"paddle.nn.layer.loss", "paddle.nn.clip", NULL}},
    {"paddle.nn.functional", {"paddle.nn.functional.loss", NULL}},
    {"paddle.metric", {"paddle.metric.metrics", "paddle.metric.auc", NULL}},
    {"paddle.linalg", {"paddle._linalg_py", NULL}},
    {"paddle.nn.initializer", {"paddle.nn.initializer_ext", NULL}},
};

/* Names of a lazy module that are another module: paddle.nn.loss is
 * paddle.nn.layer.loss in Paddle too. */
static const struct {
    const char *module, *name, *target;
} ALIASES[] = {
    {"paddle.nn", "loss", "paddle.nn.layer.loss"},
};

static d2_obj *try_import(d2_interp *I, const char *name)
{
    d2_obj *m = d2_import(I, name, NULL);
    if (!m && d2_exc_matches(I, d2_exc_class(I, "ModuleNotFoundError")))
        d2_exc_clear(I);
    return m;
}

D2_FN(T_getattr)
{
    const lazy_row *row = def->data;
    const char *name = d2_to_cstr(I, a[0], "name");
    if (!name)
        return NULL;
    d2_obj *mod = d2_dict_get_str(I, I->modules, row->module);
    if (!mod || mod->kind != D2_OBJ_MODULE)
        return d2_raise(I, "AttributeError", "module '%s' has no attribute '%s'", row->module,
                        name);
    d2_obj *v = NULL;
    if (strncmp(name, "__", 2) != 0) {
        char full[256];
        snprintf(full, sizeof full, "%s.%s", row->module, name);
        const char *home = d2_pd_layers_py_home(I, D2_AS(d2_module, mod), name);
        for (size_t i = 0; !home && i < D2_COUNTOF(ALIASES); i++)
            if (!strcmp(ALIASES[i].module, row->module) && !strcmp(ALIASES[i].name, name)) {
                v = d2_import(I, ALIASES[i].target, NULL);
                if (!v)
                    return NULL;
            }
        if (!v && home) {
            d2_obj *h = d2_import(I, home, NULL);
            if (!h)
                return NULL;
            v = d2_getattr(I, h, name);
            d2_decref(h);
            if (!v)
                return NULL;
        }
        if (!v)
            v = try_import(I, full);
        for (int i = 0; !v && !I->exc && i < 3 && row->companions[i]; i++) {
            d2_obj *c = d2_import(I, row->companions[i], NULL);
            if (!c)
                return NULL;
            v = d2_getattr_opt(I, c, name);
            d2_decref(c);
        }
        if (I->exc) {
            d2_decref(v);
            return NULL;
        }
    }
    return d2_pd_module_keep_attr(I, mod, row->module, name, v);
}

/* The end of a module's lazy __getattr__ (PEP 562): v (a new reference, or NULL when no source
 * had the name) is kept in the module's dict, so the hook runs once per name; NULL raises
 * AttributeError as Python does. */
d2_obj *d2_pd_module_keep_attr(d2_interp *I, d2_obj *mod, const char *modname, const char *name,
                               d2_obj *v)
{
    if (!v)
        return d2_raise(I, "AttributeError", "module '%s' has no attribute '%s'", modname, name);
    if (d2_dict_set_str(I, D2_AS(d2_module, mod)->dict, name, v) < 0)
        d2_setref(&v, NULL);
    return v;
}

int d2_train_init(d2_interp *I)
{
    static const d2_def optim_defs[] = {
        D2_DEF("update", "op, param, grad, lr, states, attrs", T_update, "paddle._optim.update"),
        D2_DEF("write", "dst, src", T_write, "paddle._optim.write"),
        D2_DEF("static_lr", "loss, lr, scheduler", T_static_lr, "paddle._optim.static_lr"),
        D2_DEF("static_param", "var, param", T_static_param, "paddle._optim.static_param"),
        D2_DEF("grad", "p", T_grad, "paddle._optim.grad"),
        D2_DEF("set_grad", "p, g", T_set_grad, "paddle._optim.set_grad"),
    };
    static const d2_def tensor_defs[] = {
        D2_DEF("_set_grad_ivar", "x, value", T_set_grad, "Tensor._set_grad_ivar"),
    };
    static const d2_def getattr_defs[] = {
        D2_DEF_DATA("__getattr__", "name", T_getattr, "paddle.__getattr__", &LAZY[0]),
        D2_DEF_DATA("__getattr__", "name", T_getattr, "paddle.nn.__getattr__", &LAZY[1]),
        D2_DEF_DATA("__getattr__", "name", T_getattr, "paddle.nn.functional.__getattr__",
                    &LAZY[2]),
        D2_DEF_DATA("__getattr__", "name", T_getattr, "paddle.metric.__getattr__", &LAZY[3]),
        D2_DEF_DATA("__getattr__", "name", T_getattr, "paddle.linalg.__getattr__", &LAZY[4]),
        D2_DEF_DATA("__getattr__", "name", T_getattr, "paddle.nn.initializer.__getattr__",
                    &LAZY[5]),
    };
    pd_state *s = ST(I);
    if (!s)
        return -1;
    d2_module *om = d2_module_new_builtin(I, "paddle._optim");
    if (!om)
        return -1;
    int rc = d2_module_add_defs(I, om, optim_defs, D2_COUNTOF(optim_defs));
    d2_decref((d2_obj *)om);
    if (rc < 0 || d2_class_add_defs(I, s->tensor_cls, tensor_defs, 1, D2_DEF_SELF) < 0)
        return -1;
    for (size_t i = 0; i < D2_COUNTOF(LAZY); i++) {
        d2_obj *m = d2_dict_get_str(I, I->modules, LAZY[i].module);
        if (m && m->kind == D2_OBJ_MODULE &&
            d2_module_add_defs(I, D2_AS(d2_module, m), &getattr_defs[i], 1) < 0)
            return -1;
    }
    static const struct {
        const char *name;
        const char *src;
    } srcs[] = {
        {"paddle.optimizer", d2_train_optimizer_src},
        {"paddle.optimizer.lr", d2_train_lr_src},
        {"paddle.regularizer", d2_train_regularizer_src},
        {"paddle.nn.clip", d2_train_clip_src},
        {"paddle.nn.functional.loss", d2_train_loss_src},
        {"paddle.nn.layer.loss", d2_train_loss_layers_src},
        {"paddle.metric.metrics", d2_train_metric_src},
        {"paddle.io", d2_train_io_src},
        {"paddle.device", d2_pd_device_src},
        {"paddle.device.cuda", d2_pd_device_cuda_src},
        {"paddle.utils", d2_pd_utils_src},
        {"paddle.utils.unique_name", d2_pd_unique_name_src},
    };
    for (size_t i = 0; i < D2_COUNTOF(srcs); i++)
        if (d2_module_add_source(I, srcs[i].name, srcs[i].src) < 0)
            return -1;
    return d2_pd_distributed_init(I);
}
