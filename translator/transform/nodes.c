/* nodes.c - the AST nodes the transforms build (each spanning the user's construct), deep copy. */
#include "transform/transform_priv.h"

#include <string.h>

/* ---- deep copy through the field tables ---- */

static size_t node_size(d2_ast_kind k)
{
    if (d2_ast_is_stmt(k))
        return sizeof(d2_ast_stmt);
    if (d2_ast_is_expr(k))
        return sizeof(d2_ast_expr);
    if (d2_ast_is_pattern(k))
        return sizeof(d2_ast_pattern);
    switch (k) {
    case D2_AST_ARGUMENTS: return sizeof(d2_ast_arguments);
    case D2_AST_ARG: return sizeof(d2_ast_arg);
    case D2_AST_KEYWORD: return sizeof(d2_ast_keyword);
    case D2_AST_ALIAS: return sizeof(d2_ast_alias);
    case D2_AST_WITHITEM: return sizeof(d2_ast_withitem);
    case D2_AST_COMPREHENSION: return sizeof(d2_ast_comprehension);
    case D2_AST_EXCEPT_HANDLER: return sizeof(d2_ast_excepthandler);
    case D2_AST_MATCH_CASE: return sizeof(d2_ast_match_case);
    default: return sizeof(d2_ast_module);
    }
}

/* A deep copy of node in the AST's arena (strings and constants shared). */
void *xf_copy(X *x, const void *node)
{
    if (!node)
        return NULL;
    const d2_ast_node *n = node;
    size_t size = node_size(n->kind);
    char *p = xf_chk(x, d2_arena_alloc(x->a, size));
    memcpy(p, node, size);
    size_t nf;
    const d2_ast_field *fs = d2_ast_fields(n->kind, &nf);
    for (size_t i = 0; i < nf; i++) {
        char *f = p + fs[i].offset;
        switch (fs[i].type) {
        case D2_AST_F_NODE:
        case D2_AST_F_OPT: *(void **)f = xf_copy(x, *(void **)f); break;
        case D2_AST_F_SEQ:
        case D2_AST_F_IDENTS: {
            d2_ast_seq *s = (d2_ast_seq *)f, old = *s;
            memset(s, 0, sizeof *s);
            for (uint32_t k = 0; k < old.n; k++) {
                void *item = fs[i].type == D2_AST_F_SEQ ? xf_copy(x, old.items[k]) : old.items[k];
                if (d2_ast_seq_push(x->a, s, item) < 0)
                    longjmp(x->oom, 1);
            }
            break;
        }
        default: break;
        }
    }
    if (n->kind == D2_AST_COMPARE) {
        d2_ast_expr *e = (d2_ast_expr *)p;
        size_t k = e->compare.comparators.n;
        d2_ast_cmpop *ops = xf_chk(x, d2_arena_alloc(x->a, (k ? k : 1) * sizeof *ops));
        if (k)
            memcpy(ops, ((const d2_ast_expr *)node)->compare.ops, k * sizeof *ops);
        e->compare.ops = ops;
    }
    return p;
}

/* ---- node construction (every node spans the user's construct) ---- */

void xf_push(X *x, d2_ast_seq *s, void *item)
{
    if (d2_ast_seq_push(x->a, s, item) < 0)
        longjmp(x->oom, 1);
}

d2_ast_expr *xf_name_load(X *x, const char *id, d2_span sp)
{
    return xf_chk(x, d2_ast_name(x->a, id, D2_CTX_LOAD, sp));
}

d2_ast_expr *xf_name_store(X *x, const char *id, d2_span sp)
{
    return xf_chk(x, d2_ast_name(x->a, id, D2_CTX_STORE, sp));
}

/* _jst.<helper> */
d2_ast_expr *xf_jst(X *x, const char *helper, d2_span sp)
{
    return xf_chk(x, d2_ast_attribute(x->a, xf_name_load(x, "_jst", sp), helper, D2_CTX_LOAD, sp));
}

d2_ast_expr *xf_call(X *x, d2_ast_expr *func, d2_ast_seq args, d2_span sp)
{
    d2_ast_seq kw = {0, 0, NULL};
    return xf_chk(x, d2_ast_call(x->a, func, args, kw, sp));
}

d2_ast_expr *xf_call1(X *x, d2_ast_expr *func, d2_ast_expr *arg, d2_span sp)
{
    d2_ast_seq args = {0, 0, NULL};
    xf_push(x, &args, arg);
    return xf_call(x, func, args, sp);
}

d2_ast_expr *xf_str_const(X *x, const char *s, d2_span sp)
{
    return xf_chk(x, d2_ast_const_str(x->a, s, strlen(s), sp));
}

