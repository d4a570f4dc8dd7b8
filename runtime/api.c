/* api.c - the public C API (include/dy2st/dy2st.h) over model_io, npy and the executor. */
#include "dy2st/dy2st.h"

#include "cpu/gemm.h"
#include "exec.h"
#include "model_io.h"
#include "opencl/opencl.h"
#include "npy.h"
#include "passes/passes.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)DY2ST_FLOAT32 == (int)D2_F32 && (int)DY2ST_FLOAT64 == (int)D2_F64 &&
                   (int)DY2ST_INT32 == (int)D2_I32 && (int)DY2ST_INT64 == (int)D2_I64 &&
                   (int)DY2ST_BOOL == (int)D2_BOOL && (int)DY2ST_FLOAT16 == (int)D2_F16 &&
                   (int)DY2ST_BFLOAT16 == (int)D2_BF16,
               "public and internal dtype codes differ");
_Static_assert(DY2ST_MAX_DIMS == D2_MAX_DIMS, "public and internal rank limits differ");
_Static_assert((int)DY2ST_ERR_INVALID == (int)D2_ERR_INVALID &&
                   (int)DY2ST_ERR_SHAPE == (int)D2_ERR_SHAPE &&
                   (int)DY2ST_ERR_DTYPE == (int)D2_ERR_DTYPE &&
                   (int)DY2ST_ERR_NOMEM == (int)D2_ERR_NOMEM && (int)DY2ST_ERR_IO == (int)D2_ERR_IO &&
                   (int)DY2ST_ERR_FORMAT == (int)D2_ERR_FORMAT &&
                   (int)DY2ST_ERR_PARSE == (int)D2_ERR_PARSE &&
                   (int)DY2ST_ERR_RUNTIME == (int)D2_ERR_RUNTIME &&
                   (int)DY2ST_ERR_UNSUPPORTED == (int)D2_ERR_UNSUPPORTED &&
                   (int)DY2ST_ERR_DEVICE == (int)D2_ERR_DEVICE &&
                   (int)DY2ST_ERR_LIMIT == (int)D2_ERR_LIMIT,
               "public and internal status codes differ");

/* A host tensor: always a contiguous CPU tensor (never a tensor array). */
struct dy2st_tensor {
    d2_tensor *t;
};

/* A loaded model: the Program (owning the parameters) and its prepared form.
 * Input i is block 0's param i, output i its yield i. */
struct dy2st_model {
    d2_program *prog;
    d2_prepared *pp;
};

/* Limits for runs; cancel is the only field a run's other threads touch. */
struct dy2st_run_options {
    double timeout_s; /* 0: none */
    size_t max_bytes; /* 0: none */
    atomic_int cancel;
    int num_threads; /* 0: the default */
};

static void status_set(dy2st_status *st, const d2_err *err)
{
    if (!st)
        return;
    st->code = err->code ? (int)err->code : (int)D2_ERR_INVALID;
    snprintf(st->message, sizeof st->message, "%s", err->msg[0] ? err->msg : "unknown error");
}

static void status_ok(dy2st_status *st)
{
    if (st) {
        st->code = 0;
        st->message[0] = '\0';
    }
}

const char *dy2st_version(void) { return PACKAGE_VERSION; }

const char *dy2st_status_message(const dy2st_status *st)
{
    if (!st)
        return "";
    return st->code ? st->message : "ok";
}

const char *dy2st_dtype_name(dy2st_dtype dt) { return d2_dtype_name((d2_dtype)dt); }

size_t dy2st_dtype_size(dy2st_dtype dt) { return d2_dtype_size((d2_dtype)dt); }

/* ---- tensors ---------------------------------------------------------------- */

/* Wraps a new reference to t (which must be a contiguous CPU tensor). */
static dy2st_tensor *wrap(d2_tensor *t, d2_err *err)
{
    dy2st_tensor *w = d2_malloc(sizeof *w);
    if (!w) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    w->t = d2_tensor_ref(t);
    return w;
}

