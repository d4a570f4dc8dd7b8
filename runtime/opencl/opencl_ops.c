/* opencl_ops.c - host side of the OpenCL kernels: one ocl_<op> per op packs arguments, launches. */
#define D2_OPENCL_INTERNAL
#include "opencl.h"
#include "../fused_expr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Op codes shared with the OpenCL sources in kernels/ (the D2_ defines there). */
/* clang-format off */
enum bin_op {
    BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV, BIN_FLOORDIV, BIN_REM, BIN_POW, BIN_MAX, BIN_MIN,
    BIN_RELU_GRAD
};
enum cmp_op { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_AND, CMP_OR, CMP_XOR, CMP_NOT };
enum un_op {
    UN_NEG, UN_ABS, UN_SIGN, UN_SQUARE, UN_EXP, UN_LOG, UN_SQRT, UN_RSQRT, UN_RECIP, UN_FLOOR,
    UN_CEIL, UN_SIN, UN_COS, UN_TANH, UN_SIGMOID, UN_RELU, UN_SILU, UN_GELU, UN_GELU_TANH,
    UN_LEAKY, UN_SCALE, UN_SCALE_AFTER, UN_CLIP, UN_ISCALE, UN_ISCALE_AFTER, UN_ERF
};
enum red_op { RED_SUM, RED_MEAN, RED_MAX, RED_MIN, RED_PROD, RED_ANY, RED_ALL };
/* clang-format on */

/* Attribute resolution shared with inference (runtime/ops_shape.c). */
int d2_slice_plan(const d2_opdef *def, const d2_attrs *attrs, const d2_shape *in, int64_t *start,
                  int64_t *step, d2_shape *full, d2_shape *out, d2_err *err);
int d2_arange_plan(const d2_opdef *def, const d2_attrs *attrs, const d2_tensor *const vals[3],
                   d2_dtype dt, int64_t *istart, int64_t *istep, double *fstart, double *fstep,
                   int64_t *count, d2_err *err);

/* Largest element count of the im2col buffer of one conv2d launch. */
#define IM2COL_MAX_ELEMS ((int64_t)1 << 24)

static ocl_dev *devof(d2_kctx *k) { return (ocl_dev *)k->be; }
/* The buffer of t; NULL for an empty tensor without storage (kernels are not
 * launched over it, and a NULL buffer argument is legal). */
static cl_mem mem_of(const d2_tensor *t) { return t->storage ? (cl_mem)t->storage->data : NULL; }
static const char *opname(d2_kctx *k) { return k->def->name; }

static const char *sfx(d2_dtype dt)
{
    switch (dt) {
    case D2_F32: return "f32";
    case D2_F64: return "f64";
    case D2_I32: return "i32";
    case D2_I64: return "i64";
    case D2_BOOL: return "b8";
    default: return "?";
    }
}

static const char *esfx(d2_dtype dt)
{
    switch (d2_dtype_size(dt)) {
    case 1: return "e1";
    case 2: return "e2";
    case 4: return "e4";
    default: return "e8";
    }
}

static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

static size_t pow2_floor(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* Checks that dtype dt has kernels on this device. */
static int check_dtype(d2_kctx *k, d2_dtype dt)
{
    if (!d2_dtype_supported(dt))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: dtype %s has no OpenCL kernels", opname(k),
                          d2_dtype_name(dt));
    if (dt == D2_F64 && !devof(k)->fp64)
        return d2_err_set(k->err, D2_ERR_UNSUPPORTED,
                          "%s: float64 needs the cl_khr_fp64 extension, which OpenCL device %s "
                          "does not have",
                          opname(k), devof(k)->name);
    return 0;
}

static int check_tensor(d2_kctx *k, const d2_tensor *t, const char *what, int i)
{
    if (!t)
        return 0;
    if (t->kind == D2_VALUE_ARRAY) {
        for (int64_t j = 0; j < t->array_len; j++)
            if (check_tensor(k, t->items[j], what, i) < 0)
                return -1;
        return 0;
    }
    if (t->storage && t->storage->backend != k->be)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: %s %d is on the %s backend, not on %s",
                          opname(k), what, i, t->storage->backend->name, k->be->name);
    if (!t->storage && d2_tensor_numel(t) > 0)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: %s %d has no storage", opname(k), what, i);
    return check_dtype(k, t->dtype);
}

/* Every kernel starts here: inputs and outputs must live on this device and
 * have dtypes it supports. */
static int prologue(d2_kctx *k)
{
    for (int i = 0; i < k->n_in; i++)
        if (check_tensor(k, k->in[i], "input", i) < 0)
            return -1;
    if (!(k->def->flags & D2_OPF_ALLOCS_OUTPUTS))
        for (int i = 0; i < k->n_out; i++) {
            if (!k->out[i])
                return d2_err_set(k->err, D2_ERR_INVALID, "%s: output %d is missing", opname(k), i);
            if (check_tensor(k, k->out[i], "output", i) < 0)
                return -1;
        }
    return 0;
}

/* Launches a 1-D kernel over n items (nothing when n <= 0). */
static int run1d(d2_kctx *k, const char *name, int64_t n, const ocl_args *a)
{
    if (n <= 0)
        return 0;
    size_t wg;
    if (!ocl_kernel(devof(k), name, &wg, k->err))
        return -1;
    size_t l = pow2_floor(wg < 64 ? wg : 64);
    size_t g = round_up((size_t)n, l);
    return ocl_run(devof(k), name, 1, &g, &l, a, k->err);
}

/* A new contiguous device tensor (temporary or output). */
static d2_tensor *dev_tensor(d2_kctx *k, d2_dtype dt, int nd, const int64_t *shape)
{
    return d2_tensor_new(k->be, dt, nd, shape, k->err);
}

/* ---- broadcasting index spaces ---- */

/* The output index space of an elementwise op: shape plus, per operand, its
 * strides in that space (0 along broadcast dims), after dropping size-1 dims
 * and merging dims that are contiguous for every operand. */
typedef struct {
    int nd, nops;
    int64_t shape[D2_MAX_DIMS];
    int64_t st[4][D2_MAX_DIMS];
} bspace;

/* Right-aligned broadcast of operand shapes onto out_shape; op strides are
 * the operand's contiguous strides (ost may override them). */
static void bspace_init(bspace *b, int nd, const int64_t *out_shape, int nops, const int *op_nd,
                        const int64_t *const *op_shape)
{
    b->nops = nops;
    int64_t shape[D2_MAX_DIMS], st[4][D2_MAX_DIMS];
    for (int j = 0; j < nops; j++) {
        int64_t s = 1;
        for (int d = nd - 1; d >= 0; d--) {
            int od = op_nd[j] - (nd - d);
            int64_t dim = od >= 0 ? op_shape[j][od] : 1;
            st[j][d] = (dim == 1 && out_shape[d] != 1) || od < 0 ? 0 : s;
            s *= dim;
        }
    }
    for (int d = 0; d < nd; d++)
        shape[d] = out_shape[d];
    /* drop size-1 dims, merge contiguous neighbours */
    int n = 0;
    for (int d = 0; d < nd; d++) {
        if (shape[d] == 1)
            continue;
        if (n > 0) {
            bool merge = true;
            for (int j = 0; j < nops; j++)
                if (b->st[j][n - 1] != st[j][d] * shape[d])
                    merge = false;
            if (merge) {
                b->shape[n - 1] *= shape[d];
                for (int j = 0; j < nops; j++)
                    b->st[j][n - 1] = st[j][d];
                continue;
            }
        }
        b->shape[n] = shape[d];
        for (int j = 0; j < nops; j++)
            b->st[j][n] = st[j][d];
        n++;
    }
    if (n == 0) {
        b->shape[0] = 1;
        for (int j = 0; j < nops; j++)
            b->st[j][0] = 0;
        n = 1;
    }
    b->nd = n;
}

/* ---- generic launches ---- */

/* Elementwise binary op (or comparison when cmp) of x and y into out with
 * broadcasting; x and y share a dtype. Integer division by zero is an error. */
static int launch_binary(d2_kctx *k, bool cmp, int op, d2_tensor *x, d2_tensor *y, d2_tensor *out)
{
    if (x->dtype != y->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: operands have different dtypes (%s and %s)",
                          opname(k), d2_dtype_name(x->dtype), d2_dtype_name(y->dtype));
    int64_t n = d2_tensor_numel(out);
    if (n == 0)
        return 0;
    bspace b;
    int nds[2] = {x->ndim, y->ndim};
    const int64_t *shapes[2] = {x->shape, y->shape};
    bspace_init(&b, out->ndim, out->shape, 2, nds, shapes);
    bool checked = !cmp && !d2_dtype_is_float(x->dtype) && x->dtype != D2_BOOL &&
                   (op == BIN_DIV || op == BIN_FLOORDIV || op == BIN_REM || op == BIN_POW);
    cl_mem flag = checked ? ocl_check_begin(devof(k), 0, k->err) : devof(k)->dummy;
    if (!flag)
        return -1;
    char name[64];
    snprintf(name, sizeof name, "%s_%s", cmp ? "compare" : "binary", sfx(x->dtype));
    ocl_args a = {0};
    ocl_arg_int(&a, op);
    ocl_arg_long(&a, n);
    ocl_arg_int(&a, b.nd);
    ocl_arg_long8(&a, b.shape, b.nd, true);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_long8(&a, b.st[0], b.nd, false);
    ocl_arg_mem(&a, mem_of(y));
    ocl_arg_long(&a, y->offset);
    ocl_arg_long8(&a, b.st[1], b.nd, false);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    if (!cmp)
        ocl_arg_mem(&a, flag);
    int rc = run1d(k, name, n, &a);
    if (checked) {
        /* the flag is read with the next download (see ocl_check_commit) */
        if (rc < 0) {
            ocl_check_abort(devof(k), flag);
            return -1;
        }
        return ocl_check_commit(devof(k), flag, 0, OCL_CHECK_DIV, opname(k), 0, 0, NULL, k->err);
    }
    return rc;
}

/* Elementwise unary op of x into out (same dtype and numel). a, b are float
 * parameters, ia, ib integer ones (see kernels/elementwise.cl). */
static int launch_unary(d2_kctx *k, int op, d2_tensor *x, d2_tensor *out, double pa, double pb,
                        int64_t ia, int64_t ib)
{
    int64_t n = d2_tensor_numel(out);
    char name[64];
    snprintf(name, sizeof name, "unary_%s", sfx(x->dtype));
    ocl_args a = {0};
    ocl_arg_int(&a, op);
    ocl_arg_long(&a, n);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    if (x->dtype == D2_F64) {
        ocl_arg_double(&a, pa);
        ocl_arg_double(&a, pb);
    } else {
        ocl_arg_float(&a, (float)pa);
        ocl_arg_float(&a, (float)pb);
    }
    ocl_arg_long(&a, ia);
    ocl_arg_long(&a, ib);
    return run1d(k, name, n, &a);
}

/* Copies the elements of x into out (same numel, any dtypes: converts). */
static int cast_into(d2_kctx *k, d2_tensor *x, d2_tensor *out)
{
    int64_t n = d2_tensor_numel(out);
    if (n == 0)
        return 0;
    if (x->dtype == out->dtype) {
        size_t es = d2_dtype_size(x->dtype);
        return k->be->copy(k->be, mem_of(out), (size_t)out->offset * es, mem_of(x),
                           (size_t)x->offset * es, (size_t)n * es, k->err);
    }
    char name[64];
    snprintf(name, sizeof name, "cast_%s_%s", sfx(x->dtype), sfx(out->dtype));
    ocl_args a = {0};
    ocl_arg_long(&a, n);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    return run1d(k, name, n, &a);
}

/* A new device tensor holding x converted to dt (a new reference to x when
 * it already has that dtype). */
static d2_tensor *cast_new(d2_kctx *k, d2_tensor *x, d2_dtype dt)
{
    if (x->dtype == dt)
        return d2_tensor_ref(x);
    if (check_dtype(k, dt) < 0)
        return NULL;
    d2_tensor *t = dev_tensor(k, dt, x->ndim, x->shape);
    if (t && cast_into(k, x, t) < 0) {
        d2_tensor_unref(t);
        return NULL;
    }
    return t;
}

