/* ndarray.c - numpy.ndarray: ops on CPU tensors, dtype rules, operators, protocol, methods. */
#include "lib/numpy/numpy_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "syntax/ast.h"

/* ======================================================================
 * Helpers: ops on CPU tensors and NumPy's dtype rules
 * ====================================================================== */

/* Runs op on CPU tensors with attributes in text form ("axis = [0], keepdim = true"). */
d2_tensor *d2np_run(d2_interp *I, const char *fname, d2_op_id op, d2_tensor **in, int n_in,
                    const char *attrs)
{
    const d2_opdef *def = d2_op_def(op);
    d2_attrs a;
    d2_err err = {0};
    if (d2_attrs_parse(def, attrs ? attrs : "", &a, &err) < 0) {
        d2_err_prefix(&err, "%s", fname);
        d2_raise_err(I, &err);
        return NULL;
    }
    d2_tensor *out = NULL;
    int rc = d2_op_run(NULL, op, &a, in, n_in, &out, 1, &err);
    d2_attrs_free(&a);
    if (rc < 0) {
        d2_err_prefix(&err, "%s", fname);
        d2_raise_err(I, &err);
        return NULL;
    }
    return out;
}

d2_tensor *d2np_cast(d2_interp *I, const char *fname, d2_tensor *t, int dt)
{
    if ((int)t->dtype == dt)
        return d2_tensor_ref(t);
    char a[48];
    snprintf(a, sizeof a, "dtype = %s", dtn(dt));
    return d2np_run(I, fname, D2_OP_cast, &t, 1, a);
}

static int rank(d2_dtype dt)
{
    switch (dt) {
    case D2_BOOL: return 0;
    case D2_I32: return 1;
    case D2_I64: return 2;
    case D2_F32: return 3;
    case D2_F64: return 4;
    default: return 5;
    }
}

/* np.result_type of two array dtypes. */
d2_dtype d2np_promote(d2_dtype a, d2_dtype b)
{
    if (a == b)
        return a;
    if (rank(a) > rank(b)) {
        d2_dtype t = a;
        a = b;
        b = t;
    }
    /* now rank(a) < rank(b) */
    if (b == D2_F32 && (a == D2_I32 || a == D2_I64))
        return D2_F64;
    return b;
}

/* Kind of an operand for value-based casting: 0 bool, 1 int, 2 float. */
static int kind_of_dt(d2_dtype dt) { return dt == D2_BOOL ? 0 : d2_dtype_is_float(dt) ? 2 : 1; }

/* Result dtype of a binary op between two operands, NumPy 1.x rules: a
 * Python scalar or 0-d array only matters by its kind against an n-d array. */
d2_dtype d2np_result_dt(d2_tensor *x, bool xs, d2_tensor *y, bool ys)
{
    bool xscalar = xs || x->ndim == 0, yscalar = ys || y->ndim == 0;
    if (xscalar == yscalar)
        return d2np_promote(x->dtype, y->dtype);
    d2_tensor *arrt = xscalar ? y : x, *sc = xscalar ? x : y;
    int ka = kind_of_dt(arrt->dtype), ks = kind_of_dt(sc->dtype);
    if (ks <= ka)
        return arrt->dtype;
    /* the scalar's kind is higher: the smallest type of that kind that can hold it */
    if (ks == 2)
        return D2_F64;
    return sc->dtype == D2_I32 ? D2_I32 : D2_I64;
}

/* ======================================================================
 * Arithmetic and comparisons
 * ====================================================================== */

int d2np_broadcast(d2_interp *I, const char *fname, d2_tensor *x, d2_tensor *y, d2_tensor **bx,
                   d2_tensor **by)
{
    /* broadcast both to a common shape with expand via `add` of zeros */
    d2_tensor *zx = d2np_run(I, fname, D2_OP_full_like, &x, 1, "value = 0");
    d2_tensor *zy = zx ? d2np_run(I, fname, D2_OP_full_like, &y, 1, "value = 0") : NULL;
    d2_tensor *in1[2] = {x, zy}, *in2[2] = {y, zx};
    *bx = zy ? d2np_run(I, fname, D2_OP_add, in1, 2, NULL) : NULL;
    *by = *bx ? d2np_run(I, fname, D2_OP_add, in2, 2, NULL) : NULL;
    if (zx)
        d2_tensor_unref(zx);
    if (zy)
        d2_tensor_unref(zy);
    if (!*by) {
        if (*bx)
            d2_tensor_unref(*bx);
        *bx = NULL;
        return -1;
    }
    return 0;
}

