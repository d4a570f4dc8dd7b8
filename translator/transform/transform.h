/* transform.h - to_static's source-to-source transforms: data-dependent control flow to _jst helper calls. */
#ifndef DY2ST_TRANSFORM_H
#define DY2ST_TRANSFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "syntax/arena.h"
#include "syntax/ast.h"
#include "base.h"
#include "syntax/diag.h"

/* The transforms rewrite a function decorated with @paddle.jit.to_static
 * (AST to AST, new nodes in the same arena, each spanning the user's
 * construct it came from) so that every statement whose behaviour can
 * depend on tensor data becomes a call of a helper of the pseudo-module
 * `_jst`. The helpers take the data-dependence decision at evaluation time:
 * a Python value runs the construct as Python, a tensor builds cond or
 * while_loop ops. The converted function, printed by d2_unparse, is what
 * `dy2st convert` shows; it is valid Python.
 *
 * The `_jst` API the interpreter implements. "Packed" results follow one
 * rule: for n names a function returns None when n == 0, the value itself
 * when n == 1, and a tuple of the n values when n >= 2.
 *
 *   _jst.IfElse(pred, true_fn, false_fn, args, names)
 *       `if pred: ... else: ...`. args is a tuple of the current values of
 *       the variables both branches read before writing (or pass through);
 *       true_fn(*args) / false_fn(*args) run a branch and return the packed
 *       values of the variables named by the tuple of strings names (those
 *       written in a branch and live afterwards). Returns the packed
 *       values. A Python pred calls one branch. A tensor pred (one element)
 *       runs both under a cond op; their results must agree in structure;
 *       Python scalars on either side become tensors; an UndefinedVar on one
 *       side stays undefined after the if (an error only when read).
 *   _jst.While(cond_fn, body_fn, loop_vars, names)
 *       `while`: loop_vars is the tuple of initial values of the loop-carried
 *       variables named by names; cond_fn(*vars) gives the test,
 *       body_fn(*vars) runs one iteration and returns the packed new values.
 *       Returns the packed final values. Python tests loop in Python
 *       (unrolled); once the test is a tensor, the loop becomes a while_loop
 *       op over the carried variables.
 *   _jst.For(iterable, body_fn, loop_vars, names[, cond_fn])
 *       `for target in iterable`: body_fn(item, *vars) runs one iteration
 *       (binding the target from item) and returns the packed new values.
 *       cond_fn(*vars), given when the loop has a `break`, is checked before
 *       each iteration: False stops the loop. A Python list, tuple or range
 *       of Python ints is iterated in Python (unrolled); a tensor iterates
 *       over its first dimension and a _jst.Range with a tensor bound
 *       becomes a while_loop with an index variable.
 *   _jst.Range(*args)         range() of a for loop: a Python range when
 *                             every argument is a Python int, else a lazy
 *                             tensor range.
 *   _jst.Enumerate(x[, start]) enumerate() of a for loop, likewise.
 *   _jst.And(fn1, fn2, ...), _jst.Or(fn1, fn2, ...)
 *       `a and b and ...` with each operand a thunk: evaluated left to
 *       right with Python's short circuit while the values are Python
 *       values (returning the deciding value as Python does); once a value
 *       is a tensor, the remaining operands are evaluated and combined with
 *       logical_and / logical_or.
 *   _jst.Not(x)               `not x`: logical_not for a tensor.
 *   _jst.IfExp(pred, true_thunk, false_thunk)
 *       `a if pred else b`: one thunk for a Python pred, both and a select
 *       (cond) for a tensor pred.
 *   _jst.Print(*args, **kwargs)  print(); a symbolic tensor prints at run
 *                             time (print op).
 *   _jst.Assert(test[, msg])  assert; a symbolic tensor test becomes an
 *                             assert op. msg is evaluated eagerly.
 *   _jst.Cast(x, 'int' | 'float' | 'bool')  int(x) / float(x) / bool(x);
 *                             a tensor is cast (int64 / float32 / bool).
 *   _jst.Len(x)               len(x); a tensor whose first dim is dynamic
 *                             gives a tensor.
 *   _jst.Shape(x)             x.shape (not paddle.shape & co.); for a
 *                             symbolic tensor, a list with ints for static
 *                             dims and elements of paddle.shape(x) for
 *                             dynamic ones.
 *   _jst.Call(f)              returns what to call for f(...): f itself for
 *                             builtins and library functions, the converted
 *                             function for a user function or a Layer's
 *                             forward (converted recursively on first use).
 *   _jst.SetItem(x, key, v)   x[key] = v, giving what x is rebound to: x
 *                             itself, or for a tensor of an enclosing
 *                             block a new tensor (set_value, index_put).
 *   _jst.GetAttr(obj, 'a') / _jst.SetAttr(obj, 'a', v)  obj.a carried
 *                             through an if or loop in the local _attr_obj_a
 *                             (an UndefinedVar when obj has no a yet).
 *   _jst.UndefinedVar(name)   the value of a variable not assigned yet.
 *
 * Names the transforms make (suffixed _2, _3... on a clash with the user's
 * names): functions if_true_L / if_false_L, while_cond_L / while_body_L,
 * for_body_L / for_cond_L, where L is the construct's line; variables
 * _return_flag and _return_value (a return inside an if or loop), _break_L
 * and _continue_L (flags), _item_L (a for item bound to a non-name target),
 * _attr_OBJ_ATTR (an attribute assigned inside an if or loop).
 * The _return_ / _break_ / _continue_ prefixes mark the transform's own
 * variables: a helper may give them a placeholder where a branch leaves
 * them unset.
 *
 * The converted code uses nested defs that read the enclosing function's
 * variables as closures, lambdas, tuple packing and unpacking, and, for a
 * bare super() inside converted control flow, super(__class__, self).
 *
 * Lists: a variable mutated in a loop by x.append(v) (or extend, insert,
 * pop, remove, clear) counts as written by the loop, so it is a loop
 * variable and its name is in names. The call itself stays as written. In
 * a tensor loop the helper turns a loop variable holding a Python list into
 * a tensor array; append then writes the array's next element.
 */

