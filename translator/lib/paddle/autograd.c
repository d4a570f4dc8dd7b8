/* autograd.c - dygraph autograd: backward over the tape, paddle.grad, gradients, hooks, grad modes. */
#include "lib/paddle/functions_priv.h"

#include <string.h>

#include "grad.h"

/* ======================================================================
 * The builder the gradient rules emit through: handles are tensor objects
 * and every op goes through the normal dispatch, so with create_graph the
 * backward ops are taped too (double grad).
 * ====================================================================== */

typedef struct tape_builder {
    d2_gbuilder base;
    d2_interp *I;
} tape_builder;

static int tb_emit(d2_gbuilder *b, d2_op_id id, const d2_attrs *attrs, d2_gval *ins, int n_in,
                   d2_gval *outs, int n_out, d2_err *err)
{
    d2_interp *I = ((tape_builder *)b)->I;
    d2_obj *sin[16], *sout[16];
    d2_obj **in = n_in <= 16 ? sin : d2_calloc((size_t)n_in, sizeof *in);
    d2_obj **out = n_out <= 16 ? sout : d2_calloc((size_t)n_out, sizeof *out);
    int rc = -1;
    if (!in || !out) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < n_in; i++)
        in[i] = ins[i];
    /* a failure leaves its Python exception pending; err only names the op */
    if (d2_pd_apply_named(I, NULL, id, in, n_in, attrs, out, n_out) < 0) {
        d2_err_set(err, D2_ERR_RUNTIME, "%s", d2_op_def(id)->name);
        goto done;
    }
    for (int i = 0; i < n_out; i++)
        outs[i] = out[i];
    rc = 0;
done:
    if (in != sin)
        d2_free(in);
    if (out != sout)
        d2_free(out);
    return rc;
}

static void tb_type_of(d2_gbuilder *b, d2_gval v, d2_type *out)
{
    D2_UNUSED(b);
    *out = TOBJ((d2_obj *)v)->type;
}

static d2_gval tb_ref(d2_gbuilder *b, d2_gval v)
{
    D2_UNUSED(b);
    return d2_incref((d2_obj *)v);
}

static void tb_release(d2_gbuilder *b, d2_gval v)
{
    D2_UNUSED(b);
    if (v)
        d2_decref((d2_obj *)v);
}

static const d2_gbuilder_vt tape_vt = {tb_emit, tb_type_of, tb_ref, tb_release};

/* ======================================================================
 * Small tensor helpers (run with gradients off unless said otherwise)
 * ====================================================================== */

/* full_like(x, v) as a tensor that stops gradients. */
static d2_obj *filled_like(d2_interp *I, d2_obj *x, double v)
{
    d2_ab b;
    d2_ab_init(&b, D2_OP_full_like);
    d2_ab_float(&b, "value", v);
    ST(I)->no_grad++;
    d2_obj *r = op1(I, "backward", D2_OP_full_like, x, &b);
    ST(I)->no_grad--;
    return r;
}

/* a + b, taped when taped is set. New reference. */
static d2_obj *grad_sum(d2_interp *I, d2_obj *a, d2_obj *b, bool taped)
{
    if (!taped)
        ST(I)->no_grad++;
    d2_obj *r = op2(I, "backward", D2_OP_add, a, b, NULL);
    if (!taped)
        ST(I)->no_grad--;
    return r;
}

/* A new object over g's data that is not on the tape; stop_gradient as given. */
static d2_obj *detached(d2_interp *I, d2_obj *g, bool stop_gradient)
{
    d2_obj *r = d2_tensor_wrap(I, TOBJ(g)->t);
    if (r)
        TOBJ(r)->stop_gradient = stop_gradient;
    return r;
}

/* *slot += g (g borrowed, may be NULL). 0 or -1. */
static int acc_add(d2_interp *I, d2_obj **slot, d2_obj *g, bool taped)
{
    if (!g)
        return 0;
    if (!*slot) {
        *slot = d2_incref(g);
        return 0;
    }
    d2_obj *s = grad_sum(I, *slot, g, taped);
    if (!s)
        return -1;
    d2_decref(*slot);
    *slot = s;
    return 0;
}

/* Adds g to the .grad of leaf t: the first gradient becomes a new tensor;
 * later ones are summed into the same object, as Paddle accumulates across
 * backward calls. */
static int accumulate_grad(d2_interp *I, d2_tensor_obj *t, d2_obj *g)
{
    if (!t->grad) {
        t->grad = detached(I, g, false);
        return t->grad ? 0 : -1;
    }
    d2_obj *s = grad_sum(I, t->grad, g, false);
    if (!s)
        return -1;
    d2_tensor *old = TOBJ(t->grad)->t;
    TOBJ(t->grad)->t = d2_tensor_ref(TOBJ(s)->t);
    d2_tensor_unref(old);
    d2_decref(s);
    return 0;
}

/* A non-leaf that retains its gradient keeps the latest one (Paddle
 * replaces it at each backward rather than summing). */
static int retain_grad(d2_interp *I, d2_tensor_obj *t, d2_obj *g)
{
    if (!t->grad) {
        t->grad = detached(I, g, false);
        return t->grad ? 0 : -1;
    }
    d2_tensor *old = TOBJ(t->grad)->t;
    TOBJ(t->grad)->t = d2_tensor_ref(TOBJ(g)->t);
    d2_tensor_unref(old);
    return 0;
}

/* Runs t's hooks on *g in registration order; a hook's non-None result
 * replaces the gradient. 0 or -1. */
