/* static_parallel.c - data parallel on threads: CompiledProgram.with_data_parallel. A static
 * Program's forward and backward run as N replicas on N threads, each on its slice of every feed
 * (split along dim 0 as Paddle's ParallelExecutor splits it); the replicas' gradients are summed,
 * and scaled by 1/N under GradientScaleStrategy.CoeffNumDevice, before one optimizer update of
 * the shared parameters; fetched values come back merged along dim 0. The same runner does
 * fleet's collective static training on MPI ranks: one replica per process, the gradients
 * averaged over the processes before the update. */
#include "lib/paddle/static_api.h"
#include "lib/paddle/static_priv.h"

#include "cpu/gemm.h"
#include "exec.h"
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"
#include "lib/paddle/tensor_api.h"
#include "dist.h"
#include "opencl/opencl.h"
#include "passes/passes.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { SCALE_COEFF_NUM_DEVICE = 0, SCALE_ONE = 1, SCALE_CUSTOMIZED = 2 };

/* The number of replicas when places is None: CPU_NUM from the script's os.environ (or the
 * process environment), 1 when unset, as paddle.static.cpu_places documents. -1 with an
 * exception. */
static int64_t cpu_num(d2_interp *I)
{
    const char *txt = NULL;
    d2_obj *os = d2_dict_get_str(I, I->modules, "os");
    if (os && os->kind == D2_OBJ_MODULE) {
        d2_obj *env = d2_dict_get_str(I, D2_AS(d2_module, os)->dict, "environ");
        d2_obj *v = env && env->kind == D2_OBJ_DICT ? d2_dict_get_str(I, D2_AS(d2_dict, env),
                                                                      "CPU_NUM")
                                                    : NULL;
        if (v && v->kind == D2_OBJ_STR)
            txt = cstr(v);
    }
    if (!txt)
        txt = getenv("CPU_NUM");
    if (!txt || !*txt)
        return 1;
    char *end;
    long long n = strtoll(txt, &end, 10);
    if (*end || n < 1 || n > 4096) {
        d2_raise(I, "ValueError",
                 "CompiledProgram.with_data_parallel: CPU_NUM must be a positive number of "
                 "places, got '%s'",
                 txt);
        return -1;
    }
    return n;
}

/* An int attribute of a BuildStrategy (def when absent). -1 with an exception. */
static int strategy_int(d2_interp *I, d2_obj *bs, const char *name, int64_t def, int64_t *v)
{
    *v = def;
    if (!bs || bs->kind == D2_OBJ_NONE)
        return 0;
    d2_obj *o = d2_getattr_opt(I, bs, name);
    if (!o)
        return d2_exc_pending(I) ? -1 : 0;
    int rc = d2_to_int64(I, o, name, v);
    d2_decref(o);
    return rc;
}

/* CompiledProgram(program).with_data_parallel(loss_name=None, build_strategy=None,
 * exec_strategy=None, share_vars_from=None, places=None): a CompiledProgram whose runs use
 * len(places) CPU replicas. self is the Program CompiledProgram returned (or a data-parallel
 * CompiledProgram, configured again). */
D2_FN(CP_with_data_parallel)
{
    const char *fname = "CompiledProgram.with_data_parallel";
    st_state *st = SS(I);
    d2_obj *po = self;
    if (is_inst(I, self, st->cp_cls))
        po = iget(I, self, "_program");
    if (!d2_static_sprog_of(I, po))
        return d2_raise(I, "TypeError", "%s: expected a Program, got %s", fname,
                        d2_type_name(po));
    int64_t n = 0;
    d2_obj *places = a[4];
    bool on_devices = false; /* a place names a device: _devices lists them */
    if (!places || places->kind == D2_OBJ_NONE) {
        if ((n = cpu_num(I)) < 0)
            return NULL;
    } else if (is_seq(places)) {
        /* a place is paddle.CPUPlace() (the interpreter's device, as Executor(CPUPlace()) runs
         * there) or the name of a device as --device spells it: 'cpu', 'opencl', 'opencl:N' */
        size_t np;
        d2_obj **it = d2_jit_seq_items(places, &np);
        d2_obj *cpu = d2_jit_mod_attr(I, "paddle", "CPUPlace");
        for (size_t i = 0; i < np; i++) {
            if (it[i]->kind == D2_OBJ_STR) {
                d2_err err = {0};
                if (!d2_backend_from_name(cstr(it[i]), &err))
                    return d2_raise(I, "ValueError", "%s: places[%zu]: %s", fname, i, err.msg);
                on_devices = true;
            } else if (!cpu || cpu->kind != D2_OBJ_CLASS ||
                       !is_inst(I, it[i], D2_AS(d2_class, cpu)))
                return d2_raise(I, "TypeError",
                                "%s: places[%zu] is %s; dy2st runs data-parallel replicas on "
                                "paddle.CPUPlace() places or on devices named as --device names "
                                "them ('cpu', 'opencl', 'opencl:N')",
                                fname, i, d2_type_name(it[i]));
        }
        n = (int64_t)np;
    } else {
        return d2_raise(I, "TypeError",
                        "%s: places must be a list or tuple of places, got %s", fname,
                        d2_type_name(places));
    }
    if (n < 1)
        return d2_raise(I, "ValueError", "%s: no places for execution (places is empty)",
                        fname);
    if (a[0] && a[0]->kind != D2_OBJ_NONE && !d2_to_cstr(I, a[0], "loss_name"))
        return NULL;
    int64_t scale = SCALE_COEFF_NUM_DEVICE, reduce = 0;
    if (strategy_int(I, a[1], "gradient_scale_strategy", SCALE_COEFF_NUM_DEVICE, &scale) < 0 ||
        strategy_int(I, a[1], "reduce_strategy", 0, &reduce) < 0)
        return NULL;
    if (scale < 0 || scale > 2 || reduce < 0 || reduce > 1)
        return d2_raise(I, "ValueError",
                        "%s: build_strategy has an unknown gradient_scale_strategy (%lld) or "
                        "reduce_strategy (%lld)",
                        fname, (long long)scale, (long long)reduce);
    /* Customized: Paddle inserts no loss-gradient op and the user feeds the loss gradient
     * ('<loss>@GRAD') on every place; dy2st's backward seeds the loss gradient itself */
    if (scale == SCALE_CUSTOMIZED)
        return d2_raise(I, "NotImplementedError",
                        "%s: build_strategy.gradient_scale_strategy is Customized, where the "
                        "loss gradient is fed by the user; dy2st seeds the loss gradient itself "
                        "and cannot take it as a feed: use CoeffNumDevice (the average) or One "
                        "(the sum) and scale the loss instead",
                        fname);
    d2_obj *share = a[3] && a[3]->kind != D2_OBJ_NONE ? a[3] : NULL;
    if (share && (!is_inst(I, share, st->cp_cls) || !iget(I, share, "_places")))
        return d2_raise(I, "TypeError",
                        "%s: share_vars_from must be a CompiledProgram made by "
                        "with_data_parallel, got %s",
                        fname, d2_type_name(share));
    d2_obj *r = d2_instance_new(I, st->cp_cls);
    if (!r || iset_steal(I, r, "_program", d2_incref(po)) < 0 ||
        iset_steal(I, r, "_places", d2_int_new(I, n)) < 0 ||
        iset_steal(I, r, "_loss_name", a[0] ? d2_incref(a[0]) : d2_none(I)) < 0 ||
        iset_steal(I, r, "_scale", d2_int_new(I, scale)) < 0 ||
        iset_steal(I, r, "_build_strategy", a[1] ? d2_incref(a[1]) : d2_none(I)) < 0 ||
        iset_steal(I, r, "_exec_strategy", a[2] ? d2_incref(a[2]) : d2_none(I)) < 0 ||
        iset_steal(I, r, "_share_vars_from", share ? d2_incref(share) : d2_none(I)) < 0 ||
        iset_steal(I, r, "_devices", on_devices ? d2_incref(places) : d2_none(I)) < 0) {
        d2_decref(r);
        return NULL;
    }
    return r;
}

