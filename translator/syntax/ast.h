/* ast.h - dy2st's Python AST (CPython's node set), its constructors and canonical printer. */
#ifndef DY2ST_AST_H
#define DY2ST_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "syntax/arena.h"
#include "base.h"
#include "syntax/diag.h"

/* The tree mirrors CPython 3.11's `ast` module: the same node kinds, the same
 * fields in the same order, the same source positions (lines 1-based,
 * columns in UTF-8 bytes). The `type_comment` fields and Module.type_ignores
 * are not kept. Every node lives in the arena of its source file.
 *
 * Statements are d2_ast_stmt, expressions d2_ast_expr, match patterns
 * d2_ast_pattern; the helper nodes (arguments, arg, keyword, alias,
 * withitem, comprehension, excepthandler, match_case) have structs of their
 * own. Every node struct begins with D2_AST_HEAD, so any node can be viewed
 * as a d2_ast_node to read its kind and span. Lists are d2_ast_seq whose
 * items are node pointers (a NULL item is CPython's None, e.g. a Dict key
 * for `**m`), except where noted. */

/* X(ENUM, CPython name). Ranges: statements, expressions, patterns, other. */
#define D2_AST_KINDS(X)                                                                          \
    X(MODULE, Module)                                                                            \
    /* statements */                                                                             \
    X(FUNCTION_DEF, FunctionDef)                                                                 \
    X(ASYNC_FUNCTION_DEF, AsyncFunctionDef)                                                      \
    X(CLASS_DEF, ClassDef)                                                                       \
    X(RETURN, Return)                                                                            \
    X(DELETE, Delete)                                                                            \
    X(ASSIGN, Assign)                                                                            \
    X(AUG_ASSIGN, AugAssign)                                                                     \
    X(ANN_ASSIGN, AnnAssign)                                                                     \
    X(FOR, For)                                                                                  \
    X(ASYNC_FOR, AsyncFor)                                                                       \
    X(WHILE, While)                                                                              \
    X(IF, If)                                                                                    \
    X(WITH, With)                                                                                \
    X(ASYNC_WITH, AsyncWith)                                                                     \
    X(MATCH, Match)                                                                              \
    X(RAISE, Raise)                                                                              \
    X(TRY, Try)                                                                                  \
    X(TRY_STAR, TryStar)                                                                         \
    X(ASSERT, Assert)                                                                            \
    X(IMPORT, Import)                                                                            \
    X(IMPORT_FROM, ImportFrom)                                                                   \
    X(GLOBAL, Global)                                                                            \
    X(NONLOCAL, Nonlocal)                                                                        \
    X(EXPR, Expr)                                                                                \
    X(PASS, Pass)                                                                                \
    X(BREAK, Break)                                                                              \
    X(CONTINUE, Continue)                                                                        \
    /* expressions */                                                                            \
    X(BOOL_OP, BoolOp)                                                                           \
    X(NAMED_EXPR, NamedExpr)                                                                     \
    X(BIN_OP, BinOp)                                                                             \
    X(UNARY_OP, UnaryOp)                                                                         \
    X(LAMBDA, Lambda)                                                                            \
    X(IF_EXP, IfExp)                                                                             \
    X(DICT, Dict)                                                                                \
    X(SET, Set)                                                                                  \
    X(LIST_COMP, ListComp)                                                                       \
    X(SET_COMP, SetComp)                                                                         \
    X(DICT_COMP, DictComp)                                                                       \
    X(GENERATOR_EXP, GeneratorExp)                                                               \
    X(AWAIT, Await)                                                                              \
    X(YIELD, Yield)                                                                              \
    X(YIELD_FROM, YieldFrom)                                                                     \
    X(COMPARE, Compare)                                                                          \
    X(CALL, Call)                                                                                \
    X(FORMATTED_VALUE, FormattedValue)                                                           \
    X(JOINED_STR, JoinedStr)                                                                     \
    X(CONSTANT, Constant)                                                                        \
    X(ATTRIBUTE, Attribute)                                                                      \
    X(SUBSCRIPT, Subscript)                                                                      \
    X(STARRED, Starred)                                                                          \
    X(NAME, Name)                                                                                \
    X(LIST, List)                                                                                \
    X(TUPLE, Tuple)                                                                              \
    X(SLICE, Slice)                                                                              \
    /* patterns */                                                                               \
    X(MATCH_VALUE, MatchValue)                                                                   \
    X(MATCH_SINGLETON, MatchSingleton)                                                           \
    X(MATCH_SEQUENCE, MatchSequence)                                                             \
    X(MATCH_MAPPING, MatchMapping)                                                               \
    X(MATCH_CLASS, MatchClass)                                                                   \
    X(MATCH_STAR, MatchStar)                                                                     \
    X(MATCH_AS, MatchAs)                                                                         \
    X(MATCH_OR, MatchOr)                                                                         \
    /* helper nodes */                                                                           \
    X(ARGUMENTS, arguments)                                                                      \
    X(ARG, arg)                                                                                  \
    X(KEYWORD, keyword)                                                                          \
    X(ALIAS, alias)                                                                              \
    X(WITHITEM, withitem)                                                                        \
    X(COMPREHENSION, comprehension)                                                              \
    X(EXCEPT_HANDLER, ExceptHandler)                                                             \
    X(MATCH_CASE, match_case)

