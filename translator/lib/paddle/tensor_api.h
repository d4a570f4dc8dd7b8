/* tensor_api.h - the Paddle tensor API and the NumPy subset: module setup and shared helpers. */
/* The definitions are spread over the files of lib/paddle that FLOORS lists:
 * objects and conversions in tensor_obj.c, d2_apply_op and the operators in
 * dispatch.c, printing in print.c, indexing in indexing.c, module setup
 * (d2_tensor_api_init) in paddle_module.c. */
#ifndef DY2ST_TENSOR_API_H
#define DY2ST_TENSOR_API_H

#include "backend.h"
#include "interp/interp.h"
#include "program.h"
#include "rng.h"

/* Slots of d2_interp.ext used by these modules. */
enum { D2_EXT_PADDLE = 0, D2_EXT_NUMPY = 1, D2_EXT_MODE = 7 };

/* A tensor value. Concrete: t holds data (eager mode, tracing). Symbolic:
 * var is a variable of the Program under construction (static mode), t is
 * NULL. A concrete tensor that has been recorded by the tracer, or lifted
 * into a static Program as a parameter/constant, remembers its var there
 * (trace_var / static_var), keyed by the owning builder's generation so a
 * stale id is never reused. */
typedef struct d2_tensor_obj {
    d2_obj h;
    d2_tensor *t;                /* owned; NULL when symbolic */
    struct d2_builder *builder;  /* symbolic: the builder whose Program holds var */
    int var;                     /* symbolic var, or -1 */
    d2_type type;                /* dtype and shape (static dims, -1 dynamic) */
    bool stop_gradient;
    bool persistable;            /* a parameter (Layer.create_parameter) */
    const char *name;            /* Paddle name ("linear_0.w_0"), arena/interp-owned or NULL */
    int trace_var;               /* var in the trace Program, -1 */
    unsigned trace_gen;
    /* symbolic: the builder's list of its tensors (d2_builder.syms), so that
     * a finished builder reaches them without scanning every object */
    struct d2_tensor_obj *sym_prev, *sym_next;
    /* eager autograd: the tape node that produced this tensor (NULL for a
     * leaf) and which of its outputs this is; for a leaf that requires a
     * gradient, the gradient accumulated by backward (a tensor object or NULL) */
    struct d2_gnode *grad_node;
    int grad_slot;
    d2_obj *grad;
    /* register_hook's hooks (a dict: handle id -> callable) or NULL, and
     * retain_grads(): a non-leaf that keeps its gradient in grad */
    d2_obj *grad_hooks;
    bool retain_grads;
} d2_tensor_obj;

/* A numpy.ndarray: a concrete CPU tensor with NumPy semantics. */
typedef struct { d2_obj h; d2_tensor *t; } d2_ndarray;

/* A dtype object; np_style tells numpy's np.float32 from paddle.float32. */
typedef struct { d2_obj h; d2_dtype dt; bool np_style; } d2_dtype_obj;

/* ---- value modes ----
 * One interpreter evaluates model code and build scripts. Tensor operations
 * all go through d2_apply_op, which decides by the operands:
 *   - all operands concrete, no builder active: run the kernel now (eager);
 *     if a trace recorder is active, also append the op to the trace Program;
 *   - any operand symbolic (static mode, inside to_static): append the op to
 *     the builder's current block after shape/dtype inference; concrete
 *     operands (parameters, constants) are lifted into the Program first.
 */
typedef struct d2_builder {
    d2_program *prog;          /* owned while building */
    int block;                 /* current block */
    unsigned gen;              /* generation: distinguishes builders over time */
    struct d2_builder *outer;  /* enclosing builder (nested to_static calls) */
    d2_dict *lifted;           /* id(tensor obj) -> var, for concrete tensors already lifted */
    struct d2_tensor_obj *syms; /* the symbolic tensor objects of prog alive now */
} d2_builder;

