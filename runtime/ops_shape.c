/* ops_shape.c - shape/dtype inference for manipulation, creation and tensor-array ops. */
#include "ops.h"

#include "backend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define OPN(ic) ((ic)->def->name)

static bool present(const d2_infer_ctx *ic, int i)
{
    return i < ic->n_in && (int)ic->in[i].dtype >= 0;
}

/* Name of input port i (variadic tails share the last name). */
static const char *in_name(const d2_opdef *def, int i)
{
    if (def->n_ins == 0)
        return "?";
    return def->in_names[i < def->n_ins ? i : def->n_ins - 1];
}

/* Fails unless input i is present and is a tensor (not an array) of a valid
 * dtype: the layout ops move bytes, so storage dtypes (float16, int8, ...)
 * pass; ops that compute check the dtype themselves. */
static int want_tensor(d2_infer_ctx *ic, int i)
{
    if (!present(ic, i))
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' (%d) is missing", OPN(ic),
                          in_name(ic->def, i), i);
    if (ic->in[i].kind != D2_VALUE_TENSOR)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: input '%s' is a tensor array, expected a tensor", OPN(ic),
                          in_name(ic->def, i));
    if ((unsigned)ic->in[i].dtype >= D2_NUM_DTYPES)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: input '%s' has unsupported dtype %s",
                          OPN(ic), in_name(ic->def, i), d2_dtype_name(ic->in[i].dtype));
    return 0;
}

/* Fails unless input i is a tensor array. */
static int want_array(d2_infer_ctx *ic, int i)
{
    if (!present(ic, i))
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' is missing", OPN(ic),
                          in_name(ic->def, i));
    if (ic->in[i].kind != D2_VALUE_ARRAY)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: input '%s' is a tensor, expected a tensor array", OPN(ic),
                          in_name(ic->def, i));
    return 0;
}

/* Fails unless input i is an int32/int64 tensor holding one element. */
static int want_index(d2_infer_ctx *ic, int i)
{
    if (want_tensor(ic, i) < 0)
        return -1;
    if (!d2_dtype_is_int(ic->in[i].dtype))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: index '%s' must be int32 or int64, got %s",
                          OPN(ic), in_name(ic->def, i), d2_dtype_name(ic->in[i].dtype));
    int64_t n = d2_shape_numel(&ic->in[i].shape);
    if (n >= 0 && n != 1)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: index '%s' must hold one element, got %lld", OPN(ic),
                          in_name(ic->def, i), (long long)n);
    return 0;
}

/* The known value of input i: a CPU tensor, or NULL in static mode. */
static const d2_tensor *in_value(const d2_infer_ctx *ic, int i)
{
    if (!ic->in_value || i >= ic->n_in)
        return NULL;
    const d2_tensor *t = ic->in_value[i];
    if (!t || t->kind != D2_VALUE_TENSOR || !d2_tensor_is_contiguous(t))
        return NULL;
    if (t->storage && t->storage->backend->kind != D2_BACKEND_CPU)
        return NULL;
    return t;
}

static void set_tensor_out(d2_infer_ctx *ic, int i, d2_dtype dt, const d2_shape *s)
{
    ic->out[i].kind = D2_VALUE_TENSOR;
    ic->out[i].dtype = dt;
    ic->out[i].shape = *s;
}

static int check_rank(d2_infer_ctx *ic, int ndim)
{
    if (ndim > D2_MAX_DIMS)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: result rank %d exceeds the maximum of %d",
                          OPN(ic), ndim, D2_MAX_DIMS);
    return 0;
}

/* Reads shape input i (a 1-D int32/int64 tensor) into dims[*n]. *known is
 * false when only its type is known (static mode): then dims are -1. */
static int read_shape_input(d2_infer_ctx *ic, int i, int64_t *dims, int *n, bool *known)
{
    const d2_type *t = &ic->in[i];
    if (t->kind != D2_VALUE_TENSOR || !d2_dtype_is_int(t->dtype))
        return d2_err_set(ic->err, D2_ERR_DTYPE,
                          "%s: shape tensor must be an int32 or int64 tensor, got %s", OPN(ic),
                          t->kind == D2_VALUE_ARRAY ? "a tensor array" : d2_dtype_name(t->dtype));
    if (t->shape.ndim != 1)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: shape tensor must be 1-D, got %d-D",
                          OPN(ic), t->shape.ndim);
    const d2_tensor *v = in_value(ic, i);
    int64_t len = v ? d2_tensor_numel(v) : t->shape.dims[0];
    if (len < 0)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: the length of the shape tensor must be static", OPN(ic));
    if (len > D2_MAX_DIMS)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: shape tensor has %lld values, more than the maximum rank %d",
                          OPN(ic), (long long)len, D2_MAX_DIMS);
    *n = (int)len;
    *known = v != NULL;
    for (int k = 0; k < *n; k++)
        dims[k] = v ? d2_tensor_get_i64(v, k) : -1;
    return 0;
}

/* Target shape of reshape/expand/full: the shape input when given, else the
 * `shape` attribute. */
static int target_shape(d2_infer_ctx *ic, int input, int64_t *dims, int *n, bool *known)
{
    if (present(ic, input))
        return read_shape_input(ic, input, dims, n, known);
    int na;
    const int64_t *a = ATTR_INTS(ic, "shape", &na);
    if (na > D2_MAX_DIMS)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: shape has %d dims, more than the maximum %d",
                          OPN(ic), na, D2_MAX_DIMS);
    for (int k = 0; k < na; k++)
        dims[k] = a[k];
    *n = na;
    *known = true;
    return 0;
}

static void dims_str(const int64_t *dims, int n, char *out, size_t cap)
{
    d2_shape s;
    s.ndim = n;
    for (int k = 0; k < n; k++)
        s.dims[k] = dims[k];
    d2_shape_str(&s, out, cap);
}