/* Bitwise ops on integer arrays (no kernels): host loop after broadcasting
 * through a multiply-by-one (cheap broadcast) is overkill; require equal
 * shapes or a scalar side. */
static d2_tensor *int_bitwise(d2_interp *I, int op, d2_tensor *x, d2_tensor *y)
{
    d2_tensor *bx, *by;
    if (d2np_broadcast(I, "numpy", x, y, &bx, &by) < 0)
        return NULL;
    d2_err err = {0};
    d2_tensor *r = d2_tensor_new(NULL, bx->dtype, bx->ndim, bx->shape, &err);
    if (!r) {
        d2_raise_err(I, &err);
    } else {
        int64_t n = d2_tensor_numel(r);
        for (int64_t i = 0; i < n; i++) {
            int64_t a = d2_tensor_get_i64(bx, i), b = d2_tensor_get_i64(by, i);
            int64_t v = op == D2_OP_BIT_AND ? (a & b) : op == D2_OP_BIT_OR ? (a | b) : (a ^ b);
            if (r->dtype == D2_I32)
                ((int32_t *)d2_tensor_data(r))[i] = (int32_t)v;
            else
                ((int64_t *)d2_tensor_data(r))[i] = v;
        }
    }
    d2_tensor_unref(bx);
    d2_tensor_unref(by);
    return r;
}

d2_tensor *d2np_binary_t(d2_interp *I, const char *fname, int op, d2_obj *a, d2_obj *b)
{
    bool ok;
    d2_op_id id = d2_pd_binop_op(op, &ok);
    bool as = is_pynum(a), bs = is_pynum(b);
    d2_tensor *x = arr(I, a, -1, fname);
    d2_tensor *y = x ? arr(I, b, -1, fname) : NULL;
    d2_tensor *r = NULL, *xc = NULL, *yc = NULL;
    if (!y)
        goto done;
    d2_dtype dt = d2np_result_dt(x, as, y, bs);
    if (id == D2_OP_divide && !d2_dtype_is_float(dt))
        dt = D2_F64;
    if ((op == D2_OP_BIT_AND || op == D2_OP_BIT_OR || op == D2_OP_BIT_XOR) && dt != D2_BOOL) {
        if (d2_dtype_is_float(dt)) {
            d2_raise(I, "TypeError", "ufunc 'bitwise' not supported for float arrays");
            goto done;
        }
        xc = d2np_cast(I, fname, x, dt);
        yc = xc ? d2np_cast(I, fname, y, dt) : NULL;
        r = yc ? int_bitwise(I, op, xc, yc) : NULL;
        goto done;
    }
    xc = d2np_cast(I, fname, x, dt);
    yc = xc ? d2np_cast(I, fname, y, dt) : NULL;
    if (yc) {
        d2_tensor *in[2] = {xc, yc};
        r = d2np_run(I, fname, id, in, 2, NULL);
    }
done:
    if (x)
        d2_tensor_unref(x);
    if (y)
        d2_tensor_unref(y);
    if (xc)
        d2_tensor_unref(xc);
    if (yc)
        d2_tensor_unref(yc);
    return r;
}

/* maximum/minimum/comparisons through a direct op after promotion */
d2_obj *d2np_promoted_op(d2_interp *I, const char *fname, d2_op_id op, d2_obj *a, d2_obj *b)
{
    bool as = is_pynum(a), bs = is_pynum(b);
    d2_tensor *x = arr(I, a, -1, fname);
    d2_tensor *y = x ? arr(I, b, -1, fname) : NULL;
    d2_tensor *r = NULL;
    if (y) {
        d2_dtype dt = d2np_result_dt(x, as, y, bs);
        d2_tensor *xc = d2np_cast(I, fname, x, dt);
        d2_tensor *yc = xc ? d2np_cast(I, fname, y, dt) : NULL;
        if (yc) {
            d2_tensor *in[2] = {xc, yc};
            r = d2np_run(I, fname, op, in, 2, NULL);
        }
        if (xc)
            d2_tensor_unref(xc);
        if (yc)
            d2_tensor_unref(yc);
    }
    if (x)
        d2_tensor_unref(x);
    if (y)
        d2_tensor_unref(y);
    return wrap(I, r);
}

