/* test_conv_nhwc.c - the direct NHWC convolution (conv2d_fused {data_format = "NHWC"}) against
 * im2col + GEMM on permuted copies: odd shapes, padding, strides, dilations, channel-block and
 * pixel tails, the fused bias, residual and relu, large inputs (row chunks, kernel rows summed
 * in passes), threads, weights kept packed with constant storage, and the shapes it declines. */
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
#include "cpu/conv_nhwc.h"
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
    d2_conv_nhwc_set_mode(D2_CONV_NHWC_AUTO);
    d2_gemm_set_threads(0);
    return 0;
}

/* x [n, h, w, c], weight [oc, c, kh, kw] */
typedef struct conv_case {
    int64_t n, h, w, c, oc, kh, kw;
    const char *attrs;
    bool bias, res, relu;
} conv_case;

static const conv_case CASES[] = {
    /* resnet_small's layers at batch 1 and 2 */
    {1, 32, 32, 16, 16, 3, 3, "paddings = [1, 1]", true, false, true},
    {2, 32, 32, 3, 16, 3, 3, "paddings = [1, 1]", true, true, true},
    {1, 32, 32, 16, 32, 3, 3, "strides = [2, 2], paddings = [1, 1]", true, false, true},
    {2, 16, 16, 32, 32, 3, 3, "paddings = [1, 1]", true, true, true},
    {1, 32, 32, 16, 32, 1, 1, "strides = [2, 2]", true, false, false},
    {1, 16, 16, 32, 64, 3, 3, "strides = [2, 2], paddings = [1, 1]", true, false, true},
    {2, 8, 8, 64, 64, 3, 3, "paddings = [1, 1]", true, true, true},
    {1, 16, 16, 32, 64, 1, 1, "strides = [2, 2]", true, false, false},
    /* channel blocks 3, 5 and 8 (groups of 4, 2 and 1), pixel tails of every tile width */
    {1, 5, 31, 7, 48, 3, 3, "paddings = [1, 1]", true, true, false},
    {2, 7, 13, 9, 80, 3, 3, "paddings = [1, 1]", false, false, true},
    {1, 3, 27, 6, 128, 5, 5, "paddings = [2, 2]", true, true, true},
    {3, 4, 1, 2, 16, 1, 1, "", true, false, false},
    {1, 1, 1, 5, 32, 3, 3, "paddings = [1, 1]", true, true, true},
    /* strides, dilations (the per-tap path), asymmetric and SAME/VALID padding */
    {2, 17, 19, 5, 16, 3, 3, "strides = [2, 3], paddings = [1, 1]", true, false, false},
    {1, 20, 9, 7, 32, 5, 3, "strides = [3, 1], paddings = [0, 1, 2, 1], dilations = [1, 2]",
     false, true, false},
    {2, 12, 12, 6, 16, 3, 3, "paddings = [2, 2], dilations = [2, 2]", true, false, true},
    {1, 10, 10, 5, 48, 4, 4, "padding_algorithm = \"SAME\"", true, false, false},
    {2, 11, 8, 6, 16, 3, 3, "padding_algorithm = \"VALID\"", true, false, true},
    {1, 4, 4, 3, 16, 5, 5, "paddings = [3, 3]", true, true, true},
    {1, 6, 6, 16, 32, 7, 7, "strides = [2, 2], paddings = [3, 3]", true, false, true},
    /* kernel rows summed in passes (more weights per row than 32 KiB), and many row chunks */
    {1, 9, 9, 256, 64, 3, 3, "paddings = [1, 1]", true, true, true},
    {1, 3, 5, 300, 16, 3, 3, "paddings = [1, 1]", false, true, false},
    {2, 200, 70, 16, 16, 3, 3, "paddings = [1, 1]", true, false, true},
};

/* Runs conv2d_fused {NHWC, activation} on in (x, weight, bias or NULL, residual or NULL) with
 * the NHWC kernel in mode m and oneDNN and the NCHW direct kernel off; returns the output. */
static d2_tensor *run_conv(d2_conv_nhwc_mode m, const conv_case *cs, d2_tensor **in)
{
    d2_err err = {0};
    d2_attrs attrs;
    char a[256];
    snprintf(a, sizeof a, "%s%sactivation = \"%s\", data_format = \"NHWC\"", cs->attrs,
             cs->attrs[0] ? ", " : "", cs->relu ? "relu" : "");
    assert_int_equal(d2_attrs_parse(d2_op_def(D2_OP_conv2d_fused), a, &attrs, &err), 0);
    d2_dnnl_set_mode(D2_DNNL_NEVER);
    d2_conv_direct_set_mode(D2_CONV_DIRECT_NEVER);
    d2_conv_nhwc_set_mode(m);
    d2_tensor *out = NULL;
    int n_in = cs->res ? 4 : cs->bias ? 3 : 2; /* in[2] NULL with a residual: no bias */
    int rc = d2_op_run(NULL, D2_OP_conv2d_fused, &attrs, in, n_in, &out, 1, &err);
    if (rc != 0)
        fail_msg("conv2d_fused {%s} failed: %s", a, err.msg);
    d2_attrs_free(&attrs);
    return out;
}

