/* test_program.c - Program text form (print/parse round trip, errors, fuzz), verifier, DOT form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "../testutil.h"

#define GOLDEN D2_SRCDIR "/tests/golden/programs"

/* ---- helpers ---- */

/* The text after the leading '#' header lines. */
static const char *body_of(const char *t)
{
    while (*t == '#') {
        const char *nl = strchr(t, '\n');
        if (!nl)
            return t + strlen(t);
        t = nl + 1;
    }
    return t;
}

/* Copies the text of the header line "# error: <text>" into out. */
static bool header_error(const char *t, char *out, size_t n)
{
    const char *body = body_of(t);
    const char *e = strstr(t, "# error: ");
    if (!e || e >= body)
        return false;
    e += 9;
    size_t len = strcspn(e, "\n");
    if (len >= n)
        len = n - 1;
    memcpy(out, e, len);
    out[len] = 0;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the *.prog files in dir; *n receives the count. */
static char **list_progs(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    char **names = NULL;
    *n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 5, ".prog") != 0)
            continue;
        names = realloc(names, sizeof *names * (size_t)(*n + 1));
        names[(*n)++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)*n, sizeof *names, cmp_str);
    return names;
}

static void free_list(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static char *golden_path(const char *sub, const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s/%s", GOLDEN, sub, name);
    return buf;
}

static d2_program *parse_ok(const char *text, const char *src)
{
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, src, &err);
    if (!p)
        fprintf(stderr, "parse failed: %s\n", err.msg);
    assert_non_null(p);
    return p;
}

/* Parses text and checks it prints as `want` (with data). */
static void check_prints_as(const char *text, const char *want)
{
    d2_program *p = parse_ok(text, "t.prog");
    char *s = d2_program_print(p, true);
    assert_non_null(s);
    if (strcmp(s, want) != 0)
        fprintf(stderr, "--- got\n%s--- want\n%s", s, want);
    assert_string_equal(s, want);
    d2_free(s);
    d2_program_free(p);
}

static void expect_parse_error(const char *text, const char *want)
{
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, "t.prog", &err);
    if (p)
        fprintf(stderr, "parsed but should not: %s\n", text);
    assert_null(p);
    assert_int_equal(err.code, D2_ERR_PARSE);
    assert_string_equal(err.msg, want);
}

static void expect_verify_error(const d2_program *p, const char *want)
{
    d2_err err = {0};
    assert_int_equal(d2_program_verify(p, &err), -1);
    if (!strstr(err.msg, want))
        fprintf(stderr, "got '%s'\nwant '%s'\n", err.msg, want);
    assert_non_null(strstr(err.msg, want));
}

/* ---- golden files ---- */

static void test_golden_round_trip(void **state)
{
    (void)state;
    int n;
    char **names = list_progs(GOLDEN "/valid", &n);
    assert_true(n >= 8);
    for (int i = 0; i < n; i++) {
        char *text = tu_read_file(golden_path("valid", names[i]), NULL);
        assert_non_null(text);
        const char *body = body_of(text);
        d2_program *p = parse_ok(text, names[i]);
        char *s = d2_program_print(p, true);
        assert_non_null(s);
        if (strcmp(s, body) != 0)
            fprintf(stderr, "%s: printed form differs:\n%s", names[i], s);
        assert_string_equal(s, body);
        /* the printed form parses to the same program again */
        d2_program *q = parse_ok(s, names[i]);
        char *s2 = d2_program_print(q, true);
        assert_string_equal(s2, body);
        /* a clone prints the same */
        d2_err err = {0};
        d2_program *c = d2_program_clone(p, &err);
        assert_non_null(c);
        char *s3 = d2_program_print(c, true);
        assert_string_equal(s3, body);
        d2_free(s);
        d2_free(s2);
        d2_free(s3);
        d2_program_free(p);
        d2_program_free(q);
        d2_program_free(c);
        free(text);
    }
    free_list(names, n);
}

/* Needs the inference functions of the ops the goldens use. */
static void test_golden_verify(void **state)
{
    (void)state;
    int n, failed = 0;
    char **names = list_progs(GOLDEN "/valid", &n);
    for (int i = 0; i < n; i++) {
        char *text = tu_read_file(golden_path("valid", names[i]), NULL);
        d2_program *p = parse_ok(text, names[i]);
        d2_err err = {0};
        if (d2_program_verify(p, &err) < 0) {
            fprintf(stderr, "%s: %s\n", names[i], err.msg);
            failed++;
        }
        d2_program_free(p);
        free(text);
    }
    free_list(names, n);
    assert_int_equal(failed, 0);
}

static void test_golden_parse_errors(void **state)
{
    (void)state;
    int n;
    char **names = list_progs(GOLDEN "/parse_errors", &n);
    assert_true(n >= 30);
    for (int i = 0; i < n; i++) {
        char *text = tu_read_file(golden_path("parse_errors", names[i]), NULL);
        char want[1024];
        assert_true(header_error(text, want, sizeof want));
        d2_err err = {0};
        d2_program *p = d2_program_parse(text, names[i], &err);
        if (p || strcmp(err.msg, want) != 0)
            fprintf(stderr, "%s:\n  got  %s\n  want %s\n", names[i], p ? "(parsed)" : err.msg,
                    want);
        assert_null(p);
        assert_int_equal(err.code, D2_ERR_PARSE);
        assert_string_equal(err.msg, want);
        free(text);
    }
    free_list(names, n);
}

