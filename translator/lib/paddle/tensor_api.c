/* tensor_api.c - the Paddle API subset: tensors, ops, paddle.nn.functional, nn.Layer and layers. */
#include "lib/paddle/tensor_api.h"
#include "pickle.h"

#include <ctype.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "syntax/ast.h"

/* ======================================================================
 * State
 * ====================================================================== */

/* Per-interpreter state of the paddle module, held by an OPAQUE object in
 * the paddle module's dict (freed with it at teardown). Object pointers here
 * are borrowed: classes and modules live until teardown. */
typedef struct pd_state {
    d2_class *tensor_cls, *dtype_cls, *layer_cls, *param_attr_cls, *init_cls, *place_cls, *ctx_cls,
        *hook_cls;
    d2_module *paddle, *nn, *F, *init, *fluid, *dygraph;
    d2_obj *dtypes[2][D2_NUM_DTYPES]; /* [np_style][dt] */
    d2_dict *name_counters;           /* unique_name: prefix -> next index */
    d2_mt19937 rng;                   /* paddle.seed / rand / randn / dropout */
    int no_grad;                      /* depth of no_grad() blocks */
    int64_t lifted_count;             /* names of lifted constants */
} pd_state;

static void state_fini(d2_interp *I, void *p)
{
    D2_UNUSED(I);
    d2_free(p);
}

static pd_state *ST(d2_interp *I);

/* ======================================================================
 * Small helpers
 * ====================================================================== */

#define TOBJ(o) D2_AS(d2_tensor_obj, o)
#define NDA(o) D2_AS(d2_ndarray, o)

/* Builtin methods receive their receiver in self, or (unbound call, or a
 * binding that passes the receiver as the first argument) in args[0]. */
#define SELF_ARG(fname)                                                                            \
    do {                                                                                           \
        if (!self) {                                                                               \
            if (nargs < 1)                                                                         \
                return d2_raise(I, "TypeError", "%s: missing the receiver", fname);                \
            self = args[0];                                                                        \
            args++;                                                                                \
            nargs--;                                                                               \
        }                                                                                          \
    } while (0)

static bool is_tensor(const d2_obj *o) { return o && o->kind == D2_OBJ_TENSOR; }
static bool is_ndarray(const d2_obj *o) { return o && o->kind == D2_OBJ_NDARRAY; }
static bool is_none(d2_interp *I, const d2_obj *o)
{
    return !o || o == I->none || o->kind == D2_OBJ_NONE;
}
static bool is_int(const d2_obj *o) { return o->kind == D2_OBJ_INT; }
static bool is_bool(const d2_obj *o) { return o->kind == D2_OBJ_BOOL; }
static bool is_number(const d2_obj *o)
{
    return o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL || o->kind == D2_OBJ_FLOAT;
}
static bool is_seq(const d2_obj *o) { return o->kind == D2_OBJ_LIST || o->kind == D2_OBJ_TUPLE; }
static bool is_sym(const d2_obj *o) { return is_tensor(o) && TOBJ(o)->t == NULL; }

static size_t seq_len(const d2_obj *o)
{
    return o->kind == D2_OBJ_LIST ? D2_AS(d2_list, o)->n : D2_AS(d2_tuple, o)->n;
}
static d2_obj *seq_item(const d2_obj *o, size_t i)
{
    return o->kind == D2_OBJ_LIST ? D2_AS(d2_list, o)->items[i] : D2_AS(d2_tuple, o)->items[i];
}
static double num_value(const d2_obj *o)
{
    return o->kind == D2_OBJ_FLOAT ? D2_AS(d2_float, o)->v : (double)D2_AS(d2_int, o)->v;
}

static d2_obj *nomem(d2_interp *I) { return d2_raise(I, "MemoryError", "out of memory"); }

/* A tuple of n NULL items to fill with new references (n recorded). */
static d2_obj *tuple_new(d2_interp *I, size_t n)
{
    d2_obj *t = d2_tuple_new(I, n);
    if (t && n)
        D2_AS(d2_tuple, t)->n = n;
    return t;
}

static const d2_type *obj_type(const d2_obj *o) { return &TOBJ(o)->type; }

static void type_of_tensor(const d2_tensor *t, d2_type *ty)
{
    memset(ty, 0, sizeof *ty);
    ty->kind = t->kind;
    ty->dtype = t->dtype;
    ty->shape.ndim = t->ndim;
    for (int i = 0; i < t->ndim; i++)
        ty->shape.dims[i] = t->shape[i];
}

static d2_backend *eager_backend(d2_interp *I)
{
    return D2_MODE(I)->backend ? D2_MODE(I)->backend : d2_cpu_backend();
}

static bool on_cpu(const d2_tensor *t)
{
    return !t->storage || t->storage->backend == NULL || t->storage->backend == d2_cpu_backend() ||
           t->storage->backend->kind == D2_BACKEND_CPU;
}

/* Raises err as a Python exception; when fname is given the message is
 * "fname: msg" with a leading "<opname>: " dropped when fname ends in it. */
static d2_obj *raise_err_named(d2_interp *I, const char *fname, const d2_op_id *op, d2_err *err)
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
    type_of_tensor(t, &TOBJ(o)->type);
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

static d2_obj *ndarray_take(d2_interp *I, d2_tensor *t)
{
    if (!t)
        return NULL;
    d2_obj *o = d2_ndarray_wrap(I, t);
    d2_tensor_unref(t);
    return o;
}

/* Moves a CPU tensor to the eager backend (takes the caller's reference). */
static d2_tensor *to_backend(d2_interp *I, d2_tensor *t)
{
    d2_backend *be = eager_backend(I);
    if (!t || be->kind == D2_BACKEND_CPU)
        return t;
    d2_err err = {0};
    d2_tensor *c = d2_tensor_copy_to(t, be, &err);
    d2_tensor_unref(t);
    if (!c)
        d2_raise_err(I, &err);
    return c;
}

/* Wraps a fresh CPU tensor as a paddle tensor on the eager backend. */
static d2_obj *wrap_host(d2_interp *I, d2_tensor *t) { return wrap_take(I, to_backend(I, t)); }

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
    d2_err err = {0};
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

static d2_obj *dtype_obj_new(d2_interp *I, d2_dtype dt, bool np_style)
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
        else if (strcmp(s, "float16") == 0 || strcmp(s, "bfloat16") == 0)
            v = -2;
        if (v == -2) {
            d2_raise(I, "TypeError", "%s: dtype '%s' is not supported (no kernels)", fname, s);
            return -1;
        }
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

static const char *dtname(int dt) { return d2_dtype_name((d2_dtype)dt); }

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
    d2_err err = {0};
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
            raise_err_named(I, fname, NULL, &err);
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
    if (!d2_dtype_supported((d2_dtype)odt)) {
        d2_free(c.v);
        d2_raise(I, "TypeError", "%s: dtype %s is not supported", fname, dtname(odt));
        return NULL;
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
        default: break;
        }
    }
    d2_free(c.v);
    return t;
}

d2_obj *d2_pd_item(d2_interp *I, const d2_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case D2_F32:
    case D2_F64: return d2_float_new(I, d2_tensor_get_f64(t, i));
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

static int get_int(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t *v)
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

static int get_float(d2_interp *I, d2_obj *o, const char *fname, const char *what, double *v)
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

static int get_bool(d2_interp *I, d2_obj *o, const char *fname, const char *what, bool *v)
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

static const char *get_str(d2_interp *I, d2_obj *o, const char *fname, const char *what)
{
    if (o && o->kind == D2_OBJ_STR)
        return D2_AS(d2_str, o)->s;
    d2_raise(I, "TypeError", "%s: %s must be a string, got %s", fname, what,
             o ? d2_type_name(o) : "nothing");
    return NULL;
}

/* ======================================================================
 * Running ops: eager, static, traced
 * ====================================================================== */

/* Attribute builder: defaults first, then setters; `bad` records a setter
 * that did not match the schema (an internal error) or out of memory. */
typedef struct ab {
    const d2_opdef *def;
    d2_attrs a;
    bool bad;
} ab;

static void ab_init(ab *b, d2_op_id op)
{
    b->def = d2_op_def(op);
    d2_attrs_init_default(b->def, &b->a);
    b->bad = b->a.n != b->def->n_attrs;
}
static void ab_free(ab *b) { d2_attrs_free(&b->a); }
static void ab_int(ab *b, const char *n, int64_t v)
{
    b->bad |= d2_attr_set_int(b->def, &b->a, n, v) < 0;
}
static void ab_float(ab *b, const char *n, double v)
{
    b->bad |= d2_attr_set_float(b->def, &b->a, n, v) < 0;
}
static void ab_bool(ab *b, const char *n, bool v)
{
    b->bad |= d2_attr_set_bool(b->def, &b->a, n, v) < 0;
}
static void ab_str(ab *b, const char *n, const char *v)
{
    b->bad |= d2_attr_set_str(b->def, &b->a, n, v) < 0;
}
static void ab_ints(ab *b, const char *n, const int64_t *v, int k)
{
    b->bad |= d2_attr_set_ints(b->def, &b->a, n, v, k) < 0;
}

/* A Python value was read out of o while tracing (the trace floor warns). */
static void trace_frozen(d2_interp *I, d2_obj *o, d2_trace_freeze kind)
{
    if (D2_MODE(I)->up.trace_frozen)
        D2_MODE(I)->up.trace_frozen(I, o, kind);
}

int d2_pd_lift(d2_interp *I, d2_builder *b, d2_obj *o)
{
    if (!is_tensor(o)) {
        d2_raise(I, "TypeError", "internal: lifting a %s into a Program", d2_type_name(o));
        return -1;
    }
    d2_tensor_obj *to = TOBJ(o);
    if (!to->t) {
        if (to->builder == b)
            return to->var;
        d2_raise(I, "ValueError",
                 "a symbolic tensor of another to_static program is used here; values cannot "
                 "cross between programs");
        return -1;
    }
    if (!b->lifted) {
        d2_obj *d = d2_dict_new(I);
        if (!d)
            return -1;
        b->lifted = D2_AS(d2_dict, d);
    }
    d2_obj *key = d2_int_new(I, (int64_t)(intptr_t)o);
    if (!key)
        return -1;
    d2_obj *hit = d2_dict_get(I, b->lifted, key);
    if (hit && hit->kind == D2_OBJ_TUPLE) {
        d2_decref(key);
        return (int)D2_AS(d2_int, D2_AS(d2_tuple, hit)->items[1])->v;
    }
    pd_state *s = ST(I);
    char buf[256];
    const char *base = to->name;
    if (!base) {
        snprintf(buf, sizeof buf, "_constant_%lld", (long long)s->lifted_count++);
        base = buf;
    }
    char name[300];
    snprintf(name, sizeof name, "%s", base);
    for (int k = 1; d2_program_find_var(b->prog, name) >= 0; k++)
        snprintf(name, sizeof name, "%s_%d", base, k);
    d2_err err = {0};
    d2_tensor *h = d2_pd_host(I, o, "to_static");
    if (!h) {
        d2_decref(key);
        return -1;
    }
    d2_type ty;
    type_of_tensor(h, &ty);
    int var = d2_program_add_param(b->prog, name, h, &ty, &err);
    d2_tensor_unref(h);
    if (var < 0) {
        d2_decref(key);
        d2_raise_err(I, &err);
        return -1;
    }
    d2_obj *vo = d2_int_new(I, var);
    d2_obj *tup = vo ? d2_tuple_pack(I, 2, o, vo) : NULL;
    int rc = tup ? d2_dict_set(I, b->lifted, key, tup) : -1;
    d2_decref(tup);
    d2_decref(vo);
    d2_decref(key);
    return rc < 0 ? -1 : var;
}

static int apply_static(d2_interp *I, const char *fname, d2_op_id op, d2_obj **inputs, int n_in,
                        const d2_attrs *attrs, d2_obj **outs, int n_out)
{
    d2_builder *b = D2_MODE(I)->builder;
    int *vin = d2_calloc((size_t)n_in + 1, sizeof *vin);
    int *vout = d2_calloc((size_t)n_out + 1, sizeof *vout);
    int rc = -1;
    if (!vin || !vout) {
        nomem(I);
        goto done;
    }
    for (int i = 0; i < n_in; i++) {
        vin[i] = inputs[i] ? d2_pd_lift(I, b, inputs[i]) : -1;
        if (inputs[i] && vin[i] < 0)
            goto done;
    }
    d2_err err = {0};
    if (d2_block_append_inferred(b->prog, b->block, op, vin, n_in, attrs, n_out, vout, &err) < 0) {
        raise_err_named(I, fname, &op, &err);
        goto done;
    }
    d2_block *blk = &b->prog->blocks[b->block];
    if (I->frame && blk->n_ops > 0) {
        blk->ops[blk->n_ops - 1].line = (int)I->frame->span.line;
        blk->ops[blk->n_ops - 1].col = (int)I->frame->span.col + 1;
    }
    for (int i = 0; i < n_out; i++) {
        outs[i] = d2_pd_symbolic(I, b, vout[i]);
        if (!outs[i]) {
            for (int j = 0; j < i; j++)
                d2_setref(&outs[j], NULL);
            goto done;
        }
    }
    rc = 0;
done:
    d2_free(vin);
    d2_free(vout);
    return rc;
}

/* d2_apply_op with the Python function's name for error messages. */
static int apply_named(d2_interp *I, const char *fname, d2_op_id op, d2_obj **inputs, int n_in,
                       const d2_attrs *attrs, d2_obj **outs, int n_out)
{
    for (int i = 0; i < n_out; i++)
        outs[i] = NULL;
    bool sg = true;
    for (int i = 0; i < n_in; i++) {
        if (!inputs[i])
            continue;
        if (!is_tensor(inputs[i])) {
            d2_raise(I, "TypeError", "%s: expected a Tensor, got %s", fname ? fname : "op",
                     d2_type_name(inputs[i]));
            return -1;
        }
        sg &= TOBJ(inputs[i])->stop_gradient;
    }
    if (ST(I)->no_grad)
        sg = true;
    int rc;
    /* outside of a build, an op on a symbolic tensor of a static Program
     * (paddle.static.data after paddle.enable_static) extends that Program */
    d2_builder *owner = D2_MODE(I)->builder;
    for (int i = 0; !owner && i < n_in; i++)
        if (inputs[i] && is_sym(inputs[i]))
            owner = TOBJ(inputs[i])->builder;
    if (owner) {
        d2_builder *saved = D2_MODE(I)->builder;
        D2_MODE(I)->builder = owner;
        rc = apply_static(I, fname, op, inputs, n_in, attrs, outs, n_out);
        D2_MODE(I)->builder = saved;
    } else {
        d2_tensor *sin[16], *sout[16];
        d2_tensor **in = n_in <= 16 ? sin : d2_calloc((size_t)n_in, sizeof *in);
        d2_tensor **out = n_out <= 16 ? sout : d2_calloc((size_t)n_out, sizeof *out);
        rc = -1;
        if (!in || !out) {
            nomem(I);
            goto eager_done;
        }
        for (int i = 0; i < n_in; i++) {
            if (inputs[i] && !TOBJ(inputs[i])->t) {
                d2_raise(I, "ValueError",
                         "%s: a symbolic tensor (a value of a to_static program) is used outside "
                         "of to_static",
                         fname ? fname : d2_op_def(op)->name);
                goto eager_done;
            }
            in[i] = inputs[i] ? TOBJ(inputs[i])->t : NULL;
        }
        d2_err err = {0};
        if (d2_op_run(eager_backend(I), op, attrs, in, n_in, out, n_out, &err) < 0) {
            raise_err_named(I, fname, &op, &err);
            goto eager_done;
        }
        rc = 0;
        for (int i = 0; i < n_out; i++) {
            outs[i] = rc == 0 ? d2_tensor_wrap(I, out[i]) : NULL;
            if (!outs[i])
                rc = -1;
            d2_tensor_unref(out[i]);
        }
        if (rc < 0)
            for (int i = 0; i < n_out; i++)
                d2_setref(&outs[i], NULL);
        if (rc == 0 && D2_MODE(I)->tracer && D2_MODE(I)->up.trace_record &&
            D2_MODE(I)->up.trace_record(I, op, inputs, n_in, attrs, outs, n_out) < 0) {
            for (int i = 0; i < n_out; i++)
                d2_setref(&outs[i], NULL);
            rc = -1;
        }
    eager_done:
        if (in != sin)
            d2_free(in);
        if (out != sout)
            d2_free(out);
    }
    if (rc == 0)
        for (int i = 0; i < n_out; i++)
            TOBJ(outs[i])->stop_gradient = sg;
    return rc;
}

int d2_apply_op(d2_interp *I, d2_op_id op, d2_obj **inputs, int n_in, const d2_attrs *attrs,
                d2_obj **outs, int n_out)
{
    return apply_named(I, NULL, op, inputs, n_in, attrs, outs, n_out);
}

/* One-output op; b may be NULL (defaults). New reference or NULL. */
static d2_obj *opn(d2_interp *I, const char *fname, d2_op_id op, d2_obj **in, int n_in, ab *b)
{
    if (b && b->bad) {
        ab_free(b);
        return d2_raise(I, "RuntimeError", "%s: internal error building the attributes of %s",
                        fname, d2_op_def(op)->name);
    }
    d2_obj *out = NULL;
    int rc = apply_named(I, fname, op, in, n_in, b ? &b->a : NULL, &out, 1);
    if (b)
        ab_free(b);
    return rc < 0 ? NULL : out;
}

static d2_obj *op1(d2_interp *I, const char *fname, d2_op_id op, d2_obj *x, ab *b)
{
    return opn(I, fname, op, &x, 1, b);
}

static d2_obj *op2(d2_interp *I, const char *fname, d2_op_id op, d2_obj *x, d2_obj *y, ab *b)
{
    d2_obj *in[2] = {x, y};
    return opn(I, fname, op, in, 2, b);
}

/* A 0-d (or shape-given) constant of dtype dt: a concrete tensor eagerly, a
 * `full` op in static mode. */
static d2_obj *const_tensor(d2_interp *I, double v, int64_t iv, bool use_int, d2_dtype dt)
{
    if (D2_MODE(I)->builder) {
        ab b;
        ab_init(&b, D2_OP_full);
        ab_float(&b, "value", use_int ? (double)iv : v);
        ab_int(&b, "dtype", dt);
        return opn(I, "constant", D2_OP_full, NULL, 0, &b);
    }
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, dt, 0, NULL, &err);
    if (!t) {
        d2_raise_err(I, &err);
        return NULL;
    }
    void *p = d2_tensor_data(t);
    switch (dt) {
    case D2_F32: *(float *)p = use_int ? (float)iv : (float)v; break;
    case D2_F64: *(double *)p = use_int ? (double)iv : v; break;
    case D2_I32: *(int32_t *)p = (int32_t)(use_int ? iv : (int64_t)v); break;
    case D2_I64: *(int64_t *)p = use_int ? iv : (int64_t)v; break;
    case D2_BOOL: *(uint8_t *)p = use_int ? iv != 0 : v != 0; break;
    default: break;
    }
    return wrap_host(I, t);
}

/* Python scalar o as a constant tensor of dtype dt. */
static d2_obj *scalar_tensor(d2_interp *I, d2_obj *o, d2_dtype dt)
{
    if (o->kind == D2_OBJ_FLOAT)
        return const_tensor(I, D2_AS(d2_float, o)->v, 0, false, dt);
    return const_tensor(I, 0, D2_AS(d2_int, o)->v, true, dt);
}

static d2_obj *cast_to(d2_interp *I, const char *fname, d2_obj *x, int dt)
{
    if (dt < 0 || obj_type(x)->dtype == (d2_dtype)dt)
        return d2_incref(x);
    ab b;
    ab_init(&b, D2_OP_cast);
    ab_int(&b, "dtype", dt);
    return op1(I, fname, D2_OP_cast, x, &b);
}

/* Converts a function argument to a tensor: tensors as they are, anything
 * else through to_tensor with dtype dt (-1 infers; floats give float32). */
static d2_obj *as_tensor(d2_interp *I, d2_obj *o, int dt, const char *fname)
{
    if (is_tensor(o))
        return d2_incref(o);
    if (is_number(o) && dt >= 0)
        return scalar_tensor(I, o, (d2_dtype)dt);
    d2_tensor *t = d2_pd_from_py(I, o, dt, D2_F32, fname);
    return t ? wrap_host(I, t) : NULL;
}

d2_obj *d2_to_tensor(d2_interp *I, d2_obj *o, int dt)
{
    if (is_tensor(o)) {
        if (dt >= 0 && obj_type(o)->dtype != (d2_dtype)dt)
            return cast_to(I, "paddle.to_tensor", o, dt);
        return op1(I, "paddle.to_tensor", D2_OP_assign, o, NULL);
    }
    d2_tensor *t = d2_pd_from_py(I, o, dt, D2_F32, "paddle.to_tensor");
    return t ? wrap_host(I, t) : NULL;
}

/* ======================================================================
 * Binary operators and Paddle's dtype rules
 * ====================================================================== */

typedef enum {
    BK_ARITH, /* add, subtract, multiply: two floats promote, else right follows left */
    BK_DIV,   /* true divide: integer left computes in float32 */
    BK_LEFT,  /* right follows left */
    BK_CMP,   /* comparisons: like ARITH, bool result */
    BK_LOGIC, /* logical ops */
    BK_MATMUL,
} bin_kind;

static bin_kind kind_of(d2_op_id op)
{
    switch (op) {
    case D2_OP_add:
    case D2_OP_subtract:
    case D2_OP_multiply: return BK_ARITH;
    case D2_OP_divide: return BK_DIV;
    case D2_OP_equal:
    case D2_OP_not_equal:
    case D2_OP_less_than:
    case D2_OP_less_equal:
    case D2_OP_greater_than:
    case D2_OP_greater_equal: return BK_CMP;
    case D2_OP_logical_and:
    case D2_OP_logical_or:
    case D2_OP_logical_xor: return BK_LOGIC;
    case D2_OP_matmul: return BK_MATMUL;
    default: return BK_LEFT;
    }
}

/* Applies binary op to a and b (at least one a tensor; the other a tensor,
 * Python scalar, ndarray or list). strict: mismatched tensor dtypes are an
 * error (paddle.xxx functions) instead of being reconciled (operators). */
static d2_obj *binary(d2_interp *I, const char *fname, d2_op_id op, d2_obj *a, d2_obj *b,
                      bool strict)
{
    bin_kind k = kind_of(op);
    d2_obj *ta = NULL, *tb = NULL, *r = NULL;
    bool sa = !is_tensor(a), sb = !is_tensor(b);
    if (sa && sb)
        return d2_raise(I, "TypeError", "%s: expected a Tensor operand", fname);
    /* non-scalar, non-tensor operands become tensors of their own dtype */
    if (sa && !is_number(a)) {
        ta = as_tensor(I, a, -1, fname);
        if (!ta)
            return NULL;
        a = ta;
        sa = false;
    }
    if (sb && !is_number(b)) {
        tb = as_tensor(I, b, -1, fname);
        if (!tb) {
            d2_decref(ta);
            return NULL;
        }
        b = tb;
        sb = false;
    }
    d2_obj *x = NULL, *y = NULL;
    if (sa || sb) {
        d2_obj *t = sa ? b : a, *s = sa ? a : b;
        d2_dtype dt = obj_type(t)->dtype;
        d2_dtype cdt = dt;
        bool tint = !d2_dtype_is_float(dt);
        if (tint && (s->kind == D2_OBJ_FLOAT || k == BK_DIV))
            cdt = D2_F32;
        if (k == BK_LOGIC && s->kind == D2_OBJ_FLOAT)
            cdt = dt;
        d2_obj *tc = cast_to(I, fname, t, cdt);
        d2_obj *sc = tc ? scalar_tensor(I, s, cdt) : NULL;
        if (!sc) {
            d2_decref(tc);
            goto done;
        }
        x = sa ? sc : tc;
        y = sa ? tc : sc;
    } else {
        d2_dtype da = obj_type(a)->dtype, db = obj_type(b)->dtype;
        int ca = da, cb = db;
        if (da != db) {
            bool fa = d2_dtype_is_float(da), fb = d2_dtype_is_float(db);
            if ((k == BK_ARITH || k == BK_CMP) && fa && fb) {
                ca = cb = da == D2_F64 || db == D2_F64 ? D2_F64 : D2_F32;
            } else if (strict && k != BK_LOGIC) {
                r = d2_raise(I, "TypeError",
                             "%s: x and y must have the same dtype, got %s and %s (cast one of "
                             "them with astype)",
                             fname, dtname(da), dtname(db));
                goto done;
            } else if (k == BK_DIV && !fa) {
                ca = cb = D2_F32;
            } else {
                cb = ca;
            }
        } else if (k == BK_DIV && !d2_dtype_is_float(da)) {
            ca = cb = D2_F32;
        }
        x = cast_to(I, fname, a, ca);
        y = x ? cast_to(I, fname, b, cb) : NULL;
        if (!y) {
            d2_decref(x);
            goto done;
        }
    }
    r = op2(I, fname, op, x, y, NULL);
    d2_decref(x);
    d2_decref(y);
done:
    d2_decref(ta);
    d2_decref(tb);
    return r;
}

static d2_op_id binop_op(int op, bool *ok)
{
    *ok = true;
    switch (op) {
    case D2_OP_ADD: return D2_OP_add;
    case D2_OP_SUB: return D2_OP_subtract;
    case D2_OP_MULT: return D2_OP_multiply;
    case D2_OP_DIV: return D2_OP_divide;
    case D2_OP_FLOOR_DIV: return D2_OP_floor_divide;
    case D2_OP_MOD: return D2_OP_remainder;
    case D2_OP_POW: return D2_OP_pow;
    case D2_OP_MAT_MULT: return D2_OP_matmul;
    case D2_OP_BIT_AND: return D2_OP_logical_and;
    case D2_OP_BIT_OR: return D2_OP_logical_or;
    case D2_OP_BIT_XOR: return D2_OP_logical_xor;
    default: *ok = false; return D2_OP_add;
    }
}

static const char *binop_sym(int op)
{
    static const char *s[] = {"+", "-", "*", "@", "/", "%", "**", "<<", ">>", "|", "^", "&", "//"};
    return op >= 0 && op < (int)D2_COUNTOF(s) ? s[op] : "?";
}

static bool operand_ok(d2_obj *o)
{
    return is_tensor(o) || is_number(o) || is_ndarray(o) || is_seq(o);
}

d2_obj *d2_pd_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    bool ok;
    d2_op_id id = binop_op(op, &ok);
    if (!ok || !operand_ok(a) || !operand_ok(b) || (!is_tensor(a) && !is_tensor(b)))
        return d2_raise(I, "TypeError", "unsupported operand type(s) for %s: '%s' and '%s'",
                        binop_sym(op), d2_type_name(a), d2_type_name(b));
    char fname[48];
    snprintf(fname, sizeof fname, "Tensor.__%s__", d2_op_def(id)->name);
    if (id == D2_OP_matmul) {
        d2_obj *ta = as_tensor(I, a, -1, "Tensor.__matmul__");
        d2_obj *tb = ta ? as_tensor(I, b, -1, "Tensor.__matmul__") : NULL;
        d2_obj *r = tb ? op2(I, "Tensor.__matmul__", D2_OP_matmul, ta, tb, NULL) : NULL;
        d2_decref(ta);
        d2_decref(tb);
        return r;
    }
    if (kind_of(id) == BK_LOGIC) {
        d2_obj *t = is_tensor(a) ? a : b;
        if (obj_type(t)->dtype != D2_BOOL)
            return d2_raise(I, "TypeError",
                            "Tensor operator %s: only bool tensors support &, | and ^ (got %s)",
                            binop_sym(op), dtname(obj_type(t)->dtype));
    }
    return binary(I, fname, id, a, b, false);
}

d2_obj *d2_pd_compare(d2_interp *I, int cmpop, d2_obj *a, d2_obj *b)
{
    d2_op_id id;
    switch (cmpop) {
    case D2_CMP_EQ: id = D2_OP_equal; break;
    case D2_CMP_NOT_EQ: id = D2_OP_not_equal; break;
    case D2_CMP_LT: id = D2_OP_less_than; break;
    case D2_CMP_LT_E: id = D2_OP_less_equal; break;
    case D2_CMP_GT: id = D2_OP_greater_than; break;
    case D2_CMP_GT_E: id = D2_OP_greater_equal; break;
    default: return d2_raise(I, "TypeError", "unsupported comparison for Tensor");
    }
    if (!operand_ok(a) || !operand_ok(b)) {
        if (id == D2_OP_equal || id == D2_OP_not_equal)
            return d2_bool(I, (id == D2_OP_not_equal) ^ (a == b));
        return d2_raise(I, "TypeError", "'%s' not supported between instances of '%s' and '%s'",
                        cmpop == D2_CMP_LT     ? "<"
                        : cmpop == D2_CMP_LT_E ? "<="
                        : cmpop == D2_CMP_GT   ? ">"
                                               : ">=",
                        d2_type_name(a), d2_type_name(b));
    }
    char fname[48];
    snprintf(fname, sizeof fname, "Tensor.__%s__", d2_op_def(id)->name);
    return binary(I, fname, id, a, b, false);
}

d2_obj *d2_pd_unaryop(d2_interp *I, int op, d2_obj *a)
{
    if (!is_tensor(a))
        return d2_raise(I, "TypeError", "bad operand type for unary operator: '%s'",
                        d2_type_name(a));
    switch (op) {
    case D2_UNARY_USUB: return op1(I, "Tensor.__neg__", D2_OP_neg, a, NULL);
    case D2_UNARY_UADD: return d2_incref(a);
    case D2_UNARY_INVERT:
        if (obj_type(a)->dtype != D2_BOOL)
            return d2_raise(I, "TypeError",
                            "Tensor.__invert__: only bool tensors support ~ (got %s)",
                            dtname(obj_type(a)->dtype));
        return op1(I, "Tensor.__invert__", D2_OP_logical_not, a, NULL);
    case D2_UNARY_NOT: {
        int v = d2_pd_truth(I, a);
        return v < 0 ? NULL : d2_bool(I, !v);
    }
    default: return d2_raise(I, "TypeError", "bad operand type for unary operator: 'Tensor'");
    }
}

int d2_pd_truth(d2_interp *I, d2_obj *t)
{
    if (is_sym(t)) {
        d2_raise(
            I, "TypeError",
            "the truth value of a symbolic tensor is unknown while building a static program; "
            "use it as the condition of an if/while that dy2st converts, or paddle.static.nn.cond");
        return -1;
    }
    if (D2_MODE(I)->tracer)
        trace_frozen(I, t, D2_FREEZE_BOOL);
    d2_tensor *h = d2_pd_host(I, t, "bool(Tensor)");
    if (!h)
        return -1;
    int64_t n = d2_tensor_numel(h);
    int rc;
    if (n != 1) {
        d2_raise(I, "ValueError",
                 "The truth value of a Tensor with %lld elements is ambiguous; use .any() or "
                 ".all()",
                 (long long)n);
        rc = -1;
    } else {
        rc = d2_tensor_get_f64(h, 0) != 0;
    }
    d2_tensor_unref(h);
    return rc;
}

/* ======================================================================
 * Printing tensors the way Paddle does (paddle/tensor/to_string.py)
 * ====================================================================== */

enum { PD_PRECISION = 8, PD_THRESHOLD = 1000, PD_EDGE = 3, PD_LINEWIDTH = 80 };

/* One element without padding (_format_item with max_width 0). */
static void pd_item(d2_buf *b, const d2_tensor *t, int64_t i)
{
    if (d2_dtype_is_float(t->dtype)) {
        double v = d2_tensor_get_f64(t, i);
        if (isnan(v))
            d2_buf_puts(b, "nan");
        else if (ceil(v) == v)
            d2_buf_printf(b, "%.0f.", v);
        else
            d2_buf_printf(b, "%.*f", PD_PRECISION, v);
    } else if (t->dtype == D2_BOOL) {
        d2_buf_puts(b, d2_tensor_get_i64(t, i) ? "True" : "False");
    } else {
        d2_buf_printf(b, "%" PRId64, d2_tensor_get_i64(t, i));
    }
}

static int pd_item_width(const d2_tensor *t, int64_t i)
{
    d2_buf b;
    d2_buf_init(&b);
    pd_item(&b, t, i);
    int w = (int)b.len;
    d2_buf_free(&b);
    return w;
}

static void pd_item_padded(d2_buf *b, const d2_tensor *t, int64_t i, int maxw, bool sgn)
{
    size_t start = b->len;
    pd_item(b, t, i);
    int len = (int)(b->len - start);
    if (maxw <= len)
        return;
    bool neg = d2_tensor_get_f64(t, i) < 0;
    if (sgn && !neg) {
        /* ' ' + item.ljust(maxw - 1) */
        d2_buf_puts(b, " ");
        memmove(b->data + start + 1, b->data + start, (size_t)len);
        b->data[start] = ' ';
        len++;
    }
    for (; len < maxw; len++)
        d2_buf_puts(b, " ");
}

/* Visits the elements _to_summary keeps (the first and last PD_EDGE along
 * every dim longer than 2 * PD_EDGE) to find the widest item and a sign. */
static void pd_width_rec(const d2_tensor *t, int dim, int64_t off, int *maxw, bool *sgn)
{
    if (dim == t->ndim) {
        int w = pd_item_width(t, off);
        if (w > *maxw)
            *maxw = w;
        if (t->dtype != D2_BOOL && d2_tensor_get_f64(t, off) < 0)
            *sgn = true;
        return;
    }
    int64_t n = t->shape[dim], stride = 1;
    for (int d = dim + 1; d < t->ndim; d++)
        stride *= t->shape[d];
    for (int64_t k = 0; k < n; k++) {
        if (n > 2 * PD_EDGE && k == PD_EDGE)
            k = n - PD_EDGE;
        pd_width_rec(t, dim + 1, off + k * stride, maxw, sgn);
    }
}

static void pd_format_rec(d2_buf *b, const d2_tensor *t, int dim, int64_t off, bool summary,
                          int indent, int maxw, bool sgn)
{
    int64_t n = t->shape[dim], stride = 1;
    for (int d = dim + 1; d < t->ndim; d++)
        stride *= t->shape[d];
    bool last = dim == t->ndim - 1;
    int per_line = (PD_LINEWIDTH - indent) / (maxw + 2);
    if (per_line < 1)
        per_line = 1;
    d2_buf_puts(b, "[");
    int64_t cnt = 0; /* entries written, "..." included */
    for (int64_t k = 0; k < n; k++, cnt++) {
        bool dots = summary && n > 2 * PD_EDGE && k == PD_EDGE;
        if (cnt > 0) {
            if (last && cnt % per_line != 0) {
                d2_buf_puts(b, ", ");
            } else {
                d2_buf_puts(b, ",");
                for (int s = 0; s < (last ? 1 : t->ndim - dim - 1); s++)
                    d2_buf_puts(b, "\n");
                for (int s = 0; s < indent + 1; s++)
                    d2_buf_puts(b, " ");
            }
        }
        if (dots) {
            d2_buf_puts(b, "...");
            k = n - PD_EDGE - 1;
            continue;
        }
        if (last)
            pd_item_padded(b, t, off + k * stride, maxw, sgn);
        else
            pd_format_rec(b, t, dim + 1, off + k * stride, summary, indent + 1, maxw, sgn);
    }
    d2_buf_puts(b, "]");
}

static void shape_list_str(d2_buf *b, const d2_shape *s)
{
    d2_buf_puts(b, "[");
    for (int i = 0; i < s->ndim; i++)
        d2_buf_printf(b, "%s%" PRId64, i ? ", " : "", s->dims[i]);
    d2_buf_puts(b, "]");
}

/* Paddle's str(tensor); for symbolic tensors a one-line description. */
static d2_obj *tensor_to_string(d2_interp *I, d2_obj *o)
{
    d2_tensor_obj *to = TOBJ(o);
    d2_buf b;
    d2_buf_init(&b);
    if (!to->t && D2_MODE(I)->up.static_var_text && D2_MODE(I)->up.static_var_text(I, o, &b)) {
        /* a Variable of a Program built by hand: Paddle's text */
    } else if (!to->t) {
        d2_buf_puts(&b, "Tensor(shape=");
        shape_list_str(&b, &to->type.shape);
        d2_buf_printf(&b, ", dtype=%s, symbolic, var=%s)", dtname(to->type.dtype),
                      to->builder ? to->builder->prog->vars[to->var].name : "?");
    } else {
        d2_tensor *h = d2_pd_host(I, o, "Tensor.__str__");
        if (!h) {
            d2_buf_free(&b);
            return NULL;
        }
        if (to->persistable)
            d2_buf_puts(&b, "Parameter containing:\n");
        d2_buf_puts(&b, "Tensor(shape=");
        d2_shape s;
        d2_tensor_get_shape(h, &s);
        shape_list_str(&b, &s);
        d2_buf_printf(&b, ", dtype=%s, place=Place(cpu), stop_gradient=%s,\n       ",
                      dtname(h->dtype), to->stop_gradient ? "True" : "False");
        int64_t n = d2_tensor_numel(h);
        int maxw = 0;
        bool sgn = false;
        if (n > 0)
            pd_width_rec(h, 0, 0, &maxw, &sgn);
        if (h->ndim == 0)
            pd_item_padded(&b, h, 0, maxw, sgn);
        else
            pd_format_rec(&b, h, 0, 0, n > PD_THRESHOLD, 7, maxw, sgn);
        d2_buf_puts(&b, ")");
        d2_tensor_unref(h);
    }
    if (b.oom) {
        d2_buf_free(&b);
        return nomem(I);
    }
    d2_obj *r = d2_str_new(I, b.data ? b.data : "", b.len);
    d2_buf_free(&b);
    return r;
}

