/* test_backward.c - append_backward on Programs: gradients checked against central finite
 * differences of the forward Program (float64), cond and while_loop gradients, the text form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backward.h"
#include "exec.h"
#ifdef DY2ST_HAVE_OPENCL
#include "opencl/opencl.h"
#endif
#include "../testutil.h"

#define GOLDEN D2_SRCDIR "/tests/golden/backward"

/* Central differences: step H; the analytic gradient must match within
 * |g - fd| <= ATOL + RTOL * |fd| (float64 throughout). */
#define H 1e-6
#define RTOL 1e-6
#define ATOL 1e-8

static d2_program *parse(const char *text)
{
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, "test", &err);
    if (!p)
        fail_msg("parse: %s", err.msg);
    return p;
}

static int var_of(const d2_program *p, const char *name)
{
    int v = d2_program_find_var(p, name);
    if (v < 0)
        fail_msg("no variable %s", name);
    return v;
}

static d2_tensor *f64(int ndim, const int64_t *shape, const double *data)
{
    d2_err err = {0};
    d2_tensor *t = d2_tensor_from_data(D2_F64, ndim, shape, data, &err);
    if (!t)
        fail_msg("tensor: %s", err.msg);
    return t;
}

static d2_tensor *i64(int64_t v)
{
    d2_err err = {0};
    d2_tensor *t = d2_tensor_scalar_i64(v, &err);
    if (!t)
        fail_msg("tensor: %s", err.msg);
    return t;
}

/* Runs p on the feeds; out receives its n_out results. */
static void run(const d2_program *p, d2_tensor **in, int n_in, d2_tensor **out, int n_out)
{
    d2_err err = {0};
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    if (!pp)
        fail_msg("prepare: %s", err.msg);
    if (d2_exec_run(pp, in, n_in, out, n_out, &err) < 0)
        fail_msg("run: %s", err.msg);
    d2_exec_free(pp);
}

static double run_loss(const d2_program *p, d2_tensor **in, int n_in)
{
    d2_tensor *out = NULL;
    run(p, in, n_in, &out, 1);
    double v = d2_tensor_get_f64(out, 0);
    d2_tensor_unref(out);
    return v;
}

/* The tensor that holds wrt variable v's value: its feed or its parameter data. */
static d2_tensor *value_of(d2_program *p, int v, d2_tensor **in)
{
    if (p->vars[v].persistable)
        return p->vars[v].data;
    const d2_block *b0 = &p->blocks[0];
    for (int i = 0; i < b0->n_params; i++)
        if (b0->params[i] == v)
            return in[i];
    fail_msg("%s is neither a feed nor a parameter", p->vars[v].name);
    return NULL;
}

/* Appends the backward of `loss` with respect to wrt to a copy of the forward Program in
 * text, runs it on the feeds, and compares each gradient with central differences of the
 * forward Program. Returns the backward Program (the caller frees it). */
static d2_program *check_grads(const char *text, const char *const *wrt, int n_wrt,
                               d2_tensor **in, int n_in)
{
    d2_err err = {0};
    d2_program *fwd = parse(text);
    assert_int_equal(d2_program_verify(fwd, &err), 0);
    d2_program *bwd = d2_program_clone(fwd, &err);
    assert_non_null(bwd);
    int w[8], g[8];
    for (int i = 0; i < n_wrt; i++)
        w[i] = var_of(bwd, wrt[i]);
    if (d2_append_backward(bwd, 0, var_of(bwd, "loss"), w, n_wrt, g, &err) < 0)
        fail_msg("append_backward: %s", err.msg);
    for (int i = 0; i < n_wrt; i++) {
        assert_true(g[i] >= 0);
        char want[64];
        snprintf(want, sizeof want, "%s@GRAD", wrt[i]);
        assert_string_equal(bwd->vars[g[i]].name, want);
        assert_int_equal(d2_block_add_yield(bwd, 0, g[i], &err), 0);
    }
    if (d2_program_verify(bwd, &err) < 0) {
        char *s = d2_program_print(bwd, false);
        fprintf(stderr, "%s\n", s);
        free(s);
        fail_msg("verify: %s", err.msg);
    }
    /* the text form round-trips */
    char *s1 = d2_program_print(bwd, true);
    d2_program *again = parse(s1);
    char *s2 = d2_program_print(again, true);
    assert_string_equal(s1, s2);
    free(s1);
    free(s2);
    d2_program_free(again);

    d2_tensor *out[9] = {0};
    run(bwd, in, n_in, out, 1 + n_wrt);
    /* the forward part computes what the forward Program does */
    double f0 = run_loss(fwd, in, n_in);
    assert_true(fabs(d2_tensor_get_f64(out[0], 0) - f0) <= 1e-12 * (1 + fabs(f0)));
    for (int i = 0; i < n_wrt; i++) {
        d2_tensor *x = value_of(fwd, var_of(fwd, wrt[i]), in);
        d2_shape sh;
        d2_tensor_get_shape(x, &sh);
        d2_tensor *fd = d2_tensor_zeros(D2_F64, sh.ndim, sh.dims, &err);
        assert_non_null(fd);
        double *xd = d2_tensor_data(x), *fdd = d2_tensor_data(fd);
        for (int64_t e = 0; e < d2_tensor_numel(x); e++) {
            double x0 = xd[e];
            xd[e] = x0 + H;
            double fp = run_loss(fwd, in, n_in);
            xd[e] = x0 - H;
            double fm = run_loss(fwd, in, n_in);
            xd[e] = x0;
            fdd[e] = (fp - fm) / (2 * H);
        }
        tu_expect_close(wrt[i], out[1 + i], fd, RTOL, ATOL, "central differences");
        d2_tensor_unref(fd);
    }
    for (int i = 0; i <= n_wrt; i++)
        d2_tensor_unref(out[i]);
    d2_program_free(fwd);
    return bwd;
}

