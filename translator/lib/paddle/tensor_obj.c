/* tensor_obj.c - tensor, ndarray and dtype objects, Python values <-> tensors, the module state. */
#include "lib/paddle/paddle_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "syntax/ast.h"

/* ======================================================================
 * State
 * ====================================================================== */

/* Teardown frees every object without regard to references, so the tape
 * must be gone before: each tensor is pinned (the teardown frees it anyway)
 * and drops its node, whose references to other tensors are then harmless. */
static void state_fini(d2_interp *I, void *p)
{
    d2_obj *head = &I->gc_head;
    for (d2_obj *o = head->gc_next; o != head; o = o->gc_next)
        if (o->kind == D2_OBJ_TENSOR)
            o->rc++;
    for (d2_obj *o = head->gc_next; o != head; o = o->gc_next)
        if (o->kind == D2_OBJ_TENSOR)
            d2_pd_grad_clear(TOBJ(o));
    d2_free(p);
}

pd_state *d2_pd_state(d2_interp *I)
{
    pd_state *s = I->ext[D2_EXT_PADDLE];
    if (s)
        return s;
    s = d2_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    I->ext[D2_EXT_PADDLE] = s;
    I->ext_fini[D2_EXT_PADDLE] = state_fini;
    d2_mt_seed(&s->rng, 0);
    d2_mt64_seed(&s->prng, 0);
    return s;
}

/* ======================================================================
 * Small helpers
 * ====================================================================== */

void d2_pd_type_of_tensor(const d2_tensor *t, d2_type *ty)
{
    memset(ty, 0, sizeof *ty);
    ty->kind = t->kind;
    ty->dtype = t->dtype;
    ty->shape.ndim = t->ndim;
    for (int i = 0; i < t->ndim; i++)
        ty->shape.dims[i] = t->shape[i];
}

static bool on_cpu(const d2_tensor *t)
{
    return !t->storage || t->storage->backend == NULL || t->storage->backend == d2_cpu_backend() ||
           t->storage->backend->kind == D2_BACKEND_CPU;
}

/* Raises err as a Python exception; when fname is given the message is
 * "fname: msg" with a leading "<opname>: " dropped when fname ends in it. */
d2_obj *d2_pd_raise_err_named(d2_interp *I, const char *fname, const d2_op_id *op, d2_err *err)
{
    if (err->code == D2_OK)
        err->code = D2_ERR_INVALID;
    if (fname) {
        char msg[D2_ERR_MSG_MAX];
        const char *m = err->msg;
        if (op) {
            const char *on = d2_op_def(*op)->name;
            size_t ol = strlen(on), fl = strlen(fname);
            if (strncmp(m, on, ol) == 0 && m[ol] == ':' && fl >= ol &&
                strcmp(fname + fl - ol, on) == 0 && (fl == ol || fname[fl - ol - 1] == '.'))
                m += ol + 2;
        }
        snprintf(msg, sizeof msg, "%.100s: %.900s", fname, m);
        memcpy(err->msg, msg, sizeof msg);
    }
    return d2_raise_err(I, err);
}

int d2_pd_add_methods(d2_interp *I, d2_class *cls, const method_entry *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (d2_class_add_method(I, cls, m[i].name, m[i].fn) < 0)
            return -1;
    return 0;
}

int d2_pd_add_tensor_fns(d2_interp *I, pd_state *s, const d2_def *defs, size_t n)
{
    if (d2_module_add_defs(I, s->paddle, defs, n) < 0 ||
        d2_class_add_defs(I, s->tensor_cls, defs, n, D2_DEF_SELF) < 0)
        return -1;
    return 0;
}

d2_class *d2_pd_new_class(d2_interp *I, d2_module *m, const char *name, d2_class *base,
                          const method_entry *methods, size_t n)
{
    d2_class *c = d2_class_new_builtin(I, name, base, D2_OBJ_INSTANCE, m);
    if (!c || d2_pd_add_methods(I, c, methods, n) < 0)
        return NULL;
    if (m && d2_dict_set_str(I, m->dict, name, (d2_obj *)c) < 0)
        return NULL;
    return c;
}

/* ======================================================================
 * Objects
 * ====================================================================== */

