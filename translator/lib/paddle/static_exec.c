/* static_exec.c - running and saving static Programs: Executor.run (built Programs pruned to
 * the fetched variables, loaded ones as saved), load/save_inference_model (paddle.static and
 * fluid.io), cpu_places, ProgramTranslator. */
#include "lib/paddle/static_api.h"
#include "lib/paddle/static_priv.h"

#include "exec.h"
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"
#include "model_io.h"
#include "lib/paddle/tensor_api.h"
#include "passes/passes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ======================================================================
 * Executor
 * ====================================================================== */

D2_FN(EX_init)
{
    if (iset_steal(I, self, "place", d2_incref(a[0])) < 0)
        return NULL;
    return d2_none(I);
}

D2_FN(EX_close)
{
    return d2_none(I);
}

/* The inputs of p as "x, y" into buf. */
static void input_names(const d2_program *p, char *buf, size_t n)
{
    const d2_block *b0 = &p->blocks[0];
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < b0->n_params && k < n; i++) {
        int w = snprintf(buf + k, n - k, "%s'%s'", i ? ", " : "", p->vars[b0->params[i]].name);
        if (w < 0)
            break;
        k += (size_t)w; /* past n when truncated: the loop stops */
    }
    if (b0->n_params == 0)
        snprintf(buf, n, "none");
}

/* Converts feed value v for input variable var into a CPU tensor of its
 * type: arrays and tensors must have the input's dtype and a matching shape;
 * lists and scalars are converted to the dtype. NULL with ValueError/TypeError. */
static d2_tensor *feed_tensor(d2_interp *I, const d2_var *var, d2_obj *v)
{
    d2_tensor *t;
    if (v->kind == D2_OBJ_TENSOR || v->kind == D2_OBJ_NDARRAY) {
        t = d2_pd_host(I, v, "Executor.run");
    } else if (is_seq(v) || v->kind == D2_OBJ_INT || v->kind == D2_OBJ_FLOAT ||
               v->kind == D2_OBJ_BOOL) {
        t = d2_pd_from_py(I, v, (int)var->type.dtype, D2_F32, "Executor.run");
    } else {
        d2_raise(I, "TypeError",
                 "Executor.run: feed['%s'] must be a numpy array, a Tensor or a list, got %s",
                 var->name, d2_type_name(v));
        return NULL;
    }
    if (!t)
        return NULL;
    d2_shape sh;
    d2_tensor_get_shape(t, &sh);
    bool ok = t->dtype == var->type.dtype && sh.ndim == var->type.shape.ndim;
    for (int d = 0; ok && d < sh.ndim; d++)
        ok = var->type.shape.dims[d] < 0 || var->type.shape.dims[d] == sh.dims[d];
    if (!ok) {
        char want[200], got[200];
        d2_type gt = var->type;
        gt.dtype = t->dtype;
        gt.shape = sh;
        d2_type_str(&var->type, want, sizeof want);
        d2_type_str(&gt, got, sizeof got);
        d2_raise(I, "ValueError",
                 "Executor.run: feed['%s'] is %s but the program's input '%s' is %s", var->name,
                 got, var->name, want);
        d2_tensor_unref(t);
        return NULL;
    }
    return t;
}

/* The variable a fetch_list item names (a Variable or a name); -1 with an
 * exception. */
static int fetch_var(d2_interp *I, const sprog *s, d2_obj *item, size_t i)
{
    const d2_program *p = s->p;
    int sv;
    const char *name = d2_static_item_name(I, item, s->b, &sv);
    if (sv >= 0)
        return sv;
    if (!name) {
        d2_raise(I, "TypeError",
                 "Executor.run: fetch_list[%zu] must be a Variable or a variable name, got %s", i,
                 d2_type_name(item));
        return -1;
    }
    int v = d2_program_find_var(p, name);
    if (v < 0) {
        d2_raise(I, "RuntimeError",
                 "Executor.run: fetch_list[%zu]: the program has no variable named '%s'", i, name);
        return -1;
    }
    if (!p->vars[v].persistable && p->vars[v].block != 0) {
        d2_raise(I, "ValueError",
                 "Executor.run: fetch_list[%zu]: '%s' lives inside a control-flow block and "
                 "cannot be fetched",
                 i, name);
        return -1;
    }
    return v;
}

static int yield_index(const d2_block *b, int v)
{
    for (int k = 0; k < b->n_yields; k++)
        if (b->yields[k] == v)
            return k;
    return -1;
}

/* A CPU copy (or reference) of an executor output. */
static d2_tensor *to_host(d2_tensor *t, d2_err *err)
{
    if (t->storage && t->storage->backend != d2_cpu_backend())
        return d2_tensor_copy_to(t, NULL, err);
    return d2_tensor_ref(t);
}

/* Runs p (prepared as pp when its own yields are fetched; else a copy
 * yielding the fetched variables, prepared once and kept in s->run_cache for
 * the next run with the same fetch list, as pp is) on inputs in and returns
 * the n fetched values (vars[i]) as new tensor references in res. */
static int run_fetch(d2_interp *I, sprog *s, d2_tensor **in, const int *vars, int n,
                     d2_tensor **res)
{
    const d2_program *p = s->p;
    const d2_block *b0 = &p->blocks[0];
    bool own = true, any = false;
    for (int i = 0; i < n; i++) {
        if (p->vars[vars[i]].persistable)
            continue;
        any = true;
        if (yield_index(b0, vars[i]) < 0)
            own = false;
    }
    d2_err err = {0};
    int rc = -1;
    d2_program *q = NULL;
    d2_prepared *qp = NULL;
    d2_tensor **outs = NULL;
    int n_out = 0;
    bool cached = false;
    if (any && own) {
        if (!s->pp && !(s->pp = d2_passes_prepare(p, s->passes, D2_MODE(I)->backend, &err)))
            goto fail;
        qp = s->pp;
        n_out = b0->n_yields;
    } else if (any && d2_static_run_cache_hit(s, &s->run_cache, vars, n)) {
        q = s->run_cache.q;
        qp = s->run_cache.qp;
        n_out = q->blocks[0].n_yields;
        cached = true;
    } else if (any) {
        q = d2_program_clone(p, &err);
        if (!q)
            goto fail;
        q->blocks[0].n_yields = 0;
        for (int i = 0; i < n; i++)
            if (!p->vars[vars[i]].persistable && yield_index(&q->blocks[0], vars[i]) < 0 &&
                d2_block_add_yield(q, 0, vars[i], &err) < 0)
                goto fail;
        n_out = q->blocks[0].n_yields;
        if (!(qp = d2_passes_prepare(q, s->passes, D2_MODE(I)->backend, &err)))
            goto fail;
        d2_static_run_cache_clear(&s->run_cache);
        if (d2_static_run_cache_key(s, &s->run_cache, vars, n) == 0) {
            s->run_cache.q = q;
            s->run_cache.qp = qp;
            cached = true;
        }
    }
    outs = d2_calloc((size_t)n_out + 1, sizeof *outs);
    if (!outs) {
        nomem(I);
        goto done;
    }
    if (any && d2_jit_exec_run(I, qp, in, b0->n_params, outs, n_out, &err) < 0)
        goto fail;
    const d2_block *yb = q ? &q->blocks[0] : b0;
    for (int i = 0; i < n; i++) {
        const d2_var *v = &p->vars[vars[i]];
        d2_tensor *t = v->persistable ? v->data : outs[yield_index(yb, vars[i])];
        if (!t) {
            d2_raise(I, "RuntimeError", "Executor.run: parameter '%s' has no data", v->name);
            goto done;
        }
        /* parameters are copied: their data may be a read-only mapping of the model file */
        if (!(res[i] = v->persistable ? d2_tensor_copy_to(t, NULL, &err) : to_host(t, &err)))
            goto fail;
    }
    rc = 0;
    goto done;
fail:
    if (err.code)
        d2_raise_err(I, &err);
    else
        nomem(I);
done:
    for (int k = 0; outs && k < n_out; k++)
        d2_tensor_unref(outs[k]);
    d2_free(outs);
    if (q && !cached) {
        d2_exec_free(qp);
        d2_program_free(q);
    }
    return rc;
}

static bool var_read(const d2_program *p, int v);
static int prune_dead(d2_interp *I, d2_program *q);
static int prune_dead_ex(d2_interp *I, d2_program *q, bool effects);

static int param_index(const d2_block *b, int v)
{
    for (int k = 0; k < b->n_params; k++)
        if (b->params[k] == v)
            return k;
    return -1;
}

/* Copies the values of src (an executor output) into the storage of dst (a
 * persistable variable's data, shared with its tensor objects). 0, or -1
 * with err set. */
static int write_persistable(d2_tensor *dst, d2_tensor *src, const char *name, d2_err *err)
{
    int64_t n = d2_tensor_numel(dst);
    if (dst->dtype != src->dtype || n != d2_tensor_numel(src) || !d2_tensor_is_contiguous(dst) ||
        !d2_tensor_is_contiguous(src) || !dst->storage || !src->storage) {
        d2_err_set(err, D2_ERR_INVALID,
                   "Executor.run: the update of '%s' does not match its type", name);
        return -1;
    }
    if (n == 0 || dst->storage == src->storage)
        return 0;
    d2_tensor *moved = NULL;
    if (src->storage->backend != dst->storage->backend) {
        if (!(moved = d2_tensor_copy_to(src, dst->storage->backend, err)))
            return -1;
        src = moved;
    }
    d2_backend *be = dst->storage->backend ? dst->storage->backend : d2_cpu_backend();
    size_t es = d2_dtype_size(dst->dtype);
    int rc = be->copy(be, dst->storage->data, (size_t)dst->offset * es, src->storage->data,
                      (size_t)src->offset * es, (size_t)n * es, err);
    d2_tensor_unref(moved);
    return rc;
}

/* Whether a copy of s prepared with its passes reads its parameters' data as it is at each
 * run (writes into their storage, by a training Program sharing them, are seen): on the CPU,
 * where prepare takes references to parameters, when no selected pass folds a parameter into
 * a new one (const_fold and the inference passes may, in a Program that does not train). */
static bool reads_params_live(d2_interp *I, const sprog *s)
{
    d2_backend *be = D2_MODE(I)->backend;
    if (be && be != d2_cpu_backend())
        return false;
    d2_pass_set fold = 0;
    d2_err err = {0};
    if (d2_passes_parse("const_fold", &fold, &err) < 0)
        return false;
    d2_pass_set live = d2_passes_level(D2_PASS_BASIC) & ~fold;
    return (s->passes & ~live) == 0;
}

/* Executor.run of a Program built op by op: a copy pruned to the fetched
 * variables runs. As in Paddle, every input that an op reads must be fed,
 * also when the fetched variables do not need it; inputs no op reads need
 * no feed. A new list, or NULL with an exception. */
