/* args.c - argument parsing for builtins: d2_parse_args, table rows (d2_def), conversions. */
#include "interp/interp_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- C-style checks: no keyword, a number of arguments (CPython's messages) ---- */

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

int d2i_check_args(d2_interp *I, const char *fname, size_t n, size_t lo, size_t hi, d2_dict *kw)
{
    if (d2i_no_kwargs(I, fname, kw) < 0 || d2i_nargs(I, fname, n, lo, hi) < 0)
        return -1;
    return 0;
}

/* ======================================================================
 * Argument parsing
 * ==================================================================== */

typedef struct pspec {
    char name[48];
    const char *def; /* literal default text, or NULL */
    size_t deflen;
    int kind; /* 0 positional-or-keyword, 1 positional-only, 2 *args, 3 keyword-only, 4 **kwargs */
    bool opt; /* written [name]: optional without a default, NULL when absent */
} pspec;

/* A literal default ("None", "-1", "0.5", "'mean'") as a cached object (borrowed). */
static d2_obj *literal(d2_interp *I, const char *s, size_t n)
{
    if (n == 4 && memcmp(s, "None", 4) == 0)
        return I->none;
    if (n == 4 && memcmp(s, "True", 4) == 0)
        return I->true_;
    if (n == 5 && memcmp(s, "False", 5) == 0)
        return I->false_;
    d2_obj *key = d2_str_new(I, s, n);
    if (!key)
        return NULL;
    d2_obj *v = d2_dict_get(I, I->st->arg_cache, key);
    if (v) {
        d2_decref(key);
        return v;
    }
    if (n >= 2 && (s[0] == '\'' || s[0] == '"'))
        v = d2_str_new(I, s + 1, n - 2);
    else if (n == 2 && memcmp(s, "()", 2) == 0)
        v = d2_tuple_new(I, 0);
    else {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)n, s);
        char *end;
        errno = 0;
        long long iv = strtoll(buf, &end, 10);
        if (*end == 0 && errno == 0)
            v = d2_int_new(I, iv);
        else {
            double dv = strtod(buf, &end);
            if (*end == 0)
                v = d2_float_new(I, dv);
            else
                v = d2_raise(I, "SystemError", "bad default literal '%s' in an argument spec", buf);
        }
    }
    if (v && d2_dict_set(I, I->st->arg_cache, key, v) < 0) {
        d2_decref(v);
        v = NULL;
    }
    d2_decref(key);
    if (v)
        d2_decref(v); /* the cache holds it */
    return v;
}

static int parse_spec(d2_interp *I, const char *fname, const char *spec, pspec *ps, int max)
{
    int np = 0, mode = 0; /* 0 before '*', 3 after */
    const char *s = spec;
    while (*s) {
        while (*s == ' ' || *s == ',')
            s++;
        if (!*s)
            break;
        const char *start = s;
        char quote = 0;
        while (*s && (quote || *s != ',')) {
            if (quote && *s == quote)
                quote = 0;
            else if (!quote && (*s == '\'' || *s == '"'))
                quote = *s;
            s++;
        }
        const char *end = s;
        while (end > start && end[-1] == ' ')
            end--;
        size_t len = (size_t)(end - start);
        if (len == 1 && start[0] == '/') {
            for (int i = 0; i < np; i++)
                ps[i].kind = 1;
            continue;
        }
        if (len == 1 && start[0] == '*') {
            mode = 3;
            continue;
        }
        if (np == max) {
            d2_raise(I, "SystemError", "%s: too many parameters in spec", fname);
            return -1;
        }
        pspec *p = &ps[np++];
        memset(p, 0, sizeof *p);
        p->kind = mode;
        if (len >= 2 && start[0] == '*' && start[1] == '*') {
            p->kind = 4;
            start += 2;
            len -= 2;
        } else if (start[0] == '*') {
            p->kind = 2;
            mode = 3;
            start++;
            len--;
        }
        if (len >= 2 && start[0] == '[' && start[len - 1] == ']') {
            p->opt = true;
            start++;
            len -= 2;
        }
        const char *eq = memchr(start, '=', len);
        size_t nl = eq ? (size_t)(eq - start) : len;
        while (nl && start[nl - 1] == ' ')
            nl--;
        if (nl >= sizeof p->name)
            nl = sizeof p->name - 1;
        memcpy(p->name, start, nl);
        if (eq) {
            const char *d = eq + 1;
            while (*d == ' ')
                d++;
            p->def = d;
            p->deflen = (size_t)(end - d);
        }
    }
    return np;
}

