/* test_dnnl.c - conv2d through oneDNN against the im2col + GEMM kernel, odd shapes, threads, cache bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    return 0;
}

typedef struct conv_case {
    int64_t n, c, h, w, oc, kh, kw;
    const char *attrs;
    bool bias;
} conv_case;

static const conv_case CASES[] = {
    /* the conv layers of samples/mnist_cnn.py and samples/resnet_small.py */
    {1, 1, 28, 28, 8, 3, 3, "paddings = [1, 1]", true},
    {32, 1, 28, 28, 8, 3, 3, "paddings = [1, 1]", true},
    {32, 8, 14, 14, 16, 3, 3, "paddings = [1, 1]", true},
    {1, 3, 32, 32, 16, 3, 3, "paddings = [1, 1]", false},
    {32, 16, 32, 32, 16, 3, 3, "paddings = [1, 1]", false},
    {32, 16, 32, 32, 32, 3, 3, "strides = [2, 2], paddings = [1, 1]", false},
    {32, 16, 32, 32, 32, 1, 1, "strides = [2, 2]", false},
    {1, 32, 16, 16, 32, 3, 3, "paddings = [1, 1]", false},
    /* odd channel counts, groups, dilation, asymmetric padding and stride */
    {1, 3, 17, 19, 5, 3, 3, "paddings = [1, 1]", true},
    {2, 6, 13, 11, 9, 3, 2, "strides = [2, 3], paddings = [2, 1]", true},
    {1, 12, 15, 15, 12, 3, 3, "paddings = [1, 1], groups = 12", true},
    {3, 10, 12, 12, 14, 3, 3, "paddings = [2, 2], dilations = [2, 2], groups = 2", true},
    {1, 7, 20, 9, 11, 5, 3, "strides = [3, 2], paddings = [0, 1, 2, 1], dilations = [1, 2]",
     false},
    {1, 5, 10, 10, 7, 4, 4, "strides = [2, 2], padding_algorithm = \"SAME\"", true},
    {2, 9, 11, 8, 3, 3, 3, "strides = [2, 2], padding_algorithm = \"VALID\"", true},
    {32, 9, 6, 6, 24, 1, 1, "", true},
    {1, 64, 4, 4, 48, 3, 3, "paddings = [1, 1], groups = 4", false},
    {1, 2, 1, 1, 3, 1, 1, "", true},
};

/* Runs conv2d in one mode; returns the output (new reference). */
static d2_tensor *run_conv(d2_dnnl_mode mode, const conv_case *cs, d2_tensor **in, int n_in)
{
    d2_err err = {0};
    d2_attrs attrs;
    assert_int_equal(d2_attrs_parse(d2_op_def(D2_OP_conv2d), cs->attrs, &attrs, &err), 0);
    d2_dnnl_set_mode(mode);
    d2_tensor *out = NULL;
    int rc = d2_op_run(NULL, D2_OP_conv2d, &attrs, in, n_in, &out, 1, &err);
    if (rc != 0)
        fail_msg("conv2d failed: %s", err.msg);
    d2_attrs_free(&attrs);
    return out;
}

static void check_case(const conv_case *cs, unsigned seed)
{
    int64_t groups = 1;
    const char *g = strstr(cs->attrs, "groups = ");
    if (g)
        groups = strtoll(g + 9, NULL, 10);
    int64_t xs[4] = {cs->n, cs->c, cs->h, cs->w}, ws[4] = {cs->oc, cs->c / groups, cs->kh, cs->kw};
    int64_t bs[1] = {cs->oc};
    d2_tensor *in[3] = {tu_filled_f32(4, xs, seed), tu_filled_f32(4, ws, seed + 1),
                        cs->bias ? tu_filled_f32(1, bs, seed + 2) : NULL};
    int n_in = cs->bias ? 3 : 2;
    d2_tensor *ref = run_conv(D2_DNNL_NEVER, cs, in, n_in);
    d2_tensor *got = run_conv(D2_DNNL_ALWAYS, cs, in, n_in);
    assert_int_equal(got->ndim, 4);
    for (int d = 0; d < 4; d++)
        assert_int_equal(got->shape[d], ref->shape[d]);
    double diff = tu_max_rel_diff(got, ref);
    if (diff > 1e-4)
        fail_msg("conv2d x[%lld,%lld,%lld,%lld] w[%lld,%lld,%lld,%lld] {%s}: differs by %g",
                 (long long)xs[0], (long long)xs[1], (long long)xs[2], (long long)xs[3],
                 (long long)ws[0], (long long)ws[1], (long long)ws[2], (long long)ws[3],
                 cs->attrs, diff);
    /* a second run hits the cached primitives and gives the same result */
    d2_tensor *again = run_conv(D2_DNNL_ALWAYS, cs, in, n_in);
    assert_memory_equal(d2_tensor_data(again), d2_tensor_data(got),
                        (size_t)d2_tensor_numel(got) * sizeof(float));
    d2_tensor_unref(again);
    d2_tensor_unref(got);
    d2_tensor_unref(ref);
    for (int i = 0; i < 3; i++)
        d2_tensor_unref(in[i]);
}