static void unref_all(d2_tensor **t, int n)
{
    for (int i = 0; i < n; i++)
        d2_tensor_unref(t[i]);
}

/* ---- straight-line programs ---- */

static const char MLP[] =
    "param w1 : float64[4,3] = [0.5, -0.25, 0.75, 0.1, 0.3, -0.6, -0.4, 0.2, 0.9, 0.05, -0.7, 0.35]\n"
    "param b1 : float64[3] = [0.1, -0.2, 0.3]\n"
    "block ^0 (x : float64[-1,4], w2 : float64[3,2], b2 : float64[2]) {\n"
    "  h : float64[-1,3] = matmul(x, w1)\n"
    "  h1 : float64[-1,3] = add(h, b1)\n"
    "  h2 : float64[-1,3] = tanh(h1)\n"
    "  y : float64[-1,2] = matmul(h2, w2)\n"
    "  y1 : float64[-1,2] = add(y, b2)\n"
    "  loss : float64[] = mean(y1)\n"
    "  return loss\n"
    "}\n";

/* An MLP whose batch dim is dynamic (-1): parameters and feeds both differentiated. */
static void test_mlp(void **state)
{
    (void)state;
    double x[5 * 4], w2[6] = {0.3, -0.8, 1.1, 0.4, -0.5, 0.7}, b2[2] = {0.05, -0.1};
    for (int i = 0; i < 20; i++)
        x[i] = sin(0.7 * i + 0.3);
    d2_tensor *in[3] = {f64(2, (int64_t[]){5, 4}, x), f64(2, (int64_t[]){3, 2}, w2),
                        f64(1, (int64_t[]){2}, b2)};
    const char *wrt[] = {"w1", "b1", "x", "w2", "b2"};
    d2_program_free(check_grads(MLP, wrt, 5, in, 3));
    unref_all(in, 3);
    /* another batch size through the same dynamic dim */
    d2_tensor *in2[3] = {f64(2, (int64_t[]){2, 4}, x), f64(2, (int64_t[]){3, 2}, w2),
                         f64(1, (int64_t[]){2}, b2)};
    d2_program_free(check_grads(MLP, wrt, 5, in2, 3));
    unref_all(in2, 3);
}

/* Broadcasting in both directions: the gradients are reduced to each operand's shape. */
static void test_broadcast(void **state)
{
    (void)state;
    static const char text[] =
        "block ^0 (x : float64[2,3,4], y : float64[3,1], z : float64[4]) {\n"
        "  a : float64[2,3,4] = multiply(x, y)\n"
        "  b : float64[2,3,4] = subtract(a, z)\n"
        "  c : float64[2,3,4] = multiply(b, b)\n"
        "  loss : float64[] = sum(c)\n"
        "  return loss\n"
        "}\n";
    double x[24], y[3] = {0.5, -1.5, 2}, z[4] = {0.1, 0.2, -0.3, 0.4};
    for (int i = 0; i < 24; i++)
        x[i] = cos(0.37 * i);
    d2_tensor *in[3] = {f64(3, (int64_t[]){2, 3, 4}, x), f64(2, (int64_t[]){3, 1}, y),
                        f64(1, (int64_t[]){4}, z)};
    const char *wrt[] = {"x", "y", "z"};
    d2_program_free(check_grads(text, wrt, 3, in, 3));
    unref_all(in, 3);
}

static const char TWICE[] = "block ^0 (x : float64[3]) {\n"
                            "  a : float64[3] = multiply(x, x)\n"
                            "  b : float64[3] = add(a, x)\n"
                            "  loss : float64[] = sum(b)\n"
                            "  return loss\n"
                            "}\n";

/* A variable used several times: its gradient is the sum of the contributions (2x + 1). */
static void test_used_twice(void **state)
{
    (void)state;
    double x[3] = {0.5, -2, 3};
    d2_tensor *in[1] = {f64(1, (int64_t[]){3}, x)};
    const char *wrt[] = {"x"};
    d2_program *p = check_grads(TWICE, wrt, 1, in, 1);
    d2_tensor *out[2] = {0};
    run(p, in, 1, out, 2);
    for (int i = 0; i < 3; i++)
        assert_true(d2_tensor_get_f64(out[1], i) == 2 * x[i] + 1);
    unref_all(out, 2);
    unref_all(in, 1);
    d2_program_free(p);
}

/* ---- cond ---- */

static const char COND[] =
    "param zero : float64[] = [0]\n"
    "param c : float64[3] = [0.5, -1, 2]\n"
    "block ^0 (x : float64[3], w : float64[3]) {\n"
    "  s : float64[] = sum(x)\n"
    "  p : bool[] = greater_than(s, zero)\n"
    "  r : float64[3] = cond(p, x, w) {then = ^1, else = ^2}\n"
    "  r2 : float64[3] = multiply(r, x)\n"
    "  loss : float64[] = sum(r2)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (a : float64[3], b : float64[3]) {\n"
    "  t : float64[3] = multiply(a, b)\n"
    "  t2 : float64[3] = tanh(t)\n"
    "  t3 : float64[3] = add(t2, c)\n"
    "  yield t3\n"
    "}\n"
    "block ^2 parent ^0 (a2 : float64[3], b2 : float64[3]) {\n"
    "  e : float64[3] = subtract(a2, c)\n"
    "  yield e\n"
    "}\n";

/* A cond on a data-dependent predicate, both ways; the else block does not use w (its
 * gradient there is zeros) and both read the enclosing parameter c. */
