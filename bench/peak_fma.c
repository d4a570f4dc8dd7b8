/* peak_fma.c - an FMA-throughput loop that measures this CPU's float32 peak (see peak.h).
 *
 * Each thread runs 16 independent chains acc[i] = acc[i] * m + a on the widest vectors the
 * CPU has (AVX-512: 16 floats, AVX2: 8), so that no FMA waits for another: with two FMA
 * units of 4-cycle latency, 8 chains already keep both busy, 16 leave room. Each inner
 * iteration is 16 FMAs of `width` lanes, 2 flops per lane. The count of flops is divided by
 * the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID: the peak while the thread holds a core,
 * which other load on a shared machine barely changes) and by the wall time of the whole
 * measurement (what the threads got). */
#include "peak.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PEAK_X86 1
#else
#define PEAK_X86 0
#endif

#define CHAINS 16
#define INNER 65536L /* iterations between clock reads: about 0.5 ms at AVX-512 */

static volatile float g_sink;

/* The chains are named variables, not an array, so that they stay in registers (an array
 * loop is not unrolled at -O2 and goes through memory). */
#define FMA16(F)                                                                              \
    do {                                                                                      \
        a0 = F(a0, m, c); a1 = F(a1, m, c); a2 = F(a2, m, c); a3 = F(a3, m, c);                \
        a4 = F(a4, m, c); a5 = F(a5, m, c); a6 = F(a6, m, c); a7 = F(a7, m, c);                \
        a8 = F(a8, m, c); a9 = F(a9, m, c); a10 = F(a10, m, c); a11 = F(a11, m, c);            \
        a12 = F(a12, m, c); a13 = F(a13, m, c); a14 = F(a14, m, c); a15 = F(a15, m, c);        \
    } while (0)
#define SUM16(ADD)                                                                            \
    ADD(ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7))),                    \
        ADD(ADD(ADD(a8, a9), ADD(a10, a11)), ADD(ADD(a12, a13), ADD(a14, a15))))

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if PEAK_X86
__attribute__((target("avx512f"))) static void loop_avx512(long iters)
{
    const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
    __m512 a0 = _mm512_set1_ps(0), a1 = _mm512_set1_ps(1), a2 = _mm512_set1_ps(2),
           a3 = _mm512_set1_ps(3), a4 = _mm512_set1_ps(4), a5 = _mm512_set1_ps(5),
           a6 = _mm512_set1_ps(6), a7 = _mm512_set1_ps(7), a8 = _mm512_set1_ps(8),
           a9 = _mm512_set1_ps(9), a10 = _mm512_set1_ps(10), a11 = _mm512_set1_ps(11),
           a12 = _mm512_set1_ps(12), a13 = _mm512_set1_ps(13), a14 = _mm512_set1_ps(14),
           a15 = _mm512_set1_ps(15);
    for (long it = 0; it < iters; it++)
        FMA16(_mm512_fmadd_ps);
    g_sink = _mm512_reduce_add_ps(SUM16(_mm512_add_ps));
}

__attribute__((target("avx2,fma"))) static void loop_avx2(long iters)
{
    const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-6f);
    __m256 a0 = _mm256_set1_ps(0), a1 = _mm256_set1_ps(1), a2 = _mm256_set1_ps(2),
           a3 = _mm256_set1_ps(3), a4 = _mm256_set1_ps(4), a5 = _mm256_set1_ps(5),
           a6 = _mm256_set1_ps(6), a7 = _mm256_set1_ps(7), a8 = _mm256_set1_ps(8),
           a9 = _mm256_set1_ps(9), a10 = _mm256_set1_ps(10), a11 = _mm256_set1_ps(11),
           a12 = _mm256_set1_ps(12), a13 = _mm256_set1_ps(13), a14 = _mm256_set1_ps(14),
           a15 = _mm256_set1_ps(15);
    for (long it = 0; it < iters; it++)
        FMA16(_mm256_fmadd_ps);
    float v[8];
    _mm256_storeu_ps(v, SUM16(_mm256_add_ps));
    g_sink = v[0] + v[7];
}
#endif

#define SCALAR_FMA(x, y, z) ((x) * (y) + (z))
#define SCALAR_ADD(x, y) ((x) + (y))

static void loop_scalar(long iters)
{
    const float m = 0.999999f, c = 1e-6f;
    float a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7, a8 = 8, a9 = 9,
          a10 = 10, a11 = 11, a12 = 12, a13 = 13, a14 = 14, a15 = 15;
    for (long it = 0; it < iters; it++)
        FMA16(SCALAR_FMA);
    g_sink = SUM16(SCALAR_ADD);
}

typedef struct worker {
    void (*loop)(long);
    double seconds, cpu, iters;
    pthread_barrier_t *start;
} worker;

static void *work(void *p)
{
    worker *w = p;
    w->loop(INNER / 16); /* warm up: bring the vector units to speed */
    pthread_barrier_wait(w->start);
    double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), t0 = clock_s(CLOCK_MONOTONIC);
    long n = 0;
    do {
        w->loop(INNER);
        n++;
    } while (clock_s(CLOCK_MONOTONIC) - t0 < w->seconds);
    w->cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    w->iters = (double)n * (double)INNER;
    return NULL;
}

int d2_peak_measure(int threads, double seconds, d2_peak *out)
{
    memset(out, 0, sizeof *out);
    if (threads < 1 || threads > 64)
        return -1;
    out->isa = "scalar";
    out->width = 1;
    void (*loop)(long) = loop_scalar;
#if PEAK_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        out->isa = "avx512f";
        out->width = 16;
        loop = loop_avx512;
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        out->isa = "avx2+fma";
        out->width = 8;
        loop = loop_avx2;
    }
#endif
    out->threads = threads;
    pthread_t tid[64];
    worker w[64];
    pthread_barrier_t start;
    if (pthread_barrier_init(&start, NULL, (unsigned)threads + 1) != 0)
        return -1;
    int started = 0;
    for (; started < threads; started++) {
        w[started] = (worker){loop, seconds, 0, 0, &start};
        if (pthread_create(&tid[started], NULL, work, &w[started]) != 0)
            break;
    }
    if (started < threads) {
        /* the barrier cannot release: nothing is left to do but say so (the started threads
         * stay blocked until the process exits) */
        return -1;
    }
    pthread_barrier_wait(&start);
    double t0 = clock_s(CLOCK_MONOTONIC);
    for (int i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);
    double wall = clock_s(CLOCK_MONOTONIC) - t0;
    pthread_barrier_destroy(&start);
    double flops_per_iter = 2.0 * CHAINS * out->width, total = 0;
    for (int i = 0; i < threads; i++) {
        double f = w[i].iters * flops_per_iter;
        total += f;
        if (w[i].cpu > 0)
            out->gflops_cpu += f / w[i].cpu / 1e9;
    }
    out->gflops_wall = wall > 0 ? total / wall / 1e9 : 0;
    return 0;
}
