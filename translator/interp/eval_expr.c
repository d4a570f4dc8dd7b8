/* eval_expr.c - the evaluator's expressions: names, operators, comprehensions, f-strings. */
#include "interp/interp_priv.h"

#include <string.h>

/* ======================================================================
 * The evaluator
 * ==================================================================== */

d2_dict *d2i_current_globals(d2_interp *I)
{
    return I->st->cur ? I->st->cur->globals : NULL;
}

d2_obj *d2i_name_error(d2_interp *I, const char *name)
{
    return d2_raise(I, "NameError", "name '%s' is not defined", name);
}

static d2_obj *load_global(d2_interp *I, d2i_frame *fr, const char *name, size_t n, uint64_t h)
{
    d2_obj *v = d2i_dict_get_cstr(fr->globals, name, n, h);
    if (!v)
        v = d2i_dict_get_cstr(I->builtins, name, n, h);
    return v ? d2_incref(v) : d2i_name_error(I, name);
}

/* load_global through the symbol's cache: the entry found last time is read
 * directly while the globals' layout (and, for a builtin, the builtins')
 * is the one recorded; otherwise looked up and recorded again. */
static d2_obj *load_global_sym(d2_interp *I, d2i_frame *fr, sym *s)
{
    d2_dict *g = fr->globals, *b = I->builtins;
    if (s->gdict == g && s->glayout == g->layout) {
        d2_obj *v = NULL;
        if (!s->blayout)
            v = g->entries[s->gix].value;
        else if (s->blayout == b->layout)
            v = b->entries[s->gix].value;
        if (v)
            return d2_incref(v);
    }
    if (!g->ns_dict || !b->ns_dict)
        return load_global(I, fr, s->name, s->len, s->hash);
    int64_t ix = d2i_dict_index_cstr(g, s->name, s->len, s->hash);
    d2_dict *in = g;
    if (ix < 0) {
        ix = d2i_dict_index_cstr(b, s->name, s->len, s->hash);
        in = b;
    }
    if (ix < 0)
        return d2i_name_error(I, s->name);
    s->gdict = g;
    s->glayout = g->layout;
    s->blayout = in == b ? b->layout : 0;
    s->gix = ix;
    return d2_incref(in->entries[ix].value);
}

d2_obj *d2i_load_sym(d2_interp *I, d2i_frame *fr, sym *s, const char *name)
{
    if (!s) {
        size_t n = strlen(name);
        uint64_t h = d2i_hash_bytes(name, n);
        if (fr->ns && fr->ns != fr->globals) {
            d2_obj *v = d2i_dict_get_cstr(fr->ns, name, n, h);
            if (v)
                return d2_incref(v);
        }
        return load_global(I, fr, name, n, h);
    }
    switch (s->res) {
    case R_LOCAL: {
        d2_obj *v = fr->fast[s->slot];
        if (v)
            return d2_incref(v);
        return d2_raise(I, "UnboundLocalError",
                        "cannot access local variable '%s' where it is not associated with a value",
                        s->name);
    }
    case R_CLASSDEREF: {
        d2_obj *v = d2i_dict_get_cstr(fr->ns, s->name, s->len, s->hash);
        if (v)
            return d2_incref(v);
    }
        /* fall through */
    case R_CELL:
    case R_FREE: {
        d2_obj *c = fr->fast[s->slot];
        d2_obj *v = c ? D2_AS(d2_cell, c)->value : NULL;
        if (v)
            return d2_incref(v);
        if (s->res == R_CELL)
            return d2_raise(
                I, "UnboundLocalError",
                "cannot access local variable '%s' where it is not associated with a value",
                s->name);
        return d2_raise(I, "NameError",
                        "cannot access free variable '%s' where it is not associated with a value "
                        "in enclosing scope",
                        s->name);
    }
    case R_NAME: {
        if (fr->ns == fr->globals) /* module level: the same lookup as a global's */
            return load_global_sym(I, fr, s);
        d2_obj *v = d2i_dict_get_cstr(fr->ns, s->name, s->len, s->hash);
        if (v)
            return d2_incref(v);
        return load_global(I, fr, s->name, s->len, s->hash);
    }
    default:
        return load_global_sym(I, fr, s);
    }
}

/* ---- constants ---- */

