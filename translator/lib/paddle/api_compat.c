/* api_compat.c - hand-called control flow (static.nn.cond/while_loop), paddle.tensor, fluid.layers
 * and the Paddle 1.x spellings (enable_imperative, fluid.Linear, paddle.Executor). */
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"
#include "lib/paddle/static_api.h"
#include "lib/paddle/tensor_api.h"

#include <stdio.h>
#include <string.h>

static bool is_none_obj(d2_interp *I, d2_obj *o) { return !o || o == I->none; }

/* Calls mod.name (a builtin of the paddle tree) with args and the keyword
 * arguments kn[i]=kv[i] (kv[i] NULL: left out). New reference or NULL. */
static d2_obj *call_attr(d2_interp *I, const char *mod, const char *name, d2_obj **args,
                         size_t n, const char *const *kn, d2_obj **kv, size_t nk)
{
    d2_obj *f = d2_jit_mod_attr(I, mod, name);
    if (!f)
        return d2_raise(I, "AttributeError", "module '%s' has no attribute '%s'", mod, name);
    d2_obj *kw = nk ? d2_dict_new(I) : NULL;
    if (nk && !kw)
        return NULL;
    for (size_t i = 0; i < nk; i++)
        if (kv[i] && d2_dict_set_str(I, D2_AS(d2_dict, kw), kn[i], kv[i]) < 0) {
            d2_decref(kw);
            return NULL;
        }
    d2_obj *r = d2_call(I, f, args, n, kw ? D2_AS(d2_dict, kw) : NULL);
    d2_decref(kw);
    return r;
}

/* ======================================================================
 * paddle.static.nn.cond / while_loop called by hand
 * ====================================================================== */

/* Paddle's test of a predicate: a bool tensor of one element. */
static int check_pred(d2_interp *I, d2_obj *p, const char *fname, const char *what)
{
    if (!is_tensor(p)) {
        d2_raise(I, "TypeError", "%s: %s must be a bool Tensor of one element, got %s", fname,
                 what, d2_type_name(p));
        return -1;
    }
    const d2_type *t = &TOBJ(p)->type;
    int64_t numel = 1;
    for (int d = 0; d < t->shape.ndim; d++)
        numel = t->shape.dims[d] < 0 || numel < 0 ? -1 : numel * t->shape.dims[d];
    if (t->dtype != D2_BOOL || (numel != 1 && numel != -1)) {
        char buf[200];
        d2_jit_type_text(t, buf, sizeof buf);
        d2_raise(I, "TypeError", "%s: %s must be a bool Tensor of one element, got %s", fname,
                 what, buf);
        return -1;
    }
    return 0;
}

typedef struct hand_cond {
    d2_obj *fns[2];
} hand_cond;

static d2_obj *cond_branch(d2_interp *I, void *vctx, int which)
{
    hand_cond *c = vctx;
    if (is_none_obj(I, c->fns[which]))
        return d2_none(I);
    return d2_call(I, c->fns[which], NULL, 0, NULL);
}

/* paddle.static.nn.cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
 * eagerly the chosen function's result; on a symbolic pred a cond op */
D2_FN(SN_cond)
{
    const char *fname = "paddle.static.nn.cond";
    if (check_pred(I, a[0], fname, "pred") < 0)
        return NULL;
    hand_cond c = {{a[1], a[2]}};
    if (!is_sym(a[0])) {
        int t = d2_truthy(I, a[0]);
        return t < 0 ? NULL : cond_branch(I, &c, t ? 0 : 1);
    }
    const char *names[1] = {"the output of cond"};
    d2_obj *out = NULL;
    /* a static Program built by hand: the branches extend pred's Program */
    d2_builder *saved = D2_MODE(I)->builder;
    if (!saved)
        D2_MODE(I)->builder = TOBJ(a[0])->builder;
    int rc = d2_jit_cond_core(I, a[0], cond_branch, &c, 1, names, "paddle.static.nn.cond",
                              c.fns, &out);
    D2_MODE(I)->builder = saved;
    return rc < 0 ? NULL : out;
}

typedef struct hand_loop {
    d2_obj *cond, *body;
    size_t n;
} hand_loop;

static d2_obj *loop_test(d2_interp *I, void *vctx, d2_obj **vals)
{
    hand_loop *c = vctx;
    return d2_call(I, c->cond, vals, c->n, NULL);
}

