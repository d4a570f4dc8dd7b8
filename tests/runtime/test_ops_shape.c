/* test_ops_shape.c - shape, creation, tensor-array and side-effect ops: golden, inference, arrays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "opcase.h"
#include "../testutil.h"

/* ---- golden cases from tests/gen/gen_ops_shape.py ---- */

static void test_golden(void **state)
{
    (void)state;
    int n = 0;
    int failed = opcase_run_file(NULL, D2_SRCDIR "/tests/golden/ops_shape.txt", &n);
    assert_int_equal(failed, 0);
    assert_true(n >= 150);
}

/* ---- static inference ---- */

static d2_type absent(void)
{
    d2_type t;
    memset(&t, 0, sizeof t);
    t.dtype = (d2_dtype)-1;
    return t;
}

/* Infers op `name` with attribute text on types in[] (no known values) and
 * returns the type string of output `which`, or "error: <msg>". */
static const char *infer_str(const char *name, const char *attrs, const d2_type *in, int n_in,
                             int n_out, int which)
{
    static char buf[1200];
    d2_err err = {0};
    const d2_opdef *def = d2_op_lookup(name, strlen(name));
    assert_non_null(def);
    d2_attrs a;
    assert_int_equal(d2_attrs_parse(def, attrs, &a, &err), 0);
    d2_type out[8];
    if (d2_op_infer(def, &a, in, NULL, n_in, out, n_out, &err) < 0)
        snprintf(buf, sizeof buf, "error: %s", err.msg);
    else
        d2_type_str(&out[which], buf, sizeof buf);
    d2_attrs_free(&a);
    return buf;
}

