/* eval_stmt.c - the evaluator's statements: assignment, def, class, import, try, with, loops. */
#include "interp/interp_priv.h"

#include <stdio.h>
#include <string.h>

/* ---- binding and deleting names ---- */

int d2i_dict_store(d2_interp *I, d2_dict *d, const char *name, size_t n, uint64_t h, d2_obj *v)
{
    d2_obj **slot = d2i_dict_slot_cstr(d, name, n, h);
    if (slot && d->class_dict)
        d2i_class_changed();
    if (slot) {
        d2_setref(slot, d2_incref(v));
        return 0;
    }
    d2_obj *k = d2_str_new(I, name, n);
    if (!k)
        return -1;
    int rc = d2_dict_set_h(I, d, k, h, v);
    d2_decref(k);
    return rc;
}

/* Binds name (symbol s, or looked up by string when s is NULL) to v (borrowed). */
int d2i_store_sym(d2_interp *I, d2i_frame *fr, sym *s, const char *name, d2_obj *v)
{
    if (!s && fr->code)
        s = code_lookup(fr->code, name);
    if (!s) {
        size_t n = strlen(name);
        return d2i_dict_store(I, fr->ns ? fr->ns : fr->globals, name, n, d2i_hash_bytes(name, n),
                              v);
    }
    switch (s->res) {
    case R_LOCAL:
        d2_setref(&fr->fast[s->slot], d2_incref(v));
        return 0;
    case R_CELL:
    case R_FREE:
    case R_CLASSDEREF:
        d2_setref(&D2_AS(d2_cell, fr->fast[s->slot])->value, d2_incref(v));
        return 0;
    case R_NAME:
        return d2i_dict_store(I, fr->ns, s->name, s->len, s->hash, v);
    default:
        return d2i_dict_store(I, fr->globals, s->name, s->len, s->hash, v);
    }
}

static int delete_sym(d2_interp *I, d2i_frame *fr, sym *s, const char *name, bool quiet)
{
    if (!s && fr->code)
        s = code_lookup(fr->code, name);
    d2_dict *d = NULL;
    if (!s)
        d = fr->ns ? fr->ns : fr->globals;
    else if (s->res == R_LOCAL) {
        if (!fr->fast[s->slot]) {
            if (quiet)
                return 0;
            d2_raise(I, "UnboundLocalError",
                     "cannot access local variable '%s' where it is not associated with a value",
                     name);
            return -1;
        }
        d2_setref(&fr->fast[s->slot], NULL);
        return 0;
    } else if (s->res == R_CELL || s->res == R_FREE) {
        d2_setref(&D2_AS(d2_cell, fr->fast[s->slot])->value, NULL);
        return 0;
    } else {
        d = s->res == R_NAME ? fr->ns : fr->globals;
    }
    d2_obj *k = d2_str_from(I, name);
    if (!k)
        return -1;
    d2_obj *v = d2i_dict_pop(I, d, k);
    d2_decref(k);
    if (!v) {
        if (quiet)
            return 0;
        d2i_name_error(I, name);
        return -1;
    }
    d2_decref(v);
    return 0;
}


/* ---- assignment ---- */

/* Unpacks v into the targets of a tuple/list target (one may be starred). */
static int assign_unpack(d2_interp *I, d2i_frame *fr, const d2_ast_expr *t, d2_obj *v)
{
    const d2_ast_seq *elts = &t->list.elts;
    int star = -1;
    for (uint32_t i = 0; i < elts->n; i++)
        if (((d2_ast_expr *)elts->items[i])->kind == D2_AST_STARRED)
            star = (int)i;
    d2_obj *seq;
    if ((v->kind == D2_OBJ_TUPLE || v->kind == D2_OBJ_LIST) && v->cls == I->types[v->kind])
        seq = d2_incref(v);
    else {
        fr->pf->span = t->span;
        seq = d2_list_from_iterable(I, v);
        if (!seq) {
            if (d2_exc_matches(I, d2_exc_class(I, "TypeError")) &&
                !d2i_mro_lookup(I, v->cls, "__iter__") && !I->hooks[v->kind]) {
                d2_exc_clear(I);
                d2_raise(I, "TypeError", "cannot unpack non-iterable %s object", d2_type_name(v));
            }
            return -1;
        }
    }
    size_t n = seq->kind == D2_OBJ_TUPLE ? D2_AS(d2_tuple, seq)->n : D2_AS(d2_list, seq)->n;
    d2_obj **items =
        seq->kind == D2_OBJ_TUPLE ? D2_AS(d2_tuple, seq)->items : D2_AS(d2_list, seq)->items;
    size_t want = elts->n - (star >= 0 ? 1 : 0);
    fr->pf->span = t->span;
    if (star < 0 && n != want) {
        if (n < want)
            d2_raise(I, "ValueError", "not enough values to unpack (expected %zu, got %zu)", want,
                     n);
        else
            d2_raise(I, "ValueError", "too many values to unpack (expected %zu)", want);
        d2_decref(seq);
        return -1;
    }
    if (star >= 0 && n < want) {
        d2_raise(I, "ValueError", "not enough values to unpack (expected at least %zu, got %zu)",
                 want, n);
        d2_decref(seq);
        return -1;
    }
    /* hold the items: assigning may mutate a list being unpacked */
    d2_obj *hold = d2_tuple_from_array(I, items, n);
    d2_decref(seq);
    if (!hold)
        return -1;
    items = D2_AS(d2_tuple, hold)->items;
    int rc = 0;
    size_t k = 0;
    for (uint32_t i = 0; i < elts->n && rc == 0; i++) {
        const d2_ast_expr *te = elts->items[i];
        if ((int)i == star) {
            size_t cnt = n - want;
            d2_obj *l = d2i_list_from_array(I, items + k, cnt);
            k += cnt;
            rc = l ? d2i_assign(I, fr, te->starred.value, l) : -1;
            d2_decref(l);
        } else {
            rc = d2i_assign(I, fr, te, items[k++]);
        }
    }
    d2_decref(hold);
    return rc;
}

