/* static_api.c - Paddle's static-graph API: enable_static, Program/Block/Variable views,
 * building Programs op by op (static.data, program_guard, static.nn.fc), the
 * training stubs; running and saving them is static_exec.c. */
#include "lib/paddle/static_api.h"
#include "lib/paddle/static_priv.h"

#include "exec.h"
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"
#include "lib/paddle/tensor_api.h"
#include "passes/passes.h"

#include <stdio.h>
#include <string.h>

/* ======================================================================
 * State
 * ====================================================================== */

static void state_fini(d2_interp *I, void *p)
{
    D2_UNUSED(I);
    st_state *s = p;
    /* detach the built Programs: their lifted tensors go now, while every
     * object is alive; the Programs themselves go with their objects */
    for (sprog *q = s->built; q; q = q->next) {
        d2_obj *lifted = (d2_obj *)q->b->lifted;
        q->b->lifted = NULL;
        q->I = NULL;
        d2_decref(lifted);
    }
    s->built = NULL;
    d2_decref((d2_obj *)s->static_nn);
    d2_decref((d2_obj *)s->statics);
    d2_decref((d2_obj *)s->fluid_io);
    d2_decref(s->main_prog);
    d2_decref(s->startup_prog);
    d2_decref(s->translator);
    d2_free(s);
}

/* ======================================================================
 * Mode switches
 * ====================================================================== */

D2_FN(P_enable_static)
{
    SS(I)->static_mode = true;
    return d2_none(I);
}

D2_FN(P_disable_static)
{
    SS(I)->static_mode = false;
    return d2_none(I);
}

/* False in static mode and while a to_static Program is being built. */
D2_FN(P_in_dynamic_mode)
{
    return d2_bool(I, !SS(I)->static_mode && D2_MODE(I)->builder == NULL);
}

/* ======================================================================
 * Program, Block, Variable, Operator
 * ====================================================================== */

void d2_static_run_cache_clear(struct sprog_run_cache *c)
{
    if (c->ext_free)
        c->ext_free(c->ext);
    for (int v = 0; c->data && v < c->n_vars; v++)
        d2_tensor_unref(c->data[v]);
    d2_free(c->data);
    d2_exec_free(c->qp);
    d2_program_free(c->q);
    d2_free(c->fetch);
    d2_free(c->need);
    memset(c, 0, sizeof *c);
}

bool d2_static_run_cache_hit(const sprog *s, const struct sprog_run_cache *c, const int *fetch,
                             int n)
{
    const d2_program *p = s->p;
    if ((!c->qp && !c->ext) || !c->data || c->n_fetch != n || c->n_vars != p->n_vars ||
        c->n_blocks != p->n_blocks || c->n_ops != p->blocks[0].n_ops || c->n_wb != s->n_wb ||
        c->passes != s->passes || (n > 0 && memcmp(c->fetch, fetch, sizeof *fetch * (size_t)n)))
        return false;
    for (int v = 0; v < p->n_vars; v++)
        if (c->data[v] != p->vars[v].data) /* rebound */
            return false;
    return true;
}

int d2_static_run_cache_key(const sprog *s, struct sprog_run_cache *c, const int *fetch, int n)
{
    const d2_program *p = s->p;
    c->fetch = d2_malloc(sizeof *fetch * ((size_t)n + 1));
    c->data = d2_calloc((size_t)p->n_vars + 1, sizeof *c->data);
    if (!c->fetch || !c->data) {
        d2_static_run_cache_clear(c);
        return -1;
    }
    if (n > 0)
        memcpy(c->fetch, fetch, sizeof *fetch * (size_t)n);
    c->n_fetch = n;
    c->n_vars = p->n_vars;
    c->n_blocks = p->n_blocks;
    c->n_ops = p->blocks[0].n_ops;
    c->n_wb = s->n_wb;
    c->passes = s->passes;
    for (int v = 0; v < p->n_vars; v++)
        c->data[v] = p->vars[v].data ? d2_tensor_ref(p->vars[v].data) : NULL;
    return 0;
}

static void sprog_fin(void *v)
{
    sprog *s = v;
    /* symbolic tensors of the Program that Python code still holds no
     * longer stand for anything (also at teardown, where they may outlive
     * the builder freed below) */
    if (s->b)
        d2_pd_retire_builder(s->b);
    if (s->b && s->I) {
        d2_interp *I = s->I;
        st_state *st = SS(I);
        if (s->prev)
            s->prev->next = s->next;
        else if (st && st->built == s)
            st->built = s->next;
        if (s->next)
            s->next->prev = s->prev;
        d2_decref((d2_obj *)s->b->lifted);
        d2_decref(s->lr_sched);
    }
    for (int k = 0; k < s->n_init; k++) {
        d2_tensor_unref(s->init_dst[k]);
        d2_tensor_unref(s->init_val[k]);
    }
    d2_free(s->init_dst);
    d2_free(s->init_val);
    d2_static_run_cache_clear(&s->run_cache);
    d2_static_run_cache_clear(&s->dp_cache);
    d2_free(s->b);
    d2_free(s->wb);
    d2_free(s->bn);
    d2_free(s->grads);
    d2_exec_free(s->pp);
    d2_program_free(s->p);
    d2_free(s->file);
    d2_free(s);
}

/* A Program object owning p (may be NULL: empty) and file (may be NULL);
 * on failure both are freed. */
d2_obj *d2_static_prog_new(d2_interp *I, d2_program *p, char *file)
{
    sprog *s = d2_calloc(1, sizeof *s);
    d2_obj *o = s ? d2_obj_alloc(I, D2_OBJ_OPAQUE, SS(I)->prog_cls, sizeof(d2_opaque)) : NULL;
    if (!o) {
        d2_free(s);
        d2_program_free(p);
        d2_free(file);
        return s ? NULL : nomem(I);
    }
    s->p = p;
    s->file = file;
    s->serial = ++SS(I)->n_progs;
    s->startup_serial = SS(I)->startup_prog ? d2_static_sprog_of(I, SS(I)->startup_prog)->serial
                                            : 0;
    D2_AS(d2_opaque, o)->payload = s;
    D2_AS(d2_opaque, o)->fin = sprog_fin;
    return o;
}

sprog *d2_static_sprog_of(d2_interp *I, d2_obj *o)
{
    if (!o || o->kind != D2_OBJ_OPAQUE || !d2_isinstance(I, o, SS(I)->prog_cls))
        return NULL;
    return D2_AS(d2_opaque, o)->payload;
}

static sprog *self_prog(d2_interp *I, d2_obj *self, const char *fname)
{
    sprog *s = d2_static_sprog_of(I, self);
    if (!s)
        d2_raise(I, "TypeError", "%s: expected a Program, got %s", fname,
                 self ? d2_type_name(self) : "nothing");
    return s;
}

/* Variable view of variable v of p: name, shape (a tuple, -1 for unknown
 * dims), dtype, persistable, stop_gradient, lod_level. */
