/* trace.c - trace mode: the op recorder, frozen-value warnings, TracedLayer, BuildStrategy /
 * ExecutionStrategy, the to_static fallback and the driver of `dy2st trace`. */
#include "lib/paddle/trace.h"

#include "cpu/gemm.h"
#include "exec.h"
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"
#include "model_io.h"
#include "lib/paddle/tensor_api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct trace_state {
    d2_class *traced_cls; /* paddle.jit.TracedLayer (OPAQUE) */
    d2_class *build_cls;  /* paddle.static.BuildStrategy */
    d2_class *exec_cls;   /* paddle.static.ExecutionStrategy */
    uint64_t rng;         /* example inputs */
} trace_state;

static trace_state *TS(d2_interp *I) { return I->ext[D2_EXT_TRACE]; }

static void state_fini(d2_interp *I, void *p)
{
    D2_UNUSED(I);
    d2_free(p);
}

/* ======================================================================
 * Recording
 * ====================================================================== */

static bool traced_in(const d2_builder *B, const d2_obj *o)
{
    return is_tensor(o) && TOBJ(o)->t && TOBJ(o)->trace_var >= 0 &&
           TOBJ(o)->trace_gen == B->gen && TOBJ(o)->trace_var < B->prog->n_vars;
}

/* The variable of concrete tensor o in the trace: its own when recorded,
 * else o lifted as a parameter (a Layer parameter) or a constant. */
static int var_of(d2_interp *I, d2_builder *B, d2_obj *o)
{
    if (traced_in(B, o))
        return TOBJ(o)->trace_var;
    return d2_pd_lift(I, B, o);
}

static void mark(d2_builder *B, d2_obj *o, int var)
{
    TOBJ(o)->trace_var = var;
    TOBJ(o)->trace_gen = B->gen;
}

int d2_trace_record(d2_interp *I, d2_op_id op, d2_obj **inputs, int n_in, const d2_attrs *attrs,
                    d2_obj **outs, int n_out)
{
    struct d2_tracer *tr = D2_MODE(I)->tracer;
    if (!tr || !tr->B)
        return 0;
    d2_builder *B = tr->B;
    bool any = false;
    for (int i = 0; i < n_in && !any; i++)
        any = inputs[i] && (traced_in(B, inputs[i]) || TOBJ(inputs[i])->persistable);
    if (!any)
        return 0; /* constants only: the results are constants */
    int *vin = d2_calloc((size_t)n_in + 1, sizeof *vin);
    int *vout = d2_calloc((size_t)n_out + 1, sizeof *vout);
    int rc = -1;
    if (!vin || !vout) {
        nomem(I);
        goto done;
    }
    for (int i = 0; i < n_in; i++) {
        vin[i] = inputs[i] ? var_of(I, B, inputs[i]) : -1;
        if (inputs[i] && vin[i] < 0)
            goto done;
    }
    d2_err err = {0};
    if (d2_block_append_inferred(B->prog, 0, op, vin, n_in, attrs, n_out, vout, &err) < 0) {
        d2_raise(I, "RuntimeError", "tracing %s: %s", d2_op_def(op)->name, err.msg);
        goto done;
    }
    d2_block *blk = &B->prog->blocks[0];
    if (I->frame && blk->n_ops > 0) {
        blk->ops[blk->n_ops - 1].line = (int)I->frame->span.line;
        blk->ops[blk->n_ops - 1].col = (int)I->frame->span.col + 1;
    }
    for (int i = 0; i < n_out; i++)
        mark(B, outs[i], vout[i]);
    rc = 0;
done:
    d2_free(vin);
    d2_free(vout);
    return rc;
}

void d2_trace_frozen(d2_interp *I, d2_obj *o, d2_trace_freeze kind)
{
    struct d2_tracer *tr = D2_MODE(I)->tracer;
    if (!tr || !tr->B || !is_tensor(o) || !TOBJ(o)->t)
        return;
    if (!traced_in(tr->B, o) && !(TOBJ(o)->persistable && kind != D2_FREEZE_SHAPE &&
                                   kind != D2_FREEZE_LEN))
        return;
    const char *msg;
    switch (kind) {
    case D2_FREEZE_BOOL:
        msg = "converting a traced tensor to a Python bool freezes this branch: the traced "
              "program always takes the path seen while tracing";
        break;
    case D2_FREEZE_INT:
        msg = "converting a traced tensor to a Python int freezes its value: the traced program "
              "uses the value seen while tracing as a constant";
        break;
    case D2_FREEZE_FLOAT:
        msg = "converting a traced tensor to a Python float freezes its value: the traced "
              "program uses the value seen while tracing as a constant";
        break;
    case D2_FREEZE_ITEM:
        msg = "converting a traced tensor to a Python number (Tensor.item) freezes its value: the "
              "traced program uses the value seen while tracing as a constant";
        break;
    case D2_FREEZE_NUMPY:
        msg = "converting a traced tensor to a NumPy array freezes its value: the traced program "
              "uses the value seen while tracing as a constant";
        break;
    case D2_FREEZE_TOLIST:
        msg = "converting a traced tensor to a Python list freezes its value: the traced program "
              "uses the value seen while tracing as a constant";
        break;
    case D2_FREEZE_SHAPE:
        msg = "reading the shape of a traced tensor freezes it: the traced program uses the shape "
              "seen while tracing";
        break;
    case D2_FREEZE_LEN:
        msg = "len() of a traced tensor freezes its size: the traced program uses the size seen "
              "while tracing";
        break;
    case D2_FREEZE_SETITEM:
    default:
        msg = "assigning into a traced tensor is not recorded: the traced program uses its value "
              "after the assignment as a constant";
        TOBJ(o)->trace_var = -1;
        break;
    }
    /* a library module written in Python reads shapes as Paddle's own code does, silently */
    bool lib = I->frame && I->frame->module && I->frame->module->path &&
               strncmp(I->frame->module->path, "<dy2st>/", 8) == 0;
    if (I->frame && !lib)
        d2_warn(I, I->frame->span, I->frame->module, "%s", msg);
}

/* Runs fn(args, **kw) eagerly while recording into B. New ref or NULL. */
static d2_obj *run_traced(d2_interp *I, d2_builder *B, d2_obj *fn, d2_obj **args, size_t nargs,
                          d2_dict *kw)
{
    if (D2_MODE(I)->tracer)
        return d2_raise(I, "RuntimeError", "a trace cannot start while another one is recording");
    struct d2_tracer tr = {B};
    d2_builder *saved = D2_MODE(I)->builder;
    D2_MODE(I)->builder = NULL;
    D2_MODE(I)->tracer = &tr;
    d2_obj *r = d2_call(I, fn, args, nargs, kw);
    D2_MODE(I)->tracer = NULL;
    D2_MODE(I)->builder = saved;
    return r;
}

/* An example input of type ty: random in [0, 1) for floating types, zeros
 * otherwise; unknown dims are 1. New reference or NULL. */
