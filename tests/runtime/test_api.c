/* test_api.c - the public C API: tensors, .npy, model loading, introspection, runs, errors, threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dy2st/dy2st.h"

#include "cpu/dnnl.h"
#include "model_io.h"
#include "../testutil.h"

#define CLI_DIR D2_SRCDIR "/tests/golden/cli/mlp_loop/"
#define NPY_DIR D2_SRCDIR "/tests/golden/npy/"
#define SAMPLE D2_SRCDIR "/samples/programs/mlp_loop.d2p"

static void assert_status(const dy2st_status *st, const char *needle)
{
    if (st->code == 0 || !strstr(dy2st_status_message(st), needle))
        fail_msg("expected an error containing \"%s\", got code %d \"%s\"", needle, st->code,
                 st->message);
}

static void assert_same_tensor(const dy2st_tensor *a, const dy2st_tensor *b)
{
    assert_int_equal(dy2st_tensor_dtype(a), dy2st_tensor_dtype(b));
    assert_int_equal(dy2st_tensor_ndim(a), dy2st_tensor_ndim(b));
    for (int d = 0; d < dy2st_tensor_ndim(a); d++)
        assert_int_equal(dy2st_tensor_dim(a, d), dy2st_tensor_dim(b, d));
    size_t n = (size_t)dy2st_tensor_numel(a) * dy2st_dtype_size(dy2st_tensor_dtype(a));
    if (n)
        assert_memory_equal(dy2st_tensor_data(a), dy2st_tensor_data(b), n);
}

static void test_basics(void **state)
{
    (void)state;
    assert_string_equal(dy2st_version(), PACKAGE_VERSION);
    assert_string_equal(dy2st_dtype_name(DY2ST_FLOAT32), "float32");
    assert_string_equal(dy2st_dtype_name(DY2ST_BOOL), "bool");
    assert_int_equal(dy2st_dtype_size(DY2ST_INT64), 8);
    assert_int_equal(dy2st_dtype_size(DY2ST_BFLOAT16), 2);
    dy2st_status st = {0};
    assert_string_equal(dy2st_status_message(&st), "ok");
}

static void test_tensors(void **state)
{
    (void)state;
    dy2st_status st = {0};
    const int32_t data[6] = {1, 2, 3, 4, 5, 6};
    const int64_t shape[2] = {2, 3};
    dy2st_tensor *t = dy2st_tensor_new(DY2ST_INT32, 2, shape, data, &st);
    assert_non_null(t);
    assert_int_equal(st.code, 0);
    assert_int_equal(dy2st_tensor_dtype(t), DY2ST_INT32);
    assert_int_equal(dy2st_tensor_ndim(t), 2);
    assert_int_equal(dy2st_tensor_dim(t, 1), 3);
    assert_int_equal(dy2st_tensor_dim(t, 2), -1);
    assert_int_equal(dy2st_tensor_dim(t, -1), -1);
    assert_int_equal(dy2st_tensor_numel(t), 6);
    assert_memory_equal(dy2st_tensor_data(t), data, sizeof data);
    dy2st_tensor_free(t);

    t = dy2st_tensor_new(DY2ST_FLOAT64, 0, NULL, NULL, &st);
    assert_non_null(t);
    assert_int_equal(dy2st_tensor_numel(t), 1);
    assert_true(*(const double *)dy2st_tensor_data(t) == 0.0);
    dy2st_tensor_free(t);

    const int64_t empty[2] = {0, 5};
    t = dy2st_tensor_new(DY2ST_BOOL, 2, empty, NULL, &st);
    assert_non_null(t);
    assert_int_equal(dy2st_tensor_numel(t), 0);
    dy2st_tensor_free(t);
    dy2st_tensor_free(NULL);

    assert_null(dy2st_tensor_new((dy2st_dtype)42, 1, shape, NULL, &st));
    assert_status(&st, "invalid dtype code 42");
    const int64_t neg[1] = {-2};
    assert_null(dy2st_tensor_new(DY2ST_FLOAT32, 1, neg, NULL, &st));
    assert_status(&st, "dim 0 is negative");
    int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_null(dy2st_tensor_new(DY2ST_FLOAT32, 9, nine, NULL, &st));
    assert_status(&st, "bad rank 9");
    const int64_t huge[2] = {INT64_MAX / 2, 4};
    assert_null(dy2st_tensor_new(DY2ST_FLOAT32, 2, huge, NULL, &st));
    assert_status(&st, "too large");
    const int64_t huge0[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40};
    assert_null(dy2st_tensor_new(DY2ST_FLOAT32, 3, huge0, NULL, &st));
    assert_status(&st, "too large");
}

static void test_npy(void **state)
{
    (void)state;
    dy2st_status st = {0};
    dy2st_tensor *t = dy2st_tensor_load_npy(NPY_DIR "f32_2x3.npy", &st);
    assert_non_null(t);
    assert_int_equal(dy2st_tensor_dtype(t), DY2ST_FLOAT32);
    assert_true(((const float *)dy2st_tensor_data(t))[5] == 1.5f);
    char path[512];
    tu_tmp_path(path, sizeof path, "d2_test_api", "t.npy");
    assert_int_equal(dy2st_tensor_save_npy(t, path, &st), 0);
    dy2st_tensor *u = dy2st_tensor_load_npy(path, &st);
    assert_non_null(u);
    assert_same_tensor(t, u);
    remove(path);
    dy2st_tensor_free(u);
    assert_int_equal(dy2st_tensor_save_npy(t, "/nonexistent-dir/t.npy", &st), -1);
    assert_status(&st, "/nonexistent-dir/t.npy");
    dy2st_tensor_free(t);

    assert_null(dy2st_tensor_load_npy(NPY_DIR "bad_complex.npy", &st));
    assert_status(&st, "bad_complex.npy: unsupported dtype '<c8'");
    assert_null(dy2st_tensor_load_npy(NULL, &st));
    assert_status(&st, "no path");
}

static void test_load_errors(void **state)
{
    (void)state;
    dy2st_status st = {0};
    /* an OpenCL device index that exists nowhere: out of range, or no platform */
    assert_null(dy2st_model_load(SAMPLE, "opencl:99", &st));
    assert_status(&st, "OpenCL");
    assert_null(dy2st_model_load(SAMPLE, "opencl:x", &st));
    assert_status(&st, "unknown device 'opencl:x'");
    assert_null(dy2st_model_load(SAMPLE, "tpu", &st));
    assert_status(&st, "unknown device 'tpu'");
    assert_null(dy2st_model_load("/nonexistent/model.d2m", NULL, &st));
    assert_status(&st, "/nonexistent/model.d2m: cannot open");
    assert_null(dy2st_model_load(NPY_DIR "f32_2x3.npy", "cpu", &st));
    assert_status(&st, "f32_2x3.npy");
    assert_null(dy2st_model_load(NULL, NULL, &st));
    assert_status(&st, "no model path");
    dy2st_model_free(NULL);
    assert_int_equal(dy2st_model_num_inputs(NULL), 0);
}