d2_class *d2_pd_layout_class(d2_interp *I, d2_obj_kind kind, const char *module)
{
    if (I->types[kind])
        return I->types[kind];
    static const char *names[] = {
#define X(e, n) n,
        D2_OBJ_KINDS(X)
#undef X
    };
    d2_module *m = NULL;
    if (module) {
        d2_obj *mo = d2_dict_get_str(I, I->modules, module);
        if (mo && mo->kind == D2_OBJ_MODULE)
            m = D2_AS(d2_module, mo);
    }
    I->types[kind] = d2_class_new_builtin(I, names[kind], NULL, kind, m);
    return I->types[kind];
}

static d2_obj *tensor_obj_alloc(d2_interp *I)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_TENSOR, d2_pd_layout_class(I, D2_OBJ_TENSOR, "paddle"),
                             sizeof(d2_tensor_obj));
    if (!o)
        return NULL;
    d2_tensor_obj *t = TOBJ(o);
    t->var = -1;
    t->trace_var = -1;
    t->stop_gradient = true;
    return o;
}

d2_obj *d2_tensor_wrap(d2_interp *I, d2_tensor *t)
{
    d2_obj *o = tensor_obj_alloc(I);
    if (!o)
        return NULL;
    TOBJ(o)->t = d2_tensor_ref(t);
    d2_pd_type_of_tensor(t, &TOBJ(o)->type);
    return o;
}

d2_obj *d2_pd_symbolic(d2_interp *I, d2_builder *b, int var)
{
    if (!b || var < 0 || var >= b->prog->n_vars)
        return d2_raise(I, "RuntimeError", "internal: symbolic tensor for an invalid variable");
    d2_obj *o = tensor_obj_alloc(I);
    if (!o)
        return NULL;
    d2_tensor_obj *t = TOBJ(o);
    t->builder = b;
    t->var = var;
    t->type = b->prog->vars[var].type;
    t->sym_next = b->syms;
    if (b->syms)
        b->syms->sym_prev = t;
    b->syms = t;
    return o;
}

void d2_pd_sym_unlink(d2_tensor_obj *t)
{
    if (!t->builder)
        return;
    if (t->sym_prev)
        t->sym_prev->sym_next = t->sym_next;
    else
        t->builder->syms = t->sym_next;
    if (t->sym_next)
        t->sym_next->sym_prev = t->sym_prev;
    t->sym_prev = t->sym_next = NULL;
    t->builder = NULL;
}

void d2_pd_retire_builder(d2_builder *b)
{
    while (b->syms) {
        d2_tensor_obj *t = b->syms;
        d2_pd_sym_unlink(t);
        t->var = -1;
    }
}

d2_obj *d2_ndarray_wrap(d2_interp *I, d2_tensor *t)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_NDARRAY, d2_pd_layout_class(I, D2_OBJ_NDARRAY, "numpy"),
                             sizeof(d2_ndarray));
    if (!o)
        return NULL;
    NDA(o)->t = d2_tensor_ref(t);
    return o;
}

/* Wraps a fresh tensor, taking over the caller's reference. */
static d2_obj *wrap_take(d2_interp *I, d2_tensor *t)
{
    if (!t)
        return NULL;
    d2_obj *o = d2_tensor_wrap(I, t);
    d2_tensor_unref(t);
    return o;
}

d2_obj *d2_pd_ndarray_take(d2_interp *I, d2_tensor *t)
{
    if (!t)
        return NULL;
    d2_obj *o = d2_ndarray_wrap(I, t);
    d2_tensor_unref(t);
    return o;
}

/* Moves a CPU tensor to the eager backend (takes the caller's reference). */
d2_tensor *d2_pd_to_backend(d2_interp *I, d2_tensor *t)
{
    d2_backend *be = eager_backend(I);
    if (!t || be->kind == D2_BACKEND_CPU)
        return t;
    d2_err err;
    D2_ERR_FRESH(err);
    d2_tensor *c = d2_tensor_copy_to(t, be, &err);
    d2_tensor_unref(t);
    if (!c)
        d2_raise_err(I, &err);
    return c;
}

/* Wraps a fresh CPU tensor as a paddle tensor on the eager backend. */
d2_obj *d2_pd_wrap_host(d2_interp *I, d2_tensor *t) { return wrap_take(I, d2_pd_to_backend(I, t)); }

