/* test_bufpool.c - the buffer pool, and prepared Programs reusing buffers without clobbering live values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bufpool.h"
#include "exec.h"
#include "../testutil.h"

static int setup(void **state)
{
    (void)state;
    d2_err err = {0};
    return d2_ops_init(&err);
}

static void test_reuse_after_last_reference(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_bufpool *p = d2_bufpool_new(1 << 20, &err);
    assert_non_null(p);
    int64_t s[2] = {10, 10};
    d2_tensor *a = d2_bufpool_tensor_new(p, D2_F32, 2, s, &err);
    assert_non_null(a);
    void *data = d2_tensor_data(a);
    assert_int_equal((uintptr_t)data % 64, 0);
    int n;
    size_t bytes;
    /* a view keeps the buffer: nothing comes back while it lives */
    int64_t flat[1] = {100};
    d2_tensor *v = d2_tensor_reshape_view(a, 1, flat, &err);
    assert_non_null(v);
    d2_tensor_unref(a);
    d2_bufpool_stats(p, &n, &bytes);
    assert_int_equal(n, 0);
    d2_tensor *b = d2_bufpool_tensor_new(p, D2_F32, 2, s, &err);
    assert_ptr_not_equal(d2_tensor_data(b), data);
    d2_tensor_unref(v);
    d2_bufpool_stats(p, &n, &bytes);
    assert_int_equal(n, 1);
    assert_true(bytes >= 400);
    /* the same size again takes that buffer */
    d2_tensor *c = d2_bufpool_tensor_new(p, D2_F32, 2, s, &err);
    assert_ptr_equal(d2_tensor_data(c), data);
    d2_bufpool_stats(p, &n, &bytes);
    assert_int_equal(n, 0);
    /* a much smaller request does not take a large idle buffer */
    d2_tensor_unref(c);
    int64_t small[1] = {3};
    d2_tensor *d = d2_bufpool_tensor_new(p, D2_F32, 1, small, &err);
    assert_ptr_not_equal(d2_tensor_data(d), data);
    d2_bufpool_stats(p, &n, &bytes);
    assert_int_equal(n, 1);
    /* buffers outlive the pool's owner */
    d2_bufpool_close(p);
    float *bd = d2_tensor_data(b);
    bd[99] = 1.5f;
    assert_true(bd[99] == 1.5f);
    d2_tensor_unref(b);
    d2_tensor_unref(d);
}

static void test_idle_bound(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_bufpool *p = d2_bufpool_new(4096, &err);
    int64_t s[1] = {1000}, s2[1] = {900}; /* 4000 and 3648 bytes: one fits the bound */
    d2_tensor *a = d2_bufpool_tensor_new(p, D2_F32, 1, s, &err);
    d2_tensor *b = d2_bufpool_tensor_new(p, D2_F32, 1, s2, &err);
    void *bd = d2_tensor_data(b);
    d2_tensor_unref(a);
    d2_tensor_unref(b); /* the newer buffer pushes the older one out */
    int n;
    size_t bytes;
    d2_bufpool_stats(p, &n, &bytes);
    assert_int_equal(n, 1);
    assert_true(bytes <= 4096);
    d2_tensor *c = d2_bufpool_tensor_new(p, D2_F32, 1, s2, &err);
    assert_ptr_equal(d2_tensor_data(c), bd);
    d2_tensor_unref(c);
    /* a buffer over the bound on its own is not kept */
    int64_t big[1] = {2000};
    d2_tensor *d = d2_bufpool_tensor_new(p, D2_F32, 1, big, &err);
    d2_tensor_unref(d);
    d2_bufpool_stats(p, &n, &bytes);
    assert_int_equal(n, 1);
    d2_bufpool_close(p);
}

/* relu, scale and add on x: two runs of one prepared Program give outputs
 * of their own inputs, and outputs held across later runs keep their values. */
static const char *PROG = "block ^0 (x : float32[-1,4]) {\n"
                          "  a : float32[-1,4] = relu(x)\n"
                          "  b : float32[-1,4] = scale(a) {scale = 2}\n"
                          "  c : float32[-1,4] = add(b, x)\n"
                          "  return c, a, x\n"
                          "}\n";

static d2_tensor *input(float base)
{
    d2_err err = {0};
    int64_t s[2] = {3, 4};
    float v[12];
    for (int i = 0; i < 12; i++)
        v[i] = base + (float)(i - 6);
    d2_tensor *t = d2_tensor_from_data(D2_F32, 2, s, v, &err);
    assert_non_null(t);
    return t;
}

/* Checks outputs (c, a, x) against input base. */
static void check_outputs(d2_tensor **out, float base)
{
    for (int i = 0; i < 12; i++) {
        float x = base + (float)(i - 6), a = x > 0 ? x : 0;
        assert_true(((float *)d2_tensor_data(out[0]))[i] == 2 * a + x);
        assert_true(((float *)d2_tensor_data(out[1]))[i] == a);
        assert_true(((float *)d2_tensor_data(out[2]))[i] == x);
    }
}

static void test_outputs_held_across_runs(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_program *p = d2_program_parse(PROG, "t.prog", &err);
    assert_non_null(p);
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    assert_non_null(pp);
    d2_tensor *held[4][3];
    for (int r = 0; r < 4; r++) {
        d2_tensor *x = input((float)r * 3);
        assert_int_equal(d2_exec_run(pp, &x, 1, held[r], 3, &err), 0);
        d2_tensor_unref(x);
        /* every output of every earlier run is intact and has its own storage */
        for (int q = 0; q <= r; q++)
            check_outputs(held[q], (float)q * 3);
        for (int q = 0; q < r; q++)
            for (int j = 0; j < 2; j++)
                assert_ptr_not_equal(held[q][j]->storage, held[r][j]->storage);
    }
    /* dropping the held outputs lets later runs reuse their buffers; the
     * results stay right */
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 3; j++)
            d2_tensor_unref(held[r][j]);
    for (int r = 0; r < 3; r++) {
        d2_tensor *x = input(-(float)r), *out[3];
        assert_int_equal(d2_exec_run(pp, &x, 1, out, 3, &err), 0);
        d2_tensor_unref(x);
        check_outputs(out, -(float)r);
        for (int j = 0; j < 3; j++)
            d2_tensor_unref(out[j]);
    }
    /* an output outlives its prepared Program */
    d2_tensor *x = input(5), *out[3];
    assert_int_equal(d2_exec_run(pp, &x, 1, out, 3, &err), 0);
    d2_tensor_unref(x);
    d2_exec_free(pp);
    d2_program_free(p);
    check_outputs(out, 5);
    for (int j = 0; j < 3; j++)
        d2_tensor_unref(out[j]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_after_last_reference),
        cmocka_unit_test(test_idle_bound),
        cmocka_unit_test(test_outputs_held_across_runs),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