static void test_cond(void **state)
{
    (void)state;
    const char *wrt[] = {"x", "w", "c"};
    double xs[2][3] = {{0.5, -0.2, 0.9}, {-0.5, 0.2, -0.9}}, w[3] = {1.5, -0.7, 0.4};
    for (int k = 0; k < 2; k++) {
        d2_tensor *in[2] = {f64(1, (int64_t[]){3}, xs[k]), f64(1, (int64_t[]){3}, w)};
        d2_program *p = check_grads(COND, wrt, 3, in, 2);
        if (k == 1) { /* the else branch: w gets zeros */
            d2_tensor *out[4] = {0};
            run(p, in, 2, out, 4);
            for (int i = 0; i < 3; i++)
                assert_true(d2_tensor_get_f64(out[2], i) == 0);
            unref_all(out, 4);
        }
        d2_program_free(p);
        unref_all(in, 2);
    }
}

static const char COND2[] =
    "block ^0 (x : float64[3], y : float64[3], p : bool[]) {\n"
    "  r1 : float64[3], r2 : float64[3] = cond(p, x, x) {then = ^1, else = ^2}\n"
    "  loss : float64[] = sum(r1)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (a : float64[3], b : float64[3]) {\n"
    "  t : float64[3] = multiply(a, b)\n"
    "  t2 : float64[3] = multiply(t, y)\n"
    "  yield t2, y\n"
    "}\n"
    "block ^2 parent ^0 (c : float64[3], d : float64[3]) {\n"
    "  yield y, d\n"
    "}\n";

/* One variable passed as two operands, a result without a gradient, blocks that yield an
 * enclosing variable or an operand as they are. */
static void test_cond_passthrough(void **state)
{
    (void)state;
    const char *wrt[] = {"x", "y"};
    double x[3] = {0.5, -1.5, 2}, y[3] = {-0.3, 0.8, 1.1};
    for (int k = 0; k < 2; k++) {
        d2_err err = {0};
        d2_tensor *in[3] = {f64(1, (int64_t[]){3}, x), f64(1, (int64_t[]){3}, y),
                            d2_tensor_scalar_bool(k == 0, &err)};
        d2_program_free(check_grads(COND2, wrt, 2, in, 3));
        unref_all(in, 3);
    }
}

/* ---- while_loop ---- */

static const char LOOP[] =
    "param w : float64[3] = [0.9, -1.1, 1.2]\n"
    "param one : int64[] = [1]\n"
    "block ^0 (x : float64[-1,3], n : int64[]) {\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  h : float64[-1,3], i : int64[] = while_loop(x, i0) {cond = ^1, body = ^2}\n"
    "  h2 : float64[-1,3] = multiply(h, h)\n"
    "  loss : float64[] = mean(h2)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (a : float64[-1,3], j : int64[]) {\n"
    "  go : bool[] = less_than(j, n)\n"
    "  yield go\n"
    "}\n"
    "block ^2 parent ^0 (b : float64[-1,3], k : int64[]) {\n"
    "  b2 : float64[-1,3] = multiply(b, w)\n"
    "  k2 : int64[] = add(k, one)\n"
    "  yield b2, k2\n"
    "}\n";

/* A loop that multiplies by a parameter n times (n fed at run time, 0 included): the
 * parameter's gradient accumulates over the iterations. */
static void test_while(void **state)
{
    (void)state;
    const char *wrt[] = {"x", "w"};
    double x[6] = {0.3, -0.5, 0.8, 1.1, 0.2, -0.4};
    for (int n = 0; n <= 3; n++) {
        d2_tensor *in[2] = {f64(2, (int64_t[]){2, 3}, x), i64(n)};
        d2_program *p = check_grads(LOOP, wrt, 2, in, 2);
        if (n == 2) {
            /* a second backward over the rewritten loop gives the same gradient again */
            d2_err err = {0};
            int w = var_of(p, "w"), g;
            assert_int_equal(d2_append_backward(p, 0, var_of(p, "loss"), &w, 1, &g, &err), 0);
            assert_int_equal(d2_block_add_yield(p, 0, g, &err), 0);
            assert_int_equal(d2_program_verify(p, &err), 0);
            d2_tensor *out[4] = {0};
            run(p, in, 2, out, 4);
            tu_expect_close("second w@GRAD", out[3], out[2], 0, 0, "the first backward");
            unref_all(out, 4);
        }
        d2_program_free(p);
        unref_all(in, 2);
    }
}

static const char NESTED[] =
    "param w : float64[3] = [0.5, -0.3, 0.8]\n"
    "param one : int64[] = [1]\n"
    "param zero : float64[] = [0]\n"
    "block ^0 (x : float64[3], n : int64[]) {\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  h : float64[3], i : int64[] = while_loop(x, i0) {cond = ^1, body = ^2}\n"
    "  loss : float64[] = sum(h)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (a : float64[3], j : int64[]) {\n"
    "  go : bool[] = less_than(j, n)\n"
    "  yield go\n"
    "}\n"
    "block ^2 parent ^0 (b : float64[3], k : int64[]) {\n"
    "  s : float64[] = sum(b)\n"
    "  p : bool[] = greater_than(s, zero)\n"
    "  b2 : float64[3] = cond(p, b) {then = ^3, else = ^4}\n"
    "  k2 : int64[] = add(k, one)\n"
    "  yield b2, k2\n"
    "}\n"
    "block ^3 parent ^2 (u : float64[3]) {\n"
    "  u1 : float64[3] = multiply(u, w)\n"
    "  u2 : float64[3] = tanh(u1)\n"
    "  u3 : float64[3] = subtract(u2, w)\n"
    "  yield u3\n"
    "}\n"
    "block ^4 parent ^2 (v : float64[3]) {\n"
    "  v1 : float64[3] = add(v, w)\n"
    "  v2 : float64[3] = multiply(v1, v1)\n"
    "  yield v2\n"
    "}\n";

