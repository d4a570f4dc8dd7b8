/* cst_stmt.c - CST -> AST for statements and blocks, with CPython's indentation checks. */
#include "syntax/cst_priv.h"

#include <string.h>

/* ---- statements ---- */

static void block(cx *c, TSNode n, d2_ast_seq *out, TSNode header, const char *what);

/* dotted_name -> "a.b.c" (whitespace between the parts dropped). */
static const char *dotted(cx *c, TSNode n)
{
    if (cst_T(c, n) != T_DOTTED_NAME)
        cst_fail(c, cst_span_of(n), "invalid syntax");
    kids ks = cst_get_kids(c, n);
    kids nk = cst_named(c, &ks);
    sbuf b = {0};
    for (uint32_t i = 0; i < nk.n; i++) {
        size_t len;
        const char *s = cst_text(c, nk.k[i].n, &len);
        if (i)
            cst_sb_add(c, &b, ".", 1);
        cst_sb_add(c, &b, s, len);
    }
    return cst_sb_take(c, &b);
}

/* dotted_name [as identifier] -> alias. */
static d2_ast_alias *import_alias(cx *c, kid *k)
{
    d2_span sp = cst_span_of(k->n);
    d2_ast_alias *al = cst_new_node(c, D2_AST_ALIAS, sp);
    if (k->t == T_ALIASED_IMPORT) {
        kids ks = cst_get_kids(c, k->n);
        kid *name = cst_kfield(c, &ks, F_NAME), *alias = cst_kfield(c, &ks, F_ALIAS);
        if (!name || !alias)
            cst_fail(c, sp, "invalid syntax");
        al->name = dotted(c, name->n);
        al->asname = cst_ident(c, alias->n);
    } else {
        al->name = dotted(c, k->n);
    }
    return al;
}

/* from [.]*module import names | * -> ImportFrom (level counts the dots). */
static d2_ast_stmt *import_from(cx *c, TSNode n, d2_span sp, bool future)
{
    kids ks = cst_get_kids(c, n);
    d2_ast_stmt *s = cst_new_stmt(c, D2_AST_IMPORT_FROM, sp);
    if (future) {
        s->import_from.module = "__future__";
    } else {
        kid *m = cst_kfield(c, &ks, F_MODULE_NAME);
        if (!m)
            cst_fail(c, sp, "invalid syntax");
        if (m->t == T_RELATIVE_IMPORT) {
            kids rk = cst_get_kids(c, m->n);
            for (uint32_t i = 0; i < rk.n; i++) {
                if (rk.k[i].t == T_IMPORT_PREFIX) {
                    size_t len;
                    const char *p = cst_text(c, rk.k[i].n, &len);
                    for (size_t j = 0; j < len; j++)
                        s->import_from.level += p[j] == '.';
                } else if (rk.k[i].t == T_DOTTED_NAME) {
                    s->import_from.module = dotted(c, rk.k[i].n);
                }
            }
        } else {
            s->import_from.module = dotted(c, m->n);
        }
    }
    for (uint32_t i = 0; i < ks.n; i++) {
        kid *k = &ks.k[i];
        if (k->t == T_WILDCARD_IMPORT) {
            d2_ast_alias *al = cst_new_node(c, D2_AST_ALIAS, cst_span_of(k->n));
            al->name = "*";
            cst_push(c, &s->import_from.names, al);
        } else if (k->f == c->fid[F_NAME] && k->f) {
            cst_push(c, &s->import_from.names, import_alias(c, k));
        }
    }
    if (!s->import_from.names.n)
        cst_fail(c, sp, "invalid syntax");
    return s;
}

/* The body of an else_clause or finally_clause (its block kid). */
static void clause_body(cx *c, TSNode clause, d2_ast_seq *out, const char *what)
{
    kids ks = cst_get_kids(c, clause);
    kid *b = cst_kfield(c, &ks, F_BODY);
    if (!b)
        for (uint32_t i = 0; i < ks.n; i++)
            if (ks.k[i].t == T_BLOCK)
                b = &ks.k[i];
    if (!b)
        cst_fail(c, cst_span_of(clause), "expected ':'");
    block(c, b->n, out, clause, what);
}

/* The exception of "except E" or "except* E"; the grammar reads
 * "except *E" (with a space) as a starred expression. */
static d2_ast_expr *except_type(cx *c, TSNode n)
{
    if (cst_T(c, n) == T_LIST_SPLAT)
        return cst_expr(c, cst_only_named(c, n));
    return cst_expr(c, n);
}

