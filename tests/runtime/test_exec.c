/* test_exec.c - the executor: control flow, liveness, dynamic dims, input checks, threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "../testutil.h"

/* ---- building programs ---------------------------------------------------------------------- */

#define T0(dt) tu_ttype(dt, 0, NULL)
#define T(dt, ...)                                                                                \
    tu_ttype(dt, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),                      \
             (int64_t[]){__VA_ARGS__})

static d2_type arr_t(d2_dtype dt, d2_type elem)
{
    elem.kind = D2_VALUE_ARRAY;
    elem.dtype = dt;
    return elem;
}

/* A new variable of block b. */
static int var(d2_program *p, int b, const char *name, d2_type t)
{
    d2_err err = {0};
    int v = d2_program_add_var(p, b, name, &t, &err);
    if (v < 0)
        fail_msg("add_var %s: %s", name ? name : "?", err.msg);
    return v;
}

/* A new variable that is a param of block b. */
static int bparam(d2_program *p, int b, const char *name, d2_type t)
{
    d2_err err = {0};
    int v = var(p, b, name, t);
    if (d2_block_add_param(p, b, v, &err) < 0)
        fail_msg("add_param: %s", err.msg);
    return v;
}

static void yield(d2_program *p, int b, int v)
{
    d2_err err = {0};
    if (d2_block_add_yield(p, b, v, &err) < 0)
        fail_msg("add_yield: %s", err.msg);
}

static int new_block(d2_program *p, int parent)
{
    d2_err err = {0};
    int b = d2_program_add_block(p, parent, &err);
    if (b < 0)
        fail_msg("add_block: %s", err.msg);
    return b;
}

/* A constant (a parameter with data). */
static int const_t(d2_program *p, const char *name, d2_tensor *data)
{
    d2_err err = {0};
    assert_non_null(data);
    int v = d2_program_add_param(p, name, data, NULL, &err);
    d2_tensor_unref(data);
    if (v < 0)
        fail_msg("add_param %s: %s", name, err.msg);
    return v;
}

static int const_i64(d2_program *p, const char *name, int64_t x)
{
    return const_t(p, name, d2_tensor_scalar_i64(x, NULL));
}

static int const_f32(d2_program *p, const char *name, int n, const float *x)
{
    int64_t shape[1] = {n};
    return const_t(p, name, d2_tensor_from_data(D2_F32, 1, shape, x, NULL));
}

static void op_attrs(d2_program *p, int b, d2_op_id id, int n_in, const int *in, int n_out,
                     const int *out, const d2_attrs *attrs)
{
    d2_err err = {0};
    if (d2_block_add_op(p, b, id, in, n_in, out, n_out, attrs, &err) < 0)
        fail_msg("add_op %s: %s", d2_op_def(id)->name, err.msg);
}

/* out = id(x, y), declaring out with type t. */
static int binop(d2_program *p, int b, d2_op_id id, int x, int y, const char *name, d2_type t)
{
    int o = var(p, b, name, t);
    int in[2] = {x, y};
    op_attrs(p, b, id, 2, in, 1, &o, NULL);
    return o;
}

static void control_op(d2_program *p, int b, d2_op_id id, const char *a1, int b1, const char *a2,
                       int b2, int n_in, const int *in, int n_out, const int *out)
{
    const d2_opdef *def = d2_op_def(id);
    d2_attrs a;
    d2_attrs_init_default(def, &a);
    assert_int_equal(d2_attr_set_int(def, &a, a1, b1), 0);
    assert_int_equal(d2_attr_set_int(def, &a, a2, b2), 0);
    op_attrs(p, b, id, n_in, in, n_out, out, &a);
    d2_attrs_free(&a);
}

static void while_op(d2_program *p, int b, int cond_b, int body_b, int n, const int *inits,
                     const int *finals)
{
    control_op(p, b, D2_OP_while_loop, "cond", cond_b, "body", body_b, n, inits, n, finals);
}

static void cond_op(d2_program *p, int b, int then_b, int else_b, int pred, int n_operands,
                    const int *operands, int n_res, const int *res)
{
    int in[16];
    assert_true(n_operands < 16);
    in[0] = pred;
    for (int i = 0; i < n_operands; i++)
        in[1 + i] = operands[i];
    control_op(p, b, D2_OP_cond, "then", then_b, "else", else_b, n_operands + 1, in, n_res, res);
}

static d2_program *new_program(void)
{
    d2_err err = {0};
    d2_program *p = d2_program_new(&err);
    if (!p)
        fail_msg("program_new: %s", err.msg);
    return p;
}

static d2_prepared *prepare(const d2_program *p, d2_backend *be)
{
    d2_err err = {0};
    d2_prepared *pp = d2_exec_prepare(p, be, &err);
    if (!pp)
        fail_msg("prepare: %s", err.msg);
    return pp;
}

/* ---- tensors -------------------------------------------------------------------------------- */

static d2_tensor *f32_tensor(int ndim, const int64_t *shape, const float *v)
{
    d2_err err = {0};
    d2_tensor *t = d2_tensor_from_data(D2_F32, ndim, shape, v, &err);
    assert_non_null(t);
    return t;
}

static int64_t scalar_i64(const d2_tensor *t)
{
    assert_non_null(t);
    assert_int_equal(t->dtype, D2_I64);
    assert_int_equal(d2_tensor_numel(t), 1);
    return *(const int64_t *)d2_tensor_data(t);
}

static void assert_f32_values(const d2_tensor *t, int n, const float *want)
{
    assert_non_null(t);
    assert_int_equal(t->dtype, D2_F32);
    assert_int_equal(d2_tensor_numel(t), n);
    assert_true(d2_tensor_is_contiguous(t));
    const float *got = d2_tensor_data(t);
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %d: got %.9g, want %.9g", i, (double)got[i], (double)want[i]);
}

static void unref_all(d2_tensor **t, int n)
{
    for (int i = 0; i < n; i++)
        d2_tensor_unref(t[i]);
}

/* ---- a backend that counts its live buffers ------------------------------------------------- */

static atomic_long cnt_live, cnt_peak, cnt_allocs;
static d2_backend counting_backend;

static void *cnt_alloc(d2_backend *be, size_t n, d2_err *err)
{
    (void)be;
    d2_backend *cpu = d2_cpu_backend();
    void *p = cpu->alloc(cpu, n, err);
    if (p) {
        long live = atomic_fetch_add(&cnt_live, 1) + 1;
        atomic_fetch_add(&cnt_allocs, 1);
        long peak = atomic_load(&cnt_peak);
        while (live > peak && !atomic_compare_exchange_weak(&cnt_peak, &peak, live))
            ;
    }
    return p;
}

static void cnt_free(d2_backend *be, void *buf)
{
    (void)be;
    atomic_fetch_sub(&cnt_live, 1);
    d2_cpu_backend()->free(d2_cpu_backend(), buf);
}

static d2_backend *counting(void)
{
    counting_backend = *d2_cpu_backend();
    counting_backend.name = "counting";
    counting_backend.alloc = cnt_alloc;
    counting_backend.free = cnt_free;
    atomic_store(&cnt_live, 0);
    atomic_store(&cnt_peak, 0);
    atomic_store(&cnt_allocs, 0);
    return &counting_backend;
}

/* ---- programs ------------------------------------------------------------------------------- */

/* block ^0 (n: int64[]): i, s = while (i < n) { s = s + i; i = i + 1 } from (0, 0); return i, s */
static d2_program *sum_loop_program(void)
{
    d2_program *p = new_program();
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1);
    int n = bparam(p, 0, "n", T0(D2_I64));
    int cb = new_block(p, 0), bb = new_block(p, 0);
    int ci = bparam(p, cb, "ci", T0(D2_I64));
    bparam(p, cb, "cs", T0(D2_I64));
    yield(p, cb, binop(p, cb, D2_OP_less_than, ci, n, "c", T0(D2_BOOL)));
    int bi = bparam(p, bb, "bi", T0(D2_I64)), bs = bparam(p, bb, "bs", T0(D2_I64));
    int s2 = binop(p, bb, D2_OP_add, bs, bi, "s2", T0(D2_I64));
    int i2 = binop(p, bb, D2_OP_add, bi, one, "i2", T0(D2_I64));
    yield(p, bb, i2);
    yield(p, bb, s2);
    int inits[2] = {zero, zero};
    int finals[2] = {var(p, 0, "i_final", T0(D2_I64)), var(p, 0, "s_final", T0(D2_I64))};
    while_op(p, 0, cb, bb, 2, inits, finals);
    yield(p, 0, finals[0]);
    yield(p, 0, finals[1]);
    return p;
}

static void run_sum_loop(d2_prepared *pp, int64_t n)
{
    d2_err err = {0};
    d2_tensor *in = d2_tensor_scalar_i64(n, &err);
    d2_tensor *out[2];
    if (d2_exec_run(pp, &in, 1, out, 2, &err) < 0)
        fail_msg("run n=%lld: %s", (long long)n, err.msg);
    int64_t want_i = n > 0 ? n : 0, want_s = n > 0 ? n * (n - 1) / 2 : 0;
    assert_int_equal(scalar_i64(out[0]), want_i);
    assert_int_equal(scalar_i64(out[1]), want_s);
    unref_all(out, 2);
    d2_tensor_unref(in);
}

