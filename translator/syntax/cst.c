/* cst.c - d2_ast_parse: tree-sitter's concrete tree of a Python file to dy2st's AST.
 *
 * d2_ast_parse checks the bytes (UTF-8, no NUL), parses with the
 * tree-sitter-python grammar, and then either reports the tree's first
 * ERROR or MISSING node as a compiler-style syntax error or converts the
 * tree node by node into the AST of ast.h, which matches CPython 3.11's
 * ast.parse (tests/golden/ast holds the proof). Where the grammar accepts
 * what CPython rejects (empty suites, bad indentation, Python 2 forms, bad
 * literals, bad targets), the converter reports CPython's error. Where the
 * grammar reads valid code differently from CPython, the converter repairs
 * the result: '&' binds tighter than '^' (binary_chain), unions in
 * annotations nest to the left (union_chain), "*a.b()" stars the whole
 * call (hoist_star), "x := a if b else c" assigns the conditional,
 * "except *E" is except*, "{x:=10}" in an f-string is a format spec, and
 * "type(x).y = 1" or "print >> f, x" are expressions (patch_keywords). */
#include "syntax/ast.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

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
 * d2_ast_parse (never out of this file); everything allocated so far stays
 * in the arena, and the cursor-free helpers below hold no other resources
 * across a jump. */
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

/* ---- basics ---- */

/* A null node (the value ts_node_is_null tests for). */
static const TSNode NULL_NODE;

static _Noreturn void oom(cx *c) { longjmp(c->jb, JUMP_OOM); }

static void *need(cx *c, void *p)
{
    if (!p)
        oom(c);
    return p;
}

static _Noreturn void fail(cx *c, d2_span sp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static _Noreturn void fail(cx *c, d2_span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    d2_diag_vadd(c->diag, D2_DIAG_ERROR, sp, fmt, ap);
    va_end(ap);
    longjmp(c->jb, JUMP_ERROR);
}

static void warn(cx *c, d2_span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void warn(cx *c, d2_span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    d2_diag_vadd(c->diag, D2_DIAG_WARNING, sp, fmt, ap);
    va_end(ap);
}

static int T(const cx *c, TSNode n)
{
    TSSymbol s = ts_node_symbol(n);
    return s < c->nsym ? c->sym[s] : T_OTHER;
}

static d2_span span_of(TSNode n)
{
    TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
    d2_span sp = {s.row + 1, s.column, e.row + 1, e.column, ts_node_start_byte(n),
                  ts_node_end_byte(n)};
    return sp;
}

/* From the start of a to the end of b. */
static d2_span span_to(d2_span a, d2_span b)
{
    a.end_line = b.end_line;
    a.end_col = b.end_col;
    a.end = b.end;
    return a;
}

static d2_span span_bytes(cx *c, size_t start, size_t end)
{
    return d2_span_from_offsets(c->src, c->len, start, end);
}

static kids get_kids(cx *c, TSNode n)
{
    kids r = {NULL, 0};
    uint32_t cnt = ts_node_child_count(n);
    if (!cnt)
        return r;
    r.k = need(c, d2_arena_alloc(c->a, cnt * sizeof(kid)));
    if (c->have_cur) {
        ts_tree_cursor_reset(&c->cur, n);
    } else {
        c->cur = ts_tree_cursor_new(n);
        c->have_cur = true;
    }
    TSTreeCursor *cur = &c->cur;
    if (ts_tree_cursor_goto_first_child(cur)) {
        do {
            TSNode k = ts_tree_cursor_current_node(cur);
            if (ts_node_is_extra(k) || r.n >= cnt)
                continue;
            r.k[r.n].n = k;
            r.k[r.n].t = T(c, k);
            r.k[r.n].f = ts_tree_cursor_current_field_id(cur);
            r.n++;
        } while (ts_tree_cursor_goto_next_sibling(cur));
    }
    return r;
}

/* The first kid with field f, or NULL. */
static kid *kfield(cx *c, kids *ks, int f)
{
    for (uint32_t i = 0; i < ks->n; i++)
        if (ks->k[i].f && ks->k[i].f == c->fid[f])
            return &ks->k[i];
    return NULL;
}

static bool has_tok(kids *ks, int t)
{
    for (uint32_t i = 0; i < ks->n; i++)
        if (ks->k[i].t == t)
            return true;
    return false;
}

/* Named kids only (into a new list). */
static kids named(cx *c, kids *ks)
{
    kids r = {NULL, 0};
    if (!ks->n)
        return r;
    r.k = need(c, d2_arena_alloc(c->a, ks->n * sizeof(kid)));
    for (uint32_t i = 0; i < ks->n; i++)
        if (ts_node_is_named(ks->k[i].n))
            r.k[r.n++] = ks->k[i];
    return r;
}

static const char *text(cx *c, TSNode n, size_t *len)
{
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e > c->len)
        e = (uint32_t)c->len;
    if (s > e)
        s = e;
    *len = e - s;
    return c->src + s;
}


static void push(cx *c, d2_ast_seq *s, void *item)
{
    if (d2_ast_seq_push(c->a, s, item))
        oom(c);
}

static d2_ast_expr *new_expr(cx *c, d2_ast_kind k, d2_span sp)
{
    return need(c, d2_ast_expr_new(c->a, k, sp));
}

static d2_ast_stmt *new_stmt(cx *c, d2_ast_kind k, d2_span sp)
{
    return need(c, d2_ast_stmt_new(c->a, k, sp));
}

static void *new_node(cx *c, d2_ast_kind k, d2_span sp)
{
    return need(c, d2_ast_node_new(c->a, k, sp));
}

/* Adds levels to the depth of the AST being built at n. */
static void deepen(cx *c, TSNode n, size_t levels)
{
    if ((size_t)c->ast_depth + levels > D2_AST_MAX_DEPTH) {
        d2_span sp = span_of(n);
        fail(c, span_bytes(c, sp.start, sp.start), "too deeply nested (more than %d levels)",
             D2_AST_MAX_DEPTH);
    }
    c->ast_depth += (int)levels;
}

/* Entering the conversion of node n one level deeper; leave() undoes it. */
static void enter(cx *c, TSNode n)
{
    if (++c->depth > MAX_DEPTH) {
        d2_span sp = span_of(n);
        fail(c, span_bytes(c, sp.start, sp.start), "too deeply nested (more than %d levels)",
             MAX_DEPTH);
    }
    deepen(c, n, 1);
}

static void leave(cx *c)
{
    c->depth--;
    c->ast_depth--;
}

/* sp extended to the end of the last statement of body and a ';' right
 * after it (CPython ends a compound statement at the last token of its
 * suite); sp unchanged when body is empty. */
static d2_span end_at_last(cx *c, d2_span sp, const d2_ast_seq *body)
{
    if (!body->n)
        return sp;
    d2_span last = ((d2_ast_node *)body->items[body->n - 1])->span;
    size_t i = last.end;
    for (;;) {
        if (i < c->len && (c->src[i] == ' ' || c->src[i] == '\t' || c->src[i] == '\f'))
            i++;
        else if (i + 1 < c->len && c->src[i] == '\\' && c->src[i + 1] == '\n')
            i += 2;
        else
            break;
    }
    if (i < c->len && c->src[i] == ';')
        last = span_bytes(c, last.end, i + 1);
    return span_to(sp, last);
}

/* A growable byte string in the arena. */
typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_add(cx *c, sbuf *b, const void *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->n + n + 1)
            cap *= 2;
        b->p = need(c, d2_arena_realloc(c->a, b->p, b->cap, cap));
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_byte(cx *c, sbuf *b, unsigned ch)
{
    char ch8 = (char)ch;
    sb_add(c, b, &ch8, 1);
}

/* Appends code point cp in UTF-8 (surrogates in the same 3-byte form). */
static void sb_utf8(cx *c, sbuf *b, uint32_t cp)
{
    unsigned char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (unsigned char)(0xC0 | (cp >> 6));
        u[1] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (unsigned char)(0xE0 | (cp >> 12));
        u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (unsigned char)(0xF0 | (cp >> 18));
        u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    sb_add(c, b, u, n);
}

static const char *sb_take(cx *c, sbuf *b)
{
    if (!b->p)
        b->p = need(c, d2_arena_strndup(c->a, "", 0));
    return b->p;
}

/* Reads one code point of valid UTF-8 at s[*i] and advances *i. */
static uint32_t utf8_next(const char *s, size_t n, size_t *i)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t cp = u[*i];
    size_t extra = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : cp >= 0xC0 ? 1 : 0;
    cp &= extra == 3 ? 0x07 : extra == 2 ? 0x0F : extra == 1 ? 0x1F : 0x7F;
    (*i)++;
    for (size_t k = 0; k < extra && *i < n; k++)
        cp = (cp << 6) | (u[(*i)++] & 0x3Fu);
    return cp;
}

/* The NFKC compatibility mappings of identifier characters that occur in
 * practice (CPython normalises identifiers with full NFKC): fullwidth
 * ASCII, the micro sign, long s, Latin ligatures and mathematical
 * alphanumerics. Appends the mapping of cp to b. */
static void nfkc_char(cx *c, sbuf *b, uint32_t cp)
{
    static const char *const ligatures[] = {"ff", "fi", "fl", "ffi", "ffl", "st", "st"};
    if (cp >= 0xFF01 && cp <= 0xFF5E)
        sb_byte(c, b, cp - 0xFEE0);
    else if (cp == 0xB5)
        sb_utf8(c, b, 0x3BC);
    else if (cp == 0x17F)
        sb_byte(c, b, 's');
    else if (cp >= 0xFB00 && cp <= 0xFB06)
        sb_add(c, b, ligatures[cp - 0xFB00], strlen(ligatures[cp - 0xFB00]));
    else if (cp >= 0x1D400 && cp <= 0x1D6A3) {
        uint32_t k = (cp - 0x1D400) % 52;
        sb_byte(c, b, k < 26 ? 'A' + k : 'a' + (k - 26));
    } else if (cp >= 0x1D7CE && cp <= 0x1D7FF)
        sb_byte(c, b, '0' + (cp - 0x1D7CE) % 10);
    else
        sb_utf8(c, b, cp);
}

static const char *ident(cx *c, TSNode n)
{
    size_t len;
    const char *s = text(c, n, &len);
    size_t i = 0;
    while (i < len && (unsigned char)s[i] < 0x80)
        i++;
    if (i == len)
        return need(c, d2_arena_strndup(c->a, s, len));
    sbuf b = {0};
    sb_add(c, &b, s, i);
    while (i < len)
        nfkc_char(c, &b, utf8_next(s, len, &i));
    return sb_take(c, &b);
}

/* ---- forward declarations ---- */

static d2_ast_expr *expr(cx *c, TSNode n);
static d2_ast_expr *target(cx *c, TSNode n, d2_ast_ctx ctx);
static d2_ast_expr *type_expr(cx *c, TSNode n);
static d2_ast_expr *union_chain(cx *c, TSNode n);
static void block(cx *c, TSNode n, d2_ast_seq *out, TSNode header, const char *what);
static d2_ast_pattern *pattern(cx *c, TSNode n);
static d2_ast_expr *hoist_star(cx *c, d2_ast_expr *e, d2_ast_expr **base, d2_ast_ctx ctx);

/* ---- names of expressions, for messages as CPython words them ---- */

static const char *expr_name(const d2_ast_expr *e)
{
    switch (e->kind) {
    case D2_AST_ATTRIBUTE: return "attribute";
    case D2_AST_SUBSCRIPT: return "subscript";
    case D2_AST_STARRED: return "starred";
    case D2_AST_NAME: return "name";
    case D2_AST_LIST: return "list";
    case D2_AST_TUPLE: return "tuple";
    case D2_AST_LAMBDA: return "lambda";
    case D2_AST_CALL: return "function call";
    case D2_AST_BOOL_OP:
    case D2_AST_BIN_OP:
    case D2_AST_UNARY_OP: return "expression";
    case D2_AST_GENERATOR_EXP: return "generator expression";
    case D2_AST_YIELD:
    case D2_AST_YIELD_FROM: return "yield expression";
    case D2_AST_AWAIT: return "await expression";
    case D2_AST_LIST_COMP: return "list comprehension";
    case D2_AST_SET_COMP: return "set comprehension";
    case D2_AST_DICT_COMP: return "dict comprehension";
    case D2_AST_DICT: return "dict literal";
    case D2_AST_SET: return "set display";
    case D2_AST_JOINED_STR:
    case D2_AST_FORMATTED_VALUE: return "f-string expression";
    case D2_AST_CONSTANT:
        switch (e->constant.value.kind) {
        case D2_CONST_NONE: return "None";
        case D2_CONST_TRUE: return "True";
        case D2_CONST_FALSE: return "False";
        case D2_CONST_ELLIPSIS: return "ellipsis";
        default: return "literal";
        }
    case D2_AST_COMPARE: return "comparison";
    case D2_AST_IF_EXP: return "conditional expression";
    case D2_AST_NAMED_EXPR: return "named expression";
    default: return "expression";
    }
}

/* ---- numbers ---- */

static bool is_digit_in(int ch, int base)
{
    if (base == 16)
        return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
    return ch >= '0' && ch < '0' + base;
}

static int digit_value(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return ch - 'A' + 10;
}

/* Decimal digits of the integer written with digits d[0, n) in base. The
 * digits are collected in base 1e9 limbs, least significant first. */
static const char *big_to_decimal(cx *c, const char *d, size_t n, int base)
{
    size_t cap = 2 * (n / 9) + 3; /* a hex digit is up to 1.21 decimal digits */
    uint32_t *limb = need(c, d2_arena_alloc(c->a, cap * sizeof(uint32_t)));
    size_t nl = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t carry = (uint64_t)digit_value((unsigned char)d[i]);
        for (size_t k = 0; k < nl; k++) {
            uint64_t v = (uint64_t)limb[k] * (uint64_t)base + carry;
            limb[k] = (uint32_t)(v % 1000000000u);
            carry = v / 1000000000u;
        }
        if (carry && nl < cap)
            limb[nl++] = (uint32_t)carry;
    }
    char *out = need(c, d2_arena_alloc(c->a, nl * 9 + 1));
    size_t len = (size_t)snprintf(out, 10, "%u", limb[nl - 1]);
    for (size_t k = nl - 1; k-- > 0;)
        len += (size_t)snprintf(out + len, 10, "%09u", limb[k]);
    return out;
}

/* Checks underscores in a digit run: only single ones between digits (and
 * right after a base prefix, flagged by lead_ok). */
static bool underscores_ok(const char *s, size_t n, bool lead_ok)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '_')
            continue;
        if (i + 1 >= n || s[i + 1] == '_')
            return false;
        if (i == 0 && !lead_ok)
            return false;
    }
    return true;
}

/* integer | float (with j: imaginary) -> Constant. Validates digits and
 * underscores as CPython's tokenizer does; big ints keep decimal text. */
