/* jit_runtime.c - the _jst helpers of converted code for branches and operators: cond over
 * both branches of an if on a tensor (IfElse, IfExp), and / or / not, print, assert, casts, len,
 * shape, and _jst.Call. */
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"

#include "lib/paddle/tensor_api.h"

#include <stdio.h>
#include <string.h>

/* ======================================================================
 * cond: both branches of an if on a tensor
 * ====================================================================== */

typedef struct merge {
    d2_interp *I;
    d2_builder *B;
    int blk[2];
    int n, cap;
    int *yv[2];
    d2_obj **info; /* per yield: the TensorArray info (owned) or NULL */
    const char *what; /* "the if at model.py:24" */
    d2_obj *const *fns; /* the if's two branch functions, or NULL */
} merge;

static void merge_free(merge *m)
{
    for (int k = 0; k < m->n; k++)
        d2_decref(m->info[k]);
    d2_free(m->yv[0]);
    d2_free(m->yv[1]);
    d2_free(m->info);
}

/* The variable for value o in branch block `side`; lifts concrete tensors. */
static int side_var(merge *m, int side, d2_obj *o)
{
    int saved = m->B->block;
    m->B->block = m->blk[side];
    int v = d2_pd_lift(m->I, m->B, o);
    m->B->block = saved;
    return v;
}

/* A constant made in branch block `side`. */
static d2_obj *side_const(merge *m, int side, d2_dtype dt, const d2_shape *s, double v)
{
    int saved = m->B->block;
    m->B->block = m->blk[side];
    d2_obj *r = d2_jit_constant(m->I, dt, s, v);
    m->B->block = saved;
    return r;
}

/* Records a pair of yields; returns a marker for the cond result. */
static d2_obj *merge_yield(merge *m, d2_obj *a, d2_obj *b, d2_obj *info)
{
    d2_interp *I = m->I;
    int va = side_var(m, 0, a);
    int vb = va < 0 ? -1 : side_var(m, 1, b);
    if (vb < 0)
        return NULL;
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 8;
        int *y0 = d2_realloc(m->yv[0], sizeof(int) * (size_t)cap);
        if (y0)
            m->yv[0] = y0;
        int *y1 = y0 ? d2_realloc(m->yv[1], sizeof(int) * (size_t)cap) : NULL;
        if (y1)
            m->yv[1] = y1;
        d2_obj **inf = y1 ? d2_realloc(m->info, sizeof(d2_obj *) * (size_t)cap) : NULL;
        if (!inf)
            return nomem(I);
        m->info = inf;
        m->cap = cap;
    }
    m->yv[0][m->n] = va;
    m->yv[1][m->n] = vb;
    m->info[m->n] = d2_incref(info);
    return d2_jit_new_slot(I, m->n++);
}

bool d2_jit_internal_name(const char *name)
{
    return strncmp(name, "_return_", 8) == 0 || strncmp(name, "_break_", 7) == 0 ||
           strncmp(name, "_continue_", 10) == 0;
}

const char *d2_jit_kind_text(d2_interp *I, d2_obj *o, char *buf, size_t n)
{
    if (is_tensor(o)) {
        char ts[160];
        d2_type_str(&TOBJ(o)->type, ts, sizeof ts);
        snprintf(buf, n, "a %s tensor", ts);
    } else if (is_array(I, o)) {
        snprintf(buf, n, "a list grown in a tensor loop");
    } else if (is_pynum(o) || (o->kind == D2_OBJ_STR && d2_len(I, o) <= 40)) {
        d2_obj *r = d2_repr(I, o);
        snprintf(buf, n, "the Python %s %s", d2_type_name(o), r ? cstr(r) : "?");
        d2_decref(r);
        if (!r)
            d2_exc_clear(I);
    } else {
        snprintf(buf, n, "a Python %s", d2_type_name(o));
    }
    return buf;
}

static d2_obj *mismatch(merge *m, const char *name, d2_obj *a, d2_obj *b, const char *why)
{
    char ka[256], kb[256], nm[300];
    if (strncmp(name, "_return_value", 13) == 0) /* the transform's own name */
        snprintf(nm, sizeof nm, "the returned value%s%s", name[13] ? " " : "", name + 13);
    else
        snprintf(nm, sizeof nm, "'%s'", name);
    return d2_raise(m->I, "TypeError",
                    "%s is %s in the true branch but %s in the false branch of %s%s%s", nm,
                    d2_jit_kind_text(m->I, a, ka, sizeof ka),
                    d2_jit_kind_text(m->I, b, kb, sizeof kb), m->what, why,
                    nm[0] == 't' ? "; every return inside a loop or if on a tensor must give the "
                                   "same kind of value" : "");
}

/* True when list o holds only tensors (or is empty): it becomes a tensor array. */
bool d2_jit_tensor_list(d2_obj *o)
{
    if (o->kind != D2_OBJ_LIST)
        return false;
    d2_list *l = D2_AS(d2_list, o);
    for (size_t i = 0; i < l->n; i++)
        if (!is_tensor(l->items[i]))
            return false;
    return true;
}

/* A tensor array holding the tensors of list l, made in branch block `side`. */
static d2_obj *side_array(merge *m, int side, d2_obj *l, d2_dtype dt)
{
    int saved = m->B->block;
    m->B->block = m->blk[side];
    size_t n;
    d2_obj **items = d2_jit_seq_items(l, &n);
    d2_obj *t = d2_jit_array_of(m->I, items, n, dt);
    m->B->block = saved;
    return t;
}

/* Lists of tensors that grow differently in the two branches (append in a
 * branch) become tensor arrays, as Paddle does. */
static d2_obj *merge_lists(merge *m, d2_obj *a, d2_obj *b, const char *name)
{
    d2_obj *first = D2_AS(d2_list, a)->n ? D2_AS(d2_list, a)->items[0]
                                         : D2_AS(d2_list, b)->items[0];
    d2_dtype dt = TOBJ(first)->type.dtype;
    d2_obj *lists[2] = {a, b};
    for (int w = 0; w < 2; w++)
        for (size_t i = 0; i < D2_AS(d2_list, lists[w])->n; i++)
            if (TOBJ(D2_AS(d2_list, lists[w])->items[i])->type.dtype != dt)
                return mismatch(m, name, a, b, " (lists of tensors of different dtypes)");
    d2_obj *ta = side_array(m, 0, a, dt);
    d2_obj *tb = ta ? side_array(m, 1, b, dt) : NULL;
    d2_obj *info = tb ? d2_dict_new(m->I) : NULL;
    d2_obj *r = info ? merge_yield(m, ta, tb, info) : NULL;
    d2_decref(ta);
    d2_decref(tb);
    d2_decref(info);
    return r;
}

