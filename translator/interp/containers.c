/* containers.c - tuple, list, dict and set: storage, iteration, indexing, sorting, methods. */
#include "interp/interp_priv.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>

/* ---- tuples and lists ---- */

d2_obj *d2_tuple_new(d2_interp *I, size_t n)
{
    if (n == 0 && I->st->empty_tuple)
        return d2_incref(I->st->empty_tuple);
    if (!d2i_size_ok(I, n, 1, sizeof(d2_obj *), "tuple"))
        return NULL;
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

d2_obj *d2_tuple_from_array(d2_interp *I, d2_obj **items, size_t n)
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
    if (!d2i_size_ok(I, need, 1, sizeof(d2_obj *), "list"))
        return -1;
    size_t cap = l->cap ? l->cap : 4;
    while (cap < need)
        cap = cap + cap / 2 + 1;
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
    if (iterable->kind == D2_OBJ_RANGE) { /* list(range(n)) materialises n ints */
        int64_t n = d2i_builtin_len(I, iterable);
        size_t have = D2_AS(d2_list, list)->n;
        if (!d2i_size_ok(I, have + (uint64_t)n, 1, sizeof(d2_obj *) + sizeof(d2_int), "list"))
            return -1;
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
        return d2_tuple_from_array(I, D2_AS(d2_list, o)->items, D2_AS(d2_list, o)->n);
    d2_obj *l = d2_list_from_iterable(I, o);
    if (!l)
        return NULL;
    d2_obj *t = d2_tuple_from_array(I, D2_AS(d2_list, l)->items, D2_AS(d2_list, l)->n);
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

/* Layout tags of namespace dicts: unique over every dict of every
 * interpreter, so that a dict freed and another made at its address never
 * repeat one. */
static _Atomic uint64_t layout_tags;

static inline void layout_changed(d2_dict *d)
{
    if (d->ns_dict)
        d->layout = atomic_fetch_add_explicit(&layout_tags, 1, memory_order_relaxed) + 1;
}

void d2i_dict_track_layout(d2_dict *d)
{
    d->ns_dict = true;
    d->layout = atomic_fetch_add_explicit(&layout_tags, 1, memory_order_relaxed) + 1;
}

void d2i_dict_clear(d2_dict *d)
{
    if (d->class_dict)
        d2i_class_changed();
    layout_changed(d);
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
    if (!d2i_size_ok(I, want, 1, sizeof(d2_dict_entry) + 3 * sizeof(int32_t), "dict"))
        return -1;
    size_t cap = 8;
    while (cap < want)
        cap *= 2;
    layout_changed(d);
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

int64_t d2i_dict_index_cstr(d2_dict *d, const char *s, size_t n, uint64_t h)
{
    if (!d->index)
        return -1;
    size_t mask = d->index_cap - 1;
    for (size_t p = h & mask;; p = (p + 1) & mask) {
        int32_t ix = d->index[p];
        if (ix < 0)
            return -1;
        d2_dict_entry *e = &d->entries[ix];
        if (e->key && e->hash == h && e->key->kind == D2_OBJ_STR) {
            d2_str *k = D2_AS(d2_str, e->key);
            if (k->len == n && memcmp(k->s, s, n) == 0)
                return ix;
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

int d2_dict_set_h(d2_interp *I, d2_dict *d, d2_obj *key, uint64_t h, d2_obj *v)
{
    int64_t ix = d2i_dict_find(I, d, key, h);
    if (ix == -2)
        return -1;
    if (d->class_dict)
        d2i_class_changed();
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
    layout_changed(d);
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
    return d2_dict_set_h(I, d, key, h, v);
}

int d2_dict_set_str(d2_interp *I, d2_dict *d, const char *key, d2_obj *v)
{
    d2_obj *k = d2_str_from(I, key);
    if (!k)
        return -1;
    int rc = d2_dict_set_h(I, d, k, D2_AS(d2_str, k)->hash, v);
    d2_decref(k);
    return rc;
}

/* Removes entry ix; returns its value (new ref). The index keeps pointing at
 * the dead entry, which lookups skip; the next resize compacts. */
static d2_obj *dict_remove_at(d2_dict *d, int64_t ix)
{
    d2_dict_entry *e = &d->entries[ix];
    d2_obj *k = e->key, *v = e->value;
    if (d->class_dict)
        d2i_class_changed();
    layout_changed(d);
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
    d2i_utf8_decode(s->s, s->len, &i);
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

bool d2i_is_view(d2_obj *o)
{
    return o->kind == D2_OBJ_ITERATOR && D2_AS(d2_iter, o)->next == NULL &&
           D2_AS(d2_iter, o)->src && D2_AS(d2_iter, o)->src->kind == D2_OBJ_DICT;
}

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
        if (d2i_is_view(o))
            return dict_iter(I, D2_AS(d2_iter, o)->src, (int)D2_AS(d2_iter, o)->step);
        return d2_incref(o);
    default:
        return NULL;
    }
}

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
        if (d2i_is_view(o))
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
    if (d2_index(I, o, v) < 0) {
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
            if (d2i_is_ascii(s->s, s->len)) {
                if (st == 1)
                    return d2_str_new(I, s->s + a, (size_t)n);
                d2_obj *r = d2i_str_alloc(I, (size_t)n);
                if (!r)
                    return NULL;
                for (int64_t i = 0; i < n; i++)
                    D2_AS(d2_str, r)->s[i] = s->s[a + i * st];
                return d2i_str_finish(r, (size_t)n);
            }
            d2_buf b2;
            d2_buf_init(&b2);
            for (int64_t i = 0; i < n; i++) {
                size_t off = d2i_str_offset(s, (size_t)(a + i * st)), e = off;
                d2i_utf8_decode(s->s, s->len, &e);
                d2_buf_append(&b2, s->s + off, e - off);
            }
            return d2i_str_from_buf(I, &b2);
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
    if (d2_index(I, key, &i) < 0 || seq_index(I, o, len, &i) < 0)
        return NULL;
    switch (o->kind) {
    case D2_OBJ_LIST:
        return d2_incref(D2_AS(d2_list, o)->items[i]);
    case D2_OBJ_TUPLE:
        return d2_incref(D2_AS(d2_tuple, o)->items[i]);
    case D2_OBJ_STR: {
        d2_str *s = D2_AS(d2_str, o);
        size_t off = d2i_is_ascii(s->s, s->len) ? (size_t)i : d2i_str_offset(s, (size_t)i), e = off;
        d2i_utf8_decode(s->s, s->len, &e);
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
    if (d2_index(I, key, &i) < 0)
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
    if (d2_index(I, key, &i) < 0)
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
        size_t total = s->len * (size_t)n;
        if (!d2i_size_ok(I, s->len, (uint64_t)n, 1, "str"))
            return NULL;
        d2_obj *r = d2i_str_alloc(I, total);
        if (!r)
            return NULL;
        for (int64_t i = 0; i < n; i++)
            memcpy(D2_AS(d2_str, r)->s + (size_t)i * s->len, s->s, s->len);
        return d2i_str_finish(r, total);
    }
    bool list = seq->kind == D2_OBJ_LIST;
    size_t m = list ? D2_AS(d2_list, seq)->n : D2_AS(d2_tuple, seq)->n;
    d2_obj **src = list ? D2_AS(d2_list, seq)->items : D2_AS(d2_tuple, seq)->items;
    size_t total = m * (size_t)n;
    if (!d2i_size_ok(I, m, (uint64_t)n, sizeof(d2_obj *), list ? "list" : "tuple"))
        return NULL;
    d2_obj *r = list ? d2_list_new(I, total) : tuple_make(I, total);
    if (!r)
        return NULL;
    d2_obj **dst = list ? D2_AS(d2_list, r)->items : D2_AS(d2_tuple, r)->items;
    for (size_t i = 0; i < total; i++)
        dst[i] = d2_incref(src[i % m]);
    return r;
}

/* ---- sorting ---- */

typedef struct sort_item {
    d2_obj *key, *value;
} sort_item;

/* a < b: 1, 0, or -1 with an exception. */
static int sort_lt(d2_interp *I, d2_obj *a, d2_obj *b)
{
    if (d2i_is_number(a) && d2i_is_number(b))
        return d2i_num_cmp(a, b) == -1;
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

/* ---- list methods ---- */

METHOD(list_append)
{
    if (d2i_check_args(I, "append", n, 1, 1, kw) < 0 || d2_list_append(I, self, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(list_extend)
{
    if (d2i_check_args(I, "extend", n, 1, 1, kw) < 0 || d2i_list_extend(I, self, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(list_insert)
{
    if (d2i_check_args(I, "insert", n, 2, 2, kw) < 0)
        return NULL;
    int64_t i;
    if (d2_index(I, a[0], &i) < 0)
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
    if (d2i_check_args(I, "pop", n, 0, 1, kw) < 0)
        return NULL;
    d2_list *l = D2_AS(d2_list, self);
    int64_t i = -1;
    if (n == 1 && d2_index(I, a[0], &i) < 0)
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
    if (d2i_check_args(I, "index", n, 1, 3, kw) < 0)
        return NULL;
    int64_t len = d2i_builtin_len(I, self), lo = 0, hi = len;
    if (n > 1 && d2_index(I, a[1], &lo) < 0)
        return NULL;
    if (n > 2 && d2_index(I, a[2], &hi) < 0)
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
    if (d2i_check_args(I, "count", n, 1, 1, kw) < 0)
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
    if (d2i_check_args(I, "remove", n, 1, 1, kw) < 0)
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

/* a[0] positional arguments, a[1] key, a[2] reverse, a[3] other keywords: the
 * signature takes them all so that sort(1, x=2) reports the positional one. */
D2_FN(list_sort)
{
    d2_obj **args = a + 1;
    if (D2_AS(d2_tuple, a[0])->n > 0)
        return d2_raise(I, "TypeError", "sort() takes no positional arguments");
    d2_dict *other = D2_AS(d2_dict, a[3]);
    for (size_t i = 0; i < other->n; i++)
        if (other->entries[i].key) {
            d2_obj *k = other->entries[i].key;
            return d2_raise(I, "TypeError", "sort() got an unexpected keyword argument '%s'",
                            k->kind == D2_OBJ_STR ? D2_AS(d2_str, k)->s : "");
        }
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
    if (d2i_check_args(I, "reverse", n, 0, 0, kw) < 0)
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
    if (d2i_check_args(I, "copy", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    return d2i_list_from_array(I, D2_AS(d2_list, self)->items, D2_AS(d2_list, self)->n);
}

METHOD(list_clear)
{
    if (d2i_check_args(I, "clear", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    d2i_clear_refs(self);
    return d2_none(I);
}

/* ---- dict methods ---- */

METHOD(dict_keys)
{
    (void)a;
    return d2i_check_args(I, "keys", n, 0, 0, kw) < 0 ? NULL : dict_view(I, self, 0);
}
METHOD(dict_values)
{
    (void)a;
    return d2i_check_args(I, "values", n, 0, 0, kw) < 0 ? NULL : dict_view(I, self, 1);
}
METHOD(dict_items)
{
    (void)a;
    return d2i_check_args(I, "items", n, 0, 0, kw) < 0 ? NULL : dict_view(I, self, 2);
}

METHOD(dict_get)
{
    if (d2i_check_args(I, "get", n, 1, 2, kw) < 0)
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
    if (d2i_check_args(I, "pop", n, 1, 2, kw) < 0)
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
    if (d2i_check_args(I, "popitem", n, 0, 0, kw) < 0)
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
    if (d2i_check_args(I, "setdefault", n, 1, 2, kw) < 0)
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

int d2_dict_merge(d2_interp *I, d2_dict *d, d2_obj *src)
{
    if (src->kind == D2_OBJ_DICT && !d2i_is_set(I, src)) {
        d2_dict *s = D2_AS(d2_dict, src);
        for (size_t i = 0; i < s->n; i++) {
            if (!s->entries[i].key)
                continue;
            if (d2_dict_set_h(I, d, s->entries[i].key, s->entries[i].hash, s->entries[i].value) <
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
    if (n == 1 && d2_dict_merge(I, d, a[0]) < 0)
        return NULL;
    if (kw && d2_dict_merge(I, d, (d2_obj *)kw) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(dict_copy)
{
    if (d2i_check_args(I, "copy", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    d2_obj *r = d2i_is_set(I, self) ? d2i_set_new(I) : d2_dict_new(I);
    if (r && d2_dict_merge(I, D2_AS(d2_dict, r), self) < 0) {
        d2_decref(r);
        return NULL;
    }
    return r;
}

METHOD(dict_clear)
{
    if (d2i_check_args(I, "clear", n, 0, 0, kw) < 0)
        return NULL;
    (void)a;
    d2i_dict_clear(D2_AS(d2_dict, self));
    return d2_none(I);
}

METHOD(dict_fromkeys)
{
    if (d2i_check_args(I, "fromkeys", n, 1, 2, kw) < 0)
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
            if (s->entries[i].key && d2_dict_set_h(I, D2_AS(d2_dict, set), s->entries[i].key,
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

d2_obj *d2i_set_from_iterable(d2_interp *I, d2_obj *iterable)
{
    d2_obj *s = d2i_set_new(I);
    if (s && iterable && set_update_from(I, s, iterable) < 0) {
        d2_decref(s);
        return NULL;
    }
    return s;
}

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
            rc = d2_dict_set_h(I, D2_AS(d2_dict, r), e->key, e->hash, I->none);
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
                rc = d2_dict_set_h(I, D2_AS(d2_dict, r), e->key, e->hash, I->none);
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
    if (d2i_check_args(I, "add", n, 1, 1, kw) < 0 || set_add(I, self, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(set_remove)
{
    if (d2i_check_args(I, "remove", n, 1, 1, kw) < 0)
        return NULL;
    if (d2_dict_del(I, D2_AS(d2_dict, self), a[0]) < 0)
        return NULL;
    return d2_none(I);
}

METHOD(set_discard)
{
    if (d2i_check_args(I, "discard", n, 1, 1, kw) < 0)
        return NULL;
    d2_obj *v = d2i_dict_pop(I, D2_AS(d2_dict, self), a[0]);
    if (!v && d2_exc_pending(I))
        return NULL;
    d2_decref(v);
    return d2_none(I);
}

METHOD(set_pop)
{
    if (d2i_check_args(I, "pop", n, 0, 0, kw) < 0)
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
    if (d2i_check_args(I, "symmetric_difference", n, 1, 1, kw) < 0)
        return NULL;
    return d2i_set_op(I, '^', self, a[0]);
}

static d2_obj *set_rel(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, int what,
                       const char *fname)
{
    if (d2i_check_args(I, fname, n, 1, 1, kw) < 0)
        return NULL;
    d2_obj *other = d2i_is_set(I, a[0]) ? d2_incref(a[0]) : d2i_set_from_iterable(I, a[0]);
    if (!other)
        return NULL;
    int r;
    if (what == 0)
        r = d2i_set_subset(I, D2_AS(d2_dict, self), D2_AS(d2_dict, other));
    else if (what == 1)
        r = d2i_set_subset(I, D2_AS(d2_dict, other), D2_AS(d2_dict, self));
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

static const d2_def LIST_SORT =
    D2_DEF("sort", "*args, key=None, reverse=False, **kwargs", list_sort, NULL);

static const method_def list_methods[] = {
    {"append", list_append, NULL}, {"extend", list_extend, NULL}, {"insert", list_insert, NULL},
    {"pop", list_pop, NULL}, {"remove", list_remove, NULL}, {"index", seq_index_m, NULL},
    {"count", seq_count_m, NULL}, {"sort", NULL, &LIST_SORT}, {"reverse", list_reverse, NULL},
    {"copy", list_copy, NULL}, {"clear", list_clear, NULL},
};

static const method_def tuple_methods[] = {
    {"index", seq_index_m, NULL}, {"count", seq_count_m, NULL},
};

static const method_def dict_methods[] = {
    {"keys", dict_keys, NULL}, {"values", dict_values, NULL}, {"items", dict_items, NULL},
    {"get", dict_get, NULL}, {"pop", dict_pop, NULL}, {"popitem", dict_popitem, NULL},
    {"setdefault", dict_setdefault, NULL}, {"update", dict_update, NULL}, {"copy", dict_copy, NULL},
    {"clear", dict_clear, NULL},
};

static const method_def set_methods[] = {
    {"add", set_add_m, NULL}, {"remove", set_remove, NULL}, {"discard", set_discard, NULL},
    {"pop", set_pop, NULL}, {"update", set_update, NULL}, {"union", set_union, NULL},
    {"intersection", set_intersection, NULL}, {"difference", set_difference, NULL},
    {"symmetric_difference", set_symdiff, NULL}, {"issubset", set_issubset, NULL},
    {"issuperset", set_issuperset, NULL}, {"isdisjoint", set_isdisjoint, NULL},
    {"copy", dict_copy, NULL}, {"clear", dict_clear, NULL},
};

static int add_methods(d2_interp *I, d2_class *c, const method_def *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].def ? d2_class_add_defs(I, c, m[i].def, 1, 0) < 0
                     : d2_class_add_method(I, c, m[i].name, m[i].fn) < 0)
            return -1;
    return 0;
}

int d2i_init_methods(d2_interp *I)
{
    if (add_methods(I, I->types[D2_OBJ_STR], d2i_str_methods, d2i_nstr_methods) < 0 ||
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
