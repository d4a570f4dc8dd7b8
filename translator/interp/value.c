/* value.c - the interpreter's objects: allocation, freeing, constructors, dicts, repr. */
#include "interp/interp_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- allocation and the live list ---- */

static void link_obj(d2_interp *I, d2_obj *o)
{
    d2_obj *head = &I->gc_head;
    o->gc_next = head;
    o->gc_prev = head->gc_prev;
    head->gc_prev->gc_next = o;
    head->gc_prev = o;
}

d2_obj *d2_obj_alloc(d2_interp *I, d2_obj_kind kind, d2_class *cls, size_t size)
{
    if (size < sizeof(d2_obj))
        size = sizeof(d2_obj);
    d2_obj *o = d2_calloc(1, size);
    if (!o) {
        d2i_set_nomem(I);
        return NULL;
    }
    o->rc = 1;
    o->kind = kind;
    o->cls = cls ? cls : I->types[kind];
    link_obj(I, o);
    return o;
}

/* Drops every reference o holds to other objects (o itself stays allocated).
 * Also used at teardown, where cycles are broken by clearing every object. */
static void clear_refs(d2_obj *o)
{
    switch (o->kind) {
    case D2_OBJ_TUPLE: {
        d2_tuple *t = D2_AS(d2_tuple, o);
        for (size_t i = 0; i < t->n; i++)
            d2_setref(&t->items[i], NULL);
        break;
    }
    case D2_OBJ_LIST: {
        d2_list *l = D2_AS(d2_list, o);
        size_t n = l->n;
        l->n = 0;
        for (size_t i = 0; i < n; i++)
            d2_setref(&l->items[i], NULL);
        break;
    }
    case D2_OBJ_DICT:
        d2i_dict_clear(D2_AS(d2_dict, o));
        break;
    case D2_OBJ_SLICE: {
        d2_slice *s = D2_AS(d2_slice, o);
        d2_setref(&s->start, NULL);
        d2_setref(&s->stop, NULL);
        d2_setref(&s->step, NULL);
        break;
    }
    case D2_OBJ_FUNCTION: {
        d2_function *f = D2_AS(d2_function, o);
        d2_obj *p;
        p = (d2_obj *)f->module, f->module = NULL, d2_decref(p);
        p = (d2_obj *)f->defaults, f->defaults = NULL, d2_decref(p);
        p = (d2_obj *)f->kw_defaults, f->kw_defaults = NULL, d2_decref(p);
        p = (d2_obj *)f->closure, f->closure = NULL, d2_decref(p);
        p = (d2_obj *)f->attrs, f->attrs = NULL, d2_decref(p);
        break;
    }
    case D2_OBJ_BUILTIN:
        d2_setref(&D2_AS(d2_builtin, o)->self, NULL);
        break;
    case D2_OBJ_BOUND_METHOD:
        d2_setref(&D2_AS(d2_bound_method, o)->func, NULL);
        d2_setref(&D2_AS(d2_bound_method, o)->self, NULL);
        break;
    case D2_OBJ_CLASS: {
        d2_class *c = D2_AS(d2_class, o);
        d2_obj *p;
        p = (d2_obj *)c->bases, c->bases = NULL, d2_decref(p);
        p = (d2_obj *)c->mro, c->mro = NULL, d2_decref(p);
        p = (d2_obj *)c->dict, c->dict = NULL, d2_decref(p);
        p = (d2_obj *)c->module, c->module = NULL, d2_decref(p);
        break;
    }
    case D2_OBJ_INSTANCE: {
        d2_obj *p = (d2_obj *)D2_AS(d2_instance, o)->dict;
        D2_AS(d2_instance, o)->dict = NULL;
        d2_decref(p);
        break;
    }
    case D2_OBJ_MODULE: {
        d2_obj *p = (d2_obj *)D2_AS(d2_module, o)->dict;
        D2_AS(d2_module, o)->dict = NULL;
        d2_decref(p);
        break;
    }
    case D2_OBJ_CELL:
        d2_setref(&D2_AS(d2_cell, o)->value, NULL);
        break;
    case D2_OBJ_ITERATOR:
        d2_setref(&D2_AS(d2_iter, o)->src, NULL);
        d2_setref(&D2_AS(d2_iter, o)->extra, NULL);
        break;
    case D2_OBJ_PROPERTY:
        d2_setref(&D2_AS(d2_property, o)->fget, NULL);
        d2_setref(&D2_AS(d2_property, o)->fset, NULL);
        break;
    case D2_OBJ_STATICMETHOD:
    case D2_OBJ_CLASSMETHOD:
        d2_setref(&D2_AS(d2_wrapper, o)->func, NULL);
        break;
    case D2_OBJ_OPAQUE: {
        d2_opaque *q = D2_AS(d2_opaque, o);
        if (q->fin && q->payload)
            q->fin(q->payload);
        q->payload = NULL;
        break;
    }
    default:
        break;
    }
}

/* What a library-owned layout's payload is released with (d2_layout_set_free). */
static d2_layout_free_fn layout_free[D2_OBJ_KIND_COUNT];

void d2_layout_set_free(d2_obj_kind kind, d2_layout_free_fn fn)
{
    __atomic_store_n(&layout_free[kind], fn, __ATOMIC_RELAXED);
}

/* Frees o's own storage (after clear_refs). */
static void free_storage(d2_obj *o)
{
    switch (o->kind) {
    case D2_OBJ_LIST:
        d2_free(D2_AS(d2_list, o)->items);
        break;
    case D2_OBJ_DICT:
        d2_free(D2_AS(d2_dict, o)->entries);
        d2_free(D2_AS(d2_dict, o)->index);
        break;
    default:
        {
            d2_layout_free_fn fn = __atomic_load_n(&layout_free[o->kind], __ATOMIC_RELAXED);
            if (fn)
                fn(o);
        }
        break;
    }
    d2_free(o);
}

/* Deallocation nests as deep as the structure being freed; past a depth the
 * objects wait on a pending list that the outermost call drains. */
static _Thread_local int dealloc_depth;
static _Thread_local d2_obj *dealloc_pending;

void d2_obj_dealloc(d2_obj *o)
{
    o->gc_prev->gc_next = o->gc_next;
    o->gc_next->gc_prev = o->gc_prev;
    if (dealloc_depth > 256) {
        o->gc_next = dealloc_pending;
        dealloc_pending = o;
        return;
    }
    dealloc_depth++;
    clear_refs(o);
    free_storage(o);
    dealloc_depth--;
    while (dealloc_depth == 0 && dealloc_pending) {
        d2_obj *p = dealloc_pending;
        dealloc_pending = p->gc_next;
        dealloc_depth++;
        clear_refs(p);
        free_storage(p);
        dealloc_depth--;
    }
}

/* Teardown: pins every live object, breaks all references, then frees all.
 * Nothing is freed while references are dropped, so cycles are harmless. */
void d2i_free_all(d2_interp *I)
{
    d2_obj *head = &I->gc_head;
    for (d2_obj *o = head->gc_next; o != head; o = o->gc_next)
        o->rc++;
    for (d2_obj *o = head->gc_next; o != head; o = o->gc_next)
        clear_refs(o);
    d2_obj *o = head->gc_next;
    while (o != head) {
        d2_obj *next = o->gc_next;
        free_storage(o);
        o = next;
    }
    head->gc_next = head->gc_prev = head;
}

size_t d2_interp_live_objects(const d2_interp *I)
{
    size_t n = 0;
    for (const d2_obj *o = I->gc_head.gc_next; o != &I->gc_head; o = o->gc_next)
        n++;
    return n;
}

/* ---- scalars ---- */

d2_obj *d2_none(d2_interp *I) { return d2_incref(I->none); }

d2_obj *d2_bool(d2_interp *I, bool v) { return d2_incref(v ? I->true_ : I->false_); }

d2_obj *d2_int_new(d2_interp *I, int64_t v)
{
    if (v >= D2I_SMALL_MIN && v <= D2I_SMALL_MAX && I->st->small_ints[v - D2I_SMALL_MIN])
        return d2_incref(I->st->small_ints[v - D2I_SMALL_MIN]);
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_INT, NULL, sizeof(d2_int));
    if (o)
        D2_AS(d2_int, o)->v = v;
    return o;
}

d2_obj *d2_float_new(d2_interp *I, double v)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_FLOAT, NULL, sizeof(d2_float));
    if (o)
        D2_AS(d2_float, o)->v = v;
    return o;
}

bool d2i_is_number(d2_obj *o)
{
    return o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL || o->kind == D2_OBJ_FLOAT;
}

/* ---- strings ---- */

uint64_t d2i_hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    h ^= h >> 29;
    return h ? h : 1;
}

static d2_obj *str_alloc(d2_interp *I, size_t len)
{
    if (len > ((size_t)1 << 40)) {
        d2_raise(I, "MemoryError", "string too long");
        return NULL;
    }
    return d2_obj_alloc(I, D2_OBJ_STR, NULL, sizeof(d2_str) + len + 1);
}

/* Sets len, the NUL and the hash of a string filled in place. */
static d2_obj *str_finish(d2_obj *o, size_t len)
{
    d2_str *s = D2_AS(d2_str, o);
    s->len = len;
    s->s[len] = 0;
    s->hash = d2i_hash_bytes(s->s, len);
    return o;
}

d2_obj *d2_str_new(d2_interp *I, const char *s, size_t len)
{
    if (len == 0 && I->st->empty_str)
        return d2_incref(I->st->empty_str);
    if (len == 1 && (unsigned char)s[0] < 128 && I->st->chars[(unsigned char)s[0]])
        return d2_incref(I->st->chars[(unsigned char)s[0]]);
    d2_obj *o = str_alloc(I, len);
    if (!o)
        return NULL;
    memcpy(D2_AS(d2_str, o)->s, s, len);
    str_finish(o, len);
    if (len == 1 && (unsigned char)s[0] < 128)
        I->st->chars[(unsigned char)s[0]] = d2_incref(o);
    return o;
}

d2_obj *d2_str_from(d2_interp *I, const char *s) { return d2_str_new(I, s, strlen(s)); }

d2_obj *d2_str_printf(d2_interp *I, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    d2_obj *r;
    if (n < 0) {
        r = d2_raise(I, "ValueError", "bad format");
    } else if ((size_t)n < sizeof tmp) {
        r = d2_str_new(I, tmp, (size_t)n);
    } else {
        char *big = d2_malloc((size_t)n + 1);
        if (!big) {
            va_end(ap2);
            return d2_raise(I, "MemoryError", "out of memory");
        }
        vsnprintf(big, (size_t)n + 1, fmt, ap2);
        r = d2_str_new(I, big, (size_t)n);
        d2_free(big);
    }
    va_end(ap2);
    return r;
}

static d2_obj *str_from_buf(d2_interp *I, d2_buf *b)
{
    if (b->oom) {
        d2_buf_free(b);
        return d2_raise(I, "MemoryError", "out of memory");
    }
    d2_obj *r = d2_str_new(I, b->data ? b->data : "", b->len);
    d2_buf_free(b);
    return r;
}

static uint32_t utf8_decode(const char *s, size_t len, size_t *i)
{
    unsigned char c = (unsigned char)s[*i];
    uint32_t cp;
    int extra;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        cp = c & 0x1F;
        extra = 1;
    } else if ((c & 0xF0) == 0xE0) {
        cp = c & 0x0F;
        extra = 2;
    } else if ((c & 0xF8) == 0xF0) {
        cp = c & 0x07;
        extra = 3;
    } else {
        (*i)++;
        return 0xFFFD;
    }
    (*i)++;
    for (int k = 0; k < extra && *i < len; k++) {
        unsigned char d = (unsigned char)s[*i];
        if ((d & 0xC0) != 0x80)
            break;
        cp = (cp << 6) | (d & 0x3F);
        (*i)++;
    }
    return cp;
}

static size_t utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static bool is_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return false;
    return true;
}

size_t d2i_str_chars(const d2_str *s)
{
    size_t c = 0;
    for (size_t i = 0; i < s->len; i++)
        c += ((unsigned char)s->s[i] & 0xC0) != 0x80;
    return c;
}

size_t d2i_str_offset(const d2_str *s, size_t idx)
{
    size_t c = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (((unsigned char)s->s[i] & 0xC0) != 0x80) {
            if (c == idx)
                return i;
            c++;
        }
    }
    return s->len;
}

static size_t chars_in(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

d2_obj *d2i_char(d2_interp *I, uint32_t cp)
{
    char b[4];
    size_t n = utf8_encode(cp, b);
    return d2_str_new(I, b, n);
}

d2_obj *d2i_str_concat(d2_interp *I, d2_obj *a, d2_obj *b)
{
    d2_str *x = D2_AS(d2_str, a), *y = D2_AS(d2_str, b);
    if (y->len == 0)
        return d2_incref(a);
    if (x->len == 0)
        return d2_incref(b);
    d2_obj *o = str_alloc(I, x->len + y->len);
    if (!o)
        return NULL;
    memcpy(D2_AS(d2_str, o)->s, x->s, x->len);
    memcpy(D2_AS(d2_str, o)->s + x->len, y->s, y->len);
    return str_finish(o, x->len + y->len);
}

/* ---- tuples and lists ---- */

d2_obj *d2_tuple_new(d2_interp *I, size_t n)
{
    if (n == 0 && I->st->empty_tuple)
        return d2_incref(I->st->empty_tuple);
    if (n > ((size_t)1 << 40) / sizeof(d2_obj *))
        return d2_raise(I, "MemoryError", "tuple too long");
    return d2_obj_alloc(I, D2_OBJ_TUPLE, NULL, sizeof(d2_tuple) + n * sizeof(d2_obj *));
}

/* d2_obj_alloc zeroes, but n must be recorded */
static d2_obj *tuple_make(d2_interp *I, size_t n)
{
    d2_obj *t = d2_tuple_new(I, n);
    if (t && n)
        D2_AS(d2_tuple, t)->n = n;
    return t;
}

d2_obj *d2i_tuple_from_array(d2_interp *I, d2_obj **items, size_t n)
{
    d2_obj *t = tuple_make(I, n);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++)
        D2_AS(d2_tuple, t)->items[i] = d2_incref(items[i]);
    return t;
}

d2_obj *d2_tuple_pack(d2_interp *I, size_t n, ...)
{
    d2_obj *t = tuple_make(I, n);
    if (!t)
        return NULL;
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++)
        D2_AS(d2_tuple, t)->items[i] = d2_incref(va_arg(ap, d2_obj *));
    va_end(ap);
    return t;
}

static int list_reserve(d2_interp *I, d2_list *l, size_t need)
{
    if (need <= l->cap)
        return 0;
    size_t cap = l->cap ? l->cap : 4;
    while (cap < need)
        cap = cap + cap / 2 + 1;
    if (cap > ((size_t)1 << 40) / sizeof(d2_obj *)) {
        d2_raise(I, "MemoryError", "list too long");
        return -1;
    }
    d2_obj **items = d2_realloc(l->items, cap * sizeof *items);
    if (!items) {
        d2_raise(I, "MemoryError", "out of memory");
        return -1;
    }
    l->items = items;
    l->cap = cap;
    return 0;
}

d2_obj *d2_list_new(d2_interp *I, size_t n)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_LIST, NULL, sizeof(d2_list));
    if (!o)
        return NULL;
    d2_list *l = D2_AS(d2_list, o);
    if (n) {
        if (list_reserve(I, l, n) < 0) {
            d2_decref(o);
            return NULL;
        }
        memset(l->items, 0, n * sizeof(d2_obj *));
        l->n = n;
    }
    return o;
}

int d2_list_append(d2_interp *I, d2_obj *list, d2_obj *v)
{
    d2_list *l = D2_AS(d2_list, list);
    if (l->n == l->cap && list_reserve(I, l, l->n + 1) < 0)
        return -1;
    l->items[l->n++] = d2_incref(v);
    return 0;
}

d2_obj *d2i_list_from_array(d2_interp *I, d2_obj **items, size_t n)
{
    d2_obj *l = d2_list_new(I, n);
    if (!l)
        return NULL;
    for (size_t i = 0; i < n; i++)
        D2_AS(d2_list, l)->items[i] = d2_incref(items[i]);
    return l;
}

int d2i_list_extend(d2_interp *I, d2_obj *list, d2_obj *iterable)
{
    if (iterable->kind == D2_OBJ_LIST || iterable->kind == D2_OBJ_TUPLE) {
        size_t n;
        d2_obj **src;
        if (iterable->kind == D2_OBJ_LIST) {
            n = D2_AS(d2_list, iterable)->n;
            src = D2_AS(d2_list, iterable)->items;
        } else {
            n = D2_AS(d2_tuple, iterable)->n;
            src = D2_AS(d2_tuple, iterable)->items;
        }
        d2_list *l = D2_AS(d2_list, list);
        if (list_reserve(I, l, l->n + n) < 0)
            return -1;
        if (iterable->kind == D2_OBJ_LIST) /* l.extend(l) */
            src = D2_AS(d2_list, iterable)->items;
        for (size_t i = 0; i < n; i++)
            l->items[l->n++] = d2_incref(src[i]);
        return 0;
    }
    d2_obj *it = d2_get_iter(I, iterable);
    if (!it)
        return -1;
    for (;;) {
        bool done = false;
        d2_obj *v = d2_iter_next(I, it, &done);
        if (!v) {
            d2_decref(it);
            return done ? 0 : -1;
        }
        int rc = d2_list_append(I, list, v);
        d2_decref(v);
        if (rc < 0) {
            d2_decref(it);
            return -1;
        }
    }
}

d2_obj *d2_list_from_iterable(d2_interp *I, d2_obj *iterable)
{
    d2_obj *l = d2_list_new(I, 0);
    if (l && d2i_list_extend(I, l, iterable) < 0) {
        d2_decref(l);
        return NULL;
    }
    return l;
}

d2_obj *d2i_tuple_from_iterable(d2_interp *I, d2_obj *o)
{
    if (o->kind == D2_OBJ_TUPLE && o->cls == I->types[D2_OBJ_TUPLE])
        return d2_incref(o);
    if (o->kind == D2_OBJ_LIST)
        return d2i_tuple_from_array(I, D2_AS(d2_list, o)->items, D2_AS(d2_list, o)->n);
    d2_obj *l = d2_list_from_iterable(I, o);
    if (!l)
        return NULL;
    d2_obj *t = d2i_tuple_from_array(I, D2_AS(d2_list, l)->items, D2_AS(d2_list, l)->n);
    d2_decref(l);
    return t;
}

/* ---- dicts ---- */

#define DICT_MIN_INDEX 8

d2_obj *d2_dict_new(d2_interp *I) { return d2_obj_alloc(I, D2_OBJ_DICT, NULL, sizeof(d2_dict)); }

d2_obj *d2i_set_new(d2_interp *I)
{
    return d2_obj_alloc(I, D2_OBJ_DICT, I->st->set, sizeof(d2_dict));
}

bool d2i_is_set(d2_interp *I, d2_obj *o)
{
    return o->kind == D2_OBJ_DICT && o->cls != I->types[D2_OBJ_DICT] &&
           d2i_issubclass(o->cls, I->st->set);
}