static void test_infer_dynamic(void **state)
{
    (void)state;
    d2_type x = tu_ttype(D2_F32, 3, (int64_t[]){-1, 3, 4});
    assert_string_equal(infer_str("reshape", "shape = [0, -1]", &x, 1, 1, 0), "float32[-1,-1]");
    assert_string_equal(infer_str("reshape", "shape = [0, 12]", &x, 1, 1, 0), "float32[-1,12]");
    assert_string_equal(infer_str("reshape", "shape = [-1, 6, 2]", &x, 1, 1, 0),
                        "float32[-1,6,2]");
    d2_type rs[2] = {x, tu_ttype(D2_I64, 1, (int64_t[]){3})};
    assert_string_equal(infer_str("reshape", "", rs, 2, 1, 0), "float32[-1,-1,-1]");
    rs[1] = tu_ttype(D2_I32, 1, (int64_t[]){-1});
    assert_non_null(strstr(infer_str("reshape", "", rs, 2, 1, 0), "must be static"));
    assert_string_equal(infer_str("flatten", "start_axis = 1", &x, 1, 1, 0), "float32[-1,12]");
    assert_string_equal(infer_str("flatten", "", &x, 1, 1, 0), "float32[-1]");
    d2_type sq = tu_ttype(D2_I32, 3, (int64_t[]){1, -1, 3});
    assert_string_equal(infer_str("squeeze", "", &sq, 1, 1, 0), "int32[-1,3]");
    /* a listed dynamic dim is squeezed, as Paddle does at compile time */
    assert_string_equal(infer_str("squeeze", "axis = [1]", &sq, 1, 1, 0), "int32[1,3]");
    assert_string_equal(infer_str("unsqueeze", "axis = [0, -1]", &sq, 1, 1, 0),
                        "int32[1,1,-1,3,1]");
    assert_string_equal(infer_str("transpose", "perm = [2, 0, 1]", &x, 1, 1, 0),
                        "float32[4,-1,3]");

    d2_type cc[2] = {tu_ttype(D2_F32, 2, (int64_t[]){2, -1}),
                     tu_ttype(D2_F32, 2, (int64_t[]){3, 4})};
    assert_string_equal(infer_str("concat", "", cc, 2, 1, 0), "float32[5,4]");
    assert_string_equal(infer_str("concat", "axis = 1", cc + 1, 1, 1, 0), "float32[3,4]");
    cc[0] = tu_ttype(D2_F32, 2, (int64_t[]){-1, 4});
    assert_string_equal(infer_str("concat", "axis = 0", cc, 2, 1, 0), "float32[-1,4]");
    /* -1 yields to the static dim of the other input */
    assert_string_equal(infer_str("concat", "axis = -1", cc, 2, 1, 0), "float32[3,8]");
    cc[0] = tu_ttype(D2_F32, 2, (int64_t[]){2, 5});
    assert_string_equal(infer_str("concat", "axis = 1", cc, 2, 1, 0),
                        "error: concat: input 1 has shape [3,4], input 0 has [2,5] (dim 0 "
                        "differs)");
    cc[0] = tu_ttype(D2_F32, 2, (int64_t[]){-1, 4});
    assert_string_equal(infer_str("stack", "axis = 1", cc, 2, 1, 0), "float32[3,2,4]");

    d2_type sp = tu_ttype(D2_F32, 2, (int64_t[]){-1, 4});
    assert_string_equal(infer_str("split", "num = 2", &sp, 1, 2, 1), "float32[-1,4]");
    assert_string_equal(infer_str("split", "sections = [1, -1]", &sp, 1, 2, 0), "float32[1,4]");
    assert_string_equal(infer_str("split", "sections = [1, -1]", &sp, 1, 2, 1), "float32[-1,4]");
    assert_string_equal(infer_str("split", "sections = [1, 1], axis = 1", &sp, 1, 2, 1),
                        "error: split: sections add up to 2 but dim 1 has size 4");

    d2_type sl = tu_ttype(D2_F64, 2, (int64_t[]){-1, 5});
    assert_string_equal(
        infer_str("slice", "axes = [0, 1], starts = [0, 1], ends = [1, 3], decrease_axis = [0]",
                  &sl, 1, 1, 0),
        "float64[2]");
    assert_string_equal(infer_str("slice", "axes = [0], starts = [1], ends = [3]", &sl, 1, 1, 0),
                        "float64[-1,5]");

    d2_type g[2] = {tu_ttype(D2_BOOL, 2, (int64_t[]){-1, 3}), tu_ttype(D2_I64, 1, (int64_t[]){-1})};
    assert_string_equal(infer_str("gather", "", g, 2, 1, 0), "bool[-1,3]");
    assert_string_equal(infer_str("index_select", "axis = 1", g, 2, 1, 0), "bool[-1,-1]");

    d2_type e[2] = {tu_ttype(D2_F32, 2, (int64_t[]){-1, 1}), tu_ttype(D2_I32, 1, (int64_t[]){3})};
    assert_string_equal(infer_str("expand", "shape = [-1, 4]", e, 1, 1, 0), "float32[-1,4]");
    assert_string_equal(infer_str("expand", "shape = [2, 5, 4]", e, 1, 1, 0), "float32[2,5,4]");
    assert_string_equal(infer_str("expand", "", e, 2, 1, 0), "float32[-1,-1,-1]");
    assert_string_equal(infer_str("tile", "repeat_times = [3, 2]", e, 1, 1, 0), "float32[-1,2]");

    d2_type fs = tu_ttype(D2_I64, 1, (int64_t[]){2});
    assert_string_equal(infer_str("full", "dtype = int32", &fs, 1, 1, 0), "int32[-1,-1]");
    assert_string_equal(infer_str("full", "shape = [4, 0]", NULL, 0, 1, 0), "float32[4,0]");
    d2_type ar[3] = {absent(), tu_ttype(D2_I64, 0, NULL), absent()};
    assert_string_equal(infer_str("arange", "", ar, 3, 1, 0), "int64[-1]");
    assert_string_equal(infer_str("arange", "end = 4, dtype = float64", NULL, 0, 1, 0),
                        "float64[4]");
    assert_string_equal(infer_str("shape", "", &x, 1, 1, 0), "int32[3]");
    assert_string_equal(infer_str("numel", "", &x, 1, 1, 0), "int64[]");
    assert_string_equal(infer_str("full_like", "dtype = bool", &x, 1, 1, 0), "bool[-1,3,4]");
    assert_string_equal(infer_str("assign", "", &x, 1, 1, 0), "float32[-1,3,4]");

    /* storage dtypes pass the layout ops (they move bytes) but not gather on
     * float16 (Paddle's CPU build has no such kernel); arrays where tensors
     * are expected */
    d2_type h = tu_ttype(D2_F16, 1, (int64_t[]){2});
    assert_string_equal(infer_str("reshape", "shape = [2]", &h, 1, 1, 0), "float16[2]");
    d2_type hg[2] = {h, tu_ttype(D2_I64, 1, (int64_t[]){1})};
    assert_non_null(strstr(infer_str("gather", "", hg, 2, 1, 0), "dtype float16 of input 'x'"));
    d2_type arr = tu_ttype(D2_F32, 0, NULL);
    arr.kind = D2_VALUE_ARRAY;
    assert_non_null(strstr(infer_str("transpose", "perm = []", &arr, 1, 1, 0), "tensor array"));
}