static void test_while_sum(void **state)
{
    (void)state;
    d2_program *p = sum_loop_program();
    d2_prepared *pp = prepare(p, NULL);
    run_sum_loop(pp, 1);
    run_sum_loop(pp, 10);
    run_sum_loop(pp, 1000);
    d2_exec_free(pp);
    d2_program_free(p);
}

static void test_while_zero_iterations(void **state)
{
    (void)state;
    d2_program *p = sum_loop_program();
    d2_prepared *pp = prepare(p, NULL);
    run_sum_loop(pp, 0);
    run_sum_loop(pp, -7);
    d2_exec_free(pp);
    d2_program_free(p);
}

/* block ^0 (n: int64[], x: float32[3]):
 *   while (i < n) { s = (i < k) ? s + x : s * two; i = i + 1 }  from i = 0, s = 0
 * The then block reads x two blocks up. */
static d2_program *loop_with_cond_program(int64_t k)
{
    d2_program *p = new_program();
    const float zeros[3] = {0, 0, 0}, twos[3] = {2, 2, 2};
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1), kk = const_i64(p, "k", k);
    int s0 = const_f32(p, "s0", 3, zeros), two = const_f32(p, "two", 3, twos);
    int n = bparam(p, 0, "n", T0(D2_I64));
    int x = bparam(p, 0, "x", T(D2_F32, 3));
    int cb = new_block(p, 0), bb = new_block(p, 0);
    int ci = bparam(p, cb, "ci", T0(D2_I64));
    bparam(p, cb, "cs", T(D2_F32, 3));
    yield(p, cb, binop(p, cb, D2_OP_less_than, ci, n, "c", T0(D2_BOOL)));
    int bi = bparam(p, bb, "bi", T0(D2_I64)), bs = bparam(p, bb, "bs", T(D2_F32, 3));
    int pred = binop(p, bb, D2_OP_less_than, bi, kk, "below_k", T0(D2_BOOL));
    int tb = new_block(p, bb), eb = new_block(p, bb);
    int ts = bparam(p, tb, "ts", T(D2_F32, 3));
    yield(p, tb, binop(p, tb, D2_OP_add, ts, x, "ts2", T(D2_F32, 3)));
    int es = bparam(p, eb, "es", T(D2_F32, 3));
    yield(p, eb, binop(p, eb, D2_OP_multiply, es, two, "es2", T(D2_F32, 3)));
    int s2 = var(p, bb, "s2", T(D2_F32, 3));
    cond_op(p, bb, tb, eb, pred, 1, &bs, 1, &s2);
    int i2 = binop(p, bb, D2_OP_add, bi, one, "i2", T0(D2_I64));
    yield(p, bb, i2);
    yield(p, bb, s2);
    int inits[2] = {zero, s0};
    int finals[2] = {var(p, 0, "i_final", T0(D2_I64)), var(p, 0, "s_final", T(D2_F32, 3))};
    while_op(p, 0, cb, bb, 2, inits, finals);
    yield(p, 0, finals[1]);
    return p;
}

/* Runs the loop_with_cond program and checks it against a plain C loop. */
static void check_loop_with_cond(d2_prepared *pp, int64_t n, int64_t k, const float *x)
{
    d2_err err = {0};
    int64_t shape[1] = {3};
    d2_tensor *in[2] = {d2_tensor_scalar_i64(n, &err), f32_tensor(1, shape, x)};
    d2_tensor *out = NULL;
    if (d2_exec_run(pp, in, 2, &out, 1, &err) < 0)
        fail_msg("run: %s", err.msg);
    float want[3] = {0, 0, 0};
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < 3; j++)
            want[j] = i < k ? want[j] + x[j] : want[j] * 2;
    assert_f32_values(out, 3, want);
    d2_tensor_unref(out);
    unref_all(in, 2);
}

static void test_while_with_cond(void **state)
{
    (void)state;
    d2_program *p = loop_with_cond_program(3);
    d2_prepared *pp = prepare(p, NULL);
    const float x[3] = {1, 2, 3};
    /* by hand: three adds give [3,6,9], two doublings give [12,24,36] */
    d2_err err = {0};
    int64_t shape[1] = {3};
    d2_tensor *in[2] = {d2_tensor_scalar_i64(5, &err), f32_tensor(1, shape, x)};
    d2_tensor *out = NULL;
    if (d2_exec_run(pp, in, 2, &out, 1, &err) < 0)
        fail_msg("run: %s", err.msg);
    const float want[3] = {12, 24, 36};
    assert_f32_values(out, 3, want);
    d2_tensor_unref(out);
    unref_all(in, 2);
    check_loop_with_cond(pp, 0, 3, x);
    check_loop_with_cond(pp, 2, 3, x);
    const float y[3] = {-0.5f, 0.25f, 4};
    check_loop_with_cond(pp, 9, 3, y);
    d2_exec_free(pp);
    d2_program_free(p);
}

/* block ^0 (n, m, th: int64[]):
 *   acc = 0; i = 0
 *   while (i < n) { j = 0; while (j < m) { acc = (i + j < th) ? acc + 1 : acc + 2; j++ }; i++ }
 *   return acc */
static d2_program *nested_loops_program(void)
{
    d2_program *p = new_program();
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1), two = const_i64(p, "two", 2);
    int n = bparam(p, 0, "n", T0(D2_I64)), m = bparam(p, 0, "m", T0(D2_I64));
    int th = bparam(p, 0, "th", T0(D2_I64));
    /* outer loop */
    int ocb = new_block(p, 0), obb = new_block(p, 0);
    int oci = bparam(p, ocb, "oci", T0(D2_I64));
    bparam(p, ocb, "oca", T0(D2_I64));
    yield(p, ocb, binop(p, ocb, D2_OP_less_than, oci, n, "oc", T0(D2_BOOL)));
    int obi = bparam(p, obb, "obi", T0(D2_I64)), oba = bparam(p, obb, "oba", T0(D2_I64));
    /* inner loop, inside the outer body */
    int icb = new_block(p, obb), ibb = new_block(p, obb);
    int icj = bparam(p, icb, "icj", T0(D2_I64));
    bparam(p, icb, "ica", T0(D2_I64));
    yield(p, icb, binop(p, icb, D2_OP_less_than, icj, m, "ic", T0(D2_BOOL)));
    int ibj = bparam(p, ibb, "ibj", T0(D2_I64)), iba = bparam(p, ibb, "iba", T0(D2_I64));
    int sum = binop(p, ibb, D2_OP_add, obi, ibj, "ij", T0(D2_I64));
    int pred = binop(p, ibb, D2_OP_less_than, sum, th, "small", T0(D2_BOOL));
    int tb = new_block(p, ibb), eb = new_block(p, ibb);
    int ta = bparam(p, tb, "ta", T0(D2_I64));
    yield(p, tb, binop(p, tb, D2_OP_add, ta, one, "ta1", T0(D2_I64)));
    int ea = bparam(p, eb, "ea", T0(D2_I64));
    yield(p, eb, binop(p, eb, D2_OP_add, ea, two, "ea2", T0(D2_I64)));
    int acc2 = var(p, ibb, "acc2", T0(D2_I64));
    cond_op(p, ibb, tb, eb, pred, 1, &iba, 1, &acc2);
    yield(p, ibb, binop(p, ibb, D2_OP_add, ibj, one, "j2", T0(D2_I64)));
    yield(p, ibb, acc2);
    int iinits[2] = {zero, oba};
    int ifinals[2] = {var(p, obb, "j_final", T0(D2_I64)), var(p, obb, "acc_in", T0(D2_I64))};
    while_op(p, obb, icb, ibb, 2, iinits, ifinals);
    yield(p, obb, binop(p, obb, D2_OP_add, obi, one, "i2", T0(D2_I64)));
    yield(p, obb, ifinals[1]);
    int inits[2] = {zero, zero};
    int finals[2] = {var(p, 0, "i_final", T0(D2_I64)), var(p, 0, "acc", T0(D2_I64))};
    while_op(p, 0, ocb, obb, 2, inits, finals);
    yield(p, 0, finals[1]);
    return p;
}

static int64_t run_nested(d2_prepared *pp, int64_t n, int64_t m, int64_t th, d2_err *err)
{
    d2_tensor *in[3] = {d2_tensor_scalar_i64(n, NULL), d2_tensor_scalar_i64(m, NULL),
                        d2_tensor_scalar_i64(th, NULL)};
    d2_tensor *out = NULL;
    int64_t r = -1;
    if (d2_exec_run(pp, in, 3, &out, 1, err) == 0) {
        r = *(const int64_t *)d2_tensor_data(out);
        d2_tensor_unref(out);
    }
    unref_all(in, 3);
    return r;
}

static int64_t nested_expected(int64_t n, int64_t m, int64_t th)
{
    int64_t acc = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++)
            acc += i + j < th ? 1 : 2;
    return acc;
}

static void test_cond_in_while_in_while(void **state)
{
    (void)state;
    d2_program *p = nested_loops_program();
    d2_prepared *pp = prepare(p, NULL);
    d2_err err = {0};
    /* by hand: n=2, m=3, th=2: pairs (0,0),(0,1),(1,0) count 1, the other three 2: 9 */
    int64_t r = run_nested(pp, 2, 3, 2, &err);
    if (r < 0)
        fail_msg("run: %s", err.msg);
    assert_int_equal(r, 9);
    const int64_t cases[][3] = {{0, 5, 3}, {5, 0, 3}, {1, 1, 0}, {7, 4, 5}, {12, 9, 10}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        r = run_nested(pp, cases[c][0], cases[c][1], cases[c][2], &err);
        if (r < 0)
            fail_msg("run: %s", err.msg);
        assert_int_equal(r, nested_expected(cases[c][0], cases[c][1], cases[c][2]));
    }
    d2_exec_free(pp);
    d2_program_free(p);
}

