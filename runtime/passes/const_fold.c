/* const_fold.c - constant folding: an op whose inputs are all parameters with data is run once
 * on the CPU and its result becomes a parameter (the op goes); shape(x) of a statically shaped
 * x becomes a parameter too. Results may not grow beyond their inputs (no folding a big fill
 * into the model). In a Program that trains, only ops over non-float parameters fold (float
 * parameters may be updated by training). Level BASIC. */
#include "passes.h"

#include <string.h>

#define MAX_PORTS 16

/* Turns out var v into a parameter holding data (a reference is taken). */
static void make_param(d2_program *p, int v, d2_tensor *data)
{
    d2_var *var = &p->vars[v];
    var->persistable = true;
    var->block = 0;
    var->data = d2_tensor_ref(data);
    var->type.kind = D2_VALUE_TENSOR;
    var->type.dtype = data->dtype;
    d2_tensor_get_shape(data, &var->type.shape);
}

/* shape(x) with x's declared shape static: the int32 vector of its dims, or NULL. */
static d2_tensor *static_shape(const d2_program *p, const d2_op *op)
{
    const d2_type *t = &p->vars[op->in[0]].type;
    if (t->kind != D2_VALUE_TENSOR || !d2_shape_is_static(&t->shape))
        return NULL;
    int32_t dims[D2_MAX_DIMS];
    for (int i = 0; i < t->shape.ndim; i++) {
        if (t->shape.dims[i] > INT32_MAX)
            return NULL;
        dims[i] = (int32_t)t->shape.dims[i];
    }
    int64_t n = t->shape.ndim;
    d2_err err = {0};
    return d2_tensor_from_data(D2_I32, 1, &n, dims, &err);
}

/* Runs op on its parameter inputs when it may fold; the results, or false. */
static bool fold(const d2_program *p, const d2_op *op, bool trains, d2_tensor **res)
{
    const d2_opdef *def = d2_op_def(op->id);
    if ((def->flags & (D2_OPF_CONTROL | D2_OPF_SIDE_EFFECT | D2_OPF_ALLOCS_OUTPUTS)) ||
        op->n_in > MAX_PORTS || op->n_out > MAX_PORTS || op->n_out < 1)
        return false;
    for (int k = 0; k < op->n_out; k++)
        if (p->vars[op->out[k]].type.kind != D2_VALUE_TENSOR || d2_pass_is_output(p, op->out[k]))
            return false;
    if (op->id == D2_OP_shape && op->n_in == 1) {
        res[0] = static_shape(p, op);
        if (res[0])
            return true;
    }
    d2_tensor *in[MAX_PORTS];
    int64_t in_elems = 0, out_elems = 0;
    int present = 0;
    for (int k = 0; k < op->n_in; k++) {
        in[k] = NULL;
        if (op->in[k] < 0)
            continue;
        in[k] = d2_pass_param_data(p, op->in[k]);
        if (!in[k] || (trains && d2_dtype_is_float(in[k]->dtype)))
            return false;
        in_elems += d2_tensor_numel(in[k]);
        present++;
    }
    if (present == 0)
        return false; /* creation ops (full, arange): left to run, they make no parameter */
    d2_err err = {0};
    if (d2_op_run(NULL, op->id, &op->attrs, in, op->n_in, res, op->n_out, &err) < 0)
        return false; /* an error the run should report, where the op runs */
    for (int k = 0; k < op->n_out; k++)
        out_elems += d2_tensor_numel(res[k]);
    if (out_elems > (in_elems > 64 ? in_elems : 64)) {
        for (int k = 0; k < op->n_out; k++)
            d2_tensor_unref(res[k]);
        return false;
    }
    return true;
}

int d2_pass_const_fold(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    int folded = 0;
    for (int b = 0; b < p->n_blocks; b++)
        for (int i = 0; i < p->blocks[b].n_ops; i++) {
            d2_op *op = &p->blocks[b].ops[i];
            d2_tensor *res[MAX_PORTS] = {NULL};
            if (!fold(p, op, cx->trains, res))
                continue;
            for (int k = 0; k < op->n_out; k++) {
                make_param(p, op->out[k], res[k]);
                d2_tensor_unref(res[k]);
            }
            d2_pass_remove_op(p, b, i);
            i--;
            folded++;
        }
    /* parameters only the folded ops read are no longer part of an inference Program */
    if (folded && !cx->trains && d2_pass_compact(p, true, err) < 0)
        return -1;
    return folded;
}