/* share_vars_from: the persistable variables of s take the data of the same-named ones of the
 * program `from` runs (which must have run, as in Paddle), so both read and update one copy.
 * 0, or -1 with an exception. */
static int share_vars(d2_interp *I, sprog *s, d2_obj *from)
{
    sprog *o = d2_static_sprog_of(I, iget(I, from, "_program"));
    if (!o || !o->dp_ran || !o->p) {
        d2_raise(I, "ValueError",
                 "The shared Program is not compiled and executed, so there is no variables to "
                 "share.");
        return -1;
    }
    if (o == s)
        return 0;
    bool changed = false;
    for (int v = 0; v < s->p->n_vars; v++) {
        d2_var *dv = &s->p->vars[v];
        if (!dv->persistable || !dv->data)
            continue;
        int w = d2_program_find_var(o->p, dv->name);
        d2_tensor *src = w >= 0 && o->p->vars[w].persistable ? o->p->vars[w].data : NULL;
        if (!src || src == dv->data)
            continue;
        d2_shape a, b;
        d2_tensor_get_shape(src, &a);
        d2_tensor_get_shape(dv->data, &b);
        if (src->dtype != dv->data->dtype || !d2_shape_equal(&a, &b)) {
            d2_raise(I, "ValueError",
                     "CompiledProgram: share_vars_from: variable '%s' differs in type between "
                     "the two programs",
                     dv->name);
            return -1;
        }
        d2_tensor_unref(dv->data);
        dv->data = d2_tensor_ref(src);
        changed = true;
    }
    if (changed) {
        d2_exec_free(s->pp);
        s->pp = NULL;
    }
    return 0;
}

/* One replica's run, on its own thread. */
typedef struct replica {
    d2_prepared *pp;
    d2_tensor **in;
    int n_in;
    d2_tensor **out;
    int n_out;
    d2_run_limits lim;
    bool limited;
    d2_err err;
    int rc;
    int threads; /* exec_strategy.num_threads shared out: GEMM/conv threads (0: default) */
} replica;

static void *replica_main(void *arg)
{
    replica *r = arg;
    int saved = d2_gemm_set_run_threads(r->threads);
    r->rc = r->limited ? d2_exec_run_limited(r->pp, &r->lim, r->in, r->n_in, r->out, r->n_out,
                                             &r->err)
                       : d2_exec_run(r->pp, r->in, r->n_in, r->out, r->n_out, &r->err);
    d2_gemm_set_run_threads(saved);
    return NULL;
}

/* Runs the n replicas at once (replica 0 on this thread), sharing `threads` GEMM/conv threads
 * out among them (at least one each; 0: each the default); 0, or -1 with the first failing
 * replica's error raised. */
static int run_replicas(d2_interp *I, replica *reps, int n, int threads)
{
    pthread_t *th = d2_calloc((size_t)n + 1, sizeof *th);
    bool *started = d2_calloc((size_t)n + 1, sizeof *started);
    if (!th || !started) {
        d2_free(th);
        d2_free(started);
        nomem(I);
        return -1;
    }
    double deadline = 0;
    if (I->opt.timeout_s > 0) {
        deadline = d2_interp_deadline(I);
        if (!(deadline > 0))
            deadline = d2_monotonic_s() + I->opt.timeout_s;
    }
    for (int r = 0; r < n; r++) {
        reps[r].limited = I->opt.timeout_s > 0;
        reps[r].lim.timeout_s = I->opt.timeout_s;
        reps[r].lim.deadline = deadline;
        reps[r].threads = threads > 0 ? (threads / n > 0 ? threads / n : 1) : 0;
    }
    for (int r = 1; r < n; r++)
        started[r] = pthread_create(&th[r], NULL, replica_main, &reps[r]) == 0;
    replica_main(&reps[0]);
    for (int r = 1; r < n; r++) {
        if (started[r])
            pthread_join(th[r], NULL);
        else
            replica_main(&reps[r]); /* no thread to be had: run it here */
    }
    d2_free(th);
    d2_free(started);
    for (int r = 0; r < n; r++)
        if (reps[r].rc < 0) {
            d2_raise(I, "RuntimeError", "Executor.run: data-parallel replica %d of %d: %s", r, n,
                     reps[r].err.msg[0] ? reps[r].err.msg : "failed");
            return -1;
        }
    return 0;
}

