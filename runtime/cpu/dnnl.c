/* dnnl.c - float32 convolution through oneDNN, with primitives cached per shape. */
#include "dnnl.h"
#include "gemm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_int g_mode = -1; /* -1: not read from the environment yet */

static d2_dnnl_mode mode_from_env(void)
{
    const char *e = getenv("DY2ST_DNNL");
    if (!e || !*e || strcmp(e, "auto") == 0)
        return D2_DNNL_AUTO;
    if (strcmp(e, "always") == 0 || strcmp(e, "1") == 0)
        return D2_DNNL_ALWAYS;
    if (strcmp(e, "never") == 0 || strcmp(e, "0") == 0)
        return D2_DNNL_NEVER;
    return D2_DNNL_AUTO;
}

void d2_dnnl_set_mode(d2_dnnl_mode m) { atomic_store(&g_mode, (int)m); }

d2_dnnl_mode d2_dnnl_get_mode(void)
{
    int m = atomic_load(&g_mode);
    if (m < 0) {
        int want = (int)mode_from_env(), unset = -1;
        atomic_compare_exchange_strong(&g_mode, &unset, want);
        m = atomic_load(&g_mode);
    }
    return (d2_dnnl_mode)m;
}

#ifndef DY2ST_HAVE_DNNL

bool d2_dnnl_available(void) { return false; }

int d2_dnnl_conv2d(const d2_dnnl_conv *cv, const float *x, const float *w, const float *b,
                   float *y, d2_err *err)
{
    D2_UNUSED(cv);
    D2_UNUSED(x);
    D2_UNUSED(w);
    D2_UNUSED(b);
    D2_UNUSED(y);
    D2_UNUSED(err);
    return 1;
}

int d2_dnnl_cache_count(void) { return 0; }

int d2_dnnl_last_threads(void) { return 0; }

#else

#include <oneapi/dnnl/dnnl.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Which convolutions go to oneDNN in AUTO mode. Measured per conv layer of
 * samples/mnist_cnn.py and samples/resnet_small.py at batch 1 and 32
 * (bench/conv_bench, bench/RESULTS.md): oneDNN runs 3x3 and 5x5 layers
 * 1.4-3.8x faster, but every call pays for memory objects and for reorders
 * of the input and output to and from its channels-last layout, so it loses
 * (0.4-0.8x) on convolutions with few multiply-adds in all (below ~0.2 M) or
 * few per element moved (1x1 layers: ~5 per input + output element, against
 * 20-70 for the 3x3 and 5x5 ones). */
#define AUTO_MIN_MACS 2e5
#define AUTO_MIN_MACS_PER_ELEM 16.0

bool d2_dnnl_available(void) { return true; }

/* ---- the engine, and one stream and workspace per thread ---- */

static struct {
    pthread_once_t once;
    dnnl_engine_t engine; /* NULL when oneDNN could not create one */
    pthread_key_t tls;
    bool tls_ok;
} G = {PTHREAD_ONCE_INIT, NULL, 0, false};

/* The memory objects of a thread's calls of one cache entry (by the entry's id), kept from
 * call to call: each call only points them at its buffers instead of creating and
 * destroying up to eight of them. */
#define MEM_SLOTS 32
#define MEM_PER_CALL 8
typedef struct mem_slot {
    unsigned long long id; /* 0: empty */
    dnnl_memory_t m[MEM_PER_CALL];
} mem_slot;

typedef struct thread_ws {
    dnnl_stream_t stream;
    void *buf;
    size_t cap;
    mem_slot mem[MEM_SLOTS];
} thread_ws;

static void slot_clear(mem_slot *s)
{
    for (int i = 0; i < MEM_PER_CALL; i++)
        if (s->m[i])
            dnnl_memory_destroy(s->m[i]);
    memset(s, 0, sizeof *s);
}

static void tls_free(void *p)
{
    thread_ws *t = p;
    for (int i = 0; i < MEM_SLOTS; i++)
        slot_clear(&t->mem[i]);
    if (t->stream)
        dnnl_stream_destroy(t->stream);
    free(t->buf);
    free(t);
}

static void dnnl_init(void)
{
    if (dnnl_engine_create(&G.engine, dnnl_cpu, 0) != dnnl_success)
        G.engine = NULL;
    G.tls_ok = pthread_key_create(&G.tls, tls_free) == 0;
}

