/* loops.c - `while` and `for` loops to nested functions and _jst.While / _jst.For.
 *
 *   while test: A ->
 *       def while_cond_L(vars): return test
 *       def while_body_L(vars): A; return vars
 *       vars = _jst.While(while_cond_L, while_body_L, (vars,), ('vars',))
 *   for target in it: A ->
 *       [def for_cond_L(vars): return _jst.Not(_break_L)]
 *       def for_body_L(target, vars): A; return vars
 *       vars = _jst.For(it, for_body_L, (vars,), ('vars',)[, for_cond_L])
 *   for ... in range(...) / enumerate(...) -> _jst.Range(...) / _jst.Enumerate(...)
 *   (enumerate(range(...)) -> _jst.Enumerate(_jst.Range(...)))
 * vars are the loop-carried variables (locals only: G[k] = v on a global
 * leaves G a global), with obj.attr assigned in the body carried through
 * _attr_obj_attr (set before each cond/body run, read back after). A Python
 * test or iterable loops in Python; a tensor one becomes a while_loop op. */
#include "transform/transform_priv.h"

#include <string.h>

/* ---- rewrite: the iterable of a for loop ---- */

/* The iterable of a for loop: range(...) -> _jst.Range(...),
 * enumerate(...) -> _jst.Enumerate(...), and a range(...) enumerated. */
void xf_rewrite_for_iter(X *x, d2_ast_stmt *s)
{
    d2_ast_expr *it = s->for_.iter;
    if (it->kind != D2_AST_CALL || it->call.func->kind != D2_AST_NAME)
        return;
    const char *id = it->call.func->name.id;
    if (strcmp(id, "range") == 0)
        it->call.func = xf_jst(x, "Range", it->call.func->span);
    else if (strcmp(id, "enumerate") == 0) {
        it->call.func = xf_jst(x, "Enumerate", it->call.func->span);
        /* enumerate(range(...)): the range may have tensor bounds too */
        d2_ast_expr *r = it->call.args.n ? it->call.args.items[0] : NULL;
        if (r && r->kind == D2_AST_CALL && r->call.func->kind == D2_AST_NAME &&
            strcmp(r->call.func->name.id, "range") == 0)
            r->call.func = xf_jst(x, "Range", r->call.func->span);
    }
}

/* ---- structure: while and for ---- */

/* while test: A ->
 *     def while_cond_L(vars): return test
 *     def while_body_L(vars): A; return vars
 *     vars = _jst.While(while_cond_L, while_body_L, (vars,), ('vars',))
 * vars: the loop-carried variables, written in the loop and live at its
 * head (read by the test, read before written in the body, or live after
 * the loop). */
void xf_structure_while(X *x, d2_ast_stmt *s, d2_ast_seq *out, nameset *defined)
{
    d2_span sp = s->span;
    info *it = xf_info_of(x, s);
    nameset w = xf_writes_of_block(x, &s->while_.body);
    xf_names_of(x, s->while_.test, NAMES_WRITES, &w);
    w = xf_locals_only(x, &w);
    nameset vars = xf_set_intersect(x, &w, &it->head);
    xf_attrs at;
    xf_attr_stores(x, &s->while_.body, NULL, &w, &at, &vars);
    const char *cname = xf_fresh_at(x, "while_cond", sp), *bname = xf_fresh_at(x, "while_body", sp);
    d2_ast_seq cbody = {0, 0, NULL}, sets = {0, 0, NULL};
    xf_attr_push(x, &cbody, &at, false, sp);
    xf_attr_push(x, &sets, &at, false, sp);
    xf_push(x, &cbody, xf_chk(x, d2_ast_return(x->a, s->while_.test, sp)));
    xf_push(x, out, xf_funcdef(x, cname, NULL, &vars, cbody, sp));
    d2_ast_seq body = xf_attr_body(x, &s->while_.body, &at, sp);
    xf_push(x, out, xf_funcdef(x, bname, NULL, &vars, xf_fn_body(x, &body, &vars, &vars, sets, sp),
                               sp));
    xf_attr_push(x, out, &at, true, sp);
    for (int i = 0; i < at.n; i++)
        xf_set_add(x, defined, at.syn[i]);
    xf_undefined_inits(x, out, &vars, defined, sp);
    d2_ast_seq args = {0, 0, NULL};
    xf_push(x, &args, xf_name_load(x, cname, sp));
    xf_push(x, &args, xf_name_load(x, bname, sp));
    xf_push(x, &args, xf_names_tuple(x, &vars, sp));
    xf_push(x, &args, xf_strings_tuple(x, &vars, sp));
    xf_push(x, out, xf_run_helper(x, &vars, xf_call(x, xf_jst(x, "While", sp), args, sp), sp));
    xf_attr_push(x, out, &at, false, sp);
    xf_set_union_into(x, defined, &vars);
}

