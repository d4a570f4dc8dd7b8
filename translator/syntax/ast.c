/* ast.c - AST kind names, field tables, constructors and the canonical printer. */
#include "syntax/ast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

static const char *const kind_names[] = {
#define X(e, n) #n,
    D2_AST_KINDS(X)
#undef X
};

const char *d2_ast_kind_name(d2_ast_kind k)
{
    return (unsigned)k < D2_AST_KIND_COUNT ? kind_names[k] : "?";
}

#define NAME_FN(fn, type, LIST)                                                                  \
    const char *fn(type v)                                                                       \
    {                                                                                            \
        static const char *const names[] = {LIST(NAME_ITEM)};                                   \
        return (unsigned)v < D2_COUNTOF(names) ? names[v] : "?";                                 \
    }
#define NAME_ITEM(e, n) #n,
NAME_FN(d2_ast_ctx_name, d2_ast_ctx, D2_AST_EXPR_CONTEXTS)
NAME_FN(d2_ast_boolop_name, d2_ast_boolop, D2_AST_BOOLOPS)
NAME_FN(d2_ast_operator_name, d2_ast_operator, D2_AST_OPERATORS)
NAME_FN(d2_ast_unaryop_name, d2_ast_unaryop, D2_AST_UNARYOPS)
NAME_FN(d2_ast_cmpop_name, d2_ast_cmpop, D2_AST_CMPOPS)

const char *d2_ast_operator_symbol(d2_ast_operator op)
{
    static const char *const t[] = {"+", "-", "*", "@", "/", "%", "**", "<<", ">>", "|", "^", "&", "//"};
    return (unsigned)op < D2_COUNTOF(t) ? t[op] : "?";
}

const char *d2_ast_cmpop_symbol(d2_ast_cmpop op)
{
    static const char *const t[] = {"==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"};
    return (unsigned)op < D2_COUNTOF(t) ? t[op] : "?";
}
#undef NAME_ITEM
#undef NAME_FN

/* ---- field tables (CPython's _fields order, type_comment left out) ---- */

#define S(m) offsetof(d2_ast_stmt, m)
#define E(m) offsetof(d2_ast_expr, m)
#define P(m) offsetof(d2_ast_pattern, m)
#define NODE D2_AST_F_NODE
#define OPT D2_AST_F_OPT
#define SEQ D2_AST_F_SEQ
#define IDENT D2_AST_F_IDENT
#define IDENTS D2_AST_F_IDENTS
#define INT D2_AST_F_INT
#define CONST D2_AST_F_CONST
#define CTX D2_AST_F_CTX

static const d2_ast_field f_module[] = {{"body", SEQ, offsetof(d2_ast_module, body)}};
static const d2_ast_field f_function_def[] = {
    {"name", IDENT, S(function_def.name)},
    {"args", NODE, S(function_def.args)},
    {"body", SEQ, S(function_def.body)},
    {"decorator_list", SEQ, S(function_def.decorator_list)},
    {"returns", OPT, S(function_def.returns)},
};
static const d2_ast_field f_class_def[] = {
    {"name", IDENT, S(class_def.name)},
    {"bases", SEQ, S(class_def.bases)},
    {"keywords", SEQ, S(class_def.keywords)},
    {"body", SEQ, S(class_def.body)},
    {"decorator_list", SEQ, S(class_def.decorator_list)},
};
static const d2_ast_field f_return[] = {{"value", OPT, S(return_.value)}};
static const d2_ast_field f_delete[] = {{"targets", SEQ, S(delete.targets)}};
static const d2_ast_field f_assign[] = {
    {"targets", SEQ, S(assign.targets)},
    {"value", NODE, S(assign.value)},
};
static const d2_ast_field f_aug_assign[] = {
    {"target", NODE, S(aug_assign.target)},
    {"op", D2_AST_F_OP, S(aug_assign.op)},
    {"value", NODE, S(aug_assign.value)},
};
static const d2_ast_field f_ann_assign[] = {
    {"target", NODE, S(ann_assign.target)},
    {"annotation", NODE, S(ann_assign.annotation)},
    {"value", OPT, S(ann_assign.value)},
    {"simple", INT, S(ann_assign.simple)},
};
static const d2_ast_field f_for[] = {
    {"target", NODE, S(for_.target)},
    {"iter", NODE, S(for_.iter)},
    {"body", SEQ, S(for_.body)},
    {"orelse", SEQ, S(for_.orelse)},
};
static const d2_ast_field f_while[] = {
    {"test", NODE, S(while_.test)},
    {"body", SEQ, S(while_.body)},
    {"orelse", SEQ, S(while_.orelse)},
};
static const d2_ast_field f_if[] = {
    {"test", NODE, S(if_.test)},
    {"body", SEQ, S(if_.body)},
    {"orelse", SEQ, S(if_.orelse)},
};
static const d2_ast_field f_with[] = {
    {"items", SEQ, S(with.items)},
    {"body", SEQ, S(with.body)},
};
static const d2_ast_field f_match[] = {
    {"subject", NODE, S(match.subject)},
    {"cases", SEQ, S(match.cases)},
};
static const d2_ast_field f_raise[] = {
    {"exc", OPT, S(raise.exc)},
    {"cause", OPT, S(raise.cause)},
};
static const d2_ast_field f_try[] = {
    {"body", SEQ, S(try_.body)},
    {"handlers", SEQ, S(try_.handlers)},
    {"orelse", SEQ, S(try_.orelse)},
    {"finalbody", SEQ, S(try_.finalbody)},
};
static const d2_ast_field f_assert[] = {
    {"test", NODE, S(assert_.test)},
    {"msg", OPT, S(assert_.msg)},
};
static const d2_ast_field f_import[] = {{"names", SEQ, S(import.names)}};
static const d2_ast_field f_import_from[] = {
    {"module", IDENT, S(import_from.module)},
    {"names", SEQ, S(import_from.names)},
    {"level", INT, S(import_from.level)},
};
static const d2_ast_field f_global[] = {{"names", IDENTS, S(global.names)}};
static const d2_ast_field f_nonlocal[] = {{"names", IDENTS, S(nonlocal.names)}};
static const d2_ast_field f_expr_stmt[] = {{"value", NODE, S(expr.value)}};