typedef enum d2_ast_kind {
#define X(e, n) D2_AST_##e,
    D2_AST_KINDS(X)
#undef X
        D2_AST_KIND_COUNT
} d2_ast_kind;

#define D2_AST_FIRST_STMT D2_AST_FUNCTION_DEF
#define D2_AST_LAST_STMT D2_AST_CONTINUE
#define D2_AST_FIRST_EXPR D2_AST_BOOL_OP
#define D2_AST_LAST_EXPR D2_AST_SLICE
#define D2_AST_FIRST_PATTERN D2_AST_MATCH_VALUE
#define D2_AST_LAST_PATTERN D2_AST_MATCH_OR

static inline bool d2_ast_is_stmt(d2_ast_kind k) { return k >= D2_AST_FIRST_STMT && k <= D2_AST_LAST_STMT; }
static inline bool d2_ast_is_expr(d2_ast_kind k) { return k >= D2_AST_FIRST_EXPR && k <= D2_AST_LAST_EXPR; }
static inline bool d2_ast_is_pattern(d2_ast_kind k)
{
    return k >= D2_AST_FIRST_PATTERN && k <= D2_AST_LAST_PATTERN;
}
/* d2_ast_parse builds no tree deeper than this many statement, expression
 * and pattern levels (helper nodes aside), so recursive walkers may rely on
 * it; CPython's own limits are of the same order. */
#define D2_AST_MAX_DEPTH 3000

/* CPython's class name of a kind ("FunctionDef", "arguments"). */
const char *d2_ast_kind_name(d2_ast_kind k);

/* Operators, X(ENUM, CPython name). */
#define D2_AST_EXPR_CONTEXTS(X) X(LOAD, Load) X(STORE, Store) X(DEL, Del)
#define D2_AST_BOOLOPS(X) X(AND, And) X(OR, Or)
#define D2_AST_OPERATORS(X)                                                                      \
    X(ADD, Add) X(SUB, Sub) X(MULT, Mult) X(MAT_MULT, MatMult) X(DIV, Div) X(MOD, Mod)           \
    X(POW, Pow) X(LSHIFT, LShift) X(RSHIFT, RShift) X(BIT_OR, BitOr) X(BIT_XOR, BitXor)          \
    X(BIT_AND, BitAnd) X(FLOOR_DIV, FloorDiv)
#define D2_AST_UNARYOPS(X) X(INVERT, Invert) X(NOT, Not) X(UADD, UAdd) X(USUB, USub)
#define D2_AST_CMPOPS(X)                                                                         \
    X(EQ, Eq) X(NOT_EQ, NotEq) X(LT, Lt) X(LT_E, LtE) X(GT, Gt) X(GT_E, GtE) X(IS, Is)           \
    X(IS_NOT, IsNot) X(IN, In) X(NOT_IN, NotIn)

typedef enum {
#define X(e, n) D2_CTX_##e,
    D2_AST_EXPR_CONTEXTS(X)
#undef X
} d2_ast_ctx;
typedef enum {
#define X(e, n) D2_BOOLOP_##e,
    D2_AST_BOOLOPS(X)
#undef X
} d2_ast_boolop;
typedef enum {
#define X(e, n) D2_OP_##e,
    D2_AST_OPERATORS(X)
#undef X
} d2_ast_operator;
typedef enum {
#define X(e, n) D2_UNARY_##e,
    D2_AST_UNARYOPS(X)
#undef X
} d2_ast_unaryop;
typedef enum {
#define X(e, n) D2_CMP_##e,
    D2_AST_CMPOPS(X)
#undef X
} d2_ast_cmpop;