static bool binds_name(const d2_ast_expr *t, const char *name)
{
    if (t->kind == D2_AST_NAME)
        return strcmp(t->name.id, name) == 0;
    if (t->kind == D2_AST_TUPLE || t->kind == D2_AST_LIST)
        for (uint32_t i = 0; i < t->tuple.elts.n; i++)
            if (binds_name(t->tuple.elts.items[i], name))
                return true;
    if (t->kind == D2_AST_STARRED)
        return binds_name(t->starred.value, name);
    return false;
}

/* The line of the first top-level statement of branch function fn that
 * assigns name; 0 when none is found. */
static uint32_t assign_line(d2_obj *fn, const char *name)
{
    if (!fn || fn->kind != D2_OBJ_FUNCTION || !D2_AS(d2_function, fn)->body)
        return 0;
    const d2_ast_seq *body = D2_AS(d2_function, fn)->body;
    for (uint32_t i = 0; i < body->n; i++) {
        const d2_ast_stmt *st = body->items[i];
        bool hit = false;
        if (st->kind == D2_AST_ASSIGN)
            for (uint32_t k = 0; k < st->assign.targets.n && !hit; k++)
                hit = binds_name(st->assign.targets.items[k], name);
        else if (st->kind == D2_AST_AUG_ASSIGN)
            hit = binds_name(st->aug_assign.target, name);
        else if (st->kind == D2_AST_ANN_ASSIGN)
            hit = binds_name(st->ann_assign.target, name);
        if (hit)
            return st->span.line;
    }
    return 0;
}

/* The line of the first statement of branch function fn, 0 when it holds
 * only the transform's closing return (an if without else). */
static uint32_t branch_line(d2_obj *fn)
{
    if (!fn || fn->kind != D2_OBJ_FUNCTION || !D2_AS(d2_function, fn)->body)
        return 0;
    const d2_ast_seq *body = D2_AS(d2_function, fn)->body;
    if (body->n == 0)
        return 0;
    const d2_ast_stmt *st = body->items[0];
    if (body->n == 1 && st->kind == D2_AST_RETURN)
        return 0;
    return st->span.line;
}

/* Merges the values a (true branch) and b (false branch) of one name into
 * a template: equal Python values stay, tensors become cond results. */
