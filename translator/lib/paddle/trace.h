/* trace.h - trace mode: recording eager ops into a Program, TracedLayer, and the fallback of
 * to_static functions whose syntax cannot be converted. */
#ifndef DY2ST_TRACE_H
#define DY2ST_TRACE_H

#include "lib/paddle/tensor_api.h"

/* Slot of d2_interp.ext used by this module (tensor_api.h uses 0 and 1, jit.h 2). */
enum { D2_EXT_TRACE = 6 };

/* How tracing works. A trace records into a d2_builder of its own: the
 * traced inputs are the Program's feeds (variables of block 0), and while
 * the function runs eagerly with D2_MODE(I)->tracer set, d2_apply_op calls
 * d2_trace_record after each op. An op with at least one input derived from
 * the inputs or a parameter is appended to the Program (its outputs
 * remember their variable through trace_var/trace_gen); its other concrete
 * inputs (tensors made during the call) are lifted as constants, Layer
 * parameters as Program parameters sharing the Layer's data. Ops on
 * constants alone are not recorded: their results are constants too.
 * A Python value read out of a traced tensor (bool, int, float, item,
 * numpy, tolist, shape) freezes the trace; each such place gets one
 * compiler-style warning (d2_trace_frozen). */
struct d2_tracer {
    d2_builder *B;
};

/* Registers paddle.jit.TracedLayer (also paddle.fluid.dygraph.TracedLayer),
 * paddle.static.BuildStrategy / ExecutionStrategy and _jst._trace_save (the
 * driver of `dy2st trace`). Called from d2_interp_new after d2_jit_init. */
int d2_trace_init(d2_interp *I);


/* Called (when D2_MODE(I)->tracer is set) by the tensor API where a Python value is
 * read out of tensor o: warns once per source position when o belongs to
 * the trace. Never fails. */
void d2_trace_frozen(d2_interp *I, d2_obj *o, d2_trace_freeze kind);
/* Called by d2_apply_op (through D2_MODE(I)->up.trace_record) after an eager
 * op ran while a tracer is set. 0, or -1 with an exception pending. */
int d2_trace_record(d2_interp *I, d2_op_id op, d2_obj **inputs, int n_in, const d2_attrs *attrs,
                    d2_obj **outs, int n_out);

/* The to_static fallback (called by jit_program.c while it builds the Program of a
 * function that cannot be converted, with D2_MODE(I)->builder == B): sym are the
 * call's arguments with symbolic tensors of B for the feeds (variables
 * vars[0..n_feeds-1], values vals[k] or NULL when only the type is known:
 * then an example input is made, random in [0, 1) for floating types and
 * zeros otherwise, unknown dims 1). fn is traced on concrete tensors and the
 * result is returned with its traced tensors as symbolic tensors of B (new
 * reference, or NULL with an exception). */
d2_obj *d2_trace_symbolic(d2_interp *I, d2_builder *B, d2_obj *fn, d2_obj **sym, size_t nargs,
                          d2_dict *kw, const int *vars, d2_tensor *const *vals, int n_feeds);

#endif
