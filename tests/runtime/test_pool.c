/* test_pool.c - max pooling's vectorised kernel against a direct loop over each window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"

static int setup(void **state)
{
    (void)state;
    d2_err err = {0};
    return d2_ops_init(&err);
}

typedef struct pool_case {
    int64_t n, c, h, w, kh, kw, sh, sw, pt, pb, pl, pr;
    bool ceil_mode;
} pool_case;

static const pool_case CASES[] = {
    {32, 6, 28, 28, 2, 2, 2, 2, 0, 0, 0, 0, false}, /* samples/mnist_cnn.py */
    {32, 16, 10, 10, 2, 2, 2, 2, 0, 0, 0, 0, false},
    {2, 3, 7, 37, 2, 2, 2, 2, 0, 0, 0, 0, false}, /* the 2x2 path with odd sizes */
    {2, 3, 7, 37, 2, 2, 2, 2, 0, 0, 0, 0, true},  /* ceil mode: a last window half outside */
    {1, 3, 7, 9, 3, 3, 2, 2, 1, 1, 1, 1, false},
    {2, 5, 11, 13, 3, 2, 2, 3, 1, 0, 0, 1, true},
    {1, 1, 5, 5, 5, 5, 1, 1, 2, 2, 2, 2, false},
    {3, 2, 6, 17, 2, 4, 3, 1, 0, 1, 3, 2, true},
    {1, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false},
    {1, 4, 8, 3, 3, 3, 1, 2, 1, 1, 1, 1, false},
};

/* The maximum over each window of x, windows clipped to the input; -FLT_MAX
 * for a window wholly in the padding. */
static float window_max(const float *x, int64_t h, int64_t w, const pool_case *c, int64_t oh,
                        int64_t ow)
{
    float v = -FLT_MAX;
    for (int64_t i = 0; i < c->kh; i++)
        for (int64_t j = 0; j < c->kw; j++) {
            int64_t ih = oh * c->sh - c->pt + i, iw = ow * c->sw - c->pl + j;
            if (ih >= 0 && ih < h && iw >= 0 && iw < w && x[ih * w + iw] > v)
                v = x[ih * w + iw];
        }
    return v;
}

static void test_max_matches_direct_loop(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof CASES / sizeof CASES[0]; ci++) {
        const pool_case *c = &CASES[ci];
        d2_err err = {0};
        int64_t xs[4] = {c->n, c->c, c->h, c->w};
        d2_tensor *x = d2_tensor_new(NULL, D2_F32, 4, xs, &err);
        float *xd = d2_tensor_data(x);
        unsigned s = (unsigned)ci + 1;
        for (int64_t i = 0; i < d2_tensor_numel(x); i++) {
            s = s * 1664525u + 1013904223u;
            xd[i] = (float)((s >> 8) & 0xffff) / 1024.0f - 32.0f;
        }
        char a[256];
        snprintf(a, sizeof a,
                 "pooling_type = \"max\", ksize = [%lld, %lld], strides = [%lld, %lld], "
                 "paddings = [%lld, %lld, %lld, %lld], ceil_mode = %s",
                 (long long)c->kh, (long long)c->kw, (long long)c->sh, (long long)c->sw,
                 (long long)c->pt, (long long)c->pb, (long long)c->pl, (long long)c->pr,
                 c->ceil_mode ? "true" : "false");
        d2_attrs attrs;
        if (d2_attrs_parse(d2_op_def(D2_OP_pool2d), a, &attrs, &err) < 0)
            fail_msg("%s: %s", a, err.msg);
        d2_tensor *out = NULL;
        if (d2_op_run(NULL, D2_OP_pool2d, &attrs, &x, 1, &out, 1, &err) < 0)
            fail_msg("%s: %s", a, err.msg);
        int64_t oh = out->shape[2], ow = out->shape[3];
        const float *od = d2_tensor_data(out);
        for (int64_t p = 0; p < c->n * c->c; p++)
            for (int64_t i = 0; i < oh; i++)
                for (int64_t j = 0; j < ow; j++) {
                    float want = window_max(xd + p * c->h * c->w, c->h, c->w, c, i, j);
                    float got = od[(p * oh + i) * ow + j];
                    if (got != want)
                        fail_msg("case %zu plane %lld out [%lld, %lld]: %g, want %g", ci,
                                 (long long)p, (long long)i, (long long)j, (double)got,
                                 (double)want);
                }
        d2_attrs_free(&attrs);
        d2_tensor_unref(out);
        d2_tensor_unref(x);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_matches_direct_loop),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