static bool np_operand(d2_obj *o)
{
    return is_nd(o) || is_pynum(o) || o->kind == D2_OBJ_LIST || o->kind == D2_OBJ_TUPLE;
}

d2_obj *d2_np_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if ((a && a->kind == D2_OBJ_TENSOR) || (b && b->kind == D2_OBJ_TENSOR))
        return d2_pd_binop(I, op, a, b);
    bool ok;
    d2_pd_binop_op(op, &ok);
    if (!ok || !np_operand(a) || !np_operand(b))
        return d2_raise(I, "TypeError", "unsupported operand type(s) for %s: '%s' and '%s'",
                        d2_ast_operator_symbol(op), d2_type_name(a), d2_type_name(b));
    char fname[48];
    snprintf(fname, sizeof fname, "numpy operator %s", d2_ast_operator_symbol(op));
    return wrap(I, d2np_binary_t(I, fname, op, a, b));
}

static d2_obj *np_hook_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    d2_obj *other = is_nd(a) ? b : a;
    bool ok;
    d2_pd_binop_op(op, &ok);
    if (!ok || !np_operand(other))
        return d2_incref(I->not_implemented);
    return d2_np_binop(I, op, a, b);
}

d2_obj *d2_np_compare(d2_interp *I, int cmpop, d2_obj *a, d2_obj *b)
{
    d2_op_id id;
    switch (cmpop) {
    case D2_CMP_EQ: id = D2_OP_equal; break;
    case D2_CMP_NOT_EQ: id = D2_OP_not_equal; break;
    case D2_CMP_LT: id = D2_OP_less_than; break;
    case D2_CMP_LT_E: id = D2_OP_less_equal; break;
    case D2_CMP_GT: id = D2_OP_greater_than; break;
    case D2_CMP_GT_E: id = D2_OP_greater_equal; break;
    default: return d2_raise(I, "TypeError", "unsupported comparison for ndarray");
    }
    if ((a && a->kind == D2_OBJ_TENSOR) || (b && b->kind == D2_OBJ_TENSOR))
        return d2_pd_compare(I, cmpop, a, b);
    if (!np_operand(a) || !np_operand(b)) {
        if (id == D2_OP_equal || id == D2_OP_not_equal)
            return d2_bool(I, (id == D2_OP_not_equal) ^ (a == b));
        return d2_raise(I, "TypeError", "'<' not supported between '%s' and '%s'", d2_type_name(a),
                        d2_type_name(b));
    }
    return d2np_promoted_op(I, "numpy comparison", id, a, b);
}

static d2_obj *np_hook_compare(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    d2_obj *other = is_nd(a) ? b : a;
    if (!np_operand(other) && other->kind != D2_OBJ_TENSOR)
        return d2_incref(I->not_implemented);
    return d2_np_compare(I, op, a, b);
}