static d2_obj *make_const(d2_interp *I, const d2_ast_const *c)
{
    switch (c->kind) {
    case D2_CONST_NONE: return d2_none(I);
    case D2_CONST_TRUE: return d2_bool(I, true);
    case D2_CONST_FALSE: return d2_bool(I, false);
    case D2_CONST_ELLIPSIS: return d2_incref(I->ellipsis);
    case D2_CONST_INT: return d2_int_new(I, c->i);
    case D2_CONST_FLOAT: return d2_float_new(I, c->f);
    case D2_CONST_STR: return d2_str_new(I, c->str.data, c->str.len);
    case D2_CONST_BIGINT:
        return d2_raise(I, "OverflowError", "integer literal %s is too large (ints are 64-bit)",
                        c->str.data);
    case D2_CONST_COMPLEX:
        return d2_raise(I, "NotImplementedError", "complex numbers are not supported");
    case D2_CONST_BYTES:
        return d2_raise(I, "NotImplementedError", "bytes literals are not supported");
    }
    return d2_none(I);
}

static d2_obj *eval_const(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    d2_obj *v = pm_get(&fr->unit->consts, e);
    if (v)
        return d2_incref(v);
    fr->pf->span = e->span;
    v = make_const(I, &e->constant.value);
    if (v && d2i_pm_put(&fr->unit->consts, e, v) == 0)
        d2_incref(v);
    return v;
}

/* ---- comprehensions ---- */

static int comp_loop(d2_interp *I, d2i_frame *cf, const d2_ast_expr *e, const d2_ast_seq *gens,
                     uint32_t gi, d2_obj *iterable, d2_obj *out)
{
    const d2_ast_comprehension *g = gens->items[gi];
    d2_obj *it;
    if (iterable) {
        it = d2_get_iter(I, iterable);
    } else {
        d2_obj *src = d2i_eval(I, cf, g->iter);
        if (!src)
            return -1;
        cf->pf->span = g->iter->span;
        it = d2_get_iter(I, src);
        d2_decref(src);
    }
    if (!it)
        return -1;
    int rc = 0;
    for (;;) {
        bool done = false;
        d2_obj *x = d2_iter_next(I, it, &done);
        if (!x) {
            rc = done ? 0 : -1;
            break;
        }
        rc = d2i_assign(I, cf, g->target, x);
        d2_decref(x);
        if (rc < 0 || (rc = d2i_tick(I)) < 0)
            break;
        bool keep = true;
        for (uint32_t k = 0; k < g->ifs.n && keep; k++) {
            d2_obj *c = d2i_eval(I, cf, g->ifs.items[k]);
            if (!c) {
                rc = -1;
                break;
            }
            int t = d2_truthy(I, c);
            d2_decref(c);
            if (t < 0)
                rc = -1;
            keep = t > 0;
        }
        if (rc < 0)
            break;
        if (!keep)
            continue;
        if (gi + 1 < gens->n) {
            rc = comp_loop(I, cf, e, gens, gi + 1, NULL, out);
        } else if (e->kind == D2_AST_DICT_COMP) {
            d2_obj *k = d2i_eval(I, cf, e->dict_comp.key);
            d2_obj *v = k ? d2i_eval(I, cf, e->dict_comp.value) : NULL;
            if (v)
                cf->pf->span = e->dict_comp.key->span;
            rc = v ? d2_dict_set(I, D2_AS(d2_dict, out), k, v) : -1;
            d2_decref(k);
            d2_decref(v);
        } else {
            d2_obj *v = d2i_eval(I, cf, e->list_comp.elt);
            if (!v)
                rc = -1;
            else if (e->kind == D2_AST_SET_COMP)
                rc = d2_dict_set(I, D2_AS(d2_dict, out), v, I->none);
            else
                rc = d2_list_append(I, out, v);
            d2_decref(v);
        }
        if (rc < 0)
            break;
    }
    d2_decref(it);
    return rc;
}

