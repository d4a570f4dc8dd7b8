/* backward.c - static reverse-mode autodiff: the static gradient builder, the reverse walk over a
 * block, and the gradients of cond (a cond over the branches' gradients) and while_loop (the
 * forward records its carried values, the backward replays the body's gradient in reverse). */
#include "backward.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- the static builder ---- */

d2_gval d2_grad_static_val(int var)
{
    return var < 0 ? NULL : (d2_gval)((intptr_t)var + 1);
}

int d2_grad_static_var(d2_gval v)
{
    return v ? (int)((intptr_t)v - 1) : -1;
}

static int sb_emit(d2_gbuilder *gb, d2_op_id id, const d2_attrs *attrs, d2_gval *ins, int n_in,
                   d2_gval *outs, int n_out, d2_err *err)
{
    d2_grad_static *b = (d2_grad_static *)gb;
    int *iv = d2_calloc((size_t)n_in + (size_t)n_out + 1, sizeof *iv);
    if (!iv)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    int *ov = iv + n_in;
    for (int i = 0; i < n_in; i++)
        iv[i] = d2_grad_static_var(ins[i]);
    int rc = d2_block_append_inferred(b->p, b->block, id, iv, n_in, attrs, n_out, ov, err);
    for (int i = 0; i < n_out; i++)
        outs[i] = rc < 0 ? NULL : d2_grad_static_val(ov[i]);
    d2_free(iv);
    return rc < 0 ? -1 : 0;
}

static void sb_type_of(d2_gbuilder *gb, d2_gval v, d2_type *out)
{
    d2_grad_static *b = (d2_grad_static *)gb;
    int var = d2_grad_static_var(v);
    if (var < 0 || var >= b->p->n_vars) {
        memset(out, 0, sizeof *out);
        out->dtype = (d2_dtype)-1;
        return;
    }
    *out = b->p->vars[var].type;
}

static d2_gval sb_ref(d2_gbuilder *gb, d2_gval v)
{
    (void)gb;
    return v;
}

static void sb_release(d2_gbuilder *gb, d2_gval v)
{
    (void)gb;
    (void)v;
}

static const d2_gbuilder_vt STATIC_VT = {sb_emit, sb_type_of, sb_ref, sb_release};

void d2_grad_static_init(d2_grad_static *b, d2_program *p, int block)
{
    b->base.vt = &STATIC_VT;
    b->p = p;
    b->block = block;
}

/* ---- small helpers ---- */

/* A growable list of variable indices. */
typedef struct ilist {
    int n, cap;
    int *v;
} ilist;

static int ilist_push(ilist *l, int x, d2_err *err)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        int *nv = d2_realloc(l->v, sizeof *nv * (size_t)cap);
        if (!nv)
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return 0;
}

static bool ilist_has(const ilist *l, int x)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == x)
            return true;
    return false;
}

static int ilist_add(ilist *l, int x, d2_err *err)
{
    return ilist_has(l, x) ? 0 : ilist_push(l, x, err);
}

static void ilist_free(ilist *l)
{
    d2_free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* The state of one d2_gradients call. */
typedef struct bw {
    d2_grad_static sb;
    d2_program *p;
    d2_err *err;
    const bool *stop; /* no_grad set, indexed by var < n_stop */
    int n_stop;
    int n_fwd;        /* variables that existed before: never renamed */
    unsigned char *named; /* named[g - n_fwd]: g was given a "@GRAD" name */
    int cap_named;
} bw;

/* Gradients of the variables below n: g[v] is the variable holding the sum of
 * the contributions so far, or -1. */
typedef struct gmap {
    int n;
    int *g;
} gmap;

static int gmap_init(gmap *m, int n, d2_err *err)
{
    m->n = n;
    m->g = d2_malloc(sizeof *m->g * ((size_t)n + 1));
    if (!m->g)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++)
        m->g[i] = -1;
    return 0;
}

static int gmap_get(const gmap *m, int v)
{
    return v >= 0 && v < m->n ? m->g[v] : -1;
}

static d2_type vtype(const bw *c, int v)
{
    return c->p->vars[v].type;
}

static bool float_tensor(const d2_type *t)
{
    return t->kind == D2_VALUE_TENSOR && d2_dtype_differentiable(t->dtype);
}

static bool stopped(const bw *c, int v)
{
    return v >= 0 && v < c->n_stop && c->stop[v];
}

/* Whether a gradient may flow through variable v at all: float tensors and
 * float tensor arrays (whose gradients are arrays). */
static bool grad_var(const bw *c, int v)
{
    if (v < 0 || stopped(c, v))
        return false;
    d2_type t = vtype(c, v);
    return float_tensor(&t) || (t.kind == D2_VALUE_ARRAY && d2_dtype_differentiable(t.dtype));
}

static bool is_array(const bw *c, int v)
{
    return c->p->vars[v].type.kind == D2_VALUE_ARRAY;
}

/* " at line L, column C" for an op with a source position, else "". */
static void op_where(const d2_op *op, char *buf, size_t n)
{
    if (op->line > 0)
        snprintf(buf, n, " at line %d, column %d", op->line, op->col);
    else
        buf[0] = 0;
}

static bool is_control(const d2_opdef *def)
{
    return (def->flags & D2_OPF_CONTROL) != 0;
}

/* Appends op id (one result) to block blk; the result's variable, or -1. */
static int emit1(bw *c, int blk, d2_op_id id, const int *in, int n_in, const d2_attrs *attrs)
{
    int out;
    if (d2_block_append_inferred(c->p, blk, id, in, n_in, attrs, 1, &out, c->err) < 0)
        return -1;
    return out;
}

/* Appends control op id (whose result types come from its blocks) to block
 * blk; its results are new variables written to outs. */
static int append_control(bw *c, int blk, d2_op_id id, int *in, int n_in, const d2_attrs *attrs,
                          int n_out, int *outs)
{
    d2_type *types = d2_calloc((size_t)n_out + 1, sizeof *types);
    if (!types)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    for (int j = 0; j < n_out; j++)
        outs[j] = -1;
    d2_op tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.id = id;
    tmp.n_in = n_in;
    tmp.in = in;
    tmp.n_out = n_out;
    tmp.out = outs;
    tmp.attrs = *attrs;
    int rc = d2_program_infer_op(c->p, &tmp, types, c->err);
    for (int j = 0; j < n_out && rc == 0; j++) {
        outs[j] = d2_program_add_var(c->p, blk, NULL, &types[j], c->err);
        if (outs[j] < 0)
            rc = -1;
    }
    d2_free(types);
    if (rc == 0 && d2_block_add_op(c->p, blk, id, in, n_in, outs, n_out, attrs, c->err) < 0)
        rc = -1;
    return rc;
}

/* full_like(x) {value} in blk. */
static int emit_full_like(bw *c, int blk, int x, double value)
{
    if (is_array(c, x) && value == 0.0)
        return emit1(c, blk, D2_OP_array_zeros_like, &x, 1, NULL);
    const d2_opdef *def = d2_op_def(D2_OP_full_like);
    d2_attrs a;
    d2_attrs_init_default(def, &a);
    if (a.n != def->n_attrs || d2_attr_set_float(def, &a, "value", value) < 0) {
        d2_attrs_free(&a);
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    }
    int r = emit1(c, blk, D2_OP_full_like, &x, 1, &a);
    d2_attrs_free(&a);
    return r;
}

/* A 0-d int64 constant in blk. */
static int emit_i64(bw *c, int blk, int64_t value)
{
    const d2_opdef *def = d2_op_def(D2_OP_full);
    d2_attrs a;
    d2_attrs_init_default(def, &a);
    if (a.n != def->n_attrs || d2_attr_set_ints(def, &a, "shape", NULL, 0) < 0 ||
        d2_attr_set_float(def, &a, "value", (double)value) < 0 ||
        d2_attr_set_int(def, &a, "dtype", D2_I64) < 0) {
        d2_attrs_free(&a);
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    }
    int none = -1;
    int r = emit1(c, blk, D2_OP_full, &none, 1, &a);
    d2_attrs_free(&a);
    return r;
}

