/* program.c - Program IR construction, lookup, cloning and freeing. */
#include "program.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

d2_program *d2_program_new(d2_err *err)
{
    if (d2_ops_init(err) < 0)
        return NULL;
    d2_program *p = d2_calloc(1, sizeof *p);
    if (!p) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory allocating a program");
        return NULL;
    }
    if (d2_program_add_block(p, -1, err) < 0) {
        d2_free(p);
        return NULL;
    }
    return p;
}

static void op_free(d2_op *op)
{
    d2_free(op->in);
    d2_free(op->out);
    d2_attrs_free(&op->attrs);
}

void d2_program_free(d2_program *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_vars; i++) {
        d2_free(p->vars[i].name);
        d2_tensor_unref(p->vars[i].data);
    }
    d2_free(p->vars);
    d2_free(p->name_index);
    for (int b = 0; b < p->n_blocks; b++) {
        d2_block *blk = &p->blocks[b];
        for (int i = 0; i < blk->n_ops; i++)
            op_free(&blk->ops[i]);
        d2_free(blk->ops);
        d2_free(blk->params);
        d2_free(blk->yields);
    }
    d2_free(p->blocks);
    d2_free(p);
}

/* Grows *arr (of elem-size es) so index n fits. */
static int grow(void **arr, int *cap, int n, size_t es, d2_err *err)
{
    if (n < *cap)
        return 0;
    int nc = *cap ? *cap * 2 : 8;
    while (nc <= n)
        nc *= 2;
    void *a = d2_realloc(*arr, (size_t)nc * es);
    if (!a)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory growing a program");
    memset((char *)a + (size_t)*cap * es, 0, (size_t)(nc - *cap) * es);
    *arr = a;
    *cap = nc;
    return 0;
}

