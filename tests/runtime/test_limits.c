/* test_limits.c - run options: deadlines, cancelling from another thread and byte caps stop
 * runs (an endless while_loop among them) with clean errors; generous limits change nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dy2st/dy2st.h"

#include "cpu/dnnl.h"
#include "cpu/gemm.h"
#include "model_io.h"
#include "../testutil.h"

#define CLI_DIR D2_SRCDIR "/tests/golden/cli/mlp_loop/"
#define SAMPLE D2_SRCDIR "/samples/programs/mlp_loop.d2p"

/* A while_loop whose condition (i > -1, i counting up from 0) never turns false. */
static const char endless_text[] =
    "block ^0 (x : float32[4]) {\n"
    "  i0 : int64[] = full(_) {shape = [], value = 0, dtype = int64}\n"
    "  n : int64[], y : float32[4] = while_loop(i0, x) {cond = ^1, body = ^2}\n"
    "  return n, y\n"
    "}\n"
    "\n"
    "block ^1 parent ^0 (ci : int64[], cx : float32[4]) {\n"
    "  floor : int64[] = full(_) {shape = [], value = -1, dtype = int64}\n"
    "  more : bool[] = greater_than(ci, floor)\n"
    "  yield more\n"
    "}\n"
    "\n"
    "block ^2 parent ^0 (bi : int64[], bx : float32[4]) {\n"
    "  one : int64[] = full(_) {shape = [], value = 1, dtype = int64}\n"
    "  bi1 : int64[] = add(bi, one)\n"
    "  bx1 : float32[4] = scale(bx) {scale = 0.5}\n"
    "  yield bi1, bx1\n"
    "}\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void assert_status(const dy2st_status *st, int code, const char *needle)
{
    if (st->code != code || !strstr(dy2st_status_message(st), needle))
        fail_msg("expected code %d with \"%s\", got code %d \"%s\"", code, needle, st->code,
                 st->message);
}

/* The endless program, written as text form and loaded (saved = also as a saved model). The
 * loaded model runs after the passes, which hoist floor and one before the while_loop: it is
 * op 3 of block ^0 in the errors. */
static dy2st_model *load_endless(bool saved)
{
    char txt[512], bin[512];
    tu_tmp_path(txt, sizeof txt, "d2_test_limits", "endless.d2p");
    tu_tmp_path(bin, sizeof bin, "d2_test_limits", "endless.d2m");
    FILE *f = fopen(txt, "w");
    assert_non_null(f);
    fputs(endless_text, f);
    fclose(f);
    const char *path = txt;
    if (saved) {
        d2_err err = {0};
        d2_program *p = d2_model_open(txt, &err);
        if (!p)
            fail_msg("%s", err.msg);
        assert_int_equal(d2_model_save(p, bin, &err), 0);
        d2_program_free(p);
        path = bin;
    }
    dy2st_status st = {0};
    dy2st_model *m = dy2st_model_load(path, "cpu", &st);
    if (!m)
        fail_msg("%s", st.message);
    remove(txt);
    remove(bin);
    return m;
}

/* The mlp_loop sample (a finite while_loop) and its input. */
static dy2st_model *load_sample(dy2st_tensor **x)
{
    dy2st_status st = {0};
    dy2st_model *m = dy2st_model_load(SAMPLE, "cpu", &st);
    assert_non_null(m);
    *x = dy2st_tensor_load_npy(CLI_DIR "x.npy", &st);
    assert_non_null(*x);
    return m;
}

static dy2st_tensor *ones4(void)
{
    const float v[4] = {1, 2, 3, 4};
    const int64_t shape[1] = {4};
    dy2st_status st = {0};
    dy2st_tensor *t = dy2st_tensor_new(DY2ST_FLOAT32, 1, shape, v, &st);
    assert_non_null(t);
    return t;
}