static d2_obj *run_built(d2_interp *I, sprog *s, d2_obj *feed, d2_obj **fitems, size_t nfl,
                         bool ret_np)
{
    const d2_program *p = s->p;
    int n = (int)nfl, n_need = 0, n_out = 0;
    int *vars = d2_calloc((size_t)n + 1, sizeof *vars), *need = NULL;
    d2_tensor **res = d2_calloc((size_t)n + 1, sizeof *res), **in = NULL, **outs = NULL;
    d2_program *q = NULL;
    d2_prepared *qp = NULL;
    d2_obj *r = NULL;
    d2_err err = {0};
    bool cached = false;
    if (!vars || !res) {
        nomem(I);
        goto done;
    }
    bool any = false;
    for (int i = 0; i < n; i++) {
        if ((vars[i] = fetch_var(I, s, fitems[i], (size_t)i)) < 0)
            goto done;
        any = any || !p->vars[vars[i]].persistable;
    }
    any = any || s->n_wb > 0; /* a training Program: its updates run on every run */
    for (int k = 0; !any && k < p->blocks[0].n_ops; k++) /* and a Program that prints */
        any = (d2_op_def(p->blocks[0].ops[k].id)->flags & D2_OPF_SIDE_EFFECT) != 0;
    d2_block *qb = NULL;
    /* a training Program keeps its pruned and prepared copy for the next run with the same
     * fetch list (no pass folds its float parameters, so the copy reads their updates); so
     * does any other on the CPU whose passes fold no parameter */
    bool keep = s->n_wb > 0 || reads_params_live(I, s);
    cached = any && keep && d2_static_run_cache_hit(s, &s->run_cache, vars, n);
    if (cached) {
        q = s->run_cache.q;
        qp = s->run_cache.qp;
        qb = &q->blocks[0];
        n_need = s->run_cache.n_need;
        in = d2_calloc((size_t)n_need + 1, sizeof *in);
        if (!in) {
            nomem(I);
            goto done;
        }
        for (int j = 0; j < n_need; j++) {
            const d2_var *var = &q->vars[s->run_cache.need[j]];
            d2_obj *v = feed ? d2_dict_get_str(I, D2_AS(d2_dict, feed), var->name) : NULL;
            if (!v) {
                d2_raise(I, "ValueError",
                         "Executor.run: no feed for the program's input '%s', which its "
                         "operations read",
                         var->name);
                goto done;
            }
            if (!(in[j] = feed_tensor(I, var, v)))
                goto fail;
        }
    }
    if (any && !cached) {
        if (!(q = d2_program_clone(p, &err)))
            goto fail;
        qb = &q->blocks[0];
        qb->n_yields = 0;
        for (int i = 0; i < n; i++)
            if (!p->vars[vars[i]].persistable && param_index(qb, vars[i]) < 0 &&
                yield_index(qb, vars[i]) < 0 && d2_block_add_yield(q, 0, vars[i], &err) < 0)
                goto fail;
        for (int k = 0; k < s->n_wb; k++)
            if (yield_index(qb, s->wb[2 * k + 1]) < 0 &&
                d2_block_add_yield(q, 0, s->wb[2 * k + 1], &err) < 0)
                goto fail;
        /* Executor.run runs the Program's side-effect ops (paddle.static.Print) too, as
         * Paddle runs every op of the Program */
        if (prune_dead_ex(I, q, true) < 0)
            goto done;
        need = d2_calloc((size_t)qb->n_params + 1, sizeof *need);
        in = d2_calloc((size_t)qb->n_params + 1, sizeof *in);
        if (!need || !in) {
            nomem(I);
            goto done;
        }
        for (int k = 0; k < qb->n_params; k++) {
            bool fetched = false;
            for (int i = 0; i < n; i++)
                fetched = fetched || vars[i] == qb->params[k];
            if (fetched || var_read(p, qb->params[k]))
                need[n_need++] = qb->params[k];
        }
        qb->n_params = 0;
        for (int j = 0; j < n_need; j++) {
            const d2_var *var = &q->vars[need[j]];
            d2_obj *v = feed ? d2_dict_get_str(I, D2_AS(d2_dict, feed), var->name) : NULL;
            if (!v) {
                d2_raise(I, "ValueError",
                         "Executor.run: no feed for the program's input '%s', which its "
                         "operations read",
                         var->name);
                goto done;
            }
            if (!(in[j] = feed_tensor(I, var, v)) || d2_block_add_param(q, 0, need[j], &err) < 0)
                goto fail;
        }
        if (d2_program_verify(q, &err) < 0 ||
            !(qp = d2_passes_prepare(q, s->passes, D2_MODE(I)->backend, &err)))
            goto fail;
        if (keep) {
            d2_static_run_cache_clear(&s->run_cache);
            if (d2_static_run_cache_key(s, &s->run_cache, vars, n) == 0) {
                s->run_cache.q = q;
                s->run_cache.qp = qp;
                s->run_cache.need = need;
                s->run_cache.n_need = n_need;
                need = NULL;
                cached = true;
            }
        }
    }
    if (any) {
        n_out = qb->n_yields;
        if (!(outs = d2_calloc((size_t)n_out + 1, sizeof *outs))) {
            nomem(I);
            goto done;
        }
        /* a new dropout mask per run, as Paddle's seed generator gives */
        if (d2_jit_exec_run_rng(I, qp, d2_jit_rng_offset(I, q), in, n_need, outs, n_out,
                                &err) < 0)
            goto fail;
        /* the persistable write-back: parameters and optimizer states take
         * the values the update ops computed */
        for (int k = 0; k < s->n_wb; k++) {
            const d2_var *dv = &p->vars[s->wb[2 * k]];
            if (dv->data && write_persistable(dv->data, outs[yield_index(qb, s->wb[2 * k + 1])],
                                              dv->name, &err) < 0)
                goto fail;
        }
    }
    for (int i = 0; i < n; i++) {
        const d2_var *v = &p->vars[vars[i]];
        int pi = qb ? param_index(qb, vars[i]) : -1; /* a fed input: its feed */
        d2_tensor *t = v->persistable ? v->data
                       : pi >= 0      ? in[pi]
                                      : outs[yield_index(qb, vars[i])];
        if (!t) {
            d2_raise(I, "RuntimeError", "Executor.run: '%s' has no data", v->name);
            goto done;
        }
        if (!(res[i] = v->persistable || pi >= 0 ? d2_tensor_copy_to(t, NULL, &err)
                                                 : to_host(t, &err)))
            goto fail;
    }
    r = d2_list_new(I, (size_t)n);
    for (int i = 0; r && i < n; i++) {
        d2_obj *o = ret_np ? d2_ndarray_wrap(I, res[i]) : d2_tensor_wrap(I, res[i]);
        D2_AS(d2_list, r)->items[i] = o;
        if (!o)
            d2_setref(&r, NULL);
    }
    goto done;
fail:
    if (!I->exc) {
        if (err.code)
            d2_raise_err(I, &err);
        else
            nomem(I);
    }
done:
    for (int i = 0; in && i < n_need; i++)
        d2_tensor_unref(in[i]);
    for (int k = 0; outs && k < n_out; k++)
        d2_tensor_unref(outs[k]);
    for (int i = 0; res && i < n; i++)
        d2_tensor_unref(res[i]);
    d2_free(in);
    d2_free(outs);
    d2_free(res);
    d2_free(vars);
    d2_free(need);
    if (!cached) {
        d2_exec_free(qp);
        d2_program_free(q);
    }
    return r;
}

int d2_static_apply_lr(d2_interp *I, sprog *s)
{
    if (!s->b || !s->lr_sched)
        return 0;
    /* as Paddle's Executor: the learning rate variable takes the scheduler's value */
    d2_obj *v = d2_call(I, s->lr_sched, NULL, 0, NULL);
    d2_obj *t = v ? d2_to_tensor(I, v, D2_F32) : NULL;
    d2_err err = {0};
    const d2_var *lv = &s->p->vars[s->lr_var];
    int rc = t && lv->data ? write_persistable(lv->data, TOBJ(t)->t, lv->name, &err) : -1;
    d2_decref(v);
    d2_decref(t);
    if (rc < 0 && !I->exc)
        d2_raise_err(I, &err);
    return rc;
}

/* exe.run(program=None, feed=None, fetch_list=None, ..., return_numpy=True)
 * -> list of numpy arrays (Tensors when return_numpy is False), one per
 * fetch_list item (every output of the program when fetch_list is None). */
