/* test_conv_direct.c - the direct small-channel convolution against im2col + GEMM: odd
 * shapes, padding, strides, dilations, tails of channels, rows and columns, the fused bias,
 * residual and relu, and threads; and the vectorised 2x2 max pooling that follows such layers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/conv_direct.h"
#include "cpu/dnnl.h"
#include "cpu/gemm.h"
#include "ops.h"
#include "../testutil.h"

static int setup(void **state)
{
    (void)state;
    d2_err err = {0};
    return d2_ops_init(&err);
}

static int teardown(void **state)
{
    (void)state;
    d2_dnnl_set_mode(D2_DNNL_AUTO);
    d2_conv_direct_set_mode(D2_CONV_DIRECT_AUTO);
    d2_gemm_set_threads(0);
    return 0;
}

typedef struct conv_case {
    int64_t n, c, h, w, oc, kh, kw;
    const char *attrs;
    bool bias, res, relu;
} conv_case;

static const conv_case CASES[] = {
    /* the conv layers of samples/mnist_cnn.py and samples/lenet_branch.py, as the passes
     * leave them (conv2d_fused with relu) */
    {32, 1, 28, 28, 6, 5, 5, "paddings = [2, 2]", true, false, true},
    {32, 6, 14, 14, 16, 5, 5, "", true, false, true},
    {32, 1, 28, 28, 6, 3, 3, "paddings = [1, 1]", true, false, true},
    {1, 1, 28, 28, 6, 5, 5, "paddings = [2, 2]", true, false, true},
    {1, 6, 14, 14, 16, 5, 5, "", true, false, false},
    /* resnet_small's stem */
    {2, 3, 32, 32, 16, 3, 3, "paddings = [1, 1]", false, true, true},
    /* tails: widths past 16, 32, 48 and 64 lanes, channel and row counts no tile divides */
    {1, 2, 7, 17, 5, 3, 3, "paddings = [1, 1]", true, false, false},
    {3, 3, 9, 33, 7, 3, 3, "paddings = [1, 1]", true, true, false},
    {2, 1, 5, 50, 9, 2, 3, "paddings = [0, 1]", false, false, true},
    {1, 4, 11, 70, 3, 3, 1, "", true, true, true},
    {1, 8, 3, 100, 13, 1, 5, "paddings = [1, 2]", true, false, false},
    {2, 5, 6, 1, 11, 3, 1, "paddings = [1, 0]", true, false, true},
    /* strides along the height, dilations, asymmetric and SAME/VALID padding */
    {2, 3, 17, 19, 5, 3, 3, "strides = [2, 1], paddings = [1, 1]", true, false, false},
    {1, 7, 20, 9, 11, 5, 3, "strides = [3, 1], paddings = [0, 1, 2, 1], dilations = [1, 2]",
     false, true, false},
    {2, 2, 12, 12, 6, 3, 3, "paddings = [2, 2], dilations = [2, 2]", true, false, true},
    {1, 5, 10, 10, 7, 4, 4, "padding_algorithm = \"SAME\"", true, false, false},
    {2, 6, 11, 8, 3, 3, 3, "padding_algorithm = \"VALID\"", true, false, true},
    {1, 3, 4, 4, 2, 5, 5, "paddings = [3, 3]", true, true, true},
    {1, 2, 1, 1, 3, 1, 1, "", true, false, false},
    /* channel tiles with kernel widths 3 and 5 (the unrolled kernels), two channel blocks */
    {2, 4, 12, 12, 16, 3, 3, "paddings = [1, 1]", true, true, true},
    {1, 3, 9, 9, 32, 5, 5, "strides = [2, 1], paddings = [0, 2]", true, false, true},
    {3, 2, 8, 7, 24, 5, 5, "paddings = [2, 2]", false, true, false},
    /* channel tiles on images smaller than the columns a tile reads past a row's end,
     * unpadded (read in place): an overflow here shows under AddressSanitizer */
    {2, 1, 2, 3, 16, 1, 1, "", true, false, false},
    {3, 2, 2, 3, 16, 2, 2, "", true, true, true},
    /* batch 1 and more input channels than the automatic choice takes */
    {1, 16, 9, 9, 8, 3, 3, "paddings = [1, 1]", true, false, true},
};

/* Runs conv2d_fused {activation} on in (x, weight, bias or NULL, residual or NULL) with the
 * direct kernel in mode dm and oneDNN off; returns the output (new reference). */
static d2_tensor *run_conv(d2_conv_direct_mode dm, const conv_case *cs, d2_tensor **in)
{
    d2_err err = {0};
    d2_attrs attrs;
    char a[256];
    snprintf(a, sizeof a, "%s%sactivation = \"%s\"", cs->attrs, cs->attrs[0] ? ", " : "",
             cs->relu ? "relu" : "");
    assert_int_equal(d2_attrs_parse(d2_op_def(D2_OP_conv2d_fused), a, &attrs, &err), 0);
    d2_dnnl_set_mode(D2_DNNL_NEVER);
    d2_conv_direct_set_mode(dm);
    d2_tensor *out = NULL;
    int n_in = cs->res ? 4 : cs->bias ? 3 : 2;
    int rc = d2_op_run(NULL, D2_OP_conv2d_fused, &attrs, in, n_in, &out, 1, &err);
    if (rc != 0)
        fail_msg("conv2d_fused {%s} failed: %s", a, err.msg);
    d2_attrs_free(&attrs);
    return out;
}