/* ======================================================================
 * Indexing: x[key] and x[key] = v
 * ====================================================================== */

enum { IX_INT, IX_SLICE, IX_NONE, IX_TENSOR, IX_FULL };

typedef struct ix_item {
    int kind;
    int64_t start, stop, step; /* IX_INT: start; IX_SLICE: all three (sentinels for None) */
    d2_obj *index;             /* IX_TENSOR: owned int tensor */
} ix_item;

typedef struct ix_plan {
    ix_item it[2 * D2_MAX_DIMS + 2];
    int n;
} ix_plan;

static void ix_free(ix_plan *p)
{
    for (int i = 0; i < p->n; i++)
        d2_decref(p->it[i].index);
    p->n = 0;
}

/* Reads a slice bound: None, an int, or a one-element concrete int tensor. */
static int slice_bound(d2_interp *I, d2_obj *o, bool *none, int64_t *v)
{
    *none = is_none(I, o);
    if (*none)
        return 0;
    if (is_sym(o)) {
        d2_raise(I, "TypeError",
                 "Tensor.__getitem__: slice bounds must be Python ints; a symbolic tensor bound is "
                 "not supported (use paddle.slice or paddle.gather)");
        return -1;
    }
    return get_int(I, o, "Tensor.__getitem__", "a slice bound", v);
}

/* Turns key into a list of index items over x's dims (Ellipsis expanded). */
static int ix_parse(d2_interp *I, const d2_shape *xs, d2_obj *key, ix_plan *p, const char *fname)
{
    p->n = 0;
    d2_obj *single[1] = {key};
    d2_obj **items = single;
    size_t n = 1;
    if (key->kind == D2_OBJ_TUPLE) {
        items = D2_AS(d2_tuple, key)->items;
        n = D2_AS(d2_tuple, key)->n;
    }
    int consumed = 0, ellipsis = -1;
    for (size_t i = 0; i < n; i++) {
        d2_obj *o = items[i];
        if (o->kind == D2_OBJ_ELLIPSIS) {
            if (ellipsis >= 0) {
                d2_raise(I, "IndexError", "%s: an index can only have a single ellipsis ('...')",
                         fname);
                return -1;
            }
            ellipsis = (int)i;
        } else if (!is_none(I, o)) {
            consumed++;
        }
    }
    if (consumed > xs->ndim) {
        d2_raise(I, "IndexError", "%s: too many indices for a tensor of dimension %d (got %d)",
                 fname, xs->ndim, consumed);
        return -1;
    }
    p->n = 0;
    int d = 0;
    for (size_t i = 0; i < n; i++) {
        d2_obj *o = items[i];
        if ((int)i == ellipsis) {
            for (int k = 0; k < xs->ndim - consumed; k++) {
                p->it[p->n].kind = IX_FULL;
                p->it[p->n++].index = NULL;
                d++;
            }
            continue;
        }
        ix_item *it = &p->it[p->n];
        memset(it, 0, sizeof *it);
        if (is_none(I, o)) {
            it->kind = IX_NONE;
            p->n++;
            continue;
        }
        if (is_int(o) ||
            (is_ndarray(o) && NDA(o)->t->ndim == 0 && d2_dtype_is_int(NDA(o)->t->dtype))) {
            int64_t v;
            if (get_int(I, o, fname, "an index", &v) < 0)
                return -1;
            int64_t dim = xs->dims[d];
            if (dim >= 0 && (v >= dim || v < -dim)) {
                d2_raise(I, "IndexError",
                         "%s: index %lld is out of bounds for axis %d with size %lld", fname,
                         (long long)v, d, (long long)dim);
                return -1;
            }
            if (dim >= 0 && v < 0)
                v += dim;
            it->kind = IX_INT;
            it->start = v;
        } else if (o->kind == D2_OBJ_SLICE) {
            d2_slice *sl = D2_AS(d2_slice, o);
            bool n0, n1, n2;
            int64_t a = 0, b = 0, st = 1;
            if (slice_bound(I, sl->step, &n2, &st) < 0 || slice_bound(I, sl->start, &n0, &a) < 0 ||
                slice_bound(I, sl->stop, &n1, &b) < 0)
                return -1;
            if (n2)
                st = 1;
            if (st == 0) {
                d2_raise(I, "ValueError", "%s: slice step cannot be zero", fname);
                return -1;
            }
            it->kind = n0 && n1 && st == 1 ? IX_FULL : IX_SLICE;
            it->step = st;
            it->start = n0 ? (st > 0 ? 0 : INT64_MAX) : a;
            it->stop = n1 ? (st > 0 ? INT64_MAX : INT64_MIN) : b;
        } else if (is_tensor(o) || is_ndarray(o) || is_seq(o)) {
            d2_obj *t = as_tensor(I, o, -1, fname);
            if (!t)
                return -1;
            const d2_type *ty = obj_type(t);
            if (ty->dtype == D2_BOOL) {
                d2_decref(t);
                d2_raise(I, "IndexError",
                         "%s: boolean mask indexing is not supported; use paddle.masked_select or "
                         "paddle.where",
                         fname);
                return -1;
            }
            if (!d2_dtype_is_int(ty->dtype) || ty->shape.ndim > 1) {
                d2_decref(t);
                d2_raise(
                    I, "IndexError",
                    "%s: a tensor index must be a 0-D or 1-D int32/int64 tensor (got %s, %d-D)",
                    fname, dtname(ty->dtype), ty->shape.ndim);
                return -1;
            }
            it->kind = IX_TENSOR;
            it->index = t;
        } else {
            d2_raise(I, "IndexError",
                     "%s: only integers, slices (':'), ellipsis ('...'), None and integer tensors "
                     "are valid indices (got %s)",
                     fname, d2_type_name(o));
            return -1;
        }
        p->n++;
        d++;
    }
    return 0;
}

/* A boolean mask key of exactly x's shape (tensor, ndarray or nested list of
 * bools); *m receives a host copy. 1 when it is one, 0 when not, -1 on error. */
static int bool_mask(d2_interp *I, d2_obj *key, const d2_shape *xs, const char *fname,
                     d2_tensor **m)
{
    *m = NULL;
    bool is_mask = (is_tensor(key) && obj_type(key)->dtype == D2_BOOL) ||
                   (is_ndarray(key) && NDA(key)->t->dtype == D2_BOOL);
    if (!is_mask)
        return 0;
    if (is_sym(key) || D2_MODE(I)->builder) {
        d2_raise(I, "IndexError",
                 "%s: boolean mask indexing is not supported inside to_static (the result's size "
                 "depends on the data); use paddle.where",
                 fname);
        return -1;
    }
    d2_tensor *h = d2_pd_host(I, key, fname);
    if (!h)
        return -1;
    d2_shape ms;
    d2_tensor_get_shape(h, &ms);
    if (!d2_shape_equal(&ms, xs)) {
        char a[128], b[128];
        d2_shape_str(&ms, a, sizeof a);
        d2_shape_str(xs, b, sizeof b);
        d2_tensor_unref(h);
        d2_raise(I, "IndexError", "%s: the boolean mask's shape %s does not match the tensor's %s",
                 fname, a, b);
        return -1;
    }
    *m = h;
    return 1;
}

/* x[mask] on the host: the selected elements as a 1-D tensor. */
static d2_obj *mask_select(d2_interp *I, d2_obj *x, d2_tensor *m, const char *fname)
{
    d2_tensor *h = d2_pd_host(I, x, fname);
    if (!h)
        return NULL;
    int64_t n = d2_tensor_numel(h), k = 0;
    for (int64_t i = 0; i < n; i++)
        k += d2_tensor_get_i64(m, i) != 0;
    d2_err err = {0};
    d2_tensor *r = d2_tensor_new(NULL, h->dtype, 1, &k, &err);
    if (r) {
        size_t es = d2_dtype_size(h->dtype);
        char *dst = d2_tensor_data(r);
        const char *src = d2_tensor_data(h);
        for (int64_t i = 0, j = 0; i < n; i++)
            if (d2_tensor_get_i64(m, i))
                memcpy(dst + es * (size_t)j++, src + es * (size_t)i, es);
    }
    d2_tensor_unref(h);
    if (!r)
        return d2_raise_err(I, &err);
    return wrap_host(I, r);
}

/* x[mask] = v on the host: v is a scalar / one element, or one value per
 * selected element. Replaces x's data. */
static int mask_assign(d2_interp *I, d2_obj *x, d2_tensor *m, d2_obj *v, const char *fname)
{
    d2_tensor *h = d2_pd_host(I, x, fname);
    if (!h)
        return -1;
    d2_err err = {0};
    d2_tensor *w = d2_tensor_copy_to(h, NULL, &err);
    d2_tensor_unref(h);
    if (!w) {
        d2_raise_err(I, &err);
        return -1;
    }
    d2_tensor *val = d2_pd_from_py(I, v, w->dtype, D2_F32, fname);
    if (!val) {
        d2_tensor_unref(w);
        return -1;
    }
    int64_t n = d2_tensor_numel(w), nv = d2_tensor_numel(val), cnt = 0;
    for (int64_t i = 0; i < n; i++)
        cnt += d2_tensor_get_i64(m, i) != 0;
    int rc = -1;
    if (nv != 1 && nv != cnt) {
        d2_raise(I, "ValueError",
                 "%s: cannot assign %lld values to the %lld elements the mask selects", fname,
                 (long long)nv, (long long)cnt);
    } else {
        size_t es = d2_dtype_size(w->dtype);
        char *dst = d2_tensor_data(w);
        const char *src = d2_tensor_data(val);
        for (int64_t i = 0, j = 0; i < n; i++)
            if (d2_tensor_get_i64(m, i)) {
                memcpy(dst + es * (size_t)i, src + es * (size_t)(nv == 1 ? 0 : j), es);
                j++;
            }
        d2_tensor *nt = to_backend(I, w);
        w = NULL;
        if (nt) {
            d2_tensor_unref(TOBJ(x)->t);
            TOBJ(x)->t = nt;
            rc = 0;
        }
    }
    if (w)
        d2_tensor_unref(w);
    d2_tensor_unref(val);
    return rc;
}

static d2_obj *getitem_impl(d2_interp *I, d2_obj *x, d2_obj *key, const char *fname)
{
    d2_tensor *mask;
    int mk = bool_mask(I, key, &obj_type(x)->shape, fname, &mask);
    if (mk != 0) {
        d2_obj *r = mk > 0 ? mask_select(I, x, mask, fname) : NULL;
        if (mask)
            d2_tensor_unref(mask);
        return r;
    }
    const d2_shape *xs = &obj_type(x)->shape;
    if (xs->ndim == 0 && !(key->kind == D2_OBJ_ELLIPSIS || is_none(I, key)))
        return d2_raise(I, "IndexError", "%s: a 0-D tensor cannot be indexed", fname);
    ix_plan p;
    if (ix_parse(I, xs, key, &p, fname) < 0) {
        ix_free(&p);
        return NULL;
    }
    int64_t axes[D2_MAX_DIMS], starts[D2_MAX_DIMS], ends[D2_MAX_DIMS], strides[D2_MAX_DIMS],
        dec[D2_MAX_DIMS], unsq[D2_MAX_DIMS * 2];
    int na = 0, nd = 0, nu = 0, d = 0, outpos = 0, n_tidx = 0, tidx_axis = 0;
    d2_obj *tidx = NULL;
    for (int i = 0; i < p.n; i++) {
        ix_item *it = &p.it[i];
        switch (it->kind) {
        case IX_NONE: unsq[nu++] = outpos++; continue;
        case IX_FULL: outpos++; break;
        case IX_INT:
            axes[na] = d;
            starts[na] = it->start;
            ends[na] = it->start == -1 ? INT64_MAX : it->start + 1;
            strides[na++] = 1;
            dec[nd++] = d;
            break;
        case IX_SLICE:
            axes[na] = d;
            starts[na] = it->start;
            ends[na] = it->stop;
            strides[na++] = it->step;
            outpos++;
            break;
        case IX_TENSOR:
            n_tidx++;
            tidx = it->index;
            tidx_axis = d - nd; /* position after the decreased dims are gone */
            if (obj_type(it->index)->shape.ndim == 1)
                outpos++;
            break;
        }
        d++;
    }
    d2_obj *cur = d2_incref(x);
    if (n_tidx > 1) {
        ix_free(&p);
        d2_decref(cur);
        return d2_raise(I, "IndexError",
                        "%s: only one tensor index per subscript is supported (got %d)", fname,
                        n_tidx);
    }
    if (na > 0) {
        ab b;
        ab_init(&b, D2_OP_slice);
        ab_ints(&b, "axes", axes, na);
        ab_ints(&b, "starts", starts, na);
        ab_ints(&b, "ends", ends, na);
        ab_ints(&b, "strides", strides, na);
        ab_ints(&b, "decrease_axis", dec, nd);
        d2_obj *r = op1(I, fname, D2_OP_slice, cur, &b);
        d2_decref(cur);
        cur = r;
    }
    if (cur && tidx) {
        ab b;
        ab_init(&b, D2_OP_gather);
        ab_int(&b, "axis", tidx_axis);
        d2_obj *r = op2(I, fname, D2_OP_gather, cur, tidx, &b);
        d2_decref(cur);
        cur = r;
    }
    if (cur && nu > 0) {
        ab b;
        ab_init(&b, D2_OP_unsqueeze);
        ab_ints(&b, "axis", unsq, nu);
        d2_obj *r = op1(I, fname, D2_OP_unsqueeze, cur, &b);
        d2_decref(cur);
        cur = r;
    }
    ix_free(&p);
    return cur;
}

/* Host-side x[key] = v for int/slice/ellipsis/None keys and one int tensor
 * index; replaces x's data with the updated copy. */
static int setitem_impl(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v, const char *fname)
{
    if (is_sym(x) || (is_tensor(v) && is_sym(v)) || D2_MODE(I)->builder) {
        d2_raise(I, "TypeError",
                 "%s: assigning into a tensor is not supported inside to_static; build the new "
                 "value with paddle.where or paddle.concat instead",
                 fname);
        return -1;
    }
    d2_tensor *mask;
    int mk = bool_mask(I, key, &obj_type(x)->shape, fname, &mask);
    if (mk != 0) {
        int r = mk > 0 ? mask_assign(I, x, mask, v, fname) : -1;
        if (mask)
            d2_tensor_unref(mask);
        return r;
    }
    d2_tensor *h = d2_pd_host(I, x, fname);
    if (!h)
        return -1;
    d2_err err = {0};
    d2_tensor *w = d2_tensor_copy_to(h, NULL, &err);
    d2_tensor_unref(h);
    if (!w) {
        d2_raise_err(I, &err);
        return -1;
    }
    d2_shape xs;
    d2_tensor_get_shape(w, &xs);
    ix_plan p;
    int rc = -1;
    d2_tensor *val = NULL;
    d2_tensor *list[D2_MAX_DIMS] = {NULL}; /* explicit index lists per dim (owned) */
    if (ix_parse(I, &xs, key, &p, fname) < 0)
        goto done;
    /* per input dim: start, step, count, or an explicit index list */
    int64_t start[D2_MAX_DIMS], step[D2_MAX_DIMS], count[D2_MAX_DIMS];
    int64_t rshape[D2_MAX_DIMS];
    int region[D2_MAX_DIMS]; /* input dim -> dim of the selection, -1 when indexed away */
    int rn = 0, d = 0;
    for (int i = 0; i < p.n; i++) {
        ix_item *it = &p.it[i];
        if (it->kind == IX_NONE)
            continue;
        int64_t dim = xs.dims[d];
        region[d] = it->kind == IX_INT ? -1 : rn;
        start[d] = 0;
        step[d] = 1;
        count[d] = dim;
        if (it->kind == IX_INT) {
            start[d] = it->start < 0 ? it->start + dim : it->start;
            count[d] = 1;
        } else if (it->kind == IX_SLICE) {
            int64_t st = it->step, a = it->start, b = it->stop;
            if (a < 0) {
                a += dim;
                if (a < 0)
                    a = st < 0 ? -1 : 0;
            } else if (a >= dim)
                a = st < 0 ? dim - 1 : dim;
            if (b < 0) {
                b += dim;
                if (b < 0)
                    b = st < 0 ? -1 : 0;
            } else if (b >= dim)
                b = st < 0 ? dim - 1 : dim;
            int64_t diff = st > 0 ? (b > a ? b - a : 0) : (a > b ? a - b : 0);
            int64_t ust = st > 0 ? st : -st;
            start[d] = a;
            step[d] = st;
            count[d] = diff / ust + (diff % ust != 0);
            rshape[rn++] = count[d];
        } else if (it->kind == IX_TENSOR) {
            list[d] = d2_pd_host(I, it->index, fname);
            if (!list[d])
                goto done;
            count[d] = d2_tensor_numel(list[d]);
            for (int64_t k = 0; k < count[d]; k++) {
                int64_t iv = d2_tensor_get_i64(list[d], k);
                if (iv < -dim || iv >= dim) {
                    d2_raise(I, "IndexError",
                             "%s: index %lld is out of bounds for axis %d with size %lld", fname,
                             (long long)iv, d, (long long)dim);
                    goto done;
                }
            }
            if (list[d]->ndim == 1)
                rshape[rn++] = count[d];
            else
                region[d] = -1;
        } else {
            rshape[rn++] = dim;
        }
        d++;
    }
    for (; d < xs.ndim; d++) {
        start[d] = 0;
        step[d] = 1;
        count[d] = xs.dims[d];
        region[d] = rn;
        rshape[rn++] = xs.dims[d];
    }
    val = d2_pd_from_py(I, v, w->dtype, D2_F32, fname);
    if (!val)
        goto done;
    /* numpy broadcast of val's shape to the region shape */
    if (val->ndim > rn) {
        int extra = val->ndim - rn;
        for (int k = 0; k < extra; k++)
            if (val->shape[k] != 1) {
                d2_raise(I, "ValueError", "%s: cannot assign a value of %d dims into %d dims",
                         fname, val->ndim, rn);
                goto done;
            }
    }
    int64_t vstr[D2_MAX_DIMS];
    {
        int64_t s = 1;
        for (int k = rn - 1; k >= 0; k--) {
            int vk = val->ndim - rn + k;
            int64_t vd = vk >= 0 ? val->shape[vk] : 1;
            if (vd != 1 && vd != rshape[k]) {
                d2_raise(I, "ValueError",
                         "%s: could not broadcast a value of shape dim %lld into the selection of "
                         "size %lld",
                         fname, (long long)vd, (long long)rshape[k]);
                goto done;
            }
            vstr[k] = vd == 1 ? 0 : s;
            s *= vd;
        }
    }
    int64_t xstr[D2_MAX_DIMS];
    d2_contiguous_strides(xs.ndim, xs.dims, xstr);
    int64_t total = 1;
    for (int k = 0; k < xs.ndim; k++)
        total *= count[k];
    size_t es = d2_dtype_size(w->dtype);
    char *wd = d2_tensor_data(w);
    const char *vd = d2_tensor_data(val);
    int64_t idx[D2_MAX_DIMS] = {0};
    for (int64_t e = 0; e < total; e++) {
        int64_t off = 0, voff = 0;
        for (int k = 0; k < xs.ndim; k++) {
            int64_t pos;
            if (list[k]) {
                pos = d2_tensor_get_i64(list[k], idx[k]);
                if (pos < 0)
                    pos += xs.dims[k];
            } else {
                pos = start[k] + idx[k] * step[k];
            }
            off += pos * xstr[k];
            if (region[k] >= 0)
                voff += idx[k] * vstr[region[k]];
        }
        memcpy(wd + off * (int64_t)es, vd + voff * (int64_t)es, es);
        for (int k = xs.ndim - 1; k >= 0; k--) {
            if (++idx[k] < count[k])
                break;
            idx[k] = 0;
        }
    }
    {
        d2_tensor *nt = to_backend(I, w);
        w = NULL;
        if (!nt)
            goto done;
        d2_tensor_unref(TOBJ(x)->t);
        TOBJ(x)->t = nt;
    }
    rc = 0;
done:
    for (int k = 0; k < D2_MAX_DIMS; k++)
        if (list[k])
            d2_tensor_unref(list[k]);
    ix_free(&p);
    if (val)
        d2_tensor_unref(val);
    if (w)
        d2_tensor_unref(w);
    return rc;
}

static d2_obj *tensor_getitem(d2_interp *I, d2_obj *x, d2_obj *key)
{
    return getitem_impl(I, x, key, "Tensor.__getitem__");
}

static int tensor_setitem(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v)
{
    if (D2_MODE(I)->tracer)
        trace_frozen(I, x, D2_FREEZE_SETITEM);
    return setitem_impl(I, x, key, v, "Tensor.__setitem__");
}

/* ======================================================================
 * Table-driven bindings: one row per simple function
 * ====================================================================== */

/* X(cname, python name, op, parameters (d2_parse_args spec), map, where)
 *
 * map has one entry per parameter, in order:
 *   x        tensor input (a non-tensor converts with to_tensor; a Python
 *            number takes the dtype of the first tensor input)
 *   x?       optional tensor input (None: absent)
 *   xs       list/tuple of tensors: the variadic inputs
 *   idx      index tensor input (lists become int64)
 *   -        accepted and ignored
 *   cast     a dtype: input 0 is cast to it first when not None
 *   T:attr   attribute attr from the argument, T one of int, float, bool,
 *            str, ints, dtype, axes (None: [], int: [i]), shape (ints, or
 *            tensors inside: the op's shape input); None keeps the default
 * where: P paddle.NAME, M Tensor method, F paddle.nn.functional.NAME,
 *        B binary op (Paddle's dtype rules for two operands). */
#define W_P 1u
#define W_M 2u
#define W_F 4u
#define W_B 8u

#define UNARY(c, op, w) X(c, #c, op, "x, name=None", "x, -", w)
#define BINARY(c, op, w) X(c, #c, op, "x, y, name=None", "x, x, -", w | W_B)
#define REDUCE(c, op)                                                                              \
    X(c, #c, op, "x, axis=None, keepdim=False, name=None", "x, axes:axis, bool:keepdim, -",        \
      W_P | W_M)

#define PADDLE_BINDINGS(X)                                                                         \
    UNARY(exp, D2_OP_exp, W_P | W_M)                                                               \
    UNARY(log, D2_OP_log, W_P | W_M)                                                               \
    UNARY(sqrt, D2_OP_sqrt, W_P | W_M)                                                             \
    UNARY(rsqrt, D2_OP_rsqrt, W_P | W_M)                                                           \
    UNARY(reciprocal, D2_OP_reciprocal, W_P | W_M)                                                 \
    UNARY(floor, D2_OP_floor, W_P | W_M)                                                           \
    UNARY(ceil, D2_OP_ceil, W_P | W_M)                                                             \
    UNARY(sin, D2_OP_sin, W_P | W_M)                                                               \
    UNARY(cos, D2_OP_cos, W_P | W_M)                                                               \
    UNARY(tanh, D2_OP_tanh, W_P | W_M | W_F)                                                       \
    UNARY(sigmoid, D2_OP_sigmoid, W_P | W_M | W_F)                                                 \
    UNARY(abs, D2_OP_abs, W_P | W_M)                                                               \
    UNARY(neg, D2_OP_neg, W_P | W_M)                                                               \
    UNARY(sign, D2_OP_sign, W_P | W_M)                                                             \
    UNARY(square, D2_OP_square, W_P | W_M)                                                         \
    UNARY(relu, D2_OP_relu, W_P | W_F)                                                             \
    UNARY(silu, D2_OP_silu, W_F)                                                                   \
    UNARY(logical_not, D2_OP_logical_not, W_P | W_M)                                               \
    BINARY(add, D2_OP_add, W_P | W_M)                                                              \
    BINARY(subtract, D2_OP_subtract, W_P | W_M)                                                    \
    BINARY(multiply, D2_OP_multiply, W_P | W_M)                                                    \
    BINARY(divide, D2_OP_divide, W_P | W_M)                                                        \
    BINARY(floor_divide, D2_OP_floor_divide, W_P | W_M)                                            \
    BINARY(remainder, D2_OP_remainder, W_P | W_M)                                                  \
    BINARY(mod, D2_OP_remainder, W_P | W_M)                                                        \
    BINARY(floor_mod, D2_OP_remainder, W_P | W_M)                                                  \
    BINARY(pow, D2_OP_pow, W_P | W_M)                                                              \
    BINARY(maximum, D2_OP_maximum, W_P | W_M)                                                      \
    BINARY(minimum, D2_OP_minimum, W_P | W_M)                                                      \
    BINARY(equal, D2_OP_equal, W_P | W_M)                                                          \
    BINARY(not_equal, D2_OP_not_equal, W_P | W_M)                                                  \
    BINARY(less_than, D2_OP_less_than, W_P | W_M)                                                  \
    BINARY(less_equal, D2_OP_less_equal, W_P | W_M)                                                \
    BINARY(greater_than, D2_OP_greater_than, W_P | W_M)                                            \
    BINARY(greater_equal, D2_OP_greater_equal, W_P | W_M)                                          \
    BINARY(logical_and, D2_OP_logical_and, W_P | W_M)                                              \
    BINARY(logical_or, D2_OP_logical_or, W_P | W_M)                                                \
    BINARY(logical_xor, D2_OP_logical_xor, W_P | W_M)                                              \
    X(sum, "sum", D2_OP_sum, "x, axis=None, dtype=None, keepdim=False, name=None",                 \
      "x, axes:axis, dtype:dtype, bool:keepdim, -", W_P | W_M)                                     \
    REDUCE(mean, D2_OP_mean)                                                                       \
    REDUCE(max, D2_OP_max)                                                                         \
    REDUCE(min, D2_OP_min)                                                                         \
    REDUCE(amax, D2_OP_max)                                                                        \
    REDUCE(amin, D2_OP_min)                                                                        \
    REDUCE(any, D2_OP_any)                                                                         \
    REDUCE(all, D2_OP_all)                                                                         \
    X(prod, "prod", D2_OP_prod, "x, axis=None, keepdim=False, dtype=None, name=None",              \
      "x, axes:axis, bool:keepdim, cast, -", W_P | W_M)                                            \
    X(cast, "cast", D2_OP_cast, "x, dtype", "x, dtype:dtype", W_P | W_M)                           \
    X(astype, "astype", D2_OP_cast, "x, dtype", "x, dtype:dtype", W_M)                             \
    X(reshape, "reshape", D2_OP_reshape, "x, shape, name=None", "x, shape:shape, -", W_P | W_M)    \
    X(flatten, "flatten", D2_OP_flatten, "x, start_axis=0, stop_axis=-1, name=None",               \
      "x, int:start_axis, int:stop_axis, -", W_P | W_M)                                            \
    X(squeeze, "squeeze", D2_OP_squeeze, "x, axis=None, name=None", "x, axes:axis, -", W_P | W_M)  \
    X(unsqueeze, "unsqueeze", D2_OP_unsqueeze, "x, axis, name=None", "x, axes:axis, -", W_P | W_M) \
    X(transpose, "transpose", D2_OP_transpose, "x, perm, name=None", "x, ints:perm, -", W_P | W_M) \
    X(gather, "gather", D2_OP_gather, "x, index, axis=None, name=None", "x, idx, int:axis, -",     \
      W_P | W_M)                                                                                   \
    X(index_select, "index_select", D2_OP_index_select, "x, index, axis=0, name=None",             \
      "x, idx, int:axis, -", W_P | W_M)                                                            \
    X(expand, "expand", D2_OP_expand, "x, shape, name=None", "x, shape:shape, -", W_P | W_M)       \
    X(broadcast_to, "broadcast_to", D2_OP_expand, "x, shape, name=None", "x, shape:shape, -",      \
      W_P | W_M)                                                                                   \
    X(tile, "tile", D2_OP_tile, "x, repeat_times, name=None", "x, ints:repeat_times, -",           \
      W_P | W_M)                                                                                   \
    X(matmul, "matmul", D2_OP_matmul, "x, y, transpose_x=False, transpose_y=False, name=None",     \
      "x, x, bool:transpose_x, bool:transpose_y, -", W_P | W_M)                                    \
    X(mm, "mm", D2_OP_matmul, "input, mat2, name=None", "x, x, -", W_P | W_M)                      \
    X(bmm, "bmm", D2_OP_matmul, "x, y, name=None", "x, x, -", W_P | W_M)                           \
    X(clip, "clip", D2_OP_clip, "x, min=None, max=None, name=None", "x, float:min, float:max, -",  \
      W_P | W_M)                                                                                   \
    X(scale, "scale", D2_OP_scale,                                                                 \
      "x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None",                        \
      "x, float:scale, float:bias, bool:bias_after_scale, -, -", W_P | W_M)                        \
    X(shape, "shape", D2_OP_shape, "input", "x", W_P)                                              \
    X(numel, "numel", D2_OP_numel, "x, name=None", "x, -", W_P | W_M)                              \
    X(clone, "clone", D2_OP_assign, "x, name=None", "x, -", W_P | W_M)                             \
    X(softmax, "softmax", D2_OP_softmax, "x, axis=-1, dtype=None, name=None",                      \
      "x, int:axis, cast, -", W_F)                                                                 \
    X(log_softmax, "log_softmax", D2_OP_log_softmax, "x, axis=-1, dtype=None, name=None",          \
      "x, int:axis, cast, -", W_F)                                                                 \
    X(gelu, "gelu", D2_OP_gelu, "x, approximate=False, name=None", "x, bool:approximate, -", W_F)  \
    X(leaky_relu, "leaky_relu", D2_OP_leaky_relu, "x, negative_slope=0.01, name=None",             \
      "x, float:negative_slope, -", W_F)                                                           \
    X(linear, "linear", D2_OP_linear, "x, weight, bias=None, name=None", "x, x, x?, -", W_F)

typedef struct binding {
    d2_op_id op;
    const char *map;
    unsigned where;
} binding;

enum {
#define X(c, py, op, spec, map, w) BI_##c,
    PADDLE_BINDINGS(X)
#undef X
        BI_COUNT
};

static const binding BINDINGS[] = {
#define X(c, py, op, spec, map, w) {op, map, w},
    PADDLE_BINDINGS(X)
#undef X
};

/* Copies the next comma-separated map entry into buf; returns the rest. */
static const char *map_next(const char *m, char *buf, size_t cap)
{
    while (*m == ' ' || *m == ',')
        m++;
    size_t n = 0;
    while (*m && *m != ',') {
        if (*m != ' ' && n + 1 < cap)
            buf[n++] = *m;
        m++;
    }
    buf[n] = 0;
    return m;
}

/* In static mode, a shape list mixing ints and tensors leaves every dim of
 * the result open in inference; the ints are known, so the result's declared
 * type takes them (positive entries only: 0 and -1 mean "copy"/"infer"). */
static void refine_dims(d2_interp *I, d2_obj *out, const int64_t *dims, int n)
{
    if (!out || !is_sym(out) || n < 0 || !TOBJ(out)->builder)
        return;
    d2_tensor_obj *t = TOBJ(out);
    d2_var *v = &t->builder->prog->vars[t->var];
    if (v->type.shape.ndim != n)
        return;
    for (int k = 0; k < n; k++)
        if (dims[k] > 0 && v->type.shape.dims[k] < 0)
            v->type.shape.dims[k] = t->type.shape.dims[k] = dims[k];
    D2_UNUSED(I);
}

/* Builds the shape of reshape/expand/full: ints go to the attribute, a list
 * holding tensors (or a tensor) becomes the op's int64 shape input. *shape_in
 * receives a new reference or stays NULL. */
static int shape_arg(d2_interp *I, d2_obj *o, const char *fname, ab *b, d2_obj **shape_in,
                     int64_t *partial, int *n_partial)
{
    *shape_in = NULL;
    *n_partial = -1;
    bool has_sym = false;
    if (is_tensor(o)) {
        if (!d2_dtype_is_int(obj_type(o)->dtype) || obj_type(o)->shape.ndim != 1) {
            d2_raise(I, "TypeError", "%s: shape must be a list of ints or a 1-D int tensor", fname);
            return -1;
        }
        if (is_sym(o)) {
            *shape_in = cast_to(I, fname, o, D2_I64);
            return *shape_in ? 0 : -1;
        }
    } else if (is_seq(o)) {
        for (size_t i = 0; i < seq_len(o); i++)
            if (is_sym(seq_item(o, i)))
                has_sym = true;
    }
    if (!has_sym) {
        int64_t v[D2_MAX_DIMS];
        int n;
        if (d2_pd_ints(I, o, fname, "shape", v, &n, D2_MAX_DIMS) < 0)
            return -1;
        ab_ints(b, "shape", v, n);
        return 0;
    }
    /* a list mixing ints and (symbolic) tensors: concat the pieces as int64 */
    size_t n = seq_len(o);
    d2_obj *parts[D2_MAX_DIMS] = {NULL};
    int rc = -1;
    if (n > D2_MAX_DIMS) {
        d2_raise(I, "ValueError", "%s: shape has %zu dims, at most %d", fname, n, D2_MAX_DIMS);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        d2_obj *it = seq_item(o, i);
        partial[i] = -1;
        if (is_tensor(it)) {
            if (!d2_dtype_is_int(obj_type(it)->dtype) || obj_type(it)->shape.ndim > 1) {
                d2_raise(I, "TypeError",
                         "%s: shape[%zu] must be an int or a one-element int tensor", fname, i);
                goto done;
            }
            d2_obj *c = cast_to(I, fname, it, D2_I64);
            if (!c)
                goto done;
            ab rb;
            ab_init(&rb, D2_OP_reshape);
            int64_t one = 1;
            ab_ints(&rb, "shape", &one, 1);
            parts[i] = op1(I, fname, D2_OP_reshape, c, &rb);
            d2_decref(c);
        } else {
            int64_t v;
            if (get_int(I, it, fname, "a shape entry", &v) < 0)
                goto done;
            partial[i] = v;
            ab fb;
            ab_init(&fb, D2_OP_full);
            int64_t one = 1;
            ab_ints(&fb, "shape", &one, 1);
            ab_float(&fb, "value", (double)v);
            ab_int(&fb, "dtype", D2_I64);
            parts[i] = opn(I, fname, D2_OP_full, NULL, 0, &fb);
        }
        if (!parts[i])
            goto done;
    }
    {
        ab cb;
        ab_init(&cb, D2_OP_concat);
        *shape_in = opn(I, fname, D2_OP_concat, parts, (int)n, &cb);
        rc = *shape_in ? 0 : -1;
        *n_partial = (int)n;
    }
done:
    for (size_t i = 0; i < n; i++)
        d2_decref(parts[i]);
    return rc;
}

/* Axis-list argument: None (all), an int, or a list/tuple of ints. */
static int axes_arg(d2_interp *I, d2_obj *o, const char *fname, const char *what, ab *b,
                    const char *attr)
{
    int64_t v[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, o, fname, what, v, &n, D2_MAX_DIMS) < 0)
        return -1;
    ab_ints(b, attr, v, n);
    return 0;
}

/* The body of every row: def->data is the binding, a[] the arguments (the
 * receiver first for a Tensor method), def->qualname the name in messages. */