d2_tensor *d2_pd_host(d2_interp *I, d2_obj *o, const char *fname)
{
    d2_tensor *t = NULL;
    if (is_tensor(o)) {
        t = TOBJ(o)->t;
        if (!t) {
            d2_raise(I, "ValueError",
                     "%s: the tensor is symbolic (static mode inside to_static) and has no value "
                     "yet",
                     fname);
            return NULL;
        }
    } else if (is_ndarray(o)) {
        t = NDA(o)->t;
    } else {
        d2_raise(I, "TypeError", "%s: expected a Tensor or ndarray, got %s", fname,
                 d2_type_name(o));
        return NULL;
    }
    d2_err err;
    D2_ERR_FRESH(err);
    d2_tensor *r;
    if (on_cpu(t))
        r = d2_tensor_contiguous(t, &err);
    else
        r = d2_tensor_copy_to(t, NULL, &err);
    if (!r)
        d2_raise_err(I, &err);
    return r;
}

/* ======================================================================
 * dtype objects
 * ====================================================================== */

static d2_obj *dtype_new(d2_interp *I, d2_dtype dt, bool np_style)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_DTYPE, d2_pd_layout_class(I, D2_OBJ_DTYPE, NULL),
                             sizeof(d2_dtype_obj));
    if (!o)
        return NULL;
    D2_AS(d2_dtype_obj, o)->dt = dt;
    D2_AS(d2_dtype_obj, o)->np_style = np_style;
    return o;
}

d2_obj *d2_pd_dtype_obj(d2_interp *I, d2_dtype dt, bool np_style)
{
    pd_state *s = ST(I);
    if (!s || (unsigned)dt >= D2_NUM_DTYPES)
        return NULL;
    d2_obj **slot = &s->dtypes[np_style][dt];
    if (!*slot)
        *slot = dtype_new(I, dt, np_style); /* kept for the interpreter's lifetime */
    return *slot;
}

d2_obj *d2_pd_dtype_obj_new(d2_interp *I, d2_dtype dt, bool np_style)
{
    d2_obj *o = d2_pd_dtype_obj(I, dt, np_style);
    return o ? d2_incref(o) : NULL;
}

int d2_pd_parse_dtype(d2_interp *I, d2_obj *o, const char *fname, bool np_style, int *dt)
{
    *dt = -1;
    if (is_none(I, o))
        return 0;
    if (o->kind == D2_OBJ_DTYPE) {
        *dt = (int)D2_AS(d2_dtype_obj, o)->dt;
        return 0;
    }
    if (o->kind == D2_OBJ_STR) {
        const char *s = D2_AS(d2_str, o)->s;
        int v = -1;
        if (strcmp(s, "float") == 0 || strcmp(s, "double") == 0)
            v = np_style || strcmp(s, "double") == 0 ? D2_F64 : D2_F32;
        else if (strcmp(s, "int") == 0 || strcmp(s, "long") == 0)
            v = D2_I64;
        else if (strcmp(s, "float32") == 0 || strcmp(s, "f4") == 0 || strcmp(s, "<f4") == 0 ||
                 strcmp(s, "single") == 0)
            v = D2_F32;
        else if (strcmp(s, "float64") == 0 || strcmp(s, "f8") == 0 || strcmp(s, "<f8") == 0)
            v = D2_F64;
        else if (strcmp(s, "int32") == 0 || strcmp(s, "i4") == 0 || strcmp(s, "<i4") == 0 ||
                 strcmp(s, "intc") == 0)
            v = D2_I32;
        else if (strcmp(s, "int64") == 0 || strcmp(s, "i8") == 0 || strcmp(s, "<i8") == 0)
            v = D2_I64;
        else if (strcmp(s, "bool") == 0 || strcmp(s, "bool_") == 0 || strcmp(s, "?") == 0)
            v = D2_BOOL;
        else if (strcmp(s, "float16") == 0 || strcmp(s, "f2") == 0 || strcmp(s, "<f2") == 0 ||
                 strcmp(s, "half") == 0)
            v = D2_F16;
        else if (strcmp(s, "bfloat16") == 0)
            v = D2_BF16;
        else if (strcmp(s, "int8") == 0 || strcmp(s, "i1") == 0 || strcmp(s, "|i1") == 0)
            v = D2_I8;
        else if (strcmp(s, "int16") == 0 || strcmp(s, "i2") == 0 || strcmp(s, "<i2") == 0)
            v = D2_I16;
        else if (strcmp(s, "uint8") == 0 || strcmp(s, "u1") == 0 || strcmp(s, "|u1") == 0)
            v = D2_U8;
        if (v < 0) {
            d2_raise(I, "TypeError", "%s: unknown dtype '%s'", fname, s);
            return -1;
        }
        *dt = v;
        return 0;
    }
    if (o->kind == D2_OBJ_CLASS) {
        d2_class *c = D2_AS(d2_class, o);
        if (c == I->types[D2_OBJ_FLOAT]) {
            *dt = np_style ? D2_F64 : D2_F32;
            return 0;
        }
        if (c == I->types[D2_OBJ_INT]) {
            *dt = D2_I64;
            return 0;
        }
        if (c == I->types[D2_OBJ_BOOL]) {
            *dt = D2_BOOL;
            return 0;
        }
    }
    d2_raise(I, "TypeError", "%s: dtype must be a dtype or a string such as 'float32', got %s",
             fname, d2_type_name(o));
    return -1;
}