/* block ^0 (x: float32[64]): i, s = while (i < N) { s = s + x; i = i + 1 }; return s */
static d2_program *long_loop_program(int64_t iters)
{
    d2_program *p = new_program();
    float zeros[64] = {0};
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1);
    int lim = const_i64(p, "limit", iters), s0 = const_f32(p, "s0", 64, zeros);
    int x = bparam(p, 0, "x", T(D2_F32, 64));
    int cb = new_block(p, 0), bb = new_block(p, 0);
    int ci = bparam(p, cb, "ci", T0(D2_I64));
    bparam(p, cb, "cs", T(D2_F32, 64));
    yield(p, cb, binop(p, cb, D2_OP_less_than, ci, lim, "c", T0(D2_BOOL)));
    int bi = bparam(p, bb, "bi", T0(D2_I64)), bs = bparam(p, bb, "bs", T(D2_F32, 64));
    yield(p, bb, binop(p, bb, D2_OP_add, bi, one, "i2", T0(D2_I64)));
    yield(p, bb, binop(p, bb, D2_OP_add, bs, x, "s2", T(D2_F32, 64)));
    int inits[2] = {zero, s0};
    int finals[2] = {var(p, 0, "i_final", T0(D2_I64)), var(p, 0, "s_final", T(D2_F32, 64))};
    while_op(p, 0, cb, bb, 2, inits, finals);
    yield(p, 0, finals[1]);
    return p;
}

/* Runs long_loop_program(iters) on the counting backend; returns the peak
 * number of live backend buffers during the run. */
static long long_loop_peak(int64_t iters)
{
    d2_program *p = long_loop_program(iters);
    d2_backend *be = counting();
    d2_prepared *pp = prepare(p, be);
    float x[64];
    for (int j = 0; j < 64; j++)
        x[j] = 0.25f * (float)j; /* sums of quarters stay exact in float32 */
    int64_t shape[1] = {64};
    d2_tensor *in = f32_tensor(1, shape, x), *out = NULL;
    d2_err err = {0};
    long before = atomic_load(&cnt_live);
    atomic_store(&cnt_peak, before);
    if (d2_exec_run(pp, &in, 1, &out, 1, &err) < 0)
        fail_msg("run: %s", err.msg);
    long peak = atomic_load(&cnt_peak) - before;
    float want[64];
    for (int j = 0; j < 64; j++)
        want[j] = (float)((double)iters * 0.25 * j);
    assert_f32_values(out, 64, want);
    /* at least one buffer per iteration was allocated, and all but the result were freed */
    assert_true(atomic_load(&cnt_allocs) >= iters);
    assert_int_equal(atomic_load(&cnt_live), before + 1);
    d2_tensor_unref(out);
    d2_tensor_unref(in);
    assert_int_equal(atomic_load(&cnt_live), before);
    d2_exec_free(pp);
    d2_program_free(p);
    return peak;
}

static void test_long_loop_bounded_memory(void **state)
{
    (void)state;
    long small = long_loop_peak(10);
    long big = long_loop_peak(100000);
    assert_true(small > 0);
    assert_true(small <= 8);
    assert_int_equal(big, small);
}

/* A chain of adds: intermediates die right after their last use. */
static void test_liveness_releases_early(void **state)
{
    (void)state;
    d2_program *p = new_program();
    int x = bparam(p, 0, "x", T(D2_F32, 1000));
    int cur = x;
    for (int i = 0; i < 8; i++)
        cur = binop(p, 0, D2_OP_add, cur, cur, NULL, T(D2_F32, 1000));
    yield(p, 0, cur);
    d2_prepared *pp = prepare(p, counting());
    float xs[1000];
    for (int i = 0; i < 1000; i++)
        xs[i] = (float)i;
    int64_t shape[1] = {1000};
    d2_tensor *in = f32_tensor(1, shape, xs), *out = NULL;
    d2_err err = {0};
    if (d2_exec_run(pp, &in, 1, &out, 1, &err) < 0)
        fail_msg("run: %s", err.msg);
    /* each op allocates its output while its input is alive, then frees the input */
    assert_int_equal(atomic_load(&cnt_allocs), 8);
    assert_int_equal(atomic_load(&cnt_peak), 2);
    float want[1000];
    for (int i = 0; i < 1000; i++)
        want[i] = (float)i * 256;
    assert_f32_values(out, 1000, want);
    d2_tensor_unref(out);
    d2_tensor_unref(in);
    assert_int_equal(atomic_load(&cnt_live), 0);
    d2_exec_free(pp);
    d2_program_free(p);
}

/* A value whose last use is inside a loop body stays alive for every
 * iteration and dies after the loop; a value yielded from block 0 is also
 * used by later ops. */
static void test_liveness_nested_use(void **state)
{
    (void)state;
    d2_program *p = new_program();
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1);
    int n = bparam(p, 0, "n", T0(D2_I64));
    int step = binop(p, 0, D2_OP_add, one, one, "step", T0(D2_I64)); /* 2, used only in the body */
    int cb = new_block(p, 0), bb = new_block(p, 0);
    int ci = bparam(p, cb, "ci", T0(D2_I64));
    yield(p, cb, binop(p, cb, D2_OP_less_than, ci, n, "c", T0(D2_BOOL)));
    int bi = bparam(p, bb, "bi", T0(D2_I64));
    yield(p, bb, binop(p, bb, D2_OP_add, bi, step, "i2", T0(D2_I64)));
    int fin = var(p, 0, "fin", T0(D2_I64));
    while_op(p, 0, cb, bb, 1, &zero, &fin);
    int twice = binop(p, 0, D2_OP_add, fin, fin, "twice", T0(D2_I64));
    yield(p, 0, fin);
    yield(p, 0, twice);
    d2_prepared *pp = prepare(p, NULL);
    d2_err err = {0};
    d2_tensor *in = d2_tensor_scalar_i64(7, &err), *out[2];
    if (d2_exec_run(pp, &in, 1, out, 2, &err) < 0)
        fail_msg("run: %s", err.msg);
    assert_int_equal(scalar_i64(out[0]), 8); /* 0, 2, 4, 6, 8 */
    assert_int_equal(scalar_i64(out[1]), 16);
    unref_all(out, 2);
    d2_tensor_unref(in);
    d2_exec_free(pp);
    d2_program_free(p);
}

/* block ^0 (n: int64[], x: float32[2]):
 *   arr = []; i = 0; f = 0.0
 *   while (i < n) { arr = write(arr, i, x * f); i++; f += 1 }
 *   return stack(arr), length(arr) */
static void test_array_grown_in_loop(void **state)
{
    (void)state;
    d2_program *p = new_program();
    const float fzero = 0, fone = 1;
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1);
    int f0 = const_t(p, "f0", d2_tensor_from_data(D2_F32, 0, NULL, &fzero, NULL));
    int f1 = const_t(p, "f1", d2_tensor_from_data(D2_F32, 0, NULL, &fone, NULL));
    int n = bparam(p, 0, "n", T0(D2_I64));
    int x = bparam(p, 0, "x", T(D2_F32, 2));
    d2_type at = arr_t(D2_F32, T0(D2_F32)); /* element shape unknown */
    d2_type at2 = arr_t(D2_F32, T(D2_F32, 2));
    int a0 = var(p, 0, "a0", at);
    op_attrs(p, 0, D2_OP_array_create, 0, NULL, 1, &a0, NULL);
    int cb = new_block(p, 0), bb = new_block(p, 0);
    int ci = bparam(p, cb, "ci", T0(D2_I64));
    bparam(p, cb, "ca", at);
    bparam(p, cb, "cf", T0(D2_F32));
    yield(p, cb, binop(p, cb, D2_OP_less_than, ci, n, "c", T0(D2_BOOL)));
    int bi = bparam(p, bb, "bi", T0(D2_I64)), ba = bparam(p, bb, "ba", at);
    int bf = bparam(p, bb, "bf", T0(D2_F32));
    int item = binop(p, bb, D2_OP_multiply, x, bf, "item", T(D2_F32, 2));
    int a2 = var(p, bb, "a2", at2);
    int win[3] = {ba, bi, item};
    op_attrs(p, bb, D2_OP_array_write, 3, win, 1, &a2, NULL);
    yield(p, bb, binop(p, bb, D2_OP_add, bi, one, "i2", T0(D2_I64)));
    yield(p, bb, a2);
    yield(p, bb, binop(p, bb, D2_OP_add, bf, f1, "f2", T0(D2_F32)));
    int inits[3] = {zero, a0, f0};
    int finals[3] = {var(p, 0, "i_final", T0(D2_I64)), var(p, 0, "arr", at2),
                     var(p, 0, "f_final", T0(D2_F32))};
    while_op(p, 0, cb, bb, 3, inits, finals);
    int stacked = var(p, 0, "stacked", T(D2_F32, -1, 2));
    int len = var(p, 0, "len", T0(D2_I64));
    op_attrs(p, 0, D2_OP_array_length, 1, &finals[1], 1, &len, NULL);
    yield(p, 0, len);
    op_attrs(p, 0, D2_OP_array_stack, 1, &finals[1], 1, &stacked, NULL);
    yield(p, 0, stacked);
    d2_prepared *pp = prepare(p, NULL);
    const float xs[2] = {1.5f, -2};
    int64_t shape[1] = {2};
    for (int64_t count = 1; count <= 5; count += 2) {
        d2_err err = {0};
        d2_tensor *in[2] = {d2_tensor_scalar_i64(count, &err), f32_tensor(1, shape, xs)};
        d2_tensor *out[2];
        if (d2_exec_run(pp, in, 2, out, 2, &err) < 0)
            fail_msg("run n=%lld: %s", (long long)count, err.msg);
        assert_int_equal(scalar_i64(out[0]), count);
        assert_int_equal(out[1]->ndim, 2);
        assert_int_equal(out[1]->shape[0], count);
        assert_int_equal(out[1]->shape[1], 2);
        float want[10];
        for (int64_t r = 0; r < count; r++) {
            want[2 * r] = 1.5f * (float)r;
            want[2 * r + 1] = -2.0f * (float)r;
        }
        assert_f32_values(out[1], (int)count * 2, want);
        unref_all(out, 2);
        unref_all(in, 2);
    }
    d2_exec_free(pp);
    d2_program_free(p);
}