D2_FN(bind_call)
{
    const binding *bd = def->data;
    const char *fname = def->qualname;
    d2_obj *r = NULL;
    if (bd->where & W_B)
        return binary(I, fname, bd->op, a[0], a[1], true);
    ab b;
    ab_init(&b, bd->op);
    d2_obj *in[D2_MAX_PORTS + 1] = {NULL};
    d2_obj **vin = NULL; /* variadic inputs (owned refs) */
    int n_in = 0, n_vin = 0;
    int dt_hint = -1, cast_dt = -1;
    int64_t partial[D2_MAX_DIMS];
    int n_partial = -1;
    const char *m = bd->map;
    char e[64];
    bool fail = false;
    for (int i = 0; !fail; i++) {
        m = map_next(m, e, sizeof e);
        if (!e[0])
            break;
        d2_obj *o = a[i];
        bool none = is_none(I, o);
        if (strcmp(e, "x") == 0 || strcmp(e, "x?") == 0 || strcmp(e, "idx") == 0) {
            if (none && e[1] == '?') {
                in[n_in++] = NULL;
                continue;
            }
            if (none) {
                d2_raise(I, "TypeError", "%s: argument %d must be a Tensor, got None", fname,
                         i + 1);
                fail = true;
                break;
            }
            in[n_in] = e[0] == 'i' ? as_tensor(I, o, -1, fname)
                                   : as_tensor(I, o, is_number(o) ? dt_hint : -1, fname);
            if (!in[n_in]) {
                fail = true;
                break;
            }
            if (dt_hint < 0 && is_tensor(o))
                dt_hint = obj_type(o)->dtype;
            n_in++;
        } else if (strcmp(e, "xs") == 0) {
            if (!is_seq(o) || seq_len(o) == 0) {
                d2_raise(I, "TypeError",
                         "%s: x must be a non-empty list or tuple of Tensors, got %s", fname,
                         none ? "None" : d2_type_name(o));
                fail = true;
                break;
            }
            n_vin = (int)seq_len(o);
            vin = d2_calloc((size_t)n_vin, sizeof *vin);
            if (!vin) {
                nomem(I);
                fail = true;
                break;
            }
            for (int k = 0; k < n_vin && !fail; k++) {
                d2_obj *it = seq_item(o, (size_t)k);
                vin[k] = as_tensor(I, it, -1, fname);
                fail = !vin[k];
            }
        } else if (strcmp(e, "-") == 0) {
        } else if (strcmp(e, "cast") == 0) {
            if (d2_pd_parse_dtype(I, o, fname, false, &cast_dt) < 0)
                fail = true;
        } else {
            char *colon = strchr(e, ':');
            const char *attr = colon ? colon + 1 : e;
            if (colon)
                *colon = 0;
            if (none)
                continue;
            if (strcmp(e, "int") == 0) {
                int64_t v;
                fail = get_int(I, o, fname, attr, &v) < 0;
                ab_int(&b, attr, v);
            } else if (strcmp(e, "float") == 0) {
                double v;
                fail = get_float(I, o, fname, attr, &v) < 0;
                ab_float(&b, attr, v);
            } else if (strcmp(e, "bool") == 0) {
                bool v;
                fail = get_bool(I, o, fname, attr, &v) < 0;
                ab_bool(&b, attr, v);
            } else if (strcmp(e, "str") == 0) {
                const char *v = get_str(I, o, fname, attr);
                fail = !v;
                if (v)
                    ab_str(&b, attr, v);
            } else if (strcmp(e, "ints") == 0 || strcmp(e, "axes") == 0) {
                fail = axes_arg(I, o, fname, attr, &b, attr) < 0;
            } else if (strcmp(e, "dtype") == 0) {
                int dt;
                fail = d2_pd_parse_dtype(I, o, fname, false, &dt) < 0;
                ab_int(&b, attr, dt);
            } else if (strcmp(e, "shape") == 0) {
                d2_obj *si = NULL;
                fail = shape_arg(I, o, fname, &b, &si, partial, &n_partial) < 0;
                if (si) {
                    while (n_in < 1)
                        in[n_in++] = NULL;
                    in[n_in++] = si;
                }
            } else {
                d2_raise(I, "RuntimeError", "%s: internal: bad binding entry '%s'", fname, e);
                fail = true;
            }
        }
    }
    if (!fail && cast_dt >= 0 && in[0]) {
        d2_obj *c = cast_to(I, fname, in[0], cast_dt);
        d2_decref(in[0]);
        in[0] = c;
        fail = !c;
    }
    if (!fail) {
        if (vin)
            r = opn(I, fname, bd->op, vin, n_vin, &b);
        else
            r = opn(I, fname, bd->op, in, n_in, &b);
        if (bd->op != D2_OP_expand)
            refine_dims(I, r, partial, n_partial);
    } else {
        ab_free(&b);
    }
    for (int k = 0; k < n_in; k++)
        d2_decref(in[k]);
    for (int k = 0; k < n_vin; k++)
        d2_decref(vin[k]);
    d2_free(vin);
    return r;
}

/* The rows: as paddle.NAME / paddle.nn.functional.NAME (a function also in
 * paddle keeps its paddle name there), and as the Tensor method x.NAME. */
static const d2_def BINDING_DEFS[] = {
#define X(c, py, op, spec, map, w)                                                                 \
    D2_DEF_DATA(py, spec, bind_call,                                                               \
                ((w) & (W_P | W_M)) ? "paddle." py : "paddle.nn.functional." py,                   \
                &BINDINGS[BI_##c]),
    PADDLE_BINDINGS(X)
#undef X
};

static const d2_def BINDING_METHOD_DEFS[] = {
#define X(c, py, op, spec, map, w)                                                                 \
    D2_DEF_DATA(py, spec, bind_call, "Tensor." py, &BINDINGS[BI_##c]),
    PADDLE_BINDINGS(X)
#undef X
};

/* ======================================================================
 * Irregular paddle functions
 * ====================================================================== */

static int dtype_arg(d2_interp *I, d2_obj *o, const char *fname, int def, int *dt)
{
    if (d2_pd_parse_dtype(I, o, fname, false, dt) < 0)
        return -1;
    if (*dt < 0)
        *dt = def;
    return 0;
}

/* full(shape, value, dtype) through the op (shape may hold tensors). */
static d2_obj *make_full(d2_interp *I, const char *fname, d2_obj *shape, double v, int dt)
{
    ab b;
    ab_init(&b, D2_OP_full);
    d2_obj *si = NULL;
    int64_t partial[D2_MAX_DIMS];
    int n_partial;
    if (shape_arg(I, shape, fname, &b, &si, partial, &n_partial) < 0) {
        ab_free(&b);
        return NULL;
    }
    ab_float(&b, "value", v);
    ab_int(&b, "dtype", dt);
    d2_obj *r = opn(I, fname, D2_OP_full, si ? &si : NULL, si ? 1 : 0, &b);
    d2_decref(si);
    refine_dims(I, r, partial, n_partial);
    return r;
}

static d2_obj *fill_value(d2_interp *I, d2_obj *o, const char *fname, double *v, int *kind)
{
    if (is_number(o)) {
        *v = num_value(o);
        *kind = o->kind == D2_OBJ_FLOAT ? 2 : is_bool(o) ? 0 : 1;
        return o;
    }
    if (is_tensor(o) && !is_sym(o)) {
        double f;
        if (get_float(I, o, fname, "fill_value", &f) < 0)
            return NULL;
        *v = f;
        *kind = 2;
        return o;
    }
    if (o->kind == D2_OBJ_STR) { /* Paddle also takes the number as a string: "0.5" */
        const char *str = D2_AS(d2_str, o)->s;
        char *end;
        double f = strtod(str, &end);
        if (end != str && *end == 0) {
            *v = f;
            *kind = 2;
            return o;
        }
    }
    return d2_raise(I, "TypeError", "%s: fill_value must be a number, got %s", fname,
                    d2_type_name(o));
}

D2_FN(f_zeros)
{
    int dt;
    if (dtype_arg(I, a[1], "paddle.zeros", D2_F32, &dt) < 0)
        return NULL;
    return make_full(I, "paddle.zeros", a[0], 0, dt);
}

D2_FN(f_ones)
{
    int dt;
    if (dtype_arg(I, a[1], "paddle.ones", D2_F32, &dt) < 0)
        return NULL;
    return make_full(I, "paddle.ones", a[0], 1, dt);
}

D2_FN(f_empty)
{
    int dt;
    if (dtype_arg(I, a[1], "paddle.empty", D2_F32, &dt) < 0)
        return NULL;
    return make_full(I, "paddle.empty", a[0], 0, dt);
}

D2_FN(f_full)
{
    double v;
    int kind, dt;
    if (!fill_value(I, a[1], "paddle.full", &v, &kind) ||
        dtype_arg(I, a[2], "paddle.full", D2_F32, &dt) < 0)
        return NULL;
    return make_full(I, "paddle.full", a[0], v, dt);
}

static d2_obj *like(d2_interp *I, const char *fname, d2_obj *x, d2_obj *dto, double v)
{
    int dt;
    if (d2_pd_parse_dtype(I, dto, fname, false, &dt) < 0)
        return NULL;
    d2_obj *t = as_tensor(I, x, -1, fname);
    if (!t)
        return NULL;
    ab b;
    ab_init(&b, D2_OP_full_like);
    ab_float(&b, "value", v);
    ab_int(&b, "dtype", dt);
    d2_obj *r = op1(I, fname, D2_OP_full_like, t, &b);
    d2_decref(t);
    return r;
}

D2_FN(f_zeros_like)
{
    return like(I, "paddle.zeros_like", a[0], a[1], 0);
}

D2_FN(f_ones_like)
{
    return like(I, "paddle.ones_like", a[0], a[1], 1);
}

D2_FN(f_empty_like)
{
    return like(I, "paddle.empty_like", a[0], a[1], 0);
}

D2_FN(f_full_like)
{
    double v;
    int kind;
    if (!fill_value(I, a[1], "paddle.full_like", &v, &kind))
        return NULL;
    return like(I, "paddle.full_like", a[0], a[2], v);
}

D2_FN(f_arange)
{
    const char *fname = "paddle.arange";
    d2_obj *st = a[0], *en = a[1], *sp = a[2];
    if (is_none(I, en)) {
        en = st;
        st = NULL;
    }
    d2_obj *vals[3] = {st, en, sp};
    bool any_float = false, any_tensor = false;
    for (int i = 0; i < 3; i++) {
        if (!vals[i])
            continue;
        if (vals[i]->kind == D2_OBJ_FLOAT)
            any_float = true;
        else if (is_tensor(vals[i])) {
            any_tensor = true;
            if (d2_dtype_is_float(obj_type(vals[i])->dtype))
                any_float = true;
        } else if (!is_int(vals[i]) && !is_bool(vals[i])) {
            return d2_raise(I, "TypeError",
                            "%s: start, end and step must be numbers or tensors, got %s", fname,
                            d2_type_name(vals[i]));
        }
    }
    int dt;
    if (dtype_arg(I, a[3], fname, any_float ? D2_F32 : D2_I64, &dt) < 0)
        return NULL;
    ab b;
    ab_init(&b, D2_OP_arange);
    ab_int(&b, "dtype", dt);
    static const char *names[3] = {"start", "end", "step"};
    d2_obj *in[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        if (!vals[i])
            continue;
        if (is_tensor(vals[i])) {
            in[i] = cast_to(I, fname, vals[i], dt);
            if (!in[i])
                goto fail;
        } else {
            ab_float(&b, names[i], num_value(vals[i]));
        }
    }
    d2_obj *r = opn(I, fname, D2_OP_arange, in, any_tensor ? 3 : 0, &b);
    for (int i = 0; i < 3; i++)
        d2_decref(in[i]);
    return r;
fail:
    ab_free(&b);
    for (int i = 0; i < 3; i++)
        d2_decref(in[i]);
    return NULL;
}

/* Builds a CPU tensor of dt from doubles. */
static d2_tensor *host_from_doubles(d2_interp *I, d2_dtype dt, int ndim, const int64_t *shape,
                                    const double *v)
{
    d2_err err = {0};
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
        default: break;
        }
    }
    return t;
}

D2_FN(f_linspace)
{
    const char *fname = "paddle.linspace";
    double s, e;
    int64_t n;
    int dt;
    if (get_float(I, a[0], fname, "start", &s) < 0 || get_float(I, a[1], fname, "stop", &e) < 0 ||
        get_int(I, a[2], fname, "num", &n) < 0 || dtype_arg(I, a[3], fname, D2_F32, &dt) < 0)
        return NULL;
    if (n <= 0)
        return d2_raise(I, "ValueError", "%s: num must be positive, got %lld", fname, (long long)n);
    double *v = d2_malloc((size_t)n * sizeof *v);
    if (!v)
        return nomem(I);
    double step = n > 1 ? (e - s) / (double)(n - 1) : 0;
    /* Paddle's kernel: the first half from start, the second half from stop */
    int64_t half = n / 2;
    for (int64_t i = 0; i < n; i++)
        v[i] = i < half || n == 1 ? s + step * (double)i : e - step * (double)(n - 1 - i);
    d2_tensor *t = host_from_doubles(I, (d2_dtype)dt, 1, &n, v);
    d2_free(v);
    return t ? wrap_host(I, t) : NULL;
}

D2_FN(f_eye)
{
    const char *fname = "paddle.eye";
    int64_t r, c;
    int dt;
    if (get_int(I, a[0], fname, "num_rows", &r) < 0 || dtype_arg(I, a[2], fname, D2_F32, &dt) < 0)
        return NULL;
    c = r;
    if (!is_none(I, a[1]) && get_int(I, a[1], fname, "num_columns", &c) < 0)
        return NULL;
    if (r < 0 || c < 0)
        return d2_raise(I, "ValueError", "%s: sizes must be non-negative", fname);
    int64_t shape[2] = {r, c};
    double *v = d2_calloc((size_t)(r * c) + 1, sizeof *v);
    if (!v)
        return nomem(I);
    for (int64_t i = 0; i < r && i < c; i++)
        v[i * c + i] = 1;
    d2_tensor *t = host_from_doubles(I, (d2_dtype)dt, 2, shape, v);
    d2_free(v);
    return t ? wrap_host(I, t) : NULL;
}

/* ---- random ---- */

static int shape_list(d2_interp *I, d2_obj *o, const char *fname, int64_t *shape, int *n)
{
    if (d2_pd_ints(I, o, fname, "shape", shape, n, D2_MAX_DIMS) < 0)
        return -1;
    for (int i = 0; i < *n; i++)
        if (shape[i] < 0) {
            d2_raise(I, "ValueError", "%s: shape entries must be non-negative, got %lld", fname,
                     (long long)shape[i]);
            return -1;
        }
    return 0;
}

typedef enum { RND_UNIFORM, RND_NORMAL, RND_INT } rnd_kind;

static d2_obj *random_tensor(d2_interp *I, const char *fname, d2_obj *shape, int dt, rnd_kind k,
                             double p0, double p1)
{
    int64_t dims[D2_MAX_DIMS];
    int nd;
    if (is_none(I, shape)) {
        dims[0] = 1; /* paddle.randint's default shape [1] */
        nd = 1;
    } else if (shape_list(I, shape, fname, dims, &nd) < 0) {
        return NULL;
    }
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= dims[i];
    double *v = d2_malloc((size_t)n * sizeof *v + 1);
    if (!v)
        return nomem(I);
    d2_mt19937 *rng = &ST(I)->rng;
    for (int64_t i = 0; i < n; i++) {
        if (k == RND_UNIFORM)
            v[i] = p0 + (p1 - p0) * d2_mt_double(rng);
        else if (k == RND_NORMAL)
            v[i] = p0 + p1 * d2_mt_gauss(rng);
        else
            v[i] = p0 + (double)d2_mt_bounded(rng, (uint64_t)(p1 - p0 - 1));
    }
    d2_tensor *t = host_from_doubles(I, (d2_dtype)dt, nd, dims, v);
    d2_free(v);
    return t ? wrap_host(I, t) : NULL;
}

D2_FN(f_rand)
{
    int dt;
    if (dtype_arg(I, a[1], "paddle.rand", D2_F32, &dt) < 0)
        return NULL;
    return random_tensor(I, "paddle.rand", a[0], dt, RND_UNIFORM, 0, 1);
}

D2_FN(f_randn)
{
    int dt;
    if (dtype_arg(I, a[1], "paddle.randn", D2_F32, &dt) < 0)
        return NULL;
    return random_tensor(I, "paddle.randn", a[0], dt, RND_NORMAL, 0, 1);
}

D2_FN(f_uniform)
{
    const char *fname = "paddle.uniform";
    int dt;
    double lo, hi;
    if (dtype_arg(I, a[1], fname, D2_F32, &dt) < 0 || get_float(I, a[2], fname, "min", &lo) < 0 ||
        get_float(I, a[3], fname, "max", &hi) < 0)
        return NULL;
    return random_tensor(I, fname, a[0], dt, RND_UNIFORM, lo, hi);
}

D2_FN(f_normal)
{
    const char *fname = "paddle.normal";
    double m, s;
    if (get_float(I, a[0], fname, "mean", &m) < 0 || get_float(I, a[1], fname, "std", &s) < 0)
        return NULL;
    if (is_none(I, a[2]))
        return d2_raise(I, "TypeError", "%s: shape is required (tensor mean/std are not supported)",
                        fname);
    return random_tensor(I, fname, a[2], D2_F32, RND_NORMAL, m, s);
}

D2_FN(f_randint)
{
    const char *fname = "paddle.randint";
    int64_t lo, hi;
    int dt;
    if (get_int(I, a[0], fname, "low", &lo) < 0)
        return NULL;
    if (is_none(I, a[1])) {
        hi = lo;
        lo = 0;
    } else if (get_int(I, a[1], fname, "high", &hi) < 0) {
        return NULL;
    }
    if (hi <= lo)
        return d2_raise(I, "ValueError", "%s: high (%lld) must be greater than low (%lld)", fname,
                        (long long)hi, (long long)lo);
    if (dtype_arg(I, a[3], fname, D2_I64, &dt) < 0)
        return NULL;
    return random_tensor(I, fname, a[2], dt, RND_INT, (double)lo, (double)hi);
}

D2_FN(f_seed)
{
    int64_t s;
    if (get_int(I, a[0], "paddle.seed", "seed", &s) < 0)
        return NULL;
    d2_mt_seed(&ST(I)->rng, (uint32_t)s);
    d2_obj *m = d2_dict_get_str(I, I->modules, "paddle.base.libpaddle");
    d2_obj *g = m && m->kind == D2_OBJ_MODULE
                    ? d2_dict_get_str(I, D2_AS(d2_module, m)->dict, "Generator")
                    : NULL;
    if (!g || g->kind != D2_OBJ_CLASS)
        return d2_none(I);
    return d2_instance_new(I, D2_AS(d2_class, g));
}

/* ---- reductions with irregular arguments ---- */

#define ARGMINMAX_SPEC "x, axis=None, keepdim=False, dtype='int64', name=None"

static d2_obj *argminmax(d2_interp *I, const char *fname, d2_op_id op, d2_obj **a)
{
    ab b;
    ab_init(&b, op);
    int dt;
    bool keep;
    if (d2_pd_parse_dtype(I, a[3], fname, false, &dt) < 0 ||
        get_bool(I, a[2], fname, "keepdim", &keep) < 0) {
        ab_free(&b);
        return NULL;
    }
    if (dt >= 0)
        ab_int(&b, "dtype", dt);
    ab_bool(&b, "keepdim", keep);
    if (is_none(I, a[1])) {
        ab_bool(&b, "flatten", true);
    } else {
        int64_t ax;
        if (get_int(I, a[1], fname, "axis", &ax) < 0) {
            ab_free(&b);
            return NULL;
        }
        ab_int(&b, "axis", ax);
    }
    d2_obj *x = as_tensor(I, a[0], -1, fname);
    if (!x) {
        ab_free(&b);
        return NULL;
    }
    d2_obj *r = op1(I, fname, op, x, &b);
    d2_decref(x);
    return r;
}

/* paddle.argmax(x, ...) and x.argmax(...): one row each, the name in
 * messages differs (def->qualname). */
D2_FN(f_argmax)
{
    return argminmax(I, def->qualname, D2_OP_argmax, a);
}

D2_FN(f_argmin)
{
    return argminmax(I, def->qualname, D2_OP_argmin, a);
}

/* ---- where, concat, stack, split ---- */

static d2_obj *nonzero_impl(d2_interp *I, const char *fname, d2_obj *xo, bool as_tuple);

D2_FN(f_where)
{
    const char *fname = "paddle.where";
    if (is_none(I, a[1]) && is_none(I, a[2]))
        return nonzero_impl(I, fname, a[0], true);
    if (is_none(I, a[1]) || is_none(I, a[2]))
        return d2_raise(I, "ValueError", "%s: either both or neither of x and y should be given",
                        fname);
    d2_obj *c = as_tensor(I, a[0], -1, fname);
    if (!c)
        return NULL;
    d2_obj *x = NULL, *y = NULL, *xc = NULL, *yc = NULL, *cc = NULL, *r = NULL;
    int hint = is_tensor(a[1])   ? (int)obj_type(a[1])->dtype
               : is_tensor(a[2]) ? (int)obj_type(a[2])->dtype
                                 : -1;
    /* Python floats become float64 and ints int64, as Paddle does */
    x = is_number(a[1]) ? scalar_tensor(I, a[1],
                                        a[1]->kind == D2_OBJ_FLOAT ? D2_F64
                                        : hint >= 0                ? (d2_dtype)hint
                                                                   : D2_I64)
                        : as_tensor(I, a[1], -1, fname);
    y = !x                ? NULL
        : is_number(a[2]) ? scalar_tensor(I, a[2],
                                          a[2]->kind == D2_OBJ_FLOAT ? D2_F64
                                          : hint >= 0                ? (d2_dtype)hint
                                                                     : D2_I64)
                          : as_tensor(I, a[2], -1, fname);
    if (!y)
        goto done;
    d2_dtype dx = obj_type(x)->dtype, dy = obj_type(y)->dtype, dt = dx;
    if (dx != dy) {
        if (d2_dtype_is_float(dx) && d2_dtype_is_float(dy))
            dt = D2_F64;
        else if (d2_dtype_is_float(dy))
            dt = dy;
    }
    xc = cast_to(I, fname, x, dt);
    yc = xc ? cast_to(I, fname, y, dt) : NULL;
    cc = yc ? cast_to(I, fname, c, D2_BOOL) : NULL;
    if (cc) {
        d2_obj *in[3] = {cc, xc, yc};
        r = opn(I, fname, D2_OP_where, in, 3, NULL);
    }
done:
    d2_decref(c);
    d2_decref(x);
    d2_decref(y);
    d2_decref(xc);
    d2_decref(yc);
    d2_decref(cc);
    return r;
}

/* concat/stack over n tensors, in chunks of 16 (the eager port limit). */
static d2_obj *join(d2_interp *I, const char *fname, d2_op_id op, d2_obj **xs, int n, int64_t axis)
{
    if (n <= 16) {
        ab b;
        ab_init(&b, op);
        ab_int(&b, "axis", axis);
        return opn(I, fname, op, xs, n, &b);
    }
    if (op == D2_OP_stack) {
        /* stack = unsqueeze each, then concat */
        d2_obj **u = d2_calloc((size_t)n, sizeof *u);
        if (!u)
            return nomem(I);
        d2_obj *r = NULL;
        int ndim = obj_type(xs[0])->shape.ndim;
        int64_t ax = axis < 0 ? axis + ndim + 1 : axis;
        int i;
        for (i = 0; i < n; i++) {
            ab b;
            ab_init(&b, D2_OP_unsqueeze);
            ab_ints(&b, "axis", &ax, 1);
            u[i] = op1(I, fname, D2_OP_unsqueeze, xs[i], &b);
            if (!u[i])
                break;
        }
        if (i == n)
            r = join(I, fname, D2_OP_concat, u, n, ax);
        for (int k = 0; k < n; k++)
            d2_decref(u[k]);
        d2_free(u);
        return r;
    }
    int groups = (n + 15) / 16;
    d2_obj **g = d2_calloc((size_t)groups, sizeof *g);
    if (!g)
        return nomem(I);
    d2_obj *r = NULL;
    int k;
    for (k = 0; k < groups; k++) {
        int m = n - k * 16 < 16 ? n - k * 16 : 16;
        g[k] = join(I, fname, op, xs + k * 16, m, axis);
        if (!g[k])
            break;
    }
    if (k == groups)
        r = join(I, fname, op, g, groups, axis);
    for (int j = 0; j < groups; j++)
        d2_decref(g[j]);
    d2_free(g);
    return r;
}

static d2_obj *concat_or_stack(d2_interp *I, const char *fname, d2_op_id op, d2_obj **a)
{
    if (!is_seq(a[0]) || seq_len(a[0]) == 0)
        return d2_raise(I, "TypeError",
                        "%s: x must be a non-empty list or tuple of Tensors, got %s", fname,
                        d2_type_name(a[0]));
    int64_t axis;
    if (get_int(I, a[1], fname, "axis", &axis) < 0)
        return NULL;
    int n = (int)seq_len(a[0]);
    d2_obj **xs = d2_calloc((size_t)n, sizeof *xs);
    if (!xs)
        return nomem(I);
    d2_obj *r = NULL;
    int i;
    for (i = 0; i < n; i++) {
        xs[i] = as_tensor(I, seq_item(a[0], (size_t)i), -1, fname);
        if (!xs[i])
            break;
    }
    if (i == n)
        r = join(I, fname, op, xs, n, axis);
    for (int k = 0; k < n; k++)
        d2_decref(xs[k]);
    d2_free(xs);
    return r;
}

D2_FN(f_concat)
{
    return concat_or_stack(I, "paddle.concat", D2_OP_concat, a);
}

D2_FN(f_stack)
{
    return concat_or_stack(I, "paddle.stack", D2_OP_stack, a);
}

/* Splits x along axis into pieces of the given sizes (one -1 allowed) with
 * slice ops; returns a list. */
static d2_obj *split_sizes(d2_interp *I, const char *fname, d2_obj *x, int64_t *sizes, int n,
                           int64_t axis, bool squeeze)
{
    const d2_shape *xs = &obj_type(x)->shape;
    if (xs->ndim == 0)
        return d2_raise(I, "ValueError", "%s: cannot split a 0-D tensor", fname);
    if (axis < -xs->ndim || axis >= xs->ndim)
        return d2_raise(I, "ValueError", "%s: axis %lld is out of range for a %d-D tensor", fname,
                        (long long)axis, xs->ndim);
    if (axis < 0)
        axis += xs->ndim;
    int64_t dim = xs->dims[axis];
    int neg = -1;
    int64_t known = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] == -1 && neg < 0)
            neg = i;
        else if (sizes[i] < 0)
            return d2_raise(I, "ValueError", "%s: section sizes must be >= 0 (one may be -1)",
                            fname);
        else
            known += sizes[i];
    }
    if (dim >= 0) {
        if (neg >= 0)
            sizes[neg] = dim - known;
        if ((neg >= 0 && sizes[neg] < 0) || (neg < 0 && known != dim))
            return d2_raise(I, "ValueError",
                            "%s: the sections add up to %lld but axis %lld has size %lld", fname,
                            (long long)known, (long long)axis, (long long)dim);
    } else if (neg >= 0) {
        return d2_raise(I, "ValueError", "%s: a -1 section needs a static size along axis %lld",
                        fname, (long long)axis);
    }
    d2_obj *list = d2_list_new(I, 0);
    if (!list)
        return NULL;
    int64_t start = 0;
    for (int i = 0; i < n; i++) {
        ab b;
        ab_init(&b, D2_OP_slice);
        int64_t end = start + sizes[i];
        ab_ints(&b, "axes", &axis, 1);
        ab_ints(&b, "starts", &start, 1);
        ab_ints(&b, "ends", &end, 1);
        if (squeeze)
            ab_ints(&b, "decrease_axis", &axis, 1);
        d2_obj *piece = op1(I, fname, D2_OP_slice, x, &b);
        if (!piece || d2_list_append(I, list, piece) < 0) {
            d2_decref(piece);
            d2_decref(list);
            return NULL;
        }
        d2_decref(piece);
        start = end;
    }
    return list;
}

static d2_obj *do_split(d2_interp *I, const char *fname, d2_obj *xo, d2_obj *sec, d2_obj *axo,
                        bool chunk)
{
    int64_t axis;
    if (get_int(I, axo, fname, "axis", &axis) < 0)
        return NULL;
    d2_obj *x = as_tensor(I, xo, -1, fname);
    if (!x)
        return NULL;
    const d2_shape *xs = &obj_type(x)->shape;
    int64_t sizes[256];
    int n = 0;
    d2_obj *r = NULL;
    if (is_int(sec)) {
        int64_t k = D2_AS(d2_int, sec)->v;
        int64_t ax = axis < 0 ? axis + xs->ndim : axis;
        if (ax < 0 || ax >= xs->ndim) {
            r = d2_raise(I, "ValueError", "%s: axis %lld is out of range for a %d-D tensor", fname,
                         (long long)axis, xs->ndim);
            goto done;
        }
        int64_t dim = xs->dims[ax];
        if (k <= 0 || k > 256) {
            r = d2_raise(I, "ValueError",
                         "%s: the number of sections must be in [1, 256], got %lld", fname,
                         (long long)k);
            goto done;
        }
        if (dim < 0) {
            /* dynamic: the split op divides at run time */
            ab b;
            ab_init(&b, D2_OP_split);
            ab_int(&b, "num", k);
            ab_int(&b, "axis", axis);
            d2_obj *outs[256] = {NULL};
            if (b.bad || apply_named(I, fname, D2_OP_split, &x, 1, &b.a, outs, (int)k) < 0) {
                ab_free(&b);
                goto done;
            }
            ab_free(&b);
            r = d2_list_new(I, 0);
            for (int64_t i = 0; i < k; i++) {
                if (r && d2_list_append(I, r, outs[i]) < 0)
                    d2_setref(&r, NULL);
                d2_decref(outs[i]);
            }
            goto done;
        }
        if (dim % k != 0 && !chunk) {
            r = d2_raise(I, "ValueError",
                         "%s: axis %lld of size %lld cannot be split into %lld equal sections",
                         fname, (long long)axis, (long long)dim, (long long)k);
            goto done;
        }
        if (chunk && dim % k != 0) {
            r = d2_raise(I, "ValueError", "%s: axis of size %lld is not divisible by chunks %lld",
                         fname, (long long)dim, (long long)k);
            goto done;
        }
        for (int64_t i = 0; i < k; i++)
            sizes[n++] = dim / k;
    } else {
        if (d2_pd_ints(I, sec, fname, "num_or_sections", sizes, &n, 256) < 0)
            goto done;
    }
    r = split_sizes(I, fname, x, sizes, n, axis, false);
done:
    d2_decref(x);
    return r;
}

D2_FN(f_split)
{
    return do_split(I, "paddle.split", a[0], a[1], a[2], false);
}

D2_FN(f_chunk)
{
    if (!is_int(a[1]))
        return d2_raise(I, "TypeError", "paddle.chunk: chunks must be an int");
    return do_split(I, "paddle.chunk", a[0], a[1], a[2], true);
}

D2_FN(f_unbind)
{
    const char *fname = "paddle.unbind";
    d2_obj *r = NULL;
    int64_t axis;
    d2_obj *x = as_tensor(I, a[0], -1, fname);
    if (x && get_int(I, a[1], fname, "axis", &axis) == 0) {
        const d2_shape *xs = &obj_type(x)->shape;
        int64_t ax = axis < 0 ? axis + xs->ndim : axis;
        if (ax < 0 || ax >= xs->ndim || xs->dims[ax] < 0 || xs->dims[ax] > 4096) {
            r = d2_raise(I, "ValueError", "%s: axis %lld must be a static dim of the input", fname,
                         (long long)axis);
        } else {
            int64_t n = xs->dims[ax];
            int64_t *sizes = d2_malloc(sizeof(int64_t) * (size_t)(n + 1));
            if (sizes) {
                for (int64_t i = 0; i < n; i++)
                    sizes[i] = 1;
                d2_obj *l = split_sizes(I, fname, x, sizes, (int)n, ax, true);
                d2_free(sizes);
                if (l) {
                    r = tuple_new(I, (size_t)n);
                    for (int64_t i = 0; r && i < n; i++)
                        D2_AS(d2_tuple, r)->items[i] = d2_incref(D2_AS(d2_list, l)->items[i]);
                    d2_decref(l);
                }
            } else {
                nomem(I);
            }
        }
    }
    d2_decref(x);
    return r;
}

D2_FN(f_expand_as)
{
    const char *fname = "paddle.expand_as";
    d2_obj *r = NULL;
    if (!is_tensor(a[1])) {
        r = d2_raise(I, "TypeError", "%s: y must be a Tensor", fname);
    } else {
        d2_obj *x = as_tensor(I, a[0], -1, fname);
        const d2_shape *ys = &obj_type(a[1])->shape;
        if (x && d2_shape_is_static(ys)) {
            ab b;
            ab_init(&b, D2_OP_expand);
            ab_ints(&b, "shape", ys->dims, ys->ndim);
            r = op1(I, fname, D2_OP_expand, x, &b);
        } else if (x) {
            d2_obj *s = op1(I, fname, D2_OP_shape, a[1], NULL);
            d2_obj *s64 = s ? cast_to(I, fname, s, D2_I64) : NULL;
            if (s64)
                r = op2(I, fname, D2_OP_expand, x, s64, NULL);
            d2_decref(s);
            d2_decref(s64);
        }
        d2_decref(x);
    }
    return r;
}

D2_FN(f_dot)
{
    const char *fname = "paddle.dot";
    d2_obj *r = NULL;
    d2_obj *m = binary(I, fname, D2_OP_multiply, a[0], a[1], true);
    if (m) {
        int nd = obj_type(m)->shape.ndim;
        if (nd < 1 || nd > 2) {
            r = d2_raise(I, "ValueError", "%s: x and y must be 1-D or 2-D", fname);
        } else {
            ab b;
            ab_init(&b, D2_OP_sum);
            int64_t ax = -1;
            ab_ints(&b, "axis", &ax, 1);
            r = op1(I, fname, D2_OP_sum, m, &b);
        }
        d2_decref(m);
    }
    return r;
}

D2_FN(f_to_tensor)
{
    const char *fname = "paddle.to_tensor";
    int dt;
    bool sg;
    if (d2_pd_parse_dtype(I, a[1], fname, false, &dt) < 0 ||
        get_bool(I, a[3], fname, "stop_gradient", &sg) < 0)
        return NULL;
    d2_obj *r;
    if (is_tensor(a[0])) {
        r = d2_to_tensor(I, a[0], dt);
    } else {
        d2_tensor *t = d2_pd_from_py(I, a[0], dt, D2_F32, fname);
        r = t ? wrap_host(I, t) : NULL;
    }
    if (r)
        TOBJ(r)->stop_gradient = sg;
    return r;
}

D2_FN(f_assign)
{
    const char *fname = "paddle.assign";
    d2_obj *src = is_tensor(a[0]) ? d2_incref(a[0]) : as_tensor(I, a[0], -1, fname);
    if (!src)
        return NULL;
    if (!is_tensor(a[0]) && !is_ndarray(a[0])) {
        /* Python floats assign as float32 (Paddle's rule for lists) */
    }
    d2_obj *r = op1(I, fname, D2_OP_assign, src, NULL);
    d2_decref(src);
    if (r && !is_none(I, a[1])) {
        if (!is_tensor(a[1]) || is_sym(a[1]) || is_sym(r)) {
            d2_decref(r);
            return d2_raise(I, "TypeError", "%s: output must be a concrete Tensor", fname);
        }
        d2_tensor_unref(TOBJ(a[1])->t);
        TOBJ(a[1])->t = d2_tensor_ref(TOBJ(r)->t);
        TOBJ(a[1])->type = TOBJ(r)->type;
        d2_decref(r);
        return d2_incref(a[1]);
    }
    return r;
}

/* x's values as a contiguous float64 host tensor (concrete tensors only). */
static d2_tensor *host_f64(d2_interp *I, d2_obj *o, const char *fname)
{
    if (!is_tensor(o)) {
        d2_raise(I, "TypeError", "%s: expected a Tensor, got %s", fname, d2_type_name(o));
        return NULL;
    }
    if (is_sym(o)) {
        d2_raise(I, "NotImplementedError", "%s: not supported inside to_static", fname);
        return NULL;
    }
    d2_obj *c = cast_to(I, fname, o, D2_F64);
    d2_tensor *h = c ? d2_pd_host(I, c, fname) : NULL;
    d2_decref(c);
    if (!h)
        return NULL;
    d2_err err = {0};
    d2_tensor *r = d2_tensor_contiguous(h, &err);
    d2_tensor_unref(h);
    if (!r)
        d2_raise_err(I, &err);
    return r;
}

/* paddle.allclose and paddle.equal_all: a 0-d bool tensor, computed on the host.
 * close: |x - y| <= atol + rtol * |y|, infinities equal when equal, NaNs when equal_nan. */
static d2_obj *all_close(d2_interp *I, const char *fname, d2_obj *x, d2_obj *y, bool exact,
                         double rtol, double atol, bool equal_nan)
{
    d2_tensor *hx = host_f64(I, x, fname);
    d2_tensor *hy = hx ? host_f64(I, y, fname) : NULL;
    if (!hy) {
        if (hx)
            d2_tensor_unref(hx);
        return NULL;
    }
    d2_shape sx, sy;
    d2_tensor_get_shape(hx, &sx);
    d2_tensor_get_shape(hy, &sy);
    bool same = sx.ndim == sy.ndim;
    for (int k = 0; same && k < sx.ndim; k++)
        same = sx.dims[k] == sy.dims[k];
    d2_obj *r = NULL;
    if (!same && !exact) {
        r = d2_raise(I, "ValueError", "%s: x and y must have the same shape", fname);
    } else {
        bool ok = same;
        const double *a = d2_tensor_data(hx), *b = d2_tensor_data(hy);
        for (int64_t i = 0, n = d2_tensor_numel(hx); ok && i < n; i++) {
            if (exact)
                ok = a[i] == b[i];
            else if (isnan(a[i]) || isnan(b[i]))
                ok = equal_nan && isnan(a[i]) && isnan(b[i]);
            else if (isinf(a[i]) || isinf(b[i]))
                ok = a[i] == b[i];
            else
                ok = fabs(a[i] - b[i]) <= atol + rtol * fabs(b[i]);
        }
        r = const_tensor(I, 0, ok, true, D2_BOOL);
    }
    d2_tensor_unref(hx);
    d2_tensor_unref(hy);
    return r;
}

