/* static_api.h - Paddle's static-graph API: enable_static, Programs built op by op
 * (static.data, static.nn.fc, program_guard), Executor, load/save_inference_model, Program and
 * Variable views, ProgramTranslator. */
#ifndef DY2ST_STATIC_API_H
#define DY2ST_STATIC_API_H

#include "lib/paddle/tensor_api.h"

/* Slot of d2_interp.ext used by this module (tensor_api.h uses 0 and 1,
 * jit.h 2, trace.h 6). */
enum { D2_EXT_STATIC = 5 };

/* Registers, after d2_jit_init:
 *   paddle.enable_static / disable_static / in_dynamic_mode;
 *   building Programs op by op in static mode: paddle.static.data(name,
 *     shape, dtype, lod_level) adds an input (None/-1 dims are dynamic) to
 *     the current main Program and returns a symbolic tensor of that
 *     Program's builder; every tensor operation on it (paddle.*, Layers,
 *     operators) appends ops there (d2_apply_op routes ops on a symbolic
 *     operand to its builder), and concrete tensors it meets (parameters,
 *     constants) become the Program's parameters. paddle.static.nn.fc
 *     creates its parameters (Xavier weight, zero bias, or the ParamAttrs)
 *     with paddle.create_parameter. program_guard(main, startup) switches
 *     the default Programs; startup Programs stay empty (parameters are
 *     initialised when created);
 *   paddle.static.Executor (also fluid.Executor) with run(program, feed,
 *     fetch_list, return_numpy): built Programs run pruned to the fetched
 *     variables (every input an op reads must be fed, as in Paddle), loaded
 *     ones as saved; Program, Variable, CompiledProgram (the Program
 *     itself), default_main_program / default_startup_program,
 *     load_inference_model(path_prefix, executor) and
 *     save_inference_model(path_prefix, feed_vars, fetch_vars, executor,
 *     program=None) (default: the main Program, pruned to feed -> fetch);
 *   paddle.fluid.io.load_inference_model(dirname, executor, model_filename,
 *     params_filename) and fluid.io.save_inference_model(dirname,
 *     feeded_var_names, target_vars, executor, main_program=None,
 *     model_filename=None) (dirname/model.dy2st by default);
 *   paddle.nn.functional.cross_entropy when the paddle module has none;
 *   paddle.static.append_backward(loss, parameter_list, no_grad_set) and
 *     gradients(targets, inputs, target_gradients, no_grad_set) on Programs
 *     built op by op: the backward is appended to the Program
 *     (runtime/backward.h) and the (parameter, gradient) pairs or gradient
 *     Variables are returned, fetchable with Executor.run;
 *   Optimizer.minimize in static mode (train_optim_src.c) appends the
 *     backward and the update ops; Executor.run then copies the update ops'
 *     results into the persistable variables they update (the write-back
 *     list of the Program, d2_static_write_back below);
 *   paddle.static.global_scope().find_var(name).get_tensor() (a Tensor
 *     sharing a built Program's persistable data); paddle.static.save(
 *     program, model_path) (parameters to .pdparams, optimizer state to
 *     .pdopt, {name: ndarray} pickles; no .pdmodel) and load(program,
 *     model_path) writing them back;
 *   paddle.jit.ProgramTranslator (also fluid.dygraph.ProgramTranslator).
 *
 * Model files are dy2st saved models (model_io.h). A path names one by
 * trying, in order, PATH.dy2st, PATH itself when it is a file, and
 * PATH/model.dy2st when it is a directory (what paddle.jit.save and
 * save_inference_model write). 0, or -1 with an exception pending. */
int d2_static_api_init(d2_interp *I);

/* Registers (api_compat.c, called by d2_static_api_init last):
 * paddle.static.nn.cond and while_loop called by hand, the paddle.tensor
 * module, and the Paddle 1.x spellings. 0, or -1 with an exception. */
int d2_api_compat_init(d2_interp *I);

/* A paddle.static.Program object holding a copy of p (parameters share
 * their data): Executor.run runs it, str() gives its text form. For
 * TracedLayer.program and the like. New reference, or NULL with an
 * exception. */
d2_obj *d2_static_program_new(d2_interp *I, const d2_program *p);

/* Registers a persistable write-back on the Program built by b: after each
 * Executor.run, the value of variable src (an optimizer op's result) is
 * copied into the data of persistable variable dst (a parameter or an
 * optimizer state; its tensor objects share that storage). Registering dst
 * again replaces its source. 0, or -1 with an exception. */
int d2_static_write_back(d2_interp *I, const d2_builder *b, int dst, int src);

/* The variable holding persistable variable v's value after the ops built so far of b's
 * Program: the source its write-back registered (an optimizer's update, a batch_norm's
 * running statistics, paddle.static's assign_to), else v itself. */
int d2_static_current_var(d2_interp *I, const d2_builder *b, int v);

/* Registers (static_ext.c, called by d2_static_api_init): the helper module paddle._static
 * and the Python-written parts of paddle.static and paddle.static.nn (static_ext_src.c),
 * found through the modules' __getattr__. 0, or -1 with an exception. */
int d2_static_ext_init(d2_interp *I);

/* Whether b builds a static Program op by op (program_guard, enable_static). */
bool d2_static_builds(d2_interp *I, const d2_builder *b);

/* Records a training batch_norm of the Program built by b: it normalises with the batch
 * statistics bm and bv (variables), whose running averages are the persistables rm and rv,
 * and um and uv hold their updates. Executor.run writes um and uv back into rm and rv, and
 * clone(for_test=True) and save_inference_model make the batch_norm read rm and rv instead of
 * bm and bv (Paddle's is_test). 0, or -1 with an exception. */
int d2_static_batch_norm(d2_interp *I, const d2_builder *b, int bm, int bv, int rm, int rv,
                         int um, int uv);

/* Makes Executor.run of loss's Program (built op by op) call sched (an
 * LRScheduler) before every run and write its value into lr, a concrete
 * tensor the Program takes in as a persistable variable. 0, or -1 with an
 * exception. */
int d2_static_set_lr(d2_interp *I, d2_obj *loss, d2_obj *lr, d2_obj *sched);

/* Paddle's text for a symbolic tensor of a Program built op by op
 * ("var x : LOD_TENSOR.shape(-1, 4).dtype(float32).stop_gradient(True)"),
 * appended to b; false (b untouched) for any other tensor. */
bool d2_static_var_text(d2_interp *I, const d2_obj *o, d2_buf *b);

#endif
