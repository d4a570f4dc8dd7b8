/* cst_expr.c - CST -> AST for expressions, targets, annotations, parameters and match patterns. */
#include "syntax/cst_priv.h"

#include <string.h>

/* ---- forward declarations ---- */

static d2_ast_expr *union_chain(cx *c, TSNode n);
static d2_ast_expr *hoist_star(cx *c, d2_ast_expr *e, d2_ast_expr **base, d2_ast_ctx ctx);

/* ---- names of expressions, for messages as CPython words them ---- */

const char *cst_expr_name(const d2_ast_expr *e)
{
    switch (e->kind) {
    case D2_AST_ATTRIBUTE: return "attribute";
    case D2_AST_SUBSCRIPT: return "subscript";
    case D2_AST_STARRED: return "starred";
    case D2_AST_NAME: return "name";
    case D2_AST_LIST: return "list";
    case D2_AST_TUPLE: return "tuple";
    case D2_AST_LAMBDA: return "lambda";
    case D2_AST_CALL: return "function call";
    case D2_AST_BOOL_OP:
    case D2_AST_BIN_OP:
    case D2_AST_UNARY_OP: return "expression";
    case D2_AST_GENERATOR_EXP: return "generator expression";
    case D2_AST_YIELD:
    case D2_AST_YIELD_FROM: return "yield expression";
    case D2_AST_AWAIT: return "await expression";
    case D2_AST_LIST_COMP: return "list comprehension";
    case D2_AST_SET_COMP: return "set comprehension";
    case D2_AST_DICT_COMP: return "dict comprehension";
    case D2_AST_DICT: return "dict literal";
    case D2_AST_SET: return "set display";
    case D2_AST_JOINED_STR:
    case D2_AST_FORMATTED_VALUE: return "f-string expression";
    case D2_AST_CONSTANT:
        switch (e->constant.value.kind) {
        case D2_CONST_NONE: return "None";
        case D2_CONST_TRUE: return "True";
        case D2_CONST_FALSE: return "False";
        case D2_CONST_ELLIPSIS: return "ellipsis";
        default: return "literal";
        }
    case D2_AST_COMPARE: return "comparison";
    case D2_AST_IF_EXP: return "conditional expression";
    case D2_AST_NAMED_EXPR: return "named expression";
    default: return "expression";
    }
}

/* ---- expressions ---- */

d2_ast_operator cst_binop_of(cx *c, kid *k)
{
    switch (k ? k->t : T_OTHER) {
    case T_K_PLUS: case T_K_PLUS_EQ: return D2_OP_ADD;
    case T_K_MINUS: case T_K_MINUS_EQ: return D2_OP_SUB;
    case T_K_STAR: case T_K_STAR_EQ: return D2_OP_MULT;
    case T_K_AT: case T_K_AT_EQ: return D2_OP_MAT_MULT;
    case T_K_SLASH: case T_K_SLASH_EQ: return D2_OP_DIV;
    case T_K_PERCENT: case T_K_PERCENT_EQ: return D2_OP_MOD;
    case T_K_STARSTAR: case T_K_STARSTAR_EQ: return D2_OP_POW;
    case T_K_LSHIFT: case T_K_LSHIFT_EQ: return D2_OP_LSHIFT;
    case T_K_RSHIFT: case T_K_RSHIFT_EQ: return D2_OP_RSHIFT;
    case T_K_PIPE: case T_K_PIPE_EQ: return D2_OP_BIT_OR;
    case T_K_CARET: case T_K_CARET_EQ: return D2_OP_BIT_XOR;
    case T_K_AMP: case T_K_AMP_EQ: return D2_OP_BIT_AND;
    case T_K_SLASHSLASH: case T_K_SLASHSLASH_EQ: return D2_OP_FLOOR_DIV;
    default: break;
    }
    cst_fail(c, k ? cst_span_of(k->n) : (d2_span){0}, "invalid syntax");
}

/* The single named kid of n (a wrapper such as parenthesized_expression). */
TSNode cst_only_named(cx *c, TSNode n)
{
    kids ks = cst_get_kids(c, n);
    kids nk = cst_named(c, &ks);
    if (nk.n != 1)
        cst_fail(c, cst_span_of(n), "invalid syntax");
    return nk.k[0].n;
}

/* Elements of a bracketed or bare sequence (list, tuple, set,
 * expression_list) converted with ctx; Starred for *x. */
d2_ast_seq cst_elements(cx *c, kids *nk, d2_ast_ctx ctx, bool store)
{
    d2_ast_seq s = {0};
    for (uint32_t i = 0; i < nk->n; i++)
        cst_push(c, &s, store ? cst_target(c, nk->k[i].n, ctx) : cst_expr(c, nk->k[i].n));
    return s;
}

/* A Tuple of the named kids of n with span sp. */
static d2_ast_expr *tuple_of(cx *c, TSNode n, d2_span sp, d2_ast_ctx ctx, bool store)
{
    kids ks = cst_get_kids(c, n);
    kids nk = cst_named(c, &ks);
    return cst_need(c, d2_ast_tuple(c->a, cst_elements(c, &nk, ctx, store), ctx, sp));
}

/* Right-hand side of an assignment or yield: tuple without parentheses,
 * yield, or any expression. */
d2_ast_expr *cst_rhs(cx *c, TSNode n)
{
    switch (cst_T(c, n)) {
    case T_EXPRESSION_LIST: return tuple_of(c, n, cst_span_of(n), D2_CTX_LOAD, false);
    case T_ASSIGNMENT:
    case T_AUGMENTED_ASSIGNMENT: cst_fail(c, cst_span_of(n), "invalid syntax");
    default: return cst_expr(c, n);
    }
}

/* for_in_clause / if_clause sequence -> comprehension list: each for
 * starts one, each if joins the one before. */
static void comprehension_clauses(cx *c, kids *ks, d2_ast_seq *gens)
{
    d2_ast_comprehension *cur = NULL;
    for (uint32_t i = 0; i < ks->n; i++) {
        kid *k = &ks->k[i];
        if (k->t == T_FOR_IN_CLAUSE) {
            kids fk = cst_get_kids(c, k->n);
            kid *left = cst_kfield(c, &fk, F_LEFT), *right = cst_kfield(c, &fk, F_RIGHT);
            if (!left || !right)
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
            uint32_t nright = 0;
            for (uint32_t j = 0; j < fk.n; j++)
                nright += fk.k[j].f == c->fid[F_RIGHT];
            if (nright != 1)
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
            cur = cst_new_node(c, D2_AST_COMPREHENSION, cst_span_of(k->n));
            cur->target = cst_target(c, left->n, D2_CTX_STORE);
            cur->iter = cst_expr(c, right->n);
            cur->is_async = cst_has_tok(&fk, T_K_ASYNC);
            cst_push(c, gens, cur);
        } else if (k->t == T_IF_CLAUSE) {
            if (!cur)
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
            cst_push(c, &cur->ifs, cst_expr(c, cst_only_named(c, k->n)));
        }
    }
}

