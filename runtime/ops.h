/* ops.h - the op registry: op ids, attribute schemas and values, inference and kernel contexts. */
#ifndef DY2ST_OPS_H
#define DY2ST_OPS_H

#include "tensor.h"

typedef enum {
#define OP(name, ins, outs, attrs, infer, flags) D2_OP_##name,
#define CTL OP
#include "ops.def"
#undef OP
#undef CTL
    D2_NUM_OPS
} d2_op_id;

enum {
    D2_OPF_CONTROL = 1 << 0,        /* has sub-blocks; run by a generic ctl_ kernel */
    D2_OPF_SHAPE_INPUTS = 1 << 1,   /* optional tensor inputs carry shape values read on the host */
    D2_OPF_ALLOCS_OUTPUTS = 1 << 2, /* the kernel creates its outputs (views, arrays) */
    D2_OPF_SIDE_EFFECT = 1 << 3,    /* never removed by dead-code elimination */
    D2_OPF_NO_GRAD = 1 << 4,        /* not differentiable: no gradient flows through it */
};

typedef enum {
    D2_ATTR_BOOL,
    D2_ATTR_INT,
    D2_ATTR_FLOAT,
    D2_ATTR_STR,
    D2_ATTR_INTS,
    D2_ATTR_FLOATS,
    D2_ATTR_DTYPE, /* value -1 means none */
    D2_ATTR_BLOCK, /* index of a block of the Program */
} d2_attr_type;

typedef struct d2_attr_value {
    d2_attr_type type;
    union {
        bool b;
        int64_t i; /* INT, DTYPE, BLOCK */
        double f;
        char *s;
        struct {
            int n;
            int64_t *v;
        } ints;
        struct {
            int n;
            double *v;
        } floats;
    } u;
} d2_attr_value;

/* Attribute values of one op instance, in schema order (n == def->n_attrs). */
typedef struct d2_attrs {
    int n;
    d2_attr_value *v;
} d2_attrs;

typedef struct d2_attr_schema {
    char *name;
    d2_attr_type type;
    bool has_default;
    d2_attr_value def;
} d2_attr_schema;

#define D2_MAX_PORTS 8

/* The static type of a Program variable. dims may be -1. */
typedef struct d2_type {
    d2_value_kind kind; /* tensor or tensor array (shape = element shape) */
    d2_dtype dtype;
    d2_shape shape;
} d2_type;

struct d2_opdef;
struct d2_exec_frame;

/* Shape/dtype inference. in_value[i] is the value of input i when it is known
 * (always at run time on the CPU, for D2_OPF_SHAPE_INPUTS inputs on every
 * backend; in static mode only for constants) and NULL otherwise; in_value
 * itself may be NULL. Absent optional inputs have in[i].dtype == -1. Must fill
 * out[0..n_out). Returns 0, or -1 with err set naming the problem. */
struct d2_program;

typedef struct d2_infer_ctx {
    const struct d2_opdef *def;
    const d2_attrs *attrs;
    int n_in;
    const d2_type *in;
    const d2_tensor *const *in_value;
    int n_out;
    d2_type *out;
    d2_err *err;
    /* Control ops only: the Program and the op, whose blocks give the result
     * types (see d2_program_infer_op). NULL elsewhere. */
    const struct d2_program *prog;
    const struct d2_op *op;
} d2_infer_ctx;

/* Kernel context. Inputs are contiguous tensors on the kernel's backend
 * (absent optional inputs are NULL). Unless the op has D2_OPF_ALLOCS_OUTPUTS,
 * out[i] is already allocated with the inferred shape; otherwise the kernel
 * stores new references in out[i]. */
typedef struct d2_kctx {
    const struct d2_opdef *def;
    const d2_attrs *attrs;
    struct d2_backend *be;
    int n_in;
    d2_tensor **in;
    int n_out;
    d2_tensor **out;
    d2_err *err;
    struct d2_exec_frame *frame; /* control ops only */
    int op_index;                /* index of the op in its block (control ops) */
    uint64_t rng_offset;         /* the run's d2_run_limits.rng_offset (0: none) */
} d2_kctx;

typedef int (*d2_infer_fn)(d2_infer_ctx *ic);
typedef int (*d2_kernel_fn)(d2_kctx *k);

