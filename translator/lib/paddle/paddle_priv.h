/* paddle_priv.h - what the Paddle API shares on the tensor floor: state, helpers, running ops. */
#ifndef DY2ST_PADDLE_PRIV_H
#define DY2ST_PADDLE_PRIV_H

#include "lib/paddle/tensor_api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the paddle module's state (tensor_obj.c) ---- */

/* Per-interpreter state of the paddle module, held by an OPAQUE object in
 * the paddle module's dict (freed with it at teardown). Object pointers here
 * are borrowed: classes and modules live until teardown. */
typedef struct pd_state {
    d2_class *tensor_cls, *dtype_cls, *layer_cls, *param_attr_cls, *init_cls, *place_cls, *ctx_cls,
        *hook_cls, *tensor_hook_cls;
    d2_module *paddle, *nn, *F, *init, *fluid, *dygraph, *linalg;
    d2_obj *dtypes[2][D2_NUM_DTYPES]; /* [np_style][dt] */
    d2_dict *name_counters;           /* unique_name: prefix -> next index */
    d2_mt64 rng;                      /* paddle.seed: Paddle's stream for rand & co., initialisers, dropout */
    int no_grad;                      /* gradients are off (no_grad, set_grad_enabled) when > 0 */
    int64_t hook_ids;                 /* ids of register_hook's handles */
    unsigned grad_epoch;              /* the current backward traversal (autograd.c) */
    bool in_backward;                 /* a backward is running */
    int64_t lifted_count;             /* names of lifted constants */
} pd_state;

/* The state of I's paddle module, made on first use; NULL when out of memory. */
pd_state *d2_pd_state(d2_interp *I);
static inline pd_state *ST(d2_interp *I)
{
    pd_state *s = I->ext[D2_EXT_PADDLE];
    return s ? s : d2_pd_state(I);
}

/* ---- small helpers ---- */

#define TOBJ(o) D2_AS(d2_tensor_obj, o)
#define NDA(o) D2_AS(d2_ndarray, o)

/* Builtin methods receive their receiver in self, or (unbound call, or a
 * binding that passes the receiver as the first argument) in args[0]. */
#define SELF_ARG(fname)                                                                            \
    do {                                                                                           \
        if (!self) {                                                                               \
            if (nargs < 1)                                                                         \
                return d2_raise(I, "TypeError", "%s: missing the receiver", fname);                \
            self = args[0];                                                                        \
            args++;                                                                                \
            nargs--;                                                                               \
        }                                                                                          \
    } while (0)

static inline bool is_tensor(const d2_obj *o) { return o && o->kind == D2_OBJ_TENSOR; }
static inline bool is_ndarray(const d2_obj *o) { return o && o->kind == D2_OBJ_NDARRAY; }
static inline bool is_none(d2_interp *I, const d2_obj *o)
{
    return !o || o == I->none || o->kind == D2_OBJ_NONE;
}
static inline bool is_int(const d2_obj *o) { return o->kind == D2_OBJ_INT; }
static inline bool is_bool(const d2_obj *o) { return o->kind == D2_OBJ_BOOL; }
static inline bool is_number(const d2_obj *o)
{
    return o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL || o->kind == D2_OBJ_FLOAT;
}
static inline bool is_seq(const d2_obj *o)
{
    return o->kind == D2_OBJ_LIST || o->kind == D2_OBJ_TUPLE;
}
static inline bool is_sym(const d2_obj *o) { return is_tensor(o) && TOBJ(o)->t == NULL; }

static inline size_t seq_len(const d2_obj *o)
{
    return o->kind == D2_OBJ_LIST ? D2_AS(d2_list, o)->n : D2_AS(d2_tuple, o)->n;
}
static inline d2_obj *seq_item(const d2_obj *o, size_t i)
{
    return o->kind == D2_OBJ_LIST ? D2_AS(d2_list, o)->items[i] : D2_AS(d2_tuple, o)->items[i];
}
static inline double num_value(const d2_obj *o)
{
    return o->kind == D2_OBJ_FLOAT ? D2_AS(d2_float, o)->v : (double)D2_AS(d2_int, o)->v;
}

static inline d2_obj *nomem(d2_interp *I) { return d2_raise(I, "MemoryError", "out of memory"); }