static const d2_ast_field f_bool_op[] = {
    {"op", D2_AST_F_BOOLOP, E(bool_op.op)},
    {"values", SEQ, E(bool_op.values)},
};
static const d2_ast_field f_named_expr[] = {
    {"target", NODE, E(named_expr.target)},
    {"value", NODE, E(named_expr.value)},
};
static const d2_ast_field f_bin_op[] = {
    {"left", NODE, E(bin_op.left)},
    {"op", D2_AST_F_OP, E(bin_op.op)},
    {"right", NODE, E(bin_op.right)},
};
static const d2_ast_field f_unary_op[] = {
    {"op", D2_AST_F_UNARY, E(unary_op.op)},
    {"operand", NODE, E(unary_op.operand)},
};
static const d2_ast_field f_lambda[] = {
    {"args", NODE, E(lambda.args)},
    {"body", NODE, E(lambda.body)},
};
static const d2_ast_field f_if_exp[] = {
    {"test", NODE, E(if_exp.test)},
    {"body", NODE, E(if_exp.body)},
    {"orelse", NODE, E(if_exp.orelse)},
};
static const d2_ast_field f_dict[] = {
    {"keys", SEQ, E(dict.keys)},
    {"values", SEQ, E(dict.values)},
};
static const d2_ast_field f_set[] = {{"elts", SEQ, E(set.elts)}};
static const d2_ast_field f_list_comp[] = {
    {"elt", NODE, E(list_comp.elt)},
    {"generators", SEQ, E(list_comp.generators)},
};
static const d2_ast_field f_dict_comp[] = {
    {"key", NODE, E(dict_comp.key)},
    {"value", NODE, E(dict_comp.value)},
    {"generators", SEQ, E(dict_comp.generators)},
};
static const d2_ast_field f_await[] = {{"value", NODE, E(await.value)}};
static const d2_ast_field f_yield[] = {{"value", OPT, E(yield.value)}};
static const d2_ast_field f_compare[] = {
    {"left", NODE, E(compare.left)},
    {"ops", D2_AST_F_CMPOPS, E(compare.ops)},
    {"comparators", SEQ, E(compare.comparators)},
};
static const d2_ast_field f_call[] = {
    {"func", NODE, E(call.func)},
    {"args", SEQ, E(call.args)},
    {"keywords", SEQ, E(call.keywords)},
};
static const d2_ast_field f_formatted_value[] = {
    {"value", NODE, E(formatted_value.value)},
    {"conversion", INT, E(formatted_value.conversion)},
    {"format_spec", OPT, E(formatted_value.format_spec)},
};
static const d2_ast_field f_joined_str[] = {{"values", SEQ, E(joined_str.values)}};
static const d2_ast_field f_constant[] = {
    {"value", CONST, E(constant.value)},
    {"kind", IDENT, E(constant.kind)},
};
static const d2_ast_field f_attribute[] = {
    {"value", NODE, E(attribute.value)},
    {"attr", IDENT, E(attribute.attr)},
    {"ctx", CTX, E(attribute.ctx)},
};
static const d2_ast_field f_subscript[] = {
    {"value", NODE, E(subscript.value)},
    {"slice", NODE, E(subscript.slice)},
    {"ctx", CTX, E(subscript.ctx)},
};
static const d2_ast_field f_starred[] = {
    {"value", NODE, E(starred.value)},
    {"ctx", CTX, E(starred.ctx)},
};
static const d2_ast_field f_name[] = {
    {"id", IDENT, E(name.id)},
    {"ctx", CTX, E(name.ctx)},
};
static const d2_ast_field f_list[] = {
    {"elts", SEQ, E(list.elts)},
    {"ctx", CTX, E(list.ctx)},
};
static const d2_ast_field f_tuple[] = {
    {"elts", SEQ, E(tuple.elts)},
    {"ctx", CTX, E(tuple.ctx)},
};
static const d2_ast_field f_slice[] = {
    {"lower", OPT, E(slice.lower)},
    {"upper", OPT, E(slice.upper)},
    {"step", OPT, E(slice.step)},
};