int d2i_assign(d2_interp *I, d2i_frame *fr, const d2_ast_expr *t, d2_obj *v)
{
    switch (t->kind) {
    case D2_AST_NAME:
        return d2i_store_sym(I, fr, node_sym(fr, t), t->name.id, v);
    case D2_AST_ATTRIBUTE: {
        d2_obj *o = d2i_eval(I, fr, t->attribute.value);
        if (!o)
            return -1;
        fr->pf->span = t->span;
        int rc = d2_setattr(I, o, t->attribute.attr, v);
        d2_decref(o);
        return rc;
    }
    case D2_AST_SUBSCRIPT: {
        d2_obj *o = d2i_eval(I, fr, t->subscript.value);
        if (!o)
            return -1;
        d2_obj *k = d2i_eval(I, fr, t->subscript.slice);
        if (!k) {
            d2_decref(o);
            return -1;
        }
        fr->pf->span = t->span;
        int rc = d2_setitem(I, o, k, v);
        d2_decref(o);
        d2_decref(k);
        return rc;
    }
    case D2_AST_TUPLE:
    case D2_AST_LIST:
        return assign_unpack(I, fr, t, v);
    default:
        fr->pf->span = t->span;
        d2_raise(I, "SyntaxError", "cannot assign to %s", d2_ast_kind_name(t->kind));
        return -1;
    }
}

static int delete_target(d2_interp *I, d2i_frame *fr, const d2_ast_expr *t)
{
    fr->pf->span = t->span;
    switch (t->kind) {
    case D2_AST_NAME:
        return delete_sym(I, fr, node_sym(fr, t), t->name.id, false);
    case D2_AST_ATTRIBUTE: {
        d2_obj *o = d2i_eval(I, fr, t->attribute.value);
        if (!o)
            return -1;
        fr->pf->span = t->span;
        int rc = d2i_delattr(I, o, t->attribute.attr);
        d2_decref(o);
        return rc;
    }
    case D2_AST_SUBSCRIPT: {
        d2_obj *o = d2i_eval(I, fr, t->subscript.value);
        if (!o)
            return -1;
        d2_obj *k = d2i_eval(I, fr, t->subscript.slice);
        if (!k) {
            d2_decref(o);
            return -1;
        }
        fr->pf->span = t->span;
        int rc = d2_delitem(I, o, k);
        d2_decref(o);
        d2_decref(k);
        return rc;
    }
    case D2_AST_TUPLE:
    case D2_AST_LIST:
        for (uint32_t i = 0; i < t->list.elts.n; i++)
            if (delete_target(I, fr, t->list.elts.items[i]) < 0)
                return -1;
        return 0;
    default:
        d2_raise(I, "SyntaxError", "cannot delete %s", d2_ast_kind_name(t->kind));
        return -1;
    }
}