static int run_hooks(d2_interp *I, d2_tensor_obj *t, d2_obj **g)
{
    if (!t->grad_hooks || !*g)
        return 0;
    d2_obj *hooks = d2_incref(t->grad_hooks);
    d2_dict *d = D2_AS(d2_dict, hooks);
    int rc = 0;
    for (size_t i = 0; i < d->n && rc == 0; i++) {
        d2_obj *fn = d->entries[i].value;
        if (!d->entries[i].key || !fn)
            continue;
        /* Paddle hands hooks a gradient with stop_gradient=False: a view of
         * it is made so when it is not already (the object may be shared) */
        d2_obj *arg = TOBJ(*g)->stop_gradient && TOBJ(*g)->t ? d2_tensor_wrap(I, TOBJ(*g)->t)
                                                             : d2_incref(*g);
        if (arg && arg != *g)
            TOBJ(arg)->stop_gradient = false;
        d2_obj *r = arg ? d2_call(I, fn, &arg, 1, NULL) : NULL;
        d2_decref(arg);
        if (!r) {
            rc = -1;
        } else if (!is_none(I, r)) {
            if (!is_tensor(r)) {
                d2_raise(I, "TypeError", "a tensor hook must return a Tensor or None, got %s",
                         d2_type_name(r));
                rc = -1;
            } else {
                d2_setref(g, d2_incref(r));
            }
        }
        d2_decref(r);
    }
    d2_decref(hooks);
    return rc;
}

/* ======================================================================
 * The backward engine
 *
 * From the roots, a depth-first walk over the edges a gradient can take
 * (inputs that do not stop gradients, into inputs the op differentiates)
 * collects the nodes; a node is needed when a target lies below it, when
 * one of its outputs is a target or has hooks, or when its saved values are
 * gone (the second-backward error). Needed nodes then run in topological
 * order (a node once every consumer has delivered its gradient): hooks on
 * the finished output gradients, the op's rule, and the input gradients
 * summed into the producing node's outputs or into the leaves.
 * ====================================================================== */

typedef struct leaf_acc {
    d2_obj *obj; /* reference */
    d2_obj *g;   /* reference or NULL */
} leaf_acc;

typedef struct engine {
    d2_interp *I;
    tape_builder tb;
    unsigned epoch;
    bool create_graph, retain_graph;
    bool grad_mode;          /* paddle.grad: gradients of targets, .grad untouched */
    d2_obj **targets;        /* grad_mode: the inputs (borrowed) */
    size_t n_targets;
    d2_obj **results;        /* grad_mode: their gradients (references) */
    bool *reached;
    d2_obj **blocked;        /* no_grad_vars (borrowed) */
    size_t n_blocked;
    d2_gnode **nodes;        /* every node reached (a reference each) */
    size_t n_nodes, cap_nodes;
    leaf_acc *leaves;
    size_t n_leaves, cap_leaves;
} engine;

static bool is_blocked(engine *e, d2_obj *o)
{
    for (size_t k = 0; k < e->n_blocked; k++) {
        d2_obj *b = e->blocked[k];
        if (b == o || (TOBJ(o)->grad_node && TOBJ(b)->grad_node == TOBJ(o)->grad_node &&
                       TOBJ(b)->grad_slot == TOBJ(o)->grad_slot))
            return true;
    }
    return false;
}

/* Whether a gradient can flow from node n into its input i. An op without
 * a rule is taken as differentiable everywhere, so that backward reaches it
 * and says that its rule is missing. */
static bool edge_open(engine *e, const d2_gnode *n, int i)
{
    d2_obj *o = n->in[i];
    return o && !TOBJ(o)->stop_gradient &&
           (n->vt || !d2_op_grad(n->op) || d2_op_input_differentiable(n->op, i)) &&
           !is_blocked(e, o);
}

static bool leaf_target(engine *e, d2_obj *o)
{
    if (!e->grad_mode)
        return true;
    for (size_t k = 0; k < e->n_targets; k++)
        if (e->targets[k] == o)
            return true;
    return false;
}

/* Whether the gradient delivered through open edge i of n is wanted. */
static bool edge_wanted(engine *e, const d2_gnode *n, int i)
{
    d2_tensor_obj *o = TOBJ(n->in[i]);
    return o->grad_node ? o->grad_node->needed : leaf_target(e, n->in[i]);
}

static bool node_watched(engine *e, const d2_gnode *n)
{
    for (int s = 0; s < n->n_out; s++)
        if (n->watch[s])
            return true;
    for (size_t k = 0; e->grad_mode && k < e->n_targets; k++)
        if (TOBJ(e->targets[k])->grad_node == n)
            return true;
    return false;
}

static int add_node(engine *e, d2_gnode *n)
{
    if (e->n_nodes == e->cap_nodes) {
        size_t cap = e->cap_nodes ? e->cap_nodes * 2 : 32;
        d2_gnode **p = d2_realloc(e->nodes, cap * sizeof *p);
        if (!p)
            return -1;
        e->nodes = p;
        e->cap_nodes = cap;
    }
    e->nodes[e->n_nodes++] = n;
    d2_pd_gnode_ref(n);
    n->mark = e->epoch;
    n->needed = false;
    n->pending = 0;
    return 0;
}

/* The depth-first walk from the roots' nodes; marks the needed ones. */
static int collect(engine *e, d2_gnode **roots, size_t n_roots)
{
    typedef struct {
        d2_gnode *n;
        int i;
    } frame;
    size_t cap = 64, sp = 0;
    frame *st = d2_malloc(cap * sizeof *st);
    if (!st)
        return -1;
    for (size_t r = 0; r < n_roots; r++) {
        if (!roots[r] || roots[r]->mark == e->epoch)
            continue;
        if (add_node(e, roots[r]) < 0)
            goto oom;
        st[sp++] = (frame){roots[r], 0};
        while (sp > 0) {
            frame *f = &st[sp - 1];
            d2_gnode *n = f->n;
            if (f->i < n->n_in) {
                int i = f->i++;
                if (!edge_open(e, n, i))
                    continue;
                d2_gnode *c = TOBJ(n->in[i])->grad_node;
                if (!c || c->mark == e->epoch)
                    continue;
                if (add_node(e, c) < 0)
                    goto oom;
                if (sp == cap) {
                    frame *p = d2_realloc(st, cap * 2 * sizeof *st);
                    if (!p)
                        goto oom;
                    st = p;
                    cap *= 2;
                }
                st[sp++] = (frame){c, 0};
                continue;
            }
            /* every child is finished: n's needed is final */
            bool needed = n->released || node_watched(e, n);
            for (int i = 0; !needed && i < n->n_in; i++)
                needed = edge_open(e, n, i) && edge_wanted(e, n, i);
            n->needed = needed;
            sp--;
        }
    }
    d2_free(st);
    return 0;
oom:
    d2_free(st);
    return -1;
}