static int emit2(bw *c, int blk, d2_op_id id, int x, int y)
{
    int in[2] = {x, y};
    return emit1(c, blk, id, in, 2, NULL);
}

/* Adds contribution g to the gradient of v (an add op when v has one already). */
static int accumulate(bw *c, int blk, gmap *m, int v, int g)
{
    if (g < 0 || v < 0 || v >= m->n)
        return 0;
    if (m->g[v] < 0) {
        m->g[v] = g;
        return 0;
    }
    int s = emit2(c, blk, is_array(c, v) ? D2_OP_array_add : D2_OP_add, m->g[v], g);
    if (s < 0)
        return -1;
    m->g[v] = s;
    return 0;
}

/* Names g, the complete gradient of v, "<v>@GRAD" when g is a variable this
 * call made and has not named yet and the name is free. */
static int name_grad(bw *c, int v, int g)
{
    int k = g - c->n_fwd;
    if (k < 0 || (k < c->cap_named && c->named[k]))
        return 0;
    if (k >= c->cap_named) {
        int cap = 2 * k + 64;
        unsigned char *nn = d2_realloc(c->named, (size_t)cap);
        if (!nn)
            return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        memset(nn + c->cap_named, 0, (size_t)(cap - c->cap_named));
        c->named = nn;
        c->cap_named = cap;
    }
    const char *base = c->p->vars[v].name;
    size_t len = strlen(base) + 6;
    char *name = d2_malloc(len);
    if (!name)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    snprintf(name, len, "%s@GRAD", base);
    int rc = d2_program_rename_var(c->p, g, name, c->err);
    d2_free(name);
    if (rc < 0)
        return -1;
    c->named[k] = 1;
    return 0;
}

/* Whether block b lies in the subtree of block root. */
static bool in_tree(const d2_program *p, int b, int root)
{
    for (; b >= 0; b = p->blocks[b].parent)
        if (b == root)
            return true;
    return false;
}

/* The block attributes of op (indices), at most D2_MAX_PORTS. */
static int op_blocks(const d2_op *op, int *blocks)
{
    int n = 0;
    for (int k = 0; k < op->attrs.n && n < D2_MAX_PORTS; k++)
        if (op->attrs.v[k].type == D2_ATTR_BLOCK)
            blocks[n++] = (int)op->attrs.v[k].u.i;
    return n;
}

/* Adds to out every variable read in block b's subtree (ops' inputs, and
 * yields when with_yields; nested blocks' yields always) that is defined
 * outside root's subtree. */
static int collect_free(bw *c, int b, int root, bool with_yields, ilist *out)
{
    const d2_program *p = c->p;
    const d2_block *blk = &p->blocks[b];
    for (int i = 0; i < blk->n_ops; i++) {
        const d2_op *op = &blk->ops[i];
        for (int k = 0; k < op->n_in; k++) {
            int v = op->in[k];
            if (v >= 0 && !in_tree(p, p->vars[v].block, root) && ilist_add(out, v, c->err) < 0)
                return -1;
        }
        int sub[D2_MAX_PORTS];
        int ns = op_blocks(op, sub);
        for (int s = 0; s < ns; s++)
            if (collect_free(c, sub[s], root, true, out) < 0)
                return -1;
    }
    if (with_yields)
        for (int j = 0; j < blk->n_yields; j++) {
            int v = blk->yields[j];
            if (v >= 0 && !in_tree(p, p->vars[v].block, root) && ilist_add(out, v, c->err) < 0)
                return -1;
        }
    return 0;
}

/* The variables a control op reads from outside its blocks. */
static int op_free_vars(bw *c, const d2_op *op, ilist *out)
{
    int sub[D2_MAX_PORTS];
    int ns = op_blocks(op, sub);
    for (int s = 0; s < ns; s++)
        if (collect_free(c, sub[s], sub[s], true, out) < 0)
            return -1;
    return 0;
}

/* Whether input k of op (with its free variables, for control ops) can carry a gradient. */
static bool input_active(const bw *c, const d2_op *op, int k, const bool *active, int n)
{
    int v = op->in[k];
    if (v < 0 || v >= n || !active[v] || !grad_var(c, v))
        return false;
    /* an op without a rule is reported when the walk reaches it */
    return is_control(d2_op_def(op->id)) || !d2_op_grad(op->id) ||
           d2_op_input_differentiable(op->id, k);
}

/* Marks keep[i] for each op i of block b that a gradient through b needs
 * recomputed: the ops on a path from a variable of want to one of seed, and
 * the ops whose results those read, transitively. need (below p->n_vars)
 * receives every variable the kept ops read. */
static int needed_ops(bw *c, int b, const ilist *want, const ilist *seed, bool *keep, bool *need)
{
    d2_program *p = c->p;
    int n = p->n_vars, n_ops = p->blocks[b].n_ops, rc = -1;
    bool *active = d2_calloc(2 * (size_t)n + 1, sizeof *active);
    ilist *fv = d2_calloc((size_t)n_ops + 1, sizeof *fv);
    if (!active || !fv) {
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    bool *reach = active + n;
    for (int i = 0; i < want->n; i++)
        active[want->v[i]] = true;
    for (int i = 0; i < seed->n; i++)
        reach[seed->v[i]] = true;
    for (int i = 0; i < n_ops; i++)
        if (is_control(d2_op_def(p->blocks[b].ops[i].id)) &&
            op_free_vars(c, &p->blocks[b].ops[i], &fv[i]) < 0)
            goto done;
    bool *on_path = keep;
    for (int i = 0; i < n_ops; i++) {
        const d2_op *op = &p->blocks[b].ops[i];
        on_path[i] = false;
        if (d2_op_def(op->id)->flags & D2_OPF_NO_GRAD)
            continue;
        bool any = false;
        for (int k = 0; k < op->n_in && !any; k++)
            any = input_active(c, op, k, active, n);
        for (int f = 0; f < fv[i].n && !any; f++)
            any = active[fv[i].v[f]] && grad_var(c, fv[i].v[f]);
        for (int j = 0; j < op->n_out && any; j++)
            if (grad_var(c, op->out[j]))
                active[op->out[j]] = on_path[i] = true;
    }
    for (int i = n_ops - 1; i >= 0; i--) {
        const d2_op *op = &p->blocks[b].ops[i];
        bool r = false;
        for (int j = 0; j < op->n_out && !r; j++)
            r = reach[op->out[j]];
        on_path[i] = on_path[i] && r;
        if (!r)
            continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0)
                reach[op->in[k]] = true;
        for (int f = 0; f < fv[i].n; f++)
            reach[fv[i].v[f]] = true;
    }
    /* keep the path and what it reads */
    for (int i = n_ops - 1; i >= 0; i--) {
        const d2_op *op = &p->blocks[b].ops[i];
        for (int j = 0; j < op->n_out && !keep[i]; j++)
            keep[i] = need[op->out[j]];
        if (!keep[i])
            continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0)
                need[op->in[k]] = true;
        for (int f = 0; f < fv[i].n; f++)
            need[fv[i].v[f]] = true;
    }
    rc = 0;
done:
    for (int i = 0; fv && i < n_ops; i++)
        ilist_free(&fv[i]);
    d2_free(fv);
    d2_free(active);
    return rc;
}

/* ---- recomputation: copying a block's ops ----
 * remap[v] (v < n_remap) is the variable that stands for v in the copy, or -1
 * for "v itself" (variables of enclosing blocks). */

static int mapped(const int *remap, int n_remap, int v)
{
    return v >= 0 && v < n_remap && remap[v] >= 0 ? remap[v] : v;
}

static int clone_block(bw *c, int src, int parent, int *remap, int n_remap);

/* Appends to block dst a copy of ops [first, end) of block src, those with
 * keep[i] only where keep is not NULL. */