/* ns["__annotations__"][name] = the evaluated annotation (a class body's). */
static int record_annotation(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    d2_obj *ann = d2_dict_get_str(I, fr->ns, "__annotations__");
    if (!ann) {
        d2_obj *d = d2_dict_new(I);
        int rc = d ? d2_dict_set_str(I, fr->ns, "__annotations__", d) : -1;
        d2_decref(d);
        if (rc < 0)
            return -1;
        ann = d2_dict_get_str(I, fr->ns, "__annotations__");
    }
    if (!ann || ann->kind != D2_OBJ_DICT)
        return 0;
    d2_obj *v = d2i_eval(I, fr, s->ann_assign.annotation);
    if (!v) {
        /* an annotation the subset cannot combine (int | None: TypeError) is kept as its text */
        const d2_ast_module *src = fr->module ? fr->module->ast : NULL;
        d2_span sp = s->ann_assign.annotation->span;
        if (!src || !src->source || sp.end > src->source_len || sp.start >= sp.end ||
            !d2_exc_matches(I, d2_exc_class(I, "TypeError")))
            return -1;
        d2_exc_clear(I);
        v = d2_str_new(I, src->source + sp.start, sp.end - sp.start);
        if (!v)
            return -1;
    }
    int rc = d2_dict_set_str(I, D2_AS(d2_dict, ann), s->ann_assign.target->name.id, v);
    d2_decref(v);
    return rc;
}

static int exec_aug_assign(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    const d2_ast_expr *t = s->aug_assign.target;
    d2_obj *obj = NULL, *key = NULL, *cur = NULL, *rhs = NULL, *res = NULL;
    int rc = -1;
    switch (t->kind) {
    case D2_AST_NAME:
        fr->pf->span = t->span;
        cur = d2i_load_sym(I, fr, node_sym(fr, t), t->name.id);
        break;
    case D2_AST_ATTRIBUTE:
        obj = d2i_eval(I, fr, t->attribute.value);
        if (obj) {
            fr->pf->span = t->span;
            cur = d2_getattr(I, obj, t->attribute.attr);
        }
        break;
    case D2_AST_SUBSCRIPT:
        obj = d2i_eval(I, fr, t->subscript.value);
        if (obj)
            key = d2i_eval(I, fr, t->subscript.slice);
        if (key) {
            fr->pf->span = t->span;
            cur = d2_getitem(I, obj, key);
        }
        break;
    default:
        fr->pf->span = t->span;
        d2_raise(I, "SyntaxError", "illegal expression for augmented assignment");
        break;
    }
    if (cur)
        rhs = d2i_eval(I, fr, s->aug_assign.value);
    if (rhs) {
        fr->pf->span = s->span;
        res = d2i_inplace_binop(I, s->aug_assign.op, cur, rhs);
    }
    if (res) {
        fr->pf->span = t->span;
        if (t->kind == D2_AST_NAME)
            rc = d2i_store_sym(I, fr, node_sym(fr, t), t->name.id, res);
        else if (t->kind == D2_AST_ATTRIBUTE)
            rc = d2_setattr(I, obj, t->attribute.attr, res);
        else
            rc = d2_setitem(I, obj, key, res);
    }
    d2_decref(obj);
    d2_decref(key);
    d2_decref(cur);
    d2_decref(rhs);
    d2_decref(res);
    return rc;
}

/* ---- classes ---- */