static d2_ast_expr *number(cx *c, TSNode n)
{
    size_t len;
    const char *s = text(c, n, &len);
    d2_span sp = span_of(n);
    d2_ast_const k = {.kind = D2_CONST_INT};
    if (len == 0)
        fail(c, sp, "invalid number literal");
    char last = s[len - 1];
    if (last == 'l' || last == 'L')
        fail(c, sp, "invalid decimal literal");
    bool imag = last == 'j' || last == 'J';
    size_t body = imag ? len - 1 : len;
    /* digits without underscores */
    char *d = need(c, d2_arena_alloc(c->a, body + 1));
    size_t nd = 0;
    int base = 10;
    size_t i = 0;
    bool is_float = false;
    if (body >= 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
        base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
        i = 2;
        if (imag || body == 2 || !underscores_ok(s + 2, body - 2, true))
            fail(c, sp, "invalid %s literal", base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary");
        for (; i < body; i++) {
            if (s[i] == '_')
                continue;
            if (!is_digit_in((unsigned char)s[i], base))
                fail(c, sp, "invalid digit '%c' in %s literal", s[i],
                     base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary");
            d[nd++] = s[i];
        }
    } else {
        for (; i < body; i++) {
            char ch = s[i];
            if (ch == '_') {
                bool ok = i > 0 && i + 1 < body && s[i - 1] >= '0' && s[i - 1] <= '9' &&
                          s[i + 1] >= '0' && s[i + 1] <= '9';
                if (!ok)
                    fail(c, sp, "invalid decimal literal");
                continue;
            }
            if (ch == '.' || ch == 'e' || ch == 'E')
                is_float = true;
            else if (!(ch >= '0' && ch <= '9') && !((ch == '+' || ch == '-') && i > 0 &&
                                                     (s[i - 1] == 'e' || s[i - 1] == 'E')))
                fail(c, sp, "invalid decimal literal");
            d[nd++] = ch;
        }
    }
    d[nd] = '\0';
    if (is_float || imag) {
        errno = 0;
        char *end;
        double v = strtod(d, &end);
        if (*end != '\0' || nd == 0)
            fail(c, sp, "invalid decimal literal");
        k.kind = imag ? D2_CONST_COMPLEX : D2_CONST_FLOAT;
        k.f = v;
        return need(c, d2_ast_constant(c->a, k, sp));
    }
    if (nd == 0)
        fail(c, sp, "invalid decimal literal");
    if (base == 10 && d[0] == '0') {
        for (size_t j = 0; j < nd; j++)
            if (d[j] != '0')
                fail(c, sp, "leading zeros in decimal integer literals are not permitted; "
                            "use an 0o prefix for octal integers");
    }
    uint64_t v = 0;
    bool big = false;
    for (size_t j = 0; j < nd; j++) {
        uint64_t dv = (uint64_t)digit_value((unsigned char)d[j]);
        if (v > (UINT64_C(0x7fffffffffffffff) - dv) / (uint64_t)base) {
            big = true;
            break;
        }
        v = v * (uint64_t)base + dv;
    }
    if (big) {
        k.kind = D2_CONST_BIGINT;
        k.str.data = big_to_decimal(c, d, nd, base);
        k.str.len = strlen(k.str.data);
    } else {
        k.i = (int64_t)v;
    }
    return need(c, d2_ast_constant(c->a, k, sp));
}

/* ---- strings ---- */

/* A few Unicode character names for \N{...}; matching ignores case. Names
 * outside this table and the algorithmic families handled in
 * unicode_lookup are reported as unsupported. */
static const struct {
    const char *name;
    uint32_t cp;
} uni_names[] = {
    {"NULL", 0x0},
    {"CHARACTER TABULATION", 0x9},
    {"LINE FEED", 0xA},
    {"CARRIAGE RETURN", 0xD},
    {"ESCAPE", 0x1B},
    {"SPACE", 0x20},
    {"EXCLAMATION MARK", 0x21},
    {"QUOTATION MARK", 0x22},
    {"NUMBER SIGN", 0x23},
    {"DOLLAR SIGN", 0x24},
    {"PERCENT SIGN", 0x25},
    {"AMPERSAND", 0x26},
    {"APOSTROPHE", 0x27},
    {"LEFT PARENTHESIS", 0x28},
    {"RIGHT PARENTHESIS", 0x29},
    {"ASTERISK", 0x2A},
    {"PLUS SIGN", 0x2B},
    {"COMMA", 0x2C},
    {"HYPHEN-MINUS", 0x2D},
    {"FULL STOP", 0x2E},
    {"SOLIDUS", 0x2F},
    {"COLON", 0x3A},
    {"SEMICOLON", 0x3B},
    {"LESS-THAN SIGN", 0x3C},
    {"EQUALS SIGN", 0x3D},
    {"GREATER-THAN SIGN", 0x3E},
    {"QUESTION MARK", 0x3F},
    {"COMMERCIAL AT", 0x40},
    {"LEFT SQUARE BRACKET", 0x5B},
    {"REVERSE SOLIDUS", 0x5C},
    {"RIGHT SQUARE BRACKET", 0x5D},
    {"CIRCUMFLEX ACCENT", 0x5E},
    {"LOW LINE", 0x5F},
    {"GRAVE ACCENT", 0x60},
    {"LEFT CURLY BRACKET", 0x7B},
    {"VERTICAL LINE", 0x7C},
    {"RIGHT CURLY BRACKET", 0x7D},
    {"TILDE", 0x7E},
    {"NO-BREAK SPACE", 0xA0},
    {"INVERTED EXCLAMATION MARK", 0xA1},
    {"CENT SIGN", 0xA2},
    {"POUND SIGN", 0xA3},
    {"CURRENCY SIGN", 0xA4},
    {"YEN SIGN", 0xA5},
    {"BROKEN BAR", 0xA6},
    {"SECTION SIGN", 0xA7},
    {"DIAERESIS", 0xA8},
    {"COPYRIGHT SIGN", 0xA9},
    {"FEMININE ORDINAL INDICATOR", 0xAA},
    {"LEFT-POINTING DOUBLE ANGLE QUOTATION MARK", 0xAB},
    {"NOT SIGN", 0xAC},
    {"SOFT HYPHEN", 0xAD},
    {"REGISTERED SIGN", 0xAE},
    {"MACRON", 0xAF},
    {"DEGREE SIGN", 0xB0},
    {"PLUS-MINUS SIGN", 0xB1},
    {"SUPERSCRIPT TWO", 0xB2},
    {"SUPERSCRIPT THREE", 0xB3},
    {"ACUTE ACCENT", 0xB4},
    {"MICRO SIGN", 0xB5},
    {"PILCROW SIGN", 0xB6},
    {"MIDDLE DOT", 0xB7},
    {"CEDILLA", 0xB8},
    {"SUPERSCRIPT ONE", 0xB9},
    {"MASCULINE ORDINAL INDICATOR", 0xBA},
    {"RIGHT-POINTING DOUBLE ANGLE QUOTATION MARK", 0xBB},
    {"VULGAR FRACTION ONE QUARTER", 0xBC},
    {"VULGAR FRACTION ONE HALF", 0xBD},
    {"VULGAR FRACTION THREE QUARTERS", 0xBE},
    {"INVERTED QUESTION MARK", 0xBF},
    {"MULTIPLICATION SIGN", 0xD7},
    {"LATIN SMALL LETTER SHARP S", 0xDF},
    {"DIVISION SIGN", 0xF7},
    {"LATIN SMALL LETTER Y WITH DIAERESIS", 0xFF},
    {"EN QUAD", 0x2000},
    {"EM QUAD", 0x2001},
    {"EN SPACE", 0x2002},
    {"EM SPACE", 0x2003},
    {"THREE-PER-EM SPACE", 0x2004},
    {"FOUR-PER-EM SPACE", 0x2005},
    {"SIX-PER-EM SPACE", 0x2006},
    {"FIGURE SPACE", 0x2007},
    {"PUNCTUATION SPACE", 0x2008},
    {"THIN SPACE", 0x2009},
    {"HAIR SPACE", 0x200A},
    {"NARROW NO-BREAK SPACE", 0x202F},
    {"IDEOGRAPHIC SPACE", 0x3000},
    {"EMPTY SET", 0x2205},
    {"EN DASH", 0x2013},
    {"EM DASH", 0x2014},
    {"LEFT SINGLE QUOTATION MARK", 0x2018},
    {"RIGHT SINGLE QUOTATION MARK", 0x2019},
    {"LEFT DOUBLE QUOTATION MARK", 0x201C},
    {"RIGHT DOUBLE QUOTATION MARK", 0x201D},
    {"BULLET", 0x2022},
    {"HORIZONTAL ELLIPSIS", 0x2026},
    {"ZERO WIDTH SPACE", 0x200B},
    {"EURO SIGN", 0x20AC},
    {"LEFTWARDS ARROW", 0x2190},
    {"UPWARDS ARROW", 0x2191},
    {"RIGHTWARDS ARROW", 0x2192},
    {"DOWNWARDS ARROW", 0x2193},
    {"N-ARY SUMMATION", 0x2211},
    {"SQUARE ROOT", 0x221A},
    {"INFINITY", 0x221E},
    {"ALMOST EQUAL TO", 0x2248},
    {"NOT EQUAL TO", 0x2260},
    {"LESS-THAN OR EQUAL TO", 0x2264},
    {"GREATER-THAN OR EQUAL TO", 0x2265},
    {"BOX DRAWINGS LIGHT HORIZONTAL", 0x2500},
    {"FULL BLOCK", 0x2588},
    {"BLACK STAR", 0x2605},
    {"WHITE STAR", 0x2606},
    {"CHECK MARK", 0x2713},
    {"BALLOT X", 0x2717},
    {"ZERO WIDTH NO-BREAK SPACE", 0xFEFF},
    {"REPLACEMENT CHARACTER", 0xFFFD},
    {"DAGGER", 0x2020},
    {"DOUBLE DAGGER", 0x2021},
    {"CIRCLED TIMES", 0x2297},
    {"CIRCLED PLUS", 0x2295},
    {"TWO DOT LEADER", 0x2025},
    {"N-ARY CIRCLED TIMES OPERATOR", 0x2A02},
    {"PLANCK CONSTANT OVER TWO PI", 0x210F},
    {"RIGHTWARDS ARROW WITH HOOK", 0x21AA},
    {"MATHEMATICAL LEFT ANGLE BRACKET", 0x27E8},
    {"MATHEMATICAL RIGHT ANGLE BRACKET", 0x27E9},
    {"LATIN SMALL LIGATURE FF", 0xFB00},
    {"LATIN SMALL LIGATURE FI", 0xFB01},
    {"LATIN SMALL LIGATURE FL", 0xFB02},
    {"LATIN SMALL LIGATURE ST", 0xFB06},
    {"GREEK SMALL LETTER FINAL SIGMA", 0x3C2},
    {"GREEK PI SYMBOL", 0x3D6},
    {"COMBINING GRAVE ACCENT", 0x300},
    {"COMBINING ACUTE ACCENT", 0x301},
    {"COMBINING TILDE", 0x303},
    {"COMBINING DOT ABOVE", 0x307},
    {"COMBINING DIAERESIS", 0x308},
    {"LATIN SUBSCRIPT SMALL LETTER I", 0x1D62},
    {"SCRIPT CAPITAL R", 0x211B},
    {"LONG RIGHTWARDS SQUIGGLE ARROW", 0x27FF},
    {"LATIN SMALL LETTER Y WITH CIRCUMFLEX", 0x177},
    {"N-ARY PRODUCT", 0x220F},
    {"PARTIAL DIFFERENTIAL", 0x2202},
    {"NABLA", 0x2207},
    {"ELEMENT OF", 0x2208},
    {"INTEGRAL", 0x222B},
    {"RIGHTWARDS DOUBLE ARROW", 0x21D2},
    {"LEFT RIGHT ARROW", 0x2194},
    {"MINUS SIGN", 0x2212},
    {"DOT OPERATOR", 0x22C5},
    {"HEAVY CHECK MARK", 0x2714},
    {"WARNING SIGN", 0x26A0},
    {"BLACK SQUARE", 0x25A0},
    {"WHITE SQUARE", 0x25A1},
    {"BLACK CIRCLE", 0x25CF},
    {"WHITE CIRCLE", 0x25CB},
    {"TRADE MARK SIGN", 0x2122},
    {"PER MILLE SIGN", 0x2030},
    {"PRIME", 0x2032},
    {"DOUBLE PRIME", 0x2033},
    {"IDENTICAL TO", 0x2261},
    {"PROPORTIONAL TO", 0x221D},
    {"SNAKE", 0x1F40D},
    {"PARTY POPPER", 0x1F389},
    {"GRINNING FACE", 0x1F600},
    {"THUMBS UP SIGN", 0x1F44D},
    {"HEAVY BLACK HEART", 0x2764},
    {"ROCKET", 0x1F680},
    {"SPARKLES", 0x2728},
};

static const char *const greek[] = {
    "ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON", "ZETA",  "ETA",     "THETA",
    "IOTA",  "KAPPA", "LAMDA", "MU",    "NU",      "XI",    "OMICRON", "PI",
    "RHO",   "",      "SIGMA", "TAU",   "UPSILON", "PHI",   "CHI",     "PSI",
    "OMEGA",
};

/* Names of U+00C0..U+00DE after "LATIN CAPITAL LETTER " (and of
 * U+00E0..U+00FE after "LATIN SMALL LETTER "); "" where the code point is
 * not a letter. */
static const char *const latin1[] = {
    "A WITH GRAVE", "A WITH ACUTE", "A WITH CIRCUMFLEX", "A WITH TILDE", "A WITH DIAERESIS",
    "A WITH RING ABOVE", "AE", "C WITH CEDILLA", "E WITH GRAVE", "E WITH ACUTE",
    "E WITH CIRCUMFLEX", "E WITH DIAERESIS", "I WITH GRAVE", "I WITH ACUTE",
    "I WITH CIRCUMFLEX", "I WITH DIAERESIS", "ETH", "N WITH TILDE", "O WITH GRAVE",
    "O WITH ACUTE", "O WITH CIRCUMFLEX", "O WITH TILDE", "O WITH DIAERESIS", "",
    "O WITH STROKE", "U WITH GRAVE", "U WITH ACUTE", "U WITH CIRCUMFLEX", "U WITH DIAERESIS",
    "Y WITH ACUTE", "THORN",
};

/* U+0410..U+042F after "CYRILLIC CAPITAL LETTER " (+0x20: small). */
static const char *const cyrillic[] = {
    "A",  "BE", "VE", "GHE", "DE",  "IE",    "ZHE",       "ZE",   "I",         "SHORT I", "KA",
    "EL", "EM", "EN", "O",   "PE",  "ER",    "ES",        "TE",   "U",         "EF",      "HA",
    "TSE", "CHE", "SHA", "SHCHA", "HARD SIGN", "YERU", "SOFT SIGN", "E", "YU", "YA",
};

static bool name_eq(const char *a, size_t n, const char *b)
{
    size_t i = 0;
    for (; i < n && b[i]; i++) {
        char x = a[i], y = b[i];
        if (x >= 'a' && x <= 'z')
            x = (char)(x - 32);
        if (x != y)
            return false;
    }
    return i == n && !b[i];
}

/* Prefix match ignoring case; returns the rest of a or NULL. */
static const char *name_prefix(const char *a, size_t n, const char *prefix, size_t *rest)
{
    size_t p = strlen(prefix);
    if (n < p || !name_eq(a, p, prefix))
        return NULL;
    *rest = n - p;
    return a + p;
}

static long unicode_lookup(const char *s, size_t n)
{
    for (size_t i = 0; i < D2_COUNTOF(uni_names); i++)
        if (name_eq(s, n, uni_names[i].name))
            return (long)uni_names[i].cp;
    size_t r;
    const char *rest;
    bool cap = true;
    rest = name_prefix(s, n, "LATIN CAPITAL LETTER ", &r);
    if (!rest) {
        rest = name_prefix(s, n, "LATIN SMALL LETTER ", &r);
        cap = false;
    }
    if (rest && r > 1)
        for (size_t i = 0; i < D2_COUNTOF(latin1); i++)
            if (latin1[i][0] && name_eq(rest, r, latin1[i]))
                return (long)((cap ? 0xC0 : 0xE0) + i);
    cap = true;
    rest = name_prefix(s, n, "CYRILLIC CAPITAL LETTER ", &r);
    if (!rest) {
        rest = name_prefix(s, n, "CYRILLIC SMALL LETTER ", &r);
        cap = false;
    }
    if (rest)
        for (size_t i = 0; i < D2_COUNTOF(cyrillic); i++)
            if (name_eq(rest, r, cyrillic[i]))
                return (long)((cap ? 0x410 : 0x430) + i);
    if ((rest = name_prefix(s, n, "LATIN CAPITAL LETTER ", &r)) && r == 1 &&
        ((rest[0] | 32) >= 'a' && (rest[0] | 32) <= 'z'))
        return (rest[0] | 32) - 32;
    if ((rest = name_prefix(s, n, "LATIN SMALL LETTER ", &r)) && r == 1 &&
        ((rest[0] | 32) >= 'a' && (rest[0] | 32) <= 'z'))
        return rest[0] | 32;
    static const char *const digits[] = {"ZERO", "ONE", "TWO",   "THREE", "FOUR",
                                         "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"};
    if ((rest = name_prefix(s, n, "DIGIT ", &r)))
        for (int i = 0; i < 10; i++)
            if (name_eq(rest, r, digits[i]))
                return '0' + i;
    cap = false;
    if ((rest = name_prefix(s, n, "GREEK CAPITAL LETTER ", &r)))
        cap = true;
    else
        rest = name_prefix(s, n, "GREEK SMALL LETTER ", &r);
    if (rest)
        for (size_t i = 0; i < D2_COUNTOF(greek); i++)
            if (greek[i][0] && name_eq(rest, r, greek[i]))
                return (long)((cap ? 0x391 : 0x3B1) + i);
    if ((rest = name_prefix(s, n, "CJK UNIFIED IDEOGRAPH-", &r)) && (r == 4 || r == 5)) {
        long v = 0;
        for (size_t i = 0; i < r; i++) {
            if (!is_digit_in((unsigned char)rest[i], 16))
                return -1;
            v = v * 16 + digit_value((unsigned char)rest[i]);
        }
        if ((v >= 0x4E00 && v <= 0x9FFF) || (v >= 0x3400 && v <= 0x4DBF) ||
            (v >= 0x20000 && v <= 0x2A6DF))
            return v;
    }
    return -1;
}

/* Decodes the literal text s[0, n) of a string (at byte offset off of the
 * source, for error positions) into b: newlines normalised, escapes decoded
 * unless raw, {{ and }} collapsed in f-strings. */
static void decode(cx *c, sbuf *b, const char *s, size_t n, size_t off, bool raw, bool bytes,
                   bool fstr)
{
    size_t i = 0;
    while (i < n) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\r') {
            sb_byte(c, b, '\n');
            i += (i + 1 < n && s[i + 1] == '\n') ? 2 : 1;
            continue;
        }
        if (fstr && (ch == '{' || ch == '}')) {
            if (i + 1 < n && (unsigned char)s[i + 1] == ch) {
                sb_byte(c, b, ch);
                i += 2;
                continue;
            }
            fail(c, span_bytes(c, off + i, off + i + 1), "f-string: single '%c' is not allowed",
                 ch);
        }
        if (bytes && ch >= 0x80)
            fail(c, span_bytes(c, off + i, off + i + 1),
                 "bytes can only contain ASCII literal characters");
        if (ch != '\\' || raw || i + 1 >= n) {
            sb_byte(c, b, ch);
            i++;
            continue;
        }
        size_t esc = i;
        unsigned char e = (unsigned char)s[i + 1];
        i += 2;
        switch (e) {
        case '\n': break;
        case '\r':
            if (i < n && s[i] == '\n')
                i++;
            break;
        case '\\': sb_byte(c, b, '\\'); break;
        case '\'': sb_byte(c, b, '\''); break;
        case '"': sb_byte(c, b, '"'); break;
        case 'a': sb_byte(c, b, 7); break;
        case 'b': sb_byte(c, b, 8); break;
        case 'f': sb_byte(c, b, 12); break;
        case 'n': sb_byte(c, b, '\n'); break;
        case 'r': sb_byte(c, b, '\r'); break;
        case 't': sb_byte(c, b, '\t'); break;
        case 'v': sb_byte(c, b, 11); break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
            uint32_t v = e - '0';
            for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
                v = v * 8 + (uint32_t)(s[i++] - '0');
            if (bytes)
                sb_byte(c, b, v & 0xFF);
            else
                sb_utf8(c, b, v);
            break;
        }
        case 'x':
        case 'u':
        case 'U': {
            if (bytes && e != 'x') {
                warn(c, span_bytes(c, off + esc, off + i), "invalid escape sequence '\\%c'", e);
                sb_byte(c, b, '\\');
                sb_byte(c, b, e);
                break;
            }
            int nd = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            uint32_t v = 0;
            for (int k = 0; k < nd; k++) {
                if (i >= n || !is_digit_in((unsigned char)s[i], 16))
                    fail(c, span_bytes(c, off + esc, off + i), "truncated \\%c escape", e);
                v = v * 16 + (uint32_t)digit_value((unsigned char)s[i++]);
            }
            if (bytes)
                sb_byte(c, b, v);
            else if (v > 0x10FFFF)
                fail(c, span_bytes(c, off + esc, off + i), "illegal Unicode character");
            else
                sb_utf8(c, b, v);
            break;
        }
        case 'N':
            if (!bytes) {
                size_t close = i;
                while (close < n && s[close] != '}')
                    close++;
                if (i >= n || s[i] != '{' || close >= n || close == i + 1)
                    fail(c, span_bytes(c, off + esc, off + i), "malformed \\N character escape");
                long cp = unicode_lookup(s + i + 1, close - i - 1);
                if (cp < 0)
                    fail(c, span_bytes(c, off + esc, off + close + 1),
                         "unknown or unsupported Unicode character name '%.*s'",
                         (int)(close - i - 1), s + i + 1);
                sb_utf8(c, b, (uint32_t)cp);
                i = close + 1;
                break;
            }
            /* \N is no escape in bytes */
            __attribute__((fallthrough));
        default:
            if (e >= 0x80 && bytes)
                fail(c, span_bytes(c, off + i - 1, off + i),
                     "bytes can only contain ASCII literal characters");
            warn(c, span_bytes(c, off + esc, off + esc + 2), "invalid escape sequence '\\%c'",
                 e < 0x80 ? e : '?');
            sb_byte(c, b, '\\');
            i--; /* the character after the backslash is literal text */
            break;
        }
    }
}

/* The prefix letters of one string token. */
typedef struct strinfo {
    bool raw, bytes, fstr, u;
    bool lower_u; /* CPython sets Constant.kind only for a lower-case u */
    size_t body_start, body_end; /* source bytes between the quotes */
    char quote;
    bool triple;
} strinfo;

/* The prefix, quote and body range of one string token (string_start,
 * contents, string_end). */
static strinfo string_info(cx *c, kids *ks, TSNode n)
{
    strinfo si = {0};
    kid *start = NULL, *end = NULL;
    for (uint32_t i = 0; i < ks->n; i++) {
        if (ks->k[i].t == T_STRING_START && !start)
            start = &ks->k[i];
        else if (ks->k[i].t == T_STRING_END)
            end = &ks->k[i];
    }
    if (!start || !end)
        fail(c, span_of(n), "invalid string literal");
    size_t len;
    const char *s = text(c, start->n, &len);
    size_t i = 0;
    for (; i < len && s[i] != '\'' && s[i] != '"'; i++) {
        switch (s[i] | 32) {
        case 'r': si.raw = true; break;
        case 'b': si.bytes = true; break;
        case 'f': si.fstr = true; break;
        case 'u': si.u = true; si.lower_u |= s[i] == 'u'; break;
        default: fail(c, span_of(start->n), "invalid string prefix");
        }
    }
    if (i < len)
        si.quote = s[i];
    si.triple = len - i == 3;
    si.body_start = ts_node_end_byte(start->n);
    /* the end token may also hold trailing backslashes of a raw string */
    size_t elen;
    const char *et = text(c, end->n, &elen);
    size_t qlen = si.triple ? 3 : 1;
    if (elen < qlen || et[elen - 1] != si.quote)
        fail(c, span_of(n), "unterminated string literal");
    si.body_end = ts_node_end_byte(end->n) - qlen;
    if (si.body_end < si.body_start)
        si.body_end = si.body_start;
    return si;
}