/* Whether an except clause is an except* one. */
static bool except_is_star(cx *c, kid *k)
{
    if (k->t == T_EXCEPT_GROUP_CLAUSE)
        return true;
    if (k->t != T_EXCEPT_CLAUSE)
        return false;
    kids ks = cst_get_kids(c, k->n);
    kids nk = cst_named(c, &ks);
    if (!nk.n)
        return false;
    TSNode e = nk.k[0].n;
    if (nk.k[0].t == T_AS_PATTERN) {
        kids ak = cst_get_kids(c, e);
        kids an = cst_named(c, &ak);
        if (!an.n)
            return false;
        e = an.k[0].n;
    }
    return cst_T(c, e) == T_LIST_SPLAT;
}

/* except [E [as name]]: block -> ExceptHandler, spanning to the end of
 * its block. */
static d2_ast_excepthandler *except_clause(cx *c, TSNode n, bool star)
{
    kids ks = cst_get_kids(c, n);
    kids nk = cst_named(c, &ks);
    d2_ast_excepthandler *h = cst_new_node(c, D2_AST_EXCEPT_HANDLER, cst_span_of(n));
    kid *body = NULL;
    uint32_t nexpr = 0;
    for (uint32_t i = 0; i < nk.n; i++) {
        kid *k = &nk.k[i];
        if (k->t == T_BLOCK) {
            body = k;
            continue;
        }
        if (nexpr++)
            cst_fail(c, cst_span_of(k->n), "multiple exception types must be parenthesized");
        if (k->t == T_AS_PATTERN) {
            kids ak = cst_get_kids(c, k->n);
            kids an = cst_named(c, &ak);
            if (an.n != 2 || an.k[1].t != T_AS_PATTERN_TARGET)
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
            TSNode name = cst_only_named(c, an.k[1].n);
            if (cst_T(c, name) != T_IDENTIFIER)
                cst_fail(c, cst_span_of(name), "cannot use %s as except target",
                         cst_expr_name(cst_expr(c, name)));
            h->type = except_type(c, an.k[0].n);
            h->name = cst_ident(c, name);
        } else {
            h->type = except_type(c, k->n);
        }
    }
    if (!body)
        cst_fail(c, cst_span_of(n), "expected ':'");
    if (star && !h->type)
        cst_fail(c, cst_span_of(n), "expected one or more exception types");
    block(c, body->n, &h->body, n, "'except' statement");
    h->span = cst_end_at_last(c, h->span, &h->body);
    return h;
}

/* expr [as target] -> withitem. */
static d2_ast_withitem *with_item(cx *c, TSNode n)
{
    kids ks = cst_get_kids(c, n);
    kid *v = cst_kfield(c, &ks, F_VALUE);
    if (!v) {
        kids nk = cst_named(c, &ks);
        v = nk.n == 1 ? &nk.k[0] : NULL;
    }
    if (!v)
        cst_fail(c, cst_span_of(n), "invalid syntax");
    d2_ast_withitem *w = cst_new_node(c, D2_AST_WITHITEM, cst_span_of(n));
    if (v->t == T_PARENTHESIZED_EXPRESSION) {
        /* "with (cm as x):" */
        kids pk = cst_get_kids(c, v->n);
        kids pn = cst_named(c, &pk);
        if (pn.n == 1 && pn.k[0].t == T_AS_PATTERN)
            v = &pn.k[0];
    }
    if (v->t == T_AS_PATTERN) {
        kids ak = cst_get_kids(c, v->n);
        kids an = cst_named(c, &ak);
        if (an.n != 2 || an.k[1].t != T_AS_PATTERN_TARGET)
            cst_fail(c, cst_span_of(v->n), "invalid syntax");
        w->context_expr = cst_expr(c, an.k[0].n);
        w->optional_vars = cst_target(c, cst_only_named(c, an.k[1].n), D2_CTX_STORE);
    } else {
        w->context_expr = cst_expr(c, v->n);
    }
    return w;
}

/* [async] def name(params) [-> type]: block -> (Async)FunctionDef,
 * spanning from def (or async) to the end of the body. */