static int exec_class(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    d2_code *c = pm_get(&fr->unit->names, s);
    if (!c) {
        d2_raise(I, "SystemError", "class was not analysed");
        return -1;
    }
    argvec decos, bases;
    av_init(&decos);
    av_init(&bases);
    d2_obj *ns = NULL, *basest = NULL, *cls = NULL;
    d2_obj *inl[8], **fast = inl;
    int rc = -1;
    memset(inl, 0, sizeof inl);
    for (uint32_t i = 0; i < s->class_def.decorator_list.n; i++) {
        d2_obj *d = d2i_eval(I, fr, s->class_def.decorator_list.items[i]);
        if (!d || av_push(I, &decos, d) < 0)
            goto out;
    }
    if (d2i_eval_items(I, fr, &s->class_def.bases, &bases) < 0)
        goto out;
    for (uint32_t i = 0; i < s->class_def.keywords.n; i++) {
        const d2_ast_keyword *k = s->class_def.keywords.items[i];
        if (!k->arg || strcmp(k->arg, "metaclass") != 0) {
            fr->pf->span = k->span;
            d2_raise(I, "TypeError", "class keyword arguments are not supported");
            goto out;
        }
    }
    d2_obj_kind layout = D2_OBJ_INSTANCE;
    for (size_t i = 0; i < bases.n; i++) {
        fr->pf->span = ((d2_ast_expr *)s->class_def.bases.items[i])->span;
        if (bases.v[i]->kind != D2_OBJ_CLASS) {
            d2_raise(I, "TypeError", "bases must be types, not %s", d2_type_name(bases.v[i]));
            goto out;
        }
        d2_obj_kind l = D2_AS(d2_class, bases.v[i])->layout;
        if (l != D2_OBJ_INSTANCE) {
            if (layout != D2_OBJ_INSTANCE && layout != l) {
                d2_raise(I, "TypeError", "multiple bases have instance lay-out conflict");
                goto out;
            }
            layout = l;
        }
    }
    ns = d2_dict_new(I);
    d2_obj *modname = ns ? d2_str_from(I, fr->module->name) : NULL;
    d2_obj *qual = modname ? d2_str_from(I, c->qualname) : NULL;
    int ok = qual && d2_dict_set_str(I, D2_AS(d2_dict, ns), "__module__", modname) == 0 &&
             d2_dict_set_str(I, D2_AS(d2_dict, ns), "__qualname__", qual) == 0;
    d2_decref(modname);
    d2_decref(qual);
    if (!ok)
        goto out;
    if (c->nslots > 8 && !(fast = d2_calloc((size_t)c->nslots, sizeof *fast))) {
        d2_raise(I, "MemoryError", "out of memory");
        goto out;
    }
    d2i_frame cf;
    memset(&cf, 0, sizeof cf);
    if (d2i_setup_cells(I, c, fast, NULL, fr) < 0)
        goto out;
    cf.pf = &cf.f;
    cf.f.module = fr->module;
    cf.f.func_name = c->name;
    cf.f.span = s->span;
    cf.code = c;
    cf.unit = fr->unit;
    cf.fast = fast;
    cf.ns = D2_AS(d2_dict, ns);
    cf.globals = fr->globals;
    cf.module = fr->module;
    d2i_frame_push(I, &cf);
    int x = d2i_exec_body(I, &cf, &s->class_def.body);
    d2i_frame_pop(I, &cf);
    d2_decref(cf.retval);
    if (x == X_ERROR)
        goto out;
    fr->pf->span = s->span;
    if (bases.n) {
        basest = d2_tuple_from_array(I, bases.v, bases.n);
        if (!basest)
            goto out;
    }
    d2_class *k =
        d2i_class_make(I, s->class_def.name, basest, D2_AS(d2_dict, ns), layout, fr->module);
    if (!k)
        goto out;
    cls = (d2_obj *)k;
    k->flags |= D2I_CF_USER;
    d2i_class_update_flags(I, k);
    sym *cc = code_lookup(c, "__class__");
    if (cc && cc->res == R_CELL && fast[cc->slot])
        d2_setref(&D2_AS(d2_cell, fast[cc->slot])->value, d2_incref(cls));
    for (size_t i = decos.n; i-- > 0;) {
        d2_obj *r = d2_call(I, decos.v[i], &cls, 1, NULL);
        if (!r)
            goto out;
        d2_decref(cls);
        cls = r;
    }
    rc = d2i_store_sym(I, fr, NULL, s->class_def.name, cls);
out:
    for (int i = 0; i < c->nslots; i++)
        d2_decref(fast[i]);
    if (fast != inl)
        d2_free(fast);
    av_free(&decos);
    av_free(&bases);
    d2_decref(ns);
    d2_decref(basest);
    d2_decref(cls);
    return rc;
}

static int exec_def(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    argvec decos;
    av_init(&decos);
    int rc = -1;
    d2_obj *f = NULL;
    for (uint32_t i = 0; i < s->function_def.decorator_list.n; i++) {
        d2_obj *d = d2i_eval(I, fr, s->function_def.decorator_list.items[i]);
        if (!d || av_push(I, &decos, d) < 0)
            goto out;
    }
    f = d2i_make_function(I, fr, s, s->function_def.args, &s->function_def.body, NULL, s);
    if (!f)
        goto out;
    for (size_t i = decos.n; i-- > 0;) {
        fr->pf->span = ((d2_ast_expr *)s->function_def.decorator_list.items[i])->span;
        d2_obj *r = d2_call(I, decos.v[i], &f, 1, NULL);
        if (!r)
            goto out;
        d2_decref(f);
        f = r;
    }
    rc = d2i_store_sym(I, fr, NULL, s->function_def.name, f);
out:
    d2_decref(f);
    av_free(&decos);
    return rc;
}

/* ---- imports ---- */