static d2_tensor *example_tensor(d2_interp *I, const d2_type *ty)
{
    int64_t dims[D2_MAX_DIMS];
    for (int d = 0; d < ty->shape.ndim; d++)
        dims[d] = ty->shape.dims[d] < 0 ? 1 : ty->shape.dims[d];
    d2_err err = {0};
    d2_tensor *t = d2_tensor_zeros(ty->dtype, ty->shape.ndim, dims, &err);
    if (!t) {
        d2_raise_err(I, &err);
        return NULL;
    }
    trace_state *s = TS(I);
    int64_t n = d2_tensor_numel(t);
    if (ty->dtype == D2_F32 || ty->dtype == D2_F64) {
        for (int64_t i = 0; i < n; i++) {
            s->rng = s->rng * 6364136223846793005ULL + 1442695040888963407ULL;
            double v = (double)(s->rng >> 11) / 9007199254740992.0;
            if (ty->dtype == D2_F32)
                ((float *)d2_tensor_data(t))[i] = (float)v;
            else
                ((double *)d2_tensor_data(t))[i] = v;
        }
    }
    return t;
}

/* A concrete tensor object for t on the eager backend. New ref or NULL. */
static d2_obj *wrap_eager(d2_interp *I, d2_tensor *t)
{
    if (D2_MODE(I)->backend && t->storage && t->storage->backend != D2_MODE(I)->backend) {
        d2_err err = {0};
        d2_tensor *c = d2_tensor_copy_to(t, D2_MODE(I)->backend, &err);
        if (!c)
            return d2_raise_err(I, &err);
        d2_obj *o = d2_tensor_wrap(I, c);
        d2_tensor_unref(c);
        return o;
    }
    return d2_tensor_wrap(I, t);
}

typedef struct feedmap {
    d2_builder *B;
    const int *vars;
    d2_tensor *const *vals;
    int n;
} feedmap;

static d2_obj *concretize(d2_interp *I, const feedmap *fm, d2_obj *v, int depth);

static d2_obj *concretize_item(d2_interp *I, d2_obj *v, void *ctx, int depth)
{
    return concretize(I, ctx, v, depth);
}

/* v with the symbolic feeds of B replaced by concrete traced tensors. */
static d2_obj *concretize(d2_interp *I, const feedmap *fm, d2_obj *v, int depth)
{
    if (is_tensor(v) && !TOBJ(v)->t && TOBJ(v)->builder == fm->B) {
        int var = TOBJ(v)->var;
        d2_tensor *val = NULL;
        for (int k = 0; k < fm->n; k++)
            if (fm->vars[k] == var && fm->vals)
                val = fm->vals[k];
        d2_tensor *t = val ? d2_tensor_ref(val) : example_tensor(I, &fm->B->prog->vars[var].type);
        if (!t)
            return NULL;
        d2_obj *o = wrap_eager(I, t);
        d2_tensor_unref(t);
        if (o)
            mark(fm->B, o, var);
        return o;
    }
    if (depth > 32)
        return d2_incref(v);
    return d2_jit_map_items(I, v, concretize_item, (void *)fm, depth);
}

static d2_obj *symbolize(d2_interp *I, d2_builder *B, d2_obj *v, int depth);

static d2_obj *symbolize_item(d2_interp *I, d2_obj *v, void *ctx, int depth)
{
    return symbolize(I, ctx, v, depth);
}

/* v with its traced tensors replaced by symbolic tensors of B. */
static d2_obj *symbolize(d2_interp *I, d2_builder *B, d2_obj *v, int depth)
{
    if (is_tensor(v))
        return traced_in(B, v) ? d2_pd_symbolic(I, B, TOBJ(v)->trace_var) : d2_incref(v);
    if (depth > 32)
        return d2_incref(v);
    return d2_jit_map_items(I, v, symbolize_item, B, depth);
}

d2_obj *d2_trace_symbolic(d2_interp *I, d2_builder *B, d2_obj *fn, d2_obj **sym, size_t nargs,
                          d2_dict *kw, const int *vars, d2_tensor *const *vals, int n_feeds)
{
    feedmap fm = {B, vars, vals, n_feeds};
    d2_obj **args = d2_calloc(nargs + 1, sizeof *args);
    d2_obj *kws = NULL, *r = NULL, *res = NULL;
    size_t k = 0;
    if (!args)
        return nomem(I);
    for (; k < nargs; k++) {
        args[k] = concretize(I, &fm, sym[k], 0);
        if (!args[k])
            goto done;
    }
    if (kw) {
        kws = concretize(I, &fm, (d2_obj *)kw, 0);
        if (!kws)
            goto done;
    }
    res = run_traced(I, B, fn, args, nargs, kws ? D2_AS(d2_dict, kws) : NULL);
    if (res)
        r = symbolize(I, B, res, 0);
done:
    for (size_t i = 0; i < k; i++)
        d2_decref(args[i]);
    d2_free(args);
    d2_decref(kws);
    d2_decref(res);
    return r;
}

/* Only reached when jit_program.c calls it outside its compile path: the eager
 * result on the actual arguments is what the trace of this call computes;
 * it still goes through the recorder so that the frozen places warn. */
d2_obj *d2_trace_function(d2_interp *I, d2_obj *fn, d2_obj **args, size_t nargs, d2_dict *kwargs)
{
    if (D2_MODE(I)->tracer)
        return d2_call(I, fn, args, nargs, kwargs);
    d2_err err = {0};
    d2_program *p = d2_program_new(&err);
    if (!p)
        return err.code ? d2_raise_err(I, &err) : nomem(I);
    d2_builder B = {p, 0, ++I->next_gen, NULL, NULL, NULL};
    d2_obj *r = run_traced(I, &B, fn, args, nargs, kwargs);
    d2_pd_retire_builder(&B);
    d2_decref((d2_obj *)B.lifted);
    d2_program_free(p);
    return r;
}

/* ======================================================================
 * Tracing a callable on tensor inputs into a Program of its own
 * ====================================================================== */

typedef struct traced {
    d2_program *prog;
    d2_prepared *pp;
    d2_obj *lifted; /* the builder's dict id -> (tensor, var) (owned) */
    int n_in, n_out;
    bool ran;
    int64_t num_threads;
} traced;

static void traced_free(traced *t)
{
    if (!t)
        return;
    d2_exec_free(t->pp);
    d2_program_free(t->prog);
    d2_decref(t->lifted);
    d2_free(t);
}

static void traced_fin(void *p) { traced_free(p); }

