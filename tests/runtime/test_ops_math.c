/* test_ops_math.c - math ops: golden NumPy cases, inference with dynamic dims, runtime errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "opcase.h"
#include "../testutil.h"
#include "ops.h"

static int setup(void **state)
{
    (void)state;
    d2_err err = {0};
    return d2_ops_init(&err);
}

static void test_golden(void **state)
{
    (void)state;
    int n = 0;
    int failures = opcase_run_file(NULL, D2_SRCDIR "/tests/golden/ops_math.txt", &n);
    assert_int_equal(failures, 0);
    assert_true(n >= 300);
}

/* Special functions, activations, bitwise, scans, sorting and index ops (gen_ops_ext.py). */
static void test_golden_ext(void **state)
{
    (void)state;
    int n = 0;
    int failures = opcase_run_file(NULL, D2_SRCDIR "/tests/golden/ops_ext.txt", &n);
    assert_int_equal(failures, 0);
    assert_true(n >= 600);
}

/* The linear-algebra ops on LAPACK (gen_ops_linalg.py). */
static void test_golden_linalg(void **state)
{
    (void)state;
    int n = 0;
    int failures = opcase_run_file(NULL, D2_SRCDIR "/tests/golden/ops_linalg.txt", &n);
    assert_int_equal(failures, 0);
    assert_true(n >= 80);
}

/* cast between all ten dtypes, storage dtypes included, as Paddle 2.6.2 casts on CPU
 * (gen_dtypes.py): exact values, float16/bfloat16 truncation, integer wrap. */
static void test_golden_dtypes_cast(void **state)
{
    (void)state;
    int n = 0;
    int failures = opcase_run_file(NULL, D2_SRCDIR "/tests/golden/dtypes_cast.txt", &n);
    assert_int_equal(failures, 0);
    assert_int_equal(n, 100);
}

static void test_infer_dynamic(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_type out, in[3];

    in[0] = tu_ttype(D2_F32, 2, (int64_t[]){-1, 3});
    in[1] = tu_ttype(D2_F32, 1, (int64_t[]){3});
    assert_int_equal(tu_infer("add", "", in, 2, &out, &err), 0);
    tu_assert_shape(&out, D2_F32, 2, (int64_t[]){-1, 3});

    in[0] = tu_ttype(D2_I64, 3, (int64_t[]){-1, 1, 5});
    in[1] = tu_ttype(D2_I64, 2, (int64_t[]){4, 1});
    assert_int_equal(tu_infer("less_than", "", in, 2, &out, &err), 0);
    tu_assert_shape(&out, D2_BOOL, 3, (int64_t[]){-1, 4, 5});

    in[0] = tu_ttype(D2_BOOL, 2, (int64_t[]){-1, 1});
    in[1] = tu_ttype(D2_F64, 1, (int64_t[]){-1});
    in[2] = tu_ttype(D2_F64, 0, NULL);
    assert_int_equal(tu_infer("where", "", in, 3, &out, &err), 0);
    tu_assert_shape(&out, D2_F64, 2, (int64_t[]){-1, -1});

    in[0] = tu_ttype(D2_I32, 3, (int64_t[]){-1, 4, -1});
    assert_int_equal(tu_infer("sum", "axis = [1], keepdim = true", in, 1, &out, &err), 0);
    tu_assert_shape(&out, D2_I64, 3, (int64_t[]){-1, 1, -1});
    assert_int_equal(tu_infer("max", "axis = [-1]", in, 1, &out, &err), 0);
    tu_assert_shape(&out, D2_I32, 2, (int64_t[]){-1, 4});
    assert_int_equal(tu_infer("argmax", "axis = 0, dtype = int32", in, 1, &out, &err), 0);
    tu_assert_shape(&out, D2_I32, 2, (int64_t[]){4, -1});
    assert_int_equal(tu_infer("cast", "dtype = float64", in, 1, &out, &err), 0);
    tu_assert_shape(&out, D2_F64, 3, (int64_t[]){-1, 4, -1});

    in[0] = tu_ttype(D2_F32, 2, (int64_t[]){-1, -1});
    assert_int_equal(tu_infer("softmax", "axis = 0", in, 1, &out, &err), 0);
    tu_assert_shape(&out, D2_F32, 2, (int64_t[]){-1, -1});
    assert_int_equal(tu_infer("mean", "", in, 1, &out, &err), 0);
    tu_assert_shape(&out, D2_F32, 0, NULL);

    /* a static non-1 dim against a dynamic one still fixes the result */
    in[0] = tu_ttype(D2_F32, 1, (int64_t[]){-1});
    in[1] = tu_ttype(D2_F32, 1, (int64_t[]){6});
    assert_int_equal(tu_infer("maximum", "", in, 2, &out, &err), 0);
    tu_assert_shape(&out, D2_F32, 1, (int64_t[]){6});
}

