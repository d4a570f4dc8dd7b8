/* fuse_elementwise.c - elementwise chain fusion (BuildStrategy.fuse_elewise_add_act_ops): a
 * tree of elementwise ops (add, subtract, multiply, divide, scale, relu, sigmoid, tanh, silu,
 * gelu, neg, exp, square, abs) whose inner results each have that one reader becomes one
 * fused_elementwise op with the tree as its postfix program, so the tree makes one pass over
 * memory instead of one per op (and one buffer per inner result).
 *
 * Every input of the tree must be shaped as the result, or as its trailing dims after leading
 * 1s (a bias, a scalar): the CPU kernel reads those periodically. The fused op takes the place
 * and the result variable of the tree's root. Level INFERENCE (fused_elementwise has no
 * gradient). */
#include "../fused_expr.h"
#include "passes.h"

#include <stdlib.h>
#include <string.h>

/* The tree being grown from one root. */
typedef struct tree {
    const d2_program *p;
    int b;
    const int *uses;
    d2_type root; /* the root's result type */
    int ops[D2_FX_MAX_INS], n_ops;
    int leaves[D2_FX_MAX_INPUTS], n_leaves;
} tree;

/* Whether op is one the pass fuses, with float operands of the result's dtype. */
static bool fusible(const d2_program *p, const d2_op *op, d2_dtype dt)
{
    switch (op->id) {
    case D2_OP_add:
    case D2_OP_subtract:
    case D2_OP_multiply:
    case D2_OP_divide:
        if (op->n_in != 2)
            return false;
        break;
    case D2_OP_relu:
    case D2_OP_sigmoid:
    case D2_OP_tanh:
    case D2_OP_silu:
    case D2_OP_gelu:
    case D2_OP_neg:
    case D2_OP_exp:
    case D2_OP_square:
    case D2_OP_abs:
    case D2_OP_scale:
        if (op->n_in != 1)
            return false;
        break;
    default:
        return false;
    }
    if (op->n_out != 1 || p->vars[op->out[0]].type.kind != D2_VALUE_TENSOR ||
        p->vars[op->out[0]].type.dtype != dt)
        return false;
    for (int k = 0; k < op->n_in; k++) {
        int v = op->in[k];
        if (v < 0 || p->vars[v].type.kind != D2_VALUE_TENSOR || p->vars[v].type.dtype != dt)
            return false;
    }
    return true;
}

/* Whether a value of type t is read periodically by a result of shape s: its dims after
 * leading 1s are s's trailing dims (dynamic dims match dynamic dims; the kernel checks the
 * run's shapes and falls back to the parts when they do not fit). */
static bool periodic(const d2_type *t, const d2_shape *s)
{
    const d2_shape *ts = &t->shape;
    if (ts->ndim > s->ndim)
        return false;
    int d = 0;
    while (d < ts->ndim && ts->dims[d] == 1)
        d++;
    for (; d < ts->ndim; d++)
        if (ts->dims[d] != s->dims[s->ndim - ts->ndim + d])
            return false;
    return true;
}

/* The index of the op of block b before `before` that defines var, or -1. */
static int producer(const d2_block *blk, int before, int var)
{
    for (int i = before - 1; i >= 0; i--)
        for (int k = 0; k < blk->ops[i].n_out; k++)
            if (blk->ops[i].out[k] == var)
                return i;
    return -1;
}

/* Adds op j and the fusible ops below it to t; false (t unchanged) when an input under it
 * is not read periodically or the tree grows past the program's limits. */
static bool take(tree *t, int j)
{
    const d2_block *blk = &t->p->blocks[t->b];
    const d2_op *op = &blk->ops[j];
    int mark_ops = t->n_ops, mark_leaves = t->n_leaves;
    if (t->n_ops == D2_FX_MAX_INS)
        return false;
    t->ops[t->n_ops++] = j;
    for (int k = 0; k < op->n_in; k++) {
        int v = op->in[k];
        if (!periodic(&t->p->vars[v].type, &t->root.shape))
            goto undo;
        int pj = producer(blk, j, v);
        if (pj >= 0 && t->uses[v] == 1 && !d2_pass_is_output(t->p, v) &&
            fusible(t->p, &blk->ops[pj], t->root.dtype) && take(t, pj))
            continue;
        bool seen = false;
        for (int l = 0; l < t->n_leaves && !seen; l++)
            seen = t->leaves[l] == v;
        if (!seen) {
            if (t->n_leaves == D2_FX_MAX_INPUTS)
                goto undo;
            t->leaves[t->n_leaves++] = v;
        }
    }
    return true;
undo:
    t->n_ops = mark_ops;
    t->n_leaves = mark_leaves;
    return false;
}

/* Whether op j of the tree's block is in the tree. */
static bool in_tree(const tree *t, int j)
{
    for (int i = 0; i < t->n_ops; i++)
        if (t->ops[i] == j)
            return true;
    return false;
}

static void put_const(d2_buf *b, double v) { d2_buf_printf(b, " %.17g", v); }

