/* jit_train.h - training through to_static: a converted Program's run as one tape node. */
#ifndef DY2ST_JIT_TRAIN_H
#define DY2ST_JIT_TRAIN_H

#include "exec.h"
#include "lib/paddle/tensor_api.h"

/* The gradient Programs of one forward Program (one input signature), one
 * per set of inputs that want gradients, each built by the first backward
 * that needs it. Each is the forward recomputed, then d2_gradients of its
 * outputs: it takes the forward's feeds followed by the gradients of its
 * float outputs and yields the gradients of the wanted feeds and lifted
 * parameters. Refcounted by the signature's entry and its tape nodes. */
typedef struct d2_jit_grad d2_jit_grad;

/* The entry of the forward Program goes (its nodes keep the Programs built). */
void d2_jit_grad_release(d2_jit_grad *c);

/* After a run of forward Program fwd (of function fname) on feeds feed_t
 * (the argument objects feed_obj, NULL where not a tensor) gave outputs
 * outs[0..n_out) (eager tensors), tapes one node over the feeds and the
 * lifted tensors (lifted: the build's dict id -> (tensor, var)) when
 * gradients are on and one of them wants a gradient; its backward runs the
 * gradient Program, built on first use and kept in *grads (made on first
 * use; fwd must live until d2_jit_grad_release). Otherwise the outputs stop
 * gradients. 0, or -1 with an exception. */
int d2_jit_tape_run(d2_interp *I, const char *fname, const d2_program *fwd, d2_obj *lifted,
                    d2_jit_grad **grads, d2_obj **feed_obj, d2_tensor **feed_t, int n_feeds,
                    d2_obj **outs, int n_out, uint64_t rng_offset);

/* Makes prepared Program pp (of p, built with lifted) read the lifted
 * tensors that live on the eager device from their own storage, so that
 * in-place updates (an optimizer step) reach its next run; on the CPU the
 * Program shares their data already. 0, or -1 with an exception. */
int d2_jit_bind_lifted(d2_interp *I, d2_obj *lifted, const d2_program *p, d2_prepared *pp);

#endif