static void test_infer_errors(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_type out, in[2];
    in[0] = tu_ttype(D2_I32, 1, (int64_t[]){-1});
    assert_int_equal(tu_infer("exp", "", in, 1, &out, &err), -1);
    assert_int_equal(err.code, D2_ERR_DTYPE);
    assert_non_null(strstr(err.msg, "exp"));
    d2_err_clear(&err);
    in[1] = tu_ttype(D2_I64, 1, (int64_t[]){-1});
    assert_int_equal(tu_infer("multiply", "", in, 2, &out, &err), -1);
    assert_non_null(strstr(err.msg, "int32 and int64"));
    d2_err_clear(&err);
    in[0] = tu_ttype(D2_F32, 2, (int64_t[]){2, 3});
    in[1] = tu_ttype(D2_F32, 2, (int64_t[]){3, 2});
    assert_int_equal(tu_infer("add", "", in, 2, &out, &err), -1);
    assert_int_equal(err.code, D2_ERR_SHAPE);
    d2_err_clear(&err);
    assert_int_equal(tu_infer("sum", "axis = [0, 5]", in, 1, &out, &err), -1);
    assert_int_equal(err.code, D2_ERR_INVALID);
}

static d2_tensor *run1(const char *name, const char *attrs, d2_tensor **in, int n_in, d2_err *err)
{
    const d2_opdef *def = d2_op_lookup(name, strlen(name));
    assert_non_null(def);
    d2_attrs a;
    assert_int_equal(d2_attrs_parse(def, attrs, &a, err), 0);
    d2_tensor *out = NULL;
    int rc = d2_op_run(NULL, def->id, &a, in, n_in, &out, 1, err);
    d2_attrs_free(&a);
    assert_true(rc == 0 ? out != NULL : out == NULL);
    return out;
}

static void test_int_divide_by_zero(void **state)
{
    (void)state;
    const char *ops[] = {"divide", "floor_divide", "remainder"};
    int64_t n = 4;
    int32_t xs[4] = {7, -7, INT32_MIN, 5};
    int32_t ys[4] = {2, 2, -1, 0};
    d2_err err = {0};
    d2_tensor *in[2] = {d2_tensor_from_data(D2_I32, 1, &n, xs, &err),
                        d2_tensor_from_data(D2_I32, 1, &n, ys, &err)};
    for (size_t i = 0; i < D2_COUNTOF(ops); i++) {
        d2_err_clear(&err);
        assert_null(run1(ops[i], "", in, 2, &err));
        assert_int_equal(err.code, D2_ERR_RUNTIME);
        assert_non_null(strstr(err.msg, "division by zero"));
        assert_non_null(strstr(err.msg, ops[i]));
    }
    /* without the zero: truncating divide, INT32_MIN / -1 wraps instead of trapping */
    ys[3] = 3;
    d2_tensor_unref(in[1]);
    in[1] = d2_tensor_from_data(D2_I32, 1, &n, ys, &err);
    d2_err_clear(&err);
    d2_tensor *q = run1("divide", "", in, 2, &err);
    assert_non_null(q);
    const int32_t *qd = d2_tensor_data(q);
    assert_int_equal(qd[0], 3);
    assert_int_equal(qd[1], -3);
    assert_int_equal(qd[2], INT32_MIN);
    assert_int_equal(qd[3], 1);
    d2_tensor_unref(q);
    q = run1("floor_divide", "", in, 2, &err);
    assert_non_null(q);
    qd = d2_tensor_data(q);
    assert_int_equal(qd[1], -4);
    assert_int_equal(qd[2], INT32_MIN);
    d2_tensor_unref(q);
    d2_tensor_unref(in[0]);
    d2_tensor_unref(in[1]);
}