/* Strided copy: dst[doff + off(i, dst_st)] = src[soff + off(i, src_st)] for
 * every index i of shape (nd dims); elements of es bytes. */
static int launch_copy(d2_kctx *k, size_t es, int nd, const int64_t *shape, cl_mem src,
                       int64_t soff, const int64_t *src_st, cl_mem dst, int64_t doff,
                       const int64_t *dst_st)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    if (n == 0)
        return 0;
    /* drop size-1 dims and merge dims contiguous in both operands */
    int64_t sh[D2_MAX_DIMS], ss[D2_MAX_DIMS], ds[D2_MAX_DIMS];
    int m = 0;
    for (int d = 0; d < nd; d++) {
        if (shape[d] == 1)
            continue;
        if (m > 0 && ss[m - 1] == src_st[d] * shape[d] && ds[m - 1] == dst_st[d] * shape[d]) {
            sh[m - 1] *= shape[d];
            ss[m - 1] = src_st[d];
            ds[m - 1] = dst_st[d];
            continue;
        }
        sh[m] = shape[d];
        ss[m] = src_st[d];
        ds[m] = dst_st[d];
        m++;
    }
    if (m == 0) {
        sh[0] = 1;
        ss[0] = ds[0] = 1;
        m = 1;
    }
    if (m == 1 && ss[0] == 1 && ds[0] == 1)
        return k->be->copy(k->be, dst, (size_t)doff * es, src, (size_t)soff * es,
                           (size_t)sh[0] * es, k->err);
    const char *e = es == 1 ? "e1" : es == 2 ? "e2" : es == 4 ? "e4" : "e8";
    char name[32];
    snprintf(name, sizeof name, "copy_%s", e);
    ocl_args a = {0};
    ocl_arg_long(&a, n);
    ocl_arg_int(&a, m);
    ocl_arg_long8(&a, sh, m, true);
    ocl_arg_mem(&a, src);
    ocl_arg_long(&a, soff);
    ocl_arg_long8(&a, ss, m, false);
    ocl_arg_mem(&a, dst);
    ocl_arg_long(&a, doff);
    ocl_arg_long8(&a, ds, m, false);
    return run1d(k, name, n, &a);
}

/* Copies the whole of contiguous x into out (same numel). */
static int copy_whole(d2_kctx *k, d2_tensor *x, d2_tensor *out)
{
    int64_t n = d2_tensor_numel(out);
    if (n != d2_tensor_numel(x))
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output has %lld elements, input %lld",
                          opname(k), (long long)n, (long long)d2_tensor_numel(x));
    if (x->dtype != out->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: output dtype %s differs from input %s",
                          opname(k), d2_dtype_name(out->dtype), d2_dtype_name(x->dtype));
    return cast_into(k, x, out);
}

/* Fills out with value (converted to out's dtype). */
static int fill_value(d2_kctx *k, d2_tensor *out, double v)
{
    int64_t n = d2_tensor_numel(out);
    if (n == 0)
        return 0;
    union {
        float f;
        double d;
        int32_t i;
        int64_t l;
        uint8_t b;
    } p;
    size_t es = d2_dtype_size(out->dtype);
    switch (out->dtype) {
    case D2_F32: p.f = (float)v; break;
    case D2_F64: p.d = v; break;
    case D2_I32:
    case D2_I64:
        if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) ||
            (out->dtype == D2_I32 && !(v > -2147483649.0 && v < 2147483648.0)))
            return d2_err_set(k->err, D2_ERR_INVALID, "%s: value %g does not fit in %s", opname(k),
                              v, d2_dtype_name(out->dtype));
        if (out->dtype == D2_I32)
            p.i = (int32_t)v;
        else
            p.l = (int64_t)v;
        break;
    case D2_BOOL: p.b = v != 0; break;
    default:
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: cannot fill a %s tensor", opname(k),
                          d2_dtype_name(out->dtype));
    }
    ocl_dev *d = devof(k);
    cl_int rc = ocl.EnqueueFillBuffer(d->queue, mem_of(out), &p, es, (size_t)out->offset * es,
                                      (size_t)n * es, 0, NULL, NULL);
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, k->err, "clEnqueueFillBuffer", rc);
}

/* Float-only ops (as on the CPU backend). */
static int need_float(d2_kctx *k, const d2_tensor *t)
{
    if (!d2_dtype_is_float(t->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE,
                          "%s: dtype %s is not supported (float32 or float64)", opname(k),
                          d2_dtype_name(t->dtype));
    return 0;
}

/* d2_norm_axis, except that a 0-d tensor also takes axis -1 (as 0), like Paddle. */
static int norm_axis(d2_kctx *k, int64_t axis, int ndim)
{
    if (ndim == 0 && axis == -1)
        return 0;
    return d2_norm_axis(axis, ndim, k->def, k->err);
}

/* Reads the one-element int index input t (any backend). */
static int read_index(d2_kctx *k, d2_tensor *t, int64_t *v)
{
    if (!t || t->kind != D2_VALUE_TENSOR || !d2_dtype_is_int(t->dtype) || d2_tensor_numel(t) != 1)
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "%s: index must be an int32 or int64 tensor of one element", opname(k));
    union {
        int32_t i;
        int64_t l;
    } u;
    size_t es = d2_dtype_size(t->dtype);
    d2_backend *b = t->storage->backend;
    if (b->download(b, &u, t->storage->data, (size_t)t->offset * es, es, k->err) < 0)
        return -1;
    *v = t->dtype == D2_I32 ? u.i : u.l;
    return 0;
}

/* Writes the n int64 values into out converted to its dtype (host upload). */
static int upload_ints(d2_kctx *k, d2_tensor *out, const int64_t *v, int64_t n)
{
    if (d2_tensor_numel(out) != n)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output has %lld elements, expected %lld",
                          opname(k), (long long)d2_tensor_numel(out), (long long)n);
    if (n == 0)
        return 0;
    size_t es = d2_dtype_size(out->dtype);
    char *buf = d2_malloc((size_t)n * es);
    if (!buf)
        return d2_err_set(k->err, D2_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        switch (out->dtype) {
        case D2_F32: ((float *)buf)[i] = (float)v[i]; break;
        case D2_F64: ((double *)buf)[i] = (double)v[i]; break;
        case D2_I32: ((int32_t *)buf)[i] = (int32_t)v[i]; break;
        case D2_I64: ((int64_t *)buf)[i] = v[i]; break;
        default: ((uint8_t *)buf)[i] = v[i] != 0; break;
        }
    }
    int rc =
        k->be->upload(k->be, mem_of(out), (size_t)out->offset * es, buf, (size_t)n * es, k->err);
    d2_free(buf);
    return rc;
}

/* ---- elementwise binary, comparison, logic ---- */

static int binary(d2_kctx *k, int op)
{
    if (prologue(k) < 0)
        return -1;
    if (k->in[0]->dtype == D2_BOOL &&
        !(op == BIN_ADD || op == BIN_MUL || op == BIN_MAX || op == BIN_MIN))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: bool operands are not supported", opname(k));
    return launch_binary(k, false, op, k->in[0], k->in[1], k->out[0]);
}

int ocl_add(d2_kctx *k) { return binary(k, BIN_ADD); }
int ocl_subtract(d2_kctx *k) { return binary(k, BIN_SUB); }
int ocl_multiply(d2_kctx *k) { return binary(k, BIN_MUL); }
int ocl_divide(d2_kctx *k) { return binary(k, BIN_DIV); }
int ocl_floor_divide(d2_kctx *k) { return binary(k, BIN_FLOORDIV); }
int ocl_remainder(d2_kctx *k) { return binary(k, BIN_REM); }
int ocl_pow(d2_kctx *k) { return binary(k, BIN_POW); }
int ocl_maximum(d2_kctx *k) { return binary(k, BIN_MAX); }
int ocl_minimum(d2_kctx *k) { return binary(k, BIN_MIN); }
int ocl_relu_grad(d2_kctx *k) { return binary(k, BIN_RELU_GRAD); }

/* The common dtype two comparison operands are converted to. */
static d2_dtype common_dtype(d2_dtype a, d2_dtype b)
{
    if (a == b)
        return a;
    if (a == D2_F64 || b == D2_F64)
        return D2_F64;
    if (a == D2_F32 || b == D2_F32)
        return D2_F32;
    if (a == D2_I64 || b == D2_I64)
        return D2_I64;
    if (a == D2_I32 || b == D2_I32)
        return D2_I32;
    return D2_BOOL;
}

static int compare(d2_kctx *k, int op)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *y = k->n_in > 1 ? k->in[1] : k->in[0];
    d2_dtype dt = op >= CMP_AND ? (x->dtype == y->dtype ? x->dtype : D2_BOOL)
                                : common_dtype(x->dtype, y->dtype);
    d2_tensor *cx = cast_new(k, x, dt);
    d2_tensor *cy = cx ? cast_new(k, y, dt) : NULL;
    int rc = cy ? launch_binary(k, true, op, cx, cy, k->out[0]) : -1;
    d2_tensor_unref(cx);
    d2_tensor_unref(cy);
    return rc;
}

int ocl_equal(d2_kctx *k) { return compare(k, CMP_EQ); }
int ocl_not_equal(d2_kctx *k) { return compare(k, CMP_NE); }
int ocl_less_than(d2_kctx *k) { return compare(k, CMP_LT); }
int ocl_less_equal(d2_kctx *k) { return compare(k, CMP_LE); }
int ocl_greater_than(d2_kctx *k) { return compare(k, CMP_GT); }
int ocl_greater_equal(d2_kctx *k) { return compare(k, CMP_GE); }
int ocl_logical_and(d2_kctx *k) { return compare(k, CMP_AND); }
int ocl_logical_or(d2_kctx *k) { return compare(k, CMP_OR); }
int ocl_logical_xor(d2_kctx *k) { return compare(k, CMP_XOR); }
int ocl_logical_not(d2_kctx *k) { return compare(k, CMP_NOT); }

/* ---- unary ---- */

/* Unary op; float_only ops reject integer and bool inputs. */
static int unary(d2_kctx *k, int op, bool float_only, double a, double b)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0];
    if (float_only && !d2_dtype_is_float(x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: expected a floating-point input, got %s",
                          opname(k), d2_dtype_name(x->dtype));
    if (x->dtype == D2_BOOL)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: bool input is not supported", opname(k));
    return launch_unary(k, op, x, k->out[0], a, b, 0, 0);
}

int ocl_neg(d2_kctx *k) { return unary(k, UN_NEG, false, 0, 0); }
int ocl_abs(d2_kctx *k) { return unary(k, UN_ABS, false, 0, 0); }
int ocl_sign(d2_kctx *k) { return unary(k, UN_SIGN, false, 0, 0); }
int ocl_square(d2_kctx *k) { return unary(k, UN_SQUARE, false, 0, 0); }
int ocl_exp(d2_kctx *k) { return unary(k, UN_EXP, true, 0, 0); }
int ocl_log(d2_kctx *k) { return unary(k, UN_LOG, true, 0, 0); }
int ocl_sqrt(d2_kctx *k) { return unary(k, UN_SQRT, true, 0, 0); }
int ocl_rsqrt(d2_kctx *k) { return unary(k, UN_RSQRT, true, 0, 0); }
int ocl_reciprocal(d2_kctx *k) { return unary(k, UN_RECIP, true, 0, 0); }
int ocl_floor(d2_kctx *k) { return unary(k, UN_FLOOR, true, 0, 0); }
int ocl_ceil(d2_kctx *k) { return unary(k, UN_CEIL, true, 0, 0); }
int ocl_sin(d2_kctx *k) { return unary(k, UN_SIN, true, 0, 0); }
int ocl_cos(d2_kctx *k) { return unary(k, UN_COS, true, 0, 0); }
int ocl_tanh(d2_kctx *k) { return unary(k, UN_TANH, true, 0, 0); }
int ocl_sigmoid(d2_kctx *k) { return unary(k, UN_SIGMOID, true, 0, 0); }
int ocl_relu(d2_kctx *k) { return unary(k, UN_RELU, false, 0, 0); }
int ocl_silu(d2_kctx *k) { return unary(k, UN_SILU, true, 0, 0); }
int ocl_erf(d2_kctx *k) { return unary(k, UN_ERF, true, 0, 0); }