void d2i_dict_clear(d2_dict *d)
{
    size_t n = d->n;
    d2_dict_entry *e = d->entries;
    d->n = d->live = 0;
    if (d->index)
        for (size_t i = 0; i < d->index_cap; i++)
            d->index[i] = -1;
    for (size_t i = 0; i < n; i++) {
        d2_obj *k = e[i].key, *v = e[i].value;
        e[i].key = e[i].value = NULL;
        d2_decref(k);
        d2_decref(v);
    }
}

static int keys_equal(d2_interp *I, d2_obj *a, d2_obj *b)
{
    if (a == b)
        return 1;
    if (a->kind == D2_OBJ_STR && b->kind == D2_OBJ_STR) {
        d2_str *x = D2_AS(d2_str, a), *y = D2_AS(d2_str, b);
        return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
    }
    if ((a->kind == D2_OBJ_INT || a->kind == D2_OBJ_BOOL) &&
        (b->kind == D2_OBJ_INT || b->kind == D2_OBJ_BOOL))
        return D2_AS(d2_int, a)->v == D2_AS(d2_int, b)->v;
    if (a->kind == D2_OBJ_STR || b->kind == D2_OBJ_STR)
        return 0;
    return d2_equal(I, a, b);
}

/* Rebuilds the index for at least `want` entries, compacting deleted ones. */
static int dict_resize(d2_interp *I, d2_dict *d, size_t want)
{
    size_t cap = 8;
    while (cap < want)
        cap *= 2;
    /* compact */
    size_t j = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->entries[i].key)
            d->entries[j++] = d->entries[i];
    d->n = j;
    if (cap != d->cap) {
        d2_dict_entry *e = d2_realloc(d->entries, cap * sizeof *e);
        if (!e) {
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        d->entries = e;
        d->cap = cap;
    }
    size_t icap = DICT_MIN_INDEX;
    while (icap < cap * 3 / 2)
        icap *= 2;
    if (icap != d->index_cap || !d->index) {
        int32_t *idx = d2_malloc(icap * sizeof *idx);
        if (!idx) {
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        d2_free(d->index);
        d->index = idx;
        d->index_cap = icap;
    }
    for (size_t i = 0; i < icap; i++)
        d->index[i] = -1;
    size_t mask = icap - 1;
    for (size_t i = 0; i < d->n; i++) {
        size_t p = d->entries[i].hash & mask;
        while (d->index[p] >= 0)
            p = (p + 1) & mask;
        d->index[p] = (int32_t)i;
    }
    return 0;
}

int64_t d2i_dict_find(d2_interp *I, d2_dict *d, d2_obj *key, uint64_t h)
{
    if (!d->index)
        return -1;
    size_t mask = d->index_cap - 1;
    for (size_t p = h & mask;; p = (p + 1) & mask) {
        int32_t ix = d->index[p];
        if (ix < 0)
            return -1;
        d2_dict_entry *e = &d->entries[ix];
        if (e->key && e->hash == h) {
            d2_obj *k = e->key;
            if (k == key)
                return ix;
            d2_incref(k);
            int eq = keys_equal(I, k, key);
            d2_decref(k);
            if (eq < 0)
                return -2;
            if (eq)
                return ix;
        }
    }
}

d2_obj *d2i_dict_get_cstr(d2_dict *d, const char *s, size_t n, uint64_t h)
{
    if (!d->index)
        return NULL;
    size_t mask = d->index_cap - 1;
    for (size_t p = h & mask;; p = (p + 1) & mask) {
        int32_t ix = d->index[p];
        if (ix < 0)
            return NULL;
        d2_dict_entry *e = &d->entries[ix];
        if (e->key && e->hash == h && e->key->kind == D2_OBJ_STR) {
            d2_str *k = D2_AS(d2_str, e->key);
            if (k->len == n && memcmp(k->s, s, n) == 0)
                return e->value;
        }
    }
}

d2_obj **d2i_dict_slot_cstr(d2_dict *d, const char *s, size_t n, uint64_t h)
{
    if (!d->index)
        return NULL;
    size_t mask = d->index_cap - 1;
    for (size_t p = h & mask;; p = (p + 1) & mask) {
        int32_t ix = d->index[p];
        if (ix < 0)
            return NULL;
        d2_dict_entry *e = &d->entries[ix];
        if (e->key && e->hash == h && e->key->kind == D2_OBJ_STR) {
            d2_str *k = D2_AS(d2_str, e->key);
            if (k->len == n && memcmp(k->s, s, n) == 0)
                return &e->value;
        }
    }
}

d2_obj *d2_dict_get(d2_interp *I, d2_dict *d, d2_obj *key)
{
    uint64_t h;
    if (d2_hash(I, key, &h) < 0)
        return NULL;
    int64_t ix = d2i_dict_find(I, d, key, h);
    return ix >= 0 ? d->entries[ix].value : NULL;
}

d2_obj *d2_dict_get_str(d2_interp *I, d2_dict *d, const char *key)
{
    (void)I;
    size_t n = strlen(key);
    return d2i_dict_get_cstr(d, key, n, d2i_hash_bytes(key, n));
}

int d2i_dict_set_h(d2_interp *I, d2_dict *d, d2_obj *key, uint64_t h, d2_obj *v)
{
    int64_t ix = d2i_dict_find(I, d, key, h);
    if (ix == -2)
        return -1;
    if (ix >= 0) {
        d2_setref(&d->entries[ix].value, d2_incref(v));
        return 0;
    }
    if (d->n >= d->cap || !d->index) {
        if (dict_resize(I, d, d->live * 2 + 1) < 0)
            return -1;
    }
    size_t mask = d->index_cap - 1;
    size_t p = h & mask;
    while (d->index[p] >= 0)
        p = (p + 1) & mask;
    d->index[p] = (int32_t)d->n;
    d2_dict_entry *e = &d->entries[d->n++];
    e->key = d2_incref(key);
    e->value = d2_incref(v);
    e->hash = h;
    d->live++;
    return 0;
}

int d2_dict_set(d2_interp *I, d2_dict *d, d2_obj *key, d2_obj *v)
{
    uint64_t h;
    if (d2_hash(I, key, &h) < 0)
        return -1;
    return d2i_dict_set_h(I, d, key, h, v);
}

int d2_dict_set_str(d2_interp *I, d2_dict *d, const char *key, d2_obj *v)
{
    d2_obj *k = d2_str_from(I, key);
    if (!k)
        return -1;
    int rc = d2i_dict_set_h(I, d, k, D2_AS(d2_str, k)->hash, v);
    d2_decref(k);
    return rc;
}

/* Removes entry ix; returns its value (new ref). The index keeps pointing at
 * the dead entry, which lookups skip; the next resize compacts. */
static d2_obj *dict_remove_at(d2_dict *d, int64_t ix)
{
    d2_dict_entry *e = &d->entries[ix];
    d2_obj *k = e->key, *v = e->value;
    e->key = e->value = NULL;
    d->live--;
    d2_decref(k);
    return v;
}

d2_obj *d2i_dict_pop(d2_interp *I, d2_dict *d, d2_obj *key)
{
    uint64_t h;
    if (d2_hash(I, key, &h) < 0)
        return NULL;
    int64_t ix = d2i_dict_find(I, d, key, h);
    if (ix < 0)
        return NULL;
    return dict_remove_at(d, ix);
}

int d2_dict_del(d2_interp *I, d2_dict *d, d2_obj *key)
{
    d2_obj *v = d2i_dict_pop(I, d, key);
    if (!v) {
        if (!d2_exc_pending(I)) {
            d2_obj *args[1] = {key};
            d2_obj *e = d2i_exc_new(I, d2_exc_class(I, "KeyError"), args, 1);
            if (e)
                d2i_set_exc(I, e);
        }
        return -1;
    }
    d2_decref(v);
    return 0;
}

/* ---- hashing ---- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

int d2_hash(d2_interp *I, d2_obj *o, uint64_t *h)
{
    switch (o->kind) {
    case D2_OBJ_STR:
        *h = D2_AS(d2_str, o)->hash;
        return 0;
    case D2_OBJ_INT:
    case D2_OBJ_BOOL:
        *h = mix64((uint64_t)D2_AS(d2_int, o)->v);
        return 0;
    case D2_OBJ_FLOAT: {
        double v = D2_AS(d2_float, o)->v;
        if (v == floor(v) && v >= -9.2e18 && v <= 9.2e18) {
            *h = mix64((uint64_t)(int64_t)v);
        } else {
            uint64_t bits;
            memcpy(&bits, &v, sizeof bits);
            *h = mix64(bits ^ 0x5555);
        }
        return 0;
    }
    case D2_OBJ_NONE:
        *h = 0x1234567;
        return 0;
    case D2_OBJ_TUPLE: {
        if (d2i_stack_check(I) < 0)
            return -1;
        uint64_t acc = 0x345678;
        d2_tuple *t = D2_AS(d2_tuple, o);
        for (size_t i = 0; i < t->n; i++) {
            uint64_t x;
            if (d2_hash(I, t->items[i], &x) < 0)
                return -1;
            acc = mix64(acc ^ x) + i;
        }
        *h = acc;
        return 0;
    }
    case D2_OBJ_LIST:
    case D2_OBJ_DICT:
    case D2_OBJ_SLICE:
        d2_raise(I, "TypeError", "unhashable type: '%s'", d2_type_name(o));
        return -1;
    default:
        break;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->hash)
        return hk->hash(I, o, h);
    if (o->kind == D2_OBJ_INSTANCE && (o->cls->flags & D2I_CF_USER)) {
        d2_obj *m = d2i_mro_lookup(I, o->cls, "__hash__");
        if (m && m->kind != D2_OBJ_BUILTIN) {
            if (m->kind == D2_OBJ_NONE) {
                d2_raise(I, "TypeError", "unhashable type: '%s'", d2_type_name(o));
                return -1;
            }
            bool found;
            d2_obj *r = d2i_call_special(I, o, "__hash__", NULL, 0, &found);
            if (!r)
                return -1;
            int64_t v;
            int rc = d2_to_int64(I, r, "__hash__()", &v);
            d2_decref(r);
            if (rc < 0)
                return -1;
            *h = mix64((uint64_t)v);
            return 0;
        }
    }
    *h = mix64((uint64_t)(uintptr_t)o);
    return 0;
}

/* ---- other objects ---- */

d2_obj *d2_builtin_new(d2_interp *I, const char *name, d2_builtin_fn fn, d2_obj *self,
                       const void *data)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_BUILTIN, NULL, sizeof(d2_builtin));
    if (!o)
        return NULL;
    d2_builtin *b = D2_AS(d2_builtin, o);
    b->name = d2_arena_strdup(I->arena, name);
    b->fn = fn;
    b->self = d2_incref(self);
    b->data = data;
    return o;
}

d2_obj *d2_instance_new(d2_interp *I, d2_class *cls)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_INSTANCE, cls, sizeof(d2_instance));
    if (!o)
        return NULL;
    d2_obj *d = d2_dict_new(I);
    if (!d) {
        d2_decref(o);
        return NULL;
    }
    D2_AS(d2_instance, o)->dict = D2_AS(d2_dict, d);
    return o;
}

d2_obj *d2i_iter_new(d2_interp *I, d2_obj *(*next)(d2_interp *, d2_iter *, bool *), d2_obj *src)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_ITERATOR, NULL, sizeof(d2_iter));
    if (!o)
        return NULL;
    d2_iter *it = D2_AS(d2_iter, o);
    it->next = next;
    it->src = d2_incref(src);
    return o;
}

const char *d2_type_name(d2_obj *o)
{
    if (o->cls && o->cls->name)
        return o->cls->name;
    return "object";
}

/* ---- float repr: the shortest string that round-trips, formatted as Python's repr ---- */

void d2i_float_repr(double v, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, n, v < 0 ? "-inf" : "inf");
        return;
    }
    if (v == 0) {
        snprintf(buf, n, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char tmp[48];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    /* tmp: [-]d[.ddd]e[+-]XX */
    const char *s = tmp;
    bool neg = *s == '-';
    if (neg)
        s++;
    char digits[24];
    int nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            digits[nd++] = *s;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    int exp10 = atoi(s + 1);
    int decpt = exp10 + 1;
    char out[64];
    size_t k = 0;
    if (neg)
        out[k++] = '-';
    if (decpt > 16 || decpt < -3) {
        out[k++] = digits[0];
        if (nd > 1) {
            out[k++] = '.';
            for (int i = 1; i < nd; i++)
                out[k++] = digits[i];
        }
        k += (size_t)snprintf(out + k, sizeof out - k, "e%c%02d", exp10 < 0 ? '-' : '+',
                              exp10 < 0 ? -exp10 : exp10);
    } else if (decpt <= 0) {
        out[k++] = '0';
        out[k++] = '.';
        for (int i = 0; i < -decpt; i++)
            out[k++] = '0';
        for (int i = 0; i < nd; i++)
            out[k++] = digits[i];
    } else if (decpt >= nd) {
        for (int i = 0; i < nd; i++)
            out[k++] = digits[i];
        for (int i = nd; i < decpt; i++)
            out[k++] = '0';
        out[k++] = '.';
        out[k++] = '0';
    } else {
        for (int i = 0; i < decpt; i++)
            out[k++] = digits[i];
        out[k++] = '.';
        for (int i = decpt; i < nd; i++)
            out[k++] = digits[i];
    }
    out[k] = 0;
    snprintf(buf, n, "%s", out);
}

/* ---- repr of builtin layouts ---- */

static void repr_str_into(d2_buf *b, const d2_str *s)
{
    bool has_sq = memchr(s->s, '\'', s->len) != NULL;
    bool has_dq = memchr(s->s, '"', s->len) != NULL;
    char q = (has_sq && !has_dq) ? '"' : '\'';
    d2_buf_append(b, &q, 1);
    for (size_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->s[i];
        if (c == '\\')
            d2_buf_puts(b, "\\\\");
        else if (c == (unsigned char)q) {
            d2_buf_puts(b, q == '\'' ? "\\'" : "\\\"");
        } else if (c == '\n')
            d2_buf_puts(b, "\\n");
        else if (c == '\r')
            d2_buf_puts(b, "\\r");
        else if (c == '\t')
            d2_buf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            d2_buf_printf(b, "\\x%02x", c);
        else if (c >= 0x80) {
            size_t j = i;
            uint32_t cp = utf8_decode(s->s, s->len, &j);
            if (cp >= 0x80 && cp < 0xa0)
                d2_buf_printf(b, "\\x%02x", cp);
            else
                d2_buf_append(b, s->s + i, j - i);
            i = j - 1;
        } else
            d2_buf_append(b, &c, 1);
    }
    d2_buf_append(b, &q, 1);
}

int d2i_repr_enter(d2_interp *I, d2_obj *o)
{
    struct d2_interp_state *st = I->st;
    for (size_t i = 0; i < st->nrepr; i++)
        if (st->repr_stack[i] == o)
            return 1;
    if (st->nrepr == st->caprepr) {
        size_t cap = st->caprepr ? st->caprepr * 2 : 16;
        d2_obj **p = d2_realloc(st->repr_stack, cap * sizeof *p);
        if (!p) {
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        st->repr_stack = p;
        st->caprepr = cap;
    }
    st->repr_stack[st->nrepr++] = o;
    return 0;
}

void d2i_repr_leave(d2_interp *I) { I->st->nrepr--; }

/* Appends repr(o) to b; -1 with an exception. */
static int repr_into(d2_interp *I, d2_buf *b, d2_obj *o)
{
    if (o->kind == D2_OBJ_STR) {
        repr_str_into(b, D2_AS(d2_str, o));
        return 0;
    }
    d2_obj *r = d2_repr(I, o);
    if (!r)
        return -1;
    d2_buf_append(b, D2_AS(d2_str, r)->s, D2_AS(d2_str, r)->len);
    d2_decref(r);
    return 0;
}

static int repr_items(d2_interp *I, d2_buf *b, d2_obj **items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            d2_buf_puts(b, ", ");
        if (repr_into(I, b, items[i]) < 0)
            return -1;
    }
    return 0;
}

static const char *module_prefix(d2_class *c)
{
    if (!c->module || !(c->flags & D2I_CF_USER) || !c->module->name)
        return NULL;
    if (strcmp(c->module->name, "builtins") == 0)
        return NULL;
    return c->module->name;
}

static int repr_dict_into(d2_interp *I, d2_buf *b, d2_dict *d, bool set)
{
    bool first = true;
    for (size_t i = 0; i < d->n; i++) {
        d2_dict_entry *e = &d->entries[i];
        if (!e->key)
            continue;
        if (!first)
            d2_buf_puts(b, ", ");
        first = false;
        d2_obj *k = d2_incref(e->key), *v = d2_incref(e->value);
        int rc = repr_into(I, b, k);
        if (rc == 0 && !set) {
            d2_buf_puts(b, ": ");
            rc = repr_into(I, b, v);
        }
        d2_decref(k);
        d2_decref(v);
        if (rc < 0)
            return -1;
    }
    return 0;
}

d2_obj *d2i_builtin_repr(d2_interp *I, d2_obj *o)
{
    char tmp[64];
    d2_buf b;
    d2_buf_init(&b);
    int rc = 0;
    switch (o->kind) {
    case D2_OBJ_NONE:
        return d2_str_from(I, "None");
    case D2_OBJ_BOOL:
        return d2_str_from(I, D2_AS(d2_int, o)->v ? "True" : "False");
    case D2_OBJ_INT: {
        int64_t v = D2_AS(d2_int, o)->v;
        uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        size_t k = sizeof tmp;
        do {
            tmp[--k] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0)
            tmp[--k] = '-';
        return d2_str_new(I, tmp + k, sizeof tmp - k);
    }
    case D2_OBJ_FLOAT:
        d2i_float_repr(D2_AS(d2_float, o)->v, tmp, sizeof tmp);
        return d2_str_from(I, tmp);
    case D2_OBJ_STR:
        repr_str_into(&b, D2_AS(d2_str, o));
        return str_from_buf(I, &b);
    case D2_OBJ_ELLIPSIS:
        return d2_str_from(I, "Ellipsis");
    case D2_OBJ_TUPLE: {
        d2_tuple *t = D2_AS(d2_tuple, o);
        int in = d2i_repr_enter(I, o);
        if (in)
            return in < 0 ? NULL : d2_str_from(I, "(...)");
        d2_buf_puts(&b, "(");
        rc = repr_items(I, &b, t->items, t->n);
        d2_buf_puts(&b, t->n == 1 ? ",)" : ")");
        d2i_repr_leave(I);
        break;
    }
    case D2_OBJ_LIST: {
        int in = d2i_repr_enter(I, o);
        if (in)
            return in < 0 ? NULL : d2_str_from(I, "[...]");
        d2_buf_puts(&b, "[");
        /* items may change while printing; hold a snapshot */
        d2_obj *snap = d2i_tuple_from_array(I, D2_AS(d2_list, o)->items, D2_AS(d2_list, o)->n);
        if (!snap) {
            rc = -1;
        } else {
            rc = repr_items(I, &b, D2_AS(d2_tuple, snap)->items, D2_AS(d2_tuple, snap)->n);
            d2_decref(snap);
        }
        d2_buf_puts(&b, "]");
        d2i_repr_leave(I);
        break;
    }
    case D2_OBJ_DICT: {
        bool set = d2i_is_set(I, o);
        bool sub = o->cls != I->types[D2_OBJ_DICT] && o->cls != I->st->set;
        int in = d2i_repr_enter(I, o);
        if (in)
            return in < 0 ? NULL : d2_str_from(I, set ? "{...}" : "{...}");
        if (set && D2_AS(d2_dict, o)->live == 0) {
            d2_buf_printf(&b, "%s()", o->cls->name);
        } else {
            if (set && sub)
                d2_buf_printf(&b, "%s(", o->cls->name);
            d2_buf_puts(&b, "{");
            rc = repr_dict_into(I, &b, D2_AS(d2_dict, o), set);
            d2_buf_puts(&b, "}");
            if (set && sub)
                d2_buf_puts(&b, ")");
        }
        d2i_repr_leave(I);
        break;
    }
    case D2_OBJ_SLICE: {
        d2_slice *s = D2_AS(d2_slice, o);
        d2_buf_puts(&b, "slice(");
        d2_obj *parts[3] = {s->start, s->stop, s->step};
        for (int i = 0; i < 3 && rc == 0; i++) {
            if (i)
                d2_buf_puts(&b, ", ");
            rc = repr_into(I, &b, parts[i] ? parts[i] : I->none);
        }
        d2_buf_puts(&b, ")");
        break;
    }
    case D2_OBJ_RANGE: {
        d2_range *r = D2_AS(d2_range, o);
        if (r->step == 1)
            d2_buf_printf(&b, "range(%lld, %lld)", (long long)r->start, (long long)r->stop);
        else
            d2_buf_printf(&b, "range(%lld, %lld, %lld)", (long long)r->start,
                          (long long)r->stop, (long long)r->step);
        break;
    }
    case D2_OBJ_FUNCTION: {
        d2_function *f = D2_AS(d2_function, o);
        d2_buf_printf(&b, "<function %s at %p>", f->qualname ? f->qualname : f->name, (void *)o);
        break;
    }
    case D2_OBJ_BUILTIN: {
        d2_builtin *f = D2_AS(d2_builtin, o);
        if (f->self)
            d2_buf_printf(&b, "<built-in method %s of %s object at %p>", f->name,
                          d2_type_name(f->self), (void *)f->self);
        else if (o->cls == I->st->method_descr)
            d2_buf_printf(&b, "<method '%s' objects>", f->name);
        else
            d2_buf_printf(&b, "<built-in function %s>", f->name);
        break;
    }
    case D2_OBJ_BOUND_METHOD: {
        d2_bound_method *m = D2_AS(d2_bound_method, o);
        const char *name = "?";
        if (m->func->kind == D2_OBJ_FUNCTION) {
            d2_function *f = D2_AS(d2_function, m->func);
            name = f->qualname ? f->qualname : f->name;
        } else if (m->func->kind == D2_OBJ_BUILTIN) {
            name = D2_AS(d2_builtin, m->func)->name;
        }
        d2_buf_printf(&b, "<bound method %s of ", name);
        rc = repr_into(I, &b, m->self);
        d2_buf_puts(&b, ">");
        break;
    }
    case D2_OBJ_CLASS: {
        d2_class *c = D2_AS(d2_class, o);
        const char *mp = module_prefix(c);
        d2_buf_printf(&b, "<class '%s%s%s'>", mp ? mp : "", mp ? "." : "", c->name);
        break;
    }
    case D2_OBJ_MODULE: {
        d2_module *m = D2_AS(d2_module, o);
        if (m->path)
            d2_buf_printf(&b, "<module '%s' from '%s'>", m->name, m->path);
        else
            d2_buf_printf(&b, "<module '%s' (built-in)>", m->name);
        break;
    }
    case D2_OBJ_ITERATOR: {
        d2_iter *it = D2_AS(d2_iter, o);
        if (o->cls != I->types[D2_OBJ_ITERATOR] && it->src && it->src->kind == D2_OBJ_DICT &&
            it->next == NULL) {
            /* a dict view */
            d2_buf_printf(&b, "%s([", o->cls->name);
            d2_dict *d = D2_AS(d2_dict, it->src);
            bool first = true;
            for (size_t i = 0; i < d->n && rc == 0; i++) {
                d2_dict_entry *e = &d->entries[i];
                if (!e->key)
                    continue;
                if (!first)
                    d2_buf_puts(&b, ", ");
                first = false;
                if (it->step == 0) {
                    rc = repr_into(I, &b, e->key);
                } else if (it->step == 1) {
                    rc = repr_into(I, &b, e->value);
                } else {
                    d2_buf_puts(&b, "(");
                    rc = repr_into(I, &b, e->key);
                    d2_buf_puts(&b, ", ");
                    if (rc == 0)
                        rc = repr_into(I, &b, e->value);
                    d2_buf_puts(&b, ")");
                }
            }
            d2_buf_puts(&b, "])");
        } else {
            d2_buf_printf(&b, "<%s object at %p>", d2_type_name(o), (void *)o);
        }
        break;
    }
    case D2_OBJ_OPAQUE:
        if (o == I->not_implemented)
            return d2_str_from(I, "NotImplemented");
        d2_buf_printf(&b, "<%s object at %p>", d2_type_name(o), (void *)o);
        break;
    default: {
        const char *mp = module_prefix(o->cls);
        d2_buf_printf(&b, "<%s%s%s object at %p>", mp ? mp : "", mp ? "." : "", d2_type_name(o),
                      (void *)o);
        break;
    }
    }
    if (rc < 0) {
        d2_buf_free(&b);
        return NULL;
    }
    return str_from_buf(I, &b);
}

/* ---- iterators over builtin containers ---- */

static d2_obj *list_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_list *l = D2_AS(d2_list, it->src);
    if (it->pos >= (int64_t)l->n) {
        *done = true;
        return NULL;
    }
    (void)I;
    return d2_incref(l->items[it->pos++]);
}

