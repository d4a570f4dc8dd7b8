/* transform.c - to_static's source-to-source transforms: control flow, early exits and boolean ops to _jst helper calls. */
#include "transform/transform.h"
#include "syntax/unparse.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

/* The pipeline for one function (check reads the caller's tree; the other
 * passes work on a private deep copy of it, so it is never touched):
 *   check       unsupported syntax -> diagnostics and a fallback status
 *   rewrite     expressions: and/or/not, a if c else b, print, assert, casts,
 *               len, calls -> _jst helpers
 *   normalize   `if c: <exit>` followed by more statements moves them into
 *               the other branch, so exits end their block
 *   returns     return inside if/loops -> return flag and value
 *   exits       break/continue -> flags folded into loop tests and guards
 *   liveness    live variables after each if and at each loop head
 *   structure   if/while/for -> nested functions plus _jst.IfElse/While/For
 * Names the passes make (if_true_12, _break_20, ...) never clash with the
 * function's own names. Allocation failure anywhere longjmps back to
 * d2_xform_function, which reports it; nothing outside this file jumps. */

/* ---- name sets (sorted arrays of identifiers, in the scratch arena) ---- */

typedef struct nameset {
    uint32_t n, cap;
    const char **v;
} nameset;

typedef struct info {
    const d2_ast_stmt *s;
    nameset out;                /* live after the statement */
    nameset head;               /* loops: live at the loop head */
    nameset in_body, in_orelse; /* if: live at the start of each branch */
    const char *brk;            /* loops: the break flag, or NULL */
} info;

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
} X;

static void *chk(X *x, void *p)
{
    if (!p)
        longjmp(x->oom, 1);
    return p;
}

static void *tmp_alloc(X *x, size_t n) { return chk(x, d2_arena_alloc(x->tmp, n)); }

static nameset set_copy(X *x, const nameset *s)
{
    nameset r = {s->n, s->n, NULL};
    if (s->n) {
        r.v = tmp_alloc(x, s->n * sizeof *r.v);
        memcpy(r.v, s->v, s->n * sizeof *r.v);
    }
    return r;
}

/* Index of name in s, or where it would go (with *found false). */
static uint32_t set_find(const nameset *s, const char *name, bool *found)
{
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->v[mid], name);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

static bool set_has(const nameset *s, const char *name)
{
    bool found;
    set_find(s, name, &found);
    return found;
}

static void set_add(X *x, nameset *s, const char *name)
{
    bool found;
    uint32_t at = set_find(s, name, &found);
    if (found)
        return;
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 8;
        const char **v = tmp_alloc(x, cap * sizeof *v);
        if (s->n)
            memcpy(v, s->v, s->n * sizeof *v);
        s->v = v;
        s->cap = cap;
    }
    memmove(s->v + at + 1, s->v + at, (s->n - at) * sizeof *s->v);
    s->v[at] = name;
    s->n++;
}

static void set_union_into(X *x, nameset *s, const nameset *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        set_add(x, s, t->v[i]);
}

static nameset set_union(X *x, const nameset *s, const nameset *t)
{
    nameset r = set_copy(x, s);
    set_union_into(x, &r, t);
    return r;
}

static nameset set_minus(X *x, const nameset *s, const nameset *t)
{
    nameset r = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        if (!set_has(t, s->v[i]))
            set_add(x, &r, s->v[i]);
    return r;
}

static nameset set_intersect(X *x, const nameset *s, const nameset *t)
{
    nameset r = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        if (set_has(t, s->v[i]))
            set_add(x, &r, s->v[i]);
    return r;
}

static bool set_equal(const nameset *s, const nameset *t)
{
    if (s->n != t->n)
        return false;
    for (uint32_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], t->v[i]) != 0)
            return false;
    return true;
}

/* The analysis record of statement s, made on first use. */
static info *info_of(X *x, const d2_ast_stmt *s)
{
    for (size_t i = 0; i < x->ninfo; i++)
        if (x->infos[i].s == s)
            return &x->infos[i];
    if (x->ninfo == x->capinfo) {
        size_t cap = x->capinfo ? x->capinfo * 2 : 16;
        info *v = tmp_alloc(x, cap * sizeof *v);
        if (x->ninfo)
            memcpy(v, x->infos, x->ninfo * sizeof *v);
        x->infos = v;
        x->capinfo = cap;
    }
    info *it = &x->infos[x->ninfo++];
    memset(it, 0, sizeof *it);
    it->s = s;
    return it;
}

/* ---- generic traversal through the field tables ---- */

/* Calls f on node and, unless f returns true ("handled"), on every child
 * node in field order. */
typedef bool (*visit_fn)(X *x, const d2_ast_node *n, void *ud);