static d2_ast_stmt *function_def(cx *c, TSNode n, d2_ast_seq decorators)
{
    kids ks = cst_get_kids(c, n);
    kid *name = cst_kfield(c, &ks, F_NAME), *params = cst_kfield(c, &ks, F_PARAMETERS),
        *ret = cst_kfield(c, &ks, F_RETURN_TYPE), *body = cst_kfield(c, &ks, F_BODY),
        *tparams = cst_kfield(c, &ks, F_TYPE_PARAMETERS);
    d2_span sp = cst_span_of(n);
    if (tparams)
        cst_fail(c, cst_span_of(tparams->n), "type parameter syntax is not supported (it needs Python 3.12)");
    if (!name || !params || !body)
        cst_fail(c, sp, "invalid syntax");
    d2_ast_stmt *s = cst_new_stmt(c, cst_has_tok(&ks, T_K_ASYNC) ? D2_AST_ASYNC_FUNCTION_DEF
                                                         : D2_AST_FUNCTION_DEF, sp);
    s->function_def.name = cst_ident(c, name->n);
    s->function_def.args = cst_parameters(c, params->n, false);
    s->function_def.decorator_list = decorators;
    if (ret)
        s->function_def.returns = cst_type_expr(c, ret->n);
    block(c, body->n, &s->function_def.body, n, "function definition");
    s->span = cst_end_at_last(c, sp, &s->function_def.body);
    return s;
}

/* class name[(bases, keywords)]: block -> ClassDef. */
static d2_ast_stmt *class_def(cx *c, TSNode n, d2_ast_seq decorators)
{
    kids ks = cst_get_kids(c, n);
    kid *name = cst_kfield(c, &ks, F_NAME), *supers = cst_kfield(c, &ks, F_SUPERCLASSES),
        *body = cst_kfield(c, &ks, F_BODY), *tparams = cst_kfield(c, &ks, F_TYPE_PARAMETERS);
    d2_span sp = cst_span_of(n);
    if (tparams)
        cst_fail(c, cst_span_of(tparams->n), "type parameter syntax is not supported (it needs Python 3.12)");
    if (!name || !body)
        cst_fail(c, sp, "invalid syntax");
    d2_ast_stmt *s = cst_new_stmt(c, D2_AST_CLASS_DEF, sp);
    s->class_def.name = cst_ident(c, name->n);
    if (supers)
        cst_call_args(c, supers->n, &s->class_def.bases, &s->class_def.keywords);
    s->class_def.decorator_list = decorators;
    block(c, body->n, &s->class_def.body, n, "class definition");
    s->span = cst_end_at_last(c, sp, &s->class_def.body);
    return s;
}

/* a = b = value -> Assign (targets in order); target: type [= value] ->
 * AnnAssign. */
static d2_ast_stmt *assignment(cx *c, TSNode n, d2_span sp)
{
    kids ks = cst_get_kids(c, n);
    kid *left = cst_kfield(c, &ks, F_LEFT), *type = cst_kfield(c, &ks, F_TYPE),
        *right = cst_kfield(c, &ks, F_RIGHT);
    if (!left)
        cst_fail(c, sp, "invalid syntax");
    if (type) {
        d2_ast_stmt *s = cst_new_stmt(c, D2_AST_ANN_ASSIGN, sp);
        d2_ast_expr *t = cst_target(c, left->n, D2_CTX_STORE);
        if (t->kind == D2_AST_TUPLE || t->kind == D2_AST_LIST)
            cst_fail(c, t->span, "only single target (not %s) can be annotated",
                     t->kind == D2_AST_TUPLE ? "tuple" : "list");
        if (t->kind == D2_AST_STARRED)
            cst_fail(c, t->span, "invalid syntax");
        s->ann_assign.target = t;
        s->ann_assign.annotation = cst_type_expr(c, type->n);
        if (right)
            s->ann_assign.value = cst_rhs(c, right->n);
        s->ann_assign.simple = left->t == T_IDENTIFIER;
        return s;
    }
    if (!right)
        cst_fail(c, sp, "invalid syntax");
    d2_ast_seq targets = {0};
    cst_push(c, &targets, cst_target(c, left->n, D2_CTX_STORE));
    TSNode r = right->n;
    while (cst_T(c, r) == T_ASSIGNMENT) {
        kids rk = cst_get_kids(c, r);
        kid *l2 = cst_kfield(c, &rk, F_LEFT), *r2 = cst_kfield(c, &rk, F_RIGHT);
        if (!l2 || !r2 || cst_kfield(c, &rk, F_TYPE))
            cst_fail(c, cst_span_of(r), "invalid syntax");
        cst_push(c, &targets, cst_target(c, l2->n, D2_CTX_STORE));
        r = r2->n;
    }
    return cst_need(c, d2_ast_assign(c->a, targets, cst_rhs(c, r), sp));
}