/* Parts of a (possibly concatenated) string being assembled: the pending
 * literal text and the JoinedStr items so far. */
typedef struct strparts {
    sbuf lit;
    bool have_lit;
    d2_ast_seq values;
    const char *kind;
} strparts;

/* Ends the pending literal text as a Constant item (empty text is dropped,
 * as CPython drops it). */
static void flush_lit(cx *c, strparts *p, d2_span sp)
{
    if (p->have_lit && p->lit.n) {
        d2_ast_const k = {.kind = D2_CONST_STR, .str = {sb_take(c, &p->lit), p->lit.n}};
        d2_ast_expr *e = need(c, d2_ast_constant(c->a, k, sp));
        e->constant.kind = p->kind;
        push(c, &p->values, e);
    }
    memset(&p->lit, 0, sizeof p->lit);
    p->have_lit = false;
}

static d2_ast_expr *fstring_field(cx *c, TSNode n, const strinfo *si);

/* The literal and replacement-field parts of format_specifier node n. */
static d2_ast_expr *format_spec(cx *c, TSNode n, const strinfo *si)
{
    kids ks = get_kids(c, n);
    strparts p = {0};
    d2_span sp = span_of(n);
    size_t pos = ts_node_start_byte(n);
    uint32_t i = 0;
    if (ks.n && ks.k[0].t == T_K_COLON) {
        pos = ts_node_end_byte(ks.k[0].n);
        i = 1;
    }
    for (; i <= ks.n; i++) {
        size_t next = i < ks.n ? ts_node_start_byte(ks.k[i].n) : ts_node_end_byte(n);
        if (next > pos) {
            decode(c, &p.lit, c->src + pos, next - pos, pos, si->raw, false, true);
            p.have_lit = true;
        }
        if (i == ks.n)
            break;
        if (ks.k[i].t == T_FORMAT_EXPRESSION) {
            flush_lit(c, &p, sp);
            push(c, &p.values, fstring_field(c, ks.k[i].n, si));
        }
        pos = ts_node_end_byte(ks.k[i].n);
    }
    flush_lit(c, &p, sp);
    d2_ast_expr *e = new_expr(c, D2_AST_JOINED_STR, sp);
    e->joined_str.values = p.values;
    return e;
}

/* A replacement field {expr[=][!conv][:spec]} (interpolation or
 * format_expression) as a FormattedValue. */
static d2_ast_expr *fstring_field_inner(cx *c, TSNode n, const strinfo *si);

static d2_ast_expr *fstring_field(cx *c, TSNode n, const strinfo *si)
{
    enter(c, n);
    d2_ast_expr *e = fstring_field_inner(c, n, si);
    leave(c);
    return e;
}

static d2_ast_expr *fstring_field_inner(cx *c, TSNode n, const strinfo *si)
{
    kids ks = get_kids(c, n);
    kid *ex = kfield(c, &ks, F_EXPRESSION);
    kid *conv = kfield(c, &ks, F_TYPE_CONVERSION);
    kid *spec = kfield(c, &ks, F_FORMAT_SPECIFIER);
    d2_span sp = span_of(n);
    if (!ex)
        fail(c, sp, "f-string: empty expression not allowed");
    size_t len;
    const char *t = text(c, n, &len);
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '\\' && (!spec || ts_node_start_byte(n) + i < ts_node_start_byte(spec->n)))
            fail(c, span_bytes(c, ts_node_start_byte(n) + i, ts_node_start_byte(n) + i + 1),
                 "f-string expression part cannot include a backslash");
    }
    d2_ast_expr *e = new_expr(c, D2_AST_FORMATTED_VALUE, sp);
    if (ex->t == T_NAMED_EXPRESSION && !conv && !spec) {
        /* "{x:=10}" is x with format spec "=10" (a walrus needs parentheses) */
        kids nk = get_kids(c, ex->n);
        kid *name = kfield(c, &nk, F_NAME);
        size_t colon = name ? ts_node_end_byte(name->n) : 0;
        while (colon < c->len && c->src[colon] != ':')
            colon++;
        size_t end = ts_node_end_byte(n) - 1;
        if (!name || colon >= end)
            fail(c, sp, "invalid syntax");
        e->formatted_value.value = expr(c, name->n);
        e->formatted_value.conversion = -1;
        strparts p = {0};
        decode(c, &p.lit, c->src + colon + 1, end - colon - 1, colon + 1, si->raw, false, true);
        p.have_lit = true;
        flush_lit(c, &p, sp);
        d2_ast_expr *fs = new_expr(c, D2_AST_JOINED_STR, sp);
        fs->joined_str.values = p.values;
        e->formatted_value.format_spec = fs;
        return e;
    }
    e->formatted_value.value = expr(c, ex->n);
    if (ex->t == T_EXPRESSION_LIST) {
        /* CPython 3.11 parses "{a, b}" as "(a, b)": the tuple spans from the
         * '{' to the character ending the expression */
        size_t end = ts_node_end_byte(ex->n);
        while (end < c->len && strchr(" \t\r\n\f", c->src[end]))
            end++;
        e->formatted_value.value->span = span_bytes(c, ts_node_start_byte(n), end + 1);
    }
    e->formatted_value.conversion = -1;
    if (conv) {
        const char *ct = text(c, conv->n, &len);
        if (len != 2 || !strchr("sra", ct[1]))
            fail(c, span_of(conv->n),
                 "f-string: invalid conversion character: expected 's', 'r', or 'a'");
        e->formatted_value.conversion = ct[1];
    }
    if (spec)
        e->formatted_value.format_spec = format_spec(c, spec->n, si);
    return e;
}

/* Whether replacement field n has the self-documenting '='. */
static bool field_has_debug(kids *ks)
{
    return has_tok(ks, T_K_EQUAL);
}

/* Appends the parts of one string token to p. */
static void string_parts(cx *c, TSNode n, const strinfo *si, strparts *p, d2_span whole)
{
    if (!si->fstr) {
        decode(c, &p->lit, c->src + si->body_start, si->body_end - si->body_start,
               si->body_start, si->raw, si->bytes, false);
        p->have_lit = true;
        return;
    }
    kids ks = get_kids(c, n);
    size_t pos = si->body_start;
    for (uint32_t i = 0; i < ks.n; i++) {
        if (ks.k[i].t != T_INTERPOLATION)
            continue;
        TSNode f = ks.k[i].n;
        size_t fs = ts_node_start_byte(f);
        if (fs > pos)
            decode(c, &p->lit, c->src + pos, fs - pos, pos, si->raw, false, true);
        p->have_lit = true;
        /* In 3.11 a replacement field cannot reuse the string's own quote. */
        size_t flen;
        const char *ft = text(c, f, &flen);
        if (!si->triple && memchr(ft, si->quote, flen))
            fail(c, span_of(f), "f-string: expecting '}'");
        kids fk = get_kids(c, f);
        d2_ast_expr *fv = fstring_field(c, f, si);
        if (field_has_debug(&fk)) {
            /* "{expr=}" also yields the expression's text up to '!', ':' or '}' */
            kid *conv = kfield(c, &fk, F_TYPE_CONVERSION);
            kid *spec = kfield(c, &fk, F_FORMAT_SPECIFIER);
            size_t from = fs + 1;
            size_t to = conv ? ts_node_start_byte(conv->n)
                        : spec ? ts_node_start_byte(spec->n)
                               : ts_node_end_byte(f) - 1;
            if (to > from)
                sb_add(c, &p->lit, c->src + from, to - from);
            if (!conv && !spec)
                fv->formatted_value.conversion = 'r';
        }
        flush_lit(c, p, whole);
        push(c, &p->values, fv);
        pos = ts_node_end_byte(f);
    }
    if (si->body_end > pos)
        decode(c, &p->lit, c->src + pos, si->body_end - pos, pos, si->raw, false, true);
    p->have_lit = true;
}

/* A string or concatenated_string: Constant (str or bytes) or JoinedStr. */
static d2_ast_expr *string_expr(cx *c, TSNode n)
{
    d2_span sp = span_of(n);
    kids parts;
    if (T(c, n) == T_CONCATENATED_STRING) {
        kids all = get_kids(c, n);
        parts = named(c, &all);
    } else {
        parts.k = need(c, d2_arena_alloc(c->a, sizeof(kid)));
        parts.k[0].n = n;
        parts.k[0].t = T_STRING;
        parts.n = 1;
    }
    strinfo *si = need(c, d2_arena_alloc(c->a, (parts.n ? parts.n : 1) * sizeof(strinfo)));
    kids *pk = need(c, d2_arena_alloc(c->a, (parts.n ? parts.n : 1) * sizeof(kids)));
    bool any_f = false, any_bytes = false, any_str = false;
    for (uint32_t i = 0; i < parts.n; i++) {
        if (parts.k[i].t != T_STRING)
            fail(c, span_of(parts.k[i].n), "invalid syntax");
        pk[i] = get_kids(c, parts.k[i].n);
        si[i] = string_info(c, &pk[i], parts.k[i].n);
        any_f |= si[i].fstr;
        if (si[i].bytes)
            any_bytes = true;
        else
            any_str = true;
        if (si[i].bytes && (si[i].fstr || si[i].u))
            fail(c, span_of(parts.k[i].n), "invalid string prefix");
        if (si[i].raw && si[i].u)
            fail(c, span_of(parts.k[i].n), "invalid string prefix");
    }
    if (any_bytes && any_str)
        fail(c, sp, "cannot mix bytes and nonbytes literals");
    strparts p = {0};
    p.kind = parts.n && si[0].lower_u ? "u" : NULL;
    for (uint32_t i = 0; i < parts.n; i++)
        string_parts(c, parts.k[i].n, &si[i], &p, sp);
    if (!any_f) {
        d2_ast_const k = {.kind = any_bytes ? D2_CONST_BYTES : D2_CONST_STR,
                          .str = {sb_take(c, &p.lit), p.lit.n}};
        d2_ast_expr *e = need(c, d2_ast_constant(c->a, k, sp));
        e->constant.kind = p.kind;
        return e;
    }
    flush_lit(c, &p, sp);
    d2_ast_expr *e = new_expr(c, D2_AST_JOINED_STR, sp);
    e->joined_str.values = p.values;
    return e;
}

/* ---- expressions ---- */

static d2_ast_operator binop_of(cx *c, kid *k)
{
    switch (k ? k->t : T_OTHER) {
    case T_K_PLUS: case T_K_PLUS_EQ: return D2_OP_ADD;
    case T_K_MINUS: case T_K_MINUS_EQ: return D2_OP_SUB;
    case T_K_STAR: case T_K_STAR_EQ: return D2_OP_MULT;
    case T_K_AT: case T_K_AT_EQ: return D2_OP_MAT_MULT;
    case T_K_SLASH: case T_K_SLASH_EQ: return D2_OP_DIV;
    case T_K_PERCENT: case T_K_PERCENT_EQ: return D2_OP_MOD;
    case T_K_STARSTAR: case T_K_STARSTAR_EQ: return D2_OP_POW;
    case T_K_LSHIFT: case T_K_LSHIFT_EQ: return D2_OP_LSHIFT;
    case T_K_RSHIFT: case T_K_RSHIFT_EQ: return D2_OP_RSHIFT;
    case T_K_PIPE: case T_K_PIPE_EQ: return D2_OP_BIT_OR;
    case T_K_CARET: case T_K_CARET_EQ: return D2_OP_BIT_XOR;
    case T_K_AMP: case T_K_AMP_EQ: return D2_OP_BIT_AND;
    case T_K_SLASHSLASH: case T_K_SLASHSLASH_EQ: return D2_OP_FLOOR_DIV;
    default: break;
    }
    fail(c, k ? span_of(k->n) : (d2_span){0}, "invalid syntax");
}

/* The single named kid of n (a wrapper such as parenthesized_expression). */
static TSNode only_named(cx *c, TSNode n)
{
    kids ks = get_kids(c, n);
    kids nk = named(c, &ks);
    if (nk.n != 1)
        fail(c, span_of(n), "invalid syntax");
    return nk.k[0].n;
}

/* Elements of a bracketed or bare sequence (list, tuple, set,
 * expression_list) converted with ctx; Starred for *x. */
static d2_ast_seq elements(cx *c, kids *nk, d2_ast_ctx ctx, bool store)
{
    d2_ast_seq s = {0};
    for (uint32_t i = 0; i < nk->n; i++)
        push(c, &s, store ? target(c, nk->k[i].n, ctx) : expr(c, nk->k[i].n));
    return s;
}

/* A Tuple of the named kids of n with span sp. */
static d2_ast_expr *tuple_of(cx *c, TSNode n, d2_span sp, d2_ast_ctx ctx, bool store)
{
    kids ks = get_kids(c, n);
    kids nk = named(c, &ks);
    return need(c, d2_ast_tuple(c->a, elements(c, &nk, ctx, store), ctx, sp));
}

/* Right-hand side of an assignment or yield: tuple without parentheses,
 * yield, or any expression. */
static d2_ast_expr *rhs(cx *c, TSNode n)
{
    switch (T(c, n)) {
    case T_EXPRESSION_LIST: return tuple_of(c, n, span_of(n), D2_CTX_LOAD, false);
    case T_ASSIGNMENT:
    case T_AUGMENTED_ASSIGNMENT: fail(c, span_of(n), "invalid syntax");
    default: return expr(c, n);
    }
}

static d2_ast_arguments *parameters(cx *c, TSNode n, bool lambda);

/* for_in_clause / if_clause sequence -> comprehension list: each for
 * starts one, each if joins the one before. */
static void comprehension_clauses(cx *c, kids *ks, d2_ast_seq *gens)
{
    d2_ast_comprehension *cur = NULL;
    for (uint32_t i = 0; i < ks->n; i++) {
        kid *k = &ks->k[i];
        if (k->t == T_FOR_IN_CLAUSE) {
            kids fk = get_kids(c, k->n);
            kid *left = kfield(c, &fk, F_LEFT), *right = kfield(c, &fk, F_RIGHT);
            if (!left || !right)
                fail(c, span_of(k->n), "invalid syntax");
            uint32_t nright = 0;
            for (uint32_t j = 0; j < fk.n; j++)
                nright += fk.k[j].f == c->fid[F_RIGHT];
            if (nright != 1)
                fail(c, span_of(k->n), "invalid syntax");
            cur = new_node(c, D2_AST_COMPREHENSION, span_of(k->n));
            cur->target = target(c, left->n, D2_CTX_STORE);
            cur->iter = expr(c, right->n);
            cur->is_async = has_tok(&fk, T_K_ASYNC);
            push(c, gens, cur);
        } else if (k->t == T_IF_CLAUSE) {
            if (!cur)
                fail(c, span_of(k->n), "invalid syntax");
            push(c, &cur->ifs, expr(c, only_named(c, k->n)));
        }
    }
}

/* [x for ...] {x for ...} {k: v for ...} (x for ...) -> ListComp, SetComp,
 * DictComp, GeneratorExp. */
static d2_ast_expr *comprehension(cx *c, TSNode n, d2_ast_kind kind)
{
    kids ks = get_kids(c, n);
    kid *body = kfield(c, &ks, F_BODY);
    d2_span sp = span_of(n);
    if (!body)
        fail(c, sp, "invalid syntax");
    d2_ast_expr *e = new_expr(c, kind, sp);
    if (kind == D2_AST_DICT_COMP) {
        kids pk = get_kids(c, body->n);
        kid *key = kfield(c, &pk, F_KEY), *value = kfield(c, &pk, F_VALUE);
        if (body->t != T_PAIR || !key || !value)
            fail(c, span_of(body->n), "invalid syntax");
        e->dict_comp.key = expr(c, key->n);
        e->dict_comp.value = expr(c, value->n);
        comprehension_clauses(c, &ks, &e->dict_comp.generators);
    } else {
        e->list_comp.elt = expr(c, body->n);
        comprehension_clauses(c, &ks, &e->list_comp.generators);
    }
    return e;
}

/* Arguments of a call or class header: positional, *args, keywords. */
static void call_args(cx *c, TSNode n, d2_ast_seq *args, d2_ast_seq *keywords)
{
    if (T(c, n) == T_GENERATOR_EXPRESSION) {
        push(c, args, comprehension(c, n, D2_AST_GENERATOR_EXP));
        return;
    }
    kids ks = get_kids(c, n);
    kids nk = named(c, &ks);
    bool seen_kw = false, seen_kwsplat = false;
    for (uint32_t i = 0; i < nk.n; i++) {
        kid *k = &nk.k[i];
        d2_span sp = span_of(k->n);
        if (k->t == T_KEYWORD_ARGUMENT) {
            kids kk = get_kids(c, k->n);
            kid *name = kfield(c, &kk, F_NAME), *value = kfield(c, &kk, F_VALUE);
            if (!name || !value || name->t != T_IDENTIFIER)
                fail(c, sp, "expression cannot contain assignment, perhaps you meant \"==\"?");
            push(c, keywords,
                 need(c, d2_ast_keyword_new(c->a, ident(c, name->n), expr(c, value->n), sp)));
            seen_kw = true;
        } else if (k->t == T_DICTIONARY_SPLAT) {
            push(c, keywords,
                 need(c, d2_ast_keyword_new(c->a, NULL, expr(c, only_named(c, k->n)), sp)));
            seen_kwsplat = true;
        } else if (k->t == T_LIST_SPLAT || k->t == T_PARENTHESIZED_LIST_SPLAT) {
            if (seen_kwsplat)
                fail(c, sp, "iterable argument unpacking follows keyword argument unpacking");
            push(c, args, expr(c, k->n));
        } else {
            if (seen_kwsplat)
                fail(c, sp, "positional argument follows keyword argument unpacking");
            if (seen_kw)
                fail(c, sp, "positional argument follows keyword argument");
            if (k->t == T_GENERATOR_EXPRESSION && nk.n > 1 &&
                c->src[ts_node_start_byte(k->n)] != '(')
                fail(c, sp, "Generator expression must be parenthesized");
            push(c, args, expr(c, k->n));
        }
    }
}

/* The slice of a subscript: one index, a Slice, or a Tuple of them. */
static d2_ast_expr *slice_part(cx *c, TSNode n)
{
    if (T(c, n) != T_SLICE)
        return expr(c, n);
    kids ks = get_kids(c, n);
    d2_ast_expr *e = new_expr(c, D2_AST_SLICE, span_of(n));
    int colons = 0;
    for (uint32_t i = 0; i < ks.n; i++) {
        if (ks.k[i].t == T_K_COLON) {
            colons++;
            continue;
        }
        if (!ts_node_is_named(ks.k[i].n))
            continue;
        d2_ast_expr *v = expr(c, ks.k[i].n);
        d2_ast_expr **slot = colons == 0   ? &e->slice.lower
                             : colons == 1 ? &e->slice.upper
                                           : &e->slice.step;
        if (*slot || colons > 2)
            fail(c, span_of(ks.k[i].n), "invalid syntax");
        *slot = v;
    }
    return e;
}

/* value[i] value[a:b] value[i, j:k] -> Subscript; several indexes (or a
 * trailing comma) make a Tuple spanning the indexes. */