static const d2_ast_field f_match_value[] = {{"value", NODE, P(match_value.value)}};
static const d2_ast_field f_match_singleton[] = {{"value", CONST, P(match_singleton.value)}};
static const d2_ast_field f_match_sequence[] = {{"patterns", SEQ, P(match_sequence.patterns)}};
static const d2_ast_field f_match_mapping[] = {
    {"keys", SEQ, P(match_mapping.keys)},
    {"patterns", SEQ, P(match_mapping.patterns)},
    {"rest", IDENT, P(match_mapping.rest)},
};
static const d2_ast_field f_match_class[] = {
    {"cls", NODE, P(match_class.cls)},
    {"patterns", SEQ, P(match_class.patterns)},
    {"kwd_attrs", IDENTS, P(match_class.kwd_attrs)},
    {"kwd_patterns", SEQ, P(match_class.kwd_patterns)},
};
static const d2_ast_field f_match_star[] = {{"name", IDENT, P(match_star.name)}};
static const d2_ast_field f_match_as[] = {
    {"pattern", OPT, P(match_as.pattern)},
    {"name", IDENT, P(match_as.name)},
};
static const d2_ast_field f_match_or[] = {{"patterns", SEQ, P(match_or.patterns)}};

static const d2_ast_field f_arguments[] = {
    {"posonlyargs", SEQ, offsetof(d2_ast_arguments, posonlyargs)},
    {"args", SEQ, offsetof(d2_ast_arguments, args)},
    {"vararg", OPT, offsetof(d2_ast_arguments, vararg)},
    {"kwonlyargs", SEQ, offsetof(d2_ast_arguments, kwonlyargs)},
    {"kw_defaults", SEQ, offsetof(d2_ast_arguments, kw_defaults)},
    {"kwarg", OPT, offsetof(d2_ast_arguments, kwarg)},
    {"defaults", SEQ, offsetof(d2_ast_arguments, defaults)},
};
static const d2_ast_field f_arg[] = {
    {"arg", IDENT, offsetof(d2_ast_arg, arg)},
    {"annotation", OPT, offsetof(d2_ast_arg, annotation)},
};
static const d2_ast_field f_keyword[] = {
    {"arg", IDENT, offsetof(d2_ast_keyword, arg)},
    {"value", NODE, offsetof(d2_ast_keyword, value)},
};
static const d2_ast_field f_alias[] = {
    {"name", IDENT, offsetof(d2_ast_alias, name)},
    {"asname", IDENT, offsetof(d2_ast_alias, asname)},
};
static const d2_ast_field f_withitem[] = {
    {"context_expr", NODE, offsetof(d2_ast_withitem, context_expr)},
    {"optional_vars", OPT, offsetof(d2_ast_withitem, optional_vars)},
};
static const d2_ast_field f_comprehension[] = {
    {"target", NODE, offsetof(d2_ast_comprehension, target)},
    {"iter", NODE, offsetof(d2_ast_comprehension, iter)},
    {"ifs", SEQ, offsetof(d2_ast_comprehension, ifs)},
    {"is_async", INT, offsetof(d2_ast_comprehension, is_async)},
};
static const d2_ast_field f_except_handler[] = {
    {"type", OPT, offsetof(d2_ast_excepthandler, type)},
    {"name", IDENT, offsetof(d2_ast_excepthandler, name)},
    {"body", SEQ, offsetof(d2_ast_excepthandler, body)},
};
static const d2_ast_field f_match_case[] = {
    {"pattern", NODE, offsetof(d2_ast_match_case, pattern)},
    {"guard", OPT, offsetof(d2_ast_match_case, guard)},
    {"body", SEQ, offsetof(d2_ast_match_case, body)},
};

