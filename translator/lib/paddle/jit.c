/* jit.c - to_static at run time: _jst helpers lowering converted control flow to cond/while_loop,
 * paddle.jit / paddle.static, per-signature compiled Programs, saving and loading. */
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"

#include "exec.h"
#include "model_io.h"
#include "npy.h"
#include "pickle.h"
#include "lib/paddle/tensor_api.h"
#include "transform/transform.h"
#include "syntax/unparse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

/* Weak: the trace recorder provides it (see jit.h). */
extern d2_obj *d2_trace_function(d2_interp *I, d2_obj *fn, d2_obj **args, size_t nargs,
                                 d2_dict *kwargs) __attribute__((weak));
/* Weak: trace.c (trace.h) traces a function that cannot be converted into the Program being
 * built by compile(). */
extern d2_obj *d2_trace_symbolic(d2_interp *I, d2_builder *B, d2_obj *fn, d2_obj **sym,
                                 size_t nargs, d2_dict *kw, const int *vars,
                                 d2_tensor *const *vals, int n_feeds) __attribute__((weak));

#define TOBJ(o) D2_AS(d2_tensor_obj, o)
#define MAX_ATTEMPTS 8

/* ======================================================================
 * State
 * ====================================================================== */

typedef struct jit_state {
    d2_module *jst, *jit, *statics;
    d2_class *undef_cls;  /* _jst.UndefinedVar */
    d2_class *array_cls;  /* _jst.TensorArray: a Python list grown in a tensor loop */
    d2_class *range_cls;  /* _jst.Range / _jst.Enumerate over tensor bounds */
    d2_class *slot_cls;   /* output-template markers (OPAQUE) */
    d2_class *sfn_cls;    /* StaticFunction state (OPAQUE) */
    d2_class *spec_cls;   /* paddle.static.InputSpec */
    d2_class *loaded_cls; /* paddle.jit.TranslatedLayer */
    d2_class *prog_cls;   /* a loaded Program (OPAQUE) */
    d2_obj *orig_concat, *orig_stack;
    d2_obj *converted;    /* dict: user function -> converted function (or itself) */
    d2_program *last_prog; /* copy of the Program compiled last (d2_jit_last_program) */
    bool enabled;         /* paddle.jit.enable_to_static */
    double decorate_s;    /* time spent making to_static functions (_jst._stats) */
    long decorated;
} jit_state;

static jit_state *JS(d2_interp *I) { return I->ext[D2_EXT_JIT]; }

static void state_fini(d2_interp *I, void *p)
{
    D2_UNUSED(I);
    jit_state *s = p;
    d2_decref((d2_obj *)s->jst);
    d2_decref((d2_obj *)s->jit);
    d2_decref((d2_obj *)s->statics);
    d2_decref(s->orig_concat);
    d2_decref(s->orig_stack);
    d2_decref(s->converted);
    d2_program_free(s->last_prog);
    d2_free(s);
}

/* ======================================================================
 * Small helpers
 * ====================================================================== */

static bool is_tensor(const d2_obj *o) { return o && o->kind == D2_OBJ_TENSOR; }
static bool is_sym(const d2_obj *o) { return is_tensor(o) && !TOBJ(o)->t; }
static bool is_pynum(const d2_obj *o)
{
    return o && (o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL || o->kind == D2_OBJ_FLOAT);
}
static bool is_inst(d2_interp *I, d2_obj *o, d2_class *c)
{
    return o && c && o->kind != D2_OBJ_CLASS && d2_isinstance(I, o, c);
}
static bool is_undef(d2_interp *I, d2_obj *o) { return is_inst(I, o, JS(I)->undef_cls); }
static bool is_array(d2_interp *I, d2_obj *o) { return is_inst(I, o, JS(I)->array_cls); }

static d2_obj *nomem(d2_interp *I) { return d2_raise(I, "MemoryError", "out of memory"); }

static const char *cstr(d2_obj *o)
{
    return o && o->kind == D2_OBJ_STR ? D2_AS(d2_str, o)->s : NULL;
}

/* Attribute of an INSTANCE's dict (borrowed) or NULL. */
static d2_obj *iget(d2_interp *I, d2_obj *o, const char *name)
{
    if (!o || o->kind != D2_OBJ_INSTANCE || !D2_AS(d2_instance, o)->dict)
        return NULL;
    return d2_dict_get_str(I, D2_AS(d2_instance, o)->dict, name);
}

static int iset(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    return d2_dict_set_str(I, D2_AS(d2_instance, o)->dict, name, v);
}

/* Function attribute (borrowed) or NULL. */
static d2_obj *fattr(d2_interp *I, d2_obj *f, const char *name)
{
    if (!f || f->kind != D2_OBJ_FUNCTION || !D2_AS(d2_function, f)->attrs)
        return NULL;
    return d2_dict_get_str(I, D2_AS(d2_function, f)->attrs, name);
}

static int fattr_set(d2_interp *I, d2_obj *f, const char *name, d2_obj *v)
{
    d2_function *fn = D2_AS(d2_function, f);
    if (!fn->attrs) {
        d2_obj *d = d2_dict_new(I);
        if (!d)
            return -1;
        fn->attrs = D2_AS(d2_dict, d);
    }
    return d2_dict_set_str(I, fn->attrs, name, v);
}

d2_obj *d2_jit_mod_attr(d2_interp *I, const char *mod, const char *name)
{
    d2_obj *m = d2_dict_get_str(I, I->modules, mod);
    if (!m || m->kind != D2_OBJ_MODULE)
        return NULL;
    return d2_dict_get_str(I, D2_AS(d2_module, m)->dict, name);
}

bool d2_jit_is_layer(d2_interp *I, d2_obj *o)
{
    d2_obj *lc = d2_jit_mod_attr(I, "paddle.nn", "Layer");
    return o && lc && lc->kind == D2_OBJ_CLASS && o->kind == D2_OBJ_INSTANCE &&
           d2_isinstance(I, o, D2_AS(d2_class, lc));
}

/* Attribute builder for ops built here. */
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
static void ab_int(ab *b, const char *n, int64_t v)
{
    b->bad |= d2_attr_set_int(b->def, &b->a, n, v) < 0;
}
static void ab_float(ab *b, const char *n, double v)
{
    b->bad |= d2_attr_set_float(b->def, &b->a, n, v) < 0;
}
static void ab_str(ab *b, const char *n, const char *v)
{
    b->bad |= d2_attr_set_str(b->def, &b->a, n, v) < 0;
}
static void ab_ints(ab *b, const char *n, const int64_t *v, int k)
{
    b->bad |= d2_attr_set_ints(b->def, &b->a, n, v, k) < 0;
}

/* Runs (or, in static mode, appends) a one-output op; frees b. New ref or NULL. */
static d2_obj *op_n(d2_interp *I, d2_op_id op, d2_obj **in, int n_in, ab *b)
{
    if (b && b->bad) {
        d2_attrs_free(&b->a);
        return d2_raise(I, "RuntimeError", "internal: bad attributes for %s",
                        d2_op_def(op)->name);
    }
    d2_obj *out = NULL;
    int rc = d2_apply_op(I, op, in, n_in, b ? &b->a : NULL, &out, 1);
    if (b)
        d2_attrs_free(&b->a);
    return rc < 0 ? NULL : out;
}

static d2_obj *op_1(d2_interp *I, d2_op_id op, d2_obj *x, ab *b) { return op_n(I, op, &x, 1, b); }
static d2_obj *op_2(d2_interp *I, d2_op_id op, d2_obj *x, d2_obj *y, ab *b)
{
    d2_obj *in[2] = {x, y};
    return op_n(I, op, in, 2, b);
}

/* A constant tensor of dtype dt and shape s filled with v. */
static d2_obj *constant(d2_interp *I, d2_dtype dt, const d2_shape *s, double v)
{
    ab b;
    ab_init(&b, D2_OP_full);
    if (s && s->ndim)
        ab_ints(&b, "shape", s->dims, s->ndim);
    ab_float(&b, "value", v);
    ab_int(&b, "dtype", dt);
    return op_n(I, D2_OP_full, NULL, 0, &b);
}

static double num_value(d2_obj *o)
{
    return o->kind == D2_OBJ_FLOAT ? D2_AS(d2_float, o)->v : (double)D2_AS(d2_int, o)->v;
}

/* Paddle's to_static_variable dtype of a Python scalar. */
static d2_dtype num_dtype(d2_obj *o)
{
    return o->kind == D2_OBJ_BOOL ? D2_BOOL : o->kind == D2_OBJ_INT ? D2_I64 : D2_F64;
}

static d2_obj *cast_to(d2_interp *I, d2_obj *x, d2_dtype dt)
{
    if (TOBJ(x)->type.dtype == dt)
        return d2_incref(x);
    ab b;
    ab_init(&b, D2_OP_cast);
    ab_int(&b, "dtype", dt);
    return op_1(I, D2_OP_cast, x, &b);
}

/* Shape with dynamic dims replaced by 1 (placeholder values). */
static d2_shape static_shape(const d2_shape *s)
{
    d2_shape r = *s;
    for (int d = 0; d < r.ndim; d++)
        if (r.dims[d] < 0)
            r.dims[d] = 1;
    return r;
}

static void type_text(const d2_type *t, char *buf, size_t n)
{
    char ts[160];
    d2_type_str(t, ts, sizeof ts);
    snprintf(buf, n, "%s%s", t->kind == D2_VALUE_ARRAY ? "an array of " : "", ts);
}

/* A variable name not yet used in p: base, base_1, base_2... */
static void unique_name(const d2_program *p, const char *base, char *out, size_t n)
{
    snprintf(out, n, "%s", base);
    for (int k = 1; d2_program_find_var(p, out) >= 0; k++)
        snprintf(out, n, "%s_%d", base, k);
}

d2_obj *d2_jit_tuple_n(d2_interp *I, size_t n)
{
    d2_obj *t = d2_tuple_new(I, n);
    if (t && n)
        D2_AS(d2_tuple, t)->n = n;
    return t;
}

/* Packed results: None for 0 names, the value for 1, a tuple for more. */
static d2_obj *pack(d2_interp *I, d2_obj **v, size_t n)
{
    if (n == 0)
        return d2_none(I);
    if (n == 1)
        return d2_incref(v[0]);
    d2_obj *t = d2_jit_tuple_n(I, n);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++)
        D2_AS(d2_tuple, t)->items[i] = d2_incref(v[i]);
    return t;
}

/* Splits a packed value into n new references. */
static int unpack(d2_interp *I, d2_obj *r, size_t n, d2_obj **out, const char *what)
{
    if (n == 0)
        return 0;
    if (n == 1) {
        out[0] = d2_incref(r);
        return 0;
    }
    d2_obj **items = NULL;
    size_t k = 0;
    if (r->kind == D2_OBJ_TUPLE) {
        items = D2_AS(d2_tuple, r)->items;
        k = D2_AS(d2_tuple, r)->n;
    } else if (r->kind == D2_OBJ_LIST) {
        items = D2_AS(d2_list, r)->items;
        k = D2_AS(d2_list, r)->n;
    }
    if (!items || k != n) {
        d2_raise(I, "RuntimeError", "internal: %s returned %s, expected %zu values", what,
                 d2_type_name(r), n);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = d2_incref(items[i]);
    return 0;
}

static void decref_all(d2_obj **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        d2_setref(&v[i], NULL);
}

d2_obj **d2_jit_seq_items(d2_obj *t, size_t *n)
{
    if (t->kind == D2_OBJ_TUPLE) {
        *n = D2_AS(d2_tuple, t)->n;
        return D2_AS(d2_tuple, t)->items;
    }
    if (t->kind == D2_OBJ_LIST) {
        *n = D2_AS(d2_list, t)->n;
        return D2_AS(d2_list, t)->items;
    }
    *n = 0;
    return NULL;
}

d2_obj *d2_jit_map_items(d2_interp *I, d2_obj *v, d2_jit_map_fn fn, void *ctx, int depth)
{
    if (v->kind == D2_OBJ_LIST || v->kind == D2_OBJ_TUPLE) {
        size_t n;
        d2_obj **items = d2_jit_seq_items(v, &n);
        d2_obj *r = v->kind == D2_OBJ_LIST ? d2_list_new(I, n) : d2_jit_tuple_n(I, n);
        for (size_t i = 0; r && i < n; i++) {
            d2_obj *c = fn(I, items[i], ctx, depth + 1);
            if (!c) {
                d2_decref(r);
                return NULL;
            }
            if (v->kind == D2_OBJ_LIST)
                D2_AS(d2_list, r)->items[i] = c;
            else
                D2_AS(d2_tuple, r)->items[i] = c;
        }
        return r;
    }
    if (v->kind == D2_OBJ_DICT) {
        d2_dict *d = D2_AS(d2_dict, v);
        d2_obj *r = d2_dict_new(I);
        for (size_t i = 0; r && i < d->n; i++) {
            if (!d->entries[i].key)
                continue;
            d2_obj *c = fn(I, d->entries[i].value, ctx, depth + 1);
            if (!c || d2_dict_set(I, D2_AS(d2_dict, r), d->entries[i].key, c) < 0) {
                d2_decref(c);
                d2_decref(r);
                return NULL;
            }
            d2_decref(c);
        }
        return r;
    }
    return d2_incref(v);
}

/* ---- Program surgery used while building ---- */

static void free_ops(d2_block *blk, int from)
{
    for (int i = from; i < blk->n_ops; i++) {
        d2_free(blk->ops[i].in);
        d2_free(blk->ops[i].out);
        d2_attrs_free(&blk->ops[i].attrs);
    }
    if (from < blk->n_ops)
        blk->n_ops = from;
}

/* Empties a sub-block for another attempt; its old variables stay unused. */
static void block_clear(d2_program *p, int b)
{
    d2_block *blk = &p->blocks[b];
    free_ops(blk, 0);
    blk->n_params = 0;
    blk->n_yields = 0;
}

/* A position in the Program under construction: ops of the current block
 * and the number of blocks. */
typedef struct build_mark {
    int n_ops, n_blocks;
} build_mark;

static build_mark block_mark(d2_interp *I)
{
    build_mark m = {0, 0};
    if (D2_MODE(I)->builder) {
        m.n_ops = D2_MODE(I)->builder->prog->blocks[D2_MODE(I)->builder->block].n_ops;
        m.n_blocks = D2_MODE(I)->builder->prog->n_blocks;
    }
    return m;
}

/* Drops the blocks made after m (their variables stay unused). */
static void drop_blocks(d2_program *p, int n_blocks)
{
    while (p->n_blocks > n_blocks) {
        d2_block *blk = &p->blocks[--p->n_blocks];
        free_ops(blk, 0);
        d2_free(blk->ops);
        d2_free(blk->params);
        d2_free(blk->yields);
        memset(blk, 0, sizeof *blk);
    }
}

/* Removes what a probe appended to the current block after m. */
static void rollback(d2_interp *I, build_mark m)
{
    if (!D2_MODE(I)->builder)
        return;
    drop_blocks(D2_MODE(I)->builder->prog, m.n_blocks);
    free_ops(&D2_MODE(I)->builder->prog->blocks[D2_MODE(I)->builder->block], m.n_ops);
}

/* The original file and line of a converted helper function ("if_true_24"
 * in "model.py (converted forward)" gives "model.py:24"); "" when unknown. */
static void helper_where(d2_obj *fn, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!fn || fn->kind != D2_OBJ_FUNCTION)
        return;
    d2_function *f = D2_AS(d2_function, fn);
    const char *name = f->name ? f->name : "";
    size_t len = strlen(name);
    size_t k = len;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    const char *path = f->module && f->module->path ? f->module->path : NULL;
    if (!path || k == len || k == 0 || name[k - 1] != '_')
        return;
    const char *cut = strstr(path, " (converted ");
    int plen = cut ? (int)(cut - path) : (int)strlen(path);
    const char *base = path;
    for (int i = 0; i < plen; i++)
        if (path[i] == '/')
            base = path + i + 1;
    snprintf(buf, n, "%.*s:%s", plen - (int)(base - path), base, name + k);
}

/* ======================================================================
 * UndefinedVar: a variable not bound on every path
 * ====================================================================== */

/* An UndefinedVar is an OPAQUE object (so the operator protocol consults
 * its methods) whose payload is "name\0message". */
static d2_obj *new_undef(d2_interp *I, const char *name, const char *msg)
{
    size_t nl = strlen(name), ml = strlen(msg);
    char *p = d2_malloc(nl + ml + 2);
    if (!p)
        return nomem(I);
    memcpy(p, name, nl + 1);
    memcpy(p + nl + 1, msg, ml + 1);
    d2_obj *u = d2_obj_alloc(I, D2_OBJ_OPAQUE, JS(I)->undef_cls, sizeof(d2_opaque));
    if (!u) {
        d2_free(p);
        return NULL;
    }
    D2_AS(d2_opaque, u)->payload = p;
    D2_AS(d2_opaque, u)->fin = d2_free;
    return u;
}

static const char *undef_name(d2_obj *u)
{
    const char *p = u->kind == D2_OBJ_OPAQUE ? D2_AS(d2_opaque, u)->payload : NULL;
    return p ? p : "?";
}

static const char *undef_message(d2_obj *u)
{
    const char *p = u->kind == D2_OBJ_OPAQUE ? D2_AS(d2_opaque, u)->payload : NULL;
    return p ? p + strlen(p) + 1 : "variable is not defined";
}

/* UndefinedVar(name): what a variable holds before its first assignment. */
static d2_obj *UV_new(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "UndefinedVar", "name", args, nargs, kw, a) < 0)
        return NULL;
    const char *name = cstr(a[0]) ? cstr(a[0]) : "?";
    char msg[400];
    snprintf(msg, sizeof msg,
             "cannot access local variable '%s' where it is not associated with a value", name);
    return new_undef(I, name, msg);
}

static d2_obj *UV_raise(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    const char *m = undef_message(self);
    /* never assigned on any path: Python's own error; else a NameError naming the if */
    bool plain = strncmp(m, "cannot access local variable", 28) == 0;
    return d2_raise(I, plain ? "UnboundLocalError" : "NameError", "%s", m);
}

static d2_obj *UV_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_str_printf(I, "UndefinedVar('%s')", undef_name(self));
}

/* Raises the NameError an UndefinedVar carries (used where values are consumed). */
static d2_obj *raise_undef(d2_interp *I, d2_obj *u)
{
    return UV_raise(I, u, NULL, 0, NULL);
}

bool d2_jit_raise_if_undef(d2_interp *I, d2_obj *o)
{
    if (!JS(I) || !is_undef(I, o))
        return false;
    raise_undef(I, o);
    return true;
}

/* ======================================================================
 * TensorArray: a Python list grown inside a tensor loop
 * ====================================================================== */

/* A TensorArray over symbolic array tensor t; info (shared by copies) says
 * whether the element dtype is still a guess ("loose") and what an append
 * wanted ("want"). NULL info makes a fresh one. */
static d2_obj *new_tarray(d2_interp *I, d2_obj *t, d2_obj *info, bool loose)
{
    d2_obj *a = d2_instance_new(I, JS(I)->array_cls);
    if (!a)
        return NULL;
    d2_obj *inf = info ? d2_incref(info) : d2_dict_new(I);
    int rc = inf ? iset(I, a, "_t", t) : -1;
    if (rc == 0 && !info)
        rc = d2_dict_set_str(I, D2_AS(d2_dict, inf), "loose", loose ? I->true_ : I->false_);
    if (rc == 0)
        rc = iset(I, a, "_info", inf);
    d2_decref(inf);
    if (rc < 0) {
        d2_decref(a);
        return NULL;
    }
    return a;
}

static d2_obj *tarray_t(d2_interp *I, d2_obj *a) { return iget(I, a, "_t"); }
static d2_obj *tarray_info(d2_interp *I, d2_obj *a) { return iget(I, a, "_info"); }

static bool info_loose(d2_interp *I, d2_obj *info)
{
    d2_obj *l = info && info->kind == D2_OBJ_DICT ? d2_dict_get_str(I, D2_AS(d2_dict, info), "loose")
                                                   : NULL;
    return l == I->true_;
}

/* The dtype an append asked a loose array for, or -1. */
static int info_want(d2_interp *I, d2_obj *info)
{
    d2_obj *w = info && info->kind == D2_OBJ_DICT ? d2_dict_get_str(I, D2_AS(d2_dict, info), "want")
                                                   : NULL;
    return w && w->kind == D2_OBJ_INT ? (int)D2_AS(d2_int, w)->v : -1;
}

/* Converts x (tensor or Python number) to an element for array a. */
static d2_obj *array_element(d2_interp *I, d2_obj *a, d2_obj *x)
{
    d2_obj *t = tarray_t(I, a);
    if (!t)
        return d2_raise(I, "RuntimeError", "internal: TensorArray without a tensor");
    d2_dtype adt = TOBJ(t)->type.dtype;
    if (is_undef(I, x))
        return raise_undef(I, x);
    if (is_pynum(x))
        return constant(I, adt, NULL, num_value(x));
    if (!is_tensor(x))
        return d2_raise(I, "TypeError",
                        "a list grown inside a tensor loop holds tensors only; cannot append %s",
                        d2_type_name(x));
    d2_dtype xdt = TOBJ(x)->type.dtype;
    if (xdt == adt)
        return d2_incref(x);
    d2_obj *info = tarray_info(I, a);
    if (!info_loose(I, info))
        return d2_raise(I, "TypeError",
                        "cannot append a %s tensor to a list of %s tensors grown in a tensor loop",
                        d2_dtype_name(xdt), d2_dtype_name(adt));
    d2_obj *w = d2_int_new(I, xdt);
    int rc = w ? d2_dict_set_str(I, D2_AS(d2_dict, info), "want", w) : -1;
    d2_decref(w);
    return rc < 0 ? NULL : cast_to(I, x, adt);
}

static d2_obj *TA_append(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "list.append", "x", args, nargs, kw, a) < 0)
        return NULL;
    d2_obj *x = array_element(I, self, a[0]);
    if (!x)
        return NULL;
    d2_obj *t = tarray_t(I, self);
    d2_obj *len = op_1(I, D2_OP_array_length, t, NULL);
    d2_obj *in[3] = {t, len, x};
    d2_obj *out = len ? op_n(I, D2_OP_array_write, in, 3, NULL) : NULL;
    d2_decref(len);
    d2_decref(x);
    if (!out)
        return NULL;
    int rc = iset(I, self, "_t", out);
    d2_decref(out);
    return rc < 0 ? NULL : d2_none(I);
}

static d2_obj *TA_extend(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "list.extend", "iterable", args, nargs, kw, a) < 0)
        return NULL;
    size_t n;
    d2_obj **items = d2_jit_seq_items(a[0], &n);
    if (!items && n == 0 && a[0]->kind != D2_OBJ_TUPLE && a[0]->kind != D2_OBJ_LIST)
        return d2_raise(I, "TypeError",
                        "extend of a list grown in a tensor loop takes a list or tuple");
    for (size_t i = 0; i < n; i++) {
        d2_obj *r = TA_append(I, self, &items[i], 1, NULL);
        if (!r)
            return NULL;
        d2_decref(r);
    }
    return d2_none(I);
}

static d2_obj *TA_getitem(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "list.__getitem__", "index", args, nargs, kw, a) < 0)
        return NULL;
    d2_obj *t = tarray_t(I, self), *idx = NULL;
    if (a[0]->kind == D2_OBJ_INT || a[0]->kind == D2_OBJ_BOOL)
        idx = constant(I, D2_I64, NULL, num_value(a[0]));
    else if (is_tensor(a[0]) && d2_dtype_is_int(TOBJ(a[0])->type.dtype))
        idx = d2_incref(a[0]);
    else
        return d2_raise(I, "TypeError",
                        "a list grown inside a tensor loop is indexed by an int or an integer "
                        "tensor, not %s", d2_type_name(a[0]));
    d2_obj *r = idx ? op_2(I, D2_OP_array_read, t, idx, NULL) : NULL;
    d2_decref(idx);
    return r;
}

static d2_obj *TA_unsupported(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                              d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_raise(I, "TypeError",
                    "this operation is not supported on a list grown inside a tensor loop (a "
                    "tensor array whose length is known at run time only); use len() through "
                    "the converted code, indexing, append, paddle.concat or paddle.stack");
}

static d2_obj *TA_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    d2_obj *t = tarray_t(I, self);
    char ts[200];
    if (t)
        type_text(&TOBJ(t)->type, ts, sizeof ts);
    return d2_str_printf(I, "TensorArray(%s)", t ? ts : "?");
}

/* ======================================================================
 * Copies of mutable containers (each branch of a tensor if gets its own)
 * ====================================================================== */

static d2_obj *copy_mutable(d2_interp *I, d2_obj *o, int depth);

static d2_obj *copy_item(d2_interp *I, d2_obj *o, void *ctx, int depth)
{
    D2_UNUSED(ctx);
    return copy_mutable(I, o, depth);
}

static d2_obj *copy_mutable(d2_interp *I, d2_obj *o, int depth)
{
    if (depth > 64)
        return d2_incref(o);
    if (is_array(I, o))
        return new_tarray(I, tarray_t(I, o), tarray_info(I, o), false);
    return d2_jit_map_items(I, o, copy_item, NULL, depth);
}

/* ======================================================================
 * Templates: Python structures with markers where Program values go
 * ====================================================================== */

static d2_obj *new_slot(d2_interp *I, int k)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_OPAQUE, JS(I)->slot_cls, sizeof(d2_opaque));
    if (o)
        D2_AS(d2_opaque, o)->payload = (void *)(intptr_t)(k + 1);
    return o;
}

static int slot_index(d2_interp *I, d2_obj *o)
{
    if (o->kind != D2_OBJ_OPAQUE || o->cls != JS(I)->slot_cls)
        return -1;
    return (int)(intptr_t)D2_AS(d2_opaque, o)->payload - 1;
}

static d2_obj *fill_slots(d2_interp *I, d2_obj *tmpl, d2_obj **vals, int depth);

static d2_obj *fill_item(d2_interp *I, d2_obj *tmpl, void *vals, int depth)
{
    return fill_slots(I, tmpl, vals, depth);
}

/* tmpl with marker k replaced by vals[k] (new reference). */
static d2_obj *fill_slots(d2_interp *I, d2_obj *tmpl, d2_obj **vals, int depth)
{
    int k = slot_index(I, tmpl);
    if (k >= 0)
        return d2_incref(vals[k]);
    if (depth > 64)
        return d2_incref(tmpl);
    return d2_jit_map_items(I, tmpl, fill_item, vals, depth);
}

/* ======================================================================
 * cond: both branches of an if on a tensor
 * ====================================================================== */

/* Runs branch `which` (0 true, 1 false) and returns its packed values. */
typedef d2_obj *(*branch_fn)(d2_interp *I, void *ctx, int which);