/* ======================================================================
 * Python values <-> tensors
 * ====================================================================== */

typedef struct leaf {
    int kind; /* 0 bool, 1 int, 2 float */
    int64_t i;
    double f;
} leaf;

typedef struct collect {
    leaf *v;
    int64_t n, cap;
    int ndim;
    int64_t shape[D2_MAX_DIMS];
    bool shape_known;
    int maxkind;
    int tensor_dt; /* dtype of tensor/ndarray leaves (first one), -1 */
} collect;

static int push_leaf(d2_interp *I, collect *c, int kind, int64_t i, double f)
{
    if (c->n == c->cap) {
        int64_t nc = c->cap ? c->cap * 2 : 64;
        leaf *nv = d2_realloc(c->v, (size_t)nc * sizeof *nv);
        if (!nv) {
            nomem(I);
            return -1;
        }
        c->v = nv;
        c->cap = nc;
    }
    c->v[c->n].kind = kind;
    c->v[c->n].i = i;
    c->v[c->n].f = f;
    c->n++;
    if (kind > c->maxkind)
        c->maxkind = kind;
    return 0;
}

static int collect_rec(d2_interp *I, collect *c, d2_obj *o, int depth, const char *fname);

/* Records the shape found at depth (first visit) or checks it (later). */
static int collect_dims(d2_interp *I, collect *c, int depth, int n, const int64_t *dims,
                        const char *fname)
{
    if (!c->shape_known) {
        if (depth + n > D2_MAX_DIMS) {
            d2_raise(I, "ValueError", "%s: too many dimensions (more than %d)", fname, D2_MAX_DIMS);
            return -1;
        }
        for (int k = 0; k < n; k++)
            c->shape[depth + k] = dims[k];
        if (depth + n > c->ndim)
            c->ndim = depth + n;
        return 0;
    }
    if (depth + n != c->ndim) {
        d2_raise(I, "ValueError",
                 "%s: the nested sequence is ragged (inconsistent depth); every element must have "
                 "the same shape",
                 fname);
        return -1;
    }
    for (int k = 0; k < n; k++)
        if (c->shape[depth + k] != dims[k]) {
            d2_raise(I, "ValueError",
                     "%s: the nested sequence is ragged: expected %lld elements at depth %d, got "
                     "%lld",
                     fname, (long long)c->shape[depth + k], depth + k, (long long)dims[k]);
            return -1;
        }
    return 0;
}

