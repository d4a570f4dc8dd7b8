/* tensor_methods.c - the paddle.Tensor class: attributes, methods, protocol hooks. */
#include "lib/paddle/functions_priv.h"

#include <math.h>
#include <string.h>

#include "syntax/ast.h"

/* ======================================================================
 * paddle.Tensor: attributes, methods, protocol hooks
 * ====================================================================== */

d2_obj *d2_pd_transpose_all(d2_interp *I, d2_obj *x)
{
    int nd = obj_type(x)->shape.ndim;
    int64_t perm[D2_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        perm[i] = nd - 1 - i;
    d2_ab b;
    d2_ab_init(&b, D2_OP_transpose);
    d2_ab_ints(&b, "perm", perm, nd);
    return op1(I, "Tensor.T", D2_OP_transpose, x, &b);
}

static d2_obj *tensor_getattr(d2_interp *I, d2_obj *o, const char *name)
{
    d2_tensor_obj *t = TOBJ(o);
    switch (name[0]) {
    case 's':
        if (strcmp(name, "shape") == 0) {
            if (D2_MODE(I)->tracer)
                trace_frozen(I, o, D2_FREEZE_SHAPE);
            d2_obj *l = d2_pd_shape_pylist(I, &t->type.shape);
            /* a Variable of a Program built by hand (paddle.static.data): a tuple, as
             * Paddle's Variable.shape */
            const d2_pd_upcalls *up = &D2_MODE(I)->up;
            if (l && l->kind == D2_OBJ_LIST && !t->t && t->builder && up->static_builds &&
                up->static_builds(I, t->builder)) {
                d2_obj *tu = d2_tuple_from_array(I, D2_AS(d2_list, l)->items,
                                                 D2_AS(d2_list, l)->n);
                d2_decref(l);
                return tu;
            }
            return l;
        }
        if (strcmp(name, "size") == 0) {
            int64_t n = d2_shape_numel(&t->type.shape);
            if (n < 0) /* a dynamic shape: the count at run time, as Paddle's numel */
                return op1(I, "Tensor.size", D2_OP_numel, o, NULL);
            return d2_int_new(I, n);
        }
        if (strcmp(name, "stop_gradient") == 0)
            return d2_bool(I, t->stop_gradient);
        break;
    case 'd':
        if (strcmp(name, "dtype") == 0)
            return d2_pd_dtype_obj_new(I, t->type.dtype, false);
        break;
    case 'n':
        if (strcmp(name, "ndim") == 0)
            return d2_int_new(I, t->type.shape.ndim);
        if (strcmp(name, "name") == 0) {
            if (t->name)
                return d2_str_from(I, t->name);
            if (!t->t && t->builder)
                return d2_str_from(I, t->builder->prog->vars[t->var].name);
            return d2_str_from(I, "eager_tmp");
        }
        break;
    case 'T':
        if (strcmp(name, "T") == 0)
            return d2_pd_transpose_all(I, o);
        break;
    case 'p':
        if (strcmp(name, "place") == 0)
            return d2_str_from(I, "Place(cpu)");
        if (strcmp(name, "persistable") == 0)
            return d2_bool(I, t->persistable);
        break;
    case 'g':
        if (strcmp(name, "grad") == 0)
            return d2_pd_tensor_grad(I, o);
        break;
    case 'i':
        if (strcmp(name, "is_leaf") == 0)
            return d2_bool(I, t->grad_node == NULL);
        break;
    case 't':
        if (strcmp(name, "trainable") == 0)
            return d2_bool(I, !t->stop_gradient);
        break;
    default: break;
    }
    return NULL;
}

static int tensor_setattr(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    d2_tensor_obj *t = TOBJ(o);
    if (strcmp(name, "stop_gradient") == 0 || strcmp(name, "trainable") == 0) {
        bool b;
        if (d2_pd_get_bool(I, v, "Tensor", name, &b) < 0)
            return -1;
        t->stop_gradient = name[0] == 's' ? b : !b;
        return 0;
    }
    if (strcmp(name, "grad") == 0)
        return d2_pd_set_tensor_grad(I, o, v);
    if (strcmp(name, "persistable") == 0) {
        bool b;
        if (d2_pd_get_bool(I, v, "Tensor", name, &b) < 0)
            return -1;
        t->persistable = b;
        return 0;
    }
    if (strcmp(name, "name") == 0) {
        const char *s = d2_pd_get_str(I, v, "Tensor", "name");
        if (!s)
            return -1;
        t->name = d2_arena_strdup(I->arena, s);
        return t->name ? 0 : (nomem(I), -1);
    }
    return 1;
}

static int64_t tensor_len(d2_interp *I, d2_obj *o)
{
    if (D2_MODE(I)->tracer)
        trace_frozen(I, o, D2_FREEZE_LEN);
    const d2_shape *s = &obj_type(o)->shape;
    if (s->ndim == 0) {
        d2_raise(I, "TypeError", "len() of a 0-D tensor");
        return -1;
    }
    if (s->dims[0] < 0) {
        d2_raise(I, "TypeError",
                 "len() of a tensor whose first dim is dynamic (-1); use paddle.shape(x)[0]");
        return -1;
    }
    return s->dims[0];
}

static d2_obj *tensor_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    *done = false;
    if (it->pos >= it->end) {
        *done = true;
        return NULL;
    }
    d2_obj *k = d2_int_new(I, it->pos++);
    if (!k)
        return NULL;
    d2_obj *r = it->src->kind == D2_OBJ_TENSOR ? d2_pd_tensor_getitem(I, it->src, k)
                                               : d2_getitem(I, it->src, k);
    d2_decref(k);
    return r;
}