static void walk(X *x, const void *node, visit_fn f, void *ud)
{
    if (!node)
        return;
    const d2_ast_node *n = node;
    if (f(x, n, ud))
        return;
    size_t nf;
    const d2_ast_field *fs = d2_ast_fields(n->kind, &nf);
    for (size_t i = 0; i < nf; i++) {
        const char *p = (const char *)node + fs[i].offset;
        if (fs[i].type == D2_AST_F_NODE || fs[i].type == D2_AST_F_OPT) {
            walk(x, *(void *const *)p, f, ud);
        } else if (fs[i].type == D2_AST_F_SEQ) {
            const d2_ast_seq *s = (const d2_ast_seq *)p;
            for (uint32_t k = 0; k < s->n; k++)
                walk(x, s->items[k], f, ud);
        }
    }
}

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
static void *copy(X *x, const void *node)
{
    if (!node)
        return NULL;
    const d2_ast_node *n = node;
    size_t size = node_size(n->kind);
    char *p = chk(x, d2_arena_alloc(x->a, size));
    memcpy(p, node, size);
    size_t nf;
    const d2_ast_field *fs = d2_ast_fields(n->kind, &nf);
    for (size_t i = 0; i < nf; i++) {
        char *f = p + fs[i].offset;
        switch (fs[i].type) {
        case D2_AST_F_NODE:
        case D2_AST_F_OPT: *(void **)f = copy(x, *(void **)f); break;
        case D2_AST_F_SEQ:
        case D2_AST_F_IDENTS: {
            d2_ast_seq *s = (d2_ast_seq *)f, old = *s;
            memset(s, 0, sizeof *s);
            for (uint32_t k = 0; k < old.n; k++) {
                void *item = fs[i].type == D2_AST_F_SEQ ? copy(x, old.items[k]) : old.items[k];
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
        d2_ast_cmpop *ops = chk(x, d2_arena_alloc(x->a, (k ? k : 1) * sizeof *ops));
        if (k)
            memcpy(ops, ((const d2_ast_expr *)node)->compare.ops, k * sizeof *ops);
        e->compare.ops = ops;
    }
    return p;
}

/* ---- names read and written ---- */

enum { NAMES_WRITES, NAMES_KILLS, NAMES_USES };

typedef struct names_ud {
    int mode;
    nameset *set;
} names_ud;

/* Methods that mutate a list in place: x.append(v) writes x. */
static bool is_mutator(const char *attr)
{
    static const char *const m[] = {"append", "extend", "insert", "pop", "remove", "clear"};
    for (size_t i = 0; i < D2_COUNTOF(m); i++)
        if (strcmp(attr, m[i]) == 0)
            return true;
    return false;
}

/* The name a subscript target like x[i][j] ultimately stores into, or NULL. */
static const char *subscript_base(const d2_ast_expr *e)
{
    while (e->kind == D2_AST_SUBSCRIPT)
        e = e->subscript.value;
    return e->kind == D2_AST_NAME ? e->name.id : NULL;
}

static bool names_visit(X *x, const d2_ast_node *n, void *vud)
{
    names_ud *ud = vud;
    switch (n->kind) {
    case D2_AST_NAME: {
        const d2_ast_expr *e = (const d2_ast_expr *)n;
        bool load = e->name.ctx == D2_CTX_LOAD;
        if (ud->mode == NAMES_USES ? load : !load)
            set_add(x, ud->set, e->name.id);
        return true;
    }
    case D2_AST_FUNCTION_DEF:
    case D2_AST_ASYNC_FUNCTION_DEF:
    case D2_AST_CLASS_DEF: {
        const d2_ast_stmt *s = (const d2_ast_stmt *)n;
        if (ud->mode != NAMES_USES) {
            set_add(x, ud->set, n->kind == D2_AST_CLASS_DEF ? s->class_def.name : s->function_def.name);
            return true;
        }
        return false; /* every name read inside counts (an over-approximation) */
    }
    case D2_AST_LAMBDA:
        return ud->mode != NAMES_USES;
    case D2_AST_COMPREHENSION: {
        /* the target belongs to the comprehension's own scope */
        const d2_ast_comprehension *c = (const d2_ast_comprehension *)n;
        walk(x, c->iter, names_visit, ud);
        for (uint32_t i = 0; i < c->ifs.n; i++)
            walk(x, c->ifs.items[i], names_visit, ud);
        if (ud->mode == NAMES_USES)
            walk(x, c->target, names_visit, ud);
        return true;
    }
    case D2_AST_NAMED_EXPR:
        if (ud->mode == NAMES_KILLS) {
            walk(x, ((const d2_ast_expr *)n)->named_expr.value, names_visit, ud);
            return true;
        }
        return false;
    case D2_AST_ANN_ASSIGN: {
        /* `x: int` without a value binds nothing */
        const d2_ast_stmt *s = (const d2_ast_stmt *)n;
        if (ud->mode != NAMES_USES && !s->ann_assign.value)
            return true;
        return false;
    }
    case D2_AST_AUG_ASSIGN: {
        const d2_ast_expr *t = ((const d2_ast_stmt *)n)->aug_assign.target;
        if (ud->mode == NAMES_USES && t->kind == D2_AST_NAME)
            set_add(x, ud->set, t->name.id);
        return false;
    }
    case D2_AST_SUBSCRIPT: {
        const d2_ast_expr *e = (const d2_ast_expr *)n;
        if (ud->mode == NAMES_WRITES && e->subscript.ctx != D2_CTX_LOAD) {
            const char *base = subscript_base(e);
            if (base)
                set_add(x, ud->set, base);
        }
        return false;
    }
    case D2_AST_CALL: {
        const d2_ast_expr *f = ((const d2_ast_expr *)n)->call.func;
        if (ud->mode == NAMES_WRITES && f->kind == D2_AST_ATTRIBUTE &&
            f->attribute.value->kind == D2_AST_NAME && is_mutator(f->attribute.attr))
            set_add(x, ud->set, f->attribute.value->name.id);
        return false;
    }
    case D2_AST_ALIAS: {
        const d2_ast_alias *al = (const d2_ast_alias *)n;
        if (ud->mode != NAMES_USES && strcmp(al->name, "*") != 0) {
            if (al->asname) {
                set_add(x, ud->set, al->asname);
            } else {
                const char *dot = strchr(al->name, '.');
                set_add(x, ud->set,
                        dot ? chk(x, d2_arena_strndup(x->a, al->name, (size_t)(dot - al->name)))
                            : al->name);
            }
        }
        return true;
    }
    default: return false;
    }
}

static void names_of(X *x, const void *node, int mode, nameset *set)
{
    names_ud ud = {mode, set};
    walk(x, node, names_visit, &ud);
}

static nameset names_of_block(X *x, const d2_ast_seq *b, int mode)
{
    nameset s = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++)
        names_of(x, b->items[i], mode, &s);
    return s;
}

/* Every identifier of a function, for making fresh names. */
static bool used_visit(X *x, const d2_ast_node *n, void *ud)
{
    (void)ud;
    switch (n->kind) {
    case D2_AST_NAME: set_add(x, &x->used, ((const d2_ast_expr *)n)->name.id); break;
    case D2_AST_ARG: set_add(x, &x->used, ((const d2_ast_arg *)n)->arg); break;
    case D2_AST_FUNCTION_DEF:
    case D2_AST_ASYNC_FUNCTION_DEF: set_add(x, &x->used, ((const d2_ast_stmt *)n)->function_def.name); break;
    case D2_AST_CLASS_DEF: set_add(x, &x->used, ((const d2_ast_stmt *)n)->class_def.name); break;
    case D2_AST_ALIAS: {
        const d2_ast_alias *al = (const d2_ast_alias *)n;
        set_add(x, &x->used, al->asname ? al->asname : al->name);
        break;
    }
    case D2_AST_GLOBAL:
    case D2_AST_NONLOCAL: {
        const d2_ast_stmt *s = (const d2_ast_stmt *)n;
        for (uint32_t i = 0; i < s->global.names.n; i++)
            set_add(x, &x->used, s->global.names.items[i]);
        break;
    }
    default: break;
    }
    return false;
}

/* A fresh identifier: base, or base_2, base_3, ... when taken. */
static const char *fresh(X *x, const char *base)
{
    const char *name = base;
    for (int k = 2; set_has(&x->used, name); k++)
        name = chk(x, d2_arena_printf(x->a, "%s_%d", base, k));
    if (name == base)
        name = chk(x, d2_arena_strdup(x->a, base));
    set_add(x, &x->used, name);
    return name;
}

static const char *fresh_at(X *x, const char *base, d2_span span)
{
    char buf[96];
    snprintf(buf, sizeof buf, "%s_%u", base, (unsigned)span.line);
    return fresh(x, buf);
}

/* ---- node construction (every node spans the user's construct) ---- */

static void push(X *x, d2_ast_seq *s, void *item)
{
    if (d2_ast_seq_push(x->a, s, item) < 0)
        longjmp(x->oom, 1);
}

static d2_ast_expr *name_load(X *x, const char *id, d2_span sp)
{
    return chk(x, d2_ast_name(x->a, id, D2_CTX_LOAD, sp));
}

static d2_ast_expr *name_store(X *x, const char *id, d2_span sp)
{
    return chk(x, d2_ast_name(x->a, id, D2_CTX_STORE, sp));
}

/* _jst.<helper> */
static d2_ast_expr *jst(X *x, const char *helper, d2_span sp)
{
    return chk(x, d2_ast_attribute(x->a, name_load(x, "_jst", sp), helper, D2_CTX_LOAD, sp));
}

static d2_ast_expr *call(X *x, d2_ast_expr *func, d2_ast_seq args, d2_span sp)
{
    d2_ast_seq kw = {0, 0, NULL};
    return chk(x, d2_ast_call(x->a, func, args, kw, sp));
}

static d2_ast_expr *call1(X *x, d2_ast_expr *func, d2_ast_expr *arg, d2_span sp)
{
    d2_ast_seq args = {0, 0, NULL};
    push(x, &args, arg);
    return call(x, func, args, sp);
}

static d2_ast_expr *str_const(X *x, const char *s, d2_span sp)
{
    return chk(x, d2_ast_const_str(x->a, s, strlen(s), sp));
}

static d2_ast_expr *bool_const(X *x, bool v, d2_span sp)
{
    return chk(x, d2_ast_const_simple(x->a, v ? D2_CONST_TRUE : D2_CONST_FALSE, sp));
}

static d2_ast_arguments *no_args(X *x, d2_span sp)
{
    return chk(x, d2_ast_node_new(x->a, D2_AST_ARGUMENTS, sp));
}

/* lambda: body */
static d2_ast_expr *thunk(X *x, d2_ast_expr *body)
{
    d2_ast_expr *l = chk(x, d2_ast_expr_new(x->a, D2_AST_LAMBDA, body->span));
    l->lambda.args = no_args(x, body->span);
    l->lambda.body = body;
    return l;
}

static d2_ast_expr *jst_not(X *x, d2_ast_expr *v, d2_span sp) { return call1(x, jst(x, "Not", sp), v, sp); }

/* _jst.And(lambda: a, lambda: b) */
static d2_ast_expr *jst_and2(X *x, d2_ast_expr *a, d2_ast_expr *b, d2_span sp)
{
    d2_ast_seq args = {0, 0, NULL};
    push(x, &args, thunk(x, a));
    push(x, &args, thunk(x, b));
    return call(x, jst(x, "And", sp), args, sp);
}

static d2_ast_stmt *assign(X *x, d2_ast_expr *target, d2_ast_expr *value, d2_span sp)
{
    d2_ast_seq t = {0, 0, NULL};
    push(x, &t, target);
    return chk(x, d2_ast_assign(x->a, t, value, sp));
}

static d2_ast_stmt *assign_flag(X *x, const char *flag, bool v, d2_span sp)
{
    return assign(x, name_store(x, flag, sp), bool_const(x, v, sp), sp);
}

static d2_ast_stmt *expr_stmt(X *x, d2_ast_expr *e) { return chk(x, d2_ast_expr_stmt(x->a, e, e->span)); }

static d2_ast_stmt *if_stmt(X *x, d2_ast_expr *test, d2_ast_seq body, d2_ast_seq orelse, d2_span sp)
{
    return chk(x, d2_ast_if(x->a, test, body, orelse, sp));
}

static d2_ast_seq seq1(X *x, void *item)
{
    d2_ast_seq s = {0, 0, NULL};
    push(x, &s, item);
    return s;
}

/* (a, b) of Names, or the empty tuple. */
static d2_ast_expr *names_tuple(X *x, const nameset *s, d2_span sp)
{
    d2_ast_seq elts = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        push(x, &elts, name_load(x, s->v[i], sp));
    return chk(x, d2_ast_tuple(x->a, elts, D2_CTX_LOAD, sp));
}

/* ('a', 'b') */
static d2_ast_expr *strings_tuple(X *x, const nameset *s, d2_span sp)
{
    d2_ast_seq elts = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        push(x, &elts, str_const(x, s->v[i], sp));
    return chk(x, d2_ast_tuple(x->a, elts, D2_CTX_LOAD, sp));
}

/* The packed values of s (None for none, the value for one, a tuple). */
static d2_ast_expr *packed(X *x, const nameset *s, d2_span sp)
{
    if (s->n == 1)
        return name_load(x, s->v[0], sp);
    return names_tuple(x, s, sp);
}

/* The assignment target receiving packed values of s (s->n >= 1). */
static d2_ast_expr *packed_target(X *x, const nameset *s, d2_span sp)
{
    if (s->n == 1)
        return name_store(x, s->v[0], sp);
    d2_ast_seq elts = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        push(x, &elts, name_store(x, s->v[i], sp));
    return chk(x, d2_ast_tuple(x->a, elts, D2_CTX_STORE, sp));
}

/* def name(first, params...): body */
static d2_ast_stmt *funcdef(X *x, const char *name, const char *first, const nameset *params,
                            d2_ast_seq body, d2_span sp)
{
    d2_ast_stmt *f = chk(x, d2_ast_stmt_new(x->a, D2_AST_FUNCTION_DEF, sp));
    f->function_def.name = name;
    f->function_def.args = no_args(x, sp);
    if (first)
        push(x, &f->function_def.args->args, chk(x, d2_ast_arg_new(x->a, first, NULL, sp)));
    for (uint32_t i = 0; i < params->n; i++)
        push(x, &f->function_def.args->args, chk(x, d2_ast_arg_new(x->a, params->v[i], NULL, sp)));
    /* a pass among other statements says nothing */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < body.n; i++)
        if (((d2_ast_stmt *)body.items[i])->kind != D2_AST_PASS)
            body.items[kept++] = body.items[i];
    body.n = kept;
    if (body.n == 0)
        push(x, &body, chk(x, d2_ast_simple_stmt(x->a, D2_AST_PASS, sp)));
    f->function_def.body = body;
    return f;
}

/* ---- check: syntax the transforms cannot convert ---- */

/* The span of the first k bytes of span (a keyword at its start). */
static d2_span keyword_span(d2_span sp, uint32_t k)
{
    d2_span r = sp;
    r.end_line = sp.line;
    r.end_col = sp.col + k;
    r.end = sp.start + k;
    return r;
}

static void unsupported(X *x, d2_span sp, const char *fmt, const char *arg)
{
    char what[256];
    snprintf(what, sizeof what, fmt, arg ? arg : "");
    x->problems++;
    if (!x->diag)
        return;
    if (x->opt->no_fallback)
        d2_diag_add(x->diag, D2_DIAG_ERROR, sp,
                    "%s; %s() cannot fall back to tracing because --no-fallback is set", what,
                    x->fname);
    else
        d2_diag_add(x->diag, D2_DIAG_WARNING, sp,
                    "%s; %s() is traced instead and its data-dependent branches are frozen", what,
                    x->fname);
}

/* The span of the `else` keyword of a loop whose else-block starts at
 * first, found in the diagnostics' source text; the loop's keyword when
 * the text is not at hand. */
static d2_span else_span(X *x, const d2_ast_stmt *loop, const d2_ast_stmt *first)
{
    const char *src = x->diag ? x->diag->src : NULL;
    if (src && first->span.start <= x->diag->len && loop->span.start < first->span.start) {
        for (size_t i = first->span.start; i >= loop->span.start + 4; i--) {
            const char *p = src + i - 4;
            if (memcmp(p, "else", 4) != 0 || (i - 4 > 0 && !memchr(" \t\n\r", p[-1], 4)))
                continue;
            size_t k = i;
            while (k < x->diag->len && (src[k] == ' ' || src[k] == '\t'))
                k++;
            if (k < x->diag->len && src[k] == ':')
                return d2_span_from_offsets(src, x->diag->len, i - 4, i);
        }
    }
    return keyword_span(loop->span, loop->kind == D2_AST_FOR ? 3 : 5);
}

static bool check_expr_visit(X *x, const d2_ast_node *n, void *ud)
{
    (void)ud;
    switch (n->kind) {
    case D2_AST_LAMBDA:
    case D2_AST_FUNCTION_DEF:
    case D2_AST_ASYNC_FUNCTION_DEF:
    case D2_AST_CLASS_DEF: return true;
    case D2_AST_YIELD: unsupported(x, keyword_span(n->span, 5), "'yield' cannot be converted", NULL); return true;
    case D2_AST_YIELD_FROM:
        unsupported(x, keyword_span(n->span, 5), "'yield from' cannot be converted", NULL);
        return true;
    case D2_AST_AWAIT: unsupported(x, keyword_span(n->span, 5), "'await' cannot be converted", NULL); return true;
    default: return false;
    }
}

/* nonlocal statements anywhere in a nested function */
static bool nested_nonlocal_visit(X *x, const d2_ast_node *n, void *ud)
{
    (void)ud;
    if (n->kind == D2_AST_NONLOCAL)
        unsupported(x, keyword_span(n->span, 8),
                    "'nonlocal' statement in a nested function cannot be converted", NULL);
    return false;
}

static void check_block(X *x, const d2_ast_seq *b, const nameset *written)
{
    for (uint32_t i = 0; i < b->n; i++) {
        const d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_TRY:
        case D2_AST_TRY_STAR:
            unsupported(x, keyword_span(s->span, 3), "'try' statement cannot be converted", NULL);
            continue;
        case D2_AST_MATCH:
            unsupported(x, keyword_span(s->span, 5), "'match' statement cannot be converted", NULL);
            continue;
        case D2_AST_ASYNC_FOR:
            unsupported(x, keyword_span(s->span, 5), "'async for' statement cannot be converted", NULL);
            continue;
        case D2_AST_ASYNC_WITH:
            unsupported(x, keyword_span(s->span, 5), "'async with' statement cannot be converted", NULL);
            continue;
        case D2_AST_GLOBAL:
        case D2_AST_NONLOCAL:
            for (uint32_t k = 0; k < s->global.names.n; k++)
                if (set_has(written, s->global.names.items[k]))
                    unsupported(x, s->span,
                                s->kind == D2_AST_GLOBAL
                                    ? "assignment to global variable '%s' cannot be converted"
                                    : "assignment to nonlocal variable '%s' cannot be converted",
                                s->global.names.items[k]);
            continue;
        case D2_AST_FUNCTION_DEF:
        case D2_AST_ASYNC_FUNCTION_DEF:
        case D2_AST_CLASS_DEF: walk(x, s, nested_nonlocal_visit, NULL); continue;
        case D2_AST_FOR:
        case D2_AST_WHILE: {
            const d2_ast_seq *orelse = s->kind == D2_AST_FOR ? &s->for_.orelse : &s->while_.orelse;
            if (orelse->n)
                unsupported(x, else_span(x, s, orelse->items[0]),
                            s->kind == D2_AST_FOR ? "'for ... else' cannot be converted"
                                                  : "'while ... else' cannot be converted",
                            NULL);
            break;
        }
        default: break;
        }
        /* expressions of this statement (not those of nested blocks) */
        switch (s->kind) {
        case D2_AST_IF:
        case D2_AST_WHILE:
            walk(x, s->if_.test, check_expr_visit, NULL);
            check_block(x, &s->if_.body, written);
            check_block(x, &s->if_.orelse, written);
            break;
        case D2_AST_FOR:
            walk(x, s->for_.target, check_expr_visit, NULL);
            walk(x, s->for_.iter, check_expr_visit, NULL);
            check_block(x, &s->for_.body, written);
            check_block(x, &s->for_.orelse, written);
            break;
        case D2_AST_WITH:
            for (uint32_t k = 0; k < s->with.items.n; k++)
                walk(x, s->with.items.items[k], check_expr_visit, NULL);
            check_block(x, &s->with.body, written);
            break;
        default: walk(x, s, check_expr_visit, NULL); break;
        }
    }
}