/* reshape(x, shape): 0 copies the input dim, one -1 is inferred. */
int infer_reshape(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    const d2_shape *in = &ic->in[0].shape;
    int64_t tgt[D2_MAX_DIMS];
    int n;
    bool known;
    if (target_shape(ic, 1, tgt, &n, &known) < 0)
        return -1;
    d2_shape out = {n, {0}};
    if (!known) {
        for (int k = 0; k < n; k++)
            out.dims[k] = -1;
        set_tensor_out(ic, 0, ic->in[0].dtype, &out);
        return 0;
    }
    /* formatted only for an error: infer runs on every execution */
    char ts[160], xs[160];
#define STRS (dims_str(tgt, n, ts, sizeof ts), d2_shape_str(in, xs, sizeof xs))
    int infer_at = -1;
    int64_t prod = 1;
    bool dyn = false;
    for (int k = 0; k < n; k++) {
        int64_t d = tgt[k];
        if (d == 0) {
            if (k >= in->ndim)
                return STRS,
                       d2_err_set(ic->err, D2_ERR_SHAPE,
                                  "%s: shape %s has 0 at dim %d (copy the input dim) but x %s "
                                  "has only %d dims",
                                  OPN(ic), ts, k, xs, in->ndim);
            d = in->dims[k];
        } else if (d == -1) {
            if (infer_at >= 0)
                return STRS, d2_err_set(ic->err, D2_ERR_SHAPE,
                                        "%s: shape %s has more than one -1 dim", OPN(ic), ts);
            infer_at = k;
            continue;
        } else if (d < 0) {
            return STRS, d2_err_set(ic->err, D2_ERR_SHAPE, "%s: shape %s has invalid dim %lld",
                                    OPN(ic), ts, (long long)d);
        }
        out.dims[k] = d;
        if (d < 0)
            dyn = true;
        else if (d > 0 && prod > INT64_MAX / d)
            return STRS,
                   d2_err_set(ic->err, D2_ERR_SHAPE, "%s: shape %s is too large", OPN(ic), ts);
        else
            prod *= d;
    }
    int64_t numel = d2_shape_numel(in);
    if (infer_at >= 0) {
        if (numel < 0 || dyn) {
            out.dims[infer_at] = -1;
        } else if (prod == 0) {
            return STRS,
                   d2_err_set(ic->err, D2_ERR_SHAPE,
                              "%s: cannot infer the -1 dim of shape %s: the other dims hold 0 "
                              "elements",
                              OPN(ic), ts);
        } else if (numel % prod != 0) {
            return STRS, d2_err_set(ic->err, D2_ERR_SHAPE,
                                    "%s: cannot reshape x %s (%lld elements) into shape %s",
                                    OPN(ic), xs, (long long)numel, ts);
        } else {
            out.dims[infer_at] = numel / prod;
        }
    } else if (numel >= 0 && !dyn && numel != prod) {
        return STRS,
               d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: cannot reshape x %s (%lld elements) into shape %s (%lld elements)",
                          OPN(ic), xs, (long long)numel, ts, (long long)prod);
    }
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
#undef STRS
}

/* flatten(x, start_axis, stop_axis): merges dims start..stop into one; a 0-d
 * tensor becomes [1] as in Paddle. */
int infer_flatten(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    const d2_shape *in = &ic->in[0].shape;
    int64_t sa = ATTR_INT(ic, "start_axis"), so = ATTR_INT(ic, "stop_axis");
    d2_shape out = {0, {0}};
    if (in->ndim == 0) {
        if ((sa != 0 && sa != -1) || (so != 0 && so != -1))
            return d2_err_set(ic->err, D2_ERR_INVALID,
                              "%s: start_axis and stop_axis must be 0 or -1 for a 0-d tensor",
                              OPN(ic));
        out.ndim = 1;
        out.dims[0] = 1;
        set_tensor_out(ic, 0, ic->in[0].dtype, &out);
        return 0;
    }
    int s = d2_norm_axis(sa, in->ndim, ic->def, ic->err);
    if (s < 0)
        return -1;
    int e = d2_norm_axis(so, in->ndim, ic->def, ic->err);
    if (e < 0)
        return -1;
    if (s > e)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: start_axis %lld comes after stop_axis %lld for a %d-d tensor",
                          OPN(ic), (long long)sa, (long long)so, in->ndim);
    for (int k = 0; k < s; k++)
        out.dims[out.ndim++] = in->dims[k];
    int64_t p = 1;
    for (int k = s; k <= e; k++)
        p = (p < 0 || in->dims[k] < 0) ? -1 : p * in->dims[k];
    out.dims[out.ndim++] = p;
    for (int k = e + 1; k < in->ndim; k++)
        out.dims[out.ndim++] = in->dims[k];
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
}

/* squeeze(x, axis): [] removes every size-1 dim; a listed dim that is not 1
 * stays (as in Paddle). Like Paddle's compile-time rule, a listed dynamic
 * (-1) dim is removed: the user asserts it is 1. */
int infer_squeeze(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    const d2_shape *in = &ic->in[0].shape;
    int na;
    const int64_t *ax = ATTR_INTS(ic, "axis", &na);
    bool drop[D2_MAX_DIMS] = {false};
    if (na == 0) {
        for (int k = 0; k < in->ndim; k++)
            drop[k] = in->dims[k] == 1;
    }
    for (int j = 0; j < na; j++) {
        if (in->ndim == 0) {
            if (ax[j] != 0 && ax[j] != -1)
                return d2_err_set(ic->err, D2_ERR_INVALID,
                                  "%s: axis %lld is out of range for a 0-d tensor", OPN(ic),
                                  (long long)ax[j]);
            continue;
        }
        int a = d2_norm_axis(ax[j], in->ndim, ic->def, ic->err);
        if (a < 0)
            return -1;
        if (in->dims[a] == 1 || in->dims[a] == -1)
            drop[a] = true;
    }
    d2_shape out = {0, {0}};
    for (int k = 0; k < in->ndim; k++)
        if (!drop[k])
            out.dims[out.ndim++] = in->dims[k];
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
}

/* unsqueeze(x, axis): inserts size-1 dims one axis after another, each axis
 * relative to the rank reached so far (Paddle's order). */
int infer_unsqueeze(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    d2_shape out = ic->in[0].shape;
    int na;
    const int64_t *ax = ATTR_INTS(ic, "axis", &na);
    if (check_rank(ic, out.ndim + na) < 0)
        return -1;
    for (int j = 0; j < na; j++) {
        int64_t a = ax[j] < 0 ? ax[j] + out.ndim + 1 : ax[j];
        if (a < 0 || a > out.ndim)
            return d2_err_set(ic->err, D2_ERR_INVALID,
                              "%s: axis %lld is out of range for inserting into a %d-d tensor",
                              OPN(ic), (long long)ax[j], out.ndim);
        for (int k = out.ndim; k > a; k--)
            out.dims[k] = out.dims[k - 1];
        out.dims[a] = 1;
        out.ndim++;
    }
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
}

