/* test_transform.c - the unparser against CPython's ast.unparse, and the to_static transforms against golden converted sources. */
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
#include "transform/transform.h"
#include "syntax/unparse.h"
#include "../testutil.h"

#define UNPARSE_DIR D2_SRCDIR "/tests/golden/unparse"
#define TRANSFORM_DIR D2_SRCDIR "/tests/golden/transform"

/* ---- helpers ---- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int only_txt(const struct dirent *e) { return ends_with(e->d_name, ".txt"); }

static int only_input_py(const struct dirent *e)
{
    return ends_with(e->d_name, ".py") && !ends_with(e->d_name, ".converted.py");
}

/* Parses path into arena a; fails the test on a syntax error. */
static d2_ast_module *parse_file(d2_arena *a, const char *path, const char *name, char **src)
{
    size_t len = 0;
    *src = tu_read_file(path, &len);
    assert_non_null(*src);
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_module *m = d2_ast_parse(a, name, *src, len, &diag);
    if (!m) {
        d2_buf msg;
        d2_buf_init(&msg);
        d2_diag_render(&diag, &msg);
        fprintf(stderr, "%s: %s", path, msg.data ? msg.data : "out of memory\n");
        d2_buf_free(&msg);
    }
    assert_non_null(m);
    return m;
}

/* d2_unparse of a parsed module as the generator writes it: the text and,
 * when there is any, a final newline. Caller frees. */
static char *unparse_module(const d2_ast_module *m)
{
    d2_buf out;
    d2_buf_init(&out);
    d2_unparse(&out, m);
    if (out.len)
        d2_buf_puts(&out, "\n");
    char *r = d2_buf_take(&out);
    if (!r)
        r = strdup("");
    assert_non_null(r);
    return r;
}

/* ---- unparser ---- */

/* Every expected/<dir>/NAME.txt against d2_unparse of the corpus file it
 * was made from. */
static void test_unparse_golden(void **state)
{
    (void)state;
    static const struct {
        const char *tag, *dir;
    } dirs[] = {
        {"ast", D2_SRCDIR "/tests/golden/ast"},
        {"unparse", UNPARSE_DIR},
        {"transform", TRANSFORM_DIR},
        {"samples", D2_SRCDIR "/samples"},
    };
    int total = 0, failed = 0;
    for (size_t d = 0; d < D2_COUNTOF(dirs); d++) {
        char expdir[1024];
        snprintf(expdir, sizeof expdir, "%s/expected/%s", UNPARSE_DIR, dirs[d].tag);
        struct dirent **names;
        int n = scandir(expdir, &names, only_txt, alphasort);
        if (n < 0)
            continue;
        for (int i = 0; i < n; i++) {
            char name[512], path[1536], exp_path[1536];
            snprintf(name, sizeof name, "%.*s.py", (int)strlen(names[i]->d_name) - 4,
                     names[i]->d_name);
            snprintf(path, sizeof path, "%s/%s", dirs[d].dir, name);
            snprintf(exp_path, sizeof exp_path, "%s/%s", expdir, names[i]->d_name);
            FILE *probe = fopen(path, "rb");
            if (!probe) { /* the corpus file went away: its expectation is stale */
                fprintf(stderr, "unparse: %s is gone; rerun tests/gen/gen_unparse.py\n", path);
                free(names[i]);
                continue;
            }
            fclose(probe);
            size_t wlen = 0;
            char *want = tu_read_file(exp_path, &wlen);
            assert_non_null(want);
            d2_arena *a = d2_arena_new();
            assert_non_null(a);
            char *src;
            d2_ast_module *m = parse_file(a, path, name, &src);
            char *got = unparse_module(m);
            if (strcmp(got, want) != 0) {
                tu_show_diff(path, got, want);
                failed++;
            }
            total++;
            free(got);
            free(want);
            free(src);
            d2_arena_delete(a);
            free(names[i]);
        }
        free(names);
    }
    fprintf(stderr, "unparse: %d files, %d differ\n", total, failed);
    assert_true(total >= 20);
    assert_int_equal(failed, 0);
}

/* Expression snippets whose expected text is ast.unparse's (written here
 * by hand from CPython 3.11's output). */