static d2_obj *tensor_get_iter(d2_interp *I, d2_obj *o)
{
    int64_t n = tensor_len(I, o);
    if (n < 0)
        return NULL;
    d2_obj *io = d2_obj_alloc(I, D2_OBJ_ITERATOR, NULL, sizeof(d2_iter));
    if (!io)
        return NULL;
    d2_iter *it = D2_AS(d2_iter, io);
    it->next = tensor_iter_next;
    it->src = d2_incref(o);
    it->pos = 0;
    it->end = n;
    it->step = 1;
    return io;
}

/* One-element tensor as a Python number (int(t), float(t), index use). */
static d2_obj *tensor_to_number(d2_interp *I, d2_obj *o, d2_obj_kind to)
{
    if (D2_MODE(I)->tracer)
        trace_frozen(I, o, to == D2_OBJ_FLOAT ? D2_FREEZE_FLOAT : D2_FREEZE_INT);
    d2_tensor *h = d2_pd_host(I, o, to == D2_OBJ_FLOAT ? "float(Tensor)" : "int(Tensor)");
    if (!h)
        return NULL;
    d2_obj *r;
    if (d2_tensor_numel(h) != 1)
        r = d2_raise(I, "ValueError",
                     "only a tensor with one element can be converted to a Python scalar (got %lld "
                     "elements)",
                     (long long)d2_tensor_numel(h));
    else if (to == D2_OBJ_FLOAT)
        r = d2_float_new(I, d2_tensor_get_f64(h, 0));
    else if (d2_dtype_is_float(h->dtype)) {
        double v = d2_tensor_get_f64(h, 0);
        r = isfinite(v) && fabs(v) < 9.2e18
                ? d2_int_new(I, (int64_t)v)
                : d2_raise(I, "ValueError", "cannot convert %g to int", v);
    } else
        r = d2_int_new(I, d2_tensor_get_i64(h, 0));
    d2_tensor_unref(h);
    return r;
}

static d2_obj *hook_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    d2_obj *other = is_tensor(a) ? b : a;
    bool ok;
    d2_pd_binop_op(op, &ok);
    if (!ok || !operand_ok(other) || (op == D2_OP_FLOOR_DIV && !is_tensor(a)) ||
        (op == D2_OP_MOD && !is_tensor(a)))
        return d2_incref(I->not_implemented);
    return d2_pd_binop(I, op, a, b);
}

static d2_obj *hook_compare(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    d2_obj *other = is_tensor(a) ? b : a;
    if (!operand_ok(other))
        return d2_incref(I->not_implemented);
    return d2_pd_compare(I, op, a, b);
}

static int hook_setitem(d2_interp *I, d2_obj *o, d2_obj *key, d2_obj *v)
{
    return d2_pd_tensor_setitem(I, o, key, v);
}