/* block ^0 (x: float32[-1,3]): y = x + b; v = while (k < 3) { v = v + v } from v = y */
static d2_program *dynamic_program(void)
{
    d2_program *p = new_program();
    const float b[3] = {10, 20, 30};
    int bias = const_f32(p, "bias", 3, b);
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1);
    int three = const_i64(p, "three", 3);
    int x = bparam(p, 0, "x", T(D2_F32, -1, 3));
    int y = binop(p, 0, D2_OP_add, x, bias, "y", T(D2_F32, -1, 3));
    int cb = new_block(p, 0), bb = new_block(p, 0);
    int ck = bparam(p, cb, "ck", T0(D2_I64));
    bparam(p, cb, "cv", T(D2_F32, -1, 3));
    yield(p, cb, binop(p, cb, D2_OP_less_than, ck, three, "c", T0(D2_BOOL)));
    int bk = bparam(p, bb, "bk", T0(D2_I64)), bv = bparam(p, bb, "bv", T(D2_F32, -1, 3));
    yield(p, bb, binop(p, bb, D2_OP_add, bk, one, "k2", T0(D2_I64)));
    yield(p, bb, binop(p, bb, D2_OP_add, bv, bv, "v2", T(D2_F32, -1, 3)));
    int inits[2] = {zero, y};
    int finals[2] = {var(p, 0, "k_final", T0(D2_I64)), var(p, 0, "v_final", T(D2_F32, -1, 3))};
    while_op(p, 0, cb, bb, 2, inits, finals);
    yield(p, 0, y);
    yield(p, 0, finals[1]);
    return p;
}

static void test_dynamic_batch(void **state)
{
    (void)state;
    d2_program *p = dynamic_program();
    d2_prepared *pp = prepare(p, NULL);
    const int64_t batches[] = {1, 4, 7, 2};
    for (size_t c = 0; c < sizeof batches / sizeof batches[0]; c++) {
        int64_t rows = batches[c];
        float xs[21], wy[21], wv[21];
        for (int64_t i = 0; i < rows * 3; i++) {
            xs[i] = (float)(i * 3 - 5);
            wy[i] = xs[i] + (float)(10 * (i % 3 + 1));
            wv[i] = wy[i] * 8; /* doubled three times */
        }
        int64_t shape[2] = {rows, 3};
        d2_tensor *in = f32_tensor(2, shape, xs), *out[2];
        d2_err err = {0};
        if (d2_exec_run(pp, &in, 1, out, 2, &err) < 0)
            fail_msg("run batch %lld: %s", (long long)rows, err.msg);
        for (int o = 0; o < 2; o++) {
            assert_int_equal(out[o]->ndim, 2);
            assert_int_equal(out[o]->shape[0], rows);
            assert_int_equal(out[o]->shape[1], 3);
        }
        assert_f32_values(out[0], (int)rows * 3, wy);
        assert_f32_values(out[1], (int)rows * 3, wv);
        unref_all(out, 2);
        d2_tensor_unref(in);
    }
    d2_exec_free(pp);
    d2_program_free(p);
}

/* block ^0 (x: float32[-1,3]): y = x + bias; (k, a, b) = while (k < 3) { s = a + b; (k + 1, s, s) }
 * from (0, y, y); return y, a, b, a. A value yielded twice, by a loop body and by the main
 * block, gives each result its own reference; the runs repeat and change the batch, so that
 * types inferred for one run's shapes are reused only for equal ones. */
static void test_repeated_yields(void **state)
{
    (void)state;
    d2_program *p = new_program();
    const float bias_v[3] = {10, 20, 30};
    int bias = const_f32(p, "bias", 3, bias_v);
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1);
    int three = const_i64(p, "three", 3);
    int x = bparam(p, 0, "x", T(D2_F32, -1, 3));
    int y = binop(p, 0, D2_OP_add, x, bias, "y", T(D2_F32, -1, 3));
    int cb = new_block(p, 0), bb = new_block(p, 0);
    int ck = bparam(p, cb, "ck", T0(D2_I64));
    bparam(p, cb, "ca", T(D2_F32, -1, 3));
    bparam(p, cb, "cb", T(D2_F32, -1, 3));
    yield(p, cb, binop(p, cb, D2_OP_less_than, ck, three, "c", T0(D2_BOOL)));
    int bk = bparam(p, bb, "bk", T0(D2_I64)), ba = bparam(p, bb, "ba", T(D2_F32, -1, 3));
    int bv = bparam(p, bb, "bb", T(D2_F32, -1, 3));
    yield(p, bb, binop(p, bb, D2_OP_add, bk, one, "k2", T0(D2_I64)));
    int sum = binop(p, bb, D2_OP_add, ba, bv, "s", T(D2_F32, -1, 3));
    yield(p, bb, sum);
    yield(p, bb, sum);
    int inits[3] = {zero, y, y};
    int finals[3] = {var(p, 0, "k_final", T0(D2_I64)), var(p, 0, "a_final", T(D2_F32, -1, 3)),
                     var(p, 0, "b_final", T(D2_F32, -1, 3))};
    while_op(p, 0, cb, bb, 3, inits, finals);
    yield(p, 0, y);
    yield(p, 0, finals[1]);
    yield(p, 0, finals[2]);
    yield(p, 0, finals[1]);
    d2_prepared *pp = prepare(p, NULL);
    const int64_t batches[] = {2, 2, 5, 1, 5};
    for (size_t c = 0; c < sizeof batches / sizeof batches[0]; c++) {
        int64_t rows = batches[c];
        float xs[15], wy[15], wv[15];
        for (int64_t i = 0; i < rows * 3; i++) {
            xs[i] = (float)(i * 2 - 7);
            wy[i] = xs[i] + bias_v[i % 3];
            wv[i] = wy[i] * 8; /* y + y, then doubled twice */
        }
        int64_t shape[2] = {rows, 3};
        d2_tensor *in = f32_tensor(2, shape, xs), *out[4];
        d2_err err = {0};
        if (d2_exec_run(pp, &in, 1, out, 4, &err) < 0)
            fail_msg("run batch %lld: %s", (long long)rows, err.msg);
        for (int o = 0; o < 4; o++) {
            assert_int_equal(out[o]->ndim, 2);
            assert_int_equal(out[o]->shape[0], rows);
            assert_int_equal(out[o]->shape[1], 3);
            assert_f32_values(out[o], (int)rows * 3, o ? wv : wy);
        }
        unref_all(out, 4);
        d2_tensor_unref(in);
    }
    d2_exec_free(pp);
    d2_program_free(p);
}

static void expect_run_error(d2_prepared *pp, d2_tensor **in, int n_in, int n_out, d2_errcode code,
                             const char *sub1, const char *sub2)
{
    d2_err err = {0};
    d2_tensor *out[4] = {NULL, NULL, NULL, NULL};
    assert_int_equal(d2_exec_run(pp, in, n_in, out, n_out, &err), -1);
    for (int i = 0; i < n_out; i++)
        assert_null(out[i]);
    if (err.code != code)
        fail_msg("error code %s, want %s: %s", d2_errcode_name(err.code), d2_errcode_name(code),
                 err.msg);
    if (sub1 && !strstr(err.msg, sub1))
        fail_msg("message '%s' lacks '%s'", err.msg, sub1);
    if (sub2 && !strstr(err.msg, sub2))
        fail_msg("message '%s' lacks '%s'", err.msg, sub2);
}