/* The gradient accumulated for leaf o (found or made). */
static leaf_acc *leaf_slot(engine *e, d2_obj *o)
{
    for (size_t k = 0; k < e->n_leaves; k++)
        if (e->leaves[k].obj == o)
            return &e->leaves[k];
    if (e->n_leaves == e->cap_leaves) {
        size_t cap = e->cap_leaves ? e->cap_leaves * 2 : 16;
        leaf_acc *p = d2_realloc(e->leaves, cap * sizeof *p);
        if (!p)
            return NULL;
        e->leaves = p;
        e->cap_leaves = cap;
    }
    leaf_acc *l = &e->leaves[e->n_leaves++];
    l->obj = d2_incref(o);
    l->g = NULL;
    return l;
}

/* Delivers gradient g (borrowed, NULL for zero) into input object o. */
static int deliver(engine *e, d2_obj *o, d2_obj *g)
{
    d2_tensor_obj *t = TOBJ(o);
    if (t->grad_node)
        return acc_add(e->I, &t->grad_node->acc[t->grad_slot], g, e->create_graph);
    leaf_acc *l = leaf_slot(e, o);
    if (!l) {
        nomem(e->I);
        return -1;
    }
    return acc_add(e->I, &l->g, g, e->create_graph);
}

/* Paddle's name of the backward node of op (CamelCase + "GradNode"). */
static void node_name(const d2_gnode *node, char *buf, size_t n)
{
    const char *s = node->vt ? node->vt->name : d2_op_def(node->op)->name;
    size_t k = 0;
    bool up = true;
    for (; *s && k + 9 < n; s++) {
        if (*s == '_') {
            up = true;
            continue;
        }
        buf[k++] = up && *s >= 'a' && *s <= 'z' ? (char)(*s - 'a' + 'A') : *s;
        up = false;
    }
    snprintf(buf + k, n - k, "GradNode");
}

/* Hooks and retain_grads at n's finished output gradients; targets that
 * are n's outputs take theirs. */
static int finish_outputs(engine *e, d2_gnode *n)
{
    d2_interp *I = e->I;
    for (int s = 0; s < n->n_out; s++) {
        d2_tensor_obj *w = n->watch[s];
        if (!w || !n->acc[s])
            continue;
        d2_obj *pin = d2_incref(&w->h);
        int rc = run_hooks(I, w, &n->acc[s]);
        if (rc == 0 && w->retain_grads)
            rc = retain_grad(I, w, n->acc[s]);
        d2_decref(pin);
        if (rc < 0)
            return -1;
    }
    for (size_t k = 0; e->grad_mode && k < e->n_targets; k++) {
        d2_tensor_obj *t = TOBJ(e->targets[k]);
        if (t->grad_node != n || e->reached[k])
            continue;
        e->reached[k] = true;
        if (n->acc[t->grad_slot])
            e->results[k] = d2_incref(n->acc[t->grad_slot]);
    }
    return 0;
}

/* Runs node n's rule and delivers its input gradients; a node whose last
 * consumer this was joins queue (room for every node reached). */
static int run_node(engine *e, d2_gnode *n, d2_gnode **queue, size_t *qn)
{
    d2_interp *I = e->I;
    if (finish_outputs(e, n) < 0)
        return -1;
    if (n->released) {
        char name[96];
        node_name(n, name, sizeof name);
        d2_raise(I, "SystemError",
                 "(Fatal) The TensorWrappers of %s do not exist. This may be because:\n"
                 "You calculate backward twice for the same subgraph without setting "
                 "retain_graph=True. Please set retain_graph=True in the first backward/grad "
                 "call.\n",
                 name);
        return -1;
    }
    int nin = n->n_in, nout = n->n_out;
    size_t sz = (size_t)nin * (2 * sizeof(d2_gval) + sizeof(bool)) +
                (size_t)nout * 2 * sizeof(d2_gval);
    d2_gval *in = d2_calloc(1, sz ? sz : 1);
    if (!in) {
        nomem(I);
        return -1;
    }
    d2_gval *din = in + nin, *out = din + nin, *dout = out + nout;
    bool *need = (bool *)(dout + nout);
    bool any_need = false, any_dout = false;
    for (int i = 0; i < nin; i++) {
        in[i] = n->in[i];
        need[i] = edge_open(e, n, i) && edge_wanted(e, n, i);
        any_need |= need[i];
    }
    for (int s = 0; s < nout; s++) {
        dout[s] = n->acc[s];
        any_dout |= n->acc[s] != NULL;
    }
    int rc = 0;
    if (any_need && any_dout && n->vt) {
        d2_obj **od = d2_calloc((size_t)(nin + nout) + 1, sizeof *od), **oi = od + nout;
        if (!od) {
            nomem(I);
            rc = -1;
        } else {
            for (int s = 0; s < nout; s++)
                od[s] = n->acc[s];
            if (!e->create_graph)
                ST(I)->no_grad++;
            rc = n->vt->backward(I, n, od, need, oi, e->create_graph);
            if (!e->create_graph)
                ST(I)->no_grad--;
            for (int i = 0; i < nin; i++)
                din[i] = oi[i];
            d2_free(od);
        }
    } else if (any_need && any_dout) {
        for (int s = 0; s < nout && rc == 0; s++) {
            d2_obj *w = d2_tensor_wrap(I, n->out[s]);
            if (!w) {
                rc = -1;
                break;
            }
            /* as a differentiable value (create_graph), the output points
             * back at its node */
            if (e->create_graph && n->out_diff[s]) {
                TOBJ(w)->stop_gradient = false;
                TOBJ(w)->grad_node = n;
                TOBJ(w)->grad_slot = s;
                d2_pd_gnode_ref(n);
            }
            out[s] = w;
        }
        if (rc == 0 && !d2_op_grad(n->op)) {
            d2_raise(I, "NotImplementedError", "no gradient rule for op %s",
                     d2_op_def(n->op)->name);
            rc = -1;
        }
        if (rc == 0) {
            d2_err err;
            D2_ERR_FRESH(err);
            d2_gctx g = {.b = &e->tb.base,
                         .def = d2_op_def(n->op),
                         .attrs = &n->attrs,
                         .n_in = nin,
                         .in = in,
                         .n_out = nout,
                         .out = out,
                         .dout = dout,
                         .need = need,
                         .din = din,
                         .err = &err};
            if (!e->create_graph)
                ST(I)->no_grad++;
            rc = d2_grad_run(&g);
            if (!e->create_graph)
                ST(I)->no_grad--;
            if (rc < 0 && !d2_exc_pending(I))
                d2_raise(I, err.code == D2_ERR_UNSUPPORTED ? "NotImplementedError"
                                                           : "RuntimeError",
                         "%s", err.msg);
        }
        for (int s = 0; s < nout; s++)
            if (out[s])
                d2_decref((d2_obj *)out[s]);
    }
    for (int i = 0; i < nin; i++) {
        d2_obj *g = din[i];
        if (rc == 0 && g && need[i]) {
            const d2_type *want = obj_type(n->in[i]), *got = obj_type(g);
            if (got->dtype != want->dtype || !d2_shape_equal(&got->shape, &want->shape)) {
                char a[160], b[160];
                d2_type_str(got, a, sizeof a);
                d2_type_str(want, b, sizeof b);
                d2_raise(I, "RuntimeError",
                         "internal: the gradient rule of %s gave input %d a gradient of type %s "
                         "for a value of type %s",
                         n->vt ? n->vt->name : d2_op_def(n->op)->name, i, a, b);
                rc = -1;
            }
        }
        if (rc == 0 && need[i]) {
            rc = deliver(e, n->in[i], g);
            d2_gnode *c = TOBJ(n->in[i])->grad_node;
            if (rc == 0 && c && --c->pending == 0)
                queue[(*qn)++] = c;
        }
        if (g)
            d2_decref(g);
    }
    d2_free(in);
    if (rc < 0)
        return -1;
    for (int s = 0; s < nout; s++)
        d2_setref(&n->acc[s], NULL);
    if (!e->retain_graph)
        d2_pd_gnode_release(n);
    return 0;
}