static void test_infer_arrays(void **state)
{
    (void)state;
    assert_string_equal(infer_str("array_create", "dtype = int64", NULL, 0, 1, 0),
                        "array<int64[]>");
    d2_type a = tu_ttype(D2_F32, 0, NULL);
    a.kind = D2_VALUE_ARRAY;
    d2_type w[3] = {a, tu_ttype(D2_I64, 0, NULL), tu_ttype(D2_F32, 2, (int64_t[]){2, 3})};
    /* an unknown element shape adopts the written tensor's shape */
    assert_string_equal(infer_str("array_write", "", w, 3, 1, 0), "array<float32[2,3]>");
    w[0].shape = w[2].shape;
    w[2] = tu_ttype(D2_F32, 2, (int64_t[]){4, 3});
    /* differing dims merge to -1 */
    assert_string_equal(infer_str("array_write", "", w, 3, 1, 0), "array<float32[-1,3]>");
    w[2] = tu_ttype(D2_F32, 1, (int64_t[]){3});
    assert_non_null(strstr(infer_str("array_write", "", w, 3, 1, 0), "1-d tensor"));
    w[2] = tu_ttype(D2_I32, 2, (int64_t[]){2, 3});
    assert_non_null(strstr(infer_str("array_write", "", w, 3, 1, 0), "cannot write a int32"));
    w[2] = tu_ttype(D2_F32, 2, (int64_t[]){2, 3});
    w[1] = tu_ttype(D2_F32, 0, NULL);
    assert_non_null(strstr(infer_str("array_write", "", w, 3, 1, 0), "int32 or int64"));
    w[1] = tu_ttype(D2_I32, 1, (int64_t[]){2});
    assert_non_null(strstr(infer_str("array_write", "", w, 3, 1, 0), "one element"));
    w[1] = tu_ttype(D2_I32, 1, (int64_t[]){1});
    w[0].shape.dims[0] = -1;
    assert_string_equal(infer_str("array_read", "", w, 2, 1, 0), "float32[-1,3]");
    assert_string_equal(infer_str("array_length", "", w, 1, 1, 0), "int64[]");
    assert_string_equal(infer_str("array_stack", "axis = -1", w, 1, 1, 0), "float32[-1,3,-1]");
    assert_string_equal(infer_str("array_concat", "axis = 1", w, 1, 1, 0), "float32[-1,-1]");
    assert_non_null(strstr(infer_str("array_concat", "axis = 2", w, 1, 1, 0), "out of range"));
    /* unknown element shape: checks are left to the kernel */
    assert_string_equal(infer_str("array_stack", "axis = 2", &a, 1, 1, 0), "float32[-1]");
    d2_type t = tu_ttype(D2_F32, 1, (int64_t[]){2});
    assert_non_null(strstr(infer_str("array_length", "", &t, 1, 1, 0), "expected a tensor array"));
}

/* ---- tensor arrays, run eagerly ---- */