int ocl_gelu(d2_kctx *k)
{
    return unary(k, ATTR_BOOL(k, "approximate") ? UN_GELU_TANH : UN_GELU, true, 0, 0);
}

int ocl_leaky_relu(d2_kctx *k)
{
    return unary(k, UN_LEAKY, true, ATTR_FLOAT(k, "negative_slope"), 0);
}

/* Float attribute to an integer dtype: truncated toward zero and saturated,
 * NaN giving 0 (as Paddle casts attributes to the input type). */
static int64_t attr_to_int(double v, d2_dtype dt)
{
    int64_t lo = dt == D2_I32 ? INT32_MIN : INT64_MIN, hi = dt == D2_I32 ? INT32_MAX : INT64_MAX;
    if (v != v)
        return 0;
    if (v <= (double)lo)
        return lo;
    if (v >= (double)hi)
        return hi;
    return (int64_t)v;
}

/* scale: out = x * scale + bias (bias_after_scale) or (x + bias) * scale;
 * integer inputs take the attributes converted by attr_to_int. */
int ocl_scale(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0];
    double s = ATTR_FLOAT(k, "scale"), b = ATTR_FLOAT(k, "bias");
    bool after = ATTR_BOOL(k, "bias_after_scale");
    if (x->dtype == D2_BOOL)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: bool input is not supported", opname(k));
    if (d2_dtype_is_float(x->dtype))
        return launch_unary(k, after ? UN_SCALE : UN_SCALE_AFTER, x, k->out[0], s, b, 0, 0);
    return launch_unary(k, after ? UN_ISCALE : UN_ISCALE_AFTER, x, k->out[0], 0, 0,
                        attr_to_int(s, x->dtype), attr_to_int(b, x->dtype));
}

/* clip: min and max converted to the input dtype; min must not exceed max. */
int ocl_clip(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0];
    double lo = ATTR_FLOAT(k, "min"), hi = ATTR_FLOAT(k, "max");
    if (x->dtype == D2_BOOL)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: bool input is not supported", opname(k));
    if (lo != lo || hi != hi || lo > hi)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: attribute min must not exceed max",
                          opname(k));
    if (d2_dtype_is_float(x->dtype))
        return launch_unary(k, UN_CLIP, x, k->out[0], lo, hi, 0, 0);
    return launch_unary(k, UN_CLIP, x, k->out[0], 0, 0, attr_to_int(lo, x->dtype),
                        attr_to_int(hi, x->dtype));
}

int ocl_cast(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    return cast_into(k, k->in[0], k->out[0]);
}

/* dropout at inference: upscale_in_train is the identity, downscale_in_infer
 * multiplies by 1 - p. */
int ocl_dropout(d2_kctx *k)
{
    if (prologue(k) < 0 || need_float(k, k->in[0]) < 0)
        return -1;
    double p = ATTR_FLOAT(k, "p");
    const char *mode = ATTR_STR(k, "mode");
    if (!(p >= 0 && p <= 1))
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: p = %g must be in [0, 1]", opname(k), p);
    if (strcmp(mode, "upscale_in_train") == 0)
        return copy_whole(k, k->in[0], k->out[0]);
    if (strcmp(mode, "downscale_in_infer") != 0)
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "%s: mode \"%s\" is not upscale_in_train or downscale_in_infer",
                          opname(k), mode);
    return launch_unary(k, UN_SCALE, k->in[0], k->out[0], 1 - p, 0, 0, 0);
}

int ocl_where(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *c = k->in[0], *x = k->in[1], *y = k->in[2], *out = k->out[0];
    if (x->dtype != y->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: x and y have different dtypes (%s and %s)",
                          opname(k), d2_dtype_name(x->dtype), d2_dtype_name(y->dtype));
    int64_t n = d2_tensor_numel(out);
    if (n == 0)
        return 0;
    d2_tensor *cb = cast_new(k, c, D2_BOOL);
    if (!cb)
        return -1;
    bspace b;
    int nds[3] = {cb->ndim, x->ndim, y->ndim};
    const int64_t *shapes[3] = {cb->shape, x->shape, y->shape};
    bspace_init(&b, out->ndim, out->shape, 3, nds, shapes);
    char name[32];
    snprintf(name, sizeof name, "where_%s", esfx(x->dtype));
    ocl_args a = {0};
    ocl_arg_long(&a, n);
    ocl_arg_int(&a, b.nd);
    ocl_arg_long8(&a, b.shape, b.nd, true);
    ocl_arg_mem(&a, mem_of(cb));
    ocl_arg_long(&a, cb->offset);
    ocl_arg_long8(&a, b.st[0], b.nd, false);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_long8(&a, b.st[1], b.nd, false);
    ocl_arg_mem(&a, mem_of(y));
    ocl_arg_long(&a, y->offset);
    ocl_arg_long8(&a, b.st[2], b.nd, false);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    int rc = run1d(k, name, n, &a);
    d2_tensor_unref(cb);
    return rc;
}

/* ---- reductions ---- */

/* Reduces the dims of contiguous x marked in red (kernel family "reduce" or
 * "argminmax") into out, whose elements are the kept dims in order. */
static int launch_reduce(d2_kctx *k, const char *family, int op, d2_tensor *x, const bool *red,
                         d2_tensor *out)
{
    int64_t st[D2_MAX_DIMS];
    d2_contiguous_strides(x->ndim, x->shape, st);
    int64_t ksh[D2_MAX_DIMS], kst[D2_MAX_DIMS], rsh[D2_MAX_DIMS], rst[D2_MAX_DIMS];
    int nk = 0, nr = 0;
    int64_t R = 1, nout = 1;
    for (int d = 0; d < x->ndim; d++) {
        int64_t dim = x->shape[d];
        if (red[d]) {
            R *= dim;
            if (dim == 1)
                continue;
            if (nr > 0 && rst[nr - 1] == st[d] * dim) {
                rsh[nr - 1] *= dim;
                rst[nr - 1] = st[d];
            } else {
                rsh[nr] = dim;
                rst[nr++] = st[d];
            }
        } else {
            nout *= dim;
            if (dim == 1)
                continue;
            if (nk > 0 && kst[nk - 1] == st[d] * dim) {
                ksh[nk - 1] *= dim;
                kst[nk - 1] = st[d];
            } else {
                ksh[nk] = dim;
                kst[nk++] = st[d];
            }
        }
    }
    if (nout != d2_tensor_numel(out))
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output has %lld elements, expected %lld",
                          opname(k), (long long)d2_tensor_numel(out), (long long)nout);
    if (nout == 0)
        return 0;
    if (nr == 0) {
        rsh[0] = 1;
        rst[0] = 0;
        nr = 1;
    }
    bool argm = strcmp(family, "argminmax") == 0;
    if (R == 0 && (argm || op == RED_MAX || op == RED_MIN))
        return d2_err_set(k->err, D2_ERR_RUNTIME,
                          argm ? "%s: cannot take the index over an empty axis"
                               : "%s: reduction over an empty axis has no identity",
                          opname(k));

    ocl_args a = {0};
    ocl_arg_int(&a, op);
    ocl_arg_long(&a, nout);
    ocl_arg_long(&a, R);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    ocl_arg_int(&a, nk);
    ocl_arg_long8(&a, ksh, nk, true);
    ocl_arg_long8(&a, kst, nk, false);
    ocl_arg_int(&a, nr);
    ocl_arg_long8(&a, rsh, nr, true);
    ocl_arg_long8(&a, rst, nr, false);
    char name[48];
    if (!argm && R >= 256 && nout <= 4096) {
        snprintf(name, sizeof name, "reduce_wg_%s", sfx(x->dtype));
        size_t wg;
        if (!ocl_kernel(devof(k), name, &wg, k->err))
            return -1;
        size_t l = pow2_floor(wg < 256 ? wg : 256);
        size_t g = (size_t)nout * l;
        return ocl_run(devof(k), name, 1, &g, &l, &a, k->err);
    }
    snprintf(name, sizeof name, "%s_%s", family, sfx(x->dtype));
    return run1d(k, name, nout, &a);
}

/* Marks the reduced dims from the axis attribute ([] = all). */
static int reduce_mask(d2_kctx *k, const d2_tensor *x, bool *red)
{
    int n;
    const int64_t *ax = ATTR_INTS(k, "axis", &n);
    for (int d = 0; d < D2_MAX_DIMS; d++)
        red[d] = n == 0;
    for (int i = 0; i < n; i++) {
        int a = norm_axis(k, ax[i], x->ndim);
        if (a < 0)
            return -1;
        if (red[a])
            return d2_err_set(k->err, D2_ERR_INVALID, "%s: axis %lld is given more than once",
                              opname(k), (long long)ax[i]);
        red[a] = true;
    }
    return 0;
}

/* Reduction in the output's dtype: the input is converted first when the
 * dtypes differ (sum of ints to int64, sum with dtype, any/all to bool). */
static int reduce(d2_kctx *k, int op)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    bool red[D2_MAX_DIMS];
    if (reduce_mask(k, x, red) < 0)
        return -1;
    if (op == RED_MEAN && !d2_dtype_is_float(x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: mean of %s is not supported", opname(k),
                          d2_dtype_name(x->dtype));
    d2_tensor *cx = cast_new(k, x, out->dtype);
    if (!cx)
        return -1;
    if (cx->dtype == D2_BOOL && op == RED_SUM)
        op = RED_ANY;
    if (cx->dtype == D2_BOOL && op == RED_PROD)
        op = RED_ALL;
    int rc = launch_reduce(k, "reduce", op, cx, red, out);
    d2_tensor_unref(cx);
    return rc;
}

int ocl_sum(d2_kctx *k) { return reduce(k, RED_SUM); }
int ocl_mean(d2_kctx *k) { return reduce(k, RED_MEAN); }
int ocl_max(d2_kctx *k) { return reduce(k, RED_MAX); }
int ocl_amax(d2_kctx *k) { return reduce(k, RED_MAX); }
int ocl_min(d2_kctx *k) { return reduce(k, RED_MIN); }
int ocl_amin(d2_kctx *k) { return reduce(k, RED_MIN); }
int ocl_prod(d2_kctx *k) { return reduce(k, RED_PROD); }
int ocl_any(d2_kctx *k) { return reduce(k, RED_ANY); }
int ocl_all(d2_kctx *k) { return reduce(k, RED_ALL); }

/* reduce_as: a sum over x's leading dims and the dims where the target has 1 */
int ocl_reduce_as(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    int off = x->ndim - out->ndim;
    if (x->dtype == D2_BOOL || out->dtype != x->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: dtype %s is not supported", opname(k),
                          d2_dtype_name(x->dtype));
    if (off < 0)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: target has more dims than x", opname(k));
    bool red[D2_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) {
        int64_t t = d >= off ? out->shape[d - off] : 1;
        if (t != 1 && t != x->shape[d])
            return d2_err_set(k->err, D2_ERR_SHAPE,
                              "%s: target dim %d (%lld) does not broadcast to x's %lld",
                              opname(k), d - off, (long long)t, (long long)x->shape[d]);
        red[d] = t == 1 && x->shape[d] != 1;
    }
    return launch_reduce(k, "reduce", RED_SUM, x, red, out);
}

/* argmax/argmin along axis (or over everything with flatten); the kernel
 * writes int64 indices, converted when dtype is int32. */
static int argminmax(d2_kctx *k, int op)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    bool red[D2_MAX_DIMS] = {false};
    if (ATTR_BOOL(k, "flatten") || x->ndim == 0) {
        for (int d = 0; d < x->ndim; d++)
            red[d] = true;
    } else {
        int a = norm_axis(k, ATTR_INT(k, "axis"), x->ndim);
        if (a < 0)
            return -1;
        red[a] = true;
    }
    if (x->dtype == D2_BOOL)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: bool input is not supported", opname(k));
    if (out->dtype != D2_I64 && out->dtype != D2_I32)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: dtype must be int32 or int64, got %s",
                          opname(k), d2_dtype_name(out->dtype));
    d2_tensor *idx =
        out->dtype == D2_I64 ? d2_tensor_ref(out) : dev_tensor(k, D2_I64, out->ndim, out->shape);
    if (!idx)
        return -1;
    int rc = launch_reduce(k, "argminmax", op, x, red, idx);
    if (rc == 0 && idx != out)
        rc = cast_into(k, idx, out);
    d2_tensor_unref(idx);
    return rc;
}