static dy2st_model *load_sample(const char *path)
{
    dy2st_status st = {0};
    dy2st_model *m = dy2st_model_load(path, "cpu", &st);
    if (!m)
        fail_msg("%s", dy2st_status_message(&st));
    return m;
}

static void test_introspection(void **state)
{
    (void)state;
    dy2st_model *m = load_sample(SAMPLE);
    assert_int_equal(dy2st_model_num_inputs(m), 1);
    assert_int_equal(dy2st_model_num_outputs(m), 3);
    assert_string_equal(dy2st_model_input_name(m, 0), "x");
    assert_null(dy2st_model_input_name(m, 1));
    assert_null(dy2st_model_input_name(m, -1));
    assert_string_equal(dy2st_model_output_name(m, 0), "logits");
    assert_string_equal(dy2st_model_output_name(m, 1), "steps");
    assert_string_equal(dy2st_model_output_name(m, 2), "positive");
    assert_null(dy2st_model_output_name(m, 3));
    dy2st_dtype dt;
    int64_t shape[DY2ST_MAX_DIMS];
    assert_int_equal(dy2st_model_input_info(m, 0, &dt, shape), 2);
    assert_int_equal(dt, DY2ST_FLOAT32);
    assert_int_equal(shape[0], -1);
    assert_int_equal(shape[1], 4);
    assert_int_equal(dy2st_model_output_info(m, 1, &dt, shape), 0);
    assert_int_equal(dt, DY2ST_INT64);
    assert_int_equal(dy2st_model_output_info(m, 2, &dt, shape), 2);
    assert_int_equal(dt, DY2ST_BOOL);
    assert_int_equal(shape[1], 3);
    assert_int_equal(dy2st_model_input_info(m, 5, &dt, shape), -1);
    assert_int_equal(dy2st_model_input_index(m, "x"), 0);
    assert_int_equal(dy2st_model_input_index(m, "y"), -1);
    assert_int_equal(dy2st_model_output_index(m, "positive"), 2);
    assert_int_equal(dy2st_model_output_index(m, NULL), -1);
    dy2st_model_free(m);
}