d2_obj *d2_np_unaryop(d2_interp *I, int op, d2_obj *a)
{
    d2_tensor *t = NDA(a)->t;
    switch (op) {
    case D2_UNARY_USUB:
        if (t->dtype == D2_BOOL)
            return d2_raise(I, "TypeError",
                            "The numpy boolean negative, the `-` operator, is not supported");
        return wrap(I, d2np_run(I, "numpy operator -", D2_OP_neg, &t, 1, NULL));
    case D2_UNARY_UADD: return d2_incref(a);
    case D2_UNARY_INVERT:
        if (t->dtype == D2_BOOL)
            return wrap(I, d2np_run(I, "numpy operator ~", D2_OP_logical_not, &t, 1, NULL));
        if (d2_dtype_is_int(t->dtype)) {
            d2_err err = {0};
            d2_tensor *c = d2_tensor_contiguous(t, &err);
            d2_tensor *r = c ? d2_tensor_new(NULL, c->dtype, c->ndim, c->shape, &err) : NULL;
            if (!r) {
                if (c)
                    d2_tensor_unref(c);
                return d2_raise_err(I, &err);
            }
            int64_t n = d2_tensor_numel(r);
            for (int64_t i = 0; i < n; i++) {
                int64_t v = ~d2_tensor_get_i64(c, i);
                if (r->dtype == D2_I32)
                    ((int32_t *)d2_tensor_data(r))[i] = (int32_t)v;
                else
                    ((int64_t *)d2_tensor_data(r))[i] = v;
            }
            d2_tensor_unref(c);
            return wrap(I, r);
        }
        return d2_raise(I, "TypeError", "ufunc 'invert' not supported for float arrays");
    default: return d2_raise(I, "TypeError", "bad operand type for unary operator: 'ndarray'");
    }
}

/* ======================================================================
 * ndarray protocol
 * ====================================================================== */

/* A tuple of n NULL items to fill with new references (n recorded). */
static d2_obj *tuple_new(d2_interp *I, size_t n)
{
    d2_obj *t = d2_tuple_new(I, n);
    if (t && n)
        D2_AS(d2_tuple, t)->n = n;
    return t;
}

static d2_obj *shape_tuple(d2_interp *I, const d2_tensor *t)
{
    d2_obj *tu = tuple_new(I, (size_t)t->ndim);
    for (int i = 0; tu && i < t->ndim; i++) {
        D2_AS(d2_tuple, tu)->items[i] = d2_int_new(I, t->shape[i]);
        if (!D2_AS(d2_tuple, tu)->items[i])
            d2_setref(&tu, NULL);
    }
    return tu;
}

static d2_obj *nd_getattr(d2_interp *I, d2_obj *o, const char *name)
{
    d2_tensor *t = NDA(o)->t;
    if (strcmp(name, "shape") == 0)
        return shape_tuple(I, t);
    if (strcmp(name, "dtype") == 0) {
        d2_obj *d = d2_pd_dtype_obj(I, t->dtype, true);
        return d ? d2_incref(d) : NULL;
    }
    if (strcmp(name, "ndim") == 0)
        return d2_int_new(I, t->ndim);
    if (strcmp(name, "size") == 0)
        return d2_int_new(I, d2_tensor_numel(t));
    if (strcmp(name, "itemsize") == 0)
        return d2_int_new(I, (int64_t)d2_dtype_size(t->dtype));
    if (strcmp(name, "nbytes") == 0)
        return d2_int_new(I, (int64_t)d2_dtype_size(t->dtype) * d2_tensor_numel(t));
    if (strcmp(name, "T") == 0)
        return d2np_transpose_t(I, t, NULL, 0);
    return NULL;
}

static int nd_truthy(d2_interp *I, d2_obj *o)
{
    d2_tensor *t = NDA(o)->t;
    if (d2_tensor_numel(t) != 1) {
        d2_raise(I, "ValueError",
                 "The truth value of an array with more than one element is ambiguous. Use a.any() "
                 "or a.all()");
        return -1;
    }
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(t, &err);
    if (!c) {
        d2_raise_err(I, &err);
        return -1;
    }
    int v = d2_tensor_get_f64(c, 0) != 0;
    d2_tensor_unref(c);
    return v;
}

static int64_t nd_len(d2_interp *I, d2_obj *o)
{
    d2_tensor *t = NDA(o)->t;
    if (t->ndim == 0) {
        d2_raise(I, "TypeError", "len() of unsized object");
        return -1;
    }
    return t->shape[0];
}