int ocl_argmax(d2_kctx *k) { return argminmax(k, 0); }
int ocl_argmin(d2_kctx *k) { return argminmax(k, 1); }

static int softmax(d2_kctx *k, int islog)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (!d2_dtype_is_float(x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: expected a floating-point input, got %s",
                          opname(k), d2_dtype_name(x->dtype));
    int64_t outer = 1, L = 1, inner = 1;
    if (x->ndim > 0) {
        int a = d2_norm_axis(ATTR_INT(k, "axis"), x->ndim, k->def, k->err);
        if (a < 0)
            return -1;
        for (int d = 0; d < x->ndim; d++) {
            if (d < a)
                outer *= x->shape[d];
            else if (d == a)
                L = x->shape[d];
            else
                inner *= x->shape[d];
        }
    }
    int64_t rows = outer * inner;
    if (rows == 0 || L == 0)
        return 0;
    ocl_args a = {0};
    ocl_arg_int(&a, islog);
    ocl_arg_long(&a, rows);
    ocl_arg_long(&a, L);
    ocl_arg_long(&a, inner);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    char name[48];
    if (inner == 1 && L >= 128) {
        snprintf(name, sizeof name, "softmax_wg_%s", sfx(x->dtype));
        size_t wg;
        if (!ocl_kernel(devof(k), name, &wg, k->err))
            return -1;
        size_t l = pow2_floor(wg < 256 ? wg : 256);
        size_t g = (size_t)rows * l;
        return ocl_run(devof(k), name, 1, &g, &l, &a, k->err);
    }
    snprintf(name, sizeof name, "softmax_%s", sfx(x->dtype));
    return run1d(k, name, rows, &a);
}

int ocl_softmax(d2_kctx *k) { return softmax(k, 0); }
int ocl_log_softmax(d2_kctx *k) { return softmax(k, 1); }

/* ---- shape manipulation ---- */

/* Ops whose output is the input's elements in the same order. */
static int same_data(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    return copy_whole(k, k->in[0], k->out[0]);
}

int ocl_reshape(d2_kctx *k) { return same_data(k); }
int ocl_flatten(d2_kctx *k) { return same_data(k); }
int ocl_squeeze(d2_kctx *k) { return same_data(k); }
int ocl_unsqueeze(d2_kctx *k) { return same_data(k); }
int ocl_assign(d2_kctx *k) { return same_data(k); }

int ocl_transpose(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    int n;
    const int64_t *perm = ATTR_INTS(k, "perm", &n);
    if (n != x->ndim || out->ndim != x->ndim)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: perm has %d entries for a %d-d input",
                          opname(k), n, x->ndim);
    int64_t xst[D2_MAX_DIMS], sst[D2_MAX_DIMS], dst[D2_MAX_DIMS];
    d2_contiguous_strides(x->ndim, x->shape, xst);
    d2_contiguous_strides(out->ndim, out->shape, dst);
    bool seen[D2_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        int p = d2_norm_axis(perm[i], x->ndim, k->def, k->err);
        if (p < 0)
            return -1;
        if (seen[p] || out->shape[i] != x->shape[p])
            return d2_err_set(k->err, D2_ERR_INVALID, "%s: perm is not a permutation", opname(k));
        seen[p] = true;
        sst[i] = xst[p];
    }
    return launch_copy(k, d2_dtype_size(x->dtype), out->ndim, out->shape, mem_of(x), x->offset, sst,
                       mem_of(out), out->offset, dst);
}

/* Copies contiguous x into the block of out that starts at index `start`
 * along `axis` (x's rank equals out's; other dims equal). */
static int copy_into_axis(d2_kctx *k, d2_tensor *x, d2_tensor *out, int axis, int64_t start)
{
    int64_t xst[D2_MAX_DIMS], ost[D2_MAX_DIMS];
    d2_contiguous_strides(x->ndim, x->shape, xst);
    d2_contiguous_strides(out->ndim, out->shape, ost);
    return launch_copy(k, d2_dtype_size(x->dtype), x->ndim, x->shape, mem_of(x), x->offset, xst,
                       mem_of(out), out->offset + start * ost[axis], ost);
}

/* Concatenation of n tensors along axis into out (allocated). */
static int concat_into(d2_kctx *k, d2_tensor **xs, int n, int64_t axis_attr, d2_tensor *out)
{
    if (out->ndim == 0)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: cannot concatenate 0-d tensors", opname(k));
    int axis = d2_norm_axis(axis_attr, out->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    int64_t pos = 0;
    for (int i = 0; i < n; i++) {
        d2_tensor *x = xs[i];
        if (x->ndim != out->ndim || x->dtype != out->dtype)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: input %d does not match the output",
                              opname(k), i);
        for (int d = 0; d < x->ndim; d++)
            if (d != axis && x->shape[d] != out->shape[d])
                return d2_err_set(k->err, D2_ERR_SHAPE, "%s: input %d has dim %d of %lld, not %lld",
                                  opname(k), i, d, (long long)x->shape[d],
                                  (long long)out->shape[d]);
        if (pos + x->shape[axis] > out->shape[axis])
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: inputs exceed the output", opname(k));
        if (copy_into_axis(k, x, out, axis, pos) < 0)
            return -1;
        pos += x->shape[axis];
    }
    if (pos != out->shape[axis])
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: inputs do not fill the output", opname(k));
    return 0;
}

/* Stacking of n same-shape tensors along a new axis into out (allocated). */
static int stack_into(d2_kctx *k, d2_tensor **xs, int n, int64_t axis_attr, d2_tensor *out)
{
    int axis = d2_norm_axis(axis_attr, out->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    if (out->shape[axis] != n)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output dim %d is %lld, expected %d", opname(k),
                          axis, (long long)out->shape[axis], n);
    for (int i = 0; i < n; i++) {
        d2_tensor *x = xs[i];
        if (x->ndim + 1 != out->ndim || x->dtype != out->dtype)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: input %d does not match the output",
                              opname(k), i);
        int64_t shape[D2_MAX_DIMS], xst[D2_MAX_DIMS], ost[D2_MAX_DIMS];
        for (int d = 0, s = 0; d < out->ndim; d++)
            shape[d] = d == axis ? 1 : x->shape[s++];
        for (int d = 0; d < out->ndim; d++)
            if (shape[d] != out->shape[d] && d != axis)
                return d2_err_set(k->err, D2_ERR_SHAPE, "%s: input %d has a different shape",
                                  opname(k), i);
        d2_contiguous_strides(out->ndim, shape, xst);
        d2_contiguous_strides(out->ndim, out->shape, ost);
        if (launch_copy(k, d2_dtype_size(x->dtype), out->ndim, shape, mem_of(x), x->offset, xst,
                        mem_of(out), out->offset + i * ost[axis], ost) < 0)
            return -1;
    }
    return 0;
}

int ocl_concat(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    return concat_into(k, k->in, k->n_in, ATTR_INT(k, "axis"), k->out[0]);
}

int ocl_stack(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    return stack_into(k, k->in, k->n_in, ATTR_INT(k, "axis"), k->out[0]);
}

int ocl_split(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0];
    if (x->ndim == 0)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: cannot split a 0-d tensor", opname(k));
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), x->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    int64_t xst[D2_MAX_DIMS];
    d2_contiguous_strides(x->ndim, x->shape, xst);
    int64_t pos = 0;
    for (int j = 0; j < k->n_out; j++) {
        d2_tensor *o = k->out[j];
        if (o->ndim != x->ndim)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output %d has rank %d, not %d", opname(k),
                              j, o->ndim, x->ndim);
        if (pos + o->shape[axis] > x->shape[axis])
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: outputs exceed the input", opname(k));
        int64_t ost[D2_MAX_DIMS];
        d2_contiguous_strides(o->ndim, o->shape, ost);
        if (launch_copy(k, d2_dtype_size(x->dtype), o->ndim, o->shape, mem_of(x),
                        x->offset + pos * xst[axis], xst, mem_of(o), o->offset, ost) < 0)
            return -1;
        pos += o->shape[axis];
    }
    return 0;
}

int ocl_slice(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    d2_shape xs, full, os;
    d2_tensor_get_shape(x, &xs);
    int64_t start[D2_MAX_DIMS], step[D2_MAX_DIMS];
    if (d2_slice_plan(k->def, k->attrs, &xs, start, step, &full, &os, k->err) < 0)
        return -1;
    if (out->dtype != x->dtype || d2_shape_numel(&os) != d2_tensor_numel(out))
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output has the wrong shape", opname(k));
    if (d2_shape_numel(&full) == 0)
        return 0;
    int64_t xst[D2_MAX_DIMS], sst[D2_MAX_DIMS], ost[D2_MAX_DIMS], off = x->offset;
    d2_contiguous_strides(x->ndim, x->shape, xst);
    for (int d = 0; d < x->ndim; d++) {
        off += start[d] * xst[d];
        sst[d] = step[d] * xst[d];
    }
    d2_contiguous_strides(full.ndim, full.dims, ost);
    return launch_copy(k, d2_dtype_size(x->dtype), full.ndim, full.dims, mem_of(x), off, sst,
                       mem_of(out), out->offset, ost);
}

/* Broadcast copy of x to out's shape. */
static int broadcast_to(d2_kctx *k, d2_tensor *x, d2_tensor *out)
{
    if (out->ndim < x->ndim)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: cannot broadcast a %d-d tensor to %d dims",
                          opname(k), x->ndim, out->ndim);
    for (int d = 0; d < x->ndim; d++) {
        int64_t xd = x->shape[d], od = out->shape[out->ndim - x->ndim + d];
        if (xd != od && xd != 1)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: dim %d of size %lld cannot expand to %lld",
                              opname(k), d, (long long)xd, (long long)od);
    }
    bspace b;
    int nds[2] = {x->ndim, out->ndim};
    const int64_t *shapes[2] = {x->shape, out->shape};
    bspace_init(&b, out->ndim, out->shape, 2, nds, shapes);
    return launch_copy(k, d2_dtype_size(x->dtype), b.nd, b.shape, mem_of(x), x->offset, b.st[0],
                       mem_of(out), out->offset, b.st[1]);
}

int ocl_expand(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    return broadcast_to(k, k->in[0], k->out[0]);
}

int ocl_tile(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    int64_t n = d2_tensor_numel(out);
    if (n == 0)
        return 0;
    if (out->ndim < x->ndim)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output rank %d is below the input's %d",
                          opname(k), out->ndim, x->ndim);
    int64_t ish[D2_MAX_DIMS];
    for (int d = 0; d < out->ndim; d++) {
        int xd = x->ndim - (out->ndim - d);
        ish[d] = xd >= 0 ? x->shape[xd] : 1;
        if (ish[d] == 0 || out->shape[d] % ish[d] != 0)
            return d2_err_set(k->err, D2_ERR_SHAPE,
                              "%s: output dim %d is not a multiple of the "
                              "input's",
                              opname(k), d);
    }
    char name[32];
    snprintf(name, sizeof name, "tile_%s", esfx(x->dtype));
    ocl_args a = {0};
    ocl_arg_long(&a, n);
    ocl_arg_int(&a, out->ndim);
    ocl_arg_long8(&a, out->shape, out->ndim, true);
    ocl_arg_long8(&a, ish, out->ndim, true);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    return run1d(k, name, n, &a);
}

/* out[o, j, r] = x[o, index[j], r] with x seen as [outer, dim, inner]; rows
 * equal to pad (>= 0) read as zero. *bad receives the position of the first
 * index outside [0, dim) and *bad_value that index, or *bad = -1. */
