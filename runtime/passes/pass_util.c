/* pass_util.c - rewrite helpers the passes share: use counts, op removal, use replacement,
 * new parameters, and compaction of dropped blocks and parameters. */
#include "passes.h"

#include <stdio.h>
#include <string.h>

int *d2_pass_use_counts(const d2_program *p)
{
    int *uses = d2_calloc((size_t)(p->n_vars > 0 ? p->n_vars : 1), sizeof *uses);
    if (!uses)
        return NULL;
    for (int b = 0; b < p->n_blocks; b++) {
        const d2_block *blk = &p->blocks[b];
        for (int i = 0; i < blk->n_ops; i++)
            for (int k = 0; k < blk->ops[i].n_in; k++)
                if (blk->ops[i].in[k] >= 0)
                    uses[blk->ops[i].in[k]]++;
        for (int i = 0; i < blk->n_yields; i++)
            uses[blk->yields[i]]++;
    }
    return uses;
}

void d2_pass_remove_op(d2_program *p, int b, int i)
{
    d2_block *blk = &p->blocks[b];
    d2_op *op = &blk->ops[i];
    d2_free(op->in);
    d2_free(op->out);
    d2_attrs_free(&op->attrs);
    memmove(op, op + 1, (size_t)(blk->n_ops - i - 1) * sizeof *op);
    blk->n_ops--;
}

void d2_pass_replace_uses(d2_program *p, int from, int to)
{
    for (int b = 0; b < p->n_blocks; b++) {
        d2_block *blk = &p->blocks[b];
        for (int i = 0; i < blk->n_ops; i++)
            for (int k = 0; k < blk->ops[i].n_in; k++)
                if (blk->ops[i].in[k] == from)
                    blk->ops[i].in[k] = to;
        for (int i = 0; i < blk->n_yields; i++)
            if (blk->yields[i] == from)
                blk->yields[i] = to;
    }
}

bool d2_pass_is_output(const d2_program *p, int var)
{
    const d2_block *b0 = &p->blocks[0];
    for (int i = 0; i < b0->n_yields; i++)
        if (b0->yields[i] == var)
            return true;
    return false;
}

d2_tensor *d2_pass_param_data(const d2_program *p, int var)
{
    if (var < 0 || var >= p->n_vars || !p->vars[var].persistable)
        return NULL;
    d2_tensor *t = p->vars[var].data;
    return t && t->kind == D2_VALUE_TENSOR && d2_tensor_is_contiguous(t) ? t : NULL;
}

int d2_pass_add_param(d2_program *p, const char *base, const char *suffix, d2_tensor *data,
                      d2_err *err)
{
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_printf(&b, "%s%s", base, suffix);
    for (int k = 2; d2_program_find_var(p, b.data ? b.data : "") >= 0; k++) {
        d2_buf_free(&b);
        d2_buf_init(&b);
        d2_buf_printf(&b, "%s%s_%d", base, suffix, k);
    }
    char *name = d2_buf_take(&b);
    if (!name)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    d2_type t = {D2_VALUE_TENSOR, data->dtype, {0}};
    d2_tensor_get_shape(data, &t.shape);
    int v = d2_program_add_param(p, name, data, &t, err);
    d2_free(name);
    return v;
}

/* Marks block b and the blocks its ops refer to, transitively. */
static void mark_blocks(const d2_program *p, int b, bool *live)
{
    live[b] = true;
    const d2_block *blk = &p->blocks[b];
    for (int i = 0; i < blk->n_ops; i++)
        for (int a = 0; a < blk->ops[i].attrs.n; a++) {
            const d2_attr_value *av = &blk->ops[i].attrs.v[a];
            if (av->type == D2_ATTR_BLOCK && av->u.i > 0 && av->u.i < p->n_blocks &&
                !live[av->u.i])
                mark_blocks(p, (int)av->u.i, live);
        }
}