static int clone_ops(bw *c, int src, int first, int end, const bool *keep, int dst, int *remap,
                     int n_remap)
{
    d2_program *p = c->p;
    for (int i = first; i < end; i++) {
        if (keep && !keep[i])
            continue;
        /* the op's arrays stay put while dst grows: src is another block */
        const d2_op *op = &p->blocks[src].ops[i];
        d2_op_id id = op->id;
        int n_in = op->n_in, n_out = op->n_out, line = op->line, col = op->col;
        int *io = d2_malloc(sizeof *io * ((size_t)n_in + (size_t)n_out + 1));
        d2_attrs attrs = {0, NULL};
        if (!io || d2_attrs_copy(&attrs, &op->attrs, c->err) < 0) {
            d2_free(io);
            return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        }
        int *in = io, *out = io + n_in;
        for (int k = 0; k < n_in; k++)
            in[k] = mapped(remap, n_remap, p->blocks[src].ops[i].in[k]);
        int rc = 0;
        for (int k = 0; k < attrs.n && rc == 0; k++) {
            if (attrs.v[k].type != D2_ATTR_BLOCK)
                continue;
            int nb = clone_block(c, (int)attrs.v[k].u.i, dst, remap, n_remap);
            if (nb < 0)
                rc = -1;
            else
                attrs.v[k].u.i = nb;
        }
        for (int k = 0; k < n_out && rc == 0; k++) {
            int o = p->blocks[src].ops[i].out[k];
            d2_type t = vtype(c, o);
            out[k] = d2_program_add_var(p, dst, NULL, &t, c->err);
            if (out[k] < 0)
                rc = -1;
            else if (o < n_remap)
                remap[o] = out[k];
        }
        if (rc == 0)
            rc = d2_block_add_op(p, dst, id, in, n_in, out, n_out, &attrs, c->err);
        d2_attrs_free(&attrs);
        d2_free(io);
        if (rc < 0)
            return -1;
        d2_op *nop = &p->blocks[dst].ops[p->blocks[dst].n_ops - 1];
        nop->line = line;
        nop->col = col;
    }
    return 0;
}

/* A copy of block src (params, ops, yields) as a new child of parent. */
static int clone_block(bw *c, int src, int parent, int *remap, int n_remap)
{
    d2_program *p = c->p;
    int nb = d2_program_add_block(p, parent, c->err);
    if (nb < 0)
        return -1;
    for (int j = 0; j < p->blocks[src].n_params; j++) {
        int v = p->blocks[src].params[j];
        d2_type t = vtype(c, v);
        int nv = d2_program_add_var(p, nb, NULL, &t, c->err);
        if (nv < 0 || d2_block_add_param(p, nb, nv, c->err) < 0)
            return -1;
        if (v < n_remap)
            remap[v] = nv;
    }
    if (clone_ops(c, src, 0, p->blocks[src].n_ops, NULL, nb, remap, n_remap) < 0)
        return -1;
    for (int j = 0; j < p->blocks[src].n_yields; j++)
        if (d2_block_add_yield(p, nb, mapped(remap, n_remap, p->blocks[src].yields[j]), c->err) <
            0)
            return -1;
    return nb;
}

static int *new_remap(bw *c, int *n)
{
    *n = c->p->n_vars;
    int *r = d2_malloc(sizeof *r * ((size_t)*n + 1));
    if (!r) {
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < *n; i++)
        r[i] = -1;
    return r;
}

/* ---- the reverse walk ---- */

static int backprop(bw *c, int blk, int first, gmap *m, const bool *wanted);

/* Removes the ops of block b, one this call made, whose results nothing
 * reads: the recomputed forward values the gradient turned out not to need.
 * Control ops stay (their blocks belong to them). */
static int prune_block(bw *c, int b)
{
    d2_program *p = c->p;
    bool *used = d2_calloc((size_t)p->n_vars + 1, sizeof *used);
    ilist free = {0};
    if (!used)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    d2_block *blk = &p->blocks[b];
    for (int j = 0; j < blk->n_yields; j++)
        used[blk->yields[j]] = true;
    int rc = 0;
    for (int i = blk->n_ops - 1; i >= 0 && rc == 0; i--) {
        d2_op *op = &blk->ops[i];
        const d2_opdef *def = d2_op_def(op->id);
        bool live = (def->flags & (D2_OPF_SIDE_EFFECT | D2_OPF_CONTROL)) != 0;
        for (int j = 0; j < op->n_out && !live; j++)
            live = used[op->out[j]];
        if (!live) {
            d2_free(op->in);
            d2_free(op->out);
            d2_attrs_free(&op->attrs);
            op->id = D2_NUM_OPS; /* removed */
            continue;
        }
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0)
                used[op->in[k]] = true;
        if (is_control(def)) {
            free.n = 0;
            rc = op_free_vars(c, op, &free);
            for (int f = 0; f < free.n; f++)
                used[free.v[f]] = true;
        }
    }
    int n = 0;
    for (int i = 0; i < blk->n_ops; i++)
        if (blk->ops[i].id != D2_NUM_OPS)
            blk->ops[n++] = blk->ops[i];
    blk->n_ops = n;
    ilist_free(&free);
    d2_free(used);
    return rc;
}

/* ---- cond ----
 * cond(pred, operands) -> results, with douts the gradients of the results
 * that have one: appends to blk
 *   grads = cond(pred, douts...) {then = T', else = E'}
 * where each of T', E' recomputes its branch (operands and enclosing
 * variables read in place), runs the branch's gradient and yields the
 * gradients of N, the operands and enclosing variables that need one (zeros
 * where the branch does not reach them); then adds them to m. */

/* What the gradient of one cond works with. */
typedef struct cgrad {
    int blk, idx, pred, n_ops;
    int *operands;  /* n_ops */
    ilist nset;     /* N */
    ilist dl;       /* results that have a gradient */
    int *douts;     /* their gradients (dl.n) */
    ilist free;     /* enclosing variables the branches read */
} cgrad;

/* Makes block nb (child of blk, params: the douts) the gradient of branch
 * br: yields the gradient of each variable of N. */
static int cond_grad_branch(bw *c, const cgrad *g, int br, int nb)
{
    d2_program *p = c->p;
    int rc = -1, n_remap = 0, *remap = NULL, *dpar = NULL;
    int bops = p->blocks[br].n_ops;
    bool *keep = NULL, *want = NULL;
    ilist kwant = {0}, kseed = {0};
    gmap bm = {0, NULL};
    dpar = d2_malloc(sizeof *dpar * ((size_t)g->dl.n + 1));
    keep = d2_calloc((size_t)bops + (size_t)p->n_vars + 1, sizeof *keep);
    if (!dpar || !keep) {
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int t = 0; t < g->dl.n; t++) {
        d2_type ty = vtype(c, g->douts[t]);
        dpar[t] = d2_program_add_var(p, nb, NULL, &ty, c->err);
        if (dpar[t] < 0 || d2_block_add_param(p, nb, dpar[t], c->err) < 0)
            goto done;
    }
    /* recompute what the branch's gradient needs, operands read in place */
    for (int i = 0; i < g->n_ops; i++)
        if (ilist_has(&g->nset, g->operands[i]) &&
            ilist_push(&kwant, p->blocks[br].params[i], c->err) < 0)
            goto done;
    for (int i = 0; i < g->free.n; i++)
        if (ilist_has(&g->nset, g->free.v[i]) && ilist_push(&kwant, g->free.v[i], c->err) < 0)
            goto done;
    for (int t = 0; t < g->dl.n; t++)
        if (ilist_push(&kseed, p->blocks[br].yields[g->dl.v[t]], c->err) < 0)
            goto done;
    if (needed_ops(c, br, &kwant, &kseed, keep, keep + bops) < 0 ||
        !(remap = new_remap(c, &n_remap)))
        goto done;
    for (int i = 0; i < g->n_ops; i++)
        remap[p->blocks[br].params[i]] = g->operands[i];
    if (clone_ops(c, br, 0, bops, keep, nb, remap, n_remap) < 0 ||
        gmap_init(&bm, p->n_vars, c->err) < 0)
        goto done;
    want = d2_calloc((size_t)p->n_vars + 1, sizeof *want);
    if (!want) {
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int t = 0; t < g->dl.n; t++) {
        int y = mapped(remap, n_remap, p->blocks[br].yields[g->dl.v[t]]);
        if (grad_var(c, y) && accumulate(c, nb, &bm, y, dpar[t]) < 0)
            goto done;
    }
    for (int i = 0; i < g->nset.n; i++)
        want[g->nset.v[i]] = true;
    if (backprop(c, nb, 0, &bm, want) < 0)
        goto done;
    for (int i = 0; i < g->nset.n; i++) {
        int gv = gmap_get(&bm, g->nset.v[i]);
        if (gv < 0)
            gv = emit_full_like(c, nb, g->nset.v[i], 0.0);
        if (gv < 0 || d2_block_add_yield(p, nb, gv, c->err) < 0)
            goto done;
    }
    rc = prune_block(c, nb);
done:
    d2_free(dpar);
    d2_free(keep);
    d2_free(remap);
    d2_free(want);
    d2_free(bm.g);
    ilist_free(&kwant);
    ilist_free(&kseed);
    return rc;
}

