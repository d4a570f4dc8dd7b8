/* jumps.c - return, break and continue inside converted control flow to flag variables.
 *
 *   if c: <exit> followed by more statements
 *                 -> the statements move into the other branch, so every
 *                    return, break, continue and raise ends its block
 *   return v      -> [_return_flag = True;] _return_value = v [; break];
 *                    the statements after one that may have returned run
 *                    under `if _jst.Not(_return_flag):` (in an enclosing
 *                    loop, `if _return_flag: break`). The driver sets
 *                    _return_flag = False first and ends the function with
 *                    return _return_value.
 *   break         -> _break_L = True, with _break_L = False before the loop
 *                    and `_jst.And(lambda: _jst.Not(_break_L), lambda: test)`
 *                    as a while test (a for loop's cond_fn, see loops.c)
 *   continue      -> _continue_L = True, reset at the top of the body (a
 *                    continue that ends its iteration anyway becomes pass)
 *   the statements after a break or continue that may have run go under
 *   `if _jst.Not(flag):`. */
#include "transform/transform_priv.h"

/* ---- normalize: exits end their block ---- */

static bool is_exit(const d2_ast_stmt *s)
{
    return s->kind == D2_AST_RETURN || s->kind == D2_AST_BREAK || s->kind == D2_AST_CONTINUE ||
           s->kind == D2_AST_RAISE;
}

/* Whether control never runs past the end of b. */
bool xf_terminates(const d2_ast_seq *b)
{
    if (b->n == 0)
        return false;
    const d2_ast_stmt *s = b->items[b->n - 1];
    if (is_exit(s))
        return true;
    if (s->kind == D2_AST_IF)
        return s->if_.orelse.n && xf_terminates(&s->if_.body) && xf_terminates(&s->if_.orelse);
    if (s->kind == D2_AST_WITH)
        return xf_terminates(&s->with.body);
    return false;
}

/* if c: <exits> followed by more statements -> if c: <exits> else: <more>
 * (and the mirror case), recursively; statements after an exit are dead
 * and dropped. Afterwards return/break/continue end their blocks. */
void xf_normalize_block(X *x, d2_ast_seq *b)
{
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_IF:
        case D2_AST_WHILE:
            xf_normalize_block(x, &s->if_.body);
            xf_normalize_block(x, &s->if_.orelse);
            break;
        case D2_AST_FOR:
            xf_normalize_block(x, &s->for_.body);
            xf_normalize_block(x, &s->for_.orelse);
            break;
        case D2_AST_WITH: xf_normalize_block(x, &s->with.body); break;
        default: break;
        }
        if (is_exit(s) || (s->kind == D2_AST_IF && xf_terminates(&s->if_.body) &&
                           xf_terminates(&s->if_.orelse))) {
            b->n = i + 1;
            return;
        }
        if (s->kind != D2_AST_IF || i + 1 == b->n)
            continue;
        bool bt = xf_terminates(&s->if_.body), et = xf_terminates(&s->if_.orelse);
        if (!bt && !et)
            continue;
        d2_ast_seq *into = bt ? &s->if_.orelse : &s->if_.body;
        for (uint32_t k = i + 1; k < b->n; k++)
            xf_push(x, into, b->items[k]);
        b->n = i + 1;
        xf_normalize_block(x, into);
        return;
    }
}

/* ---- returns: flag and value ---- */

/* Whether b holds a return inside an if, while or for (through with). */
bool xf_return_in_control(const d2_ast_seq *b, bool inside)
{
    for (uint32_t i = 0; i < b->n; i++) {
        const d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_RETURN:
            if (inside)
                return true;
            break;
        case D2_AST_IF:
        case D2_AST_WHILE:
            if (xf_return_in_control(&s->if_.body, true) ||
                xf_return_in_control(&s->if_.orelse, true))
                return true;
            break;
        case D2_AST_FOR:
            if (xf_return_in_control(&s->for_.body, true))
                return true;
            break;
        case D2_AST_WITH:
            if (xf_return_in_control(&s->with.body, inside))
                return true;
            break;
        default: break;
        }
    }
    return false;
}

static bool has_return(const d2_ast_stmt *s)
{
    d2_ast_seq one = {1, 1, (void **)&s};
    return s->kind == D2_AST_RETURN || xf_return_in_control(&one, true);
}

/* Whether some return of b is not the last thing the function does. */
bool xf_nontail_return(const d2_ast_seq *b, bool tail)
{
    for (uint32_t i = 0; i < b->n; i++) {
        const d2_ast_stmt *s = b->items[i];
        bool last_tail = tail && i + 1 == b->n;
        switch (s->kind) {
        case D2_AST_RETURN:
            if (!last_tail)
                return true;
            break;
        case D2_AST_IF:
            if (xf_nontail_return(&s->if_.body, last_tail) || xf_nontail_return(&s->if_.orelse, last_tail))
                return true;
            break;
        case D2_AST_WITH:
            if (xf_nontail_return(&s->with.body, last_tail))
                return true;
            break;
        case D2_AST_WHILE:
        case D2_AST_FOR:
            if (has_return(s))
                return true;
            break;
        default: break;
        }
    }
    return false;
}