/* ---- rewrite: expressions into _jst helper calls ---- */

static const char *const builtin_names[] = {
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr",
    "classmethod", "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec",
    "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "hex", "id",
    "input", "int", "isinstance", "issubclass", "iter", "len", "list", "locals", "map", "max",
    "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property",
    "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod",
    "str", "sum", "super", "tuple", "type", "vars", "zip",
};

static const char *const default_library_names[] = {"paddle", "F", "nn", "np", "numpy", "math"};

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static bool is_library_root(X *x, const char *root)
{
    if (strcmp(root, "_jst") == 0)
        return true;
    if (x->opt->library_names)
        return in_list(root, x->opt->library_names, x->opt->n_library_names);
    return in_list(root, default_library_names, D2_COUNTOF(default_library_names));
}

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
    walk(x, node, has_named_expr_visit, &found);
    return found;
}

static d2_ast_expr *rewrite_expr(X *x, d2_ast_expr *e, int ctl);

/* Rewrites every expression below node (any kind) in place. */
static void rewrite_children(X *x, void *node, int ctl)
{
    const d2_ast_node *n = node;
    size_t nf;
    const d2_ast_field *fs = d2_ast_fields(n->kind, &nf);
    for (size_t i = 0; i < nf; i++) {
        char *p = (char *)node + fs[i].offset;
        if (fs[i].type == D2_AST_F_NODE || fs[i].type == D2_AST_F_OPT) {
            void **slot = (void **)p;
            if (!*slot)
                continue;
            if (d2_ast_is_expr(((d2_ast_node *)*slot)->kind))
                *slot = rewrite_expr(x, *slot, ctl);
            else
                rewrite_children(x, *slot, ctl);
        } else if (fs[i].type == D2_AST_F_SEQ) {
            d2_ast_seq *s = (d2_ast_seq *)p;
            for (uint32_t k = 0; k < s->n; k++) {
                if (!s->items[k])
                    continue;
                if (d2_ast_is_expr(((d2_ast_node *)s->items[k])->kind))
                    s->items[k] = rewrite_expr(x, s->items[k], ctl);
                else
                    rewrite_children(x, s->items[k], ctl);
            }
        }
    }
}

