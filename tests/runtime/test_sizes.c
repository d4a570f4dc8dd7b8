/* test_sizes.c - overflow-safe sizes: element counts, strides, the byte cap, inference, verifier, executor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "ops.h"

#define G32 INT64_C(4294967296)

static void assert_has(const char *msg, const char *needle)
{
    if (!strstr(msg, needle))
        fail_msg("'%s' does not contain '%s'", msg, needle);
}

static void test_numel_checked(void **state)
{
    (void)state;
    int64_t n = -7;
    int64_t ok[] = {3, 5, 7}, big[] = {G32, G32}, neg[] = {4, -2}, zero[] = {0, INT64_MAX, 2};
    assert_true(d2_numel_checked(3, ok, &n));
    assert_int_equal(n, 105);
    assert_false(d2_numel_checked(2, big, &n));
    assert_false(d2_numel_checked(2, neg, &n));
    assert_true(d2_numel_checked(3, zero, &n));
    assert_int_equal(n, 0);
    assert_true(d2_numel_checked(0, NULL, &n));
    assert_int_equal(n, 1);
    d2_shape s = {2, {G32, G32}}, d = {2, {-1, G32}};
    assert_true(d2_shape_numel(&s) == INT64_MAX); /* saturates, never wraps */
    assert_int_equal(d2_shape_numel(&d), -1);
}

static void test_strides_saturate(void **state)
{
    (void)state;
    int64_t shape[3] = {G32, G32, G32}, st[3];
    d2_contiguous_strides(3, shape, st);
    assert_int_equal(st[2], 1);
    assert_true(st[1] == G32);
    assert_true(st[0] == INT64_MAX);
}

static void test_check_size_message(void **state)
{
    (void)state;
    d2_err err = {0};
    int64_t big[2] = {G32, G32};
    assert_int_equal(d2_tensor_check_size(D2_F32, 2, big, &err), -1);
    assert_int_equal(err.code, D2_ERR_NOMEM);
    assert_string_equal(err.msg, "cannot allocate a float32 tensor of shape [4294967296, "
                                 "4294967296]: 73786976294838206464 bytes");
    /* fits int64 as a count, not as float64 bytes */
    d2_err_clear(&err);
    int64_t c[1] = {INT64_C(1) << 62};
    assert_int_equal(d2_tensor_check_size(D2_F64, 1, c, &err), -1);
    assert_string_equal(err.msg,
                        "cannot allocate a float64 tensor of shape [4611686018427387904]: "
                        "36893488147419103232 bytes");
    /* empty, but its strides would overflow */
    d2_err_clear(&err);
    int64_t e[3] = {0, G32, G32};
    assert_int_equal(d2_tensor_check_size(D2_BOOL, 3, e, &err), -1);
    assert_int_equal(err.code, D2_ERR_SHAPE);
    assert_has(err.msg, "strides overflow");
    d2_err_clear(&err);
    int64_t neg[2] = {3, -1};
    assert_int_equal(d2_tensor_check_size(D2_F32, 2, neg, &err), -1);
    assert_int_equal(err.code, D2_ERR_SHAPE);
    int64_t fine[3] = {0, 5, 7};
    assert_int_equal(d2_tensor_check_size(D2_F32, 3, fine, NULL), 0);
}

static void test_byte_cap(void **state)
{
    (void)state;
    assert_true(d2_tensor_max_bytes() >= ((size_t)1 << 30));
    d2_tensor_set_max_bytes(1024);
    assert_int_equal(d2_tensor_max_bytes(), 1024);
    d2_err err = {0};
    int64_t ok[1] = {256}, over[1] = {257};
    d2_tensor *t = d2_tensor_new(NULL, D2_F32, 1, ok, &err);
    assert_non_null(t);
    d2_tensor_unref(t);
    assert_null(d2_tensor_new(NULL, D2_F32, 1, over, &err));
    assert_int_equal(err.code, D2_ERR_NOMEM);
    assert_string_equal(err.msg, "cannot allocate a float32 tensor of shape [257]: 1028 bytes");
    d2_tensor_set_max_bytes(0);
    assert_true(d2_tensor_max_bytes() > 1024);
}

static void test_tensor_new_and_views(void **state)
{
    (void)state;
    d2_err err = {0};
    int64_t big[2] = {G32, G32};
    assert_null(d2_tensor_new(NULL, D2_F32, 2, big, &err));
    assert_int_equal(err.code, D2_ERR_NOMEM);
    d2_err_clear(&err);
    assert_null(d2_tensor_zeros(D2_I64, 2, big, &err));
    d2_err_clear(&err);
    /* a view may not claim what no tensor may be */
    int64_t four[1] = {4};
    d2_tensor *t = d2_tensor_zeros(D2_F32, 1, four, &err);
    assert_non_null(t);
    int64_t wrap[2] = {INT64_C(4611686018427387904), 4}; /* 2^64 elements: wraps to 0 */
    assert_null(d2_tensor_reshape_view(t, 2, wrap, &err));
    assert_int_not_equal(err.code, D2_OK);
    d2_tensor_unref(t);
}