static d2_ast_expr *subscript(cx *c, TSNode n, d2_ast_ctx ctx)
{
    kids ks = get_kids(c, n);
    kid *value = kfield(c, &ks, F_VALUE);
    d2_span sp = span_of(n);
    if (!value)
        fail(c, sp, "invalid syntax");
    d2_ast_seq idx = {0};
    kid *first = NULL, *last = NULL;
    bool comma = false;
    for (uint32_t i = 0; i < ks.n; i++) {
        if (ks.k[i].f == c->fid[F_SUBSCRIPT] && ks.k[i].f) {
            push(c, &idx, slice_part(c, ks.k[i].n));
            if (!first)
                first = &ks.k[i];
            last = &ks.k[i];
        } else if (ks.k[i].t == T_K_COMMA && first) {
            comma = true;
            last = &ks.k[i];
        }
    }
    if (!first)
        fail(c, sp, "invalid syntax");
    d2_ast_expr *slice;
    /* a[*b] indexes with a tuple */
    if (idx.n == 1 && !comma && ((d2_ast_expr *)idx.items[0])->kind != D2_AST_STARRED)
        slice = idx.items[0];
    else
        slice = need(c, d2_ast_tuple(c->a, idx, D2_CTX_LOAD,
                                     span_to(span_of(first->n), span_of(last->n))));
    d2_ast_expr *e = need(c, d2_ast_subscript(c->a, expr(c, value->n), slice, ctx, sp));
    return hoist_star(c, e, &e->subscript.value, ctx);
}

/* Python's binding strength of a binary operator (higher binds tighter). */
static int binop_prec(d2_ast_operator op)
{
    switch (op) {
    case D2_OP_BIT_OR: return 1;
    case D2_OP_BIT_XOR: return 2;
    case D2_OP_BIT_AND: return 3;
    case D2_OP_LSHIFT:
    case D2_OP_RSHIFT: return 4;
    case D2_OP_ADD:
    case D2_OP_SUB: return 5;
    case D2_OP_POW: return 7;
    default: return 6; /* * @ / // % */
    }
}

/* An operand of a binary chain with its source range (parentheses
 * included, which CPython's BinOp spans cover). */
typedef struct operand {
    d2_ast_expr *e;
    d2_span sp;
} operand;

/* A run of binary operators: tree-sitter-python ranks '^' above '&'
 * (Python ranks '&' above '^'), so the operands and operators of a whole
 * unparenthesised run are collected in source order and regrouped by
 * Python's precedence (all left-associative but '**'). Iterative, so long
 * chains do not deepen the C stack. */
static d2_ast_expr *binary_chain(cx *c, TSNode n)
{
    /* in-order walk of the binary_operator nodes */
    typedef struct item {
        TSNode n;
        bool is_op;
    } item;
    size_t cap = 16, top = 0, nopnd = 0, nops = 0, opcap = 16;
    item *stack = need(c, d2_arena_alloc(c->a, cap * sizeof(item)));
    TSNode *opnd = need(c, d2_arena_alloc(c->a, opcap * sizeof(TSNode)));
    kid *ops = need(c, d2_arena_alloc(c->a, opcap * sizeof(kid)));
    stack[top++] = (item){n, false};
    while (top) {
        item it = stack[--top];
        if (it.is_op) {
            ops[nops++] = (kid){it.n, T(c, it.n), 0};
            continue;
        }
        if (T(c, it.n) != T_BINARY_OPERATOR) {
            opnd[nopnd++] = it.n;
            if (nopnd == opcap) {
                opnd = need(c, d2_arena_realloc(c->a, opnd, opcap * sizeof(TSNode),
                                                2 * opcap * sizeof(TSNode)));
                ops = need(c, d2_arena_realloc(c->a, ops, opcap * sizeof(kid),
                                               2 * opcap * sizeof(kid)));
                opcap *= 2;
            }
            continue;
        }
        kids ks = get_kids(c, it.n);
        kid *l = kfield(c, &ks, F_LEFT), *op = kfield(c, &ks, F_OPERATOR),
            *r = kfield(c, &ks, F_RIGHT);
        if (!l || !r || !op)
            fail(c, span_of(it.n), "invalid syntax");
        if (top + 3 > cap) {
            stack = need(c, d2_arena_realloc(c->a, stack, cap * sizeof(item),
                                             2 * cap * sizeof(item)));
            cap *= 2;
        }
        stack[top++] = (item){r->n, false};
        stack[top++] = (item){op->n, true};
        stack[top++] = (item){l->n, false};
    }
    if (nops + 1 != nopnd)
        fail(c, span_of(n), "invalid syntax");
    /* the result nests up to nops BinOps deep */
    int saved_depth = c->ast_depth;
    deepen(c, n, nops);
    /* operator precedence parsing over the collected sequence */
    operand *vals = need(c, d2_arena_alloc(c->a, nopnd * sizeof(operand)));
    d2_ast_operator *opstack = need(c, d2_arena_alloc(c->a, (nops + 1) * sizeof(d2_ast_operator)));
    size_t nv = 0, no = 0;
    for (size_t i = 0; i < nopnd; i++) {
        vals[nv].e = expr(c, opnd[i]);
        vals[nv].sp = span_of(opnd[i]);
        nv++;
        d2_ast_operator op = D2_OP_ADD;
        bool last = i + 1 == nopnd;
        if (!last)
            op = binop_of(c, &ops[i]);
        while (no && (last || binop_prec(opstack[no - 1]) > binop_prec(op) ||
                      (binop_prec(opstack[no - 1]) == binop_prec(op) && op != D2_OP_POW))) {
            operand r = vals[--nv], l = vals[--nv];
            d2_span bsp = span_to(l.sp, r.sp);
            vals[nv].e = need(c, d2_ast_bin_op(c->a, l.e, opstack[--no], r.e, bsp));
            vals[nv].sp = bsp;
            nv++;
        }
        if (!last)
            opstack[no++] = op;
    }
    c->ast_depth = saved_depth;
    return vals[0].e;
}

/* tree-sitter binds '*' tighter than calls, attributes and subscripts
 * ("*a.b()" arrives as call(attribute(list_splat(a)))); CPython's Starred
 * covers the whole primary. Moves a Starred found at *base out to wrap e,
 * which then starts where the starred value starts. */
static d2_ast_expr *hoist_star(cx *c, d2_ast_expr *e, d2_ast_expr **base, d2_ast_ctx ctx)
{
    (void)c;
    if ((*base)->kind != D2_AST_STARRED)
        return e;
    d2_ast_expr *star = *base;
    *base = star->starred.value;
    star->span = e->span;
    e->span.line = (*base)->span.line;
    e->span.col = (*base)->span.col;
    e->span.start = (*base)->span.start;
    star->starred.value = e;
    star->starred.ctx = ctx;
    return star;
}

/* Any expression node -> d2_ast_expr in Load context. Parentheses vanish
 * (the inner node keeps its own span), as in CPython. */
static d2_ast_expr *expr_inner(cx *c, TSNode n)
{
    d2_span sp = span_of(n);
    int t = T(c, n);
    switch (t) {
    case T_IDENTIFIER: return need(c, d2_ast_name(c->a, ident(c, n), D2_CTX_LOAD, sp));
    case T_INTEGER:
    case T_FLOAT: return number(c, n);
    case T_STRING:
    case T_CONCATENATED_STRING: return string_expr(c, n);
    case T_TRUE: return need(c, d2_ast_const_simple(c->a, D2_CONST_TRUE, sp));
    case T_FALSE: return need(c, d2_ast_const_simple(c->a, D2_CONST_FALSE, sp));
    case T_NONE: return need(c, d2_ast_const_simple(c->a, D2_CONST_NONE, sp));
    case T_ELLIPSIS: return need(c, d2_ast_const_simple(c->a, D2_CONST_ELLIPSIS, sp));
    case T_PARENTHESIZED_EXPRESSION: {
        TSNode inner = only_named(c, n);
        if (T(c, inner) == T_LIST_SPLAT)
            fail(c, span_of(inner), "cannot use starred expression here");
        return expr(c, inner);
    }
    case T_BOOLEAN_OPERATOR: {
        kids ks = get_kids(c, n);
        kid *l = kfield(c, &ks, F_LEFT), *op = kfield(c, &ks, F_OPERATOR),
            *r = kfield(c, &ks, F_RIGHT);
        if (!l || !op || !r)
            fail(c, sp, "invalid syntax");
        d2_ast_boolop bop = op->t == T_K_AND ? D2_BOOLOP_AND : D2_BOOLOP_OR;
        d2_ast_expr *left = expr(c, l->n);
        d2_ast_seq values = {0};
        /* a and b and c is one BoolOp; a parenthesised operand stays nested */
        if (l->t == T_BOOLEAN_OPERATOR && left->kind == D2_AST_BOOL_OP &&
            left->bool_op.op == bop)
            values = left->bool_op.values;
        else
            push(c, &values, left);
        push(c, &values, expr(c, r->n));
        return need(c, d2_ast_bool_op(c->a, bop, values, sp));
    }
    case T_NOT_OPERATOR: {
        kids ks = get_kids(c, n);
        kid *arg = kfield(c, &ks, F_ARGUMENT);
        if (!arg)
            fail(c, sp, "invalid syntax");
        return need(c, d2_ast_unary_op(c->a, D2_UNARY_NOT, expr(c, arg->n), sp));
    }
    case T_BINARY_OPERATOR: return binary_chain(c, n);
    case T_UNARY_OPERATOR: {
        kids ks = get_kids(c, n);
        kid *op = kfield(c, &ks, F_OPERATOR), *arg = kfield(c, &ks, F_ARGUMENT);
        if (!op || !arg)
            fail(c, sp, "invalid syntax");
        d2_ast_unaryop uop = op->t == T_K_MINUS ? D2_UNARY_USUB
                             : op->t == T_K_PLUS ? D2_UNARY_UADD
                                                 : D2_UNARY_INVERT;
        return need(c, d2_ast_unary_op(c->a, uop, expr(c, arg->n), sp));
    }
    case T_COMPARISON_OPERATOR: {
        kids ks = get_kids(c, n);
        d2_ast_expr *e = new_expr(c, D2_AST_COMPARE, sp);
        d2_ast_cmpop *ops = need(c, d2_arena_alloc(c->a, ks.n * sizeof(d2_ast_cmpop)));
        uint32_t nops = 0;
        for (uint32_t i = 0; i < ks.n; i++) {
            kid *k = &ks.k[i];
            if (ts_node_is_named(k->n)) {
                d2_ast_expr *v = expr(c, k->n);
                if (!e->compare.left)
                    e->compare.left = v;
                else
                    push(c, &e->compare.comparators, v);
                continue;
            }
            d2_ast_cmpop op;
            switch (k->t) {
            case T_K_LT: op = D2_CMP_LT; break;
            case T_K_GT: op = D2_CMP_GT; break;
            case T_K_LE: op = D2_CMP_LT_E; break;
            case T_K_GE: op = D2_CMP_GT_E; break;
            case T_K_EQEQ: op = D2_CMP_EQ; break;
            case T_K_NE: op = D2_CMP_NOT_EQ; break;
            case T_K_IN: op = D2_CMP_IN; break;
            case T_K_NOT_IN: op = D2_CMP_NOT_IN; break;
            case T_K_IS: op = D2_CMP_IS; break;
            case T_K_IS_NOT: op = D2_CMP_IS_NOT; break;
            default: fail(c, span_of(k->n), "invalid syntax");
            }
            ops[nops++] = op;
        }
        if (!e->compare.left || nops != e->compare.comparators.n || !nops)
            fail(c, sp, "invalid syntax");
        e->compare.ops = ops;
        return e;
    }
    case T_LAMBDA: {
        kids ks = get_kids(c, n);
        kid *params = kfield(c, &ks, F_PARAMETERS), *body = kfield(c, &ks, F_BODY);
        if (!body)
            fail(c, sp, "invalid syntax");
        d2_ast_expr *e = new_expr(c, D2_AST_LAMBDA, sp);
        e->lambda.args = params ? parameters(c, params->n, true)
                                : new_node(c, D2_AST_ARGUMENTS, sp);
        e->lambda.body = expr(c, body->n);
        return e;
    }
    case T_CONDITIONAL_EXPRESSION: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (nk.n != 3)
            fail(c, sp, "invalid syntax");
        d2_ast_expr *e = new_expr(c, D2_AST_IF_EXP, sp);
        e->if_exp.body = expr(c, nk.k[0].n);
        e->if_exp.test = expr(c, nk.k[1].n);
        e->if_exp.orelse = expr(c, nk.k[2].n);
        if (nk.k[0].t == T_NAMED_EXPRESSION) {
            /* "x := a if t else b" assigns the whole conditional; the grammar
             * binds the walrus tighter */
            d2_ast_expr *ne = e->if_exp.body;
            e->if_exp.body = ne->named_expr.value;
            e->span.line = ne->named_expr.value->span.line;
            e->span.col = ne->named_expr.value->span.col;
            e->span.start = ne->named_expr.value->span.start;
            ne->named_expr.value = e;
            ne->span = sp;
            return ne;
        }
        return e;
    }
    case T_NAMED_EXPRESSION: {
        kids ks = get_kids(c, n);
        kid *name = kfield(c, &ks, F_NAME), *value = kfield(c, &ks, F_VALUE);
        if (!name || !value || name->t != T_IDENTIFIER)
            fail(c, sp, "invalid syntax");
        d2_ast_expr *e = new_expr(c, D2_AST_NAMED_EXPR, sp);
        e->named_expr.target = need(c, d2_ast_name(c->a, ident(c, name->n), D2_CTX_STORE,
                                                   span_of(name->n)));
        e->named_expr.value = expr(c, value->n);
        return e;
    }
    case T_AWAIT: {
        d2_ast_expr *e = new_expr(c, D2_AST_AWAIT, sp);
        e->await.value = expr(c, only_named(c, n));
        return e;
    }
    case T_YIELD: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (nk.n > 1)
            fail(c, sp, "invalid syntax");
        if (has_tok(&ks, T_K_FROM)) {
            if (nk.n != 1)
                fail(c, sp, "invalid syntax");
            d2_ast_expr *e = new_expr(c, D2_AST_YIELD_FROM, sp);
            e->yield_from.value = expr(c, nk.k[0].n);
            return e;
        }
        d2_ast_expr *e = new_expr(c, D2_AST_YIELD, sp);
        if (nk.n)
            e->yield.value = rhs(c, nk.k[0].n);
        return e;
    }
    case T_CALL: {
        kids ks = get_kids(c, n);
        kid *fn = kfield(c, &ks, F_FUNCTION), *args = kfield(c, &ks, F_ARGUMENTS);
        if (!fn || !args)
            fail(c, sp, "invalid syntax");
        d2_ast_expr *func = expr(c, fn->n);
        d2_ast_seq a = {0}, kw = {0};
        call_args(c, args->n, &a, &kw);
        d2_ast_expr *e = need(c, d2_ast_call(c->a, func, a, kw, sp));
        return hoist_star(c, e, &e->call.func, D2_CTX_LOAD);
    }
    case T_ATTRIBUTE: {
        kids ks = get_kids(c, n);
        kid *obj = kfield(c, &ks, F_OBJECT), *attr = kfield(c, &ks, F_ATTRIBUTE);
        if (!obj || !attr)
            fail(c, sp, "invalid syntax");
        d2_ast_expr *e = need(c, d2_ast_attribute(c->a, expr(c, obj->n), ident(c, attr->n),
                                                  D2_CTX_LOAD, sp));
        return hoist_star(c, e, &e->attribute.value, D2_CTX_LOAD);
    }
    case T_SUBSCRIPT: return subscript(c, n, D2_CTX_LOAD);
    case T_LIST:
    case T_TUPLE:
    case T_SET: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        d2_ast_seq elts = elements(c, &nk, D2_CTX_LOAD, false);
        if (t == T_LIST)
            return need(c, d2_ast_list(c->a, elts, D2_CTX_LOAD, sp));
        if (t == T_TUPLE)
            return need(c, d2_ast_tuple(c->a, elts, D2_CTX_LOAD, sp));
        d2_ast_expr *e = new_expr(c, D2_AST_SET, sp);
        e->set.elts = elts;
        return e;
    }
    case T_EXPRESSION_LIST:
    case T_PATTERN_LIST: return tuple_of(c, n, sp, D2_CTX_LOAD, false);
    case T_LIST_SPLAT: {
        d2_ast_expr *e = new_expr(c, D2_AST_STARRED, sp);
        e->starred.value = expr(c, only_named(c, n));
        e->starred.ctx = D2_CTX_LOAD;
        return e;
    }
    case T_PARENTHESIZED_LIST_SPLAT: {
        TSNode inner = only_named(c, n);
        return expr(c, inner);
    }
    case T_DICTIONARY: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        d2_ast_expr *e = new_expr(c, D2_AST_DICT, sp);
        for (uint32_t i = 0; i < nk.n; i++) {
            kid *k = &nk.k[i];
            if (k->t == T_DICTIONARY_SPLAT) {
                push(c, &e->dict.keys, NULL);
                push(c, &e->dict.values, expr(c, only_named(c, k->n)));
                continue;
            }
            kids pk = get_kids(c, k->n);
            kid *key = kfield(c, &pk, F_KEY), *value = kfield(c, &pk, F_VALUE);
            if (k->t != T_PAIR || !key || !value)
                fail(c, span_of(k->n), "invalid syntax");
            push(c, &e->dict.keys, expr(c, key->n));
            push(c, &e->dict.values, expr(c, value->n));
        }
        return e;
    }
    case T_LIST_COMPREHENSION: return comprehension(c, n, D2_AST_LIST_COMP);
    case T_SET_COMPREHENSION: return comprehension(c, n, D2_AST_SET_COMP);
    case T_DICTIONARY_COMPREHENSION: return comprehension(c, n, D2_AST_DICT_COMP);
    case T_GENERATOR_EXPRESSION: return comprehension(c, n, D2_AST_GENERATOR_EXP);
    case T_TYPE:
    case T_GENERIC_TYPE:
    case T_UNION_TYPE:
    case T_MEMBER_TYPE:
    case T_SPLAT_TYPE:
    case T_CONSTRAINED_TYPE: return type_expr(c, n);
    case T_KEYWORD_ARGUMENT:
        fail(c, sp, "expression cannot contain assignment, perhaps you meant \"==\"?");
    default: break;
    }
    fail(c, sp, "invalid syntax");
}

static d2_ast_expr *expr(cx *c, TSNode n)
{
    enter(c, n);
    d2_ast_expr *e = expr_inner(c, n);
    leave(c);
    return e;
}

/* A union of types "A | B[x] | None": the grammar nests union_type and
 * '|' binary_operator nodes either way; CPython's BinOps nest to the left.
 * The operands are collected in source order (iteratively) and chained. */