/* A cond inside a while_loop body whose predicate changes from one iteration to the next
 * (sums 0.5, -0.48, 0.12, -0.91 for these inputs). */
static void test_cond_in_while(void **state)
{
    (void)state;
    const char *wrt[] = {"x", "w"};
    double x[3] = {0.3, -0.2, 0.4};
    for (int n = 1; n <= 4; n += 3) {
        d2_tensor *in[2] = {f64(1, (int64_t[]){3}, x), i64(n)};
        d2_program_free(check_grads(NESTED, wrt, 2, in, 2));
        unref_all(in, 2);
    }
}

static const char SWAP[] =
    "param one : int64[] = [1]\n"
    "block ^0 (x : float64[2], y : float64[2], n : int64[]) {\n"
    "  s : float64[2] = tanh(y)\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  a : float64[2], b : float64[2], i : int64[] = while_loop(x, y, i0) {cond = ^1, body = ^2}\n"
    "  ab : float64[2] = multiply(a, b)\n"
    "  loss : float64[] = sum(ab)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (a1 : float64[2], b1 : float64[2], j : int64[]) {\n"
    "  go : bool[] = less_than(j, n)\n"
    "  yield go\n"
    "}\n"
    "block ^2 parent ^0 (a2 : float64[2], b2 : float64[2], k : int64[]) {\n"
    "  p : float64[2] = multiply(a2, b2)\n"
    "  q : float64[2] = add(p, s)\n"
    "  k2 : int64[] = add(k, one)\n"
    "  yield b2, q, k2\n"
    "}\n";

/* Carried values that trade places each iteration; the body reads an enclosing intermediate
 * (s = tanh(y)), whose gradient accumulates over the iterations and flows on to y. */
static void test_while_swap(void **state)
{
    (void)state;
    const char *wrt[] = {"x", "y"};
    double x[2] = {0.7, -0.4}, y[2] = {0.5, 0.9};
    for (int n = 0; n <= 3; n++) {
        d2_tensor *in[3] = {f64(1, (int64_t[]){2}, x), f64(1, (int64_t[]){2}, y), i64(n)};
        d2_program_free(check_grads(SWAP, wrt, 2, in, 3));
        unref_all(in, 3);
    }
}

static const char LOOPS[] =
    "param w : float64[2] = [0.8, -1.3]\n"
    "param one : int64[] = [1]\n"
    "block ^0 (x : float64[-1,2], n : int64[], m : int64[]) {\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  h : float64[-1,2], i : int64[] = while_loop(x, i0) {cond = ^1, body = ^2}\n"
    "  loss : float64[] = sum(h)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (a : float64[-1,2], j : int64[]) {\n"
    "  go : bool[] = less_than(j, n)\n"
    "  yield go\n"
    "}\n"
    "block ^2 parent ^0 (b : float64[-1,2], k : int64[]) {\n"
    "  z : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  u : float64[-1,2], l : int64[] = while_loop(b, z) {cond = ^3, body = ^4}\n"
    "  u2 : float64[-1,2] = sin(u)\n"
    "  k2 : int64[] = add(k, one)\n"
    "  yield u2, k2\n"
    "}\n"
    "block ^3 parent ^2 (c : float64[-1,2], l1 : int64[]) {\n"
    "  go2 : bool[] = less_than(l1, m)\n"
    "  yield go2\n"
    "}\n"
    "block ^4 parent ^2 (d : float64[-1,2], l2 : int64[]) {\n"
    "  d2 : float64[-1,2] = multiply(d, w)\n"
    "  d3 : float64[-1,2] = add(d2, b)\n"
    "  l3 : int64[] = add(l2, one)\n"
    "  yield d3, l3\n"
    "}\n";

/* A while_loop inside a while_loop body (the inner one reads the outer body's value b):
 * the inner loop is recomputed and recorded anew in each outer iteration's gradient. */
static void test_nested_while(void **state)
{
    (void)state;
    const char *wrt[] = {"x", "w"};
    double x[4] = {0.3, -0.2, 0.5, 0.1};
    int64_t nm[3][2] = {{2, 3}, {3, 1}, {1, 0}};
    for (int t = 0; t < 3; t++) {
        d2_tensor *in[3] = {f64(2, (int64_t[]){2, 2}, x), i64(nm[t][0]), i64(nm[t][1])};
        d2_program_free(check_grads(LOOPS, wrt, 2, in, 3));
        unref_all(in, 3);
    }
}

static const char WHILE_IN_COND[] =
    "param w : float64[3] = [0.7, -1.2, 0.9]\n"
    "param one : int64[] = [1]\n"
    "param zero : float64[] = [0]\n"
    "block ^0 (x : float64[3], n : int64[]) {\n"
    "  s : float64[] = sum(x)\n"
    "  p : bool[] = greater_than(s, zero)\n"
    "  r : float64[3] = cond(p, x) {then = ^1, else = ^2}\n"
    "  r2 : float64[3] = multiply(r, r)\n"
    "  loss : float64[] = sum(r2)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (a : float64[3]) {\n"
    "  e : float64[3] = sin(a)\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  h : float64[3], i : int64[] = while_loop(a, i0) {cond = ^3, body = ^4}\n"
    "  yield h\n"
    "}\n"
    "block ^2 parent ^0 (b : float64[3]) {\n"
    "  b2 : float64[3] = multiply(b, w)\n"
    "  yield b2\n"
    "}\n"
    "block ^3 parent ^1 (c : float64[3], j : int64[]) {\n"
    "  go : bool[] = less_than(j, n)\n"
    "  yield go\n"
    "}\n"
    "block ^4 parent ^1 (d : float64[3], k : int64[]) {\n"
    "  d1 : float64[3] = multiply(d, w)\n"
    "  d2 : float64[3] = add(d1, e)\n"
    "  k2 : int64[] = add(k, one)\n"
    "  yield d2, k2\n"
    "}\n";

