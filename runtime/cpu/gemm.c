/* gemm.c - GEMM through BLIS with the best kernel set this CPU supports. */
#include "gemm.h"
#include "loadcap.h"

/* blis.h is not written for -Wall -Wextra; its warnings are not ours. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wtype-limits"
#include <blis.h>
#include <math.h>
#pragma GCC diagnostic pop
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define D2_GEMM_X86 1
#include <cpuid.h>
#else
#define D2_GEMM_X86 0
#endif

/* Why dy2st picks the kernels instead of BLIS.
 *
 * Debian's BLIS 0.9.0 chooses its sub-configuration by CPU model and a guess
 * at the number of FMA units. It falls back to the generic (plain C) kernels
 * on CPUs newer than it knows (Zen 5), and on AVX-512 Xeons where it believes
 * there is one FMA unit it picks 'haswell' (AVX2) over 'skx' (AVX-512). Its
 * BLIS_ARCH_TYPE override aborts in that release. The static library does
 * export each sub-configuration's context initialiser, so we read the CPU
 * features with cpuid/xgetbv ourselves, build the context of the best kernel
 * set the CPU can run once, and hand it to every bli_?gemm_ex call.
 *
 * Measured on an Intel Xeon (Cascade Lake, 2 cores, AVX-512), one thread,
 * sgemm, GFLOP/s (bench/gemm_bench; full table in bench/RESULTS-gemm.md):
 *                 1024^3   256^3   128^3   64^3   m=16,n=k=512
 *   skx            ~110    ~108     ~83     ~37       ~32
 *   haswell         ~70     ~71     ~48     ~61       ~44
 *   zen3/zen2/zen   ~70     ~64      -      ~61        -
 *   generic         ~19     ~19      -      ~14        -
 * So skx wins by ~1.5x on every medium and large product, and dgemm shows the
 * same (~54 vs ~35 at 1024^3). But BLIS 0.9.0's skx configuration has no
 * small-matrix ("sup") kernels, so tiny or skinny products pay for packing;
 * there the haswell context, whose AVX2 sup kernels skip packing, is up to 3x
 * faster. With skx selected, products below the thresholds in small_product()
 * (measured crossover points) therefore run with the haswell context. On AMD
 * CPUs without AVX-512 the zen contexts are BLIS's own choice for those
 * families; any other AVX2+FMA CPU gets haswell, anything older generic. */

#if D2_GEMM_X86
void bli_cntx_init_skx(cntx_t *cntx);
void bli_cntx_init_haswell(cntx_t *cntx);
void bli_cntx_init_zen3(cntx_t *cntx);
void bli_cntx_init_zen2(cntx_t *cntx);
void bli_cntx_init_zen(cntx_t *cntx);
void bli_cntx_init_generic(cntx_t *cntx);
#endif

static const char *const arch_names[D2_GEMM_NUM_ARCHS] = {
    [D2_GEMM_ARCH_BLIS] = "blis",       [D2_GEMM_ARCH_SKX] = "skx",
    [D2_GEMM_ARCH_HASWELL] = "haswell", [D2_GEMM_ARCH_ZEN3] = "zen3",
    [D2_GEMM_ARCH_ZEN2] = "zen2",       [D2_GEMM_ARCH_ZEN] = "zen",
    [D2_GEMM_ARCH_GENERIC] = "generic",
};

/* CPU facts that decide which kernel sets can run. */
typedef struct {
    bool avx2_fma; /* AVX2 + FMA3 with the OS saving ymm state */
    bool avx512;   /* AVX-512 F/DQ/BW/VL with the OS saving zmm state */
    bool amd;
    unsigned family, model;
} cpu_info;

static struct {
    pthread_once_t once;
    cpu_info cpu;
    d2_gemm_arch arch;
    const char *reason;
    int default_threads;
    bool have[D2_GEMM_NUM_ARCHS];
    cntx_t cntx[D2_GEMM_NUM_ARCHS];
} G = {.once = PTHREAD_ONCE_INIT};