static void test_options_object(void **state)
{
    (void)state;
    dy2st_run_options *o = dy2st_run_options_new();
    assert_non_null(o);
    dy2st_status st = {0};
    assert_true(dy2st_run_options_timeout(o) == 0);
    assert_int_equal(dy2st_run_options_max_bytes(o), 0);
    assert_int_equal(dy2st_run_options_cancelled(o), 0);
    assert_int_equal(dy2st_run_options_set_timeout(o, 1.5, &st), 0);
    assert_true(dy2st_run_options_timeout(o) == 1.5);
    assert_int_equal(dy2st_run_options_set_timeout(o, -1, &st), -1);
    assert_status(&st, DY2ST_ERR_INVALID, "finite number of seconds >= 0, got -1");
    assert_int_equal(dy2st_run_options_set_timeout(o, NAN, &st), -1);
    assert_int_equal(dy2st_run_options_set_timeout(o, INFINITY, &st), -1);
    assert_true(dy2st_run_options_timeout(o) == 1.5); /* a refused value changes nothing */
    assert_int_equal(dy2st_run_options_set_timeout(NULL, 1, &st), -1);
    dy2st_run_options_set_max_bytes(o, 4096);
    assert_int_equal(dy2st_run_options_max_bytes(o), 4096);
    dy2st_run_options_cancel(o);
    assert_int_equal(dy2st_run_options_cancelled(o), 1);
    dy2st_run_options_reset_cancel(o);
    assert_int_equal(dy2st_run_options_cancelled(o), 0);
    dy2st_run_options_free(o);
    dy2st_run_options_free(NULL);
}

/* A convolution with its weight as an input. */
static const char conv_text[] =
    "block ^0 (x : float32[1, 4, 6, 6], w : float32[8, 4, 3, 3]) {\n"
    "  y : float32[1, 8, 6, 6] = conv2d(x, w) {paddings = [1, 1]}\n"
    "  return y\n"
    "}\n";

/* Runs the conv model once under o (NULL: none); the output's first value. */
static float run_conv(dy2st_model *m, const dy2st_run_options *o)
{
    static float xv[144], wv[288];
    for (int i = 0; i < 144; i++)
        xv[i] = (float)(i % 7) - 3;
    for (int i = 0; i < 288; i++)
        wv[i] = (float)(i % 5) - 2;
    const int64_t xs[4] = {1, 4, 6, 6}, ws[4] = {8, 4, 3, 3};
    dy2st_status st = {0};
    dy2st_tensor *in[2] = {dy2st_tensor_new(DY2ST_FLOAT32, 4, xs, xv, &st),
                           dy2st_tensor_new(DY2ST_FLOAT32, 4, ws, wv, &st)};
    assert_non_null(in[0]);
    assert_non_null(in[1]);
    dy2st_tensor *out = NULL;
    if (dy2st_model_run_with_options(m, o, in, 2, &out, 1, &st) != 0)
        fail_msg("%s", st.message);
    float v = ((const float *)dy2st_tensor_data(out))[0];
    dy2st_tensor_free(out);
    dy2st_tensor_free(in[0]);
    dy2st_tensor_free(in[1]);
    return v;
}

/* The thread-count option: checked values, and each run's convolutions (oneDNN) run on the
 * threads its options name, the library's default before and after. */
