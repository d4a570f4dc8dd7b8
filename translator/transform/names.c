/* names.c - name analysis for the transforms: name sets, reads, writes, fresh names, liveness. */
#include "transform/transform_priv.h"

#include <stdio.h>
#include <string.h>

/* ---- name sets (sorted arrays of identifiers, in the scratch arena) ---- */

void *xf_chk(X *x, void *p)
{
    if (!p)
        longjmp(x->oom, 1);
    return p;
}

static void *tmp_alloc(X *x, size_t n) { return xf_chk(x, d2_arena_alloc(x->tmp, n)); }

nameset xf_set_copy(X *x, const nameset *s)
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

bool xf_set_has(const nameset *s, const char *name)
{
    bool found;
    set_find(s, name, &found);
    return found;
}

void xf_set_add(X *x, nameset *s, const char *name)
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

void xf_set_union_into(X *x, nameset *s, const nameset *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        xf_set_add(x, s, t->v[i]);
}

nameset xf_set_union(X *x, const nameset *s, const nameset *t)
{
    nameset r = xf_set_copy(x, s);
    xf_set_union_into(x, &r, t);
    return r;
}

static nameset set_minus(X *x, const nameset *s, const nameset *t)
{
    nameset r = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        if (!xf_set_has(t, s->v[i]))
            xf_set_add(x, &r, s->v[i]);
    return r;
}

nameset xf_set_intersect(X *x, const nameset *s, const nameset *t)
{
    nameset r = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        if (xf_set_has(t, s->v[i]))
            xf_set_add(x, &r, s->v[i]);
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
info *xf_info_of(X *x, const d2_ast_stmt *s)
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

void xf_walk(X *x, const void *node, visit_fn f, void *ud)
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
            xf_walk(x, *(void *const *)p, f, ud);
        } else if (fs[i].type == D2_AST_F_SEQ) {
            const d2_ast_seq *s = (const d2_ast_seq *)p;
            for (uint32_t k = 0; k < s->n; k++)
                xf_walk(x, s->items[k], f, ud);
        }
    }
}

/* ---- names read and written ---- */

typedef struct names_ud {
    int mode;
    nameset *set;
} names_ud;

/* Methods that mutate a list in place: x.append(v) writes x. */
bool xf_is_mutator(const char *attr)
{
    static const char *const m[] = {"append", "extend", "insert", "pop", "remove", "clear"};
    for (size_t i = 0; i < D2_COUNTOF(m); i++)
        if (strcmp(attr, m[i]) == 0)
            return true;
    return false;
}

/* array_write(x, i, array=arr) (paddle.tensor's, fluid.layers', or imported
 * by name) writes into the tensor array arr in place: the name arr, or NULL. */