static d2_ast_expr *union_chain(cx *c, TSNode n)
{
    size_t cap = 16, top = 0, nop = 0, opcap = 16;
    TSNode *stack = need(c, d2_arena_alloc(c->a, cap * sizeof(TSNode)));
    TSNode *opnd = need(c, d2_arena_alloc(c->a, opcap * sizeof(TSNode)));
    stack[top++] = n;
    while (top) {
        TSNode x = stack[--top];
        int t = T(c, x);
        kids ks = {NULL, 0};
        bool split = t == T_UNION_TYPE || t == T_TYPE;
        if (t == T_BINARY_OPERATOR) {
            ks = get_kids(c, x);
            kid *op = kfield(c, &ks, F_OPERATOR);
            split = op && op->t == T_K_PIPE;
        }
        if (!split) {
            if (nop == opcap) {
                opnd = need(c, d2_arena_realloc(c->a, opnd, opcap * sizeof(TSNode),
                                                2 * opcap * sizeof(TSNode)));
                opcap *= 2;
            }
            opnd[nop++] = x;
            continue;
        }
        if (!ks.k)
            ks = get_kids(c, x);
        kids nk = named(c, &ks);
        if (top + nk.n > cap) {
            size_t nc = 2 * (top + nk.n);
            stack = need(c, d2_arena_realloc(c->a, stack, cap * sizeof(TSNode), nc * sizeof(TSNode)));
            cap = nc;
        }
        for (uint32_t i = nk.n; i-- > 0;)
            stack[top++] = nk.k[i].n;
    }
    if (!nop)
        fail(c, span_of(n), "invalid syntax");
    int saved_depth = c->ast_depth;
    deepen(c, n, nop - 1);
    d2_ast_expr *e = type_expr(c, opnd[0]);
    d2_span esp = span_of(opnd[0]);
    for (size_t i = 1; i < nop; i++) {
        esp = span_to(esp, span_of(opnd[i]));
        e = need(c, d2_ast_bin_op(c->a, e, D2_OP_BIT_OR, type_expr(c, opnd[i]), esp));
    }
    c->ast_depth = saved_depth;
    return e;
}

static d2_ast_expr *type_expr_inner(cx *c, TSNode n);

/* An annotation: the grammar's type nodes are expressions in CPython. */
static d2_ast_expr *type_expr(cx *c, TSNode n)
{
    enter(c, n);
    d2_ast_expr *e = type_expr_inner(c, n);
    leave(c);
    return e;
}

static d2_ast_expr *type_expr_inner(cx *c, TSNode n)
{
    d2_span sp = span_of(n);
    switch (T(c, n)) {
    case T_TYPE: return type_expr(c, only_named(c, n));
    case T_GENERIC_TYPE: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (nk.n != 2 || nk.k[1].t != T_TYPE_PARAMETER)
            fail(c, sp, "invalid syntax");
        d2_ast_expr *base = expr(c, nk.k[0].n);
        kids pk = get_kids(c, nk.k[1].n);
        d2_ast_seq idx = {0};
        TSNode first = NULL_NODE, last = NULL_NODE;
        bool have = false, comma = false;
        for (uint32_t i = 0; i < pk.n; i++) {
            if (ts_node_is_named(pk.k[i].n)) {
                push(c, &idx, type_expr(c, pk.k[i].n));
                if (!have)
                    first = pk.k[i].n;
                have = true;
                last = pk.k[i].n;
            } else if (pk.k[i].t == T_K_COMMA && have) {
                comma = true;
                last = pk.k[i].n;
            }
        }
        if (!have)
            fail(c, sp, "invalid syntax");
        d2_ast_expr *slice =
            idx.n == 1 && !comma && ((d2_ast_expr *)idx.items[0])->kind != D2_AST_STARRED
                ? idx.items[0]
                : need(c, d2_ast_tuple(c->a, idx, D2_CTX_LOAD,
                                       span_to(span_of(first), span_of(last))));
        return need(c, d2_ast_subscript(c->a, base, slice, D2_CTX_LOAD, sp));
    }
    case T_UNION_TYPE: return union_chain(c, n);
    case T_MEMBER_TYPE: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (nk.n != 2 || nk.k[1].t != T_IDENTIFIER)
            fail(c, sp, "invalid syntax");
        return need(c, d2_ast_attribute(c->a, type_expr(c, nk.k[0].n), ident(c, nk.k[1].n),
                                        D2_CTX_LOAD, sp));
    }
    case T_SPLAT_TYPE: {
        kids ks = get_kids(c, n);
        if (has_tok(&ks, T_K_STARSTAR))
            fail(c, sp, "invalid syntax");
        d2_ast_expr *e = new_expr(c, D2_AST_STARRED, sp);
        e->starred.value = type_expr(c, only_named(c, n));
        e->starred.ctx = D2_CTX_LOAD;
        return e;
    }
    case T_CONSTRAINED_TYPE:
    case T_TYPE_PARAMETER:
        fail(c, sp, "type parameter syntax is not supported (it needs Python 3.12)");
    default: return expr(c, n);
    }
}

/* An assignment, for, with, del or comprehension target in context ctx. */
static d2_ast_expr *target_inner(cx *c, TSNode n, d2_ast_ctx ctx)
{
    d2_span sp = span_of(n);
    int t = T(c, n);
    switch (t) {
    case T_IDENTIFIER: return need(c, d2_ast_name(c->a, ident(c, n), ctx, sp));
    case T_ATTRIBUTE: {
        d2_ast_expr *e = expr(c, n);
        if (e->kind == D2_AST_STARRED) {
            e->starred.ctx = ctx;
            e->starred.value->attribute.ctx = ctx;
        } else {
            e->attribute.ctx = ctx;
        }
        return e;
    }
    case T_SUBSCRIPT: return subscript(c, n, ctx);
    case T_PARENTHESIZED_EXPRESSION: {
        TSNode inner = only_named(c, n);
        if (T(c, inner) == T_LIST_SPLAT)
            fail(c, span_of(inner), "cannot use starred expression here");
        return target(c, inner, ctx);
    }
    case T_TUPLE:
    case T_TUPLE_PATTERN:
    case T_LIST:
    case T_LIST_PATTERN:
    case T_PATTERN_LIST:
    case T_EXPRESSION_LIST: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        bool list = t == T_LIST || t == T_LIST_PATTERN;
        /* "(x)" is x itself: the grammar makes it a one-element tuple pattern */
        if (t == T_TUPLE_PATTERN && nk.n == 1 && !has_tok(&ks, T_K_COMMA)) {
            if (nk.k[0].t == T_LIST_SPLAT_PATTERN || nk.k[0].t == T_LIST_SPLAT)
                fail(c, span_of(nk.k[0].n), "cannot use starred expression here");
            return target(c, nk.k[0].n, ctx);
        }
        d2_ast_seq elts = elements(c, &nk, ctx, true);
        return list ? need(c, d2_ast_list(c->a, elts, ctx, sp))
                    : need(c, d2_ast_tuple(c->a, elts, ctx, sp));
    }
    case T_LIST_SPLAT:
    case T_LIST_SPLAT_PATTERN: {
        d2_ast_expr *e = new_expr(c, D2_AST_STARRED, sp);
        e->starred.value = target(c, only_named(c, n), ctx);
        e->starred.ctx = ctx;
        return e;
    }
    default: break;
    }
    d2_ast_expr *e = expr(c, n);
    fail(c, e->span, "cannot %s %s", ctx == D2_CTX_DEL ? "delete" : "assign to", expr_name(e));
}

static d2_ast_expr *target(cx *c, TSNode n, d2_ast_ctx ctx)
{
    enter(c, n);
    d2_ast_expr *e = target_inner(c, n, ctx);
    leave(c);
    return e;
}

/* ---- parameters ---- */

static d2_ast_arg *param_arg(cx *c, TSNode name, TSNode type_node, bool has_type)
{
    d2_span sp = span_of(name);
    d2_ast_expr *ann = NULL;
    if (has_type) {
        ann = type_expr(c, type_node);
        sp = span_to(sp, span_of(type_node));
    }
    return need(c, d2_ast_arg_new(c->a, ident(c, name), ann, sp));
}

/* The identifier inside *name / **name. */
static TSNode splat_name(cx *c, TSNode n)
{
    TSNode id = only_named(c, n);
    if (T(c, id) != T_IDENTIFIER)
        fail(c, span_of(n), "invalid syntax");
    return id;
}

/* parameters | lambda_parameters -> arguments: plain, typed and default
 * parameters, "/" (what came before is positional-only), "*" or *args
 * (what follows is keyword-only) and **kwargs. */
static d2_ast_arguments *parameters(cx *c, TSNode n, bool lambda)
{
    d2_ast_arguments *a = new_node(c, D2_AST_ARGUMENTS, span_of(n));
    kids ks = get_kids(c, n);
    kids nk = named(c, &ks);
    bool kwonly = false, seen_default = false;
    for (uint32_t i = 0; i < nk.n; i++) {
        kid *k = &nk.k[i];
        d2_span sp = span_of(k->n);
        if (a->kwarg)
            fail(c, sp, "arguments cannot follow var-keyword argument");
        TSNode name = k->n, type_node = NULL_NODE, value = NULL_NODE;
        bool has_type = false, has_value = false;
        int kind = k->t; /* of the parameter itself, typed or not */
        if (k->t == T_TYPED_PARAMETER || k->t == T_DEFAULT_PARAMETER ||
            k->t == T_TYPED_DEFAULT_PARAMETER) {
            kids pk = get_kids(c, k->n);
            kid *nm = kfield(c, &pk, F_NAME), *ty = kfield(c, &pk, F_TYPE),
                *val = kfield(c, &pk, F_VALUE);
            if (!nm) {
                /* typed_parameter names its parameter without a field */
                kids pn = named(c, &pk);
                nm = pn.n ? &pn.k[0] : NULL;
            }
            if (!nm)
                fail(c, sp, "invalid syntax");
            name = nm->n;
            kind = nm->t;
            if (ty) {
                type_node = ty->n;
                has_type = true;
            }
            if (val) {
                value = val->n;
                has_value = true;
            }
        }
        if (lambda && has_type)
            fail(c, sp, "invalid syntax");
        switch (kind) {
        case T_POSITIONAL_SEPARATOR:
            if (kwonly || a->posonlyargs.n)
                fail(c, sp, "/ must be ahead of *");
            if (!a->args.n)
                fail(c, sp, "at least one argument must precede /");
            a->posonlyargs = a->args;
            memset(&a->args, 0, sizeof a->args);
            break;
        case T_KEYWORD_SEPARATOR:
            if (kwonly)
                fail(c, sp, "* argument may appear only once");
            kwonly = true;
            break;
        case T_LIST_SPLAT_PATTERN:
            if (kwonly)
                fail(c, sp, "* argument may appear only once");
            if (has_value)
                fail(c, sp, "var-positional argument cannot have default value");
            kwonly = true;
            a->vararg = param_arg(c, splat_name(c, name), type_node, has_type);
            break;
        case T_DICTIONARY_SPLAT_PATTERN:
            if (has_value)
                fail(c, sp, "var-keyword argument cannot have default value");
            a->kwarg = param_arg(c, splat_name(c, name), type_node, has_type);
            break;
        case T_IDENTIFIER: {
            d2_ast_arg *arg = param_arg(c, name, type_node, has_type);
            if (kwonly) {
                push(c, &a->kwonlyargs, arg);
                push(c, &a->kw_defaults, has_value ? expr(c, value) : NULL);
            } else {
                push(c, &a->args, arg);
                if (has_value) {
                    push(c, &a->defaults, expr(c, value));
                    seen_default = true;
                } else if (seen_default) {
                    fail(c, sp, "non-default argument follows default argument");
                }
            }
            break;
        }
        default: fail(c, sp, "invalid syntax");
        }
    }
    if (kwonly && !a->vararg && !a->kwonlyargs.n)
        fail(c, span_of(n), "named arguments must follow bare *");
    return a;
}

/* ---- patterns ---- */

static d2_ast_pattern *new_pattern(cx *c, d2_ast_kind k, d2_span sp)
{
    return new_node(c, k, sp);
}

/* A literal or value expression of a pattern, negative when minus (the
 * grammar's separate '-' token) is not null. */
static d2_ast_expr *complex_value(cx *c, TSNode n);

static d2_ast_expr *pattern_value_expr(cx *c, TSNode n, TSNode minus, bool neg)
{
    d2_ast_expr *v;
    if (T(c, n) == T_COMPLEX_PATTERN)
        return complex_value(c, n);
    if (T(c, n) == T_DOTTED_NAME) {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (!nk.n)
            fail(c, span_of(n), "invalid syntax");
        v = need(c, d2_ast_name(c->a, ident(c, nk.k[0].n), D2_CTX_LOAD, span_of(nk.k[0].n)));
        for (uint32_t i = 1; i < nk.n; i++)
            v = need(c, d2_ast_attribute(c->a, v, ident(c, nk.k[i].n), D2_CTX_LOAD,
                                         span_to(span_of(nk.k[0].n), span_of(nk.k[i].n))));
    } else {
        v = expr(c, n);
    }
    if (neg)
        v = need(c, d2_ast_unary_op(c->a, D2_UNARY_USUB, v, span_to(span_of(minus), v->span)));
    return v;
}

static d2_ast_pattern *value_pattern(cx *c, d2_ast_expr *v)
{
    d2_ast_pattern *p = new_pattern(c, D2_AST_MATCH_VALUE, v->span);
    p->match_value.value = v;
    return p;
}

/* complex_pattern: [-] real (+|-) imag. */
static d2_ast_expr *complex_value(cx *c, TSNode n)
{
    kids ks = get_kids(c, n);
    TSNode minus = NULL_NODE;
    bool neg = false;
    d2_ast_expr *left = NULL, *right = NULL;
    d2_ast_operator op = D2_OP_ADD;
    for (uint32_t i = 0; i < ks.n; i++) {
        kid *k = &ks.k[i];
        if (k->t == T_K_MINUS && !left) {
            minus = k->n;
            neg = true;
        } else if ((k->t == T_K_MINUS || k->t == T_K_PLUS) && left) {
            op = k->t == T_K_MINUS ? D2_OP_SUB : D2_OP_ADD;
        } else if (ts_node_is_named(k->n)) {
            if (!left)
                left = pattern_value_expr(c, k->n, minus, neg);
            else
                right = expr(c, k->n);
        }
    }
    if (!left || !right)
        fail(c, span_of(n), "invalid syntax");
    if (right->kind != D2_AST_CONSTANT || right->constant.value.kind != D2_CONST_COMPLEX)
        fail(c, right->span, "imaginary number required in complex literal");
    return need(c, d2_ast_bin_op(c->a, left, op, right, span_of(n)));
}

static d2_ast_pattern *wildcard(cx *c, d2_span sp) { return new_pattern(c, D2_AST_MATCH_AS, sp); }

/* The items of a sequence of bare patterns (in union, keyword or case
 * patterns) where '-' and '_' are separate tokens. Converts the pattern at
 * ks->k[*i] (after an optional '-') and advances *i past it. */
static d2_ast_pattern *pattern_item(cx *c, kids *ks, uint32_t *i)
{
    TSNode minus = NULL_NODE;
    bool neg = false;
    for (; *i < ks->n; (*i)++) {
        kid *k = &ks->k[*i];
        if (k->t == T_K_MINUS) {
            minus = k->n;
            neg = true;
            continue;
        }
        if (k->t == T_K_UNDERSCORE) {
            (*i)++;
            return wildcard(c, span_of(k->n));
        }
        if (!ts_node_is_named(k->n))
            continue;
        (*i)++;
        if (neg) {
            if (k->t != T_INTEGER && k->t != T_FLOAT)
                fail(c, span_of(k->n), "invalid syntax");
            return value_pattern(c, pattern_value_expr(c, k->n, minus, true));
        }
        return pattern(c, k->n);
    }
    return NULL;
}

/* case_pattern and the pattern forms -> MatchValue, MatchSingleton,
 * MatchSequence, MatchMapping, MatchClass, MatchStar, MatchAs, MatchOr. */
static d2_ast_pattern *pattern_inner(cx *c, TSNode n)
{
    d2_span sp = span_of(n);
    int t = T(c, n);
    switch (t) {
    case T_CASE_PATTERN: {
        kids ks = get_kids(c, n);
        uint32_t i = 0;
        d2_ast_pattern *p = pattern_item(c, &ks, &i);
        if (!p)
            return wildcard(c, sp); /* a bare '_' may be hidden inside */
        if (i < ks.n)
            fail(c, sp, "invalid syntax");
        return p;
    }
    case T_DOTTED_NAME: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (nk.n == 1) {
            d2_ast_pattern *p = new_pattern(c, D2_AST_MATCH_AS, sp);
            p->match_as.name = ident(c, nk.k[0].n);
            return p;
        }
        return value_pattern(c, pattern_value_expr(c, n, (TSNode)NULL_NODE, false));
    }
    case T_INTEGER:
    case T_FLOAT:
    case T_STRING:
    case T_CONCATENATED_STRING: {
        d2_ast_expr *v = expr(c, n);
        if (v->kind == D2_AST_JOINED_STR)
            fail(c, sp, "patterns may only match literals and attribute lookups");
        return value_pattern(c, v);
    }
    case T_COMPLEX_PATTERN: return value_pattern(c, complex_value(c, n));
    case T_NONE:
    case T_TRUE:
    case T_FALSE: {
        d2_ast_pattern *p = new_pattern(c, D2_AST_MATCH_SINGLETON, sp);
        p->match_singleton.value.kind = t == T_NONE   ? D2_CONST_NONE
                                        : t == T_TRUE ? D2_CONST_TRUE
                                                      : D2_CONST_FALSE;
        return p;
    }
    case T_LIST_PATTERN:
    case T_TUPLE_PATTERN: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (t == T_TUPLE_PATTERN && nk.n == 1 && !has_tok(&ks, T_K_COMMA))
            return pattern(c, nk.k[0].n); /* a group: (p) */
        d2_ast_pattern *p = new_pattern(c, D2_AST_MATCH_SEQUENCE, sp);
        for (uint32_t i = 0; i < nk.n; i++)
            push(c, &p->match_sequence.patterns, pattern(c, nk.k[i].n));
        return p;
    }
    case T_UNION_PATTERN: {
        kids ks = get_kids(c, n);
        d2_ast_pattern *p = new_pattern(c, D2_AST_MATCH_OR, sp);
        uint32_t i = 0;
        d2_ast_pattern *item;
        while ((item = pattern_item(c, &ks, &i)))
            push(c, &p->match_or.patterns, item); /* "(a | b) | c" stays nested */
        if (p->match_or.patterns.n < 2)
            fail(c, sp, "invalid syntax");
        return p;
    }
    case T_AS_PATTERN: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (nk.n != 2 || nk.k[1].t != T_IDENTIFIER)
            fail(c, sp, "invalid pattern target");
        d2_ast_pattern *p = new_pattern(c, D2_AST_MATCH_AS, sp);
        p->match_as.pattern = pattern(c, nk.k[0].n);
        p->match_as.name = ident(c, nk.k[1].n);
        return p;
    }
    case T_SPLAT_PATTERN: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (has_tok(&ks, T_K_STARSTAR))
            fail(c, sp, "invalid syntax");
        d2_ast_pattern *p = new_pattern(c, D2_AST_MATCH_STAR, sp);
        if (nk.n)
            p->match_star.name = ident(c, nk.k[0].n);
        return p;
    }
    case T_DICT_PATTERN: {
        kids ks = get_kids(c, n);
        d2_ast_pattern *p = new_pattern(c, D2_AST_MATCH_MAPPING, sp);
        TSNode minus = NULL_NODE;
        bool neg = false;
        for (uint32_t i = 0; i < ks.n; i++) {
            kid *k = &ks.k[i];
            if (k->t == T_K_MINUS && k->f == c->fid[F_KEY]) {
                minus = k->n;
                neg = true;
            } else if (k->f == c->fid[F_KEY] && ts_node_is_named(k->n)) {
                if (p->match_mapping.rest)
                    fail(c, span_of(k->n), "invalid syntax");
                d2_ast_expr *key = pattern_value_expr(c, k->n, minus, neg);
                push(c, &p->match_mapping.keys, key);
                neg = false;
            } else if (k->f == c->fid[F_VALUE]) {
                push(c, &p->match_mapping.patterns, pattern(c, k->n));
            } else if (k->t == T_SPLAT_PATTERN) {
                kids sk = get_kids(c, k->n);
                kids sn = named(c, &sk);
                if (!sn.n)
                    fail(c, span_of(k->n), "invalid syntax");
                p->match_mapping.rest = ident(c, sn.k[0].n);
            }
        }
        if (p->match_mapping.keys.n != p->match_mapping.patterns.n)
            fail(c, sp, "invalid syntax");
        return p;
    }
    case T_CLASS_PATTERN: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (!nk.n || nk.k[0].t != T_DOTTED_NAME)
            fail(c, sp, "invalid syntax");
        d2_ast_pattern *p = new_pattern(c, D2_AST_MATCH_CLASS, sp);
        p->match_class.cls = pattern_value_expr(c, nk.k[0].n, (TSNode)NULL_NODE, false);
        for (uint32_t i = 1; i < nk.n; i++) {
            TSNode item = nk.k[i].n;
            TSNode inner = item;
            if (nk.k[i].t == T_CASE_PATTERN) {
                kids ik = get_kids(c, item);
                kids in = named(c, &ik);
                if (in.n == 1 && in.k[0].t == T_KEYWORD_PATTERN)
                    inner = in.k[0].n;
            }
            if (T(c, inner) == T_KEYWORD_PATTERN) {
                kids kk = get_kids(c, inner);
                if (!kk.n || kk.k[0].t != T_IDENTIFIER)
                    fail(c, span_of(inner), "invalid syntax");
                push(c, &p->match_class.kwd_attrs, (void *)ident(c, kk.k[0].n));
                uint32_t j = 1;
                while (j < kk.n && kk.k[j].t == T_K_EQUAL)
                    j++;
                d2_ast_pattern *v = pattern_item(c, &kk, &j);
                if (!v)
                    fail(c, span_of(inner), "invalid syntax");
                push(c, &p->match_class.kwd_patterns, v);
            } else {
                if (p->match_class.kwd_attrs.n)
                    fail(c, span_of(item), "positional patterns follow keyword patterns");
                push(c, &p->match_class.patterns, pattern(c, item));
            }
        }
        return p;
    }
    case T_K_UNDERSCORE: return wildcard(c, sp);
    default: break;
    }
    fail(c, sp, "invalid pattern");
}