static d2_ast_expr *bool_const(X *x, bool v, d2_span sp)
{
    return xf_chk(x, d2_ast_const_simple(x->a, v ? D2_CONST_TRUE : D2_CONST_FALSE, sp));
}

static d2_ast_arguments *no_args(X *x, d2_span sp)
{
    return xf_chk(x, d2_ast_node_new(x->a, D2_AST_ARGUMENTS, sp));
}

/* lambda: body */
d2_ast_expr *xf_thunk(X *x, d2_ast_expr *body)
{
    d2_ast_expr *l = xf_chk(x, d2_ast_expr_new(x->a, D2_AST_LAMBDA, body->span));
    l->lambda.args = no_args(x, body->span);
    l->lambda.body = body;
    return l;
}

d2_ast_stmt *xf_assign(X *x, d2_ast_expr *target, d2_ast_expr *value, d2_span sp)
{
    d2_ast_seq t = {0, 0, NULL};
    xf_push(x, &t, target);
    return xf_chk(x, d2_ast_assign(x->a, t, value, sp));
}

d2_ast_stmt *xf_assign_flag(X *x, const char *flag, bool v, d2_span sp)
{
    return xf_assign(x, xf_name_store(x, flag, sp), bool_const(x, v, sp), sp);
}

d2_ast_stmt *xf_expr_stmt(X *x, d2_ast_expr *e)
{
    return xf_chk(x, d2_ast_expr_stmt(x->a, e, e->span));
}

d2_ast_stmt *xf_if_stmt(X *x, d2_ast_expr *test, d2_ast_seq body, d2_ast_seq orelse, d2_span sp)
{
    return xf_chk(x, d2_ast_if(x->a, test, body, orelse, sp));
}

d2_ast_seq xf_seq1(X *x, void *item)
{
    d2_ast_seq s = {0, 0, NULL};
    xf_push(x, &s, item);
    return s;
}

/* (a, b) of Names, or the empty tuple. */
d2_ast_expr *xf_names_tuple(X *x, const nameset *s, d2_span sp)
{
    d2_ast_seq elts = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        xf_push(x, &elts, xf_name_load(x, s->v[i], sp));
    return xf_chk(x, d2_ast_tuple(x->a, elts, D2_CTX_LOAD, sp));
}

/* ('a', 'b') */
d2_ast_expr *xf_strings_tuple(X *x, const nameset *s, d2_span sp)
{
    d2_ast_seq elts = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        xf_push(x, &elts, xf_str_const(x, s->v[i], sp));
    return xf_chk(x, d2_ast_tuple(x->a, elts, D2_CTX_LOAD, sp));
}

/* The packed values of s (None for none, the value for one, a tuple). */
d2_ast_expr *xf_packed(X *x, const nameset *s, d2_span sp)
{
    if (s->n == 1)
        return xf_name_load(x, s->v[0], sp);
    return xf_names_tuple(x, s, sp);
}

/* The assignment target receiving packed values of s (s->n >= 1). */
d2_ast_expr *xf_packed_target(X *x, const nameset *s, d2_span sp)
{
    if (s->n == 1)
        return xf_name_store(x, s->v[0], sp);
    d2_ast_seq elts = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        xf_push(x, &elts, xf_name_store(x, s->v[i], sp));
    return xf_chk(x, d2_ast_tuple(x->a, elts, D2_CTX_STORE, sp));
}

/* def name(first, params...): body */
d2_ast_stmt *xf_funcdef(X *x, const char *name, const char *first, const nameset *params,
                        d2_ast_seq body, d2_span sp)
{
    d2_ast_stmt *f = xf_chk(x, d2_ast_stmt_new(x->a, D2_AST_FUNCTION_DEF, sp));
    f->function_def.name = name;
    f->function_def.args = no_args(x, sp);
    if (first)
        xf_push(x, &f->function_def.args->args, xf_chk(x, d2_ast_arg_new(x->a, first, NULL, sp)));
    for (uint32_t i = 0; i < params->n; i++)
        xf_push(x, &f->function_def.args->args,
                xf_chk(x, d2_ast_arg_new(x->a, params->v[i], NULL, sp)));
    /* a pass among other statements says nothing */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < body.n; i++)
        if (((d2_ast_stmt *)body.items[i])->kind != D2_AST_PASS)
            body.items[kept++] = body.items[i];
    body.n = kept;
    if (body.n == 0)
        xf_push(x, &body, xf_chk(x, d2_ast_simple_stmt(x->a, D2_AST_PASS, sp)));
    f->function_def.body = body;
    return f;
}