static int collect_rec(d2_interp *I, collect *c, d2_obj *o, int depth, const char *fname)
{
    if (is_bool(o) || is_int(o) || o->kind == D2_OBJ_FLOAT) {
        if (collect_dims(I, c, depth, 0, NULL, fname) < 0)
            return -1;
        c->shape_known = true;
        if (o->kind == D2_OBJ_FLOAT)
            return push_leaf(I, c, 2, 0, D2_AS(d2_float, o)->v);
        return push_leaf(I, c, is_bool(o) ? 0 : 1, D2_AS(d2_int, o)->v, 0);
    }
    if (is_tensor(o) || is_ndarray(o)) {
        d2_tensor *t = d2_pd_host(I, o, fname);
        if (!t)
            return -1;
        int rc = collect_dims(I, c, depth, t->ndim, t->shape, fname);
        c->shape_known = true;
        if (c->tensor_dt < 0)
            c->tensor_dt = t->dtype;
        int64_t n = d2_tensor_numel(t);
        int kind = d2_dtype_is_float(t->dtype) ? 2 : t->dtype == D2_BOOL ? 0 : 1;
        for (int64_t i = 0; rc == 0 && i < n; i++)
            rc = kind == 2 ? push_leaf(I, c, 2, 0, d2_tensor_get_f64(t, i))
                           : push_leaf(I, c, kind, d2_tensor_get_i64(t, i), 0);
        d2_tensor_unref(t);
        return rc;
    }
    if (is_seq(o)) {
        size_t n = seq_len(o);
        int64_t d = (int64_t)n;
        if (!c->shape_known) {
            if (depth >= D2_MAX_DIMS) {
                d2_raise(I, "ValueError", "%s: too many dimensions (more than %d)", fname,
                         D2_MAX_DIMS);
                return -1;
            }
            c->shape[depth] = d;
            c->ndim = depth + 1;
            if (n == 0)
                c->shape_known = true;
        } else if (depth >= c->ndim || c->shape[depth] != d) {
            d2_raise(I, "ValueError",
                     "%s: the nested sequence is ragged; every element must have the same shape",
                     fname);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            if (collect_rec(I, c, seq_item(o, i), depth + 1, fname) < 0)
                return -1;
        return 0;
    }
    if (!D2_MODE(I)->up.raise_if_undef || !D2_MODE(I)->up.raise_if_undef(I, o))
        d2_raise(I, "TypeError", "%s: cannot convert %s to a tensor", fname, d2_type_name(o));
    return -1;
}

d2_tensor *d2_pd_from_py(d2_interp *I, d2_obj *o, int dt, d2_dtype float_dt, const char *fname)
{
    d2_err err;
    D2_ERR_FRESH(err);
    if (is_tensor(o) || is_ndarray(o)) {
        d2_tensor *h = d2_pd_host(I, o, fname);
        if (!h)
            return NULL;
        d2_tensor *r = NULL;
        if (dt < 0 || dt == (int)h->dtype) {
            r = d2_tensor_copy_to(h, NULL, &err);
        } else {
            d2_attrs a;
            d2_attrs_init_default(d2_op_def(D2_OP_cast), &a);
            d2_attr_set_int(d2_op_def(D2_OP_cast), &a, "dtype", dt);
            if (d2_op_run(NULL, D2_OP_cast, &a, &h, 1, &r, 1, &err) < 0)
                r = NULL;
            d2_attrs_free(&a);
        }
        d2_tensor_unref(h);
        if (!r)
            d2_pd_raise_err_named(I, fname, NULL, &err);
        return r;
    }
    collect c;
    memset(&c, 0, sizeof c);
    c.tensor_dt = -1;
    if (collect_rec(I, &c, o, 0, fname) < 0) {
        d2_free(c.v);
        return NULL;
    }
    int odt = dt;
    if (odt < 0) {
        if (c.maxkind == 2)
            odt = c.tensor_dt >= 0 && d2_dtype_is_float((d2_dtype)c.tensor_dt) ? c.tensor_dt
                                                                               : (int)float_dt;
        else if (c.maxkind == 1)
            odt = c.tensor_dt == D2_I32 ? D2_I32 : D2_I64;
        else
            odt = c.n == 0 ? (int)float_dt : D2_BOOL;
    }
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)odt, c.ndim, c.shape, &err);
    if (!t) {
        d2_free(c.v);
        d2_raise_err(I, &err);
        return NULL;
    }
    void *p = d2_tensor_data(t);
    for (int64_t i = 0; i < c.n; i++) {
        const leaf *l = &c.v[i];
        double f = l->kind == 2 ? l->f : (double)l->i;
        switch (odt) {
        case D2_F32: ((float *)p)[i] = (float)f; break;
        case D2_F64: ((double *)p)[i] = f; break;
        case D2_I32:
            ((int32_t *)p)[i] =
                l->kind == 2 ? (int32_t)(isfinite(f) && fabs(f) < 2.2e9 ? f : 0) : (int32_t)l->i;
            break;
        case D2_I64:
            ((int64_t *)p)[i] =
                l->kind == 2 ? (int64_t)(isfinite(f) && fabs(f) < 9.2e18 ? f : 0) : l->i;
            break;
        case D2_BOOL: ((uint8_t *)p)[i] = l->kind == 2 ? f != 0 : l->i != 0; break;
        default: {
            /* storage dtypes: Paddle's cast from float64 or int64 */
            char *slot = (char *)p + (size_t)i * d2_dtype_size((d2_dtype)odt);
            if (odt == D2_F16) /* NumPy's astype: round to nearest even */
                *(uint16_t *)slot = d2_f32_to_f16((float)f);
            else if (l->kind == 2)
                d2_convert(D2_F64, (d2_dtype)odt, 1, &f, slot);
            else
                d2_convert(D2_I64, (d2_dtype)odt, 1, &l->i, slot);
            break;
        }
        }
    }
    d2_free(c.v);
    return t;
}