int d2_pass_compact(d2_program *p, bool drop_params, d2_err *err)
{
    bool *live = d2_calloc((size_t)p->n_blocks, sizeof *live);
    int *renum = d2_calloc((size_t)p->n_blocks, sizeof *renum);
    int *uses = d2_pass_use_counts(p);
    if (!live || !renum || !uses) {
        d2_free(live);
        d2_free(renum);
        d2_free(uses);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    mark_blocks(p, 0, live);
    int n = 0, dropped = 0;
    for (int b = 0; b < p->n_blocks; b++) {
        if (!live[b]) {
            d2_block *blk = &p->blocks[b];
            for (int i = blk->n_ops - 1; i >= 0; i--)
                d2_pass_remove_op(p, b, i);
            d2_free(blk->ops);
            d2_free(blk->params);
            d2_free(blk->yields);
            renum[b] = -1;
            dropped++;
            continue;
        }
        renum[b] = n;
        if (n != b)
            p->blocks[n] = p->blocks[b];
        n++;
    }
    p->n_blocks = n;
    for (int b = 0; b < n; b++) {
        d2_block *blk = &p->blocks[b];
        if (blk->parent >= 0)
            blk->parent = renum[blk->parent];
        for (int i = 0; i < blk->n_ops; i++)
            for (int a = 0; a < blk->ops[i].attrs.n; a++) {
                d2_attr_value *av = &blk->ops[i].attrs.v[a];
                if (av->type == D2_ATTR_BLOCK && av->u.i >= 0 && av->u.i < p->n_blocks + dropped)
                    av->u.i = renum[av->u.i];
            }
    }
    for (int v = 0; v < p->n_vars; v++) {
        d2_var *var = &p->vars[v];
        if (var->block >= 0 && var->block < n + dropped)
            var->block = renum[var->block] >= 0 ? renum[var->block] : 0;
        /* a parameter nothing reads any more (folded away): no longer part of the Program */
        if (drop_params && var->persistable && uses[v] == 0) {
            var->persistable = false;
            d2_tensor_unref(var->data);
            var->data = NULL;
        }
    }
    d2_free(live);
    d2_free(renum);
    d2_free(uses);
    return dropped;
}

bool d2_pass_same_type(const d2_type *a, const d2_type *b)
{
    return a->kind == b->kind && a->dtype == b->dtype && d2_shape_equal(&a->shape, &b->shape);
}

int d2_pass_residual_add(const d2_program *p, int b, int head, int y, const int *uses,
                         int *residual, int *add_i)
{
    const d2_block *blk = &p->blocks[b];
    const d2_type *ty = &p->vars[y].type;
    *residual = *add_i = -1;
    int ri = d2_pass_only_reader(p, b, head, y, uses);
    if (ri >= 0 && blk->ops[ri].id == D2_OP_add && blk->ops[ri].n_in == 2) {
        const d2_op *add = &blk->ops[ri];
        int other = add->in[0] == y ? add->in[1] : add->in[0];
        if (other != y && d2_pass_same_type(&p->vars[other].type, ty) &&
            d2_pass_same_type(&p->vars[add->out[0]].type, ty)) {
            *residual = other;
            *add_i = ri;
            ri = d2_pass_only_reader(p, b, ri, add->out[0], uses);
        }
    }
    return ri;
}

int d2_pass_add_relu_epilogue(const d2_program *p, int b, int head, int y, const int *uses,
                              int *residual, int *add_i, bool *relu)
{
    int ri = d2_pass_residual_add(p, b, head, y, uses, residual, add_i);
    *relu = ri >= 0 && p->blocks[b].ops[ri].id == D2_OP_relu;
    return *relu ? ri : *add_i;
}

int d2_pass_only_reader(const d2_program *p, int b, int from, int var, const int *uses)
{
    if (uses[var] != 1 || d2_pass_is_output(p, var))
        return -1;
    const d2_block *blk = &p->blocks[b];
    for (int i = from + 1; i < blk->n_ops; i++)
        for (int k = 0; k < blk->ops[i].n_in; k++)
            if (blk->ops[i].in[k] == var)
                return i;
    return -1; /* read by a yield or a nested block */
}

void d2_pass_place_fused(d2_program *p, int b, int fi, int last, int add_i, int head_i, int line,
                         int col)
{
    d2_block *mb = &p->blocks[b];
    d2_op fused = mb->ops[fi];
    fused.line = line;
    fused.col = col;
    mb->n_ops--;
    d2_op old = mb->ops[last];
    mb->ops[last] = fused;
    d2_free(old.in);
    d2_free(old.out);
    d2_attrs_free(&old.attrs);
    if (add_i >= 0 && add_i != last)
        d2_pass_remove_op(p, b, add_i);
    d2_pass_remove_op(p, b, head_i);
}

int d2_pass_fuse_each(d2_program *p, d2_op_id head,
                      int (*fuse)(d2_program *p, int b, int i, const int *uses, d2_err *err),
                      d2_err *err)
{
    int *uses = d2_pass_use_counts(p);
    if (!uses)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    int fused = 0;
    for (int b = 0; b < p->n_blocks; b++)
        for (int i = 0; i < p->blocks[b].n_ops; i++) {
            if (p->blocks[b].ops[i].id != head)
                continue;
            int rc = fuse(p, b, i, uses, err);
            if (rc < 0) {
                d2_free(uses);
                return -1;
            }
            if (rc > 0) {
                fused++;
                i--;
            }
        }
    d2_free(uses);
    return fused;
}