/* A while_loop inside a cond branch whose body reads a value of the branch (e = sin(a)) and
 * the parameter w: recomputed and recorded inside the branch's gradient. */
static void test_while_in_cond(void **state)
{
    (void)state;
    const char *wrt[] = {"x", "w"};
    double xs[2][3] = {{0.4, 0.3, -0.2}, {-0.4, 0.3, -0.2}};
    for (int k = 0; k < 2; k++)
        for (int n = 0; n <= 2; n += 2) {
            d2_tensor *in[2] = {f64(1, (int64_t[]){3}, xs[k]), i64(n)};
            d2_program_free(check_grads(WHILE_IN_COND, wrt, 2, in, 2));
            unref_all(in, 2);
        }
}

/* Replaces every occurrence of `from` in s (malloc'd) by `to`; a new string. */
static char *replace_all(const char *s, const char *from, const char *to)
{
    size_t lf = strlen(from), lt = strlen(to), n = 0;
    for (const char *q = strstr(s, from); q; q = strstr(q + lf, from))
        n++;
    char *r = malloc(strlen(s) + n * lt + 1), *o = r;
    for (const char *q; (q = strstr(s, from)); s = q + lf) {
        memcpy(o, s, (size_t)(q - s));
        o += q - s;
        memcpy(o, to, lt);
        o += lt;
    }
    strcpy(o, s);
    return r;
}

/* The sample Program (an MLP refined by a while_loop of relu steps) in float64 with the mean of
 * its logits as the loss. */
static void test_sample_program(void **state)
{
    (void)state;
    char *text = tu_load_file(D2_SRCDIR "/samples/programs/mlp_loop.d2p", NULL);
    char *t64 = replace_all(text, "float32", "float64");
    char *src = replace_all(t64, "  return logits, steps, positive\n",
                            "  loss : float64[] = mean(logits)\n  return loss\n");
    assert_non_null(strstr(src, "return loss"));
    double x[8] = {0.3, -0.7, 1.1, 0.45, -0.2, 0.9, 0.65, -1.3};
    d2_tensor *in[1] = {f64(2, (int64_t[]){2, 4}, x)};
    const char *wrt[] = {"x", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
    d2_program_free(check_grads(src, wrt, 5, in, 1));
    unref_all(in, 1);
    free(text);
    free(t64);
    free(src);
}

/* ---- the text form ---- */

/* Appends the backward of loss with respect to wrt (the gradients yielded after the loss) and
 * compares the printed Program with golden file name. */
static void check_golden(const char *name, const char *text, const char *const *wrt, int n_wrt)
{
    d2_err err = {0};
    d2_program *p = parse(text);
    int w[8], g[8];
    for (int i = 0; i < n_wrt; i++)
        w[i] = var_of(p, wrt[i]);
    assert_int_equal(d2_append_backward(p, 0, var_of(p, "loss"), w, n_wrt, g, &err), 0);
    for (int i = 0; i < n_wrt; i++)
        assert_int_equal(d2_block_add_yield(p, 0, g[i], &err), 0);
    assert_int_equal(d2_program_verify(p, &err), 0);
    char *got = d2_program_print(p, true);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GOLDEN, name);
    char *want = tu_load_file(path, NULL);
    if (strcmp(got, want) != 0)
        tu_show_diff(name, got, want);
    assert_string_equal(got, want);
    free(got);
    free(want);
    d2_program_free(p);
}

/* The printed backward of the cond program and of the while_loop program (the forward loop
 * rewritten to record its carried value, the reverse loop). */
static void test_golden(void **state)
{
    (void)state;
    const char *cw[] = {"x", "w", "c"}, *lw[] = {"x", "w"};
    check_golden("cond.prog", COND, cw, 3);
    check_golden("while.prog", LOOP, lw, 2);
}

/* ---- tensor arrays ---- */

static const char ARRAY_LOOP[] =
    "param w : float64[3] = [0.9, -1.1, 1.2]\n"
    "param v : float64[3] = [0.5, 2, -0.3]\n"
    "param one : int64[] = [1]\n"
    "block ^0 (x : float64[3], n : int64[]) {\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  a0 : array<float64[]> = array_create() {dtype = float64}\n"
    "  h : float64[3], i : int64[], a : array<float64[3]> = while_loop(x, i0, a0) "
    "{cond = ^1, body = ^2}\n"
    "  s : float64[-1,3] = array_stack(a) {axis = 1}\n"
    "  s2 : float64[-1,3] = multiply(s, s)\n"
    "  c : float64[-1] = array_concat(a) {axis = 0}\n"
    "  c2 : float64[-1] = sin(c)\n"
    "  r : float64[3] = array_read(a, i0)\n"
    "  r2 : float64[3] = multiply(r, v)\n"
    "  l1 : float64[] = sum(s2)\n"
    "  l2 : float64[] = sum(c2)\n"
    "  l3 : float64[] = sum(r2)\n"
    "  l4 : float64[] = sum(h)\n"
    "  l12 : float64[] = add(l1, l2)\n"
    "  l34 : float64[] = add(l3, l4)\n"
    "  loss : float64[] = add(l12, l34)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (b0 : float64[3], j : int64[], a1 : array<float64[3]>) {\n"
    "  go : bool[] = less_than(j, n)\n"
    "  yield go\n"
    "}\n"
    "block ^2 parent ^0 (b : float64[3], k : int64[], a2 : array<float64[3]>) {\n"
    "  bw : float64[3] = multiply(b, w)\n"
    "  b2 : float64[3] = tanh(bw)\n"
    "  len : int64[] = array_length(a2)\n"
    "  a3 : array<float64[3]> = array_write(a2, len, b2)\n"
    "  k2 : int64[] = add(k, one)\n"
    "  yield b2, k2, a3\n"
    "}\n";

