/* object.c - the object protocol: operators, comparison, truth, items, iteration, repr. */
#include "interp/interp_priv.h"

#include <math.h>
#include <string.h>

/* Integer value of an index-like object (int, bool, tensor via hooks, __index__). */
int d2_index(d2_interp *I, d2_obj *o, int64_t *v)
{
    if (o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL) {
        *v = D2_AS(d2_int, o)->v;
        return 0;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    d2_obj *r = NULL;
    if (hk && hk->to_number) {
        r = hk->to_number(I, o, D2_OBJ_INT);
    } else {
        bool found = false;
        if (o->kind != D2_OBJ_FLOAT && o->kind != D2_OBJ_STR)
            r = d2_call_special(I, o, "__index__", NULL, 0, &found);
        if (!found) {
            d2_raise(I, "TypeError", "'%s' object cannot be interpreted as an integer",
                     d2_type_name(o));
            return -1;
        }
    }
    if (!r)
        return -1;
    int rc = 0;
    if (r->kind == D2_OBJ_INT || r->kind == D2_OBJ_BOOL)
        *v = D2_AS(d2_int, r)->v;
    else {
        d2_raise(I, "TypeError", "__index__ returned non-int (type %s)", d2_type_name(r));
        rc = -1;
    }
    d2_decref(r);
    return rc;
}

/* ---- operators ---- */

static const char *const op_dunder[] = {
    "__add__",    "__sub__",    "__mul__", "__matmul__", "__truediv__", "__mod__",     "__pow__",
    "__lshift__", "__rshift__", "__or__",  "__xor__",    "__and__",     "__floordiv__"};
static const char *const op_rdunder[] = {"__radd__", "__rsub__", "__rmul__", "__rmatmul__",
                                         "__rtruediv__", "__rmod__", "__rpow__", "__rlshift__",
                                         "__rrshift__", "__ror__", "__rxor__", "__rand__",
                                         "__rfloordiv__"};
static const char *const op_idunder[] = {"__iadd__", "__isub__", "__imul__", "__imatmul__",
                                         "__itruediv__", "__imod__", "__ipow__", "__ilshift__",
                                         "__irshift__", "__ior__", "__ixor__", "__iand__",
                                         "__ifloordiv__"};

static d2_obj *overflow(d2_interp *I)
{
    return d2_raise(I, "OverflowError", "integer result out of range (ints are 64-bit)");
}

static int64_t ipow(d2_interp *I, int64_t base, int64_t exp, bool *ovf)
{
    (void)I;
    int64_t r = 1;
    while (exp > 0) {
        if (exp & 1) {
            if (__builtin_mul_overflow(r, base, &r)) {
                *ovf = true;
                return 0;
            }
        }
        exp >>= 1;
        if (exp && __builtin_mul_overflow(base, base, &base)) {
            *ovf = true;
            return 0;
        }
    }
    return r;
}

/* Python's float floor division and modulo. */
static void float_divmod(double x, double y, double *fdiv, double *fmod_)
{
    double mod = fmod(x, y);
    double div = (x - mod) / y;
    if (mod) {
        if ((y < 0) != (mod < 0)) {
            mod += y;
            div -= 1.0;
        }
    } else {
        mod = copysign(0.0, y);
    }
    double fl;
    if (div) {
        fl = floor(div);
        if (div - fl > 0.5)
            fl += 1.0;
    } else {
        fl = copysign(0.0, x / y);
    }
    *fdiv = fl;
    *fmod_ = mod;
}

static d2_obj *num_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (a->kind != D2_OBJ_FLOAT && b->kind != D2_OBJ_FLOAT) {
        int64_t x = D2_AS(d2_int, a)->v, y = D2_AS(d2_int, b)->v, r;
        bool both_bool = a->kind == D2_OBJ_BOOL && b->kind == D2_OBJ_BOOL;
        switch (op) {
        case D2_OP_ADD:
            if (__builtin_add_overflow(x, y, &r))
                return overflow(I);
            return d2_int_new(I, r);
        case D2_OP_SUB:
            if (__builtin_sub_overflow(x, y, &r))
                return overflow(I);
            return d2_int_new(I, r);
        case D2_OP_MULT:
            if (__builtin_mul_overflow(x, y, &r))
                return overflow(I);
            return d2_int_new(I, r);
        case D2_OP_DIV:
            if (y == 0)
                return d2_raise(I, "ZeroDivisionError", "division by zero");
            return d2_float_new(I, (double)x / (double)y);
        case D2_OP_FLOOR_DIV:
        case D2_OP_MOD: {
            if (y == 0)
                return d2_raise(I, "ZeroDivisionError",
                                op == D2_OP_MOD ? "integer modulo by zero"
                                                : "integer division or modulo by zero");
            if (x == INT64_MIN && y == -1)
                return op == D2_OP_MOD ? d2_int_new(I, 0) : overflow(I);
            int64_t q = x / y, m = x % y;
            if (m && ((m < 0) != (y < 0))) {
                q--;
                m += y;
            }
            return d2_int_new(I, op == D2_OP_MOD ? m : q);
        }
        case D2_OP_POW: {
            if (y < 0) {
                if (x == 0)
                    return d2_raise(I, "ZeroDivisionError",
                                    "0.0 cannot be raised to a negative power");
                return d2_float_new(I, pow((double)x, (double)y));
            }
            bool ovf = false;
            r = ipow(I, x, y, &ovf);
            if (ovf)
                return overflow(I);
            return d2_int_new(I, r);
        }
        case D2_OP_LSHIFT:
            if (y < 0)
                return d2_raise(I, "ValueError", "negative shift count");
            if (x == 0)
                return d2_int_new(I, 0);
            if (y >= 63 || (x > 0 ? x > (INT64_MAX >> y) : x < (INT64_MIN >> y)))
                return overflow(I);
            return d2_int_new(I, (int64_t)((uint64_t)x << y));
        case D2_OP_RSHIFT:
            if (y < 0)
                return d2_raise(I, "ValueError", "negative shift count");
            if (y >= 63)
                return d2_int_new(I, x < 0 ? -1 : 0);
            return d2_int_new(I, x < 0 ? ~(~x >> y) : x >> y);
        case D2_OP_BIT_AND:
            return both_bool ? d2_bool(I, x & y) : d2_int_new(I, x & y);
        case D2_OP_BIT_OR:
            return both_bool ? d2_bool(I, x | y) : d2_int_new(I, x | y);
        case D2_OP_BIT_XOR:
            return both_bool ? d2_bool(I, x ^ y) : d2_int_new(I, x ^ y);
        default:
            return NULL;
        }
    }
    double x = a->kind == D2_OBJ_FLOAT ? D2_AS(d2_float, a)->v : (double)D2_AS(d2_int, a)->v;
    double y = b->kind == D2_OBJ_FLOAT ? D2_AS(d2_float, b)->v : (double)D2_AS(d2_int, b)->v;
    switch (op) {
    case D2_OP_ADD: return d2_float_new(I, x + y);
    case D2_OP_SUB: return d2_float_new(I, x - y);
    case D2_OP_MULT: return d2_float_new(I, x * y);
    case D2_OP_DIV:
        if (y == 0)
            return d2_raise(I, "ZeroDivisionError", "float division by zero");
        return d2_float_new(I, x / y);
    case D2_OP_FLOOR_DIV:
    case D2_OP_MOD: {
        if (y == 0)
            return d2_raise(I, "ZeroDivisionError",
                            op == D2_OP_MOD ? "float modulo" : "float floor division by zero");
        double q, m;
        float_divmod(x, y, &q, &m);
        return d2_float_new(I, op == D2_OP_MOD ? m : q);
    }
    case D2_OP_POW: {
        if (x == 0 && y < 0)
            return d2_raise(I, "ZeroDivisionError", "0.0 cannot be raised to a negative power");
        if (x < 0 && y != floor(y) && isfinite(y))
            return d2_raise(I, "ValueError",
                            "negative number cannot be raised to a fractional power");
        double r = pow(x, y);
        if (isinf(r) && isfinite(x) && isfinite(y))
            return d2_raise(I, "OverflowError", "(34, 'Numerical result out of range')");
        return d2_float_new(I, r);
    }
    default:
        return NULL;
    }
}

