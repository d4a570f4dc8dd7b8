/* peak.h - the measured float32 FMA peak of this CPU, for benches that report a fraction of it. */
#ifndef DY2ST_BENCH_PEAK_H
#define DY2ST_BENCH_PEAK_H

/* One measurement of the FMA-throughput loop (bench/peak_fma.c) on `threads` threads at once. */
typedef struct d2_peak {
    const char *isa; /* "avx512f", "avx2+fma" or "scalar" */
    int width;       /* float32 lanes per vector */
    int threads;
    double gflops_cpu;  /* flops / CPU seconds, summed over threads: the peak while on a core */
    double gflops_wall; /* flops / wall seconds: what the threads got on this (busy?) machine */
} d2_peak;

/* Runs the loop for about `seconds` of wall time on `threads` threads (1..64) with the widest
 * vectors this CPU has; 0, or -1 when a thread could not be started. */
int d2_peak_measure(int threads, double seconds, d2_peak *out);

#endif
