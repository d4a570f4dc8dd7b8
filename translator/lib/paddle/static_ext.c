/* static_ext.c - the helper module paddle._static under the Python-written parts of
 * paddle.static and paddle.static.nn (static_ext_src.c), and the lazy lookup that finds them. */
#include "lib/paddle/functions_priv.h"
#include "lib/paddle/layers_priv.h"
#include "lib/paddle/static_api.h"

#include <stdio.h>
#include <string.h>

extern const char d2_static_ext_src[];
extern const char d2_static_nn_ext_src[];

/* The builder a helper appends to: like's, when like is a symbolic tensor, else (static mode)
 * the default main Program's. NULL with an exception. */
static d2_builder *target_builder(d2_interp *I, d2_obj *like, const char *fname)
{
    if (is_sym(like))
        return TOBJ(like)->builder;
    d2_builder *b = NULL;
    if (D2_MODE(I)->up.static_param_builder && D2_MODE(I)->up.static_param_builder(I, &b) < 0)
        return NULL;
    if (!b)
        d2_raise(I, "RuntimeError", "%s: only in static mode (after paddle.enable_static())",
                 fname);
    return b;
}

/* A concrete persistable tensor argument, or NULL with a TypeError. */
static d2_obj *persistable_arg(d2_interp *I, d2_obj *o, const char *fname, const char *what)
{
    if (!is_tensor(o) || is_sym(o) || !TOBJ(o)->persistable)
        return d2_raise(I, "TypeError", "%s: %s must be a persistable variable (a parameter or "
                        "paddle.static.create_global_var), got %s", fname, what,
                        is_sym(o) ? "a temporary Variable" : d2_type_name(o));
    return o;
}

/* _static.unique_name(key): Paddle's unique_name.generate(key) ("key_N"), sharing the layers'
 * counters. */
D2_FN(X_unique_name)
{
    const char *key = d2_pd_get_str(I, a[0], "paddle._static.unique_name", "key");
    const char *n = key ? d2_pd_unique_name(I, key) : NULL;
    return n ? d2_str_from(I, n) : NULL;
}

/* _static.mark(t, name, persistable): t (concrete) takes a variable name and becomes a
 * persistable variable of the Programs that use it (no gradient). */
D2_FN(X_mark)
{
    const char *fname = "paddle._static.mark";
    if (!is_tensor(a[0]) || is_sym(a[0]))
        return d2_raise(I, "TypeError", "%s: expected a concrete Tensor, got %s", fname,
                        d2_type_name(a[0]));
    const char *name = d2_pd_get_str(I, a[1], fname, "name");
    bool pers;
    if (!name || d2_pd_get_bool(I, a[2], fname, "persistable", &pers) < 0)
        return NULL;
    char *n = d2_arena_strdup(I->arena, name);
    if (!n)
        return nomem(I);
    TOBJ(a[0])->name = n;
    TOBJ(a[0])->persistable = pers;
    TOBJ(a[0])->stop_gradient = true;
    /* global_vars: the names of these variables, which Program.all_parameters leaves out */
    d2_obj *mo = d2_dict_get_str(I, I->modules, "paddle._static");
    d2_obj *g = mo && mo->kind == D2_OBJ_MODULE
                    ? d2_dict_get_str(I, D2_AS(d2_module, mo)->dict, "global_vars")
                    : NULL;
    int rc = g && g->kind == D2_OBJ_DICT ? d2_dict_set_str(I, D2_AS(d2_dict, g), n, I->true_) : 0;
    return rc < 0 ? NULL : d2_none(I);
}

/* _static.current(var, like=None): persistable var as a Variable of like's Program (or the
 * default main Program), holding its value after the ops built so far: an optimizer's
 * updated parameter, a batch_norm's new running mean, an earlier assign_to. */
D2_FN(X_current)
{
    const char *fname = "paddle._static.current";
    if (!persistable_arg(I, a[0], fname, "var"))
        return NULL;
    d2_builder *b = target_builder(I, a[1], fname);
    int v = b ? d2_pd_lift(I, b, a[0]) : -1;
    return v < 0 ? NULL : d2_pd_symbolic(I, b, d2_static_current_var(I, b, v));
}