/* NotImplemented (new ref) when no builtin rule applies. */
static d2_obj *builtin_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    d2_obj_kind ka = a->kind, kb = b->kind;
    if (d2i_is_number(a) && d2i_is_number(b)) {
        d2_obj *r = num_binop(I, op, a, b);
        if (r || I->exc)
            return r;
        return d2_incref(I->not_implemented);
    }
    switch (op) {
    case D2_OP_ADD:
        if (ka == kb && (ka == D2_OBJ_STR || ka == D2_OBJ_LIST || ka == D2_OBJ_TUPLE))
            return d2i_seq_concat(I, a, b);
        break;
    case D2_OP_MULT: {
        d2_obj *seq = NULL, *n = NULL;
        if (ka == D2_OBJ_STR || ka == D2_OBJ_LIST || ka == D2_OBJ_TUPLE) {
            seq = a;
            n = b;
        } else if (kb == D2_OBJ_STR || kb == D2_OBJ_LIST || kb == D2_OBJ_TUPLE) {
            seq = b;
            n = a;
        }
        if (seq) {
            if (n->kind == D2_OBJ_INT || n->kind == D2_OBJ_BOOL)
                return d2i_seq_repeat(I, seq, D2_AS(d2_int, n)->v);
            if (!I->hooks[n->kind] && !(n->cls->flags & D2I_CF_USER))
                return d2_raise(I, "TypeError", "can't multiply sequence by non-int of type '%s'",
                                d2_type_name(n));
        }
        break;
    }
    case D2_OP_MOD:
        if (ka == D2_OBJ_STR)
            return d2i_str_mod(I, a, b);
        break;
    case D2_OP_BIT_OR:
    case D2_OP_BIT_AND:
    case D2_OP_SUB:
    case D2_OP_BIT_XOR:
        if (d2i_is_set(I, a) && d2i_is_set(I, b)) {
            int c = op == D2_OP_BIT_OR    ? '|'
                    : op == D2_OP_BIT_AND ? '&'
                    : op == D2_OP_SUB     ? '-'
                                          : '^';
            return d2i_set_op(I, c, a, b);
        }
        if (op == D2_OP_BIT_OR && ka == D2_OBJ_DICT && kb == D2_OBJ_DICT && !d2i_is_set(I, a) &&
            !d2i_is_set(I, b)) {
            d2_obj *r = d2_dict_new(I);
            if (!r || d2_dict_merge(I, D2_AS(d2_dict, r), a) < 0 ||
                d2_dict_merge(I, D2_AS(d2_dict, r), b) < 0) {
                d2_decref(r);
                return NULL;
            }
            return r;
        }
        break;
    default:
        break;
    }
    return d2_incref(I->not_implemented);
}

static d2_obj *binop_error(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (op == D2_OP_ADD &&
        (a->kind == D2_OBJ_STR || a->kind == D2_OBJ_LIST || a->kind == D2_OBJ_TUPLE) &&
        a->cls == I->types[a->kind] && !(b->cls->flags & D2I_CF_USER) && !I->hooks[b->kind])
        return d2_raise(I, "TypeError", "can only concatenate %s (not \"%s\") to %s",
                        d2_type_name(a), d2_type_name(b), d2_type_name(a));
    return d2_raise(I, "TypeError", "unsupported operand type(s) for %s%s: '%s' and '%s'",
                    d2_ast_operator_symbol(op), op == D2_OP_POW ? " or pow()" : "", d2_type_name(a),
                    d2_type_name(b));
}