/* Some of these need inference functions (see each file's header). */
static void test_golden_verify_errors(void **state)
{
    (void)state;
    int n, failed = 0;
    char **names = list_progs(GOLDEN "/verify_errors", &n);
    assert_true(n >= 10);
    for (int i = 0; i < n; i++) {
        char *text = tu_read_file(golden_path("verify_errors", names[i]), NULL);
        char want[1024];
        assert_true(header_error(text, want, sizeof want));
        d2_program *p = parse_ok(text, names[i]);
        d2_err err = {0};
        int rc = d2_program_verify(p, &err);
        if (rc == 0 || !strstr(err.msg, want)) {
            fprintf(stderr, "%s:\n  got  %s\n  want %s\n", names[i], rc ? err.msg : "(verified)",
                    want);
            failed++;
        }
        d2_program_free(p);
        free(text);
    }
    free_list(names, n);
    assert_int_equal(failed, 0);
}

/* ---- printer on built programs, parser on non-canonical text ---- */

static void test_print_built_program(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_program *p = d2_program_new(&err);
    assert_non_null(p);
    float wd[4] = {1, 2.5f, -3, 0.1f};
    int64_t ws[2] = {2, 2};
    d2_tensor *wt = d2_tensor_from_data(D2_F32, 2, ws, wd, &err);
    int w = d2_program_add_param(p, "w", wt, NULL, &err);
    d2_tensor_unref(wt);
    d2_type bt = {D2_VALUE_TENSOR, D2_F32, {1, {2}}};
    int bv = d2_program_add_param(p, "b", NULL, &bt, &err);
    d2_type xt = {D2_VALUE_TENSOR, D2_F32, {2, {-1, 2}}};
    d2_type nt = {D2_VALUE_TENSOR, D2_I64, {0, {0}}};
    int x = d2_program_add_var(p, 0, "x", &xt, &err);
    int nv = d2_program_add_var(p, 0, "n", &nt, &err);
    assert_true(w >= 0 && bv >= 0 && x >= 0 && nv >= 0);
    assert_int_equal(d2_block_add_param(p, 0, x, &err), 0);
    assert_int_equal(d2_block_add_param(p, 0, nv, &err), 0);
    int y = d2_program_add_var(p, 0, "y", &xt, &err);
    const d2_opdef *mm = d2_op_def(D2_OP_matmul);
    d2_attrs a;
    d2_attrs_init_default(mm, &a);
    assert_int_equal(d2_attr_set_bool(mm, &a, "transpose_y", true), 0);
    int in[2] = {x, w};
    assert_int_equal(d2_block_add_op(p, 0, D2_OP_matmul, in, 2, &y, 1, &a, &err), 0);
    d2_attrs_free(&a);
    int op = d2_block_add_op(p, 0, D2_OP_print, &y, 1, NULL, 0, NULL, &err);
    assert_int_equal(op, 1);
    p->blocks[0].ops[1].line = 7;
    p->blocks[0].ops[1].col = 3;
    assert_int_equal(d2_block_add_yield(p, 0, y, &err), 0);
    assert_int_equal(d2_block_add_yield(p, 0, nv, &err), 0);

    const char *body = "block ^0 (x : float32[-1,2], n : int64[]) {\n"
                       "  y : float32[-1,2] = matmul(x, w) {transpose_x = false, transpose_y = "
                       "true}\n"
                       "  print(y) {message = \"\", summarize = 20, style = \"op\", end = \"\\n\", stop_gradient = true} loc(7:3)\n"
                       "  return y, n\n"
                       "}\n";
    char want[1024];
    snprintf(want, sizeof want,
             "param w : float32[2,2] = [1, 2.5, -3, 0.1]\nparam b : float32[2]\n\n%s", body);
    char *s = d2_program_print(p, true);
    assert_string_equal(s, want);
    d2_free(s);
    snprintf(want, sizeof want, "param w : float32[2,2]\nparam b : float32[2]\n\n%s", body);
    s = d2_program_print(p, false);
    assert_string_equal(s, want);
    d2_free(s);
    d2_program_free(p);

    /* an empty program */
    p = d2_program_new(&err);
    s = d2_program_print(p, true);
    assert_string_equal(s, "block ^0 () {\n  return\n}\n");
    d2_program *q = parse_ok(s, "empty");
    assert_int_equal(q->n_blocks, 1);
    assert_int_equal(q->n_vars, 0);
    d2_free(s);
    d2_program_free(p);
    d2_program_free(q);
}