static const char *array_written(const d2_ast_expr *c)
{
    const d2_ast_expr *f = c->call.func;
    const char *fn = f->kind == D2_AST_ATTRIBUTE ? f->attribute.attr
                     : f->kind == D2_AST_NAME    ? f->name.id
                                                 : NULL;
    if (!fn || strcmp(fn, "array_write") != 0)
        return NULL;
    const d2_ast_expr *arr = c->call.args.n >= 3 ? c->call.args.items[2] : NULL;
    for (size_t i = 0; i < c->call.keywords.n; i++) {
        const d2_ast_keyword *k = c->call.keywords.items[i];
        if (k->arg && strcmp(k->arg, "array") == 0)
            arr = k->value;
    }
    return arr && arr->kind == D2_AST_NAME ? arr->name.id : NULL;
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
            xf_set_add(x, ud->set, e->name.id);
        return true;
    }
    case D2_AST_FUNCTION_DEF:
    case D2_AST_ASYNC_FUNCTION_DEF:
    case D2_AST_CLASS_DEF: {
        const d2_ast_stmt *s = (const d2_ast_stmt *)n;
        if (ud->mode != NAMES_USES) {
            xf_set_add(x, ud->set, n->kind == D2_AST_CLASS_DEF ? s->class_def.name : s->function_def.name);
            return true;
        }
        return false; /* every name read inside counts (an over-approximation) */
    }
    case D2_AST_LAMBDA:
        return ud->mode != NAMES_USES;
    case D2_AST_COMPREHENSION: {
        /* the target belongs to the comprehension's own scope */
        const d2_ast_comprehension *c = (const d2_ast_comprehension *)n;
        xf_walk(x, c->iter, names_visit, ud);
        for (uint32_t i = 0; i < c->ifs.n; i++)
            xf_walk(x, c->ifs.items[i], names_visit, ud);
        if (ud->mode == NAMES_USES)
            xf_walk(x, c->target, names_visit, ud);
        return true;
    }
    case D2_AST_NAMED_EXPR:
        if (ud->mode == NAMES_KILLS) {
            xf_walk(x, ((const d2_ast_expr *)n)->named_expr.value, names_visit, ud);
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
            xf_set_add(x, ud->set, t->name.id);
        return false;
    }
    case D2_AST_SUBSCRIPT: {
        const d2_ast_expr *e = (const d2_ast_expr *)n;
        if (ud->mode == NAMES_WRITES && e->subscript.ctx != D2_CTX_LOAD) {
            const char *base = subscript_base(e);
            if (base)
                xf_set_add(x, ud->set, base);
        }
        return false;
    }
    case D2_AST_CALL: {
        const d2_ast_expr *c = (const d2_ast_expr *)n, *f = c->call.func;
        if (ud->mode == NAMES_WRITES && f->kind == D2_AST_ATTRIBUTE &&
            f->attribute.value->kind == D2_AST_NAME && xf_is_mutator(f->attribute.attr))
            xf_set_add(x, ud->set, f->attribute.value->name.id);
        if (ud->mode == NAMES_WRITES) {
            const char *w = array_written(c);
            if (w)
                xf_set_add(x, ud->set, w);
        }
        return false;
    }
    case D2_AST_ALIAS: {
        const d2_ast_alias *al = (const d2_ast_alias *)n;
        if (ud->mode != NAMES_USES && strcmp(al->name, "*") != 0) {
            if (al->asname) {
                xf_set_add(x, ud->set, al->asname);
            } else {
                const char *dot = strchr(al->name, '.');
                xf_set_add(
                    x, ud->set,
                    dot ? xf_chk(x, d2_arena_strndup(x->a, al->name, (size_t)(dot - al->name)))
                        : al->name);
            }
        }
        return true;
    }
    default: return false;
    }
}

void xf_names_of(X *x, const void *node, int mode, nameset *set)
{
    names_ud ud = {mode, set};
    xf_walk(x, node, names_visit, &ud);
}

static nameset names_of_block(X *x, const d2_ast_seq *b, int mode)
{
    nameset s = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++)
        xf_names_of(x, b->items[i], mode, &s);
    return s;
}

/* Every identifier of a function, for making fresh names. */
bool xf_used_visit(X *x, const d2_ast_node *n, void *ud)
{
    (void)ud;
    switch (n->kind) {
    case D2_AST_NAME: xf_set_add(x, &x->used, ((const d2_ast_expr *)n)->name.id); break;
    case D2_AST_ARG: xf_set_add(x, &x->used, ((const d2_ast_arg *)n)->arg); break;
    case D2_AST_FUNCTION_DEF:
    case D2_AST_ASYNC_FUNCTION_DEF: xf_set_add(x, &x->used, ((const d2_ast_stmt *)n)->function_def.name); break;
    case D2_AST_CLASS_DEF: xf_set_add(x, &x->used, ((const d2_ast_stmt *)n)->class_def.name); break;
    case D2_AST_ALIAS: {
        const d2_ast_alias *al = (const d2_ast_alias *)n;
        xf_set_add(x, &x->used, al->asname ? al->asname : al->name);
        break;
    }
    case D2_AST_GLOBAL:
    case D2_AST_NONLOCAL: {
        const d2_ast_stmt *s = (const d2_ast_stmt *)n;
        for (uint32_t i = 0; i < s->global.names.n; i++)
            xf_set_add(x, &x->used, s->global.names.items[i]);
        break;
    }
    default: break;
    }
    return false;
}

/* A fresh identifier: base, or base_2, base_3, ... when taken. */
const char *xf_fresh(X *x, const char *base)
{
    const char *name = base;
    for (int k = 2; xf_set_has(&x->used, name); k++)
        name = xf_chk(x, d2_arena_printf(x->a, "%s_%d", base, k));
    if (name == base)
        name = xf_chk(x, d2_arena_strdup(x->a, base));
    xf_set_add(x, &x->used, name);
    return name;
}

const char *xf_fresh_at(X *x, const char *base, d2_span span)
{
    char buf[96];
    snprintf(buf, sizeof buf, "%s_%u", base, (unsigned)span.line);
    return xf_fresh(x, buf);
}

/* ---- liveness ---- */

static nameset uses_of(X *x, const void *node)
{
    nameset s = {0, 0, NULL};
    xf_names_of(x, node, NAMES_USES, &s);
    return s;
}

