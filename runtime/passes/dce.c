/* dce.c - dead-code elimination: ops none of whose results is read are removed, in every
 * block, until nothing more goes. Kept: side-effect ops (print, assert) and control ops whose
 * blocks hold one; a control op that goes takes its blocks with it. Level BASIC. */
#include "passes.h"

/* Whether block b, or a block its ops refer to, holds a side-effect op. */
static bool block_has_effect(const d2_program *p, int b, int depth)
{
    if (depth > p->n_blocks)
        return true; /* a cycle: the verifier rejects it; keep everything meanwhile */
    const d2_block *blk = &p->blocks[b];
    for (int i = 0; i < blk->n_ops; i++) {
        const d2_op *op = &blk->ops[i];
        if (d2_op_def(op->id)->flags & D2_OPF_SIDE_EFFECT)
            return true;
        for (int a = 0; a < op->attrs.n; a++)
            if (op->attrs.v[a].type == D2_ATTR_BLOCK && op->attrs.v[a].u.i > 0 &&
                op->attrs.v[a].u.i < p->n_blocks &&
                block_has_effect(p, (int)op->attrs.v[a].u.i, depth + 1))
                return true;
    }
    return false;
}

static bool removable(const d2_program *p, const d2_op *op, const int *uses)
{
    const d2_opdef *def = d2_op_def(op->id);
    if (def->flags & D2_OPF_SIDE_EFFECT)
        return false;
    for (int k = 0; k < op->n_out; k++)
        if (uses[op->out[k]] > 0)
            return false;
    if (def->flags & D2_OPF_CONTROL)
        for (int a = 0; a < op->attrs.n; a++)
            if (op->attrs.v[a].type == D2_ATTR_BLOCK && op->attrs.v[a].u.i > 0 &&
                op->attrs.v[a].u.i < p->n_blocks &&
                block_has_effect(p, (int)op->attrs.v[a].u.i, 0))
                return false;
    return true;
}

/* Removes dead ops from block b, last to first, keeping uses up to date for the ops of this
 * block (a removed control op's blocks are recounted by the next sweep). */
static int sweep(d2_program *p, int b, int *uses)
{
    int removed = 0;
    for (int i = p->blocks[b].n_ops - 1; i >= 0; i--) {
        d2_op *op = &p->blocks[b].ops[i];
        if (!removable(p, op, uses))
            continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0)
                uses[op->in[k]]--;
        d2_pass_remove_op(p, b, i);
        removed++;
    }
    return removed;
}

int d2_pass_dce(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    int total = 0;
    for (;;) {
        int *uses = d2_pass_use_counts(p);
        if (!uses)
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        int removed = 0;
        for (int b = 0; b < p->n_blocks; b++)
            removed += sweep(p, b, uses);
        d2_free(uses);
        if (removed == 0)
            break;
        total += removed;
        /* blocks of removed control ops go; their reads no longer count */
        if (d2_pass_compact(p, false, err) < 0)
            return -1;
    }
    return total;
}
