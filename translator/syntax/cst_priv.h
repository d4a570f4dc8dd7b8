/* cst_priv.h - what the CST -> AST converter's files (cst*.c) share: symbols, context, helpers. */
#ifndef DY2ST_CST_PRIV_H
#define DY2ST_CST_PRIV_H

#include "syntax/ast.h"

#include <setjmp.h>
#include <tree_sitter/api.h>

/* Deepest nesting of statements, expressions and patterns converted
 * (recursively); deeper input is reported instead of exhausting the C
 * stack. Chains converted without recursion (a + b + ..., elif) count
 * towards D2_AST_MAX_DEPTH only. */
#define MAX_DEPTH 1000

/* The CST symbols the converter looks at: X(enum, grammar name, named). */
#define CST_SYMBOLS(X)                                                                           \
    X(IDENTIFIER, "identifier", 1)                                                               \
    X(INTEGER, "integer", 1)                                                                     \
    X(FLOAT, "float", 1)                                                                         \
    X(STRING, "string", 1)                                                                       \
    X(CONCATENATED_STRING, "concatenated_string", 1)                                             \
    X(STRING_START, "string_start", 1)                                                           \
    X(STRING_END, "string_end", 1)                                                               \
    X(INTERPOLATION, "interpolation", 1)                                                         \
    X(FORMAT_SPECIFIER, "format_specifier", 1)                                                   \
    X(FORMAT_EXPRESSION, "format_expression", 1)                                                 \
    X(TYPE_CONVERSION, "type_conversion", 1)                                                     \
    X(TRUE, "true", 1)                                                                           \
    X(FALSE, "false", 1)                                                                         \
    X(NONE, "none", 1)                                                                           \
    X(ELLIPSIS, "ellipsis", 1)                                                                   \
    X(COMMENT, "comment", 1)                                                                     \
    X(MODULE, "module", 1)                                                                       \
    X(BLOCK, "block", 1)                                                                         \
    X(EXPRESSION_STATEMENT, "expression_statement", 1)                                           \
    X(ASSIGNMENT, "assignment", 1)                                                               \
    X(AUGMENTED_ASSIGNMENT, "augmented_assignment", 1)                                           \
    X(RETURN_STATEMENT, "return_statement", 1)                                                   \
    X(DELETE_STATEMENT, "delete_statement", 1)                                                   \
    X(RAISE_STATEMENT, "raise_statement", 1)                                                     \
    X(PASS_STATEMENT, "pass_statement", 1)                                                       \
    X(BREAK_STATEMENT, "break_statement", 1)                                                     \
    X(CONTINUE_STATEMENT, "continue_statement", 1)                                               \
    X(IF_STATEMENT, "if_statement", 1)                                                           \
    X(ELIF_CLAUSE, "elif_clause", 1)                                                             \
    X(ELSE_CLAUSE, "else_clause", 1)                                                             \
    X(FOR_STATEMENT, "for_statement", 1)                                                         \
    X(WHILE_STATEMENT, "while_statement", 1)                                                     \
    X(TRY_STATEMENT, "try_statement", 1)                                                         \
    X(EXCEPT_CLAUSE, "except_clause", 1)                                                         \
    X(EXCEPT_GROUP_CLAUSE, "except_group_clause", 1)                                             \
    X(FINALLY_CLAUSE, "finally_clause", 1)                                                       \
    X(WITH_STATEMENT, "with_statement", 1)                                                       \
    X(WITH_CLAUSE, "with_clause", 1)                                                             \
    X(WITH_ITEM, "with_item", 1)                                                                 \
    X(FUNCTION_DEFINITION, "function_definition", 1)                                             \
    X(CLASS_DEFINITION, "class_definition", 1)                                                   \
    X(DECORATED_DEFINITION, "decorated_definition", 1)                                           \
    X(DECORATOR, "decorator", 1)                                                                 \
    X(PARAMETERS, "parameters", 1)                                                               \
    X(LAMBDA_PARAMETERS, "lambda_parameters", 1)                                                 \
    X(DEFAULT_PARAMETER, "default_parameter", 1)                                                 \
    X(TYPED_PARAMETER, "typed_parameter", 1)                                                     \
    X(TYPED_DEFAULT_PARAMETER, "typed_default_parameter", 1)                                     \
    X(POSITIONAL_SEPARATOR, "positional_separator", 1)                                           \
    X(KEYWORD_SEPARATOR, "keyword_separator", 1)                                                 \
    X(LIST_SPLAT_PATTERN, "list_splat_pattern", 1)                                               \
    X(DICTIONARY_SPLAT_PATTERN, "dictionary_splat_pattern", 1)                                   \
    X(GLOBAL_STATEMENT, "global_statement", 1)                                                   \
    X(NONLOCAL_STATEMENT, "nonlocal_statement", 1)                                               \
    X(IMPORT_STATEMENT, "import_statement", 1)                                                   \
    X(IMPORT_FROM_STATEMENT, "import_from_statement", 1)                                         \
    X(FUTURE_IMPORT_STATEMENT, "future_import_statement", 1)                                     \
    X(ALIASED_IMPORT, "aliased_import", 1)                                                       \
    X(DOTTED_NAME, "dotted_name", 1)                                                             \
    X(RELATIVE_IMPORT, "relative_import", 1)                                                     \
    X(IMPORT_PREFIX, "import_prefix", 1)                                                         \
    X(WILDCARD_IMPORT, "wildcard_import", 1)                                                     \
    X(ASSERT_STATEMENT, "assert_statement", 1)                                                   \
    X(PRINT_STATEMENT, "print_statement", 1)                                                     \
    X(EXEC_STATEMENT, "exec_statement", 1)                                                       \
    X(TYPE_ALIAS_STATEMENT, "type_alias_statement", 1)                                           \
    X(MATCH_STATEMENT, "match_statement", 1)                                                     \
    X(CASE_CLAUSE, "case_clause", 1)                                                             \
    X(CASE_PATTERN, "case_pattern", 1)                                                           \
    X(UNION_PATTERN, "union_pattern", 1)                                                         \
    X(DICT_PATTERN, "dict_pattern", 1)                                                           \
    X(KEYWORD_PATTERN, "keyword_pattern", 1)                                                     \
    X(SPLAT_PATTERN, "splat_pattern", 1)                                                         \
    X(CLASS_PATTERN, "class_pattern", 1)                                                         \
    X(COMPLEX_PATTERN, "complex_pattern", 1)                                                     \
    X(AS_PATTERN, "as_pattern", 1)                                                               \
    X(AS_PATTERN_TARGET, "as_pattern_target", 1)                                                 \
    X(LIST_PATTERN, "list_pattern", 1)                                                           \
    X(TUPLE_PATTERN, "tuple_pattern", 1)                                                         \
    X(PATTERN_LIST, "pattern_list", 1)                                                           \
    X(BOOLEAN_OPERATOR, "boolean_operator", 1)                                                   \
    X(NOT_OPERATOR, "not_operator", 1)                                                           \
    X(BINARY_OPERATOR, "binary_operator", 1)                                                     \
    X(UNARY_OPERATOR, "unary_operator", 1)                                                       \
    X(COMPARISON_OPERATOR, "comparison_operator", 1)                                             \
    X(LAMBDA, "lambda", 1)                                                                       \
    X(CONDITIONAL_EXPRESSION, "conditional_expression", 1)                                       \
    X(NAMED_EXPRESSION, "named_expression", 1)                                                   \
    X(AWAIT, "await", 1)                                                                         \
    X(YIELD, "yield", 1)                                                                         \
    X(CALL, "call", 1)                                                                           \
    X(ARGUMENT_LIST, "argument_list", 1)                                                         \
    X(KEYWORD_ARGUMENT, "keyword_argument", 1)                                                   \
    X(LIST_SPLAT, "list_splat", 1)                                                               \
    X(DICTIONARY_SPLAT, "dictionary_splat", 1)                                                   \
    X(PARENTHESIZED_LIST_SPLAT, "parenthesized_list_splat", 1)                                   \
    X(ATTRIBUTE, "attribute", 1)                                                                 \
    X(SUBSCRIPT, "subscript", 1)                                                                 \
    X(SLICE, "slice", 1)                                                                         \
    X(LIST, "list", 1)                                                                           \
    X(TUPLE, "tuple", 1)                                                                         \
    X(SET, "set", 1)                                                                             \
    X(DICTIONARY, "dictionary", 1)                                                               \
    X(PAIR, "pair", 1)                                                                           \
    X(LIST_COMPREHENSION, "list_comprehension", 1)                                               \
    X(SET_COMPREHENSION, "set_comprehension", 1)                                                 \
    X(DICTIONARY_COMPREHENSION, "dictionary_comprehension", 1)                                   \
    X(GENERATOR_EXPRESSION, "generator_expression", 1)                                           \
    X(FOR_IN_CLAUSE, "for_in_clause", 1)                                                         \
    X(IF_CLAUSE, "if_clause", 1)                                                                 \
    X(PARENTHESIZED_EXPRESSION, "parenthesized_expression", 1)                                   \
    X(EXPRESSION_LIST, "expression_list", 1)                                                     \
    X(TYPE, "type", 1)                                                                           \
    X(GENERIC_TYPE, "generic_type", 1)                                                           \
    X(UNION_TYPE, "union_type", 1)                                                               \
    X(MEMBER_TYPE, "member_type", 1)                                                             \
    X(SPLAT_TYPE, "splat_type", 1)                                                               \
    X(CONSTRAINED_TYPE, "constrained_type", 1)                                                   \
    X(TYPE_PARAMETER, "type_parameter", 1)                                                       \
    X(CHEVRON, "chevron", 1)                                                                     \
    X(K_ASYNC, "async", 0)                                                                       \
    X(K_FROM, "from", 0)                                                                         \
    X(K_AS, "as", 0)                                                                             \
    X(K_UNDERSCORE, "_", 0)                                                                      \
    X(K_COMMA, ",", 0)                                                                           \
    X(K_COLON, ":", 0)                                                                           \
    X(K_EQUAL, "=", 0)                                                                           \
    X(K_LPAREN, "(", 0)                                                                          \
    X(K_RPAREN, ")", 0)                                                                          \
    X(K_LBRACKET, "[", 0)                                                                        \
    X(K_RBRACKET, "]", 0)                                                                        \
    X(K_LBRACE, "{", 0)                                                                          \
    X(K_RBRACE, "}", 0)                                                                          \
    X(K_STAR, "*", 0)                                                                            \
    X(K_STARSTAR, "**", 0)                                                                       \
    X(K_PLUS, "+", 0)                                                                            \
    X(K_MINUS, "-", 0)                                                                           \
    X(K_AT, "@", 0)                                                                              \
    X(K_SLASH, "/", 0)                                                                           \
    X(K_SLASHSLASH, "//", 0)                                                                     \
    X(K_PERCENT, "%", 0)                                                                         \
    X(K_LSHIFT, "<<", 0)                                                                         \
    X(K_RSHIFT, ">>", 0)                                                                         \
    X(K_AMP, "&", 0)                                                                             \
    X(K_PIPE, "|", 0)                                                                            \
    X(K_CARET, "^", 0)                                                                           \
    X(K_TILDE, "~", 0)                                                                           \
    X(K_AND, "and", 0)                                                                           \
    X(K_OR, "or", 0)                                                                             \
    X(K_LT, "<", 0)                                                                              \
    X(K_GT, ">", 0)                                                                              \
    X(K_LE, "<=", 0)                                                                             \
    X(K_GE, ">=", 0)                                                                             \
    X(K_EQEQ, "==", 0)                                                                           \
    X(K_NE, "!=", 0)                                                                             \
    X(K_LTGT, "<>", 0)                                                                           \
    X(K_IN, "in", 0)                                                                             \
    X(K_NOT_IN, "not in", 0)                                                                     \
    X(K_IS, "is", 0)                                                                             \
    X(K_IS_NOT, "is not", 0)                                                                     \
    X(K_PLUS_EQ, "+=", 0)                                                                        \
    X(K_MINUS_EQ, "-=", 0)                                                                       \
    X(K_STAR_EQ, "*=", 0)                                                                        \
    X(K_AT_EQ, "@=", 0)                                                                          \
    X(K_SLASH_EQ, "/=", 0)                                                                       \
    X(K_SLASHSLASH_EQ, "//=", 0)                                                                 \
    X(K_PERCENT_EQ, "%=", 0)                                                                     \
    X(K_STARSTAR_EQ, "**=", 0)                                                                   \
    X(K_LSHIFT_EQ, "<<=", 0)                                                                     \
    X(K_RSHIFT_EQ, ">>=", 0)                                                                     \
    X(K_AMP_EQ, "&=", 0)                                                                         \
    X(K_PIPE_EQ, "|=", 0)                                                                        \
    X(K_CARET_EQ, "^=", 0)