static void test_matches_reference(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        check_case(&CASES[i], (unsigned)i);
}

/* With two threads per op, oneDNN splits the work (a primitive of its own,
 * keyed by the thread count) and the result still matches. */
static void test_two_threads_per_op(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    d2_gemm_set_threads(2);
    check_case(&CASES[4], 40);
    check_case(&CASES[11], 41);
    d2_gemm_set_threads(0);
}

/* 3x3 stride-1 convolutions with 64+ channels run as oneDNN's Winograd convolution (reorders
 * to its blocked layout and back included) and still match the reference. */
static void test_winograd(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    static const conv_case wino[] = {
        {2, 64, 8, 8, 64, 3, 3, "paddings = [1, 1]", true},
        {1, 128, 7, 9, 64, 3, 3, "paddings = [1, 1]", false},
        {3, 64, 10, 6, 80, 3, 3, "", true},
    };
    for (size_t i = 0; i < sizeof wino / sizeof wino[0]; i++)
        check_case(&wino[i], 60 + (unsigned)i);
}

static void *report_threads(void *p)
{
    *(int *)p = d2_gemm_threads();
    return NULL;
}

/* A run's own thread count (ExecutionStrategy.num_threads): it holds on the thread that set
 * it, oneDNN's convolutions run with it, other threads keep the default, and dropping it
 * restores the default. */
static void test_run_threads(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    d2_gemm_set_threads(0);
    int base = d2_gemm_threads();
    assert_int_equal(d2_gemm_set_run_threads(3), 0);
    assert_int_equal(d2_gemm_threads(), 3);
    check_case(&CASES[4], 50);
    assert_int_equal(d2_dnnl_last_threads(), 3);
    int other = -1;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, report_threads, &other), 0);
    pthread_join(th, NULL);
    assert_int_equal(other, base);
    assert_int_equal(d2_gemm_set_run_threads(-2), 3);
    assert_int_equal(d2_gemm_threads(), base);
    check_case(&CASES[4], 51);
    assert_int_equal(d2_dnnl_last_threads(), base);
}

/* The fused relu (for callers that see a relu after the convolution): the
 * same as the reference convolution followed by max(0, .). */
static void test_fused_relu(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    const conv_case *cs = &CASES[9]; /* strides [2, 3], paddings [2, 1], bias */
    int64_t xs[4] = {cs->n, cs->c, cs->h, cs->w}, ws[4] = {cs->oc, cs->c, cs->kh, cs->kw};
    int64_t bs[1] = {cs->oc};
    d2_tensor *in[3] = {tu_filled_f32(4, xs, 3), tu_filled_f32(4, ws, 4), tu_filled_f32(1, bs, 5)};
    d2_tensor *ref = run_conv(D2_DNNL_NEVER, cs, in, 3);
    d2_err err = {0};
    d2_tensor *got = d2_tensor_new(NULL, D2_F32, 4, ref->shape, &err);
    d2_dnnl_conv cv = {cs->n, cs->c, cs->h, cs->w, cs->oc, cs->kh, cs->kw, ref->shape[2],
                       ref->shape[3], 1, 2, 3, 1, 1, 2, 1, 0, 0, true, true, false, false, NULL};
    cv.pb = (cv.oh - 1) * cv.sh + cv.kh - cv.h - cv.pt;
    cv.pr = (cv.ow - 1) * cv.sw + cv.kw - cv.w - cv.pl;
    cv.pb = cv.pb > 0 ? cv.pb : 0;
    cv.pr = cv.pr > 0 ? cv.pr : 0;
    d2_dnnl_set_mode(D2_DNNL_ALWAYS);
    assert_int_equal(d2_dnnl_conv2d(&cv, d2_tensor_data(in[0]), d2_tensor_data(in[1]),
                                    d2_tensor_data(in[2]), d2_tensor_data(got), &err),
                     0);
    float *r = d2_tensor_data(ref), *g = d2_tensor_data(got);
    int negatives = 0;
    for (int64_t i = 0; i < d2_tensor_numel(ref); i++) {
        negatives += r[i] < 0;
        float want = r[i] > 0 ? r[i] : 0;
        assert_true(fabsf(g[i] - want) <= 1e-4f * fmaxf(1.0f, fabsf(want)));
    }
    assert_true(negatives > 0);
    d2_tensor_unref(got);
    d2_tensor_unref(ref);
    for (int i = 0; i < 3; i++)
        d2_tensor_unref(in[i]);
}