/* Runs m on the sample input and checks every output against NumPy's. */
static void run_and_check(dy2st_model *m)
{
    dy2st_status st = {0};
    dy2st_tensor *x = dy2st_tensor_load_npy(CLI_DIR "x.npy", &st);
    assert_non_null(x);
    dy2st_tensor *out[3] = {0};
    if (dy2st_model_run(m, &x, 1, out, 3, &st) != 0)
        fail_msg("%s", dy2st_status_message(&st));
    static const char *const names[3] = {"logits", "steps", "positive"};
    for (int i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, CLI_DIR "%s.npy", names[i]);
        dy2st_tensor *want = dy2st_tensor_load_npy(path, &st);
        assert_non_null(want);
        assert_same_tensor(out[i], want);
        dy2st_tensor_free(want);
        dy2st_tensor_free(out[i]);
    }
    dy2st_tensor_free(x);
}

/* The same model on an OpenCL device gives NumPy's outputs too (the sample's
 * values are exact in float32); skipped where no device exists. */
static void test_run_opencl(void **state)
{
    (void)state;
    dy2st_status st = {0};
    dy2st_model *m = dy2st_model_load(SAMPLE, "opencl", &st);
    if (!m) {
        assert_status(&st, "OpenCL");
        skip();
    }
    run_and_check(m);
    dy2st_model_free(m);
}

static void test_run_text_and_saved(void **state)
{
    (void)state;
    dy2st_model *m = load_sample(SAMPLE);
    run_and_check(m);
    run_and_check(m); /* a model runs many times */
    dy2st_model_free(m);
    /* the saved model the generator wrote */
    m = load_sample(CLI_DIR "mlp_loop.d2m");
    run_and_check(m);
    dy2st_model_free(m);
    /* and one saved here */
    d2_err err = {0};
    d2_program *p = d2_model_open(SAMPLE, &err);
    assert_non_null(p);
    char path[512];
    tu_tmp_path(path, sizeof path, "d2_test_api", "m.d2m");
    assert_int_equal(d2_model_save(p, path, &err), 0);
    d2_program_free(p);
    m = load_sample(path);
    run_and_check(m);
    dy2st_model_free(m);
    remove(path);
}