/* float32 softmax over the last axis against a double reference: rows of 3 and 37
 * elements, a masked (-inf) entry gives exactly 0, a NaN makes its row NaN, and very
 * negative differences underflow to 0. */
static void test_softmax_rows(void **state)
{
    (void)state;
    d2_err err = {0};
    int64_t shape[2] = {4, 37};
    float xs[4 * 37];
    for (int i = 0; i < 4 * 37; i++)
        xs[i] = (float)sin(i * 0.7) * 9.0f - (float)(i % 5);
    xs[37 + 3] = -INFINITY;
    xs[2 * 37 + 5] = NAN;
    xs[3 * 37 + 1] = 200.0f; /* the others are ~200 below it */
    d2_tensor *in = d2_tensor_from_data(D2_F32, 2, shape, xs, &err);
    d2_tensor *out = run1("softmax", "axis = -1", &in, 1, &err);
    assert_non_null(out);
    const float *o = d2_tensor_data(out);
    for (int r = 0; r < 4; r++) {
        const float *x = xs + r * 37;
        double m = -INFINITY, s = 0;
        for (int i = 0; i < 37; i++)
            m = x[i] > m ? x[i] : m;
        for (int i = 0; i < 37; i++)
            s += exp((double)x[i] - m);
        for (int i = 0; i < 37; i++) {
            double want = exp((double)x[i] - m) / s;
            float got = o[r * 37 + i];
            if (r == 2) {
                assert_true(isnan(got));
            } else if (fabs(got - want) > 1e-6 * want + 1e-30) {
                fail_msg("softmax row %d element %d: %.9g, not %.9g", r, i, got, want);
            }
        }
    }
    assert_true(o[37 + 3] == 0.0f);
    assert_true(o[3 * 37 + 1] == 1.0f);
    d2_tensor_unref(out);
    d2_tensor_unref(in);
    /* rows of 3 */
    int64_t s3[2] = {2, 3};
    float x3[6] = {1, 2, 3, -1, 0, 1};
    in = d2_tensor_from_data(D2_F32, 2, s3, x3, &err);
    out = run1("softmax", "axis = 1", &in, 1, &err);
    assert_non_null(out);
    o = d2_tensor_data(out);
    double e1 = exp(-2.0), e2 = exp(-1.0), tot = e1 + e2 + 1;
    for (int r = 0; r < 2; r++) {
        assert_true(fabs(o[r * 3] - e1 / tot) < 1e-7);
        assert_true(fabs(o[r * 3 + 1] - e2 / tot) < 1e-7);
        assert_true(fabs(o[r * 3 + 2] - 1 / tot) < 1e-7);
    }
    d2_tensor_unref(out);
    d2_tensor_unref(in);
}

/* float32 tanh and sigmoid (vector polynomials, not libm) against double precision on every
 * length from 1 to 40 and 67 (vector blocks and scalar tails), out of place and in place:
 * values across [-30, 30] with the branch points of both (|x| = 0.625 for tanh, the clamps
 * near 88 for sigmoid) and special values. Tolerance: 2.5e-7 relative (at most 2.5 ulp), plus
 * 1e-38 absolute for sigmoid's underflow; zeros keep their sign in tanh, infinities give the
 * limits exactly and NaN stays NaN. */