/* The residual sum post-op (conv2d_fused): y holds the residual on entry and
 * receives relu(conv + bias + residual), in oneDNN's blocked layout inside. */
static void test_fused_residual(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    const conv_case *cs = &CASES[9];
    int64_t xs[4] = {cs->n, cs->c, cs->h, cs->w}, ws[4] = {cs->oc, cs->c, cs->kh, cs->kw};
    int64_t bs[1] = {cs->oc};
    d2_tensor *in[3] = {tu_filled_f32(4, xs, 3), tu_filled_f32(4, ws, 4), tu_filled_f32(1, bs, 5)};
    d2_tensor *ref = run_conv(D2_DNNL_NEVER, cs, in, 3);
    d2_tensor *res = tu_filled_f32(4, ref->shape, 6);
    d2_err err = {0};
    d2_tensor *got = d2_tensor_new(NULL, D2_F32, 4, ref->shape, &err);
    size_t n = (size_t)d2_tensor_numel(ref);
    memcpy(d2_tensor_data(got), d2_tensor_data(res), n * sizeof(float));
    d2_dnnl_conv cv = {cs->n, cs->c, cs->h, cs->w, cs->oc, cs->kh, cs->kw, ref->shape[2],
                       ref->shape[3], 1, 2, 3, 1, 1, 2, 1, 0, 0, true, true, true, false, NULL};
    cv.pb = (cv.oh - 1) * cv.sh + cv.kh - cv.h - cv.pt;
    cv.pr = (cv.ow - 1) * cv.sw + cv.kw - cv.w - cv.pl;
    cv.pb = cv.pb > 0 ? cv.pb : 0;
    cv.pr = cv.pr > 0 ? cv.pr : 0;
    d2_dnnl_set_mode(D2_DNNL_ALWAYS);
    assert_int_equal(d2_dnnl_conv2d(&cv, d2_tensor_data(in[0]), d2_tensor_data(in[1]),
                                    d2_tensor_data(in[2]), d2_tensor_data(got), &err),
                     0);
    const float *r = d2_tensor_data(ref), *g = d2_tensor_data(got), *rs = d2_tensor_data(res);
    int clipped = 0;
    for (size_t i = 0; i < n; i++) {
        float sum = r[i] + rs[i], want = sum > 0 ? sum : 0;
        clipped += sum < 0;
        assert_true(fabsf(g[i] - want) <= 1e-4f * fmaxf(1.0f, fabsf(sum)));
    }
    assert_true(clipped > 0);
    d2_tensor_unref(got);
    d2_tensor_unref(res);
    d2_tensor_unref(ref);
    for (int i = 0; i < 3; i++)
        d2_tensor_unref(in[i]);
}

/* Modes: NEVER leaves the cache alone; AUTO keeps tiny shapes off oneDNN. */
/* The reordered weights kept from an earlier call are used only for the same weights: new
 * values in the same buffer (a training step) and another buffer give their own results. */
static void test_weights_change(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    const conv_case *cs = &CASES[4];
    int64_t xs[4] = {cs->n, cs->c, cs->h, cs->w}, ws[4] = {cs->oc, cs->c, cs->kh, cs->kw};
    d2_tensor *in[2] = {tu_filled_f32(4, xs, 70), tu_filled_f32(4, ws, 71)};
    for (int round = 0; round < 3; round++) {
        if (round == 1) { /* in place, same pointer */
            float *w = d2_tensor_data(in[1]);
            for (int64_t i = 0; i < d2_tensor_numel(in[1]); i++)
                w[i] = w[i] * -0.5f + 0.125f;
        } else if (round == 2) { /* another buffer */
            d2_tensor_unref(in[1]);
            in[1] = tu_filled_f32(4, ws, 72);
        }
        d2_tensor *ref = run_conv(D2_DNNL_NEVER, cs, in, 2);
        for (int rep = 0; rep < 2; rep++) {
            d2_tensor *got = run_conv(D2_DNNL_ALWAYS, cs, in, 2);
            double diff = tu_max_rel_diff(got, ref);
            if (diff > 1e-4)
                fail_msg("round %d run %d: differs from the reference by %g", round, rep, diff);
            d2_tensor_unref(got);
        }
        d2_tensor_unref(ref);
    }
    d2_tensor_unref(in[0]);
    d2_tensor_unref(in[1]);
}