#undef S
#undef E
#undef P
#undef NODE
#undef OPT
#undef SEQ
#undef IDENT
#undef IDENTS
#undef INT
#undef CONST
#undef CTX

typedef struct kind_info {
    const d2_ast_field *fields;
    size_t nfields;
    size_t size;
} kind_info;

#define K(e, f, type) [D2_AST_##e] = {f, D2_COUNTOF(f), sizeof(type)}
#define KS(e, f) K(e, f, d2_ast_stmt)
#define KE(e, f) K(e, f, d2_ast_expr)
#define KP(e, f) K(e, f, d2_ast_pattern)
static const kind_info kinds[D2_AST_KIND_COUNT] = {
    K(MODULE, f_module, d2_ast_module),
    KS(FUNCTION_DEF, f_function_def),
    KS(ASYNC_FUNCTION_DEF, f_function_def),
    KS(CLASS_DEF, f_class_def),
    KS(RETURN, f_return),
    KS(DELETE, f_delete),
    KS(ASSIGN, f_assign),
    KS(AUG_ASSIGN, f_aug_assign),
    KS(ANN_ASSIGN, f_ann_assign),
    KS(FOR, f_for),
    KS(ASYNC_FOR, f_for),
    KS(WHILE, f_while),
    KS(IF, f_if),
    KS(WITH, f_with),
    KS(ASYNC_WITH, f_with),
    KS(MATCH, f_match),
    KS(RAISE, f_raise),
    KS(TRY, f_try),
    KS(TRY_STAR, f_try),
    KS(ASSERT, f_assert),
    KS(IMPORT, f_import),
    KS(IMPORT_FROM, f_import_from),
    KS(GLOBAL, f_global),
    KS(NONLOCAL, f_nonlocal),
    KS(EXPR, f_expr_stmt),
    [D2_AST_PASS] = {NULL, 0, sizeof(d2_ast_stmt)},
    [D2_AST_BREAK] = {NULL, 0, sizeof(d2_ast_stmt)},
    [D2_AST_CONTINUE] = {NULL, 0, sizeof(d2_ast_stmt)},
    KE(BOOL_OP, f_bool_op),
    KE(NAMED_EXPR, f_named_expr),
    KE(BIN_OP, f_bin_op),
    KE(UNARY_OP, f_unary_op),
    KE(LAMBDA, f_lambda),
    KE(IF_EXP, f_if_exp),
    KE(DICT, f_dict),
    KE(SET, f_set),
    KE(LIST_COMP, f_list_comp),
    KE(SET_COMP, f_list_comp),
    KE(DICT_COMP, f_dict_comp),
    KE(GENERATOR_EXP, f_list_comp),
    KE(AWAIT, f_await),
    KE(YIELD, f_yield),
    KE(YIELD_FROM, f_await),
    KE(COMPARE, f_compare),
    KE(CALL, f_call),
    KE(FORMATTED_VALUE, f_formatted_value),
    KE(JOINED_STR, f_joined_str),
    KE(CONSTANT, f_constant),
    KE(ATTRIBUTE, f_attribute),
    KE(SUBSCRIPT, f_subscript),
    KE(STARRED, f_starred),
    KE(NAME, f_name),
    KE(LIST, f_list),
    KE(TUPLE, f_tuple),
    KE(SLICE, f_slice),
    KP(MATCH_VALUE, f_match_value),
    KP(MATCH_SINGLETON, f_match_singleton),
    KP(MATCH_SEQUENCE, f_match_sequence),
    KP(MATCH_MAPPING, f_match_mapping),
    KP(MATCH_CLASS, f_match_class),
    KP(MATCH_STAR, f_match_star),
    KP(MATCH_AS, f_match_as),
    KP(MATCH_OR, f_match_or),
    K(ARGUMENTS, f_arguments, d2_ast_arguments),
    K(ARG, f_arg, d2_ast_arg),
    K(KEYWORD, f_keyword, d2_ast_keyword),
    K(ALIAS, f_alias, d2_ast_alias),
    K(WITHITEM, f_withitem, d2_ast_withitem),
    K(COMPREHENSION, f_comprehension, d2_ast_comprehension),
    K(EXCEPT_HANDLER, f_except_handler, d2_ast_excepthandler),
    K(MATCH_CASE, f_match_case, d2_ast_match_case),
};
#undef K
#undef KS
#undef KE
#undef KP

const d2_ast_field *d2_ast_fields(d2_ast_kind k, size_t *n)
{
    if ((unsigned)k >= D2_AST_KIND_COUNT) {
        *n = 0;
        return NULL;
    }
    *n = kinds[k].nfields;
    return kinds[k].fields;
}