typedef enum d2_xform_status {
    D2_XFORM_ERROR = -1,   /* out of memory, or unsupported syntax with no_fallback */
    D2_XFORM_OK = 0,       /* converted */
    D2_XFORM_FALLBACK = 1, /* unsupported syntax: warnings in diag; trace the function instead */
} d2_xform_status;

typedef struct d2_xform_options {
    /* unsupported syntax is an error instead of a fallback to tracing */
    bool no_fallback;
    /* Global names bound to library modules (such as "paddle", or "F" for
     * paddle.nn.functional): calls through them are left as they are
     * instead of going through _jst.Call. NULL: paddle, F, nn, np, numpy,
     * math. */
    const char *const *library_names;
    size_t n_library_names;
} d2_xform_options;

/* Whether a function carries @paddle.jit.to_static (also @to_static,
 * @jit.to_static, or any of them called with arguments), or
 * @paddle.jit.not_to_static. */
bool d2_xform_is_to_static(const d2_ast_stmt *fn);
bool d2_xform_is_not_to_static(const d2_ast_stmt *fn);

/* Converts one function (a FunctionDef). The input is not modified; the
 * result is a new FunctionDef in arena a without its to_static decorators,
 * stored to *out. A function marked @not_to_static is returned as it is
 * (*out = fn). Unsupported syntax (try, match, yield, async, global or
 * nonlocal writes, for/while ... else) is reported to diag at the
 * construct, as a warning and D2_XFORM_FALLBACK (*out = NULL), or with
 * opt->no_fallback as an error and D2_XFORM_ERROR. diag's current source
 * must be the function's file. opt may be NULL. */
d2_xform_status d2_xform_function(d2_arena *a, const d2_ast_stmt *fn, d2_diag *diag,
                                  const d2_xform_options *opt, d2_ast_stmt **out);

/* What `dy2st convert` prints: for each function of module m (top level or
 * a method, in source order) decorated with to_static, a comment line
 * naming it, then its converted source, or its source unchanged when it
 * falls back to tracing. select, when not NULL, keeps only the function or
 * class of that name (a class selects its methods). Returns the worst
 * status met; diagnostics go to diag, whose source this sets to m's file. */
d2_xform_status d2_xform_convert_module(d2_arena *a, const d2_ast_module *m, const char *select,
                                        d2_diag *diag, const d2_xform_options *opt, d2_buf *out);

#endif