enum {
    T_OTHER,
#define X(e, s, named) T_##e,
    CST_SYMBOLS(X)
#undef X
        T_COUNT
};

/* The grammar's field names the converter asks for. */
#define CST_FIELDS(X)                                                                            \
    X(ALIAS, "alias")                                                                            \
    X(ALTERNATIVE, "alternative")                                                                \
    X(ARGUMENT, "argument")                                                                      \
    X(ARGUMENTS, "arguments")                                                                    \
    X(ATTRIBUTE, "attribute")                                                                    \
    X(BODY, "body")                                                                              \
    X(CAUSE, "cause")                                                                            \
    X(CONDITION, "condition")                                                                    \
    X(CONSEQUENCE, "consequence")                                                                \
    X(DEFINITION, "definition")                                                                  \
    X(EXPRESSION, "expression")                                                                  \
    X(FORMAT_SPECIFIER, "format_specifier")                                                      \
    X(FUNCTION, "function")                                                                      \
    X(GUARD, "guard")                                                                            \
    X(KEY, "key")                                                                                \
    X(LEFT, "left")                                                                              \
    X(MODULE_NAME, "module_name")                                                                \
    X(NAME, "name")                                                                              \
    X(OBJECT, "object")                                                                          \
    X(OPERATOR, "operator")                                                                      \
    X(PARAMETERS, "parameters")                                                                  \
    X(RETURN_TYPE, "return_type")                                                                \
    X(RIGHT, "right")                                                                            \
    X(SUBJECT, "subject")                                                                        \
    X(SUBSCRIPT, "subscript")                                                                    \
    X(SUPERCLASSES, "superclasses")                                                              \
    X(TYPE, "type")                                                                              \
    X(TYPE_CONVERSION, "type_conversion")                                                        \
    X(TYPE_PARAMETERS, "type_parameters")                                                        \
    X(VALUE, "value")

