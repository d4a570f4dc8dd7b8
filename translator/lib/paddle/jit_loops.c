/* jit_loops.c - the _jst loop helpers of converted code: while_loop for loops whose test is a
 * tensor (While), for loops over tensors, Range and Enumerate. */
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"

#include "lib/paddle/tensor_api.h"

#include <stdio.h>
#include <string.h>

#define MAX_ATTEMPTS 8

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
    } else if (d2_jit_tensor_list(v)) {
        d2_list *l = D2_AS(d2_list, v);
        s->kind = SLOT_ARRAY;
        s->type.kind = D2_VALUE_ARRAY;
        s->type.dtype = l->n ? TOBJ(l->items[0])->type.dtype : D2_F32;
        s->type.shape.ndim = 0;
        /* the items' shape (dims that differ dynamic), so that the body reads them typed */
        if (l->n)
            s->type.shape = TOBJ(l->items[0])->type.shape;
        for (size_t i = 1; i < l->n; i++) {
            const d2_shape *es = &TOBJ(l->items[i])->type.shape;
            if (es->ndim != s->type.shape.ndim) {
                s->type.shape.ndim = 0;
                break;
            }
            for (int d = 0; d < es->ndim; d++)
                if (es->dims[d] != s->type.shape.dims[d])
                    s->type.shape.dims[d] = -1;
        }
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
    d2_jit_unique_name(B->prog, name, vn, sizeof vn);
    d2_err err = {0};
    int v = d2_program_add_var(B->prog, blk, vn, &s->type, &err);
    if (v < 0 || d2_block_add_param(B->prog, blk, v, &err) < 0) {
        d2_raise_err(I, &err);
        return NULL;
    }
    d2_obj *t = d2_pd_symbolic(I, B, v);
    if (!t || s->kind != SLOT_ARRAY)
        return t;
    d2_obj *a = d2_jit_new_tarray(I, t, s->info, false);
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
        if (!is_tensor(v) && !is_pynum(v) && !is_array(I, v) && !d2_jit_tensor_list(v)) {
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
                     d2_jit_kind_text(I, v, ka, sizeof ka));
            return -1;
        }
        vt = &TOBJ(tarray_t(I, v))->type;
        int want = s->own_info ? d2_jit_info_want(I, s->info) : -1;
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
        d2_jit_raise_undef(I, v);
        return -1;
    } else {
        d2_raise(I, "TypeError", "'%s' is %s before %s but %s after its body", name,
                 (d2_jit_type_text(&s->type, ka, sizeof ka), ka), what,
                 d2_jit_kind_text(I, v, kb, sizeof kb));
        return -1;
    }
    if (vt->kind != s->type.kind || vt->dtype != s->type.dtype) {
        if (s->adopt && vt->kind == s->type.kind) {
            s->type.dtype = vt->dtype;
            s->type.shape = vt->shape;
            *again = true;
            return 0;
        }
        d2_jit_type_text(&s->type, ka, sizeof ka);
        d2_jit_type_text(vt, kb, sizeof kb);
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
        d2_jit_type_text(&s->type, ka, sizeof ka);
        d2_jit_type_text(vt, kb, sizeof kb);
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
        t = d2_jit_constant(I, s->type.dtype, &s->type.shape, num_value(v));
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
            size_t n = 0;
            d2_obj **items = v->kind == D2_OBJ_LIST ? d2_jit_seq_items(v, &n) : NULL;
            t = d2_jit_array_of(I, items, n, s->type.dtype);
        }
    } else if (is_pynum(v)) {
        d2_shape sh = static_shape(&s->type.shape);
        t = d2_jit_constant(I, s->type.dtype, &sh, num_value(v));
    } else if (is_tensor(v)) {
        t = TOBJ(v)->type.dtype == s->type.dtype ? d2_incref(v)
                                                  : d2_jit_cast_to(I, v, s->type.dtype);
    } else {
        /* undefined before the loop: a placeholder the first iteration overwrites */
        d2_shape sh = static_shape(&s->type.shape);
        t = d2_jit_constant(I, s->type.dtype, &sh, 0);
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
        d2_jit_drop_blocks(p, body_b + 1);
        d2_jit_block_clear(p, cond_b);
        d2_jit_block_clear(p, body_b);
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
            int t = is_undef(I, pred) ? (d2_jit_raise_undef(I, pred), -1) : d2_truthy(I, pred);
            d2_decref(pred);
            if (t < 0)
                goto done;
            pred = d2_jit_constant(I, D2_BOOL, NULL, t);
            if (!pred)
                goto done;
        }
        int pv = d2_jit_pred_var(I, pred, what);
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
            if (split && slots[j].kind == SLOT_UNDEF && d2_jit_internal_name(names[j]) &&
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
    d2_ab b;
    d2_ab_init(&b, D2_OP_while_loop);
    d2_ab_int(&b, "cond", cond_b);
    d2_ab_int(&b, "body", body_b);
    if (d2_jit_emit_control(I, D2_OP_while_loop, ins, (int)nc, &b, (int)nc, outv) < 0)
        goto done;
    for (size_t j = 0; j < n; j++)
        out[j] = NULL;
    for (size_t k = 0; k < nc; k++) {
        out[map[k]] = d2_jit_wrap_var(I, outv[k], slots[map[k]].info);
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
        d2_jit_drop_blocks(D2_MODE(I)->builder->prog, nb);
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

/* build_while for callers outside this file (paddle.static.nn.while_loop). */
int d2_jit_build_while(d2_interp *I, size_t n, d2_obj **vals, const char **names,
                       d2_jit_loop_cond cond, d2_jit_loop_body body, void *ctx, const char *what,
                       d2_obj **out)
{
    loop_cbs cb = {cond, body, ctx};
    return build_while(I, n, vals, names, &cb, what, out);
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
    int rc = d2_jit_unpack(I, r, c->n, out, "a loop body");
    d2_decref(r);
    return rc;
}

D2_FN(JST_While)
{
    const char **names;
    size_t n, nv;
    d2_obj **init = d2_jit_seq_items(a[2], &nv);
    if (d2_jit_names_array(I, a[3], &names, &n) < 0)
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
        build_mark mark = d2_jit_block_mark(I);
        d2_obj *pred = d2_call(I, a[0], vars, n, NULL);
        if (!pred)
            goto done;
        if (is_sym(pred)) {
            d2_decref(pred);
            d2_jit_rollback(I, mark);
            char where[300], what[340];
            d2_jit_helper_where(a[0], where, sizeof where);
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
        int t = is_undef(I, pred) ? (d2_jit_raise_undef(I, pred), -1) : d2_truthy(I, pred);
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
    result = d2_jit_pack(I, vars, n);
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

D2_FN(JST_Enumerate)
{
    if (is_sym(a[0]) || is_array(I, a[0]))
        return new_range(I, "enumerate", a[0], a[1], I->none);
    if (is_inst(I, a[0], JS(I)->range_cls)) /* enumerate(range(tensor bounds)) */
        return new_range(I, "enumerate_range", a[0], a[1], I->none);
    d2_obj *en = d2_dict_get_str(I, I->builtins, "enumerate");
    if (!en)
        return d2_raise(I, "NameError", "enumerate");
    return d2_call(I, en, a, 2, NULL);
}

enum { FOR_RANGE, FOR_ROWS, FOR_ENUM, FOR_ARRAY, FOR_ENUM_RANGE };

typedef struct for_ctx {
    d2_obj *body_fn, *cond_fn; /* cond_fn NULL without a break */
    size_t n;                  /* the loop's own variables (after the index) */
    int kind;
    d2_obj *x;                 /* iterated tensor (rows), array tensor, or the range's start */
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
    d2_ab b;
    d2_ab_init(&b, D2_OP_reshape);
    int64_t one = 1;
    d2_ab_ints(&b, "shape", &one, 1);
    d2_obj *none = NULL;
    d2_obj *in[2] = {i, none};
    d2_obj *idx = d2_jit_op_n(I, D2_OP_reshape, in, 2, &b);
    if (!idx)
        return NULL;
    d2_ab_init(&b, D2_OP_gather);
    d2_ab_int(&b, "axis", 0);
    d2_obj *g = op_2(I, D2_OP_gather, x, idx, &b);
    d2_decref(idx);
    if (!g)
        return NULL;
    int64_t zero = 0;
    d2_ab_init(&b, D2_OP_squeeze);
    d2_ab_ints(&b, "axis", &zero, 1);
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
    case FOR_ENUM_RANGE: { /* (offset + (v - start) // step, v) */
        d2_obj *d = d2_binop(I, D2_OP_SUB, vals[0], c->x);
        d2_obj *q = d ? d2_binop(I, D2_OP_FLOOR_DIV, d, c->step) : NULL;
        d2_obj *k = q ? d2_binop(I, D2_OP_ADD, q, c->offset) : NULL;
        item = k ? d2_tuple_pack(I, 2, k, vals[0]) : NULL;
        d2_decref(d);
        d2_decref(q);
        d2_decref(k);
        break;
    }
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
    int rc = d2_jit_unpack(I, r, c->n, out + 1, "a loop body");
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
    d2_ab b;
    d2_ab_init(&b, D2_OP_slice);
    int64_t axes = 0, st = 0, en = 1;
    d2_ab_ints(&b, "axes", &axes, 1);
    d2_ab_ints(&b, "starts", &st, 1);
    d2_ab_ints(&b, "ends", &en, 1);
    d2_ab_ints(&b, "decrease_axis", &axes, 1);
    d2_obj *d = op_1(I, D2_OP_slice, s, &b);
    d2_decref(s);
    d2_obj *r = d ? d2_jit_cast_to(I, d, D2_I64) : NULL;
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
        return d2_jit_pack(I, g->vars, g->n);
    d2_obj **argv = d2_calloc(g->n + 2, sizeof *argv);
    if (!argv)
        return nomem(I);
    argv[0] = g->item;
    for (size_t j = 0; j < g->n; j++)
        argv[j + 1] = d2_jit_copy_mutable(I, g->vars[j], 0);
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
        if (d2_jit_cond_core(I, p, guard_branch, &g, n, names, what, NULL, next) < 0)
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
        int u = d2_jit_unpack(I, r, n, next, "a loop body");
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

D2_FN(JST_For)
{
    d2_obj *it = a[0], *body_fn = a[1], *cond_fn = a[4]->kind == D2_OBJ_NONE ? NULL : a[4];
    const char **names;
    size_t n, nv;
    d2_obj **init = d2_jit_seq_items(a[2], &nv);
    if (d2_jit_names_array(I, a[3], &names, &n) < 0)
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
    d2_jit_helper_where(body_fn, where, sizeof where);
    snprintf(what, sizeof what, "the for loop%s%s", where[0] ? " at " : "", where);
    for_ctx c = {body_fn, cond_fn, n, FOR_RANGE, NULL, NULL, one, zero, false};
    bool index_loop = false;
    if (is_inst(I, it, JS(I)->range_cls)) {
        const char *kind = cstr(iget(I, it, "kind"));
        index_loop = true;
        d2_obj *rg = it;
        if (kind && strcmp(kind, "enumerate_range") == 0) {
            rg = iget(I, it, "a");
            c.kind = FOR_ENUM_RANGE;
            c.offset = iget(I, it, "b");
            c.x = iget(I, rg, "a");
        }
        if (kind && (strcmp(kind, "range") == 0 || strcmp(kind, "enumerate_range") == 0)) {
            start = d2_incref(iget(I, rg, "a"));
            c.stop = iget(I, rg, "b");
            c.step = iget(I, rg, "c");
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
    result = d2_jit_pack(I, vars, n);
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
 * Registration
 * ====================================================================== */

int d2_jit_loops_init(d2_interp *I, jit_state *s)
{
    static const d2_def jst_defs[] = {
        D2_DEF("While", "cond_fn, body_fn, loop_vars, names", JST_While, "_jst.While"),
        D2_DEF("For", "iterable, body_fn, loop_vars, names, cond_fn=None", JST_For, "_jst.For"),
        D2_DEF("Enumerate", "iterable, start=0", JST_Enumerate, "_jst.Enumerate"),
    };
    static const d2_fn_entry rg_m[] = {{"__iter__", RG_iter}, {"__len__", RG_iter}};
    if (d2_module_add_defs(I, s->jst, jst_defs, D2_COUNTOF(jst_defs)) < 0 ||
        d2_module_add_fn(I, s->jst, "Range", JST_Range, NULL) < 0)
        return -1;
    s->range_cls = d2_jit_new_class(I, s->jst, "TensorRange", D2_OBJ_INSTANCE, NULL, 0, rg_m,
                                    D2_COUNTOF(rg_m));
    return s->range_cls ? 0 : -1;
}