static d2_ast_pattern *pattern(cx *c, TSNode n)
{
    enter(c, n);
    d2_ast_pattern *p = pattern_inner(c, n);
    leave(c);
    return p;
}

/* ---- statements ---- */

/* dotted_name -> "a.b.c" (whitespace between the parts dropped). */
static const char *dotted(cx *c, TSNode n)
{
    if (T(c, n) != T_DOTTED_NAME)
        fail(c, span_of(n), "invalid syntax");
    kids ks = get_kids(c, n);
    kids nk = named(c, &ks);
    sbuf b = {0};
    for (uint32_t i = 0; i < nk.n; i++) {
        size_t len;
        const char *s = text(c, nk.k[i].n, &len);
        if (i)
            sb_add(c, &b, ".", 1);
        sb_add(c, &b, s, len);
    }
    return sb_take(c, &b);
}

/* dotted_name [as identifier] -> alias. */
static d2_ast_alias *import_alias(cx *c, kid *k)
{
    d2_span sp = span_of(k->n);
    d2_ast_alias *al = new_node(c, D2_AST_ALIAS, sp);
    if (k->t == T_ALIASED_IMPORT) {
        kids ks = get_kids(c, k->n);
        kid *name = kfield(c, &ks, F_NAME), *alias = kfield(c, &ks, F_ALIAS);
        if (!name || !alias)
            fail(c, sp, "invalid syntax");
        al->name = dotted(c, name->n);
        al->asname = ident(c, alias->n);
    } else {
        al->name = dotted(c, k->n);
    }
    return al;
}

/* from [.]*module import names | * -> ImportFrom (level counts the dots). */
static d2_ast_stmt *import_from(cx *c, TSNode n, d2_span sp, bool future)
{
    kids ks = get_kids(c, n);
    d2_ast_stmt *s = new_stmt(c, D2_AST_IMPORT_FROM, sp);
    if (future) {
        s->import_from.module = "__future__";
    } else {
        kid *m = kfield(c, &ks, F_MODULE_NAME);
        if (!m)
            fail(c, sp, "invalid syntax");
        if (m->t == T_RELATIVE_IMPORT) {
            kids rk = get_kids(c, m->n);
            for (uint32_t i = 0; i < rk.n; i++) {
                if (rk.k[i].t == T_IMPORT_PREFIX) {
                    size_t len;
                    const char *p = text(c, rk.k[i].n, &len);
                    for (size_t j = 0; j < len; j++)
                        s->import_from.level += p[j] == '.';
                } else if (rk.k[i].t == T_DOTTED_NAME) {
                    s->import_from.module = dotted(c, rk.k[i].n);
                }
            }
        } else {
            s->import_from.module = dotted(c, m->n);
        }
    }
    for (uint32_t i = 0; i < ks.n; i++) {
        kid *k = &ks.k[i];
        if (k->t == T_WILDCARD_IMPORT) {
            d2_ast_alias *al = new_node(c, D2_AST_ALIAS, span_of(k->n));
            al->name = "*";
            push(c, &s->import_from.names, al);
        } else if (k->f == c->fid[F_NAME] && k->f) {
            push(c, &s->import_from.names, import_alias(c, k));
        }
    }
    if (!s->import_from.names.n)
        fail(c, sp, "invalid syntax");
    return s;
}

/* The body of an else_clause or finally_clause (its block kid). */
static void clause_body(cx *c, TSNode clause, d2_ast_seq *out, const char *what)
{
    kids ks = get_kids(c, clause);
    kid *b = kfield(c, &ks, F_BODY);
    if (!b)
        for (uint32_t i = 0; i < ks.n; i++)
            if (ks.k[i].t == T_BLOCK)
                b = &ks.k[i];
    if (!b)
        fail(c, span_of(clause), "expected ':'");
    block(c, b->n, out, clause, what);
}

/* The exception of "except E" or "except* E"; the grammar reads
 * "except *E" (with a space) as a starred expression. */
static d2_ast_expr *except_type(cx *c, TSNode n)
{
    if (T(c, n) == T_LIST_SPLAT)
        return expr(c, only_named(c, n));
    return expr(c, n);
}

/* Whether an except clause is an except* one. */
static bool except_is_star(cx *c, kid *k)
{
    if (k->t == T_EXCEPT_GROUP_CLAUSE)
        return true;
    if (k->t != T_EXCEPT_CLAUSE)
        return false;
    kids ks = get_kids(c, k->n);
    kids nk = named(c, &ks);
    if (!nk.n)
        return false;
    TSNode e = nk.k[0].n;
    if (nk.k[0].t == T_AS_PATTERN) {
        kids ak = get_kids(c, e);
        kids an = named(c, &ak);
        if (!an.n)
            return false;
        e = an.k[0].n;
    }
    return T(c, e) == T_LIST_SPLAT;
}

/* except [E [as name]]: block -> ExceptHandler, spanning to the end of
 * its block. */
static d2_ast_excepthandler *except_clause(cx *c, TSNode n, bool star)
{
    kids ks = get_kids(c, n);
    kids nk = named(c, &ks);
    d2_ast_excepthandler *h = new_node(c, D2_AST_EXCEPT_HANDLER, span_of(n));
    kid *body = NULL;
    uint32_t nexpr = 0;
    for (uint32_t i = 0; i < nk.n; i++) {
        kid *k = &nk.k[i];
        if (k->t == T_BLOCK) {
            body = k;
            continue;
        }
        if (nexpr++)
            fail(c, span_of(k->n), "multiple exception types must be parenthesized");
        if (k->t == T_AS_PATTERN) {
            kids ak = get_kids(c, k->n);
            kids an = named(c, &ak);
            if (an.n != 2 || an.k[1].t != T_AS_PATTERN_TARGET)
                fail(c, span_of(k->n), "invalid syntax");
            TSNode name = only_named(c, an.k[1].n);
            if (T(c, name) != T_IDENTIFIER)
                fail(c, span_of(name), "cannot use %s as except target",
                     expr_name(expr(c, name)));
            h->type = except_type(c, an.k[0].n);
            h->name = ident(c, name);
        } else {
            h->type = except_type(c, k->n);
        }
    }
    if (!body)
        fail(c, span_of(n), "expected ':'");
    if (star && !h->type)
        fail(c, span_of(n), "expected one or more exception types");
    block(c, body->n, &h->body, n, "'except' statement");
    h->span = end_at_last(c, h->span, &h->body);
    return h;
}

/* expr [as target] -> withitem. */
static d2_ast_withitem *with_item(cx *c, TSNode n)
{
    kids ks = get_kids(c, n);
    kid *v = kfield(c, &ks, F_VALUE);
    if (!v) {
        kids nk = named(c, &ks);
        v = nk.n == 1 ? &nk.k[0] : NULL;
    }
    if (!v)
        fail(c, span_of(n), "invalid syntax");
    d2_ast_withitem *w = new_node(c, D2_AST_WITHITEM, span_of(n));
    if (v->t == T_PARENTHESIZED_EXPRESSION) {
        /* "with (cm as x):" */
        kids pk = get_kids(c, v->n);
        kids pn = named(c, &pk);
        if (pn.n == 1 && pn.k[0].t == T_AS_PATTERN)
            v = &pn.k[0];
    }
    if (v->t == T_AS_PATTERN) {
        kids ak = get_kids(c, v->n);
        kids an = named(c, &ak);
        if (an.n != 2 || an.k[1].t != T_AS_PATTERN_TARGET)
            fail(c, span_of(v->n), "invalid syntax");
        w->context_expr = expr(c, an.k[0].n);
        w->optional_vars = target(c, only_named(c, an.k[1].n), D2_CTX_STORE);
    } else {
        w->context_expr = expr(c, v->n);
    }
    return w;
}

/* [async] def name(params) [-> type]: block -> (Async)FunctionDef,
 * spanning from def (or async) to the end of the body. */
static d2_ast_stmt *function_def(cx *c, TSNode n, d2_ast_seq decorators)
{
    kids ks = get_kids(c, n);
    kid *name = kfield(c, &ks, F_NAME), *params = kfield(c, &ks, F_PARAMETERS),
        *ret = kfield(c, &ks, F_RETURN_TYPE), *body = kfield(c, &ks, F_BODY),
        *tparams = kfield(c, &ks, F_TYPE_PARAMETERS);
    d2_span sp = span_of(n);
    if (tparams)
        fail(c, span_of(tparams->n), "type parameter syntax is not supported (it needs Python 3.12)");
    if (!name || !params || !body)
        fail(c, sp, "invalid syntax");
    d2_ast_stmt *s = new_stmt(c, has_tok(&ks, T_K_ASYNC) ? D2_AST_ASYNC_FUNCTION_DEF
                                                         : D2_AST_FUNCTION_DEF, sp);
    s->function_def.name = ident(c, name->n);
    s->function_def.args = parameters(c, params->n, false);
    s->function_def.decorator_list = decorators;
    if (ret)
        s->function_def.returns = type_expr(c, ret->n);
    block(c, body->n, &s->function_def.body, n, "function definition");
    s->span = end_at_last(c, sp, &s->function_def.body);
    return s;
}

/* class name[(bases, keywords)]: block -> ClassDef. */
static d2_ast_stmt *class_def(cx *c, TSNode n, d2_ast_seq decorators)
{
    kids ks = get_kids(c, n);
    kid *name = kfield(c, &ks, F_NAME), *supers = kfield(c, &ks, F_SUPERCLASSES),
        *body = kfield(c, &ks, F_BODY), *tparams = kfield(c, &ks, F_TYPE_PARAMETERS);
    d2_span sp = span_of(n);
    if (tparams)
        fail(c, span_of(tparams->n), "type parameter syntax is not supported (it needs Python 3.12)");
    if (!name || !body)
        fail(c, sp, "invalid syntax");
    d2_ast_stmt *s = new_stmt(c, D2_AST_CLASS_DEF, sp);
    s->class_def.name = ident(c, name->n);
    if (supers)
        call_args(c, supers->n, &s->class_def.bases, &s->class_def.keywords);
    s->class_def.decorator_list = decorators;
    block(c, body->n, &s->class_def.body, n, "class definition");
    s->span = end_at_last(c, sp, &s->class_def.body);
    return s;
}

/* a = b = value -> Assign (targets in order); target: type [= value] ->
 * AnnAssign. */
static d2_ast_stmt *assignment(cx *c, TSNode n, d2_span sp)
{
    kids ks = get_kids(c, n);
    kid *left = kfield(c, &ks, F_LEFT), *type = kfield(c, &ks, F_TYPE),
        *right = kfield(c, &ks, F_RIGHT);
    if (!left)
        fail(c, sp, "invalid syntax");
    if (type) {
        d2_ast_stmt *s = new_stmt(c, D2_AST_ANN_ASSIGN, sp);
        d2_ast_expr *t = target(c, left->n, D2_CTX_STORE);
        if (t->kind == D2_AST_TUPLE || t->kind == D2_AST_LIST)
            fail(c, t->span, "only single target (not %s) can be annotated",
                 t->kind == D2_AST_TUPLE ? "tuple" : "list");
        if (t->kind == D2_AST_STARRED)
            fail(c, t->span, "invalid syntax");
        s->ann_assign.target = t;
        s->ann_assign.annotation = type_expr(c, type->n);
        if (right)
            s->ann_assign.value = rhs(c, right->n);
        s->ann_assign.simple = left->t == T_IDENTIFIER;
        return s;
    }
    if (!right)
        fail(c, sp, "invalid syntax");
    d2_ast_seq targets = {0};
    push(c, &targets, target(c, left->n, D2_CTX_STORE));
    TSNode r = right->n;
    while (T(c, r) == T_ASSIGNMENT) {
        kids rk = get_kids(c, r);
        kid *l2 = kfield(c, &rk, F_LEFT), *r2 = kfield(c, &rk, F_RIGHT);
        if (!l2 || !r2 || kfield(c, &rk, F_TYPE))
            fail(c, span_of(r), "invalid syntax");
        push(c, &targets, target(c, l2->n, D2_CTX_STORE));
        r = r2->n;
    }
    return need(c, d2_ast_assign(c->a, targets, rhs(c, r), sp));
}

/* target op= value -> AugAssign. */
static d2_ast_stmt *aug_assignment(cx *c, TSNode n, d2_span sp)
{
    kids ks = get_kids(c, n);
    kid *left = kfield(c, &ks, F_LEFT), *op = kfield(c, &ks, F_OPERATOR),
        *right = kfield(c, &ks, F_RIGHT);
    if (!left || !right)
        fail(c, sp, "invalid syntax");
    d2_ast_stmt *s = new_stmt(c, D2_AST_AUG_ASSIGN, sp);
    int lt = left->t;
    if (lt != T_IDENTIFIER && lt != T_ATTRIBUTE && lt != T_SUBSCRIPT) {
        d2_ast_expr *e = expr(c, left->n);
        if (e->kind != D2_AST_NAME && e->kind != D2_AST_ATTRIBUTE &&
            e->kind != D2_AST_SUBSCRIPT)
            fail(c, e->span, "'%s' is an illegal expression for augmented assignment",
                 expr_name(e));
    }
    s->aug_assign.target = target(c, left->n, D2_CTX_STORE);
    s->aug_assign.op = binop_of(c, op);
    s->aug_assign.value = rhs(c, right->n);
    return s;
}

/* if/elif/else: the elif clauses become nested If nodes in orelse. */
static d2_ast_stmt *if_stmt(cx *c, TSNode n)
{
    kids ks = get_kids(c, n);
    kid *cond = kfield(c, &ks, F_CONDITION), *cons = kfield(c, &ks, F_CONSEQUENCE);
    if (!cond || !cons)
        fail(c, span_of(n), "invalid syntax");
    d2_ast_seq orelse = {0};
    int saved_depth = c->ast_depth;
    /* the clauses after the consequence, converted last to first */
    for (uint32_t i = ks.n; i-- > 0;) {
        kid *k = &ks.k[i];
        if (k->t == T_ELSE_CLAUSE) {
            clause_body(c, k->n, &orelse, "'else' statement");
        } else if (k->t == T_ELIF_CLAUSE) {
            kids ek = get_kids(c, k->n);
            kid *ec = kfield(c, &ek, F_CONDITION), *eb = kfield(c, &ek, F_CONSEQUENCE);
            if (!ec || !eb)
                fail(c, span_of(k->n), "invalid syntax");
            d2_ast_seq body = {0};
            deepen(c, k->n, 1); /* each elif nests one If deeper */
            d2_ast_expr *test = expr(c, ec->n);
            block(c, eb->n, &body, k->n, "'elif' statement");
            d2_span sp = end_at_last(c, span_of(k->n), &body);
            sp = end_at_last(c, sp, &orelse);
            d2_ast_stmt *s = need(c, d2_ast_if(c->a, test, body, orelse, sp));
            memset(&orelse, 0, sizeof orelse);
            push(c, &orelse, s);
        }
    }
    d2_ast_seq body = {0};
    d2_ast_expr *test = expr(c, cond->n);
    block(c, cons->n, &body, n, "'if' statement");
    d2_span sp = end_at_last(c, span_of(n), &body);
    sp = end_at_last(c, sp, &orelse);
    c->ast_depth = saved_depth;
    return need(c, d2_ast_if(c->a, test, body, orelse, sp));
}

static d2_ast_stmt *stmt_inner(cx *c, TSNode n);

static d2_ast_stmt *stmt(cx *c, TSNode n)
{
    enter(c, n);
    d2_ast_stmt *s = stmt_inner(c, n);
    leave(c);
    return s;
}