static d2_attrs attrs_of(d2_op_id id, const char *text)
{
    d2_err err = {0};
    d2_attrs a;
    assert_int_equal(d2_attrs_parse(d2_op_def(id), text, &a, &err), 0);
    return a;
}

/* Runs a one-output op; returns the output (new reference) or NULL with err. */
static d2_tensor *run1(d2_op_id id, const char *attrs, d2_tensor **in, int n_in, d2_err *err)
{
    d2_attrs a = attrs_of(id, attrs);
    d2_tensor *out = NULL;
    int rc = d2_op_run(NULL, id, &a, in, n_in, &out, 1, err);
    d2_attrs_free(&a);
    assert_true(rc == 0 ? out != NULL : out == NULL);
    return out;
}

static d2_tensor *farr(int ndim, const int64_t *shape, float base)
{
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, D2_F32, ndim, shape, &err);
    assert_non_null(t);
    for (int64_t i = 0; i < d2_tensor_numel(t); i++)
        ((float *)d2_tensor_data(t))[i] = base + (float)i;
    return t;
}

static d2_tensor *arr_write(d2_tensor *arr, int64_t i, d2_tensor *x, d2_err *err)
{
    d2_tensor *idx = d2_tensor_scalar_i64(i, err);
    d2_tensor *in[3] = {arr, idx, x};
    d2_tensor *r = run1(D2_OP_array_write, "", in, 3, err);
    d2_tensor_unref(idx);
    return r;
}

static d2_tensor *arr_read(d2_tensor *arr, int64_t i, d2_err *err)
{
    int32_t v = (int32_t)i;
    d2_tensor *idx = d2_tensor_from_data(D2_I32, 1, (int64_t[]){1}, &v, err);
    d2_tensor *in[2] = {arr, idx};
    d2_tensor *r = run1(D2_OP_array_read, "", in, 2, err);
    d2_tensor_unref(idx);
    return r;
}