/* Row r's share of a batch of b rows split n ways: the first b % n replicas take one more row,
 * as Paddle's SplitLoDTensor. */
static void split_rows(int64_t b, int n, int r, int64_t *off, int64_t *cnt)
{
    int64_t step = b / n, rem = b % n;
    *cnt = step + (r < rem ? 1 : 0);
    *off = step * r + (r < rem ? r : rem);
}

/* Rows [off, off + cnt) of contiguous CPU tensor t, a new tensor. */
static d2_tensor *rows_of(d2_tensor *t, int64_t off, int64_t cnt, d2_err *err)
{
    int64_t shape[D2_MAX_DIMS];
    memcpy(shape, t->shape, sizeof shape);
    int64_t row = 1;
    for (int d = 1; d < t->ndim; d++)
        row *= t->shape[d];
    shape[0] = cnt;
    const char *base = d2_tensor_data(t);
    size_t es = d2_dtype_size(t->dtype);
    return d2_tensor_from_data(t->dtype, t->ndim, shape, base + (size_t)(off * row) * es, err);
}

/* The replicas' values of one variable merged along dim 0 (0-d values stacked into shape
 * [n]), as Paddle's return_merged=True. NULL with err set. */
static d2_tensor *merge(d2_tensor **vals, int n, const char *name, d2_err *err)
{
    d2_tensor **h = d2_calloc((size_t)n + 1, sizeof *h);
    d2_tensor *r = NULL;
    if (!h) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    int64_t rows = 0;
    for (int k = 0; k < n; k++) {
        d2_tensor *t = vals[k];
        if (t->storage && t->storage->backend != d2_cpu_backend())
            h[k] = d2_tensor_copy_to(t, NULL, err);
        else
            h[k] = d2_tensor_contiguous(t, err);
        if (!h[k])
            goto done;
        bool same = h[k]->dtype == h[0]->dtype && h[k]->ndim == h[0]->ndim;
        for (int d = 1; same && d < h[k]->ndim; d++)
            same = h[k]->shape[d] == h[0]->shape[d];
        if (!same || h[k]->kind != D2_VALUE_TENSOR) {
            d2_err_set(err, D2_ERR_INVALID,
                       "Executor.run: the data-parallel replicas' values of '%s' cannot be "
                       "merged along dim 0 (replica %d's type differs from replica 0's)",
                       name, k);
            goto done;
        }
        rows += h[k]->ndim ? h[k]->shape[0] : 1;
    }
    int64_t shape[D2_MAX_DIMS];
    int ndim = h[0]->ndim ? h[0]->ndim : 1;
    memcpy(shape, h[0]->shape, sizeof shape);
    shape[0] = rows;
    if (!(r = d2_tensor_new(NULL, h[0]->dtype, ndim, shape, err)))
        goto done;
    char *dst = d2_tensor_data(r);
    size_t es = d2_dtype_size(r->dtype);
    for (int k = 0; k < n; k++) {
        size_t nb = (size_t)d2_tensor_numel(h[k]) * es;
        if (nb)
            memcpy(dst, d2_tensor_data(h[k]), nb);
        dst += nb;
    }
done:
    for (int k = 0; k < n; k++)
        d2_tensor_unref(h[k]);
    d2_free(h);
    return r;
}

/* The sum of the replicas' gradients vals[0..n), times scale: a new CPU tensor. */
static d2_tensor *reduce_grad(d2_tensor **vals, int n, double scale, const char *name,
                              d2_err *err)
{
    d2_tensor *acc = d2_tensor_copy_to(vals[0], NULL, err);
    if (!acc)
        return NULL;
    if (acc->dtype != D2_F32 && acc->dtype != D2_F64) {
        d2_tensor_unref(acc);
        d2_err_set(err, D2_ERR_UNSUPPORTED,
                   "Executor.run: data parallel reduces float32 and float64 gradients; '%s' is "
                   "%s",
                   name, d2_dtype_name(vals[0]->dtype));
        return NULL;
    }
    int64_t m = d2_tensor_numel(acc);
    for (int k = 1; k < n; k++) {
        d2_tensor *h = vals[k]->storage && vals[k]->storage->backend != d2_cpu_backend()
                           ? d2_tensor_copy_to(vals[k], NULL, err)
                           : d2_tensor_contiguous(vals[k], err);
        if (!h || d2_tensor_numel(h) != m || h->dtype != acc->dtype) {
            if (h)
                d2_err_set(err, D2_ERR_INVALID,
                           "Executor.run: replica %d's gradient '%s' differs in type from "
                           "replica 0's",
                           k, name);
            d2_tensor_unref(h);
            d2_tensor_unref(acc);
            return NULL;
        }
        if (acc->dtype == D2_F32) {
            float *a = d2_tensor_data(acc);
            const float *b = d2_tensor_data(h);
            for (int64_t i = 0; i < m; i++)
                a[i] += b[i];
        } else {
            double *a = d2_tensor_data(acc);
            const double *b = d2_tensor_data(h);
            for (int64_t i = 0; i < m; i++)
                a[i] += b[i];
        }
        d2_tensor_unref(h);
    }
    if (scale != 1.0) {
        if (acc->dtype == D2_F32) {
            float *a = d2_tensor_data(acc);
            for (int64_t i = 0; i < m; i++)
                a[i] = (float)(a[i] * scale);
        } else {
            double *a = d2_tensor_data(acc);
            for (int64_t i = 0; i < m; i++)
                a[i] *= scale;
        }
    }
    return acc;
}