dy2st_tensor *dy2st_tensor_new(dy2st_dtype dt, int ndim, const int64_t *shape, const void *data,
                               dy2st_status *st)
{
    d2_err err = {0};
    if ((unsigned)dt >= D2_NUM_DTYPES) {
        d2_err_set(&err, D2_ERR_DTYPE, "invalid dtype code %d", (int)dt);
    } else if (ndim < 0 || ndim > DY2ST_MAX_DIMS || (ndim > 0 && !shape)) {
        d2_err_set(&err, D2_ERR_SHAPE, "bad rank %d (0..%d with a shape array)", ndim,
                   DY2ST_MAX_DIMS);
    } else {
        /* the product of the nonzero dims must fit, so strides never overflow */
        size_t bytes = d2_dtype_size((d2_dtype)dt);
        for (int i = 0; i < ndim && !err.code; i++) {
            if (shape[i] < 0)
                d2_err_set(&err, D2_ERR_SHAPE, "dim %d is negative (%lld)", i,
                           (long long)shape[i]);
            else if ((uint64_t)shape[i] > SIZE_MAX / 4 / bytes)
                d2_err_set(&err, D2_ERR_SHAPE, "tensor too large");
            else
                bytes *= shape[i] ? (size_t)shape[i] : 1;
        }
    }
    d2_tensor *t = NULL;
    if (!err.code)
        t = data ? d2_tensor_from_data((d2_dtype)dt, ndim, shape, data, &err)
                 : d2_tensor_zeros((d2_dtype)dt, ndim, shape, &err);
    dy2st_tensor *w = t ? wrap(t, &err) : NULL;
    d2_tensor_unref(t);
    if (!w)
        status_set(st, &err);
    else
        status_ok(st);
    return w;
}

void dy2st_tensor_free(dy2st_tensor *t)
{
    if (!t)
        return;
    d2_tensor_unref(t->t);
    d2_free(t);
}

dy2st_dtype dy2st_tensor_dtype(const dy2st_tensor *t) { return (dy2st_dtype)t->t->dtype; }

int dy2st_tensor_ndim(const dy2st_tensor *t) { return t->t->ndim; }

int64_t dy2st_tensor_dim(const dy2st_tensor *t, int i)
{
    return i >= 0 && i < t->t->ndim ? t->t->shape[i] : -1;
}

int64_t dy2st_tensor_numel(const dy2st_tensor *t) { return d2_tensor_numel(t->t); }

const void *dy2st_tensor_data(const dy2st_tensor *t) { return d2_tensor_data(t->t); }

dy2st_tensor *dy2st_tensor_load_npy(const char *path, dy2st_status *st)
{
    d2_err err = {0};
    d2_tensor *t = path ? d2_npy_load(path, &err) : NULL;
    if (!path)
        d2_err_set(&err, D2_ERR_INVALID, "no path given");
    dy2st_tensor *w = t ? wrap(t, &err) : NULL;
    d2_tensor_unref(t);
    if (!w)
        status_set(st, &err);
    else
        status_ok(st);
    return w;
}

int dy2st_tensor_save_npy(const dy2st_tensor *t, const char *path, dy2st_status *st)
{
    d2_err err = {0};
    if (!t || !path)
        d2_err_set(&err, D2_ERR_INVALID, "no tensor or path given");
    else
        d2_npy_save(t->t, path, &err);
    if (err.code) {
        status_set(st, &err);
        return -1;
    }
    status_ok(st);
    return 0;
}

/* ---- models ----------------------------------------------------------------- */

/* Resolves a device string ("cpu", "opencl", "opencl:N"; NULL means the
 * DY2ST_DEVICE environment variable, else the CPU) to a backend; -1 with err set. */
static int pick_backend(const char *device, d2_backend **be, d2_err *err)
{
    if (!device || !*device)
        device = getenv("DY2ST_DEVICE");
    if (!device || !*device)
        device = "cpu";
    *be = d2_backend_from_name(device, err);
    return *be ? 0 : -1;
}

/* A loaded model runs for inference: the passes DY2ST_PASSES selects (all by default;
 * d2_passes_from_env) rewrite *prog, on a clone so that a pass that fails leaves the
 * Program as it was loaded, which then runs unoptimised. -1 only for a bad DY2ST_PASSES. */
