/* onnx_priv.h - the ONNX exporter's internals shared by onnx_export.c (graphs, names, control
 * flow, files) and onnx_map.c (the per-op lowering table). */
#ifndef DY2ST_ONNX_PRIV_H
#define DY2ST_ONNX_PRIV_H

#include "onnx_export.h"
#include "onnx.pb-c.h"

/* A growable array of pointers whose storage lives in the exporter's pool. */
typedef struct ox_vec {
    void **v;
    size_t n, cap;
} ox_vec;

/* One ONNX graph being built (the main graph or a branch / loop body). */
typedef struct ox_graph {
    ox_vec nodes, inputs, outputs, inits;
    struct ox_graph *up;
} ox_graph;

struct ox_chunk;

typedef struct ox_ctx {
    const d2_program *p;
    int opset;
    d2_err *err;
    struct ox_chunk *pool; /* every allocation of the model; freed at once */
    char **names;          /* var -> its ONNX name where last defined */
    int *ndefs;            /* var -> how often it was defined (blocks emitted twice) */
    const d2_op **defop;   /* var -> the op defining it (NULL for params, block params) */
    int tmp_counter;
    ox_graph *g;       /* the graph ops are emitted into */
    const d2_op *op;   /* the op being lowered, for messages */
} ox_ctx;

/* Allocation from the pool (zeroed); NULL with err set when out of memory. */
void *ox_alloc(ox_ctx *c, size_t n);
char *ox_strdup(ox_ctx *c, const char *s);
char *ox_printf(ox_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fresh value name. */
const char *ox_tmp(ox_ctx *c);
/* The ONNX name of input i of op (NULL when absent). */
const char *ox_in(ox_ctx *c, const d2_op *op, int i);
/* Defines var v in the current graph: returns its (new) ONNX name. */
const char *ox_def(ox_ctx *c, int v);
/* The output of op i as a definition. */
const char *ox_out(ox_ctx *c, const d2_op *op, int i);
const d2_type *ox_vtype(ox_ctx *c, int v);
const d2_type *ox_in_type(ox_ctx *c, const d2_op *op, int i);

/* Appends a node to the current graph; outs are names already chosen. */
Onnx__NodeProto *ox_node(ox_ctx *c, const char *type, const char *const *ins, int n_in,
                         const char *const *outs, int n_out);
/* A node with one output, a fresh name, returned. */
const char *ox_node1(ox_ctx *c, const char *type, const char *const *ins, int n_in,
                     Onnx__NodeProto **node);
int ox_attr_int(ox_ctx *c, Onnx__NodeProto *n, const char *name, int64_t v);
int ox_attr_float(ox_ctx *c, Onnx__NodeProto *n, const char *name, double v);
int ox_attr_str(ox_ctx *c, Onnx__NodeProto *n, const char *name, const char *v);
int ox_attr_ints(ox_ctx *c, Onnx__NodeProto *n, const char *name, const int64_t *v, int cnt);
int ox_attr_tensor(ox_ctx *c, Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t);
int ox_attr_graph(ox_ctx *c, Onnx__NodeProto *n, const char *name, Onnx__GraphProto *g);

/* Constants (Constant nodes). ndim -1: a 1-D tensor of n values; otherwise shape dims. */
const char *ox_const_i64(ox_ctx *c, const int64_t *v, int n, bool scalar);
const char *ox_const_scalar(ox_ctx *c, d2_dtype dt, double v);
/* A tensor of dtype dt and the given shape, from raw host data (copied). */
Onnx__TensorProto *ox_tensor(ox_ctx *c, d2_dtype dt, int ndim, const int64_t *dims,
                             const void *data, size_t nbytes);
int ox_onnx_dtype(d2_dtype dt);

/* Casts name (of dtype from) to dtype to; returns name when they agree. */
const char *ox_cast(ox_ctx *c, const char *name, d2_dtype from, d2_dtype to);
/* name reshaped to a scalar (from a one-element tensor). */
const char *ox_to_scalar(ox_ctx *c, const char *name);

/* Control flow (onnx_export.c). */
int ox_lower_cond(ox_ctx *c, const d2_op *op);
int ox_lower_while(ox_ctx *c, const d2_op *op);

/* Error for the op being lowered: "op NAME (line L:C): ..." */
int ox_fail(ox_ctx *c, const d2_op *op, d2_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The lowering of one registry op (onnx_map.c). */
typedef int (*ox_lower_fn)(ox_ctx *c, const d2_op *op, const char *onnx_type);
typedef struct ox_map {
    const char *op;        /* registry op name */
    const char *onnx_type; /* the main ONNX op it becomes (argument of lower) */
    int min_opset;         /* the lowest opset the lowering needs */
    ox_lower_fn lower;     /* NULL: no mapping; note says why */
    const char *note;
} ox_map;

/* The opset op needs: min_opset, or more for some attributes and input types. */
int ox_map_need(const ox_map *m, const d2_program *p, const d2_op *op);

/* The mapping of op id, or NULL when the table has no row for it. */
const ox_map *ox_map_find(d2_op_id id);

#endif
