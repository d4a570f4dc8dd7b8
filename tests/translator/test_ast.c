/* test_ast.c - the front end: arena, diagnostics, CST to AST against CPython's dumps, errors, robustness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syntax/arena.h"
#include "syntax/ast.h"
#include "syntax/diag.h"
#include "../testutil.h"

#define GOLDEN_DIR D2_SRCDIR "/tests/golden/ast"
#define ERRORS_DIR GOLDEN_DIR "/errors"

/* ---- helpers ---- */

static int only_py(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 3 && strcmp(e->d_name + n - 3, ".py") == 0;
}

/* The sorted *.py names of dir; the caller frees with free_names. */
static int list_py(const char *dir, struct dirent ***names)
{
    int n = scandir(dir, names, only_py, alphasort);
    assert_true(n >= 0);
    return n;
}

static void free_names(struct dirent **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Parses src into a fresh arena and returns the printed AST (or the
 * rendered diagnostics when parsing fails) in a malloc'd string. */
static char *parse_and_print(const char *name, const char *src, size_t len, bool *ok)
{
    d2_arena *a = d2_arena_new();
    assert_non_null(a);
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_module *m = d2_ast_parse(a, name, src, len, &diag);
    d2_buf out;
    d2_buf_init(&out);
    if (m)
        d2_ast_print(&out, m);
    else
        d2_diag_render(&diag, &out);
    *ok = m != NULL;
    char *r = d2_buf_take(&out);
    d2_arena_delete(a);
    assert_non_null(r);
    return r;
}

/* ---- arena ---- */

static void test_arena_basics(void **state)
{
    (void)state;
    d2_arena *a = d2_arena_new();
    assert_non_null(a);
    assert_int_equal(d2_arena_used(a), 0);
    /* zeroed, aligned, spanning several chunks */
    for (int i = 0; i < 5000; i++) {
        size_t n = (size_t)(i % 97) + 1;
        unsigned char *p = d2_arena_alloc(a, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
        for (size_t k = 0; k < n; k++)
            assert_int_equal(p[k], 0);
        memset(p, 0xAB, n);
    }
    assert_true(d2_arena_used(a) >= 5000);
    /* a big block of its own */
    char *big = d2_arena_alloc(a, 1 << 20);
    assert_non_null(big);
    big[(1 << 20) - 1] = 1;
    /* the last allocation grows in place, an earlier one moves */
    char *p = d2_arena_alloc(a, 16);
    memcpy(p, "0123456789abcde", 16);
    char *q = d2_arena_realloc(a, p, 16, 64);
    assert_ptr_equal(p, q);
    assert_string_equal(q, "0123456789abcde");
    assert_int_equal(q[63], 0);
    char *other = d2_arena_alloc(a, 8);
    assert_non_null(other);
    char *moved = d2_arena_realloc(a, q, 64, 128);
    assert_ptr_not_equal(moved, q);
    assert_string_equal(moved, "0123456789abcde");
    /* strings */
    char *s = d2_arena_strndup(a, "a\0b", 3);
    assert_memory_equal(s, "a\0b", 4);
    assert_string_equal(d2_arena_printf(a, "%s-%d", "x", 42), "x-42");
    assert_false(d2_arena_oom(a));
    d2_arena_delete(a);
    d2_arena_delete(NULL);
}

static void test_arena_out_of_memory(void **state)
{
    (void)state;
    d2_alloc_fail_after(0);
    assert_null(d2_arena_new());
    d2_alloc_fail_after(-1);
    d2_arena *a = d2_arena_new();
    assert_non_null(a);
    assert_non_null(d2_arena_alloc(a, 10));
    d2_alloc_fail_after(0);
    assert_null(d2_arena_alloc(a, 1 << 20));
    d2_alloc_fail_after(-1);
    /* sticky: later requests fail although memory is available again */
    assert_true(d2_arena_oom(a));
    assert_null(d2_arena_alloc(a, 1));
    assert_null(d2_arena_strdup(a, "x"));
    d2_arena_delete(a);
}

/* ---- diagnostics ---- */

static char *render(d2_diag *d)
{
    d2_buf b;
    d2_buf_init(&b);
    d2_diag_render(d, &b);
    char *r = d2_buf_take(&b);
    assert_non_null(r);
    return r;
}

static void test_span_from_offsets(void **state)
{
    (void)state;
    const char *src = "ab\ncd\n\nxyz";
    d2_span s = d2_span_from_offsets(src, strlen(src), 4, 9);
    assert_int_equal(s.line, 2);
    assert_int_equal(s.col, 1);
    assert_int_equal(s.end_line, 4);
    assert_int_equal(s.end_col, 2);
    assert_int_equal(s.start, 4);
    assert_int_equal(s.end, 9);
    s = d2_span_from_offsets(src, strlen(src), 100, 100); /* clamped to the end */
    assert_int_equal(s.line, 4);
    assert_int_equal(s.col, 3);
    s = d2_span_from_offsets(src, strlen(src), 3, 3);
    assert_int_equal(s.line, 2);
    assert_int_equal(s.col, 0);
}

static void test_diag_render(void **state)
{
    (void)state;
    d2_arena *a = d2_arena_new();
    d2_diag d;
    d2_diag_init(&d, a);
    /* columns count characters: 'ö' and 'ß' are two bytes each */
    const char *src = "größe = 1\n\tif  x:\r\n    try:\nlast";
    size_t len = strlen(src);
    d2_diag_set_source(&d, "model.py", src, len);
    const char *eq = strchr(src, '=');
    d2_diag_add(&d, D2_DIAG_ERROR, d2_span_from_offsets(src, len, (size_t)(eq - src), (size_t)(eq - src) + 1),
                "bad %s", "assignment");
    const char *x = strchr(src, 'x');
    d2_diag_add(&d, D2_DIAG_WARNING, d2_span_from_offsets(src, len, (size_t)(x - src), (size_t)(x - src) + 1),
                "tab kept");
    const char *t = strstr(src, "try");
    /* a span running past the line end gets tildes up to the end of the line */
    d2_diag_add(&d, D2_DIAG_ERROR, d2_span_from_offsets(src, len, (size_t)(t - src), len),
                "'try' statement cannot be converted");
    d2_diag_add(&d, D2_DIAG_NOTE, d2_span_from_offsets(src, len, len, len), "at the end");
    d2_span unknown = {0};
    d2_diag_add(&d, D2_DIAG_NOTE, unknown, "no position");
    assert_int_equal(d.count, 5);
    assert_int_equal(d.nerrors, 2);
    assert_int_equal(d.nwarnings, 1);
    char *text = render(&d);
    assert_string_equal(text, "model.py:1:7: error: bad assignment\n"
                              "größe = 1\n"
                              "      ^\n"
                              "model.py:2:6: warning: tab kept\n"
                              "\tif  x:\n"
                              "\t    ^\n"
                              "model.py:3:5: error: 'try' statement cannot be converted\n"
                              "    try:\n"
                              "    ^~~~\n"
                              "model.py:4:5: note: at the end\n"
                              "last\n"
                              "    ^\n"
                              "model.py: note: no position\n");
    assert_int_equal(d.first->col, 7);
    assert_int_equal(d.first->span.col, 8); /* the byte column is kept too */
    free(text);
    d2_arena_delete(a);
}

static void test_diag_out_of_memory(void **state)
{
    (void)state;
    d2_arena *a = d2_arena_new();
    d2_diag d;
    d2_diag_init(&d, a);
    d2_diag_set_source(&d, "f.py", "x\n", 2);
    d2_alloc_fail_after(0);
    /* the chunk is full after this large block, so the item needs a new one */
    assert_null(d2_arena_alloc(a, 1 << 20));
    assert_null(d2_diag_add(&d, D2_DIAG_ERROR, d2_span_from_offsets("x\n", 2, 0, 1), "lost"));
    d2_alloc_fail_after(-1);
    assert_true(d.oom);
    assert_int_equal(d.nerrors, 1); /* still counted */
    d2_arena_delete(a);
}

/* ---- the AST: reflection, constructors, printer ---- */

static void test_kinds_and_fields(void **state)
{
    (void)state;
    for (int k = 0; k < D2_AST_KIND_COUNT; k++) {
        assert_string_not_equal(d2_ast_kind_name((d2_ast_kind)k), "?");
        size_t n;
        const d2_ast_field *f = d2_ast_fields((d2_ast_kind)k, &n);
        for (size_t i = 0; i < n; i++)
            assert_non_null(f[i].name);
    }
    size_t n;
    const d2_ast_field *f = d2_ast_fields(D2_AST_CALL, &n);
    assert_int_equal(n, 3);
    assert_string_equal(f[0].name, "func");
    assert_string_equal(f[2].name, "keywords");
    assert_string_equal(d2_ast_kind_name(D2_AST_ASYNC_FUNCTION_DEF), "AsyncFunctionDef");
    assert_string_equal(d2_ast_cmpop_name(D2_CMP_NOT_IN), "NotIn");
    assert_true(d2_ast_is_stmt(D2_AST_MATCH));
    assert_true(d2_ast_is_expr(D2_AST_SLICE));
    assert_true(d2_ast_is_pattern(D2_AST_MATCH_OR));
    assert_false(d2_ast_is_expr(D2_AST_ARG));
    assert_false(d2_ast_has_position(D2_AST_COMPREHENSION));
    assert_true(d2_ast_has_position(D2_AST_KEYWORD));
    assert_null(d2_ast_expr_new(NULL, D2_AST_PASS, (d2_span){0}));
}

static void test_constructors_and_printer(void **state)
{
    (void)state;
    d2_arena *a = d2_arena_new();
    d2_span sp = {1, 0, 1, 9, 0, 9};
    d2_ast_seq args = {0}, kws = {0}, targets = {0};
    assert_int_equal(d2_ast_seq_push(a, &args, d2_ast_name(a, "x", D2_CTX_LOAD, sp)), 0);
    assert_int_equal(d2_ast_seq_push(a, &kws, d2_ast_keyword_new(a, "k", d2_ast_const_float(a, 0.1, sp), sp)), 0);
    d2_ast_expr *call = d2_ast_call(a, d2_ast_attribute(a, d2_ast_name(a, "paddle", D2_CTX_LOAD, sp),
                                                       "mean", D2_CTX_LOAD, sp),
                                    args, kws, sp);
    d2_ast_seq_push(a, &targets, d2_ast_name(a, "y", D2_CTX_STORE, sp));
    d2_ast_stmt *s = d2_ast_assign(a, targets, call, sp);
    d2_buf out;
    d2_buf_init(&out);
    d2_ast_print(&out, s);
    assert_string_equal(out.data, "(Assign @1:0-1:9\n"
                                  "  targets=[\n"
                                  "    (Name @1:0-1:9 id=\"y\" ctx=Store)]\n"
                                  "  value=(Call @1:0-1:9\n"
                                  "    func=(Attribute @1:0-1:9\n"
                                  "      value=(Name @1:0-1:9 id=\"paddle\" ctx=Load)\n"
                                  "      attr=\"mean\"\n"
                                  "      ctx=Load)\n"
                                  "    args=[\n"
                                  "      (Name @1:0-1:9 id=\"x\" ctx=Load)]\n"
                                  "    keywords=[\n"
                                  "      (keyword @1:0-1:9\n"
                                  "        arg=\"k\"\n"
                                  "        value=(Constant @1:0-1:9 value=0.1 kind=None))]))");
    d2_buf_free(&out);
    d2_ast_print(&out, NULL);
    assert_string_equal(out.data, "None");
    d2_buf_free(&out);
    /* growing a list far beyond its first capacity */
    d2_ast_seq many = {0};
    for (int i = 0; i < 1000; i++)
        assert_int_equal(d2_ast_seq_push(a, &many, d2_ast_const_int(a, i, sp)), 0);
    assert_int_equal(many.n, 1000);
    assert_int_equal(((d2_ast_expr *)many.items[999])->constant.value.i, 999);
    d2_arena_delete(a);
}

/* The AST through the C API, for what the dump does not show directly. */
static void test_parse_api(void **state)
{
    (void)state;
    const char *src = "@dec\n"
                      "def f(x):\n"
                      "    return 0x1_0000_0000_0000_0000 < x <= \"a\\0b\"\n"
                      "y = f'{x!r:>4}' b'\\xff'\n";
    d2_arena *a = d2_arena_new();
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_module *m = d2_ast_parse(a, "api.py", src, strlen(src) - 4, &diag);
    assert_null(m); /* "b'\x" is unterminated */
    assert_int_equal(diag.nerrors, 1);
    m = d2_ast_parse(a, "api.py", src, strlen(src), &diag);
    assert_null(m); /* str and bytes do not concatenate */
    assert_string_equal(diag.last->message, "cannot mix bytes and nonbytes literals");
    src = "@dec\n"
          "def f(x):\n"
          "    return 0x1_0000_0000_0000_0000 < x <= \"a\\0b\"\n"
          "y = f'{x!r:>4}'\n";
    d2_diag_init(&diag, a);
    m = d2_ast_parse(a, "api.py", src, strlen(src), &diag);
    assert_non_null(m);
    assert_int_equal(diag.count, 0);
    assert_string_equal(m->filename, "api.py");
    assert_int_equal(m->source_len, strlen(src));
    assert_memory_equal(m->source, src, m->source_len);
    assert_int_equal(m->body.n, 2);
    d2_ast_stmt *def = m->body.items[0];
    assert_int_equal(def->kind, D2_AST_FUNCTION_DEF);
    assert_int_equal(def->span.line, 2); /* the def, not the decorator */
    assert_int_equal(def->span.end_line, 3);
    assert_int_equal(def->function_def.decorator_list.n, 1);
    d2_ast_stmt *ret = def->function_def.body.items[0];
    d2_ast_expr *cmp = ret->return_.value;
    assert_int_equal(cmp->kind, D2_AST_COMPARE);
    assert_int_equal(cmp->compare.comparators.n, 2);
    assert_int_equal(cmp->compare.ops[0], D2_CMP_LT);
    assert_int_equal(cmp->compare.ops[1], D2_CMP_LT_E);
    assert_int_equal(cmp->compare.left->constant.value.kind, D2_CONST_BIGINT);
    assert_string_equal(cmp->compare.left->constant.value.str.data, "18446744073709551616");
    d2_ast_expr *s = cmp->compare.comparators.items[1];
    assert_int_equal(s->constant.value.kind, D2_CONST_STR);
    assert_int_equal(s->constant.value.str.len, 3);
    assert_memory_equal(s->constant.value.str.data, "a\0b", 4);
    d2_ast_stmt *assign = m->body.items[1];
    d2_ast_expr *js = assign->assign.value;
    assert_int_equal(js->kind, D2_AST_JOINED_STR);
    d2_ast_expr *fv = js->joined_str.values.items[0];
    assert_int_equal(fv->formatted_value.conversion, 'r');
    assert_int_equal(fv->formatted_value.format_spec->kind, D2_AST_JOINED_STR);
    assert_int_equal(fv->formatted_value.value->span.col, 7);
    d2_arena_delete(a);
}

static void test_warnings_and_null_diag(void **state)
{
    (void)state;
    const char *src = "path = \"C:\\data\"\n";
    d2_arena *a = d2_arena_new();
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_module *m = d2_ast_parse(a, "w.py", src, strlen(src), &diag);
    assert_non_null(m);
    assert_int_equal(diag.nerrors, 0);
    assert_int_equal(diag.nwarnings, 1);
    char *text = render(&diag);
    assert_string_equal(text, "w.py:1:11: warning: invalid escape sequence '\\d'\n"
                              "path = \"C:\\data\"\n"
                              "          ^~\n");
    free(text);
    d2_ast_expr *v = ((d2_ast_stmt *)m->body.items[0])->assign.value;
    assert_string_equal(v->constant.value.str.data, "C:\\data");
    /* without a diag the result is the same, the messages go nowhere */
    assert_non_null(d2_ast_parse(a, NULL, src, strlen(src), NULL));
    assert_null(d2_ast_parse(a, NULL, "x = (", 5, NULL));
    assert_non_null(d2_ast_parse(a, NULL, NULL, 0, NULL));
    d2_arena_delete(a);
}

/* ---- goldens ---- */

/* Each tests/golden/ast/NAME.py parses and prints exactly as NAME.ast,
 * which tests/gen/gen_ast.py wrote from CPython's ast module. */
static void test_golden_ast(void **state)
{
    (void)state;
    struct dirent **names;
    int n = list_py(GOLDEN_DIR, &names);
    assert_true(n >= 9);
    int failures = 0;
    for (int i = 0; i < n; i++) {
        char path[1024];
        size_t len, wlen;
        snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, names[i]->d_name);
        char *src = tu_read_file(path, &len);
        assert_non_null(src);
        snprintf(path + strlen(path) - 3, 5, ".ast");
        char *want = tu_read_file(path, &wlen);
        assert_non_null(want);
        bool ok;
        char *got = parse_and_print(names[i]->d_name, src, len, &ok);
        if (!ok || strcmp(got, want) != 0) {
            failures++;
            if (!ok)
                fprintf(stderr, "%s: parse failed:\n%s", names[i]->d_name, got);
            else
                tu_show_diff(names[i]->d_name, got, want);
        }
        free(got);
        free(want);
        free(src);
    }
    free_names(names, n);
    assert_int_equal(failures, 0);
}

/* Each tests/golden/ast/errors/NAME.py is rejected with exactly the
 * diagnostics of NAME.err (position, message, source line and caret). */
static void test_golden_errors(void **state)
{
    (void)state;
    struct dirent **names;
    int n = list_py(ERRORS_DIR, &names);
    assert_true(n >= 40);
    int failures = 0;
    for (int i = 0; i < n; i++) {
        char path[1024];
        size_t len, wlen;
        snprintf(path, sizeof path, "%s/%s", ERRORS_DIR, names[i]->d_name);
        char *src = tu_read_file(path, &len);
        assert_non_null(src);
        snprintf(path + strlen(path) - 3, 5, ".err");
        char *want = tu_read_file(path, &wlen);
        assert_non_null(want);
        bool ok;
        char *got = parse_and_print(names[i]->d_name, src, len, &ok);
        if (ok || strcmp(got, want) != 0) {
            failures++;
            if (ok)
                fprintf(stderr, "%s: parsed without error\n", names[i]->d_name);
            else
                tu_show_diff(names[i]->d_name, got, want);
        }
        free(got);
        free(want);
        free(src);
    }
    free_names(names, n);
    assert_int_equal(failures, 0);
}

/* ---- robustness ---- */

/* Parses src and checks the contract: an AST, or NULL with at least one
 * error; both printable. */
static void parse_any(const char *src, size_t len)
{
    d2_arena *a = d2_arena_new();
    assert_non_null(a);
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_module *m = d2_ast_parse(a, "fuzz.py", src, len, &diag);
    assert_false(diag.oom);
    if (m)
        assert_int_equal(diag.nerrors, 0);
    else
        assert_true(diag.nerrors > 0);
    d2_buf out;
    d2_buf_init(&out);
    if (m)
        d2_ast_print(&out, m);
    d2_diag_render(&diag, &out);
    assert_false(out.oom);
    d2_buf_free(&out);
    d2_arena_delete(a);
}

/* The rendered diagnostics of parsing src as deep.py ("" when it parses); caller frees. */
static char *parse_diags(const char *src, size_t len)
{
    d2_arena *a = d2_arena_new();
    assert_non_null(a);
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_module *m = d2_ast_parse(a, "deep.py", src, len, &diag);
    assert_true(m ? diag.nerrors == 0 : diag.nerrors > 0);
    d2_buf out;
    d2_buf_init(&out);
    d2_diag_render(&diag, &out);
    d2_buf_append(&out, "", 1);
    char *r = strdup(out.data);
    d2_buf_free(&out);
    d2_arena_delete(a);
    return r;
}

/* The diagnostics of levels nested statements, even and odd alternating,
 * each indented one space more than the last, around a pass; caller frees. */
static char *nested_diags(size_t levels, const char *even, const char *odd)
{
    char *src = malloc(levels * (levels + strlen(even) + strlen(odd)) + 16);
    size_t len = 0;
    for (size_t i = 0; i <= levels; i++) {
        const char *line = i == levels ? "pass\n" : i % 2 ? odd : even;
        memset(src + len, ' ', i);
        len += i;
        memcpy(src + len, line, strlen(line));
        len += strlen(line);
    }
    char *got = parse_diags(src, len);
    free(src);
    return got;
}

static const char *const fuzz_seeds[] = {"statements.py", "quirks.py", "unicode.py",
                                         "paddle_model.py", "expressions.py"};

/* Every prefix of the first three seed files, every 5th of the others. */
static void test_prefixes(void **state)
{
    (void)state;
    for (size_t f = 0; f < D2_COUNTOF(fuzz_seeds); f++) {
        size_t step = f < 3 ? 1 : 5;
        char path[1024];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, fuzz_seeds[f]);
        char *src = tu_read_file(path, &len);
        assert_non_null(src);
        for (size_t n = 0; n <= len; n += step) {
            /* a private copy, so reading past n is caught by ASan */
            char *copy = malloc(n ? n : 1);
            memcpy(copy, src, n);
            parse_any(copy, n);
            free(copy);
        }
        free(src);
    }
}

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