/* One statement (simple or compound) of any kind. */
static d2_ast_stmt *stmt_inner(cx *c, TSNode n)
{
    d2_span sp = span_of(n);
    int t = T(c, n);
    switch (t) {
    case T_EXPRESSION_STATEMENT: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (!nk.n)
            fail(c, sp, "invalid syntax");
        if (nk.n == 1 && !has_tok(&ks, T_K_COMMA)) {
            kid *k = &nk.k[0];
            if (k->t == T_ASSIGNMENT)
                return assignment(c, k->n, sp);
            if (k->t == T_AUGMENTED_ASSIGNMENT)
                return aug_assignment(c, k->n, sp);
            return need(c, d2_ast_expr_stmt(c->a, expr(c, k->n), sp));
        }
        for (uint32_t i = 0; i < nk.n; i++)
            if (nk.k[i].t == T_ASSIGNMENT || nk.k[i].t == T_AUGMENTED_ASSIGNMENT)
                fail(c, span_of(nk.k[i].n), "invalid syntax");
        d2_ast_expr *tup =
            need(c, d2_ast_tuple(c->a, elements(c, &nk, D2_CTX_LOAD, false), D2_CTX_LOAD, sp));
        return need(c, d2_ast_expr_stmt(c->a, tup, sp));
    }
    case T_RETURN_STATEMENT: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        return need(c, d2_ast_return(c->a, nk.n ? rhs(c, nk.k[0].n) : NULL, sp));
    }
    case T_DELETE_STATEMENT: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (nk.n != 1)
            fail(c, sp, "invalid syntax");
        d2_ast_stmt *s = new_stmt(c, D2_AST_DELETE, sp);
        if (nk.k[0].t == T_EXPRESSION_LIST) {
            kids ek = get_kids(c, nk.k[0].n);
            kids en = named(c, &ek);
            s->delete.targets = elements(c, &en, D2_CTX_DEL, true);
        } else {
            push(c, &s->delete.targets, target(c, nk.k[0].n, D2_CTX_DEL));
        }
        for (uint32_t i = 0; i < s->delete.targets.n; i++) {
            d2_ast_expr *e = s->delete.targets.items[i];
            if (e->kind == D2_AST_STARRED)
                fail(c, e->span, "cannot delete starred");
        }
        return s;
    }
    case T_RAISE_STATEMENT: {
        kids ks = get_kids(c, n);
        d2_ast_stmt *s = new_stmt(c, D2_AST_RAISE, sp);
        for (uint32_t i = 0; i < ks.n; i++) {
            kid *k = &ks.k[i];
            if (!ts_node_is_named(k->n))
                continue;
            if (k->f == c->fid[F_CAUSE] && k->f)
                s->raise.cause = expr(c, k->n);
            else if (!s->raise.exc)
                s->raise.exc = rhs(c, k->n);
            else
                fail(c, span_of(k->n), "invalid syntax");
        }
        if (s->raise.cause && !s->raise.exc)
            fail(c, sp, "invalid syntax");
        return s;
    }
    case T_PASS_STATEMENT: return need(c, d2_ast_simple_stmt(c->a, D2_AST_PASS, sp));
    case T_BREAK_STATEMENT: return need(c, d2_ast_simple_stmt(c->a, D2_AST_BREAK, sp));
    case T_CONTINUE_STATEMENT: return need(c, d2_ast_simple_stmt(c->a, D2_AST_CONTINUE, sp));
    case T_IF_STATEMENT: return if_stmt(c, n);
    case T_FOR_STATEMENT: {
        kids ks = get_kids(c, n);
        kid *left = kfield(c, &ks, F_LEFT), *right = kfield(c, &ks, F_RIGHT),
            *body = kfield(c, &ks, F_BODY), *alt = kfield(c, &ks, F_ALTERNATIVE);
        if (!left || !right || !body)
            fail(c, sp, "invalid syntax");
        d2_ast_stmt *s = new_stmt(c, has_tok(&ks, T_K_ASYNC) ? D2_AST_ASYNC_FOR : D2_AST_FOR, sp);
        s->for_.target = target(c, left->n, D2_CTX_STORE);
        s->for_.iter = rhs(c, right->n);
        block(c, body->n, &s->for_.body, n, "'for' statement");
        if (alt)
            clause_body(c, alt->n, &s->for_.orelse, "'else' statement");
        s->span = end_at_last(c, end_at_last(c, sp, &s->for_.body), &s->for_.orelse);
        return s;
    }
    case T_WHILE_STATEMENT: {
        kids ks = get_kids(c, n);
        kid *cond = kfield(c, &ks, F_CONDITION), *body = kfield(c, &ks, F_BODY),
            *alt = kfield(c, &ks, F_ALTERNATIVE);
        if (!cond || !body)
            fail(c, sp, "invalid syntax");
        d2_ast_seq b = {0}, orelse = {0};
        d2_ast_expr *test = expr(c, cond->n);
        block(c, body->n, &b, n, "'while' statement");
        if (alt)
            clause_body(c, alt->n, &orelse, "'else' statement");
        return need(c, d2_ast_while(c->a, test, b, orelse,
                                    end_at_last(c, end_at_last(c, sp, &b), &orelse)));
    }
    case T_TRY_STATEMENT: {
        kids ks = get_kids(c, n);
        kid *body = kfield(c, &ks, F_BODY);
        if (!body)
            fail(c, sp, "invalid syntax");
        int nstar = 0, nplain = 0;
        for (uint32_t i = 0; i < ks.n; i++) {
            if (except_is_star(c, &ks.k[i]))
                nstar++;
            else if (ks.k[i].t == T_EXCEPT_CLAUSE)
                nplain++;
        }
        bool star = nstar > 0;
        if (nstar && nplain)
            fail(c, sp, "cannot have both 'except' and 'except*' on the same 'try'");
        d2_ast_stmt *s = new_stmt(c, star ? D2_AST_TRY_STAR : D2_AST_TRY, sp);
        block(c, body->n, &s->try_.body, n, "'try' statement");
        d2_span end = end_at_last(c, sp, &s->try_.body);
        for (uint32_t i = 0; i < ks.n; i++) {
            kid *k = &ks.k[i];
            if (k->t == T_EXCEPT_CLAUSE || k->t == T_EXCEPT_GROUP_CLAUSE) {
                d2_ast_excepthandler *h = except_clause(c, k->n, star);
                push(c, &s->try_.handlers, h);
                end = span_to(end, h->span);
            } else if (k->t == T_ELSE_CLAUSE) {
                clause_body(c, k->n, &s->try_.orelse, "'else' statement");
                end = end_at_last(c, end, &s->try_.orelse);
            } else if (k->t == T_FINALLY_CLAUSE) {
                clause_body(c, k->n, &s->try_.finalbody, "'finally' statement");
                end = end_at_last(c, end, &s->try_.finalbody);
            }
        }
        if (!s->try_.handlers.n && !s->try_.finalbody.n)
            fail(c, sp, "expected 'except' or 'finally' block");
        if (s->try_.orelse.n && !s->try_.handlers.n)
            fail(c, sp, "invalid syntax");
        s->span = end;
        return s;
    }
    case T_WITH_STATEMENT: {
        kids ks = get_kids(c, n);
        kid *body = kfield(c, &ks, F_BODY), *clause = NULL;
        for (uint32_t i = 0; i < ks.n; i++)
            if (ks.k[i].t == T_WITH_CLAUSE)
                clause = &ks.k[i];
        if (!body || !clause)
            fail(c, sp, "invalid syntax");
        d2_ast_stmt *s =
            new_stmt(c, has_tok(&ks, T_K_ASYNC) ? D2_AST_ASYNC_WITH : D2_AST_WITH, sp);
        kids ck = get_kids(c, clause->n);
        for (uint32_t i = 0; i < ck.n; i++)
            if (ck.k[i].t == T_WITH_ITEM)
                push(c, &s->with.items, with_item(c, ck.k[i].n));
        if (!s->with.items.n)
            fail(c, sp, "invalid syntax");
        block(c, body->n, &s->with.body, n, "'with' statement");
        s->span = end_at_last(c, sp, &s->with.body);
        return s;
    }
    case T_FUNCTION_DEFINITION: return function_def(c, n, (d2_ast_seq){0});
    case T_CLASS_DEFINITION: return class_def(c, n, (d2_ast_seq){0});
    case T_DECORATED_DEFINITION: {
        kids ks = get_kids(c, n);
        d2_ast_seq decorators = {0};
        kid *def = kfield(c, &ks, F_DEFINITION);
        for (uint32_t i = 0; i < ks.n; i++)
            if (ks.k[i].t == T_DECORATOR)
                push(c, &decorators, expr(c, only_named(c, ks.k[i].n)));
        if (!def)
            fail(c, sp, "invalid syntax");
        if (def->t == T_FUNCTION_DEFINITION)
            return function_def(c, def->n, decorators);
        if (def->t == T_CLASS_DEFINITION)
            return class_def(c, def->n, decorators);
        fail(c, span_of(def->n), "invalid syntax");
    }
    case T_GLOBAL_STATEMENT:
    case T_NONLOCAL_STATEMENT: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        d2_ast_stmt *s = new_stmt(c, t == T_GLOBAL_STATEMENT ? D2_AST_GLOBAL : D2_AST_NONLOCAL, sp);
        for (uint32_t i = 0; i < nk.n; i++) {
            if (nk.k[i].t != T_IDENTIFIER)
                fail(c, span_of(nk.k[i].n), "invalid syntax");
            push(c, &s->global.names, (void *)ident(c, nk.k[i].n));
        }
        return s;
    }
    case T_IMPORT_STATEMENT: {
        kids ks = get_kids(c, n);
        d2_ast_stmt *s = new_stmt(c, D2_AST_IMPORT, sp);
        for (uint32_t i = 0; i < ks.n; i++)
            if (ks.k[i].f == c->fid[F_NAME] && ks.k[i].f)
                push(c, &s->import.names, import_alias(c, &ks.k[i]));
        if (!s->import.names.n)
            fail(c, sp, "invalid syntax");
        return s;
    }
    case T_IMPORT_FROM_STATEMENT: return import_from(c, n, sp, false);
    case T_FUTURE_IMPORT_STATEMENT: return import_from(c, n, sp, true);
    case T_ASSERT_STATEMENT: {
        kids ks = get_kids(c, n);
        kids nk = named(c, &ks);
        if (nk.n < 1 || nk.n > 2)
            fail(c, sp, "invalid syntax");
        d2_ast_stmt *s = new_stmt(c, D2_AST_ASSERT, sp);
        s->assert_.test = expr(c, nk.k[0].n);
        if (nk.n == 2)
            s->assert_.msg = expr(c, nk.k[1].n);
        return s;
    }
    case T_MATCH_STATEMENT: {
        kids ks = get_kids(c, n);
        kid *body = kfield(c, &ks, F_BODY);
        d2_ast_seq subj = {0};
        kid *first = NULL, *last = NULL;
        bool comma = false;
        for (uint32_t i = 0; i < ks.n; i++) {
            if (ks.k[i].f == c->fid[F_SUBJECT] && ks.k[i].f) {
                push(c, &subj, expr(c, ks.k[i].n));
                if (!first)
                    first = &ks.k[i];
                last = &ks.k[i];
            } else if (ks.k[i].t == T_K_COMMA && first && !body) {
                comma = true;
                last = &ks.k[i];
            } else if (ks.k[i].t == T_K_COMMA && first) {
                if (ts_node_start_byte(ks.k[i].n) < ts_node_start_byte(body->n)) {
                    comma = true;
                    last = &ks.k[i];
                }
            }
        }
        if (!first || !body)
            fail(c, sp, "invalid syntax");
        d2_ast_stmt *s = new_stmt(c, D2_AST_MATCH, sp);
        s->match.subject =
            subj.n == 1 && !comma
                ? subj.items[0]
                : need(c, d2_ast_tuple(c->a, subj, D2_CTX_LOAD,
                                       span_to(span_of(first->n), span_of(last->n))));
        kids bk = get_kids(c, body->n);
        d2_span end = sp;
        for (uint32_t i = 0; i < bk.n; i++) {
            kid *k = &bk.k[i];
            if (k->t != T_CASE_CLAUSE)
                fail(c, span_of(k->n), "invalid syntax");
            kids cc = get_kids(c, k->n);
            d2_ast_match_case *mc = new_node(c, D2_AST_MATCH_CASE, span_of(k->n));
            d2_ast_seq pats = {0};
            kid *pf = NULL, *pl = NULL, *cons = NULL;
            bool pcomma = false;
            for (uint32_t j = 0; j < cc.n; j++) {
                kid *q = &cc.k[j];
                if (q->t == T_CASE_PATTERN) {
                    push(c, &pats, pattern(c, q->n));
                    if (!pf)
                        pf = q;
                    pl = q;
                } else if (q->t == T_K_COMMA && pf && !cons) {
                    pcomma = true;
                    pl = q;
                } else if (q->f == c->fid[F_GUARD] && q->f) {
                    mc->guard = expr(c, only_named(c, q->n));
                } else if (q->f == c->fid[F_CONSEQUENCE] && q->f) {
                    cons = q;
                }
            }
            if (!pf || !cons)
                fail(c, span_of(k->n), "invalid syntax");
            if (pats.n == 1 && !pcomma) {
                mc->pattern = pats.items[0];
            } else {
                mc->pattern = new_pattern(c, D2_AST_MATCH_SEQUENCE,
                                          span_to(span_of(pf->n), span_of(pl->n)));
                mc->pattern->match_sequence.patterns = pats;
            }
            block(c, cons->n, &mc->body, k->n, "'case' statement");
            push(c, &s->match.cases, mc);
            end = end_at_last(c, end, &mc->body);
        }
        if (!s->match.cases.n)
            fail(c, sp, "expected an indented block after 'match' statement on line %u",
                 sp.line);
        s->span = end;
        return s;
    }
    case T_PRINT_STATEMENT:
        fail(c, sp, "Missing parentheses in call to 'print'. Did you mean print(...)?");
    case T_EXEC_STATEMENT:
        fail(c, sp, "Missing parentheses in call to 'exec'. Did you mean exec(...)?");
    case T_TYPE_ALIAS_STATEMENT:
        fail(c, sp, "'type' alias statements are not supported (they need Python 3.12)");
    default: break;
    }
    fail(c, sp, "invalid syntax");
}

/* ---- blocks and indentation ---- */

/* The indentation of the line holding byte off when only whitespace
 * precedes off on it (else false): columns with tabs to multiples of 8
 * (col) and counted as one (alt), as CPython's tokenizer compares them. */
static bool line_indent(cx *c, size_t off, int *col, int *alt)
{
    size_t bol = off;
    while (bol > 0 && c->src[bol - 1] != '\n' && c->src[bol - 1] != '\r')
        bol--;
    int cl = 0, al = 0;
    for (size_t i = bol; i < off; i++) {
        char ch = c->src[i];
        if (ch == ' ') {
            cl++;
            al++;
        } else if (ch == '\t') {
            cl = (cl / 8 + 1) * 8;
            al++;
        } else if (ch == '\f') {
            cl = al = 0;
        } else {
            return false;
        }
    }
    *col = cl;
    *alt = al;
    return true;
}

/* The indentation of the innermost suite that statement n ends in (the
 * level a following line can dedent from), or -1 when n has no suite. */
static int inner_indent(cx *c, TSNode n)
{
    int found = -1;
    for (int guard = 0; guard < MAX_DEPTH; guard++) {
        uint32_t k = ts_node_named_child_count(n);
        if (!k)
            break;
        TSNode last = ts_node_named_child(n, k - 1);
        if (T(c, n) == T_BLOCK) {
            int col, alt;
            if (line_indent(c, ts_node_start_byte(last), &col, &alt))
                found = col;
        }
        n = last;
    }
    return found;
}

/* Checks that each statement of a suite that starts a line is indented like
 * the first one (or at column 0 in a module). */
static void check_indent(cx *c, kids *ks, bool module)
{
    bool have = module;
    int col0 = 0, alt0 = 0;
    for (uint32_t i = 0; i < ks->n; i++) {
        TSNode s = ks->k[i].n;
        int col, alt;
        if (!line_indent(c, ts_node_start_byte(s), &col, &alt))
            continue;
        d2_span sp = span_of(s);
        sp.end_line = sp.line;
        sp.end_col = sp.col;
        sp.end = sp.start;
        if (!have) {
            have = true;
            col0 = col;
            alt0 = alt;
            continue;
        }
        if (col > col0) {
            int inner = i ? inner_indent(c, ks->k[i - 1].n) : -1;
            if (inner > col)
                fail(c, sp, "unindent does not match any outer indentation level");
            fail(c, sp, "unexpected indent");
        }
        if (col < col0)
            fail(c, sp, "unindent does not match any outer indentation level");
        if (alt != alt0)
            fail(c, sp, "inconsistent use of tabs and spaces in indentation");
    }
}

/* Where an empty suite's first statement should have been: the first
 * character after the header line that is not blank or a comment (off
 * itself when the file ends first). */
static d2_span missing_block_at(cx *c, size_t off)
{
    size_t start = off;
    size_t i = off;
    while (i < c->len && c->src[i] != '\n')
        i++;
    while (i < c->len) {
        char ch = c->src[i];
        if (ch == '#') {
            while (i < c->len && c->src[i] != '\n')
                i++;
        } else if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f') {
            i++;
        } else {
            break;
        }
    }
    if (i >= c->len)
        i = start;
    return span_bytes(c, i, i);
}

/* Converts the statements of a block (suite) n into out. header is the
 * statement owning it and what names it for messages. */
static void block(cx *c, TSNode n, d2_ast_seq *out, TSNode header, const char *what)
{
    kids all = get_kids(c, n);
    kids ks = named(c, &all); /* without the ';' separators */
    if (!ks.n)
        fail(c, missing_block_at(c, ts_node_start_byte(n)),
             "expected an indented block after %s on line %u", what, span_of(header).line);
    /* a suite on the header's line ("if x: a; b") is not indented */
    int col, alt;
    if (line_indent(c, ts_node_start_byte(ks.k[0].n), &col, &alt)) {
        int hcol, halt;
        size_t hs = ts_node_start_byte(header);
        if (line_indent(c, hs, &hcol, &halt) && col <= hcol)
            fail(c, missing_block_at(c, ts_node_start_byte(n) > 0 ? ts_node_start_byte(n) - 1 : 0),
                 "expected an indented block after %s on line %u", what, span_of(header).line);
        check_indent(c, &ks, false);
    } else {
        for (uint32_t i = 1; i < ks.n; i++) {
            int cl, al;
            if (line_indent(c, ts_node_start_byte(ks.k[i].n), &cl, &al)) {
                d2_span sp = span_of(ks.k[i].n);
                fail(c, span_bytes(c, sp.start, sp.start), "unexpected indent");
            }
        }
    }
    for (uint32_t i = 0; i < ks.n; i++)
        push(c, out, stmt(c, ks.k[i].n));
}

/* ---- syntax errors reported from the CST ---- */

/* The first ERROR or MISSING node in document order (a null node if
 * none) and its parent (null for the root). */
static TSNode first_error(TSNode root, TSNode *parent)
{
    TSTreeCursor cur = ts_tree_cursor_new(root);
    TSNode found = NULL_NODE;
    *parent = NULL_NODE;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        if (ts_node_is_missing(n) || strcmp(ts_node_type(n), "ERROR") == 0) {
            found = n;
            if (ts_tree_cursor_goto_parent(&cur))
                *parent = ts_tree_cursor_current_node(&cur);
            break;
        }
        if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cur))
            continue;
        bool moved = false;
        while (!moved) {
            if (ts_tree_cursor_goto_next_sibling(&cur)) {
                moved = true;
            } else if (!ts_tree_cursor_goto_parent(&cur)) {
                break;
            }
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
    return found;
}

