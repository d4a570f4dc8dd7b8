/* conv_bench.c - conv2d per layer of the samples: im2col + GEMM, oneDNN and the direct
 * kernels, one thread. */
/* Times are the process's CPU time (one thread runs everything): on a shared
 * machine it is much steadier than the wall clock, which counts the time
 * other processes hold the core. Three ways are timed: conv2d (NCHW) through im2col + GEMM,
 * conv2d (NCHW) through oneDNN (with its reorders of the input and output), and
 * conv2d_fused {data_format NHWC, relu} through oneDNN, what a model's conv chain runs after
 * the nhwc pass; "NHWCd" is the same op on the direct NHWC kernel (runtime/cpu/conv_nhwc.c; -1
 * where it declines). Each oneDNN rate is also given as a percentage of the one-thread float32
 * FMA peak measured at start-up (bench/peak_fma.c: the thread's flops per CPU second). */
#include "cpu/conv_direct.h"
#include "cpu/conv_nhwc.h"
#include "cpu/dnnl.h"
#include "ops.h"
#include "peak.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct layer {
    const char *name;
    int64_t c, h, w, oc, k, stride, pad;
    bool bias;
} layer;

/* The conv layers of samples/mnist_cnn.py and samples/resnet_small.py. */
static const layer LAYERS[] = {
    {"mnist conv1 1->6 5x5 p2", 1, 28, 28, 6, 5, 1, 2, true},
    {"mnist conv2 6->16 5x5", 6, 14, 14, 16, 5, 1, 0, true},
    {"lenet conv1 1->6 3x3 p1", 1, 28, 28, 6, 3, 1, 1, true},
    {"resnet stem 3->16 3x3", 3, 32, 32, 16, 3, 1, 1, false},
    {"resnet l1 16->16 3x3", 16, 32, 32, 16, 3, 1, 1, false},
    {"resnet l2a 16->32 3x3 s2", 16, 32, 32, 32, 3, 2, 1, false},
    {"resnet l2b 32->32 3x3", 32, 16, 16, 32, 3, 1, 1, false},
    {"resnet l2 short 16->32 1x1 s2", 16, 32, 32, 32, 1, 2, 0, false},
    {"resnet l3a 32->64 3x3 s2", 32, 16, 16, 64, 3, 2, 1, false},
    {"resnet l3b 64->64 3x3", 64, 8, 8, 64, 3, 1, 1, false},
    {"resnet l3 short 32->64 1x1 s2", 32, 16, 16, 64, 1, 2, 0, false},
};

/* Median CPU microseconds per conv2d op run (output allocation included), with the NHWC direct
 * kernel in mode nmode. */
static double time_op_n(d2_conv_nhwc_mode nmode, d2_conv_direct_mode dmode, d2_dnnl_mode mode,
                        d2_op_id op, d2_attrs *attrs, d2_tensor **in, int n_in)
{
    d2_err err = {0};
    d2_conv_nhwc_set_mode(nmode);
    d2_conv_direct_set_mode(dmode);
    d2_dnnl_set_mode(mode);
    d2_tensor *out = NULL;
    int reps = 0;
    double t0 = now();
    while (now() - t0 < 0.05 || reps < 3) {
        if (d2_op_run(NULL, op, attrs, in, n_in, &out, 1, &err) < 0) {
            fprintf(stderr, "conv_bench: %s\n", err.msg);
            exit(1);
        }
        d2_tensor_unref(out);
        reps++;
    }
    int per = (int)(reps * 0.03 / (now() - t0)) + 1;
    double t[7];
    for (int s = 0; s < 7; s++) {
        double a = now();
        for (int r = 0; r < per; r++) {
            d2_op_run(NULL, op, attrs, in, n_in, &out, 1, &err);
            d2_tensor_unref(out);
        }
        t[s] = (now() - a) / per * 1e6;
    }
    qsort(t, 7, sizeof t[0], cmp_double);
    return t[3];
}

/* time_op_n with the NHWC direct kernel off. */
static double time_op(d2_conv_direct_mode dmode, d2_dnnl_mode mode, d2_op_id op, d2_attrs *attrs,
                      d2_tensor **in, int n_in)
{
    return time_op_n(D2_CONV_NHWC_NEVER, dmode, mode, op, attrs, in, n_in);
}

static d2_tensor *filled(int ndim, const int64_t *shape)
{
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, D2_F32, ndim, shape, &err);
    float *p = d2_tensor_data(t);
    for (int64_t i = 0; i < d2_tensor_numel(t); i++)
        p[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    return t;
}

/* usage: conv_bench [BATCH...] (default 1 32); CONV_BENCH_ONLY=TEXT times only the layers
 * whose name contains TEXT. */