const char *d2_ast_ctx_name(d2_ast_ctx c);
const char *d2_ast_boolop_name(d2_ast_boolop op);
const char *d2_ast_operator_name(d2_ast_operator op);
const char *d2_ast_unaryop_name(d2_ast_unaryop op);
const char *d2_ast_cmpop_name(d2_ast_cmpop op);
/* The operator as Python source writes it ("+", "//", "not in"); "?" when
 * out of range. */
const char *d2_ast_operator_symbol(d2_ast_operator op);
const char *d2_ast_cmpop_symbol(d2_ast_cmpop op);

/* A list of node pointers (or identifiers, where noted), grown with
 * d2_ast_seq_push. */
typedef struct d2_ast_seq {
    uint32_t n, cap;
    void **items;
} d2_ast_seq;

/* A constant value (Constant.value, MatchSingleton.value). Strings are
 * decoded: STR holds UTF-8 (a lone surrogate from a \ud800 escape is kept in
 * its 3-byte generalised UTF-8 form), BYTES the raw bytes; both are also
 * NUL-terminated and may contain NULs. An int literal that does not fit
 * int64 is BIGINT with its decimal digits in str. */
typedef enum {
    D2_CONST_NONE,
    D2_CONST_TRUE,
    D2_CONST_FALSE,
    D2_CONST_ELLIPSIS,
    D2_CONST_INT,
    D2_CONST_BIGINT,
    D2_CONST_FLOAT,
    D2_CONST_COMPLEX, /* imaginary literal: value is f * 1j */
    D2_CONST_STR,
    D2_CONST_BYTES,
} d2_ast_const_kind;

typedef struct d2_ast_const {
    d2_ast_const_kind kind;
    union {
        int64_t i;
        double f;
        struct {
            const char *data;
            size_t len;
        } str;
    };
} d2_ast_const;

#define D2_AST_HEAD                                                                              \
    d2_ast_kind kind;                                                                            \
    d2_span span

/* The common head: any node pointer may be viewed as this. */
typedef struct d2_ast_node {
    D2_AST_HEAD;
} d2_ast_node;

typedef struct d2_ast_expr d2_ast_expr;
typedef struct d2_ast_stmt d2_ast_stmt;
typedef struct d2_ast_pattern d2_ast_pattern;

/* Formal parameters. Spanless in CPython; here it spans the parameter list. */
typedef struct d2_ast_arguments {
    D2_AST_HEAD;
    d2_ast_seq posonlyargs, args; /* of d2_ast_arg */
    struct d2_ast_arg *vararg;    /* may be NULL */
    d2_ast_seq kwonlyargs;        /* of d2_ast_arg */
    d2_ast_seq kw_defaults;       /* of d2_ast_expr, one per kwonlyarg, NULL = none */
    struct d2_ast_arg *kwarg;     /* may be NULL */
    d2_ast_seq defaults;          /* of d2_ast_expr, for the last posonly+args */
} d2_ast_arguments;

typedef struct d2_ast_arg {
    D2_AST_HEAD;
    const char *arg;
    d2_ast_expr *annotation; /* may be NULL */
} d2_ast_arg;

/* A keyword argument of a call or class; arg NULL for **mapping. */
typedef struct d2_ast_keyword {
    D2_AST_HEAD;
    const char *arg;
    d2_ast_expr *value;
} d2_ast_keyword;

/* `name [as asname]` of an import; name may be dotted or "*". */
typedef struct d2_ast_alias {
    D2_AST_HEAD;
    const char *name, *asname;
} d2_ast_alias;

typedef struct d2_ast_withitem {
    D2_AST_HEAD;
    d2_ast_expr *context_expr;
    d2_ast_expr *optional_vars; /* may be NULL */
} d2_ast_withitem;

/* `[async] for target in iter if ifs...` of a comprehension. */
typedef struct d2_ast_comprehension {
    D2_AST_HEAD;
    d2_ast_expr *target, *iter;
    d2_ast_seq ifs; /* of d2_ast_expr */
    int is_async;
} d2_ast_comprehension;

typedef struct d2_ast_excepthandler {
    D2_AST_HEAD;
    d2_ast_expr *type; /* may be NULL (bare except) */
    const char *name;  /* may be NULL */
    d2_ast_seq body;   /* of d2_ast_stmt */
} d2_ast_excepthandler;

typedef struct d2_ast_match_case {
    D2_AST_HEAD;
    d2_ast_pattern *pattern;
    d2_ast_expr *guard; /* may be NULL */
    d2_ast_seq body;    /* of d2_ast_stmt */
} d2_ast_match_case;