static void engine_free(engine *e)
{
    for (size_t k = 0; k < e->n_nodes; k++) {
        d2_gnode *n = e->nodes[k];
        for (int s = 0; s < n->n_out; s++)
            d2_setref(&n->acc[s], NULL);
        n->mark = 0;
        d2_pd_gnode_unref(n);
    }
    d2_free(e->nodes);
    for (size_t k = 0; k < e->n_leaves; k++) {
        d2_decref(e->leaves[k].obj);
        if (e->leaves[k].g)
            d2_decref(e->leaves[k].g);
    }
    d2_free(e->leaves);
}

/* Runs backward from roots[k] with seed gradients seeds[k] (borrowed). In
 * grad_mode the targets' gradients land in e->results; otherwise leaves
 * (and tensors that retain their gradient) accumulate them into .grad. */
static int engine_run(engine *e, d2_obj **roots, d2_obj **seeds, size_t n_roots)
{
    d2_interp *I = e->I;
    pd_state *st = ST(I);
    if (st->in_backward) {
        d2_raise(I, "RuntimeError", "backward cannot run inside a backward hook");
        return -1;
    }
    for (size_t r = 0; r < n_roots; r++)
        for (size_t q = 0; q < r; q++)
            if (roots[q] == roots[r]) {
                d2_raise(I, "RuntimeError",
                         "(AlreadyExists) outputs contain duplicate tensor , please check "
                         "outputs carefully.");
                return -1;
            }
    st->in_backward = true;
    e->tb.base.vt = &tape_vt;
    e->tb.I = I;
    if (++st->grad_epoch == 0) /* 0 is the mark of a node never reached */
        st->grad_epoch = 1;
    e->epoch = st->grad_epoch;
    int rc = -1;
    size_t qn = 0;
    d2_gnode **queue = NULL;
    d2_gnode **rn = d2_calloc(n_roots + 1, sizeof *rn);
    if (!rn) {
        nomem(I);
        goto done;
    }
    for (size_t r = 0; r < n_roots; r++)
        rn[r] = TOBJ(roots[r])->grad_node;
    if (collect(e, rn, n_roots) < 0 || !(queue = d2_malloc((e->n_nodes + 1) * sizeof *queue))) {
        nomem(I);
        goto done;
    }
    for (size_t k = 0; k < e->n_nodes; k++) {
        d2_gnode *n = e->nodes[k];
        if (!n->needed)
            continue;
        for (int i = 0; i < n->n_in; i++)
            if (edge_open(e, n, i) && edge_wanted(e, n, i) && TOBJ(n->in[i])->grad_node)
                TOBJ(n->in[i])->grad_node->pending++;
    }
    for (size_t r = 0; r < n_roots; r++) {
        if (rn[r] ? !rn[r]->needed : !leaf_target(e, roots[r]))
            continue;
        if (deliver(e, roots[r], seeds[r]) < 0)
            goto done;
    }
    /* each node joins the queue once: a root nobody consumes now (two
     * outputs of one node only once), the others when their last consumer ran */
    for (size_t r = 0; r < n_roots; r++) {
        d2_gnode *n = rn[r];
        bool dup = false;
        for (size_t q = 0; q < r && !dup; q++)
            dup = rn[q] == n;
        if (n && !dup && n->needed && n->pending == 0)
            queue[qn++] = n;
    }
    for (size_t head = 0; head < qn; head++)
        if (run_node(e, queue[head], queue, &qn) < 0)
            goto done;
    /* the leaves' gradients are complete: their hooks (backward only, as
     * Paddle's paddle.grad skips them), then .grad or results */
    for (size_t k = 0; k < e->n_leaves; k++) {
        leaf_acc *l = &e->leaves[k];
        if (!e->grad_mode && run_hooks(I, TOBJ(l->obj), &l->g) < 0)
            goto done;
        if (e->grad_mode) {
            for (size_t j = 0; j < e->n_targets; j++)
                if (e->targets[j] == l->obj && !e->reached[j]) {
                    e->reached[j] = true;
                    e->results[j] = l->g ? d2_incref(l->g) : NULL;
                }
        } else if (l->g && accumulate_grad(I, TOBJ(l->obj), l->g) < 0) {
            goto done;
        }
    }
    rc = 0;
done:
    d2_free(rn);
    d2_free(queue);
    engine_free(e);
    st->in_backward = false;
    return rc;
}