static const d2_type_hooks tensor_hooks = {
    .binop = hook_binop,
    .unaryop = d2_pd_unaryop,
    .compare = hook_compare,
    .truthy = d2_pd_truth,
    .len = tensor_len,
    .getitem = d2_pd_tensor_getitem,
    .setitem = hook_setitem,
    .get_iter = tensor_get_iter,
    .repr = d2_pd_tensor_str,
    .str = d2_pd_tensor_str,
    .getattr = tensor_getattr,
    .setattr = tensor_setattr,
    .to_number = tensor_to_number,
    .hash = NULL,
};

/* ---- Tensor methods ---- */

static d2_obj *m_numpy(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.numpy");
    if (D2_MODE(I)->tracer)
        trace_frozen(I, self, D2_FREEZE_NUMPY);
    D2_UNUSED(args);
    D2_UNUSED(kw);
    if (nargs)
        return d2_raise(I, "TypeError", "Tensor.numpy() takes no arguments");
    /* a symbolic tensor stays one, as Paddle's converted code keeps the
     * Variable: its value flows on through the Program */
    if (!TOBJ(self)->t)
        return d2_incref(self);
    d2_tensor *h = d2_pd_host(I, self, "Tensor.numpy");
    if (!h)
        return NULL;
    d2_err err = {0};
    d2_tensor *c = d2_tensor_copy_to(h, NULL, &err);
    d2_tensor_unref(h);
    if (!c)
        return d2_raise_err(I, &err);
    return d2_pd_ndarray_take(I, c);
}

static d2_obj *m_item(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.item");
    if (D2_MODE(I)->tracer)
        trace_frozen(I, self, D2_FREEZE_ITEM);
    D2_UNUSED(kw);
    if (!TOBJ(self)->t && nargs == 0)
        return d2_incref(self); /* as Tensor.numpy: the Variable itself */
    d2_tensor *h = d2_pd_host(I, self, "Tensor.item");
    if (!h)
        return NULL;
    d2_obj *r;
    int64_t n = d2_tensor_numel(h);
    if (nargs > 0) {
        int64_t idx = 0;
        if (nargs == 1 && d2_pd_get_int(I, args[0], "Tensor.item", "index", &idx) == 0) {
            if (idx < 0)
                idx += n;
            r = idx >= 0 && idx < n ? d2_pd_item(I, h, idx)
                                    : d2_raise(I, "IndexError", "Tensor.item: index out of range");
        } else {
            r = nargs == 1 ? NULL
                           : d2_raise(I, "TypeError", "Tensor.item: multi-index is not supported");
        }
    } else if (n != 1) {
        r = d2_raise(I, "ValueError",
                     "Tensor.item: only a tensor with one element can be converted to a Python "
                     "scalar (got %lld elements)",
                     (long long)n);
    } else {
        r = d2_pd_item(I, h, 0);
    }
    d2_tensor_unref(h);
    return r;
}

static d2_obj *m_tolist(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.tolist");
    if (D2_MODE(I)->tracer)
        trace_frozen(I, self, D2_FREEZE_TOLIST);
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_tensor *h = d2_pd_host(I, self, "Tensor.tolist");
    if (!h)
        return NULL;
    d2_obj *r = d2_pd_tolist(I, h);
    d2_tensor_unref(h);
    return r;
}

D2_FN(m_set_value)
{
    if (is_sym(self))
        return d2_raise(I, "TypeError",
                        "Tensor.set_value: the tensor is symbolic (inside to_static)");
    d2_tensor *v = d2_pd_from_py(I, a[0], TOBJ(self)->type.dtype, D2_F32, "Tensor.set_value");
    if (!v)
        return NULL;
    d2_shape vs;
    d2_tensor_get_shape(v, &vs);
    if (!d2_shape_equal(&vs, &TOBJ(self)->type.shape)) {
        char a1[128], a2[128];
        d2_shape_str(&vs, a1, sizeof a1);
        d2_shape_str(&TOBJ(self)->type.shape, a2, sizeof a2);
        d2_tensor_unref(v);
        return d2_raise(
            I, "ValueError",
            "Tensor.set_value: the value's shape %s does not match the tensor's shape %s", a1, a2);
    }
    v = d2_pd_to_backend(I, v);
    if (!v)
        return NULL;
    d2_tensor_unref(TOBJ(self)->t);
    TOBJ(self)->t = v;
    return d2_none(I);
}

static d2_obj *m_detach(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.detach");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    if (is_sym(self))
        return op1(I, "Tensor.detach", D2_OP_assign, self, NULL);
    d2_obj *r = d2_tensor_wrap(I, TOBJ(self)->t);
    return r;
}