static int launch_gather(d2_kctx *k, d2_tensor *x, int64_t inner, int64_t dim, d2_tensor *index,
                         d2_tensor *out, int64_t pad, ocl_check_kind kind, int axis)
{
    if (index->dtype != D2_I32 && index->dtype != D2_I64)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: index must be int32 or int64, got %s",
                          opname(k), d2_dtype_name(index->dtype));
    int64_t n = d2_tensor_numel(out), nidx = d2_tensor_numel(index);
    if (n == 0)
        return 0;
    if (nidx == 0 || inner == 0)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output shape does not match the inputs",
                          opname(k));
    cl_mem flag = ocl_check_begin(devof(k), INT32_MAX, k->err);
    if (!flag)
        return -1;
    char name[32];
    snprintf(name, sizeof name, "gather_%s_%s", esfx(x->dtype), sfx(index->dtype));
    ocl_args a = {0};
    ocl_arg_long(&a, n);
    ocl_arg_long(&a, inner);
    ocl_arg_long(&a, nidx);
    ocl_arg_long(&a, dim);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(index));
    ocl_arg_long(&a, index->offset);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    ocl_arg_long(&a, pad);
    ocl_arg_mem(&a, flag);
    if (run1d(k, name, n, &a) < 0) {
        ocl_check_abort(devof(k), flag);
        return -1;
    }
    /* a bad index is reported with the next download (see ocl_check_commit) */
    return ocl_check_commit(devof(k), flag, INT32_MAX, kind, opname(k), axis, dim, index, k->err);
}

static int gather(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *index = k->in[1], *out = k->out[0];
    if (x->ndim < 1 || index->ndim > 1)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: bad x or index rank", opname(k));
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), x->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < x->ndim; d++) {
        if (d < axis)
            outer *= x->shape[d];
        else if (d > axis)
            inner *= x->shape[d];
    }
    if (outer * d2_tensor_numel(index) * inner != d2_tensor_numel(out) || out->dtype != x->dtype)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output shape does not match the inputs",
                          opname(k));
    return launch_gather(k, x, inner, x->shape[axis], index, out, -1, OCL_CHECK_GATHER, axis);
}

int ocl_gather(d2_kctx *k) { return gather(k); }
int ocl_index_select(d2_kctx *k) { return gather(k); }

/* embedding: out[i, :] = weight[ids[i], :]; padding_idx (-1 = none, other
 * negatives count from the end) rows are zeros. */
int ocl_embedding(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *ids = k->in[0], *w = k->in[1], *out = k->out[0];
    if (w->ndim != 2)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: weight must be 2-D", opname(k));
    int64_t V = w->shape[0], pad = ATTR_INT(k, "padding_idx");
    bool has_pad = pad != -1;
    if (has_pad && pad < 0)
        pad += V;
    if (has_pad && (pad < 0 || pad >= V))
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "%s: padding_idx %lld is out of range for %lld rows", opname(k),
                          (long long)ATTR_INT(k, "padding_idx"), (long long)V);
    if (d2_tensor_numel(ids) * w->shape[1] != d2_tensor_numel(out) || out->dtype != w->dtype)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output shape does not match the inputs",
                          opname(k));
    return launch_gather(k, w, w->shape[1], V, ids, out, has_pad ? pad : -1, OCL_CHECK_EMBED, 0);
}

int ocl_full(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    return fill_value(k, k->out[0], ATTR_FLOAT(k, "value"));
}

int ocl_full_like(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    return fill_value(k, k->out[0], ATTR_FLOAT(k, "value"));
}

int ocl_arange(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *out = k->out[0];
    d2_tensor *host[3] = {NULL, NULL, NULL};
    int rc = 0;
    for (int i = 0; i < 3 && i < k->n_in && rc == 0; i++)
        if (k->in[i] && !(host[i] = d2_tensor_copy_to(k->in[i], NULL, k->err)))
            rc = -1;
    int64_t is = 0, ist = 0, n = 0;
    double fs = 0, fst = 0;
    const d2_tensor *vals[3] = {host[0], host[1], host[2]};
    if (rc == 0)
        rc = d2_arange_plan(k->def, k->attrs, vals, out->dtype, &is, &ist, &fs, &fst, &n, k->err);
    for (int i = 0; i < 3; i++)
        d2_tensor_unref(host[i]);
    if (rc < 0)
        return -1;
    if (out->ndim != 1 || out->shape[0] != n)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output has the wrong shape", opname(k));
    char name[32];
    snprintf(name, sizeof name, "arange_%s", sfx(out->dtype));
    ocl_args a = {0};
    ocl_arg_long(&a, n);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    if (out->dtype == D2_F64) {
        ocl_arg_double(&a, fs);
        ocl_arg_double(&a, fst);
    } else {
        ocl_arg_float(&a, (float)fs);
        ocl_arg_float(&a, (float)fst);
    }
    ocl_arg_long(&a, is);
    ocl_arg_long(&a, ist);
    return run1d(k, name, n, &a);
}

int ocl_shape(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0];
    if (x->kind != D2_VALUE_TENSOR)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: x must be a tensor", opname(k));
    for (int d = 0; d < x->ndim; d++)
        if (x->shape[d] > INT32_MAX && k->out[0]->dtype == D2_I32)
            return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: dim %d (%lld) does not fit in int32",
                              opname(k), d, (long long)x->shape[d]);
    return upload_ints(k, k->out[0], x->shape, x->ndim);
}

int ocl_numel(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    if (k->in[0]->kind != D2_VALUE_TENSOR)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: x must be a tensor", opname(k));
    int64_t v = d2_tensor_numel(k->in[0]);
    if (d2_tensor_numel(k->out[0]) != 1)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output must have one element", opname(k));
    return upload_ints(k, k->out[0], &v, 1);
}

/* ---- GEMM ---- */

/* C = A B (+ bias[n]) over nb batch dims; offsets and strides in elements. */
typedef struct {
    int64_t M, N, K;
    cl_mem A, B, C, bias;
    int64_t ao, sam, sak, bo, sbk, sbn, co, scm, scn, biaso;
    int nb;
    int64_t bsh[D2_MAX_DIMS], bsa[D2_MAX_DIMS], bsb[D2_MAX_DIMS], bsc[D2_MAX_DIMS];
} gemm_desc;

static int launch_gemm(d2_kctx *k, d2_dtype dt, const gemm_desc *g)
{
    int64_t batches = 1;
    for (int d = 0; d < g->nb; d++)
        batches *= g->bsh[d];
    if (g->M == 0 || g->N == 0 || batches == 0)
        return 0;
    if (dt == D2_BOOL)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: bool operands are not supported", opname(k));
    char name[32];
    snprintf(name, sizeof name, "gemm_%s", sfx(dt));
    size_t wg;
    if (!ocl_kernel(devof(k), name, &wg, k->err))
        return -1;
    bool tiled = devof(k)->gemm_tiled && wg >= 256;
    if (!tiled)
        snprintf(name, sizeof name, "gemm_naive_%s", sfx(dt));
    ocl_args a = {0};
    ocl_arg_long(&a, g->M);
    ocl_arg_long(&a, g->N);
    ocl_arg_long(&a, g->K);
    ocl_arg_mem(&a, g->A);
    ocl_arg_long(&a, g->ao);
    ocl_arg_long(&a, g->sam);
    ocl_arg_long(&a, g->sak);
    ocl_arg_mem(&a, g->B);
    ocl_arg_long(&a, g->bo);
    ocl_arg_long(&a, g->sbk);
    ocl_arg_long(&a, g->sbn);
    ocl_arg_mem(&a, g->C);
    ocl_arg_long(&a, g->co);
    ocl_arg_long(&a, g->scm);
    ocl_arg_long(&a, g->scn);
    ocl_arg_mem(&a, g->bias ? g->bias : devof(k)->dummy);
    ocl_arg_long(&a, g->biaso);
    ocl_arg_int(&a, g->bias != NULL);
    ocl_arg_int(&a, g->nb);
    ocl_arg_long8(&a, g->bsh, g->nb, true);
    ocl_arg_long8(&a, g->bsa, g->nb, false);
    ocl_arg_long8(&a, g->bsb, g->nb, false);
    ocl_arg_long8(&a, g->bsc, g->nb, false);
    if (tiled) {
        size_t l[3] = {16, 16, 1};
        size_t gw[3] = {(size_t)(g->N + 63) / 64 * 16, (size_t)(g->M + 63) / 64 * 16,
                        (size_t)batches};
        return ocl_run(devof(k), name, 3, gw, l, &a, k->err);
    }
    /* one output per work-item, work-groups along N (vectorised by PoCL) */
    if (!ocl_kernel(devof(k), name, &wg, k->err))
        return -1;
    size_t l[3] = {pow2_floor(wg < 64 ? wg : 64), 1, 1};
    size_t gw[3] = {round_up((size_t)g->N, l[0]), (size_t)g->M, (size_t)batches};
    return ocl_run(devof(k), name, 3, gw, l, &a, k->err);
}

/* matmul with Paddle's rules: 1-d x is [1, K], 1-d y is [K, 1] (their
 * transpose flags ignored), batch dims broadcast. */
int ocl_matmul(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *y = k->in[1], *out = k->out[0];
    if (need_float(k, x) < 0)
        return -1;
    if (x->dtype != y->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: x is %s but y is %s", opname(k),
                          d2_dtype_name(x->dtype), d2_dtype_name(y->dtype));
    if (x->ndim == 0 || y->ndim == 0)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: operands must be at least 1-d", opname(k));
    bool tx = ATTR_BOOL(k, "transpose_x") && x->ndim > 1;
    bool ty = ATTR_BOOL(k, "transpose_y") && y->ndim > 1;
    int64_t xr = x->ndim > 1 ? x->shape[x->ndim - 2] : 1, xc = x->shape[x->ndim - 1];
    int64_t yr = y->ndim > 1 ? y->shape[y->ndim - 2] : y->shape[0];
    int64_t yc = y->ndim > 1 ? y->shape[y->ndim - 1] : 1;
    gemm_desc g = {0};
    g.M = tx ? xc : xr;
    g.K = tx ? xr : xc;
    int64_t ky = ty ? yc : yr;
    g.N = ty ? yr : yc;
    if (ky != g.K)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: inner dims differ (%lld vs %lld)", opname(k),
                          (long long)g.K, (long long)ky);
    g.A = mem_of(x);
    g.ao = x->offset;
    g.sam = tx ? 1 : xc;
    g.sak = tx ? xc : 1;
    g.B = mem_of(y);
    g.bo = y->offset;
    g.sbk = ty ? 1 : yc;
    g.sbn = ty ? yc : 1;
    g.C = mem_of(out);
    g.co = out->offset;
    g.scm = g.N;
    g.scn = 1;
    /* batch dims: broadcast of x's and y's leading dims */
    int xb = x->ndim > 2 ? x->ndim - 2 : 0, yb = y->ndim > 2 ? y->ndim - 2 : 0;
    int nb = xb > yb ? xb : yb;
    int64_t xs = xr * xc, ys = yr * yc, cs = g.M * g.N, batches = 1;
    for (int d = nb - 1; d >= 0; d--) {
        int dx = xb - (nb - d), dy = yb - (nb - d);
        int64_t sx = dx >= 0 ? x->shape[dx] : 1, sy = dy >= 0 ? y->shape[dy] : 1;
        if (sx != sy && sx != 1 && sy != 1)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: batch dims %lld and %lld do not broadcast",
                              opname(k), (long long)sx, (long long)sy);
        int64_t s = sx > sy ? sx : sy;
        if (sx == 0 || sy == 0)
            s = 0;
        g.bsh[d] = s;
        g.bsa[d] = sx == 1 ? 0 : xs;
        g.bsb[d] = sy == 1 ? 0 : ys;
        g.bsc[d] = cs;
        xs *= sx;
        ys *= sy;
        cs *= s;
        batches *= s;
    }
    g.nb = nb;
    if (batches * g.M * g.N != d2_tensor_numel(out))
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output has %lld elements, expected %lld",
                          opname(k), (long long)d2_tensor_numel(out),
                          (long long)(batches * g.M * g.N));
    return launch_gemm(k, x->dtype, &g);
}