/* Host boolean mask selection: x[mask] with mask of x's shape -> 1-D. */
static d2_tensor *mask_select(d2_interp *I, d2_tensor *x, d2_tensor *m)
{
    d2_err err = {0};
    d2_tensor *xc = d2_tensor_contiguous(x, &err);
    d2_tensor *mc = xc ? d2_tensor_contiguous(m, &err) : NULL;
    d2_tensor *r = NULL;
    if (mc) {
        int64_t n = d2_tensor_numel(mc), k = 0;
        for (int64_t i = 0; i < n; i++)
            k += d2_tensor_get_i64(mc, i) != 0;
        r = d2_tensor_new(NULL, xc->dtype, 1, &k, &err);
        if (r) {
            size_t es = d2_dtype_size(xc->dtype);
            char *dst = d2_tensor_data(r);
            const char *src = d2_tensor_data(xc);
            for (int64_t i = 0, j = 0; i < n; i++)
                if (d2_tensor_get_i64(mc, i))
                    memcpy(dst + es * (size_t)j++, src + es * (size_t)i, es);
        }
    }
    if (!r)
        d2_raise_err(I, &err);
    if (xc)
        d2_tensor_unref(xc);
    if (mc)
        d2_tensor_unref(mc);
    return r;
}

bool d2np_same_shape(const d2_tensor *a, const d2_tensor *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

static d2_obj *nd_getitem(d2_interp *I, d2_obj *o, d2_obj *key)
{
    d2_tensor *t = NDA(o)->t;
    if (is_nd(key) && NDA(key)->t->dtype == D2_BOOL) {
        if (!d2np_same_shape(NDA(key)->t, t))
            return d2_raise(I, "IndexError",
                            "boolean index shape does not match the array's shape");
        return wrap(I, mask_select(I, t, NDA(key)->t));
    }
    d2_tensor *r;
    if (d2_pd_index_host(I, t, key, &r) < 0)
        return NULL;
    return wrap(I, r);
}

static int nd_setitem(d2_interp *I, d2_obj *o, d2_obj *key, d2_obj *v)
{
    d2_tensor **tp = &NDA(o)->t;
    if (is_nd(key) && NDA(key)->t->dtype == D2_BOOL) {
        d2_tensor *m = NDA(key)->t;
        if (!d2np_same_shape(m, *tp)) {
            d2_raise(I, "IndexError", "boolean index shape does not match the array's shape");
            return -1;
        }
        d2_err err = {0};
        d2_tensor *w = d2_tensor_copy_to(*tp, NULL, &err);
        d2_tensor *mc = w ? d2_tensor_contiguous(m, &err) : NULL;
        if (!mc) {
            if (w)
                d2_tensor_unref(w);
            d2_raise_err(I, &err);
            return -1;
        }
        d2_tensor *val = arr(I, v, w->dtype, "ndarray.__setitem__");
        int rc = -1;
        if (val) {
            int64_t n = d2_tensor_numel(mc), nv = d2_tensor_numel(val), k = 0, cnt = 0;
            for (int64_t i = 0; i < n; i++)
                cnt += d2_tensor_get_i64(mc, i) != 0;
            if (nv != 1 && nv != cnt) {
                d2_raise(I, "ValueError",
                         "NumPy boolean array indexing assignment cannot assign %lld input values "
                         "to the %lld output values where the mask is true",
                         (long long)nv, (long long)cnt);
            } else {
                size_t es = d2_dtype_size(w->dtype);
                char *dst = d2_tensor_data(w);
                const char *src = d2_tensor_data(val);
                for (int64_t i = 0; i < n; i++)
                    if (d2_tensor_get_i64(mc, i)) {
                        memcpy(dst + es * (size_t)i, src + es * (size_t)(nv == 1 ? 0 : k), es);
                        k++;
                    }
                d2_tensor_unref(*tp);
                *tp = d2_tensor_ref(w);
                rc = 0;
            }
            d2_tensor_unref(val);
        }
        d2_tensor_unref(w);
        d2_tensor_unref(mc);
        return rc;
    }
    return d2_pd_setitem_host(I, tp, key, v);
}

static d2_obj *nd_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    *done = false;
    if (it->pos >= it->end) {
        *done = true;
        return NULL;
    }
    d2_obj *k = d2_int_new(I, it->pos++);
    if (!k)
        return NULL;
    d2_obj *r = nd_getitem(I, it->src, k);
    d2_decref(k);
    return r;
}