/* Parsed specs, cached by the spec's address (verified by content). */
typedef struct spec_entry {
    const char *key;
    char *text;
    int np;
    pspec *ps;
    d2_obj **defs; /* borrowed from the literal cache */
    size_t nreq, npos; /* positional parameters: required ones, all of them */
    bool star;         /* a *args parameter */
    bool stars;        /* a *args or **kwargs parameter: binding makes a tuple or a dict */
    bool row;          /* a row's signature: it lives as long as the interpreter */
} spec_entry;

struct d2i_spec_cache {
    spec_entry *e;
    size_t cap, n;
};

void d2i_spec_cache_free(d2_interp *I)
{
    struct d2i_spec_cache *c = I->st->spec_cache;
    if (!c)
        return;
    for (size_t i = 0; i < c->cap; i++) {
        d2_free(c->e[i].text);
        d2_free(c->e[i].ps);
        d2_free(c->e[i].defs);
    }
    d2_free(c->e);
    d2_free(c);
    I->st->spec_cache = NULL;
}

static size_t spec_slot(const struct d2i_spec_cache *c, const char *key)
{
    size_t h = ((uintptr_t)key >> 3) * 0x9E3779B97F4A7C15ull;
    size_t mask = c->cap - 1, i = h & mask;
    while (c->e[i].key && c->e[i].key != key)
        i = (i + 1) & mask;
    return i;
}

/* The parsed form of spec, parsing and caching it on first use. A row's
 * signature (row) lives as long as the interpreter, so once its text is
 * checked its address alone finds it; other specs are checked by content. */
static spec_entry *spec_get(d2_interp *I, const char *fname, const char *spec, bool row)
{
    struct d2i_spec_cache *c = I->st->spec_cache;
    if (c) {
        spec_entry *e = &c->e[spec_slot(c, spec)];
        if (e->key == spec && ((row && e->row) || strcmp(e->text, spec) == 0)) {
            e->row |= row;
            return e;
        }
        if (e->key == spec) { /* same address, new text: reparse in place */
            d2_free(e->text);
            d2_free(e->ps);
            d2_free(e->defs);
            memset(e, 0, sizeof *e);
            c->n--;
        }
    }
    if (!c || (c->n + 1) * 2 > c->cap) {
        struct d2i_spec_cache *nc = d2_calloc(1, sizeof *nc);
        size_t cap = c ? c->cap * 2 : 64;
        if (nc)
            nc->e = d2_calloc(cap, sizeof *nc->e);
        if (!nc || !nc->e) {
            d2_free(nc);
            d2_raise(I, "MemoryError", "out of memory");
            return NULL;
        }
        nc->cap = cap;
        if (c) {
            for (size_t i = 0; i < c->cap; i++)
                if (c->e[i].key)
                    nc->e[spec_slot(nc, c->e[i].key)] = c->e[i];
            nc->n = c->n;
            d2_free(c->e);
            d2_free(c);
        }
        I->st->spec_cache = c = nc;
    }
    pspec tmp[32];
    int np = parse_spec(I, fname, spec, tmp, 32);
    if (np < 0)
        return NULL;
    spec_entry *e = &c->e[spec_slot(c, spec)];
    e->text = d2_strdup(spec);
    e->ps = d2_malloc(((size_t)np + 1) * sizeof *e->ps);
    e->defs = d2_calloc((size_t)np + 1, sizeof *e->defs);
    if (!e->text || !e->ps || !e->defs) {
        d2_free(e->text);
        d2_free(e->ps);
        d2_free(e->defs);
        memset(e, 0, sizeof *e);
        d2_raise(I, "MemoryError", "out of memory");
        return NULL;
    }
    memcpy(e->ps, tmp, (size_t)np * sizeof *tmp);
    for (int i = 0; i < np; i++) {
        if (!tmp[i].def)
            continue;
        e->defs[i] = literal(I, tmp[i].def, tmp[i].deflen);
        if (!e->defs[i]) {
            d2_free(e->text);
            d2_free(e->ps);
            d2_free(e->defs);
            memset(e, 0, sizeof *e);
            return NULL;
        }
        e->ps[i].def = NULL; /* the text lives in spec, which may not outlive the cache */
    }
    for (int i = 0; i < np; i++) {
        if (tmp[i].kind <= 1) {
            e->npos++;
            e->nreq += !tmp[i].def && !tmp[i].opt;
        }
        e->star |= tmp[i].kind == 2;
        e->stars |= tmp[i].kind == 2 || tmp[i].kind == 4;
    }
    e->row = row;
    e->np = np;
    e->key = spec;
    c->n++;
    return e;
}