/* [x for ...] {x for ...} {k: v for ...} (x for ...) -> ListComp, SetComp,
 * DictComp, GeneratorExp. */
static d2_ast_expr *comprehension(cx *c, TSNode n, d2_ast_kind kind)
{
    kids ks = cst_get_kids(c, n);
    kid *body = cst_kfield(c, &ks, F_BODY);
    d2_span sp = cst_span_of(n);
    if (!body)
        cst_fail(c, sp, "invalid syntax");
    d2_ast_expr *e = cst_new_expr(c, kind, sp);
    if (kind == D2_AST_DICT_COMP) {
        kids pk = cst_get_kids(c, body->n);
        kid *key = cst_kfield(c, &pk, F_KEY), *value = cst_kfield(c, &pk, F_VALUE);
        if (body->t != T_PAIR || !key || !value)
            cst_fail(c, cst_span_of(body->n), "invalid syntax");
        e->dict_comp.key = cst_expr(c, key->n);
        e->dict_comp.value = cst_expr(c, value->n);
        comprehension_clauses(c, &ks, &e->dict_comp.generators);
    } else {
        e->list_comp.elt = cst_expr(c, body->n);
        comprehension_clauses(c, &ks, &e->list_comp.generators);
    }
    return e;
}

/* Arguments of a call or class header: positional, *args, keywords. */
void cst_call_args(cx *c, TSNode n, d2_ast_seq *args, d2_ast_seq *keywords)
{
    if (cst_T(c, n) == T_GENERATOR_EXPRESSION) {
        cst_push(c, args, comprehension(c, n, D2_AST_GENERATOR_EXP));
        return;
    }
    kids ks = cst_get_kids(c, n);
    kids nk = cst_named(c, &ks);
    bool seen_kw = false, seen_kwsplat = false;
    for (uint32_t i = 0; i < nk.n; i++) {
        kid *k = &nk.k[i];
        d2_span sp = cst_span_of(k->n);
        if (k->t == T_KEYWORD_ARGUMENT) {
            kids kk = cst_get_kids(c, k->n);
            kid *name = cst_kfield(c, &kk, F_NAME), *value = cst_kfield(c, &kk, F_VALUE);
            if (!name || !value || name->t != T_IDENTIFIER)
                cst_fail(c, sp, "expression cannot contain assignment, perhaps you meant \"==\"?");
            cst_push(c, keywords,
                     cst_need(c, d2_ast_keyword_new(c->a, cst_ident(c, name->n),
                                                    cst_expr(c, value->n), sp)));
            seen_kw = true;
        } else if (k->t == T_DICTIONARY_SPLAT) {
            cst_push(c, keywords,
                     cst_need(c, d2_ast_keyword_new(c->a, NULL,
                                                    cst_expr(c, cst_only_named(c, k->n)), sp)));
            seen_kwsplat = true;
        } else if (k->t == T_LIST_SPLAT || k->t == T_PARENTHESIZED_LIST_SPLAT) {
            if (seen_kwsplat)
                cst_fail(c, sp, "iterable argument unpacking follows keyword argument unpacking");
            cst_push(c, args, cst_expr(c, k->n));
        } else {
            if (seen_kwsplat)
                cst_fail(c, sp, "positional argument follows keyword argument unpacking");
            if (seen_kw)
                cst_fail(c, sp, "positional argument follows keyword argument");
            if (k->t == T_GENERATOR_EXPRESSION && nk.n > 1 &&
                c->src[ts_node_start_byte(k->n)] != '(')
                cst_fail(c, sp, "Generator expression must be parenthesized");
            cst_push(c, args, cst_expr(c, k->n));
        }
    }
}

/* The slice of a subscript: one index, a Slice, or a Tuple of them. */
static d2_ast_expr *slice_part(cx *c, TSNode n)
{
    if (cst_T(c, n) != T_SLICE)
        return cst_expr(c, n);
    kids ks = cst_get_kids(c, n);
    d2_ast_expr *e = cst_new_expr(c, D2_AST_SLICE, cst_span_of(n));
    int colons = 0;
    for (uint32_t i = 0; i < ks.n; i++) {
        if (ks.k[i].t == T_K_COLON) {
            colons++;
            continue;
        }
        if (!ts_node_is_named(ks.k[i].n))
            continue;
        d2_ast_expr *v = cst_expr(c, ks.k[i].n);
        d2_ast_expr **slot = colons == 0   ? &e->slice.lower
                             : colons == 1 ? &e->slice.upper
                                           : &e->slice.step;
        if (*slot || colons > 2)
            cst_fail(c, cst_span_of(ks.k[i].n), "invalid syntax");
        *slot = v;
    }
    return e;
}

/* value[i] value[a:b] value[i, j:k] -> Subscript; several indexes (or a
 * trailing comma) make a Tuple spanning the indexes. */
static d2_ast_expr *subscript(cx *c, TSNode n, d2_ast_ctx ctx)
{
    kids ks = cst_get_kids(c, n);
    kid *value = cst_kfield(c, &ks, F_VALUE);
    d2_span sp = cst_span_of(n);
    if (!value)
        cst_fail(c, sp, "invalid syntax");
    d2_ast_seq idx = {0};
    kid *first = NULL, *last = NULL;
    bool comma = false;
    for (uint32_t i = 0; i < ks.n; i++) {
        if (ks.k[i].f == c->fid[F_SUBSCRIPT] && ks.k[i].f) {
            cst_push(c, &idx, slice_part(c, ks.k[i].n));
            if (!first)
                first = &ks.k[i];
            last = &ks.k[i];
        } else if (ks.k[i].t == T_K_COMMA && first) {
            comma = true;
            last = &ks.k[i];
        }
    }
    if (!first)
        cst_fail(c, sp, "invalid syntax");
    d2_ast_expr *slice;
    /* a[*b] indexes with a tuple */
    if (idx.n == 1 && !comma && ((d2_ast_expr *)idx.items[0])->kind != D2_AST_STARRED)
        slice = idx.items[0];
    else
        slice = cst_need(c, d2_ast_tuple(c->a, idx, D2_CTX_LOAD,
                                         cst_span_to(cst_span_of(first->n), cst_span_of(last->n))));
    d2_ast_expr *e = cst_need(c, d2_ast_subscript(c->a, cst_expr(c, value->n), slice, ctx, sp));
    return hoist_star(c, e, &e->subscript.value, ctx);
}

/* Python's binding strength of a binary operator (higher binds tighter). */
static int binop_prec(d2_ast_operator op)
{
    switch (op) {
    case D2_OP_BIT_OR: return 1;
    case D2_OP_BIT_XOR: return 2;
    case D2_OP_BIT_AND: return 3;
    case D2_OP_LSHIFT:
    case D2_OP_RSHIFT: return 4;
    case D2_OP_ADD:
    case D2_OP_SUB: return 5;
    case D2_OP_POW: return 7;
    default: return 6; /* * @ / // % */
    }
}

/* An operand of a binary chain with its source range (parentheses
 * included, which CPython's BinOp spans cover). */
typedef struct operand {
    d2_ast_expr *e;
    d2_span sp;
} operand;