/* Normalises a permutation of ndim axes (negative entries count from the end)
 * into perm; fails unless it is a permutation. */
static int norm_perm(const d2_opdef *def, const int64_t *p, int n, int ndim, int *perm,
                     d2_err *err)
{
    if (n != ndim)
        return d2_err_set(err, D2_ERR_INVALID, "%s: perm has %d entries for a %d-d tensor",
                          def->name, n, ndim);
    bool seen[D2_MAX_DIMS] = {false};
    for (int k = 0; k < n; k++) {
        int64_t a = p[k] < 0 ? p[k] + ndim : p[k];
        if (a < 0 || a >= ndim)
            return d2_err_set(err, D2_ERR_INVALID,
                              "%s: perm entry %lld is out of range for a %d-d tensor", def->name,
                              (long long)p[k], ndim);
        if (seen[a])
            return d2_err_set(err, D2_ERR_INVALID, "%s: perm repeats axis %lld", def->name,
                              (long long)a);
        seen[a] = true;
        perm[k] = (int)a;
    }
    return 0;
}

int infer_transpose(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    const d2_shape *in = &ic->in[0].shape;
    int n, perm[D2_MAX_DIMS];
    const int64_t *p = ATTR_INTS(ic, "perm", &n);
    if (norm_perm(ic->def, p, n, in->ndim, perm, ic->err) < 0)
        return -1;
    d2_shape out = {in->ndim, {0}};
    for (int k = 0; k < n; k++)
        out.dims[k] = in->dims[perm[k]];
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
}

/* Merges two dims that must agree; -1 yields to a static dim. */
static int merge_dim(int64_t a, int64_t b, int64_t *out)
{
    if (a == b || b < 0)
        *out = a;
    else if (a < 0)
        *out = b;
    else
        return -1;
    return 0;
}

/* Checks that the variadic inputs xs are tensors of one dtype and rank; fills
 * the merged shape (ignoring dim `skip`, -1 for none) into *s. */
static int check_same(d2_infer_ctx *ic, int skip, d2_shape *s)
{
    if (ic->n_in < 1)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: needs at least one input", OPN(ic));
    for (int i = 0; i < ic->n_in; i++)
        if (want_tensor(ic, i) < 0)
            return -1;
    *s = ic->in[0].shape;
    for (int i = 1; i < ic->n_in; i++) {
        const d2_type *t = &ic->in[i];
        if (t->dtype != ic->in[0].dtype)
            return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: input %d has dtype %s, input 0 has %s",
                              OPN(ic), i, d2_dtype_name(t->dtype), d2_dtype_name(ic->in[0].dtype));
        char a[160], b[160]; /* formatted only for an error */
#define STRS (d2_shape_str(&ic->in[0].shape, a, sizeof a), d2_shape_str(&t->shape, b, sizeof b))
        if (t->shape.ndim != s->ndim)
            return STRS, d2_err_set(ic->err, D2_ERR_SHAPE,
                                    "%s: input %d has shape %s, input 0 has %s (ranks differ)",
                                    OPN(ic), i, b, a);
        for (int k = 0; k < s->ndim; k++)
            if (k != skip && merge_dim(s->dims[k], t->shape.dims[k], &s->dims[k]) < 0)
                return STRS,
                       d2_err_set(ic->err, D2_ERR_SHAPE,
                                  "%s: input %d has shape %s, input 0 has %s (dim %d differs)",
                                  OPN(ic), i, b, a, k);
    }
    return 0;
#undef STRS
}

int infer_concat(d2_infer_ctx *ic)
{
    if (ic->n_in >= 1 && want_tensor(ic, 0) < 0)
        return -1;
    if (ic->n_in >= 1 && ic->in[0].shape.ndim == 0)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: cannot concatenate 0-d tensors", OPN(ic));
    int axis = 0;
    if (ic->n_in >= 1) {
        axis = d2_norm_axis(ATTR_INT(ic, "axis"), ic->in[0].shape.ndim, ic->def, ic->err);
        if (axis < 0)
            return -1;
    }
    d2_shape s;
    if (check_same(ic, axis, &s) < 0)
        return -1;
    int64_t sum = 0;
    for (int i = 0; i < ic->n_in; i++) {
        int64_t d = ic->in[i].shape.dims[axis];
        if (sum >= 0 && d >= 0 && !d2_add_i64(sum, d, &sum))
            return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: the concatenated dim overflows",
                              OPN(ic));
        if (d < 0)
            sum = -1;
    }
    s.dims[axis] = sum;
    set_tensor_out(ic, 0, ic->in[0].dtype, &s);
    return 0;
}

int infer_stack(d2_infer_ctx *ic)
{
    d2_shape s;
    if (check_same(ic, -1, &s) < 0)
        return -1;
    if (check_rank(ic, s.ndim + 1) < 0)
        return -1;
    int axis = d2_norm_axis(ATTR_INT(ic, "axis"), s.ndim + 1, ic->def, ic->err);
    if (axis < 0)
        return -1;
    for (int k = s.ndim; k > axis; k--)
        s.dims[k] = s.dims[k - 1];
    s.dims[axis] = ic->n_in;
    s.ndim++;
    set_tensor_out(ic, 0, ic->in[0].dtype, &s);
    return 0;
}

/* split(x, num | sections, axis): one output per part; the op's output count
 * must equal num or the number of sections. */
