/* transform_priv.h - shared by the transform files: state, name sets, node builders, passes. */
#ifndef DY2ST_TRANSFORM_PRIV_H
#define DY2ST_TRANSFORM_PRIV_H

#include "transform/transform.h"

#include <setjmp.h>

/* ---- name sets (sorted arrays of identifiers, in the scratch arena) ---- */

typedef struct nameset {
    uint32_t n, cap;
    const char **v;
} nameset;

/* The analysis record of a statement (names.c: xf_info_of). */
typedef struct info {
    const d2_ast_stmt *s;
    nameset out;                /* live after the statement */
    nameset head;               /* loops: live at the loop head */
    nameset in_body, in_orelse; /* if: live at the start of each branch */
    const char *brk;            /* loops: the break flag, or NULL */
} info;

/* The state of one function's conversion. Allocation failure anywhere
 * longjmps to oom (set by d2_xform_function). */
typedef struct X {
    d2_arena *a;   /* the AST's arena: every node made here */
    d2_arena *tmp; /* scratch: sets and tables, freed when done */
    jmp_buf oom;
    d2_diag *diag;
    const d2_xform_options *opt;
    const char *fname;
    const char *self_name; /* first parameter, for super() */
    nameset used;          /* identifiers of the function: made names avoid them */
    info *infos;
    size_t ninfo, capinfo;
    const char *ret_flag, *ret_value;
    int problems;
    const d2_ast_stmt *fn; /* the function being converted (the copy) */
    nameset bound;         /* its parameters and the names it binds, once needed */
    bool bound_ready;
} X;

/* Calls f on node and, unless f returns true ("handled"), on every child
 * node in field order. */
typedef bool (*visit_fn)(X *x, const d2_ast_node *n, void *ud);

/* What xf_names_of collects: the names a node may change (bound, or
 * stored through as in x[i] = v and x.append(v)), the names it binds (the
 * liveness pass's kill set) or the names it reads. */
enum { NAMES_WRITES, NAMES_KILLS, NAMES_USES };

/* ---- names.c: name sets, traversal, names read and written, fresh names, liveness ---- */

void *xf_chk(X *x, void *p); /* p, or a longjmp to x->oom when NULL */
nameset xf_set_copy(X *x, const nameset *s);
bool xf_set_has(const nameset *s, const char *name);
void xf_set_add(X *x, nameset *s, const char *name);
void xf_set_union_into(X *x, nameset *s, const nameset *t);
nameset xf_set_union(X *x, const nameset *s, const nameset *t);
nameset xf_set_intersect(X *x, const nameset *s, const nameset *t);
info *xf_info_of(X *x, const d2_ast_stmt *s);
void xf_walk(X *x, const void *node, visit_fn f, void *ud);
bool xf_is_mutator(const char *attr);
void xf_names_of(X *x, const void *node, int mode, nameset *set);
nameset xf_writes_of_block(X *x, const d2_ast_seq *b);
bool xf_used_visit(X *x, const d2_ast_node *n, void *ud); /* adds to x->used */
const char *xf_fresh(X *x, const char *base);
const char *xf_fresh_at(X *x, const char *base, d2_span span); /* base_L, L = span's line */
/* Whether name is a parameter of the function or a name it binds; s without
 * the names that are not (globals stored through, as in G[k] = v). */
bool xf_is_local(X *x, const char *name);
nameset xf_locals_only(X *x, const nameset *s);
/* Names live before b given those live after it; records on each if and
 * loop of b what the structure pass needs (xf_info_of). */
nameset xf_live_block(X *x, const d2_ast_seq *b, const nameset *out);

/* ---- nodes.c: node construction (every node spans the user's construct), deep copy ---- */