static void test_run_errors(void **state)
{
    (void)state;
    dy2st_model *m = load_sample(SAMPLE);
    dy2st_status st = {0};
    dy2st_tensor *out[3] = {(dy2st_tensor *)1, (dy2st_tensor *)1, (dy2st_tensor *)1};
    dy2st_tensor *x = dy2st_tensor_load_npy(CLI_DIR "x.npy", &st);
    dy2st_tensor *x64 = dy2st_tensor_load_npy(CLI_DIR "x_f64.npy", &st);
    dy2st_tensor *xbad = dy2st_tensor_load_npy(CLI_DIR "x_bad_shape.npy", &st);
    assert_non_null(x);
    assert_non_null(x64);
    assert_non_null(xbad);

    assert_int_equal(dy2st_model_run(m, &x, 0, out, 3, &st), -1);
    assert_status(&st, "the model takes 1 input, got 0");
    assert_null(out[0]);
    assert_int_equal(dy2st_model_run(m, &x, 1, out, 2, &st), -1);
    assert_status(&st, "the model has 3 outputs, room for 2 given");
    dy2st_tensor *none = NULL;
    assert_int_equal(dy2st_model_run(m, &none, 1, out, 3, &st), -1);
    assert_status(&st, "input 'x' is missing");
    assert_int_equal(dy2st_model_run(m, &x64, 1, out, 3, &st), -1);
    assert_status(&st, "input 'x': expected float32, got float64");
    assert_int_equal(dy2st_model_run(m, &xbad, 1, out, 3, &st), -1);
    assert_status(&st, "input 'x': expected shape [-1,4], got [5,3]");
    for (int i = 0; i < 3; i++)
        assert_null(out[i]);
    assert_int_equal(dy2st_model_run(NULL, &x, 1, out, 3, &st), -1);
    assert_status(&st, "no model");
    /* the model still works after the errors */
    run_and_check(m);
    dy2st_tensor_free(x);
    dy2st_tensor_free(x64);
    dy2st_tensor_free(xbad);
    dy2st_model_free(m);
}

static void *run_thread(void *arg)
{
    dy2st_model *m = arg;
    dy2st_status st = {0};
    dy2st_tensor *x = dy2st_tensor_load_npy(CLI_DIR "x.npy", &st);
    dy2st_tensor *want = dy2st_tensor_load_npy(CLI_DIR "logits.npy", &st);
    intptr_t bad = !x || !want;
    for (int it = 0; it < 50 && !bad; it++) {
        dy2st_tensor *out[3] = {0};
        if (dy2st_model_run(m, &x, 1, out, 3, &st) != 0) {
            bad = 1;
            break;
        }
        size_t n = (size_t)dy2st_tensor_numel(want) * 4;
        if (dy2st_tensor_numel(out[0]) != dy2st_tensor_numel(want) ||
            memcmp(dy2st_tensor_data(out[0]), dy2st_tensor_data(want), n) != 0)
            bad = 1;
        for (int i = 0; i < 3; i++)
            dy2st_tensor_free(out[i]);
    }
    dy2st_tensor_free(x);
    dy2st_tensor_free(want);
    return (void *)bad;
}

static void test_threads(void **state)
{
    (void)state;
    dy2st_model *m = load_sample(CLI_DIR "mlp_loop.d2m");
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, run_thread, m), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(th[i], &r);
        assert_null(r);
    }
    dy2st_model_free(m);
}

/* Writes a model of one 32->32 3x3 convolution (a shape oneDNN runs, its weights reordered)
 * with weights from seed to path. */
static void write_conv_model(const char *path, unsigned seed)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "param w : float32[32,32,3,3] = [\n");
    unsigned s = seed * 2654435761u + 7u;
    for (int i = 0; i < 32 * 32 * 9; i++) {
        s = s * 1664525u + 1013904223u;
        fprintf(f, "%s%d", i ? ", " : "", (int)((s >> 12) & 15) - 8);
    }
    fprintf(f, "\n]\n\nblock ^0 (x : float32[-1,32,16,16]) {\n"
               "  y : float32[-1,32,16,16] = conv2d(x, w, _) {strides = [1, 1], "
               "paddings = [1, 1, 1, 1], dilations = [1, 1], groups = 1, "
               "padding_algorithm = \"EXPLICIT\"}\n  return y\n}\n");
    assert_int_equal(fclose(f), 0);
}

static dy2st_tensor *run1(dy2st_model *m, dy2st_tensor *x)
{
    dy2st_status st = {0};
    dy2st_tensor *y = NULL;
    if (dy2st_model_run(m, &x, 1, &y, 1, &st) != 0)
        fail_msg("%s", dy2st_status_message(&st));
    return y;
}

typedef struct conv_job {
    dy2st_model *m;
    dy2st_tensor *x, *want;
    int bad;
} conv_job;