d2_obj *d2_pd_item(d2_interp *I, const d2_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case D2_F32:
    case D2_F64:
    case D2_F16:
    case D2_BF16: return d2_float_new(I, d2_tensor_get_f64(t, i));
    case D2_BOOL: return d2_bool(I, d2_tensor_get_i64(t, i) != 0);
    default: return d2_int_new(I, d2_tensor_get_i64(t, i));
    }
}

static d2_obj *tolist_rec(d2_interp *I, const d2_tensor *t, int dim, int64_t *pos)
{
    if (dim == t->ndim)
        return d2_pd_item(I, t, (*pos)++);
    d2_obj *l = d2_list_new(I, 0);
    if (!l)
        return NULL;
    for (int64_t k = 0; k < t->shape[dim]; k++) {
        d2_obj *v = tolist_rec(I, t, dim + 1, pos);
        if (!v || d2_list_append(I, l, v) < 0) {
            d2_decref(v);
            d2_decref(l);
            return NULL;
        }
        d2_decref(v);
    }
    return l;
}

d2_obj *d2_pd_tolist(d2_interp *I, const d2_tensor *t)
{
    int64_t pos = 0;
    return tolist_rec(I, t, 0, &pos);
}

int d2_pd_ints(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t *v, int *n,
               int max)
{
    *n = 0;
    if (is_int(o) || is_bool(o)) {
        v[0] = D2_AS(d2_int, o)->v;
        *n = 1;
        return 0;
    }
    if ((is_tensor(o) || is_ndarray(o)) && !is_sym(o)) {
        d2_tensor *t = d2_pd_host(I, o, fname);
        if (!t)
            return -1;
        int64_t k = d2_tensor_numel(t);
        int rc = 0;
        if (!d2_dtype_is_int(t->dtype) || t->ndim > 1 || k > max) {
            d2_raise(I, "TypeError", "%s: %s must be an int or a list of ints, got a %s tensor",
                     fname, what, dtname(t->dtype));
            rc = -1;
        } else {
            for (int64_t i = 0; i < k; i++)
                v[i] = d2_tensor_get_i64(t, i);
            *n = (int)k;
        }
        d2_tensor_unref(t);
        return rc;
    }
    if (!is_seq(o)) {
        d2_raise(I, "TypeError", "%s: %s must be an int or a list of ints, got %s", fname, what,
                 d2_type_name(o));
        return -1;
    }
    size_t len = seq_len(o);
    if ((int)len > max) {
        d2_raise(I, "ValueError", "%s: %s has %zu values, at most %d are allowed", fname, what, len,
                 max);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        d2_obj *it = seq_item(o, i);
        if (is_int(it) || is_bool(it)) {
            v[i] = D2_AS(d2_int, it)->v;
        } else if ((is_tensor(it) || is_ndarray(it)) && !is_sym(it)) {
            d2_tensor *t = d2_pd_host(I, it, fname);
            if (!t)
                return -1;
            bool ok = d2_dtype_is_int(t->dtype) && d2_tensor_numel(t) == 1;
            if (ok)
                v[i] = d2_tensor_get_i64(t, 0);
            d2_tensor_unref(t);
            if (!ok) {
                d2_raise(I, "TypeError", "%s: %s[%zu] must be an int", fname, what, i);
                return -1;
            }
        } else {
            d2_raise(I, "TypeError", "%s: %s[%zu] must be an int, got %s", fname, what, i,
                     d2_type_name(it));
            return -1;
        }
    }
    *n = (int)len;
    return 0;
}