/* A run of binary operators: tree-sitter-python ranks '^' above '&'
 * (Python ranks '&' above '^'), so the operands and operators of a whole
 * unparenthesised run are collected in source order and regrouped by
 * Python's precedence (all left-associative but '**'). Iterative, so long
 * chains do not deepen the C stack. */
static d2_ast_expr *binary_chain(cx *c, TSNode n)
{
    /* in-order walk of the binary_operator nodes */
    typedef struct item {
        TSNode n;
        bool is_op;
    } item;
    size_t cap = 16, top = 0, nopnd = 0, nops = 0, opcap = 16;
    item *stack = cst_need(c, d2_arena_alloc(c->a, cap * sizeof(item)));
    TSNode *opnd = cst_need(c, d2_arena_alloc(c->a, opcap * sizeof(TSNode)));
    kid *ops = cst_need(c, d2_arena_alloc(c->a, opcap * sizeof(kid)));
    stack[top++] = (item){n, false};
    while (top) {
        item it = stack[--top];
        if (it.is_op) {
            ops[nops++] = (kid){it.n, cst_T(c, it.n), 0};
            continue;
        }
        if (cst_T(c, it.n) != T_BINARY_OPERATOR) {
            opnd[nopnd++] = it.n;
            if (nopnd == opcap) {
                opnd = cst_need(c, d2_arena_realloc(c->a, opnd, opcap * sizeof(TSNode),
                                                    2 * opcap * sizeof(TSNode)));
                ops = cst_need(c, d2_arena_realloc(c->a, ops, opcap * sizeof(kid),
                                                   2 * opcap * sizeof(kid)));
                opcap *= 2;
            }
            continue;
        }
        kids ks = cst_get_kids(c, it.n);
        kid *l = cst_kfield(c, &ks, F_LEFT), *op = cst_kfield(c, &ks, F_OPERATOR),
            *r = cst_kfield(c, &ks, F_RIGHT);
        if (!l || !r || !op)
            cst_fail(c, cst_span_of(it.n), "invalid syntax");
        if (top + 3 > cap) {
            stack = cst_need(c, d2_arena_realloc(c->a, stack, cap * sizeof(item),
                                                 2 * cap * sizeof(item)));
            cap *= 2;
        }
        stack[top++] = (item){r->n, false};
        stack[top++] = (item){op->n, true};
        stack[top++] = (item){l->n, false};
    }
    if (nops + 1 != nopnd)
        cst_fail(c, cst_span_of(n), "invalid syntax");
    /* the result nests up to nops BinOps deep */
    int saved_depth = c->ast_depth;
    cst_deepen(c, n, nops);
    /* operator precedence parsing over the collected sequence */
    operand *vals = cst_need(c, d2_arena_alloc(c->a, nopnd * sizeof(operand)));
    d2_ast_operator *opstack =
        cst_need(c, d2_arena_alloc(c->a, (nops + 1) * sizeof(d2_ast_operator)));
    size_t nv = 0, no = 0;
    for (size_t i = 0; i < nopnd; i++) {
        vals[nv].e = cst_expr(c, opnd[i]);
        vals[nv].sp = cst_span_of(opnd[i]);
        nv++;
        d2_ast_operator op = D2_OP_ADD;
        bool last = i + 1 == nopnd;
        if (!last)
            op = cst_binop_of(c, &ops[i]);
        while (no && (last || binop_prec(opstack[no - 1]) > binop_prec(op) ||
                      (binop_prec(opstack[no - 1]) == binop_prec(op) && op != D2_OP_POW))) {
            operand r = vals[--nv], l = vals[--nv];
            d2_span bsp = cst_span_to(l.sp, r.sp);
            vals[nv].e = cst_need(c, d2_ast_bin_op(c->a, l.e, opstack[--no], r.e, bsp));
            vals[nv].sp = bsp;
            nv++;
        }
        if (!last)
            opstack[no++] = op;
    }
    c->ast_depth = saved_depth;
    return vals[0].e;
}

/* tree-sitter binds '*' tighter than calls, attributes and subscripts
 * ("*a.b()" arrives as call(attribute(list_splat(a)))); CPython's Starred
 * covers the whole primary. Moves a Starred found at *base out to wrap e,
 * which then starts where the starred value starts. */
static d2_ast_expr *hoist_star(cx *c, d2_ast_expr *e, d2_ast_expr **base, d2_ast_ctx ctx)
{
    (void)c;
    if ((*base)->kind != D2_AST_STARRED)
        return e;
    d2_ast_expr *star = *base;
    *base = star->starred.value;
    star->span = e->span;
    e->span.line = (*base)->span.line;
    e->span.col = (*base)->span.col;
    e->span.start = (*base)->span.start;
    star->starred.value = e;
    star->starred.ctx = ctx;
    return star;
}

/* Any expression node -> d2_ast_expr in Load context. Parentheses vanish
 * (the inner node keeps its own span), as in CPython. */