/* A list grown in a while_loop (the index of each write is the array's length) and then
 * stacked, concatenated and read: the gradients of the input and of the parameter read in
 * the loop flow back through every array op and accumulate over the iterations. */
static void test_array_loop(void **state)
{
    (void)state;
    const char *wrt[] = {"x", "w", "v"};
    double x[3] = {0.3, -0.5, 0.8};
    for (int n = 1; n <= 4; n++) {
        d2_tensor *in[2] = {f64(1, (int64_t[]){3}, x), i64(n)};
        d2_program *p = check_grads(ARRAY_LOOP, wrt, 3, in, 2);
        d2_program_free(p);
        unref_all(in, 2);
    }
}

/* A list appended to inside an `if` of the loop body (a cond whose branches append different
 * values and yield the array), and a list whose earlier item the body reads (outs[k - 1]):
 * the gradient replays each iteration on the final array cut to the length it started with. */
static const char ARRAY_COND_LOOP[] =
    "param w : float64[3] = [0.9, -1.1, 1.2]\n"
    "param one : int64[] = [1]\n"
    "param two : float64[] = [2]\n"
    "block ^0 (x : float64[3], n : int64[]) {\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  a0 : array<float64[]> = array_create() {dtype = float64}\n"
    "  h : float64[3], i : int64[], a : array<float64[3]> = while_loop(x, i0, a0) "
    "{cond = ^1, body = ^2}\n"
    "  s : float64[-1,3] = array_stack(a) {axis = 0}\n"
    "  s2 : float64[-1,3] = sin(s)\n"
    "  loss : float64[] = sum(s2)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (b0 : float64[3], j : int64[], a1 : array<float64[3]>) {\n"
    "  go : bool[] = less_than(j, n)\n"
    "  yield go\n"
    "}\n"
    "block ^2 parent ^0 (b : float64[3], k : int64[], a2 : array<float64[3]>) {\n"
    "  bw : float64[3] = multiply(b, w)\n"
    "  b2 : float64[3] = tanh(bw)\n"
    "  m : float64[] = sum(b2)\n"
    "  z : float64[] = full(_) {shape = [], value = 0, dtype = float64}\n"
    "  pos : bool[] = greater_than(m, z)\n"
    "  a3 : array<float64[3]> = cond(pos) {then = ^3, else = ^4}\n"
    "  k2 : int64[] = add(k, one)\n"
    "  yield b2, k2, a3\n"
    "}\n"
    "block ^3 parent ^2 () {\n"
    "  t2 : float64[3] = multiply(b2, two)\n"
    "  l1 : int64[] = array_length(a2)\n"
    "  w1 : array<float64[3]> = array_write(a2, l1, t2)\n"
    "  yield w1\n"
    "}\n"
    "block ^4 parent ^2 () {\n"
    "  e2 : float64[3] = exp(b2)\n"
    "  l2 : int64[] = array_length(a2)\n"
    "  w2 : array<float64[3]> = array_write(a2, l2, e2)\n"
    "  yield w2\n"
    "}\n";

static const char ARRAY_READ_LOOP[] =
    "param w : float64[3] = [0.9, -1.1, 1.2]\n"
    "param one : int64[] = [1]\n"
    "param v : float64[3] = [0.5, 2, -0.3]\n"
    "block ^0 (x : float64[3], n : int64[]) {\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  e : array<float64[]> = array_create() {dtype = float64}\n"
    "  a0 : array<float64[3]> = array_write(e, i0, x)\n"
    "  i : int64[], a : array<float64[3]> = while_loop(one, a0) {cond = ^1, body = ^2}\n"
    "  s : float64[-1,3] = array_stack(a) {axis = 0}\n"
    "  s2 : float64[-1,3] = multiply(s, s)\n"
    "  l1 : float64[] = sum(s2)\n"
    "  r : float64[3] = array_read(a, one)\n"
    "  r2 : float64[3] = multiply(r, v)\n"
    "  l2 : float64[] = sum(r2)\n"
    "  loss : float64[] = add(l1, l2)\n"
    "  return loss\n"
    "}\n"
    "block ^1 parent ^0 (j : int64[], a1 : array<float64[3]>) {\n"
    "  go : bool[] = less_than(j, n)\n"
    "  yield go\n"
    "}\n"
    "block ^2 parent ^0 (k : int64[], a2 : array<float64[3]>) {\n"
    "  km : int64[] = subtract(k, one)\n"
    "  p : float64[3] = array_read(a2, km)\n"
    "  pw : float64[3] = multiply(p, w)\n"
    "  q : float64[3] = add(pw, x)\n"
    "  b2 : float64[3] = tanh(q)\n"
    "  f : float64[3] = array_read(a2, i0)\n"
    "  b3 : float64[3] = multiply(b2, f)\n"
    "  len : int64[] = array_length(a2)\n"
    "  a3 : array<float64[3]> = array_write(a2, len, b3)\n"
    "  k2 : int64[] = add(k, one)\n"
    "  yield k2, a3\n"
    "}\n";