static void check_act(const char *op, int64_t n, const float *xs, bool in_place)
{
    const d2_opdef *def = d2_op_lookup(op, strlen(op));
    d2_attrs a;
    d2_err err = {0};
    bool tanh_op = strcmp(op, "tanh") == 0;
    assert_int_equal(d2_attrs_parse(def, "", &a, &err), 0);
    int64_t shape[1] = {n};
    d2_tensor *x = d2_tensor_from_data(D2_F32, 1, shape, xs, &err), *out = NULL;
    assert_non_null(x);
    if (in_place) {
        /* the kernel itself with its output as its input, as the in-place pass runs it */
        out = d2_tensor_ref(x);
        d2_kctx k = {def, &a, NULL, 1, &x, 1, &out, &err, NULL, 0, 0};
        assert_int_equal((tanh_op ? cpu_tanh : cpu_sigmoid)(&k), 0);
    } else {
        assert_int_equal(d2_op_run(NULL, def->id, &a, &x, 1, &out, 1, &err), 0);
    }
    const float *o = d2_tensor_data(out);
    for (int64_t i = 0; i < n; i++) {
        double v = xs[i], want = tanh_op ? tanh(v) : 1 / (1 + exp(-v));
        float got = o[i];
        bool ok;
        if (isnan(v))
            ok = isnan(got);
        else if (isinf(v) || (tanh_op && v == 0))
            ok = got == (float)want && signbit(got) == signbit((float)want);
        else
            ok = fabs(got - want) <= 2.5e-7 * fabs(want) + (tanh_op ? 0 : 1e-38);
        if (!ok)
            fail_msg("%s%s n=%lld [%lld] of %.9g: %.9g, want %.9g", op, in_place ? " in place" : "",
                     (long long)n, (long long)i, v, got, want);
    }
    d2_tensor_unref(out);
    d2_tensor_unref(x);
    d2_attrs_free(&a);
}

static void test_tanh_sigmoid_f32(void **state)
{
    (void)state;
    static const float special[] = {0.0f, -0.0f, 0.625f, -0.625f, 0.62499994f, 0.62500006f,
                                    INFINITY, -INFINITY, NAN, 1e-30f, -1e-30f, 1e-45f, 9.0f,
                                    -9.0f, 20.0f, 88.3f, -88.3f, -88.2f, -88.4f, -100.0f, 87.5f,
                                    -87.0f, 1e-4f, -3.5e-3f};
    float xs[67], cp[67];
    for (int64_t n = 1; n <= 67; n = n == 40 ? 67 : n + 1) {
        for (int64_t i = 0; i < n; i++)
            xs[i] = (float)((i * 7919 + n * 131) % 601 - 300) / 10;
        for (int64_t i = 0; i < n && i < (int64_t)D2_COUNTOF(special); i += 3)
            xs[(i * 5 + n) % n] = special[(i + n) % D2_COUNTOF(special)];
        for (int ip = 0; ip < 2; ip++) {
            memcpy(cp, xs, sizeof xs);
            check_act("tanh", n, cp, ip);
            memcpy(cp, xs, sizeof xs);
            check_act("sigmoid", n, cp, ip);
        }
    }
    /* every special value in one vector block */
    memcpy(xs, special, sizeof special);
    check_act("tanh", D2_COUNTOF(special), xs, false);
    check_act("sigmoid", D2_COUNTOF(special), xs, false);
    /* a dense sweep over the range where the polynomials switch */
    for (int i = 0; i < 67; i++)
        xs[i] = -1.0f + (float)i * (2.0f / 66);
    check_act("tanh", 67, xs, false);
    check_act("sigmoid", 67, xs, false);
}

/* Float-to-int casts of NaN/inf/huge values are defined (no UB): INT_MIN. */
static void test_cast_out_of_range(void **state)
{
    (void)state;
    int64_t n = 5;
    float xs[5] = {NAN, INFINITY, -INFINITY, 3e9f, -2.5f};
    d2_err err = {0};
    d2_tensor *x = d2_tensor_from_data(D2_F32, 1, &n, xs, &err);
    d2_tensor *y = run1("cast", "dtype = int32", &x, 1, &err);
    assert_non_null(y);
    const int32_t *yd = d2_tensor_data(y);
    for (int i = 0; i < 4; i++)
        assert_int_equal(yd[i], INT32_MIN);
    assert_int_equal(yd[4], -2);
    d2_tensor_unref(y);
    d2_tensor_unref(x);
}