static void test_input_errors(void **state)
{
    (void)state;
    d2_program *p = dynamic_program();
    d2_prepared *pp = prepare(p, NULL);
    float xs[8] = {0};
    int64_t s23[2] = {2, 3}, s24[2] = {2, 4}, s6[1] = {6};
    d2_tensor *good = f32_tensor(2, s23, xs);
    d2_tensor *wrong_dim = f32_tensor(2, s24, xs);
    d2_tensor *wrong_rank = f32_tensor(1, s6, xs);
    d2_tensor *wrong_dtype = d2_tensor_zeros(D2_F64, 2, s23, NULL);
    d2_tensor *arr = d2_tensor_array_new(D2_F32, NULL);
    d2_tensor *two[2] = {good, good};
    expect_run_error(pp, two, 2, 2, D2_ERR_INVALID, "takes 1 inputs, got 2", NULL);
    expect_run_error(pp, two, 0, 2, D2_ERR_INVALID, "takes 1 inputs, got 0", NULL);
    expect_run_error(pp, &good, 1, 1, D2_ERR_INVALID, "has 2 outputs", NULL);
    expect_run_error(pp, &wrong_dim, 1, 2, D2_ERR_SHAPE, "'x'", "dim 1 is 4, not 3");
    expect_run_error(pp, &wrong_rank, 1, 2, D2_ERR_SHAPE, "'x'", "rank 2");
    expect_run_error(pp, &wrong_dtype, 1, 2, D2_ERR_DTYPE, "'x'", "float64");
    expect_run_error(pp, &arr, 1, 2, D2_ERR_INVALID, "'x'", "tensor array");
    d2_tensor *none = NULL;
    expect_run_error(pp, &none, 1, 2, D2_ERR_INVALID, "'x'", "missing");
    /* the prepared program still runs after the errors */
    d2_err err = {0};
    d2_tensor *out[2];
    assert_int_equal(d2_exec_run(pp, &good, 1, out, 2, &err), 0);
    unref_all(out, 2);
    d2_tensor_unref(good);
    d2_tensor_unref(wrong_dim);
    d2_tensor_unref(wrong_rank);
    d2_tensor_unref(wrong_dtype);
    d2_tensor_unref(arr);
    d2_exec_free(pp);
    d2_program_free(p);
}

/* An error inside an op of a nested block reports every enclosing op. */
static void test_nested_error_position(void **state)
{
    (void)state;
    d2_program *p = new_program();
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1);
    int a = bparam(p, 0, "a", T(D2_F32, -1)), b = bparam(p, 0, "b", T(D2_F32, -1));
    int cb = new_block(p, 0), bb = new_block(p, 0);
    int ci = bparam(p, cb, "ci", T0(D2_I64));
    yield(p, cb, binop(p, cb, D2_OP_less_than, ci, one, "c", T0(D2_BOOL)));
    int bi = bparam(p, bb, "bi", T0(D2_I64));
    int tb = new_block(p, bb), eb = new_block(p, bb);
    int pred = binop(p, bb, D2_OP_less_than, bi, one, "first", T0(D2_BOOL));
    /* then: a + b (fails at run time when the lengths differ); else: pass through */
    yield(p, tb, binop(p, tb, D2_OP_add, a, b, "ab", T(D2_F32, -1)));
    yield(p, eb, a);
    int r = var(p, bb, "r", T(D2_F32, -1));
    cond_op(p, bb, tb, eb, pred, 0, NULL, 1, &r);
    yield(p, bb, binop(p, bb, D2_OP_add, bi, one, "i2", T0(D2_I64)));
    int fin = var(p, 0, "fin", T0(D2_I64));
    while_op(p, 0, cb, bb, 1, &zero, &fin);
    yield(p, 0, fin);
    p->blocks[0].ops[0].line = 3;  /* the while_loop */
    p->blocks[tb].ops[0].line = 7; /* the add */
    d2_prepared *pp = prepare(p, NULL);
    float v[3] = {1, 2, 3};
    int64_t s2[1] = {2}, s3[1] = {3};
    d2_tensor *ok[2] = {f32_tensor(1, s3, v), f32_tensor(1, s3, v)};
    d2_tensor *bad[2] = {f32_tensor(1, s3, v), f32_tensor(1, s2, v)};
    d2_err err = {0};
    d2_tensor *out = NULL;
    assert_int_equal(d2_exec_run(pp, ok, 2, &out, 1, &err), 0);
    assert_int_equal(scalar_i64(out), 1);
    d2_tensor_unref(out);
    assert_int_equal(d2_exec_run(pp, bad, 2, &out, 1, &err), -1);
    assert_null(out);
    assert_int_equal(err.code, D2_ERR_SHAPE);
    char want[256];
    snprintf(want, sizeof want, "line 3: block ^0 op 0 (while_loop): iteration 0: body: block ^%d "
             "op 1 (cond): line 7: block ^%d op 0 (add): ", bb, tb);
    if (strncmp(err.msg, want, strlen(want)) != 0)
        fail_msg("message '%s' does not start with '%s'", err.msg, want);
    unref_all(ok, 2);
    unref_all(bad, 2);
    d2_exec_free(pp);
    d2_program_free(p);
}

/* ---- threads -------------------------------------------------------------------------------- */