/* a and b and c -> _jst.And(lambda: a, lambda: b, lambda: c), keeping the
 * short-circuit order; `or` likewise. */
static d2_ast_expr *rewrite_bool_op(X *x, d2_ast_expr *e)
{
    if (has_named_expr(x, e))
        return e;
    d2_ast_seq args = {0, 0, NULL};
    for (uint32_t i = 0; i < e->bool_op.values.n; i++)
        push(x, &args, thunk(x, e->bool_op.values.items[i]));
    return call(x, jst(x, e->bool_op.op == D2_BOOLOP_AND ? "And" : "Or", e->span), args, e->span);
}

/* a if c else b -> _jst.IfExp(c, lambda: a, lambda: b) */
static d2_ast_expr *rewrite_if_exp(X *x, d2_ast_expr *e)
{
    if (has_named_expr(x, e->if_exp.body) || has_named_expr(x, e->if_exp.orelse))
        return e;
    d2_ast_seq args = {0, 0, NULL};
    push(x, &args, e->if_exp.test);
    push(x, &args, thunk(x, e->if_exp.body));
    push(x, &args, thunk(x, e->if_exp.orelse));
    return call(x, jst(x, "IfExp", e->span), args, e->span);
}

static bool plain_one_arg(const d2_ast_expr *e)
{
    return e->call.args.n == 1 && e->call.keywords.n == 0 &&
           ((const d2_ast_expr *)e->call.args.items[0])->kind != D2_AST_STARRED;
}

/* Calls: print(...) -> _jst.Print(...); len(x) -> _jst.Len(x);
 * int/float/bool(x) -> _jst.Cast(x, 'int'); builtins, library functions
 * and list mutators stay; any other f(args) -> _jst.Call(f)(args), so the
 * helper can convert user functions and layers on first call. A bare
 * super() inside converted control flow (which becomes a nested function)
 * gets its class and instance spelled out. */
static d2_ast_expr *rewrite_call(X *x, d2_ast_expr *e, int ctl)
{
    d2_ast_expr *f = e->call.func;
    d2_span sp = e->span;
    if (f->kind == D2_AST_NAME) {
        const char *id = f->name.id;
        if (strcmp(id, "print") == 0) {
            e->call.func = jst(x, "Print", f->span);
            return e;
        }
        if (strcmp(id, "len") == 0 && plain_one_arg(e))
            return call1(x, jst(x, "Len", sp), e->call.args.items[0], sp);
        if ((strcmp(id, "int") == 0 || strcmp(id, "float") == 0 || strcmp(id, "bool") == 0) &&
            plain_one_arg(e)) {
            d2_ast_seq args = {0, 0, NULL};
            push(x, &args, e->call.args.items[0]);
            push(x, &args, str_const(x, id, f->span));
            return call(x, jst(x, "Cast", sp), args, sp);
        }
        if (strcmp(id, "super") == 0 && e->call.args.n == 0 && e->call.keywords.n == 0 && ctl > 0 &&
            x->self_name) {
            push(x, &e->call.args, name_load(x, "__class__", f->span));
            push(x, &e->call.args, name_load(x, x->self_name, f->span));
            return e;
        }
        if (in_list(id, builtin_names, D2_COUNTOF(builtin_names)) || is_library_root(x, id))
            return e;
    } else if (f->kind == D2_AST_ATTRIBUTE) {
        if (is_mutator(f->attribute.attr))
            return e;
        const d2_ast_expr *root = f;
        while (root->kind == D2_AST_ATTRIBUTE)
            root = root->attribute.value;
        if (root->kind == D2_AST_NAME && is_library_root(x, root->name.id))
            return e;
    }
    e->call.func = call1(x, jst(x, "Call", f->span), f, f->span);
    return e;
}

static d2_ast_expr *rewrite_expr(X *x, d2_ast_expr *e, int ctl)
{
    rewrite_children(x, e, ctl);
    switch (e->kind) {
    case D2_AST_BOOL_OP: return rewrite_bool_op(x, e);
    case D2_AST_UNARY_OP:
        if (e->unary_op.op == D2_UNARY_NOT)
            return jst_not(x, e->unary_op.operand, e->span);
        return e;
    case D2_AST_IF_EXP: return rewrite_if_exp(x, e);
    case D2_AST_CALL: return rewrite_call(x, e, ctl);
    case D2_AST_ATTRIBUTE:
        /* x.shape -> _jst.Shape(x): tensors for dynamic dims (not paddle.shape) */
        if (e->attribute.ctx == D2_CTX_LOAD && strcmp(e->attribute.attr, "shape") == 0) {
            const d2_ast_expr *root = e->attribute.value;
            while (root->kind == D2_AST_ATTRIBUTE)
                root = root->attribute.value;
            if (root->kind == D2_AST_NAME && is_library_root(x, root->name.id))
                return e;
            return call1(x, jst(x, "Shape", e->span), e->attribute.value, e->span);
        }
        return e;
    default: return e;
    }
}

/* The iterable of a for loop: range(...) -> _jst.Range(...),
 * enumerate(...) -> _jst.Enumerate(...). */