D2_FN(EX_run)
{
    d2_obj *po = a[0] && a[0]->kind != D2_OBJ_NONE ? a[0] : SS(I)->main_prog;
    d2_obj *feed = a[1], *fl = a[2];
    bool ret_np = true;
    if (a[6] && d2_to_bool(I, a[6], "return_numpy", &ret_np) < 0)
        return NULL;
    bool dp = is_inst(I, po, SS(I)->cp_cls);
    sprog *s = dp ? NULL : d2_static_sprog_of(I, po);
    if (!s && !dp)
        return d2_raise(I, "TypeError", "Executor.run: program must be a Program, got %s",
                        d2_type_name(po));
    if (feed && feed->kind == D2_OBJ_NONE)
        feed = NULL;
    if (fl && fl->kind == D2_OBJ_NONE)
        fl = NULL;
    if (feed && feed->kind != D2_OBJ_DICT)
        return d2_raise(I, "TypeError",
                        "Executor.run: feed must be a dict of {name: array}, got %s",
                        d2_type_name(feed));
    size_t nfl = 0;
    d2_obj **fitems = NULL;
    if (fl) {
        if (is_seq(fl))
            fitems = d2_jit_seq_items(fl, &nfl);
        else {
            fitems = &fl;
            nfl = 1;
        }
    }
    if (dp)
        return d2_static_run_parallel(I, po, feed, fitems, nfl, ret_np);
    if (!s->p) {
        /* an empty Program: the startup program, or a main program never built */
        if (nfl == 0)
            return d2_static_run_startup(I, s) < 0 ? NULL : d2_list_new(I, 0);
        /* values computed while building (paddle.full and ops on such constants in static
         * mode, which Paddle makes ops of the default main Program): fetched as they are */
        bool consts = true;
        for (size_t i = 0; i < nfl; i++)
            consts = consts && fitems[i] && fitems[i]->kind == D2_OBJ_TENSOR &&
                     D2_AS(d2_tensor_obj, fitems[i])->t;
        d2_obj *r = consts ? d2_list_new(I, 0) : NULL;
        for (size_t i = 0; r && i < nfl; i++) {
            d2_err err = {0};
            d2_tensor *h = d2_tensor_copy_to(D2_AS(d2_tensor_obj, fitems[i])->t, NULL, &err);
            d2_obj *o = !h ? NULL : ret_np ? d2_ndarray_wrap(I, h) : d2_tensor_wrap(I, h);
            d2_tensor_unref(h);
            if (!h)
                d2_raise_err(I, &err);
            if (!o || d2_list_append(I, r, o) < 0)
                d2_setref(&r, NULL);
            d2_decref(o);
        }
        if (consts)
            return r;
        return d2_raise(I, "ValueError",
                        "Executor.run: the program is empty, there is nothing to fetch (build "
                        "it with paddle.static.data and operations on it, or load a model with "
                        "paddle.static.load_inference_model)");
    }
    if (d2_static_apply_lr(I, s) < 0)
        return NULL;
    if (s->b && d2_static_is_collective(s))
        return d2_static_run_collective(I, s, feed, fitems, nfl, ret_np);
    if (s->b)
        return run_built(I, s, feed, fitems, nfl, ret_np);
    const d2_program *p = s->p;
    const d2_block *b0 = &p->blocks[0];
    int n_in = b0->n_params;
    int nf = fl ? (int)nfl : b0->n_yields;
    d2_tensor **in = d2_calloc((size_t)n_in + 1, sizeof *in);
    d2_tensor **res = d2_calloc((size_t)nf + 1, sizeof *res);
    int *vars = d2_calloc((size_t)nf + 1, sizeof *vars);
    d2_obj *r = NULL;
    if (!in || !res || !vars) {
        nomem(I);
        goto done;
    }
    /* feeds: every input of the program, by name; other names are ignored as Paddle does */
    for (int i = 0; i < n_in; i++) {
        const d2_var *var = &p->vars[b0->params[i]];
        d2_obj *v = feed ? d2_dict_get_str(I, D2_AS(d2_dict, feed), var->name) : NULL;
        if (!v) {
            char names[400];
            input_names(p, names, sizeof names);
            d2_buf given;
            d2_buf_init(&given);
            d2_dict *fd = feed ? D2_AS(d2_dict, feed) : NULL;
            for (size_t k = 0; fd && k < fd->n; k++) {
                if (!fd->entries[k].key)
                    continue;
                const char *kn = cstr(fd->entries[k].key);
                d2_buf_printf(&given, "%s'%s'", given.len ? ", " : "", kn ? kn : "?");
            }
            d2_raise(I, "ValueError",
                     "Executor.run: no feed for the program's input '%s' (its inputs: %s; "
                     "feed has: %s)",
                     var->name, names, given.data && given.len ? given.data : "nothing");
            d2_buf_free(&given);
            goto done;
        }
        if (!(in[i] = feed_tensor(I, var, v)))
            goto done;
    }
    for (int i = 0; i < nf; i++) {
        vars[i] = fl ? fetch_var(I, s, fitems[i], (size_t)i) : b0->yields[i];
        if (vars[i] < 0)
            goto done;
    }
    if (run_fetch(I, s, in, vars, nf, res) < 0)
        goto done;
    r = d2_list_new(I, (size_t)nf);
    for (int i = 0; r && i < nf; i++) {
        d2_obj *o = ret_np ? d2_ndarray_wrap(I, res[i]) : d2_tensor_wrap(I, res[i]);
        D2_AS(d2_list, r)->items[i] = o;
        if (!o)
            d2_setref(&r, NULL);
    }
done:
    for (int i = 0; in && i < n_in; i++)
        d2_tensor_unref(in[i]);
    for (int i = 0; res && i < nf; i++)
        d2_tensor_unref(res[i]);
    d2_free(in);
    d2_free(res);
    d2_free(vars);
    return r;
}

d2_tensor *d2_static_feed_tensor(d2_interp *I, const d2_var *var, d2_obj *v)
{
    return feed_tensor(I, var, v);
}

int d2_static_fetch_var(d2_interp *I, const sprog *s, d2_obj *item, size_t i)
{
    return fetch_var(I, s, item, i);
}

int d2_static_prune_dead(d2_interp *I, d2_program *q) { return prune_dead(I, q); }

bool d2_static_var_read(const d2_program *p, int v) { return var_read(p, v); }

int d2_static_write_persistable(d2_tensor *dst, d2_tensor *src, const char *name, d2_err *err)
{
    return write_persistable(dst, src, name, err);
}

/* ======================================================================
 * load_inference_model / save_inference_model
 * ====================================================================== */

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *join(const char *a, const char *sep, const char *b)
{
    size_t n = strlen(a) + strlen(sep) + strlen(b) + 1;
    char *r = d2_malloc(n);
    if (r)
        snprintf(r, n, "%s%s%s", a, sep, b);
    return r;
}

/* The model file for path (and, fluid style, model_filename inside the
 * directory path): a new string; NULL when there is none (*oom: out of memory). */
static char *find_model(const char *path, const char *model_filename, bool *oom)
{
    char *c[5] = {NULL};
    int n = 0;
    size_t pl = strlen(path);
    const char *sep = pl && path[pl - 1] == '/' ? "" : "/";
    if (model_filename) {
        c[n++] = join(path, sep, model_filename);
        char *mf = join(model_filename, "", ".dy2st");
        c[n++] = mf ? join(path, sep, mf) : NULL;
        d2_free(mf);
    }
    c[n++] = join(path, "", ".dy2st");
    c[n++] = d2_strdup(path);
    c[n++] = join(path, sep, "model.dy2st");
    char *r = NULL;
    *oom = false;
    for (int i = 0; i < n; i++) {
        if (!c[i])
            *oom = true;
        else if (!r && is_file(c[i]))
            r = c[i], c[i] = NULL;
        d2_free(c[i]);
    }
    return r;
}

/* Loads the saved model named by path (see find_model) as a Program object
 * prepared for D2_MODE(I)->backend. fname names the API in messages; is_dirname:
 * path names a directory (fluid) rather than a path prefix. */
static d2_obj *load_program(d2_interp *I, const char *fname, const char *path,
                            const char *model_filename, bool is_dirname)
{
    if (!*path)
        return d2_raise(I, "ValueError", "%s: the model path is empty", fname);
    bool oom;
    char *file = find_model(path, model_filename, &oom);
    if (!file) {
        if (oom)
            return nomem(I);
        char *pd = join(path, "", ".pdmodel");
        bool paddle_model = pd && is_file(pd);
        d2_free(pd);
        /* as Paddle: ValueError when the directory is missing, else FileNotFoundError */
        char *dir = d2_strdup(path);
        char *slash = dir && !is_dirname ? strrchr(dir, '/') : NULL;
        if (dir && !is_dirname)
            *(slash ? slash : dir) = 0;
        bool no_dir = dir && *dir && !is_dir(dir);
        if (no_dir) {
            d2_obj *e = d2_raise(I, "ValueError", "%s: there is no directory named '%s'", fname,
                                 dir);
            d2_free(dir);
            return e;
        }
        d2_free(dir);
        if (paddle_model)
            return d2_raise(I, "FileNotFoundError",
                            "%s: '%s.pdmodel' is a Paddle model; dy2st reads its own saved "
                            "models ('%s.dy2st', written by paddle.jit.save under dy2st)",
                            fname, path, path);
        if (model_filename)
            return d2_raise(I, "FileNotFoundError",
                            "%s: no saved model at '%s' (looked for '%s/%s', '%s.dy2st', '%s' "
                            "and '%s/model.dy2st')",
                            fname, path, path, model_filename, path, path, path);
        return d2_raise(I, "FileNotFoundError",
                        "%s: no saved model at '%s' (looked for '%s.dy2st', '%s' and "
                        "'%s/model.dy2st')",
                        fname, path, path, path, path);
    }
    d2_err err = {0};
    d2_program *p = d2_model_load(file, &err);
    /* an inference model: prepared after the passes a loaded model gets (api.c); the
     * Program object itself stays as saved */
    d2_pass_set passes = 0;
    if (d2_passes_from_env(&passes, &err) < 0) {
        passes = 0;
        d2_err_clear(&err);
    }
    d2_prepared *pp = p ? d2_passes_prepare(p, passes, D2_MODE(I)->backend, &err) : NULL;
    if (!pp) {
        d2_program_free(p);
        d2_free(file);
        if (err.code == D2_ERR_IO)
            return d2_raise(I, "OSError", "%s: %s", fname, err.msg);
        if (err.code == D2_ERR_NOMEM)
            return nomem(I);
        return d2_raise(I, "ValueError", "%s: cannot load the model: %s", fname, err.msg);
    }
    d2_obj *po = d2_static_prog_new(I, p, file);
    if (!po) {
        d2_exec_free(pp);
        return NULL;
    }
    d2_static_sprog_of(I, po)->pp = pp;
    d2_static_sprog_of(I, po)->passes = passes;
    return po;
}

/* [program, feed_target_names, fetch_targets] */
static d2_obj *load_result(d2_interp *I, d2_obj *po)
{
    const d2_program *p = d2_static_sprog_of(I, po)->p;
    const d2_block *b0 = &p->blocks[0];
    d2_obj *names = d2_list_new(I, (size_t)b0->n_params);
    d2_obj *fetch = d2_list_new(I, (size_t)b0->n_yields);
    for (int i = 0; names && i < b0->n_params; i++) {
        D2_AS(d2_list, names)->items[i] = d2_str_from(I, p->vars[b0->params[i]].name);
        if (!D2_AS(d2_list, names)->items[i])
            d2_setref(&names, NULL);
    }
    for (int k = 0; fetch && k < b0->n_yields; k++) {
        D2_AS(d2_list, fetch)->items[k] = d2_static_var_new(I, p, b0->yields[k]);
        if (!D2_AS(d2_list, fetch)->items[k])
            d2_setref(&fetch, NULL);
    }
    d2_obj *r = names && fetch ? d2_list_new(I, 3) : NULL;
    if (r) {
        D2_AS(d2_list, r)->items[0] = d2_incref(po);
        D2_AS(d2_list, r)->items[1] = d2_incref(names);
        D2_AS(d2_list, r)->items[2] = d2_incref(fetch);
    }
    d2_decref(names);
    d2_decref(fetch);
    return r;
}

static const char *opt_str(d2_interp *I, d2_obj *o, const char *what, bool *bad)
{
    *bad = false;
    if (!o || o->kind == D2_OBJ_NONE)
        return NULL;
    const char *s = d2_to_cstr(I, o, what);
    *bad = s == NULL;
    return s;
}

/* paddle.static.load_inference_model(path_prefix, executor, **kwargs) */
D2_FN(S_load_inference_model)
{
    const char *fname = def->qualname;
    const char *path = d2_to_cstr(I, a[0], "path_prefix");
    if (!path)
        return NULL;
    bool bad;
    const char *mf = NULL;
    if (a[2] && a[2]->kind == D2_OBJ_DICT) {
        mf = opt_str(I, d2_dict_get_str(I, D2_AS(d2_dict, a[2]), "model_filename"),
                     "model_filename", &bad);
        if (bad)
            return NULL;
    }
    d2_obj *po = load_program(I, fname, path, mf, false);
    d2_obj *r = po ? load_result(I, po) : NULL;
    d2_decref(po);
    return r;
}