/* ======================================================================
 * Tensor.backward, paddle.grad, paddle.autograd.backward
 * ====================================================================== */

/* The seed gradient of root t: g (checked against t's shape) or ones. */
static d2_obj *seed_for(d2_interp *I, d2_obj *t, d2_obj *g)
{
    if (is_none(I, g))
        return filled_like(I, t, 1.0);
    if (!is_tensor(g))
        return d2_raise(I, "TypeError", "grad_tensor must be a Tensor or None, got %s",
                        d2_type_name(g));
    if (!d2_shape_equal(&obj_type(g)->shape, &obj_type(t)->shape)) {
        d2_buf a = {0}, b = {0};
        d2_pd_shape_list_str(&a, &obj_type(g)->shape);
        d2_pd_shape_list_str(&b, &obj_type(t)->shape);
        d2_obj *r = d2_raise(I, "AssertionError",
                             "Tensor shape not match, Tensor of grad_tensor [ %s ] with shape %s "
                             "mismatch Tensor [ %s ] with shape %s",
                             TOBJ(g)->name ? TOBJ(g)->name : "generated_tensor",
                             a.data ? a.data : "[]",
                             TOBJ(t)->name ? TOBJ(t)->name : "eager_tmp", b.data ? b.data : "[]");
        d2_buf_free(&a);
        d2_buf_free(&b);
        return r;
    }
    return d2_incref(g);
}

/* Items of a Tensor or a list/tuple of Tensors into a new array; *n set. */
static d2_obj **tensor_list(d2_interp *I, d2_obj *o, const char *fname, const char *what,
                            size_t *n, bool none_ok)
{
    size_t k = is_tensor(o) ? 1 : is_seq(o) ? seq_len(o) : 0;
    if (!is_tensor(o) && !is_seq(o)) {
        d2_raise(I, "TypeError", "%s: %s must be a Tensor or a list of Tensors, got %s", fname,
                 what, d2_type_name(o));
        return NULL;
    }
    d2_obj **v = d2_calloc(k + 1, sizeof *v);
    if (!v) {
        nomem(I);
        return NULL;
    }
    for (size_t i = 0; i < k; i++) {
        d2_obj *x = is_tensor(o) ? o : seq_item(o, i);
        if (!is_tensor(x) && !(none_ok && is_none(I, x))) {
            d2_free(v);
            d2_raise(I, "TypeError", "%s: %s must be Tensors, got %s", fname, what,
                     d2_type_name(x));
            return NULL;
        }
        if (is_tensor(x) && is_sym(x)) {
            d2_free(v);
            d2_raise(I, "TypeError",
                     "%s: a symbolic tensor (inside to_static) has no dygraph gradient", fname);
            return NULL;
        }
        v[i] = is_tensor(x) ? x : NULL;
    }
    *n = k;
    return v;
}

/* backward from roots with optional seeds (grad_tensors, may be NULL). */
/* Calls the functions of the list paddle._backward_final_hooks (registered by higher floors:
 * paddle.DataParallel's gradient averaging) once a backward has completed. */
static int run_final_hooks(d2_interp *I)
{
    d2_obj *l = d2_dict_get_str(I, ST(I)->paddle->dict, "_backward_final_hooks");
    if (!l || l->kind != D2_OBJ_LIST)
        return 0;
    d2_obj *hooks = d2_incref(l);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < D2_AS(d2_list, hooks)->n; k++) {
        d2_obj *v = d2_call(I, D2_AS(d2_list, hooks)->items[k], NULL, 0, NULL);
        if (!v)
            rc = -1;
        d2_decref(v);
    }
    d2_decref(hooks);
    return rc;
}

static d2_obj *do_backward(d2_interp *I, const char *fname, d2_obj *tensors, d2_obj *grads,
                           d2_obj *retain)
{
    size_t n = 0, ng = 0;
    bool retain_graph;
    if (d2_pd_get_bool(I, retain, fname, "retain_graph", &retain_graph) < 0)
        return NULL;
    d2_obj **roots = tensor_list(I, tensors, fname, "tensors", &n, false);
    if (!roots)
        return NULL;
    d2_obj **gs = NULL;
    if (!is_none(I, grads)) {
        gs = tensor_list(I, grads, fname, "grad_tensors", &ng, true);
        if (!gs) {
            d2_free(roots);
            return NULL;
        }
        if (ng != n) {
            d2_free(roots);
            d2_free(gs);
            return d2_raise(I, "AssertionError",
                            "The length of grad_tensors must be equal to tensors");
        }
    }
    d2_obj **seeds = d2_calloc(n + 1, sizeof *seeds);
    d2_obj **live = d2_calloc(n + 1, sizeof *live);
    size_t nl = 0;
    d2_obj *r = NULL;
    if (!seeds || !live) {
        nomem(I);
        goto done;
    }
    /* tensors that stop gradients have nothing to propagate (Paddle does nothing) */
    for (size_t i = 0; i < n; i++) {
        if (TOBJ(roots[i])->stop_gradient)
            continue;
        seeds[nl] = seed_for(I, roots[i], gs ? gs[i] : NULL);
        if (!seeds[nl])
            goto done;
        live[nl++] = roots[i];
    }
    engine e = {.I = I, .retain_graph = retain_graph};
    if (nl && (engine_run(&e, live, seeds, nl) < 0 || run_final_hooks(I) < 0))
        goto done;
    r = d2_none(I);
done:
    for (size_t i = 0; seeds && i < n; i++)
        if (seeds[i])
            d2_decref(seeds[i]);
    d2_free(seeds);
    d2_free(live);
    d2_free(roots);
    d2_free(gs);
    return r;
}