static void rewrite_for_iter(X *x, d2_ast_stmt *s)
{
    d2_ast_expr *it = s->for_.iter;
    if (it->kind != D2_AST_CALL || it->call.func->kind != D2_AST_NAME)
        return;
    const char *id = it->call.func->name.id;
    if (strcmp(id, "range") == 0)
        it->call.func = jst(x, "Range", it->call.func->span);
    else if (strcmp(id, "enumerate") == 0)
        it->call.func = jst(x, "Enumerate", it->call.func->span);
}

/* Rewrites the statements of b in place; ctl counts the enclosing
 * if/while/for statements. assert -> _jst.Assert(test, msg). Nested
 * functions and classes are left alone: they are converted when called. */
static void rewrite_block(X *x, d2_ast_seq *b, int ctl)
{
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_FUNCTION_DEF:
        case D2_AST_ASYNC_FUNCTION_DEF:
        case D2_AST_CLASS_DEF: break;
        case D2_AST_IF:
        case D2_AST_WHILE:
            s->if_.test = rewrite_expr(x, s->if_.test, ctl);
            rewrite_block(x, &s->if_.body, ctl + 1);
            rewrite_block(x, &s->if_.orelse, ctl + 1);
            break;
        case D2_AST_FOR:
            s->for_.target = rewrite_expr(x, s->for_.target, ctl);
            s->for_.iter = rewrite_expr(x, s->for_.iter, ctl);
            rewrite_for_iter(x, s);
            rewrite_block(x, &s->for_.body, ctl + 1);
            rewrite_block(x, &s->for_.orelse, ctl + 1);
            break;
        case D2_AST_WITH:
            for (uint32_t k = 0; k < s->with.items.n; k++)
                rewrite_children(x, s->with.items.items[k], ctl);
            rewrite_block(x, &s->with.body, ctl);
            break;
        case D2_AST_ASSERT: {
            d2_ast_seq args = {0, 0, NULL};
            push(x, &args, rewrite_expr(x, s->assert_.test, ctl));
            if (s->assert_.msg)
                push(x, &args, rewrite_expr(x, s->assert_.msg, ctl));
            b->items[i] = expr_stmt(x, call(x, jst(x, "Assert", s->span), args, s->span));
            break;
        }
        default: rewrite_children(x, s, ctl); break;
        }
    }
}

/* ---- normalize: exits end their block ---- */

static bool is_exit(const d2_ast_stmt *s)
{
    return s->kind == D2_AST_RETURN || s->kind == D2_AST_BREAK || s->kind == D2_AST_CONTINUE ||
           s->kind == D2_AST_RAISE;
}

/* Whether control never runs past the end of b. */
static bool terminates(const d2_ast_seq *b)
{
    if (b->n == 0)
        return false;
    const d2_ast_stmt *s = b->items[b->n - 1];
    if (is_exit(s))
        return true;
    if (s->kind == D2_AST_IF)
        return s->if_.orelse.n && terminates(&s->if_.body) && terminates(&s->if_.orelse);
    if (s->kind == D2_AST_WITH)
        return terminates(&s->with.body);
    return false;
}

/* if c: <exits> followed by more statements -> if c: <exits> else: <more>
 * (and the mirror case), recursively; statements after an exit are dead
 * and dropped. Afterwards return/break/continue end their blocks. */
static void normalize_block(X *x, d2_ast_seq *b)
{
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_IF:
        case D2_AST_WHILE:
            normalize_block(x, &s->if_.body);
            normalize_block(x, &s->if_.orelse);
            break;
        case D2_AST_FOR:
            normalize_block(x, &s->for_.body);
            normalize_block(x, &s->for_.orelse);
            break;
        case D2_AST_WITH: normalize_block(x, &s->with.body); break;
        default: break;
        }
        if (is_exit(s) || (s->kind == D2_AST_IF && terminates(&s->if_.body) &&
                           terminates(&s->if_.orelse))) {
            b->n = i + 1;
            return;
        }
        if (s->kind != D2_AST_IF || i + 1 == b->n)
            continue;
        bool bt = terminates(&s->if_.body), et = terminates(&s->if_.orelse);
        if (!bt && !et)
            continue;
        d2_ast_seq *into = bt ? &s->if_.orelse : &s->if_.body;
        for (uint32_t k = i + 1; k < b->n; k++)
            push(x, into, b->items[k]);
        b->n = i + 1;
        normalize_block(x, into);
        return;
    }
}

/* ---- returns: flag and value ---- */

/* Whether b holds a return inside an if, while or for (through with). */
static bool return_in_control(const d2_ast_seq *b, bool inside)
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
            if (return_in_control(&s->if_.body, true) || return_in_control(&s->if_.orelse, true))
                return true;
            break;
        case D2_AST_FOR:
            if (return_in_control(&s->for_.body, true))
                return true;
            break;
        case D2_AST_WITH:
            if (return_in_control(&s->with.body, inside))
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
    return s->kind == D2_AST_RETURN || return_in_control(&one, true);
}

/* Whether some return of b is not the last thing the function does. */
static bool nontail_return(const d2_ast_seq *b, bool tail)
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
            if (nontail_return(&s->if_.body, last_tail) || nontail_return(&s->if_.orelse, last_tail))
                return true;
            break;
        case D2_AST_WITH:
            if (nontail_return(&s->with.body, last_tail))
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
static d2_ast_seq returns_block(X *x, const d2_ast_seq *b, bool in_loop, bool tail)
{
    d2_ast_seq out = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        bool last = i + 1 == b->n;
        if (s->kind == D2_AST_RETURN) {
            d2_span sp = s->span;
            if (x->ret_flag && !(tail && last && !in_loop))
                push(x, &out, assign_flag(x, x->ret_flag, true, sp));
            d2_ast_expr *v = s->return_.value ? s->return_.value
                                              : chk(x, d2_ast_const_simple(x->a, D2_CONST_NONE, sp));
            push(x, &out, assign(x, name_store(x, x->ret_value, sp), v, sp));
            if (in_loop)
                push(x, &out, chk(x, d2_ast_simple_stmt(x->a, D2_AST_BREAK, sp)));
            return out;
        }
        bool returns = has_return(s);
        switch (s->kind) {
        case D2_AST_IF:
            s->if_.body = returns_block(x, &s->if_.body, in_loop, tail && last);
            s->if_.orelse = returns_block(x, &s->if_.orelse, in_loop, tail && last);
            break;
        case D2_AST_WITH: s->with.body = returns_block(x, &s->with.body, in_loop, tail && last); break;
        case D2_AST_WHILE: s->while_.body = returns_block(x, &s->while_.body, true, false); break;
        case D2_AST_FOR: s->for_.body = returns_block(x, &s->for_.body, true, false); break;
        default: break;
        }
        push(x, &out, s);
        bool inner_loop = in_loop && (s->kind == D2_AST_WHILE || s->kind == D2_AST_FOR);
        if (!returns || !x->ret_flag || (last && !inner_loop))
            continue;
        d2_ast_seq rest = {b->n - i - 1, b->n - i - 1, b->items + i + 1};
        d2_span sp = s->span;
        if (inner_loop) {
            push(x, &out, if_stmt(x, name_load(x, x->ret_flag, sp),
                                  seq1(x, chk(x, d2_ast_simple_stmt(x->a, D2_AST_BREAK, sp))),
                                  returns_block(x, &rest, in_loop, tail), sp));
            return out;
        }
        if (!in_loop) {
            d2_ast_seq none = {0, 0, NULL};
            sp = ((const d2_ast_stmt *)rest.items[0])->span;
            push(x, &out, if_stmt(x, jst_not(x, name_load(x, x->ret_flag, sp), sp),
                                  returns_block(x, &rest, in_loop, tail), none, sp));
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
            b->items[i] = chk(x, d2_ast_simple_stmt(x->a, D2_AST_PASS, s->span));
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
            push(x, &out, assign_flag(x, s->kind == D2_AST_BREAK ? brk : cont, true, s->span));
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
        push(x, &out, s);
        if ((!hb && !hc) || i + 1 == b->n)
            continue;
        d2_span sp = ((const d2_ast_stmt *)b->items[i + 1])->span;
        d2_ast_expr *guard;
        if (hb && hc)
            guard = jst_and2(x, jst_not(x, name_load(x, brk, sp), sp),
                             jst_not(x, name_load(x, cont, sp), sp), sp);
        else
            guard = jst_not(x, name_load(x, hb ? brk : cont, sp), sp);
        d2_ast_seq rest = {b->n - i - 1, b->n - i - 1, b->items + i + 1};
        d2_ast_seq none = {0, 0, NULL};
        push(x, &out, if_stmt(x, guard, exits_block(x, &rest, brk, cont), none, sp));
        return out;
    }
    return out;
}

