/* test_model_io.c - .npy reading/writing against NumPy's files, and the saved-model format:
 * round trips, every truncation, byte corruptions, crafted inconsistent files, OOM injection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "model_io.h"
#include "npy.h"
#include "../testutil.h"

#define NPY_DIR D2_SRCDIR "/tests/golden/npy/"
#define CLI_DIR D2_SRCDIR "/tests/golden/cli/mlp_loop/"
#define SAMPLE D2_SRCDIR "/samples/programs/mlp_loop.d2p"

/* ---- helpers ------------------------------------------------------------- */

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void assert_err_contains(const d2_err *err, const char *needle)
{
    if (err->code == D2_OK || !strstr(err->msg, needle))
        fail_msg("expected an error containing \"%s\", got code %d \"%s\"", needle, err->code,
                 err->msg);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* Recomputes the section CRCs and the header CRC of an image in place, from
 * the section table (as doc/model-format.md describes), so crafted
 * inconsistencies reach the checks behind the checksums. */
static void reseal(unsigned char *b, size_t size)
{
    for (int s = 0; s < 3; s++) {
        unsigned char *e = b + 32 + 32 * s;
        uint64_t off = get64(e + 8), len = get64(e + 16);
        if (off <= size && len <= size - off)
            put32(e + 24, d2_model_crc32(0, b + off, (size_t)len));
    }
    put32(b + 24, 0);
    put32(b + 24, d2_model_crc32(0, b, 128));
}

/* Offset of the first parameter-table record. */
static size_t table_off(const unsigned char *b) { return (size_t)get64(b + 32 + 32 + 8); }

/* A program with parameters of every supported dtype, a 0-d and a zero-size one. */
static const char params_text[] =
    "param wa : float32[2,3] = [1, 2.5, -3, 4, 1e-30, 6]\n"
    "param wb : float32[3,2] = [6, 5, 4, 3, 2, 1]\n"
    "param wi : int64[] = [-7]\n"
    "param wz : float32[0,4] = []\n"
    "param wbool : bool[3] = [true, false, true]\n"
    "param wd : float64[2] = [0.1, -1.25]\n"
    "param wi32 : int32[2] = [1, -2]\n"
    "\n"
    "block ^0 (x : float32[2,3]) {\n"
    "  return x\n"
    "}\n";

static d2_program *params_program(void)
{
    d2_err err = {0};
    d2_program *p = d2_program_parse(params_text, "params.d2p", &err);
    if (!p)
        fail_msg("cannot parse the test program: %s", err.msg);
    return p;
}

static void assert_same_params(const d2_program *a, const d2_program *b)
{
    assert_int_equal(a->n_vars, b->n_vars);
    for (int i = 0; i < a->n_vars; i++) {
        const d2_var *va = &a->vars[i], *vb = &b->vars[i];
        assert_string_equal(va->name, vb->name);
        assert_int_equal(va->persistable, vb->persistable);
        if (!va->persistable)
            continue;
        assert_non_null(vb->data);
        assert_int_equal(va->data->dtype, vb->data->dtype);
        assert_int_equal(va->data->ndim, vb->data->ndim);
        for (int d = 0; d < va->data->ndim; d++)
            assert_int_equal(va->data->shape[d], vb->data->shape[d]);
        size_t nb = (size_t)d2_tensor_numel(va->data) * d2_dtype_size(va->data->dtype);
        if (nb)
            assert_memory_equal(d2_tensor_data(va->data), d2_tensor_data(vb->data), nb);
    }
}

/* ---- CRC -------------------------------------------------------------------- */

static void test_crc32(void **state)
{
    (void)state;
    assert_int_equal(d2_model_crc32(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(d2_model_crc32(0, "", 0), 0);
    /* incremental == one shot, across the 8-byte fast path */
    const char *s = "The quick brown fox jumps over the lazy dog";
    uint32_t one = d2_model_crc32(0, s, strlen(s));
    assert_int_equal(one, 0x414FA339u);
    uint32_t inc = d2_model_crc32(d2_model_crc32(0, s, 13), s + 13, strlen(s) - 13);
    assert_int_equal(inc, one);
}

/* ---- .npy ------------------------------------------------------------------- */

static void check_values_f32(const d2_tensor *t, int n, float a, float b)
{
    const float *d = d2_tensor_data(t);
    for (int i = 0; i < n; i++)
        assert_true(d[i] == (float)i * a + b);
}

static void test_npy_read_numpy_files(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_tensor *t = d2_npy_load(NPY_DIR "f32_2x3.npy", &err);
    assert_non_null(t);
    assert_int_equal(t->dtype, D2_F32);
    assert_int_equal(t->ndim, 2);
    assert_int_equal(t->shape[0], 2);
    assert_int_equal(t->shape[1], 3);
    check_values_f32(t, 6, 0.5f, -1.0f);
    d2_tensor_unref(t);

    t = d2_npy_load(NPY_DIR "f64_5.npy", &err);
    assert_non_null(t);
    assert_int_equal(t->dtype, D2_F64);
    assert_int_equal(t->ndim, 1);
    for (int i = 0; i < 5; i++)
        assert_true(((double *)d2_tensor_data(t))[i] == (double)i / 4 + 0.1);
    d2_tensor_unref(t);

    t = d2_npy_load(NPY_DIR "i32_2x3x4.npy", &err);
    assert_non_null(t);
    assert_int_equal(t->dtype, D2_I32);
    assert_int_equal(t->ndim, 3);
    assert_int_equal(t->shape[2], 4);
    for (int i = 0; i < 24; i++)
        assert_int_equal(((int32_t *)d2_tensor_data(t))[i], i - 12);
    d2_tensor_unref(t);

    t = d2_npy_load(NPY_DIR "i64_scalar.npy", &err);
    assert_non_null(t);
    assert_int_equal(t->dtype, D2_I64);
    assert_int_equal(t->ndim, 0);
    assert_int_equal(*(int64_t *)d2_tensor_data(t), -7);
    d2_tensor_unref(t);

    t = d2_npy_load(NPY_DIR "bool_2x2.npy", &err);
    assert_non_null(t);
    assert_int_equal(t->dtype, D2_BOOL);
    const unsigned char want_b[4] = {1, 0, 0, 1};
    assert_memory_equal(d2_tensor_data(t), want_b, 4);
    d2_tensor_unref(t);

    t = d2_npy_load(NPY_DIR "f32_0x4.npy", &err);
    assert_non_null(t);
    assert_int_equal(t->ndim, 2);
    assert_int_equal(t->shape[0], 0);
    assert_int_equal(t->shape[1], 4);
    assert_int_equal(d2_tensor_numel(t), 0);
    d2_tensor_unref(t);

    t = d2_npy_load(NPY_DIR "f32_v2.npy", &err);
    assert_non_null(t);
    check_values_f32(t, 3, 1.0f, 0.0f);
    d2_tensor_unref(t);

    t = d2_npy_load(NPY_DIR "i64_v3.npy", &err);
    assert_non_null(t);
    for (int i = 0; i < 4; i++)
        assert_int_equal(((int64_t *)d2_tensor_data(t))[i], (int64_t)i * 1000000000000);
    d2_tensor_unref(t);
    assert_int_equal(err.code, D2_OK);
}

/* Our writer lays files out byte for byte as NumPy does. */
static void test_npy_write_matches_numpy(void **state)
{
    (void)state;
    static const char *const files[] = {"f32_2x3.npy", "f64_5.npy",  "i32_2x3x4.npy",
                                        "i64_scalar.npy", "bool_2x2.npy", "f32_0x4.npy"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, NPY_DIR "%s", files[i]);
        size_t n;
        unsigned char *want = tu_load_file(path, &n);
        d2_err err = {0};
        d2_tensor *t = d2_npy_parse(want, n, files[i], &err);
        assert_non_null(t);
        d2_buf b;
        d2_buf_init(&b);
        assert_int_equal(d2_npy_write(&b, t, &err), 0);
        assert_int_equal(b.len, n);
        assert_memory_equal(b.data, want, n);
        /* and through a file */
        char out[512];
        tu_tmp_path(out, sizeof out, "d2_test_model_io", "w.npy");
        assert_int_equal(d2_npy_save(t, out, &err), 0);
        size_t n2;
        unsigned char *got = tu_load_file(out, &n2);
        assert_int_equal(n2, n);
        assert_memory_equal(got, want, n);
        free(got);
        remove(out);
        d2_buf_free(&b);
        d2_tensor_unref(t);
        free(want);
    }
}

static void test_npy_write_strided_and_errors(void **state)
{
    (void)state;
    d2_err err = {0};
    int32_t data[6] = {0, 1, 2, 3, 4, 5};
    int64_t shape[2] = {2, 3};
    d2_tensor *t = d2_tensor_from_data(D2_I32, 2, shape, data, &err);
    /* a transposed view is written in its logical (C) order */
    t->shape[0] = 3;
    t->shape[1] = 2;
    t->strides[0] = 1;
    t->strides[1] = 3;
    d2_buf b;
    d2_buf_init(&b);
    assert_int_equal(d2_npy_write(&b, t, &err), 0);
    d2_tensor *back = d2_npy_parse(b.data, b.len, "view", &err);
    assert_non_null(back);
    const int32_t want[6] = {0, 3, 1, 4, 2, 5};
    assert_memory_equal(d2_tensor_data(back), want, sizeof want);
    assert_int_equal(back->shape[0], 3);
    d2_tensor_unref(back);
    d2_tensor_unref(t);
    d2_buf_free(&b);

    d2_tensor *arr = d2_tensor_array_new(D2_F32, &err);
    d2_buf_init(&b);
    assert_int_equal(d2_npy_write(&b, arr, &err), -1);
    assert_err_contains(&err, "tensor array");
    d2_tensor_unref(arr);
    d2_buf_free(&b);

    d2_err_clear(&err);
    d2_tensor *s = d2_tensor_scalar_f32(1, &err);
    assert_int_equal(d2_npy_save(s, "/nonexistent-dir/x.npy", &err), -1);
    assert_err_contains(&err, "/nonexistent-dir/x.npy: cannot create");
    d2_tensor_unref(s);
}

static void test_npy_bad_files(void **state)
{
    (void)state;
    static const struct {
        const char *file, *msg;
    } cases[] = {
        {"bad_fortran.npy", "bad_fortran.npy: Fortran-ordered arrays are not supported"},
        {"bad_bigendian.npy", "bad_bigendian.npy: big-endian data ('>f4') is not supported"},
        {"bad_complex.npy", "bad_complex.npy: unsupported dtype '<c8'"},
        {"bad_object.npy", "bad_object.npy: object arrays are not supported"},
        {"bad_structured.npy", "bad_structured.npy: structured dtypes are not supported"},
        {"bad_truncated.npy", "bad_truncated.npy: truncated .npy data (expected 24 bytes, found 19)"},
        {"bad_trailing.npy", "bad_trailing.npy: 4 unexpected bytes after the .npy data"},
        {"bad_magic.npy", "bad_magic.npy: not a .npy file"},
        {"bad_version.npy", "bad_version.npy: unsupported .npy format version 4.0"},
        {"bad_hlen.npy", "bad_hlen.npy: truncated .npy file (header claims"},
        {"bad_header.npy", "bad_header.npy: malformed .npy header: unexpected key 'shapz'"},
        {"bad_bool.npy", "bad_bool.npy: invalid bool value 2 at element 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, NPY_DIR "%s", cases[i].file);
        d2_err err = {0};
        assert_null(d2_npy_load(path, &err));
        assert_err_contains(&err, cases[i].msg);
        /* the in-memory parser agrees */
        size_t n;
        unsigned char *b = tu_load_file(path, &n);
        d2_err err2 = {0};
        assert_null(d2_npy_parse(b, n, cases[i].file, &err2));
        assert_string_equal(err2.msg, strstr(err.msg, cases[i].file));
        free(b);
    }
    d2_err err = {0};
    assert_null(d2_npy_load(NPY_DIR "does-not-exist.npy", &err));
    assert_err_contains(&err, "does-not-exist.npy: cannot open");
    d2_err_clear(&err);
    assert_null(d2_npy_load(NPY_DIR, &err));
    assert_err_contains(&err, "not a regular file");
}

/* uint8 and float16 files (NumPy's own, from gen_npy.py) load; int8, int16,
 * uint8 and float16 tensors write as NumPy's descriptors and read back;
 * bfloat16 writes its bits as '<u2' (as Paddle's numpy() returns them), which
 * does not read back as bfloat16. */
static void test_npy_storage_dtypes(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_tensor *t = d2_npy_load(NPY_DIR "bad_u1.npy", &err);
    assert_non_null(t);
    assert_int_equal(t->dtype, D2_U8);
    assert_memory_equal(d2_tensor_data(t), ((uint8_t[]){0, 1, 2}), 3);
    d2_tensor_unref(t);
    t = d2_npy_load(NPY_DIR "bad_f16.npy", &err);
    assert_non_null(t);
    assert_int_equal(t->dtype, D2_F16);
    assert_memory_equal(d2_tensor_data(t), ((uint16_t[]){0, 0x3c00, 0x4000}), 6);
    d2_tensor_unref(t);
    static const struct {
        d2_dtype dt;
        const char *descr;
    } rt[] = {{D2_I8, "'|i1'"}, {D2_I16, "'<i2'"}, {D2_U8, "'|u1'"}, {D2_F16, "'<f2'"},
              {D2_BF16, "'<u2'"}};
    static const unsigned char bytes[4] = {0x80, 0x7f, 0xff, 0x01};
    for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++) {
        int64_t n = 4 / (int64_t)d2_dtype_size(rt[i].dt);
        t = d2_tensor_from_data(rt[i].dt, 1, &n, bytes, &err);
        assert_non_null(t);
        d2_buf b;
        d2_buf_init(&b);
        assert_int_equal(d2_npy_write(&b, t, &err), 0);
        assert_non_null(strstr(b.data + 10, rt[i].descr));
        d2_tensor *back = d2_npy_parse((const unsigned char *)b.data, b.len, "rt.npy", &err);
        if (rt[i].dt == D2_BF16) {
            assert_null(back);
            assert_err_contains(&err, "rt.npy: unsupported dtype '<u2'");
            d2_err_clear(&err);
        } else {
            assert_non_null(back);
            assert_int_equal(back->dtype, rt[i].dt);
            assert_memory_equal(d2_tensor_data(back), bytes, 4);
            d2_tensor_unref(back);
        }
        d2_buf_free(&b);
        d2_tensor_unref(t);
    }
}

static void test_npy_bad_headers(void **state)
{
    (void)state;
    static const char *const headers[] = {
        "{'descr': '<f4', 'fortran_order': False}",                          /* no shape */
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",   /* extra key */
        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
        "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,2,3,4,5,6,7,8,9)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1099511627776, 1099511627776)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk",
        "{'descr': '<f4, 'fortran_order': False, 'shape': ()}",
        "['descr', '<f4']",
        "",
    };
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        unsigned char img[256] = "\x93NUMPY\x01\x00";
        size_t hl = strlen(headers[i]);
        img[8] = (unsigned char)(hl & 0xFF);
        img[9] = 0;
        memcpy(img + 10, headers[i], hl);
        memset(img + 10 + hl, 0, 8); /* 8 bytes of "data" */
        d2_err err = {0};
        d2_tensor *t = d2_npy_parse(img, 10 + hl + 8, "hdr.npy", &err);
        if (t)
            fail_msg("header %zu was accepted: %s", i, headers[i]);
        assert_err_contains(&err, "hdr.npy: ");
    }
    /* a well-formed hand-written header with Python 2 longs and odd spacing is fine */
    const char *ok = "{ \"shape\" : (2L , ) , 'fortran_order':False,'descr':'<i4' }\n";
    unsigned char img[256] = "\x93NUMPY\x01\x00";
    size_t hl = strlen(ok);
    img[8] = (unsigned char)hl;
    memcpy(img + 10, ok, hl);
    put32(img + 10 + hl, 5);
    put32(img + 14 + hl, (uint32_t)-6);
    d2_err err = {0};
    d2_tensor *t = d2_npy_parse(img, 10 + hl + 8, "ok.npy", &err);
    assert_non_null(t);
    assert_int_equal(((int32_t *)d2_tensor_data(t))[1], -6);
    d2_tensor_unref(t);
}

static void test_npy_every_truncation(void **state)
{
    (void)state;
    static const char *const files[] = {"f32_2x3.npy", "f32_v2.npy", "i64_v3.npy",
                                        "i64_scalar.npy"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, NPY_DIR "%s", files[f]);
        size_t n;
        unsigned char *b = tu_load_file(path, &n);
        for (size_t len = 0; len < n; len++) {
            unsigned char *cut = malloc(len + 1); /* exact size: ASan sees over-reads */
            memcpy(cut, b, len);
            d2_err err = {0};
            d2_tensor *t = d2_npy_parse(cut, len, files[f], &err);
            if (t)
                fail_msg("%s truncated to %zu bytes was accepted", files[f], len);
            assert_int_not_equal(err.code, D2_OK);
            free(cut);
        }
        free(b);
    }
}