typedef struct thread_job {
    d2_prepared *pp;
    int seed;
    int failures;
    char msg[D2_ERR_MSG_MAX];
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *job = arg;
    for (int r = 0; r < 40; r++) {
        int64_t n = (job->seed * 7 + r) % 9, m = (job->seed + r * 3) % 8, th = (r + job->seed) % 11;
        d2_err err = {0};
        int64_t got = run_nested(job->pp, n, m, th, &err);
        if (got != nested_expected(n, m, th)) {
            job->failures++;
            snprintf(job->msg, sizeof job->msg, "n=%lld m=%lld th=%lld: got %lld: %.900s",
                     (long long)n, (long long)m, (long long)th, (long long)got, err.msg);
        }
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    d2_program *p = nested_loops_program();
    d2_prepared *pp = prepare(p, NULL);
    enum { N_THREADS = 8 };
    pthread_t th[N_THREADS];
    thread_job jobs[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        jobs[i] = (thread_job){pp, i + 1, 0, ""};
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &jobs[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < N_THREADS; i++)
        if (jobs[i].failures)
            fail_msg("thread %d: %d failures, last: %s", i, jobs[i].failures, jobs[i].msg);
    d2_exec_free(pp);
    d2_program_free(p);
}

/* ---- preparation errors and control-op inference ------------------------------------------ */

/* Runs dynamic_program with batches that change from run to run: whichever run holds the
 * prepared Program's type memos reuses or replaces them while the others infer. */
static void *dynamic_thread_main(void *arg)
{
    thread_job *job = arg;
    for (int r = 0; r < 60; r++) {
        int64_t rows = 1 + (job->seed * 5 + r / 3) % 7;
        float xs[21], wv[21];
        for (int64_t i = 0; i < rows * 3; i++) {
            xs[i] = (float)(i * 3 - 5 + job->seed);
            wv[i] = (xs[i] + (float)(10 * (i % 3 + 1))) * 8;
        }
        int64_t shape[2] = {rows, 3};
        d2_tensor *in = f32_tensor(2, shape, xs), *out[2] = {NULL, NULL};
        d2_err err = {0};
        bool ok = d2_exec_run(job->pp, &in, 1, out, 2, &err) == 0 && out[1]->ndim == 2 &&
                  out[1]->shape[0] == rows && out[1]->shape[1] == 3;
        for (int64_t i = 0; ok && i < rows * 3; i++)
            ok = ((const float *)d2_tensor_data(out[1]))[i] == wv[i];
        if (!ok) {
            job->failures++;
            snprintf(job->msg, sizeof job->msg, "batch %lld: %.900s", (long long)rows,
                     err.msg[0] ? err.msg : "wrong result");
        }
        unref_all(out, 2);
        d2_tensor_unref(in);
    }
    return NULL;
}

static void test_threads_dynamic(void **state)
{
    (void)state;
    d2_program *p = dynamic_program();
    d2_prepared *pp = prepare(p, NULL);
    enum { N_THREADS = 6 };
    pthread_t th[N_THREADS];
    thread_job jobs[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        jobs[i] = (thread_job){pp, i + 1, 0, ""};
        assert_int_equal(pthread_create(&th[i], NULL, dynamic_thread_main, &jobs[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < N_THREADS; i++)
        if (jobs[i].failures)
            fail_msg("thread %d: %d failures, last: %s", i, jobs[i].failures, jobs[i].msg);
    d2_exec_free(pp);
    d2_program_free(p);
}

static d2_kernel_fn no_add_kernel(d2_backend *be, d2_op_id op)
{
    (void)be;
    return op == D2_OP_add ? NULL : d2_cpu_backend()->kernel(d2_cpu_backend(), op);
}

static void test_missing_kernel(void **state)
{
    (void)state;
    d2_backend be = *d2_cpu_backend();
    be.name = "partial";
    be.kernel = no_add_kernel;
    d2_program *p = sum_loop_program();
    d2_err err = {0};
    assert_null(d2_exec_prepare(p, &be, &err));
    assert_int_equal(err.code, D2_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "(add): no kernel on the partial backend"));
    d2_program_free(p);
}

static void test_param_without_data(void **state)
{
    (void)state;
    d2_program *p = new_program();
    d2_err err = {0};
    d2_type t = T(D2_F32, 2);
    int w = d2_program_add_param(p, "w", NULL, &t, &err);
    assert_true(w >= 0);
    int x = bparam(p, 0, "x", T(D2_F32, 2));
    yield(p, 0, binop(p, 0, D2_OP_add, x, w, "y", T(D2_F32, 2)));
    assert_null(d2_exec_prepare(p, NULL, &err));
    assert_non_null(strstr(err.msg, "'w'"));
    d2_program_free(p);
}

/* d2_exec_bind_param: runs read the bound tensor, and see writes into it. */
static void test_bind_param(void **state)
{
    (void)state;
    d2_program *p = new_program();
    d2_err err = {0};
    const float w0[2] = {1, 2}, b0[2] = {10, 20}, one[2] = {1, 1};
    int w = const_f32(p, "w", 2, w0);
    int x = bparam(p, 0, "x", T(D2_F32, 2));
    yield(p, 0, binop(p, 0, D2_OP_add, x, w, "y", T(D2_F32, 2)));
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    assert_non_null(pp);
    int64_t shape[1] = {2};
    d2_tensor *b = d2_tensor_from_data(D2_F32, 1, shape, b0, &err);
    d2_tensor *in = d2_tensor_from_data(D2_F32, 1, shape, one, &err);
    assert_non_null(b);
    assert_non_null(in);
    assert_int_equal(d2_exec_bind_param(pp, w, b, &err), 0);
    d2_tensor *out = NULL;
    assert_int_equal(d2_exec_run(pp, &in, 1, &out, 1, &err), 0);
    assert_float_equal(((float *)d2_tensor_data(out))[1], 21.0f, 0);
    d2_tensor_unref(out);
    ((float *)d2_tensor_data(b))[1] = 5; /* an in-place update */
    assert_int_equal(d2_exec_run(pp, &in, 1, &out, 1, &err), 0);
    assert_float_equal(((float *)d2_tensor_data(out))[1], 6.0f, 0);
    d2_tensor_unref(out);
    /* not a parameter; not of the parameter's type */
    assert_int_equal(d2_exec_bind_param(pp, x, b, &err), -1);
    assert_non_null(strstr(err.msg, "not one"));
    d2_err_clear(&err);
    d2_tensor *s = d2_tensor_scalar_i64(3, &err);
    assert_int_equal(d2_exec_bind_param(pp, w, s, &err), -1);
    assert_non_null(strstr(err.msg, "'w'"));
    d2_tensor_unref(s);
    d2_tensor_unref(in);
    d2_tensor_unref(b);
    d2_exec_free(pp);
    d2_program_free(p);
}

/* Infers the types of op `i` of block b. */
static int infer_op(const d2_program *p, int b, int i, d2_type *out, d2_err *err)
{
    return d2_program_infer_op(p, &p->blocks[b].ops[i], out, err);
}

static void assert_type(const d2_type *t, d2_value_kind kind, d2_dtype dt, int ndim, ...)
{
    assert_int_equal(t->kind, kind);
    assert_int_equal(t->dtype, dt);
    assert_int_equal(t->shape.ndim, ndim);
    va_list ap;
    va_start(ap, ndim);
    for (int d = 0; d < ndim; d++)
        assert_int_equal(t->shape.dims[d], va_arg(ap, int));
    va_end(ap);
}

static void test_infer_cond(void **state)
{
    (void)state;
    d2_program *p = new_program();
    int pred = bparam(p, 0, "pred", T(D2_BOOL, 1));
    int x = bparam(p, 0, "x", T(D2_F32, 2, 3));
    int i = bparam(p, 0, "i", T0(D2_I64));
    int tb = new_block(p, 0), eb = new_block(p, 0);
    int tx = bparam(p, tb, "tx", T(D2_F32, 2, 3));
    int ti = bparam(p, tb, "ti", T0(D2_I64));
    int ex = bparam(p, eb, "ex", T(D2_F32, 2, 3));
    bparam(p, eb, "ei", T0(D2_I64));
    int t4 = var(p, tb, "t4", T(D2_F32, 2, 4)); /* declared only: inference reads types */
    int e_dyn = var(p, eb, "e_dyn", T(D2_F32, -1, 3));
    yield(p, tb, tx);
    yield(p, tb, t4);
    yield(p, tb, ti);
    yield(p, eb, ex);
    yield(p, eb, e_dyn);
    yield(p, eb, i); /* outer variable */
    int ops[2] = {x, i};
    int res[3] = {var(p, 0, "r0", T(D2_F32, 2, 3)), var(p, 0, "r1", T(D2_F32, -1, -1)),
                  var(p, 0, "r2", T0(D2_I64))};
    cond_op(p, 0, tb, eb, pred, 2, ops, 3, res);
    d2_type out[3];
    d2_err err = {0};
    if (infer_op(p, 0, 0, out, &err) < 0)
        fail_msg("infer: %s", err.msg);
    assert_type(&out[0], D2_VALUE_TENSOR, D2_F32, 2, 2, 3);
    assert_type(&out[1], D2_VALUE_TENSOR, D2_F32, 2, -1, -1);
    assert_type(&out[2], D2_VALUE_TENSOR, D2_I64, 0);
    /* rank mismatch between the branches */
    p->vars[e_dyn].type = T(D2_F32, 6);
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_int_equal(err.code, D2_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "result 1 is float32[2,4] in the then block but float32[6]"));
    d2_err_clear(&err);
    /* dtype mismatch */
    p->vars[e_dyn].type = T(D2_F64, 2, 4);
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_int_equal(err.code, D2_ERR_DTYPE);
    assert_non_null(strstr(err.msg, "result 1"));
    d2_err_clear(&err);
    p->vars[e_dyn].type = T(D2_F32, -1, 3);
    /* operand dtype differs from the block param */
    p->vars[ex].type = T(D2_F64, 2, 3);
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_non_null(strstr(err.msg, "else block"));
    assert_non_null(strstr(err.msg, "param 0"));
    d2_err_clear(&err);
    p->vars[ex].type = T(D2_F32, 2, 3);
    /* a predicate with several elements */
    p->vars[pred].type = T(D2_BOOL, 2);
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_non_null(strstr(err.msg, "predicate"));
    d2_err_clear(&err);
    p->vars[pred].type = T(D2_BOOL, 1);
    /* a missing yield */
    p->blocks[eb].n_yields = 2;
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_non_null(strstr(err.msg, "yields 2 values but the op has 3 results"));
    p->blocks[eb].n_yields = 3;
    d2_program_free(p);
}

static void test_infer_while(void **state)
{
    (void)state;
    d2_program *p = new_program();
    int x = bparam(p, 0, "x", T(D2_F32, 1, 5));
    int i = bparam(p, 0, "i", T0(D2_I64));
    int cb = new_block(p, 0), bb = new_block(p, 0);
    bparam(p, cb, "cx", T(D2_F32, -1, 5));
    bparam(p, cb, "ci", T0(D2_I64));
    int c = var(p, cb, "c", T0(D2_BOOL));
    yield(p, cb, c);
    bparam(p, bb, "bx", T(D2_F32, -1, 5));
    int bi = bparam(p, bb, "bi", T0(D2_I64));
    int grown = var(p, bb, "grown", T(D2_F32, 2, 5)); /* rows double each iteration */
    yield(p, bb, grown);
    yield(p, bb, bi);
    int inits[2] = {x, i};
    int finals[2] = {var(p, 0, "fx", T(D2_F32, -1, 5)), var(p, 0, "fi", T0(D2_I64))};
    while_op(p, 0, cb, bb, 2, inits, finals);
    d2_type out[2];
    d2_err err = {0};
    if (infer_op(p, 0, 0, out, &err) < 0)
        fail_msg("infer: %s", err.msg);
    assert_type(&out[0], D2_VALUE_TENSOR, D2_F32, 2, -1, 5);
    assert_type(&out[1], D2_VALUE_TENSOR, D2_I64, 0);
    /* the condition must be one bool */
    p->vars[c].type = T0(D2_I64);
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_non_null(strstr(err.msg, "one bool value"));
    d2_err_clear(&err);
    p->vars[c].type = T(D2_BOOL, 3);
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_non_null(strstr(err.msg, "one bool value"));
    d2_err_clear(&err);
    p->vars[c].type = T(D2_BOOL, 1, 1);
    assert_int_equal(infer_op(p, 0, 0, out, &err), 0);
    /* body yield with a different dtype or rank */
    p->vars[grown].type = T(D2_F64, 2, 5);
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_int_equal(err.code, D2_ERR_DTYPE);
    assert_non_null(strstr(err.msg, "carried value 0"));
    d2_err_clear(&err);
    p->vars[grown].type = T(D2_F32, 10);
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_int_equal(err.code, D2_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "carried value 0"));
    d2_err_clear(&err);
    p->vars[grown].type = T(D2_F32, 2, 5);
    /* wrong number of body yields */
    p->blocks[bb].n_yields = 1;
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_non_null(strstr(err.msg, "yields 1 values for 2 carried values"));
    d2_err_clear(&err);
    p->blocks[bb].n_yields = 2;
    /* cond block params must match the inits */
    p->blocks[cb].n_params = 1;
    assert_int_equal(infer_op(p, 0, 0, out, &err), -1);
    assert_non_null(strstr(err.msg, "cond block"));
    p->blocks[cb].n_params = 2;
    d2_program_free(p);
}

/* A body that yields the wrong dtype for a carried value is refused at
 * prepare time (verification) or, at the latest, when it runs. */
static void test_body_wrong_dtype(void **state)
{
    (void)state;
    d2_program *p = new_program();
    const float half = 0.5f;
    int zero = const_i64(p, "zero", 0), one = const_i64(p, "one", 1);
    int f = const_t(p, "half", d2_tensor_from_data(D2_F32, 0, NULL, &half, NULL));
    int cb = new_block(p, 0), bb = new_block(p, 0);
    int ci = bparam(p, cb, "ci", T0(D2_I64));
    yield(p, cb, binop(p, cb, D2_OP_less_than, ci, one, "c", T0(D2_BOOL)));
    bparam(p, bb, "bi", T0(D2_I64));
    yield(p, bb, f);
    int fin = var(p, 0, "fin", T0(D2_I64));
    while_op(p, 0, cb, bb, 1, &zero, &fin);
    yield(p, 0, fin);
    d2_err err = {0};
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    if (pp) {
        d2_tensor *out = NULL;
        assert_int_equal(d2_exec_run(pp, NULL, 0, &out, 1, &err), -1);
        d2_exec_free(pp);
    }
    assert_int_not_equal(err.code, D2_OK);
    assert_non_null(strstr(err.msg, "carried value 0"));
    d2_program_free(p);
}

static void test_read_pred(void **state)
{
    (void)state;
    d2_err err = {0};
    bool v = true;
    d2_tensor *t = d2_tensor_scalar_bool(false, &err);
    assert_int_equal(d2_exec_read_pred(NULL, t, &v, &err), 0);
    assert_false(v);
    d2_tensor_unref(t);
    const double d[1] = {-0.0};
    int64_t one[1] = {1};
    t = d2_tensor_from_data(D2_F64, 1, one, d, &err);
    assert_int_equal(d2_exec_read_pred(NULL, t, &v, &err), 0);
    assert_false(v);
    d2_tensor_unref(t);
    const int32_t i[1] = {-3};
    int64_t s111[3] = {1, 1, 1};
    t = d2_tensor_from_data(D2_I32, 3, s111, i, &err);
    assert_int_equal(d2_exec_read_pred(NULL, t, &v, &err), 0);
    assert_true(v);
    d2_tensor_unref(t);
    t = d2_tensor_scalar_f32(NAN, &err);
    assert_int_equal(d2_exec_read_pred(NULL, t, &v, &err), 0);
    assert_true(v); /* NaN is truthy */
    d2_tensor_unref(t);
    const uint8_t bs[2] = {1, 0};
    int64_t two[1] = {2};
    t = d2_tensor_from_data(D2_BOOL, 1, two, bs, &err);
    assert_int_equal(d2_exec_read_pred(NULL, t, &v, &err), -1);
    assert_int_equal(err.code, D2_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "exactly one element"));
    d2_tensor_unref(t);
}

/* Out-of-memory at every allocation of prepare and run fails cleanly. */
static void test_out_of_memory(void **state)
{
    (void)state;
    d2_program *p = loop_with_cond_program(2);
    const float x[3] = {1, 2, 3};
    int64_t shape[1] = {3};
    d2_tensor *in[2] = {d2_tensor_scalar_i64(4, NULL), f32_tensor(1, shape, x)};
    bool done = false;
    for (long k = 0; !done && k < 100000; k++) {
        d2_err err = {0};
        d2_tensor *out = NULL;
        d2_alloc_fail_after(k);
        d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
        if (pp) {
            if (d2_exec_run(pp, in, 2, &out, 1, &err) == 0)
                done = true;
            d2_exec_free(pp);
        }
        d2_alloc_fail_after(-1);
        if (done) {
            const float want[3] = {8, 16, 24}; /* two adds, then two doublings */
            assert_f32_values(out, 3, want);
            d2_tensor_unref(out);
        } else {
            assert_null(out);
            assert_int_not_equal(err.code, D2_OK);
        }
    }
    assert_true(done);
    unref_all(in, 2);
    d2_program_free(p);
}

/* A counting loop of scalars (as bench/loop_bench.c): n trips of add, cast, add. */
static const char COUNT_LOOP[] =
    "block ^0 (n : int64[]) {\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  s0 : float32[] = full(_) {shape = [], value = 0, dtype = float32}\n"
    "  one : int64[] = full(_) {shape = [], value = 1, dtype = int64}\n"
    "  iN : int64[], sN : float32[] = while_loop(i0, s0) {cond = ^1, body = ^2}\n"
    "  return iN, sN\n"
    "}\n"
    "block ^1 parent ^0 (ci : int64[], cs : float32[]) {\n"
    "  more : bool[] = less_than(ci, n)\n"
    "  yield more\n"
    "}\n"
    "block ^2 parent ^0 (bi : int64[], bs : float32[]) {\n"
    "  bi1 : int64[] = add(bi, one)\n"
    "  t : float32[] = cast(bi1) {dtype = float32}\n"
    "  bs1 : float32[] = add(bs, t)\n"
    "  yield bi1, bs1\n"
    "}\n";

/* Runs the counting loop for n trips with the k-th allocation failing (k < 0: none); 0 when
 * the run succeeded with the right sums, -1 when it failed cleanly. */
static int count_loop_run(d2_prepared *pp, int64_t n, long k)
{
    d2_err err = {0};
    d2_tensor *in = d2_tensor_scalar_i64(n, &err), *out[2] = {NULL, NULL};
    assert_non_null(in);
    d2_alloc_fail_after(k);
    int rc = d2_exec_run(pp, &in, 1, out, 2, &err);
    d2_alloc_fail_after(-1);
    if (rc == 0) {
        assert_int_equal(*(const int64_t *)d2_tensor_data(out[0]), n);
        assert_float_equal(*(const float *)d2_tensor_data(out[1]), (double)(n * (n + 1) / 2),
                           0);
    } else {
        assert_null(out[0]);
        assert_null(out[1]);
        assert_int_not_equal(err.code, D2_OK);
    }
    d2_tensor_unref(in);
    d2_tensor_unref(out[0]);
    d2_tensor_unref(out[1]);
    return rc;
}

/* The allocations one run makes: the least k for which failing the k-th one lets it succeed
 * (injection also turns the tensor caches off, so every fresh tensor counts). */
static long count_loop_allocs(d2_prepared *pp, int64_t n)
{
    for (long k = 0; k < 100000; k++)
        if (count_loop_run(pp, n, k) == 0)
            return k;
    fail_msg("the counting loop never succeeded");
    return -1;
}

/* A while_loop's trips allocate nothing once the first few have run: the outputs of the
 * body's and condition's ops reuse the small values that died in earlier trips, and the
 * slot array is kept with the prepared Program. So a run of 300 trips makes as many
 * allocations as one of 3, and a run allocates no slot array. */
static void test_loop_trips_allocate_nothing(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_program *p = d2_program_parse(COUNT_LOOP, "<count_loop>", &err);
    assert_non_null(p);
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    assert_non_null(pp);
    assert_int_equal(count_loop_run(pp, 5, -1), 0);
    long few = count_loop_allocs(pp, 3), many = count_loop_allocs(pp, 300);
    assert_int_equal(few, many);
    /* a run that never enters the body allocates less still */
    long none = count_loop_allocs(pp, 0);
    assert_true(none < few);
    d2_exec_free(pp);
    d2_program_free(p);
}

/* Nested blocks borrow their tensor arguments (no reference of their own): a branch that
 * yields its operand itself, a condition block that yields its carried flag, and an in-place
 * op on a borrowed operand (xc: only block 0's slot holds it) that the caller reads again
 * after the cond must all leave the caller's values intact and give back references of their
 * own. */
static const char BORROW_PROGRAM[] =
    "param zero : float32[] = [0]\n"
    "block ^0 (x : float32[3], n : int64[]) {\n"
    "  xc : float32[3] = add(x, zero)\n"
    "  s : float32[] = sum(xc)\n"
    "  p : bool[] = greater_than(s, zero)\n"
    "  c : float32[3] = cond(p, xc) {then = ^1, else = ^2}\n"
    "  r : float32[3] = add(c, xc)\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  go : bool[] = less_than(i0, n)\n"
    "  iN : int64[], gN : bool[], xN : float32[3] = while_loop(i0, go, x) {cond = ^3, body = ^4}\n"
    "  return r, c, iN, xN\n"
    "}\n"
    "block ^1 parent ^0 (tx : float32[3]) {\n"
    "  ty : float32[3] = relu(tx)\n"
    "  tz : float32[3] = neg(ty)\n"
    "  yield tz\n"
    "}\n"
    "block ^2 parent ^0 (ex : float32[3]) {\n"
    "  yield ex\n"
    "}\n"
    "block ^3 parent ^0 (ci : int64[], cg : bool[], cx : float32[3]) {\n"
    "  yield cg\n"
    "}\n"
    "block ^4 parent ^0 (bi : int64[], bg : bool[], bx : float32[3]) {\n"
    "  one : int64[] = full(_) {shape = [], value = 1, dtype = int64}\n"
    "  bi1 : int64[] = add(bi, one)\n"
    "  bg1 : bool[] = less_than(bi1, n)\n"
    "  bx1 : float32[3] = add(bx, bx)\n"
    "  yield bi1, bg1, bx1\n"
    "}\n";

static void check_borrow_run(d2_prepared *pp, const float *xv, int64_t n, const float *want_r,
                             const float *want_c, const float *want_x)
{
    d2_err err = {0};
    int64_t shape[1] = {3};
    d2_tensor *in[2] = {f32_tensor(1, shape, xv), d2_tensor_scalar_i64(n, NULL)};
    d2_tensor *out[4] = {NULL, NULL, NULL, NULL};
    if (d2_exec_run(pp, in, 2, out, 4, &err) < 0)
        fail_msg("run: %s", err.msg);
    assert_f32_values(out[0], 3, want_r);
    assert_f32_values(out[1], 3, want_c);
    assert_int_equal(*(const int64_t *)d2_tensor_data(out[2]), n);
    assert_f32_values(out[3], 3, want_x);
    assert_f32_values(in[0], 3, xv); /* the caller's input is untouched */
    /* every output holds a reference of its own: dropping the inputs first leaves them */
    unref_all(in, 2);
    assert_f32_values(out[1], 3, want_c);
    unref_all(out, 4);
}

static void test_borrowed_block_args(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_program *p = d2_program_parse(BORROW_PROGRAM, "<borrow>", &err);
    if (!p)
        fail_msg("parse: %s", err.msg);
    for (int inplace = 0; inplace < 2; inplace++) {
        d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
        assert_non_null(pp);
        if (inplace)
            assert_true(d2_exec_enable_inplace(pp) > 0);
        const float x1[3] = {1, -2, 3}, r1[3] = {0, -2, 0}, c1[3] = {-1, 0, -3},
                    xn1[3] = {4, -8, 12};
        const float x2[3] = {-1, -2, 0.5f}, r2[3] = {-2, -4, 1}, xn2[3] = {-1, -2, 0.5f};
        for (int rep = 0; rep < 3; rep++) {
            check_borrow_run(pp, x1, 2, r1, c1, xn1);
            check_borrow_run(pp, x2, 0, r2, x2, xn2);
        }
        d2_exec_free(pp);
    }
    d2_program_free(p);
}

/* ---- golden text-form programs (tests/golden/exec, written by tests/gen/gen_exec_golden.py) -- */

/* Parses "DTYPE [d0,d1] v v v" into a CPU tensor; NULL when malformed. */
static d2_tensor *parse_value(const char *s)
{
    while (*s == ' ')
        s++;
    const char *e = strchr(s, ' ');
    if (!e)
        return NULL;
    int dt = d2_dtype_parse(s, (size_t)(e - s));
    s = e + 1;
    if (dt < 0 || *s != '[')
        return NULL;
    s++;
    int64_t shape[D2_MAX_DIMS];
    int nd = 0;
    while (*s != ']') {
        char *end;
        if (nd == D2_MAX_DIMS)
            return NULL;
        shape[nd++] = strtoll(s, &end, 10);
        if (end == s)
            return NULL;
        s = *end == ',' ? end + 1 : end;
    }
    s++;
    d2_tensor *t = d2_tensor_zeros((d2_dtype)dt, nd, shape, NULL);
    if (!t)
        return NULL;
    int64_t n = d2_tensor_numel(t);
    void *d = d2_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        char *end = NULL;
        switch (t->dtype) {
        case D2_F32: ((float *)d)[i] = strtof(s, &end); break;
        case D2_F64: ((double *)d)[i] = strtod(s, &end); break;
        case D2_I32: ((int32_t *)d)[i] = (int32_t)strtol(s, &end, 10); break;
        case D2_I64: ((int64_t *)d)[i] = strtoll(s, &end, 10); break;
        case D2_BOOL: ((uint8_t *)d)[i] = strtol(s, &end, 10) != 0; break;
        default: break;
        }
        if (!end || end == s) {
            d2_tensor_unref(t);
            return NULL;
        }
        s = end;
    }
    while (*s == ' ' || *s == '\n')
        s++;
    if (*s) {
        d2_tensor_unref(t);
        return NULL;
    }
    return t;
}

