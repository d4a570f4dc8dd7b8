/* jit.h - to_static at run time: the _jst helpers, paddle.jit / paddle.static, compiled Programs. */
#ifndef DY2ST_JIT_H
#define DY2ST_JIT_H

#include "lib/paddle/tensor_api.h"

/* Slot of d2_interp.ext used by this module (tensor_api.h uses 0 and 1). */
enum { D2_EXT_JIT = 2 };

/* Registers the pseudo-module `_jst` (the helpers the converted code calls,
 * see transform.h), paddle.jit (to_static, not_to_static, enable_to_static,
 * save, load), paddle.static (InputSpec), fluid.dygraph.declarative, and
 * the tensor-array forms of paddle.concat / paddle.stack. Called once from
 * d2_interp_new after the paddle and numpy modules; 0, or -1 with an
 * exception pending.
 *
 * How a to_static function runs. The decorator returns a Python function
 * (so it binds as a method) whose attributes hold the state: `code` (the
 * converted source) and `__wrapped__` (the original). Calling it outside a
 * Program build converts the original once (transform.h, then the converted
 * source is instantiated in the original module's globals), compiles a
 * Program per input signature (shapes and dtypes of the tensor arguments,
 * or the InputSpec's, plus the values of the Python arguments and the
 * Layer's training flag), prepares it once (exec.h) and runs it on the
 * actual inputs. Layer parameters are lifted into the Program sharing their
 * data; a parameter whose tensor is replaced (set_state_dict) is picked up
 * on the next call. Called while a Program is being built, it runs inline.
 * With gradients on and a parameter or input that wants one, the run is
 * one tape node whose backward runs the Program's gradient Program
 * (jit_train.h), so loss.backward() and an optimizer train the Layer.
 *
 * Saved models: paddle.jit.save(layer, path, input_spec) writes path +
 * ".dy2st" (a d2_model_save file; Paddle writes path.pdmodel/.pdiparams)
 * unless path already ends in ".dy2st"; without input_spec it uses the
 * to_static input_spec or the last compiled signature. paddle.jit.load(path)
 * reads the same name back and returns a callable TranslatedLayer. */
int d2_jit_init(d2_interp *I);

/* Fallback for functions the transforms cannot convert: when the trace
 * recorder provides this symbol, a to_static function with unsupported
 * syntax is traced instead: it is called with the same arguments as the
 * function and returns what the function returns (a new reference, or NULL
 * with an exception). Without it, such a function is an error pointing at
 * the construct. */
d2_obj *d2_trace_function(d2_interp *I, d2_obj *fn, d2_obj **args, size_t nargs, d2_dict *kwargs);

/* A copy of the Program that a to_static call compiled most recently (its
 * parameters share data with the Layer), for ProgramTranslator's
 * save_inference_model / get_program. Caller frees; NULL with err set when
 * nothing was compiled yet. */
d2_program *d2_jit_last_program(d2_interp *I, d2_err *err);
/* When o is an UndefinedVar (a variable a converted function left unbound
 * on some path), raises its NameError and returns true. */
bool d2_jit_raise_if_undef(d2_interp *I, d2_obj *o);


/* Parses an input description "name:dtype[d0,d1,...]" (dims -1 or None
 * for unknown; "name:dtype" alone is a 0-d tensor) into *dt, *shape and the
 * name (copied into name, at most name_size bytes). 0, or -1 with err set. */
int d2_jit_parse_input(const char *text, char *name, size_t name_size, d2_dtype *dt,
                       d2_shape *shape, d2_err *err);

#endif