/* This thread's stream and a workspace of at least n bytes (64-byte
 * aligned); NULL when out of memory. The workspace is reused by every call
 * on the thread and freed when the thread exits. */
static thread_ws *thread_state(size_t n)
{
    thread_ws *t = pthread_getspecific(G.tls);
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t)
            return NULL;
        if (dnnl_stream_create(&t->stream, G.engine, dnnl_stream_default_flags) != dnnl_success ||
            pthread_setspecific(G.tls, t) != 0) {
            tls_free(t);
            return NULL;
        }
    }
    if (n > t->cap) {
        size_t sz = (n + 4095) & ~(size_t)4095;
        void *p = NULL;
        if (posix_memalign(&p, 64, sz) != 0)
            return NULL;
        free(t->buf);
        t->buf = p;
        t->cap = sz;
    }
    return t;
}

/* ---- the primitive cache ----
 * An entry holds the convolution chosen for one (shape, attributes, thread
 * count) with oneDNN's preferred layouts, the reorders from and to the plain
 * NCHW / OIHW layouts where those differ, and the workspace each needs. It is
 * reference counted: an entry evicted while another thread runs it is
 * destroyed by its last user. */
typedef struct conv_key {
    d2_dnnl_conv cv;
    int threads;
    bool wino; /* try oneDNN's Winograd convolution first */
    int64_t v[24]; /* every field above, as compared (no padding bytes) */
} conv_key;

static void key_make(conv_key *k, const d2_dnnl_conv *c, int threads, bool wino)
{
    k->cv = *c;
    k->threads = threads;
    k->wino = wino;
    int64_t v[24] = {c->n,  c->c,  c->h,  c->w,  c->oc,   c->kh,   c->kw,   c->oh,
                     c->ow, c->groups, c->sh, c->sw, c->dh, c->dw, c->pt, c->pl,
                     c->pb, c->pr,     c->bias, c->relu, c->sum, c->nhwc, threads, wino};
    memcpy(k->v, v, sizeof v);
}

typedef struct conv_entry {
    conv_key key;
    unsigned long long id; /* unique among all entries ever built (never 0) */
    long refs;  /* users plus 1 while in the cache; under g_cache.lock */
    unsigned long long used;
    /* reorders NULL when not needed; res_re brings a residual into dst's layout (sum only) */
    dnnl_primitive_t conv, src_re, wei_re, dst_re, res_re;
    dnnl_memory_desc_t src_user, wei_user, dst_user, bias_md, src_md, wei_md, dst_md, pad_md;
    size_t src_sz, wei_sz, dst_sz, pad_sz; /* workspace parts (0 when unused) */
    /* The weights of the first call, as given (wei_orig) and reordered (wei_keep): a call
     * whose weights equal wei_orig byte for byte uses wei_keep instead of reordering again
     * (inference runs the same weights every time; other weights are reordered as before).
     * wei_state: 0 empty, 1 being filled by one thread, 2 ready (read-only from then on). */
    atomic_int wei_state;
    size_t wei_user_sz;
    void *wei_orig, *wei_keep;
} conv_entry;

static struct {
    pthread_mutex_t lock;
    conv_entry *e[D2_DNNL_CACHE_MAX];
    int n;
    unsigned long long tick;
} g_cache = {PTHREAD_MUTEX_INITIALIZER, {0}, 0, 0};

static _Thread_local int tl_last_threads;

int d2_dnnl_last_threads(void) { return tl_last_threads; }

int d2_dnnl_cache_count(void)
{
    pthread_mutex_lock(&g_cache.lock);
    int n = g_cache.n;
    pthread_mutex_unlock(&g_cache.lock);
    return n;
}

static void entry_destroy(conv_entry *e)
{
    if (!e)
        return;
    dnnl_primitive_destroy(e->conv);
    dnnl_primitive_destroy(e->src_re);
    dnnl_primitive_destroy(e->wei_re);
    dnnl_primitive_destroy(e->dst_re);
    dnnl_primitive_destroy(e->res_re);
    free(e->wei_orig);
    free(e->wei_keep);
    d2_free(e);
}

/* Drops one reference; the last frees the entry. Takes the cache lock. */
static void entry_release(conv_entry *e)
{
    pthread_mutex_lock(&g_cache.lock);
    bool last = --e->refs == 0;
    pthread_mutex_unlock(&g_cache.lock);
    if (last)
        entry_destroy(e);
}