int infer_split(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    const d2_shape *in = &ic->in[0].shape;
    if (in->ndim == 0)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: cannot split a 0-d tensor", OPN(ic));
    int axis = d2_norm_axis(ATTR_INT(ic, "axis"), in->ndim, ic->def, ic->err);
    if (axis < 0)
        return -1;
    int64_t num = ATTR_INT(ic, "num");
    int ns;
    const int64_t *sec = ATTR_INTS(ic, "sections", &ns);
    int64_t dim = in->dims[axis];
    d2_shape s = *in;
    if (num != 0 && ns != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: give either num or sections, not both",
                          OPN(ic));
    if (num < 0)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: num must be positive, got %lld", OPN(ic),
                          (long long)num);
    if (num > 0) {
        if (ic->n_out != num)
            return d2_err_set(ic->err, D2_ERR_INVALID, "%s: num = %lld but the op has %d outputs",
                              OPN(ic), (long long)num, ic->n_out);
        if (dim >= 0 && dim % num != 0)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "%s: dim %d of size %lld cannot be split into %lld equal parts",
                              OPN(ic), axis, (long long)dim, (long long)num);
        s.dims[axis] = dim < 0 ? -1 : dim / num;
        for (int i = 0; i < ic->n_out; i++)
            set_tensor_out(ic, i, ic->in[0].dtype, &s);
        return 0;
    }
    if (ns == 0)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: give num or sections", OPN(ic));
    if (ic->n_out != ns)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: %d sections but the op has %d outputs",
                          OPN(ic), ns, ic->n_out);
    int unknown = -1;
    int64_t sum = 0;
    for (int i = 0; i < ns; i++) {
        if (sec[i] == -1) {
            if (unknown >= 0)
                return d2_err_set(ic->err, D2_ERR_INVALID,
                                  "%s: sections may contain only one -1", OPN(ic));
            unknown = i;
        } else if (sec[i] < 0) {
            return d2_err_set(ic->err, D2_ERR_INVALID, "%s: section %d has invalid size %lld",
                              OPN(ic), i, (long long)sec[i]);
        } else {
            if (sec[i] > INT64_MAX - sum)
                return d2_err_set(ic->err, D2_ERR_INVALID, "%s: sections are too large",
                                  OPN(ic));
            sum += sec[i];
        }
    }
    int64_t rest = -1;
    if (dim >= 0) {
        if (unknown >= 0 ? sum > dim : sum != dim)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "%s: sections add up to %lld but dim %d has size %lld", OPN(ic),
                              (long long)sum, axis, (long long)dim);
        rest = dim - sum;
    }
    for (int i = 0; i < ns; i++) {
        s.dims[axis] = i == unknown ? rest : sec[i];
        set_tensor_out(ic, i, ic->in[0].dtype, &s);
    }
    return 0;
}

/* Python's rule for a slice bound: negatives count from the end, then clamp
 * into [0, dim] (positive step) or [-1, dim-1] (negative step). */
static int64_t clamp_bound(int64_t v, int64_t dim, bool neg_step)
{
    if (v < 0) {
        v += dim;
        if (v < 0)
            v = neg_step ? -1 : 0;
    } else if (v >= dim) {
        v = neg_step ? dim - 1 : dim;
    }
    return v;
}

/* Resolves the slice attributes of (def, attrs) against input shape `in`:
 * start[d] and step[d] for every input dim (0 and 1 when not sliced), the
 * full-rank output shape `full` and the shape after decrease_axis `out`.
 * Dynamic input dims give -1 output dims. Shared by inference and kernels. */
int d2_slice_plan(const d2_opdef *def, const d2_attrs *attrs, const d2_shape *in, int64_t *start,
                  int64_t *step, d2_shape *full, d2_shape *out, d2_err *err)
{
    int na, nb, ne, nst, nd;
    const int64_t *axes = d2_attr_ints(def, attrs, "axes", &na);
    const int64_t *starts = d2_attr_ints(def, attrs, "starts", &nb);
    const int64_t *ends = d2_attr_ints(def, attrs, "ends", &ne);
    const int64_t *strides = d2_attr_ints(def, attrs, "strides", &nst);
    const int64_t *dec = d2_attr_ints(def, attrs, "decrease_axis", &nd);
    if (nb != na || ne != na || (nst != 0 && nst != na))
        return d2_err_set(err, D2_ERR_INVALID,
                          "%s: axes, starts, ends (and strides) must have the same length, got "
                          "%d, %d, %d, %d",
                          def->name, na, nb, ne, nst);
    if (in->ndim == 0 && na > 0)
        return d2_err_set(err, D2_ERR_SHAPE, "%s: cannot slice a 0-d tensor", def->name);
    *full = *in;
    int sliced[D2_MAX_DIMS];
    for (int d = 0; d < in->ndim; d++) {
        start[d] = 0;
        step[d] = 1;
        sliced[d] = -1;
    }
    for (int j = 0; j < na; j++) {
        int a = d2_norm_axis(axes[j], in->ndim, def, err);
        if (a < 0)
            return -1;
        if (sliced[a] >= 0)
            return d2_err_set(err, D2_ERR_INVALID, "%s: axis %lld is listed twice in axes",
                              def->name, (long long)axes[j]);
        sliced[a] = j;
        int64_t st = nst ? strides[j] : 1;
        if (st == 0)
            return d2_err_set(err, D2_ERR_INVALID, "%s: stride for axis %lld is 0", def->name,
                              (long long)axes[j]);
        step[a] = st;
        int64_t dim = in->dims[a];
        if (dim < 0) {
            full->dims[a] = -1;
            continue;
        }
        int64_t s = clamp_bound(starts[j], dim, st < 0), e = clamp_bound(ends[j], dim, st < 0);
        uint64_t diff = st > 0 ? (e > s ? (uint64_t)(e - s) : 0) : (s > e ? (uint64_t)(s - e) : 0);
        uint64_t ust = st > 0 ? (uint64_t)st : (uint64_t)0 - (uint64_t)st;
        start[a] = s;
        full->dims[a] = (int64_t)(diff / ust + (diff % ust != 0));
    }
    bool drop[D2_MAX_DIMS] = {false};
    for (int j = 0; j < nd; j++) {
        int a = d2_norm_axis(dec[j], in->ndim, def, err);
        if (a < 0)
            return -1;
        if (sliced[a] < 0)
            return d2_err_set(err, D2_ERR_INVALID,
                              "%s: decrease_axis %lld is not one of the sliced axes", def->name,
                              (long long)dec[j]);
        if (drop[a])
            return d2_err_set(err, D2_ERR_INVALID, "%s: decrease_axis lists axis %lld twice",
                              def->name, (long long)dec[j]);
        if (full->dims[a] >= 0 && full->dims[a] != 1)
            return d2_err_set(err, D2_ERR_SHAPE,
                              "%s: decrease_axis %lld has size %lld after slicing, expected 1",
                              def->name, (long long)dec[j], (long long)full->dims[a]);
        drop[a] = true;
    }
    out->ndim = 0;
    for (int d = 0; d < in->ndim; d++)
        if (!drop[d])
            out->dims[out->ndim++] = full->dims[d];
    return 0;
}

int infer_slice(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    int64_t start[D2_MAX_DIMS], step[D2_MAX_DIMS];
    d2_shape full, out;
    if (d2_slice_plan(ic->def, ic->attrs, &ic->in[0].shape, start, step, &full, &out, ic->err) <
        0)
        return -1;
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
}