/* Non-contiguous inputs go through d2_op_run's contiguous copy. */
static void test_strided_input(void **state)
{
    (void)state;
    int64_t shape[2] = {2, 3};
    double xs[6] = {1, 2, 3, 4, 5, 6};
    d2_err err = {0};
    d2_tensor *x = d2_tensor_from_data(D2_F64, 2, shape, xs, &err);
    x->shape[0] = 3; /* transpose view: [[1,4],[2,5],[3,6]] */
    x->shape[1] = 2;
    x->strides[0] = 1;
    x->strides[1] = 3;
    d2_tensor *s = run1("sum", "axis = [1]", &x, 1, &err);
    assert_non_null(s);
    const double *sd = d2_tensor_data(s);
    assert_true(sd[0] == 5 && sd[1] == 7 && sd[2] == 9);
    d2_tensor_unref(s);
    d2_tensor_unref(x);
}

/* Allocation failures inside kernels come back as errors, with nothing leaked. */
static void test_alloc_failure(void **state)
{
    (void)state;
    int64_t shape[2] = {4, 5};
    float xs[20] = {0};
    d2_err err = {0};
    d2_tensor *x = d2_tensor_from_data(D2_F32, 2, shape, xs, &err);
    const char *ops[][2] = {{"sum", "axis = [0]"}, {"softmax", "axis = 0"}, {"argmax", "dtype = int32"}};
    for (size_t i = 0; i < D2_COUNTOF(ops); i++) {
        bool failed = false, passed = false;
        for (long k = 0; k < 20 && !passed; k++) {
            d2_err_clear(&err);
            const d2_opdef *def = d2_op_lookup(ops[i][0], strlen(ops[i][0]));
            d2_attrs a;
            assert_int_equal(d2_attrs_parse(def, ops[i][1], &a, &err), 0);
            d2_tensor *out = NULL;
            d2_alloc_fail_after(k);
            int rc = d2_op_run(NULL, def->id, &a, &x, 1, &out, 1, &err);
            d2_alloc_fail_after(-1);
            d2_attrs_free(&a);
            if (rc < 0) {
                assert_int_equal(err.code, D2_ERR_NOMEM);
                assert_null(out);
                failed = true;
            } else {
                passed = true;
                d2_tensor_unref(out);
            }
        }
        assert_true(failed && passed);
    }
    d2_tensor_unref(x);
}

/* softmax along the last axis of float32 rows of every length from 1 to 40 and 100 (the
 * vectorised row path and its masked tails; rows up to 16 long run 16 rows at a time, so 37
 * rows give two full blocks and a tail of 5) against a double-precision softmax: values in
 * [-30, 30], a -inf in some rows (its probability must be exactly 0), a row of NaN stays NaN.
 * Tolerance: 1e-6 relative (libm's expf and the vector exp differ by at most a few ulp). */
