/* test_threads.c - one model run from 8 threads, valid and invalid inputs mixed: each run gets its own result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dy2st/dy2st.h"

#include "../testutil.h"

/* An embedding (ids are range-checked by the kernel), a while_loop whose
 * predicate the host reads (on a device, the read that also collects the
 * embedding's check) and an integer division (checked for zero divisors).
 * With e = emb[ids]: h = 4 e + 3 (two passes of 2 x + 1), q = 84 // den.
 * Every value is exact in float32, so the expected outputs follow from the
 * table alone. */
#define ROWS 16
#define COLS 4
#define NUMER 84

static float emb_value(int r, int c) { return (float)(r * COLS + c) * 0.25f - 8.0f; }

static void write_model(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "param emb : float32[%d,%d] = [", ROWS, COLS);
    for (int i = 0; i < ROWS * COLS; i++)
        fprintf(f, "%s%g", i ? ", " : "", (double)emb_value(i / COLS, i % COLS));
    fprintf(f, "]\n\n"
               "block ^0 (ids : int64[-1], den : int64[-1]) {\n"
               "  e : float32[-1,%d] = embedding(ids, emb)\n"
               "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
               "  steps : int64[], h : float32[-1,%d] = while_loop(i0, e) {cond = ^1, body = ^2}\n"
               "  num : int64[] = full(_) {shape = [], value = %d, dtype = int64}\n"
               "  q : int64[-1] = floor_divide(num, den)\n"
               "  return h, q\n"
               "}\n\n"
               "block ^1 parent ^0 (ci : int64[], ch : float32[-1,%d]) {\n"
               "  limit : int64[] = full(_) {shape = [], value = 2, dtype = int64}\n"
               "  more : bool[] = less_than(ci, limit)\n"
               "  yield more\n"
               "}\n\n"
               "block ^2 parent ^0 (bi : int64[], bh : float32[-1,%d]) {\n"
               "  one : int64[] = full(_) {shape = [], value = 1, dtype = int64}\n"
               "  bi1 : int64[] = add(bi, one)\n"
               "  bh1 : float32[-1,%d] = scale(bh) {scale = 2, bias = 1}\n"
               "  yield bi1, bh1\n"
               "}\n",
            COLS, COLS, NUMER, COLS, COLS, COLS);
    assert_int_equal(fclose(f), 0);
}

#define THREADS 8
#define RUNS 24

typedef struct worker {
    pthread_barrier_t *start;
    dy2st_model *shared;  /* the model all threads run, or NULL: load one */
    const char *path, *device;
    int id;
    int good_ok, bad_ok; /* runs that behaved */
    char why[512];       /* the first misbehaviour */
} worker;

