/* bufpool.h - a pool of host buffers that a prepared Program's outputs reuse from run to run. */
#ifndef DY2ST_BUFPOOL_H
#define DY2ST_BUFPOOL_H

#include "backend.h"

/* A tensor made by the pool owns its buffer like any other: the buffer goes
 * back to the pool only when the storage's last reference is dropped (an
 * output the caller holds, or a view of it, keeps its buffer), so reuse never
 * overwrites a live value. Idle buffers are kept up to a byte bound (the
 * longest idle make room for new ones). The pool is thread-safe, and buffers
 * may outlive d2_bufpool_close (they are freed when they come back). Host
 * (CPU backend) buffers only. */
typedef struct d2_bufpool d2_bufpool;

/* A new pool keeping at most max_idle bytes of idle buffers; NULL with err set. */
d2_bufpool *d2_bufpool_new(size_t max_idle, d2_err *err);
/* Frees the idle buffers and drops the owner's reference. NULL is ignored. */
void d2_bufpool_close(d2_bufpool *p);
/* New contiguous CPU tensor, data uninitialised, on a reused buffer when one
 * of a fitting size is idle. */
d2_tensor *d2_bufpool_tensor_new(d2_bufpool *p, d2_dtype dt, int ndim, const int64_t *shape,
                                 d2_err *err);
/* Idle buffers and their bytes (for tests). */
void d2_bufpool_stats(d2_bufpool *p, int *n_idle, size_t *idle_bytes);

#endif
