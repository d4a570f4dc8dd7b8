/* jit_priv.h - helpers of the jit files shared among them and with trace.c and static_api.c
 * (internal to the translator: not part of any public header). */
#ifndef DY2ST_JIT_PRIV_H
#define DY2ST_JIT_PRIV_H

#include "exec.h"
#include "interp/interp.h"
#include "lib/paddle/jit.h"

/* ---- small helpers ---- */

#define TOBJ(o) D2_AS(d2_tensor_obj, o)

static inline d2_obj *nomem(d2_interp *I) { return d2_raise(I, "MemoryError", "out of memory"); }

static inline const char *cstr(d2_obj *o)
{
    return o && o->kind == D2_OBJ_STR ? D2_AS(d2_str, o)->s : NULL;
}

static inline bool is_tensor(const d2_obj *o) { return o && o->kind == D2_OBJ_TENSOR; }
static inline bool is_sym(const d2_obj *o) { return is_tensor(o) && !TOBJ(o)->t; }
static inline bool is_pynum(const d2_obj *o)
{
    return o && (o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL || o->kind == D2_OBJ_FLOAT);
}
static inline bool is_inst(d2_interp *I, d2_obj *o, d2_class *c)
{
    return o && c && o->kind != D2_OBJ_CLASS && d2_isinstance(I, o, c);
}

/* Attribute of an INSTANCE's dict (borrowed) or NULL. */
static inline d2_obj *iget(d2_interp *I, d2_obj *o, const char *name)
{
    if (!o || o->kind != D2_OBJ_INSTANCE || !D2_AS(d2_instance, o)->dict)
        return NULL;
    return d2_dict_get_str(I, D2_AS(d2_instance, o)->dict, name);
}

/* d2_exec_run for the runs a script starts: each is bounded by what is left
 * of the script's time (exec --timeout), so an endless while_loop in a
 * converted or loaded model stops with an error instead of hanging it. */
/* rng_offset: d2_run_limits.rng_offset, a training run's own random stream (0: none). */
static inline int d2_jit_exec_run_rng(d2_interp *I, d2_prepared *pp, uint64_t rng_offset,
                                      d2_tensor **in, int n_in, d2_tensor **out, int n_out,
                                      d2_err *err)
{
    if (!(I->opt.timeout_s > 0) && !rng_offset)
        return d2_exec_run(pp, in, n_in, out, n_out, err);
    d2_run_limits lim = {0};
    lim.rng_offset = rng_offset;
    if (I->opt.timeout_s > 0) {
        lim.timeout_s = I->opt.timeout_s;
        lim.deadline = d2_interp_deadline(I);
        if (!(lim.deadline > 0))
            lim.deadline = d2_monotonic_s() + I->opt.timeout_s;
    }
    return d2_exec_run_limited(pp, &lim, in, n_in, out, n_out, err);
}

static inline int d2_jit_exec_run(d2_interp *I, d2_prepared *pp, d2_tensor **in, int n_in,
                                  d2_tensor **out, int n_out, d2_err *err)
{
    return d2_jit_exec_run_rng(I, pp, 0, in, n_in, out, n_out, err);
}

/* A new random-stream offset (never 0) for a run of Program p that draws random numbers
 * (dropout_train), taken from paddle.seed's generator; 0 when p draws none. */
uint64_t d2_jit_rng_offset(d2_interp *I, const d2_program *p);

/* ---- registration of builtin modules and classes ---- */

typedef struct d2_fn_entry {
    const char *name;
    d2_builtin_fn fn;
} d2_fn_entry;

/* Adds the n functions of v to module m. 0, or -1 with an exception. */
int d2_jit_add_fns(d2_interp *I, d2_module *m, const d2_fn_entry *v, size_t n);

/* A new builtin class `name` (base object) with the nd rows of defs and the
 * n methods, stored as m.name when m is not NULL. It lives until interpreter
 * teardown; NULL with an exception. */
d2_class *d2_jit_new_class(d2_interp *I, d2_module *m, const char *name, d2_obj_kind layout,
                           const d2_def *defs, size_t nd, const d2_fn_entry *methods, size_t n);

/* The builtin module `name` (made when missing): a new reference. */
d2_module *d2_jit_get_module(d2_interp *I, const char *name);