bool d2_ast_has_position(d2_ast_kind k)
{
    switch (k) {
    case D2_AST_MODULE:
    case D2_AST_ARGUMENTS:
    case D2_AST_WITHITEM:
    case D2_AST_COMPREHENSION:
    case D2_AST_MATCH_CASE:
        return false;
    default:
        return (unsigned)k < D2_AST_KIND_COUNT;
    }
}

/* ---- constructors ---- */

int d2_ast_seq_push(d2_arena *a, d2_ast_seq *seq, void *item)
{
    if (seq->n == seq->cap) {
        uint32_t cap = seq->cap ? seq->cap * 2 : 4;
        void **items = d2_arena_realloc(a, seq->items, seq->cap * sizeof(void *),
                                        cap * sizeof(void *));
        if (!items)
            return -1;
        seq->items = items;
        seq->cap = cap;
    }
    seq->items[seq->n++] = item;
    return 0;
}

void *d2_ast_node_new(d2_arena *a, d2_ast_kind k, d2_span span)
{
    if ((unsigned)k >= D2_AST_KIND_COUNT)
        return NULL;
    d2_ast_node *n = d2_arena_alloc(a, kinds[k].size);
    if (n) {
        n->kind = k;
        n->span = span;
    }
    return n;
}

d2_ast_expr *d2_ast_expr_new(d2_arena *a, d2_ast_kind k, d2_span span)
{
    return d2_ast_is_expr(k) ? d2_ast_node_new(a, k, span) : NULL;
}

d2_ast_stmt *d2_ast_stmt_new(d2_arena *a, d2_ast_kind k, d2_span span)
{
    return d2_ast_is_stmt(k) ? d2_ast_node_new(a, k, span) : NULL;
}

d2_ast_expr *d2_ast_name(d2_arena *a, const char *id, d2_ast_ctx ctx, d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_NAME, span);
    if (e) {
        e->name.id = id;
        e->name.ctx = ctx;
    }
    return e;
}

d2_ast_expr *d2_ast_constant(d2_arena *a, d2_ast_const value, d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_CONSTANT, span);
    if (e)
        e->constant.value = value;
    return e;
}

d2_ast_expr *d2_ast_const_int(d2_arena *a, int64_t v, d2_span span)
{
    d2_ast_const c = {.kind = D2_CONST_INT, .i = v};
    return d2_ast_constant(a, c, span);
}

d2_ast_expr *d2_ast_const_float(d2_arena *a, double v, d2_span span)
{
    d2_ast_const c = {.kind = D2_CONST_FLOAT, .f = v};
    return d2_ast_constant(a, c, span);
}

d2_ast_expr *d2_ast_const_str(d2_arena *a, const char *s, size_t n, d2_span span)
{
    char *copy = d2_arena_strndup(a, s, n);
    if (!copy)
        return NULL;
    d2_ast_const c = {.kind = D2_CONST_STR, .str = {copy, n}};
    return d2_ast_constant(a, c, span);
}

d2_ast_expr *d2_ast_const_simple(d2_arena *a, d2_ast_const_kind k, d2_span span)
{
    d2_ast_const c = {.kind = k};
    return d2_ast_constant(a, c, span);
}

d2_ast_expr *d2_ast_attribute(d2_arena *a, d2_ast_expr *value, const char *attr,
                              d2_ast_ctx ctx, d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_ATTRIBUTE, span);
    if (e) {
        e->attribute.value = value;
        e->attribute.attr = attr;
        e->attribute.ctx = ctx;
    }
    return e;
}

d2_ast_expr *d2_ast_subscript(d2_arena *a, d2_ast_expr *value, d2_ast_expr *slice,
                              d2_ast_ctx ctx, d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_SUBSCRIPT, span);
    if (e) {
        e->subscript.value = value;
        e->subscript.slice = slice;
        e->subscript.ctx = ctx;
    }
    return e;
}

d2_ast_expr *d2_ast_call(d2_arena *a, d2_ast_expr *func, d2_ast_seq args, d2_ast_seq keywords,
                         d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_CALL, span);
    if (e) {
        e->call.func = func;
        e->call.args = args;
        e->call.keywords = keywords;
    }
    return e;
}

d2_ast_expr *d2_ast_bin_op(d2_arena *a, d2_ast_expr *left, d2_ast_operator op,
                           d2_ast_expr *right, d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_BIN_OP, span);
    if (e) {
        e->bin_op.left = left;
        e->bin_op.op = op;
        e->bin_op.right = right;
    }
    return e;
}

