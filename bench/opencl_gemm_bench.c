/* opencl_gemm_bench.c - GFLOP/s of the OpenCL backend's GEMM kernels (tiled local-memory and
 * simple) through the matmul op, with the CPU backend's matmul at the same sizes for reference.
 *
 *   opencl_gemm_bench [-d opencl:N] [-r REPS] [-s SIZE]...
 *
 * Each size is a float32 SIZE x SIZE x SIZE product (2 * SIZE^3 flops). A sample is one matmul
 * op run on the device (inputs already there) up to clFinish; the best of REPS samples is kept,
 * each sample repeating the op until it has run for at least 50 ms. Every result is checked
 * against the CPU backend (|d| <= 1e-3 * (1 + |c|)) before it is timed. Prints a Markdown table.
 */
#include "backend.h"
#include "opencl/opencl.h"
#include "ops.h"
#include "tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int usage(const char *self)
{
    fprintf(stderr, "usage: %s [-d opencl[:N]] [-r REPS] [-s SIZE]...\n", self);
    return 2;
}

/* One matmul of a and b on be into *out (replaced); -1 with err set. */
static int matmul(d2_backend *be, d2_tensor *a, d2_tensor *b, d2_tensor **out, d2_err *err)
{
    d2_tensor *in[2] = {a, b}, *o = NULL;
    if (d2_op_run(be, D2_OP_matmul, NULL, in, 2, &o, 1, err) < 0)
        return -1;
    d2_tensor_unref(*out);
    *out = o;
    return 0;
}

/* Best seconds per matmul over reps samples; -1 on error. */
static double time_matmul(d2_backend *be, d2_tensor *a, d2_tensor *b, int reps, d2_err *err)
{
    d2_tensor *o = NULL;
    double best = -1;
    if (matmul(be, a, b, &o, err) < 0) /* warm-up: builds the kernels */
        return -1;
    for (int r = 0; r < reps; r++) {
        int n = 0;
        double t0 = now(), t;
        do {
            if (matmul(be, a, b, &o, err) < 0 || be->sync(be, err) < 0) {
                d2_tensor_unref(o);
                return -1;
            }
            n++;
            t = now() - t0;
        } while (t < 0.05);
        if (best < 0 || t / n < best)
            best = t / n;
    }
    d2_tensor_unref(o);
    return best;
}

/* Largest |got - want| relative to 1 + |want|. */
static double max_rel_diff(const d2_tensor *got, const d2_tensor *want)
{
    const float *g = d2_tensor_data(got), *w = d2_tensor_data(want);
    double worst = 0;
    for (int64_t i = 0; i < d2_tensor_numel(want); i++) {
        double d = fabs((double)g[i] - (double)w[i]) / (1 + fabs((double)w[i]));
        if (!(d <= worst))
            worst = d;
    }
    return worst;
}

int main(int argc, char **argv)
{
    const char *device = "opencl";
    int reps = 5, n_sizes = 0;
    int64_t sizes[32];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
            device = argv[++i];
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc && n_sizes < 32)
            sizes[n_sizes++] = atoll(argv[++i]);
        else
            return usage(argv[0]);
    }
    if (reps < 1)
        return usage(argv[0]);
    if (n_sizes == 0) {
        static const int64_t def[] = {64, 128, 256, 512, 1024};
        for (size_t i = 0; i < sizeof def / sizeof def[0]; i++)
            sizes[n_sizes++] = def[i];
    }
    d2_err err = {0};
    if (d2_ops_init(&err) < 0) {
        fprintf(stderr, "opencl_gemm_bench: %s\n", err.msg);
        return 1;
    }
    d2_backend *be = d2_backend_from_name(device, &err);
    if (!be || be->kind != D2_BACKEND_OPENCL) {
        fprintf(stderr, "opencl_gemm_bench: %s\n",
                be ? "the device must be an OpenCL one (opencl or opencl:N)" : err.msg);
        return 1;
    }
    printf("| size (M=N=K) | tiled local-memory kernel | simple kernel | CPU backend (BLIS) |\n");
    printf("|---:|---:|---:|---:|\n");
    int rc = 0;
    for (int s = 0; s < n_sizes && rc == 0; s++) {
        int64_t n = sizes[s], shape[2] = {n, n};
        d2_tensor *ha = d2_tensor_new(NULL, D2_F32, 2, shape, &err);
        d2_tensor *hb = d2_tensor_new(NULL, D2_F32, 2, shape, &err);
        if (!ha || !hb) {
            fprintf(stderr, "opencl_gemm_bench: %s\n", err.msg);
            d2_tensor_unref(ha);
            d2_tensor_unref(hb);
            return 1;
        }
        float *pa = d2_tensor_data(ha), *pb = d2_tensor_data(hb);
        for (int64_t i = 0; i < n * n; i++) {
            pa[i] = (float)((i * 7919 % 2001) - 1000) / 1000.0f;
            pb[i] = (float)((i * 104729 % 1999) - 999) / 999.0f;
        }
        d2_tensor *da = d2_tensor_copy_to(ha, be, &err), *db = NULL, *ref = NULL;
        if (da)
            db = d2_tensor_copy_to(hb, be, &err);
        double gf[3] = {0, 0, 0};
        if (!db || matmul(NULL, ha, hb, &ref, &err) < 0) {
            rc = 1;
        } else {
            double flops = 2.0 * (double)n * (double)n * (double)n;
            for (int mode = 1; mode >= 0 && rc == 0; mode--) {
                d2_opencl_set_gemm_tiled(be, mode);
                d2_tensor *o = NULL, *h = NULL;
                if (matmul(be, da, db, &o, &err) < 0 || !(h = d2_tensor_copy_to(o, NULL, &err))) {
                    rc = 1;
                } else if (max_rel_diff(h, ref) > 1e-3) {
                    snprintf(err.msg, sizeof err.msg, "%s kernel: wrong result at size %lld",
                             mode ? "tiled" : "simple", (long long)n);
                    rc = 1;
                } else {
                    double t = time_matmul(be, da, db, reps, &err);
                    if (t < 0)
                        rc = 1;
                    else
                        gf[mode ? 0 : 1] = flops / t * 1e-9;
                }
                d2_tensor_unref(o);
                d2_tensor_unref(h);
            }
            d2_opencl_set_gemm_tiled(be, -1);
            double t = rc == 0 ? time_matmul(d2_cpu_backend(), ha, hb, reps, &err) : -1;
            if (rc == 0 && t < 0)
                rc = 1;
            if (t > 0)
                gf[2] = flops / t * 1e-9;
        }
        if (rc == 0)
            printf("| %lld | %.1f GFLOP/s | %.1f GFLOP/s | %.1f GFLOP/s |\n", (long long)n, gf[0],
                   gf[1], gf[2]);
        else
            fprintf(stderr, "opencl_gemm_bench: size %lld: %s\n", (long long)n, err.msg);
        fflush(stdout);
        d2_tensor_unref(ha);
        d2_tensor_unref(hb);
        d2_tensor_unref(da);
        d2_tensor_unref(db);
        d2_tensor_unref(ref);
    }
    return rc;
}