/* linear: out = x @ weight + bias with weight [in, out]. */
int ocl_linear(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *w = k->in[1], *b = k->n_in > 2 ? k->in[2] : NULL, *out = k->out[0];
    if (need_float(k, x) < 0)
        return -1;
    if (w->ndim != 2 || x->ndim < 1)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: weight must be 2-d and x at least 1-d",
                          opname(k));
    if (x->dtype != w->dtype || (b && b->dtype != x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: x, weight and bias must share a dtype",
                          opname(k));
    gemm_desc g = {0};
    g.K = w->shape[0];
    g.N = w->shape[1];
    if (x->shape[x->ndim - 1] != g.K)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: x has %lld features, weight expects %lld",
                          opname(k), (long long)x->shape[x->ndim - 1], (long long)g.K);
    if (b && d2_tensor_numel(b) != g.N)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: bias has %lld elements, expected %lld",
                          opname(k), (long long)d2_tensor_numel(b), (long long)g.N);
    g.M = g.K ? d2_tensor_numel(x) / g.K : d2_tensor_numel(out) / (g.N ? g.N : 1);
    if (g.M * g.N != d2_tensor_numel(out))
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output shape does not match", opname(k));
    g.A = mem_of(x);
    g.ao = x->offset;
    g.sam = g.K;
    g.sak = 1;
    g.B = mem_of(w);
    g.bo = w->offset;
    g.sbk = g.N;
    g.sbn = 1;
    g.C = mem_of(out);
    g.co = out->offset;
    g.scm = g.N;
    g.scn = 1;
    if (b) {
        g.bias = mem_of(b);
        g.biaso = b->offset;
    }
    return launch_gemm(k, x->dtype, &g);
}

/* Reads a pair (or the first two of four) values of an ints attribute. */
static int attr_pair(d2_kctx *k, const char *name, int64_t *a, int64_t *b)
{
    int n;
    const int64_t *v = ATTR_INTS(k, name, &n);
    if (n == 1) {
        *a = *b = v[0];
        return 0;
    }
    if (n != 2)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: %s must have 2 values, got %d", opname(k),
                          name, n);
    *a = v[0];
    *b = v[1];
    return 0;
}

/* Top and left padding from a 1, 2 or 4-value paddings attribute. */
static int attr_pads(d2_kctx *k, int64_t *ph, int64_t *pw)
{
    int n;
    const int64_t *v = ATTR_INTS(k, "paddings", &n);
    if (n == 1)
        *ph = *pw = v[0];
    else if (n == 2) {
        *ph = v[0];
        *pw = v[1];
    } else if (n == 4) {
        *ph = v[0];
        *pw = v[2];
    } else
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: paddings must have 2 or 4 values, got %d",
                          opname(k), n);
    return 0;
}

/* conv2d (NCHW): im2col per chunk of images, then one batched GEMM over
 * (image, group); 1x1 stride-1 unpadded convolutions skip im2col. */
int ocl_conv2d(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *w = k->in[1], *bias = k->n_in > 2 ? k->in[2] : NULL;
    d2_tensor *out = k->out[0];
    if (x->ndim != 4 || w->ndim != 4 || out->ndim != 4)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: x, weight and output must be 4-d (NCHW)",
                          opname(k));
    if (x->dtype != w->dtype || (bias && bias->dtype != x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: x, weight and bias must share a dtype",
                          opname(k));
    if (need_float(k, x) < 0)
        return -1;
    int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    int64_t OC = w->shape[0], Cg = w->shape[1], KH = w->shape[2], KW = w->shape[3];
    int64_t OH = out->shape[2], OW = out->shape[3];
    int64_t G = ATTR_INT(k, "groups");
    if (G < 1 || Cg * G != C || OC % G != 0 || out->shape[1] != OC || out->shape[0] != N)
        return d2_err_set(k->err, D2_ERR_SHAPE,
                          "%s: channels do not match (input %lld, weight %lldx%lld, groups %lld)",
                          opname(k), (long long)C, (long long)OC, (long long)Cg, (long long)G);
    int64_t sh, sw, ph, pw, dh, dw;
    if (attr_pair(k, "strides", &sh, &sw) < 0 || attr_pair(k, "dilations", &dh, &dw) < 0 ||
        attr_pads(k, &ph, &pw) < 0)
        return -1;
    const char *alg = ATTR_STR(k, "padding_algorithm");
    if (strcmp(alg, "VALID") == 0) {
        ph = pw = 0;
    } else if (strcmp(alg, "SAME") == 0) {
        int64_t oh = (H + sh - 1) / sh, ow = (W + sw - 1) / sw;
        int64_t th = (oh - 1) * sh + KH - H, tw = (ow - 1) * sw + KW - W;
        ph = th > 0 ? th / 2 : 0;
        pw = tw > 0 ? tw / 2 : 0;
        dh = dw = 1;
    } else if (strcmp(alg, "EXPLICIT") != 0) {
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "%s: padding_algorithm must be EXPLICIT, SAME or VALID, got \"%s\"",
                          opname(k), alg);
    }
    if (sh < 1 || sw < 1 || dh < 1 || dw < 1)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: strides and dilations must be positive",
                          opname(k));
    int64_t P = OH * OW, OCg = OC / G, Kc = Cg * KH * KW;
    if (d2_tensor_numel(out) == 0)
        return 0;
    gemm_desc g = {0};
    g.M = OCg;
    g.N = P;
    g.K = Kc;
    g.A = mem_of(w);
    g.ao = w->offset;
    g.sam = Kc;
    g.sak = 1;
    g.sbk = P;
    g.sbn = 1;
    g.C = mem_of(out);
    g.scm = P;
    g.scn = 1;
    g.nb = 2;
    g.bsa[0] = 0;
    g.bsa[1] = OCg * Kc;
    g.bsc[0] = OC * P;
    g.bsc[1] = OCg * P;
    g.bsh[1] = G;
    int rc = 0;
    bool direct =
        KH == 1 && KW == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && OH == H && OW == W;
    if (direct) {
        g.B = mem_of(x);
        g.bo = x->offset;
        g.bsh[0] = N;
        g.bsb[0] = C * P;
        g.bsb[1] = Cg * P;
        g.co = out->offset;
        rc = launch_gemm(k, x->dtype, &g);
    } else {
        int64_t per = C * KH * KW * P;
        int64_t chunk = per > 0 ? IM2COL_MAX_ELEMS / per : N;
        if (chunk < 1)
            chunk = 1;
        if (chunk > N)
            chunk = N;
        int64_t cshape[1] = {chunk * per};
        d2_tensor *col = dev_tensor(k, x->dtype, 1, cshape);
        if (!col)
            return -1;
        char name[32];
        snprintf(name, sizeof name, "im2col_%s", esfx(x->dtype));
        for (int64_t n0 = 0; n0 < N && rc == 0; n0 += chunk) {
            int64_t nc = N - n0 < chunk ? N - n0 : chunk;
            ocl_args a = {0};
            ocl_arg_long(&a, nc * per);
            ocl_arg_long(&a, C);
            ocl_arg_long(&a, H);
            ocl_arg_long(&a, W);
            ocl_arg_long(&a, KH);
            ocl_arg_long(&a, KW);
            ocl_arg_long(&a, OH);
            ocl_arg_long(&a, OW);
            ocl_arg_long(&a, sh);
            ocl_arg_long(&a, sw);
            ocl_arg_long(&a, ph);
            ocl_arg_long(&a, pw);
            ocl_arg_long(&a, dh);
            ocl_arg_long(&a, dw);
            ocl_arg_mem(&a, mem_of(x));
            ocl_arg_long(&a, x->offset + n0 * C * H * W);
            ocl_arg_mem(&a, mem_of(col));
            ocl_arg_long(&a, 0);
            rc = run1d(k, name, nc * per, &a);
            if (rc < 0)
                break;
            g.B = mem_of(col);
            g.bo = 0;
            g.bsh[0] = nc;
            g.bsb[0] = per;
            g.bsb[1] = Kc * P;
            g.co = out->offset + n0 * OC * P;
            rc = launch_gemm(k, x->dtype, &g);
        }
        d2_tensor_unref(col);
    }
    if (rc == 0 && bias) {
        if (d2_tensor_numel(bias) != OC)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: bias has %lld elements, expected %lld",
                              opname(k), (long long)d2_tensor_numel(bias), (long long)OC);
        int64_t bshape[3] = {OC, 1, 1};
        d2_tensor *bv = d2_tensor_reshape_view(bias, 3, bshape, k->err);
        if (!bv)
            return -1;
        rc = launch_binary(k, false, BIN_ADD, out, bv, out);
        d2_tensor_unref(bv);
    }
    return rc;
}

/* ---- nn ---- */

int ocl_pool2d(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (x->ndim != 4 || out->ndim != 4)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: x must be 4-d (NCHW), got %d-d", opname(k),
                          x->ndim);
    if (!d2_dtype_is_float(x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: expected a floating-point input, got %s",
                          opname(k), d2_dtype_name(x->dtype));
    const char *type = ATTR_STR(k, "pooling_type");
    bool avg = strcmp(type, "avg") == 0;
    if (!avg && strcmp(type, "max") != 0)
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "%s: pooling_type must be \"max\" or \"avg\", got \"%s\"", opname(k),
                          type);
    int64_t H = x->shape[2], W = x->shape[3], OH = out->shape[2], OW = out->shape[3];
    int64_t kh, kw, sh, sw, ph, pw;
    if (attr_pair(k, "ksize", &kh, &kw) < 0 || attr_pair(k, "strides", &sh, &sw) < 0 ||
        attr_pads(k, &ph, &pw) < 0)
        return -1;
    bool adaptive = ATTR_BOOL(k, "adaptive"), global = ATTR_BOOL(k, "global_pooling");
    if (global) {
        kh = H;
        kw = W;
    }
    if (global || adaptive)
        ph = pw = 0;
    int64_t n = d2_tensor_numel(out);
    if (n == 0)
        return 0;
    if (H == 0 || W == 0)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: input has an empty spatial dimension",
                          opname(k));
    char name[32];
    snprintf(name, sizeof name, "pool2d_%s", sfx(x->dtype));
    ocl_args a = {0};
    ocl_arg_long(&a, n);
    ocl_arg_long(&a, H);
    ocl_arg_long(&a, W);
    ocl_arg_long(&a, OH);
    ocl_arg_long(&a, OW);
    ocl_arg_long(&a, kh);
    ocl_arg_long(&a, kw);
    ocl_arg_long(&a, sh);
    ocl_arg_long(&a, sw);
    ocl_arg_long(&a, ph);
    ocl_arg_long(&a, pw);
    ocl_arg_int(&a, avg);
    ocl_arg_int(&a, adaptive);
    ocl_arg_int(&a, ATTR_BOOL(k, "exclusive"));
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    return run1d(k, name, n, &a);
}

/* pool2d_grad(x, out, dout): one work-item per (n, c) plane, pool2d's windows. */
int ocl_pool2d_grad(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *y = k->in[1], *dy = k->in[2], *dx = k->out[0];
    if (x->ndim != 4 || y->ndim != 4 || dy->ndim != 4 || y->shape[0] != x->shape[0] ||
        y->shape[1] != x->shape[1])
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: x, out and dout must be 4-d (NCHW)",
                          opname(k));
    for (int d = 0; d < 4; d++)
        if (dy->shape[d] != y->shape[d])
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: dout must have out's shape", opname(k));
    if (!d2_dtype_is_float(x->dtype) || y->dtype != x->dtype || dy->dtype != x->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: x, out and dout must share a float dtype",
                          opname(k));
    bool avg = strcmp(ATTR_STR(k, "pooling_type"), "avg") == 0;
    int64_t H = x->shape[2], W = x->shape[3], OH = y->shape[2], OW = y->shape[3];
    int64_t kh, kw, sh, sw, ph, pw;
    if (attr_pair(k, "ksize", &kh, &kw) < 0 || attr_pair(k, "strides", &sh, &sw) < 0 ||
        attr_pads(k, &ph, &pw) < 0)
        return -1;
    bool adaptive = ATTR_BOOL(k, "adaptive"), global = ATTR_BOOL(k, "global_pooling");
    if (global) {
        kh = H;
        kw = W;
    }
    if (global || adaptive)
        ph = pw = 0;
    int64_t planes = x->shape[0] * x->shape[1];
    if (d2_tensor_numel(x) == 0)
        return 0;
    char name[32];
    snprintf(name, sizeof name, "pool2d_grad_%s", sfx(x->dtype));
    ocl_args a = {0};
    ocl_arg_long(&a, planes);
    ocl_arg_long(&a, H);
    ocl_arg_long(&a, W);
    ocl_arg_long(&a, OH);
    ocl_arg_long(&a, OW);
    ocl_arg_long(&a, kh);
    ocl_arg_long(&a, kw);
    ocl_arg_long(&a, sh);
    ocl_arg_long(&a, sw);
    ocl_arg_long(&a, ph);
    ocl_arg_long(&a, pw);
    ocl_arg_int(&a, avg);
    ocl_arg_int(&a, adaptive);
    ocl_arg_int(&a, ATTR_BOOL(k, "exclusive"));
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(y));
    ocl_arg_long(&a, y->offset);
    ocl_arg_mem(&a, mem_of(dy));
    ocl_arg_long(&a, dy->offset);
    ocl_arg_mem(&a, mem_of(dx));
    ocl_arg_long(&a, dx->offset);
    return run1d(k, name, planes, &a);
}