static void test_num_threads(void **state)
{
    (void)state;
    dy2st_run_options *o = dy2st_run_options_new();
    assert_non_null(o);
    dy2st_status st = {0};
    assert_int_equal(dy2st_run_options_num_threads(o), 0);
    assert_int_equal(dy2st_run_options_set_num_threads(o, -1, &st), -1);
    assert_status(&st, DY2ST_ERR_INVALID, "0 (the default) to 4096, got -1");
    assert_int_equal(dy2st_run_options_set_num_threads(o, 5000, &st), -1);
    assert_int_equal(dy2st_run_options_set_num_threads(NULL, 2, &st), -1);
    assert_status(&st, DY2ST_ERR_INVALID, "no run options given");
    assert_int_equal(dy2st_run_options_set_num_threads(o, 2, &st), 0);
    assert_int_equal(dy2st_run_options_num_threads(o), 2);
    if (!d2_dnnl_available()) {
        dy2st_run_options_free(o);
        skip();
    }
    char txt[512];
    tu_tmp_path(txt, sizeof txt, "d2_test_limits", "conv.d2p");
    FILE *f = fopen(txt, "w");
    assert_non_null(f);
    fputs(conv_text, f);
    fclose(f);
    dy2st_model *m = dy2st_model_load(txt, "cpu", &st);
    remove(txt);
    if (!m)
        fail_msg("%s", st.message);
    d2_dnnl_set_mode(D2_DNNL_ALWAYS);
    int base = d2_gemm_threads();
    float plain = run_conv(m, NULL);
    assert_int_equal(d2_dnnl_last_threads(), base);
    float two = run_conv(m, o);
    assert_int_equal(d2_dnnl_last_threads(), 2);
    assert_int_equal(d2_gemm_threads(), base);
    assert_true(plain == two);
    run_conv(m, NULL);
    assert_int_equal(d2_dnnl_last_threads(), base);
    d2_dnnl_set_mode(D2_DNNL_AUTO);
    dy2st_model_free(m);
    dy2st_run_options_free(o);
}

/* A deadline stops the endless loop, soon after it passes, naming the loop. */
static void test_deadline(void **state)
{
    (void)state;
    for (int saved = 0; saved < 2; saved++) {
        dy2st_model *m = load_endless(saved);
        dy2st_run_options *o = dy2st_run_options_new();
        dy2st_status st = {0};
        assert_int_equal(dy2st_run_options_set_timeout(o, 0.2, &st), 0);
        /* a backstop, so that a broken deadline fails the test instead of hanging it: the
         * loop allocates 41 bytes an iteration, millions of iterations before the cap */
        dy2st_run_options_set_max_bytes(o, (size_t)256 << 20);
        dy2st_tensor *x = ones4(), *out[2] = {(dy2st_tensor *)1, (dy2st_tensor *)1};
        double t0 = now();
        assert_int_equal(dy2st_model_run_with_options(m, o, &x, 1, out, 2, &st), -1);
        double took = now() - t0;
        assert_status(&st, DY2ST_ERR_LIMIT,
                      "block ^0 op 3 (while_loop): deadline of 0.2 s exceeded after ");
        assert_non_null(strstr(st.message, " iterations"));
        assert_null(out[0]);
        assert_null(out[1]);
        if (took < 0.2 || took > 5)
            fail_msg("the run took %.3f s for a 0.2 s deadline", took);
        dy2st_tensor_free(x);
        dy2st_run_options_free(o);
        dy2st_model_free(m);
    }
}

typedef struct canceller {
    dy2st_run_options *o;
    double delay;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *c = arg;
    struct timespec ts = {0, (long)(c->delay * 1e9)};
    nanosleep(&ts, NULL);
    dy2st_run_options_cancel(c->o);
    return NULL;
}

/* Another thread cancels the endless run; the options then refuse runs until reset. */
static void test_cancel(void **state)
{
    (void)state;
    dy2st_model *m = load_endless(false);
    dy2st_run_options *o = dy2st_run_options_new();
    dy2st_tensor *x = ones4(), *out[2] = {0};
    dy2st_status st = {0};
    assert_int_equal(dy2st_run_options_set_timeout(o, 10, &st), 0); /* a backstop */
    canceller c = {o, 0.1};
    pthread_t th;
    double t0 = now();
    assert_int_equal(pthread_create(&th, NULL, cancel_later, &c), 0);
    assert_int_equal(dy2st_model_run_with_options(m, o, &x, 1, out, 2, &st), -1);
    double took = now() - t0;
    pthread_join(th, NULL);
    assert_status(&st, DY2ST_ERR_CANCELLED, "block ^0 op 3 (while_loop): cancelled after ");
    assert_null(out[0]);
    if (took > 5)
        fail_msg("cancelling took %.3f s", took);
    /* still cancelled: a new run stops before it starts */
    assert_int_equal(dy2st_model_run_with_options(m, o, &x, 1, out, 2, &st), -1);
    assert_status(&st, DY2ST_ERR_CANCELLED, "cancelled");
    dy2st_tensor_free(x);
    dy2st_run_options_free(o);
    dy2st_model_free(m);
}