/* List/set/dict comprehensions and generator expressions (evaluated eagerly). */
static d2_obj *eval_comprehension(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    const d2_ast_seq *gens =
        e->kind == D2_AST_DICT_COMP ? &e->dict_comp.generators : &e->list_comp.generators;
    d2_code *c = pm_get(&fr->unit->names, e);
    if (!c || gens->n == 0)
        return d2_raise(I, "SystemError", "comprehension was not analysed");
    d2_obj *first = d2i_eval(I, fr, ((d2_ast_comprehension *)gens->items[0])->iter);
    if (!first)
        return NULL;
    d2_obj *out = e->kind == D2_AST_DICT_COMP ? d2_dict_new(I)
                  : e->kind == D2_AST_SET_COMP ? d2i_set_new(I)
                                               : d2_list_new(I, 0);
    d2_obj *inl[8], **fast = c->nslots <= 8 ? inl : d2_calloc((size_t)c->nslots, sizeof *fast);
    if (!out || !fast) {
        d2_decref(first);
        d2_decref(out);
        return d2_raise(I, "MemoryError", "out of memory");
    }
    memset(fast, 0, (size_t)c->nslots * sizeof *fast);
    d2i_frame cf;
    memset(&cf, 0, sizeof cf);
    cf.pf = fr->pf;
    cf.code = c;
    cf.unit = fr->unit;
    cf.fast = fast;
    cf.globals = fr->globals;
    cf.module = fr->module;
    int rc = d2i_setup_cells(I, c, fast, NULL, fr);
    if (rc == 0) {
        d2i_frame_push(I, &cf);
        fr->pf->span = ((d2_ast_comprehension *)gens->items[0])->iter->span;
        rc = comp_loop(I, &cf, e, gens, 0, first, out);
        d2i_frame_pop(I, &cf);
    }
    for (int i = 0; i < c->nslots; i++)
        d2_decref(fast[i]);
    if (fast != inl)
        d2_free(fast);
    d2_decref(first);
    if (rc < 0) {
        d2_decref(out);
        return NULL;
    }
    if (e->kind == D2_AST_GENERATOR_EXP) {
        d2_obj *it = d2_get_iter(I, out);
        d2_decref(out);
        return it;
    }
    return out;
}

/* ---- f-strings ---- */

static d2_obj *eval_fstring(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    d2_buf b;
    d2_buf_init(&b);
    for (uint32_t i = 0; i < e->joined_str.values.n; i++) {
        const d2_ast_expr *part = e->joined_str.values.items[i];
        d2_obj *s;
        if (part->kind == D2_AST_FORMATTED_VALUE) {
            d2_obj *v = d2i_eval(I, fr, part->formatted_value.value);
            if (!v)
                goto fail;
            fr->pf->span = part->formatted_value.value->span;
            int conv = part->formatted_value.conversion;
            if (conv == 'r' || conv == 'a' || conv == 's') {
                d2_obj *cv = conv == 's' ? d2_str_of(I, v) : d2_repr(I, v);
                d2_decref(v);
                if (!cv)
                    goto fail;
                v = cv;
            }
            d2_obj *spec = NULL;
            if (part->formatted_value.format_spec) {
                spec = d2i_eval(I, fr, part->formatted_value.format_spec);
                if (!spec) {
                    d2_decref(v);
                    goto fail;
                }
            }
            fr->pf->span = part->span.line ? part->span : part->formatted_value.value->span;
            s = d2i_format(I, v, spec ? D2_AS(d2_str, spec)->s : "");
            d2_decref(spec);
            d2_decref(v);
        } else {
            s = d2i_eval(I, fr, part);
        }
        if (!s)
            goto fail;
        if (s->kind == D2_OBJ_STR)
            d2_buf_append(&b, D2_AS(d2_str, s)->s, D2_AS(d2_str, s)->len);
        d2_decref(s);
    }
    if (b.oom) {
        d2_buf_free(&b);
        return d2_raise(I, "MemoryError", "out of memory");
    }
    d2_obj *r = d2_str_new(I, b.data ? b.data : "", b.len);
    d2_buf_free(&b);
    return r;
fail:
    d2_buf_free(&b);
    return NULL;
}

/* ---- expressions ---- */