D2_FN(f_allclose)
{
    const char *fname = "paddle.allclose";
    if (!is_number(a[2]) || !is_number(a[3]))
        return d2_raise(I, "TypeError", "%s: rtol and atol must be numbers", fname);
    return all_close(I, fname, a[0], a[1], false, num_value(a[2]), num_value(a[3]),
                     d2_truthy(I, a[4]) == 1);
}

D2_FN(f_equal_all)
{
    return all_close(I, "paddle.equal_all", a[0], a[1], true, 0, 0, false);
}

D2_FN(f_is_tensor)
{
    return d2_bool(I, is_tensor(a[0]));
}

D2_FN(f_set_device)
{
    const char *d = get_str(I, a[0], "paddle.set_device", "device");
    if (!d)
        return NULL;
    if (strcmp(d, "cpu") != 0 && strncmp(d, "gpu", 3) != 0)
        return d2_raise(I, "ValueError", "paddle.set_device: unknown device '%s' (use 'cpu')", d);
    return d2_str_from(I, "cpu");
}

D2_FN(f_get_device)
{
    return d2_str_from(I, "cpu");
}

static d2_obj *f_true(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_bool(I, D2_MODE(I)->builder == NULL);
}

static d2_obj *f_noop(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_none(I);
}

/* repr(paddle.CPUPlace()): Paddle's form */
static d2_obj *f_cpu_place_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_str_from(I, "Place(cpu)");
}

/* ======================================================================
 * paddle.nn.functional: irregular functions
 * ====================================================================== */

/* An int or a pair [a, b] into two values. */
static int pair_arg(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t v[2])
{
    int64_t t[4];
    int n;
    if (d2_pd_ints(I, o, fname, what, t, &n, 4) < 0)
        return -1;
    if (n == 1) {
        v[0] = v[1] = t[0];
        return 0;
    }
    if (n == 2) {
        v[0] = t[0];
        v[1] = t[1];
        return 0;
    }
    d2_raise(I, "ValueError", "%s: %s must be an int or a list of 2 ints, got %d values", fname,
             what, n);
    return -1;
}

/* Paddle's padding argument: an int, [ph, pw], [top, bottom, left, right],
 * or 'SAME' / 'VALID'. Writes paddings[4] (top, bottom, left, right) and
 * the algorithm. */
static int padding_arg(d2_interp *I, d2_obj *o, const char *fname, int64_t pad[4], const char **alg)
{
    *alg = "EXPLICIT";
    pad[0] = pad[1] = pad[2] = pad[3] = 0;
    if (o->kind == D2_OBJ_STR) {
        const char *s = D2_AS(d2_str, o)->s;
        if (strcasecmp(s, "same") == 0)
            *alg = "SAME";
        else if (strcasecmp(s, "valid") == 0)
            *alg = "VALID";
        else {
            d2_raise(I, "ValueError", "%s: padding must be 'SAME', 'VALID' or ints, got '%s'",
                     fname, s);
            return -1;
        }
        return 0;
    }
    int64_t t[8];
    int n;
    if (d2_pd_ints(I, o, fname, "padding", t, &n, 8) < 0)
        return -1;
    if (n == 1)
        pad[0] = pad[1] = pad[2] = pad[3] = t[0];
    else if (n == 2) {
        pad[0] = pad[1] = t[0];
        pad[2] = pad[3] = t[1];
    } else if (n == 4) {
        memcpy(pad, t, 4 * sizeof *pad);
    } else {
        d2_raise(I, "ValueError", "%s: padding must have 1, 2 or 4 values, got %d", fname, n);
        return -1;
    }
    return 0;
}

static int check_nchw(d2_interp *I, d2_obj *df, const char *fname)
{
    if (is_none(I, df))
        return 0;
    const char *s = get_str(I, df, fname, "data_format");
    if (!s)
        return -1;
    if (strcmp(s, "NCHW") != 0) {
        d2_raise(I, "ValueError", "%s: only data_format='NCHW' is supported, got '%s'", fname, s);
        return -1;
    }
    return 0;
}

static d2_obj *conv2d_impl(d2_interp *I, const char *fname, d2_obj *x, d2_obj *w, d2_obj *bias,
                           d2_obj *stride, d2_obj *padding, d2_obj *dilation, d2_obj *groups)
{
    int64_t st[2], dil[2], pad[4], g;
    const char *alg;
    if (pair_arg(I, stride, fname, "stride", st) < 0 ||
        pair_arg(I, dilation, fname, "dilation", dil) < 0 ||
        padding_arg(I, padding, fname, pad, &alg) < 0 ||
        get_int(I, groups, fname, "groups", &g) < 0)
        return NULL;
    ab b;
    ab_init(&b, D2_OP_conv2d);
    ab_ints(&b, "strides", st, 2);
    ab_ints(&b, "dilations", dil, 2);
    ab_ints(&b, "paddings", pad, 4);
    ab_int(&b, "groups", g);
    ab_str(&b, "padding_algorithm", alg);
    d2_obj *in[3] = {x, w, is_none(I, bias) ? NULL : bias};
    return opn(I, fname, D2_OP_conv2d, in, 3, &b);
}

D2_FN(F_conv2d)
{
    const char *fname = "paddle.nn.functional.conv2d";
    if (check_nchw(I, a[7], fname) < 0)
        return NULL;
    if (!is_tensor(a[0]) || !is_tensor(a[1]) || (!is_none(I, a[2]) && !is_tensor(a[2])))
        return d2_raise(I, "TypeError", "%s: x, weight and bias must be Tensors", fname);
    return conv2d_impl(I, fname, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
}

/* max_pool2d's return_mask, eagerly on the host: for each output element the
 * flat index h * W + w in its input plane of the window's first maximum (as
 * Paddle's kernel; padding never wins), int32 like Paddle's. */
static d2_obj *max_pool_mask(d2_interp *I, const char *fname, d2_obj *x, d2_obj *out,
                             const int64_t ks[2], const int64_t st[2], const int64_t pad[4])
{
    if (D2_MODE(I)->builder || is_sym(x))
        return d2_raise(I, "NotImplementedError",
                        "%s: return_mask=True is not supported inside to_static", fname);
    d2_tensor *hx = d2_pd_host(I, x, fname);
    if (!hx)
        return NULL;
    const d2_shape *os = &obj_type(out)->shape;
    d2_shape xs;
    d2_tensor_get_shape(hx, &xs);
    if (xs.ndim != 4 || os->ndim != 4) {
        d2_tensor_unref(hx);
        return d2_raise(I, "ValueError", "%s: return_mask needs a 4-D NCHW input", fname);
    }
    int64_t N = xs.dims[0], C = xs.dims[1], H = xs.dims[2], W = xs.dims[3];
    int64_t OH = os->dims[2], OW = os->dims[3];
    int64_t md[4] = {N, C, OH, OW};
    d2_err err = {0};
    d2_tensor *m = d2_tensor_new(NULL, D2_I32, 4, md, &err);
    if (!m) {
        d2_tensor_unref(hx);
        return d2_raise_err(I, &err);
    }
    int32_t *mp = d2_tensor_data(m);
    for (int64_t nc = 0; nc < N * C; nc++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t h0 = oh * st[0] - pad[0], w0 = ow * st[1] - pad[2];
                int64_t h1 = h0 + ks[0] < H ? h0 + ks[0] : H, w1 = w0 + ks[1] < W ? w0 + ks[1] : W;
                int64_t best = -1;
                double bv = 0;
                for (int64_t h = h0 < 0 ? 0 : h0; h < h1; h++)
                    for (int64_t w = w0 < 0 ? 0 : w0; w < w1; w++) {
                        double v = d2_tensor_get_f64(hx, nc * H * W + h * W + w);
                        if (best < 0 || v > bv) {
                            bv = v;
                            best = h * W + w;
                        }
                    }
                mp[(nc * OH + oh) * OW + ow] = (int32_t)(best < 0 ? 0 : best);
            }
    d2_tensor_unref(hx);
    return wrap_host(I, m);
}

static d2_obj *pool_impl_m(d2_interp *I, const char *fname, d2_obj *x, const char *type,
                           d2_obj *ksize, d2_obj *stride, d2_obj *padding, bool ceil_mode,
                           bool exclusive, bool adaptive, d2_obj **mask);

static d2_obj *pool_impl(d2_interp *I, const char *fname, d2_obj *x, const char *type,
                         d2_obj *ksize, d2_obj *stride, d2_obj *padding, bool ceil_mode,
                         bool exclusive, bool adaptive)
{
    return pool_impl_m(I, fname, x, type, ksize, stride, padding, ceil_mode, exclusive, adaptive,
                       NULL);
}

/* mask: when not NULL (max pooling, not adaptive), also the indices of the maxima */
static d2_obj *pool_impl_m(d2_interp *I, const char *fname, d2_obj *x, const char *type,
                           d2_obj *ksize, d2_obj *stride, d2_obj *padding, bool ceil_mode,
                           bool exclusive, bool adaptive, d2_obj **mask)
{
    int64_t ks[2], st[2], pad[4] = {0, 0, 0, 0};
    const char *alg = "EXPLICIT";
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor, got %s", fname, d2_type_name(x));
    if (adaptive) {
        /* output_size: int, pair; None entries keep the input size */
        const d2_shape *xs = &obj_type(x)->shape;
        if (is_seq(ksize)) {
            if (seq_len(ksize) != 2)
                return d2_raise(I, "ValueError", "%s: output_size must have 2 values", fname);
            for (int i = 0; i < 2; i++) {
                d2_obj *it = seq_item(ksize, (size_t)i);
                if (is_none(I, it)) {
                    if (xs->ndim != 4 || xs->dims[2 + i] < 0)
                        return d2_raise(I, "ValueError",
                                        "%s: a None output size needs a static input size", fname);
                    ks[i] = xs->dims[2 + i];
                } else if (get_int(I, it, fname, "output_size", &ks[i]) < 0) {
                    return NULL;
                }
            }
        } else if (pair_arg(I, ksize, fname, "output_size", ks) < 0) {
            return NULL;
        }
        st[0] = st[1] = 1;
    } else {
        if (pair_arg(I, ksize, fname, "kernel_size", ks) < 0)
            return NULL;
        if (is_none(I, stride)) {
            st[0] = ks[0];
            st[1] = ks[1];
        } else if (pair_arg(I, stride, fname, "stride", st) < 0) {
            return NULL;
        }
        if (padding_arg(I, padding, fname, pad, &alg) < 0)
            return NULL;
        if (strcmp(alg, "EXPLICIT") != 0) {
            /* SAME/VALID pooling: compute explicit paddings from the static input size */
            const d2_shape *xs = &obj_type(x)->shape;
            if (strcmp(alg, "SAME") == 0) {
                for (int i = 0; i < 2; i++) {
                    int64_t in = xs->ndim == 4 ? xs->dims[2 + i] : -1;
                    if (in < 0)
                        return d2_raise(I, "ValueError",
                                        "%s: padding='SAME' needs static spatial sizes", fname);
                    int64_t out = (in + st[i] - 1) / st[i];
                    int64_t tot = (out - 1) * st[i] + ks[i] - in;
                    if (tot < 0)
                        tot = 0;
                    pad[2 * i] = tot / 2;
                    pad[2 * i + 1] = tot - tot / 2;
                }
            }
        }
    }
    ab b;
    ab_init(&b, D2_OP_pool2d);
    ab_str(&b, "pooling_type", type);
    ab_ints(&b, "ksize", ks, 2);
    ab_ints(&b, "strides", st, 2);
    ab_ints(&b, "paddings", pad, 4);
    ab_bool(&b, "adaptive", adaptive);
    ab_bool(&b, "ceil_mode", ceil_mode);
    ab_bool(&b, "exclusive", exclusive);
    d2_obj *out = op1(I, fname, D2_OP_pool2d, x, &b);
    if (!out || !mask)
        return out;
    if (!(*mask = max_pool_mask(I, fname, x, out, ks, st, pad))) {
        d2_decref(out);
        return NULL;
    }
    return out;
}

/* (out, mask) as a tuple, or out alone. */
static d2_obj *pool_with_mask(d2_interp *I, const char *fname, d2_obj *x, d2_obj *ksize,
                              d2_obj *stride, d2_obj *padding, bool ceil_mode, bool want_mask)
{
    if (!want_mask)
        return pool_impl(I, fname, x, "max", ksize, stride, padding, ceil_mode, true, false);
    /* Paddle's max_pool2d_with_index has no ceil_mode: with return_mask it is ignored */
    D2_UNUSED(ceil_mode);
    d2_obj *m = NULL;
    d2_obj *out = pool_impl_m(I, fname, x, "max", ksize, stride, padding, false, true, false, &m);
    if (!out)
        return NULL;
    d2_obj *t = tuple_new(I, 2);
    if (!t) {
        d2_decref(out);
        d2_decref(m);
        return NULL;
    }
    D2_AS(d2_tuple, t)->items[0] = out;
    D2_AS(d2_tuple, t)->items[1] = m;
    return t;
}

D2_FN(F_max_pool2d)
{
    const char *fname = "paddle.nn.functional.max_pool2d";
    bool ceil_mode, mask;
    if (get_bool(I, a[4], fname, "ceil_mode", &ceil_mode) < 0 ||
        get_bool(I, a[5], fname, "return_mask", &mask) < 0 || check_nchw(I, a[6], fname) < 0)
        return NULL;
    return pool_with_mask(I, fname, a[0], a[1], a[2], a[3], ceil_mode, mask);
}

D2_FN(F_avg_pool2d)
{
    const char *fname = "paddle.nn.functional.avg_pool2d";
    bool ceil_mode, excl;
    if (get_bool(I, a[4], fname, "ceil_mode", &ceil_mode) < 0 ||
        get_bool(I, a[5], fname, "exclusive", &excl) < 0 || check_nchw(I, a[7], fname) < 0)
        return NULL;
    if (!is_none(I, a[6]))
        return d2_raise(I, "NotImplementedError", "%s: divisor_override is not supported", fname);
    return pool_impl(I, fname, a[0], "avg", a[1], a[2], a[3], ceil_mode, excl, false);
}

D2_FN(F_adaptive_avg_pool2d)
{
    const char *fname = "paddle.nn.functional.adaptive_avg_pool2d";
    if (check_nchw(I, a[2], fname) < 0)
        return NULL;
    return pool_impl(I, fname, a[0], "avg", a[1], NULL, NULL, false, true, true);
}

D2_FN(F_adaptive_max_pool2d)
{
    const char *fname = "paddle.nn.functional.adaptive_max_pool2d";
    bool mask;
    if (get_bool(I, a[2], fname, "return_mask", &mask) < 0)
        return NULL;
    if (mask)
        return d2_raise(I, "NotImplementedError", "%s: return_mask=True is not supported", fname);
    return pool_impl(I, fname, a[0], "max", a[1], NULL, NULL, false, true, true);
}

/* Batch statistics over all axes but 1 (training-mode batch_norm):
 * returns new refs in *mean, *var (shape [C]). */
static int batch_stats(d2_interp *I, const char *fname, d2_obj *x, d2_obj **mean, d2_obj **var)
{
    int nd = obj_type(x)->shape.ndim;
    int64_t axes[D2_MAX_DIMS];
    int na = 0;
    for (int i = 0; i < nd; i++)
        if (i != 1)
            axes[na++] = i;
    ab b;
    ab_init(&b, D2_OP_mean);
    ab_ints(&b, "axis", axes, na);
    ab_bool(&b, "keepdim", true);
    d2_obj *mk = op1(I, fname, D2_OP_mean, x, &b);
    d2_obj *diff = mk ? op2(I, fname, D2_OP_subtract, x, mk, NULL) : NULL;
    d2_obj *sq = diff ? op1(I, fname, D2_OP_square, diff, NULL) : NULL;
    *var = NULL;
    *mean = NULL;
    if (sq) {
        ab_init(&b, D2_OP_mean);
        ab_ints(&b, "axis", axes, na);
        *var = op1(I, fname, D2_OP_mean, sq, &b);
        ab_init(&b, D2_OP_mean);
        ab_ints(&b, "axis", axes, na);
        *mean = *var ? op1(I, fname, D2_OP_mean, x, &b) : NULL;
    }
    d2_decref(mk);
    d2_decref(diff);
    d2_decref(sq);
    if (!*mean) {
        d2_setref(var, NULL);
        return -1;
    }
    return 0;
}

/* running = running * momentum + batch * (1 - momentum), in place (eager). */
static int update_running(d2_interp *I, const char *fname, d2_obj *running, d2_obj *batch,
                          double momentum)
{
    if (!is_tensor(running) || is_sym(running) || is_sym(batch))
        return 0;
    ab b;
    ab_init(&b, D2_OP_scale);
    ab_float(&b, "scale", momentum);
    d2_obj *r1 = op1(I, fname, D2_OP_scale, running, &b);
    ab_init(&b, D2_OP_scale);
    ab_float(&b, "scale", 1 - momentum);
    d2_obj *b1 = r1 ? op1(I, fname, D2_OP_scale, batch, &b) : NULL;
    d2_obj *s = b1 ? op2(I, fname, D2_OP_add, r1, b1, NULL) : NULL;
    if (s) {
        d2_tensor_unref(TOBJ(running)->t);
        TOBJ(running)->t = d2_tensor_ref(TOBJ(s)->t);
    }
    d2_decref(r1);
    d2_decref(b1);
    d2_decref(s);
    return s ? 0 : -1;
}

static d2_obj *batch_norm_impl(d2_interp *I, const char *fname, d2_obj *x, d2_obj *rm, d2_obj *rv,
                               d2_obj *w, d2_obj *bias, bool training, double momentum, double eps,
                               bool use_global)
{
    if (!is_tensor(x) || !is_tensor(rm) || !is_tensor(rv))
        return d2_raise(I, "TypeError", "%s: x, running_mean and running_var must be Tensors",
                        fname);
    d2_obj *scale = NULL, *shift = NULL, *r = NULL;
    int64_t c = obj_type(x)->shape.ndim >= 2 ? obj_type(x)->shape.dims[1] : -1;
    d2_dtype dt = obj_type(x)->dtype;
    if (is_none(I, w)) {
        scale = const_tensor(I, 1, 0, false, dt);
        if (scale && c >= 0) {
            ab b;
            ab_init(&b, D2_OP_expand);
            ab_ints(&b, "shape", &c, 1);
            d2_obj *e = op1(I, fname, D2_OP_expand, scale, &b);
            d2_decref(scale);
            scale = e;
        }
    } else {
        scale = d2_incref(w);
    }
    if (!scale)
        return NULL;
    if (is_none(I, bias)) {
        ab b;
        ab_init(&b, D2_OP_full_like);
        ab_float(&b, "value", 0);
        shift = op1(I, fname, D2_OP_full_like, scale, &b);
    } else {
        shift = d2_incref(bias);
    }
    if (!shift) {
        d2_decref(scale);
        return NULL;
    }
    ab b;
    ab_init(&b, D2_OP_batch_norm);
    ab_float(&b, "epsilon", eps);
    if (training && !use_global) {
        d2_obj *bm, *bv;
        if (batch_stats(I, fname, x, &bm, &bv) == 0) {
            d2_obj *in[5] = {x, bm, bv, scale, shift};
            r = opn(I, fname, D2_OP_batch_norm, in, 5, &b);
            if (r && (update_running(I, fname, rm, bm, momentum) < 0 ||
                      update_running(I, fname, rv, bv, momentum) < 0))
                d2_setref(&r, NULL);
            d2_decref(bm);
            d2_decref(bv);
        } else {
            ab_free(&b);
        }
    } else {
        d2_obj *in[5] = {x, rm, rv, scale, shift};
        r = opn(I, fname, D2_OP_batch_norm, in, 5, &b);
    }
    d2_decref(scale);
    d2_decref(shift);
    return r;
}

D2_FN(F_batch_norm)
{
    const char *fname = "paddle.nn.functional.batch_norm";
    bool training, global = false;
    double mom, eps;
    if (get_bool(I, a[5], fname, "training", &training) < 0 ||
        get_float(I, a[6], fname, "momentum", &mom) < 0 ||
        get_float(I, a[7], fname, "epsilon", &eps) < 0 ||
        (!is_none(I, a[9]) && get_bool(I, a[9], fname, "use_global_stats", &global) < 0))
        return NULL;
    const char *df = is_none(I, a[8]) ? "NCHW" : get_str(I, a[8], fname, "data_format");
    if (!df)
        return NULL;
    if (strcmp(df, "NCHW") != 0 && strcmp(df, "NCL") != 0 && strcmp(df, "NC") != 0)
        return d2_raise(I, "ValueError",
                        "%s: data_format '%s' is not supported (channels first only)", fname, df);
    return batch_norm_impl(I, fname, a[0], a[1], a[2], a[3], a[4], training, mom, eps, global);
}

static d2_obj *layer_norm_impl(d2_interp *I, const char *fname, d2_obj *x, d2_obj *nshape,
                               d2_obj *w, d2_obj *bias, double eps)
{
    int64_t ns[D2_MAX_DIMS];
    int n;
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    if (d2_pd_ints(I, nshape, fname, "normalized_shape", ns, &n, D2_MAX_DIMS) < 0)
        return NULL;
    const d2_shape *xs = &obj_type(x)->shape;
    if (n == 0 || n > xs->ndim)
        return d2_raise(I, "ValueError", "%s: normalized_shape has %d dims but x has %d", fname, n,
                        xs->ndim);
    for (int i = 0; i < n; i++) {
        int64_t d = xs->dims[xs->ndim - n + i];
        if (d >= 0 && d != ns[i])
            return d2_raise(I, "ValueError",
                            "%s: normalized_shape[%d] = %lld does not match x's dim %lld", fname, i,
                            (long long)ns[i], (long long)d);
    }
    d2_obj *fw = NULL, *fb = NULL, *r = NULL;
    int64_t total = 1;
    for (int i = 0; i < n; i++)
        total *= ns[i];
    /* scale and bias are flattened vectors */
    if (!is_none(I, w)) {
        ab b;
        ab_init(&b, D2_OP_reshape);
        ab_ints(&b, "shape", &total, 1);
        fw = is_tensor(w) && obj_type(w)->shape.ndim == 1 ? (ab_free(&b), d2_incref(w))
                                                          : op1(I, fname, D2_OP_reshape, w, &b);
        if (!fw)
            return NULL;
    }
    if (!is_none(I, bias)) {
        ab b;
        ab_init(&b, D2_OP_reshape);
        ab_ints(&b, "shape", &total, 1);
        fb = is_tensor(bias) && obj_type(bias)->shape.ndim == 1
                 ? (ab_free(&b), d2_incref(bias))
                 : op1(I, fname, D2_OP_reshape, bias, &b);
        if (!fb) {
            d2_decref(fw);
            return NULL;
        }
    }
    ab b;
    ab_init(&b, D2_OP_layer_norm);
    ab_float(&b, "epsilon", eps);
    ab_int(&b, "begin_norm_axis", xs->ndim - n);
    d2_obj *in[3] = {x, fw, fb};
    r = opn(I, fname, D2_OP_layer_norm, in, 3, &b);
    d2_decref(fw);
    d2_decref(fb);
    return r;
}

D2_FN(F_layer_norm)
{
    const char *fname = "paddle.nn.functional.layer_norm";
    double eps;
    if (get_float(I, a[4], fname, "epsilon", &eps) < 0)
        return NULL;
    return layer_norm_impl(I, fname, a[0], a[1], a[2], a[3], eps);
}

static d2_obj *embedding_impl(d2_interp *I, const char *fname, d2_obj *ids, d2_obj *w,
                              d2_obj *padding_idx)
{
    if (!is_tensor(w))
        return d2_raise(I, "TypeError", "%s: weight must be a Tensor", fname);
    ab b;
    ab_init(&b, D2_OP_embedding);
    if (!is_none(I, padding_idx)) {
        int64_t p;
        if (get_int(I, padding_idx, fname, "padding_idx", &p) < 0) {
            ab_free(&b);
            return NULL;
        }
        int64_t v = obj_type(w)->shape.dims[0];
        if (p < 0)
            p += v;
        ab_int(&b, "padding_idx", p);
    }
    d2_obj *x = as_tensor(I, ids, -1, fname);
    if (!x) {
        ab_free(&b);
        return NULL;
    }
    d2_obj *r = op2(I, fname, D2_OP_embedding, x, w, &b);
    d2_decref(x);
    return r;
}

D2_FN(F_embedding)
{
    const char *fname = "paddle.nn.functional.embedding";
    return embedding_impl(I, fname, a[0], a[1], a[2]);
}

static d2_obj *dropout_impl(d2_interp *I, const char *fname, d2_obj *x, double p, bool training,
                            const char *mode)
{
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    if (!(p >= 0 && p <= 1))
        return d2_raise(I, "ValueError", "%s: p must be in [0, 1], got %g", fname, p);
    bool up = strcmp(mode, "upscale_in_train") == 0;
    if (!up && strcmp(mode, "downscale_in_infer") != 0)
        return d2_raise(I, "ValueError",
                        "%s: mode must be 'upscale_in_train' or 'downscale_in_infer', got '%s'",
                        fname, mode);
    if (!training || p == 0 || D2_MODE(I)->builder) {
        /* inference semantics (also what a static program records) */
        ab b;
        ab_init(&b, D2_OP_dropout);
        ab_float(&b, "p", p);
        ab_str(&b, "mode", mode);
        if (training && !D2_MODE(I)->builder)
            return d2_incref(x);
        return op1(I, fname, D2_OP_dropout, x, &b);
    }
    /* training: a random keep mask drawn on the host */
    const d2_shape *xs = &obj_type(x)->shape;
    int64_t n = d2_shape_numel(xs);
    double *m = d2_malloc((size_t)n * sizeof *m + 1);
    if (!m)
        return nomem(I);
    d2_mt19937 *rng = &ST(I)->rng;
    for (int64_t i = 0; i < n; i++) {
        bool keep = d2_mt_double(rng) >= p;
        m[i] = keep ? (up ? (p < 1 ? 1.0 / (1.0 - p) : 0) : 1.0) : 0.0;
    }
    d2_tensor *mt = host_from_doubles(I, obj_type(x)->dtype, xs->ndim, xs->dims, m);
    d2_free(m);
    d2_obj *mo = mt ? wrap_host(I, mt) : NULL;
    d2_obj *r = mo ? op2(I, fname, D2_OP_multiply, x, mo, NULL) : NULL;
    d2_decref(mo);
    return r;
}

/* dropout with Paddle's axis argument: in training one keep/drop draw per
 * index of the given axes, shared along the others (a mask of x's dims on
 * those axes and 1 elsewhere, broadcast); otherwise as dropout_impl. */
static d2_obj *dropout_axis(d2_interp *I, const char *fname, d2_obj *x, double p, bool training,
                            const char *mode, d2_obj *axis)
{
    if (is_none(I, axis) || !training || p == 0 || D2_MODE(I)->builder || !is_tensor(x) ||
        !(p >= 0 && p <= 1))
        return dropout_impl(I, fname, x, p, training, mode);
    int64_t axes[D2_MAX_DIMS];
    int na;
    if (d2_pd_ints(I, axis, fname, "axis", axes, &na, D2_MAX_DIMS) < 0)
        return NULL;
    const d2_shape *xs = &obj_type(x)->shape;
    int64_t md[D2_MAX_DIMS];
    for (int d = 0; d < xs->ndim; d++)
        md[d] = 1;
    for (int k = 0; k < na; k++) {
        /* Paddle takes no negative axes here */
        int64_t ax = axes[k];
        if (ax < 0 || ax >= xs->ndim)
            return d2_raise(I, "ValueError",
                            "%s: axis values must be in [0, %d) (the dims of x), got %lld", fname,
                            xs->ndim, (long long)ax);
        md[ax] = xs->dims[ax];
    }
    bool up = strcmp(mode, "upscale_in_train") == 0;
    if (!up && strcmp(mode, "downscale_in_infer") != 0)
        return dropout_impl(I, fname, x, p, training, mode); /* raises the mode error */
    int64_t n = 1;
    for (int d = 0; d < xs->ndim; d++)
        n *= md[d] > 0 ? md[d] : 0;
    double *m = d2_malloc((size_t)n * sizeof *m + 1);
    if (!m)
        return nomem(I);
    d2_mt19937 *rng = &ST(I)->rng;
    for (int64_t i = 0; i < n; i++) {
        bool keep = d2_mt_double(rng) >= p;
        m[i] = keep ? (up ? (p < 1 ? 1.0 / (1.0 - p) : 0) : 1.0) : 0.0;
    }
    d2_tensor *mt = host_from_doubles(I, obj_type(x)->dtype, xs->ndim, md, m);
    d2_free(m);
    d2_obj *mo = mt ? wrap_host(I, mt) : NULL;
    d2_obj *r = mo ? op2(I, fname, D2_OP_multiply, x, mo, NULL) : NULL;
    d2_decref(mo);
    return r;
}

D2_FN(F_dropout)
{
    const char *fname = "paddle.nn.functional.dropout";
    double p;
    bool training;
    const char *mode;
    if (get_float(I, a[1], fname, "p", &p) < 0 ||
        get_bool(I, a[3], fname, "training", &training) < 0 ||
        !(mode = get_str(I, a[4], fname, "mode")))
        return NULL;
    return dropout_axis(I, fname, a[0], p, training, mode, a[2]);
}

D2_FN(F_relu6)
{
    const char *fname = "paddle.nn.functional.relu6";
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    ab b;
    ab_init(&b, D2_OP_clip);
    ab_float(&b, "min", 0);
    ab_float(&b, "max", 6);
    return op1(I, fname, D2_OP_clip, a[0], &b);
}

/* ======================================================================
 * Composite functions: built from registry ops, so they work in every mode
 * ====================================================================== */

static d2_obj *t_transpose_all(d2_interp *I, d2_obj *x);

/* reduce op over axes (NULL/0: all) with keepdim. */
static d2_obj *reduce_axes(d2_interp *I, const char *fname, d2_op_id op, d2_obj *x,
                           const int64_t *axes, int na, bool keep)
{
    ab b;
    ab_init(&b, op);
    ab_ints(&b, "axis", axes, na);
    ab_bool(&b, "keepdim", keep);
    return op1(I, fname, op, x, &b);
}

static d2_obj *scale_by(d2_interp *I, const char *fname, d2_obj *x, double sc, double bias)
{
    ab b;
    ab_init(&b, D2_OP_scale);
    ab_float(&b, "scale", sc);
    ab_float(&b, "bias", bias);
    return op1(I, fname, D2_OP_scale, x, &b);
}

static d2_obj *clip_to(d2_interp *I, const char *fname, d2_obj *x, double lo, double hi)
{
    ab b;
    ab_init(&b, D2_OP_clip);
    ab_float(&b, "min", lo);
    ab_float(&b, "max", hi);
    return op1(I, fname, D2_OP_clip, x, &b);
}

/* Reads an optional axis list; *n = 0 for None (all axes). */
static int opt_axes(d2_interp *I, d2_obj *o, const char *fname, int64_t *v, int *n)
{
    *n = 0;
    if (is_none(I, o))
        return 0;
    return d2_pd_ints(I, o, fname, "axis", v, n, D2_MAX_DIMS);
}

D2_FN(f_flip)
{
    const char *fname = "paddle.flip";
    d2_obj *r = NULL;
    int64_t axes[D2_MAX_DIMS], st[D2_MAX_DIMS], en[D2_MAX_DIMS], sp[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, a[1], fname, "axis", axes, &n, D2_MAX_DIMS) == 0) {
        d2_obj *x = as_tensor(I, a[0], -1, fname);
        if (x) {
            for (int i = 0; i < n; i++) {
                st[i] = INT64_MAX;
                en[i] = INT64_MIN;
                sp[i] = -1;
            }
            ab b;
            ab_init(&b, D2_OP_slice);
            ab_ints(&b, "axes", axes, n);
            ab_ints(&b, "starts", st, n);
            ab_ints(&b, "ends", en, n);
            ab_ints(&b, "strides", sp, n);
            r = op1(I, fname, D2_OP_slice, x, &b);
            d2_decref(x);
        }
    }
    return r;
}

/* p-norm over axes, as Paddle's (a matrix norm over two axes is the vector
 * norm of the flattened matrix): 'fro'/2, 1, inf (max |x|), -inf (min |x|),
 * 0 (count of nonzeros) and any other p as (sum |x|^p)^(1/p). */
static d2_obj *pnorm(d2_interp *I, const char *fname, d2_obj *x, double p, const int64_t *axes,
                     int na, bool keep)
{
    d2_obj *t = NULL, *s = NULL, *r = NULL, *c = NULL, *u = NULL;
    d2_dtype dt = obj_type(x)->dtype;
    if (p == 2) {
        t = op1(I, fname, D2_OP_square, x, NULL);
        s = t ? reduce_axes(I, fname, D2_OP_sum, t, axes, na, keep) : NULL;
        r = s ? op1(I, fname, D2_OP_sqrt, s, NULL) : NULL;
    } else if (p == 1 || isinf(p)) {
        t = op1(I, fname, D2_OP_abs, x, NULL);
        r = t ? reduce_axes(I, fname, p == 1 ? D2_OP_sum : p > 0 ? D2_OP_max : D2_OP_min, t, axes,
                            na, keep)
              : NULL;
    } else if (p == 0) {
        c = const_tensor(I, 0, 0, false, dt);
        u = c ? op2(I, fname, D2_OP_not_equal, x, c, NULL) : NULL;
        t = u ? cast_to(I, fname, u, dt) : NULL;
        r = t ? reduce_axes(I, fname, D2_OP_sum, t, axes, na, keep) : NULL;
    } else if (!isnan(p)) {
        d2_obj *e = NULL;
        if ((u = op1(I, fname, D2_OP_abs, x, NULL)) && (c = const_tensor(I, p, 0, false, dt)) &&
            (t = op2(I, fname, D2_OP_pow, u, c, NULL)) &&
            (s = reduce_axes(I, fname, D2_OP_sum, t, axes, na, keep)) &&
            (e = const_tensor(I, 1.0 / p, 0, false, dt)))
            r = op2(I, fname, D2_OP_pow, s, e, NULL);
        d2_decref(e);
    } else {
        r = d2_raise(I, "ValueError", "%s: p must not be nan", fname);
    }
    d2_decref(t);
    d2_decref(s);
    d2_decref(c);
    d2_decref(u);
    return r;
}

static int p_arg(d2_interp *I, d2_obj *o, const char *fname, double *p)
{
    if (o->kind == D2_OBJ_STR) {
        if (strcmp(D2_AS(d2_str, o)->s, "fro") != 0) {
            d2_raise(I, "ValueError", "%s: p must be 'fro' or a number, got '%s'", fname,
                     D2_AS(d2_str, o)->s);
            return -1;
        }
        *p = 2;
        return 0;
    }
    return get_float(I, o, fname, "p", p);
}

D2_FN(f_norm)
{
    const char *fname = "paddle.norm";
    d2_obj *r = NULL;
    double p;
    bool keep;
    int64_t axes[D2_MAX_DIMS];
    int n;
    if (p_arg(I, a[1], fname, &p) == 0 && opt_axes(I, a[2], fname, axes, &n) == 0 &&
        get_bool(I, a[3], fname, "keepdim", &keep) == 0) {
        d2_obj *x = as_tensor(I, a[0], -1, fname);
        if (x)
            r = pnorm(I, fname, x, p, axes, n, keep);
        d2_decref(x);
    }
    return r;
}

/* paddle.round: halves away from zero, as Paddle (std::round), composed from
 * existing ops: sign(x) * (f + (|x| - f >= 0.5)) with f = floor(|x|), exact
 * because |x| - f is. Integer tensors are returned as a copy. */
D2_FN(f_round)
{
    const char *fname = "paddle.round";
    d2_obj *x = NULL, *r = NULL;
    d2_obj *ab_ = NULL, *f = NULL, *d = NULL, *h = NULL, *c = NULL, *cf = NULL, *s = NULL,
           *sg = NULL;
    if (!(x = as_tensor(I, a[0], -1, fname)))
        goto done;
    d2_dtype dt = obj_type(x)->dtype;
    if (!d2_dtype_is_float(dt)) {
        r = op1(I, fname, D2_OP_assign, x, NULL);
        goto done;
    }
    if ((ab_ = op1(I, fname, D2_OP_abs, x, NULL)) && (f = op1(I, fname, D2_OP_floor, ab_, NULL)) &&
        (d = op2(I, fname, D2_OP_subtract, ab_, f, NULL)) &&
        (h = const_tensor(I, 0.5, 0, false, dt)) &&
        (c = op2(I, fname, D2_OP_greater_equal, d, h, NULL)) && (cf = cast_to(I, fname, c, dt)) &&
        (s = op2(I, fname, D2_OP_add, f, cf, NULL)) && (sg = op1(I, fname, D2_OP_sign, x, NULL)))
        r = op2(I, fname, D2_OP_multiply, sg, s, NULL);
done:
    d2_decref(x);
    d2_decref(ab_);
    d2_decref(f);
    d2_decref(d);
    d2_decref(h);
    d2_decref(c);
    d2_decref(cf);
    d2_decref(s);
    d2_decref(sg);
    return r;
}