static atomic_int g_threads;
/* A run's own thread count (ExecutionStrategy.num_threads, a run option): overrides
 * g_threads on the thread running it while > 0. */
static _Thread_local int tl_run_threads;

#if D2_GEMM_X86
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void detect_cpu(cpu_info *ci)
{
    memset(ci, 0, sizeof *ci);
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return;
    unsigned max_leaf = a;
    /* vendor string is ebx, edx, ecx */
    ci->amd = (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163) || /* AuthenticAMD */
              (b == 0x6f677948 && d == 0x6e65476e && c == 0x656e6975);   /* HygonGenuine */
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return;
    unsigned fam = (a >> 8) & 0xf, mod = (a >> 4) & 0xf;
    if (fam == 0xf)
        fam += (a >> 20) & 0xff;
    if (fam >= 6)
        mod |= ((a >> 16) & 0xf) << 4;
    ci->family = fam;
    ci->model = mod;
    bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28);
    if (!osxsave || !avx || max_leaf < 7)
        return;
    uint64_t xcr0 = read_xcr0();
    bool ymm_os = (xcr0 & 0x6) == 0x6;         /* SSE + AVX state */
    bool zmm_os = (xcr0 & 0xe6) == 0xe6;       /* + opmask, ZMM_Hi256, Hi16_ZMM */
    __cpuid_count(7, 0, a, b, c, d);
    bool avx2 = b & (1u << 5);
    bool f = b & (1u << 16), dq = b & (1u << 17), bw = b & (1u << 30), vl = b & (1u << 31);
    ci->avx2_fma = ymm_os && avx2 && fma;
    ci->avx512 = ci->avx2_fma && zmm_os && f && dq && bw && vl;
}
#endif

bool d2_gemm_arch_supported(d2_gemm_arch a)
{
    if (a == D2_GEMM_ARCH_BLIS)
        return true;
#if D2_GEMM_X86
    cpu_info ci;
    detect_cpu(&ci);
    switch (a) {
    case D2_GEMM_ARCH_SKX: return ci.avx512;
    case D2_GEMM_ARCH_HASWELL:
    case D2_GEMM_ARCH_ZEN3:
    case D2_GEMM_ARCH_ZEN2:
    case D2_GEMM_ARCH_ZEN: return ci.avx2_fma;
    case D2_GEMM_ARCH_GENERIC: return true;
    default: return false;
    }
#else
    return false;
#endif
}

const char *d2_gemm_arch_str(d2_gemm_arch a)
{
    return (unsigned)a < D2_GEMM_NUM_ARCHS ? arch_names[a] : NULL;
}

int d2_gemm_arch_parse(const char *s)
{
    for (int i = 0; i < D2_GEMM_NUM_ARCHS; i++)
        if (strcmp(s, arch_names[i]) == 0)
            return i;
    return -1;
}

/* The best kernel set for this CPU, with the reason. */
static d2_gemm_arch best_arch(const cpu_info *ci, const char **reason)
{
#if D2_GEMM_X86
    if (ci->avx512) {
        *reason = "AVX-512 F/DQ/BW/VL available: skx kernels";
        return D2_GEMM_ARCH_SKX;
    }
    if (ci->avx2_fma && ci->amd) {
        *reason = "AMD CPU with AVX2/FMA and no AVX-512: zen kernels for its family";
        if (ci->family >= 0x19)
            return D2_GEMM_ARCH_ZEN3;
        if (ci->family == 0x17 && ci->model >= 0x30)
            return D2_GEMM_ARCH_ZEN2;
        if (ci->family == 0x17)
            return D2_GEMM_ARCH_ZEN;
        return D2_GEMM_ARCH_HASWELL;
    }
    if (ci->avx2_fma) {
        *reason = "AVX2/FMA available, no AVX-512: haswell kernels";
        return D2_GEMM_ARCH_HASWELL;
    }
    *reason = "no AVX2/FMA: generic kernels";
    return D2_GEMM_ARCH_GENERIC;
#else
    D2_UNUSED(ci);
    *reason = "not x86: BLIS's own configuration";
    return D2_GEMM_ARCH_BLIS;
#endif
}