static void note(worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(worker *w, const char *fmt, ...)
{
    if (w->why[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->why, sizeof w->why, fmt, ap);
    va_end(ap);
}

/* Run `it` of worker w: valid on even runs; odd runs have one bad id (1000 +
 * 8 it + thread, at a position of their own) or, every fourth run, a zero
 * divisor. Each run's ids and divisors differ between threads. */
static void one_run(worker *w, dy2st_model *m, int it)
{
    int n = 1 + (w->id + it) % 5;
    int64_t ids[8], den[8];
    for (int j = 0; j < n; j++) {
        ids[j] = (w->id * 3 + it + j) % ROWS;
        den[j] = 1 + (w->id + j + it) % 7;
    }
    bool bad = it % 2 == 1, zero = it % 4 == 3;
    int pos = (w->id + it / 2) % n;
    int64_t bad_id = 1000 + 8 * it + w->id;
    if (bad && zero)
        den[pos] = 0;
    else if (bad)
        ids[pos] = bad_id;
    dy2st_status st = {0};
    int64_t shape[1] = {n};
    dy2st_tensor *in[2] = {dy2st_tensor_new(DY2ST_INT64, 1, shape, ids, &st),
                           dy2st_tensor_new(DY2ST_INT64, 1, shape, den, &st)};
    dy2st_tensor *out[2] = {NULL, NULL};
    if (!in[0] || !in[1]) {
        note(w, "tensor: %s", dy2st_status_message(&st));
        goto done;
    }
    int rc = dy2st_model_run(m, in, 2, out, 2, &st);
    if (bad) {
        char want[96];
        if (zero)
            snprintf(want, sizeof want, "integer division by zero");
        else
            snprintf(want, sizeof want, "id %lld at position %d is out of range [0, %d)",
                     (long long)bad_id, pos, ROWS);
        if (rc == 0)
            note(w, "run %d (bad input) succeeded; expected an error with \"%s\"", it, want);
        else if (!strstr(dy2st_status_message(&st), want))
            note(w, "run %d: expected an error with \"%s\", got \"%s\"", it, want,
                 dy2st_status_message(&st));
        else if (out[0] || out[1])
            note(w, "run %d failed but left outputs", it);
        else
            w->bad_ok++;
        goto done;
    }
    if (rc != 0) {
        note(w, "run %d (valid input) failed: %s", it, dy2st_status_message(&st));
        goto done;
    }
    if (dy2st_tensor_ndim(out[0]) != 2 || dy2st_tensor_dim(out[0], 0) != n ||
        dy2st_tensor_dim(out[0], 1) != COLS || dy2st_tensor_ndim(out[1]) != 1 ||
        dy2st_tensor_dim(out[1], 0) != n) {
        note(w, "run %d: outputs have the wrong shapes", it);
        goto done;
    }
    const float *h = dy2st_tensor_data(out[0]);
    const int64_t *q = dy2st_tensor_data(out[1]);
    for (int j = 0; j < n; j++) {
        if (q[j] != NUMER / den[j]) {
            note(w, "run %d: q[%d] = %lld, expected %lld", it, j, (long long)q[j],
                 (long long)(NUMER / den[j]));
            goto done;
        }
        for (int c = 0; c < COLS; c++) {
            float want = 4.0f * emb_value((int)ids[j], c) + 3.0f;
            if (h[j * COLS + c] != want) {
                note(w, "run %d: h[%d][%d] = %g, expected %g", it, j, c, (double)h[j * COLS + c],
                     (double)want);
                goto done;
            }
        }
    }
    w->good_ok++;
done:
    for (int i = 0; i < 2; i++) {
        dy2st_tensor_free(in[i]);
        dy2st_tensor_free(out[i]);
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    dy2st_model *m = w->shared;
    if (!m) {
        dy2st_status st = {0};
        m = dy2st_model_load(w->path, w->device, &st);
        if (!m)
            note(w, "load: %s", dy2st_status_message(&st));
    }
    pthread_barrier_wait(w->start);
    for (int it = 0; m && it < RUNS; it++)
        one_run(w, m, it);
    if (!w->shared)
        dy2st_model_free(m);
    return NULL;
}

/* THREADS threads, RUNS runs each, on one model (shared) or one model per
 * thread; skipped when the device cannot be opened. */
static void run_threads(const char *device, bool shared)
{
    char path[512];
    tu_tmp_path(path, sizeof path, "dy2st_threads", shared ? "shared.d2p" : "own.d2p");
    write_model(path);
    dy2st_status st = {0};
    dy2st_model *m = dy2st_model_load(path, device, &st);
    if (!m) {
        remove(path);
        if (strcmp(device, "cpu") != 0 && strstr(dy2st_status_message(&st), "OpenCL"))
            skip();
        fail_msg("load: %s", dy2st_status_message(&st));
    }
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    worker w[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){&start, shared ? m : NULL, path, device, i, 0, 0, ""};
        assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    dy2st_model_free(m);
    remove(path);
    for (int i = 0; i < THREADS; i++) {
        if (w[i].why[0])
            fail_msg("%s, %s model, thread %d: %s", device, shared ? "shared" : "own", i,
                     w[i].why);
        assert_int_equal(w[i].good_ok, RUNS / 2);
        assert_int_equal(w[i].bad_ok, RUNS / 2);
    }
}

typedef struct threads_case {
    const char *device;
    bool shared;
} threads_case;

static void test_threads(void **state)
{
    const threads_case *c = *state;
    run_threads(c->device, c->shared);
}

int main(void)
{
    static threads_case cases[] = {
        {"cpu", true}, {"cpu", false}, {"opencl", true}, {"opencl", false}};
    const struct CMUnitTest tests[] = {
        {"cpu, one model", test_threads, NULL, NULL, &cases[0]},
        {"cpu, a model per thread", test_threads, NULL, NULL, &cases[1]},
        {"opencl, one model", test_threads, NULL, NULL, &cases[2]},
        {"opencl, a model per thread", test_threads, NULL, NULL, &cases[3]},
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
