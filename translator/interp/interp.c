/* interp.c - the evaluator: scope analysis, frames, statements, expressions, calls, imports. */
#include "interp/interp_priv.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

d2_obj *d2i_builtin_iter(d2_interp *I, d2_obj *o);
int64_t d2i_builtin_len(d2_interp *I, d2_obj *o);
d2_obj *d2i_set_op(d2_interp *I, int op, d2_obj *a, d2_obj *b);
d2_obj *d2i_set_from_iterable(d2_interp *I, d2_obj *iterable);
int d2i_dict_merge(d2_interp *I, d2_dict *d, d2_obj *src);

/* ======================================================================
 * Scope analysis: like CPython's symtable. Every function, lambda, class
 * body and comprehension is a scope (a d2_code). Each name a scope uses
 * resolves to a local slot, a cell (captured by an inner scope), a free
 * variable (a cell captured from an outer scope), a global, or a namespace
 * dict entry (module and class bodies). Name nodes map to their symbol, so
 * evaluation never searches by string.
 * ==================================================================== */

typedef enum { SC_MODULE, SC_FUNCTION, SC_CLASS } scope_kind;

enum {
    F_BOUND = 1,     /* assigned, imported, def'd, a loop or except target */
    F_PARAM = 2,
    F_GLOBAL = 4,    /* declared global */
    F_NONLOCAL = 8,  /* declared nonlocal */
    F_USED = 16,
    F_FREE = 32,     /* resolved as free: the value lives in a cell of an outer scope */
    F_CELL = 64,     /* captured by an inner scope */
};

typedef enum { R_LOCAL, R_CELL, R_FREE, R_GLOBAL, R_NAME, R_CLASSDEREF } resolution;

typedef struct sym {
    const char *name;
    size_t len;
    uint64_t hash;
    unsigned flags;
    int res;
    int slot;
    const void *decl; /* the nonlocal statement declaring it, for errors */
} sym;

typedef struct d2_code {
    scope_kind kind;
    bool is_comp;
    const char *name, *qualname;
    const void *node;
    struct d2_code *parent;
    struct d2i_unit *unit;
    sym **tab;           /* open addressing by name */
    size_t tabcap, nsyms;
    sym **order;         /* insertion order */
    size_t cap_order;
    struct d2_code **children;
    size_t nchildren, capchildren;
    /* signature (functions) */
    const d2_ast_arguments *args;
    int nposonly, nargs, nkwonly;
    int vararg_slot, kwarg_slot; /* -1 when absent */
    const char **params;         /* nargs + nkwonly names, slots 0.. */
    int nslots;
    int *cell_init, ncell_init;     /* slots that start as empty cells */
    int *cell_params, ncell_params; /* parameter slots wrapped into cells */
    sym **freevars;                 /* in closure order */
    int nfree;
    const d2_ast_node *yield_node;  /* first yield: generator functions are rejected */
} d2_code;

typedef struct ptrmap {
    const void **keys;
    void **vals;
    size_t cap, n;
} ptrmap;

typedef struct d2i_unit {
    struct d2i_unit *next;
    const void *root;
    const d2_module *module;
    ptrmap names;   /* Name node -> sym; scope node -> d2_code */
    ptrmap consts;  /* Constant node -> cached object */
    d2_code *top;
} d2i_unit;

static size_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static void *pm_get(const ptrmap *m, const void *k)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = ptr_hash(k) & mask; m->keys[i]; i = (i + 1) & mask)
        if (m->keys[i] == k)
            return m->vals[i];
    return NULL;
}

static int pm_put(ptrmap *m, const void *k, void *v)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        const void **keys = d2_calloc(cap, sizeof *keys);
        void **vals = d2_calloc(cap, sizeof *vals);
        if (!keys || !vals) {
            d2_free(keys);
            d2_free(vals);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->keys[i])
                continue;
            size_t j = ptr_hash(m->keys[i]) & (cap - 1);
            while (keys[j])
                j = (j + 1) & (cap - 1);
            keys[j] = m->keys[i];
            vals[j] = m->vals[i];
        }
        d2_free(m->keys);
        d2_free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
    }
    size_t mask = m->cap - 1;
    size_t i = ptr_hash(k) & mask;
    while (m->keys[i] && m->keys[i] != k)
        i = (i + 1) & mask;
    if (!m->keys[i])
        m->n++;
    m->keys[i] = k;
    m->vals[i] = v;
    return 0;
}

static void pm_free(ptrmap *m)
{
    d2_free(m->keys);
    d2_free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Analysis context: errors are reported as SyntaxError at a node. */
typedef struct analyzer {
    d2_interp *I;
    d2i_unit *unit;
    d2_arena *a;
    bool failed;
    const d2_ast_node *err_node;
    char err[256];
} analyzer;

static void an_error(analyzer *an, const void *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void an_error(analyzer *an, const void *node, const char *fmt, ...)
{
    if (an->failed)
        return;
    an->failed = true;
    an->err_node = node;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(an->err, sizeof an->err, fmt, ap);
    va_end(ap);
}

static sym *code_find(const d2_code *c, const char *name, size_t len, uint64_t h)
{
    if (!c->tabcap)
        return NULL;
    size_t mask = c->tabcap - 1;
    for (size_t i = h & mask; c->tab[i]; i = (i + 1) & mask) {
        sym *s = c->tab[i];
        if (s->hash == h && s->len == len && memcmp(s->name, name, len) == 0)
            return s;
    }
    return NULL;
}

static sym *code_lookup(const d2_code *c, const char *name)
{
    size_t len = strlen(name);
    return code_find(c, name, len, d2i_hash_bytes(name, len));
}

/* The symbol for name in c, made on first use. */
static sym *code_sym(analyzer *an, d2_code *c, const char *name)
{
    size_t len = strlen(name);
    uint64_t h = d2i_hash_bytes(name, len);
    sym *s = code_find(c, name, len, h);
    if (s)
        return s;
    if ((c->nsyms + 1) * 2 > c->tabcap) {
        size_t cap = c->tabcap ? c->tabcap * 2 : 16;
        sym **tab = d2_arena_alloc(an->a, cap * sizeof *tab);
        if (!tab) {
            an_error(an, NULL, "out of memory");
            return NULL;
        }
        for (size_t i = 0; i < c->tabcap; i++) {
            sym *x = c->tab[i];
            if (!x)
                continue;
            size_t j = x->hash & (cap - 1);
            while (tab[j])
                j = (j + 1) & (cap - 1);
            tab[j] = x;
        }
        c->tab = tab;
        c->tabcap = cap;
    }
    if (c->nsyms == c->cap_order) {
        size_t cap = c->cap_order ? c->cap_order * 2 : 16;
        sym **o = d2_arena_realloc(an->a, c->order, c->cap_order * sizeof *o, cap * sizeof *o);
        if (!o) {
            an_error(an, NULL, "out of memory");
            return NULL;
        }
        c->order = o;
        c->cap_order = cap;
    }
    s = d2_arena_alloc(an->a, sizeof *s);
    if (!s) {
        an_error(an, NULL, "out of memory");
        return NULL;
    }
    s->name = name;
    s->len = len;
    s->hash = h;
    s->slot = -1;
    size_t j = h & (c->tabcap - 1);
    while (c->tab[j])
        j = (j + 1) & (c->tabcap - 1);
    c->tab[j] = s;
    c->order[c->nsyms++] = s;
    return s;
}

static d2_code *code_new(analyzer *an, d2_code *parent, scope_kind kind, const char *name,
                         const void *node)
{
    d2_code *c = d2_arena_alloc(an->a, sizeof *c);
    if (!c) {
        an_error(an, node, "out of memory");
        return NULL;
    }
    c->kind = kind;
    c->name = name;
    c->node = node;
    c->parent = parent;
    c->unit = an->unit;
    c->vararg_slot = c->kwarg_slot = -1;
    if (!parent || parent->kind == SC_MODULE)
        c->qualname = name;
    else if (parent->kind == SC_CLASS)
        c->qualname = d2_arena_printf(an->a, "%s.%s", parent->qualname, name);
    else
        c->qualname = d2_arena_printf(an->a, "%s.<locals>.%s", parent->qualname, name);
    if (parent) {
        if (parent->nchildren == parent->capchildren) {
            size_t cap = parent->capchildren ? parent->capchildren * 2 : 4;
            d2_code **ch = d2_arena_realloc(an->a, parent->children,
                                            parent->capchildren * sizeof *ch, cap * sizeof *ch);
            if (!ch) {
                an_error(an, node, "out of memory");
                return NULL;
            }
            parent->children = ch;
            parent->capchildren = cap;
        }
        parent->children[parent->nchildren++] = c;
    }
    if (node && pm_put(&an->unit->names, node, c) < 0)
        an_error(an, node, "out of memory");
    return c;
}

static void note_name(analyzer *an, d2_code *c, const char *name, unsigned flags, const void *node)
{
    sym *s = code_sym(an, c, name);
    if (!s)
        return;
    s->flags |= flags;
    if (node && pm_put(&an->unit->names, node, s) < 0)
        an_error(an, node, "out of memory");
}

static void an_expr(analyzer *an, d2_code *c, const d2_ast_expr *e);
static void an_stmts(analyzer *an, d2_code *c, const d2_ast_seq *body);

static void an_exprs(analyzer *an, d2_code *c, const d2_ast_seq *seq)
{
    for (uint32_t i = 0; i < seq->n; i++)
        if (seq->items[i])
            an_expr(an, c, seq->items[i]);
}

/* The scope a walrus target binds in: the nearest non-comprehension scope. */
static d2_code *walrus_scope(d2_code *c)
{
    while (c->is_comp && c->parent)
        c = c->parent;
    return c;
}

static void an_params(analyzer *an, d2_code *fc, const d2_ast_arguments *args)
{
    fc->args = args;
    int np = 0;
    fc->nposonly = (int)args->posonlyargs.n;
    fc->nargs = (int)(args->posonlyargs.n + args->args.n);
    fc->nkwonly = (int)args->kwonlyargs.n;
    size_t total = (size_t)fc->nargs + (size_t)fc->nkwonly;
    fc->params = d2_arena_alloc(an->a, (total + 1) * sizeof *fc->params);
    if (!fc->params) {
        an_error(an, args, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < args->posonlyargs.n; i++)
        fc->params[np++] = ((d2_ast_arg *)args->posonlyargs.items[i])->arg;
    for (uint32_t i = 0; i < args->args.n; i++)
        fc->params[np++] = ((d2_ast_arg *)args->args.items[i])->arg;
    for (uint32_t i = 0; i < args->kwonlyargs.n; i++)
        fc->params[np++] = ((d2_ast_arg *)args->kwonlyargs.items[i])->arg;
    for (int i = 0; i < np; i++) {
        sym *s = code_sym(an, fc, fc->params[i]);
        if (!s)
            return;
        if (s->flags & F_PARAM)
            an_error(an, args, "duplicate argument '%s' in function definition", fc->params[i]);
        s->flags |= F_PARAM | F_BOUND;
    }
    if (args->vararg) {
        sym *s = code_sym(an, fc, args->vararg->arg);
        if (s)
            s->flags |= F_PARAM | F_BOUND;
    }
    if (args->kwarg) {
        sym *s = code_sym(an, fc, args->kwarg->arg);
        if (s)
            s->flags |= F_PARAM | F_BOUND;
    }
}

/* Defaults and decorators are evaluated in the enclosing scope. */
static void an_arg_defaults(analyzer *an, d2_code *c, const d2_ast_arguments *args)
{
    an_exprs(an, c, &args->defaults);
    an_exprs(an, c, &args->kw_defaults);
}

static void an_comprehension(analyzer *an, d2_code *c, const d2_ast_expr *e, const char *name)
{
    const d2_ast_seq *gens;
    switch (e->kind) {
    case D2_AST_DICT_COMP: gens = &e->dict_comp.generators; break;
    case D2_AST_LIST_COMP: gens = &e->list_comp.generators; break;
    case D2_AST_SET_COMP: gens = &e->set_comp.generators; break;
    default: gens = &e->generator_exp.generators; break;
    }
    if (gens->n == 0)
        return;
    const d2_ast_comprehension *g0 = gens->items[0];
    an_expr(an, c, g0->iter);
    d2_code *cc = code_new(an, c, SC_FUNCTION, name, e);
    if (!cc)
        return;
    cc->is_comp = true;
    for (uint32_t i = 0; i < gens->n; i++) {
        const d2_ast_comprehension *g = gens->items[i];
        an_expr(an, cc, g->target);
        if (i > 0)
            an_expr(an, cc, g->iter);
        an_exprs(an, cc, &g->ifs);
    }
    if (e->kind == D2_AST_DICT_COMP) {
        an_expr(an, cc, e->dict_comp.key);
        an_expr(an, cc, e->dict_comp.value);
    } else {
        an_expr(an, cc, e->list_comp.elt);
    }
}

static void an_expr(analyzer *an, d2_code *c, const d2_ast_expr *e)
{
    if (!e || an->failed)
        return;
    switch (e->kind) {
    case D2_AST_BOOL_OP:
        an_exprs(an, c, &e->bool_op.values);
        break;
    case D2_AST_NAMED_EXPR: {
        d2_code *wc = walrus_scope(c);
        an_expr(an, c, e->named_expr.value);
        if (wc == c) {
            note_name(an, c, e->named_expr.target->name.id, F_BOUND, e->named_expr.target);
        } else {
            /* binds in the enclosing scope; the comprehension reaches it through a cell */
            note_name(an, wc, e->named_expr.target->name.id, F_BOUND, NULL);
            note_name(an, c, e->named_expr.target->name.id, F_USED, e->named_expr.target);
        }
        break;
    }
    case D2_AST_BIN_OP:
        an_expr(an, c, e->bin_op.left);
        an_expr(an, c, e->bin_op.right);
        break;
    case D2_AST_UNARY_OP:
        an_expr(an, c, e->unary_op.operand);
        break;
    case D2_AST_LAMBDA: {
        an_arg_defaults(an, c, e->lambda.args);
        d2_code *fc = code_new(an, c, SC_FUNCTION, "<lambda>", e);
        if (!fc)
            return;
        an_params(an, fc, e->lambda.args);
        an_expr(an, fc, e->lambda.body);
        break;
    }
    case D2_AST_IF_EXP:
        an_expr(an, c, e->if_exp.test);
        an_expr(an, c, e->if_exp.body);
        an_expr(an, c, e->if_exp.orelse);
        break;
    case D2_AST_DICT:
        an_exprs(an, c, &e->dict.keys);
        an_exprs(an, c, &e->dict.values);
        break;
    case D2_AST_SET:
        an_exprs(an, c, &e->set.elts);
        break;
    case D2_AST_LIST_COMP: an_comprehension(an, c, e, "<listcomp>"); break;
    case D2_AST_SET_COMP: an_comprehension(an, c, e, "<setcomp>"); break;
    case D2_AST_DICT_COMP: an_comprehension(an, c, e, "<dictcomp>"); break;
    case D2_AST_GENERATOR_EXP: an_comprehension(an, c, e, "<genexpr>"); break;
    case D2_AST_AWAIT:
    case D2_AST_YIELD:
    case D2_AST_YIELD_FROM:
        if (e->kind != D2_AST_AWAIT && !c->yield_node)
            c->yield_node = (const d2_ast_node *)e;
        an_expr(an, c, e->yield.value);
        break;
    case D2_AST_COMPARE:
        an_expr(an, c, e->compare.left);
        an_exprs(an, c, &e->compare.comparators);
        break;
    case D2_AST_CALL: {
        const d2_ast_expr *f = e->call.func;
        if (f->kind == D2_AST_NAME && strcmp(f->name.id, "super") == 0 && c->kind == SC_FUNCTION) {
            /* zero-argument super() needs the class cell */
            sym *s = code_sym(an, c, "__class__");
            if (s)
                s->flags |= F_USED;
        }
        an_expr(an, c, f);
        an_exprs(an, c, &e->call.args);
        for (uint32_t i = 0; i < e->call.keywords.n; i++)
            an_expr(an, c, ((d2_ast_keyword *)e->call.keywords.items[i])->value);
        break;
    }
    case D2_AST_FORMATTED_VALUE:
        an_expr(an, c, e->formatted_value.value);
        an_expr(an, c, e->formatted_value.format_spec);
        break;
    case D2_AST_JOINED_STR:
        an_exprs(an, c, &e->joined_str.values);
        break;
    case D2_AST_CONSTANT:
        break;
    case D2_AST_ATTRIBUTE:
        an_expr(an, c, e->attribute.value);
        break;
    case D2_AST_SUBSCRIPT:
        an_expr(an, c, e->subscript.value);
        an_expr(an, c, e->subscript.slice);
        break;
    case D2_AST_STARRED:
        an_expr(an, c, e->starred.value);
        break;
    case D2_AST_NAME:
        note_name(an, c, e->name.id, e->name.ctx == D2_CTX_LOAD ? F_USED : F_BOUND, e);
        break;
    case D2_AST_LIST:
    case D2_AST_TUPLE:
        an_exprs(an, c, &e->list.elts);
        break;
    case D2_AST_SLICE:
        an_expr(an, c, e->slice.lower);
        an_expr(an, c, e->slice.upper);
        an_expr(an, c, e->slice.step);
        break;
    default:
        break;
    }
}

static void bind_import_name(analyzer *an, d2_code *c, const d2_ast_alias *al, bool from)
{
    if (strcmp(al->name, "*") == 0)
        return;
    if (al->asname) {
        note_name(an, c, al->asname, F_BOUND, NULL);
    } else if (from) {
        note_name(an, c, al->name, F_BOUND, NULL);
    } else {
        const char *dot = strchr(al->name, '.');
        const char *first =
            dot ? d2_arena_strndup(an->a, al->name, (size_t)(dot - al->name)) : al->name;
        if (first)
            note_name(an, c, first, F_BOUND, NULL);
    }
}

static void an_stmt(analyzer *an, d2_code *c, const d2_ast_stmt *s)
{
    if (!s || an->failed)
        return;
    switch (s->kind) {
    case D2_AST_FUNCTION_DEF:
    case D2_AST_ASYNC_FUNCTION_DEF: {
        an_exprs(an, c, &s->function_def.decorator_list);
        an_arg_defaults(an, c, s->function_def.args);
        note_name(an, c, s->function_def.name, F_BOUND, NULL);
        d2_code *fc = code_new(an, c, SC_FUNCTION, s->function_def.name, s);
        if (!fc)
            return;
        an_params(an, fc, s->function_def.args);
        an_stmts(an, fc, &s->function_def.body);
        break;
    }
    case D2_AST_CLASS_DEF: {
        an_exprs(an, c, &s->class_def.decorator_list);
        an_exprs(an, c, &s->class_def.bases);
        for (uint32_t i = 0; i < s->class_def.keywords.n; i++)
            an_expr(an, c, ((d2_ast_keyword *)s->class_def.keywords.items[i])->value);
        note_name(an, c, s->class_def.name, F_BOUND, NULL);
        d2_code *cc = code_new(an, c, SC_CLASS, s->class_def.name, s);
        if (!cc)
            return;
        an_stmts(an, cc, &s->class_def.body);
        break;
    }
    case D2_AST_RETURN:
        an_expr(an, c, s->return_.value);
        break;
    case D2_AST_DELETE:
        an_exprs(an, c, &s->delete.targets);
        break;
    case D2_AST_ASSIGN:
        an_expr(an, c, s->assign.value);
        an_exprs(an, c, &s->assign.targets);
        break;
    case D2_AST_AUG_ASSIGN:
        an_expr(an, c, s->aug_assign.value);
        an_expr(an, c, s->aug_assign.target);
        if (s->aug_assign.target->kind == D2_AST_NAME) {
            sym *x = code_sym(an, c, s->aug_assign.target->name.id);
            if (x)
                x->flags |= F_USED;
        }
        break;
    case D2_AST_ANN_ASSIGN:
        an_expr(an, c, s->ann_assign.value);
        if (s->ann_assign.value || c->kind == SC_FUNCTION)
            an_expr(an, c, s->ann_assign.target);
        break;
    case D2_AST_FOR:
    case D2_AST_ASYNC_FOR:
        an_expr(an, c, s->for_.iter);
        an_expr(an, c, s->for_.target);
        an_stmts(an, c, &s->for_.body);
        an_stmts(an, c, &s->for_.orelse);
        break;
    case D2_AST_WHILE:
    case D2_AST_IF:
        an_expr(an, c, s->if_.test);
        an_stmts(an, c, &s->if_.body);
        an_stmts(an, c, &s->if_.orelse);
        break;
    case D2_AST_WITH:
    case D2_AST_ASYNC_WITH:
        for (uint32_t i = 0; i < s->with.items.n; i++) {
            const d2_ast_withitem *w = s->with.items.items[i];
            an_expr(an, c, w->context_expr);
            an_expr(an, c, w->optional_vars);
        }
        an_stmts(an, c, &s->with.body);
        break;
    case D2_AST_RAISE:
        an_expr(an, c, s->raise.exc);
        an_expr(an, c, s->raise.cause);
        break;
    case D2_AST_TRY:
    case D2_AST_TRY_STAR:
        an_stmts(an, c, &s->try_.body);
        for (uint32_t i = 0; i < s->try_.handlers.n; i++) {
            const d2_ast_excepthandler *h = s->try_.handlers.items[i];
            an_expr(an, c, h->type);
            if (h->name)
                note_name(an, c, h->name, F_BOUND, NULL);
            an_stmts(an, c, &h->body);
        }
        an_stmts(an, c, &s->try_.orelse);
        an_stmts(an, c, &s->try_.finalbody);
        break;
    case D2_AST_ASSERT:
        an_expr(an, c, s->assert_.test);
        an_expr(an, c, s->assert_.msg);
        break;
    case D2_AST_IMPORT:
        for (uint32_t i = 0; i < s->import.names.n; i++)
            bind_import_name(an, c, s->import.names.items[i], false);
        break;
    case D2_AST_IMPORT_FROM:
        for (uint32_t i = 0; i < s->import_from.names.n; i++)
            bind_import_name(an, c, s->import_from.names.items[i], true);
        break;
    case D2_AST_GLOBAL:
    case D2_AST_NONLOCAL:
        for (uint32_t i = 0; i < s->global.names.n; i++) {
            const char *name = s->global.names.items[i];
            sym *x = code_sym(an, c, name);
            if (!x)
                return;
            if (s->kind == D2_AST_GLOBAL) {
                if (x->flags & (F_BOUND | F_USED) && c->kind != SC_MODULE)
                    an_error(an, s, "name '%s' is used prior to global declaration", name);
                x->flags |= F_GLOBAL;
            } else {
                if (c->kind != SC_FUNCTION) {
                    an_error(an, s, "nonlocal declaration not allowed at module level");
                    return;
                }
                if (x->flags & F_PARAM)
                    an_error(an, s, "name '%s' is parameter and nonlocal", name);
                x->flags |= F_NONLOCAL;
                x->decl = s;
            }
        }
        break;
    case D2_AST_EXPR:
        an_expr(an, c, s->expr.value);
        break;
    case D2_AST_MATCH:
        an_expr(an, c, s->match.subject);
        break;
    default:
        break;
    }
}

static void an_stmts(analyzer *an, d2_code *c, const d2_ast_seq *body)
{
    for (uint32_t i = 0; i < body->n && !an->failed; i++)
        an_stmt(an, c, body->items[i]);
}

/* Finds the scope that owns name for a free use in c; marks intermediates. */
static void resolve_free(analyzer *an, d2_code *c, sym *s)
{
    bool is_class_cell = strcmp(s->name, "__class__") == 0;
    d2_code *owner = NULL;
    sym *os = NULL;
    for (d2_code *p = c->parent; p; p = p->parent) {
        if (p->kind == SC_MODULE)
            break;
        sym *x = code_find(p, s->name, s->len, s->hash);
        if (p->kind == SC_CLASS) {
            if (is_class_cell) {
                owner = p;
                os = x ? x : code_sym(an, p, s->name);
                break;
            }
            continue;
        }
        if (!x)
            continue;
        if (x->flags & F_GLOBAL)
            break;
        if (x->flags & (F_BOUND | F_PARAM | F_NONLOCAL) && !(x->flags & F_GLOBAL)) {
            owner = p;
            os = x;
            break;
        }
    }
    if (!owner) {
        if (s->flags & F_NONLOCAL)
            an_error(an, s->decl ? s->decl : c->node, "no binding for nonlocal '%s' found",
                     s->name);
        return;
    }
    if (!os)
        return;
    s->flags |= F_FREE;
    if (os->flags & F_NONLOCAL)
        os->flags |= F_FREE;
    else
        os->flags |= F_CELL;
    for (d2_code *p = c->parent; p && p != owner; p = p->parent) {
        sym *x = code_sym(an, p, s->name);
        if (x)
            x->flags |= F_FREE;
    }
}

static void resolve_scope(analyzer *an, d2_code *c)
{
    for (size_t i = 0; i < c->nsyms && !an->failed; i++) {
        sym *s = c->order[i];
        if (s->flags & F_GLOBAL)
            continue;
        if (s->flags & F_NONLOCAL) {
            resolve_free(an, c, s);
            continue;
        }
        if (s->flags & (F_BOUND | F_PARAM))
            continue;
        if (c->kind == SC_MODULE)
            continue;
        resolve_free(an, c, s);
    }
    for (size_t i = 0; i < c->nchildren && !an->failed; i++)
        resolve_scope(an, c->children[i]);
}

static int *int_list(analyzer *an, int n)
{
    return n ? d2_arena_alloc(an->a, (size_t)n * sizeof(int)) : NULL;
}

/* Assigns resolutions and slots once every scope's flags are final. */
static void assign_slots(analyzer *an, d2_code *c)
{
    int slot = 0;
    if (c->kind == SC_FUNCTION) {
        /* parameters first, in signature order */
        int np = c->nargs + c->nkwonly;
        for (int i = 0; i < np; i++) {
            sym *s = code_lookup(c, c->params[i]);
            if (s->slot < 0)
                s->slot = slot++;
        }
        if (c->args && c->args->vararg) {
            sym *s = code_lookup(c, c->args->vararg->arg);
            s->slot = slot++;
            c->vararg_slot = s->slot;
        }
        if (c->args && c->args->kwarg) {
            sym *s = code_lookup(c, c->args->kwarg->arg);
            s->slot = slot++;
            c->kwarg_slot = s->slot;
        }
    }
    int ncell = 0, ncp = 0, nfree = 0;
    for (size_t i = 0; i < c->nsyms; i++) {
        sym *s = c->order[i];
        unsigned f = s->flags;
        if (f & F_GLOBAL)
            s->res = R_GLOBAL;
        else if (f & F_FREE)
            s->res = (c->kind == SC_CLASS && (f & F_BOUND)) ? R_NAME
                     : c->kind == SC_CLASS                  ? R_CLASSDEREF
                                                            : R_FREE;
        else if (f & F_CELL)
            s->res = R_CELL;
        else if (f & (F_BOUND | F_PARAM))
            s->res = c->kind == SC_FUNCTION ? R_LOCAL : R_NAME;
        else
            s->res = c->kind == SC_FUNCTION ? R_GLOBAL : R_NAME;
        if ((s->res == R_LOCAL || s->res == R_CELL || s->res == R_FREE || s->res == R_CLASSDEREF) &&
            s->slot < 0)
            s->slot = slot++;
        if (s->res == R_CELL) {
            if (f & F_PARAM)
                ncp++;
            else
                ncell++;
        }
        if (s->res == R_FREE || s->res == R_CLASSDEREF)
            nfree++;
    }
    c->nslots = slot;
    c->cell_init = int_list(an, ncell);
    c->cell_params = int_list(an, ncp);
    c->freevars = nfree ? d2_arena_alloc(an->a, (size_t)nfree * sizeof(sym *)) : NULL;
    for (size_t i = 0; i < c->nsyms; i++) {
        sym *s = c->order[i];
        if (s->res == R_CELL) {
            if (s->flags & F_PARAM)
                c->cell_params[c->ncell_params++] = s->slot;
            else
                c->cell_init[c->ncell_init++] = s->slot;
        }
        if (s->res == R_FREE || s->res == R_CLASSDEREF)
            c->freevars[c->nfree++] = s;
    }
    for (size_t i = 0; i < c->nchildren; i++)
        assign_slots(an, c->children[i]);
}

/* Scope analysis of a module (or any statement list) root; cached per root. */
static d2i_unit *analyze(d2_interp *I, const void *root, const d2_ast_seq *body,
                         const d2_module *m, d2_span *err_span, char *err, size_t errn)
{
    for (d2i_unit *u = I->st->units; u; u = u->next)
        if (u->root == root)
            return u;
    d2i_unit *u = d2_calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    u->root = root;
    u->module = m;
    analyzer an = {.I = I, .unit = u, .a = I->arena};
    u->top = code_new(&an, NULL, SC_MODULE, "<module>", NULL);
    if (u->top) {
        an_stmts(&an, u->top, body);
        if (!an.failed)
            resolve_scope(&an, u->top);
        if (!an.failed)
            assign_slots(&an, u->top);
    }
    if (an.failed || !u->top) {
        snprintf(err, errn, "%s", an.failed ? an.err : "out of memory");
        if (an.err_node)
            *err_span = an.err_node->span;
        pm_free(&u->names);
        pm_free(&u->consts);
        d2_free(u);
        return NULL;
    }
    u->next = I->st->units;
    I->st->units = u;
    return u;
}

/* ======================================================================
 * Frames and exceptions
 * ==================================================================== */

typedef struct d2i_frame {
    d2_frame f;               /* the public frame (tracebacks) */
    d2_frame *pf;             /* receives span updates: f, or the parent's for comprehensions */
    struct d2i_frame *prev;
    const d2_code *code;
    d2i_unit *unit;
    d2_obj **fast;
    d2_dict *ns;              /* R_NAME namespace: module globals or the class body dict */
    d2_dict *globals;
    d2_module *module;
    d2_obj *retval;
} d2i_frame;

enum { X_NORMAL, X_BREAK, X_CONTINUE, X_RETURN, X_ERROR };

bool d2_exc_pending(const d2_interp *I) { return I->exc != NULL; }

void d2_exc_clear(d2_interp *I)
{
    d2_obj *e = I->exc;
    I->exc = NULL;
    d2_decref(e);
}

d2_class *d2_exc_class(d2_interp *I, const char *name)
{
    if (!I->builtins)
        return NULL;
    d2_obj *c = d2_dict_get_str(I, I->builtins, name);
    if (c && c->kind == D2_OBJ_CLASS)
        return D2_AS(d2_class, c);
    return NULL;
}

int d2i_issubclass(d2_class *a, d2_class *b)
{
    if (a == b)
        return 1;
    if (!a->mro)
        return 0;
    for (size_t i = 0; i < a->mro->n; i++)
        if (a->mro->items[i] == (d2_obj *)b)
            return 1;
    return 0;
}

bool d2_isinstance(d2_interp *I, d2_obj *o, d2_class *cls)
{
    (void)I;
    return cls && d2i_issubclass(o->cls, cls);
}

bool d2_exc_matches(d2_interp *I, d2_class *cls)
{
    return I->exc && cls && d2i_issubclass(I->exc->cls, cls);
}

/* A new exception instance of cls with args (borrowed). */
d2_obj *d2i_exc_new(d2_interp *I, d2_class *cls, d2_obj **args, size_t nargs)
{
    if (!cls)
        return NULL;
    d2_obj *e = d2_instance_new(I, cls);
    if (!e)
        return NULL;
    d2_obj *t = d2i_tuple_from_array(I, args, nargs);
    if (!t || d2_dict_set_str(I, D2_AS(d2_instance, e)->dict, "args", t) < 0) {
        d2_decref(t);
        d2_decref(e);
        return NULL;
    }
    d2_decref(t);
    return e;
}

/* A traceback owns references to the modules of its entries. */
static void tb_fin(void *p)
{
    d2i_tb *tb = p;
    for (size_t i = 0; i < tb->n; i++)
        d2_decref((d2_obj *)tb->e[i].module);
    d2_free(tb);
}

/* Records where every active frame is, innermost first, on exc. */
static void capture_tb(d2_interp *I, d2_obj *exc)
{
    if (exc->kind != D2_OBJ_INSTANCE)
        return;
    d2_dict *d = D2_AS(d2_instance, exc)->dict;
    if (!d || d2_dict_get_str(I, d, "__traceback__"))
        return;
    size_t n = 0;
    for (d2_frame *f = I->frame; f; f = f->back)
        n++;
    d2i_tb *tb = d2_malloc(sizeof *tb + n * sizeof(d2i_tb_entry));
    if (!tb)
        return;
    tb->n = n;
    size_t i = 0;
    for (d2_frame *f = I->frame; f; f = f->back, i++) {
        tb->e[i].module = f->module;
        d2_incref((d2_obj *)f->module);
        tb->e[i].span = f->span;
        tb->e[i].func = f->func_name;
    }
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_OPAQUE, I->st->tb_type, sizeof(d2_opaque));
    if (!o) {
        tb_fin(tb);
        d2_exc_clear(I);
        return;
    }
    D2_AS(d2_opaque, o)->payload = tb;
    D2_AS(d2_opaque, o)->fin = tb_fin;
    if (d2_dict_set_str(I, d, "__traceback__", o) < 0)
        d2_exc_clear(I);
    d2_decref(o);
}

/* Makes exc (a new reference, stolen) the pending exception. */
void d2i_set_exc(d2_interp *I, d2_obj *exc)
{
    d2_exc_clear(I);
    if (exc != I->st->memory_error)
        capture_tb(I, exc);
    d2_exc_clear(I);
    I->exc = exc;
    I->exc_frame = I->frame;
    I->exc_module = I->frame ? I->frame->module : NULL;
    if (I->frame)
        I->exc_span = I->frame->span;
}

/* Out of memory: raises the preallocated MemoryError without allocating. */
void d2i_set_nomem(d2_interp *I)
{
    if (!I->st->memory_error)
        return;
    d2_exc_clear(I);
    I->exc = d2_incref(I->st->memory_error);
}

d2_obj *d2_raise(d2_interp *I, const char *exc_class, const char *fmt, ...)
{
    if (strcmp(exc_class, "MemoryError") == 0) {
        d2i_set_nomem(I);
        return NULL;
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    d2_class *cls = d2_exc_class(I, exc_class);
    if (!cls)
        cls = d2_exc_class(I, "RuntimeError");
    if (!cls) /* during bootstrap */
        return NULL;
    d2_obj *msg = d2_str_from(I, buf);
    if (!msg)
        return NULL;
    d2_obj *e = d2i_exc_new(I, cls, &msg, 1);
    d2_decref(msg);
    if (e)
        d2i_set_exc(I, e);
    else
        d2i_set_nomem(I);
    return NULL;
}

d2_obj *d2_raise_err(d2_interp *I, const d2_err *err)
{
    const char *cls = "RuntimeError";
    switch (err->code) {
    case D2_ERR_NOMEM: cls = "MemoryError"; break;
    case D2_ERR_INVALID:
    case D2_ERR_SHAPE:
    case D2_ERR_PARSE:
    case D2_ERR_FORMAT: cls = "ValueError"; break;
    case D2_ERR_DTYPE: cls = "TypeError"; break;
    case D2_ERR_IO: cls = "OSError"; break;
    case D2_ERR_UNSUPPORTED: cls = "NotImplementedError"; break;
    default: break;
    }
    return d2_raise(I, cls, "%s", err->msg[0] ? err->msg : d2_errcode_name(err->code));
}

int d2i_stack_check(d2_interp *I)
{
    char here;
    struct d2_interp_state *st = I->st;
    if (!st->stack_base)
        return 0;
    uintptr_t p = (uintptr_t)&here, b = (uintptr_t)st->stack_base;
    size_t used = p < b ? b - p : p - b;
    if (used > st->stack_budget) {
        d2_raise(I, "RecursionError", "maximum recursion depth exceeded");
        return -1;
    }
    return 0;
}

/* Sets the C stack reference point and budget at the outermost entry. */
static void stack_begin(d2_interp *I, const char *base)
{
    struct d2_interp_state *st = I->st;
    if (st->stack_base)
        return;
    st->stack_base = base;
    size_t budget = 4u << 20;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr;
        size_t size;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            uintptr_t lo = (uintptr_t)addr, b = (uintptr_t)base;
            size_t avail = b > lo ? b - lo : 0;
            budget = avail > (1u << 20) ? avail - (768u << 10) : avail / 2;
        }
        pthread_attr_destroy(&attr);
    }
    st->stack_budget = budget;
}

void d2i_pool_add(d2_interp *I, d2_obj *o)
{
    struct d2_interp_state *st = I->st;
    if (st->npool == st->cappool) {
        size_t cap = st->cappool ? st->cappool * 2 : 16;
        d2_obj **p = d2_realloc(st->pool, cap * sizeof *p);
        if (!p)
            return; /* o then simply lives until teardown */
        st->pool = p;
        st->cappool = cap;
    }
    st->pool[st->npool++] = o;
}

static void pool_release(d2_interp *I, size_t mark)
{
    struct d2_interp_state *st = I->st;
    while (st->npool > mark)
        d2_decref(st->pool[--st->npool]);
}

int d2i_no_kwargs(d2_interp *I, const char *fname, d2_dict *kw)
{
    if (kw && kw->live) {
        d2_raise(I, "TypeError", "%s() takes no keyword arguments", fname);
        return -1;
    }
    return 0;
}

int d2i_nargs(d2_interp *I, const char *fname, size_t nargs, size_t lo, size_t hi)
{
    if (nargs >= lo && nargs <= hi)
        return 0;
    if (lo == hi)
        d2_raise(I, "TypeError", "%s() takes exactly %zu argument%s (%zu given)", fname, lo,
                 lo == 1 ? "" : "s", nargs);
    else if (nargs < lo)
        d2_raise(I, "TypeError", "%s() takes at least %zu argument%s (%zu given)", fname, lo,
                 lo == 1 ? "" : "s", nargs);
    else
        d2_raise(I, "TypeError", "%s() takes at most %zu argument%s (%zu given)", fname, hi,
                 hi == 1 ? "" : "s", nargs);
    return -1;
}

/* ======================================================================
 * Classes
 * ==================================================================== */

d2_obj *d2i_mro_lookup(d2_interp *I, d2_class *cls, const char *name)
{
    (void)I;
    size_t n = strlen(name);
    uint64_t h = d2i_hash_bytes(name, n);
    if (!cls->mro)
        return cls->dict ? d2i_dict_get_cstr(cls->dict, name, n, h) : NULL;
    for (size_t i = 0; i < cls->mro->n; i++) {
        d2_class *c = D2_AS(d2_class, cls->mro->items[i]);
        if (!c->dict)
            continue;
        d2_obj *v = d2i_dict_get_cstr(c->dict, name, n, h);
        if (v)
            return v;
    }
    return NULL;
}

void d2i_class_update_flags(d2_interp *I, d2_class *cls)
{
    unsigned f = cls->flags & D2I_CF_USER;
    d2_obj *sa = d2i_mro_lookup(I, cls, "__setattr__");
    if (sa && sa != I->st->object_setattr)
        f |= D2I_CF_SETATTR;
    if (d2i_mro_lookup(I, cls, "__getattr__"))
        f |= D2I_CF_GETATTR;
    if (I->st->base_exc && d2i_issubclass(cls, I->st->base_exc))
        f |= D2I_CF_EXC;
    cls->flags = f;
}

/* C3 linearisation of cls with bases; new tuple or NULL with TypeError. */
static d2_obj *c3_mro(d2_interp *I, d2_class *cls, d2_tuple *bases)
{
    size_t nl = bases->n + 1;
    d2_tuple **lists = d2_calloc(nl, sizeof *lists);
    size_t *pos = d2_calloc(nl, sizeof *pos);
    d2_obj *out = d2_list_new(I, 0);
    if (!lists || !pos || !out) {
        d2_free(lists);
        d2_free(pos);
        d2_decref(out);
        return d2_raise(I, "MemoryError", "out of memory");
    }
    for (size_t i = 0; i < bases->n; i++)
        lists[i] = D2_AS(d2_class, bases->items[i])->mro;
    lists[bases->n] = bases;
    int rc = d2_list_append(I, out, (d2_obj *)cls);
    for (;;) {
        if (rc < 0)
            break;
        bool any = false;
        d2_obj *pick = NULL;
        for (size_t i = 0; i < nl && !pick; i++) {
            if (pos[i] >= lists[i]->n)
                continue;
            any = true;
            d2_obj *head = lists[i]->items[pos[i]];
            bool in_tail = false;
            for (size_t j = 0; j < nl && !in_tail; j++)
                for (size_t k = pos[j] + 1; k < lists[j]->n; k++)
                    if (lists[j]->items[k] == head) {
                        in_tail = true;
                        break;
                    }
            if (!in_tail)
                pick = head;
        }
        if (!any)
            break;
        if (!pick) {
            d2_buf b;
            d2_buf_init(&b);
            for (size_t i = 0; i < bases->n; i++)
                d2_buf_printf(&b, "%s%s", i ? ", " : "", D2_AS(d2_class, bases->items[i])->name);
            d2_raise(I, "TypeError",
                     "Cannot create a consistent method resolution order (MRO) for bases %s",
                     b.data ? b.data : "");
            d2_buf_free(&b);
            rc = -1;
            break;
        }
        rc = d2_list_append(I, out, pick);
        for (size_t i = 0; i < nl; i++)
            if (pos[i] < lists[i]->n && lists[i]->items[pos[i]] == pick)
                pos[i]++;
    }
    d2_free(lists);
    d2_free(pos);
    if (rc < 0) {
        d2_decref(out);
        return NULL;
    }
    d2_obj *t = d2i_tuple_from_array(I, D2_AS(d2_list, out)->items, D2_AS(d2_list, out)->n);
    d2_decref(out);
    return t;
}

/* A class object; bases a tuple of classes (borrowed; NULL = (object,)). */
static d2_class *class_make(d2_interp *I, const char *name, d2_obj *bases, d2_dict *dict,
                            d2_obj_kind layout, d2_module *module)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_CLASS, I->st->type, sizeof(d2_class));
    if (!o)
        return NULL;
    d2_class *c = D2_AS(d2_class, o);
    c->name = d2_arena_strdup(I->arena, name);
    c->layout = layout;
    c->module = module ? D2_AS(d2_module, d2_incref((d2_obj *)module)) : NULL;
    if (bases)
        d2_incref(bases);
    else
        bases = d2_tuple_pack(I, 1, (d2_obj *)I->st->object);
    c->bases = bases ? D2_AS(d2_tuple, bases) : NULL;
    c->dict = dict ? D2_AS(d2_dict, d2_incref((d2_obj *)dict)) : D2_AS(d2_dict, d2_dict_new(I));
    d2_obj *mro = c->bases && c->dict ? c3_mro(I, c, c->bases) : NULL;
    if (!mro) {
        d2_decref(o);
        return NULL;
    }
    c->mro = D2_AS(d2_tuple, mro);
    d2i_class_update_flags(I, c);
    return c;
}

