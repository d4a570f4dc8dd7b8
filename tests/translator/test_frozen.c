/* test_frozen.c - the library's modules frozen at build time: the same trees as a parse, used on import, never trusted when stale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp.h"
#include "syntax/arena.h"
#include "syntax/ast.h"
#include "syntax/astcache.h"
#include "../testutil.h"

static char *dump(const d2_ast_module *m)
{
    d2_buf b;
    d2_buf_init(&b);
    d2_ast_print(&b, m);
    assert_false(b.oom);
    return d2_buf_take(&b);
}

static d2_interp *new_interp(void)
{
    d2_interp_options opt = {0};
    opt.quiet_warnings = true;
    d2_err err = {0};
    d2_interp *I = d2_interp_new(&opt, &err);
    assert_non_null(I);
    return I;
}

/* The frozen entry of module name, or NULL. */
static const d2_frozen_module *frozen(const char *name)
{
    for (size_t i = 0; i < d2_frozen_nmodules; i++)
        if (strcmp(d2_frozen_modules[i].name, name) == 0)
            return &d2_frozen_modules[i];
    return NULL;
}

/* Every library module written in Python is frozen, and its frozen tree is
 * node for node (kinds, fields, spans, names, constants) the tree a parse of
 * its source gives. */
static void test_every_module_frozen_as_parsed(void **state)
{
    (void)state;
    d2_interp *I = new_interp();
    const char *name, *src;
    size_t checked = 0;
    for (size_t i = 0; (name = d2_module_source_at(I, i, &src)); i++) {
        if (!src)
            continue;
        const d2_frozen_module *f = frozen(name);
        if (!f)
            fail_msg("library module %s is not frozen", name);
        char path[512];
        snprintf(path, sizeof path, "<dy2st>/%s.py", name);
        size_t len = strlen(src);
        d2_arena *a = d2_arena_new(), *b = d2_arena_new();
        const d2_ast_module *thawed = d2_ast_cache_decode(a, path, src, len, f->data, f->len);
        const d2_ast_module *parsed = d2_ast_parse(b, path, src, len, NULL);
        assert_non_null(thawed);
        assert_non_null(parsed);
        char *x = dump(thawed), *y = dump(parsed);
        assert_string_equal(x, y);
        assert_int_equal(thawed->source_len, len);
        assert_memory_equal(thawed->source, src, len);
        free(x);
        free(y);
        d2_arena_delete(a);
        d2_arena_delete(b);
        checked++;
    }
    assert_int_equal(checked, d2_frozen_nmodules);
    assert_true(checked >= 20);
    d2_interp_free(I);
}

/* A frozen tree is used only for exactly the source it was made from: one
 * changed byte, a changed length or truncated data are refused. */
static void test_stale_or_damaged_refused(void **state)
{
    (void)state;
    const d2_frozen_module *f = frozen("collections");
    assert_non_null(f);
    d2_interp *I = new_interp();
    const char *name, *src = NULL;
    for (size_t i = 0; (name = d2_module_source_at(I, i, &src)); i++)
        if (strcmp(name, "collections") == 0)
            break;
    assert_non_null(name);
    size_t len = strlen(src);
    char *edited = strdup(src);
    edited[len / 2] = edited[len / 2] == 'a' ? 'b' : 'a';
    d2_arena *a = d2_arena_new();
    assert_non_null(d2_ast_cache_decode(a, "<dy2st>/collections.py", src, len, f->data, f->len));
    assert_null(d2_ast_cache_decode(a, "<dy2st>/collections.py", edited, len, f->data, f->len));
    assert_null(d2_ast_cache_decode(a, "<dy2st>/collections.py", src, len - 1, f->data, f->len));
    assert_null(d2_ast_cache_decode(a, "<dy2st>/collections.py", src, len, f->data, f->len / 2));
    d2_arena_delete(a);
    free(edited);
    d2_interp_free(I);
}

/* Importing library modules uses their frozen trees, and they run. */
static void test_import_thaws(void **state)
{
    (void)state;
    d2_interp *I = new_interp();
    assert_int_equal(d2_interp_thawed(I), 0);
    static const char src[] =
        "import collections\n"
        "import itertools\n"
        "d = collections.OrderedDict()\n"
        "d['a'] = 1\n"
        "assert list(d.keys()) == ['a']\n"
        "assert list(itertools.chain([1], [2])) == [1, 2]\n"
        "import collections\n";
    int rc = d2_interp_run_source(I, "<test>", src, strlen(src));
    if (rc != 0)
        fail_msg("%s", I->diag.last ? I->diag.last->message : "run failed");
    assert_int_equal(d2_interp_thawed(I), 2);
    d2_interp_free(I);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_module_frozen_as_parsed),
        cmocka_unit_test(test_stale_or_damaged_refused),
        cmocka_unit_test(test_import_thaws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