/* The int64 indices of x's nonzero elements, eagerly on the host (the result's
 * size depends on the data): [k, ndim], or with as_tuple one [k, 1] tensor per
 * dim, as paddle.nonzero and the one-argument paddle.where. */
static d2_obj *nonzero_impl(d2_interp *I, const char *fname, d2_obj *xo, bool as_tuple)
{
    if (is_sym(xo) || D2_MODE(I)->builder)
        return d2_raise(I, "NotImplementedError",
                        "%s: nonzero indices are not supported inside to_static (the result's "
                        "size depends on the data)",
                        fname);
    d2_obj *x = as_tensor(I, xo, -1, fname);
    if (!x)
        return NULL;
    d2_tensor *h = d2_pd_host(I, x, fname);
    d2_decref(x);
    if (!h)
        return NULL;
    d2_shape xs;
    d2_tensor_get_shape(h, &xs);
    int nd = xs.ndim;
    if (nd < 1) {
        d2_tensor_unref(h);
        return d2_raise(I, "ValueError", "%s: the input must have at least 1 dimension", fname);
    }
    int64_t n = d2_tensor_numel(h), k = 0;
    bool fl = d2_dtype_is_float(h->dtype);
    for (int64_t i = 0; i < n; i++)
        k += fl ? d2_tensor_get_f64(h, i) != 0 : d2_tensor_get_i64(h, i) != 0;
    d2_err err = {0};
    int64_t dims[2] = {k, nd};
    d2_tensor *t = d2_tensor_new(NULL, D2_I64, 2, dims, &err);
    if (!t) {
        d2_tensor_unref(h);
        return d2_raise_err(I, &err);
    }
    int64_t *p = d2_tensor_data(t);
    for (int64_t i = 0, j = 0; i < n; i++) {
        if (fl ? d2_tensor_get_f64(h, i) == 0 : d2_tensor_get_i64(h, i) == 0)
            continue;
        for (int64_t rem = i, dd = nd - 1; dd >= 0; dd--) {
            p[j * nd + dd] = rem % xs.dims[dd];
            rem /= xs.dims[dd];
        }
        j++;
    }
    d2_tensor_unref(h);
    if (!as_tuple)
        return wrap_host(I, t);
    d2_obj *tup = tuple_new(I, (size_t)nd);
    for (int dd = 0; tup && dd < nd; dd++) {
        int64_t cd[2] = {k, 1};
        d2_tensor *c = d2_tensor_new(NULL, D2_I64, 2, cd, &err);
        if (!c) {
            d2_decref(tup);
            tup = d2_raise_err(I, &err);
            break;
        }
        int64_t *cp = d2_tensor_data(c);
        for (int64_t j = 0; j < k; j++)
            cp[j] = p[j * nd + dd];
        if (!(D2_AS(d2_tuple, tup)->items[dd] = wrap_host(I, c))) {
            d2_decref(tup);
            tup = NULL;
        }
    }
    d2_tensor_unref(t);
    return tup;
}

/* paddle.save(obj, path, protocol=4): a dict of str -> Tensor / ndarray (a
 * state_dict) written as Paddle writes it (see d2_pickle_save_params), so
 * that paddle.load here and in Paddle read it back. */
D2_FN(f_save)
{
    const char *fname = "paddle.save";
    int64_t proto;
    const char *path = d2_to_cstr(I, a[1], "path");
    if (!path || get_int(I, a[2], fname, "protocol", &proto) < 0)
        return NULL;
    if (proto != 4)
        return d2_raise(I, "NotImplementedError", "%s: only protocol=4 (the default) is supported",
                        fname);
    if (a[0]->kind != D2_OBJ_DICT)
        return d2_raise(I, "NotImplementedError",
                        "%s: only a dict of Tensors (a state_dict) can be saved, got %s", fname,
                        d2_type_name(a[0]));
    d2_dict *d = D2_AS(d2_dict, a[0]);
    d2_pickle_params pp = {0, NULL};
    pp.items = d2_calloc(d->live + 1, sizeof *pp.items);
    if (!pp.items)
        return nomem(I);
    d2_obj *r = NULL;
    for (size_t i = 0; i < d->n; i++) {
        d2_obj *k = d->entries[i].key, *v = d->entries[i].value;
        if (!k)
            continue;
        if (k->kind != D2_OBJ_STR) {
            d2_raise(I, "NotImplementedError", "%s: the dict's keys must be strings, got %s",
                     fname, d2_type_name(k));
            goto done;
        }
        if (!is_tensor(v) && !is_ndarray(v)) {
            d2_raise(I, "NotImplementedError",
                     "%s: only a dict of Tensors can be saved; '%s' is a %s", fname,
                     D2_AS(d2_str, k)->s, d2_type_name(v));
            goto done;
        }
        d2_tensor *h = d2_pd_host(I, v, fname);
        if (!h)
            goto done;
        pp.items[pp.n].name = D2_AS(d2_str, k)->s; /* borrowed: not freed below */
        pp.items[pp.n++].tensor = h;
    }
    d2_err err = {0};
    if (d2_pickle_save_params(path, &pp, &err) < 0)
        d2_raise_err(I, &err);
    else
        r = d2_incref(I->none);
done:
    for (size_t i = 0; i < pp.n; i++)
        d2_tensor_unref(pp.items[i].tensor);
    d2_free(pp.items);
    return r;
}

D2_FN(f_nonzero)
{
    const char *fname = "paddle.nonzero";
    d2_obj *r = NULL;
    bool tup;
    if (get_bool(I, a[1], fname, "as_tuple", &tup) == 0)
        r = nonzero_impl(I, fname, a[0], tup);
    return r;
}

static d2_obj *std_var(d2_interp *I, d2_obj **a, bool sd)
{
    const char *fname = sd ? "paddle.std" : "paddle.var";
    d2_obj *r = NULL, *x = NULL, *m = NULL, *d = NULL, *sq = NULL, *s = NULL;
    bool unbiased, keep;
    int64_t axes[D2_MAX_DIMS];
    int n;
    if (opt_axes(I, a[1], fname, axes, &n) < 0 ||
        get_bool(I, a[2], fname, "unbiased", &unbiased) < 0 ||
        get_bool(I, a[3], fname, "keepdim", &keep) < 0 || !(x = as_tensor(I, a[0], -1, fname)))
        goto done;
    const d2_shape *xs = &obj_type(x)->shape;
    int64_t cnt = 1;
    bool all = n == 0;
    for (int d = 0; d < xs->ndim; d++) {
        bool in = all;
        for (int k = 0; k < n; k++)
            if (axes[k] == d || axes[k] + xs->ndim == d)
                in = true;
        if (in)
            cnt = xs->dims[d] < 0 || cnt < 0 ? -1 : cnt * xs->dims[d];
    }
    if (cnt < 0) {
        r = d2_raise(I, "ValueError", "%s: the reduced dims must be static", fname);
        goto done;
    }
    m = reduce_axes(I, fname, D2_OP_mean, x, axes, n, true);
    d = m ? op2(I, fname, D2_OP_subtract, x, m, NULL) : NULL;
    sq = d ? op1(I, fname, D2_OP_square, d, NULL) : NULL;
    s = sq ? reduce_axes(I, fname, D2_OP_sum, sq, axes, n, keep) : NULL;
    if (s) {
        double div = (double)cnt - (unbiased ? 1.0 : 0.0);
        d2_obj *v = scale_by(I, fname, s, div > 0 ? 1.0 / div : NAN, 0);
        r = v && sd ? op1(I, fname, D2_OP_sqrt, v, NULL) : d2_incref(v);
        d2_decref(v);
    }
done:
    d2_decref(x);
    d2_decref(m);
    d2_decref(d);
    d2_decref(sq);
    d2_decref(s);
    return r;
}

D2_FN(f_std)
{
    return std_var(I, a, true);
}

D2_FN(f_var)
{
    return std_var(I, a, false);
}

D2_FN(f_t)
{
    d2_obj *r = NULL;
    d2_obj *x = as_tensor(I, a[0], -1, "paddle.t");
    if (x && obj_type(x)->shape.ndim > 2)
        r = d2_raise(I, "ValueError", "paddle.t: the input must be 0-D, 1-D or 2-D, got %d-D",
                     obj_type(x)->shape.ndim);
    else if (x && obj_type(x)->shape.ndim == 2)
        r = t_transpose_all(I, x);
    else if (x)
        r = d2_incref(x);
    d2_decref(x);
    return r;
}

D2_FN(F_one_hot)
{
    const char *fname = "paddle.nn.functional.one_hot";
    int64_t nc;
    if (get_int(I, a[1], fname, "num_classes", &nc) < 0)
        return NULL;
    if (nc <= 0)
        return d2_raise(I, "ValueError", "%s: num_classes must be positive, got %lld", fname,
                        (long long)nc);
    d2_obj *x = as_tensor(I, a[0], -1, fname);
    if (!x)
        return NULL;
    if (!d2_dtype_is_int(obj_type(x)->dtype)) {
        d2_decref(x);
        return d2_raise(I, "TypeError", "%s: x must be an int32/int64 tensor, got %s", fname,
                        dtname(obj_type(x)->dtype));
    }
    ab b;
    ab_init(&b, D2_OP_arange);
    ab_float(&b, "end", (double)nc);
    ab_int(&b, "dtype", obj_type(x)->dtype);
    d2_obj *classes = opn(I, fname, D2_OP_arange, NULL, 0, &b);
    int64_t last = -1;
    ab_init(&b, D2_OP_unsqueeze);
    ab_ints(&b, "axis", &last, 1);
    d2_obj *ux = classes ? op1(I, fname, D2_OP_unsqueeze, x, &b) : NULL;
    d2_obj *eq = ux ? op2(I, fname, D2_OP_equal, ux, classes, NULL) : NULL;
    d2_obj *r = eq ? cast_to(I, fname, eq, D2_F32) : NULL;
    d2_decref(x);
    d2_decref(classes);
    d2_decref(ux);
    d2_decref(eq);
    return r;
}

D2_FN(F_normalize)
{
    const char *fname = "paddle.nn.functional.normalize";
    double p, eps;
    int64_t axis;
    if (get_float(I, a[1], fname, "p", &p) < 0 || get_int(I, a[2], fname, "axis", &axis) < 0 ||
        get_float(I, a[3], fname, "epsilon", &eps) < 0)
        return NULL;
    d2_obj *x = as_tensor(I, a[0], -1, fname);
    d2_obj *nrm = x ? pnorm(I, fname, x, p, &axis, 1, true) : NULL;
    d2_obj *e = nrm ? const_tensor(I, eps, 0, false, obj_type(nrm)->dtype) : NULL;
    d2_obj *den = e ? op2(I, fname, D2_OP_maximum, nrm, e, NULL) : NULL;
    d2_obj *r = den ? op2(I, fname, D2_OP_divide, x, den, NULL) : NULL;
    d2_decref(x);
    d2_decref(nrm);
    d2_decref(e);
    d2_decref(den);
    return r;
}

D2_FN(F_softplus)
{
    const char *fname = "paddle.nn.functional.softplus";
    double beta, th;
    if (get_float(I, a[1], fname, "beta", &beta) < 0 ||
        get_float(I, a[2], fname, "threshold", &th) < 0)
        return NULL;
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    d2_obj *x = a[0];
    /* where(beta * x > threshold, x, log(1 + exp(beta * x)) / beta) */
    d2_obj *bx = scale_by(I, fname, x, beta, 0);
    d2_obj *ex = bx ? op1(I, fname, D2_OP_exp, bx, NULL) : NULL;
    d2_obj *e1 = ex ? scale_by(I, fname, ex, 1, 1) : NULL;
    d2_obj *lg = e1 ? op1(I, fname, D2_OP_log, e1, NULL) : NULL;
    d2_obj *sp = lg ? scale_by(I, fname, lg, 1.0 / beta, 0) : NULL;
    d2_obj *thv = sp ? const_tensor(I, th, 0, false, obj_type(x)->dtype) : NULL;
    d2_obj *big = thv ? op2(I, fname, D2_OP_greater_than, bx, thv, NULL) : NULL;
    d2_obj *r = NULL;
    if (big) {
        d2_obj *in[3] = {big, x, sp};
        r = opn(I, fname, D2_OP_where, in, 3, NULL);
    }
    d2_obj *tmp[] = {bx, ex, e1, lg, sp, thv, big};
    for (size_t i = 0; i < D2_COUNTOF(tmp); i++)
        d2_decref(tmp[i]);
    return r;
}

D2_FN(F_hardsigmoid)
{
    const char *fname = "paddle.nn.functional.hardsigmoid";
    double slope, off;
    if (get_float(I, a[1], fname, "slope", &slope) < 0 ||
        get_float(I, a[2], fname, "offset", &off) < 0)
        return NULL;
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    d2_obj *s = scale_by(I, fname, a[0], slope, off);
    d2_obj *r = s ? clip_to(I, fname, s, 0, 1) : NULL;
    d2_decref(s);
    return r;
}

D2_FN(F_hardswish)
{
    const char *fname = "paddle.nn.functional.hardswish";
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor", fname);
    d2_obj *s = scale_by(I, fname, a[0], 1, 3);
    d2_obj *c = s ? clip_to(I, fname, s, 0, 6) : NULL;
    d2_obj *m = c ? op2(I, fname, D2_OP_multiply, a[0], c, NULL) : NULL;
    d2_obj *six = m ? const_tensor(I, 6, 0, false, obj_type(m)->dtype) : NULL;
    d2_obj *r = six ? op2(I, fname, D2_OP_divide, m, six, NULL) : NULL;
    d2_decref(s);
    d2_decref(c);
    d2_decref(m);
    d2_decref(six);
    return r;
}

/* ======================================================================
 * paddle.Tensor: attributes, methods, protocol hooks
 * ====================================================================== */

static d2_obj *shape_pylist(d2_interp *I, const d2_shape *s)
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

static d2_obj *t_transpose_all(d2_interp *I, d2_obj *x)
{
    int nd = obj_type(x)->shape.ndim;
    int64_t perm[D2_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        perm[i] = nd - 1 - i;
    ab b;
    ab_init(&b, D2_OP_transpose);
    ab_ints(&b, "perm", perm, nd);
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
            return shape_pylist(I, &t->type.shape);
        }
        if (strcmp(name, "size") == 0) {
            int64_t n = d2_shape_numel(&t->type.shape);
            return d2_int_new(I, n);
        }
        if (strcmp(name, "stop_gradient") == 0)
            return d2_bool(I, t->stop_gradient);
        break;
    case 'd':
        if (strcmp(name, "dtype") == 0)
            return dtype_obj_new(I, t->type.dtype, false);
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
            return t_transpose_all(I, o);
        break;
    case 'p':
        if (strcmp(name, "place") == 0)
            return d2_str_from(I, "Place(cpu)");
        if (strcmp(name, "persistable") == 0)
            return d2_bool(I, t->persistable);
        break;
    case 'g':
        if (strcmp(name, "grad") == 0)
            return d2_none(I);
        break;
    case 'i':
        if (strcmp(name, "is_leaf") == 0)
            return d2_bool(I, true);
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
        if (get_bool(I, v, "Tensor", name, &b) < 0)
            return -1;
        t->stop_gradient = name[0] == 's' ? b : !b;
        return 0;
    }
    if (strcmp(name, "persistable") == 0) {
        bool b;
        if (get_bool(I, v, "Tensor", name, &b) < 0)
            return -1;
        t->persistable = b;
        return 0;
    }
    if (strcmp(name, "name") == 0) {
        const char *s = get_str(I, v, "Tensor", "name");
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
    d2_obj *r =
        it->src->kind == D2_OBJ_TENSOR ? tensor_getitem(I, it->src, k) : d2_getitem(I, it->src, k);
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
    binop_op(op, &ok);
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
    return tensor_setitem(I, o, key, v);
}

static const d2_type_hooks tensor_hooks = {
    .binop = hook_binop,
    .unaryop = d2_pd_unaryop,
    .compare = hook_compare,
    .truthy = d2_pd_truth,
    .len = tensor_len,
    .getitem = tensor_getitem,
    .setitem = hook_setitem,
    .get_iter = tensor_get_iter,
    .repr = tensor_to_string,
    .str = tensor_to_string,
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
    d2_tensor *h = d2_pd_host(I, self, "Tensor.numpy");
    if (!h)
        return NULL;
    d2_err err = {0};
    d2_tensor *c = d2_tensor_copy_to(h, NULL, &err);
    d2_tensor_unref(h);
    if (!c)
        return d2_raise_err(I, &err);
    return ndarray_take(I, c);
}

