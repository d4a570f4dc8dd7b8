/* jit_train.c - training through to_static: the run of a converted Program taped as one node
 * whose backward runs the Program's gradient Program (built once per signature). */
#include "lib/paddle/jit_train.h"
#include "lib/paddle/paddle_priv.h"

#include "backward.h"
#include "exec.h"

#include <stdio.h>
#include <string.h>

/* How forward values reach the backward: by recomputation. The gradient
 * Program is the forward Program followed by the ops of d2_gradients; its
 * backward runs it on the forward's saved feeds, so the forward run itself
 * stays the plain prepared Program (no intermediates kept alive between
 * forward and backward, and control flow needs nothing saved across runs).
 * The price is a second forward at backward time. print ops are dropped from
 * the gradient Program so that a backward prints nothing. Training dropout
 * (dropout_train) draws from its seed constant mixed with the run's random
 * offset (a new one per forward run); the node keeps it, so the recomputed
 * forward draws the forward's masks. */
typedef struct grad_prog {
    struct grad_prog *next;
    char *mask;       /* '1' for each node input whose gradient is computed */
    d2_program *prog; /* forward + backward */
    d2_prepared *pp;
    int n_feeds;      /* the forward's feeds, first */
    int n_tgt;        /* then the gradients of these outputs */
    int *tgt_out;
    int n_yield;      /* yields: the gradients of these node inputs */
    int *yield_in;
    struct d2_jit_grad *second; /* this Program's own gradients (double grad), or NULL */
} grad_prog;

/* A signature's gradient Programs; its tape nodes hold references. */
struct d2_jit_grad {
    int refs;
    const d2_program *fwd; /* the entry's forward Program, NULL once the entry goes */
    grad_prog *list;
};

void d2_jit_grad_release(d2_jit_grad *c);

static void grad_prog_free(grad_prog *g)
{
    if (!g)
        return;
    d2_jit_grad_release(g->second);
    d2_exec_free(g->pp);
    d2_program_free(g->prog);
    d2_free(g->mask);
    d2_free(g->tgt_out);
    d2_free(g->yield_in);
    d2_free(g);
}

static void grads_unref(d2_jit_grad *c)
{
    if (!c || --c->refs > 0)
        return;
    while (c->list) {
        grad_prog *g = c->list;
        c->list = g->next;
        grad_prog_free(g);
    }
    d2_free(c);
}

void d2_jit_grad_release(d2_jit_grad *c)
{
    if (!c)
        return;
    c->fwd = NULL;
    grads_unref(c);
}

/* Drops the print ops of every block of p (they have no results). */
static void drop_prints(d2_program *p)
{
    for (int b = 0; b < p->n_blocks; b++) {
        d2_block *bl = &p->blocks[b];
        int k = 0;
        for (int i = 0; i < bl->n_ops; i++) {
            d2_op *op = &bl->ops[i];
            if (op->id == D2_OP_print && op->n_out == 0) {
                d2_free(op->in);
                d2_free(op->out);
                d2_attrs_free(&op->attrs);
                continue;
            }
            bl->ops[k++] = *op;
        }
        bl->n_ops = k;
    }
}

static bool is_block_param(const d2_block *b, int v)
{
    for (int i = 0; i < b->n_params; i++)
        if (b->params[i] == v)
            return true;
    return false;
}

static bool is_block_yield(const d2_block *b, int v)
{
    for (int i = 0; i < b->n_yields; i++)
        if (b->yields[i] == v)
            return true;
    return false;
}

static bool float_tensor(const d2_type *t)
{
    return t->kind == D2_VALUE_TENSOR && d2_dtype_is_float(t->dtype);
}

/* Builds the gradient Program of fwd for the node inputs whose mask is '1';
 * in_var[i] is the variable of node input i (-1: none). NULL with err. */