static d2_obj *list_rev_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_list *l = D2_AS(d2_list, it->src);
    (void)I;
    if (it->pos < 0 || it->pos >= (int64_t)l->n) {
        *done = true;
        return NULL;
    }
    return d2_incref(l->items[it->pos--]);
}

static d2_obj *tuple_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_tuple *t = D2_AS(d2_tuple, it->src);
    (void)I;
    if (it->pos >= (int64_t)t->n) {
        *done = true;
        return NULL;
    }
    return d2_incref(t->items[it->pos++]);
}

static d2_obj *tuple_rev_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_tuple *t = D2_AS(d2_tuple, it->src);
    (void)I;
    if (it->pos < 0) {
        *done = true;
        return NULL;
    }
    return d2_incref(t->items[it->pos--]);
}

static d2_obj *str_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_str *s = D2_AS(d2_str, it->src);
    if (it->pos >= (int64_t)s->len) {
        *done = true;
        return NULL;
    }
    size_t i = (size_t)it->pos;
    utf8_decode(s->s, s->len, &i);
    d2_obj *r = d2_str_new(I, s->s + it->pos, i - (size_t)it->pos);
    it->pos = (int64_t)i;
    return r;
}

static d2_obj *range_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    if (it->step > 0 ? it->pos >= it->end : it->pos <= it->end) {
        *done = true;
        return NULL;
    }
    int64_t v = it->pos;
    if (__builtin_add_overflow(it->pos, it->step, &it->pos))
        it->pos = it->end;
    return d2_int_new(I, v);
}

/* Dict iteration: step 0 keys, 1 values, 2 items; `end` holds the size at start. */
static d2_obj *dict_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_dict *d = D2_AS(d2_dict, it->src);
    if ((int64_t)d->live != it->end) {
        it->end = -1;
        return d2_raise(I, "RuntimeError", "%s changed size during iteration",
                        d2i_is_set(I, it->src) ? "Set" : "dictionary");
    }
    while (it->pos < (int64_t)d->n && !d->entries[it->pos].key)
        it->pos++;
    if (it->pos >= (int64_t)d->n) {
        *done = true;
        return NULL;
    }
    d2_dict_entry *e = &d->entries[it->pos++];
    if (it->step == 0)
        return d2_incref(e->key);
    if (it->step == 1)
        return d2_incref(e->value);
    return d2_tuple_pack(I, 2, e->key, e->value);
}

static d2_obj *dict_iter(d2_interp *I, d2_obj *dict, int what)
{
    d2_obj *o = d2i_iter_new(I, dict_iter_next, dict);
    if (o) {
        D2_AS(d2_iter, o)->step = what;
        D2_AS(d2_iter, o)->end = (int64_t)D2_AS(d2_dict, dict)->live;
    }
    return o;
}

/* A dict view (keys/values/items): an ITERATOR-layout object of a view
 * class with next NULL; iterating it makes a fresh dict iterator. */

static d2_obj *dict_view(d2_interp *I, d2_obj *dict, int what)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_ITERATOR, I->st->views[what], sizeof(d2_iter));
    if (o) {
        D2_AS(d2_iter, o)->src = d2_incref(dict);
        D2_AS(d2_iter, o)->step = what;
    }
    return o;
}

static bool is_view(d2_obj *o)
{
    return o->kind == D2_OBJ_ITERATOR && D2_AS(d2_iter, o)->next == NULL &&
           D2_AS(d2_iter, o)->src && D2_AS(d2_iter, o)->src->kind == D2_OBJ_DICT;
}

/* Iterator over a builtin container, or NULL without exception if o is not one. */
d2_obj *d2i_builtin_iter(d2_interp *I, d2_obj *o);
d2_obj *d2i_builtin_iter(d2_interp *I, d2_obj *o)
{
    switch (o->kind) {
    case D2_OBJ_LIST:
        return d2i_iter_new(I, list_iter_next, o);
    case D2_OBJ_TUPLE:
        return d2i_iter_new(I, tuple_iter_next, o);
    case D2_OBJ_STR:
        return d2i_iter_new(I, str_iter_next, o);
    case D2_OBJ_DICT:
        return dict_iter(I, o, 0);
    case D2_OBJ_RANGE: {
        d2_range *r = D2_AS(d2_range, o);
        d2_obj *it = d2i_iter_new(I, range_iter_next, NULL);
        if (it) {
            D2_AS(d2_iter, it)->pos = r->start;
            D2_AS(d2_iter, it)->end = r->stop;
            D2_AS(d2_iter, it)->step = r->step;
        }
        return it;
    }
    case D2_OBJ_ITERATOR:
        if (is_view(o))
            return dict_iter(I, D2_AS(d2_iter, o)->src, (int)D2_AS(d2_iter, o)->step);
        return d2_incref(o);
    default:
        return NULL;
    }
}

/* reversed() over a builtin sequence, or NULL without exception. */
d2_obj *d2i_builtin_reversed(d2_interp *I, d2_obj *o);
d2_obj *d2i_builtin_reversed(d2_interp *I, d2_obj *o)
{
    d2_obj *it = NULL;
    switch (o->kind) {
    case D2_OBJ_LIST:
        it = d2i_iter_new(I, list_rev_next, o);
        if (it)
            D2_AS(d2_iter, it)->pos = (int64_t)D2_AS(d2_list, o)->n - 1;
        return it;
    case D2_OBJ_TUPLE:
        it = d2i_iter_new(I, tuple_rev_next, o);
        if (it)
            D2_AS(d2_iter, it)->pos = (int64_t)D2_AS(d2_tuple, o)->n - 1;
        return it;
    case D2_OBJ_RANGE: {
        d2_range *r = D2_AS(d2_range, o);
        int64_t n = 0;
        if (r->step > 0 && r->start < r->stop)
            n = (r->stop - r->start - 1) / r->step + 1;
        else if (r->step < 0 && r->start > r->stop)
            n = (r->start - r->stop - 1) / -r->step + 1;
        it = d2i_iter_new(I, range_iter_next, NULL);
        if (it) {
            d2_iter *x = D2_AS(d2_iter, it);
            x->pos = r->start + (n - 1) * r->step;
            x->step = -r->step;
            x->end = r->start - r->step;
            if (n == 0)
                x->pos = x->end;
        }
        return it;
    }
    case D2_OBJ_STR: {
        d2_obj *l = d2_list_from_iterable(I, o);
        if (!l)
            return NULL;
        it = d2i_iter_new(I, list_rev_next, l);
        if (it)
            D2_AS(d2_iter, it)->pos = (int64_t)D2_AS(d2_list, l)->n - 1;
        d2_decref(l);
        return it;
    }
    case D2_OBJ_DICT:
        if (!d2i_is_set(I, o)) {
            d2_obj *l = d2_list_from_iterable(I, o);
            if (!l)
                return NULL;
            it = d2i_iter_new(I, list_rev_next, l);
            if (it)
                D2_AS(d2_iter, it)->pos = (int64_t)D2_AS(d2_list, l)->n - 1;
            d2_decref(l);
            return it;
        }
        return NULL;
    default:
        return NULL;
    }
}

int64_t d2i_builtin_len(d2_interp *I, d2_obj *o);
/* len() of builtin layouts, or -2 when o has none. */
int64_t d2i_builtin_len(d2_interp *I, d2_obj *o)
{
    (void)I;
    switch (o->kind) {
    case D2_OBJ_STR:
        return (int64_t)d2i_str_chars(D2_AS(d2_str, o));
    case D2_OBJ_TUPLE:
        return (int64_t)D2_AS(d2_tuple, o)->n;
    case D2_OBJ_LIST:
        return (int64_t)D2_AS(d2_list, o)->n;
    case D2_OBJ_DICT:
        return (int64_t)D2_AS(d2_dict, o)->live;
    case D2_OBJ_RANGE: {
        d2_range *r = D2_AS(d2_range, o);
        if (r->step > 0 && r->start < r->stop)
            return (int64_t)(((uint64_t)r->stop - (uint64_t)r->start - 1) / (uint64_t)r->step + 1);
        if (r->step < 0 && r->start > r->stop)
            return (int64_t)(((uint64_t)r->start - (uint64_t)r->stop - 1) / (uint64_t)(-r->step) +
                             1);
        return 0;
    }
    case D2_OBJ_ITERATOR:
        if (is_view(o))
            return (int64_t)D2_AS(d2_dict, D2_AS(d2_iter, o)->src)->live;
        return -2;
    default:
        return -2;
    }
}

/* ---- slices and sequence indexing ---- */

static int slice_part(d2_interp *I, d2_obj *o, int64_t *v, bool *none)
{
    *none = !o || o->kind == D2_OBJ_NONE;
    if (*none)
        return 0;
    if (d2i_index(I, o, v) < 0) {
        if (d2_exc_matches(I, d2_exc_class(I, "TypeError"))) {
            d2_exc_clear(I);
            d2_raise(I, "TypeError",
                     "slice indices must be integers or None or have an __index__ method");
        }
        return -1;
    }
    return 0;
}

int d2i_slice_indices(d2_interp *I, d2_obj *slice, int64_t len, int64_t *start, int64_t *stop,
                      int64_t *step, int64_t *n)
{
    d2_slice *s = D2_AS(d2_slice, slice);
    bool none;
    int64_t st = 1, a, b;
    if (slice_part(I, s->step, &st, &none) < 0)
        return -1;
    if (none)
        st = 1;
    if (st == 0) {
        d2_raise(I, "ValueError", "slice step cannot be zero");
        return -1;
    }
    if (slice_part(I, s->start, &a, &none) < 0)
        return -1;
    if (none) {
        a = st < 0 ? len - 1 : 0;
    } else {
        if (a < 0)
            a = a < -len ? (st < 0 ? -1 : 0) : a + len;
        else if (a >= len)
            a = st < 0 ? len - 1 : len;
    }
    if (slice_part(I, s->stop, &b, &none) < 0)
        return -1;
    if (none) {
        b = st < 0 ? -1 : len;
    } else {
        if (b < 0)
            b = b < -len ? (st < 0 ? -1 : 0) : b + len;
        else if (b >= len)
            b = st < 0 ? len - 1 : len;
    }
    int64_t cnt = 0;
    if (st < 0) {
        if (b < a)
            cnt = (a - b - 1) / (-st) + 1;
    } else if (a < b) {
        cnt = (b - a - 1) / st + 1;
    }
    *start = a;
    *stop = b;
    *step = st;
    *n = cnt;
    return 0;
}

static const char *seq_name(d2_obj *o)
{
    switch (o->kind) {
    case D2_OBJ_LIST: return "list";
    case D2_OBJ_TUPLE: return "tuple";
    case D2_OBJ_STR: return "string";
    case D2_OBJ_RANGE: return "range object";
    default: return d2_type_name(o);
    }
}

/* Normalises index v against len; -1 with IndexError when out of range. */
static int seq_index(d2_interp *I, d2_obj *o, int64_t len, int64_t *v)
{
    int64_t i = *v;
    if (i < 0)
        i += len;
    if (i < 0 || i >= len) {
        d2_raise(I, "IndexError", "%s index out of range", seq_name(o));
        return -1;
    }
    *v = i;
    return 0;
}

d2_obj *d2i_seq_getitem(d2_interp *I, d2_obj *o, d2_obj *key)
{
    int64_t len = d2i_builtin_len(I, o);
    if (key->kind == D2_OBJ_SLICE) {
        int64_t a, b, st, n;
        if (d2i_slice_indices(I, key, len, &a, &b, &st, &n) < 0)
            return NULL;
        switch (o->kind) {
        case D2_OBJ_LIST:
        case D2_OBJ_TUPLE: {
            d2_obj **src =
                o->kind == D2_OBJ_LIST ? D2_AS(d2_list, o)->items : D2_AS(d2_tuple, o)->items;
            d2_obj *r =
                o->kind == D2_OBJ_LIST ? d2_list_new(I, (size_t)n) : tuple_make(I, (size_t)n);
            if (!r)
                return NULL;
            d2_obj **dst =
                o->kind == D2_OBJ_LIST ? D2_AS(d2_list, r)->items : D2_AS(d2_tuple, r)->items;
            for (int64_t i = 0; i < n; i++)
                dst[i] = d2_incref(src[a + i * st]);
            return r;
        }
        case D2_OBJ_STR: {
            d2_str *s = D2_AS(d2_str, o);
            if (is_ascii(s->s, s->len)) {
                if (st == 1)
                    return d2_str_new(I, s->s + a, (size_t)n);
                d2_obj *r = str_alloc(I, (size_t)n);
                if (!r)
                    return NULL;
                for (int64_t i = 0; i < n; i++)
                    D2_AS(d2_str, r)->s[i] = s->s[a + i * st];
                return str_finish(r, (size_t)n);
            }
            d2_buf b2;
            d2_buf_init(&b2);
            for (int64_t i = 0; i < n; i++) {
                size_t off = d2i_str_offset(s, (size_t)(a + i * st)), e = off;
                utf8_decode(s->s, s->len, &e);
                d2_buf_append(&b2, s->s + off, e - off);
            }
            return str_from_buf(I, &b2);
        }
        case D2_OBJ_RANGE: {
            d2_range *r = D2_AS(d2_range, o);
            d2_obj *nr = d2_obj_alloc(I, D2_OBJ_RANGE, NULL, sizeof(d2_range));
            if (!nr)
                return NULL;
            d2_range *x = D2_AS(d2_range, nr);
            x->start = r->start + a * r->step;
            x->step = r->step * st;
            x->stop = r->start + b * r->step;
            return nr;
        }
        default:
            break;
        }
    }
    int64_t i;
    if (key->kind != D2_OBJ_INT && key->kind != D2_OBJ_BOOL) {
        if (!I->hooks[key->kind] || !I->hooks[key->kind]->to_number) {
            if (o->kind == D2_OBJ_STR)
                return d2_raise(I, "TypeError", "string indices must be integers, not '%s'",
                                d2_type_name(key));
            return d2_raise(I, "TypeError", "%s indices must be integers or slices, not %s",
                            o->kind == D2_OBJ_RANGE ? "range" : seq_name(o), d2_type_name(key));
        }
    }
    if (d2i_index(I, key, &i) < 0 || seq_index(I, o, len, &i) < 0)
        return NULL;
    switch (o->kind) {
    case D2_OBJ_LIST:
        return d2_incref(D2_AS(d2_list, o)->items[i]);
    case D2_OBJ_TUPLE:
        return d2_incref(D2_AS(d2_tuple, o)->items[i]);
    case D2_OBJ_STR: {
        d2_str *s = D2_AS(d2_str, o);
        size_t off = is_ascii(s->s, s->len) ? (size_t)i : d2i_str_offset(s, (size_t)i), e = off;
        utf8_decode(s->s, s->len, &e);
        return d2_str_new(I, s->s + off, e - off);
    }
    case D2_OBJ_RANGE:
        return d2_int_new(I, D2_AS(d2_range, o)->start + i * D2_AS(d2_range, o)->step);
    default:
        return d2_raise(I, "TypeError", "'%s' object is not subscriptable", d2_type_name(o));
    }
}