static d2_ast_expr *expr_inner(cx *c, TSNode n)
{
    d2_span sp = cst_span_of(n);
    int t = cst_T(c, n);
    switch (t) {
    case T_IDENTIFIER: return cst_need(c, d2_ast_name(c->a, cst_ident(c, n), D2_CTX_LOAD, sp));
    case T_INTEGER:
    case T_FLOAT: return cst_number(c, n);
    case T_STRING:
    case T_CONCATENATED_STRING: return cst_string_expr(c, n);
    case T_TRUE: return cst_need(c, d2_ast_const_simple(c->a, D2_CONST_TRUE, sp));
    case T_FALSE: return cst_need(c, d2_ast_const_simple(c->a, D2_CONST_FALSE, sp));
    case T_NONE: return cst_need(c, d2_ast_const_simple(c->a, D2_CONST_NONE, sp));
    case T_ELLIPSIS: return cst_need(c, d2_ast_const_simple(c->a, D2_CONST_ELLIPSIS, sp));
    case T_PARENTHESIZED_EXPRESSION: {
        TSNode inner = cst_only_named(c, n);
        if (cst_T(c, inner) == T_LIST_SPLAT)
            cst_fail(c, cst_span_of(inner), "cannot use starred expression here");
        return cst_expr(c, inner);
    }
    case T_BOOLEAN_OPERATOR: {
        kids ks = cst_get_kids(c, n);
        kid *l = cst_kfield(c, &ks, F_LEFT), *op = cst_kfield(c, &ks, F_OPERATOR),
            *r = cst_kfield(c, &ks, F_RIGHT);
        if (!l || !op || !r)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_boolop bop = op->t == T_K_AND ? D2_BOOLOP_AND : D2_BOOLOP_OR;
        d2_ast_expr *left = cst_expr(c, l->n);
        d2_ast_seq values = {0};
        /* a and b and c is one BoolOp; a parenthesised operand stays nested */
        if (l->t == T_BOOLEAN_OPERATOR && left->kind == D2_AST_BOOL_OP &&
            left->bool_op.op == bop)
            values = left->bool_op.values;
        else
            cst_push(c, &values, left);
        cst_push(c, &values, cst_expr(c, r->n));
        return cst_need(c, d2_ast_bool_op(c->a, bop, values, sp));
    }
    case T_NOT_OPERATOR: {
        kids ks = cst_get_kids(c, n);
        kid *arg = cst_kfield(c, &ks, F_ARGUMENT);
        if (!arg)
            cst_fail(c, sp, "invalid syntax");
        return cst_need(c, d2_ast_unary_op(c->a, D2_UNARY_NOT, cst_expr(c, arg->n), sp));
    }
    case T_BINARY_OPERATOR: return binary_chain(c, n);
    case T_UNARY_OPERATOR: {
        kids ks = cst_get_kids(c, n);
        kid *op = cst_kfield(c, &ks, F_OPERATOR), *arg = cst_kfield(c, &ks, F_ARGUMENT);
        if (!op || !arg)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_unaryop uop = op->t == T_K_MINUS ? D2_UNARY_USUB
                             : op->t == T_K_PLUS ? D2_UNARY_UADD
                                                 : D2_UNARY_INVERT;
        return cst_need(c, d2_ast_unary_op(c->a, uop, cst_expr(c, arg->n), sp));
    }
    case T_COMPARISON_OPERATOR: {
        kids ks = cst_get_kids(c, n);
        d2_ast_expr *e = cst_new_expr(c, D2_AST_COMPARE, sp);
        d2_ast_cmpop *ops = cst_need(c, d2_arena_alloc(c->a, ks.n * sizeof(d2_ast_cmpop)));
        uint32_t nops = 0;
        for (uint32_t i = 0; i < ks.n; i++) {
            kid *k = &ks.k[i];
            if (ts_node_is_named(k->n)) {
                d2_ast_expr *v = cst_expr(c, k->n);
                if (!e->compare.left)
                    e->compare.left = v;
                else
                    cst_push(c, &e->compare.comparators, v);
                continue;
            }
            d2_ast_cmpop op;
            switch (k->t) {
            case T_K_LT: op = D2_CMP_LT; break;
            case T_K_GT: op = D2_CMP_GT; break;
            case T_K_LE: op = D2_CMP_LT_E; break;
            case T_K_GE: op = D2_CMP_GT_E; break;
            case T_K_EQEQ: op = D2_CMP_EQ; break;
            case T_K_NE: op = D2_CMP_NOT_EQ; break;
            case T_K_IN: op = D2_CMP_IN; break;
            case T_K_NOT_IN: op = D2_CMP_NOT_IN; break;
            case T_K_IS: op = D2_CMP_IS; break;
            case T_K_IS_NOT: op = D2_CMP_IS_NOT; break;
            default: cst_fail(c, cst_span_of(k->n), "invalid syntax");
            }
            ops[nops++] = op;
        }
        if (!e->compare.left || nops != e->compare.comparators.n || !nops)
            cst_fail(c, sp, "invalid syntax");
        e->compare.ops = ops;
        return e;
    }
    case T_LAMBDA: {
        kids ks = cst_get_kids(c, n);
        kid *params = cst_kfield(c, &ks, F_PARAMETERS), *body = cst_kfield(c, &ks, F_BODY);
        if (!body)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_expr *e = cst_new_expr(c, D2_AST_LAMBDA, sp);
        e->lambda.args = params ? cst_parameters(c, params->n, true)
                                : cst_new_node(c, D2_AST_ARGUMENTS, sp);
        e->lambda.body = cst_expr(c, body->n);
        return e;
    }
    case T_CONDITIONAL_EXPRESSION: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (nk.n != 3)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_expr *e = cst_new_expr(c, D2_AST_IF_EXP, sp);
        e->if_exp.body = cst_expr(c, nk.k[0].n);
        e->if_exp.test = cst_expr(c, nk.k[1].n);
        e->if_exp.orelse = cst_expr(c, nk.k[2].n);
        if (nk.k[0].t == T_NAMED_EXPRESSION) {
            /* "x := a if t else b" assigns the whole conditional; the grammar
             * binds the walrus tighter */
            d2_ast_expr *ne = e->if_exp.body;
            e->if_exp.body = ne->named_expr.value;
            e->span.line = ne->named_expr.value->span.line;
            e->span.col = ne->named_expr.value->span.col;
            e->span.start = ne->named_expr.value->span.start;
            ne->named_expr.value = e;
            ne->span = sp;
            return ne;
        }
        return e;
    }
    case T_NAMED_EXPRESSION: {
        kids ks = cst_get_kids(c, n);
        kid *name = cst_kfield(c, &ks, F_NAME), *value = cst_kfield(c, &ks, F_VALUE);
        if (!name || !value || name->t != T_IDENTIFIER)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_expr *e = cst_new_expr(c, D2_AST_NAMED_EXPR, sp);
        e->named_expr.target = cst_need(c, d2_ast_name(c->a, cst_ident(c, name->n), D2_CTX_STORE,
                                                       cst_span_of(name->n)));
        e->named_expr.value = cst_expr(c, value->n);
        return e;
    }
    case T_AWAIT: {
        d2_ast_expr *e = cst_new_expr(c, D2_AST_AWAIT, sp);
        e->await.value = cst_expr(c, cst_only_named(c, n));
        return e;
    }
    case T_YIELD: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (nk.n > 1)
            cst_fail(c, sp, "invalid syntax");
        if (cst_has_tok(&ks, T_K_FROM)) {
            if (nk.n != 1)
                cst_fail(c, sp, "invalid syntax");
            d2_ast_expr *e = cst_new_expr(c, D2_AST_YIELD_FROM, sp);
            e->yield_from.value = cst_expr(c, nk.k[0].n);
            return e;
        }
        d2_ast_expr *e = cst_new_expr(c, D2_AST_YIELD, sp);
        if (nk.n)
            e->yield.value = cst_rhs(c, nk.k[0].n);
        return e;
    }
    case T_CALL: {
        kids ks = cst_get_kids(c, n);
        kid *fn = cst_kfield(c, &ks, F_FUNCTION), *args = cst_kfield(c, &ks, F_ARGUMENTS);
        if (!fn || !args)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_expr *func = cst_expr(c, fn->n);
        d2_ast_seq a = {0}, kw = {0};
        cst_call_args(c, args->n, &a, &kw);
        d2_ast_expr *e = cst_need(c, d2_ast_call(c->a, func, a, kw, sp));
        return hoist_star(c, e, &e->call.func, D2_CTX_LOAD);
    }
    case T_ATTRIBUTE: {
        kids ks = cst_get_kids(c, n);
        kid *obj = cst_kfield(c, &ks, F_OBJECT), *attr = cst_kfield(c, &ks, F_ATTRIBUTE);
        if (!obj || !attr)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_expr *e = cst_need(
            c, d2_ast_attribute(c->a, cst_expr(c, obj->n), cst_ident(c, attr->n), D2_CTX_LOAD, sp));
        return hoist_star(c, e, &e->attribute.value, D2_CTX_LOAD);
    }
    case T_SUBSCRIPT: return subscript(c, n, D2_CTX_LOAD);
    case T_LIST:
    case T_TUPLE:
    case T_SET: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        d2_ast_seq elts = cst_elements(c, &nk, D2_CTX_LOAD, false);
        if (t == T_LIST)
            return cst_need(c, d2_ast_list(c->a, elts, D2_CTX_LOAD, sp));
        if (t == T_TUPLE)
            return cst_need(c, d2_ast_tuple(c->a, elts, D2_CTX_LOAD, sp));
        d2_ast_expr *e = cst_new_expr(c, D2_AST_SET, sp);
        e->set.elts = elts;
        return e;
    }
    case T_EXPRESSION_LIST:
    case T_PATTERN_LIST: return tuple_of(c, n, sp, D2_CTX_LOAD, false);
    case T_LIST_SPLAT: {
        d2_ast_expr *e = cst_new_expr(c, D2_AST_STARRED, sp);
        e->starred.value = cst_expr(c, cst_only_named(c, n));
        e->starred.ctx = D2_CTX_LOAD;
        return e;
    }
    case T_PARENTHESIZED_LIST_SPLAT: {
        TSNode inner = cst_only_named(c, n);
        return cst_expr(c, inner);
    }
    case T_DICTIONARY: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        d2_ast_expr *e = cst_new_expr(c, D2_AST_DICT, sp);
        for (uint32_t i = 0; i < nk.n; i++) {
            kid *k = &nk.k[i];
            if (k->t == T_DICTIONARY_SPLAT) {
                cst_push(c, &e->dict.keys, NULL);
                cst_push(c, &e->dict.values, cst_expr(c, cst_only_named(c, k->n)));
                continue;
            }
            kids pk = cst_get_kids(c, k->n);
            kid *key = cst_kfield(c, &pk, F_KEY), *value = cst_kfield(c, &pk, F_VALUE);
            if (k->t != T_PAIR || !key || !value)
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
            cst_push(c, &e->dict.keys, cst_expr(c, key->n));
            cst_push(c, &e->dict.values, cst_expr(c, value->n));
        }
        return e;
    }
    case T_LIST_COMPREHENSION: return comprehension(c, n, D2_AST_LIST_COMP);
    case T_SET_COMPREHENSION: return comprehension(c, n, D2_AST_SET_COMP);
    case T_DICTIONARY_COMPREHENSION: return comprehension(c, n, D2_AST_DICT_COMP);
    case T_GENERATOR_EXPRESSION: return comprehension(c, n, D2_AST_GENERATOR_EXP);
    case T_TYPE:
    case T_GENERIC_TYPE:
    case T_UNION_TYPE:
    case T_MEMBER_TYPE:
    case T_SPLAT_TYPE:
    case T_CONSTRAINED_TYPE: return cst_type_expr(c, n);
    case T_KEYWORD_ARGUMENT:
        cst_fail(c, sp, "expression cannot contain assignment, perhaps you meant \"==\"?");
    default: break;
    }
    cst_fail(c, sp, "invalid syntax");
}