static void gemm_init(void)
{
    const char *env = getenv("DY2ST_NUM_THREADS");
    long nt = env ? strtol(env, NULL, 10) : 1;
    G.default_threads = nt >= 1 && nt <= 4096 ? (int)nt : 1;
    atomic_store(&g_threads, G.default_threads);

    G.have[D2_GEMM_ARCH_BLIS] = true;
#if D2_GEMM_X86
    detect_cpu(&G.cpu);
    static void (*const init[D2_GEMM_NUM_ARCHS])(cntx_t *) = {
        [D2_GEMM_ARCH_SKX] = bli_cntx_init_skx,   [D2_GEMM_ARCH_HASWELL] = bli_cntx_init_haswell,
        [D2_GEMM_ARCH_ZEN3] = bli_cntx_init_zen3, [D2_GEMM_ARCH_ZEN2] = bli_cntx_init_zen2,
        [D2_GEMM_ARCH_ZEN] = bli_cntx_init_zen,   [D2_GEMM_ARCH_GENERIC] = bli_cntx_init_generic,
    };
    bli_init_once();
    for (int a = 1; a < D2_GEMM_NUM_ARCHS; a++) {
        if (!d2_gemm_arch_supported((d2_gemm_arch)a))
            continue;
        memset(&G.cntx[a], 0, sizeof G.cntx[a]);
        init[a](&G.cntx[a]);
        G.have[a] = true;
    }
#endif
    G.arch = best_arch(&G.cpu, &G.reason);
    const char *want = getenv("DY2ST_BLIS_ARCH");
    if (want && *want && strcmp(want, "auto") != 0) {
        int a = d2_gemm_arch_parse(want);
        if (a < 0)
            G.reason = "DY2ST_BLIS_ARCH names an unknown kernel set; using the best supported";
        else if (!G.have[a])
            G.reason = "DY2ST_BLIS_ARCH names kernels this CPU cannot run; using the best "
                       "supported";
        else {
            G.arch = (d2_gemm_arch)a;
            G.reason = "chosen by DY2ST_BLIS_ARCH";
        }
    }
}

static void ensure_init(void) { pthread_once(&G.once, gemm_init); }

d2_gemm_arch d2_gemm_arch_current(void)
{
    ensure_init();
    return G.arch;
}

const char *d2_gemm_arch_name(void) { return arch_names[d2_gemm_arch_current()]; }

const char *d2_gemm_arch_reason(void)
{
    ensure_init();
    return G.reason;
}

struct cntx_s *d2_gemm_blis_cntx(d2_gemm_arch a)
{
    ensure_init();
    if ((unsigned)a >= D2_GEMM_NUM_ARCHS || a == D2_GEMM_ARCH_BLIS || !G.have[a])
        return NULL;
    return &G.cntx[a];
}

void d2_gemm_set_threads(int n)
{
    ensure_init();
    atomic_store(&g_threads, n > 0 ? n : G.default_threads);
}

int d2_gemm_threads(void)
{
    ensure_init();
    int n = tl_run_threads > 0 ? tl_run_threads : atomic_load(&g_threads);
    /* DY2ST_ADAPT_THREADS=1: no more threads than the machine has idle cores */
    return n > 1 && d2_loadcap_enabled() ? d2_loadcap_threads(n) : n;
}

int d2_gemm_set_run_threads(int n)
{
    int old = tl_run_threads;
    tl_run_threads = n > 0 ? n : 0;
    return old;
}

/* True when a product is small or skinny enough that the haswell context's
 * unpacked sup kernels beat skx's packed path (crossovers measured with
 * one thread: float32 below 32 rows or columns or ~96^3, float64 below 24
 * or ~48^3; the inner dimension alone never favours sup). */
static bool small_product(d2_dtype dt, int64_t m, int64_t n, int64_t k)
{
    int64_t mn = m < n ? m : n;
    double vol = (double)m * (double)n * (double)k;
    if (dt == D2_F32)
        return mn < 32 || vol <= 96.0 * 96.0 * 96.0;
    return mn < 24 || vol <= 48.0 * 48.0 * 48.0;
}

