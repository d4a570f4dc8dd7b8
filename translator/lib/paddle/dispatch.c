/* dispatch.c - running ops (eager, static, traced): d2_apply_op; binary operators, dtype rules. */
#include "lib/paddle/paddle_priv.h"

#include <stdio.h>

#include "grad.h"
#include "syntax/ast.h"

/* ======================================================================
 * Running ops: eager, static, traced
 * ====================================================================== */

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
    d2_pd_type_of_tensor(h, &ty);
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
        d2_pd_raise_err_named(I, fname, &op, &err);
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

/* ======================================================================
 * The autograd tape: nodes recorded by eager ops
 * ====================================================================== */

void d2_pd_gnode_ref(d2_gnode *n) { n->refs++; }

void d2_pd_gnode_release(d2_gnode *n)
{
    for (int i = 0; i < n->n_in; i++)
        d2_setref(&n->in[i], NULL);
    for (int i = 0; i < n->n_out; i++) {
        d2_tensor_unref(n->out[i]);
        n->out[i] = NULL;
    }
    n->released = true;
}

/* Nodes whose last reference went while another node was being freed: freed
 * by the outermost unref, so a chain of thousands of ops does not recurse. */
static _Thread_local d2_gnode **dead;
static _Thread_local size_t n_dead, cap_dead;
static _Thread_local bool freeing;

static void gnode_free(d2_gnode *n)
{
    for (int i = 0; i < n->n_out; i++)
        if (n->acc[i])
            d2_decref(n->acc[i]);
    d2_pd_gnode_release(n);
    d2_attrs_free(&n->attrs);
    if (n->vt && n->vt->fini)
        n->vt->fini(n->ctx);
    d2_free(n);
}

void d2_pd_gnode_unref(d2_gnode *n)
{
    if (!n || --n->refs > 0)
        return;
    if (freeing) {
        if (n_dead == cap_dead) {
            size_t cap = cap_dead ? cap_dead * 2 : 64;
            d2_gnode **d = d2_realloc(dead, cap * sizeof *d);
            if (!d) { /* out of memory: free it here, recursing */
                gnode_free(n);
                return;
            }
            dead = d;
            cap_dead = cap;
        }
        dead[n_dead++] = n;
        return;
    }
    freeing = true;
    gnode_free(n);
    while (n_dead > 0)
        gnode_free(dead[--n_dead]);
    freeing = false;
    d2_free(dead);
    dead = NULL;
    cap_dead = 0;
}

void d2_pd_grad_clear(d2_tensor_obj *t)
{
    d2_gnode *n = t->grad_node;
    if (n && t->grad_slot < n->n_out && n->watch[t->grad_slot] == t)
        n->watch[t->grad_slot] = NULL;
    t->grad_node = NULL;
    t->grad_slot = 0;
    t->retain_grads = false;
    d2_obj *g = t->grad, *h = t->grad_hooks;
    t->grad = t->grad_hooks = NULL;
    if (g)
        d2_decref(g);
    if (h)
        d2_decref(h);
    d2_pd_gnode_unref(n);
}

/* Whether a gradient flows from an output of dtype dt: floats always;
 * integers when the op's rule differentiates an input that wants a gradient
 * (Paddle differentiates integer arithmetic and casts to integers, not
 * argmax or shape); bools never. */
static bool output_differentiable(d2_dtype dt, bool rule_input)
{
    if (d2_dtype_is_float(dt))
        return true;
    return dt != D2_BOOL && rule_input;
}

/* Tapes an eager op (vt NULL) or a custom node: a node over its inputs and
 * outputs' data; the outputs that carry a gradient point at it. Takes ctx
 * (freed by vt->fini when no node keeps it). 0, or -1 with MemoryError. */