/* A builtin module's attribute (borrowed) or NULL. */
d2_obj *d2_jit_mod_attr(d2_interp *I, const char *mod, const char *name);
/* m.name = v for the module registered as mod (nothing when there is no such
 * module or v is NULL); v borrowed. 0 or -1. */
int d2_jit_alias(d2_interp *I, const char *mod, const char *name, d2_obj *v);

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
/* With DY2ST_ONNX_CHECK_DIR set (tests/onnx/test_onnx_export.sh), writes every converted
 * Program run on concrete inputs as ONNX to that directory (callN.onnx), with its inputs
 * and outputs as .npy and a line in manifest.tsv (tests/onnx/check_onnx.py reads it); a
 * Program that cannot be exported gets a line in skipped.txt. Nothing otherwise. */
void d2_jit_onnx_check_dump(const d2_program *p, d2_tensor *const *in, int n_in,
                            d2_tensor *const *out, int n_out);

/* ======================================================================
 * Between the jit files only (jit_values.c, jit_runtime.c, jit_loops.c,
 * jit_program.c, jit_api.c, jit_io.c)
 * ====================================================================== */

/* ---- state (jit_api.c makes it) ---- */

typedef struct jit_state {
    d2_module *jst, *jit, *statics;
    d2_class *undef_cls;  /* _jst.UndefinedVar */
    d2_class *array_cls;  /* _jst.TensorArray: a Python list grown in a tensor loop */
    d2_class *range_cls;  /* _jst.Range / _jst.Enumerate over tensor bounds */
    d2_class *slot_cls;   /* output-template markers (OPAQUE) */
    d2_class *fmt_cls;    /* _jst.Fmt of an f-string with tensors: its parts (OPAQUE) */
    d2_class *sfn_cls;    /* StaticFunction state (OPAQUE) */
    d2_class *spec_cls;   /* paddle.static.InputSpec */
    d2_class *loaded_cls; /* paddle.jit.TranslatedLayer */
    d2_class *prog_cls;   /* a loaded Program (OPAQUE) */
    d2_obj *orig_concat, *orig_stack;
    d2_obj *converted;    /* dict: user function -> converted function (or itself) */
    d2_program *last_prog; /* copy of the Program compiled last (d2_jit_last_program) */
    bool enabled;         /* paddle.jit.enable_to_static */
    /* a Program is being built to run now (not to save): print() of Python
     * values in it becomes a print op, printed on every run */
    bool run_prints;
    double decorate_s;    /* time spent making to_static functions (_jst._stats) */
    long decorated;
} jit_state;

static inline jit_state *JS(d2_interp *I) { return I->ext[D2_EXT_JIT]; }

/* Each file registers its builtins (called by d2_jit_init in this order,
 * which is the order the classes are made in). 0, or -1 with an exception. */
int d2_jit_values_init(d2_interp *I, jit_state *s);  /* UndefinedVar, TensorArray, concat */
int d2_jit_loops_init(d2_interp *I, jit_state *s);   /* While, For, Range, TensorRange */
int d2_jit_runtime_init(d2_interp *I, jit_state *s); /* IfElse, And, ..., Call */
int d2_jit_io_init(d2_interp *I, jit_state *s);      /* paddle.load, _load_npz, ... */
int d2_jit_program_init(d2_interp *I, jit_state *s); /* _cache_size */

/* ---- more small helpers ---- */

static inline bool is_undef(d2_interp *I, d2_obj *o) { return is_inst(I, o, JS(I)->undef_cls); }
static inline bool is_array(d2_interp *I, d2_obj *o) { return is_inst(I, o, JS(I)->array_cls); }

static inline int iset(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    return d2_dict_set_str(I, D2_AS(d2_instance, o)->dict, name, v);
}

/* Function attribute (borrowed) or NULL. */
static inline d2_obj *fattr(d2_interp *I, d2_obj *f, const char *name)
{
    if (!f || f->kind != D2_OBJ_FUNCTION || !D2_AS(d2_function, f)->attrs)
        return NULL;
    return d2_dict_get_str(I, D2_AS(d2_function, f)->attrs, name);
}

int d2_jit_fattr_set(d2_interp *I, d2_obj *f, const char *name, d2_obj *v);

