/* static_grad.c - paddle.static.append_backward and paddle.static.gradients: the backward of a
 * Program built op by op, appended by runtime/backward.c, its gradients fetched with Executor.run. */
#include "lib/paddle/static_priv.h"

#include "backward.h"
#include "lib/paddle/jit_priv.h"

#include <string.h>

/* The Program object payload whose builder is b, or NULL. */
static sprog *sprog_of_builder(d2_interp *I, const d2_builder *b)
{
    for (sprog *s = SS(I)->built; s; s = s->next)
        if (s->b == b)
            return s;
    return NULL;
}

/* The builder of symbolic tensor o of a Program built op by op; NULL with a
 * TypeError naming fname otherwise. */
static d2_builder *builder_of(d2_interp *I, d2_obj *o, const char *fname, const char *what)
{
    if (o && o->kind == D2_OBJ_TENSOR && !TOBJ(o)->t && TOBJ(o)->builder &&
        sprog_of_builder(I, TOBJ(o)->builder))
        return TOBJ(o)->builder;
    d2_raise(I, "TypeError", "%s: %s must be a Variable of a static Program, got %s", fname, what,
             o ? d2_type_name(o) : "nothing");
    return NULL;
}

/* The variable of b's Program that item o names: a symbolic tensor of b, a
 * parameter (a concrete tensor, lifted into the Program), a Variable view or
 * a name. -1 with an exception. */
static int item_var(d2_interp *I, d2_builder *b, d2_obj *o, const char *fname)
{
    const char *name = cstr(o);
    if (!name && is_inst(I, o, SS(I)->var_cls))
        name = cstr(iget(I, o, "name"));
    if (name) {
        int v = d2_program_find_var(b->prog, name);
        if (v < 0)
            d2_raise(I, "ValueError", "%s: the Program has no variable named '%s'", fname, name);
        return v;
    }
    if (o && o->kind == D2_OBJ_TENSOR) {
        if (!TOBJ(o)->t && TOBJ(o)->builder != b) {
            d2_raise(I, "ValueError", "%s: a Variable of another Program is used here", fname);
            return -1;
        }
        return d2_pd_lift(I, b, o);
    }
    d2_raise(I, "TypeError", "%s: expected a Variable, a parameter or a name, got %s", fname,
             o ? d2_type_name(o) : "nothing");
    return -1;
}

/* The items of a list/tuple, or o itself as one item (None: none). */
static d2_obj **items_of(d2_obj *o, d2_obj **one, size_t *n)
{
    if (!o || o->kind == D2_OBJ_NONE) {
        *n = 0;
        return one;
    }
    if (is_seq(o))
        return d2_jit_seq_items(o, n);
    *one = o;
    *n = 1;
    return one;
}

/* The variables of the no_grad_set argument (a set, list or tuple of names
 * or Variables; None: none), appended to l[*n..) (grown). -1 with an
 * exception. */
static int no_grad_vars(d2_interp *I, d2_builder *b, d2_obj *set, const char *fname, int **l,
                        int *n)
{
    if (!set || set->kind == D2_OBJ_NONE)
        return 0;
    d2_obj *lst = is_seq(set) ? d2_incref(set) : d2_list_from_iterable(I, set);
    if (!lst)
        return -1;
    size_t k;
    d2_obj **it = d2_jit_seq_items(lst, &k);
    int rc = 0;
    int *nl = d2_realloc(*l, sizeof **l * ((size_t)*n + k + 1));
    if (!nl) {
        d2_decref(lst);
        nomem(I);
        return -1;
    }
    *l = nl;
    for (size_t i = 0; i < k && rc == 0; i++) {
        int v = item_var(I, b, it[i], fname);
        if (v < 0)
            rc = -1;
        else
            nl[(*n)++] = v;
    }
    d2_decref(lst);
    return rc;
}

/* Feeds (block-0 inputs) whose live symbolic tensors all keep stop_gradient
 * (paddle.static.data's default): no gradient flows into them, as in Paddle.
 * Appended to l[*n..). -1 with an exception. */
static int stopped_feeds(d2_interp *I, d2_builder *b, int **l, int *n)
{
    const d2_block *b0 = &b->prog->blocks[0];
    int *nl = d2_realloc(*l, sizeof **l * ((size_t)*n + (size_t)b0->n_params + 1));
    if (!nl) {
        nomem(I);
        return -1;
    }
    *l = nl;
    for (int k = 0; k < b0->n_params; k++) {
        int v = b0->params[k];
        bool stop = true;
        for (d2_tensor_obj *t = b->syms; t && stop; t = t->sym_next)
            if (t->var == v && !t->stop_gradient)
                stop = false;
        if (stop)
            nl[(*n)++] = v;
    }
    return 0;
}

