/* logical.c - boolean operators and conditional expressions to _jst helpers.
 *
 *   a and b and c    -> _jst.And(lambda: a, lambda: b, lambda: c)
 *   a or b           -> _jst.Or(lambda: a, lambda: b)
 *   not x            -> _jst.Not(x)
 *   a if c else b    -> _jst.IfExp(c, lambda: a, lambda: b)
 * and/or with a := in an operand, or a conditional with one in a branch,
 * stays as written (the thunk would capture the binding). The flag guards
 * of jumps.c and loops.c are built with the same _jst.Not and _jst.And. */
#include "transform/transform_priv.h"

/* ---- _jst.Not and _jst.And nodes ---- */

d2_ast_expr *xf_jst_not(X *x, d2_ast_expr *v, d2_span sp)
{
    return xf_call1(x, xf_jst(x, "Not", sp), v, sp);
}

/* _jst.And(lambda: a, lambda: b) */
d2_ast_expr *xf_jst_and2(X *x, d2_ast_expr *a, d2_ast_expr *b, d2_span sp)
{
    d2_ast_seq args = {0, 0, NULL};
    xf_push(x, &args, xf_thunk(x, a));
    xf_push(x, &args, xf_thunk(x, b));
    return xf_call(x, xf_jst(x, "And", sp), args, sp);
}

/* ---- and/or, a if c else b ---- */

static bool has_named_expr_visit(X *x, const d2_ast_node *n, void *ud)
{
    (void)x;
    if (n->kind == D2_AST_NAMED_EXPR)
        *(bool *)ud = true;
    return n->kind == D2_AST_LAMBDA;
}

/* Whether an operand binds a name with :=, which a thunk would capture. */
static bool has_named_expr(X *x, const void *node)
{
    bool found = false;
    xf_walk(x, node, has_named_expr_visit, &found);
    return found;
}

/* a and b and c -> _jst.And(lambda: a, lambda: b, lambda: c), keeping the
 * short-circuit order; `or` likewise. */
d2_ast_expr *xf_rewrite_bool_op(X *x, d2_ast_expr *e)
{
    if (has_named_expr(x, e))
        return e;
    d2_ast_seq args = {0, 0, NULL};
    for (uint32_t i = 0; i < e->bool_op.values.n; i++)
        xf_push(x, &args, xf_thunk(x, e->bool_op.values.items[i]));
    return xf_call(x, xf_jst(x, e->bool_op.op == D2_BOOLOP_AND ? "And" : "Or", e->span), args,
                   e->span);
}

/* a if c else b -> _jst.IfExp(c, lambda: a, lambda: b) */
d2_ast_expr *xf_rewrite_if_exp(X *x, d2_ast_expr *e)
{
    if (has_named_expr(x, e->if_exp.body) || has_named_expr(x, e->if_exp.orelse))
        return e;
    d2_ast_seq args = {0, 0, NULL};
    xf_push(x, &args, e->if_exp.test);
    xf_push(x, &args, xf_thunk(x, e->if_exp.body));
    xf_push(x, &args, xf_thunk(x, e->if_exp.orelse));
    return xf_call(x, xf_jst(x, "IfExp", e->span), args, e->span);
}