D2_FN(m_backward) /* self, a[0] grad_tensor, a[1] retain_graph */
{
    d2_obj *g = a[0];
    d2_obj *one[1] = {self};
    d2_obj *gl = NULL;
    if (!is_none(I, g)) {
        gl = d2_list_new(I, 0);
        if (!gl || d2_list_append(I, gl, g) < 0) {
            d2_decref(gl);
            return NULL;
        }
    }
    d2_obj *lst = d2_tuple_from_array(I, one, 1);
    d2_obj *r = lst ? do_backward(I, "Tensor.backward", lst, gl ? gl : I->none, a[1]) : NULL;
    d2_decref(lst);
    d2_decref(gl);
    return r;
}

D2_FN(f_autograd_backward) /* a[0] tensors, a[1] grad_tensors, a[2] retain_graph */
{
    return do_backward(I, "paddle.autograd.backward", a[0], a[1], a[2]);
}

D2_FN(f_grad) /* outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
                 allow_unused, no_grad_vars */
{
    const char *fname = def->qualname;
    bool create_graph, allow_unused, retain_graph;
    if (d2_pd_get_bool(I, a[4], fname, "create_graph", &create_graph) < 0 ||
        d2_pd_get_bool(I, a[6], fname, "allow_unused", &allow_unused) < 0)
        return NULL;
    /* Paddle 2.6's paddle.grad keeps the graph whatever retain_graph says:
     * a later backward through it still works */
    if (!is_none(I, a[3]) && d2_pd_get_bool(I, a[3], fname, "retain_graph", &retain_graph) < 0)
        return NULL;
    retain_graph = true;
    size_t no = 0, ni = 0, ng = 0, nb = 0;
    d2_obj **outs = NULL, **ins = NULL, **gs = NULL, **blocked = NULL, **seeds = NULL;
    d2_obj **results = NULL;
    bool *reached = NULL;
    d2_obj *r = NULL;
    if (!(outs = tensor_list(I, a[0], fname, "outputs", &no, false)) ||
        !(ins = tensor_list(I, a[1], fname, "inputs", &ni, false)))
        goto done;
    if (!is_none(I, a[2])) {
        if (!(gs = tensor_list(I, a[2], fname, "grad_outputs", &ng, true)))
            goto done;
        if (ng != no) {
            d2_raise(I, "AssertionError",
                     "The length of grad_outputs must be equal to outputs");
            goto done;
        }
    }
    if (!is_none(I, a[7])) {
        if (!(blocked = tensor_list(I, a[7], fname, "no_grad_vars", &nb, false)))
            goto done;
    }
    seeds = d2_calloc(no + 1, sizeof *seeds);
    results = d2_calloc(ni + 1, sizeof *results);
    reached = d2_calloc(ni + 1, sizeof *reached);
    if (!seeds || !results || !reached) {
        nomem(I);
        goto done;
    }
    for (size_t i = 0; i < no; i++)
        if (!(seeds[i] = seed_for(I, outs[i], gs ? gs[i] : NULL)))
            goto done;
    engine e = {.I = I,
                .create_graph = create_graph,
                .retain_graph = retain_graph,
                .grad_mode = true,
                .targets = ins,
                .n_targets = ni,
                .results = results,
                .reached = reached,
                .blocked = blocked,
                .n_blocked = nb};
    if (engine_run(&e, outs, seeds, no) < 0)
        goto done;
    d2_obj *lst = d2_list_new(I, ni);
    if (!lst)
        goto done;
    for (size_t k = 0; k < ni; k++) {
        d2_obj *g;
        if (!reached[k] && !allow_unused) {
            d2_decref(lst);
            d2_raise(I, "ValueError",
                     "(InvalidArgument) The %zu-th input does not appear in the backward graph. "
                     "Please check the input tensor or set allow_unused=True to get None result.\n"
                     "  [Hint: Expected allow_unused == true, but received allow_unused:0 != "
                     "true:1.]",
                     k);
            goto done;
        }
        if (!reached[k])
            g = d2_none(I);
        else if (!results[k])
            g = filled_like(I, ins[k], 0.0);
        else if (create_graph) /* differentiable, even where constant (Paddle) */
            g = TOBJ(results[k])->stop_gradient ? detached(I, results[k], false)
                                                : d2_incref(results[k]);
        else
            g = detached(I, results[k], true);
        if (!g) {
            d2_decref(lst);
            goto done;
        }
        D2_AS(d2_list, lst)->items[k] = g;
    }
    r = lst;
done:
    for (size_t i = 0; seeds && i < no; i++)
        if (seeds[i])
            d2_decref(seeds[i]);
    for (size_t i = 0; results && i < ni; i++)
        if (results[i])
            d2_decref(results[i]);
    d2_free(seeds);
    d2_free(results);
    d2_free(reached);
    d2_free(outs);
    d2_free(ins);
    d2_free(gs);
    d2_free(blocked);
    return r;
}

/* ======================================================================
 * Gradients on tensors: grad, gradient(), clear_grad, hooks, retain_grads
 * ====================================================================== */

d2_obj *d2_pd_tensor_grad(d2_interp *I, d2_obj *o)
{
    d2_obj *g = TOBJ(o)->grad;
    return g ? d2_incref(g) : d2_none(I);
}

int d2_pd_set_tensor_grad(d2_interp *I, d2_obj *o, d2_obj *v)
{
    if (!is_tensor(v) || is_sym(v) || is_sym(o)) {
        d2_raise(I, "ValueError",
                 "(InvalidArgument) argument (position 1) must be Tensor, but got %s",
                 is_tensor(v) ? "a symbolic Tensor" : d2_type_name(v));
        return -1;
    }
    if (!d2_shape_equal(&obj_type(v)->shape, &obj_type(o)->shape) ||
        obj_type(v)->dtype != obj_type(o)->dtype) {
        char a[160], b[160];
        d2_type_str(obj_type(v), a, sizeof a);
        d2_type_str(obj_type(o), b, sizeof b);
        d2_raise(I, "ValueError", "Tensor.grad: a gradient of type %s for a tensor of type %s", a,
                 b);
        return -1;
    }
    d2_obj *g = detached(I, v, false);
    if (!g)
        return -1;
    d2_setref(&TOBJ(o)->grad, g);
    return 0;
}

