/* test_pickle.c - the restricted unpickler against files real Paddle wrote: exact values, hostile
 * and malformed pickles, every truncation, byte flips, OOM injection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/paddle/jit.h"
#include "npy.h"
#include "pickle.h"
#include "../testutil.h"

#define DIR D2_SRCDIR "/tests/golden/pickle/"

static const d2_pickle_entry *find(const d2_pickle_params *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->items[i].name, name) == 0)
            return &p->items[i];
    return NULL;
}

/* Every member of the .npz must be in p with the same dtype, shape and
 * bytes (tolerance 0). */
typedef struct cmp_ctx {
    const d2_pickle_params *p;
    const char *prefix;
    size_t seen;
} cmp_ctx;

static int cmp_member(void *vctx, const char *name, d2_tensor *t, d2_err *err)
{
    (void)err;
    cmp_ctx *c = vctx;
    char full[512];
    snprintf(full, sizeof full, "%s%s", c->prefix, name);
    const d2_pickle_entry *e = find(c->p, full);
    if (!e)
        fail_msg("'%s' is missing", full);
    assert_int_equal(e->tensor->dtype, t->dtype);
    assert_int_equal(e->tensor->ndim, t->ndim);
    for (int k = 0; k < t->ndim; k++)
        assert_int_equal(e->tensor->shape[k], t->shape[k]);
    assert_true(d2_tensor_is_contiguous(e->tensor));
    size_t nb = (size_t)d2_tensor_numel(t) * d2_dtype_size(t->dtype);
    if (nb && memcmp(d2_tensor_data(e->tensor), d2_tensor_data(t), nb) != 0)
        fail_msg("'%s' differs from the .npz", full);
    c->seen++;
    return 0;
}

static void check_against_npz(const char *pdparams, const char *npz, const char *prefix,
                              size_t n_expected)
{
    d2_err err = {0};
    d2_pickle_params p;
    if (d2_pickle_load_params(pdparams, &p, &err) != 0)
        fail_msg("%s", err.msg);
    cmp_ctx c = {&p, prefix, 0};
    assert_int_equal(d2_npz_load(npz, cmp_member, &c, &err), 0);
    assert_true(c.seen > 0);
    assert_int_equal(p.n, n_expected);
    d2_pickle_params_free(&p);
}

static void test_state_dicts(void **state)
{
    (void)state;
    /* fc.weight, fc.bias, scale (float64), steps (int64) */
    check_against_npz(DIR "tiny_p2.pdparams", DIR "tiny.npz", "", 4);
    check_against_npz(DIR "tiny_p3.pdparams", DIR "tiny.npz", "", 4);
    check_against_npz(DIR "tiny_p4.pdparams", DIR "tiny.npz", "", 4);
    check_against_npz(DIR "tiny_fc.pdparams", DIR "tiny_fc.npz", "", 4);
    /* the order is the pickle's */
    d2_err err = {0};
    d2_pickle_params p;
    assert_int_equal(d2_pickle_load_params(DIR "tiny_p4.pdparams", &p, &err), 0);
    assert_string_equal(p.items[0].name, "scale");
    assert_string_equal(p.items[1].name, "steps");
    assert_string_equal(p.items[3].name, "fc.bias");
    assert_int_equal(d2_tensor_get_i64(p.items[1].tensor, 2), (int64_t)1 << 40);
    d2_pickle_params_free(&p);
}

static void test_layouts(void **state)
{
    (void)state;
    /* Fortran order, bool, int32, 0-d, empty; big-endian in the NumPy pickle */
    check_against_npz(DIR "layouts.pdparams", DIR "layouts.npz", "", 6);
    check_against_npz(DIR "layouts_np2.pdparams", DIR "layouts.npz", "", 6);
    /* the large-array layout: slices joined, slice entries gone */
    check_against_npz(DIR "big_p2.pdparams", DIR "big.npz", "", 2);
    /* optimizer state: StructuredToParameterName@@ skipped */
    check_against_npz(DIR "adam.pdopt", DIR "adam.npz", "", 8);
}