static void test_unparse_nodes(void **state)
{
    (void)state;
    static const struct {
        const char *src, *want, *want_stmt; /* want_stmt: the statement alone, if different */
    } cases[] = {
        {"(a)", "a", NULL},
        {"x = yield", "x = (yield)", NULL},
        {"a, b", "(a, b)", NULL},
        {"return a, b", "return (a, b)", NULL},
        {"a and b and c > 1", "a and b and (c > 1)", NULL},
        {"f'{x!r:>{w}}'", "f'{x!r:>{w}}'", NULL},
        {"x = '\\x00\\u2028'", "x = '\\x00\\u2028'", NULL},
        {"'doc\\n'", "\"\"\"doc\n\"\"\"", "'doc\\n'"},
        {"1e400", "1e309", NULL},
        {"-1e400j", "-1e309j", NULL},
        {"0.1 + 1e22 + 1e-7", "0.1 + 1e+22 + 1e-07", NULL},
    };
    for (size_t i = 0; i < D2_COUNTOF(cases); i++) {
        d2_arena *a = d2_arena_new();
        d2_diag diag;
        d2_diag_init(&diag, a);
        d2_ast_module *m = d2_ast_parse(a, "t.py", cases[i].src, strlen(cases[i].src), &diag);
        assert_non_null(m);
        d2_buf out;
        d2_buf_init(&out);
        d2_buf_puts(&out, ">");
        d2_unparse(&out, m);
        if (strcmp(out.data + 1, cases[i].want) != 0)
            fprintf(stderr, "%s: got %s want %s\n", cases[i].src, out.data + 1, cases[i].want);
        assert_string_equal(out.data + 1, cases[i].want);
        /* the single statement on its own (a string is no docstring there) */
        const d2_ast_stmt *s = m->body.items[0];
        out.len = 0;
        d2_unparse(&out, s);
        assert_string_equal(out.data, cases[i].want_stmt ? cases[i].want_stmt : cases[i].want);
        d2_buf_free(&out);
        d2_arena_delete(a);
    }
    /* a body at an indentation level, as inside a def */
    {
        d2_arena *a = d2_arena_new();
        d2_diag diag;
        d2_diag_init(&diag, a);
        static const char src[] = "x = 1\nif x:\n    y = (1, 2)\n";
        d2_ast_module *m = d2_ast_parse(a, "t.py", src, strlen(src), &diag);
        assert_non_null(m);
        d2_buf out;
        d2_buf_init(&out);
        d2_unparse_body(&out, &m->body, 1);
        assert_string_equal(out.data, "    x = 1\n    if x:\n        y = (1, 2)");
        d2_buf_puts(&out, "|");
        d2_unparse_body(&out, &m->body, 0);
        assert_string_equal(out.data, "    x = 1\n    if x:\n        y = (1, 2)|x = 1\nif x:\n    y = (1, 2)");
        d2_buf_free(&out);
        d2_arena_delete(a);
    }
    /* printable: ASCII letters yes; controls, NBSP, ZWSP, unassigned no */
    assert_true(d2_unparse_printable('a'));
    assert_true(d2_unparse_printable(0x4E2D));
    assert_false(d2_unparse_printable(0x0A));
    assert_false(d2_unparse_printable(0xA0));
    assert_false(d2_unparse_printable(0x200B));
    assert_false(d2_unparse_printable(0x10FFFF));
    assert_false(d2_unparse_printable(0xD800));
}

/* Unparsing under allocation failure reports oom instead of crashing. */
static void test_unparse_out_of_memory(void **state)
{
    (void)state;
    char *src;
    d2_arena *a = d2_arena_new();
    d2_ast_module *m = parse_file(a, UNPARSE_DIR "/fstrings.py", "fstrings.py", &src);
    int oom_seen = 0;
    for (long k = 0; k < 400; k += 7) {
        d2_buf out;
        d2_buf_init(&out);
        d2_alloc_fail_after(k);
        d2_unparse(&out, m);
        d2_alloc_fail_after(-1);
        oom_seen += out.oom;
        d2_buf_free(&out);
    }
    assert_true(oom_seen > 0);
    free(src);
    d2_arena_delete(a);
}

/* ---- transforms ---- */

/* Converts the module at path as `dy2st convert` does; returns the output
 * and sets *diag_text to the rendered diagnostics (both malloc'd). */
static char *convert_file(const char *path, const char *name, const d2_xform_options *opt,
                          const char *select, d2_xform_status *st, char **diag_text)
{
    d2_arena *a = d2_arena_new();
    assert_non_null(a);
    char *src;
    d2_ast_module *m = parse_file(a, path, name, &src);
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_buf out;
    d2_buf_init(&out);
    *st = d2_xform_convert_module(a, m, select, &diag, opt, &out);
    d2_buf dt;
    d2_buf_init(&dt);
    d2_diag_render(&diag, &dt);
    *diag_text = d2_buf_take(&dt);
    if (!*diag_text)
        *diag_text = strdup("");
    char *r = d2_buf_take(&out);
    if (!r)
        r = strdup("");
    free(src);
    d2_arena_delete(a);
    return r;
}