static d2_obj *unify(merge *m, d2_obj *a, d2_obj *b, const char *name, int depth)
{
    d2_interp *I = m->I;
    if (a == b)
        return d2_incref(a);
    bool ua = is_undef(I, a), ub = is_undef(I, b);
    if (ua && ub)
        return d2_incref(a);
    if (ua || ub) {
        d2_obj *def = ua ? b : a;
        int us = ua ? 0 : 1;
        if (d2_jit_internal_name(name) && def->kind == D2_OBJ_NONE)
            return d2_incref(def);
        if (d2_jit_internal_name(name) && (is_tensor(def) || is_pynum(def))) {
            /* the transform's own flags and return values: a placeholder where unset */
            d2_obj *dt = is_tensor(def) ? d2_incref(def)
                                        : side_const(m, 1 - us, num_dtype(def), NULL,
                                                     num_value(def));
            if (!dt)
                return NULL;
            d2_shape s = static_shape(&TOBJ(dt)->type.shape);
            d2_obj *ph = side_const(m, us, TOBJ(dt)->type.dtype, &s, 0);
            d2_obj *r = ph ? merge_yield(m, us ? dt : ph, us ? ph : dt, NULL) : NULL;
            d2_decref(ph);
            d2_decref(dt);
            return r;
        }
        if (d2_jit_internal_name(name) && depth < 32 &&
            (def->kind == D2_OBJ_TUPLE || def->kind == D2_OBJ_LIST)) {
            /* a returned tuple: a placeholder per element */
            size_t nd;
            d2_obj **items = d2_jit_seq_items(def, &nd);
            d2_obj *undef = ua ? a : b;
            d2_obj *r = def->kind == D2_OBJ_LIST ? d2_list_new(I, nd) : d2_jit_tuple_n(I, nd);
            char sub[300];
            for (size_t i = 0; r && i < nd; i++) {
                snprintf(sub, sizeof sub, "%s[%zu]", name, i);
                d2_obj *c = unify(m, ua ? undef : items[i], ua ? items[i] : undef, sub, depth + 1);
                if (!c) {
                    d2_decref(r);
                    return NULL;
                }
                if (def->kind == D2_OBJ_LIST)
                    D2_AS(d2_list, r)->items[i] = c;
                else
                    D2_AS(d2_tuple, r)->items[i] = c;
            }
            return r;
        }
        char msg[900], lines[200] = "";
        if (m->fns) {
            /* where each branch starts: the one that assigns and the one that does not */
            uint32_t la = assign_line(m->fns[ua ? 1 : 0], name);
            uint32_t lb = branch_line(m->fns[ua ? 0 : 1]);
            if (la && lb)
                snprintf(lines, sizeof lines,
                         " (assigned at line %u; the %s branch at line %u does not assign it)",
                         (unsigned)la, ua ? "true" : "false", (unsigned)lb);
            else if (la)
                snprintf(lines, sizeof lines, " (assigned at line %u; %s)", (unsigned)la,
                         ua ? "the true branch assigns nothing" : "there is no else");
        }
        snprintf(msg, sizeof msg,
                 "'%s' is assigned only in the %s branch of %s%s, so it is not defined after it "
                 "when the condition is %s at run time",
                 name, ua ? "false" : "true", m->what, lines, ua ? "true" : "false");
        return d2_jit_new_undef(I, name, msg);
    }
    if (is_array(I, a) || is_array(I, b)) {
        if (!is_array(I, a) || !is_array(I, b))
            return mismatch(m, name, a, b, "");
        d2_obj *ta = tarray_t(I, a), *tb = tarray_t(I, b);
        if (TOBJ(ta)->type.dtype != TOBJ(tb)->type.dtype)
            return mismatch(m, name, ta, tb, "");
        return merge_yield(m, ta, tb, tarray_info(I, a));
    }
    bool ta = is_tensor(a), tb = is_tensor(b);
    if (ta || tb) {
        if (ta && tb) {
            const d2_type *x = &TOBJ(a)->type, *y = &TOBJ(b)->type;
            if (x->dtype != y->dtype)
                return mismatch(m, name, a, b, "; both branches must give the same dtype");
            if (x->shape.ndim != y->shape.ndim)
                return mismatch(m, name, a, b, "; both branches must give the same rank");
            return merge_yield(m, a, b, NULL);
        }
        d2_obj *t = ta ? a : b, *o = ta ? b : a;
        if (!is_pynum(o))
            return mismatch(m, name, a, b, "");
        const d2_type *tt = &TOBJ(t)->type;
        if (!d2_shape_is_static(&tt->shape))
            return mismatch(m, name, a, b,
                            "; a Python number cannot stand for a tensor of unknown shape");
        d2_obj *c = side_const(m, ta ? 1 : 0, tt->dtype, &tt->shape, num_value(o));
        if (!c)
            return NULL;
        d2_obj *r = merge_yield(m, ta ? a : c, ta ? c : b, NULL);
        d2_decref(c);
        return r;
    }
    if (is_pynum(a) && is_pynum(b)) {
        if (a->kind == b->kind && num_value(a) == num_value(b))
            return d2_incref(a);
        d2_dtype da = num_dtype(a), db = num_dtype(b);
        d2_dtype dt = da == D2_F64 || db == D2_F64 ? D2_F64 : da == D2_I64 || db == D2_I64 ? D2_I64
                                                                                        : D2_BOOL;
        d2_obj *ca = side_const(m, 0, dt, NULL, num_value(a));
        d2_obj *cb = ca ? side_const(m, 1, dt, NULL, num_value(b)) : NULL;
        d2_obj *r = cb ? merge_yield(m, ca, cb, NULL) : NULL;
        d2_decref(ca);
        d2_decref(cb);
        return r;
    }
    if (depth < 32 && a->kind == b->kind && (a->kind == D2_OBJ_LIST || a->kind == D2_OBJ_TUPLE)) {
        size_t na, nb;
        d2_obj **ia = d2_jit_seq_items(a, &na), **ib = d2_jit_seq_items(b, &nb);
        if (na != nb) {
            if (a->kind == D2_OBJ_LIST && d2_jit_tensor_list(a) && d2_jit_tensor_list(b))
                return merge_lists(m, a, b, name);
            return mismatch(m, name, a, b, " (lists of different lengths)");
        }
        d2_obj *r = a->kind == D2_OBJ_LIST ? d2_list_new(I, na) : d2_jit_tuple_n(I, na);
        char sub[300];
        for (size_t i = 0; r && i < na; i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", name, i);
            d2_obj *c = unify(m, ia[i], ib[i], sub, depth + 1);
            if (!c) {
                d2_decref(r);
                return NULL;
            }
            if (a->kind == D2_OBJ_LIST)
                D2_AS(d2_list, r)->items[i] = c;
            else
                D2_AS(d2_tuple, r)->items[i] = c;
        }
        return r;
    }
    if (depth < 32 && a->kind == D2_OBJ_DICT && b->kind == D2_OBJ_DICT) {
        d2_dict *da = D2_AS(d2_dict, a), *db = D2_AS(d2_dict, b);
        if (da->live != db->live)
            return mismatch(m, name, a, b, " (dicts with different keys)");
        d2_obj *r = d2_dict_new(I);
        for (size_t i = 0; r && i < da->n; i++) {
            d2_dict_entry *e = &da->entries[i];
            if (!e->key)
                continue;
            d2_obj *vb = d2_dict_get(I, db, e->key);
            if (!vb) {
                d2_decref(r);
                return d2_exc_pending(I) ? NULL
                                         : mismatch(m, name, a, b, " (dicts with different keys)");
            }
            d2_obj *c = unify(m, e->value, vb, name, depth + 1);
            if (!c || d2_dict_set(I, D2_AS(d2_dict, r), e->key, c) < 0) {
                d2_decref(c);
                d2_decref(r);
                return NULL;
            }
            d2_decref(c);
        }
        return r;
    }
    if (a->kind == b->kind && (a->kind == D2_OBJ_STR || a->kind == D2_OBJ_NONE)) {
        int eq = d2_equal(I, a, b);
        if (eq < 0)
            return NULL;
        if (eq)
            return d2_incref(a);
    }
    return mismatch(m, name, a, b,
                    "; a value that is not a tensor must be the same in both branches of an if "
                    "on a tensor");
}

/* Converts a tensor predicate to the variable of a one-element bool tensor. */
int d2_jit_pred_var(d2_interp *I, d2_obj *pred, const char *what)
{
    const d2_type *t = &TOBJ(pred)->type;
    int64_t n = d2_shape_numel(&t->shape);
    if (t->kind != D2_VALUE_TENSOR || (n >= 0 && n != 1)) {
        char ts[160];
        d2_type_str(t, ts, sizeof ts);
        d2_raise(I, "ValueError",
                 "the condition of %s is a %s tensor; it must hold exactly one element", what, ts);
        return -1;
    }
    d2_obj *b = t->dtype == D2_BOOL ? d2_incref(pred) : d2_jit_cast_to(I, pred, D2_BOOL);
    if (!b)
        return -1;
    int v = d2_pd_lift(I, D2_MODE(I)->builder, b);
    d2_decref(b);
    return v;
}