d2_ast_expr *cst_expr(cx *c, TSNode n)
{
    cst_enter(c, n);
    d2_ast_expr *e = expr_inner(c, n);
    cst_leave(c);
    return e;
}

/* A union of types "A | B[x] | None": the grammar nests union_type and
 * '|' binary_operator nodes either way; CPython's BinOps nest to the left.
 * The operands are collected in source order (iteratively) and chained. */
static d2_ast_expr *union_chain(cx *c, TSNode n)
{
    size_t cap = 16, top = 0, nop = 0, opcap = 16;
    TSNode *stack = cst_need(c, d2_arena_alloc(c->a, cap * sizeof(TSNode)));
    TSNode *opnd = cst_need(c, d2_arena_alloc(c->a, opcap * sizeof(TSNode)));
    stack[top++] = n;
    while (top) {
        TSNode x = stack[--top];
        int t = cst_T(c, x);
        kids ks = {NULL, 0};
        bool split = t == T_UNION_TYPE || t == T_TYPE;
        if (t == T_BINARY_OPERATOR) {
            ks = cst_get_kids(c, x);
            kid *op = cst_kfield(c, &ks, F_OPERATOR);
            split = op && op->t == T_K_PIPE;
        }
        if (!split) {
            if (nop == opcap) {
                opnd = cst_need(c, d2_arena_realloc(c->a, opnd, opcap * sizeof(TSNode),
                                                    2 * opcap * sizeof(TSNode)));
                opcap *= 2;
            }
            opnd[nop++] = x;
            continue;
        }
        if (!ks.k)
            ks = cst_get_kids(c, x);
        kids nk = cst_named(c, &ks);
        if (top + nk.n > cap) {
            size_t nc = 2 * (top + nk.n);
            stack = cst_need(c, d2_arena_realloc(c->a, stack, cap * sizeof(TSNode), nc * sizeof(TSNode)));
            cap = nc;
        }
        for (uint32_t i = nk.n; i-- > 0;)
            stack[top++] = nk.k[i].n;
    }
    if (!nop)
        cst_fail(c, cst_span_of(n), "invalid syntax");
    int saved_depth = c->ast_depth;
    cst_deepen(c, n, nop - 1);
    d2_ast_expr *e = cst_type_expr(c, opnd[0]);
    d2_span esp = cst_span_of(opnd[0]);
    for (size_t i = 1; i < nop; i++) {
        esp = cst_span_to(esp, cst_span_of(opnd[i]));
        e = cst_need(c, d2_ast_bin_op(c->a, e, D2_OP_BIT_OR, cst_type_expr(c, opnd[i]), esp));
    }
    c->ast_depth = saved_depth;
    return e;
}

static d2_ast_expr *type_expr_inner(cx *c, TSNode n);

/* An annotation: the grammar's type nodes are expressions in CPython. */
d2_ast_expr *cst_type_expr(cx *c, TSNode n)
{
    cst_enter(c, n);
    d2_ast_expr *e = type_expr_inner(c, n);
    cst_leave(c);
    return e;
}

