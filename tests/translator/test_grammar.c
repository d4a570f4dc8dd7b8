/* test_grammar.c - the fetched tree-sitter-python grammar loads into Debian's runtime and parses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

static TSTree *parse(TSParser *p, const char *src)
{
    return ts_parser_parse_string(p, NULL, src, (uint32_t)strlen(src));
}

static void test_parses_model_code(void **state)
{
    (void)state;
    TSParser *p = ts_parser_new();
    assert_true(ts_parser_set_language(p, tree_sitter_python()));
    TSTree *t = parse(p, "@paddle.jit.to_static\ndef forward(self, x):\n"
                         "    while paddle.mean(x) < 5:\n        x = x + 1\n    return x\n");
    TSNode root = ts_tree_root_node(t);
    assert_false(ts_node_has_error(root));
    assert_string_equal(ts_node_type(root), "module");
    TSNode def = ts_node_named_child(root, 0);
    assert_string_equal(ts_node_type(def), "decorated_definition");
    ts_tree_delete(t);
    ts_parser_delete(p);
}

static void test_reports_syntax_error(void **state)
{
    (void)state;
    TSParser *p = ts_parser_new();
    assert_true(ts_parser_set_language(p, tree_sitter_python()));
    TSTree *t = parse(p, "def f(x:\n    return x\n");
    assert_true(ts_node_has_error(ts_tree_root_node(t)));
    ts_tree_delete(t);
    ts_parser_delete(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parses_model_code),
        cmocka_unit_test(test_reports_syntax_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