d2_obj *d2_static_var_new(d2_interp *I, const d2_program *p, int v)
{
    const d2_var *var = &p->vars[v];
    d2_obj *o = d2_instance_new(I, SS(I)->var_cls);
    if (!o)
        return NULL;
    int nd = var->type.shape.ndim;
    d2_obj *shape = d2_tuple_new(I, (size_t)nd);
    if (shape && nd)
        D2_AS(d2_tuple, shape)->n = (size_t)nd; /* d2_tuple_new leaves n to the caller */
    for (int d = 0; shape && d < nd; d++) {
        D2_AS(d2_tuple, shape)->items[d] = d2_int_new(I, var->type.shape.dims[d]);
        if (!D2_AS(d2_tuple, shape)->items[d])
            d2_setref(&shape, NULL);
    }
    d2_obj *dt = d2_pd_dtype_obj(I, var->type.dtype, false);
    if (iset_steal(I, o, "name", d2_str_from(I, var->name)) < 0 ||
        iset_steal(I, o, "shape", shape) < 0 || iset_steal(I, o, "dtype", d2_incref(dt)) < 0 ||
        iset_steal(I, o, "persistable", d2_bool(I, var->persistable)) < 0 ||
        iset_steal(I, o, "stop_gradient", d2_bool(I, var->persistable)) < 0 ||
        iset_steal(I, o, "lod_level", d2_int_new(I, 0)) < 0) {
        d2_decref(o);
        return NULL;
    }
    return o;
}

/* Paddle's form: "var x : LOD_TENSOR.shape(-1, 4).dtype(float32).stop_gradient(True)" */
static d2_obj *V_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    const char *name = cstr(iget(I, self, "name"));
    d2_obj *shape = iget(I, self, "shape"), *dt = iget(I, self, "dtype");
    d2_obj *pers = iget(I, self, "persistable"), *sg = iget(I, self, "stop_gradient");
    if (!name || !shape || !dt || dt->kind != D2_OBJ_DTYPE)
        return d2_str_from(I, "<Variable>");
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_printf(&b, "%svar %s : LOD_TENSOR.shape(", pers == I->true_ ? "persist " : "", name);
    size_t n;
    d2_obj **dims = d2_jit_seq_items(shape, &n);
    for (size_t i = 0; i < n; i++)
        d2_buf_printf(&b, "%s%lld", i ? ", " : "",
                      dims[i]->kind == D2_OBJ_INT ? (long long)D2_AS(d2_int, dims[i])->v : -1LL);
    d2_buf_printf(&b, "%s).dtype(%s).stop_gradient(%s)", n == 1 ? "," : "",
                  d2_dtype_name(D2_AS(d2_dtype_obj, dt)->dt), sg == I->true_ ? "True" : "False");
    d2_obj *r = b.data ? d2_str_from(I, b.data) : nomem(I);
    d2_buf_free(&b);
    return r;
}

/* Operator view: type and the names of its inputs and outputs. */
static d2_obj *op_new(d2_interp *I, const d2_program *p, const d2_op *op)
{
    const d2_opdef *def = d2_op_def(op->id);
    d2_obj *o = d2_instance_new(I, SS(I)->op_cls);
    d2_obj *in = d2_list_new(I, 0), *out = d2_list_new(I, 0);
    int rc = o && in && out ? 0 : -1;
    for (int i = 0; rc == 0 && i < op->n_in; i++) {
        if (op->in[i] < 0)
            continue;
        d2_obj *s = d2_str_from(I, p->vars[op->in[i]].name);
        rc = s ? d2_list_append(I, in, s) : -1;
        d2_decref(s);
    }
    for (int i = 0; rc == 0 && i < op->n_out; i++) {
        d2_obj *s = d2_str_from(I, p->vars[op->out[i]].name);
        rc = s ? d2_list_append(I, out, s) : -1;
        d2_decref(s);
    }
    if (rc == 0)
        rc = iset_steal(I, o, "type", d2_str_from(I, def ? def->name : "?"));
    if (rc == 0)
        rc = iset_steal(I, o, "input_arg_names", d2_incref(in));
    if (rc == 0)
        rc = iset_steal(I, o, "output_arg_names", d2_incref(out));
    d2_decref(in);
    d2_decref(out);
    if (rc < 0)
        d2_setref(&o, NULL);
    return o;
}

static d2_obj *OP_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    const char *t = cstr(iget(I, self, "type"));
    return d2_str_printf(I, "<Operator %s>", t ? t : "?");
}

/* Block view of block b of the Program object po: idx, parent_idx, program,
 * vars (name -> Variable: the block's variables, and the parameters for
 * block 0) and ops (Operators). */
static d2_obj *block_new(d2_interp *I, d2_obj *po, int b)
{
    const d2_program *p = d2_static_sprog_of(I, po)->p;
    d2_obj *o = d2_instance_new(I, SS(I)->block_cls);
    d2_obj *vars = d2_dict_new(I), *ops = d2_list_new(I, 0);
    int rc = o && vars && ops ? 0 : -1;
    for (int v = 0; p && rc == 0 && v < p->n_vars; v++) {
        if (p->vars[v].block != b)
            continue;
        d2_obj *vo = d2_static_var_new(I, p, v);
        rc = vo ? d2_dict_set_str(I, D2_AS(d2_dict, vars), p->vars[v].name, vo) : -1;
        d2_decref(vo);
    }
    for (int k = 0; p && rc == 0 && k < p->blocks[b].n_ops; k++) {
        d2_obj *op = op_new(I, p, &p->blocks[b].ops[k]);
        rc = op ? d2_list_append(I, ops, op) : -1;
        d2_decref(op);
    }
    if (rc == 0)
        rc = iset_steal(I, o, "idx", d2_int_new(I, b));
    if (rc == 0)
        rc = iset_steal(I, o, "parent_idx", d2_int_new(I, p ? p->blocks[b].parent : -1));
    if (rc == 0)
        rc = iset_steal(I, o, "program", d2_incref(po));
    if (rc == 0)
        rc = iset_steal(I, o, "vars", d2_incref(vars));
    if (rc == 0)
        rc = iset_steal(I, o, "ops", d2_incref(ops));
    d2_decref(vars);
    d2_decref(ops);
    if (rc < 0)
        d2_setref(&o, NULL);
    return o;
}

/* block.var(name) */
D2_FN(B_var)
{
    const char *name = d2_to_cstr(I, a[0], "name");
    d2_obj *vars = iget(I, self, "vars");
    if (!name || !vars || vars->kind != D2_OBJ_DICT)
        return NULL;
    d2_obj *v = d2_dict_get_str(I, D2_AS(d2_dict, vars), name);
    if (!v)
        return d2_raise(I, "ValueError", "Block.var: the block has no variable named '%s'", name);
    return d2_incref(v);
}

/* block.all_parameters(): the persistable Variables */
D2_FN(B_all_parameters)
{
    d2_obj *vars = iget(I, self, "vars");
    d2_obj *r = d2_list_new(I, 0);
    if (!r || !vars || vars->kind != D2_OBJ_DICT)
        return r;
    d2_dict *d = D2_AS(d2_dict, vars);
    for (size_t i = 0; i < d->n; i++) {
        if (!d->entries[i].key || iget(I, d->entries[i].value, "persistable") != I->true_)
            continue;
        if (d2_list_append(I, r, d->entries[i].value) < 0) {
            d2_decref(r);
            return NULL;
        }
    }
    return r;
}