static void test_array_cond_and_read(void **state)
{
    (void)state;
    double x[3] = {0.3, -0.5, 0.8}, xn[3] = {-0.6, 0.1, -0.9};
    const char *cw[] = {"x", "w"}, *rw[] = {"x", "w", "v"};
    for (int n = 1; n <= 4; n++) {
        for (int s = 0; s < 2; s++) {
            d2_tensor *in[2] = {f64(1, (int64_t[]){3}, s ? xn : x), i64(n)};
            d2_program *p = check_grads(ARRAY_COND_LOOP, cw, 2, in, 2);
            d2_program_free(p);
            unref_all(in, 2);
        }
        if (n < 2)
            continue; /* the read of item 1 needs two items */
        d2_tensor *in[2] = {f64(1, (int64_t[]){3}, x), i64(n)};
        d2_program *p = check_grads(ARRAY_READ_LOOP, rw, 3, in, 2);
        d2_program_free(p);
        unref_all(in, 2);
    }
}

/* The array ops of gradients: array_add sums item-wise and keeps the items only one side
 * has; array_unstack and array_split_like undo array_stack and array_concat. */
static void test_array_grad_ops(void **state)
{
    (void)state;
    static const char text[] =
        "block ^0 (x : float64[2,3], y : float64[6]) {\n"
        "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
        "  i1 : int64[] = full(_) {shape = [], value = 1, dtype = int64}\n"
        "  u : array<float64[2]> = array_unstack(x) {axis = 1}\n"
        "  p : array<float64[-1]> = array_split_like(y, u) {axis = 0}\n"
        "  z : array<float64[2]> = array_zeros_like(u)\n"
        "  q : array<float64[2]> = array_add(u, z)\n"
        "  q2 : array<float64[-1]> = array_add(q, p)\n"
        "  r : float64[-1] = array_read(p, i0)\n"
        "  e : array<float64[]> = array_create() {dtype = float64}\n"
        "  e1 : array<float64[-1]> = array_write(e, i0, r)\n"
        "  q3 : array<float64[-1]> = array_add(q2, e1)\n"
        "  n : int64[] = array_length(q3)\n"
        "  s : float64[-1,-1] = array_stack(q3) {axis = 0}\n"
        "  z1 : float64[2] = array_read(z, i1)\n"
        "  return n, s, r, z1\n"
        "}\n";
    double xv[6] = {1, 2, 3, 4, 5, 6}, yv[6] = {7, 8, 9, 10, 11, 12};
    d2_tensor *in[2] = {f64(2, (int64_t[]){2, 3}, xv), f64(1, (int64_t[]){6}, yv)};
    d2_tensor *out[4] = {0};
    d2_program *p = parse(text);
    d2_err err = {0};
    if (d2_program_verify(p, &err) < 0)
        fail_msg("verify: %s", err.msg);
    run(p, in, 2, out, 4);
    assert_int_equal(d2_tensor_get_i64(out[0], 0), 3);
    /* the columns of x plus y's pairs, the first one plus y's first pair again (the
     * one-item array counts as zeros after it) */
    double want[6] = {1 + 7 + 7, 4 + 8 + 8, 2 + 9, 5 + 10, 3 + 11, 6 + 12};
    assert_int_equal(d2_tensor_numel(out[1]), 6);
    for (int k = 0; k < 6; k++)
        assert_true(d2_tensor_get_f64(out[1], k) == want[k]);
    assert_int_equal(d2_tensor_numel(out[2]), 2);
    for (int k = 0; k < 2; k++)
        assert_true(d2_tensor_get_f64(out[2], k) == yv[k]);
    for (int k = 0; k < 2; k++)
        assert_true(d2_tensor_get_f64(out[3], k) == 0);
    unref_all(out, 4);
    unref_all(in, 2);
    d2_program_free(p);
}

/* The backward of the cond, while_loop and tensor-array programs (in float32) on the OpenCL
 * backend gives the CPU's results within 1e-5 (relative and absolute); skipped without a
 * device. */
static void test_opencl(void **state)
{
    (void)state;
#ifdef DY2ST_HAVE_OPENCL
    d2_err err = {0};
    d2_backend *be = d2_opencl_backend(0, &err);
    if (!be)
        skip();
    const char *texts[5] = {COND, LOOP, ARRAY_LOOP, ARRAY_COND_LOOP, ARRAY_READ_LOOP};
    const char *wrt[5][3] = {
        {"x", "w", "c"}, {"x", "w"}, {"x", "w", "v"}, {"x", "w"}, {"x", "w", "v"}};
    int n_wrt[5] = {3, 2, 3, 2, 3};
    for (int t = 0; t < 5; t++) {
        char *src = replace_all(texts[t], "float64", "float32");
        d2_program *p = parse(src);
        free(src);
        int w[3], g[3];
        for (int i = 0; i < n_wrt[t]; i++)
            w[i] = var_of(p, wrt[t][i]);
        assert_int_equal(d2_append_backward(p, 0, var_of(p, "loss"), w, n_wrt[t], g, &err), 0);
        for (int i = 0; i < n_wrt[t]; i++)
            assert_int_equal(d2_block_add_yield(p, 0, g[i], &err), 0);
        float x[6] = {0.3f, -0.5f, 0.8f, 1.1f, 0.2f, -0.4f};
        d2_tensor *in[2];
        if (t == 0) {
            in[0] = d2_tensor_from_data(D2_F32, 1, (int64_t[]){3}, x, &err);
            in[1] = d2_tensor_from_data(D2_F32, 1, (int64_t[]){3}, x + 3, &err);
        } else if (t == 1) {
            in[0] = d2_tensor_from_data(D2_F32, 2, (int64_t[]){2, 3}, x, &err);
            in[1] = i64(3);
        } else {
            in[0] = d2_tensor_from_data(D2_F32, 1, (int64_t[]){3}, x, &err);
            in[1] = i64(3);
        }
        d2_prepared *pc = d2_exec_prepare(p, NULL, &err), *po = d2_exec_prepare(p, be, &err);
        if (!pc || !po)
            fail_msg("prepare: %s", err.msg);
        d2_tensor *oc[4] = {0}, *oo[4] = {0};
        int n_out = 1 + n_wrt[t];
        if (d2_exec_run(pc, in, 2, oc, n_out, &err) < 0 ||
            d2_exec_run(po, in, 2, oo, n_out, &err) < 0)
            fail_msg("run: %s", err.msg);
        for (int k = 0; k < n_out; k++) {
            d2_tensor *h = d2_tensor_copy_to(oo[k], NULL, &err);
            assert_non_null(h);
            tu_expect_close("opencl", h, oc[k], 1e-5, 1e-5, "the CPU backend");
            d2_tensor_unref(h);
        }
        unref_all(oc, n_out);
        unref_all(oo, n_out);
        unref_all(in, 2);
        d2_exec_free(pc);
        d2_exec_free(po);
        d2_program_free(p);
    }
#else
    skip();
#endif
}