static void test_nested(void **state)
{
    (void)state;
    check_against_npz(DIR "nested.pdparams", DIR "tiny.npz", "model.", 4 + 3);
    d2_err err = {0};
    d2_pickle_params p;
    assert_int_equal(d2_pickle_load_params(DIR "nested.pdparams", &p, &err), 0);
    const d2_pickle_entry *s = find(&p, "s"), *l0 = find(&p, "layers.0"),
                          *l1 = find(&p, "layers.1");
    assert_non_null(s);
    assert_non_null(l0);
    assert_non_null(l1);
    assert_null(find(&p, "epoch")); /* a Python int, not a parameter */
    assert_int_equal(s->tensor->ndim, 0);
    assert_true(d2_tensor_get_f64(s->tensor, 0) == 2.5);
    assert_int_equal(l0->tensor->dtype, D2_F32);
    assert_true(d2_tensor_get_f64(l0->tensor, 2) == 2.0);
    assert_int_equal(l1->tensor->dtype, D2_I64);
    assert_int_equal(l1->tensor->shape[1], 2);
    assert_int_equal(d2_tensor_get_i64(l1->tensor, 1), -2);
    d2_pickle_params_free(&p);
}

static void test_hostile(void **state)
{
    (void)state;
    static const struct {
        const char *file, *msg;
    } cases[] = {
        {"bad_os_system.pkl", "offset 34: STACK_GLOBAL: 'posix.system' is not allowed"},
        {"bad_eval.pkl", "offset 13: GLOBAL: '__builtin__.eval' is not allowed"},
        {"bad_truncated.pkl", "truncated"},
        {"bad_memo.pkl", "offset 3: BINGET: memo index 5 is not defined"},
        {"bad_giant.pkl", "offset 2: BINUNICODE8: length 4611686018427387904 runs past the end"},
        {"bad_marks.pkl", "MARK: nested deeper than 256 marks"},
        {"bad_nest.pkl", "nested deeper than 32 levels"},
        {"bad_bytes.pkl", "BUILD: array data has 20 bytes but shape [2,3] of float32 needs 24"},
        {"bad_shared.pkl", "containers shared so much"},
        {"bad_dims.pkl", "BUILD: array dimensions too large"},
        {"bad_persid.pkl", "offset 11: BINPERSID: opcode not allowed"},
        {"bad_ext.pkl", "offset 6: EXT1: opcode not allowed"},
        {"bad_inst.pkl", "INST: opcode not allowed"},
        {"bad_list.pkl", "the pickle holds a list, not a dict"},
        {"bad_complex.pkl", "unsupported dtype 'c8'"},
        {"bad_object.pkl", "unsupported dtype 'O8'"},
        {"bad_trailing.pkl", "1 bytes after the end of the pickle"},
        {"bad_underflow.pkl", "offset 2: SETITEM: stack underflow"},
        {"bad_unknown.pkl", "offset 3: opcode: unknown opcode 0xff"},
    };
    for (size_t i = 0; i < D2_COUNTOF(cases); i++) {
        char path[512];
        snprintf(path, sizeof path, DIR "%s", cases[i].file);
        d2_err err = {0};
        d2_pickle_params p = {5, (d2_pickle_entry *)&p};
        if (d2_pickle_load_params(path, &p, &err) == 0)
            fail_msg("%s was accepted", cases[i].file);
        assert_int_equal(p.n, 0);
        assert_null(p.items);
        if (!strstr(err.msg, cases[i].msg) || !strstr(err.msg, cases[i].file))
            fail_msg("%s: got '%s', expected '%s'", cases[i].file, err.msg, cases[i].msg);
    }
    d2_err err = {0};
    d2_pickle_params p;
    assert_int_equal(d2_pickle_load_params(DIR "missing.pdparams", &p, &err), -1);
    assert_int_equal(err.code, D2_ERR_IO);
    d2_err_clear(&err);
    assert_int_equal(d2_pickle_parse_params("PK\3\4", 4, "x.npz", &p, &err), -1);
    assert_non_null(strstr(err.msg, "x.npz: not a Python pickle"));
}