/* Adds a control op with new result variables in the current block. */
int d2_jit_emit_control(d2_interp *I, d2_op_id id, const int *in, int n_in, d2_ab *b, int n_out,
                        int *out)
{
    d2_builder *B = D2_MODE(I)->builder;
    d2_err err = {0};
    int rc = -1;
    d2_type *types = d2_calloc((size_t)n_out + 1, sizeof *types);
    int *tmp_out = d2_calloc((size_t)n_out + 1, sizeof *tmp_out);
    if (!types || !tmp_out || b->bad) {
        nomem(I);
        goto done;
    }
    d2_op tmp = {.id = id, .n_in = n_in, .n_out = n_out, .in = (int *)in, .out = tmp_out,
                 .attrs = b->a};
    if (d2_program_infer_op(B->prog, &tmp, types, &err) < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    for (int k = 0; k < n_out; k++) {
        out[k] = d2_program_add_var(B->prog, B->block, NULL, &types[k], &err);
        if (out[k] < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
    }
    if (d2_block_add_op(B->prog, B->block, id, in, n_in, out, n_out, &b->a, &err) < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    d2_block *blk = &B->prog->blocks[B->block];
    if (I->frame) {
        blk->ops[blk->n_ops - 1].line = (int)I->frame->span.line;
        blk->ops[blk->n_ops - 1].col = (int)I->frame->span.col + 1;
    }
    rc = 0;
done:
    d2_attrs_free(&b->a);
    d2_free(types);
    d2_free(tmp_out);
    return rc;
}

/* The result of a symbolic-value wrapper for output variable v (TensorArray
 * for arrays). */
d2_obj *d2_jit_wrap_var(d2_interp *I, int v, d2_obj *info)
{
    d2_obj *t = d2_pd_symbolic(I, D2_MODE(I)->builder, v);
    if (!t || TOBJ(t)->type.kind != D2_VALUE_ARRAY)
        return t;
    d2_obj *a = d2_jit_new_tarray(I, t, info, false);
    d2_decref(t);
    return a;
}

/* Builds `cond(pred)` whose branches run fn(ctx, 0) and fn(ctx, 1); each
 * gives the packed values of the n names. out receives n new references. */
int d2_jit_cond_core(d2_interp *I, d2_obj *pred, branch_fn fn, void *ctx, size_t n,
                     const char **names, const char *what, d2_obj *const *fns, d2_obj **out)
{
    d2_builder *B = D2_MODE(I)->builder;
    d2_program *p = B->prog;
    int parent = B->block;
    int pv = d2_jit_pred_var(I, pred, what);
    if (pv < 0)
        return -1;
    merge m = {.I = I, .B = B, .what = what, .fns = fns};
    d2_err err = {0};
    d2_obj **vals = d2_calloc(2 * n + 1, sizeof *vals);
    d2_obj **tmpl = d2_calloc(n + 1, sizeof *tmpl);
    d2_obj **res = NULL;
    int rc = -1;
    if (!vals || !tmpl) {
        nomem(I);
        goto done;
    }
    for (int w = 0; w < 2; w++) {
        m.blk[w] = d2_program_add_block(p, parent, &err);
        if (m.blk[w] < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
        B->block = m.blk[w];
        d2_obj *r = fn(I, ctx, w);
        B->block = parent;
        if (!r)
            goto done;
        int u = d2_jit_unpack(I, r, n, vals + w * n, "a branch of an if");
        d2_decref(r);
        if (u < 0)
            goto done;
    }
    for (size_t j = 0; j < n; j++) {
        tmpl[j] = unify(&m, vals[j], vals[n + j], names[j], 0);
        if (!tmpl[j])
            goto done;
    }
    for (int k = 0; k < m.n; k++)
        if (d2_block_add_yield(p, m.blk[0], m.yv[0][k], &err) < 0 ||
            d2_block_add_yield(p, m.blk[1], m.yv[1][k], &err) < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
    int *outv = d2_calloc((size_t)m.n + 1, sizeof *outv);
    res = d2_calloc((size_t)m.n + 1, sizeof *res);
    if (!outv || !res) {
        d2_free(outv);
        nomem(I);
        goto done;
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_cond);
    d2_ab_int(&b, "then", m.blk[0]);
    d2_ab_int(&b, "else", m.blk[1]);
    if (d2_jit_emit_control(I, D2_OP_cond, &pv, 1, &b, m.n, outv) < 0) {
        d2_free(outv);
        goto done;
    }
    for (int k = 0; k < m.n; k++) {
        res[k] = d2_jit_wrap_var(I, outv[k], m.info[k]);
        if (!res[k]) {
            d2_free(outv);
            goto done;
        }
    }
    d2_free(outv);
    for (size_t j = 0; j < n; j++) {
        out[j] = d2_jit_fill_slots(I, tmpl[j], res, 0);
        if (!out[j]) {
            decref_all(out, j);
            goto done;
        }
    }
    rc = 0;
done:
    B->block = parent;
    decref_all(vals, 2 * n);
    decref_all(tmpl, n);
    if (res)
        decref_all(res, (size_t)m.n);
    d2_free(vals);
    d2_free(tmpl);
    d2_free(res);
    merge_free(&m);
    return rc;
}

/* ---- _jst.IfElse / _jst.IfExp ---- */

typedef struct ifelse_ctx {
    d2_obj *fns[2];
    d2_obj *args; /* tuple */
} ifelse_ctx;

static d2_obj *ifelse_branch(d2_interp *I, void *vctx, int which)
{
    ifelse_ctx *c = vctx;
    d2_obj *copy = d2_jit_copy_mutable(I, c->args, 0);
    if (!copy)
        return NULL;
    size_t n;
    d2_obj **items = d2_jit_seq_items(copy, &n);
    d2_obj *r = d2_call(I, c->fns[which], items, n, NULL);
    d2_decref(copy);
    return r;
}

int d2_jit_names_array(d2_interp *I, d2_obj *names, const char ***out, size_t *n)
{
    if (names->kind != D2_OBJ_TUPLE && names->kind != D2_OBJ_LIST) {
        d2_raise(I, "TypeError", "_jst: names must be a tuple of strings");
        return -1;
    }
    d2_obj **items = d2_jit_seq_items(names, n);
    *out = d2_calloc(*n + 1, sizeof **out);
    if (!*out) {
        nomem(I);
        return -1;
    }
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = cstr(items[i]) ? cstr(items[i]) : "?";
    return 0;
}

D2_FN(JST_IfElse)
{
    if (a[3]->kind != D2_OBJ_TUPLE)
        return d2_raise(I, "TypeError", "_jst.IfElse: args must be a tuple");
    if (!is_sym(a[0])) {
        if (is_undef(I, a[0]))
            return d2_jit_raise_undef(I, a[0]);
        int t = d2_truthy(I, a[0]);
        if (t < 0)
            return NULL;
        size_t n;
        d2_obj **items = d2_jit_seq_items(a[3], &n);
        return d2_call(I, a[t ? 1 : 2], items, n, NULL);
    }
    const char **names;
    size_t n;
    if (d2_jit_names_array(I, a[4], &names, &n) < 0)
        return NULL;
    char where[300], what[340];
    d2_jit_helper_where(a[1], where, sizeof where);
    snprintf(what, sizeof what, "the if%s%s", where[0] ? " at " : "", where);
    ifelse_ctx c = {{a[1], a[2]}, a[3]};
    d2_obj **out = d2_calloc(n + 1, sizeof *out);
    d2_obj *r = NULL;
    if (!out)
        nomem(I);
    else if (d2_jit_cond_core(I, a[0], ifelse_branch, &c, n, names, what, c.fns, out) == 0) {
        r = d2_jit_pack(I, out, n);
        decref_all(out, n);
    }
    d2_free(out);
    d2_free(names);
    return r;
}

static d2_obj *ifexp_branch(d2_interp *I, void *vctx, int which)
{
    ifelse_ctx *c = vctx;
    return d2_call(I, c->fns[which], NULL, 0, NULL);
}

D2_FN(JST_IfExp)
{
    if (!is_sym(a[0])) {
        if (is_undef(I, a[0]))
            return d2_jit_raise_undef(I, a[0]);
        int t = d2_truthy(I, a[0]);
        if (t < 0)
            return NULL;
        return d2_call(I, a[t ? 1 : 2], NULL, 0, NULL);
    }
    ifelse_ctx c = {{a[1], a[2]}, NULL};
    const char *names[1] = {"<conditional expression>"};
    d2_obj *out = NULL;
    if (d2_jit_cond_core(I, a[0], ifexp_branch, &c, 1, names, "a conditional expression", NULL,
                         &out) < 0)
        return NULL;
    return out;
}

/* ======================================================================
 * and / or / not, print, assert, casts, len, calls, UndefinedVar
 * ====================================================================== */

/* Tensor operands of and/or are cast to bool first, as Paddle's convert_logical_and does. */
static d2_obj *logical(d2_interp *I, d2_op_id op, d2_obj *x, d2_obj *y)
{
    d2_obj *bx = TOBJ(x)->type.dtype == D2_BOOL ? d2_incref(x) : d2_jit_cast_to(I, x, D2_BOOL);
    d2_obj *by = !bx ? NULL
                 : TOBJ(y)->type.dtype == D2_BOOL ? d2_incref(y)
                                                  : d2_jit_cast_to(I, y, D2_BOOL);
    d2_obj *r = by ? op_2(I, op, bx, by, NULL) : NULL;
    d2_decref(bx);
    d2_decref(by);
    return r;
}

/* `a and b and ...` / `a or b or ...` over thunks (see transform.h). */
static d2_obj *and_or(d2_interp *I, d2_obj **args, size_t nargs, bool is_and)
{
    if (nargs == 0)
        return d2_raise(I, "TypeError", "_jst.%s needs at least one operand", is_and ? "And" : "Or");
    d2_obj *acc = d2_call(I, args[0], NULL, 0, NULL);
    for (size_t i = 1; acc && i < nargs; i++) {
        if (!is_sym(acc)) {
            int t = is_undef(I, acc) ? (d2_jit_raise_undef(I, acc), -1) : d2_truthy(I, acc);
            if (t < 0) {
                d2_setref(&acc, NULL);
                break;
            }
            if ((is_and && !t) || (!is_and && t))
                break;
            d2_setref(&acc, d2_call(I, args[i], NULL, 0, NULL));
            continue;
        }
        d2_obj *y = d2_call(I, args[i], NULL, 0, NULL);
        if (!y) {
            d2_setref(&acc, NULL);
            break;
        }
        if (!is_sym(y)) {
            int t = is_undef(I, y) ? (d2_jit_raise_undef(I, y), -1) : d2_truthy(I, y);
            if (t < 0) {
                d2_decref(y);
                d2_setref(&acc, NULL);
                break;
            }
            /* Paddle: `tensor and y` is y when y is falsy, else the tensor (or: truthy y wins) */
            if (is_and ? !t : t)
                d2_setref(&acc, y);
            else
                d2_decref(y);
            continue;
        }
        d2_obj *r = logical(I, is_and ? D2_OP_logical_and : D2_OP_logical_or, acc, y);
        d2_decref(y);
        d2_setref(&acc, r);
    }
    return acc;
}

static d2_obj *JST_And(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(kw);
    return and_or(I, args, nargs, true);
}

static d2_obj *JST_Or(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(kw);
    return and_or(I, args, nargs, false);
}

D2_FN(JST_Not)
{
    if (is_sym(a[0]))
        return op_1(I, D2_OP_logical_not, a[0], NULL);
    if (is_undef(I, a[0]))
        return d2_jit_raise_undef(I, a[0]);
    int t = d2_truthy(I, a[0]);
    return t < 0 ? NULL : d2_bool(I, !t);
}

/* ---- print and f-strings ---- */

static void fmt_fin(void *p) { d2_decref((d2_obj *)p); }

static bool is_fmt(d2_interp *I, d2_obj *o)
{
    return o->kind == D2_OBJ_OPAQUE && o->cls == JS(I)->fmt_cls;
}

/* _jst.Fmt(*parts): an f-string given straight to print (the converted code
 * passes its constant pieces and values): the string when no part is a
 * symbolic tensor, else an object holding the parts, which _jst.Print shows
 * at run time. */
static d2_obj *JST_Fmt(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(kw);
    bool sym = false;
    for (size_t i = 0; i < nargs; i++)
        sym |= is_sym(args[i]) || is_array(I, args[i]);
    if (sym) {
        d2_obj *t = d2_tuple_new(I, nargs);
        if (!t)
            return NULL;
        for (size_t i = 0; i < nargs; i++)
            D2_AS(d2_tuple, t)->items[i] = d2_incref(args[i]);
        D2_AS(d2_tuple, t)->n = nargs;
        d2_obj *o = d2_obj_alloc(I, D2_OBJ_OPAQUE, JS(I)->fmt_cls, sizeof(d2_opaque));
        if (!o) {
            d2_decref(t);
            return NULL;
        }
        D2_AS(d2_opaque, o)->payload = t;
        D2_AS(d2_opaque, o)->fin = fmt_fin;
        return o;
    }
    d2_buf b;
    d2_buf_init(&b);
    for (size_t i = 0; i < nargs; i++) {
        d2_obj *s = d2_str_of(I, args[i]);
        if (!s) {
            d2_buf_free(&b);
            return NULL;
        }
        d2_buf_puts(&b, cstr(s));
        d2_decref(s);
    }
    d2_obj *r = b.oom ? nomem(I) : d2_str_new(I, b.data ? b.data : "", b.len);
    d2_buf_free(&b);
    return r;
}

typedef struct print_item {
    d2_obj *o;        /* borrowed */
    const char *glue; /* written before it */
} print_item;

/* print(...) of Python values in a to_static function built to run: a print
 * op (style "text") that writes the line on every call, when its branch
 * runs, once per iteration, as Paddle's default to_static prints (a Program
 * built to be saved prints nothing); its input, a constant, only places the
 * op. */
static d2_obj *print_text_op(d2_interp *I, d2_obj **args, size_t nargs, d2_dict *kw)
{
    const char *sep = " ", *end = "\n";
    d2_obj *o = kw ? d2_dict_get_str(I, kw, "sep") : NULL;
    if (o && cstr(o))
        sep = cstr(o);
    o = kw ? d2_dict_get_str(I, kw, "end") : NULL;
    if (o && cstr(o))
        end = cstr(o);
    d2_buf b;
    d2_buf_init(&b);
    for (size_t i = 0; i < nargs; i++) {
        d2_obj *s = d2_str_of(I, args[i]);
        if (!s) {
            d2_buf_free(&b);
            return NULL;
        }
        d2_buf_printf(&b, "%s%s", i ? sep : "", cstr(s));
        d2_decref(s);
    }
    d2_shape one = {0};
    d2_obj *x = b.oom ? NULL : d2_jit_constant(I, D2_I32, &one, 0);
    int rc = -1;
    if (x) {
        d2_ab ab;
        d2_ab_init(&ab, D2_OP_print);
        d2_ab_str(&ab, "message", b.data ? b.data : "");
        d2_ab_str(&ab, "style", "text");
        d2_ab_str(&ab, "end", end);
        d2_obj *none = NULL;
        rc = ab.bad ? -1 : d2_apply_op(I, D2_OP_print, &x, 1, &ab.a, &none, 0);
        d2_attrs_free(&ab.a);
    }
    if (rc < 0 && !d2_exc_pending(I))
        nomem(I);
    d2_buf_free(&b);
    d2_decref(x);
    return rc < 0 ? NULL : d2_incref(I->none);
}

/* print(...) with symbolic tensors: what Python's print shows of the eager
 * tensors, at run time. One print op per tensor: the text before it as its
 * message; after the last one the text after it and end. */
static d2_obj *JST_Print(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    bool sym = false;
    size_t n = 0;
    for (size_t i = 0; i < nargs; i++) {
        sym |= is_sym(args[i]) || is_array(I, args[i]) || is_fmt(I, args[i]);
        n += is_fmt(I, args[i]) ? D2_AS(d2_tuple, (d2_obj *)D2_AS(d2_opaque, args[i])->payload)->n : 1;
    }
    d2_builder *B = D2_MODE(I)->builder;
    if (!sym && B && JS(I)->run_prints && (!kw || !d2_dict_get_str(I, kw, "file")))
        return print_text_op(I, args, nargs, kw);
    if (!sym) {
        d2_obj *pr = d2_dict_get_str(I, I->builtins, "print");
        if (!pr)
            return d2_raise(I, "NameError", "print");
        return d2_call(I, pr, args, nargs, kw);
    }
    const char *sep = " ", *end = "\n";
    d2_obj *o = kw ? d2_dict_get_str(I, kw, "sep") : NULL;
    if (o && cstr(o))
        sep = cstr(o);
    o = kw ? d2_dict_get_str(I, kw, "end") : NULL;
    if (o && cstr(o))
        end = cstr(o);
    print_item *it = d2_calloc(n + 1, sizeof *it);
    if (!it)
        return nomem(I);
    size_t m = 0, last = 0;
    for (size_t i = 0; i < nargs; i++) {
        d2_obj *parts = is_fmt(I, args[i]) ? D2_AS(d2_opaque, args[i])->payload : NULL;
        size_t np = parts ? D2_AS(d2_tuple, parts)->n : 1;
        for (size_t k = 0; k < np; k++) {
            d2_obj *x = parts ? D2_AS(d2_tuple, parts)->items[k] : args[i];
            if (is_array(I, x))
                x = tarray_t(I, x);
            it[m].o = x;
            it[m].glue = k == 0 && i > 0 ? sep : "";
            if (is_sym(x))
                last = m;
            m++;
        }
    }
    d2_buf label, after;
    d2_buf_init(&label);
    d2_buf_init(&after);
    int rc = 0;
    for (size_t i = 0; i < m && rc == 0; i++) {
        d2_obj *x = it[i].o;
        if (!is_sym(x)) {
            d2_obj *s = d2_str_of(I, x);
            if (!s) {
                rc = -1;
                break;
            }
            d2_buf_printf(&label, "%s%s", it[i].glue, cstr(s));
            d2_decref(s);
            continue;
        }
        d2_buf_puts(&label, it[i].glue);
        for (size_t k = i + 1; i == last && k < m; k++) {
            d2_obj *s = d2_str_of(I, it[k].o);
            if (!s) {
                rc = -1;
                break;
            }
            d2_buf_printf(&after, "%s%s", it[k].glue, cstr(s));
            d2_decref(s);
        }
        if (i == last)
            d2_buf_puts(&after, end);
        if (rc < 0 || label.oom || after.oom) {
            rc = -1;
            if (!d2_exc_pending(I))
                nomem(I);
            break;
        }
        d2_ab b;
        d2_ab_init(&b, D2_OP_print);
        d2_ab_str(&b, "message", label.data ? label.data : "");
        d2_ab_str(&b, "style", "tensor");
        d2_ab_str(&b, "end", i == last && after.data ? after.data : "");
        d2_ab_bool(&b, "stop_gradient", TOBJ(x)->stop_gradient);
        d2_obj *none = NULL;
        rc = b.bad ? -1 : d2_apply_op(I, D2_OP_print, &x, 1, &b.a, &none, 0);
        d2_attrs_free(&b.a);
        if (rc < 0 && !d2_exc_pending(I))
            nomem(I);
        label.len = 0;
        if (label.data)
            label.data[0] = '\0';
        if (i == last)
            break;
    }
    d2_buf_free(&label);
    d2_buf_free(&after);
    d2_free(it);
    return rc < 0 ? NULL : d2_none(I);
}

D2_FN(JST_Assert)
{
    if (is_sym(a[0])) {
        d2_obj *c = d2_jit_cast_to(I, a[0], D2_BOOL);
        if (!c)
            return NULL;
        d2_obj *s = a[1]->kind == D2_OBJ_NONE ? NULL : d2_str_of(I, a[1]);
        if (a[1]->kind != D2_OBJ_NONE && !s) {
            d2_decref(c);
            return NULL;
        }
        d2_ab b;
        d2_ab_init(&b, D2_OP_assert);
        d2_ab_str(&b, "message", s ? cstr(s) : "assertion failed");
        d2_obj *none = NULL;
        int rc = b.bad ? -1 : d2_apply_op(I, D2_OP_assert, &c, 1, &b.a, &none, 0);
        d2_attrs_free(&b.a);
        d2_decref(c);
        d2_decref(s);
        if (rc < 0)
            return d2_exc_pending(I) ? NULL : nomem(I);
        return d2_none(I);
    }
    if (is_undef(I, a[0]))
        return d2_jit_raise_undef(I, a[0]);
    int t = d2_truthy(I, a[0]);
    if (t < 0)
        return NULL;
    if (t)
        return d2_none(I);
    if (a[1]->kind == D2_OBJ_NONE)
        return d2_raise(I, "AssertionError", "%s", "");
    d2_obj *s = d2_str_of(I, a[1]);
    if (!s)
        return NULL;
    d2_raise(I, "AssertionError", "%s", cstr(s));
    d2_decref(s);
    return NULL;
}

/* int(x) / float(x) / bool(x): a tensor is cast as Paddle does (int32, float32, bool). */
D2_FN(JST_Cast)
{
    const char *to = cstr(a[1]);
    if (!to || (strcmp(to, "int") && strcmp(to, "float") && strcmp(to, "bool")))
        return d2_raise(I, "ValueError", "_jst.Cast: dtype must be 'int', 'float' or 'bool'");
    if (is_sym(a[0]))
        return d2_jit_cast_to(I, a[0], to[0] == 'i' ? D2_I32 : to[0] == 'f' ? D2_F32 : D2_BOOL);
    if (is_undef(I, a[0]))
        return d2_jit_raise_undef(I, a[0]);
    d2_obj *ty = d2_dict_get_str(I, I->builtins, to);
    if (!ty)
        return d2_raise(I, "NameError", "%s", to);
    return d2_call(I, ty, a, 1, NULL);
}

D2_FN(JST_Len)
{
    d2_obj *x = a[0];
    if (is_array(I, x))
        return op_1(I, D2_OP_array_length, tarray_t(I, x), NULL);
    if (is_sym(x)) {
        const d2_shape *s = &TOBJ(x)->type.shape;
        if (s->ndim == 0)
            return d2_raise(I, "TypeError", "len() of a 0-D tensor");
        if (TOBJ(x)->type.kind == D2_VALUE_ARRAY)
            return op_1(I, D2_OP_array_length, x, NULL);
        if (s->dims[0] >= 0)
            return d2_int_new(I, s->dims[0]);
        d2_obj *sh = op_1(I, D2_OP_shape, x, NULL);
        if (!sh)
            return NULL;
        d2_obj *zero = d2_int_new(I, 0);
        d2_obj *r = zero ? d2_getitem(I, sh, zero) : NULL;
        d2_decref(zero);
        d2_decref(sh);
        return r;
    }
    if (is_undef(I, x))
        return d2_jit_raise_undef(I, x);
    int64_t n = d2_len(I, x);
    return n < 0 ? NULL : d2_int_new(I, n);
}

/* x.shape: ints for static dims; for a symbolic tensor, each dynamic dim is
 * an element of paddle.shape(x), as Paddle's convert_shape does. */
D2_FN(JST_Shape)
{
    d2_obj *x = a[0];
    if (is_undef(I, x))
        return d2_jit_raise_undef(I, x);
    if (!is_sym(x) || TOBJ(x)->type.kind != D2_VALUE_TENSOR ||
        d2_shape_is_static(&TOBJ(x)->type.shape))
        return d2_getattr(I, x, "shape");
    const d2_shape *s = &TOBJ(x)->type.shape;
    d2_obj *sh = op_1(I, D2_OP_shape, x, NULL);
    d2_obj *r = sh ? d2_list_new(I, (size_t)s->ndim) : NULL;
    for (int k = 0; r && k < s->ndim; k++) {
        d2_obj *v = NULL;
        if (s->dims[k] >= 0) {
            v = d2_int_new(I, s->dims[k]);
        } else {
            d2_obj *i = d2_int_new(I, k);
            v = i ? d2_getitem(I, sh, i) : NULL;
            d2_decref(i);
        }
        if (!v)
            d2_setref(&r, NULL);
        else
            D2_AS(d2_list, r)->items[k] = v;
    }
    d2_decref(sh);
    return r;
}

/* x[key] = v as converted code writes it, x = _jst.SetItem(x, key, v): the
 * value to rebind x to. While a Program is built, a tensor of an enclosing
 * block (or a parameter) is not changed: the result is a new tensor, which
 * cond and while_loop then carry like any other assignment. */
D2_FN(JST_SetItem)
{
    d2_obj *x = a[0];
    if (is_undef(I, x))
        return d2_jit_raise_undef(I, x);
    if (is_tensor(x) && D2_MODE(I)->builder && !d2_pd_sym_in_current_block(I, x))
        return d2_pd_setitem_functional(I, x, a[1], a[2]);
    if (d2_setitem(I, x, a[1], a[2]) < 0)
        return NULL;
    return d2_incref(x);
}

/* x.name_(args) as converted code writes it, x = _jst.Inplace(x, 'name_', args):
 * the value to rebind x to. While a Program is built, a tensor of an
 * enclosing block is not changed: the functional form x.name(args) gives the
 * new value, which cond and while_loop carry; otherwise the method runs as
 * written and x stays x. */
D2_FN(JST_Inplace)
{
    d2_obj *x = a[0];
    if (is_undef(I, x))
        return d2_jit_raise_undef(I, x);
    const char *name = cstr(a[1]);
    if (!name)
        return d2_raise(I, "TypeError", "_jst.Inplace: the method name must be a str");
    d2_obj *args = a[2];
    d2_dict *kw = a[3] ? D2_AS(d2_dict, a[3]) : NULL;
    size_t n = D2_AS(d2_tuple, args)->n;
    bool functional = is_tensor(x) && D2_MODE(I)->builder && !d2_pd_sym_in_current_block(I, x);
    char base[128];
    size_t len = strlen(name);
    if (functional && len < sizeof base) {
        memcpy(base, name, len - 1);
        base[len - 1] = 0;
    }
    d2_obj *m = d2_getattr(I, x, functional && len < sizeof base ? base : name);
    if (!m)
        return NULL;
    d2_obj *r = d2_call(I, m, D2_AS(d2_tuple, args)->items, n, kw);
    d2_decref(m);
    if (!r || functional)
        return r;
    d2_decref(r);
    return d2_incref(x);
}

/* obj.attr for carrying it through an if or loop; an UndefinedVar when obj
 * has no such attribute yet. */
D2_FN(JST_GetAttr)
{
    const char *name = cstr(a[1]);
    if (!name)
        return d2_raise(I, "TypeError", "_jst.GetAttr: the name must be a str");
    d2_obj *v = d2_getattr_opt(I, a[0], name);
    if (v || d2_exc_pending(I))
        return v;
    char msg[300];
    snprintf(msg, sizeof msg, "'%s' object has no attribute '%s'", d2_type_name(a[0]), name);
    return d2_jit_new_undef(I, name, msg);
}

/* obj.attr = value, unless value is an UndefinedVar (the attribute stays unset). */
D2_FN(JST_SetAttr)
{
    const char *name = cstr(a[1]);
    if (!name)
        return d2_raise(I, "TypeError", "_jst.SetAttr: the name must be a str");
    if (!is_undef(I, a[2]) && d2_setattr(I, a[0], name, a[2]) < 0)
        return NULL;
    return d2_none(I);
}

static bool has_hooks(d2_interp *I, d2_obj *layer)
{
    static const char *const which[] = {"_forward_pre_hooks", "_forward_post_hooks"};
    for (int i = 0; i < 2; i++) {
        d2_obj *d = d2_getattr_opt(I, layer, which[i]);
        bool any = d && d->kind == D2_OBJ_DICT && D2_AS(d2_dict, d)->live > 0;
        d2_decref(d);
        if (any)
            return true;
    }
    d2_exc_clear(I);
    return false;
}

/* _jst.Call(f): what to call for f(...) (see transform.h). */
D2_FN(JST_Call)
{
    d2_obj *f = a[0];
    if (!JS(I)->enabled)
        return d2_incref(f);
    if (f->kind == D2_OBJ_FUNCTION)
        return d2_jit_converted_callee(I, f);
    if (f->kind == D2_OBJ_BOUND_METHOD) {
        d2_bound_method *m = D2_AS(d2_bound_method, f);
        if (m->func->kind != D2_OBJ_FUNCTION)
            return d2_incref(f);
        d2_obj *c = d2_jit_converted_callee(I, m->func);
        if (!c || c == m->func) {
            d2_decref(c);
            return c ? d2_incref(f) : NULL;
        }
        d2_obj *r = d2_bound_method_new(I, c, m->self);
        d2_decref(c);
        return r;
    }
    if (is_undef(I, f))
        return d2_jit_raise_undef(I, f);
    if (d2_jit_is_layer(I, f) && !has_hooks(I, f)) {
        d2_obj *fwd = d2_getattr(I, (d2_obj *)f->cls, "forward");
        if (!fwd)
            return NULL;
        d2_obj *r = NULL;
        if (fwd->kind == D2_OBJ_FUNCTION && !fattr(I, fwd, "_dy2st_static")) {
            d2_obj *inst = iget(I, f, "forward");
            if (inst) {
                r = d2_incref(f);
            } else {
                d2_obj *c = d2_jit_converted_callee(I, fwd);
                r = c == fwd ? d2_incref(f) : c ? d2_bound_method_new(I, c, f) : NULL;
                d2_decref(c);
            }
        } else {
            r = d2_incref(f);
        }
        d2_decref(fwd);
        return r;
    }
    return d2_incref(f);
}

/* ======================================================================
 * Registration
 * ====================================================================== */

int d2_jit_runtime_init(d2_interp *I, jit_state *s)
{
    static const d2_def jst_defs[] = {
        D2_DEF("IfElse", "pred, true_fn, false_fn, args, names", JST_IfElse, "_jst.IfElse"),
        D2_DEF("IfExp", "pred, true_fn, false_fn", JST_IfExp, "_jst.IfExp"),
        D2_DEF("Not", "x", JST_Not, "_jst.Not"),
        D2_DEF("Assert", "test, msg=None", JST_Assert, "_jst.Assert"),
        D2_DEF("Cast", "x, dtype", JST_Cast, "_jst.Cast"),
        D2_DEF("Shape", "x", JST_Shape, "_jst.Shape"),
        D2_DEF("Len", "x", JST_Len, "_jst.Len"),
        D2_DEF("Call", "f", JST_Call, "_jst.Call"),
        D2_DEF("SetItem", "x, key, value", JST_SetItem, "_jst.SetItem"),
        D2_DEF("Inplace", "x, name, *args, **kwargs", JST_Inplace, "_jst.Inplace"),
        D2_DEF("GetAttr", "obj, name", JST_GetAttr, "_jst.GetAttr"),
        D2_DEF("SetAttr", "obj, name, value", JST_SetAttr, "_jst.SetAttr"),
    };
    /* variadic: the operands (thunks) or print's arguments, passed on as they are */
    static const d2_fn_entry jst_fns[] = {
        {"And", JST_And}, {"Or", JST_Or}, {"Print", JST_Print}, {"Fmt", JST_Fmt},
    };
    if (d2_module_add_defs(I, s->jst, jst_defs, D2_COUNTOF(jst_defs)) < 0)
        return -1;
    return d2_jit_add_fns(I, s->jst, jst_fns, D2_COUNTOF(jst_fns));
}