static grad_prog *build(const d2_program *fwd, int n_feeds, const int *in_var, int n_in,
                          const char *mask, d2_err *err)
{
    grad_prog *g = d2_calloc(1, sizeof *g);
    int n_out = fwd->blocks[0].n_yields;
    int *buf = d2_calloc((size_t)(4 * n_out + 3 * n_in) + 1, sizeof *buf);
    if (!g || !buf) {
        d2_free(g);
        d2_free(buf);
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    int *tgt = buf, *tgrad = tgt + n_out, *wrt = tgrad + n_out, *nog = wrt + n_in,
        *grads = nog + n_in, *outs = grads + n_in;
    g->n_feeds = n_feeds;
    g->mask = d2_strdup(mask);
    g->tgt_out = d2_calloc((size_t)n_out + 1, sizeof *g->tgt_out);
    g->yield_in = d2_calloc((size_t)n_in + 1, sizeof *g->yield_in);
    g->prog = g->mask && g->tgt_out && g->yield_in ? d2_program_clone(fwd, err) : NULL;
    if (!g->prog) {
        if (!err->code)
            d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        goto fail;
    }
    d2_program *p = g->prog;
    drop_prints(p);
    memcpy(outs, p->blocks[0].yields, sizeof *outs * (size_t)n_out);
    for (int k = 0; k < n_out; k++) {
        const d2_type ty = p->vars[outs[k]].type;
        if (!float_tensor(&ty))
            continue;
        char nm[64];
        snprintf(nm, sizeof nm, "output_%d@GRAD", k);
        for (int j = 1; d2_program_find_var(p, nm) >= 0; j++)
            snprintf(nm, sizeof nm, "output_%d@GRAD_%d", k, j);
        int v = d2_program_add_var(p, 0, nm, &ty, err);
        if (v < 0 || d2_block_add_param(p, 0, v, err) < 0)
            goto fail;
        tgt[g->n_tgt] = outs[k];
        tgrad[g->n_tgt] = v;
        g->tgt_out[g->n_tgt++] = k;
    }
    int n_wrt = 0, n_nog = 0;
    for (int i = 0; i < n_in; i++) {
        if (in_var[i] < 0)
            continue;
        if (mask[i] == '1') {
            g->yield_in[n_wrt] = i;
            wrt[n_wrt++] = in_var[i];
        } else {
            nog[n_nog++] = in_var[i];
        }
    }
    if (d2_gradients(p, 0, tgt, tgrad, g->n_tgt, wrt, n_wrt, nog, n_nog, grads, err) < 0)
        goto fail;
    p->blocks[0].n_yields = 0;
    for (int w = 0; w < n_wrt; w++) {
        int v = grads[w];
        if (v < 0)
            continue;
        /* a feed, a parameter or a value yielded already is yielded as a copy */
        if (p->vars[v].persistable || is_block_param(&p->blocks[0], v) ||
            is_block_yield(&p->blocks[0], v)) {
            int c;
            if (d2_block_append_inferred(p, 0, D2_OP_assign, &v, 1, NULL, 1, &c, err) < 0)
                goto fail;
            v = c;
        }
        if (d2_block_add_yield(p, 0, v, err) < 0)
            goto fail;
        g->yield_in[g->n_yield++] = g->yield_in[w];
    }
    if (d2_program_verify(p, err) < 0)
        goto fail;
    d2_free(buf);
    return g;
fail:
    d2_free(buf);
    grad_prog_free(g);
    return NULL;
}

/* ---- parameters on a device ---- */

/* Whether t lives on a device backend be (not the CPU): a lifted parameter
 * there is bound into the prepared Program rather than copied. */
static bool on_device(const d2_tensor *t, const d2_backend *be)
{
    return be && be->kind != D2_BACKEND_CPU && t->kind == D2_VALUE_TENSOR && t->storage &&
           t->storage->backend == be && d2_tensor_is_contiguous(t);
}

/* Binds lifted tensor t (of variable var) into pp when it lives on the
 * device pp runs on. 0, or -1 with an exception. */
static int bind_one(d2_interp *I, d2_prepared *pp, const d2_program *p, int var, d2_tensor *t)
{
    d2_backend *be = D2_MODE(I)->backend;
    if (!on_device(t, be) || var < 0 || var >= p->n_vars || !p->vars[var].persistable)
        return 0;
    d2_shape sh;
    d2_tensor_get_shape(t, &sh);
    if (t->dtype != p->vars[var].type.dtype || !d2_shape_equal(&sh, &p->vars[var].type.shape))
        return 0;
    d2_err err = {0};
    if (d2_exec_bind_param(pp, var, t, &err) < 0) {
        d2_raise_err(I, &err);
        return -1;
    }
    return 0;
}

int d2_jit_bind_lifted(d2_interp *I, d2_obj *lifted, const d2_program *p, d2_prepared *pp)
{
    d2_backend *be = D2_MODE(I)->backend;
    if (!pp || !be || be->kind == D2_BACKEND_CPU || !lifted || lifted->kind != D2_OBJ_DICT)
        return 0;
    d2_dict *d = D2_AS(d2_dict, lifted);
    for (size_t i = 0; i < d->n; i++) {
        d2_dict_entry *de = &d->entries[i];
        if (!de->key || de->value->kind != D2_OBJ_TUPLE || D2_AS(d2_tuple, de->value)->n != 2)
            continue;
        d2_obj *o = D2_AS(d2_tuple, de->value)->items[0];
        int var = (int)D2_AS(d2_int, D2_AS(d2_tuple, de->value)->items[1])->v;
        if (is_tensor(o) && TOBJ(o)->t && bind_one(I, pp, p, var, TOBJ(o)->t) < 0)
            return -1;
    }
    return 0;
}

/* ---- the tape node ---- */

typedef struct tctx {
    d2_jit_grad *c;    /* the signature's gradient Programs (a reference) */
    grad_prog *g;      /* the one this node runs, once found or built */
    char *fname;
    char *mask;        /* the node inputs whose gradients are computed */
    int n_feeds, n_in;
    d2_tensor **feeds; /* the forward's feed values (references) */
    int *in_var;       /* each node input's variable */
    uint64_t rng_offset; /* the forward run's random stream, replayed by the recompute */
} tctx;

static void tctx_free(void *p)
{
    tctx *c = p;
    if (!c)
        return;
    for (int i = 0; c->feeds && i < c->n_feeds; i++)
        d2_tensor_unref(c->feeds[i]);
    d2_free(c->feeds);
    d2_free(c->in_var);
    d2_free(c->fname);
    d2_free(c->mask);
    grads_unref(c->c);
    d2_free(c);
}

/* Points the gradient Program's parameters at the lifted tensors' current
 * data (a parameter whose tensor was replaced since the build, as
 * set_state_dict may do) and re-prepares it when one changed. */
static int refresh(d2_interp *I, tctx *c, d2_gnode *n)
{
    d2_program *p = c->g->prog;
    bool changed = false;
    for (int i = c->n_feeds; i < c->n_in; i++) {
        d2_obj *o = n->in[i];
        int v = c->in_var[i];
        if (!o || v < 0 || !TOBJ(o)->t || TOBJ(o)->t == p->vars[v].data ||
            on_device(TOBJ(o)->t, D2_MODE(I)->backend))
            continue;
        d2_tensor *t = TOBJ(o)->t;
        d2_shape sh;
        d2_tensor_get_shape(t, &sh);
        if (t->dtype != p->vars[v].type.dtype || !d2_shape_equal(&sh, &p->vars[v].type.shape)) {
            d2_raise(I, "RuntimeError",
                     "%s: parameter '%s' changed its shape or dtype between the forward and "
                     "the backward",
                     c->fname, p->vars[v].name);
            return -1;
        }
        d2_err err = {0};
        d2_tensor *h = d2_pd_host(I, o, c->fname);
        d2_tensor *ct = h ? d2_tensor_contiguous(h, &err) : NULL;
        d2_tensor_unref(h);
        if (!ct) {
            if (!d2_exc_pending(I))
                d2_raise_err(I, &err);
            return -1;
        }
        d2_tensor_unref(p->vars[v].data);
        p->vars[v].data = ct;
        changed = true;
    }
    if (changed || !c->g->pp) {
        d2_exec_free(c->g->pp);
        d2_err err = {0};
        c->g->pp = d2_exec_prepare(p, D2_MODE(I)->backend, &err);
        if (!c->g->pp) {
            d2_raise_err(I, &err);
            return -1;
        }
    }
    /* parameters on the device are read where the optimizer writes them */
    for (int i = c->n_feeds; i < c->n_in; i++)
        if (n->in[i] && TOBJ(n->in[i])->t &&
            bind_one(I, c->g->pp, p, c->in_var[i], TOBJ(n->in[i])->t) < 0)
            return -1;
    return 0;
}

/* The gradient Program of node context c: the signature's for c's mask,
 * built on the first backward that needs it. */
static int find_or_build(d2_interp *I, tctx *c)
{
    grad_prog *g = c->c->list;
    while (g && strcmp(g->mask, c->mask) != 0)
        g = g->next;
    if (!g) {
        if (!c->c->fwd) {
            d2_raise(I, "RuntimeError",
                     "the backward of %s() runs after its Program was rebuilt; run backward "
                     "before changing the shapes of its parameters",
                     c->fname);
            return -1;
        }
        d2_err err = {0};
        g = build(c->c->fwd, c->n_feeds, c->in_var, c->n_in, c->mask, &err);
        if (!g) {
            d2_raise(I, err.code == D2_ERR_UNSUPPORTED ? "NotImplementedError" : "RuntimeError",
                     "%s() cannot be trained through to_static: its gradient Program cannot "
                     "be built: %s",
                     c->fname, err.msg);
            return -1;
        }
        g->next = c->c->list;
        c->c->list = g;
    }
    c->g = g;
    return 0;
}

int d2_jit_tape_run(d2_interp *I, const char *fname, const d2_program *fwd, d2_obj *lifted,
                    d2_jit_grad **grads, d2_obj **feed_obj, d2_tensor **feed_t, int n_feeds,
                    d2_obj **outs, int n_out, uint64_t rng_offset);

/* create_graph: the gradient run of node n (feeds in, results out) becomes a tape node itself,
 * over the forward's feeds, the output gradients dout and the lifted parameters, whose
 * backward is the gradient Program's own gradient; so a gradient of a to_static run is
 * differentiable again (double grad). Sets din[i] for the needed inputs. 0, or -1. */
static int tape_gradient(d2_interp *I, tctx *c, d2_gnode *n, d2_obj **dout, d2_tensor **in,
                         d2_tensor **out, const bool *need, d2_obj **din)
{
    grad_prog *g = c->g;
    int n_feed_all = g->n_feeds + g->n_tgt, rc = -1;
    d2_obj **fo = d2_calloc((size_t)n_feed_all + 1, sizeof *fo);
    d2_obj **res = d2_calloc((size_t)g->n_yield + 1, sizeof *res);
    d2_obj *lifted = d2_dict_new(I);
    if (!fo || !res || !lifted) {
        nomem(I);
        goto done;
    }
    for (int i = 0; i < g->n_feeds && i < n->n_in; i++)
        fo[i] = n->in[i];
    for (int k = 0; k < g->n_tgt; k++) {
        int s = g->tgt_out[k];
        fo[g->n_feeds + k] = s < n->n_out && dout[s] && is_tensor(dout[s]) ? dout[s] : NULL;
    }
    for (int i = c->n_feeds; i < c->n_in; i++) {
        if (!n->in[i] || c->in_var[i] < 0)
            continue;
        d2_obj *key = d2_int_new(I, i), *var = d2_int_new(I, c->in_var[i]);
        d2_obj *pair = key && var ? d2_tuple_pack(I, 2, n->in[i], var) : NULL;
        int src = pair ? d2_dict_set(I, D2_AS(d2_dict, lifted), key, pair) : -1;
        d2_decref(key);
        d2_decref(var);
        d2_decref(pair);
        if (src < 0)
            goto done;
    }
    for (int k = 0; k < g->n_yield; k++)
        if (!(res[k] = d2_tensor_wrap(I, out[k])))
            goto done;
    if (d2_jit_tape_run(I, c->fname, g->prog, lifted, &g->second, fo, in, n_feed_all, res,
                        g->n_yield, c->rng_offset) < 0)
        goto done;
    for (int k = 0; k < g->n_yield; k++) {
        int i = g->yield_in[k];
        if (need[i] && !din[i])
            din[i] = d2_incref(res[k]);
    }
    rc = 0;
done:
    for (int k = 0; res && k < g->n_yield; k++)
        d2_decref(res[k]);
    d2_free(res);
    d2_free(fo);
    d2_decref(lifted);
    return rc;
}

static int node_backward(d2_interp *I, d2_gnode *n, d2_obj **dout, const bool *need,
                         d2_obj **din, bool create_graph)
{
    tctx *c = n->ctx;
    if (!c->g && find_or_build(I, c) < 0)
        return -1;
    grad_prog *g = c->g;
    int n_feed_all = g->n_feeds + g->n_tgt;
    d2_tensor **in = d2_calloc((size_t)n_feed_all + 1, sizeof *in);
    d2_tensor **out = d2_calloc((size_t)g->n_yield + 1, sizeof *out);
    int rc = -1;
    if (!in || !out) {
        nomem(I);
        goto done;
    }
    if (refresh(I, c, n) < 0)
        goto done;
    for (int i = 0; i < g->n_feeds; i++)
        in[i] = d2_tensor_ref(c->feeds[i]);
    for (int k = 0; k < g->n_tgt; k++) {
        int s = g->tgt_out[k];
        d2_obj *d = s < n->n_out ? dout[s] : NULL;
        if (d && is_tensor(d) && TOBJ(d)->t) {
            in[g->n_feeds + k] = d2_tensor_ref(TOBJ(d)->t);
        } else {
            /* no gradient reached this output: zeros shaped like it */
            d2_err err = {0};
            d2_shape sh;
            d2_tensor_get_shape(n->out[s], &sh);
            d2_tensor *z = d2_tensor_zeros(n->out[s]->dtype, sh.ndim, sh.dims, &err);
            if (!z)
                d2_raise_err(I, &err);
            in[g->n_feeds + k] = z ? d2_pd_to_backend(I, z) : NULL;
        }
        if (!in[g->n_feeds + k])
            goto done;
    }
    d2_err err = {0};
    FILE *saved = d2_print_stream_set(I->opt.out);
    /* the recomputed forward draws the forward run's dropout masks */
    d2_run_limits lim = {0};
    lim.rng_offset = c->rng_offset;
    rc = d2_exec_run_limited(g->pp, c->rng_offset ? &lim : NULL, in, n_feed_all, out, g->n_yield,
                             &err);
    d2_print_stream_set(saved);
    if (rc < 0) {
        d2_raise(I, "RuntimeError", "the backward of %s() failed: %s", c->fname, err.msg);
        goto done;
    }
    if (create_graph) {
        rc = tape_gradient(I, c, n, dout, in, out, need, din);
        goto done;
    }
    for (int k = 0; k < g->n_yield; k++) {
        int i = g->yield_in[k];
        if (!need[i] || din[i])
            continue;
        din[i] = d2_tensor_wrap(I, out[k]);
        if (!din[i]) {
            rc = -1;
            goto done;
        }
    }
done:
    for (int i = 0; in && i < n_feed_all; i++)
        d2_tensor_unref(in[i]);
    for (int k = 0; out && k < g->n_yield; k++)
        d2_tensor_unref(out[k]);
    d2_free(in);
    d2_free(out);
    if (rc < 0)
        for (int i = 0; i < n->n_in; i++)
            d2_setref(&din[i], NULL);
    return rc;
}

static const d2_gnode_vt PROGRAM_NODE = {"RunProgram", node_backward, tctx_free};

/* Whether o is a tensor whose gradient is wanted (float, not stopped). */
static bool wants_grad(d2_obj *o)
{
    return o && is_tensor(o) && TOBJ(o)->t && !TOBJ(o)->stop_gradient &&
           float_tensor(obj_type(o));
}

uint64_t d2_jit_rng_offset(d2_interp *I, const d2_program *p)
{
    for (int b = 0; p && b < p->n_blocks; b++)
        for (int i = 0; i < p->blocks[b].n_ops; i++)
            if (p->blocks[b].ops[i].id == D2_OP_dropout_train)
                return d2_mt64_next(&ST(I)->rng) | 1;
    return 0;
}

int d2_jit_tape_run(d2_interp *I, const char *fname, const d2_program *fwd, d2_obj *lifted,
                    d2_jit_grad **grads, d2_obj **feed_obj, d2_tensor **feed_t, int n_feeds,
                    d2_obj **outs, int n_out, uint64_t rng_offset)
{
    bool any_float = false;
    for (int k = 0; k < n_out; k++)
        any_float |= float_tensor(obj_type(outs[k]));
    d2_dict *ld = lifted && lifted->kind == D2_OBJ_DICT ? D2_AS(d2_dict, lifted) : NULL;
    size_t n_lift = ld ? ld->n : 0;
    int n_in = 0, rc = -1;
    d2_obj **in = d2_calloc((size_t)n_feeds + n_lift + 1, sizeof *in);
    int *in_var = d2_calloc((size_t)n_feeds + n_lift + 1, sizeof *in_var);
    char *mask = d2_calloc((size_t)n_feeds + n_lift + 1, 1);
    tctx *c = NULL;
    if (!in || !in_var || !mask) {
        nomem(I);
        goto done;
    }
    bool any = false;
    for (int i = 0; i < n_feeds; i++) {
        d2_obj *o = feed_obj[i] && is_tensor(feed_obj[i]) ? feed_obj[i] : NULL;
        in[n_in] = o;
        in_var[n_in] = i < fwd->blocks[0].n_params ? fwd->blocks[0].params[i] : -1;
        mask[n_in] = wants_grad(o) ? '1' : '0';
        any |= mask[n_in++] == '1';
    }
    for (size_t j = 0; j < n_lift; j++) {
        d2_dict_entry *de = &ld->entries[j];
        if (!de->key || de->value->kind != D2_OBJ_TUPLE || D2_AS(d2_tuple, de->value)->n != 2)
            continue;
        d2_obj *o = D2_AS(d2_tuple, de->value)->items[0];
        int var = (int)D2_AS(d2_int, D2_AS(d2_tuple, de->value)->items[1])->v;
        if (!is_tensor(o) || !TOBJ(o)->t || var < 0 || var >= fwd->n_vars)
            continue;
        in[n_in] = o;
        in_var[n_in] = var;
        mask[n_in] = wants_grad(o) ? '1' : '0';
        any |= mask[n_in++] == '1';
    }
    if (!d2_pd_grad_enabled(I) || !any || !any_float) {
        for (int k = 0; k < n_out; k++)
            TOBJ(outs[k])->stop_gradient = true;
        rc = 0;
        goto done;
    }
    if (!*grads) {
        if (!(*grads = d2_calloc(1, sizeof **grads))) {
            nomem(I);
            goto done;
        }
        (*grads)->refs = 1;
        (*grads)->fwd = fwd;
    }
    c = d2_calloc(1, sizeof *c);
    if (!c || !(c->feeds = d2_calloc((size_t)n_feeds + 1, sizeof *c->feeds)) ||
        !(c->fname = d2_strdup(fname))) {
        tctx_free(c);
        nomem(I);
        goto done;
    }
    c->c = *grads;
    c->c->refs++;
    c->mask = mask;
    mask = NULL;
    c->n_feeds = n_feeds;
    c->n_in = n_in;
    c->rng_offset = rng_offset;
    c->in_var = in_var;
    in_var = NULL;
    for (int i = 0; i < n_feeds; i++)
        c->feeds[i] = d2_tensor_ref(feed_t[i]);
    rc = d2_pd_tape_custom(I, in, n_in, outs, n_out, &PROGRAM_NODE, c);
    /* integer outputs carry no gradient (the Program's are not differentiable) */
    for (int k = 0; rc == 0 && k < n_out; k++) {
        d2_tensor_obj *t = TOBJ(outs[k]);
        if (!float_tensor(&t->type) && !t->stop_gradient) {
            d2_pd_grad_clear(t);
            t->stop_gradient = true;
        }
    }
done:
    d2_free(in);
    d2_free(in_var);
    d2_free(mask);
    return rc;
}