/* A tuple of n NULL items to fill with new references (n recorded). */
static inline d2_obj *tuple_new(d2_interp *I, size_t n)
{
    d2_obj *t = d2_tuple_new(I, n);
    if (t && n)
        D2_AS(d2_tuple, t)->n = n;
    return t;
}

static inline const d2_type *obj_type(const d2_obj *o) { return &TOBJ(o)->type; }

static inline d2_backend *eager_backend(d2_interp *I)
{
    return D2_MODE(I)->backend ? D2_MODE(I)->backend : d2_cpu_backend();
}

static inline const char *dtname(int dt) { return d2_dtype_name((d2_dtype)dt); }

static inline bool operand_ok(d2_obj *o)
{
    return is_tensor(o) || is_number(o) || is_ndarray(o) || is_seq(o);
}

/* A Python value was read out of o while tracing (the trace floor warns). */
static inline void trace_frozen(d2_interp *I, d2_obj *o, d2_trace_freeze kind)
{
    if (D2_MODE(I)->up.trace_frozen)
        D2_MODE(I)->up.trace_frozen(I, o, kind);
}

/* ---- objects and conversions (tensor_obj.c) ---- */

/* The type (dtype, static shape) of a concrete tensor. */
void d2_pd_type_of_tensor(const d2_tensor *t, d2_type *ty);
/* Raises err; with fname the message is "fname: msg" (a leading
 * "<opname>: " dropped when fname ends in it). NULL. */
d2_obj *d2_pd_raise_err_named(d2_interp *I, const char *fname, const d2_op_id *op, d2_err *err);
/* Wraps a fresh tensor as a numpy.ndarray, taking over the caller's reference. */
d2_obj *d2_pd_ndarray_take(d2_interp *I, d2_tensor *t);
/* Moves a CPU tensor to the eager backend (takes the caller's reference). */
d2_tensor *d2_pd_to_backend(d2_interp *I, d2_tensor *t);
/* Wraps a fresh CPU tensor as a paddle tensor on the eager backend (takes the reference). */
d2_obj *d2_pd_wrap_host(d2_interp *I, d2_tensor *t);
/* The dtype object for dt, a new reference. */
d2_obj *d2_pd_dtype_obj_new(d2_interp *I, d2_dtype dt, bool np_style);
/* Scalar arguments: an int / number / bool (None: false) / str, or a
 * one-element concrete tensor for int and number; TypeError naming fname
 * and what otherwise. 0 or -1 (get_str: NULL). */
int d2_pd_get_int(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t *v);
int d2_pd_get_float(d2_interp *I, d2_obj *o, const char *fname, const char *what, double *v);
int d2_pd_get_bool(d2_interp *I, d2_obj *o, const char *fname, const char *what, bool *v);
const char *d2_pd_get_str(d2_interp *I, d2_obj *o, const char *fname, const char *what);
/* A new CPU tensor of dt and the given shape from doubles. */
d2_tensor *d2_pd_host_from_doubles(d2_interp *I, d2_dtype dt, int ndim, const int64_t *shape,
                                   const double *v);
/* A shape as a Python list of ints. */
d2_obj *d2_pd_shape_pylist(d2_interp *I, const d2_shape *s);
/* The dtype class, its protocol, and paddle.float32 & co. */
int d2_pd_dtype_init(d2_interp *I, pd_state *s);

/* ---- builtin classes of the API (tensor_obj.c) ---- */

typedef struct method_entry {
    const char *name;
    d2_builtin_fn fn;
} method_entry;

/* Adds plain builtin methods (no argument parsing) to cls. */
int d2_pd_add_methods(d2_interp *I, d2_class *cls, const method_entry *m, size_t n);
/* Rows that are paddle.NAME(x, ...) and the Tensor method x.NAME(...). */
int d2_pd_add_tensor_fns(d2_interp *I, pd_state *s, const d2_def *defs, size_t n);
/* A builtin class of INSTANCE layout with plain methods, set as m.name when m is given. */
d2_class *d2_pd_new_class(d2_interp *I, d2_module *m, const char *name, d2_class *base,
                          const method_entry *methods, size_t n);

static inline int add_fn(d2_interp *I, d2_module *m, const char *name, d2_builtin_fn fn)
{
    return d2_module_add_fn(I, m, name, fn, NULL);
}