/* Runs ic->def's inference, then checks every output type: no dim below -1,
 * and the known dims (-1 counting as 1) fit a tensor (d2_tensor_check_size),
 * so no overflowed or hostile size leaves inference. 0 or -1. */
int d2_infer_checked(d2_infer_ctx *ic);
/* The size check of d2_infer_checked for one type; 0 or -1 with err set. */
int d2_type_check_size(const d2_type *t, d2_err *err);

typedef struct d2_opdef {
    d2_op_id id;
    const char *name;
    const char *ins_spec, *outs_spec, *attrs_spec;
    d2_infer_fn infer;
    d2_kernel_fn ctl_kernel; /* control ops */
    unsigned flags;
    /* parsed from the specs by d2_ops_init */
    int n_ins, n_outs;          /* fixed ports (including optional ones) */
    char *in_names[D2_MAX_PORTS], *out_names[D2_MAX_PORTS];
    bool in_optional[D2_MAX_PORTS];
    bool ins_variadic, outs_variadic; /* last listed port is variadic */
    int n_attrs;
    d2_attr_schema *attrs;
} d2_opdef;

/* Parses the specs of every op; called once (thread-safe, idempotent).
 * Returns -1 only on an internal error in ops.def. */
int d2_ops_init(d2_err *err);
const d2_opdef *d2_op_def(d2_op_id id);
/* Looks an op up by name; NULL when unknown. */
const d2_opdef *d2_op_lookup(const char *name, size_t len);
/* Checks an input/output count against the op's ports. */
int d2_op_check_arity(const d2_opdef *def, int n_in, int n_out, d2_err *err);

/* Attributes. */
void d2_attrs_init_default(const d2_opdef *def, d2_attrs *a); /* zeroed if oom (n=0) */
int d2_attrs_copy(d2_attrs *dst, const d2_attrs *src, d2_err *err);
void d2_attrs_free(d2_attrs *a);
void d2_attr_value_free(d2_attr_value *v);
int d2_attr_index(const d2_opdef *def, const char *name);
/* Parses "name = literal, name = literal" (text-form syntax) into a, starting
 * from defaults; checks that required attributes are present. */
int d2_attrs_parse(const d2_opdef *def, const char *text, d2_attrs *a, d2_err *err);
/* Parses one literal of the given type from s; *end receives the position
 * after it. Literals: true/false, 3, -1.5e-3, inf, -inf, nan, "str" (C escapes),
 * [1, 2], float32 / none, ^3. */
int d2_attr_parse_literal(d2_attr_type type, const char *s, const char **end, d2_attr_value *out,
                          d2_err *err);
/* Prints one literal in a form d2_attr_parse_literal reads back exactly. */
void d2_attr_print_literal(d2_buf *b, const d2_attr_value *v);
bool d2_attr_value_equal(const d2_attr_value *a, const d2_attr_value *b);

/* Typed accessors by name (the name must exist in the schema with that type). */
bool d2_attr_bool(const d2_opdef *def, const d2_attrs *a, const char *name);
int64_t d2_attr_int(const d2_opdef *def, const d2_attrs *a, const char *name);
double d2_attr_float(const d2_opdef *def, const d2_attrs *a, const char *name);
const char *d2_attr_str(const d2_opdef *def, const d2_attrs *a, const char *name);
const int64_t *d2_attr_ints(const d2_opdef *def, const d2_attrs *a, const char *name, int *n);
const double *d2_attr_floats(const d2_opdef *def, const d2_attrs *a, const char *name, int *n);
int d2_attr_dtype(const d2_opdef *def, const d2_attrs *a, const char *name);
/* Setters for building ops in code (copies the value). */
int d2_attr_set_bool(const d2_opdef *def, d2_attrs *a, const char *name, bool v);
int d2_attr_set_int(const d2_opdef *def, d2_attrs *a, const char *name, int64_t v);
int d2_attr_set_float(const d2_opdef *def, d2_attrs *a, const char *name, double v);
int d2_attr_set_str(const d2_opdef *def, d2_attrs *a, const char *name, const char *v);
int d2_attr_set_ints(const d2_opdef *def, d2_attrs *a, const char *name, const int64_t *v, int n);