static d2_obj *B_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    d2_obj *idx = iget(I, self, "idx");
    return d2_str_printf(I, "<Block %lld>",
                         idx && idx->kind == D2_OBJ_INT ? (long long)D2_AS(d2_int, idx)->v : 0LL);
}

/* Program.all_parameters(): the parameters the Program reads (paddle.create_parameter's,
 * layers' and static.nn's, batch_norm's running statistics), in the order they entered it;
 * not the optimizer's accumulators or the learning rate. */
D2_FN(PG_all_parameters)
{
    sprog *s = self_prog(I, self, def->qualname);
    if (!s)
        return NULL;
    d2_obj *r = d2_list_new(I, 0);
    d2_dict *d = s->b ? s->b->lifted : NULL;
    /* paddle.static.create_global_var's variables (static_ext.c) are no parameters */
    d2_obj *gv = d2_jit_mod_attr(I, "paddle._static", "global_vars");
    d2_dict *globals = gv && gv->kind == D2_OBJ_DICT ? D2_AS(d2_dict, gv) : NULL;
    for (size_t i = 0; r && d && i < d->n; i++) {
        d2_obj *t = d->entries[i].key ? d->entries[i].value : NULL;
        d2_obj *o = t && t->kind == D2_OBJ_TUPLE ? D2_AS(d2_tuple, t)->items[0] : NULL;
        if (o && o->kind == D2_OBJ_TENSOR && TOBJ(o)->persistable && TOBJ(o)->name &&
            !(globals && d2_dict_get_str(I, globals, TOBJ(o)->name)) &&
            d2_list_append(I, r, o) < 0)
            d2_setref(&r, NULL);
    }
    return r;
}

/* paddle.static.Program(): an empty Program */
D2_FN(PG_new)
{
    return d2_static_prog_new(I, NULL, NULL);
}

/* The text form of the Program (empty: a comment line). */
static d2_obj *PG_str(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    sprog *s = self_prog(I, self, "Program.__str__");
    if (!s)
        return NULL;
    if (!s->p)
        return d2_str_from(I, "# empty Program");
    char *text = d2_program_print(s->p, false);
    if (!text)
        return nomem(I);
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n')
        n--;
    d2_obj *r = d2_str_new(I, text, n);
    d2_free(text);
    return r;
}

static int prog_nblocks(const sprog *s) { return s->p ? s->p->n_blocks : 1; }

static d2_obj *PG_blocks(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    sprog *s = self_prog(I, self, "Program.blocks");
    if (!s)
        return NULL;
    int n = prog_nblocks(s);
    d2_obj *r = d2_list_new(I, (size_t)n);
    for (int b = 0; r && b < n; b++) {
        D2_AS(d2_list, r)->items[b] = block_new(I, self, b);
        if (!D2_AS(d2_list, r)->items[b])
            d2_setref(&r, NULL);
    }
    return r;
}

static d2_obj *PG_num_blocks(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                             d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    sprog *s = self_prog(I, self, "Program.num_blocks");
    return s ? d2_int_new(I, prog_nblocks(s)) : NULL;
}

D2_FN(PG_global_block)
{
    if (!self_prog(I, self, def->qualname))
        return NULL;
    return block_new(I, self, 0);
}

D2_FN(PG_block)
{
    sprog *s = self_prog(I, self, def->qualname);
    int64_t i;
    if (!s || d2_to_int64(I, a[0], "index", &i) < 0)
        return NULL;
    if (i < 0 || i >= prog_nblocks(s))
        return d2_raise(I, "IndexError", "Program.block: index %lld out of range (%d blocks)",
                        (long long)i, prog_nblocks(s));
    return block_new(I, self, (int)i);
}

/* program.list_vars(): every Variable, in definition order */
D2_FN(PG_list_vars)
{
    sprog *s = self_prog(I, self, def->qualname);
    if (!s)
        return NULL;
    d2_obj *r = d2_list_new(I, 0);
    for (int v = 0; r && s->p && v < s->p->n_vars; v++) {
        d2_obj *vo = d2_static_var_new(I, s->p, v);
        if (!vo || d2_list_append(I, r, vo) < 0)
            d2_setref(&r, NULL);
        d2_decref(vo);
    }
    return r;
}

/* program.clone(for_test=False): a copy sharing the parameter data; for_test
 * drops the backward and the optimizer ops (block 0's ops from the first
 * append_backward on), as Paddle's prune_backward. */
void d2_static_eval_dropout(d2_program *q)
{
    bool *read = d2_calloc((size_t)q->n_vars + 1, sizeof *read);
    for (int b = 0; read && b < q->n_blocks; b++) {
        for (int i = 0; i < q->blocks[b].n_ops; i++)
            for (int k = 0; k < q->blocks[b].ops[i].n_in; k++)
                if (q->blocks[b].ops[i].in[k] >= 0)
                    read[q->blocks[b].ops[i].in[k]] = true;
        for (int j = 0; j < q->blocks[b].n_yields; j++)
            if (q->blocks[b].yields[j] >= 0)
                read[q->blocks[b].yields[j]] = true;
    }
    for (int b = 0; read && b < q->n_blocks; b++)
        for (int i = 0; i < q->blocks[b].n_ops; i++) {
            d2_op *op = &q->blocks[b].ops[i];
            /* the two ops share their attributes (p, mode) */
            if (op->id != D2_OP_dropout_train || op->n_out != 2 || read[op->out[1]])
                continue;
            op->id = D2_OP_dropout;
            op->n_in = 1;
            op->n_out = 1;
        }
    d2_free(read);
}

void d2_static_eval_batch_norm(const sprog *s, d2_program *q)
{
    for (int b = 0; b < q->n_blocks; b++)
        for (int i = 0; i < q->blocks[b].n_ops; i++) {
            d2_op *op = &q->blocks[b].ops[i];
            if (op->id != D2_OP_batch_norm || op->n_in < 3)
                continue;
            for (int k = 0; k < s->n_bn; k++)
                if (op->in[1] == s->bn[4 * k] && op->in[2] == s->bn[4 * k + 1]) {
                    op->in[1] = s->bn[4 * k + 2];
                    op->in[2] = s->bn[4 * k + 3];
                    break;
                }
        }
}