static d2_obj *eval_sequence(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    argvec av;
    av_init(&av);
    const d2_ast_seq *elts = e->kind == D2_AST_SET ? &e->set.elts : &e->list.elts;
    d2_obj *r = NULL;
    if (d2i_eval_items(I, fr, elts, &av) == 0) {
        if (e->kind == D2_AST_LIST)
            r = d2i_list_from_array(I, av.v, av.n);
        else if (e->kind == D2_AST_TUPLE)
            r = d2_tuple_from_array(I, av.v, av.n);
        else {
            r = d2i_set_new(I);
            for (size_t i = 0; r && i < av.n; i++) {
                fr->pf->span = e->span;
                if (d2_dict_set(I, D2_AS(d2_dict, r), av.v[i], I->none) < 0) {
                    d2_decref(r);
                    r = NULL;
                }
            }
        }
    }
    av_free(&av);
    return r;
}

static d2_obj *eval_dict(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    d2_obj *d = d2_dict_new(I);
    if (!d)
        return NULL;
    for (uint32_t i = 0; i < e->dict.values.n; i++) {
        const d2_ast_expr *ke = e->dict.keys.items[i];
        d2_obj *k = NULL;
        if (ke && !(k = d2i_eval(I, fr, ke)))
            goto fail;
        d2_obj *v = d2i_eval(I, fr, e->dict.values.items[i]);
        if (!v) {
            d2_decref(k);
            goto fail;
        }
        int rc;
        if (ke) {
            fr->pf->span = ke->span;
            rc = d2_dict_set(I, D2_AS(d2_dict, d), k, v);
        } else {
            fr->pf->span = ((d2_ast_expr *)e->dict.values.items[i])->span;
            rc = d2_dict_merge(I, D2_AS(d2_dict, d), v);
        }
        d2_decref(k);
        d2_decref(v);
        if (rc < 0)
            goto fail;
    }
    return d;
fail:
    d2_decref(d);
    return NULL;
}

static d2_obj *eval_slice(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    d2_obj *parts[3] = {NULL, NULL, NULL};
    const d2_ast_expr *pe[3] = {e->slice.lower, e->slice.upper, e->slice.step};
    for (int i = 0; i < 3; i++) {
        if (!pe[i])
            continue;
        parts[i] = d2i_eval(I, fr, pe[i]);
        if (!parts[i]) {
            for (int j = 0; j < i; j++)
                d2_decref(parts[j]);
            return NULL;
        }
    }
    d2_obj *s = d2_obj_alloc(I, D2_OBJ_SLICE, NULL, sizeof(d2_slice));
    if (!s) {
        for (int j = 0; j < 3; j++)
            d2_decref(parts[j]);
        return NULL;
    }
    D2_AS(d2_slice, s)->start = parts[0] ? parts[0] : d2_none(I);
    D2_AS(d2_slice, s)->stop = parts[1] ? parts[1] : d2_none(I);
    D2_AS(d2_slice, s)->step = parts[2] ? parts[2] : d2_none(I);
    return s;
}