int d2i_list_setitem(d2_interp *I, d2_obj *o, d2_obj *key, d2_obj *v)
{
    d2_list *l = D2_AS(d2_list, o);
    if (key->kind == D2_OBJ_SLICE) {
        int64_t a, b, st, n;
        if (d2i_slice_indices(I, key, (int64_t)l->n, &a, &b, &st, &n) < 0)
            return -1;
        d2_obj *src = v == o ? d2_list_from_iterable(I, v) : d2i_tuple_from_iterable(I, v);
        if (!src)
            return -1;
        size_t m;
        d2_obj **items;
        if (src->kind == D2_OBJ_LIST) {
            m = D2_AS(d2_list, src)->n;
            items = D2_AS(d2_list, src)->items;
        } else {
            m = D2_AS(d2_tuple, src)->n;
            items = D2_AS(d2_tuple, src)->items;
        }
        if (st == 1) {
            if (b < a)
                b = a;
            size_t old = (size_t)(b - a);
            if (m > old && list_reserve(I, l, l->n + (m - old)) < 0) {
                d2_decref(src);
                return -1;
            }
            d2_obj **removed = d2_malloc((old ? old : 1) * sizeof *removed);
            if (!removed) {
                d2_decref(src);
                d2_raise(I, "MemoryError", "out of memory");
                return -1;
            }
            memcpy(removed, l->items + a, old * sizeof *removed);
            memmove(l->items + a + m, l->items + b, (l->n - (size_t)b) * sizeof(d2_obj *));
            for (size_t i = 0; i < m; i++)
                l->items[a + (int64_t)i] = d2_incref(items[i]);
            l->n = l->n - old + m;
            for (size_t i = 0; i < old; i++)
                d2_decref(removed[i]);
            d2_free(removed);
            d2_decref(src);
            return 0;
        }
        if ((int64_t)m != n) {
            d2_decref(src);
            d2_raise(I, "ValueError",
                     "attempt to assign sequence of size %zu to extended slice of size %lld", m,
                     (long long)n);
            return -1;
        }
        for (int64_t i = 0; i < n; i++)
            d2_setref(&l->items[a + i * st], d2_incref(items[i]));
        d2_decref(src);
        return 0;
    }
    int64_t i;
    if (key->kind != D2_OBJ_INT && key->kind != D2_OBJ_BOOL &&
        !(I->hooks[key->kind] && I->hooks[key->kind]->to_number)) {
        d2_raise(I, "TypeError", "list indices must be integers or slices, not %s",
                 d2_type_name(key));
        return -1;
    }
    if (d2i_index(I, key, &i) < 0)
        return -1;
    if (i < 0)
        i += (int64_t)l->n;
    if (i < 0 || i >= (int64_t)l->n) {
        d2_raise(I, "IndexError", "list assignment index out of range");
        return -1;
    }
    d2_setref(&l->items[i], d2_incref(v));
    return 0;
}