static void test_parse_noncanonical(void **state)
{
    (void)state;
    /* comments, free spacing, CRLF, dtype aliases, attribute subsets in any
     * order, empty attribute braces, data over several lines, 0/1 bools */
    check_prints_as("# leading comment\n"
                    "\n"
                    "param w:f32[2, 2] = [ 1,\r\n"
                    "   # a comment inside the data\n"
                    "  2, 3,\n"
                    "  4 ]   # trailing comment\n"
                    "param m : bool[2] = [1, 0]\n"
                    "block ^0 ( x : float[ -1 , 2 ] ) {   \r\n"
                    "\ty:float32[-1,2]=matmul(x,w){transpose_y=true,transpose_x=false}  # c\n"
                    "  c : float32[-1, 2] = concat(y, y) {  }\n"
                    "  d : int64[] = cast(m) {dtype = i64}\n"
                    "\n"
                    "  return y , c,d\n"
                    "}",
                    "param w : float32[2,2] = [1, 2, 3, 4]\n"
                    "param m : bool[2] = [true, false]\n"
                    "\n"
                    "block ^0 (x : float32[-1,2]) {\n"
                    "  y : float32[-1,2] = matmul(x, w) {transpose_x = false, transpose_y = "
                    "true}\n"
                    "  c : float32[-1,2] = concat(y, y) {axis = 0}\n"
                    "  d : int64[] = cast(m) {dtype = int64}\n"
                    "  return y, c, d\n"
                    "}\n");
    /* params may follow blocks; the printer puts them first */
    check_prints_as("block ^0 () {\n  return\n}\nparam late : int32[1] = [7]\n",
                    "param late : int32[1] = [7]\n\nblock ^0 () {\n  return\n}\n");
}

static void test_parse_errors_inline(void **state)
{
    (void)state;
    expect_parse_error("", "t.prog:1:1: error: the program has no block ^0");
    expect_parse_error("block", "t.prog:1:6: error: expected a block reference '^N', found end "
                                "of input");
    expect_parse_error("block ^0 () {\n  y : float32[] = add(x, x)\n  return\n}\n",
                       "t.prog:2:23: error: undefined variable 'x'");
    expect_parse_error("block ^0 () {\n  return\n}\nblock ^1 parent ^1 () {\n  yield\n}\n",
                       "t.prog:4:17: error: parent ^1 must be defined before block ^1");
    expect_parse_error("param w : float32[3] = [1, nan, x]\nblock ^0 () {\n  return\n}\n",
                       "t.prog:1:33: error: 'x' is not a valid float32 value");
    expect_parse_error("param w : bool[1] = [2]\nblock ^0 () {\n  return\n}\n",
                       "t.prog:1:22: error: '2' is not a valid bool value");
    expect_parse_error("param w : array<float32[2]> = []\nblock ^0 () {\n  return\n}\n",
                       "t.prog:1:7: error: a tensor array parameter cannot carry data");
    expect_parse_error("block ^0 (x : float32[99999999999999999999]) {\n  return\n}\n",
                       "t.prog:1:23: error: integer is too large");
    expect_parse_error("block ^0 (x : float32[2]) {\n  y : float32[2] = add(x, x) loc(0:1)\n"
                       "  return y\n}\n",
                       "t.prog:2:20: error: bad source position 0:1");
    expect_parse_error("block ^0 (\"\" : float32[2]) {\n  return\n}\n",
                       "t.prog:1:11: error: empty variable name");
    expect_parse_error("block ^0 (x : float32[2]) {\n  y : float32[2] = add(x, x) {axis = 1}\n"
                       "  return y\n}\n",
                       "t.prog:2:31: error: op add has no attribute 'axis'");
    expect_parse_error("\x01", "t.prog:1:1: error: expected 'param' or 'block', found byte 0x01");
}

/* ---- parameter data: bit-exact floats ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Prints a parameter with the given raw data and parses it back; returns
 * the new tensor (caller unrefs). */
static d2_tensor *round_trip_data(d2_dtype dt, int64_t n, const void *data)
{
    d2_err err = {0};
    d2_program *p = d2_program_new(&err);
    d2_tensor *t = d2_tensor_from_data(dt, 1, &n, data, &err);
    assert_non_null(t);
    assert_true(d2_program_add_param(p, "w", t, NULL, &err) >= 0);
    d2_tensor_unref(t);
    char *s = d2_program_print(p, true);
    assert_non_null(s);
    d2_program *q = parse_ok(s, "data");
    int v = d2_program_find_var(q, "w");
    assert_true(v >= 0);
    d2_tensor *r = d2_tensor_ref(q->vars[v].data);
    assert_non_null(r);
    char *s2 = d2_program_print(q, true);
    assert_string_equal(s, s2);
    d2_free(s);
    d2_free(s2);
    d2_program_free(p);
    d2_program_free(q);
    return r;
}