d2_obj *d2i_eval(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    if (d2i_stack_check(I) < 0) {
        fr->pf->span = e->span;
        return NULL;
    }
    switch (e->kind) {
    case D2_AST_NAME:
        fr->pf->span = e->span;
        return d2i_load_sym(I, fr, node_sym(fr, e), e->name.id);
    case D2_AST_CONSTANT:
        return eval_const(I, fr, e);
    case D2_AST_ATTRIBUTE: {
        d2_obj *o = d2i_eval(I, fr, e->attribute.value);
        if (!o)
            return NULL;
        fr->pf->span = e->span;
        d2_obj *r = d2_getattr(I, o, e->attribute.attr);
        d2_decref(o);
        return r;
    }
    case D2_AST_CALL:
        return d2i_eval_call(I, fr, e);
    case D2_AST_BIN_OP: {
        d2_obj *a = d2i_eval(I, fr, e->bin_op.left);
        if (!a)
            return NULL;
        d2_obj *b = d2i_eval(I, fr, e->bin_op.right);
        if (!b) {
            d2_decref(a);
            return NULL;
        }
        fr->pf->span = e->span;
        d2_obj *r = d2_binop(I, e->bin_op.op, a, b);
        d2_decref(a);
        d2_decref(b);
        return r;
    }
    case D2_AST_UNARY_OP: {
        d2_obj *a = d2i_eval(I, fr, e->unary_op.operand);
        if (!a)
            return NULL;
        fr->pf->span = e->span;
        d2_obj *r = d2_unaryop(I, e->unary_op.op, a);
        d2_decref(a);
        return r;
    }
    case D2_AST_BOOL_OP: {
        const d2_ast_seq *vals = &e->bool_op.values;
        for (uint32_t i = 0;; i++) {
            d2_obj *v = d2i_eval(I, fr, vals->items[i]);
            if (!v || i + 1 == vals->n)
                return v;
            fr->pf->span = ((d2_ast_expr *)vals->items[i])->span;
            int t = d2_truthy(I, v);
            if (t < 0) {
                d2_decref(v);
                return NULL;
            }
            if ((e->bool_op.op == D2_BOOLOP_AND) != (t != 0))
                return v;
            d2_decref(v);
        }
    }
    case D2_AST_COMPARE: {
        d2_obj *left = d2i_eval(I, fr, e->compare.left);
        if (!left)
            return NULL;
        uint32_t n = e->compare.comparators.n;
        for (uint32_t i = 0; i < n; i++) {
            d2_obj *right = d2i_eval(I, fr, e->compare.comparators.items[i]);
            if (!right) {
                d2_decref(left);
                return NULL;
            }
            fr->pf->span = e->span;
            d2_obj *r = d2_compare(I, e->compare.ops[i], left, right);
            d2_decref(left);
            if (!r || i + 1 == n) {
                d2_decref(right);
                return r;
            }
            int t = d2_truthy(I, r);
            if (t <= 0) {
                d2_decref(right);
                if (t < 0) {
                    d2_decref(r);
                    return NULL;
                }
                return r;
            }
            d2_decref(r);
            left = right;
        }
        return left;
    }
    case D2_AST_IF_EXP: {
        d2_obj *c = d2i_eval(I, fr, e->if_exp.test);
        if (!c)
            return NULL;
        fr->pf->span = e->if_exp.test->span;
        int t = d2_truthy(I, c);
        d2_decref(c);
        if (t < 0)
            return NULL;
        return d2i_eval(I, fr, t ? e->if_exp.body : e->if_exp.orelse);
    }
    case D2_AST_SUBSCRIPT: {
        d2_obj *o = d2i_eval(I, fr, e->subscript.value);
        if (!o)
            return NULL;
        d2_obj *k = d2i_eval(I, fr, e->subscript.slice);
        if (!k) {
            d2_decref(o);
            return NULL;
        }
        fr->pf->span = e->span;
        d2_obj *r = d2_getitem(I, o, k);
        d2_decref(o);
        d2_decref(k);
        return r;
    }
    case D2_AST_SLICE:
        return eval_slice(I, fr, e);
    case D2_AST_LIST:
    case D2_AST_TUPLE:
    case D2_AST_SET:
        return eval_sequence(I, fr, e);
    case D2_AST_DICT:
        return eval_dict(I, fr, e);
    case D2_AST_LIST_COMP:
    case D2_AST_SET_COMP:
    case D2_AST_DICT_COMP:
    case D2_AST_GENERATOR_EXP:
        return eval_comprehension(I, fr, e);
    case D2_AST_JOINED_STR:
        return eval_fstring(I, fr, e);
    case D2_AST_FORMATTED_VALUE: {
        d2_obj *v = d2i_eval(I, fr, e->formatted_value.value);
        if (!v)
            return NULL;
        d2_obj *r = d2i_format(I, v, "");
        d2_decref(v);
        return r;
    }
    case D2_AST_LAMBDA:
        return d2i_make_function(I, fr, e, e->lambda.args, NULL, e->lambda.body, NULL);
    case D2_AST_NAMED_EXPR: {
        d2_obj *v = d2i_eval(I, fr, e->named_expr.value);
        if (!v)
            return NULL;
        if (d2i_store_sym(I, fr, node_sym(fr, e->named_expr.target), e->named_expr.target->name.id,
                          v) < 0) {
            d2_decref(v);
            return NULL;
        }
        return v;
    }
    case D2_AST_STARRED:
        fr->pf->span = e->span;
        return d2_raise(I, "SyntaxError", "can't use starred expression here");
    default:
        fr->pf->span = e->span;
        return d2_raise(I, "NotImplementedError", "%s expressions are not supported",
                        d2_ast_kind_name(e->kind));
    }
}