/* Binds the arguments to the parameters of the parsed spec se. */
static int bind_args(d2_interp *I, const char *fname, const spec_entry *se, d2_obj **args,
                     size_t nargs, d2_dict *kwargs, d2_obj **out)
{
    const pspec *ps = se->ps;
    int np = se->np;
    int npos = 0, star = -1, dstar = -1;
    for (int i = 0; i < np; i++) {
        out[i] = NULL;
        if (ps[i].kind <= 1)
            npos++;
        else if (ps[i].kind == 2)
            star = i;
        else if (ps[i].kind == 4)
            dstar = i;
    }
    size_t take = nargs < (size_t)npos ? nargs : (size_t)npos;
    for (size_t i = 0; i < take; i++)
        out[i] = args[i];
    if (nargs > (size_t)npos) {
        if (star < 0) {
            d2_raise(I, "TypeError", "%s() takes at most %d argument%s (%zu given)", fname, npos,
                     npos == 1 ? "" : "s", nargs);
            return -1;
        }
    }
    if (star >= 0) {
        d2_obj *t = d2_tuple_from_array(I, args + take, nargs - take);
        if (!t)
            return -1;
        d2i_pool_add(I, t);
        out[star] = t;
    }
    d2_dict *extra = NULL;
    if (dstar >= 0) {
        d2_obj *d = d2_dict_new(I);
        if (!d)
            return -1;
        d2i_pool_add(I, d);
        extra = D2_AS(d2_dict, d);
        out[dstar] = d;
    }
    if (kwargs) {
        for (size_t i = 0; i < kwargs->n; i++) {
            d2_dict_entry *e = &kwargs->entries[i];
            if (!e->key)
                continue;
            const char *k = e->key->kind == D2_OBJ_STR ? D2_AS(d2_str, e->key)->s : "";
            int idx = -1;
            for (int j = 0; j < np; j++)
                if ((ps[j].kind == 0 || ps[j].kind == 3) && strcmp(ps[j].name, k) == 0) {
                    idx = j;
                    break;
                }
            if (idx < 0) {
                if (extra) {
                    if (d2_dict_set_h(I, extra, e->key, e->hash, e->value) < 0)
                        return -1;
                    continue;
                }
                d2_raise(I, "TypeError", "%s() got an unexpected keyword argument '%s'", fname, k);
                return -1;
            }
            if (out[idx]) {
                d2_raise(I, "TypeError", "%s() got multiple values for argument '%s'", fname, k);
                return -1;
            }
            out[idx] = e->value;
        }
    }
    for (int i = 0; i < np; i++) {
        if (out[i] || ps[i].kind == 2 || ps[i].kind == 4)
            continue;
        if (se->defs[i]) {
            out[i] = se->defs[i];
            continue;
        }
        if (ps[i].opt)
            continue;
        if (ps[i].kind == 3)
            d2_raise(I, "TypeError", "%s() missing required keyword-only argument: '%s'", fname,
                     ps[i].name);
        else
            d2_raise(I, "TypeError", "%s() missing required argument '%s' (pos %d)", fname,
                     ps[i].name, i + 1);
        return -1;
    }
    return 0;
}