struct d2_ast_expr {
    D2_AST_HEAD;
    union {
        struct { d2_ast_boolop op; d2_ast_seq values; } bool_op;
        struct { d2_ast_expr *target, *value; } named_expr;
        struct { d2_ast_expr *left; d2_ast_operator op; d2_ast_expr *right; } bin_op;
        struct { d2_ast_unaryop op; d2_ast_expr *operand; } unary_op;
        struct { d2_ast_arguments *args; d2_ast_expr *body; } lambda;
        struct { d2_ast_expr *test, *body, *orelse; } if_exp;
        struct { d2_ast_seq keys, values; } dict; /* a NULL key is `**values[i]` */
        struct { d2_ast_seq elts; } set;
        /* generators of d2_ast_comprehension */
        struct { d2_ast_expr *elt; d2_ast_seq generators; } list_comp, set_comp, generator_exp;
        struct { d2_ast_expr *key, *value; d2_ast_seq generators; } dict_comp;
        /* Yield's value may be NULL */
        struct { d2_ast_expr *value; } await, yield, yield_from;
        /* ops has comparators.n entries */
        struct { d2_ast_expr *left; d2_ast_cmpop *ops; d2_ast_seq comparators; } compare;
        /* keywords of d2_ast_keyword */
        struct { d2_ast_expr *func; d2_ast_seq args, keywords; } call;
        /* conversion: -1 none, 's', 'r' or 'a'; format_spec a JoinedStr or NULL */
        struct { d2_ast_expr *value; int conversion; d2_ast_expr *format_spec; } formatted_value;
        /* values: Constant (str) and FormattedValue parts */
        struct { d2_ast_seq values; } joined_str;
        /* kind is "u" for a u-prefixed string, else NULL */
        struct { d2_ast_const value; const char *kind; } constant;
        struct { d2_ast_expr *value; const char *attr; d2_ast_ctx ctx; } attribute;
        struct { d2_ast_expr *value, *slice; d2_ast_ctx ctx; } subscript;
        struct { d2_ast_expr *value; d2_ast_ctx ctx; } starred;
        struct { const char *id; d2_ast_ctx ctx; } name;
        /* List, Tuple */
        struct { d2_ast_seq elts; d2_ast_ctx ctx; } list, tuple;
        /* each part may be NULL */
        struct { d2_ast_expr *lower, *upper, *step; } slice;
    };
};

struct d2_ast_stmt {
    D2_AST_HEAD;
    union {
        /* FunctionDef, AsyncFunctionDef; returns may be NULL */
        struct {
            const char *name;
            d2_ast_arguments *args;
            d2_ast_seq body, decorator_list;
            d2_ast_expr *returns;
        } function_def;
        /* keywords of d2_ast_keyword */
        struct {
            const char *name;
            d2_ast_seq bases, keywords, body, decorator_list;
        } class_def;
        struct { d2_ast_expr *value; } return_; /* value may be NULL */
        struct { d2_ast_seq targets; } delete;
        struct { d2_ast_seq targets; d2_ast_expr *value; } assign; /* a = b = value */
        struct { d2_ast_expr *target; d2_ast_operator op; d2_ast_expr *value; } aug_assign;
        /* simple: 1 when target is a bare name without parentheses */
        struct { d2_ast_expr *target, *annotation, *value; int simple; } ann_assign;
        /* For, AsyncFor */
        struct { d2_ast_expr *target, *iter; d2_ast_seq body, orelse; } for_;
        struct { d2_ast_expr *test; d2_ast_seq body, orelse; } while_, if_;
        /* With, AsyncWith; items of d2_ast_withitem */
        struct { d2_ast_seq items, body; } with;
        /* cases of d2_ast_match_case */
        struct { d2_ast_expr *subject; d2_ast_seq cases; } match;
        struct { d2_ast_expr *exc, *cause; } raise;
        /* Try, TryStar; handlers of d2_ast_excepthandler */
        struct { d2_ast_seq body, handlers, orelse, finalbody; } try_;
        struct { d2_ast_expr *test, *msg; } assert_;
        /* names of d2_ast_alias */
        struct { d2_ast_seq names; } import;
        /* module may be NULL (`from . import x`); level counts the dots */
        struct { const char *module; d2_ast_seq names; int level; } import_from;
        /* Global, Nonlocal: names are identifiers (const char *) */
        struct { d2_ast_seq names; } global, nonlocal;
        struct { d2_ast_expr *value; } expr;
    };
};