/* Frees ops [from, to) of block 0 of q. */
static void drop_ops(d2_program *q, int from, int to)
{
    d2_block *b0 = &q->blocks[0];
    for (int k = from; k < to; k++) {
        d2_free(b0->ops[k].in);
        d2_free(b0->ops[k].out);
        d2_attrs_free(&b0->ops[k].attrs);
    }
    memmove(b0->ops + from, b0->ops + to, sizeof *b0->ops * (size_t)(b0->n_ops - to));
    b0->n_ops -= to - from;
}

static int index_in(const int *v, int n, int x)
{
    for (int k = 0; k < n; k++)
        if (v[k] == x)
            return k;
    return -1;
}

/* The prepared replica and update Programs of a data-parallel run: built on the first run and
 * kept in the Program's dp_cache (its ext) for later runs with the same fetch list, replicas
 * and devices while the Program stays as it was (d2_static_run_cache_hit). */
typedef struct dp_prep {
    int n;              /* replicas */
    int cut;            /* p's op from which the optimizer update runs (n_ops: none) */
    bool train;
    d2_program *rq;     /* the replica Program: forward and backward */
    int *need, n_need;  /* rq's inputs (feed variables) */
    int n_be;           /* the distinct devices of the replicas */
    d2_backend **be;
    d2_prepared **rpp;  /* rq prepared for be[k] */
    int *rep_be;        /* per replica: its index into be */
    d2_program *uq;     /* the update Program: the optimizer ops on the reduced gradients */
    d2_backend *ube;
    d2_prepared *upp;
} dp_prep;

static void prep_free(void *v)
{
    dp_prep *x = v;
    if (!x)
        return;
    for (int k = 0; x->rpp && k < x->n_be; k++)
        d2_exec_free(x->rpp[k]);
    d2_exec_free(x->upp);
    d2_free(x->rpp);
    d2_free(x->be);
    d2_free(x->rep_be);
    d2_free(x->need);
    d2_program_free(x->rq);
    d2_program_free(x->uq);
    d2_free(x);
}

/* The state of one data-parallel Executor.run (everything it owns but prep when cached). */
typedef struct dp_run {
    int n;              /* replicas */
    int *vars, nf;      /* fetched variables */
    int *def;           /* per variable of p: defining op of block 0, -1 none */
    dp_prep *prep;
    bool prep_owned;    /* prep is not in the cache: freed with the run */
    d2_tensor **full;   /* the whole feed of each input */
    replica *reps;
    d2_tensor **gin, **uout;
    int n_gin, n_uout;
    d2_tensor **res;
} dp_run;

static void dp_free(dp_run *d)
{
    for (int r = 0; d->reps && r < d->n; r++) {
        for (int k = 0; k < d->reps[r].n_in; k++)
            d2_tensor_unref(d->reps[r].in[k]);
        for (int k = 0; d->reps[r].out && k < d->reps[r].n_out; k++)
            d2_tensor_unref(d->reps[r].out[k]);
        d2_free(d->reps[r].in);
        d2_free(d->reps[r].out);
    }
    d2_free(d->reps);
    for (int k = 0; d->full && d->prep && k < d->prep->n_need; k++)
        d2_tensor_unref(d->full[k]);
    for (int k = 0; d->gin && k < d->n_gin; k++)
        d2_tensor_unref(d->gin[k]);
    for (int k = 0; d->uout && k < d->n_uout; k++)
        d2_tensor_unref(d->uout[k]);
    for (int k = 0; d->res && k < d->nf; k++)
        d2_tensor_unref(d->res[k]);
    d2_free(d->full);
    d2_free(d->gin);
    d2_free(d->uout);
    d2_free(d->res);
    d2_free(d->vars);
    d2_free(d->def);
    if (d->prep_owned)
        prep_free(d->prep);
}

/* q prepared for backend be: through the Program's passes on the CPU; as it is on a device,
 * whose uploaded parameters refresh_params replaces before later runs (so variable numbers
 * stay q's). NULL with err set. */
static d2_prepared *prepare_on(const sprog *s, const d2_program *q, d2_backend *be, d2_err *err)
{
    if (be->kind == D2_BACKEND_CPU)
        return d2_passes_prepare(q, s->passes, be, err);
    return d2_exec_prepare(q, be, err);
}

/* A device-prepared pp of q keeps the copies of the persistables it uploaded; the host values
 * have changed since (the optimizer update, the learning rate): upload them again. */
