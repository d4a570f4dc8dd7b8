/* test_memplan.c - the static memory plan: placement on intervals, live intervals across
 * cond / while_loop blocks and views, in-place sharing, plans per input shapes, identical
 * results with the plan on and off, and a steady state without fresh pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "exec.h"
#include "memplan.h"
#include "passes/passes.h"
#include "program.h"
#include "../testutil.h"

static d2_program *parse(const char *src)
{
    d2_err err = {0};
    d2_program *p = d2_program_parse(src, "test.prog", &err);
    if (!p)
        fail_msg("parse: %s", err.msg);
    return p;
}

static int var(const d2_program *p, const char *name)
{
    int v = d2_program_find_var(p, name);
    if (v < 0)
        fail_msg("no variable %s", name);
    return v;
}

/* A tensor of type t (dims -1 replaced by batch) with deterministic values in [-1, 1). */
static d2_tensor *input(const d2_type *t, int64_t batch, unsigned seed)
{
    d2_err err = {0};
    int64_t dims[D2_MAX_DIMS];
    for (int d = 0; d < t->shape.ndim; d++)
        dims[d] = t->shape.dims[d] < 0 ? batch : t->shape.dims[d];
    d2_tensor *x = d2_tensor_new(NULL, t->dtype, t->shape.ndim, dims, &err);
    assert_non_null(x);
    int64_t n = d2_tensor_numel(x);
    unsigned s = seed * 2654435761u + 12345u;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        double v = (double)((s >> 8) & 0xffff) / 32768.0 - 1.0;
        if (t->dtype == D2_F32)
            ((float *)d2_tensor_data(x))[i] = (float)v;
        else if (t->dtype == D2_F64)
            ((double *)d2_tensor_data(x))[i] = v;
        else if (t->dtype == D2_BOOL)
            ((unsigned char *)d2_tensor_data(x))[i] = (unsigned char)((i + seed) % 2 == 0);
        else
            memset(d2_tensor_data(x), 0, (size_t)n * d2_dtype_size(t->dtype));
    }
    return x;
}

/* Prepared with in-place execution and the plan (on = true) or neither. */
static d2_prepared *prepare(const d2_program *p, bool on)
{
    d2_err err = {0};
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    if (!pp)
        fail_msg("prepare: %s", err.msg);
    if (on) {
        d2_exec_enable_inplace(pp);
        assert_true(d2_exec_enable_memplan(pp, &err) >= 0);
    }
    return pp;
}

/* Runs p with and without the plan on the same inputs and checks the outputs are equal
 * bit for bit (the plan moves bytes, never arithmetic). */
static void expect_same(d2_prepared *on, d2_prepared *off, d2_tensor **in, int n_in, int n_out)
{
    d2_err err = {0};
    d2_tensor *a[8] = {NULL}, *b[8] = {NULL};
    assert_true(n_out <= 8);
    if (d2_exec_run(on, in, n_in, a, n_out, &err) < 0)
        fail_msg("run with the plan: %s", err.msg);
    if (d2_exec_run(off, in, n_in, b, n_out, &err) < 0)
        fail_msg("run without the plan: %s", err.msg);
    for (int j = 0; j < n_out; j++) {
        tu_expect_close("with the plan", a[j], b[j], 0, 0, "without it");
        d2_tensor_unref(a[j]);
        d2_tensor_unref(b[j]);
    }
}

/* ---- placement ---- */

/* Whether items i and j are live at once. */
static bool meet(const d2_mp_item *a, const d2_mp_item *b)
{
    return a->start <= b->end && b->start <= a->end;
}

static void check_placement(const d2_mp_item *it, int n, const size_t *off, size_t total)
{
    size_t sum = 0;
    for (int i = 0; i < n; i++) {
        size_t sz = (it[i].size + 63) & ~(size_t)63;
        sum += sz;
        assert_int_equal(off[i] % D2_MEMPLAN_ALIGN, 0);
        assert_true(off[i] + sz <= total);
        for (int j = 0; j < i; j++) {
            size_t szj = (it[j].size + 63) & ~(size_t)63;
            if (meet(&it[i], &it[j]) && !(off[i] + sz <= off[j] || off[j] + szj <= off[i]))
                fail_msg("items %d [%d,%d] and %d [%d,%d] are live at once but share bytes", i,
                         it[i].start, it[i].end, j, it[j].start, it[j].end);
        }
    }
    assert_true(total <= sum);
}