typedef struct merge {
    d2_interp *I;
    d2_builder *B;
    int blk[2];
    int n, cap;
    int *yv[2];
    d2_obj **info; /* per yield: the TensorArray info (owned) or NULL */
    const char *what; /* "the if at model.py:24" */
    d2_obj *const *fns; /* the if's two branch functions, or NULL */
} merge;

static void merge_free(merge *m)
{
    for (int k = 0; k < m->n; k++)
        d2_decref(m->info[k]);
    d2_free(m->yv[0]);
    d2_free(m->yv[1]);
    d2_free(m->info);
}

/* The variable for value o in branch block `side`; lifts concrete tensors. */
static int side_var(merge *m, int side, d2_obj *o)
{
    int saved = m->B->block;
    m->B->block = m->blk[side];
    int v = d2_pd_lift(m->I, m->B, o);
    m->B->block = saved;
    return v;
}

/* A constant made in branch block `side`. */
static d2_obj *side_const(merge *m, int side, d2_dtype dt, const d2_shape *s, double v)
{
    int saved = m->B->block;
    m->B->block = m->blk[side];
    d2_obj *r = constant(m->I, dt, s, v);
    m->B->block = saved;
    return r;
}

/* Records a pair of yields; returns a marker for the cond result. */
static d2_obj *merge_yield(merge *m, d2_obj *a, d2_obj *b, d2_obj *info)
{
    d2_interp *I = m->I;
    int va = side_var(m, 0, a);
    int vb = va < 0 ? -1 : side_var(m, 1, b);
    if (vb < 0)
        return NULL;
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 8;
        int *y0 = d2_realloc(m->yv[0], sizeof(int) * (size_t)cap);
        if (y0)
            m->yv[0] = y0;
        int *y1 = y0 ? d2_realloc(m->yv[1], sizeof(int) * (size_t)cap) : NULL;
        if (y1)
            m->yv[1] = y1;
        d2_obj **inf = y1 ? d2_realloc(m->info, sizeof(d2_obj *) * (size_t)cap) : NULL;
        if (!inf)
            return nomem(I);
        m->info = inf;
        m->cap = cap;
    }
    m->yv[0][m->n] = va;
    m->yv[1][m->n] = vb;
    m->info[m->n] = d2_incref(info);
    return new_slot(I, m->n++);
}

static bool internal_name(const char *name)
{
    return strncmp(name, "_return_", 8) == 0 || strncmp(name, "_break_", 7) == 0 ||
           strncmp(name, "_continue_", 10) == 0;
}

static const char *kind_text(d2_interp *I, d2_obj *o, char *buf, size_t n)
{
    if (is_tensor(o)) {
        char ts[160];
        d2_type_str(&TOBJ(o)->type, ts, sizeof ts);
        snprintf(buf, n, "a %s tensor", ts);
    } else if (is_array(I, o)) {
        snprintf(buf, n, "a list grown in a tensor loop");
    } else if (is_pynum(o) || (o->kind == D2_OBJ_STR && d2_len(I, o) <= 40)) {
        d2_obj *r = d2_repr(I, o);
        snprintf(buf, n, "the Python %s %s", d2_type_name(o), r ? cstr(r) : "?");
        d2_decref(r);
        if (!r)
            d2_exc_clear(I);
    } else {
        snprintf(buf, n, "a Python %s", d2_type_name(o));
    }
    return buf;
}

static d2_obj *mismatch(merge *m, const char *name, d2_obj *a, d2_obj *b, const char *why)
{
    char ka[256], kb[256], nm[300];
    if (strncmp(name, "_return_value", 13) == 0) /* the transform's own name */
        snprintf(nm, sizeof nm, "the returned value%s%s", name[13] ? " " : "", name + 13);
    else
        snprintf(nm, sizeof nm, "'%s'", name);
    return d2_raise(m->I, "TypeError",
                    "%s is %s in the true branch but %s in the false branch of %s%s%s", nm,
                    kind_text(m->I, a, ka, sizeof ka), kind_text(m->I, b, kb, sizeof kb), m->what,
                    why,
                    nm[0] == 't' ? "; every return inside a loop or if on a tensor must give the "
                                   "same kind of value" : "");
}

/* True when list o holds only tensors (or is empty): it becomes a tensor array. */
static bool tensor_list(d2_obj *o)
{
    if (o->kind != D2_OBJ_LIST)
        return false;
    d2_list *l = D2_AS(d2_list, o);
    for (size_t i = 0; i < l->n; i++)
        if (!is_tensor(l->items[i]))
            return false;
    return true;
}

/* A tensor array holding the tensors of list l, made in branch block `side`. */
static d2_obj *side_array(merge *m, int side, d2_obj *l, d2_dtype dt)
{
    d2_interp *I = m->I;
    int saved = m->B->block;
    m->B->block = m->blk[side];
    ab b;
    ab_init(&b, D2_OP_array_create);
    ab_int(&b, "dtype", dt);
    d2_obj *t = op_n(I, D2_OP_array_create, NULL, 0, &b);
    size_t n;
    d2_obj **items = d2_jit_seq_items(l, &n);
    for (size_t i = 0; t && i < n; i++) {
        d2_obj *x = cast_to(I, items[i], dt);
        d2_obj *idx = x ? constant(I, D2_I64, NULL, (double)i) : NULL;
        d2_obj *in[3] = {t, idx, x};
        d2_obj *nt = idx ? op_n(I, D2_OP_array_write, in, 3, NULL) : NULL;
        d2_decref(x);
        d2_decref(idx);
        d2_setref(&t, nt);
    }
    m->B->block = saved;
    return t;
}

/* Lists of tensors that grow differently in the two branches (append in a
 * branch) become tensor arrays, as Paddle does. */
static d2_obj *merge_lists(merge *m, d2_obj *a, d2_obj *b, const char *name)
{
    d2_obj *first = D2_AS(d2_list, a)->n ? D2_AS(d2_list, a)->items[0]
                                         : D2_AS(d2_list, b)->items[0];
    d2_dtype dt = TOBJ(first)->type.dtype;
    d2_obj *lists[2] = {a, b};
    for (int w = 0; w < 2; w++)
        for (size_t i = 0; i < D2_AS(d2_list, lists[w])->n; i++)
            if (TOBJ(D2_AS(d2_list, lists[w])->items[i])->type.dtype != dt)
                return mismatch(m, name, a, b, " (lists of tensors of different dtypes)");
    d2_obj *ta = side_array(m, 0, a, dt);
    d2_obj *tb = ta ? side_array(m, 1, b, dt) : NULL;
    d2_obj *info = tb ? d2_dict_new(m->I) : NULL;
    d2_obj *r = info ? merge_yield(m, ta, tb, info) : NULL;
    d2_decref(ta);
    d2_decref(tb);
    d2_decref(info);
    return r;
}

static bool binds_name(const d2_ast_expr *t, const char *name)
{
    if (t->kind == D2_AST_NAME)
        return strcmp(t->name.id, name) == 0;
    if (t->kind == D2_AST_TUPLE || t->kind == D2_AST_LIST)
        for (uint32_t i = 0; i < t->tuple.elts.n; i++)
            if (binds_name(t->tuple.elts.items[i], name))
                return true;
    if (t->kind == D2_AST_STARRED)
        return binds_name(t->starred.value, name);
    return false;
}

/* The line of the first top-level statement of branch function fn that
 * assigns name; 0 when none is found. */
static uint32_t assign_line(d2_obj *fn, const char *name)
{
    if (!fn || fn->kind != D2_OBJ_FUNCTION || !D2_AS(d2_function, fn)->body)
        return 0;
    const d2_ast_seq *body = D2_AS(d2_function, fn)->body;
    for (uint32_t i = 0; i < body->n; i++) {
        const d2_ast_stmt *st = body->items[i];
        bool hit = false;
        if (st->kind == D2_AST_ASSIGN)
            for (uint32_t k = 0; k < st->assign.targets.n && !hit; k++)
                hit = binds_name(st->assign.targets.items[k], name);
        else if (st->kind == D2_AST_AUG_ASSIGN)
            hit = binds_name(st->aug_assign.target, name);
        else if (st->kind == D2_AST_ANN_ASSIGN)
            hit = binds_name(st->ann_assign.target, name);
        if (hit)
            return st->span.line;
    }
    return 0;
}

/* The line of the first statement of branch function fn, 0 when it holds
 * only the transform's closing return (an if without else). */
static uint32_t branch_line(d2_obj *fn)
{
    if (!fn || fn->kind != D2_OBJ_FUNCTION || !D2_AS(d2_function, fn)->body)
        return 0;
    const d2_ast_seq *body = D2_AS(d2_function, fn)->body;
    if (body->n == 0)
        return 0;
    const d2_ast_stmt *st = body->items[0];
    if (body->n == 1 && st->kind == D2_AST_RETURN)
        return 0;
    return st->span.line;
}

/* Merges the values a (true branch) and b (false branch) of one name into
 * a template: equal Python values stay, tensors become cond results. */
static d2_obj *unify(merge *m, d2_obj *a, d2_obj *b, const char *name, int depth)
{
    d2_interp *I = m->I;
    if (a == b)
        return d2_incref(a);
    bool ua = is_undef(I, a), ub = is_undef(I, b);
    if (ua && ub)
        return d2_incref(a);
    if (ua || ub) {
        d2_obj *def = ua ? b : a;
        int us = ua ? 0 : 1;
        if (internal_name(name) && def->kind == D2_OBJ_NONE)
            return d2_incref(def);
        if (internal_name(name) && (is_tensor(def) || is_pynum(def))) {
            /* the transform's own flags and return values: a placeholder where unset */
            d2_obj *dt = is_tensor(def) ? d2_incref(def)
                                        : side_const(m, 1 - us, num_dtype(def), NULL,
                                                     num_value(def));
            if (!dt)
                return NULL;
            d2_shape s = static_shape(&TOBJ(dt)->type.shape);
            d2_obj *ph = side_const(m, us, TOBJ(dt)->type.dtype, &s, 0);
            d2_obj *r = ph ? merge_yield(m, us ? dt : ph, us ? ph : dt, NULL) : NULL;
            d2_decref(ph);
            d2_decref(dt);
            return r;
        }
        if (internal_name(name) && depth < 32 &&
            (def->kind == D2_OBJ_TUPLE || def->kind == D2_OBJ_LIST)) {
            /* a returned tuple: a placeholder per element */
            size_t nd;
            d2_obj **items = d2_jit_seq_items(def, &nd);
            d2_obj *undef = ua ? a : b;
            d2_obj *r = def->kind == D2_OBJ_LIST ? d2_list_new(I, nd) : d2_jit_tuple_n(I, nd);
            char sub[300];
            for (size_t i = 0; r && i < nd; i++) {
                snprintf(sub, sizeof sub, "%s[%zu]", name, i);
                d2_obj *c = unify(m, ua ? undef : items[i], ua ? items[i] : undef, sub, depth + 1);
                if (!c) {
                    d2_decref(r);
                    return NULL;
                }
                if (def->kind == D2_OBJ_LIST)
                    D2_AS(d2_list, r)->items[i] = c;
                else
                    D2_AS(d2_tuple, r)->items[i] = c;
            }
            return r;
        }
        char msg[900], lines[200] = "";
        if (m->fns) {
            /* where each branch starts: the one that assigns and the one that does not */
            uint32_t la = assign_line(m->fns[ua ? 1 : 0], name);
            uint32_t lb = branch_line(m->fns[ua ? 0 : 1]);
            if (la && lb)
                snprintf(lines, sizeof lines,
                         " (assigned at line %u; the %s branch at line %u does not assign it)",
                         (unsigned)la, ua ? "true" : "false", (unsigned)lb);
            else if (la)
                snprintf(lines, sizeof lines, " (assigned at line %u; %s)", (unsigned)la,
                         ua ? "the true branch assigns nothing" : "there is no else");
        }
        snprintf(msg, sizeof msg,
                 "'%s' is assigned only in the %s branch of %s%s, so it is not defined after it "
                 "when the condition is %s at run time",
                 name, ua ? "false" : "true", m->what, lines, ua ? "true" : "false");
        return new_undef(I, name, msg);
    }
    if (is_array(I, a) || is_array(I, b)) {
        if (!is_array(I, a) || !is_array(I, b))
            return mismatch(m, name, a, b, "");
        d2_obj *ta = tarray_t(I, a), *tb = tarray_t(I, b);
        if (TOBJ(ta)->type.dtype != TOBJ(tb)->type.dtype)
            return mismatch(m, name, ta, tb, "");
        return merge_yield(m, ta, tb, tarray_info(I, a));
    }
    bool ta = is_tensor(a), tb = is_tensor(b);
    if (ta || tb) {
        if (ta && tb) {
            const d2_type *x = &TOBJ(a)->type, *y = &TOBJ(b)->type;
            if (x->dtype != y->dtype)
                return mismatch(m, name, a, b, "; both branches must give the same dtype");
            if (x->shape.ndim != y->shape.ndim)
                return mismatch(m, name, a, b, "; both branches must give the same rank");
            return merge_yield(m, a, b, NULL);
        }
        d2_obj *t = ta ? a : b, *o = ta ? b : a;
        if (!is_pynum(o))
            return mismatch(m, name, a, b, "");
        const d2_type *tt = &TOBJ(t)->type;
        if (!d2_shape_is_static(&tt->shape))
            return mismatch(m, name, a, b,
                            "; a Python number cannot stand for a tensor of unknown shape");
        d2_obj *c = side_const(m, ta ? 1 : 0, tt->dtype, &tt->shape, num_value(o));
        if (!c)
            return NULL;
        d2_obj *r = merge_yield(m, ta ? a : c, ta ? c : b, NULL);
        d2_decref(c);
        return r;
    }
    if (is_pynum(a) && is_pynum(b)) {
        if (a->kind == b->kind && num_value(a) == num_value(b))
            return d2_incref(a);
        d2_dtype da = num_dtype(a), db = num_dtype(b);
        d2_dtype dt = da == D2_F64 || db == D2_F64 ? D2_F64 : da == D2_I64 || db == D2_I64 ? D2_I64
                                                                                        : D2_BOOL;
        d2_obj *ca = side_const(m, 0, dt, NULL, num_value(a));
        d2_obj *cb = ca ? side_const(m, 1, dt, NULL, num_value(b)) : NULL;
        d2_obj *r = cb ? merge_yield(m, ca, cb, NULL) : NULL;
        d2_decref(ca);
        d2_decref(cb);
        return r;
    }
    if (depth < 32 && a->kind == b->kind && (a->kind == D2_OBJ_LIST || a->kind == D2_OBJ_TUPLE)) {
        size_t na, nb;
        d2_obj **ia = d2_jit_seq_items(a, &na), **ib = d2_jit_seq_items(b, &nb);
        if (na != nb) {
            if (a->kind == D2_OBJ_LIST && tensor_list(a) && tensor_list(b))
                return merge_lists(m, a, b, name);
            return mismatch(m, name, a, b, " (lists of different lengths)");
        }
        d2_obj *r = a->kind == D2_OBJ_LIST ? d2_list_new(I, na) : d2_jit_tuple_n(I, na);
        char sub[300];
        for (size_t i = 0; r && i < na; i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", name, i);
            d2_obj *c = unify(m, ia[i], ib[i], sub, depth + 1);
            if (!c) {
                d2_decref(r);
                return NULL;
            }
            if (a->kind == D2_OBJ_LIST)
                D2_AS(d2_list, r)->items[i] = c;
            else
                D2_AS(d2_tuple, r)->items[i] = c;
        }
        return r;
    }
    if (depth < 32 && a->kind == D2_OBJ_DICT && b->kind == D2_OBJ_DICT) {
        d2_dict *da = D2_AS(d2_dict, a), *db = D2_AS(d2_dict, b);
        if (da->live != db->live)
            return mismatch(m, name, a, b, " (dicts with different keys)");
        d2_obj *r = d2_dict_new(I);
        for (size_t i = 0; r && i < da->n; i++) {
            d2_dict_entry *e = &da->entries[i];
            if (!e->key)
                continue;
            d2_obj *vb = d2_dict_get(I, db, e->key);
            if (!vb) {
                d2_decref(r);
                return d2_exc_pending(I) ? NULL
                                         : mismatch(m, name, a, b, " (dicts with different keys)");
            }
            d2_obj *c = unify(m, e->value, vb, name, depth + 1);
            if (!c || d2_dict_set(I, D2_AS(d2_dict, r), e->key, c) < 0) {
                d2_decref(c);
                d2_decref(r);
                return NULL;
            }
            d2_decref(c);
        }
        return r;
    }
    if (a->kind == b->kind && (a->kind == D2_OBJ_STR || a->kind == D2_OBJ_NONE)) {
        int eq = d2_equal(I, a, b);
        if (eq < 0)
            return NULL;
        if (eq)
            return d2_incref(a);
    }
    return mismatch(m, name, a, b,
                    "; a value that is not a tensor must be the same in both branches of an if "
                    "on a tensor");
}

/* Converts a tensor predicate to the variable of a one-element bool tensor. */
static int pred_var(d2_interp *I, d2_obj *pred, const char *what)
{
    const d2_type *t = &TOBJ(pred)->type;
    int64_t n = d2_shape_numel(&t->shape);
    if (t->kind != D2_VALUE_TENSOR || (n >= 0 && n != 1)) {
        char ts[160];
        d2_type_str(t, ts, sizeof ts);
        d2_raise(I, "ValueError",
                 "the condition of %s is a %s tensor; it must hold exactly one element", what, ts);
        return -1;
    }
    d2_obj *b = t->dtype == D2_BOOL ? d2_incref(pred) : cast_to(I, pred, D2_BOOL);
    if (!b)
        return -1;
    int v = d2_pd_lift(I, D2_MODE(I)->builder, b);
    d2_decref(b);
    return v;
}