static void test_arrays(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_tensor *a0 = run1(D2_OP_array_create, "", NULL, 0, &err);
    assert_non_null(a0);
    assert_int_equal(a0->kind, D2_VALUE_ARRAY);
    assert_int_equal(a0->dtype, D2_F32);
    assert_int_equal(a0->array_len, 0);

    d2_tensor *x0 = farr(2, (int64_t[]){2, 3}, 0), *x1 = farr(2, (int64_t[]){2, 3}, 10);
    d2_tensor *x2 = farr(2, (int64_t[]){2, 3}, 20);
    d2_tensor *a1 = arr_write(a0, 0, x0, &err);
    d2_tensor *a2 = arr_write(a1, 1, x1, &err);
    d2_tensor *a3 = arr_write(a2, 2, x2, &err);
    assert_non_null(a3);
    /* functional: the inputs keep their contents */
    assert_int_equal(a0->array_len, 0);
    assert_int_equal(a1->array_len, 1);
    assert_int_equal(a2->array_len, 2);
    assert_int_equal(a3->array_len, 3);
    assert_true(a3 != a2);
    /* items are shared by reference: x0 is held by a1, a2, a3 and the test */
    assert_int_equal(x0->refcount, 4);
    /* overwrite item 1 with a negative index */
    d2_tensor *a4 = arr_write(a3, -2, x2, &err);
    assert_non_null(a4);
    assert_int_equal(a4->array_len, 3);
    assert_ptr_equal(a4->items[1], x2);
    assert_ptr_equal(a3->items[1], x1);

    d2_tensor *r = arr_read(a3, -1, &err);
    assert_ptr_equal(r, x2);
    d2_tensor_unref(r);
    r = arr_read(a3, 1, &err);
    assert_true(d2_tensor_get_f64(r, 0) == 10.0);
    d2_tensor_unref(r);
    assert_null(arr_read(a3, 3, &err));
    assert_int_equal(err.code, D2_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "index 3 is out of range for an array of length 3"));
    d2_err_clear(&err);
    assert_null(arr_read(a3, -4, &err));
    assert_int_equal(err.code, D2_ERR_RUNTIME);
    d2_err_clear(&err);
    assert_null(arr_write(a3, 5, x0, &err));
    assert_int_equal(err.code, D2_ERR_RUNTIME);
    d2_err_clear(&err);
    d2_tensor *xi = d2_tensor_scalar_i64(1, &err);
    assert_null(arr_write(a3, 0, xi, &err));
    assert_int_equal(err.code, D2_ERR_DTYPE);
    d2_err_clear(&err);
    assert_null(arr_read(xi, 0, &err));
    assert_non_null(strstr(err.msg, "tensor array"));
    d2_err_clear(&err);

    d2_tensor *len = run1(D2_OP_array_length, "", &a3, 1, &err);
    assert_int_equal(len->dtype, D2_I64);
    assert_int_equal(len->ndim, 0);
    assert_int_equal(d2_tensor_get_i64(len, 0), 3);
    d2_tensor_unref(len);

    d2_tensor *st = run1(D2_OP_array_stack, "axis = 1", &a3, 1, &err);
    assert_non_null(st);
    assert_int_equal(st->ndim, 3);
    assert_int_equal(st->shape[0], 2);
    assert_int_equal(st->shape[1], 3);
    assert_int_equal(st->shape[2], 3);
    /* st[i, j, k] = x_j[i, k] = 10 j + 3 i + k */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                assert_true(d2_tensor_get_f64(st, (i * 3 + j) * 3 + k) == 10 * j + 3 * i + k);
    d2_tensor_unref(st);
    d2_tensor *cc = run1(D2_OP_array_concat, "axis = -1", &a3, 1, &err);
    assert_non_null(cc);
    assert_int_equal(cc->ndim, 2);
    assert_int_equal(cc->shape[0], 2);
    assert_int_equal(cc->shape[1], 9);
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 9; c++)
            assert_true(d2_tensor_get_f64(cc, i * 9 + c) == 10 * (c / 3) + 3 * i + c % 3);
    d2_tensor_unref(cc);

    assert_null(run1(D2_OP_array_stack, "", &a0, 1, &err));
    assert_non_null(strstr(err.msg, "empty"));
    d2_err_clear(&err);
    assert_null(run1(D2_OP_array_stack, "axis = 3", &a3, 1, &err));
    assert_non_null(strstr(err.msg, "out of range"));
    d2_err_clear(&err);
    /* items of different shapes cannot be stacked but can be concatenated on axis 0 */
    d2_tensor *y = farr(2, (int64_t[]){1, 3}, 100);
    d2_tensor *a5 = arr_write(a3, 3, y, &err);
    assert_null(run1(D2_OP_array_stack, "", &a5, 1, &err));
    assert_int_equal(err.code, D2_ERR_SHAPE);
    d2_err_clear(&err);
    cc = run1(D2_OP_array_concat, "", &a5, 1, &err);
    assert_non_null(cc);
    assert_int_equal(cc->shape[0], 7);
    assert_true(d2_tensor_get_f64(cc, 20) == 102.0);
    d2_tensor_unref(cc);
    assert_null(run1(D2_OP_array_concat, "axis = 1", &a5, 1, &err));
    assert_int_equal(err.code, D2_ERR_SHAPE);
    d2_err_clear(&err);

    d2_tensor *all[] = {a0, a1, a2, a3, a4, a5, x1, x2, y, xi};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        d2_tensor_unref(all[i]);
    /* every array released its reference to x0 */
    assert_int_equal(x0->refcount, 1);
    d2_tensor_unref(x0);
}