static void test_assign(void **state)
{
    (void)state;
    /* a chain: each value read by the next op only; two slots take turns */
    d2_mp_item chain[6];
    for (int i = 0; i < 6; i++)
        chain[i] = (d2_mp_item){i, i + 1, 1000};
    size_t off[200];
    size_t total = d2_memplan_assign(chain, 6, off);
    check_placement(chain, 6, off, total);
    assert_int_equal(total, 2 * 1024);
    /* best fit: the small value goes into the gap the dead large one left, not above */
    d2_mp_item gap[] = {{0, 1, 4096}, {0, 5, 4096}, {2, 3, 1024}, {2, 5, 2048}};
    total = d2_memplan_assign(gap, 4, off);
    check_placement(gap, 4, off, total);
    assert_int_equal(total, 8192);
    /* random intervals: never two live values on the same bytes, and at least the peak of
     * the live sizes */
    unsigned s = 7;
    d2_mp_item r[200];
    for (int i = 0; i < 200; i++) {
        s = s * 1103515245u + 12345u;
        int a = (int)((s >> 8) % 100);
        s = s * 1103515245u + 12345u;
        int len = (int)((s >> 8) % 12);
        s = s * 1103515245u + 12345u;
        r[i] = (d2_mp_item){a, a + len, 1 + (s >> 8) % 100000};
    }
    total = d2_memplan_assign(r, 200, off);
    check_placement(r, 200, off, total);
    size_t peak = 0;
    for (int t = 0; t < 112; t++) {
        size_t live = 0;
        for (int i = 0; i < 200; i++)
            if (r[i].start <= t && t <= r[i].end)
                live += (r[i].size + 63) & ~(size_t)63;
        if (live > peak)
            peak = live;
    }
    assert_true(total >= peak);
    assert_int_equal(d2_memplan_assign(r, 0, off), 0);
}

/* ---- plans of Programs ---- */

static const char CHAIN[] =
    "block ^0 (x : float32[8,64]) {\n"
    "  a : float32[8,64] = exp(x)\n"
    "  b : float32[8,64] = tanh(a)\n"
    "  c : float32[8,64] = add(b, x)\n"
    "  d : float32[8,64] = relu(c)\n"
    "  e : float32[8,64] = multiply(d, c)\n"
    "  f : float32[8,64] = sigmoid(e)\n"
    "  g : float32[64,8] = reshape(f) {shape = [64, 8]}\n"
    "  h : float32[64] = sum(g) {axis = [1]}\n"
    "  return h, d\n"
    "}\n";

/* Intervals from the op order; in-place outputs share their input's slot; live values never
 * share bytes; Program outputs have no slot. */
static void test_plan_intervals(void **state)
{
    (void)state;
    d2_program *p = parse(CHAIN);
    d2_prepared *on = prepare(p, true), *off = prepare(p, false);
    d2_memplan *mp = d2_exec_memplan(on);
    assert_non_null(mp);
    int st, en;
    /* a's buffer is taken in place by tanh (b), add (c), multiply (e, c's: d is fetched) and
     * sigmoid (f), which the reshape at op 6 reads: one slot from op 0 to op 6 */
    assert_true(d2_memplan_interval(mp, var(p, "a"), &st, &en));
    assert_int_equal(st, 0);
    assert_int_equal(en, 6);
    assert_true(d2_memplan_interval(mp, var(p, "c"), &st, &en));
    assert_int_equal(st, 2);
    assert_int_equal(en, 6);
    assert_true(d2_memplan_interval(mp, var(p, "g"), &st, &en));
    assert_int_equal(st, 6);
    assert_int_equal(en, 7);
    /* d and h are fetched: not planned */
    assert_false(d2_memplan_interval(mp, var(p, "d"), &st, &en));
    assert_false(d2_memplan_interval(mp, var(p, "h"), &st, &en));
    /* static shapes: planned at prepare */
    d2_memplan_stats s;
    d2_memplan_get_stats(mp, &s);
    assert_int_equal(s.n_plans, 1);
    assert_int_equal(s.n_values, 6); /* a b c e f g */
    size_t cap;
    long long oa = d2_memplan_offset(mp, var(p, "a"), &cap);
    assert_true(oa >= 0);
    assert_int_equal(cap, 2048);
    /* the in-place chain shares a's slot */
    assert_int_equal(d2_memplan_offset(mp, var(p, "b"), NULL), oa);
    assert_int_equal(d2_memplan_offset(mp, var(p, "c"), NULL), oa);
    assert_int_equal(d2_memplan_offset(mp, var(p, "e"), NULL), oa);
    assert_int_equal(d2_memplan_offset(mp, var(p, "f"), NULL), oa);
    /* the reshape reads f while it writes g: g has bytes of its own */
    long long og = d2_memplan_offset(mp, var(p, "g"), NULL);
    assert_true(og >= 0 && (og + 2048 <= oa || oa + 2048 <= og));
    assert_int_equal(s.n_slots, 2);
    assert_int_equal(s.arena_bytes, 2 * 2048);
    assert_int_equal(s.sum_bytes, 6 * 2048);
    d2_tensor *x = input(&p->vars[p->blocks[0].params[0]].type, 1, 3);
    for (int round = 0; round < 3; round++)
        expect_same(on, off, &x, 1, 2);
    d2_memplan_get_stats(mp, &s);
    assert_int_equal(s.misses, 0);
    assert_int_equal(s.hits, 3);
    assert_int_equal(s.fallbacks, 0);
    assert_int_equal(s.orphaned, 0);
    assert_int_equal(s.arenas, 1); /* one arena, reused by every run */
    d2_tensor_unref(x);
    d2_exec_free(on);
    d2_exec_free(off);
    d2_program_free(p);
}