/* Adds a control op with new result variables in the current block. */
static int emit_control(d2_interp *I, d2_op_id id, const int *in, int n_in, ab *b, int n_out,
                        int *out)
{
    d2_builder *B = D2_MODE(I)->builder;
    d2_err err = {0};
    int rc = -1;
    d2_type *types = d2_calloc((size_t)n_out + 1, sizeof *types);
    int *tmp_out = d2_calloc((size_t)n_out + 1, sizeof *tmp_out);
    if (!types || !tmp_out || b->bad) {
        nomem(I);
        goto done;
    }
    d2_op tmp = {.id = id, .n_in = n_in, .n_out = n_out, .in = (int *)in, .out = tmp_out,
                 .attrs = b->a};
    if (d2_program_infer_op(B->prog, &tmp, types, &err) < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    for (int k = 0; k < n_out; k++) {
        out[k] = d2_program_add_var(B->prog, B->block, NULL, &types[k], &err);
        if (out[k] < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
    }
    if (d2_block_add_op(B->prog, B->block, id, in, n_in, out, n_out, &b->a, &err) < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    d2_block *blk = &B->prog->blocks[B->block];
    if (I->frame) {
        blk->ops[blk->n_ops - 1].line = (int)I->frame->span.line;
        blk->ops[blk->n_ops - 1].col = (int)I->frame->span.col + 1;
    }
    rc = 0;
done:
    d2_attrs_free(&b->a);
    d2_free(types);
    d2_free(tmp_out);
    return rc;
}

/* The result of a symbolic-value wrapper for output variable v (TensorArray
 * for arrays). */
static d2_obj *wrap_var(d2_interp *I, int v, d2_obj *info)
{
    d2_obj *t = d2_pd_symbolic(I, D2_MODE(I)->builder, v);
    if (!t || TOBJ(t)->type.kind != D2_VALUE_ARRAY)
        return t;
    d2_obj *a = new_tarray(I, t, info, false);
    d2_decref(t);
    return a;
}

/* Builds `cond(pred)` whose branches run fn(ctx, 0) and fn(ctx, 1); each
 * gives the packed values of the n names. out receives n new references. */
static int cond_core(d2_interp *I, d2_obj *pred, branch_fn fn, void *ctx, size_t n,
                     const char **names, const char *what, d2_obj *const *fns, d2_obj **out)
{
    d2_builder *B = D2_MODE(I)->builder;
    d2_program *p = B->prog;
    int parent = B->block;
    int pv = pred_var(I, pred, what);
    if (pv < 0)
        return -1;
    merge m = {.I = I, .B = B, .what = what, .fns = fns};
    d2_err err = {0};
    d2_obj **vals = d2_calloc(2 * n + 1, sizeof *vals);
    d2_obj **tmpl = d2_calloc(n + 1, sizeof *tmpl);
    d2_obj **res = NULL;
    int rc = -1;
    if (!vals || !tmpl) {
        nomem(I);
        goto done;
    }
    for (int w = 0; w < 2; w++) {
        m.blk[w] = d2_program_add_block(p, parent, &err);
        if (m.blk[w] < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
        B->block = m.blk[w];
        d2_obj *r = fn(I, ctx, w);
        B->block = parent;
        if (!r)
            goto done;
        int u = unpack(I, r, n, vals + w * n, "a branch of an if");
        d2_decref(r);
        if (u < 0)
            goto done;
    }
    for (size_t j = 0; j < n; j++) {
        tmpl[j] = unify(&m, vals[j], vals[n + j], names[j], 0);
        if (!tmpl[j])
            goto done;
    }
    for (int k = 0; k < m.n; k++)
        if (d2_block_add_yield(p, m.blk[0], m.yv[0][k], &err) < 0 ||
            d2_block_add_yield(p, m.blk[1], m.yv[1][k], &err) < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
    int *outv = d2_calloc((size_t)m.n + 1, sizeof *outv);
    res = d2_calloc((size_t)m.n + 1, sizeof *res);
    if (!outv || !res) {
        d2_free(outv);
        nomem(I);
        goto done;
    }
    ab b;
    ab_init(&b, D2_OP_cond);
    ab_int(&b, "then", m.blk[0]);
    ab_int(&b, "else", m.blk[1]);
    if (emit_control(I, D2_OP_cond, &pv, 1, &b, m.n, outv) < 0) {
        d2_free(outv);
        goto done;
    }
    for (int k = 0; k < m.n; k++) {
        res[k] = wrap_var(I, outv[k], m.info[k]);
        if (!res[k]) {
            d2_free(outv);
            goto done;
        }
    }
    d2_free(outv);
    for (size_t j = 0; j < n; j++) {
        out[j] = fill_slots(I, tmpl[j], res, 0);
        if (!out[j]) {
            decref_all(out, j);
            goto done;
        }
    }
    rc = 0;
done:
    B->block = parent;
    decref_all(vals, 2 * n);
    decref_all(tmpl, n);
    if (res)
        decref_all(res, (size_t)m.n);
    d2_free(vals);
    d2_free(tmpl);
    d2_free(res);
    merge_free(&m);
    return rc;
}

/* ---- _jst.IfElse / _jst.IfExp ---- */

typedef struct ifelse_ctx {
    d2_obj *fns[2];
    d2_obj *args; /* tuple */
} ifelse_ctx;

static d2_obj *ifelse_branch(d2_interp *I, void *vctx, int which)
{
    ifelse_ctx *c = vctx;
    d2_obj *copy = copy_mutable(I, c->args, 0);
    if (!copy)
        return NULL;
    size_t n;
    d2_obj **items = d2_jit_seq_items(copy, &n);
    d2_obj *r = d2_call(I, c->fns[which], items, n, NULL);
    d2_decref(copy);
    return r;
}

static int names_array(d2_interp *I, d2_obj *names, const char ***out, size_t *n)
{
    if (names->kind != D2_OBJ_TUPLE && names->kind != D2_OBJ_LIST) {
        d2_raise(I, "TypeError", "_jst: names must be a tuple of strings");
        return -1;
    }
    d2_obj **items = d2_jit_seq_items(names, n);
    *out = d2_calloc(*n + 1, sizeof **out);
    if (!*out) {
        nomem(I);
        return -1;
    }
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = cstr(items[i]) ? cstr(items[i]) : "?";
    return 0;
}

static d2_obj *JST_IfElse(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[5] = {NULL};
    if (d2_parse_args(I, "_jst.IfElse", "pred, true_fn, false_fn, args, names", args, nargs, kw,
                      a) < 0)
        return NULL;
    if (a[3]->kind != D2_OBJ_TUPLE)
        return d2_raise(I, "TypeError", "_jst.IfElse: args must be a tuple");
    if (!is_sym(a[0])) {
        if (is_undef(I, a[0]))
            return raise_undef(I, a[0]);
        int t = d2_truthy(I, a[0]);
        if (t < 0)
            return NULL;
        size_t n;
        d2_obj **items = d2_jit_seq_items(a[3], &n);
        return d2_call(I, a[t ? 1 : 2], items, n, NULL);
    }
    const char **names;
    size_t n;
    if (names_array(I, a[4], &names, &n) < 0)
        return NULL;
    char where[300], what[340];
    helper_where(a[1], where, sizeof where);
    snprintf(what, sizeof what, "the if%s%s", where[0] ? " at " : "", where);
    ifelse_ctx c = {{a[1], a[2]}, a[3]};
    d2_obj **out = d2_calloc(n + 1, sizeof *out);
    d2_obj *r = NULL;
    if (!out)
        nomem(I);
    else if (cond_core(I, a[0], ifelse_branch, &c, n, names, what, c.fns, out) == 0) {
        r = pack(I, out, n);
        decref_all(out, n);
    }
    d2_free(out);
    d2_free(names);
    return r;
}

static d2_obj *ifexp_branch(d2_interp *I, void *vctx, int which)
{
    ifelse_ctx *c = vctx;
    return d2_call(I, c->fns[which], NULL, 0, NULL);
}

static d2_obj *JST_IfExp(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[3] = {NULL};
    if (d2_parse_args(I, "_jst.IfExp", "pred, true_fn, false_fn", args, nargs, kw, a) < 0)
        return NULL;
    if (!is_sym(a[0])) {
        if (is_undef(I, a[0]))
            return raise_undef(I, a[0]);
        int t = d2_truthy(I, a[0]);
        if (t < 0)
            return NULL;
        return d2_call(I, a[t ? 1 : 2], NULL, 0, NULL);
    }
    ifelse_ctx c = {{a[1], a[2]}, NULL};
    const char *names[1] = {"<conditional expression>"};
    d2_obj *out = NULL;
    if (cond_core(I, a[0], ifexp_branch, &c, 1, names, "a conditional expression", NULL, &out) <
        0)
        return NULL;
    return out;
}

/* ======================================================================
 * while_loop: loops whose test is a tensor
 * ====================================================================== */

/* A loop body/test over carried values: cond returns the test (new ref);
 * body writes n new references. */
typedef struct loop_cbs {
    d2_obj *(*cond)(d2_interp *I, void *ctx, d2_obj **vals);
    int (*body)(d2_interp *I, void *ctx, d2_obj **vals, d2_obj **out);
    void *ctx;
} loop_cbs;

enum { SLOT_TENSOR, SLOT_SCALAR, SLOT_ARRAY, SLOT_UNDEF, SLOT_PY };

typedef struct lslot {
    int kind;
    d2_type type;
    bool adopt;     /* the type follows the body (Python number or undefined before the loop) */
    bool own_info;  /* an array this loop made from a Python list: its dtype may be fixed */
    d2_obj *info;   /* array info (owned) */
} lslot;

static int classify(d2_interp *I, d2_obj *v, lslot *s, const char *name, const char *what)
{
    memset(s, 0, sizeof *s);
    if (is_tensor(v)) {
        s->kind = SLOT_TENSOR;
        s->type = TOBJ(v)->type;
        if (s->type.kind == D2_VALUE_ARRAY) {
            s->kind = SLOT_ARRAY;
            s->info = d2_dict_new(I);
            if (!s->info)
                return -1;
        }
    } else if (is_pynum(v)) {
        s->kind = SLOT_SCALAR;
        s->type.kind = D2_VALUE_TENSOR;
        s->type.dtype = num_dtype(v);
        s->adopt = true;
    } else if (is_array(I, v)) {
        s->kind = SLOT_ARRAY;
        s->type = TOBJ(tarray_t(I, v))->type;
        s->info = d2_incref(tarray_info(I, v));
    } else if (tensor_list(v)) {
        d2_list *l = D2_AS(d2_list, v);
        s->kind = SLOT_ARRAY;
        s->type.kind = D2_VALUE_ARRAY;
        s->type.dtype = l->n ? TOBJ(l->items[0])->type.dtype : D2_F32;
        s->type.shape.ndim = 0;
        for (size_t i = 0; i < l->n; i++) {
            const d2_type *et = &TOBJ(l->items[i])->type;
            if (et->dtype != s->type.dtype) {
                d2_raise(I, "TypeError",
                         "'%s' holds tensors of different dtypes (%s and %s) and cannot become a "
                         "tensor array in %s", name, d2_dtype_name(s->type.dtype),
                         d2_dtype_name(et->dtype), what);
                return -1;
            }
        }
        s->own_info = true;
        s->info = d2_dict_new(I);
        if (!s->info ||
            d2_dict_set_str(I, D2_AS(d2_dict, s->info), "loose", l->n ? I->false_ : I->true_) < 0)
            return -1;
    } else if (is_undef(I, v) || v->kind == D2_OBJ_NONE) {
        /* None before the loop is undefined to Paddle too (a placeholder) */
        s->kind = SLOT_UNDEF;
        s->adopt = true;
    } else {
        s->kind = SLOT_PY;
    }
    return 0;
}

static bool carried(const lslot *s)
{
    return s->kind == SLOT_TENSOR || s->kind == SLOT_SCALAR || s->kind == SLOT_ARRAY;
}

/* A block parameter of slot s's type, as the Python value the callbacks see. */
static d2_obj *loop_param(d2_interp *I, int blk, const lslot *s, const char *name)
{
    d2_builder *B = D2_MODE(I)->builder;
    char vn[300];
    unique_name(B->prog, name, vn, sizeof vn);
    d2_err err = {0};
    int v = d2_program_add_var(B->prog, blk, vn, &s->type, &err);
    if (v < 0 || d2_block_add_param(B->prog, blk, v, &err) < 0) {
        d2_raise_err(I, &err);
        return NULL;
    }
    d2_obj *t = d2_pd_symbolic(I, B, v);
    if (!t || s->kind != SLOT_ARRAY)
        return t;
    d2_obj *a = new_tarray(I, t, s->info, false);
    d2_decref(t);
    return a;
}

/* Checks the body's value v for slot s against its type; widens the type
 * (sets *again) when the loop must be built once more. */
static int check_carried(d2_interp *I, lslot *s, d2_obj *orig, d2_obj *v, const char *name,
                         const char *what, bool *again)
{
    char ka[200], kb[200];
    if (s->kind == SLOT_UNDEF) {
        if (v == orig || is_undef(I, v))
            return 0;
        if (!is_tensor(v) && !is_pynum(v) && !is_array(I, v) && !tensor_list(v)) {
            d2_raise(I, "TypeError",
                     "'%s' is assigned a Python %s in %s, whose test is a tensor; only tensors, "
                     "numbers and lists of tensors can change in such a loop", name,
                     d2_type_name(v), what);
            return -1;
        }
        lslot ns;
        if (classify(I, v, &ns, name, what) < 0) {
            d2_decref(ns.info);
            return -1;
        }
        d2_decref(s->info);
        *s = ns;
        s->adopt = true;
        if (s->kind == SLOT_ARRAY && !s->info) {
            s->info = d2_dict_new(I);
            if (!s->info)
                return -1;
        }
        *again = true;
        return 0;
    }
    if (s->kind == SLOT_PY) {
        if (v == orig)
            return 0;
        if (v->kind == orig->kind && (v->kind == D2_OBJ_STR || v->kind == D2_OBJ_NONE)) {
            int eq = d2_equal(I, v, orig);
            if (eq != 0)
                return eq < 0 ? -1 : 0;
        }
        d2_raise(I, "TypeError",
                 "'%s' is a Python %s that changes in %s, whose test is a tensor; only tensors, "
                 "numbers and lists of tensors can change in such a loop", name, d2_type_name(v),
                 what);
        return -1;
    }
    const d2_type *vt = NULL;
    d2_type tmp;
    if (s->kind == SLOT_ARRAY) {
        if (!is_array(I, v)) {
            d2_raise(I, "TypeError",
                     "'%s' is a list grown in %s but becomes %s in its body", name, what,
                     kind_text(I, v, ka, sizeof ka));
            return -1;
        }
        vt = &TOBJ(tarray_t(I, v))->type;
        int want = s->own_info ? info_want(I, s->info) : -1;
        if (want >= 0 && want != (int)s->type.dtype) {
            s->type.dtype = (d2_dtype)want;
            /* the element shape too, when this pass learned it: one
             * attempt less than learning it on the next */
            if (s->type.shape.ndim == 0 && vt->shape.ndim > 0)
                s->type.shape = vt->shape;
            d2_dict_set_str(I, D2_AS(d2_dict, s->info), "loose", I->false_);
            *again = true;
            return 0;
        }
    } else if (is_tensor(v)) {
        vt = &TOBJ(v)->type;
    } else if (is_pynum(v)) {
        tmp = s->type;
        vt = &tmp;
    } else if (is_undef(I, v)) {
        raise_undef(I, v);
        return -1;
    } else {
        d2_raise(I, "TypeError", "'%s' is %s before %s but %s after its body", name,
                 (type_text(&s->type, ka, sizeof ka), ka), what, kind_text(I, v, kb, sizeof kb));
        return -1;
    }
    if (vt->kind != s->type.kind || vt->dtype != s->type.dtype) {
        if (s->adopt && vt->kind == s->type.kind) {
            s->type.dtype = vt->dtype;
            s->type.shape = vt->shape;
            *again = true;
            return 0;
        }
        type_text(&s->type, ka, sizeof ka);
        type_text(vt, kb, sizeof kb);
        d2_raise(I, "TypeError",
                 "'%s' is %s before %s but %s after its body; a loop variable keeps its dtype",
                 name, ka, what, kb);
        return -1;
    }
    if (s->kind == SLOT_ARRAY) {
        if (vt->shape.ndim == 0)
            return 0;
        if (s->type.shape.ndim == 0) {
            s->type.shape = vt->shape;
            *again = true;
            return 0;
        }
    }
    if (vt->shape.ndim != s->type.shape.ndim) {
        if (s->adopt) {
            s->type.shape = vt->shape;
            *again = true;
            return 0;
        }
        type_text(&s->type, ka, sizeof ka);
        type_text(vt, kb, sizeof kb);
        d2_raise(I, "ValueError",
                 "'%s' is %s before %s but %s after its body; a loop variable keeps its rank",
                 name, ka, what, kb);
        return -1;
    }
    for (int d = 0; d < vt->shape.ndim; d++)
        if (s->type.shape.dims[d] != vt->shape.dims[d] && s->type.shape.dims[d] != -1) {
            s->type.shape.dims[d] = -1;
            *again = true;
        }
    return 0;
}

/* The variable the body block yields for slot s. */
static int yield_var(d2_interp *I, const lslot *s, d2_obj *v)
{
    d2_obj *t = NULL;
    if (s->kind == SLOT_ARRAY)
        t = d2_incref(tarray_t(I, v));
    else if (is_pynum(v)) {
        if (!d2_shape_is_static(&s->type.shape)) {
            d2_raise(I, "ValueError", "a Python number cannot stand for a tensor of unknown shape");
            return -1;
        }
        t = constant(I, s->type.dtype, &s->type.shape, num_value(v));
    } else
        t = d2_incref(v);
    if (!t)
        return -1;
    int var = d2_pd_lift(I, D2_MODE(I)->builder, t);
    d2_decref(t);
    return var;
}

/* The variable of slot s's initial value v, made in the current block. */
static int init_var(d2_interp *I, const lslot *s, d2_obj *v)
{
    d2_obj *t = NULL;
    if (s->kind == SLOT_ARRAY) {
        if (is_array(I, v)) {
            t = d2_incref(tarray_t(I, v));
        } else {
            ab b;
            ab_init(&b, D2_OP_array_create);
            ab_int(&b, "dtype", s->type.dtype);
            t = op_n(I, D2_OP_array_create, NULL, 0, &b);
            size_t n = 0;
            d2_obj **items = v->kind == D2_OBJ_LIST ? d2_jit_seq_items(v, &n) : NULL;
            for (size_t i = 0; t && i < n; i++) {
                d2_obj *x = cast_to(I, items[i], s->type.dtype);
                d2_obj *idx = x ? constant(I, D2_I64, NULL, (double)i) : NULL;
                d2_obj *in[3] = {t, idx, x};
                d2_obj *nt = idx ? op_n(I, D2_OP_array_write, in, 3, NULL) : NULL;
                d2_decref(x);
                d2_decref(idx);
                d2_setref(&t, nt);
            }
        }
    } else if (is_pynum(v)) {
        d2_shape sh = static_shape(&s->type.shape);
        t = constant(I, s->type.dtype, &sh, num_value(v));
    } else if (is_tensor(v)) {
        t = TOBJ(v)->type.dtype == s->type.dtype ? d2_incref(v) : cast_to(I, v, s->type.dtype);
    } else {
        /* undefined before the loop: a placeholder the first iteration overwrites */
        d2_shape sh = static_shape(&s->type.shape);
        t = constant(I, s->type.dtype, &sh, 0);
    }
    if (!t)
        return -1;
    int var = d2_pd_lift(I, D2_MODE(I)->builder, t);
    d2_decref(t);
    return var;
}

/* Builds while_loop over the n values vals (names for messages and
 * variables): carried values become the op's loop variables, values that
 * are not tensors must not change. out receives the n values after the loop. */
typedef struct split_info {
    size_t j, k; /* value j became a tuple (or list) of k */
    bool list;
} split_info;

static int build_while_flat(d2_interp *I, size_t n, d2_obj **vals, const char **names,
                            loop_cbs *cb, const char *what, d2_obj **out, split_info *split)
{
    d2_builder *B = D2_MODE(I)->builder;
    d2_program *p = B->prog;
    int parent = B->block;
    d2_err err = {0};
    int rc = -1;
    lslot *slots = d2_calloc(n + 1, sizeof *slots);
    d2_obj **cargs = d2_calloc(3 * n + 1, sizeof *cargs);
    d2_obj **bargs = cargs ? cargs + n : NULL, **bouts = cargs ? cargs + 2 * n : NULL;
    int *ins = d2_calloc(n + 1, sizeof *ins), *outv = d2_calloc(n + 1, sizeof *outv);
    size_t *map = d2_calloc(n + 1, sizeof *map);
    if (!slots || !cargs || !ins || !outv || !map) {
        nomem(I);
        goto done;
    }
    for (size_t j = 0; j < n; j++)
        if (classify(I, vals[j], &slots[j], names[j], what) < 0)
            goto done;
    int cond_b = d2_program_add_block(p, parent, &err);
    int body_b = cond_b < 0 ? -1 : d2_program_add_block(p, parent, &err);
    if (body_b < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    bool again = true;
    for (int attempt = 0; again; attempt++) {
        again = false;
        if (attempt >= MAX_ATTEMPTS) {
            d2_raise(I, "RuntimeError", "the loop variables of %s do not settle on fixed types",
                     what);
            goto done;
        }
        drop_blocks(p, body_b + 1);
        block_clear(p, cond_b);
        block_clear(p, body_b);
        decref_all(cargs, 3 * n);
        for (size_t j = 0; j < n; j++) {
            if (carried(&slots[j])) {
                cargs[j] = loop_param(I, cond_b, &slots[j], names[j]);
                bargs[j] = cargs[j] ? loop_param(I, body_b, &slots[j], names[j]) : NULL;
                if (!bargs[j])
                    goto done;
            } else {
                cargs[j] = d2_incref(vals[j]);
                bargs[j] = d2_incref(vals[j]);
            }
        }
        B->block = cond_b;
        d2_obj *pred = cb->cond(I, cb->ctx, cargs);
        if (!pred)
            goto done;
        if (!is_tensor(pred)) {
            int t = is_undef(I, pred) ? (raise_undef(I, pred), -1) : d2_truthy(I, pred);
            d2_decref(pred);
            if (t < 0)
                goto done;
            pred = constant(I, D2_BOOL, NULL, t);
            if (!pred)
                goto done;
        }
        int pv = pred_var(I, pred, what);
        d2_decref(pred);
        if (pv < 0 || d2_block_add_yield(p, cond_b, pv, &err) < 0) {
            if (pv >= 0)
                d2_raise_err(I, &err);
            goto done;
        }
        B->block = body_b;
        if (cb->body(I, cb->ctx, bargs, bouts) < 0)
            goto done;
        for (size_t j = 0; j < n; j++) {
            if (split && slots[j].kind == SLOT_UNDEF && internal_name(names[j]) &&
                bouts[j] != vals[j] &&
                (bouts[j]->kind == D2_OBJ_TUPLE || bouts[j]->kind == D2_OBJ_LIST)) {
                /* a returned tuple: the caller carries its elements one by one */
                size_t k;
                d2_jit_seq_items(bouts[j], &k);
                if (k > 0) {
                    split->j = j;
                    split->k = k;
                    split->list = bouts[j]->kind == D2_OBJ_LIST;
                    rc = -2;
                    goto done;
                }
            }
            if (check_carried(I, &slots[j], vals[j], bouts[j], names[j], what, &again) < 0)
                goto done;
        }
    }
    /* body yields, then the initial values and the op in the parent block */
    size_t nc = 0;
    for (size_t j = 0; j < n; j++) {
        if (!carried(&slots[j]))
            continue;
        int yv = yield_var(I, &slots[j], bouts[j]);
        if (yv < 0)
            goto done;
        if (d2_block_add_yield(p, body_b, yv, &err) < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
        map[nc++] = j;
    }
    B->block = parent;
    for (size_t k = 0; k < nc; k++) {
        ins[k] = init_var(I, &slots[map[k]], vals[map[k]]);
        if (ins[k] < 0)
            goto done;
    }
    ab b;
    ab_init(&b, D2_OP_while_loop);
    ab_int(&b, "cond", cond_b);
    ab_int(&b, "body", body_b);
    if (emit_control(I, D2_OP_while_loop, ins, (int)nc, &b, (int)nc, outv) < 0)
        goto done;
    for (size_t j = 0; j < n; j++)
        out[j] = NULL;
    for (size_t k = 0; k < nc; k++) {
        out[map[k]] = wrap_var(I, outv[k], slots[map[k]].info);
        if (!out[map[k]]) {
            decref_all(out, n);
            goto done;
        }
    }
    for (size_t j = 0; j < n; j++)
        if (!out[j])
            out[j] = d2_incref(vals[j]);
    rc = 0;
done:
    B->block = parent;
    if (cargs)
        decref_all(cargs, 3 * n);
    for (size_t j = 0; slots && j < n; j++)
        d2_decref(slots[j].info);
    d2_free(slots);
    d2_free(cargs);
    d2_free(ins);
    d2_free(outv);
    d2_free(map);
    return rc;
}

/* Loop-carried values of the transform's own names (a `return a, b` inside
 * a tensor loop) that become tuples are carried element by element: tup
 * maps the loop's values to the flat list build_while_flat sees. */
typedef struct tup_ctx {
    loop_cbs *inner;
    size_t n, nflat;
    const size_t *arity; /* per value: 0 carried as is, k a tuple of k */
    const bool *is_list;
    d2_obj **undef;      /* per value: its value before the loop */
    d2_obj **tmp, **tmp2;
} tup_ctx;

/* flat values -> the loop's values (new references in t->tmp) */
static void tup_pack(d2_interp *I, tup_ctx *t, d2_obj **flat)
{
    size_t f = 0;
    for (size_t j = 0; j < t->n; j++) {
        if (!t->arity[j]) {
            t->tmp[j] = d2_incref(flat[f++]);
            continue;
        }
        size_t k = t->arity[j];
        bool all_undef = true;
        for (size_t i = 0; i < k; i++)
            all_undef &= is_undef(I, flat[f + i]);
        if (all_undef) {
            t->tmp[j] = d2_incref(t->undef[j]);
        } else {
            d2_obj *r = t->is_list[j] ? d2_list_new(I, k) : d2_jit_tuple_n(I, k);
            for (size_t i = 0; r && i < k; i++) {
                if (t->is_list[j])
                    D2_AS(d2_list, r)->items[i] = d2_incref(flat[f + i]);
                else
                    D2_AS(d2_tuple, r)->items[i] = d2_incref(flat[f + i]);
            }
            t->tmp[j] = r;
        }
        f += k;
    }
}

/* the loop's values -> flat values (new references); -1 on a mismatch */
static int tup_unpack(d2_interp *I, tup_ctx *t, d2_obj **vals, const char **names, d2_obj **flat)
{
    size_t f = 0;
    for (size_t j = 0; j < t->n; j++) {
        d2_obj *v = vals[j];
        if (!t->arity[j]) {
            flat[f++] = d2_incref(v);
            continue;
        }
        size_t k = t->arity[j], nv = 0;
        d2_obj **items = NULL;
        if (v && (v->kind == D2_OBJ_TUPLE || v->kind == D2_OBJ_LIST))
            items = d2_jit_seq_items(v, &nv);
        if (v && is_undef(I, v)) {
            for (size_t i = 0; i < k; i++)
                flat[f + i] = d2_incref(v);
        } else if (items && nv == k) {
            for (size_t i = 0; i < k; i++)
                flat[f + i] = d2_incref(items[i]);
        } else {
            for (size_t i = 0; i < k; i++)
                flat[f + i] = NULL;
            D2_UNUSED(names);
            d2_raise(I, "TypeError",
                     "a value returned from inside a loop whose test is a tensor is a tuple of "
                     "%zu in one place and a %s in another; every such return must give the "
                     "same kind of value", k, v ? d2_type_name(v) : "nothing");
            return -1;
        }
        f += k;
    }
    return 0;
}

static d2_obj *tup_cond(d2_interp *I, void *vctx, d2_obj **vals)
{
    tup_ctx *t = vctx;
    tup_pack(I, t, vals);
    d2_obj *r = NULL;
    bool ok = true;
    for (size_t j = 0; j < t->n; j++)
        ok &= t->tmp[j] != NULL;
    r = ok ? t->inner->cond(I, t->inner->ctx, t->tmp) : nomem(I);
    decref_all(t->tmp, t->n);
    return r;
}

static int tup_body(d2_interp *I, void *vctx, d2_obj **vals, d2_obj **out)
{
    tup_ctx *t = vctx;
    tup_pack(I, t, vals);
    int rc = -1;
    bool ok = true;
    for (size_t j = 0; j < t->n; j++) {
        ok &= t->tmp[j] != NULL;
        t->tmp2[j] = NULL;
    }
    if (!ok)
        nomem(I);
    else if (t->inner->body(I, t->inner->ctx, t->tmp, t->tmp2) == 0)
        rc = tup_unpack(I, t, t->tmp2, NULL, out);
    if (rc < 0)
        decref_all(out, t->nflat);
    decref_all(t->tmp, t->n);
    decref_all(t->tmp2, t->n);
    return rc;
}

/* build_while_flat, splitting loop-carried tuples of the transform's
 * return values into their elements as the body reveals them. */
static int build_while(d2_interp *I, size_t n, d2_obj **vals, const char **names, loop_cbs *cb,
                       const char *what, d2_obj **out)
{
    split_info sp;
    int nb = D2_MODE(I)->builder->prog->n_blocks;
    int rc = build_while_flat(I, n, vals, names, cb, what, out, &sp);
    if (rc != -2)
        return rc;
    size_t *arity = d2_calloc(n + 1, sizeof *arity);
    bool *is_list = d2_calloc(n + 1, sizeof *is_list);
    d2_obj **tmp = d2_calloc(2 * n + 1, sizeof *tmp);
    d2_obj **fv = NULL, **fo = NULL;
    const char **fnames = NULL;
    char *fnbuf = NULL;
    size_t *owner = NULL, nflat = n;
    rc = -1;
    if (!arity || !is_list || !tmp) {
        nomem(I);
        goto done;
    }
    size_t j = sp.j;
    for (int attempt = 0;; attempt++) {
        drop_blocks(D2_MODE(I)->builder->prog, nb);
        if (attempt > 0) {
            j = owner[sp.j];
            if (arity[j]) {
                d2_raise(I, "TypeError",
                         "a value returned from inside %s holds a nested tuple or list; such a "
                         "return may give a tensor or a flat tuple of tensors", what);
                goto done;
            }
        }
        if (attempt >= MAX_ATTEMPTS) {
            d2_raise(I, "RuntimeError", "the loop variables of %s do not settle on fixed types",
                     what);
            goto done;
        }
        arity[j] = sp.k;
        is_list[j] = sp.list;
        nflat = 0;
        for (size_t i = 0; i < n; i++)
            nflat += arity[i] ? arity[i] : 1;
        d2_free(fv);
        d2_free(fnames);
        d2_free(fnbuf);
        d2_free(owner);
        fv = d2_calloc(2 * nflat + 1, sizeof *fv);
        fnames = d2_calloc(nflat + 1, sizeof *fnames);
        fnbuf = d2_calloc(nflat + 1, 300);
        owner = d2_calloc(nflat + 1, sizeof *owner);
        if (!fv || !fnames || !fnbuf || !owner) {
            nomem(I);
            goto done;
        }
        fo = fv + nflat;
        size_t f = 0;
        for (size_t i = 0; i < n; i++) {
            if (!arity[i]) {
                fv[f] = vals[i];
                fnames[f] = names[i];
                owner[f++] = i;
                continue;
            }
            for (size_t e = 0; e < arity[i]; e++) {
                char *nm = fnbuf + 300 * f;
                snprintf(nm, 300, "%s[%zu]", names[i], e);
                fv[f] = vals[i]; /* undefined before the loop */
                fnames[f] = nm;
                owner[f++] = i;
            }
        }
        tup_ctx t = {cb, n, nflat, arity, is_list, vals, tmp, tmp + n};
        loop_cbs tcb = {tup_cond, tup_body, &t};
        rc = build_while_flat(I, nflat, fv, fnames, &tcb, what, fo, &sp);
        if (rc == -2) {
            rc = -1;
            continue;
        }
        if (rc < 0)
            goto done;
        /* the flat results back into the loop's values */
        tup_pack(I, &t, fo);
        decref_all(fo, nflat);
        for (size_t i = 0; i < n; i++) {
            out[i] = tmp[i];
            tmp[i] = NULL;
            if (!out[i])
                rc = -1;
        }
        if (rc < 0) {
            decref_all(out, n);
            nomem(I);
        }
        break;
    }
done:
    d2_free(arity);
    d2_free(is_list);
    d2_free(tmp);
    d2_free(fv);
    d2_free(fnames);
    d2_free(fnbuf);
    d2_free(owner);
    return rc;
}

/* ---- _jst.While ---- */

typedef struct while_ctx {
    d2_obj *cond_fn, *body_fn;
    size_t n;
} while_ctx;

static d2_obj *while_cond(d2_interp *I, void *vctx, d2_obj **vals)
{
    while_ctx *c = vctx;
    return d2_call(I, c->cond_fn, vals, c->n, NULL);
}

static int while_body(d2_interp *I, void *vctx, d2_obj **vals, d2_obj **out)
{
    while_ctx *c = vctx;
    d2_obj *r = d2_call(I, c->body_fn, vals, c->n, NULL);
    if (!r)
        return -1;
    int rc = unpack(I, r, c->n, out, "a loop body");
    d2_decref(r);
    return rc;
}

static d2_obj *JST_While(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[4] = {NULL};
    if (d2_parse_args(I, "_jst.While", "cond_fn, body_fn, loop_vars, names", args, nargs, kw, a) <
        0)
        return NULL;
    const char **names;
    size_t n, nv;
    d2_obj **init = d2_jit_seq_items(a[2], &nv);
    if (names_array(I, a[3], &names, &n) < 0)
        return NULL;
    if (nv != n) {
        d2_free(names);
        return d2_raise(I, "TypeError", "_jst.While: %zu loop variables but %zu names", nv, n);
    }
    d2_obj **vars = d2_calloc(2 * n + 1, sizeof *vars), **next = vars ? vars + n : NULL;
    d2_obj *result = NULL;
    if (!vars) {
        nomem(I);
        goto done;
    }
    for (size_t j = 0; j < n; j++)
        vars[j] = d2_incref(init[j]);
    while_ctx c = {a[0], a[1], n};
    for (;;) {
        build_mark mark = block_mark(I);
        d2_obj *pred = d2_call(I, a[0], vars, n, NULL);
        if (!pred)
            goto done;
        if (is_sym(pred)) {
            d2_decref(pred);
            rollback(I, mark);
            char where[300], what[340];
            helper_where(a[0], where, sizeof where);
            snprintf(what, sizeof what, "the while loop%s%s", where[0] ? " at " : "", where);
            loop_cbs cb = {while_cond, while_body, &c};
            if (build_while(I, n, vars, names, &cb, what, next) < 0)
                goto done;
            for (size_t j = 0; j < n; j++) {
                d2_setref(&vars[j], next[j]);
                next[j] = NULL;
            }
            break;
        }
        int t = is_undef(I, pred) ? (raise_undef(I, pred), -1) : d2_truthy(I, pred);
        d2_decref(pred);
        if (t < 0)
            goto done;
        if (!t)
            break;
        if (while_body(I, &c, vars, next) < 0)
            goto done;
        for (size_t j = 0; j < n; j++) {
            d2_setref(&vars[j], next[j]);
            next[j] = NULL;
        }
    }
    result = pack(I, vars, n);
done:
    if (vars)
        decref_all(vars, 2 * n);
    d2_free(vars);
    d2_free(names);
    return result;
}

/* ======================================================================
 * for loops, Range, Enumerate
 * ====================================================================== */

/* A lazy range / enumerate over tensor bounds (what _jst.Range and
 * _jst.Enumerate give when a bound or the iterable is a tensor). */
static d2_obj *new_range(d2_interp *I, const char *kind, d2_obj *a, d2_obj *b, d2_obj *c)
{
    d2_obj *r = d2_instance_new(I, JS(I)->range_cls);
    d2_obj *k = r ? d2_str_from(I, kind) : NULL;
    int rc = k ? iset(I, r, "kind", k) : -1;
    if (rc == 0)
        rc = iset(I, r, "a", a);
    if (rc == 0)
        rc = iset(I, r, "b", b);
    if (rc == 0)
        rc = iset(I, r, "c", c);
    d2_decref(k);
    if (rc < 0) {
        d2_decref(r);
        return NULL;
    }
    return r;
}

static d2_obj *RG_iter(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_raise(I, "TypeError",
                    "a range over tensor bounds can only drive a for loop (its length is known at "
                    "run time only)");
}

/* _jst.Range(*args): a Python range, or a lazy range when a bound is symbolic. */
static d2_obj *JST_Range(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    bool sym = false;
    for (size_t i = 0; i < nargs; i++)
        sym |= is_sym(args[i]);
    d2_obj *range = d2_dict_get_str(I, I->builtins, "range");
    if (!sym || !range || nargs < 1 || nargs > 3 || kw) {
        if (!range)
            return d2_raise(I, "NameError", "range");
        d2_obj *conv[3] = {NULL, NULL, NULL};
        for (size_t i = 0; i < nargs && i < 3; i++) {
            if (is_tensor(args[i]) && !is_sym(args[i])) { /* a concrete tensor bound */
                int64_t v;
                if (d2_to_int64(I, args[i], "range", &v) < 0) {
                    decref_all(conv, 3);
                    return NULL;
                }
                conv[i] = d2_int_new(I, v);
            } else {
                conv[i] = d2_incref(args[i]);
            }
        }
        d2_obj *r = d2_call(I, range, nargs <= 3 ? conv : args, nargs, kw);
        decref_all(conv, 3);
        return r;
    }
    d2_obj *zero = d2_int_new(I, 0), *one = d2_int_new(I, 1);
    d2_obj *start = nargs > 1 ? args[0] : zero, *stop = nargs > 1 ? args[1] : args[0];
    d2_obj *step = nargs > 2 ? args[2] : one;
    d2_obj *r = new_range(I, "range", start, stop, step);
    d2_decref(zero);
    d2_decref(one);
    return r;
}

static d2_obj *JST_Enumerate(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                             d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[2] = {NULL};
    if (d2_parse_args(I, "_jst.Enumerate", "iterable, start=0", args, nargs, kw, a) < 0)
        return NULL;
    if (is_sym(a[0]) || is_array(I, a[0]))
        return new_range(I, "enumerate", a[0], a[1], I->none);
    d2_obj *en = d2_dict_get_str(I, I->builtins, "enumerate");
    if (!en)
        return d2_raise(I, "NameError", "enumerate");
    return d2_call(I, en, a, 2, NULL);
}

enum { FOR_RANGE, FOR_ROWS, FOR_ENUM, FOR_ARRAY };

typedef struct for_ctx {
    d2_obj *body_fn, *cond_fn; /* cond_fn NULL without a break */
    size_t n;                  /* the loop's own variables (after the index) */
    int kind;
    d2_obj *x;                 /* iterated tensor (rows) or array tensor */
    d2_obj *stop, *step;       /* Python ints or tensors */
    d2_obj *offset;            /* enumerate's start (Python int) */
    bool step_neg;             /* Python step < 0 */
} for_ctx;

/* vals[0] is the index, vals[1..n] the loop's variables. */
static d2_obj *for_cond(d2_interp *I, void *vctx, d2_obj **vals)
{
    for_ctx *c = vctx;
    d2_obj *p;
    if (is_sym(c->step)) {
        d2_obj *zero = d2_int_new(I, 0);
        d2_obj *up = d2_compare(I, D2_CMP_GT, c->step, zero);
        d2_obj *lt = up ? d2_compare(I, D2_CMP_LT, vals[0], c->stop) : NULL;
        d2_obj *a1 = lt ? op_2(I, D2_OP_logical_and, up, lt, NULL) : NULL;
        d2_obj *down = a1 ? d2_compare(I, D2_CMP_LT, c->step, zero) : NULL;
        d2_obj *gt = down ? d2_compare(I, D2_CMP_GT, vals[0], c->stop) : NULL;
        d2_obj *a2 = gt ? op_2(I, D2_OP_logical_and, down, gt, NULL) : NULL;
        p = a2 ? op_2(I, D2_OP_logical_or, a1, a2, NULL) : NULL;
        d2_decref(zero);
        d2_decref(up);
        d2_decref(lt);
        d2_decref(a1);
        d2_decref(down);
        d2_decref(gt);
        d2_decref(a2);
    } else {
        p = d2_compare(I, c->step_neg ? D2_CMP_GT : D2_CMP_LT, vals[0], c->stop);
    }
    if (!p || !c->cond_fn)
        return p;
    d2_obj *q = d2_call(I, c->cond_fn, vals + 1, c->n, NULL);
    if (!q) {
        d2_decref(p);
        return NULL;
    }
    d2_obj *r;
    if (is_sym(q)) {
        r = op_2(I, D2_OP_logical_and, p, q, NULL);
    } else {
        int t = d2_truthy(I, q);
        r = t < 0 ? NULL : t ? d2_incref(p) : d2_bool(I, false);
    }
    d2_decref(p);
    d2_decref(q);
    return r;
}

/* Row i of x (i a 0-d integer tensor): gather along axis 0, then squeeze. */
static d2_obj *row_at(d2_interp *I, d2_obj *x, d2_obj *i)
{
    ab b;
    ab_init(&b, D2_OP_reshape);
    int64_t one = 1;
    ab_ints(&b, "shape", &one, 1);
    d2_obj *none = NULL;
    d2_obj *in[2] = {i, none};
    d2_obj *idx = op_n(I, D2_OP_reshape, in, 2, &b);
    if (!idx)
        return NULL;
    ab_init(&b, D2_OP_gather);
    ab_int(&b, "axis", 0);
    d2_obj *g = op_2(I, D2_OP_gather, x, idx, &b);
    d2_decref(idx);
    if (!g)
        return NULL;
    int64_t zero = 0;
    ab_init(&b, D2_OP_squeeze);
    ab_ints(&b, "axis", &zero, 1);
    d2_obj *r = op_1(I, D2_OP_squeeze, g, &b);
    d2_decref(g);
    return r;
}

static int for_body(d2_interp *I, void *vctx, d2_obj **vals, d2_obj **out)
{
    for_ctx *c = vctx;
    d2_obj *item = NULL;
    switch (c->kind) {
    case FOR_RANGE: item = d2_incref(vals[0]); break;
    case FOR_ROWS: item = row_at(I, c->x, vals[0]); break;
    case FOR_ARRAY: item = op_2(I, D2_OP_array_read, c->x, vals[0], NULL); break;
    case FOR_ENUM: {
        d2_obj *row = is_array(I, c->x) ? op_2(I, D2_OP_array_read, tarray_t(I, c->x), vals[0], NULL)
                                        : row_at(I, c->x, vals[0]);
        d2_obj *k = row ? d2_binop(I, D2_OP_ADD, vals[0], c->offset) : NULL;
        item = k ? d2_tuple_pack(I, 2, k, row) : NULL;
        d2_decref(row);
        d2_decref(k);
        break;
    }
    }
    if (!item)
        return -1;
    d2_obj **argv = d2_calloc(c->n + 2, sizeof *argv);
    if (!argv) {
        d2_decref(item);
        nomem(I);
        return -1;
    }
    argv[0] = item;
    for (size_t j = 0; j < c->n; j++)
        argv[j + 1] = vals[j + 1];
    d2_obj *r = d2_call(I, c->body_fn, argv, c->n + 1, NULL);
    d2_free(argv);
    d2_decref(item);
    if (!r)
        return -1;
    int rc = unpack(I, r, c->n, out + 1, "a loop body");
    d2_decref(r);
    if (rc < 0)
        return -1;
    out[0] = d2_binop(I, D2_OP_ADD, vals[0], c->step);
    if (!out[0]) {
        decref_all(out + 1, c->n);
        return -1;
    }
    return 0;
}

/* An index loop: vars[0..n) are the loop's variables; start is the index's
 * first value. */
static int for_index_loop(d2_interp *I, for_ctx *c, d2_obj *start, d2_obj **vars,
                          const char **names, const char *what, d2_obj **out)
{
    size_t n = c->n;
    d2_obj **v = d2_calloc(2 * (n + 1) + 1, sizeof *v);
    const char **nm = d2_calloc(n + 2, sizeof *nm);
    int rc = -1;
    if (!v || !nm) {
        nomem(I);
        goto done;
    }
    v[0] = start;
    nm[0] = "_index";
    for (size_t j = 0; j < n; j++) {
        v[j + 1] = vars[j];
        nm[j + 1] = names[j];
    }
    loop_cbs cb = {for_cond, for_body, c};
    if (build_while(I, n + 1, v, nm, &cb, what, v + n + 1) < 0)
        goto done;
    for (size_t j = 0; j < n; j++)
        out[j] = v[n + 2 + j];
    d2_decref(v[n + 1]);
    rc = 0;
done:
    d2_free(v);
    d2_free(nm);
    return rc;
}

/* The length of the first dimension of symbolic x as an int64 0-d tensor. */
static d2_obj *dim0(d2_interp *I, d2_obj *x)
{
    d2_obj *s = op_1(I, D2_OP_shape, x, NULL);
    if (!s)
        return NULL;
    ab b;
    ab_init(&b, D2_OP_slice);
    int64_t axes = 0, st = 0, en = 1;
    ab_ints(&b, "axes", &axes, 1);
    ab_ints(&b, "starts", &st, 1);
    ab_ints(&b, "ends", &en, 1);
    ab_ints(&b, "decrease_axis", &axes, 1);
    d2_obj *d = op_1(I, D2_OP_slice, s, &b);
    d2_decref(s);
    d2_obj *r = d ? cast_to(I, d, D2_I64) : NULL;
    d2_decref(d);
    return r;
}

typedef struct guard_ctx {
    d2_obj *body_fn, *item;
    d2_obj **vars;
    size_t n;
} guard_ctx;

static d2_obj *guard_branch(d2_interp *I, void *vctx, int which)
{
    guard_ctx *g = vctx;
    if (which == 1)
        return pack(I, g->vars, g->n);
    d2_obj **argv = d2_calloc(g->n + 2, sizeof *argv);
    if (!argv)
        return nomem(I);
    argv[0] = g->item;
    for (size_t j = 0; j < g->n; j++)
        argv[j + 1] = copy_mutable(I, g->vars[j], 0);
    d2_obj *r = d2_call(I, g->body_fn, argv, g->n + 1, NULL);
    decref_all(argv + 1, g->n);
    d2_free(argv);
    return r;
}

/* One iteration of a Python-iterated for loop: vars <- body(item, vars),
 * guarded by cond_fn (break) when given. *stop is set when cond_fn is false. */
static int for_step(d2_interp *I, d2_obj *body_fn, d2_obj *cond_fn, d2_obj *item, d2_obj **vars,
                    size_t n, const char **names, const char *what, bool *stop)
{
    d2_obj **next = d2_calloc(n + 1, sizeof *next);
    if (!next) {
        nomem(I);
        return -1;
    }
    int rc = -1;
    d2_obj *p = cond_fn ? d2_call(I, cond_fn, vars, n, NULL) : NULL;
    if (cond_fn && !p)
        goto done;
    if (p && is_sym(p)) {
        guard_ctx g = {body_fn, item, vars, n};
        if (cond_core(I, p, guard_branch, &g, n, names, what, NULL, next) < 0)
            goto done;
    } else {
        if (p) {
            int t = d2_truthy(I, p);
            if (t < 0)
                goto done;
            if (!t) {
                *stop = true;
                rc = 0;
                goto done;
            }
        }
        d2_obj **argv = d2_calloc(n + 2, sizeof *argv);
        if (!argv) {
            nomem(I);
            goto done;
        }
        argv[0] = item;
        for (size_t j = 0; j < n; j++)
            argv[j + 1] = vars[j];
        d2_obj *r = d2_call(I, body_fn, argv, n + 1, NULL);
        d2_free(argv);
        if (!r)
            goto done;
        int u = unpack(I, r, n, next, "a loop body");
        d2_decref(r);
        if (u < 0)
            goto done;
    }
    for (size_t j = 0; j < n; j++) {
        d2_setref(&vars[j], next[j]);
        next[j] = NULL;
    }
    rc = 0;
done:
    d2_decref(p);
    d2_free(next);
    return rc;
}

static d2_obj *JST_For(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[5] = {NULL};
    if (d2_parse_args(I, "_jst.For", "iterable, body_fn, loop_vars, names, cond_fn=None", args,
                      nargs, kw, a) < 0)
        return NULL;
    d2_obj *it = a[0], *body_fn = a[1], *cond_fn = a[4]->kind == D2_OBJ_NONE ? NULL : a[4];
    const char **names;
    size_t n, nv;
    d2_obj **init = d2_jit_seq_items(a[2], &nv);
    if (names_array(I, a[3], &names, &n) < 0)
        return NULL;
    d2_obj **vars = d2_calloc(2 * n + 1, sizeof *vars), **out = vars ? vars + n : NULL;
    d2_obj *result = NULL, *pyit = NULL;
    d2_obj *start = NULL, *len = NULL, *zero = d2_int_new(I, 0), *one = d2_int_new(I, 1);
    if (!vars || nv != n) {
        if (vars)
            d2_raise(I, "TypeError", "_jst.For: %zu loop variables but %zu names", nv, n);
        else
            nomem(I);
        goto done;
    }
    for (size_t j = 0; j < n; j++)
        vars[j] = d2_incref(init[j]);
    char where[300], what[340];
    helper_where(body_fn, where, sizeof where);
    snprintf(what, sizeof what, "the for loop%s%s", where[0] ? " at " : "", where);
    for_ctx c = {body_fn, cond_fn, n, FOR_RANGE, NULL, NULL, one, zero, false};
    bool index_loop = false;
    if (is_inst(I, it, JS(I)->range_cls)) {
        const char *kind = cstr(iget(I, it, "kind"));
        index_loop = true;
        if (kind && strcmp(kind, "range") == 0) {
            start = d2_incref(iget(I, it, "a"));
            c.stop = iget(I, it, "b");
            c.step = iget(I, it, "c");
            if (c.step->kind == D2_OBJ_INT && D2_AS(d2_int, c.step)->v == 0) {
                d2_raise(I, "ValueError", "range() arg 3 must not be zero");
                goto done;
            }
            c.step_neg = c.step->kind == D2_OBJ_INT && D2_AS(d2_int, c.step)->v < 0;
        } else {
            d2_obj *x = iget(I, it, "a");
            c.kind = FOR_ENUM;
            c.x = x;
            c.offset = iget(I, it, "b");
            len = is_array(I, x) ? op_1(I, D2_OP_array_length, tarray_t(I, x), NULL) : dim0(I, x);
            c.stop = len;
            start = d2_incref(zero);
        }
    } else if (is_array(I, it)) {
        index_loop = true;
        c.kind = FOR_ARRAY;
        c.x = tarray_t(I, it);
        len = op_1(I, D2_OP_array_length, c.x, NULL);
        c.stop = len;
        start = d2_incref(zero);
    } else if (is_sym(it) && (TOBJ(it)->type.shape.ndim == 0 || TOBJ(it)->type.shape.dims[0] < 0)) {
        if (TOBJ(it)->type.shape.ndim == 0) {
            d2_raise(I, "TypeError", "iteration over a 0-D tensor");
            goto done;
        }
        index_loop = true;
        c.kind = FOR_ROWS;
        c.x = it;
        len = dim0(I, it);
        c.stop = len;
        start = d2_incref(zero);
    }
    if (index_loop) {
        if (!c.stop || !start)
            goto done;
        if (for_index_loop(I, &c, start, vars, names, what, out) < 0)
            goto done;
        for (size_t j = 0; j < n; j++) {
            d2_setref(&vars[j], out[j]);
            out[j] = NULL;
        }
    } else {
        pyit = d2_get_iter(I, it);
        if (!pyit)
            goto done;
        for (;;) {
            bool fin = false;
            d2_obj *item = d2_iter_next(I, pyit, &fin);
            if (!item) {
                if (fin)
                    break;
                goto done;
            }
            bool stop = false;
            int r = for_step(I, body_fn, cond_fn, item, vars, n, names, what, &stop);
            d2_decref(item);
            if (r < 0)
                goto done;
            if (stop)
                break;
        }
    }
    result = pack(I, vars, n);
done:
    if (vars)
        decref_all(vars, 2 * n);
    d2_free(vars);
    d2_free(names);
    d2_decref(pyit);
    d2_decref(start);
    d2_decref(len);
    d2_decref(zero);
    d2_decref(one);
    return result;
}

/* ======================================================================
 * and / or / not, print, assert, casts, len, calls, UndefinedVar
 * ====================================================================== */

static d2_obj *logical(d2_interp *I, d2_op_id op, d2_obj *x, d2_obj *y)
{
    return op_2(I, op, x, y, NULL);
}

/* `a and b and ...` / `a or b or ...` over thunks (see transform.h). */
static d2_obj *and_or(d2_interp *I, d2_obj **args, size_t nargs, bool is_and)
{
    if (nargs == 0)
        return d2_raise(I, "TypeError", "_jst.%s needs at least one operand", is_and ? "And" : "Or");
    d2_obj *acc = d2_call(I, args[0], NULL, 0, NULL);
    for (size_t i = 1; acc && i < nargs; i++) {
        if (!is_sym(acc)) {
            int t = is_undef(I, acc) ? (raise_undef(I, acc), -1) : d2_truthy(I, acc);
            if (t < 0) {
                d2_setref(&acc, NULL);
                break;
            }
            if ((is_and && !t) || (!is_and && t))
                break;
            d2_setref(&acc, d2_call(I, args[i], NULL, 0, NULL));
            continue;
        }
        d2_obj *y = d2_call(I, args[i], NULL, 0, NULL);
        if (!y) {
            d2_setref(&acc, NULL);
            break;
        }
        if (!is_sym(y)) {
            int t = is_undef(I, y) ? (raise_undef(I, y), -1) : d2_truthy(I, y);
            if (t < 0) {
                d2_decref(y);
                d2_setref(&acc, NULL);
                break;
            }
            /* Paddle: `tensor and y` is y when y is falsy, else the tensor (or: truthy y wins) */
            if (is_and ? !t : t)
                d2_setref(&acc, y);
            else
                d2_decref(y);
            continue;
        }
        d2_obj *r = logical(I, is_and ? D2_OP_logical_and : D2_OP_logical_or, acc, y);
        d2_decref(y);
        d2_setref(&acc, r);
    }
    return acc;
}

static d2_obj *JST_And(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(kw);
    return and_or(I, args, nargs, true);
}

static d2_obj *JST_Or(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(kw);
    return and_or(I, args, nargs, false);
}

static d2_obj *JST_Not(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "_jst.Not", "x", args, nargs, kw, a) < 0)
        return NULL;
    if (is_sym(a[0]))
        return op_1(I, D2_OP_logical_not, a[0], NULL);
    if (is_undef(I, a[0]))
        return raise_undef(I, a[0]);
    int t = d2_truthy(I, a[0]);
    return t < 0 ? NULL : d2_bool(I, !t);
}

static d2_obj *JST_Print(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    bool sym = false;
    for (size_t i = 0; i < nargs; i++)
        sym |= is_sym(args[i]) || is_array(I, args[i]);
    if (!sym) {
        d2_obj *pr = d2_dict_get_str(I, I->builtins, "print");
        if (!pr)
            return d2_raise(I, "NameError", "print");
        return d2_call(I, pr, args, nargs, kw);
    }
    /* a run-time print op per tensor, labelled with the text before it */
    d2_buf label;
    d2_buf_init(&label);
    for (size_t i = 0; i < nargs; i++) {
        d2_obj *x = is_array(I, args[i]) ? tarray_t(I, args[i]) : args[i];
        if (!is_sym(x)) {
            d2_obj *s = d2_str_of(I, x);
            if (!s) {
                d2_buf_free(&label);
                return NULL;
            }
            d2_buf_printf(&label, "%s%s", label.len ? " " : "", cstr(s));
            d2_decref(s);
            continue;
        }
        ab b;
        ab_init(&b, D2_OP_print);
        ab_str(&b, "message", label.data ? label.data : "");
        d2_obj *none = NULL;
        int rc = b.bad ? -1 : d2_apply_op(I, D2_OP_print, &x, 1, &b.a, &none, 0);
        d2_attrs_free(&b.a);
        label.len = 0;
        if (label.data)
            label.data[0] = '\0';
        if (rc < 0) {
            d2_buf_free(&label);
            return d2_exc_pending(I) ? NULL : nomem(I);
        }
    }
    d2_buf_free(&label);
    return d2_none(I);
}

static d2_obj *JST_Assert(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[2] = {NULL};
    if (d2_parse_args(I, "_jst.Assert", "test, msg=None", args, nargs, kw, a) < 0)
        return NULL;
    if (is_sym(a[0])) {
        d2_obj *c = cast_to(I, a[0], D2_BOOL);
        if (!c)
            return NULL;
        d2_obj *s = a[1]->kind == D2_OBJ_NONE ? NULL : d2_str_of(I, a[1]);
        if (a[1]->kind != D2_OBJ_NONE && !s) {
            d2_decref(c);
            return NULL;
        }
        ab b;
        ab_init(&b, D2_OP_assert);
        ab_str(&b, "message", s ? cstr(s) : "assertion failed");
        d2_obj *none = NULL;
        int rc = b.bad ? -1 : d2_apply_op(I, D2_OP_assert, &c, 1, &b.a, &none, 0);
        d2_attrs_free(&b.a);
        d2_decref(c);
        d2_decref(s);
        if (rc < 0)
            return d2_exc_pending(I) ? NULL : nomem(I);
        return d2_none(I);
    }
    if (is_undef(I, a[0]))
        return raise_undef(I, a[0]);
    int t = d2_truthy(I, a[0]);
    if (t < 0)
        return NULL;
    if (t)
        return d2_none(I);
    if (a[1]->kind == D2_OBJ_NONE)
        return d2_raise(I, "AssertionError", "%s", "");
    d2_obj *s = d2_str_of(I, a[1]);
    if (!s)
        return NULL;
    d2_raise(I, "AssertionError", "%s", cstr(s));
    d2_decref(s);
    return NULL;
}

/* int(x) / float(x) / bool(x): a tensor is cast as Paddle does (int32, float32, bool). */
static d2_obj *JST_Cast(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[2] = {NULL};
    if (d2_parse_args(I, "_jst.Cast", "x, dtype", args, nargs, kw, a) < 0)
        return NULL;
    const char *to = cstr(a[1]);
    if (!to || (strcmp(to, "int") && strcmp(to, "float") && strcmp(to, "bool")))
        return d2_raise(I, "ValueError", "_jst.Cast: dtype must be 'int', 'float' or 'bool'");
    if (is_sym(a[0]))
        return cast_to(I, a[0], to[0] == 'i' ? D2_I32 : to[0] == 'f' ? D2_F32 : D2_BOOL);
    if (is_undef(I, a[0]))
        return raise_undef(I, a[0]);
    d2_obj *ty = d2_dict_get_str(I, I->builtins, to);
    if (!ty)
        return d2_raise(I, "NameError", "%s", to);
    return d2_call(I, ty, a, 1, NULL);
}

static d2_obj *JST_Len(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "_jst.Len", "x", args, nargs, kw, a) < 0)
        return NULL;
    d2_obj *x = a[0];
    if (is_array(I, x))
        return op_1(I, D2_OP_array_length, tarray_t(I, x), NULL);
    if (is_sym(x)) {
        const d2_shape *s = &TOBJ(x)->type.shape;
        if (s->ndim == 0)
            return d2_raise(I, "TypeError", "len() of a 0-D tensor");
        if (TOBJ(x)->type.kind == D2_VALUE_ARRAY)
            return op_1(I, D2_OP_array_length, x, NULL);
        if (s->dims[0] >= 0)
            return d2_int_new(I, s->dims[0]);
        d2_obj *sh = op_1(I, D2_OP_shape, x, NULL);
        if (!sh)
            return NULL;
        d2_obj *zero = d2_int_new(I, 0);
        d2_obj *r = zero ? d2_getitem(I, sh, zero) : NULL;
        d2_decref(zero);
        d2_decref(sh);
        return r;
    }
    if (is_undef(I, x))
        return raise_undef(I, x);
    int64_t n = d2_len(I, x);
    return n < 0 ? NULL : d2_int_new(I, n);
}

/* x.shape: ints for static dims; for a symbolic tensor, each dynamic dim is
 * an element of paddle.shape(x), as Paddle's convert_shape does. */
static d2_obj *JST_Shape(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "_jst.Shape", "x", args, nargs, kw, a) < 0)
        return NULL;
    d2_obj *x = a[0];
    if (is_undef(I, x))
        return raise_undef(I, x);
    if (!is_sym(x) || TOBJ(x)->type.kind != D2_VALUE_TENSOR ||
        d2_shape_is_static(&TOBJ(x)->type.shape))
        return d2_getattr(I, x, "shape");
    const d2_shape *s = &TOBJ(x)->type.shape;
    d2_obj *sh = op_1(I, D2_OP_shape, x, NULL);
    d2_obj *r = sh ? d2_list_new(I, (size_t)s->ndim) : NULL;
    for (int k = 0; r && k < s->ndim; k++) {
        d2_obj *v = NULL;
        if (s->dims[k] >= 0) {
            v = d2_int_new(I, s->dims[k]);
        } else {
            d2_obj *i = d2_int_new(I, k);
            v = i ? d2_getitem(I, sh, i) : NULL;
            d2_decref(i);
        }
        if (!v)
            d2_setref(&r, NULL);
        else
            D2_AS(d2_list, r)->items[k] = v;
    }
    d2_decref(sh);
    return r;
}

/* ======================================================================
 * Converting user functions
 * ====================================================================== */

/* Runs module-level statement `stmt` (a def) in module m's globals and
 * returns a new reference to the global `name` it defined, which is then
 * removed from m again. The tree must live as long as the interpreter. */
static d2_obj *exec_def(d2_interp *I, d2_ast_stmt *stmt, d2_module *m, const char *name)
{
    d2_arena *a = I->arena;
    d2_ast_module *mod = d2_ast_node_new(a, D2_AST_MODULE, stmt->span);
    if (!mod || d2_ast_seq_push(a, &mod->body, stmt) < 0)
        return nomem(I);
    if (m->ast) {
        mod->filename = m->ast->filename;
        mod->source = m->ast->source;
        mod->source_len = m->ast->source_len;
    }
    d2_obj *saved = d2_incref(d2_dict_get_str(I, m->dict, name));
    if (d2_interp_exec_ast(I, mod, m) < 0) {
        d2_decref(saved);
        if (!d2_exc_pending(I))
            d2_raise(I, "RuntimeError", "internal: the converted code does not run");
        return NULL;
    }
    d2_obj *v = d2_incref(d2_dict_get_str(I, m->dict, name));
    int rc = saved ? d2_dict_set_str(I, m->dict, name, saved) : 0;
    if (!saved) {
        d2_obj *k = d2_str_from(I, name);
        rc = k ? d2_dict_del(I, m->dict, k) : -1;
        d2_decref(k);
    }
    d2_decref(saved);
    if (!v || rc < 0) {
        d2_decref(v);
        if (!d2_exc_pending(I))
            d2_raise(I, "RuntimeError", "internal: the converted code defines no '%s'", name);
        return NULL;
    }
    return v;
}

/* Names of the module's globals bound to builtin modules (paddle, F, np...):
 * the transform leaves calls through them alone. Strings are borrowed. */
static const char **library_names(d2_interp *I, d2_dict *g, size_t *n)
{
    const char **v = d2_calloc(g->n + 8, sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < g->n; i++) {
        d2_dict_entry *e = &g->entries[i];
        if (!e->key || e->key->kind != D2_OBJ_STR)
            continue;
        bool lib = e->value->kind == D2_OBJ_MODULE && !D2_AS(d2_module, e->value)->path;
        if (!lib && e->value->kind == D2_OBJ_CLASS)
            lib = D2_AS(d2_class, e->value)->module &&
                  !D2_AS(d2_class, e->value)->module->path;
        if (!lib && e->value->kind == D2_OBJ_BUILTIN)
            lib = true;
        if (lib)
            v[(*n)++] = cstr(e->key);
    }
    static const char *const always[] = {"paddle", "F", "nn", "np", "numpy", "math"};
    for (size_t i = 0; i < D2_COUNTOF(always); i++)
        v[(*n)++] = always[i];
    D2_UNUSED(I);
    return v;
}

typedef struct conv_result {
    d2_obj *fn;        /* converted function (new ref) or NULL */
    char *code;        /* converted source of the function (d2_malloc) */
    bool fallback;     /* unsupported syntax */
    d2_span span;      /* of the first unsupported construct */
    char *why;         /* its description ("'try' statement cannot be converted") */
} conv_result;

static void conv_result_free(conv_result *r)
{
    d2_decref(r->fn);
    d2_free(r->code);
    d2_free(r->why);
    memset(r, 0, sizeof *r);
}

/* What the transforms made of a function, kept by its to_static wrapper
 * from the decoration (where .code needs it) to the first call, so that the
 * function is transformed once. Valid while the module's library names
 * (libsig) are the same: the transforms read them. */
typedef struct xf_memo {
    bool have, fallback;
    d2_ast_stmt *conv; /* in the interpreter's arena */
    d2_span span;
    char *why, *libsig;
} xf_memo;

static void xf_memo_free(xf_memo *m)
{
    d2_free(m->why);
    d2_free(m->libsig);
    memset(m, 0, sizeof *m);
}

static bool xf_memo_copy(xf_memo *to, const xf_memo *from)
{
    *to = *from;
    to->why = from->why ? d2_strdup(from->why) : NULL;
    to->libsig = d2_strdup(from->libsig);
    if ((from->why && !to->why) || !to->libsig) {
        xf_memo_free(to);
        return false;
    }
    return true;
}

/* The library names joined into one string (NULL when out of memory). */
static char *lib_signature(const char **libs, size_t n)
{
    d2_buf b;
    d2_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        d2_buf_puts(&b, libs[i]);
        d2_buf_puts(&b, "\n");
    }
    return d2_buf_take(&b);
}