static void arg_float_param(ocl_args *a, d2_dtype dt, double v)
{
    if (dt == D2_F64)
        ocl_arg_double(a, v);
    else
        ocl_arg_float(a, (float)v);
}

int ocl_batch_norm(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (x->ndim < 2)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: x must be at least 2-d, got %d-d", opname(k),
                          x->ndim);
    if (!d2_dtype_is_float(x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: expected a floating-point input, got %s",
                          opname(k), d2_dtype_name(x->dtype));
    int64_t C = x->shape[1], inner = 1;
    for (int d = 2; d < x->ndim; d++)
        inner *= x->shape[d];
    for (int i = 1; i < 5; i++)
        if (d2_tensor_numel(k->in[i]) != C || k->in[i]->dtype != x->dtype)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: %s must have %lld %s elements", opname(k),
                              k->def->in_names[i], (long long)C, d2_dtype_name(x->dtype));
    int64_t n = d2_tensor_numel(out);
    char name[32];
    snprintf(name, sizeof name, "batch_norm_%s", sfx(x->dtype));
    ocl_args a = {0};
    ocl_arg_long(&a, n);
    ocl_arg_long(&a, C);
    ocl_arg_long(&a, inner);
    for (int i = 0; i < 5; i++) {
        ocl_arg_mem(&a, mem_of(k->in[i]));
        ocl_arg_long(&a, k->in[i]->offset);
    }
    arg_float_param(&a, x->dtype, ATTR_FLOAT(k, "epsilon"));
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    return run1d(k, name, n, &a);
}

int ocl_layer_norm(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    d2_tensor *scale = k->n_in > 1 ? k->in[1] : NULL, *bias = k->n_in > 2 ? k->in[2] : NULL;
    if (!d2_dtype_is_float(x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: expected a floating-point input, got %s",
                          opname(k), d2_dtype_name(x->dtype));
    int begin = d2_norm_axis(ATTR_INT(k, "begin_norm_axis"), x->ndim, k->def, k->err);
    if (begin < 0)
        return -1;
    int64_t D = 1, rows = 1;
    for (int d = 0; d < x->ndim; d++) {
        if (d < begin)
            rows *= x->shape[d];
        else
            D *= x->shape[d];
    }
    if ((scale && (d2_tensor_numel(scale) != D || scale->dtype != x->dtype)) ||
        (bias && (d2_tensor_numel(bias) != D || bias->dtype != x->dtype)))
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: scale and bias must have %lld %s elements",
                          opname(k), (long long)D, d2_dtype_name(x->dtype));
    if (rows == 0 || D == 0)
        return 0;
    char name[32];
    snprintf(name, sizeof name, "layer_norm_%s", sfx(x->dtype));
    size_t wg;
    if (!ocl_kernel(devof(k), name, &wg, k->err))
        return -1;
    size_t l = pow2_floor(wg < 256 ? wg : 256);
    while (l > 16 && (int64_t)l / 2 >= D)
        l /= 2;
    ocl_args a = {0};
    ocl_arg_long(&a, D);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, scale ? mem_of(scale) : devof(k)->dummy);
    ocl_arg_long(&a, scale ? scale->offset : 0);
    ocl_arg_int(&a, scale != NULL);
    ocl_arg_mem(&a, bias ? mem_of(bias) : devof(k)->dummy);
    ocl_arg_long(&a, bias ? bias->offset : 0);
    ocl_arg_int(&a, bias != NULL);
    arg_float_param(&a, x->dtype, ATTR_FLOAT(k, "epsilon"));
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    size_t g = (size_t)rows * l;
    return ocl_run(devof(k), name, 1, &g, &l, &a, k->err);
}

/* ---- tensor arrays: the container lives on the host, items on the device ---- */

static int check_array(d2_kctx *k, d2_tensor *a)
{
    if (!a || a->kind != D2_VALUE_ARRAY)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: input 'array' must be a tensor array",
                          opname(k));
    return 0;
}

int ocl_array_create(d2_kctx *k)
{
    int dt = ATTR_DTYPE(k, "dtype");
    if (dt < 0 || check_dtype(k, (d2_dtype)dt) < 0)
        return dt < 0 ? d2_err_set(k->err, D2_ERR_DTYPE, "%s: dtype is required", opname(k)) : -1;
    k->out[0] = d2_tensor_array_new((d2_dtype)dt, k->err);
    return k->out[0] ? 0 : -1;
}

/* array_write is functional: out is the input array with item i set to x
 * (i == length appends, negative i counts from the end). Items are shared,
 * never copied; when the kernel holds the only reference to the input array
 * it is updated in place. */
int ocl_array_write(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *arr = k->in[0], *x = k->in[2];
    int64_t i;
    if (check_array(k, arr) < 0 || read_index(k, k->in[1], &i) < 0)
        return -1;
    if (!x || x->kind != D2_VALUE_TENSOR)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: x must be a tensor", opname(k));
    if (x->dtype != arr->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: cannot write a %s tensor into an array of %s",
                          opname(k), d2_dtype_name(x->dtype), d2_dtype_name(arr->dtype));
    int64_t pos = i < 0 ? i + arr->array_len : i;
    if (pos < 0 || pos > arr->array_len)
        return d2_err_set(k->err, D2_ERR_RUNTIME,
                          "%s: index %lld is out of range for an array of length %lld", opname(k),
                          (long long)i, (long long)arr->array_len);
    d2_tensor *o;
    if (__atomic_load_n(&arr->refcount, __ATOMIC_ACQUIRE) == 1) {
        o = d2_tensor_ref(arr);
    } else {
        o = d2_tensor_array_new(arr->dtype, k->err);
        if (!o)
            return -1;
        for (int64_t j = 0; j < arr->array_len; j++)
            if (d2_tensor_array_set(o, j, arr->items[j], k->err) < 0) {
                d2_tensor_unref(o);
                return -1;
            }
    }
    if (d2_tensor_array_set(o, pos, x, k->err) < 0) {
        d2_tensor_unref(o);
        return -1;
    }
    k->out[0] = o;
    return 0;
}

int ocl_array_read(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *arr = k->in[0];
    int64_t i;
    if (check_array(k, arr) < 0 || read_index(k, k->in[1], &i) < 0)
        return -1;
    int64_t pos = i < 0 ? i + arr->array_len : i;
    if (pos < 0 || pos >= arr->array_len)
        return d2_err_set(k->err, D2_ERR_RUNTIME,
                          "%s: index %lld is out of range for an array of length %lld", opname(k),
                          (long long)i, (long long)arr->array_len);
    k->out[0] = d2_tensor_ref(arr->items[pos]);
    return 0;
}

int ocl_array_length(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    if (check_array(k, k->in[0]) < 0)
        return -1;
    int64_t n = k->in[0]->array_len;
    if (d2_tensor_numel(k->out[0]) != 1)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output must have one element", opname(k));
    return upload_ints(k, k->out[0], &n, 1);
}

/* Stacks (or concatenates) the items into a new device tensor. */
static int array_join(d2_kctx *k, bool stack)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *arr = k->in[0];
    if (check_array(k, arr) < 0)
        return -1;
    int64_t n = arr->array_len;
    if (n == 0)
        return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: the tensor array is empty", opname(k));
    if (n > INT32_MAX)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: too many items", opname(k));
    d2_tensor *first = arr->items[0];
    int nd = first->ndim + (stack ? 1 : 0);
    if (nd == 0)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: cannot concatenate 0-d tensors", opname(k));
    if (nd > D2_MAX_DIMS)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: result would have more than %d dims",
                          opname(k), D2_MAX_DIMS);
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), nd, k->def, k->err);
    if (axis < 0)
        return -1;
    int64_t shape[D2_MAX_DIMS];
    for (int d = 0, s = 0; d < nd; d++)
        shape[d] = stack && d == axis ? n : first->shape[s++];
    for (int64_t j = 0; j < n; j++) {
        d2_tensor *it = arr->items[j];
        bool ok = it->ndim == first->ndim;
        for (int d = 0; ok && d < it->ndim; d++)
            if (it->shape[d] != first->shape[d] && (stack || d != axis))
                ok = false;
        if (!ok)
            return d2_err_set(k->err, D2_ERR_SHAPE,
                              "%s: item %lld has a different shape from item 0", opname(k),
                              (long long)j);
        if (!stack && j > 0)
            shape[axis] += it->shape[axis];
    }
    d2_tensor *out = dev_tensor(k, arr->dtype, nd, shape);
    if (!out)
        return -1;
    int rc = stack ? stack_into(k, arr->items, (int)n, axis, out)
                   : concat_into(k, arr->items, (int)n, axis, out);
    if (rc < 0) {
        d2_tensor_unref(out);
        return -1;
    }
    k->out[0] = out;
    return 0;
}

int ocl_array_stack(d2_kctx *k) { return array_join(k, true); }

/* The array ops of gradients run their items through ops on this backend. */
int ocl_array_zeros_like(d2_kctx *k) { return prologue(k) < 0 ? -1 : cpu_array_zeros_like(k); }
int ocl_array_add(d2_kctx *k) { return prologue(k) < 0 ? -1 : cpu_array_add(k); }

/* array_truncate(array, n): the first n items (the items stay on the device, shared). */
int ocl_array_truncate(d2_kctx *k)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *arr = k->in[0];
    int64_t n;
    if (check_array(k, arr) < 0 || read_index(k, k->in[1], &n) < 0)
        return -1;
    if (n < 0)
        return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: negative length %lld", opname(k),
                          (long long)n);
    d2_tensor *r = d2_tensor_array_new(arr->dtype, k->err);
    if (!r)
        return -1;
    for (int64_t j = 0; j < n && j < arr->array_len; j++)
        if (d2_tensor_array_set(r, j, arr->items[j], k->err) < 0) {
            d2_tensor_unref(r);
            return -1;
        }
    k->out[0] = r;
    return 0;
}
int ocl_array_unstack(d2_kctx *k) { return prologue(k) < 0 ? -1 : cpu_array_unstack(k); }
int ocl_array_split_like(d2_kctx *k) { return prologue(k) < 0 ? -1 : cpu_array_split_like(k); }
int ocl_array_concat(d2_kctx *k) { return array_join(k, false); }

/* ---- side effects: downloaded copies go through the CPU kernels ---- */

/* Runs cpu_fn on host copies of the inputs; with houts, its outputs are those
 * host tensors instead of the device ones. */
static int run_on_host(d2_kctx *k, d2_kernel_fn cpu_fn, d2_tensor **houts)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *host[16] = {0};
    if (k->n_in > 16)
        return d2_err_set(k->err, D2_ERR_UNSUPPORTED, "%s: more than 16 inputs", opname(k));
    int rc = 0;
    for (int i = 0; i < k->n_in && rc == 0; i++)
        if (k->in[i] && !(host[i] = d2_tensor_copy_to(k->in[i], NULL, k->err)))
            rc = -1;
    if (rc == 0) {
        d2_kctx hk = *k;
        hk.be = d2_cpu_backend();
        hk.in = host;
        if (houts)
            hk.out = houts;
        rc = cpu_fn(&hk);
    }
    for (int i = 0; i < k->n_in; i++)
        d2_tensor_unref(host[i]);
    return rc;
}

static int on_host(d2_kctx *k, d2_kernel_fn cpu_fn) { return run_on_host(k, cpu_fn, NULL); }

int ocl_print(d2_kctx *k) { return on_host(k, cpu_print); }
int ocl_assert(d2_kctx *k) { return on_host(k, cpu_assert); }