/* The case's x [n, h, w, c], weight [oc, c / groups, kh, kw] and bias [oc] (NULL without one),
 * filled from seed, seed + 1 and seed + 2, into in[0..2]. */
static void case_inputs(const conv_case *cs, int64_t groups, unsigned seed, d2_tensor **in)
{
    int64_t xs[4] = {cs->n, cs->h, cs->w, cs->c};
    int64_t ws[4] = {cs->oc, cs->c / groups, cs->kh, cs->kw}, bs[1] = {cs->oc};
    in[0] = tu_filled_f32(4, xs, seed);
    in[1] = tu_filled_f32(4, ws, seed + 1);
    in[2] = cs->bias ? tu_filled_f32(1, bs, seed + 2) : NULL;
}

/* Compares the NHWC kernel with the reference on one case; the kernel must have run it. */
static void check_case(const conv_case *cs, unsigned seed)
{
    d2_tensor *in[4] = {NULL};
    case_inputs(cs, 1, seed, in);
    if (cs->res) {
        conv_case plain = *cs;
        plain.res = false;
        d2_tensor *o = run_conv(D2_CONV_NHWC_NEVER, &plain, in);
        in[3] = tu_filled_f32(4, o->shape, seed + 3);
        d2_tensor_unref(o);
    }
    d2_tensor *ref = run_conv(D2_CONV_NHWC_NEVER, cs, in);
    long before = d2_conv_nhwc_runs();
    d2_tensor *got = run_conv(D2_CONV_NHWC_ALWAYS, cs, in);
    assert_int_equal(d2_conv_nhwc_runs(), before + 1);
    assert_int_equal(got->ndim, 4);
    for (int d = 0; d < 4; d++)
        assert_int_equal(got->shape[d], ref->shape[d]);
    /* the two kernels sum the k = c*kh*kw products (of values in [-1, 1)) in different
     * orders: each sum's rounding error is below k * 2^-24, so the two may differ by up to
     * k * 1.2e-7 at worst; rounding errors that do not all align stay far below that, and the
     * bound allowed is a quarter of the worst case, k * 3e-8 (1e-5 at the least) */
    double k = (double)(cs->c * cs->kh * cs->kw), tol = k * 3e-8 > 1e-5 ? k * 3e-8 : 1e-5;
    double diff = tu_max_rel_diff(got, ref);
    if (diff > tol)
        fail_msg("conv2d_fused NHWC x[%lld,%lld,%lld,%lld] w[%lld,%lld,%lld,%lld] {%s} bias %d "
                 "res %d relu %d: differs by %g",
                 (long long)cs->n, (long long)cs->h, (long long)cs->w, (long long)cs->c,
                 (long long)cs->oc, (long long)cs->c, (long long)cs->kh, (long long)cs->kw,
                 cs->attrs, cs->bias, cs->res, cs->relu, diff);
    d2_tensor_unref(got);
    d2_tensor_unref(ref);
    for (int i = 0; i < 4; i++)
        d2_tensor_unref(in[i]);
}

static void test_matches_reference(void **state)
{
    (void)state;
    if (!d2_conv_nhwc_available())
        skip();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        check_case(&CASES[i], 10 + 5 * (unsigned)i);
}

/* Rows split over two and three threads (fewer rows than threads included). */
static void test_threads(void **state)
{
    (void)state;
    if (!d2_conv_nhwc_available())
        skip();
    static const size_t pick[] = {0, 3, 6, 11, 12, 14, 20, 22};
    for (int nt = 2; nt <= 3; nt++) {
        d2_gemm_set_threads(nt);
        for (size_t i = 0; i < sizeof pick / sizeof pick[0]; i++)
            check_case(&CASES[pick[i]], 300 + 7 * (unsigned)(i + (size_t)nt * 10));
    }
    d2_gemm_set_threads(0);
}

/* Constant weights are packed once and kept with their storage; weights written after
 * d2_tensor_clear_const (a new constant generation) are packed again. */
static void test_constant_weights(void **state)
{
    (void)state;
    if (!d2_conv_nhwc_available())
        skip();
    const conv_case *cs = &CASES[3];
    conv_case plain = *cs;
    plain.res = false;
    d2_tensor *in[3];
    case_inputs(cs, 1, 40, in);
    d2_tensor_set_const(in[1]);
    for (int round = 0; round < 2; round++) {
        d2_tensor *ref = run_conv(D2_CONV_NHWC_NEVER, &plain, in);
        for (int rep = 0; rep < 2; rep++) {
            d2_tensor *got = run_conv(D2_CONV_NHWC_ALWAYS, &plain, in);
            assert_true(tu_max_rel_diff(got, ref) <= 1e-5);
            d2_tensor_unref(got);
        }
        d2_tensor_unref(ref);
        d2_tensor_clear_const(in[1]);
        float *w = d2_tensor_data(in[1]);
        for (int64_t i = 0; i < d2_tensor_numel(in[1]); i++)
            w[i] = -2.0f * w[i] + 0.25f;
        d2_tensor_set_const(in[1]);
    }
    for (int i = 0; i < 3; i++)
        d2_tensor_unref(in[i]);
}