/* fluid.io.load_inference_model(dirname, executor, model_filename=None,
 * params_filename=None, pserver_endpoints=None, model_from_memory=False) */
D2_FN(F_load_inference_model)
{
    const char *fname = def->qualname;
    const char *path = d2_to_cstr(I, a[0], "dirname");
    bool bad;
    const char *mf = path ? opt_str(I, a[2], "model_filename", &bad) : NULL;
    if (!path || bad)
        return NULL;
    d2_obj *po = load_program(I, fname, path, mf, true);
    d2_obj *r = po ? load_result(I, po) : NULL;
    d2_decref(po);
    return r;
}

/* mkdir -p */
static int make_dirs(d2_interp *I, const char *dir, const char *fname)
{
    char *d = d2_strdup(dir);
    if (!d) {
        nomem(I);
        return -1;
    }
    for (char *p = d + 1;; p++) {
        bool end = *p == 0;
        if (*p == '/' || end) {
            char c = *p;
            *p = 0;
            if (*d && mkdir(d, 0777) < 0 && errno != EEXIST) {
                d2_raise(I, "OSError", "%s: cannot create directory '%s': %s", fname, d,
                         strerror(errno));
                d2_free(d);
                return -1;
            }
            *p = c;
        }
        if (end)
            break;
    }
    d2_free(d);
    if (!is_dir(dir)) {
        d2_raise(I, "OSError", "%s: '%s' is not a directory", fname, dir);
        return -1;
    }
    return 0;
}

static bool var_read(const d2_program *p, int v)
{
    for (int b = 0; b < p->n_blocks; b++) {
        const d2_block *blk = &p->blocks[b];
        for (int k = 0; k < blk->n_ops; k++)
            for (int i = 0; i < blk->ops[k].n_in; i++)
                if (blk->ops[k].in[i] == v)
                    return true;
        for (int k = 0; k < blk->n_yields; k++)
            if (blk->yields[k] == v)
                return true;
    }
    return false;
}

static int prune_dead(d2_interp *I, d2_program *q) { return prune_dead_ex(I, q, false); }

/* Removes the ops of block 0 whose results nothing uses (liveness from the
 * block's yields). Control ops are kept with everything their sub-blocks
 * read: their blocks must stay attached to one op; so are side-effect ops
 * (print, assert) when effects is set. */
static int prune_dead_ex(d2_interp *I, d2_program *q, bool effects)
{
    bool *live = d2_calloc((size_t)q->n_vars + 1, sizeof *live);
    if (!live) {
        nomem(I);
        return -1;
    }
    d2_block *b0 = &q->blocks[0];
    for (int k = 0; k < b0->n_yields; k++)
        live[b0->yields[k]] = true;
    bool control = false;
    for (int k = 0; k < b0->n_ops && !control; k++) {
        const d2_opdef *def = d2_op_def(b0->ops[k].id);
        control = def && (def->flags & D2_OPF_CONTROL);
    }
    if (control) /* conservative: whatever any sub-block reads stays */
        for (int b = 1; b < q->n_blocks; b++) {
            const d2_block *blk = &q->blocks[b];
            for (int k = 0; k < blk->n_ops; k++)
                for (int i = 0; i < blk->ops[k].n_in; i++)
                    if (blk->ops[k].in[i] >= 0)
                        live[blk->ops[k].in[i]] = true;
            for (int k = 0; k < blk->n_yields; k++)
                live[blk->yields[k]] = true;
        }
    bool *keep = d2_calloc((size_t)b0->n_ops + 1, sizeof *keep);
    if (!keep) {
        d2_free(live);
        nomem(I);
        return -1;
    }
    for (int k = b0->n_ops - 1; k >= 0; k--) {
        const d2_op *op = &b0->ops[k];
        const d2_opdef *def = d2_op_def(op->id);
        keep[k] = def && ((def->flags & D2_OPF_CONTROL) ||
                          (effects && (def->flags & D2_OPF_SIDE_EFFECT)));
        for (int o = 0; !keep[k] && o < op->n_out; o++)
            keep[k] = live[op->out[o]];
        for (int i = 0; keep[k] && i < op->n_in; i++)
            if (op->in[i] >= 0)
                live[op->in[i]] = true;
    }
    int n = 0;
    for (int k = 0; k < b0->n_ops; k++) {
        if (keep[k]) {
            b0->ops[n++] = b0->ops[k];
            continue;
        }
        d2_free(b0->ops[k].in);
        d2_free(b0->ops[k].out);
        d2_attrs_free(&b0->ops[k].attrs);
    }
    b0->n_ops = n;
    d2_free(keep);
    d2_free(live);
    return 0;
}

/* Makes q's inputs feed[0..nfeed) and its outputs fetch[0..nfetch) (variable
 * indices, nfeed -1: keep the inputs). An input dropped while still read
 * is an error. 0, or -1 with an exception. */
static int reshape_io(d2_interp *I, d2_program *q, const int *feed, int nfeed, const int *fetch,
                      int nfetch, const char *fname)
{
    d2_block *b0 = &q->blocks[0];
    d2_err err = {0};
    int *old = NULL, n_old = b0->n_params;
    if (nfeed >= 0) {
        old = d2_malloc(sizeof(int) * ((size_t)n_old + 1));
        if (!old) {
            nomem(I);
            return -1;
        }
        memcpy(old, b0->params, sizeof(int) * (size_t)n_old);
    }
    b0->n_yields = 0;
    for (int k = 0; k < nfetch; k++)
        if (d2_block_add_yield(q, 0, fetch[k], &err) < 0)
            goto fail;
    if (prune_dead(I, q) < 0) {
        d2_free(old);
        return -1;
    }
    if (nfeed >= 0) {
        b0->n_params = 0;
        for (int i = 0; i < nfeed; i++)
            if (d2_block_add_param(q, 0, feed[i], &err) < 0)
                goto fail;
        for (int i = 0; i < n_old; i++) {
            bool kept = false;
            for (int j = 0; j < nfeed; j++)
                kept = kept || feed[j] == old[i];
            if (!kept && var_read(q, old[i])) {
                d2_raise(I, "ValueError",
                         "%s: the program's input '%s' is needed by the fetched outputs but is "
                         "not fed",
                         fname, q->vars[old[i]].name);
                d2_free(old);
                return -1;
            }
        }
    }
    d2_free(old);
    if (d2_program_verify(q, &err) < 0) {
        d2_raise(I, "ValueError", "%s: the pruned program is invalid: %s", fname, err.msg);
        return -1;
    }
    return 0;
fail:
    d2_free(old);
    d2_raise_err(I, &err);
    return -1;
}

static int save_to(d2_interp *I, const d2_program *q, const char *file)
{
    d2_err err = {0};
    if (d2_model_save(q, file, &err) < 0) {
        d2_raise_err(I, &err);
        return -1;
    }
    return 0;
}

/* The variables a list of Variables, tensors or names stands for in s's
 * program. */
static int vars_of(d2_interp *I, const sprog *s, d2_obj *list, const char *fname,
                   const char *what, int **out, int *n)
{
    const d2_program *p = s->p;
    size_t k;
    d2_obj *one = list;
    d2_obj **items = is_seq(list) ? d2_jit_seq_items(list, &k) : (k = 1, &one);
    *out = d2_calloc(k + 1, sizeof **out);
    if (!*out) {
        nomem(I);
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        int v;
        const char *name = d2_static_item_name(I, items[i], s->b, &v);
        if (!name) {
            d2_raise(I, "TypeError", "%s: %s[%zu] must be a Variable, got %s", fname, what, i,
                     d2_type_name(items[i]));
            return -1;
        }
        if (v < 0)
            v = d2_program_find_var(p, name);
        if (v < 0 || (p->vars[v].block != 0 && !p->vars[v].persistable)) {
            d2_raise(I, "ValueError", "%s: %s[%zu]: the program has no variable '%s'%s", fname,
                     what, i, name, v < 0 ? "" : " in its main block");
            return -1;
        }
        (*out)[i] = v;
    }
    *n = (int)k;
    return 0;
}

/* A copy of s's program pruned to feeds -> fetches (lists of Variables or names), in its
 * inference form (dropout the identity, batch_norm reading its running statistics), as
 * save_inference_model saves it and normalize_program returns it. NULL with an exception. */
static d2_program *pruned_copy(d2_interp *I, const char *fname, const sprog *s, d2_obj *feeds,
                               d2_obj *fetches)
{
    int *feed = NULL, *fetch = NULL, nfeed = 0, nfetch = 0;
    d2_err err = {0};
    d2_program *q = NULL;
    if (vars_of(I, s, feeds, fname, "feed_vars", &feed, &nfeed) < 0 ||
        vars_of(I, s, fetches, fname, "fetch_vars", &fetch, &nfetch) < 0)
        goto fail;
    for (int i = 0; i < nfeed; i++) {
        bool is_input = false;
        for (int j = 0; j < s->p->blocks[0].n_params; j++)
            is_input = is_input || s->p->blocks[0].params[j] == feed[i];
        if (!is_input) {
            d2_raise(I, "ValueError", "%s: feed_vars[%d] '%s' is not an input of the program",
                     fname, i, s->p->vars[feed[i]].name);
            goto fail;
        }
    }
    q = d2_program_clone(s->p, &err);
    if (!q) {
        d2_raise_err(I, &err);
        goto fail;
    }
    if (reshape_io(I, q, feed, nfeed, fetch, nfetch, fname) < 0)
        goto fail;
    d2_static_eval_dropout(q);
    d2_static_eval_batch_norm(s, q);
    d2_free(feed);
    d2_free(fetch);
    return q;
fail:
    d2_free(feed);
    d2_free(fetch);
    d2_program_free(q);
    return NULL;
}

/* Saves s's program pruned to feeds -> fetches (lists of Variables or
 * names) to file, making its directory. 0, or -1 with an exception. */
static int save_pruned(d2_interp *I, const char *fname, const sprog *s, d2_obj *feeds,
                       d2_obj *fetches, const char *file)
{
    int rc = -1;
    char *dir = NULL;
    d2_program *q = pruned_copy(I, fname, s, feeds, fetches);
    if (!q)
        goto done;
    if (!(dir = d2_strdup(file))) {
        nomem(I);
        goto done;
    }
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if (make_dirs(I, dir, fname) < 0)
            goto done;
    }
    rc = save_to(I, q, file);
done:
    d2_free(dir);
    d2_program_free(q);
    return rc;
}