/* Infers the result shape of the case's convolution, so that the residual can be made. */
static void out_shape(const conv_case *cs, d2_tensor **in, int64_t *shape)
{
    d2_tensor *o = run_conv(D2_CONV_DIRECT_NEVER, cs, in);
    memcpy(shape, o->shape, 4 * sizeof *shape);
    d2_tensor_unref(o);
}

/* Compares the direct kernel with im2col + GEMM on one case; expect_direct: the case must
 * run on the direct kernel (with ALWAYS), so that the comparison tests it. */
static void check_case(const conv_case *cs, unsigned seed, bool expect_direct)
{
    int64_t xs[4] = {cs->n, cs->c, cs->h, cs->w}, ws[4] = {cs->oc, cs->c, cs->kh, cs->kw};
    int64_t bs[1] = {cs->oc};
    d2_tensor *in[4] = {tu_filled_f32(4, xs, seed), tu_filled_f32(4, ws, seed + 1),
                        cs->bias ? tu_filled_f32(1, bs, seed + 2) : NULL, NULL};
    if (cs->res) {
        int64_t os[4];
        out_shape(cs, in, os);
        in[3] = tu_filled_f32(4, os, seed + 3);
    }
    d2_tensor *ref = run_conv(D2_CONV_DIRECT_NEVER, cs, in);
    long before = d2_conv_direct_runs();
    d2_tensor *got = run_conv(D2_CONV_DIRECT_ALWAYS, cs, in);
    if (expect_direct && d2_conv_direct_available())
        assert_int_equal(d2_conv_direct_runs(), before + 1);
    assert_int_equal(got->ndim, 4);
    for (int d = 0; d < 4; d++)
        assert_int_equal(got->shape[d], ref->shape[d]);
    double diff = tu_max_rel_diff(got, ref);
    if (diff > 1e-5)
        fail_msg("conv2d_fused x[%lld,%lld,%lld,%lld] w[%lld,%lld,%lld,%lld] {%s} bias %d res %d "
                 "relu %d: differs by %g",
                 (long long)xs[0], (long long)xs[1], (long long)xs[2], (long long)xs[3],
                 (long long)ws[0], (long long)ws[1], (long long)ws[2], (long long)ws[3],
                 cs->attrs, cs->bias, cs->res, cs->relu, diff);
    d2_tensor_unref(got);
    d2_tensor_unref(ref);
    for (int i = 0; i < 4; i++)
        d2_tensor_unref(in[i]);
}

static void test_matches_reference(void **state)
{
    (void)state;
    if (!d2_conv_direct_available())
        skip();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        check_case(&CASES[i], (unsigned)i, true);
}

/* The tiles split over two and three threads (fewer images than threads included). */
static void test_threads(void **state)
{
    (void)state;
    if (!d2_conv_direct_available())
        skip();
    for (int nt = 2; nt <= 3; nt++) {
        d2_gemm_set_threads(nt);
        check_case(&CASES[0], 70, true);
        check_case(&CASES[1], 71, true);
        check_case(&CASES[3], 72, true);
        check_case(&CASES[13], 73, true);
    }
    d2_gemm_set_threads(0);
}

/* Shapes the kernel does not run (a width stride, groups) fall back to the other kernels. */
static void test_declines(void **state)
{
    (void)state;
    static const conv_case other[] = {
        {2, 3, 17, 19, 5, 3, 3, "strides = [1, 2], paddings = [1, 1]", true, false, true},
        {1, 4, 9, 9, 4, 3, 3, "paddings = [1, 1], groups = 2", true, false, false},
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        int64_t g = strstr(other[i].attrs, "groups") ? 2 : 1;
        conv_case cs = other[i];
        cs.c /= g; /* the weight's channel dim; x keeps the full count below */
        int64_t xs[4] = {cs.n, other[i].c, cs.h, cs.w}, ws[4] = {cs.oc, cs.c, cs.kh, cs.kw};
        int64_t bs[1] = {cs.oc};
        d2_tensor *in[3] = {tu_filled_f32(4, xs, 90), tu_filled_f32(4, ws, 91), tu_filled_f32(1, bs, 92)};
        d2_tensor *ref = run_conv(D2_CONV_DIRECT_NEVER, &other[i], in);
        long before = d2_conv_direct_runs();
        d2_tensor *got = run_conv(D2_CONV_DIRECT_ALWAYS, &other[i], in);
        assert_int_equal(d2_conv_direct_runs(), before);
        assert_memory_equal(d2_tensor_data(got), d2_tensor_data(ref),
                            (size_t)d2_tensor_numel(ref) * sizeof(float));
        d2_tensor_unref(got);
        d2_tensor_unref(ref);
        for (int j = 0; j < 3; j++)
            d2_tensor_unref(in[j]);
    }
}