static void test_data_bit_exact(void **state)
{
    (void)state;
    enum { N = 4000 };
    uint32_t *f32 = malloc(N * sizeof *f32);
    uint64_t *f64 = malloc(N * sizeof *f64);
    for (int i = 0; i < N; i++) {
        do
            f32[i] = (uint32_t)rng();
        while ((f32[i] & 0x7f800000u) == 0x7f800000u && (f32[i] & 0x7fffffu)); /* no NaNs */
        do
            f64[i] = rng();
        while ((f64[i] & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
               (f64[i] & 0xfffffffffffffull));
    }
    f32[0] = 0x00000001u; /* smallest subnormal */
    f32[1] = 0x80000000u; /* -0 */
    f32[2] = 0x7f7fffffu; /* max */
    f64[0] = 1;
    f64[1] = 0x7fefffffffffffffull;
    d2_tensor *r = round_trip_data(D2_F32, N, f32);
    assert_memory_equal(d2_tensor_data(r), f32, N * sizeof *f32);
    d2_tensor_unref(r);
    r = round_trip_data(D2_F64, N, f64);
    assert_memory_equal(d2_tensor_data(r), f64, N * sizeof *f64);
    d2_tensor_unref(r);
    free(f32);
    free(f64);

    /* every non-NaN float16 and bfloat16 bit pattern */
    uint16_t *h = malloc(65536 * sizeof *h);
    int n = 0;
    for (uint32_t b = 0; b < 65536; b++)
        if (!((b & 0x7c00) == 0x7c00 && (b & 0x3ff)))
            h[n++] = (uint16_t)b;
    r = round_trip_data(D2_F16, n, h);
    assert_memory_equal(d2_tensor_data(r), h, (size_t)n * sizeof *h);
    d2_tensor_unref(r);
    n = 0;
    for (uint32_t b = 0; b < 65536; b++)
        if (!((b & 0x7f80) == 0x7f80 && (b & 0x7f)))
            h[n++] = (uint16_t)b;
    r = round_trip_data(D2_BF16, n, h);
    assert_memory_equal(d2_tensor_data(r), h, (size_t)n * sizeof *h);
    d2_tensor_unref(r);
    free(h);

    /* integers at their limits */
    int64_t i64[3] = {INT64_MIN, -1, INT64_MAX};
    r = round_trip_data(D2_I64, 3, i64);
    assert_memory_equal(d2_tensor_data(r), i64, sizeof i64);
    d2_tensor_unref(r);
    int8_t i8[4] = {INT8_MIN, -1, 0, INT8_MAX};
    r = round_trip_data(D2_I8, 4, i8);
    assert_memory_equal(d2_tensor_data(r), i8, sizeof i8);
    d2_tensor_unref(r);
    int16_t i16[3] = {INT16_MIN, -7, INT16_MAX};
    r = round_trip_data(D2_I16, 3, i16);
    assert_memory_equal(d2_tensor_data(r), i16, sizeof i16);
    d2_tensor_unref(r);
    uint8_t u8[3] = {0, 128, UINT8_MAX};
    r = round_trip_data(D2_U8, 3, u8);
    assert_memory_equal(d2_tensor_data(r), u8, sizeof u8);
    d2_tensor_unref(r);
    /* values outside the small integer dtypes are parse errors */
    expect_parse_error("param w : int8[] = [128]\nblock ^0 () {\n  return\n}\n",
                       "t.prog:1:21: error: value 128 is out of range for int8");
    expect_parse_error("param w : uint8[] = [-1]\nblock ^0 () {\n  return\n}\n",
                       "t.prog:1:22: error: value -1 is out of range for uint8");
}

/* Decimal text to float16/bfloat16 bits, against IEEE 754 values. */
static void test_half_conversion(void **state)
{
    (void)state;
    static const struct {
        const char *dtype, *text;
        uint16_t bits;
    } cases[] = {
        {"float16", "1", 0x3c00},
        {"float16", "65504", 0x7bff},          /* largest finite */
        {"float16", "65520", 0x7c00},          /* halfway to 2^16: rounds to inf */
        {"float16", "1.00048828125", 0x3c00},  /* 1 + 2^-11: tie, to even */
        {"float16", "1.00146484375", 0x3c02},  /* 1 + 3*2^-11: tie, to even */
        {"float16", "6e-08", 0x0001},          /* smallest subnormal 2^-24 */
        {"float16", "2.98023223876953125e-08", 0x0000}, /* 2^-25: tie, to even (zero) */
        {"float16", "-2", 0xc000},
        {"float16", "6.103515625e-05", 0x0400}, /* smallest normal 2^-14 */
        {"float16", "-inf", 0xfc00},
        {"bfloat16", "1.00390625", 0x3f80},    /* 1 + 2^-8: tie, to even */
        {"bfloat16", "1.01171875", 0x3f82},    /* 1 + 3*2^-8: tie, to even */
        {"bfloat16", "-2.5", 0xc020},
    };
    for (size_t i = 0; i < D2_COUNTOF(cases); i++) {
        char text[256];
        snprintf(text, sizeof text, "param w : %s[] = [%s]\nblock ^0 () {\n  return\n}\n",
                 cases[i].dtype, cases[i].text);
        d2_program *p = parse_ok(text, "half");
        uint16_t got;
        memcpy(&got, d2_tensor_data(p->vars[0].data), 2);
        if (got != cases[i].bits)
            fprintf(stderr, "%s %s: got 0x%04x want 0x%04x\n", cases[i].dtype, cases[i].text,
                    got, cases[i].bits);
        assert_int_equal(got, cases[i].bits);
        d2_program_free(p);
    }
}

/* ---- verifier on programs built in code ---- */

/* block ^0 (x : float32[3]) { y = assign(x); return y } plus a parameter w. */
static d2_program *small_program(int *x, int *y, int *w)
{
    d2_err err = {0};
    d2_program *p = d2_program_new(&err);
    d2_type t = {D2_VALUE_TENSOR, D2_F32, {1, {3}}};
    *w = d2_program_add_param(p, "w", NULL, &t, &err);
    *x = d2_program_add_var(p, 0, "x", &t, &err);
    *y = d2_program_add_var(p, 0, "y", &t, &err);
    assert_int_equal(d2_block_add_param(p, 0, *x, &err), 0);
    assert_int_equal(d2_block_add_op(p, 0, D2_OP_assign, x, 1, y, 1, NULL, &err), 0);
    assert_int_equal(d2_block_add_yield(p, 0, *y, &err), 0);
    d2_err verr = {0};
    assert_int_equal(d2_program_verify(p, &verr), 0);
    return p;
}

static void test_verify_built(void **state)
{
    (void)state;
    d2_err err = {0};
    int x, y, w;
    d2_program *p = small_program(&x, &y, &w);
    p->blocks[0].ops[0].in[0] = 99;
    expect_verify_error(p, "block ^0, op 0 (assign): input 0 refers to no variable (99)");
    d2_program_free(p);

    p = small_program(&x, &y, &w);
    assert_int_equal(d2_block_add_op(p, 0, D2_OP_assign, &x, 1, &y, 1, NULL, &err), 1);
    expect_verify_error(p, "block ^0, op 1 (assign): output 'y' is already defined by op 0 "
                           "(assign) of block ^0");
    d2_program_free(p);

    p = small_program(&x, &y, &w);
    assert_int_equal(d2_block_add_op(p, 0, D2_OP_assign, &x, 1, &w, 1, NULL, &err), 1);
    expect_verify_error(p, "block ^0, op 1 (assign): output 'w' is already defined as a "
                           "parameter");
    d2_program_free(p);

    p = small_program(&x, &y, &w);
    assert_int_equal(d2_block_add_param(p, 0, w, &err), 0);
    expect_verify_error(p, "block ^0: parameter 'w' is already defined as a parameter");
    d2_program_free(p);

    p = small_program(&x, &y, &w);
    p->blocks[0].parent = 0;
    expect_verify_error(p, "block ^0 must not have a parent");
    d2_program_free(p);

    p = small_program(&x, &y, &w);
    int in2[2] = {x, x};
    assert_int_equal(d2_block_add_op(p, 0, D2_OP_assign, in2, 2, &w, 0, NULL, &err), 1);
    expect_verify_error(p, "block ^0, op 1 (assign): op assign takes 1 input (x), got 2");
    d2_program_free(p);

    /* attribute count and type */
    p = small_program(&x, &y, &w);
    d2_type t6 = {D2_VALUE_TENSOR, D2_F32, {1, {6}}};
    int c = d2_program_add_var(p, 0, "c", &t6, &err);
    assert_int_equal(d2_block_add_op(p, 0, D2_OP_concat, in2, 2, &c, 1, NULL, &err), 1);
    p->blocks[0].ops[1].attrs.v[0].type = D2_ATTR_FLOAT;
    expect_verify_error(p, "block ^0, op 1 (concat): attribute 'axis' is float, expected int");
    p->blocks[0].ops[1].attrs.v[0].type = D2_ATTR_INT;
    p->blocks[0].ops[1].attrs.n = 0;
    expect_verify_error(p, "block ^0, op 1 (concat): expected 1 attributes, got 0");
    p->blocks[0].ops[1].attrs.n = 1;
    d2_program_free(p);

    /* a returned variable nothing defines */
    p = small_program(&x, &y, &w);
    d2_type t3 = {D2_VALUE_TENSOR, D2_F32, {1, {3}}};
    int orphan = d2_program_add_var(p, 0, "orphan", &t3, &err);
    assert_int_equal(d2_block_add_yield(p, 0, orphan, &err), 0);
    expect_verify_error(p, "block ^0: returned value 'orphan' is not defined by any op or block");
    d2_program_free(p);

    /* a variable recorded in another block than the one defining it */
    p = small_program(&x, &y, &w);
    int b1 = d2_program_add_block(p, 0, &err);
    int z = d2_program_add_var(p, b1, "z", &t3, &err);
    assert_int_equal(d2_block_add_op(p, 0, D2_OP_assign, &x, 1, &z, 1, NULL, &err), 1);
    expect_verify_error(p, "block ^0, op 1 (assign): output 'z' records block ^1 but is defined "
                           "in block ^0");
    d2_program_free(p);

    /* a sub-block nobody uses */
    p = small_program(&x, &y, &w);
    assert_int_equal(d2_program_add_block(p, 0, &err), 1);
    expect_verify_error(p, "block ^1 is not used by any control op");
    d2_program_free(p);

    /* parameter data that does not match the declared type */
    p = small_program(&x, &y, &w);
    float d[2] = {1, 2};
    int64_t two = 2;
    d2_tensor *dt = d2_tensor_from_data(D2_F32, 1, &two, d, &err);
    p->vars[w].data = dt;
    expect_verify_error(p, "parameter 'w': its data does not match its type float32[3]");
    d2_program_free(p);

    /* the static-mode builder path gives programs that verify */
    p = small_program(&x, &y, &w);
    int in_xy[2] = {x, y}, sum;
    assert_int_equal(d2_block_append_inferred(p, 0, D2_OP_add, in_xy, 2, NULL, 1, &sum, &err), 1);
    d2_err verr = {0};
    assert_int_equal(d2_program_verify(p, &verr), 0);
    d2_program_free(p);

    /* an invalid variable type */
    p = small_program(&x, &y, &w);
    p->vars[y].type.shape.dims[0] = -7;
    expect_verify_error(p, "variable 'y' has an invalid type");
    d2_program_free(p);
}

/* ---- DOT ---- */

static void check_braces(const char *s)
{
    int depth = 0;
    bool in_str = false;
    for (const char *q = s; *q; q++) {
        if (*q == '\\' && q[1]) {
            q++;
            continue;
        }
        if (*q == '"')
            in_str = !in_str;
        else if (!in_str && *q == '{')
            depth++;
        else if (!in_str && *q == '}')
            assert_true(--depth >= 0);
    }
    assert_false(in_str);
    assert_int_equal(depth, 0);
}

/* Brace depth (outside strings) at position at of s. */
static int depth_at(const char *s, const char *at)
{
    int depth = 0;
    bool in_str = false;
    for (const char *q = s; q < at; q++) {
        if (*q == '\\' && q[1]) {
            q++;
            continue;
        }
        if (*q == '"')
            in_str = !in_str;
        else if (!in_str && *q == '{')
            depth++;
        else if (!in_str && *q == '}')
            depth--;
    }
    return depth;
}

static d2_program *parse_golden(const char *name)
{
    char *text = tu_read_file(golden_path("valid", name), NULL);
    assert_non_null(text);
    d2_program *p = parse_ok(text, name);
    free(text);
    return p;
}

static void assert_contains(const char *s, const char *needle)
{
    if (!strstr(s, needle))
        fprintf(stderr, "missing: %s\n", needle);
    assert_non_null(strstr(s, needle));
}

static void test_dot(void **state)
{
    (void)state;
    d2_program *p = parse_golden("while_loop.prog");
    char *s = d2_program_dot(p);
    assert_non_null(s);
    check_braces(s);
    char want[256];
    assert_true(strncmp(s, "digraph program {\n", 18) == 0);
    assert_contains(s, "op0_0 [label=\"matmul\"];");
    assert_contains(s, "op0_1 [label=\"while_loop\\ncond=^1\\nbody=^2\"];");
    assert_contains(s, "op0_2 [label=\"print\\nmessage=\\\"r\\\"\"];");
    snprintf(want, sizeof want,
             "v%d [label=\"fc.w\\nfloat32[784,10]\", shape=ellipse, style=filled",
             d2_program_find_var(p, "fc.w"));
    assert_contains(s, want);
    snprintf(want, sizeof want, "v%d -> op0_0 [label=\"x : float32[-1,784]\"];",
             d2_program_find_var(p, "x"));
    assert_contains(s, want);
    snprintf(want, sizeof want, "v%d -> op1_0 [label=\"ten : int64[]\"];",
             d2_program_find_var(p, "ten"));
    assert_contains(s, want);
    assert_contains(s, "op0_0 -> op0_1 [label=\"h : float32[-1,10]\"];");
    assert_contains(s, "op0_0 -> op2_0 [label=\"h : float32[-1,10]\"];"); /* capture */
    assert_contains(s, "op0_1 -> y0 [label=\"r : float32[-1,10]\"];");
    assert_contains(s, "op0_1 -> y0 [label=\"i : int64[]\"];");
    assert_contains(s, "op1_0 -> y1 [label=\"t : bool[]\"];");
    assert_contains(s, "op0_1 -> y1 [lhead=cluster_1, style=dashed, label=\"cond\"];");
    assert_contains(s, "op0_1 -> y2 [lhead=cluster_2, style=dashed, label=\"body\"];");
    /* the sub-blocks' nodes sit inside their clusters */
    const char *c1 = strstr(s, "subgraph cluster_1 {"), *c2 = strstr(s, "subgraph cluster_2 {");
    assert_non_null(c1);
    assert_non_null(c2);
    const char *n1 = strstr(s, "op1_0 [label=\"less_than\"]");
    const char *n2 = strstr(s, "op2_1 [label=\"add\"]");
    assert_true(n1 && c1 < n1 && n1 < c2);
    assert_true(n2 && c2 < n2);
    assert_int_equal(depth_at(s, n1), 2);
    assert_int_equal(depth_at(s, strstr(s, "op0_0 [")), 1);
    d2_free(s);
    d2_program_free(p);

    /* nested clusters: the loop's blocks sit inside the then block's cluster */
    p = parse_golden("nested.prog");
    s = d2_program_dot(p);
    check_braces(s);
    const char *c3 = strstr(s, "subgraph cluster_3 {");
    assert_non_null(c3);
    assert_int_equal(depth_at(s, c3), 2);
    assert_int_equal(depth_at(s, strstr(s, "op4_0 [")), 3);
    snprintf(want, sizeof want, "v%d -> op4_0 [label=\"x : float32[4]\"];",
             d2_program_find_var(p, "x"));
    assert_contains(s, want);
    d2_free(s);
    d2_program_free(p);

    /* names with quotes are escaped */
    p = parse_golden("names.prog");
    s = d2_program_dot(p);
    check_braces(s);
    assert_contains(s, "op0_1 -> op0_2 [label=\"a\\\"b : float32[2]\"];");
    d2_free(s);
    d2_program_free(p);
}

/* ---- robustness: fuzzing and out-of-memory ---- */

/* Parses text; either it fails cleanly with a positioned parse error, or the
 * printed result parses and prints identically. Verify and DOT must not crash. */
static void fuzz_one(const char *text)
{
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, "fuzz", &err);
    if (!p) {
        assert_int_equal(err.code, D2_ERR_PARSE);
        assert_true(strncmp(err.msg, "fuzz:", 5) == 0);
        assert_non_null(strstr(err.msg, ": error: "));
        return;
    }
    char *s = d2_program_print(p, true);
    assert_non_null(s);
    d2_err e2 = {0};
    d2_program *q = d2_program_parse(s, "reparse", &e2);
    if (!q)
        fprintf(stderr, "printed form does not parse: %s\n%s", e2.msg, s);
    assert_non_null(q);
    char *s2 = d2_program_print(q, true);
    assert_string_equal(s, s2);
    d2_err e3 = {0};
    (void)d2_program_verify(p, &e3);
    char *dot = d2_program_dot(p);
    assert_non_null(dot);
    check_braces(dot);
    d2_free(dot);
    d2_free(s);
    d2_free(s2);
    d2_program_free(p);
    d2_program_free(q);
}