int d2i_list_delitem(d2_interp *I, d2_obj *o, d2_obj *key)
{
    d2_list *l = D2_AS(d2_list, o);
    if (key->kind == D2_OBJ_SLICE) {
        int64_t a, b, st, n;
        if (d2i_slice_indices(I, key, (int64_t)l->n, &a, &b, &st, &n) < 0)
            return -1;
        if (n == 0)
            return 0;
        if (st < 0) {
            a = a + (n - 1) * st;
            st = -st;
        }
        d2_obj **removed = d2_malloc((size_t)n * sizeof *removed);
        if (!removed) {
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        size_t j = (size_t)a, k = 0;
        for (size_t i = (size_t)a; i < l->n; i++) {
            if (k < (size_t)n && i == (size_t)(a + (int64_t)k * st))
                removed[k++] = l->items[i];
            else
                l->items[j++] = l->items[i];
        }
        l->n = j;
        for (size_t i = 0; i < k; i++)
            d2_decref(removed[i]);
        d2_free(removed);
        return 0;
    }
    int64_t i;
    if (key->kind != D2_OBJ_INT && key->kind != D2_OBJ_BOOL) {
        d2_raise(I, "TypeError", "list indices must be integers or slices, not %s",
                 d2_type_name(key));
        return -1;
    }
    if (d2i_index(I, key, &i) < 0)
        return -1;
    if (i < 0)
        i += (int64_t)l->n;
    if (i < 0 || i >= (int64_t)l->n) {
        d2_raise(I, "IndexError", "list assignment index out of range");
        return -1;
    }
    d2_obj *old = l->items[i];
    memmove(l->items + i, l->items + i + 1, (l->n - (size_t)i - 1) * sizeof(d2_obj *));
    l->n--;
    d2_decref(old);
    return 0;
}

d2_obj *d2i_seq_concat(d2_interp *I, d2_obj *a, d2_obj *b)
{
    if (a->kind == D2_OBJ_STR)
        return d2i_str_concat(I, a, b);
    bool list = a->kind == D2_OBJ_LIST;
    size_t na = list ? D2_AS(d2_list, a)->n : D2_AS(d2_tuple, a)->n;
    size_t nb = list ? D2_AS(d2_list, b)->n : D2_AS(d2_tuple, b)->n;
    d2_obj **ia = list ? D2_AS(d2_list, a)->items : D2_AS(d2_tuple, a)->items;
    d2_obj **ib = list ? D2_AS(d2_list, b)->items : D2_AS(d2_tuple, b)->items;
    d2_obj *r = list ? d2_list_new(I, na + nb) : tuple_make(I, na + nb);
    if (!r)
        return NULL;
    d2_obj **dst = list ? D2_AS(d2_list, r)->items : D2_AS(d2_tuple, r)->items;
    for (size_t i = 0; i < na; i++)
        dst[i] = d2_incref(ia[i]);
    for (size_t i = 0; i < nb; i++)
        dst[na + i] = d2_incref(ib[i]);
    return r;
}

d2_obj *d2i_seq_repeat(d2_interp *I, d2_obj *seq, int64_t n)
{
    if (n < 0)
        n = 0;
    if (seq->kind == D2_OBJ_STR) {
        d2_str *s = D2_AS(d2_str, seq);
        size_t total;
        if (__builtin_mul_overflow(s->len, (size_t)n, &total) || total > ((size_t)1 << 40))
            return d2_raise(I, "OverflowError", "repeated string is too long");
        d2_obj *r = str_alloc(I, total);
        if (!r)
            return NULL;
        for (int64_t i = 0; i < n; i++)
            memcpy(D2_AS(d2_str, r)->s + (size_t)i * s->len, s->s, s->len);
        return str_finish(r, total);
    }
    bool list = seq->kind == D2_OBJ_LIST;
    size_t m = list ? D2_AS(d2_list, seq)->n : D2_AS(d2_tuple, seq)->n;
    d2_obj **src = list ? D2_AS(d2_list, seq)->items : D2_AS(d2_tuple, seq)->items;
    size_t total;
    if (__builtin_mul_overflow(m, (size_t)n, &total) || total > ((size_t)1 << 36))
        return d2_raise(I, "MemoryError", "repeated sequence is too long");
    d2_obj *r = list ? d2_list_new(I, total) : tuple_make(I, total);
    if (!r)
        return NULL;
    d2_obj **dst = list ? D2_AS(d2_list, r)->items : D2_AS(d2_tuple, r)->items;
    for (size_t i = 0; i < total; i++)
        dst[i] = d2_incref(src[i % m]);
    return r;
}

/* ---- comparisons of builtin values ---- */

/* -1/0/1, or 2 when unordered (NaN). */
static int num_cmp(d2_obj *a, d2_obj *b)
{
    if (a->kind != D2_OBJ_FLOAT && b->kind != D2_OBJ_FLOAT) {
        int64_t x = D2_AS(d2_int, a)->v, y = D2_AS(d2_int, b)->v;
        return x < y ? -1 : x > y;
    }
    long double x = a->kind == D2_OBJ_FLOAT ? (long double)D2_AS(d2_float, a)->v
                                            : (long double)D2_AS(d2_int, a)->v;
    long double y = b->kind == D2_OBJ_FLOAT ? (long double)D2_AS(d2_float, b)->v
                                            : (long double)D2_AS(d2_int, b)->v;
    if (isnan(x) || isnan(y))
        return 2;
    return x < y ? -1 : x > y;
}

static int cmp_result(int op, int c)
{
    if (c == 2)
        return op == D2_CMP_NOT_EQ;
    switch (op) {
    case D2_CMP_EQ: return c == 0;
    case D2_CMP_NOT_EQ: return c != 0;
    case D2_CMP_LT: return c < 0;
    case D2_CMP_LT_E: return c <= 0;
    case D2_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* Lexicographic comparison of two item arrays. */
static int seq_cmp(d2_interp *I, int op, d2_obj **a, size_t na, d2_obj **b, size_t nb)
{
    if ((op == D2_CMP_EQ || op == D2_CMP_NOT_EQ) && na != nb)
        return op == D2_CMP_NOT_EQ;
    if (d2i_stack_check(I) < 0)
        return -1;
    size_t i;
    for (i = 0; i < na && i < nb; i++) {
        int eq = d2_equal(I, a[i], b[i]);
        if (eq < 0)
            return -1;
        if (!eq)
            break;
    }
    if (i >= na || i >= nb) {
        int c = na < nb ? -1 : na > nb;
        return cmp_result(op, c);
    }
    if (op == D2_CMP_EQ)
        return 0;
    if (op == D2_CMP_NOT_EQ)
        return 1;
    d2_obj *r = d2_compare(I, op, a[i], b[i]);
    if (!r)
        return -1;
    int t = d2_truthy(I, r);
    d2_decref(r);
    return t;
}

static int set_subset(d2_interp *I, d2_dict *a, d2_dict *b)
{
    if (a->live > b->live)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (!a->entries[i].key)
            continue;
        int64_t ix = d2i_dict_find(I, b, a->entries[i].key, a->entries[i].hash);
        if (ix == -2)
            return -1;
        if (ix < 0)
            return 0;
    }
    return 1;
}

int d2i_compare_values(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (d2i_is_number(a) && d2i_is_number(b))
        return cmp_result(op, num_cmp(a, b));
    if (a->kind == D2_OBJ_STR && b->kind == D2_OBJ_STR) {
        d2_str *x = D2_AS(d2_str, a), *y = D2_AS(d2_str, b);
        size_t m = x->len < y->len ? x->len : y->len;
        int c = memcmp(x->s, y->s, m);
        if (c == 0)
            c = x->len < y->len ? -1 : x->len > y->len;
        return cmp_result(op, c < 0 ? -1 : c > 0);
    }
    if (a->kind == D2_OBJ_LIST && b->kind == D2_OBJ_LIST)
        return seq_cmp(I, op, D2_AS(d2_list, a)->items, D2_AS(d2_list, a)->n,
                       D2_AS(d2_list, b)->items, D2_AS(d2_list, b)->n);
    if (a->kind == D2_OBJ_TUPLE && b->kind == D2_OBJ_TUPLE)
        return seq_cmp(I, op, D2_AS(d2_tuple, a)->items, D2_AS(d2_tuple, a)->n,
                       D2_AS(d2_tuple, b)->items, D2_AS(d2_tuple, b)->n);
    if (a->kind == D2_OBJ_DICT && b->kind == D2_OBJ_DICT) {
        bool sa = d2i_is_set(I, a), sb = d2i_is_set(I, b);
        d2_dict *x = D2_AS(d2_dict, a), *y = D2_AS(d2_dict, b);
        if (sa && sb) {
            int r;
            switch (op) {
            case D2_CMP_EQ:
            case D2_CMP_NOT_EQ:
                r = x->live == y->live ? set_subset(I, x, y) : 0;
                return r < 0 ? -1 : (op == D2_CMP_EQ ? r : !r);
            case D2_CMP_LT_E: return set_subset(I, x, y);
            case D2_CMP_GT_E: return set_subset(I, y, x);
            case D2_CMP_LT:
                return x->live < y->live ? set_subset(I, x, y) : 0;
            default:
                return y->live < x->live ? set_subset(I, y, x) : 0;
            }
        }
        if (sa || sb)
            return (op == D2_CMP_EQ || op == D2_CMP_NOT_EQ) ? op == D2_CMP_NOT_EQ : -2;
        if (op != D2_CMP_EQ && op != D2_CMP_NOT_EQ)
            return -2;
        if (x->live != y->live)
            return op == D2_CMP_NOT_EQ;
        if (d2i_stack_check(I) < 0)
            return -1;
        for (size_t i = 0; i < x->n; i++) {
            d2_dict_entry *e = &x->entries[i];
            if (!e->key)
                continue;
            int64_t ix = d2i_dict_find(I, y, e->key, e->hash);
            if (ix == -2)
                return -1;
            if (ix < 0)
                return op == D2_CMP_NOT_EQ;
            int eq = d2_equal(I, e->value, y->entries[ix].value);
            if (eq < 0)
                return -1;
            if (!eq)
                return op == D2_CMP_NOT_EQ;
        }
        return op == D2_CMP_EQ;
    }
    if (a->kind == D2_OBJ_RANGE && b->kind == D2_OBJ_RANGE &&
        (op == D2_CMP_EQ || op == D2_CMP_NOT_EQ)) {
        d2_range *x = D2_AS(d2_range, a), *y = D2_AS(d2_range, b);
        int64_t nx = d2i_builtin_len(I, a), ny = d2i_builtin_len(I, b);
        bool eq =
            nx == ny && (nx == 0 || (x->start == y->start && (nx == 1 || x->step == y->step)));
        return op == D2_CMP_EQ ? eq : !eq;
    }
    if (a->kind == D2_OBJ_SLICE && b->kind == D2_OBJ_SLICE) {
        d2_slice *x = D2_AS(d2_slice, a), *y = D2_AS(d2_slice, b);
        d2_obj *ia[3] = {x->start, x->stop, x->step}, *ib[3] = {y->start, y->stop, y->step};
        return seq_cmp(I, op, ia, 3, ib, 3);
    }
    if (op == D2_CMP_EQ || op == D2_CMP_NOT_EQ) {
        if (is_view(a) && is_view(b) && D2_AS(d2_iter, a)->step == 0 &&
            D2_AS(d2_iter, b)->step == 0)
            return d2i_compare_values(I, op, D2_AS(d2_iter, a)->src, D2_AS(d2_iter, b)->src);
    }
    return -2;
}

int d2i_contains(d2_interp *I, d2_obj *c, d2_obj *item)
{
    switch (c->kind) {
    case D2_OBJ_STR: {
        if (item->kind != D2_OBJ_STR) {
            d2_raise(I, "TypeError", "'in <string>' requires string as left operand, not %s",
                     d2_type_name(item));
            return -1;
        }
        d2_str *h = D2_AS(d2_str, c), *n = D2_AS(d2_str, item);
        if (n->len == 0)
            return 1;
        return memmem(h->s, h->len, n->s, n->len) != NULL;
    }
    case D2_OBJ_LIST:
    case D2_OBJ_TUPLE: {
        for (size_t i = 0;; i++) {
            size_t n = c->kind == D2_OBJ_LIST ? D2_AS(d2_list, c)->n : D2_AS(d2_tuple, c)->n;
            if (i >= n)
                return 0;
            d2_obj *x =
                c->kind == D2_OBJ_LIST ? D2_AS(d2_list, c)->items[i] : D2_AS(d2_tuple, c)->items[i];
            d2_incref(x);
            int eq = d2_equal(I, x, item);
            d2_decref(x);
            if (eq)
                return eq;
        }
    }
    case D2_OBJ_DICT: {
        uint64_t h;
        if (d2_hash(I, item, &h) < 0)
            return -1;
        int64_t ix = d2i_dict_find(I, D2_AS(d2_dict, c), item, h);
        return ix == -2 ? -1 : ix >= 0;
    }
    case D2_OBJ_RANGE: {
        d2_range *r = D2_AS(d2_range, c);
        int64_t v;
        if (item->kind == D2_OBJ_INT || item->kind == D2_OBJ_BOOL)
            v = D2_AS(d2_int, item)->v;
        else if (item->kind == D2_OBJ_FLOAT &&
                 D2_AS(d2_float, item)->v == floor(D2_AS(d2_float, item)->v) &&
                 fabs(D2_AS(d2_float, item)->v) < 9e18)
            v = (int64_t)D2_AS(d2_float, item)->v;
        else
            return 0;
        if (r->step > 0 ? (v < r->start || v >= r->stop) : (v > r->start || v <= r->stop))
            return 0;
        return (v - r->start) % r->step == 0;
    }
    case D2_OBJ_ITERATOR:
        if (is_view(c)) {
            d2_iter *it = D2_AS(d2_iter, c);
            if (it->step == 0)
                return d2i_contains(I, it->src, item);
            d2_obj *l = d2_list_from_iterable(I, c);
            if (!l)
                return -1;
            int r = d2i_contains(I, l, item);
            d2_decref(l);
            return r;
        }
        return -2;
    default:
        return -2;
    }
}

/* ---- sorting ---- */

typedef struct sort_item {
    d2_obj *key, *value;
} sort_item;

/* a < b: 1, 0, or -1 with an exception. */
static int sort_lt(d2_interp *I, d2_obj *a, d2_obj *b)
{
    if (d2i_is_number(a) && d2i_is_number(b))
        return num_cmp(a, b) == -1;
    if (a->kind == D2_OBJ_STR && b->kind == D2_OBJ_STR)
        return d2i_compare_values(I, D2_CMP_LT, a, b);
    d2_obj *r = d2_compare(I, D2_CMP_LT, a, b);
    if (!r)
        return -1;
    int t = d2_truthy(I, r);
    d2_decref(r);
    return t;
}

static int merge_sort(d2_interp *I, sort_item *a, sort_item *tmp, size_t n)
{
    if (n < 2)
        return 0;
    if (n <= 8) {
        for (size_t i = 1; i < n; i++) {
            sort_item x = a[i];
            size_t j = i;
            while (j > 0) {
                int lt = sort_lt(I, x.key, a[j - 1].key);
                if (lt < 0) {
                    a[j] = x;
                    return -1;
                }
                if (!lt)
                    break;
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return 0;
    }
    size_t h = n / 2;
    if (merge_sort(I, a, tmp, h) < 0 || merge_sort(I, a + h, tmp, n - h) < 0)
        return -1;
    memcpy(tmp, a, h * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        int lt = sort_lt(I, a[j].key, tmp[i].key);
        if (lt < 0) {
            /* restore the remaining left half so no item is lost */
            while (i < h)
                a[k++] = tmp[i++];
            return -1;
        }
        a[k++] = lt ? a[j++] : tmp[i++];
    }
    while (i < h)
        a[k++] = tmp[i++];
    return 0;
}

int d2i_sort(d2_interp *I, d2_obj **items, size_t n, d2_obj *key, bool reverse)
{
    if (n < 2)
        return 0;
    sort_item *a = d2_malloc(n * sizeof *a), *tmp = d2_malloc(n * sizeof *tmp);
    if (!a || !tmp) {
        d2_free(a);
        d2_free(tmp);
        d2_raise(I, "MemoryError", "out of memory");
        return -1;
    }
    int rc = 0;
    size_t made = 0;
    for (size_t i = 0; i < n; i++) {
        a[i].value = items[i];
        if (key && key->kind != D2_OBJ_NONE) {
            a[i].key = d2_call(I, key, &items[i], 1, NULL);
            if (!a[i].key) {
                rc = -1;
                break;
            }
            made++;
        } else {
            a[i].key = items[i];
        }
    }
    if (rc == 0) {
        if (reverse)
            for (size_t i = 0; i < n / 2; i++) {
                sort_item t = a[i];
                a[i] = a[n - 1 - i];
                a[n - 1 - i] = t;
            }
        rc = merge_sort(I, a, tmp, n);
        if (reverse)
            for (size_t i = 0; i < n / 2; i++) {
                sort_item t = a[i];
                a[i] = a[n - 1 - i];
                a[n - 1 - i] = t;
            }
        for (size_t i = 0; i < n; i++)
            items[i] = a[i].value;
    }
    if (key && key->kind != D2_OBJ_NONE)
        for (size_t i = 0; i < made; i++)
            d2_decref(a[i].key);
    d2_free(a);
    d2_free(tmp);
    return rc;
}

/* ---- str methods ---- */

#define METHOD(name)                                                                               \
    static d2_obj *name(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)

static d2_str *want_str(d2_interp *I, d2_obj *o, const char *fname)
{
    if (o->kind != D2_OBJ_STR) {
        d2_raise(I, "TypeError", "%s() argument must be str, not %s", fname, d2_type_name(o));
        return NULL;
    }
    return D2_AS(d2_str, o);
}

static int check(d2_interp *I, const char *fname, size_t n, size_t lo, size_t hi, d2_dict *kw)
{
    if (d2i_no_kwargs(I, fname, kw) < 0 || d2i_nargs(I, fname, n, lo, hi) < 0)
        return -1;
    return 0;
}

/* Optional start/end arguments of find/count/startswith, in characters,
 * converted to byte offsets [*b0, *b1) of s. */
static int str_range(d2_interp *I, d2_str *s, d2_obj **a, size_t n, size_t first, size_t *b0,
                     size_t *b1)
{
    int64_t len = (int64_t)d2i_str_chars(s), lo = 0, hi = len;
    if (n > first && a[first]->kind != D2_OBJ_NONE && d2_to_int64(I, a[first], "start", &lo) < 0)
        return -1;
    if (n > first + 1 && a[first + 1]->kind != D2_OBJ_NONE &&
        d2_to_int64(I, a[first + 1], "end", &hi) < 0)
        return -1;
    if (lo < 0)
        lo = lo + len < 0 ? 0 : lo + len;
    if (hi < 0)
        hi = hi + len < 0 ? 0 : hi + len;
    if (hi > len)
        hi = len;
    if (lo > len) {
        *b0 = s->len + 1;
        *b1 = s->len;
        return 0;
    }
    *b0 = d2i_str_offset(s, (size_t)lo);
    *b1 = hi < lo ? *b0 : d2i_str_offset(s, (size_t)hi);
    return 0;
}

METHOD(str_join)
{
    if (check(I, "join", n, 1, 1, kw) < 0)
        return NULL;
    d2_obj *seq = d2_list_from_iterable(I, a[0]);
    if (!seq)
        return NULL;
    d2_str *sep = D2_AS(d2_str, self);
    d2_list *l = D2_AS(d2_list, seq);
    d2_buf b;
    d2_buf_init(&b);
    for (size_t i = 0; i < l->n; i++) {
        if (l->items[i]->kind != D2_OBJ_STR) {
            d2_raise(I, "TypeError", "sequence item %zu: expected str instance, %s found", i,
                     d2_type_name(l->items[i]));
            d2_buf_free(&b);
            d2_decref(seq);
            return NULL;
        }
        if (i)
            d2_buf_append(&b, sep->s, sep->len);
        d2_buf_append(&b, D2_AS(d2_str, l->items[i])->s, D2_AS(d2_str, l->items[i])->len);
    }
    d2_decref(seq);
    return str_from_buf(I, &b);
}

static bool is_space(unsigned char c)
{
    return c == ' ' || (c >= 9 && c <= 13) || c == 0x1c || c == 0x1d || c == 0x1e || c == 0x1f;
}

static d2_obj *split_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, bool right,
                          const char *fname)
{
    d2_obj *args[2];
    if (d2_parse_args(I, fname, "sep=None, maxsplit=-1", a, n, kw, args) < 0)
        return NULL;
    int64_t maxsplit;
    if (d2_to_int64(I, args[1], "maxsplit", &maxsplit) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    d2_obj *out = d2_list_new(I, 0);
    if (!out)
        return NULL;
    /* pieces collected as byte ranges, in order of discovery */
    size_t cap = 16, np = 0;
    size_t *pieces = d2_malloc(cap * 2 * sizeof *pieces);
    if (!pieces) {
        d2_decref(out);
        return d2_raise(I, "MemoryError", "out of memory");
    }
#define PUSH(x, y)                                                                                 \
    do {                                                                                           \
        if (np == cap) {                                                                           \
            cap *= 2;                                                                              \
            size_t *q = d2_realloc(pieces, cap * 2 * sizeof *q);                                   \
            if (!q)                                                                                \
                goto oom;                                                                          \
            pieces = q;                                                                            \
        }                                                                                          \
        pieces[2 * np] = (x);                                                                      \
        pieces[2 * np + 1] = (y);                                                                  \
        np++;                                                                                      \
    } while (0)
    if (args[0]->kind == D2_OBJ_NONE) {
        if (!right) {
            size_t i = 0;
            int64_t splits = 0;
            while (i < s->len) {
                while (i < s->len && is_space((unsigned char)s->s[i]))
                    i++;
                if (i >= s->len)
                    break;
                if (maxsplit >= 0 && splits >= maxsplit) {
                    size_t e = s->len;
                    while (e > i && is_space((unsigned char)s->s[e - 1]))
                        e--;
                    PUSH(i, e);
                    break;
                }
                size_t j = i;
                while (j < s->len && !is_space((unsigned char)s->s[j]))
                    j++;
                PUSH(i, j);
                splits++;
                i = j;
            }
        } else {
            size_t i = s->len;
            int64_t splits = 0;
            while (i > 0) {
                while (i > 0 && is_space((unsigned char)s->s[i - 1]))
                    i--;
                if (i == 0)
                    break;
                if (maxsplit >= 0 && splits >= maxsplit) {
                    size_t b0 = 0;
                    while (b0 < i && is_space((unsigned char)s->s[b0]))
                        b0++;
                    PUSH(b0, i);
                    break;
                }
                size_t j = i;
                while (j > 0 && !is_space((unsigned char)s->s[j - 1]))
                    j--;
                PUSH(j, i);
                splits++;
                i = j;
            }
        }
    } else {
        d2_str *sep = want_str(I, args[0], fname);
        if (!sep)
            goto fail;
        if (sep->len == 0) {
            d2_raise(I, "ValueError", "empty separator");
            goto fail;
        }
        int64_t splits = 0;
        if (!right) {
            size_t i = 0;
            for (;;) {
                const char *f = (maxsplit < 0 || splits < maxsplit)
                                    ? memmem(s->s + i, s->len - i, sep->s, sep->len)
                                    : NULL;
                if (!f) {
                    PUSH(i, s->len);
                    break;
                }
                size_t p = (size_t)(f - s->s);
                PUSH(i, p);
                splits++;
                i = p + sep->len;
            }
        } else {
            size_t e = s->len;
            for (;;) {
                size_t p = SIZE_MAX;
                if ((maxsplit < 0 || splits < maxsplit) && e >= sep->len)
                    for (size_t k = e - sep->len + 1; k-- > 0;)
                        if (memcmp(s->s + k, sep->s, sep->len) == 0) {
                            p = k;
                            break;
                        }
                if (p == SIZE_MAX) {
                    PUSH(0, e);
                    break;
                }
                PUSH(p + sep->len, e);
                splits++;
                e = p;
            }
        }
    }
#undef PUSH
    for (size_t k = 0; k < np; k++) {
        size_t idx = right ? np - 1 - k : k;
        d2_obj *piece =
            d2_str_new(I, s->s + pieces[2 * idx], pieces[2 * idx + 1] - pieces[2 * idx]);
        if (!piece || d2_list_append(I, out, piece) < 0) {
            d2_decref(piece);
            goto fail;
        }
        d2_decref(piece);
    }
    d2_free(pieces);
    return out;
oom:
    d2_raise(I, "MemoryError", "out of memory");
fail:
    d2_free(pieces);
    d2_decref(out);
    return NULL;
}

METHOD(str_split) { return split_impl(I, self, a, n, kw, false, "split"); }
METHOD(str_rsplit) { return split_impl(I, self, a, n, kw, true, "rsplit"); }

METHOD(str_splitlines)
{
    if (check(I, "splitlines", n, 0, 1, kw) < 0)
        return NULL;
    bool keep = n > 0 && d2_truthy(I, a[0]) == 1;
    d2_str *s = D2_AS(d2_str, self);
    d2_obj *out = d2_list_new(I, 0);
    size_t i = 0;
    while (out && i < s->len) {
        size_t j = i;
        while (j < s->len && s->s[j] != '\n' && s->s[j] != '\r')
            j++;
        size_t e = j;
        if (j < s->len) {
            if (s->s[j] == '\r' && j + 1 < s->len && s->s[j + 1] == '\n')
                j++;
            j++;
        }
        d2_obj *piece = d2_str_new(I, s->s + i, (keep ? j : e) - i);
        if (!piece || d2_list_append(I, out, piece) < 0) {
            d2_decref(piece);
            d2_decref(out);
            return NULL;
        }
        d2_decref(piece);
        i = j;
    }
    return out;
}

static d2_obj *strip_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, int which,
                          const char *fname)
{
    if (check(I, fname, n, 0, 1, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    d2_str *chars = NULL;
    if (n == 1 && a[0]->kind != D2_OBJ_NONE && !(chars = want_str(I, a[0], fname)))
        return NULL;
    size_t b0 = 0, e = s->len;
    if (!chars) {
        if (which & 1)
            while (b0 < e && is_space((unsigned char)s->s[b0]))
                b0++;
        if (which & 2)
            while (e > b0 && is_space((unsigned char)s->s[e - 1]))
                e--;
    } else {
        /* chars may hold multi-byte characters: strip whole code points */
        if (which & 1)
            while (b0 < e) {
                size_t j = b0;
                utf8_decode(s->s, s->len, &j);
                if (!memmem(chars->s, chars->len, s->s + b0, j - b0))
                    break;
                b0 = j;
            }
        if (which & 2)
            while (e > b0) {
                size_t j = e - 1;
                while (j > b0 && ((unsigned char)s->s[j] & 0xC0) == 0x80)
                    j--;
                if (!memmem(chars->s, chars->len, s->s + j, e - j))
                    break;
                e = j;
            }
    }
    if (b0 == 0 && e == s->len)
        return d2_incref(self);
    return d2_str_new(I, s->s + b0, e - b0);
}

METHOD(str_strip) { return strip_impl(I, self, a, n, kw, 3, "strip"); }
METHOD(str_lstrip) { return strip_impl(I, self, a, n, kw, 1, "lstrip"); }
METHOD(str_rstrip) { return strip_impl(I, self, a, n, kw, 2, "rstrip"); }

static d2_obj *affix_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, bool end,
                          const char *fname)
{
    if (check(I, fname, n, 1, 3, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    size_t b0, b1;
    if (str_range(I, s, a, n, 1, &b0, &b1) < 0)
        return NULL;
    d2_obj **cands = &a[0];
    size_t nc = 1;
    if (a[0]->kind == D2_OBJ_TUPLE) {
        cands = D2_AS(d2_tuple, a[0])->items;
        nc = D2_AS(d2_tuple, a[0])->n;
    }
    for (size_t i = 0; i < nc; i++) {
        if (cands[i]->kind != D2_OBJ_STR)
            return d2_raise(I, "TypeError",
                            "%s first arg must be str or a tuple of str, not %s", fname,
                            d2_type_name(cands[i]));
        d2_str *p = D2_AS(d2_str, cands[i]);
        if (b0 > b1 || b1 - b0 < p->len)
            continue;
        const char *at = end ? s->s + b1 - p->len : s->s + b0;
        if (memcmp(at, p->s, p->len) == 0)
            return d2_bool(I, true);
    }
    return d2_bool(I, false);
}

METHOD(str_startswith) { return affix_impl(I, self, a, n, kw, false, "startswith"); }
METHOD(str_endswith) { return affix_impl(I, self, a, n, kw, true, "endswith"); }

METHOD(str_removeprefix)
{
    if (check(I, "removeprefix", n, 1, 1, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *p = want_str(I, a[0], "removeprefix");
    if (!p)
        return NULL;
    if (p->len <= s->len && memcmp(s->s, p->s, p->len) == 0)
        return d2_str_new(I, s->s + p->len, s->len - p->len);
    return d2_incref(self);
}

METHOD(str_removesuffix)
{
    if (check(I, "removesuffix", n, 1, 1, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *p = want_str(I, a[0], "removesuffix");
    if (!p)
        return NULL;
    if (p->len && p->len <= s->len && memcmp(s->s + s->len - p->len, p->s, p->len) == 0)
        return d2_str_new(I, s->s, s->len - p->len);
    return d2_incref(self);
}

METHOD(str_replace)
{
    if (check(I, "replace", n, 2, 3, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *old = want_str(I, a[0], "replace"), *new_ = NULL;
    if (!old || !(new_ = want_str(I, a[1], "replace")))
        return NULL;
    int64_t count = -1;
    if (n == 3 && d2_to_int64(I, a[2], "count", &count) < 0)
        return NULL;
    d2_buf b;
    d2_buf_init(&b);
    if (old->len == 0) {
        /* insert new before every character and at the end */
        size_t i = 0;
        int64_t done = 0;
        while (i <= s->len) {
            if (count < 0 || done < count) {
                d2_buf_append(&b, new_->s, new_->len);
                done++;
            }
            if (i == s->len)
                break;
            size_t j = i;
            utf8_decode(s->s, s->len, &j);
            d2_buf_append(&b, s->s + i, j - i);
            i = j;
        }
        return str_from_buf(I, &b);
    }
    size_t i = 0;
    int64_t done = 0;
    for (;;) {
        const char *f =
            (count < 0 || done < count) ? memmem(s->s + i, s->len - i, old->s, old->len) : NULL;
        if (!f) {
            d2_buf_append(&b, s->s + i, s->len - i);
            break;
        }
        size_t p = (size_t)(f - s->s);
        d2_buf_append(&b, s->s + i, p - i);
        d2_buf_append(&b, new_->s, new_->len);
        i = p + old->len;
        done++;
    }
    return str_from_buf(I, &b);
}

/* Byte offset of the first/last occurrence of sub in s[b0,b1), or -1. */
static int64_t find_bytes(d2_str *s, d2_str *sub, size_t b0, size_t b1, bool last)
{
    if (b0 > b1 || b1 - b0 < sub->len)
        return -1;
    if (!last) {
        if (sub->len == 0)
            return (int64_t)b0;
        const char *f = memmem(s->s + b0, b1 - b0, sub->s, sub->len);
        return f ? (int64_t)(f - s->s) : -1;
    }
    for (size_t k = b1 - sub->len + 1; k-- > b0;)
        if (memcmp(s->s + k, sub->s, sub->len) == 0)
            return (int64_t)k;
    return -1;
}

static d2_obj *find_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, bool last,
                         bool raise, const char *fname)
{
    if (check(I, fname, n, 1, 3, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *sub = want_str(I, a[0], fname);
    if (!sub)
        return NULL;
    size_t b0, b1;
    if (str_range(I, s, a, n, 1, &b0, &b1) < 0)
        return NULL;
    int64_t p = find_bytes(s, sub, b0, b1, last);
    if (p < 0) {
        if (raise)
            return d2_raise(I, "ValueError", "substring not found");
        return d2_int_new(I, -1);
    }
    return d2_int_new(I, (int64_t)chars_in(s->s, (size_t)p));
}

METHOD(str_find) { return find_impl(I, self, a, n, kw, false, false, "find"); }
METHOD(str_rfind) { return find_impl(I, self, a, n, kw, true, false, "rfind"); }
METHOD(str_index) { return find_impl(I, self, a, n, kw, false, true, "index"); }
METHOD(str_rindex) { return find_impl(I, self, a, n, kw, true, true, "rindex"); }

METHOD(str_count)
{
    if (check(I, "count", n, 1, 3, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *sub = want_str(I, a[0], "count");
    if (!sub)
        return NULL;
    size_t b0, b1;
    if (str_range(I, s, a, n, 1, &b0, &b1) < 0)
        return NULL;
    if (b0 > b1)
        return d2_int_new(I, 0);
    if (sub->len == 0)
        return d2_int_new(I, (int64_t)chars_in(s->s + b0, b1 - b0) + 1);
    int64_t c = 0;
    size_t i = b0;
    for (;;) {
        int64_t p = find_bytes(s, sub, i, b1, false);
        if (p < 0)
            break;
        c++;
        i = (size_t)p + sub->len;
    }
    return d2_int_new(I, c);
}

static d2_obj *map_chars(d2_interp *I, d2_obj *self, int mode)
{
    d2_str *s = D2_AS(d2_str, self);
    d2_obj *r = str_alloc(I, s->len);
    if (!r)
        return NULL;
    char *o = D2_AS(d2_str, r)->s;
    bool start = true;
    for (size_t i = 0; i < s->len; i++) {
        char c = s->s[i];
        bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
        switch (mode) {
        case 0: /* upper */
            o[i] = lower ? (char)(c - 32) : c;
            break;
        case 1: /* lower */
            o[i] = upper ? (char)(c + 32) : c;
            break;
        case 2: /* capitalize */
            o[i] = i == 0 ? (lower ? (char)(c - 32) : c) : (upper ? (char)(c + 32) : c);
            break;
        case 3: /* title */
            o[i] = start ? (lower ? (char)(c - 32) : c) : (upper ? (char)(c + 32) : c);
            break;
        default: /* swapcase */
            o[i] = lower ? (char)(c - 32) : upper ? (char)(c + 32) : c;
            break;
        }
        start = !(lower || upper);
    }
    return str_finish(r, s->len);
}

METHOD(str_upper)
{
    (void)a;
    return check(I, "upper", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 0);
}
METHOD(str_lower)
{
    (void)a;
    return check(I, "lower", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 1);
}
METHOD(str_capitalize)
{
    (void)a;
    return check(I, "capitalize", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 2);
}
METHOD(str_title)
{
    (void)a;
    return check(I, "title", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 3);
}
METHOD(str_swapcase)
{
    (void)a;
    return check(I, "swapcase", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 4);
}

static d2_obj *classify(d2_interp *I, d2_obj *self, size_t n, d2_dict *kw, int what,
                        const char *fname)
{
    if (check(I, fname, n, 0, 0, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    if (s->len == 0)
        return d2_bool(I, false);
    bool any_cased = false;
    for (size_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->s[i];
        bool dig = c >= '0' && c <= '9', alpha = (c | 32) >= 'a' && (c | 32) <= 'z';
        bool ok;
        switch (what) {
        case 0: ok = dig; break;
        case 1: ok = alpha || c >= 0x80; break;
        case 2: ok = dig || alpha || c >= 0x80; break;
        case 3: ok = is_space(c); break;
        case 4: /* isupper */
            ok = !(c >= 'a' && c <= 'z');
            any_cased |= c >= 'A' && c <= 'Z';
            break;
        case 5: /* islower */
            ok = !(c >= 'A' && c <= 'Z');
            any_cased |= c >= 'a' && c <= 'z';
            break;
        default: /* isidentifier */
            ok = alpha || c == '_' || c >= 0x80 || (dig && i > 0);
            break;
        }
        if (!ok)
            return d2_bool(I, false);
    }
    if (what == 4 || what == 5)
        return d2_bool(I, any_cased);
    return d2_bool(I, true);
}

METHOD(str_isdigit) { (void)a; return classify(I, self, n, kw, 0, "isdigit"); }
METHOD(str_isalpha) { (void)a; return classify(I, self, n, kw, 1, "isalpha"); }
METHOD(str_isalnum) { (void)a; return classify(I, self, n, kw, 2, "isalnum"); }
METHOD(str_isspace) { (void)a; return classify(I, self, n, kw, 3, "isspace"); }
METHOD(str_isupper) { (void)a; return classify(I, self, n, kw, 4, "isupper"); }
METHOD(str_islower) { (void)a; return classify(I, self, n, kw, 5, "islower"); }
METHOD(str_isidentifier) { (void)a; return classify(I, self, n, kw, 6, "isidentifier"); }

static d2_obj *pad_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, int align,
                        const char *fname)
{
    if (check(I, fname, n, 1, 2, kw) < 0)
        return NULL;
    int64_t width;
    if (d2_to_int64(I, a[0], "width", &width) < 0)
        return NULL;
    const char *fill = " ";
    size_t fl = 1;
    if (n == 2) {
        d2_str *f = want_str(I, a[1], fname);
        if (!f)
            return NULL;
        if (chars_in(f->s, f->len) != 1)
            return d2_raise(I, "TypeError",
                            "The fill character must be exactly one character long");
        fill = f->s;
        fl = f->len;
    }
    d2_str *s = D2_AS(d2_str, self);
    int64_t len = (int64_t)d2i_str_chars(s);
    if (width <= len)
        return d2_incref(self);
    int64_t pad = width - len, left = align == 0   ? 0
                                      : align == 2 ? pad
                                                   : pad / 2 + (pad & width & 1);
    int64_t right = pad - left;
    d2_buf b;
    d2_buf_init(&b);
    for (int64_t i = 0; i < left; i++)
        d2_buf_append(&b, fill, fl);
    d2_buf_append(&b, s->s, s->len);
    for (int64_t i = 0; i < right; i++)
        d2_buf_append(&b, fill, fl);
    return str_from_buf(I, &b);
}

METHOD(str_ljust) { return pad_impl(I, self, a, n, kw, 0, "ljust"); }
METHOD(str_center) { return pad_impl(I, self, a, n, kw, 1, "center"); }
METHOD(str_rjust) { return pad_impl(I, self, a, n, kw, 2, "rjust"); }

METHOD(str_zfill)
{
    if (check(I, "zfill", n, 1, 1, kw) < 0)
        return NULL;
    int64_t width;
    if (d2_to_int64(I, a[0], "width", &width) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    int64_t len = (int64_t)d2i_str_chars(s);
    if (width <= len)
        return d2_incref(self);
    d2_buf b;
    d2_buf_init(&b);
    size_t i = 0;
    if (s->len && (s->s[0] == '-' || s->s[0] == '+')) {
        d2_buf_append(&b, s->s, 1);
        i = 1;
    }
    for (int64_t k = 0; k < width - len; k++)
        d2_buf_puts(&b, "0");
    d2_buf_append(&b, s->s + i, s->len - i);
    return str_from_buf(I, &b);
}

static d2_obj *partition_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw,
                              bool last, const char *fname)
{
    if (check(I, fname, n, 1, 1, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *sep = want_str(I, a[0], fname);
    if (!sep)
        return NULL;
    if (sep->len == 0)
        return d2_raise(I, "ValueError", "empty separator");
    int64_t p = find_bytes(s, sep, 0, s->len, last);
    d2_obj *x, *y, *z;
    if (p < 0) {
        x = last ? d2_str_new(I, "", 0) : d2_incref(self);
        y = d2_str_new(I, "", 0);
        z = last ? d2_incref(self) : d2_str_new(I, "", 0);
    } else {
        x = d2_str_new(I, s->s, (size_t)p);
        y = d2_incref(a[0]);
        z = d2_str_new(I, s->s + p + sep->len, s->len - (size_t)p - sep->len);
    }
    d2_obj *r = (x && y && z) ? d2_tuple_pack(I, 3, x, y, z) : NULL;
    d2_decref(x);
    d2_decref(y);
    d2_decref(z);
    return r;
}

METHOD(str_partition) { return partition_impl(I, self, a, n, kw, false, "partition"); }
METHOD(str_rpartition) { return partition_impl(I, self, a, n, kw, true, "rpartition"); }

METHOD(str_format_m)
{
    d2_str *s = D2_AS(d2_str, self);
    return d2i_str_format(I, s->s, s->len, a, n, kw);
}

METHOD(str_encode)
{
    (void)I;
    (void)a;
    (void)n;
    (void)kw;
    return d2_incref(self);
}

/* ---- list methods ---- */

METHOD(list_append)
{
    if (check(I, "append", n, 1, 1, kw) < 0 || d2_list_append(I, self, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(list_extend)
{
    if (check(I, "extend", n, 1, 1, kw) < 0 || d2i_list_extend(I, self, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(list_insert)
{
    if (check(I, "insert", n, 2, 2, kw) < 0)
        return NULL;
    int64_t i;
    if (d2i_index(I, a[0], &i) < 0)
        return NULL;
    d2_list *l = D2_AS(d2_list, self);
    if (i < 0)
        i = i + (int64_t)l->n < 0 ? 0 : i + (int64_t)l->n;
    if (i > (int64_t)l->n)
        i = (int64_t)l->n;
    if (l->n == l->cap && list_reserve(I, l, l->n + 1) < 0)
        return NULL;
    memmove(l->items + i + 1, l->items + i, (l->n - (size_t)i) * sizeof(d2_obj *));
    l->items[i] = d2_incref(a[1]);
    l->n++;
    return d2_none(I);
}

METHOD(list_pop)
{
    if (check(I, "pop", n, 0, 1, kw) < 0)
        return NULL;
    d2_list *l = D2_AS(d2_list, self);
    int64_t i = -1;
    if (n == 1 && d2i_index(I, a[0], &i) < 0)
        return NULL;
    if (l->n == 0)
        return d2_raise(I, "IndexError", "pop from empty list");
    if (i < 0)
        i += (int64_t)l->n;
    if (i < 0 || i >= (int64_t)l->n)
        return d2_raise(I, "IndexError", "pop index out of range");
    d2_obj *v = l->items[i];
    memmove(l->items + i, l->items + i + 1, (l->n - (size_t)i - 1) * sizeof(d2_obj *));
    l->n--;
    return v;
}

/* Index of the first item equal to x in items[lo, hi), -1 if none, -2 on error. */
static int64_t seq_find(d2_interp *I, d2_obj *seq, d2_obj *x, int64_t lo, int64_t hi)
{
    for (int64_t i = lo; i < hi; i++) {
        size_t n = seq->kind == D2_OBJ_LIST ? D2_AS(d2_list, seq)->n : D2_AS(d2_tuple, seq)->n;
        if ((size_t)i >= n)
            break;
        d2_obj *v = seq->kind == D2_OBJ_LIST ? D2_AS(d2_list, seq)->items[i]
                                             : D2_AS(d2_tuple, seq)->items[i];
        d2_incref(v);
        int eq = d2_equal(I, v, x);
        d2_decref(v);
        if (eq < 0)
            return -2;
        if (eq)
            return i;
    }
    return -1;
}

METHOD(seq_index_m)
{
    if (check(I, "index", n, 1, 3, kw) < 0)
        return NULL;
    int64_t len = d2i_builtin_len(I, self), lo = 0, hi = len;
    if (n > 1 && d2i_index(I, a[1], &lo) < 0)
        return NULL;
    if (n > 2 && d2i_index(I, a[2], &hi) < 0)
        return NULL;
    if (lo < 0)
        lo = lo + len < 0 ? 0 : lo + len;
    if (hi < 0)
        hi = hi + len < 0 ? 0 : hi + len;
    int64_t i = seq_find(I, self, a[0], lo, hi);
    if (i == -2)
        return NULL;
    if (i < 0) {
        if (self->kind == D2_OBJ_LIST) {
            d2_obj *r = d2_repr(I, a[0]);
            if (!r)
                return NULL;
            d2_raise(I, "ValueError", "%s is not in list", D2_AS(d2_str, r)->s);
            d2_decref(r);
            return NULL;
        }
        return d2_raise(I, "ValueError", "tuple.index(x): x not in tuple");
    }
    return d2_int_new(I, i);
}

METHOD(seq_count_m)
{
    if (check(I, "count", n, 1, 1, kw) < 0)
        return NULL;
    int64_t c = 0, len = d2i_builtin_len(I, self);
    for (int64_t i = 0; i < len;) {
        int64_t j = seq_find(I, self, a[0], i, len);
        if (j == -2)
            return NULL;
        if (j < 0)
            break;
        c++;
        i = j + 1;
    }
    return d2_int_new(I, c);
}

METHOD(list_remove)
{
    if (check(I, "remove", n, 1, 1, kw) < 0)
        return NULL;
    d2_list *l = D2_AS(d2_list, self);
    int64_t i = seq_find(I, self, a[0], 0, (int64_t)l->n);
    if (i == -2)
        return NULL;
    if (i < 0)
        return d2_raise(I, "ValueError", "list.remove(x): x not in list");
    d2_obj *v = l->items[i];
    memmove(l->items + i, l->items + i + 1, (l->n - (size_t)i - 1) * sizeof(d2_obj *));
    l->n--;
    d2_decref(v);
    return d2_none(I);
}

METHOD(list_sort)
{
    d2_obj *args[2];
    if (n > 0)
        return d2_raise(I, "TypeError", "sort() takes no positional arguments");
    if (d2_parse_args(I, "sort", "*, key=None, reverse=False", a, n, kw, args) < 0)
        return NULL;
    int rev = d2_truthy(I, args[1]);
    if (rev < 0)
        return NULL;
    /* sort a detached copy so a key function that mutates the list is harmless */
    d2_list *l = D2_AS(d2_list, self);
    size_t cnt = l->n;
    d2_obj **items = l->items;
    l->items = NULL;
    l->n = l->cap = 0;
    int rc = d2i_sort(I, items, cnt, args[0], rev);
    d2_obj **extra = l->items;
    size_t nextra = l->n;
    l->items = items;
    l->n = l->cap = cnt;
    for (size_t i = 0; i < nextra; i++)
        d2_decref(extra[i]);
    d2_free(extra);
    if (rc < 0)
        return NULL;
    if (nextra)
        return d2_raise(I, "ValueError", "list modified during sort");
    return d2_none(I);
}

METHOD(list_reverse)
{
    if (check(I, "reverse", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    d2_list *l = D2_AS(d2_list, self);
    for (size_t i = 0; i < l->n / 2; i++) {
        d2_obj *t = l->items[i];
        l->items[i] = l->items[l->n - 1 - i];
        l->items[l->n - 1 - i] = t;
    }
    return d2_none(I);
}

METHOD(list_copy)
{
    if (check(I, "copy", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    return d2i_list_from_array(I, D2_AS(d2_list, self)->items, D2_AS(d2_list, self)->n);
}

METHOD(list_clear)
{
    if (check(I, "clear", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    clear_refs(self);
    return d2_none(I);
}

/* ---- dict methods ---- */

METHOD(dict_keys)
{
    (void)a;
    return check(I, "keys", n, 0, 0, kw) < 0 ? NULL : dict_view(I, self, 0);
}
METHOD(dict_values)
{
    (void)a;
    return check(I, "values", n, 0, 0, kw) < 0 ? NULL : dict_view(I, self, 1);
}
METHOD(dict_items)
{
    (void)a;
    return check(I, "items", n, 0, 0, kw) < 0 ? NULL : dict_view(I, self, 2);
}

METHOD(dict_get)
{
    if (check(I, "get", n, 1, 2, kw) < 0)
        return NULL;
    d2_obj *v = d2_dict_get(I, D2_AS(d2_dict, self), a[0]);
    if (v)
        return d2_incref(v);
    if (d2_exc_pending(I))
        return NULL;
    return d2_incref(n == 2 ? a[1] : I->none);
}

METHOD(dict_pop)
{
    if (check(I, "pop", n, 1, 2, kw) < 0)
        return NULL;
    d2_obj *v = d2i_dict_pop(I, D2_AS(d2_dict, self), a[0]);
    if (v || d2_exc_pending(I))
        return v;
    if (n == 2)
        return d2_incref(a[1]);
    d2_obj *e = d2i_exc_new(I, d2_exc_class(I, "KeyError"), a, 1);
    if (e)
        d2i_set_exc(I, e);
    return NULL;
}

METHOD(dict_popitem)
{
    if (check(I, "popitem", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    d2_dict *d = D2_AS(d2_dict, self);
    for (size_t i = d->n; i-- > 0;) {
        if (!d->entries[i].key)
            continue;
        d2_obj *k = d2_incref(d->entries[i].key);
        d2_obj *v = dict_remove_at(d, (int64_t)i);
        d2_obj *r = d2_tuple_pack(I, 2, k, v);
        d2_decref(k);
        d2_decref(v);
        return r;
    }
    return d2_raise(I, "KeyError", "popitem(): dictionary is empty");
}

METHOD(dict_setdefault)
{
    if (check(I, "setdefault", n, 1, 2, kw) < 0)
        return NULL;
    d2_obj *v = d2_dict_get(I, D2_AS(d2_dict, self), a[0]);
    if (v)
        return d2_incref(v);
    if (d2_exc_pending(I))
        return NULL;
    d2_obj *dv = n == 2 ? a[1] : I->none;
    if (d2_dict_set(I, D2_AS(d2_dict, self), a[0], dv) < 0)
        return NULL;
    return d2_incref(dv);
}

/* Merges a mapping or an iterable of pairs into d. */
int d2i_dict_merge(d2_interp *I, d2_dict *d, d2_obj *src);
int d2i_dict_merge(d2_interp *I, d2_dict *d, d2_obj *src)
{
    if (src->kind == D2_OBJ_DICT && !d2i_is_set(I, src)) {
        d2_dict *s = D2_AS(d2_dict, src);
        for (size_t i = 0; i < s->n; i++) {
            if (!s->entries[i].key)
                continue;
            if (d2i_dict_set_h(I, d, s->entries[i].key, s->entries[i].hash, s->entries[i].value) <
                0)
                return -1;
        }
        return 0;
    }
    if (src->kind == D2_OBJ_INSTANCE) {
        d2_obj *keys = d2_getattr_opt(I, src, "keys");
        if (keys) {
            d2_obj *ks = d2_call(I, keys, NULL, 0, NULL);
            d2_decref(keys);
            if (!ks)
                return -1;
            d2_obj *kl = d2_list_from_iterable(I, ks);
            d2_decref(ks);
            if (!kl)
                return -1;
            for (size_t i = 0; i < D2_AS(d2_list, kl)->n; i++) {
                d2_obj *k = D2_AS(d2_list, kl)->items[i];
                d2_obj *v = d2_getitem(I, src, k);
                if (!v || d2_dict_set(I, d, k, v) < 0) {
                    d2_decref(v);
                    d2_decref(kl);
                    return -1;
                }
                d2_decref(v);
            }
            d2_decref(kl);
            return 0;
        }
        if (d2_exc_pending(I))
            return -1;
    }
    d2_obj *it = d2_get_iter(I, src);
    if (!it)
        return -1;
    for (size_t idx = 0;; idx++) {
        bool done = false;
        d2_obj *pair = d2_iter_next(I, it, &done);
        if (!pair) {
            d2_decref(it);
            return done ? 0 : -1;
        }
        d2_obj *p = d2i_tuple_from_iterable(I, pair);
        d2_decref(pair);
        if (!p) {
            d2_decref(it);
            return -1;
        }
        if (D2_AS(d2_tuple, p)->n != 2) {
            d2_raise(I, "ValueError",
                     "dictionary update sequence element #%zu has length %zu; 2 is required", idx,
                     D2_AS(d2_tuple, p)->n);
            d2_decref(p);
            d2_decref(it);
            return -1;
        }
        int rc = d2_dict_set(I, d, D2_AS(d2_tuple, p)->items[0], D2_AS(d2_tuple, p)->items[1]);
        d2_decref(p);
        if (rc < 0) {
            d2_decref(it);
            return -1;
        }
    }
}

METHOD(dict_update)
{
    if (d2i_nargs(I, "update", n, 0, 1) < 0)
        return NULL;
    d2_dict *d = D2_AS(d2_dict, self);
    if (n == 1 && d2i_dict_merge(I, d, a[0]) < 0)
        return NULL;
    if (kw && d2i_dict_merge(I, d, (d2_obj *)kw) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(dict_copy)
{
    if (check(I, "copy", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    d2_obj *r = d2i_is_set(I, self) ? d2i_set_new(I) : d2_dict_new(I);
    if (r && d2i_dict_merge(I, D2_AS(d2_dict, r), self) < 0) {
        d2_decref(r);
        return NULL;
    }
    return r;
}

METHOD(dict_clear)
{
    if (check(I, "clear", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    d2i_dict_clear(D2_AS(d2_dict, self));
    return d2_none(I);
}

METHOD(dict_fromkeys)
{
    if (check(I, "fromkeys", n, 1, 2, kw) < 0)
        return NULL;
    d2_obj *d = d2_dict_new(I);
    if (!d)
        return NULL;
    (void)self;
    d2_obj *it = d2_get_iter(I, a[0]);
    if (!it) {
        d2_decref(d);
        return NULL;
    }
    for (;;) {
        bool done = false;
        d2_obj *k = d2_iter_next(I, it, &done);
        if (!k) {
            d2_decref(it);
            if (done)
                return d;
            d2_decref(d);
            return NULL;
        }
        int rc = d2_dict_set(I, D2_AS(d2_dict, d), k, n == 2 ? a[1] : I->none);
        d2_decref(k);
        if (rc < 0) {
            d2_decref(it);
            d2_decref(d);
            return NULL;
        }
    }
}

/* ---- set methods ---- */

static int set_add(d2_interp *I, d2_obj *set, d2_obj *k)
{
    return d2_dict_set(I, D2_AS(d2_dict, set), k, I->none);
}

/* Adds every item of iterable to set. */
static int set_update_from(d2_interp *I, d2_obj *set, d2_obj *iterable)
{
    if (iterable->kind == D2_OBJ_DICT) {
        d2_dict *s = D2_AS(d2_dict, iterable);
        for (size_t i = 0; i < s->n; i++)
            if (s->entries[i].key && d2i_dict_set_h(I, D2_AS(d2_dict, set), s->entries[i].key,
                                                    s->entries[i].hash, I->none) < 0)
                return -1;
        return 0;
    }
    d2_obj *it = d2_get_iter(I, iterable);
    if (!it)
        return -1;
    for (;;) {
        bool done = false;
        d2_obj *k = d2_iter_next(I, it, &done);
        if (!k) {
            d2_decref(it);
            return done ? 0 : -1;
        }
        int rc = set_add(I, set, k);
        d2_decref(k);
        if (rc < 0) {
            d2_decref(it);
            return -1;
        }
    }
}

d2_obj *d2i_set_from_iterable(d2_interp *I, d2_obj *iterable);
d2_obj *d2i_set_from_iterable(d2_interp *I, d2_obj *iterable)
{
    d2_obj *s = d2i_set_new(I);
    if (s && iterable && set_update_from(I, s, iterable) < 0) {
        d2_decref(s);
        return NULL;
    }
    return s;
}

/* Set algebra: op is '|', '&', '-', '^'. b may be any iterable. */
d2_obj *d2i_set_op(d2_interp *I, int op, d2_obj *a, d2_obj *b);
d2_obj *d2i_set_op(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    d2_obj *other = d2i_is_set(I, b) ? d2_incref(b) : d2i_set_from_iterable(I, b);
    if (!other)
        return NULL;
    d2_obj *r = d2i_set_new(I);
    d2_dict *x = D2_AS(d2_dict, a), *y = D2_AS(d2_dict, other);
    int rc = r ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < x->n; i++) {
        d2_dict_entry *e = &x->entries[i];
        if (!e->key)
            continue;
        int64_t ix = op == '|' ? 0 : d2i_dict_find(I, y, e->key, e->hash);
        if (ix == -2) {
            rc = -1;
            break;
        }
        bool keep = op == '|' || (op == '&' ? ix >= 0 : ix < 0);
        if (keep)
            rc = d2i_dict_set_h(I, D2_AS(d2_dict, r), e->key, e->hash, I->none);
    }
    if (rc == 0 && (op == '|' || op == '^'))
        for (size_t i = 0; rc == 0 && i < y->n; i++) {
            d2_dict_entry *e = &y->entries[i];
            if (!e->key)
                continue;
            int64_t ix = op == '|' ? -1 : d2i_dict_find(I, x, e->key, e->hash);
            if (ix == -2)
                rc = -1;
            else if (ix < 0)
                rc = d2i_dict_set_h(I, D2_AS(d2_dict, r), e->key, e->hash, I->none);
        }
    d2_decref(other);
    if (rc < 0) {
        d2_decref(r);
        return NULL;
    }
    return r;
}

METHOD(set_add_m)
{
    if (check(I, "add", n, 1, 1, kw) < 0 || set_add(I, self, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(set_remove)
{
    if (check(I, "remove", n, 1, 1, kw) < 0)
        return NULL;
    if (d2_dict_del(I, D2_AS(d2_dict, self), a[0]) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(set_discard)
{
    if (check(I, "discard", n, 1, 1, kw) < 0)
        return NULL;
    d2_obj *v = d2i_dict_pop(I, D2_AS(d2_dict, self), a[0]);
    if (!v && d2_exc_pending(I))
        return NULL;
    d2_decref(v);
    return d2_none(I);
}

METHOD(set_pop)
{
    if (check(I, "pop", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    d2_dict *d = D2_AS(d2_dict, self);
    for (size_t i = 0; i < d->n; i++) {
        if (!d->entries[i].key)
            continue;
        d2_obj *k = d2_incref(d->entries[i].key);
        d2_decref(dict_remove_at(d, (int64_t)i));
        return k;
    }
    return d2_raise(I, "KeyError", "pop from an empty set");
}

METHOD(set_update)
{
    if (d2i_no_kwargs(I, "update", kw) < 0)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (set_update_from(I, self, a[i]) < 0)
            return NULL;
    return d2_none(I);
}

static d2_obj *set_multi(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, int op,
                         const char *fname)
{
    if (d2i_no_kwargs(I, fname, kw) < 0)
        return NULL;
    d2_obj *r = d2_incref(self);
    if (n == 0) {
        d2_decref(r);
        return d2i_set_from_iterable(I, self);
    }
    for (size_t i = 0; i < n; i++) {
        d2_obj *x = d2i_set_op(I, op, r, a[i]);
        d2_decref(r);
        if (!x)
            return NULL;
        r = x;
    }
    return r;
}

METHOD(set_union) { return set_multi(I, self, a, n, kw, '|', "union"); }
METHOD(set_intersection) { return set_multi(I, self, a, n, kw, '&', "intersection"); }
METHOD(set_difference) { return set_multi(I, self, a, n, kw, '-', "difference"); }
METHOD(set_symdiff)
{
    if (check(I, "symmetric_difference", n, 1, 1, kw) < 0)
        return NULL;
    return d2i_set_op(I, '^', self, a[0]);
}

static d2_obj *set_rel(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, int what,
                       const char *fname)
{
    if (check(I, fname, n, 1, 1, kw) < 0)
        return NULL;
    d2_obj *other = d2i_is_set(I, a[0]) ? d2_incref(a[0]) : d2i_set_from_iterable(I, a[0]);
    if (!other)
        return NULL;
    int r;
    if (what == 0)
        r = set_subset(I, D2_AS(d2_dict, self), D2_AS(d2_dict, other));
    else if (what == 1)
        r = set_subset(I, D2_AS(d2_dict, other), D2_AS(d2_dict, self));
    else {
        d2_obj *x = d2i_set_op(I, '&', self, other);
        r = x ? D2_AS(d2_dict, x)->live == 0 : -1;
        d2_decref(x);
    }
    d2_decref(other);
    return r < 0 ? NULL : d2_bool(I, r);
}

METHOD(set_issubset) { return set_rel(I, self, a, n, kw, 0, "issubset"); }
METHOD(set_issuperset) { return set_rel(I, self, a, n, kw, 1, "issuperset"); }
METHOD(set_isdisjoint) { return set_rel(I, self, a, n, kw, 2, "isdisjoint"); }

/* ---- registration ---- */

typedef struct method_def {
    const char *name;
    d2_builtin_fn fn;
} method_def;

static const method_def str_methods[] = {
    {"join", str_join}, {"split", str_split}, {"rsplit", str_rsplit},
    {"splitlines", str_splitlines}, {"strip", str_strip}, {"lstrip", str_lstrip},
    {"rstrip", str_rstrip}, {"startswith", str_startswith}, {"endswith", str_endswith},
    {"removeprefix", str_removeprefix}, {"removesuffix", str_removesuffix},
    {"replace", str_replace}, {"find", str_find}, {"rfind", str_rfind}, {"index", str_index},
    {"rindex", str_rindex}, {"count", str_count}, {"upper", str_upper}, {"lower", str_lower},
    {"capitalize", str_capitalize}, {"title", str_title}, {"swapcase", str_swapcase},
    {"isdigit", str_isdigit}, {"isdecimal", str_isdigit}, {"isnumeric", str_isdigit},
    {"isalpha", str_isalpha}, {"isalnum", str_isalnum}, {"isspace", str_isspace},
    {"isupper", str_isupper}, {"islower", str_islower}, {"isidentifier", str_isidentifier},
    {"ljust", str_ljust}, {"rjust", str_rjust}, {"center", str_center}, {"zfill", str_zfill},
    {"partition", str_partition}, {"rpartition", str_rpartition}, {"format", str_format_m},
    {"encode", str_encode},
};

static const method_def list_methods[] = {
    {"append", list_append}, {"extend", list_extend}, {"insert", list_insert},
    {"pop", list_pop}, {"remove", list_remove}, {"index", seq_index_m}, {"count", seq_count_m},
    {"sort", list_sort}, {"reverse", list_reverse}, {"copy", list_copy}, {"clear", list_clear},
};

static const method_def tuple_methods[] = {
    {"index", seq_index_m},
    {"count", seq_count_m},
};

static const method_def dict_methods[] = {
    {"keys", dict_keys}, {"values", dict_values}, {"items", dict_items}, {"get", dict_get},
    {"pop", dict_pop}, {"popitem", dict_popitem}, {"setdefault", dict_setdefault},
    {"update", dict_update}, {"copy", dict_copy}, {"clear", dict_clear},
};

static const method_def set_methods[] = {
    {"add", set_add_m}, {"remove", set_remove}, {"discard", set_discard}, {"pop", set_pop},
    {"update", set_update}, {"union", set_union}, {"intersection", set_intersection},
    {"difference", set_difference}, {"symmetric_difference", set_symdiff},
    {"issubset", set_issubset}, {"issuperset", set_issuperset}, {"isdisjoint", set_isdisjoint},
    {"copy", dict_copy}, {"clear", dict_clear},
};

static int add_methods(d2_interp *I, d2_class *c, const method_def *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (d2_class_add_method(I, c, m[i].name, m[i].fn) < 0)
            return -1;
    return 0;
}

int d2i_init_methods(d2_interp *I)
{
    if (add_methods(I, I->types[D2_OBJ_STR], str_methods, D2_COUNTOF(str_methods)) < 0 ||
        add_methods(I, I->types[D2_OBJ_LIST], list_methods, D2_COUNTOF(list_methods)) < 0 ||
        add_methods(I, I->types[D2_OBJ_TUPLE], tuple_methods, D2_COUNTOF(tuple_methods)) < 0 ||
        add_methods(I, I->types[D2_OBJ_DICT], dict_methods, D2_COUNTOF(dict_methods)) < 0 ||
        add_methods(I, I->st->set, set_methods, D2_COUNTOF(set_methods)) < 0)
        return -1;
    /* dict.fromkeys is a classmethod */
    d2_obj *fk = d2_builtin_new(I, "fromkeys", dict_fromkeys, NULL, NULL);
    if (!fk)
        return -1;
    d2_obj *cm = d2_obj_alloc(I, D2_OBJ_CLASSMETHOD, NULL, sizeof(d2_wrapper));
    if (!cm) {
        d2_decref(fk);
        return -1;
    }
    D2_AS(d2_wrapper, cm)->func = fk;
    int rc = d2_dict_set_str(I, I->types[D2_OBJ_DICT]->dict, "fromkeys", cm);
    d2_decref(cm);
    if (rc < 0)
        return -1;
    static const char *view_names[3] = {"dict_keys", "dict_values", "dict_items"};
    for (int i = 0; i < 3; i++) {
        I->st->views[i] = d2i_class_new(I, view_names[i], NULL, D2_OBJ_ITERATOR, NULL, false);
        if (!I->st->views[i])
            return -1;
    }
    return 0;
}

/* ---- format(): the format-spec mini-language ---- */

typedef struct fspec {
    char fill[5];
    size_t fill_len;
    char align; /* 0 or one of < > ^ = */
    char sign;  /* 0 or + - ' ' */
    bool alt, zero;
    int64_t width;
    char group; /* 0 , _ */
    int64_t prec; /* -1 when absent */
    char type;    /* 0 when absent */
} fspec;

static int parse_spec(d2_interp *I, const char *s, size_t n, fspec *f)
{
    memset(f, 0, sizeof *f);
    f->prec = -1;
    f->fill[0] = ' ';
    f->fill_len = 1;
    size_t i = 0;
    if (n > 0) {
        size_t l = 0;
        utf8_decode(s, n, &l);
        if (l < n && strchr("<>^=", s[l])) {
            memcpy(f->fill, s, l);
            f->fill_len = l;
            f->align = s[l];
            i = l + 1;
        } else if (strchr("<>^=", s[0])) {
            f->align = s[0];
            i = 1;
        }
    }
    if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == ' '))
        f->sign = s[i++];
    if (i < n && s[i] == 'z')
        i++;
    if (i < n && s[i] == '#') {
        f->alt = true;
        i++;
    }
    if (i < n && s[i] == '0') {
        f->zero = true;
        i++;
    }
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (f->width > 100000000)
            goto toobig;
        f->width = f->width * 10 + (s[i++] - '0');
    }
    if (i < n && (s[i] == ',' || s[i] == '_'))
        f->group = s[i++];
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9') {
            d2_raise(I, "ValueError", "Format specifier missing precision");
            return -1;
        }
        f->prec = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (f->prec > 100000000)
                goto toobig;
            f->prec = f->prec * 10 + (s[i++] - '0');
        }
    }
    if (i < n)
        f->type = s[i++];
    if (i < n) {
        d2_raise(I, "ValueError", "Invalid format specifier '%.*s'", (int)n, s);
        return -1;
    }
    return 0;
toobig:
    d2_raise(I, "ValueError", "Too many decimal digits in format string");
    return -1;
}

/* Inserts separator sep every `every` digits into the leading run of digits of s. */
static void group_digits(d2_buf *out, const char *s, size_t n, char sep, int every)
{
    size_t nd = 0;
    while (nd < n && s[nd] >= '0' && s[nd] <= '9')
        nd++;
    for (size_t i = 0; i < nd; i++) {
        d2_buf_append(out, s + i, 1);
        size_t left = nd - i - 1;
        if (left && left % (size_t)every == 0)
            d2_buf_append(out, &sep, 1);
    }
    d2_buf_append(out, s + nd, n - nd);
}

/* Pads sign+prefix+body to the spec's width and alignment. */
static d2_obj *pad_field(d2_interp *I, const fspec *f, const char *sign, const char *prefix,
                         const char *body, size_t blen, bool numeric)
{
    size_t chars = strlen(sign) + strlen(prefix) + chars_in(body, blen);
    char align = f->align;
    const char *fill = f->fill;
    size_t fl = f->fill_len;
    if (f->zero && !f->align) {
        fill = "0";
        fl = 1;
        align = numeric ? '=' : '<';
    }
    if (!align)
        align = numeric ? '>' : '<';
    d2_buf b;
    d2_buf_init(&b);
    size_t pad = f->width > (int64_t)chars ? (size_t)f->width - chars : 0;
    size_t left = 0, right = 0, mid = 0;
    switch (align) {
    case '<': right = pad; break;
    case '>': left = pad; break;
    case '^': left = pad / 2; right = pad - left; break;
    default: mid = pad; break;
    }
    for (size_t i = 0; i < left; i++)
        d2_buf_append(&b, fill, fl);
    d2_buf_puts(&b, sign);
    d2_buf_puts(&b, prefix);
    for (size_t i = 0; i < mid; i++)
        d2_buf_append(&b, fill, fl);
    d2_buf_append(&b, body, blen);
    for (size_t i = 0; i < right; i++)
        d2_buf_append(&b, fill, fl);
    return str_from_buf(I, &b);
}

static d2_obj *format_float(d2_interp *I, double x, fspec *f);

static d2_obj *format_int(d2_interp *I, int64_t v, fspec *f)
{
    char t = f->type;
    if (t && strchr("eEfFgG%", t))
        return format_float(I, (double)v, f);
    if (t && !strchr("dnbxXoc", t))
        return d2_raise(I, "ValueError", "Unknown format code '%c' for object of type 'int'", t);
    if (f->prec >= 0)
        return d2_raise(I, "ValueError", "Precision not allowed in integer format specifier");
    if (t == 'c') {
        if (v < 0 || v > 0x10FFFF)
            return d2_raise(I, "OverflowError", "%%c arg not in range(0x110000)");
        char ch[4];
        size_t l = utf8_encode((uint32_t)v, ch);
        return pad_field(I, f, "", "", ch, l, true);
    }
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int base = t == 'b' ? 2 : t == 'o' ? 8 : (t == 'x' || t == 'X') ? 16 : 10;
    const char *dig = t == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[80];
    size_t k = sizeof tmp;
    do {
        tmp[--k] = dig[u % (uint64_t)base];
        u /= (uint64_t)base;
    } while (u);
    const char *sign = v < 0 ? "-" : f->sign == '+' ? "+" : f->sign == ' ' ? " " : "";
    const char *prefix = "";
    if (f->alt)
        prefix = base == 2 ? "0b" : base == 8 ? "0o" : base == 16 ? (t == 'X' ? "0X" : "0x") : "";
    if (f->group) {
        d2_buf g;
        d2_buf_init(&g);
        group_digits(&g, tmp + k, sizeof tmp - k, f->group, base == 10 ? 3 : 4);
        if (g.oom) {
            d2_buf_free(&g);
            return d2_raise(I, "MemoryError", "out of memory");
        }
        d2_obj *r = pad_field(I, f, sign, prefix, g.data, g.len, true);
        d2_buf_free(&g);
        return r;
    }
    return pad_field(I, f, sign, prefix, tmp + k, sizeof tmp - k, true);
}

static d2_obj *format_float(d2_interp *I, double x, fspec *f)
{
    char t = f->type;
    if (t == 'n')
        t = 'g';
    if (t && !strchr("eEfFgG%", t))
        return d2_raise(I, "ValueError", "Unknown format code '%c' for object of type 'float'", t);
    const char *sign = signbit(x) && !isnan(x) ? "-"
                       : f->sign == '+'        ? "+"
                       : f->sign == ' '        ? " "
                                               : "";
    double ax = fabs(x);
    char body[400];
    int prec = f->prec < 0 ? 6 : (int)(f->prec > 300 ? 300 : f->prec);
    if (isnan(x) || isinf(x)) {
        bool up = t && strchr("EFG", t);
        snprintf(body, sizeof body, "%s%s", isnan(x) ? (up ? "NAN" : "nan") : (up ? "INF" : "inf"),
                 t == '%' ? "%" : "");
    } else if (!t) {
        if (f->prec < 0) {
            d2i_float_repr(ax, body, sizeof body);
        } else {
            snprintf(body, sizeof body, f->alt ? "%#.*g" : "%.*g", prec ? prec : 1, ax);
            if (!strpbrk(body, ".e"))
                strcat(body, ".0");
        }
    } else if (t == '%') {
        snprintf(body, sizeof body, f->alt ? "%#.*f%%" : "%.*f%%", prec, ax * 100);
    } else {
        char cfmt[8] = "%.*";
        if (f->alt)
            strcpy(cfmt, "%#.*");
        size_t l = strlen(cfmt);
        cfmt[l] = t;
        cfmt[l + 1] = 0;
        snprintf(body, sizeof body, cfmt, (t == 'g' || t == 'G') && prec == 0 ? 1 : prec, ax);
    }
    if (f->group) {
        d2_buf g;
        d2_buf_init(&g);
        group_digits(&g, body, strlen(body), f->group, 3);
        if (g.oom) {
            d2_buf_free(&g);
            return d2_raise(I, "MemoryError", "out of memory");
        }
        d2_obj *r = pad_field(I, f, sign, "", g.data, g.len, true);
        d2_buf_free(&g);
        return r;
    }
    return pad_field(I, f, sign, "", body, strlen(body), true);
}

static d2_obj *format_str(d2_interp *I, d2_str *s, fspec *f)
{
    if (f->type && f->type != 's')
        return d2_raise(I, "ValueError", "Unknown format code '%c' for object of type 'str'",
                        f->type);
    if (f->sign)
        return d2_raise(I, "ValueError", "Sign not allowed in string format specifier");
    if (f->align == '=')
        return d2_raise(I, "ValueError", "'=' alignment not allowed in string format specifier");
    size_t len = s->len;
    if (f->prec >= 0 && (size_t)f->prec < d2i_str_chars(s))
        len = d2i_str_offset(s, (size_t)f->prec);
    return pad_field(I, f, "", "", s->s, len, false);
}

d2_obj *d2i_format(d2_interp *I, d2_obj *v, const char *spec)
{
    size_t n = strlen(spec);
    if (v->kind == D2_OBJ_INSTANCE || v->kind >= D2_OBJ_TENSOR) {
        d2_obj *m = d2i_mro_lookup(I, v->cls, "__format__");
        if (m) {
            d2_obj *arg = d2_str_new(I, spec, n);
            if (!arg)
                return NULL;
            bool found;
            d2_obj *r = d2i_call_special(I, v, "__format__", &arg, 1, &found);
            d2_decref(arg);
            if (r && r->kind != D2_OBJ_STR) {
                d2_raise(I, "TypeError", "__format__ must return a str, not %s", d2_type_name(r));
                d2_decref(r);
                return NULL;
            }
            return r;
        }
    }
    if (n == 0)
        return d2_str_of(I, v);
    fspec f;
    if (parse_spec(I, spec, n, &f) < 0)
        return NULL;
    switch (v->kind) {
    case D2_OBJ_INT:
    case D2_OBJ_BOOL:
        return format_int(I, D2_AS(d2_int, v)->v, &f);
    case D2_OBJ_FLOAT:
        return format_float(I, D2_AS(d2_float, v)->v, &f);
    case D2_OBJ_STR:
        return format_str(I, D2_AS(d2_str, v), &f);
    default:
        break;
    }
    return d2_raise(I, "TypeError", "unsupported format string passed to %s.__format__",
                    d2_type_name(v));
}

/* ---- printf-style formatting: fmt % args ---- */

static d2_obj *mod_int_body(d2_interp *I, d2_obj *v, char conv, const char *flags, int64_t width,
                            int64_t prec)
{
    int64_t iv;
    if (v->kind == D2_OBJ_FLOAT && (conv == 'd' || conv == 'i' || conv == 'u')) {
        double x = D2_AS(d2_float, v)->v;
        if (isnan(x) || isinf(x) || fabs(x) >= 9.2e18)
            return d2_raise(I, "OverflowError", "cannot convert float to integer");
        iv = (int64_t)x;
    } else if (v->kind == D2_OBJ_INT || v->kind == D2_OBJ_BOOL) {
        iv = D2_AS(d2_int, v)->v;
    } else if (I->hooks[v->kind] && I->hooks[v->kind]->to_number) {
        if (d2i_index(I, v, &iv) < 0)
            return NULL;
    } else {
        if (conv == 'd' || conv == 'i' || conv == 'u')
            return d2_raise(I, "TypeError", "%%%c format: a real number is required, not %s", conv,
                            d2_type_name(v));
        return d2_raise(I, "TypeError", "%%%c format: an integer is required, not %s", conv,
                        d2_type_name(v));
    }
    uint64_t u = iv < 0 ? (uint64_t)0 - (uint64_t)iv : (uint64_t)iv;
    int base = conv == 'o' ? 8 : (conv == 'x' || conv == 'X') ? 16 : 10;
    const char *dig = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[80];
    size_t k = sizeof tmp;
    do {
        tmp[--k] = dig[u % (uint64_t)base];
        u /= (uint64_t)base;
    } while (u);
    d2_buf digits;
    d2_buf_init(&digits);
    for (int64_t i = (int64_t)(sizeof tmp - k); i < prec; i++)
        d2_buf_puts(&digits, "0");
    d2_buf_append(&digits, tmp + k, sizeof tmp - k);
    const char *sign = iv < 0 ? "-" : strchr(flags, '+') ? "+" : strchr(flags, ' ') ? " " : "";
    const char *prefix = "";
    if (strchr(flags, '#'))
        prefix = base == 8 ? "0o" : base == 16 ? (conv == 'X' ? "0X" : "0x") : "";
    fspec f;
    memset(&f, 0, sizeof f);
    f.fill[0] = ' ';
    f.fill_len = 1;
    f.width = width;
    f.align = strchr(flags, '-') ? '<' : strchr(flags, '0') ? '=' : '>';
    if (f.align == '=')
        f.fill[0] = '0';
    d2_obj *r = digits.oom ? d2_raise(I, "MemoryError", "out of memory")
                           : pad_field(I, &f, sign, prefix, digits.data, digits.len, true);
    d2_buf_free(&digits);
    return r;
}

d2_obj *d2i_str_mod(d2_interp *I, d2_obj *fmtobj, d2_obj *args)
{
    d2_str *fmt = D2_AS(d2_str, fmtobj);
    d2_obj **items = &args;
    size_t nitems = 1, next = 0;
    if (args->kind == D2_OBJ_TUPLE) {
        items = D2_AS(d2_tuple, args)->items;
        nitems = D2_AS(d2_tuple, args)->n;
    }
    bool mapping = (args->kind == D2_OBJ_DICT && !d2i_is_set(I, args)) ||
                   (args->kind == D2_OBJ_INSTANCE && d2i_mro_lookup(I, args->cls, "__getitem__"));
    bool used_map = false;
    d2_buf b;
    d2_buf_init(&b);
    const char *s = fmt->s, *end = fmt->s + fmt->len;
    while (s < end) {
        const char *pct = memchr(s, '%', (size_t)(end - s));
        if (!pct) {
            d2_buf_append(&b, s, (size_t)(end - s));
            break;
        }
        d2_buf_append(&b, s, (size_t)(pct - s));
        s = pct + 1;
        d2_obj *val = NULL, *owned = NULL;
        if (s < end && *s == '(') {
            const char *close = memchr(s, ')', (size_t)(end - s));
            if (!close) {
                d2_raise(I, "ValueError", "incomplete format key");
                goto fail;
            }
            if (!mapping) {
                d2_raise(I, "TypeError", "format requires a mapping");
                goto fail;
            }
            d2_obj *key = d2_str_new(I, s + 1, (size_t)(close - s - 1));
            if (!key)
                goto fail;
            owned = val = d2_getitem(I, args, key);
            d2_decref(key);
            if (!val)
                goto fail;
            used_map = true;
            s = close + 1;
        }
        char flags[8] = {0};
        size_t nf = 0;
        while (s < end && strchr("-+ #0", *s)) {
            if (nf < sizeof flags - 1 && !strchr(flags, *s))
                flags[nf++] = *s;
            s++;
        }
        int64_t width = 0, prec = -1;
        if (s < end && *s == '*') {
            if (next >= nitems || d2_to_int64(I, items[next++], "* wants int", &width) < 0) {
                if (!d2_exc_pending(I))
                    d2_raise(I, "TypeError", "not enough arguments for format string");
                goto fail_owned;
            }
            if (width < 0) {
                flags[nf++] = '-';
                width = -width;
            }
            s++;
        } else {
            while (s < end && *s >= '0' && *s <= '9')
                width = width * 10 + (*s++ - '0');
        }
        if (s < end && *s == '.') {
            s++;
            prec = 0;
            if (s < end && *s == '*') {
                if (next >= nitems || d2_to_int64(I, items[next++], "* wants int", &prec) < 0) {
                    if (!d2_exc_pending(I))
                        d2_raise(I, "TypeError", "not enough arguments for format string");
                    goto fail_owned;
                }
                s++;
            } else {
                while (s < end && *s >= '0' && *s <= '9')
                    prec = prec * 10 + (*s++ - '0');
            }
        }
        while (s < end && (*s == 'h' || *s == 'l' || *s == 'L'))
            s++;
        if (s >= end) {
            d2_raise(I, "ValueError", "incomplete format");
            goto fail_owned;
        }
        char conv = *s++;
        if (conv == '%') {
            d2_buf_puts(&b, "%");
            d2_decref(owned);
            continue;
        }
        if (!val) {
            if (next >= nitems) {
                d2_raise(I, "TypeError", "not enough arguments for format string");
                goto fail;
            }
            val = items[next++];
        }
        d2_obj *piece = NULL;
        switch (conv) {
        case 's':
        case 'r':
        case 'a': {
            d2_obj *sv = conv == 's' ? d2_str_of(I, val) : d2_repr(I, val);
            if (!sv)
                goto fail_owned;
            fspec f;
            memset(&f, 0, sizeof f);
            f.fill[0] = ' ';
            f.fill_len = 1;
            f.width = width;
            f.prec = prec;
            f.align = strchr(flags, '-') ? '<' : '>';
            piece = format_str(I, D2_AS(d2_str, sv), &f);
            d2_decref(sv);
            break;
        }
        case 'd':
        case 'i':
        case 'u':
        case 'o':
        case 'x':
        case 'X':
            piece = mod_int_body(I, val, conv, flags, width, prec);
            break;
        case 'e':
        case 'E':
        case 'f':
        case 'F':
        case 'g':
        case 'G': {
            double x;
            if (d2_to_double(I, val, "float argument", &x) < 0) {
                d2_exc_clear(I);
                d2_raise(I, "TypeError", "must be real number, not %s", d2_type_name(val));
                goto fail_owned;
            }
            char cfmt[32], out[512];
            snprintf(cfmt, sizeof cfmt, "%%%s*.*%c", flags, conv);
            snprintf(out, sizeof out, cfmt, (int)(width > 400 ? 400 : width),
                     (int)(prec < 0 ? 6 : prec > 300 ? 300 : prec), x);
            if (isnan(x)) { /* C may print -nan */
                char *m = strstr(out, "-nan");
                if (!m)
                    m = strstr(out, "-NAN");
                if (m)
                    *m = ' ';
            }
            piece = d2_str_from(I, out);
            break;
        }
        case 'c': {
            d2_obj *ch = NULL;
            if (val->kind == D2_OBJ_STR && d2i_str_chars(D2_AS(d2_str, val)) == 1) {
                ch = d2_incref(val);
            } else if (val->kind == D2_OBJ_INT) {
                int64_t cp = D2_AS(d2_int, val)->v;
                if (cp < 0 || cp > 0x10FFFF) {
                    d2_raise(I, "OverflowError", "%%c arg not in range(0x110000)");
                    goto fail_owned;
                }
                ch = d2i_char(I, (uint32_t)cp);
            } else {
                d2_raise(I, "TypeError", "%%c requires int or char");
                goto fail_owned;
            }
            if (!ch)
                goto fail_owned;
            fspec f;
            memset(&f, 0, sizeof f);
            f.fill[0] = ' ';
            f.fill_len = 1;
            f.width = width;
            f.prec = -1;
            f.align = strchr(flags, '-') ? '<' : '>';
            piece = format_str(I, D2_AS(d2_str, ch), &f);
            d2_decref(ch);
            break;
        }
        default:
            d2_raise(I, "ValueError", "unsupported format character '%c' (0x%x) at index %zu", conv,
                     (unsigned)(unsigned char)conv, (size_t)(s - 1 - fmt->s));
            goto fail_owned;
        }
        d2_decref(owned);
        owned = NULL;
        if (!piece)
            goto fail;
        d2_buf_append(&b, D2_AS(d2_str, piece)->s, D2_AS(d2_str, piece)->len);
        d2_decref(piece);
        continue;
    fail_owned:
        d2_decref(owned);
        goto fail;
    }
    if (next < nitems && !used_map && !(mapping && args->kind != D2_OBJ_TUPLE)) {
        d2_raise(I, "TypeError", "not all arguments converted during string formatting");
        goto fail;
    }
    return str_from_buf(I, &b);
fail:
    d2_buf_free(&b);
    return NULL;
}

/* ---- str.format ---- */

typedef struct fmt_state {
    d2_obj **args;
    size_t nargs;
    d2_dict *kw;
    int auto_idx; /* next automatic index; -1 after a manual one */
    bool manual;
} fmt_state;

static int format_into(d2_interp *I, d2_buf *b, const char *fmt, size_t len, fmt_state *st,
                       int depth);

/* Resolves a field name ("0", "name", "x.attr[2]") to a new reference. */
static d2_obj *field_value(d2_interp *I, const char *s, size_t n, fmt_state *st)
{
    size_t i = 0;
    while (i < n && s[i] != '.' && s[i] != '[')
        i++;
    d2_obj *v;
    if (i == 0) {
        if (st->manual) {
            d2_raise(I, "ValueError",
                     "cannot switch from manual field specification to automatic field numbering");
            return NULL;
        }
        size_t idx = (size_t)st->auto_idx++;
        if (idx >= st->nargs)
            return d2_raise(I, "IndexError",
                            "Replacement index %zu out of range for positional args tuple", idx);
        v = d2_incref(st->args[idx]);
    } else if (s[0] >= '0' && s[0] <= '9') {
        if (st->auto_idx > 0) {
            d2_raise(I, "ValueError",
                     "cannot switch from automatic field numbering to manual field specification");
            return NULL;
        }
        st->manual = true;
        size_t idx = 0;
        for (size_t k = 0; k < i; k++) {
            if (s[k] < '0' || s[k] > '9')
                return d2_raise(I, "ValueError", "bad field name");
            idx = idx * 10 + (size_t)(s[k] - '0');
        }
        if (idx >= st->nargs)
            return d2_raise(I, "IndexError",
                            "Replacement index %zu out of range for positional args tuple", idx);
        v = d2_incref(st->args[idx]);
    } else {
        d2_obj *key = d2_str_new(I, s, i);
        if (!key)
            return NULL;
        d2_obj *got = st->kw ? d2_dict_get(I, st->kw, key) : NULL;
        if (!got) {
            d2_obj *e = d2i_exc_new(I, d2_exc_class(I, "KeyError"), &key, 1);
            if (e)
                d2i_set_exc(I, e);
            d2_decref(key);
            return NULL;
        }
        d2_decref(key);
        v = d2_incref(got);
    }
    while (i < n) {
        if (s[i] == '.') {
            size_t j = ++i;
            while (j < n && s[j] != '.' && s[j] != '[')
                j++;
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(j - i), s + i);
            d2_obj *x = d2_getattr(I, v, name);
            d2_decref(v);
            if (!x)
                return NULL;
            v = x;
            i = j;
        } else {
            size_t j = ++i;
            while (j < n && s[j] != ']')
                j++;
            if (j >= n) {
                d2_decref(v);
                return d2_raise(I, "ValueError", "Missing ']' in format string");
            }
            bool digits = j > i;
            for (size_t k = i; k < j; k++)
                digits &= s[k] >= '0' && s[k] <= '9';
            d2_obj *key =
                digits ? d2_int_new(I, strtoll(s + i, NULL, 10)) : d2_str_new(I, s + i, j - i);
            d2_obj *x = key ? d2_getitem(I, v, key) : NULL;
            d2_decref(key);
            d2_decref(v);
            if (!x)
                return NULL;
            v = x;
            i = j + 1;
        }
    }
    return v;
}

static int format_into(d2_interp *I, d2_buf *b, const char *fmt, size_t len, fmt_state *st,
                       int depth)
{
    if (depth > 2) {
        d2_raise(I, "ValueError", "Max string recursion exceeded");
        return -1;
    }
    size_t i = 0;
    while (i < len) {
        char c = fmt[i];
        if (c == '{' && i + 1 < len && fmt[i + 1] == '{') {
            d2_buf_puts(b, "{");
            i += 2;
            continue;
        }
        if (c == '}') {
            if (i + 1 < len && fmt[i + 1] == '}') {
                d2_buf_puts(b, "}");
                i += 2;
                continue;
            }
            d2_raise(I, "ValueError", "Single '}' encountered in format string");
            return -1;
        }
        if (c != '{') {
            d2_buf_append(b, &c, 1);
            i++;
            continue;
        }
        /* find the matching close brace */
        size_t j = i + 1;
        int nest = 1;
        while (j < len) {
            if (fmt[j] == '{')
                nest++;
            else if (fmt[j] == '}' && --nest == 0)
                break;
            j++;
        }
        if (j >= len) {
            d2_raise(I, "ValueError", "Single '{' encountered in format string");
            return -1;
        }
        const char *field = fmt + i + 1;
        size_t flen = j - i - 1;
        size_t name_end = 0;
        while (name_end < flen && field[name_end] != '!' && field[name_end] != ':') {
            if (field[name_end] == '[')
                while (name_end < flen && field[name_end] != ']')
                    name_end++;
            name_end++;
        }
        if (name_end > flen)
            name_end = flen;
        char conv = 0;
        size_t k = name_end;
        if (k < flen && field[k] == '!') {
            if (k + 1 >= flen) {
                d2_raise(I, "ValueError", "end of string while looking for conversion specifier");
                return -1;
            }
            conv = field[k + 1];
            k += 2;
            if (k < flen && field[k] != ':') {
                d2_raise(I, "ValueError", "expected ':' after conversion specifier");
                return -1;
            }
        }
        const char *spec = "";
        size_t slen = 0;
        if (k < flen && field[k] == ':') {
            spec = field + k + 1;
            slen = flen - k - 1;
        }
        d2_obj *v = field_value(I, field, name_end, st);
        if (!v)
            return -1;
        if (conv) {
            d2_obj *cv;
            if (conv == 'r' || conv == 'a')
                cv = d2_repr(I, v);
            else if (conv == 's')
                cv = d2_str_of(I, v);
            else {
                d2_decref(v);
                d2_raise(I, "ValueError", "Unknown conversion specifier %c", conv);
                return -1;
            }
            d2_decref(v);
            if (!cv)
                return -1;
            v = cv;
        }
        d2_buf sb;
        d2_buf_init(&sb);
        if (memchr(spec, '{', slen)) {
            if (format_into(I, &sb, spec, slen, st, depth + 1) < 0) {
                d2_buf_free(&sb);
                d2_decref(v);
                return -1;
            }
        } else {
            d2_buf_append(&sb, spec, slen);
        }
        d2_buf_append(&sb, "", 1);
        d2_obj *piece = sb.oom ? NULL : d2i_format(I, v, sb.data);
        if (sb.oom)
            d2_raise(I, "MemoryError", "out of memory");
        d2_buf_free(&sb);
        d2_decref(v);
        if (!piece)
            return -1;
        d2_buf_append(b, D2_AS(d2_str, piece)->s, D2_AS(d2_str, piece)->len);
        d2_decref(piece);
        i = j + 1;
    }
    return 0;
}

d2_obj *d2i_str_format(d2_interp *I, const char *fmt, size_t len, d2_obj **args, size_t nargs,
                       d2_dict *kwargs)
{
    fmt_state st = {args, nargs, kwargs, 0, false};
    d2_buf b;
    d2_buf_init(&b);
    if (format_into(I, &b, fmt, len, &st, 0) < 0) {
        d2_buf_free(&b);
        return NULL;
    }
    return str_from_buf(I, &b);
}