static d2_obj *nd_get_iter(d2_interp *I, d2_obj *o)
{
    int64_t n = nd_len(I, o);
    if (n < 0) {
        d2_exc_clear(I);
        return d2_raise(I, "TypeError", "iteration over a 0-d array");
    }
    d2_obj *io = d2_obj_alloc(I, D2_OBJ_ITERATOR, NULL, sizeof(d2_iter));
    if (!io)
        return NULL;
    d2_iter *it = D2_AS(d2_iter, io);
    it->next = nd_iter_next;
    it->src = d2_incref(o);
    it->end = n;
    it->step = 1;
    return io;
}

static d2_obj *nd_format(d2_interp *I, d2_obj *o, bool repr)
{
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(NDA(o)->t, &err);
    if (!c)
        return d2_raise_err(I, &err);
    d2_obj *r = d2_np_format(I, c, repr);
    d2_tensor_unref(c);
    return r;
}

static d2_obj *nd_repr(d2_interp *I, d2_obj *o) { return nd_format(I, o, true); }

static d2_obj *nd_str(d2_interp *I, d2_obj *o) { return nd_format(I, o, false); }

static d2_obj *nd_to_number(d2_interp *I, d2_obj *o, d2_obj_kind to)
{
    d2_tensor *t = NDA(o)->t;
    if (d2_tensor_numel(t) != 1)
        return d2_raise(I, "ValueError", "only length-1 arrays can be converted to Python scalars");
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(t, &err);
    if (!c)
        return d2_raise_err(I, &err);
    d2_obj *r;
    if (to == D2_OBJ_FLOAT)
        r = d2_float_new(I, d2_tensor_get_f64(c, 0));
    else if (d2_dtype_is_float(c->dtype)) {
        double v = d2_tensor_get_f64(c, 0);
        r = isfinite(v) ? d2_int_new(I, (int64_t)v)
                        : d2_raise(I, "ValueError", "cannot convert float %g to integer", v);
    } else
        r = d2_int_new(I, d2_tensor_get_i64(c, 0));
    d2_tensor_unref(c);
    return r;
}

static int nd_hash(d2_interp *I, d2_obj *o, uint64_t *h)
{
    d2_tensor *t = NDA(o)->t;
    if (t->ndim != 0) {
        d2_raise(I, "TypeError", "unhashable type: 'numpy.ndarray'");
        return -1;
    }
    d2_obj *v = nd_to_number(I, o, d2_dtype_is_float(t->dtype) ? D2_OBJ_FLOAT : D2_OBJ_INT);
    if (!v)
        return -1;
    int rc = d2_hash(I, v, h);
    d2_decref(v);
    return rc;
}

static const d2_type_hooks ndarray_hooks = {
    .binop = np_hook_binop,
    .unaryop = d2_np_unaryop,
    .compare = np_hook_compare,
    .truthy = nd_truthy,
    .len = nd_len,
    .getitem = nd_getitem,
    .setitem = nd_setitem,
    .get_iter = nd_get_iter,
    .repr = nd_repr,
    .str = nd_str,
    .getattr = nd_getattr,
    .to_number = nd_to_number,
    .hash = nd_hash,
};

/* ======================================================================
 * Shape manipulation
 * ====================================================================== */

d2_obj *d2np_transpose_t(d2_interp *I, d2_tensor *t, const int64_t *perm, int n)
{
    int64_t p[D2_MAX_DIMS];
    if (n == 0) {
        for (int i = 0; i < t->ndim; i++)
            p[i] = t->ndim - 1 - i;
        n = t->ndim;
        perm = p;
    }
    char at[200];
    size_t l = (size_t)snprintf(at, sizeof at, "perm = [");
    for (int i = 0; i < n; i++)
        l += (size_t)snprintf(at + l, sizeof at - l, "%s%lld", i ? ", " : "", (long long)perm[i]);
    snprintf(at + l, sizeof at - l, "]");
    return wrap(I, d2np_run(I, "numpy.transpose", D2_OP_transpose, &t, 1, at));
}