/* Runs the transforms on f (or takes their result from memo when it still
 * holds). 0 with *conv set, 1 for unsupported syntax (r->span and r->why
 * set), -1 with an exception. */
static int transform(d2_interp *I, d2_function *f, xf_memo *memo, conv_result *r,
                     d2_ast_stmt **conv)
{
    size_t nlib = 0;
    const char **libs = library_names(I, f->module->dict, &nlib);
    /* the signature is only needed to keep or check a memo */
    char *sig = libs && memo ? lib_signature(libs, nlib) : NULL;
    if (!libs || (memo && !sig)) {
        d2_free(libs);
        d2_free(sig);
        nomem(I);
        return -1;
    }
    if (memo && memo->have && strcmp(memo->libsig, sig) == 0) {
        d2_free(libs);
        d2_free(sig);
        if (memo->fallback) {
            r->span = memo->span;
            r->why = memo->why ? d2_strdup(memo->why) : NULL;
            return 1;
        }
        *conv = memo->conv;
        return 0;
    }
    const d2_ast_module *mast = f->module->ast;
    const char *path = f->module->path ? f->module->path : f->module->name;
    /* diagnostics in a scratch arena; the converted tree in the interpreter's,
     * which outlives the functions made from it */
    d2_arena *a = d2_arena_new();
    if (!a) {
        d2_free(libs);
        d2_free(sig);
        nomem(I);
        return -1;
    }
    d2_diag dg;
    d2_diag_init(&dg, a);
    d2_diag_set_source(&dg, path, mast->source, mast->source_len);
    d2_xform_options opt = {false, libs, nlib};
    d2_xform_status st = d2_xform_function(I->arena, f->def, &dg, &opt, conv);
    d2_free(libs);
    int rc = -1;
    if (st == D2_XFORM_FALLBACK || (st == D2_XFORM_ERROR && dg.first)) {
        const d2_diag_item *it = dg.first;
        if (it) {
            r->span = it->span;
            const char *semi = strstr(it->message, "; ");
            r->why = semi ? d2_strndup(it->message, (size_t)(semi - it->message))
                          : d2_strdup(it->message);
        }
        rc = 1;
    } else if (st != D2_XFORM_OK || !*conv) {
        nomem(I);
    } else {
        rc = 0;
    }
    d2_arena_delete(a);
    if (rc >= 0 && memo) {
        xf_memo_free(memo);
        memo->have = true;
        memo->fallback = rc == 1;
        memo->conv = rc == 0 ? *conv : NULL;
        memo->span = r->span;
        memo->why = r->why ? d2_strdup(r->why) : NULL;
        memo->libsig = sig;
        sig = NULL;
    }
    d2_free(sig);
    return rc;
}