/* The file's text, or "" when it does not exist. Caller frees. */
static char *read_or_empty(const char *path)
{
    size_t n;
    char *t = tu_read_file(path, &n);
    return t ? t : strdup("");
}

/* Every tests/golden/transform/NAME.py against NAME.converted.py (the
 * converted module) and NAME.diag (its diagnostics, absent when none). */
static void test_transform_golden(void **state)
{
    (void)state;
    struct dirent **names;
    int n = scandir(TRANSFORM_DIR, &names, only_input_py, alphasort);
    assert_true(n >= 8);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char path[1024], conv_path[1024], diag_path[1024];
        int stem = (int)strlen(name) - 3;
        snprintf(path, sizeof path, "%s/%s", TRANSFORM_DIR, name);
        snprintf(conv_path, sizeof conv_path, "%s/%.*s.converted.py", TRANSFORM_DIR, stem, name);
        snprintf(diag_path, sizeof diag_path, "%s/%.*s.diag", TRANSFORM_DIR, stem, name);
        d2_xform_status st;
        char *diag;
        char *got = convert_file(path, name, NULL, NULL, &st, &diag);
        char *want = read_or_empty(conv_path), *want_diag = read_or_empty(diag_path);
        if (strcmp(got, want) != 0) {
            tu_show_diff(conv_path, got, want);
            failed++;
        }
        if (strcmp(diag, want_diag) != 0) {
            tu_show_diff(diag_path, diag, want_diag);
            failed++;
        }
        /* warnings exactly when some function falls back */
        assert_int_equal(st, want_diag[0] ? D2_XFORM_FALLBACK : D2_XFORM_OK);
        free(got);
        free(want);
        free(diag);
        free(want_diag);
        free(names[i]);
    }
    free(names);
    assert_int_equal(failed, 0);
}

/* The sample models against tests/golden/transform/samples. */
static void test_transform_samples(void **state)
{
    (void)state;
    static const char *const samples[] = {"char_rnn", "greedy_decoder", "lenet_branch", "lstm_cell",
                                          "mnist_cnn", "resnet_small", "simple_fc",
                                          "transformer_encoder"};
    for (size_t i = 0; i < D2_COUNTOF(samples); i++) {
        char path[1024], conv_path[1024], name[128];
        snprintf(name, sizeof name, "%s.py", samples[i]);
        snprintf(path, sizeof path, "%s/samples/%s", D2_SRCDIR, name);
        snprintf(conv_path, sizeof conv_path, "%s/samples/%s.converted.py", TRANSFORM_DIR, samples[i]);
        d2_xform_status st;
        char *diag;
        char *got = convert_file(path, name, NULL, NULL, &st, &diag);
        char *want = read_or_empty(conv_path);
        if (strcmp(got, want) != 0)
            tu_show_diff(conv_path, got, want);
        assert_string_equal(got, want);
        assert_string_equal(diag, "");
        assert_int_equal(st, D2_XFORM_OK);
        free(got);
        free(want);
        free(diag);
    }
}

static int count_lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* --no-fallback: the same constructs, reported as errors. */
static void test_no_fallback(void **state)
{
    (void)state;
    d2_xform_options opt = {true, NULL, 0};
    d2_xform_status st;
    char *diag;
    char *got = convert_file(TRANSFORM_DIR "/unsupported.py", "unsupported.py", &opt, NULL, &st,
                             &diag);
    char *want_diag = read_or_empty(TRANSFORM_DIR "/unsupported.diag");
    assert_int_equal(st, D2_XFORM_ERROR);
    int warnings = count_lines_with(want_diag, ": warning: ");
    assert_true(warnings >= 8);
    assert_int_equal(count_lines_with(diag, ": error: "), warnings);
    assert_int_equal(count_lines_with(diag, ": warning: "), 0);
    assert_non_null(strstr(diag, "unsupported.py:9:5: error: 'try' statement cannot be converted; "
                                 "with_try() cannot fall back to tracing because --no-fallback is set"));
    free(got);
    free(diag);
    free(want_diag);
}

