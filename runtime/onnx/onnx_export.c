/* onnx_export.c - Program -> ONNX ModelProto: graphs, value names, If/Loop from cond/while_loop,
 * initializers (inline or external data) and the file. Per-op lowerings are in onnx_map.c. */
#include "onnx_priv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the pool: every protobuf-c struct and string of the model ---------------------- */

typedef struct ox_chunk {
    struct ox_chunk *next;
    max_align_t data[];
} ox_chunk;

void *ox_alloc(ox_ctx *c, size_t n)
{
    ox_chunk *k = d2_calloc(1, sizeof *k + (n ? n : 1));
    if (!k) {
        d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    k->next = c->pool;
    c->pool = k;
    return k->data;
}

static void pool_free(ox_ctx *c)
{
    while (c->pool) {
        ox_chunk *n = c->pool->next;
        d2_free(c->pool);
        c->pool = n;
    }
}

char *ox_strdup(ox_ctx *c, const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = ox_alloc(c, n);
    if (r)
        memcpy(r, s, n);
    return r;
}

char *ox_printf(ox_ctx *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return ox_strdup(c, buf);
}

static int vec_push(ox_ctx *c, ox_vec *v, void *x)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        void **nv = ox_alloc(c, cap * sizeof *nv);
        if (!nv)
            return -1;
        if (v->n)
            memcpy(nv, v->v, v->n * sizeof *nv);
        v->v = nv;
        v->cap = cap;
    }
    v->v[v->n++] = x;
    return 0;
}

int ox_fail(ox_ctx *c, const d2_op *op, d2_errcode code, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *name = op ? d2_op_def(op->id)->name : "program";
    if (op && op->line > 0)
        return d2_err_set(c->err, code, "line %d:%d: op %s: %s", op->line, op->col, name, msg);
    return d2_err_set(c->err, code, "op %s: %s", name, msg);
}

/* ---- names ------------------------------------------------------------------------- */

const char *ox_tmp(ox_ctx *c) { return ox_printf(c, "_ox%d", c->tmp_counter++); }

const char *ox_in(ox_ctx *c, const d2_op *op, int i)
{
    if (i >= op->n_in || op->in[i] < 0)
        return NULL;
    return c->names[op->in[i]];
}

const char *ox_def(ox_ctx *c, int v)
{
    int k = c->ndefs[v]++;
    const char *n = k == 0 ? ox_strdup(c, c->p->vars[v].name)
                           : ox_printf(c, "%s__%d", c->p->vars[v].name, k);
    if (n)
        c->names[v] = (char *)n;
    return n;
}

const char *ox_out(ox_ctx *c, const d2_op *op, int i) { return ox_def(c, op->out[i]); }

const d2_type *ox_vtype(ox_ctx *c, int v) { return &c->p->vars[v].type; }

const d2_type *ox_in_type(ox_ctx *c, const d2_op *op, int i)
{
    return i < op->n_in && op->in[i] >= 0 ? ox_vtype(c, op->in[i]) : NULL;
}

/* ---- nodes and attributes ----------------------------------------------------------- */

Onnx__NodeProto *ox_node(ox_ctx *c, const char *type, const char *const *ins, int n_in,
                         const char *const *outs, int n_out)
{
    Onnx__NodeProto *n = ox_alloc(c, sizeof *n);
    if (!n)
        return NULL;
    onnx__node_proto__init(n);
    n->op_type = ox_strdup(c, type);
    n->name = ox_printf(c, "%s_%d", type, c->tmp_counter++);
    n->input = ox_alloc(c, (size_t)(n_in + 1) * sizeof(char *));
    n->output = ox_alloc(c, (size_t)(n_out + 1) * sizeof(char *));
    if (!n->op_type || !n->name || !n->input || !n->output)
        return NULL;
    for (int i = 0; i < n_in; i++) {
        if (!ins[i])
            return NULL;
        n->input[i] = (char *)ins[i];
    }
    for (int i = 0; i < n_out; i++) {
        if (!outs[i])
            return NULL;
        n->output[i] = (char *)outs[i];
    }
    n->n_input = (size_t)n_in;
    n->n_output = (size_t)n_out;
    return vec_push(c, &c->g->nodes, n) < 0 ? NULL : n;
}

const char *ox_node1(ox_ctx *c, const char *type, const char *const *ins, int n_in,
                     Onnx__NodeProto **node)
{
    const char *o = ox_tmp(c);
    Onnx__NodeProto *n = o ? ox_node(c, type, ins, n_in, &o, 1) : NULL;
    if (node)
        *node = n;
    return n ? o : NULL;
}