int d2_pd_get_int(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t *v)
{
    if (is_int(o) || is_bool(o)) {
        *v = D2_AS(d2_int, o)->v;
        return 0;
    }
    if ((is_tensor(o) || is_ndarray(o)) && !is_sym(o)) {
        d2_tensor *t = d2_pd_host(I, o, fname);
        if (!t)
            return -1;
        bool ok = d2_dtype_is_int(t->dtype) && d2_tensor_numel(t) == 1;
        if (ok)
            *v = d2_tensor_get_i64(t, 0);
        d2_tensor_unref(t);
        if (ok)
            return 0;
    }
    d2_raise(I, "TypeError", "%s: %s must be an int, got %s", fname, what, d2_type_name(o));
    return -1;
}

int d2_pd_get_float(d2_interp *I, d2_obj *o, const char *fname, const char *what, double *v)
{
    if (is_number(o)) {
        *v = num_value(o);
        return 0;
    }
    if ((is_tensor(o) || is_ndarray(o)) && !is_sym(o)) {
        d2_tensor *t = d2_pd_host(I, o, fname);
        if (!t)
            return -1;
        bool ok = d2_tensor_numel(t) == 1;
        if (ok)
            *v = d2_tensor_get_f64(t, 0);
        d2_tensor_unref(t);
        if (ok)
            return 0;
    }
    d2_raise(I, "TypeError", "%s: %s must be a number, got %s", fname, what, d2_type_name(o));
    return -1;
}

int d2_pd_get_bool(d2_interp *I, d2_obj *o, const char *fname, const char *what, bool *v)
{
    if (is_none(I, o)) {
        *v = false;
        return 0;
    }
    if (is_number(o)) {
        *v = num_value(o) != 0;
        return 0;
    }
    d2_raise(I, "TypeError", "%s: %s must be a bool, got %s", fname, what, d2_type_name(o));
    return -1;
}

const char *d2_pd_get_str(d2_interp *I, d2_obj *o, const char *fname, const char *what)
{
    if (o && o->kind == D2_OBJ_STR)
        return D2_AS(d2_str, o)->s;
    d2_raise(I, "TypeError", "%s: %s must be a string, got %s", fname, what,
             o ? d2_type_name(o) : "nothing");
    return NULL;
}

/* Builds a CPU tensor of dt from doubles. */
d2_tensor *d2_pd_host_from_doubles(d2_interp *I, d2_dtype dt, int ndim, const int64_t *shape,
                                   const double *v)
{
    d2_err err;
    D2_ERR_FRESH(err);
    d2_tensor *t = d2_tensor_new(NULL, dt, ndim, shape, &err);
    if (!t) {
        d2_raise_err(I, &err);
        return NULL;
    }
    int64_t n = d2_tensor_numel(t);
    void *p = d2_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        switch (dt) {
        case D2_F32: ((float *)p)[i] = (float)v[i]; break;
        case D2_F64: ((double *)p)[i] = v[i]; break;
        case D2_I32: ((int32_t *)p)[i] = (int32_t)v[i]; break;
        case D2_I64: ((int64_t *)p)[i] = (int64_t)v[i]; break;
        case D2_BOOL: ((uint8_t *)p)[i] = v[i] != 0; break;
        default: d2_convert(D2_F64, dt, 1, &v[i], (char *)p + (size_t)i * d2_dtype_size(dt)); break;
        }
    }
    return t;
}

d2_obj *d2_pd_shape_pylist(d2_interp *I, const d2_shape *s)
{
    d2_obj *l = d2_list_new(I, 0);
    for (int i = 0; l && i < s->ndim; i++) {
        d2_obj *v = d2_int_new(I, s->dims[i]);
        if (!v || d2_list_append(I, l, v) < 0)
            d2_setref(&l, NULL);
        d2_decref(v);
    }
    return l;
}

/* ======================================================================
 * dtype objects: protocol
 * ====================================================================== */

static int vartype_code(d2_dtype dt)
{
    switch (dt) {
    case D2_BOOL: return 0;
    case D2_I32: return 2;
    case D2_I64: return 3;
    case D2_F16: return 4;
    case D2_F32: return 5;
    case D2_F64: return 6;
    case D2_BF16: return 22;
    default: return -1;
    }
}

static d2_obj *dtype_repr(d2_interp *I, d2_obj *o)
{
    d2_dtype_obj *d = D2_AS(d2_dtype_obj, o);
    if (d->np_style)
        return d2_str_printf(I, "dtype('%s')", dtname(d->dt));
    static const char *up[] = {"FP32", "FP64", "INT32", "INT64", "BOOL", "FP16", "BF16"};
    return d2_str_printf(I, "<VarType.%s: %d>", up[d->dt], vartype_code(d->dt));
}