static int grad_cond(bw *c, int blk, int idx, gmap *m, const bool *active)
{
    d2_program *p = c->p;
    const d2_opdef *cdef = d2_op_def(D2_OP_cond);
    const d2_op *op = &p->blocks[blk].ops[idx];
    cgrad g;
    memset(&g, 0, sizeof g);
    g.blk = blk;
    g.idx = idx;
    g.pred = op->in[0];
    g.n_ops = op->n_in - 1;
    int n_res = op->n_out, rc = -1, line = op->line, col = op->col;
    int br[2] = {(int)op->attrs.v[d2_attr_index(cdef, "then")].u.i,
                 (int)op->attrs.v[d2_attr_index(cdef, "else")].u.i};
    int *outs = NULL, *in = NULL;
    g.operands = d2_malloc(sizeof *g.operands * ((size_t)g.n_ops + (size_t)n_res + 1));
    if (!g.operands) {
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    g.douts = g.operands + g.n_ops; /* at most n_res */
    memcpy(g.operands, op->in + 1, sizeof *g.operands * (size_t)g.n_ops);
    for (int j = 0; j < n_res; j++) {
        int d = gmap_get(m, op->out[j]);
        if (d < 0)
            continue;
        g.douts[g.dl.n] = d;
        if (ilist_push(&g.dl, j, c->err) < 0)
            goto done;
    }
    if (op_free_vars(c, op, &g.free) < 0)
        goto done;
    for (int i = 0; i < g.n_ops; i++) {
        int v = g.operands[i];
        if (v >= 0 && v < m->n && active[v] && grad_var(c, v) &&
            ilist_add(&g.nset, v, c->err) < 0)
            goto done;
    }
    for (int i = 0; i < g.free.n; i++) {
        int v = g.free.v[i];
        if (v < m->n && active[v] && grad_var(c, v) && ilist_add(&g.nset, v, c->err) < 0)
            goto done;
    }
    if (g.nset.n == 0 || g.dl.n == 0) {
        rc = 0;
        goto done;
    }
    int nb[2];
    for (int r = 0; r < 2; r++)
        if ((nb[r] = d2_program_add_block(p, blk, c->err)) < 0 ||
            cond_grad_branch(c, &g, br[r], nb[r]) < 0)
            goto done;
    d2_attrs a;
    d2_attrs_init_default(cdef, &a);
    in = d2_malloc(sizeof *in * ((size_t)g.dl.n + 2));
    outs = d2_malloc(sizeof *outs * ((size_t)g.nset.n + 1));
    if (!in || !outs || a.n != cdef->n_attrs || d2_attr_set_int(cdef, &a, "then", nb[0]) < 0 ||
        d2_attr_set_int(cdef, &a, "else", nb[1]) < 0) {
        d2_attrs_free(&a);
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    in[0] = g.pred;
    memcpy(in + 1, g.douts, sizeof *in * (size_t)g.dl.n);
    int arc = append_control(c, blk, D2_OP_cond, in, g.dl.n + 1, &a, g.nset.n, outs);
    d2_attrs_free(&a);
    if (arc < 0)
        goto done;
    /* the gradient's source position is the forward op's */
    d2_block *b = &p->blocks[blk];
    b->ops[b->n_ops - 1].line = line;
    b->ops[b->n_ops - 1].col = col;
    for (int i = 0; i < g.nset.n; i++)
        if (accumulate(c, blk, m, g.nset.v[i], outs[i]) < 0)
            goto done;
    rc = 0;
done:
    d2_free(g.operands);
    d2_free(in);
    d2_free(outs);
    ilist_free(&g.nset);
    ilist_free(&g.dl);
    ilist_free(&g.free);
    return rc;
}

/* Moves the last k ops of block b to position pos (before the op there). */
static int move_tail_ops(bw *c, int b, int k, int pos)
{
    d2_block *blk = &c->p->blocks[b];
    if (k <= 0)
        return 0;
    d2_op *tmp = d2_malloc(sizeof *tmp * (size_t)k);
    if (!tmp)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    int from = blk->n_ops - k;
    memcpy(tmp, &blk->ops[from], sizeof *tmp * (size_t)k);
    memmove(&blk->ops[pos + k], &blk->ops[pos], sizeof *tmp * (size_t)(from - pos));
    memcpy(&blk->ops[pos], tmp, sizeof *tmp * (size_t)k);
    d2_free(tmp);
    return 0;
}

/* Grows op (at index idx of block b) by the inputs add_in[0..k) and k new
 * results of the inferred types; their variables go to add_out. */
static int widen_op(bw *c, int b, int idx, const int *add_in, int k, int *add_out)
{
    d2_program *p = c->p;
    d2_op *op = &p->blocks[b].ops[idx];
    int n_in = op->n_in + k, n_out = op->n_out + k;
    int *in = d2_malloc(sizeof *in * ((size_t)n_in + 1));
    int *out = d2_malloc(sizeof *out * ((size_t)n_out + 1));
    d2_type *types = d2_calloc((size_t)n_out + 1, sizeof *types);
    if (!in || !out || !types) {
        d2_free(in);
        d2_free(out);
        d2_free(types);
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    }
    memcpy(in, op->in, sizeof *in * (size_t)op->n_in);
    memcpy(in + op->n_in, add_in, sizeof *in * (size_t)k);
    memcpy(out, op->out, sizeof *out * (size_t)op->n_out);
    for (int j = op->n_out; j < n_out; j++)
        out[j] = -1;
    d2_free(op->in);
    d2_free(op->out);
    op->in = in;
    op->out = out;
    op->n_in = n_in;
    int old_out = op->n_out;
    op->n_out = n_out;
    int rc = d2_program_infer_op(p, op, types, c->err);
    for (int j = 0; j < k && rc == 0; j++) {
        int v = d2_program_add_var(p, b, NULL, &types[old_out + j], c->err);
        if (v < 0)
            rc = -1;
        else
            p->blocks[b].ops[idx].out[old_out + j] = add_out[j] = v;
    }
    d2_free(types);
    return rc;
}

/* ---- while_loop ----
 * The forward op is rewritten to carry a trip count (from 0) and one tensor
 * array per carried value its body's gradient reads, written at the count
 * each iteration with the value the iteration starts from. Then
 *   k, g..., a... = while_loop(count, g0..., 0...) {cond: k > 0, body: ^B'}
 * is appended, where g are the gradients of the float carried values (g0:
 * the finals' gradients, zeros where none) and a those of the enclosing
 * float variables the body reads (loop invariants: parameters), summed over
 * the iterations. B' takes k - 1, reads that iteration's carried values from
 * the arrays, recomputes the body from them and runs its gradient seeded by
 * g. */

/* What the gradient of one while_loop works with. */
typedef struct wgrad {
    int blk, idx, n, cond_b, body_b, body_ops, line, col;
    int *inits, *finals, *bpar, *byld; /* n each, one allocation */
    ilist wset;  /* enclosing variables that need a gradient */
    ilist gset;  /* carried positions whose gradient flows (float tensors, arrays) */
    ilist sset;  /* variables recorded per iteration: carried values, array lengths */
    ilist stand; /* carried arrays the gradient replays writes into: their gradient stands in */
    ilist grown; /* carried arrays only appended to: the replay reads the final array cut to */
    ilist glen;  /* the length each iteration started with (recorded in sset), one per grown */
    bool *keep;  /* body ops the gradient recomputes (body_ops), then */
    bool *need;  /* the variables they read (p->n_vars) */
    int cnt;     /* the forward's trip count */
    int *arrs;   /* the forward's final array of each sset position */
} wgrad;

static void wgrad_free(wgrad *w)
{
    d2_free(w->inits);
    d2_free(w->keep);
    d2_free(w->arrs);
    ilist_free(&w->wset);
    ilist_free(&w->gset);
    ilist_free(&w->sset);
    ilist_free(&w->stand);
    ilist_free(&w->grown);
    ilist_free(&w->glen);
}

/* Whether the gradient of the body reads carried array j only through
 * array_length of it and array_write into it (and into what those writes
 * make): the lengths are then recorded instead of the array (their ops are
 * not replayed), and the replayed writes, whose gradients read only the
 * index, write into the array's carried gradient, which is as long as the
 * array ever grows. Sets *rc on failure. */
static bool array_stand_in(bw *c, wgrad *w, int j, int *rc)
{
    const d2_block *b = &c->p->blocks[w->body_b];
    int a = w->bpar[j];
    bool carried = false;
    for (int t = 0; t < w->gset.n; t++)
        carried |= w->gset.v[t] == j;
    if (!carried)
        return false;
    /* from[v]: v is a, or made from it by the replayed writes */
    bool *from = d2_calloc((size_t)c->p->n_vars + 1, sizeof *from);
    if (!from) {
        *rc = d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        return true;
    }
    from[a] = true;
    bool ok = true;
    for (int i = 0; i < w->body_ops && ok; i++) {
        const d2_op *op = &b->ops[i];
        if (!w->keep[i])
            continue;
        for (int k = 0; k < op->n_in && ok; k++) {
            if (op->in[k] < 0 || !from[op->in[k]])
                continue;
            if (op->id == D2_OP_array_write && k == 0)
                from[op->out[0]] = true;
            else if (!(op->id == D2_OP_array_length && op->in[k] == a))
                ok = false;
        }
        if (ok && is_control(d2_op_def(op->id))) {
            ilist fv = {0};
            if (op_free_vars(c, op, &fv) < 0) {
                *rc = -1;
                d2_free(from);
                return true;
            }
            for (int f = 0; f < fv.n; f++)
                ok = ok && !from[fv.v[f]];
            ilist_free(&fv);
        }
    }
    d2_free(from);
    if (!ok)
        return false;
    for (int i = 0; i < w->body_ops && *rc == 0; i++) {
        const d2_op *op = &b->ops[i];
        if (w->keep[i] && op->id == D2_OP_array_length && op->in[0] == a) {
            w->keep[i] = false;
            *rc = ilist_push(&w->sset, op->out[0], c->err);
        }
    }
    if (*rc == 0)
        *rc = ilist_push(&w->stand, j, c->err);
    return true;
}

/* The op of block b that defines variable v, or NULL. */
static const d2_op *def_op(const d2_block *b, int v)
{
    for (int i = 0; i < b->n_ops; i++)
        for (int j = 0; j < b->ops[i].n_out; j++)
            if (b->ops[i].out[j] == v)
                return &b->ops[i];
    return NULL;
}

/* Whether block b (the loop's body or a block nested in it) uses the arrays of from (the
 * carried array and what appends make of it) only by appending to them (array_write at
 * array_length of the same array), measuring them (array_length) and reading items
 * (array_read), in b itself or in the branches of a cond, whose results then join from where a
 * branch yields one of them. A nested while_loop over them, an overwrite or any other use fails.
 * Yields of b may be from-arrays only at position pos (-1: any). */
static bool append_only(const d2_program *p, int b, bool *from, int pos)
{
    const d2_block *blk = &p->blocks[b];
    for (int i = 0; i < blk->n_ops; i++) {
        const d2_op *op = &blk->ops[i];
        int sub[D2_MAX_PORTS];
        int ns = op_blocks(op, sub);
        for (int k = 0; k < op->n_in; k++) {
            int v = op->in[k];
            if (v < 0 || !from[v])
                continue;
            if (op->id == D2_OP_array_length || (op->id == D2_OP_array_read && k == 0))
                continue;
            if (op->id == D2_OP_array_write && k == 0) {
                const d2_op *len = def_op(blk, op->in[1]);
                if (!len || len->id != D2_OP_array_length || len->in[0] != v)
                    return false;
                continue;
            }
            return false;
        }
        if (op->id == D2_OP_array_write && op->in[0] >= 0 && from[op->in[0]])
            from[op->out[0]] = true;
        if (ns == 0)
            continue;
        if (op->id != D2_OP_cond) {
            /* another control op: none of the arrays may be read inside it */
            for (int s = 0; s < ns; s++)
                for (int q = 0; q < p->blocks[sub[s]].n_ops; q++)
                    for (int k = 0; k < p->blocks[sub[s]].ops[q].n_in; k++) {
                        int v = p->blocks[sub[s]].ops[q].in[k];
                        if (v >= 0 && from[v])
                            return false;
                    }
            continue;
        }
        for (int s = 0; s < ns; s++) {
            if (!append_only(p, sub[s], from, -1))
                return false;
            for (int j = 0; j < p->blocks[sub[s]].n_yields && j < op->n_out; j++) {
                int y = p->blocks[sub[s]].yields[j];
                if (y >= 0 && from[y])
                    from[op->out[j]] = true;
            }
        }
    }
    for (int j = 0; j < blk->n_yields; j++) {
        int y = blk->yields[j];
        if (y >= 0 && from[y] && pos >= 0 && j != pos)
            return false;
    }
    return true;
}

/* Whether carried array j is only appended to, measured and read in the body (append_only):
 * then every item an iteration reads is the final array's item, so the gradient replays
 * iteration k on the final array cut to the length k started with, which the forward records
 * (an array_length appended to the body). Sets *rc on failure. */
static bool array_grown(bw *c, wgrad *w, int j, int *rc)
{
    bool carried = false;
    for (int t = 0; t < w->gset.n; t++)
        carried |= w->gset.v[t] == j;
    if (!carried)
        return false;
    bool *from = d2_calloc((size_t)c->p->n_vars + 1, sizeof *from);
    if (!from) {
        *rc = d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        return true;
    }
    from[w->bpar[j]] = true;
    bool ok = append_only(c->p, w->body_b, from, j);
    d2_free(from);
    if (!ok)
        return false;
    /* the length, measured first thing in the body (before any write may reuse the array);
     * keep and need follow the ops and variables moved and added */
    int a = w->bpar[j];
    int len = emit1(c, w->body_b, D2_OP_array_length, &a, 1, NULL);
    bool *nk = len < 0 ? NULL
                       : d2_calloc((size_t)w->body_ops + 1 + (size_t)c->p->n_vars + 1, sizeof *nk);
    if (len >= 0 && !nk)
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    if (!nk || move_tail_ops(c, w->body_b, 1, 0) < 0) {
        d2_free(nk);
        *rc = -1;
        return true;
    }
    memcpy(nk + 1, w->keep, (size_t)w->body_ops * sizeof *nk);
    memcpy(nk + w->body_ops + 1, w->need, (size_t)(c->p->n_vars - 1) * sizeof *nk);
    d2_free(w->keep);
    w->keep = nk;
    w->body_ops++;
    w->need = nk + w->body_ops;
    if (ilist_push(&w->sset, len, c->err) < 0 || ilist_push(&w->grown, j, c->err) < 0 ||
        ilist_push(&w->glen, len, c->err) < 0)
        *rc = -1;
    return true;
}

/* Fills w for the while_loop at idx of blk; *flows is false when no gradient
 * passes through it (nothing else is then filled). */
static int while_plan(bw *c, wgrad *w, gmap *m, const bool *active, bool *flows)
{
    d2_program *p = c->p;
    const d2_opdef *wdef = d2_op_def(D2_OP_while_loop);
    const d2_op *op = &p->blocks[w->blk].ops[w->idx];
    int n = w->n = op->n_in;
    w->cond_b = (int)op->attrs.v[d2_attr_index(wdef, "cond")].u.i;
    w->body_b = (int)op->attrs.v[d2_attr_index(wdef, "body")].u.i;
    w->line = op->line;
    w->col = op->col;
    w->body_ops = p->blocks[w->body_b].n_ops;
    w->inits = d2_malloc(sizeof *w->inits * (4 * (size_t)n + 1));
    if (!w->inits)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    w->finals = w->inits + n;
    w->bpar = w->finals + n;
    w->byld = w->bpar + n;
    memcpy(w->inits, op->in, sizeof *w->inits * (size_t)n);
    memcpy(w->finals, op->out, sizeof *w->inits * (size_t)n);
    memcpy(w->bpar, p->blocks[w->body_b].params, sizeof *w->inits * (size_t)n);
    memcpy(w->byld, p->blocks[w->body_b].yields, sizeof *w->inits * (size_t)n);
    ilist free = {0};
    int rc = collect_free(c, w->body_b, w->body_b, true, &free);
    for (int i = 0; i < free.n && rc == 0; i++) {
        int v = free.v[i];
        if (v < m->n && active[v] && grad_var(c, v))
            rc = ilist_add(&w->wset, v, c->err);
    }
    ilist_free(&free);
    if (rc < 0)
        return -1;
    bool out = false, in = w->wset.n > 0;
    for (int j = 0; j < n; j++) {
        if (!grad_var(c, w->bpar[j]))
            continue;
        bool init_active = w->inits[j] < m->n && active[w->inits[j]] && grad_var(c, w->inits[j]);
        if (ilist_push(&w->gset, j, c->err) < 0)
            return -1;
        out |= gmap_get(m, w->finals[j]) >= 0;
        in |= init_active;
    }
    *flows = out && in;
    if (!*flows)
        return 0;
    /* what the body's gradient recomputes, and so which carried values to record */
    w->keep = d2_calloc((size_t)w->body_ops + (size_t)p->n_vars + 1, sizeof *w->keep);
    w->arrs = d2_malloc(sizeof *w->arrs * ((size_t)n + 1));
    if (!w->keep || !w->arrs)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    w->need = w->keep + w->body_ops;
    ilist want = {0}, seed = {0};
    for (int t = 0; t < w->gset.n && rc == 0; t++) {
        rc = ilist_push(&want, w->bpar[w->gset.v[t]], c->err);
        if (rc == 0)
            rc = ilist_push(&seed, w->byld[w->gset.v[t]], c->err);
    }
    for (int k = 0; k < w->wset.n && rc == 0; k++)
        rc = ilist_push(&want, w->wset.v[k], c->err);
    if (rc == 0)
        rc = needed_ops(c, w->body_b, &want, &seed, w->keep, w->need);
    ilist_free(&want);
    ilist_free(&seed);
    for (int j = 0; j < n && rc == 0; j++) {
        if (!w->need[w->bpar[j]])
            continue;
        if (is_array(c, w->bpar[j]) && array_stand_in(c, w, j, &rc))
            continue;
        if (rc == 0 && is_array(c, w->bpar[j]) && array_grown(c, w, j, &rc))
            continue;
        if (is_array(c, w->bpar[j])) {
            char where[64];
            op_where(&p->blocks[w->blk].ops[w->idx], where, sizeof where);
            return d2_err_set(c->err, D2_ERR_UNSUPPORTED,
                              "append_backward: while_loop%s carries a tensor array (value %d) "
                              "that its body's gradient reads; this is not supported",
                              where, j);
        }
        rc = ilist_push(&w->sset, w->bpar[j], c->err);
    }
    return rc;
}

/* Rewrites the forward while_loop to record the carried values of w->sset
 * (sets w->cnt, w->arrs; w->idx follows the op, which moves down past the
 * initial values inserted before it). */
static int while_record(bw *c, wgrad *w)
{
    d2_program *p = c->p;
    int ns = w->sset.n;
    int *extra = d2_malloc(sizeof *extra * (2 * (size_t)ns + 3));
    if (!extra)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    int *outs = extra + ns + 1, rc = -1;
    /* initial values: count 0 and empty arrays, just before the op */
    int n0 = p->blocks[w->blk].n_ops;
    extra[0] = emit_i64(c, w->blk, 0);
    if (extra[0] < 0)
        goto done;
    const d2_opdef *adef = d2_op_def(D2_OP_array_create);
    for (int s = 0; s < ns; s++) {
        d2_attrs a;
        d2_attrs_init_default(adef, &a);
        d2_type t = vtype(c, w->sset.v[s]);
        if (a.n != adef->n_attrs || d2_attr_set_int(adef, &a, "dtype", t.dtype) < 0) {
            d2_attrs_free(&a);
            d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
            goto done;
        }
        extra[1 + s] = emit1(c, w->blk, D2_OP_array_create, NULL, 0, &a);
        d2_attrs_free(&a);
        if (extra[1 + s] < 0)
            goto done;
    }
    int moved = p->blocks[w->blk].n_ops - n0;
    if (move_tail_ops(c, w->blk, moved, w->idx) < 0)
        goto done;
    w->idx += moved;
    /* the cond block takes them and ignores them */
    for (int s = 0; s <= ns; s++) {
        d2_type t = vtype(c, extra[s]);
        int cv = d2_program_add_var(p, w->cond_b, NULL, &t, c->err);
        if (cv < 0 || d2_block_add_param(p, w->cond_b, cv, c->err) < 0)
            goto done;
    }
    /* the body: count + 1, and each array with this iteration's value at the count */
    int b = w->body_b;
    d2_type ct = vtype(c, extra[0]);
    int bcnt = d2_program_add_var(p, b, NULL, &ct, c->err);
    if (bcnt < 0 || d2_block_add_param(p, b, bcnt, c->err) < 0)
        goto done;
    for (int s = 0; s < ns; s++) {
        d2_type at = vtype(c, extra[1 + s]);
        outs[s] = d2_program_add_var(p, b, NULL, &at, c->err);
        if (outs[s] < 0 || d2_block_add_param(p, b, outs[s], c->err) < 0)
            goto done;
    }
    int one = emit_i64(c, b, 1);
    int next = one < 0 ? -1 : emit2(c, b, D2_OP_add, bcnt, one);
    if (next < 0 || d2_block_add_yield(p, b, next, c->err) < 0)
        goto done;
    for (int s = 0; s < ns; s++) {
        int in[3] = {outs[s], bcnt, w->sset.v[s]};
        int wr = emit1(c, b, D2_OP_array_write, in, 3, NULL);
        if (wr < 0 || d2_block_add_yield(p, b, wr, c->err) < 0)
            goto done;
    }
    /* the op: the initial values in, the count and the arrays out */
    if (widen_op(c, w->blk, w->idx, extra, 1 + ns, outs) < 0)
        goto done;
    w->cnt = outs[0];
    for (int s = 0; s < ns; s++)
        w->arrs[s] = outs[1 + s];
    rc = 0;
done:
    d2_free(extra);
    return rc;
}

/* Fills block gbody of the reverse loop, whose params are xpar (count,
 * carried gradients, accumulated enclosing gradients): one iteration of the
 * body's gradient, yielding the next values of the same. */
static int while_grad_body(bw *c, const wgrad *w, int gbody, const int *xpar)
{
    d2_program *p = c->p;
    int n_remap, rc = -1;
    int *remap = new_remap(c, &n_remap);
    gmap bm = {0, NULL};
    bool *want = NULL;
    if (!remap)
        return -1;
    int one = emit_i64(c, gbody, 1);
    int k1 = one < 0 ? -1 : emit2(c, gbody, D2_OP_subtract, xpar[0], one);
    if (k1 < 0)
        goto done;
    for (int s = 0; s < w->sset.n; s++) {
        int r = emit2(c, gbody, D2_OP_array_read, w->arrs[s], k1);
        if (r < 0)
            goto done;
        remap[w->sset.v[s]] = r;
    }
    for (int q = 0; q < w->stand.n; q++)
        for (int t = 0; t < w->gset.n; t++)
            if (w->gset.v[t] == w->stand.v[q])
                remap[w->bpar[w->stand.v[q]]] = xpar[1 + t];
    for (int q = 0; q < w->grown.n; q++) {
        int in[2] = {w->finals[w->grown.v[q]], mapped(remap, n_remap, w->glen.v[q])};
        int cut = emit1(c, gbody, D2_OP_array_truncate, in, 2, NULL);
        if (cut < 0)
            goto done;
        remap[w->bpar[w->grown.v[q]]] = cut;
    }
    if (clone_ops(c, w->body_b, 0, w->body_ops, w->keep, gbody, remap, n_remap) < 0 ||
        gmap_init(&bm, p->n_vars, c->err) < 0)
        goto done;
    want = d2_calloc((size_t)p->n_vars + 1, sizeof *want);
    if (!want) {
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* carried values the gradient does not read keep their forward variable as their key */
    for (int t = 0; t < w->gset.n; t++) {
        int j = w->gset.v[t];
        int y = mapped(remap, n_remap, w->byld[j]);
        if (grad_var(c, y) && accumulate(c, gbody, &bm, y, xpar[1 + t]) < 0)
            goto done;
        want[mapped(remap, n_remap, w->bpar[j])] = true;
    }
    for (int k = 0; k < w->wset.n; k++)
        want[w->wset.v[k]] = true;
    if (backprop(c, gbody, 0, &bm, want) < 0 || d2_block_add_yield(p, gbody, k1, c->err) < 0)
        goto done;
    for (int t = 0; t < w->gset.n; t++) {
        int g = gmap_get(&bm, mapped(remap, n_remap, w->bpar[w->gset.v[t]]));
        if (g < 0)
            g = emit_full_like(c, gbody, xpar[1 + t], 0.0);
        if (g < 0 || d2_block_add_yield(p, gbody, g, c->err) < 0)
            goto done;
    }
    for (int k = 0; k < w->wset.n; k++) {
        int acc = xpar[1 + w->gset.n + k];
        int g = gmap_get(&bm, w->wset.v[k]);
        if (g >= 0)
            acc = emit2(c, gbody, is_array(c, acc) ? D2_OP_array_add : D2_OP_add, acc, g);
        if (acc < 0 || d2_block_add_yield(p, gbody, acc, c->err) < 0)
            goto done;
    }
    rc = prune_block(c, gbody);
done:
    d2_free(remap);
    d2_free(bm.g);
    d2_free(want);
    return rc;
}

/* Appends the reverse loop after the forward has been rewritten and adds
 * its results to m. */
static int while_reverse(bw *c, const wgrad *w, gmap *m, const bool *active)
{
    d2_program *p = c->p;
    int ng = w->gset.n, nw = w->wset.n, nc = 1 + ng + nw, rc = -1;
    int *v = d2_malloc(sizeof *v * (4 * (size_t)nc + 1));
    if (!v)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    int *ins = v, *cpar = v + nc, *xpar = v + 2 * nc, *outs = v + 3 * nc;
    /* initial values: the count, the finals' gradients, zeros */
    ins[0] = w->cnt;
    for (int t = 0; t < ng; t++) {
        int f = w->finals[w->gset.v[t]];
        int d = gmap_get(m, f);
        if ((ins[1 + t] = d >= 0 ? d : emit_full_like(c, w->blk, f, 0.0)) < 0)
            goto done;
    }
    for (int k = 0; k < nw; k++)
        if ((ins[1 + ng + k] = emit_full_like(c, w->blk, w->wset.v[k], 0.0)) < 0)
            goto done;
    int gcond = d2_program_add_block(p, w->blk, c->err);
    int gbody = gcond < 0 ? -1 : d2_program_add_block(p, w->blk, c->err);
    if (gbody < 0)
        goto done;
    for (int q = 0; q < nc; q++) {
        d2_type t = vtype(c, ins[q]);
        cpar[q] = d2_program_add_var(p, gcond, NULL, &t, c->err);
        xpar[q] = cpar[q] < 0 ? -1 : d2_program_add_var(p, gbody, NULL, &t, c->err);
        if (xpar[q] < 0 || d2_block_add_param(p, gcond, cpar[q], c->err) < 0 ||
            d2_block_add_param(p, gbody, xpar[q], c->err) < 0)
            goto done;
    }
    int z = emit_i64(c, gcond, 0);
    int go = z < 0 ? -1 : emit2(c, gcond, D2_OP_greater_than, cpar[0], z);
    if (go < 0 || d2_block_add_yield(p, gcond, go, c->err) < 0 ||
        while_grad_body(c, w, gbody, xpar) < 0)
        goto done;
    const d2_opdef *wdef = d2_op_def(D2_OP_while_loop);
    d2_attrs a;
    d2_attrs_init_default(wdef, &a);
    if (a.n != wdef->n_attrs || d2_attr_set_int(wdef, &a, "cond", gcond) < 0 ||
        d2_attr_set_int(wdef, &a, "body", gbody) < 0) {
        d2_attrs_free(&a);
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    int arc = append_control(c, w->blk, D2_OP_while_loop, ins, nc, &a, nc, outs);
    d2_attrs_free(&a);
    if (arc < 0)
        goto done;
    d2_block *b = &p->blocks[w->blk];
    b->ops[b->n_ops - 1].line = w->line;
    b->ops[b->n_ops - 1].col = w->col;
    for (int t = 0; t < ng; t++) {
        int iv = w->inits[w->gset.v[t]];
        if (iv < m->n && active[iv] && grad_var(c, iv) &&
            accumulate(c, w->blk, m, iv, outs[1 + t]) < 0)
            goto done;
    }
    for (int k = 0; k < nw; k++)
        if (accumulate(c, w->blk, m, w->wset.v[k], outs[1 + ng + k]) < 0)
            goto done;
    rc = 0;
done:
    d2_free(v);
    return rc;
}

/* The gradient of the while_loop at index idx of block blk. */
static int grad_while(bw *c, int blk, int idx, gmap *m, const bool *active)
{
    wgrad w;
    memset(&w, 0, sizeof w);
    w.blk = blk;
    w.idx = idx;
    bool flows = false;
    int rc = while_plan(c, &w, m, active, &flows);
    if (rc == 0 && flows)
        rc = while_record(c, &w);
    if (rc == 0 && flows)
        rc = while_reverse(c, &w, m, active);
    wgrad_free(&w);
    return rc;
}

/* Runs the registry rule of the op at index idx of block blk and adds the
 * gradients of its inputs to m. */
static int grad_rule(bw *c, int blk, int idx, gmap *m, const bool *active)
{
    d2_program *p = c->p;
    const d2_op *op = &p->blocks[blk].ops[idx];
    const d2_opdef *def = d2_op_def(op->id);
    char where[64];
    op_where(op, where, sizeof where);
    if (!d2_op_grad(op->id))
        return d2_err_set(c->err, D2_ERR_UNSUPPORTED, "append_backward: op %s%s has no gradient rule",
                          def->name, where);
    int n_in = op->n_in, n_out = op->n_out;
    size_t nh = 3 * (size_t)n_in + 2 * (size_t)n_out + 1;
    d2_gval *h = d2_calloc(nh, sizeof *h);
    bool *need = d2_calloc((size_t)n_in + 1, sizeof *need);
    int *in = d2_malloc(sizeof *in * ((size_t)n_in + 1));
    d2_attrs attrs = {0, NULL};
    if (!h || !need || !in || d2_attrs_copy(&attrs, &op->attrs, c->err) < 0) {
        d2_free(h);
        d2_free(need);
        d2_free(in);
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    }
    d2_gval *hin = h, *hout = h + n_in, *hdout = hout + n_out, *din = hdout + n_out;
    for (int k = 0; k < n_in; k++) {
        in[k] = op->in[k];
        hin[k] = d2_grad_static_val(in[k]);
        need[k] = input_active(c, op, k, active, m->n);
    }
    for (int j = 0; j < n_out; j++) {
        hout[j] = d2_grad_static_val(op->out[j]);
        hdout[j] = d2_grad_static_val(gmap_get(m, op->out[j]));
    }
    c->sb.block = blk;
    d2_gctx g = {&c->sb.base, def, &attrs, n_in, hin, n_out, hout, hdout, need, din, c->err};
    int rc = d2_grad_run(&g);
    if (rc < 0)
        d2_err_prefix(c->err, "append_backward: gradient of %s%s", def->name, where);
    for (int k = 0; k < n_in && rc == 0; k++)
        if (need[k] && din[k])
            rc = accumulate(c, blk, m, in[k], d2_grad_static_var(din[k]));
    d2_attrs_free(&attrs);
    d2_free(h);
    d2_free(need);
    d2_free(in);
    return rc;
}

/* Walks the ops of block blk from the last one down to index first, adding
 * to m the gradients flowing back from what m holds, along the variables that
 * depend on a wanted one (wanted and m cover the variables below m->n). The
 * gradient ops are appended to blk. */
static int backprop(bw *c, int blk, int first, gmap *m, const bool *wanted)
{
    d2_program *p = c->p;
    int n = m->n;
    int end = p->blocks[blk].n_ops;
    bool *active = d2_malloc(sizeof *active * ((size_t)n + 1));
    if (!active)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    memcpy(active, wanted, sizeof *active * (size_t)n);
    ilist free = {0};
    int rc = 0;
    /* forward: which variables depend on a wanted one */
    for (int i = first; i < end && rc == 0; i++) {
        const d2_op *op = &p->blocks[blk].ops[i];
        const d2_opdef *def = d2_op_def(op->id);
        if (def->flags & D2_OPF_NO_GRAD)
            continue;
        bool any = false;
        for (int k = 0; k < op->n_in && !any; k++)
            any = input_active(c, op, k, active, n);
        if (!any && is_control(def)) {
            free.n = 0;
            rc = op_free_vars(c, op, &free);
            for (int f = 0; f < free.n && !any; f++)
                any = free.v[f] < n && active[free.v[f]] && grad_var(c, free.v[f]);
        }
        for (int j = 0; j < op->n_out && any; j++) {
            int o = op->out[j];
            if (o >= 0 && o < n && grad_var(c, o))
                active[o] = true;
        }
    }
    /* reverse: each op whose results have gradients */
    for (int i = end - 1; i >= first && rc == 0; i--) {
        const d2_op *op = &p->blocks[blk].ops[i];
        const d2_opdef *def = d2_op_def(op->id);
        if (def->flags & D2_OPF_NO_GRAD)
            continue;
        bool any = false;
        for (int j = 0; j < op->n_out; j++) {
            int o = op->out[j];
            int g = gmap_get(m, o);
            if (g < 0)
                continue;
            any = true;
            rc = name_grad(c, o, g);
            if (rc < 0)
                break;
            op = &p->blocks[blk].ops[i];
        }
        if (!any || rc < 0)
            continue;
        if (op->id == D2_OP_cond)
            rc = grad_cond(c, blk, i, m, active);
        else if (op->id == D2_OP_while_loop)
            rc = grad_while(c, blk, i, m, active);
        else if (is_control(def)) {
            char where[64];
            op_where(op, where, sizeof where);
            rc = d2_err_set(c->err, D2_ERR_UNSUPPORTED,
                            "append_backward: control op %s%s has no gradient", def->name, where);
        } else {
            bool need = false;
            for (int k = 0; k < op->n_in && !need; k++)
                need = input_active(c, op, k, active, n);
            if (need)
                rc = grad_rule(c, blk, i, m, active);
        }
    }
    ilist_free(&free);
    d2_free(active);
    return rc;
}

int d2_gradients(d2_program *p, int block, const int *targets, const int *target_grads,
                 int n_targets, const int *wrt, int n_wrt, const int *no_grad, int n_no_grad,
                 int *grads, d2_err *err)
{
    if (d2_ops_init(err) < 0)
        return -1;
    if (block < 0 || block >= p->n_blocks)
        return d2_err_set(err, D2_ERR_INVALID, "append_backward: block %d does not exist", block);
    for (int i = 0; i < n_targets; i++) {
        if (targets[i] < 0 || targets[i] >= p->n_vars ||
            (target_grads && (target_grads[i] < -1 || target_grads[i] >= p->n_vars)))
            return d2_err_set(err, D2_ERR_INVALID, "append_backward: target %d is no variable", i);
        const d2_type *tt = &p->vars[targets[i]].type;
        const d2_type *gt = target_grads && target_grads[i] >= 0
                                ? &p->vars[target_grads[i]].type
                                : tt;
        if (gt->kind != tt->kind || gt->dtype != tt->dtype)
            return d2_err_set(err, D2_ERR_DTYPE,
                              "append_backward: the gradient given for target '%s' is %s, the "
                              "target is %s",
                              p->vars[targets[i]].name, d2_dtype_name(gt->dtype),
                              d2_dtype_name(tt->dtype));
    }
    for (int i = 0; i < n_wrt; i++) {
        if (wrt[i] < 0 || wrt[i] >= p->n_vars)
            return d2_err_set(err, D2_ERR_INVALID,
                              "append_backward: input %d is no variable", i);
        grads[i] = -1;
    }
    bw c;
    memset(&c, 0, sizeof c);
    d2_grad_static_init(&c.sb, p, block);
    c.p = p;
    c.err = err;
    c.n_fwd = p->n_vars;
    bool *stop = d2_calloc((size_t)p->n_vars + 1, sizeof *stop);
    bool *want = d2_calloc((size_t)p->n_vars + 1, sizeof *want);
    gmap m = {0, NULL};
    int rc = -1;
    if (!stop || !want) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < n_no_grad; i++)
        if (no_grad[i] >= 0 && no_grad[i] < p->n_vars)
            stop[no_grad[i]] = true;
    c.stop = stop;
    c.n_stop = p->n_vars;
    for (int i = 0; i < n_wrt; i++)
        want[wrt[i]] = true;
    if (gmap_init(&m, p->n_vars, err) < 0)
        goto done;
    for (int i = 0; i < n_targets; i++) {
        int t = targets[i];
        if (!grad_var(&c, t) || is_array(&c, t))
            continue;
        int g = target_grads && target_grads[i] >= 0 ? target_grads[i]
                                                      : emit_full_like(&c, block, t, 1.0);
        if (g < 0 || accumulate(&c, block, &m, t, g) < 0)
            goto done;
    }
    if (backprop(&c, block, 0, &m, want) < 0)
        goto done;
    for (int i = 0; i < n_wrt; i++) {
        int g = gmap_get(&m, wrt[i]);
        if (g < 0)
            continue;
        if (name_grad(&c, wrt[i], g) < 0)
            goto done;
        /* a gradient shared with another variable gets its own named copy */
        const char *gn = p->vars[g].name, *vn = p->vars[wrt[i]].name;
        size_t vl = strlen(vn);
        if (strncmp(gn, vn, vl) != 0 || strcmp(gn + vl, "@GRAD") != 0) {
            int cp = emit1(&c, block, D2_OP_assign, &g, 1, NULL);
            if (cp < 0 || name_grad(&c, wrt[i], cp) < 0)
                goto done;
            g = cp;
        }
        grads[i] = g;
    }
    rc = 0;
done:
    d2_free(stop);
    d2_free(want);
    d2_free(m.g);
    d2_free(c.named);
    return rc;
}

int d2_append_backward(d2_program *p, int block, int loss, const int *wrt, int n_wrt,
                       int *grads, d2_err *err)
{
    return d2_gradients(p, block, &loss, NULL, 1, wrt, n_wrt, NULL, 0, grads, err);
}