/* The Program a save_inference_model call saves: program, else (in static
 * mode) the default main Program. NULL with an exception. */
static sprog *program_to_save(d2_interp *I, const char *fname, d2_obj *po)
{
    bool given = po && po->kind != D2_OBJ_NONE;
    sprog *s = given ? d2_static_sprog_of(I, po) : d2_static_sprog_of(I, SS(I)->main_prog);
    if (given && !s) {
        d2_raise(I, "TypeError", "%s: program must be a Program, got %s", fname,
                 d2_type_name(po));
        return NULL;
    }
    if (!s || !s->p) {
        d2_raise(I, "ValueError",
                 "%s: the %s is empty: build it with paddle.static.data and operations on it "
                 "after paddle.enable_static(), or pass a Program loaded with "
                 "load_inference_model",
                 fname, given ? "program" : "default main program");
        return NULL;
    }
    return s;
}

/* paddle.static.save_inference_model(path_prefix, feed_vars, fetch_vars,
 * executor, program=None, **kwargs): the program (default: the main
 * Program) pruned to the given inputs and outputs, to PATH.dy2st. */
D2_FN(S_save_inference_model)
{
    const char *fname = def->qualname;
    const char *path = d2_to_cstr(I, a[0], "path_prefix");
    if (!path)
        return NULL;
    if (!*path || path[strlen(path) - 1] == '/')
        return d2_raise(I, "ValueError",
                        "%s: path_prefix '%s' must name a file prefix, not a directory", fname,
                        path);
    sprog *s = program_to_save(I, fname, a[4]);
    if (!s)
        return NULL;
    size_t n = strlen(path);
    char *file = n >= 6 && strcmp(path + n - 6, ".dy2st") == 0 ? d2_strdup(path)
                                                               : join(path, "", ".dy2st");
    if (!file)
        return nomem(I);
    int rc = save_pruned(I, fname, s, a[1], a[2], file);
    d2_free(file);
    return rc < 0 ? NULL : d2_none(I);
}

/* ----------------------------------------------------------------------
 * serialize_program / serialize_persistables / deserialize_* / save_to_file / load_from_file
 * / normalize_program. dy2st has no bytes type: the serialized form is a `bytes`-like object
 * (len() works) holding a dy2st saved model (model-format.md: the pruned Program with its
 * persistables' data), not Paddle's ProgramDesc protobuf; it round-trips within dy2st.
 * ---------------------------------------------------------------------- */

typedef struct ser_bytes {
    size_t n;
    unsigned char data[];
} ser_bytes;

/* A serialized-bytes object holding a copy of data[0..n). New reference or NULL. */
static d2_obj *ser_new(d2_interp *I, const void *data, size_t n)
{
    ser_bytes *b = d2_malloc(sizeof *b + n + 1);
    d2_obj *o = b ? d2_obj_alloc(I, D2_OBJ_OPAQUE, SS(I)->ser_cls, sizeof(d2_opaque)) : NULL;
    if (!o) {
        d2_free(b);
        return nomem(I);
    }
    b->n = n;
    if (n)
        memcpy(b->data, data, n);
    D2_AS(d2_opaque, o)->payload = b;
    D2_AS(d2_opaque, o)->fin = d2_free;
    return o;
}

/* The payload of serialized-bytes object o, or NULL with a TypeError naming what. */
static const ser_bytes *ser_of(d2_interp *I, d2_obj *o, const char *fname, const char *what)
{
    if (o && o->kind == D2_OBJ_OPAQUE && d2_isinstance(I, o, SS(I)->ser_cls))
        return D2_AS(d2_opaque, o)->payload;
    d2_raise(I, "TypeError", "%s: %s must be the bytes a paddle.static serialize_* function or "
             "load_from_file returned, got %s", fname, what, d2_type_name(o));
    return NULL;
}

static d2_obj *SB_len(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    const ser_bytes *b = ser_of(I, self, "bytes.__len__", "self");
    return b ? d2_int_new(I, (int64_t)b->n) : NULL;
}

/* bytes[i:j]: a slice of the serialized bytes (step 1), as bytes. */
static d2_obj *SB_getitem(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(kw);
    const ser_bytes *b = ser_of(I, self, "bytes.__getitem__", "self");
    if (!b)
        return NULL;
    d2_obj *k = nargs == 1 ? args[0] : NULL;
    if (!k || k->kind != D2_OBJ_SLICE)
        return d2_raise(I, "TypeError", "serialized bytes can only be sliced, with [i:j]");
    d2_slice *sl = D2_AS(d2_slice, k);
    int64_t n = (int64_t)b->n, ij[2] = {0, n};
    d2_obj *ends[2] = {sl->start, sl->stop};
    if (sl->step && sl->step->kind != D2_OBJ_NONE &&
        !(sl->step->kind == D2_OBJ_INT && D2_AS(d2_int, sl->step)->v == 1))
        return d2_raise(I, "ValueError", "serialized bytes: only a step of 1 is supported");
    for (int e = 0; e < 2; e++) {
        if (!ends[e] || ends[e]->kind == D2_OBJ_NONE)
            continue;
        if (d2_to_int64(I, ends[e], "slice index", &ij[e]) < 0)
            return NULL;
        ij[e] = ij[e] < 0 ? (ij[e] + n < 0 ? 0 : ij[e] + n) : (ij[e] > n ? n : ij[e]);
    }
    return ser_new(I, b->data + ij[0], ij[1] > ij[0] ? (size_t)(ij[1] - ij[0]) : 0);
}

static d2_obj *SB_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    const ser_bytes *b = ser_of(I, self, "bytes.__repr__", "self");
    return b ? d2_str_printf(I, "<dy2st serialized model, %zu bytes>", b->n) : NULL;
}

/* The program= keyword of kwargs (a dict or NULL), else the default main Program. */
static sprog *kw_program(d2_interp *I, d2_obj *kwargs, const char *fname)
{
    d2_obj *po = kwargs && kwargs->kind == D2_OBJ_DICT
                     ? d2_dict_get_str(I, D2_AS(d2_dict, kwargs), "program")
                     : NULL;
    return program_to_save(I, fname, po);
}

/* The pruned inference Program of s as serialized bytes. */
static d2_obj *serialize(d2_interp *I, const char *fname, sprog *s, d2_obj *feeds,
                         d2_obj *fetches)
{
    d2_program *q = s ? pruned_copy(I, fname, s, feeds, fetches) : NULL;
    if (!q)
        return NULL;
    d2_buf buf;
    d2_buf_init(&buf);
    d2_err err = {0};
    d2_obj *r = NULL;
    if (d2_model_save_mem(q, &buf, &err) < 0)
        d2_raise_err(I, &err);
    else if (buf.oom)
        nomem(I);
    else
        r = ser_new(I, buf.data, buf.len);
    d2_buf_free(&buf);
    d2_program_free(q);
    return r;
}

/* The Program serialized in b; NULL with a ValueError naming fname for bytes that are not a
 * whole dy2st saved model (truncated, corrupted, something else). */
static d2_program *deserialize(d2_interp *I, const char *fname, const ser_bytes *b)
{
    d2_err err = {0};
    if (!d2_model_is_saved(b->data, b->n)) {
        d2_raise(I, "ValueError", "%s: the %zu bytes are not a serialized dy2st program (they "
                 "do not start with a dy2st saved model's header)", fname, b->n);
        return NULL;
    }
    d2_program *p = d2_model_load_mem(b->data, b->n, "serialized program", &err);
    if (!p)
        d2_raise(I, "ValueError", "%s: cannot read the serialized program: %s", fname, err.msg);
    return p;
}

/* paddle.static.serialize_program(feed_vars, fetch_vars, **kwargs): the Program (kwargs
 * program, else the default main Program) pruned to feed_vars -> fetch_vars in its inference
 * form, as bytes; with its persistables' data. */
D2_FN(S_serialize_program)
{
    return serialize(I, def->qualname, kw_program(I, a[2], def->qualname), a[0], a[1]);
}

/* paddle.static.serialize_persistables(feed_vars, fetch_vars, executor, **kwargs): the
 * persistables the pruned Program reads, as bytes (the same saved model). */
D2_FN(S_serialize_persistables)
{
    return serialize(I, def->qualname, kw_program(I, a[3], def->qualname), a[0], a[1]);
}

/* paddle.static.deserialize_program(data): a Program object from serialize_program's bytes. */
D2_FN(S_deserialize_program)
{
    const ser_bytes *b = ser_of(I, a[0], def->qualname, "data");
    d2_program *p = b ? deserialize(I, def->qualname, b) : NULL;
    return p ? d2_static_prog_new(I, p, NULL) : NULL;
}

/* paddle.static.deserialize_persistables(program, data, executor): the values of
 * serialize_persistables' bytes into program's persistable variables of the same names. */
D2_FN(S_deserialize_persistables)
{
    const char *fname = def->qualname;
    sprog *s = d2_static_sprog_of(I, a[0]);
    if (!s || !s->p)
        return d2_raise(I, "TypeError", "%s: program must be a non-empty Program, got %s", fname,
                        s ? "an empty Program" : d2_type_name(a[0]));
    const ser_bytes *b = ser_of(I, a[1], fname, "data");
    d2_program *l = b ? deserialize(I, fname, b) : NULL;
    if (!l)
        return NULL;
    int rc = 0, n = 0;
    for (int v = 0; rc == 0 && v < l->n_vars; v++) {
        const d2_var *src = &l->vars[v];
        int w = src->persistable && src->data ? d2_program_find_var(s->p, src->name) : -1;
        if (w < 0 || !s->p->vars[w].persistable || !s->p->vars[w].data)
            continue;
        d2_err err = {0};
        if (s->p->vars[w].type.dtype != src->type.dtype ||
            !d2_shape_equal(&s->p->vars[w].type.shape, &src->type.shape)) {
            d2_raise(I, "ValueError", "%s: '%s' has another shape or dtype in the data than in "
                     "the program", fname, src->name);
            rc = -1;
        } else if (write_persistable(s->p->vars[w].data, src->data, src->name, &err) < 0) {
            d2_raise_err(I, &err);
            rc = -1;
        }
        n++;
    }
    d2_program_free(l);
    if (rc == 0 && n == 0)
        return d2_raise(I, "ValueError", "%s: the data holds no persistable variable of the "
                        "program", fname);
    return rc < 0 ? NULL : d2_none(I);
}