d2_ast_expr *d2_ast_unary_op(d2_arena *a, d2_ast_unaryop op, d2_ast_expr *operand, d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_UNARY_OP, span);
    if (e) {
        e->unary_op.op = op;
        e->unary_op.operand = operand;
    }
    return e;
}

d2_ast_expr *d2_ast_bool_op(d2_arena *a, d2_ast_boolop op, d2_ast_seq values, d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_BOOL_OP, span);
    if (e) {
        e->bool_op.op = op;
        e->bool_op.values = values;
    }
    return e;
}

d2_ast_expr *d2_ast_tuple(d2_arena *a, d2_ast_seq elts, d2_ast_ctx ctx, d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_TUPLE, span);
    if (e) {
        e->tuple.elts = elts;
        e->tuple.ctx = ctx;
    }
    return e;
}

d2_ast_expr *d2_ast_list(d2_arena *a, d2_ast_seq elts, d2_ast_ctx ctx, d2_span span)
{
    d2_ast_expr *e = d2_ast_expr_new(a, D2_AST_LIST, span);
    if (e) {
        e->list.elts = elts;
        e->list.ctx = ctx;
    }
    return e;
}

d2_ast_keyword *d2_ast_keyword_new(d2_arena *a, const char *arg, d2_ast_expr *value,
                                   d2_span span)
{
    d2_ast_keyword *k = d2_ast_node_new(a, D2_AST_KEYWORD, span);
    if (k) {
        k->arg = arg;
        k->value = value;
    }
    return k;
}

d2_ast_arg *d2_ast_arg_new(d2_arena *a, const char *arg, d2_ast_expr *annotation, d2_span span)
{
    d2_ast_arg *r = d2_ast_node_new(a, D2_AST_ARG, span);
    if (r) {
        r->arg = arg;
        r->annotation = annotation;
    }
    return r;
}

d2_ast_stmt *d2_ast_expr_stmt(d2_arena *a, d2_ast_expr *value, d2_span span)
{
    d2_ast_stmt *s = d2_ast_stmt_new(a, D2_AST_EXPR, span);
    if (s)
        s->expr.value = value;
    return s;
}

d2_ast_stmt *d2_ast_assign(d2_arena *a, d2_ast_seq targets, d2_ast_expr *value, d2_span span)
{
    d2_ast_stmt *s = d2_ast_stmt_new(a, D2_AST_ASSIGN, span);
    if (s) {
        s->assign.targets = targets;
        s->assign.value = value;
    }
    return s;
}

d2_ast_stmt *d2_ast_return(d2_arena *a, d2_ast_expr *value, d2_span span)
{
    d2_ast_stmt *s = d2_ast_stmt_new(a, D2_AST_RETURN, span);
    if (s)
        s->return_.value = value;
    return s;
}

d2_ast_stmt *d2_ast_if(d2_arena *a, d2_ast_expr *test, d2_ast_seq body, d2_ast_seq orelse,
                       d2_span span)
{
    d2_ast_stmt *s = d2_ast_stmt_new(a, D2_AST_IF, span);
    if (s) {
        s->if_.test = test;
        s->if_.body = body;
        s->if_.orelse = orelse;
    }
    return s;
}

d2_ast_stmt *d2_ast_while(d2_arena *a, d2_ast_expr *test, d2_ast_seq body, d2_ast_seq orelse,
                          d2_span span)
{
    d2_ast_stmt *s = d2_ast_stmt_new(a, D2_AST_WHILE, span);
    if (s) {
        s->while_.test = test;
        s->while_.body = body;
        s->while_.orelse = orelse;
    }
    return s;
}

d2_ast_stmt *d2_ast_simple_stmt(d2_arena *a, d2_ast_kind k, d2_span span)
{
    if (k != D2_AST_PASS && k != D2_AST_BREAK && k != D2_AST_CONTINUE)
        return NULL;
    return d2_ast_stmt_new(a, k, span);
}

/* ---- printer ---- */

/* Appends s[0, n) in the dump's string form (without quotes). */
static void print_str_body(d2_buf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' || c == '"') {
            char e[2] = {'\\', (char)c};
            d2_buf_append(out, e, 2);
        } else if (c == '\n') {
            d2_buf_puts(out, "\\n");
        } else if (c == '\r') {
            d2_buf_puts(out, "\\r");
        } else if (c == '\t') {
            d2_buf_puts(out, "\\t");
        } else if (c < 0x20 || c == 0x7f) {
            d2_buf_printf(out, "\\x%02x", c);
        } else if (c == 0xED && i + 2 < n && ((unsigned char)s[i + 1] & 0xE0) == 0xA0) {
            unsigned cp = 0xD000u | (((unsigned)s[i + 1] & 0x3F) << 6) | ((unsigned)s[i + 2] & 0x3F);
            d2_buf_printf(out, "\\u%04x", cp);
            i += 3;
            continue;
        } else {
            d2_buf_append(out, s + i, 1);
        }
        i++;
    }
}

