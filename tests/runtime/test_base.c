/* test_base.c - allocator fault injection, error contexts, byte buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base.h"

static void test_fault_injection(void **state)
{
    (void)state;
    d2_alloc_fail_after(2);
    void *a = d2_malloc(8), *b = d2_malloc(8), *c = d2_malloc(8);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(c);
    assert_null(d2_calloc(1, 1)); /* sticky */
    d2_alloc_fail_after(-1);
    void *d = d2_malloc(8);
    assert_non_null(d);
    d2_free(a);
    d2_free(b);
    d2_free(d);
}

static void test_first_error_wins(void **state)
{
    (void)state;
    d2_err err = {0};
    assert_int_equal(d2_err_set(&err, D2_ERR_SHAPE, "inner %d", 1), -1);
    d2_err_set(&err, D2_ERR_INVALID, "outer");
    assert_int_equal(err.code, D2_ERR_SHAPE);
    d2_err_prefix(&err, "op %s", "add");
    assert_string_equal(err.msg, "op add: inner 1");
    d2_err_clear(&err);
    assert_int_equal(err.code, D2_OK);
    assert_int_equal(d2_err_set(NULL, D2_ERR_IO, "ignored"), -1);
}

static void test_buf(void **state)
{
    (void)state;
    d2_buf b;
    d2_buf_init(&b);
    for (int i = 0; i < 100; i++)
        d2_buf_printf(&b, "%d,", i);
    char long_str[600];
    memset(long_str, 'x', sizeof long_str - 1);
    long_str[sizeof long_str - 1] = 0;
    d2_buf_printf(&b, "%s", long_str);
    char *s = d2_buf_take(&b);
    assert_non_null(s);
    assert_int_equal(strncmp(s, "0,1,2,", 6), 0);
    assert_int_equal(strlen(s), 290 + 599);
    d2_free(s);
    d2_buf_init(&b);
    d2_alloc_fail_after(0);
    d2_buf_puts(&b, "abc");
    d2_alloc_fail_after(-1);
    assert_true(b.oom);
    assert_null(d2_buf_take(&b));
}

/* d2_buf_put_i64 writes what "%lld" writes, at the extremes too. */
static void test_buf_put_i64(void **state)
{
    (void)state;
    static const int64_t vals[] = {0, 1, -1, 9, 10, -10, 1234567890123LL, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        d2_buf b;
        d2_buf_init(&b);
        d2_buf_puts(&b, "<");
        d2_buf_put_i64(&b, vals[i]);
        d2_buf_puts(&b, ">");
        char *s = d2_buf_take(&b);
        assert_non_null(s);
        char want[40];
        snprintf(want, sizeof want, "<%lld>", (long long)vals[i]);
        assert_string_equal(s, want);
        d2_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_injection),
        cmocka_unit_test(test_first_error_wins),
        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_buf_put_i64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