static int refresh_params(d2_prepared *pp, const d2_program *q, d2_backend *be, d2_err *err)
{
    if (be->kind == D2_BACKEND_CPU)
        return 0; /* a CPU Program reads the host tensors themselves */
    for (int v = 0; v < q->n_vars; v++) {
        const d2_var *dv = &q->vars[v];
        if (!dv->persistable || !dv->data || dv->data->kind != D2_VALUE_TENSOR)
            continue;
        d2_tensor *t = d2_tensor_copy_to(dv->data, be, err);
        int rc = t ? d2_exec_bind_param(pp, v, t, err) : -1;
        d2_tensor_unref(t);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Builds and prepares the replica Program: p's block 0 up to op `cut`, yielding the fetched
 * variables it computes, the gradients (train) and the forward write-backs, reading only the
 * feeds its ops read; prepared once per distinct device of bes (n entries). -1 with an
 * exception or err set. */
static int build_replica(d2_interp *I, sprog *s, dp_run *d, d2_backend **bes, d2_err *err)
{
    const d2_program *p = s->p;
    dp_prep *x = d->prep;
    int cut = x->cut;
    if (!(x->rq = d2_program_clone(p, err)))
        return -1;
    d2_block *qb = &x->rq->blocks[0];
    drop_ops(x->rq, cut, qb->n_ops);
    qb->n_yields = 0;
    for (int i = 0; i < d->nf; i++) {
        int v = d->vars[i];
        if (p->vars[v].persistable || index_in(qb->params, qb->n_params, v) >= 0)
            continue;
        if (d->def[v] >= cut) {
            d2_raise(I, "ValueError",
                     "Executor.run: fetch_list[%d]: '%s' is computed by the optimizer update, "
                     "which a data-parallel run does not fetch",
                     i, p->vars[v].name);
            return -1;
        }
        if (index_in(qb->yields, qb->n_yields, v) < 0 && d2_block_add_yield(x->rq, 0, v, err) < 0)
            return -1;
    }
    for (int k = 0; x->train && k < s->n_grads; k++)
        if (index_in(qb->yields, qb->n_yields, s->grads[k]) < 0 &&
            d2_block_add_yield(x->rq, 0, s->grads[k], err) < 0)
            return -1;
    for (int k = 0; k < s->n_wb; k++) {
        int src = s->wb[2 * k + 1];
        if (d->def[src] >= 0 && d->def[src] < cut &&
            index_in(qb->yields, qb->n_yields, src) < 0 &&
            d2_block_add_yield(x->rq, 0, src, err) < 0)
            return -1;
    }
    if (d2_static_prune_dead(I, x->rq) < 0 || d2_pass_compact(x->rq, false, err) < 0)
        return -1;
    if (!(x->need = d2_calloc((size_t)qb->n_params + 1, sizeof *x->need))) {
        nomem(I);
        return -1;
    }
    for (int k = 0; k < qb->n_params; k++) {
        int v = qb->params[k];
        if (index_in(d->vars, d->nf, v) >= 0 || d2_static_var_read(x->rq, v))
            x->need[x->n_need++] = v;
    }
    qb->n_params = 0;
    for (int j = 0; j < x->n_need; j++)
        if (d2_block_add_param(x->rq, 0, x->need[j], err) < 0)
            return -1;
    if (d2_program_verify(x->rq, err) < 0)
        return -1;
    x->be = d2_calloc((size_t)d->n + 1, sizeof *x->be);
    x->rpp = d2_calloc((size_t)d->n + 1, sizeof *x->rpp);
    x->rep_be = d2_calloc((size_t)d->n + 1, sizeof *x->rep_be);
    if (!x->be || !x->rpp || !x->rep_be) {
        nomem(I);
        return -1;
    }
    for (int r = 0; r < d->n; r++) {
        int k = 0;
        while (k < x->n_be && x->be[k] != bes[r])
            k++;
        if (k == x->n_be) {
            x->be[k] = bes[r];
            if (!(x->rpp[k] = prepare_on(s, x->rq, bes[r], err)))
                return -1;
            x->n_be++;
        }
        x->rep_be[r] = k;
    }
    return 0;
}

/* Splits every feed into the replicas' inputs. -1 with an exception. */
static int split_feeds(d2_interp *I, dp_run *d, d2_obj *feed, d2_err *err)
{
    const dp_prep *x = d->prep;
    const d2_program *q = x->rq;
    if (!(d->full = d2_calloc((size_t)x->n_need + 1, sizeof *d->full))) {
        nomem(I);
        return -1;
    }
    for (int r = 0; r < d->n; r++) {
        replica *rp = &d->reps[r];
        rp->pp = x->rpp[x->rep_be[r]];
        rp->n_out = q->blocks[0].n_yields;
        rp->in = d2_calloc((size_t)x->n_need + 1, sizeof *rp->in);
        rp->out = d2_calloc((size_t)rp->n_out + 1, sizeof *rp->out);
        if (!rp->in || !rp->out) {
            nomem(I);
            return -1;
        }
    }
    for (int j = 0; j < x->n_need; j++) {
        const d2_var *var = &q->vars[x->need[j]];
        d2_obj *v = feed ? d2_dict_get_str(I, D2_AS(d2_dict, feed), var->name) : NULL;
        if (!v) {
            d2_raise(I, "ValueError",
                     "Executor.run: no feed for the program's input '%s', which its operations "
                     "read",
                     var->name);
            return -1;
        }
        d2_tensor *t = d2_static_feed_tensor(I, var, v);
        if (!t)
            return -1;
        d->full[j] = d2_tensor_contiguous(t, err);
        d2_tensor_unref(t);
        if (!d->full[j])
            return -1;
        d2_tensor *f = d->full[j];
        if (d->n == 1) { /* one replica (fleet's per-process run): the feed as it is */
            d->reps[0].in[j] = d2_tensor_ref(f);
            d->reps[0].n_in = j + 1;
            continue;
        }
        if (f->ndim == 0 || f->shape[0] < d->n) {
            d2_raise(I, "ValueError",
                     "Executor.run: the number (%lld) of samples in feed['%s'] is less than the "
                     "count (%d) of data-parallel places: every place needs at least one sample",
                     (long long)(f->ndim ? f->shape[0] : 0), var->name, d->n);
            return -1;
        }
        if (var->type.shape.ndim > 0 && var->type.shape.dims[0] >= 0) {
            d2_raise(I, "ValueError",
                     "Executor.run: data parallel splits feed['%s'] along dim 0 over %d places, "
                     "but the program declares that dim as %lld: declare it None (-1)",
                     var->name, d->n, (long long)var->type.shape.dims[0]);
            return -1;
        }
        for (int r = 0; r < d->n; r++) {
            int64_t off, cnt;
            split_rows(f->shape[0], d->n, r, &off, &cnt);
            if (!(d->reps[r].in[j] = rows_of(f, off, cnt, err)))
                return -1;
            d->reps[r].n_in = j + 1;
        }
    }
    return 0;
}

/* Builds and prepares the update Program: p's ops from `cut` on, reading the gradients as its
 * inputs and yielding the optimizer's write-backs. -1 with an exception or err set. */
static int build_update(d2_interp *I, sprog *s, dp_run *d, d2_err *err)
{
    dp_prep *x = d->prep;
    if (!(x->uq = d2_program_clone(s->p, err)))
        return -1;
    d2_block *ub = &x->uq->blocks[0];
    drop_ops(x->uq, 0, x->cut);
    ub->n_params = 0;
    ub->n_yields = 0;
    for (int k = 0; k < s->n_grads; k++)
        if (d2_block_add_param(x->uq, 0, s->grads[k], err) < 0)
            return -1;
    for (int k = 0; k < s->n_wb; k++) {
        int src = s->wb[2 * k + 1];
        if (d->def[src] >= x->cut && index_in(ub->yields, ub->n_yields, src) < 0 &&
            d2_block_add_yield(x->uq, 0, src, err) < 0)
            return -1;
    }
    if (d2_static_prune_dead(I, x->uq) < 0 || d2_pass_compact(x->uq, false, err) < 0 ||
        d2_program_verify(x->uq, err) < 0)
        return -1;
    x->ube = D2_MODE(I)->backend ? D2_MODE(I)->backend : d2_cpu_backend();
    return (x->upp = prepare_on(s, x->uq, x->ube, err)) ? 0 : -1;
}

/* Runs the update Program on the reduced gradients gin and writes its results back into the
 * parameters and optimizer states. -1 with an exception or err set. */
static int run_update(d2_interp *I, sprog *s, dp_run *d, d2_err *err)
{
    const d2_block *ub = &d->prep->uq->blocks[0];
    d->n_uout = ub->n_yields;
    if (!(d->uout = d2_calloc((size_t)d->n_uout + 1, sizeof *d->uout))) {
        nomem(I);
        return -1;
    }
    if (d2_jit_exec_run(I, d->prep->upp, d->gin, d->n_gin, d->uout, d->n_uout, err) < 0)
        return -1;
    for (int k = 0; k < s->n_wb; k++) {
        const d2_var *dv = &s->p->vars[s->wb[2 * k]];
        int y = index_in(ub->yields, ub->n_yields, s->wb[2 * k + 1]);
        if (y >= 0 && dv->data &&
            d2_static_write_persistable(dv->data, d->uout[y], dv->name, err) < 0)
            return -1;
    }
    return 0;
}

/* Averages the reduced gradients d->gin over the processes of the world (fleet's collective
 * training), packed into one all_reduce per dtype. On the first such run every rank first takes
 * rank 0's persistable variables, as fleet's startup broadcast. -1 with an exception. */
static int cross_process(d2_interp *I, sprog *s, dp_run *d, d2_err *err)
{
    const char *what = "fleet.distributed_optimizer: gradient all_reduce";
    if (!s->dist_synced) {
        for (int v = 0; v < s->p->n_vars; v++) {
            d2_var *dv = &s->p->vars[v];
            if (!dv->persistable || !dv->data)
                continue;
            d2_tensor *h = d2_tensor_copy_to(dv->data, NULL, err);
            d2_shape sh;
            if (!h)
                return -1;
            d2_tensor_get_shape(h, &sh);
            int rc = d2_dist_broadcast(0, "fleet: broadcast of the parameters", d2_tensor_data(h),
                                       &sh, h->dtype, 0, err);
            if (rc == 0)
                rc = d2_static_write_persistable(dv->data, h, dv->name, err);
            d2_tensor_unref(h);
            if (rc < 0)
                return -1;
        }
        s->dist_synced = true;
    }
    for (int pass = 0; pass < 2; pass++) {
        d2_dtype dt = pass == 0 ? D2_F32 : D2_F64;
        size_t es = d2_dtype_size(dt);
        int64_t total = 0;
        for (int k = 0; k < d->n_gin; k++)
            if (d->gin[k]->dtype == dt)
                total += d2_tensor_numel(d->gin[k]);
        if (total == 0)
            continue;
        char *buf = d2_malloc((size_t)total * es);
        if (!buf) {
            nomem(I);
            return -1;
        }
        size_t off = 0;
        for (int k = 0; k < d->n_gin; k++)
            if (d->gin[k]->dtype == dt) {
                size_t nb = (size_t)d2_tensor_numel(d->gin[k]) * es;
                memcpy(buf + off, d2_tensor_data(d->gin[k]), nb);
                off += nb;
            }
        d2_shape sh = {1, {total}};
        int rc = d2_dist_all_reduce(0, what, buf, &sh, dt, D2_RED_AVG, err);
        off = 0;
        for (int k = 0; rc == 0 && k < d->n_gin; k++)
            if (d->gin[k]->dtype == dt) {
                size_t nb = (size_t)d2_tensor_numel(d->gin[k]) * es;
                memcpy(d2_tensor_data(d->gin[k]), buf + off, nb);
                off += nb;
            }
        d2_free(buf);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* How one run goes: n replicas; gradients scaled by scale after summing; merged fetches (a
 * CompiledProgram) or replica 0's as they are (fleet's plain Executor.run). */
typedef struct dp_opts {
    int n;
    double scale;
    bool merge;
    d2_obj *share;   /* share_vars_from, or NULL */
    d2_backend **be; /* each replica's device; NULL: all on the interpreter's */
    int threads;     /* exec_strategy.num_threads (0: the default) */
} dp_opts;

/* Whether cached replicas x run n replicas on devices be (NULL: all on def). */
static bool same_devices(const dp_prep *x, int n, d2_backend **be, d2_backend *def)
{
    if (!x || x->n != n)
        return false;
    for (int r = 0; r < n; r++)
        if (x->be[x->rep_be[r]] != (be ? be[r] : def))
            return false;
    return true;
}

/* d->prep: the cached replica and update Programs when still valid for this run, else new ones
 * (put in the cache when the Program trains). -1 with an exception or err set. */
static int get_prep(d2_interp *I, sprog *s, dp_run *d, const dp_opts *o, int cut, bool train,
                    d2_err *err)
{
    d2_backend *def = D2_MODE(I)->backend ? D2_MODE(I)->backend : d2_cpu_backend();
    struct sprog_run_cache *c = &s->dp_cache;
    dp_prep *x = c->ext;
    if (d2_static_run_cache_hit(s, c, d->vars, d->nf) && same_devices(x, d->n, o->be, def) &&
        x->cut == cut && x->train == train &&
        (!x->uq || x->ube == def)) {
        d->prep = x;
        for (int k = 0; k < x->n_be; k++)
            if (refresh_params(x->rpp[k], x->rq, x->be[k], err) < 0)
                return -1;
        return x->upp ? refresh_params(x->upp, x->uq, x->ube, err) : 0;
    }
    d2_backend **bes = d2_calloc((size_t)d->n + 1, sizeof *bes);
    if (!bes || !(d->prep = x = d2_calloc(1, sizeof *x))) {
        d2_free(bes);
        nomem(I);
        return -1;
    }
    d->prep_owned = true;
    x->n = d->n;
    x->cut = cut;
    x->train = train;
    for (int r = 0; r < d->n; r++)
        bes[r] = o->be && o->be[r] ? o->be[r] : def;
    int rc = build_replica(I, s, d, bes, err);
    d2_free(bes);
    if (rc < 0 || (train && build_update(I, s, d, err) < 0))
        return -1;
    /* as run_cache: only a training Program, whose passes fold no parameter (those of an
     * evaluation Program may fold parameters that a training Program sharing them updates) */
    if (!s->n_wb)
        return 0;
    d2_static_run_cache_clear(c);
    if (d2_static_run_cache_key(s, c, d->vars, d->nf) == 0) {
        c->ext = x; /* the replica and update Programs (q and qp stay NULL) */
        c->ext_free = prep_free;
        d->prep_owned = false;
    }
    return 0;
}

static d2_obj *run_dp(d2_interp *I, sprog *s, const dp_opts *o, d2_obj *feed, d2_obj **fitems,
                      size_t nfl, bool ret_np)
{
    if (!s->p) {
        if (nfl == 0)
            return d2_list_new(I, 0);
        return d2_raise(I, "ValueError", "Executor.run: the program is empty, there is nothing "
                                         "to fetch");
    }
    if (o->share && share_vars(I, s, o->share) < 0)
        return NULL;
    if (d2_static_apply_lr(I, s) < 0)
        return NULL;
    const d2_program *p = s->p;
    const d2_block *b0 = &p->blocks[0];
    dp_run d = {0};
    d.n = o->n;
    d2_err err = {0};
    d2_obj *r = NULL;
    bool all_yields = nfl == 0 && !s->b; /* a loaded Program without fetch_list: its outputs */
    d.nf = all_yields ? b0->n_yields : (int)nfl;
    d.vars = d2_calloc((size_t)d.nf + 1, sizeof *d.vars);
    d.def = d2_calloc((size_t)p->n_vars + 1, sizeof *d.def);
    d.res = d2_calloc((size_t)d.nf + 1, sizeof *d.res);
    d.reps = d2_calloc((size_t)d.n + 1, sizeof *d.reps);
    if (!d.vars || !d.def || !d.res || !d.reps) {
        nomem(I);
        goto done;
    }
    for (int v = 0; v < p->n_vars; v++)
        d.def[v] = -1;
    for (int k = 0; k < b0->n_ops; k++)
        for (int o = 0; o < b0->ops[k].n_out; o++)
            if (b0->ops[k].out[o] >= 0)
                d.def[b0->ops[k].out[o]] = k;
    for (int i = 0; i < d.nf; i++)
        if ((d.vars[i] = all_yields ? b0->yields[i]
                                    : d2_static_fetch_var(I, s, fitems[i], (size_t)i)) < 0)
            goto done;
    /* a training Program: forward and backward on the replicas, the update once */
    bool train = s->has_backward && s->n_wb > 0 && s->n_grads > 0 && s->bwd_ops <= b0->n_ops;
    int cut = train ? s->bwd_ops : b0->n_ops;
    if (get_prep(I, s, &d, o, cut, train, &err) < 0 || split_feeds(I, &d, feed, &err) < 0)
        goto fail;
    if (run_replicas(I, d.reps, d.n, o->threads) < 0)
        goto done;
    const d2_block *rb = &d.prep->rq->blocks[0];
    if (train) {
        double sc = o->scale;
        if (!(d.gin = d2_calloc((size_t)s->n_grads + 1, sizeof *d.gin))) {
            nomem(I);
            goto done;
        }
        d2_tensor **vals = d2_calloc((size_t)d.n + 1, sizeof *vals);
        if (!vals) {
            nomem(I);
            goto done;
        }
        for (int k = 0; k < s->n_grads; k++) {
            int y = index_in(rb->yields, rb->n_yields, s->grads[k]);
            for (int rr = 0; rr < d.n; rr++)
                vals[rr] = d.reps[rr].out[y];
            if (!(d.gin[k] = reduce_grad(vals, d.n, sc, p->vars[s->grads[k]].name, &err))) {
                d2_free(vals);
                goto fail;
            }
            d.n_gin = k + 1;
        }
        d2_free(vals);
        /* forward write-backs (batch_norm's running statistics): replica 0's */
        for (int k = 0; k < s->n_wb; k++) {
            const d2_var *dv = &p->vars[s->wb[2 * k]];
            int y = index_in(rb->yields, rb->n_yields, s->wb[2 * k + 1]);
            if (y >= 0 && dv->data &&
                d2_static_write_persistable(dv->data, d.reps[0].out[y], dv->name, &err) < 0)
                goto fail;
        }
        if (s->collective && d2_dist_size(0) > 1 && cross_process(I, s, &d, &err) < 0)
            goto fail;
        if (run_update(I, s, &d, &err) < 0)
            goto fail;
    }
    s->dp_ran = true;
    /* fetches: persistables after the update, feeds whole, the rest merged */
    d2_tensor **vals = d2_calloc((size_t)d.n + 1, sizeof *vals);
    if (!vals) {
        nomem(I);
        goto done;
    }
    for (int i = 0; i < d.nf; i++) {
        const d2_var *v = &p->vars[d.vars[i]];
        int pi = index_in(d.prep->need, d.prep->n_need, d.vars[i]);
        int y = index_in(rb->yields, rb->n_yields, d.vars[i]);
        if (v->persistable && v->data)
            d.res[i] = d2_tensor_copy_to(v->data, NULL, &err);
        else if (pi >= 0)
            d.res[i] = d2_tensor_copy_to(d.full[pi], NULL, &err);
        else if (y >= 0) {
            for (int rr = 0; rr < d.n; rr++)
                vals[rr] = d.reps[rr].out[y];
            d.res[i] = o->merge ? merge(vals, d.n, v->name, &err)
                                : d2_tensor_copy_to(vals[0], NULL, &err);
        } else {
            d2_raise(I, "RuntimeError", "Executor.run: '%s' has no data", v->name);
            d2_free(vals);
            goto done;
        }
        if (!d.res[i]) {
            d2_free(vals);
            goto fail;
        }
    }
    d2_free(vals);
    r = d2_list_new(I, (size_t)d.nf);
    for (int i = 0; r && i < d.nf; i++) {
        d2_obj *o = ret_np ? d2_ndarray_wrap(I, d.res[i]) : d2_tensor_wrap(I, d.res[i]);
        D2_AS(d2_list, r)->items[i] = o;
        if (!o)
            d2_setref(&r, NULL);
    }
    goto done;
fail:
    if (!d2_exc_pending(I)) {
        if (err.code)
            d2_raise_err(I, &err);
        else
            nomem(I);
    }
done:
    dp_free(&d);
    return r;
}

d2_obj *d2_static_run_parallel(d2_interp *I, d2_obj *cp, d2_obj *feed, d2_obj **fitems,
                               size_t nfl, bool ret_np)
{
    sprog *s = d2_static_sprog_of(I, iget(I, cp, "_program"));
    int64_t n = 0, scale = 0;
    if (!s || d2_to_int64(I, iget(I, cp, "_places"), "places", &n) < 0 ||
        d2_to_int64(I, iget(I, cp, "_scale"), "gradient_scale_strategy", &scale) < 0) {
        if (!d2_exc_pending(I))
            d2_raise(I, "TypeError", "Executor.run: a malformed data-parallel CompiledProgram");
        return NULL;
    }
    d2_obj *share = iget(I, cp, "_share_vars_from"), *ln = iget(I, cp, "_loss_name");
    d2_obj *devs = iget(I, cp, "_devices");
    dp_opts o = {(int)n, 1.0, true, share && share->kind != D2_OBJ_NONE ? share : NULL, NULL, 0};
    int64_t threads = 0;
    if (strategy_int(I, iget(I, cp, "_exec_strategy"), "num_threads", 0, &threads) < 0)
        return NULL;
    if (threads < 0 || threads > 4096)
        return d2_raise(I, "ValueError",
                        "Executor.run: exec_strategy.num_threads must be 0 (the default) to "
                        "4096, got %lld",
                        (long long)threads);
    o.threads = (int)threads;
    /* without a loss_name Paddle inserts no loss-gradient scaling: the gradients add up */
    if (scale == SCALE_COEFF_NUM_DEVICE && ln && ln->kind != D2_OBJ_NONE)
        o.scale = 1.0 / (double)n;
    size_t nd = 0;
    d2_obj **it = devs && is_seq(devs) ? d2_jit_seq_items(devs, &nd) : NULL;
    if (it && nd == (size_t)n) {
        if (!(o.be = d2_calloc(nd + 1, sizeof *o.be)))
            return nomem(I);
        for (size_t i = 0; i < nd; i++) {
            d2_err err = {0};
            if (it[i]->kind == D2_OBJ_STR && !(o.be[i] = d2_backend_from_name(cstr(it[i]), &err))) {
                d2_free(o.be);
                return d2_raise(I, "ValueError", "Executor.run: data-parallel place %zu: %s", i,
                                err.msg);
            }
        }
    }
    d2_obj *r = run_dp(I, s, &o, feed, fitems, nfl, ret_np);
    d2_free(o.be);
    return r;
}

bool d2_static_is_collective(const sprog *s)
{
    return s && s->collective && d2_dist_size(0) > 1;
}

d2_obj *d2_static_run_collective(d2_interp *I, sprog *s, d2_obj *feed, d2_obj **fitems,
                                 size_t nfl, bool ret_np)
{
    dp_opts o = {1, 1.0, false, NULL, NULL, 0};
    return run_dp(I, s, &o, feed, fitems, nfl, ret_np);
}

/* paddle.static._collective(loss): after fleet.distributed_optimizer(opt).minimize(loss), every
 * Executor.run of loss's Program averages its gradients over the ranks of the world before the
 * update. */
D2_FN(S_collective)
{
    st_state *st = SS(I);
    d2_builder *b = is_tensor(a[0]) && !TOBJ(a[0])->t ? TOBJ(a[0])->builder : NULL;
    sprog *s = st->built;
    while (s && (!b || s->b != b))
        s = s->next;
    if (!s)
        return d2_raise(I, "TypeError",
                        "fleet.distributed_optimizer: minimize needs a loss Variable of a static "
                        "Program, got %s",
                        d2_type_name(a[0]));
    d2_err err = {0};
    if (d2_dist_init(&err) < 0)
        return d2_raise_err(I, &err);
    s->collective = true;
    return d2_none(I);
}

int d2_static_parallel_init(d2_interp *I, st_state *s)
{
    static const d2_def defs[] = {
        D2_DEF("with_data_parallel",
               "loss_name=None, build_strategy=None, exec_strategy=None, share_vars_from=None, "
               "places=None",
               CP_with_data_parallel, "CompiledProgram.with_data_parallel"),
    };
    /* CompiledProgram(program) is the Program itself (static_api.c), so the method is the
     * Program's too */
    static const d2_def st_defs[] = {
        D2_DEF("_collective", "loss", S_collective, "paddle.static._collective"),
    };
    if (d2_class_add_defs(I, s->prog_cls, defs, D2_COUNTOF(defs), 0) < 0 ||
        d2_class_add_defs(I, s->cp_cls, defs, D2_COUNTOF(defs), 0) < 0 ||
        d2_module_add_defs(I, s->statics, st_defs, D2_COUNTOF(st_defs)) < 0)
        return -1;
    return 0;
}