static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

/* A primitive for pd with a user-managed scratchpad; NULL on failure. Adds
 * the scratchpad size to *pad. */
static dnnl_primitive_t make_prim(const_dnnl_primitive_desc_t pd, size_t *pad)
{
    dnnl_primitive_t p = NULL;
    const dnnl_memory_desc_t *sp = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    size_t n = sp ? dnnl_memory_desc_get_size(sp) : 0;
    if (n > *pad)
        *pad = n;
    if (dnnl_primitive_create(&p, pd) != dnnl_success)
        return NULL;
    return p;
}

/* A reorder from `from` to `to` (NULL when the layouts are equal); *ok false on failure. */
static dnnl_primitive_t make_reorder(const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to,
                                     const_dnnl_primitive_attr_t attr, size_t *pad, bool *ok)
{
    if (dnnl_memory_desc_equal(from, to))
        return NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t p = NULL;
    if (dnnl_reorder_primitive_desc_create(&pd, from, G.engine, to, G.engine, attr) !=
        dnnl_success) {
        *ok = false;
        return NULL;
    }
    p = make_prim(pd, pad);
    dnnl_primitive_desc_destroy(pd);
    if (!p)
        *ok = false;
    return p;
}

/* Builds the entry for key k; NULL when oneDNN has no implementation. */
static conv_entry *entry_build(const conv_key *k)
{
    const d2_dnnl_conv *c = &k->cv;
    conv_entry *e = d2_calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->key = *k;
    dnnl_dims_t sd = {c->n, c->c, c->h, c->w}, dd = {c->n, c->oc, c->oh, c->ow};
    dnnl_dims_t wd = {c->groups, c->oc / c->groups, c->c / c->groups, c->kh, c->kw};
    dnnl_dims_t bd = {c->oc};
    dnnl_dims_t st = {c->sh, c->sw}, dl = {c->dh - 1, c->dw - 1};
    dnnl_dims_t pl = {c->pt, c->pl}, pr = {c->pb, c->pr};
    bool grouped = c->groups > 1;
    int wn = grouped ? 5 : 4;
    const int64_t *wdims = grouped ? wd : wd + 1;
    dnnl_memory_desc_t src_any, wei_any, dst_any;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_desc_t pd = NULL;
    /* NHWC activations: the convolution is built for that layout, so none is reordered */
    dnnl_format_tag_t act = c->nhwc ? dnnl_nhwc : dnnl_nchw;
    dnnl_format_tag_t act_any = c->nhwc ? dnnl_nhwc : dnnl_format_tag_any;
    /* a first layer (1-3 input channels) reads NCHW as it is: oneDNN then picks its direct
     * kernel for that case instead of brgconv, 1.25x faster on mnist_cnn's conv1 at batch 32 */
    dnnl_format_tag_t src_any_tag = !c->nhwc && c->c < 4 ? dnnl_nchw : act_any;
    bool ok = dnnl_memory_desc_init_by_tag(&e->src_user, 4, sd, dnnl_f32, act) == dnnl_success &&
              dnnl_memory_desc_init_by_tag(&e->dst_user, 4, dd, dnnl_f32, act) == dnnl_success &&
              dnnl_memory_desc_init_by_tag(&e->wei_user, wn, wdims, dnnl_f32,
                                           grouped ? dnnl_goihw : dnnl_oihw) == dnnl_success &&
              dnnl_memory_desc_init_by_tag(&e->bias_md, 1, bd, dnnl_f32, dnnl_x) ==
                  dnnl_success &&
              dnnl_memory_desc_init_by_tag(&src_any, 4, sd, dnnl_f32, src_any_tag) == dnnl_success &&
              dnnl_memory_desc_init_by_tag(&dst_any, 4, dd, dnnl_f32, act_any) == dnnl_success &&
              dnnl_memory_desc_init_by_tag(&wei_any, wn, wdims, dnnl_f32, dnnl_format_tag_any) ==
                  dnnl_success &&
              dnnl_primitive_attr_create(&attr) == dnnl_success &&
              dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) ==
                  dnnl_success;
    if (ok && (c->relu || c->sum))
        ok = dnnl_post_ops_create(&po) == dnnl_success &&
             (!c->sum || dnnl_post_ops_append_sum(po, 1.0f) == dnnl_success) &&
             (!c->relu || dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f,
                                                       0.0f) == dnnl_success) &&
             dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success;
    dnnl_convolution_desc_t cd;
    if (ok && k->wino) {
        /* Winograd runs in oneDNN's blocked layout: the activations are reordered to and
         * from it (the `any` descriptors); no implementation means the direct one below */
        dnnl_memory_desc_t s_any, d_any;
        if (dnnl_memory_desc_init_by_tag(&s_any, 4, sd, dnnl_f32, dnnl_format_tag_any) ==
                dnnl_success &&
            dnnl_memory_desc_init_by_tag(&d_any, 4, dd, dnnl_f32, dnnl_format_tag_any) ==
                dnnl_success &&
            dnnl_dilated_convolution_forward_desc_init(
                &cd, dnnl_forward_inference, dnnl_convolution_winograd, &s_any, &wei_any,
                c->bias ? &e->bias_md : NULL, &d_any, st, dl, pl, pr) == dnnl_success &&
            dnnl_primitive_desc_create(&pd, &cd, attr, G.engine, NULL) != dnnl_success)
            pd = NULL;
    }
    if (ok && !pd)
        ok = dnnl_dilated_convolution_forward_desc_init(
                 &cd, dnnl_forward_inference, dnnl_convolution_direct, &src_any, &wei_any,
                 c->bias ? &e->bias_md : NULL, &dst_any, st, dl, pl, pr) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &cd, attr, G.engine, NULL) == dnnl_success;
    if (ok) {
        e->src_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        e->wei_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        e->dst_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
        size_t pad = 0;
        e->conv = make_prim(pd, &pad);
        ok = e->conv != NULL;
        dnnl_primitive_attr_t rattr = NULL;
        ok = ok && dnnl_primitive_attr_create(&rattr) == dnnl_success &&
             dnnl_primitive_attr_set_scratchpad_mode(rattr, dnnl_scratchpad_mode_user) ==
                 dnnl_success;
        if (ok) {
            e->src_re = make_reorder(&e->src_user, &e->src_md, rattr, &pad, &ok);
            e->wei_re = make_reorder(&e->wei_user, &e->wei_md, rattr, &pad, &ok);
            e->dst_re = make_reorder(&e->dst_md, &e->dst_user, rattr, &pad, &ok);
            if (c->sum)
                e->res_re = make_reorder(&e->dst_user, &e->dst_md, rattr, &pad, &ok);
        }
        dnnl_primitive_attr_destroy(rattr);
        e->src_sz = e->src_re ? align64(dnnl_memory_desc_get_size(&e->src_md)) : 0;
        e->wei_sz = e->wei_re ? align64(dnnl_memory_desc_get_size(&e->wei_md)) : 0;
        e->wei_user_sz = dnnl_memory_desc_get_size(&e->wei_user);
        e->dst_sz = e->dst_re ? align64(dnnl_memory_desc_get_size(&e->dst_md)) : 0;
        e->pad_sz = align64(pad);
        if (pad) {
            dnnl_dims_t pdim = {(int64_t)pad};
            ok = ok && dnnl_memory_desc_init_by_tag(&e->pad_md, 1, pdim, dnnl_u8, dnnl_x) ==
                           dnnl_success;
        }
    }
    dnnl_primitive_desc_destroy(pd);
    dnnl_post_ops_destroy(po);
    dnnl_primitive_attr_destroy(attr);
    if (!ok) {
        entry_destroy(e);
        return NULL;
    }
    static atomic_ullong next_id = 1;
    e->id = atomic_fetch_add(&next_id, 1);
    e->refs = 1;
    return e;
}