/* Parses src and returns its first statement (a def or class). */
static d2_ast_stmt *first_stmt(d2_arena *a, const char *src)
{
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_module *m = d2_ast_parse(a, "f.py", src, strlen(src), &diag);
    assert_non_null(m);
    assert_true(m->body.n >= 1);
    return m->body.items[0];
}

static char *dump(const void *node)
{
    d2_buf b;
    d2_buf_init(&b);
    d2_ast_print(&b, node);
    char *r = d2_buf_take(&b);
    assert_non_null(r);
    return r;
}

static char *unparse_str(const void *node)
{
    d2_buf b;
    d2_buf_init(&b);
    d2_unparse(&b, node);
    char *r = d2_buf_take(&b);
    assert_non_null(r);
    return r;
}

/* d2_xform_function: the input stays as it was, the output's new nodes
 * span the user's constructs, decorators and options are honoured. */
static void test_function_api(void **state)
{
    (void)state;
    d2_arena *a = d2_arena_new();
    static const char src[] = "@paddle.jit.to_static\n"
                              "@keep\n"
                              "def f(x):\n"
                              "    if x > 0:\n"
                              "        y = paddle.abs(x)\n"
                              "    else:\n"
                              "        y = mylib.g(x)\n"
                              "    return y\n";
    d2_ast_stmt *fn = first_stmt(a, src);
    char *before = dump(fn);
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_stmt *out = NULL;
    assert_int_equal(d2_xform_function(a, fn, &diag, NULL, &out), D2_XFORM_OK);
    assert_non_null(out);
    assert_ptr_not_equal(out, fn);
    char *after = dump(fn);
    assert_string_equal(before, after);
    assert_int_equal(diag.count, 0);
    /* def if_true_4, def if_false_4, y = _jst.IfElse(...), return y */
    assert_int_equal(out->function_def.decorator_list.n, 1);
    assert_int_equal(out->function_def.body.n, 4);
    const d2_ast_stmt *orig_if = fn->function_def.body.items[0];
    for (int i = 0; i < 3; i++) {
        const d2_ast_stmt *s = out->function_def.body.items[i];
        assert_int_equal(s->span.line, orig_if->span.line);
        assert_int_equal(s->span.col, orig_if->span.col);
        assert_int_equal(s->span.start, orig_if->span.start);
        assert_int_equal(s->span.end, orig_if->span.end);
    }
    const d2_ast_stmt *run = out->function_def.body.items[2];
    assert_int_equal(run->kind, D2_AST_ASSIGN);
    const d2_ast_expr *test = run->assign.value->call.args.items[0];
    assert_int_equal(test->span.start, orig_if->if_.test->span.start);
    assert_int_equal(test->span.end, orig_if->if_.test->span.end);
    char *text = unparse_str(out);
    assert_non_null(strstr(text, "@keep\ndef f(x):"));
    assert_non_null(strstr(text, "y = _jst.IfElse(x > 0, if_true_4, if_false_4, (), ('y',))"));
    assert_non_null(strstr(text, "paddle.abs(x)"));
    assert_non_null(strstr(text, "_jst.Call(mylib.g)(x)"));
    free(text);

    /* library names: calls through them stay, others go through _jst.Call */
    static const char *const libs[] = {"mylib"};
    d2_xform_options opt = {false, libs, 1};
    assert_int_equal(d2_xform_function(a, fn, &diag, &opt, &out), D2_XFORM_OK);
    text = unparse_str(out);
    assert_non_null(strstr(text, "_jst.Call(paddle.abs)(x)"));
    assert_non_null(strstr(text, "y = mylib.g(x)"));
    free(text);

    /* not_to_static: returned as it is */
    d2_ast_stmt *opted = first_stmt(a, "@paddle.jit.not_to_static\ndef g(x):\n    if x:\n        x = 1\n    return x\n");
    assert_true(d2_xform_is_not_to_static(opted));
    assert_false(d2_xform_is_to_static(opted));
    assert_int_equal(d2_xform_function(a, opted, &diag, NULL, &out), D2_XFORM_OK);
    assert_ptr_equal(out, opted);

    /* not a function */
    d2_ast_stmt *cls = first_stmt(a, "class C:\n    pass\n");
    assert_int_equal(d2_xform_function(a, cls, &diag, NULL, &out), D2_XFORM_ERROR);
    assert_null(out);

    /* unsupported syntax without a diagnostics sink still falls back */
    d2_ast_stmt *tr = first_stmt(a, "def h(x):\n    try:\n        pass\n    finally:\n        pass\n");
    assert_int_equal(d2_xform_function(a, tr, NULL, NULL, &out), D2_XFORM_FALLBACK);
    assert_null(out);

    free(before);
    free(after);
    d2_arena_delete(a);
}

