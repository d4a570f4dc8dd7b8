/* jit_values.c - what the converted code passes around: UndefinedVar, TensorArray (with
 * paddle.concat / paddle.stack over it), output templates; the op, container and Program
 * helpers the other jit files share. */
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"

#include "lib/paddle/tensor_api.h"

#include <stdio.h>
#include <string.h>

/* ======================================================================
 * Small helpers
 * ====================================================================== */

int d2_jit_fattr_set(d2_interp *I, d2_obj *f, const char *name, d2_obj *v)
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

int d2_jit_alias(d2_interp *I, const char *mod, const char *name, d2_obj *v)
{
    d2_obj *m = d2_dict_get_str(I, I->modules, mod);
    if (!m || m->kind != D2_OBJ_MODULE || !v)
        return 0;
    return d2_dict_set_str(I, D2_AS(d2_module, m)->dict, name, v);
}

bool d2_jit_is_layer(d2_interp *I, d2_obj *o)
{
    d2_obj *lc = d2_jit_mod_attr(I, "paddle.nn", "Layer");
    return o && lc && lc->kind == D2_OBJ_CLASS && o->kind == D2_OBJ_INSTANCE &&
           d2_isinstance(I, o, D2_AS(d2_class, lc));
}

/* Runs (or, in static mode, appends) a one-output op; frees b. New ref or NULL. */
d2_obj *d2_jit_op_n(d2_interp *I, d2_op_id op, d2_obj **in, int n_in, d2_ab *b)
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

/* A constant tensor of dtype dt and shape s filled with v. */
d2_obj *d2_jit_constant(d2_interp *I, d2_dtype dt, const d2_shape *s, double v)
{
    d2_ab b;
    d2_ab_init(&b, D2_OP_full);
    if (s && s->ndim)
        d2_ab_ints(&b, "shape", s->dims, s->ndim);
    d2_ab_float(&b, "value", v);
    d2_ab_int(&b, "dtype", dt);
    return d2_jit_op_n(I, D2_OP_full, NULL, 0, &b);
}

d2_obj *d2_jit_cast_to(d2_interp *I, d2_obj *x, d2_dtype dt)
{
    if (TOBJ(x)->type.dtype == dt)
        return d2_incref(x);
    d2_ab b;
    d2_ab_init(&b, D2_OP_cast);
    d2_ab_int(&b, "dtype", dt);
    return op_1(I, D2_OP_cast, x, &b);
}

void d2_jit_type_text(const d2_type *t, char *buf, size_t n)
{
    char ts[160];
    d2_type_str(t, ts, sizeof ts);
    snprintf(buf, n, "%s%s", t->kind == D2_VALUE_ARRAY ? "an array of " : "", ts);
}

/* A variable name not yet used in p: base, base_1, base_2... */
void d2_jit_unique_name(const d2_program *p, const char *base, char *out, size_t n)
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
d2_obj *d2_jit_pack(d2_interp *I, d2_obj **v, size_t n)
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
int d2_jit_unpack(d2_interp *I, d2_obj *r, size_t n, d2_obj **out, const char *what)
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
void d2_jit_block_clear(d2_program *p, int b)
{
    d2_block *blk = &p->blocks[b];
    free_ops(blk, 0);
    blk->n_params = 0;
    blk->n_yields = 0;
}

build_mark d2_jit_block_mark(d2_interp *I)
{
    build_mark m = {0, 0};
    if (D2_MODE(I)->builder) {
        m.n_ops = D2_MODE(I)->builder->prog->blocks[D2_MODE(I)->builder->block].n_ops;
        m.n_blocks = D2_MODE(I)->builder->prog->n_blocks;
    }
    return m;
}

/* Drops the blocks made after m (their variables stay unused). */
void d2_jit_drop_blocks(d2_program *p, int n_blocks)
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
void d2_jit_rollback(d2_interp *I, build_mark m)
{
    if (!D2_MODE(I)->builder)
        return;
    d2_jit_drop_blocks(D2_MODE(I)->builder->prog, m.n_blocks);
    free_ops(&D2_MODE(I)->builder->prog->blocks[D2_MODE(I)->builder->block], m.n_ops);
}

