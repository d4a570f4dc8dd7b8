/* nhwc.c - keeps chains of float32 convolutions in NHWC, the layout oneDNN's convolutions run
 * in: conv2d and conv2d_fused ops whose input comes from, or whose result goes to, another
 * convolution become conv2d_fused {data_format = "NHWC"} reading and writing NHWC values, so
 * that the layout changes (a transpose op) only where a chain starts and where a value leaves
 * it, and a global average pool of a chain's result becomes a mean over its H and W axes;
 * dce then drops the transposes back to NCHW that nothing reads. Without this each
 * convolution reordered its input and output (a fifth of resnet_small's run). Level
 * INFERENCE (conv2d_fused has no gradient). */
#include "passes.h"

#include <string.h>

static bool is_conv(const d2_program *p, const d2_op *op)
{
    if (op->id != D2_OP_conv2d && op->id != D2_OP_conv2d_fused)
        return false;
    if (op->n_out != 1 || op->n_in < 2 || op->in[0] < 0)
        return false;
    const d2_type *x = &p->vars[op->in[0]].type, *y = &p->vars[op->out[0]].type;
    if (x->kind != D2_VALUE_TENSOR || x->dtype != D2_F32 || x->shape.ndim != 4 ||
        y->shape.ndim != 4)
        return false;
    if (op->id == D2_OP_conv2d_fused &&
        strcmp(d2_attr_str(d2_op_def(op->id), &op->attrs, "data_format"), "NCHW") != 0)
        return false;
    return true;
}

/* Copies attribute value v into the attribute of the same name of def in a. */
static int set_attr(const d2_opdef *def, d2_attrs *a, const char *name, const d2_attr_value *v)
{
    switch (v->type) {
    case D2_ATTR_INT:
        return d2_attr_set_int(def, a, name, v->u.i);
    case D2_ATTR_BOOL:
        return d2_attr_set_bool(def, a, name, v->u.b);
    case D2_ATTR_FLOAT:
        return d2_attr_set_float(def, a, name, v->u.f);
    case D2_ATTR_STR:
        return d2_attr_set_str(def, a, name, v->u.s);
    case D2_ATTR_INTS:
        return d2_attr_set_ints(def, a, name, v->u.ints.v, v->u.ints.n);
    default:
        return -1;
    }
}

/* Adds an op to block b and moves it to index at (later ops move down). */
static int insert_op(d2_program *p, int b, int at, d2_op_id id, const int *in, int n_in,
                     const int *out, int n_out, const d2_attrs *a, int line, int col, d2_err *err)
{
    int i = d2_block_add_op(p, b, id, in, n_in, out, n_out, a, err);
    if (i < 0)
        return -1;
    d2_block *blk = &p->blocks[b];
    d2_op op = blk->ops[i];
    op.line = line;
    op.col = col;
    memmove(&blk->ops[at + 1], &blk->ops[at], sizeof op * (size_t)(i - at));
    blk->ops[at] = op;
    return 0;
}

/* A new variable of block b holding var's value with its dims permuted by perm, named after
 * var with suffix. */
static int permuted_var(d2_program *p, int b, int var, const int64_t perm[4], const char *suffix,
                        d2_err *err)
{
    d2_type t = p->vars[var].type;
    for (int d = 0; d < 4; d++)
        t.shape.dims[d] = p->vars[var].type.shape.dims[perm[d]];
    char name[256];
    snprintf(name, sizeof name, "%s%s", p->vars[var].name, suffix);
    int v = d2_program_add_var(p, b, name, &t, err);
    if (v < 0) { /* the name is taken: a generated one */
        d2_err_clear(err);
        v = d2_program_add_var(p, b, NULL, &t, err);
    }
    return v;
}

static const int64_t TO_NHWC[4] = {0, 2, 3, 1}, TO_NCHW[4] = {0, 3, 1, 2};

