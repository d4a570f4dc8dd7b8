/* memplan.c - the static memory plan: block 0's intermediate values placed by liveness into one
 * arena per run, planned once per set of input shapes (best fit on live intervals). */
#include "memplan.h"
#include "ops.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plans kept per prepared Program (one per input-shape set), and idle arenas kept per plan
 * (one per run that may be in progress at once). */
#define MAX_PLANS 8
#define MAX_IDLE_ARENAS 8

static size_t align_up(size_t n) { return (n + D2_MEMPLAN_ALIGN - 1) & ~(size_t)(D2_MEMPLAN_ALIGN - 1); }

/* ---- placement ------------------------------------------------------------------------------ */

static const d2_mp_item *sort_items; /* qsort's context, under sort_lock */
static pthread_mutex_t sort_lock = PTHREAD_MUTEX_INITIALIZER;

static int by_size_desc(const void *a, const void *b)
{
    const d2_mp_item *x = &sort_items[*(const int *)a], *y = &sort_items[*(const int *)b];
    if (x->size != y->size)
        return x->size < y->size ? 1 : -1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

size_t d2_memplan_assign(const d2_mp_item *items, int n, size_t *offset)
{
    if (n <= 0)
        return 0;
    int *order = d2_malloc(sizeof(int) * (size_t)n), *placed = d2_malloc(sizeof(int) * (size_t)n);
    size_t *off = d2_malloc(sizeof(size_t) * (size_t)n);
    if (!order || !placed || !off) {
        d2_free(order);
        d2_free(placed);
        d2_free(off);
        return 0;
    }
    for (int i = 0; i < n; i++)
        order[i] = i;
    pthread_mutex_lock(&sort_lock);
    sort_items = items;
    qsort(order, (size_t)n, sizeof *order, by_size_desc);
    pthread_mutex_unlock(&sort_lock);
    size_t total = 0;
    int n_placed = 0; /* placed[] is kept sorted by offset */
    for (int q = 0; q < n; q++) {
        int it = order[q];
        size_t size = align_up(items[it].size ? items[it].size : 1);
        size_t best = SIZE_MAX, best_gap = SIZE_MAX, prev_end = 0;
        for (int r = 0; r < n_placed; r++) {
            int o = placed[r];
            if (items[o].start > items[it].end || items[it].start > items[o].end)
                continue; /* never live at once: may share bytes */
            if (off[o] > prev_end && off[o] - prev_end >= size && off[o] - prev_end < best_gap) {
                best = prev_end;
                best_gap = off[o] - prev_end;
            }
            size_t e = off[o] + align_up(items[o].size ? items[o].size : 1);
            if (e > prev_end)
                prev_end = e;
        }
        if (best == SIZE_MAX)
            best = prev_end;
        off[it] = best;
        int r = n_placed;
        while (r > 0 && off[placed[r - 1]] > best) {
            placed[r] = placed[r - 1];
            r--;
        }
        placed[r] = it;
        n_placed++;
        if (best + size > total)
            total = best + size;
    }
    memcpy(offset, off, sizeof(size_t) * (size_t)n);
    d2_free(order);
    d2_free(placed);
    d2_free(off);
    return total;
}

/* ---- plans and arenas ------------------------------------------------------------------------ */

typedef struct mp_plan {
    long refs; /* the cache, plus one per arena; __atomic */
    bool cached;
    int n_key;
    int64_t *key; /* per block-0 param: rank, then dims (-1 for an array) */
    int n; /* planned values (the memplan's n_planned) */
    size_t *sizes;     /* per planned value: its size (0: unknown) */
    size_t *off, *cap; /* per planned value; cap 0: no slot */
    bool partial;      /* some sizes were unknown: the first run's complete it */
    int *ov_start, *ov; /* per planned value: the values whose bytes meet its own (CSR) */
    size_t arena_bytes, sum_bytes;
    int n_slots;
    unsigned long last_used;
    int n_idle;
    d2_mp_arena *idle[MAX_IDLE_ARENAS];
} mp_plan;

/* What an arena tensor's release callback gets: its arena and planned index. */
typedef struct mp_ref {
    d2_mp_arena *arena;
    int k;
} mp_ref;

struct d2_mp_arena {
    d2_memplan *mp;
    mp_plan *plan;
    char *base;
    long live;               /* the run, plus one per arena tensor alive; __atomic */
    unsigned char *in_use;   /* per planned value: its arena tensor's storage is alive */
    mp_ref *refs;
    size_t *rec;             /* a partial plan's: the largest size seen per planned value */
};

struct d2_memplan {
    pthread_mutex_t lock;
    const d2_program *p;
    int *idx_of_var; /* per variable: its planned index, or -1 */
    int n_planned;
    int *var_of, *start, *end, *group; /* per planned index; group: a planned index (root) */
    mp_plan *plans[MAX_PLANS];
    int n_plans;
    mp_plan *latest;
    unsigned long tick;
    long hits, misses, fallbacks, orphaned, arenas; /* __atomic */
};

static void plan_unref(mp_plan *pl);

static void arena_free(d2_mp_arena *a)
{
    if (!a)
        return;
    free(a->base);
    d2_free(a->in_use);
    d2_free(a->refs);
    d2_free(a->rec);
    mp_plan *pl = a->plan;
    d2_free(a);
    if (pl)
        plan_unref(pl);
}

static void plan_unref(mp_plan *pl)
{
    if (!pl || __atomic_sub_fetch(&pl->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    /* no idle arena is left: each holds a reference */
    d2_free(pl->key);
    d2_free(pl->sizes);
    d2_free(pl->off);
    d2_free(pl->cap);
    d2_free(pl->ov_start);
    d2_free(pl->ov);
    d2_free(pl);
}

/* Drops the cache's hold on pl: its idle arenas are freed (each drops its reference). */
static void plan_uncache(mp_plan *pl)
{
    pl->cached = false;
    int n = pl->n_idle;
    pl->n_idle = 0;
    __atomic_add_fetch(&pl->refs, 1, __ATOMIC_ACQ_REL); /* held while its arenas go */
    for (int i = 0; i < n; i++)
        arena_free(pl->idle[i]);
    plan_unref(pl);
    plan_unref(pl);
}

/* The release callback of an arena tensor's storage. */
static void arena_release(void *ctx, void *data)
{
    (void)data;
    mp_ref *r = ctx;
    d2_mp_arena *a = r->arena;
    __atomic_store_n(&a->in_use[r->k], 0, __ATOMIC_RELEASE);
    if (__atomic_sub_fetch(&a->live, 1, __ATOMIC_ACQ_REL) == 0)
        arena_free(a); /* the run has ended: the arena was orphaned */
}

/* ---- analysis -------------------------------------------------------------------------------- */

/* Calls fn(ctx, v) for every variable read in block b and the blocks nested in it; with
 * shared_only, only for those whose buffers the blocks may hand on: yields and the inputs of
 * ops whose outputs may share them (tensor arrays, whose items are references). */
static void each_read(const d2_program *p, int b, int depth, bool shared_only,
                      void (*fn)(void *, int), void *ctx)
{
    if (b <= 0 || b >= p->n_blocks || depth > p->n_blocks)
        return;
    const d2_block *blk = &p->blocks[b];
    for (int i = 0; i < blk->n_ops; i++) {
        const d2_op *op = &blk->ops[i];
        const d2_opdef *def = d2_op_def(op->id);
        bool shares = def && (def->flags & D2_OPF_ALLOCS_OUTPUTS);
        for (int j = 0; j < op->n_in && (shares || !shared_only); j++)
            if (op->in[j] >= 0)
                fn(ctx, op->in[j]);
        for (int k = 0; def && k < def->n_attrs && k < op->attrs.n; k++)
            if (def->attrs[k].type == D2_ATTR_BLOCK)
                each_read(p, (int)op->attrs.v[k].u.i, depth + 1, shared_only, fn, ctx);
    }
    for (int j = 0; j < blk->n_yields; j++)
        if (blk->yields[j] >= 0)
            fn(ctx, blk->yields[j]);
}

typedef struct read_ctx {
    int *last;
    int pos;
    /* alias propagation: extend each read variable by `ext` and its escape flag by `esc` */
    int ext;
    unsigned char *escapes, esc;
} read_ctx;

static void mark_last(void *c, int v)
{
    read_ctx *rc = c;
    if (rc->last[v] < rc->pos)
        rc->last[v] = rc->pos;
}

static void mark_alias(void *c, int v)
{
    read_ctx *rc = c;
    if (rc->last[v] < rc->ext)
        rc->last[v] = rc->ext;
    rc->escapes[v] |= rc->esc;
}

static int find_root(int *g, int k)
{
    while (g[k] != k)
        k = g[k] = g[g[k]];
    return k;
}

static bool tensor_shape_static(const d2_type *t)
{
    return t->kind == D2_VALUE_TENSOR && d2_shape_is_static(&t->shape);
}

static size_t type_bytes(const d2_type *t)
{
    size_t n = d2_dtype_size(t->dtype);
    for (int d = 0; d < t->shape.ndim; d++)
        if (!d2_mul_size(n, t->shape.dims[d] > 0 ? (size_t)t->shape.dims[d] : 0, &n))
            return SIZE_MAX;
    return n;
}

/* Makes a plan from sizes per planned value (0: none seen); key of n_key entries is copied.
 * NULL when out of memory. */
static mp_plan *plan_make(d2_memplan *mp, const size_t *sizes, const int64_t *key, int n_key)
{
    int n = mp->n_planned;
    mp_plan *pl = d2_calloc(1, sizeof *pl);
    size_t *gsize = d2_calloc((size_t)n + 1, sizeof *gsize);
    int *gstart = d2_malloc(sizeof(int) * ((size_t)n + 1)), *gend = d2_malloc(sizeof(int) * ((size_t)n + 1));
    int *item_of = d2_malloc(sizeof(int) * ((size_t)n + 1));
    d2_mp_item *items = d2_malloc(sizeof *items * ((size_t)n + 1));
    size_t *goff = d2_malloc(sizeof(size_t) * ((size_t)n + 1));
    int *byoff = d2_malloc(sizeof(int) * ((size_t)n + 1));
    if (!pl || !gsize || !gstart || !gend || !item_of || !items || !goff || !byoff)
        goto oom;
    pl->refs = 1;
    pl->n = n;
    pl->n_key = n_key;
    pl->key = d2_malloc(sizeof(int64_t) * ((size_t)n_key + 1));
    pl->sizes = d2_malloc(sizeof(size_t) * ((size_t)n + 1));
    pl->off = d2_calloc((size_t)n + 1, sizeof *pl->off);
    pl->cap = d2_calloc((size_t)n + 1, sizeof *pl->cap);
    pl->ov_start = d2_calloc((size_t)n + 2, sizeof *pl->ov_start);
    if (!pl->key || !pl->sizes || !pl->off || !pl->cap || !pl->ov_start)
        goto oom;
    memcpy(pl->sizes, sizes, sizeof(size_t) * (size_t)n);
    if (n_key)
        memcpy(pl->key, key, sizeof(int64_t) * (size_t)n_key);
    for (int k = 0; k < n; k++) {
        gstart[k] = mp->start[k];
        gend[k] = mp->end[k];
    }
    for (int k = 0; k < n; k++) {
        int g = mp->group[k];
        if (sizes[k] > gsize[g])
            gsize[g] = sizes[k];
        if (mp->start[k] < gstart[g])
            gstart[g] = mp->start[k];
        if (mp->end[k] > gend[g])
            gend[g] = mp->end[k];
        if (sizes[k] && sizes[k] != SIZE_MAX)
            pl->sum_bytes += align_up(sizes[k]);
    }
    int n_items = 0;
    for (int g = 0; g < n; g++) {
        item_of[g] = -1;
        if (mp->group[g] != g || !gsize[g] || gsize[g] == SIZE_MAX)
            continue;
        item_of[g] = n_items;
        items[n_items++] = (d2_mp_item){gstart[g], gend[g], gsize[g]};
    }
    pl->n_slots = n_items;
    if (n_items) {
        pl->arena_bytes = d2_memplan_assign(items, n_items, goff);
        if (!pl->arena_bytes)
            goto oom;
    }
    int n_placed = 0;
    for (int k = 0; k < n; k++) {
        int it = item_of[mp->group[k]];
        if (it < 0)
            continue;
        pl->off[k] = goff[it];
        pl->cap[k] = align_up(items[it].size);
        byoff[n_placed++] = k;
    }
    /* the values whose bytes meet each value's: sorted by offset, each meets the ones after
     * it that start below its end (counted, then filled) */
    for (int a = 1; a < n_placed; a++) { /* insertion sort by offset */
        int v = byoff[a], b = a;
        while (b > 0 && pl->off[byoff[b - 1]] > pl->off[v]) {
            byoff[b] = byoff[b - 1];
            b--;
        }
        byoff[b] = v;
    }
    size_t n_ov = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            for (int k = 0; k < n; k++)
                pl->ov_start[k + 1] += pl->ov_start[k];
            pl->ov = d2_malloc(sizeof(int) * (n_ov + 1));
            if (!pl->ov)
                goto oom;
        }
        int *fill = pass ? d2_calloc((size_t)n + 1, sizeof(int)) : NULL;
        if (pass && !fill)
            goto oom;
        for (int a = 0; a < n_placed; a++) {
            int x = byoff[a];
            size_t xe = pl->off[x] + pl->cap[x];
            for (int b = a + 1; b < n_placed && pl->off[byoff[b]] < xe; b++) {
                int y = byoff[b];
                if (!pass) {
                    pl->ov_start[x + 1]++;
                    pl->ov_start[y + 1]++;
                    n_ov += 2;
                } else {
                    pl->ov[pl->ov_start[x] + fill[x]++] = y;
                    pl->ov[pl->ov_start[y] + fill[y]++] = x;
                }
            }
        }
        d2_free(fill);
    }
    d2_free(gsize);
    d2_free(gstart);
    d2_free(gend);
    d2_free(item_of);
    d2_free(items);
    d2_free(goff);
    d2_free(byoff);
    return pl;
oom:
    d2_free(gsize);
    d2_free(gstart);
    d2_free(gend);
    d2_free(item_of);
    d2_free(items);
    d2_free(goff);
    d2_free(byoff);
    if (pl)
        plan_unref(pl);
    return NULL;
}

/* Adds pl to the cache (the least recently used plan goes when it is full), unless a plan
 * with its key is there already (pl is then dropped). Returns the cached plan with a new
 * reference; pl's own reference goes to the cache. Lock held. */
static mp_plan *cache_add(d2_memplan *mp, mp_plan *pl)
{
    for (int i = 0; i < mp->n_plans; i++) {
        mp_plan *o = mp->plans[i];
        if (o->n_key == pl->n_key &&
            memcmp(o->key, pl->key, sizeof(int64_t) * (size_t)pl->n_key) == 0) {
            plan_unref(pl);
            __atomic_add_fetch(&o->refs, 1, __ATOMIC_ACQ_REL);
            return o;
        }
    }
    if (mp->n_plans == MAX_PLANS) {
        int lru = 0;
        for (int i = 1; i < mp->n_plans; i++)
            if (mp->plans[i]->last_used < mp->plans[lru]->last_used)
                lru = i;
        plan_uncache(mp->plans[lru]);
        mp->plans[lru] = mp->plans[--mp->n_plans];
    }
    pl->cached = true;
    pl->last_used = ++mp->tick;
    mp->plans[mp->n_plans++] = pl;
    mp->latest = pl;
    __atomic_add_fetch(&pl->refs, 1, __ATOMIC_ACQ_REL);
    return pl;
}

d2_memplan *d2_memplan_new(const d2_program *p, const int *inplace_port, d2_err *err)
{
    int nv = p->n_vars;
    const d2_block *b0 = &p->blocks[0];
    d2_memplan *mp = d2_calloc(1, sizeof *mp);
    int *last = d2_malloc(sizeof(int) * ((size_t)nv + 1));
    unsigned char *esc = d2_calloc((size_t)nv + 1, 1);
    if (!mp || !last || !esc || pthread_mutex_init(&mp->lock, NULL) != 0) {
        d2_free(mp);
        mp = NULL;
        goto oom;
    }
    mp->p = p;
    mp->idx_of_var = d2_malloc(sizeof(int) * ((size_t)nv + 1));
    mp->var_of = d2_malloc(sizeof(int) * ((size_t)nv + 1));
    mp->start = d2_malloc(sizeof(int) * ((size_t)nv + 1));
    mp->end = d2_malloc(sizeof(int) * ((size_t)nv + 1));
    mp->group = d2_malloc(sizeof(int) * ((size_t)nv + 1));
    if (!mp->idx_of_var || !mp->var_of || !mp->start || !mp->end || !mp->group)
        goto oom;
    for (int v = 0; v < nv; v++) {
        mp->idx_of_var[v] = -1;
        last[v] = -1;
    }
    /* last reads in block 0 (a read inside a nested block counts at the op owning it) */
    read_ctx rc = {last, 0, 0, esc, 0};
    for (int i = 0; i < b0->n_ops; i++) {
        const d2_op *op = &b0->ops[i];
        const d2_opdef *def = d2_op_def(op->id);
        rc.pos = i;
        for (int j = 0; j < op->n_in; j++)
            if (op->in[j] >= 0)
                mark_last(&rc, op->in[j]);
        for (int k = 0; k < def->n_attrs && k < op->attrs.n; k++)
            if (def->attrs[k].type == D2_ATTR_BLOCK)
                each_read(p, (int)op->attrs.v[k].u.i, 1, false, mark_last, &rc);
    }
    for (int j = 0; j < b0->n_yields; j++)
        if (b0->yields[j] >= 0) {
            last[b0->yields[j]] = b0->n_ops;
            esc[b0->yields[j]] = 1;
        }
    /* a value whose storage an op's output may share (views, control ops' pass-throughs,
     * in-place outputs) lives as long as that output, and escapes when it does: propagated
     * backwards, so chains of views extend the first value */
    for (int i = b0->n_ops - 1; i >= 0; i--) {
        const d2_op *op = &b0->ops[i];
        const d2_opdef *def = d2_op_def(op->id);
        bool aliases = def->flags & (D2_OPF_CONTROL | D2_OPF_ALLOCS_OUTPUTS);
        int port = inplace_port ? inplace_port[i] : -1;
        if (!aliases && port < 0)
            continue;
        for (int o = 0; o < op->n_out; o++) {
            int ov = op->out[o];
            rc.ext = last[ov];
            rc.esc = esc[ov];
            if (!aliases) {
                if (o == 0 && port < op->n_in && op->in[port] >= 0)
                    mark_alias(&rc, op->in[port]);
                continue;
            }
            for (int j = 0; j < op->n_in; j++)
                if (op->in[j] >= 0)
                    mark_alias(&rc, op->in[j]);
            for (int k = 0; k < def->n_attrs && k < op->attrs.n; k++)
                if (def->attrs[k].type == D2_ATTR_BLOCK)
                    each_read(p, (int)op->attrs.v[k].u.i, 1, true, mark_alias, &rc);
        }
    }
    /* the planned values: tensor outputs of ops whose outputs the executor allocates */
    bool all_static = true;
    for (int i = 0; i < b0->n_ops; i++) {
        const d2_op *op = &b0->ops[i];
        const d2_opdef *def = d2_op_def(op->id);
        if (def->flags & (D2_OPF_CONTROL | D2_OPF_ALLOCS_OUTPUTS))
            continue;
        for (int o = 0; o < op->n_out; o++) {
            int v = op->out[o];
            const d2_var *var = &p->vars[v];
            if (var->persistable || var->type.kind != D2_VALUE_TENSOR || esc[v])
                continue;
            int k = mp->n_planned++;
            mp->idx_of_var[v] = k;
            mp->var_of[k] = v;
            mp->start[k] = i;
            mp->end[k] = last[v] > i ? last[v] : i;
            mp->group[k] = k;
            all_static = all_static && tensor_shape_static(&var->type);
        }
    }
    /* an in-place output shares its input's slot */
    for (int i = 0; inplace_port && i < b0->n_ops; i++) {
        const d2_op *op = &b0->ops[i];
        int port = inplace_port[i];
        if (port < 0 || port >= op->n_in || op->in[port] < 0 || op->n_out < 1)
            continue;
        int a = mp->idx_of_var[op->in[port]], b = mp->idx_of_var[op->out[0]];
        if (a >= 0 && b >= 0)
            mp->group[find_root(mp->group, b)] = find_root(mp->group, a);
    }
    for (int k = 0; k < mp->n_planned; k++)
        mp->group[k] = find_root(mp->group, k);
    d2_free(last);
    d2_free(esc);
    last = NULL;
    esc = NULL;
    /* static shapes: plan now */
    int n_key = 0;
    for (int j = 0; j < b0->n_params; j++) {
        const d2_type *t = &p->vars[b0->params[j]].type;
        if (t->kind != D2_VALUE_TENSOR || !d2_shape_is_static(&t->shape))
            all_static = false;
        n_key += 1 + (t->kind == D2_VALUE_TENSOR ? t->shape.ndim : 0);
    }
    if (all_static && mp->n_planned) {
        size_t *sizes = d2_malloc(sizeof(size_t) * ((size_t)mp->n_planned + 1));
        int64_t *key = d2_malloc(sizeof(int64_t) * ((size_t)n_key + 1));
        mp_plan *pl = NULL;
        if (sizes && key) {
            for (int k = 0; k < mp->n_planned; k++)
                sizes[k] = type_bytes(&p->vars[mp->var_of[k]].type);
            int q = 0;
            for (int j = 0; j < b0->n_params; j++) {
                const d2_type *t = &p->vars[b0->params[j]].type;
                key[q++] = t->shape.ndim;
                for (int d = 0; d < t->shape.ndim; d++)
                    key[q++] = t->shape.dims[d];
            }
            pl = plan_make(mp, sizes, key, n_key);
        }
        d2_free(sizes);
        d2_free(key);
        if (!pl)
            goto oom;
        plan_unref(cache_add(mp, pl));
    }
    return mp;
oom:
    d2_free(last);
    d2_free(esc);
    d2_memplan_free(mp);
    d2_err_set(err, D2_ERR_NOMEM, "out of memory planning memory");
    return NULL;
}

void d2_memplan_free(d2_memplan *mp)
{
    if (!mp)
        return;
    const char *e = getenv("DY2ST_MEMPLAN_STATS");
    if (e && *e && strcmp(e, "0") != 0) {
        d2_memplan_stats st;
        d2_memplan_get_stats(mp, &st);
        fprintf(stderr, "dy2st: memplan: %d values, %d slots, arena %zu bytes (buffers %zu), "
                "%ld runs planned, %ld planning, %ld fallbacks, %ld orphaned\n", st.n_values,
                st.n_slots, st.arena_bytes, st.sum_bytes, st.hits, st.misses, st.fallbacks,
                st.orphaned);
    }
    for (int i = 0; i < mp->n_plans; i++)
        plan_uncache(mp->plans[i]);
    pthread_mutex_destroy(&mp->lock);
    d2_free(mp->idx_of_var);
    d2_free(mp->var_of);
    d2_free(mp->start);
    d2_free(mp->end);
    d2_free(mp->group);
    d2_free(mp);
}

/* ---- runs ------------------------------------------------------------------------------------ */

/* Whether the inputs' shapes are pl's key. */
static bool key_matches(const mp_plan *pl, d2_tensor *const *in, int n_in)
{
    int q = 0;
    for (int j = 0; j < n_in; j++) {
        const d2_tensor *t = in[j];
        int nd = t->kind == D2_VALUE_TENSOR ? t->ndim : -1;
        if (q >= pl->n_key || pl->key[q++] != nd)
            return false;
        for (int d = 0; d < nd; d++)
            if (q >= pl->n_key || pl->key[q++] != t->shape[d])
                return false;
    }
    return q == pl->n_key;
}

static d2_mp_arena *arena_new(d2_memplan *mp, mp_plan *pl)
{
    int n = mp->n_planned;
    d2_mp_arena *a = d2_calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->mp = mp;
    a->live = 1;
    a->in_use = d2_calloc((size_t)n + 1, 1);
    a->refs = d2_calloc((size_t)n + 1, sizeof *a->refs);
    if (!a->in_use || !a->refs || (pl->partial && !(a->rec = d2_calloc((size_t)n + 1, sizeof *a->rec))))
        goto fail;
    for (int k = 0; k < n; k++)
        a->refs[k] = (mp_ref){a, k};
    if (posix_memalign((void **)&a->base, D2_MEMPLAN_ALIGN,
                       pl->arena_bytes ? pl->arena_bytes : D2_MEMPLAN_ALIGN) != 0) {
        a->base = NULL;
        goto fail;
    }
    __atomic_add_fetch(&pl->refs, 1, __ATOMIC_ACQ_REL);
    a->plan = pl;
    __atomic_add_fetch(&mp->arenas, 1, __ATOMIC_RELAXED);
    return a;
fail:
    arena_free(a);
    return NULL;
}

/* The sizes of the planned values for inputs of these types, by inference over block 0 (as a
 * run infers them); a value whose shape needs data (shape inputs, results of control ops with
 * dynamic dims) gets 0. Returns whether every planned value got its size; -1 when out of
 * memory. */
static int infer_sizes(d2_memplan *mp, d2_tensor *const *in, int n_in, size_t *sizes)
{
    const d2_program *p = mp->p;
    const d2_block *b0 = &p->blocks[0];
    int nv = p->n_vars, max_ports = 1;
    for (int i = 0; i < b0->n_ops; i++) {
        if (b0->ops[i].n_in > max_ports)
            max_ports = b0->ops[i].n_in;
        if (b0->ops[i].n_out > max_ports)
            max_ports = b0->ops[i].n_out;
    }
    d2_type *ty = d2_calloc((size_t)nv + 1, sizeof *ty);
    d2_type *it = d2_calloc((size_t)max_ports, sizeof *it), *ot = d2_calloc((size_t)max_ports, sizeof *ot);
    unsigned char *known = d2_calloc((size_t)nv + 1, 1);
    if (!ty || !it || !ot || !known) {
        d2_free(ty);
        d2_free(it);
        d2_free(ot);
        d2_free(known);
        return -1;
    }
    for (int v = 0; v < nv; v++)
        if (p->vars[v].persistable && tensor_shape_static(&p->vars[v].type)) {
            ty[v] = p->vars[v].type;
            known[v] = 1;
        }
    for (int j = 0; j < n_in && j < b0->n_params; j++) {
        int v = b0->params[j];
        const d2_tensor *t = in[j];
        ty[v].kind = t->kind;
        ty[v].dtype = t->dtype;
        ty[v].shape.ndim = t->kind == D2_VALUE_TENSOR ? t->ndim : 0;
        for (int d = 0; d < ty[v].shape.ndim; d++)
            ty[v].shape.dims[d] = t->shape[d];
        known[v] = 1;
    }
    for (int i = 0; i < b0->n_ops; i++) {
        const d2_op *op = &b0->ops[i];
        const d2_opdef *def = d2_op_def(op->id);
        bool ok = !(def->flags & D2_OPF_CONTROL);
        for (int j = 0; ok && j < op->n_in; j++) {
            int v = op->in[j], port = j < def->n_ins ? j : def->n_ins - 1;
            if (v < 0) {
                memset(&it[j], 0, sizeof it[j]);
                it[j].dtype = (d2_dtype)-1;
                continue;
            }
            ok = known[v] && !((def->flags & D2_OPF_SHAPE_INPUTS) && port >= 0 &&
                               def->in_optional[port]);
            it[j] = ty[v];
        }
        if (ok) {
            for (int o = 0; o < op->n_out; o++) {
                memset(&ot[o], 0, sizeof ot[o]);
                ot[o].dtype = (d2_dtype)-1;
            }
            d2_err scratch = {0};
            d2_infer_ctx ic = {def, &op->attrs, op->n_in, it, NULL, op->n_out, ot, &scratch, p, op};
            ok = d2_infer_checked(&ic) == 0;
        }
        for (int o = 0; o < op->n_out; o++) {
            int v = op->out[o];
            const d2_type *t = ok ? &ot[o] : &p->vars[v].type; /* a control op: as declared */
            if (t->kind == D2_VALUE_TENSOR && d2_shape_is_static(&t->shape)) {
                ty[v] = *t;
                known[v] = 1;
            }
        }
    }
    bool all = true;
    for (int k = 0; k < mp->n_planned; k++) {
        int v = mp->var_of[k];
        sizes[k] = known[v] ? type_bytes(&ty[v]) : 0;
        all = all && known[v];
    }
    d2_free(ty);
    d2_free(it);
    d2_free(ot);
    d2_free(known);
    return all;
}

/* The key of these inputs: per input, its rank (-1: an array) and dims. NULL when out of
 * memory. */
static int64_t *make_key(d2_tensor *const *in, int n_in, int *n_key)
{
    int n = 0;
    for (int j = 0; j < n_in; j++)
        n += 1 + (in[j]->kind == D2_VALUE_TENSOR ? in[j]->ndim : 0);
    int64_t *key = d2_malloc(sizeof(int64_t) * ((size_t)n + 1));
    if (!key)
        return NULL;
    int q = 0;
    for (int j = 0; j < n_in; j++) {
        int nd = in[j]->kind == D2_VALUE_TENSOR ? in[j]->ndim : -1;
        key[q++] = nd;
        for (int d = 0; d < nd; d++)
            key[q++] = in[j]->shape[d];
    }
    *n_key = n;
    return key;
}

d2_mp_arena *d2_memplan_begin(d2_memplan *mp, d2_tensor *const *inputs, int n_in)
{
    if (!mp || !mp->n_planned)
        return NULL;
    for (int j = 0; j < n_in; j++)
        if (!inputs[j])
            return NULL;
    pthread_mutex_lock(&mp->lock);
    mp_plan *pl = NULL;
    for (int i = 0; i < mp->n_plans && !pl; i++)
        if (key_matches(mp->plans[i], inputs, n_in))
            pl = mp->plans[i];
    d2_mp_arena *a = NULL;
    if (pl) {
        pl->last_used = ++mp->tick;
        mp->latest = pl;
        if (pl->n_idle)
            a = pl->idle[--pl->n_idle];
        else
            __atomic_add_fetch(&pl->refs, 1, __ATOMIC_ACQ_REL); /* kept while arena_new runs */
    }
    pthread_mutex_unlock(&mp->lock);
    if (pl) {
        __atomic_add_fetch(&mp->hits, 1, __ATOMIC_RELAXED);
    } else {
        /* no plan for these shapes yet: one from their inference */
        __atomic_add_fetch(&mp->misses, 1, __ATOMIC_RELAXED);
        int n_key = 0;
        int64_t *key = make_key(inputs, n_in, &n_key);
        size_t *sizes = d2_malloc(sizeof(size_t) * ((size_t)mp->n_planned + 1));
        int all = key && sizes ? infer_sizes(mp, inputs, n_in, sizes) : -1;
        mp_plan *np = all >= 0 ? plan_make(mp, sizes, key, n_key) : NULL;
        d2_free(key);
        d2_free(sizes);
        if (!np)
            return NULL;
        np->partial = !all;
        pthread_mutex_lock(&mp->lock);
        pl = cache_add(mp, np); /* a new reference, for arena_new */
        pthread_mutex_unlock(&mp->lock);
    }
    if (!a) {
        a = arena_new(mp, pl);
        plan_unref(pl);
    }
    if (a)
        a->live = 1;
    return a;
}

d2_tensor *d2_memplan_tensor(d2_mp_arena *a, int var, const d2_type *t)
{
    d2_memplan *mp = a->mp;
    int k = var >= 0 && var < mp->p->n_vars ? mp->idx_of_var[var] : -1;
    if (k < 0)
        return NULL;
    size_t bytes = type_bytes(t);
    const mp_plan *pl = a->plan;
    if (a->rec && bytes > a->rec[k])
        a->rec[k] = bytes;
    bool ok = bytes && bytes <= pl->cap[k] && !a->in_use[k];
    for (int q = pl->ov_start[k]; ok && q < pl->ov_start[k + 1]; q++)
        ok = !__atomic_load_n(&a->in_use[pl->ov[q]], __ATOMIC_ACQUIRE);
    d2_tensor *x = NULL;
    if (ok) {
        d2_err scratch = {0};
        x = d2_tensor_new_over(NULL, t->dtype, t->shape.ndim, t->shape.dims, a->base + pl->off[k],
                               arena_release, &a->refs[k], &scratch);
    }
    if (!x) {
        if (bytes)
            __atomic_add_fetch(&mp->fallbacks, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    a->in_use[k] = 1;
    __atomic_add_fetch(&a->live, 1, __ATOMIC_ACQ_REL);
    return x;
}

void d2_memplan_end(d2_mp_arena *a, bool ok)
{
    if (!a)
        return;
    d2_memplan *mp = a->mp;
    mp_plan *pl = a->plan;
    if (ok && a->rec) {
        /* a partial plan: the run has seen the sizes inference could not give; the plan
         * made from both replaces it */
        size_t *sizes = d2_malloc(sizeof(size_t) * ((size_t)mp->n_planned + 1));
        mp_plan *np = NULL;
        if (sizes) {
            for (int k = 0; k < mp->n_planned; k++)
                sizes[k] = a->rec[k] > pl->sizes[k] ? a->rec[k] : pl->sizes[k];
            np = plan_make(mp, sizes, pl->key, pl->n_key);
        }
        d2_free(sizes);
        if (np) {
            pthread_mutex_lock(&mp->lock);
            for (int i = 0; i < mp->n_plans; i++)
                if (mp->plans[i] == pl) {
                    plan_uncache(pl);
                    mp->plans[i] = mp->plans[--mp->n_plans];
                    break;
                }
            plan_unref(cache_add(mp, np));
            pthread_mutex_unlock(&mp->lock);
        }
    }
    if (__atomic_sub_fetch(&a->live, 1, __ATOMIC_ACQ_REL) != 0) {
        /* a tensor of this run is still referenced: its last release frees the arena */
        __atomic_add_fetch(&mp->orphaned, 1, __ATOMIC_RELAXED);
        return;
    }
    pthread_mutex_lock(&mp->lock);
    bool keep = pl->cached && pl->n_idle < MAX_IDLE_ARENAS;
    if (keep)
        pl->idle[pl->n_idle++] = a;
    pthread_mutex_unlock(&mp->lock);
    if (!keep)
        arena_free(a);
}

void d2_memplan_get_stats(d2_memplan *mp, d2_memplan_stats *st)
{
    memset(st, 0, sizeof *st);
    if (!mp)
        return;
    pthread_mutex_lock(&mp->lock);
    st->n_values = mp->n_planned;
    st->n_plans = mp->n_plans;
    if (mp->latest && mp->latest->cached) {
        st->n_slots = mp->latest->n_slots;
        st->arena_bytes = mp->latest->arena_bytes;
        st->sum_bytes = mp->latest->sum_bytes;
    }
    pthread_mutex_unlock(&mp->lock);
    st->hits = __atomic_load_n(&mp->hits, __ATOMIC_RELAXED);
    st->misses = __atomic_load_n(&mp->misses, __ATOMIC_RELAXED);
    st->fallbacks = __atomic_load_n(&mp->fallbacks, __ATOMIC_RELAXED);
    st->orphaned = __atomic_load_n(&mp->orphaned, __ATOMIC_RELAXED);
    st->arenas = __atomic_load_n(&mp->arenas, __ATOMIC_RELAXED);
}

long long d2_memplan_offset(d2_memplan *mp, int var, size_t *cap)
{
    long long r = -1;
    if (cap)
        *cap = 0;
    if (!mp || var < 0 || var >= mp->p->n_vars || mp->idx_of_var[var] < 0)
        return -1;
    pthread_mutex_lock(&mp->lock);
    int k = mp->idx_of_var[var];
    if (mp->latest && mp->latest->cached && mp->latest->cap[k]) {
        r = (long long)mp->latest->off[k];
        if (cap)
            *cap = mp->latest->cap[k];
    }
    pthread_mutex_unlock(&mp->lock);
    return r;
}

bool d2_memplan_interval(d2_memplan *mp, int var, int *start, int *end)
{
    if (!mp || var < 0 || var >= mp->p->n_vars || mp->idx_of_var[var] < 0)
        return false;
    int k = mp->idx_of_var[var];
    *start = mp->start[k];
    *end = mp->end[k];
    return true;
}