static void test_npy_oom(void **state)
{
    (void)state;
    for (long k = 0;; k++) {
        d2_err err = {0};
        d2_alloc_fail_after(k);
        d2_tensor *t = d2_npy_load(NPY_DIR "i32_2x3x4.npy", &err);
        d2_alloc_fail_after(-1);
        if (t) {
            d2_tensor_unref(t);
            break;
        }
        assert_int_equal(err.code, D2_ERR_NOMEM);
        assert_true(k < 100);
    }
}

/* ---- saved models: round trips -------------------------------------------------- */

static void test_model_roundtrip_mem(void **state)
{
    (void)state;
    d2_program *p = params_program();
    d2_err err = {0};
    d2_buf img;
    d2_buf_init(&img);
    assert_int_equal(d2_model_save_mem(p, &img, &err), 0);
    assert_true(d2_model_is_saved(img.data, img.len));
    d2_program *q = d2_model_load_mem(img.data, img.len, "mem", &err);
    if (!q)
        fail_msg("load failed: %s", err.msg);
    assert_same_params(p, q);
    char *tp = d2_program_print(p, true), *tq = d2_program_print(q, true);
    assert_string_equal(tp, tq);
    d2_free(tp);
    d2_free(tq);
    /* every parameter's data is 64-byte aligned in the file */
    const unsigned char *b = (const unsigned char *)img.data;
    size_t pos = table_off(b);
    uint32_t count = get32(b + pos);
    assert_int_equal(count, 7);
    pos += 8;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t nl = get32(b + pos), nd = get32(b + pos + 8);
        assert_int_equal(get64(b + pos + 16) % 64, 0);
        pos += 32 + 8 * nd + ((nl + 7) & ~7u);
    }
    /* re-saving the loaded program gives the same bytes */
    d2_buf img2;
    d2_buf_init(&img2);
    assert_int_equal(d2_model_save_mem(q, &img2, &err), 0);
    assert_int_equal(img2.len, img.len);
    assert_memory_equal(img2.data, img.data, img.len);
    d2_buf_free(&img2);
    d2_buf_free(&img);
    d2_program_free(q);
    d2_program_free(p);
}