d2_class *d2i_class_new(d2_interp *I, const char *name, d2_class *base, d2_obj_kind layout,
                        d2_module *module, bool set_type)
{
    d2_obj *bases = base ? d2_tuple_pack(I, 1, (d2_obj *)base) : NULL;
    if (base && !bases)
        return NULL;
    d2_class *c = class_make(I, name, bases, NULL, layout, module);
    d2_decref(bases);
    if (c && set_type && !I->types[layout])
        I->types[layout] = c;
    return c;
}

d2_class *d2_class_new_builtin(d2_interp *I, const char *name, d2_class *base, d2_obj_kind layout,
                               d2_module *module)
{
    return d2i_class_new(I, name, base, layout, module, true);
}

int d2_class_add_method(d2_interp *I, d2_class *cls, const char *name, d2_builtin_fn fn)
{
    d2_obj *b = d2_builtin_new(I, name, fn, NULL, NULL);
    if (!b)
        return -1;
    b->cls = I->st->method_descr;
    int rc = d2_dict_set_str(I, cls->dict, name, b);
    d2_decref(b);
    if (rc == 0 && name[0] == '_' && name[1] == '_')
        d2i_class_update_flags(I, cls);
    return rc;
}

static d2_obj *property_new(d2_interp *I, d2_obj *get, d2_obj *set)
{
    d2_obj *p = d2_obj_alloc(I, D2_OBJ_PROPERTY, NULL, sizeof(d2_property));
    if (!p)
        return NULL;
    D2_AS(d2_property, p)->fget = d2_incref(get);
    D2_AS(d2_property, p)->fset = d2_incref(set);
    return p;
}

int d2_class_add_property(d2_interp *I, d2_class *cls, const char *name, d2_builtin_fn get,
                          d2_builtin_fn set)
{
    d2_obj *g = get ? d2_builtin_new(I, name, get, NULL, NULL) : NULL;
    d2_obj *s = set ? d2_builtin_new(I, name, set, NULL, NULL) : NULL;
    d2_obj *p = ((get && !g) || (set && !s)) ? NULL : property_new(I, g, s);
    d2_decref(g);
    d2_decref(s);
    if (!p)
        return -1;
    int rc = d2_dict_set_str(I, cls->dict, name, p);
    d2_decref(p);
    return rc;
}

d2_module *d2_module_new_builtin(d2_interp *I, const char *name)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_MODULE, NULL, sizeof(d2_module));
    if (!o)
        return NULL;
    d2_module *m = D2_AS(d2_module, o);
    m->name = d2_arena_strdup(I->arena, name);
    d2_obj *d = d2_dict_new(I);
    d2_obj *nm = d2_str_from(I, name);
    if (!m->name || !d || !nm) {
        d2_decref(d);
        d2_decref(nm);
        d2_decref(o);
        return NULL;
    }
    m->dict = D2_AS(d2_dict, d);
    int rc = d2_dict_set_str(I, m->dict, "__name__", nm);
    d2_decref(nm);
    if (rc == 0)
        rc = d2_dict_set_str(I, I->modules, name, o);
    const char *dot = strrchr(name, '.');
    if (rc == 0 && dot) {
        char parent[256];
        snprintf(parent, sizeof parent, "%.*s", (int)(dot - name), name);
        d2_obj *p = d2_dict_get_str(I, I->modules, parent);
        if (p && p->kind == D2_OBJ_MODULE &&
            !d2_dict_get_str(I, D2_AS(d2_module, p)->dict, dot + 1))
            rc = d2_dict_set_str(I, D2_AS(d2_module, p)->dict, dot + 1, o);
    }
    if (rc < 0) {
        d2_decref(o);
        return NULL;
    }
    return m;
}

int d2_module_add_fn(d2_interp *I, d2_module *m, const char *name, d2_builtin_fn fn,
                     const void *data)
{
    d2_obj *b = d2_builtin_new(I, name, fn, NULL, data);
    if (!b)
        return -1;
    int rc = d2_dict_set_str(I, m->dict, name, b);
    d2_decref(b);
    return rc;
}

/* ======================================================================
 * Object protocol
 * ==================================================================== */

static d2_obj *call_with_self(d2_interp *I, d2_obj *fn, d2_obj *self, d2_obj **args, size_t nargs,
                              d2_dict *kw);

/* Calls special method name of o's class with o bound; *found false (and
 * NULL, no exception) when the class has none. */
d2_obj *d2i_call_special(d2_interp *I, d2_obj *o, const char *name, d2_obj **args, size_t nargs,
                         bool *found)
{
    d2_obj *m = d2i_mro_lookup(I, o->cls, name);
    *found = m != NULL;
    if (!m)
        return NULL;
    d2_incref(m);
    d2_obj *r;
    if (m->kind == D2_OBJ_STATICMETHOD)
        r = d2_call(I, D2_AS(d2_wrapper, m)->func, args, nargs, NULL);
    else if (m->kind == D2_OBJ_CLASSMETHOD)
        r = call_with_self(I, D2_AS(d2_wrapper, m)->func, (d2_obj *)o->cls, args, nargs, NULL);
    else
        r = call_with_self(I, m, o, args, nargs, NULL);
    d2_decref(m);
    return r;
}

d2_obj *d2_bound_method_new(d2_interp *I, d2_obj *func, d2_obj *self)
{
    d2_obj *m = d2_obj_alloc(I, D2_OBJ_BOUND_METHOD, NULL, sizeof(d2_bound_method));
    if (!m)
        return NULL;
    D2_AS(d2_bound_method, m)->func = d2_incref(func);
    D2_AS(d2_bound_method, m)->self = d2_incref(self);
    return m;
}

/* Binds a class attribute found on the MRO to receiver o (a class for
 * class-level access when is_class). New reference. */