/* Random byte mutations of the seed files (fixed seed, so repeatable). */
static void test_mutations(void **state)
{
    (void)state;
    static const char interesting[] = "()[]{}:;,.=+-*/\\'\"#\n\t @!~<>|&^%0aZ_";
    char *seeds[D2_COUNTOF(fuzz_seeds)];
    size_t lens[D2_COUNTOF(fuzz_seeds)];
    for (size_t f = 0; f < D2_COUNTOF(fuzz_seeds); f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, fuzz_seeds[f]);
        seeds[f] = tu_read_file(path, &lens[f]);
        assert_non_null(seeds[f]);
    }
    for (int round = 0; round < 3000; round++) {
        size_t f = rnd() % D2_COUNTOF(fuzz_seeds);
        size_t len = lens[f];
        char *buf = malloc(len + 64);
        memcpy(buf, seeds[f], len);
        int edits = 1 + (int)(rnd() % 4);
        for (int e = 0; e < edits && len > 0; e++) {
            size_t at = rnd() % len;
            switch (rnd() % 5) {
            case 0: buf[at] = interesting[rnd() % (sizeof interesting - 1)]; break;
            case 1: buf[at] = (char)(rnd() & 0xFF); break;
            case 2: /* delete a run */ {
                size_t k = 1 + rnd() % 8;
                if (at + k > len)
                    k = len - at;
                memmove(buf + at, buf + at + k, len - at - k);
                len -= k;
                break;
            }
            case 3: /* insert a byte */
                if (len < lens[f] + 60) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = interesting[rnd() % (sizeof interesting - 1)];
                    len++;
                }
                break;
            default: /* swap two bytes */ {
                size_t b = rnd() % len;
                char t = buf[at];
                buf[at] = buf[b];
                buf[b] = t;
                break;
            }
            }
        }
        parse_any(buf, len);
        free(buf);
    }
    for (size_t f = 0; f < D2_COUNTOF(fuzz_seeds); f++)
        free(seeds[f]);
}