/* Parameters of the dtypes with codes 7..9 (int8, int16, uint8) save with
 * those codes and load back byte for byte. */
static void test_model_roundtrip_small_ints(void **state)
{
    (void)state;
    static const d2_dtype dts[] = {D2_I8, D2_I16, D2_U8};
    static const unsigned char bytes[6] = {0x80, 0x7f, 0xff, 0x00, 0x01, 0xfe};
    d2_err err = {0};
    d2_program *p = d2_program_new(&err);
    for (int i = 0; i < 3; i++) {
        int64_t n = 6 / (int64_t)d2_dtype_size(dts[i]);
        d2_tensor *t = d2_tensor_from_data(dts[i], 1, &n, bytes, &err);
        char name[8];
        snprintf(name, sizeof name, "w%d", i);
        assert_true(d2_program_add_param(p, name, t, NULL, &err) >= 0);
        d2_tensor_unref(t);
    }
    d2_buf img;
    d2_buf_init(&img);
    assert_int_equal(d2_model_save_mem(p, &img, &err), 0);
    const unsigned char *b = (const unsigned char *)img.data;
    size_t pos = table_off(b) + 8;
    for (int i = 0; i < 3; i++) {
        uint32_t nl = get32(b + pos), nd = get32(b + pos + 8);
        assert_int_equal(get32(b + pos + 4), 7 + i);
        pos += 32 + 8 * nd + ((nl + 7) & ~7u);
    }
    d2_program *q = d2_model_load_mem(img.data, img.len, "mem", &err);
    if (!q)
        fail_msg("load failed: %s", err.msg);
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "w%d", i);
        int v = d2_program_find_var(q, name);
        assert_true(v >= 0);
        assert_int_equal(q->vars[v].data->dtype, dts[i]);
        assert_memory_equal(d2_tensor_data(q->vars[v].data), bytes, 6);
    }
    d2_program_free(q);
    d2_buf_free(&img);
    d2_program_free(p);
}