/* ---- what gets no gradient, and errors ---- */

/* A wanted variable the loss does not depend on gets -1; no_grad stops a path. */
static void test_unreached_and_no_grad(void **state)
{
    (void)state;
    static const char text[] = "block ^0 (x : float64[3], y : float64[3], n : int64[3]) {\n"
                               "  a : float64[3] = multiply(x, y)\n"
                               "  b : float64[3] = tanh(y)\n"
                               "  loss : float64[] = sum(a)\n"
                               "  return loss, b\n"
                               "}\n";
    d2_err err = {0};
    d2_program *p = parse(text);
    int a = var_of(p, "a");
    int w[3] = {var_of(p, "x"), var_of(p, "n"), var_of(p, "y")}, g[3];
    assert_int_equal(d2_gradients(p, 0, (int[]){var_of(p, "loss")}, NULL, 1, w, 3, &a, 1, g,
                                  &err),
                     0);
    assert_int_equal(g[0], -1); /* through a, which no_grad stops */
    assert_int_equal(g[1], -1); /* an integer input */
    assert_int_equal(g[2], -1);
    assert_int_equal(d2_program_verify(p, &err), 0);
    d2_program_free(p);

    /* a given target gradient: d(x*y)/dx seeded by y is y*y; an integer seed is refused */
    p = parse(text);
    int tgt = var_of(p, "a"), seed = var_of(p, "y"), x = var_of(p, "x");
    assert_int_equal(d2_gradients(p, 0, &tgt, &seed, 1, &x, 1, NULL, 0, g, &err), 0);
    assert_int_equal(d2_block_add_yield(p, 0, g[0], &err), 0);
    assert_int_equal(d2_program_verify(p, &err), 0);
    double xv[3] = {1, 2, 3}, yv[3] = {0.5, -1, 4};
    d2_tensor *in[3] = {f64(1, (int64_t[]){3}, xv), f64(1, (int64_t[]){3}, yv),
                        d2_tensor_zeros(D2_I64, 1, (int64_t[]){3}, &err)};
    d2_tensor *out[3] = {0};
    run(p, in, 3, out, 3);
    for (int i = 0; i < 3; i++)
        assert_true(d2_tensor_get_f64(out[2], i) == yv[i] * yv[i]);
    unref_all(out, 3);
    unref_all(in, 3);
    int bad = var_of(p, "n");
    assert_int_equal(d2_gradients(p, 0, &tgt, &bad, 1, &x, 1, NULL, 0, g, &err), -1);
    assert_string_equal(err.msg, "append_backward: the gradient given for target 'a' is int64, "
                                 "the target is float64");
    d2_program_free(p);

    p = parse(text);
    int w2[2] = {var_of(p, "y"), var_of(p, "x")};
    assert_int_equal(d2_append_backward(p, 0, var_of(p, "b"), w2, 2, g, &err), 0);
    assert_true(g[0] >= 0);
    assert_int_equal(g[1], -1); /* b does not depend on x */
    assert_int_equal(d2_program_verify(p, &err), 0);
    d2_program_free(p);
}

/* Out-of-memory at every allocation of append_backward fails cleanly (the Program is dropped,
 * as a caller does after a failure); once it succeeds the gradients are right. */
static void test_out_of_memory(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_program *fwd = parse(NESTED);
    bool done = false;
    for (long k = 0; !done && k < 100000; k++) {
        d2_program *p = d2_program_clone(fwd, &err);
        assert_non_null(p);
        int w[2] = {var_of(p, "x"), var_of(p, "w")}, g[2];
        d2_err e2 = {0};
        d2_alloc_fail_after(k);
        int rc = d2_append_backward(p, 0, var_of(p, "loss"), w, 2, g, &e2);
        d2_alloc_fail_after(-1);
        if (rc == 0) {
            done = true;
            assert_int_equal(d2_program_verify(p, &err), 0);
            assert_string_equal(p->vars[g[1]].name, "w@GRAD");
        } else {
            assert_int_not_equal(e2.code, D2_OK);
        }
        d2_program_free(p);
    }
    assert_true(done);
    d2_program_free(fwd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mlp),
        cmocka_unit_test(test_broadcast),
        cmocka_unit_test(test_used_twice),
        cmocka_unit_test(test_cond),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_cond_passthrough),
        cmocka_unit_test(test_while),
        cmocka_unit_test(test_cond_in_while),
        cmocka_unit_test(test_while_swap),
        cmocka_unit_test(test_nested_while),
        cmocka_unit_test(test_while_in_cond),
        cmocka_unit_test(test_sample_program),
        cmocka_unit_test(test_opencl),
        cmocka_unit_test(test_unreached_and_no_grad),
        cmocka_unit_test(test_array_loop),
        cmocka_unit_test(test_array_grad_ops),
        cmocka_unit_test(test_array_cond_and_read),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