/* Runs d2_gradients on b's Program; the Program's prepared form is dropped. */
static int run_gradients(d2_interp *I, d2_builder *b, const int *targets, const int *tgrads,
                         int n_t, const int *wrt, int n_wrt, const int *stop, int n_stop,
                         int *grads)
{
    d2_err err = {0};
    sprog *s = sprog_of_builder(I, b);
    if (s && !s->has_backward) {
        s->has_backward = true;
        s->fwd_ops = b->prog->blocks[0].n_ops;
    }
    if (d2_gradients(b->prog, b->block, targets, tgrads, n_t, wrt, n_wrt, stop, n_stop, grads,
                     &err) < 0) {
        d2_raise_err(I, &err);
        return -1;
    }
    if (s) {
        d2_exec_free(s->pp);
        s->pp = NULL;
        /* for data parallel: the ops so far are forward and backward, these the gradients */
        s->bwd_ops = b->prog->blocks[0].n_ops;
        int *ng = d2_realloc(s->grads, sizeof *ng * ((size_t)s->n_grads + (size_t)n_wrt + 1));
        if (!ng) {
            nomem(I);
            return -1;
        }
        s->grads = ng;
        for (int k = 0; k < n_wrt; k++)
            if (grads[k] >= 0)
                ng[s->n_grads++] = grads[k];
    }
    return 0;
}

/* A symbolic tensor for gradient variable g of b's Program. */
static d2_obj *grad_obj(d2_interp *I, d2_builder *b, int g)
{
    d2_obj *o = d2_pd_symbolic(I, b, g);
    if (o)
        TOBJ(o)->stop_gradient = false;
    return o;
}