static void test_fuzz(void **state)
{
    (void)state;
    static const char *tokens[] = {"(", ")", "{", "}", "^", "^1", "_", ",", ":", "=", "\n", "\"",
                                   "[", "]", "<", ">", "-1", "#", "block", "param", "return",
                                   "yield", "parent", "loc(1:2)", "float32[2]", "array<", "nan",
                                   "\\", "9999999999999999999999", "add", "cond", "\r"};
    int n;
    char **names = list_progs(GOLDEN "/valid", &n);
    rng_state = 12345;
    for (int i = 0; i < n; i++) {
        char *text = tu_read_file(golden_path("valid", names[i]), NULL);
        size_t len = strlen(text);
        char *buf = malloc(len * 2 + 64);
        /* every prefix */
        for (size_t k = 0; k <= len; k++) {
            memcpy(buf, text, k);
            buf[k] = 0;
            fuzz_one(buf);
        }
        /* random mutations */
        for (int m = 0; m < 400; m++) {
            memcpy(buf, text, len + 1);
            size_t cur = len;
            int edits = 1 + (int)(rng() % 3);
            for (int e = 0; e < edits && cur > 0; e++) {
                size_t pos = rng() % cur;
                switch (rng() % 4) {
                case 0: /* replace a byte (never by NUL) */
                    buf[pos] = (char)(1 + rng() % 255);
                    break;
                case 1: /* delete a run */
                {
                    size_t del = 1 + rng() % 8;
                    if (del > cur - pos)
                        del = cur - pos;
                    memmove(buf + pos, buf + pos + del, cur - pos - del + 1);
                    cur -= del;
                    break;
                }
                case 2: /* insert a token */
                {
                    const char *t = tokens[rng() % D2_COUNTOF(tokens)];
                    size_t tl = strlen(t);
                    if (cur + tl >= len * 2 + 63)
                        break;
                    memmove(buf + pos + tl, buf + pos, cur - pos + 1);
                    memcpy(buf + pos, t, tl);
                    cur += tl;
                    break;
                }
                default: /* swap two bytes */
                {
                    size_t o = rng() % cur;
                    char c = buf[pos];
                    buf[pos] = buf[o];
                    buf[o] = c;
                    break;
                }
                }
            }
            fuzz_one(buf);
        }
        free(buf);
        free(text);
    }
    free_list(names, n);
}