static int tape_record(d2_interp *I, d2_op_id op, d2_obj **inputs, int n_in,
                       const d2_attrs *attrs, d2_obj **outs, int n_out, const d2_gnode_vt *vt,
                       void *ctx)
{
    bool rule_input = vt != NULL;
    for (int i = 0; !vt && i < n_in; i++)
        if (inputs[i] && !TOBJ(inputs[i])->stop_gradient && d2_op_grad(op) &&
            d2_op_input_differentiable(op, i))
            rule_input = true;
    bool any = false;
    for (int i = 0; i < n_out; i++) {
        d2_tensor_obj *o = TOBJ(outs[i]);
        bool diff = o->type.kind == D2_VALUE_TENSOR &&
                    output_differentiable(o->type.dtype, rule_input);
        o->stop_gradient = !diff;
        any |= diff;
    }
    if (!any) {
        if (vt && vt->fini)
            vt->fini(ctx);
        return 0;
    }
    size_t sz = sizeof(d2_gnode) + (size_t)n_in * sizeof(d2_obj *) +
                (size_t)n_out * (sizeof(d2_tensor *) + sizeof(d2_tensor_obj *) +
                                 sizeof(d2_obj *) + sizeof(bool));
    d2_gnode *n = d2_calloc(1, sz);
    bool bad = !n;
    if (n && !vt)
        bad = attrs ? d2_attrs_copy(&n->attrs, attrs, &(d2_err){0}) < 0
                    : (d2_attrs_init_default(d2_op_def(op), &n->attrs),
                       n->attrs.n != d2_op_def(op)->n_attrs);
    if (bad) {
        d2_free(n);
        if (vt && vt->fini)
            vt->fini(ctx);
        nomem(I);
        return -1;
    }
    n->op = op;
    n->vt = vt;
    n->ctx = ctx;
    n->n_in = n_in;
    n->n_out = n_out;
    n->in = (d2_obj **)(n + 1);
    n->out = (d2_tensor **)(n->in + n_in);
    n->watch = (d2_tensor_obj **)(n->out + n_out);
    n->acc = (d2_obj **)(n->watch + n_out);
    n->out_diff = (bool *)(n->acc + n_out);
    for (int i = 0; i < n_in; i++)
        n->in[i] = inputs[i] ? d2_incref(inputs[i]) : NULL;
    for (int i = 0; i < n_out; i++) {
        d2_tensor_obj *o = TOBJ(outs[i]);
        n->out[i] = d2_tensor_ref(o->t);
        n->out_diff[i] = !o->stop_gradient;
        if (n->out_diff[i]) {
            o->grad_node = n;
            o->grad_slot = i;
            n->refs++;
        }
    }
    return 0;
}

int d2_pd_tape_custom(d2_interp *I, d2_obj **inputs, int n_in, d2_obj **outs, int n_out,
                      const d2_gnode_vt *vt, void *ctx)
{
    bool any = false;
    for (int i = 0; i < n_in + n_out; i++) {
        d2_obj *o = i < n_in ? inputs[i] : outs[i - n_in];
        if (o && (!is_tensor(o) || !TOBJ(o)->t)) {
            if (vt->fini)
                vt->fini(ctx);
            d2_raise(I, "TypeError", "internal: a custom tape node over a non-eager value");
            return -1;
        }
        any |= i < n_in && o && !TOBJ(o)->stop_gradient;
    }
    if (!d2_pd_grad_enabled(I) || !any) {
        for (int i = 0; i < n_out; i++)
            TOBJ(outs[i])->stop_gradient = true;
        if (vt->fini)
            vt->fini(ctx);
        return 0;
    }
    return tape_record(I, D2_NUM_OPS, inputs, n_in, NULL, outs, n_out, vt, ctx);
}