/* The context for one product (NULL = BLIS's default). */
static cntx_t *pick_cntx(d2_dtype dt, int64_t m, int64_t n, int64_t k)
{
    d2_gemm_arch a = G.arch;
    if (a == D2_GEMM_ARCH_SKX && G.have[D2_GEMM_ARCH_HASWELL] && small_product(dt, m, n, k))
        a = D2_GEMM_ARCH_HASWELL;
    return a == D2_GEMM_ARCH_BLIS ? NULL : &G.cntx[a];
}

/* A validated problem: op(A) is m x k with strides (rsa, csa), etc. */
typedef struct {
    d2_dtype dt;
    int64_t m, n, k;
    double alpha, beta;
    inc_t rsa, csa, rsb, csb, ldc;
} gemm_plan;

/* Scales (or, for beta 0, zeroes) an m x n row-major block of C. */
static void scale_c(const gemm_plan *p, void *c)
{
    for (int64_t i = 0; i < p->m; i++) {
        if (p->dt == D2_F32) {
            float *row = (float *)c + i * p->ldc, bt = (float)p->beta;
            for (int64_t j = 0; j < p->n; j++)
                row[j] = p->beta == 0 ? 0.0f : row[j] * bt;
        } else {
            double *row = (double *)c + i * p->ldc;
            for (int64_t j = 0; j < p->n; j++)
                row[j] = p->beta == 0 ? 0.0 : row[j] * p->beta;
        }
    }
}

/* Threads for a product of m*n*k multiply-adds: one below ~128^3, where the
 * whole product takes some tens of microseconds on one core and waking a
 * second thread (and, on a busy machine, waiting for it to be scheduled)
 * costs as much as it saves; on an oversubscribed host small models ran up
 * to 500x slower with every tiny product split across a team. */
static int threads_for(int nt, double vol)
{
    return nt > 1 && vol >= 128.0 * 128.0 * 128.0 ? nt : 1;
}

/* Item i of a strided batch; NULL stays NULL (empty operands have no data). */
static const void *item(const void *base, int64_t i, int64_t stride, size_t es)
{
    return base ? (const char *)base + (size_t)(i * stride) * es : NULL;
}

/* Products of at most this many multiply-adds skip BLIS: its entry (context
 * and runtime set-up, the sup dispatch) costs some thousands of instructions,
 * more than the whole product. Measured with gemm_bench on 4x4 to 16x16. */
#define TINY_GEMM_VOL 4096

/* C = alpha * op(A) op(B) + beta * C for a tiny product, one row of C at a
 * time in a local accumulator: fused multiply-adds in k order, as BLIS's
 * kernels accumulate, so that results match the BLIS path bit for bit. */
#define TINY_GEMM(NAME, ATTR, T, FMA)                                                              \
    ATTR static void NAME(const gemm_plan *p, const T *a, const T *b, T *c)                        \
    {                                                                                              \
        T acc[TINY_GEMM_VOL], bt[TINY_GEMM_VOL];                                                   \
        T al = (T)p->alpha, be = (T)p->beta;                                                       \
        int64_t n = p->n, rsb = p->rsb;                                                            \
        if (p->csb != 1 && p->m > 1 && p->k * n <= TINY_GEMM_VOL) {                                \
            /* a strided (transposed) B is packed once into rows, so that                          \
             * every row of C runs the contiguous, vectorised loop */                              \
            for (int64_t q = 0; q < p->k; q++)                                                     \
                for (int64_t j = 0; j < n; j++)                                                    \
                    bt[q * n + j] = b[q * p->rsb + j * p->csb];                                    \
            b = bt;                                                                                \
            rsb = n;                                                                               \
        }                                                                                          \
        bool bunit = b == bt || p->csb == 1;                                                       \
        for (int64_t i = 0; i < p->m; i++) {                                                       \
            for (int64_t j = 0; j < n; j++)                                                        \
                acc[j] = 0;                                                                        \
            for (int64_t q = 0; q < p->k; q++) {                                                   \
                T av = a[i * p->rsa + q * p->csa];                                                 \
                const T *br = b + q * rsb;                                                         \
                if (bunit)                                                                         \
                    for (int64_t j = 0; j < n; j++)                                                \
                        acc[j] = FMA(av, br[j], acc[j]);                                           \
                else                                                                               \
                    for (int64_t j = 0; j < n; j++)                                                \
                        acc[j] = FMA(av, br[j * p->csb], acc[j]);                                  \
            }                                                                                      \
            T *cr = c + i * p->ldc;                                                                \
            if (be == 0)                                                                           \
                for (int64_t j = 0; j < n; j++)                                                    \
                    cr[j] = al * acc[j];                                                           \
            else                                                                                   \
                for (int64_t j = 0; j < n; j++)                                                    \
                    cr[j] = al * acc[j] + be * cr[j];                                              \
        }                                                                                          \
    }