int main(int argc, char **argv)
{
    d2_err err = {0};
    if (d2_ops_init(&err) < 0)
        return 1;
    if (!d2_dnnl_available()) {
        fprintf(stderr, "conv_bench: built without oneDNN\n");
        return 1;
    }
    d2_peak pk;
    if (d2_peak_measure(1, 1.0, &pk) < 0 || pk.gflops_cpu <= 0) {
        fprintf(stderr, "conv_bench: cannot measure the FMA peak\n");
        return 1;
    }
    printf("measured float32 peak, 1 thread (%s, %d lanes): %.1f GFLOP/s per CPU second\n",
           pk.isa, pk.width, pk.gflops_cpu);
    int batches[8] = {1, 32}, nb = 2;
    if (argc > 1)
        for (nb = 0; nb + 1 < argc && nb < 8; nb++)
            batches[nb] = atoi(argv[nb + 1]);
    printf("%-32s %5s %9s %9s %9s %6s %8s %5s %9s %8s %5s %9s %8s %5s %9s %8s %5s\n", "layer",
           "batch", "MMAC", "im2col us", "oneDNN us", "ratio", "GFLOP/s", "%pk", "NHWC us",
           "GFLOP/s", "%pk", "direct us", "GFLOP/s", "%pk", "NHWCd us", "GFLOP/s", "%pk");
    for (int bi = 0; bi < nb; bi++)
        for (size_t i = 0; i < sizeof LAYERS / sizeof LAYERS[0]; i++) {
            const layer *l = &LAYERS[i];
            const char *only = getenv("CONV_BENCH_ONLY");
            if (only && !strstr(l->name, only))
                continue;
            int64_t xs[4] = {batches[bi], l->c, l->h, l->w}, ws[4] = {l->oc, l->c, l->k, l->k};
            int64_t bs[1] = {l->oc};
            d2_tensor *in[3] = {filled(4, xs), filled(4, ws), l->bias ? filled(1, bs) : NULL};
            char a[128];
            snprintf(a, sizeof a, "strides = [%lld, %lld], paddings = [%lld, %lld]",
                     (long long)l->stride, (long long)l->stride, (long long)l->pad,
                     (long long)l->pad);
            d2_attrs attrs, fattrs;
            if (d2_attrs_parse(d2_op_def(D2_OP_conv2d), a, &attrs, &err) < 0)
                return 1;
            char fa[192];
            snprintf(fa, sizeof fa, "%s, activation = \"relu\", data_format = \"NHWC\"", a);
            if (d2_attrs_parse(d2_op_def(D2_OP_conv2d_fused), fa, &fattrs, &err) < 0)
                return 1;
            int64_t xt[4] = {batches[bi], l->h, l->w, l->c};
            d2_tensor *fin[3] = {filled(4, xt), in[1], in[2]};
            int64_t o = (l->h + 2 * l->pad - l->k) / l->stride + 1;
            double macs = (double)batches[bi] * (double)l->oc * (double)(o * o) *
                          (double)(l->c * l->k * l->k);
            int n_in = l->bias ? 3 : 2;
            double ti = time_op(D2_CONV_DIRECT_NEVER, D2_DNNL_NEVER, D2_OP_conv2d, &attrs, in, n_in);
            double td = time_op(D2_CONV_DIRECT_NEVER, D2_DNNL_ALWAYS, D2_OP_conv2d, &attrs, in, n_in);
            /* the weights constant, as a loaded model's are (oneDNN and the NHWC kernel then keep
             * their reordered or packed copies) */
            d2_tensor_set_const(in[1]);
            double tn = time_op(D2_CONV_DIRECT_NEVER, D2_DNNL_ALWAYS, D2_OP_conv2d_fused, &fattrs,
                                fin, n_in);
            double tnd = -1, gnd = 0;
            long runs0 = d2_conv_nhwc_runs();
            double tt = time_op_n(D2_CONV_NHWC_ALWAYS, D2_CONV_DIRECT_NEVER, D2_DNNL_AUTO,
                                  D2_OP_conv2d_fused, &fattrs, fin, n_in);
            if (d2_conv_nhwc_runs() != runs0) { /* taken (16k output channels) */
                tnd = tt;
                gnd = 2 * macs / tnd / 1e3;
            }
            double tc = -1, gc = 0;
            if (d2_conv_direct_available() && l->stride == 1) {
                tc = time_op(D2_CONV_DIRECT_ALWAYS, D2_DNNL_NEVER, D2_OP_conv2d, &attrs, in, n_in);
                gc = 2 * macs / tc / 1e3;
            }
            double gd = 2 * macs / td / 1e3, gn = 2 * macs / tn / 1e3;
            printf("%-32s %5d %9.3f %9.1f %9.1f %6.2f %8.1f %5.0f %9.1f %8.1f %5.0f %9.1f %8.1f "
                   "%5.0f %9.1f %8.1f %5.0f\n",
                   l->name, batches[bi], macs / 1e6, ti, td, ti / td, gd, 100 * gd / pk.gflops_cpu,
                   tn, gn, 100 * gn / pk.gflops_cpu, tc, gc, 100 * gc / pk.gflops_cpu, tnd, gnd,
                   100 * gnd / pk.gflops_cpu);
            d2_attrs_free(&attrs);
            d2_attrs_free(&fattrs);
            d2_tensor_unref(fin[0]);
            for (int j = 0; j < 3; j++)
                d2_tensor_unref(in[j]);
        }
    return 0;
}