/* ---- tensors ----
 * d2_apply_op: the single entry point of every tensor operation (see the
 * value modes above). inputs are TENSOR objects (or NULL for an absent
 * optional input); attrs NULL means defaults. outs receives n_out new TENSOR
 * references. Errors from inference or kernels are raised as Python
 * exceptions at the current frame. */
int d2_apply_op(d2_interp *I, d2_op_id op, d2_obj **inputs, int n_in, const d2_attrs *attrs,
                d2_obj **outs, int n_out);
/* Wraps a concrete tensor (takes a new reference on t). */
d2_obj *d2_tensor_wrap(d2_interp *I, d2_tensor *t);
/* Converts a Python scalar / nested list / ndarray / tensor to a tensor
 * object of dtype dt (-1 = infer as paddle.to_tensor does). */
d2_obj *d2_to_tensor(d2_interp *I, d2_obj *o, int dt);
/* Wraps a concrete tensor as a numpy.ndarray (takes a new reference). */
d2_obj *d2_ndarray_wrap(d2_interp *I, d2_tensor *t);

/* Places where a Python value is taken out of a tensor (trace mode warns
 * that the value is frozen into the recorded Program). */
typedef enum d2_trace_freeze {
    D2_FREEZE_BOOL,
    D2_FREEZE_INT,
    D2_FREEZE_FLOAT,
    D2_FREEZE_ITEM,
    D2_FREEZE_NUMPY,
    D2_FREEZE_TOLIST,
    D2_FREEZE_SHAPE,
    D2_FREEZE_LEN,
    D2_FREEZE_SETITEM, /* in-place assignment: not recorded, the tensor becomes a constant */
} d2_trace_freeze;

/* What the tensor floor asks of the floors above it (jit, trace, static),
 * which fill these in when they initialise; a NULL member means the higher
 * module is absent and the answer is "no" / nothing to do. */
typedef struct d2_pd_upcalls {
    /* jit: if o is to_static's marker of an undefined variable, raises its
     * error and returns true. */
    bool (*raise_if_undef)(d2_interp *I, d2_obj *o);
    /* trace: after an eager op ran while a tracer is set; 0 or -1 with an
     * exception pending. */
    int (*trace_record)(d2_interp *I, d2_op_id op, d2_obj **inputs, int n_in,
                        const d2_attrs *attrs, d2_obj **outs, int n_out);
    /* trace: a Python value was read out of tensor o while tracing. */
    void (*trace_frozen)(d2_interp *I, d2_obj *o, d2_trace_freeze kind);
    /* static: Paddle's text of a Variable of a hand-built Program, appended
     * to b; false when o is not one. */
    bool (*static_var_text)(d2_interp *I, const d2_obj *o, d2_buf *b);
    /* static: in static mode, the builder of the default main Program (made on first use),
     * which an op on concrete tensors that include a parameter extends, so that every run
     * reads the parameter's current value (NULL in dynamic mode). 0, or -1 with an
     * exception. */
    int (*static_param_builder)(d2_interp *I, d2_builder **b);
    /* static: whether b builds a static Program op by op, and d2_static_batch_norm
     * (static_api.h) on such a Program: a training batch_norm's statistics. */
    bool (*static_builds)(d2_interp *I, const d2_builder *b);
    int (*static_batch_norm)(d2_interp *I, const d2_builder *b, int bm, int bv, int rm, int rv,
                             int um, int uv);
} d2_pd_upcalls;

/* The value mode of an interpreter, shared by every paddle module: the
 * static builder and the trace recorder in effect, and the backend eager
 * tensors live on. Kept in I->ext[D2_EXT_MODE] (lib/modules.c makes it
 * before any paddle module initialises, and frees it last). */
typedef struct d2_pd_mode {
    d2_builder *builder;        /* active static builder, or NULL (eager) */
    struct d2_tracer *tracer;   /* active trace recorder, or NULL */
    d2_backend *backend;        /* where eager tensors live (NULL: the CPU) */
    d2_pd_upcalls up;           /* filled in by the higher floors */
} d2_pd_mode;
#define D2_MODE(I) ((d2_pd_mode *)(I)->ext[D2_EXT_MODE])