int d2_parse_args(d2_interp *I, const char *fname, const char *spec, d2_obj **args, size_t nargs,
                  d2_dict *kwargs, d2_obj **out)
{
    spec_entry *se = spec_get(I, fname, spec, false);
    return se ? bind_args(I, fname, se, args, nargs, kwargs, out) : -1;
}

/* ======================================================================
 * Table rows (d2_def): the one way library builtins take arguments
 * ==================================================================== */

/* A row's parsed signature when it is cached already (the common case). */
static inline spec_entry *row_spec(d2_interp *I, const char *sig)
{
    struct d2i_spec_cache *c = I->st->spec_cache;
    if (!c)
        return NULL;
    spec_entry *e = &c->e[spec_slot(c, sig)];
    return e->key == sig && e->row ? e : NULL;
}

/* Binds the arguments of a row's call, as bind_args does, when they are all
 * positional and every parameter is given or has a default or is [optional]:
 * then no tuple, dict or message is made. false for any other call. */
static inline bool bind_positional(const spec_entry *se, d2_obj **args, size_t nargs,
                                   d2_dict *kwargs, d2_obj **out)
{
    if (kwargs || se->stars || nargs > se->npos)
        return false;
    for (size_t i = 0; i < nargs; i++)
        out[i] = args[i];
    for (int i = (int)nargs; i < se->np; i++) {
        out[i] = se->defs[i];
        if (!out[i] && !se->ps[i].opt)
            return false;
    }
    return true;
}

/* d2_def_call for the calls bind_positional does not bind, the receiver
 * bound to the first parameter, and the first call of each row. */
static d2_obj *def_call_slow(d2_interp *I, const d2_def *def, d2_obj *self, d2_obj **args,
                             size_t nargs, d2_dict *kwargs)
{
    const char *fname = def->qualname ? def->qualname : def->name;
    const char *sig = def->sig ? def->sig : "";
    d2_obj *inl[16], **av = args;
    if ((def->flags & D2_DEF_SELF) && self) {
        av = nargs + 1 <= 16 ? inl : d2_malloc((nargs + 1) * sizeof *av);
        if (!av)
            return d2_raise(I, "MemoryError", "out of memory");
        av[0] = self;
        if (nargs)
            memcpy(av + 1, args, nargs * sizeof *av);
        nargs++;
    }
    d2_obj *a[32];
    d2_obj *r = NULL;
    spec_entry *se = spec_get(I, fname, sig, true);
    if (se && (!(def->flags & D2_DEF_ARGC) ||
               (d2i_no_kwargs(I, fname, kwargs) == 0 &&
                d2i_nargs(I, fname, nargs, se->nreq, se->star ? SIZE_MAX : se->npos) == 0)) &&
        (bind_positional(se, av, nargs, kwargs, a) ||
         bind_args(I, fname, se, av, nargs, kwargs, a) == 0))
        r = def->fn(I, self, a, def);
    if (av != args && av != inl)
        d2_free(av);
    return r;
}

d2_obj *d2_def_call(d2_interp *I, const d2_def *def, d2_obj *self, d2_obj **args, size_t nargs,
                    d2_dict *kwargs)
{
    spec_entry *se = row_spec(I, def->sig ? def->sig : "");
    d2_obj *a[32];
    if (se && !(def->flags & D2_DEF_SELF && self) && nargs >= se->nreq &&
        bind_positional(se, args, nargs, kwargs, a))
        return def->fn(I, self, a, def);
    return def_call_slow(I, def, self, args, nargs, kwargs);
}

