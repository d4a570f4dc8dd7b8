/* jit_priv.h - helpers of jit.c shared with trace.c and static_api.c (internal to the
 * translator: not part of any public header). */
#ifndef DY2ST_JIT_PRIV_H
#define DY2ST_JIT_PRIV_H

#include "interp/interp.h"

/* ---- registration of builtin modules and classes ---- */

typedef struct d2_fn_entry {
    const char *name;
    d2_builtin_fn fn;
} d2_fn_entry;

/* Adds the n functions of v to module m. 0, or -1 with an exception. */
int d2_jit_add_fns(d2_interp *I, d2_module *m, const d2_fn_entry *v, size_t n);

/* A new builtin class `name` (base object) with the n methods, stored as
 * m.name when m is not NULL. It lives until interpreter teardown; NULL
 * with an exception. */
d2_class *d2_jit_new_class(d2_interp *I, d2_module *m, const char *name, d2_obj_kind layout,
                           const d2_fn_entry *methods, size_t n);

/* The builtin module `name` (made when missing): a new reference. */
d2_module *d2_jit_get_module(d2_interp *I, const char *name);

/* A builtin module's attribute (borrowed) or NULL. */
d2_obj *d2_jit_mod_attr(d2_interp *I, const char *mod, const char *name);

/* Whether o is an instance of paddle.nn.Layer. */
bool d2_jit_is_layer(d2_interp *I, d2_obj *o);

/* ---- nested Python containers ---- */

/* The items of a tuple or list (borrowed view, *n set); NULL and 0 for others. */
d2_obj **d2_jit_seq_items(d2_obj *o, size_t *n);

/* A tuple of n items (NULL until filled with new references). */
d2_obj *d2_jit_tuple_n(d2_interp *I, size_t n);

/* Called on each item of a container by d2_jit_map_items: the new item (new
 * reference), or NULL with an exception. */
typedef d2_obj *(*d2_jit_map_fn)(d2_interp *I, d2_obj *item, void *ctx, int depth);

/* For a list, tuple or dict v: a new container of the same kind whose items
 * (dict values, under the same keys) are fn(I, item, ctx, depth + 1). Any
 * other v is returned as it is (new reference). NULL with an exception. */
d2_obj *d2_jit_map_items(d2_interp *I, d2_obj *v, d2_jit_map_fn fn, void *ctx, int depth);

/* ---- Programs built from Layers ---- */

/* Makes the parameters of prog see the Layer tensors that replaced them
 * since it was built (set_state_dict, set_value). lifted is the builder's
 * dict of lifted parameters (key -> (tensor, var)). *changed is set when a
 * parameter's data was replaced. 0; 1 when a parameter changed its shape
 * or dtype (*bad names its variable; nothing after it is refreshed); -1
 * with an exception. */
int d2_jit_refresh_lifted(d2_interp *I, d2_obj *lifted, d2_program *prog, bool *changed,
                          int *bad);

/* The text form of p (d2_program_print) as a str, or NULL with an exception. */
d2_obj *d2_jit_program_text(d2_interp *I, const d2_program *p);

/* Where a saved model goes: path itself when it ends in .dy2st, else path +
 * ".dy2st". d2_malloc'd, NULL when out of memory. */
char *d2_jit_model_path(const char *path);

/* Creates the missing directories above file (mkdir -p of its dirname), as
 * Paddle's save functions do. 0, or -1 with err set (its message begins
 * with who). */
int d2_jit_make_parents(const char *file, const char *who, d2_err *err);

#endif