/* Register the `paddle` module tree (paddle, paddle.nn, paddle.nn.functional,
 * paddle.nn.initializer, paddle.fluid, paddle.fluid.dygraph, paddle.framework)
 * and `numpy` (numpy, numpy.random, numpy.testing). Called once from
 * d2_interp_new; 0, or -1 with an exception pending. */
int d2_tensor_api_init(d2_interp *I);
int d2_numpy_api_init(d2_interp *I);

/* Operator protocol. The classes paddle.Tensor and numpy.ndarray carry the
 * usual dunder methods (__add__, __radd__, __getitem__, __bool__, __iter__,
 * __repr__, ...), so a generic class-based dispatch in d2_binop & co. finds
 * them. The same entry points as plain functions, for a direct dispatch on
 * the layout (either operand a TENSOR or NDARRAY; op is a d2_ast_operator,
 * d2_ast_unaryop or d2_ast_cmpop). New reference, or NULL with an exception. */
d2_obj *d2_pd_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b);
d2_obj *d2_pd_unaryop(d2_interp *I, int op, d2_obj *a);
d2_obj *d2_pd_compare(d2_interp *I, int cmpop, d2_obj *a, d2_obj *b);
d2_obj *d2_np_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b);
d2_obj *d2_np_unaryop(d2_interp *I, int op, d2_obj *a);
d2_obj *d2_np_compare(d2_interp *I, int cmpop, d2_obj *a, d2_obj *b);
/* Truth value of a one-element tensor / ndarray: 1, 0, or -1 with an exception
 * (more than one element, or a symbolic tensor). */
int d2_pd_truth(d2_interp *I, d2_obj *t);
/* The registry op of a binary operator (a d2_ast_operator) on tensors and
 * arrays; *ok false for operators tensors do not have (<<, >>). */
d2_op_id d2_pd_binop_op(int op, bool *ok);

/* ---- tensors for the interpreter, jit and tracer ---- */
/* A symbolic tensor: variable `var` of builder b's Program (type from the var). */
d2_obj *d2_pd_symbolic(d2_interp *I, d2_builder *b, int var);
/* Detaches symbolic tensor t from its builder's list (and the builder). */
void d2_pd_sym_unlink(d2_tensor_obj *t);
/* Every symbolic tensor of b still alive stops standing for a variable
 * (b's Program is gone or finished); call before b itself goes. */
void d2_pd_retire_builder(d2_builder *b);
/* The variable standing for tensor object o in builder b: its own var when
 * symbolic, else o lifted once into b's Program as a parameter named by its
 * Paddle name (or a generated one). -1 with an exception. */
int d2_pd_lift(d2_interp *I, d2_builder *b, d2_obj *o);
/* A contiguous CPU copy (or reference) of a concrete tensor or ndarray; NULL
 * with a TypeError naming fname for anything else. Caller unrefs. */
d2_tensor *d2_pd_host(d2_interp *I, d2_obj *o, const char *fname);
/* x[key] and x[key] = v with the tensor indexing rules on a CPU tensor,
 * always eager (for numpy.ndarray). *out / *t receive new references. */
int d2_pd_index_host(d2_interp *I, d2_tensor *t, d2_obj *key, d2_tensor **out);
int d2_pd_setitem_host(d2_interp *I, d2_tensor **t, d2_obj *key, d2_obj *v);
/* x[key] = v as a new tensor (set_value, index_put or where ops), x unchanged. */
d2_obj *d2_pd_setitem_functional(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v);
/* Whether symbolic tensor x is a variable of the block being built now. */
bool d2_pd_sym_in_current_block(d2_interp *I, d2_obj *x);
/* Symbolic x comes to stand for r's variable (both symbolic, same builder). */
void d2_pd_sym_rebind(d2_obj *x, d2_obj *r);
/* ---- building an op's attributes ---- */
/* Attribute builder: defaults first, then setters; `bad` records a setter
 * that did not match the schema (an internal error) or out of memory. */