/* The automatic choice takes the few-channel layers of the samples and leaves wide ones. */
static void test_auto_choice(void **state)
{
    (void)state;
    if (!d2_conv_direct_available())
        skip();
    long before = d2_conv_direct_runs();
    d2_err err = {0};
    d2_attrs attrs;
    assert_int_equal(d2_attrs_parse(d2_op_def(D2_OP_conv2d), "paddings = [2, 2]", &attrs, &err), 0);
    int64_t xs[4] = {4, 1, 28, 28}, ws[4] = {6, 1, 5, 5};
    d2_tensor *in[2] = {tu_filled_f32(4, xs, 1), tu_filled_f32(4, ws, 2)}, *out = NULL;
    d2_conv_direct_set_mode(D2_CONV_DIRECT_AUTO);
    d2_dnnl_set_mode(D2_DNNL_AUTO);
    assert_int_equal(d2_op_run(NULL, D2_OP_conv2d, &attrs, in, 2, &out, 1, &err), 0);
    assert_int_equal(d2_conv_direct_runs(), before + 1);
    d2_tensor_unref(out);
    out = NULL;
    d2_tensor_unref(in[0]);
    d2_tensor_unref(in[1]);
    int64_t xw[4] = {1, 32, 8, 8}, ww[4] = {32, 32, 3, 3};
    in[0] = tu_filled_f32(4, xw, 3);
    in[1] = tu_filled_f32(4, ww, 4);
    assert_int_equal(d2_op_run(NULL, D2_OP_conv2d, &attrs, in, 2, &out, 1, &err), 0);
    assert_int_equal(d2_conv_direct_runs(), before + 1);
    d2_tensor_unref(out);
    d2_tensor_unref(in[0]);
    d2_tensor_unref(in[1]);
    d2_attrs_free(&attrs);
}

/* 2x2 stride-2 max pooling (the vectorised path for LeNet's pools) against the rule it must
 * keep: per window max(max(a0, a1), max(b0, b1)) with max(p, q) = p > q ? p : q, so NaN
 * follows the same operands; odd sizes, widths past 16 and 32 outputs, one and two threads. */
static void test_pool_max2(void **state)
{
    (void)state;
    static const int64_t shapes[][4] = {
        {32, 6, 28, 28}, {32, 16, 10, 10}, {1, 1, 2, 2}, {2, 3, 7, 9},
        {1, 2, 5, 66}, {3, 1, 4, 33}, {1, 4, 6, 97},
    };
    d2_err err = {0};
    d2_attrs attrs;
    assert_int_equal(d2_attrs_parse(d2_op_def(D2_OP_pool2d),
                                    "pooling_type = \"max\", ksize = [2, 2], strides = [2, 2]",
                                    &attrs, &err),
                     0);
    for (int nt = 1; nt <= 2; nt++) {
        d2_gemm_set_threads(nt);
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            d2_tensor *x = tu_filled_f32(4, shapes[i], 200 + (unsigned)i), *out = NULL;
            float *xp = d2_tensor_data(x);
            xp[3] = NAN; /* a NaN in the first window's second column */
            assert_int_equal(d2_op_run(NULL, D2_OP_pool2d, &attrs, &x, 1, &out, 1, &err), 0);
            int64_t h = shapes[i][2], w = shapes[i][3], oh = h / 2, ow = w / 2;
            assert_int_equal(out->shape[2], oh);
            assert_int_equal(out->shape[3], ow);
            const float *y = d2_tensor_data(out);
            for (int64_t p = 0; p < shapes[i][0] * shapes[i][1]; p++)
                for (int64_t r = 0; r < oh; r++)
                    for (int64_t c = 0; c < ow; c++) {
                        const float *a = xp + p * h * w + 2 * r * w + 2 * c, *b = a + w;
                        float u = a[0] > a[1] ? a[0] : a[1], v = b[0] > b[1] ? b[0] : b[1];
                        float e = u > v ? u : v, g = y[(p * oh + r) * ow + c];
                        if (memcmp(&e, &g, sizeof e) != 0)
                            fail_msg("pool2d x[%lld,%lld,%lld,%lld] at plane %lld (%lld, %lld): "
                                     "%g, expected %g",
                                     (long long)shapes[i][0], (long long)shapes[i][1],
                                     (long long)h, (long long)w, (long long)p, (long long)r,
                                     (long long)c, (double)g, (double)e);
                    }
            d2_tensor_unref(out);
            d2_tensor_unref(x);
        }
    }
    d2_gemm_set_threads(0);
    d2_attrs_free(&attrs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_reference),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_declines),
        cmocka_unit_test(test_auto_choice),
        cmocka_unit_test(test_pool_max2),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