static void test_model_roundtrip_file_mmap(void **state)
{
    (void)state;
    d2_program *p = params_program();
    d2_err err = {0};
    char path[512];
    tu_tmp_path(path, sizeof path, "d2_test_model_io", "m.d2m");
    assert_int_equal(d2_model_save(p, path, &err), 0);
    d2_program *q = d2_model_load(path, &err);
    if (!q)
        fail_msg("load failed: %s", err.msg);
    assert_same_params(p, q);
    /* parameters use the mapping in place, aligned */
    int wa = d2_program_find_var(q, "wa");
    d2_tensor *t = d2_tensor_ref(q->vars[wa].data);
    assert_non_null(t->storage->release);
    assert_int_equal((uintptr_t)d2_tensor_data(t) % 64, 0);
    /* the mapping outlives the program while a parameter is referenced */
    d2_program_free(q);
    assert_true(((float *)d2_tensor_data(t))[1] == 2.5f);
    d2_tensor_unref(t);
    /* the file equals the in-memory image, and d2_model_open reads it too */
    d2_buf img;
    d2_buf_init(&img);
    assert_int_equal(d2_model_save_mem(p, &img, &err), 0);
    size_t n;
    unsigned char *fb = tu_load_file(path, &n);
    assert_int_equal(n, img.len);
    assert_memory_equal(fb, img.data, n);
    free(fb);
    d2_program *r = d2_model_open(path, &err);
    assert_non_null(r);
    assert_same_params(p, r);
    d2_program_free(r);
    d2_buf_free(&img);
    remove(path);
    /* saving into a missing directory fails cleanly */
    assert_int_equal(d2_model_save(p, "/nonexistent-dir/m.d2m", &err), -1);
    assert_err_contains(&err, "/nonexistent-dir/m.d2m: cannot create");
    d2_program_free(p);
}