/* Reads a shape given as one int/tuple/list argument or as several ints. */
static int shape_args(d2_interp *I, d2_obj **args, size_t nargs, const char *fname, int64_t *dims,
                      int *n)
{
    if (nargs == 1)
        return d2_pd_ints(I, args[0], fname, "shape", dims, n, D2_MAX_DIMS);
    if (nargs > D2_MAX_DIMS) {
        d2_raise(I, "ValueError", "%s: too many dimensions", fname);
        return -1;
    }
    for (size_t i = 0; i < nargs; i++)
        if (d2_to_int64(I, args[i], "shape", &dims[i]) < 0)
            return -1;
    *n = (int)nargs;
    return 0;
}

d2_tensor *d2np_reshape_t(d2_interp *I, const char *fname, d2_tensor *t, const int64_t *dims, int n)
{
    int64_t known = 1, total = d2_tensor_numel(t);
    int neg = -1;
    int64_t d[D2_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        d[i] = dims[i];
        if (dims[i] == -1) {
            if (neg >= 0) {
                d2_raise(I, "ValueError", "%s: can only specify one unknown dimension", fname);
                return NULL;
            }
            neg = i;
        } else if (dims[i] < 0) {
            d2_raise(I, "ValueError", "%s: negative dimensions not allowed", fname);
            return NULL;
        } else {
            known *= dims[i];
        }
    }
    if (neg >= 0 && known > 0 && total % known == 0)
        d[neg] = total / known;
    int64_t prod = 1;
    for (int i = 0; i < n; i++)
        prod *= d[i];
    if (prod != total) {
        d2_buf b;
        d2_buf_init(&b);
        d2_buf_puts(&b, "(");
        for (int i = 0; i < n; i++)
            d2_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)dims[i]);
        d2_buf_puts(&b, n == 1 ? ",)" : ")");
        d2_raise(I, "ValueError", "cannot reshape array of size %lld into shape %s",
                 (long long)total, b.data ? b.data : "");
        d2_buf_free(&b);
        return NULL;
    }
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(t, &err);
    d2_tensor *r = c ? d2_tensor_copy_to(c, NULL, &err) : NULL;
    d2_tensor *v = r ? d2_tensor_reshape_view(r, n, d, &err) : NULL;
    if (c)
        d2_tensor_unref(c);
    if (r)
        d2_tensor_unref(r);
    if (!v)
        d2_raise_err(I, &err);
    return v;
}

/* ======================================================================
 * ndarray methods
 * ====================================================================== */

/* Methods that take a shape or axes as several ints or as one sequence (and
 * the ones that take no argument) read their arguments from *args and
 * ignore keywords, as they always have. */

D2_FN(m_reshape) /* a[0] *shape, a[1] **kwargs */
{
    d2_tuple *args = D2_AS(d2_tuple, a[0]);
    int64_t dims[D2_MAX_DIMS];
    int n;
    if (shape_args(I, args->items, args->n, "ndarray.reshape", dims, &n) < 0)
        return NULL;
    return wrap(I, d2np_reshape_t(I, "ndarray.reshape", NDA(self)->t, dims, n));
}

D2_FN(m_flatten) /* a[0] *args, a[1] **kwargs: ignored */
{
    int64_t n = -1;
    return wrap(I, d2np_reshape_t(I, "ndarray.flatten", NDA(self)->t, &n, 1));
}

D2_FN(m_transpose) /* a[0] *axes, a[1] **kwargs */
{
    d2_obj **args = D2_AS(d2_tuple, a[0])->items;
    size_t nargs = D2_AS(d2_tuple, a[0])->n;
    int64_t p[D2_MAX_DIMS];
    int n = 0;
    if (nargs == 1 && is_none(I, args[0]))
        nargs = 0;
    if (nargs > 0 && shape_args(I, args, nargs, "ndarray.transpose", p, &n) < 0)
        return NULL;
    return d2np_transpose_t(I, NDA(self)->t, p, n);
}