/* target op= value -> AugAssign. */
static d2_ast_stmt *aug_assignment(cx *c, TSNode n, d2_span sp)
{
    kids ks = cst_get_kids(c, n);
    kid *left = cst_kfield(c, &ks, F_LEFT), *op = cst_kfield(c, &ks, F_OPERATOR),
        *right = cst_kfield(c, &ks, F_RIGHT);
    if (!left || !right)
        cst_fail(c, sp, "invalid syntax");
    d2_ast_stmt *s = cst_new_stmt(c, D2_AST_AUG_ASSIGN, sp);
    int lt = left->t;
    if (lt != T_IDENTIFIER && lt != T_ATTRIBUTE && lt != T_SUBSCRIPT) {
        d2_ast_expr *e = cst_expr(c, left->n);
        if (e->kind != D2_AST_NAME && e->kind != D2_AST_ATTRIBUTE &&
            e->kind != D2_AST_SUBSCRIPT)
            cst_fail(c, e->span, "'%s' is an illegal expression for augmented assignment",
                     cst_expr_name(e));
    }
    s->aug_assign.target = cst_target(c, left->n, D2_CTX_STORE);
    s->aug_assign.op = cst_binop_of(c, op);
    s->aug_assign.value = cst_rhs(c, right->n);
    return s;
}

/* if/elif/else: the elif clauses become nested If nodes in orelse. */
static d2_ast_stmt *if_stmt(cx *c, TSNode n)
{
    kids ks = cst_get_kids(c, n);
    kid *cond = cst_kfield(c, &ks, F_CONDITION), *cons = cst_kfield(c, &ks, F_CONSEQUENCE);
    if (!cond || !cons)
        cst_fail(c, cst_span_of(n), "invalid syntax");
    d2_ast_seq orelse = {0};
    int saved_depth = c->ast_depth;
    /* the clauses after the consequence, converted last to first */
    for (uint32_t i = ks.n; i-- > 0;) {
        kid *k = &ks.k[i];
        if (k->t == T_ELSE_CLAUSE) {
            clause_body(c, k->n, &orelse, "'else' statement");
        } else if (k->t == T_ELIF_CLAUSE) {
            kids ek = cst_get_kids(c, k->n);
            kid *ec = cst_kfield(c, &ek, F_CONDITION), *eb = cst_kfield(c, &ek, F_CONSEQUENCE);
            if (!ec || !eb)
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
            d2_ast_seq body = {0};
            cst_deepen(c, k->n, 1); /* each elif nests one If deeper */
            d2_ast_expr *test = cst_expr(c, ec->n);
            block(c, eb->n, &body, k->n, "'elif' statement");
            d2_span sp = cst_end_at_last(c, cst_span_of(k->n), &body);
            sp = cst_end_at_last(c, sp, &orelse);
            d2_ast_stmt *s = cst_need(c, d2_ast_if(c->a, test, body, orelse, sp));
            memset(&orelse, 0, sizeof orelse);
            cst_push(c, &orelse, s);
        }
    }
    d2_ast_seq body = {0};
    d2_ast_expr *test = cst_expr(c, cond->n);
    block(c, cons->n, &body, n, "'if' statement");
    d2_span sp = cst_end_at_last(c, cst_span_of(n), &body);
    sp = cst_end_at_last(c, sp, &orelse);
    c->ast_depth = saved_depth;
    return cst_need(c, d2_ast_if(c->a, test, body, orelse, sp));
}

static d2_ast_stmt *stmt_inner(cx *c, TSNode n);

d2_ast_stmt *cst_stmt(cx *c, TSNode n)
{
    cst_enter(c, n);
    d2_ast_stmt *s = stmt_inner(c, n);
    cst_leave(c);
    return s;
}