/* The same over a strided batch in one call: the dispatch and the call are paid once, and the
 * item loop is compiled with the product's own instructions. */
#define TINY_GEMM_BATCH(NAME, ONE, ATTR, T)                                                        \
    ATTR static void NAME(const gemm_plan *p, const T *a, int64_t sa, const T *b, int64_t sb,      \
                          T *c, int64_t sc, int64_t batch)                                         \
    {                                                                                              \
        for (int64_t i = 0; i < batch; i++)                                                        \
            ONE(p, a ? a + i * sa : a, b ? b + i * sb : b, c + i * sc);                            \
    }
TINY_GEMM(tiny_float_libm, , float, fmaf)
TINY_GEMM(tiny_double_libm, , double, fma)
TINY_GEMM_BATCH(tiny_float_libm_batch, tiny_float_libm, , float)
TINY_GEMM_BATCH(tiny_double_libm_batch, tiny_double_libm, , double)

/* Where the CPU has FMA instructions, the same loops compiled for them: the
 * fused multiply-add is one instruction instead of a call into libm (whose
 * fmaf rounds identically), and the row loop is vectorised. */
#if defined(__x86_64__) && defined(__GNUC__)
#define TINY_FMA_ATTR __attribute__((target("avx2,fma"), optimize("vect-cost-model=dynamic")))
TINY_GEMM(tiny_float_fma, TINY_FMA_ATTR, float, __builtin_fmaf)
TINY_GEMM(tiny_double_fma, TINY_FMA_ATTR, double, __builtin_fma)
TINY_GEMM_BATCH(tiny_float_fma_batch, tiny_float_fma, TINY_FMA_ATTR, float)
TINY_GEMM_BATCH(tiny_double_fma_batch, tiny_double_fma, TINY_FMA_ATTR, double)

static bool cpu_has_fma(void)
{
    static int has = -1; /* racing first calls store the same value */
    int h = __atomic_load_n(&has, __ATOMIC_RELAXED);
    if (h < 0) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
        __atomic_store_n(&has, h, __ATOMIC_RELAXED);
    }
    return h;
}

static void tiny_float(const gemm_plan *p, const float *a, const float *b, float *c)
{
    if (cpu_has_fma())
        tiny_float_fma(p, a, b, c);
    else
        tiny_float_libm(p, a, b, c);
}

static void tiny_double(const gemm_plan *p, const double *a, const double *b, double *c)
{
    if (cpu_has_fma())
        tiny_double_fma(p, a, b, c);
    else
        tiny_double_libm(p, a, b, c);
}

/* Small float32 products on AVX-512 without BLIS: BLIS's entry and its OpenMP region, taken
 * even for one thread, cost a few microseconds per call, more than products up to about
 * SMALL_GEMM_VOL multiply-adds take in registers (transformer layers at small batch; measured
 * against BLIS's haswell and skx kernels on 6x32x32 to 256^3, one thread, Zen 5). C is
 * computed in blocks of up to 6 rows by 32 columns held in twelve registers; each element
 * accumulates its products in k order with fused multiply-adds from zero, then becomes
 * alpha * acc + beta * c, the arithmetic of the tiny loops above (and of BLIS's kernels).
 * B's rows must be contiguous (csb 1); columns past n are masked off. */