D2_FN(PG_clone)
{
    sprog *s = self_prog(I, self, def->qualname);
    bool for_test = false;
    if (!s || (a[0] && d2_to_bool(I, a[0], "for_test", &for_test) < 0))
        return NULL;
    d2_err err = {0};
    d2_program *q = NULL;
    if (s->p && !(q = d2_program_clone(s->p, &err)))
        return d2_raise_err(I, &err);
    if (q && for_test && s->has_backward) {
        d2_block *b0 = &q->blocks[0];
        for (int k = s->fwd_ops; k < b0->n_ops; k++) {
            d2_free(b0->ops[k].in);
            d2_free(b0->ops[k].out);
            d2_attrs_free(&b0->ops[k].attrs);
        }
        if (s->fwd_ops < b0->n_ops)
            b0->n_ops = s->fwd_ops;
    }
    if (q && for_test) {
        d2_static_eval_dropout(q);
        d2_static_eval_batch_norm(s, q);
    }
    char *file = s->file ? d2_strdup(s->file) : NULL;
    if (s->file && !file) {
        d2_program_free(q);
        return nomem(I);
    }
    d2_obj *r = d2_static_prog_new(I, q, file);
    sprog *c = r && !for_test && s->n_bn ? d2_static_sprog_of(I, r) : NULL;
    if (c) { /* a copy still trains: its own clone(for_test=True) needs the batch_norms */
        if (!(c->bn = d2_malloc(sizeof *c->bn * 4 * (size_t)s->n_bn))) {
            d2_decref(r);
            return nomem(I);
        }
        memcpy(c->bn, s->bn, sizeof *c->bn * 4 * (size_t)s->n_bn);
        c->n_bn = s->n_bn;
    }
    return r;
}

bool d2_static_builds(d2_interp *I, const d2_builder *b)
{
    sprog *s = b ? SS(I)->built : NULL;
    while (s && s->b != b)
        s = s->next;
    return s != NULL;
}

int d2_static_batch_norm(d2_interp *I, const d2_builder *b, int bm, int bv, int rm, int rv,
                         int um, int uv)
{
    sprog *s = SS(I)->built;
    while (s && s->b != b)
        s = s->next;
    if (!s) {
        d2_raise(I, "ValueError", "internal: a batch_norm record needs a static Program");
        return -1;
    }
    if (d2_static_write_back(I, b, rm, um) < 0 || d2_static_write_back(I, b, rv, uv) < 0)
        return -1;
    int *nb = d2_realloc(s->bn, sizeof *nb * 4 * ((size_t)s->n_bn + 1));
    if (!nb) {
        nomem(I);
        return -1;
    }
    s->bn = nb;
    nb += 4 * s->n_bn++;
    nb[0] = bm;
    nb[1] = bv;
    nb[2] = rm;
    nb[3] = rv;
    return 0;
}

int d2_static_write_back(d2_interp *I, const d2_builder *b, int dst, int src)
{
    sprog *s = SS(I)->built;
    while (s && s->b != b)
        s = s->next;
    if (!s || dst < 0 || dst >= s->p->n_vars || !s->p->vars[dst].persistable || src < 0 ||
        src >= s->p->n_vars) {
        d2_raise(I, "ValueError",
                 "internal: a write-back needs a persistable variable of a static Program");
        return -1;
    }
    for (int k = 0; k < s->n_wb; k++)
        if (s->wb[2 * k] == dst) {
            s->wb[2 * k + 1] = src; /* a later update of the same variable wins */
            return 0;
        }
    int *nw = d2_realloc(s->wb, sizeof *nw * 2 * ((size_t)s->n_wb + 1));
    if (!nw) {
        nomem(I);
        return -1;
    }
    s->wb = nw;
    nw[2 * s->n_wb] = dst;
    nw[2 * s->n_wb + 1] = src;
    s->n_wb++;
    d2_exec_free(s->pp);
    s->pp = NULL;
    return 0;
}

int d2_static_current_var(d2_interp *I, const d2_builder *b, int v)
{
    const sprog *s = SS(I) ? SS(I)->built : NULL;
    while (s && s->b != b)
        s = s->next;
    for (int k = 0; s && k < s->n_wb; k++)
        if (s->wb[2 * k] == v)
            return s->wb[2 * k + 1];
    return v;
}

int d2_static_set_lr(d2_interp *I, d2_obj *loss, d2_obj *lr, d2_obj *sched)
{
    d2_builder *b = is_tensor(loss) && !TOBJ(loss)->t ? TOBJ(loss)->builder : NULL;
    sprog *s = SS(I)->built;
    while (s && (!b || s->b != b))
        s = s->next;
    if (!s) {
        d2_raise(I, "TypeError", "Optimizer.minimize: loss must be a Variable of a static Program");
        return -1;
    }
    int v = d2_pd_lift(I, b, lr);
    if (v < 0)
        return -1;
    /* a float learning rate: a persistable variable too (saved in .pdopt), no scheduler */
    d2_setref(&s->lr_sched, !sched || sched->kind == D2_OBJ_NONE ? NULL : d2_incref(sched));
    s->lr_var = v;
    s->has_lr = true;
    return 0;
}

d2_obj *d2_static_program_new(d2_interp *I, const d2_program *p)
{
    d2_err err = {0};
    d2_program *q = d2_program_clone(p, &err);
    if (!q)
        return d2_raise_err(I, &err);
    return d2_static_prog_new(I, q, NULL);
}

/* The graph passes (runtime/passes) a BuildStrategy selects: the meaning-preserving ones
 * always, batch_norm folding, inference dropout removal and conv / linear epilogue fusion
 * for the fuse_* flags below, with unfolded batch_norm + add + relu, residual add + layer_norm
 * and elementwise trees (they run only on Programs that do not train); in-place
 * execution unless enable_inplace is False; the static memory plan (one arena per run) unless
 * memory_optimize is False (None, its default, keeps it). -1 with an exception. */
static int strategy_passes(d2_interp *I, d2_obj *bs, uint32_t *set)
{
    static const struct {
        const char *flag, *passes;
    } map[] = {
        {"fuse_bn_act_ops", "bn_fold,fuse_bn_act"},
        {"fuse_bn_add_act_ops", "bn_fold,fuse_conv,fuse_bn_act"},
        {"fuse_elewise_add_act_ops", "fuse_conv,fuse_linear,fuse_add_norm,fuse_elementwise"},
        {"fuse_gemm_epilogue", "drop_identity,fuse_linear"},
        {"fuse_relu_depthwise_conv", "fuse_conv"},
    };
    d2_pass_set s = d2_passes_level(D2_PASS_BASIC), one = 0;
    d2_err err = {0};
    for (size_t i = 0; i < D2_COUNTOF(map); i++) {
        d2_obj *v = d2_getattr_opt(I, bs, map[i].flag);
        int t = v ? d2_truthy(I, v) : 0;
        d2_decref(v);
        if (t < 0 || d2_exc_pending(I))
            return -1;
        if (t && d2_passes_parse(map[i].passes, &one, &err) == 0)
            s |= one;
    }
    d2_obj *v = d2_getattr_opt(I, bs, "enable_inplace");
    int t = v ? d2_truthy(I, v) : 1;
    d2_decref(v);
    if (t < 0 || d2_exc_pending(I))
        return -1;
    if (!t && d2_passes_parse("inplace", &one, &err) == 0)
        s &= ~one;
    v = d2_getattr_opt(I, bs, "memory_optimize");
    t = v && v->kind != D2_OBJ_NONE ? d2_truthy(I, v) : 1;
    d2_decref(v);
    if (t < 0 || d2_exc_pending(I))
        return -1;
    if (!t && d2_passes_parse("memplan", &one, &err) == 0)
        s &= ~one;
    *set = s;
    return 0;
}