/* Names live before s given those live after it; records the sets the
 * structure pass needs on if and loop statements. */
static nameset live_stmt(X *x, const d2_ast_stmt *s, const nameset *out)
{
    switch (s->kind) {
    case D2_AST_IF: {
        info *it = xf_info_of(x, s);
        it->out = xf_set_copy(x, out);
        nameset ib = xf_live_block(x, &s->if_.body, out);
        nameset ie = xf_live_block(x, &s->if_.orelse, out);
        it = xf_info_of(x, s);
        it->in_body = ib;
        it->in_orelse = ie;
        nameset r = uses_of(x, s->if_.test);
        xf_set_union_into(x, &r, &ib);
        xf_set_union_into(x, &r, &ie);
        return r;
    }
    case D2_AST_WHILE: {
        nameset test = uses_of(x, s->while_.test);
        nameset head = xf_set_union(x, &test, out);
        for (;;) {
            nameset body_in = xf_live_block(x, &s->while_.body, &head);
            nameset next = xf_set_union(x, &head, &body_in);
            if (set_equal(&next, &head))
                break;
            head = next;
        }
        info *it = xf_info_of(x, s);
        it->out = xf_set_copy(x, out);
        it->head = head;
        return head;
    }
    case D2_AST_FOR: {
        nameset tkill = {0, 0, NULL};
        xf_names_of(x, s->for_.target, NAMES_KILLS, &tkill);
        nameset head = xf_set_copy(x, out);
        nameset tuse = uses_of(x, s->for_.target);
        xf_set_union_into(x, &head, &tuse);
        const char *brk = xf_info_of(x, s)->brk;
        if (brk) /* read by the loop's cond_fn before each iteration */
            xf_set_add(x, &head, brk);
        for (;;) {
            nameset body_in = xf_live_block(x, &s->for_.body, &head);
            nameset gen = set_minus(x, &body_in, &tkill);
            nameset next = xf_set_union(x, &head, &gen);
            if (set_equal(&next, &head))
                break;
            head = next;
        }
        info *it = xf_info_of(x, s);
        it->out = xf_set_copy(x, out);
        it->head = head;
        nameset r = uses_of(x, s->for_.iter);
        xf_set_union_into(x, &r, &head);
        return r;
    }
    case D2_AST_WITH: {
        nameset body_in = xf_live_block(x, &s->with.body, out);
        nameset r = {0, 0, NULL};
        for (uint32_t i = 0; i < s->with.items.n; i++) {
            const d2_ast_withitem *w = s->with.items.items[i];
            nameset kill = {0, 0, NULL};
            xf_names_of(x, w->optional_vars, NAMES_KILLS, &kill);
            body_in = set_minus(x, &body_in, &kill);
            nameset u = uses_of(x, w);
            xf_set_union_into(x, &r, &u);
        }
        xf_set_union_into(x, &r, &body_in);
        return r;
    }
    case D2_AST_RETURN: return uses_of(x, s);
    default: {
        nameset kill = {0, 0, NULL};
        xf_names_of(x, s, NAMES_KILLS, &kill);
        nameset r = set_minus(x, out, &kill);
        nameset u = uses_of(x, s);
        xf_set_union_into(x, &r, &u);
        return r;
    }
    }
}

nameset xf_live_block(X *x, const d2_ast_seq *b, const nameset *out)
{
    nameset live = xf_set_copy(x, out);
    for (uint32_t i = b->n; i-- > 0;)
        live = live_stmt(x, b->items[i], &live);
    return live;
}

nameset xf_writes_of_block(X *x, const d2_ast_seq *b) { return names_of_block(x, b, NAMES_WRITES); }

/* ---- locals ---- */

/* Whether name is a local of the function: a parameter or a name it binds
 * (computed on first need). A global's subscript store or x.append(v)
 * changes the object, not the name. */
bool xf_is_local(X *x, const char *name)
{
    if (!x->bound_ready) {
        xf_params_of(x, x->fn->function_def.args, &x->bound);
        for (uint32_t i = 0; i < x->fn->function_def.body.n; i++)
            xf_names_of(x, x->fn->function_def.body.items[i], NAMES_KILLS, &x->bound);
        x->bound_ready = true;
    }
    return xf_set_has(&x->bound, name);
}

nameset xf_locals_only(X *x, const nameset *s)
{
    nameset r = {0, 0, NULL};
    for (uint32_t i = 0; i < s->n; i++)
        if (xf_is_local(x, s->v[i]))
            xf_set_add(x, &r, s->v[i]);
    return r;
}