/* Checks got against want: dtype and shape exactly, floats within 1e-6
 * relative + 1e-6 absolute, others exactly. */
static void assert_close(const char *where, const d2_tensor *got, const d2_tensor *want)
{
    if (got->dtype != want->dtype)
        fail_msg("%s: dtype %s, want %s", where, d2_dtype_name(got->dtype),
                 d2_dtype_name(want->dtype));
    d2_shape gs, ws;
    d2_tensor_get_shape(got, &gs);
    d2_tensor_get_shape(want, &ws);
    if (!d2_shape_equal(&gs, &ws)) {
        char a[160], b[160];
        d2_shape_str(&gs, a, sizeof a);
        d2_shape_str(&ws, b, sizeof b);
        fail_msg("%s: shape %s, want %s", where, a, b);
    }
    d2_tensor *c = d2_tensor_contiguous((d2_tensor *)got, NULL);
    assert_non_null(c);
    for (int64_t i = 0; i < d2_tensor_numel(want); i++) {
        double g = d2_tensor_get_f64(c, i), w = d2_tensor_get_f64(want, i);
        double tol = d2_dtype_is_float(want->dtype) ? 1e-6 + 1e-6 * fabs(w) : 0;
        if (!(fabs(g - w) <= tol))
            fail_msg("%s: element %lld is %.9g, want %.9g", where, (long long)i, g, w);
    }
    d2_tensor_unref(c);
}