/* Adds tensor v as the next output (block-0 yield) of B's Program. */
static int add_output(d2_interp *I, d2_builder *B, d2_obj *v)
{
    d2_program *p = B->prog;
    int var = var_of(I, B, v);
    if (var < 0)
        return -1;
    d2_block *b0 = &p->blocks[0];
    bool copy = p->vars[var].persistable;
    for (int i = 0; i < b0->n_params && !copy; i++)
        copy = b0->params[i] == var;
    for (int i = 0; i < b0->n_yields && !copy; i++)
        copy = b0->yields[i] == var;
    d2_err err = {0};
    if (copy) {
        int nv;
        if (d2_block_append_inferred(p, 0, D2_OP_assign, &var, 1, NULL, 1, &nv, &err) < 0) {
            d2_raise_err(I, &err);
            return -1;
        }
        var = nv;
    }
    char nm[64];
    snprintf(nm, sizeof nm, "output_%d", b0->n_yields);
    if (d2_program_rename_var(p, var, nm, &err) < 0 || d2_block_add_yield(p, 0, var, &err) < 0) {
        d2_raise_err(I, &err);
        return -1;
    }
    return 0;
}

/* Adds the tensors of result r (a tensor, or nested lists/tuples of them)
 * as outputs, in order. */
static int add_outputs(d2_interp *I, d2_builder *B, d2_obj *r, int depth)
{
    if (is_tensor(r))
        return add_output(I, B, r);
    if ((r->kind == D2_OBJ_LIST || r->kind == D2_OBJ_TUPLE) && depth < 32) {
        size_t n;
        d2_obj **items = d2_jit_seq_items(r, &n);
        for (size_t i = 0; i < n; i++)
            if (add_outputs(I, B, items[i], depth + 1) < 0)
                return -1;
        return 0;
    }
    d2_raise(I, "TypeError",
             "TracedLayer: the outputs of the traced layer must be Tensors or lists/tuples of "
             "Tensors, got %s",
             d2_type_name(r));
    return -1;
}

/* Traces fn(*inputs) (inputs: concrete tensor objects; prefix: an optional
 * first argument passed before them). types: the feed types (NULL: the
 * inputs' exact types); names: feed names (NULL: "input_<k>"). On success
 * *out is a new traced Program and *result the eager result. */
static int trace_call(d2_interp *I, d2_obj *fn, d2_obj **inputs, int n, const d2_type *types,
                      char **names, traced **out, d2_obj **result)
{
    *out = NULL;
    *result = NULL;
    d2_err err = {0};
    traced *t = d2_calloc(1, sizeof *t);
    d2_program *p = t ? d2_program_new(&err) : NULL;
    d2_obj **w = d2_calloc((size_t)n + 1, sizeof *w);
    d2_obj *r = NULL;
    int rc = -1;
    if (!t || !p || !w) {
        if (err.code)
            d2_raise_err(I, &err);
        else
            nomem(I);
        d2_free(t);
        d2_program_free(p);
        d2_free(w);
        return -1;
    }
    t->prog = p;
    t->n_in = n;
    d2_builder B = {p, 0, ++I->next_gen, NULL, NULL, NULL};
    for (int k = 0; k < n; k++) {
        d2_type ty;
        if (types) {
            ty = types[k];
        } else {
            ty = TOBJ(inputs[k])->type;
        }
        char nm[300];
        if (names && names[k])
            snprintf(nm, sizeof nm, "%s", names[k]);
        else
            snprintf(nm, sizeof nm, "input_%d", k);
        for (int j = 1; d2_program_find_var(p, nm) >= 0; j++)
            snprintf(nm, sizeof nm, "input_%d_%d", k, j);
        int var = d2_program_add_var(p, 0, nm, &ty, &err);
        if (var < 0 || d2_block_add_param(p, 0, var, &err) < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
        w[k] = d2_tensor_wrap(I, TOBJ(inputs[k])->t);
        if (!w[k])
            goto done;
        TOBJ(w[k])->stop_gradient = TOBJ(inputs[k])->stop_gradient;
        mark(&B, w[k], var);
    }
    r = run_traced(I, &B, fn, w, (size_t)n, NULL);
    if (!r)
        goto done;
    if (add_outputs(I, &B, r, 0) < 0)
        goto done;
    t->n_out = p->blocks[0].n_yields;
    if (d2_program_verify(p, &err) < 0) {
        d2_raise(I, "RuntimeError", "the traced Program is invalid: %s", err.msg);
        goto done;
    }
    rc = 0;
done:
    d2_pd_retire_builder(&B);
    t->lifted = (d2_obj *)B.lifted;
    for (int k = 0; k < n; k++)
        d2_decref(w[k]);
    d2_free(w);
    if (rc < 0) {
        traced_free(t);
        d2_decref(r);
        return -1;
    }
    *out = t;
    *result = r;
    return 0;
}

/* Makes the Program see Layer parameters replaced since tracing. */
static int refresh_params(d2_interp *I, traced *t)
{
    bool changed = false;
    int bad = -1;
    int rc = d2_jit_refresh_lifted(I, t->lifted, t->prog, &changed, &bad);
    if (rc > 0)
        d2_raise(I, "ValueError",
                 "TracedLayer: parameter '%s' changed its shape or dtype since tracing; trace "
                 "the layer again",
                 t->prog->vars[bad].name);
    if (rc != 0)
        return -1;
    if (changed && t->pp) {
        d2_exec_free(t->pp);
        t->pp = NULL;
    }
    return 0;
}

/* ======================================================================
 * paddle.jit.TracedLayer
 * ====================================================================== */

static traced *traced_of(d2_interp *I, d2_obj *o)
{
    if (!o || o->kind != D2_OBJ_OPAQUE || o->cls != TS(I)->traced_cls)
        return NULL;
    return D2_AS(d2_opaque, o)->payload;
}

/* The inputs argument: a Tensor or a list/tuple of Tensors. Borrowed items
 * in a new d2_calloc'd array (*n set). */
static d2_obj **input_list(d2_interp *I, d2_obj *v, const char *fname, size_t *n)
{
    size_t k = 1;
    d2_obj **items = &v;
    if (!is_tensor(v)) {
        if (v->kind != D2_OBJ_LIST && v->kind != D2_OBJ_TUPLE) {
            d2_raise(I, "TypeError",
                     "%s: inputs must be a Tensor or a list/tuple of Tensors, got %s", fname,
                     d2_type_name(v));
            return NULL;
        }
        items = d2_jit_seq_items(v, &k);
    }
    for (size_t i = 0; i < k; i++) {
        if (!is_tensor(items[i]) || !TOBJ(items[i])->t) {
            d2_raise(I, "TypeError", "%s: inputs[%zu] must be a Tensor, got %s", fname, i,
                     is_tensor(items[i]) ? "a symbolic Tensor" : d2_type_name(items[i]));
            return NULL;
        }
        if (TOBJ(items[i])->t->kind == D2_VALUE_ARRAY) {
            d2_raise(I, "TypeError", "%s: inputs[%zu] is a tensor array", fname, i);
            return NULL;
        }
    }
    d2_obj **r = d2_calloc(k + 1, sizeof *r);
    if (!r) {
        nomem(I);
        return NULL;
    }
    memcpy(r, items, k * sizeof *r);
    *n = k;
    return r;
}

/* TracedLayer.trace(layer, inputs) -> (outputs, traced_layer) */
D2_FN(TL_trace)
{
    if (!d2_jit_is_layer(I, a[0]))
        return d2_raise(I, "TypeError",
                        "TracedLayer.trace: the first argument must be a paddle.nn.Layer, got %s",
                        d2_type_name(a[0]));
    if (D2_MODE(I)->builder)
        return d2_raise(I, "RuntimeError",
                        "TracedLayer.trace cannot run while a static program is being built "
                        "(inside to_static)");
    size_t n = 0;
    d2_obj **in = input_list(I, a[1], "TracedLayer.trace", &n);
    if (!in)
        return NULL;
    traced *t = NULL;
    d2_obj *res = NULL;
    int rc = trace_call(I, a[0], in, (int)n, NULL, NULL, &t, &res);
    d2_free(in);
    if (rc < 0)
        return NULL;
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_OPAQUE, TS(I)->traced_cls, sizeof(d2_opaque));
    if (!o) {
        traced_free(t);
        d2_decref(res);
        return NULL;
    }
    D2_AS(d2_opaque, o)->payload = t;
    D2_AS(d2_opaque, o)->fin = traced_fin;
    d2_obj *r = d2_tuple_pack(I, 2, res, o);
    d2_decref(res);
    d2_decref(o);
    return r;
}