/* Converts user function fobj: runs the transforms (or takes them from
 * memo, which may be NULL), and unless only_code, instantiates the converted
 * source in the function's module globals with the function's closure
 * values; only_code sets r->code. 0, or -1 with an exception; unsupported
 * syntax is not an error (r->fallback). */
static int convert(d2_interp *I, d2_obj *fobj, bool only_code, xf_memo *memo, conv_result *r)
{
    memset(r, 0, sizeof *r);
    d2_function *f = D2_AS(d2_function, fobj);
    if (!f->def || !f->module || !f->module->ast) {
        r->fallback = true;
        r->why = d2_strdup("a lambda or a function without source cannot be converted");
        return 0;
    }
    d2_ast_stmt *conv = NULL;
    int xr = transform(I, f, memo, r, &conv);
    if (xr < 0)
        return -1;
    int rc = -1;
    d2_buf src;
    d2_buf_init(&src);
    if (xr == 1) {
        r->fallback = true;
        if (only_code) {
            d2_unparse(&src, f->def);
            r->code = d2_buf_take(&src);
        }
        return 0;
    }
    if (only_code) {
        d2_unparse(&src, conv);
        r->code = d2_buf_take(&src);
        if (!r->code) {
            nomem(I);
            return -1;
        }
        return 0;
    }
    /* def __jst_factory__(_jst, <free variables>): <converted def>; return it,
     * run in the function's module: the converted code keeps the user's spans */
    d2_arena *pa = I->arena;
    d2_span sp = conv->span;
    d2_ast_stmt *fac = d2_ast_stmt_new(pa, D2_AST_FUNCTION_DEF, sp);
    d2_ast_arguments *fargs = d2_ast_node_new(pa, D2_AST_ARGUMENTS, sp);
    d2_ast_arg *a0 = d2_ast_arg_new(pa, "_jst", NULL, sp);
    d2_ast_expr *rv = d2_ast_name(pa, conv->function_def.name, D2_CTX_LOAD, sp);
    d2_ast_stmt *ret = rv ? d2_ast_return(pa, rv, sp) : NULL;
    if (!fac || !fargs || !a0 || !ret || d2_ast_seq_push(pa, &fargs->args, a0) < 0 ||
        d2_ast_seq_push(pa, &fac->function_def.body, conv) < 0 ||
        d2_ast_seq_push(pa, &fac->function_def.body, ret) < 0) {
        nomem(I);
        goto done;
    }
    fac->function_def.name = "__jst_factory__";
    fac->function_def.args = fargs;
    size_t nfree = 0;
    d2_dict *cl = f->closure;
    for (size_t i = 0; cl && i < cl->n; i++) {
        if (!cl->entries[i].key || !cstr(cl->entries[i].key))
            continue;
        d2_ast_arg *fa = d2_ast_arg_new(pa, cstr(cl->entries[i].key), NULL, sp);
        if (!fa || d2_ast_seq_push(pa, &fargs->args, fa) < 0) {
            nomem(I);
            goto done;
        }
        nfree++;
    }
    d2_obj *factory = exec_def(I, fac, f->module, "__jst_factory__");
    if (!factory)
        goto done;
    d2_obj **argv = d2_calloc(nfree + 2, sizeof *argv);
    if (!argv) {
        d2_decref(factory);
        nomem(I);
        goto done;
    }
    argv[0] = d2_incref((d2_obj *)JS(I)->jst);
    size_t k = 1;
    for (size_t i = 0; cl && i < cl->n; i++) {
        d2_dict_entry *e = &cl->entries[i];
        if (!e->key || !cstr(e->key))
            continue;
        d2_obj *cell = e->value;
        d2_obj *v = cell && cell->kind == D2_OBJ_CELL ? D2_AS(d2_cell, cell)->value : NULL;
        if (v)
            argv[k] = d2_incref(v);
        else {
            char msg[300];
            snprintf(msg, sizeof msg,
                     "cannot access free variable '%s' where it is not associated with a value in "
                     "enclosing scope", cstr(e->key));
            argv[k] = new_undef(I, cstr(e->key), msg);
        }
        if (!argv[k]) {
            decref_all(argv, k);
            d2_free(argv);
            d2_decref(factory);
            goto done;
        }
        k++;
    }
    r->fn = d2_call(I, factory, argv, k, NULL);
    decref_all(argv, k);
    d2_free(argv);
    d2_decref(factory);
    if (!r->fn)
        goto done;
    if (r->fn->kind == D2_OBJ_FUNCTION) {
        d2_function *nf = D2_AS(d2_function, r->fn);
        d2_setref((d2_obj **)&nf->defaults, d2_incref((d2_obj *)f->defaults));
        d2_setref((d2_obj **)&nf->kw_defaults, d2_incref((d2_obj *)f->kw_defaults));
        /* a recursive call inside reaches the converted function itself */
        if (fattr_set(I, r->fn, "_dy2st_converted", I->true_) < 0)
            goto done;
    }
    rc = 0;
done:
    if (rc < 0)
        conv_result_free(r);
    return rc;
}

/* The converted form of user function f for _jst.Call, cached; f itself
 * when it cannot be converted. New reference. */
static d2_obj *converted_callee(d2_interp *I, d2_obj *f)
{
    d2_function *fn = D2_AS(d2_function, f);
    if (!fn->def || !fn->module || !fn->module->path || fn->module->path[0] == '<' ||
        fattr(I, f, "_dy2st_static") || fattr(I, f, "_dy2st_converted") ||
        fattr(I, f, "_dy2st_not_to_static") || d2_xform_is_not_to_static(fn->def))
        return d2_incref(f);
    jit_state *s = JS(I);
    d2_obj *hit = d2_dict_get(I, D2_AS(d2_dict, s->converted), f);
    if (hit)
        return d2_incref(hit);
    conv_result r;
    if (convert(I, f, false, NULL, &r) < 0)
        return NULL;
    d2_obj *use = r.fn && !r.fallback ? r.fn : f;
    d2_obj *out = d2_incref(use);
    if (d2_dict_set(I, D2_AS(d2_dict, s->converted), f, use) < 0)
        d2_setref(&out, NULL);
    conv_result_free(&r);
    return out;
}

static bool has_hooks(d2_interp *I, d2_obj *layer)
{
    static const char *const which[] = {"_forward_pre_hooks", "_forward_post_hooks"};
    for (int i = 0; i < 2; i++) {
        d2_obj *d = d2_getattr_opt(I, layer, which[i]);
        bool any = d && d->kind == D2_OBJ_DICT && D2_AS(d2_dict, d)->live > 0;
        d2_decref(d);
        if (any)
            return true;
    }
    d2_exc_clear(I);
    return false;
}

/* _jst.Call(f): what to call for f(...) (see transform.h). */
static d2_obj *JST_Call(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "_jst.Call", "f", args, nargs, kw, a) < 0)
        return NULL;
    d2_obj *f = a[0];
    if (!JS(I)->enabled)
        return d2_incref(f);
    if (f->kind == D2_OBJ_FUNCTION)
        return converted_callee(I, f);
    if (f->kind == D2_OBJ_BOUND_METHOD) {
        d2_bound_method *m = D2_AS(d2_bound_method, f);
        if (m->func->kind != D2_OBJ_FUNCTION)
            return d2_incref(f);
        d2_obj *c = converted_callee(I, m->func);
        if (!c || c == m->func) {
            d2_decref(c);
            return c ? d2_incref(f) : NULL;
        }
        d2_obj *r = d2_bound_method_new(I, c, m->self);
        d2_decref(c);
        return r;
    }
    if (is_undef(I, f))
        return raise_undef(I, f);
    if (d2_jit_is_layer(I, f) && !has_hooks(I, f)) {
        d2_obj *fwd = d2_getattr(I, (d2_obj *)f->cls, "forward");
        if (!fwd)
            return NULL;
        d2_obj *r = NULL;
        if (fwd->kind == D2_OBJ_FUNCTION && !fattr(I, fwd, "_dy2st_static")) {
            d2_obj *inst = iget(I, f, "forward");
            if (inst) {
                r = d2_incref(f);
            } else {
                d2_obj *c = converted_callee(I, fwd);
                r = c == fwd ? d2_incref(f) : c ? d2_bound_method_new(I, c, f) : NULL;
                d2_decref(c);
            }
        } else {
            r = d2_incref(f);
        }
        d2_decref(fwd);
        return r;
    }
    return d2_incref(f);
}

/* ======================================================================
 * StaticFunction: compile once per signature, run with the executor
 * ====================================================================== */

typedef struct entry {
    struct entry *next;
    char *key;
    d2_program *prog;
    d2_prepared *pp;
    d2_obj *lifted; /* the builder's dict: id -> (tensor, var) (owned) */
    d2_obj *tmpl;   /* output template (owned) */
    d2_obj *pins;   /* objects whose identity is part of the key (owned) */
    int n_feeds, n_out;
} entry;

typedef struct sfn {
    d2_obj *fn;         /* the original function (owned) */
    d2_obj *bound;      /* the Layer of to_static(layer), or NULL (owned) */
    d2_obj *spec;       /* input_spec (list/tuple), or NULL (owned) */
    d2_obj *conv;       /* converted function once made (owned) */
    d2_obj *last_specs; /* InputSpecs of the last compiled signature (owned) */
    bool tried, fallback;
    d2_span why_span;
    char *why;
    xf_memo memo; /* the transforms' result from the decoration, until tried */
    entry *entries;
} sfn;

static void entry_free(entry *e)
{
    d2_exec_free(e->pp);
    d2_program_free(e->prog);
    d2_decref(e->lifted);
    d2_decref(e->tmpl);
    d2_decref(e->pins);
    d2_free(e->key);
    d2_free(e);
}

static void sfn_fin(void *p)
{
    sfn *s = p;
    while (s->entries) {
        entry *e = s->entries;
        s->entries = e->next;
        entry_free(e);
    }
    d2_decref(s->fn);
    d2_decref(s->bound);
    d2_decref(s->spec);
    d2_decref(s->conv);
    d2_decref(s->last_specs);
    d2_free(s->why);
    xf_memo_free(&s->memo);
    d2_free(s);
}

static sfn *sfn_of(d2_interp *I, d2_obj *state)
{
    if (!state || state->kind != D2_OBJ_OPAQUE || state->cls != JS(I)->sfn_cls)
        return NULL;
    return D2_AS(d2_opaque, state)->payload;
}

/* Converts s->fn once; a fallback is remembered with its reason. */
static int sfn_convert(d2_interp *I, sfn *s)
{
    if (s->tried)
        return 0;
    conv_result r;
    int rc = convert(I, s->fn, false, &s->memo, &r);
    xf_memo_free(&s->memo);
    if (rc < 0)
        return -1;
    s->tried = true;
    s->fallback = r.fallback;
    s->why_span = r.span;
    s->why = r.why;
    r.why = NULL;
    s->conv = r.fn;
    r.fn = NULL;
    conv_result_free(&r);
    d2_function *f = D2_AS(d2_function, s->fn);
    if (s->fallback && d2_trace_function && !I->opt.no_fallback && s->why_span.line &&
        !I->opt.quiet_warnings)
        d2_warn(I, s->why_span, f->module,
                "%s; %s() is traced instead and its data-dependent branches are frozen",
                s->why ? s->why : "unsupported syntax", f->name);
    return 0;
}

/* The error for a function that cannot be converted when no tracer exists:
 * a compiler-style diagnostic at the construct. */
static d2_obj *fallback_error(d2_interp *I, sfn *s)
{
    d2_function *f = D2_AS(d2_function, s->fn);
    const char *why = s->why ? s->why : "unsupported syntax";
    const char *how = I->opt.no_fallback ? "with --no-fallback it is not traced instead"
                                         : "tracing is not available to run it instead";
    if (f->module && f->module->ast && s->why_span.line) {
        const char *path = f->module->path ? f->module->path : f->module->name;
        d2_diag_set_source(&I->diag, path, f->module->ast->source, f->module->ast->source_len);
        d2_diag_add(&I->diag, D2_DIAG_ERROR, s->why_span,
                    "%s; %s() cannot be converted to a static program (%s)", why, f->name, how);
        d2_raise(I, "SyntaxError", "%s; %s() cannot be converted to a static program (%s)", why,
                 f->name, how);
        if (I->exc && I->exc->kind == D2_OBJ_INSTANCE)
            d2_dict_set_str(I, D2_AS(d2_instance, I->exc)->dict, "__reported__", I->true_);
        return NULL;
    }
    return d2_raise(I, "SyntaxError", "%s; %s() cannot be converted to a static program (%s)",
                    why, f->name, how);
}

/* ---- signatures and feeds ---- */

typedef struct feeds {
    int n, cap;
    d2_tensor **t; /* concrete values (borrowed), NULL when compiling from an InputSpec */
    d2_type *type;
    char **name;
} feeds;

static void feeds_free(feeds *f)
{
    for (int i = 0; i < f->n; i++)
        d2_free(f->name[i]);
    d2_free(f->t);
    d2_free(f->type);
    d2_free(f->name);
    memset(f, 0, sizeof *f);
}

static int feeds_add(d2_interp *I, feeds *f, d2_tensor *t, const d2_type *ty, const char *name)
{
    if (f->n == f->cap) {
        int cap = f->cap ? f->cap * 2 : 8;
        d2_tensor **nt = d2_realloc(f->t, sizeof *nt * (size_t)cap);
        if (nt)
            f->t = nt;
        d2_type *ny = nt ? d2_realloc(f->type, sizeof *ny * (size_t)cap) : NULL;
        if (ny)
            f->type = ny;
        char **nn = ny ? d2_realloc(f->name, sizeof *nn * (size_t)cap) : NULL;
        if (!nn) {
            nomem(I);
            return -1;
        }
        f->name = nn;
        f->cap = cap;
    }
    f->name[f->n] = d2_strdup(name);
    if (!f->name[f->n]) {
        nomem(I);
        return -1;
    }
    f->t[f->n] = t;
    f->type[f->n] = *ty;
    f->n++;
    return 0;
}

/* Reads an InputSpec into a type and name (borrowed, may be NULL). */
static int spec_type(d2_interp *I, d2_obj *spec, d2_type *t, const char **name)
{
    memset(t, 0, sizeof *t);
    t->kind = D2_VALUE_TENSOR;
    d2_obj *shape = iget(I, spec, "shape"), *dtype = iget(I, spec, "dtype");
    int dt = D2_F32;
    if (dtype && d2_pd_parse_dtype(I, dtype, "InputSpec", false, &dt) < 0)
        return -1;
    t->dtype = dt < 0 ? D2_F32 : (d2_dtype)dt;
    size_t n = 0;
    d2_obj **dims = shape ? d2_jit_seq_items(shape, &n) : NULL;
    if (n > D2_MAX_DIMS) {
        d2_raise(I, "ValueError", "InputSpec: at most %d dims", D2_MAX_DIMS);
        return -1;
    }
    t->shape.ndim = (int)n;
    for (size_t i = 0; i < n; i++) {
        int64_t v = -1;
        if (dims[i]->kind != D2_OBJ_NONE && d2_to_int64(I, dims[i], "InputSpec.shape", &v) < 0)
            return -1;
        t->shape.dims[i] = v < 0 ? -1 : v;
    }
    *name = cstr(iget(I, spec, "name"));
    return 0;
}

static bool is_spec(d2_interp *I, d2_obj *o) { return is_inst(I, o, JS(I)->spec_cls); }

typedef struct walk {
    d2_interp *I;
    feeds *fd;
    d2_buf *key;
    d2_obj *pins; /* list */
} walk;

/* Adds value v (argument `name`, described by spec when not NULL) to the
 * signature key and its tensors to the feeds. */
static int walk_value(walk *w, d2_obj *v, d2_obj *spec, const char *name, int depth)
{
    d2_interp *I = w->I;
    if (depth > 32) {
        d2_raise(I, "ValueError", "to_static: arguments nested too deeply");
        return -1;
    }
    d2_type ty;
    const char *sname = NULL;
    char ts[160];
    if (is_spec(I, v) || is_tensor(v) || v->kind == D2_OBJ_NDARRAY) {
        d2_tensor *t = NULL;
        if (is_spec(I, v)) {
            if (spec_type(I, v, &ty, &sname) < 0)
                return -1;
        } else {
            if (is_sym(v)) {
                d2_raise(I, "ValueError",
                         "a symbolic tensor is passed to a to_static function outside of a "
                         "Program build");
                return -1;
            }
            t = is_tensor(v) ? TOBJ(v)->t : D2_AS(d2_ndarray, v)->t;
            memset(&ty, 0, sizeof ty);
            ty.kind = D2_VALUE_TENSOR;
            ty.dtype = t->dtype;
            d2_tensor_get_shape(t, &ty.shape);
            if (t->kind == D2_VALUE_ARRAY) {
                d2_raise(I, "TypeError", "to_static: tensor arrays cannot be passed as inputs");
                return -1;
            }
            if (spec && is_spec(I, spec)) {
                d2_type st;
                if (spec_type(I, spec, &st, &sname) < 0)
                    return -1;
                bool ok = st.shape.ndim == ty.shape.ndim && st.dtype == ty.dtype;
                for (int d = 0; ok && d < st.shape.ndim; d++)
                    ok = st.shape.dims[d] < 0 || st.shape.dims[d] == ty.shape.dims[d];
                if (!ok) {
                    char a[160];
                    d2_type_str(&ty, a, sizeof a);
                    d2_type_str(&st, ts, sizeof ts);
                    d2_raise(I, "ValueError",
                             "input '%s' is %s but its InputSpec says %s", sname ? sname : name,
                             a, ts);
                    return -1;
                }
                ty = st;
            }
        }
        d2_type_str(&ty, ts, sizeof ts);
        d2_buf_printf(w->key, "T%s,", ts);
        return feeds_add(I, w->fd, t, &ty, sname ? sname : name);
    }
    if (v->kind == D2_OBJ_LIST || v->kind == D2_OBJ_TUPLE) {
        size_t n, ns = 0;
        d2_obj **items = d2_jit_seq_items(v, &n);
        d2_obj **sitems = spec ? d2_jit_seq_items(spec, &ns) : NULL;
        d2_buf_puts(w->key, v->kind == D2_OBJ_LIST ? "[" : "(");
        for (size_t i = 0; i < n; i++) {
            char sub[300];
            snprintf(sub, sizeof sub, "%s_%zu", name, i);
            if (walk_value(w, items[i], i < ns ? sitems[i] : NULL, sub, depth + 1) < 0)
                return -1;
        }
        d2_buf_puts(w->key, v->kind == D2_OBJ_LIST ? "]," : "),");
        return 0;
    }
    if (v->kind == D2_OBJ_DICT) {
        d2_dict *d = D2_AS(d2_dict, v);
        d2_buf_puts(w->key, "{");
        for (size_t i = 0; i < d->n; i++) {
            if (!d->entries[i].key)
                continue;
            d2_obj *kr = d2_repr(I, d->entries[i].key);
            if (!kr)
                return -1;
            char sub[300];
            snprintf(sub, sizeof sub, "%s_%s", name,
                     d->entries[i].key->kind == D2_OBJ_STR ? cstr(d->entries[i].key) : "k");
            d2_buf_printf(w->key, "%s:", cstr(kr));
            d2_decref(kr);
            if (walk_value(w, d->entries[i].value, NULL, sub, depth + 1) < 0)
                return -1;
        }
        d2_buf_puts(w->key, "},");
        return 0;
    }
    if (is_pynum(v) || v->kind == D2_OBJ_STR || v->kind == D2_OBJ_NONE) {
        d2_obj *r = d2_repr(I, v);
        if (!r)
            return -1;
        d2_buf_printf(w->key, "%c%s,", v->kind == D2_OBJ_STR ? 'S' : 'V', cstr(r));
        d2_decref(r);
        return 0;
    }
    d2_buf_printf(w->key, "O%p,", (void *)v);
    if (d2_jit_is_layer(I, v)) {
        d2_obj *tr = d2_getattr_opt(I, v, "training");
        int t = tr ? d2_truthy(I, tr) : 0;
        d2_decref(tr);
        if (t < 0)
            return -1;
        d2_buf_printf(w->key, "train=%d,", t);
    }
    return d2_list_append(I, w->pins, v);
}