/* Weights that are not constant are packed again when their bytes change in place, and the
 * per-thread cache of packed weights evicts entries past its size (ten weight tensors). */
static void test_changing_weights(void **state)
{
    (void)state;
    if (!d2_conv_nhwc_available())
        skip();
    const conv_case *cs = &CASES[0];
    int64_t xs[4] = {cs->n, cs->h, cs->w, cs->c}, ws[4] = {cs->oc, cs->c, cs->kh, cs->kw};
    int64_t bs[1] = {cs->oc};
    d2_tensor *x = tu_filled_f32(4, xs, 50), *b = tu_filled_f32(1, bs, 51), *wts[10];
    for (int i = 0; i < 10; i++)
        wts[i] = tu_filled_f32(4, ws, 52 + (unsigned)i);
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 10; i++) {
            d2_tensor *in[3] = {x, wts[i], b};
            d2_tensor *ref = run_conv(D2_CONV_NHWC_NEVER, cs, in);
            d2_tensor *got = run_conv(D2_CONV_NHWC_ALWAYS, cs, in);
            assert_true(tu_max_rel_diff(got, ref) <= 1e-5);
            d2_tensor_unref(got);
            d2_tensor_unref(ref);
            if (i % 3 == round) { /* one element written in place */
                float *w = d2_tensor_data(wts[i]);
                w[(round * 37 + i) % d2_tensor_numel(wts[i])] += 0.5f;
            }
        }
    for (int i = 0; i < 10; i++)
        d2_tensor_unref(wts[i]);
    d2_tensor_unref(x);
    d2_tensor_unref(b);
}

/* Output channels that are not a multiple of 16 and grouped convolutions go to the other
 * kernels, with the same result as with the kernel off. */
static void test_declines(void **state)
{
    (void)state;
    static const conv_case other[] = {
        {1, 9, 9, 8, 24, 3, 3, "paddings = [1, 1]", true, false, true},
        {2, 6, 6, 3, 5, 3, 3, "", true, false, false},
        {1, 8, 8, 32, 32, 3, 3, "paddings = [1, 1], groups = 2", true, false, false},
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        conv_case cs = other[i];
        int64_t g = strstr(cs.attrs, "groups") ? 2 : 1;
        d2_tensor *in[3];
        case_inputs(&cs, g, 90, in);
        d2_tensor *ref = run_conv(D2_CONV_NHWC_NEVER, &cs, in);
        long before = d2_conv_nhwc_runs();
        d2_tensor *got = run_conv(D2_CONV_NHWC_ALWAYS, &cs, in);
        assert_int_equal(d2_conv_nhwc_runs(), before);
        assert_memory_equal(d2_tensor_data(got), d2_tensor_data(ref),
                            (size_t)d2_tensor_numel(ref) * sizeof(float));
        d2_tensor_unref(got);
        d2_tensor_unref(ref);
        for (int j = 0; j < 3; j++)
            d2_tensor_unref(in[j]);
    }
}

/* The automatic choice: 1x1 layers, first layers, and small 3x3 ones on more than one thread
 * here; 64 -> 64 channel layers, large 3x3 ones and small ones on one thread to oneDNN. */
static void test_auto_choice(void **state)
{
    (void)state;
    if (!d2_conv_nhwc_available())
        skip();
    static const struct {
        conv_case cs;
        int threads;
        bool taken;
    } cases[] = {
        {{32, 16, 16, 32, 64, 1, 1, "strides = [2, 2]", true, false, false}, 1, true},
        {{1, 32, 32, 16, 16, 3, 3, "paddings = [1, 1]", true, false, true}, 2, true},
        {{1, 32, 32, 16, 16, 3, 3, "paddings = [1, 1]", true, false, true}, 1, false},
        {{1, 32, 32, 3, 16, 3, 3, "paddings = [1, 1]", true, false, true}, 1, true},
        {{32, 32, 32, 3, 16, 3, 3, "paddings = [1, 1]", true, false, true}, 2, true},
        {{1, 8, 8, 64, 64, 3, 3, "paddings = [1, 1]", true, false, true}, 2, false},
        {{32, 32, 32, 16, 16, 3, 3, "paddings = [1, 1]", true, false, true}, 2, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const conv_case *cs = &cases[i].cs;
        d2_tensor *in[3];
        case_inputs(cs, 1, 60, in);
        d2_gemm_set_threads(cases[i].threads);
        long before = d2_conv_nhwc_runs();
        d2_tensor *got = run_conv(D2_CONV_NHWC_AUTO, cs, in);
        if (d2_conv_nhwc_runs() != before + (cases[i].taken ? 1 : 0))
            fail_msg("case %zu: the automatic choice %s the NHWC kernel", i,
                     cases[i].taken ? "did not take" : "took");
        d2_tensor_unref(got);
        for (int j = 0; j < 3; j++)
            d2_tensor_unref(in[j]);
    }
    d2_gemm_set_threads(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_reference),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_constant_weights),
        cmocka_unit_test(test_changing_weights),
        cmocka_unit_test(test_declines),
        cmocka_unit_test(test_auto_choice),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