static void test_model_save_errors(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_program *p = d2_program_parse("param w : float32[2]\n\nblock ^0 () {\n  return w\n}\n",
                                     "nodata.d2p", &err);
    assert_non_null(p);
    d2_buf img;
    d2_buf_init(&img);
    assert_int_equal(d2_model_save_mem(p, &img, &err), -1);
    assert_err_contains(&err, "parameter 'w' has no data");
    d2_buf_free(&img);
    d2_program_free(p);
}

/* The saved model that the generator wrote with its own (Python) writer loads
 * and holds the same parameters as the text-form sample. */
static void test_model_independent_writer(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_program *a = d2_model_load(CLI_DIR "mlp_loop.d2m", &err);
    if (!a)
        fail_msg("%s", err.msg);
    d2_program *b = d2_model_open(SAMPLE, &err);
    if (!b)
        fail_msg("%s", err.msg);
    assert_same_params(b, a);
    char *ta = d2_program_print(a, false), *tb = d2_program_print(b, false);
    assert_string_equal(ta, tb);
    d2_free(ta);
    d2_free(tb);
    d2_program_free(a);
    d2_program_free(b);
}

/* Runs p on the sample input; returns the outputs (3). */
static void run_sample(const d2_program *p, d2_tensor **out)
{
    d2_err err = {0};
    d2_tensor *x = d2_npy_load(CLI_DIR "x.npy", &err);
    assert_non_null(x);
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    if (!pp)
        fail_msg("prepare: %s", err.msg);
    if (d2_exec_run(pp, &x, 1, out, 3, &err) < 0)
        fail_msg("run: %s", err.msg);
    d2_exec_free(pp);
    d2_tensor_unref(x);
}

static void assert_tensor_bytes_equal(const d2_tensor *a, const d2_tensor *b)
{
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(a->ndim, b->ndim);
    for (int d = 0; d < a->ndim; d++)
        assert_int_equal(a->shape[d], b->shape[d]);
    d2_err err = {0};
    d2_tensor *ca = d2_tensor_contiguous((d2_tensor *)a, &err);
    d2_tensor *cb = d2_tensor_contiguous((d2_tensor *)b, &err);
    size_t n = (size_t)d2_tensor_numel(a) * d2_dtype_size(a->dtype);
    if (n)
        assert_memory_equal(d2_tensor_data(ca), d2_tensor_data(cb), n);
    d2_tensor_unref(ca);
    d2_tensor_unref(cb);
}