static int exec_import(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    for (uint32_t i = 0; i < s->import.names.n; i++) {
        const d2_ast_alias *al = s->import.names.items[i];
        fr->pf->span = al->span.line ? al->span : s->span;
        d2_obj *m = d2_import(I, al->name, fr->module);
        if (!m)
            return -1;
        int rc;
        if (al->asname) {
            rc = d2i_store_sym(I, fr, NULL, al->asname, m);
        } else {
            const char *dot = strchr(al->name, '.');
            if (dot) {
                char top[256];
                snprintf(top, sizeof top, "%.*s", (int)(dot - al->name), al->name);
                d2_obj *t = d2_dict_get_str(I, I->modules, top);
                rc = t ? d2i_store_sym(I, fr, NULL, top, t) : -1;
                if (!t)
                    d2_raise(I, "ModuleNotFoundError", "No module named '%s'", top);
            } else {
                rc = d2i_store_sym(I, fr, NULL, al->name, m);
            }
        }
        d2_decref(m);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int exec_import_from(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    const char *modname = s->import_from.module;
    fr->pf->span = s->span;
    if (!modname) {
        /* from . import x: each name is a module beside the importing file */
        for (uint32_t i = 0; i < s->import_from.names.n; i++) {
            const d2_ast_alias *al = s->import_from.names.items[i];
            d2_obj *m = d2_import(I, al->name, fr->module);
            if (!m)
                return -1;
            int rc = d2i_store_sym(I, fr, NULL, al->asname ? al->asname : al->name, m);
            d2_decref(m);
            if (rc < 0)
                return -1;
        }
        return 0;
    }
    d2_obj *m = d2_import(I, modname, fr->module);
    if (!m)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < s->import_from.names.n && rc == 0; i++) {
        const d2_ast_alias *al = s->import_from.names.items[i];
        fr->pf->span = al->span.line ? al->span : s->span;
        if (strcmp(al->name, "*") == 0) {
            d2_dict *d = m->kind == D2_OBJ_MODULE ? D2_AS(d2_module, m)->dict : NULL;
            d2_obj *all = d ? d2_dict_get_str(I, d, "__all__") : NULL;
            if (all) {
                d2_obj *names = d2_list_from_iterable(I, all);
                if (!names)
                    rc = -1;
                for (size_t j = 0; names && j < D2_AS(d2_list, names)->n && rc == 0; j++) {
                    d2_obj *nm = D2_AS(d2_list, names)->items[j];
                    const char *cs = d2_to_cstr(I, nm, "__all__ item");
                    d2_obj *v = cs ? d2_getattr(I, m, cs) : NULL;
                    rc = v ? d2i_store_sym(I, fr, NULL, cs, v) : -1;
                    d2_decref(v);
                }
                d2_decref(names);
            } else if (d) {
                for (size_t j = 0; j < d->n && rc == 0; j++) {
                    d2_dict_entry *e = &d->entries[j];
                    if (!e->key || e->key->kind != D2_OBJ_STR || D2_AS(d2_str, e->key)->s[0] == '_')
                        continue;
                    rc = d2i_store_sym(I, fr, NULL, D2_AS(d2_str, e->key)->s, e->value);
                }
            }
            continue;
        }
        d2_obj *v = m->kind == D2_OBJ_MODULE ? d2_getattr_opt(I, m, al->name) : NULL;
        if (!v && !I->exc) {
            char full[512];
            snprintf(full, sizeof full, "%s.%s", modname, al->name);
            if (d2_dict_get_str(I, I->modules, full)) {
                v = d2_import(I, full, fr->module);
            } else {
                const d2_module *mm = D2_AS(d2_module, m);
                if (mm->path)
                    d2_raise(I, "ImportError", "cannot import name '%s' from '%s' (%s)", al->name,
                             modname, mm->path);
                else
                    d2_raise(I, "ImportError",
                             "cannot import name '%s' from '%s' (unknown location)", al->name,
                             modname);
            }
        }
        if (!v) {
            rc = -1;
            break;
        }
        rc = d2i_store_sym(I, fr, NULL, al->asname ? al->asname : al->name, v);
        d2_decref(v);
    }
    d2_decref(m);
    return rc;
}

/* ---- exception handling ---- */

static int push_handled(d2_interp *I, d2_obj *exc)
{
    struct d2_interp_state *st = I->st;
    if (st->nhandled == st->caphandled) {
        size_t cap = st->caphandled ? st->caphandled * 2 : 8;
        d2_obj **p = d2_realloc(st->handled, cap * sizeof *p);
        if (!p) {
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        st->handled = p;
        st->caphandled = cap;
    }
    st->handled[st->nhandled++] = d2_incref(exc);
    return 0;
}

static void pop_handled(d2_interp *I)
{
    d2_decref(I->st->handled[--I->st->nhandled]);
}

/* Whether exc matches an except clause's type value (class or tuple); -1 on error. */
static int exc_match(d2_interp *I, d2_obj *exc, d2_obj *type)
{
    if (type->kind == D2_OBJ_TUPLE) {
        for (size_t i = 0; i < D2_AS(d2_tuple, type)->n; i++) {
            int r = exc_match(I, exc, D2_AS(d2_tuple, type)->items[i]);
            if (r)
                return r;
        }
        return 0;
    }
    if (type->kind != D2_OBJ_CLASS || !d2i_issubclass(D2_AS(d2_class, type), I->st->base_exc)) {
        d2_raise(I, "TypeError",
                 "catching classes that do not inherit from BaseException is not allowed");
        return -1;
    }
    return d2i_issubclass(exc->cls, D2_AS(d2_class, type));
}

static int exec_try(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    int x = d2i_exec_body(I, fr, &s->try_.body);
    if (x == X_ERROR && s->try_.handlers.n) {
        d2_obj *exc = I->exc;
        I->exc = NULL;
        bool handled = false;
        for (uint32_t i = 0; i < s->try_.handlers.n; i++) {
            const d2_ast_excepthandler *h = s->try_.handlers.items[i];
            if (h->type) {
                d2_obj *t = d2i_eval(I, fr, h->type);
                if (!t) {
                    d2_decref(exc);
                    exc = NULL;
                    break;
                }
                fr->pf->span = h->type->span;
                int m = exc_match(I, exc, t);
                d2_decref(t);
                if (m < 0) {
                    d2_decref(exc);
                    exc = NULL;
                    break;
                }
                if (!m)
                    continue;
            }
            handled = true;
            if (push_handled(I, exc) < 0) {
                x = X_ERROR;
                break;
            }
            if (h->name && d2i_store_sym(I, fr, NULL, h->name, exc) < 0)
                x = X_ERROR;
            else
                x = d2i_exec_body(I, fr, &h->body);
            pop_handled(I);
            if (h->name) {
                d2_obj *pending = I->exc;
                I->exc = NULL;
                delete_sym(I, fr, NULL, h->name, true);
                d2_exc_clear(I);
                I->exc = pending;
            }
            break;
        }
        if (!handled) {
            if (exc) {
                I->exc = exc;
                exc = NULL;
            }
            x = X_ERROR;
        }
        d2_decref(exc);
    } else if (x == X_NORMAL && s->try_.orelse.n) {
        x = d2i_exec_body(I, fr, &s->try_.orelse);
    }
    if (s->try_.finalbody.n) {
        d2_obj *saved_exc = I->exc, *saved_ret = fr->retval;
        I->exc = NULL;
        fr->retval = NULL;
        int fx = d2i_exec_body(I, fr, &s->try_.finalbody);
        if (fx == X_NORMAL) {
            I->exc = saved_exc;
            fr->retval = saved_ret;
        } else {
            d2_decref(saved_exc);
            d2_decref(saved_ret);
            x = fx;
        }
    }
    return x;
}

static int exec_raise(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    if (!s->raise.exc) {
        fr->pf->span = s->span;
        if (!I->st->nhandled) {
            d2_raise(I, "RuntimeError", "No active exception to reraise");
            return X_ERROR;
        }
        d2i_set_exc(I, d2_incref(I->st->handled[I->st->nhandled - 1]));
        return X_ERROR;
    }
    d2_obj *v = d2i_eval(I, fr, s->raise.exc);
    if (!v)
        return X_ERROR;
    d2_obj *cause = NULL;
    if (s->raise.cause && !(cause = d2i_eval(I, fr, s->raise.cause))) {
        d2_decref(v);
        return X_ERROR;
    }
    fr->pf->span = s->span;
    if (v->kind == D2_OBJ_CLASS && d2i_issubclass(D2_AS(d2_class, v), I->st->base_exc)) {
        d2_obj *inst = d2_call(I, v, NULL, 0, NULL);
        d2_decref(v);
        v = inst;
        if (!v) {
            d2_decref(cause);
            return X_ERROR;
        }
        fr->pf->span = s->span;
    }
    if (!d2i_issubclass(v->cls, I->st->base_exc)) {
        d2_decref(v);
        d2_decref(cause);
        d2_raise(I, "TypeError", "exceptions must derive from BaseException");
        return X_ERROR;
    }
    if (cause) {
        if (v->kind == D2_OBJ_INSTANCE)
            d2_dict_set_str(I, D2_AS(d2_instance, v)->dict, "__cause__", cause);
        d2_decref(cause);
    }
    d2i_set_exc(I, v);
    return X_ERROR;
}

/* ---- with ---- */

static int exec_with_items(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s, uint32_t idx)
{
    if (idx == s->with.items.n)
        return d2i_exec_body(I, fr, &s->with.body);
    const d2_ast_withitem *w = s->with.items.items[idx];
    d2_obj *mgr = d2i_eval(I, fr, w->context_expr);
    if (!mgr)
        return X_ERROR;
    fr->pf->span = w->context_expr->span;
    d2_obj *exitm = d2i_mro_lookup(I, mgr->cls, "__exit__");
    d2_obj *enterm = d2i_mro_lookup(I, mgr->cls, "__enter__");
    if (!enterm || !exitm) {
        d2_raise(I, "TypeError", "'%s' object does not support the context manager protocol",
                 d2_type_name(mgr));
        d2_decref(mgr);
        return X_ERROR;
    }
    bool found;
    d2_obj *val = d2_call_special(I, mgr, "__enter__", NULL, 0, &found);
    if (!val) {
        d2_decref(mgr);
        return X_ERROR;
    }
    int x;
    if (w->optional_vars && d2i_assign(I, fr, w->optional_vars, val) < 0)
        x = X_ERROR;
    else
        x = exec_with_items(I, fr, s, idx + 1);
    d2_decref(val);
    if (x == X_ERROR) {
        d2_obj *exc = I->exc;
        I->exc = NULL;
        if (!exc) {
            d2_decref(mgr);
            return X_ERROR;
        }
        d2_obj *args[3] = {(d2_obj *)exc->cls, exc, I->none};
        push_handled(I, exc);
        d2_obj *r = d2_call_special(I, mgr, "__exit__", args, 3, &found);
        pop_handled(I);
        int t = r ? d2_truthy(I, r) : -1;
        d2_decref(r);
        if (t > 0) {
            d2_decref(exc);
            x = X_NORMAL;
        } else if (t == 0) {
            I->exc = exc;
        } else {
            d2_decref(exc);
        }
    } else {
        d2_obj *args[3] = {I->none, I->none, I->none};
        d2_obj *saved_ret = fr->retval;
        fr->retval = NULL;
        d2_obj *r = d2_call_special(I, mgr, "__exit__", args, 3, &found);
        fr->retval = saved_ret;
        if (!r)
            x = X_ERROR;
        d2_decref(r);
    }
    d2_decref(mgr);
    return x;
}

/* ---- statements ---- */

static int exec_for(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    d2_obj *src = d2i_eval(I, fr, s->for_.iter);
    if (!src)
        return X_ERROR;
    fr->pf->span = s->for_.iter->span;
    d2_obj *it = d2_get_iter(I, src);
    d2_decref(src);
    if (!it)
        return X_ERROR;
    int x = X_NORMAL;
    bool broke = false;
    for (;;) {
        bool done = false;
        d2_obj *v = d2_iter_next(I, it, &done);
        if (!v) {
            if (!done) {
                fr->pf->span = s->for_.iter->span;
                x = X_ERROR;
            }
            break;
        }
        int rc = d2i_assign(I, fr, s->for_.target, v);
        d2_decref(v);
        if (rc < 0) {
            x = X_ERROR;
            break;
        }
        x = d2i_exec_body(I, fr, &s->for_.body);
        if (x == X_BREAK) {
            broke = true;
            x = X_NORMAL;
            break;
        }
        if (x == X_CONTINUE)
            x = X_NORMAL;
        if (x != X_NORMAL)
            break;
        if (d2i_tick_due(I)) {
            fr->pf->span = s->for_.iter->span; /* a timeout names the loop */
            if (d2i_tick_slow(I) < 0) {
                x = X_ERROR;
                break;
            }
        }
    }
    d2_decref(it);
    if (x == X_NORMAL && !broke && s->for_.orelse.n)
        x = d2i_exec_body(I, fr, &s->for_.orelse);
    return x;
}

static int exec_while(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    for (;;) {
        d2_obj *c = d2i_eval(I, fr, s->while_.test);
        if (!c)
            return X_ERROR;
        fr->pf->span = s->while_.test->span;
        int t = d2_truthy(I, c);
        d2_decref(c);
        if (t < 0)
            return X_ERROR;
        if (!t)
            break;
        int x = d2i_exec_body(I, fr, &s->while_.body);
        if (x == X_BREAK)
            return X_NORMAL;
        if (x != X_CONTINUE && x != X_NORMAL)
            return x;
        if (d2i_tick_due(I)) {
            fr->pf->span = s->while_.test->span; /* a timeout names the loop */
            if (d2i_tick_slow(I) < 0)
                return X_ERROR;
        }
    }
    if (s->while_.orelse.n)
        return d2i_exec_body(I, fr, &s->while_.orelse);
    return X_NORMAL;
}

int d2i_exec_stmt(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    fr->pf->span = s->span;
    if (d2i_stack_check(I) < 0)
        return X_ERROR;
    switch (s->kind) {
    case D2_AST_EXPR: {
        d2_obj *v = d2i_eval(I, fr, s->expr.value);
        if (!v)
            return X_ERROR;
        d2_decref(v);
        return X_NORMAL;
    }
    case D2_AST_ASSIGN: {
        d2_obj *v = d2i_eval(I, fr, s->assign.value);
        if (!v)
            return X_ERROR;
        int rc = 0;
        for (uint32_t i = 0; i < s->assign.targets.n && rc == 0; i++)
            rc = d2i_assign(I, fr, s->assign.targets.items[i], v);
        d2_decref(v);
        return rc < 0 ? X_ERROR : X_NORMAL;
    }
    case D2_AST_AUG_ASSIGN:
        return exec_aug_assign(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_ANN_ASSIGN: {
        /* a class body records `name: annotation` in __annotations__ (dataclasses read it) */
        if (fr->ns && fr->ns != fr->globals && s->ann_assign.simple &&
            s->ann_assign.target->kind == D2_AST_NAME && record_annotation(I, fr, s) < 0)
            return X_ERROR;
        if (!s->ann_assign.value)
            return X_NORMAL;
        d2_obj *v = d2i_eval(I, fr, s->ann_assign.value);
        if (!v)
            return X_ERROR;
        int rc = d2i_assign(I, fr, s->ann_assign.target, v);
        d2_decref(v);
        return rc < 0 ? X_ERROR : X_NORMAL;
    }
    case D2_AST_IF: {
        const d2_ast_stmt *cur = s;
        for (;;) {
            d2_obj *c = d2i_eval(I, fr, cur->if_.test);
            if (!c)
                return X_ERROR;
            fr->pf->span = cur->if_.test->span;
            int t = d2_truthy(I, c);
            d2_decref(c);
            if (t < 0)
                return X_ERROR;
            if (t)
                return d2i_exec_body(I, fr, &cur->if_.body);
            /* elif chains without recursion */
            if (cur->if_.orelse.n == 1 &&
                ((d2_ast_stmt *)cur->if_.orelse.items[0])->kind == D2_AST_IF) {
                cur = cur->if_.orelse.items[0];
                fr->pf->span = cur->span;
                continue;
            }
            return d2i_exec_body(I, fr, &cur->if_.orelse);
        }
    }
    case D2_AST_FOR:
        return exec_for(I, fr, s);
    case D2_AST_WHILE:
        return exec_while(I, fr, s);
    case D2_AST_RETURN: {
        d2_obj *v = s->return_.value ? d2i_eval(I, fr, s->return_.value) : d2_none(I);
        if (!v)
            return X_ERROR;
        d2_setref(&fr->retval, v);
        return X_RETURN;
    }
    case D2_AST_PASS:
    case D2_AST_GLOBAL:
    case D2_AST_NONLOCAL:
        return X_NORMAL;
    case D2_AST_BREAK:
        return X_BREAK;
    case D2_AST_CONTINUE:
        return X_CONTINUE;
    case D2_AST_FUNCTION_DEF:
        return exec_def(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_CLASS_DEF:
        return exec_class(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_DELETE:
        for (uint32_t i = 0; i < s->delete.targets.n; i++)
            if (delete_target(I, fr, s->delete.targets.items[i]) < 0)
                return X_ERROR;
        return X_NORMAL;
    case D2_AST_IMPORT:
        return exec_import(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_IMPORT_FROM:
        return exec_import_from(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_TRY:
        return exec_try(I, fr, s);
    case D2_AST_RAISE:
        return exec_raise(I, fr, s);
    case D2_AST_WITH:
        return exec_with_items(I, fr, s, 0);
    case D2_AST_ASSERT: {
        d2_obj *c = d2i_eval(I, fr, s->assert_.test);
        if (!c)
            return X_ERROR;
        fr->pf->span = s->assert_.test->span;
        int t = d2_truthy(I, c);
        d2_decref(c);
        if (t < 0)
            return X_ERROR;
        if (t)
            return X_NORMAL;
        d2_obj *msg = NULL;
        if (s->assert_.msg && !(msg = d2i_eval(I, fr, s->assert_.msg)))
            return X_ERROR;
        fr->pf->span = s->span;
        d2_obj *e = d2i_exc_new(I, d2_exc_class(I, "AssertionError"), &msg, msg ? 1 : 0);
        d2_decref(msg);
        if (e)
            d2i_set_exc(I, e);
        return X_ERROR;
    }
    default:
        d2_raise(I, "NotImplementedError", "%s statements are not supported",
                 d2_ast_kind_name(s->kind));
        return X_ERROR;
    }
}