typedef struct d2_ab {
    const d2_opdef *def;
    d2_attrs a;
    bool bad;
} d2_ab;

static inline void d2_ab_init(d2_ab *b, d2_op_id op)
{
    b->def = d2_op_def(op);
    d2_attrs_init_default(b->def, &b->a);
    b->bad = b->a.n != b->def->n_attrs;
}
static inline void d2_ab_free(d2_ab *b) { d2_attrs_free(&b->a); }
static inline void d2_ab_int(d2_ab *b, const char *n, int64_t v)
{
    b->bad |= d2_attr_set_int(b->def, &b->a, n, v) < 0;
}
static inline void d2_ab_float(d2_ab *b, const char *n, double v)
{
    b->bad |= d2_attr_set_float(b->def, &b->a, n, v) < 0;
}
static inline void d2_ab_bool(d2_ab *b, const char *n, bool v)
{
    b->bad |= d2_attr_set_bool(b->def, &b->a, n, v) < 0;
}
static inline void d2_ab_str(d2_ab *b, const char *n, const char *v)
{
    b->bad |= d2_attr_set_str(b->def, &b->a, n, v) < 0;
}
static inline void d2_ab_ints(d2_ab *b, const char *n, const int64_t *v, int k)
{
    b->bad |= d2_attr_set_ints(b->def, &b->a, n, v, k) < 0;
}

/* ---- helpers shared by the paddle and numpy modules ---- */
/* The dtype object for dt (paddle.float32 or np.float32 style); borrowed. */
d2_obj *d2_pd_dtype_obj(d2_interp *I, d2_dtype dt, bool np_style);
/* Reads a dtype argument: a dtype object, a string ("float32", "int64",
 * "float", ...) or the Python types float/int/bool (numpy rules when
 * np_style: float -> float64). None gives *dt = -1. 0, or -1 with a
 * TypeError naming fname. */
int d2_pd_parse_dtype(d2_interp *I, d2_obj *o, const char *fname, bool np_style, int *dt);
/* Converts a Python scalar, nested list/tuple (of scalars, tensors, ndarrays),
 * tensor or ndarray into a new contiguous CPU tensor of dtype dt (-1: infer;
 * Python floats give float_dt, ints int64, bools bool). Caller unrefs. */
d2_tensor *d2_pd_from_py(d2_interp *I, d2_obj *o, int dt, d2_dtype float_dt, const char *fname);
/* Converts a CPU tensor to nested Python lists (0-d: a scalar). New ref. */
d2_obj *d2_pd_tolist(d2_interp *I, const d2_tensor *t);
/* Scalar element i of a contiguous CPU tensor as a Python int/float/bool. */
d2_obj *d2_pd_item(d2_interp *I, const d2_tensor *t, int64_t i);
/* Reads an int / a list or tuple of ints (an int gives one item) into v[*n]
 * (at most max); TypeError names fname and what. */
int d2_pd_ints(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t *v, int *n,
               int max);
/* The builtin class of a layout, created on first use. */
d2_class *d2_pd_layout_class(d2_interp *I, d2_obj_kind kind, const char *module);


/* NumPy's array printing (np.array2string defaults) of a CPU tensor:
 * repr form "array([1., 2.], dtype=float32)" or str form "[1. 2.]". New str. */
d2_obj *d2_np_format(d2_interp *I, const d2_tensor *t, bool repr);
/* NumPy's scalar repr of element i (1.5, 1e-05, 3, True). Appends to b. */
void d2_np_format_scalar(d2_buf *b, const d2_tensor *t, int64_t i);

/* linalg_api.c: paddle.tensor's functions that forward to paddle.linalg (x first), for the
 * module setup that makes paddle.tensor; *n gets their count. */
const d2_def *d2_pd_linalg_tensor_fns(size_t *n);

#endif