static void print_ident(d2_buf *out, const char *s)
{
    if (!s) {
        d2_buf_puts(out, "None");
        return;
    }
    d2_buf_puts(out, "\"");
    print_str_body(out, s, strlen(s));
    d2_buf_puts(out, "\"");
}

/* Python's repr of a finite or infinite double: the shortest digits that
 * read back to v, positional for exponents -4..15, else d.ddde+XX. With
 * imag, the form of an imaginary literal's repr (no ".0", then "j"). */
static void print_float(d2_buf *out, double v, bool imag)
{
    const char *suffix = imag ? "j" : "";
    if (isinf(v)) {
        d2_buf_printf(out, "%sinf%s", v < 0 ? "-" : "", suffix);
        return;
    }
    if (isnan(v)) {
        d2_buf_printf(out, "nan%s", suffix);
        return;
    }
    char buf[64];
    int prec;
    for (prec = 1; prec < 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    /* buf = [-]d[.ddd]e[+-]XX */
    char digits[32];
    int nd = 0;
    const char *p = buf;
    bool neg = *p == '-';
    if (neg)
        p++;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int exp10 = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    if (neg)
        d2_buf_puts(out, "-");
    if (exp10 < -4 || exp10 >= 16) {
        d2_buf_append(out, digits, 1);
        if (nd > 1) {
            d2_buf_puts(out, ".");
            d2_buf_append(out, digits + 1, (size_t)nd - 1);
        }
        d2_buf_printf(out, "e%c%02d%s", exp10 < 0 ? '-' : '+', abs(exp10), suffix);
        return;
    }
    int decpt = exp10 + 1;
    if (decpt <= 0) {
        d2_buf_puts(out, "0.");
        for (int i = 0; i < -decpt; i++)
            d2_buf_puts(out, "0");
        d2_buf_append(out, digits, (size_t)nd);
    } else if (decpt >= nd) {
        d2_buf_append(out, digits, (size_t)nd);
        for (int i = nd; i < decpt; i++)
            d2_buf_puts(out, "0");
        if (!imag)
            d2_buf_puts(out, ".0");
    } else {
        d2_buf_append(out, digits, (size_t)decpt);
        d2_buf_puts(out, ".");
        d2_buf_append(out, digits + decpt, (size_t)(nd - decpt));
    }
    d2_buf_puts(out, suffix);
}

static void print_const(d2_buf *out, const d2_ast_const *c)
{
    switch (c->kind) {
    case D2_CONST_NONE: d2_buf_puts(out, "None"); break;
    case D2_CONST_TRUE: d2_buf_puts(out, "True"); break;
    case D2_CONST_FALSE: d2_buf_puts(out, "False"); break;
    case D2_CONST_ELLIPSIS: d2_buf_puts(out, "Ellipsis"); break;
    case D2_CONST_INT: d2_buf_printf(out, "%lld", (long long)c->i); break;
    case D2_CONST_BIGINT: d2_buf_append(out, c->str.data, c->str.len); break;
    case D2_CONST_FLOAT: print_float(out, c->f, false); break;
    case D2_CONST_COMPLEX: print_float(out, c->f, true); break;
    case D2_CONST_STR:
        d2_buf_puts(out, "\"");
        print_str_body(out, c->str.data, c->str.len);
        d2_buf_puts(out, "\"");
        break;
    case D2_CONST_BYTES:
        d2_buf_puts(out, "b\"");
        for (size_t i = 0; i < c->str.len; i++) {
            unsigned char b = (unsigned char)c->str.data[i];
            if (b == '\\' || b == '"')
                d2_buf_printf(out, "\\%c", b);
            else if (b == '\n')
                d2_buf_puts(out, "\\n");
            else if (b == '\r')
                d2_buf_puts(out, "\\r");
            else if (b == '\t')
                d2_buf_puts(out, "\\t");
            else if (b < 0x20 || b >= 0x7f)
                d2_buf_printf(out, "\\x%02x", b);
            else
                d2_buf_append(out, &c->str.data[i], 1);
        }
        d2_buf_puts(out, "\"");
        break;
    }
}

static void indent_to(d2_buf *out, int indent)
{
    d2_buf_puts(out, "\n");
    for (int i = 0; i < indent; i++)
        d2_buf_puts(out, " ");
}

static void print_node(d2_buf *out, const d2_ast_node *n, int indent, bool nopos);

/* Whether a field value makes its node print one field per line. */
static bool field_is_nested(const d2_ast_node *n, const d2_ast_field *f)
{
    const char *p = (const char *)n + f->offset;
    switch (f->type) {
    case D2_AST_F_NODE:
    case D2_AST_F_OPT: return *(void *const *)p != NULL;
    case D2_AST_F_SEQ: return ((const d2_ast_seq *)p)->n > 0;
    default: return false;
    }
}

static void print_field_value(d2_buf *out, const d2_ast_node *n, const d2_ast_field *fields,
                              size_t i, int indent, bool nopos)
{
    const d2_ast_field *f = &fields[i];
    const char *p = (const char *)n + f->offset;
    switch (f->type) {
    case D2_AST_F_NODE:
    case D2_AST_F_OPT:
        print_node(out, *(const d2_ast_node *const *)p, indent, nopos);
        break;
    case D2_AST_F_SEQ: {
        const d2_ast_seq *s = (const d2_ast_seq *)p;
        d2_buf_puts(out, "[");
        for (uint32_t k = 0; k < s->n; k++) {
            indent_to(out, indent + 2);
            print_node(out, s->items[k], indent + 2, nopos);
        }
        d2_buf_puts(out, "]");
        break;
    }
    case D2_AST_F_IDENT: print_ident(out, *(const char *const *)p); break;
    case D2_AST_F_IDENTS: {
        const d2_ast_seq *s = (const d2_ast_seq *)p;
        d2_buf_puts(out, "[");
        for (uint32_t k = 0; k < s->n; k++) {
            if (k)
                d2_buf_puts(out, " ");
            print_ident(out, s->items[k]);
        }
        d2_buf_puts(out, "]");
        break;
    }
    case D2_AST_F_INT: d2_buf_printf(out, "%d", *(const int *)p); break;
    case D2_AST_F_CONST: print_const(out, (const d2_ast_const *)p); break;
    case D2_AST_F_CTX: d2_buf_puts(out, d2_ast_ctx_name(*(const d2_ast_ctx *)p)); break;
    case D2_AST_F_BOOLOP: d2_buf_puts(out, d2_ast_boolop_name(*(const d2_ast_boolop *)p)); break;
    case D2_AST_F_OP: d2_buf_puts(out, d2_ast_operator_name(*(const d2_ast_operator *)p)); break;
    case D2_AST_F_UNARY: d2_buf_puts(out, d2_ast_unaryop_name(*(const d2_ast_unaryop *)p)); break;
    case D2_AST_F_CMPOPS: {
        /* the count is that of the following comparators list */
        const d2_ast_cmpop *ops = *(const d2_ast_cmpop *const *)p;
        const d2_ast_seq *s = (const d2_ast_seq *)((const char *)n + fields[i + 1].offset);
        d2_buf_puts(out, "[");
        for (uint32_t k = 0; k < s->n; k++) {
            if (k)
                d2_buf_puts(out, " ");
            d2_buf_puts(out, d2_ast_cmpop_name(ops[k]));
        }
        d2_buf_puts(out, "]");
        break;
    }
    }
}

static void print_node(d2_buf *out, const d2_ast_node *n, int indent, bool nopos)
{
    if (!n) {
        d2_buf_puts(out, "None");
        return;
    }
    d2_buf_printf(out, "(%s", d2_ast_kind_name(n->kind));
    if (!nopos && d2_ast_has_position(n->kind))
        d2_buf_printf(out, " @%u:%u-%u:%u", n->span.line, n->span.col, n->span.end_line,
                      n->span.end_col);
    size_t nf;
    const d2_ast_field *fields = d2_ast_fields(n->kind, &nf);
    bool nested = false;
    for (size_t i = 0; i < nf; i++)
        nested = nested || field_is_nested(n, &fields[i]);
    for (size_t i = 0; i < nf; i++) {
        if (nested)
            indent_to(out, indent + 2);
        else
            d2_buf_puts(out, " ");
        d2_buf_printf(out, "%s=", fields[i].name);
        /* the parts of an f-string carry no meaningful position in CPython */
        bool child_nopos = n->kind == D2_AST_JOINED_STR ||
                           (n->kind == D2_AST_FORMATTED_VALUE && i == 2);
        print_field_value(out, n, fields, i, indent + 2, child_nopos);
    }
    d2_buf_puts(out, ")");
}

void d2_ast_print(d2_buf *out, const void *node)
{
    print_node(out, node, 0, false);
    if (node && ((const d2_ast_node *)node)->kind == D2_AST_MODULE)
        d2_buf_puts(out, "\n");
}