/* traced_layer(inputs) -> list of numpy arrays (the fetches, as Executor.run returns) */
D2_FN(TL_call)
{
    traced *t = traced_of(I, self);
    if (!t)
        return d2_raise(I, "TypeError", "TracedLayer.__call__: not a TracedLayer");
    d2_obj *v = a[0];
    size_t n = 0;
    d2_obj **items = is_tensor(v) || v->kind == D2_OBJ_NDARRAY ? &v : NULL;
    if (items)
        n = 1;
    else if (v->kind == D2_OBJ_LIST || v->kind == D2_OBJ_TUPLE)
        items = d2_jit_seq_items(v, &n);
    else
        return d2_raise(I, "TypeError",
                        "TracedLayer.__call__: inputs must be a list of Tensors, got %s",
                        d2_type_name(v));
    if ((int)n != t->n_in)
        return d2_raise(I, "ValueError",
                        "TracedLayer.__call__: the layer was traced with %d input%s, got %zu",
                        t->n_in, t->n_in == 1 ? "" : "s", n);
    d2_tensor **in = d2_calloc(n + 1, sizeof *in);
    d2_tensor **outs = d2_calloc((size_t)t->n_out + 1, sizeof *outs);
    d2_obj *r = NULL;
    if (!in || !outs) {
        nomem(I);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        in[i] = is_tensor(items[i]) || items[i]->kind == D2_OBJ_NDARRAY
                    ? d2_pd_host(I, items[i], "TracedLayer.__call__")
                    : NULL;
        if (!in[i]) {
            if (!d2_exc_pending(I))
                d2_raise(I, "TypeError",
                         "TracedLayer.__call__: inputs[%zu] must be a Tensor, got %s", i,
                         d2_type_name(items[i]));
            goto done;
        }
        const d2_type *ty = &t->prog->vars[t->prog->blocks[0].params[i]].type;
        d2_shape sh;
        d2_tensor_get_shape(in[i], &sh);
        bool ok = in[i]->dtype == ty->dtype && sh.ndim == ty->shape.ndim;
        for (int d = 0; ok && d < sh.ndim; d++)
            ok = ty->shape.dims[d] < 0 || ty->shape.dims[d] == sh.dims[d];
        if (!ok) {
            char want[160], got[160];
            d2_type gt = *ty;
            gt.dtype = in[i]->dtype;
            gt.shape = sh;
            d2_type_str(ty, want, sizeof want);
            d2_type_str(&gt, got, sizeof got);
            d2_raise(I, "ValueError",
                     "TracedLayer.__call__: inputs[%zu] is %s but the layer was traced with %s", i,
                     got, want);
            goto done;
        }
    }
    if (refresh_params(I, t) < 0)
        goto done;
    d2_err err = {0};
    if (!t->pp) {
        t->pp = d2_exec_prepare(t->prog, D2_MODE(I)->backend, &err);
        if (!t->pp) {
            d2_raise_err(I, &err);
            goto done;
        }
    }
    t->ran = true;
    /* exec_strategy.num_threads: this run's GEMM and convolution threads (0: the default) */
    int saved_threads = d2_gemm_set_run_threads((int)t->num_threads);
    int run_rc = d2_jit_exec_run(I, t->pp, in, (int)n, outs, t->n_out, &err);
    d2_gemm_set_run_threads(saved_threads);
    if (run_rc < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    r = d2_list_new(I, (size_t)t->n_out);
    for (int k = 0; r && k < t->n_out; k++) {
        d2_tensor *h = outs[k];
        if (h->storage && h->storage->backend != d2_cpu_backend()) {
            h = d2_tensor_copy_to(outs[k], NULL, &err);
            if (!h) {
                d2_raise_err(I, &err);
                d2_setref(&r, NULL);
                break;
            }
        } else {
            d2_tensor_ref(h);
        }
        D2_AS(d2_list, r)->items[k] = d2_ndarray_wrap(I, h);
        d2_tensor_unref(h);
        if (!D2_AS(d2_list, r)->items[k])
            d2_setref(&r, NULL);
    }
done:
    for (size_t i = 0; in && i < n; i++)
        if (in[i])
            d2_tensor_unref(in[i]);
    for (int k = 0; outs && k < t->n_out; k++)
        if (outs[k])
            d2_tensor_unref(outs[k]);
    d2_free(in);
    d2_free(outs);
    return r;
}

static bool is_inst_of(d2_interp *I, d2_obj *o, d2_class *c)
{
    return o && c && o->kind == D2_OBJ_INSTANCE && d2_isinstance(I, o, c);
}

/* traced_layer.set_strategy(build_strategy=None, exec_strategy=None) */
D2_FN(TL_set_strategy)
{
    traced *t = traced_of(I, self);
    if (!t)
        return d2_raise(I, "TypeError", "TracedLayer.set_strategy: not a TracedLayer");
    if (t->ran)
        return d2_raise(I, "AssertionError",
                        "TracedLayer.set_strategy: cannot set the strategy after the traced layer "
                        "has run");
    if (a[0] && a[0]->kind != D2_OBJ_NONE && !is_inst_of(I, a[0], TS(I)->build_cls))
        return d2_raise(I, "TypeError",
                        "TracedLayer.set_strategy: build_strategy must be a "
                        "paddle.static.BuildStrategy, got %s",
                        d2_type_name(a[0]));
    if (a[1] && a[1]->kind != D2_OBJ_NONE && !is_inst_of(I, a[1], TS(I)->exec_cls))
        return d2_raise(I, "TypeError",
                        "TracedLayer.set_strategy: exec_strategy must be a "
                        "paddle.static.ExecutionStrategy, got %s",
                        d2_type_name(a[1]));
    if (a[1] && a[1]->kind != D2_OBJ_NONE) {
        d2_obj *nt = d2_dict_get_str(I, D2_AS(d2_instance, a[1])->dict, "num_threads");
        if (nt && nt->kind == D2_OBJ_INT) {
            int64_t v = D2_AS(d2_int, nt)->v;
            if (v < 0 || v > 4096)
                return d2_raise(I, "ValueError",
                                "TracedLayer.set_strategy: exec_strategy.num_threads must be "
                                "0 (the default) to 4096, got %lld",
                                (long long)v);
            t->num_threads = v;
        }
    }
    return d2_none(I);
}

/* Reads a list of indices (None: all n). *out is d2_calloc'd. */
static int index_list(d2_interp *I, d2_obj *v, int n, const char *what, const char *of, int **out,
                      int *k)
{
    *out = d2_calloc((size_t)n + 1, sizeof **out);
    if (!*out) {
        nomem(I);
        return -1;
    }
    if (!v || v->kind == D2_OBJ_NONE) {
        for (int i = 0; i < n; i++)
            (*out)[i] = i;
        *k = n;
        return 0;
    }
    if (v->kind != D2_OBJ_LIST && v->kind != D2_OBJ_TUPLE) {
        d2_raise(I, "TypeError",
                 "TracedLayer.save_inference_model: %s must be a list of int indices, got %s",
                 what, d2_type_name(v));
        return -1;
    }
    size_t m;
    d2_obj **items = d2_jit_seq_items(v, &m);
    if (m > (size_t)n) {
        d2_raise(I, "ValueError",
                 "TracedLayer.save_inference_model: %s has %zu indices but the layer has %d %s",
                 what, m, n, of);
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        if (items[i]->kind != D2_OBJ_INT) {
            d2_raise(I, "TypeError",
                     "TracedLayer.save_inference_model: %s[%zu] must be an int, got %s", what, i,
                     d2_type_name(items[i]));
            return -1;
        }
        int64_t x = D2_AS(d2_int, items[i])->v;
        if (x < 0 || x >= n) {
            d2_raise(I, "IndexError",
                     "TracedLayer.save_inference_model: %s index %lld is out of range (the "
                     "traced layer has %d %s)",
                     what, (long long)x, n, of);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if ((*out)[j] == (int)x) {
                d2_raise(I, "ValueError",
                         "TracedLayer.save_inference_model: %s index %lld is given twice", what,
                         (long long)x);
                return -1;
            }
        (*out)[i] = (int)x;
    }
    *k = (int)m;
    return 0;
}

/* A new Program holding the feeds feed[0..nf-1] and fetches fetch[0..nk-1]
 * of p (block 0 only) and just the ops they need. */
static d2_program *prune(d2_interp *I, const d2_program *p, const int *feed, int nf,
                         const int *fetch, int nk)
{
    const d2_block *b0 = &p->blocks[0];
    d2_err err = {0};
    bool *need = d2_calloc((size_t)p->n_vars + 1, sizeof *need);
    bool *keep = d2_calloc((size_t)b0->n_ops + 1, sizeof *keep);
    int *map = d2_calloc((size_t)p->n_vars + 1, sizeof *map);
    int *vin = NULL, *vout = NULL;
    d2_program *q = d2_program_new(&err);
    bool ok = false;
    if (!need || !keep || !map || !q) {
        nomem(I);
        goto done;
    }
    if (p->n_blocks != 1) {
        d2_raise(I, "ValueError", "TracedLayer: a traced Program has one block");
        goto done;
    }
    for (int i = 0; i < p->n_vars; i++)
        map[i] = -1;
    for (int i = 0; i < nk; i++)
        need[b0->yields[fetch[i]]] = true;
    for (int o = b0->n_ops - 1; o >= 0; o--) {
        const d2_op *op = &b0->ops[o];
        bool k = (d2_op_def(op->id)->flags & D2_OPF_SIDE_EFFECT) != 0;
        for (int j = 0; j < op->n_out && !k; j++)
            k = op->out[j] >= 0 && need[op->out[j]];
        if (!k)
            continue;
        keep[o] = true;
        for (int j = 0; j < op->n_in; j++)
            if (op->in[j] >= 0)
                need[op->in[j]] = true;
    }
    for (int i = 0; i < b0->n_params; i++) {
        int v = b0->params[i];
        bool fed = false;
        for (int j = 0; j < nf; j++)
            fed |= feed[j] == i;
        if (need[v] && !fed) {
            d2_raise(I, "ValueError",
                     "TracedLayer.save_inference_model: the fetched outputs depend on input %d "
                     "('%s'), which is not in feed",
                     i, p->vars[v].name);
            goto done;
        }
    }
    for (int j = 0; j < nf; j++) {
        int v = b0->params[feed[j]];
        map[v] = d2_program_add_var(q, 0, p->vars[v].name, &p->vars[v].type, &err);
        if (map[v] < 0 || d2_block_add_param(q, 0, map[v], &err) < 0)
            goto err;
    }
    for (int o = 0; o < b0->n_ops; o++) {
        if (!keep[o])
            continue;
        const d2_op *op = &b0->ops[o];
        d2_free(vin);
        d2_free(vout);
        vin = d2_calloc((size_t)op->n_in + 1, sizeof *vin);
        vout = d2_calloc((size_t)op->n_out + 1, sizeof *vout);
        if (!vin || !vout) {
            nomem(I);
            goto done;
        }
        for (int j = 0; j < op->n_in; j++) {
            int v = op->in[j];
            if (v >= 0 && map[v] < 0) {
                if (!p->vars[v].persistable) {
                    d2_raise(I, "RuntimeError", "internal: pruning reads '%s' before it is set",
                             p->vars[v].name);
                    goto done;
                }
                map[v] = d2_program_add_param(q, p->vars[v].name, p->vars[v].data,
                                              &p->vars[v].type, &err);
                if (map[v] < 0)
                    goto err;
            }
            vin[j] = v >= 0 ? map[v] : -1;
        }
        for (int j = 0; j < op->n_out; j++) {
            int v = op->out[j];
            if (v >= 0 && map[v] < 0) {
                map[v] = d2_program_add_var(q, 0, p->vars[v].name, &p->vars[v].type, &err);
                if (map[v] < 0)
                    goto err;
            }
            vout[j] = v >= 0 ? map[v] : -1;
        }
        if (d2_block_add_op(q, 0, op->id, vin, op->n_in, vout, op->n_out, &op->attrs, &err) < 0)
            goto err;
        q->blocks[0].ops[q->blocks[0].n_ops - 1].line = op->line;
        q->blocks[0].ops[q->blocks[0].n_ops - 1].col = op->col;
    }
    for (int i = 0; i < nk; i++) {
        int v = b0->yields[fetch[i]];
        if (map[v] < 0) { /* a fetch that is a fed input or a parameter */
            d2_raise(I, "RuntimeError", "internal: pruned output '%s' is not computed",
                     p->vars[v].name);
            goto done;
        }
        if (d2_block_add_yield(q, 0, map[v], &err) < 0)
            goto err;
    }
    if (d2_program_verify(q, &err) < 0)
        goto err;
    ok = true;
    goto done;
err:
    d2_raise_err(I, &err);
done:
    d2_free(need);
    d2_free(keep);
    d2_free(map);
    d2_free(vin);
    d2_free(vout);
    if (!ok) {
        d2_program_free(q);
        return NULL;
    }
    return q;
}

/* Where save_inference_model(path) writes: path/model.dy2st for a
 * directory (existing, or spelled with a trailing '/'), path itself when it
 * ends in .dy2st, else path + ".dy2st". */
static char *model_file(const char *path)
{
    size_t n = strlen(path);
    struct stat st;
    if (n == 0)
        return NULL;
    if (path[n - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
        char *r = d2_malloc(n + 13);
        if (r)
            snprintf(r, n + 13, "%s%smodel.dy2st", path, path[n - 1] == '/' ? "" : "/");
        return r;
    }
    return d2_jit_model_path(path);
}

static int save_pruned(d2_interp *I, traced *t, const char *file, d2_obj *feed, d2_obj *fetch)
{
    int *fi = NULL, *ki = NULL, nf = 0, nk = 0, rc = -1;
    d2_program *q = NULL;
    if (index_list(I, feed, t->n_in, "feed", t->n_in == 1 ? "input" : "inputs", &fi, &nf) < 0 ||
        index_list(I, fetch, t->n_out, "fetch", t->n_out == 1 ? "output" : "outputs", &ki, &nk) <
            0)
        goto done;
    if (nk == 0) {
        d2_raise(I, "ValueError", "TracedLayer.save_inference_model: fetch is empty");
        goto done;
    }
    if (refresh_params(I, t) < 0)
        goto done;
    q = prune(I, t->prog, fi, nf, ki, nk);
    if (!q)
        goto done;
    d2_err ignored = {0}; /* a directory not made shows when the file is written */
    d2_jit_make_parents(file, "TracedLayer.save_inference_model", &ignored);
    d2_err err = {0};
    if (d2_model_save(q, file, &err) < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    rc = 0;
done:
    d2_program_free(q);
    d2_free(fi);
    d2_free(ki);
    return rc;
}

/* traced_layer.save_inference_model(path, feed=None, fetch=None, **kwargs); Paddle
 * 1.8 named the first parameter dirname (a directory: dirname/model.dy2st). */
D2_FN(TL_save)
{
    traced *t = traced_of(I, self);
    if (!t)
        return d2_raise(I, "TypeError", "TracedLayer.save_inference_model: not a TracedLayer");
    bool has_path = a[0] && a[0] != I->none, has_dir = a[3] && a[3] != I->none;
    if (has_path == has_dir)
        return d2_raise(I, "TypeError",
                        "TracedLayer.save_inference_model() takes the model's place as path or "
                        "dirname (one of them)");
    const char *path = d2_to_cstr(I, has_path ? a[0] : a[3], has_path ? "path" : "dirname");
    if (!path)
        return NULL;
    char *file = NULL;
    if (has_dir && path[0]) {
        size_t n = strlen(path) + 2;
        char *dir = d2_malloc(n);
        if (dir) {
            snprintf(dir, n, "%s%s", path, path[n - 3] == '/' ? "" : "/");
            file = model_file(dir);
            d2_free(dir);
        }
    } else {
        file = model_file(path);
    }
    if (!file)
        return path[0] ? nomem(I)
                       : d2_raise(I, "ValueError",
                                  "TracedLayer.save_inference_model: the path is empty");
    int rc = save_pruned(I, t, file, a[1], a[2]);
    d2_free(file);
    return rc < 0 ? NULL : d2_none(I);
}

static d2_obj *TL_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    traced *t = traced_of(I, self);
    if (!t)
        return d2_str_from(I, "<TracedLayer>");
    return d2_str_printf(I, "<TracedLayer: %d input%s, %d output%s, %d ops>", t->n_in,
                         t->n_in == 1 ? "" : "s", t->n_out, t->n_out == 1 ? "" : "s",
                         t->prog->blocks[0].n_ops);
}

/* traced_layer.program: the recorded Program's text form */
static d2_obj *TL_program(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    traced *t = traced_of(I, self);
    if (!t)
        return d2_raise(I, "TypeError", "TracedLayer.program: not a TracedLayer");
    return d2_jit_program_text(I, t->prog);
}

/* ======================================================================
 * paddle.static.BuildStrategy / ExecutionStrategy
 * ====================================================================== */

typedef struct strategy_attr {
    const char *name;
    char kind; /* 'b' bool, 'B' bool or None, 'i' int, 's' str */
    int64_t def;
} strategy_attr;

static const strategy_attr build_attrs[] = {
    {"allow_cuda_graph_capture", 'b', 0},
    {"async_mode", 'b', 0},
    {"bkcl_comm_num", 'i', 1},
    {"build_cinn_pass", 'b', 0},
    {"cache_runtime_context", 'b', 0},
    {"debug_graphviz_path", 's', 0},
    {"enable_addto", 'b', 0},
    {"enable_auto_fusion", 'b', 0},
    {"enable_backward_optimizer_op_deps", 'b', 1},
    {"enable_inplace", 'b', 1},
    {"enable_sequential_execution", 'b', 0},
    {"fix_op_run_order", 'b', 0},
    {"fuse_adamw", 'b', 0},
    {"fuse_all_optimizer_ops", 'b', 0},
    {"fuse_all_reduce_ops", 'b', 1},
    {"fuse_bn_act_ops", 'b', 0},
    {"fuse_bn_add_act_ops", 'b', 1},
    {"fuse_broadcast_ops", 'b', 1},
    {"fuse_elewise_add_act_ops", 'b', 0},
    {"fuse_gemm_epilogue", 'b', 0},
    {"fuse_relu_depthwise_conv", 'b', 0},
    {"fused_attention", 'b', 0},
    {"fused_feedforward", 'b', 0},
    {"gradient_scale_strategy", 'i', 0},
    {"hierarchical_allreduce_inter_nranks", 'i', 0},
    {"is_distribution", 'b', 0},
    {"memory_optimize", 'B', -1},
    {"mkldnn_enabled_op_types", 'l', 0},
    {"nccl_comm_num", 'i', 1},
    {"num_trainers", 'i', 1},
    {"reduce_strategy", 'i', 0},
    {"remove_unnecessary_lock", 'b', 1},
    {"sequential_run", 'b', 0},
    {"sync_batch_norm", 'b', 0},
    {"trainer_id", 'i', 0},
    {"trainers_endpoints", 'l', 0},
    {"use_hierarchical_allreduce", 'b', 0},
};

static const strategy_attr exec_attrs[] = {
    {"allow_op_delay", 'b', 0},
    {"num_iteration_per_drop_scope", 'i', 100},
    {"num_iteration_per_run", 'i', 1},
    {"num_threads", 'i', 0},
    {"use_experimental_executor", 'b', 1},
    {"use_thread_barrier", 'b', 0},
};

static const strategy_attr *strategy_table(d2_interp *I, d2_obj *self, size_t *n,
                                           const char **cname)
{
    if (is_inst_of(I, self, TS(I)->build_cls)) {
        *n = D2_COUNTOF(build_attrs);
        *cname = "BuildStrategy";
        return build_attrs;
    }
    if (is_inst_of(I, self, TS(I)->exec_cls)) {
        *n = D2_COUNTOF(exec_attrs);
        *cname = "ExecutionStrategy";
        return exec_attrs;
    }
    return NULL;
}

static d2_obj *ST_init(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    size_t n;
    const char *cname;
    const strategy_attr *t = strategy_table(I, self, &n, &cname);
    if (!t)
        return d2_raise(I, "TypeError", "strategy __init__: bad receiver");
    if (nargs || (kw && kw->live))
        return d2_raise(I, "TypeError", "%s() takes no arguments", cname);
    d2_dict *d = D2_AS(d2_instance, self)->dict;
    for (size_t i = 0; i < n; i++) {
        d2_obj *v;
        switch (t[i].kind) {
        case 'b': v = d2_bool(I, t[i].def != 0); break;
        case 'B': v = t[i].def < 0 ? d2_none(I) : d2_bool(I, t[i].def != 0); break;
        case 'i': v = d2_int_new(I, t[i].def); break;
        case 'l': v = d2_list_new(I, 0); break;
        default: v = d2_str_from(I, ""); break;
        }
        int rc = v ? d2_dict_set_str(I, d, t[i].name, v) : -1;
        d2_decref(v);
        if (rc < 0)
            return NULL;
    }
    return d2_none(I);
}

static d2_obj *ST_setattr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(kw);
    size_t n;
    const char *cname;
    const strategy_attr *t = strategy_table(I, self, &n, &cname);
    if (!t || nargs != 2 || args[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError", "strategy __setattr__: bad call");
    const char *name = cstr(args[0]);
    d2_obj *v = args[1];
    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].name, name) != 0)
            continue;
        bool ok;
        const char *want;
        switch (t[i].kind) {
        case 'b': ok = v->kind == D2_OBJ_BOOL || v->kind == D2_OBJ_INT; want = "bool"; break;
        case 'B':
            ok = v->kind == D2_OBJ_BOOL || v->kind == D2_OBJ_INT || v->kind == D2_OBJ_NONE;
            want = "bool or None";
            break;
        case 'i': ok = v->kind == D2_OBJ_INT || v->kind == D2_OBJ_BOOL; want = "int"; break;
        case 'l': ok = v->kind == D2_OBJ_LIST || v->kind == D2_OBJ_TUPLE; want = "a list"; break;
        default: ok = v->kind == D2_OBJ_STR; want = "str"; break;
        }
        if (!ok)
            return d2_raise(I, "TypeError", "%s.%s must be %s, got %s", cname, name, want,
                            d2_type_name(v));
        if (t[i].kind == 'b' && v->kind == D2_OBJ_INT)
            v = D2_AS(d2_int, v)->v ? I->true_ : I->false_;
        if (t[i].kind == 'i' && D2_AS(d2_int, v)->v < 0)
            return d2_raise(I, "ValueError", "%s.%s must not be negative, got %lld", cname, name,
                            (long long)D2_AS(d2_int, v)->v);
        if (d2_dict_set_str(I, D2_AS(d2_instance, self)->dict, name, v) < 0)
            return NULL;
        return d2_none(I);
    }
    return d2_raise(I, "AttributeError", "'%s' object has no attribute '%s'", cname, name);
}

