/* gemm.h - row-major float32/float64 GEMM through BLIS, with the kernel set chosen by dy2st. */
#ifndef DY2ST_GEMM_H
#define DY2ST_GEMM_H

#include "../tensor.h"

/* BLIS sub-configurations ("kernel sets") d2_gemm can run with.
 * D2_GEMM_ARCH_BLIS is whatever BLIS's own CPU detection picked. */
typedef enum {
    D2_GEMM_ARCH_BLIS = 0,
    D2_GEMM_ARCH_SKX,
    D2_GEMM_ARCH_HASWELL,
    D2_GEMM_ARCH_ZEN3,
    D2_GEMM_ARCH_ZEN2,
    D2_GEMM_ARCH_ZEN,
    D2_GEMM_ARCH_GENERIC,
    D2_GEMM_NUM_ARCHS
} d2_gemm_arch;

/* C = alpha * op(A) @ op(B) + beta * C, all row-major. op(A) is m x k: A is
 * stored m x k (lda >= k), or k x m when trans_a (lda >= m); likewise op(B)
 * is k x n and C is m x n (ldc >= n). dt is D2_F32 or D2_F64 and all three
 * matrices have that dtype. beta == 0 overwrites C (NaNs in C do not
 * propagate). Returns 0, or -1 with err set on a bad argument. */
int d2_gemm(d2_dtype dt, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
            double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
            void *c, int64_t ldc, d2_err *err);

/* Strided batch of `batch` GEMMs: item i uses a + i*stride_a, b + i*stride_b
 * and c + i*stride_c (strides in elements; stride_a or stride_b may be 0 to
 * reuse one operand). The C items must not overlap. Small items run in
 * parallel across the batch when more than one thread is set. */
int d2_gemm_batched(d2_dtype dt, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                    double alpha, const void *a, int64_t lda, int64_t stride_a, const void *b,
                    int64_t ldb, int64_t stride_b, double beta, void *c, int64_t ldc,
                    int64_t stride_c, int64_t batch, d2_err *err);

/* Threads used per GEMM. The default is 1, or DY2ST_NUM_THREADS when set in
 * the environment at first use; n <= 0 restores that default. With
 * DY2ST_ADAPT_THREADS=1, d2_gemm_threads() returns no more than the machine's
 * idle cores (cpu/loadcap.h). */
void d2_gemm_set_threads(int n);
int d2_gemm_threads(void);
/* The thread count of the runs on the calling thread from now on (a Program's
 * ExecutionStrategy.num_threads, a run option), above the default while n > 0; n <= 0 drops
 * it. Returns the previous value (0: none), for the caller to restore when its run ends.
 * GEMM and oneDNN's convolutions both follow d2_gemm_threads(). */
int d2_gemm_set_run_threads(int n);

/* The kernel set in use: the best one this CPU supports, or the one named by
 * DY2ST_BLIS_ARCH (skx, haswell, zen3, zen2, zen, generic, blis, auto) when
 * the CPU can run it. Chosen once, at first use. */
d2_gemm_arch d2_gemm_arch_current(void);
const char *d2_gemm_arch_name(void);
/* Why the current kernel set was chosen (static string, for diagnostics). */
const char *d2_gemm_arch_reason(void);

/* "skx", "haswell", ..., "blis"; NULL for an out-of-range value. */
const char *d2_gemm_arch_str(d2_gemm_arch a);
/* Parses a kernel set name; -1 when unknown. */
int d2_gemm_arch_parse(const char *s);
/* True when this CPU (and OS) can run the kernels of a. */
bool d2_gemm_arch_supported(d2_gemm_arch a);

/* The BLIS context (a cntx_t*) for kernel set a, built once; NULL for
 * D2_GEMM_ARCH_BLIS and for sets this CPU cannot run. For benchmarks that
 * call BLIS directly; the context is owned by this module. */
struct cntx_s;
struct cntx_s *d2_gemm_blis_cntx(d2_gemm_arch a);

#endif