#define SMALL_GEMM_VOL (128.0 * 128.0 * 128.0)
#define SMALL_GEMM_B_ELEMS 65536 /* B at most 256 KiB: read once per row block from cache */
#define SMALL_ATTR __attribute__((target("avx512f,fma")))
#include <immintrin.h>

SMALL_ATTR static inline __attribute__((always_inline)) void
small_block(const gemm_plan *p, const float *a, const float *b, float *c, int64_t i0, int rows,
            int64_t j0, __mmask16 m0, __mmask16 m1, bool two)
{
    __m512 acc[6][2];
#pragma GCC unroll 6
    for (int r = 0; r < 6; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    const float *ar = a + i0 * p->rsa;
    for (int64_t q = 0; q < p->k; q++) {
        const float *br = b + q * p->rsb + j0;
        __m512 b0 = _mm512_maskz_loadu_ps(m0, br);
        __m512 b1 = two ? _mm512_maskz_loadu_ps(m1, br + 16) : b0;
#pragma GCC unroll 6
        for (int r = 0; r < rows; r++) {
            __m512 av = _mm512_set1_ps(ar[r * p->rsa + q * p->csa]);
            acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
            if (two)
                acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
        }
    }
    __m512 al = _mm512_set1_ps((float)p->alpha), be = _mm512_set1_ps((float)p->beta);
    bool zero_beta = p->beta == 0;
#pragma GCC unroll 6
    for (int r = 0; r < rows; r++) {
        float *cr = c + (i0 + r) * p->ldc + j0;
        for (int v = 0; v < (two ? 2 : 1); v++) {
            __mmask16 mk = v ? m1 : m0;
            __m512 x = _mm512_mul_ps(al, acc[r][v]);
            if (!zero_beta)
                x = _mm512_add_ps(x, _mm512_mul_ps(be, _mm512_maskz_loadu_ps(mk, cr + 16 * v)));
            _mm512_mask_storeu_ps(cr + 16 * v, mk, x);
        }
    }
}

/* One row block of up to 6 rows over every column block; rows is a constant at each call. */
SMALL_ATTR static inline __attribute__((always_inline)) void
small_rows(const gemm_plan *p, const float *a, const float *b, float *c, int64_t i0, int rows)
{
    for (int64_t j0 = 0; j0 < p->n; j0 += 32) {
        int64_t w = p->n - j0;
        __mmask16 m0 = w >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << w) - 1);
        if (w <= 16) {
            small_block(p, a, b, c, i0, rows, j0, m0, 0, false);
        } else {
            __mmask16 m1 = w >= 32 ? (__mmask16)0xffff : (__mmask16)((1u << (w - 16)) - 1);
            small_block(p, a, b, c, i0, rows, j0, m0, m1, true);
        }
    }
}

SMALL_ATTR static void small_float_avx512(const gemm_plan *p, const float *a, const float *b,
                                          float *c)
{
    float bt[TINY_GEMM_VOL];
    gemm_plan q = *p;
    if (q.csb != 1) {
        /* a transposed B (attention's scores) is packed into rows first */
        for (int64_t k = 0; k < q.k; k++)
            for (int64_t j = 0; j < q.n; j++)
                bt[k * q.n + j] = b[k * q.rsb + j * q.csb];
        b = bt;
        q.rsb = q.n;
        q.csb = 1;
    }
    int64_t i0 = 0;
    for (; i0 + 6 <= q.m; i0 += 6)
        small_rows(&q, a, b, c, i0, 6);
    switch (q.m - i0) {
    case 5: small_rows(&q, a, b, c, i0, 5); break;
    case 4: small_rows(&q, a, b, c, i0, 4); break;
    case 3: small_rows(&q, a, b, c, i0, 3); break;
    case 2: small_rows(&q, a, b, c, i0, 2); break;
    case 1: small_rows(&q, a, b, c, i0, 1); break;
    default: break;
    }
}