/* d2_apply_op with the Python function's name for error messages. */
int d2_pd_apply_named(d2_interp *I, const char *fname, d2_op_id op, d2_obj **inputs, int n_in,
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
    /* no gradient flows through an op without one (zeros_like, argmax, ...) */
    if (!d2_pd_grad_enabled(I) || (d2_op_def(op)->flags & D2_OPF_NO_GRAD))
        sg = true;
    int rc;
    /* outside of a build, an op on a symbolic tensor of a static Program
     * (paddle.static.data after paddle.enable_static) extends that Program */
    d2_builder *owner = D2_MODE(I)->builder;
    for (int i = 0; !owner && i < n_in; i++)
        if (inputs[i] && is_sym(inputs[i]))
            owner = TOBJ(inputs[i])->builder;
    /* in static mode an op on a parameter (paddle.create_parameter, a Layer's weight) is an op
     * of the Program being built, as in Paddle, not a constant computed once */
    bool param = false;
    for (int i = 0; !owner && i < n_in; i++)
        param = param || (inputs[i] && TOBJ(inputs[i])->persistable);
    if (param && !D2_MODE(I)->tracer && D2_MODE(I)->up.static_param_builder &&
        D2_MODE(I)->up.static_param_builder(I, &owner) < 0)
        return -1;
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
        d2_err err;
        D2_ERR_FRESH(err);
        if (d2_op_run(eager_backend(I), op, attrs, in, n_in, out, n_out, &err) < 0) {
            d2_pd_raise_err_named(I, fname, &op, &err);
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
    /* eager ops that need a gradient are taped; symbolic ones never */
    if (rc == 0 && !sg && !owner &&
        tape_record(I, op, inputs, n_in, attrs, outs, n_out, NULL, NULL) < 0) {
        for (int i = 0; i < n_out; i++)
            d2_setref(&outs[i], NULL);
        rc = -1;
    }
    return rc;
}

int d2_apply_op(d2_interp *I, d2_op_id op, d2_obj **inputs, int n_in, const d2_attrs *attrs,
                d2_obj **outs, int n_out)
{
    return d2_pd_apply_named(I, NULL, op, inputs, n_in, attrs, outs, n_out);
}

/* One-output op; b may be NULL (defaults). New reference or NULL. */
d2_obj *d2_pd_opn(d2_interp *I, const char *fname, d2_op_id op, d2_obj **in, int n_in, d2_ab *b)
{
    if (b && b->bad) {
        d2_ab_free(b);
        return d2_raise(I, "RuntimeError", "%s: internal error building the attributes of %s",
                        fname, d2_op_def(op)->name);
    }
    d2_obj *out = NULL;
    int rc = d2_pd_apply_named(I, fname, op, in, n_in, b ? &b->a : NULL, &out, 1);
    if (b)
        d2_ab_free(b);
    return rc < 0 ? NULL : out;
}

/* A 0-d (or shape-given) constant of dtype dt: a concrete tensor eagerly, a
 * `full` op in static mode. */
d2_obj *d2_pd_const_tensor(d2_interp *I, double v, int64_t iv, bool use_int, d2_dtype dt)
{
    if (D2_MODE(I)->builder) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_full);
        d2_ab_float(&b, "value", use_int ? (double)iv : v);
        d2_ab_int(&b, "dtype", dt);
        return d2_pd_opn(I, "constant", D2_OP_full, NULL, 0, &b);
    }
    d2_err err;
    D2_ERR_FRESH(err);
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
    return d2_pd_wrap_host(I, t);
}

/* Python scalar o as a constant tensor of dtype dt. */
d2_obj *d2_pd_scalar_tensor(d2_interp *I, d2_obj *o, d2_dtype dt)
{
    if (o->kind == D2_OBJ_FLOAT)
        return d2_pd_const_tensor(I, D2_AS(d2_float, o)->v, 0, false, dt);
    return d2_pd_const_tensor(I, 0, D2_AS(d2_int, o)->v, true, dt);
}

d2_obj *d2_pd_cast_to(d2_interp *I, const char *fname, d2_obj *x, int dt)
{
    if (dt < 0 || obj_type(x)->dtype == (d2_dtype)dt)
        return d2_incref(x);
    d2_ab b;
    d2_ab_init(&b, D2_OP_cast);
    d2_ab_int(&b, "dtype", dt);
    return op1(I, fname, D2_OP_cast, x, &b);
}

/* Converts a function argument to a tensor: tensors as they are, anything
 * else through to_tensor with dtype dt (-1 infers; floats give float32). */
d2_obj *d2_pd_as_tensor(d2_interp *I, d2_obj *o, int dt, const char *fname)
{
    if (is_tensor(o))
        return d2_incref(o);
    if (is_number(o) && dt >= 0)
        return d2_pd_scalar_tensor(I, o, (d2_dtype)dt);
    d2_tensor *t = d2_pd_from_py(I, o, dt, D2_F32, fname);
    return t ? d2_pd_wrap_host(I, t) : NULL;
}