/* The entry for k with a reference for the caller, built and cached on a
 * miss (the least recently used entry makes room when the cache is full);
 * NULL when oneDNN cannot run this convolution. */
static conv_entry *entry_get(const conv_key *k)
{
    pthread_mutex_lock(&g_cache.lock);
    for (int i = 0; i < g_cache.n; i++) {
        conv_entry *e = g_cache.e[i];
        if (memcmp(e->key.v, k->v, sizeof k->v) == 0) {
            e->refs++;
            e->used = ++g_cache.tick;
            pthread_mutex_unlock(&g_cache.lock);
            return e;
        }
    }
    pthread_mutex_unlock(&g_cache.lock);
    /* built outside the lock: creating a primitive can take milliseconds */
    conv_entry *e = entry_build(k);
    if (!e)
        return NULL;
    conv_entry *dropped = NULL;
    pthread_mutex_lock(&g_cache.lock);
    for (int i = 0; i < g_cache.n; i++)
        if (memcmp(g_cache.e[i]->key.v, k->v, sizeof k->v) == 0) {
            /* another thread cached the same key meanwhile: use that one */
            dropped = e;
            e = g_cache.e[i];
            break;
        }
    if (!dropped) {
        int slot = g_cache.n;
        if (g_cache.n == D2_DNNL_CACHE_MAX) {
            slot = 0;
            for (int i = 1; i < g_cache.n; i++)
                if (g_cache.e[i]->used < g_cache.e[slot]->used)
                    slot = i;
            conv_entry *old = g_cache.e[slot];
            if (--old->refs == 0)
                dropped = old;
        } else {
            g_cache.n++;
        }
        g_cache.e[slot] = e;
    }
    e->refs++;
    e->used = ++g_cache.tick;
    pthread_mutex_unlock(&g_cache.lock);
    entry_destroy(dropped);
    return e;
}