/* gather / index_select(x, index, axis): picks entries of x along axis. A 0-d
 * index (gather only) removes the axis. Index values are checked by the kernel. */
int infer_gather(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0 || want_tensor(ic, 1) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape, *idx = &ic->in[1].shape;
    d2_dtype xdt = ic->in[0].dtype;
    if (xdt == D2_I8 || xdt == D2_I16 || xdt == D2_F16) /* as Paddle's CPU build */
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: dtype %s of input 'x' is not supported",
                          OPN(ic), d2_dtype_name(xdt));
    if (!d2_dtype_is_int(ic->in[1].dtype))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: index must be int32 or int64, got %s",
                          OPN(ic), d2_dtype_name(ic->in[1].dtype));
    bool scalar_ok = ic->def->id == D2_OP_gather;
    if (idx->ndim != 1 && !(scalar_ok && idx->ndim == 0))
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: index must be 1-D%s, got %d-D", OPN(ic),
                          scalar_ok ? " or 0-D" : "", idx->ndim);
    if (x->ndim == 0)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: x must have at least one dim", OPN(ic));
    int axis = d2_norm_axis(ATTR_INT(ic, "axis"), x->ndim, ic->def, ic->err);
    if (axis < 0)
        return -1;
    d2_shape out = *x;
    if (idx->ndim == 0) {
        for (int k = axis; k < x->ndim - 1; k++)
            out.dims[k] = x->dims[k + 1];
        out.ndim--;
    } else {
        out.dims[axis] = idx->dims[0];
    }
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
}

/* expand(x, shape): numpy-style broadcast of x to shape; -1 keeps x's dim. */
int infer_expand(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape;
    int64_t tgt[D2_MAX_DIMS];
    int n;
    bool known;
    if (target_shape(ic, 1, tgt, &n, &known) < 0)
        return -1;
    /* formatted only for an error: infer runs on every execution */
    char ts[160], xs[160];
#define STRS (dims_str(tgt, n, ts, sizeof ts), d2_shape_str(x, xs, sizeof xs))
    if (n < x->ndim)
        return STRS, d2_err_set(ic->err, D2_ERR_SHAPE, "%s: shape %s has fewer dims than x %s",
                                OPN(ic), ts, xs);
    d2_shape out = {n, {0}};
    for (int k = 0; k < n; k++) {
        int xi = k - (n - x->ndim);
        int64_t t = tgt[k];
        if (!known) {
            out.dims[k] = -1;
            continue;
        }
        if (t == 0 || t < -1)
            return STRS, d2_err_set(ic->err, D2_ERR_SHAPE,
                                    "%s: shape %s: dim %d must be positive or -1", OPN(ic), ts, k);
        if (xi < 0) {
            if (t == -1)
                return STRS,
                       d2_err_set(ic->err, D2_ERR_SHAPE,
                                  "%s: shape %s: new leading dim %d cannot be -1", OPN(ic), ts, k);
            out.dims[k] = t;
            continue;
        }
        int64_t xd = x->dims[xi];
        if (t == -1 || t == xd)
            out.dims[k] = xd;
        else if (xd == 1 || xd == -1)
            out.dims[k] = t;
        else
            return STRS, d2_err_set(ic->err, D2_ERR_SHAPE,
                                    "%s: cannot expand x %s to shape %s (dim %d: %lld to %lld)",
                                    OPN(ic), xs, ts, k, (long long)xd, (long long)t);
    }
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
#undef STRS
}

/* tile(x, repeat_times): the shorter of x's shape and repeat_times is padded
 * with leading 1s, as in Paddle. */
int infer_tile(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape;
    int nr;
    const int64_t *r = ATTR_INTS(ic, "repeat_times", &nr);
    int n = nr > x->ndim ? nr : x->ndim;
    if (check_rank(ic, n) < 0)
        return -1;
    d2_shape out = {n, {0}};
    for (int k = 0; k < n; k++) {
        int xi = k - (n - x->ndim), ri = k - (n - nr);
        int64_t xd = xi >= 0 ? x->dims[xi] : 1, rep = ri >= 0 ? r[ri] : 1;
        if (rep <= 0)
            return d2_err_set(ic->err, D2_ERR_INVALID,
                              "%s: repeat_times[%d] must be positive, got %lld", OPN(ic), ri,
                              (long long)rep);
        if (xd > 0 && rep > INT64_MAX / xd)
            return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: result is too large", OPN(ic));
        out.dims[k] = xd < 0 ? -1 : xd * rep;
    }
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
}

/* Fails unless `value` converts to dtype dt without overflow. */
static int check_fill_value(d2_infer_ctx *ic, double v, d2_dtype dt)
{
    if (dt == D2_I32 && !(v > -2147483649.0 && v < 2147483648.0))
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: value %g does not fit in int32", OPN(ic),
                          v);
    if (dt == D2_I64 && !(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: value %g does not fit in int64", OPN(ic),
                          v);
    return 0;
}

static int want_dtype_attr(d2_infer_ctx *ic, int dt)
{
    if (dt < 0 || !d2_dtype_supported((d2_dtype)dt))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: dtype %s is not supported", OPN(ic),
                          dt < 0 ? "none" : d2_dtype_name((d2_dtype)dt));
    return 0;
}

/* full and full_like also make the storage dtypes (float16, bfloat16, int8,
 * int16, uint8), as Paddle's CPU build does. */
static int want_fill_dtype(d2_infer_ctx *ic, int dt)
{
    if (dt >= 0 && (dt == D2_F16 || dt == D2_BF16 || d2_dtype_is_small_int((d2_dtype)dt)))
        return 0;
    return want_dtype_attr(ic, dt);
}

/* full(shape, value, dtype); integer dtypes truncate value toward zero. */
int infer_full(d2_infer_ctx *ic)
{
    int dt = ATTR_DTYPE(ic, "dtype");
    if (want_fill_dtype(ic, dt) < 0)
        return -1;
    if (check_fill_value(ic, ATTR_FLOAT(ic, "value"), (d2_dtype)dt) < 0)
        return -1;
    int64_t tgt[D2_MAX_DIMS];
    int n;
    bool known;
    if (target_shape(ic, 0, tgt, &n, &known) < 0)
        return -1;
    d2_shape out = {n, {0}};
    for (int k = 0; k < n; k++) {
        if (known && tgt[k] < 0) {
            char ts[160];
            dims_str(tgt, n, ts, sizeof ts);
            return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: shape %s has a negative dim", OPN(ic),
                              ts);
        }
        out.dims[k] = tgt[k];
    }
    set_tensor_out(ic, 0, (d2_dtype)dt, &out);
    return 0;
}