/* One statement (simple or compound) of any kind. */
static d2_ast_stmt *stmt_inner(cx *c, TSNode n)
{
    d2_span sp = cst_span_of(n);
    int t = cst_T(c, n);
    switch (t) {
    case T_EXPRESSION_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (!nk.n)
            cst_fail(c, sp, "invalid syntax");
        if (nk.n == 1 && !cst_has_tok(&ks, T_K_COMMA)) {
            kid *k = &nk.k[0];
            if (k->t == T_ASSIGNMENT)
                return assignment(c, k->n, sp);
            if (k->t == T_AUGMENTED_ASSIGNMENT)
                return aug_assignment(c, k->n, sp);
            return cst_need(c, d2_ast_expr_stmt(c->a, cst_expr(c, k->n), sp));
        }
        for (uint32_t i = 0; i < nk.n; i++)
            if (nk.k[i].t == T_ASSIGNMENT || nk.k[i].t == T_AUGMENTED_ASSIGNMENT)
                cst_fail(c, cst_span_of(nk.k[i].n), "invalid syntax");
        d2_ast_expr *tup = cst_need(
            c, d2_ast_tuple(c->a, cst_elements(c, &nk, D2_CTX_LOAD, false), D2_CTX_LOAD, sp));
        return cst_need(c, d2_ast_expr_stmt(c->a, tup, sp));
    }
    case T_RETURN_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        return cst_need(c, d2_ast_return(c->a, nk.n ? cst_rhs(c, nk.k[0].n) : NULL, sp));
    }
    case T_DELETE_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (nk.n != 1)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_stmt *s = cst_new_stmt(c, D2_AST_DELETE, sp);
        if (nk.k[0].t == T_EXPRESSION_LIST) {
            kids ek = cst_get_kids(c, nk.k[0].n);
            kids en = cst_named(c, &ek);
            s->delete.targets = cst_elements(c, &en, D2_CTX_DEL, true);
        } else {
            cst_push(c, &s->delete.targets, cst_target(c, nk.k[0].n, D2_CTX_DEL));
        }
        for (uint32_t i = 0; i < s->delete.targets.n; i++) {
            d2_ast_expr *e = s->delete.targets.items[i];
            if (e->kind == D2_AST_STARRED)
                cst_fail(c, e->span, "cannot delete starred");
        }
        return s;
    }
    case T_RAISE_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        d2_ast_stmt *s = cst_new_stmt(c, D2_AST_RAISE, sp);
        for (uint32_t i = 0; i < ks.n; i++) {
            kid *k = &ks.k[i];
            if (!ts_node_is_named(k->n))
                continue;
            if (k->f == c->fid[F_CAUSE] && k->f)
                s->raise.cause = cst_expr(c, k->n);
            else if (!s->raise.exc)
                s->raise.exc = cst_rhs(c, k->n);
            else
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
        }
        if (s->raise.cause && !s->raise.exc)
            cst_fail(c, sp, "invalid syntax");
        return s;
    }
    case T_PASS_STATEMENT: return cst_need(c, d2_ast_simple_stmt(c->a, D2_AST_PASS, sp));
    case T_BREAK_STATEMENT: return cst_need(c, d2_ast_simple_stmt(c->a, D2_AST_BREAK, sp));
    case T_CONTINUE_STATEMENT: return cst_need(c, d2_ast_simple_stmt(c->a, D2_AST_CONTINUE, sp));
    case T_IF_STATEMENT: return if_stmt(c, n);
    case T_FOR_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kid *left = cst_kfield(c, &ks, F_LEFT), *right = cst_kfield(c, &ks, F_RIGHT),
            *body = cst_kfield(c, &ks, F_BODY), *alt = cst_kfield(c, &ks, F_ALTERNATIVE);
        if (!left || !right || !body)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_stmt *s =
            cst_new_stmt(c, cst_has_tok(&ks, T_K_ASYNC) ? D2_AST_ASYNC_FOR : D2_AST_FOR, sp);
        s->for_.target = cst_target(c, left->n, D2_CTX_STORE);
        s->for_.iter = cst_rhs(c, right->n);
        block(c, body->n, &s->for_.body, n, "'for' statement");
        if (alt)
            clause_body(c, alt->n, &s->for_.orelse, "'else' statement");
        s->span = cst_end_at_last(c, cst_end_at_last(c, sp, &s->for_.body), &s->for_.orelse);
        return s;
    }
    case T_WHILE_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kid *cond = cst_kfield(c, &ks, F_CONDITION), *body = cst_kfield(c, &ks, F_BODY),
            *alt = cst_kfield(c, &ks, F_ALTERNATIVE);
        if (!cond || !body)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_seq b = {0}, orelse = {0};
        d2_ast_expr *test = cst_expr(c, cond->n);
        block(c, body->n, &b, n, "'while' statement");
        if (alt)
            clause_body(c, alt->n, &orelse, "'else' statement");
        return cst_need(c, d2_ast_while(c->a, test, b, orelse,
                                        cst_end_at_last(c, cst_end_at_last(c, sp, &b), &orelse)));
    }
    case T_TRY_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kid *body = cst_kfield(c, &ks, F_BODY);
        if (!body)
            cst_fail(c, sp, "invalid syntax");
        int nstar = 0, nplain = 0;
        for (uint32_t i = 0; i < ks.n; i++) {
            if (except_is_star(c, &ks.k[i]))
                nstar++;
            else if (ks.k[i].t == T_EXCEPT_CLAUSE)
                nplain++;
        }
        bool star = nstar > 0;
        if (nstar && nplain)
            cst_fail(c, sp, "cannot have both 'except' and 'except*' on the same 'try'");
        d2_ast_stmt *s = cst_new_stmt(c, star ? D2_AST_TRY_STAR : D2_AST_TRY, sp);
        block(c, body->n, &s->try_.body, n, "'try' statement");
        d2_span end = cst_end_at_last(c, sp, &s->try_.body);
        for (uint32_t i = 0; i < ks.n; i++) {
            kid *k = &ks.k[i];
            if (k->t == T_EXCEPT_CLAUSE || k->t == T_EXCEPT_GROUP_CLAUSE) {
                d2_ast_excepthandler *h = except_clause(c, k->n, star);
                cst_push(c, &s->try_.handlers, h);
                end = cst_span_to(end, h->span);
            } else if (k->t == T_ELSE_CLAUSE) {
                clause_body(c, k->n, &s->try_.orelse, "'else' statement");
                end = cst_end_at_last(c, end, &s->try_.orelse);
            } else if (k->t == T_FINALLY_CLAUSE) {
                clause_body(c, k->n, &s->try_.finalbody, "'finally' statement");
                end = cst_end_at_last(c, end, &s->try_.finalbody);
            }
        }
        if (!s->try_.handlers.n && !s->try_.finalbody.n)
            cst_fail(c, sp, "expected 'except' or 'finally' block");
        if (s->try_.orelse.n && !s->try_.handlers.n)
            cst_fail(c, sp, "invalid syntax");
        s->span = end;
        return s;
    }
    case T_WITH_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kid *body = cst_kfield(c, &ks, F_BODY), *clause = NULL;
        for (uint32_t i = 0; i < ks.n; i++)
            if (ks.k[i].t == T_WITH_CLAUSE)
                clause = &ks.k[i];
        if (!body || !clause)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_stmt *s =
            cst_new_stmt(c, cst_has_tok(&ks, T_K_ASYNC) ? D2_AST_ASYNC_WITH : D2_AST_WITH, sp);
        kids ck = cst_get_kids(c, clause->n);
        for (uint32_t i = 0; i < ck.n; i++)
            if (ck.k[i].t == T_WITH_ITEM)
                cst_push(c, &s->with.items, with_item(c, ck.k[i].n));
        if (!s->with.items.n)
            cst_fail(c, sp, "invalid syntax");
        block(c, body->n, &s->with.body, n, "'with' statement");
        s->span = cst_end_at_last(c, sp, &s->with.body);
        return s;
    }
    case T_FUNCTION_DEFINITION: return function_def(c, n, (d2_ast_seq){0});
    case T_CLASS_DEFINITION: return class_def(c, n, (d2_ast_seq){0});
    case T_DECORATED_DEFINITION: {
        kids ks = cst_get_kids(c, n);
        d2_ast_seq decorators = {0};
        kid *def = cst_kfield(c, &ks, F_DEFINITION);
        for (uint32_t i = 0; i < ks.n; i++)
            if (ks.k[i].t == T_DECORATOR)
                cst_push(c, &decorators, cst_expr(c, cst_only_named(c, ks.k[i].n)));
        if (!def)
            cst_fail(c, sp, "invalid syntax");
        if (def->t == T_FUNCTION_DEFINITION)
            return function_def(c, def->n, decorators);
        if (def->t == T_CLASS_DEFINITION)
            return class_def(c, def->n, decorators);
        cst_fail(c, cst_span_of(def->n), "invalid syntax");
    }
    case T_GLOBAL_STATEMENT:
    case T_NONLOCAL_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        d2_ast_stmt *s =
            cst_new_stmt(c, t == T_GLOBAL_STATEMENT ? D2_AST_GLOBAL : D2_AST_NONLOCAL, sp);
        for (uint32_t i = 0; i < nk.n; i++) {
            if (nk.k[i].t != T_IDENTIFIER)
                cst_fail(c, cst_span_of(nk.k[i].n), "invalid syntax");
            cst_push(c, &s->global.names, (void *)cst_ident(c, nk.k[i].n));
        }
        return s;
    }
    case T_IMPORT_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        d2_ast_stmt *s = cst_new_stmt(c, D2_AST_IMPORT, sp);
        for (uint32_t i = 0; i < ks.n; i++)
            if (ks.k[i].f == c->fid[F_NAME] && ks.k[i].f)
                cst_push(c, &s->import.names, import_alias(c, &ks.k[i]));
        if (!s->import.names.n)
            cst_fail(c, sp, "invalid syntax");
        return s;
    }
    case T_IMPORT_FROM_STATEMENT: return import_from(c, n, sp, false);
    case T_FUTURE_IMPORT_STATEMENT: return import_from(c, n, sp, true);
    case T_ASSERT_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (nk.n < 1 || nk.n > 2)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_stmt *s = cst_new_stmt(c, D2_AST_ASSERT, sp);
        s->assert_.test = cst_expr(c, nk.k[0].n);
        if (nk.n == 2)
            s->assert_.msg = cst_expr(c, nk.k[1].n);
        return s;
    }
    case T_MATCH_STATEMENT: {
        kids ks = cst_get_kids(c, n);
        kid *body = cst_kfield(c, &ks, F_BODY);
        d2_ast_seq subj = {0};
        kid *first = NULL, *last = NULL;
        bool comma = false;
        for (uint32_t i = 0; i < ks.n; i++) {
            if (ks.k[i].f == c->fid[F_SUBJECT] && ks.k[i].f) {
                cst_push(c, &subj, cst_expr(c, ks.k[i].n));
                if (!first)
                    first = &ks.k[i];
                last = &ks.k[i];
            } else if (ks.k[i].t == T_K_COMMA && first && !body) {
                comma = true;
                last = &ks.k[i];
            } else if (ks.k[i].t == T_K_COMMA && first) {
                if (ts_node_start_byte(ks.k[i].n) < ts_node_start_byte(body->n)) {
                    comma = true;
                    last = &ks.k[i];
                }
            }
        }
        if (!first || !body)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_stmt *s = cst_new_stmt(c, D2_AST_MATCH, sp);
        s->match.subject =
            subj.n == 1 && !comma
                ? subj.items[0]
                : cst_need(c,
                           d2_ast_tuple(c->a, subj, D2_CTX_LOAD,
                                        cst_span_to(cst_span_of(first->n), cst_span_of(last->n))));
        kids bk = cst_get_kids(c, body->n);
        d2_span end = sp;
        for (uint32_t i = 0; i < bk.n; i++) {
            kid *k = &bk.k[i];
            if (k->t != T_CASE_CLAUSE)
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
            kids cc = cst_get_kids(c, k->n);
            d2_ast_match_case *mc = cst_new_node(c, D2_AST_MATCH_CASE, cst_span_of(k->n));
            d2_ast_seq pats = {0};
            kid *pf = NULL, *pl = NULL, *cons = NULL;
            bool pcomma = false;
            for (uint32_t j = 0; j < cc.n; j++) {
                kid *q = &cc.k[j];
                if (q->t == T_CASE_PATTERN) {
                    cst_push(c, &pats, cst_pattern(c, q->n));
                    if (!pf)
                        pf = q;
                    pl = q;
                } else if (q->t == T_K_COMMA && pf && !cons) {
                    pcomma = true;
                    pl = q;
                } else if (q->f == c->fid[F_GUARD] && q->f) {
                    mc->guard = cst_expr(c, cst_only_named(c, q->n));
                } else if (q->f == c->fid[F_CONSEQUENCE] && q->f) {
                    cons = q;
                }
            }
            if (!pf || !cons)
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
            if (pats.n == 1 && !pcomma) {
                mc->pattern = pats.items[0];
            } else {
                mc->pattern = cst_new_pattern(c, D2_AST_MATCH_SEQUENCE,
                                              cst_span_to(cst_span_of(pf->n), cst_span_of(pl->n)));
                mc->pattern->match_sequence.patterns = pats;
            }
            block(c, cons->n, &mc->body, k->n, "'case' statement");
            cst_push(c, &s->match.cases, mc);
            end = cst_end_at_last(c, end, &mc->body);
        }
        if (!s->match.cases.n)
            cst_fail(c, sp, "expected an indented block after 'match' statement on line %u",
                     sp.line);
        s->span = end;
        return s;
    }
    case T_PRINT_STATEMENT:
        cst_fail(c, sp, "Missing parentheses in call to 'print'. Did you mean print(...)?");
    case T_EXEC_STATEMENT:
        cst_fail(c, sp, "Missing parentheses in call to 'exec'. Did you mean exec(...)?");
    case T_TYPE_ALIAS_STATEMENT:
        cst_fail(c, sp, "'type' alias statements are not supported (they need Python 3.12)");
    default: break;
    }
    cst_fail(c, sp, "invalid syntax");
}