int d2_pd_clear_grad(d2_interp *I, d2_obj *o, bool set_to_zero)
{
    d2_tensor_obj *t = TOBJ(o);
    if (!t->grad)
        return 0;
    if (!set_to_zero) {
        d2_setref(&t->grad, NULL);
        return 0;
    }
    /* a gradient nothing else shares (the usual case between steps) is
     * zeroed where it lies, as Paddle does, instead of through a new tensor */
    d2_tensor *g = TOBJ(t->grad)->t;
    if (g && !D2_MODE(I)->tracer && g->kind == D2_VALUE_TENSOR && g->storage &&
        __atomic_load_n(&g->refcount, __ATOMIC_ACQUIRE) == 1 &&
        __atomic_load_n(&g->storage->refcount, __ATOMIC_ACQUIRE) == 1 &&
        g->storage->backend == d2_cpu_backend() && d2_tensor_is_contiguous(g)) {
        size_t nb = (size_t)d2_tensor_numel(g) * d2_dtype_size(g->dtype);
        if (nb)
            memset((char *)g->storage->data + (size_t)g->offset * d2_dtype_size(g->dtype), 0, nb);
        return 0;
    }
    d2_obj *z = filled_like(I, t->grad, 0.0);
    if (!z)
        return -1;
    d2_tensor *old = TOBJ(t->grad)->t;
    TOBJ(t->grad)->t = d2_tensor_ref(TOBJ(z)->t);
    d2_tensor_unref(old);
    d2_decref(z);
    return 0;
}

D2_FN(m_gradient)
{
    d2_obj *g = TOBJ(self)->grad;
    if (!g)
        return d2_none(I);
    d2_tensor *h = d2_pd_host(I, g, "Tensor.gradient");
    if (!h)
        return NULL;
    d2_err err = {0};
    d2_tensor *c = d2_tensor_copy_to(h, NULL, &err);
    d2_tensor_unref(h);
    if (!c)
        return d2_raise_err(I, &err);
    return d2_pd_ndarray_take(I, c);
}

D2_FN(m_clear_grad) /* a[0] set_to_zero */
{
    bool z;
    if (d2_pd_get_bool(I, a[0], def->qualname, "set_to_zero", &z) < 0 ||
        d2_pd_clear_grad(I, self, z) < 0)
        return NULL;
    return d2_none(I);
}

/* Where a non-leaf's hooks and retain_grads are found during backward. */
static int watch(d2_interp *I, d2_tensor_obj *t)
{
    d2_gnode *n = t->grad_node;
    if (!n)
        return 0;
    if (n->watch[t->grad_slot] && n->watch[t->grad_slot] != t) {
        d2_raise(I, "RuntimeError",
                 "another Tensor object of the same value already holds hooks or retain_grads");
        return -1;
    }
    n->watch[t->grad_slot] = t;
    return 0;
}

D2_FN(m_register_hook) /* a[0] hook */
{
    d2_tensor_obj *t = TOBJ(self);
    if (t->stop_gradient)
        return d2_raise(I, "RuntimeError",
                        "Cannot register hook on a tensor that stop gradient.");
    if (!t->grad_hooks && !(t->grad_hooks = d2_dict_new(I)))
        return NULL;
    if (watch(I, t) < 0)
        return NULL;
    pd_state *s = ST(I);
    d2_obj *id = d2_int_new(I, ++s->hook_ids);
    if (!id || d2_dict_set(I, D2_AS(d2_dict, t->grad_hooks), id, a[0]) < 0) {
        d2_decref(id);
        return NULL;
    }
    d2_obj *h = d2_instance_new(I, s->tensor_hook_cls);
    if (!h || iset(I, h, "_tensor", self) < 0 || iset(I, h, "_id", id) < 0) {
        d2_decref(h);
        h = NULL;
    }
    d2_decref(id);
    return h;
}

D2_FN(m_hook_remove)
{
    d2_obj *t = iget(I, self, "_tensor"), *id = iget(I, self, "_id");
    if (!t || !id || !is_tensor(t))
        return d2_bool(I, false);
    d2_obj *hooks = TOBJ(t)->grad_hooks;
    if (!hooks || !d2_dict_get(I, D2_AS(d2_dict, hooks), id))
        return d2_bool(I, false);
    if (d2_dict_del(I, D2_AS(d2_dict, hooks), id) < 0)
        return NULL;
    return d2_bool(I, true);
}

D2_FN(m_retain_grads)
{
    d2_tensor_obj *t = TOBJ(self);
    if (t->stop_gradient || !t->grad_node)
        return d2_none(I);
    if (watch(I, t) < 0)
        return NULL;
    t->retain_grads = true;
    return d2_none(I);
}

/* ======================================================================
 * Grad modes: set_grad_enabled, is_grad_enabled, enable_grad
 * ====================================================================== */

D2_FN(f_is_grad_enabled) { return d2_bool(I, d2_pd_grad_enabled(I)); }

/* set_grad_enabled(mode) takes effect at the call, and as a context
 * restores the previous mode at exit. */
D2_FN(SGE_init) /* a[0] mode */
{
    bool mode;
    if (d2_pd_get_bool(I, a[0], "paddle.set_grad_enabled", "mode", &mode) < 0)
        return NULL;
    d2_obj *prev = d2_int_new(I, ST(I)->no_grad);
    if (iset_take(I, self, "_prev", prev) < 0)
        return NULL;
    ST(I)->no_grad = mode ? 0 : 1;
    return d2_none(I);
}

/* enable_grad(): gradients on inside the block. */
D2_FN(EG_enter)
{
    d2_obj *prev = d2_int_new(I, ST(I)->no_grad);
    if (iset_take(I, self, "_prev", prev) < 0)
        return NULL;
    ST(I)->no_grad = 0;
    return d2_none(I);
}

D2_FN(GM_enter) { return d2_none(I); }

D2_FN(GM_exit) /* a[0] *args */
{
    d2_obj *prev = iget(I, self, "_prev");
    if (prev && is_int(prev))
        ST(I)->no_grad = (int)D2_AS(d2_int, prev)->v;
    return d2_bool(I, false);
}