/* Leaves of n in order, into an arena array (for bracket matching). */
static void collect_leaves(cx *c, TSNode n, TSNode **out, uint32_t *count, uint32_t *cap)
{
    TSTreeCursor cur = ts_tree_cursor_new(n);
    uint32_t depth = 0;
    for (;;) {
        TSNode x = ts_tree_cursor_current_node(&cur);
        if (ts_tree_cursor_goto_first_child(&cur)) {
            depth++;
            continue;
        }
        if (!ts_node_is_extra(x) || T(c, x) != T_COMMENT) {
            if (*count == *cap) {
                uint32_t nc = *cap ? *cap * 2 : 64;
                TSNode *p = d2_arena_realloc(c->a, *out, *cap * sizeof(TSNode), nc * sizeof(TSNode));
                if (!p)
                    break;
                *out = p;
                *cap = nc;
            }
            (*out)[(*count)++] = x;
        }
        bool moved = false;
        while (!moved && depth > 0) {
            if (ts_tree_cursor_goto_next_sibling(&cur))
                moved = true;
            else if (ts_tree_cursor_goto_parent(&cur))
                depth--;
            else
                break;
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
}

static bool is_compound_keyword(const char *s, size_t n)
{
    static const char *const kw[] = {"if",  "elif", "else",    "for",   "while", "def",
                                     "class", "with", "try",   "except", "finally", "match",
                                     "case", "async"};
    for (size_t i = 0; i < D2_COUNTOF(kw); i++)
        if (strlen(kw[i]) == n && memcmp(kw[i], s, n) == 0)
            return true;
    return false;
}

static void syntax_error(cx *c, d2_span sp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void syntax_error(cx *c, d2_span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    d2_diag_vadd(c->diag, D2_DIAG_ERROR, sp, fmt, ap);
    va_end(ap);
}

/* Reports the first syntax error of the tree compiler style: the first
 * ERROR or MISSING node, refined by what it holds into the messages CPython
 * gives for the same mistakes. */
static void report_syntax_error(cx *c, TSNode root)
{
    TSNode parent;
    TSNode e = first_error(root, &parent);
    if (ts_node_is_null(e)) {
        syntax_error(c, span_bytes(c, 0, 0), "invalid syntax");
        return;
    }
    int pt = ts_node_is_null(parent) ? T_MODULE : T(c, parent);
    d2_span sp = span_of(e);
    if (ts_node_is_missing(e)) {
        if (pt == T_INTERPOLATION || pt == T_FORMAT_EXPRESSION)
            syntax_error(c, sp, "f-string: empty expression not allowed");
        else if (ts_node_is_named(e))
            syntax_error(c, sp, "expected %s", ts_node_type(e));
        else
            syntax_error(c, sp, "expected '%s'", ts_node_type(e));
        return;
    }
    TSNode *leaves = NULL;
    uint32_t nl = 0, cap = 0;
    collect_leaves(c, e, &leaves, &nl, &cap);
    if (!nl) {
        syntax_error(c, sp, "invalid syntax");
        return;
    }
    d2_span first = span_of(leaves[0]), last = span_of(leaves[nl - 1]);
    int t0 = T(c, leaves[0]);
    /* a string whose closing quote never came */
    if (t0 == T_STRING_START) {
        size_t len;
        const char *q = text(c, leaves[0], &len);
        bool triple = len >= 3 && q[len - 1] == q[len - 2] && q[len - 2] == q[len - 3];
        size_t last_byte = c->len && c->src[c->len - 1] == '\n' ? c->len - 1 : c->len;
        d2_span eof = span_bytes(c, last_byte, last_byte);
        if (triple)
            syntax_error(c, first, "unterminated triple-quoted string literal (detected at line %u)",
                         eof.line);
        else
            syntax_error(c, first, "unterminated string literal (detected at line %u)",
                         first.line);
        return;
    }
    if ((t0 == T_INTEGER || t0 == T_FLOAT) && nl == 1 && first.end < c->len &&
        (isalnum((unsigned char)c->src[first.end]) || c->src[first.end] == '_' ||
         c->src[first.end - 1] == '_')) {
        syntax_error(c, first, "invalid decimal literal");
        return;
    }
    /* unbalanced brackets explain most multi-line errors */
    uint32_t *stack = d2_arena_alloc(c->a, nl * sizeof(uint32_t));
    uint32_t depth = 0;
    for (uint32_t i = 0; stack && i < nl; i++) {
        int t = T(c, leaves[i]);
        if (t == T_K_LPAREN || t == T_K_LBRACKET || t == T_K_LBRACE) {
            stack[depth++] = i;
        } else if (t == T_K_RPAREN || t == T_K_RBRACKET || t == T_K_RBRACE) {
            if (!depth) {
                syntax_error(c, span_of(leaves[i]), "unmatched '%s'", ts_node_type(leaves[i]));
                return;
            }
            TSNode open = leaves[stack[depth - 1]];
            int ot = T(c, open);
            bool match = (ot == T_K_LPAREN && t == T_K_RPAREN) ||
                         (ot == T_K_LBRACKET && t == T_K_RBRACKET) ||
                         (ot == T_K_LBRACE && t == T_K_RBRACE);
            if (!match) {
                syntax_error(c, span_of(leaves[i]),
                             "closing parenthesis '%s' does not match opening parenthesis '%s'%s",
                             ts_node_type(leaves[i]), ts_node_type(open),
                             span_of(open).line != span_of(leaves[i]).line ? " on an earlier line"
                                                                           : "");
                return;
            }
            depth--;
        }
    }
    if (depth) {
        TSNode open = leaves[stack[0]];
        syntax_error(c, span_of(open), "'%s' was never closed", ts_node_type(open));
        return;
    }
    size_t len;
    const char *s0 = text(c, leaves[0], &len);
    /* "try:" and its suite with neither handler nor finally */
    if (len == 3 && memcmp(s0, "try", 3) == 0) {
        bool handler = false;
        for (uint32_t i = 0; i < nl; i++) {
            const char *w = text(c, leaves[i], &len);
            if ((len == 6 && memcmp(w, "except", 6) == 0) || (len == 7 && memcmp(w, "finally", 7) == 0))
                handler = true;
        }
        if (!handler) {
            size_t after = ts_node_end_byte(e);
            /* after the suite: the node following the ':' */
            uint32_t nc = ts_node_child_count(e);
            for (uint32_t i = 0; i + 1 < nc && i < 8; i++)
                if (T(c, ts_node_child(e, i)) == T_K_COLON) {
                    after = ts_node_end_byte(ts_node_child(e, i + 1));
                    break;
                }
            d2_span at = missing_block_at(c, after);
            if (at.start >= c->len)
                at = span_bytes(c, after, after);
            syntax_error(c, at, "expected 'except' or 'finally' block");
            return;
        }
    }
    /* a compound statement header without its colon */
    s0 = text(c, leaves[0], &len);
    if (is_compound_keyword(s0, len) && nl > 1) {
        uint32_t lastk = 0;
        bool colon = false;
        for (uint32_t i = 0; i < nl && span_of(leaves[i]).line == first.line; i++) {
            lastk = i;
            if (T(c, leaves[i]) == T_K_COLON)
                colon = true;
        }
        if (!colon) {
            d2_span at = span_of(leaves[lastk]);
            syntax_error(c, span_bytes(c, at.end, at.end), "expected ':'");
            return;
        }
    }
    kids ks = get_kids(c, e);
    /* "f() = 1": an assignment to something that cannot be assigned */
    if (ks.n == 2 && ks.k[1].t == T_K_EQUAL && ts_node_is_named(ks.k[0].n)) {
        int t = ks.k[0].t;
        if (t != T_IDENTIFIER && t != T_ATTRIBUTE && t != T_SUBSCRIPT && t != T_PATTERN_LIST &&
            t != T_TUPLE && t != T_LIST && t != T_EXPRESSION_LIST) {
            d2_ast_expr *x = expr(c, ks.k[0].n);
            syntax_error(c, x->span, "cannot assign to %s here. Maybe you meant '==' instead of '='?",
                         expr_name(x));
            return;
        }
    }
    /* two expressions side by side inside brackets */
    if ((pt == T_LIST || pt == T_TUPLE || pt == T_SET || pt == T_ARGUMENT_LIST ||
         pt == T_DICTIONARY || pt == T_PARENTHESIZED_EXPRESSION) &&
        ks.n && ts_node_is_named(ks.k[0].n)) {
        syntax_error(c, first, "invalid syntax. Perhaps you forgot a comma?");
        return;
    }
    /* an ERROR that swallowed a whole line: the line ended too early */
    if (nl > 1 && (pt == T_MODULE || pt == T_BLOCK)) {
        size_t i = last.end;
        while (i < c->len && (c->src[i] == ' ' || c->src[i] == '\t'))
            i++;
        if (i >= c->len || c->src[i] == '\n' || c->src[i] == '\r' || c->src[i] == '#') {
            syntax_error(c, span_bytes(c, last.end, last.end), "invalid syntax");
            return;
        }
    }
    syntax_error(c, first, "invalid syntax");
}

/* The encoding named by a coding cookie in the first two lines, or NULL. */
static const char *coding_cookie(cx *c, size_t *len)
{
    size_t line_start = 0;
    for (int line = 0; line < 2 && line_start < c->len; line++) {
        size_t eol = line_start;
        while (eol < c->len && c->src[eol] != '\n')
            eol++;
        const char *l = c->src + line_start;
        size_t n = eol - line_start;
        size_t i = 0;
        while (i < n && (l[i] == ' ' || l[i] == '\t' || l[i] == '\f'))
            i++;
        if (i < n && l[i] == '#') {
            for (; i + 7 < n; i++) {
                if (memcmp(l + i, "coding", 6) == 0 && (l[i + 6] == ':' || l[i + 6] == '=')) {
                    size_t j = i + 7;
                    while (j < n && (l[j] == ' ' || l[j] == '\t'))
                        j++;
                    size_t k = j;
                    while (k < n && (isalnum((unsigned char)l[k]) || strchr("-_.", l[k])))
                        k++;
                    *len = k - j;
                    return k > j ? l + j : NULL;
                }
            }
        }
        line_start = eol + 1;
    }
    return NULL;
}

/* Rejects bytes CPython refuses before parsing: NULs and invalid UTF-8,
 * and non-ASCII text declared in another encoding than UTF-8 by a coding
 * cookie (dy2st reads UTF-8 only; ASCII reads the same in any of them). */
static bool check_encoding(cx *c)
{
    const unsigned char *s = (const unsigned char *)c->src;
    size_t clen;
    const char *cookie = coding_cookie(c, &clen);
    static const char *const utf8_names[] = {"utf-8", "utf8", "utf_8", "u8"};
    bool utf8 = !cookie;
    for (size_t k = 0; !utf8 && k < D2_COUNTOF(utf8_names); k++)
        utf8 = (clen == strlen(utf8_names[k]) ||
                (clen > strlen(utf8_names[k]) && cookie[strlen(utf8_names[k])] == '-')) &&
               strncasecmp(cookie, utf8_names[k], strlen(utf8_names[k])) == 0;
    if (!utf8) {
        for (size_t k = 0; k < c->len; k++) {
            if (s[k] >= 0x80) {
                d2_diag_add(c->diag, D2_DIAG_ERROR, span_bytes(c, k, k + 1),
                            "source encoding '%.*s' is not supported (dy2st reads UTF-8)",
                            (int)clen, cookie);
                return false;
            }
        }
    }
    size_t i = 0;
    while (i < c->len) {
        unsigned ch = s[i];
        if (ch == 0) {
            d2_diag_add(c->diag, D2_DIAG_ERROR, span_bytes(c, i, i + 1),
                        "source code cannot contain null bytes");
            return false;
        }
        if (ch < 0x80) {
            i++;
            continue;
        }
        size_t n = ch >= 0xF0 && ch <= 0xF4 ? 4 : ch >= 0xE0 && ch <= 0xEF ? 3
                                                : ch >= 0xC2 && ch <= 0xDF ? 2
                                                                           : 0;
        bool ok = n && i + n <= c->len;
        for (size_t k = 1; ok && k < n; k++)
            ok = (s[i + k] & 0xC0) == 0x80;
        if (ok && n == 3) {
            uint32_t cp = ((ch & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
            ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);
        } else if (ok && n == 4) {
            uint32_t cp = ((ch & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) |
                          ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);
            ok = cp >= 0x10000 && cp <= 0x10FFFF;
        }
        if (!ok) {
            d2_diag_add(c->diag, D2_DIAG_ERROR, span_bytes(c, i, i + 1),
                        "invalid UTF-8 byte 0x%02x in source", ch);
            return false;
        }
        i += n;
    }
    return true;
}

/* ---- entry point ---- */

/* The grammar's symbol and field ids mapped to the enums above (so the
 * converter switches on integers, never on type names); computed once. */
#define MAX_SYMBOLS 1024
static uint16_t symbol_map[MAX_SYMBOLS];
static uint32_t symbol_count;
static TSFieldId field_map[F_COUNT];
static pthread_once_t maps_once = PTHREAD_ONCE_INIT;

static void init_maps(void)
{
    const TSLanguage *lang = tree_sitter_python();
    uint32_t nsym = ts_language_symbol_count(lang);
    if (nsym > MAX_SYMBOLS)
        return; /* symbol_count stays 0: d2_ast_parse reports it */
    static const struct {
        const char *name;
        bool named;
    } names[] = {
#define X(e, s, named) {s, named},
        CST_SYMBOLS(X)
#undef X
    };
    /* by name, so symbols that share a name (aliases) map the same way */
    for (TSSymbol k = 0; k < nsym; k++) {
        TSSymbolType type = ts_language_symbol_type(lang, k);
        const char *name = ts_language_symbol_name(lang, k);
        for (size_t i = 0; name && i < D2_COUNTOF(names); i++) {
            if (type == (names[i].named ? TSSymbolTypeRegular : TSSymbolTypeAnonymous) &&
                strcmp(name, names[i].name) == 0) {
                symbol_map[k] = (uint16_t)(i + 1);
                break;
            }
        }
    }
    static const char *const fields[] = {
#define X(e, s) s,
        CST_FIELDS(X)
#undef X
    };
    for (size_t i = 0; i < F_COUNT; i++)
        field_map[i] = ts_language_field_id_for_name(lang, fields[i], (uint32_t)strlen(fields[i]));
    symbol_count = nsym;
}

static bool init_symbols(cx *c)
{
    pthread_once(&maps_once, init_maps);
    c->sym = symbol_map;
    c->nsym = symbol_count;
    memcpy(c->fid, field_map, sizeof c->fid);
    return symbol_count > 0;
}

/* module -> Module. */
static d2_ast_module *convert(cx *c, TSNode root)
{
    d2_ast_module *m = new_node(c, D2_AST_MODULE, span_of(root));
    kids all = get_kids(c, root);
    kids ks = named(c, &all); /* without the ';' separators */
    check_indent(c, &ks, true);
    for (uint32_t i = 0; i < ks.n; i++)
        push(c, &m->body, stmt(c, ks.k[i].n));
    return m;
}

/* Whether a node of kind t can have statements below it (the only places
 * patch_keywords looks; expressions never hold one). Unknown kinds,
 * ERROR among them, are searched too. */
static bool holds_statements(int t)
{
    switch (t) {
    case T_MODULE: case T_BLOCK: case T_IF_STATEMENT: case T_ELIF_CLAUSE: case T_ELSE_CLAUSE:
    case T_FOR_STATEMENT: case T_WHILE_STATEMENT: case T_TRY_STATEMENT: case T_EXCEPT_CLAUSE:
    case T_EXCEPT_GROUP_CLAUSE: case T_FINALLY_CLAUSE: case T_WITH_STATEMENT:
    case T_FUNCTION_DEFINITION: case T_CLASS_DEFINITION: case T_DECORATED_DEFINITION:
    case T_MATCH_STATEMENT: case T_CASE_CLAUSE: case T_OTHER:
        return true;
    default:
        return false;
    }
}

/* Marks statements tree-sitter reads with a keyword where CPython 3.11
 * reads a name: "type(x).y = 1" (taken for a 3.12 type alias) and
 * "print >> f, x" (taken for a Python 2 print statement). The keyword's
 * first letter is upper-cased in patch, a private copy of the source, so a
 * second parse sees an identifier; names are still read from the original
 * text and positions do not move. Returns whether anything was patched. */
static bool patch_keywords(cx *c, TSNode root, char *patch)
{
    bool any = false;
    TSTreeCursor cur = ts_tree_cursor_new(root);
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        int t = T(c, n);
        size_t st = ts_node_start_byte(n);
        if (t == T_TYPE_ALIAS_STATEMENT && st + 4 < c->len && patch[st] == 't' &&
            !strchr(" \t\\", c->src[st + 4])) {
            patch[st] = 'T';
            any = true;
        } else if (t == T_PRINT_STATEMENT && patch[st] == 'p') {
            for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
                if (T(c, ts_node_named_child(n, i)) == T_CHEVRON) {
                    patch[st] = 'P';
                    any = true;
                    break;
                }
            }
        }
        if (holds_statements(t) && ts_tree_cursor_goto_first_child(&cur))
            continue;
        bool moved = false;
        while (!moved) {
            if (ts_tree_cursor_goto_next_sibling(&cur))
                moved = true;
            else if (!ts_tree_cursor_goto_parent(&cur))
                break;
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
    return any;
}

/* Converts the tree (or reports its first syntax error); the one place
 * conversion errors and out-of-memory jump back to. */
static d2_ast_module *run(cx *c, TSNode root, const char *filename)
{
    int jumped = setjmp(c->jb);
    if (jumped == JUMP_OOM)
        c->diag->oom = true;
    if (jumped)
        return NULL;
    if (ts_node_has_error(root)) {
        report_syntax_error(c, root);
        return NULL;
    }
    d2_ast_module *m = convert(c, root);
    m->filename = need(c, d2_arena_strdup(c->a, filename ? filename : "<input>"));
    m->source = need(c, d2_arena_strndup(c->a, c->src, c->len));
    m->source_len = c->len;
    return m;
}

/* One idle parser kept for the next parse (creating one costs about as much
 * as parsing a short function). Taken and given back atomically, so threads
 * that parse at once each get their own; a second one given back is deleted. */
static _Atomic(TSParser *) idle_parser;

static TSParser *take_parser(void)
{
    TSParser *p = atomic_exchange(&idle_parser, NULL);
    return p ? p : ts_parser_new();
}

static void give_parser(TSParser *p)
{
    TSParser *none = NULL;
    ts_parser_reset(p);
    if (!atomic_compare_exchange_strong(&idle_parser, &none, p))
        ts_parser_delete(p);
}

d2_ast_module *d2_ast_parse(d2_arena *a, const char *filename, const char *src, size_t len,
                            d2_diag *diag)
{
    d2_diag local;
    if (!diag) {
        d2_diag_init(&local, a);
        diag = &local;
    }
    if (!src) {
        src = "";
        len = 0;
    }
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) {
        /* a UTF-8 byte order mark is not part of the source, as in CPython */
        src += 3;
        len -= 3;
    }
    d2_diag_set_source(diag, filename, src, len);
    size_t errors_before = diag->nerrors;
    cx *c = d2_arena_alloc(a, sizeof(cx));
    if (!c) {
        diag->oom = true;
        return NULL;
    }
    c->a = a;
    c->diag = diag;
    c->src = src;
    c->len = len;
    if (len > UINT32_MAX / 2) {
        d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0}, "source file too large");
        return NULL;
    }
    if (!check_encoding(c))
        return NULL;
    const TSLanguage *lang = tree_sitter_python();
    if (!init_symbols(c)) {
        d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0}, "cannot load the Python grammar");
        return NULL;
    }
    TSParser *parser = take_parser();
    if (!ts_parser_set_language(parser, lang)) {
        ts_parser_delete(parser);
        d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0}, "cannot load the Python grammar");
        return NULL;
    }
    TSTree *tree = ts_parser_parse_string(parser, NULL, c->src, (uint32_t)len);
    char *patch = NULL;
    for (int pass = 0; tree && pass < 8; pass++) {
        if (!patch && !(patch = d2_arena_strndup(a, c->src, len))) {
            diag->oom = true;
            break;
        }
        if (!patch_keywords(c, ts_tree_root_node(tree), patch))
            break;
        ts_tree_delete(tree);
        tree = ts_parser_parse_string(parser, NULL, patch, (uint32_t)len);
    }
    give_parser(parser);
    if (!tree || diag->oom) {
        if (tree)
            ts_tree_delete(tree);
        else
            d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0}, "parsing failed");
        return NULL;
    }
    d2_ast_module *m = run(c, ts_tree_root_node(tree), filename);
    if (c->have_cur)
        ts_tree_cursor_delete(&c->cur);
    ts_tree_delete(tree);
    if (diag->nerrors > errors_before || diag->oom || d2_arena_oom(a))
        return NULL;
    return m;
}