/* Fails the k-th allocation for every k: no crash, no leak, a NOMEM error. */
static void test_out_of_memory(void **state)
{
    (void)state;
    char *text = tu_read_file(golden_path("valid", "nested.prog"), NULL);
    char *mlp = tu_read_file(golden_path("valid", "mlp.prog"), NULL);
    const char *texts[2] = {text, mlp};
    for (int t = 0; t < 2; t++) {
        d2_program *ref = parse_ok(texts[t], "oom");
        char *want = d2_program_print(ref, true);
        bool done = false;
        for (long k = 0; !done && k < 100000; k++) {
            d2_err err = {0};
            d2_alloc_fail_after(k);
            d2_program *p = d2_program_parse(texts[t], "oom", &err);
            char *s = p ? d2_program_print(p, true) : NULL;
            char *dot = p ? d2_program_dot(p) : NULL;
            d2_err verr = {0};
            if (p) /* may fail for want of memory; must not crash or leak */
                (void)d2_program_verify(p, &verr);
            d2_alloc_fail_after(-1);
            if (!p)
                assert_int_equal(err.code, D2_ERR_NOMEM);
            if (s)
                assert_string_equal(s, want);
            done = p && s && dot;
            d2_free(s);
            d2_free(dot);
            d2_program_free(p);
        }
        assert_true(done);
        d2_free(want);
        d2_program_free(ref);
    }
    free(text);
    free(mlp);
}