/* for target in it: A ->
 *     [def for_cond_L(vars): return _jst.Not(_break_L)]
 *     def for_body_L(target, vars): A; return vars
 *     vars = _jst.For(it, for_body_L, (vars,), ('vars',)[, for_cond_L])
 * The body function takes the item as its first parameter: the target
 * itself when it is a plain name that is not carried, else _item_L, bound
 * to the target by the body's first statement. vars as for while; the
 * target is one when it is used after the loop. */
void xf_structure_for(X *x, d2_ast_stmt *s, d2_ast_seq *out, nameset *defined)
{
    d2_span sp = s->span;
    info *it = xf_info_of(x, s);
    nameset w = xf_writes_of_block(x, &s->for_.body);
    xf_names_of(x, s->for_.target, NAMES_WRITES, &w);
    w = xf_locals_only(x, &w);
    nameset vars = xf_set_intersect(x, &w, &it->head);
    xf_attrs at;
    xf_attr_stores(x, &s->for_.body, NULL, &w, &at, &vars);
    const d2_ast_expr *t = s->for_.target;
    const char *item;
    d2_ast_seq prologue = {0, 0, NULL};
    nameset params = xf_set_copy(x, &vars);
    if (t->kind == D2_AST_NAME && !xf_set_has(&vars, t->name.id)) {
        item = t->name.id;
        xf_set_add(x, &params, item);
    } else {
        item = xf_fresh_at(x, "_item", sp);
        xf_push(x, &prologue, xf_assign(x, s->for_.target, xf_name_load(x, item, sp), t->span));
    }
    xf_attr_push(x, &prologue, &at, false, sp);
    const char *cname = NULL;
    if (it->brk) {
        cname = xf_fresh_at(x, "for_cond", sp);
        d2_ast_expr *test = xf_jst_not(x, xf_name_load(x, it->brk, sp), sp);
        xf_push(x, out, xf_funcdef(x, cname, NULL, &vars, xf_seq1(x, xf_chk(x, d2_ast_return(x->a, test, sp))), sp));
    }
    const char *bname = xf_fresh_at(x, "for_body", sp);
    d2_ast_seq body = xf_attr_body(x, &s->for_.body, &at, sp);
    xf_push(x, out, xf_funcdef(x, bname, item, &vars,
                               xf_fn_body(x, &body, &params, &vars, prologue, sp), sp));
    xf_attr_push(x, out, &at, true, sp);
    for (int i = 0; i < at.n; i++)
        xf_set_add(x, defined, at.syn[i]);
    xf_undefined_inits(x, out, &vars, defined, sp);
    d2_ast_seq args = {0, 0, NULL};
    xf_push(x, &args, s->for_.iter);
    xf_push(x, &args, xf_name_load(x, bname, sp));
    xf_push(x, &args, xf_names_tuple(x, &vars, sp));
    xf_push(x, &args, xf_strings_tuple(x, &vars, sp));
    if (cname)
        xf_push(x, &args, xf_name_load(x, cname, sp));
    xf_push(x, out, xf_run_helper(x, &vars, xf_call(x, xf_jst(x, "For", sp), args, sp), sp));
    xf_attr_push(x, out, &at, false, sp);
    xf_set_union_into(x, defined, &vars);
}
