/* scope.c - scope analysis: each name a scope uses resolves to a slot, cell, global or dict. */
#include "interp/interp_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Like CPython's symtable. Every function, lambda, class body and
 * comprehension is a scope (a d2_code). Each name a scope uses resolves to a
 * local slot, a cell (captured by an inner scope), a free variable (a cell
 * captured from an outer scope), a global, or a namespace dict entry (module
 * and class bodies). Name nodes map to their symbol, so evaluation never
 * searches by string. The types are in interp_priv.h. */

int d2i_pm_put(ptrmap *m, const void *k, void *v)
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

void d2i_pm_free(ptrmap *m)
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
    s->gdict = NULL;
    s->glayout = s->blayout = 0;
    s->gix = -1;
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
    if (node && d2i_pm_put(&an->unit->names, node, c) < 0)
        an_error(an, node, "out of memory");
    return c;
}

static void note_name(analyzer *an, d2_code *c, const char *name, unsigned flags, const void *node)
{
    sym *s = code_sym(an, c, name);
    if (!s)
        return;
    s->flags |= flags;
    if (node && d2i_pm_put(&an->unit->names, node, s) < 0)
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
d2i_unit *d2i_analyze(d2_interp *I, const void *root, const d2_ast_seq *body,
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
        d2i_pm_free(&u->names);
        d2i_pm_free(&u->consts);
        d2_free(u);
        return NULL;
    }
    u->next = I->st->units;
    I->st->units = u;
    return u;
}