int infer_full_like(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    int dt = ATTR_DTYPE(ic, "dtype");
    if (dt < 0)
        dt = (int)ic->in[0].dtype;
    if (want_fill_dtype(ic, dt) < 0)
        return -1;
    if (check_fill_value(ic, ATTR_FLOAT(ic, "value"), (d2_dtype)dt) < 0)
        return -1;
    set_tensor_out(ic, 0, (d2_dtype)dt, &ic->in[0].shape);
    return 0;
}

/* Reads arange bound `which` (0 start, 1 end, 2 step) of dtype dt from its
 * scalar input when present, else from its attribute. Integer dtypes
 * truncate, as Paddle casts the bounds to dtype first. */
static int arange_bound(const d2_opdef *def, const d2_attrs *attrs,
                        const d2_tensor *const vals[3], int which, d2_dtype dt, int64_t *iv,
                        double *fv, d2_err *err)
{
    static const char *names[3] = {"start", "end", "step"};
    const d2_tensor *t = vals[which];
    bool is_int = d2_dtype_is_int(dt);
    if (t && (t->kind != D2_VALUE_TENSOR || d2_tensor_numel(t) != 1 ||
              !d2_dtype_supported(t->dtype)))
        return d2_err_set(err, D2_ERR_SHAPE, "%s: input '%s' must be a one-element tensor",
                          def->name, names[which]);
    double f = 0;
    if (t && is_int && d2_dtype_is_int(t->dtype)) {
        *iv = d2_tensor_get_i64(t, 0);
    } else {
        f = t ? d2_tensor_get_f64(t, 0) : d2_attr_float(def, attrs, names[which]);
        if (dt == D2_F32)
            f = (float)f;
        if (!isfinite(f))
            return d2_err_set(err, D2_ERR_INVALID, "%s: %s must be finite in %s, got %g",
                              def->name, names[which], d2_dtype_name(dt), f);
        if (is_int) {
            if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0))
                return d2_err_set(err, D2_ERR_INVALID, "%s: %s %g does not fit in %s", def->name,
                                  names[which], f, d2_dtype_name(dt));
            *iv = (int64_t)f;
        }
    }
    if (dt == D2_I32 && (*iv < INT32_MIN || *iv > INT32_MAX))
        return d2_err_set(err, D2_ERR_INVALID, "%s: %s %lld does not fit in int32", def->name,
                          names[which], (long long)*iv);
    *fv = is_int ? (double)*iv : f;
    return 0;
}

/* Resolves arange's bounds for dtype dt from the scalar inputs vals[0..2]
 * (NULL = use the attribute) and computes Paddle's length: integer dtypes
 * (|end-start| + |step| - 1) / |step|, float dtypes ceil(|(end-start)/step|)
 * evaluated in dt. The step must point from start towards end. Shared by
 * inference and kernels. */
int d2_arange_plan(const d2_opdef *def, const d2_attrs *attrs, const d2_tensor *const vals[3],
                   d2_dtype dt, int64_t *istart, int64_t *istep, double *fstart, double *fstep,
                   int64_t *count, d2_err *err)
{
    if (dt != D2_F32 && dt != D2_F64 && dt != D2_I32 && dt != D2_I64)
        return d2_err_set(err, D2_ERR_DTYPE, "%s: dtype %s is not supported", def->name,
                          (int)dt < 0 ? "none" : d2_dtype_name(dt));
    int64_t iv[3] = {0, 0, 0};
    double fv[3];
    for (int w = 0; w < 3; w++)
        if (arange_bound(def, attrs, vals, w, dt, &iv[w], &fv[w], err) < 0)
            return -1;
    if (fv[2] == 0)
        return d2_err_set(err, D2_ERR_INVALID, "%s: step must not be 0", def->name);
    if (fv[0] < fv[1] && fv[2] < 0)
        return d2_err_set(err, D2_ERR_INVALID,
                          "%s: step %g must be positive when start %g < end %g", def->name, fv[2],
                          fv[0], fv[1]);
    if (fv[0] > fv[1] && fv[2] > 0)
        return d2_err_set(err, D2_ERR_INVALID,
                          "%s: step %g must be negative when start %g > end %g", def->name, fv[2],
                          fv[0], fv[1]);
    uint64_t n;
    if (d2_dtype_is_int(dt)) {
        uint64_t diff = iv[1] >= iv[0] ? (uint64_t)iv[1] - (uint64_t)iv[0]
                                       : (uint64_t)iv[0] - (uint64_t)iv[1];
        uint64_t ust = iv[2] > 0 ? (uint64_t)iv[2] : (uint64_t)0 - (uint64_t)iv[2];
        n = diff / ust + (diff % ust != 0);
    } else {
        double q = dt == D2_F32 ? (double)fabsf((float)((float)fv[1] - (float)fv[0]) / (float)fv[2])
                                : fabs((fv[1] - fv[0]) / fv[2]);
        q = ceil(q);
        if (!(q < 9.2e18))
            return d2_err_set(err, D2_ERR_INVALID, "%s: result would be too long", def->name);
        n = (uint64_t)q;
    }
    if (n > (uint64_t)INT64_MAX)
        return d2_err_set(err, D2_ERR_INVALID, "%s: result would be too long", def->name);
    *istart = iv[0];
    *istep = iv[2];
    *fstart = fv[0];
    *fstep = fv[2];
    *count = (int64_t)n;
    return 0;
}

/* arange(start?, end?, step?): 1-D; the length is -1 in static mode when a
 * bound is a tensor of unknown value. */