/* Crafted inputs: opcodes and patterns NumPy and Paddle never write. */
static void test_crafted(void **state)
{
    (void)state;
    static const struct {
        const char *data;
        size_t n;
        const char *msg;
    } cases[] = {
#define C(s, m) {s, sizeof s - 1, m}
        C("\x80\x04}\x8c\x01w\x8c\x05numpy\x8c\x07ndarray\x93)R", "REDUCE: calling numpy.ndarray"),
        C("\x80\x04}\x8c\x01wN)Rs.", "REDUCE: calling a None is not allowed"),
        C("\x80\x04}\x8c\x01w}Ns.", "offset 8: SETITEM: adding items to a str is not allowed"),
        C("\x80\x04}\x8c\x01w}Nbs.", "BUILD: setting the state of a dict is not allowed"),
        C("\x80\x04}\x8c\x01wKXas.", "offset 8: APPEND: adding items to a str is not allowed"),
        C("\x80\x04}K\x01K\x02s.", "dict key is a int, not a str"),
        C("\x80\x04}\x8c\x02\xff\xfeK\x01s.", "string is not valid UTF-8"),
        C("\x80\x04}\x8c\x01w\x8b\x09\x00\x00\x00" "123456789s.", "integer of 9 bytes"),
        C("\x80\x06}.", "protocol 6 is not supported"),
        C("\x80\x04" "0.", "offset 2: POP: no MARK on the stack"),
        C("\x80\x04}\x95\xff\x00\x00\x00\x00\x00\x00\x00.", "FRAME: length 255 runs past"),
        C("\x80\x04}q\xff\xff\xff\xff.", ""),
        C("\x80\x04}r\xff\xff\xff\x7f.", "LONG_BINPUT: memo index 2147483647 out of range"),
        C("\x80\x04}\x8c\x01w\x8c\x07_codecs\x8c\x06" "encode\x93\x8c\x02\xc4\x80\x8c\x05utf-8\x86Rs.",
          "encode(str, 'latin1')"),
        C("\x80\x04}\x8c\x01w\x8c\x07_codecs\x8c\x06" "encode\x93\x8c\x02\xc5\x80\x8c\x06latin1\x86Rs.",
          "cannot be encoded as latin1"),
        C("\x80\x04}\x8c\x01w\x8c\x0b" "collections\x8c\x0bOrderedDictK\x01\x85\x93Rs.",
          "STACK_GLOBAL: module and name must be strings"),
        C("\x80\x04}\x8c\x01w\x8c\x0b" "collections\x8c\x0bOrderedDict\x93K\x01\x85Rs.",
          "OrderedDict is only allowed without arguments"),
        C("\x80\x04}(\x8c\x01w(t", "truncated: the pickle ends without STOP"),
        C("\x80\x04(}.", "1 values and 1 marks left"),
        C("\x80\x04\x8c\x01" "a\x8c\x01" "b\x92.", "NEWOBJ_EX: opcode not allowed"),
        C("\x80\x05}\x8c\x01w\x97s.", "NEXT_BUFFER: opcode not allowed"),
        C("\x80\x02}cos\nsystem", "GLOBAL: truncated"),
#undef C
    };
    for (size_t i = 0; i < D2_COUNTOF(cases); i++) {
        d2_err err = {0};
        d2_pickle_params p;
        if (d2_pickle_parse_params(cases[i].data, cases[i].n, "c.pkl", &p, &err) == 0)
            fail_msg("case %zu was accepted", i);
        if (!strstr(err.msg, cases[i].msg) || strncmp(err.msg, "c.pkl: ", 7) != 0)
            fail_msg("case %zu: got '%s', expected '%s'", i, err.msg, cases[i].msg);
    }
}

static const char *const good_files[] = {
    "tiny_p2.pdparams", "tiny_p4.pdparams", "nested.pdparams", "adam.pdopt",
    "layouts_np2.pdparams", "big_p2.pdparams",
};

static void test_every_truncation(void **state)
{
    (void)state;
    for (size_t f = 0; f < D2_COUNTOF(good_files); f++) {
        char path[512];
        snprintf(path, sizeof path, DIR "%s", good_files[f]);
        size_t n;
        unsigned char *b = tu_load_file(path, &n);
        for (size_t len = 0; len < n; len++) {
            d2_err err = {0};
            d2_pickle_params p;
            if (d2_pickle_parse_params(b, len, "cut", &p, &err) == 0)
                fail_msg("%s truncated to %zu bytes was accepted", good_files[f], len);
            assert_int_not_equal(err.code, D2_OK);
        }
        free(b);
    }
}

/* Every byte set to a few values: parsed or rejected with a message, never
 * a crash or a leak (the sanitizer build checks those). */