/* Runs (or, in static mode, appends) a one-output op; frees b. New ref or NULL. */
d2_obj *d2_jit_op_n(d2_interp *I, d2_op_id op, d2_obj **in, int n_in, d2_ab *b);

static inline d2_obj *op_1(d2_interp *I, d2_op_id op, d2_obj *x, d2_ab *b)
{
    return d2_jit_op_n(I, op, &x, 1, b);
}
static inline d2_obj *op_2(d2_interp *I, d2_op_id op, d2_obj *x, d2_obj *y, d2_ab *b)
{
    d2_obj *in[2] = {x, y};
    return d2_jit_op_n(I, op, in, 2, b);
}

/* A constant tensor of dtype dt and shape s filled with v. */
d2_obj *d2_jit_constant(d2_interp *I, d2_dtype dt, const d2_shape *s, double v);

static inline double num_value(d2_obj *o)
{
    return o->kind == D2_OBJ_FLOAT ? D2_AS(d2_float, o)->v : (double)D2_AS(d2_int, o)->v;
}

/* Paddle's to_static_variable dtype of a Python scalar. */
static inline d2_dtype num_dtype(d2_obj *o)
{
    return o->kind == D2_OBJ_BOOL ? D2_BOOL : o->kind == D2_OBJ_INT ? D2_I64 : D2_F64;
}

d2_obj *d2_jit_cast_to(d2_interp *I, d2_obj *x, d2_dtype dt);

/* Shape with dynamic dims replaced by 1 (placeholder values). */
static inline d2_shape static_shape(const d2_shape *s)
{
    d2_shape r = *s;
    for (int d = 0; d < r.ndim; d++)
        if (r.dims[d] < 0)
            r.dims[d] = 1;
    return r;
}

void d2_jit_type_text(const d2_type *t, char *buf, size_t n);

/* A variable name not yet used in p: base, base_1, base_2... */
void d2_jit_unique_name(const d2_program *p, const char *base, char *out, size_t n);

/* Packed results: None for 0 names, the value for 1, a tuple for more. */
d2_obj *d2_jit_pack(d2_interp *I, d2_obj **v, size_t n);

/* Splits a packed value into n new references. */
int d2_jit_unpack(d2_interp *I, d2_obj *r, size_t n, d2_obj **out, const char *what);

static inline void decref_all(d2_obj **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        d2_setref(&v[i], NULL);
}

/* ---- Program surgery used while building ---- */

/* Empties a sub-block for another attempt; its old variables stay unused. */
void d2_jit_block_clear(d2_program *p, int b);

/* A position in the Program under construction: ops of the current block
 * and the number of blocks. */
typedef struct build_mark {
    int n_ops, n_blocks;
} build_mark;

build_mark d2_jit_block_mark(d2_interp *I);

/* Drops the blocks made after m (their variables stay unused). */
void d2_jit_drop_blocks(d2_program *p, int n_blocks);

/* Removes what a probe appended to the current block after m. */
void d2_jit_rollback(d2_interp *I, build_mark m);

/* The original file and line of a converted helper function ("if_true_24"
 * in "model.py (converted forward)" gives "model.py:24"); "" when unknown. */
void d2_jit_helper_where(d2_obj *fn, char *buf, size_t n);

/* ---- UndefinedVar, TensorArray, templates (jit_values.c) ---- */

/* An UndefinedVar named name that raises msg where its value is used. */
d2_obj *d2_jit_new_undef(d2_interp *I, const char *name, const char *msg);

/* Raises the NameError an UndefinedVar carries (used where values are consumed). */
d2_obj *d2_jit_raise_undef(d2_interp *I, d2_obj *u);

/* A TensorArray over symbolic array tensor t; info (shared by copies) says
 * whether the element dtype is still a guess ("loose") and what an append
 * wanted ("want"). NULL info makes a fresh one. */
d2_obj *d2_jit_new_tarray(d2_interp *I, d2_obj *t, d2_obj *info, bool loose);

static inline d2_obj *tarray_t(d2_interp *I, d2_obj *a) { return iget(I, a, "_t"); }
static inline d2_obj *tarray_info(d2_interp *I, d2_obj *a) { return iget(I, a, "_info"); }

/* The dtype an append asked a loose array for, or -1. */
int d2_jit_info_want(d2_interp *I, d2_obj *info);

