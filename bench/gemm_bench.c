/* gemm_bench.c - GFLOP/s of dy2st's matmul op against raw BLIS with each kernel set of this CPU. */
#include "cpu/gemm.h"
#include "ops.h"

/* blis.h is not written for -Wall -Wextra; its warnings are not ours. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wtype-limits"
#include <blis.h>
#pragma GCC diagnostic pop

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *name;
    d2_dtype dt;
    int64_t batch, m, n, k; /* batch 0: a plain 2-D product */
} shape;

static const shape shapes[] = {
    {"1024^3", D2_F32, 0, 1024, 1024, 1024},
    {"256^3", D2_F32, 0, 256, 256, 256},
    {"64^3", D2_F32, 0, 64, 64, 64},
    {"4096x1024x1024", D2_F32, 0, 4096, 1024, 1024},
    {"batch 256 x 64^3", D2_F32, 256, 64, 64, 64},
    {"batch 64 x 32x128x32", D2_F32, 64, 32, 128, 32},
    {"f64 1024^3", D2_F64, 0, 1024, 1024, 1024},
};

static int reps = 7;
static double min_sample_s = 0.05;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One measured configuration: fn(ctx, cfg) runs the whole product once. */
typedef int (*run_fn)(void *ctx, int cfg);

/* Median seconds per call of each of n_cfg configurations into t[]. After a
 * warm-up of each, samples are taken round-robin (config 0, 1, ..., 0, 1,
 * ...) so that load changing over time hits every configuration alike; each
 * sample repeats the call enough times to last min_sample_s. -1 on failure. */
static int time_medians(run_fn fn, void *ctx, int n_cfg, double *t)
{
    enum { MAX_CFG = 16, MAX_REPS = 64 };
    int inner[MAX_CFG], n = reps < MAX_REPS ? reps : MAX_REPS;
    static double samples[MAX_CFG][MAX_REPS];
    for (int c = 0; c < n_cfg; c++) {
        if (fn(ctx, c) < 0) /* warm-up: page faults, BLIS pools, caches */
            return -1;
        double t0 = now();
        if (fn(ctx, c) < 0)
            return -1;
        double once = now() - t0;
        inner[c] = once > 0 ? (int)(min_sample_s / once) + 1 : 1000;
        if (inner[c] > 100000)
            inner[c] = 100000;
    }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n_cfg; c++) {
            double s = now();
            for (int i = 0; i < inner[c]; i++)
                if (fn(ctx, c) < 0)
                    return -1;
            samples[c][r] = (now() - s) / inner[c];
        }
    for (int c = 0; c < n_cfg; c++) {
        qsort(samples[c], (size_t)n, sizeof samples[c][0], cmp_double);
        t[c] = n % 2 ? samples[c][n / 2] : 0.5 * (samples[c][n / 2 - 1] + samples[c][n / 2]);
    }
    return 0;
}

typedef struct {
    const shape *s;
    void *a, *b, *c;
    d2_tensor *x, *y;
    cntx_t *cntx[D2_GEMM_NUM_ARCHS + 1]; /* [0] NULL: BLIS default; [1..] kernel sets */
    int threads;
} bench_ctx;

/* dy2st: the matmul op, eager, including its output allocation. */
static int run_dy2st(bench_ctx *b)
{
    d2_err err = {0};
    d2_tensor *in[2] = {b->x, b->y}, *out = NULL;
    if (d2_op_run(NULL, D2_OP_matmul, NULL, in, 2, &out, 1, &err) < 0) {
        fprintf(stderr, "matmul failed: %s\n", err.msg);
        return -1;
    }
    d2_tensor_unref(out);
    return 0;
}

/* Raw BLIS: bli_?gemm_ex with a given context (NULL: BLIS's default, auto-
 * detected one), one call per batch item. */
static int run_blis(bench_ctx *b, cntx_t *cntx)
{
    const shape *s = b->s;
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(b->threads, &rntm);
    int64_t nb = s->batch ? s->batch : 1;
    for (int64_t i = 0; i < nb; i++) {
        if (s->dt == D2_F32) {
            float one = 1, zero = 0;
            bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, s->m, s->n, s->k, &one,
                         (float *)b->a + i * s->m * s->k, s->k, 1, (float *)b->b + i * s->k * s->n,
                         s->n, 1, &zero, (float *)b->c + i * s->m * s->n, s->n, 1, cntx, &rntm);
        } else {
            double one = 1, zero = 0;
            bli_dgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, s->m, s->n, s->k, &one,
                         (double *)b->a + i * s->m * s->k, s->k, 1,
                         (double *)b->b + i * s->k * s->n, s->n, 1, &zero,
                         (double *)b->c + i * s->m * s->n, s->n, 1, cntx, &rntm);
        }
    }
    return 0;
}

/* Configuration 0 is dy2st, 1 BLIS's default context, 2.. each kernel set. */
static int run_cfg(void *p, int cfg)
{
    bench_ctx *b = p;
    return cfg == 0 ? run_dy2st(b) : run_blis(b, b->cntx[cfg - 1]);
}

/* The "model name" line of /proc/cpuinfo, or "unknown". */
static void cpu_model(char *out, size_t n)
{
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *v = strchr(line, ':');
            if (v) {
                v += strspn(v + 1, " ") + 1;
                v[strcspn(v, "\n")] = '\0';
                snprintf(out, n, "%s", v);
            }
            break;
        }
    }
    fclose(f);
}

static void usage(void)
{
    fprintf(stderr, "usage: gemm_bench [-r REPS] [-t THREADS,...] [-s SHAPE_SUBSTRING]\n"
                    "  REPS: samples per median (default 7); THREADS default 1,2\n");
}

