/* loop_bench.c - the executor's cost per while_loop trip, on a counting loop of four scalar
 * ops per trip (less_than in the condition; add, cast, add in the body). */
#include "exec.h"
#include "passes/passes.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char PROGRAM[] =
    "block ^0 (n : int64[]) {\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  s0 : float32[] = full(_) {shape = [], value = 0, dtype = float32}\n"
    "  one : int64[] = full(_) {shape = [], value = 1, dtype = int64}\n"
    "  iN : int64[], sN : float32[] = while_loop(i0, s0) {cond = ^1, body = ^2}\n"
    "  return iN, sN\n"
    "}\n"
    "block ^1 parent ^0 (ci : int64[], cs : float32[]) {\n"
    "  more : bool[] = less_than(ci, n)\n"
    "  yield more\n"
    "}\n"
    "block ^2 parent ^0 (bi : int64[], bs : float32[]) {\n"
    "  bi1 : int64[] = add(bi, one)\n"
    "  t : float32[] = cast(bi1) {dtype = float32}\n"
    "  bs1 : float32[] = add(bs, t)\n"
    "  yield bi1, bs1\n"
    "}\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs the loop with n trips; the final count must be n. */
static int run(d2_prepared *pp, int64_t n, d2_err *err)
{
    d2_tensor *in = d2_tensor_scalar_i64(n, err), *out[2] = {NULL, NULL};
    if (!in)
        return -1;
    int rc = d2_exec_run(pp, &in, 1, out, 2, err);
    if (rc == 0 && *(const int64_t *)d2_tensor_data(out[0]) != n)
        rc = d2_err_set(err, D2_ERR_RUNTIME, "the loop ran %lld trips, not %lld",
                        (long long)*(const int64_t *)d2_tensor_data(out[0]), (long long)n);
    d2_tensor_unref(in);
    d2_tensor_unref(out[0]);
    d2_tensor_unref(out[1]);
    return rc;
}

/* usage: loop_bench [TRIPS [SAMPLES [off|on]]]: median wall and CPU microseconds per trip over
 * SAMPLES runs of TRIPS trips (default 100000, 7), less a run of 0 trips; with the passes off
 * and on, or only as the third argument says (for instruction counts of one mode). */
int main(int argc, char **argv)
{
    int64_t trips = argc > 1 ? atoll(argv[1]) : 100000;
    int samples = argc > 2 ? atoi(argv[2]) : 7;
    int first = 0, last = 1;
    if (argc > 3 && strcmp(argv[3], "off") == 0)
        last = 0;
    else if (argc > 3 && strcmp(argv[3], "on") == 0)
        first = 1;
    else if (argc > 3)
        trips = 0;
    if (trips < 1 || samples < 1 || samples > 101) {
        fprintf(stderr, "usage: loop_bench [TRIPS [SAMPLES [off|on]]]\n");
        return 2;
    }
    d2_err err = {0};
    if (d2_ops_init(&err) < 0) {
        fprintf(stderr, "loop_bench: %s\n", err.msg);
        return 1;
    }
    d2_program *p = d2_program_parse(PROGRAM, "<loop_bench>", &err);
    if (!p) {
        fprintf(stderr, "loop_bench: %s\n", err.msg);
        return 1;
    }
    for (int passes = first; passes <= last; passes++) {
        d2_prepared *pp = passes ? d2_passes_prepare(p, d2_passes_level(D2_PASS_INFERENCE), NULL,
                                                     &err)
                                 : d2_exec_prepare(p, NULL, &err);
        if (!pp || run(pp, trips, &err) < 0) {
            fprintf(stderr, "loop_bench: %s\n", err.msg);
            return 1;
        }
        double wall[101], cpu[101];
        for (int s = 0; s < samples; s++) {
            double w0 = now(), c0 = cpu_now();
            if (run(pp, 0, &err) < 0)
                return 1;
            double w1 = now(), c1 = cpu_now();
            if (run(pp, trips, &err) < 0) {
                fprintf(stderr, "loop_bench: %s\n", err.msg);
                return 1;
            }
            double w2 = now(), c2 = cpu_now();
            wall[s] = ((w2 - w1) - (w1 - w0)) / (double)trips * 1e6;
            cpu[s] = ((c2 - c1) - (c1 - c0)) / (double)trips * 1e6;
        }
        qsort(wall, (size_t)samples, sizeof wall[0], cmp_double);
        qsort(cpu, (size_t)samples, sizeof cpu[0], cmp_double);
        printf("while_loop, 4 scalar ops per trip, passes %s: %.3f us/trip wall, %.3f us/trip "
               "cpu (medians of %d runs of %lld trips)\n",
               passes ? "on" : "off", wall[samples / 2], cpu[samples / 2], samples,
               (long long)trips);
        d2_exec_free(pp);
    }
    d2_program_free(p);
    return 0;
}
