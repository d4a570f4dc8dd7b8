/* ifelse.c - `if` statements to nested branch functions and _jst.IfElse.
 *
 *   if test: A else: B ->
 *       def if_true_L(params): A; return results
 *       def if_false_L(params): B; return results
 *       results = _jst.IfElse(test, if_true_L, if_false_L, (params,), ('results',))
 * The helper runs one branch for a Python test and builds a cond op for a
 * tensor one; a param not assigned yet starts as _jst.UndefinedVar('name'). */
#include "transform/transform_priv.h"

/* ---- structure: if ---- */

/* if test: A else: B ->
 *     def if_true_L(params): A; return results
 *     def if_false_L(params): B; return results
 *     results = _jst.IfElse(test, if_true_L, if_false_L, (params,), ('results',))
 * results: variables written in a branch and live after the if; params:
 * those of them (and of the branches' other written variables) read
 * before being written, or passed through by a branch that leaves them. */
void xf_structure_if(X *x, d2_ast_stmt *s, d2_ast_seq *out, nameset *defined)
{
    d2_span sp = s->span;
    info *it = xf_info_of(x, s);
    nameset w = xf_writes_of_block(x, &s->if_.body);
    nameset we = xf_writes_of_block(x, &s->if_.orelse);
    xf_set_union_into(x, &w, &we);
    w = xf_locals_only(x, &w);
    nameset results = xf_set_intersect(x, &w, &it->out);
    nameset live_in = xf_set_union(x, &it->in_body, &it->in_orelse);
    nameset params = xf_set_intersect(x, &w, &live_in);
    xf_attrs at;
    xf_attr_stores(x, &s->if_.body, &s->if_.orelse, &w, &at, &params);
    for (int i = 0; i < at.n; i++)
        xf_set_add(x, &results, at.syn[i]);
    const char *tname = xf_fresh_at(x, "if_true", sp), *fname = xf_fresh_at(x, "if_false", sp);
    d2_ast_seq sets = {0, 0, NULL};
    xf_attr_push(x, &sets, &at, false, sp);
    d2_ast_seq tb = xf_attr_body(x, &s->if_.body, &at, sp);
    d2_ast_seq fb = xf_attr_body(x, &s->if_.orelse, &at, sp);
    xf_push(x, out, xf_funcdef(x, tname, NULL, &params, xf_fn_body(x, &tb, &params, &results, sets, sp),
                               sp));
    d2_ast_seq sets2 = {0, 0, NULL};
    xf_attr_push(x, &sets2, &at, false, sp);
    xf_push(x, out, xf_funcdef(x, fname, NULL, &params, xf_fn_body(x, &fb, &params, &results, sets2, sp),
                               sp));
    xf_attr_push(x, out, &at, true, sp);
    for (int i = 0; i < at.n; i++)
        xf_set_add(x, defined, at.syn[i]);
    xf_undefined_inits(x, out, &params, defined, sp);
    d2_ast_seq args = {0, 0, NULL};
    xf_push(x, &args, s->if_.test);
    xf_push(x, &args, xf_name_load(x, tname, sp));
    xf_push(x, &args, xf_name_load(x, fname, sp));
    xf_push(x, &args, xf_names_tuple(x, &params, sp));
    xf_push(x, &args, xf_strings_tuple(x, &results, sp));
    xf_push(x, out, xf_run_helper(x, &results, xf_call(x, xf_jst(x, "IfElse", sp), args, sp), sp));
    xf_attr_push(x, out, &at, false, sp);
    xf_set_union_into(x, defined, &results);
}