/* Tries a's hook, b's hook, the builtin rules, then __op__/__rop__. */
static d2_obj *binop_impl(d2_interp *I, int op, d2_obj *a, d2_obj *b, bool inplace)
{
    if (d2i_is_number(a) && d2i_is_number(b)) {
        d2_obj *r = num_binop(I, op, a, b);
        if (r || I->exc)
            return r;
        return binop_error(I, op, a, b);
    }
    const d2_type_hooks *ha = I->hooks[a->kind], *hb = I->hooks[b->kind];
    if (ha && ha->binop) {
        d2_obj *r = ha->binop(I, op, a, b);
        if (r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (hb && hb->binop && hb != ha) {
        d2_obj *r = hb->binop(I, op, a, b);
        if (r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (inplace) {
        bool found;
        d2_obj *r = d2_call_special(I, a, op_idunder[op], &b, 1, &found);
        if (found && r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (a->cls->flags & D2I_CF_USER || a->kind >= D2_OBJ_TENSOR) {
        bool found;
        d2_obj *r = d2_call_special(I, a, op_dunder[op], &b, 1, &found);
        if (found && r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    d2_obj *r = builtin_binop(I, op, a, b);
    if (r != I->not_implemented)
        return r;
    d2_decref(r);
    if (!(a->cls->flags & D2I_CF_USER) && a->kind < D2_OBJ_TENSOR && a->kind != D2_OBJ_INSTANCE) {
        bool found;
        r = d2_call_special(I, a, op_dunder[op], &b, 1, &found);
        if (found && r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (b->cls != a->cls || (b->cls->flags & D2I_CF_USER)) {
        bool found;
        r = d2_call_special(I, b, op_rdunder[op], &a, 1, &found);
        if (found && r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    return binop_error(I, op, a, b);
}

d2_obj *d2_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    return binop_impl(I, op, a, b, false);
}

/* a op= b: lists and sets update in place, else __iop__, else a op b. */
d2_obj *d2i_inplace_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (a->kind == D2_OBJ_LIST && a->cls == I->types[D2_OBJ_LIST]) {
        if (op == D2_OP_ADD) {
            if (d2i_list_extend(I, a, b) < 0)
                return NULL;
            return d2_incref(a);
        }
    }
    if (d2i_is_set(I, a) && d2i_is_set(I, b) &&
        (op == D2_OP_BIT_OR || op == D2_OP_BIT_AND || op == D2_OP_SUB || op == D2_OP_BIT_XOR)) {
        int c = op == D2_OP_BIT_OR ? '|' : op == D2_OP_BIT_AND ? '&' : op == D2_OP_SUB ? '-' : '^';
        d2_obj *r = d2i_set_op(I, c, a, b);
        if (!r)
            return NULL;
        d2_dict *d = D2_AS(d2_dict, a);
        d2i_dict_clear(d);
        int rc = d2_dict_merge(I, d, r) < 0 ? -1 : 0;
        /* merge of a set copies keys with None values */
        d2_decref(r);
        return rc < 0 ? NULL : d2_incref(a);
    }
    if (d2i_is_number(a) && d2i_is_number(b))
        return binop_impl(I, op, a, b, false);
    return binop_impl(I, op, a, b, a->kind == D2_OBJ_INSTANCE || a->kind >= D2_OBJ_TENSOR);
}

d2_obj *d2_unaryop(d2_interp *I, int op, d2_obj *a)
{
    if (op == D2_UNARY_NOT) {
        int t = d2_truthy(I, a);
        return t < 0 ? NULL : d2_bool(I, !t);
    }
    if (a->kind == D2_OBJ_INT || a->kind == D2_OBJ_BOOL) {
        int64_t v = D2_AS(d2_int, a)->v;
        switch (op) {
        case D2_UNARY_USUB:
            if (v == INT64_MIN)
                return overflow(I);
            return d2_int_new(I, -v);
        case D2_UNARY_UADD:
            return d2_int_new(I, v);
        default:
            return d2_int_new(I, ~v);
        }
    }
    if (a->kind == D2_OBJ_FLOAT) {
        double v = D2_AS(d2_float, a)->v;
        if (op == D2_UNARY_USUB)
            return d2_float_new(I, -v);
        if (op == D2_UNARY_UADD)
            return d2_incref(a);
        return d2_raise(I, "TypeError", "bad operand type for unary ~: 'float'");
    }
    const d2_type_hooks *hk = I->hooks[a->kind];
    if (hk && hk->unaryop)
        return hk->unaryop(I, op, a);
    const char *name = op == D2_UNARY_USUB   ? "__neg__"
                       : op == D2_UNARY_UADD ? "__pos__"
                                             : "__invert__";
    bool found;
    d2_obj *r = d2_call_special(I, a, name, NULL, 0, &found);
    if (found)
        return r;
    return d2_raise(I, "TypeError", "bad operand type for unary %s: '%s'",
                    op == D2_UNARY_USUB ? "-" : op == D2_UNARY_UADD ? "+" : "~", d2_type_name(a));
}

static const char *const cmp_dunder[] = {"__eq__", "__ne__", "__lt__",
                                         "__le__", "__gt__", "__ge__"};
static const int cmp_swap[] = {D2_CMP_EQ,   D2_CMP_NOT_EQ, D2_CMP_GT,
                               D2_CMP_GT_E, D2_CMP_LT,     D2_CMP_LT_E};

/* `item in c`: 1, 0, -1. */
static int contains(d2_interp *I, d2_obj *c, d2_obj *item)
{
    int r = d2i_contains(I, c, item);
    if (r != -2)
        return r;
    bool found;
    d2_obj *v = d2_call_special(I, c, "__contains__", &item, 1, &found);
    if (found) {
        if (!v)
            return -1;
        int t = d2_truthy(I, v);
        d2_decref(v);
        return t;
    }
    d2_obj *it = d2_get_iter(I, c);
    if (!it) {
        if (d2_exc_matches(I, d2_exc_class(I, "TypeError"))) {
            d2_exc_clear(I);
            d2_raise(I, "TypeError", "argument of type '%s' is not iterable", d2_type_name(c));
        }
        return -1;
    }
    for (;;) {
        bool done = false;
        d2_obj *x = d2_iter_next(I, it, &done);
        if (!x) {
            d2_decref(it);
            return done ? 0 : -1;
        }
        int eq = d2_equal(I, x, item);
        d2_decref(x);
        if (eq) {
            d2_decref(it);
            return eq;
        }
    }
}

static d2_obj *rich_compare(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    const d2_type_hooks *ha = I->hooks[a->kind], *hb = I->hooks[b->kind];
    if (ha && ha->compare) {
        d2_obj *r = ha->compare(I, op, a, b);
        if (r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    if (hb && hb->compare && hb != ha) {
        d2_obj *r = hb->compare(I, op, a, b);
        if (r != I->not_implemented)
            return r;
        d2_decref(r);
    }
    int c = d2i_compare_values(I, op, a, b);
    if (c == -1)
        return NULL;
    if (c >= 0)
        return d2_bool(I, c);
    bool found;
    d2_obj *r = d2_call_special(I, a, cmp_dunder[op], &b, 1, &found);
    if (found && r != I->not_implemented)
        return r;
    d2_decref(r);
    r = d2_call_special(I, b, cmp_dunder[cmp_swap[op]], &a, 1, &found);
    if (found && r != I->not_implemented)
        return r;
    d2_decref(r);
    if (op == D2_CMP_NOT_EQ) {
        /* default __ne__ inverts __eq__ */
        r = d2_call_special(I, a, "__eq__", &b, 1, &found);
        if (found && r != I->not_implemented) {
            if (!r)
                return NULL;
            int t = d2_truthy(I, r);
            d2_decref(r);
            return t < 0 ? NULL : d2_bool(I, !t);
        }
        d2_decref(r);
    }
    if (op == D2_CMP_EQ)
        return d2_bool(I, a == b);
    if (op == D2_CMP_NOT_EQ)
        return d2_bool(I, a != b);
    return d2_raise(I, "TypeError", "'%s' not supported between instances of '%s' and '%s'",
                    d2_ast_cmpop_symbol(op), d2_type_name(a), d2_type_name(b));
}

d2_obj *d2_compare(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    switch (op) {
    case D2_CMP_IS: return d2_bool(I, a == b);
    case D2_CMP_IS_NOT: return d2_bool(I, a != b);
    case D2_CMP_IN:
    case D2_CMP_NOT_IN: {
        int r = contains(I, b, a);
        if (r < 0)
            return NULL;
        return d2_bool(I, op == D2_CMP_IN ? r : !r);
    }
    default:
        break;
    }
    if (d2i_is_number(a) && d2i_is_number(b))
        return d2_bool(I, d2i_compare_values(I, op, a, b));
    if (d2i_stack_check(I) < 0)
        return NULL;
    return rich_compare(I, op, a, b);
}

int d2_equal(d2_interp *I, d2_obj *a, d2_obj *b)
{
    if (a == b)
        return 1;
    if ((d2i_is_number(a) && d2i_is_number(b)) || (a->kind == D2_OBJ_STR && b->kind == D2_OBJ_STR))
        return d2i_compare_values(I, D2_CMP_EQ, a, b);
    if (a->kind == D2_OBJ_STR || b->kind == D2_OBJ_STR) {
        if ((a->kind == D2_OBJ_STR || d2i_is_number(a) || a->kind == D2_OBJ_NONE) &&
            (b->kind == D2_OBJ_STR || d2i_is_number(b) || b->kind == D2_OBJ_NONE))
            return 0;
    }
    d2_obj *r = d2_compare(I, D2_CMP_EQ, a, b);
    if (!r)
        return -1;
    int t = d2_truthy(I, r);
    d2_decref(r);
    return t;
}

int d2_truthy(d2_interp *I, d2_obj *o)
{
    switch (o->kind) {
    case D2_OBJ_NONE: return 0;
    case D2_OBJ_BOOL:
    case D2_OBJ_INT: return D2_AS(d2_int, o)->v != 0;
    case D2_OBJ_FLOAT: return D2_AS(d2_float, o)->v != 0;
    case D2_OBJ_STR: return D2_AS(d2_str, o)->len != 0;
    case D2_OBJ_TUPLE: return D2_AS(d2_tuple, o)->n != 0;
    case D2_OBJ_LIST: return D2_AS(d2_list, o)->n != 0;
    case D2_OBJ_DICT: return D2_AS(d2_dict, o)->live != 0;
    case D2_OBJ_RANGE: return d2i_builtin_len(I, o) != 0;
    default: break;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->truthy)
        return hk->truthy(I, o);
    if (o->kind == D2_OBJ_ITERATOR) {
        int64_t n = d2i_builtin_len(I, o);
        if (n != -2)
            return n != 0;
    }
    if (o->kind == D2_OBJ_CLASS || o->kind == D2_OBJ_FUNCTION || o->kind == D2_OBJ_MODULE ||
        o->kind == D2_OBJ_BUILTIN)
        return 1;
    bool found;
    d2_obj *r = d2_call_special(I, o, "__bool__", NULL, 0, &found);
    if (found) {
        if (!r)
            return -1;
        if (r->kind != D2_OBJ_BOOL) {
            d2_raise(I, "TypeError", "__bool__ should return bool, returned %s", d2_type_name(r));
            d2_decref(r);
            return -1;
        }
        int t = D2_AS(d2_int, r)->v != 0;
        d2_decref(r);
        return t;
    }
    r = d2_call_special(I, o, "__len__", NULL, 0, &found);
    if (found) {
        if (!r)
            return -1;
        int64_t n;
        int rc = d2_index(I, r, &n);
        d2_decref(r);
        return rc < 0 ? -1 : n != 0;
    }
    return 1;
}

int64_t d2_len(d2_interp *I, d2_obj *o)
{
    int64_t n = d2i_builtin_len(I, o);
    if (n != -2)
        return n;
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->len)
        return hk->len(I, o);
    bool found;
    d2_obj *r = d2_call_special(I, o, "__len__", NULL, 0, &found);
    if (found) {
        if (!r)
            return -1;
        int rc = d2_index(I, r, &n);
        d2_decref(r);
        if (rc < 0)
            return -1;
        if (n < 0) {
            d2_raise(I, "ValueError", "__len__() should return >= 0");
            return -1;
        }
        return n;
    }
    d2_raise(I, "TypeError", "object of type '%s' has no len()", d2_type_name(o));
    return -1;
}

d2_obj *d2_getitem(d2_interp *I, d2_obj *o, d2_obj *key)
{
    switch (o->kind) {
    case D2_OBJ_LIST:
    case D2_OBJ_TUPLE:
    case D2_OBJ_STR:
    case D2_OBJ_RANGE:
        if (o->cls == I->types[o->kind] || !d2i_mro_lookup(I, o->cls, "__getitem__"))
            return d2i_seq_getitem(I, o, key);
        break;
    case D2_OBJ_DICT:
        if (!d2i_is_set(I, o)) {
            d2_obj *v = d2_dict_get(I, D2_AS(d2_dict, o), key);
            if (v)
                return d2_incref(v);
            if (I->exc)
                return NULL;
            if (o->cls != I->types[D2_OBJ_DICT]) {
                bool found;
                v = d2_call_special(I, o, "__missing__", &key, 1, &found);
                if (found)
                    return v;
            }
            d2_obj *e = d2i_exc_new(I, d2_exc_class(I, "KeyError"), &key, 1);
            if (e)
                d2i_set_exc(I, e);
            return NULL;
        }
        break;
    case D2_OBJ_CLASS:
        /* typing generics: list[int], Dict[str, int] */
        return d2_incref(o);
    default:
        break;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->getitem)
        return hk->getitem(I, o, key);
    bool found;
    d2_obj *r = d2_call_special(I, o, "__getitem__", &key, 1, &found);
    if (found)
        return r;
    return d2_raise(I, "TypeError", "'%s' object is not subscriptable", d2_type_name(o));
}

int d2_setitem(d2_interp *I, d2_obj *o, d2_obj *key, d2_obj *v)
{
    if (o->kind == D2_OBJ_LIST && o->cls == I->types[D2_OBJ_LIST])
        return d2i_list_setitem(I, o, key, v);
    if (o->kind == D2_OBJ_DICT && o->cls == I->types[D2_OBJ_DICT])
        return d2_dict_set(I, D2_AS(d2_dict, o), key, v);
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->setitem)
        return hk->setitem(I, o, key, v);
    bool found;
    d2_obj *args[2] = {key, v};
    d2_obj *r = d2_call_special(I, o, "__setitem__", args, 2, &found);
    if (found) {
        d2_decref(r);
        return r ? 0 : -1;
    }
    if (o->kind == D2_OBJ_LIST)
        return d2i_list_setitem(I, o, key, v);
    if (o->kind == D2_OBJ_DICT && !d2i_is_set(I, o))
        return d2_dict_set(I, D2_AS(d2_dict, o), key, v);
    d2_raise(I, "TypeError", "'%s' object does not support item assignment", d2_type_name(o));
    return -1;
}

int d2_delitem(d2_interp *I, d2_obj *o, d2_obj *key)
{
    bool found;
    if (o->cls->flags & D2I_CF_USER) {
        d2_obj *r = d2_call_special(I, o, "__delitem__", &key, 1, &found);
        if (found) {
            d2_decref(r);
            return r ? 0 : -1;
        }
    }
    if (o->kind == D2_OBJ_LIST)
        return d2i_list_delitem(I, o, key);
    if (o->kind == D2_OBJ_DICT && !d2i_is_set(I, o))
        return d2_dict_del(I, D2_AS(d2_dict, o), key);
    d2_obj *r = d2_call_special(I, o, "__delitem__", &key, 1, &found);
    if (found) {
        d2_decref(r);
        return r ? 0 : -1;
    }
    d2_raise(I, "TypeError", "'%s' object doesn't support item deletion", d2_type_name(o));
    return -1;
}

/* Iterator over an object with __getitem__ only: indexes until IndexError. */
static d2_obj *getitem_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_obj *k = d2_int_new(I, it->pos++);
    if (!k)
        return NULL;
    d2_obj *v = d2_getitem(I, it->src, k);
    d2_decref(k);
    if (!v && (d2_exc_matches(I, d2_exc_class(I, "IndexError")) ||
               d2_exc_matches(I, d2_exc_class(I, "StopIteration")))) {
        d2_exc_clear(I);
        *done = true;
    }
    return v;
}

d2_obj *d2_get_iter(d2_interp *I, d2_obj *o)
{
    if (o->cls == I->types[o->kind] || !(o->cls->flags & D2I_CF_USER)) {
        d2_obj *it = d2i_builtin_iter(I, o);
        if (it || I->exc)
            return it;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->get_iter)
        return hk->get_iter(I, o);
    bool found;
    d2_obj *r = d2_call_special(I, o, "__iter__", NULL, 0, &found);
    if (found) {
        if (r && r->kind != D2_OBJ_ITERATOR && !d2i_mro_lookup(I, r->cls, "__next__")) {
            d2_raise(I, "TypeError", "iter() returned non-iterator of type '%s'", d2_type_name(r));
            d2_decref(r);
            return NULL;
        }
        return r;
    }
    d2_obj *it = d2i_builtin_iter(I, o);
    if (it || I->exc)
        return it;
    if (o->kind != D2_OBJ_CLASS && d2i_mro_lookup(I, o->cls, "__getitem__"))
        return d2i_iter_new(I, getitem_iter_next, o);
    return d2_raise(I, "TypeError", "'%s' object is not iterable", d2_type_name(o));
}

d2_obj *d2_iter_next(d2_interp *I, d2_obj *it, bool *done)
{
    *done = false;
    if (it->kind == D2_OBJ_ITERATOR) {
        d2_iter *x = D2_AS(d2_iter, it);
        if (!x->next)
            return d2_raise(I, "TypeError", "'%s' object is not an iterator", d2_type_name(it));
        return x->next(I, x, done);
    }
    bool found;
    d2_obj *r = d2_call_special(I, it, "__next__", NULL, 0, &found);
    if (!found)
        return d2_raise(I, "TypeError", "'%s' object is not an iterator", d2_type_name(it));
    if (!r && d2_exc_matches(I, d2_exc_class(I, "StopIteration"))) {
        d2_exc_clear(I);
        *done = true;
    }
    return r;
}

d2_obj *d2_repr(d2_interp *I, d2_obj *o)
{
    if (o->kind <= D2_OBJ_FLOAT && o->cls == I->types[o->kind])
        return d2i_builtin_repr(I, o);
    if (d2i_stack_check(I) < 0)
        return NULL;
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->repr)
        return hk->repr(I, o);
    if (o->kind != D2_OBJ_CLASS) {
        d2_obj *m = d2i_mro_lookup(I, o->cls, "__repr__");
        if (m && m != I->st->object_repr) {
            bool found;
            d2_obj *r = d2_call_special(I, o, "__repr__", NULL, 0, &found);
            if (r && r->kind != D2_OBJ_STR) {
                d2_raise(I, "TypeError", "__repr__ returned non-string (type %s)", d2_type_name(r));
                d2_decref(r);
                return NULL;
            }
            return r;
        }
    }
    return d2i_builtin_repr(I, o);
}

d2_obj *d2_str_of(d2_interp *I, d2_obj *o)
{
    if (o->kind == D2_OBJ_STR && o->cls == I->types[D2_OBJ_STR])
        return d2_incref(o);
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && (hk->str || hk->repr))
        return hk->str ? hk->str(I, o) : hk->repr(I, o);
    if (o->kind != D2_OBJ_CLASS) {
        d2_obj *m = d2i_mro_lookup(I, o->cls, "__str__");
        if (m && m != I->st->object_str) {
            bool found;
            d2_obj *r = d2_call_special(I, o, "__str__", NULL, 0, &found);
            if (r && r->kind != D2_OBJ_STR) {
                d2_raise(I, "TypeError", "__str__ returned non-string (type %s)", d2_type_name(r));
                d2_decref(r);
                return NULL;
            }
            return r;
        }
    }
    if (o->kind == D2_OBJ_STR)
        return d2_str_new(I, D2_AS(d2_str, o)->s, D2_AS(d2_str, o)->len);
    return d2_repr(I, o);
}

/* ---- hashing ---- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

int d2_hash(d2_interp *I, d2_obj *o, uint64_t *h)
{
    switch (o->kind) {
    case D2_OBJ_STR:
        *h = D2_AS(d2_str, o)->hash;
        return 0;
    case D2_OBJ_INT:
    case D2_OBJ_BOOL:
        *h = mix64((uint64_t)D2_AS(d2_int, o)->v);
        return 0;
    case D2_OBJ_FLOAT: {
        double v = D2_AS(d2_float, o)->v;
        if (v == floor(v) && v >= -9.2e18 && v <= 9.2e18) {
            *h = mix64((uint64_t)(int64_t)v);
        } else {
            uint64_t bits;
            memcpy(&bits, &v, sizeof bits);
            *h = mix64(bits ^ 0x5555);
        }
        return 0;
    }
    case D2_OBJ_NONE:
        *h = 0x1234567;
        return 0;
    case D2_OBJ_TUPLE: {
        if (d2i_stack_check(I) < 0)
            return -1;
        uint64_t acc = 0x345678;
        d2_tuple *t = D2_AS(d2_tuple, o);
        for (size_t i = 0; i < t->n; i++) {
            uint64_t x;
            if (d2_hash(I, t->items[i], &x) < 0)
                return -1;
            acc = mix64(acc ^ x) + i;
        }
        *h = acc;
        return 0;
    }
    case D2_OBJ_LIST:
    case D2_OBJ_DICT:
    case D2_OBJ_SLICE:
        d2_raise(I, "TypeError", "unhashable type: '%s'", d2_type_name(o));
        return -1;
    default:
        break;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->hash)
        return hk->hash(I, o, h);
    if (o->kind == D2_OBJ_INSTANCE && (o->cls->flags & D2I_CF_USER)) {
        d2_obj *m = d2i_mro_lookup(I, o->cls, "__hash__");
        if (m && m->kind != D2_OBJ_BUILTIN) {
            if (m->kind == D2_OBJ_NONE) {
                d2_raise(I, "TypeError", "unhashable type: '%s'", d2_type_name(o));
                return -1;
            }
            bool found;
            d2_obj *r = d2_call_special(I, o, "__hash__", NULL, 0, &found);
            if (!r)
                return -1;
            int64_t v;
            int rc = d2_to_int64(I, r, "__hash__()", &v);
            d2_decref(r);
            if (rc < 0)
                return -1;
            *h = mix64((uint64_t)v);
            return 0;
        }
    }
    *h = mix64((uint64_t)(uintptr_t)o);
    return 0;
}

/* ---- repr of builtin layouts ---- */

static void repr_str_into(d2_buf *b, const d2_str *s)
{
    bool has_sq = memchr(s->s, '\'', s->len) != NULL;
    bool has_dq = memchr(s->s, '"', s->len) != NULL;
    char q = (has_sq && !has_dq) ? '"' : '\'';
    d2_buf_append(b, &q, 1);
    for (size_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->s[i];
        if (c == '\\')
            d2_buf_puts(b, "\\\\");
        else if (c == (unsigned char)q) {
            d2_buf_puts(b, q == '\'' ? "\\'" : "\\\"");
        } else if (c == '\n')
            d2_buf_puts(b, "\\n");
        else if (c == '\r')
            d2_buf_puts(b, "\\r");
        else if (c == '\t')
            d2_buf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            d2_buf_printf(b, "\\x%02x", c);
        else if (c >= 0x80) {
            size_t j = i;
            uint32_t cp = d2i_utf8_decode(s->s, s->len, &j);
            if (cp >= 0x80 && cp < 0xa0)
                d2_buf_printf(b, "\\x%02x", cp);
            else
                d2_buf_append(b, s->s + i, j - i);
            i = j - 1;
        } else
            d2_buf_append(b, &c, 1);
    }
    d2_buf_append(b, &q, 1);
}

int d2_repr_enter(d2_interp *I, d2_obj *o)
{
    struct d2_interp_state *st = I->st;
    for (size_t i = 0; i < st->nrepr; i++)
        if (st->repr_stack[i] == o)
            return 1;
    if (st->nrepr == st->caprepr) {
        size_t cap = st->caprepr ? st->caprepr * 2 : 16;
        d2_obj **p = d2_realloc(st->repr_stack, cap * sizeof *p);
        if (!p) {
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        st->repr_stack = p;
        st->caprepr = cap;
    }
    st->repr_stack[st->nrepr++] = o;
    return 0;
}

void d2_repr_leave(d2_interp *I) { I->st->nrepr--; }

/* Appends repr(o) to b; -1 with an exception. */
static int repr_into(d2_interp *I, d2_buf *b, d2_obj *o)
{
    if (o->kind == D2_OBJ_STR) {
        repr_str_into(b, D2_AS(d2_str, o));
        return 0;
    }
    d2_obj *r = d2_repr(I, o);
    if (!r)
        return -1;
    d2_buf_append(b, D2_AS(d2_str, r)->s, D2_AS(d2_str, r)->len);
    d2_decref(r);
    return 0;
}

static int repr_items(d2_interp *I, d2_buf *b, d2_obj **items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            d2_buf_puts(b, ", ");
        if (repr_into(I, b, items[i]) < 0)
            return -1;
    }
    return 0;
}

/* The module a class's repr names: a class statement's module, or the one a
 * library class was made in (numpy.ndarray, paddle.Tensor); none for builtins. */
static const char *module_prefix(d2_class *c)
{
    if (!c->module || !c->module->name)
        return NULL;
    if (strcmp(c->module->name, "builtins") == 0)
        return NULL;
    return c->module->name;
}

static int repr_dict_into(d2_interp *I, d2_buf *b, d2_dict *d, bool set)
{
    bool first = true;
    for (size_t i = 0; i < d->n; i++) {
        d2_dict_entry *e = &d->entries[i];
        if (!e->key)
            continue;
        if (!first)
            d2_buf_puts(b, ", ");
        first = false;
        d2_obj *k = d2_incref(e->key), *v = d2_incref(e->value);
        int rc = repr_into(I, b, k);
        if (rc == 0 && !set) {
            d2_buf_puts(b, ": ");
            rc = repr_into(I, b, v);
        }
        d2_decref(k);
        d2_decref(v);
        if (rc < 0)
            return -1;
    }
    return 0;
}

d2_obj *d2i_builtin_repr(d2_interp *I, d2_obj *o)
{
    char tmp[64];
    d2_buf b;
    d2_buf_init(&b);
    int rc = 0;
    switch (o->kind) {
    case D2_OBJ_NONE:
        return d2_str_from(I, "None");
    case D2_OBJ_BOOL:
        return d2_str_from(I, D2_AS(d2_int, o)->v ? "True" : "False");
    case D2_OBJ_INT: {
        int64_t v = D2_AS(d2_int, o)->v;
        uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        size_t k = sizeof tmp;
        do {
            tmp[--k] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0)
            tmp[--k] = '-';
        return d2_str_new(I, tmp + k, sizeof tmp - k);
    }
    case D2_OBJ_FLOAT:
        d2i_float_repr(D2_AS(d2_float, o)->v, tmp, sizeof tmp);
        return d2_str_from(I, tmp);
    case D2_OBJ_STR:
        repr_str_into(&b, D2_AS(d2_str, o));
        return d2i_str_from_buf(I, &b);
    case D2_OBJ_ELLIPSIS:
        return d2_str_from(I, "Ellipsis");
    case D2_OBJ_TUPLE: {
        d2_tuple *t = D2_AS(d2_tuple, o);
        int in = d2_repr_enter(I, o);
        if (in)
            return in < 0 ? NULL : d2_str_from(I, "(...)");
        d2_buf_puts(&b, "(");
        rc = repr_items(I, &b, t->items, t->n);
        d2_buf_puts(&b, t->n == 1 ? ",)" : ")");
        d2_repr_leave(I);
        break;
    }
    case D2_OBJ_LIST: {
        int in = d2_repr_enter(I, o);
        if (in)
            return in < 0 ? NULL : d2_str_from(I, "[...]");
        d2_buf_puts(&b, "[");
        /* items may change while printing; hold a snapshot */
        d2_obj *snap = d2_tuple_from_array(I, D2_AS(d2_list, o)->items, D2_AS(d2_list, o)->n);
        if (!snap) {
            rc = -1;
        } else {
            rc = repr_items(I, &b, D2_AS(d2_tuple, snap)->items, D2_AS(d2_tuple, snap)->n);
            d2_decref(snap);
        }
        d2_buf_puts(&b, "]");
        d2_repr_leave(I);
        break;
    }
    case D2_OBJ_DICT: {
        bool set = d2i_is_set(I, o);
        bool sub = o->cls != I->types[D2_OBJ_DICT] && o->cls != I->st->set;
        int in = d2_repr_enter(I, o);
        if (in)
            return in < 0 ? NULL : d2_str_from(I, set ? "{...}" : "{...}");
        if (set && D2_AS(d2_dict, o)->live == 0) {
            d2_buf_printf(&b, "%s()", o->cls->name);
        } else {
            if (set && sub)
                d2_buf_printf(&b, "%s(", o->cls->name);
            d2_buf_puts(&b, "{");
            rc = repr_dict_into(I, &b, D2_AS(d2_dict, o), set);
            d2_buf_puts(&b, "}");
            if (set && sub)
                d2_buf_puts(&b, ")");
        }
        d2_repr_leave(I);
        break;
    }
    case D2_OBJ_SLICE: {
        d2_slice *s = D2_AS(d2_slice, o);
        d2_buf_puts(&b, "slice(");
        d2_obj *parts[3] = {s->start, s->stop, s->step};
        for (int i = 0; i < 3 && rc == 0; i++) {
            if (i)
                d2_buf_puts(&b, ", ");
            rc = repr_into(I, &b, parts[i] ? parts[i] : I->none);
        }
        d2_buf_puts(&b, ")");
        break;
    }
    case D2_OBJ_RANGE: {
        d2_range *r = D2_AS(d2_range, o);
        if (r->step == 1)
            d2_buf_printf(&b, "range(%lld, %lld)", (long long)r->start, (long long)r->stop);
        else
            d2_buf_printf(&b, "range(%lld, %lld, %lld)", (long long)r->start,
                          (long long)r->stop, (long long)r->step);
        break;
    }
    case D2_OBJ_FUNCTION: {
        d2_function *f = D2_AS(d2_function, o);
        d2_buf_printf(&b, "<function %s at %p>", f->qualname ? f->qualname : f->name, (void *)o);
        break;
    }
    case D2_OBJ_BUILTIN: {
        d2_builtin *f = D2_AS(d2_builtin, o);
        if (f->self)
            d2_buf_printf(&b, "<built-in method %s of %s object at %p>", f->name,
                          d2_type_name(f->self), (void *)f->self);
        else if (o->cls == I->st->method_descr)
            d2_buf_printf(&b, "<method '%s' objects>", f->name);
        else
            d2_buf_printf(&b, "<built-in function %s>", f->name);
        break;
    }
    case D2_OBJ_BOUND_METHOD: {
        d2_bound_method *m = D2_AS(d2_bound_method, o);
        const char *name = "?";
        if (m->func->kind == D2_OBJ_FUNCTION) {
            d2_function *f = D2_AS(d2_function, m->func);
            name = f->qualname ? f->qualname : f->name;
        } else if (m->func->kind == D2_OBJ_BUILTIN) {
            name = D2_AS(d2_builtin, m->func)->name;
        }
        d2_buf_printf(&b, "<bound method %s of ", name);
        rc = repr_into(I, &b, m->self);
        d2_buf_puts(&b, ">");
        break;
    }
    case D2_OBJ_CLASS: {
        d2_class *c = D2_AS(d2_class, o);
        const char *mp = module_prefix(c);
        d2_buf_printf(&b, "<class '%s%s%s'>", mp ? mp : "", mp ? "." : "", c->name);
        break;
    }
    case D2_OBJ_MODULE: {
        d2_module *m = D2_AS(d2_module, o);
        if (m->path)
            d2_buf_printf(&b, "<module '%s' from '%s'>", m->name, m->path);
        else
            d2_buf_printf(&b, "<module '%s' (built-in)>", m->name);
        break;
    }
    case D2_OBJ_ITERATOR: {
        d2_iter *it = D2_AS(d2_iter, o);
        if (o->cls != I->types[D2_OBJ_ITERATOR] && it->src && it->src->kind == D2_OBJ_DICT &&
            it->next == NULL) {
            /* a dict view */
            d2_buf_printf(&b, "%s([", o->cls->name);
            d2_dict *d = D2_AS(d2_dict, it->src);
            bool first = true;
            for (size_t i = 0; i < d->n && rc == 0; i++) {
                d2_dict_entry *e = &d->entries[i];
                if (!e->key)
                    continue;
                if (!first)
                    d2_buf_puts(&b, ", ");
                first = false;
                if (it->step == 0) {
                    rc = repr_into(I, &b, e->key);
                } else if (it->step == 1) {
                    rc = repr_into(I, &b, e->value);
                } else {
                    d2_buf_puts(&b, "(");
                    rc = repr_into(I, &b, e->key);
                    d2_buf_puts(&b, ", ");
                    if (rc == 0)
                        rc = repr_into(I, &b, e->value);
                    d2_buf_puts(&b, ")");
                }
            }
            d2_buf_puts(&b, "])");
        } else {
            d2_buf_printf(&b, "<%s object at %p>", d2_type_name(o), (void *)o);
        }
        break;
    }
    case D2_OBJ_OPAQUE:
        if (o == I->not_implemented)
            return d2_str_from(I, "NotImplemented");
        d2_buf_printf(&b, "<%s object at %p>", d2_type_name(o), (void *)o);
        break;
    default: {
        const char *mp = module_prefix(o->cls);
        d2_buf_printf(&b, "<%s%s%s object at %p>", mp ? mp : "", mp ? "." : "", d2_type_name(o),
                      (void *)o);
        break;
    }
    }
    if (rc < 0) {
        d2_buf_free(&b);
        return NULL;
    }
    return d2i_str_from_buf(I, &b);
}

/* ---- comparisons of builtin values ---- */

/* -1/0/1, or 2 when unordered (NaN). */

static int cmp_result(int op, int c)
{
    if (c == 2)
        return op == D2_CMP_NOT_EQ;
    switch (op) {
    case D2_CMP_EQ: return c == 0;
    case D2_CMP_NOT_EQ: return c != 0;
    case D2_CMP_LT: return c < 0;
    case D2_CMP_LT_E: return c <= 0;
    case D2_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* Lexicographic comparison of two item arrays. */
static int seq_cmp(d2_interp *I, int op, d2_obj **a, size_t na, d2_obj **b, size_t nb)
{
    if ((op == D2_CMP_EQ || op == D2_CMP_NOT_EQ) && na != nb)
        return op == D2_CMP_NOT_EQ;
    if (d2i_stack_check(I) < 0)
        return -1;
    size_t i;
    for (i = 0; i < na && i < nb; i++) {
        int eq = d2_equal(I, a[i], b[i]);
        if (eq < 0)
            return -1;
        if (!eq)
            break;
    }
    if (i >= na || i >= nb) {
        int c = na < nb ? -1 : na > nb;
        return cmp_result(op, c);
    }
    if (op == D2_CMP_EQ)
        return 0;
    if (op == D2_CMP_NOT_EQ)
        return 1;
    d2_obj *r = d2_compare(I, op, a[i], b[i]);
    if (!r)
        return -1;
    int t = d2_truthy(I, r);
    d2_decref(r);
    return t;
}

int d2i_set_subset(d2_interp *I, d2_dict *a, d2_dict *b)
{
    if (a->live > b->live)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (!a->entries[i].key)
            continue;
        int64_t ix = d2i_dict_find(I, b, a->entries[i].key, a->entries[i].hash);
        if (ix == -2)
            return -1;
        if (ix < 0)
            return 0;
    }
    return 1;
}

int d2i_compare_values(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (d2i_is_number(a) && d2i_is_number(b))
        return cmp_result(op, d2i_num_cmp(a, b));
    if (a->kind == D2_OBJ_STR && b->kind == D2_OBJ_STR) {
        d2_str *x = D2_AS(d2_str, a), *y = D2_AS(d2_str, b);
        size_t m = x->len < y->len ? x->len : y->len;
        int c = memcmp(x->s, y->s, m);
        if (c == 0)
            c = x->len < y->len ? -1 : x->len > y->len;
        return cmp_result(op, c < 0 ? -1 : c > 0);
    }
    if (a->kind == D2_OBJ_LIST && b->kind == D2_OBJ_LIST)
        return seq_cmp(I, op, D2_AS(d2_list, a)->items, D2_AS(d2_list, a)->n,
                       D2_AS(d2_list, b)->items, D2_AS(d2_list, b)->n);
    if (a->kind == D2_OBJ_TUPLE && b->kind == D2_OBJ_TUPLE)
        return seq_cmp(I, op, D2_AS(d2_tuple, a)->items, D2_AS(d2_tuple, a)->n,
                       D2_AS(d2_tuple, b)->items, D2_AS(d2_tuple, b)->n);
    if (a->kind == D2_OBJ_DICT && b->kind == D2_OBJ_DICT) {
        bool sa = d2i_is_set(I, a), sb = d2i_is_set(I, b);
        d2_dict *x = D2_AS(d2_dict, a), *y = D2_AS(d2_dict, b);
        if (sa && sb) {
            int r;
            switch (op) {
            case D2_CMP_EQ:
            case D2_CMP_NOT_EQ:
                r = x->live == y->live ? d2i_set_subset(I, x, y) : 0;
                return r < 0 ? -1 : (op == D2_CMP_EQ ? r : !r);
            case D2_CMP_LT_E: return d2i_set_subset(I, x, y);
            case D2_CMP_GT_E: return d2i_set_subset(I, y, x);
            case D2_CMP_LT:
                return x->live < y->live ? d2i_set_subset(I, x, y) : 0;
            default:
                return y->live < x->live ? d2i_set_subset(I, y, x) : 0;
            }
        }
        if (sa || sb)
            return (op == D2_CMP_EQ || op == D2_CMP_NOT_EQ) ? op == D2_CMP_NOT_EQ : -2;
        if (op != D2_CMP_EQ && op != D2_CMP_NOT_EQ)
            return -2;
        if (x->live != y->live)
            return op == D2_CMP_NOT_EQ;
        if (d2i_stack_check(I) < 0)
            return -1;
        for (size_t i = 0; i < x->n; i++) {
            d2_dict_entry *e = &x->entries[i];
            if (!e->key)
                continue;
            int64_t ix = d2i_dict_find(I, y, e->key, e->hash);
            if (ix == -2)
                return -1;
            if (ix < 0)
                return op == D2_CMP_NOT_EQ;
            int eq = d2_equal(I, e->value, y->entries[ix].value);
            if (eq < 0)
                return -1;
            if (!eq)
                return op == D2_CMP_NOT_EQ;
        }
        return op == D2_CMP_EQ;
    }
    if (a->kind == D2_OBJ_RANGE && b->kind == D2_OBJ_RANGE &&
        (op == D2_CMP_EQ || op == D2_CMP_NOT_EQ)) {
        d2_range *x = D2_AS(d2_range, a), *y = D2_AS(d2_range, b);
        int64_t nx = d2i_builtin_len(I, a), ny = d2i_builtin_len(I, b);
        bool eq =
            nx == ny && (nx == 0 || (x->start == y->start && (nx == 1 || x->step == y->step)));
        return op == D2_CMP_EQ ? eq : !eq;
    }
    if (a->kind == D2_OBJ_SLICE && b->kind == D2_OBJ_SLICE) {
        d2_slice *x = D2_AS(d2_slice, a), *y = D2_AS(d2_slice, b);
        d2_obj *ia[3] = {x->start, x->stop, x->step}, *ib[3] = {y->start, y->stop, y->step};
        return seq_cmp(I, op, ia, 3, ib, 3);
    }
    if (op == D2_CMP_EQ || op == D2_CMP_NOT_EQ) {
        if (d2i_is_view(a) && d2i_is_view(b) && D2_AS(d2_iter, a)->step == 0 &&
            D2_AS(d2_iter, b)->step == 0)
            return d2i_compare_values(I, op, D2_AS(d2_iter, a)->src, D2_AS(d2_iter, b)->src);
    }
    return -2;
}

int d2i_contains(d2_interp *I, d2_obj *c, d2_obj *item)
{
    switch (c->kind) {
    case D2_OBJ_STR: {
        if (item->kind != D2_OBJ_STR) {
            d2_raise(I, "TypeError", "'in <string>' requires string as left operand, not %s",
                     d2_type_name(item));
            return -1;
        }
        d2_str *h = D2_AS(d2_str, c), *n = D2_AS(d2_str, item);
        if (n->len == 0)
            return 1;
        return memmem(h->s, h->len, n->s, n->len) != NULL;
    }
    case D2_OBJ_LIST:
    case D2_OBJ_TUPLE: {
        for (size_t i = 0;; i++) {
            size_t n = c->kind == D2_OBJ_LIST ? D2_AS(d2_list, c)->n : D2_AS(d2_tuple, c)->n;
            if (i >= n)
                return 0;
            d2_obj *x =
                c->kind == D2_OBJ_LIST ? D2_AS(d2_list, c)->items[i] : D2_AS(d2_tuple, c)->items[i];
            d2_incref(x);
            int eq = d2_equal(I, x, item);
            d2_decref(x);
            if (eq)
                return eq;
        }
    }
    case D2_OBJ_DICT: {
        uint64_t h;
        if (d2_hash(I, item, &h) < 0)
            return -1;
        int64_t ix = d2i_dict_find(I, D2_AS(d2_dict, c), item, h);
        return ix == -2 ? -1 : ix >= 0;
    }
    case D2_OBJ_RANGE: {
        d2_range *r = D2_AS(d2_range, c);
        int64_t v;
        if (item->kind == D2_OBJ_INT || item->kind == D2_OBJ_BOOL)
            v = D2_AS(d2_int, item)->v;
        else if (item->kind == D2_OBJ_FLOAT &&
                 D2_AS(d2_float, item)->v == floor(D2_AS(d2_float, item)->v) &&
                 fabs(D2_AS(d2_float, item)->v) < 9e18)
            v = (int64_t)D2_AS(d2_float, item)->v;
        else
            return 0;
        if (r->step > 0 ? (v < r->start || v >= r->stop) : (v > r->start || v <= r->stop))
            return 0;
        return (v - r->start) % r->step == 0;
    }
    case D2_OBJ_ITERATOR:
        if (d2i_is_view(c)) {
            d2_iter *it = D2_AS(d2_iter, c);
            if (it->step == 0)
                return d2i_contains(I, it->src, item);
            d2_obj *l = d2_list_from_iterable(I, c);
            if (!l)
                return -1;
            int r = d2i_contains(I, l, item);
            d2_decref(l);
            return r;
        }
        return -2;
    default:
        return -2;
    }
}
