/* fuse_add_norm.c - residual add + layer_norm fusion (BuildStrategy.fuse_elewise_add_act_ops):
 * s = add(x, y) with x, y and s of one type, read only by layer_norm(s, scale, bias), becomes
 * one add_layer_norm(x, y, scale, bias) that adds and normalises each row while it is in L1
 * (the transformer block's "norm(x + sublayer(x))"). The fused op takes the layer_norm's place
 * and result variable. Runs after fuse_linear, which takes a residual add after a linear into
 * the GEMM's epilogue first. Level INFERENCE (add_layer_norm has no gradient). */
#include "passes.h"

/* Fuses layer_norm op li of block b with the add that feeds it: 1 when done, 0 when the
 * pattern does not hold, -1 on error. */
static int fuse_one(d2_program *p, int b, int li, const int *uses, d2_err *err)
{
    const d2_block *blk = &p->blocks[b];
    const d2_op *ln = &blk->ops[li];
    int s = ln->in[0], ai = -1;
    for (int i = li - 1; i >= 0 && ai < 0; i--)
        if (blk->ops[i].n_out == 1 && blk->ops[i].out[0] == s)
            ai = i;
    if (ai < 0 || blk->ops[ai].id != D2_OP_add || blk->ops[ai].n_in != 2 || uses[s] != 1 ||
        d2_pass_is_output(p, s))
        return 0;
    const d2_op *add = &blk->ops[ai];
    const d2_type *st = &p->vars[s].type;
    if (!d2_dtype_is_float(st->dtype) || !d2_pass_same_type(&p->vars[add->in[0]].type, st) ||
        !d2_pass_same_type(&p->vars[add->in[1]].type, st))
        return 0;
    const d2_opdef *ldef = d2_op_def(D2_OP_layer_norm), *fdef = d2_op_def(D2_OP_add_layer_norm);
    d2_attrs a;
    d2_attrs_init_default(fdef, &a);
    if (a.n != fdef->n_attrs ||
        d2_attr_set_float(fdef, &a, "epsilon", d2_attr_float(ldef, &ln->attrs, "epsilon")) < 0 ||
        d2_attr_set_int(fdef, &a, "begin_norm_axis",
                        d2_attr_int(ldef, &ln->attrs, "begin_norm_axis")) < 0) {
        d2_attrs_free(&a);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    int in[4] = {add->in[0], add->in[1], ln->n_in > 1 ? ln->in[1] : -1,
                 ln->n_in > 2 ? ln->in[2] : -1};
    int out = ln->out[0], line = ln->line, col = ln->col;
    int fi = d2_block_add_op(p, b, D2_OP_add_layer_norm, in, 4, &out, 1, &a, err);
    d2_attrs_free(&a);
    if (fi < 0)
        return -1;
    /* the fused op takes the layer_norm's slot (it is "last"), then the add goes */
    d2_pass_place_fused(p, b, fi, li, -1, ai, line, col);
    return 1;
}

int d2_pass_fuse_add_norm(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    return d2_pass_fuse_each(p, D2_OP_layer_norm, fuse_one, err);
}