static d2_ast_expr *type_expr_inner(cx *c, TSNode n)
{
    d2_span sp = cst_span_of(n);
    switch (cst_T(c, n)) {
    case T_TYPE: return cst_type_expr(c, cst_only_named(c, n));
    case T_GENERIC_TYPE: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (nk.n != 2 || nk.k[1].t != T_TYPE_PARAMETER)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_expr *base = cst_expr(c, nk.k[0].n);
        kids pk = cst_get_kids(c, nk.k[1].n);
        d2_ast_seq idx = {0};
        TSNode first = NULL_NODE, last = NULL_NODE;
        bool have = false, comma = false;
        for (uint32_t i = 0; i < pk.n; i++) {
            if (ts_node_is_named(pk.k[i].n)) {
                cst_push(c, &idx, cst_type_expr(c, pk.k[i].n));
                if (!have)
                    first = pk.k[i].n;
                have = true;
                last = pk.k[i].n;
            } else if (pk.k[i].t == T_K_COMMA && have) {
                comma = true;
                last = pk.k[i].n;
            }
        }
        if (!have)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_expr *slice =
            idx.n == 1 && !comma && ((d2_ast_expr *)idx.items[0])->kind != D2_AST_STARRED
                ? idx.items[0]
                : cst_need(c, d2_ast_tuple(c->a, idx, D2_CTX_LOAD,
                                           cst_span_to(cst_span_of(first), cst_span_of(last))));
        return cst_need(c, d2_ast_subscript(c->a, base, slice, D2_CTX_LOAD, sp));
    }
    case T_UNION_TYPE: return union_chain(c, n);
    case T_MEMBER_TYPE: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (nk.n != 2 || nk.k[1].t != T_IDENTIFIER)
            cst_fail(c, sp, "invalid syntax");
        return cst_need(c, d2_ast_attribute(c->a, cst_type_expr(c, nk.k[0].n),
                                            cst_ident(c, nk.k[1].n), D2_CTX_LOAD, sp));
    }
    case T_SPLAT_TYPE: {
        kids ks = cst_get_kids(c, n);
        if (cst_has_tok(&ks, T_K_STARSTAR))
            cst_fail(c, sp, "invalid syntax");
        d2_ast_expr *e = cst_new_expr(c, D2_AST_STARRED, sp);
        e->starred.value = cst_type_expr(c, cst_only_named(c, n));
        e->starred.ctx = D2_CTX_LOAD;
        return e;
    }
    case T_CONSTRAINED_TYPE:
    case T_TYPE_PARAMETER:
        cst_fail(c, sp, "type parameter syntax is not supported (it needs Python 3.12)");
    default: return cst_expr(c, n);
    }
}

/* An assignment, for, with, del or comprehension target in context ctx. */
static d2_ast_expr *target_inner(cx *c, TSNode n, d2_ast_ctx ctx)
{
    d2_span sp = cst_span_of(n);
    int t = cst_T(c, n);
    switch (t) {
    case T_IDENTIFIER: return cst_need(c, d2_ast_name(c->a, cst_ident(c, n), ctx, sp));
    case T_ATTRIBUTE: {
        d2_ast_expr *e = cst_expr(c, n);
        if (e->kind == D2_AST_STARRED) {
            e->starred.ctx = ctx;
            e->starred.value->attribute.ctx = ctx;
        } else {
            e->attribute.ctx = ctx;
        }
        return e;
    }
    case T_SUBSCRIPT: return subscript(c, n, ctx);
    case T_PARENTHESIZED_EXPRESSION: {
        TSNode inner = cst_only_named(c, n);
        if (cst_T(c, inner) == T_LIST_SPLAT)
            cst_fail(c, cst_span_of(inner), "cannot use starred expression here");
        return cst_target(c, inner, ctx);
    }
    case T_TUPLE:
    case T_TUPLE_PATTERN:
    case T_LIST:
    case T_LIST_PATTERN:
    case T_PATTERN_LIST:
    case T_EXPRESSION_LIST: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        bool list = t == T_LIST || t == T_LIST_PATTERN;
        /* "(x)" is x itself: the grammar makes it a one-element tuple pattern */
        if (t == T_TUPLE_PATTERN && nk.n == 1 && !cst_has_tok(&ks, T_K_COMMA)) {
            if (nk.k[0].t == T_LIST_SPLAT_PATTERN || nk.k[0].t == T_LIST_SPLAT)
                cst_fail(c, cst_span_of(nk.k[0].n), "cannot use starred expression here");
            return cst_target(c, nk.k[0].n, ctx);
        }
        d2_ast_seq elts = cst_elements(c, &nk, ctx, true);
        return list ? cst_need(c, d2_ast_list(c->a, elts, ctx, sp))
                    : cst_need(c, d2_ast_tuple(c->a, elts, ctx, sp));
    }
    case T_LIST_SPLAT:
    case T_LIST_SPLAT_PATTERN: {
        d2_ast_expr *e = cst_new_expr(c, D2_AST_STARRED, sp);
        e->starred.value = cst_target(c, cst_only_named(c, n), ctx);
        e->starred.ctx = ctx;
        return e;
    }
    default: break;
    }
    d2_ast_expr *e = cst_expr(c, n);
    cst_fail(c, e->span, "cannot %s %s", ctx == D2_CTX_DEL ? "delete" : "assign to",
             cst_expr_name(e));
}

d2_ast_expr *cst_target(cx *c, TSNode n, d2_ast_ctx ctx)
{
    cst_enter(c, n);
    d2_ast_expr *e = target_inner(c, n, ctx);
    cst_leave(c);
    return e;
}

/* ---- parameters ---- */

static d2_ast_arg *param_arg(cx *c, TSNode name, TSNode type_node, bool has_type)
{
    d2_span sp = cst_span_of(name);
    d2_ast_expr *ann = NULL;
    if (has_type) {
        ann = cst_type_expr(c, type_node);
        sp = cst_span_to(sp, cst_span_of(type_node));
    }
    return cst_need(c, d2_ast_arg_new(c->a, cst_ident(c, name), ann, sp));
}

/* The identifier inside *name / **name. */
static TSNode splat_name(cx *c, TSNode n)
{
    TSNode id = cst_only_named(c, n);
    if (cst_T(c, id) != T_IDENTIFIER)
        cst_fail(c, cst_span_of(n), "invalid syntax");
    return id;
}

/* parameters | lambda_parameters -> arguments: plain, typed and default
 * parameters, "/" (what came before is positional-only), "*" or *args
 * (what follows is keyword-only) and **kwargs. */