/* A value read inside a while_loop body lives until the loop; the loop's own values are the
 * pool's; the results are those without the plan. */
static void test_plan_while(void **state)
{
    (void)state;
    d2_program *p = parse(
        "block ^0 (x : float32[4,50]) {\n"
        "  h : float32[4,50] = tanh(x)\n"
        "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
        "  one : int64[] = full(_) {shape = [], value = 1, dtype = int64}\n"
        "  n : int64[] = full(_) {shape = [], value = 5, dtype = int64}\n"
        "  u : float32[4,50] = exp(x)\n"
        "  v : float32[4,50] = sigmoid(x)\n"
        "  iN : int64[], xN : float32[4,50] = while_loop(i0, u) {cond = ^1, body = ^2}\n"
        "  w : float32[4,50] = add(xN, v)\n"
        "  ws : float32[4] = sum(w) {axis = [1]}\n"
        "  return ws\n"
        "}\n"
        "block ^1 parent ^0 (ci : int64[], cx : float32[4,50]) {\n"
        "  more : bool[] = less_than(ci, n)\n"
        "  yield more\n"
        "}\n"
        "block ^2 parent ^0 (bi : int64[], bx : float32[4,50]) {\n"
        "  bi1 : int64[] = add(bi, one)\n"
        "  t : float32[4,50] = multiply(bx, h)\n"
        "  s : float32[4,50] = scale(t) {scale = 0.5, bias = 0.25}\n"
        "  yield bi1, s\n"
        "}\n");
    d2_prepared *on = prepare(p, true), *off = prepare(p, false);
    d2_memplan *mp = d2_exec_memplan(on);
    int st, en;
    assert_true(d2_memplan_interval(mp, var(p, "h"), &st, &en));
    assert_int_equal(st, 0);
    assert_int_equal(en, 6); /* the while_loop op */
    assert_true(d2_memplan_interval(mp, var(p, "v"), &st, &en));
    assert_int_equal(en, 7);
    assert_true(d2_memplan_interval(mp, var(p, "w"), &st, &en));
    assert_int_equal(st, 7);
    assert_int_equal(en, 8);
    /* u enters the loop as a carried value: with no trip it is xN itself, whose buffer add
     * takes in place for w, read at op 8 */
    assert_true(d2_memplan_interval(mp, var(p, "u"), &st, &en));
    assert_int_equal(en, 8);
    /* the body's values are not the plan's */
    assert_false(d2_memplan_interval(mp, var(p, "t"), &st, &en));
    assert_false(d2_memplan_interval(mp, var(p, "s"), &st, &en));
    /* h, u and v are live at once across the loop */
    long long oh = d2_memplan_offset(mp, var(p, "h"), NULL), ou = d2_memplan_offset(mp, var(p, "u"), NULL),
              ov = d2_memplan_offset(mp, var(p, "v"), NULL);
    assert_true(oh >= 0 && ou >= 0 && ov >= 0);
    assert_true(oh != ou && oh != ov && ou != ov);
    d2_tensor *x = input(&p->vars[p->blocks[0].params[0]].type, 1, 5);
    for (int round = 0; round < 2; round++)
        expect_same(on, off, &x, 1, 1);
    d2_memplan_stats s;
    d2_memplan_get_stats(mp, &s);
    assert_int_equal(s.orphaned, 0);
    d2_tensor_unref(x);
    d2_exec_free(on);
    d2_exec_free(off);
    d2_program_free(p);
}