/* paddle.static.save_to_file(path, content): writes serialized bytes to path. */
D2_FN(S_save_to_file)
{
    const char *fname = def->qualname;
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    if (!(a[1] && a[1]->kind == D2_OBJ_OPAQUE && d2_isinstance(I, a[1], SS(I)->ser_cls)))
        return d2_raise(I, "ValueError", "'content' type should be bytes.");
    const ser_bytes *b = D2_AS(d2_opaque, a[1])->payload;
    FILE *f = fopen(path, "wb");
    if (!f)
        return d2_raise(I, "OSError", "%s: cannot open '%s' for writing: %s", fname, path,
                        strerror(errno));
    bool ok = (b->n == 0 || fwrite(b->data, 1, b->n, f) == b->n);
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        return d2_raise(I, "OSError", "%s: cannot write '%s'", fname, path);
    return d2_none(I);
}

/* paddle.static.load_from_file(path): the bytes of file path (at most 2 GiB). */
D2_FN(S_load_from_file)
{
    const char *fname = def->qualname;
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return d2_raise(I, errno == ENOENT ? "FileNotFoundError" : "OSError",
                        "%s: cannot open '%s': %s", fname, path, strerror(errno));
    d2_buf buf;
    d2_buf_init(&buf);
    char chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0 && !buf.oom &&
           buf.len <= ((size_t)1 << 31))
        d2_buf_append(&buf, chunk, k);
    bool err = ferror(f) != 0, big = buf.len > ((size_t)1 << 31);
    fclose(f);
    d2_obj *r = err   ? d2_raise(I, "OSError", "%s: cannot read '%s'", fname, path)
                : big ? d2_raise(I, "ValueError", "%s: '%s' is larger than 2 GiB", fname, path)
                : buf.oom ? nomem(I)
                          : ser_new(I, buf.data, buf.len);
    d2_buf_free(&buf);
    return r;
}

/* paddle.static.normalize_program(program, feed_vars, fetch_vars, **kwargs): a new Program,
 * program pruned to feed_vars -> fetch_vars in its inference form (what
 * save_inference_model saves). */
D2_FN(S_normalize_program)
{
    const char *fname = def->qualname;
    sprog *s = d2_static_sprog_of(I, a[0]);
    if (!s)
        return d2_raise(I, "TypeError", "program type must be `base.Program`, but received "
                        "`<class '%s'>`", d2_type_name(a[0]));
    if (!s->p)
        return d2_raise(I, "ValueError", "%s: the program is empty", fname);
    d2_program *q = pruned_copy(I, fname, s, a[1], a[2]);
    return q ? d2_static_prog_new(I, q, NULL) : NULL;
}

/* fluid.io.save_inference_model(dirname, feeded_var_names, target_vars,
 * executor, main_program=None, model_filename=None, ...): to
 * dirname/model.dy2st (or dirname/model_filename); returns the names of the
 * targets. */
D2_FN(F_save_inference_model)
{
    const char *fname = def->qualname;
    const char *dir = d2_to_cstr(I, a[0], "dirname");
    bool bad;
    const char *mf = dir ? opt_str(I, a[5], "model_filename", &bad) : NULL;
    if (!dir || bad)
        return NULL;
    if (!*dir)
        return d2_raise(I, "ValueError", "%s: dirname is empty", fname);
    sprog *s = program_to_save(I, fname, a[4]);
    if (!s)
        return NULL;
    size_t dl = strlen(dir);
    char *file = join(dir, dir[dl - 1] == '/' ? "" : "/", mf ? mf : "model.dy2st");
    if (!file)
        return nomem(I);
    int rc = save_pruned(I, fname, s, a[1], a[2], file);
    d2_free(file);
    if (rc < 0)
        return NULL;
    size_t k;
    d2_obj *one = a[2];
    d2_obj **items = is_seq(a[2]) ? d2_jit_seq_items(a[2], &k) : (k = 1, &one);
    d2_obj *r = d2_list_new(I, 0);
    for (size_t i = 0; r && i < k; i++) {
        int v;
        d2_obj *nm = d2_str_from(I, d2_static_item_name(I, items[i], s->b, &v));
        if (!nm || d2_list_append(I, r, nm) < 0)
            d2_setref(&r, NULL);
        d2_decref(nm);
    }
    return r;
}

/* paddle.static.cpu_places(device_count=None) */
D2_FN(S_cpu_places)
{
    int64_t n = 1;
    if (a[0] && a[0]->kind != D2_OBJ_NONE && d2_to_int64(I, a[0], "device_count", &n) < 0)
        return NULL;
    d2_obj *cls = d2_jit_mod_attr(I, "paddle", "CPUPlace");
    if (!cls)
        return d2_raise(I, "RuntimeError", "internal: paddle.CPUPlace is missing");
    d2_obj *r = d2_list_new(I, 0);
    for (int64_t i = 0; r && i < n; i++) {
        d2_obj *pl = d2_call(I, cls, NULL, 0, NULL);
        if (!pl || d2_list_append(I, r, pl) < 0)
            d2_setref(&r, NULL);
        d2_decref(pl);
    }
    return r;
}

/* ======================================================================
 * ProgramTranslator (paddle.jit.ProgramTranslator, fluid.dygraph.ProgramTranslator)
 * ====================================================================== */

D2_FN(PT_new)
{
    st_state *s = SS(I);
    if (!s->translator && !(s->translator = d2_instance_new(I, s->pt_cls)))
        return NULL;
    return d2_incref(s->translator);
}

static d2_obj *jit_fn(d2_interp *I, const char *name)
{
    d2_obj *f = d2_jit_mod_attr(I, "paddle.jit", name);
    if (!f)
        d2_raise(I, "RuntimeError", "internal: paddle.jit.%s is missing", name);
    return f;
}

/* to_static(fn): a new reference */
static d2_obj *to_static(d2_interp *I, d2_obj *fn)
{
    d2_obj *ts = jit_fn(I, "to_static");
    return ts ? d2_call(I, ts, &fn, 1, NULL) : NULL;
}

D2_FN(PT_enable)
{
    d2_obj *f = jit_fn(I, "enable_to_static");
    return f ? d2_call(I, f, a, 1, NULL) : NULL;
}

D2_FN(PT_get_func)
{
    return to_static(I, a[0]);
}

D2_FN(PT_get_code)
{
    d2_obj *w = to_static(I, a[0]);
    d2_obj *code = w ? d2_getattr(I, w, "code") : NULL;
    d2_decref(w);
    return code;
}

/* fn converted and called on args (args[0] is the function). */
static d2_obj *call_static(d2_interp *I, const char *fname, d2_obj **args, size_t nargs,
                           d2_dict *kw)
{
    if (nargs < 1)
        return d2_raise(I, "TypeError", "%s() missing required argument 'dygraph_func'", fname);
    d2_obj *w = to_static(I, args[0]);
    d2_obj *r = w ? d2_call(I, w, args + 1, nargs - 1, kw) : NULL;
    d2_decref(w);
    return r;
}

static d2_obj *PT_get_output(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                             d2_dict *kw)
{
    D2_UNUSED(self);
    return call_static(I, "ProgramTranslator.get_output", args, nargs, kw);
}

/* get_program(fn, *args, **kwargs) -> (main_program, startup_program,
 * inputs, outputs): the Program of the call, its input and output Variables. */
static d2_obj *PT_get_program(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                              d2_dict *kw)
{
    D2_UNUSED(self);
    d2_obj *out = call_static(I, "ProgramTranslator.get_program", args, nargs, kw);
    if (!out)
        return NULL;
    d2_decref(out);
    d2_err err = {0};
    d2_program *p = d2_jit_last_program(I, &err);
    if (!p)
        return d2_raise_err(I, &err);
    d2_obj *po = d2_static_prog_new(I, p, NULL);
    d2_obj *r = po ? load_result(I, po) : NULL;
    d2_obj *ins = NULL;
    if (r) {
        /* the feed names as Variables */
        const d2_block *b0 = &p->blocks[0];
        ins = d2_list_new(I, (size_t)b0->n_params);
        for (int i = 0; ins && i < b0->n_params; i++) {
            D2_AS(d2_list, ins)->items[i] = d2_static_var_new(I, p, b0->params[i]);
            if (!D2_AS(d2_list, ins)->items[i])
                d2_setref(&ins, NULL);
        }
    }
    d2_obj *t = ins ? d2_tuple_pack(I, 4, po, SS(I)->startup_prog, ins,
                                    D2_AS(d2_list, r)->items[2])
                    : NULL;
    d2_decref(ins);
    d2_decref(r);
    d2_decref(po);
    return t;
}

/* Reads an optional list of int indices in [0, n); *out NULL for None. */
static int index_list(d2_interp *I, d2_obj *o, int n, const char *what, int **out, int *k)
{
    *out = NULL;
    *k = -1;
    if (!o || o->kind == D2_OBJ_NONE)
        return 0;
    size_t m;
    d2_obj **items = is_seq(o) ? d2_jit_seq_items(o, &m) : NULL;
    if (!items && !is_seq(o)) {
        d2_raise(I, "TypeError",
                 "ProgramTranslator.save_inference_model: %s must be a list of int indices, "
                 "got %s",
                 what, d2_type_name(o));
        return -1;
    }
    *out = d2_calloc(m + 1, sizeof **out);
    if (!*out) {
        nomem(I);
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        int64_t v;
        if (d2_to_int64(I, items[i], what, &v) < 0)
            return -1;
        if (v < 0 || v >= n) {
            d2_raise(I, "ValueError",
                     "ProgramTranslator.save_inference_model: %s index %lld is out of range "
                     "(the program has %d)",
                     what, (long long)v, n);
            return -1;
        }
        (*out)[i] = (int)v;
    }
    *k = (int)m;
    return 0;
}

/* save_inference_model(dirname, feed=None, fetch=None): the Program that
 * to_static compiled last, to dirname/model.dy2st; feed and fetch are
 * indices of its inputs and outputs to keep. */
D2_FN(PT_save_inference_model)
{
    const char *fname = def->qualname;
    const char *dir = d2_to_cstr(I, a[0], "dirname");
    if (!dir)
        return NULL;
    d2_err err = {0};
    d2_program *p = d2_jit_last_program(I, &err);
    if (!p)
        return d2_raise(I, err.code == D2_ERR_NOMEM ? "MemoryError" : "RuntimeError", "%s: %s",
                        fname, err.msg);
    const d2_block *b0 = &p->blocks[0];
    int *fi = NULL, *ki = NULL, nf = -1, nk = -1, *feed = NULL, *fetch = NULL;
    d2_obj *r = NULL;
    char *file = NULL;
    if (index_list(I, a[1], b0->n_params, "feed", &fi, &nf) < 0 ||
        index_list(I, a[2], b0->n_yields, "fetch", &ki, &nk) < 0)
        goto done;
    int n_feed = nf < 0 ? b0->n_params : nf, n_fetch = nk < 0 ? b0->n_yields : nk;
    feed = d2_calloc((size_t)n_feed + 1, sizeof *feed);
    fetch = d2_calloc((size_t)n_fetch + 1, sizeof *fetch);
    if (!feed || !fetch) {
        nomem(I);
        goto done;
    }
    for (int i = 0; i < n_feed; i++)
        feed[i] = b0->params[fi ? fi[i] : i];
    for (int k = 0; k < n_fetch; k++)
        fetch[k] = b0->yields[ki ? ki[k] : k];
    if (reshape_io(I, p, feed, n_feed, fetch, n_fetch, fname) < 0 ||
        make_dirs(I, dir, fname) < 0)
        goto done;
    size_t dl = strlen(dir);
    file = join(dir, dl && dir[dl - 1] == '/' ? "" : "/", "model.dy2st");
    if (!file) {
        nomem(I);
        goto done;
    }
    if (save_to(I, p, file) == 0)
        r = d2_none(I);
done:
    d2_free(fi);
    d2_free(ki);
    d2_free(feed);
    d2_free(fetch);
    d2_free(file);
    d2_program_free(p);
    return r;
}

