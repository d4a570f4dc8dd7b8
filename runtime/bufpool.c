/* bufpool.c - a pool of host buffers that a prepared Program's outputs reuse from run to run. */
#include "bufpool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Each buffer starts with a header of one cache line; the tensor's data
 * follows it, so the release callback finds the buffer's capacity from the
 * data pointer alone. */
typedef struct buf_head {
    size_t cap; /* bytes of data after the header */
} buf_head;
#define HEAD 64

/* Idle buffers kept at most; a run of a prepared Program needs about as many
 * as it has values alive at once. */
#define MAX_IDLE 256

typedef struct idle_buf {
    void *base;
    size_t cap;
} idle_buf;

struct d2_bufpool {
    pthread_mutex_t lock;
    long refs; /* the owner, plus one per buffer handed out */
    bool closed;
    size_t max_idle, idle_bytes;
    int n_idle;
    idle_buf idle[MAX_IDLE];
};

d2_bufpool *d2_bufpool_new(size_t max_idle, d2_err *err)
{
    d2_bufpool *p = d2_calloc(1, sizeof *p);
    if (!p || pthread_mutex_init(&p->lock, NULL) != 0) {
        d2_free(p);
        d2_err_set(err, D2_ERR_NOMEM, "out of memory creating a buffer pool");
        return NULL;
    }
    p->refs = 1;
    p->max_idle = max_idle;
    return p;
}

/* Drops one reference, with the lock held; unlocks, and frees the pool
 * after the last one. */
static void unref_unlock(d2_bufpool *p)
{
    bool last = --p->refs == 0;
    pthread_mutex_unlock(&p->lock);
    if (last) {
        pthread_mutex_destroy(&p->lock);
        d2_free(p);
    }
}

void d2_bufpool_close(d2_bufpool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->closed = true;
    for (int i = 0; i < p->n_idle; i++)
        free(p->idle[i].base);
    p->n_idle = 0;
    p->idle_bytes = 0;
    unref_unlock(p);
}

void d2_bufpool_stats(d2_bufpool *p, int *n_idle, size_t *idle_bytes)
{
    pthread_mutex_lock(&p->lock);
    *n_idle = p->n_idle;
    *idle_bytes = p->idle_bytes;
    pthread_mutex_unlock(&p->lock);
}

/* Removes idle buffer i, keeping the others in the order they came back. */
static void remove_idle(d2_bufpool *p, int i)
{
    p->idle_bytes -= p->idle[i].cap;
    memmove(&p->idle[i], &p->idle[i + 1], sizeof p->idle[0] * (size_t)(p->n_idle - i - 1));
    p->n_idle--;
}

/* The storage release callback: the buffer goes back to the pool, where the
 * buffers idle longest make room for it when the pool is full (sizes a
 * Program no longer asks for, after its input shapes change, age out); it is
 * freed when the pool is closed or it alone is over the bound. */
static void give_back(void *ctx, void *data)
{
    d2_bufpool *p = ctx;
    void *base = (char *)data - HEAD;
    size_t cap = ((buf_head *)base)->cap;
    void *evict[MAX_IDLE];
    int n_evict = 0;
    pthread_mutex_lock(&p->lock);
    bool keep = !p->closed && cap <= p->max_idle;
    while (keep && p->n_idle > 0 &&
           (p->n_idle == MAX_IDLE || p->idle_bytes + cap > p->max_idle)) {
        evict[n_evict++] = p->idle[0].base;
        remove_idle(p, 0);
    }
    if (keep) {
        p->idle[p->n_idle++] = (idle_buf){base, cap};
        p->idle_bytes += cap;
    }
    unref_unlock(p);
    if (!keep)
        free(base);
    for (int i = 0; i < n_evict; i++)
        free(evict[i]);
}

/* An idle buffer of at least n bytes and at most an eighth more (the best
 * fit), removed from the pool; NULL when none fits. Lock held. */
static void *take_idle(d2_bufpool *p, size_t n)
{
    int best = -1;
    for (int i = 0; i < p->n_idle; i++) {
        size_t c = p->idle[i].cap;
        if (c >= n && c - n <= n / 8 && (best < 0 || c < p->idle[best].cap))
            best = i;
    }
    if (best < 0)
        return NULL;
    void *base = p->idle[best].base;
    remove_idle(p, best);
    return base;
}

d2_tensor *d2_bufpool_tensor_new(d2_bufpool *p, d2_dtype dt, int ndim, const int64_t *shape,
                                 d2_err *err)
{
    if (d2_tensor_check_size(dt, ndim, shape, err) < 0)
        return NULL;
    int64_t numel = 1;
    for (int i = 0; i < ndim; i++)
        numel *= shape[i];
    /* checked above: the byte size fits the tensor byte cap */
    size_t n = ((size_t)numel * d2_dtype_size(dt) + 63) & ~(size_t)63, total;
    if (n == 0)
        n = 64;
    pthread_mutex_lock(&p->lock);
    void *base = take_idle(p, n);
    p->refs++;
    pthread_mutex_unlock(&p->lock);
    if (!base) {
        /* a fresh buffer, 64-byte aligned as the CPU backend's */
        if (!d2_add_size(n, HEAD, &total) || posix_memalign(&base, 64, total) != 0)
            base = NULL;
        if (base)
            ((buf_head *)base)->cap = n;
    }
    d2_tensor *t = base ? d2_tensor_new_over(NULL, dt, ndim, shape, (char *)base + HEAD,
                                             give_back, p, err)
                        : NULL;
    if (!t) {
        if (!base)
            d2_err_set(err, D2_ERR_NOMEM, "out of memory allocating %zu bytes", n);
        pthread_mutex_lock(&p->lock);
        unref_unlock(p);
        free(base);
    }
    return t;
}