/* The original file and line of a converted helper function ("if_true_24"
 * in "model.py (converted forward)" gives "model.py:24"); "" when unknown. */
void d2_jit_helper_where(d2_obj *fn, char *buf, size_t n)
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
d2_obj *d2_jit_new_undef(d2_interp *I, const char *name, const char *msg)
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
D2_FN(UV_new)
{
    const char *name = cstr(a[0]) ? cstr(a[0]) : "?";
    char msg[400];
    snprintf(msg, sizeof msg,
             "cannot access local variable '%s' where it is not associated with a value", name);
    return d2_jit_new_undef(I, name, msg);
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
d2_obj *d2_jit_raise_undef(d2_interp *I, d2_obj *u)
{
    return UV_raise(I, u, NULL, 0, NULL);
}

bool d2_jit_raise_if_undef(d2_interp *I, d2_obj *o)
{
    if (!JS(I) || !is_undef(I, o))
        return false;
    d2_jit_raise_undef(I, o);
    return true;
}

/* ======================================================================
 * TensorArray: a Python list grown inside a tensor loop
 * ====================================================================== */

/* A TensorArray over symbolic array tensor t; info (shared by copies) says
 * whether the element dtype is still a guess ("loose") and what an append
 * wanted ("want"). NULL info makes a fresh one. */
d2_obj *d2_jit_new_tarray(d2_interp *I, d2_obj *t, d2_obj *info, bool loose)
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

static bool info_loose(d2_interp *I, d2_obj *info)
{
    d2_obj *l = info && info->kind == D2_OBJ_DICT ? d2_dict_get_str(I, D2_AS(d2_dict, info), "loose")
                                                   : NULL;
    return l == I->true_;
}

/* The dtype an append asked a loose array for, or -1. */
int d2_jit_info_want(d2_interp *I, d2_obj *info)
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
        return d2_jit_raise_undef(I, x);
    if (is_pynum(x))
        return d2_jit_constant(I, adt, NULL, num_value(x));
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
    return rc < 0 ? NULL : d2_jit_cast_to(I, x, adt);
}

D2_FN(TA_append)
{
    d2_obj *x = array_element(I, self, a[0]);
    if (!x)
        return NULL;
    d2_obj *t = tarray_t(I, self);
    d2_obj *len = op_1(I, D2_OP_array_length, t, NULL);
    d2_obj *in[3] = {t, len, x};
    d2_obj *out = len ? d2_jit_op_n(I, D2_OP_array_write, in, 3, NULL) : NULL;
    d2_decref(len);
    d2_decref(x);
    if (!out)
        return NULL;
    int rc = iset(I, self, "_t", out);
    d2_decref(out);
    return rc < 0 ? NULL : d2_none(I);
}

D2_FN(TA_extend)
{
    size_t n;
    d2_obj **items = d2_jit_seq_items(a[0], &n);
    if (!items && n == 0 && a[0]->kind != D2_OBJ_TUPLE && a[0]->kind != D2_OBJ_LIST)
        return d2_raise(I, "TypeError",
                        "extend of a list grown in a tensor loop takes a list or tuple");
    for (size_t i = 0; i < n; i++) {
        d2_obj *r = TA_append(I, self, &items[i], NULL);
        if (!r)
            return NULL;
        d2_decref(r);
    }
    return d2_none(I);
}

/* The index of a list grown in a tensor loop: an int or an integer tensor,
 * as an int64 tensor (negative counts from the end, in the kernels). */