/* return v -> [_return_flag = True;] _return_value = v [; break]. In a
 * loop the break leaves it (the exits pass turns it into a flag); after a
 * loop that may have returned, `if _return_flag: break` leaves the outer
 * loop too; outside loops the statements after one that may have returned
 * run under `if not _return_flag`. */
d2_ast_seq xf_returns_block(X *x, const d2_ast_seq *b, bool in_loop, bool tail)
{
    d2_ast_seq out = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        bool last = i + 1 == b->n;
        if (s->kind == D2_AST_RETURN) {
            d2_span sp = s->span;
            if (x->ret_flag && !(tail && last && !in_loop))
                xf_push(x, &out, xf_assign_flag(x, x->ret_flag, true, sp));
            d2_ast_expr *v = s->return_.value ? s->return_.value
                                              : xf_chk(x, d2_ast_const_simple(x->a, D2_CONST_NONE, sp));
            xf_push(x, &out, xf_assign(x, xf_name_store(x, x->ret_value, sp), v, sp));
            if (in_loop)
                xf_push(x, &out, xf_chk(x, d2_ast_simple_stmt(x->a, D2_AST_BREAK, sp)));
            return out;
        }
        bool returns = has_return(s);
        switch (s->kind) {
        case D2_AST_IF:
            s->if_.body = xf_returns_block(x, &s->if_.body, in_loop, tail && last);
            s->if_.orelse = xf_returns_block(x, &s->if_.orelse, in_loop, tail && last);
            break;
        case D2_AST_WITH: s->with.body = xf_returns_block(x, &s->with.body, in_loop, tail && last); break;
        case D2_AST_WHILE:
            s->while_.body = xf_returns_block(x, &s->while_.body, true, false);
            break;
        case D2_AST_FOR: s->for_.body = xf_returns_block(x, &s->for_.body, true, false); break;
        default: break;
        }
        xf_push(x, &out, s);
        bool inner_loop = in_loop && (s->kind == D2_AST_WHILE || s->kind == D2_AST_FOR);
        if (!returns || !x->ret_flag || (last && !inner_loop))
            continue;
        d2_ast_seq rest = {b->n - i - 1, b->n - i - 1, b->items + i + 1};
        d2_span sp = s->span;
        if (inner_loop) {
            xf_push(x, &out,
                    xf_if_stmt(x, xf_name_load(x, x->ret_flag, sp),
                               xf_seq1(x, xf_chk(x, d2_ast_simple_stmt(x->a, D2_AST_BREAK, sp))),
                               xf_returns_block(x, &rest, in_loop, tail), sp));
            return out;
        }
        if (!in_loop) {
            d2_ast_seq none = {0, 0, NULL};
            sp = ((const d2_ast_stmt *)rest.items[0])->span;
            xf_push(x, &out, xf_if_stmt(x, xf_jst_not(x, xf_name_load(x, x->ret_flag, sp), sp),
                                        xf_returns_block(x, &rest, in_loop, tail), none, sp));
            return out;
        }
    }
    return out;
}

/* ---- exits: break and continue to flags ---- */

/* Whether b holds a statement of kind k belonging to the enclosing loop. */
static bool has_exit(const d2_ast_seq *b, d2_ast_kind k)
{
    for (uint32_t i = 0; i < b->n; i++) {
        const d2_ast_stmt *s = b->items[i];
        if (s->kind == k)
            return true;
        if (s->kind == D2_AST_IF && (has_exit(&s->if_.body, k) || has_exit(&s->if_.orelse, k)))
            return true;
        if (s->kind == D2_AST_WITH && has_exit(&s->with.body, k))
            return true;
    }
    return false;
}

static bool stmt_has_exit(const d2_ast_stmt *s, d2_ast_kind k)
{
    d2_ast_seq one = {1, 1, (void **)&s};
    return has_exit(&one, k);
}

/* Whether some continue of b is not the last thing its iteration does. */
static bool nontail_continue(const d2_ast_seq *b, bool tail)
{
    for (uint32_t i = 0; i < b->n; i++) {
        const d2_ast_stmt *s = b->items[i];
        bool last_tail = tail && i + 1 == b->n;
        if (s->kind == D2_AST_CONTINUE && !last_tail)
            return true;
        if (s->kind == D2_AST_IF &&
            (nontail_continue(&s->if_.body, last_tail) || nontail_continue(&s->if_.orelse, last_tail)))
            return true;
        if (s->kind == D2_AST_WITH && nontail_continue(&s->with.body, last_tail))
            return true;
    }
    return false;
}