static void test_byte_flips(void **state)
{
    (void)state;
    static const unsigned char vals[] = {0x00, 0xff, 0x7f, 0x80, '(', 'R', 0x94};
    for (size_t f = 0; f < D2_COUNTOF(good_files); f++) {
        char path[512];
        snprintf(path, sizeof path, DIR "%s", good_files[f]);
        size_t n;
        unsigned char *b = tu_load_file(path, &n);
        for (size_t i = 0; i < n; i++) {
            unsigned char orig = b[i];
            for (size_t v = 0; v < sizeof vals; v++) {
                b[i] = orig ^ vals[v];
                if (b[i] == orig)
                    continue;
                d2_err err = {0};
                d2_pickle_params p;
                if (d2_pickle_parse_params(b, n, "flip", &p, &err) == 0)
                    d2_pickle_params_free(&p);
                else if (err.code == D2_OK || !err.msg[0])
                    fail_msg("%s byte %zu: failed without a message", good_files[f], i);
            }
            b[i] = orig;
        }
        free(b);
    }
}

static void test_oom(void **state)
{
    (void)state;
    for (size_t f = 0; f < D2_COUNTOF(good_files); f++) {
        char path[512];
        snprintf(path, sizeof path, DIR "%s", good_files[f]);
        for (long k = 0;; k++) {
            d2_err err = {0};
            d2_pickle_params p;
            d2_alloc_fail_after(k);
            int rc = d2_pickle_load_params(path, &p, &err);
            d2_alloc_fail_after(-1);
            if (rc == 0) {
                assert_true(p.n > 0);
                d2_pickle_params_free(&p);
                break;
            }
            if (err.code != D2_ERR_NOMEM)
                fail_msg("%s, allocation %ld failing: %s", good_files[f], k, err.msg);
            assert_true(k < 5000);
        }
    }
}

/* d2_pickle_save_params writes what the reader reads back unchanged: the
 * state dicts real Paddle wrote, re-saved (names, order, dtypes, shapes and
 * bytes). That Python's pickle and paddle.load read the files is checked by
 * tests/docs (paddle.nn.Layer.set_state_dict.ex1) against real Paddle. */
static void test_save_roundtrip(void **state)
{
    (void)state;
    static const char *const files[] = {"tiny_p4.pdparams", "layouts.pdparams", "adam.pdopt"};
    for (size_t f = 0; f < D2_COUNTOF(files); f++) {
        char in[512], out[512];
        snprintf(in, sizeof in, DIR "%s", files[f]);
        tu_tmp_path(out, sizeof out, "pickle", "save.pdparams");
        d2_err err = {0};
        d2_pickle_params a, b;
        assert_int_equal(d2_pickle_load_params(in, &a, &err), 0);
        if (d2_pickle_save_params(out, &a, &err) != 0)
            fail_msg("%s", err.msg);
        if (d2_pickle_load_params(out, &b, &err) != 0)
            fail_msg("%s re-saved: %s", files[f], err.msg);
        remove(out);
        assert_int_equal(a.n, b.n);
        for (size_t i = 0; i < a.n; i++) {
            const d2_tensor *x = a.items[i].tensor, *y = b.items[i].tensor;
            assert_string_equal(a.items[i].name, b.items[i].name);
            assert_int_equal(x->dtype, y->dtype);
            assert_int_equal(x->ndim, y->ndim);
            for (int k = 0; k < x->ndim; k++)
                assert_int_equal(x->shape[k], y->shape[k]);
            size_t nb = (size_t)d2_tensor_numel(x) * d2_dtype_size(x->dtype);
            assert_true(nb == 0 || memcmp(d2_tensor_data(x), d2_tensor_data(y), nb) == 0);
        }
        d2_pickle_params_free(&a);
        d2_pickle_params_free(&b);
    }
    /* an unwritable path is an I/O error */
    d2_err err = {0};
    d2_pickle_params empty = {0, NULL};
    assert_int_equal(d2_pickle_save_params("/nonexistent-dir/x.pdparams", &empty, &err), -1);
    assert_int_equal(err.code, D2_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_dicts),      cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_nested),           cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_crafted),          cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_byte_flips),       cmocka_unit_test(test_oom),
        cmocka_unit_test(test_save_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