static d2_obj *m_item(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.item");
    if (D2_MODE(I)->tracer)
        trace_frozen(I, self, D2_FREEZE_ITEM);
    D2_UNUSED(kw);
    d2_tensor *h = d2_pd_host(I, self, "Tensor.item");
    if (!h)
        return NULL;
    d2_obj *r;
    int64_t n = d2_tensor_numel(h);
    if (nargs > 0) {
        int64_t idx = 0;
        if (nargs == 1 && get_int(I, args[0], "Tensor.item", "index", &idx) == 0) {
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
    v = to_backend(I, v);
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

static d2_obj *m_self(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_incref(self);
}

static d2_obj *m_dim(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.dim");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_int_new(I, obj_type(self)->shape.ndim);
}

static d2_obj *m_backward(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.backward");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_raise(I, "NotImplementedError",
                    "Tensor.backward: dy2st runs inference only; gradients are not supported");
}

static d2_obj *m_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.__repr__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return tensor_to_string(I, self);
}

static d2_obj *m_getitem(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Tensor.__getitem__");
    D2_UNUSED(kw);
    if (nargs != 1)
        return d2_raise(I, "TypeError", "Tensor.__getitem__ takes one argument");
    return tensor_getitem(I, self, args[0]);
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
 * paddle.nn.Layer
 *
 * A builtin class of INSTANCE layout that user classes subclass. As in
 * Paddle, the instance dict holds _parameters, _sub_layers and _buffers
 * (insertion-ordered dicts), the hook dicts, training and _full_name;
 * __setattr__ routes parameters, sublayers and tensors into them and
 * __getattr__ finds them there.
 * ====================================================================== */

static d2_dict *idict(d2_obj *o)
{
    return o && o->kind == D2_OBJ_INSTANCE ? D2_AS(d2_instance, o)->dict : NULL;
}

/* Borrowed attribute from an instance dict (NULL when absent). */
static d2_obj *iget(d2_interp *I, d2_obj *o, const char *name)
{
    d2_dict *d = idict(o);
    return d ? d2_dict_get_str(I, d, name) : NULL;
}

static int iset(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    d2_dict *d = idict(o);
    if (!d) {
        d2_raise(I, "TypeError", "internal: %s is not an instance", d2_type_name(o));
        return -1;
    }
    return d2_dict_set_str(I, d, name, v);
}

/* Sets a new reference v as attribute name (releases v). */
static int iset_take(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    if (!v)
        return -1;
    int rc = iset(I, o, name, v);
    d2_decref(v);
    return rc;
}

static bool is_layer(d2_interp *I, d2_obj *o)
{
    pd_state *s = ST(I);
    return o && o->kind == D2_OBJ_INSTANCE && s->layer_cls && d2_isinstance(I, o, s->layer_cls);
}

static bool is_param(d2_obj *o) { return is_tensor(o) && TOBJ(o)->persistable; }

static d2_dict *layer_dict(d2_interp *I, d2_obj *self, const char *which)
{
    d2_obj *d = iget(I, self, which);
    return d && d->kind == D2_OBJ_DICT ? D2_AS(d2_dict, d) : NULL;
}

/* Paddle's unique_name.generate(key): "key_N" with a counter per key. */
static const char *unique_name(d2_interp *I, const char *key)
{
    pd_state *s = ST(I);
    d2_obj *c = d2_dict_get_str(I, s->name_counters, key);
    int64_t n = c ? D2_AS(d2_int, c)->v : 0;
    d2_obj *nv = d2_int_new(I, n + 1);
    if (!nv || d2_dict_set_str(I, s->name_counters, key, nv) < 0) {
        d2_decref(nv);
        return NULL;
    }
    d2_decref(nv);
    char *r = d2_arena_printf(I->arena, "%s_%lld", key, (long long)n);
    if (!r)
        nomem(I);
    return r;
}

/* Paddle's _convert_camel_to_snake: (.)([A-Z][a-z]+) -> \1_\2, then
 * ([a-z])([A-Z]) -> \1_\2, lowercased. */
static void camel_to_snake(const char *in, char *out, size_t cap)
{
    char tmp[256];
    size_t n = 0, len = strlen(in);
    for (size_t i = 0; i < len && n + 2 < sizeof tmp; i++) {
        if (i > 0 && isupper((unsigned char)in[i]) && i + 1 < len &&
            islower((unsigned char)in[i + 1]))
            tmp[n++] = '_';
        tmp[n++] = in[i];
    }
    tmp[n] = 0;
    size_t m = 0;
    for (size_t i = 0; i < n && m + 2 < cap; i++) {
        if (i > 0 && isupper((unsigned char)tmp[i]) && islower((unsigned char)tmp[i - 1]))
            out[m++] = '_';
        out[m++] = (char)tolower((unsigned char)tmp[i]);
    }
    out[m] = 0;
}

D2_FN(L_init)
{
    if (!idict(self))
        return d2_raise(I, "TypeError", "Layer.__init__: self must be a Layer instance");
    if (layer_dict(I, self, "_parameters"))
        return d2_none(I); /* already initialised (a second super().__init__()) */
    char snake[256];
    const char *scope;
    if (!is_none(I, a[0])) {
        scope = get_str(I, a[0], "Layer.__init__", "name_scope");
        if (!scope)
            return NULL;
        snprintf(snake, sizeof snake, "%s", scope);
    } else {
        camel_to_snake(self->cls->name, snake, sizeof snake);
    }
    const char *full = unique_name(I, snake);
    if (!full)
        return NULL;
    int dt;
    if (d2_pd_parse_dtype(I, a[1], "Layer.__init__", false, &dt) < 0)
        return NULL;
    if (dt < 0)
        dt = D2_F32;
    if (iset(I, self, "training", I->true_) < 0 ||
        iset_take(I, self, "_parameters", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_sub_layers", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_buffers", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_non_persistable_buffer_names_set", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_forward_pre_hooks", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_forward_post_hooks", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_full_name", d2_str_from(I, full)) < 0 ||
        iset_take(I, self, "_dtype", d2_str_from(I, dtname(dt))) < 0)
        return NULL;
    return d2_none(I);
}

static int need_init(d2_interp *I, d2_obj *self, const char *what)
{
    if (layer_dict(I, self, "_parameters"))
        return 0;
    d2_raise(I, "ValueError",
             "%s: super(%s, self).__init__() should be called first (the Layer is not "
             "initialised)",
             what, self->cls->name);
    return -1;
}

/* Removes name from the instance dict and the given layer dicts, if present. */
static void remove_from(d2_interp *I, d2_obj *self, const char *name, const char *d1,
                        const char *d2)
{
    d2_obj *key = d2_str_from(I, name);
    if (!key)
        return;
    d2_dict *ds[3] = {idict(self), layer_dict(I, self, d1), layer_dict(I, self, d2)};
    for (int i = 0; i < 3; i++)
        if (ds[i] && d2_dict_get(I, ds[i], key))
            d2_dict_del(I, ds[i], key);
    d2_decref(key);
}

static int layer_setattr_impl(d2_interp *I, d2_obj *self, const char *name, d2_obj *v)
{
    d2_dict *params = layer_dict(I, self, "_parameters");
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    d2_dict *bufs = layer_dict(I, self, "_buffers");
    if (is_param(v)) {
        if (need_init(I, self, "Layer.__setattr__") < 0)
            return -1;
        remove_from(I, self, name, "_buffers", "_sub_layers");
        return d2_dict_set_str(I, params, name, v);
    }
    if (params && d2_dict_get_str(I, params, name)) {
        if (!is_none(I, v)) {
            d2_raise(
                I, "TypeError",
                "assignment to parameter '%s' should be of type Parameter or None, but got '%s'",
                name, d2_type_name(v));
            return -1;
        }
        return d2_dict_set_str(I, params, name, I->none);
    }
    if (is_layer(I, v)) {
        if (need_init(I, self, "Layer.__setattr__") < 0)
            return -1;
        remove_from(I, self, name, "_parameters", "_buffers");
        return d2_dict_set_str(I, subs, name, v);
    }
    if (subs && d2_dict_get_str(I, subs, name)) {
        if (!is_none(I, v)) {
            d2_raise(I, "TypeError",
                     "assignment to sublayer '%s' should be of type Layer or None, but got '%s'",
                     name, d2_type_name(v));
            return -1;
        }
        return d2_dict_set_str(I, subs, name, I->none);
    }
    if (is_tensor(v)) {
        if (need_init(I, self, "Layer.__setattr__") < 0)
            return -1;
        remove_from(I, self, name, "_parameters", "_sub_layers");
        if (!d2_dict_get_str(I, bufs, name)) {
            d2_dict *np = layer_dict(I, self, "_non_persistable_buffer_names_set");
            if (np && d2_dict_set_str(I, np, name, I->true_) < 0)
                return -1;
        }
        return d2_dict_set_str(I, bufs, name, v);
    }
    if (bufs && d2_dict_get_str(I, bufs, name)) {
        if (!is_none(I, v)) {
            d2_raise(I, "TypeError",
                     "assignment to buffer '%s' should be of type Tensor or None, but got '%s'",
                     name, d2_type_name(v));
            return -1;
        }
        return d2_dict_set_str(I, bufs, name, I->none);
    }
    return iset(I, self, name, v);
}

static d2_obj *L_setattr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.__setattr__");
    D2_UNUSED(kw);
    if (nargs != 2 || args[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError",
                        "Layer.__setattr__(name, value) takes a string and a value");
    if (layer_setattr_impl(I, self, D2_AS(d2_str, args[0])->s, args[1]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *L_getattr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.__getattr__");
    D2_UNUSED(kw);
    if (nargs != 1 || args[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError", "Layer.__getattr__(name) takes a string");
    const char *name = D2_AS(d2_str, args[0])->s;
    static const char *where[] = {"_parameters", "_sub_layers", "_buffers"};
    for (int i = 0; i < 3; i++) {
        d2_dict *d = layer_dict(I, self, where[i]);
        d2_obj *v = d ? d2_dict_get_str(I, d, name) : NULL;
        if (v)
            return d2_incref(v);
    }
    return d2_raise(I, "AttributeError", "'%s' object has no attribute '%s'", self->cls->name,
                    name);
}

static d2_obj *L_forward(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.forward");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_raise(I, "NotImplementedError", "%s.forward is not implemented", self->cls->name);
}

static d2_obj *L_call(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.__call__");
    if (need_init(I, self, "Layer.__call__") < 0)
        return NULL;
    d2_obj *inputs = tuple_new(I, nargs);
    if (!inputs)
        return NULL;
    for (size_t i = 0; i < nargs; i++)
        D2_AS(d2_tuple, inputs)->items[i] = d2_incref(args[i]);
    d2_dict *pre = layer_dict(I, self, "_forward_pre_hooks");
    for (size_t i = 0; pre && i < pre->n; i++) {
        d2_dict_entry *e = &pre->entries[i];
        if (!e->key)
            continue;
        d2_obj *hargs[2] = {self, inputs};
        d2_obj *hr = d2_call(I, e->value, hargs, 2, NULL);
        if (!hr) {
            d2_decref(inputs);
            return NULL;
        }
        if (!is_none(I, hr)) {
            if (hr->kind == D2_OBJ_TUPLE) {
                d2_setref(&inputs, hr);
                continue;
            }
            d2_obj *t = d2_tuple_pack(I, 1, hr);
            d2_decref(hr);
            if (!t) {
                d2_decref(inputs);
                return NULL;
            }
            d2_setref(&inputs, t);
        } else {
            d2_decref(hr);
        }
    }
    d2_obj *out = d2_call_method(I, self, "forward", D2_AS(d2_tuple, inputs)->items,
                                 D2_AS(d2_tuple, inputs)->n, kw);
    d2_dict *post = layer_dict(I, self, "_forward_post_hooks");
    for (size_t i = 0; out && post && i < post->n; i++) {
        d2_dict_entry *e = &post->entries[i];
        if (!e->key)
            continue;
        d2_obj *hargs[3] = {self, inputs, out};
        d2_obj *hr = d2_call(I, e->value, hargs, 3, NULL);
        if (!hr)
            d2_setref(&out, NULL);
        else if (!is_none(I, hr))
            d2_setref(&out, hr);
        else
            d2_decref(hr);
    }
    d2_decref(inputs);
    return out;
}

/* ---- hook handles ---- */

static d2_obj *H_remove(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("HookRemoveHelper.remove");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *d = iget(I, self, "_hooks");
    d2_obj *id = iget(I, self, "_hook_id");
    if (d && id && d->kind == D2_OBJ_DICT && d2_dict_get(I, D2_AS(d2_dict, d), id) &&
        d2_dict_del(I, D2_AS(d2_dict, d), id) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *add_hook(d2_interp *I, d2_obj *self, const char *which, d2_obj *fn)
{
    if (need_init(I, self, which) < 0)
        return NULL;
    d2_dict *d = layer_dict(I, self, which);
    static int64_t next_id;
    d2_obj *id = d2_int_new(I, next_id++);
    if (!id || d2_dict_set(I, d, id, fn) < 0) {
        d2_decref(id);
        return NULL;
    }
    d2_obj *h = d2_instance_new(I, ST(I)->hook_cls);
    if (!h || iset(I, h, "_hooks", (d2_obj *)d) < 0 || iset(I, h, "_hook_id", id) < 0) {
        d2_decref(h);
        h = NULL;
    }
    d2_decref(id);
    return h;
}

D2_FN(L_register_forward_pre_hook)
{
    return add_hook(I, self, "_forward_pre_hooks", a[0]);
}

D2_FN(L_register_forward_post_hook)
{
    return add_hook(I, self, "_forward_post_hooks", a[0]);
}

/* ---- traversal ---- */

static const char *join_name(char *buf, size_t cap, const char *prefix, const char *key)
{
    snprintf(buf, cap, "%s%s%s", prefix, prefix[0] ? "." : "", key);
    return buf;
}

/* Appends (name, layer) pairs of self's sublayers (depth first, pre-order,
 * each layer once) to list; include_self adds self first. */
static int named_sublayers_rec(d2_interp *I, d2_obj *self, const char *prefix, bool include_self,
                               d2_obj *list, d2_obj *seen)
{
    if (include_self) {
        for (size_t i = 0; i < D2_AS(d2_list, seen)->n; i++)
            if (D2_AS(d2_list, seen)->items[i] == self)
                return 0;
        if (d2_list_append(I, seen, self) < 0)
            return -1;
        d2_obj *name = d2_str_from(I, prefix);
        d2_obj *pair = name ? d2_tuple_pack(I, 2, name, self) : NULL;
        int rc = pair ? d2_list_append(I, list, pair) : -1;
        d2_decref(name);
        d2_decref(pair);
        if (rc < 0)
            return -1;
    }
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    for (size_t i = 0; subs && i < subs->n; i++) {
        d2_dict_entry *e = &subs->entries[i];
        if (!e->key || is_none(I, e->value) || e->key->kind != D2_OBJ_STR)
            continue;
        char buf[1024];
        join_name(buf, sizeof buf, prefix, D2_AS(d2_str, e->key)->s);
        if (named_sublayers_rec(I, e->value, buf, true, list, seen) < 0)
            return -1;
    }
    return 0;
}

static d2_obj *named_sublayers(d2_interp *I, d2_obj *self, const char *prefix, bool include_self)
{
    d2_obj *list = d2_list_new(I, 0);
    d2_obj *seen = d2_list_new(I, 0);
    if (!list || !seen || named_sublayers_rec(I, self, prefix, include_self, list, seen) < 0) {
        d2_decref(list);
        d2_decref(seen);
        return NULL;
    }
    d2_decref(seen);
    return list;
}

/* (name, value) pairs of the _parameters or _buffers dicts of self and (when
 * include_sublayers) its sublayers, each value once. */
static d2_obj *named_members(d2_interp *I, d2_obj *self, const char *which, const char *prefix,
                             bool include_sublayers)
{
    d2_obj *layers;
    if (include_sublayers) {
        layers = named_sublayers(I, self, prefix, true);
    } else {
        d2_obj *name = d2_str_from(I, prefix);
        d2_obj *pair = name ? d2_tuple_pack(I, 2, name, self) : NULL;
        layers = pair ? d2_list_new(I, 0) : NULL;
        if (layers && d2_list_append(I, layers, pair) < 0)
            d2_setref(&layers, NULL);
        d2_decref(name);
        d2_decref(pair);
    }
    if (!layers)
        return NULL;
    d2_obj *out = d2_list_new(I, 0);
    d2_obj *seen = d2_list_new(I, 0);
    for (size_t i = 0; out && seen && i < D2_AS(d2_list, layers)->n; i++) {
        d2_tuple *pair = D2_AS(d2_tuple, D2_AS(d2_list, layers)->items[i]);
        const char *lp = D2_AS(d2_str, pair->items[0])->s;
        d2_dict *d = layer_dict(I, pair->items[1], which);
        for (size_t k = 0; d && k < d->n; k++) {
            d2_dict_entry *e = &d->entries[k];
            if (!e->key || is_none(I, e->value) || e->key->kind != D2_OBJ_STR)
                continue;
            bool dup = false;
            for (size_t j = 0; j < D2_AS(d2_list, seen)->n && !dup; j++)
                dup = D2_AS(d2_list, seen)->items[j] == e->value;
            if (dup)
                continue;
            char buf[1024];
            join_name(buf, sizeof buf, lp, D2_AS(d2_str, e->key)->s);
            d2_obj *name = d2_str_from(I, buf);
            d2_obj *np = name ? d2_tuple_pack(I, 2, name, e->value) : NULL;
            if (!np || d2_list_append(I, out, np) < 0 || d2_list_append(I, seen, e->value) < 0)
                d2_setref(&out, NULL);
            d2_decref(name);
            d2_decref(np);
            if (!out)
                break;
        }
    }
    d2_decref(seen);
    d2_decref(layers);
    return out;
}

/* The second items of a list of pairs. */
static d2_obj *seconds(d2_interp *I, d2_obj *pairs)
{
    if (!pairs)
        return NULL;
    d2_obj *out = d2_list_new(I, 0);
    for (size_t i = 0; out && i < D2_AS(d2_list, pairs)->n; i++)
        if (d2_list_append(I, out, D2_AS(d2_tuple, D2_AS(d2_list, pairs)->items[i])->items[1]) < 0)
            d2_setref(&out, NULL);
    d2_decref(pairs);
    return out;
}

D2_FN(L_named_parameters)
{
    bool inc;
    const char *prefix = get_str(I, a[0], "Layer.named_parameters", "prefix");
    if (!prefix || get_bool(I, a[1], "Layer.named_parameters", "include_sublayers", &inc) < 0)
        return NULL;
    return named_members(I, self, "_parameters", prefix, inc);
}

D2_FN(L_parameters)
{
    bool inc;
    if (get_bool(I, a[0], "Layer.parameters", "include_sublayers", &inc) < 0)
        return NULL;
    return seconds(I, named_members(I, self, "_parameters", "", inc));
}

D2_FN(L_named_buffers)
{
    bool inc;
    const char *prefix = get_str(I, a[0], "Layer.named_buffers", "prefix");
    if (!prefix || get_bool(I, a[1], "Layer.named_buffers", "include_sublayers", &inc) < 0)
        return NULL;
    return named_members(I, self, "_buffers", prefix, inc);
}

D2_FN(L_buffers)
{
    bool inc;
    if (get_bool(I, a[0], "Layer.buffers", "include_sublayers", &inc) < 0)
        return NULL;
    return seconds(I, named_members(I, self, "_buffers", "", inc));
}

D2_FN(L_named_sublayers)
{
    bool inc;
    const char *prefix = get_str(I, a[0], "Layer.named_sublayers", "prefix");
    if (!prefix || get_bool(I, a[1], "Layer.named_sublayers", "include_self", &inc) < 0)
        return NULL;
    return named_sublayers(I, self, prefix, inc);
}

D2_FN(L_sublayers)
{
    bool inc;
    if (get_bool(I, a[0], "Layer.sublayers", "include_self", &inc) < 0)
        return NULL;
    return seconds(I, named_sublayers(I, self, "", inc));
}

static d2_obj *L_named_children(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                d2_dict *kw)
{
    SELF_ARG("Layer.named_children");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *out = d2_list_new(I, 0);
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    for (size_t i = 0; out && subs && i < subs->n; i++) {
        d2_dict_entry *e = &subs->entries[i];
        if (!e->key || is_none(I, e->value))
            continue;
        bool dup = false;
        for (size_t j = 0; j < D2_AS(d2_list, out)->n && !dup; j++)
            dup = D2_AS(d2_tuple, D2_AS(d2_list, out)->items[j])->items[1] == e->value;
        if (dup)
            continue;
        d2_obj *pair = d2_tuple_pack(I, 2, e->key, e->value);
        if (!pair || d2_list_append(I, out, pair) < 0)
            d2_setref(&out, NULL);
        d2_decref(pair);
    }
    return out;
}

static d2_obj *L_children(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.children");
    return seconds(I, L_named_children(I, self, args, nargs, kw));
}

/* Paddle's _state_dict_impl: own parameters, own persistable buffers, then
 * each sublayer's entries under "name.". */
static int state_dict_rec(d2_interp *I, d2_obj *self, const char *prefix, bool include_sub,
                          d2_dict *dest)
{
    d2_dict *params = layer_dict(I, self, "_parameters");
    d2_dict *bufs = layer_dict(I, self, "_buffers");
    d2_dict *np = layer_dict(I, self, "_non_persistable_buffer_names_set");
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    d2_dict *srcs[2] = {params, bufs};
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; srcs[s] && i < srcs[s]->n; i++) {
            d2_dict_entry *e = &srcs[s]->entries[i];
            if (!e->key || is_none(I, e->value) || e->key->kind != D2_OBJ_STR)
                continue;
            if (s == 1 && np && d2_dict_get(I, np, e->key))
                continue;
            char buf[1024];
            snprintf(buf, sizeof buf, "%s%s", prefix, D2_AS(d2_str, e->key)->s);
            if (d2_dict_set_str(I, dest, buf, e->value) < 0)
                return -1;
        }
    }
    for (size_t i = 0; include_sub && subs && i < subs->n; i++) {
        d2_dict_entry *e = &subs->entries[i];
        if (!e->key || is_none(I, e->value) || e->key->kind != D2_OBJ_STR)
            continue;
        char buf[1024];
        snprintf(buf, sizeof buf, "%s%s.", prefix, D2_AS(d2_str, e->key)->s);
        if (state_dict_rec(I, e->value, buf, true, dest) < 0)
            return -1;
    }
    return 0;
}

D2_FN(L_state_dict)
{
    bool inc;
    const char *prefix = get_str(I, a[2], "Layer.state_dict", "structured_name_prefix");
    if (!prefix || get_bool(I, a[1], "Layer.state_dict", "include_sublayers", &inc) < 0)
        return NULL;
    d2_obj *dest;
    if (!is_none(I, a[0])) {
        if (a[0]->kind != D2_OBJ_DICT)
            return d2_raise(I, "TypeError", "Layer.state_dict: destination must be a dict");
        dest = d2_incref(a[0]);
    } else {
        dest = d2_dict_new(I);
        if (!dest)
            return NULL;
    }
    if (state_dict_rec(I, self, prefix, inc, D2_AS(d2_dict, dest)) < 0) {
        d2_decref(dest);
        return NULL;
    }
    return dest;
}

static void warn_here(d2_interp *I, const char *msg)
{
    d2_span sp;
    memset(&sp, 0, sizeof sp);
    const d2_module *m = NULL;
    if (I->frame) {
        sp = I->frame->span;
        m = I->frame->module;
    }
    d2_warn(I, sp, m, "%s", msg);
}

D2_FN(L_set_state_dict)
{
    const char *fname = "Layer.set_state_dict";
    if (a[0]->kind != D2_OBJ_DICT)
        return d2_raise(I, "TypeError", "%s: state_dict must be a dict, got %s", fname,
                        d2_type_name(a[0]));
    bool structured;
    if (get_bool(I, a[1], fname, "use_structured_name", &structured) < 0)
        return NULL;
    d2_dict *sd = D2_AS(d2_dict, a[0]);
    d2_obj *own = d2_dict_new(I);
    d2_obj *missing = d2_list_new(I, 0), *unexpected = d2_list_new(I, 0), *matched = d2_dict_new(I);
    d2_obj *r = NULL;
    if (!own || !missing || !unexpected || !matched ||
        state_dict_rec(I, self, "", true, D2_AS(d2_dict, own)) < 0)
        goto done;
    d2_dict *od = D2_AS(d2_dict, own);
    for (size_t i = 0; i < od->n; i++) {
        d2_dict_entry *e = &od->entries[i];
        if (!e->key)
            continue;
        d2_obj *param = e->value;
        d2_obj *key = e->key;
        if (!structured) {
            if (!TOBJ(param)->name)
                continue;
            key = d2_str_from(I, TOBJ(param)->name);
            if (!key)
                goto done;
        } else {
            d2_incref(key);
        }
        const char *ks = D2_AS(d2_str, key)->s;
        d2_obj *state = d2_dict_get(I, sd, key);
        char msg[1200];
        if (!state) {
            d2_list_append(I, missing, key);
            snprintf(msg, sizeof msg, "Skip loading for %s. %s is not found in the provided dict.",
                     D2_AS(d2_str, e->key)->s, ks);
            warn_here(I, msg);
            d2_decref(key);
            continue;
        }
        d2_tensor *v = d2_pd_from_py(I, state, TOBJ(param)->type.dtype, D2_F32, fname);
        if (!v) {
            d2_decref(key);
            goto done;
        }
        d2_shape vs;
        d2_tensor_get_shape(v, &vs);
        if (!d2_shape_equal(&vs, &TOBJ(param)->type.shape)) {
            d2_buf sb;
            d2_buf_init(&sb);
            shape_list_str(&sb, &vs);
            d2_buf_puts(&sb, ", but the expected shape is ");
            shape_list_str(&sb, &TOBJ(param)->type.shape);
            snprintf(msg, sizeof msg, "Skip loading for %s. %s receives a shape %s.",
                     D2_AS(d2_str, e->key)->s, ks, sb.data ? sb.data : "");
            d2_buf_free(&sb);
            warn_here(I, msg);
            d2_list_append(I, missing, key);
            d2_tensor_unref(v);
            d2_decref(key);
            continue;
        }
        d2_dict_set(I, D2_AS(d2_dict, matched), key, I->true_);
        d2_decref(key);
        v = to_backend(I, v);
        if (!v)
            goto done;
        if (TOBJ(param)->t)
            d2_tensor_unref(TOBJ(param)->t);
        TOBJ(param)->t = v;
    }
    for (size_t i = 0; i < sd->n; i++) {
        d2_dict_entry *e = &sd->entries[i];
        if (e->key && !d2_dict_get(I, D2_AS(d2_dict, matched), e->key) &&
            d2_list_append(I, unexpected, e->key) < 0)
            goto done;
    }
    r = d2_tuple_pack(I, 2, missing, unexpected);
done:
    d2_decref(own);
    d2_decref(missing);
    d2_decref(unexpected);
    d2_decref(matched);
    return r;
}

static int set_training(d2_interp *I, d2_obj *self, bool on)
{
    d2_obj *all = named_sublayers(I, self, "", true);
    if (!all)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < D2_AS(d2_list, all)->n; i++)
        rc = iset(I, D2_AS(d2_tuple, D2_AS(d2_list, all)->items[i])->items[1], "training",
                  on ? I->true_ : I->false_);
    d2_decref(all);
    return rc;
}

static d2_obj *L_train(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.train");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return set_training(I, self, true) < 0 ? NULL : d2_none(I);
}

static d2_obj *L_eval(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.eval");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return set_training(I, self, false) < 0 ? NULL : d2_none(I);
}

D2_FN(L_add_sublayer)
{
    const char *name = get_str(I, a[0], "Layer.add_sublayer", "name");
    if (!name || need_init(I, self, "Layer.add_sublayer") < 0)
        return NULL;
    if (!is_layer(I, a[1]) && !is_none(I, a[1]))
        return d2_raise(I, "TypeError", "Layer.add_sublayer: sublayer must be a Layer, got %s",
                        d2_type_name(a[1]));
    if (d2_dict_set_str(I, layer_dict(I, self, "_sub_layers"), name, a[1]) < 0)
        return NULL;
    return d2_incref(a[1]);
}

D2_FN(L_add_parameter)
{
    const char *name = get_str(I, a[0], "Layer.add_parameter", "name");
    if (!name || need_init(I, self, "Layer.add_parameter") < 0)
        return NULL;
    if (!is_none(I, a[1]) && !is_tensor(a[1]))
        return d2_raise(I, "TypeError",
                        "Layer.add_parameter: parameter must be a Parameter, got %s",
                        d2_type_name(a[1]));
    if (is_tensor(a[1]))
        TOBJ(a[1])->persistable = true;
    if (d2_dict_set_str(I, layer_dict(I, self, "_parameters"), name, a[1]) < 0)
        return NULL;
    return d2_incref(a[1]);
}

D2_FN(L_register_buffer)
{
    const char *fname = "Layer.register_buffer";
    const char *name = get_str(I, a[0], fname, "name");
    bool pers;
    if (!name || get_bool(I, a[2], fname, "persistable", &pers) < 0 ||
        need_init(I, self, fname) < 0)
        return NULL;
    if (!name[0] || strchr(name, '.'))
        return d2_raise(I, "KeyError",
                        "%s: the name of a buffer must be non-empty and contain no '.'", fname);
    if (!is_none(I, a[1]) && !is_tensor(a[1]))
        return d2_raise(I, "TypeError", "%s: tensor must be a Tensor or None, got %s", fname,
                        d2_type_name(a[1]));
    remove_from(I, self, name, "_parameters", "_sub_layers");
    d2_dict *np = layer_dict(I, self, "_non_persistable_buffer_names_set");
    d2_obj *key = d2_str_from(I, name);
    if (!key)
        return NULL;
    int rc = 0;
    if (pers) {
        if (d2_dict_get(I, np, key))
            rc = d2_dict_del(I, np, key);
    } else {
        rc = d2_dict_set(I, np, key, I->true_);
    }
    d2_decref(key);
    if (rc < 0 || d2_dict_set_str(I, layer_dict(I, self, "_buffers"), name, a[1]) < 0)
        return NULL;
    if (is_tensor(a[1]) && !TOBJ(a[1])->name) {
        char buf[300];
        snprintf(buf, sizeof buf, "_buffers_%s", name);
        TOBJ(a[1])->name = unique_name(I, buf);
    }
    return d2_none(I);
}

static d2_obj *L_full_name(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.full_name");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *v = iget(I, self, "_full_name");
    return v ? d2_incref(v) : d2_str_from(I, "");
}

static d2_obj *L_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_str_from(I, "");
}

/* Indents every line of s but the first by n spaces (Paddle's _addindent). */
static void add_indent(d2_buf *b, const char *s, int n)
{
    for (const char *p = s; *p; p++) {
        d2_buf_append(b, p, 1);
        if (*p == '\n')
            for (int i = 0; i < n; i++)
                d2_buf_puts(b, " ");
    }
}

static d2_obj *L_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.__repr__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *extra = d2_call_method(I, self, "extra_repr", NULL, 0, NULL);
    if (!extra)
        return NULL;
    if (extra->kind != D2_OBJ_STR) {
        d2_decref(extra);
        return d2_raise(I, "TypeError", "extra_repr() must return a str");
    }
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_printf(&b, "%s(", self->cls->name);
    const char *ex = D2_AS(d2_str, extra)->s;
    if (strchr(ex, '\n')) {
        d2_buf_puts(&b, "\n  ");
        add_indent(&b, ex, 2);
        d2_buf_puts(&b, "\n");
    } else {
        d2_buf_puts(&b, ex);
    }
    d2_decref(extra);
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    bool any = false;
    for (size_t i = 0; subs && i < subs->n; i++) {
        d2_dict_entry *e = &subs->entries[i];
        if (!e->key || e->key->kind != D2_OBJ_STR)
            continue;
        d2_obj *r = d2_repr(I, e->value);
        if (!r) {
            d2_buf_free(&b);
            return NULL;
        }
        d2_buf_printf(&b, "\n  (%s): ", D2_AS(d2_str, e->key)->s);
        add_indent(&b, D2_AS(d2_str, r)->s, 2);
        d2_decref(r);
        any = true;
    }
    if (any)
        d2_buf_puts(&b, "\n");
    d2_buf_puts(&b, ")");
    d2_obj *r = b.oom ? nomem(I) : d2_str_new(I, b.data, b.len);
    d2_buf_free(&b);
    return r;
}

static d2_obj *L_to(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.to");
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_incref(self);
}

D2_FN(L_apply)
{
    d2_obj *kids = L_children(I, self, NULL, 0, NULL);
    if (!kids)
        return NULL;
    for (size_t i = 0; i < D2_AS(d2_list, kids)->n; i++) {
        d2_obj *r = d2_call_method(I, D2_AS(d2_list, kids)->items[i], "apply", a, 1, NULL);
        if (!r) {
            d2_decref(kids);
            return NULL;
        }
        d2_decref(r);
    }
    d2_decref(kids);
    d2_obj *r = d2_call(I, a[0], &self, 1, NULL);
    if (!r)
        return NULL;
    d2_decref(r);
    return d2_incref(self);
}

/* ======================================================================
 * Initializers, ParamAttr, create_parameter
 * ====================================================================== */

/* Initializer instances keep their kind and arguments in the instance dict:
 * _kind ("constant", "normal", "uniform", "xavier_uniform", ...) and the
 * constructor's arguments under their names. */
#define INITIALIZERS(X)                                                                            \
    X(Constant, "constant", "value=0.0")                                                           \
    X(Normal, "normal", "mean=0.0, std=1.0, name=None")                                            \
    X(TruncatedNormal, "truncated_normal", "mean=0.0, std=1.0, a=-2.0, b=2.0, name=None")          \
    X(Uniform, "uniform", "low=-1.0, high=1.0, name=None")                                         \
    X(XavierUniform, "xavier_uniform", "fan_in=None, fan_out=None, gain=1.0, name=None")           \
    X(XavierNormal, "xavier_normal", "fan_in=None, fan_out=None, gain=1.0, name=None")             \
    X(KaimingUniform, "kaiming_uniform",                                                           \
      "fan_in=None, negative_slope=0.0, nonlinearity='relu', name=None")                           \
    X(KaimingNormal, "kaiming_normal",                                                             \
      "fan_in=None, negative_slope=0.0, nonlinearity='relu', name=None")                           \
    X(Assign, "assign", "value, name=None")

static const char *param_names(const char *spec, int k, char *buf, size_t cap)
{
    /* k-th parameter name of a d2_parse_args spec */
    const char *p = spec;
    for (int i = 0; i < k; i++) {
        p = strchr(p, ',');
        if (!p)
            return NULL;
        p++;
    }
    while (*p == ' ')
        p++;
    size_t n = 0;
    while (*p && *p != '=' && *p != ',' && n + 1 < cap)
        buf[n++] = *p++;
    buf[n] = 0;
    return buf;
}

/* Initializer.__init__ of every kind: def->data is the kind, def->sig
 * names the arguments stored. */
D2_FN(init_ctor)
{
    const char *kind = def->data;
    if (iset_take(I, self, "_kind", d2_str_from(I, kind)) < 0)
        return NULL;
    for (int i = 0; i < 8; i++) {
        char nb[32];
        if (!param_names(def->sig, i, nb, sizeof nb))
            break;
        if (a[i] && iset(I, self, nb, a[i]) < 0)
            return NULL;
    }
    return d2_none(I);
}

/* One row per initializer class (INIT_DEFS[k] is class k's __init__). */
static const d2_def INIT_DEFS[] = {
#define X(c, kind, spec) D2_DEF_DATA("__init__", spec, init_ctor, #c ".__init__", kind),
    INITIALIZERS(X)
#undef X
};

static double iget_float(d2_interp *I, d2_obj *o, const char *name, double def)
{
    d2_obj *v = iget(I, o, name);
    return v && is_number(v) ? num_value(v) : def;
}

/* Paddle's _compute_fans. */
static void compute_fans(const int64_t *shape, int nd, double *fin, double *fout)
{
    if (nd == 0) {
        *fin = *fout = 1;
    } else if (nd == 1) {
        *fin = *fout = (double)shape[0];
    } else if (nd == 2) {
        *fin = (double)shape[0];
        *fout = (double)shape[1];
    } else {
        double rf = 1;
        for (int i = 2; i < nd; i++)
            rf *= (double)shape[i];
        *fin = (double)shape[1] * rf;
        *fout = (double)shape[0] * rf;
    }
}

static double kaiming_gain(d2_interp *I, d2_obj *init)
{
    d2_obj *nl = iget(I, init, "nonlinearity");
    const char *s = nl && nl->kind == D2_OBJ_STR ? D2_AS(d2_str, nl)->s : "relu";
    double slope = iget_float(I, init, "negative_slope", 0);
    if (strcmp(s, "relu") == 0)
        return sqrt(2.0);
    if (strcmp(s, "leaky_relu") == 0)
        return sqrt(2.0 / (1 + slope * slope));
    if (strcmp(s, "tanh") == 0)
        return 5.0 / 3;
    if (strcmp(s, "selu") == 0)
        return 3.0 / 4;
    return 1.0;
}

/* Fills a new host tensor of shape/dt as init says (NULL init: zeros). */
static d2_tensor *init_fill(d2_interp *I, d2_obj *init, const int64_t *shape, int nd, d2_dtype dt)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    const char *kind = "constant";
    if (init) {
        d2_obj *k = iget(I, init, "_kind");
        if (!k || k->kind != D2_OBJ_STR) {
            d2_raise(I, "TypeError", "create_parameter: %s is not a paddle.nn.initializer object",
                     d2_type_name(init));
            return NULL;
        }
        kind = D2_AS(d2_str, k)->s;
    }
    if (strcmp(kind, "assign") == 0) {
        d2_tensor *v = d2_pd_from_py(I, iget(I, init, "value"), dt, D2_F32, "Assign");
        if (!v)
            return NULL;
        if (d2_tensor_numel(v) != n) {
            d2_tensor_unref(v);
            d2_raise(I, "ValueError",
                     "Assign initializer: the value has %lld elements, the parameter %lld",
                     (long long)d2_tensor_numel(v), (long long)n);
            return NULL;
        }
        d2_err err = {0};
        d2_tensor *r = d2_tensor_reshape_view(v, nd, shape, &err);
        d2_tensor_unref(v);
        if (!r)
            d2_raise_err(I, &err);
        return r;
    }
    double *v = d2_malloc((size_t)n * sizeof *v + 1);
    if (!v) {
        nomem(I);
        return NULL;
    }
    d2_mt19937 *rng = &ST(I)->rng;
    double fin, fout;
    compute_fans(shape, nd, &fin, &fout);
    if (init) {
        d2_obj *fi = iget(I, init, "fan_in"), *fo = iget(I, init, "fan_out");
        if (fi && is_number(fi))
            fin = num_value(fi);
        if (fo && is_number(fo))
            fout = num_value(fo);
    }
    bool ok = true;
    if (strcmp(kind, "constant") == 0) {
        double c = init ? iget_float(I, init, "value", 0) : 0;
        for (int64_t i = 0; i < n; i++)
            v[i] = c;
    } else if (strcmp(kind, "normal") == 0 || strcmp(kind, "truncated_normal") == 0) {
        double m = iget_float(I, init, "mean", 0), s = iget_float(I, init, "std", 1);
        bool trunc = kind[0] == 't';
        double lo = iget_float(I, init, "a", -2), hi = iget_float(I, init, "b", 2);
        for (int64_t i = 0; i < n; i++) {
            double g = d2_mt_gauss(rng);
            for (int tries = 0; trunc && (g < lo || g > hi) && tries < 100; tries++)
                g = d2_mt_gauss(rng);
            v[i] = m + s * g;
        }
    } else if (strcmp(kind, "uniform") == 0) {
        double lo = iget_float(I, init, "low", -1), hi = iget_float(I, init, "high", 1);
        for (int64_t i = 0; i < n; i++)
            v[i] = lo + (hi - lo) * d2_mt_double(rng);
    } else if (strcmp(kind, "xavier_uniform") == 0) {
        double gain = init ? iget_float(I, init, "gain", 1) : 1;
        double lim = gain * sqrt(6.0 / (fin + fout));
        for (int64_t i = 0; i < n; i++)
            v[i] = -lim + 2 * lim * d2_mt_double(rng);
    } else if (strcmp(kind, "xavier_normal") == 0) {
        double std = iget_float(I, init, "gain", 1) * sqrt(2.0 / (fin + fout));
        for (int64_t i = 0; i < n; i++)
            v[i] = std * d2_mt_gauss(rng);
    } else if (strcmp(kind, "kaiming_uniform") == 0) {
        double lim = kaiming_gain(I, init) * sqrt(3.0 / fin);
        for (int64_t i = 0; i < n; i++)
            v[i] = -lim + 2 * lim * d2_mt_double(rng);
    } else if (strcmp(kind, "kaiming_normal") == 0) {
        double std = kaiming_gain(I, init) / sqrt(fin);
        for (int64_t i = 0; i < n; i++)
            v[i] = std * d2_mt_gauss(rng);
    } else {
        ok = false;
        d2_raise(I, "ValueError", "unknown initializer kind '%s'", kind);
    }
    d2_tensor *t = ok ? host_from_doubles(I, dt, nd, shape, v) : NULL;
    d2_free(v);
    return t;
}

D2_FN(Init_call)
{
    if (!is_tensor(a[0]) || is_sym(a[0]))
        return d2_raise(I, "TypeError", "Initializer.__call__: param must be a concrete Tensor");
    const d2_type *ty = obj_type(a[0]);
    d2_tensor *t = init_fill(I, self, ty->shape.dims, ty->shape.ndim, ty->dtype);
    t = t ? to_backend(I, t) : NULL;
    if (!t)
        return NULL;
    d2_tensor_unref(TOBJ(a[0])->t);
    TOBJ(a[0])->t = t;
    return d2_incref(a[0]);
}

#define PARAM_ATTR_SPEC                                                                            \
    "name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True, "           \
    "do_model_average=True, need_clip=True"

D2_FN(PA_init)
{
    for (int i = 0; i < 7; i++) {
        char nb[32];
        param_names(def->sig, i, nb, sizeof nb);
        if (iset(I, self, nb, a[i]) < 0)
            return NULL;
    }
    return d2_none(I);
}

/* Paddle's Layer.create_parameter / LayerHelper.create_parameter. attr may be
 * None, False (no parameter: returns None), a name string or a ParamAttr.
 * default_init NULL: Constant(0) for biases, Xavier uniform otherwise. */
static d2_obj *make_param(d2_interp *I, d2_obj *layer, const int64_t *shape, int nd, int dt,
                          d2_obj *attr, bool is_bias, d2_obj *default_init)
{
    pd_state *s = ST(I);
    if (attr && is_bool(attr) && !D2_AS(d2_int, attr)->v)
        return d2_none(I);
    const char *name = NULL;
    d2_obj *init = NULL;
    bool trainable = true;
    if (attr && attr->kind == D2_OBJ_STR) {
        name = D2_AS(d2_str, attr)->s;
    } else if (attr && attr->kind == D2_OBJ_INSTANCE && d2_isinstance(I, attr, s->param_attr_cls)) {
        d2_obj *n = iget(I, attr, "name");
        if (n && n->kind == D2_OBJ_STR)
            name = D2_AS(d2_str, n)->s;
        d2_obj *in = iget(I, attr, "initializer");
        if (in && !is_none(I, in))
            init = in;
        d2_obj *tr = iget(I, attr, "trainable");
        if (tr && is_number(tr))
            trainable = num_value(tr) != 0;
    } else if (attr && attr->kind == D2_OBJ_INSTANCE && s->init_cls &&
               d2_isinstance(I, attr, s->init_cls)) {
        init = attr;
    } else if (attr && !is_none(I, attr) && !(is_bool(attr) && D2_AS(d2_int, attr)->v)) {
        return d2_raise(I, "TypeError",
                        "create_parameter: attr must be a ParamAttr, a name, None or False, got %s",
                        d2_type_name(attr));
    }
    if (!init && default_init && !is_none(I, default_init))
        init = default_init;
    for (int i = 0; i < nd; i++)
        if (shape[i] < 0)
            return d2_raise(I, "ValueError",
                            "create_parameter: the shape must be static and non-negative");
    if (!name) {
        d2_obj *fn = layer ? iget(I, layer, "_full_name") : NULL;
        char key[300];
        snprintf(key, sizeof key, "%s.%s",
                 fn && fn->kind == D2_OBJ_STR ? D2_AS(d2_str, fn)->s : "param",
                 is_bias ? "b" : "w");
        name = unique_name(I, key);
        if (!name)
            return NULL;
    } else {
        name = d2_arena_strdup(I->arena, name);
    }
    d2_tensor *t;
    if (init) {
        t = init_fill(I, init, shape, nd, (d2_dtype)dt);
    } else if (is_bias) {
        t = init_fill(I, NULL, shape, nd, (d2_dtype)dt);
    } else {
        d2_obj *x = d2_instance_new(I, s->init_cls);
        if (!x)
            return NULL;
        if (iset_take(I, x, "_kind", d2_str_from(I, "xavier_uniform")) < 0) {
            d2_decref(x);
            return NULL;
        }
        t = init_fill(I, x, shape, nd, (d2_dtype)dt);
        d2_decref(x);
    }
    d2_obj *p = t ? wrap_host(I, t) : NULL;
    if (!p)
        return NULL;
    TOBJ(p)->persistable = true;
    TOBJ(p)->stop_gradient = !trainable;
    TOBJ(p)->name = name;
    return p;
}

D2_FN(L_create_parameter)
{
    const char *fname = "Layer.create_parameter";
    int64_t shape[D2_MAX_DIMS];
    int nd, dt;
    bool is_bias;
    if (shape_list(I, a[0], fname, shape, &nd) < 0 ||
        d2_pd_parse_dtype(I, a[2], fname, false, &dt) < 0 ||
        get_bool(I, a[3], fname, "is_bias", &is_bias) < 0)
        return NULL;
    if (dt < 0) {
        d2_obj *ld = iget(I, self, "_dtype");
        if (!ld || d2_pd_parse_dtype(I, ld, fname, false, &dt) < 0 || dt < 0)
            dt = D2_F32;
    }
    return make_param(I, self, shape, nd, dt, a[1], is_bias, a[4]);
}

D2_FN(f_create_parameter)
{
    const char *fname = "paddle.create_parameter";
    int64_t shape[D2_MAX_DIMS];
    int nd, dt;
    bool is_bias;
    if (shape_list(I, a[0], fname, shape, &nd) < 0 || dtype_arg(I, a[1], fname, D2_F32, &dt) < 0 ||
        get_bool(I, a[4], fname, "is_bias", &is_bias) < 0)
        return NULL;
    d2_obj *attr = !is_none(I, a[3]) ? a[3] : !is_none(I, a[2]) ? a[2] : NULL;
    return make_param(I, NULL, shape, nd, dt, attr, is_bias, a[5]);
}

/* Creates parameter `attr_name` on layer self and sets it (also None). */
static int add_param(d2_interp *I, d2_obj *self, const char *attr_name, const int64_t *shape,
                     int nd, d2_obj *attr, bool is_bias, d2_obj *default_init)
{
    int dt = D2_F32;
    d2_obj *ld = iget(I, self, "_dtype");
    if (ld && d2_pd_parse_dtype(I, ld, "Layer", false, &dt) < 0)
        return -1;
    if (dt < 0)
        dt = D2_F32;
    d2_obj *p = make_param(I, self, shape, nd, dt, attr, is_bias, default_init);
    if (!p)
        return -1;
    int rc =
        is_none(I, p) ? iset(I, self, attr_name, p) : layer_setattr_impl(I, self, attr_name, p);
    d2_decref(p);
    return rc;
}

/* A new initializer object of the given kind with one float argument. */
static d2_obj *make_init(d2_interp *I, const char *kind, const char *arg, double v,
                         const char *arg2, double v2)
{
    d2_obj *x = d2_instance_new(I, ST(I)->init_cls);
    if (!x)
        return NULL;
    if (iset_take(I, x, "_kind", d2_str_from(I, kind)) < 0 ||
        (arg && iset_take(I, x, arg, d2_float_new(I, v)) < 0) ||
        (arg2 && iset_take(I, x, arg2, d2_float_new(I, v2)) < 0)) {
        d2_decref(x);
        return NULL;
    }
    return x;
}

/* ======================================================================
 * Builtin layers
 * ====================================================================== */

static int base_init(d2_interp *I, d2_obj *self)
{
    d2_obj *dflt[2] = {NULL, NULL}; /* Layer.__init__'s defaults */
    d2_obj *r = L_init(I, self, dflt, NULL);
    if (!r)
        return -1;
    d2_decref(r);
    return 0;
}

/* Stores the constructor arguments a[0..] under the spec's names with a
 * leading underscore (Paddle's private attribute style). */
static int store_args(d2_interp *I, d2_obj *self, const char *spec, d2_obj **a, int n)
{
    for (int i = 0; i < n; i++) {
        char nb[40], key[48];
        if (!param_names(spec, i, nb, sizeof nb))
            break;
        snprintf(key, sizeof key, "_%s", nb);
        if (a[i] && iset(I, self, key, a[i]) < 0)
            return -1;
    }
    return 0;
}

/* Borrowed stored argument. */
static d2_obj *arg_of(d2_interp *I, d2_obj *self, const char *name)
{
    d2_obj *v = iget(I, self, name);
    return v ? v : I->none;
}

static bool layer_training(d2_interp *I, d2_obj *self)
{
    d2_obj *t = iget(I, self, "training");
    return !t || !is_number(t) || num_value(t) != 0;
}

/* Appends repr(o) to b; false with an exception pending. */
static bool repr_of(d2_interp *I, d2_buf *b, d2_obj *o)
{
    d2_obj *r = d2_repr(I, o);
    if (r)
        d2_buf_puts(b, D2_AS(d2_str, r)->s);
    d2_decref(r);
    return r != NULL;
}

static d2_obj *buf_result(d2_interp *I, d2_buf *b, bool ok)
{
    d2_obj *r = !ok ? NULL : b->oom ? nomem(I) : d2_str_new(I, b->data ? b->data : "", b->len);
    d2_buf_free(b);
    return r;
}

/* Applies act ('relu', 'sigmoid', 'tanh', 'softmax', None) after an old-style layer. */
static d2_obj *apply_act(d2_interp *I, const char *fname, d2_obj *x, d2_obj *act)
{
    if (!x || is_none(I, act))
        return x;
    const char *s = get_str(I, act, fname, "act");
    d2_obj *r = NULL;
    if (!s)
        r = NULL;
    else if (strcmp(s, "relu") == 0)
        r = op1(I, fname, D2_OP_relu, x, NULL);
    else if (strcmp(s, "sigmoid") == 0)
        r = op1(I, fname, D2_OP_sigmoid, x, NULL);
    else if (strcmp(s, "tanh") == 0)
        r = op1(I, fname, D2_OP_tanh, x, NULL);
    else if (strcmp(s, "softmax") == 0)
        r = op1(I, fname, D2_OP_softmax, x, NULL);
    else
        r = d2_raise(I, "ValueError", "%s: unsupported act '%s'", fname, s);
    d2_decref(x);
    return r;
}

/* ---- Linear ---- */

static d2_obj *linear_forward(d2_interp *I, const char *fname, d2_obj *self, d2_obj *x)
{
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *b = w ? d2_getattr(I, self, "bias") : NULL;
    d2_obj *r = NULL;
    if (b) {
        d2_obj *xt = as_tensor(I, x, -1, fname);
        if (xt) {
            d2_obj *in[3] = {xt, w, is_none(I, b) ? NULL : b};
            r = opn(I, fname, D2_OP_linear, in, 3, NULL);
        }
        d2_decref(xt);
    }
    d2_decref(w);
    d2_decref(b);
    return r;
}

D2_FN(Linear_init)
{
    const char *fname = "paddle.nn.Linear";
    int64_t in, out;
    if (get_int(I, a[0], fname, "in_features", &in) < 0 ||
        get_int(I, a[1], fname, "out_features", &out) < 0 || base_init(I, self) < 0)
        return NULL;
    int64_t ws[2] = {in, out};
    if (add_param(I, self, "weight", ws, 2, a[2], false, NULL) < 0 ||
        add_param(I, self, "bias", &out, 1, a[3], true, NULL) < 0 ||
        iset(I, self, "name", a[4]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(Linear_forward)
{
    return linear_forward(I, "paddle.nn.Linear", self, a[0]);
}

static d2_obj *Linear_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                 d2_dict *kw)
{
    SELF_ARG("Linear.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *w = d2_getattr(I, self, "weight");
    if (!w)
        return NULL;
    d2_obj *r;
    if (is_tensor(w) && obj_type(w)->shape.ndim == 2)
        r = d2_str_printf(I, "in_features=%lld, out_features=%lld, dtype=%s",
                          (long long)obj_type(w)->shape.dims[0],
                          (long long)obj_type(w)->shape.dims[1], dtname(obj_type(w)->dtype));
    else
        r = d2_str_from(I, "");
    d2_decref(w);
    return r;
}

/* fluid.dygraph.Linear(input_dim, output_dim, param_attr, bias_attr, act, dtype) */
D2_FN(FLinear_init)
{
    const char *fname = "fluid.dygraph.Linear";
    int64_t in, out;
    if (get_int(I, a[0], fname, "input_dim", &in) < 0 ||
        get_int(I, a[1], fname, "output_dim", &out) < 0 || base_init(I, self) < 0 ||
        iset(I, self, "_dtype", a[5]) < 0)
        return NULL;
    int64_t ws[2] = {in, out};
    if (add_param(I, self, "weight", ws, 2, a[2], false, NULL) < 0 ||
        add_param(I, self, "bias", &out, 1, a[3], true, NULL) < 0 ||
        iset(I, self, "_act", a[4]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(FLinear_forward)
{
    const char *fname = "fluid.dygraph.Linear";
    return apply_act(I, fname, linear_forward(I, fname, self, a[0]), arg_of(I, self, "_act"));
}

/* ---- Conv2D ---- */

static int conv_setup(d2_interp *I, d2_obj *self, const char *fname, int64_t in_ch, int64_t out_ch,
                      d2_obj *ksize, d2_obj *stride, d2_obj *padding, d2_obj *dilation,
                      int64_t groups, d2_obj *wattr, d2_obj *battr)
{
    int64_t ks[2], st[2], dil[2];
    if (pair_arg(I, ksize, fname, "kernel_size", ks) < 0 ||
        pair_arg(I, stride, fname, "stride", st) < 0 ||
        pair_arg(I, dilation, fname, "dilation", dil) < 0)
        return -1;
    if (groups <= 0 || in_ch % groups != 0 || out_ch % groups != 0) {
        d2_raise(
            I, "ValueError",
            "%s: in_channels (%lld) and out_channels (%lld) must be divisible by groups (%lld)",
            fname, (long long)in_ch, (long long)out_ch, (long long)groups);
        return -1;
    }
    d2_obj *ksl = shape_pylist(I, &(d2_shape){2, {ks[0], ks[1]}});
    d2_obj *stl = shape_pylist(I, &(d2_shape){2, {st[0], st[1]}});
    d2_obj *dil_l = shape_pylist(I, &(d2_shape){2, {dil[0], dil[1]}});
    d2_obj *ic = d2_int_new(I, in_ch), *oc = d2_int_new(I, out_ch), *g = d2_int_new(I, groups);
    int rc = (ksl && stl && dil_l && ic && oc && g && iset(I, self, "_kernel_size", ksl) == 0 &&
              iset(I, self, "_stride", stl) == 0 && iset(I, self, "_dilation", dil_l) == 0 &&
              iset(I, self, "_in_channels", ic) == 0 && iset(I, self, "_out_channels", oc) == 0 &&
              iset(I, self, "_groups", g) == 0 && iset(I, self, "_padding", padding) == 0)
                 ? 0
                 : -1;
    d2_decref(ksl);
    d2_decref(stl);
    d2_decref(dil_l);
    d2_decref(ic);
    d2_decref(oc);
    d2_decref(g);
    if (rc < 0)
        return -1;
    double std = sqrt(2.0 / (double)(ks[0] * ks[1] * in_ch));
    d2_obj *init = make_init(I, "normal", "mean", 0.0, "std", std);
    if (!init)
        return -1;
    int64_t ws[4] = {out_ch, in_ch / groups, ks[0], ks[1]};
    rc = add_param(I, self, "weight", ws, 4, wattr, false, init);
    d2_decref(init);
    if (rc < 0 || add_param(I, self, "bias", &out_ch, 1, battr, true, NULL) < 0)
        return -1;
    return 0;
}

static d2_obj *conv_forward(d2_interp *I, const char *fname, d2_obj *self, d2_obj *x)
{
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *b = w ? d2_getattr(I, self, "bias") : NULL;
    d2_obj *r = NULL;
    if (b) {
        d2_obj *dl = iget(I, self, "_dilation"), *g = iget(I, self, "_groups");
        r = conv2d_impl(I, fname, x, w, b, arg_of(I, self, "_stride"), arg_of(I, self, "_padding"),
                        dl ? dl : I->none, g ? g : I->none);
    }
    d2_decref(w);
    d2_decref(b);
    return r;
}

D2_FN(Conv2D_init)
{
    const char *fname = "paddle.nn.Conv2D";
    int64_t in, out, g;
    if (get_int(I, a[0], fname, "in_channels", &in) < 0 ||
        get_int(I, a[1], fname, "out_channels", &out) < 0 ||
        get_int(I, a[6], fname, "groups", &g) < 0 || check_nchw(I, a[10], fname) < 0)
        return NULL;
    const char *pm = get_str(I, a[7], fname, "padding_mode");
    if (!pm)
        return NULL;
    if (strcmp(pm, "zeros") != 0)
        return d2_raise(I, "NotImplementedError",
                        "%s: padding_mode '%s' is not supported (zeros only)", fname, pm);
    if (base_init(I, self) < 0 ||
        conv_setup(I, self, fname, in, out, a[2], a[3], a[4], a[5], g, a[8], a[9]) < 0 ||
        iset(I, self, "_padding_mode", a[7]) < 0 || iset(I, self, "_data_format", a[10]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(Conv2D_forward)
{
    return conv_forward(I, "paddle.nn.Conv2D", self, a[0]);
}

static d2_obj *Conv2D_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                 d2_dict *kw)
{
    SELF_ARG("Conv2D.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    bool ok = repr_of(I, &b, arg_of(I, self, "_in_channels"));
    d2_buf_puts(&b, ", ");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_out_channels"));
    d2_buf_puts(&b, ", kernel_size=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_kernel_size"));
    d2_obj *st = arg_of(I, self, "_stride");
    if (ok && st->kind == D2_OBJ_LIST &&
        !(D2_AS(d2_list, st)->n == 2 && num_value(D2_AS(d2_list, st)->items[0]) == 1 &&
          num_value(D2_AS(d2_list, st)->items[1]) == 1)) {
        d2_buf_puts(&b, ", stride=");
        ok = repr_of(I, &b, st);
    }
    d2_obj *pad = arg_of(I, self, "_padding");
    if (ok && !(is_int(pad) && D2_AS(d2_int, pad)->v == 0)) {
        d2_buf_puts(&b, ", padding=");
        ok = repr_of(I, &b, pad);
    }
    d2_obj *dil = arg_of(I, self, "_dilation");
    if (ok && dil->kind == D2_OBJ_LIST &&
        !(D2_AS(d2_list, dil)->n == 2 && num_value(D2_AS(d2_list, dil)->items[0]) == 1 &&
          num_value(D2_AS(d2_list, dil)->items[1]) == 1)) {
        d2_buf_puts(&b, ", dilation=");
        ok = repr_of(I, &b, dil);
    }
    d2_obj *g = arg_of(I, self, "_groups");
    if (ok && is_int(g) && D2_AS(d2_int, g)->v != 1)
        d2_buf_printf(&b, ", groups=%lld", (long long)D2_AS(d2_int, g)->v);
    d2_buf_puts(&b, ", data_format=NCHW");
    return buf_result(I, &b, ok);
}

/* fluid.dygraph.Conv2D(num_channels, num_filters, filter_size, ...) */
D2_FN(FConv2D_init)
{
    const char *fname = "fluid.dygraph.Conv2D";
    int64_t in, out, g = 1;
    if (get_int(I, a[0], fname, "num_channels", &in) < 0 ||
        get_int(I, a[1], fname, "num_filters", &out) < 0 ||
        (!is_none(I, a[6]) && get_int(I, a[6], fname, "groups", &g) < 0))
        return NULL;
    if (base_init(I, self) < 0 || iset(I, self, "_dtype", a[11]) < 0 ||
        conv_setup(I, self, fname, in, out, a[2], a[3], a[4], a[5], g, a[7], a[8]) < 0 ||
        iset(I, self, "_act", a[10]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(FConv2D_forward)
{
    const char *fname = "fluid.dygraph.Conv2D";
    return apply_act(I, fname, conv_forward(I, fname, self, a[0]), arg_of(I, self, "_act"));
}

/* ---- pooling ---- */

#define POOL_SPEC_MAX                                                                              \
    "kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False, "                    \
    "data_format='NCHW', "                                                                         \
    "name=None"
#define POOL_SPEC_AVG                                                                              \
    "kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, "                       \
    "divisor_override=None, "                                                                      \
    "data_format='NCHW', name=None"

/* MaxPool2D / AvgPool2D.__init__: stores the arguments (def->sig). */
D2_FN(pool_init)
{
    if (base_init(I, self) < 0 || store_args(I, self, def->sig, a, 8) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *pool_forward(d2_interp *I, d2_obj *self, d2_obj **a, bool max)
{
    const char *fname = max ? "paddle.nn.MaxPool2D" : "paddle.nn.AvgPool2D";
    bool ceil_mode = false, excl = true, want_mask = false;
    if (get_bool(I, arg_of(I, self, "_ceil_mode"), fname, "ceil_mode", &ceil_mode) < 0 ||
        (!max && get_bool(I, arg_of(I, self, "_exclusive"), fname, "exclusive", &excl) < 0) ||
        (max && get_bool(I, arg_of(I, self, "_return_mask"), fname, "return_mask", &want_mask) < 0))
        return NULL;
    d2_obj *pad = iget(I, self, "_padding");
    d2_obj *zero = d2_int_new(I, 0);
    d2_obj *r =
        !zero ? NULL
        : max ? pool_with_mask(I, fname, a[0], arg_of(I, self, "_kernel_size"),
                               arg_of(I, self, "_stride"), pad ? pad : zero, ceil_mode, want_mask)
              : pool_impl(I, fname, a[0], "avg", arg_of(I, self, "_kernel_size"),
                          arg_of(I, self, "_stride"), pad ? pad : zero, ceil_mode, excl, false);
    d2_decref(zero);
    return r;
}

D2_FN(MaxPool2D_forward)
{
    return pool_forward(I, self, a, true);
}

D2_FN(AvgPool2D_forward)
{
    return pool_forward(I, self, a, false);
}

static d2_obj *Pool_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Pool2D.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "kernel_size=");
    bool ok = repr_of(I, &b, arg_of(I, self, "_kernel_size"));
    d2_buf_puts(&b, ", stride=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_stride"));
    d2_buf_puts(&b, ", padding=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_padding"));
    return buf_result(I, &b, ok);
}

D2_FN(AdaptivePool_init)
{
    if (base_init(I, self) < 0 || iset(I, self, "_output_size", a[0]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(AdaptiveMaxPool_init)
{
    if (base_init(I, self) < 0 || iset(I, self, "_output_size", a[0]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(AdaptiveAvg_forward)
{
    return pool_impl(I, "paddle.nn.AdaptiveAvgPool2D", a[0], "avg", arg_of(I, self, "_output_size"),
                     NULL, NULL, false, true, true);
}

D2_FN(AdaptiveMax_forward)
{
    return pool_impl(I, "paddle.nn.AdaptiveMaxPool2D", a[0], "max", arg_of(I, self, "_output_size"),
                     NULL, NULL, false, true, true);
}

static d2_obj *Adaptive_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                   d2_dict *kw)
{
    SELF_ARG("AdaptivePool2D.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "output_size=");
    return buf_result(I, &b, repr_of(I, &b, arg_of(I, self, "_output_size")));
}

/* fluid.dygraph.Pool2D(pool_size, pool_type, pool_stride, pool_padding, global_pooling, ...) */
D2_FN(FPool2D_init)
{
    const char *t = get_str(I, a[1], "fluid.dygraph.Pool2D", "pool_type");
    if (!t)
        return NULL;
    if (strcmp(t, "max") != 0 && strcmp(t, "avg") != 0)
        return d2_raise(I, "ValueError",
                        "fluid.dygraph.Pool2D: pool_type must be 'max' or 'avg', got '%s'", t);
    if (base_init(I, self) < 0 || store_args(I, self, def->sig, a, 9) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(FPool2D_forward)
{
    const char *fname = "fluid.dygraph.Pool2D";
    bool global, ceil_mode, excl;
    if (get_bool(I, arg_of(I, self, "_global_pooling"), fname, "global_pooling", &global) < 0 ||
        get_bool(I, arg_of(I, self, "_ceil_mode"), fname, "ceil_mode", &ceil_mode) < 0 ||
        get_bool(I, arg_of(I, self, "_exclusive"), fname, "exclusive", &excl) < 0)
        return NULL;
    const char *type = D2_AS(d2_str, arg_of(I, self, "_pool_type"))->s;
    if (global) {
        d2_obj *one = d2_int_new(I, 1);
        d2_obj *r =
            one ? pool_impl(I, fname, a[0], type, one, NULL, NULL, false, true, true) : NULL;
        d2_decref(one);
        return r;
    }
    return pool_impl(I, fname, a[0], type, arg_of(I, self, "_pool_size"),
                     arg_of(I, self, "_pool_stride"), arg_of(I, self, "_pool_padding"), ceil_mode,
                     excl, false);
}

/* ---- normalisation ---- */

static int bn_params(d2_interp *I, d2_obj *self, int64_t c, d2_obj *wattr, d2_obj *battr,
                     d2_obj *mean_name, d2_obj *var_name)
{
    d2_obj *one = make_init(I, "constant", "value", 1.0, NULL, 0);
    if (!one)
        return -1;
    int rc = add_param(I, self, "weight", &c, 1, wattr, false, one);
    d2_decref(one);
    if (rc < 0 || add_param(I, self, "bias", &c, 1, battr, true, NULL) < 0)
        return -1;
    /* running statistics: parameters that do not train */
    d2_obj *zi = make_init(I, "constant", "value", 0.0, NULL, 0);
    d2_obj *oi = zi ? make_init(I, "constant", "value", 1.0, NULL, 0) : NULL;
    d2_obj *pa0 = oi ? d2_instance_new(I, ST(I)->param_attr_cls) : NULL;
    d2_obj *pa1 = pa0 ? d2_instance_new(I, ST(I)->param_attr_cls) : NULL;
    rc = -1;
    if (pa1 && iset(I, pa0, "name", mean_name ? mean_name : I->none) == 0 &&
        iset(I, pa0, "initializer", zi) == 0 && iset(I, pa0, "trainable", I->false_) == 0 &&
        iset(I, pa1, "name", var_name ? var_name : I->none) == 0 &&
        iset(I, pa1, "initializer", oi) == 0 && iset(I, pa1, "trainable", I->false_) == 0 &&
        add_param(I, self, "_mean", &c, 1, pa0, false, NULL) == 0 &&
        add_param(I, self, "_variance", &c, 1, pa1, false, NULL) == 0)
        rc = 0;
    d2_decref(zi);
    d2_decref(oi);
    d2_decref(pa0);
    d2_decref(pa1);
    return rc;
}

D2_FN(BatchNormND_init)
{
    const char *fname = "paddle.nn.BatchNorm2D";
    int64_t c;
    if (get_int(I, a[0], fname, "num_features", &c) < 0 || base_init(I, self) < 0 ||
        store_args(I, self, def->sig, a, 8) < 0 ||
        bn_params(I, self, c, a[3], a[4], NULL, NULL) < 0)
        return NULL;
    return d2_none(I);
}

/* paddle.nn.BatchNorm / fluid.dygraph.BatchNorm (num_channels, act, is_test, ...) */
D2_FN(BatchNorm_init)
{
    const char *fname = "paddle.nn.BatchNorm";
    int64_t c;
    if (get_int(I, a[0], fname, "num_channels", &c) < 0 || base_init(I, self) < 0 ||
        iset(I, self, "_dtype", a[7]) < 0 || store_args(I, self, def->sig, a, 15) < 0 ||
        bn_params(I, self, c, a[5], a[6], is_none(I, a[10]) ? NULL : a[10],
                  is_none(I, a[11]) ? NULL : a[11]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *bn_forward(d2_interp *I, d2_obj *self, d2_obj *x, const char *fname, bool old)
{
    double mom, eps;
    bool global = false, is_test = false;
    if (get_float(I, arg_of(I, self, "_momentum"), fname, "momentum", &mom) < 0 ||
        get_float(I, arg_of(I, self, "_epsilon"), fname, "epsilon", &eps) < 0)
        return NULL;
    d2_obj *ug = arg_of(I, self, "_use_global_stats");
    if (!is_none(I, ug) && get_bool(I, ug, fname, "use_global_stats", &global) < 0)
        return NULL;
    if (old && get_bool(I, arg_of(I, self, "_is_test"), fname, "is_test", &is_test) < 0)
        return NULL;
    bool training = layer_training(I, self) && !is_test;
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: input must be a Tensor, got %s", fname,
                        d2_type_name(x));
    int nd = obj_type(x)->shape.ndim;
    if (nd < 2 || nd > 5)
        return d2_raise(I, "ValueError", "%s: expected a 2-D to 5-D input, got %d-D", fname, nd);
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *b = w ? d2_getattr(I, self, "bias") : NULL;
    d2_obj *m = b ? d2_getattr(I, self, "_mean") : NULL;
    d2_obj *v = m ? d2_getattr(I, self, "_variance") : NULL;
    d2_obj *r = v ? batch_norm_impl(I, fname, x, m, v, w, b, training, mom, eps, global) : NULL;
    d2_decref(w);
    d2_decref(b);
    d2_decref(m);
    d2_decref(v);
    if (old)
        r = apply_act(I, fname, r, arg_of(I, self, "_act"));
    return r;
}

D2_FN(BatchNormND_forward)
{
    return bn_forward(I, self, a[0], "paddle.nn.BatchNorm2D", false);
}

D2_FN(BatchNorm_forward)
{
    return bn_forward(I, self, a[0], "paddle.nn.BatchNorm", true);
}

static d2_obj *BatchNormND_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                      d2_dict *kw)
{
    SELF_ARG("BatchNorm2D.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "num_features=");
    bool ok = repr_of(I, &b, arg_of(I, self, "_num_features"));
    d2_buf_puts(&b, ", momentum=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_momentum"));
    d2_buf_puts(&b, ", epsilon=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_epsilon"));
    return buf_result(I, &b, ok);
}

D2_FN(LayerNorm_init)
{
    const char *fname = "paddle.nn.LayerNorm";
    int64_t ns[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, a[0], fname, "normalized_shape", ns, &n, D2_MAX_DIMS) < 0)
        return NULL;
    int64_t total = 1;
    for (int i = 0; i < n; i++)
        total *= ns[i];
    d2_obj *nsl = shape_pylist(I, &(d2_shape){n, {0}});
    if (!nsl)
        return NULL;
    for (int i = 0; i < n; i++) {
        d2_obj *v = d2_int_new(I, ns[i]);
        d2_setref(&D2_AS(d2_list, nsl)->items[i], v);
    }
    d2_obj *one = make_init(I, "constant", "value", 1.0, NULL, 0);
    int rc = one && base_init(I, self) == 0 && iset(I, self, "_normalized_shape", nsl) == 0 &&
                     iset(I, self, "_epsilon", a[1]) == 0 &&
                     add_param(I, self, "weight", &total, 1, a[2], false, one) == 0 &&
                     add_param(I, self, "bias", &total, 1, a[3], true, NULL) == 0
                 ? 0
                 : -1;
    d2_decref(one);
    d2_decref(nsl);
    return rc < 0 ? NULL : d2_none(I);
}

D2_FN(LayerNorm_forward)
{
    const char *fname = "paddle.nn.LayerNorm";
    double eps;
    if (get_float(I, arg_of(I, self, "_epsilon"), fname, "epsilon", &eps) < 0)
        return NULL;
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *b = w ? d2_getattr(I, self, "bias") : NULL;
    d2_obj *r =
        b ? layer_norm_impl(I, fname, a[0], arg_of(I, self, "_normalized_shape"), w, b, eps) : NULL;
    d2_decref(w);
    d2_decref(b);
    return r;
}

static d2_obj *LayerNorm_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                    d2_dict *kw)
{
    SELF_ARG("LayerNorm.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "normalized_shape=");
    bool ok = repr_of(I, &b, arg_of(I, self, "_normalized_shape"));
    d2_buf_puts(&b, ", epsilon=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_epsilon"));
    return buf_result(I, &b, ok);
}

/* ---- Embedding ---- */

D2_FN(Embedding_init)
{
    const char *fname = "paddle.nn.Embedding";
    int64_t v, d;
    if (get_int(I, a[0], fname, "num_embeddings", &v) < 0 ||
        get_int(I, a[1], fname, "embedding_dim", &d) < 0)
        return NULL;
    d2_obj *pad = a[2];
    d2_obj *padv = NULL;
    if (!is_none(I, pad)) {
        int64_t p;
        if (get_int(I, pad, fname, "padding_idx", &p) < 0)
            return NULL;
        if (p >= v || p < -v)
            return d2_raise(I, "ValueError", "%s: padding_idx must be within [-%lld, %lld)", fname,
                            (long long)v, (long long)v);
        padv = d2_int_new(I, p < 0 ? p + v : p);
        if (!padv)
            return NULL;
    }
    int64_t ws[2] = {v, d};
    int rc = base_init(I, self) == 0 && iset(I, self, "_num_embeddings", a[0]) == 0 &&
                     iset(I, self, "_embedding_dim", a[1]) == 0 &&
                     iset(I, self, "_padding_idx", padv ? padv : I->none) == 0 &&
                     iset(I, self, "_sparse", a[3]) == 0 &&
                     add_param(I, self, "weight", ws, 2, a[4], false, NULL) == 0
                 ? 0
                 : -1;
    d2_decref(padv);
    return rc < 0 ? NULL : d2_none(I);
}

D2_FN(Embedding_forward)
{
    d2_obj *w = d2_getattr(I, self, "weight");
    d2_obj *r =
        w ? embedding_impl(I, "paddle.nn.Embedding", a[0], w, arg_of(I, self, "_padding_idx"))
          : NULL;
    d2_decref(w);
    return r;
}

static d2_obj *Embedding_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                    d2_dict *kw)
{
    SELF_ARG("Embedding.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    bool ok = repr_of(I, &b, arg_of(I, self, "_num_embeddings"));
    d2_buf_puts(&b, ", ");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_embedding_dim"));
    d2_obj *p = arg_of(I, self, "_padding_idx");
    if (ok && !is_none(I, p)) {
        d2_buf_puts(&b, ", padding_idx=");
        ok = repr_of(I, &b, p);
    }
    d2_buf_puts(&b, ", sparse=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "_sparse"));
    return buf_result(I, &b, ok);
}

/* fluid.dygraph.Embedding(size, is_sparse, is_distributed, padding_idx, param_attr, dtype) */
D2_FN(FEmbedding_init)
{
    const char *fname = "fluid.dygraph.Embedding";
    int64_t sz[2];
    if (pair_arg(I, a[0], fname, "size", sz) < 0)
        return NULL;
    d2_obj *padv = NULL;
    if (!is_none(I, a[3])) {
        int64_t p;
        if (get_int(I, a[3], fname, "padding_idx", &p) < 0)
            return NULL;
        padv = d2_int_new(I, p < 0 ? p + sz[0] : p);
        if (!padv)
            return NULL;
    }
    d2_obj *v = d2_int_new(I, sz[0]), *d = d2_int_new(I, sz[1]);
    int rc = v && d && base_init(I, self) == 0 && iset(I, self, "_dtype", a[5]) == 0 &&
                     iset(I, self, "_num_embeddings", v) == 0 &&
                     iset(I, self, "_embedding_dim", d) == 0 &&
                     iset(I, self, "_padding_idx", padv ? padv : I->none) == 0 &&
                     iset(I, self, "_sparse", a[1]) == 0 &&
                     add_param(I, self, "weight", sz, 2, a[4], false, NULL) == 0
                 ? 0
                 : -1;
    d2_decref(v);
    d2_decref(d);
    d2_decref(padv);
    return rc < 0 ? NULL : d2_none(I);
}

/* ---- Dropout ---- */

D2_FN(Dropout_init)
{
    if (base_init(I, self) < 0 || iset(I, self, "p", a[0]) < 0 || iset(I, self, "axis", a[1]) < 0 ||
        iset(I, self, "mode", a[2]) < 0 || iset(I, self, "name", a[3]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(Dropout_forward)
{
    const char *fname = "paddle.nn.Dropout";
    double p;
    const char *mode;
    if (get_float(I, arg_of(I, self, "p"), fname, "p", &p) < 0 ||
        !(mode = get_str(I, arg_of(I, self, "mode"), fname, "mode")))
        return NULL;
    return dropout_axis(I, fname, a[0], p, layer_training(I, self), mode, arg_of(I, self, "axis"));
}

static d2_obj *Dropout_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                  d2_dict *kw)
{
    SELF_ARG("Dropout.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_puts(&b, "p=");
    bool ok = repr_of(I, &b, arg_of(I, self, "p"));
    d2_buf_puts(&b, ", axis=");
    ok = ok && repr_of(I, &b, arg_of(I, self, "axis"));
    d2_obj *m = arg_of(I, self, "mode");
    d2_buf_printf(&b, ", mode=%s", m->kind == D2_OBJ_STR ? D2_AS(d2_str, m)->s : "?");
    d2_obj *n = arg_of(I, self, "name");
    if (!is_none(I, n) && n->kind == D2_OBJ_STR)
        d2_buf_printf(&b, ", name=%s", D2_AS(d2_str, n)->s);
    return buf_result(I, &b, ok);
}

/* fluid.dygraph.Dropout(p, seed, dropout_implementation, is_test) */
D2_FN(FDropout_init)
{
    const char *impl = get_str(I, a[2], "fluid.dygraph.Dropout", "dropout_implementation");
    if (!impl)
        return NULL;
    d2_obj *mode = d2_str_from(I, strcmp(impl, "upscale_in_train") == 0 ? "upscale_in_train"
                                                                        : "downscale_in_infer");
    int rc = mode && base_init(I, self) == 0 && iset(I, self, "p", a[0]) == 0 &&
                     iset(I, self, "axis", I->none) == 0 && iset(I, self, "mode", mode) == 0 &&
                     iset(I, self, "name", I->none) == 0
                 ? 0
                 : -1;
    d2_decref(mode);
    if (rc == 0 && is_number(a[3]) && num_value(a[3]) != 0)
        rc = iset(I, self, "training", I->false_);
    return rc < 0 ? NULL : d2_none(I);
}

/* ---- activations and other stateless layers ----
 * X(class, functional implementation, __init__ spec, stored args shown by extra_repr) */
static d2_obj *act_apply(d2_interp *I, const char *cls, d2_obj *self, d2_obj *x);

#define ACT_LAYERS(X)                                                                              \
    X(ReLU, "name=None", "")                                                                       \
    X(ReLU6, "name=None", "")                                                                      \
    X(Sigmoid, "name=None", "")                                                                    \
    X(Tanh, "name=None", "")                                                                       \
    X(SiLU, "name=None", "")                                                                       \
    X(Identity, "*args, **kwargs", "")                                                             \
    X(GELU, "approximate=False, name=None", "approximate")                                         \
    X(Softmax, "axis=-1, name=None", "axis")                                                       \
    X(LogSoftmax, "axis=-1, name=None", "axis")                                                    \
    X(LeakyReLU, "negative_slope=0.01, name=None", "negative_slope")                               \
    X(Flatten, "start_axis=1, stop_axis=-1", "")

/* __init__ and forward of every activation layer: def->data is the class. */
D2_FN(act_init)
{
    if (base_init(I, self) < 0)
        return NULL;
    if (strcmp(def->data, "Identity") != 0 && store_args(I, self, def->sig, a, 4) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(act_forward)
{
    return act_apply(I, def->data, self, a[0]);
}

#define X(c, spec, shown)                                                                          \
    static const d2_def ACT_DEFS_##c[] = {                                                         \
        D2_DEF_DATA("__init__", spec, act_init, "paddle.nn." #c, #c),                              \
        D2_DEF_DATA("forward", "x", act_forward, #c ".forward", #c),                               \
    };                                                                                             \
    static d2_obj *A_repr_##c(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,             \
                              d2_dict *kw)                                                         \
    {                                                                                              \
        SELF_ARG(#c ".extra_repr");                                                                \
        D2_UNUSED(args);                                                                           \
        D2_UNUSED(kw);                                                                             \
        if (!(shown)[0])                                                                           \
            return d2_str_from(I, "");                                                             \
        d2_buf b;                                                                                  \
        d2_buf_init(&b);                                                                           \
        d2_buf_puts(&b, shown "=");                                                                \
        return buf_result(I, &b, repr_of(I, &b, arg_of(I, self, "_" shown)));                      \
    }
ACT_LAYERS(X)
#undef X

static d2_obj *act_apply(d2_interp *I, const char *cls, d2_obj *self, d2_obj *x)
{
    char fname[64];
    snprintf(fname, sizeof fname, "paddle.nn.%s", cls);
    if (strcmp(cls, "Identity") == 0)
        return d2_incref(x);
    if (!is_tensor(x))
        return d2_raise(I, "TypeError", "%s: input must be a Tensor, got %s", fname,
                        d2_type_name(x));
    ab b;
    if (strcmp(cls, "ReLU") == 0)
        return op1(I, fname, D2_OP_relu, x, NULL);
    if (strcmp(cls, "Sigmoid") == 0)
        return op1(I, fname, D2_OP_sigmoid, x, NULL);
    if (strcmp(cls, "Tanh") == 0)
        return op1(I, fname, D2_OP_tanh, x, NULL);
    if (strcmp(cls, "SiLU") == 0)
        return op1(I, fname, D2_OP_silu, x, NULL);
    if (strcmp(cls, "ReLU6") == 0) {
        ab_init(&b, D2_OP_clip);
        ab_float(&b, "min", 0);
        ab_float(&b, "max", 6);
        return op1(I, fname, D2_OP_clip, x, &b);
    }
    if (strcmp(cls, "GELU") == 0) {
        bool ap;
        if (get_bool(I, arg_of(I, self, "_approximate"), fname, "approximate", &ap) < 0)
            return NULL;
        ab_init(&b, D2_OP_gelu);
        ab_bool(&b, "approximate", ap);
        return op1(I, fname, D2_OP_gelu, x, &b);
    }
    if (strcmp(cls, "Softmax") == 0 || strcmp(cls, "LogSoftmax") == 0) {
        int64_t ax;
        if (get_int(I, arg_of(I, self, "_axis"), fname, "axis", &ax) < 0)
            return NULL;
        d2_op_id op = cls[0] == 'S' ? D2_OP_softmax : D2_OP_log_softmax;
        ab_init(&b, op);
        ab_int(&b, "axis", ax);
        return op1(I, fname, op, x, &b);
    }
    if (strcmp(cls, "LeakyReLU") == 0) {
        double s;
        if (get_float(I, arg_of(I, self, "_negative_slope"), fname, "negative_slope", &s) < 0)
            return NULL;
        ab_init(&b, D2_OP_leaky_relu);
        ab_float(&b, "negative_slope", s);
        return op1(I, fname, D2_OP_leaky_relu, x, &b);
    }
    if (strcmp(cls, "Flatten") == 0) {
        int64_t s, e;
        if (get_int(I, arg_of(I, self, "_start_axis"), fname, "start_axis", &s) < 0 ||
            get_int(I, arg_of(I, self, "_stop_axis"), fname, "stop_axis", &e) < 0)
            return NULL;
        ab_init(&b, D2_OP_flatten);
        ab_int(&b, "start_axis", s);
        ab_int(&b, "stop_axis", e);
        return op1(I, fname, D2_OP_flatten, x, &b);
    }
    return d2_raise(I, "RuntimeError", "internal: unknown activation layer %s", cls);
}

/* ---- containers: Sequential and LayerList ---- */

static d2_obj *sub_values(d2_interp *I, d2_obj *self)
{
    d2_obj *l = d2_list_new(I, 0);
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    for (size_t i = 0; l && subs && i < subs->n; i++)
        if (subs->entries[i].key && d2_list_append(I, l, subs->entries[i].value) < 0)
            d2_setref(&l, NULL);
    return l;
}

static d2_obj *Sequential_init(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Sequential.__init__");
    D2_UNUSED(kw);
    if (base_init(I, self) < 0)
        return NULL;
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    if (nargs > 0 && is_seq(args[0])) {
        for (size_t i = 0; i < nargs; i++) {
            if (!is_seq(args[i]) || seq_len(args[i]) != 2 ||
                seq_item(args[i], 0)->kind != D2_OBJ_STR)
                return d2_raise(I, "TypeError",
                                "Sequential: named layers must be (name, layer) pairs");
            if (!is_layer(I, seq_item(args[i], 1)))
                return d2_raise(I, "TypeError", "Sequential: %s is not a Layer",
                                d2_type_name(seq_item(args[i], 1)));
            if (d2_dict_set(I, subs, seq_item(args[i], 0), seq_item(args[i], 1)) < 0)
                return NULL;
        }
        return d2_none(I);
    }
    for (size_t i = 0; i < nargs; i++) {
        if (!is_layer(I, args[i]))
            return d2_raise(I, "TypeError", "Sequential: argument %zu is not a Layer (got %s)", i,
                            d2_type_name(args[i]));
        char key[32];
        snprintf(key, sizeof key, "%zu", i);
        if (d2_dict_set_str(I, subs, key, args[i]) < 0)
            return NULL;
    }
    return d2_none(I);
}

D2_FN(Sequential_forward)
{
    d2_obj *vals = sub_values(I, self);
    if (!vals)
        return NULL;
    d2_obj *x = d2_incref(a[0]);
    for (size_t i = 0; x && i < D2_AS(d2_list, vals)->n; i++) {
        d2_obj *l = D2_AS(d2_list, vals)->items[i];
        if (is_none(I, l))
            continue;
        d2_obj *y = d2_call(I, l, &x, 1, NULL);
        d2_decref(x);
        x = y;
    }
    d2_decref(vals);
    return x;
}

/* Index into the ordered sublayers: ints (negative from the end), strings
 * (Sequential), slices (a new container of the same class). */
static d2_obj *container_getitem(d2_interp *I, d2_obj *self, d2_obj *key, const char *cls)
{
    d2_obj *vals = sub_values(I, self);
    if (!vals)
        return NULL;
    int64_t n = (int64_t)D2_AS(d2_list, vals)->n;
    d2_obj *r = NULL;
    if (key->kind == D2_OBJ_STR) {
        d2_obj *v = d2_dict_get(I, layer_dict(I, self, "_sub_layers"), key);
        r = v ? d2_incref(v)
              : d2_raise(I, "KeyError", "%s: no sublayer '%s'", cls, D2_AS(d2_str, key)->s);
    } else if (key->kind == D2_OBJ_SLICE) {
        d2_obj *sub = d2_getitem(I, vals, key);
        if (sub) {
            d2_obj *cls_obj = (d2_obj *)self->cls;
            if (strcmp(cls, "LayerList") == 0) {
                r = d2_call(I, cls_obj, &sub, 1, NULL);
            } else {
                r = d2_call(I, cls_obj, D2_AS(d2_list, sub)->items, D2_AS(d2_list, sub)->n, NULL);
            }
            d2_decref(sub);
        }
    } else {
        int64_t i;
        if (get_int(I, key, cls, "index", &i) == 0) {
            if (i < -n || i >= n)
                r = d2_raise(I, "IndexError", "index %lld is out of range", (long long)i);
            else
                r = d2_incref(D2_AS(d2_list, vals)->items[i < 0 ? i + n : i]);
        }
    }
    d2_decref(vals);
    return r;
}

D2_FN(Sequential_getitem)
{
    return container_getitem(I, self, a[0], "Sequential");
}

static d2_obj *Container_len(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("__len__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    return d2_int_new(I, subs ? (int64_t)subs->live : 0);
}

static d2_obj *Container_iter(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("__iter__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *vals = sub_values(I, self);
    if (!vals)
        return NULL;
    d2_obj *it = d2_get_iter(I, vals);
    d2_decref(vals);
    return it;
}

static int layerlist_append(d2_interp *I, d2_obj *self, d2_obj *l)
{
    if (!is_layer(I, l)) {
        d2_raise(I, "TypeError", "LayerList: %s is not a Layer", d2_type_name(l));
        return -1;
    }
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    char key[32];
    snprintf(key, sizeof key, "%zu", subs->live);
    return d2_dict_set_str(I, subs, key, l);
}

D2_FN(LayerList_init)
{
    if (base_init(I, self) < 0)
        return NULL;
    if (is_none(I, a[0]))
        return d2_none(I);
    d2_obj *l = d2_list_from_iterable(I, a[0]);
    if (!l)
        return NULL;
    for (size_t i = 0; i < D2_AS(d2_list, l)->n; i++)
        if (layerlist_append(I, self, D2_AS(d2_list, l)->items[i]) < 0) {
            d2_decref(l);
            return NULL;
        }
    d2_decref(l);
    return d2_none(I);
}

D2_FN(LayerList_append)
{
    if (layerlist_append(I, self, a[0]) < 0)
        return NULL;
    return d2_incref(self);
}

D2_FN(LayerList_extend)
{
    d2_obj *l = d2_list_from_iterable(I, a[0]);
    if (!l)
        return NULL;
    for (size_t i = 0; i < D2_AS(d2_list, l)->n; i++)
        if (layerlist_append(I, self, D2_AS(d2_list, l)->items[i]) < 0) {
            d2_decref(l);
            return NULL;
        }
    d2_decref(l);
    return d2_incref(self);
}

D2_FN(LayerList_getitem)
{
    if (a[0]->kind == D2_OBJ_STR)
        return d2_raise(I, "TypeError", "LayerList indices must be integers or slices");
    return container_getitem(I, self, a[0], "LayerList");
}

D2_FN(LayerList_setitem)
{
    int64_t i;
    if (get_int(I, a[0], "LayerList.__setitem__", "index", &i) < 0)
        return NULL;
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    int64_t n = (int64_t)subs->live;
    if (i < -n || i >= n)
        return d2_raise(I, "IndexError", "index %lld is out of range", (long long)i);
    if (!is_layer(I, a[1]))
        return d2_raise(I, "TypeError", "LayerList: %s is not a Layer", d2_type_name(a[1]));
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)(i < 0 ? i + n : i));
    if (d2_dict_set_str(I, subs, key, a[1]) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(LayerList_insert)
{
    int64_t idx;
    if (get_int(I, a[0], "LayerList.insert", "index", &idx) < 0)
        return NULL;
    if (!is_layer(I, a[1]))
        return d2_raise(I, "TypeError", "LayerList: %s is not a Layer", d2_type_name(a[1]));
    d2_obj *vals = sub_values(I, self);
    if (!vals)
        return NULL;
    int64_t n = (int64_t)D2_AS(d2_list, vals)->n;
    if (idx < 0)
        idx += n;
    if (idx < 0)
        idx = 0;
    if (idx > n)
        idx = n;
    d2_dict *subs = layer_dict(I, self, "_sub_layers");
    int rc = 0;
    for (int64_t k = 0; rc == 0 && k <= n; k++) {
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)k);
        d2_obj *v = k < idx    ? D2_AS(d2_list, vals)->items[k]
                    : k == idx ? a[1]
                               : D2_AS(d2_list, vals)->items[k - 1];
        rc = d2_dict_set_str(I, subs, key, v);
    }
    d2_decref(vals);
    return rc < 0 ? NULL : d2_none(I);
}

/* ---- the rows of the builtin layers (each class's arguments, as Paddle's) ---- */

static const d2_def LINEAR_DEFS[] = {
    D2_DEF("__init__", "in_features, out_features, weight_attr=None, bias_attr=None, name=None",
           Linear_init, "paddle.nn.Linear"),
    D2_DEF("forward", "input", Linear_forward, "Linear.forward"),
};

static const d2_def FLINEAR_DEFS[] = {
    D2_DEF("__init__",
           "input_dim, output_dim, param_attr=None, bias_attr=None, act=None, dtype='float32'",
           FLinear_init, "fluid.dygraph.Linear"),
    D2_DEF("forward", "input", FLinear_forward, "Linear.forward"),
};

static const d2_def CONV2D_DEFS[] = {
    D2_DEF("__init__",
           "in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, "
           "padding_mode='zeros', weight_attr=None, bias_attr=None, data_format='NCHW'",
           Conv2D_init, "paddle.nn.Conv2D"),
    D2_DEF("forward", "x", Conv2D_forward, "Conv2D.forward"),
};

static const d2_def FCONV2D_DEFS[] = {
    D2_DEF("__init__",
           "num_channels, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, "
           "param_attr=None, bias_attr=None, use_cudnn=True, act=None, dtype='float32'",
           FConv2D_init, "fluid.dygraph.Conv2D"),
    D2_DEF("forward", "input", FConv2D_forward, "Conv2D.forward"),
};

static const d2_def MAXPOOL2D_DEFS[] = {
    D2_DEF("__init__", POOL_SPEC_MAX, pool_init, "paddle.nn.MaxPool2D"),
    D2_DEF("forward", "x", MaxPool2D_forward, "Pool2D.forward"),
};

static const d2_def AVGPOOL2D_DEFS[] = {
    D2_DEF("__init__", POOL_SPEC_AVG, pool_init, "paddle.nn.AvgPool2D"),
    D2_DEF("forward", "x", AvgPool2D_forward, "Pool2D.forward"),
};

static const d2_def ADAPTIVE_AVG_DEFS[] = {
    D2_DEF("__init__", "output_size, data_format='NCHW', name=None", AdaptivePool_init,
           "paddle.nn.AdaptiveAvgPool2D"),
    D2_DEF("forward", "x", AdaptiveAvg_forward, "AdaptiveAvgPool2D.forward"),
};

static const d2_def ADAPTIVE_MAX_DEFS[] = {
    D2_DEF("__init__", "output_size, return_mask=False, name=None", AdaptiveMaxPool_init,
           "paddle.nn.AdaptiveMaxPool2D"),
    D2_DEF("forward", "x", AdaptiveMax_forward, "AdaptiveMaxPool2D.forward"),
};

static const d2_def FPOOL2D_DEFS[] = {
    D2_DEF("__init__",
           "pool_size=-1, pool_type='max', pool_stride=1, pool_padding=0, global_pooling=False, "
           "use_cudnn=True, ceil_mode=False, exclusive=True, data_format='NCHW'",
           FPool2D_init, "fluid.dygraph.Pool2D"),
    D2_DEF("forward", "input", FPool2D_forward, "Pool2D.forward"),
};

static const d2_def BATCHNORM_ND_DEFS[] = {
    D2_DEF("__init__",
           "num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, "
           "data_format='NCHW', use_global_stats=None, name=None",
           BatchNormND_init, "paddle.nn.BatchNorm2D"),
    D2_DEF("forward", "input", BatchNormND_forward, "BatchNorm2D.forward"),
};

static const d2_def BATCHNORM_DEFS[] = {
    D2_DEF("__init__",
           "num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, "
           "bias_attr=None, dtype='float32', data_layout='NCHW', in_place=False, "
           "moving_mean_name=None, moving_variance_name=None, "
           "do_model_average_for_mean_and_var=True, use_global_stats=False, "
           "trainable_statistics=False",
           BatchNorm_init, "paddle.nn.BatchNorm"),
    D2_DEF("forward", "input", BatchNorm_forward, "BatchNorm.forward"),
};

static const d2_def LAYERNORM_DEFS[] = {
    D2_DEF("__init__",
           "normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None, name=None",
           LayerNorm_init, "paddle.nn.LayerNorm"),
    D2_DEF("forward", "input", LayerNorm_forward, "LayerNorm.forward"),
};

static const d2_def EMBEDDING_DEFS[] = {
    D2_DEF("__init__",
           "num_embeddings, embedding_dim, padding_idx=None, sparse=False, weight_attr=None, "
           "name=None",
           Embedding_init, "paddle.nn.Embedding"),
    D2_DEF("forward", "x", Embedding_forward, "Embedding.forward"),
};

static const d2_def FEMBEDDING_DEFS[] = {
    D2_DEF("__init__",
           "size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None, "
           "dtype='float32'",
           FEmbedding_init, "fluid.dygraph.Embedding"),
    D2_DEF("forward", "x", Embedding_forward, "Embedding.forward"),
};

static const d2_def DROPOUT_DEFS[] = {
    D2_DEF("__init__", "p=0.5, axis=None, mode='upscale_in_train', name=None", Dropout_init,
           "paddle.nn.Dropout"),
    D2_DEF("forward", "input", Dropout_forward, "Dropout.forward"),
};

static const d2_def FDROPOUT_DEFS[] = {
    D2_DEF("__init__",
           "p=0.5, seed=None, dropout_implementation='downgrade_in_infer', is_test=False",
           FDropout_init, "fluid.dygraph.Dropout"),
    D2_DEF("forward", "input", Dropout_forward, "Dropout.forward"),
};

static const d2_def SEQUENTIAL_DEFS[] = {
    D2_DEF("forward", "input", Sequential_forward, "Sequential.forward"),
    D2_DEF("__getitem__", "name", Sequential_getitem, "Sequential.__getitem__"),
};

static const d2_def LAYERLIST_DEFS[] = {
    D2_DEF("__init__", "sublayers=None", LayerList_init, "paddle.nn.LayerList"),
    D2_DEF("append", "sublayer", LayerList_append, "LayerList.append"),
    D2_DEF("extend", "sublayers", LayerList_extend, "LayerList.extend"),
    D2_DEF("insert", "index, sublayer", LayerList_insert, "LayerList.insert"),
    D2_DEF("__getitem__", "idx", LayerList_getitem, "LayerList.__getitem__"),
    D2_DEF("__setitem__", "idx, sublayer", LayerList_setitem, "LayerList.__setitem__"),
};

/* ======================================================================
 * no_grad, guard, to_variable
 * ====================================================================== */

D2_FN(NG_init)
{
    if (iset(I, self, "_func", a[0]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *NG_enter(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("no_grad.__enter__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    ST(I)->no_grad++;
    return d2_none(I);
}

static d2_obj *NG_exit(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("no_grad.__exit__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    if (ST(I)->no_grad > 0)
        ST(I)->no_grad--;
    return d2_bool(I, false);
}

/* The function returned by no_grad()(fn): calls fn (its bound self) with gradients off. */
static d2_obj *NG_wrapped(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    ST(I)->no_grad++;
    d2_obj *r = d2_call(I, self, args, nargs, kw);
    ST(I)->no_grad--;
    return r;
}

static d2_obj *NG_call(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("no_grad.__call__");
    d2_obj *fn = iget(I, self, "_func");
    if (fn && !is_none(I, fn))
        return NG_wrapped(I, fn, args, nargs, kw);
    if (nargs != 1 || kw)
        return d2_raise(I, "TypeError", "no_grad()(func) takes one function");
    return d2_builtin_new(I, "no_grad_wrapper", NG_wrapped, args[0], NULL);
}

D2_FN(f_to_variable)
{
    const char *fname = "fluid.dygraph.to_variable";
    int dt;
    if (d2_pd_parse_dtype(I, a[3], fname, false, &dt) < 0)
        return NULL;
    if (is_tensor(a[0]))
        return d2_to_tensor(I, a[0], dt);
    d2_tensor *t = d2_pd_from_py(I, a[0], dt, D2_F32, fname);
    return t ? wrap_host(I, t) : NULL;
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
        d2_err err = {0};
        t = d2_tensor_zeros(d->dt, 0, NULL, &err);
        if (!t)
            return d2_raise_err(I, &err);
    } else {
        t = d2_pd_from_py(I, args[0], d->dt, D2_F64, dtname(d->dt));
    }
    return t ? ndarray_take(I, t) : NULL;
}

/* ======================================================================
 * Module setup
 * ====================================================================== */

/* paddle.NAME functions */
static const d2_def PADDLE_DEFS[] = {
    D2_DEF("to_tensor", "data, dtype=None, place=None, stop_gradient=True", f_to_tensor,
           "paddle.to_tensor"),
    D2_DEF("zeros", "shape, dtype=None, name=None", f_zeros, "paddle.zeros"),
    D2_DEF("ones", "shape, dtype=None, name=None", f_ones, "paddle.ones"),
    D2_DEF("full", "shape, fill_value, dtype=None, name=None", f_full, "paddle.full"),
    D2_DEF("empty", "shape, dtype=None, name=None", f_empty, "paddle.empty"),
    D2_DEF("zeros_like", "x, dtype=None, name=None", f_zeros_like, "paddle.zeros_like"),
    D2_DEF("ones_like", "x, dtype=None, name=None", f_ones_like, "paddle.ones_like"),
    D2_DEF("full_like", "x, fill_value, dtype=None, name=None", f_full_like, "paddle.full_like"),
    D2_DEF("empty_like", "x, dtype=None, name=None", f_empty_like, "paddle.empty_like"),
    D2_DEF("arange", "start=0, end=None, step=1, dtype=None, name=None", f_arange, "paddle.arange"),
    D2_DEF("linspace", "start, stop, num, dtype=None, name=None", f_linspace, "paddle.linspace"),
    D2_DEF("eye", "num_rows, num_columns=None, dtype=None, name=None", f_eye, "paddle.eye"),
    D2_DEF("rand", "shape, dtype=None, name=None", f_rand, "paddle.rand"),
    D2_DEF("randn", "shape, dtype=None, name=None", f_randn, "paddle.randn"),
    D2_DEF("uniform", "shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None", f_uniform,
           "paddle.uniform"),
    D2_DEF("normal", "mean=0.0, std=1.0, shape=None, name=None", f_normal, "paddle.normal"),
    D2_DEF("randint", "low=0, high=None, shape=None, dtype=None, name=None", f_randint,
           "paddle.randint"),
    D2_DEF("seed", "seed", f_seed, "paddle.seed"),
    D2_DEF("argmax", ARGMINMAX_SPEC, f_argmax, "paddle.argmax"),
    D2_DEF("argmin", ARGMINMAX_SPEC, f_argmin, "paddle.argmin"),
    D2_DEF("where", "condition, x=None, y=None, name=None", f_where, "paddle.where"),
    D2_DEF("concat", "x, axis=0, name=None", f_concat, "paddle.concat"),
    D2_DEF("stack", "x, axis=0, name=None", f_stack, "paddle.stack"),
    D2_DEF("assign", "x, output=None", f_assign, "paddle.assign"),
    D2_DEF("is_tensor", "x", f_is_tensor, "paddle.is_tensor"),
    D2_DEF("allclose", "x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None", f_allclose,
           "paddle.allclose"),
    D2_DEF("equal_all", "x, y, name=None", f_equal_all, "paddle.equal_all"),
    D2_DEF("set_device", "device", f_set_device, "paddle.set_device"),
    D2_DEF("get_device", "", f_get_device, "paddle.get_device"),
    D2_DEF("create_parameter",
           "shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None",
           f_create_parameter, "paddle.create_parameter"),
    D2_DEF("save", "obj, path, protocol=4", f_save, "paddle.save"),
};

/* Functions that are also Tensor methods (the receiver is x). */
static const d2_def TENSOR_FN_DEFS[] = {
    D2_DEF("split", "x, num_or_sections, axis=0, name=None", f_split, "paddle.split"),
    D2_DEF("chunk", "x, chunks, axis=0, name=None", f_chunk, "paddle.chunk"),
    D2_DEF("unbind", "input, axis=0", f_unbind, "paddle.unbind"),
    D2_DEF("expand_as", "x, y, name=None", f_expand_as, "paddle.expand_as"),
    D2_DEF("dot", "x, y, name=None", f_dot, "paddle.dot"),
    D2_DEF("flip", "x, axis, name=None", f_flip, "paddle.flip"),
    D2_DEF("norm", "x, p='fro', axis=None, keepdim=False, name=None", f_norm, "paddle.norm"),
    D2_DEF("std", "x, axis=None, unbiased=True, keepdim=False, name=None", f_std, "paddle.std"),
    D2_DEF("var", "x, axis=None, unbiased=True, keepdim=False, name=None", f_var, "paddle.var"),
    D2_DEF("t", "input, name=None", f_t, "paddle.t"),
    D2_DEF("round", "x, name=None", f_round, "paddle.round"),
    D2_DEF("nonzero", "x, as_tuple=False", f_nonzero, "paddle.nonzero"),
};

/* x.argmax / x.argmin: their messages name Tensor, not paddle. */
static const d2_def TENSOR_ARG_DEFS[] = {
    D2_DEF("argmax", ARGMINMAX_SPEC, f_argmax, "Tensor.argmax"),
    D2_DEF("argmin", ARGMINMAX_SPEC, f_argmin, "Tensor.argmin"),
};

static const d2_def LINALG_DEFS[] = {
    D2_DEF("norm", "x, p='fro', axis=None, keepdim=False, name=None", f_norm, "paddle.norm"),
};

static const d2_def FUNCTIONAL_DEFS[] = {
    D2_DEF("conv2d",
           "x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format='NCHW', "
           "name=None",
           F_conv2d, "paddle.nn.functional.conv2d"),
    D2_DEF("max_pool2d",
           "x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False, "
           "data_format='NCHW', name=None",
           F_max_pool2d, "paddle.nn.functional.max_pool2d"),
    D2_DEF("avg_pool2d",
           "x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, "
           "divisor_override=None, data_format='NCHW', name=None",
           F_avg_pool2d, "paddle.nn.functional.avg_pool2d"),
    D2_DEF("adaptive_avg_pool2d", "x, output_size, data_format='NCHW', name=None",
           F_adaptive_avg_pool2d, "paddle.nn.functional.adaptive_avg_pool2d"),
    D2_DEF("adaptive_max_pool2d", "x, output_size, return_mask=False, name=None",
           F_adaptive_max_pool2d, "paddle.nn.functional.adaptive_max_pool2d"),
    D2_DEF("batch_norm",
           "x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9, "
           "epsilon=1e-05, data_format='NCHW', use_global_stats=None, name=None",
           F_batch_norm, "paddle.nn.functional.batch_norm"),
    D2_DEF("layer_norm", "x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None",
           F_layer_norm, "paddle.nn.functional.layer_norm"),
    D2_DEF("embedding", "x, weight, padding_idx=None, sparse=False, name=None", F_embedding,
           "paddle.nn.functional.embedding"),
    D2_DEF("dropout", "x, p=0.5, axis=None, training=True, mode='upscale_in_train', name=None",
           F_dropout, "paddle.nn.functional.dropout"),
    D2_DEF("relu6", "x, name=None", F_relu6, "paddle.nn.functional.relu6"),
    D2_DEF("one_hot", "x, num_classes, name=None", F_one_hot, "paddle.nn.functional.one_hot"),
    D2_DEF("normalize", "x, p=2, axis=1, epsilon=1e-12, name=None", F_normalize,
           "paddle.nn.functional.normalize"),
    D2_DEF("softplus", "x, beta=1, threshold=20, name=None", F_softplus,
           "paddle.nn.functional.softplus"),
    D2_DEF("hardsigmoid", "x, slope=0.1666667, offset=0.5, name=None", F_hardsigmoid,
           "paddle.nn.functional.hardsigmoid"),
    D2_DEF("hardswish", "x, name=None", F_hardswish, "paddle.nn.functional.hardswish"),
};

static const d2_def DYGRAPH_DEFS[] = {
    D2_DEF("to_variable", "value, name=None, zero_copy=None, dtype=None", f_to_variable,
           "fluid.dygraph.to_variable"),
};

static const d2_def LAYER_DEFS[] = {
    D2_DEF("__init__", "name_scope=None, dtype='float32'", L_init, "Layer.__init__"),
    D2_DEF("parameters", "include_sublayers=True", L_parameters, "Layer.parameters"),
    D2_DEF("named_parameters", "prefix='', include_sublayers=True", L_named_parameters,
           "Layer.named_parameters"),
    D2_DEF("buffers", "include_sublayers=True", L_buffers, "Layer.buffers"),
    D2_DEF("named_buffers", "prefix='', include_sublayers=True", L_named_buffers,
           "Layer.named_buffers"),
    D2_DEF("sublayers", "include_self=False", L_sublayers, "Layer.sublayers"),
    D2_DEF("named_sublayers", "prefix='', include_self=False, layers_set=None", L_named_sublayers,
           "Layer.named_sublayers"),
    D2_DEF("state_dict",
           "destination=None, include_sublayers=True, structured_name_prefix='', use_hook=True",
           L_state_dict, "Layer.state_dict"),
    D2_DEF("set_state_dict", "state_dict, use_structured_name=True", L_set_state_dict,
           "Layer.set_state_dict"),
    D2_DEF("set_dict", "state_dict, use_structured_name=True", L_set_state_dict,
           "Layer.set_state_dict"),
    D2_DEF("load_dict", "state_dict, use_structured_name=True", L_set_state_dict,
           "Layer.set_state_dict"),
    D2_DEF("register_forward_pre_hook", "hook", L_register_forward_pre_hook,
           "Layer.register_forward_pre_hook"),
    D2_DEF("register_forward_post_hook", "hook", L_register_forward_post_hook,
           "Layer.register_forward_post_hook"),
    D2_DEF("add_sublayer", "name, sublayer", L_add_sublayer, "Layer.add_sublayer"),
    D2_DEF("add_parameter", "name, parameter", L_add_parameter, "Layer.add_parameter"),
    D2_DEF("register_buffer", "name, tensor, persistable=True", L_register_buffer,
           "Layer.register_buffer"),
    D2_DEF("apply", "fn", L_apply, "Layer.apply"),
};

static pd_state *ST(d2_interp *I)
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
    return s;
}

static d2_module *new_module(d2_interp *I, const char *name, d2_module *parent, const char *attr)
{
    d2_obj *existing = d2_dict_get_str(I, I->modules, name);
    d2_module *m = existing && existing->kind == D2_OBJ_MODULE ? D2_AS(d2_module, existing)
                                                               : d2_module_new_builtin(I, name);
    if (!m)
        return NULL;
    if (parent && d2_dict_set_str(I, parent->dict, attr, (d2_obj *)m) < 0)
        return NULL;
    return m;
}

static int add_fn(d2_interp *I, d2_module *m, const char *name, d2_builtin_fn fn)
{
    return d2_module_add_fn(I, m, name, fn, NULL);
}

static int set_attr(d2_interp *I, d2_module *m, const char *name, d2_obj *v)
{
    return d2_dict_set_str(I, m->dict, name, v);
}

typedef struct method_entry {
    const char *name;
    d2_builtin_fn fn;
} method_entry;

static int add_methods(d2_interp *I, d2_class *cls, const method_entry *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (d2_class_add_method(I, cls, m[i].name, m[i].fn) < 0)
            return -1;
    return 0;
}

static d2_class *new_class(d2_interp *I, d2_module *m, const char *name, d2_class *base,
                           const method_entry *methods, size_t n)
{
    d2_class *c = d2_class_new_builtin(I, name, base, D2_OBJ_INSTANCE, m);
    if (!c || add_methods(I, c, methods, n) < 0)
        return NULL;
    if (m && d2_dict_set_str(I, m->dict, name, (d2_obj *)c) < 0)
        return NULL;
    return c;
}

static int init_tensor_class(d2_interp *I, pd_state *s)
{
    d2_class *tc = d2_pd_layout_class(I, D2_OBJ_TENSOR, "paddle");
    if (!tc)
        return -1;
    s->tensor_cls = tc;
    I->hooks[D2_OBJ_TENSOR] = &tensor_hooks;
    for (int i = 0; i < BI_COUNT; i++)
        if ((BINDINGS[i].where & W_M) &&
            d2_class_add_defs(I, tc, &BINDING_METHOD_DEFS[i], 1, D2_DEF_SELF) < 0)
            return -1;
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
        {"backward", m_backward},
        {"clear_gradient", m_self},
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
    if (d2_class_add_defs(I, tc, TENSOR_FN_DEFS, D2_COUNT(TENSOR_FN_DEFS), D2_DEF_SELF) < 0 ||
        d2_class_add_defs(I, tc, TENSOR_ARG_DEFS, D2_COUNT(TENSOR_ARG_DEFS), D2_DEF_SELF) < 0 ||
        d2_class_add_defs(I, tc, method_defs, D2_COUNT(method_defs), 0) < 0)
        return -1;
    return add_methods(I, tc, methods, D2_COUNTOF(methods));
}

/* What a tensor or ndarray object owns: its storage, and (symbolic) its
 * place in a builder's list. */
static void tensor_obj_free(d2_obj *o)
{
    d2_tensor_obj *t = D2_AS(d2_tensor_obj, o);
    d2_pd_sym_unlink(t);
    if (t->t)
        d2_tensor_unref(t->t);
}

static void ndarray_obj_free(d2_obj *o)
{
    if (D2_AS(d2_ndarray, o)->t)
        d2_tensor_unref(D2_AS(d2_ndarray, o)->t);
}

int d2_tensor_api_init(d2_interp *I)
{
    d2_err err = {0};
    d2_layout_set_free(D2_OBJ_TENSOR, tensor_obj_free);
    d2_layout_set_free(D2_OBJ_NDARRAY, ndarray_obj_free);
    if (d2_ops_init(&err) < 0) {
        d2_raise_err(I, &err);
        return -1;
    }
    pd_state *s = ST(I);
    if (!s) {
        nomem(I);
        return -1;
    }
    d2_obj *nc = d2_dict_new(I);
    if (!nc)
        return -1;
    s->name_counters = D2_AS(d2_dict, nc);
    d2_module *pd = s->paddle = new_module(I, "paddle", NULL, NULL);
    if (!pd || d2_dict_set_str(I, pd->dict, "__unique_name_counters__", nc) < 0) {
        d2_decref(nc);
        return -1;
    }
    d2_decref(nc);
    d2_module *nn = s->nn = new_module(I, "paddle.nn", pd, "nn");
    d2_module *F = s->F = new_module(I, "paddle.nn.functional", nn, "functional");
    d2_module *ini = s->init =
        nn ? new_module(I, "paddle.nn.initializer", nn, "initializer") : NULL;
    d2_module *fluid = s->fluid = new_module(I, "paddle.fluid", pd, "fluid");
    d2_module *dyg = s->dygraph =
        fluid ? new_module(I, "paddle.fluid.dygraph", fluid, "dygraph") : NULL;
    d2_module *fw = new_module(I, "paddle.framework", pd, "framework");
    if (!nn || !F || !ini || !fluid || !dyg || !fw)
        return -1;
    /* Paddle 2.6 names paddle.fluid paddle.base; its docs use both spellings
     * (import paddle.base as base; from paddle.base.dygraph.base import to_variable) */
    if (set_attr(I, pd, "base", (d2_obj *)fluid) < 0 ||
        d2_dict_set_str(I, I->modules, "paddle.base", (d2_obj *)fluid) < 0 ||
        d2_dict_set_str(I, I->modules, "paddle.base.dygraph", (d2_obj *)dyg) < 0 ||
        d2_dict_set_str(I, I->modules, "paddle.base.dygraph.base", (d2_obj *)dyg) < 0)
        return -1;
    /* paddle.seed returns the generator, which doc examples show by its repr */
    d2_module *lp = new_module(I, "paddle.base.libpaddle", NULL, NULL);
    if (!lp || !new_class(I, lp, "paddle.base.libpaddle.Generator", NULL, NULL, 0) ||
        d2_dict_set_str(I, lp->dict, "Generator",
                        d2_dict_get_str(I, lp->dict, "paddle.base.libpaddle.Generator")) < 0)
        return -1;
    if (init_tensor_class(I, s) < 0 || set_attr(I, pd, "Tensor", (d2_obj *)s->tensor_cls) < 0)
        return -1;
    /* dtypes */
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
    /* table-driven functions */
    for (int i = 0; i < BI_COUNT; i++) {
        if ((BINDINGS[i].where & W_P) && d2_module_add_defs(I, pd, &BINDING_DEFS[i], 1) < 0)
            return -1;
        if ((BINDINGS[i].where & W_F) && d2_module_add_defs(I, F, &BINDING_DEFS[i], 1) < 0)
            return -1;
    }
    static const method_entry pfns[] = {
        {"tolist", m_tolist},
        {"in_dynamic_mode", f_true},
        {"disable_static", f_noop},
        {"enable_static", f_noop},
        {"set_printoptions", f_noop},
    };
    for (size_t i = 0; i < D2_COUNTOF(pfns); i++)
        if (add_fn(I, pd, pfns[i].name, pfns[i].fn) < 0)
            return -1;
    if (d2_module_add_defs(I, pd, PADDLE_DEFS, D2_COUNT(PADDLE_DEFS)) < 0 ||
        d2_module_add_defs(I, pd, TENSOR_FN_DEFS, D2_COUNT(TENSOR_FN_DEFS)) < 0)
        return -1;
    {
        d2_module *la = new_module(I, "paddle.linalg", pd, "linalg");
        if (!la || d2_module_add_defs(I, la, LINALG_DEFS, D2_COUNT(LINALG_DEFS)) < 0 ||
            set_attr(I, la, "matmul", d2_dict_get_str(I, pd->dict, "matmul")) < 0)
            return -1;
    }
    if (d2_module_add_defs(I, F, FUNCTIONAL_DEFS, D2_COUNT(FUNCTIONAL_DEFS)) < 0)
        return -1;
    /* places and contexts */
    static const method_entry ng_m[] = {
        {"__enter__", NG_enter}, {"__exit__", NG_exit}, {"__call__", NG_call}};
    static const d2_def ng_defs[] = {
        D2_DEF("__init__", "func=None", NG_init, "paddle.no_grad"),
    };
    s->ctx_cls = new_class(I, pd, "no_grad", NULL, ng_m, D2_COUNTOF(ng_m));
    if (!s->ctx_cls || d2_class_add_defs(I, s->ctx_cls, ng_defs, D2_COUNT(ng_defs), 0) < 0)
        return -1;
    static const method_entry guard_m[] = {
        {"__init__", f_noop}, {"__enter__", f_noop}, {"__exit__", NG_exit}};
    d2_class *guard = new_class(I, dyg, "guard", NULL, guard_m, D2_COUNTOF(guard_m));
    static const method_entry place_methods[] = {{"__init__", f_noop}};
    static const method_entry cpu_place_m[] = {{"__init__", f_noop},
                                               {"__repr__", f_cpu_place_repr}};
    s->place_cls = new_class(I, pd, "CPUPlace", NULL, cpu_place_m, D2_COUNTOF(cpu_place_m));
    d2_class *cuda_place = new_class(I, pd, "CUDAPlace", NULL, place_methods, 1);
    if (!s->ctx_cls || !guard || !s->place_cls || !cuda_place ||
        set_attr(I, dyg, "no_grad", (d2_obj *)s->ctx_cls) < 0 ||
        set_attr(I, fluid, "CPUPlace", (d2_obj *)s->place_cls) < 0 ||
        d2_module_add_defs(I, dyg, DYGRAPH_DEFS, D2_COUNT(DYGRAPH_DEFS)) < 0 ||
        set_attr(I, fw, "no_grad", (d2_obj *)s->ctx_cls) < 0)
        return -1;
    static const method_entry hook_m[] = {{"remove", H_remove}};
    s->hook_cls = new_class(I, NULL, "HookRemoveHelper", NULL, hook_m, 1);
    if (!s->hook_cls)
        return -1;
    /* initializers and ParamAttr */
    static const d2_def init_defs[] = {
        D2_DEF("__call__", "param, block=None", Init_call, "Initializer.__call__"),
    };
    s->init_cls = new_class(I, ini, "Initializer", NULL, NULL, 0);
    if (!s->init_cls || d2_class_add_defs(I, s->init_cls, init_defs, D2_COUNT(init_defs), 0) < 0)
        return -1;
    static const char *const init_names[] = {
#define X(c, kind, spec) #c,
        INITIALIZERS(X)
#undef X
    };
    for (size_t k = 0; k < D2_COUNTOF(init_names); k++) {
        d2_class *c = new_class(I, ini, init_names[k], s->init_cls, NULL, 0);
        if (!c || d2_class_add_defs(I, c, &INIT_DEFS[k], 1, 0) < 0)
            return -1;
    }
    {
        d2_obj *xu = d2_dict_get_str(I, ini->dict, "XavierUniform");
        d2_obj *kn = d2_dict_get_str(I, ini->dict, "KaimingNormal");
        d2_obj *ku = d2_dict_get_str(I, ini->dict, "KaimingUniform");
        d2_obj *nm = d2_dict_get_str(I, ini->dict, "Normal");
        if (set_attr(I, ini, "Xavier", xu) < 0 || set_attr(I, ini, "MSRA", kn) < 0 ||
            set_attr(I, ini, "KaimingUniformInitializer", ku) < 0 ||
            set_attr(I, ini, "NormalInitializer", nm) < 0)
            return -1;
    }
    static const d2_def pa_defs[] = {
        D2_DEF("__init__", PARAM_ATTR_SPEC, PA_init, "paddle.ParamAttr"),
    };
    s->param_attr_cls = new_class(I, pd, "ParamAttr", NULL, NULL, 0);
    if (!s->param_attr_cls ||
        d2_class_add_defs(I, s->param_attr_cls, pa_defs, D2_COUNT(pa_defs), 0) < 0 ||
        set_attr(I, fluid, "ParamAttr", (d2_obj *)s->param_attr_cls) < 0)
        return -1;
    /* Layer */
    static const method_entry layer_m[] = {
        {"__setattr__", L_setattr},
        {"__getattr__", L_getattr},
        {"__call__", L_call},
        {"__repr__", L_repr},
        {"forward", L_forward},
        {"children", L_children},
        {"named_children", L_named_children},
        {"train", L_train},
        {"eval", L_eval},
        {"full_name", L_full_name},
        {"extra_repr", L_extra_repr},
        {"to", L_to},
        {"float", L_to},
    };
    static const d2_def create_param_defs[] = {
        D2_DEF("create_parameter",
               "shape, attr=None, dtype=None, is_bias=False, default_initializer=None",
               L_create_parameter, "Layer.create_parameter"),
    };
    d2_class *layer = s->layer_cls = new_class(I, nn, "Layer", NULL, layer_m, D2_COUNTOF(layer_m));
    if (!layer || d2_class_add_defs(I, layer, LAYER_DEFS, D2_COUNT(LAYER_DEFS), 0) < 0 ||
        d2_class_add_defs(I, layer, create_param_defs, D2_COUNT(create_param_defs), 0) < 0 ||
        set_attr(I, dyg, "Layer", (d2_obj *)layer) < 0 ||
        set_attr(I, fluid, "Layer", (d2_obj *)layer) < 0)
        return -1;
#define LAYER(mod, name, defs, ...)                                                                \
    {                                                                                              \
        static const method_entry m_[] = {__VA_ARGS__};                                            \
        d2_class *c_ = new_class(I, mod, name, layer, m_, D2_COUNTOF(m_));                         \
        if (!c_ || d2_class_add_defs(I, c_, defs, D2_COUNT(defs), 0) < 0)                          \
            return -1;                                                                             \
    }
#define LAYER_ROWS(mod, name, defs)                                                                \
    {                                                                                              \
        d2_class *c_ = new_class(I, mod, name, layer, NULL, 0);                                    \
        if (!c_ || d2_class_add_defs(I, c_, defs, D2_COUNT(defs), 0) < 0)                          \
            return -1;                                                                             \
    }
    LAYER(nn, "Linear", LINEAR_DEFS, {"extra_repr", Linear_extra_repr})
    LAYER(nn, "Conv2D", CONV2D_DEFS, {"extra_repr", Conv2D_extra_repr})
    LAYER(nn, "MaxPool2D", MAXPOOL2D_DEFS, {"extra_repr", Pool_extra_repr})
    LAYER(nn, "AvgPool2D", AVGPOOL2D_DEFS, {"extra_repr", Pool_extra_repr})
    LAYER(nn, "AdaptiveAvgPool2D", ADAPTIVE_AVG_DEFS, {"extra_repr", Adaptive_extra_repr})
    LAYER(nn, "AdaptiveMaxPool2D", ADAPTIVE_MAX_DEFS, {"extra_repr", Adaptive_extra_repr})
    LAYER(nn, "BatchNorm2D", BATCHNORM_ND_DEFS, {"extra_repr", BatchNormND_extra_repr})
    LAYER(nn, "BatchNorm1D", BATCHNORM_ND_DEFS, {"extra_repr", BatchNormND_extra_repr})
    LAYER_ROWS(nn, "BatchNorm", BATCHNORM_DEFS)
    LAYER_ROWS(dyg, "BatchNorm", BATCHNORM_DEFS)
    LAYER(nn, "LayerNorm", LAYERNORM_DEFS, {"extra_repr", LayerNorm_extra_repr})
    LAYER(nn, "Embedding", EMBEDDING_DEFS, {"extra_repr", Embedding_extra_repr})
    LAYER(dyg, "Embedding", FEMBEDDING_DEFS, {"extra_repr", Embedding_extra_repr})
    LAYER(nn, "Dropout", DROPOUT_DEFS, {"extra_repr", Dropout_extra_repr})
    LAYER(dyg, "Dropout", FDROPOUT_DEFS, {"extra_repr", Dropout_extra_repr})
    LAYER(nn, "Sequential", SEQUENTIAL_DEFS, {"__init__", Sequential_init},
          {"__len__", Container_len}, {"__iter__", Container_iter})
    LAYER(dyg, "Sequential", SEQUENTIAL_DEFS, {"__init__", Sequential_init},
          {"__len__", Container_len}, {"__iter__", Container_iter})
    LAYER(nn, "LayerList", LAYERLIST_DEFS, {"__len__", Container_len}, {"__iter__", Container_iter})
    LAYER(dyg, "Linear", FLINEAR_DEFS, {"extra_repr", Linear_extra_repr})
    LAYER(dyg, "Conv2D", FCONV2D_DEFS, {"extra_repr", Conv2D_extra_repr})
    LAYER_ROWS(dyg, "Pool2D", FPOOL2D_DEFS)
#define X(c, spec, shown) LAYER(nn, #c, ACT_DEFS_##c, {"extra_repr", A_repr_##c})
    ACT_LAYERS(X)
#undef X
#undef LAYER_ROWS
#undef LAYER
    {
        d2_obj *ll = d2_dict_get_str(I, nn->dict, "LayerList");
        if (!ll || set_attr(I, dyg, "LayerList", ll) < 0)
            return -1;
    }
    /* fluid.dygraph.guard also as paddle.fluid.dygraph.base.guard-like alias */
    if (set_attr(I, fluid, "dygraph", (d2_obj *)dyg) < 0)
        return -1;
    /* the module paths Paddle defines its layers in (paddle.nn.layer.norm.BatchNorm, ...):
     * each holds every layer class of paddle.nn */
    {
        static const char *const subs[] = {"layers", "common", "conv",      "pooling",
                                           "norm",   "activation", "container"};
        d2_module *lm = new_module(I, "paddle.nn.layer", nn, "layer");
        if (!lm)
            return -1;
        d2_module *sm[D2_COUNTOF(subs)];
        for (size_t k = 0; k < D2_COUNTOF(subs); k++) {
            char full[64];
            snprintf(full, sizeof full, "paddle.nn.layer.%s", subs[k]);
            if (!(sm[k] = new_module(I, full, lm, subs[k])))
                return -1;
        }
        d2_dict *nd = nn->dict;
        for (size_t i = 0; i < nd->n; i++) {
            d2_obj *key = nd->entries[i].key, *v = nd->entries[i].value;
            if (!key || key->kind != D2_OBJ_STR || !v || v->kind != D2_OBJ_CLASS)
                continue;
            const char *name = D2_AS(d2_str, key)->s;
            if (set_attr(I, lm, name, v) < 0)
                return -1;
            for (size_t k = 0; k < D2_COUNTOF(subs); k++)
                if (set_attr(I, sm[k], name, v) < 0)
                    return -1;
        }
    }
    return 0;
}

/* ======================================================================
 * Indexing for numpy.ndarray: the tensor rules, always eager on the CPU
 * ====================================================================== */

typedef struct eager_cpu {
    d2_builder *builder;
    struct d2_tracer *tracer;
    d2_backend *backend;
} eager_cpu;

static void eager_cpu_begin(d2_interp *I, eager_cpu *s)
{
    s->builder = D2_MODE(I)->builder;
    s->tracer = D2_MODE(I)->tracer;
    s->backend = D2_MODE(I)->backend;
    D2_MODE(I)->builder = NULL;
    D2_MODE(I)->tracer = NULL;
    D2_MODE(I)->backend = d2_cpu_backend();
}

static void eager_cpu_end(d2_interp *I, const eager_cpu *s)
{
    D2_MODE(I)->builder = s->builder;
    D2_MODE(I)->tracer = s->tracer;
    D2_MODE(I)->backend = s->backend;
}

int d2_pd_index_host(d2_interp *I, d2_tensor *t, d2_obj *key, d2_tensor **out)
{
    eager_cpu s;
    eager_cpu_begin(I, &s);
    d2_obj *x = d2_tensor_wrap(I, t);
    d2_obj *r = x ? getitem_impl(I, x, key, "ndarray.__getitem__") : NULL;
    eager_cpu_end(I, &s);
    *out = r ? d2_tensor_ref(TOBJ(r)->t) : NULL;
    d2_decref(x);
    d2_decref(r);
    return *out ? 0 : -1;
}

int d2_pd_setitem_host(d2_interp *I, d2_tensor **t, d2_obj *key, d2_obj *v)
{
    eager_cpu s;
    eager_cpu_begin(I, &s);
    d2_obj *x = d2_tensor_wrap(I, *t);
    int rc = x ? setitem_impl(I, x, key, v, "ndarray.__setitem__") : -1;
    eager_cpu_end(I, &s);
    if (rc == 0) {
        d2_tensor_unref(*t);
        *t = d2_tensor_ref(TOBJ(x)->t);
    }
    d2_decref(x);
    return rc;
}