/* text form -> run; save -> load -> run: outputs identical and equal to NumPy's;
 * re-saving the loaded model gives identical bytes. */
static void test_model_save_load_run(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_program *p = d2_model_open(SAMPLE, &err);
    if (!p)
        fail_msg("%s", err.msg);
    char path[512];
    tu_tmp_path(path, sizeof path, "d2_test_model_io", "mlp.d2m");
    assert_int_equal(d2_model_save(p, path, &err), 0);
    d2_program *q = d2_model_load(path, &err);
    if (!q)
        fail_msg("%s", err.msg);
    d2_tensor *o1[3] = {0}, *o2[3] = {0};
    run_sample(p, o1);
    run_sample(q, o2);
    static const char *const names[3] = {"logits", "steps", "positive"};
    for (int i = 0; i < 3; i++) {
        assert_tensor_bytes_equal(o1[i], o2[i]);
        char gp[512];
        snprintf(gp, sizeof gp, CLI_DIR "%s.npy", names[i]);
        d2_tensor *want = d2_npy_load(gp, &err);
        assert_non_null(want);
        assert_tensor_bytes_equal(o2[i], want);
        d2_tensor_unref(want);
        d2_tensor_unref(o1[i]);
        d2_tensor_unref(o2[i]);
    }
    d2_buf a, b;
    d2_buf_init(&a);
    d2_buf_init(&b);
    assert_int_equal(d2_model_save_mem(p, &a, &err), 0);
    assert_int_equal(d2_model_save_mem(q, &b, &err), 0);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    size_t n;
    unsigned char *fb = tu_load_file(path, &n);
    assert_int_equal(n, a.len);
    assert_memory_equal(fb, a.data, n);
    free(fb);
    d2_buf_free(&a);
    d2_buf_free(&b);
    remove(path);
    d2_program_free(q);
    d2_program_free(p);
}

/* ---- saved models: damaged files ------------------------------------------------ */

static void saved_image(d2_buf *img)
{
    d2_program *p = params_program();
    d2_err err = {0};
    d2_buf_init(img);
    assert_int_equal(d2_model_save_mem(p, img, &err), 0);
    d2_program_free(p);
}

/* The saved image of the sample MLP (blocks, a loop, attributes). */
static void sample_image(d2_buf *img)
{
    d2_err err = {0};
    d2_program *p = d2_model_open(SAMPLE, &err);
    if (!p)
        fail_msg("%s", err.msg);
    d2_buf_init(img);
    assert_int_equal(d2_model_save_mem(p, img, &err), 0);
    d2_program_free(p);
}

static void every_truncation(const d2_buf *image)
{
    d2_buf img = *image;
    for (size_t len = 0; len < img.len; len++) {
        unsigned char *cut = malloc(len + 1);
        memcpy(cut, img.data, len);
        d2_err err = {0};
        d2_program *p = d2_model_load_mem(cut, len, "cut.d2m", &err);
        if (p)
            fail_msg("truncation to %zu of %zu bytes was accepted", len, img.len);
        assert_err_contains(&err, "cut.d2m: ");
        free(cut);
    }
    /* one extra byte is rejected as well */
    unsigned char *longer = malloc(img.len + 1);
    memcpy(longer, img.data, img.len);
    longer[img.len] = 0;
    d2_err err = {0};
    assert_null(d2_model_load_mem(longer, img.len + 1, "long.d2m", &err));
    assert_err_contains(&err, "header records");
    free(longer);
}

static void test_model_every_truncation(void **state)
{
    (void)state;
    d2_buf img;
    saved_image(&img);
    every_truncation(&img);
    d2_buf_free(&img);
    sample_image(&img);
    every_truncation(&img);
    d2_buf_free(&img);
}

static void every_byte_corrupted(const d2_buf *image)
{
    d2_buf img = *image;
    unsigned char *b = malloc(img.len);
    static const unsigned char flips[] = {0x01, 0x80, 0xFF};
    for (size_t pos = 0; pos < img.len; pos++) {
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(b, img.data, img.len);
            b[pos] ^= flips[f];
            d2_err err = {0};
            d2_program *p = d2_model_load_mem(b, img.len, "bad.d2m", &err);
            if (p)
                fail_msg("flipping byte %zu with 0x%02x was not detected", pos, flips[f]);
            assert_int_not_equal(err.code, D2_OK);
        }
    }
    free(b);
}

static void test_model_every_byte_corrupted(void **state)
{
    (void)state;
    d2_buf img;
    saved_image(&img);
    every_byte_corrupted(&img);
    d2_buf_free(&img);
    sample_image(&img);
    every_byte_corrupted(&img);
    d2_buf_free(&img);
}

/* Damage behind the checksums (resealed afterwards) is caught by the
 * structural checks, with a message naming the problem. */