/* ---- blocks and indentation ---- */

/* The indentation of the line holding byte off when only whitespace
 * precedes off on it (else false): columns with tabs to multiples of 8
 * (col) and counted as one (alt), as CPython's tokenizer compares them. */
static bool line_indent(cx *c, size_t off, int *col, int *alt)
{
    size_t bol = off;
    while (bol > 0 && c->src[bol - 1] != '\n' && c->src[bol - 1] != '\r')
        bol--;
    int cl = 0, al = 0;
    for (size_t i = bol; i < off; i++) {
        char ch = c->src[i];
        if (ch == ' ') {
            cl++;
            al++;
        } else if (ch == '\t') {
            cl = (cl / 8 + 1) * 8;
            al++;
        } else if (ch == '\f') {
            cl = al = 0;
        } else {
            return false;
        }
    }
    *col = cl;
    *alt = al;
    return true;
}

/* The indentation of the innermost suite that statement n ends in (the
 * level a following line can dedent from), or -1 when n has no suite. */
static int inner_indent(cx *c, TSNode n)
{
    int found = -1;
    for (int guard = 0; guard < MAX_DEPTH; guard++) {
        uint32_t k = ts_node_named_child_count(n);
        if (!k)
            break;
        TSNode last = ts_node_named_child(n, k - 1);
        if (cst_T(c, n) == T_BLOCK) {
            int col, alt;
            if (line_indent(c, ts_node_start_byte(last), &col, &alt))
                found = col;
        }
        n = last;
    }
    return found;
}