/* paddle.static.CompiledProgram(program, build_strategy=None): dy2st
 * prepares every Program once anyway, so this is the Program itself; a
 * build_strategy selects the graph passes its runs prepare with (on a copy:
 * the Program itself is not rewritten). */
D2_FN(CP_new)
{
    sprog *s = d2_static_sprog_of(I, a[0]);
    if (!s)
        return d2_raise(I, "TypeError",
                        "paddle.static.CompiledProgram: expected a Program, got %s",
                        d2_type_name(a[0]));
    if (a[1] && a[1]->kind != D2_OBJ_NONE) {
        uint32_t set = 0;
        if (strategy_passes(I, a[1], &set) < 0)
            return NULL;
        if (set != s->passes) {
            d2_exec_free(s->pp); /* prepared again, with the passes */
            s->pp = NULL;
            s->passes = set;
        }
    }
    return d2_incref(a[0]);
}

D2_FN(S_default_main)
{
    return d2_incref(SS(I)->main_prog);
}

D2_FN(S_default_startup)
{
    return d2_incref(SS(I)->startup_prog);
}

/* ======================================================================
 * Building Programs op by op (static mode)
 * ====================================================================== */

/* The builder of Program object po, made (with an empty program) on first
 * use; ops on its symbolic tensors append to the program (d2_apply_op). */
static d2_builder *prog_builder(d2_interp *I, d2_obj *po)
{
    sprog *s = d2_static_sprog_of(I, po);
    if (!s) {
        d2_raise(I, "TypeError", "expected a Program, got %s", d2_type_name(po));
        return NULL;
    }
    if (s->b)
        return s->b;
    d2_err err = {0};
    if (!s->p && !(s->p = d2_program_new(&err))) {
        d2_raise_err(I, &err);
        return NULL;
    }
    s->b = d2_calloc(1, sizeof *s->b);
    if (!s->b) {
        nomem(I);
        return NULL;
    }
    s->b->prog = s->p;
    s->b->block = 0;
    s->b->gen = ++I->next_gen;
    d2_exec_free(s->pp); /* ops are appended from now on */
    s->pp = NULL;
    d2_static_run_cache_clear(&s->run_cache); /* a copy run_fetch kept (static_exec.c) */
    s->I = I;
    st_state *st = SS(I);
    s->next = st->built;
    if (st->built)
        st->built->prev = s;
    st->built = s;
    return s->b;
}

static int static_param_builder(d2_interp *I, d2_builder **b)
{
    *b = NULL;
    if (!SS(I) || !SS(I)->static_mode || !SS(I)->main_prog)
        return 0;
    *b = prog_builder(I, SS(I)->main_prog);
    return *b ? 0 : -1;
}

/* The name of a feed/fetch item: a name, a Variable, or a tensor (symbolic
 * ones by their variable); *var receives the variable of a symbolic tensor
 * of p's builder b (else -1). NULL when the item is none of these. */
const char *d2_static_item_name(d2_interp *I, d2_obj *item, const d2_builder *b, int *var)
{
    *var = -1;
    const char *name = cstr(item);
    if (name)
        return name;
    if (is_inst(I, item, SS(I)->var_cls))
        return cstr(iget(I, item, "name"));
    if (item && item->kind == D2_OBJ_TENSOR) {
        d2_tensor_obj *t = TOBJ(item);
        if (!t->t && t->builder) {
            if (t->builder == b)
                *var = t->var;
            return t->builder->prog->vars[t->var].name;
        }
        return t->name;
    }
    return NULL;
}

bool d2_static_var_text(d2_interp *I, const d2_obj *o, d2_buf *b)
{
    if (!SS(I) || !o || o->kind != D2_OBJ_TENSOR)
        return false;
    const d2_tensor_obj *t = TOBJ(o);
    if (t->t || !t->builder)
        return false;
    const sprog *s = SS(I)->built;
    while (s && s->b != t->builder)
        s = s->next;
    if (!s)
        return false;
    const d2_shape *sh = &t->type.shape;
    d2_buf_printf(b, "var %s : LOD_TENSOR.shape(", s->p->vars[t->var].name);
    for (int d = 0; d < sh->ndim; d++)
        d2_buf_printf(b, "%s%lld", d ? ", " : "", (long long)sh->dims[d]);
    d2_buf_printf(b, "%s).dtype(%s).stop_gradient(%s)", sh->ndim == 1 ? "," : "",
                  d2_dtype_name(t->type.dtype), t->stop_gradient ? "True" : "False");
    return true;
}

/* Gives the variable of symbolic tensor o (of a built Program) the name
 * Paddle gives it, when no other variable has it. */
static void paddle_name(d2_interp *I, d2_obj *o, const char *name)
{
    if (!o || o->kind != D2_OBJ_TENSOR || TOBJ(o)->t || !TOBJ(o)->builder)
        return;
    d2_err err = {0};
    /* taken or out of memory: the generated name stays, harmless */
    (void)d2_program_rename_var(TOBJ(o)->builder->prog, TOBJ(o)->var, name, &err);
    D2_UNUSED(I);
}

/* paddle.static.data(name, shape, dtype=None, lod_level=0): an input of
 * the current main Program (None and -1 dims are dynamic), as a symbolic
 * tensor: operations on it build the Program. */
D2_FN(S_data)
{
    const char *fname = def->qualname;
    const char *name = d2_to_cstr(I, a[0], "name");
    if (!name)
        return NULL;
    if (!SS(I)->static_mode) /* Paddle asserts this */
        return d2_raise(I, "AssertionError",
                        "%s is only supported in static graph mode: call paddle.enable_static() "
                        "before it",
                        fname);
    d2_type ty;
    memset(&ty, 0, sizeof ty);
    int dt = -1;
    if (a[2] && a[2]->kind != D2_OBJ_NONE && d2_pd_parse_dtype(I, a[2], fname, false, &dt) < 0)
        return NULL;
    ty.dtype = dt < 0 ? D2_F32 : (d2_dtype)dt;
    size_t nd;
    d2_obj **dims = is_seq(a[1]) ? d2_jit_seq_items(a[1], &nd) : NULL;
    if (!dims && !is_seq(a[1]))
        return d2_raise(I, "TypeError", "%s: shape must be a list or tuple, got %s", fname,
                        d2_type_name(a[1]));
    if (nd > D2_MAX_DIMS)
        return d2_raise(I, "ValueError", "%s: shape has %zu dims, at most %d are supported",
                        fname, nd, D2_MAX_DIMS);
    ty.shape.ndim = (int)nd;
    for (size_t i = 0; i < nd; i++) {
        int64_t d = -1;
        if (dims[i]->kind != D2_OBJ_NONE && d2_to_int64(I, dims[i], "shape", &d) < 0)
            return NULL;
        if (d < -1 || d == 0)
            return d2_raise(I, "ValueError",
                            "%s: shape[%zu] is %lld; dims must be positive, or None or -1 for "
                            "a dimension fed at run time",
                            fname, i, (long long)d);
        ty.shape.dims[i] = d;
    }
    d2_builder *b = prog_builder(I, SS(I)->main_prog);
    if (!b)
        return NULL;
    if (d2_program_find_var(b->prog, name) >= 0)
        return d2_raise(I, "ValueError",
                        "%s: the main Program already has a variable named '%s'", fname, name);
    d2_err err = {0};
    int v = d2_program_add_var(b->prog, 0, name, &ty, &err);
    if (v < 0 || d2_block_add_param(b->prog, 0, v, &err) < 0)
        return d2_raise_err(I, &err);
    return d2_pd_symbolic(I, b, v);
}

