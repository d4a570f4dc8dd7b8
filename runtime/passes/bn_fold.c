/* bn_fold.c - batch_norm folding: conv2d(x, W, b) or linear(x, W, b) followed by
 * batch_norm(mean, var, scale, shift) over its output channels becomes one conv2d / linear
 * with new parameters W' = W * s and b' = (b - mean) * s + shift, s = scale / sqrt(var + eps),
 * when the conv's result feeds only the batch_norm. Level INFERENCE (the statistics and the
 * weights are frozen). */
#include "passes.h"

#include <math.h>
#include <string.h>

static double get(const d2_tensor *t, int64_t i)
{
    return t->dtype == D2_F32 ? (double)((const float *)d2_tensor_data(t))[i]
                              : ((const double *)d2_tensor_data(t))[i];
}

static void put(d2_tensor *t, int64_t i, double v)
{
    if (t->dtype == D2_F32)
        ((float *)d2_tensor_data(t))[i] = (float)v;
    else
        ((double *)d2_tensor_data(t))[i] = v;
}

/* The index in block b of the op before `before` that defines var, or -1. */
static int producer(const d2_block *blk, int before, int var)
{
    for (int i = before - 1; i >= 0; i--)
        for (int k = 0; k < blk->ops[i].n_out; k++)
            if (blk->ops[i].out[k] == var)
                return i;
    return -1;
}

/* Folds batch_norm op bi of block b into its producer when the pattern holds: 1 when done,
 * 0 when the pattern does not hold, -1 on error. */
static int fold_one(d2_program *p, int b, int bi, const int *uses, d2_err *err)
{
    d2_block *blk = &p->blocks[b];
    const d2_op *bn = &blk->ops[bi];
    int y = bn->in[0];
    int pi = producer(blk, bi, y);
    if (pi < 0 || uses[y] != 1 || d2_pass_is_output(p, y))
        return 0;
    d2_op *prod = &blk->ops[pi];
    bool conv = prod->id == D2_OP_conv2d;
    if (!conv && !(prod->id == D2_OP_linear && p->vars[y].type.shape.ndim == 2))
        return 0;
    if (prod->n_out != 1 || prod->n_in < 2)
        return 0;
    d2_tensor *w = d2_pass_param_data(p, prod->in[1]);
    int bias_var = prod->n_in > 2 ? prod->in[2] : -1;
    d2_tensor *bias = bias_var >= 0 ? d2_pass_param_data(p, bias_var) : NULL;
    d2_tensor *st[4];
    for (int k = 0; k < 4; k++)
        st[k] = d2_pass_param_data(p, bn->in[1 + k]);
    if (!w || (bias_var >= 0 && !bias) || !st[0] || !st[1] || !st[2] || !st[3] ||
        !d2_dtype_is_float(w->dtype) || (conv && w->ndim != 4) || (!conv && w->ndim != 2))
        return 0;
    int64_t oc = conv ? w->shape[0] : w->shape[1];
    if ((bias && (bias->dtype != w->dtype || d2_tensor_numel(bias) != oc)))
        return 0;
    for (int k = 0; k < 4; k++)
        if (st[k]->dtype != w->dtype || d2_tensor_numel(st[k]) != oc)
            return 0;
    double eps = d2_attr_float(d2_op_def(bn->id), &bn->attrs, "epsilon");
    d2_tensor *nw = d2_tensor_new(NULL, w->dtype, w->ndim, w->shape, err);
    int64_t bshape[1] = {oc};
    d2_tensor *nb = nw ? d2_tensor_new(NULL, w->dtype, 1, bshape, err) : NULL;
    if (!nb) {
        d2_tensor_unref(nw);
        return -1;
    }
    int64_t n = d2_tensor_numel(w), inner = conv ? n / (oc > 0 ? oc : 1) : 0;
    for (int64_t c = 0; c < oc; c++) {
        double s = get(st[2], c) / sqrt(get(st[1], c) + eps);
        double b0 = bias ? get(bias, c) : 0.0;
        put(nb, c, (b0 - get(st[0], c)) * s + get(st[3], c));
        if (conv)
            for (int64_t j = 0; j < inner; j++)
                put(nw, c * inner + j, get(w, c * inner + j) * s);
        else
            for (int64_t r = 0; r < w->shape[0]; r++)
                put(nw, r * oc + c, get(w, r * oc + c) * s);
    }
    const char *wname = p->vars[prod->in[1]].name;
    int wv = d2_pass_add_param(p, wname, "@bn", nw, err);
    int bv = wv >= 0 ? d2_pass_add_param(p, wname, "@bn_bias", nb, err) : -1;
    d2_tensor_unref(nw);
    d2_tensor_unref(nb);
    if (bv < 0)
        return -1;
    blk = &p->blocks[b]; /* adding parameters may have moved nothing here, but be exact */
    prod = &blk->ops[pi];
    if (prod->n_in < 3) {
        int *in = d2_realloc(prod->in, 3 * sizeof *in);
        if (!in)
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        prod->in = in;
        prod->n_in = 3;
    }
    prod->in[1] = wv;
    prod->in[2] = bv;
    prod->out[0] = blk->ops[bi].out[0];
    d2_pass_remove_op(p, b, bi);
    return 1;
}

int d2_pass_bn_fold(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    int *uses = d2_pass_use_counts(p);
    if (!uses)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    int folded = 0;
    for (int b = 0; b < p->n_blocks; b++)
        for (int i = 0; i < p->blocks[b].n_ops; i++) {
            if (p->blocks[b].ops[i].id != D2_OP_batch_norm)
                continue;
            int rc = fold_one(p, b, i, uses, err);
            if (rc < 0) {
                d2_free(uses);
                return -1;
            }
            if (rc > 0) {
                folded++;
                i--;
            }
        }
    d2_free(uses);
    /* the old weights and statistics are read by nothing now */
    if (folded && d2_pass_compact(p, true, err) < 0)
        return -1;
    return folded;
}