enum {
#define X(e, s) F_##e,
    CST_FIELDS(X)
#undef X
        F_COUNT
};

/* The conversion context. Errors and out-of-memory longjmp back to
 * d2_ast_parse (never out of the converter's files); everything allocated
 * so far stays in the arena, and the cursor-free helpers of cst.c hold no
 * other resources across a jump. */
typedef struct cx {
    d2_arena *a;
    d2_diag *diag;
    const char *src;
    size_t len;
    const uint16_t *sym; /* grammar symbol -> T_ kind */
    uint32_t nsym;
    TSFieldId fid[F_COUNT];
    int depth;     /* recursion depth of the converter */
    int ast_depth; /* depth of the AST being built, at most D2_AST_MAX_DEPTH */
    TSTreeCursor cur; /* get_kids' cursor, reset per node (keeps its stack) */
    bool have_cur;
    jmp_buf jb;
} cx;

enum { JUMP_ERROR = 1, JUMP_OOM = 2 };

/* One child of a CST node (comments and line continuations left out). */
typedef struct kid {
    TSNode n;
    int t;
    TSFieldId f;
} kid;

typedef struct kids {
    kid *k;
    uint32_t n;
} kids;

/* A null node (the value ts_node_is_null tests for). */
static const TSNode NULL_NODE;