/* v with its tensors (and InputSpecs) replaced by the symbolic feeds *k, *k+1... */
/* Whether v holds a tensor, ndarray or InputSpec (a feed). */
static bool has_feed(d2_interp *I, d2_obj *v, int depth)
{
    if (is_spec(I, v) || is_tensor(v) || v->kind == D2_OBJ_NDARRAY)
        return true;
    if (depth > 32)
        return false;
    if (v->kind == D2_OBJ_LIST || v->kind == D2_OBJ_TUPLE) {
        size_t n;
        d2_obj **items = d2_jit_seq_items(v, &n);
        for (size_t i = 0; i < n; i++)
            if (has_feed(I, items[i], depth + 1))
                return true;
    } else if (v->kind == D2_OBJ_DICT) {
        d2_dict *d = D2_AS(d2_dict, v);
        for (size_t i = 0; i < d->n; i++)
            if (d->entries[i].key && has_feed(I, d->entries[i].value, depth + 1))
                return true;
    }
    return false;
}

typedef struct sym_ctx {
    const int *vars;
    int *k;
} sym_ctx;

static d2_obj *symbolic_args(d2_interp *I, d2_obj *v, const int *vars, int *k, int depth);

static d2_obj *symbolic_item(d2_interp *I, d2_obj *v, void *ctx, int depth)
{
    sym_ctx *c = ctx;
    return symbolic_args(I, v, c->vars, c->k, depth);
}

static d2_obj *symbolic_args(d2_interp *I, d2_obj *v, const int *vars, int *k, int depth)
{
    if (is_spec(I, v) || is_tensor(v) || v->kind == D2_OBJ_NDARRAY)
        return d2_pd_symbolic(I, D2_MODE(I)->builder, vars[(*k)++]);
    if (depth > 32 || !has_feed(I, v, depth))
        return d2_incref(v);
    sym_ctx c = {vars, k};
    return d2_jit_map_items(I, v, symbolic_item, &c, depth);
}

/* ---- outputs ---- */

static bool is_yielded(const d2_block *b, int v)
{
    for (int i = 0; i < b->n_yields; i++)
        if (b->yields[i] == v)
            return true;
    return false;
}

static bool is_param(const d2_block *b, int v)
{
    for (int i = 0; i < b->n_params; i++)
        if (b->params[i] == v)
            return true;
    return false;
}

static d2_obj *out_template(d2_interp *I, d2_obj *v, int depth);

static d2_obj *template_item(d2_interp *I, d2_obj *v, void *ctx, int depth)
{
    D2_UNUSED(ctx);
    return out_template(I, v, depth);
}

/* The output template of v: tensors become yields of block 0 (named
 * output_<k>), Python values stay as they are. */
static d2_obj *out_template(d2_interp *I, d2_obj *v, int depth)
{
    d2_builder *B = D2_MODE(I)->builder;
    d2_program *p = B->prog;
    if (is_tensor(v)) {
        int var = d2_pd_lift(I, B, v);
        if (var < 0)
            return NULL;
        d2_block *b0 = &p->blocks[0];
        if (p->vars[var].persistable || is_param(b0, var) || is_yielded(b0, var) ||
            p->vars[var].block != 0 || p->vars[var].type.kind == D2_VALUE_ARRAY) {
            if (p->vars[var].type.kind == D2_VALUE_ARRAY)
                return d2_raise(I, "TypeError",
                                "a to_static function cannot return a tensor array; stack or "
                                "concatenate it (paddle.stack / paddle.concat)");
            d2_obj *c = op_1(I, D2_OP_assign, v, NULL);
            if (!c)
                return NULL;
            var = d2_pd_lift(I, B, c);
            d2_decref(c);
            if (var < 0)
                return NULL;
        }
        int k = b0->n_yields;
        char nm[64];
        snprintf(nm, sizeof nm, "output_%d", k);
        d2_err err = {0};
        if (d2_program_rename_var(p, var, nm, &err) < 0) {
            d2_raise_err(I, &err);
            return NULL;
        }
        if (d2_block_add_yield(p, 0, var, &err) < 0) {
            d2_raise_err(I, &err);
            return NULL;
        }
        return new_slot(I, k);
    }
    if (is_array(I, v))
        return d2_raise(I, "TypeError",
                        "a to_static function cannot return a list grown in a tensor loop; stack "
                        "or concatenate it (paddle.stack / paddle.concat)");
    if (is_undef(I, v))
        return raise_undef(I, v);
    if (depth > 32)
        return d2_incref(v);
    return d2_jit_map_items(I, v, template_item, NULL, depth);
}

/* ---- compile and run ---- */

/* Parameter names of the original function, for naming feeds. */
static const char *param_name(d2_obj *fobj, size_t i, char *buf, size_t n)
{
    d2_function *f = D2_AS(d2_function, fobj);
    const d2_ast_arguments *a = f->args;
    size_t np = a ? a->posonlyargs.n + a->args.n : 0;
    if (i < np) {
        const d2_ast_arg *arg = i < a->posonlyargs.n ? a->posonlyargs.items[i]
                                                      : a->args.items[i - a->posonlyargs.n];
        return arg->arg;
    }
    snprintf(buf, n, "input_%zu", i);
    return buf;
}

/* Whether args[0] is the receiver (a method): bound by to_static(layer), or
 * a first parameter named self. */
static size_t first_data_arg(sfn *s)
{
    if (s->bound)
        return 1;
    d2_function *f = D2_AS(d2_function, s->fn);
    const d2_ast_arguments *a = f->args;
    if (!a)
        return 0;
    const d2_ast_arg *first = a->posonlyargs.n ? a->posonlyargs.items[0]
                              : a->args.n      ? a->args.items[0]
                                               : NULL;
    return first && strcmp(first->arg, "self") == 0 ? 1 : 0;
}

/* Signature key and feeds of a call. spec: the InputSpecs for the data
 * arguments (NULL: none). */
static int signature(d2_interp *I, sfn *s, d2_obj **args, size_t nargs, d2_dict *kw, feeds *fd,
                     d2_buf *key, d2_obj *pins)
{
    walk w = {I, fd, key, pins};
    size_t first = first_data_arg(s);
    size_t ns = 0;
    d2_obj **specs = s->spec ? d2_jit_seq_items(s->spec, &ns) : NULL;
    for (size_t i = 0; i < nargs; i++) {
        char buf[64];
        const char *name = param_name(s->fn, i, buf, sizeof buf);
        d2_obj *sp = i >= first && i - first < ns ? specs[i - first] : NULL;
        if (walk_value(&w, args[i], sp, name, 0) < 0)
            return -1;
    }
    for (size_t i = 0; kw && i < kw->n; i++) {
        d2_dict_entry *e = &kw->entries[i];
        if (!e->key)
            continue;
        d2_buf_printf(key, "%s=", cstr(e->key) ? cstr(e->key) : "?");
        if (walk_value(&w, e->value, NULL, cstr(e->key) ? cstr(e->key) : "kw", 0) < 0)
            return -1;
    }
    if (key->oom) {
        nomem(I);
        return -1;
    }
    return 0;
}

/* A tensor condition the transforms left to Python (the `if` of a
 * comprehension, a condition inside a lambda) fails while building, and so
 * does recursion whose depth a tensor decides (both branches of the
 * converted `if` are built): with the tracer, s is then traced instead. True
 * when it will be (the exception is cleared and the warning given where it
 * was raised). */
static bool late_fallback(d2_interp *I, sfn *s)
{
    if (!d2_trace_symbolic || I->opt.no_fallback || !I->exc)
        return false;
    char *why = NULL;
    if (d2_exc_matches(I, d2_exc_class(I, "RecursionError"))) {
        why = d2_strdup("recursion whose depth depends on a tensor cannot be converted");
    } else if (d2_exc_matches(I, d2_exc_class(I, "TypeError"))) {
        d2_obj *m = d2_str_of(I, I->exc);
        if (m && m->kind == D2_OBJ_STR &&
            strstr(D2_AS(d2_str, m)->s, "truth value of a symbolic tensor"))
            why = d2_strdup("the truth value of a tensor is needed where the transforms cannot "
                            "convert it");
        d2_decref(m);
    }
    if (!why)
        return false;
    d2_span sp = I->exc_span;
    const d2_module *mod = I->exc_module;
    d2_exc_clear(I);
    s->fallback = true;
    s->why_span = sp;
    d2_free(s->why);
    s->why = why;
    if (!I->opt.quiet_warnings)
        d2_warn(I, sp, mod,
                "%s; %s() is traced instead and its data-dependent branches are frozen", why,
                D2_AS(d2_function, s->fn)->name);
    return true;
}

/* Builds the Program of s for the call, prepared unless prepare is false. */
static entry *compile(d2_interp *I, sfn *s, d2_obj **args, size_t nargs, d2_dict *kw, feeds *fd,
                      bool prepare)
{
    if (sfn_convert(I, s) < 0)
        return NULL;
    bool traced = s->fallback && d2_trace_symbolic && !I->opt.no_fallback;
    if ((s->fallback || !s->conv) && !traced) {
        fallback_error(I, s);
        return NULL;
    }
    d2_err err = {0};
    entry *e = d2_calloc(1, sizeof *e);
    d2_program *p = e ? d2_program_new(&err) : NULL;
    if (!p) {
        d2_free(e);
        if (err.code)
            d2_raise_err(I, &err);
        else
            nomem(I);
        return NULL;
    }
    e->prog = p;
    int *vars = d2_calloc((size_t)fd->n + 1, sizeof *vars);
    d2_obj **sym = d2_calloc(nargs + 1, sizeof *sym);
    d2_obj *kws = NULL, *result = NULL;
    d2_builder B = {p, 0, ++I->next_gen, D2_MODE(I)->builder, NULL, NULL};
    bool ok = false, retry = false;
    if (!vars || !sym) {
        nomem(I);
        goto done;
    }
    for (int k = 0; k < fd->n; k++) {
        char nm[300];
        unique_name(p, fd->name[k], nm, sizeof nm);
        vars[k] = d2_program_add_var(p, 0, nm, &fd->type[k], &err);
        if (vars[k] < 0 || d2_block_add_param(p, 0, vars[k], &err) < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
    }
    D2_MODE(I)->builder = &B;
    int k = 0;
    for (size_t i = 0; i < nargs; i++) {
        sym[i] = symbolic_args(I, args[i], vars, &k, 0);
        if (!sym[i])
            goto built;
    }
    if (kw) {
        kws = symbolic_args(I, (d2_obj *)kw, vars, &k, 0);
        if (!kws)
            goto built;
    }
    if (traced) /* unsupported syntax: trace the original on example inputs */
        result = d2_trace_symbolic(I, &B, s->fn, sym, nargs, kws ? D2_AS(d2_dict, kws) : NULL,
                                   vars, fd->t, fd->n);
    else
        result = d2_call(I, s->conv, sym, nargs, kws ? D2_AS(d2_dict, kws) : NULL);
    if (result) {
        e->tmpl = out_template(I, result, 0);
        ok = e->tmpl != NULL;
    } else if (!traced) {
        retry = late_fallback(I, s);
    }
built:
    D2_MODE(I)->builder = B.outer;
    /* symbolic tensors of the finished build that Python code kept (say in a
     * Layer attribute) must not pass for values of a later build: they are
     * detached from the builder, whose memory is reused */
    d2_pd_retire_builder(&B);
    e->lifted = (d2_obj *)B.lifted;
    B.lifted = NULL;
    if (!ok)
        goto done;
    ok = false;
    e->n_feeds = fd->n;
    e->n_out = p->blocks[0].n_yields;
    if (d2_program_verify(p, &err) < 0) {
        d2_raise(I, "ValueError", "the static Program of %s() is invalid: %s",
                 D2_AS(d2_function, s->fn)->name, err.msg);
        goto done;
    }
    if (prepare) {
        e->pp = d2_exec_prepare(p, D2_MODE(I)->backend, &err);
        if (!e->pp) {
            d2_raise_err(I, &err);
            goto done;
        }
    }
    ok = true;
done:
    if (sym)
        decref_all(sym, nargs);
    d2_free(sym);
    d2_free(vars);
    d2_decref(kws);
    d2_decref(result);
    if (!ok) {
        entry_free(e);
        return retry ? compile(I, s, args, nargs, kw, fd, prepare) : NULL;
    }
    return e;
}

int d2_jit_refresh_lifted(d2_interp *I, d2_obj *lifted, d2_program *prog, bool *changed,
                          int *bad)
{
    if (!lifted || lifted->kind != D2_OBJ_DICT)
        return 0;
    d2_dict *d = D2_AS(d2_dict, lifted);
    for (size_t i = 0; i < d->n; i++) {
        d2_dict_entry *de = &d->entries[i];
        if (!de->key || de->value->kind != D2_OBJ_TUPLE || D2_AS(d2_tuple, de->value)->n != 2)
            continue;
        d2_obj *o = D2_AS(d2_tuple, de->value)->items[0];
        int var = (int)D2_AS(d2_int, D2_AS(d2_tuple, de->value)->items[1])->v;
        if (!is_tensor(o) || !TOBJ(o)->t || var < 0 || var >= prog->n_vars)
            continue;
        d2_tensor *t = TOBJ(o)->t;
        d2_var *pv = &prog->vars[var];
        if (t == pv->data || !t->storage || t->storage->backend != d2_cpu_backend())
            continue;
        d2_shape sh;
        d2_tensor_get_shape(t, &sh);
        if (t->dtype != pv->type.dtype || !d2_shape_equal(&sh, &pv->type.shape)) {
            if (bad)
                *bad = var;
            return 1;
        }
        d2_err err = {0};
        d2_tensor *c = d2_tensor_contiguous(t, &err);
        if (!c) {
            d2_raise_err(I, &err);
            return -1;
        }
        d2_tensor_unref(pv->data);
        pv->data = c;
        *changed = true;
    }
    return 0;
}

/* Makes the Program see Layer parameters replaced since it was compiled
 * (set_state_dict, set_value); re-prepares when one changed. 1 when the
 * entry must be rebuilt (a parameter changed its shape), 0, or -1. */
static int refresh_params(d2_interp *I, entry *e)
{
    bool changed = false;
    int rc = d2_jit_refresh_lifted(I, e->lifted, e->prog, &changed, NULL);
    if (rc != 0)
        return rc;
    if (changed && e->pp) {
        d2_exec_free(e->pp);
        d2_err err = {0};
        e->pp = d2_exec_prepare(e->prog, D2_MODE(I)->backend, &err);
        if (!e->pp) {
            d2_raise_err(I, &err);
            return -1;
        }
    }
    return 0;
}

static d2_obj *run_entry(d2_interp *I, entry *e, feeds *fd)
{
    d2_tensor **outs = d2_calloc((size_t)e->n_out + 1, sizeof *outs);
    d2_obj **vals = d2_calloc((size_t)e->n_out + 1, sizeof *vals);
    d2_obj *r = NULL;
    if (!outs || !vals) {
        nomem(I);
        goto done;
    }
    d2_err err = {0};
    if (d2_exec_run(e->pp, fd->t, fd->n, outs, e->n_out, &err) < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    for (int k = 0; k < e->n_out; k++) {
        vals[k] = d2_tensor_wrap(I, outs[k]);
        if (!vals[k])
            goto done;
    }
    r = fill_slots(I, e->tmpl, vals, 0);
done:
    for (int k = 0; outs && k < e->n_out; k++)
        d2_tensor_unref(outs[k]);
    if (vals)
        decref_all(vals, (size_t)e->n_out);
    d2_free(outs);
    d2_free(vals);
    return r;
}

/* InputSpecs describing feeds fd (what jit.save uses when given none). */
static d2_obj *specs_of(d2_interp *I, const feeds *fd)
{
    d2_obj *l = d2_list_new(I, 0);
    for (int k = 0; l && k < fd->n; k++) {
        d2_obj *shape = d2_jit_tuple_n(I, (size_t)fd->type[k].shape.ndim);
        for (int d = 0; shape && d < fd->type[k].shape.ndim; d++) {
            D2_AS(d2_tuple, shape)->items[d] = d2_int_new(I, fd->type[k].shape.dims[d]);
            if (!D2_AS(d2_tuple, shape)->items[d])
                d2_setref(&shape, NULL);
        }
        d2_obj *dt = d2_pd_dtype_obj(I, fd->type[k].dtype, false);
        d2_obj *nm = d2_str_from(I, fd->name[k]);
        d2_obj *sp = shape && dt && nm ? d2_instance_new(I, JS(I)->spec_cls) : NULL;
        int rc = sp ? iset(I, sp, "shape", shape) : -1;
        if (rc == 0)
            rc = iset(I, sp, "dtype", dt);
        if (rc == 0)
            rc = iset(I, sp, "name", nm);
        if (rc == 0)
            rc = d2_list_append(I, l, sp);
        d2_decref(shape);
        d2_decref(nm);
        d2_decref(sp);
        if (rc < 0)
            d2_setref(&l, NULL);
    }
    return l;
}

/* A call of a to_static function outside a Program build. */
static d2_obj *run_static(d2_interp *I, sfn *s, d2_obj **args, size_t nargs, d2_dict *kw)
{
    feeds fd = {0};
    d2_buf key;
    d2_buf_init(&key);
    d2_obj *pins = d2_list_new(I, 0), *r = NULL;
    if (!pins || signature(I, s, args, nargs, kw, &fd, &key, pins) < 0)
        goto done;
    entry *e = s->entries, *prev = NULL;
    while (e && strcmp(e->key, key.data ? key.data : "") != 0) {
        prev = e;
        e = e->next;
    }
    if (e) {
        int rr = refresh_params(I, e);
        if (rr < 0)
            goto done;
        if (rr > 0) {
            if (prev)
                prev->next = e->next;
            else
                s->entries = e->next;
            entry_free(e);
            e = NULL;
        }
    }
    if (!e) {
        e = compile(I, s, args, nargs, kw, &fd, true);
        if (!e)
            goto done;
        e->key = d2_strdup(key.data ? key.data : "");
        e->pins = d2_incref(pins);
        e->next = s->entries;
        s->entries = e;
        d2_setref(&s->last_specs, specs_of(I, &fd));
        if (!e->key || !s->last_specs) {
            if (!d2_exc_pending(I))
                nomem(I);
            goto done;
        }
        d2_err cerr = {0};
        d2_program_free(JS(I)->last_prog);
        JS(I)->last_prog = d2_program_clone(e->prog, &cerr);
        if (!JS(I)->last_prog) {
            d2_raise_err(I, &cerr);
            goto done;
        }
    }
    r = run_entry(I, e, &fd);
done:
    feeds_free(&fd);
    d2_buf_free(&key);
    d2_decref(pins);
    return r;
}

/* The builtin each to_static wrapper calls with (args, kwargs). */
/* f.rollback(): undoes to_static. For a Layer converted with
 * paddle.jit.to_static(layer), its forward becomes the original method
 * again (as Paddle does), which is returned; otherwise the original
 * function is returned. (Paddle also rebinds a forward decorated in the
 * class body when reached through an instance; here that case returns the
 * original function and the Layer stays converted.) */
static d2_obj *SF_rollback(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                           d2_dict *kw)
{
    sfn *s = sfn_of(I, self);
    if (d2_parse_args(I, "rollback", "", args, nargs, kw, NULL) < 0)
        return NULL;
    if (!s)
        return d2_raise(I, "TypeError", "internal: rollback of a non-to_static function");
    if (!s->bound || !d2_jit_is_layer(I, s->bound))
        return d2_incref(s->fn);
    d2_obj *m = d2_bound_method_new(I, s->fn, s->bound);
    if (!m || iset(I, s->bound, "forward", m) < 0)
        d2_setref(&m, NULL);
    return m;
}

static d2_obj *SF_call(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(kw);
    sfn *s = sfn_of(I, self);
    if (!s || nargs != 2 || args[0]->kind != D2_OBJ_TUPLE || args[1]->kind != D2_OBJ_DICT)
        return d2_raise(I, "TypeError", "internal: bad call of a to_static function");
    size_t n;
    d2_obj **items = d2_jit_seq_items(args[0], &n);
    d2_dict *kwd = D2_AS(d2_dict, args[1])->live ? D2_AS(d2_dict, args[1]) : NULL;
    size_t off = s->bound ? 1 : 0;
    d2_obj **all = d2_calloc(n + 2, sizeof *all);
    if (!all)
        return nomem(I);
    if (s->bound)
        all[0] = s->bound;
    for (size_t i = 0; i < n; i++)
        all[i + off] = items[i];
    n += off;
    d2_obj *r = NULL;
    if (!JS(I)->enabled || D2_MODE(I)->tracer) {
        r = d2_call(I, s->fn, all, n, kwd);
    } else if (sfn_convert(I, s) < 0) {
        r = NULL;
    } else if (s->fallback || !s->conv) {
        if (D2_MODE(I)->builder)
            r = d2_call(I, s->fn, all, n, kwd);
        else if (s->fallback && d2_trace_symbolic && !I->opt.no_fallback)
            r = run_static(I, s, all, n, kwd); /* traced once per signature */
        else if (d2_trace_function && !I->opt.no_fallback)
            r = d2_trace_function(I, s->fn, all, n, kwd);
        else
            r = fallback_error(I, s);
    } else if (D2_MODE(I)->builder) {
        r = d2_call(I, s->conv, all, n, kwd);
    } else {
        r = run_static(I, s, all, n, kwd);
    }
    d2_free(all);
    return r;
}

/* ---- the paddle.jit API ---- */

/* A new StaticFunction state for fn (spec and bound may be NULL). */
static d2_obj *new_state(d2_interp *I, d2_obj *fn, d2_obj *spec, d2_obj *bound)
{
    sfn *s = d2_calloc(1, sizeof *s);
    if (!s)
        return nomem(I);
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_OPAQUE, JS(I)->sfn_cls, sizeof(d2_opaque));
    if (!o) {
        d2_free(s);
        return NULL;
    }
    s->fn = d2_incref(fn);
    s->spec = spec && spec->kind != D2_OBJ_NONE ? d2_incref(spec) : NULL;
    s->bound = d2_incref(bound);
    D2_AS(d2_opaque, o)->payload = s;
    D2_AS(d2_opaque, o)->fin = sfn_fin;
    return o;
}

/* The state behind a to_static wrapper function, or NULL. */
static sfn *wrapper_state(d2_interp *I, d2_obj *f)
{
    return sfn_of(I, fattr(I, f, "_dy2st_static"));
}

/* def __jst_make__(_call):
 *     def to_static_function(*args, **kwargs):
 *         return _call(args, kwargs)
 *     return to_static_function
 * built directly (every node at span sp), since parsing it per to_static
 * costs more than the rest of the decoration. */
static d2_ast_stmt *wrapper_def(d2_arena *a, d2_span sp)
{
    d2_ast_stmt *outer = d2_ast_stmt_new(a, D2_AST_FUNCTION_DEF, sp);
    d2_ast_stmt *inner = d2_ast_stmt_new(a, D2_AST_FUNCTION_DEF, sp);
    d2_ast_arguments *oargs = d2_ast_node_new(a, D2_AST_ARGUMENTS, sp);
    d2_ast_arguments *iargs = d2_ast_node_new(a, D2_AST_ARGUMENTS, sp);
    d2_ast_arg *call = d2_ast_arg_new(a, "_call", NULL, sp);
    if (!outer || !inner || !oargs || !iargs || !call ||
        !(iargs->vararg = d2_ast_arg_new(a, "args", NULL, sp)) ||
        !(iargs->kwarg = d2_ast_arg_new(a, "kwargs", NULL, sp)) ||
        d2_ast_seq_push(a, &oargs->args, call) < 0)
        return NULL;
    d2_ast_seq cargs = {0}, nokw = {0};
    d2_ast_expr *fn = d2_ast_name(a, "_call", D2_CTX_LOAD, sp);
    d2_ast_expr *pa = d2_ast_name(a, "args", D2_CTX_LOAD, sp);
    d2_ast_expr *pk = d2_ast_name(a, "kwargs", D2_CTX_LOAD, sp);
    if (!fn || !pa || !pk || d2_ast_seq_push(a, &cargs, pa) < 0 ||
        d2_ast_seq_push(a, &cargs, pk) < 0)
        return NULL;
    d2_ast_expr *ce = d2_ast_call(a, fn, cargs, nokw, sp);
    d2_ast_stmt *iret = ce ? d2_ast_return(a, ce, sp) : NULL;
    d2_ast_expr *rv = d2_ast_name(a, "to_static_function", D2_CTX_LOAD, sp);
    d2_ast_stmt *oret = rv ? d2_ast_return(a, rv, sp) : NULL;
    if (!iret || !oret || d2_ast_seq_push(a, &inner->function_def.body, iret) < 0 ||
        d2_ast_seq_push(a, &outer->function_def.body, inner) < 0 ||
        d2_ast_seq_push(a, &outer->function_def.body, oret) < 0)
        return NULL;
    inner->function_def.name = "to_static_function";
    inner->function_def.args = iargs;
    outer->function_def.name = "__jst_make__";
    outer->function_def.args = oargs;
    return outer;
}

/* Wraps user function fn as a to_static function (a Python function, so
 * it binds as a method; attributes code and __wrapped__). */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static d2_obj *make_static_impl(d2_interp *I, d2_obj *fn, d2_obj *spec, d2_obj *bound);

/* make_static_impl, timed for _jst._stats. */
static d2_obj *make_static(d2_interp *I, d2_obj *fn, d2_obj *spec, d2_obj *bound)
{
    double t0 = now_s();
    d2_obj *w = make_static_impl(I, fn, spec, bound);
    JS(I)->decorate_s += now_s() - t0;
    JS(I)->decorated++;
    return w;
}

static d2_obj *make_static_impl(d2_interp *I, d2_obj *fn, d2_obj *spec, d2_obj *bound)
{
    sfn *prev = wrapper_state(I, fn);
    if (prev)
        fn = prev->fn;
    if (fn->kind != D2_OBJ_FUNCTION)
        return d2_raise(I, "TypeError", "paddle.jit.to_static: expected a function or a Layer, "
                        "got %s", d2_type_name(fn));
    d2_function *of = D2_AS(d2_function, fn);
    if (!of->module)
        return d2_raise(I, "TypeError", "paddle.jit.to_static: %s() has no module", of->name);
    /* a wrapper per function, run in its module with the def's span, so that
     * tracebacks show the wrapper's frame at the user's def */
    d2_ast_stmt *wdef = wrapper_def(I->arena, of->def ? of->def->span : (d2_span){0});
    if (!wdef)
        return nomem(I);
    d2_obj *make = exec_def(I, wdef, of->module, "__jst_make__");
    if (!make)
        return NULL;
    d2_obj *state = new_state(I, fn, spec, bound);
    if (state && prev && prev->memo.have && !xf_memo_copy(&sfn_of(I, state)->memo, &prev->memo))
        d2_setref(&state, nomem(I));
    d2_obj *call = state ? d2_builtin_new(I, "to_static_call", SF_call, state, NULL) : NULL;
    d2_obj *w = call ? d2_call(I, make, &call, 1, NULL) : NULL;
    d2_decref(make);
    d2_decref(call);
    conv_result r = {0};
    int rc = w && w->kind == D2_OBJ_FUNCTION ? 0 : -1;
    if (rc == 0) {
        d2_function *wf = D2_AS(d2_function, w);
        wf->name = of->name;
        wf->qualname = of->qualname;
        rc = convert(I, fn, true, &sfn_of(I, state)->memo, &r);
    }
    d2_obj *code = rc == 0 ? d2_str_from(I, r.code ? r.code : "") : NULL;
    d2_obj *rb = code ? d2_builtin_new(I, "rollback", SF_rollback, state, NULL) : NULL;
    if (!rb || fattr_set(I, w, "_dy2st_static", state) < 0 ||
        fattr_set(I, w, "__wrapped__", fn) < 0 || fattr_set(I, w, "code", code) < 0 ||
        fattr_set(I, w, "rollback", rb) < 0)
        d2_setref(&w, NULL);
    d2_decref(rb);
    d2_decref(code);
    d2_decref(state);
    conv_result_free(&r);
    return w;
}

static d2_obj *to_static_impl(d2_interp *I, d2_obj *target, d2_obj *spec)
{
    if (target->kind == D2_OBJ_FUNCTION)
        return make_static(I, target, spec, NULL);
    if (target->kind == D2_OBJ_BOUND_METHOD) {
        d2_bound_method *m = D2_AS(d2_bound_method, target);
        return make_static(I, m->func, spec, m->self);
    }
    if (d2_jit_is_layer(I, target)) {
        d2_obj *fwd = d2_getattr(I, (d2_obj *)target->cls, "forward");
        if (!fwd)
            return NULL;
        d2_obj *w = fwd->kind == D2_OBJ_FUNCTION ? make_static(I, fwd, spec, target)
                                                  : d2_raise(I, "TypeError",
                                                             "paddle.jit.to_static: %s.forward "
                                                             "is not a Python function",
                                                             target->cls->name);
        d2_decref(fwd);
        if (!w)
            return NULL;
        int rc = iset(I, target, "forward", w);
        d2_decref(w);
        return rc < 0 ? NULL : d2_incref(target);
    }
    return d2_raise(I, "TypeError", "paddle.jit.to_static: expected a function or a Layer, got %s",
                    d2_type_name(target));
}

static d2_obj *J_decorate(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "to_static", "function", args, nargs, kw, a) < 0)
        return NULL;
    return to_static_impl(I, a[0], self && self->kind != D2_OBJ_NONE ? self : NULL);
}