/* The function enable_grad()(fn) returns: fn with gradients on. */
static d2_obj *EG_wrapped(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    int prev = ST(I)->no_grad;
    ST(I)->no_grad = 0;
    d2_obj *r = d2_call(I, self, args, nargs, kw);
    ST(I)->no_grad = prev;
    return r;
}

D2_FN(EG_call) /* a[0] func */
{
    return d2_builtin_new(I, "enable_grad_wrapper", EG_wrapped, a[0], NULL);
}

/* ======================================================================
 * The rows
 * ====================================================================== */

static const d2_def TENSOR_GRAD_DEFS[] = {
    D2_DEF("backward", "grad_tensor=None, retain_graph=False", m_backward, "Tensor.backward"),
    D2_DEF("gradient", "", m_gradient, "Tensor.gradient"),
    D2_DEF("clear_grad", "set_to_zero=True", m_clear_grad, "Tensor.clear_grad"),
    D2_DEF("clear_gradient", "set_to_zero=True", m_clear_grad, "Tensor.clear_gradient"),
    D2_DEF("register_hook", "hook", m_register_hook, "Tensor.register_hook"),
    D2_DEF("retain_grads", "", m_retain_grads, "Tensor.retain_grads"),
};

#define GRAD_SIG                                                                                   \
    "outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, "                  \
    "only_inputs=True, allow_unused=False, no_grad_vars=None"

static const d2_def PADDLE_GRAD_DEFS[] = {
    D2_DEF("grad", GRAD_SIG, f_grad, "paddle.grad"),
    D2_DEF("is_grad_enabled", "", f_is_grad_enabled, "paddle.is_grad_enabled"),
};

static const d2_def AUTOGRAD_DEFS[] = {
    D2_DEF("grad", GRAD_SIG, f_grad, "paddle.autograd.grad"),
    D2_DEF("backward", "tensors, grad_tensors=None, retain_graph=False", f_autograd_backward,
           "paddle.autograd.backward"),
};

static const d2_def DYGRAPH_GRAD_DEFS[] = {
    D2_DEF("grad", GRAD_SIG, f_grad, "fluid.dygraph.grad"),
};

static const d2_def HOOK_DEFS[] = {
    D2_DEF("remove", "", m_hook_remove, "TensorHookRemoveHelper.remove"),
};

static const d2_def SGE_DEFS[] = {
    D2_DEF("__init__", "mode", SGE_init, "paddle.set_grad_enabled"),
    D2_DEF("__enter__", "", GM_enter, "set_grad_enabled.__enter__"),
    D2_DEF("__exit__", "*args", GM_exit, "set_grad_enabled.__exit__"),
};

static const d2_def EG_DEFS[] = {
    D2_DEF("__enter__", "", EG_enter, "enable_grad.__enter__"),
    D2_DEF("__exit__", "*args", GM_exit, "enable_grad.__exit__"),
    D2_DEF("__call__", "func", EG_call, "enable_grad.__call__"),
};

/* Tensor's gradient methods, paddle.grad and the grad modes, the
 * paddle.autograd module and fluid.dygraph.grad. */
int d2_pd_autograd_add(d2_interp *I, pd_state *s)
{
    d2_module *pd = s->paddle;
    d2_obj *ex = d2_dict_get_str(I, I->modules, "paddle.autograd");
    d2_module *ag = ex && ex->kind == D2_OBJ_MODULE ? D2_AS(d2_module, ex)
                                                    : d2_module_new_builtin(I, "paddle.autograd");
    if (!ag || set_attr(I, pd, "autograd", (d2_obj *)ag) < 0)
        return -1;
    if (!ex)
        d2_decref((d2_obj *)ag);
    /* register_hook's handle, by the module Paddle defines it in (its repr) */
    d2_module *tpm = d2_module_new_builtin(I, "paddle.base.dygraph.tensor_patch_methods");
    if (!tpm || d2_dict_set_str(I, I->modules, "paddle.base.dygraph.tensor_patch_methods",
                                (d2_obj *)tpm) < 0) {
        d2_decref((d2_obj *)tpm);
        return -1;
    }
    d2_decref((d2_obj *)tpm);
    s->tensor_hook_cls = d2_pd_new_class(I, tpm, "TensorHookRemoveHelper", NULL, NULL, 0);
    d2_class *sge = d2_pd_new_class(I, pd, "set_grad_enabled", NULL, NULL, 0);
    d2_class *eg = d2_pd_new_class(I, pd, "enable_grad", NULL, NULL, 0);
    if (!s->tensor_hook_cls || !sge || !eg ||
        d2_class_add_defs(I, s->tensor_hook_cls, HOOK_DEFS, D2_COUNTOF(HOOK_DEFS), 0) < 0 ||
        d2_class_add_defs(I, sge, SGE_DEFS, D2_COUNTOF(SGE_DEFS), 0) < 0 ||
        d2_class_add_defs(I, eg, EG_DEFS, D2_COUNTOF(EG_DEFS), 0) < 0 ||
        d2_class_add_defs(I, s->tensor_cls, TENSOR_GRAD_DEFS, D2_COUNTOF(TENSOR_GRAD_DEFS), 0) <
            0 ||
        d2_module_add_defs(I, pd, PADDLE_GRAD_DEFS, D2_COUNTOF(PADDLE_GRAD_DEFS)) < 0 ||
        d2_module_add_defs(I, ag, AUTOGRAD_DEFS, D2_COUNTOF(AUTOGRAD_DEFS)) < 0 ||
        d2_module_add_defs(I, s->dygraph, DYGRAPH_GRAD_DEFS, D2_COUNTOF(DYGRAPH_GRAD_DEFS)) < 0)
        return -1;
    /* paddle.autograd.no_grad & co. as Paddle re-exports them */
    static const char *const modes[] = {"no_grad", "set_grad_enabled", "enable_grad",
                                        "is_grad_enabled"};
    for (size_t i = 0; i < D2_COUNTOF(modes); i++) {
        d2_obj *v = d2_dict_get_str(I, pd->dict, modes[i]);
        if (v && set_attr(I, ag, modes[i], v) < 0)
            return -1;
    }
    return 0;
}