/* Variable names are found through an index kept by add_var, rename_var
 * and clone: thousands of names (the index grows many times), generated
 * names skipping taken ones, renames moving a name, clones answering alike;
 * and running out of memory at every step leaves a consistent Program. */
static void test_var_name_index(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_program *p = d2_program_new(&err);
    assert_non_null(p);
    d2_type t;
    memset(&t, 0, sizeof t);
    t.kind = D2_VALUE_TENSOR;
    t.dtype = D2_F32;
    char nm[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(nm, sizeof nm, "v%d", i);
        assert_int_equal(d2_program_add_var(p, 0, nm, &t, &err), i);
    }
    assert_int_equal(d2_program_add_var(p, 0, "v17", &t, &err), -1);
    assert_int_equal(err.code, D2_ERR_INVALID);
    assert_int_equal(d2_program_add_var(p, 0, "t3000", &t, &err), 3000);
    int g = d2_program_add_var(p, 0, NULL, &t, &err); /* named after n_vars */
    assert_string_equal(p->vars[g].name, "t3001");
    assert_int_equal(d2_program_add_var(p, 0, "t3003", &t, &err), 3002);
    g = d2_program_add_var(p, 0, NULL, &t, &err); /* t3003 is taken */
    assert_string_equal(p->vars[g].name, "t3004");
    for (int i = 0; i < 3000; i += 7) {
        snprintf(nm, sizeof nm, "v%d", i);
        assert_int_equal(d2_program_find_var(p, nm), i);
    }
    assert_int_equal(d2_program_find_var(p, "v3000"), -1);
    assert_int_equal(d2_program_find_var(p, ""), -1);
    /* rename: the old name goes, the new one finds the var; a taken name is refused */
    assert_int_equal(d2_program_rename_var(p, 5, "output_0", &err), 0);
    assert_int_equal(d2_program_find_var(p, "output_0"), 5);
    assert_int_equal(d2_program_find_var(p, "v5"), -1);
    assert_int_equal(d2_program_rename_var(p, 6, "output_0", &err), 1);
    assert_string_equal(p->vars[6].name, "v6");
    assert_int_equal(d2_program_rename_var(p, 5, "output_0", &err), 0);
    assert_int_equal(d2_program_rename_var(p, 99999, "x", &err), -1);
    d2_program *q = d2_program_clone(p, &err);
    assert_non_null(q);
    assert_int_equal(d2_program_find_var(q, "output_0"), 5);
    assert_int_equal(d2_program_find_var(q, "v2999"), 2999);
    assert_int_equal(d2_program_add_var(q, 0, "v6", &t, &err), -1);
    d2_program_free(q);
    for (long k = 0; k < 64; k++) {
        d2_alloc_fail_after(k);
        int r = d2_program_rename_var(p, 7, "renamed", &err);
        int a = d2_program_add_var(p, 0, NULL, &t, &err);
        d2_program *c = d2_program_clone(p, &err);
        d2_alloc_fail_after(-1);
        assert_true(r == 0 || r == -1);
        assert_int_equal(d2_program_find_var(p, r == 0 ? "renamed" : "v7"), 7);
        if (a >= 0)
            assert_int_equal(d2_program_find_var(p, p->vars[a].name), a);
        if (c)
            assert_int_equal(d2_program_find_var(c, p->vars[7].name), 7);
        d2_program_free(c);
        assert_int_equal(d2_program_rename_var(p, 7, "v7", &err), 0);
    }
    d2_program_free(p);
}

int main(void)
{
    d2_err err = {0};
    if (d2_ops_init(&err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_round_trip),
        cmocka_unit_test(test_golden_parse_errors),
        cmocka_unit_test(test_golden_verify),
        cmocka_unit_test(test_golden_verify_errors),
        cmocka_unit_test(test_print_built_program),
        cmocka_unit_test(test_parse_noncanonical),
        cmocka_unit_test(test_parse_errors_inline),
        cmocka_unit_test(test_data_bit_exact),
        cmocka_unit_test(test_half_conversion),
        cmocka_unit_test(test_verify_built),
        cmocka_unit_test(test_dot),
        cmocka_unit_test(test_fuzz),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_var_name_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