/* Convenience for kernels and infer functions: ctx is a d2_kctx* or d2_infer_ctx*. */
#define ATTR_BOOL(ctx, n) d2_attr_bool((ctx)->def, (ctx)->attrs, n)
#define ATTR_INT(ctx, n) d2_attr_int((ctx)->def, (ctx)->attrs, n)
#define ATTR_FLOAT(ctx, n) d2_attr_float((ctx)->def, (ctx)->attrs, n)
#define ATTR_STR(ctx, n) d2_attr_str((ctx)->def, (ctx)->attrs, n)
#define ATTR_INTS(ctx, n, cnt) d2_attr_ints((ctx)->def, (ctx)->attrs, n, cnt)
#define ATTR_FLOATS(ctx, n, cnt) d2_attr_floats((ctx)->def, (ctx)->attrs, n, cnt)
#define ATTR_DTYPE(ctx, n) d2_attr_dtype((ctx)->def, (ctx)->attrs, n)

/* Runs one op eagerly on backend be (NULL = CPU): infers output shapes from
 * the inputs, allocates outputs, runs the kernel. out[] receives new
 * references. Inputs need not be contiguous. Not for control ops. Errors are
 * prefixed with the op name. */
int d2_op_run(struct d2_backend *be, d2_op_id id, const d2_attrs *attrs, d2_tensor **in, int n_in,
              d2_tensor **out, int n_out, d2_err *err);

/* Infers the output types from input types (and known values). */
int d2_op_infer(const d2_opdef *def, const d2_attrs *attrs, const d2_type *in,
                const d2_tensor *const *in_value, int n_in, d2_type *out, int n_out, d2_err *err);

/* Declarations of every infer function and CPU kernel. */
#define OP(name, ins, outs, attrs, infer, flags) int cpu_##name(d2_kctx *k);
#define CTL(name, ins, outs, attrs, infer, flags) int ctl_##name(d2_kctx *k);
#include "ops.def"
#undef OP
#undef CTL

int infer_binary(d2_infer_ctx *ic);
int infer_compare(d2_infer_ctx *ic);
int infer_unary(d2_infer_ctx *ic);
int infer_unary_bool(d2_infer_ctx *ic);
int infer_unary_float(d2_infer_ctx *ic);
int infer_softmax(d2_infer_ctx *ic);
int infer_cast(d2_infer_ctx *ic);
int infer_where(d2_infer_ctx *ic);
int infer_reduce(d2_infer_ctx *ic);
int infer_reduce_as(d2_infer_ctx *ic);
int infer_argminmax(d2_infer_ctx *ic);
int infer_reshape(d2_infer_ctx *ic);
int infer_flatten(d2_infer_ctx *ic);
int infer_squeeze(d2_infer_ctx *ic);
int infer_unsqueeze(d2_infer_ctx *ic);
int infer_transpose(d2_infer_ctx *ic);
int infer_concat(d2_infer_ctx *ic);
int infer_stack(d2_infer_ctx *ic);
int infer_split(d2_infer_ctx *ic);
int infer_slice(d2_infer_ctx *ic);
int infer_gather(d2_infer_ctx *ic);
int infer_expand(d2_infer_ctx *ic);
int infer_tile(d2_infer_ctx *ic);
int infer_full(d2_infer_ctx *ic);
int infer_full_like(d2_infer_ctx *ic);
int infer_arange(d2_infer_ctx *ic);
int infer_shape(d2_infer_ctx *ic);
int infer_numel(d2_infer_ctx *ic);
int infer_assign(d2_infer_ctx *ic);
int infer_set_value(d2_infer_ctx *ic);
int infer_index_put(d2_infer_ctx *ic);
int infer_index_get(d2_infer_ctx *ic);
int infer_matmul(d2_infer_ctx *ic);
int infer_linear(d2_infer_ctx *ic);
int infer_conv2d(d2_infer_ctx *ic);
int infer_conv2d_fused(d2_infer_ctx *ic);
int infer_linear_fused(d2_infer_ctx *ic);
int infer_conv2d_transpose(d2_infer_ctx *ic);
int infer_pool2d(d2_infer_ctx *ic);
int infer_conv2d_grad_input(d2_infer_ctx *ic);
int infer_conv2d_grad_filter(d2_infer_ctx *ic);
int infer_pool2d_grad(d2_infer_ctx *ic);
int infer_batch_norm(d2_infer_ctx *ic);
int infer_dropout_train(d2_infer_ctx *ic);
int infer_layer_norm(d2_infer_ctx *ic);
int infer_embedding(d2_infer_ctx *ic);
int infer_array_create(d2_infer_ctx *ic);
int infer_array_write(d2_infer_ctx *ic);
int infer_array_read(d2_infer_ctx *ic);
int infer_array_length(d2_infer_ctx *ic);
int infer_array_stack(d2_infer_ctx *ic);
int infer_array_zeros_like(d2_infer_ctx *ic);
int infer_array_add(d2_infer_ctx *ic);
int infer_array_unstack(d2_infer_ctx *ic);
int infer_array_split_like(d2_infer_ctx *ic);
int infer_array_truncate(d2_infer_ctx *ic);
int infer_none(d2_infer_ctx *ic);
int infer_optimizer(d2_infer_ctx *ic);
int infer_cond(d2_infer_ctx *ic);
int infer_while_loop(d2_infer_ctx *ic);
/* special functions, activations, bitwise (ops_elem.c); scans, sorting, index ops (ops_index.c) */
int infer_act(d2_infer_ctx *ic);
int infer_bitwise(d2_infer_ctx *ic);
int infer_cum(d2_infer_ctx *ic);
int infer_argsort(d2_infer_ctx *ic);
int infer_topk(d2_infer_ctx *ic);
int infer_tril_triu(d2_infer_ctx *ic);
int infer_flip(d2_infer_ctx *ic);
int infer_roll(d2_infer_ctx *ic);
int infer_gather_nd(d2_infer_ctx *ic);
int infer_scatter(d2_infer_ctx *ic);
int infer_scatter_nd_add(d2_infer_ctx *ic);
int infer_take_along_axis(d2_infer_ctx *ic);
int infer_put_along_axis(d2_infer_ctx *ic);
/* linear algebra (ops_linalg.c) */
int infer_linalg_square(d2_infer_ctx *ic);
int infer_linalg_det(d2_infer_ctx *ic);
int infer_linalg_solve(d2_infer_ctx *ic);
int infer_linalg_qr(d2_infer_ctx *ic);
int infer_linalg_svd(d2_infer_ctx *ic);
int infer_linalg_eigh(d2_infer_ctx *ic);
int infer_linalg_lu(d2_infer_ctx *ic);
/* fused ops of the elementwise fusion passes (ops_fused.c) */
int infer_fused_elementwise(d2_infer_ctx *ic);
int infer_add_layer_norm(d2_infer_ctx *ic);
int infer_batch_norm_act(d2_infer_ctx *ic);

