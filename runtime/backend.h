/* backend.h - the backend vtable: buffers, transfers, kernel lookup, sync. */
#ifndef DY2ST_BACKEND_H
#define DY2ST_BACKEND_H

#include "ops.h"
#include "tensor.h"

typedef enum { D2_BACKEND_CPU = 0, D2_BACKEND_OPENCL = 1 } d2_backend_kind;

typedef struct d2_backend {
    const char *name;
    d2_backend_kind kind;
    /* Returns a buffer handle of n bytes, or NULL with err set. */
    void *(*alloc)(struct d2_backend *be, size_t n, d2_err *err);
    void (*free)(struct d2_backend *be, void *buf);
    /* Host <-> device copies; offsets in bytes. */
    int (*upload)(struct d2_backend *be, void *dst, size_t dst_off, const void *src, size_t n,
                  d2_err *err);
    int (*download)(struct d2_backend *be, void *dst, const void *src, size_t src_off, size_t n,
                    d2_err *err);
    int (*copy)(struct d2_backend *be, void *dst, size_t dst_off, const void *src, size_t src_off,
                size_t n, d2_err *err);
    /* Kernel for op id, or NULL if the backend does not support it. */
    d2_kernel_fn (*kernel)(struct d2_backend *be, d2_op_id op);
    /* Waits for the device; reports an error the device deferred (see below). */
    int (*sync)(struct d2_backend *be, d2_err *err);
    /* Optional (NULL where a backend reports every error at once): the state of
     * one run. Between run_begin and run_end on one thread, the errors kernels
     * defer (a bad index found on a device) belong to that run: this thread's
     * downloads and syncs on be report them, no other thread's do. run_begin
     * returns the state (NULL with err set on failure); run_end drops whatever
     * the run left unreported and frees the state. Runs nest (innermost wins). */
    void *(*run_begin)(struct d2_backend *be, d2_err *err);
    void (*run_end)(struct d2_backend *be, void *run);
    void *impl;
} d2_backend;

#endif