int d2_program_add_block(d2_program *p, int parent, d2_err *err)
{
    if (parent >= p->n_blocks)
        return d2_err_set(err, D2_ERR_INVALID, "parent block %d does not exist", parent);
    if (grow((void **)&p->blocks, &p->cap_blocks, p->n_blocks, sizeof *p->blocks, err) < 0)
        return -1;
    d2_block *b = &p->blocks[p->n_blocks];
    memset(b, 0, sizeof *b);
    b->parent = parent;
    return p->n_blocks++;
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void index_put(int *idx, int cap, const char *name, int var)
{
    uint32_t m = (uint32_t)cap - 1, i = name_hash(name) & m;
    while (idx[i])
        i = (i + 1) & m;
    idx[i] = var + 1;
}

/* Rebuilds the name index for room for n vars. */
static int index_rebuild(d2_program *p, int n, d2_err *err)
{
    int cap = p->name_cap ? p->name_cap : 16;
    while (cap < 2 * n)
        cap *= 2;
    int *idx = d2_calloc((size_t)cap, sizeof *idx);
    if (!idx)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    for (int i = 0; i < p->n_vars; i++)
        index_put(idx, cap, p->vars[i].name, i);
    d2_free(p->name_index);
    p->name_index = idx;
    p->name_cap = cap;
    return 0;
}

int d2_program_find_var(const d2_program *p, const char *name)
{
    if (!p->name_cap)
        return -1;
    uint32_t m = (uint32_t)p->name_cap - 1, i = name_hash(name) & m;
    for (; p->name_index[i]; i = (i + 1) & m) {
        int v = p->name_index[i] - 1;
        if (strcmp(p->vars[v].name, name) == 0)
            return v;
    }
    return -1;
}

int d2_program_rename_var(d2_program *p, int var, const char *name, d2_err *err)
{
    if (var < 0 || var >= p->n_vars)
        return d2_err_set(err, D2_ERR_INVALID, "variable %d does not exist", var);
    int other = d2_program_find_var(p, name);
    if (other >= 0)
        return other == var ? 0 : 1;
    char *dup = d2_strdup(name);
    if (!dup)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    char *old = p->vars[var].name;
    p->vars[var].name = dup;
    if (index_rebuild(p, p->n_vars, err) < 0) {
        p->vars[var].name = old;
        d2_free(dup);
        return -1;
    }
    d2_free(old);
    return 0;
}

int d2_program_add_var(d2_program *p, int block, const char *name, const d2_type *type,
                       d2_err *err)
{
    if (block < 0 || block >= p->n_blocks)
        return d2_err_set(err, D2_ERR_INVALID, "block %d does not exist", block);
    char gen[32];
    if (!name) {
        int k = p->n_vars;
        do
            snprintf(gen, sizeof gen, "t%d", k++);
        while (d2_program_find_var(p, gen) >= 0);
        name = gen;
    } else if (d2_program_find_var(p, name) >= 0) {
        return d2_err_set(err, D2_ERR_INVALID, "variable '%s' is defined twice", name);
    }
    if (grow((void **)&p->vars, &p->cap_vars, p->n_vars, sizeof *p->vars, err) < 0)
        return -1;
    if (2 * (p->n_vars + 1) > p->name_cap && index_rebuild(p, p->n_vars + 1, err) < 0)
        return -1;
    d2_var *v = &p->vars[p->n_vars];
    memset(v, 0, sizeof *v);
    v->name = d2_strdup(name);
    if (!v->name)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    v->type = *type;
    v->block = block;
    index_put(p->name_index, p->name_cap, v->name, p->n_vars);
    return p->n_vars++;
}

int d2_program_add_param(d2_program *p, const char *name, d2_tensor *data, const d2_type *type,
                         d2_err *err)
{
    d2_type t;
    if (type) {
        t = *type;
    } else if (data) {
        memset(&t, 0, sizeof t);
        t.kind = D2_VALUE_TENSOR;
        t.dtype = data->dtype;
        d2_tensor_get_shape(data, &t.shape);
    } else {
        return d2_err_set(err, D2_ERR_INVALID, "parameter '%s' needs a type or data",
                          name ? name : "?");
    }
    if (data) {
        d2_shape s;
        d2_tensor_get_shape(data, &s);
        if (data->dtype != t.dtype || !d2_shape_equal(&s, &t.shape))
            return d2_err_set(err, D2_ERR_SHAPE, "parameter '%s': data does not match its type",
                              name ? name : "?");
    }
    int v = d2_program_add_var(p, 0, name, &t, err);
    if (v < 0)
        return -1;
    p->vars[v].persistable = true;
    p->vars[v].data = d2_tensor_ref(data);
    return v;
}

static int int_push(int **arr, int *n, int v, d2_err *err)
{
    int *a = d2_realloc(*arr, sizeof(int) * (size_t)(*n + 1));
    if (!a)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    a[(*n)++] = v;
    *arr = a;
    return 0;
}

int d2_block_add_param(d2_program *p, int block, int var, d2_err *err)
{
    if (block < 0 || block >= p->n_blocks || var < 0 || var >= p->n_vars)
        return d2_err_set(err, D2_ERR_INVALID, "bad block or variable index");
    return int_push(&p->blocks[block].params, &p->blocks[block].n_params, var, err);
}

int d2_block_add_yield(d2_program *p, int block, int var, d2_err *err)
{
    if (block < 0 || block >= p->n_blocks || var < 0 || var >= p->n_vars)
        return d2_err_set(err, D2_ERR_INVALID, "bad block or variable index");
    return int_push(&p->blocks[block].yields, &p->blocks[block].n_yields, var, err);
}

static int *int_dup(const int *a, int n)
{
    int *r = d2_malloc(sizeof(int) * (size_t)(n + 1));
    if (r && n)
        memcpy(r, a, sizeof(int) * (size_t)n);
    return r;
}

int d2_block_add_op(d2_program *p, int block, d2_op_id id, const int *in, int n_in, const int *out,
                    int n_out, const d2_attrs *attrs, d2_err *err)
{
    if (block < 0 || block >= p->n_blocks)
        return d2_err_set(err, D2_ERR_INVALID, "block %d does not exist", block);
    const d2_opdef *def = d2_op_def(id);
    if (!def)
        return d2_err_set(err, D2_ERR_INVALID, "unknown op id %d", (int)id);
    d2_block *b = &p->blocks[block];
    if (grow((void **)&b->ops, &b->cap_ops, b->n_ops, sizeof *b->ops, err) < 0)
        return -1;
    d2_op *op = &b->ops[b->n_ops];
    memset(op, 0, sizeof *op);
    op->id = id;
    op->n_in = n_in;
    op->n_out = n_out;
    op->in = int_dup(in, n_in);
    op->out = int_dup(out, n_out);
    int rc = 0;
    if (!op->in || !op->out)
        rc = d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    else if (attrs)
        rc = d2_attrs_copy(&op->attrs, attrs, err);
    else {
        d2_attrs_init_default(def, &op->attrs);
        if (op->attrs.n != def->n_attrs)
            rc = d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    if (rc < 0) {
        op_free(op);
        return -1;
    }
    return b->n_ops++;
}

int d2_block_append_inferred(d2_program *p, int block, d2_op_id id, const int *in, int n_in,
                             const d2_attrs *attrs, int n_out, int *out_vars, d2_err *err)
{
    const d2_opdef *def = d2_op_def(id);
    if (!def)
        return d2_err_set(err, D2_ERR_INVALID, "unknown op id %d", (int)id);
    d2_attrs defaults = {0, NULL};
    if (!attrs) {
        d2_attrs_init_default(def, &defaults);
        attrs = &defaults;
    }
    int rc = -1;
    d2_type *itypes = d2_calloc((size_t)n_in + 1, sizeof *itypes);
    const d2_tensor **ivals = d2_calloc((size_t)n_in + 1, sizeof *ivals);
    d2_type *otypes = d2_calloc((size_t)n_out + 1, sizeof *otypes);
    if (!itypes || !ivals || !otypes) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < n_in; i++) {
        if (in[i] < 0) {
            itypes[i].dtype = (d2_dtype)-1;
            continue;
        }
        if (in[i] >= p->n_vars) {
            d2_err_set(err, D2_ERR_INVALID, "%s: input %d refers to no variable", def->name, i);
            goto done;
        }
        itypes[i] = p->vars[in[i]].type;
        ivals[i] = p->vars[in[i]].data;
    }
    if (d2_op_infer(def, attrs, itypes, (const d2_tensor *const *)ivals, n_in, otypes, n_out,
                    err) < 0)
        goto done;
    for (int i = 0; i < n_out; i++) {
        out_vars[i] = d2_program_add_var(p, block, NULL, &otypes[i], err);
        if (out_vars[i] < 0)
            goto done;
    }
    rc = d2_block_add_op(p, block, id, in, n_in, out_vars, n_out, attrs, err);
done:
    d2_free(itypes);
    d2_free(ivals);
    d2_free(otypes);
    d2_attrs_free(&defaults);
    return rc;
}

d2_program *d2_program_clone(const d2_program *src, d2_err *err)
{
    d2_program *p = d2_calloc(1, sizeof *p);
    if (!p) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    p->vars = d2_calloc((size_t)src->n_vars + 1, sizeof *p->vars);
    p->blocks = d2_calloc((size_t)src->n_blocks + 1, sizeof *p->blocks);
    if (!p->vars || !p->blocks)
        goto oom;
    p->cap_vars = src->n_vars + 1;
    p->cap_blocks = src->n_blocks + 1;
    for (int i = 0; i < src->n_vars; i++) {
        p->vars[i] = src->vars[i];
        p->vars[i].name = d2_strdup(src->vars[i].name);
        p->vars[i].data = NULL;
        p->n_vars = i + 1;
        if (!p->vars[i].name)
            goto oom;
        p->vars[i].data = d2_tensor_ref(src->vars[i].data);
    }
    if (index_rebuild(p, p->n_vars, err) < 0)
        goto oom;
    for (int b = 0; b < src->n_blocks; b++) {
        const d2_block *sb = &src->blocks[b];
        d2_block *db = &p->blocks[b];
        p->n_blocks = b + 1;
        db->parent = sb->parent;
        db->params = int_dup(sb->params, sb->n_params);
        db->yields = int_dup(sb->yields, sb->n_yields);
        db->ops = d2_calloc((size_t)sb->n_ops + 1, sizeof *db->ops);
        if (!db->params || !db->yields || !db->ops)
            goto oom;
        db->n_params = sb->n_params;
        db->n_yields = sb->n_yields;
        db->cap_ops = sb->n_ops + 1;
        for (int i = 0; i < sb->n_ops; i++) {
            const d2_op *so = &sb->ops[i];
            d2_op *o = &db->ops[i];
            *o = *so;
            o->in = int_dup(so->in, so->n_in);
            o->out = int_dup(so->out, so->n_out);
            o->attrs.n = 0;
            o->attrs.v = NULL;
            db->n_ops = i + 1;
            if (!o->in || !o->out || d2_attrs_copy(&o->attrs, &so->attrs, err) < 0)
                goto oom;
        }
    }
    return p;
oom:
    d2_program_free(p);
    d2_err_set(err, D2_ERR_NOMEM, "out of memory cloning a program");
    return NULL;
}

int d2_program_infer_op(const d2_program *p, const d2_op *op, d2_type *out, d2_err *err)
{
    const d2_opdef *def = d2_op_def(op->id);
    if (d2_op_check_arity(def, op->n_in, op->n_out, err) < 0)
        return -1;
    if (op->attrs.n != def->n_attrs)
        return d2_err_set(err, D2_ERR_INVALID, "op %s: expected %d attributes, got %d", def->name,
                          def->n_attrs, op->attrs.n);
    int rc = -1;
    d2_type *itypes = d2_calloc((size_t)op->n_in + 1, sizeof *itypes);
    const d2_tensor **ivals = d2_calloc((size_t)op->n_in + 1, sizeof *ivals);
    if (!itypes || !ivals) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < op->n_in; i++) {
        if (op->in[i] < 0) {
            itypes[i].dtype = (d2_dtype)-1;
            continue;
        }
        if (op->in[i] >= p->n_vars) {
            d2_err_set(err, D2_ERR_INVALID, "%s: input %d refers to no variable", def->name, i);
            goto done;
        }
        itypes[i] = p->vars[op->in[i]].type;
        ivals[i] = p->vars[op->in[i]].data;
    }
    for (int i = 0; i < op->n_out; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].dtype = (d2_dtype)-1;
    }
    d2_infer_ctx ic = {def,     &op->attrs, op->n_in, itypes, (const d2_tensor *const *)ivals,
                       op->n_out, out,       err,      p,      op};
    if (d2_infer_checked(&ic) < 0) {
        if (err && strncmp(err->msg, def->name, strlen(def->name)) != 0)
            d2_err_prefix(err, "%s", def->name);
        goto done;
    }
    rc = 0;
done:
    d2_free(itypes);
    d2_free(ivals);
    return rc;
}