/* When the kernel holds the only reference, array_write updates in place. */
static void test_array_write_in_place(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_tensor *arr = d2_tensor_array_new(D2_F32, &err);
    d2_tensor *idx = d2_tensor_scalar_i64(0, &err);
    d2_tensor *x = farr(1, (int64_t[]){2}, 1);
    d2_attrs none = {0, NULL};
    d2_tensor *in[3] = {arr, idx, x}, *out[1] = {NULL};
    d2_backend *be = d2_cpu_backend();
    d2_kernel_fn fn = be->kernel(be, D2_OP_array_write);
    d2_kctx k = {d2_op_def(D2_OP_array_write), &none, be, 3, in, 1, out, &err, NULL, 0, 0};
    assert_int_equal(fn(&k), 0);
    assert_ptr_equal(out[0], arr);
    assert_int_equal(arr->array_len, 1);
    assert_int_equal(arr->refcount, 2);
    /* now shared: the next write copies */
    d2_tensor_unref(out[0]);
    d2_tensor_ref(arr);
    out[0] = NULL;
    assert_int_equal(fn(&k), 0);
    assert_true(out[0] != arr);
    assert_int_equal(out[0]->array_len, 1);
    assert_ptr_equal(out[0]->items[0], x);
    d2_tensor_unref(out[0]);
    d2_tensor_unref(arr);
    d2_tensor_unref(arr);
    d2_tensor_unref(idx);
    assert_int_equal(x->refcount, 1);
    d2_tensor_unref(x);
}

/* Out-of-memory at every allocation: each run fails cleanly or succeeds, never leaks. */
static void test_oom(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_tensor *arr = d2_tensor_array_new(D2_F32, &err);
    d2_tensor *x = farr(2, (int64_t[]){2, 2}, 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(d2_tensor_array_set(arr, i, x, &err), 0);
    d2_tensor *idx = d2_tensor_scalar_i64(3, &err);
    d2_tensor *pair[2] = {x, x}, *wr[3] = {arr, idx, x};
    const struct {
        d2_op_id id;
        const char *attrs;
        d2_tensor **in;
        int n_in;
    } runs[] = {{D2_OP_concat, "", pair, 2},
                {D2_OP_array_stack, "", &arr, 1},
                {D2_OP_array_write, "", wr, 3},
                {D2_OP_transpose, "perm = [1, 0]", &x, 1}};
    for (long f = 0; f < 40; f++) {
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
            d2_err e = {0};
            d2_attrs a = attrs_of(runs[r].id, runs[r].attrs);
            d2_tensor *out = NULL;
            d2_alloc_fail_after(f);
            int rc = d2_op_run(NULL, runs[r].id, &a, runs[r].in, runs[r].n_in, &out, 1, &e);
            d2_alloc_fail_after(-1);
            if (rc == 0)
                assert_non_null(out);
            else
                assert_int_equal(e.code, D2_ERR_NOMEM);
            d2_tensor_unref(out);
            d2_attrs_free(&a);
        }
    }
    d2_tensor_unref(idx);
    d2_tensor_unref(arr);
    assert_int_equal(x->refcount, 1);
    d2_tensor_unref(x);
}

/* ---- non-contiguous inputs are made contiguous by d2_op_run ---- */

static void test_strided_input(void **state)
{
    (void)state;
    d2_err err = {0};
    int32_t data[6] = {0, 1, 2, 3, 4, 5};
    d2_tensor *t = d2_tensor_from_data(D2_I32, 2, (int64_t[]){2, 3}, data, &err);
    t->shape[0] = 3; /* the transpose [3, 2] as a strided view */
    t->shape[1] = 2;
    t->strides[0] = 1;
    t->strides[1] = 3;
    d2_tensor *out = run1(D2_OP_slice, "axes = [0], starts = [2], ends = [0], strides = [-1]", &t,
                          1, &err);
    assert_non_null(out);
    int32_t want[4] = {2, 5, 1, 4};
    assert_int_equal(d2_tensor_numel(out), 4);
    assert_memory_equal(d2_tensor_data(out), want, sizeof want);
    d2_tensor_unref(out);
    d2_tensor_unref(t);
}

/* ---- print and assert ---- */