static d2_obj *ST_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    size_t n;
    const char *cname;
    if (!strategy_table(I, self, &n, &cname))
        cname = "Strategy";
    return d2_str_printf(I, "<paddle.static.%s>", cname);
}

/* ======================================================================
 * _jst._trace_save(target, specs, path): the driver of `dy2st trace`
 * ====================================================================== */

D2_FN(C_trace_save)
{
    const char *path = d2_to_cstr(I, a[2], "path");
    if (!path)
        return NULL;
    d2_obj *target = a[0];
    if (!d2_jit_is_layer(I, target) && target->kind != D2_OBJ_FUNCTION &&
        target->kind != D2_OBJ_BOUND_METHOD)
        return d2_raise(I, "TypeError", "dy2st trace: expected a Layer or a function, got %s",
                        d2_type_name(target));
    if (a[1]->kind == D2_OBJ_NONE)
        return d2_raise(I, "ValueError",
                        "dy2st trace: no inputs: give them with --input NAME:DTYPE[DIMS] (or an "
                        "INPUT_SPEC list in the file)");
    if (a[1]->kind != D2_OBJ_LIST && a[1]->kind != D2_OBJ_TUPLE)
        return d2_raise(I, "TypeError", "dy2st trace: the input specs must be a list");
    size_t n;
    d2_obj **sp = d2_jit_seq_items(a[1], &n);
    d2_type *types = d2_calloc(n + 1, sizeof *types);
    char **names = d2_calloc(n + 1, sizeof *names);
    d2_obj **in = d2_calloc(n + 1, sizeof *in);
    traced *t = NULL;
    d2_obj *res = NULL, *r = NULL;
    if (!types || !names || !in) {
        nomem(I);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        d2_obj *shape = d2_getattr_opt(I, sp[i], "shape");
        d2_obj *dtype = shape ? d2_getattr_opt(I, sp[i], "dtype") : NULL;
        d2_obj *name = dtype ? d2_getattr_opt(I, sp[i], "name") : NULL;
        int dt = D2_F32;
        size_t nd = 0;
        d2_obj **dims = shape && (shape->kind == D2_OBJ_LIST || shape->kind == D2_OBJ_TUPLE)
                            ? d2_jit_seq_items(shape, &nd)
                            : NULL;
        bool ok = shape && dtype && (dims || nd == 0) && nd <= D2_MAX_DIMS &&
                  d2_pd_parse_dtype(I, dtype, "InputSpec", false, &dt) == 0;
        types[i].kind = D2_VALUE_TENSOR;
        types[i].dtype = dt < 0 ? D2_F32 : (d2_dtype)dt;
        types[i].shape.ndim = (int)nd;
        for (size_t d = 0; ok && d < nd; d++) {
            int64_t v = -1;
            if (dims[d]->kind != D2_OBJ_NONE && d2_to_int64(I, dims[d], "InputSpec.shape", &v) < 0)
                ok = false;
            types[i].shape.dims[d] = v < 0 ? -1 : v;
        }
        if (ok && cstr(name))
            names[i] = d2_strdup(cstr(name));
        d2_decref(shape);
        d2_decref(dtype);
        d2_decref(name);
        if (!ok) {
            if (!d2_exc_pending(I))
                d2_raise(I, "TypeError", "dy2st trace: input %zu is not an InputSpec", i);
            goto done;
        }
        d2_tensor *x = example_tensor(I, &types[i]);
        in[i] = x ? wrap_eager(I, x) : NULL;
        if (x)
            d2_tensor_unref(x);
        if (!in[i])
            goto done;
    }
    if (trace_call(I, target, in, (int)n, types, names, &t, &res) < 0)
        goto done;
    d2_err ignored = {0}; /* a directory not made shows when the file is written */
    d2_jit_make_parents(path, "dy2st trace", &ignored);
    d2_err err = {0};
    if (refresh_params(I, t) < 0)
        goto done;
    if (d2_model_save(t->prog, path, &err) < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    r = d2_none(I);
done:
    for (size_t i = 0; i < n; i++) {
        if (names)
            d2_free(names[i]);
        if (in)
            d2_decref(in[i]);
    }
    d2_free(types);
    d2_free(names);
    d2_free(in);
    traced_free(t);
    d2_decref(res);
    return r;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

static d2_module *module_of(d2_interp *I, const char *name)
{
    d2_obj *o = d2_dict_get_str(I, I->modules, name);
    return o && o->kind == D2_OBJ_MODULE ? D2_AS(d2_module, o) : NULL;
}

int d2_trace_init(d2_interp *I)
{
    D2_MODE(I)->up.trace_record = d2_trace_record;
    D2_MODE(I)->up.trace_frozen = d2_trace_frozen;
    if (TS(I))
        return 0;
    trace_state *s = d2_calloc(1, sizeof *s);
    if (!s) {
        nomem(I);
        return -1;
    }
    I->ext[D2_EXT_TRACE] = s;
    I->ext_fini[D2_EXT_TRACE] = state_fini;
    s->rng = 0x853c49e6748fea9bULL;
    d2_module *jit = module_of(I, "paddle.jit"), *statics = module_of(I, "paddle.static");
    d2_module *jst = module_of(I, "_jst"), *dyg = module_of(I, "paddle.fluid.dygraph");
    if (!jit || !statics || !jst) {
        d2_raise(I, "RuntimeError", "internal: trace mode needs paddle.jit and paddle.static");
        return -1;
    }
    static const d2_def tl_defs[] = {
        D2_DEF("__call__", "inputs", TL_call, "TracedLayer.__call__"),
        D2_DEF("set_strategy", "build_strategy=None, exec_strategy=None", TL_set_strategy,
               "TracedLayer.set_strategy"),
        D2_DEF("save_inference_model", "path=None, feed=None, fetch=None, dirname=None, **kwargs",
               TL_save,
               "TracedLayer.save_inference_model"),
    };
    static const d2_fn_entry tl_m[] = {{"__repr__", TL_repr}};
    /* a static method: TracedLayer.trace(layer, inputs) */
    static const d2_def trace = D2_DEF("trace", "layer, inputs", TL_trace, "TracedLayer.trace");
    static const d2_def jst_defs[] = {
        D2_DEF("_trace_save", "target, specs, path", C_trace_save, "_jst._trace_save"),
    };
    static const d2_fn_entry st_m[] = {
        {"__init__", ST_init}, {"__setattr__", ST_setattr}, {"__repr__", ST_repr}};
    s->traced_cls = d2_jit_new_class(I, jit, "TracedLayer", D2_OBJ_OPAQUE, tl_defs,
                                     D2_COUNTOF(tl_defs), tl_m, D2_COUNTOF(tl_m));
    s->build_cls = d2_jit_new_class(I, statics, "BuildStrategy", D2_OBJ_INSTANCE, NULL, 0, st_m,
                                    D2_COUNTOF(st_m));
    s->exec_cls = d2_jit_new_class(I, statics, "ExecutionStrategy", D2_OBJ_INSTANCE, NULL, 0,
                                   st_m, D2_COUNTOF(st_m));
    if (!s->traced_cls || !s->build_cls || !s->exec_cls)
        return -1;
    if (d2_class_add_property(I, s->traced_cls, "program", TL_program, NULL) < 0)
        return -1;
    /* BuildStrategy.ReduceStrategy / GradientScaleStrategy: enum values as ints */
    static const struct {
        const char *cls, *name;
        int v;
    } enums[] = {
        {"ReduceStrategy", "AllReduce", 0},       {"ReduceStrategy", "Reduce", 1},
        {"ReduceStrategy", "_NoReduce", 2},       {"GradientScaleStrategy", "CoeffNumDevice", 0},
        {"GradientScaleStrategy", "One", 1},      {"GradientScaleStrategy", "Customized", 2},
    };
    for (size_t i = 0; i < D2_COUNTOF(enums); i++) {
        d2_obj *c = d2_dict_get_str(I, s->build_cls->dict, enums[i].cls);
        if (!c) {
            c = (d2_obj *)d2_class_new_builtin(I, enums[i].cls, NULL, D2_OBJ_INSTANCE, statics);
            if (!c || d2_dict_set_str(I, s->build_cls->dict, enums[i].cls, c) < 0)
                return -1;
        }
        d2_obj *v = d2_int_new(I, enums[i].v);
        int r = v ? d2_dict_set_str(I, D2_AS(d2_class, c)->dict, enums[i].name, v) : -1;
        d2_decref(v);
        if (r < 0)
            return -1;
    }
    d2_obj *tr = d2_def_new(I, &trace, NULL);
    int rc = tr ? d2_dict_set_str(I, s->traced_cls->dict, "trace", tr) : -1;
    d2_decref(tr);
    if (rc < 0)
        return -1;
    if (dyg && d2_dict_set_str(I, dyg->dict, "TracedLayer", (d2_obj *)s->traced_cls) < 0)
        return -1;
    /* `from paddle.fluid.dygraph.jit import TracedLayer`: the module is paddle.jit */
    if (dyg && !module_of(I, "paddle.fluid.dygraph.jit") &&
        d2_dict_set_str(I, I->modules, "paddle.fluid.dygraph.jit", (d2_obj *)jit) < 0)
        return -1;
    d2_module *fluid = module_of(I, "paddle.fluid");
    if (fluid) {
        /* fluid.BuildStrategy / fluid.ExecutionStrategy, the 1.x spellings */
        if (d2_dict_set_str(I, fluid->dict, "BuildStrategy", (d2_obj *)s->build_cls) < 0 ||
            d2_dict_set_str(I, fluid->dict, "ExecutionStrategy", (d2_obj *)s->exec_cls) < 0)
            return -1;
    }
    return d2_module_add_defs(I, jst, jst_defs, D2_COUNTOF(jst_defs));
}