/* Generous limits give the same outputs as no limits, also after a reset cancel. */
static void test_generous_limits(void **state)
{
    (void)state;
    dy2st_status st = {0};
    dy2st_tensor *x;
    dy2st_model *m = load_sample(&x);
    dy2st_tensor *plain[3] = {0}, *bounded[3] = {0};
    assert_int_equal(dy2st_model_run(m, &x, 1, plain, 3, &st), 0);
    dy2st_run_options *o = dy2st_run_options_new();
    assert_int_equal(dy2st_run_options_set_timeout(o, 60, &st), 0);
    dy2st_run_options_set_max_bytes(o, 1 << 20);
    dy2st_run_options_cancel(o);
    dy2st_run_options_reset_cancel(o);
    assert_int_equal(dy2st_model_run_with_options(m, o, &x, 1, bounded, 3, &st), 0);
    assert_int_equal(st.code, DY2ST_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(dy2st_tensor_dtype(plain[i]), dy2st_tensor_dtype(bounded[i]));
        assert_int_equal(dy2st_tensor_numel(plain[i]), dy2st_tensor_numel(bounded[i]));
        size_t n = (size_t)dy2st_tensor_numel(plain[i]) *
                   dy2st_dtype_size(dy2st_tensor_dtype(plain[i]));
        assert_memory_equal(dy2st_tensor_data(plain[i]), dy2st_tensor_data(bounded[i]), n);
        dy2st_tensor_free(plain[i]);
        dy2st_tensor_free(bounded[i]);
    }
    /* NULL options are the unbounded run */
    assert_int_equal(dy2st_model_run_with_options(m, NULL, &x, 1, bounded, 3, &st), 0);
    for (int i = 0; i < 3; i++)
        dy2st_tensor_free(bounded[i]);
    dy2st_tensor_free(x);
    dy2st_run_options_free(o);
    dy2st_model_free(m);
}

/* A cap below the first output's size stops the run at that op; a cap the endless loop's
 * allocations reach stops it too, without any deadline. */
static void test_byte_cap(void **state)
{
    (void)state;
    dy2st_status st = {0};
    dy2st_tensor *x;
    dy2st_model *m = load_sample(&x);
    int64_t rows = dy2st_tensor_dim(x, 0);
    dy2st_tensor *out[3] = {0};
    dy2st_run_options *o = dy2st_run_options_new();
    /* h1 = relu(linear(x)) is rows x 8 float32, one linear_fused op after the passes */
    dy2st_run_options_set_max_bytes(o, 16);
    assert_int_equal(dy2st_model_run_with_options(m, o, &x, 1, out, 3, &st), -1);
    char want[160];
    snprintf(want, sizeof want,
             "block ^0 op 0 (linear_fused): output 0 needs %lld bytes, over the run's cap of 16 bytes "
             "(0 allocated before it)", (long long)(rows * 8 * 4));
    assert_status(&st, DY2ST_ERR_LIMIT, want);
    for (int i = 0; i < 3; i++)
        assert_null(out[i]);
    dy2st_tensor_free(x);
    dy2st_model_free(m);

    m = load_endless(false);
    x = ones4();
    dy2st_run_options_set_max_bytes(o, 64 * 1024);
    assert_int_equal(dy2st_run_options_set_timeout(o, 10, &st), 0); /* a backstop */
    double t0 = now();
    assert_int_equal(dy2st_model_run_with_options(m, o, &x, 1, out, 2, &st), -1);
    assert_status(&st, DY2ST_ERR_LIMIT, "block ^0 op 3 (while_loop): iteration ");
    assert_non_null(strstr(st.message, "over the run's cap of 65536 bytes"));
    if (now() - t0 > 5)
        fail_msg("the byte cap took %.3f s to stop the loop", now() - t0);
    dy2st_tensor_free(x);
    dy2st_run_options_free(o);
    dy2st_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_object),
        cmocka_unit_test(test_num_threads),
        cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_generous_limits),
        cmocka_unit_test(test_byte_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
