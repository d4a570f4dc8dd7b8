/* kernel_ab.c - a saved model's latency with the direct NHWC convolution kernel off and on
 * (runtime/cpu/conv_nhwc.c), alternating within one process.
 *
 *   bench/kernel_ab MODEL INPUT.npy [RUNS [ROUNDS]]
 *
 * Each round times RUNS runs (after 3 warm-up runs) with the kernel off (DY2ST_CONV_NHWC=never)
 * and RUNS with it in its automatic choice, in an order that alternates from round to round,
 * and keeps the median of each. It prints the medians over the rounds and the median, first
 * and third quartile of the per-round ratio off / on (above 1: the kernel is faster). Pairing
 * within a round cancels the slow spells of a shared host that last seconds; the threads are
 * DY2ST_NUM_THREADS's. */
#include <dy2st/dy2st.h>

#include "cpu/conv_nhwc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median wall time of runs model runs in microseconds; negative on failure. */
static double median_runs(dy2st_model *m, dy2st_tensor *in, int runs, double *t)
{
    dy2st_status st = {0};
    dy2st_tensor *out = NULL;
    for (int i = -3; i < runs; i++) {
        double a = now();
        if (dy2st_model_run(m, &in, 1, &out, 1, &st) != 0) {
            fprintf(stderr, "kernel_ab: %s\n", dy2st_status_message(&st));
            return -1;
        }
        if (i >= 0)
            t[i] = (now() - a) * 1e6;
        dy2st_tensor_free(out);
        out = NULL;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    return t[runs / 2];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: kernel_ab MODEL INPUT.npy [RUNS [ROUNDS]]\n");
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 51, rounds = argc > 4 ? atoi(argv[4]) : 40;
    if (runs < 1 || runs > 100000 || rounds < 1 || rounds > 10000) {
        fprintf(stderr, "kernel_ab: RUNS from 1 to 100000, ROUNDS from 1 to 10000\n");
        return 2;
    }
    dy2st_status st = {0};
    dy2st_model *m = dy2st_model_load(argv[1], "cpu", &st);
    if (!m) {
        fprintf(stderr, "kernel_ab: %s\n", dy2st_status_message(&st));
        return 1;
    }
    dy2st_tensor *in = dy2st_tensor_load_npy(argv[2], &st);
    double *t = malloc((size_t)runs * sizeof *t), *off = malloc((size_t)rounds * sizeof *off);
    double *on = malloc((size_t)rounds * sizeof *on), *ratio = malloc((size_t)rounds * sizeof *ratio);
    int rc = 1;
    if (!in || dy2st_model_num_inputs(m) != 1 || !t || !off || !on || !ratio) {
        fprintf(stderr, "kernel_ab: %s\n",
                !in ? dy2st_status_message(&st) : t && off && on && ratio
                                                       ? "the model must have one input"
                                                       : "out of memory");
        goto done;
    }
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            bool use = (r + k) % 2 == 1;
            d2_conv_nhwc_set_mode(use ? D2_CONV_NHWC_AUTO : D2_CONV_NHWC_NEVER);
            double med = median_runs(m, in, runs, t);
            if (med < 0)
                goto done;
            (use ? on : off)[r] = med;
        }
    for (int r = 0; r < rounds; r++)
        ratio[r] = off[r] / on[r];
    qsort(off, (size_t)rounds, sizeof *off, cmp_double);
    qsort(on, (size_t)rounds, sizeof *on, cmp_double);
    qsort(ratio, (size_t)rounds, sizeof *ratio, cmp_double);
    printf("%s: kernel off %.1f us, on %.1f us (medians of %d rounds of %d runs); off / on per "
           "round: median %.3f, quartiles %.3f %.3f\n",
           argv[1], off[rounds / 2], on[rounds / 2], rounds, runs, ratio[rounds / 2],
           ratio[rounds / 4], ratio[3 * rounds / 4]);
    rc = 0;
done:
    free(t);
    free(off);
    free(on);
    free(ratio);
    dy2st_tensor_free(in);
    dy2st_model_free(m);
    return rc;
}