/* Converts the break/continue statements of every loop in b (inner loops
 * first). A loop with break gets `_break_L = False` before it and the flag
 * in its test (for loops: recorded for the For helper's cond_fn); a loop
 * with a continue that is not last gets `_continue_L = False` at the top
 * of its body. */
static d2_ast_seq loops_block(X *x, d2_ast_seq *b)
{
    d2_ast_seq out = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_IF:
            s->if_.body = loops_block(x, &s->if_.body);
            s->if_.orelse = loops_block(x, &s->if_.orelse);
            break;
        case D2_AST_WITH: s->with.body = loops_block(x, &s->with.body); break;
        case D2_AST_WHILE:
        case D2_AST_FOR: {
            d2_ast_seq *body = s->kind == D2_AST_WHILE ? &s->while_.body : &s->for_.body;
            *body = loops_block(x, body);
            const char *brk = NULL, *cont = NULL;
            if (has_exit(body, D2_AST_CONTINUE)) {
                if (nontail_continue(body, true))
                    cont = fresh_at(x, "_continue", s->span);
                else
                    tail_continue_to_pass(x, body);
            }
            if (has_exit(body, D2_AST_BREAK))
                brk = fresh_at(x, "_break", s->span);
            if (brk || cont)
                *body = exits_block(x, body, brk, cont);
            if (cont) {
                d2_ast_seq nb = seq1(x, assign_flag(x, cont, false, s->span));
                for (uint32_t k = 0; k < body->n; k++)
                    push(x, &nb, body->items[k]);
                *body = nb;
            }
            if (brk) {
                push(x, &out, assign_flag(x, brk, false, s->span));
                if (s->kind == D2_AST_WHILE)
                    s->while_.test = jst_and2(x, jst_not(x, name_load(x, brk, s->span), s->span),
                                              s->while_.test, s->span);
                else
                    info_of(x, s)->brk = brk;
            }
            break;
        }
        default: break;
        }
        push(x, &out, s);
    }
    return out;
}

/* ---- liveness ---- */

static nameset live_block(X *x, const d2_ast_seq *b, const nameset *out);

static nameset uses_of(X *x, const void *node)
{
    nameset s = {0, 0, NULL};
    names_of(x, node, NAMES_USES, &s);
    return s;
}

/* Names live before s given those live after it; records the sets the
 * structure pass needs on if and loop statements. */
static nameset live_stmt(X *x, const d2_ast_stmt *s, const nameset *out)
{
    switch (s->kind) {
    case D2_AST_IF: {
        info *it = info_of(x, s);
        it->out = set_copy(x, out);
        nameset ib = live_block(x, &s->if_.body, out);
        nameset ie = live_block(x, &s->if_.orelse, out);
        it = info_of(x, s);
        it->in_body = ib;
        it->in_orelse = ie;
        nameset r = uses_of(x, s->if_.test);
        set_union_into(x, &r, &ib);
        set_union_into(x, &r, &ie);
        return r;
    }
    case D2_AST_WHILE: {
        nameset test = uses_of(x, s->while_.test);
        nameset head = set_union(x, &test, out);
        for (;;) {
            nameset body_in = live_block(x, &s->while_.body, &head);
            nameset next = set_union(x, &head, &body_in);
            if (set_equal(&next, &head))
                break;
            head = next;
        }
        info *it = info_of(x, s);
        it->out = set_copy(x, out);
        it->head = head;
        return head;
    }
    case D2_AST_FOR: {
        nameset tkill = {0, 0, NULL};
        names_of(x, s->for_.target, NAMES_KILLS, &tkill);
        nameset head = set_copy(x, out);
        nameset tuse = uses_of(x, s->for_.target);
        set_union_into(x, &head, &tuse);
        const char *brk = info_of(x, s)->brk;
        if (brk) /* read by the loop's cond_fn before each iteration */
            set_add(x, &head, brk);
        for (;;) {
            nameset body_in = live_block(x, &s->for_.body, &head);
            nameset gen = set_minus(x, &body_in, &tkill);
            nameset next = set_union(x, &head, &gen);
            if (set_equal(&next, &head))
                break;
            head = next;
        }
        info *it = info_of(x, s);
        it->out = set_copy(x, out);
        it->head = head;
        nameset r = uses_of(x, s->for_.iter);
        set_union_into(x, &r, &head);
        return r;
    }
    case D2_AST_WITH: {
        nameset body_in = live_block(x, &s->with.body, out);
        nameset r = {0, 0, NULL};
        for (uint32_t i = 0; i < s->with.items.n; i++) {
            const d2_ast_withitem *w = s->with.items.items[i];
            nameset kill = {0, 0, NULL};
            names_of(x, w->optional_vars, NAMES_KILLS, &kill);
            body_in = set_minus(x, &body_in, &kill);
            nameset u = uses_of(x, w);
            set_union_into(x, &r, &u);
        }
        set_union_into(x, &r, &body_in);
        return r;
    }
    case D2_AST_RETURN: return uses_of(x, s);
    default: {
        nameset kill = {0, 0, NULL};
        names_of(x, s, NAMES_KILLS, &kill);
        nameset r = set_minus(x, out, &kill);
        nameset u = uses_of(x, s);
        set_union_into(x, &r, &u);
        return r;
    }
    }
}

static nameset live_block(X *x, const d2_ast_seq *b, const nameset *out)
{
    nameset live = set_copy(x, out);
    for (uint32_t i = b->n; i-- > 0;)
        live = live_stmt(x, b->items[i], &live);
    return live;
}

/* ---- structure: if/while/for to nested functions and helper calls ---- */

static d2_ast_seq structure_block(X *x, const d2_ast_seq *b, nameset *defined);

static nameset writes_of_block(X *x, const d2_ast_seq *b) { return names_of_block(x, b, NAMES_WRITES); }

/* name = _jst.UndefinedVar('name') for each of vars not yet defined. */
static void undefined_inits(X *x, d2_ast_seq *out, const nameset *vars, nameset *defined, d2_span sp)
{
    for (uint32_t i = 0; i < vars->n; i++) {
        if (set_has(defined, vars->v[i]))
            continue;
        d2_ast_expr *v = call1(x, jst(x, "UndefinedVar", sp), str_const(x, vars->v[i], sp), sp);
        push(x, out, assign(x, name_store(x, vars->v[i], sp), v, sp));
        set_add(x, defined, vars->v[i]);
    }
}

/* The converted statements of a nested function's body: b converted with
 * params as the only local names defined so far, then `return` of the
 * packed results. */
static d2_ast_seq fn_body(X *x, const d2_ast_seq *b, const nameset *params, const nameset *results,
                          d2_ast_seq prologue, d2_span sp)
{
    nameset defined = set_copy(x, params);
    for (uint32_t i = 0; i < prologue.n; i++)
        names_of(x, prologue.items[i], NAMES_WRITES, &defined);
    d2_ast_seq body = structure_block(x, b, &defined);
    d2_ast_seq out = prologue;
    for (uint32_t i = 0; i < body.n; i++)
        push(x, &out, body.items[i]);
    if (results->n)
        push(x, &out, chk(x, d2_ast_return(x->a, packed(x, results, sp), sp)));
    return out;
}

/* The statement running the helper: `results = call` or just `call`. */
static d2_ast_stmt *run_helper(X *x, const nameset *results, d2_ast_expr *c, d2_span sp)
{
    if (results->n == 0)
        return expr_stmt(x, c);
    return assign(x, packed_target(x, results, sp), c, sp);
}

/* if test: A else: B ->
 *     def if_true_L(params): A; return results
 *     def if_false_L(params): B; return results
 *     results = _jst.IfElse(test, if_true_L, if_false_L, (params,), ('results',))
 * results: variables written in a branch and live after the if; params:
 * those of them (and of the branches' other written variables) read
 * before being written, or passed through by a branch that leaves them. */