d2_obj *d2_def_new(d2_interp *I, const d2_def *def, d2_obj *self)
{
    d2_obj *b = d2_builtin_new(I, def->name, NULL, self, def->data);
    if (b)
        D2_AS(d2_builtin, b)->def = def;
    return b;
}

/* defs[i] with extra flags or-ed in: the row itself, or an interpreter-owned copy. */
static const d2_def *def_with_flags(d2_interp *I, const d2_def *def, unsigned extra)
{
    if ((def->flags | extra) == def->flags)
        return def;
    d2_def *c = d2_arena_alloc(I->arena, sizeof *c);
    if (!c) {
        d2_raise(I, "MemoryError", "out of memory");
        return NULL;
    }
    *c = *def;
    c->flags |= extra;
    return c;
}

int d2_module_add_defs(d2_interp *I, d2_module *m, const d2_def *defs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        d2_obj *b = d2_def_new(I, &defs[i], NULL);
        if (!b)
            return -1;
        int rc = d2_dict_set_str(I, m->dict, defs[i].name, b);
        d2_decref(b);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int d2_class_add_defs(d2_interp *I, d2_class *cls, const d2_def *defs, size_t n,
                      unsigned extra_flags)
{
    for (size_t i = 0; i < n; i++) {
        const d2_def *def = def_with_flags(I, &defs[i], extra_flags);
        if (!def || d2i_class_add_descr(I, cls, def->name, d2_def_new(I, def, NULL)) < 0)
            return -1;
    }
    return 0;
}

/* ---- conversions ---- */

int d2_to_int64(d2_interp *I, d2_obj *o, const char *what, int64_t *v)
{
    if (o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL) {
        *v = D2_AS(d2_int, o)->v;
        return 0;
    }
    if (o->kind == D2_OBJ_FLOAT || o->kind == D2_OBJ_STR || o->kind == D2_OBJ_NONE) {
        d2_raise(I, "TypeError", "%s: '%s' object cannot be interpreted as an integer", what,
                 d2_type_name(o));
        return -1;
    }
    return d2_index(I, o, v);
}

int d2_to_double(d2_interp *I, d2_obj *o, const char *what, double *v)
{
    if (o->kind == D2_OBJ_FLOAT) {
        *v = D2_AS(d2_float, o)->v;
        return 0;
    }
    if (o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL) {
        *v = (double)D2_AS(d2_int, o)->v;
        return 0;
    }
    d2_obj *r = NULL;
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->to_number) {
        r = hk->to_number(I, o, D2_OBJ_FLOAT);
    } else if (o->kind != D2_OBJ_STR && o->kind != D2_OBJ_NONE) {
        bool found;
        r = d2_call_special(I, o, "__float__", NULL, 0, &found);
        if (!found) {
            d2_raise(I, "TypeError", "%s must be a real number, not %s", what, d2_type_name(o));
            return -1;
        }
    } else {
        d2_raise(I, "TypeError", "%s must be a real number, not %s", what, d2_type_name(o));
        return -1;
    }
    if (!r)
        return -1;
    int rc = 0;
    if (r->kind == D2_OBJ_FLOAT)
        *v = D2_AS(d2_float, r)->v;
    else if (r->kind == D2_OBJ_INT || r->kind == D2_OBJ_BOOL)
        *v = (double)D2_AS(d2_int, r)->v;
    else {
        d2_raise(I, "TypeError", "%s must be a real number, not %s", what, d2_type_name(o));
        rc = -1;
    }
    d2_decref(r);
    return rc;
}

int d2_to_bool(d2_interp *I, d2_obj *o, const char *what, bool *v)
{
    (void)what;
    int t = d2_truthy(I, o);
    if (t < 0)
        return -1;
    *v = t != 0;
    return 0;
}

const char *d2_to_cstr(d2_interp *I, d2_obj *o, const char *what)
{
    if (o->kind == D2_OBJ_STR)
        return D2_AS(d2_str, o)->s;
    d2_raise(I, "TypeError", "%s must be str, not %s", what, d2_type_name(o));
    return NULL;
}