/* Whether AUTO mode sends this convolution to oneDNN. */
static bool worth_it(const d2_dnnl_conv *c)
{
    double macs = (double)c->n * (double)c->oc * (double)c->oh * (double)c->ow *
                  (double)(c->c / c->groups) * (double)c->kh * (double)c->kw;
    double elems = (double)c->n * ((double)c->c * (double)c->h * (double)c->w +
                                   (double)c->oc * (double)c->oh * (double)c->ow);
    return macs >= AUTO_MIN_MACS && macs >= AUTO_MIN_MACS_PER_ELEM * elems;
}

/* Whether Winograd is tried first for this convolution on `threads` threads: 3x3, stride 1, no
 * dilation or groups, at least 64 input and output channels, and at least 64 output pixels
 * (batch x height x width) per thread, unless DY2ST_DNNL_WINOGRAD=0. Measured with
 * bench/conv_bench on resnet_small's layers (bench/RESULTS.md): oneDNN 2.6's
 * jit_wino_4x3 runs the 64->64 8x8 layer 1.2x (batch 1) to 1.3-2x (batch 32) faster than its
 * direct brgconv in NHWC, reorders to and from its blocked layout included; the 32->32 16x16
 * layer is a draw, and the strided layers have no Winograd form. Split over 2 threads at batch
 * 1 (32 pixels each) the whole of resnet_small ran 14% faster with the direct form (8 of 10
 * alternating pairs); at batch 1 on one thread and at batch 32 the two were even or Winograd
 * ahead by 2%. */
static bool winograd_pays(const d2_dnnl_conv *c, int threads)
{
    static atomic_int off = -1;
    int o = atomic_load(&off);
    if (o < 0) {
        const char *e = getenv("DY2ST_DNNL_WINOGRAD");
        o = e && strcmp(e, "0") == 0;
        atomic_store(&off, o);
    }
    return !o && c->groups == 1 && c->kh == 3 && c->kw == 3 && c->sh == 1 && c->sw == 1 &&
           c->dh == 1 && c->dw == 1 && c->c >= 64 && c->oc >= 64 &&
           c->n * c->oh * c->ow >= 64 * (int64_t)(threads > 1 ? threads : 1);
}

/* Stores the weights of the first call and their reordered form in e (once; nothing when
 * out of memory). */
static void keep_weights(conv_entry *e, const float *w, const void *reordered)
{
    int empty = 0;
    if (!atomic_compare_exchange_strong(&e->wei_state, &empty, 1))
        return;
    void *orig = malloc(e->wei_user_sz ? e->wei_user_sz : 1), *keep = NULL;
    if (orig && posix_memalign(&keep, 64, e->wei_sz ? e->wei_sz : 64) != 0)
        keep = NULL;
    if (!orig || !keep) {
        free(orig);
        free(keep);
        atomic_store(&e->wei_state, 0);
        return;
    }
    memcpy(orig, w, e->wei_user_sz);
    memcpy(keep, reordered, e->wei_sz);
    e->wei_orig = orig;
    e->wei_keep = keep;
    atomic_store(&e->wei_state, 2);
}