d2_ast_arguments *cst_parameters(cx *c, TSNode n, bool lambda)
{
    d2_ast_arguments *a = cst_new_node(c, D2_AST_ARGUMENTS, cst_span_of(n));
    kids ks = cst_get_kids(c, n);
    kids nk = cst_named(c, &ks);
    bool kwonly = false, seen_default = false;
    for (uint32_t i = 0; i < nk.n; i++) {
        kid *k = &nk.k[i];
        d2_span sp = cst_span_of(k->n);
        if (a->kwarg)
            cst_fail(c, sp, "arguments cannot follow var-keyword argument");
        TSNode name = k->n, type_node = NULL_NODE, value = NULL_NODE;
        bool has_type = false, has_value = false;
        int kind = k->t; /* of the parameter itself, typed or not */
        if (k->t == T_TYPED_PARAMETER || k->t == T_DEFAULT_PARAMETER ||
            k->t == T_TYPED_DEFAULT_PARAMETER) {
            kids pk = cst_get_kids(c, k->n);
            kid *nm = cst_kfield(c, &pk, F_NAME), *ty = cst_kfield(c, &pk, F_TYPE),
                *val = cst_kfield(c, &pk, F_VALUE);
            if (!nm) {
                /* typed_parameter names its parameter without a field */
                kids pn = cst_named(c, &pk);
                nm = pn.n ? &pn.k[0] : NULL;
            }
            if (!nm)
                cst_fail(c, sp, "invalid syntax");
            name = nm->n;
            kind = nm->t;
            if (ty) {
                type_node = ty->n;
                has_type = true;
            }
            if (val) {
                value = val->n;
                has_value = true;
            }
        }
        if (lambda && has_type)
            cst_fail(c, sp, "invalid syntax");
        switch (kind) {
        case T_POSITIONAL_SEPARATOR:
            if (kwonly || a->posonlyargs.n)
                cst_fail(c, sp, "/ must be ahead of *");
            if (!a->args.n)
                cst_fail(c, sp, "at least one argument must precede /");
            a->posonlyargs = a->args;
            memset(&a->args, 0, sizeof a->args);
            break;
        case T_KEYWORD_SEPARATOR:
            if (kwonly)
                cst_fail(c, sp, "* argument may appear only once");
            kwonly = true;
            break;
        case T_LIST_SPLAT_PATTERN:
            if (kwonly)
                cst_fail(c, sp, "* argument may appear only once");
            if (has_value)
                cst_fail(c, sp, "var-positional argument cannot have default value");
            kwonly = true;
            a->vararg = param_arg(c, splat_name(c, name), type_node, has_type);
            break;
        case T_DICTIONARY_SPLAT_PATTERN:
            if (has_value)
                cst_fail(c, sp, "var-keyword argument cannot have default value");
            a->kwarg = param_arg(c, splat_name(c, name), type_node, has_type);
            break;
        case T_IDENTIFIER: {
            d2_ast_arg *arg = param_arg(c, name, type_node, has_type);
            if (kwonly) {
                cst_push(c, &a->kwonlyargs, arg);
                cst_push(c, &a->kw_defaults, has_value ? cst_expr(c, value) : NULL);
            } else {
                cst_push(c, &a->args, arg);
                if (has_value) {
                    cst_push(c, &a->defaults, cst_expr(c, value));
                    seen_default = true;
                } else if (seen_default) {
                    cst_fail(c, sp, "non-default argument follows default argument");
                }
            }
            break;
        }
        default: cst_fail(c, sp, "invalid syntax");
        }
    }
    if (kwonly && !a->vararg && !a->kwonlyargs.n)
        cst_fail(c, cst_span_of(n), "named arguments must follow bare *");
    return a;
}

/* ---- patterns ---- */

d2_ast_pattern *cst_new_pattern(cx *c, d2_ast_kind k, d2_span sp)
{
    return cst_new_node(c, k, sp);
}

/* A literal or value expression of a pattern, negative when minus (the
 * grammar's separate '-' token) is not null. */
static d2_ast_expr *complex_value(cx *c, TSNode n);

static d2_ast_expr *pattern_value_expr(cx *c, TSNode n, TSNode minus, bool neg)
{
    d2_ast_expr *v;
    if (cst_T(c, n) == T_COMPLEX_PATTERN)
        return complex_value(c, n);
    if (cst_T(c, n) == T_DOTTED_NAME) {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (!nk.n)
            cst_fail(c, cst_span_of(n), "invalid syntax");
        v = cst_need(
            c, d2_ast_name(c->a, cst_ident(c, nk.k[0].n), D2_CTX_LOAD, cst_span_of(nk.k[0].n)));
        for (uint32_t i = 1; i < nk.n; i++)
            v = cst_need(
                c, d2_ast_attribute(c->a, v, cst_ident(c, nk.k[i].n), D2_CTX_LOAD,
                                    cst_span_to(cst_span_of(nk.k[0].n), cst_span_of(nk.k[i].n))));
    } else {
        v = cst_expr(c, n);
    }
    if (neg)
        v = cst_need(
            c, d2_ast_unary_op(c->a, D2_UNARY_USUB, v, cst_span_to(cst_span_of(minus), v->span)));
    return v;
}

static d2_ast_pattern *value_pattern(cx *c, d2_ast_expr *v)
{
    d2_ast_pattern *p = cst_new_pattern(c, D2_AST_MATCH_VALUE, v->span);
    p->match_value.value = v;
    return p;
}

/* complex_pattern: [-] real (+|-) imag. */
static d2_ast_expr *complex_value(cx *c, TSNode n)
{
    kids ks = cst_get_kids(c, n);
    TSNode minus = NULL_NODE;
    bool neg = false;
    d2_ast_expr *left = NULL, *right = NULL;
    d2_ast_operator op = D2_OP_ADD;
    for (uint32_t i = 0; i < ks.n; i++) {
        kid *k = &ks.k[i];
        if (k->t == T_K_MINUS && !left) {
            minus = k->n;
            neg = true;
        } else if ((k->t == T_K_MINUS || k->t == T_K_PLUS) && left) {
            op = k->t == T_K_MINUS ? D2_OP_SUB : D2_OP_ADD;
        } else if (ts_node_is_named(k->n)) {
            if (!left)
                left = pattern_value_expr(c, k->n, minus, neg);
            else
                right = cst_expr(c, k->n);
        }
    }
    if (!left || !right)
        cst_fail(c, cst_span_of(n), "invalid syntax");
    if (right->kind != D2_AST_CONSTANT || right->constant.value.kind != D2_CONST_COMPLEX)
        cst_fail(c, right->span, "imaginary number required in complex literal");
    return cst_need(c, d2_ast_bin_op(c->a, left, op, right, cst_span_of(n)));
}

static d2_ast_pattern *wildcard(cx *c, d2_span sp)
{
    return cst_new_pattern(c, D2_AST_MATCH_AS, sp);
}

/* The items of a sequence of bare patterns (in union, keyword or case
 * patterns) where '-' and '_' are separate tokens. Converts the pattern at
 * ks->k[*i] (after an optional '-') and advances *i past it. */
static d2_ast_pattern *pattern_item(cx *c, kids *ks, uint32_t *i)
{
    TSNode minus = NULL_NODE;
    bool neg = false;
    for (; *i < ks->n; (*i)++) {
        kid *k = &ks->k[*i];
        if (k->t == T_K_MINUS) {
            minus = k->n;
            neg = true;
            continue;
        }
        if (k->t == T_K_UNDERSCORE) {
            (*i)++;
            return wildcard(c, cst_span_of(k->n));
        }
        if (!ts_node_is_named(k->n))
            continue;
        (*i)++;
        if (neg) {
            if (k->t != T_INTEGER && k->t != T_FLOAT)
                cst_fail(c, cst_span_of(k->n), "invalid syntax");
            return value_pattern(c, pattern_value_expr(c, k->n, minus, true));
        }
        return cst_pattern(c, k->n);
    }
    return NULL;
}

/* case_pattern and the pattern forms -> MatchValue, MatchSingleton,
 * MatchSequence, MatchMapping, MatchClass, MatchStar, MatchAs, MatchOr. */