/* Checks that each statement of a suite that starts a line is indented like
 * the first one (or at column 0 in a module). */
void cst_check_indent(cx *c, kids *ks, bool module)
{
    bool have = module;
    int col0 = 0, alt0 = 0;
    for (uint32_t i = 0; i < ks->n; i++) {
        TSNode s = ks->k[i].n;
        int col, alt;
        if (!line_indent(c, ts_node_start_byte(s), &col, &alt))
            continue;
        d2_span sp = cst_span_of(s);
        sp.end_line = sp.line;
        sp.end_col = sp.col;
        sp.end = sp.start;
        if (!have) {
            have = true;
            col0 = col;
            alt0 = alt;
            continue;
        }
        if (col > col0) {
            int inner = i ? inner_indent(c, ks->k[i - 1].n) : -1;
            if (inner > col)
                cst_fail(c, sp, "unindent does not match any outer indentation level");
            cst_fail(c, sp, "unexpected indent");
        }
        if (col < col0)
            cst_fail(c, sp, "unindent does not match any outer indentation level");
        if (alt != alt0)
            cst_fail(c, sp, "inconsistent use of tabs and spaces in indentation");
    }
}

/* Where an empty suite's first statement should have been: the first
 * character after the header line that is not blank or a comment (off
 * itself when the file ends first). */