static d2_obj *bind_descr(d2_interp *I, d2_obj *descr, d2_obj *o, bool is_class)
{
    switch (descr->kind) {
    case D2_OBJ_FUNCTION:
        return is_class ? d2_incref(descr) : d2_bound_method_new(I, descr, o);
    case D2_OBJ_BUILTIN:
        if (descr->cls == I->st->method_descr && !D2_AS(d2_builtin, descr)->self && !is_class)
            return d2_bound_method_new(I, descr, o);
        return d2_incref(descr);
    case D2_OBJ_STATICMETHOD:
        return d2_incref(D2_AS(d2_wrapper, descr)->func);
    case D2_OBJ_CLASSMETHOD:
        return d2_bound_method_new(I, D2_AS(d2_wrapper, descr)->func,
                                   is_class ? o : (d2_obj *)o->cls);
    case D2_OBJ_PROPERTY: {
        if (is_class)
            return d2_incref(descr);
        d2_obj *g = D2_AS(d2_property, descr)->fget;
        if (!g)
            return d2_raise(I, "AttributeError", "property of '%s' object has no getter",
                            d2_type_name(o));
        return call_with_self(I, g, o, NULL, 0, NULL);
    }
    default:
        if (descr->kind == D2_OBJ_INSTANCE || descr->kind >= D2_OBJ_TENSOR) {
            /* user descriptors: __get__(instance or None, owner) */
            bool found;
            d2_obj *args[2] = {is_class ? I->none : o, is_class ? o : (d2_obj *)o->cls};
            d2_incref(descr);
            d2_obj *r = d2i_call_special(I, descr, "__get__", args, 2, &found);
            d2_decref(descr);
            if (found)
                return r;
        }
        return d2_incref(descr);
    }
}

/* Whether a class attribute is a data descriptor (wins over the instance dict). */
static bool is_data_descr(d2_interp *I, d2_obj *descr)
{
    if (descr->kind == D2_OBJ_PROPERTY)
        return true;
    if (descr->kind != D2_OBJ_INSTANCE && descr->kind < D2_OBJ_TENSOR)
        return false;
    return d2i_mro_lookup(I, descr->cls, "__set__") && d2i_mro_lookup(I, descr->cls, "__get__");
}

static d2_obj *attr_error(d2_interp *I, d2_obj *o, const char *name)
{
    if (o->kind == D2_OBJ_MODULE)
        return d2_raise(I, "AttributeError", "module '%s' has no attribute '%s'",
                        D2_AS(d2_module, o)->name, name);
    if (o->kind == D2_OBJ_CLASS)
        return d2_raise(I, "AttributeError", "type object '%s' has no attribute '%s'",
                        D2_AS(d2_class, o)->name, name);
    return d2_raise(I, "AttributeError", "'%s' object has no attribute '%s'", d2_type_name(o),
                    name);
}

static d2_obj *super_getattr(d2_interp *I, d2_obj *sup, const char *name)
{
    d2_dict *d = D2_AS(d2_instance, sup)->dict;
    d2_obj *thiscls = d2_dict_get_str(I, d, "__thisclass__");
    d2_obj *self = d2_dict_get_str(I, d, "__self__");
    if (!thiscls || !self)
        return attr_error(I, sup, name);
    bool self_is_class = self->kind == D2_OBJ_CLASS &&
                         d2i_issubclass(D2_AS(d2_class, self), D2_AS(d2_class, thiscls));
    d2_class *start = self_is_class ? D2_AS(d2_class, self) : self->cls;
    d2_tuple *mro = start->mro;
    size_t i = 0;
    while (i < mro->n && mro->items[i] != thiscls)
        i++;
    size_t n = strlen(name);
    uint64_t h = d2i_hash_bytes(name, n);
    for (i++; i < mro->n; i++) {
        d2_class *c = D2_AS(d2_class, mro->items[i]);
        d2_obj *v = d2i_dict_get_cstr(c->dict, name, n, h);
        if (v) {
            if (self_is_class) {
                if (v->kind == D2_OBJ_CLASSMETHOD)
                    return d2_bound_method_new(I, D2_AS(d2_wrapper, v)->func, self);
                if (v->kind == D2_OBJ_BUILTIN && strcmp(name, "__new__") == 0)
                    return d2_incref(v);
                return bind_descr(I, v, self, true);
            }
            return bind_descr(I, v, self, false);
        }
    }
    return d2_raise(I, "AttributeError", "'super' object has no attribute '%s'", name);
}

/* Attribute lookup without __getattr__ fallback and hooks: class MRO
 * (data descriptors first), then the instance dict. NULL without exception
 * when absent. */
static d2_obj *generic_getattr(d2_interp *I, d2_obj *o, const char *name)
{
    size_t n = strlen(name);
    uint64_t h = d2i_hash_bytes(name, n);
    switch (o->kind) {
    case D2_OBJ_MODULE: {
        d2_obj *v = d2i_dict_get_cstr(D2_AS(d2_module, o)->dict, name, n, h);
        if (v)
            return d2_incref(v);
        if (strcmp(name, "__dict__") == 0)
            return d2_incref((d2_obj *)D2_AS(d2_module, o)->dict);
        break;
    }
    case D2_OBJ_CLASS: {
        d2_class *c = D2_AS(d2_class, o);
        d2_obj *v = d2i_mro_lookup(I, c, name);
        if (v)
            return bind_descr(I, v, o, true);
        if (strcmp(name, "__name__") == 0 || strcmp(name, "__qualname__") == 0)
            return d2_str_from(I, c->name);
        if (strcmp(name, "__mro__") == 0)
            return d2_incref((d2_obj *)c->mro);
        if (strcmp(name, "__bases__") == 0)
            return d2_incref((d2_obj *)c->bases);
        if (strcmp(name, "__dict__") == 0)
            return d2_incref((d2_obj *)c->dict);
        if (strcmp(name, "__module__") == 0)
            return c->module ? d2_str_from(I, c->module->name) : d2_str_from(I, "builtins");
        if (strcmp(name, "__doc__") == 0)
            return d2_none(I);
        break;
    }
    default: {
        d2_obj *descr = d2i_mro_lookup(I, o->cls, name);
        if (descr && is_data_descr(I, descr))
            return bind_descr(I, descr, o, false);
        d2_dict *idict = NULL;
        if (o->kind == D2_OBJ_INSTANCE)
            idict = D2_AS(d2_instance, o)->dict;
        else if (o->kind == D2_OBJ_FUNCTION)
            idict = D2_AS(d2_function, o)->attrs;
        if (idict) {
            d2_obj *v = d2i_dict_get_cstr(idict, name, n, h);
            if (v)
                return d2_incref(v);
        }
        if (descr)
            return bind_descr(I, descr, o, false);
        if (name[0] != '_' || name[1] != '_') {
            /* a method reads its function's attributes (m.forward.code) */
            if (o->kind == D2_OBJ_BOUND_METHOD)
                return generic_getattr(I, D2_AS(d2_bound_method, o)->func, name);
            break;
        }
        if (strcmp(name, "__class__") == 0)
            return d2_incref((d2_obj *)o->cls);
        if (o->kind == D2_OBJ_INSTANCE && strcmp(name, "__dict__") == 0)
            return d2_incref((d2_obj *)D2_AS(d2_instance, o)->dict);
        if (o->kind == D2_OBJ_FUNCTION) {
            d2_function *f = D2_AS(d2_function, o);
            if (strcmp(name, "__name__") == 0)
                return d2_str_from(I, f->name);
            if (strcmp(name, "__qualname__") == 0)
                return d2_str_from(I, f->qualname ? f->qualname : f->name);
            if (strcmp(name, "__module__") == 0)
                return d2_str_from(I, f->module ? f->module->name : "builtins");
            if (strcmp(name, "__doc__") == 0)
                return d2_none(I);
            if (strcmp(name, "__defaults__") == 0)
                return f->defaults ? d2_incref((d2_obj *)f->defaults) : d2_none(I);
            if (strcmp(name, "__dict__") == 0) {
                if (!f->attrs) {
                    d2_obj *d = d2_dict_new(I);
                    if (!d)
                        return NULL;
                    f->attrs = D2_AS(d2_dict, d);
                }
                return d2_incref((d2_obj *)f->attrs);
            }
        }
        if (o->kind == D2_OBJ_BUILTIN) {
            if (strcmp(name, "__name__") == 0 || strcmp(name, "__qualname__") == 0)
                return d2_str_from(I, D2_AS(d2_builtin, o)->name);
            if (strcmp(name, "__self__") == 0)
                return d2_incref(D2_AS(d2_builtin, o)->self ? D2_AS(d2_builtin, o)->self : I->none);
        }
        if (o->kind == D2_OBJ_BOUND_METHOD) {
            if (strcmp(name, "__self__") == 0)
                return d2_incref(D2_AS(d2_bound_method, o)->self);
            if (strcmp(name, "__func__") == 0)
                return d2_incref(D2_AS(d2_bound_method, o)->func);
            return generic_getattr(I, D2_AS(d2_bound_method, o)->func, name);
        }
        if ((o->kind == D2_OBJ_STATICMETHOD || o->kind == D2_OBJ_CLASSMETHOD) &&
            strcmp(name, "__func__") == 0)
            return d2_incref(D2_AS(d2_wrapper, o)->func);
        break;
    }
    }
    return NULL;
}

d2_obj *d2_getattr(d2_interp *I, d2_obj *o, const char *name)
{
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->getattr) {
        d2_obj *v = hk->getattr(I, o, name);
        if (v || I->exc)
            return v;
    }
    if (o->kind == D2_OBJ_INSTANCE && o->cls == I->st->super)
        return super_getattr(I, o, name);
    d2_obj *v = generic_getattr(I, o, name);
    if (v || I->exc)
        return v;
    if (o->cls->flags & D2I_CF_GETATTR && o->kind != D2_OBJ_CLASS) {
        d2_obj *arg = d2_str_from(I, name);
        if (!arg)
            return NULL;
        bool found;
        v = d2i_call_special(I, o, "__getattr__", &arg, 1, &found);
        d2_decref(arg);
        if (found)
            return v;
    }
    return attr_error(I, o, name);
}

d2_obj *d2_getattr_opt(d2_interp *I, d2_obj *o, const char *name)
{
    d2_obj *v = d2_getattr(I, o, name);
    if (!v && d2_exc_matches(I, d2_exc_class(I, "AttributeError")))
        d2_exc_clear(I);
    return v;
}

/* object.__setattr__: properties, then the instance dict. */
int d2i_object_setattr(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    d2_obj *descr = d2i_mro_lookup(I, o->cls, name);
    if (descr && descr->kind != D2_OBJ_PROPERTY && is_data_descr(I, descr)) {
        bool found;
        d2_obj *args[2] = {o, v};
        d2_incref(descr);
        d2_obj *r = d2i_call_special(I, descr, "__set__", args, 2, &found);
        d2_decref(descr);
        d2_decref(r);
        return r ? 0 : -1;
    }
    if (descr && descr->kind == D2_OBJ_PROPERTY) {
        d2_obj *s = D2_AS(d2_property, descr)->fset;
        if (!s) {
            d2_raise(I, "AttributeError", "property '%s' of '%s' object has no setter", name,
                     d2_type_name(o));
            return -1;
        }
        d2_obj *r = call_with_self(I, s, o, &v, 1, NULL);
        d2_decref(r);
        return r ? 0 : -1;
    }
    d2_dict *d = NULL;
    if (o->kind == D2_OBJ_INSTANCE)
        d = D2_AS(d2_instance, o)->dict;
    else if (o->kind == D2_OBJ_FUNCTION) {
        d2_function *f = D2_AS(d2_function, o);
        if (!f->attrs) {
            d2_obj *nd = d2_dict_new(I);
            if (!nd)
                return -1;
            f->attrs = D2_AS(d2_dict, nd);
        }
        d = f->attrs;
    }
    if (!d) {
        if (descr)
            d2_raise(I, "AttributeError", "'%s' object attribute '%s' is read-only",
                     d2_type_name(o), name);
        else
            d2_raise(I, "AttributeError", "'%s' object has no attribute '%s'", d2_type_name(o),
                     name);
        return -1;
    }
    return d2_dict_set_str(I, d, name, v);
}

int d2_setattr(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->setattr) {
        int rc = hk->setattr(I, o, name, v);
        if (rc <= 0)
            return rc;
    }
    switch (o->kind) {
    case D2_OBJ_CLASS: {
        d2_class *c = D2_AS(d2_class, o);
        if (d2_dict_set_str(I, c->dict, name, v) < 0)
            return -1;
        if (name[0] == '_' && name[1] == '_')
            d2i_class_update_flags(I, c);
        return 0;
    }
    case D2_OBJ_MODULE:
        return d2_dict_set_str(I, D2_AS(d2_module, o)->dict, name, v);
    default:
        break;
    }
    if (o->cls->flags & D2I_CF_SETATTR) {
        d2_obj *args[2] = {d2_str_from(I, name), v};
        if (!args[0])
            return -1;
        bool found;
        d2_obj *r = d2i_call_special(I, o, "__setattr__", args, 2, &found);
        d2_decref(args[0]);
        d2_decref(r);
        return r ? 0 : -1;
    }
    return d2i_object_setattr(I, o, name, v);
}

static int delattr(d2_interp *I, d2_obj *o, const char *name)
{
    d2_dict *d = NULL;
    if (o->kind == D2_OBJ_INSTANCE)
        d = D2_AS(d2_instance, o)->dict;
    else if (o->kind == D2_OBJ_MODULE)
        d = D2_AS(d2_module, o)->dict;
    else if (o->kind == D2_OBJ_CLASS)
        d = D2_AS(d2_class, o)->dict;
    if (o->kind == D2_OBJ_INSTANCE && d2i_mro_lookup(I, o->cls, "__delattr__")) {
        d2_obj *arg = d2_str_from(I, name);
        if (!arg)
            return -1;
        bool found;
        d2_obj *r = d2i_call_special(I, o, "__delattr__", &arg, 1, &found);
        d2_decref(arg);
        d2_decref(r);
        return r ? 0 : -1;
    }
    d2_obj *key = d2_str_from(I, name);
    if (!key)
        return -1;
    d2_obj *v = d ? d2i_dict_pop(I, d, key) : NULL;
    d2_decref(key);
    if (!v) {
        if (!I->exc)
            attr_error(I, o, name);
        return -1;
    }
    d2_decref(v);
    return 0;
}

/* Integer value of an index-like object (int, bool, tensor via hooks, __index__). */
int d2i_index(d2_interp *I, d2_obj *o, int64_t *v)
{
    if (o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL) {
        *v = D2_AS(d2_int, o)->v;
        return 0;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    d2_obj *r = NULL;
    if (hk && hk->to_number) {
        r = hk->to_number(I, o, D2_OBJ_INT);
    } else {
        bool found = false;
        if (o->kind != D2_OBJ_FLOAT && o->kind != D2_OBJ_STR)
            r = d2i_call_special(I, o, "__index__", NULL, 0, &found);
        if (!found) {
            d2_raise(I, "TypeError", "'%s' object cannot be interpreted as an integer",
                     d2_type_name(o));
            return -1;
        }
    }
    if (!r)
        return -1;
    int rc = 0;
    if (r->kind == D2_OBJ_INT || r->kind == D2_OBJ_BOOL)
        *v = D2_AS(d2_int, r)->v;
    else {
        d2_raise(I, "TypeError", "__index__ returned non-int (type %s)", d2_type_name(r));
        rc = -1;
    }
    d2_decref(r);
    return rc;
}

/* ---- operators ---- */

static const char *const op_symbol[] = {"+",  "-",  "*", "@", "/", "%", "**",
                                        "<<", ">>", "|", "^", "&", "//"};
static const char *const op_dunder[] = {
    "__add__",    "__sub__",    "__mul__", "__matmul__", "__truediv__", "__mod__",     "__pow__",
    "__lshift__", "__rshift__", "__or__",  "__xor__",    "__and__",     "__floordiv__"};
static const char *const op_rdunder[] = {"__radd__", "__rsub__", "__rmul__", "__rmatmul__",
                                         "__rtruediv__", "__rmod__", "__rpow__", "__rlshift__",
                                         "__rrshift__", "__ror__", "__rxor__", "__rand__",
                                         "__rfloordiv__"};
static const char *const op_idunder[] = {"__iadd__", "__isub__", "__imul__", "__imatmul__",
                                         "__itruediv__", "__imod__", "__ipow__", "__ilshift__",
                                         "__irshift__", "__ior__", "__ixor__", "__iand__",
                                         "__ifloordiv__"};

static d2_obj *overflow(d2_interp *I)
{
    return d2_raise(I, "OverflowError", "integer result out of range (ints are 64-bit)");
}

static int64_t ipow(d2_interp *I, int64_t base, int64_t exp, bool *ovf)
{
    (void)I;
    int64_t r = 1;
    while (exp > 0) {
        if (exp & 1) {
            if (__builtin_mul_overflow(r, base, &r)) {
                *ovf = true;
                return 0;
            }
        }
        exp >>= 1;
        if (exp && __builtin_mul_overflow(base, base, &base)) {
            *ovf = true;
            return 0;
        }
    }
    return r;
}

/* Python's float floor division and modulo. */
static void float_divmod(double x, double y, double *fdiv, double *fmod_)
{
    double mod = fmod(x, y);
    double div = (x - mod) / y;
    if (mod) {
        if ((y < 0) != (mod < 0)) {
            mod += y;
            div -= 1.0;
        }
    } else {
        mod = copysign(0.0, y);
    }
    double fl;
    if (div) {
        fl = floor(div);
        if (div - fl > 0.5)
            fl += 1.0;
    } else {
        fl = copysign(0.0, x / y);
    }
    *fdiv = fl;
    *fmod_ = mod;
}

static d2_obj *num_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (a->kind != D2_OBJ_FLOAT && b->kind != D2_OBJ_FLOAT) {
        int64_t x = D2_AS(d2_int, a)->v, y = D2_AS(d2_int, b)->v, r;
        bool both_bool = a->kind == D2_OBJ_BOOL && b->kind == D2_OBJ_BOOL;
        switch (op) {
        case D2_OP_ADD:
            if (__builtin_add_overflow(x, y, &r))
                return overflow(I);
            return d2_int_new(I, r);
        case D2_OP_SUB:
            if (__builtin_sub_overflow(x, y, &r))
                return overflow(I);
            return d2_int_new(I, r);
        case D2_OP_MULT:
            if (__builtin_mul_overflow(x, y, &r))
                return overflow(I);
            return d2_int_new(I, r);
        case D2_OP_DIV:
            if (y == 0)
                return d2_raise(I, "ZeroDivisionError", "division by zero");
            return d2_float_new(I, (double)x / (double)y);
        case D2_OP_FLOOR_DIV:
        case D2_OP_MOD: {
            if (y == 0)
                return d2_raise(I, "ZeroDivisionError",
                                op == D2_OP_MOD ? "integer modulo by zero"
                                                : "integer division or modulo by zero");
            if (x == INT64_MIN && y == -1)
                return op == D2_OP_MOD ? d2_int_new(I, 0) : overflow(I);
            int64_t q = x / y, m = x % y;
            if (m && ((m < 0) != (y < 0))) {
                q--;
                m += y;
            }
            return d2_int_new(I, op == D2_OP_MOD ? m : q);
        }
        case D2_OP_POW: {
            if (y < 0) {
                if (x == 0)
                    return d2_raise(I, "ZeroDivisionError",
                                    "0.0 cannot be raised to a negative power");
                return d2_float_new(I, pow((double)x, (double)y));
            }
            bool ovf = false;
            r = ipow(I, x, y, &ovf);
            if (ovf)
                return overflow(I);
            return d2_int_new(I, r);
        }
        case D2_OP_LSHIFT:
            if (y < 0)
                return d2_raise(I, "ValueError", "negative shift count");
            if (x == 0)
                return d2_int_new(I, 0);
            if (y >= 63 || (x > 0 ? x > (INT64_MAX >> y) : x < (INT64_MIN >> y)))
                return overflow(I);
            return d2_int_new(I, (int64_t)((uint64_t)x << y));
        case D2_OP_RSHIFT:
            if (y < 0)
                return d2_raise(I, "ValueError", "negative shift count");
            if (y >= 63)
                return d2_int_new(I, x < 0 ? -1 : 0);
            return d2_int_new(I, x < 0 ? ~(~x >> y) : x >> y);
        case D2_OP_BIT_AND:
            return both_bool ? d2_bool(I, x & y) : d2_int_new(I, x & y);
        case D2_OP_BIT_OR:
            return both_bool ? d2_bool(I, x | y) : d2_int_new(I, x | y);
        case D2_OP_BIT_XOR:
            return both_bool ? d2_bool(I, x ^ y) : d2_int_new(I, x ^ y);
        default:
            return NULL;
        }
    }
    double x = a->kind == D2_OBJ_FLOAT ? D2_AS(d2_float, a)->v : (double)D2_AS(d2_int, a)->v;
    double y = b->kind == D2_OBJ_FLOAT ? D2_AS(d2_float, b)->v : (double)D2_AS(d2_int, b)->v;
    switch (op) {
    case D2_OP_ADD: return d2_float_new(I, x + y);
    case D2_OP_SUB: return d2_float_new(I, x - y);
    case D2_OP_MULT: return d2_float_new(I, x * y);
    case D2_OP_DIV:
        if (y == 0)
            return d2_raise(I, "ZeroDivisionError", "float division by zero");
        return d2_float_new(I, x / y);
    case D2_OP_FLOOR_DIV:
    case D2_OP_MOD: {
        if (y == 0)
            return d2_raise(I, "ZeroDivisionError",
                            op == D2_OP_MOD ? "float modulo" : "float floor division by zero");
        double q, m;
        float_divmod(x, y, &q, &m);
        return d2_float_new(I, op == D2_OP_MOD ? m : q);
    }
    case D2_OP_POW: {
        if (x == 0 && y < 0)
            return d2_raise(I, "ZeroDivisionError", "0.0 cannot be raised to a negative power");
        if (x < 0 && y != floor(y) && isfinite(y))
            return d2_raise(I, "ValueError",
                            "negative number cannot be raised to a fractional power");
        double r = pow(x, y);
        if (isinf(r) && isfinite(x) && isfinite(y))
            return d2_raise(I, "OverflowError", "(34, 'Numerical result out of range')");
        return d2_float_new(I, r);
    }
    default:
        return NULL;
    }
}

/* NotImplemented (new ref) when no builtin rule applies. */
static d2_obj *builtin_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    d2_obj_kind ka = a->kind, kb = b->kind;
    if (d2i_is_number(a) && d2i_is_number(b)) {
        d2_obj *r = num_binop(I, op, a, b);
        if (r || I->exc)
            return r;
        return d2_incref(I->not_implemented);
    }
    switch (op) {
    case D2_OP_ADD:
        if (ka == kb && (ka == D2_OBJ_STR || ka == D2_OBJ_LIST || ka == D2_OBJ_TUPLE))
            return d2i_seq_concat(I, a, b);
        break;
    case D2_OP_MULT: {
        d2_obj *seq = NULL, *n = NULL;
        if (ka == D2_OBJ_STR || ka == D2_OBJ_LIST || ka == D2_OBJ_TUPLE) {
            seq = a;
            n = b;
        } else if (kb == D2_OBJ_STR || kb == D2_OBJ_LIST || kb == D2_OBJ_TUPLE) {
            seq = b;
            n = a;
        }
        if (seq) {
            if (n->kind == D2_OBJ_INT || n->kind == D2_OBJ_BOOL)
                return d2i_seq_repeat(I, seq, D2_AS(d2_int, n)->v);
            if (!I->hooks[n->kind] && !(n->cls->flags & D2I_CF_USER))
                return d2_raise(I, "TypeError", "can't multiply sequence by non-int of type '%s'",
                                d2_type_name(n));
        }
        break;
    }
    case D2_OP_MOD:
        if (ka == D2_OBJ_STR)
            return d2i_str_mod(I, a, b);
        break;
    case D2_OP_BIT_OR:
    case D2_OP_BIT_AND:
    case D2_OP_SUB:
    case D2_OP_BIT_XOR:
        if (d2i_is_set(I, a) && d2i_is_set(I, b)) {
            int c = op == D2_OP_BIT_OR    ? '|'
                    : op == D2_OP_BIT_AND ? '&'
                    : op == D2_OP_SUB     ? '-'
                                          : '^';
            return d2i_set_op(I, c, a, b);
        }
        if (op == D2_OP_BIT_OR && ka == D2_OBJ_DICT && kb == D2_OBJ_DICT && !d2i_is_set(I, a) &&
            !d2i_is_set(I, b)) {
            d2_obj *r = d2_dict_new(I);
            if (!r || d2i_dict_merge(I, D2_AS(d2_dict, r), a) < 0 ||
                d2i_dict_merge(I, D2_AS(d2_dict, r), b) < 0) {
                d2_decref(r);
                return NULL;
            }
            return r;
        }
        break;
    default:
        break;
    }
    return d2_incref(I->not_implemented);
}