/* A tensor array of the n tensors items, cast to dt, made in the current block. */
d2_obj *d2_jit_array_of(d2_interp *I, d2_obj **items, size_t n, d2_dtype dt);

/* o with its mutable containers copied (each branch of a tensor if gets its own). */
d2_obj *d2_jit_copy_mutable(d2_interp *I, d2_obj *o, int depth);

/* A template marker standing for value k. */
d2_obj *d2_jit_new_slot(d2_interp *I, int k);

/* tmpl with marker k replaced by vals[k] (new reference). */
d2_obj *d2_jit_fill_slots(d2_interp *I, d2_obj *tmpl, d2_obj **vals, int depth);

/* ---- cond and control ops (jit_runtime.c), used by the loops ---- */

/* Runs branch `which` (0 true, 1 false) and returns its packed values. */
typedef d2_obj *(*branch_fn)(d2_interp *I, void *ctx, int which);

/* Builds `cond(pred)` whose branches run fn(ctx, 0) and fn(ctx, 1); each
 * gives the packed values of the n names. out receives n new references. */
int d2_jit_cond_core(d2_interp *I, d2_obj *pred, branch_fn fn, void *ctx, size_t n,
                     const char **names, const char *what, d2_obj *const *fns, d2_obj **out);

/* Converts a tensor predicate to the variable of a one-element bool tensor. */
int d2_jit_pred_var(d2_interp *I, d2_obj *pred, const char *what);

/* Adds a control op with new result variables in the current block. */
int d2_jit_emit_control(d2_interp *I, d2_op_id id, const int *in, int n_in, d2_ab *b, int n_out,
                        int *out);

/* The result of a symbolic-value wrapper for output variable v (TensorArray
 * for arrays). */
d2_obj *d2_jit_wrap_var(d2_interp *I, int v, d2_obj *info);

/* Whether name is one of the transform's own variables (return values, break
 * and continue flags). */
bool d2_jit_internal_name(const char *name);

/* "a float32[2] tensor", "the Python int 3"... into buf. */
const char *d2_jit_kind_text(d2_interp *I, d2_obj *o, char *buf, size_t n);

/* True when list o holds only tensors (or is empty): it becomes a tensor array. */
bool d2_jit_tensor_list(d2_obj *o);

/* The strings of the names tuple of a _jst call, in a new d2_calloc'd array. */
int d2_jit_names_array(d2_interp *I, d2_obj *names, const char ***out, size_t *n);

/* ---- while_loop (jit_loops.c), for paddle.static.nn.while_loop ---- */

/* cond gives the loop test over the n carried values (new reference); body
 * writes their n next values (new references). */
typedef d2_obj *(*d2_jit_loop_cond)(d2_interp *I, void *ctx, d2_obj **vals);
typedef int (*d2_jit_loop_body)(d2_interp *I, void *ctx, d2_obj **vals, d2_obj **out);

/* Builds a while op over the n values vals (named names in errors) in the
 * current block; out receives the n results (new references). 0 or -1. */
int d2_jit_build_while(d2_interp *I, size_t n, d2_obj **vals, const char **names,
                       d2_jit_loop_cond cond, d2_jit_loop_body body, void *ctx, const char *what,
                       d2_obj **out);

/* ---- to_static functions (jit_program.c) ---- */

/* The converted form of user function f for _jst.Call, cached; f itself
 * when it cannot be converted. New reference. */
d2_obj *d2_jit_converted_callee(d2_interp *I, d2_obj *f);

/* paddle.jit.to_static of target (a function, bound method or Layer) with
 * input_spec spec (NULL: none). New reference, or NULL with an exception. */
d2_obj *d2_jit_to_static(d2_interp *I, d2_obj *target, d2_obj *spec);

/* The Program of target for input specs (a list of InputSpec; NULL: the
 * to_static input_spec, else the last compiled signature). Caller frees. */
d2_program *d2_jit_program_for(d2_interp *I, d2_obj *target, d2_obj *specs);

/* ---- InputSpec (jit_api.c), files (jit_io.c) ---- */

/* Sets the attributes of InputSpec self (shape, dtype and name may be NULL). */
int d2_jit_spec_set(d2_interp *I, d2_obj *self, d2_obj *shape, d2_obj *dtype, d2_obj *name);

/* Whether path can be opened for reading. */
bool d2_jit_file_exists(const char *path);

#endif
