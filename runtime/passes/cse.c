/* cse.c - common-subexpression elimination: within a block, an op with the same kind, inputs
 * and attributes as an earlier op of that block is dropped and its results' readers read the
 * earlier op's results. Not merged: control, side-effect and array ops, and ops whose results
 * are Program outputs (their names are part of the model). The registry has no random ops;
 * one added later must be kept out here. Level BASIC. */
#include "passes.h"

static bool mergeable(const d2_opdef *def)
{
    return !(def->flags & (D2_OPF_CONTROL | D2_OPF_SIDE_EFFECT | D2_OPF_ALLOCS_OUTPUTS));
}

/* Whether b computes what a computes. */
static bool same_op(const d2_program *p, const d2_op *a, const d2_op *b)
{
    if (a->id != b->id || a->n_in != b->n_in || a->n_out != b->n_out || a->attrs.n != b->attrs.n)
        return false;
    for (int k = 0; k < a->n_in; k++)
        if (a->in[k] != b->in[k])
            return false;
    for (int k = 0; k < a->attrs.n; k++)
        if (!d2_attr_value_equal(&a->attrs.v[k], &b->attrs.v[k]))
            return false;
    for (int k = 0; k < a->n_out; k++)
        if (!d2_pass_same_type(&p->vars[a->out[k]].type, &p->vars[b->out[k]].type) ||
            d2_pass_is_output(p, b->out[k]))
            return false;
    return true;
}

int d2_pass_cse(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    D2_UNUSED(err);
    int merged = 0;
    for (int b = 0; b < p->n_blocks; b++)
        for (int i = 1; i < p->blocks[b].n_ops; i++) {
            d2_op *op = &p->blocks[b].ops[i];
            if (!mergeable(d2_op_def(op->id)))
                continue;
            for (int j = 0; j < i; j++) {
                const d2_op *first = &p->blocks[b].ops[j];
                if (!same_op(p, first, op))
                    continue;
                for (int k = 0; k < op->n_out; k++)
                    d2_pass_replace_uses(p, op->out[k], first->out[k]);
                d2_pass_remove_op(p, b, i);
                i--;
                merged++;
                break;
            }
        }
    return merged;
}