D2_FN(m_astype) /* a[0] dtype, a[1] order, a[2] casting, a[3] subok, a[4] copy */
{
    int dt;
    if (dt_arg(I, a[0], "ndarray.astype", &dt) < 0)
        return NULL;
    if (dt < 0)
        dt = D2_F64;
    d2_tensor *t = NDA(self)->t;
    if ((int)t->dtype == dt) {
        d2_err err = {0};
        d2_tensor *c = d2_tensor_copy_to(t, NULL, &err);
        return c ? wrap(I, c) : d2_raise_err(I, &err);
    }
    return wrap(I, d2np_cast(I, "ndarray.astype", t, dt));
}

D2_FN(m_tolist) /* a[0] *args, a[1] **kwargs: ignored */
{
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(NDA(self)->t, &err);
    if (!c)
        return d2_raise_err(I, &err);
    d2_obj *r = d2_pd_tolist(I, c);
    d2_tensor_unref(c);
    return r;
}

D2_FN(m_copy) /* a[0] *args, a[1] **kwargs: ignored */
{
    d2_err err = {0};
    d2_tensor *c = d2_tensor_copy_to(NDA(self)->t, NULL, &err);
    return c ? wrap(I, c) : d2_raise_err(I, &err);
}

D2_FN(m_item) /* a[0] *args, a[1] **kwargs */
{
    d2_obj **args = D2_AS(d2_tuple, a[0])->items;
    size_t nargs = D2_AS(d2_tuple, a[0])->n;
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(NDA(self)->t, &err);
    if (!c)
        return d2_raise_err(I, &err);
    int64_t n = d2_tensor_numel(c), i = 0;
    d2_obj *r = NULL;
    if (nargs == 0 && n != 1) {
        r = d2_raise(I, "ValueError", "can only convert an array of size 1 to a Python scalar");
    } else if (nargs == 1 && d2_to_int64(I, args[0], "index", &i) < 0) {
        r = NULL;
    } else if (nargs > 1) {
        r = d2_raise(I, "TypeError", "ndarray.item: multi-index is not supported");
    } else if (i < -n || i >= n) {
        r = d2_raise(I, "IndexError", "index %lld is out of bounds for size %lld", (long long)i,
                     (long long)n);
    } else {
        r = d2_pd_item(I, c, i < 0 ? i + n : i);
    }
    d2_tensor_unref(c);
    return r;
}

D2_FN(m_fill) /* a[0] value */
{
    double v;
    if (d2_to_double(I, a[0], "value", &v) < 0)
        return NULL;
    d2_tensor *t = NDA(self)->t;
    d2_tensor *f = d2np_filled(I, "ndarray.fill", t->shape, t->ndim, t->dtype, v);
    if (!f)
        return NULL;
    d2_tensor_unref(NDA(self)->t);
    NDA(self)->t = f;
    return d2_none(I);
}

/* The methods of ndarray that are not numpy functions (those are in
 * functions.c); self is the array. */
static const d2_def ND_METHOD_DEFS[] = {
    D2_DEF("astype", "dtype, order='K', casting='unsafe', subok=True, copy=True", m_astype,
           "ndarray.astype"),
    D2_DEF("reshape", "*shape, **kwargs", m_reshape, "ndarray.reshape"),
    D2_DEF("flatten", "*args, **kwargs", m_flatten, "ndarray.flatten"),
    D2_DEF("tolist", "*args, **kwargs", m_tolist, "ndarray.tolist"),
    D2_DEF("transpose", "*axes, **kwargs", m_transpose, "ndarray.transpose"),
    D2_DEF("copy", "*args, **kwargs", m_copy, "ndarray.copy"),
    D2_DEF("item", "*args, **kwargs", m_item, "ndarray.item"),
    D2_DEF("fill", "value", m_fill, "ndarray.fill"),
};

d2_class *d2np_ndarray_init(d2_interp *I, d2_module *np)
{
    d2_class *nc = d2_pd_layout_class(I, D2_OBJ_NDARRAY, "numpy");
    if (!nc || d2_dict_set_str(I, np->dict, "ndarray", (d2_obj *)nc) < 0)
        return NULL;
    I->hooks[D2_OBJ_NDARRAY] = &ndarray_hooks;
    if (d2_class_add_defs(I, nc, ND_METHOD_DEFS, D2_COUNTOF(ND_METHOD_DEFS), 0) < 0)
        return NULL;
    return nc;
}
