/* test_tensor.c - tensor creation, reference counting, views, strided copies, tensor arrays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tensor.h"

static void test_dtypes(void **state)
{
    (void)state;
    assert_int_equal(d2_dtype_size(D2_F64), 8);
    assert_int_equal(d2_dtype_parse("float32", 7), D2_F32);
    assert_int_equal(d2_dtype_parse("i64", 3), D2_I64);
    assert_int_equal(d2_dtype_parse("complex", 7), -1);
    assert_string_equal(d2_dtype_name(D2_BOOL), "bool");
}

static void test_new_and_views(void **state)
{
    (void)state;
    d2_err err = {0};
    float data[6] = {1, 2, 3, 4, 5, 6};
    int64_t shape[2] = {2, 3};
    d2_tensor *t = d2_tensor_from_data(D2_F32, 2, shape, data, &err);
    assert_non_null(t);
    assert_int_equal(t->strides[0], 3);
    int64_t s2[1] = {6};
    d2_tensor *v = d2_tensor_reshape_view(t, 1, s2, &err);
    assert_non_null(v);
    assert_ptr_equal(d2_tensor_data(v), d2_tensor_data(t));
    d2_tensor_unref(t); /* the view keeps the storage alive */
    assert_true(d2_tensor_get_f64(v, 5) == 6.0);
    int64_t bad[1] = {5};
    assert_null(d2_tensor_reshape_view(v, 1, bad, &err));
    assert_int_equal(err.code, D2_ERR_SHAPE);
    d2_tensor_unref(v);
}

static void test_strided_copy(void **state)
{
    (void)state;
    d2_err err = {0};
    int32_t data[6] = {0, 1, 2, 3, 4, 5};
    int64_t shape[2] = {2, 3};
    d2_tensor *t = d2_tensor_from_data(D2_I32, 2, shape, data, &err);
    /* transpose as a strided view */
    t->shape[0] = 3;
    t->shape[1] = 2;
    t->strides[0] = 1;
    t->strides[1] = 3;
    assert_false(d2_tensor_is_contiguous(t));
    d2_tensor *c = d2_tensor_contiguous(t, &err);
    assert_non_null(c);
    int32_t want[6] = {0, 3, 1, 4, 2, 5};
    assert_memory_equal(d2_tensor_data(c), want, sizeof want);
    d2_tensor_unref(c);
    d2_tensor_unref(t);
}

static void test_arrays(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_tensor *a = d2_tensor_array_new(D2_F32, &err);
    d2_tensor *x = d2_tensor_scalar_f32(1.5f, &err);
    assert_int_equal(d2_tensor_array_set(a, 0, x, &err), 0);
    assert_int_equal(d2_tensor_array_set(a, 1, x, &err), 0);
    assert_int_equal(a->array_len, 2);
    assert_int_equal(d2_tensor_array_set(a, 5, x, &err), -1);
    assert_int_equal(err.code, D2_ERR_RUNTIME);
    d2_err_clear(&err);
    d2_tensor *i = d2_tensor_scalar_i64(3, &err);
    assert_int_equal(d2_tensor_array_set(a, 0, i, &err), -1);
    assert_int_equal(err.code, D2_ERR_DTYPE);
    d2_tensor *copy = d2_tensor_copy_to(a, NULL, &err);
    assert_int_equal(copy->array_len, 2);
    d2_tensor_unref(copy);
    d2_tensor_unref(i);
    d2_tensor_unref(x);
    d2_tensor_unref(a);
}

static void test_rejects_bad_shapes(void **state)
{
    (void)state;
    d2_err err = {0};
    int64_t shape[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_null(d2_tensor_new(NULL, D2_F32, 9, shape, &err));
    d2_err_clear(&err);
    int64_t neg[1] = {-2};
    assert_null(d2_tensor_new(NULL, D2_F32, 1, neg, &err));
    assert_int_equal(err.code, D2_ERR_SHAPE);
}

static void test_oom(void **state)
{
    (void)state;
    int64_t shape[1] = {4};
    for (long k = 0; k < 3; k++) {
        d2_err err = {0};
        d2_alloc_fail_after(k);
        d2_tensor *t = d2_tensor_zeros(D2_F32, 1, shape, &err);
        d2_alloc_fail_after(-1);
        if (t)
            d2_tensor_unref(t);
        else
            assert_int_equal(err.code, D2_ERR_NOMEM);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtypes),       cmocka_unit_test(test_new_and_views),
        cmocka_unit_test(test_strided_copy), cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_rejects_bad_shapes), cmocka_unit_test(test_oom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
