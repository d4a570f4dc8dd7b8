/* cpu_backend.c - the CPU backend: aligned host buffers, memcpy transfers, the CPU kernel table. */
#include "../backend.h"

#include <stdlib.h>
#include <string.h>

static void *cpu_alloc(d2_backend *be, size_t n, d2_err *err)
{
    D2_UNUSED(be);
    /* 64-byte alignment for vector loads; round up as aligned_alloc requires */
    size_t sz = 0;
    void *p = NULL;
    if (!d2_add_size(n, 63, &sz) || (sz &= ~(size_t)63, posix_memalign(&p, 64, sz ? sz : 64)) != 0 ||
        !p) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory allocating %zu bytes", n);
        return NULL;
    }
    return p;
}

static void cpu_free(d2_backend *be, void *buf)
{
    D2_UNUSED(be);
    free(buf);
}

static int cpu_upload(d2_backend *be, void *dst, size_t dst_off, const void *src, size_t n,
                      d2_err *err)
{
    D2_UNUSED(be);
    D2_UNUSED(err);
    memcpy((char *)dst + dst_off, src, n);
    return 0;
}

static int cpu_download(d2_backend *be, void *dst, const void *src, size_t src_off, size_t n,
                        d2_err *err)
{
    D2_UNUSED(be);
    D2_UNUSED(err);
    memcpy(dst, (const char *)src + src_off, n);
    return 0;
}

static int cpu_copy(d2_backend *be, void *dst, size_t dst_off, const void *src, size_t src_off,
                    size_t n, d2_err *err)
{
    D2_UNUSED(be);
    D2_UNUSED(err);
    memmove((char *)dst + dst_off, (const char *)src + src_off, n);
    return 0;
}

static const d2_kernel_fn cpu_kernels[D2_NUM_OPS] = {
#define OP(name, ins, outs, attrs, infer, flags) [D2_OP_##name] = cpu_##name,
#define CTL(name, ins, outs, attrs, infer, flags) [D2_OP_##name] = ctl_##name,
#include "../ops.def"
#undef OP
#undef CTL
};

static d2_kernel_fn cpu_kernel(d2_backend *be, d2_op_id op)
{
    D2_UNUSED(be);
    return (unsigned)op < D2_NUM_OPS ? cpu_kernels[op] : NULL;
}

static int cpu_sync(d2_backend *be, d2_err *err)
{
    D2_UNUSED(be);
    D2_UNUSED(err);
    return 0;
}

static d2_backend cpu_backend = {
    "cpu", D2_BACKEND_CPU, cpu_alloc, cpu_free, cpu_upload, cpu_download, cpu_copy,
    cpu_kernel, cpu_sync, NULL, NULL, NULL,
};

d2_backend *d2_cpu_backend(void) { return &cpu_backend; }