static void test_broadcast_then_infer(void **state)
{
    (void)state;
    assert_int_equal(d2_ops_init(NULL), 0);
    d2_err err = {0};
    d2_shape a = {2, {G32, 1}}, b = {2, {1, G32}}, out;
    assert_int_equal(d2_broadcast_shapes(&a, &b, &out, NULL, &err), 0);
    assert_true(out.dims[0] == G32 && out.dims[1] == G32);
    /* the shapes broadcast, but the result cannot exist: inference says so */
    d2_type in[2] = {{D2_VALUE_TENSOR, D2_F32, a}, {D2_VALUE_TENSOR, D2_F32, b}}, o;
    d2_attrs at;
    d2_attrs_init_default(d2_op_def(D2_OP_add), &at);
    assert_int_equal(d2_op_infer(d2_op_def(D2_OP_add), &at, in, NULL, 2, &o, 1, &err), -1);
    assert_has(err.msg, "add: output 0: cannot allocate a float32 tensor of shape "
                        "[4294967296, 4294967296]");
    d2_attrs_free(&at);
    /* dynamic dims count as 1: a half-known type still fits */
    d2_type t = {D2_VALUE_TENSOR, D2_F32, {2, {-1, G32}}};
    assert_int_equal(d2_type_check_size(&t, NULL), 0);
    t.shape.dims[0] = -2;
    d2_err_clear(&err);
    assert_int_equal(d2_type_check_size(&t, &err), -1);
    assert_has(err.msg, "negative dim -2");
}

/* Parses and verifies text; returns the verifier's message (or "" when it passes). */
static const char *verify_text(const char *text, d2_err *err)
{
    d2_program *p = d2_program_parse(text, "t.prog", err);
    if (!p)
        fail_msg("parse: %s", err->msg);
    int rc = d2_program_verify(p, err);
    d2_program_free(p);
    return rc == 0 ? "" : err->msg;
}

static void test_verifier_names_op(void **state)
{
    (void)state;
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"block ^0 (x : float32[1,1]) {\n"
         "  y : float32[-1,-1] = expand(x) {shape = [4294967296, 4294967296]}\n"
         "  return y\n}\n",
         "block ^0, op 0 (expand): output 0: cannot allocate a float32 tensor"},
        {"block ^0 (x : float32[2]) {\n"
         "  y : float32[-1,-1] = tile(x) {repeat_times = [4611686018427387904, 4]}\n"
         "  return y\n}\n",
         "op 0 (tile)"},
        {"block ^0 (x : float32[-1]) {\n"
         "  y : float32[4294967296,4294967296] = relu(x)\n"
         "  return y\n}\n",
         "op 0 (relu): output 'y': cannot allocate"},
        {"block ^0 (x : float32[4294967296,4294967296]) {\n"
         "  return x\n}\n",
         "variable 'x': cannot allocate"},
        {"block ^0 (x : float32[1,1,4,4], w : float32[1,1,3,3]) {\n"
         "  y : float32[-1,-1,-1,-1] = conv2d(x, w, _) {strides = [1, 1], paddings = "
         "[9223372036854775807, 0], dilations = [1, 1], groups = 1, padding_algorithm = "
         "\"EXPLICIT\"}\n  return y\n}\n",
         "op 0 (conv2d): the height sizes overflow"},
        {"block ^0 (x : float32[1,4,4,4], w : float32[4,1,3,3]) {\n"
         "  y : float32[-1,-1,-1,-1] = conv2d(x, w, _) {strides = [1, 1], paddings = [0, 0], "
         "dilations = [4611686018427387904, 1], groups = 4, padding_algorithm = \"EXPLICIT\"}\n"
         "  return y\n}\n",
         "op 0 (conv2d): the height sizes overflow"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        d2_err err = {0};
        assert_has(verify_text(cases[i].text, &err), cases[i].needle);
    }
}

/* Runs a one-input Program on x; returns the run's error message. */
static void run_fails(const char *text, d2_tensor *x, d2_tensor *s, const char *needle)
{
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, "t.prog", &err);
    assert_non_null(p);
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    if (!pp)
        fail_msg("prepare: %s", err.msg);
    d2_tensor *in[2] = {x, s}, *out[1] = {NULL};
    assert_int_equal(d2_exec_run(pp, in, s ? 2 : 1, out, 1, &err), -1);
    assert_null(out[0]);
    assert_has(err.msg, needle);
    d2_exec_free(pp);
    d2_program_free(p);
}

static void test_executor_dynamic(void **state)
{
    (void)state;
    d2_err err = {0};
    int64_t one[2] = {1, 1}, two[1] = {2};
    float v = 1;
    d2_tensor *x = d2_tensor_from_data(D2_F32, 2, one, &v, &err);
    int64_t sv[2] = {G32, G32};
    d2_tensor *s = d2_tensor_from_data(D2_I64, 1, two, sv, &err);
    assert_non_null(x);
    assert_non_null(s);
    run_fails("block ^0 (x : float32[-1,-1], s : int64[2]) {\n"
              "  y : float32[-1,-1] = expand(x, s)\n  return y\n}\n",
              x, s, "cannot allocate a float32 tensor of shape [4294967296, 4294967296]");
    run_fails("block ^0 (s : float32[-1,-1], t : int64[2]) {\n"
              "  y : float32[-1,-1] = full(t) {value = 7, dtype = float32}\n  return y\n}\n",
              x, s, "cannot allocate a float32 tensor of shape [4294967296, 4294967296]");
    run_fails("block ^0 (x : float32[-1,-1]) {\n"
              "  y : float32[-1,-1] = tile(x) {repeat_times = [4611686018427387904, 4]}\n"
              "  return y\n}\n",
              x, NULL, "output 0: cannot allocate a float32 tensor");
    d2_tensor_unref(x);
    d2_tensor_unref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numel_checked),
        cmocka_unit_test(test_strides_saturate),
        cmocka_unit_test(test_check_size_message),
        cmocka_unit_test(test_byte_cap),
        cmocka_unit_test(test_tensor_new_and_views),
        cmocka_unit_test(test_broadcast_then_infer),
        cmocka_unit_test(test_verifier_names_op),
        cmocka_unit_test(test_executor_dynamic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