static inline int set_attr(d2_interp *I, d2_module *m, const char *name, d2_obj *v)
{
    return d2_dict_set_str(I, m->dict, name, v);
}

/* ---- attributes of instances (Layer, initializers, ParamAttr, ...) ---- */

static inline d2_dict *idict(d2_obj *o)
{
    return o && o->kind == D2_OBJ_INSTANCE ? D2_AS(d2_instance, o)->dict : NULL;
}

/* Borrowed attribute from an instance dict (NULL when absent). */
static inline d2_obj *iget(d2_interp *I, d2_obj *o, const char *name)
{
    d2_dict *d = idict(o);
    return d ? d2_dict_get_str(I, d, name) : NULL;
}

static inline int iset(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    d2_dict *d = idict(o);
    if (!d) {
        d2_raise(I, "TypeError", "internal: %s is not an instance", d2_type_name(o));
        return -1;
    }
    return d2_dict_set_str(I, d, name, v);
}

/* Sets a new reference v as attribute name (releases v). */
static inline int iset_take(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    if (!v)
        return -1;
    int rc = iset(I, o, name, v);
    d2_decref(v);
    return rc;
}

/* ---- running ops (dispatch.c) ---- */


/* d2_apply_op with the Python function's name for error messages. */
int d2_pd_apply_named(d2_interp *I, const char *fname, d2_op_id op, d2_obj **inputs, int n_in,
                      const d2_attrs *attrs, d2_obj **outs, int n_out);
/* One-output op; b may be NULL (defaults) and is freed. New reference or NULL. */
d2_obj *d2_pd_opn(d2_interp *I, const char *fname, d2_op_id op, d2_obj **in, int n_in, d2_ab *b);

static inline d2_obj *op1(d2_interp *I, const char *fname, d2_op_id op, d2_obj *x, d2_ab *b)
{
    return d2_pd_opn(I, fname, op, &x, 1, b);
}

static inline d2_obj *op2(d2_interp *I, const char *fname, d2_op_id op, d2_obj *x, d2_obj *y, d2_ab *b)
{
    d2_obj *in[2] = {x, y};
    return d2_pd_opn(I, fname, op, in, 2, b);
}

/* A 0-d constant of dtype dt (a `full` op in static mode). */
d2_obj *d2_pd_const_tensor(d2_interp *I, double v, int64_t iv, bool use_int, d2_dtype dt);
/* Python scalar o as a constant tensor of dtype dt. */
d2_obj *d2_pd_scalar_tensor(d2_interp *I, d2_obj *o, d2_dtype dt);
/* x cast to dt (-1 or the same dtype: x itself). New reference. */
d2_obj *d2_pd_cast_to(d2_interp *I, const char *fname, d2_obj *x, int dt);
typedef enum { D2_RND_UNIFORM, D2_RND_NORMAL, D2_RND_INT } d2_pd_rnd;
/* n values from paddle.seed's generator as Paddle's CPU kernels draw them
 * (uniform [p0, p1), normal mean p0 std p1, integers [p0, p1)). */
void d2_pd_random_fill_from(d2_mt64 *rng, d2_pd_rnd kind, d2_dtype dt, double p0, double p1,
                             double *v, int64_t n);
/* The end of a module's lazy __getattr__: keeps v in mod's dict, or raises AttributeError for
 * modname.name when v is NULL (train_api.c). */
d2_obj *d2_pd_module_keep_attr(d2_interp *I, d2_obj *mod, const char *modname, const char *name,
                               d2_obj *v);
void d2_pd_random_fill(d2_interp *I, d2_pd_rnd kind, d2_dtype dt, double p0, double p1, double *v,
                       int64_t n);
/* v[0..n) shuffled as Paddle's randperm shuffles (std::shuffle, libstdc++) */
void d2_pd_random_shuffle(d2_interp *I, int64_t *v, int64_t n);
/* A function argument as a tensor: tensors as they are, anything else
 * through to_tensor with dtype dt (-1 infers). New reference. */
d2_obj *d2_pd_as_tensor(d2_interp *I, d2_obj *o, int dt, const char *fname);
/* Binary op with Paddle's dtype rules (strict: mismatched dtypes are an error). */
d2_obj *d2_pd_binary(d2_interp *I, const char *fname, d2_op_id op, d2_obj *a, d2_obj *b,
                     bool strict);