/* Whether name is one the Program generated ("t<N>"), not one a script chose. */
static bool generated_name(const char *name)
{
    if (!name || name[0] != 't' || !name[1])
        return false;
    for (const char *c = name + 1; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    return true;
}

/* paddle.static.append_backward(loss, parameter_list=None, no_grad_set=None, ...): appends the
 * backward of loss to its Program and returns [(parameter, gradient)] for the trainable
 * parameters (all of them by default, in the order the Program took them in) that loss depends
 * on. */
D2_FN(S_append_backward)
{
    const char *fname = def->qualname;
    d2_builder *b = builder_of(I, a[0], fname, "loss");
    if (!b)
        return NULL;
    int loss = TOBJ(a[0])->var;
    int *wrt = NULL, n_wrt = 0, *stop = NULL, n_stop = 0, *grads = NULL;
    d2_obj *r = NULL;
    if (a[1] && a[1]->kind != D2_OBJ_NONE) {
        d2_obj *one;
        size_t n;
        d2_obj **it = items_of(a[1], &one, &n);
        wrt = d2_calloc(n + 1, sizeof *wrt);
        if (!wrt) {
            nomem(I);
            goto done;
        }
        for (size_t i = 0; i < n; i++)
            if ((wrt[n_wrt++] = item_var(I, b, it[i], fname)) < 0)
                goto done;
    } else {
        /* the trainable parameters the Program lifted, in variable order */
        size_t cap = b->lifted ? b->lifted->n : 0;
        wrt = d2_calloc(cap + 1, sizeof *wrt);
        if (!wrt) {
            nomem(I);
            goto done;
        }
        for (int v = 0; v < b->prog->n_vars && cap; v++) {
            if (!b->prog->vars[v].persistable)
                continue;
            for (size_t k = 0; k < b->lifted->n; k++) {
                d2_obj *e = b->lifted->entries[k].value;
                if (!b->lifted->entries[k].key || !e || e->kind != D2_OBJ_TUPLE)
                    continue;
                d2_obj *t = D2_AS(d2_tuple, e)->items[0];
                d2_obj *vo = D2_AS(d2_tuple, e)->items[1];
                if (vo->kind == D2_OBJ_INT && D2_AS(d2_int, vo)->v == v &&
                    t->kind == D2_OBJ_TENSOR && TOBJ(t)->persistable && !TOBJ(t)->stop_gradient)
                    wrt[n_wrt++] = v;
            }
        }
    }
    if (no_grad_vars(I, b, a[2], fname, &stop, &n_stop) < 0 ||
        stopped_feeds(I, b, &stop, &n_stop) < 0)
        goto done;
    grads = d2_calloc((size_t)n_wrt + 1, sizeof *grads);
    if (!grads) {
        nomem(I);
        goto done;
    }
    if (run_gradients(I, b, &loss, NULL, 1, wrt, n_wrt, stop, n_stop, grads) < 0)
        goto done;
    r = d2_list_new(I, 0);
    for (int i = 0; r && i < n_wrt; i++) {
        if (grads[i] < 0)
            continue;
        /* the parameter as the script knows it: its lifted tensor, else a symbolic one */
        d2_obj *p = NULL;
        for (size_t k = 0; b->lifted && k < b->lifted->n && !p; k++) {
            d2_obj *e = b->lifted->entries[k].value;
            if (b->lifted->entries[k].key && e && e->kind == D2_OBJ_TUPLE &&
                D2_AS(d2_int, D2_AS(d2_tuple, e)->items[1])->v == wrt[i])
                p = d2_incref(D2_AS(d2_tuple, e)->items[0]);
        }
        if (!p)
            p = d2_pd_symbolic(I, b, wrt[i]);
        /* Paddle names a parameter's gradient "<param>@GRAD", and scripts fetch it so; a
         * gradient variable that is not the backward's own (a name taken) keeps its name */
        if (p && grads[i] != wrt[i] && generated_name(b->prog->vars[grads[i]].name) &&
            !b->prog->vars[grads[i]].persistable) {
            char gn[512];
            d2_err err = {0};
            snprintf(gn, sizeof gn, "%s@GRAD", b->prog->vars[wrt[i]].name);
            if (d2_program_rename_var(b->prog, grads[i], gn, &err) < 0) {
                d2_decref(p);
                d2_raise_err(I, &err);
                d2_setref(&r, NULL);
                break;
            }
        }
        d2_obj *g = p ? grad_obj(I, b, grads[i]) : NULL;
        d2_obj *pair = g ? d2_tuple_pack(I, 2, p, g) : NULL;
        d2_decref(p);
        d2_decref(g);
        if (!pair || d2_list_append(I, r, pair) < 0)
            d2_setref(&r, NULL);
        d2_decref(pair);
    }
done:
    d2_free(wrt);
    d2_free(stop);
    d2_free(grads);
    return r;
}

/* paddle.static.gradients(targets, inputs, target_gradients=None, no_grad_set=None): appends
 * the backward of the targets (seeded by target_gradients, ones where None) and returns the
 * gradients of the inputs: a list with None where an input gets none, [] when none does. */
D2_FN(S_gradients)
{
    const char *fname = def->qualname;
    d2_obj *one_t, *one_i, *one_g;
    size_t nt, ni, ng;
    d2_obj **ts = items_of(a[0], &one_t, &nt);
    d2_obj **is = items_of(a[1], &one_i, &ni);
    d2_obj **gs = items_of(a[2], &one_g, &ng);
    if (!ts || !is || !gs)
        return nomem(I);
    if (nt == 0)
        return d2_raise(I, "ValueError", "%s: targets is empty", fname);
    if (ng && ng != nt)
        return d2_raise(I, "ValueError",
                        "%s: %zu target gradients are given for %zu targets", fname, ng, nt);
    d2_builder *b = builder_of(I, ts[0], fname, "targets");
    if (!b)
        return NULL;
    int *v = d2_calloc(2 * nt + 2 * ni + 1, sizeof *v), *stop = NULL, n_stop = 0;
    d2_obj *r = NULL;
    if (!v)
        return nomem(I);
    int *targets = v, *tg = v + nt, *wrt = v + 2 * nt, *grads = v + 2 * nt + ni;
    for (size_t i = 0; i < nt; i++) {
        if (!builder_of(I, ts[i], fname, "targets"))
            goto done;
        if (TOBJ(ts[i])->builder != b) {
            d2_raise(I, "ValueError", "%s: the targets belong to different Programs", fname);
            goto done;
        }
        targets[i] = TOBJ(ts[i])->var;
        tg[i] = -1;
        if (ng && gs[i]->kind != D2_OBJ_NONE && (tg[i] = item_var(I, b, gs[i], fname)) < 0)
            goto done;
    }
    for (size_t i = 0; i < ni; i++)
        if ((wrt[i] = item_var(I, b, is[i], fname)) < 0)
            goto done;
    if (no_grad_vars(I, b, a[3], fname, &stop, &n_stop) < 0 ||
        stopped_feeds(I, b, &stop, &n_stop) < 0)
        goto done;
    if (run_gradients(I, b, targets, tg, (int)nt, wrt, (int)ni, stop, n_stop, grads) < 0)
        goto done;
    bool any = false;
    for (size_t i = 0; i < ni; i++)
        any = any || grads[i] >= 0;
    r = d2_list_new(I, 0);
    for (size_t i = 0; r && any && i < ni; i++) {
        d2_obj *g = grads[i] >= 0 ? grad_obj(I, b, grads[i]) : d2_incref(I->none);
        if (!g || d2_list_append(I, r, g) < 0)
            d2_setref(&r, NULL);
        d2_decref(g);
    }
done:
    d2_free(v);
    d2_free(stop);
    return r;
}

int d2_static_grad_init(d2_interp *I, st_state *s)
{
    static const d2_def defs[] = {
        D2_DEF("append_backward",
               "loss, parameter_list=None, no_grad_set=None, callbacks=None, checkpoints=None, "
               "distop_context=None",
               S_append_backward, "paddle.static.append_backward"),
        D2_DEF("gradients", "targets, inputs, target_gradients=None, no_grad_set=None",
               S_gradients, "paddle.static.gradients"),
    };
    return d2_module_add_defs(I, s->statics, defs, D2_COUNTOF(defs));
}