static void structure_if(X *x, d2_ast_stmt *s, d2_ast_seq *out, nameset *defined)
{
    d2_span sp = s->span;
    info *it = info_of(x, s);
    nameset w = writes_of_block(x, &s->if_.body);
    nameset we = writes_of_block(x, &s->if_.orelse);
    set_union_into(x, &w, &we);
    nameset results = set_intersect(x, &w, &it->out);
    nameset live_in = set_union(x, &it->in_body, &it->in_orelse);
    nameset params = set_intersect(x, &w, &live_in);
    const char *tname = fresh_at(x, "if_true", sp), *fname = fresh_at(x, "if_false", sp);
    d2_ast_seq none = {0, 0, NULL};
    push(x, out, funcdef(x, tname, NULL, &params,
                         fn_body(x, &s->if_.body, &params, &results, none, sp), sp));
    push(x, out, funcdef(x, fname, NULL, &params,
                         fn_body(x, &s->if_.orelse, &params, &results, none, sp), sp));
    undefined_inits(x, out, &params, defined, sp);
    d2_ast_seq args = {0, 0, NULL};
    push(x, &args, s->if_.test);
    push(x, &args, name_load(x, tname, sp));
    push(x, &args, name_load(x, fname, sp));
    push(x, &args, names_tuple(x, &params, sp));
    push(x, &args, strings_tuple(x, &results, sp));
    push(x, out, run_helper(x, &results, call(x, jst(x, "IfElse", sp), args, sp), sp));
    set_union_into(x, defined, &results);
}

/* while test: A ->
 *     def while_cond_L(vars): return test
 *     def while_body_L(vars): A; return vars
 *     vars = _jst.While(while_cond_L, while_body_L, (vars,), ('vars',))
 * vars: the loop-carried variables, written in the loop and live at its
 * head (read by the test, read before written in the body, or live after
 * the loop). */
static void structure_while(X *x, d2_ast_stmt *s, d2_ast_seq *out, nameset *defined)
{
    d2_span sp = s->span;
    info *it = info_of(x, s);
    nameset w = writes_of_block(x, &s->while_.body);
    names_of(x, s->while_.test, NAMES_WRITES, &w);
    nameset vars = set_intersect(x, &w, &it->head);
    const char *cname = fresh_at(x, "while_cond", sp), *bname = fresh_at(x, "while_body", sp);
    push(x, out, funcdef(x, cname, NULL, &vars,
                         seq1(x, chk(x, d2_ast_return(x->a, s->while_.test, sp))), sp));
    d2_ast_seq none = {0, 0, NULL};
    push(x, out, funcdef(x, bname, NULL, &vars,
                         fn_body(x, &s->while_.body, &vars, &vars, none, sp), sp));
    undefined_inits(x, out, &vars, defined, sp);
    d2_ast_seq args = {0, 0, NULL};
    push(x, &args, name_load(x, cname, sp));
    push(x, &args, name_load(x, bname, sp));
    push(x, &args, names_tuple(x, &vars, sp));
    push(x, &args, strings_tuple(x, &vars, sp));
    push(x, out, run_helper(x, &vars, call(x, jst(x, "While", sp), args, sp), sp));
    set_union_into(x, defined, &vars);
}

/* for target in it: A ->
 *     [def for_cond_L(vars): return _jst.Not(_break_L)]
 *     def for_body_L(target, vars): A; return vars
 *     vars = _jst.For(it, for_body_L, (vars,), ('vars',)[, for_cond_L])
 * The body function takes the item as its first parameter: the target
 * itself when it is a plain name that is not carried, else _item_L, bound
 * to the target by the body's first statement. vars as for while; the
 * target is one when it is used after the loop. */
static void structure_for(X *x, d2_ast_stmt *s, d2_ast_seq *out, nameset *defined)
{
    d2_span sp = s->span;
    info *it = info_of(x, s);
    nameset w = writes_of_block(x, &s->for_.body);
    names_of(x, s->for_.target, NAMES_WRITES, &w);
    nameset vars = set_intersect(x, &w, &it->head);
    const d2_ast_expr *t = s->for_.target;
    const char *item;
    d2_ast_seq prologue = {0, 0, NULL};
    nameset params = set_copy(x, &vars);
    if (t->kind == D2_AST_NAME && !set_has(&vars, t->name.id)) {
        item = t->name.id;
        set_add(x, &params, item);
    } else {
        item = fresh_at(x, "_item", sp);
        push(x, &prologue, assign(x, s->for_.target, name_load(x, item, sp), t->span));
    }
    const char *cname = NULL;
    if (it->brk) {
        cname = fresh_at(x, "for_cond", sp);
        d2_ast_expr *test = jst_not(x, name_load(x, it->brk, sp), sp);
        push(x, out, funcdef(x, cname, NULL, &vars, seq1(x, chk(x, d2_ast_return(x->a, test, sp))), sp));
    }
    const char *bname = fresh_at(x, "for_body", sp);
    push(x, out, funcdef(x, bname, item, &vars,
                         fn_body(x, &s->for_.body, &params, &vars, prologue, sp), sp));
    undefined_inits(x, out, &vars, defined, sp);
    d2_ast_seq args = {0, 0, NULL};
    push(x, &args, s->for_.iter);
    push(x, &args, name_load(x, bname, sp));
    push(x, &args, names_tuple(x, &vars, sp));
    push(x, &args, strings_tuple(x, &vars, sp));
    if (cname)
        push(x, &args, name_load(x, cname, sp));
    push(x, out, run_helper(x, &vars, call(x, jst(x, "For", sp), args, sp), sp));
    set_union_into(x, defined, &vars);
}

/* Converts the control flow of b. defined: the local names assigned so
 * far in the function being built (updated). */
static d2_ast_seq structure_block(X *x, const d2_ast_seq *b, nameset *defined)
{
    d2_ast_seq out = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_IF: structure_if(x, s, &out, defined); break;
        case D2_AST_WHILE: structure_while(x, s, &out, defined); break;
        case D2_AST_FOR: structure_for(x, s, &out, defined); break;
        case D2_AST_WITH:
            for (uint32_t k = 0; k < s->with.items.n; k++)
                names_of(x, s->with.items.items[k], NAMES_WRITES, defined);
            s->with.body = structure_block(x, &s->with.body, defined);
            push(x, &out, s);
            break;
        default:
            names_of(x, s, NAMES_WRITES, defined);
            push(x, &out, s);
            break;
        }
    }
    return out;
}

/* ---- entry points ---- */

/* Whether decorator d names `name` (bare, dotted, or called). */
static bool decorator_is(const d2_ast_expr *d, const char *name)
{
    if (d->kind == D2_AST_CALL)
        d = d->call.func;
    if (d->kind == D2_AST_NAME)
        return strcmp(d->name.id, name) == 0;
    if (d->kind == D2_AST_ATTRIBUTE)
        return strcmp(d->attribute.attr, name) == 0;
    return false;
}

static bool has_decorator(const d2_ast_stmt *fn, const char *name)
{
    if (!fn || (fn->kind != D2_AST_FUNCTION_DEF && fn->kind != D2_AST_ASYNC_FUNCTION_DEF))
        return false;
    for (uint32_t i = 0; i < fn->function_def.decorator_list.n; i++)
        if (decorator_is(fn->function_def.decorator_list.items[i], name))
            return true;
    return false;
}

bool d2_xform_is_to_static(const d2_ast_stmt *fn) { return has_decorator(fn, "to_static"); }

bool d2_xform_is_not_to_static(const d2_ast_stmt *fn) { return has_decorator(fn, "not_to_static"); }

static bool is_docstring(const d2_ast_stmt *s)
{
    return s->kind == D2_AST_EXPR && s->expr.value->kind == D2_AST_CONSTANT &&
           s->expr.value->constant.value.kind == D2_CONST_STR;
}