/* A growable byte string in the arena. */
typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

/* ---- basics (cst.c) ---- */

void *cst_need(cx *c, void *p); /* p, or a jump for out of memory when NULL */
/* A syntax error at sp: reported to the diagnostics, then a jump out. */
_Noreturn void cst_fail(cx *c, d2_span sp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cst_warn(cx *c, d2_span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int cst_T(const cx *c, TSNode n); /* n's T_ kind */
d2_span cst_span_of(TSNode n);
d2_span cst_span_to(d2_span a, d2_span b);
d2_span cst_span_bytes(cx *c, size_t start, size_t end);
kids cst_get_kids(cx *c, TSNode n);
kid *cst_kfield(cx *c, kids *ks, int f);
bool cst_has_tok(kids *ks, int t);
kids cst_named(cx *c, kids *ks);
const char *cst_text(cx *c, TSNode n, size_t *len);
void cst_push(cx *c, d2_ast_seq *s, void *item);
d2_ast_expr *cst_new_expr(cx *c, d2_ast_kind k, d2_span sp);
d2_ast_stmt *cst_new_stmt(cx *c, d2_ast_kind k, d2_span sp);
void *cst_new_node(cx *c, d2_ast_kind k, d2_span sp);
void cst_deepen(cx *c, TSNode n, size_t levels);
void cst_enter(cx *c, TSNode n);
void cst_leave(cx *c);
d2_span cst_end_at_last(cx *c, d2_span sp, const d2_ast_seq *body);
void cst_sb_add(cx *c, sbuf *b, const void *s, size_t n);
void cst_sb_byte(cx *c, sbuf *b, unsigned ch);
void cst_sb_utf8(cx *c, sbuf *b, uint32_t cp);
const char *cst_sb_take(cx *c, sbuf *b);
const char *cst_ident(cx *c, TSNode n); /* an identifier, NFKC-normalised */

/* ---- expressions, targets, parameters and patterns (cst_expr.c) ---- */

const char *cst_expr_name(const d2_ast_expr *e); /* "attribute", "literal", ... */
d2_ast_operator cst_binop_of(cx *c, kid *k);
TSNode cst_only_named(cx *c, TSNode n);
d2_ast_seq cst_elements(cx *c, kids *nk, d2_ast_ctx ctx, bool store);
d2_ast_expr *cst_rhs(cx *c, TSNode n);
void cst_call_args(cx *c, TSNode n, d2_ast_seq *args, d2_ast_seq *keywords);
d2_ast_expr *cst_expr(cx *c, TSNode n);
d2_ast_expr *cst_type_expr(cx *c, TSNode n);
d2_ast_expr *cst_target(cx *c, TSNode n, d2_ast_ctx ctx);
d2_ast_arguments *cst_parameters(cx *c, TSNode n, bool lambda);
d2_ast_pattern *cst_new_pattern(cx *c, d2_ast_kind k, d2_span sp);
d2_ast_pattern *cst_pattern(cx *c, TSNode n);

/* ---- numbers and strings (cst_literal.c) ---- */

d2_ast_expr *cst_number(cx *c, TSNode n);
d2_ast_expr *cst_string_expr(cx *c, TSNode n);
/* The number literal s[0, len) spanning sp as a Constant (what cst_number
 * does for a CST node; pyparse.c calls it on the token's text). */
d2_ast_expr *cst_number_text(cx *c, const char *s, size_t len, d2_span sp);
/* Decodes the literal text s[0, n) of a string (at byte offset off of the
 * source, for error positions) into b: newlines normalised, escapes decoded
 * unless raw, {{ and }} collapsed in f-strings. Errors jump out of c;
 * invalid escapes are warned about. */
void cst_decode(cx *c, sbuf *b, const char *s, size_t n, size_t off, bool raw, bool bytes,
                bool fstr);

/* ---- statements and blocks (cst_stmt.c) ---- */

d2_ast_stmt *cst_stmt(cx *c, TSNode n);
void cst_check_indent(cx *c, kids *ks, bool module);
d2_span cst_missing_block_at(cx *c, size_t off);

#endif