struct d2_ast_pattern {
    D2_AST_HEAD;
    union {
        struct { d2_ast_expr *value; } match_value;
        struct { d2_ast_const value; } match_singleton;
        /* MatchSequence, MatchOr */
        struct { d2_ast_seq patterns; } match_sequence, match_or;
        struct { d2_ast_seq keys, patterns; const char *rest; } match_mapping;
        /* kwd_attrs are identifiers */
        struct { d2_ast_expr *cls; d2_ast_seq patterns, kwd_attrs, kwd_patterns; } match_class;
        struct { const char *name; } match_star; /* name NULL for `*_` */
        /* `pattern as name`; both NULL for `_`; pattern NULL for a capture */
        struct { d2_ast_pattern *pattern; const char *name; } match_as;
    };
};

typedef struct d2_ast_module {
    D2_AST_HEAD;
    d2_ast_seq body; /* of d2_ast_stmt */
    const char *filename;
    /* a copy of the source text, for diagnostics of later passes */
    const char *source;
    size_t source_len;
} d2_ast_module;

/* ---- reflection: the fields of each kind, in CPython's order ---- */

typedef enum {
    D2_AST_F_NODE,   /* a node pointer, never NULL */
    D2_AST_F_OPT,    /* a node pointer, NULL = None */
    D2_AST_F_SEQ,    /* d2_ast_seq of node pointers (NULL items = None) */
    D2_AST_F_IDENT,  /* const char *, NULL = None */
    D2_AST_F_IDENTS, /* d2_ast_seq of const char * */
    D2_AST_F_INT,    /* int */
    D2_AST_F_CONST,  /* d2_ast_const */
    D2_AST_F_CTX,    /* d2_ast_ctx */
    D2_AST_F_BOOLOP, /* d2_ast_boolop */
    D2_AST_F_OP,     /* d2_ast_operator */
    D2_AST_F_UNARY,  /* d2_ast_unaryop */
    D2_AST_F_CMPOPS, /* d2_ast_cmpop *, as many as the next field's items */
} d2_ast_field_type;

typedef struct d2_ast_field {
    const char *name;
    d2_ast_field_type type;
    size_t offset; /* from the start of the node struct */
} d2_ast_field;

/* The fields of kind k in CPython's order; *n receives their number. */
const d2_ast_field *d2_ast_fields(d2_ast_kind k, size_t *n);
/* Whether CPython gives nodes of kind k positions (the printer prints spans
 * only for those). */
bool d2_ast_has_position(d2_ast_kind k);

/* ---- constructors: all allocate from the arena, zero every field not
 * given and return NULL when out of memory ---- */

/* Appends item to seq; 0, or -1 when out of memory. */
int d2_ast_seq_push(d2_arena *a, d2_ast_seq *seq, void *item);
/* A bare node of kind k (any kind) with the given span; size is taken from
 * the kind. */
void *d2_ast_node_new(d2_arena *a, d2_ast_kind k, d2_span span);
d2_ast_expr *d2_ast_expr_new(d2_arena *a, d2_ast_kind k, d2_span span);
d2_ast_stmt *d2_ast_stmt_new(d2_arena *a, d2_ast_kind k, d2_span span);

d2_ast_expr *d2_ast_name(d2_arena *a, const char *id, d2_ast_ctx ctx, d2_span span);
d2_ast_expr *d2_ast_constant(d2_arena *a, d2_ast_const value, d2_span span);
d2_ast_expr *d2_ast_const_int(d2_arena *a, int64_t v, d2_span span);
d2_ast_expr *d2_ast_const_float(d2_arena *a, double v, d2_span span);
/* Copies n bytes of s into the arena. */
d2_ast_expr *d2_ast_const_str(d2_arena *a, const char *s, size_t n, d2_span span);
d2_ast_expr *d2_ast_const_simple(d2_arena *a, d2_ast_const_kind k, d2_span span);
d2_ast_expr *d2_ast_attribute(d2_arena *a, d2_ast_expr *value, const char *attr,
                              d2_ast_ctx ctx, d2_span span);
d2_ast_expr *d2_ast_subscript(d2_arena *a, d2_ast_expr *value, d2_ast_expr *slice,
                              d2_ast_ctx ctx, d2_span span);
d2_ast_expr *d2_ast_call(d2_arena *a, d2_ast_expr *func, d2_ast_seq args, d2_ast_seq keywords,
                         d2_span span);
d2_ast_expr *d2_ast_bin_op(d2_arena *a, d2_ast_expr *left, d2_ast_operator op,
                           d2_ast_expr *right, d2_span span);
