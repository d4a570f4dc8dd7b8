/* exec.h - the executor: prepare a Program once, run it many times (thread-safe runs). */
#ifndef DY2ST_EXEC_H
#define DY2ST_EXEC_H

#include "backend.h"
#include "program.h"

#include <stdatomic.h>

typedef struct d2_prepared d2_prepared;
typedef struct d2_exec_frame d2_exec_frame;

/* Verifies and prepares p for backend be (NULL = CPU): resolves variables to
 * slots, picks kernels, uploads parameters. The Program must outlive the
 * prepared form and must not change while it exists. */
d2_prepared *d2_exec_prepare(const d2_program *p, d2_backend *be, d2_err *err);
void d2_exec_free(d2_prepared *pp);
/* Like d2_exec_prepare, but the prepared form takes p and frees it with itself (p is freed
 * on failure too). */
d2_prepared *d2_exec_prepare_owned(d2_program *p, d2_backend *be, d2_err *err);

/* Lets each elementwise op (unary, broadcasting binary, conv2d_fused's residual) write its
 * output into an input buffer that dies at it, instead of a fresh one, when at run time
 * nothing else references that buffer. Host backends only; call before the first run.
 * Returns how many ops may run in place. */
int d2_exec_enable_inplace(d2_prepared *pp);

/* Places block 0's intermediate values in one arena per run by a static memory plan
 * (memplan.h), after d2_exec_enable_inplace when both are wanted (an in-place output shares
 * its input's slot). Program outputs get buffers of their own. Host backends only; call
 * before the first run. Returns how many values the plan may place, or -1 with err set. */
int d2_exec_enable_memplan(d2_prepared *pp, d2_err *err);
/* The plan d2_exec_enable_memplan made (memplan.h), or NULL. */
struct d2_memplan *d2_exec_memplan(d2_prepared *pp);

/* Makes later runs read parameter var from t (a new reference is taken),
 * a contiguous tensor of the parameter's type on pp's backend, instead of
 * the copy uploaded by prepare: writes into t's storage (an optimizer
 * updating a device tensor in place) are then seen. Not while a run is in
 * progress. 0, or -1 with err set. */
int d2_exec_bind_param(d2_prepared *pp, int var, d2_tensor *t, d2_err *err);

/* Runs the main block with the given inputs (one per block-0 param, in
 * order; shapes must match the declared ones where static). outputs receives
 * n_out new references (n_out must equal the number of yields). Safe to call
 * from several threads at once on one prepared Program. */
int d2_exec_run(d2_prepared *pp, d2_tensor **inputs, int n_in, d2_tensor **outputs, int n_out,
                d2_err *err);

/* Which limit stopped a run (d2_run_limits.hit). */
typedef enum {
    D2_LIMIT_NONE = 0,
    D2_LIMIT_DEADLINE,
    D2_LIMIT_CANCEL,
    D2_LIMIT_BYTES,
} d2_limit_kind;

/* Bounds on one run. The executor checks the cancel flag and the deadline
 * after every op and at every while_loop iteration (a relaxed atomic load,
 * plus a clock read when a deadline is set), and counts the bytes of the
 * tensors the run's ops allocate against max_bytes. A kernel already running
 * is not interrupted. Exceeding a limit fails the run with D2_ERR_LIMIT. */
typedef struct d2_run_limits {
    double deadline;          /* absolute, on the d2_monotonic_s() scale; 0: none */
    double timeout_s;         /* the timeout the deadline came from, for messages; 0: unknown */
    const atomic_int *cancel; /* the run stops once *cancel is nonzero; NULL: none */
    size_t max_bytes;         /* cap on the bytes the run's ops allocate in all; 0: none */
    d2_limit_kind hit;        /* out: the limit that stopped the run */
    /* random ops (dropout_train) mix it into their seed input, so that each training run
     * draws a new mask from a Program whose seeds are constants; 0: the seeds alone */
    uint64_t rng_offset;
} d2_run_limits;


/* d2_exec_run under limits (NULL: none). Each concurrent run needs its own
 * d2_run_limits (they may share one cancel flag). */
int d2_exec_run_limited(d2_prepared *pp, d2_run_limits *lim, d2_tensor **inputs, int n_in,
                        d2_tensor **outputs, int n_out, d2_err *err);

/* For control-op kernels: runs block `block` of the frame's Program with its
 * params bound to args; results receives new references to the yields. The
 * block may borrow args (hold them without a reference of its own), so the
 * caller keeps them until the call returns. */
int d2_exec_run_block(d2_exec_frame *f, int block, d2_tensor **args, int n_args,
                      d2_tensor **results, int n_results, d2_err *err);
/* For control-op kernels: the op being run. */
const d2_op *d2_exec_frame_op(d2_exec_frame *f, int op_index);
/* Reads a one-element tensor (any backend) as a bool. */
int d2_exec_read_pred(d2_exec_frame *f, d2_tensor *t, bool *out, d2_err *err);

#endif