int main(int argc, char **argv)
{
    int threads[8] = {1, 2}, n_threads = 2;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1)
                reps = 1;
        } else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            n_threads = 0;
            for (char *p = argv[++i]; *p && n_threads < 8;) {
                int v = (int)strtol(p, &p, 10);
                if (v > 0)
                    threads[n_threads++] = v;
                while (*p == ',')
                    p++;
            }
        } else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else {
            usage();
            return 2;
        }
    }
    d2_err err = {0};
    if (d2_ops_init(&err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    char model[256];
    cpu_model(model, sizeof model);
    bli_init_once();
    printf("CPU: %s\n", model);
    printf("BLIS %s; its own detection picked: %s\n", bli_info_get_version_str(),
           bli_arch_string(bli_arch_query_id()));
    printf("dy2st kernel set: %s (%s)\n", d2_gemm_arch_name(), d2_gemm_arch_reason());
    printf("median of %d samples after a warm-up; GFLOP/s = 2*batch*m*n*k / time\n\n", reps);

    /* columns: dy2st, BLIS default, then each kernel set this CPU can run */
    d2_gemm_arch cols[D2_GEMM_NUM_ARCHS];
    int n_cols = 0;
    for (int a = 1; a < D2_GEMM_NUM_ARCHS; a++)
        if (d2_gemm_blis_cntx((d2_gemm_arch)a))
            cols[n_cols++] = (d2_gemm_arch)a;
    printf("%-22s %3s %8s %9s", "shape", "thr", "dy2st", "blis-dflt");
    for (int c = 0; c < n_cols; c++)
        printf(" %8s", d2_gemm_arch_str(cols[c]));
    printf(" %11s\n", "dy2st/best");

    int rc = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *s = &shapes[si];
        if (only && !strstr(s->name, only))
            continue;
        int64_t nb = s->batch ? s->batch : 1;
        int64_t xs[3] = {nb, s->m, s->k}, ys[3] = {nb, s->k, s->n};
        int nd = s->batch ? 3 : 2;
        bench_ctx b = {s, NULL, NULL, NULL, NULL, NULL, {NULL}, 1};
        for (int c = 0; c < n_cols; c++)
            b.cntx[c + 1] = d2_gemm_blis_cntx(cols[c]);
        b.x = d2_tensor_new(NULL, s->dt, nd, s->batch ? xs : xs + 1, &err);
        b.y = d2_tensor_new(NULL, s->dt, nd, s->batch ? ys : ys + 1, &err);
        size_t es = d2_dtype_size(s->dt);
        b.c = malloc((size_t)(nb * s->m * s->n) * es);
        if (!b.x || !b.y || !b.c) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        b.a = d2_tensor_data(b.x);
        b.b = d2_tensor_data(b.y);
        int64_t na = nb * s->m * s->k, nbb = nb * s->k * s->n;
        for (int64_t i = 0; i < na; i++) {
            double v = (double)((i * 7) % 13) / 13.0 - 0.5;
            if (s->dt == D2_F32)
                ((float *)b.a)[i] = (float)v;
            else
                ((double *)b.a)[i] = v;
        }
        for (int64_t i = 0; i < nbb; i++) {
            double v = (double)((i * 5) % 11) / 11.0 - 0.5;
            if (s->dt == D2_F32)
                ((float *)b.b)[i] = (float)v;
            else
                ((double *)b.b)[i] = v;
        }
        double flops = 2.0 * (double)nb * (double)s->m * (double)s->n * (double)s->k;
        for (int ti = 0; ti < n_threads; ti++) {
            b.threads = threads[ti];
            d2_gemm_set_threads(threads[ti]);
            double t[D2_GEMM_NUM_ARCHS + 2], g[D2_GEMM_NUM_ARCHS + 2], best = 0;
            if (time_medians(run_cfg, &b, n_cols + 2, t) < 0) {
                rc = 1;
                continue;
            }
            for (int c = 0; c < n_cols + 2; c++) {
                g[c] = flops / t[c] * 1e-9;
                if (c > 0 && g[c] > best)
                    best = g[c];
            }
            printf("%-22s %3d", s->name, threads[ti]);
            printf(" %8.1f %9.1f", g[0], g[1]);
            for (int c = 0; c < n_cols; c++)
                printf(" %8.1f", g[c + 2]);
            printf(" %10.0f%%\n", 100.0 * g[0] / best);
            fflush(stdout);
        }
        /* sanity: dy2st's result equals BLIS's (last run left BLIS's in b.c) */
        d2_tensor *in[2] = {b.x, b.y}, *out = NULL;
        if (d2_op_run(NULL, D2_OP_matmul, NULL, in, 2, &out, 1, &err) == 0) {
            double maxdiff = 0;
            for (int64_t i = 0; i < nb * s->m * s->n; i++) {
                double u = s->dt == D2_F32 ? ((float *)d2_tensor_data(out))[i]
                                           : ((double *)d2_tensor_data(out))[i];
                double v = s->dt == D2_F32 ? ((float *)b.c)[i] : ((double *)b.c)[i];
                if (fabs(u - v) > maxdiff)
                    maxdiff = fabs(u - v);
            }
            if (maxdiff > 1e-2) {
                fprintf(stderr, "%s: dy2st and BLIS differ by %g\n", s->name, maxdiff);
                rc = 1;
            }
            d2_tensor_unref(out);
        } else {
            rc = 1;
        }
        d2_tensor_unref(b.x);
        d2_tensor_unref(b.y);
        free(b.c);
    }
    d2_gemm_set_threads(0);
    return rc;
}