static void params_of(X *x, const d2_ast_arguments *a, nameset *s)
{
    for (uint32_t i = 0; i < a->posonlyargs.n; i++)
        set_add(x, s, ((const d2_ast_arg *)a->posonlyargs.items[i])->arg);
    for (uint32_t i = 0; i < a->args.n; i++)
        set_add(x, s, ((const d2_ast_arg *)a->args.items[i])->arg);
    for (uint32_t i = 0; i < a->kwonlyargs.n; i++)
        set_add(x, s, ((const d2_ast_arg *)a->kwonlyargs.items[i])->arg);
    if (a->vararg)
        set_add(x, s, a->vararg->arg);
    if (a->kwarg)
        set_add(x, s, a->kwarg->arg);
}

/* The conversion proper; longjmps to x->oom when out of memory. */
static d2_xform_status convert(X *x, const d2_ast_stmt *fn, d2_ast_stmt **out)
{
    nameset written = writes_of_block(x, &fn->function_def.body);
    if (fn->kind == D2_AST_ASYNC_FUNCTION_DEF)
        unsupported(x, keyword_span(fn->span, 5), "'async def' function cannot be converted", NULL);
    check_block(x, &fn->function_def.body, &written);
    if (x->problems)
        return x->opt->no_fallback ? D2_XFORM_ERROR : D2_XFORM_FALLBACK;

    d2_ast_stmt *f = copy(x, fn);
    walk(x, f, used_visit, NULL);
    set_add(x, &x->used, "_jst");
    const d2_ast_arguments *args = f->function_def.args;
    if (args->posonlyargs.n)
        x->self_name = ((const d2_ast_arg *)args->posonlyargs.items[0])->arg;
    else if (args->args.n)
        x->self_name = ((const d2_ast_arg *)args->args.items[0])->arg;

    /* the docstring stays first and untouched */
    d2_ast_seq body = f->function_def.body, head = {0, 0, NULL};
    if (body.n && is_docstring(body.items[0])) {
        push(x, &head, body.items[0]);
        body.items++;
        body.n--;
        body.cap = body.n;
    }

    rewrite_block(x, &body, 0);
    normalize_block(x, &body);
    if (return_in_control(&body, false)) {
        /* falling off the end returns None: say so, where it happens */
        if (!terminates(&body)) {
            push(x, &body, chk(x, d2_ast_return(x->a, NULL, f->span)));
            normalize_block(x, &body);
        }
        x->ret_value = fresh(x, "_return_value");
        if (nontail_return(&body, true))
            x->ret_flag = fresh(x, "_return_flag");
        d2_ast_seq nb = {0, 0, NULL};
        if (x->ret_flag)
            push(x, &nb, assign_flag(x, x->ret_flag, false, f->span));
        d2_ast_seq conv = returns_block(x, &body, false, true);
        for (uint32_t i = 0; i < conv.n; i++)
            push(x, &nb, conv.items[i]);
        push(x, &nb, chk(x, d2_ast_return(x->a, name_load(x, x->ret_value, f->span), f->span)));
        body = nb;
    }
    body = loops_block(x, &body);
    nameset none = {0, 0, NULL};
    live_block(x, &body, &none);
    nameset defined = {0, 0, NULL};
    params_of(x, args, &defined);
    body = structure_block(x, &body, &defined);

    for (uint32_t i = 0; i < body.n; i++)
        push(x, &head, body.items[i]);
    f->function_def.body = head;
    d2_ast_seq decos = {0, 0, NULL};
    for (uint32_t i = 0; i < fn->function_def.decorator_list.n; i++) {
        d2_ast_expr *d = f->function_def.decorator_list.items[i];
        if (!decorator_is(d, "to_static"))
            push(x, &decos, d);
    }
    f->function_def.decorator_list = decos;
    *out = f;
    return D2_XFORM_OK;
}

d2_xform_status d2_xform_function(d2_arena *a, const d2_ast_stmt *fn, d2_diag *diag,
                                  const d2_xform_options *opt, d2_ast_stmt **out)
{
    static const d2_xform_options defaults = {false, NULL, 0};
    *out = NULL;
    if (!a || !fn || (fn->kind != D2_AST_FUNCTION_DEF && fn->kind != D2_AST_ASYNC_FUNCTION_DEF))
        return D2_XFORM_ERROR;
    if (d2_xform_is_not_to_static(fn)) {
        *out = (d2_ast_stmt *)fn;
        return D2_XFORM_OK;
    }
    X *x = d2_calloc(1, sizeof *x);
    if (!x)
        return D2_XFORM_ERROR;
    x->a = a;
    x->tmp = d2_arena_new();
    x->diag = diag;
    x->opt = opt ? opt : &defaults;
    x->fname = fn->function_def.name;
    d2_xform_status st = D2_XFORM_ERROR;
    if (x->tmp && !setjmp(x->oom))
        st = convert(x, fn, out);
    if (st == D2_XFORM_ERROR && x->problems == 0) {
        *out = NULL;
        if (diag)
            d2_diag_add(diag, D2_DIAG_ERROR, fn->span, "out of memory while converting %s()",
                        x->fname);
    }
    d2_arena_delete(x->tmp);
    d2_free(x);
    return st;
}

/* ---- dy2st convert ---- */

typedef struct conv_ctx {
    d2_arena *a;
    d2_diag *diag;
    const d2_xform_options *opt;
    d2_xform_status worst;
    bool failed; /* out of memory building the module */
} conv_ctx;

static void note_status(conv_ctx *c, d2_xform_status st)
{
    if (st == D2_XFORM_ERROR || (st == D2_XFORM_FALLBACK && c->worst == D2_XFORM_OK))
        c->worst = st;
}

/* b with each to_static function converted (recursing into classes);
 * statements are shared, changed ones are new. */
static d2_ast_seq convert_stmts(conv_ctx *c, const d2_ast_seq *b)
{
    d2_ast_seq out = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        if ((s->kind == D2_AST_FUNCTION_DEF || s->kind == D2_AST_ASYNC_FUNCTION_DEF) &&
            d2_xform_is_to_static(s) && !d2_xform_is_not_to_static(s)) {
            d2_ast_stmt *conv = NULL;
            d2_xform_status st = d2_xform_function(c->a, s, c->diag, c->opt, &conv);
            note_status(c, st);
            if (st == D2_XFORM_OK && conv)
                s = conv;
        } else if (s->kind == D2_AST_CLASS_DEF) {
            d2_ast_stmt *cls = d2_arena_alloc(c->a, sizeof *cls);
            if (!cls) {
                c->failed = true;
                break;
            }
            *cls = *s;
            cls->class_def.body = convert_stmts(c, &s->class_def.body);
            s = cls;
        }
        if (d2_ast_seq_push(c->a, &out, s) < 0) {
            c->failed = true;
            break;
        }
    }
    return out;
}

d2_xform_status d2_xform_convert_module(d2_arena *a, const d2_ast_module *m, const char *select,
                                        d2_diag *diag, const d2_xform_options *opt, d2_buf *out)
{
    if (!a || !m || !out)
        return D2_XFORM_ERROR;
    if (diag)
        d2_diag_set_source(diag, m->filename, m->source, m->source_len);
    conv_ctx c = {a, diag, opt, D2_XFORM_OK, false};
    d2_ast_seq picked = {0, 0, NULL};
    for (uint32_t i = 0; i < m->body.n; i++) {
        const d2_ast_stmt *s = m->body.items[i];
        const char *name = NULL;
        if (s->kind == D2_AST_FUNCTION_DEF || s->kind == D2_AST_ASYNC_FUNCTION_DEF)
            name = s->function_def.name;
        else if (s->kind == D2_AST_CLASS_DEF)
            name = s->class_def.name;
        if (select && (!name || strcmp(name, select) != 0))
            continue;
        if (d2_ast_seq_push(a, &picked, (void *)s) < 0)
            return D2_XFORM_ERROR;
    }
    if (select && picked.n == 0) {
        if (diag)
            d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0, 0, 0, 0, 0, 0},
                        "no function or class named '%s' in %s", select, m->filename);
        return D2_XFORM_ERROR;
    }
    d2_ast_module *nm = d2_arena_alloc(a, sizeof *nm);
    if (!nm)
        return D2_XFORM_ERROR;
    *nm = *m;
    nm->body = convert_stmts(&c, &picked);
    if (c.failed)
        return D2_XFORM_ERROR;
    d2_unparse(out, nm);
    if (out->len)
        d2_buf_puts(out, "\n");
    return out->oom ? D2_XFORM_ERROR : c.worst;
}