static d2_obj *array_index(d2_interp *I, d2_obj *i)
{
    if (i->kind == D2_OBJ_INT || i->kind == D2_OBJ_BOOL)
        return d2_jit_constant(I, D2_I64, NULL, num_value(i));
    if (is_tensor(i) && d2_dtype_is_int(TOBJ(i)->type.dtype))
        return d2_incref(i);
    return d2_raise(I, "TypeError",
                    "a list grown inside a tensor loop is indexed by an int or an integer "
                    "tensor, not %s", d2_type_name(i));
}

D2_FN(TA_getitem)
{
    d2_obj *idx = array_index(I, a[0]);
    d2_obj *r = idx ? op_2(I, D2_OP_array_read, tarray_t(I, self), idx, NULL) : NULL;
    d2_decref(idx);
    return r;
}

/* a[i] = x: the array is rewritten functionally (array_write), as append. */
D2_FN(TA_setitem)
{
    d2_obj *idx = array_index(I, a[0]);
    d2_obj *x = idx ? array_element(I, self, a[1]) : NULL;
    d2_obj *in[3] = {tarray_t(I, self), idx, x};
    d2_obj *out = x ? d2_jit_op_n(I, D2_OP_array_write, in, 3, NULL) : NULL;
    d2_decref(idx);
    d2_decref(x);
    int rc = out ? iset(I, self, "_t", out) : -1;
    d2_decref(out);
    return rc < 0 ? NULL : d2_none(I);
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
        d2_jit_type_text(&TOBJ(t)->type, ts, sizeof ts);
    return d2_str_printf(I, "TensorArray(%s)", t ? ts : "?");
}

/* A tensor array of the n tensors items, cast to dt, made in the current block. */
d2_obj *d2_jit_array_of(d2_interp *I, d2_obj **items, size_t n, d2_dtype dt)
{
    d2_ab b;
    d2_ab_init(&b, D2_OP_array_create);
    d2_ab_int(&b, "dtype", dt);
    d2_obj *t = d2_jit_op_n(I, D2_OP_array_create, NULL, 0, &b);
    for (size_t i = 0; t && i < n; i++) {
        d2_obj *x = d2_jit_cast_to(I, items[i], dt);
        d2_obj *idx = x ? d2_jit_constant(I, D2_I64, NULL, (double)i) : NULL;
        d2_obj *in[3] = {t, idx, x};
        d2_obj *nt = idx ? d2_jit_op_n(I, D2_OP_array_write, in, 3, NULL) : NULL;
        d2_decref(x);
        d2_decref(idx);
        d2_setref(&t, nt);
    }
    return t;
}

/* ======================================================================
 * Copies of mutable containers (each branch of a tensor if gets its own)
 * ====================================================================== */

static d2_obj *copy_item(d2_interp *I, d2_obj *o, void *ctx, int depth)
{
    D2_UNUSED(ctx);
    return d2_jit_copy_mutable(I, o, depth);
}

d2_obj *d2_jit_copy_mutable(d2_interp *I, d2_obj *o, int depth)
{
    if (depth > 64)
        return d2_incref(o);
    if (is_array(I, o))
        return d2_jit_new_tarray(I, tarray_t(I, o), tarray_info(I, o), false);
    return d2_jit_map_items(I, o, copy_item, NULL, depth);
}

/* ======================================================================
 * Templates: Python structures with markers where Program values go
 * ====================================================================== */

d2_obj *d2_jit_new_slot(d2_interp *I, int k)
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

static d2_obj *fill_item(d2_interp *I, d2_obj *tmpl, void *vals, int depth)
{
    return d2_jit_fill_slots(I, tmpl, vals, depth);
}

/* tmpl with marker k replaced by vals[k] (new reference). */
d2_obj *d2_jit_fill_slots(d2_interp *I, d2_obj *tmpl, d2_obj **vals, int depth)
{
    int k = slot_index(I, tmpl);
    if (k >= 0)
        return d2_incref(vals[k]);
    if (depth > 64)
        return d2_incref(tmpl);
    return d2_jit_map_items(I, tmpl, fill_item, vals, depth);
}