int infer_arange(d2_infer_ctx *ic)
{
    int dt = ATTR_DTYPE(ic, "dtype");
    const d2_tensor *vals[3] = {NULL, NULL, NULL};
    bool known = true;
    for (int w = 0; w < 3; w++) {
        if (!present(ic, w))
            continue;
        if (want_tensor(ic, w) < 0)
            return -1;
        int64_t n = d2_shape_numel(&ic->in[w].shape);
        if (n >= 0 && n != 1)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "%s: input '%s' must hold one element, got %lld", OPN(ic),
                              in_name(ic->def, w), (long long)n);
        vals[w] = in_value(ic, w);
        if (!vals[w])
            known = false;
    }
    if (dt < 0 || (dt != D2_F32 && dt != D2_F64 && dt != D2_I32 && dt != D2_I64))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: dtype %s is not supported", OPN(ic),
                          dt < 0 ? "none" : d2_dtype_name((d2_dtype)dt));
    d2_shape out = {1, {-1}};
    if (known) {
        int64_t is, ist, n;
        double fs, fst;
        if (d2_arange_plan(ic->def, ic->attrs, vals, (d2_dtype)dt, &is, &ist, &fs, &fst, &n,
                           ic->err) < 0)
            return -1;
        out.dims[0] = n;
    }
    set_tensor_out(ic, 0, (d2_dtype)dt, &out);
    return 0;
}

int infer_shape(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    d2_shape out = {1, {ic->in[0].shape.ndim}};
    set_tensor_out(ic, 0, D2_I32, &out);
    return 0;
}

int infer_numel(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    d2_shape out = {0, {0}};
    set_tensor_out(ic, 0, D2_I64, &out);
    return 0;
}

/* ---- tensor arrays ----
 * An array's d2_type has kind D2_VALUE_ARRAY, the element dtype, and the
 * element shape. An element shape of rank 0 means "unknown" (a fresh array,
 * or an array value at run time) as well as "0-d elements": inference then
 * skips rank-dependent checks and the kernels check the items. Writing x
 * into an array of unknown element shape adopts x's shape; writing into a
 * known one keeps equal dims and turns differing dims into -1 (ranks must
 * agree). */

int infer_array_create(d2_infer_ctx *ic)
{
    int dt = ATTR_DTYPE(ic, "dtype");
    if (want_dtype_attr(ic, dt) < 0)
        return -1;
    ic->out[0].kind = D2_VALUE_ARRAY;
    ic->out[0].dtype = (d2_dtype)dt;
    ic->out[0].shape.ndim = 0;
    return 0;
}

int infer_array_write(d2_infer_ctx *ic)
{
    if (want_array(ic, 0) < 0 || want_index(ic, 1) < 0 || want_tensor(ic, 2) < 0)
        return -1;
    const d2_type *a = &ic->in[0], *x = &ic->in[2];
    if (x->dtype != a->dtype)
        return d2_err_set(ic->err, D2_ERR_DTYPE,
                          "%s: cannot write a %s tensor into an array of %s", OPN(ic),
                          d2_dtype_name(x->dtype), d2_dtype_name(a->dtype));
    d2_shape e = a->shape;
    if (e.ndim == 0) {
        e = x->shape;
    } else if (x->shape.ndim != e.ndim) {
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: cannot write a %d-d tensor into an array of %d-d tensors", OPN(ic),
                          x->shape.ndim, e.ndim);
    } else {
        for (int k = 0; k < e.ndim; k++)
            if (e.dims[k] != x->shape.dims[k])
                e.dims[k] = -1;
    }
    ic->out[0].kind = D2_VALUE_ARRAY;
    ic->out[0].dtype = a->dtype;
    ic->out[0].shape = e;
    return 0;
}

int infer_array_read(d2_infer_ctx *ic)
{
    if (want_array(ic, 0) < 0 || want_index(ic, 1) < 0)
        return -1;
    set_tensor_out(ic, 0, ic->in[0].dtype, &ic->in[0].shape);
    return 0;
}

int infer_array_length(d2_infer_ctx *ic)
{
    if (want_array(ic, 0) < 0)
        return -1;
    d2_shape out = {0, {0}};
    set_tensor_out(ic, 0, D2_I64, &out);
    return 0;
}

/* array_stack / array_concat(array, axis): the length along axis is -1. */
int infer_array_stack(d2_infer_ctx *ic)
{
    if (want_array(ic, 0) < 0)
        return -1;
    d2_shape e = ic->in[0].shape;
    bool stack = ic->def->id == D2_OP_array_stack;
    d2_shape out = {1, {-1}};
    if (e.ndim > 0) {
        if (stack && check_rank(ic, e.ndim + 1) < 0)
            return -1;
        int axis = d2_norm_axis(ATTR_INT(ic, "axis"), e.ndim + (stack ? 1 : 0), ic->def, ic->err);
        if (axis < 0)
            return -1;
        out = e;
        if (stack) {
            for (int k = e.ndim; k > axis; k--)
                out.dims[k] = out.dims[k - 1];
            out.ndim++;
        }
        out.dims[axis] = -1;
    }
    set_tensor_out(ic, 0, ic->in[0].dtype, &out);
    return 0;
}

/* array_truncate(array, n): the first n items, typed as the array. */
int infer_array_truncate(d2_infer_ctx *ic)
{
    if (want_array(ic, 0) < 0 || want_index(ic, 1) < 0)
        return -1;
    ic->out[0] = ic->in[0];
    return 0;
}

/* array_zeros_like(array): an array of zeros shaped like each item. */
int infer_array_zeros_like(d2_infer_ctx *ic)
{
    if (want_array(ic, 0) < 0)
        return -1;
    ic->out[0] = ic->in[0];
    return 0;
}

/* array_add(a, b): item-wise sums; the element shape joins both as
 * array_write joins an item's. */
int infer_array_add(d2_infer_ctx *ic)
{
    if (want_array(ic, 0) < 0 || want_array(ic, 1) < 0)
        return -1;
    const d2_type *a = &ic->in[0], *b = &ic->in[1];
    if (a->dtype != b->dtype)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: cannot add an array of %s to one of %s",
                          OPN(ic), d2_dtype_name(b->dtype), d2_dtype_name(a->dtype));
    d2_shape e = a->shape;
    if (e.ndim == 0) {
        e = b->shape;
    } else if (b->shape.ndim != 0) {
        if (b->shape.ndim != e.ndim)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "%s: cannot add an array of %d-d tensors to one of %d-d tensors",
                              OPN(ic), b->shape.ndim, e.ndim);
        for (int k = 0; k < e.ndim; k++)
            if (e.dims[k] != b->shape.dims[k])
                e.dims[k] = -1;
    }
    ic->out[0].kind = D2_VALUE_ARRAY;
    ic->out[0].dtype = a->dtype;
    ic->out[0].shape = e;
    return 0;
}

/* array_unstack(x, axis): the array of x's slices along axis (the inverse of
 * array_stack). */