/* body's result as n new references: a list or tuple of n, or one value when n is 1 */
static int loop_body(d2_interp *I, void *vctx, d2_obj **vals, d2_obj **out)
{
    hand_loop *c = vctx;
    d2_obj *r = d2_call(I, c->body, vals, c->n, NULL);
    if (!r)
        return -1;
    size_t m = 1;
    d2_obj **items = d2_jit_seq_items(r, &m);
    if (!items && r->kind != D2_OBJ_TUPLE && r->kind != D2_OBJ_LIST) {
        items = &r;
        m = 1;
    }
    if (m != c->n) {
        d2_decref(r);
        d2_raise(I, "ValueError",
                 "body in while_loop should return the same arity (length and structure) and "
                 "types as loop_vars: %zu values for %zu loop_vars", m, c->n);
        return -1;
    }
    for (size_t i = 0; i < m; i++)
        out[i] = d2_incref(items[i]);
    d2_decref(r);
    return 0;
}

/* The result in the container kind of loop_vars. */
static d2_obj *same_kind(d2_interp *I, d2_obj *like, d2_obj **v, size_t n)
{
    d2_obj *r = like->kind == D2_OBJ_LIST ? d2_list_new(I, n) : d2_jit_tuple_n(I, n);
    for (size_t i = 0; r && i < n; i++) {
        if (like->kind == D2_OBJ_LIST)
            D2_AS(d2_list, r)->items[i] = d2_incref(v[i]);
        else
            D2_AS(d2_tuple, r)->items[i] = d2_incref(v[i]);
    }
    return r;
}

/* Eager: Paddle's dygraph loop, which assigns each new tensor value into the
 * loop_vars' tensors (other values keep their first value) and returns them. */
static d2_obj *eager_loop(d2_interp *I, hand_loop *c, d2_obj *pre, d2_obj *loop_vars,
                          d2_obj **vars, d2_obj **next)
{
    const char *fname = "paddle.static.nn.while_loop";
    size_t n_orig;
    d2_obj **orig = d2_jit_seq_items(loop_vars, &n_orig);
    int t = d2_truthy(I, pre);
    while (t > 0) {
        if (loop_body(I, c, vars, next) < 0)
            return NULL;
        d2_obj *p = loop_test(I, c, next);
        int ok = p ? check_pred(I, p, fname, "the value cond returns") : -1;
        t = ok < 0 ? -1 : d2_truthy(I, p);
        d2_decref(p);
        for (size_t j = 0; j < c->n; j++) {
            if (t >= 0 && is_tensor(next[j]) && is_tensor(orig[j])) {
                d2_obj *args[2] = {next[j], orig[j]};
                d2_obj *r = call_attr(I, "paddle", "assign", args, 2, NULL, NULL, 0);
                if (!r)
                    t = -1;
                d2_decref(r);
            }
            d2_setref(&next[j], NULL);
        }
    }
    if (t < 0)
        return NULL;
    return d2_incref(loop_vars);
}

/* paddle.static.nn.while_loop(cond, body, loop_vars, is_test=False, name=None) */
D2_FN(SN_while_loop)
{
    const char *fname = "paddle.static.nn.while_loop";
    d2_obj *lv = a[2];
    if (lv->kind != D2_OBJ_LIST && lv->kind != D2_OBJ_TUPLE)
        return d2_raise(I, "TypeError", "%s: loop_vars must be a list or tuple, got %s", fname,
                        d2_type_name(lv));
    size_t n;
    d2_obj **init = d2_jit_seq_items(lv, &n);
    if (n == 0)
        return d2_raise(I, "ValueError", "loop_vars in while_loop should not be empty");
    hand_loop c = {a[0], a[1], n};
    d2_obj **vars = d2_calloc(2 * n + 1, sizeof *vars);
    char *nbuf = d2_calloc(n + 1, 32);
    const char **names = d2_calloc(n + 1, sizeof *names);
    d2_obj *result = NULL, *pre = NULL;
    if (!vars || !nbuf || !names) {
        nomem(I);
        goto done;
    }
    for (size_t j = 0; j < n; j++) {
        vars[j] = d2_incref(init[j]);
        snprintf(nbuf + 32 * j, 32, "loop_vars[%zu]", j);
        names[j] = nbuf + 32 * j;
    }
    bool building = D2_MODE(I)->builder != NULL;
    build_mark mark = {0, 0};
    if (building)
        mark = d2_jit_block_mark(I);
    pre = loop_test(I, &c, vars);
    if (!pre || check_pred(I, pre, fname, "the value cond returns") < 0)
        goto done;
    if (!is_sym(pre)) {
        result = eager_loop(I, &c, pre, lv, vars, vars + n);
        goto done;
    }
    /* drop the probe of cond; a static Program built by hand keeps it (dead) and the loop
     * extends pred's Program */
    if (building)
        d2_jit_rollback(I, mark);
    else
        D2_MODE(I)->builder = TOBJ(pre)->builder;
    int rc = d2_jit_build_while(I, n, vars, names, loop_test, loop_body, &c, fname, vars + n);
    if (!building)
        D2_MODE(I)->builder = NULL;
    if (rc < 0)
        goto done;
    result = same_kind(I, lv, vars + n, n);
done:
    d2_decref(pre);
    if (vars)
        decref_all(vars, 2 * n);
    d2_free(vars);
    d2_free(nbuf);
    d2_free(names);
    return result;
}