/* Shared inference helpers (runtime/infer_util.c). */
/* Normalises axis (negative counts from the end) into [0, ndim); -1 + err when out of range. */
int d2_norm_axis(int64_t axis, int ndim, const struct d2_opdef *def, d2_err *err);
/* Numpy broadcast of two shapes (dynamic dims broadcast to -1 unless the
 * other is a static non-1). */
int d2_broadcast_shapes(const d2_shape *a, const d2_shape *b, d2_shape *out,
                        const struct d2_opdef *def, d2_err *err);
/* Plans of data-dependent ops shared by inference and kernels (runtime/ops_shape.c):
 * slice's per-dim start/step and full/output shapes; arange's start/step/count. */
int d2_slice_plan(const d2_opdef *def, const d2_attrs *attrs, const d2_shape *in, int64_t *start,
                  int64_t *step, d2_shape *full, d2_shape *out, d2_err *err);
int d2_arange_plan(const d2_opdef *def, const d2_attrs *attrs, const d2_tensor *const vals[3],
                   d2_dtype dt, int64_t *istart, int64_t *istep, double *fstart, double *fstep,
                   int64_t *count, d2_err *err);
/* set_value / index_put: whether value's shape broadcasts to the region shape (dynamic dims
 * pass); 0 or -1 with err set. index_put's region: x's dims before axis, the broadcast shape of
 * the n index shapes, x's dims after them. */
int d2_value_fits(const struct d2_opdef *def, const d2_shape *value, const d2_shape *region,
                  d2_err *err);
int d2_index_put_region(const struct d2_opdef *def, int64_t axis, const d2_shape *x,
                        const d2_shape *const *idx, int n, int *first_axis, d2_shape *bshape,
                        d2_shape *region, d2_err *err);
/* "float32[2,-1]" into out (at least 160 bytes). */
void d2_type_str(const d2_type *t, char *out, size_t n);

#endif