static d2_obj *m_dim(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.dim");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_int_new(I, obj_type(self)->shape.ndim);
}

static d2_obj *m_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.__repr__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_pd_tensor_str(I, self);
}

static d2_obj *m_getitem(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.__getitem__");
    D2_UNUSED(kw);
    if (nargs != 1)
        return d2_raise(I, "TypeError", "Tensor.__getitem__ takes one argument");
    return d2_pd_tensor_getitem(I, self, args[0]);
}

static d2_obj *m_len(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.__len__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    int64_t n = tensor_len(I, self);
    return n < 0 ? NULL : d2_int_new(I, n);
}

/* Arithmetic dunders, for code that calls them by name (x.__add__(y)). */
#define DUNDER(name, op, rev)                                                                      \
    static d2_obj *m_##name(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)  \
    {                                                                                              \
        SELF_ARG("Tensor.__" #name "__");                                                          \
        D2_UNUSED(kw);                                                                             \
        if (nargs != 1)                                                                            \
            return d2_raise(I, "TypeError", "Tensor.__" #name "__ takes one argument");            \
        return rev ? d2_pd_binop(I, op, args[0], self) : d2_pd_binop(I, op, self, args[0]);        \
    }
DUNDER(add, D2_OP_ADD, 0)
DUNDER(radd, D2_OP_ADD, 1)
DUNDER(sub, D2_OP_SUB, 0)
DUNDER(rsub, D2_OP_SUB, 1)
DUNDER(mul, D2_OP_MULT, 0)
DUNDER(rmul, D2_OP_MULT, 1)
DUNDER(truediv, D2_OP_DIV, 0)
DUNDER(rtruediv, D2_OP_DIV, 1)
DUNDER(floordiv, D2_OP_FLOOR_DIV, 0)
DUNDER(mod, D2_OP_MOD, 0)
DUNDER(pow_, D2_OP_POW, 0)
DUNDER(rpow, D2_OP_POW, 1)
DUNDER(matmul_, D2_OP_MAT_MULT, 0)
#undef DUNDER

static d2_obj *m_neg(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.__neg__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_pd_unaryop(I, D2_UNARY_USUB, self);
}

static d2_obj *m_cpu(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.cpu");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_incref(self);
}

/* ======================================================================
 * The class
 * ====================================================================== */

/* paddle.Tensor: its hooks and the methods above; the functions that are
 * also methods (x.add, x.split, ...) are added by their own files. */
int d2_pd_tensor_class_init(d2_interp *I, pd_state *s)
{
    d2_class *tc = d2_pd_layout_class(I, D2_OBJ_TENSOR, "paddle");
    if (!tc)
        return -1;
    s->tensor_cls = tc;
    I->hooks[D2_OBJ_TENSOR] = &tensor_hooks;
    static const method_entry methods[] = {
        {"numpy", m_numpy},
        {"item", m_item},
        {"tolist", m_tolist},
        {"detach", m_detach},
        {"cpu", m_cpu},
        {"cuda", m_cpu},
        {"to", m_cpu},
        {"dim", m_dim},
        {"ndimension", m_dim},
        {"__repr__", m_repr},
        {"__str__", m_repr},
        {"__getitem__", m_getitem},
        {"__len__", m_len},
        {"__add__", m_add},
        {"__radd__", m_radd},
        {"__sub__", m_sub},
        {"__rsub__", m_rsub},
        {"__mul__", m_mul},
        {"__rmul__", m_rmul},
        {"__truediv__", m_truediv},
        {"__rtruediv__", m_rtruediv},
        {"__floordiv__", m_floordiv},
        {"__mod__", m_mod},
        {"__pow__", m_pow_},
        {"__rpow__", m_rpow},
        {"__matmul__", m_matmul_},
        {"__neg__", m_neg},
    };
    static const d2_def method_defs[] = {
        D2_DEF("set_value", "value", m_set_value, "Tensor.set_value"),
    };
    if (d2_class_add_defs(I, tc, method_defs, D2_COUNTOF(method_defs), 0) < 0 ||
        d2_pd_add_methods(I, tc, methods, D2_COUNTOF(methods)) < 0 ||
        set_attr(I, s->paddle, "Tensor", (d2_obj *)tc) < 0 ||
        add_fn(I, s->paddle, "tolist", m_tolist) < 0) /* paddle.tolist(x) */
        return -1;
    return 0;
}