static const char COND[] =
    "block ^0 (x : float32[8], p : bool[]) {\n"
    "  a : float32[8] = exp(x)\n"
    "  r : float32[8] = cond(p, a) {then = ^1, else = ^2}\n"
    "  s : float32[8] = tanh(x)\n"
    "  q : float32[8] = add(r, s)\n"
    "  qs : float32[] = sum(q)\n"
    "  return qs%s\n"
    "}\n"
    "block ^1 parent ^0 (ta : float32[8]) {\n"
    "  yield ta\n"
    "}\n"
    "block ^2 parent ^0 (ea : float32[8]) {\n"
    "  eb : float32[8] = neg(ea)\n"
    "  yield eb\n"
    "}\n";

/* cond's then block yields its operand: the result is the operand's buffer, so the operand
 * lives as long as the result, and is not planned at all when the result is fetched. */
static void test_plan_cond(void **state)
{
    (void)state;
    char src[1024];
    snprintf(src, sizeof src, COND, "");
    d2_program *p = parse(src);
    d2_prepared *on = prepare(p, true), *off = prepare(p, false);
    d2_memplan *mp = d2_exec_memplan(on);
    int st, en;
    assert_true(d2_memplan_interval(mp, var(p, "a"), &st, &en));
    assert_int_equal(st, 0);
    assert_int_equal(en, 4); /* through r, whose buffer add takes in place for q, read by sum */
    long long oa = d2_memplan_offset(mp, var(p, "a"), NULL), os = d2_memplan_offset(mp, var(p, "s"), NULL);
    assert_true(oa >= 0 && os >= 0 && oa != os);
    d2_type tp = p->vars[p->blocks[0].params[1]].type;
    d2_tensor *in[2] = {input(&p->vars[p->blocks[0].params[0]].type, 1, 9), NULL};
    for (unsigned pred = 0; pred < 2; pred++) {
        in[1] = input(&tp, 1, pred); /* seed 0: true, 1: false */
        expect_same(on, off, in, 2, 1);
        d2_tensor_unref(in[1]);
    }
    d2_exec_free(on);
    d2_exec_free(off);
    d2_program_free(p);
    snprintf(src, sizeof src, COND, ", r");
    p = parse(src);
    on = prepare(p, true);
    off = prepare(p, false);
    mp = d2_exec_memplan(on);
    assert_false(d2_memplan_interval(mp, var(p, "a"), &st, &en));
    for (unsigned pred = 0; pred < 2; pred++) {
        in[1] = input(&tp, 1, pred);
        d2_err err = {0};
        d2_tensor *out[2] = {NULL}, *keep;
        assert_int_equal(d2_exec_run(on, in, 2, out, 2, &err), 0);
        keep = d2_tensor_copy_to(out[1], NULL, &err);
        expect_same(on, off, in, 2, 2); /* later runs leave the held result alone */
        tu_expect_close("held cond result", out[1], keep, 0, 0, "itself before");
        d2_tensor_unref(out[0]);
        d2_tensor_unref(out[1]);
        d2_tensor_unref(keep);
        d2_tensor_unref(in[1]);
    }
    d2_memplan_stats s;
    d2_memplan_get_stats(mp, &s);
    assert_int_equal(s.orphaned, 0);
    d2_tensor_unref(in[0]);
    d2_exec_free(on);
    d2_exec_free(off);
    d2_program_free(p);
}

/* A tensor array holds a value after its last direct read: the value lives as long as the
 * array and the items read from it, and is not planned when the array or an item escapes. */