/* ======================================================================
 * global_scope: the persistable variables of the Programs built op by op
 * ====================================================================== */

/* paddle.static.global_scope(): a Scope object over every built Program's
 * persistable variables (parameters, learning rates, optimizer states) */
D2_FN(S_global_scope)
{
    return d2_call(I, (d2_obj *)SS(I)->scope_cls, NULL, 0, NULL);
}

/* Scope.find_var(name): the variable of that name (its get_tensor() is a
 * Tensor sharing the variable's data), or None */
D2_FN(SC_find_var)
{
    const char *name = d2_to_cstr(I, a[0], "name");
    if (!name)
        return NULL;
    for (sprog *s = SS(I)->built; s; s = s->next) {
        int v = s->p ? d2_program_find_var(s->p, name) : -1;
        if (v < 0 || !s->p->vars[v].persistable || !s->p->vars[v].data)
            continue;
        d2_obj *o = d2_call(I, (d2_obj *)SS(I)->scope_var_cls, NULL, 0, NULL);
        if (!o || iset_steal(I, o, "_tensor", d2_tensor_wrap(I, s->p->vars[v].data)) < 0 ||
            iset_steal(I, o, "name", d2_str_new(I, name, strlen(name))) < 0) {
            d2_decref(o);
            return NULL;
        }
        return o;
    }
    return d2_none(I);
}

D2_FN(SV_get_tensor)
{
    d2_obj *t = iget(I, self, "_tensor");
    return t ? d2_incref(t) : NULL;
}

/* ======================================================================
 * paddle.static.save / load: a built Program's persistable data
 * ====================================================================== */

/* 1 when variable v of s's Program is a parameter (a lifted persistable
 * tensor), 2 when it is optimizer state (what an update writes back, or the
 * scheduled learning rate), else 0. */
static int persistable_kind(const sprog *s, int v)
{
    d2_dict *l = s->b ? s->b->lifted : NULL;
    for (size_t k = 0; l && k < l->n; k++) {
        d2_obj *e = l->entries[k].value;
        if (l->entries[k].key && e && e->kind == D2_OBJ_TUPLE &&
            D2_AS(d2_int, D2_AS(d2_tuple, e)->items[1])->v == v &&
            TOBJ(D2_AS(d2_tuple, e)->items[0])->persistable)
            return 1;
    }
    for (int k = 0; k < s->n_wb; k++)
        if (s->wb[2 * k] == v)
            return 2;
    return s->has_lr && s->lr_var == v ? 2 : 0;
}

int d2_static_run_startup(d2_interp *I, sprog *s)
{
    d2_err err = {0};
    for (sprog *q = SS(I)->built; q; q = q->next) {
        if (q == s || q->startup_serial != s->serial || !q->p)
            continue;
        for (int v = 0; v < q->p->n_vars; v++) {
            d2_tensor *dst = q->p->vars[v].data;
            if (!q->p->vars[v].persistable || !dst || !persistable_kind(q, v))
                continue;
            int k = 0;
            while (k < s->n_init && s->init_dst[k] != dst)
                k++;
            if (k < s->n_init) {
                if (write_persistable(dst, s->init_val[k], q->p->vars[v].name, &err) < 0)
                    goto fail;
                continue;
            }
            d2_tensor **nd = d2_realloc(s->init_dst, (size_t)(k + 1) * sizeof *nd);
            if (nd)
                s->init_dst = nd;
            d2_tensor **nv = nd ? d2_realloc(s->init_val, (size_t)(k + 1) * sizeof *nv) : NULL;
            if (nv)
                s->init_val = nv;
            d2_tensor *val = nv ? d2_tensor_copy_to(dst, NULL, &err) : NULL;
            if (!val)
                goto fail;
            s->init_dst[k] = d2_tensor_ref(dst);
            s->init_val[k] = val;
            s->n_init = k + 1;
        }
    }
    return 0;
fail:
    if (err.code)
        d2_raise_err(I, &err);
    else
        nomem(I);
    return -1;
}

/* The built Program argument of fname; NULL with an exception. */
static sprog *built_arg(d2_interp *I, d2_obj *po, const char *fname)
{
    sprog *s = d2_static_sprog_of(I, po);
    if (!s)
        d2_raise(I, "TypeError", "%s: program must be a Program, got %s", fname,
                 d2_type_name(po));
    else if (!s->b || !s->p) {
        d2_raise(I, "ValueError", "%s: the program has no variables built op by op", fname);
        s = NULL;
    }
    return s;
}

/* paddle.static.save(program, model_path, protocol=4): the parameters to
 * model_path.pdparams and the optimizer state to model_path.pdopt, as
 * {name: ndarray} pickles (paddle.save) */
D2_FN(S_save)
{
    const char *fname = def->qualname;
    sprog *s = built_arg(I, a[0], fname);
    const char *path = s ? d2_to_cstr(I, a[1], "model_path") : NULL;
    if (!path)
        return NULL;
    const char *base = strrchr(path, '/');
    if (!*(base ? base + 1 : path))
        return d2_raise(I, "ValueError",
                        "The input model_path MUST be format of dirname/filename [dirname\\filename "
                        "in Windows system], but received model_path is empty string.");
    d2_obj *save = d2_jit_mod_attr(I, "paddle", "save");
    if (!save)
        return d2_raise(I, "RuntimeError", "internal: paddle.save is missing");
    if (base && base != path) {
        char *dir = d2_strndup(path, (size_t)(base - path));
        int rc = dir ? make_dirs(I, dir, fname) : -1;
        if (!dir)
            nomem(I);
        d2_free(dir);
        if (rc < 0)
            return NULL;
    }
    d2_obj *dicts[2] = {d2_dict_new(I), d2_dict_new(I)}, *r = NULL;
    d2_err err = {0};
    for (int v = 0; dicts[0] && dicts[1] && v < s->p->n_vars; v++) {
        const d2_var *var = &s->p->vars[v];
        int kind = var->persistable && var->data ? persistable_kind(s, v) : 0;
        if (!kind)
            continue;
        d2_tensor *h = d2_tensor_copy_to(var->data, NULL, &err);
        d2_obj *nd = h ? d2_ndarray_wrap(I, h) : NULL;
        d2_tensor_unref(h);
        int rc = nd ? d2_dict_set_str(I, D2_AS(d2_dict, dicts[kind - 1]), var->name, nd) : -1;
        d2_decref(nd);
        if (rc < 0)
            goto done;
    }
    if (!dicts[0] || !dicts[1])
        goto done;
    static const char *const ext[2] = {".pdparams", ".pdopt"};
    for (int k = 0; k < 2; k++) {
        char *file = join(path, "", ext[k]);
        d2_obj *fo = file ? d2_str_new(I, file, strlen(file)) : NULL;
        d2_free(file);
        d2_obj *args[2] = {dicts[k], fo};
        d2_obj *res = fo ? d2_call(I, save, args, 2, NULL) : NULL;
        d2_decref(fo);
        if (!res)
            goto done;
        d2_decref(res);
    }
    r = d2_none(I);
done:
    if (!r && !I->exc) {
        if (err.code)
            d2_raise_err(I, &err);
        else
            nomem(I);
    }
    d2_decref(dicts[0]);
    d2_decref(dicts[1]);
    return r;
}

/* Writes the values of dict d ({name: array or Tensor}) into the persistable variables of s's
 * Program of those names (from: where d came from, for errors). 0, or -1 with an exception. */
static int state_into(d2_interp *I, sprog *s, d2_obj *d, const char *from, const char *fname)
{
    int rc = 0;
    if (d->kind != D2_OBJ_DICT) {
        d2_raise(I, "ValueError", "%s: %s does not hold a dict of arrays", fname, from);
        rc = -1;
    }
    for (int v = 0; rc == 0 && v < s->p->n_vars; v++) {
        const d2_var *var = &s->p->vars[v];
        d2_obj *val = var->persistable && var->data
                          ? d2_dict_get_str(I, D2_AS(d2_dict, d), var->name)
                          : NULL;
        if (!val)
            continue;
        d2_obj *t = d2_to_tensor(I, val, var->data->dtype);
        d2_err err = {0};
        if (!t)
            rc = -1;
        else if (d2_tensor_numel(TOBJ(t)->t) != d2_tensor_numel(var->data)) {
            d2_raise(I, "RuntimeError", "%s: the shape of '%s' in %s does not match the program's",
                     fname, var->name, from);
            rc = -1;
        } else if (write_persistable(var->data, TOBJ(t)->t, var->name, &err) < 0) {
            d2_raise_err(I, &err);
            rc = -1;
        }
        d2_decref(t);
    }
    return rc;
}

/* paddle.load(file): a new reference, or NULL with an exception. */
static d2_obj *load_file(d2_interp *I, const char *file)
{
    d2_obj *load = d2_jit_mod_attr(I, "paddle", "load");
    if (!load)
        return d2_raise(I, "RuntimeError", "internal: paddle.load is missing");
    d2_obj *fo = d2_str_new(I, file, strlen(file));
    d2_obj *d = fo ? d2_call(I, load, &fo, 1, NULL) : NULL;
    d2_decref(fo);
    return d;
}

/* Writes the {name: array} pickle in file into the persistable variables of
 * s's Program of those names. 0, or -1 with an exception. */
static int load_into(d2_interp *I, sprog *s, const char *file, const char *fname)
{
    d2_obj *d = load_file(I, file);
    int rc = d ? state_into(I, s, d, file, fname) : -1;
    d2_decref(d);
    return rc;
}

/* Program.set_state_dict(state_dict, scope=None) and
 * paddle.static.set_program_state(program, state_dict): the values of the persistable
 * variables named in state_dict; the Executor's next run reads them. */
D2_FN(PG_set_state_dict)
{
    sprog *s = built_arg(I, self, def->qualname);
    return s && state_into(I, s, a[0], "state_dict", def->qualname) == 0 ? d2_none(I) : NULL;
}