static bool cpu_has_avx512(void)
{
    static int has = -1; /* racing first calls store the same value */
    int h = __atomic_load_n(&has, __ATOMIC_RELAXED);
    if (h < 0) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
        __atomic_store_n(&has, h, __ATOMIC_RELAXED);
    }
    return h;
}

/* Whether a float32 product of this plan runs in small_float_avx512: a volume where BLIS's entry
 * costs more than it saves, one thread, and a B it can read by rows (or pack on the stack). */
static bool small_fits(const gemm_plan *p, int nt)
{
    return p->dt == D2_F32 && nt == 1 && p->m > 0 && p->n > 0 && p->k > 0 &&
           (double)p->m * (double)p->n * (double)p->k <= SMALL_GEMM_VOL &&
           p->k * p->n <= SMALL_GEMM_B_ELEMS && (p->csb == 1 || p->k * p->n <= TINY_GEMM_VOL) &&
           cpu_has_avx512();
}

static void tiny_batch(const gemm_plan *p, const void *a, int64_t sa, const void *b, int64_t sb,
                       void *c, int64_t sc, int64_t batch)
{
    if (small_fits(p, 1)) {
        for (int64_t i = 0; i < batch; i++)
            small_float_avx512(p, (const float *)a + i * sa, (const float *)b + i * sb,
                               (float *)c + i * sc);
        return;
    }
    bool fma = cpu_has_fma();
    if (p->dt == D2_F32)
        (fma ? tiny_float_fma_batch : tiny_float_libm_batch)(p, a, sa, b, sb, c, sc, batch);
    else
        (fma ? tiny_double_fma_batch : tiny_double_libm_batch)(p, a, sa, b, sb, c, sc, batch);
}
#else
#define tiny_float tiny_float_libm
#define tiny_double tiny_double_libm
#define small_fits(p, nt) false
#define small_float_avx512(p, a, b, c) ((void)0)
static void tiny_batch(const gemm_plan *p, const void *a, int64_t sa, const void *b, int64_t sb,
                       void *c, int64_t sc, int64_t batch)
{
    if (p->dt == D2_F32)
        tiny_float_libm_batch(p, a, sa, b, sb, c, sc, batch);
    else
        tiny_double_libm_batch(p, a, sa, b, sb, c, sc, batch);
}
#endif

/* Runs one product of a validated plan with nt threads. */
static void run_one(const gemm_plan *p, cntx_t *cx, int nt, const void *a, const void *b,
                    void *c)
{
    if (p->m == 0 || p->n == 0)
        return;
    if (p->k == 0 || p->alpha == 0) {
        scale_c(p, c);
        return;
    }
    if (small_fits(p, nt)) {
        small_float_avx512(p, a, b, c);
        return;
    }
    if ((double)p->m * (double)p->n * (double)p->k <= TINY_GEMM_VOL) {
        if (p->dt == D2_F32)
            tiny_float(p, a, b, c);
        else
            tiny_double(p, a, b, c);
        return;
    }
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(nt, &rntm);
    if (p->dt == D2_F32) {
        float al = (float)p->alpha, be = (float)p->beta;
        bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, p->m, p->n, p->k, &al, (float *)a,
                     p->rsa, p->csa, (float *)b, p->rsb, p->csb, &be, (float *)c, p->ldc, 1, cx,
                     &rntm);
    } else {
        double al = p->alpha, be = p->beta;
        bli_dgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, p->m, p->n, p->k, &al, (double *)a,
                     p->rsa, p->csa, (double *)b, p->rsb, p->csb, &be, (double *)c, p->ldc, 1,
                     cx, &rntm);
    }
}