/* _static.assign_to(var, value): paddle.assign(value, output=var) for a persistable var in a
 * static Program: after every run of value's Program, var holds value (a write-back), and ops
 * built later read it through current(). value is cast to var's dtype; its shape must be
 * var's. */
D2_FN(X_assign_to)
{
    const char *fname = "paddle._static.assign_to";
    if (!persistable_arg(I, a[0], fname, "var"))
        return NULL;
    if (!is_sym(a[1]))
        return d2_raise(I, "TypeError", "%s: value must be a Variable of a static Program, got %s",
                        fname, d2_type_name(a[1]));
    d2_builder *b = TOBJ(a[1])->builder;
    const d2_shape *ds = &TOBJ(a[0])->type.shape, *ss = &TOBJ(a[1])->type.shape;
    bool same = ds->ndim == ss->ndim;
    for (int d = 0; same && d < ds->ndim; d++)
        same = ss->dims[d] < 0 || ss->dims[d] == ds->dims[d];
    if (!same)
        return d2_raise(I, "ValueError", "%s: the value's shape differs from the variable's",
                        fname);
    d2_obj *src = d2_pd_cast_to(I, fname, a[1], TOBJ(a[0])->type.dtype);
    if (!src)
        return NULL;
    if (TOBJ(src)->builder != b || !is_sym(src)) {
        d2_decref(src);
        return d2_raise(I, "RuntimeError", "%s: internal: the cast left the Program", fname);
    }
    int v = d2_pd_lift(I, b, a[0]);
    int rc = v < 0 ? -1 : d2_static_write_back(I, b, v, TOBJ(src)->var);
    d2_decref(src);
    return rc < 0 ? NULL : d2_none(I);
}

/* _static.print_op(x, header, summarize): print ops on symbolic x that write, on every run of
 * its Program, header (text known when the Program is built) and then the line
 * "- shape: [..]  - dtype: ..  - data: [..]" of x's value (at most summarize values; -1: all).
 * Returns x. */
D2_FN(X_print_op)
{
    const char *fname = "paddle.static.Print";
    if (!is_sym(a[0]))
        return d2_raise(I, "TypeError", "%s: input must be a Variable of a static Program, got %s",
                        fname, is_tensor(a[0]) ? "a concrete Tensor" : d2_type_name(a[0]));
    const char *header = d2_pd_get_str(I, a[1], fname, "header");
    int64_t summarize;
    if (!header || d2_pd_get_int(I, a[2], fname, "summarize", &summarize) < 0)
        return NULL;
    d2_obj *x = a[0], *none = NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_print);
    d2_ab_str(&b, "message", header);
    d2_ab_str(&b, "style", "text");
    d2_ab_str(&b, "end", "");
    int rc = b.bad ? -1 : d2_apply_op(I, D2_OP_print, &x, 1, &b.a, &none, 0);
    d2_ab_free(&b);
    if (rc == 0) {
        d2_ab_init(&b, D2_OP_print);
        d2_ab_int(&b, "summarize", summarize);
        d2_ab_str(&b, "style", "op");
        rc = b.bad ? -1 : d2_apply_op(I, D2_OP_print, &x, 1, &b.a, &none, 0);
        d2_ab_free(&b);
    }
    if (rc < 0)
        return I->exc ? NULL : nomem(I);
    return d2_incref(x);
}

/* _static.as_variable(x): x when symbolic; a concrete tensor (paddle.full's result in static
 * mode) as a variable of the default main Program holding its value. */
D2_FN(X_as_variable)
{
    if (is_sym(a[0]))
        return d2_incref(a[0]);
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "paddle.static.Print: input must be a Variable, got %s",
                        d2_type_name(a[0]));
    d2_builder *b = target_builder(I, NULL, "paddle.static.Print");
    int v = b ? d2_pd_lift(I, b, a[0]) : -1;
    return v < 0 ? NULL : d2_pd_symbolic(I, b, v);
}