/* Pathological shapes: too deep nesting is reported, long chains work. */
static void test_deep_and_long(void **state)
{
    (void)state;
    size_t n = 20000;
    char *src = malloc(4 * n + 16);
    /* 20000 nested parentheses and brackets */
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        src[len++] = i % 2 ? '(' : '[';
    src[len++] = '1';
    for (size_t i = n; i-- > 0;)
        src[len++] = i % 2 ? ')' : ']';
    parse_any(src, len);
    /* a 2500-term chain of operators converts without recursion and prints;
     * 20000 terms nest deeper than D2_AST_MAX_DEPTH */
    for (size_t terms = 2500; terms <= 20000; terms += 17500) {
        memcpy(src, "x = 1", 5);
        len = 5;
        for (size_t i = 0; i < terms; i++) {
            memcpy(src + len, i % 2 ? "+1" : "^1", 2);
            len += 2;
        }
        src[len++] = '\n';
        d2_arena *a = d2_arena_new();
        d2_ast_module *m = d2_ast_parse(a, "long.py", src, len, NULL);
        if (terms == 2500) {
            assert_non_null(m);
            d2_buf out;
            d2_buf_init(&out);
            d2_ast_print(&out, m);
            assert_false(out.oom);
            d2_buf_free(&out);
        } else {
            assert_null(m);
        }
        d2_arena_delete(a);
    }
    /* depth does not accumulate over statements: 3000 chained assignments
     * and if/elif chains in a row */
    len = 0;
    for (size_t i = 0; i < 3000 && len + 64 < 4 * n; i++) {
        memcpy(src + len, i % 2 ? "a = b = c = 1\n" : "if a: b\nelif c: d\nelif e: f\n",
               i % 2 ? 14 : 28);
        len += i % 2 ? 14 : 28;
    }
    d2_arena *a = d2_arena_new();
    assert_non_null(d2_ast_parse(a, "many.py", src, len, NULL));
    d2_arena_delete(a);
    free(src);
    /* nested if statements: 99 levels convert, 100 are refused with
     * CPython's message at the first line past the limit */
    for (size_t levels = 99; levels <= 100; levels++) {
        char *got = nested_diags(levels, "if x:\n", "if x:\n");
        if (levels == 99)
            assert_string_equal(got, "");
        else
            assert_string_equal(strtok(got, "\n"),
                                "deep.py:101:101: error: too many levels of indentation");
        free(got);
    }
    /* 20 nested loops convert, the 21st is refused as CPython does */
    for (size_t levels = 20; levels <= 21; levels++) {
        char *got = nested_diags(levels, "for a in b:\n", "while x:\n");
        if (levels == 20)
            assert_string_equal(got, "");
        else
            assert_string_equal(strtok(got, "\n"),
                                "deep.py:21:21: error: too many statically nested blocks");
        free(got);
    }
    /* a 4 MB one-line chain of operators is refused before it is parsed,
     * its diagnostic showing the line clipped around the position */
    n = 2000000;
    src = malloc(2 * n + 16);
    memcpy(src, "x = 1", 5);
    len = 5;
    for (size_t i = 0; i < n; i++) {
        memcpy(src + len, "+1", 2);
        len += 2;
    }
    src[len++] = '\n';
    char *got = parse_diags(src, len);
    assert_non_null(strstr(got, "deep.py:1:24006: error: expression nested too deeply\n...+1+1"));
    assert_true(strlen(got) < 1000);
    free(got);
    free(src);
}

