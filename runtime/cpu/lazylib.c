/* lazylib.c - oneDNN and LAPACKE opened on first use (dlopen), so that a command that runs no convolution and no decomposition never loads them. */
#include "base.h"

#include <dlfcn.h>
#include <lapacke.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#ifdef DY2ST_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

/* Loading libdnnl (with libstdc++) and liblapacke (with LAPACK, BLAS and
 * gfortran) at process start cost about 3.5 ms of CPU time per process,
 * more than converting a model: the dynamic linker's relocations and the
 * libraries' constructors. So neither is linked; each function the runtime
 * calls is defined below with the library's own prototype (the header
 * makes the compiler check it) and forwards to the real one, looked up on
 * its first call. A function of these libraries that the runtime starts
 * to use needs a row here (the link fails until it has one).
 *
 * The forwarding functions are not exported (the programs are linked
 * without -rdynamic and libdy2st exports only dy2st_*), so the libraries'
 * calls of their own functions never come back here. */

typedef struct lazy_lib {
    const char *sonames[2];
    pthread_once_t once;
    void *handle; /* NULL when it could not be opened */
} lazy_lib;

static lazy_lib lapacke_lib = {{"liblapacke.so.3", "liblapacke.so"}, PTHREAD_ONCE_INIT, NULL};

static void open_lib(lazy_lib *L)
{
    const char *why = "";
    for (size_t i = 0; i < D2_COUNTOF(L->sonames) && !L->handle; i++) {
        L->handle = dlopen(L->sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!L->handle)
            why = dlerror();
    }
    if (!L->handle)
        fprintf(stderr, "dy2st: warning: cannot load %s: %s\n", L->sonames[0], why ? why : "");
}

static void open_lapacke(void)
{
    open_lib(&lapacke_lib);
}

#ifdef DY2ST_HAVE_DNNL
static lazy_lib dnnl_lib = {{"libdnnl.so.2", "libdnnl.so"}, PTHREAD_ONCE_INIT, NULL};
static void open_dnnl(void)
{
    open_lib(&dnnl_lib);
}
#endif

/* The address of sym in library L (opened by opener on the first call), or NULL. */
static void *lazy_sym(lazy_lib *L, void (*opener)(void), const char *sym)
{
    pthread_once(&L->once, opener);
    return L->handle ? dlsym(L->handle, sym) : NULL;
}

/* Defines name with its header's prototype (params; args names them):
 * it calls the library's function, or returns fail when that cannot be
 * loaded. */