/* The weights reordered into layout md, kept with the constant storage they came from (at
 * byte offset `off`) and freed with it. */
typedef struct wei_aux {
    d2_storage_aux base;
    size_t off;
    dnnl_memory_desc_t md;
    void *data;
} wei_aux;

static void wei_aux_free(d2_storage_aux *a)
{
    free(((wei_aux *)a)->data);
    free(a);
}

/* The reordered weights kept with s under generation gen at offset off in layout md, or
 * NULL. */
static const wei_aux *wei_aux_find(const d2_storage *s, uint64_t gen, size_t off,
                                   const dnnl_memory_desc_t *md)
{
    for (const d2_storage_aux *a = d2_storage_aux_first(s); a; a = a->next) {
        const wei_aux *w = (const wei_aux *)a;
        if (a->free == wei_aux_free && a->gen == gen && w->off == off &&
            dnnl_memory_desc_equal(&w->md, md))
            return w;
    }
    return NULL;
}

/* Keeps a copy of the reordered weights (n bytes in layout md) with s; nothing when out of
 * memory. Two threads may both keep one: the first found is used. */
static void wei_aux_keep(d2_storage *s, uint64_t gen, size_t off, const dnnl_memory_desc_t *md,
                         const void *reordered, size_t n)
{
    wei_aux *a = calloc(1, sizeof *a);
    void *data = NULL;
    if (!a || posix_memalign(&data, 64, n ? n : 64) != 0) {
        free(a);
        return;
    }
    memcpy(data, reordered, n);
    a->base.free = wei_aux_free;
    a->base.gen = gen;
    a->off = off;
    a->md = *md;
    a->data = data;
    d2_storage_aux_push(s, &a->base);
}

/* Memory object i of slot s (created for md on first use), pointed at ptr; NULL on
 * failure. */
static dnnl_memory_t wrap(mem_slot *s, int i, const dnnl_memory_desc_t *md, void *ptr)
{
    if (s->m[i])
        return dnnl_memory_set_data_handle(s->m[i], ptr) == dnnl_success ? s->m[i] : NULL;
    if (dnnl_memory_create(&s->m[i], md, G.engine, ptr) != dnnl_success)
        s->m[i] = NULL;
    return s->m[i];
}

static int exec1(dnnl_primitive_t p, dnnl_stream_t s, dnnl_memory_t from, dnnl_memory_t to,
                 dnnl_memory_t pad)
{
    dnnl_exec_arg_t a[3] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}, {DNNL_ARG_SCRATCHPAD, pad}};
    return dnnl_primitive_execute(p, s, pad ? 3 : 2, a) == dnnl_success ? 0 : -1;
}

