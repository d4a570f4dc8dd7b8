/* grad.h - gradient rules: each differentiable op's backward, written once in registry ops.
 *
 * A rule receives the forward op's inputs, outputs and the gradients of its
 * outputs as opaque value handles, and emits registry ops through a builder to
 * produce the gradients of its inputs. The same rule serves three builders:
 *   - eager on plain tensors (d2_grad_eager_builder below: handles are
 *     d2_tensor*, ops run now on a backend; the gradient check uses it);
 *   - the dygraph tape in lib/paddle (handles are tensor objects; ops go
 *     through the same dispatch as user code, so under create_graph they are
 *     taped too, which gives double grad);
 *   - static append_backward (handles are Program variables; ops are appended
 *     to a block).
 * A backward op is itself a registry op, so a rule's output is differentiable
 * wherever the ops it emits have rules.
 *
 * Every non-control op has a rule or D2_OPF_NO_GRAD, except these, which the
 * callers differentiate: cond and while_loop (from their blocks, see
 * DESIGN.md) and the tensor-array ops (array_create/write/read/stack/concat,
 * whose gradients are arrays of gradients). pool2d_grad's rule covers
 * average pooling and reports an error for max pooling.
 */
#ifndef DY2ST_GRAD_H
#define DY2ST_GRAD_H

#include "ops.h"

/* A value as the builder knows it (a tensor, an object, a variable index
 * boxed by the builder). NULL means "absent" or, for gradients, "zero". */
typedef void *d2_gval;

typedef struct d2_gbuilder d2_gbuilder;

typedef struct d2_gbuilder_vt {
    /* Emits op `id` with attrs (NULL = the schema's defaults) on ins (NULL for
     * an absent optional input). On success outs[0..n_out) receive new
     * handles the caller owns. 0, or -1 with err set. */
    int (*emit)(d2_gbuilder *b, d2_op_id id, const d2_attrs *attrs, d2_gval *ins, int n_in,
                d2_gval *outs, int n_out, d2_err *err);
    /* The static type of v (dims may be -1 in static mode). */
    void (*type_of)(d2_gbuilder *b, d2_gval v, d2_type *out);
    /* Takes a new reference to v (the rule hands an input's handle out as a
     * gradient, e.g. add's dx = dout). */
    d2_gval (*ref)(d2_gbuilder *b, d2_gval v);
    /* Drops a handle the rule owns. NULL is ignored. */
    void (*release)(d2_gbuilder *b, d2_gval v);
} d2_gbuilder_vt;

struct d2_gbuilder {
    const d2_gbuilder_vt *vt;
};

/* What a rule sees. in/out/dout are borrowed. */
typedef struct d2_gctx {
    d2_gbuilder *b;
    const d2_opdef *def;
    const d2_attrs *attrs;
    int n_in;
    d2_gval *in;    /* forward inputs, NULL where an optional input was absent */
    int n_out;
    d2_gval *out;   /* forward outputs */
    d2_gval *dout;  /* gradient of each output; NULL where no gradient flows (zero) */
    const bool *need; /* need[i]: the gradient of input i is wanted */
    d2_gval *din;   /* the rule stores a new handle for each wanted input, or
                     * leaves NULL (zero gradient). Same dtype and shape as in[i]. */
    d2_err *err;
} d2_gctx;

typedef int (*d2_grad_fn)(d2_gctx *g);

/* The rule of op id; NULL when the op has none (D2_OPF_NO_GRAD ops, control
 * ops handled by the callers, or an op still without a rule). The function
 * returned serves every op and finds the rule from g->def: call it with
 * g->def == d2_op_def(id). A rule may leave din[i] NULL for a zero gradient
 * (sign, floor, ceil). */
d2_grad_fn d2_op_grad(d2_op_id id);
/* Whether a gradient flows into input i of op id (index and shape inputs,
 * integer and bool tensors do not). */
bool d2_op_input_differentiable(d2_op_id id, int i);

/* Whether gradients of dtype dt exist (float32, float64): the caller stops
 * gradients at integer and bool values. */
bool d2_dtype_differentiable(d2_dtype dt);

/* Runs op id's rule: checks that it has one (an error naming the op
 * otherwise), calls it, and on failure releases whatever it stored in din. */
int d2_grad_run(d2_gctx *g);

/* ---- the eager builder over plain tensors ----
 * Handles are d2_tensor* (references); ops run on be (NULL = CPU) through
 * d2_op_run. Used by the gradient check and by C callers. */
typedef struct d2_grad_eager {
    d2_gbuilder base;
    struct d2_backend *be;
} d2_grad_eager;

void d2_grad_eager_init(d2_grad_eager *b, struct d2_backend *be);

#endif