static void test_plan_array(void **state)
{
    (void)state;
    static const char src_fmt[] =
        "block ^0 (x : float32[16,16]) {\n"
        "  arr : array<float32[]> = array_create() {dtype = float32}\n"
        "  i : int64[1] = full(_) {shape = [1], value = 0, dtype = int64}\n"
        "  a : float32[16,16] = exp(x)\n"
        "  arr2 : array<float32[16,16]> = array_write(arr, i, a)\n"
        "  b : float32[16,16] = tanh(x)\n"
        "  c : float32[16,16] = array_read(arr2, i)\n"
        "  d : float32[16,16] = add(c, b)\n"
        "  ds : float32[16] = sum(d) {axis = [1]}\n"
        "  return ds%s\n"
        "}\n";
    char src[1024];
    snprintf(src, sizeof src, src_fmt, "");
    d2_program *p = parse(src);
    d2_prepared *on = prepare(p, true), *off = prepare(p, false);
    d2_memplan *mp = d2_exec_memplan(on);
    int st, en;
    assert_true(d2_memplan_interval(mp, var(p, "a"), &st, &en));
    assert_int_equal(st, 2);
    assert_int_equal(en, 7); /* through the array, the item c read from it and d (add may
                              * take c's buffer in place), read by sum */
    long long oa = d2_memplan_offset(mp, var(p, "a"), NULL), ob = d2_memplan_offset(mp, var(p, "b"), NULL);
    assert_true(oa >= 0 && ob >= 0 && oa != ob);
    d2_tensor *x = input(&p->vars[p->blocks[0].params[0]].type, 1, 4);
    for (int round = 0; round < 2; round++)
        expect_same(on, off, &x, 1, 1);
    d2_exec_free(on);
    d2_exec_free(off);
    d2_program_free(p);
    snprintf(src, sizeof src, src_fmt, ", c");
    p = parse(src);
    on = prepare(p, true);
    off = prepare(p, false);
    assert_false(d2_memplan_interval(d2_exec_memplan(on), var(p, "a"), &st, &en));
    for (int round = 0; round < 2; round++)
        expect_same(on, off, &x, 1, 2);
    d2_memplan_stats s;
    d2_memplan_get_stats(d2_exec_memplan(on), &s);
    assert_int_equal(s.orphaned, 0);
    d2_tensor_unref(x);
    d2_exec_free(on);
    d2_exec_free(off);
    d2_program_free(p);
}

/* A dynamic batch: one plan per batch size, made at its first run and found again later;
 * sizes scale with the batch; results equal those without the plan. */
static void test_plan_dynamic(void **state)
{
    (void)state;
    d2_program *p = parse("block ^0 (x : float32[-1,256]) {\n"
                          "  a : float32[-1,256] = exp(x)\n"
                          "  b : float32[-1,256] = sigmoid(x)\n"
                          "  c : float32[-1,256] = multiply(a, b)\n"
                          "  d : float32[-1,256] = tanh(c)\n"
                          "  e : float32[-1,256] = add(d, a)\n"
                          "  f : float32[-1] = sum(e) {axis = [1]}\n"
                          "  return f\n"
                          "}\n");
    d2_prepared *on = prepare(p, true), *off = prepare(p, false);
    d2_memplan *mp = d2_exec_memplan(on);
    d2_memplan_stats s;
    d2_memplan_get_stats(mp, &s);
    assert_int_equal(s.n_plans, 0); /* nothing to plan before a batch size is known */
    const d2_type *tx = &p->vars[p->blocks[0].params[0]].type;
    const int64_t batches[] = {2, 32, 2, 32, 7};
    size_t arena_2 = 0;
    for (int i = 0; i < 5; i++) {
        d2_tensor *x = input(tx, batches[i], (unsigned)i);
        expect_same(on, off, &x, 1, 1);
        d2_memplan_get_stats(mp, &s);
        if (i == 0)
            arena_2 = s.arena_bytes;
        if (i == 1)
            assert_true(s.arena_bytes >= 16 * arena_2);
        d2_tensor_unref(x);
    }
    d2_memplan_get_stats(mp, &s);
    assert_int_equal(s.misses, 3); /* batches 2, 32 and 7 */
    assert_int_equal(s.hits, 2);
    assert_int_equal(s.n_plans, 3);
    assert_int_equal(s.fallbacks, 0);
    /* a, and b with the values made in place over it (c, d, e): two slots of 1 KiB a row */
    assert_int_equal(arena_2, 2 * 2 * 1024);
    /* more shapes than the cache holds: the least recently used go, runs stay right */
    for (int64_t b = 1; b <= 12; b++) {
        d2_tensor *x = input(tx, b, 1);
        expect_same(on, off, &x, 1, 1);
        d2_tensor_unref(x);
    }
    d2_memplan_get_stats(mp, &s);
    assert_true(s.n_plans <= 8);
    d2_exec_free(on);
    d2_exec_free(off);
    d2_program_free(p);
}