int infer_array_unstack(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape;
    int axis = d2_norm_axis(ATTR_INT(ic, "axis"), x->ndim, ic->def, ic->err);
    if (axis < 0)
        return -1;
    d2_shape e = {0, {0}};
    for (int k = 0; k < x->ndim; k++)
        if (k != axis)
            e.dims[e.ndim++] = x->dims[k];
    ic->out[0].kind = D2_VALUE_ARRAY;
    ic->out[0].dtype = ic->in[0].dtype;
    ic->out[0].shape = e;
    return 0;
}

/* array_split_like(x, array, axis): x split along axis into pieces as long
 * as the array's items are (the inverse of array_concat). */
int infer_array_split_like(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0 || want_array(ic, 1) < 0)
        return -1;
    const d2_shape *x = &ic->in[0].shape;
    int axis = d2_norm_axis(ATTR_INT(ic, "axis"), x->ndim, ic->def, ic->err);
    if (axis < 0)
        return -1;
    d2_shape e = *x;
    if (e.ndim > 0)
        e.dims[axis] = -1;
    ic->out[0].kind = D2_VALUE_ARRAY;
    ic->out[0].dtype = ic->in[0].dtype;
    ic->out[0].shape = e;
    return 0;
}

/* ---- set_value / index_put: functional x[key] = value ---- */

int d2_value_fits(const d2_opdef *def, const d2_shape *value, const d2_shape *region, d2_err *err)
{
    char vs[160], rs[160];
    for (int k = 0; k < value->ndim; k++) {
        int r = region->ndim - value->ndim + k;
        int64_t vd = value->dims[k], rd = r >= 0 ? region->dims[r] : 1;
        if (vd == 1 || vd < 0 || rd < 0 || vd == rd)
            continue;
        d2_shape_str(value, vs, sizeof vs);
        d2_shape_str(region, rs, sizeof rs);
        return d2_err_set(err, D2_ERR_SHAPE,
                          "%s: a value of shape %s cannot be assigned to a selection of shape %s",
                          def->name, vs, rs);
    }
    return 0;
}

int d2_index_put_region(const d2_opdef *def, int64_t axis, const d2_shape *x,
                        const d2_shape *const *idx, int n, int *first_axis, d2_shape *bshape,
                        d2_shape *region, d2_err *err)
{
    if (n < 1)
        return d2_err_set(err, D2_ERR_INVALID, "%s: needs at least one index tensor", def->name);
    if (axis < 0 || axis + n > x->ndim)
        return d2_err_set(err, D2_ERR_SHAPE,
                          "%s: %d index tensors from axis %lld do not fit a tensor of rank %d",
                          def->name, n, (long long)axis, x->ndim);
    bshape->ndim = 0;
    for (int i = 0; i < n; i++) {
        d2_shape b = *bshape;
        if (d2_broadcast_shapes(&b, idx[i], bshape, def, err) < 0)
            return -1;
    }
    if ((int64_t)x->ndim - n + bshape->ndim > D2_MAX_DIMS)
        return d2_err_set(err, D2_ERR_SHAPE, "%s: the selection has too many dims", def->name);
    region->ndim = 0;
    for (int d = 0; d < axis; d++)
        region->dims[region->ndim++] = x->dims[d];
    for (int d = 0; d < bshape->ndim; d++)
        region->dims[region->ndim++] = bshape->dims[d];
    for (int d = (int)axis + n; d < x->ndim; d++)
        region->dims[region->ndim++] = x->dims[d];
    *first_axis = (int)axis;
    return 0;
}

/* The output is x's type; value must have x's dtype and broadcast to the region. */
static int set_value_common(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0 || want_tensor(ic, 1) < 0)
        return -1;
    if (ic->in[1].dtype != ic->in[0].dtype)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: value must have x's dtype %s, got %s",
                          OPN(ic), d2_dtype_name(ic->in[0].dtype),
                          d2_dtype_name(ic->in[1].dtype));
    set_tensor_out(ic, 0, ic->in[0].dtype, &ic->in[0].shape);
    return 0;
}

int infer_set_value(d2_infer_ctx *ic)
{
    if (set_value_common(ic) < 0)
        return -1;
    int64_t start[D2_MAX_DIMS], step[D2_MAX_DIMS];
    d2_shape full, region;
    if (d2_slice_plan(ic->def, ic->attrs, &ic->in[0].shape, start, step, &full, &region,
                      ic->err) < 0)
        return -1;
    return d2_value_fits(ic->def, &ic->in[1].shape, &region, ic->err);
}

/* Checks the index tensors from port `first` on and computes the region they pick. */
static int index_region(d2_infer_ctx *ic, int first, d2_shape *region)
{
    int n = ic->n_in - first;
    const d2_shape *idx[D2_MAX_DIMS];
    if (n > D2_MAX_DIMS)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: too many index tensors (%d)", OPN(ic), n);
    for (int i = 0; i < n; i++) {
        if (want_tensor(ic, first + i) < 0)
            return -1;
        if (!d2_dtype_is_int(ic->in[first + i].dtype))
            return d2_err_set(ic->err, D2_ERR_DTYPE,
                              "%s: index tensors must be int32 or int64, got %s", OPN(ic),
                              d2_dtype_name(ic->in[first + i].dtype));
        idx[i] = &ic->in[first + i].shape;
    }
    int first_axis;
    d2_shape b;
    return d2_index_put_region(ic->def, ATTR_INT(ic, "axis"), &ic->in[0].shape, idx, n,
                               &first_axis, &b, region, ic->err);
}

int infer_index_put(d2_infer_ctx *ic)
{
    if (set_value_common(ic) < 0)
        return -1;
    if (ATTR_BOOL(ic, "accumulate") && ic->in[0].dtype == D2_BOOL)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: cannot accumulate bool values", OPN(ic));
    d2_shape region;
    if (index_region(ic, 2, &region) < 0)
        return -1;
    return d2_value_fits(ic->def, &ic->in[1].shape, &region, ic->err);
}

/* index_get(x, indices*, axis): the elements index_put with the same indices writes. */
int infer_index_get(d2_infer_ctx *ic)
{
    if (want_tensor(ic, 0) < 0)
        return -1;
    d2_shape region;
    if (index_region(ic, 1, &region) < 0)
        return -1;
    set_tensor_out(ic, 0, ic->in[0].dtype, &region);
    return 0;
}