static void *conv_thread(void *arg)
{
    conv_job *j = arg;
    dy2st_status st = {0};
    size_t n = (size_t)dy2st_tensor_numel(j->want) * sizeof(float);
    for (int it = 0; it < 5 && !j->bad; it++) {
        dy2st_tensor *y = NULL;
        j->bad = dy2st_model_run(j->m, &j->x, 1, &y, 1, &st) != 0 ||
                 dy2st_tensor_numel(y) != dy2st_tensor_numel(j->want) ||
                 memcmp(dy2st_tensor_data(y), dy2st_tensor_data(j->want), n) != 0;
        dy2st_tensor_free(y);
    }
    return NULL;
}

/* A loaded model's parameters are constant, so its convolutions keep their reordered weights
 * (dnnl.c): models of the same shapes with other weights, loaded side by side or one after the
 * other (whose weights may land where a freed model's were), each run their own weights. The
 * reference is the same model on the im2col + GEMM path; all values are small integers, so
 * every path sums them exactly. */
static void test_models_same_shape(void **state)
{
    (void)state;
    char path[3][512];
    dy2st_model *m[3];
    dy2st_tensor *ref[3];
    float xv[2 * 32 * 16 * 16];
    for (int i = 0; i < 2 * 32 * 16 * 16; i++)
        xv[i] = (float)(i * 7 % 5) - 2.0f;
    dy2st_status st = {0};
    dy2st_tensor *x = dy2st_tensor_new(DY2ST_FLOAT32, 4, (int64_t[]){2, 32, 16, 16}, xv, &st);
    assert_non_null(x);
    for (int i = 0; i < 3; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "conv%d.d2p", i);
        tu_tmp_path(path[i], sizeof path[i], "d2_test_api", tag);
        write_conv_model(path[i], (unsigned)i + 1);
        m[i] = load_sample(path[i]);
        d2_dnnl_set_mode(D2_DNNL_NEVER);
        ref[i] = run1(m[i], x);
        d2_dnnl_set_mode(D2_DNNL_ALWAYS);
    }
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < 3; i++) {
            dy2st_tensor *y = run1(m[i], x);
            assert_same_tensor(y, ref[i]);
            dy2st_tensor_free(y);
        }
    /* reloaded one after the other: each load's weights are new */
    for (int rep = 0; rep < 4; rep++) {
        int i = rep % 3;
        dy2st_model_free(m[i]);
        write_conv_model(path[i], (unsigned)(10 + rep));
        m[i] = load_sample(path[i]);
        dy2st_tensor_free(ref[i]);
        d2_dnnl_set_mode(D2_DNNL_NEVER);
        ref[i] = run1(m[i], x);
        d2_dnnl_set_mode(D2_DNNL_ALWAYS);
        for (int j = 0; j < 3; j++) {
            dy2st_tensor *y = run1(m[j], x);
            assert_same_tensor(y, ref[j]);
            dy2st_tensor_free(y);
        }
    }
    /* a fresh model's first runs from several threads at once: each thread may keep the
     * reordered weights, and every run gives the model's result */
    dy2st_model_free(m[0]);
    write_conv_model(path[0], 99);
    m[0] = load_sample(path[0]);
    dy2st_tensor_free(ref[0]);
    d2_dnnl_set_mode(D2_DNNL_NEVER);
    ref[0] = run1(m[0], x);
    d2_dnnl_set_mode(D2_DNNL_ALWAYS);
    conv_job jobs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (conv_job){m[0], x, ref[0], 0};
        assert_int_equal(pthread_create(&th[i], NULL, conv_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(jobs[i].bad, 0);
    }
    d2_dnnl_set_mode(D2_DNNL_AUTO);
    for (int i = 0; i < 3; i++) {
        dy2st_model_free(m[i]);
        dy2st_tensor_free(ref[i]);
        remove(path[i]);
    }
    dy2st_tensor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basics),
        cmocka_unit_test(test_tensors),
        cmocka_unit_test(test_npy),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_introspection),
        cmocka_unit_test(test_run_text_and_saved),
        cmocka_unit_test(test_run_opencl),
        cmocka_unit_test(test_run_errors),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_models_same_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