static d2_ast_pattern *pattern_inner(cx *c, TSNode n)
{
    d2_span sp = cst_span_of(n);
    int t = cst_T(c, n);
    switch (t) {
    case T_CASE_PATTERN: {
        kids ks = cst_get_kids(c, n);
        uint32_t i = 0;
        d2_ast_pattern *p = pattern_item(c, &ks, &i);
        if (!p)
            return wildcard(c, sp); /* a bare '_' may be hidden inside */
        if (i < ks.n)
            cst_fail(c, sp, "invalid syntax");
        return p;
    }
    case T_DOTTED_NAME: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (nk.n == 1) {
            d2_ast_pattern *p = cst_new_pattern(c, D2_AST_MATCH_AS, sp);
            p->match_as.name = cst_ident(c, nk.k[0].n);
            return p;
        }
        return value_pattern(c, pattern_value_expr(c, n, (TSNode)NULL_NODE, false));
    }
    case T_INTEGER:
    case T_FLOAT:
    case T_STRING:
    case T_CONCATENATED_STRING: {
        d2_ast_expr *v = cst_expr(c, n);
        if (v->kind == D2_AST_JOINED_STR)
            cst_fail(c, sp, "patterns may only match literals and attribute lookups");
        return value_pattern(c, v);
    }
    case T_COMPLEX_PATTERN: return value_pattern(c, complex_value(c, n));
    case T_NONE:
    case T_TRUE:
    case T_FALSE: {
        d2_ast_pattern *p = cst_new_pattern(c, D2_AST_MATCH_SINGLETON, sp);
        p->match_singleton.value.kind = t == T_NONE   ? D2_CONST_NONE
                                        : t == T_TRUE ? D2_CONST_TRUE
                                                      : D2_CONST_FALSE;
        return p;
    }
    case T_LIST_PATTERN:
    case T_TUPLE_PATTERN: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (t == T_TUPLE_PATTERN && nk.n == 1 && !cst_has_tok(&ks, T_K_COMMA))
            return cst_pattern(c, nk.k[0].n); /* a group: (p) */
        d2_ast_pattern *p = cst_new_pattern(c, D2_AST_MATCH_SEQUENCE, sp);
        for (uint32_t i = 0; i < nk.n; i++)
            cst_push(c, &p->match_sequence.patterns, cst_pattern(c, nk.k[i].n));
        return p;
    }
    case T_UNION_PATTERN: {
        kids ks = cst_get_kids(c, n);
        d2_ast_pattern *p = cst_new_pattern(c, D2_AST_MATCH_OR, sp);
        uint32_t i = 0;
        d2_ast_pattern *item;
        while ((item = pattern_item(c, &ks, &i)))
            cst_push(c, &p->match_or.patterns, item); /* "(a | b) | c" stays nested */
        if (p->match_or.patterns.n < 2)
            cst_fail(c, sp, "invalid syntax");
        return p;
    }
    case T_AS_PATTERN: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (nk.n != 2 || nk.k[1].t != T_IDENTIFIER)
            cst_fail(c, sp, "invalid pattern target");
        d2_ast_pattern *p = cst_new_pattern(c, D2_AST_MATCH_AS, sp);
        p->match_as.pattern = cst_pattern(c, nk.k[0].n);
        p->match_as.name = cst_ident(c, nk.k[1].n);
        return p;
    }
    case T_SPLAT_PATTERN: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (cst_has_tok(&ks, T_K_STARSTAR))
            cst_fail(c, sp, "invalid syntax");
        d2_ast_pattern *p = cst_new_pattern(c, D2_AST_MATCH_STAR, sp);
        if (nk.n)
            p->match_star.name = cst_ident(c, nk.k[0].n);
        return p;
    }
    case T_DICT_PATTERN: {
        kids ks = cst_get_kids(c, n);
        d2_ast_pattern *p = cst_new_pattern(c, D2_AST_MATCH_MAPPING, sp);
        TSNode minus = NULL_NODE;
        bool neg = false;
        for (uint32_t i = 0; i < ks.n; i++) {
            kid *k = &ks.k[i];
            if (k->t == T_K_MINUS && k->f == c->fid[F_KEY]) {
                minus = k->n;
                neg = true;
            } else if (k->f == c->fid[F_KEY] && ts_node_is_named(k->n)) {
                if (p->match_mapping.rest)
                    cst_fail(c, cst_span_of(k->n), "invalid syntax");
                d2_ast_expr *key = pattern_value_expr(c, k->n, minus, neg);
                cst_push(c, &p->match_mapping.keys, key);
                neg = false;
            } else if (k->f == c->fid[F_VALUE]) {
                cst_push(c, &p->match_mapping.patterns, cst_pattern(c, k->n));
            } else if (k->t == T_SPLAT_PATTERN) {
                kids sk = cst_get_kids(c, k->n);
                kids sn = cst_named(c, &sk);
                if (!sn.n)
                    cst_fail(c, cst_span_of(k->n), "invalid syntax");
                p->match_mapping.rest = cst_ident(c, sn.k[0].n);
            }
        }
        if (p->match_mapping.keys.n != p->match_mapping.patterns.n)
            cst_fail(c, sp, "invalid syntax");
        return p;
    }
    case T_CLASS_PATTERN: {
        kids ks = cst_get_kids(c, n);
        kids nk = cst_named(c, &ks);
        if (!nk.n || nk.k[0].t != T_DOTTED_NAME)
            cst_fail(c, sp, "invalid syntax");
        d2_ast_pattern *p = cst_new_pattern(c, D2_AST_MATCH_CLASS, sp);
        p->match_class.cls = pattern_value_expr(c, nk.k[0].n, (TSNode)NULL_NODE, false);
        for (uint32_t i = 1; i < nk.n; i++) {
            TSNode item = nk.k[i].n;
            TSNode inner = item;
            if (nk.k[i].t == T_CASE_PATTERN) {
                kids ik = cst_get_kids(c, item);
                kids in = cst_named(c, &ik);
                if (in.n == 1 && in.k[0].t == T_KEYWORD_PATTERN)
                    inner = in.k[0].n;
            }
            if (cst_T(c, inner) == T_KEYWORD_PATTERN) {
                kids kk = cst_get_kids(c, inner);
                if (!kk.n || kk.k[0].t != T_IDENTIFIER)
                    cst_fail(c, cst_span_of(inner), "invalid syntax");
                cst_push(c, &p->match_class.kwd_attrs, (void *)cst_ident(c, kk.k[0].n));
                uint32_t j = 1;
                while (j < kk.n && kk.k[j].t == T_K_EQUAL)
                    j++;
                d2_ast_pattern *v = pattern_item(c, &kk, &j);
                if (!v)
                    cst_fail(c, cst_span_of(inner), "invalid syntax");
                cst_push(c, &p->match_class.kwd_patterns, v);
            } else {
                if (p->match_class.kwd_attrs.n)
                    cst_fail(c, cst_span_of(item), "positional patterns follow keyword patterns");
                cst_push(c, &p->match_class.patterns, cst_pattern(c, item));
            }
        }
        return p;
    }
    case T_K_UNDERSCORE: return wildcard(c, sp);
    default: break;
    }
    cst_fail(c, sp, "invalid pattern");
}

d2_ast_pattern *cst_pattern(cx *c, TSNode n)
{
    cst_enter(c, n);
    d2_ast_pattern *p = pattern_inner(c, n);
    cst_leave(c);
    return p;
}