/* ---- set_value / index_put: run on host copies, the result uploaded into the output ---- */

static int via_host(d2_kctx *k, d2_kernel_fn cpu_fn)
{
    d2_tensor *out = k->out[0];
    if (!out || !d2_tensor_is_contiguous(out))
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: output is missing or not contiguous",
                          opname(k));
    d2_tensor *hout = d2_tensor_new(NULL, out->dtype, out->ndim, out->shape, k->err);
    int rc = hout ? run_on_host(k, cpu_fn, &hout) : -1;
    size_t n = hout ? (size_t)d2_tensor_numel(hout) * d2_dtype_size(hout->dtype) : 0;
    if (rc == 0 && n > 0)
        rc = k->be->upload(k->be, mem_of(out), (size_t)out->offset * d2_dtype_size(out->dtype),
                           d2_tensor_data(hout), n, k->err);
    d2_tensor_unref(hout);
    return rc;
}

int ocl_set_value(d2_kctx *k) { return via_host(k, cpu_set_value); }
int ocl_index_put(d2_kctx *k) { return via_host(k, cpu_index_put); }
int ocl_index_get(d2_kctx *k) { return via_host(k, cpu_index_get); }

/* ---- gradient ops without a device kernel yet: computed on host copies ---- */

int ocl_conv2d_grad_input(d2_kctx *k) { return via_host(k, cpu_conv2d_grad_input); }
int ocl_conv2d_grad_filter(d2_kctx *k) { return via_host(k, cpu_conv2d_grad_filter); }


/* ---- special functions and parameterised activations (kernels/activation.cl) ---- */

/* clang-format off */
enum act_op {
    ACT_ERF, ACT_LGAMMA, ACT_EXPM1, ACT_LOG1P, ACT_LOG2, ACT_LOG10, ACT_TAN, ACT_ASIN, ACT_ACOS,
    ACT_ATAN, ACT_SINH, ACT_COSH, ACT_ASINH, ACT_ACOSH, ACT_ATANH, ACT_TRUNC, ACT_ROUND,
    ACT_SOFTSIGN, ACT_MISH, ACT_LOGSIGMOID, ACT_TANHSHRINK, ACT_HARDSWISH, ACT_SOFTPLUS, ACT_ELU,
    ACT_CELU, ACT_SELU, ACT_HARDSIGMOID, ACT_HARDSHRINK, ACT_SOFTSHRINK, ACT_THRESHOLDED_RELU,
    ACT_STANH, ACT_LOGIT, ACT_ISNAN, ACT_ISINF, ACT_ISFINITE
};
/* clang-format on */

/* Float op with up to two float attributes (schema order). */
static int act(d2_kctx *k, int op)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (!d2_dtype_is_float(x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: expected a floating-point input, got %s",
                          opname(k), d2_dtype_name(x->dtype));
    double p[2] = {0, 0};
    for (int j = 0; j < k->def->n_attrs && j < 2; j++)
        p[j] = k->attrs->v[j].u.f;
    int64_t n = d2_tensor_numel(out);
    char name[64];
    snprintf(name, sizeof name, "act_%s", sfx(x->dtype));
    ocl_args a = {0};
    ocl_arg_int(&a, op);
    ocl_arg_long(&a, n);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    for (int j = 0; j < 2; j++) {
        if (x->dtype == D2_F64)
            ocl_arg_double(&a, p[j]);
        else
            ocl_arg_float(&a, (float)p[j]);
    }
    return run1d(k, name, n, &a);
}

#define ACT_OPS(X)                                                                                 \
    X(lgamma, ACT_LGAMMA) X(expm1, ACT_EXPM1) X(log1p, ACT_LOG1P)                  \
    X(log2, ACT_LOG2) X(log10, ACT_LOG10) X(tan, ACT_TAN) X(asin, ACT_ASIN) X(acos, ACT_ACOS)      \
    X(atan, ACT_ATAN) X(sinh, ACT_SINH) X(cosh, ACT_COSH) X(asinh, ACT_ASINH)                      \
    X(acosh, ACT_ACOSH) X(atanh, ACT_ATANH) X(trunc, ACT_TRUNC) X(round, ACT_ROUND)                \
    X(softsign, ACT_SOFTSIGN) X(mish, ACT_MISH) X(logsigmoid, ACT_LOGSIGMOID)                      \
    X(tanhshrink, ACT_TANHSHRINK) X(hardswish, ACT_HARDSWISH) X(softplus, ACT_SOFTPLUS)            \
    X(elu, ACT_ELU) X(celu, ACT_CELU) X(selu, ACT_SELU) X(hardsigmoid, ACT_HARDSIGMOID)            \
    X(hardshrink, ACT_HARDSHRINK) X(softshrink, ACT_SOFTSHRINK)                                    \
    X(thresholded_relu, ACT_THRESHOLDED_RELU) X(stanh, ACT_STANH) X(logit, ACT_LOGIT)
#define X(name, code)                                                                              \
    int ocl_##name(d2_kctx *k) { return act(k, code); }
ACT_OPS(X)
#undef X

/* isnan / isinf / isfinite: integer and bool inputs are finite. */
static int classify(d2_kctx *k, int op)
{
    if (prologue(k) < 0)
        return -1;
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (!d2_dtype_is_float(x->dtype))
        return fill_value(k, out, op == ACT_ISFINITE);
    int64_t n = d2_tensor_numel(out);
    char name[64];
    snprintf(name, sizeof name, "classify_%s", sfx(x->dtype));
    ocl_args a = {0};
    ocl_arg_int(&a, op);
    ocl_arg_long(&a, n);
    ocl_arg_mem(&a, mem_of(x));
    ocl_arg_long(&a, x->offset);
    ocl_arg_mem(&a, mem_of(out));
    ocl_arg_long(&a, out->offset);
    return run1d(k, name, n, &a);
}

int ocl_isnan(d2_kctx *k) { return classify(k, ACT_ISNAN); }
int ocl_isinf(d2_kctx *k) { return classify(k, ACT_ISINF); }
int ocl_isfinite(d2_kctx *k) { return classify(k, ACT_ISFINITE); }

/* ---- ops that run on host copies, every result uploaded into its output: the
 * optimizer updates, and the scans, sorts and index ops of ops_index.c ---- */

static int all_via_host(d2_kctx *k, d2_kernel_fn cpu_fn)
{
    d2_tensor *hout[D2_MAX_PORTS] = {0};
    int rc = 0;
    for (int i = 0; i < k->n_out && rc == 0; i++) {
        d2_tensor *out = k->out[i];
        if (!out || !d2_tensor_is_contiguous(out))
            rc = d2_err_set(k->err, D2_ERR_INVALID, "%s: output is missing or not contiguous",
                            opname(k));
        else if (!(hout[i] = d2_tensor_new(NULL, out->dtype, out->ndim, out->shape, k->err)))
            rc = -1;
    }
    if (rc == 0)
        rc = run_on_host(k, cpu_fn, hout);
    for (int i = 0; i < k->n_out && rc == 0; i++) {
        d2_tensor *out = k->out[i];
        size_t n = (size_t)d2_tensor_numel(hout[i]) * d2_dtype_size(hout[i]->dtype);
        if (n > 0)
            rc = k->be->upload(k->be, mem_of(out), (size_t)out->offset * d2_dtype_size(out->dtype),
                               d2_tensor_data(hout[i]), n, k->err);
    }
    for (int i = 0; i < k->n_out; i++)
        d2_tensor_unref(hout[i]);
    return rc;
}

#define HOST_OPS(X)                                                                                \
    X(erfinv) X(digamma) X(bitwise_and) X(bitwise_or) X(bitwise_xor) X(bitwise_not) X(cumsum)      \
    X(cumprod) X(logcumsumexp) X(cummax) X(cummin) X(argsort) X(topk) X(tril_triu) X(flip)         \
    X(roll) X(gather_nd) X(scatter) X(scatter_nd_add) X(take_along_axis) X(put_along_axis)       \
    X(gcd) X(lcm) X(dropout_train) X(inv) X(det) X(slogdet) X(solve) X(triangular_solve)         \
    X(cholesky) X(qr) X(svd) X(eigh) X(lu)
#define X(name)                                                                                    \
    int ocl_##name(d2_kctx *k) { return all_via_host(k, cpu_##name); }
HOST_OPS(X)
#undef X

int ocl_sgd(d2_kctx *k) { return all_via_host(k, cpu_sgd); }
int ocl_momentum(d2_kctx *k) { return all_via_host(k, cpu_momentum); }
int ocl_adam(d2_kctx *k) { return all_via_host(k, cpu_adam); }
int ocl_adamw(d2_kctx *k) { return all_via_host(k, cpu_adamw); }
int ocl_rmsprop(d2_kctx *k) { return all_via_host(k, cpu_rmsprop); }
int ocl_adagrad(d2_kctx *k) { return all_via_host(k, cpu_adagrad); }
int ocl_lamb(d2_kctx *k) { return all_via_host(k, cpu_lamb); }

/* conv2d_transpose: the CPU kernel (GEMM + col2im) on host copies */
int ocl_conv2d_transpose(d2_kctx *k) { return via_host(k, cpu_conv2d_transpose); }

/* linear_fused: linear, then the residual added and the activation applied in place on the
 * device by the add and activation kernels */
int ocl_linear_fused(d2_kctx *k)
{
    if (ocl_linear(k) < 0)
        return -1;
    d2_tensor *res = k->n_in > 3 ? k->in[3] : NULL, *out = k->out[0];
    d2_attrs none = {0};
    d2_kctx e = *k;
    e.attrs = &none;
    e.n_out = 1;
    e.out = &out;
    if (res) {
        d2_tensor *in[2] = {out, res};
        e.def = d2_op_def(D2_OP_add);
        e.n_in = 2;
        e.in = in;
        if (ocl_add(&e) < 0)
            return -1;
    }
    const char *act = ATTR_STR(k, "activation");
    if (!*act)
        return 0;
    d2_tensor *in[1] = {out};
    e.n_in = 1;
    e.in = in;
    if (strcmp(act, "relu") == 0) {
        e.def = d2_op_def(D2_OP_relu);
        return ocl_relu(&e);
    }
    e.def = d2_op_def(D2_OP_gelu);
    return unary(&e, strcmp(act, "gelu") == 0 ? UN_GELU : UN_GELU_TANH, true, 0, 0);
}

/* conv2d_fused: conv2d, then the residual added and relu applied in place on the device by
 * the add and relu kernels */
int ocl_conv2d_fused(d2_kctx *k)
{
    if (strcmp(ATTR_STR(k, "data_format"), "NHWC") == 0) /* the CPU kernel on host copies */
        return via_host(k, cpu_conv2d_fused);
    if (ocl_conv2d(k) < 0)
        return -1;
    d2_tensor *res = k->n_in > 3 ? k->in[3] : NULL, *out = k->out[0];
    d2_attrs none = {0};
    d2_kctx e = *k;
    e.attrs = &none;
    e.n_out = 1;
    e.out = &out;
    if (res) {
        d2_tensor *in[2] = {out, res};
        e.def = d2_op_def(D2_OP_add);
        e.n_in = 2;
        e.in = in;
        if (ocl_add(&e) < 0)
            return -1;
    }
    if (strcmp(ATTR_STR(k, "activation"), "relu") == 0) {
        d2_tensor *in[1] = {out};
        e.def = d2_op_def(D2_OP_relu);
        e.n_in = 1;
        e.in = in;
        if (ocl_relu(&e) < 0)
            return -1;
    }
    return 0;
}

/* ---- fused ops of the elementwise fusion passes: their parts, one kernel each, on the device
 * (the values stay on the device; the fused CPU kernels' one-pass form has no OpenCL kernel) */
int ocl_fused_elementwise(d2_kctx *k)
{
    d2_fx_prog prog;
    if (d2_fx_parse(ATTR_STR(k, "expr"), k->n_in, &prog, k->err) < 0)
        return -1;
    return d2_fx_run_parts(k, &prog);
}

int ocl_add_layer_norm(d2_kctx *k) { return d2_add_layer_norm_parts(k); }

int ocl_batch_norm_act(d2_kctx *k) { return d2_batch_norm_act_parts(k); }