/* Runs print on x with attrs and returns what it wrote to stdout. */
static char *capture_print(d2_tensor *x, const char *attrs)
{
    static char buf[4096];
    fflush(stdout);
    int saved = dup(1);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    dup2(fileno(tmp), 1);
    d2_err err = {0};
    d2_attrs a = attrs_of(D2_OP_print, attrs);
    int rc = d2_op_run(NULL, D2_OP_print, &a, &x, 1, NULL, 0, &err);
    d2_attrs_free(&a);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(rc, 0);
    rewind(tmp);
    size_t n = fread(buf, 1, sizeof buf - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return buf;
}

static void test_print(void **state)
{
    (void)state;
    d2_err err = {0};
    float f[6] = {1, 2.5f, -3, 4, 5, 6};
    d2_tensor *x = d2_tensor_from_data(D2_F32, 2, (int64_t[]){2, 3}, f, &err);
    assert_string_equal(capture_print(x, "message = \"x is\", summarize = 3"),
                        "x is  - shape: [2, 3]  - dtype: float32  - data: [1 2.5 -3 ...]\n");
    assert_string_equal(capture_print(x, "summarize = -1"),
                        "- shape: [2, 3]  - dtype: float32  - data: [1 2.5 -3 4 5 6]\n");
    d2_tensor_unref(x);
    uint8_t b[2] = {1, 0};
    x = d2_tensor_from_data(D2_BOOL, 1, (int64_t[]){2}, b, &err);
    assert_string_equal(capture_print(x, ""),
                        "- shape: [2]  - dtype: bool  - data: [True False]\n");
    d2_tensor_unref(x);
    x = d2_tensor_scalar_i64(-7, &err);
    assert_string_equal(capture_print(x, "message = \"n\""),
                        "n  - shape: []  - dtype: int64  - data: [-7]\n");
    d2_tensor *arr = d2_tensor_array_new(D2_I64, &err);
    assert_int_equal(d2_tensor_array_set(arr, 0, x, &err), 0);
    assert_string_equal(capture_print(arr, ""),
                        "- array of 1 int64 tensors\n  [0] - shape: []  - dtype: int64  - data: "
                        "[-7]\n");
    d2_tensor_unref(arr);
    d2_tensor_unref(x);
}

static int run_assert(d2_tensor **in, int n, const char *attrs, d2_err *err)
{
    d2_attrs a = attrs_of(D2_OP_assert, attrs);
    int rc = d2_op_run(NULL, D2_OP_assert, &a, in, n, NULL, 0, err);
    d2_attrs_free(&a);
    return rc;
}

static void test_assert(void **state)
{
    (void)state;
    d2_err err = {0};
    uint8_t yes[3] = {1, 1, 1}, mixed[3] = {1, 0, 1};
    d2_tensor *ok = d2_tensor_from_data(D2_BOOL, 1, (int64_t[]){3}, yes, &err);
    d2_tensor *bad = d2_tensor_from_data(D2_BOOL, 1, (int64_t[]){3}, mixed, &err);
    d2_tensor *empty = d2_tensor_new(NULL, D2_BOOL, 1, (int64_t[]){0}, &err);
    d2_tensor *data = d2_tensor_scalar_f32(-1.5f, &err);
    assert_int_equal(run_assert(&ok, 1, "message = \"never\"", &err), 0);
    assert_int_equal(run_assert(&empty, 1, "", &err), 0);
    d2_tensor *in[3] = {bad, data, ok};
    assert_int_equal(run_assert(in, 3, "message = \"x must be positive\"", &err), -1);
    assert_int_equal(err.code, D2_ERR_RUNTIME);
    assert_string_equal(err.msg,
                        "assert: assertion failed: x must be positive\n"
                        "  data 0 - shape: []  - dtype: float32  - data: [-1.5]\n"
                        "  data 1 - shape: [3]  - dtype: bool  - data: [True True True]");
    d2_err_clear(&err);
    assert_int_equal(run_assert(&data, 1, "", &err), -1);
    assert_int_equal(err.code, D2_ERR_DTYPE);
    d2_tensor_unref(ok);
    d2_tensor_unref(bad);
    d2_tensor_unref(empty);
    d2_tensor_unref(data);
}

/* Every op is found by its own name through the name index, and nothing
 * else is: prefixes, extensions, a name given by length inside a longer
 * buffer, the empty name. */
static void test_op_lookup_by_name(void **state)
{
    (void)state;
    for (int i = 0; i < D2_NUM_OPS; i++) {
        const d2_opdef *d = d2_op_def((d2_op_id)i);
        assert_non_null(d);
        assert_ptr_equal(d2_op_lookup(d->name, strlen(d->name)), d);
        size_t n = strlen(d->name);
        char buf[256];
        assert_true(n + 2 < sizeof buf);
        memcpy(buf, d->name, n);
        buf[n] = 'x';
        buf[n + 1] = '\0';
        const d2_opdef *longer = d2_op_lookup(buf, n + 1);
        assert_true(longer == NULL || strcmp(longer->name, buf) == 0);
        assert_ptr_equal(d2_op_lookup(buf, n), d); /* not NUL-terminated at n */
        if (n > 1) {
            const d2_opdef *prefix = d2_op_lookup(d->name, n - 1);
            assert_true(prefix == NULL || (strlen(prefix->name) == n - 1 &&
                                           strncmp(prefix->name, d->name, n - 1) == 0));
        }
    }
    assert_null(d2_op_lookup("", 0));
    assert_null(d2_op_lookup("no_such_op", 10));
    assert_non_null(d2_op_lookup("matmul", 6));
    assert_int_equal(d2_op_lookup("matmul", 6)->id, D2_OP_matmul);
}

/* Transposes of 64K elements and more split their planes over threads: the result is the
 * same element by element on one, two and three threads. */
static void test_transpose_threads(void **state)
{
    (void)state;
    static const struct {
        int64_t shape[4];
        const char *perm;
    } cases[] = {
        {{8, 3, 64, 64}, "perm = [0, 2, 3, 1]"},
        {{4, 64, 32, 32}, "perm = [0, 3, 1, 2]"},
        {{5, 7, 40, 60}, "perm = [1, 0, 3, 2]"},
    };
    d2_err err = {0};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        d2_attrs attrs;
        assert_int_equal(d2_attrs_parse(d2_op_def(D2_OP_transpose), cases[c].perm, &attrs, &err),
                         0);
        d2_tensor *x = tu_filled_f32(4, cases[c].shape, 7 + (unsigned)c);
        d2_tensor *ref = tu_run_on_threads(D2_OP_transpose, &attrs, x);
        int64_t perm[4];
        int np = 0;
        for (const char *q = cases[c].perm; *q; q++)
            if (*q >= '0' && *q <= '9')
                perm[np++] = *q - '0';
        /* element by element against the definition */
        const float *xp = d2_tensor_data(x), *op = d2_tensor_data(ref);
        const int64_t *xs = cases[c].shape;
        int64_t i[4];
        for (i[0] = 0; i[0] < xs[0]; i[0]++)
            for (i[1] = 0; i[1] < xs[1]; i[1]++)
                for (i[2] = 0; i[2] < xs[2]; i[2]++)
                    for (i[3] = 0; i[3] < xs[3]; i[3]++) {
                        int64_t o = 0;
                        for (int d = 0; d < 4; d++)
                            o = o * xs[perm[d]] + i[perm[d]];
                        float want = xp[((i[0] * xs[1] + i[1]) * xs[2] + i[2]) * xs[3] + i[3]];
                        if (op[o] != want)
                            fail_msg("transpose {%s} of [%lld,%lld,%lld,%lld]: wrong element %lld",
                                     cases[c].perm, (long long)xs[0], (long long)xs[1],
                                     (long long)xs[2], (long long)xs[3], (long long)o);
                    }
        d2_tensor_unref(ref);
        d2_tensor_unref(x);
        d2_attrs_free(&attrs);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),         cmocka_unit_test(test_infer_dynamic),
        cmocka_unit_test(test_infer_arrays),   cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_array_write_in_place), cmocka_unit_test(test_oom),
        cmocka_unit_test(test_strided_input),  cmocka_unit_test(test_print),
        cmocka_unit_test(test_assert),
        cmocka_unit_test(test_op_lookup_by_name),
        cmocka_unit_test(test_transpose_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