d2_obj *d2_to_tensor(d2_interp *I, d2_obj *o, int dt)
{
    if (is_tensor(o)) {
        if (dt >= 0 && obj_type(o)->dtype != (d2_dtype)dt)
            return d2_pd_cast_to(I, "paddle.to_tensor", o, dt);
        return op1(I, "paddle.to_tensor", D2_OP_assign, o, NULL);
    }
    d2_tensor *t = d2_pd_from_py(I, o, dt, D2_F32, "paddle.to_tensor");
    return t ? d2_pd_wrap_host(I, t) : NULL;
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
d2_obj *d2_pd_binary(d2_interp *I, const char *fname, d2_op_id op, d2_obj *a, d2_obj *b,
                     bool strict)
{
    bin_kind k = kind_of(op);
    d2_obj *ta = NULL, *tb = NULL, *r = NULL;
    bool sa = !is_tensor(a), sb = !is_tensor(b);
    if (sa && sb)
        return d2_raise(I, "TypeError", "%s: expected a Tensor operand", fname);
    /* non-scalar, non-tensor operands become tensors of their own dtype */
    if (sa && !is_number(a)) {
        ta = d2_pd_as_tensor(I, a, -1, fname);
        if (!ta)
            return NULL;
        a = ta;
        sa = false;
    }
    if (sb && !is_number(b)) {
        tb = d2_pd_as_tensor(I, b, -1, fname);
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
        d2_obj *tc = d2_pd_cast_to(I, fname, t, cdt);
        d2_obj *sc = tc ? d2_pd_scalar_tensor(I, s, cdt) : NULL;
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
        x = d2_pd_cast_to(I, fname, a, ca);
        y = x ? d2_pd_cast_to(I, fname, b, cb) : NULL;
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

/* Python's binary operators on tensors: the registry op, and the name
 * messages give it (one table, so the operator path formats nothing). */
static const struct {
    bool ok;
    d2_op_id id;
    const char *fname;
} BINOPS[] = {
    [D2_OP_ADD] = {true, D2_OP_add, "Tensor.__add__"},
    [D2_OP_SUB] = {true, D2_OP_subtract, "Tensor.__subtract__"},
    [D2_OP_MULT] = {true, D2_OP_multiply, "Tensor.__multiply__"},
    [D2_OP_DIV] = {true, D2_OP_divide, "Tensor.__divide__"},
    [D2_OP_FLOOR_DIV] = {true, D2_OP_floor_divide, "Tensor.__floor_divide__"},
    [D2_OP_MOD] = {true, D2_OP_remainder, "Tensor.__remainder__"},
    [D2_OP_POW] = {true, D2_OP_pow, "Tensor.__pow__"},
    [D2_OP_MAT_MULT] = {true, D2_OP_matmul, "Tensor.__matmul__"},
    [D2_OP_BIT_AND] = {true, D2_OP_logical_and, "Tensor.__logical_and__"},
    [D2_OP_BIT_OR] = {true, D2_OP_logical_or, "Tensor.__logical_or__"},
    [D2_OP_BIT_XOR] = {true, D2_OP_logical_xor, "Tensor.__logical_xor__"},
};

d2_op_id d2_pd_binop_op(int op, bool *ok)
{
    *ok = op >= 0 && op < (int)D2_COUNTOF(BINOPS) && BINOPS[op].ok;
    return *ok ? BINOPS[op].id : D2_OP_add;
}

d2_obj *d2_pd_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    bool ok;
    d2_op_id id = d2_pd_binop_op(op, &ok);
    if (!ok || !operand_ok(a) || !operand_ok(b) || (!is_tensor(a) && !is_tensor(b)))
        return d2_raise(I, "TypeError", "unsupported operand type(s) for %s: '%s' and '%s'",
                        d2_ast_operator_symbol(op), d2_type_name(a), d2_type_name(b));
    const char *fname = BINOPS[op].fname;
    if (id == D2_OP_matmul) {
        d2_obj *ta = d2_pd_as_tensor(I, a, -1, "Tensor.__matmul__");
        d2_obj *tb = ta ? d2_pd_as_tensor(I, b, -1, "Tensor.__matmul__") : NULL;
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
                            d2_ast_operator_symbol(op), dtname(obj_type(t)->dtype));
    }
    return d2_pd_binary(I, fname, id, a, b, false);
}

d2_obj *d2_pd_compare(d2_interp *I, int cmpop, d2_obj *a, d2_obj *b)
{
    d2_op_id id;
    const char *fname;
    switch (cmpop) {
    case D2_CMP_EQ: id = D2_OP_equal, fname = "Tensor.__equal__"; break;
    case D2_CMP_NOT_EQ: id = D2_OP_not_equal, fname = "Tensor.__not_equal__"; break;
    case D2_CMP_LT: id = D2_OP_less_than, fname = "Tensor.__less_than__"; break;
    case D2_CMP_LT_E: id = D2_OP_less_equal, fname = "Tensor.__less_equal__"; break;
    case D2_CMP_GT: id = D2_OP_greater_than, fname = "Tensor.__greater_than__"; break;
    case D2_CMP_GT_E: id = D2_OP_greater_equal, fname = "Tensor.__greater_equal__"; break;
    default: return d2_raise(I, "TypeError", "unsupported comparison for Tensor");
    }
    if (!operand_ok(a) || !operand_ok(b)) {
        if (id == D2_OP_equal || id == D2_OP_not_equal)
            return d2_bool(I, (id == D2_OP_not_equal) ^ (a == b));
        return d2_raise(I, "TypeError", "'%s' not supported between instances of '%s' and '%s'",
                        d2_ast_cmpop_symbol(cmpop),
                        d2_type_name(a), d2_type_name(b));
    }
    return d2_pd_binary(I, fname, id, a, b, false);
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
