/* drop_identity.c - ops that return their input unchanged at inference are removed and their
 * readers read the input: dropout in mode "upscale_in_train" (or with p = 0), which the
 * inference form of a model keeps as a copy. Results that are Program outputs stay (their
 * names are part of the model). Level INFERENCE: a training Program holds dropout_train,
 * not dropout, but its meaning is left alone. */
#include "passes.h"

#include <string.h>

/* Whether op returns its only input unchanged. */
static bool is_identity(const d2_op *op)
{
    if (op->id != D2_OP_dropout || op->n_in != 1 || op->n_out != 1)
        return false;
    const d2_opdef *def = d2_op_def(D2_OP_dropout);
    return strcmp(d2_attr_str(def, &op->attrs, "mode"), "upscale_in_train") == 0 ||
           d2_attr_float(def, &op->attrs, "p") == 0;
}

int d2_pass_drop_identity(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    D2_UNUSED(err);
    int dropped = 0;
    for (int b = 0; b < p->n_blocks; b++)
        for (int i = 0; i < p->blocks[b].n_ops; i++) {
            const d2_op *op = &p->blocks[b].ops[i];
            if (!is_identity(op) || d2_pass_is_output(p, op->out[0]))
                continue;
            int from = op->out[0], to = op->in[0];
            d2_pass_remove_op(p, b, i);
            d2_pass_replace_uses(p, from, to);
            dropped++;
            i--;
        }
    return dropped;
}
