/* value.c - object allocation and lifetime: the live list, deallocation, scalars. */
#include "interp/interp_priv.h"

#include <pthread.h>


/* ---- allocation and the live list ---- */

static void link_obj(d2_interp *I, d2_obj *o)
{
    d2_obj *head = &I->gc_head;
    o->gc_next = head;
    o->gc_prev = head->gc_prev;
    head->gc_prev->gc_next = o;
    head->gc_prev = o;
}

/* ---- per-thread pools of freed objects ----
 *
 * An eager loop creates and drops a handful of small objects per statement
 * (tensor objects, ints, floats, tuples, bound methods); taking each from
 * calloc and giving it back to free was the largest single cost of a tiny
 * op after the kernels. Objects up to OBJ_POOL_MAX bytes are rounded up to a
 * multiple of OBJ_GRAIN; each thread keeps up to OBJ_POOL_DEPTH freed blocks
 * per size class on an intrusive free list and takes from it before calling
 * the allocator. The blocks are ordinary allocator blocks: one freed on
 * another thread is simply kept there, so the pools need no locking, and a
 * thread's pools are freed when it exits (d2_obj_pool_trim frees them at any
 * time). The depth bounds what a pool holds, so memory stays flat however
 * long a loop runs. With AddressSanitizer the pools are off, so that it still
 * sees every use after free and LeakSanitizer every leak. */
#if defined(__SANITIZE_ADDRESS__)
#define OBJ_POOL_ON 0
#else
#define OBJ_POOL_ON 1
#endif
#define OBJ_GRAIN 16
#define OBJ_POOL_MAX 256
#define OBJ_POOL_CLASSES (OBJ_POOL_MAX / OBJ_GRAIN)
#define OBJ_POOL_DEPTH 256

typedef struct pooled {
    struct pooled *next;
} pooled;

typedef struct {
    pooled *head[OBJ_POOL_CLASSES];
    int n[OBJ_POOL_CLASSES];
    bool registered, dead;
} obj_pool;

static _Thread_local obj_pool opool;
static pthread_key_t opool_key;
static pthread_once_t opool_once = PTHREAD_ONCE_INIT;
static bool opool_key_ok;

static void opool_drain(obj_pool *p)
{
    for (int k = 0; k < OBJ_POOL_CLASSES; k++) {
        while (p->head[k]) {
            pooled *b = p->head[k];
            p->head[k] = b->next;
            d2_free(b);
        }
        p->n[k] = 0;
    }
}

static void opool_thread_exit(void *arg)
{
    obj_pool *p = arg;
    opool_drain(p);
    p->dead = true; /* objects freed after this (other destructors) go to the allocator */
}

static void opool_make_key(void) { opool_key_ok = pthread_key_create(&opool_key, opool_thread_exit) == 0; }

/* This thread's pools, or NULL where pooling is off or the thread is exiting. */
static obj_pool *opool_get(void)
{
    if (!OBJ_POOL_ON)
        return NULL;
    obj_pool *p = &opool;
    if (__builtin_expect(!p->registered, 0)) {
        if (p->dead)
            return NULL;
        pthread_once(&opool_once, opool_make_key);
        if (!opool_key_ok || pthread_setspecific(opool_key, p) != 0)
            return NULL;
        p->registered = true;
    }
    return p->dead ? NULL : p;
}

void d2_obj_pool_trim(void)
{
    if (OBJ_POOL_ON && opool.registered)
        opool_drain(&opool);
}

d2_obj *d2_obj_alloc(d2_interp *I, d2_obj_kind kind, d2_class *cls, size_t size)
{
    if (size < sizeof(d2_obj))
        size = sizeof(d2_obj);
    d2_obj *o = NULL;
    unsigned pc = 0;
    if (OBJ_POOL_ON && size <= OBJ_POOL_MAX) {
        pc = (unsigned)((size + OBJ_GRAIN - 1) / OBJ_GRAIN); /* 1..OBJ_POOL_CLASSES */
        size = (size_t)pc * OBJ_GRAIN;
        obj_pool *p = opool_get();
        if (p && p->head[pc - 1] && !d2_alloc_faults_armed()) {
            pooled *b = p->head[pc - 1];
            p->head[pc - 1] = b->next;
            p->n[pc - 1]--;
            o = memset(b, 0, size);
        }
    }
    if (!o)
        o = d2_calloc(1, size);
    if (!o) {
        d2i_set_nomem(I);
        return NULL;
    }
    o->rc = 1;
    o->kind = kind;
    o->pool = pc;
    o->cls = cls ? cls : I->types[kind];
    link_obj(I, o);
    return o;
}

/* Drops every reference o holds to other objects (o itself stays allocated).
 * Also used at teardown, where cycles are broken by clearing every object. */
void d2i_clear_refs(d2_obj *o)
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
        d2i_class_changed(); /* its address may be reused by another class */
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
    unsigned pc = o->pool;
    if (OBJ_POOL_ON && pc) {
        obj_pool *p = opool_get();
        if (p && p->n[pc - 1] < OBJ_POOL_DEPTH) {
            pooled *b = (pooled *)o;
            b->next = p->head[pc - 1];
            p->head[pc - 1] = b;
            p->n[pc - 1]++;
            return;
        }
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
    d2i_clear_refs(o);
    free_storage(o);
    dealloc_depth--;
    while (dealloc_depth == 0 && dealloc_pending) {
        d2_obj *p = dealloc_pending;
        dealloc_pending = p->gc_next;
        dealloc_depth++;
        d2i_clear_refs(p);
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
        d2i_clear_refs(o);
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
