/* hoist.c - loop-invariant code motion: an op of a while_loop's condition or body block whose
 * inputs are all defined outside that block (by the enclosing blocks, before the loop) computes
 * the same value on every trip; it moves out, just before the while_loop, and runs once.
 * Moved: ops without side effects, sub-blocks or outputs their kernel allocates (views,
 * arrays), whose results the block does not yield. Level INFERENCE: a training Program's
 * loop gradient replays the body block as built. */
#include "passes.h"

#include <string.h>

static bool movable(const d2_program *p, int b, const d2_op *op)
{
    const d2_opdef *def = d2_op_def(op->id);
    if (def->flags & (D2_OPF_CONTROL | D2_OPF_SIDE_EFFECT | D2_OPF_ALLOCS_OUTPUTS))
        return false;
    for (int k = 0; k < op->n_in; k++)
        if (op->in[k] >= 0 && p->vars[op->in[k]].block == b)
            return false;
    const d2_block *blk = &p->blocks[b];
    for (int k = 0; k < op->n_out; k++)
        for (int y = 0; y < blk->n_yields; y++)
            if (blk->yields[y] == op->out[k])
                return false;
    return true;
}

/* Moves op i of block b to block pb just before op at (the loop); *at follows the loop. */
static int move_op(d2_program *p, int b, int i, int pb, int *at, d2_err *err)
{
    d2_block *dst = &p->blocks[pb];
    if (dst->n_ops == dst->cap_ops) {
        int cap = dst->cap_ops ? 2 * dst->cap_ops : 8;
        d2_op *ops = d2_realloc(dst->ops, sizeof *ops * (size_t)cap);
        if (!ops)
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        dst->ops = ops;
        dst->cap_ops = cap;
    }
    d2_block *src = &p->blocks[b];
    d2_op op = src->ops[i];
    memmove(&src->ops[i], &src->ops[i + 1], sizeof op * (size_t)(src->n_ops - i - 1));
    src->n_ops--;
    memmove(&dst->ops[*at + 1], &dst->ops[*at], sizeof op * (size_t)(dst->n_ops - *at));
    dst->ops[*at] = op;
    dst->n_ops++;
    (*at)++;
    for (int k = 0; k < op.n_out; k++)
        p->vars[op.out[k]].block = pb;
    return 0;
}

int d2_pass_hoist(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    int moved = 0;
    for (int pb = 0; pb < p->n_blocks; pb++)
        for (int w = 0; w < p->blocks[pb].n_ops; w++) {
            const d2_op *loop = &p->blocks[pb].ops[w];
            if (loop->id != D2_OP_while_loop)
                continue;
            int sub[2] = {-1, -1}, ns = 0;
            for (int a = 0; a < loop->attrs.n && ns < 2; a++)
                if (loop->attrs.v[a].type == D2_ATTR_BLOCK)
                    sub[ns++] = (int)loop->attrs.v[a].u.i;
            for (int s = 0; s < ns; s++) {
                int b = sub[s];
                if (b <= 0 || b >= p->n_blocks || b == pb)
                    continue;
                for (int i = 0; i < p->blocks[b].n_ops; i++) {
                    if (!movable(p, b, &p->blocks[b].ops[i]))
                        continue;
                    if (move_op(p, b, i, pb, &w, err) < 0)
                        return -1;
                    moved++;
                    i--;
                }
            }
        }
    return moved;
}