static void test_decorator_spellings(void **state)
{
    (void)state;
    static const struct {
        const char *src;
        bool to_static, not_to_static;
    } cases[] = {
        {"@to_static\ndef f(): pass\n", true, false},
        {"@jit.to_static\ndef f(): pass\n", true, false},
        {"@paddle.jit.to_static(input_spec=[1])\ndef f(): pass\n", true, false},
        {"@to_static()\ndef f(): pass\n", true, false},
        {"@not_to_static\ndef f(): pass\n", false, true},
        {"@other\ndef f(): pass\n", false, false},
        {"def f(): pass\n", false, false},
        {"class to_static: pass\n", false, false},
    };
    for (size_t i = 0; i < D2_COUNTOF(cases); i++) {
        d2_arena *a = d2_arena_new();
        d2_ast_stmt *s = first_stmt(a, cases[i].src);
        assert_int_equal(d2_xform_is_to_static(s), cases[i].to_static);
        assert_int_equal(d2_xform_is_not_to_static(s), cases[i].not_to_static);
        d2_arena_delete(a);
    }
}

/* convert with a selected class or function. */
static void test_convert_select(void **state)
{
    (void)state;
    d2_xform_status st;
    char *diag;
    char *got = convert_file(TRANSFORM_DIR "/decorators.py", "decorators.py", NULL, "Net", &st, &diag);
    assert_int_equal(st, D2_XFORM_OK);
    assert_true(strncmp(got, "class Net:\n", 11) == 0);
    assert_non_null(strstr(got, "return _jst.IfExp(x, lambda: _jst.Call(self.head)(x), lambda: x)"));
    assert_null(strstr(got, "def plain"));
    free(got);
    free(diag);
    got = convert_file(TRANSFORM_DIR "/decorators.py", "decorators.py", NULL, "plain", &st, &diag);
    assert_int_equal(st, D2_XFORM_OK);
    assert_true(strncmp(got, "def plain(x):\n    if x > 0:", 27) == 0);
    free(got);
    free(diag);
    got = convert_file(TRANSFORM_DIR "/decorators.py", "decorators.py", NULL, "missing", &st, &diag);
    assert_int_equal(st, D2_XFORM_ERROR);
    assert_string_equal(got, "");
    assert_non_null(strstr(diag, "no function or class named 'missing' in decorators.py"));
    free(got);
    free(diag);
}

/* Failing the k-th allocation for every k: an error, never a crash or a
 * leak, and the same result once the allocations succeed. */
static void test_transform_out_of_memory(void **state)
{
    (void)state;
    size_t len;
    char *src = tu_read_file(TRANSFORM_DIR "/mixed.py", &len);
    assert_non_null(src);
    char *want = NULL;
    int failures = 0;
    for (long k = 0; k < 100000; k++) {
        d2_arena *a = d2_arena_new();
        d2_diag diag;
        d2_diag_init(&diag, a);
        d2_ast_module *m = d2_ast_parse(a, "mixed.py", src, len, &diag);
        assert_non_null(m);
        d2_buf out;
        d2_buf_init(&out);
        d2_alloc_fail_after(want ? -1 : k);
        d2_xform_status st = d2_xform_convert_module(a, m, NULL, &diag, NULL, &out);
        d2_alloc_fail_after(-1);
        char *text = d2_buf_take(&out);
        d2_arena_delete(a);
        if (!want && st == D2_XFORM_ERROR) {
            failures++;
            free(text);
            continue;
        }
        assert_int_equal(st, D2_XFORM_OK);
        assert_non_null(text);
        if (!want) {
            want = text; /* succeeded under injection: compare with a clean run */
            continue;
        }
        assert_string_equal(text, want);
        free(text);
        break;
    }
    assert_non_null(want);
    fprintf(stderr, "transform: %d injected allocation failures\n", failures);
    assert_true(failures > 3);
    free(want);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unparse_golden),
        cmocka_unit_test(test_unparse_nodes),
        cmocka_unit_test(test_unparse_out_of_memory),
        cmocka_unit_test(test_transform_golden),
        cmocka_unit_test(test_transform_samples),
        cmocka_unit_test(test_no_fallback),
        cmocka_unit_test(test_function_api),
        cmocka_unit_test(test_decorator_spellings),
        cmocka_unit_test(test_convert_select),
        cmocka_unit_test(test_transform_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