#define FORWARD(L, opener, fail, ret, name, params, args)                                         \
    ret name params                                                                               \
    {                                                                                             \
        static _Atomic(void *) cached;                                                            \
        void *p = atomic_load_explicit(&cached, memory_order_acquire);                            \
        if (!p) {                                                                                 \
            if (!(p = lazy_sym(&L, opener, #name)))                                               \
                return fail;                                                                      \
            atomic_store_explicit(&cached, p, memory_order_release);                              \
        }                                                                                         \
        __typeof__(&name) fn;                                                                     \
        memcpy(&fn, &p, sizeof fn);                                                               \
        return fn args;                                                                           \
    }

/* ---- LAPACKE: the paddle.linalg factorizations (runtime/cpu/linalg.c) ---- */
#define LAPACKE(name, params, args)                                                               \
    FORWARD(lapacke_lib, open_lapacke, LAPACK_WORK_MEMORY_ERROR, lapack_int, name, params, args)

LAPACKE(LAPACKE_dgeqrf, (int layout, lapack_int m, lapack_int n, double *a, lapack_int lda, double *tau),
        (layout, m, n, a, lda, tau))
LAPACKE(LAPACKE_dgesdd,
        (int layout, char jobz, lapack_int m, lapack_int n, double *a, lapack_int lda, double *s,
         double *u, lapack_int ldu, double *vt, lapack_int ldvt),
        (layout, jobz, m, n, a, lda, s, u, ldu, vt, ldvt))
LAPACKE(LAPACKE_dgesv,
        (int layout, lapack_int n, lapack_int nrhs, double *a, lapack_int lda, lapack_int *ipiv,
         double *b, lapack_int ldb),
        (layout, n, nrhs, a, lda, ipiv, b, ldb))
LAPACKE(LAPACKE_dgetrf, (int layout, lapack_int m, lapack_int n, double *a, lapack_int lda, lapack_int *ipiv),
        (layout, m, n, a, lda, ipiv))
LAPACKE(LAPACKE_dgetri, (int layout, lapack_int n, double *a, lapack_int lda, const lapack_int *ipiv),
        (layout, n, a, lda, ipiv))
LAPACKE(LAPACKE_dorgqr,
        (int layout, lapack_int m, lapack_int n, lapack_int k, double *a, lapack_int lda, const double *tau),
        (layout, m, n, k, a, lda, tau))
LAPACKE(LAPACKE_dpotrf, (int layout, char uplo, lapack_int n, double *a, lapack_int lda),
        (layout, uplo, n, a, lda))
LAPACKE(LAPACKE_dsyevd,
        (int layout, char jobz, char uplo, lapack_int n, double *a, lapack_int lda, double *w),
        (layout, jobz, uplo, n, a, lda, w))

#ifdef DY2ST_HAVE_DNNL
/* ---- oneDNN: convolutions in blocked layouts (runtime/cpu/dnnl.c) ---- */
#define DNNL(name, params, args)                                                                  \
    FORWARD(dnnl_lib, open_dnnl, dnnl_runtime_error, dnnl_status_t, name, params, args)

DNNL(dnnl_dilated_convolution_forward_desc_init,
     (dnnl_convolution_desc_t * conv_desc, dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind,
      const dnnl_memory_desc_t *src_desc, const dnnl_memory_desc_t *weights_desc,
      const dnnl_memory_desc_t *bias_desc, const dnnl_memory_desc_t *dst_desc, const dnnl_dims_t strides,
      const dnnl_dims_t dilates, const dnnl_dims_t padding_l, const dnnl_dims_t padding_r),
     (conv_desc, prop_kind, alg_kind, src_desc, weights_desc, bias_desc, dst_desc, strides, dilates,
      padding_l, padding_r))
DNNL(dnnl_engine_create, (dnnl_engine_t * engine, dnnl_engine_kind_t kind, size_t index),
     (engine, kind, index))
DNNL(dnnl_memory_create,
     (dnnl_memory_t * memory, const dnnl_memory_desc_t *memory_desc, dnnl_engine_t engine, void *handle),
     (memory, memory_desc, engine, handle))
DNNL(dnnl_memory_desc_init_by_tag,
     (dnnl_memory_desc_t * memory_desc, int ndims, const dnnl_dims_t dims, dnnl_data_type_t data_type,
      dnnl_format_tag_t tag),
     (memory_desc, ndims, dims, data_type, tag))
DNNL(dnnl_memory_destroy, (dnnl_memory_t memory), (memory))
DNNL(dnnl_memory_set_data_handle, (dnnl_memory_t memory, void *handle), (memory, handle))
DNNL(dnnl_post_ops_append_eltwise,
     (dnnl_post_ops_t post_ops, float scale, dnnl_alg_kind_t alg_kind, float alpha, float beta),
     (post_ops, scale, alg_kind, alpha, beta))
DNNL(dnnl_post_ops_append_sum, (dnnl_post_ops_t post_ops, float scale), (post_ops, scale))
DNNL(dnnl_post_ops_create, (dnnl_post_ops_t * post_ops), (post_ops))
DNNL(dnnl_post_ops_destroy, (dnnl_post_ops_t post_ops), (post_ops))
DNNL(dnnl_primitive_attr_create, (dnnl_primitive_attr_t * attr), (attr))
DNNL(dnnl_primitive_attr_destroy, (dnnl_primitive_attr_t attr), (attr))
DNNL(dnnl_primitive_attr_set_post_ops, (dnnl_primitive_attr_t attr, const_dnnl_post_ops_t post_ops),
     (attr, post_ops))
DNNL(dnnl_primitive_attr_set_scratchpad_mode, (dnnl_primitive_attr_t attr, dnnl_scratchpad_mode_t mode),
     (attr, mode))
DNNL(dnnl_primitive_create, (dnnl_primitive_t * primitive, const_dnnl_primitive_desc_t primitive_desc),
     (primitive, primitive_desc))
DNNL(dnnl_primitive_desc_create,
     (dnnl_primitive_desc_t * primitive_desc, const_dnnl_op_desc_t op_desc,
      const_dnnl_primitive_attr_t attr, dnnl_engine_t engine,
      const_dnnl_primitive_desc_t hint_forward_primitive_desc),
     (primitive_desc, op_desc, attr, engine, hint_forward_primitive_desc))
DNNL(dnnl_primitive_desc_destroy, (dnnl_primitive_desc_t primitive_desc), (primitive_desc))
DNNL(dnnl_primitive_destroy, (dnnl_primitive_t primitive), (primitive))
DNNL(dnnl_primitive_execute,
     (const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs, const dnnl_exec_arg_t *args),
     (primitive, stream, nargs, args))
DNNL(dnnl_reorder_primitive_desc_create,
     (dnnl_primitive_desc_t * reorder_primitive_desc, const dnnl_memory_desc_t *src_desc,
      dnnl_engine_t src_engine, const dnnl_memory_desc_t *dst_desc, dnnl_engine_t dst_engine,
      const_dnnl_primitive_attr_t attr),
     (reorder_primitive_desc, src_desc, src_engine, dst_desc, dst_engine, attr))
DNNL(dnnl_stream_create, (dnnl_stream_t * stream, dnnl_engine_t engine, unsigned flags),
     (stream, engine, flags))
DNNL(dnnl_stream_destroy, (dnnl_stream_t stream), (stream))
DNNL(dnnl_stream_wait, (dnnl_stream_t stream), (stream))

/* the three whose results are not a status: failing, they answer "not equal", 0 bytes, no descriptor */
FORWARD(dnnl_lib, open_dnnl, 0, int, dnnl_memory_desc_equal,
        (const dnnl_memory_desc_t *lhs, const dnnl_memory_desc_t *rhs), (lhs, rhs))
FORWARD(dnnl_lib, open_dnnl, 0, size_t, dnnl_memory_desc_get_size, (const dnnl_memory_desc_t *memory_desc),
        (memory_desc))
FORWARD(dnnl_lib, open_dnnl, NULL, const dnnl_memory_desc_t *, dnnl_primitive_desc_query_md,
        (const_dnnl_primitive_desc_t primitive_desc, dnnl_query_t what, int index),
        (primitive_desc, what, index))
#endif