d2_span cst_missing_block_at(cx *c, size_t off)
{
    size_t start = off;
    size_t i = off;
    while (i < c->len && c->src[i] != '\n')
        i++;
    while (i < c->len) {
        char ch = c->src[i];
        if (ch == '#') {
            while (i < c->len && c->src[i] != '\n')
                i++;
        } else if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f') {
            i++;
        } else {
            break;
        }
    }
    if (i >= c->len)
        i = start;
    return cst_span_bytes(c, i, i);
}

/* Converts the statements of a block (suite) n into out. header is the
 * statement owning it and what names it for messages. */
static void block(cx *c, TSNode n, d2_ast_seq *out, TSNode header, const char *what)
{
    kids all = cst_get_kids(c, n);
    kids ks = cst_named(c, &all); /* without the ';' separators */
    if (!ks.n)
        cst_fail(c, cst_missing_block_at(c, ts_node_start_byte(n)),
                 "expected an indented block after %s on line %u", what, cst_span_of(header).line);
    /* a suite on the header's line ("if x: a; b") is not indented */
    int col, alt;
    if (line_indent(c, ts_node_start_byte(ks.k[0].n), &col, &alt)) {
        int hcol, halt;
        size_t hs = ts_node_start_byte(header);
        if (line_indent(c, hs, &hcol, &halt) && col <= hcol)
            cst_fail(
                c,
                cst_missing_block_at(c, ts_node_start_byte(n) > 0 ? ts_node_start_byte(n) - 1 : 0),
                "expected an indented block after %s on line %u", what, cst_span_of(header).line);
        cst_check_indent(c, &ks, false);
    } else {
        for (uint32_t i = 1; i < ks.n; i++) {
            int cl, al;
            if (line_indent(c, ts_node_start_byte(ks.k[i].n), &cl, &al)) {
                d2_span sp = cst_span_of(ks.k[i].n);
                cst_fail(c, cst_span_bytes(c, sp.start, sp.start), "unexpected indent");
            }
        }
    }
    for (uint32_t i = 0; i < ks.n; i++)
        cst_push(c, out, cst_stmt(c, ks.k[i].n));
}