static int optimize(d2_program **prog, d2_pass_set *setp, d2_err *err)
{
    d2_pass_set set;
    *setp = 0;
    if (d2_passes_from_env(&set, err) < 0) {
        d2_err_prefix(err, "DY2ST_PASSES");
        return -1;
    }
    *setp = set;
    if (!set)
        return 0;
    d2_err perr = {0};
    d2_program *q = d2_program_clone(*prog, &perr);
    if (!q || d2_passes_run(q, set, NULL, &perr) < 0) {
        d2_program_free(q);
        return 0;
    }
    d2_program_free(*prog);
    *prog = q;
    return 0;
}

dy2st_model *dy2st_model_load(const char *path, const char *device, dy2st_status *st)
{
    d2_err err = {0};
    dy2st_model *m = NULL;
    d2_backend *be;
    if (!path) {
        d2_err_set(&err, D2_ERR_INVALID, "no model path given");
        goto fail;
    }
    if (pick_backend(device, &be, &err) < 0)
        goto fail;
    m = d2_calloc(1, sizeof *m);
    if (!m) {
        d2_err_set(&err, D2_ERR_NOMEM, "out of memory");
        goto fail;
    }
    m->prog = d2_model_open(path, &err);
    if (!m->prog)
        goto fail;
    for (int i = 0; i < m->prog->n_vars; i++)
        if (m->prog->vars[i].persistable && !m->prog->vars[i].data) {
            d2_err_set(&err, D2_ERR_INVALID, "%s: parameter '%s' has no data", path,
                       m->prog->vars[i].name);
            goto fail;
        }
    d2_pass_set set;
    if (optimize(&m->prog, &set, &err) < 0)
        goto fail;
    /* nothing writes a loaded model's parameters (they are not exposed, and runs never write
     * into one): derived copies such as reordered conv weights are kept with them */
    for (int i = 0; i < m->prog->n_vars; i++)
        if (m->prog->vars[i].persistable)
            d2_tensor_set_const(m->prog->vars[i].data);
    m->pp = d2_exec_prepare(m->prog, be, &err);
    if (!m->pp)
        goto fail;
    d2_passes_select_exec(m->pp, set); /* in-place execution and the memory plan */
    status_ok(st);
    return m;
fail:
    status_set(st, &err);
    dy2st_model_free(m);
    return NULL;
}

void dy2st_model_free(dy2st_model *m)
{
    if (!m)
        return;
    d2_exec_free(m->pp);
    d2_program_free(m->prog);
    d2_free(m);
}

int dy2st_model_num_inputs(const dy2st_model *m) { return m ? m->prog->blocks[0].n_params : 0; }

int dy2st_model_num_outputs(const dy2st_model *m) { return m ? m->prog->blocks[0].n_yields : 0; }

static const d2_var *input_var(const dy2st_model *m, int i)
{
    if (!m || i < 0 || i >= m->prog->blocks[0].n_params)
        return NULL;
    return &m->prog->vars[m->prog->blocks[0].params[i]];
}

static const d2_var *output_var(const dy2st_model *m, int i)
{
    if (!m || i < 0 || i >= m->prog->blocks[0].n_yields)
        return NULL;
    return &m->prog->vars[m->prog->blocks[0].yields[i]];
}

const char *dy2st_model_input_name(const dy2st_model *m, int i)
{
    const d2_var *v = input_var(m, i);
    return v ? v->name : NULL;
}

const char *dy2st_model_output_name(const dy2st_model *m, int i)
{
    const d2_var *v = output_var(m, i);
    return v ? v->name : NULL;
}

static int var_info(const d2_var *v, dy2st_dtype *dt, int64_t *shape)
{
    if (!v)
        return -1;
    if (dt)
        *dt = (dy2st_dtype)v->type.dtype;
    if (shape)
        memcpy(shape, v->type.shape.dims, sizeof(int64_t) * (size_t)v->type.shape.ndim);
    return v->type.shape.ndim;
}

int dy2st_model_input_info(const dy2st_model *m, int i, dy2st_dtype *dt, int64_t *shape)
{
    return var_info(input_var(m, i), dt, shape);
}

int dy2st_model_output_info(const dy2st_model *m, int i, dy2st_dtype *dt, int64_t *shape)
{
    return var_info(output_var(m, i), dt, shape);
}