D2_FN(S_set_program_state)
{
    sprog *s = built_arg(I, a[0], def->qualname);
    return s && state_into(I, s, a[1], "state_dict", def->qualname) == 0 ? d2_none(I) : NULL;
}

/* Program.state_dict(mode='all', scope=None): {name: Tensor} of the parameters ('param'), the
 * optimizer state ('opt') or both ('all'); the Tensors share the Program's data. */
D2_FN(PG_state_dict)
{
    const char *fname = def->qualname;
    sprog *s = built_arg(I, self, fname);
    const char *mode = s ? d2_to_cstr(I, a[0], "mode") : NULL;
    if (!mode)
        return NULL;
    int want = strcmp(mode, "param") == 0 ? 1 : strcmp(mode, "opt") == 0 ? 2 : 0;
    if (!want && strcmp(mode, "all") != 0)
        return d2_raise(I, "ValueError",
                        "mode %s is not supported, only support 'param', 'opt' and 'all'", mode);
    d2_obj *r = d2_dict_new(I);
    for (int v = 0; r && v < s->p->n_vars; v++) {
        const d2_var *var = &s->p->vars[v];
        int kind = var->persistable && var->data ? persistable_kind(s, v) : 0;
        if (!kind || (want && kind != want))
            continue;
        d2_obj *t = d2_tensor_wrap(I, var->data);
        if (t)
            TOBJ(t)->name = var->name;
        if (!t || d2_dict_set_str(I, D2_AS(d2_dict, r), var->name, t) < 0)
            d2_setref(&r, NULL);
        d2_decref(t);
    }
    return r;
}

/* paddle.static.load_program_state(model_path, var_list=None): {name: ndarray} of
 * model_path.pdparams and, where it exists, model_path.pdopt */
D2_FN(S_load_program_state)
{
    const char *path = d2_to_cstr(I, a[0], "model_path");
    if (!path)
        return NULL;
    size_t n = strlen(path);
    char *prefix = d2_strdup(path);
    if (!prefix)
        return nomem(I);
    if (n > 9 && strcmp(prefix + n - 9, ".pdparams") == 0)
        prefix[n - 9] = '\0';
    char *pf = join(prefix, "", ".pdparams"), *of = join(prefix, "", ".pdopt");
    d2_obj *r = NULL, *o = NULL;
    if (!pf || !of)
        nomem(I);
    else if (!is_file(pf))
        d2_raise(I, "ValueError", "Parameter file [%s] not exits", pf);
    else if ((r = load_file(I, pf)) && r->kind == D2_OBJ_DICT && is_file(of) &&
             (!(o = load_file(I, of)) || d2_dict_merge(I, D2_AS(d2_dict, r), o) < 0))
        d2_setref(&r, NULL);
    d2_decref(o);
    d2_free(prefix);
    d2_free(pf);
    d2_free(of);
    return r;
}

/* paddle.static.load(program, model_path, executor=None, var_list=None):
 * the parameters from model_path.pdparams and, where it exists, the
 * optimizer state from model_path.pdopt */
D2_FN(S_load)
{
    const char *fname = def->qualname;
    sprog *s = built_arg(I, a[0], fname);
    const char *path = s ? d2_to_cstr(I, a[1], "model_path") : NULL;
    if (!path)
        return NULL;
    size_t n = strlen(path);
    char *prefix = d2_strdup(path);
    if (!prefix)
        return nomem(I);
    if (n > 9 && strcmp(prefix + n - 9, ".pdparams") == 0)
        prefix[n - 9] = '\0';
    char *pf = join(prefix, "", ".pdparams"), *of = join(prefix, "", ".pdopt");
    d2_obj *r = NULL;
    if (!pf || !of)
        nomem(I);
    else if (!is_file(pf))
        d2_raise(I, "ValueError", "Parameter file [%s] not exits", pf);
    else if (load_into(I, s, pf, fname) == 0 && (!is_file(of) || load_into(I, s, of, fname) == 0))
        r = d2_none(I);
    d2_free(prefix);
    d2_free(pf);
    d2_free(of);
    return r;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

int d2_static_exec_init(d2_interp *I, st_state *s)
{
    static const d2_def exe_defs[] = {
        D2_DEF("__init__", "place=None", EX_init, "paddle.static.Executor"),
        D2_DEF("run",
               "program=None, feed=None, fetch_list=None, feed_var_name='feed', "
               "fetch_var_name='fetch', scope=None, return_numpy=True, "
               "use_program_cache=False, use_prune=False",
               EX_run, "Executor.run"),
        D2_DEF("close", "", EX_close, "Executor.close"),
    };
    static const d2_def pt_defs[] = {
        D2_DEF("__new__", "", PT_new, "ProgramTranslator"),
        D2_DEF("enable", "enable_to_static", PT_enable, "ProgramTranslator.enable"),
        D2_DEF("get_func", "dygraph_func", PT_get_func, "ProgramTranslator.get_func"),
        D2_DEF("get_code", "dygraph_func", PT_get_code, "ProgramTranslator.get_code"),
        D2_DEF("save_inference_model", "dirname, feed=None, fetch=None, export_for_deployment=True",
               PT_save_inference_model, "ProgramTranslator.save_inference_model"),
    };
    /* get_output and get_program take the function, then its arguments */
    static const d2_fn_entry pt_m[] = {
        {"get_output", PT_get_output},
        {"get_program", PT_get_program},
    };
    /* a static method: ProgramTranslator.get_instance() */
    static const d2_def get_instance = D2_DEF("get_instance", "", PT_new, "ProgramTranslator");
    static const d2_def st_defs[] = {
        D2_DEF("load_inference_model", "path_prefix, executor, **kwargs", S_load_inference_model,
               "paddle.static.load_inference_model"),
        D2_DEF("save_inference_model",
               "path_prefix, feed_vars, fetch_vars, executor, program=None, **kwargs",
               S_save_inference_model, "paddle.static.save_inference_model"),
        D2_DEF("cpu_places", "device_count=None", S_cpu_places, "paddle.static.cpu_places"),
        D2_DEF("global_scope", "", S_global_scope, "paddle.static.global_scope"),
        D2_DEF("save", "program, model_path, protocol=4, **configs", S_save,
               "paddle.static.save"),
        D2_DEF("load", "program, model_path, executor=None, var_list=None", S_load,
               "paddle.static.load"),
        D2_DEF("set_program_state", "program, state_dict", S_set_program_state,
               "paddle.static.set_program_state"),
        D2_DEF("load_program_state", "model_path, var_list=None", S_load_program_state,
               "paddle.static.load_program_state"),
        D2_DEF("serialize_program", "feed_vars, fetch_vars, **kwargs", S_serialize_program,
               "paddle.static.serialize_program"),
        D2_DEF("serialize_persistables", "feed_vars, fetch_vars, executor, **kwargs",
               S_serialize_persistables, "paddle.static.serialize_persistables"),
        D2_DEF("deserialize_program", "data", S_deserialize_program,
               "paddle.static.deserialize_program"),
        D2_DEF("deserialize_persistables", "program, data, executor",
               S_deserialize_persistables, "paddle.static.deserialize_persistables"),
        D2_DEF("save_to_file", "path, content", S_save_to_file, "paddle.static.save_to_file"),
        D2_DEF("load_from_file", "path", S_load_from_file, "paddle.static.load_from_file"),
        D2_DEF("normalize_program", "program, feed_vars, fetch_vars, **kwargs",
               S_normalize_program, "paddle.static.normalize_program"),
    };
    static const d2_fn_entry ser_m[] = {
        {"__len__", SB_len}, {"__repr__", SB_repr}, {"__getitem__", SB_getitem}};
    static const d2_def pg_defs[] = {
        D2_DEF("state_dict", "mode='all', scope=None", PG_state_dict, "Program.state_dict"),
        D2_DEF("set_state_dict", "state_dict, scope=None", PG_set_state_dict,
               "Program.set_state_dict"),
    };
    static const d2_def scope_defs[] = {
        D2_DEF("find_var", "name", SC_find_var, "Scope.find_var"),
    };
    static const d2_def scope_var_defs[] = {
        D2_DEF("get_tensor", "", SV_get_tensor, "Variable.get_tensor"),
    };
    static const d2_def io_defs[] = {
        D2_DEF("load_inference_model",
               "dirname, executor, model_filename=None, params_filename=None, "
               "pserver_endpoints=None, model_from_memory=False",
               F_load_inference_model, "fluid.io.load_inference_model"),
        D2_DEF("save_inference_model",
               "dirname, feeded_var_names, target_vars, executor, main_program=None, "
               "model_filename=None, params_filename=None, export_for_deployment=True, "
               "program_only=False, clip_extra=True, **kwargs",
               F_save_inference_model, "fluid.io.save_inference_model"),
    };
    s->exe_cls = d2_jit_new_class(I, s->statics, "Executor", D2_OBJ_INSTANCE, exe_defs,
                                  D2_COUNTOF(exe_defs), NULL, 0);
    d2_module *jit = D2_AS(d2_module, d2_dict_get_str(I, I->modules, "paddle.jit"));
    s->pt_cls = jit && jit->h.kind == D2_OBJ_MODULE
                    ? d2_jit_new_class(I, jit, "ProgramTranslator", D2_OBJ_INSTANCE, pt_defs,
                                       D2_COUNTOF(pt_defs), pt_m, D2_COUNTOF(pt_m))
                    : NULL;
    s->scope_cls = d2_jit_new_class(I, NULL, "Scope", D2_OBJ_INSTANCE, scope_defs,
                                 D2_COUNTOF(scope_defs), NULL, 0);
    s->scope_var_cls = d2_jit_new_class(I, NULL, "_ScopeVariable", D2_OBJ_INSTANCE, scope_var_defs,
                                     D2_COUNTOF(scope_var_defs), NULL, 0);
    s->ser_cls = d2_jit_new_class(I, NULL, "bytes", D2_OBJ_OPAQUE, NULL, 0, ser_m,
                                  D2_COUNTOF(ser_m));
    if (!s->exe_cls || !s->pt_cls || !s->scope_cls || !s->scope_var_cls || !s->ser_cls ||
        d2_class_add_defs(I, s->prog_cls, pg_defs, D2_COUNTOF(pg_defs), 0) < 0)
        return -1;
    d2_obj *gi = d2_def_new(I, &get_instance, NULL);
    int rc = gi ? d2_dict_set_str(I, s->pt_cls->dict, "get_instance", gi) : -1;
    d2_decref(gi);
    if (rc < 0 || d2_module_add_defs(I, s->statics, st_defs, D2_COUNTOF(st_defs)) < 0 ||
        d2_module_add_defs(I, s->fluid_io, io_defs, D2_COUNTOF(io_defs)) < 0)
        return -1;
    return 0;
}