/* Concurrent runs of one prepared Program: each takes an arena of its own (never more than
 * the runs in flight per plan), and every result is the one without the plan. */
typedef struct thr_ctx {
    d2_prepared *pp;
    d2_tensor *x[3], *want[3];
    int bad;
} thr_ctx;

static void *thr_run(void *arg)
{
    thr_ctx *c = arg;
    for (int i = 0; i < 40; i++) {
        int k = i % 3;
        d2_err err = {0};
        d2_tensor *out = NULL;
        if (d2_exec_run(c->pp, &c->x[k], 1, &out, 1, &err) < 0 ||
            d2_tensor_numel(out) != d2_tensor_numel(c->want[k]) ||
            memcmp(d2_tensor_data(out), d2_tensor_data(c->want[k]),
                   (size_t)d2_tensor_numel(out) * sizeof(float)) != 0)
            c->bad++;
        d2_tensor_unref(out);
    }
    return NULL;
}

static void test_plan_threads(void **state)
{
    (void)state;
    d2_program *p = parse("block ^0 (x : float32[-1,128]) {\n"
                          "  a : float32[-1,128] = exp(x)\n"
                          "  b : float32[-1,128] = sigmoid(x)\n"
                          "  c : float32[-1,128] = multiply(a, b)\n"
                          "  d : float32[-1,128] = tanh(c)\n"
                          "  e : float32[-1,128] = add(d, a)\n"
                          "  f : float32[-1] = sum(e) {axis = [1]}\n"
                          "  return f\n"
                          "}\n");
    d2_prepared *on = prepare(p, true), *off = prepare(p, false);
    enum { N_THREADS = 4 };
    thr_ctx ctx[N_THREADS];
    d2_tensor *x[3], *want[3];
    d2_err err = {0};
    for (int k = 0; k < 3; k++) {
        x[k] = input(&p->vars[p->blocks[0].params[0]].type, 3 + 9 * k, (unsigned)k);
        want[k] = NULL;
        assert_int_equal(d2_exec_run(off, &x[k], 1, &want[k], 1, &err), 0);
    }
    pthread_t th[N_THREADS];
    for (int t = 0; t < N_THREADS; t++) {
        ctx[t].pp = on;
        ctx[t].bad = 0;
        for (int k = 0; k < 3; k++) {
            ctx[t].x[k] = x[(k + t) % 3];
            ctx[t].want[k] = want[(k + t) % 3];
        }
        assert_int_equal(pthread_create(&th[t], NULL, thr_run, &ctx[t]), 0);
    }
    for (int t = 0; t < N_THREADS; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(ctx[t].bad, 0);
    }
    d2_memplan_stats s;
    d2_memplan_get_stats(d2_exec_memplan(on), &s);
    assert_int_equal(s.hits + s.misses, N_THREADS * 40);
    assert_true(s.misses >= 3 && s.misses <= 3 * N_THREADS); /* racing first runs may each plan */
    assert_int_equal(s.n_plans, 3);
    assert_true(s.arenas <= 3 * N_THREADS);
    assert_int_equal(s.fallbacks, 0);
    assert_int_equal(s.orphaned, 0);
    for (int k = 0; k < 3; k++) {
        d2_tensor_unref(x[k]);
        d2_tensor_unref(want[k]);
    }
    d2_exec_free(on);
    d2_exec_free(off);
    d2_program_free(p);
}

/* The golden Program of the in-place tests (relu, scale, conv2d_fused's residual, multiply,
 * subtract and add in place) gives the same results with the plan, whose arena then holds
 * the in-place chains. */