/* paddle.jit.to_static(function=None, input_spec=None, build_strategy=None,
 * backend=None, **kwargs) */
static d2_obj *J_to_static(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[5] = {NULL};
    if (d2_parse_args(I, "paddle.jit.to_static",
                      "function=None, input_spec=None, build_strategy=None, backend=None, "
                      "**kwargs", args, nargs, kw, a) < 0)
        return NULL;
    if (a[0]->kind == D2_OBJ_NONE)
        return d2_builtin_new(I, "to_static", J_decorate, a[1], NULL);
    return to_static_impl(I, a[0], a[1]->kind == D2_OBJ_NONE ? NULL : a[1]);
}

static d2_obj *J_not_to_static(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                               d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "paddle.jit.not_to_static", "func=None", args, nargs, kw, a) < 0)
        return NULL;
    if (a[0]->kind == D2_OBJ_FUNCTION && fattr_set(I, a[0], "_dy2st_not_to_static", I->true_) < 0)
        return NULL;
    return d2_incref(a[0]);
}

static d2_obj *J_enable_to_static(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                  d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "paddle.jit.enable_to_static", "enable_to_static", args, nargs, kw, a) <
        0)
        return NULL;
    if (a[0]->kind != D2_OBJ_BOOL)
        return d2_raise(I, "TypeError",
                        "paddle.jit.enable_to_static: the argument must be a bool, got %s",
                        d2_type_name(a[0]));
    JS(I)->enabled = a[0] == I->true_;
    return d2_none(I);
}

/* ======================================================================
 * Programs for saving: a Layer or function with InputSpecs
 * ====================================================================== */

/* The StaticFunction state for target (a Layer, a to_static wrapper, a
 * bound method or a plain function): a new reference to its state object. */
static d2_obj *state_for(d2_interp *I, d2_obj *target)
{
    if (target->kind == D2_OBJ_FUNCTION) {
        d2_obj *st = fattr(I, target, "_dy2st_static");
        return st ? d2_incref(st) : new_state(I, target, NULL, NULL);
    }
    if (target->kind == D2_OBJ_BOUND_METHOD) {
        d2_bound_method *m = D2_AS(d2_bound_method, target);
        if (m->func->kind != D2_OBJ_FUNCTION)
            return d2_raise(I, "TypeError", "cannot convert builtin method %s",
                            d2_type_name(m->func));
        sfn *w = wrapper_state(I, m->func);
        d2_obj *st = new_state(I, w ? w->fn : m->func, w ? w->spec : NULL, m->self);
        if (st && w) {
            sfn_of(I, st)->last_specs = d2_incref(w->last_specs);
            if (w->memo.have && !xf_memo_copy(&sfn_of(I, st)->memo, &w->memo))
                d2_setref(&st, nomem(I));
        }
        return st;
    }
    if (d2_jit_is_layer(I, target)) {
        d2_obj *fwd = d2_getattr(I, target, "forward");
        if (!fwd)
            return NULL;
        d2_obj *r;
        if (fwd->kind == D2_OBJ_FUNCTION && wrapper_state(I, fwd))
            r = d2_incref(fattr(I, fwd, "_dy2st_static"));
        else if (fwd->kind == D2_OBJ_BOUND_METHOD)
            r = state_for(I, fwd);
        else
            r = d2_raise(I, "TypeError", "%s.forward is not a Python function", target->cls->name);
        d2_decref(fwd);
        return r;
    }
    return d2_raise(I, "TypeError", "expected a Layer or a function to convert, got %s",
                    d2_type_name(target));
}

/* The Program of target for input specs (a list of InputSpec; NULL: the
 * to_static input_spec, else the last compiled signature). Caller frees. */
static d2_program *program_for(d2_interp *I, d2_obj *target, d2_obj *specs)
{
    d2_obj *state = state_for(I, target);
    sfn *s = state ? sfn_of(I, state) : NULL;
    if (!s) {
        d2_decref(state);
        return NULL;
    }
    if (!specs || specs->kind == D2_OBJ_NONE)
        specs = s->spec ? s->spec : s->last_specs;
    if (!specs) {
        d2_decref(state);
        d2_raise(I, "ValueError",
                 "no input_spec: give the input shapes (input_spec=[InputSpec(...)], or --input "
                 "NAME:DTYPE[DIMS] on the command line)");
        return NULL;
    }
    size_t ns;
    d2_obj **sp = d2_jit_seq_items(specs, &ns);
    if (specs->kind != D2_OBJ_LIST && specs->kind != D2_OBJ_TUPLE) {
        d2_decref(state);
        d2_raise(I, "TypeError", "input_spec must be a list of InputSpec");
        return NULL;
    }
    size_t first = first_data_arg(s);
    d2_obj **args = d2_calloc(ns + 2, sizeof *args);
    d2_program *p = NULL;
    feeds fd = {0};
    d2_buf key;
    d2_buf_init(&key);
    d2_obj *pins = d2_list_new(I, 0);
    if (!args || !pins) {
        nomem(I);
        goto done;
    }
    if (first)
        args[0] = s->bound;
    if (first && !s->bound) {
        d2_raise(I, "TypeError", "%s() is a method: save the Layer, not the function",
                 D2_AS(d2_function, s->fn)->name);
        goto done;
    }
    for (size_t i = 0; i < ns; i++) {
        d2_obj *v = sp[i];
        if (is_tensor(v) || v->kind == D2_OBJ_NDARRAY) {
            /* an example tensor stands for its own spec */
        } else if (!is_spec(I, v) && v->kind != D2_OBJ_NONE && !is_pynum(v) &&
                   v->kind != D2_OBJ_STR) {
            d2_raise(I, "TypeError", "input_spec[%zu] is a %s, expected an InputSpec", i,
                     d2_type_name(v));
            goto done;
        }
        args[first + i] = v;
    }
    d2_obj *saved_spec = s->spec;
    s->spec = NULL;
    int rc = signature(I, s, args, first + ns, NULL, &fd, &key, pins);
    s->spec = saved_spec;
    if (rc < 0)
        goto done;
    entry *e = compile(I, s, args, first + ns, NULL, &fd, false);
    if (!e)
        goto done;
    p = e->prog;
    e->prog = NULL;
    entry_free(e);
    d2_err cerr = {0};
    d2_program_free(JS(I)->last_prog);
    JS(I)->last_prog = d2_program_clone(p, &cerr);
    if (!JS(I)->last_prog) {
        d2_raise_err(I, &cerr);
        d2_program_free(p);
        p = NULL;
    }
done:
    feeds_free(&fd);
    d2_buf_free(&key);
    d2_decref(pins);
    d2_free(args);
    d2_decref(state);
    return p;
}

char *d2_jit_model_path(const char *path)
{
    size_t n = strlen(path);
    if (n >= 6 && strcmp(path + n - 6, ".dy2st") == 0)
        return d2_strdup(path);
    char *r = d2_malloc(n + 7);
    if (r)
        snprintf(r, n + 7, "%s.dy2st", path);
    return r;
}

int d2_jit_make_parents(const char *file, const char *who, d2_err *err)
{
    char *d = d2_strdup(file);
    if (!d) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        return -1;
    }
    char *last = strrchr(d, '/');
    int rc = 0;
    for (char *p = d + 1; last && p <= last; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        struct stat st;
        if (stat(d, &st) < 0 && mkdir(d, 0777) < 0 && errno != EEXIST) {
            d2_err_set(err, D2_ERR_IO, "%s: cannot create directory '%s': %s", who, d,
                       strerror(errno));
            rc = -1;
            break;
        }
        *p = '/';
    }
    d2_free(d);
    return rc;
}

/* paddle.jit.save(layer, path, input_spec=None, **configs) */
static d2_obj *J_save(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[4] = {NULL};
    if (d2_parse_args(I, "paddle.jit.save", "layer, path, input_spec=None, **configs", args, nargs,
                      kw, a) < 0)
        return NULL;
    const char *path = d2_to_cstr(I, a[1], "path");
    if (!path)
        return NULL;
    d2_program *p = program_for(I, a[0], a[2]);
    if (!p)
        return NULL;
    char *file = d2_jit_model_path(path);
    d2_err err = {0};
    int rc = file ? d2_jit_make_parents(file, "paddle.jit.save", &err) : -1;
    if (rc == 0)
        rc = d2_model_save(p, file, &err);
    d2_free(file);
    d2_program_free(p);
    if (rc < 0)
        return err.code ? d2_raise_err(I, &err) : nomem(I);
    return d2_none(I);
}

d2_program *d2_jit_last_program(d2_interp *I, d2_err *err)
{
    if (!JS(I) || !JS(I)->last_prog) {
        d2_err_set(err, D2_ERR_INVALID, "no to_static function has been compiled yet: call it "
                   "once before saving its program");
        return NULL;
    }
    return d2_program_clone(JS(I)->last_prog, err);
}

/* ---- paddle.jit.load: TranslatedLayer ---- */

typedef struct loaded {
    d2_program *p;
    d2_prepared *pp;
} loaded;

static void loaded_fin(void *v)
{
    loaded *l = v;
    d2_exec_free(l->pp);
    d2_program_free(l->p);
    d2_free(l);
}

static bool file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

static d2_obj *J_load(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[2] = {NULL};
    if (d2_parse_args(I, "paddle.jit.load", "path, **configs", args, nargs, kw, a) < 0)
        return NULL;
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    char *file = d2_jit_model_path(path);
    if (!file)
        return nomem(I);
    const char *use = file_exists(file) ? file : path;
    d2_err err = {0};
    loaded *l = d2_calloc(1, sizeof *l);
    if (!l) {
        d2_free(file);
        return nomem(I);
    }
    l->p = d2_model_load(use, &err);
    d2_free(file);
    if (l->p)
        l->pp = d2_exec_prepare(l->p, D2_MODE(I)->backend, &err);
    if (!l->pp) {
        loaded_fin(l);
        if (err.code == D2_ERR_IO)
            return d2_raise(I, "FileNotFoundError", "%s", err.msg);
        return d2_raise_err(I, &err);
    }
    d2_obj *po = d2_obj_alloc(I, D2_OBJ_OPAQUE, JS(I)->prog_cls, sizeof(d2_opaque));
    if (!po) {
        loaded_fin(l);
        return NULL;
    }
    D2_AS(d2_opaque, po)->payload = l;
    D2_AS(d2_opaque, po)->fin = loaded_fin;
    d2_obj *layer = d2_instance_new(I, JS(I)->loaded_cls);
    if (!layer || iset(I, layer, "_program", po) < 0 || iset(I, layer, "training", I->false_) < 0)
        d2_setref(&layer, NULL);
    d2_decref(po);
    return layer;
}

static loaded *loaded_of(d2_interp *I, d2_obj *layer)
{
    d2_obj *po = iget(I, layer, "_program");
    if (!po || po->kind != D2_OBJ_OPAQUE || po->cls != JS(I)->prog_cls)
        return NULL;
    return D2_AS(d2_opaque, po)->payload;
}

static d2_obj *TL_forward(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(kw);
    loaded *l = loaded_of(I, self);
    if (!l)
        return d2_raise(I, "TypeError", "TranslatedLayer: no program loaded");
    int n_in = l->p->blocks[0].n_params, n_out = l->p->blocks[0].n_yields;
    if ((int)nargs != n_in)
        return d2_raise(I, "TypeError", "the loaded model takes %d inputs, got %zu", n_in, nargs);
    d2_tensor **in = d2_calloc((size_t)n_in + 1, sizeof *in);
    d2_tensor **out = d2_calloc((size_t)n_out + 1, sizeof *out);
    d2_obj *r = NULL;
    if (!in || !out) {
        nomem(I);
        goto done;
    }
    for (int i = 0; i < n_in; i++) {
        d2_obj *x = args[i];
        if (is_tensor(x) && TOBJ(x)->t)
            in[i] = d2_tensor_ref(TOBJ(x)->t);
        else if (x->kind == D2_OBJ_NDARRAY)
            in[i] = d2_tensor_ref(D2_AS(d2_ndarray, x)->t);
        else
            in[i] = d2_pd_from_py(I, x, (int)l->p->vars[l->p->blocks[0].params[i]].type.dtype,
                                  D2_F32, "TranslatedLayer");
        if (!in[i])
            goto done;
    }
    d2_err err = {0};
    if (d2_exec_run(l->pp, in, n_in, out, n_out, &err) < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    if (n_out == 1) {
        r = d2_tensor_wrap(I, out[0]);
    } else {
        r = d2_list_new(I, (size_t)n_out);
        for (int k = 0; r && k < n_out; k++) {
            D2_AS(d2_list, r)->items[k] = d2_tensor_wrap(I, out[k]);
            if (!D2_AS(d2_list, r)->items[k])
                d2_setref(&r, NULL);
        }
    }
done:
    for (int i = 0; in && i < n_in; i++)
        d2_tensor_unref(in[i]);
    for (int k = 0; out && k < n_out; k++)
        d2_tensor_unref(out[k]);
    d2_free(in);
    d2_free(out);
    return r;
}

static d2_obj *TL_mode(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_incref(self ? self : I->none);
}

static d2_obj *TL_program(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    loaded *l = loaded_of(I, self);
    if (!l)
        return d2_raise(I, "TypeError", "TranslatedLayer: no program loaded");
    return d2_jit_program_text(I, l->p);
}

d2_obj *d2_jit_program_text(d2_interp *I, const d2_program *p)
{
    char *text = d2_program_print(p, false);
    if (!text)
        return nomem(I);
    d2_obj *s = d2_str_from(I, text);
    d2_free(text);
    return s;
}

/* ======================================================================
 * paddle.static.InputSpec
 * ====================================================================== */

static int spec_set(d2_interp *I, d2_obj *self, d2_obj *shape, d2_obj *dtype, d2_obj *name)
{
    size_t n = 0;
    d2_obj **dims = NULL;
    if (shape && shape->kind != D2_OBJ_NONE) {
        if (shape->kind != D2_OBJ_LIST && shape->kind != D2_OBJ_TUPLE) {
            int64_t v;
            if (d2_to_int64(I, shape, "InputSpec.shape", &v) < 0)
                return -1;
            dims = &shape;
            n = 1;
        } else {
            dims = d2_jit_seq_items(shape, &n);
        }
    }
    d2_obj *t = d2_jit_tuple_n(I, n);
    for (size_t i = 0; t && i < n; i++) {
        int64_t v = -1;
        if (dims[i]->kind != D2_OBJ_NONE && d2_to_int64(I, dims[i], "InputSpec.shape", &v) < 0) {
            d2_decref(t);
            return -1;
        }
        D2_AS(d2_tuple, t)->items[i] = d2_int_new(I, v < 0 ? -1 : v);
        if (!D2_AS(d2_tuple, t)->items[i])
            d2_setref(&t, NULL);
    }
    int dt = D2_F32;
    if (!t || (dtype && d2_pd_parse_dtype(I, dtype, "InputSpec", false, &dt) < 0)) {
        d2_decref(t);
        return -1;
    }
    d2_obj *dto = d2_pd_dtype_obj(I, dt < 0 ? D2_F32 : (d2_dtype)dt, false);
    int rc = dto ? iset(I, self, "shape", t) : -1;
    if (rc == 0)
        rc = iset(I, self, "dtype", dto);
    if (rc == 0)
        rc = iset(I, self, "name", name ? name : I->none);
    if (rc == 0)
        rc = iset(I, self, "stop_gradient", I->false_);
    d2_decref(t);
    return rc;
}

static d2_obj *IS_init(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    d2_obj *a[4] = {NULL};
    if (d2_parse_args(I, "InputSpec", "shape=None, dtype='float32', name=None, stop_gradient=False",
                      args, nargs, kw, a) < 0)
        return NULL;
    if (spec_set(I, self, a[0], a[1], a[2]) < 0)
        return NULL;
    if (iset(I, self, "stop_gradient", a[3]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *IS_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    d2_obj *sh = iget(I, self, "shape"), *dt = iget(I, self, "dtype"), *nm = iget(I, self, "name");
    d2_obj *shr = sh ? d2_repr(I, sh) : NULL;
    d2_obj *dtr = dt ? d2_str_of(I, dt) : NULL;
    d2_obj *nmr = nm ? d2_str_of(I, nm) : NULL;
    d2_obj *sg = iget(I, self, "stop_gradient");
    d2_obj *r = shr && dtr && nmr
                    ? d2_str_printf(I, "InputSpec(shape=%s, dtype=%s, name=%s, stop_gradient=%s)",
                                    cstr(shr), cstr(dtr), cstr(nmr),
                                    sg == I->true_ ? "True" : "False")
                    : NULL;
    d2_decref(shr);
    d2_decref(dtr);
    d2_decref(nmr);
    return r;
}

/* InputSpec.batch(batch_size): puts batch_size in front of the shape and
 * returns the spec itself. A list or tuple of one int is taken too (Paddle
 * 2.6 accepts the form but then reads its second element and fails). */
static d2_obj *IS_batch(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "InputSpec.batch", "batch_size", args, nargs, kw, a) < 0)
        return NULL;
    d2_obj *b = a[0];
    if (b->kind == D2_OBJ_LIST || b->kind == D2_OBJ_TUPLE) {
        size_t n;
        d2_obj **items = d2_jit_seq_items(b, &n);
        if (n != 1)
            return d2_raise(I, "ValueError", "Length of batch_size: %zu shall be 1", n);
        b = items[0];
    }
    if (b->kind != D2_OBJ_INT && b->kind != D2_OBJ_BOOL)
        return d2_raise(I, "TypeError", "type(batch_size) shall be `int`, but received %s.",
                        d2_type_name(b));
    d2_obj *sh = iget(I, self, "shape");
    size_t n = 0;
    d2_obj **dims = sh ? d2_jit_seq_items(sh, &n) : NULL;
    d2_obj *t = d2_jit_tuple_n(I, n + 1);
    if (!t)
        return NULL;
    D2_AS(d2_tuple, t)->items[0] = d2_incref(b);
    for (size_t i = 0; i < n; i++)
        D2_AS(d2_tuple, t)->items[i + 1] = d2_incref(dims[i]);
    int rc = iset(I, self, "shape", t);
    d2_decref(t);
    return rc < 0 ? NULL : d2_incref(self);
}

/* InputSpec.unbatch(): drops the first dim of the shape; returns the spec. */
static d2_obj *IS_unbatch(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    if (d2_parse_args(I, "InputSpec.unbatch", "", args, nargs, kw, NULL) < 0)
        return NULL;
    d2_obj *sh = iget(I, self, "shape");
    size_t n = 0;
    d2_obj **dims = sh ? d2_jit_seq_items(sh, &n) : NULL;
    if (n == 0)
        return d2_raise(I, "ValueError", "Not support to unbatch a InputSpec when len(shape) == 0.");
    d2_obj *t = d2_jit_tuple_n(I, n - 1);
    if (!t)
        return NULL;
    for (size_t i = 1; i < n; i++)
        D2_AS(d2_tuple, t)->items[i - 1] = d2_incref(dims[i]);
    int rc = iset(I, self, "shape", t);
    d2_decref(t);
    return rc < 0 ? NULL : d2_incref(self);
}

/* InputSpec.from_tensor(tensor, name=None) / from_numpy(ndarray, name=None) */
static d2_obj *IS_from_tensor(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                              d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[2] = {NULL};
    if (d2_parse_args(I, "InputSpec.from_tensor", "tensor, name=None", args, nargs, kw, a) < 0)
        return NULL;
    d2_tensor *t = is_tensor(a[0]) ? TOBJ(a[0])->t
                   : a[0]->kind == D2_OBJ_NDARRAY ? D2_AS(d2_ndarray, a[0])->t
                                                  : NULL;
    if (!t)
        return d2_raise(I, "TypeError", "InputSpec.from_tensor: expected a Tensor, got %s",
                        d2_type_name(a[0]));
    d2_obj *shape = d2_jit_tuple_n(I, (size_t)t->ndim);
    for (int d = 0; shape && d < t->ndim; d++) {
        D2_AS(d2_tuple, shape)->items[d] = d2_int_new(I, t->shape[d]);
        if (!D2_AS(d2_tuple, shape)->items[d])
            d2_setref(&shape, NULL);
    }
    d2_obj *sp = shape ? d2_instance_new(I, JS(I)->spec_cls) : NULL;
    d2_obj *dt = d2_pd_dtype_obj(I, t->dtype, false);
    if (!sp || spec_set(I, sp, shape, dt, a[1]) < 0)
        d2_setref(&sp, NULL);
    d2_decref(shape);
    return sp;
}

/* ======================================================================
 * paddle.concat / paddle.stack of a list grown in a tensor loop
 * ====================================================================== */

static d2_obj *array_join(d2_interp *I, d2_obj **args, size_t nargs, d2_dict *kw, bool stack)
{
    jit_state *s = JS(I);
    d2_obj *orig = stack ? s->orig_stack : s->orig_concat;
    if (nargs == 0 || !is_array(I, args[0]))
        return d2_call(I, orig, args, nargs, kw);
    d2_obj *a[3] = {NULL};
    if (d2_parse_args(I, stack ? "paddle.stack" : "paddle.concat", "x, axis=0, name=None", args,
                      nargs, kw, a) < 0)
        return NULL;
    int64_t axis;
    if (d2_to_int64(I, a[1], "axis", &axis) < 0)
        return NULL;
    d2_op_id op = stack ? D2_OP_array_stack : D2_OP_array_concat;
    ab b;
    ab_init(&b, op);
    ab_int(&b, "axis", axis);
    return op_1(I, op, tarray_t(I, a[0]), &b);
}

static d2_obj *P_concat(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return array_join(I, args, nargs, kw, false);
}

static d2_obj *P_stack(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return array_join(I, args, nargs, kw, true);
}

/* ======================================================================
 * .npz files (numpy.savez: a zip archive of stored .npy members)
 * ====================================================================== */

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

int d2_jit_npz_load(const char *path, d2_jit_npz_fn fn, void *ctx, d2_err *err)
{
    size_t len = 0;
    unsigned char *z = (unsigned char *)d2_read_file(path, &len, err);
    if (!z)
        return -1;
    int rc = -1;
    /* end of central directory: 22 bytes plus a comment of up to 65535 */
    size_t eocd = (size_t)-1;
    for (size_t i = len >= 22 ? len - 22 : 0; len >= 22; i--) {
        if (rd32(z + i) == 0x06054b50) {
            eocd = i;
            break;
        }
        if (i == 0 || len - i > 22 + 65535)
            break;
    }
    if (eocd == (size_t)-1) {
        d2_err_set(err, D2_ERR_FORMAT, "%s: not an .npz file (no zip directory)", path);
        goto done;
    }
    uint64_t count = rd16(z + eocd + 10), cd = rd32(z + eocd + 16);
    if (count == 0xffff || cd == 0xffffffffu) {
        /* zip64 end of central directory locator just before */
        if (eocd < 20 || rd32(z + eocd - 20) != 0x07064b50) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: bad zip64 directory", path);
            goto done;
        }
        uint64_t off = rd64(z + eocd - 20 + 8);
        if (off + 56 > len || rd32(z + off) != 0x06064b50) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: bad zip64 directory", path);
            goto done;
        }
        count = rd64(z + off + 32);
        cd = rd64(z + off + 48);
    }
    uint64_t pos = cd;
    for (uint64_t k = 0; k < count; k++) {
        if (pos + 46 > len || rd32(z + pos) != 0x02014b50) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: corrupt zip directory", path);
            goto done;
        }
        uint32_t method = rd16(z + pos + 10);
        uint64_t csize = rd32(z + pos + 20), usize = rd32(z + pos + 24);
        uint32_t nlen = rd16(z + pos + 28), xlen = rd16(z + pos + 30), clen = rd16(z + pos + 32);
        uint64_t loff = rd32(z + pos + 42);
        if (pos + 46 + nlen + xlen + clen > len) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: corrupt zip directory", path);
            goto done;
        }
        const unsigned char *x = z + pos + 46 + nlen, *xe = x + xlen;
        while (x + 4 <= xe) {
            uint32_t id = rd16(x), sz = rd16(x + 2);
            const unsigned char *f = x + 4;
            if (id == 1 && f + sz <= xe) {
                if (usize == 0xffffffffu && f + 8 <= x + 4 + sz)
                    usize = rd64(f), f += 8;
                if (csize == 0xffffffffu && f + 8 <= x + 4 + sz)
                    csize = rd64(f), f += 8;
                if (loff == 0xffffffffu && f + 8 <= x + 4 + sz)
                    loff = rd64(f);
            }
            x += 4 + sz;
        }
        char name[1024];
        snprintf(name, sizeof name, "%.*s", (int)nlen, (const char *)z + pos + 46);
        pos += 46 + nlen + xlen + clen;
        if (method != 0) {
            d2_err_set(err, D2_ERR_UNSUPPORTED,
                       "%s: member '%s' is compressed; only numpy.savez archives (stored members) "
                       "are supported, not savez_compressed", path, name);
            goto done;
        }
        if (loff + 30 > len || rd32(z + loff) != 0x04034b50) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: corrupt zip member '%s'", path, name);
            goto done;
        }
        uint64_t data = loff + 30 + rd16(z + loff + 26) + rd16(z + loff + 28);
        if (data + csize > len || csize != usize) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: truncated zip member '%s'", path, name);
            goto done;
        }
        size_t nl = strlen(name);
        if (nl > 4 && strcmp(name + nl - 4, ".npy") == 0)
            name[nl - 4] = '\0';
        char what[1100];
        snprintf(what, sizeof what, "%s:%s", path, name);
        d2_tensor *t = d2_npy_parse(z + data, (size_t)csize, what, err);
        if (!t)
            goto done;
        int r = fn(ctx, name, t, err);
        d2_tensor_unref(t);
        if (r != 0) {
            rc = r;
            goto done;
        }
    }
    rc = 0;