/* Checks the arguments and fills a plan. */
static int make_plan(gemm_plan *p, d2_dtype dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                     double alpha, int64_t lda, int64_t ldb, double beta, int64_t ldc, d2_err *err)
{
    if (dt != D2_F32 && dt != D2_F64)
        return d2_err_set(err, D2_ERR_DTYPE, "gemm: dtype %s is not supported (float32 or float64)",
                          d2_dtype_name(dt));
    if (m < 0 || n < 0 || k < 0)
        return d2_err_set(err, D2_ERR_INVALID, "gemm: negative size m=%lld n=%lld k=%lld",
                          (long long)m, (long long)n, (long long)k);
    int64_t need_a = ta ? m : k, need_b = tb ? k : n;
    if (lda < (need_a > 1 ? need_a : 1) || ldb < (need_b > 1 ? need_b : 1) ||
        ldc < (n > 1 ? n : 1))
        return d2_err_set(err, D2_ERR_INVALID,
                          "gemm: leading dimension too small (lda=%lld ldb=%lld ldc=%lld for "
                          "m=%lld n=%lld k=%lld)",
                          (long long)lda, (long long)ldb, (long long)ldc, (long long)m,
                          (long long)n, (long long)k);
    p->dt = dt;
    p->m = m;
    p->n = n;
    p->k = k;
    p->alpha = alpha;
    p->beta = beta;
    /* transposition folds into the strides of the stored matrix */
    p->rsa = ta ? 1 : lda;
    p->csa = ta ? lda : 1;
    p->rsb = tb ? 1 : ldb;
    p->csb = tb ? ldb : 1;
    p->ldc = ldc;
    return 0;
}

int d2_gemm(d2_dtype dt, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
            double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
            void *c, int64_t ldc, d2_err *err)
{
    gemm_plan p;
    if (make_plan(&p, dt, trans_a, trans_b, m, n, k, alpha, lda, ldb, beta, ldc, err) < 0)
        return -1;
    ensure_init();
    run_one(&p, pick_cntx(dt, m, n, k),
            threads_for(d2_gemm_threads(), (double)m * (double)n * (double)k), a, b, c);
    return 0;
}

int d2_gemm_batched(d2_dtype dt, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                    double alpha, const void *a, int64_t lda, int64_t stride_a, const void *b,
                    int64_t ldb, int64_t stride_b, double beta, void *c, int64_t ldc,
                    int64_t stride_c, int64_t batch, d2_err *err)
{
    gemm_plan p;
    if (make_plan(&p, dt, trans_a, trans_b, m, n, k, alpha, lda, ldb, beta, ldc, err) < 0)
        return -1;
    if (batch < 0 || stride_a < 0 || stride_b < 0 || stride_c < 0)
        return d2_err_set(err, D2_ERR_INVALID, "gemm: negative batch count or stride");
    if (batch > 1 && m > 0 && n > 0 && stride_c < (m - 1) * ldc + n)
        return d2_err_set(err, D2_ERR_INVALID, "gemm: batch items of C overlap (stride_c=%lld)",
                          (long long)stride_c);
    ensure_init();
    size_t es = d2_dtype_size(dt);
    cntx_t *cx = pick_cntx(dt, m, n, k);
    double vol = (double)m * (double)n * (double)k;
    int nt = d2_gemm_threads();
    /* Many small items: one thread per item beats splitting each item, once
     * the whole batch is worth a team. */
    bool across = threads_for(nt, vol * (double)batch) > 1 && batch >= nt &&
                  vol <= 256.0 * 256 * 256;
    if (!across && vol <= TINY_GEMM_VOL && m > 0 && n > 0 && k > 0 && alpha != 0) {
        /* attention's per-head products: the whole batch in one loop */
        tiny_batch(&p, a, stride_a, b, stride_b, c, stride_c, batch);
    } else if (across) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
        for (int64_t i = 0; i < batch; i++)
            run_one(&p, cx, 1, item(a, i, stride_a, es), item(b, i, stride_b, es),
                    (void *)item(c, i, stride_c, es));
    } else {
        for (int64_t i = 0; i < batch; i++)
            run_one(&p, cx, threads_for(nt, vol), item(a, i, stride_a, es),
                    item(b, i, stride_b, es), (void *)item(c, i, stride_c, es));
    }
    return 0;
}