int dy2st_model_input_index(const dy2st_model *m, const char *name)
{
    for (int i = 0; name && i < dy2st_model_num_inputs(m); i++)
        if (strcmp(input_var(m, i)->name, name) == 0)
            return i;
    return -1;
}

int dy2st_model_output_index(const dy2st_model *m, const char *name)
{
    for (int i = 0; name && i < dy2st_model_num_outputs(m); i++)
        if (strcmp(output_var(m, i)->name, name) == 0)
            return i;
    return -1;
}

/* Checks one input tensor against its declared type. */
static int check_input(const d2_var *v, const dy2st_tensor *x, d2_err *err)
{
    if (!x)
        return d2_err_set(err, D2_ERR_INVALID, "input '%s' is missing (NULL)", v->name);
    const d2_tensor *t = x->t;
    if (v->type.kind != D2_VALUE_TENSOR)
        return d2_err_set(err, D2_ERR_INVALID,
                          "input '%s' is a tensor array, which the C API cannot feed", v->name);
    if (t->dtype != v->type.dtype)
        return d2_err_set(err, D2_ERR_DTYPE, "input '%s': expected %s, got %s", v->name,
                          d2_dtype_name(v->type.dtype), d2_dtype_name(t->dtype));
    bool ok = t->ndim == v->type.shape.ndim;
    for (int d = 0; ok && d < t->ndim; d++)
        if (v->type.shape.dims[d] >= 0 && v->type.shape.dims[d] != t->shape[d])
            ok = false;
    if (!ok) {
        char want[128], got[128];
        d2_shape s;
        d2_tensor_get_shape(t, &s);
        d2_shape_str(&v->type.shape, want, sizeof want);
        d2_shape_str(&s, got, sizeof got);
        return d2_err_set(err, D2_ERR_SHAPE, "input '%s': expected shape %s, got %s", v->name,
                          want, got);
    }
    return 0;
}

/* ---- run options ------------------------------------------------------------ */

dy2st_run_options *dy2st_run_options_new(void)
{
    dy2st_run_options *o = d2_calloc(1, sizeof *o);
    if (o)
        atomic_init(&o->cancel, 0);
    return o;
}

void dy2st_run_options_free(dy2st_run_options *o) { d2_free(o); }

int dy2st_run_options_set_timeout(dy2st_run_options *o, double seconds, dy2st_status *st)
{
    d2_err err = {0};
    if (!o)
        d2_err_set(&err, D2_ERR_INVALID, "no run options given");
    else if (!isfinite(seconds) || seconds < 0)
        d2_err_set(&err, D2_ERR_INVALID, "timeout must be a finite number of seconds >= 0, got %g",
                   seconds);
    if (err.code) {
        status_set(st, &err);
        return -1;
    }
    o->timeout_s = seconds;
    status_ok(st);
    return 0;
}

double dy2st_run_options_timeout(const dy2st_run_options *o) { return o ? o->timeout_s : 0; }

void dy2st_run_options_set_max_bytes(dy2st_run_options *o, size_t max_bytes)
{
    if (o)
        o->max_bytes = max_bytes;
}

size_t dy2st_run_options_max_bytes(const dy2st_run_options *o) { return o ? o->max_bytes : 0; }

int dy2st_run_options_set_num_threads(dy2st_run_options *o, int n, dy2st_status *st)
{
    d2_err err = {0};
    if (!o)
        d2_err_set(&err, D2_ERR_INVALID, "no run options given");
    else if (n < 0 || n > 4096)
        d2_err_set(&err, D2_ERR_INVALID,
                   "the thread count must be 0 (the default) to 4096, got %d", n);
    if (err.code) {
        status_set(st, &err);
        return -1;
    }
    o->num_threads = n;
    return 0;
}

int dy2st_run_options_num_threads(const dy2st_run_options *o) { return o ? o->num_threads : 0; }

void dy2st_run_options_cancel(dy2st_run_options *o)
{
    if (o)
        atomic_store_explicit(&o->cancel, 1, memory_order_relaxed);
}

void dy2st_run_options_reset_cancel(dy2st_run_options *o)
{
    if (o)
        atomic_store_explicit(&o->cancel, 0, memory_order_relaxed);
}