done:
    d2_free(z);
    return rc;
}

/* ======================================================================
 * Command-line helpers (the dy2st convert/program/save commands run a
 * small driver script that calls these)
 * ====================================================================== */

int d2_jit_parse_input(const char *text, char *name, size_t name_size, d2_dtype *dt,
                       d2_shape *shape, d2_err *err)
{
    const char *colon = strchr(text, ':');
    if (!colon || colon == text)
        return d2_err_set(err, D2_ERR_INVALID,
                          "bad input '%s' (expected NAME:DTYPE[DIMS], e.g. x:float32[-1,784])",
                          text);
    snprintf(name, name_size, "%.*s", (int)(colon - text), text);
    const char *p = colon + 1, *br = strchr(p, '[');
    size_t dl = br ? (size_t)(br - p) : strlen(p);
    int d = d2_dtype_parse(p, dl);
    if (d < 0 || !d2_dtype_supported((d2_dtype)d))
        return d2_err_set(err, D2_ERR_INVALID, "bad input '%s': unknown dtype '%.*s'", text,
                          (int)dl, p);
    *dt = (d2_dtype)d;
    shape->ndim = 0;
    if (!br)
        return 0;
    p = br + 1;
    while (*p == ' ')
        p++;
    if (*p == ']')
        return p[1] ? d2_err_set(err, D2_ERR_INVALID, "bad input '%s': text after ']'", text) : 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (shape->ndim >= D2_MAX_DIMS)
            return d2_err_set(err, D2_ERR_INVALID, "bad input '%s': more than %d dims", text,
                              D2_MAX_DIMS);
        int64_t v;
        if (strncmp(p, "None", 4) == 0 || *p == '?') {
            v = -1;
            p += *p == '?' ? 1 : 4;
        } else {
            char *end;
            long long ll = strtoll(p, &end, 10);
            if (end == p || ll < -1)
                return d2_err_set(err, D2_ERR_INVALID, "bad input '%s': bad dim", text);
            v = ll;
            p = end;
        }
        shape->dims[shape->ndim++] = v;
        while (*p == ' ')
            p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ']' && p[1] == '\0')
            return 0;
        return d2_err_set(err, D2_ERR_INVALID, "bad input '%s': expected ',' or ']'", text);
    }
}

/* _jst._input_spec("x:float32[-1,784]") -> InputSpec */
static d2_obj *C_input_spec(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "_jst._input_spec", "text", args, nargs, kw, a) < 0)
        return NULL;
    const char *text = d2_to_cstr(I, a[0], "text");
    if (!text)
        return NULL;
    char name[256];
    d2_dtype dt;
    d2_shape sh;
    d2_err err = {0};
    if (d2_jit_parse_input(text, name, sizeof name, &dt, &sh, &err) < 0)
        return d2_raise(I, "ValueError", "%s", err.msg);
    d2_obj *shape = d2_list_new(I, (size_t)sh.ndim);
    for (int d = 0; shape && d < sh.ndim; d++) {
        D2_AS(d2_list, shape)->items[d] = d2_int_new(I, sh.dims[d]);
        if (!D2_AS(d2_list, shape)->items[d])
            d2_setref(&shape, NULL);
    }
    d2_obj *nm = d2_str_from(I, name);
    d2_obj *sp = shape && nm ? d2_instance_new(I, JS(I)->spec_cls) : NULL;
    if (sp && spec_set(I, sp, shape, d2_pd_dtype_obj(I, dt, false), nm) < 0)
        d2_setref(&sp, NULL);
    d2_decref(shape);
    d2_decref(nm);
    return sp;
}

/* _jst._load_file(path): imports a model file as a module named after it
 * (so its `if __name__ == "__main__":` block does not run). */
static d2_obj *C_load_file(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "_jst._load_file", "path", args, nargs, kw, a) < 0)
        return NULL;
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base);
    if (bl < 4 || strcmp(base + bl - 3, ".py") != 0)
        return d2_raise(I, "ValueError", "%s: a model file must end in .py", path);
    char mod[256];
    snprintf(mod, sizeof mod, "%.*s", (int)(bl - 3), base);
    for (char *c = mod; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            *c = '_';
    if (d2_dict_get_str(I, I->modules, mod))
        return d2_raise(I, "ImportError", "%s: a module named '%s' is already loaded", path, mod);
    if (!file_exists(path))
        return d2_raise(I, "FileNotFoundError", "%s: no such file", path);
    char *fake = d2_arena_printf(I->arena, "%.*s%s.py", (int)(base - path), path, mod);
    if (!fake)
        return nomem(I);
    if (strcmp(fake, path) != 0)
        return d2_raise(I, "ValueError",
                        "%s: the file name must be a valid module name (letters, digits, _)",
                        path);
    d2_module from;
    memset(&from, 0, sizeof from);
    from.path = path;
    return d2_import(I, mod, &from);
}

/* _jst._resolve(module, name): what NAME names in a model file: a Layer
 * class (instantiated with no arguments), a function without required
 * parameters that returns a Layer (called), a Layer instance, or a function
 * to convert. Layers are put in eval mode. name None: build_model. */
static d2_obj *C_resolve(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[2] = {NULL};
    if (d2_parse_args(I, "_jst._resolve", "module, name=None", args, nargs, kw, a) < 0)
        return NULL;
    if (a[0]->kind != D2_OBJ_MODULE)
        return d2_raise(I, "TypeError", "_jst._resolve: expected a module");
    d2_module *m = D2_AS(d2_module, a[0]);
    const char *name = a[1]->kind == D2_OBJ_NONE ? "build_model" : cstr(a[1]);
    if (!name)
        return d2_raise(I, "TypeError", "_jst._resolve: the name must be a string");
    d2_obj *v = d2_dict_get_str(I, m->dict, name);
    if (!v) {
        if (a[1]->kind == D2_OBJ_NONE)
            return d2_raise(I, "NameError",
                            "%s defines no build_model(); name the Layer class or function as "
                            "FILE.py:NAME", m->path ? m->path : m->name);
        return d2_raise(I, "NameError", "%s has no '%s'", m->path ? m->path : m->name, name);
    }
    d2_obj *r = NULL;
    if (v->kind == D2_OBJ_CLASS) {
        r = d2_call(I, v, NULL, 0, NULL);
    } else if (v->kind == D2_OBJ_FUNCTION && !fattr(I, v, "_dy2st_static")) {
        d2_function *f = D2_AS(d2_function, v);
        const d2_ast_arguments *fa = f->args;
        size_t required = fa ? fa->posonlyargs.n + fa->args.n : 0;
        size_t ndef = f->defaults ? f->defaults->n : 0;
        bool kwreq = false;
        for (uint32_t i = 0; fa && i < fa->kwonlyargs.n; i++)
            if (!fa->kw_defaults.items[i])
                kwreq = true;
        if (required <= ndef && !kwreq) {
            r = d2_call(I, v, NULL, 0, NULL);
            if (r && !d2_jit_is_layer(I, r)) {
                d2_raise(I, "TypeError",
                         "%s() takes no arguments, so it was called to build the model, but it "
                         "returned a %s, not a paddle.nn.Layer",
                         name, d2_type_name(r));
                d2_decref(r);
                return NULL;
            }
        } else {
            r = d2_incref(v);
        }
    } else {
        r = d2_incref(v);
    }
    if (r && d2_jit_is_layer(I, r)) {
        d2_obj *e = d2_call_method(I, r, "eval", NULL, 0, NULL);
        if (!e)
            d2_setref(&r, NULL);
        d2_decref(e);
    }
    return r;
}

/* _jst._program(target, specs, dot) -> the Program's text form (or DOT). */
static d2_obj *C_program(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[3] = {NULL};
    if (d2_parse_args(I, "_jst._program", "target, specs=None, dot=False", args, nargs, kw, a) < 0)
        return NULL;
    d2_program *p = program_for(I, a[0], a[1]);
    if (!p)
        return NULL;
    char *text = a[2] == I->true_ ? d2_program_dot(p) : d2_program_print(p, false);
    d2_program_free(p);
    if (!text)
        return nomem(I);
    d2_obj *s = d2_str_from(I, text);
    d2_free(text);
    return s;
}

/* _jst._save(target, specs, path): writes exactly path. */
static d2_obj *C_save(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[3] = {NULL};
    if (d2_parse_args(I, "_jst._save", "target, specs, path", args, nargs, kw, a) < 0)
        return NULL;
    const char *path = d2_to_cstr(I, a[2], "path");
    if (!path)
        return NULL;
    d2_program *p = program_for(I, a[0], a[1]);
    if (!p)
        return NULL;
    d2_err err = {0};
    int rc = d2_model_save(p, path, &err);
    d2_program_free(p);
    return rc < 0 ? d2_raise_err(I, &err) : d2_none(I);
}

/* _jst._stats(): {"decorate_s": seconds spent making to_static functions
 * (the transforms run there), "decorated": how many}; for the benchmark,
 * which counts the conversion the decorator does while a module loads. */
static d2_obj *C_stats(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    if (d2_parse_args(I, "_jst._stats", "", args, nargs, kw, NULL) < 0)
        return NULL;
    d2_obj *d = d2_dict_new(I);
    d2_obj *t = d2_float_new(I, JS(I)->decorate_s);
    d2_obj *n = d2_int_new(I, JS(I)->decorated);
    if (!d || !t || !n || d2_dict_set_str(I, D2_AS(d2_dict, d), "decorate_s", t) < 0 ||
        d2_dict_set_str(I, D2_AS(d2_dict, d), "decorated", n) < 0)
        d2_setref(&d, NULL);
    d2_decref(t);
    d2_decref(n);
    return d;
}

/* _jst._cache_size(f): how many Programs the to_static function f (or a
 * bound method of it) has compiled; for tests. */
static d2_obj *C_cache_size(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "_jst._cache_size", "f", args, nargs, kw, a) < 0)
        return NULL;
    d2_obj *f = a[0];
    if (f->kind == D2_OBJ_BOUND_METHOD)
        f = D2_AS(d2_bound_method, f)->func;
    sfn *s = f->kind == D2_OBJ_FUNCTION ? wrapper_state(I, f) : NULL;
    if (!s)
        return d2_raise(I, "TypeError", "_jst._cache_size: not a to_static function");
    int64_t n = 0;
    for (entry *e = s->entries; e; e = e->next)
        n++;
    return d2_int_new(I, n);
}

typedef struct npz_ctx {
    d2_interp *I;
    d2_obj *dict;
    bool prefixed; /* only "param/<key>" members */
} npz_ctx;

static int npz_param(void *vctx, const char *name, d2_tensor *t, d2_err *err)
{
    npz_ctx *c = vctx;
    const char *key = name;
    if (c->prefixed) {
        if (strncmp(name, "param/", 6) != 0)
            return 0;
        key += 6;
    }
    d2_obj *v = d2_tensor_wrap(c->I, t);
    int rc = v ? d2_dict_set_str(c->I, D2_AS(d2_dict, c->dict), key, v) : -1;
    d2_decref(v);
    if (rc < 0)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    return 0;
}

static int npz_has_prefix(void *vctx, const char *name, d2_tensor *t, d2_err *err)
{
    D2_UNUSED(t);
    D2_UNUSED(err);
    if (strncmp(name, "param/", 6) == 0)
        *(bool *)vctx = true;
    return 0;
}

/* _jst._load_npz(path): every member of an .npz as a dict name -> Tensor
 * (on the CPU), for scripts that compare outputs with stored ones. */
static d2_obj *C_load_npz(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "_jst._load_npz", "path", args, nargs, kw, a) < 0)
        return NULL;
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    npz_ctx c = {I, d2_dict_new(I), false};
    if (!c.dict)
        return NULL;
    d2_err err = {0};
    if (d2_jit_npz_load(path, npz_param, &c, &err) < 0) {
        d2_decref(c.dict);
        return err.code == D2_ERR_IO ? d2_raise(I, "FileNotFoundError", "%s", err.msg)
                                     : d2_raise_err(I, &err);
    }
    return c.dict;
}

/* Sets dict[name] = Tensor for each array of a paddle.save pickle
 * (.pdparams, .pdopt), read by the restricted unpickler. */
static int pickle_to_dict(d2_interp *I, const char *path, d2_obj *dict, d2_err *err)
{
    d2_pickle_params pp;
    if (d2_pickle_load_params(path, &pp, err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < pp.n; i++) {
        d2_obj *v = d2_tensor_wrap(I, pp.items[i].tensor);
        rc = v ? d2_dict_set_str(I, D2_AS(d2_dict, dict), pp.items[i].name, v) : -1;
        d2_decref(v);
    }
    d2_pickle_params_free(&pp);
    if (rc < 0)
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    return rc;
}

/* paddle.load(path): the dict name -> Tensor of a file paddle.save wrote
 * (nested dicts flattened with '.'; see pickle.h). */
static d2_obj *P_load(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[1] = {NULL};
    if (d2_parse_args(I, "paddle.load", "path", args, nargs, kw, a) < 0)
        return NULL;
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    d2_obj *dict = d2_dict_new(I);
    if (!dict)
        return NULL;
    d2_err err = {0};
    if (pickle_to_dict(I, path, dict, &err) < 0) {
        d2_decref(dict);
        return err.code == D2_ERR_IO ? d2_raise(I, "FileNotFoundError", "%s", err.msg)
                                     : d2_raise_err(I, &err);
    }
    return dict;
}

/* _jst._load_params(layer, path): sets the Layer's state_dict from an .npz
 * (members "param/<key>" when there are any, else every member) or from a
 * paddle.save pickle (.pdparams). Returns the number of entries set. */
static d2_obj *C_load_params(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                             d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *a[2] = {NULL};
    if (d2_parse_args(I, "_jst._load_params", "layer, path", args, nargs, kw, a) < 0)
        return NULL;
    const char *path = d2_to_cstr(I, a[1], "path");
    if (!path)
        return NULL;
    if (!d2_jit_is_layer(I, a[0]))
        return d2_raise(I, "TypeError", "--params needs a Layer, got %s", d2_type_name(a[0]));
    size_t pl = strlen(path);
    bool npz = pl >= 4 && strcmp(path + pl - 4, ".npz") == 0;
    bool prefixed = false;
    d2_err err = {0};
    if (npz && d2_jit_npz_load(path, npz_has_prefix, &prefixed, &err) < 0)
        return err.code == D2_ERR_IO ? d2_raise(I, "FileNotFoundError", "%s", err.msg)
                                     : d2_raise_err(I, &err);
    npz_ctx c = {I, d2_dict_new(I), prefixed};
    if (!c.dict)
        return NULL;
    if (npz ? d2_jit_npz_load(path, npz_param, &c, &err) < 0
            : pickle_to_dict(I, path, c.dict, &err) < 0) {
        d2_decref(c.dict);
        return err.code == D2_ERR_IO ? d2_raise(I, "FileNotFoundError", "%s", err.msg)
                                     : d2_raise_err(I, &err);
    }
    /* every key must name an entry of the state_dict */
    d2_obj *sd = d2_call_method(I, a[0], "state_dict", NULL, 0, NULL);
    if (!sd) {
        d2_decref(c.dict);
        return NULL;
    }
    d2_dict *pd = D2_AS(d2_dict, c.dict);
    for (size_t i = 0; sd->kind == D2_OBJ_DICT && i < pd->n; i++) {
        if (!pd->entries[i].key)
            continue;
        if (!d2_dict_get(I, D2_AS(d2_dict, sd), pd->entries[i].key)) {
            d2_raise(I, "KeyError", "%s: '%s' is not in the model's state_dict", path,
                     cstr(pd->entries[i].key));
            d2_decref(sd);
            d2_decref(c.dict);
            return NULL;
        }
    }
    d2_decref(sd);
    d2_obj *r = d2_call_method(I, a[0], "set_state_dict", &c.dict, 1, NULL);
    size_t n = pd->live;
    d2_decref(c.dict);
    if (!r)
        return NULL;
    d2_decref(r);
    return d2_int_new(I, (int64_t)n);
}

/* ======================================================================
 * Registration
 * ====================================================================== */

int d2_jit_add_fns(d2_interp *I, d2_module *m, const d2_fn_entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (d2_module_add_fn(I, m, v[i].name, v[i].fn, NULL) < 0)
            return -1;
    return 0;
}

d2_class *d2_jit_new_class(d2_interp *I, d2_module *m, const char *name, d2_obj_kind layout,
                           const d2_fn_entry *methods, size_t n)
{
    d2_class *c = d2_class_new_builtin(I, name, NULL, layout, m);
    if (!c)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (d2_class_add_method(I, c, methods[i].name, methods[i].fn) < 0)
            return NULL;
    if (m && d2_dict_set_str(I, m->dict, name, (d2_obj *)c) < 0)
        return NULL;
    return c;
}

d2_module *d2_jit_get_module(d2_interp *I, const char *name)
{
    d2_obj *o = d2_dict_get_str(I, I->modules, name);
    if (o && o->kind == D2_OBJ_MODULE)
        return D2_AS(d2_module, d2_incref(o));
    return d2_module_new_builtin(I, name);
}

int d2_jit_init(d2_interp *I)
{
    D2_MODE(I)->up.raise_if_undef = d2_jit_raise_if_undef;
    if (JS(I))
        return 0;
    jit_state *s = d2_calloc(1, sizeof *s);
    if (!s) {
        nomem(I);
        return -1;
    }
    I->ext[D2_EXT_JIT] = s;
    I->ext_fini[D2_EXT_JIT] = state_fini;
    s->enabled = true;
    s->converted = d2_dict_new(I);
    s->jst = d2_jit_get_module(I, "_jst");
    s->jit = d2_jit_get_module(I, "paddle.jit");
    s->statics = d2_jit_get_module(I, "paddle.static");
    if (!s->converted || !s->jst || !s->jit || !s->statics)
        return -1;
    static const d2_fn_entry jst_fns[] = {
        {"IfElse", JST_IfElse}, {"IfExp", JST_IfExp}, {"While", JST_While},
        {"For", JST_For}, {"Range", JST_Range}, {"Enumerate", JST_Enumerate},
        {"And", JST_And}, {"Or", JST_Or}, {"Not", JST_Not},
        {"Print", JST_Print}, {"Assert", JST_Assert}, {"Cast", JST_Cast}, {"Shape", JST_Shape},
        {"Len", JST_Len}, {"Call", JST_Call},
        {"_input_spec", C_input_spec}, {"_load_file", C_load_file}, {"_resolve", C_resolve},
        {"_program", C_program}, {"_save", C_save}, {"_load_params", C_load_params},
        {"_cache_size", C_cache_size}, {"_stats", C_stats}, {"_load_npz", C_load_npz},
    };
    if (d2_jit_add_fns(I, s->jst, jst_fns, D2_COUNTOF(jst_fns)) < 0)
        return -1;
    static const d2_fn_entry uv_m[] = {
        {"__new__", UV_new}, {"__repr__", UV_repr}, {"__getattr__", UV_raise},
        {"__call__", UV_raise}, {"__bool__", UV_raise}, {"__len__", UV_raise},
        {"__iter__", UV_raise}, {"__getitem__", UV_raise}, {"__neg__", UV_raise},
        {"__add__", UV_raise}, {"__radd__", UV_raise}, {"__sub__", UV_raise},
        {"__rsub__", UV_raise}, {"__mul__", UV_raise}, {"__rmul__", UV_raise},
        {"__truediv__", UV_raise}, {"__rtruediv__", UV_raise}, {"__floordiv__", UV_raise},
        {"__mod__", UV_raise}, {"__pow__", UV_raise}, {"__matmul__", UV_raise},
        {"__lt__", UV_raise}, {"__le__", UV_raise}, {"__gt__", UV_raise},
        {"__ge__", UV_raise},
    };
    static const d2_fn_entry ta_m[] = {
        {"append", TA_append}, {"extend", TA_extend}, {"__getitem__", TA_getitem},
        {"__len__", TA_unsupported}, {"__iter__", TA_unsupported}, {"pop", TA_unsupported},
        {"insert", TA_unsupported}, {"__repr__", TA_repr},
    };
    static const d2_fn_entry rg_m[] = {{"__iter__", RG_iter}, {"__len__", RG_iter}};
    static const d2_fn_entry is_m[] = {{"__init__", IS_init}, {"__repr__", IS_repr},
                                       {"batch", IS_batch}, {"unbatch", IS_unbatch}};
    static const d2_fn_entry tl_m[] = {{"__call__", TL_forward}, {"forward", TL_forward},
                                       {"eval", TL_mode},        {"train", TL_mode},
                                       {"program", TL_program}};
    s->undef_cls =
        d2_jit_new_class(I, s->jst, "UndefinedVar", D2_OBJ_OPAQUE, uv_m, D2_COUNTOF(uv_m));
    s->array_cls =
        d2_jit_new_class(I, s->jst, "TensorArray", D2_OBJ_INSTANCE, ta_m, D2_COUNTOF(ta_m));
    s->range_cls =
        d2_jit_new_class(I, s->jst, "TensorRange", D2_OBJ_INSTANCE, rg_m, D2_COUNTOF(rg_m));
    s->slot_cls = d2_jit_new_class(I, NULL, "_Slot", D2_OBJ_OPAQUE, NULL, 0);
    s->sfn_cls = d2_jit_new_class(I, NULL, "StaticFunctionState", D2_OBJ_OPAQUE, NULL, 0);
    s->prog_cls = d2_jit_new_class(I, NULL, "LoadedProgram", D2_OBJ_OPAQUE, NULL, 0);
    s->spec_cls =
        d2_jit_new_class(I, s->statics, "InputSpec", D2_OBJ_INSTANCE, is_m, D2_COUNTOF(is_m));
    s->loaded_cls = d2_jit_new_class(I, s->jit, "TranslatedLayer", D2_OBJ_INSTANCE, tl_m,
                                     D2_COUNTOF(tl_m));
    if (!s->undef_cls || !s->array_cls || !s->range_cls || !s->slot_cls || !s->sfn_cls ||
        !s->prog_cls || !s->spec_cls || !s->loaded_cls)
        return -1;
    /* UndefinedVar is also a function of _jst in the converted code */
    d2_obj *ft = d2_builtin_new(I, "from_tensor", IS_from_tensor, NULL, NULL);
    int rc = ft ? d2_dict_set_str(I, s->spec_cls->dict, "from_tensor", ft) : -1;
    if (rc == 0)
        rc = d2_dict_set_str(I, s->spec_cls->dict, "from_numpy", ft);
    d2_decref(ft);
    if (rc < 0)
        return -1;
    static const d2_fn_entry jit_fns[] = {
        {"to_static", J_to_static},           {"not_to_static", J_not_to_static},
        {"enable_to_static", J_enable_to_static}, {"save", J_save},
        {"load", J_load},
    };
    if (d2_jit_add_fns(I, s->jit, jit_fns, D2_COUNTOF(jit_fns)) < 0)
        return -1;
    /* paddle.jit.to_static as fluid.dygraph.declarative and jit.declarative */
    d2_obj *ts = d2_dict_get_str(I, s->jit->dict, "to_static");
    d2_obj *dyg = d2_dict_get_str(I, I->modules, "paddle.fluid.dygraph");
    if (!ts || d2_dict_set_str(I, s->jit->dict, "declarative", ts) < 0)
        return -1;
    if (dyg && dyg->kind == D2_OBJ_MODULE &&
        (d2_dict_set_str(I, D2_AS(d2_module, dyg)->dict, "declarative", ts) < 0 ||
         d2_dict_set_str(I, D2_AS(d2_module, dyg)->dict, "jit", (d2_obj *)s->jit) < 0))
        return -1;
    /* paddle.concat / paddle.stack accept a list grown in a tensor loop */
    d2_obj *pd = d2_dict_get_str(I, I->modules, "paddle");
    if (pd && pd->kind == D2_OBJ_MODULE) {
        d2_dict *pdd = D2_AS(d2_module, pd)->dict;
        s->orig_concat = d2_incref(d2_dict_get_str(I, pdd, "concat"));
        s->orig_stack = d2_incref(d2_dict_get_str(I, pdd, "stack"));
        if (s->orig_concat && s->orig_stack &&
            (d2_module_add_fn(I, D2_AS(d2_module, pd), "concat", P_concat, NULL) < 0 ||
             d2_module_add_fn(I, D2_AS(d2_module, pd), "stack", P_stack, NULL) < 0))
            return -1;
        if (d2_module_add_fn(I, D2_AS(d2_module, pd), "load", P_load, NULL) < 0)
            return -1;
        if (d2_dict_set_str(I, pdd, "jit", (d2_obj *)s->jit) < 0 ||
            d2_dict_set_str(I, pdd, "static", (d2_obj *)s->statics) < 0)
            return -1;
    }
    return 0;
}