/* ======================================================================
 * paddle.tensor: the functions of paddle under the module they are defined in
 * ====================================================================== */

/* paddle.tensor.fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None) */
D2_FN(T_fill_constant)
{
    d2_obj *args[3] = {a[0], a[2], a[1]};
    d2_obj *r = call_attr(I, "paddle", "full", args, 3, NULL, NULL, 0);
    if (!r || is_none_obj(I, a[4]))
        return r;
    d2_obj *as[2] = {r, a[4]};
    d2_obj *o = call_attr(I, "paddle", "assign", as, 2, NULL, NULL, 0);
    d2_decref(r);
    return o;
}

/* Copies paddle's functions into paddle.tensor (classes and modules stay out). */
static int tensor_module(d2_interp *I)
{
    d2_module *t = d2_jit_get_module(I, "paddle.tensor");
    d2_obj *pd = d2_dict_get_str(I, I->modules, "paddle");
    if (!t || !pd || pd->kind != D2_OBJ_MODULE) {
        d2_decref((d2_obj *)t);
        return t ? 0 : -1;
    }
    d2_dict *src = D2_AS(d2_module, pd)->dict;
    int rc = d2_dict_set_str(I, src, "tensor", (d2_obj *)t);
    for (size_t i = 0; rc == 0 && i < src->n; i++) {
        d2_obj *k = src->entries[i].key, *v = src->entries[i].value;
        if (!k || k->kind != D2_OBJ_STR || !v || v->kind != D2_OBJ_BUILTIN)
            continue;
        const char *name = D2_AS(d2_str, k)->s;
        if (name[0] != '_' && !d2_dict_get_str(I, t->dict, name))
            rc = d2_dict_set_str(I, t->dict, name, v);
    }
    static const d2_def defs[] = {
        D2_DEF("fill_constant", "shape, dtype, value, force_cpu=False, out=None, name=None",
               T_fill_constant, "paddle.tensor.fill_constant"),
    };
    if (rc == 0)
        rc = d2_module_add_defs(I, t, defs, D2_COUNTOF(defs));
    d2_decref((d2_obj *)t);
    return rc;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

/* m.name = the attribute src_name of module src (when both exist). */
static int alias(d2_interp *I, const char *mod, const char *name, const char *src,
                 const char *src_name)
{
    d2_obj *m = d2_dict_get_str(I, I->modules, mod);
    d2_obj *v = d2_jit_mod_attr(I, src, src_name);
    if (!m || m->kind != D2_OBJ_MODULE || !v)
        return 0;
    return d2_dict_set_str(I, D2_AS(d2_module, m)->dict, name, v);
}

int d2_api_compat_init(d2_interp *I)
{
    static const d2_def static_nn_defs[] = {
        D2_DEF("cond", "pred, true_fn=None, false_fn=None, name=None, return_names=None", SN_cond,
               "paddle.static.nn.cond"),
        D2_DEF("while_loop", "cond, body, loop_vars, is_test=False, name=None", SN_while_loop,
               "paddle.static.nn.while_loop"),
    };
    d2_module *snn = d2_jit_get_module(I, "paddle.static.nn");
    int rc = snn ? d2_module_add_defs(I, snn, static_nn_defs, D2_COUNTOF(static_nn_defs)) : -1;
    d2_decref((d2_obj *)snn);
    if (rc < 0 || tensor_module(I) < 0)
        return -1;
    /* the Paddle 1.x and 2.0 spellings */
    if (alias(I, "paddle", "Executor", "paddle.static", "Executor") < 0 ||
        alias(I, "paddle.fluid", "enable_imperative", "paddle", "disable_static") < 0 ||
        alias(I, "paddle.fluid", "disable_imperative", "paddle", "enable_static") < 0 ||
        alias(I, "paddle.fluid", "Linear", "paddle.fluid.dygraph", "Linear") < 0)
        return -1;
    return 0;
}