int d2_dnnl_conv2d(const d2_dnnl_conv *cv, const float *x, const float *w, const float *b,
                   float *y, d2_err *err)
{
    d2_dnnl_mode mode = d2_dnnl_get_mode();
    if (mode == D2_DNNL_NEVER || (mode == D2_DNNL_AUTO && !cv->nhwc && !worth_it(cv)))
        return 1;
    pthread_once(&G.once, dnnl_init);
    if (!G.engine || !G.tls_ok)
        return 1;
    d2_dnnl_conv c = *cv;
    c.bias = b != NULL;
    conv_key k;
    int threads = d2_gemm_threads();
    key_make(&k, &c, threads, winograd_pays(&c, threads));
    tl_last_threads = k.threads;
#ifdef _OPENMP
    /* oneDNN runs on OpenMP: as many threads as this thread's setting */
    int saved_threads = omp_get_max_threads();
    if (saved_threads != k.threads)
        omp_set_num_threads(k.threads);
#endif
    int rc = 1;
    conv_entry *e = entry_get(&k);
    if (!e)
        goto done;
    rc = -1;
    thread_ws *t = thread_state(e->src_sz + e->wei_sz + e->dst_sz + e->pad_sz);
    if (!t) {
        d2_err_set(err, D2_ERR_NOMEM, "conv2d: out of memory for oneDNN's workspace");
        entry_release(e);
        goto done;
    }
    char *ws = t->buf;
    void *src_b = e->src_re ? ws : (void *)x;
    void *wei_b = e->wei_re ? ws + e->src_sz : (void *)w;
    /* constant weights: their reordered copy kept with their storage; other weights: the
     * copy kept with the entry, when the bytes are the same */
    uint64_t wgen = cv->wt && d2_tensor_data(cv->wt) == (const void *)w
                        ? d2_tensor_const_gen(cv->wt)
                        : 0;
    d2_storage *wst = wgen ? cv->wt->storage : NULL;
    size_t woff = wst ? (size_t)((const char *)w - (const char *)wst->data) : 0;
    bool wei_cached = false;
    if (e->wei_re && wst) {
        const wei_aux *a = wei_aux_find(wst, wgen, woff, &e->wei_md);
        if (a) {
            wei_b = a->data;
            wei_cached = true;
        }
    } else if (e->wei_re && atomic_load(&e->wei_state) == 2 &&
               memcmp(w, e->wei_orig, e->wei_user_sz) == 0) {
        wei_b = e->wei_keep;
        wei_cached = true;
    }
    void *dst_b = e->dst_re ? ws + e->src_sz + e->wei_sz : (void *)y;
    void *pad_b = e->pad_sz ? ws + e->src_sz + e->wei_sz + e->dst_sz : NULL;
    mem_slot *sl = &t->mem[e->id % MEM_SLOTS];
    if (sl->id != e->id) {
        slot_clear(sl);
        sl->id = e->id;
    }
    dnnl_memory_t m[MEM_PER_CALL] = {NULL};
    enum { SRC_U, WEI_U, DST_U, SRC, WEI, DST, BIAS, PAD };
    bool ok = (m[SRC] = wrap(sl, SRC, &e->src_md, src_b)) &&
              (m[WEI] = wrap(sl, WEI, &e->wei_md, wei_b)) &&
              (m[DST] = wrap(sl, DST, &e->dst_md, dst_b)) &&
              (!e->src_re || (m[SRC_U] = wrap(sl, SRC_U, &e->src_user, (void *)x))) &&
              (!e->wei_re || (m[WEI_U] = wrap(sl, WEI_U, &e->wei_user, (void *)w))) &&
              (!e->dst_re || (m[DST_U] = wrap(sl, DST_U, &e->dst_user, y))) &&
              (!b || (m[BIAS] = wrap(sl, BIAS, &e->bias_md, (void *)b))) &&
              (!pad_b || (m[PAD] = wrap(sl, PAD, &e->pad_md, pad_b)));
    if (ok && e->src_re)
        ok = exec1(e->src_re, t->stream, m[SRC_U], m[SRC], m[PAD]) == 0;
    if (ok && e->wei_re && !wei_cached) {
        ok = exec1(e->wei_re, t->stream, m[WEI_U], m[WEI], m[PAD]) == 0 &&
             dnnl_stream_wait(t->stream) == dnnl_success;
        if (ok && wst)
            wei_aux_keep(wst, wgen, woff, &e->wei_md, wei_b, e->wei_sz);
        else if (ok)
            keep_weights(e, w, wei_b);
    }
    if (ok && e->res_re) /* the residual y holds, into the layout the sum post-op reads */
        ok = exec1(e->res_re, t->stream, m[DST_U], m[DST], m[PAD]) == 0;
    if (ok) {
        dnnl_exec_arg_t a[5] = {{DNNL_ARG_SRC, m[SRC]}, {DNNL_ARG_WEIGHTS, m[WEI]},
                                {DNNL_ARG_DST, m[DST]}};
        int na = 3;
        if (b)
            a[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, m[BIAS]};
        if (pad_b)
            a[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, m[PAD]};
        ok = dnnl_primitive_execute(e->conv, t->stream, na, a) == dnnl_success;
    }
    if (ok && e->dst_re)
        ok = exec1(e->dst_re, t->stream, m[DST], m[DST_U], m[PAD]) == 0;
    ok = ok && dnnl_stream_wait(t->stream) == dnnl_success;
    if (!ok) /* a memory object in an unknown state: the next call makes new ones */
        slot_clear(sl);
    entry_release(e);
    if (ok)
        rc = 0;
    else
        d2_err_set(err, D2_ERR_RUNTIME, "conv2d: oneDNN failed to run the convolution");
done:
#ifdef _OPENMP
    if (saved_threads != k.threads)
        omp_set_num_threads(saved_threads);
#endif
    return rc;
}

#endif