static void test_model_crafted(void **state)
{
    (void)state;
    d2_buf img;
    saved_image(&img);
    size_t n = img.len;
    unsigned char *b = malloc(n);
    const unsigned char *orig = (const unsigned char *)img.data;
    size_t t0 = table_off(orig) + 8; /* first record: wa, float32[2,3] */
    size_t name0 = t0 + 32 + 16;
    /* second record: wb, float32[3,2] */
    size_t t1 = name0 + 8;
    size_t prog_end = (size_t)(get64(orig + 32 + 8) + get64(orig + 32 + 16));
    assert_int_not_equal(prog_end % 64, 0); /* so there is padding to damage */

#define CASE(expr, needle)                                                                   \
    do {                                                                                     \
        memcpy(b, orig, n);                                                                  \
        expr;                                                                                \
        reseal(b, n);                                                                        \
        d2_err err = {0};                                                                    \
        d2_program *p = d2_model_load_mem(b, n, "x.d2m", &err);                              \
        if (p)                                                                               \
            fail_msg("accepted: %s", #expr);                                                 \
        assert_err_contains(&err, needle);                                                   \
    } while (0)

    CASE(put32(b + 8, 2), "x.d2m: unsupported model format version 2 (this build reads 1)");
    CASE(memcpy(b, "DY2STMDX", 8), "x.d2m: not a dy2st saved model (bad magic)");
    CASE(put32(b + 12, 4), "bad section count 4");
    CASE(put32(b + 28, 1), "reserved header field");
    CASE(put32(b + 32, 2), "section 0 has kind 2");
    CASE(put64(b + 32 + 8, 0xFFFFFFFFFFFFFFC0ull), "program section at offset");
    CASE(put64(b + 32 + 16, 0xFFFFFFFFFFFFFFF0ull), "extends past the end of the file");
    CASE(put64(b + 32 + 16, get64(b + 32 + 16) + 64), "parameter table section at offset");
    CASE(b[prog_end] = 1, "nonzero padding before the parameter table section");
    CASE(put32(b + t0 - 8, 8), "parameter table is truncated");
    CASE(put32(b + t0 - 8, 6), "unexpected bytes at the end of the parameter table");
    CASE(put32(b + t0 - 4, 1), "reserved field of the parameter table");
    CASE(put32(b + t0 + 4, 99), "parameter 'wa': unknown dtype code 99");
    CASE(put32(b + t0 + 4, D2_I32), "parameter 'wa': data is int32[2,3] but the program declares float32[2,3]");
    CASE((put64(b + t0 + 32, 3), put64(b + t0 + 40, 2)),
         "parameter 'wa': data is float32[3,2] but the program declares float32[2,3]");
    CASE(put64(b + t0 + 32, 0x8000000000000000ull), "parameter 'wa': negative dimension");
    CASE((put64(b + t0 + 32, 0x4000000000000000ull), put64(b + t0 + 40, 0x40)), "size overflows");
    /* a zero dim does not excuse huge others (their strides would overflow) */
    CASE((put64(b + t0 + 32, 0), put64(b + t0 + 40, 0x4000000000000000ull)), "size overflows");
    CASE(put64(b + t0 + 24, 28), "parameter 'wa': 28 data bytes recorded, its float32 shape needs 24");
    CASE(put64(b + t0 + 16, get64(b + t0 + 16) + 64), "parameter 'wa': data at offset");
    CASE(put32(b + t0 + 8, 9), "9 dims exceed the maximum");
    CASE(put32(b + t0 + 8, 3), "parameter entry 0");
    CASE(put32(b + t0, 0), "bad name length 0");
    CASE(put32(b + t0, 0xFFFFFFFFu), "bad name length");
    CASE(put32(b + t0, 4000), "parameter table is truncated");
    CASE(put32(b + t0 + 12, 5), "reserved field is not zero");
    CASE(b[name0] = 'q', "parameter 'qa' is not a variable of the program");
    CASE(b[name0 + 1] = 0, "name contains a NUL byte");
    CASE(b[name0 + 3] = 7, "nonzero name padding");
    CASE(b[name0 + 1] = 'b', "parameter 'wb': data is float32[2,3] but the program declares float32[3,2]");
    /* the second record renamed to the first, with a matching type: a duplicate */
    CASE((b[t1 + 32 + 16 + 1] = 'a', put64(b + t1 + 32, 2), put64(b + t1 + 40, 3)),
         "parameter 'wa' appears twice");
    /* program section with a NUL byte, or one that does not parse */
    CASE(b[128 + 3] = 0, "program section contains a NUL byte");
    CASE(memcpy(b + 128, "parax", 5), "x.d2m: bad program section: x.d2m:1:");
    /* 'x' is the block's input, not a parameter */
    CASE((b[name0] = 'x', b[name0 + 1] = 0, put32(b + t0, 1), b[name0 + 1] = 0),
         "'x' has data but is not a parameter of the program");
#undef CASE
    /* a bool parameter byte other than 0/1 */
    memcpy(b, orig, n);
    d2_err err = {0};
    {
        size_t pos = table_off(b) + 8;
        for (int k = 0; k < 4; k++) /* skip wa, wb, wi, wz */
            pos += 32 + 8 * get32(b + pos + 8) + ((get32(b + pos) + 7) & ~7u);
        size_t data = (size_t)get64(b + pos + 16);
        b[data + 1] = 2;
        reseal(b, n);
        assert_null(d2_model_load_mem(b, n, "x.d2m", &err));
        assert_err_contains(&err, "parameter 'wbool': invalid bool byte 2");
    }
    free(b);
    d2_buf_free(&img);
}

/* Random multi-byte damage, resealed so it gets past the checksums: always an
 * error or a valid program, never a crash (ASan/UBSan builds check the rest). */
static void test_model_fuzz_resealed(void **state)
{
    (void)state;
    d2_buf img;
    saved_image(&img);
    unsigned char *b = malloc(img.len);
    int accepted = 0;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(b, img.data, img.len);
        int edits = 1 + (int)(rng() % 4);
        for (int e = 0; e < edits; e++) {
            size_t pos = (size_t)(rng() % img.len);
            switch (rng() % 3) {
            case 0: b[pos] ^= (unsigned char)(1u << (rng() % 8)); break;
            case 1: b[pos] = (unsigned char)rng(); break;
            default: b[pos] = (unsigned char)(rng() % 2 ? 0 : 0xFF); break;
            }
        }
        reseal(b, img.len);
        d2_err err = {0};
        d2_program *p = d2_model_load_mem(b, img.len, "fuzz.d2m", &err);
        if (p) {
            accepted++;
            d2_program_free(p);
        } else {
            assert_int_not_equal(err.code, D2_OK);
        }
    }
    /* only edits inside parameter data (or equivalent text) survive resealing */
    assert_true(accepted < 3000);
    free(b);
    d2_buf_free(&img);
}