static void test_softmax_row_lengths(void **state)
{
    (void)state;
    enum { ROWS = 37 };
    const d2_opdef *def = d2_op_lookup("softmax", 7);
    d2_attrs a;
    d2_err err = {0};
    assert_int_equal(d2_attrs_parse(def, "axis = -1", &a, &err), 0);
    static float xs[ROWS * 100];
    for (int64_t n = 1; n <= 100; n = n == 40 ? 100 : n + 1) {
        for (int64_t i = 0; i < ROWS * n; i++)
            xs[i] = (float)((i * 7919 % 601) - 300) / 10;
        if (n > 2) {
            xs[n + 1] = -INFINITY;               /* row 1 */
            xs[(ROWS - 1) * n + n - 1] = -INFINITY; /* the last row's last element */
        }
        xs[2 * n] = NAN;                         /* row 2 */
        int64_t shape[2] = {ROWS, n};
        d2_tensor *x = d2_tensor_from_data(D2_F32, 2, shape, xs, &err), *out = NULL;
        assert_non_null(x);
        assert_int_equal(d2_op_run(NULL, def->id, &a, &x, 1, &out, 1, &err), 0);
        const float *o = d2_tensor_data(out);
        for (int r = 0; r < ROWS; r++) {
            if (r == 2)
                continue;
            const float *xr = xs + r * n;
            double m = -INFINITY, sum = 0;
            for (int64_t i = 0; i < n; i++)
                m = xr[i] > m ? xr[i] : m;
            for (int64_t i = 0; i < n; i++)
                sum += exp((double)xr[i] - m);
            for (int64_t i = 0; i < n; i++) {
                double want = exp((double)xr[i] - m) / sum, got = o[r * n + i];
                if (isinf(xr[i]) ? got != 0 : fabs(got - want) > 1e-6 * want + 1e-37)
                    fail_msg("n=%lld row %d [%lld]: %.9g, want %.9g", (long long)n, r,
                             (long long)i, got, want);
            }
        }
        for (int64_t i = 0; i < n; i++)
            assert_true(isnan(o[2 * n + i]));
        d2_tensor_unref(out);
        d2_tensor_unref(x);
    }
    d2_attrs_free(&a);
}

/* Reductions of 64K elements and more whose first dim is kept split over threads: each output
 * sums in the same order, so the result is bit for bit the one-thread result, and matches a
 * double-precision sum. */
static void test_reduce_threads(void **state)
{
    (void)state;
    static const struct {
        int64_t shape[4];
        d2_op_id op;
        const char *attrs;
    } cases[] = {
        {{32, 8, 8, 64}, D2_OP_mean, "axis = [1, 2]"},
        {{6, 50, 30, 9}, D2_OP_sum, "axis = [1, 3]"},
        {{40, 2000, 1, 1}, D2_OP_max, "axis = [1]"},
    };
    d2_err err = {0};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        d2_attrs attrs;
        assert_int_equal(d2_attrs_parse(d2_op_def(cases[c].op), cases[c].attrs, &attrs, &err), 0);
        d2_tensor *x = tu_filled_f32(4, cases[c].shape, 30 + (unsigned)c);
        d2_tensor *ref = tu_run_on_threads(cases[c].op, &attrs, x);
        if (cases[c].op == D2_OP_mean) { /* against a double sum over axes 1 and 2 */
            const int64_t *xs = cases[c].shape;
            const float *xp = d2_tensor_data(x), *rp = d2_tensor_data(ref);
            for (int64_t n = 0; n < xs[0]; n++)
                for (int64_t k = 0; k < xs[3]; k++) {
                    double sum = 0;
                    for (int64_t i = 0; i < xs[1] * xs[2]; i++)
                        sum += xp[(n * xs[1] * xs[2] + i) * xs[3] + k];
                    assert_true(fabs(rp[n * xs[3] + k] - sum / (double)(xs[1] * xs[2])) <= 1e-6);
                }
        }
        d2_tensor_unref(ref);
        d2_tensor_unref(x);
        d2_attrs_free(&attrs);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_softmax_row_lengths),
        cmocka_unit_test(test_tanh_sigmoid_f32),
        cmocka_unit_test(test_golden_ext),
        cmocka_unit_test(test_golden_linalg),
        cmocka_unit_test(test_golden_dtypes_cast),
        cmocka_unit_test(test_infer_dynamic),
        cmocka_unit_test(test_infer_errors),
        cmocka_unit_test(test_int_divide_by_zero),
        cmocka_unit_test(test_cast_out_of_range),
        cmocka_unit_test(test_softmax_rows),
        cmocka_unit_test(test_strided_input),
        cmocka_unit_test(test_alloc_failure),
        cmocka_unit_test(test_reduce_threads),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