static d2_obj *binop_error(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (op == D2_OP_ADD &&
        (a->kind == D2_OBJ_STR || a->kind == D2_OBJ_LIST || a->kind == D2_OBJ_TUPLE) &&
        a->cls == I->types[a->kind] && !(b->cls->flags & D2I_CF_USER) && !I->hooks[b->kind])
        return d2_raise(I, "TypeError", "can only concatenate %s (not \"%s\") to %s",
                        d2_type_name(a), d2_type_name(b), d2_type_name(a));
    return d2_raise(I, "TypeError", "unsupported operand type(s) for %s%s: '%s' and '%s'",
                    op_symbol[op], op == D2_OP_POW ? " or pow()" : "", d2_type_name(a),
                    d2_type_name(b));
}

/* Tries a's hook, b's hook, the builtin rules, then __op__/__rop__. */
static d2_obj *binop_impl(d2_interp *I, int op, d2_obj *a, d2_obj *b, bool inplace)
{
    if (d2i_is_number(a) && d2i_is_number(b)) {
        d2_obj *r = num_binop(I, op, a, b);
        if (r || I->exc)
            return r;
        return binop_error(I, op, a, b);
    }
    const d2_type_hooks *ha = I->hooks[a->kind], *hb = I->hooks[b->kind];
    if (ha && ha->binop) {
        d2_obj *r = ha->binop(I, op, a, b);
        if (r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (hb && hb->binop && hb != ha) {
        d2_obj *r = hb->binop(I, op, a, b);
        if (r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (inplace) {
        bool found;
        d2_obj *r = d2i_call_special(I, a, op_idunder[op], &b, 1, &found);
        if (found && r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (a->cls->flags & D2I_CF_USER || a->kind >= D2_OBJ_TENSOR) {
        bool found;
        d2_obj *r = d2i_call_special(I, a, op_dunder[op], &b, 1, &found);
        if (found && r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    d2_obj *r = builtin_binop(I, op, a, b);
    if (r != I->not_implemented)
        return r;
    d2_decref(r);
    if (!(a->cls->flags & D2I_CF_USER) && a->kind < D2_OBJ_TENSOR && a->kind != D2_OBJ_INSTANCE) {
        bool found;
        r = d2i_call_special(I, a, op_dunder[op], &b, 1, &found);
        if (found && r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (b->cls != a->cls || (b->cls->flags & D2I_CF_USER)) {
        bool found;
        r = d2i_call_special(I, b, op_rdunder[op], &a, 1, &found);
        if (found && r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    return binop_error(I, op, a, b);
}

d2_obj *d2_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    return binop_impl(I, op, a, b, false);
}

/* a op= b: lists and sets update in place, else __iop__, else a op b. */
static d2_obj *inplace_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (a->kind == D2_OBJ_LIST && a->cls == I->types[D2_OBJ_LIST]) {
        if (op == D2_OP_ADD) {
            if (d2i_list_extend(I, a, b) < 0)
                return NULL;
            return d2_incref(a);
        }
    }
    if (d2i_is_set(I, a) && d2i_is_set(I, b) &&
        (op == D2_OP_BIT_OR || op == D2_OP_BIT_AND || op == D2_OP_SUB || op == D2_OP_BIT_XOR)) {
        int c = op == D2_OP_BIT_OR ? '|' : op == D2_OP_BIT_AND ? '&' : op == D2_OP_SUB ? '-' : '^';
        d2_obj *r = d2i_set_op(I, c, a, b);
        if (!r)
            return NULL;
        d2_dict *d = D2_AS(d2_dict, a);
        d2i_dict_clear(d);
        int rc = d2i_dict_merge(I, d, r) < 0 ? -1 : 0;
        /* merge of a set copies keys with None values */
        d2_decref(r);
        return rc < 0 ? NULL : d2_incref(a);
    }
    if (d2i_is_number(a) && d2i_is_number(b))
        return binop_impl(I, op, a, b, false);
    return binop_impl(I, op, a, b, a->kind == D2_OBJ_INSTANCE || a->kind >= D2_OBJ_TENSOR);
}

d2_obj *d2_unaryop(d2_interp *I, int op, d2_obj *a)
{
    if (op == D2_UNARY_NOT) {
        int t = d2_truthy(I, a);
        return t < 0 ? NULL : d2_bool(I, !t);
    }
    if (a->kind == D2_OBJ_INT || a->kind == D2_OBJ_BOOL) {
        int64_t v = D2_AS(d2_int, a)->v;
        switch (op) {
        case D2_UNARY_USUB:
            if (v == INT64_MIN)
                return overflow(I);
            return d2_int_new(I, -v);
        case D2_UNARY_UADD:
            return d2_int_new(I, v);
        default:
            return d2_int_new(I, ~v);
        }
    }
    if (a->kind == D2_OBJ_FLOAT) {
        double v = D2_AS(d2_float, a)->v;
        if (op == D2_UNARY_USUB)
            return d2_float_new(I, -v);
        if (op == D2_UNARY_UADD)
            return d2_incref(a);
        return d2_raise(I, "TypeError", "bad operand type for unary ~: 'float'");
    }
    const d2_type_hooks *hk = I->hooks[a->kind];
    if (hk && hk->unaryop)
        return hk->unaryop(I, op, a);
    const char *name = op == D2_UNARY_USUB   ? "__neg__"
                       : op == D2_UNARY_UADD ? "__pos__"
                                             : "__invert__";
    bool found;
    d2_obj *r = d2i_call_special(I, a, name, NULL, 0, &found);
    if (found)
        return r;
    return d2_raise(I, "TypeError", "bad operand type for unary %s: '%s'",
                    op == D2_UNARY_USUB ? "-" : op == D2_UNARY_UADD ? "+" : "~", d2_type_name(a));
}

static const char *const cmp_symbol[] = {"==", "!=", "<",      "<=", ">",
                                         ">=", "is", "is not", "in", "not in"};
static const char *const cmp_dunder[] = {"__eq__", "__ne__", "__lt__",
                                         "__le__", "__gt__", "__ge__"};
static const int cmp_swap[] = {D2_CMP_EQ,   D2_CMP_NOT_EQ, D2_CMP_GT,
                               D2_CMP_GT_E, D2_CMP_LT,     D2_CMP_LT_E};

/* `item in c`: 1, 0, -1. */
static int contains(d2_interp *I, d2_obj *c, d2_obj *item)
{
    int r = d2i_contains(I, c, item);
    if (r != -2)
        return r;
    bool found;
    d2_obj *v = d2i_call_special(I, c, "__contains__", &item, 1, &found);
    if (found) {
        if (!v)
            return -1;
        int t = d2_truthy(I, v);
        d2_decref(v);
        return t;
    }
    d2_obj *it = d2_get_iter(I, c);
    if (!it) {
        if (d2_exc_matches(I, d2_exc_class(I, "TypeError"))) {
            d2_exc_clear(I);
            d2_raise(I, "TypeError", "argument of type '%s' is not iterable", d2_type_name(c));
        }
        return -1;
    }
    for (;;) {
        bool done = false;
        d2_obj *x = d2_iter_next(I, it, &done);
        if (!x) {
            d2_decref(it);
            return done ? 0 : -1;
        }
        int eq = d2_equal(I, x, item);
        d2_decref(x);
        if (eq) {
            d2_decref(it);
            return eq;
        }
    }
}

static d2_obj *rich_compare(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    const d2_type_hooks *ha = I->hooks[a->kind], *hb = I->hooks[b->kind];
    if (ha && ha->compare) {
        d2_obj *r = ha->compare(I, op, a, b);
        if (r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (hb && hb->compare && hb != ha) {
        d2_obj *r = hb->compare(I, op, a, b);
        if (r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    int c = d2i_compare_values(I, op, a, b);
    if (c == -1)
        return NULL;
    if (c >= 0)
        return d2_bool(I, c);
    bool found;
    d2_obj *r = d2i_call_special(I, a, cmp_dunder[op], &b, 1, &found);
    if (found && r != I->not_implemented)
        return r;
    d2_decref(r);
    r = d2i_call_special(I, b, cmp_dunder[cmp_swap[op]], &a, 1, &found);
    if (found && r != I->not_implemented)
        return r;
    d2_decref(r);
    if (op == D2_CMP_NOT_EQ) {
        /* default __ne__ inverts __eq__ */
        r = d2i_call_special(I, a, "__eq__", &b, 1, &found);
        if (found && r != I->not_implemented) {
            if (!r)
                return NULL;
            int t = d2_truthy(I, r);
            d2_decref(r);
            return t < 0 ? NULL : d2_bool(I, !t);
        }
        d2_decref(r);
    }
    if (op == D2_CMP_EQ)
        return d2_bool(I, a == b);
    if (op == D2_CMP_NOT_EQ)
        return d2_bool(I, a != b);
    return d2_raise(I, "TypeError", "'%s' not supported between instances of '%s' and '%s'",
                    cmp_symbol[op], d2_type_name(a), d2_type_name(b));
}

d2_obj *d2_compare(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    switch (op) {
    case D2_CMP_IS: return d2_bool(I, a == b);
    case D2_CMP_IS_NOT: return d2_bool(I, a != b);
    case D2_CMP_IN:
    case D2_CMP_NOT_IN: {
        int r = contains(I, b, a);
        if (r < 0)
            return NULL;
        return d2_bool(I, op == D2_CMP_IN ? r : !r);
    }
    default:
        break;
    }
    if (d2i_is_number(a) && d2i_is_number(b))
        return d2_bool(I, d2i_compare_values(I, op, a, b));
    if (d2i_stack_check(I) < 0)
        return NULL;
    return rich_compare(I, op, a, b);
}

int d2_equal(d2_interp *I, d2_obj *a, d2_obj *b)
{
    if (a == b)
        return 1;
    if ((d2i_is_number(a) && d2i_is_number(b)) || (a->kind == D2_OBJ_STR && b->kind == D2_OBJ_STR))
        return d2i_compare_values(I, D2_CMP_EQ, a, b);
    if (a->kind == D2_OBJ_STR || b->kind == D2_OBJ_STR) {
        if ((a->kind == D2_OBJ_STR || d2i_is_number(a) || a->kind == D2_OBJ_NONE) &&
            (b->kind == D2_OBJ_STR || d2i_is_number(b) || b->kind == D2_OBJ_NONE))
            return 0;
    }
    d2_obj *r = d2_compare(I, D2_CMP_EQ, a, b);
    if (!r)
        return -1;
    int t = d2_truthy(I, r);
    d2_decref(r);
    return t;
}

int d2_truthy(d2_interp *I, d2_obj *o)
{
    switch (o->kind) {
    case D2_OBJ_NONE: return 0;
    case D2_OBJ_BOOL:
    case D2_OBJ_INT: return D2_AS(d2_int, o)->v != 0;
    case D2_OBJ_FLOAT: return D2_AS(d2_float, o)->v != 0;
    case D2_OBJ_STR: return D2_AS(d2_str, o)->len != 0;
    case D2_OBJ_TUPLE: return D2_AS(d2_tuple, o)->n != 0;
    case D2_OBJ_LIST: return D2_AS(d2_list, o)->n != 0;
    case D2_OBJ_DICT: return D2_AS(d2_dict, o)->live != 0;
    case D2_OBJ_RANGE: return d2i_builtin_len(I, o) != 0;
    default: break;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->truthy)
        return hk->truthy(I, o);
    if (o->kind == D2_OBJ_ITERATOR) {
        int64_t n = d2i_builtin_len(I, o);
        if (n != -2)
            return n != 0;
    }
    if (o->kind == D2_OBJ_CLASS || o->kind == D2_OBJ_FUNCTION || o->kind == D2_OBJ_MODULE ||
        o->kind == D2_OBJ_BUILTIN)
        return 1;
    bool found;
    d2_obj *r = d2i_call_special(I, o, "__bool__", NULL, 0, &found);
    if (found) {
        if (!r)
            return -1;
        if (r->kind != D2_OBJ_BOOL) {
            d2_raise(I, "TypeError", "__bool__ should return bool, returned %s", d2_type_name(r));
            d2_decref(r);
            return -1;
        }
        int t = D2_AS(d2_int, r)->v != 0;
        d2_decref(r);
        return t;
    }
    r = d2i_call_special(I, o, "__len__", NULL, 0, &found);
    if (found) {
        if (!r)
            return -1;
        int64_t n;
        int rc = d2i_index(I, r, &n);
        d2_decref(r);
        return rc < 0 ? -1 : n != 0;
    }
    return 1;
}

int64_t d2_len(d2_interp *I, d2_obj *o)
{
    int64_t n = d2i_builtin_len(I, o);
    if (n != -2)
        return n;
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->len)
        return hk->len(I, o);
    bool found;
    d2_obj *r = d2i_call_special(I, o, "__len__", NULL, 0, &found);
    if (found) {
        if (!r)
            return -1;
        int rc = d2i_index(I, r, &n);
        d2_decref(r);
        if (rc < 0)
            return -1;
        if (n < 0) {
            d2_raise(I, "ValueError", "__len__() should return >= 0");
            return -1;
        }
        return n;
    }
    d2_raise(I, "TypeError", "object of type '%s' has no len()", d2_type_name(o));
    return -1;
}

d2_obj *d2_getitem(d2_interp *I, d2_obj *o, d2_obj *key)
{
    switch (o->kind) {
    case D2_OBJ_LIST:
    case D2_OBJ_TUPLE:
    case D2_OBJ_STR:
    case D2_OBJ_RANGE:
        if (o->cls == I->types[o->kind] || !d2i_mro_lookup(I, o->cls, "__getitem__"))
            return d2i_seq_getitem(I, o, key);
        break;
    case D2_OBJ_DICT:
        if (!d2i_is_set(I, o)) {
            d2_obj *v = d2_dict_get(I, D2_AS(d2_dict, o), key);
            if (v)
                return d2_incref(v);
            if (I->exc)
                return NULL;
            if (o->cls != I->types[D2_OBJ_DICT]) {
                bool found;
                v = d2i_call_special(I, o, "__missing__", &key, 1, &found);
                if (found)
                    return v;
            }
            d2_obj *e = d2i_exc_new(I, d2_exc_class(I, "KeyError"), &key, 1);
            if (e)
                d2i_set_exc(I, e);
            return NULL;
        }
        break;
    case D2_OBJ_CLASS:
        /* typing generics: list[int], Dict[str, int] */
        return d2_incref(o);
    default:
        break;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->getitem)
        return hk->getitem(I, o, key);
    bool found;
    d2_obj *r = d2i_call_special(I, o, "__getitem__", &key, 1, &found);
    if (found)
        return r;
    return d2_raise(I, "TypeError", "'%s' object is not subscriptable", d2_type_name(o));
}

int d2_setitem(d2_interp *I, d2_obj *o, d2_obj *key, d2_obj *v)
{
    if (o->kind == D2_OBJ_LIST && o->cls == I->types[D2_OBJ_LIST])
        return d2i_list_setitem(I, o, key, v);
    if (o->kind == D2_OBJ_DICT && o->cls == I->types[D2_OBJ_DICT])
        return d2_dict_set(I, D2_AS(d2_dict, o), key, v);
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->setitem)
        return hk->setitem(I, o, key, v);
    bool found;
    d2_obj *args[2] = {key, v};
    d2_obj *r = d2i_call_special(I, o, "__setitem__", args, 2, &found);
    if (found) {
        d2_decref(r);
        return r ? 0 : -1;
    }
    if (o->kind == D2_OBJ_LIST)
        return d2i_list_setitem(I, o, key, v);
    if (o->kind == D2_OBJ_DICT && !d2i_is_set(I, o))
        return d2_dict_set(I, D2_AS(d2_dict, o), key, v);
    d2_raise(I, "TypeError", "'%s' object does not support item assignment", d2_type_name(o));
    return -1;
}

int d2_delitem(d2_interp *I, d2_obj *o, d2_obj *key)
{
    bool found;
    if (o->cls->flags & D2I_CF_USER) {
        d2_obj *r = d2i_call_special(I, o, "__delitem__", &key, 1, &found);
        if (found) {
            d2_decref(r);
            return r ? 0 : -1;
        }
    }
    if (o->kind == D2_OBJ_LIST)
        return d2i_list_delitem(I, o, key);
    if (o->kind == D2_OBJ_DICT && !d2i_is_set(I, o))
        return d2_dict_del(I, D2_AS(d2_dict, o), key);
    d2_obj *r = d2i_call_special(I, o, "__delitem__", &key, 1, &found);
    if (found) {
        d2_decref(r);
        return r ? 0 : -1;
    }
    d2_raise(I, "TypeError", "'%s' object doesn't support item deletion", d2_type_name(o));
    return -1;
}

/* Iterator over an object with __getitem__ only: indexes until IndexError. */
static d2_obj *getitem_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_obj *k = d2_int_new(I, it->pos++);
    if (!k)
        return NULL;
    d2_obj *v = d2_getitem(I, it->src, k);
    d2_decref(k);
    if (!v && (d2_exc_matches(I, d2_exc_class(I, "IndexError")) ||
               d2_exc_matches(I, d2_exc_class(I, "StopIteration")))) {
        d2_exc_clear(I);
        *done = true;
    }
    return v;
}

d2_obj *d2_get_iter(d2_interp *I, d2_obj *o)
{
    if (o->cls == I->types[o->kind] || !(o->cls->flags & D2I_CF_USER)) {
        d2_obj *it = d2i_builtin_iter(I, o);
        if (it || I->exc)
            return it;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->get_iter)
        return hk->get_iter(I, o);
    bool found;
    d2_obj *r = d2i_call_special(I, o, "__iter__", NULL, 0, &found);
    if (found) {
        if (r && r->kind != D2_OBJ_ITERATOR && !d2i_mro_lookup(I, r->cls, "__next__")) {
            d2_raise(I, "TypeError", "iter() returned non-iterator of type '%s'", d2_type_name(r));
            d2_decref(r);
            return NULL;
        }
        return r;
    }
    d2_obj *it = d2i_builtin_iter(I, o);
    if (it || I->exc)
        return it;
    if (o->kind != D2_OBJ_CLASS && d2i_mro_lookup(I, o->cls, "__getitem__"))
        return d2i_iter_new(I, getitem_iter_next, o);
    return d2_raise(I, "TypeError", "'%s' object is not iterable", d2_type_name(o));
}

d2_obj *d2_iter_next(d2_interp *I, d2_obj *it, bool *done)
{
    *done = false;
    if (it->kind == D2_OBJ_ITERATOR) {
        d2_iter *x = D2_AS(d2_iter, it);
        if (!x->next)
            return d2_raise(I, "TypeError", "'%s' object is not an iterator", d2_type_name(it));
        return x->next(I, x, done);
    }
    bool found;
    d2_obj *r = d2i_call_special(I, it, "__next__", NULL, 0, &found);
    if (!found)
        return d2_raise(I, "TypeError", "'%s' object is not an iterator", d2_type_name(it));
    if (!r && d2_exc_matches(I, d2_exc_class(I, "StopIteration"))) {
        d2_exc_clear(I);
        *done = true;
    }
    return r;
}

d2_obj *d2_repr(d2_interp *I, d2_obj *o)
{
    if (o->kind <= D2_OBJ_FLOAT && o->cls == I->types[o->kind])
        return d2i_builtin_repr(I, o);
    if (d2i_stack_check(I) < 0)
        return NULL;
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->repr)
        return hk->repr(I, o);
    if (o->kind != D2_OBJ_CLASS) {
        d2_obj *m = d2i_mro_lookup(I, o->cls, "__repr__");
        if (m && m != I->st->object_repr) {
            bool found;
            d2_obj *r = d2i_call_special(I, o, "__repr__", NULL, 0, &found);
            if (r && r->kind != D2_OBJ_STR) {
                d2_raise(I, "TypeError", "__repr__ returned non-string (type %s)", d2_type_name(r));
                d2_decref(r);
                return NULL;
            }
            return r;
        }
    }
    return d2i_builtin_repr(I, o);
}

d2_obj *d2_str_of(d2_interp *I, d2_obj *o)
{
    if (o->kind == D2_OBJ_STR && o->cls == I->types[D2_OBJ_STR])
        return d2_incref(o);
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && (hk->str || hk->repr))
        return hk->str ? hk->str(I, o) : hk->repr(I, o);
    if (o->kind != D2_OBJ_CLASS) {
        d2_obj *m = d2i_mro_lookup(I, o->cls, "__str__");
        if (m && m != I->st->object_str) {
            bool found;
            d2_obj *r = d2i_call_special(I, o, "__str__", NULL, 0, &found);
            if (r && r->kind != D2_OBJ_STR) {
                d2_raise(I, "TypeError", "__str__ returned non-string (type %s)", d2_type_name(r));
                d2_decref(r);
                return NULL;
            }
            return r;
        }
    }
    if (o->kind == D2_OBJ_STR)
        return d2_str_new(I, D2_AS(d2_str, o)->s, D2_AS(d2_str, o)->len);
    return d2_repr(I, o);
}

/* ======================================================================
 * The evaluator
 * ==================================================================== */

static d2_obj *eval(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e);
static int exec_body(d2_interp *I, d2i_frame *fr, const d2_ast_seq *body);
static int assign(d2_interp *I, d2i_frame *fr, const d2_ast_expr *t, d2_obj *v);
static d2_obj *call_function(d2_interp *I, d2_function *f, d2_obj *self, d2_obj **args,
                             size_t nargs, d2_dict *kw);

static void frame_push(d2_interp *I, d2i_frame *fr)
{
    fr->prev = I->st->cur;
    I->st->cur = fr;
    if (fr->pf == &fr->f) {
        fr->f.back = I->frame;
        I->frame = &fr->f;
    }
}

static void frame_pop(d2_interp *I, d2i_frame *fr)
{
    I->st->cur = fr->prev;
    if (fr->pf == &fr->f)
        I->frame = fr->f.back;
}

d2_dict *d2i_current_globals(d2_interp *I)
{
    return I->st->cur ? I->st->cur->globals : NULL;
}

static d2_obj *cell_new(d2_interp *I, d2_obj *v)
{
    d2_obj *c = d2_obj_alloc(I, D2_OBJ_CELL, NULL, sizeof(d2_cell));
    if (c)
        D2_AS(d2_cell, c)->value = v; /* steals v */
    else
        d2_decref(v);
    return c;
}

/* The symbol of a Name node in fr's scope, or NULL for nodes made after analysis. */
static sym *node_sym(d2i_frame *fr, const d2_ast_expr *e)
{
    sym *s = pm_get(&fr->unit->names, e);
    if (s)
        return s;
    return fr->code ? code_lookup(fr->code, e->name.id) : NULL;
}

static d2_obj *name_error(d2_interp *I, const char *name)
{
    return d2_raise(I, "NameError", "name '%s' is not defined", name);
}

static d2_obj *load_global(d2_interp *I, d2i_frame *fr, const char *name, size_t n, uint64_t h)
{
    d2_obj *v = d2i_dict_get_cstr(fr->globals, name, n, h);
    if (!v)
        v = d2i_dict_get_cstr(I->builtins, name, n, h);
    return v ? d2_incref(v) : name_error(I, name);
}

static d2_obj *load_sym(d2_interp *I, d2i_frame *fr, sym *s, const char *name)
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
        d2_obj *v = d2i_dict_get_cstr(fr->ns, s->name, s->len, s->hash);
        if (v)
            return d2_incref(v);
        return load_global(I, fr, s->name, s->len, s->hash);
    }
    default:
        return load_global(I, fr, s->name, s->len, s->hash);
    }
}

static int dict_store(d2_interp *I, d2_dict *d, const char *name, size_t n, uint64_t h, d2_obj *v)
{
    d2_obj **slot = d2i_dict_slot_cstr(d, name, n, h);
    if (slot) {
        d2_setref(slot, d2_incref(v));
        return 0;
    }
    d2_obj *k = d2_str_new(I, name, n);
    if (!k)
        return -1;
    int rc = d2i_dict_set_h(I, d, k, h, v);
    d2_decref(k);
    return rc;
}

/* Binds name (symbol s, or looked up by string when s is NULL) to v (borrowed). */
static int store_sym(d2_interp *I, d2i_frame *fr, sym *s, const char *name, d2_obj *v)
{
    if (!s && fr->code)
        s = code_lookup(fr->code, name);
    if (!s) {
        size_t n = strlen(name);
        return dict_store(I, fr->ns ? fr->ns : fr->globals, name, n, d2i_hash_bytes(name, n), v);
    }
    switch (s->res) {
    case R_LOCAL:
        d2_setref(&fr->fast[s->slot], d2_incref(v));
        return 0;
    case R_CELL:
    case R_FREE:
    case R_CLASSDEREF:
        d2_setref(&D2_AS(d2_cell, fr->fast[s->slot])->value, d2_incref(v));
        return 0;
    case R_NAME:
        return dict_store(I, fr->ns, s->name, s->len, s->hash, v);
    default:
        return dict_store(I, fr->globals, s->name, s->len, s->hash, v);
    }
}

static int delete_sym(d2_interp *I, d2i_frame *fr, sym *s, const char *name, bool quiet)
{
    if (!s && fr->code)
        s = code_lookup(fr->code, name);
    d2_dict *d = NULL;
    if (!s)
        d = fr->ns ? fr->ns : fr->globals;
    else if (s->res == R_LOCAL) {
        if (!fr->fast[s->slot]) {
            if (quiet)
                return 0;
            d2_raise(I, "UnboundLocalError",
                     "cannot access local variable '%s' where it is not associated with a value",
                     name);
            return -1;
        }
        d2_setref(&fr->fast[s->slot], NULL);
        return 0;
    } else if (s->res == R_CELL || s->res == R_FREE) {
        d2_setref(&D2_AS(d2_cell, fr->fast[s->slot])->value, NULL);
        return 0;
    } else {
        d = s->res == R_NAME ? fr->ns : fr->globals;
    }
    d2_obj *k = d2_str_from(I, name);
    if (!k)
        return -1;
    d2_obj *v = d2i_dict_pop(I, d, k);
    d2_decref(k);
    if (!v) {
        if (quiet)
            return 0;
        name_error(I, name);
        return -1;
    }
    d2_decref(v);
    return 0;
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
    if (v && pm_put(&fr->unit->consts, e, v) == 0)
        d2_incref(v);
    return v;
}

/* ---- argument vectors ---- */

typedef struct argvec {
    d2_obj *inl[8];
    d2_obj **v;
    size_t n, cap;
} argvec;

static void av_init(argvec *a)
{
    a->v = a->inl;
    a->n = 0;
    a->cap = D2_COUNTOF(a->inl);
}

static int av_push(d2_interp *I, argvec *a, d2_obj *o) /* steals o */
{
    if (a->n == a->cap) {
        size_t cap = a->cap * 2;
        d2_obj **v =
            a->v == a->inl ? d2_malloc(cap * sizeof *v) : d2_realloc(a->v, cap * sizeof *v);
        if (!v) {
            d2_decref(o);
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        if (a->v == a->inl)
            memcpy(v, a->inl, a->n * sizeof *v);
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = o;
    return 0;
}

static void av_free(argvec *a)
{
    for (size_t i = 0; i < a->n; i++)
        d2_decref(a->v[i]);
    if (a->v != a->inl)
        d2_free(a->v);
}

/* Pushes every item of iterable onto a. */
static int av_extend(d2_interp *I, argvec *a, d2_obj *iterable)
{
    d2_obj *it = d2_get_iter(I, iterable);
    if (!it)
        return -1;
    for (;;) {
        bool done = false;
        d2_obj *x = d2_iter_next(I, it, &done);
        if (!x) {
            d2_decref(it);
            return done ? 0 : -1;
        }
        if (av_push(I, a, x) < 0) {
            d2_decref(it);
            return -1;
        }
    }
}

/* Evaluates a list of expressions that may contain *starred items. */
static int eval_items(d2_interp *I, d2i_frame *fr, const d2_ast_seq *elts, argvec *a)
{
    for (uint32_t i = 0; i < elts->n; i++) {
        const d2_ast_expr *x = elts->items[i];
        if (x->kind == D2_AST_STARRED) {
            d2_obj *v = eval(I, fr, x->starred.value);
            if (!v)
                return -1;
            fr->pf->span = x->span;
            int rc = av_extend(I, a, v);
            d2_decref(v);
            if (rc < 0)
                return -1;
            continue;
        }
        d2_obj *v = eval(I, fr, x);
        if (!v || av_push(I, a, v) < 0)
            return -1;
    }
    return 0;
}

/* ---- calls ---- */

static const char *callable_name(d2_obj *f)
{
    if (f->kind == D2_OBJ_FUNCTION)
        return D2_AS(d2_function, f)->qualname;
    if (f->kind == D2_OBJ_BUILTIN)
        return D2_AS(d2_builtin, f)->name;
    if (f->kind == D2_OBJ_CLASS)
        return D2_AS(d2_class, f)->name;
    return d2_type_name(f);
}

static d2_obj *call_builtin(d2_interp *I, d2_builtin *b, d2_obj *self, d2_obj **args, size_t nargs,
                            d2_dict *kw)
{
    size_t mark = I->st->npool;
    d2_obj *r = b->def ? d2_def_call(I, b->def, self, args, nargs, kw && kw->live ? kw : NULL)
                       : b->fn(I, self, args, nargs, kw && kw->live ? kw : NULL);
    pool_release(I, mark);
    if (!r && !I->exc)
        d2_raise(I, "SystemError", "%s() returned NULL without setting an exception", b->name);
    return r;
}

static d2_obj *call_with_self(d2_interp *I, d2_obj *fn, d2_obj *self, d2_obj **args, size_t nargs,
                              d2_dict *kw)
{
    if (fn->kind == D2_OBJ_FUNCTION)
        return call_function(I, D2_AS(d2_function, fn), self, args, nargs, kw);
    if (fn->kind == D2_OBJ_BUILTIN && !D2_AS(d2_builtin, fn)->self)
        return call_builtin(I, D2_AS(d2_builtin, fn), self, args, nargs, kw);
    d2_obj *inl[8], **v = nargs + 1 <= 8 ? inl : d2_malloc((nargs + 1) * sizeof *v);
    if (!v)
        return d2_raise(I, "MemoryError", "out of memory");
    v[0] = self;
    memcpy(v + 1, args, nargs * sizeof *v);
    d2_obj *r = d2_call(I, fn, v, nargs + 1, kw);
    if (v != inl)
        d2_free(v);
    return r;
}

d2_obj *d2_call(d2_interp *I, d2_obj *callable, d2_obj **args, size_t nargs, d2_dict *kwargs)
{
    switch (callable->kind) {
    case D2_OBJ_FUNCTION:
        return call_function(I, D2_AS(d2_function, callable), NULL, args, nargs, kwargs);
    case D2_OBJ_BUILTIN: {
        d2_builtin *b = D2_AS(d2_builtin, callable);
        if (!b->self && callable->cls == I->st->method_descr) {
            /* unbound method descriptor: list.append(l, x) */
            if (nargs == 0)
                return d2_raise(I, "TypeError", "unbound method %s() needs an argument", b->name);
            return call_builtin(I, b, args[0], args + 1, nargs - 1, kwargs);
        }
        return call_builtin(I, b, b->self, args, nargs, kwargs);
    }
    case D2_OBJ_BOUND_METHOD: {
        d2_bound_method *m = D2_AS(d2_bound_method, callable);
        d2_obj *f = d2_incref(m->func), *s = d2_incref(m->self);
        d2_obj *r = call_with_self(I, f, s, args, nargs, kwargs);
        d2_decref(f);
        d2_decref(s);
        return r;
    }
    case D2_OBJ_CLASS:
        return d2i_type_call(I, D2_AS(d2_class, callable), args, nargs, kwargs);
    case D2_OBJ_STATICMETHOD:
    case D2_OBJ_CLASSMETHOD:
        return d2_call(I, D2_AS(d2_wrapper, callable)->func, args, nargs, kwargs);
    default:
        break;
    }
    d2_obj *m = d2i_mro_lookup(I, callable->cls, "__call__");
    if (m) {
        d2_incref(m);
        d2_obj *r = call_with_self(I, m, callable, args, nargs, kwargs);
        d2_decref(m);
        return r;
    }
    return d2_raise(I, "TypeError", "'%s' object is not callable", d2_type_name(callable));
}

d2_obj *d2_call_method(d2_interp *I, d2_obj *o, const char *name, d2_obj **args, size_t nargs,
                       d2_dict *kwargs)
{
    d2_obj *f = d2_getattr(I, o, name);
    if (!f)
        return NULL;
    d2_obj *r = d2_call(I, f, args, nargs, kwargs);
    d2_decref(f);
    return r;
}

static void name_list(d2_buf *b, const char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            d2_buf_puts(b, n == 2 ? " and " : i + 1 == n ? ", and " : ", ");
        d2_buf_printf(b, "'%s'", names[i]);
    }
}

static int param_index(const d2_code *c, const char *name, int from)
{
    for (int i = from; i < c->nargs + c->nkwonly; i++)
        if (strcmp(c->params[i], name) == 0)
            return i;
    return -1;
}

/* Binds call arguments to the parameter slots of fast. */
static int bind_args(d2_interp *I, d2_function *f, d2_obj **fast, d2_obj *self, d2_obj **args,
                     size_t nargs, d2_dict *kw)
{
    const d2_code *c = f->code;
    size_t np = (size_t)c->nargs, total = nargs + (self ? 1 : 0);
#define ARG(i) (self ? ((i) == 0 ? self : args[(i)-1]) : args[(i)])
    size_t npos = total < np ? total : np;
    for (size_t i = 0; i < npos; i++)
        fast[i] = d2_incref(ARG(i));
    size_t ndef = f->defaults ? f->defaults->n : 0;
    if (total > np) {
        if (c->vararg_slot < 0) {
            if (ndef)
                d2_raise(I, "TypeError",
                         "%s() takes from %zu to %zu positional arguments but %zu %s given",
                         f->qualname, np - ndef, np, total, total == 1 ? "was" : "were");
            else
                d2_raise(I, "TypeError", "%s() takes %zu positional argument%s but %zu %s given",
                         f->qualname, np, np == 1 ? "" : "s", total, total == 1 ? "was" : "were");
            return -1;
        }
        d2_obj *t = d2_tuple_new(I, total - np);
        if (!t)
            return -1;
        D2_AS(d2_tuple, t)->n = total - np;
        for (size_t i = np; i < total; i++)
            D2_AS(d2_tuple, t)->items[i - np] = d2_incref(ARG(i));
        fast[c->vararg_slot] = t;
    } else if (c->vararg_slot >= 0) {
        fast[c->vararg_slot] = d2_tuple_new(I, 0);
        if (!fast[c->vararg_slot])
            return -1;
    }
#undef ARG
    d2_dict *kwd = NULL;
    if (c->kwarg_slot >= 0) {
        d2_obj *d = d2_dict_new(I);
        if (!d)
            return -1;
        fast[c->kwarg_slot] = d;
        kwd = D2_AS(d2_dict, d);
    }
    if (kw) {
        for (size_t i = 0; i < kw->n; i++) {
            d2_dict_entry *e = &kw->entries[i];
            if (!e->key)
                continue;
            if (e->key->kind != D2_OBJ_STR) {
                d2_raise(I, "TypeError", "%s() keywords must be strings", f->qualname);
                return -1;
            }
            const char *k = D2_AS(d2_str, e->key)->s;
            int idx = param_index(c, k, c->nposonly);
            if (idx >= 0) {
                if (fast[idx]) {
                    d2_raise(I, "TypeError", "%s() got multiple values for argument '%s'",
                             f->qualname, k);
                    return -1;
                }
                fast[idx] = d2_incref(e->value);
            } else if (kwd) {
                if (d2i_dict_set_h(I, kwd, e->key, e->hash, e->value) < 0)
                    return -1;
            } else if (param_index(c, k, 0) >= 0) {
                d2_raise(
                    I, "TypeError",
                    "%s() got some positional-only arguments passed as keyword arguments: '%s'",
                    f->qualname, k);
                return -1;
            } else {
                d2_raise(I, "TypeError", "%s() got an unexpected keyword argument '%s'",
                         f->qualname, k);
                return -1;
            }
        }
    }
    if (ndef)
        for (size_t i = np - ndef; i < np; i++)
            if (!fast[i])
                fast[i] = d2_incref(f->defaults->items[i - (np - ndef)]);
    const char *missing[64];
    size_t nmiss = 0;
    for (size_t i = 0; i < np; i++)
        if (!fast[i] && nmiss < D2_COUNTOF(missing))
            missing[nmiss++] = c->params[i];
    if (nmiss) {
        d2_buf b;
        d2_buf_init(&b);
        name_list(&b, missing, nmiss);
        d2_raise(I, "TypeError", "%s() missing %zu required positional argument%s: %s", f->qualname,
                 nmiss, nmiss == 1 ? "" : "s", b.data ? b.data : "");
        d2_buf_free(&b);
        return -1;
    }
    for (int i = c->nargs; i < c->nargs + c->nkwonly; i++) {
        if (fast[i])
            continue;
        d2_obj *dv = f->kw_defaults ? d2_dict_get_str(I, f->kw_defaults, c->params[i]) : NULL;
        if (dv) {
            fast[i] = d2_incref(dv);
            continue;
        }
        if (nmiss < D2_COUNTOF(missing))
            missing[nmiss++] = c->params[i];
    }
    if (nmiss) {
        d2_buf b;
        d2_buf_init(&b);
        name_list(&b, missing, nmiss);
        d2_raise(I, "TypeError", "%s() missing %zu required keyword-only argument%s: %s",
                 f->qualname, nmiss, nmiss == 1 ? "" : "s", b.data ? b.data : "");
        d2_buf_free(&b);
        return -1;
    }
    return 0;
}

/* Fills the cell and free-variable slots of a new frame. closure holds the
 * cells in freevar order (a function's) or NULL to take them from parent. */
static int setup_cells(d2_interp *I, const d2_code *c, d2_obj **fast, d2_dict *closure,
                       d2i_frame *parent)
{
    for (int i = 0; i < c->ncell_params; i++) {
        int s = c->cell_params[i];
        d2_obj *cell = cell_new(I, fast[s]);
        fast[s] = cell;
        if (!cell)
            return -1;
    }
    for (int i = 0; i < c->ncell_init; i++) {
        fast[c->cell_init[i]] = cell_new(I, NULL);
        if (!fast[c->cell_init[i]])
            return -1;
    }
    for (int i = 0; i < c->nfree; i++) {
        sym *fv = c->freevars[i];
        d2_obj *cell = NULL;
        if (closure) {
            if ((size_t)i < closure->n)
                cell = closure->entries[i].value;
        } else if (parent && parent->code) {
            sym *ps = code_find(parent->code, fv->name, fv->len, fv->hash);
            if (ps && ps->slot >= 0 && ps->res != R_LOCAL)
                cell = parent->fast[ps->slot];
        }
        if (!cell) {
            d2_raise(I, "SystemError", "no cell for free variable '%s'", fv->name);
            return -1;
        }
        fast[fv->slot] = d2_incref(cell);
    }
    return 0;
}

static d2_obj *generator_error(d2_interp *I, d2_function *f)
{
    d2_frame tmp = {.back = I->frame, .module = f->module, .func_name = f->name,
                    .span = f->code->yield_node->span};
    I->frame = &tmp;
    d2_raise(I, "NotImplementedError",
             "generator functions are not supported: '%s' uses yield", f->name);
    I->frame = tmp.back;
    return NULL;
}

static d2_obj *call_function(d2_interp *I, d2_function *f, d2_obj *self, d2_obj **args,
                             size_t nargs, d2_dict *kw)
{
    const d2_code *c = f->code;
    if (c->yield_node)
        return generator_error(I, f);
    if (I->depth >= D2I_RECURSION_LIMIT)
        return d2_raise(I, "RecursionError", "maximum recursion depth exceeded");
    if (d2i_stack_check(I) < 0)
        return NULL;
    d2_obj *inl[16], **fast = inl;
    if (c->nslots > 16) {
        fast = d2_calloc((size_t)c->nslots, sizeof *fast);
        if (!fast)
            return d2_raise(I, "MemoryError", "out of memory");
    } else {
        memset(inl, 0, sizeof inl);
    }
    I->depth++;
    d2_obj *result = NULL;
    d2i_frame fr;
    memset(&fr, 0, sizeof fr);
    if (bind_args(I, f, fast, self, args, nargs, kw) == 0 &&
        setup_cells(I, c, fast, f->closure, NULL) == 0) {
        fr.pf = &fr.f;
        fr.f.module = f->module;
        fr.f.func_name = f->name;
        fr.f.span = f->def ? f->def->span : f->expr ? f->expr->span : (d2_span){0};
        fr.code = c;
        fr.unit = c->unit;
        fr.fast = fast;
        fr.globals = f->module->dict;
        fr.module = f->module;
        frame_push(I, &fr);
        if (f->expr) {
            result = eval(I, &fr, f->expr);
        } else {
            int x = exec_body(I, &fr, f->body);
            if (x == X_RETURN)
                result = fr.retval ? fr.retval : d2_none(I);
            else if (x != X_ERROR)
                result = d2_none(I);
            else
                d2_decref(fr.retval);
            fr.retval = NULL;
        }
        frame_pop(I, &fr);
    }
    I->depth--;
    for (int i = 0; i < c->nslots; i++)
        d2_decref(fast[i]);
    if (fast != inl)
        d2_free(fast);
    return result;
}

/* A function object for a def or lambda evaluated in fr. */
static d2_obj *make_function(d2_interp *I, d2i_frame *fr, const void *node,
                             const d2_ast_arguments *args, const d2_ast_seq *body,
                             const d2_ast_expr *expr, const d2_ast_stmt *def)
{
    d2_code *c = pm_get(&fr->unit->names, node);
    if (!c)
        return d2_raise(I, "SystemError", "function was not analysed");
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_FUNCTION, NULL, sizeof(d2_function));
    if (!o)
        return NULL;
    d2_function *f = D2_AS(d2_function, o);
    f->name = c->name;
    f->qualname = c->qualname;
    f->args = args;
    f->body = body;
    f->expr = expr;
    f->def = def;
    f->code = c;
    f->is_generator = c->yield_node != NULL;
    f->module = D2_AS(d2_module, d2_incref((d2_obj *)fr->module));
    if (args->defaults.n) {
        d2_obj *t = d2_tuple_new(I, args->defaults.n);
        if (!t)
            goto fail;
        f->defaults = D2_AS(d2_tuple, t);
        for (uint32_t i = 0; i < args->defaults.n; i++) {
            d2_obj *v = eval(I, fr, args->defaults.items[i]);
            if (!v)
                goto fail;
            f->defaults->items[f->defaults->n++] = v;
        }
    }
    for (uint32_t i = 0; i < args->kw_defaults.n; i++) {
        const d2_ast_expr *de = args->kw_defaults.items[i];
        if (!de)
            continue;
        if (!f->kw_defaults) {
            d2_obj *d = d2_dict_new(I);
            if (!d)
                goto fail;
            f->kw_defaults = D2_AS(d2_dict, d);
        }
        d2_obj *v = eval(I, fr, de);
        if (!v)
            goto fail;
        int rc =
            d2_dict_set_str(I, f->kw_defaults, ((d2_ast_arg *)args->kwonlyargs.items[i])->arg, v);
        d2_decref(v);
        if (rc < 0)
            goto fail;
    }
    if (c->nfree) {
        d2_obj *d = d2_dict_new(I);
        if (!d)
            goto fail;
        f->closure = D2_AS(d2_dict, d);
        for (int i = 0; i < c->nfree; i++) {
            sym *fv = c->freevars[i];
            sym *ps = fr->code ? code_find(fr->code, fv->name, fv->len, fv->hash) : NULL;
            d2_obj *cell = ps && ps->slot >= 0 && ps->res != R_LOCAL && ps->res != R_NAME
                               ? fr->fast[ps->slot]
                               : NULL;
            if (!cell) {
                d2_raise(I, "SystemError", "no cell for free variable '%s'", fv->name);
                goto fail;
            }
            if (d2_dict_set_str(I, f->closure, fv->name, cell) < 0)
                goto fail;
        }
    }
    return o;
fail:
    d2_decref(o);
    return NULL;
}

/* Evaluates the call expression e. */
static d2_obj *eval_call(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    const d2_ast_expr *fe = e->call.func;
    d2_obj *fn = NULL, *self = NULL;
    if (fe->kind == D2_AST_ATTRIBUTE) {
        d2_obj *obj = eval(I, fr, fe->attribute.value);
        if (!obj)
            return NULL;
        fr->pf->span = fe->span;
        const char *name = fe->attribute.attr;
        const d2_type_hooks *hk = I->hooks[obj->kind];
        if (obj->kind != D2_OBJ_CLASS && obj->kind != D2_OBJ_MODULE && !(hk && hk->getattr) &&
            obj->cls != I->st->super) {
            d2_obj *descr = d2i_mro_lookup(I, obj->cls, name);
            if (descr && (descr->kind == D2_OBJ_FUNCTION ||
                          (descr->kind == D2_OBJ_BUILTIN && descr->cls == I->st->method_descr &&
                           !D2_AS(d2_builtin, descr)->self))) {
                bool shadowed = obj->kind == D2_OBJ_INSTANCE &&
                                d2_dict_get_str(I, D2_AS(d2_instance, obj)->dict, name);
                if (!shadowed) {
                    fn = d2_incref(descr);
                    self = obj;
                }
            }
        }
        if (!fn) {
            fn = d2_getattr(I, obj, name);
            d2_decref(obj);
            if (!fn)
                return NULL;
        }
    } else if (fe->kind == D2_AST_NAME && e->call.args.n == 0 && e->call.keywords.n == 0 &&
               strcmp(fe->name.id, "super") == 0) {
        fn = eval(I, fr, fe);
        if (!fn)
            return NULL;
        if (fn == (d2_obj *)I->st->super) {
            d2_decref(fn);
            fr->pf->span = e->span;
            sym *cs = fr->code ? code_lookup(fr->code, "__class__") : NULL;
            d2_obj *cls =
                cs && cs->slot >= 0 && fr->fast[cs->slot] && fr->fast[cs->slot]->kind == D2_OBJ_CELL
                    ? D2_AS(d2_cell, fr->fast[cs->slot])->value
                    : NULL;
            if (!cls || cls->kind != D2_OBJ_CLASS)
                return d2_raise(I, "RuntimeError", "super(): __class__ cell not found");
            d2_obj *first = NULL;
            if (fr->code->nargs > 0 && fr->fast[0]) {
                first = fr->fast[0];
                if (first->kind == D2_OBJ_CELL && fr->code->ncell_params &&
                    code_lookup(fr->code, fr->code->params[0])->res == R_CELL)
                    first = D2_AS(d2_cell, first)->value;
            } else if (fr->code->vararg_slot >= 0 && fr->fast[fr->code->vararg_slot] &&
                       D2_AS(d2_tuple, fr->fast[fr->code->vararg_slot])->n) {
                first = D2_AS(d2_tuple, fr->fast[fr->code->vararg_slot])->items[0];
            }
            if (!first)
                return d2_raise(I, "RuntimeError", "super(): no arguments");
            return d2i_super_new(I, D2_AS(d2_class, cls), first);
        }
    } else {
        fn = eval(I, fr, fe);
        if (!fn)
            return NULL;
    }
    argvec av;
    av_init(&av);
    d2_obj *kwo = NULL;
    d2_obj *result = NULL;
    if (eval_items(I, fr, &e->call.args, &av) < 0)
        goto out;
    if (e->call.keywords.n) {
        kwo = d2_dict_new(I);
        if (!kwo)
            goto out;
        d2_dict *kw = D2_AS(d2_dict, kwo);
        for (uint32_t i = 0; i < e->call.keywords.n; i++) {
            const d2_ast_keyword *k = e->call.keywords.items[i];
            d2_obj *v = eval(I, fr, k->value);
            if (!v)
                goto out;
            if (k->arg) {
                size_t n = strlen(k->arg);
                int rc = dict_store(I, kw, k->arg, n, d2i_hash_bytes(k->arg, n), v);
                d2_decref(v);
                if (rc < 0)
                    goto out;
                continue;
            }
            fr->pf->span = k->span;
            if (v->kind != D2_OBJ_DICT || d2i_is_set(I, v)) {
                d2_obj *tmp = d2_dict_new(I);
                if (!tmp || d2i_dict_merge(I, D2_AS(d2_dict, tmp), v) < 0) {
                    if (d2_exc_matches(I, d2_exc_class(I, "TypeError"))) {
                        d2_exc_clear(I);
                        d2_raise(I, "TypeError", "%s() argument after ** must be a mapping, not %s",
                                 callable_name(fn), d2_type_name(v));
                    }
                    d2_decref(tmp);
                    d2_decref(v);
                    goto out;
                }
                d2_decref(v);
                v = tmp;
            }
            d2_dict *src = D2_AS(d2_dict, v);
            for (size_t j = 0; j < src->n; j++) {
                d2_dict_entry *en = &src->entries[j];
                if (!en->key)
                    continue;
                if (en->key->kind != D2_OBJ_STR) {
                    d2_raise(I, "TypeError", "keywords must be strings");
                    d2_decref(v);
                    goto out;
                }
                if (d2i_dict_find(I, kw, en->key, en->hash) >= 0) {
                    d2_raise(I, "TypeError", "%s() got multiple values for keyword argument '%s'",
                             callable_name(fn), D2_AS(d2_str, en->key)->s);
                    d2_decref(v);
                    goto out;
                }
                if (d2i_dict_set_h(I, kw, en->key, en->hash, en->value) < 0) {
                    d2_decref(v);
                    goto out;
                }
            }
            d2_decref(v);
        }
    }
    fr->pf->span = e->span;
    if (self)
        result = call_with_self(I, fn, self, av.v, av.n, kwo ? D2_AS(d2_dict, kwo) : NULL);
    else
        result = d2_call(I, fn, av.v, av.n, kwo ? D2_AS(d2_dict, kwo) : NULL);
    if (!result)
        fr->pf->span = e->span;
out:
    av_free(&av);
    d2_decref(kwo);
    d2_decref(fn);
    d2_decref(self);
    return result;
}

d2_obj *d2i_super_new(d2_interp *I, d2_class *cls, d2_obj *self)
{
    bool ok = d2i_issubclass(self->cls, cls) ||
              (self->kind == D2_OBJ_CLASS && d2i_issubclass(D2_AS(d2_class, self), cls));
    if (!ok)
        return d2_raise(I, "TypeError",
                        "super(type, obj): obj must be an instance or subtype of type");
    d2_obj *s = d2_instance_new(I, I->st->super);
    if (!s)
        return NULL;
    d2_dict *d = D2_AS(d2_instance, s)->dict;
    if (d2_dict_set_str(I, d, "__thisclass__", (d2_obj *)cls) < 0 ||
        d2_dict_set_str(I, d, "__self__", self) < 0) {
        d2_decref(s);
        return NULL;
    }
    return s;
}

/* Calling a class: __new__ (or a plain instance), then __init__. */
d2_obj *d2i_type_call(d2_interp *I, d2_class *cls, d2_obj **args, size_t nargs, d2_dict *kw)
{
    if (cls == I->st->type && nargs == 1 && (!kw || !kw->live))
        return d2_incref((d2_obj *)args[0]->cls);
    d2_obj *newf = d2i_mro_lookup(I, cls, "__new__");
    if (newf == I->st->object_new)
        newf = NULL;
    d2_obj *obj;
    if (newf) {
        d2_incref(newf);
        if (newf->kind == D2_OBJ_BUILTIN)
            obj = call_builtin(I, D2_AS(d2_builtin, newf), (d2_obj *)cls, args, nargs, kw);
        else {
            d2_obj *f = newf->kind == D2_OBJ_STATICMETHOD ? D2_AS(d2_wrapper, newf)->func : newf;
            obj = call_with_self(I, f, (d2_obj *)cls, args, nargs, kw);
        }
        d2_decref(newf);
    } else if (cls->layout == D2_OBJ_INSTANCE) {
        obj = d2_instance_new(I, cls);
    } else {
        return d2_raise(I, "TypeError", "cannot create '%s' instances", cls->name);
    }
    if (!obj)
        return NULL;
    if (!d2i_issubclass(obj->cls, cls))
        return obj;
    d2_obj *init = d2i_mro_lookup(I, cls, "__init__");
    if (init && init != I->st->object_init) {
        d2_incref(init);
        d2_obj *r = call_with_self(I, init, obj, args, nargs, kw);
        d2_decref(init);
        if (!r) {
            d2_decref(obj);
            return NULL;
        }
        if (r->kind != D2_OBJ_NONE) {
            d2_raise(I, "TypeError", "__init__() should return None, not '%s'", d2_type_name(r));
            d2_decref(r);
            d2_decref(obj);
            return NULL;
        }
        d2_decref(r);
    } else if (!newf && (nargs || (kw && kw->live))) {
        d2_decref(obj);
        return d2_raise(I, "TypeError", "%s() takes no arguments", cls->name);
    }
    return obj;
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
        d2_obj *src = eval(I, cf, g->iter);
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
        rc = assign(I, cf, g->target, x);
        d2_decref(x);
        if (rc < 0)
            break;
        bool keep = true;
        for (uint32_t k = 0; k < g->ifs.n && keep; k++) {
            d2_obj *c = eval(I, cf, g->ifs.items[k]);
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
            d2_obj *k = eval(I, cf, e->dict_comp.key);
            d2_obj *v = k ? eval(I, cf, e->dict_comp.value) : NULL;
            if (v)
                cf->pf->span = e->dict_comp.key->span;
            rc = v ? d2_dict_set(I, D2_AS(d2_dict, out), k, v) : -1;
            d2_decref(k);
            d2_decref(v);
        } else {
            d2_obj *v = eval(I, cf, e->list_comp.elt);
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
    d2_obj *first = eval(I, fr, ((d2_ast_comprehension *)gens->items[0])->iter);
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
    int rc = setup_cells(I, c, fast, NULL, fr);
    if (rc == 0) {
        frame_push(I, &cf);
        fr->pf->span = ((d2_ast_comprehension *)gens->items[0])->iter->span;
        rc = comp_loop(I, &cf, e, gens, 0, first, out);
        frame_pop(I, &cf);
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
            d2_obj *v = eval(I, fr, part->formatted_value.value);
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
                spec = eval(I, fr, part->formatted_value.format_spec);
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
            s = eval(I, fr, part);
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
    if (eval_items(I, fr, elts, &av) == 0) {
        if (e->kind == D2_AST_LIST)
            r = d2i_list_from_array(I, av.v, av.n);
        else if (e->kind == D2_AST_TUPLE)
            r = d2i_tuple_from_array(I, av.v, av.n);
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
        if (ke && !(k = eval(I, fr, ke)))
            goto fail;
        d2_obj *v = eval(I, fr, e->dict.values.items[i]);
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
            rc = d2i_dict_merge(I, D2_AS(d2_dict, d), v);
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
        parts[i] = eval(I, fr, pe[i]);
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

static d2_obj *eval(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    if (d2i_stack_check(I) < 0) {
        fr->pf->span = e->span;
        return NULL;
    }
    switch (e->kind) {
    case D2_AST_NAME:
        fr->pf->span = e->span;
        return load_sym(I, fr, node_sym(fr, e), e->name.id);
    case D2_AST_CONSTANT:
        return eval_const(I, fr, e);
    case D2_AST_ATTRIBUTE: {
        d2_obj *o = eval(I, fr, e->attribute.value);
        if (!o)
            return NULL;
        fr->pf->span = e->span;
        d2_obj *r = d2_getattr(I, o, e->attribute.attr);
        d2_decref(o);
        return r;
    }
    case D2_AST_CALL:
        return eval_call(I, fr, e);
    case D2_AST_BIN_OP: {
        d2_obj *a = eval(I, fr, e->bin_op.left);
        if (!a)
            return NULL;
        d2_obj *b = eval(I, fr, e->bin_op.right);
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
        d2_obj *a = eval(I, fr, e->unary_op.operand);
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
            d2_obj *v = eval(I, fr, vals->items[i]);
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
        d2_obj *left = eval(I, fr, e->compare.left);
        if (!left)
            return NULL;
        uint32_t n = e->compare.comparators.n;
        for (uint32_t i = 0; i < n; i++) {
            d2_obj *right = eval(I, fr, e->compare.comparators.items[i]);
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
        d2_obj *c = eval(I, fr, e->if_exp.test);
        if (!c)
            return NULL;
        fr->pf->span = e->if_exp.test->span;
        int t = d2_truthy(I, c);
        d2_decref(c);
        if (t < 0)
            return NULL;
        return eval(I, fr, t ? e->if_exp.body : e->if_exp.orelse);
    }
    case D2_AST_SUBSCRIPT: {
        d2_obj *o = eval(I, fr, e->subscript.value);
        if (!o)
            return NULL;
        d2_obj *k = eval(I, fr, e->subscript.slice);
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
        d2_obj *v = eval(I, fr, e->formatted_value.value);
        if (!v)
            return NULL;
        d2_obj *r = d2i_format(I, v, "");
        d2_decref(v);
        return r;
    }
    case D2_AST_LAMBDA:
        return make_function(I, fr, e, e->lambda.args, NULL, e->lambda.body, NULL);
    case D2_AST_NAMED_EXPR: {
        d2_obj *v = eval(I, fr, e->named_expr.value);
        if (!v)
            return NULL;
        if (store_sym(I, fr, node_sym(fr, e->named_expr.target), e->named_expr.target->name.id, v) <
            0) {
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

/* ---- assignment ---- */

/* Unpacks v into the targets of a tuple/list target (one may be starred). */
static int assign_unpack(d2_interp *I, d2i_frame *fr, const d2_ast_expr *t, d2_obj *v)
{
    const d2_ast_seq *elts = &t->list.elts;
    int star = -1;
    for (uint32_t i = 0; i < elts->n; i++)
        if (((d2_ast_expr *)elts->items[i])->kind == D2_AST_STARRED)
            star = (int)i;
    d2_obj *seq;
    if ((v->kind == D2_OBJ_TUPLE || v->kind == D2_OBJ_LIST) && v->cls == I->types[v->kind])
        seq = d2_incref(v);
    else {
        fr->pf->span = t->span;
        seq = d2_list_from_iterable(I, v);
        if (!seq) {
            if (d2_exc_matches(I, d2_exc_class(I, "TypeError")) &&
                !d2i_mro_lookup(I, v->cls, "__iter__") && !I->hooks[v->kind]) {
                d2_exc_clear(I);
                d2_raise(I, "TypeError", "cannot unpack non-iterable %s object", d2_type_name(v));
            }
            return -1;
        }
    }
    size_t n = seq->kind == D2_OBJ_TUPLE ? D2_AS(d2_tuple, seq)->n : D2_AS(d2_list, seq)->n;
    d2_obj **items =
        seq->kind == D2_OBJ_TUPLE ? D2_AS(d2_tuple, seq)->items : D2_AS(d2_list, seq)->items;
    size_t want = elts->n - (star >= 0 ? 1 : 0);
    fr->pf->span = t->span;
    if (star < 0 && n != want) {
        if (n < want)
            d2_raise(I, "ValueError", "not enough values to unpack (expected %zu, got %zu)", want,
                     n);
        else
            d2_raise(I, "ValueError", "too many values to unpack (expected %zu)", want);
        d2_decref(seq);
        return -1;
    }
    if (star >= 0 && n < want) {
        d2_raise(I, "ValueError", "not enough values to unpack (expected at least %zu, got %zu)",
                 want, n);
        d2_decref(seq);
        return -1;
    }
    /* hold the items: assigning may mutate a list being unpacked */
    d2_obj *hold = d2i_tuple_from_array(I, items, n);
    d2_decref(seq);
    if (!hold)
        return -1;
    items = D2_AS(d2_tuple, hold)->items;
    int rc = 0;
    size_t k = 0;
    for (uint32_t i = 0; i < elts->n && rc == 0; i++) {
        const d2_ast_expr *te = elts->items[i];
        if ((int)i == star) {
            size_t cnt = n - want;
            d2_obj *l = d2i_list_from_array(I, items + k, cnt);
            k += cnt;
            rc = l ? assign(I, fr, te->starred.value, l) : -1;
            d2_decref(l);
        } else {
            rc = assign(I, fr, te, items[k++]);
        }
    }
    d2_decref(hold);
    return rc;
}

static int assign(d2_interp *I, d2i_frame *fr, const d2_ast_expr *t, d2_obj *v)
{
    switch (t->kind) {
    case D2_AST_NAME:
        return store_sym(I, fr, node_sym(fr, t), t->name.id, v);
    case D2_AST_ATTRIBUTE: {
        d2_obj *o = eval(I, fr, t->attribute.value);
        if (!o)
            return -1;
        fr->pf->span = t->span;
        int rc = d2_setattr(I, o, t->attribute.attr, v);
        d2_decref(o);
        return rc;
    }
    case D2_AST_SUBSCRIPT: {
        d2_obj *o = eval(I, fr, t->subscript.value);
        if (!o)
            return -1;
        d2_obj *k = eval(I, fr, t->subscript.slice);
        if (!k) {
            d2_decref(o);
            return -1;
        }
        fr->pf->span = t->span;
        int rc = d2_setitem(I, o, k, v);
        d2_decref(o);
        d2_decref(k);
        return rc;
    }
    case D2_AST_TUPLE:
    case D2_AST_LIST:
        return assign_unpack(I, fr, t, v);
    default:
        fr->pf->span = t->span;
        d2_raise(I, "SyntaxError", "cannot assign to %s", d2_ast_kind_name(t->kind));
        return -1;
    }
}

static int delete_target(d2_interp *I, d2i_frame *fr, const d2_ast_expr *t)
{
    fr->pf->span = t->span;
    switch (t->kind) {
    case D2_AST_NAME:
        return delete_sym(I, fr, node_sym(fr, t), t->name.id, false);
    case D2_AST_ATTRIBUTE: {
        d2_obj *o = eval(I, fr, t->attribute.value);
        if (!o)
            return -1;
        fr->pf->span = t->span;
        int rc = delattr(I, o, t->attribute.attr);
        d2_decref(o);
        return rc;
    }
    case D2_AST_SUBSCRIPT: {
        d2_obj *o = eval(I, fr, t->subscript.value);
        if (!o)
            return -1;
        d2_obj *k = eval(I, fr, t->subscript.slice);
        if (!k) {
            d2_decref(o);
            return -1;
        }
        fr->pf->span = t->span;
        int rc = d2_delitem(I, o, k);
        d2_decref(o);
        d2_decref(k);
        return rc;
    }
    case D2_AST_TUPLE:
    case D2_AST_LIST:
        for (uint32_t i = 0; i < t->list.elts.n; i++)
            if (delete_target(I, fr, t->list.elts.items[i]) < 0)
                return -1;
        return 0;
    default:
        d2_raise(I, "SyntaxError", "cannot delete %s", d2_ast_kind_name(t->kind));
        return -1;
    }
}

static int exec_aug_assign(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    const d2_ast_expr *t = s->aug_assign.target;
    d2_obj *obj = NULL, *key = NULL, *cur = NULL, *rhs = NULL, *res = NULL;
    int rc = -1;
    switch (t->kind) {
    case D2_AST_NAME:
        fr->pf->span = t->span;
        cur = load_sym(I, fr, node_sym(fr, t), t->name.id);
        break;
    case D2_AST_ATTRIBUTE:
        obj = eval(I, fr, t->attribute.value);
        if (obj) {
            fr->pf->span = t->span;
            cur = d2_getattr(I, obj, t->attribute.attr);
        }
        break;
    case D2_AST_SUBSCRIPT:
        obj = eval(I, fr, t->subscript.value);
        if (obj)
            key = eval(I, fr, t->subscript.slice);
        if (key) {
            fr->pf->span = t->span;
            cur = d2_getitem(I, obj, key);
        }
        break;
    default:
        fr->pf->span = t->span;
        d2_raise(I, "SyntaxError", "illegal expression for augmented assignment");
        break;
    }
    if (cur)
        rhs = eval(I, fr, s->aug_assign.value);
    if (rhs) {
        fr->pf->span = s->span;
        res = inplace_binop(I, s->aug_assign.op, cur, rhs);
    }
    if (res) {
        fr->pf->span = t->span;
        if (t->kind == D2_AST_NAME)
            rc = store_sym(I, fr, node_sym(fr, t), t->name.id, res);
        else if (t->kind == D2_AST_ATTRIBUTE)
            rc = d2_setattr(I, obj, t->attribute.attr, res);
        else
            rc = d2_setitem(I, obj, key, res);
    }
    d2_decref(obj);
    d2_decref(key);
    d2_decref(cur);
    d2_decref(rhs);
    d2_decref(res);
    return rc;
}

/* ---- classes ---- */

static int exec_class(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    d2_code *c = pm_get(&fr->unit->names, s);
    if (!c) {
        d2_raise(I, "SystemError", "class was not analysed");
        return -1;
    }
    argvec decos, bases;
    av_init(&decos);
    av_init(&bases);
    d2_obj *ns = NULL, *basest = NULL, *cls = NULL;
    d2_obj *inl[8], **fast = inl;
    int rc = -1;
    memset(inl, 0, sizeof inl);
    for (uint32_t i = 0; i < s->class_def.decorator_list.n; i++) {
        d2_obj *d = eval(I, fr, s->class_def.decorator_list.items[i]);
        if (!d || av_push(I, &decos, d) < 0)
            goto out;
    }
    if (eval_items(I, fr, &s->class_def.bases, &bases) < 0)
        goto out;
    for (uint32_t i = 0; i < s->class_def.keywords.n; i++) {
        const d2_ast_keyword *k = s->class_def.keywords.items[i];
        if (!k->arg || strcmp(k->arg, "metaclass") != 0) {
            fr->pf->span = k->span;
            d2_raise(I, "TypeError", "class keyword arguments are not supported");
            goto out;
        }
    }
    d2_obj_kind layout = D2_OBJ_INSTANCE;
    for (size_t i = 0; i < bases.n; i++) {
        fr->pf->span = ((d2_ast_expr *)s->class_def.bases.items[i])->span;
        if (bases.v[i]->kind != D2_OBJ_CLASS) {
            d2_raise(I, "TypeError", "bases must be types, not %s", d2_type_name(bases.v[i]));
            goto out;
        }
        d2_obj_kind l = D2_AS(d2_class, bases.v[i])->layout;
        if (l != D2_OBJ_INSTANCE) {
            if (layout != D2_OBJ_INSTANCE && layout != l) {
                d2_raise(I, "TypeError", "multiple bases have instance lay-out conflict");
                goto out;
            }
            layout = l;
        }
    }
    ns = d2_dict_new(I);
    d2_obj *modname = ns ? d2_str_from(I, fr->module->name) : NULL;
    d2_obj *qual = modname ? d2_str_from(I, c->qualname) : NULL;
    int ok = qual && d2_dict_set_str(I, D2_AS(d2_dict, ns), "__module__", modname) == 0 &&
             d2_dict_set_str(I, D2_AS(d2_dict, ns), "__qualname__", qual) == 0;
    d2_decref(modname);
    d2_decref(qual);
    if (!ok)
        goto out;
    if (c->nslots > 8 && !(fast = d2_calloc((size_t)c->nslots, sizeof *fast))) {
        d2_raise(I, "MemoryError", "out of memory");
        goto out;
    }
    d2i_frame cf;
    memset(&cf, 0, sizeof cf);
    if (setup_cells(I, c, fast, NULL, fr) < 0)
        goto out;
    cf.pf = &cf.f;
    cf.f.module = fr->module;
    cf.f.func_name = c->name;
    cf.f.span = s->span;
    cf.code = c;
    cf.unit = fr->unit;
    cf.fast = fast;
    cf.ns = D2_AS(d2_dict, ns);
    cf.globals = fr->globals;
    cf.module = fr->module;
    frame_push(I, &cf);
    int x = exec_body(I, &cf, &s->class_def.body);
    frame_pop(I, &cf);
    d2_decref(cf.retval);
    if (x == X_ERROR)
        goto out;
    fr->pf->span = s->span;
    if (bases.n) {
        basest = d2i_tuple_from_array(I, bases.v, bases.n);
        if (!basest)
            goto out;
    }
    d2_class *k = class_make(I, s->class_def.name, basest, D2_AS(d2_dict, ns), layout, fr->module);
    if (!k)
        goto out;
    cls = (d2_obj *)k;
    k->flags |= D2I_CF_USER;
    d2i_class_update_flags(I, k);
    sym *cc = code_lookup(c, "__class__");
    if (cc && cc->res == R_CELL && fast[cc->slot])
        d2_setref(&D2_AS(d2_cell, fast[cc->slot])->value, d2_incref(cls));
    for (size_t i = decos.n; i-- > 0;) {
        d2_obj *r = d2_call(I, decos.v[i], &cls, 1, NULL);
        if (!r)
            goto out;
        d2_decref(cls);
        cls = r;
    }
    rc = store_sym(I, fr, NULL, s->class_def.name, cls);
out:
    for (int i = 0; i < c->nslots; i++)
        d2_decref(fast[i]);
    if (fast != inl)
        d2_free(fast);
    av_free(&decos);
    av_free(&bases);
    d2_decref(ns);
    d2_decref(basest);
    d2_decref(cls);
    return rc;
}

static int exec_def(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    argvec decos;
    av_init(&decos);
    int rc = -1;
    d2_obj *f = NULL;
    for (uint32_t i = 0; i < s->function_def.decorator_list.n; i++) {
        d2_obj *d = eval(I, fr, s->function_def.decorator_list.items[i]);
        if (!d || av_push(I, &decos, d) < 0)
            goto out;
    }
    f = make_function(I, fr, s, s->function_def.args, &s->function_def.body, NULL, s);
    if (!f)
        goto out;
    for (size_t i = decos.n; i-- > 0;) {
        fr->pf->span = ((d2_ast_expr *)s->function_def.decorator_list.items[i])->span;
        d2_obj *r = d2_call(I, decos.v[i], &f, 1, NULL);
        if (!r)
            goto out;
        d2_decref(f);
        f = r;
    }
    rc = store_sym(I, fr, NULL, s->function_def.name, f);
out:
    d2_decref(f);
    av_free(&decos);
    return rc;
}

/* ---- imports ---- */

static int exec_import(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    for (uint32_t i = 0; i < s->import.names.n; i++) {
        const d2_ast_alias *al = s->import.names.items[i];
        fr->pf->span = al->span.line ? al->span : s->span;
        d2_obj *m = d2_import(I, al->name, fr->module);
        if (!m)
            return -1;
        int rc;
        if (al->asname) {
            rc = store_sym(I, fr, NULL, al->asname, m);
        } else {
            const char *dot = strchr(al->name, '.');
            if (dot) {
                char top[256];
                snprintf(top, sizeof top, "%.*s", (int)(dot - al->name), al->name);
                d2_obj *t = d2_dict_get_str(I, I->modules, top);
                rc = t ? store_sym(I, fr, NULL, top, t) : -1;
                if (!t)
                    d2_raise(I, "ModuleNotFoundError", "No module named '%s'", top);
            } else {
                rc = store_sym(I, fr, NULL, al->name, m);
            }
        }
        d2_decref(m);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int exec_import_from(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    const char *modname = s->import_from.module;
    fr->pf->span = s->span;
    if (!modname) {
        /* from . import x: each name is a module beside the importing file */
        for (uint32_t i = 0; i < s->import_from.names.n; i++) {
            const d2_ast_alias *al = s->import_from.names.items[i];
            d2_obj *m = d2_import(I, al->name, fr->module);
            if (!m)
                return -1;
            int rc = store_sym(I, fr, NULL, al->asname ? al->asname : al->name, m);
            d2_decref(m);
            if (rc < 0)
                return -1;
        }
        return 0;
    }
    d2_obj *m = d2_import(I, modname, fr->module);
    if (!m)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < s->import_from.names.n && rc == 0; i++) {
        const d2_ast_alias *al = s->import_from.names.items[i];
        fr->pf->span = al->span.line ? al->span : s->span;
        if (strcmp(al->name, "*") == 0) {
            d2_dict *d = m->kind == D2_OBJ_MODULE ? D2_AS(d2_module, m)->dict : NULL;
            d2_obj *all = d ? d2_dict_get_str(I, d, "__all__") : NULL;
            if (all) {
                d2_obj *names = d2_list_from_iterable(I, all);
                if (!names)
                    rc = -1;
                for (size_t j = 0; names && j < D2_AS(d2_list, names)->n && rc == 0; j++) {
                    d2_obj *nm = D2_AS(d2_list, names)->items[j];
                    const char *cs = d2_to_cstr(I, nm, "__all__ item");
                    d2_obj *v = cs ? d2_getattr(I, m, cs) : NULL;
                    rc = v ? store_sym(I, fr, NULL, cs, v) : -1;
                    d2_decref(v);
                }
                d2_decref(names);
            } else if (d) {
                for (size_t j = 0; j < d->n && rc == 0; j++) {
                    d2_dict_entry *e = &d->entries[j];
                    if (!e->key || e->key->kind != D2_OBJ_STR || D2_AS(d2_str, e->key)->s[0] == '_')
                        continue;
                    rc = store_sym(I, fr, NULL, D2_AS(d2_str, e->key)->s, e->value);
                }
            }
            continue;
        }
        d2_obj *v = m->kind == D2_OBJ_MODULE ? d2_getattr_opt(I, m, al->name) : NULL;
        if (!v && !I->exc) {
            char full[512];
            snprintf(full, sizeof full, "%s.%s", modname, al->name);
            if (d2_dict_get_str(I, I->modules, full)) {
                v = d2_import(I, full, fr->module);
            } else {
                const d2_module *mm = D2_AS(d2_module, m);
                if (mm->path)
                    d2_raise(I, "ImportError", "cannot import name '%s' from '%s' (%s)", al->name,
                             modname, mm->path);
                else
                    d2_raise(I, "ImportError",
                             "cannot import name '%s' from '%s' (unknown location)", al->name,
                             modname);
            }
        }
        if (!v) {
            rc = -1;
            break;
        }
        rc = store_sym(I, fr, NULL, al->asname ? al->asname : al->name, v);
        d2_decref(v);
    }
    d2_decref(m);
    return rc;
}

/* ---- exception handling ---- */

static int push_handled(d2_interp *I, d2_obj *exc)
{
    struct d2_interp_state *st = I->st;
    if (st->nhandled == st->caphandled) {
        size_t cap = st->caphandled ? st->caphandled * 2 : 8;
        d2_obj **p = d2_realloc(st->handled, cap * sizeof *p);
        if (!p) {
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        st->handled = p;
        st->caphandled = cap;
    }
    st->handled[st->nhandled++] = d2_incref(exc);
    return 0;
}

static void pop_handled(d2_interp *I)
{
    d2_decref(I->st->handled[--I->st->nhandled]);
}

/* Whether exc matches an except clause's type value (class or tuple); -1 on error. */
static int exc_match(d2_interp *I, d2_obj *exc, d2_obj *type)
{
    if (type->kind == D2_OBJ_TUPLE) {
        for (size_t i = 0; i < D2_AS(d2_tuple, type)->n; i++) {
            int r = exc_match(I, exc, D2_AS(d2_tuple, type)->items[i]);
            if (r)
                return r;
        }
        return 0;
    }
    if (type->kind != D2_OBJ_CLASS || !d2i_issubclass(D2_AS(d2_class, type), I->st->base_exc)) {
        d2_raise(I, "TypeError",
                 "catching classes that do not inherit from BaseException is not allowed");
        return -1;
    }
    return d2i_issubclass(exc->cls, D2_AS(d2_class, type));
}

static int exec_try(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    int x = exec_body(I, fr, &s->try_.body);
    if (x == X_ERROR && s->try_.handlers.n) {
        d2_obj *exc = I->exc;
        I->exc = NULL;
        bool handled = false;
        for (uint32_t i = 0; i < s->try_.handlers.n; i++) {
            const d2_ast_excepthandler *h = s->try_.handlers.items[i];
            if (h->type) {
                d2_obj *t = eval(I, fr, h->type);
                if (!t) {
                    d2_decref(exc);
                    exc = NULL;
                    break;
                }
                fr->pf->span = h->type->span;
                int m = exc_match(I, exc, t);
                d2_decref(t);
                if (m < 0) {
                    d2_decref(exc);
                    exc = NULL;
                    break;
                }
                if (!m)
                    continue;
            }
            handled = true;
            if (push_handled(I, exc) < 0) {
                x = X_ERROR;
                break;
            }
            if (h->name && store_sym(I, fr, NULL, h->name, exc) < 0)
                x = X_ERROR;
            else
                x = exec_body(I, fr, &h->body);
            pop_handled(I);
            if (h->name) {
                d2_obj *pending = I->exc;
                I->exc = NULL;
                delete_sym(I, fr, NULL, h->name, true);
                d2_exc_clear(I);
                I->exc = pending;
            }
            break;
        }
        if (!handled) {
            if (exc) {
                I->exc = exc;
                exc = NULL;
            }
            x = X_ERROR;
        }
        d2_decref(exc);
    } else if (x == X_NORMAL && s->try_.orelse.n) {
        x = exec_body(I, fr, &s->try_.orelse);
    }
    if (s->try_.finalbody.n) {
        d2_obj *saved_exc = I->exc, *saved_ret = fr->retval;
        I->exc = NULL;
        fr->retval = NULL;
        int fx = exec_body(I, fr, &s->try_.finalbody);
        if (fx == X_NORMAL) {
            I->exc = saved_exc;
            fr->retval = saved_ret;
        } else {
            d2_decref(saved_exc);
            d2_decref(saved_ret);
            x = fx;
        }
    }
    return x;
}

static int exec_raise(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    if (!s->raise.exc) {
        fr->pf->span = s->span;
        if (!I->st->nhandled) {
            d2_raise(I, "RuntimeError", "No active exception to reraise");
            return X_ERROR;
        }
        d2i_set_exc(I, d2_incref(I->st->handled[I->st->nhandled - 1]));
        return X_ERROR;
    }
    d2_obj *v = eval(I, fr, s->raise.exc);
    if (!v)
        return X_ERROR;
    d2_obj *cause = NULL;
    if (s->raise.cause && !(cause = eval(I, fr, s->raise.cause))) {
        d2_decref(v);
        return X_ERROR;
    }
    fr->pf->span = s->span;
    if (v->kind == D2_OBJ_CLASS && d2i_issubclass(D2_AS(d2_class, v), I->st->base_exc)) {
        d2_obj *inst = d2_call(I, v, NULL, 0, NULL);
        d2_decref(v);
        v = inst;
        if (!v) {
            d2_decref(cause);
            return X_ERROR;
        }
        fr->pf->span = s->span;
    }
    if (!d2i_issubclass(v->cls, I->st->base_exc)) {
        d2_decref(v);
        d2_decref(cause);
        d2_raise(I, "TypeError", "exceptions must derive from BaseException");
        return X_ERROR;
    }
    if (cause) {
        if (v->kind == D2_OBJ_INSTANCE)
            d2_dict_set_str(I, D2_AS(d2_instance, v)->dict, "__cause__", cause);
        d2_decref(cause);
    }
    d2i_set_exc(I, v);
    return X_ERROR;
}

/* ---- with ---- */

static int exec_with_items(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s, uint32_t idx)
{
    if (idx == s->with.items.n)
        return exec_body(I, fr, &s->with.body);
    const d2_ast_withitem *w = s->with.items.items[idx];
    d2_obj *mgr = eval(I, fr, w->context_expr);
    if (!mgr)
        return X_ERROR;
    fr->pf->span = w->context_expr->span;
    d2_obj *exitm = d2i_mro_lookup(I, mgr->cls, "__exit__");
    d2_obj *enterm = d2i_mro_lookup(I, mgr->cls, "__enter__");
    if (!enterm || !exitm) {
        d2_raise(I, "TypeError", "'%s' object does not support the context manager protocol",
                 d2_type_name(mgr));
        d2_decref(mgr);
        return X_ERROR;
    }
    bool found;
    d2_obj *val = d2i_call_special(I, mgr, "__enter__", NULL, 0, &found);
    if (!val) {
        d2_decref(mgr);
        return X_ERROR;
    }
    int x;
    if (w->optional_vars && assign(I, fr, w->optional_vars, val) < 0)
        x = X_ERROR;
    else
        x = exec_with_items(I, fr, s, idx + 1);
    d2_decref(val);
    if (x == X_ERROR) {
        d2_obj *exc = I->exc;
        I->exc = NULL;
        if (!exc) {
            d2_decref(mgr);
            return X_ERROR;
        }
        d2_obj *args[3] = {(d2_obj *)exc->cls, exc, I->none};
        push_handled(I, exc);
        d2_obj *r = d2i_call_special(I, mgr, "__exit__", args, 3, &found);
        pop_handled(I);
        int t = r ? d2_truthy(I, r) : -1;
        d2_decref(r);
        if (t > 0) {
            d2_decref(exc);
            x = X_NORMAL;
        } else if (t == 0) {
            I->exc = exc;
        } else {
            d2_decref(exc);
        }
    } else {
        d2_obj *args[3] = {I->none, I->none, I->none};
        d2_obj *saved_ret = fr->retval;
        fr->retval = NULL;
        d2_obj *r = d2i_call_special(I, mgr, "__exit__", args, 3, &found);
        fr->retval = saved_ret;
        if (!r)
            x = X_ERROR;
        d2_decref(r);
    }
    d2_decref(mgr);
    return x;
}

/* ---- statements ---- */

static int exec_for(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    d2_obj *src = eval(I, fr, s->for_.iter);
    if (!src)
        return X_ERROR;
    fr->pf->span = s->for_.iter->span;
    d2_obj *it = d2_get_iter(I, src);
    d2_decref(src);
    if (!it)
        return X_ERROR;
    int x = X_NORMAL;
    bool broke = false;
    for (;;) {
        bool done = false;
        d2_obj *v = d2_iter_next(I, it, &done);
        if (!v) {
            if (!done) {
                fr->pf->span = s->for_.iter->span;
                x = X_ERROR;
            }
            break;
        }
        int rc = assign(I, fr, s->for_.target, v);
        d2_decref(v);
        if (rc < 0) {
            x = X_ERROR;
            break;
        }
        x = exec_body(I, fr, &s->for_.body);
        if (x == X_BREAK) {
            broke = true;
            x = X_NORMAL;
            break;
        }
        if (x == X_CONTINUE)
            x = X_NORMAL;
        if (x != X_NORMAL)
            break;
    }
    d2_decref(it);
    if (x == X_NORMAL && !broke && s->for_.orelse.n)
        x = exec_body(I, fr, &s->for_.orelse);
    return x;
}

static int exec_while(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    for (;;) {
        d2_obj *c = eval(I, fr, s->while_.test);
        if (!c)
            return X_ERROR;
        fr->pf->span = s->while_.test->span;
        int t = d2_truthy(I, c);
        d2_decref(c);
        if (t < 0)
            return X_ERROR;
        if (!t)
            break;
        int x = exec_body(I, fr, &s->while_.body);
        if (x == X_BREAK)
            return X_NORMAL;
        if (x == X_CONTINUE || x == X_NORMAL)
            continue;
        return x;
    }
    if (s->while_.orelse.n)
        return exec_body(I, fr, &s->while_.orelse);
    return X_NORMAL;
}

static int exec_stmt(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s)
{
    fr->pf->span = s->span;
    if (d2i_stack_check(I) < 0)
        return X_ERROR;
    switch (s->kind) {
    case D2_AST_EXPR: {
        d2_obj *v = eval(I, fr, s->expr.value);
        if (!v)
            return X_ERROR;
        d2_decref(v);
        return X_NORMAL;
    }
    case D2_AST_ASSIGN: {
        d2_obj *v = eval(I, fr, s->assign.value);
        if (!v)
            return X_ERROR;
        int rc = 0;
        for (uint32_t i = 0; i < s->assign.targets.n && rc == 0; i++)
            rc = assign(I, fr, s->assign.targets.items[i], v);
        d2_decref(v);
        return rc < 0 ? X_ERROR : X_NORMAL;
    }
    case D2_AST_AUG_ASSIGN:
        return exec_aug_assign(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_ANN_ASSIGN: {
        if (!s->ann_assign.value)
            return X_NORMAL;
        d2_obj *v = eval(I, fr, s->ann_assign.value);
        if (!v)
            return X_ERROR;
        int rc = assign(I, fr, s->ann_assign.target, v);
        d2_decref(v);
        return rc < 0 ? X_ERROR : X_NORMAL;
    }
    case D2_AST_IF: {
        const d2_ast_stmt *cur = s;
        for (;;) {
            d2_obj *c = eval(I, fr, cur->if_.test);
            if (!c)
                return X_ERROR;
            fr->pf->span = cur->if_.test->span;
            int t = d2_truthy(I, c);
            d2_decref(c);
            if (t < 0)
                return X_ERROR;
            if (t)
                return exec_body(I, fr, &cur->if_.body);
            /* elif chains without recursion */
            if (cur->if_.orelse.n == 1 &&
                ((d2_ast_stmt *)cur->if_.orelse.items[0])->kind == D2_AST_IF) {
                cur = cur->if_.orelse.items[0];
                fr->pf->span = cur->span;
                continue;
            }
            return exec_body(I, fr, &cur->if_.orelse);
        }
    }
    case D2_AST_FOR:
        return exec_for(I, fr, s);
    case D2_AST_WHILE:
        return exec_while(I, fr, s);
    case D2_AST_RETURN: {
        d2_obj *v = s->return_.value ? eval(I, fr, s->return_.value) : d2_none(I);
        if (!v)
            return X_ERROR;
        d2_setref(&fr->retval, v);
        return X_RETURN;
    }
    case D2_AST_PASS:
    case D2_AST_GLOBAL:
    case D2_AST_NONLOCAL:
        return X_NORMAL;
    case D2_AST_BREAK:
        return X_BREAK;
    case D2_AST_CONTINUE:
        return X_CONTINUE;
    case D2_AST_FUNCTION_DEF:
        return exec_def(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_CLASS_DEF:
        return exec_class(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_DELETE:
        for (uint32_t i = 0; i < s->delete.targets.n; i++)
            if (delete_target(I, fr, s->delete.targets.items[i]) < 0)
                return X_ERROR;
        return X_NORMAL;
    case D2_AST_IMPORT:
        return exec_import(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_IMPORT_FROM:
        return exec_import_from(I, fr, s) < 0 ? X_ERROR : X_NORMAL;
    case D2_AST_TRY:
        return exec_try(I, fr, s);
    case D2_AST_RAISE:
        return exec_raise(I, fr, s);
    case D2_AST_WITH:
        return exec_with_items(I, fr, s, 0);
    case D2_AST_ASSERT: {
        d2_obj *c = eval(I, fr, s->assert_.test);
        if (!c)
            return X_ERROR;
        fr->pf->span = s->assert_.test->span;
        int t = d2_truthy(I, c);
        d2_decref(c);
        if (t < 0)
            return X_ERROR;
        if (t)
            return X_NORMAL;
        d2_obj *msg = NULL;
        if (s->assert_.msg && !(msg = eval(I, fr, s->assert_.msg)))
            return X_ERROR;
        fr->pf->span = s->span;
        d2_obj *e = d2i_exc_new(I, d2_exc_class(I, "AssertionError"), &msg, msg ? 1 : 0);
        d2_decref(msg);
        if (e)
            d2i_set_exc(I, e);
        return X_ERROR;
    }
    default:
        d2_raise(I, "NotImplementedError", "%s statements are not supported",
                 d2_ast_kind_name(s->kind));
        return X_ERROR;
    }
}

static int exec_body(d2_interp *I, d2i_frame *fr, const d2_ast_seq *body)
{
    for (uint32_t i = 0; i < body->n; i++) {
        int x = exec_stmt(I, fr, body->items[i]);
        if (x != X_NORMAL)
            return x;
    }
    return X_NORMAL;
}

/* ======================================================================
 * Modules, imports, running scripts
 * ==================================================================== */

static int keep_arena(d2_interp *I, d2_arena *a)
{
    struct d2_interp_state *st = I->st;
    if (st->narenas == st->caparenas) {
        size_t cap = st->caparenas ? st->caparenas * 2 : 8;
        d2_arena **p = d2_realloc(st->arenas, cap * sizeof *p);
        if (!p)
            return -1;
        st->arenas = p;
        st->caparenas = cap;
    }
    st->arenas[st->narenas++] = a;
    return 0;
}

/* Executes a parsed module body in module m's globals. 0 or -1 (exception pending). */
static int run_module(d2_interp *I, d2_module *m, const d2_ast_module *ast)
{
    char err[256];
    d2_span espan = ast->span;
    d2i_unit *u = analyze(I, ast, &ast->body, m, &espan, err, sizeof err);
    d2i_frame fr;
    memset(&fr, 0, sizeof fr);
    fr.pf = &fr.f;
    fr.f.module = m;
    fr.f.func_name = "<module>";
    fr.f.span = espan;
    fr.globals = fr.ns = m->dict;
    fr.module = m;
    if (!u) {
        frame_push(I, &fr);
        d2_raise(I, "SyntaxError", "%s", err);
        frame_pop(I, &fr);
        return -1;
    }
    fr.code = u->top;
    fr.unit = u;
    frame_push(I, &fr);
    int x = exec_body(I, &fr, &ast->body);
    frame_pop(I, &fr);
    d2_decref(fr.retval);
    return x == X_ERROR ? -1 : 0;
}

int d2_interp_exec_ast(d2_interp *I, const d2_ast_module *ast, d2_module *m)
{
    char base = 0;
    bool outer = I->st->stack_base == NULL;
    stack_begin(I, &base);
    int rc = run_module(I, m, ast);
    if (outer)
        I->st->stack_base = NULL;
    return rc;
}

/* A new module object for a source file (registered in sys.modules). */
static d2_module *module_new(d2_interp *I, const char *name, const char *path,
                             const d2_ast_module *ast)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_MODULE, NULL, sizeof(d2_module));
    if (!o)
        return NULL;
    d2_module *m = D2_AS(d2_module, o);
    m->name = d2_arena_strdup(I->arena, name);
    m->path = path ? d2_arena_strdup(I->arena, path) : NULL;
    m->ast = ast;
    d2_obj *d = d2_dict_new(I);
    m->dict = d ? D2_AS(d2_dict, d) : NULL;
    d2_obj *nm = d2_str_from(I, name), *fp = path ? d2_str_from(I, path) : d2_none(I);
    int rc = (m->name && d && nm && fp) ? 0 : -1;
    if (rc == 0)
        rc = d2_dict_set_str(I, m->dict, "__name__", nm);
    if (rc == 0)
        rc = d2_dict_set_str(I, m->dict, "__file__", fp);
    if (rc == 0)
        rc = d2_dict_set_str(I, m->dict, "__builtins__", (d2_obj *)I->st->builtins_mod);
    if (rc == 0)
        rc = d2_dict_set_str(I, I->modules, name, o);
    d2_decref(nm);
    d2_decref(fp);
    d2_decref(o);
    if (rc < 0) {
        if (!I->exc)
            d2_raise(I, "MemoryError", "out of memory");
        return NULL;
    }
    return m;
}

/* Parses src; on a syntax error the parser's diagnostic is in I->diag and
 * NULL is returned with a SyntaxError pending. */
static const d2_ast_module *parse_source(d2_interp *I, const char *filename, const char *src,
                                         size_t len)
{
    d2_arena *a = d2_arena_new();
    if (!a || keep_arena(I, a) < 0) {
        d2_arena_delete(a);
        d2_raise(I, "MemoryError", "out of memory");
        return NULL;
    }
    size_t before = I->diag.nerrors;
    const d2_ast_module *ast = d2_ast_parse(a, filename, src, len, &I->diag);
    if (!ast) {
        if (I->diag.nerrors > before && I->diag.last)
            d2_raise(I, "SyntaxError", "%s", I->diag.last->message);
        else
            d2_raise(I, "MemoryError", "out of memory while parsing %s", filename);
        if (I->exc && I->exc->kind == D2_OBJ_INSTANCE)
            d2_dict_set_str(I, D2_AS(d2_instance, I->exc)->dict, "__reported__", I->true_);
        return NULL;
    }
    return ast;
}

/* Parses and runs src as module name (registered before it runs). */
static d2_obj *load_module_source(d2_interp *I, const char *name, const char *path, const char *src,
                                  size_t len)
{
    const d2_ast_module *ast = parse_source(I, path, src, len);
    if (!ast)
        return NULL;
    d2_module *m = module_new(I, name, path, ast);
    if (!m)
        return NULL;
    d2_obj *ref = d2_incref((d2_obj *)m);
    if (run_module(I, m, ast) < 0) {
        d2_obj *pending = I->exc;
        I->exc = NULL;
        d2_obj *k = d2_str_from(I, name);
        if (k)
            d2_decref(d2i_dict_pop(I, I->modules, k));
        d2_decref(k);
        d2_exc_clear(I);
        I->exc = pending;
        d2_decref(ref);
        return NULL;
    }
    return ref;
}

static d2_obj *load_file_module(d2_interp *I, const char *name, const char *path)
{
    size_t len;
    char *src = d2_read_file(path, &len, NULL);
    if (!src)
        return d2_raise(I, "ImportError", "cannot read %s: %s", path, strerror(errno));
    d2_obj *m = load_module_source(I, name, path, src, len);
    d2_free(src);
    return m;
}

static bool is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

d2_obj *d2_import(d2_interp *I, const char *name, const d2_module *from)
{
    d2_obj *m = d2_dict_get_str(I, I->modules, name);
    if (m)
        return d2_incref(m);
    const char *dot = strrchr(name, '.');
    if (dot) {
        char parent[512];
        snprintf(parent, sizeof parent, "%.*s", (int)(dot - name), name);
        d2_obj *p = d2_import(I, parent, from);
        if (!p)
            return NULL;
        d2_decref(p);
        m = d2_dict_get_str(I, I->modules, name);
        if (m)
            return d2_incref(m);
        return d2_raise(I, "ModuleNotFoundError", "No module named '%s'", name);
    }
    /* NAME.py beside the importing file, else beside the main script */
    const char *base = from && from->path ? from->path : NULL;
    if (!base) {
        d2_obj *mm = d2_dict_get_str(I, I->modules, "__main__");
        if (mm && mm->kind == D2_OBJ_MODULE)
            base = D2_AS(d2_module, mm)->path;
    }
    char path[4096];
    const char *slash = base ? strrchr(base, '/') : NULL;
    if (slash)
        snprintf(path, sizeof path, "%.*s/%s.py", (int)(slash - base), base, name);
    else
        snprintf(path, sizeof path, "%s.py", name);
    if (is_file(path))
        return load_file_module(I, name, path);
    const char *src = d2i_embedded_source(name);
    if (src) {
        snprintf(path, sizeof path, "<dy2st>/%s.py", name);
        return load_module_source(I, name, path, src, strlen(src));
    }
    return d2_raise(I, "ModuleNotFoundError", "No module named '%s'", name);
}

/* Renders the pending (uncaught) exception into I->diag and clears it. */
static void render_exception(d2_interp *I)
{
    d2_obj *exc = I->exc;
    I->exc = NULL;
    if (!exc)
        return;
    d2_dict *d = exc->kind == D2_OBJ_INSTANCE ? D2_AS(d2_instance, exc)->dict : NULL;
    if (d && d2_dict_get_str(I, d, "__reported__")) {
        d2_decref(exc);
        return;
    }
    char msgbuf[2048];
    const char *tname = d2_type_name(exc);
    d2_obj *s = d2_str_of(I, exc);
    d2_exc_clear(I);
    const char *mp = NULL;
    if (exc->cls->flags & D2I_CF_USER && exc->cls->module &&
        strcmp(exc->cls->module->name, "__main__") != 0)
        mp = exc->cls->module->name;
    if (s && D2_AS(d2_str, s)->len)
        snprintf(msgbuf, sizeof msgbuf, "%s%s%s: %s", mp ? mp : "", mp ? "." : "", tname,
                 D2_AS(d2_str, s)->s);
    else
        snprintf(msgbuf, sizeof msgbuf, "%s%s%s", mp ? mp : "", mp ? "." : "", tname);
    d2_decref(s);
    d2_obj *tbo = d ? d2_dict_get_str(I, d, "__traceback__") : NULL;
    d2i_tb *tb = tbo && tbo->kind == D2_OBJ_OPAQUE ? D2_AS(d2_opaque, tbo)->payload : NULL;
    if (!tb || tb->n == 0) {
        d2_diag_set_source(&I->diag, "<dy2st>", NULL, 0);
        d2_diag_add(&I->diag, D2_DIAG_ERROR, (d2_span){0}, "%s", msgbuf);
    } else {
        for (size_t i = 0; i < tb->n; i++) {
            const d2i_tb_entry *e = &tb->e[i];
            const d2_module *m = e->module;
            const char *file = m ? (m->path ? m->path : m->name) : "<dy2st>";
            if (m && m->ast)
                d2_diag_set_source(&I->diag, file, m->ast->source, m->ast->source_len);
            else
                d2_diag_set_source(&I->diag, file, NULL, 0);
            if (i == 0)
                d2_diag_add(&I->diag, D2_DIAG_ERROR, e->span, "%s", msgbuf);
            else
                d2_diag_add(&I->diag, D2_DIAG_NOTE, e->span, "called from here");
        }
    }
    d2_decref(exc);
}

int d2_interp_run_source(d2_interp *I, const char *filename, const char *src, size_t len)
{
    char base = 0;
    bool outer = I->st->stack_base == NULL;
    stack_begin(I, &base);
    int rc = -1;
    const d2_ast_module *ast = parse_source(I, filename, src, len);
    if (ast) {
        d2_module *m = module_new(I, "__main__", filename, ast);
        if (m)
            rc = run_module(I, m, ast);
    }
    if (rc < 0 && I->exc && d2_exc_matches(I, d2_exc_class(I, "SystemExit"))) {
        /* sys.exit(): None or 0 is success; a message is reported as an error */
        d2_obj *args = D2_AS(d2_instance, I->exc)->dict
                           ? d2_dict_get_str(I, D2_AS(d2_instance, I->exc)->dict, "args")
                           : NULL;
        d2_obj *code = args && args->kind == D2_OBJ_TUPLE && D2_AS(d2_tuple, args)->n
                           ? D2_AS(d2_tuple, args)->items[0]
                           : I->none;
        if (code->kind == D2_OBJ_NONE || ((code->kind == D2_OBJ_INT || code->kind == D2_OBJ_BOOL) &&
                                          D2_AS(d2_int, code)->v == 0)) {
            rc = 0;
        } else if (code->kind == D2_OBJ_STR) {
            d2_diag_set_source(&I->diag, filename, NULL, 0);
            d2_diag_add(&I->diag, D2_DIAG_ERROR, (d2_span){0}, "%s", D2_AS(d2_str, code)->s);
        }
        d2_exc_clear(I);
    }
    if (rc < 0)
        render_exception(I);
    if (outer)
        I->st->stack_base = NULL;
    return rc;
}

int d2_interp_run_file(d2_interp *I, const char *path)
{
    size_t len;
    char *src = d2_read_file(path, &len, NULL);
    if (!src) {
        d2_diag_set_source(&I->diag, path, NULL, 0);
        d2_diag_add(&I->diag, D2_DIAG_ERROR, (d2_span){0}, "cannot read file: %s", strerror(errno));
        return -1;
    }
    /* sys.argv defaults to [path] */
    d2_obj *sys = d2_dict_get_str(I, I->modules, "sys");
    d2_obj *argv = sys && sys->kind == D2_OBJ_MODULE
                       ? d2_dict_get_str(I, D2_AS(d2_module, sys)->dict, "argv")
                       : NULL;
    if (argv && argv->kind == D2_OBJ_LIST && D2_AS(d2_list, argv)->n == 0) {
        d2_obj *p = d2_str_from(I, path);
        if (!p || d2_list_append(I, argv, p) < 0)
            d2_exc_clear(I);
        d2_decref(p);
    }
    int rc = d2_interp_run_source(I, path, src, len);
    d2_free(src);
    return rc;
}

void d2_warn(d2_interp *I, d2_span span, const d2_module *m, const char *fmt, ...)
{
    char key[64];
    snprintf(key, sizeof key, "%p:%u", (const void *)m, span.start);
    if (d2_dict_get_str(I, I->st->warned, key))
        return;
    d2_dict_set_str(I, I->st->warned, key, I->true_);
    const char *file = m ? (m->path ? m->path : m->name) : "<dy2st>";
    if (m && m->ast)
        d2_diag_set_source(&I->diag, file, m->ast->source, m->ast->source_len);
    else
        d2_diag_set_source(&I->diag, file, NULL, 0);
    va_list ap;
    va_start(ap, fmt);
    d2_diag_item *it = d2_diag_vadd(&I->diag, D2_DIAG_WARNING, span, fmt, ap);
    va_end(ap);
    if (it && !I->opt.quiet_warnings) {
        d2_buf b;
        d2_buf_init(&b);
        d2_diag_render_item(it, &b);
        if (b.data)
            fputs(b.data, I->opt.errout ? I->opt.errout : stderr);
        d2_buf_free(&b);
    }
}

/* ======================================================================
 * Interpreter creation and teardown
 * ==================================================================== */

/* Builtin layouts and their class names; TENSOR, NDARRAY, DTYPE and OPAQUE
 * classes come from the modules that own them. */
static const char *const layout_names[D2_OBJ_KIND_COUNT] = {
    [D2_OBJ_NONE] = "NoneType", [D2_OBJ_BOOL] = "bool", [D2_OBJ_INT] = "int",
    [D2_OBJ_FLOAT] = "float", [D2_OBJ_STR] = "str", [D2_OBJ_TUPLE] = "tuple",
    [D2_OBJ_LIST] = "list", [D2_OBJ_DICT] = "dict", [D2_OBJ_SLICE] = "slice",
    [D2_OBJ_RANGE] = "range", [D2_OBJ_ELLIPSIS] = "ellipsis", [D2_OBJ_FUNCTION] = "function",
    [D2_OBJ_BUILTIN] = "builtin_function_or_method", [D2_OBJ_BOUND_METHOD] = "method",
    [D2_OBJ_CLASS] = "type", [D2_OBJ_INSTANCE] = "object", [D2_OBJ_MODULE] = "module",
    [D2_OBJ_CELL] = "cell", [D2_OBJ_ITERATOR] = "iterator", [D2_OBJ_PROPERTY] = "property",
    [D2_OBJ_STATICMETHOD] = "staticmethod", [D2_OBJ_CLASSMETHOD] = "classmethod",
};

/* object's methods */
static d2_obj *object_init(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)self;
    (void)a;
    if (n || (kw && kw->live))
        return d2_raise(
            I, "TypeError",
            "object.__init__() takes exactly one argument (the instance to initialize)");
    return d2_none(I);
}

static d2_obj *object_setattr_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    if (d2i_no_kwargs(I, "__setattr__", kw) < 0 || d2i_nargs(I, "__setattr__", n, 2, 2) < 0)
        return NULL;
    const char *name = d2_to_cstr(I, a[0], "attribute name");
    if (!name || d2i_object_setattr(I, self, name, a[1]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *object_repr_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    return d2i_builtin_repr(I, self);
}

static d2_obj *object_str_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    return d2_repr(I, self);
}

static d2_obj *object_getattribute_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    if (d2i_no_kwargs(I, "__getattribute__", kw) < 0 ||
        d2i_nargs(I, "__getattribute__", n, 1, 1) < 0)
        return NULL;
    const char *name = d2_to_cstr(I, a[0], "attribute name");
    if (!name)
        return NULL;
    d2_obj *v = generic_getattr(I, self, name);
    if (!v && !I->exc)
        attr_error(I, self, name);
    return v;
}

/* Makes the classes every other object needs: type, object and one per builtin layout. */
static int bootstrap_classes(d2_interp *I)
{
    struct d2_interp_state *st = I->st;
    d2_class *made[D2_OBJ_KIND_COUNT] = {0};
    for (int k = 0; k < D2_OBJ_KIND_COUNT; k++) {
        if (!layout_names[k])
            continue;
        d2_obj *o = d2_obj_alloc(I, D2_OBJ_CLASS, I->types[D2_OBJ_CLASS], sizeof(d2_class));
        if (!o)
            return -1;
        d2_class *c = D2_AS(d2_class, o);
        c->name = d2_arena_strdup(I->arena, layout_names[k]);
        c->layout = (d2_obj_kind)k;
        made[k] = c;
        I->types[k] = c;
    }
    st->type = I->types[D2_OBJ_CLASS];
    st->object = I->types[D2_OBJ_INSTANCE];
    /* every object made so far lacks a class */
    for (d2_obj *o = I->gc_head.gc_next; o != &I->gc_head; o = o->gc_next)
        if (!o->cls)
            o->cls = I->types[o->kind];
    for (int k = 0; k < D2_OBJ_KIND_COUNT; k++) {
        d2_class *c = made[k];
        if (!c)
            continue;
        d2_obj *d = d2_dict_new(I);
        if (!d)
            return -1;
        c->dict = D2_AS(d2_dict, d);
    }
    /* object first: its mro is (object,) and bases () */
    d2_obj *ob = d2_tuple_new(I, 0);
    d2_obj *omro = d2_tuple_pack(I, 1, (d2_obj *)st->object);
    if (!ob || !omro)
        return -1;
    st->object->bases = D2_AS(d2_tuple, ob);
    st->object->mro = D2_AS(d2_tuple, omro);
    for (int k = 0; k < D2_OBJ_KIND_COUNT; k++) {
        d2_class *c = made[k];
        if (!c || c == st->object)
            continue;
        d2_class *base = k == D2_OBJ_BOOL ? I->types[D2_OBJ_INT] : st->object;
        if (k == D2_OBJ_BOOL)
            continue; /* after int */
        c->bases = D2_AS(d2_tuple, d2_tuple_pack(I, 1, (d2_obj *)base));
        c->mro = D2_AS(d2_tuple, d2_tuple_pack(I, 2, (d2_obj *)c, (d2_obj *)base));
        if (!c->bases || !c->mro)
            return -1;
    }
    d2_class *b = made[D2_OBJ_BOOL], *in = I->types[D2_OBJ_INT];
    b->bases = D2_AS(d2_tuple, d2_tuple_pack(I, 1, (d2_obj *)in));
    b->mro = D2_AS(d2_tuple, d2_tuple_pack(I, 3, (d2_obj *)b, (d2_obj *)in, (d2_obj *)st->object));
    if (!b->bases || !b->mro)
        return -1;
    return 0;
}

/* The exception hierarchy: X(name, base). */
#define D2I_EXCEPTIONS(X)                                                                          \
    X("Exception", "BaseException")                                                              \
    X("SystemExit", "BaseException")                                                             \
    X("KeyboardInterrupt", "BaseException")                                                      \
    X("GeneratorExit", "BaseException")                                                          \
    X("ArithmeticError", "Exception")                                                            \
    X("ZeroDivisionError", "ArithmeticError")                                                    \
    X("OverflowError", "ArithmeticError")                                                        \
    X("FloatingPointError", "ArithmeticError")                                                   \
    X("AssertionError", "Exception")                                                             \
    X("AttributeError", "Exception")                                                             \
    X("BufferError", "Exception")                                                                \
    X("EOFError", "Exception")                                                                   \
    X("ImportError", "Exception")                                                                \
    X("ModuleNotFoundError", "ImportError")                                                      \
    X("LookupError", "Exception")                                                                \
    X("IndexError", "LookupError")                                                               \
    X("KeyError", "LookupError")                                                                 \
    X("MemoryError", "Exception")                                                                \
    X("NameError", "Exception")                                                                  \
    X("UnboundLocalError", "NameError")                                                          \
    X("OSError", "Exception")                                                                    \
    X("FileNotFoundError", "OSError")                                                            \
    X("FileExistsError", "OSError")                                                              \
    X("PermissionError", "OSError")                                                              \
    X("RuntimeError", "Exception")                                                               \
    X("NotImplementedError", "RuntimeError")                                                     \
    X("RecursionError", "RuntimeError")                                                          \
    X("StopIteration", "Exception")                                                              \
    X("SyntaxError", "Exception")                                                                \
    X("IndentationError", "SyntaxError")                                                         \
    X("SystemError", "Exception")                                                                \
    X("TypeError", "Exception")                                                                  \
    X("ValueError", "Exception")                                                                 \
    X("UnicodeError", "ValueError")                                                              \
    X("Warning", "Exception")                                                                    \
    X("UserWarning", "Warning")                                                                  \
    X("DeprecationWarning", "Warning")                                                           \
    X("RuntimeWarning", "Warning")

static d2_obj *exc_new_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)kw;
    return d2i_exc_new(I, D2_AS(d2_class, self), a, n);
}

static d2_obj *exc_init_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)kw;
    d2_obj *t = d2i_tuple_from_array(I, a, n);
    if (!t || self->kind != D2_OBJ_INSTANCE ||
        d2_dict_set_str(I, D2_AS(d2_instance, self)->dict, "args", t) < 0) {
        d2_decref(t);
        return t ? d2_raise(I, "TypeError", "bad exception object") : NULL;
    }
    d2_decref(t);
    return d2_none(I);
}

static d2_obj *exc_args(d2_interp *I, d2_obj *self)
{
    d2_obj *a = self->kind == D2_OBJ_INSTANCE
                    ? d2_dict_get_str(I, D2_AS(d2_instance, self)->dict, "args")
                    : NULL;
    return a && a->kind == D2_OBJ_TUPLE ? a : I->st->empty_tuple;
}

static d2_obj *exc_str_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_obj *args = exc_args(I, self);
    d2_tuple *t = D2_AS(d2_tuple, args);
    if (t->n == 0)
        return d2_str_new(I, "", 0);
    if (t->n == 1) {
        if (d2i_issubclass(self->cls, D2_AS(d2_class, d2_dict_get_str(I, I->builtins, "KeyError"))))
            return d2_repr(I, t->items[0]);
        return d2_str_of(I, t->items[0]);
    }
    return d2_repr(I, args);
}

static d2_obj *exc_repr_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_obj *args = exc_args(I, self);
    d2_tuple *t = D2_AS(d2_tuple, args);
    d2_obj *r = t->n == 1 ? d2_repr(I, t->items[0]) : d2_repr(I, args);
    if (!r)
        return NULL;
    d2_obj *out;
    if (t->n == 1)
        out = d2_str_printf(I, "%s(%s)", d2_type_name(self), D2_AS(d2_str, r)->s);
    else
        out = d2_str_printf(I, "%s%s", d2_type_name(self), D2_AS(d2_str, r)->s);
    d2_decref(r);
    return out;
}

static d2_obj *stop_value_get(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_tuple *t = D2_AS(d2_tuple, exc_args(I, self));
    return d2_incref(t->n ? t->items[0] : I->none);
}

static int make_exceptions(d2_interp *I)
{
    struct d2_interp_state *st = I->st;
    d2_class *be = d2i_class_new(I, "BaseException", NULL, D2_OBJ_INSTANCE, NULL, false);
    if (!be)
        return -1;
    st->base_exc = be;
    be->flags |= D2I_CF_EXC;
    if (d2_dict_set_str(I, I->builtins, "BaseException", (d2_obj *)be) < 0 ||
        d2_class_add_method(I, be, "__new__", exc_new_m) < 0 ||
        d2_class_add_method(I, be, "__init__", exc_init_m) < 0 ||
        d2_class_add_method(I, be, "__str__", exc_str_m) < 0 ||
        d2_class_add_method(I, be, "__repr__", exc_repr_m) < 0)
        return -1;
    d2_decref((d2_obj *)be);
#define X(name, base)                                                                              \
    {                                                                                              \
        d2_obj *b = d2_dict_get_str(I, I->builtins, base);                                         \
        d2_class *c = d2i_class_new(I, name, D2_AS(d2_class, b), D2_OBJ_INSTANCE, NULL, false);    \
        if (!c || d2_dict_set_str(I, I->builtins, name, (d2_obj *)c) < 0)                          \
            return -1;                                                                             \
        d2_decref((d2_obj *)c);                                                                    \
    }
    D2I_EXCEPTIONS(X)
#undef X
    d2_class *si = D2_AS(d2_class, d2_dict_get_str(I, I->builtins, "StopIteration"));
    return d2_class_add_property(I, si, "value", stop_value_get, NULL);
}

static d2_obj *property_setter(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    if (d2i_no_kwargs(I, "setter", kw) < 0 || d2i_nargs(I, "setter", n, 1, 1) < 0)
        return NULL;
    return property_new(I, D2_AS(d2_property, self)->fget, a[0]);
}

static d2_obj *property_getter(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    if (d2i_no_kwargs(I, "getter", kw) < 0 || d2i_nargs(I, "getter", n, 1, 1) < 0)
        return NULL;
    return property_new(I, a[0], D2_AS(d2_property, self)->fset);
}

static d2_obj *property_fget(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_obj *g = D2_AS(d2_property, self)->fget;
    return d2_incref(g ? g : I->none);
}

static d2_obj *property_new_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)self;
    d2_obj *p[4];
    if (d2_parse_args(I, "property", "fget=None, fset=None, fdel=None, doc=None", a, n, kw, p) < 0)
        return NULL;
    return property_new(I, p[0]->kind == D2_OBJ_NONE ? NULL : p[0],
                        p[1]->kind == D2_OBJ_NONE ? NULL : p[1]);
}

static d2_obj *wrapper_new(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    d2_class *c = D2_AS(d2_class, self);
    if (d2i_no_kwargs(I, c->name, kw) < 0 || d2i_nargs(I, c->name, n, 1, 1) < 0)
        return NULL;
    d2_obj *w = d2_obj_alloc(I, c->layout, c, sizeof(d2_wrapper));
    if (w)
        D2_AS(d2_wrapper, w)->func = d2_incref(a[0]);
    return w;
}

static d2_obj *super_new_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)self;
    if (d2i_no_kwargs(I, "super", kw) < 0)
        return NULL;
    if (n != 2 || a[0]->kind != D2_OBJ_CLASS)
        return d2_raise(I, "RuntimeError", "super(): no arguments");
    return d2i_super_new(I, D2_AS(d2_class, a[0]), a[1]);
}

static int make_core_objects(d2_interp *I)
{
    struct d2_interp_state *st = I->st;
    if (bootstrap_classes(I) < 0)
        return -1;
    /* singletons */
    I->none = d2_obj_alloc(I, D2_OBJ_NONE, NULL, sizeof(d2_obj));
    I->true_ = d2_obj_alloc(I, D2_OBJ_BOOL, NULL, sizeof(d2_int));
    I->false_ = d2_obj_alloc(I, D2_OBJ_BOOL, NULL, sizeof(d2_int));
    I->ellipsis = d2_obj_alloc(I, D2_OBJ_ELLIPSIS, NULL, sizeof(d2_obj));
    if (!I->none || !I->true_ || !I->false_ || !I->ellipsis)
        return -1;
    D2_AS(d2_int, I->true_)->v = 1;
    for (int64_t v = D2I_SMALL_MIN; v <= D2I_SMALL_MAX; v++) {
        d2_obj *o = d2_obj_alloc(I, D2_OBJ_INT, NULL, sizeof(d2_int));
        if (!o)
            return -1;
        D2_AS(d2_int, o)->v = v;
        st->small_ints[v - D2I_SMALL_MIN] = o;
    }
    st->empty_tuple = d2_tuple_new(I, 0);
    st->empty_str = d2_str_new(I, "", 0);
    if (!st->empty_tuple || !st->empty_str)
        return -1;
    d2_obj *mods = d2_dict_new(I), *bi = d2_dict_new(I);
    d2_obj *cache = d2_dict_new(I), *warned = d2_dict_new(I);
    if (!mods || !bi || !cache || !warned) {
        d2_decref(mods);
        d2_decref(bi);
        d2_decref(cache);
        d2_decref(warned);
        return -1;
    }
    I->modules = D2_AS(d2_dict, mods);
    I->builtins = D2_AS(d2_dict, bi);
    st->arg_cache = D2_AS(d2_dict, cache);
    st->warned = D2_AS(d2_dict, warned);
    /* more builtin classes */
    st->set = d2i_class_new(I, "set", NULL, D2_OBJ_DICT, NULL, false);
    st->method_descr = d2i_class_new(I, "method_descriptor", NULL, D2_OBJ_BUILTIN, NULL, false);
    st->super = d2i_class_new(I, "super", NULL, D2_OBJ_INSTANCE, NULL, false);
    st->notimpl_type = d2i_class_new(I, "NotImplementedType", NULL, D2_OBJ_OPAQUE, NULL, false);
    st->tb_type = d2i_class_new(I, "traceback", NULL, D2_OBJ_OPAQUE, NULL, false);
    if (!st->set || !st->method_descr || !st->super || !st->notimpl_type || !st->tb_type)
        return -1;
    I->not_implemented = d2_obj_alloc(I, D2_OBJ_OPAQUE, st->notimpl_type, sizeof(d2_opaque));
    if (!I->not_implemented)
        return -1;
    /* object's methods */
    if (d2_class_add_method(I, st->object, "__init__", object_init) < 0 ||
        d2_class_add_method(I, st->object, "__setattr__", object_setattr_m) < 0 ||
        d2_class_add_method(I, st->object, "__repr__", object_repr_m) < 0 ||
        d2_class_add_method(I, st->object, "__str__", object_str_m) < 0 ||
        d2_class_add_method(I, st->object, "__getattribute__", object_getattribute_m) < 0)
        return -1;
    st->object_init = d2_dict_get_str(I, st->object->dict, "__init__");
    st->object_setattr = d2_dict_get_str(I, st->object->dict, "__setattr__");
    st->object_repr = d2_dict_get_str(I, st->object->dict, "__repr__");
    st->object_str = d2_dict_get_str(I, st->object->dict, "__str__");
    /* classes made before object had methods have stale flags */
    for (d2_obj *o = I->gc_head.gc_next; o != &I->gc_head; o = o->gc_next)
        if (o->kind == D2_OBJ_CLASS)
            d2i_class_update_flags(I, D2_AS(d2_class, o));
    d2_class *prop = I->types[D2_OBJ_PROPERTY];
    if (d2_class_add_method(I, prop, "setter", property_setter) < 0 ||
        d2_class_add_method(I, prop, "getter", property_getter) < 0 ||
        d2_class_add_property(I, prop, "fget", property_fget, NULL) < 0 ||
        d2_class_add_method(I, prop, "__new__", property_new_m) < 0 ||
        d2_class_add_method(I, I->types[D2_OBJ_STATICMETHOD], "__new__", wrapper_new) < 0 ||
        d2_class_add_method(I, I->types[D2_OBJ_CLASSMETHOD], "__new__", wrapper_new) < 0 ||
        d2_class_add_method(I, st->super, "__new__", super_new_m) < 0)
        return -1;
    st->builtins_mod = d2_module_new_builtin(I, "builtins");
    if (!st->builtins_mod)
        return -1;
    d2_setref((d2_obj **)&st->builtins_mod->dict, d2_incref((d2_obj *)I->builtins));
    if (make_exceptions(I) < 0)
        return -1;
    d2_obj *msg = d2_str_from(I, "out of memory");
    st->memory_error = msg ? d2i_exc_new(I, d2_exc_class(I, "MemoryError"), &msg, 1) : NULL;
    d2_decref(msg);
    return st->memory_error ? 0 : -1;
}

d2_interp *d2_interp_new(const d2_interp_options *opt, d2_err *err)
{
    d2_interp *I = d2_calloc(1, sizeof *I);
    struct d2_interp_state *st = d2_calloc(1, sizeof *st);
    d2_arena *a = d2_arena_new();
    if (!I || !st || !a) {
        d2_free(I);
        d2_free(st);
        d2_arena_delete(a);
        d2_err_set(err, D2_ERR_NOMEM, "out of memory creating the interpreter");
        return NULL;
    }
    if (opt)
        I->opt = *opt;
    I->st = st;
    I->arena = a;
    d2_diag_init(&I->diag, a);
    I->gc_head.gc_next = I->gc_head.gc_prev = &I->gc_head;
    I->gc_head.rc = 1;
    if (make_core_objects(I) < 0 || d2i_init_methods(I) < 0 || d2i_init_builtins(I) < 0) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory creating the interpreter");
        d2_interp_free(I);
        return NULL;
    }
    for (size_t i = 0; i < d2_lib_nmodules; i++) {
        d2_err merr = {0};
        if (d2_lib_modules[i].init(I, &merr) == 0)
            continue;
        if (merr.code != D2_OK) {
            if (err)
                *err = merr;
        } else {
            d2_obj *s = I->exc ? d2_str_of(I, I->exc) : NULL;
            d2_err_set(err, D2_ERR_RUNTIME, "initialising the %s module: %s",
                       d2_lib_modules[i].name,
                       s && s->kind == D2_OBJ_STR ? D2_AS(d2_str, s)->s : "failed");
            d2_decref(s);
        }
        d2_interp_free(I);
        return NULL;
    }
    return I;
}

void d2_interp_free(d2_interp *I)
{
    if (!I)
        return;
    struct d2_interp_state *st = I->st;
    for (int i = 0; i < 8; i++)
        if (I->ext_fini[i] && I->ext[i]) {
            I->ext_fini[i](I, I->ext[i]);
            I->ext[i] = NULL;
        }
    d2_exc_clear(I);
    d2i_spec_cache_free(I);
    d2i_free_all(I);
    if (st) {
        for (d2i_unit *u = st->units; u;) {
            d2i_unit *next = u->next;
            pm_free(&u->names);
            pm_free(&u->consts);
            d2_free(u);
            u = next;
        }
        for (size_t i = 0; i < st->narenas; i++)
            d2_arena_delete(st->arenas[i]);
        d2_free(st->arenas);
        d2_free(st->pool);
        d2_free(st->handled);
        d2_free(st->repr_stack);
        d2_free(st);
    }
    d2_arena_delete(I->arena);
    d2_free(I);
}