static void test_model_load_errors(void **state)
{
    (void)state;
    d2_err err = {0};
    assert_null(d2_model_load("/nonexistent/m.d2m", &err));
    assert_err_contains(&err, "/nonexistent/m.d2m: cannot open");
    d2_err_clear(&err);
    assert_null(d2_model_load(NPY_DIR "f32_2x3.npy", &err));
    assert_err_contains(&err, "f32_2x3.npy: not a dy2st saved model (bad magic)");
    d2_err_clear(&err);
    assert_null(d2_model_open(NPY_DIR "f32_2x3.npy", &err));
    assert_err_contains(&err, "neither a saved model nor a text-form program");
    d2_err_clear(&err);
    char path[512];
    tu_tmp_path(path, sizeof path, "d2_test_model_io", "empty.d2m");
    write_file(path, "", 0);
    assert_null(d2_model_load(path, &err));
    assert_err_contains(&err, "empty file");
    remove(path);
    d2_err_clear(&err);
    assert_null(d2_model_load_mem("DY2STM", 6, "short", &err));
    assert_err_contains(&err, "short: truncated saved model (6 bytes)");
}

static void test_model_oom(void **state)
{
    (void)state;
    d2_program *p = params_program();
    d2_buf img;
    saved_image(&img);
    for (long k = 0;; k++) {
        d2_err err = {0};
        d2_alloc_fail_after(k);
        d2_program *q = d2_model_load_mem(img.data, img.len, "oom.d2m", &err);
        d2_alloc_fail_after(-1);
        if (q) {
            assert_same_params(p, q);
            d2_program_free(q);
            break;
        }
        assert_int_not_equal(err.code, D2_OK);
        assert_true(k < 10000);
    }
    for (long k = 0;; k++) {
        d2_err err = {0};
        d2_buf out;
        d2_buf_init(&out);
        d2_alloc_fail_after(k);
        int rc = d2_model_save_mem(p, &out, &err);
        d2_alloc_fail_after(-1);
        if (rc == 0) {
            assert_int_equal(out.len, img.len);
            assert_memory_equal(out.data, img.data, img.len);
            d2_buf_free(&out);
            break;
        }
        d2_buf_free(&out);
        assert_int_not_equal(err.code, D2_OK);
        assert_true(k < 10000);
    }
    d2_buf_free(&img);
    d2_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32),
        cmocka_unit_test(test_npy_read_numpy_files),
        cmocka_unit_test(test_npy_write_matches_numpy),
        cmocka_unit_test(test_npy_write_strided_and_errors),
        cmocka_unit_test(test_npy_bad_files),
        cmocka_unit_test(test_npy_storage_dtypes),
        cmocka_unit_test(test_npy_bad_headers),
        cmocka_unit_test(test_npy_every_truncation),
        cmocka_unit_test(test_npy_oom),
        cmocka_unit_test(test_model_roundtrip_mem),
        cmocka_unit_test(test_model_roundtrip_small_ints),
        cmocka_unit_test(test_model_roundtrip_file_mmap),
        cmocka_unit_test(test_model_save_errors),
        cmocka_unit_test(test_model_independent_writer),
        cmocka_unit_test(test_model_save_load_run),
        cmocka_unit_test(test_model_every_truncation),
        cmocka_unit_test(test_model_every_byte_corrupted),
        cmocka_unit_test(test_model_crafted),
        cmocka_unit_test(test_model_fuzz_resealed),
        cmocka_unit_test(test_model_load_errors),
        cmocka_unit_test(test_model_oom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