/* A continue that ends its iteration anyway becomes pass. */
static void tail_continue_to_pass(X *x, d2_ast_seq *b)
{
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        if (s->kind == D2_AST_CONTINUE)
            b->items[i] = xf_chk(x, d2_ast_simple_stmt(x->a, D2_AST_PASS, s->span));
        else if (s->kind == D2_AST_IF) {
            tail_continue_to_pass(x, &s->if_.body);
            tail_continue_to_pass(x, &s->if_.orelse);
        } else if (s->kind == D2_AST_WITH)
            tail_continue_to_pass(x, &s->with.body);
    }
}

/* break -> brk = True, continue -> cont = True (a NULL flag leaves that kind
 * alone); the statements after one that may have set a flag run under
 * `if not flag`. */
static d2_ast_seq exits_block(X *x, const d2_ast_seq *b, const char *brk, const char *cont)
{
    d2_ast_seq out = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        if ((s->kind == D2_AST_BREAK && brk) || (s->kind == D2_AST_CONTINUE && cont)) {
            xf_push(x, &out,
                    xf_assign_flag(x, s->kind == D2_AST_BREAK ? brk : cont, true, s->span));
            return out;
        }
        bool hb = brk && stmt_has_exit(s, D2_AST_BREAK);
        bool hc = cont && stmt_has_exit(s, D2_AST_CONTINUE);
        if (s->kind == D2_AST_IF) {
            s->if_.body = exits_block(x, &s->if_.body, brk, cont);
            s->if_.orelse = exits_block(x, &s->if_.orelse, brk, cont);
        } else if (s->kind == D2_AST_WITH) {
            s->with.body = exits_block(x, &s->with.body, brk, cont);
        }
        xf_push(x, &out, s);
        if ((!hb && !hc) || i + 1 == b->n)
            continue;
        d2_span sp = ((const d2_ast_stmt *)b->items[i + 1])->span;
        d2_ast_expr *guard;
        if (hb && hc)
            guard = xf_jst_and2(x, xf_jst_not(x, xf_name_load(x, brk, sp), sp),
                                xf_jst_not(x, xf_name_load(x, cont, sp), sp), sp);
        else
            guard = xf_jst_not(x, xf_name_load(x, hb ? brk : cont, sp), sp);
        d2_ast_seq rest = {b->n - i - 1, b->n - i - 1, b->items + i + 1};
        d2_ast_seq none = {0, 0, NULL};
        xf_push(x, &out, xf_if_stmt(x, guard, exits_block(x, &rest, brk, cont), none, sp));
        return out;
    }
    return out;
}

/* Converts the break/continue statements of every loop in b (inner loops
 * first). A loop with break gets `_break_L = False` before it and the flag
 * in its test (for loops: recorded for the For helper's cond_fn); a loop
 * with a continue that is not last gets `_continue_L = False` at the top
 * of its body. */
d2_ast_seq xf_loops_block(X *x, d2_ast_seq *b)
{
    d2_ast_seq out = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_IF:
            s->if_.body = xf_loops_block(x, &s->if_.body);
            s->if_.orelse = xf_loops_block(x, &s->if_.orelse);
            break;
        case D2_AST_WITH: s->with.body = xf_loops_block(x, &s->with.body); break;
        case D2_AST_WHILE:
        case D2_AST_FOR: {
            d2_ast_seq *body = s->kind == D2_AST_WHILE ? &s->while_.body : &s->for_.body;
            *body = xf_loops_block(x, body);
            const char *brk = NULL, *cont = NULL;
            if (has_exit(body, D2_AST_CONTINUE)) {
                if (nontail_continue(body, true))
                    cont = xf_fresh_at(x, "_continue", s->span);
                else
                    tail_continue_to_pass(x, body);
            }
            if (has_exit(body, D2_AST_BREAK))
                brk = xf_fresh_at(x, "_break", s->span);
            if (brk || cont)
                *body = exits_block(x, body, brk, cont);
            if (cont) {
                d2_ast_seq nb = xf_seq1(x, xf_assign_flag(x, cont, false, s->span));
                for (uint32_t k = 0; k < body->n; k++)
                    xf_push(x, &nb, body->items[k]);
                *body = nb;
            }
            if (brk) {
                xf_push(x, &out, xf_assign_flag(x, brk, false, s->span));
                if (s->kind == D2_AST_WHILE)
                    s->while_.test =
                        xf_jst_and2(x, xf_jst_not(x, xf_name_load(x, brk, s->span), s->span),
                                    s->while_.test, s->span);
                else
                    xf_info_of(x, s)->brk = brk;
            }
            break;
        }
        default: break;
        }
        xf_push(x, &out, s);
    }
    return out;
}