/* ======================================================================
 * paddle.concat / paddle.stack of a list grown in a tensor loop
 * ====================================================================== */

/* The join of TensorArray x; def->data is the array op. */
D2_FN(f_array_join)
{
    int64_t axis;
    if (d2_to_int64(I, a[1], "axis", &axis) < 0)
        return NULL;
    d2_op_id op = *(const d2_op_id *)def->data;
    d2_ab b;
    d2_ab_init(&b, op);
    d2_ab_int(&b, "axis", axis);
    return op_1(I, op, tarray_t(I, a[0]), &b);
}

static const d2_op_id JOIN_OPS[] = {D2_OP_array_concat, D2_OP_array_stack};
static const d2_def JOIN_DEFS[] = {
    D2_DEF_DATA("concat", "x, axis=0, name=None", f_array_join, "paddle.concat", &JOIN_OPS[0]),
    D2_DEF_DATA("stack", "x, axis=0, name=None", f_array_join, "paddle.stack", &JOIN_OPS[1]),
};

/* paddle.concat / paddle.stack: the original function unless x is a TensorArray. */
static d2_obj *array_join(d2_interp *I, d2_obj **args, size_t nargs, d2_dict *kw, bool stack)
{
    jit_state *s = JS(I);
    d2_obj *orig = stack ? s->orig_stack : s->orig_concat;
    if (nargs == 0 || !is_array(I, args[0]))
        return d2_call(I, orig, args, nargs, kw);
    return d2_def_call(I, &JOIN_DEFS[stack], NULL, args, nargs, kw);
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
 * Registration
 * ====================================================================== */

int d2_jit_values_init(d2_interp *I, jit_state *s)
{
    static const d2_def uv_defs[] = {D2_DEF("__new__", "name", UV_new, "UndefinedVar")};
    static const d2_fn_entry uv_m[] = {
        {"__repr__", UV_repr}, {"__getattr__", UV_raise},
        {"__call__", UV_raise}, {"__bool__", UV_raise}, {"__len__", UV_raise},
        {"__iter__", UV_raise}, {"__getitem__", UV_raise}, {"__neg__", UV_raise},
        {"__add__", UV_raise}, {"__radd__", UV_raise}, {"__sub__", UV_raise},
        {"__rsub__", UV_raise}, {"__mul__", UV_raise}, {"__rmul__", UV_raise},
        {"__truediv__", UV_raise}, {"__rtruediv__", UV_raise}, {"__floordiv__", UV_raise},
        {"__mod__", UV_raise}, {"__pow__", UV_raise}, {"__matmul__", UV_raise},
        {"__lt__", UV_raise}, {"__le__", UV_raise}, {"__gt__", UV_raise},
        {"__ge__", UV_raise},
    };
    static const d2_def ta_defs[] = {
        D2_DEF("append", "x", TA_append, "list.append"),
        D2_DEF("extend", "iterable", TA_extend, "list.extend"),
        D2_DEF("__getitem__", "index", TA_getitem, "list.__getitem__"),
        D2_DEF("__setitem__", "index, value", TA_setitem, "list.__setitem__"),
    };
    static const d2_fn_entry ta_m[] = {
        {"__len__", TA_unsupported}, {"__iter__", TA_unsupported}, {"pop", TA_unsupported},
        {"insert", TA_unsupported}, {"__repr__", TA_repr},
    };
    /* UndefinedVar is also a function of _jst in the converted code */
    s->undef_cls = d2_jit_new_class(I, s->jst, "UndefinedVar", D2_OBJ_OPAQUE, uv_defs,
                                    D2_COUNTOF(uv_defs), uv_m, D2_COUNTOF(uv_m));
    s->array_cls = d2_jit_new_class(I, s->jst, "TensorArray", D2_OBJ_INSTANCE, ta_defs,
                                    D2_COUNTOF(ta_defs), ta_m, D2_COUNTOF(ta_m));
    if (!s->undef_cls || !s->array_cls)
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
    }
    return 0;
}