void *xf_copy(X *x, const void *node);
void xf_push(X *x, d2_ast_seq *s, void *item);
d2_ast_expr *xf_name_load(X *x, const char *id, d2_span sp);
d2_ast_expr *xf_name_store(X *x, const char *id, d2_span sp);
d2_ast_expr *xf_jst(X *x, const char *helper, d2_span sp); /* _jst.<helper> */
d2_ast_expr *xf_call(X *x, d2_ast_expr *func, d2_ast_seq args, d2_span sp);
d2_ast_expr *xf_call1(X *x, d2_ast_expr *func, d2_ast_expr *arg, d2_span sp);
d2_ast_expr *xf_str_const(X *x, const char *s, d2_span sp);
d2_ast_expr *xf_thunk(X *x, d2_ast_expr *body); /* lambda: body */
d2_ast_stmt *xf_assign(X *x, d2_ast_expr *target, d2_ast_expr *value, d2_span sp);
d2_ast_stmt *xf_assign_flag(X *x, const char *flag, bool v, d2_span sp);
d2_ast_stmt *xf_expr_stmt(X *x, d2_ast_expr *e);
d2_ast_stmt *xf_if_stmt(X *x, d2_ast_expr *test, d2_ast_seq body, d2_ast_seq orelse, d2_span sp);
d2_ast_seq xf_seq1(X *x, void *item);
d2_ast_expr *xf_names_tuple(X *x, const nameset *s, d2_span sp);
d2_ast_expr *xf_strings_tuple(X *x, const nameset *s, d2_span sp);
d2_ast_expr *xf_packed(X *x, const nameset *s, d2_span sp);
d2_ast_expr *xf_packed_target(X *x, const nameset *s, d2_span sp);
d2_ast_stmt *xf_funcdef(X *x, const char *name, const char *first, const nameset *params,
                        d2_ast_seq body, d2_span sp);

/* ---- check.c: syntax the transforms cannot convert ---- */

d2_span xf_keyword_span(d2_span sp, uint32_t k);
void xf_unsupported(X *x, d2_span sp, const char *fmt, const char *arg);
void xf_check_block(X *x, const d2_ast_seq *b, const nameset *written);

/* ---- calls.c, logical.c: the expression pass ---- */

void xf_rewrite_block(X *x, d2_ast_seq *b, int ctl);
d2_ast_expr *xf_rewrite_bool_op(X *x, d2_ast_expr *e);
d2_ast_expr *xf_rewrite_if_exp(X *x, d2_ast_expr *e);
d2_ast_expr *xf_jst_not(X *x, d2_ast_expr *v, d2_span sp);                  /* _jst.Not(v) */
d2_ast_expr *xf_jst_and2(X *x, d2_ast_expr *a, d2_ast_expr *b, d2_span sp); /* _jst.And */

/* ---- jumps.c: normalize, returns, exits ---- */

bool xf_terminates(const d2_ast_seq *b);
void xf_normalize_block(X *x, d2_ast_seq *b);
bool xf_return_in_control(const d2_ast_seq *b, bool inside);
bool xf_nontail_return(const d2_ast_seq *b, bool tail);
d2_ast_seq xf_returns_block(X *x, const d2_ast_seq *b, bool in_loop, bool tail);
d2_ast_seq xf_loops_block(X *x, d2_ast_seq *b);

/* ---- structure: transform.c (scaffolding), ifelse.c, loops.c ---- */

/* Attributes of names (obj.attr) assigned inside an if or loop body: each is
 * carried through a made local (syn) like a variable, so a tensor assigned to
 * self.x inside a tensor loop leaves it as the loop's result. */
#define XF_MAX_ATTRS 16
typedef struct xf_attrs {
    int n;
    const char *obj[XF_MAX_ATTRS], *attr[XF_MAX_ATTRS], *syn[XF_MAX_ATTRS];
} xf_attrs;
/* The attribute stores of b1 and b2 (b2 may be NULL) through names not in
 * written; their locals are added to vars. */
void xf_attr_stores(X *x, const d2_ast_seq *b1, const d2_ast_seq *b2, const nameset *written,
                    xf_attrs *out, nameset *vars);
/* Pushes `syn = _jst.GetAttr(obj, 'attr')` (get) or `_jst.SetAttr(obj, 'attr', syn)` for each. */
void xf_attr_push(X *x, d2_ast_seq *s, const xf_attrs *a, bool get, d2_span sp);
/* b followed by the gets. */
d2_ast_seq xf_attr_body(X *x, const d2_ast_seq *b, const xf_attrs *a, d2_span sp);
void xf_undefined_inits(X *x, d2_ast_seq *out, const nameset *vars, nameset *defined, d2_span sp);
d2_ast_seq xf_fn_body(X *x, const d2_ast_seq *b, const nameset *params, const nameset *results,
                      d2_ast_seq prologue, d2_span sp);
void xf_params_of(X *x, const d2_ast_arguments *a, nameset *s);
d2_ast_stmt *xf_run_helper(X *x, const nameset *results, d2_ast_expr *c, d2_span sp);
void xf_structure_if(X *x, d2_ast_stmt *s, d2_ast_seq *out, nameset *defined);
void xf_structure_while(X *x, d2_ast_stmt *s, d2_ast_seq *out, nameset *defined);
void xf_structure_for(X *x, d2_ast_stmt *s, d2_ast_seq *out, nameset *defined);
void xf_rewrite_for_iter(X *x, d2_ast_stmt *s);

#endif