/* Constant weights keep their reordered copy with their storage: a later call uses it without
 * looking at the bytes (shown by writing them behind the promise's back), clearing the promise
 * makes the call read the new values, and a new promise starts from them. Two constant weight
 * tensors of one shape each get their own copy. */
static void test_const_weights(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    const conv_case *cs = &CASES[7];
    int64_t xs[4] = {cs->n, cs->c, cs->h, cs->w}, ws[4] = {cs->oc, cs->c, cs->kh, cs->kw};
    d2_tensor *x = tu_filled_f32(4, xs, 80), *w1 = tu_filled_f32(4, ws, 81), *w2 = tu_filled_f32(4, ws, 82);
    d2_tensor *a[2] = {x, w1}, *b[2] = {x, w2};
    d2_tensor *ref1 = run_conv(D2_DNNL_NEVER, cs, a, 2), *ref2 = run_conv(D2_DNNL_NEVER, cs, b, 2);
    assert_int_equal(d2_tensor_const_gen(w1), 0);
    d2_tensor_set_const(w1);
    d2_tensor_set_const(w2);
    uint64_t g1 = d2_tensor_const_gen(w1);
    assert_true(g1 != 0 && d2_tensor_const_gen(w2) != 0 && d2_tensor_const_gen(w2) != g1);
    for (int rep = 0; rep < 2; rep++) {
        d2_tensor *got1 = run_conv(D2_DNNL_ALWAYS, cs, a, 2);
        d2_tensor *got2 = run_conv(D2_DNNL_ALWAYS, cs, b, 2);
        if (tu_max_rel_diff(got1, ref1) > 1e-4 || tu_max_rel_diff(got2, ref2) > 1e-4)
            fail_msg("run %d: constant weights give %g and %g off the reference", rep,
                     tu_max_rel_diff(got1, ref1), tu_max_rel_diff(got2, ref2));
        d2_tensor_unref(got1);
        d2_tensor_unref(got2);
    }
    /* written without clearing the promise: the kept copy (the old weights) is what runs */
    float *wp = d2_tensor_data(w1);
    for (int64_t i = 0; i < d2_tensor_numel(w1); i++)
        wp[i] = wp[i] * -0.5f + 0.125f;
    d2_tensor *stale = run_conv(D2_DNNL_ALWAYS, cs, a, 2);
    if (tu_max_rel_diff(stale, ref1) > 1e-4)
        fail_msg("the kept weights were not used: %g off", tu_max_rel_diff(stale, ref1));
    d2_tensor_unref(stale);
    /* cleared, then promised again: the new values run */
    d2_tensor *ref_new = run_conv(D2_DNNL_NEVER, cs, a, 2);
    d2_tensor_clear_const(w1);
    assert_int_equal(d2_tensor_const_gen(w1), 0);
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            d2_tensor_set_const(w1);
        for (int rep = 0; rep < 2; rep++) {
            d2_tensor *got = run_conv(D2_DNNL_ALWAYS, cs, a, 2);
            if (tu_max_rel_diff(got, ref_new) > 1e-4)
                fail_msg("round %d run %d: new weights give %g off", round, rep,
                         tu_max_rel_diff(got, ref_new));
            d2_tensor_unref(got);
        }
    }
    assert_true(d2_tensor_const_gen(w1) > g1);
    d2_tensor_unref(ref_new);
    d2_tensor_unref(ref1);
    d2_tensor_unref(ref2);
    d2_tensor_unref(x);
    d2_tensor_unref(w1);
    d2_tensor_unref(w2);
}

static void test_modes(void **state)
{
    (void)state;
    const conv_case tiny = {1, 1, 4, 4, 1, 3, 3, "paddings = [1, 1]", false};
    int64_t xs[4] = {1, 1, 4, 4}, ws[4] = {1, 1, 3, 3};
    d2_tensor *in[2] = {tu_filled_f32(4, xs, 7), tu_filled_f32(4, ws, 8)};
    int before = d2_dnnl_cache_count();
    d2_tensor *a = run_conv(D2_DNNL_NEVER, &tiny, in, 2);
    d2_tensor *b = run_conv(D2_DNNL_AUTO, &tiny, in, 2);
    assert_int_equal(d2_dnnl_cache_count(), before);
    assert_memory_equal(d2_tensor_data(a), d2_tensor_data(b), 16 * sizeof(float));
    d2_tensor_unref(a);
    d2_tensor_unref(b);
    d2_tensor_unref(in[0]);
    d2_tensor_unref(in[1]);
}

