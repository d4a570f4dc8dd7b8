/* backward.h - static reverse-mode autodiff: append a Program's gradient ops (append_backward). */
#ifndef DY2ST_BACKWARD_H
#define DY2ST_BACKWARD_H

#include "grad.h"
#include "program.h"

/* ---- the static builder ----
 * Handles are Program variables (the index boxed; NULL is no variable).
 * emit appends the op to block `block` with d2_block_append_inferred, so its
 * results are new variables of the inferred types; ref and release do
 * nothing (variables are never freed). */
typedef struct d2_grad_static {
    d2_gbuilder base;
    d2_program *p;
    int block;
} d2_grad_static;

void d2_grad_static_init(d2_grad_static *b, d2_program *p, int block);
d2_gval d2_grad_static_val(int var);  /* var -1 gives NULL */
int d2_grad_static_var(d2_gval v);    /* NULL gives -1 */

/* ---- append_backward ----
 * Appends to block `block` of p the ops that compute the gradients of the
 * targets with respect to wrt[0..n_wrt). Each target is a variable visible in
 * that block; its gradient enters as target_grads[i] (a variable of the
 * target's type) or, where target_grads is NULL or target_grads[i] is -1, as
 * ones shaped like the target (0-d for a scalar). grads[i] receives the
 * variable holding the gradient of wrt[i], named "<name>@GRAD", or -1 when no
 * target depends on wrt[i] through differentiable ops.
 *
 * Gradients flow only along float variables and differentiable inputs; no
 * gradient flows through the variables no_grad[0..n_no_grad) (may be NULL).
 * Where a variable is used several times its contributions are summed.
 * Intermediate gradients are named "<name>@GRAD" too where the name is free.
 *
 * cond: the gradient is a cond on the same predicate whose blocks recompute
 * the branch and run its gradient; a branch that does not use an operand
 * yields zeros for it. while_loop: the forward op in `block` is rewritten to
 * record the carried values its body reads in tensor arrays, one item per
 * iteration, and to carry out the trip count; the gradient is a while_loop
 * that runs the body's gradient in reverse over the recorded iterations,
 * accumulating the gradients of the enclosing variables the body reads.
 * Control ops inside sub-blocks are recomputed where their gradient runs.
 *
 * An op on a gradient path without a gradient rule fails with an error that
 * names the op and its source position. On failure p may hold a partial
 * backward (the caller discards it). 0, or -1 with err set. */
int d2_gradients(d2_program *p, int block, const int *targets, const int *target_grads,
                 int n_targets, const int *wrt, int n_wrt, const int *no_grad, int n_no_grad,
                 int *grads, d2_err *err);

/* d2_gradients for one target, loss, with the seed ones shaped like it. */
int d2_append_backward(d2_program *p, int block, int loss, const int *wrt, int n_wrt,
                       int *grads, d2_err *err);

#endif