d2_ast_expr *d2_ast_unary_op(d2_arena *a, d2_ast_unaryop op, d2_ast_expr *operand, d2_span span);
d2_ast_expr *d2_ast_bool_op(d2_arena *a, d2_ast_boolop op, d2_ast_seq values, d2_span span);
d2_ast_expr *d2_ast_tuple(d2_arena *a, d2_ast_seq elts, d2_ast_ctx ctx, d2_span span);
d2_ast_expr *d2_ast_list(d2_arena *a, d2_ast_seq elts, d2_ast_ctx ctx, d2_span span);
d2_ast_keyword *d2_ast_keyword_new(d2_arena *a, const char *arg, d2_ast_expr *value,
                                   d2_span span);
d2_ast_arg *d2_ast_arg_new(d2_arena *a, const char *arg, d2_ast_expr *annotation, d2_span span);

d2_ast_stmt *d2_ast_expr_stmt(d2_arena *a, d2_ast_expr *value, d2_span span);
d2_ast_stmt *d2_ast_assign(d2_arena *a, d2_ast_seq targets, d2_ast_expr *value, d2_span span);
d2_ast_stmt *d2_ast_return(d2_arena *a, d2_ast_expr *value, d2_span span);
d2_ast_stmt *d2_ast_if(d2_arena *a, d2_ast_expr *test, d2_ast_seq body, d2_ast_seq orelse,
                       d2_span span);
d2_ast_stmt *d2_ast_while(d2_arena *a, d2_ast_expr *test, d2_ast_seq body, d2_ast_seq orelse,
                          d2_span span);
/* Pass, Break, Continue. */
d2_ast_stmt *d2_ast_simple_stmt(d2_arena *a, d2_ast_kind k, d2_span span);

/* ---- printer ----
 * Appends the canonical dump of a node (any kind; NULL prints None). The
 * form, shared with tests/gen/gen_ast.py which writes it from CPython's ast:
 *   node  = "(" Kind [" @" L ":" C "-" EL ":" EC] fields ")"
 * Kind is CPython's class name; the position (CPython's lineno, col_offset,
 * end_lineno, end_col_offset) appears on kinds CPython gives positions to,
 * except on the parts of a JoinedStr (its Constant and FormattedValue items
 * and a format_spec), whose CPython positions are not meaningful. Fields
 * follow in CPython's order as " name=value"; when any field holds a node or
 * a non-empty list of nodes, each field goes on its own line instead,
 * indented two spaces deeper than the line holding the node's "(". Values:
 *   node, None, [] (empty list), a list of nodes as "[" then each item on its
 *   own line two spaces deeper than the field, then "]" right after the last
 *   item; a list of identifiers or operators as ["a" "b"] / [Lt LtE];
 *   identifiers and str as "..." (\\ \" \n \r \t escaped, other C0 controls
 *   and DEL as \xHH, surrogates as \uXXXX, all else raw UTF-8); bytes as
 *   b"..." (printable ASCII raw, \\ \" \n \r \t, else \xHH); ints in decimal;
 *   floats and imaginaries as Python's repr; True False None Ellipsis;
 *   contexts and operators by CPython name (Load, Add, NotIn).
 * A module dump ends with a newline. */
void d2_ast_print(d2_buf *out, const void *node);

/* ---- front end ----
 * Parses src (UTF-8 Python 3 source of len bytes; a leading byte order mark
 * is skipped) into an AST in arena a, as CPython 3.11's ast.parse would:
 * with the hand-written parser of pyparse.c, or where it gives up (and
 * always when DY2ST_PARSER=treesitter) with tree-sitter. filename (may be NULL) names the file in diagnostics and
 * is copied; diag may be NULL. The first syntax error, or construct CPython
 * rejects when parsing, is reported to diag compiler style and NULL is
 * returned; warnings (invalid escape sequences) leave the result intact.
 * NULL is also returned when out of memory (diag->oom or d2_arena_oom tell).
 * Never crashes on any input. The result and all its strings live in a; it
 * keeps a copy of the source for the diagnostics of later passes.
 * Limits: sources declared in another encoding than UTF-8 are refused
 * unless ASCII; identifiers get only the common NFKC mappings; \N{...}
 * knows a subset of Unicode names; nesting beyond 1000 levels is refused. */
d2_ast_module *d2_ast_parse(d2_arena *a, const char *filename, const char *src, size_t len,
                            d2_diag *diag);

#endif