static d2_obj *dtype_str(d2_interp *I, d2_obj *o)
{
    d2_dtype_obj *d = D2_AS(d2_dtype_obj, o);
    if (d->np_style)
        return d2_str_from(I, dtname(d->dt));
    return d2_str_printf(I, "paddle.%s", dtname(d->dt));
}

static d2_obj *dtype_compare(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (op != D2_CMP_EQ && op != D2_CMP_NOT_EQ)
        return d2_incref(I->not_implemented);
    d2_obj *x = a->kind == D2_OBJ_DTYPE ? a : b, *y = x == a ? b : a;
    bool eq;
    d2_dtype_obj *dx = D2_AS(d2_dtype_obj, x);
    if (y->kind == D2_OBJ_DTYPE) {
        d2_dtype_obj *dy = D2_AS(d2_dtype_obj, y);
        eq = dx->dt == dy->dt;
    } else if (y->kind == D2_OBJ_STR && dx->np_style) {
        int dt;
        eq = d2_pd_parse_dtype(I, y, "dtype", true, &dt) == 0 && dt == (int)dx->dt;
        d2_exc_clear(I);
    } else {
        return d2_incref(I->not_implemented);
    }
    return d2_bool(I, op == D2_CMP_EQ ? eq : !eq);
}

static int dtype_hash(d2_interp *I, d2_obj *o, uint64_t *h)
{
    D2_UNUSED(I);
    *h = 0x9e3779b97f4a7c15ull * (uint64_t)(D2_AS(d2_dtype_obj, o)->dt + 1);
    return 0;
}

static d2_obj *dtype_getattr(d2_interp *I, d2_obj *o, const char *name)
{
    d2_dtype_obj *d = D2_AS(d2_dtype_obj, o);
    if (strcmp(name, "name") == 0)
        return d2_str_from(I, dtname(d->dt));
    if (strcmp(name, "itemsize") == 0)
        return d2_int_new(I, (int64_t)d2_dtype_size(d->dt));
    if (strcmp(name, "kind") == 0)
        return d2_str_from(I, d2_dtype_is_float(d->dt) ? "f" : d->dt == D2_BOOL ? "b" : "i");
    if (strcmp(name, "type") == 0)
        return d2_incref(o);
    return NULL;
}

static const d2_type_hooks dtype_hooks = {
    .compare = dtype_compare,
    .repr = dtype_repr,
    .str = dtype_str,
    .getattr = dtype_getattr,
    .hash = dtype_hash,
};

/* np.float32(x) and friends: a 0-d array (NumPy scalar). */
static d2_obj *dtype_call(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("dtype.__call__");
    D2_UNUSED(kw);
    d2_dtype_obj *d = D2_AS(d2_dtype_obj, self);
    if (!d->np_style)
        return d2_raise(I, "TypeError", "'paddle.dtype' object is not callable");
    d2_tensor *t;
    if (nargs == 0) {
        d2_err err;
        D2_ERR_FRESH(err);
        t = d2_tensor_zeros(d->dt, 0, NULL, &err);
        if (!t)
            return d2_raise_err(I, &err);
    } else {
        t = d2_pd_from_py(I, args[0], d->dt, D2_F64, dtname(d->dt));
    }
    return t ? d2_pd_ndarray_take(I, t) : NULL;
}

/* The dtype class, its protocol, and the dtypes as paddle.float32 & co. */
int d2_pd_dtype_init(d2_interp *I, pd_state *s)
{
    d2_module *pd = s->paddle;
    d2_class *dc = d2_pd_layout_class(I, D2_OBJ_DTYPE, "paddle");
    if (!dc || d2_class_add_method(I, dc, "__call__", dtype_call) < 0)
        return -1;
    s->dtype_cls = dc;
    I->hooks[D2_OBJ_DTYPE] = &dtype_hooks;
    for (int dt = 0; dt < D2_NUM_DTYPES; dt++) {
        d2_obj *o = d2_pd_dtype_obj(I, (d2_dtype)dt, false);
        if (!o || set_attr(I, pd, dtname(dt), o) < 0)
            return -1;
    }
    if (set_attr(I, pd, "dtype", (d2_obj *)dc) < 0)
        return -1;
    return 0;
}