static void test_plan_inplace_golden(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/golden/passes/inplace_exec.prog", D2_SRCDIR);
    char *src = tu_load_file(path, NULL);
    d2_program *p = parse(src);
    d2_prepared *on = prepare(p, true), *off = prepare(p, false);
    d2_tensor *in[3];
    for (int i = 0; i < 3; i++)
        in[i] = input(&p->vars[p->blocks[0].params[i]].type, 1, (unsigned)i + 1);
    for (int round = 0; round < 3; round++)
        expect_same(on, off, in, 3, 2);
    d2_memplan_stats s;
    d2_memplan_get_stats(d2_exec_memplan(on), &s);
    /* the in-place chains that end in an output are the output's own buffers; exp(k) is
     * planned */
    assert_true(s.n_values >= 1);
    assert_true(s.n_slots <= s.n_values);
    assert_int_equal(s.fallbacks, 0);
    assert_int_equal(s.orphaned, 0);
    for (int i = 0; i < 3; i++)
        d2_tensor_unref(in[i]);
    d2_exec_free(on);
    d2_exec_free(off);
    d2_program_free(p);
    free(src);
}

/* The memplan pass selects the plan: in the basic and full sets, not in "none"; prepared
 * through d2_passes_prepare, a Program has its plan. */
static void test_pass_selects(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_pass_set s;
    assert_int_equal(d2_passes_parse("memplan", &s, &err), 0);
    assert_true(s != 0);
    assert_true((s & d2_passes_level(D2_PASS_BASIC)) == s);
    d2_program *p = parse(CHAIN);
    d2_prepared *pp = d2_passes_prepare(p, d2_passes_level(D2_PASS_INFERENCE), NULL, &err);
    assert_non_null(pp);
    assert_non_null(d2_exec_memplan(pp));
    d2_exec_free(pp);
    pp = d2_passes_prepare(p, d2_passes_level(D2_PASS_INFERENCE) & ~s, NULL, &err);
    assert_non_null(pp);
    assert_null(d2_exec_memplan(pp));
    d2_exec_free(pp);
    d2_program_free(p);
}

/* Steady state: after the first runs, runs of 1 MiB values allocate no arena and touch no
 * fresh page (a fresh 1 MiB buffer per value would fault 256 pages each run). */
static void test_steady_state(void **state)
{
    (void)state;
    d2_program *p = parse("block ^0 (x : float32[256,1024]) {\n"
                          "  a : float32[256,1024] = exp(x)\n"
                          "  b : float32[256,1024] = sigmoid(x)\n"
                          "  c : float32[256,1024] = multiply(a, b)\n"
                          "  d : float32[256,1024] = tanh(c)\n"
                          "  e : float32[256,1024] = add(d, a)\n"
                          "  f : float32[256] = sum(e) {axis = [1]}\n"
                          "  return f\n"
                          "}\n");
    d2_prepared *on = prepare(p, true);
    d2_tensor *x = input(&p->vars[p->blocks[0].params[0]].type, 1, 2), *out = NULL;
    d2_err err = {0};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(d2_exec_run(on, &x, 1, &out, 1, &err), 0);
        d2_tensor_unref(out);
    }
    d2_memplan_stats s0, s1;
    d2_memplan_get_stats(d2_exec_memplan(on), &s0);
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    const int runs = 20;
    for (int i = 0; i < runs; i++) {
        assert_int_equal(d2_exec_run(on, &x, 1, &out, 1, &err), 0);
        d2_tensor_unref(out);
    }
    getrusage(RUSAGE_SELF, &r1);
    d2_memplan_get_stats(d2_exec_memplan(on), &s1);
    /* a planned value on fresh memory would fault 256 pages a run; the allocator's own
     * bookkeeping (a sanitizer's quarantine hands out fresh chunks) a few */
    long faults = r1.ru_minflt - r0.ru_minflt;
    if (faults >= 32 * runs)
        fail_msg("%ld minor page faults in %d steady-state runs", faults, runs);
    assert_int_equal(s1.arenas, s0.arenas);
    assert_int_equal(s1.fallbacks, 0);
    assert_int_equal(s1.hits - s0.hits, runs);
    /* exp, sigmoid, multiply (in place), tanh (in place), add (in place): two 1 MiB slots */
    assert_int_equal(s1.arena_bytes, 2u << 20);
    d2_tensor_unref(x);
    d2_exec_free(on);
    d2_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assign),
        cmocka_unit_test(test_plan_intervals),
        cmocka_unit_test(test_plan_while),
        cmocka_unit_test(test_plan_cond),
        cmocka_unit_test(test_plan_array),
        cmocka_unit_test(test_plan_dynamic),
        cmocka_unit_test(test_plan_threads),
        cmocka_unit_test(test_plan_inplace_golden),
        cmocka_unit_test(test_pass_selects),
        cmocka_unit_test(test_steady_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