/* The op of a Python binary operator (d2_ast_operator); *ok false when none. */

/* ---- the autograd tape (dispatch.c records, autograd.c runs backward) ----
 * An eager op that runs while gradients are on, with an input that does not
 * stop gradients, leaves a node: the op, its attributes, references to its
 * input tensor objects and to its outputs' data (not the output objects, so
 * that no cycle forms: an output object references its node). Nodes are
 * refcounted by the objects that point at them (grad_node) and by backward
 * while it runs; a node frees its saved values with it. */
struct d2_gnode;

/* A node whose backward is not a registry op's rule (a to_static Program
 * run as one node, a custom function). backward gets the gradients of the
 * node's outputs (dout, NULL = zero; borrowed) and stores a new reference
 * (or NULL for zero) in din[i] for each input with need[i], of that input's
 * type; it runs with gradients off unless create_graph. 0, or -1 with an
 * exception. fini frees ctx when the node goes. */
typedef struct d2_gnode_vt {
    const char *name; /* in errors: "<name>GradNode" */
    int (*backward)(d2_interp *I, struct d2_gnode *n, d2_obj **dout, const bool *need,
                    d2_obj **din, bool create_graph);
    void (*fini)(void *ctx);
} d2_gnode_vt;

typedef struct d2_gnode {
    int refs;
    d2_op_id op;          /* D2_NUM_OPS for a custom node */
    const d2_gnode_vt *vt; /* a custom node's backward, or NULL */
    void *ctx;            /* its state */
    d2_attrs attrs;
    int n_in, n_out;
    d2_obj **in;          /* input objects (references); NULL when absent or released */
    d2_tensor **out;      /* output data (references); NULL when released */
    bool *out_diff;       /* whether a gradient flows from output i */
    d2_tensor_obj **watch; /* per output: the object with hooks or retain_grads (weak) */
    bool released;        /* backward without retain_graph freed the saved values */
    /* backward's scratch, valid while mark == the running traversal's epoch */
    unsigned mark;
    bool needed;          /* this node's rule, or a gradient at its outputs, is wanted */
    int pending;          /* consumers whose gradients have not arrived yet */
    d2_obj **acc;         /* the gradient summed so far at each output (references) */
} d2_gnode;

/* Tapes a custom node over eager inputs and outputs (outs already made,
 * e.g. by running a Program): when gradients are on and an input wants
 * one, the outputs point at the node (bool outputs stop gradients); otherwise they stop gradients and ctx is
 * freed at once. Takes ctx in every case. 0, or -1 with an exception. */
int d2_pd_tape_custom(d2_interp *I, d2_obj **inputs, int n_in, d2_obj **outs, int n_out,
                      const d2_gnode_vt *vt, void *ctx);

/* Whether ops run now are taped (not under no_grad / set_grad_enabled(False)). */
static inline bool d2_pd_grad_enabled(d2_interp *I) { return ST(I)->no_grad <= 0; }
void d2_pd_gnode_ref(d2_gnode *n);
/* Drops a reference; the last frees the node (iteratively: freeing a long
 * chain does not recurse). */
void d2_pd_gnode_unref(d2_gnode *n);
/* Drops what node n saved for backward (inputs and outputs). */
void d2_pd_gnode_release(d2_gnode *n);
/* A tensor object whose grad_node/grad_slot or hooks go away: its node
 * reference and its gradient state (tensor_obj_free, detach). */
void d2_pd_grad_clear(d2_tensor_obj *t);

/* ---- printing (print.c) ---- */

/* Appends "[d0, d1, ...]". */
void d2_pd_shape_list_str(d2_buf *b, const d2_shape *s);
/* Paddle's str(tensor); for symbolic tensors a one-line description. */
d2_obj *d2_pd_tensor_str(d2_interp *I, d2_obj *o);

/* ---- indexing (indexing.c) ---- */

/* x[key] and x[key] = v (Tensor.__getitem__ / __setitem__). */
d2_obj *d2_pd_tensor_getitem(d2_interp *I, d2_obj *x, d2_obj *key);
int d2_pd_tensor_setitem(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v);

#endif