typedef struct golden_case {
    char name[64];
    int n_in, n_out;
    d2_tensor *in[8], *out[8];
    char error[256];
} golden_case;

static void golden_case_clear(golden_case *c)
{
    unref_all(c->in, c->n_in);
    unref_all(c->out, c->n_out);
    memset(c, 0, sizeof *c);
}

/* Runs one case; n_out is the program's output count. */
static void golden_case_run(const char *file, d2_prepared *pp, const golden_case *c, int n_out)
{
    d2_tensor *out[8] = {NULL};
    d2_err err = {0};
    assert_true(n_out <= 8);
    int rc = d2_exec_run(pp, (d2_tensor **)c->in, c->n_in, out, n_out, &err);
    if (c->error[0]) {
        if (rc == 0)
            fail_msg("%s case %s: ran, want an error containing '%s'", file, c->name, c->error);
        if (!strstr(err.msg, c->error))
            fail_msg("%s case %s: error '%s' lacks '%s'", file, c->name, err.msg, c->error);
        return;
    }
    if (rc < 0)
        fail_msg("%s case %s: %s", file, c->name, err.msg);
    for (int i = 0; i < c->n_out; i++) {
        char where[160];
        snprintf(where, sizeof where, "%s case %s output %d", file, c->name, i);
        assert_close(where, out[i], c->out[i]);
    }
    unref_all(out, c->n_out);
}

/* Parses a golden file, prepares its program once and runs every case. */
static void test_golden(void **state)
{
    const char *file = *state;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/golden/exec/%s", D2_SRCDIR, file);
    char *text = tu_load_file(path, NULL);
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, file, &err);
    if (!p)
        fail_msg("parse %s: %s", file, err.msg);
    d2_prepared *pp = prepare(p, NULL);
    int n_out = p->blocks[0].n_yields, n_cases = 0;
    golden_case c;
    memset(&c, 0, sizeof c);
    bool open = false;
    for (char *line = strtok(text, "\n");; line = strtok(NULL, "\n")) {
        bool is_case = line && strncmp(line, "#> case ", 8) == 0;
        if ((!line || is_case) && open) {
            if (!c.error[0] && c.n_out != n_out)
                fail_msg("%s case %s: %d outputs listed, the program has %d", file, c.name,
                         c.n_out, n_out);
            golden_case_run(file, pp, &c, n_out);
            golden_case_clear(&c);
            n_cases++;
            open = false;
        }
        if (!line)
            break;
        if (is_case) {
            snprintf(c.name, sizeof c.name, "%s", line + 8);
            open = true;
        } else if (strncmp(line, "#> in ", 6) == 0 || strncmp(line, "#> out ", 7) == 0) {
            bool in = line[3] == 'i';
            d2_tensor *t = parse_value(line + (in ? 6 : 7));
            if (!t || !open || (in ? c.n_in : c.n_out) == 8)
                fail_msg("%s: bad line '%s'", file, line);
            if (in)
                c.in[c.n_in++] = t;
            else
                c.out[c.n_out++] = t;
        } else if (strncmp(line, "#> error ", 9) == 0) {
            snprintf(c.error, sizeof c.error, "%s", line + 9);
        }
    }
    assert_true(n_cases > 0);
    d2_exec_free(pp);
    d2_program_free(p);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_while_sum),
        cmocka_unit_test(test_while_zero_iterations),
        cmocka_unit_test(test_while_with_cond),
        cmocka_unit_test(test_cond_in_while_in_while),
        cmocka_unit_test(test_long_loop_bounded_memory),
        cmocka_unit_test(test_liveness_releases_early),
        cmocka_unit_test(test_liveness_nested_use),
        cmocka_unit_test(test_array_grown_in_loop),
        cmocka_unit_test(test_dynamic_batch),
        cmocka_unit_test(test_repeated_yields),
        cmocka_unit_test(test_input_errors),
        cmocka_unit_test(test_nested_error_position),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_threads_dynamic),
        cmocka_unit_test(test_missing_kernel),
        cmocka_unit_test(test_param_without_data),
        cmocka_unit_test(test_bind_param),
        cmocka_unit_test(test_infer_cond),
        cmocka_unit_test(test_infer_while),
        cmocka_unit_test(test_body_wrong_dtype),
        cmocka_unit_test(test_read_pred),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_loop_trips_allocate_nothing),
        cmocka_unit_test(test_borrowed_block_args),
        cmocka_unit_test_prestate(test_golden, (void *)"sum_loop.txt"),
        cmocka_unit_test_prestate(test_golden, (void *)"collatz.txt"),
        cmocka_unit_test_prestate(test_golden, (void *)"nested.txt"),
        cmocka_unit_test_prestate(test_golden, (void *)"array_loop.txt"),
        cmocka_unit_test_prestate(test_golden, (void *)"dynamic.txt"),
        cmocka_unit_test_prestate(test_golden, (void *)"cond_shapes.txt"),
        cmocka_unit_test_prestate(test_golden, (void *)"nested_error.txt"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