static Onnx__AttributeProto *attr_new(ox_ctx *c, Onnx__NodeProto *n, const char *name,
                                      Onnx__AttributeProto__AttributeType type)
{
    if (!n)
        return NULL;
    Onnx__AttributeProto *a = ox_alloc(c, sizeof *a);
    if (!a)
        return NULL;
    onnx__attribute_proto__init(a);
    a->name = ox_strdup(c, name);
    a->has_type = 1;
    a->type = type;
    Onnx__AttributeProto **v = ox_alloc(c, (n->n_attribute + 1) * sizeof *v);
    if (!a->name || !v)
        return NULL;
    if (n->n_attribute)
        memcpy(v, n->attribute, n->n_attribute * sizeof *v);
    v[n->n_attribute++] = a;
    n->attribute = v;
    return a;
}

int ox_attr_int(ox_ctx *c, Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = attr_new(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    if (!a)
        return -1;
    a->has_i = 1;
    a->i = v;
    return 0;
}

int ox_attr_float(ox_ctx *c, Onnx__NodeProto *n, const char *name, double v)
{
    Onnx__AttributeProto *a = attr_new(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    if (!a)
        return -1;
    a->has_f = 1;
    a->f = (float)v;
    return 0;
}

int ox_attr_str(ox_ctx *c, Onnx__NodeProto *n, const char *name, const char *v)
{
    Onnx__AttributeProto *a = attr_new(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    char *s = a ? ox_strdup(c, v) : NULL;
    if (!s)
        return -1;
    a->has_s = 1;
    a->s.data = (uint8_t *)s;
    a->s.len = strlen(s);
    return 0;
}

int ox_attr_ints(ox_ctx *c, Onnx__NodeProto *n, const char *name, const int64_t *v, int cnt)
{
    Onnx__AttributeProto *a = attr_new(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    int64_t *d = a ? ox_alloc(c, (size_t)(cnt + 1) * sizeof *d) : NULL;
    if (!d)
        return -1;
    if (cnt)
        memcpy(d, v, (size_t)cnt * sizeof *d);
    a->ints = d;
    a->n_ints = (size_t)cnt;
    return 0;
}

int ox_attr_tensor(ox_ctx *c, Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t)
{
    Onnx__AttributeProto *a = attr_new(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
    if (!a || !t)
        return -1;
    a->t = t;
    return 0;
}

int ox_attr_graph(ox_ctx *c, Onnx__NodeProto *n, const char *name, Onnx__GraphProto *g)
{
    Onnx__AttributeProto *a = attr_new(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
    if (!a || !g)
        return -1;
    a->g = g;
    return 0;
}

/* ---- tensors, types and constants ----------------------------------------------------- */

int ox_onnx_dtype(d2_dtype dt)
{
    switch (dt) {
    case D2_F32: return ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    case D2_F64: return ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE;
    case D2_I32: return ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
    case D2_I64: return ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    case D2_BOOL: return ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
    case D2_F16: return ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
    case D2_BF16: return ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
    default: return ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED;
    }
}

Onnx__TensorProto *ox_tensor(ox_ctx *c, d2_dtype dt, int ndim, const int64_t *dims,
                             const void *data, size_t nbytes)
{
    Onnx__TensorProto *t = ox_alloc(c, sizeof *t);
    int64_t *d = ox_alloc(c, (size_t)(ndim + 1) * sizeof *d);
    uint8_t *raw = ox_alloc(c, nbytes);
    if (!t || !d || !raw)
        return NULL;
    onnx__tensor_proto__init(t);
    if (ndim)
        memcpy(d, dims, (size_t)ndim * sizeof *d);
    if (nbytes)
        memcpy(raw, data, nbytes);
    t->dims = d;
    t->n_dims = (size_t)ndim;
    t->has_data_type = 1;
    t->data_type = ox_onnx_dtype(dt);
    t->has_raw_data = 1;
    t->raw_data.data = raw;
    t->raw_data.len = nbytes;
    return t;
}

static const char *const_tensor(ox_ctx *c, Onnx__TensorProto *t)
{
    if (!t)
        return NULL;
    Onnx__NodeProto *n;
    const char *o = ox_node1(c, "Constant", NULL, 0, &n);
    return o && ox_attr_tensor(c, n, "value", t) == 0 ? o : NULL;
}

const char *ox_const_i64(ox_ctx *c, const int64_t *v, int n, bool scalar)
{
    int64_t dim = n;
    return const_tensor(c, ox_tensor(c, D2_I64, scalar ? 0 : 1, &dim, v,
                                     (size_t)n * sizeof(int64_t)));
}

const char *ox_const_scalar(ox_ctx *c, d2_dtype dt, double v)
{
    union {
        float f;
        double d;
        int32_t i32;
        int64_t i64;
        uint8_t b;
    } u;
    switch (dt) {
    case D2_F32: u.f = (float)v; break;
    case D2_F64: u.d = v; break;
    case D2_I32: u.i32 = (int32_t)v; break;
    case D2_I64: u.i64 = (int64_t)v; break;
    case D2_BOOL: u.b = v != 0; break;
    default:
        ox_fail(c, c->op, D2_ERR_DTYPE, "no ONNX constant of dtype %s", d2_dtype_name(dt));
        return NULL;
    }
    return const_tensor(c, ox_tensor(c, dt, 0, NULL, &u, d2_dtype_size(dt)));
}

const char *ox_cast(ox_ctx *c, const char *name, d2_dtype from, d2_dtype to)
{
    if (from == to || !name)
        return name;
    Onnx__NodeProto *n;
    const char *o = ox_node1(c, "Cast", &name, 1, &n);
    return o && ox_attr_int(c, n, "to", ox_onnx_dtype(to)) == 0 ? o : NULL;
}

const char *ox_to_scalar(ox_ctx *c, const char *name)
{
    const char *shape = ox_const_i64(c, NULL, 0, false);
    const char *ins[2] = {name, shape};
    return shape ? ox_node1(c, "Reshape", ins, 2, NULL) : NULL;
}

/* A TypeProto for t; with dims false every dim is left unknown (rank only), as loop-carried
 * and branch values may change shape; dim_prefix names the -1 dims of graph inputs. */
static Onnx__TypeProto *type_proto(ox_ctx *c, const d2_type *t, bool dims,
                                   const char *dim_prefix)
{
    Onnx__TypeProto *tp = ox_alloc(c, sizeof *tp);
    Onnx__TypeProto__Tensor *tt = ox_alloc(c, sizeof *tt);
    Onnx__TensorShapeProto *sh = ox_alloc(c, sizeof *sh);
    if (!tp || !tt || !sh)
        return NULL;
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(sh);
    tt->has_elem_type = 1;
    tt->elem_type = ox_onnx_dtype(t->dtype);
    if (t->kind == D2_VALUE_TENSOR) {
        sh->dim = ox_alloc(c, (size_t)(t->shape.ndim + 1) * sizeof *sh->dim);
        if (!sh->dim)
            return NULL;
        for (int i = 0; i < t->shape.ndim; i++) {
            Onnx__TensorShapeProto__Dimension *d = ox_alloc(c, sizeof *d);
            if (!d)
                return NULL;
            onnx__tensor_shape_proto__dimension__init(d);
            int64_t v = t->shape.dims[i];
            if (dims && v >= 0) {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                d->dim_value = v;
            } else if (dims && dim_prefix) {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
                d->dim_param = ox_printf(c, "%s_d%d", dim_prefix, i);
            }
            sh->dim[sh->n_dim++] = d;
        }
        tt->shape = sh;
        tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
        tp->tensor_type = tt;
        return tp;
    }
    /* a tensor array: a sequence of tensors of its dtype */
    Onnx__TypeProto *el = ox_alloc(c, sizeof *el);
    Onnx__TypeProto__Sequence *sq = ox_alloc(c, sizeof *sq);
    if (!el || !sq)
        return NULL;
    onnx__type_proto__init(el);
    onnx__type_proto__sequence__init(sq);
    el->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    el->tensor_type = tt;
    sq->elem_type = el;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    tp->sequence_type = sq;
    return tp;
}

static Onnx__ValueInfoProto *value_info(ox_ctx *c, const char *name, const d2_type *t, bool dims,
                                        const char *dim_prefix)
{
    Onnx__ValueInfoProto *vi = ox_alloc(c, sizeof *vi);
    if (!vi || !name)
        return NULL;
    onnx__value_info_proto__init(vi);
    vi->name = (char *)name;
    vi->type = type_proto(c, t, dims, dim_prefix);
    return vi->type ? vi : NULL;
}

static Onnx__ValueInfoProto *scalar_info(ox_ctx *c, const char *name, d2_dtype dt)
{
    d2_type t = {D2_VALUE_TENSOR, dt, {0, {0}}};
    return value_info(c, name, &t, true, NULL);
}

/* ---- graphs and blocks ---------------------------------------------------------------- */

static void graph_push(ox_ctx *c, ox_graph *g)
{
    memset(g, 0, sizeof *g);
    g->up = c->g;
    c->g = g;
}

/* Closes the current graph into a GraphProto and returns to the enclosing one. */
static Onnx__GraphProto *graph_pop(ox_ctx *c, const char *name)
{
    ox_graph *g = c->g;
    c->g = g->up;
    Onnx__GraphProto *gp = ox_alloc(c, sizeof *gp);
    if (!gp)
        return NULL;
    onnx__graph_proto__init(gp);
    gp->name = ox_strdup(c, name);
    gp->node = (Onnx__NodeProto **)g->nodes.v;
    gp->n_node = g->nodes.n;
    gp->input = (Onnx__ValueInfoProto **)g->inputs.v;
    gp->n_input = g->inputs.n;
    gp->output = (Onnx__ValueInfoProto **)g->outputs.v;
    gp->n_output = g->outputs.n;
    gp->initializer = (Onnx__TensorProto **)g->inits.v;
    gp->n_initializer = g->inits.n;
    return gp;
}

static int emit_block(ox_ctx *c, int b);

static int lower_op(ox_ctx *c, const d2_op *op)
{
    const d2_opdef *def = d2_op_def(op->id);
    const ox_map *m = ox_map_find(op->id);
    c->op = op;
    if (!m || !m->lower)
        return ox_fail(c, op, D2_ERR_UNSUPPORTED, "no ONNX mapping%s%s", m && m->note ? ": " : "",
                       m && m->note ? m->note : "");
    int need = ox_map_need(m, c->p, op);
    if (need > c->opset)
        return ox_fail(c, op, D2_ERR_UNSUPPORTED,
                       "needs ONNX opset %d or later (%s), exporting opset %d: use --opset %d",
                       need, m->onnx_type ? m->onnx_type : def->name, c->opset, need);
    int rc = m->lower(c, op, m->onnx_type);
    if (rc < 0 && c->err->code == D2_OK)
        return ox_fail(c, op, D2_ERR_NOMEM, "out of memory");
    return rc;
}

static int emit_block(ox_ctx *c, int b)
{
    const d2_block *bl = &c->p->blocks[b];
    for (int i = 0; i < bl->n_ops; i++)
        if (lower_op(c, &bl->ops[i]) < 0)
            return -1;
    return 0;
}

/* Identity takes sequences from opset 14 on: before, a tensor array is passed by name. */
static bool seq_by_name(ox_ctx *c, int v)
{
    return c->opset < 14 && c->p->vars[v].type.kind == D2_VALUE_ARRAY;
}

/* Binds the params of block b to the values names[] (Identity nodes in the current graph). */
static int bind_params(ox_ctx *c, int b, const char *const *vals)
{
    const d2_block *bl = &c->p->blocks[b];
    for (int i = 0; i < bl->n_params; i++) {
        if (seq_by_name(c, bl->params[i])) {
            c->names[bl->params[i]] = (char *)vals[i];
            continue;
        }
        const char *o = ox_def(c, bl->params[i]);
        if (!o || !ox_node(c, "Identity", &vals[i], 1, &o, 1))
            return -1;
    }
    return 0;
}

/* Adds the yields of block b as outputs of the current graph: each through an Identity to a
 * fresh name (a subgraph output must be produced inside it, and may repeat), typed as
 * types[i]. */
static int yield_outputs(ox_ctx *c, int b, int from, const int *result_vars)
{
    const d2_block *bl = &c->p->blocks[b];
    for (int i = from; i < bl->n_yields; i++) {
        const char *src = c->names[bl->yields[i]];
        const char *o = ox_tmp(c);
        if (seq_by_name(c, bl->yields[i])) {
            /* the array must have been written in this graph, and be yielded once */
            bool here = false, again = false;
            for (size_t k = 0; k < c->g->nodes.n && !here; k++) {
                const Onnx__NodeProto *n = c->g->nodes.v[k];
                for (size_t j = 0; j < n->n_output; j++)
                    here = here || strcmp(n->output[j], src) == 0;
            }
            for (size_t k = 0; k < c->g->outputs.n; k++)
                again = again || strcmp(((Onnx__ValueInfoProto *)c->g->outputs.v[k])->name, src) == 0;
            if (here && !again) {
                o = src;
            } else {
                /* a copy without Identity: append an empty tensor, then erase the last */
                d2_dtype dt = c->p->vars[bl->yields[i]].type.dtype;
                int64_t zero = 0;
                const char *empty = ox_const_i64(c, &zero, 1, false);
                Onnx__NodeProto *n;
                const char *e = empty ? ox_node1(c, "ConstantOfShape", &empty, 1, &n) : NULL;
                Onnx__TensorProto *v = e ? ox_tensor(c, dt, 1, (int64_t[]){1}, (uint8_t[8]){0},
                                                     d2_dtype_size(dt)) : NULL;
                const char *ins[2] = {src, e};
                const char *grown = v && ox_attr_tensor(c, n, "value", v) == 0
                                        ? ox_node1(c, "SequenceInsert", ins, 2, NULL) : NULL;
                if (!grown || !ox_node(c, "SequenceErase", &grown, 1, &o, 1))
                    return -1;
            }
        } else if (!o || !ox_node(c, "Identity", &src, 1, &o, 1)) {
            return -1;
        }
        Onnx__ValueInfoProto *vi =
            value_info(c, o, ox_vtype(c, result_vars[i - from]), false, NULL);
        if (!vi || vec_push(c, &c->g->outputs, vi) < 0)
            return -1;
    }
    return 0;
}

static int block_attr(const d2_op *op, const char *name)
{
    const d2_opdef *def = d2_op_def(op->id);
    return (int)d2_attr_int(def, &op->attrs, name);
}

/* cond(pred, operands...) -> results: If(pred) with then/else subgraphs; each branch binds
 * its block's params to the operands, runs its ops and outputs its yields. */
int ox_lower_cond(ox_ctx *c, const d2_op *op)
{
    if (op->n_out == 0) /* only side effects (print, assert), which the export leaves out */
        return 0;
    const d2_type *pt = ox_in_type(c, op, 0);
    const char *pred = ox_cast(c, ox_in(c, op, 0), pt->dtype, D2_BOOL);
    if (!pred)
        return -1;
    if (pt->shape.ndim > 0)
        pred = ox_to_scalar(c, pred);
    int blocks[2] = {block_attr(op, "then"), block_attr(op, "else")};
    Onnx__GraphProto *gp[2];
    for (int k = 0; k < 2; k++) {
        ox_graph g;
        graph_push(c, &g);
        const char **vals = ox_alloc(c, (size_t)(op->n_in + 1) * sizeof *vals);
        int rc = vals ? 0 : -1;
        for (int i = 1; rc == 0 && i < op->n_in; i++)
            vals[i - 1] = ox_in(c, op, i);
        if (rc == 0)
            rc = bind_params(c, blocks[k], vals);
        if (rc == 0)
            rc = emit_block(c, blocks[k]);
        if (rc == 0)
            rc = yield_outputs(c, blocks[k], 0, op->out);
        gp[k] = graph_pop(c, k ? "else_branch" : "then_branch");
        if (rc < 0 || !gp[k])
            return -1;
        c->op = op;
    }
    const char **outs = ox_alloc(c, (size_t)(op->n_out + 1) * sizeof *outs);
    if (!outs)
        return -1;
    for (int i = 0; i < op->n_out; i++)
        if (!(outs[i] = ox_out(c, op, i)))
            return -1;
    Onnx__NodeProto *n = ox_node(c, "If", &pred, 1, outs, op->n_out);
    if (!n || ox_attr_graph(c, n, "then_branch", gp[0]) < 0 ||
        ox_attr_graph(c, n, "else_branch", gp[1]) < 0)
        return -1;
    return 0;
}

/* Emits the cond block of a while_loop on values vals and returns its boolean scalar. */
static const char *loop_condition(ox_ctx *c, int cb, const char *const *vals)
{
    if (bind_params(c, cb, vals) < 0 || emit_block(c, cb) < 0)
        return NULL;
    const d2_block *bl = &c->p->blocks[cb];
    if (bl->n_yields != 1) {
        ox_fail(c, c->op, D2_ERR_INVALID, "the condition block yields %d values", bl->n_yields);
        return NULL;
    }
    const d2_type *t = ox_vtype(c, bl->yields[0]);
    const char *r = ox_cast(c, c->names[bl->yields[0]], t->dtype, D2_BOOL);
    return r && t->shape.ndim > 0 ? ox_to_scalar(c, r) : r;
}

/* while_loop(inits...) {cond, body} -> finals: the condition on the inits decides whether
 * Loop runs at all; the body graph computes the next values and then the condition on them
 * (Loop's cond output). No trip count. */
int ox_lower_while(ox_ctx *c, const d2_op *op)
{
    int cb = block_attr(op, "cond"), bb = block_attr(op, "body");
    int n = op->n_in;
    const d2_block *body = &c->p->blocks[bb];
    if (body->n_params != n || body->n_yields != n || c->p->blocks[cb].n_params != n)
        return ox_fail(c, op, D2_ERR_INVALID, "blocks do not match the loop's %d values", n);
    const char **vals = ox_alloc(c, (size_t)(n + 1) * sizeof *vals);
    const char **ins = ox_alloc(c, (size_t)(n + 3) * sizeof *ins);
    if (!vals || !ins)
        return -1;
    for (int i = 0; i < n; i++)
        vals[i] = ox_in(c, op, i);
    const char *c0 = loop_condition(c, cb, vals);
    if (!c0)
        return -1;
    c->op = op;
    ox_graph g;
    graph_push(c, &g);
    const char *iter = ox_tmp(c), *cin = ox_tmp(c);
    int rc = iter && cin ? 0 : -1;
    if (rc == 0) {
        Onnx__ValueInfoProto *a = scalar_info(c, iter, D2_I64), *b = scalar_info(c, cin, D2_BOOL);
        rc = a && b && vec_push(c, &g.inputs, a) == 0 && vec_push(c, &g.inputs, b) == 0 ? 0 : -1;
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        int v = body->params[i];
        const char *nm = ox_def(c, v);
        Onnx__ValueInfoProto *vi = value_info(c, nm, ox_vtype(c, v), false, NULL);
        rc = vi ? vec_push(c, &g.inputs, vi) : -1;
    }
    if (rc == 0)
        rc = emit_block(c, bb);
    const char *cout = NULL;
    if (rc == 0) {
        for (int i = 0; i < n; i++)
            vals[i] = c->names[body->yields[i]];
        cout = loop_condition(c, cb, vals);
        rc = cout ? 0 : -1;
    }
    if (rc == 0) {
        const char *o = ox_tmp(c);
        Onnx__ValueInfoProto *vi = o && ox_node(c, "Identity", &cout, 1, &o, 1)
                                       ? scalar_info(c, o, D2_BOOL) : NULL;
        rc = vi ? vec_push(c, &g.outputs, vi) : -1;
    }
    if (rc == 0)
        rc = yield_outputs(c, bb, 0, op->out);
    Onnx__GraphProto *gp = graph_pop(c, "loop_body");
    if (rc < 0 || !gp)
        return -1;
    c->op = op;
    ins[0] = ox_strdup(c, "");
    ins[1] = c0;
    for (int i = 0; i < n; i++)
        ins[2 + i] = ox_in(c, op, i);
    const char **outs = ox_alloc(c, (size_t)(n + 1) * sizeof *outs);
    if (!outs)
        return -1;
    for (int i = 0; i < op->n_out; i++)
        if (!(outs[i] = ox_out(c, op, i)))
            return -1;
    Onnx__NodeProto *nd = ox_node(c, "Loop", ins, n + 2, outs, op->n_out);
    return nd && ox_attr_graph(c, nd, "body", gp) == 0 ? 0 : -1;
}

/* ---- the model and its file ---------------------------------------------------------- */

typedef struct file_buffer {
    ProtobufCBuffer base;
    FILE *f;
    bool failed;
} file_buffer;

static void file_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    file_buffer *fb = (file_buffer *)b;
    if (!fb->failed && len && fwrite(data, 1, len, fb->f) != len)
        fb->failed = true;
}

/* Initializers for the parameters. With external data, each tensor's bytes go to ext (the
 * "<model>.data" file, location ext_name) at 64-byte aligned offsets. */
static int add_params(ox_ctx *c, Onnx__GraphProto *gp, FILE *ext, const char *ext_name,
                      d2_tensor ***keep, int *n_keep)
{
    const d2_program *p = c->p;
    int np = 0;
    for (int v = 0; v < p->n_vars; v++)
        np += p->vars[v].persistable;
    Onnx__TensorProto **inits = ox_alloc(c, (size_t)(np + 1) * sizeof *inits);
    *keep = d2_calloc((size_t)np + 1, sizeof **keep);
    if (!inits || !*keep)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    uint64_t offset = 0;
    for (int v = 0; v < p->n_vars; v++) {
        const d2_var *var = &p->vars[v];
        if (!var->persistable)
            continue;
        if (!var->data)
            return d2_err_set(c->err, D2_ERR_INVALID,
                              "parameter '%s' has no data: load or initialise the parameters "
                              "before exporting", var->name);
        if (var->data->kind != D2_VALUE_TENSOR || !ox_onnx_dtype(var->data->dtype))
            return d2_err_set(c->err, D2_ERR_UNSUPPORTED,
                              "parameter '%s': no ONNX initializer for a %s", var->name,
                              var->data->kind != D2_VALUE_TENSOR ? "tensor array"
                                                                 : d2_dtype_name(var->data->dtype));
        d2_tensor *t = d2_tensor_contiguous(var->data, c->err);
        if (!t)
            return -1;
        (*keep)[(*n_keep)++] = t;
        Onnx__TensorProto *tp = ox_alloc(c, sizeof *tp);
        int64_t *dims = ox_alloc(c, (size_t)(t->ndim + 1) * sizeof *dims);
        if (!tp || !dims)
            return -1;
        onnx__tensor_proto__init(tp);
        memcpy(dims, t->shape, (size_t)t->ndim * sizeof *dims);
        tp->dims = dims;
        tp->n_dims = (size_t)t->ndim;
        tp->has_data_type = 1;
        tp->data_type = ox_onnx_dtype(t->dtype);
        tp->name = c->names[v];
        size_t nbytes = (size_t)d2_tensor_numel(t) * d2_dtype_size(t->dtype);
        if (ext) {
            static const uint8_t zeros[64];
            size_t pad = (size_t)((64 - offset % 64) % 64);
            if ((pad && fwrite(zeros, 1, pad, ext) != pad) ||
                (nbytes && fwrite(d2_tensor_data(t), 1, nbytes, ext) != nbytes))
                return d2_err_set(c->err, D2_ERR_IO, "%s: write failed: %s", ext_name,
                                  strerror(errno));
            offset += pad;
            Onnx__StringStringEntryProto **e = ox_alloc(c, 3 * sizeof *e);
            const char *keys[3] = {"location", "offset", "length"};
            const char *vals[3] = {ext_name, ox_printf(c, "%llu", (unsigned long long)offset),
                                   ox_printf(c, "%llu", (unsigned long long)nbytes)};
            if (!e)
                return -1;
            for (int k = 0; k < 3; k++) {
                e[k] = ox_alloc(c, sizeof *e[k]);
                if (!e[k] || !vals[k])
                    return -1;
                onnx__string_string_entry_proto__init(e[k]);
                e[k]->key = (char *)keys[k];
                e[k]->value = (char *)vals[k];
            }
            tp->external_data = e;
            tp->n_external_data = 3;
            tp->has_data_location = 1;
            tp->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
            offset += nbytes;
        } else {
            tp->has_raw_data = 1;
            tp->raw_data.data = d2_tensor_data(t);
            tp->raw_data.len = nbytes;
        }
        inits[gp->n_initializer++] = tp;
    }
    gp->initializer = inits;
    return 0;
}

static uint64_t param_bytes(const d2_program *p)
{
    uint64_t n = 0;
    for (int v = 0; v < p->n_vars; v++) {
        const d2_tensor *t = p->vars[v].data;
        if (p->vars[v].persistable && t && t->kind == D2_VALUE_TENSOR)
            n += (uint64_t)d2_tensor_numel(t) * d2_dtype_size(t->dtype);
    }
    return n;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Writes msg to path through a temporary file renamed into place. */
static int write_model(ox_ctx *c, const Onnx__ModelProto *m, const char *path)
{
    size_t n = strlen(path) + 32;
    char *tmp = d2_malloc(n);
    if (!tmp)
        return d2_err_set(c->err, D2_ERR_NOMEM, "out of memory");
    snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        d2_err_set(c->err, D2_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        d2_free(tmp);
        return -1;
    }
    file_buffer fb = {{file_append}, f, false};
    protobuf_c_message_pack_to_buffer(&m->base, &fb.base);
    int err_no = errno;
    bool ok = !fb.failed && fflush(f) == 0;
    if (!ok)
        err_no = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        err_no = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        err_no = errno;
    }
    if (!ok) {
        remove(tmp);
        d2_err_set(c->err, D2_ERR_IO, "%s: write failed: %s", path, strerror(err_no));
    }
    d2_free(tmp);
    return ok ? 0 : -1;
}

int d2_onnx_export(const d2_program *p, const char *path, const d2_onnx_options *opt,
                   d2_err *err)
{
    int opset = opt && opt->opset ? opt->opset : D2_ONNX_OPSET_DEFAULT;
    if (d2_ops_init(err) < 0)
        return -1;
    if (opt && opt->auto_opset) {
        if (opset < D2_ONNX_OPSET_MIN)
            opset = D2_ONNX_OPSET_MIN;
        for (int b = 0; b < p->n_blocks; b++)
            for (int i = 0; i < p->blocks[b].n_ops; i++) {
                const d2_op *op = &p->blocks[b].ops[i];
                const ox_map *m = ox_map_find(op->id);
                int need = m && m->lower ? ox_map_need(m, p, op) : 0;
                if (need > opset && need <= D2_ONNX_OPSET_MAX)
                    opset = need;
            }
    }
    if (opset < D2_ONNX_OPSET_MIN || opset > D2_ONNX_OPSET_MAX)
        return d2_err_set(err, D2_ERR_INVALID, "opset %d is not supported (supported: %d to %d)",
                          opset, D2_ONNX_OPSET_MIN, D2_ONNX_OPSET_MAX);
    if (d2_program_verify(p, err) < 0)
        return -1;
    ox_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.opset = opset;
    c.err = err;
    d2_tensor **keep = NULL;
    int n_keep = 0;
    FILE *ext = NULL;
    char *ext_path = NULL;
    int rc = -1;
    c.names = d2_calloc((size_t)p->n_vars + 1, sizeof *c.names);
    c.ndefs = d2_calloc((size_t)p->n_vars + 1, sizeof *c.ndefs);
    if (!c.names || !c.ndefs) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    c.defop = d2_calloc((size_t)p->n_vars + 1, sizeof *c.defop);
    if (!c.defop) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int b = 0; b < p->n_blocks; b++)
        for (int i = 0; i < p->blocks[b].n_ops; i++)
            for (int k = 0; k < p->blocks[b].ops[i].n_out; k++)
                c.defop[p->blocks[b].ops[i].out[k]] = &p->blocks[b].ops[i];
    ox_graph g;
    graph_push(&c, &g);
    /* parameters are defined up front: every block may read them */
    for (int v = 0; v < p->n_vars; v++)
        if (p->vars[v].persistable && !ox_def(&c, v))
            goto done;
    const d2_block *b0 = &p->blocks[0];
    for (int i = 0; i < b0->n_params; i++) {
        int v = b0->params[i];
        const char *nm = ox_def(&c, v);
        Onnx__ValueInfoProto *vi = nm ? value_info(&c, nm, ox_vtype(&c, v), true, nm) : NULL;
        if (!vi || vec_push(&c, &g.inputs, vi) < 0)
            goto done;
    }
    if (emit_block(&c, 0) < 0)
        goto done;
    /* outputs keep the Program's names unless the value is an input, a parameter or
     * already an output */
    for (int i = 0; i < b0->n_yields; i++) {
        int v = b0->yields[i];
        const char *nm = c.names[v];
        bool fresh = !p->vars[v].persistable;
        for (int k = 0; fresh && k < b0->n_params; k++)
            fresh = b0->params[k] != v;
        for (int k = 0; fresh && k < i; k++)
            fresh = b0->yields[k] != v;
        if (!fresh) {
            const char *o = ox_printf(&c, "output_%d", i);
            if (p->vars[v].persistable || c.ndefs[v] > 0)
                for (int k = 0; o && d2_program_find_var(p, o) >= 0; k++)
                    o = ox_printf(&c, "output_%d_%d", i, k);
            if (!o || !ox_node(&c, "Identity", &nm, 1, &o, 1))
                goto done;
            nm = o;
        }
        Onnx__ValueInfoProto *vi = value_info(&c, nm, ox_vtype(&c, v), true, NULL);
        if (!vi || vec_push(&c, &g.outputs, vi) < 0)
            goto done;
    }
    Onnx__GraphProto *gp = graph_pop(&c, opt && opt->graph_name ? opt->graph_name : "dy2st");
    if (!gp)
        goto done;
    uint64_t limit = opt && opt->external_threshold ? opt->external_threshold
                                                    : ((uint64_t)2 << 30) - ((uint64_t)64 << 20);
    const char *ext_name = NULL;
    if (param_bytes(p) > limit || (opt && opt->external_data)) {
        size_t n = strlen(path) + 8;
        ext_path = d2_malloc(n);
        if (!ext_path) {
            d2_err_set(err, D2_ERR_NOMEM, "out of memory");
            goto done;
        }
        snprintf(ext_path, n, "%s.data", path);
        ext_name = base_name(ext_path);
        ext = fopen(ext_path, "wb");
        if (!ext) {
            d2_err_set(err, D2_ERR_IO, "%s: cannot create: %s", ext_path, strerror(errno));
            goto done;
        }
    }
    if (add_params(&c, gp, ext, ext_name, &keep, &n_keep) < 0)
        goto done;
    if (ext) {
        int bad = fclose(ext);
        ext = NULL;
        if (bad) {
            d2_err_set(err, D2_ERR_IO, "%s: write failed: %s", ext_path, strerror(errno));
            goto done;
        }
    }
    Onnx__OperatorSetIdProto os = ONNX__OPERATOR_SET_ID_PROTO__INIT;
    os.domain = (char *)"";
    os.has_version = 1;
    os.version = opset;
    Onnx__OperatorSetIdProto *osp = &os;
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    /* IR version 8 (ONNX 1.10+): what opsets 13 to 21 and ONNX Runtime 1.20 accept */
    m.has_ir_version = 1;
    m.ir_version = 8;
    m.opset_import = &osp;
    m.n_opset_import = 1;
    m.producer_name = (char *)"dy2st";
    m.producer_version = (char *)PACKAGE_VERSION;
    m.graph = gp;
    rc = write_model(&c, &m, path);
done:
    if (ext)
        fclose(ext);
    if (rc < 0 && ext_path)
        remove(ext_path);
    d2_free(ext_path);
    for (int i = 0; i < n_keep; i++)
        d2_tensor_unref(keep[i]);
    d2_free(keep);
    d2_free(c.names);
    d2_free(c.ndefs);
    d2_free((void *)c.defop);
    pool_free(&c);
    if (rc < 0 && err->code == D2_OK)
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    return rc;
}