/* Allocation failure at every point of a parse: never a crash or a leak;
 * NULL and an out-of-memory flag, or a complete AST. */
static void test_parse_out_of_memory(void **state)
{
    (void)state;
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/statements.py", GOLDEN_DIR);
    char *src = tu_read_file(path, &len);
    assert_non_null(src);
    bool completed = false;
    for (long k = 0; k < 10000 && !completed; k++) {
        d2_alloc_fail_after(k);
        d2_arena *a = d2_arena_new();
        if (!a) {
            d2_alloc_fail_after(-1);
            continue;
        }
        d2_diag diag;
        d2_diag_init(&diag, a);
        d2_ast_module *m = d2_ast_parse(a, "oom.py", src, len, &diag);
        bool failed = d2_arena_oom(a) || diag.oom;
        d2_alloc_fail_after(-1);
        if (m) {
            assert_false(failed);
            completed = true;
        } else {
            assert_true(failed);
        }
        d2_arena_delete(a);
    }
    assert_true(completed);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_basics),
        cmocka_unit_test(test_arena_out_of_memory),
        cmocka_unit_test(test_span_from_offsets),
        cmocka_unit_test(test_diag_render),
        cmocka_unit_test(test_diag_out_of_memory),
        cmocka_unit_test(test_kinds_and_fields),
        cmocka_unit_test(test_constructors_and_printer),
        cmocka_unit_test(test_parse_api),
        cmocka_unit_test(test_warnings_and_null_diag),
        cmocka_unit_test(test_golden_ast),
        cmocka_unit_test(test_golden_errors),
        cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_deep_and_long),
        cmocka_unit_test(test_parse_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