/* More distinct shapes than the cache holds: it stays bounded and every
 * result stays right. */
static void test_cache_bound(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    for (int i = 0; i < D2_DNNL_CACHE_MAX + 8; i++) {
        const conv_case cs = {1, 2, 3 + i % 40, 3 + i / 40, 3, 3, 3, "paddings = [1, 1]", true};
        if (i % 16 == 0)
            check_case(&cs, (unsigned)i);
        else {
            int64_t xs[4] = {1, 2, cs.h, cs.w}, ws[4] = {3, 2, 3, 3}, bs[1] = {3};
            d2_tensor *in[3] = {tu_filled_f32(4, xs, 1), tu_filled_f32(4, ws, 2), tu_filled_f32(1, bs, 3)};
            d2_tensor_unref(run_conv(D2_DNNL_ALWAYS, &cs, in, 3));
            for (int j = 0; j < 3; j++)
                d2_tensor_unref(in[j]);
        }
        assert_true(d2_dnnl_cache_count() <= D2_DNNL_CACHE_MAX);
    }
}

/* Several threads run convolutions of a few shapes at once (sharing cache
 * entries, and evicting none) and each gets the reference result. */
typedef struct thread_arg {
    int id;
    int failures;
} thread_arg;

static d2_tensor *g_ref[4], *g_in[4][3];
static const conv_case THREAD_CASES[4] = {
    {2, 8, 14, 14, 16, 3, 3, "paddings = [1, 1]", true},
    {1, 16, 16, 16, 16, 3, 3, "strides = [2, 2], paddings = [1, 1]", false},
    {3, 6, 9, 9, 6, 3, 3, "paddings = [1, 1], groups = 3", true},
    {2, 5, 12, 10, 7, 1, 1, "", true},
};

static void *thread_main(void *p)
{
    thread_arg *a = p;
    for (int r = 0; r < 20; r++) {
        int c = (a->id + r) % 4;
        d2_err err = {0};
        d2_attrs attrs;
        if (d2_attrs_parse(d2_op_def(D2_OP_conv2d), THREAD_CASES[c].attrs, &attrs, &err) < 0) {
            a->failures++;
            continue;
        }
        d2_tensor *out = NULL;
        int n_in = THREAD_CASES[c].bias ? 3 : 2;
        if (d2_op_run(NULL, D2_OP_conv2d, &attrs, g_in[c], n_in, &out, 1, &err) < 0 ||
            memcmp(d2_tensor_data(out), d2_tensor_data(g_ref[c]),
                   (size_t)d2_tensor_numel(out) * sizeof(float)) != 0)
            a->failures++;
        d2_tensor_unref(out);
        d2_attrs_free(&attrs);
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    for (int c = 0; c < 4; c++) {
        const conv_case *cs = &THREAD_CASES[c];
        int64_t groups = strstr(cs->attrs, "groups = 3") ? 3 : 1;
        int64_t xs[4] = {cs->n, cs->c, cs->h, cs->w};
        int64_t ws[4] = {cs->oc, cs->c / groups, cs->kh, cs->kw}, bs[1] = {cs->oc};
        g_in[c][0] = tu_filled_f32(4, xs, (unsigned)c);
        g_in[c][1] = tu_filled_f32(4, ws, (unsigned)c + 10);
        g_in[c][2] = cs->bias ? tu_filled_f32(1, bs, (unsigned)c + 20) : NULL;
        g_ref[c] = run_conv(D2_DNNL_ALWAYS, cs, g_in[c], cs->bias ? 3 : 2);
    }
    pthread_t th[4];
    thread_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (thread_arg){i, 0};
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    for (int c = 0; c < 4; c++) {
        d2_tensor_unref(g_ref[c]);
        for (int j = 0; j < 3; j++)
            d2_tensor_unref(g_in[c][j]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_matches_reference, teardown),
        cmocka_unit_test_teardown(test_two_threads_per_op, teardown),
        cmocka_unit_test_teardown(test_winograd, teardown),
        cmocka_unit_test_teardown(test_run_threads, teardown),
        cmocka_unit_test_teardown(test_fused_relu, teardown),
        cmocka_unit_test_teardown(test_fused_residual, teardown),
        cmocka_unit_test_teardown(test_modes, teardown),
        cmocka_unit_test_teardown(test_weights_change, teardown),
        cmocka_unit_test_teardown(test_const_weights, teardown),
        cmocka_unit_test_teardown(test_cache_bound, teardown),
        cmocka_unit_test_teardown(test_threads, teardown),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