/* _static.var_name(x): the name of symbolic x's variable in its Program (for Print). */
D2_FN(X_var_name)
{
    if (!is_sym(a[0]))
        return d2_raise(I, "TypeError", "paddle.static.Print: input must be a Variable of a "
                        "static Program, got %s",
                        is_tensor(a[0]) ? "a concrete Tensor" : d2_type_name(a[0]));
    return d2_str_from(I, TOBJ(a[0])->builder->prog->vars[TOBJ(a[0])->var].name);
}

/* ---- lazy names: paddle.static.X and paddle.static.nn.X found in the Python sources ---- */

typedef struct lazy_mod {
    const char *module, *source;
} lazy_mod;

static const lazy_mod LAZY[] = {
    {"paddle.static", "paddle.static._static_py"},
    {"paddle.static.nn", "paddle.static.nn._nn_py"},
};

/* module.__getattr__(name): the public name of the module's Python source, kept in the module
 * once found (PEP 562). */
D2_FN(X_getattr)
{
    const lazy_mod *row = def->data;
    const char *name = d2_to_cstr(I, a[0], "name");
    if (!name)
        return NULL;
    d2_obj *mod = d2_dict_get_str(I, I->modules, row->module);
    d2_obj *v = NULL;
    if (name[0] != '_' && mod && mod->kind == D2_OBJ_MODULE) {
        d2_obj *src = d2_import(I, row->source, NULL);
        if (!src)
            return NULL;
        v = d2_getattr_opt(I, src, name);
        d2_decref(src);
        if (I->exc) {
            d2_decref(v);
            return NULL;
        }
    }
    return d2_pd_module_keep_attr(I, mod, row->module, name, v);
}

int d2_static_ext_init(d2_interp *I)
{
    static const d2_def helper_defs[] = {
        D2_DEF("unique_name", "key", X_unique_name, "paddle._static.unique_name"),
        D2_DEF("mark", "t, name, persistable", X_mark, "paddle._static.mark"),
        D2_DEF("current", "var, like=None", X_current, "paddle._static.current"),
        D2_DEF("assign_to", "var, value", X_assign_to, "paddle._static.assign_to"),
        D2_DEF("print_op", "x, header, summarize", X_print_op, "paddle._static.print_op"),
        D2_DEF("var_name", "x", X_var_name, "paddle._static.var_name"),
        D2_DEF("as_variable", "x", X_as_variable, "paddle._static.as_variable"),
    };
    static const d2_def getattr_defs[] = {
        D2_DEF_DATA("__getattr__", "name", X_getattr, "paddle.static.__getattr__", &LAZY[0]),
        D2_DEF_DATA("__getattr__", "name", X_getattr, "paddle.static.nn.__getattr__", &LAZY[1]),
    };
    d2_module *hm = d2_module_new_builtin(I, "paddle._static");
    if (!hm)
        return -1;
    int rc = d2_module_add_defs(I, hm, helper_defs, D2_COUNTOF(helper_defs));
    d2_obj *gv = rc == 0 ? d2_dict_new(I) : NULL;
    rc = gv ? d2_dict_set_str(I, hm->dict, "global_vars", gv) : -1;
    d2_decref(gv);
    d2_obj *pd = d2_dict_get_str(I, I->modules, "paddle");
    if (rc == 0 && pd && pd->kind == D2_OBJ_MODULE)
        rc = d2_dict_set_str(I, D2_AS(d2_module, pd)->dict, "_static", (d2_obj *)hm);
    d2_decref((d2_obj *)hm);
    for (size_t i = 0; rc == 0 && i < D2_COUNTOF(LAZY); i++) {
        d2_obj *m = d2_dict_get_str(I, I->modules, LAZY[i].module);
        if (m && m->kind == D2_OBJ_MODULE)
            rc = d2_module_add_defs(I, D2_AS(d2_module, m), &getattr_defs[i], 1);
    }
    if (rc < 0 || d2_module_add_source(I, "paddle.static._static_py", d2_static_ext_src) < 0 ||
        d2_module_add_source(I, "paddle.static.nn._nn_py", d2_static_nn_ext_src) < 0)
        return -1;
    return 0;
}