/* program_guard(main_program, startup_program=None): a context manager
 * making them the default Programs inside its block. */
D2_FN(GD_init)
{
    const char *fname = def->qualname;
    if (!d2_static_sprog_of(I, a[0]))
        return d2_raise(I, "TypeError", "%s: main_program must be a Program, got %s", fname,
                        d2_type_name(a[0]));
    d2_obj *su = a[1] && a[1]->kind != D2_OBJ_NONE ? a[1] : NULL;
    if (su && !d2_static_sprog_of(I, su))
        return d2_raise(I, "TypeError", "%s: startup_program must be a Program, got %s", fname,
                        d2_type_name(su));
    if (iset_steal(I, self, "main_program", d2_incref(a[0])) < 0 ||
        iset_steal(I, self, "startup_program", d2_incref(su ? su : I->none)) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *GD_enter(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    st_state *s = SS(I);
    d2_obj *m = iget(I, self, "main_program"), *su = iget(I, self, "startup_program");
    if (!d2_static_sprog_of(I, m))
        return d2_raise(I, "TypeError", "program_guard.__enter__: not a program_guard");
    if (iset_steal(I, self, "_saved_main", d2_incref(s->main_prog)) < 0 ||
        iset_steal(I, self, "_saved_startup", d2_incref(s->startup_prog)) < 0)
        return NULL;
    d2_setref(&s->main_prog, d2_incref(m));
    if (d2_static_sprog_of(I, su))
        d2_setref(&s->startup_prog, d2_incref(su));
    d2_static_sprog_of(I, m)->startup_serial = d2_static_sprog_of(I, s->startup_prog)->serial;
    return d2_none(I); /* Paddle's guard yields nothing */
}

static d2_obj *GD_exit(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    st_state *s = SS(I);
    d2_obj *m = iget(I, self, "_saved_main"), *su = iget(I, self, "_saved_startup");
    if (d2_static_sprog_of(I, m))
        d2_setref(&s->main_prog, d2_incref(m));
    if (d2_static_sprog_of(I, su))
        d2_setref(&s->startup_prog, d2_incref(su));
    return d2_bool(I, false);
}

/* A function of a builtin module, called with positional args: new reference. */
static d2_obj *call_fn(d2_interp *I, const char *mod, const char *name, d2_obj **args, size_t n)
{
    d2_obj *f = d2_jit_mod_attr(I, mod, name);
    if (!f)
        return d2_raise(I, "RuntimeError", "internal: %s.%s is missing", mod, name);
    return d2_call(I, f, args, n, NULL);
}

/* paddle.create_parameter(shape, dtype, None, attr, is_bias): attr None
 * gives the parameter the name `name`. */
static d2_obj *fc_param(d2_interp *I, int64_t d0, int64_t d1, bool two, d2_dtype dt,
                        d2_obj *attr, bool is_bias, const char *name)
{
    d2_obj *shape = two ? d2_list_new(I, 2) : d2_list_new(I, 1);
    if (!shape)
        return NULL;
    D2_AS(d2_list, shape)->items[0] = d2_int_new(I, two ? d0 : d1);
    if (two)
        D2_AS(d2_list, shape)->items[1] = d2_int_new(I, d1);
    bool ok = D2_AS(d2_list, shape)->items[0] && (!two || D2_AS(d2_list, shape)->items[1]);
    d2_obj *nm = !attr || attr->kind == D2_OBJ_NONE ? d2_str_from(I, name) : d2_incref(attr);
    d2_obj *dto = d2_pd_dtype_obj(I, dt, false);
    d2_obj *r = NULL;
    /* a WeightNormParamAttr: the weight g * v / ||v|| of parameters NAME_g and NAME_v */
    if (ok && nm && dto && !is_bias && attr && attr->kind == D2_OBJ_INSTANCE &&
        strcmp(d2_type_name(attr), "WeightNormParamAttr") == 0) {
        d2_obj *an = iget(I, attr, "name");
        d2_obj *base = an && an->kind == D2_OBJ_STR ? d2_incref(an) : d2_str_from(I, name);
        d2_obj *wargs[4] = {attr, shape, dto, base};
        d2_obj *m = base ? d2_import(I, "paddle.static._static_py", NULL) : NULL;
        d2_obj *f = m ? d2_getattr(I, m, "_weight_norm_param") : NULL;
        r = f ? d2_call(I, f, wargs, 4, NULL) : NULL;
        d2_decref(f);
        d2_decref(m);
        d2_decref(base);
        d2_decref(nm);
        d2_decref(shape);
        return r;
    }
    /* a ParamAttr without a name: the parameter still takes fc's name, as Paddle's copy of
     * the attribute does */
    d2_obj *an = attr ? iget(I, attr, "name") : NULL;
    bool unnamed = an && an->kind == D2_OBJ_NONE && iget(I, attr, "regularizer");
    if (unnamed && iset_steal(I, attr, "name", d2_str_from(I, name)) < 0)
        ok = false;
    if (ok && nm && dto) {
        d2_obj *cargs[5] = {shape, dto, I->none, nm, d2_bool(I, is_bias)};
        r = call_fn(I, "paddle", "create_parameter", cargs, 5);
        d2_decref(cargs[4]);
    }
    if (unnamed && iset_steal(I, attr, "name", d2_incref(I->none)) < 0)
        d2_setref(&r, NULL);
    d2_decref(nm);
    d2_decref(shape);
    return r;
}

/* paddle.static.nn.fc(x, size, num_flatten_dims=1, weight_attr=None,
 * bias_attr=None, activation=None, name=None): sum over the inputs of
 * flatten(x_i) @ W_i, plus a bias, then the activation. */
D2_FN(SN_fc)
{
    const char *fname = def->qualname;
    int64_t size, nfd = 1;
    if (d2_to_int64(I, a[1], "size", &size) < 0 ||
        (a[2] && d2_to_int64(I, a[2], "num_flatten_dims", &nfd) < 0))
        return NULL;
    if (size <= 0)
        return d2_raise(I, "ValueError", "%s: size must be positive, got %lld", fname,
                        (long long)size);
    const char *act = NULL;
    if (a[5] && a[5]->kind != D2_OBJ_NONE && !(act = d2_to_cstr(I, a[5], "activation")))
        return NULL;
    size_t nx;
    d2_obj *one = a[0];
    d2_obj **xs = is_seq(a[0]) ? d2_jit_seq_items(a[0], &nx) : (nx = 1, &one);
    if (nx == 0)
        return d2_raise(I, "ValueError", "%s: x is an empty list", fname);
    /* Paddle's names: NAME.w_0, NAME.b_0, NAME.tmp_K; NAME is fc_N unless given */
    char prefix[200];
    const char *given = a[6] && a[6]->kind != D2_OBJ_NONE ? d2_to_cstr(I, a[6], "name") : NULL;
    if (a[6] && a[6]->kind != D2_OBJ_NONE && !given)
        return NULL;
    if (given)
        snprintf(prefix, sizeof prefix, "%s", given);
    else
        snprintf(prefix, sizeof prefix, "fc_%d", SS(I)->n_fc++);
    bool has_bias = false;
    d2_obj *sum = NULL;
    for (size_t i = 0; i < nx; i++) {
        d2_obj *x = xs[i];
        if (!x || x->kind != D2_OBJ_TENSOR) {
            d2_decref(sum);
            return d2_raise(I, "TypeError", "%s: x must be a Variable or a list of them, got %s",
                            fname, d2_type_name(x));
        }
        const d2_type *ty = &TOBJ(x)->type;
        int nd = ty->shape.ndim;
        int64_t k = nfd < 0 ? nfd + nd : nfd;
        if (k < 1 || k >= nd) {
            d2_decref(sum);
            return d2_raise(I, "ValueError",
                            "%s: num_flatten_dims %lld is out of range for an input of rank %d",
                            fname, (long long)nfd, nd);
        }
        int64_t in = 1;
        for (int d = (int)k; d < nd; d++) {
            if (ty->shape.dims[d] < 0) {
                d2_decref(sum);
                return d2_raise(I, "ValueError",
                                "%s: dims %lld and after of the input must be known, the input "
                                "has a dynamic dim %d",
                                fname, (long long)k, d);
            }
            in *= ty->shape.dims[d];
        }
        char wname[240];
        snprintf(wname, sizeof wname, "%s.w_%zu", prefix, i);
        d2_obj *w = fc_param(I, in, size, true, ty->dtype, a[3], false, wname);
        d2_obj *xf = NULL;
        if (w && k != nd - 1) {
            d2_obj *shape = d2_list_new(I, (size_t)k + 1);
            for (int d = 0; shape && d <= k; d++) {
                D2_AS(d2_list, shape)->items[d] =
                    d2_int_new(I, d == k ? in : ty->shape.dims[d] < 0 ? 0 : ty->shape.dims[d]);
                if (!D2_AS(d2_list, shape)->items[d])
                    d2_setref(&shape, NULL);
            }
            d2_obj *rargs[2] = {x, shape};
            xf = shape ? call_fn(I, "paddle", "reshape", rargs, 2) : NULL;
            d2_decref(shape);
        } else if (w) {
            xf = d2_incref(x);
        }
        d2_obj *margs[2] = {xf, w};
        d2_obj *y = xf ? call_fn(I, "paddle", "matmul", margs, 2) : NULL;
        d2_decref(xf);
        d2_decref(w);
        if (!y) {
            d2_decref(sum);
            return NULL;
        }
        if (sum) {
            d2_obj *sargs[2] = {sum, y};
            d2_obj *t = call_fn(I, "paddle", "add", sargs, 2);
            d2_decref(y);
            d2_decref(sum);
            if (!(sum = t))
                return NULL;
        } else {
            sum = y;
        }
    }
    if (!(a[4] && a[4]->kind == D2_OBJ_BOOL && !D2_AS(d2_int, a[4])->v)) {
        char bname[240];
        snprintf(bname, sizeof bname, "%s.b_0", prefix);
        d2_obj *bias = fc_param(I, 0, size, false, TOBJ(sum)->type.dtype, a[4], true, bname);
        has_bias = bias && bias->kind != D2_OBJ_NONE;
        d2_obj *bargs[2] = {sum, bias};
        d2_obj *t = !bias                        ? NULL
                    : bias->kind == D2_OBJ_NONE ? d2_incref(sum) /* no bias */
                                                : call_fn(I, "paddle", "add", bargs, 2);
        d2_decref(bias);
        d2_decref(sum);
        if (!(sum = t))
            return NULL;
    }
    if (act) {
        d2_obj *f = d2_jit_mod_attr(I, "paddle.nn.functional", act);
        if (!f) {
            d2_decref(sum);
            return d2_raise(I, "ValueError", "%s: unknown activation '%s'", fname, act);
        }
        d2_obj *t = d2_call(I, f, &sum, 1, NULL);
        d2_decref(sum);
        if (!(sum = t))
            return NULL;
    }
    /* Paddle's name of the result: fc_N.tmp_K, K counting the muls, the sum
     * of several, the bias add and the activation */
    char rname[240];
    snprintf(rname, sizeof rname, "%s.tmp_%d", prefix,
             (int)nx + (nx > 1) + (has_bias ? 1 : 0) + (act ? 1 : 0) - 1);
    paddle_name(I, sum, rname);
    return sum;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

/* Makes module name (created when missing) an alias of module of: the same
 * namespace under another path. */
static int share_namespace(d2_interp *I, const char *name, const char *of)
{
    d2_obj *src = d2_dict_get_str(I, I->modules, of);
    if (!src || src->kind != D2_OBJ_MODULE)
        return 0;
    d2_module *m = d2_jit_get_module(I, name);
    if (!m)
        return -1;
    d2_dict *d = D2_AS(d2_module, src)->dict;
    if (m->dict != d) {
        d2_decref((d2_obj *)m->dict);
        m->dict = D2_AS(d2_dict, d2_incref((d2_obj *)d));
    }
    d2_decref((d2_obj *)m);
    return 0;
}

int d2_static_api_init(d2_interp *I)
{
    D2_MODE(I)->up.static_var_text = d2_static_var_text;
    D2_MODE(I)->up.static_param_builder = static_param_builder;
    D2_MODE(I)->up.static_builds = d2_static_builds;
    D2_MODE(I)->up.static_batch_norm = d2_static_batch_norm;
    if (SS(I))
        return 0;
    st_state *s = d2_calloc(1, sizeof *s);
    if (!s) {
        nomem(I);
        return -1;
    }
    I->ext[D2_EXT_STATIC] = s;
    I->ext_fini[D2_EXT_STATIC] = state_fini;
    s->statics = d2_jit_get_module(I, "paddle.static");
    s->fluid_io = d2_jit_get_module(I, "paddle.fluid.io");
    d2_obj *pd = d2_dict_get_str(I, I->modules, "paddle");
    if (!s->statics || !s->fluid_io || !pd || pd->kind != D2_OBJ_MODULE)
        return -1;
    /* modes: replace the always-dynamic placeholders of the paddle module */
    static const d2_def mode_defs[] = {
        D2_DEF("enable_static", "", P_enable_static, "paddle.enable_static"),
        D2_DEF("disable_static", "place=None", P_disable_static, "paddle.disable_static"),
        D2_DEF("in_dynamic_mode", "", P_in_dynamic_mode, "paddle.in_dynamic_mode"),
    };
    if (d2_module_add_defs(I, D2_AS(d2_module, pd), mode_defs, D2_COUNTOF(mode_defs)) < 0)
        return -1;
    /* classes */
    static const d2_def pg_defs[] = {
        D2_DEF("__new__", "", PG_new, "paddle.static.Program"),
        D2_DEF("global_block", "", PG_global_block, "Program.global_block"),
        D2_DEF("block", "index", PG_block, "Program.block"),
        D2_DEF("list_vars", "", PG_list_vars, "Program.list_vars"),
        D2_DEF("all_parameters", "", PG_all_parameters, "Program.all_parameters"),
        D2_DEF("clone", "for_test=False", PG_clone, "Program.clone"),
    };
    static const d2_fn_entry pg_m[] = {
        {"__repr__", PG_str}, {"__str__", PG_str}, {"to_string", PG_str}};
    static const d2_fn_entry var_m[] = {{"__repr__", V_repr}};
    static const d2_def blk_defs[] = {
        D2_DEF("var", "name", B_var, "Block.var"),
        D2_DEF("all_parameters", "", B_all_parameters, "Block.all_parameters"),
    };
    static const d2_fn_entry blk_m[] = {{"__repr__", B_repr}};
    static const d2_fn_entry op_m[] = {{"__repr__", OP_repr}};
    static const d2_def cp_defs[] = {
        D2_DEF("__new__", "program_or_graph, build_strategy=None, **kwargs", CP_new,
               "paddle.static.CompiledProgram"),
    };
    s->prog_cls = d2_jit_new_class(I, s->statics, "Program", D2_OBJ_OPAQUE, pg_defs,
                                   D2_COUNTOF(pg_defs), pg_m, D2_COUNTOF(pg_m));
    s->var_cls = d2_jit_new_class(I, s->statics, "Variable", D2_OBJ_INSTANCE, NULL, 0, var_m,
                                  D2_COUNTOF(var_m));
    s->block_cls = d2_jit_new_class(I, NULL, "Block", D2_OBJ_INSTANCE, blk_defs,
                                    D2_COUNTOF(blk_defs), blk_m, D2_COUNTOF(blk_m));
    s->op_cls =
        d2_jit_new_class(I, NULL, "Operator", D2_OBJ_INSTANCE, NULL, 0, op_m, D2_COUNTOF(op_m));
    d2_class *cp = d2_jit_new_class(I, s->statics, "CompiledProgram", D2_OBJ_INSTANCE, cp_defs,
                                    D2_COUNTOF(cp_defs), NULL, 0);
    s->cp_cls = cp;
    if (!s->prog_cls || !s->var_cls || !s->block_cls || !s->op_cls || !cp ||
        d2_static_exec_init(I, s) < 0 || d2_static_parallel_init(I, s) < 0)
        return -1;
    if (d2_class_add_property(I, s->prog_cls, "blocks", PG_blocks, NULL) < 0 ||
        d2_class_add_property(I, s->prog_cls, "num_blocks", PG_num_blocks, NULL) < 0)
        return -1;
    s->startup_prog = d2_static_prog_new(I, NULL, NULL);
    s->main_prog = s->startup_prog ? d2_static_prog_new(I, NULL, NULL) : NULL;
    if (!s->main_prog || !s->startup_prog)
        return -1;
    /* paddle.static functions */
    static const d2_def st_defs[] = {
        D2_DEF("default_main_program", "", S_default_main, "paddle.static.default_main_program"),
        D2_DEF("default_startup_program", "", S_default_startup,
               "paddle.static.default_startup_program"),
        D2_DEF("data", "name, shape, dtype=None, lod_level=0", S_data, "paddle.static.data"),
    };
    static const d2_def nn_defs[] = {
        D2_DEF("fc",
               "x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, "
               "activation=None, name=None",
               SN_fc, "paddle.static.nn.fc"),
    };
    if (d2_static_grad_init(I, s) < 0)
        return -1;
    static const d2_def gd_defs[] = {
        D2_DEF("__init__", "main_program, startup_program=None", GD_init,
               "paddle.static.program_guard"),
    };
    static const d2_fn_entry gd_m[] = {{"__enter__", GD_enter}, {"__exit__", GD_exit}};
    s->guard_cls = d2_jit_new_class(I, s->statics, "program_guard", D2_OBJ_INSTANCE, gd_defs,
                                    D2_COUNTOF(gd_defs), gd_m, D2_COUNTOF(gd_m));
    s->static_nn = d2_jit_get_module(I, "paddle.static.nn");
    if (d2_jit_alias(I, "paddle.framework", "CPUPlace", d2_jit_mod_attr(I, "paddle", "CPUPlace")) < 0)
        return -1;
    if (!s->guard_cls || !s->static_nn ||
        d2_dict_set_str(I, s->statics->dict, "nn", (d2_obj *)s->static_nn) < 0 ||
        d2_module_add_defs(I, s->static_nn, nn_defs, D2_COUNTOF(nn_defs)) < 0)
        return -1;
    if (d2_module_add_defs(I, s->statics, st_defs, D2_COUNTOF(st_defs)) < 0)
        return -1;
    /* the fluid spellings */
    d2_dict *sd = s->statics->dict;
    if (d2_jit_alias(I, "paddle.fluid", "io", (d2_obj *)s->fluid_io) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "Executor", (d2_obj *)s->exe_cls) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "Program", (d2_obj *)s->prog_cls) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "CompiledProgram", (d2_obj *)cp) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "default_main_program",
              d2_dict_get_str(I, sd, "default_main_program")) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "default_startup_program",
              d2_dict_get_str(I, sd, "default_startup_program")) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "data", d2_dict_get_str(I, sd, "data")) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "cpu_places", d2_dict_get_str(I, sd, "cpu_places")) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "enable_dygraph",
              d2_jit_mod_attr(I, "paddle", "disable_static")) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "disable_dygraph",
              d2_jit_mod_attr(I, "paddle", "enable_static")) < 0 ||
        d2_jit_alias(I, "paddle.fluid", "in_dygraph_mode",
              d2_jit_mod_attr(I, "paddle", "in_dynamic_mode")) < 0 ||
        d2_jit_alias(I, "paddle.fluid.dygraph", "enabled",
              d2_jit_mod_attr(I, "paddle", "in_dynamic_mode")) < 0 ||
        d2_jit_alias(I, "paddle.fluid.dygraph", "ProgramTranslator", (d2_obj *)s->pt_cls) < 0 ||
        d2_jit_alias(I, "paddle.framework", "in_dynamic_mode",
              d2_jit_mod_attr(I, "paddle", "in_dynamic_mode")) < 0 ||
        d2_jit_alias(I, "paddle.static", "cpu_places", d2_dict_get_str(I, sd, "cpu_places")) < 0)
        return -1;
    /* the module paths Paddle's documentation spells paddle.jit's objects with
     * (paddle.jit.api.TracedLayer, paddle.jit.dy2static.program_translator
     * .ProgramTranslator): modules sharing paddle.jit's namespace */
    d2_module *dy = d2_jit_get_module(I, "paddle.jit.dy2static");
    int rc = dy && share_namespace(I, "paddle.jit.api", "paddle.jit") == 0 &&
                     share_namespace(I, "paddle.jit.dy2static.program_translator",
                                     "paddle.jit") == 0
                 ? 0
                 : -1;
    d2_decref((d2_obj *)dy);
    return rc < 0 || d2_api_compat_init(I) < 0 ? -1 : d2_static_ext_init(I);
}