int dy2st_run_options_cancelled(const dy2st_run_options *o)
{
    return o ? atomic_load_explicit(&o->cancel, memory_order_relaxed) != 0 : 0;
}

/* ---- runs ------------------------------------------------------------------- */

int dy2st_model_run(dy2st_model *m, dy2st_tensor *const *inputs, int n_inputs,
                    dy2st_tensor **outputs, int n_outputs, dy2st_status *st)
{
    return dy2st_model_run_with_options(m, NULL, inputs, n_inputs, outputs, n_outputs, st);
}

int dy2st_model_run_with_options(dy2st_model *m, const dy2st_run_options *opts,
                                 dy2st_tensor *const *inputs, int n_inputs,
                                 dy2st_tensor **outputs, int n_outputs, dy2st_status *st)
{
    d2_err err = {0};
    d2_run_limits lim = {0}, *limp = NULL;
    if (opts) {
        limp = &lim;
        lim.cancel = &opts->cancel;
        lim.max_bytes = opts->max_bytes;
        lim.timeout_s = opts->timeout_s;
        if (opts->timeout_s > 0)
            lim.deadline = d2_monotonic_s() + opts->timeout_s;
    }
    int n_in = dy2st_model_num_inputs(m), n_out = dy2st_model_num_outputs(m);
    d2_tensor **in = NULL, **out = NULL;
    for (int i = 0; outputs && i < n_outputs; i++)
        outputs[i] = NULL;
    if (!m) {
        d2_err_set(&err, D2_ERR_INVALID, "no model given");
        goto done;
    }
    if (n_inputs != n_in || (n_in > 0 && !inputs)) {
        d2_err_set(&err, D2_ERR_INVALID, "the model takes %d input%s, got %d", n_in,
                   n_in == 1 ? "" : "s", inputs ? n_inputs : 0);
        goto done;
    }
    if (n_outputs != n_out || (n_out > 0 && !outputs)) {
        d2_err_set(&err, D2_ERR_INVALID, "the model has %d output%s, room for %d given", n_out,
                   n_out == 1 ? "" : "s", outputs ? n_outputs : 0);
        goto done;
    }
    in = d2_calloc((size_t)n_in + 1, sizeof *in);
    out = d2_calloc((size_t)n_out + 1, sizeof *out);
    if (!in || !out) {
        d2_err_set(&err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < n_in; i++) {
        if (check_input(input_var(m, i), inputs[i], &err) < 0)
            goto done;
        in[i] = inputs[i]->t;
    }
    int saved_threads = d2_gemm_set_run_threads(opts ? opts->num_threads : 0);
    int run_rc = d2_exec_run_limited(m->pp, limp, in, n_in, out, n_out, &err);
    d2_gemm_set_run_threads(saved_threads);
    if (run_rc < 0)
        goto done;
    for (int i = 0; i < n_out; i++) {
        d2_tensor *t = out[i];
        if (!t || t->kind != D2_VALUE_TENSOR) {
            d2_err_set(&err, D2_ERR_UNSUPPORTED,
                       "output '%s' is a tensor array, which the C API cannot return",
                       output_var(m, i)->name);
            goto done;
        }
        d2_tensor *c;
        if (t->storage && t->storage->backend->kind == D2_BACKEND_CPU &&
            d2_tensor_is_contiguous(t))
            c = d2_tensor_ref(t);
        else
            c = d2_tensor_copy_to(t, NULL, &err);
        if (!c)
            goto done;
        outputs[i] = wrap(c, &err);
        d2_tensor_unref(c);
        if (!outputs[i])
            goto done;
    }
done:
    for (int i = 0; out && i < n_out; i++)
        d2_tensor_unref(out[i]);
    d2_free(in);
    d2_free(out);
    if (err.code) {
        for (int i = 0; outputs && i < n_outputs; i++) {
            dy2st_tensor_free(outputs[i]);
            outputs[i] = NULL;
        }
        status_set(st, &err);
        if (st && err.code == D2_ERR_LIMIT && lim.hit == D2_LIMIT_CANCEL)
            st->code = DY2ST_ERR_CANCELLED;
        return -1;
    }
    status_ok(st);
    return 0;
}