/* A transpose op with perm, inserted at index at of block b: in -> out. */
static int add_transpose(d2_program *p, int b, int at, int in, int out, const int64_t perm[4],
                         int line, int col, d2_err *err)
{
    const d2_opdef *tdef = d2_op_def(D2_OP_transpose);
    d2_attrs a;
    d2_attrs_init_default(tdef, &a);
    if (a.n != tdef->n_attrs || d2_attr_set_ints(tdef, &a, "perm", perm, 4) < 0) {
        d2_attrs_free(&a);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    int rc = insert_op(p, b, at, D2_OP_transpose, &in, 1, &out, 1, &a, line, col, err);
    d2_attrs_free(&a);
    return rc;
}

/* Whether op is an average pool2d of a whole 4-D image to one value per channel (global, or
 * adaptive to 1x1, without padding): the mean over H and W, which reads NHWC as well. */
static bool is_global_avg_pool(const d2_program *p, const d2_op *op)
{
    if (op->id != D2_OP_pool2d || op->n_in != 1 || op->n_out != 1 || op->in[0] < 0)
        return false;
    const d2_opdef *def = d2_op_def(op->id);
    const d2_type *y = &p->vars[op->out[0]].type;
    if (strcmp(d2_attr_str(def, &op->attrs, "pooling_type"), "avg") != 0 ||
        y->shape.ndim != 4 || y->shape.dims[2] != 1 || y->shape.dims[3] != 1)
        return false;
    int nk = 0, np = 0;
    const int64_t *ks = d2_attr_ints(def, &op->attrs, "ksize", &nk);
    const int64_t *pads = d2_attr_ints(def, &op->attrs, "paddings", &np);
    for (int i = 0; i < np; i++)
        if (pads[i] != 0)
            return false;
    if (d2_attr_bool(def, &op->attrs, "global_pooling"))
        return true;
    return d2_attr_bool(def, &op->attrs, "adaptive") && nk == 2 && ks[0] == 1 && ks[1] == 1;
}

/* Replaces the global average pool at index i of block b, whose input has the NHWC copy
 * xt, by a mean of xt over H and W ([n, 1, 1, c]) and a transpose of that to the pool's
 * [n, c, 1, 1] (a copy: only size-1 dims move). */
static int pool_from_nhwc(d2_program *p, int b, int i, int xt, d2_err *err)
{
    d2_op *op = &p->blocks[b].ops[i];
    int line = op->line, col = op->col, y = op->out[0];
    int m = permuted_var(p, b, y, TO_NHWC, "@nhwc", err);
    if (m < 0)
        return -1;
    const d2_opdef *mdef = d2_op_def(D2_OP_mean);
    d2_attrs a;
    d2_attrs_init_default(mdef, &a);
    static const int64_t hw[2] = {1, 2};
    if (a.n != mdef->n_attrs || d2_attr_set_ints(mdef, &a, "axis", hw, 2) < 0 ||
        d2_attr_set_bool(mdef, &a, "keepdim", true) < 0) {
        d2_attrs_free(&a);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    d2_pass_remove_op(p, b, i);
    int rc = insert_op(p, b, i, D2_OP_mean, &xt, 1, &m, 1, &a, line, col, err);
    d2_attrs_free(&a);
    if (rc < 0)
        return -1;
    return add_transpose(p, b, i + 1, m, y, TO_NCHW, line, col, err);
}

/* Rewrites the chained convolutions of block b; returns how many it rewrote. */
static int rewrite_block(d2_program *p, int b, d2_err *err)
{
    int n_vars = p->n_vars, rewritten = 0;
    /* which op of block b writes each variable (-1: none) */
    int *writer = d2_calloc((size_t)n_vars, sizeof *writer);
    int *nhwc = d2_calloc((size_t)n_vars, sizeof *nhwc); /* var + 1 of its NHWC copy */
    bool *chain = d2_calloc((size_t)p->blocks[b].n_ops + 1, sizeof *chain);
    if (!writer || !nhwc || !chain) {
        d2_free(writer);
        d2_free(nhwc);
        d2_free(chain);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    const d2_block *blk = &p->blocks[b];
    for (int v = 0; v < n_vars; v++)
        writer[v] = -1;
    for (int i = 0; i < blk->n_ops; i++)
        for (int k = 0; k < blk->ops[i].n_out; k++)
            writer[blk->ops[i].out[k]] = i;
    /* a convolution is in a chain when it reads (as x or residual) what another writes */
    for (int i = 0; i < blk->n_ops; i++) {
        const d2_op *op = &blk->ops[i];
        if (!is_conv(p, op))
            continue;
        for (int k = 0; k < op->n_in; k++) {
            if (k == 1 || k == 2 || op->in[k] < 0)
                continue;
            int w = writer[op->in[k]];
            if (w >= 0 && is_conv(p, &blk->ops[w]))
                chain[i] = chain[w] = true;
        }
    }
    int n_ops = blk->n_ops, rc = 0;
    /* ops are inserted as we go: i walks the current block, orig the original indices */
    for (int i = 0, orig = 0; orig < n_ops; i++, orig++) {
        if (!chain[orig])
            continue;
        d2_op *op = &p->blocks[b].ops[i];
        int line = op->line, col = op->col;
        int in[4] = {op->in[0], op->in[1], op->n_in > 2 ? op->in[2] : -1,
                     op->id == D2_OP_conv2d_fused && op->n_in > 3 ? op->in[3] : -1};
        for (int k = 0; k < 4; k++) {
            if (k == 1 || k == 2 || in[k] < 0)
                continue;
            if (!nhwc[in[k]]) { /* the chain starts here: a transpose to NHWC */
                int t = permuted_var(p, b, in[k], TO_NHWC, "@nhwc", err);
                if (t < 0 || add_transpose(p, b, i, in[k], t, TO_NHWC, line, col, err) < 0)
                    goto fail;
                nhwc[in[k]] = t + 1;
                i++;
            }
            in[k] = nhwc[in[k]] - 1;
        }
        op = &p->blocks[b].ops[i];
        int y = op->out[0];
        int yt = permuted_var(p, b, y, TO_NHWC, "@nhwc", err);
        if (yt < 0)
            goto fail;
        nhwc[y] = yt + 1;
        /* the NHWC convolution, with the op's attributes */
        const d2_opdef *odef = d2_op_def(op->id), *fdef = d2_op_def(D2_OP_conv2d_fused);
        d2_attrs a;
        d2_attrs_init_default(fdef, &a);
        if (a.n != fdef->n_attrs) {
            d2_err_set(err, D2_ERR_NOMEM, "out of memory");
            goto fail;
        }
        for (int k = 0; k < odef->n_attrs && k < op->attrs.n; k++)
            if (strcmp(odef->attrs[k].name, "data_format") != 0 &&
                set_attr(fdef, &a, odef->attrs[k].name, &op->attrs.v[k]) < 0) {
                d2_attrs_free(&a);
                d2_err_set(err, D2_ERR_INVALID, "nhwc: cannot copy attribute '%s'",
                           odef->attrs[k].name);
                goto fail;
            }
        if (d2_attr_set_str(fdef, &a, "data_format", "NHWC") < 0) {
            d2_attrs_free(&a);
            d2_err_set(err, D2_ERR_NOMEM, "out of memory");
            goto fail;
        }
        d2_pass_remove_op(p, b, i);
        int r = insert_op(p, b, i, D2_OP_conv2d_fused, in, 4, &yt, 1, &a, line, col, err);
        d2_attrs_free(&a);
        /* and the result back in NCHW for the readers outside the chain (dce drops it when
         * there are none) */
        if (r < 0 || add_transpose(p, b, i + 1, yt, y, TO_NCHW, line, col, err) < 0)
            goto fail;
        i++;
        rewritten++;
    }
    /* a global average pool of a chain's result reads it in NHWC (then its transpose back to
     * NCHW often has no reader left) */
    for (int i = 0; i < p->blocks[b].n_ops; i++) {
        const d2_op *op = &p->blocks[b].ops[i];
        int x = op->n_in > 0 ? op->in[0] : -1;
        if (x < 0 || x >= n_vars || !nhwc[x] || !is_global_avg_pool(p, op))
            continue;
        if (pool_from_nhwc(p, b, i, nhwc[x] - 1, err) < 0)
            goto fail;
        i++;
        rewritten++;
    }
    rc = rewritten;
    goto done;
fail:
    rc = -1;
done:
    d2_free(writer);
    d2_free(nhwc);
    d2_free(chain);
    return rc;
}

int d2_pass_nhwc(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    int total = 0;
    for (int b = 0; b < p->n_blocks; b++) {
        int n = rewrite_block(p, b, err);
        if (n < 0)
            return -1;
        total += n;
    }
    return total;
}