/* Appends the postfix program of the value var (read by op `reader`) to b. */
static void emit(const tree *t, int reader, int var, d2_buf *b)
{
    const d2_block *blk = &t->p->blocks[t->b];
    int j = producer(blk, reader, var);
    if (j < 0 || !in_tree(t, j)) {
        for (int l = 0; l < t->n_leaves; l++)
            if (t->leaves[l] == var)
                d2_buf_printf(b, " $%d", l);
        return;
    }
    const d2_op *op = &blk->ops[j];
    const d2_opdef *def = d2_op_def(op->id);
    for (int k = 0; k < op->n_in; k++)
        emit(t, j, op->in[k], b);
    switch (op->id) {
    case D2_OP_add:
        d2_buf_printf(b, " add");
        break;
    case D2_OP_subtract:
        d2_buf_printf(b, " subtract");
        break;
    case D2_OP_multiply:
        d2_buf_printf(b, " multiply");
        break;
    case D2_OP_divide:
        d2_buf_printf(b, " divide");
        break;
    case D2_OP_gelu:
        d2_buf_printf(b, d2_attr_bool(def, &op->attrs, "approximate") ? " gelu_tanh" : " gelu");
        break;
    case D2_OP_scale: {
        /* cpu/math.c's scale: s*x + c after, s*(x + c) before (same products, same sums) */
        double s = d2_attr_float(def, &op->attrs, "scale"), c = d2_attr_float(def, &op->attrs, "bias");
        if (d2_attr_bool(def, &op->attrs, "bias_after_scale")) {
            if (s != 1) {
                put_const(b, s);
                d2_buf_printf(b, " multiply");
            }
            put_const(b, c);
            d2_buf_printf(b, " add");
        } else {
            put_const(b, c);
            d2_buf_printf(b, " add");
            if (s != 1) {
                put_const(b, s);
                d2_buf_printf(b, " multiply");
            }
        }
        break;
    }
    default:
        d2_buf_printf(b, " %s", def->name);
        break;
    }
}

static int cmp_desc(const void *a, const void *b) { return *(const int *)b - *(const int *)a; }

/* Fuses the tree rooted at op r of block b: 1 when done, 0 when there is nothing to fuse,
 * -1 on error. */
static int fuse_root(d2_program *p, int b, int r, const int *uses, d2_err *err)
{
    const d2_block *blk = &p->blocks[b];
    const d2_op *root = &blk->ops[r];
    if (root->n_out != 1)
        return 0;
    tree t = {p, b, uses, p->vars[root->out[0]].type, {0}, 0, {0}, 0};
    if ((t.root.dtype != D2_F32 && t.root.dtype != D2_F64) || !fusible(p, root, t.root.dtype) ||
        !take(&t, r) || t.n_ops < 2)
        return 0;
    d2_buf text;
    d2_buf_init(&text);
    emit(&t, r + 1, root->out[0], &text);
    const char *expr = text.data ? text.data + 1 : "";
    d2_fx_prog prog;
    d2_err perr = {0};
    if (!text.data || d2_fx_parse(expr, t.n_leaves, &prog, &perr) < 0) {
        d2_buf_free(&text);
        return text.data ? 0 : d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    const d2_opdef *fdef = d2_op_def(D2_OP_fused_elementwise);
    d2_attrs a;
    d2_attrs_init_default(fdef, &a);
    if (a.n != fdef->n_attrs || d2_attr_set_str(fdef, &a, "expr", expr) < 0) {
        d2_attrs_free(&a);
        d2_buf_free(&text);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    d2_buf_free(&text);
    int out = root->out[0], line = root->line, col = root->col;
    int fi = d2_block_add_op(p, b, D2_OP_fused_elementwise, t.leaves, t.n_leaves, &out, 1, &a, err);
    d2_attrs_free(&a);
    if (fi < 0)
        return -1;
    /* the fused op takes the root's slot; the rest of the tree goes, last first */
    d2_block *mb = &p->blocks[b];
    d2_op fused = mb->ops[fi];
    fused.line = line;
    fused.col = col;
    mb->n_ops--;
    d2_op old = mb->ops[r];
    mb->ops[r] = fused;
    d2_free(old.in);
    d2_free(old.out);
    d2_attrs_free(&old.attrs);
    qsort(t.ops, (size_t)t.n_ops, sizeof t.ops[0], cmp_desc);
    for (int i = 0; i < t.n_ops; i++)
        if (t.ops[i] != r)
            d2_pass_remove_op(p, b, t.ops[i]);
    return 1;
}

int d2_pass_fuse_elementwise(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    int fused = 0;
    int *uses = d2_pass_use_counts(p);
    if (!uses)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    for (int b = 0; b < p->n_blocks; b++)
        /* from the end: a root is met before the ops it takes */
        for (int i = p->blocks[b].n_ops - 1; i >= 0; i--) {
            int before = p->blocks[b].n_ops;
            int rc = fuse_root(p, b, i, uses, err);
            if (rc < 0) {
                d2_free(uses);
                return -1;
            }
            if (rc == 0)
                continue;
            fused++;
            i -= before - p->blocks[b].n_ops; /* the ops taken were all before i */
            d2_free(uses);
            if (!(uses = d2_pass_use_counts(p)))
                return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        }
    d2_free(uses);
    return fused;
}
