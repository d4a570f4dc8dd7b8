/* static_api.c - Paddle's static-graph API over saved models: enable_static, Executor.run,
 * load/save_inference_model, Program/Block/Variable views, ProgramTranslator. */
#include "lib/paddle/static_api.h"

#include "exec.h"
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"
#include "model_io.h"
#include "lib/paddle/tensor_api.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ======================================================================
 * State
 * ====================================================================== */

typedef struct st_state {
    d2_module *statics, *fluid_io;
    d2_class *prog_cls;  /* paddle.static.Program (OPAQUE: an sprog) */
    d2_class *var_cls;   /* paddle.static.Variable */
    d2_class *block_cls; /* Block */
    d2_class *op_cls;    /* Operator */
    d2_class *exe_cls;   /* paddle.static.Executor */
    d2_class *pt_cls;    /* paddle.jit.ProgramTranslator */
    d2_class *guard_cls; /* paddle.static.program_guard */
    d2_module *static_nn; /* paddle.static.nn */
    d2_obj *main_prog, *startup_prog; /* the current default Programs (program_guard swaps) */
    d2_obj *translator;  /* the ProgramTranslator singleton, made on first use */
    struct sprog *built; /* Programs with a builder (list through sprog.next) */
    int n_fc;            /* paddle.static.nn.fc calls, for parameter names */
    bool static_mode;    /* paddle.enable_static() was called last */
} st_state;

/* A Program object's payload. */
typedef struct sprog {
    d2_program *p;   /* NULL: an empty Program */
    d2_prepared *pp; /* prepared for its own outputs on first run */
    char *file;      /* the file it was loaded from, or NULL */
    /* Programs built op by op (paddle.static.data): the builder whose
     * symbolic tensors append ops to p, and the interpreter; I is NULL once
     * the module state is gone (interpreter teardown). */
    d2_builder *b;
    d2_interp *I;
    struct sprog *next, *prev;
} sprog;

static st_state *SS(d2_interp *I) { return I->ext[D2_EXT_STATIC]; }

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

/* Sets attribute name of instance o to v, stealing the reference to v. */
static int iset_steal(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    int rc = v ? d2_dict_set_str(I, D2_AS(d2_instance, o)->dict, name, v) : -1;
    d2_decref(v);
    return rc;
}

static bool is_seq(const d2_obj *o)
{
    return o && (o->kind == D2_OBJ_LIST || o->kind == D2_OBJ_TUPLE);
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
    }
    d2_free(s->b);
    d2_exec_free(s->pp);
    d2_program_free(s->p);
    d2_free(s->file);
    d2_free(s);
}

/* A Program object owning p (may be NULL: empty) and file (may be NULL);
 * on failure both are freed. */
static d2_obj *prog_new(d2_interp *I, d2_program *p, char *file)
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
    D2_AS(d2_opaque, o)->payload = s;
    D2_AS(d2_opaque, o)->fin = sprog_fin;
    return o;
}

static sprog *sprog_of(d2_interp *I, d2_obj *o)
{
    if (!o || o->kind != D2_OBJ_OPAQUE || !d2_isinstance(I, o, SS(I)->prog_cls))
        return NULL;
    return D2_AS(d2_opaque, o)->payload;
}

static sprog *self_prog(d2_interp *I, d2_obj *self, const char *fname)
{
    sprog *s = sprog_of(I, self);
    if (!s)
        d2_raise(I, "TypeError", "%s: expected a Program, got %s", fname,
                 self ? d2_type_name(self) : "nothing");
    return s;
}

/* Variable view of variable v of p: name, shape (a tuple, -1 for unknown
 * dims), dtype, persistable, stop_gradient, lod_level. */
static d2_obj *var_new(d2_interp *I, const d2_program *p, int v)
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
    const d2_program *p = sprog_of(I, po)->p;
    d2_obj *o = d2_instance_new(I, SS(I)->block_cls);
    d2_obj *vars = d2_dict_new(I), *ops = d2_list_new(I, 0);
    int rc = o && vars && ops ? 0 : -1;
    for (int v = 0; p && rc == 0 && v < p->n_vars; v++) {
        if (p->vars[v].block != b)
            continue;
        d2_obj *vo = var_new(I, p, v);
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

/* paddle.static.Program(): an empty Program */
D2_FN(PG_new)
{
    return prog_new(I, NULL, NULL);
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
        d2_obj *vo = var_new(I, s->p, v);
        if (!vo || d2_list_append(I, r, vo) < 0)
            d2_setref(&r, NULL);
        d2_decref(vo);
    }
    return r;
}

/* program.clone(for_test=False): a copy sharing the parameter data */
D2_FN(PG_clone)
{
    sprog *s = self_prog(I, self, def->qualname);
    if (!s)
        return NULL;
    d2_err err = {0};
    d2_program *q = NULL;
    if (s->p && !(q = d2_program_clone(s->p, &err)))
        return d2_raise_err(I, &err);
    char *file = s->file ? d2_strdup(s->file) : NULL;
    if (s->file && !file) {
        d2_program_free(q);
        return nomem(I);
    }
    return prog_new(I, q, file);
}

d2_obj *d2_static_program_new(d2_interp *I, const d2_program *p)
{
    d2_err err = {0};
    d2_program *q = d2_program_clone(p, &err);
    if (!q)
        return d2_raise_err(I, &err);
    return prog_new(I, q, NULL);
}

/* paddle.static.CompiledProgram(program, build_strategy=None): dy2st
 * prepares every Program once anyway, so this is the Program itself. */
D2_FN(CP_new)
{
    if (!sprog_of(I, a[0]))
        return d2_raise(I, "TypeError",
                        "paddle.static.CompiledProgram: expected a Program, got %s",
                        d2_type_name(a[0]));
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
    sprog *s = sprog_of(I, po);
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
    s->I = I;
    st_state *st = SS(I);
    s->next = st->built;
    if (st->built)
        st->built->prev = s;
    st->built = s;
    return s->b;
}

/* The name of a feed/fetch item: a name, a Variable, or a tensor (symbolic
 * ones by their variable); *var receives the variable of a symbolic tensor
 * of p's builder b (else -1). NULL when the item is none of these. */
static const char *item_name(d2_interp *I, d2_obj *item, const d2_builder *b, int *var)
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
    if (!sprog_of(I, a[0]))
        return d2_raise(I, "TypeError", "%s: main_program must be a Program, got %s", fname,
                        d2_type_name(a[0]));
    d2_obj *su = a[1] && a[1]->kind != D2_OBJ_NONE ? a[1] : NULL;
    if (su && !sprog_of(I, su))
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
    if (!sprog_of(I, m))
        return d2_raise(I, "TypeError", "program_guard.__enter__: not a program_guard");
    if (iset_steal(I, self, "_saved_main", d2_incref(s->main_prog)) < 0 ||
        iset_steal(I, self, "_saved_startup", d2_incref(s->startup_prog)) < 0)
        return NULL;
    d2_setref(&s->main_prog, d2_incref(m));
    if (sprog_of(I, su))
        d2_setref(&s->startup_prog, d2_incref(su));
    return d2_none(I); /* Paddle's guard yields nothing */
}

static d2_obj *GD_exit(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    st_state *s = SS(I);
    d2_obj *m = iget(I, self, "_saved_main"), *su = iget(I, self, "_saved_startup");
    if (sprog_of(I, m))
        d2_setref(&s->main_prog, d2_incref(m));
    if (sprog_of(I, su))
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
    if (ok && nm && dto) {
        d2_obj *cargs[5] = {shape, dto, I->none, nm, d2_bool(I, is_bias)};
        r = call_fn(I, "paddle", "create_parameter", cargs, 5);
        d2_decref(cargs[4]);
    }
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
    const char *name = item_name(I, item, s->b, &sv);
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
 * yielding the fetched variables is prepared for this run) on inputs in and
 * returns the n fetched values (vars[i]) as new tensor references in res. */
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
    if (any && own) {
        if (!s->pp && !(s->pp = d2_exec_prepare(p, D2_MODE(I)->backend, &err)))
            goto fail;
        qp = s->pp;
        n_out = b0->n_yields;
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
        if (!(qp = d2_exec_prepare(q, D2_MODE(I)->backend, &err)))
            goto fail;
    }
    outs = d2_calloc((size_t)n_out + 1, sizeof *outs);
    if (!outs) {
        nomem(I);
        goto done;
    }
    if (any && d2_exec_run(qp, in, b0->n_params, outs, n_out, &err) < 0)
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
    if (q) {
        d2_exec_free(qp);
        d2_program_free(q);
    }
    return rc;
}

static bool var_read(const d2_program *p, int v);
static int prune_dead(d2_interp *I, d2_program *q);

static int param_index(const d2_block *b, int v)
{
    for (int k = 0; k < b->n_params; k++)
        if (b->params[k] == v)
            return k;
    return -1;
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
    d2_block *qb = NULL;
    if (any) {
        if (!(q = d2_program_clone(p, &err)))
            goto fail;
        qb = &q->blocks[0];
        qb->n_yields = 0;
        for (int i = 0; i < n; i++)
            if (!p->vars[vars[i]].persistable && param_index(qb, vars[i]) < 0 &&
                yield_index(qb, vars[i]) < 0 && d2_block_add_yield(q, 0, vars[i], &err) < 0)
                goto fail;
        if (prune_dead(I, q) < 0)
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
        if (d2_program_verify(q, &err) < 0 || !(qp = d2_exec_prepare(q, D2_MODE(I)->backend, &err)))
            goto fail;
        n_out = qb->n_yields;
        if (!(outs = d2_calloc((size_t)n_out + 1, sizeof *outs))) {
            nomem(I);
            goto done;
        }
        if (d2_exec_run(qp, in, n_need, outs, n_out, &err) < 0)
            goto fail;
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
    d2_exec_free(qp);
    d2_program_free(q);
    return r;
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
    sprog *s = sprog_of(I, po);
    if (!s)
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
    if (!s->p) {
        /* an empty Program: the startup program, or a main program never built */
        if (nfl == 0)
            return d2_list_new(I, 0);
        return d2_raise(I, "ValueError",
                        "Executor.run: the program is empty, there is nothing to fetch (build "
                        "it with paddle.static.data and operations on it, or load a model with "
                        "paddle.static.load_inference_model)");
    }
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
    d2_prepared *pp = p ? d2_exec_prepare(p, D2_MODE(I)->backend, &err) : NULL;
    if (!pp) {
        d2_program_free(p);
        d2_free(file);
        if (err.code == D2_ERR_IO)
            return d2_raise(I, "OSError", "%s: %s", fname, err.msg);
        if (err.code == D2_ERR_NOMEM)
            return nomem(I);
        return d2_raise(I, "ValueError", "%s: cannot load the model: %s", fname, err.msg);
    }
    d2_obj *po = prog_new(I, p, file);
    if (!po) {
        d2_exec_free(pp);
        return NULL;
    }
    sprog_of(I, po)->pp = pp;
    return po;
}

/* [program, feed_target_names, fetch_targets] */
static d2_obj *load_result(d2_interp *I, d2_obj *po)
{
    const d2_program *p = sprog_of(I, po)->p;
    const d2_block *b0 = &p->blocks[0];
    d2_obj *names = d2_list_new(I, (size_t)b0->n_params);
    d2_obj *fetch = d2_list_new(I, (size_t)b0->n_yields);
    for (int i = 0; names && i < b0->n_params; i++) {
        D2_AS(d2_list, names)->items[i] = d2_str_from(I, p->vars[b0->params[i]].name);
        if (!D2_AS(d2_list, names)->items[i])
            d2_setref(&names, NULL);
    }
    for (int k = 0; fetch && k < b0->n_yields; k++) {
        D2_AS(d2_list, fetch)->items[k] = var_new(I, p, b0->yields[k]);
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

/* Removes the ops of block 0 whose results nothing uses (liveness from the
 * block's yields). Control ops are kept with everything their sub-blocks
 * read: their blocks must stay attached to one op. */
static int prune_dead(d2_interp *I, d2_program *q)
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
        keep[k] = def && (def->flags & D2_OPF_CONTROL);
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
        const char *name = item_name(I, items[i], s->b, &v);
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

/* Saves s's program pruned to feeds -> fetches (lists of Variables or
 * names) to file, making its directory. 0, or -1 with an exception. */
static int save_pruned(d2_interp *I, const char *fname, const sprog *s, d2_obj *feeds,
                       d2_obj *fetches, const char *file)
{
    int *feed = NULL, *fetch = NULL, nfeed = 0, nfetch = 0, rc = -1;
    d2_err err = {0};
    d2_program *q = NULL;
    char *dir = NULL;
    if (vars_of(I, s, feeds, fname, "feed_vars", &feed, &nfeed) < 0 ||
        vars_of(I, s, fetches, fname, "fetch_vars", &fetch, &nfetch) < 0)
        goto done;
    for (int i = 0; i < nfeed; i++) {
        bool is_input = false;
        for (int j = 0; j < s->p->blocks[0].n_params; j++)
            is_input = is_input || s->p->blocks[0].params[j] == feed[i];
        if (!is_input) {
            d2_raise(I, "ValueError", "%s: feed_vars[%d] '%s' is not an input of the program",
                     fname, i, s->p->vars[feed[i]].name);
            goto done;
        }
    }
    q = d2_program_clone(s->p, &err);
    if (!q) {
        d2_raise_err(I, &err);
        goto done;
    }
    if (reshape_io(I, q, feed, nfeed, fetch, nfetch, fname) < 0)
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
    d2_free(feed);
    d2_free(fetch);
    d2_program_free(q);
    return rc;
}

/* The Program a save_inference_model call saves: program, else (in static
 * mode) the default main Program. NULL with an exception. */
static sprog *program_to_save(d2_interp *I, const char *fname, d2_obj *po)
{
    bool given = po && po->kind != D2_OBJ_NONE;
    sprog *s = given ? sprog_of(I, po) : sprog_of(I, SS(I)->main_prog);
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
        d2_obj *nm = d2_str_from(I, item_name(I, items[i], s->b, &v));
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
    d2_obj *po = prog_new(I, p, NULL);
    d2_obj *r = po ? load_result(I, po) : NULL;
    d2_obj *ins = NULL;
    if (r) {
        /* the feed names as Variables */
        const d2_block *b0 = &p->blocks[0];
        ins = d2_list_new(I, (size_t)b0->n_params);
        for (int i = 0; ins && i < b0->n_params; i++) {
            D2_AS(d2_list, ins)->items[i] = var_new(I, p, b0->params[i]);
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
 * paddle.nn.functional.cross_entropy (registered when the paddle module
 * has none): log_softmax and a one-hot pick, with existing functions, so it
 * builds Programs as well as it runs eagerly
 * ====================================================================== */

/* Temporaries of one call, released together. */
typedef struct tmps {
    d2_obj *o[24];
    int n;
} tmps;

/* Keeps o (a new reference or NULL) for release; returns it. */
static d2_obj *keep(tmps *t, d2_obj *o)
{
    if (o && t->n < (int)D2_COUNTOF(t->o))
        t->o[t->n++] = o;
    else
        d2_decref(o); /* cannot happen: the callers keep fewer */
    return o;
}

/* mod.name(a0, a1, ...) with up to 4 positional arguments, kept in t;
 * NULL when an argument is NULL (an exception is then pending). */
static d2_obj *kcall(d2_interp *I, tmps *t, const char *mod, const char *name, int n, d2_obj *a0,
                     d2_obj *a1, d2_obj *a2, d2_obj *a3)
{
    d2_obj *a[4] = {a0, a1, a2, a3};
    for (int i = 0; i < n; i++)
        if (!a[i])
            return NULL;
    return keep(t, call_fn(I, mod, name, a, (size_t)n));
}

D2_FN(F_cross_entropy)
{
    const char *fname = def->qualname;
    const char *P = "paddle", *F = "paddle.nn.functional";
    d2_obj *x = a[0], *label = a[1];
    const char *red = d2_to_cstr(I, a[4], "reduction");
    int64_t ignore = -100, axis = -1;
    bool soft = false, use_sm = true;
    if (!red || (a[3] && d2_to_int64(I, a[3], "ignore_index", &ignore) < 0) ||
        (a[5] && d2_to_bool(I, a[5], "soft_label", &soft) < 0) ||
        (a[6] && d2_to_int64(I, a[6], "axis", &axis) < 0) ||
        (a[7] && d2_to_bool(I, a[7], "use_softmax", &use_sm) < 0))
        return NULL;
    if (strcmp(red, "mean") != 0 && strcmp(red, "sum") != 0 && strcmp(red, "none") != 0)
        return d2_raise(I, "ValueError",
                        "%s: reduction must be 'mean', 'sum' or 'none', got '%s'", fname, red);
    if (!x || x->kind != D2_OBJ_TENSOR || !label || label->kind != D2_OBJ_TENSOR)
        return d2_raise(I, "TypeError", "%s: input and label must be Tensors, got %s and %s",
                        fname, d2_type_name(x), d2_type_name(label));
    const d2_type *xt = &TOBJ(x)->type, *lt = &TOBJ(label)->type;
    int nd = xt->shape.ndim;
    int64_t classes = nd ? xt->shape.dims[nd - 1] : -1;
    if (a[2] && a[2]->kind != D2_OBJ_NONE)
        return d2_raise(I, "NotImplementedError", "%s: weight is not supported", fname);
    if (a[8] && !(a[8]->kind == D2_OBJ_INT && D2_AS(d2_int, a[8])->v == 0) &&
        !(a[8]->kind == D2_OBJ_FLOAT && D2_AS(d2_float, a[8])->v == 0))
        return d2_raise(I, "NotImplementedError", "%s: label_smoothing is not supported", fname);
    if (axis != -1 && axis != nd - 1)
        return d2_raise(I, "NotImplementedError",
                        "%s: only the last axis holds the classes here (axis=-1), got axis=%lld",
                        fname, (long long)axis);
    if (nd < 1 || classes < 1)
        return d2_raise(I, "ValueError", "%s: input must have a known number of classes in its "
                        "last dim", fname);
    if (!soft && !(lt->shape.ndim == nd || lt->shape.ndim == nd - 1))
        return d2_raise(I, "ValueError",
                        "%s: label must have the rank of input, or one less (got %d and %d)",
                        fname, lt->shape.ndim, nd);
    if (!soft && lt->shape.ndim == nd && lt->shape.dims[nd - 1] != 1)
        return d2_raise(I, "ValueError",
                        "%s: a hard label's last dim must be 1, got %lld (soft_label=True for "
                        "probabilities)",
                        fname, (long long)lt->shape.dims[nd - 1]);
    tmps t = {{NULL}, 0};
    d2_obj *r = NULL;
    d2_obj *m1 = keep(&t, d2_int_new(I, -1)), *tr = keep(&t, d2_bool(I, true));
    d2_obj *dto = d2_pd_dtype_obj(I, xt->dtype, false);
    d2_obj *logp = use_sm ? kcall(I, &t, F, "log_softmax", 2, x, m1, NULL, NULL)
                          : kcall(I, &t, P, "log", 1, x, NULL, NULL, NULL);
    d2_obj *loss, *valid = NULL;
    if (soft) {
        d2_obj *pl = kcall(I, &t, P, "multiply", 2, label, logp, NULL, NULL);
        d2_obj *s = kcall(I, &t, P, "sum", 4, pl, m1, I->none, tr);
        loss = kcall(I, &t, P, "scale", 2, s, keep(&t, d2_float_new(I, -1.0)), NULL, NULL);
    } else {
        bool full = lt->shape.ndim == nd;
        d2_obj *lab = full ? kcall(I, &t, P, "squeeze", 2, label, m1, NULL, NULL) : label;
        d2_obj *ig = kcall(I, &t, P, "full_like", 2, lab, keep(&t, d2_int_new(I, ignore)), NULL,
                           NULL);
        d2_obj *ne = kcall(I, &t, P, "not_equal", 2, lab, ig, NULL, NULL);
        d2_obj *lab_dt = lab ? d2_pd_dtype_obj(I, TOBJ(lab)->type.dtype, false) : NULL;
        d2_obj *vi = kcall(I, &t, P, "cast", 2, ne, lab_dt, NULL, NULL);
        d2_obj *safe = kcall(I, &t, P, "multiply", 2, lab, vi, NULL, NULL);
        d2_obj *oh = kcall(I, &t, F, "one_hot", 2, safe, keep(&t, d2_int_new(I, classes)), NULL,
                           NULL);
        oh = kcall(I, &t, P, "cast", 2, oh, dto, NULL, NULL);
        d2_obj *pl = kcall(I, &t, P, "multiply", 2, oh, logp, NULL, NULL);
        d2_obj *s = kcall(I, &t, P, "sum", 4, pl, m1, I->none, tr);
        d2_obj *nl = kcall(I, &t, P, "scale", 2, s, keep(&t, d2_float_new(I, -1.0)), NULL, NULL);
        d2_obj *vf = kcall(I, &t, P, "cast", 2, ne, dto, NULL, NULL);
        valid = kcall(I, &t, P, "unsqueeze", 2, vf, m1, NULL, NULL);
        loss = kcall(I, &t, P, "multiply", 2, nl, valid, NULL, NULL);
        if (!full)
            loss = kcall(I, &t, P, "squeeze", 2, loss, m1, NULL, NULL);
    }
    if (loss && strcmp(red, "none") == 0) {
        r = d2_incref(loss);
    } else if (loss && strcmp(red, "sum") == 0) {
        r = d2_incref(kcall(I, &t, P, "sum", 1, loss, NULL, NULL, NULL));
    } else if (loss && soft) {
        r = d2_incref(kcall(I, &t, P, "mean", 1, loss, NULL, NULL, NULL));
    } else if (loss) {
        /* Paddle: the sum over the labels that are not ignore_index, divided by their count */
        d2_obj *s = kcall(I, &t, P, "sum", 1, loss, NULL, NULL, NULL);
        d2_obj *c = kcall(I, &t, P, "sum", 1, valid, NULL, NULL, NULL);
        d2_obj *c1 = kcall(I, &t, P, "clip", 2, c, keep(&t, d2_float_new(I, 1.0)), NULL, NULL);
        r = d2_incref(kcall(I, &t, P, "divide", 2, s, c1, NULL, NULL));
    }
    for (int i = 0; i < t.n; i++)
        d2_decref(t.o[i]);
    if (!r && !I->exc)
        nomem(I);
    return r;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

/* m.name = v for the module registered as mod (when there is one). */
static int alias(d2_interp *I, const char *mod, const char *name, d2_obj *v)
{
    d2_obj *m = d2_dict_get_str(I, I->modules, mod);
    if (!m || m->kind != D2_OBJ_MODULE || !v)
        return 0;
    return d2_dict_set_str(I, D2_AS(d2_module, m)->dict, name, v);
}

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

/* ======================================================================
 * Training: not supported (paddle.optimizer.*.minimize, append_backward)
 * ====================================================================== */

static d2_obj *not_training(d2_interp *I, const char *what)
{
    return d2_raise(I, "NotImplementedError",
                    "%s: dy2st runs inference only; training (backward passes and optimizer "
                    "updates) is not supported",
                    what);
}

static d2_obj *OPT_init(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_none(I);
}

static d2_obj *OPT_minimize(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                            d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return not_training(I, "Optimizer.minimize");
}

static d2_obj *OPT_step(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return not_training(I, "Optimizer.step");
}

static d2_obj *S_append_backward(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                 d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return not_training(I, "paddle.static.append_backward");
}

static d2_obj *S_gradients(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return not_training(I, "paddle.static.gradients");
}

/* paddle.optimizer with the common optimizers, when no other module made
 * it: they construct, and minimize/step raise NotImplementedError. */
static int add_optimizers(d2_interp *I)
{
    if (d2_jit_mod_attr(I, "paddle", "optimizer"))
        return 0;
    d2_module *m = d2_jit_get_module(I, "paddle.optimizer");
    if (!m)
        return -1;
    static const char *const names[] = {"SGD",     "Momentum", "Adam",     "AdamW",   "Adamax",
                                        "RMSProp", "Adagrad",  "Adadelta", "Lamb"};
    static const d2_fn_entry opt_m[] = {{"__init__", OPT_init},
                                        {"minimize", OPT_minimize},
                                        {"step", OPT_step},
                                        {"backward", OPT_minimize}};
    int rc = 0;
    d2_class *base =
        d2_jit_new_class(I, m, "Optimizer", D2_OBJ_INSTANCE, NULL, 0, opt_m, D2_COUNTOF(opt_m));
    for (size_t i = 0; base && rc == 0 && i < D2_COUNTOF(names); i++)
        rc = d2_jit_new_class(I, m, names[i], D2_OBJ_INSTANCE, NULL, 0, opt_m, D2_COUNTOF(opt_m))
                 ? 0
                 : -1;
    if (!base)
        rc = -1;
    if (rc == 0 && !d2_jit_mod_attr(I, "paddle", "optimizer"))
        rc = alias(I, "paddle", "optimizer", (d2_obj *)m);
    d2_decref((d2_obj *)m);
    return rc;
}

int d2_static_api_init(d2_interp *I)
{
    D2_MODE(I)->up.static_var_text = d2_static_var_text;
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
    if (d2_module_add_defs(I, D2_AS(d2_module, pd), mode_defs, D2_COUNT(mode_defs)) < 0)
        return -1;
    /* classes */
    static const d2_def pg_defs[] = {
        D2_DEF("__new__", "", PG_new, "paddle.static.Program"),
        D2_DEF("global_block", "", PG_global_block, "Program.global_block"),
        D2_DEF("block", "index", PG_block, "Program.block"),
        D2_DEF("list_vars", "", PG_list_vars, "Program.list_vars"),
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
    static const d2_def exe_defs[] = {
        D2_DEF("__init__", "place=None", EX_init, "paddle.static.Executor"),
        D2_DEF("run",
               "program=None, feed=None, fetch_list=None, feed_var_name='feed', "
               "fetch_var_name='fetch', scope=None, return_numpy=True, "
               "use_program_cache=False, use_prune=False",
               EX_run, "Executor.run"),
        D2_DEF("close", "", EX_close, "Executor.close"),
    };
    static const d2_def cp_defs[] = {
        D2_DEF("__new__", "program_or_graph, build_strategy=None, **kwargs", CP_new,
               "paddle.static.CompiledProgram"),
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
    s->prog_cls = d2_jit_new_class(I, s->statics, "Program", D2_OBJ_OPAQUE, pg_defs,
                                   D2_COUNT(pg_defs), pg_m, D2_COUNTOF(pg_m));
    s->var_cls = d2_jit_new_class(I, s->statics, "Variable", D2_OBJ_INSTANCE, NULL, 0, var_m,
                                  D2_COUNTOF(var_m));
    s->block_cls = d2_jit_new_class(I, NULL, "Block", D2_OBJ_INSTANCE, blk_defs,
                                    D2_COUNT(blk_defs), blk_m, D2_COUNTOF(blk_m));
    s->op_cls =
        d2_jit_new_class(I, NULL, "Operator", D2_OBJ_INSTANCE, NULL, 0, op_m, D2_COUNTOF(op_m));
    s->exe_cls = d2_jit_new_class(I, s->statics, "Executor", D2_OBJ_INSTANCE, exe_defs,
                                  D2_COUNT(exe_defs), NULL, 0);
    d2_class *cp = d2_jit_new_class(I, s->statics, "CompiledProgram", D2_OBJ_INSTANCE, cp_defs,
                                    D2_COUNT(cp_defs), NULL, 0);
    d2_module *jit = D2_AS(d2_module, d2_dict_get_str(I, I->modules, "paddle.jit"));
    s->pt_cls = jit && jit->h.kind == D2_OBJ_MODULE
                    ? d2_jit_new_class(I, jit, "ProgramTranslator", D2_OBJ_INSTANCE, pt_defs,
                                       D2_COUNT(pt_defs), pt_m, D2_COUNTOF(pt_m))
                    : NULL;
    if (!s->prog_cls || !s->var_cls || !s->block_cls || !s->op_cls || !s->exe_cls || !cp ||
        !s->pt_cls)
        return -1;
    if (d2_class_add_property(I, s->prog_cls, "blocks", PG_blocks, NULL) < 0 ||
        d2_class_add_property(I, s->prog_cls, "num_blocks", PG_num_blocks, NULL) < 0)
        return -1;
    d2_obj *gi = d2_def_new(I, &get_instance, NULL);
    int rc = gi ? d2_dict_set_str(I, s->pt_cls->dict, "get_instance", gi) : -1;
    d2_decref(gi);
    if (rc < 0)
        return -1;
    s->main_prog = prog_new(I, NULL, NULL);
    s->startup_prog = prog_new(I, NULL, NULL);
    if (!s->main_prog || !s->startup_prog)
        return -1;
    /* paddle.static functions */
    static const d2_def st_defs[] = {
        D2_DEF("default_main_program", "", S_default_main, "paddle.static.default_main_program"),
        D2_DEF("default_startup_program", "", S_default_startup,
               "paddle.static.default_startup_program"),
        D2_DEF("load_inference_model", "path_prefix, executor, **kwargs", S_load_inference_model,
               "paddle.static.load_inference_model"),
        D2_DEF("save_inference_model",
               "path_prefix, feed_vars, fetch_vars, executor, program=None, **kwargs",
               S_save_inference_model, "paddle.static.save_inference_model"),
        D2_DEF("data", "name, shape, dtype=None, lod_level=0", S_data, "paddle.static.data"),
        D2_DEF("cpu_places", "device_count=None", S_cpu_places, "paddle.static.cpu_places"),
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
    static const d2_def nn_defs[] = {
        D2_DEF("fc",
               "x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, "
               "activation=None, name=None",
               SN_fc, "paddle.static.nn.fc"),
    };
    static const d2_def F_defs[] = {
        D2_DEF("cross_entropy",
               "input, label, weight=None, ignore_index=-100, reduction='mean', "
               "soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, "
               "name=None, **kwargs",
               F_cross_entropy, "paddle.nn.functional.cross_entropy"),
    };
    static const d2_fn_entry train_fns[] = {{"append_backward", S_append_backward},
                                            {"gradients", S_gradients}};
    if (d2_jit_add_fns(I, s->statics, train_fns, D2_COUNTOF(train_fns)) < 0 ||
        add_optimizers(I) < 0)
        return -1;
    static const d2_def gd_defs[] = {
        D2_DEF("__init__", "main_program, startup_program=None", GD_init,
               "paddle.static.program_guard"),
    };
    static const d2_fn_entry gd_m[] = {{"__enter__", GD_enter}, {"__exit__", GD_exit}};
    s->guard_cls = d2_jit_new_class(I, s->statics, "program_guard", D2_OBJ_INSTANCE, gd_defs,
                                    D2_COUNT(gd_defs), gd_m, D2_COUNTOF(gd_m));
    s->static_nn = d2_jit_get_module(I, "paddle.static.nn");
    d2_obj *Fm = d2_dict_get_str(I, I->modules, "paddle.nn.functional");
    if (Fm && Fm->kind == D2_OBJ_MODULE &&
        !d2_jit_mod_attr(I, "paddle.nn.functional", "cross_entropy") &&
        d2_module_add_defs(I, D2_AS(d2_module, Fm), F_defs, D2_COUNT(F_defs)) < 0)
        return -1;
    if (alias(I, "paddle.framework", "CPUPlace", d2_jit_mod_attr(I, "paddle", "CPUPlace")) < 0)
        return -1;
    if (!s->guard_cls || !s->static_nn ||
        d2_dict_set_str(I, s->statics->dict, "nn", (d2_obj *)s->static_nn) < 0 ||
        d2_module_add_defs(I, s->static_nn, nn_defs, D2_COUNT(nn_defs)) < 0)
        return -1;
    if (d2_module_add_defs(I, s->statics, st_defs, D2_COUNT(st_defs)) < 0 ||
        d2_module_add_defs(I, s->fluid_io, io_defs, D2_COUNT(io_defs)) < 0)
        return -1;
    /* the fluid spellings */
    d2_dict *sd = s->statics->dict;
    if (alias(I, "paddle.fluid", "io", (d2_obj *)s->fluid_io) < 0 ||
        alias(I, "paddle.fluid", "Executor", (d2_obj *)s->exe_cls) < 0 ||
        alias(I, "paddle.fluid", "Program", (d2_obj *)s->prog_cls) < 0 ||
        alias(I, "paddle.fluid", "CompiledProgram", (d2_obj *)cp) < 0 ||
        alias(I, "paddle.fluid", "default_main_program",
              d2_dict_get_str(I, sd, "default_main_program")) < 0 ||
        alias(I, "paddle.fluid", "default_startup_program",
              d2_dict_get_str(I, sd, "default_startup_program")) < 0 ||
        alias(I, "paddle.fluid", "data", d2_dict_get_str(I, sd, "data")) < 0 ||
        alias(I, "paddle.fluid", "cpu_places", d2_dict_get_str(I, sd, "cpu_places")) < 0 ||
        alias(I, "paddle.fluid", "enable_dygraph",
              d2_jit_mod_attr(I, "paddle", "disable_static")) < 0 ||
        alias(I, "paddle.fluid", "disable_dygraph",
              d2_jit_mod_attr(I, "paddle", "enable_static")) < 0 ||
        alias(I, "paddle.fluid", "in_dygraph_mode",
              d2_jit_mod_attr(I, "paddle", "in_dynamic_mode")) < 0 ||
        alias(I, "paddle.fluid.dygraph", "enabled",
              d2_jit_mod_attr(I, "paddle", "in_dynamic_mode")) < 0 ||
        alias(I, "paddle.fluid.dygraph", "ProgramTranslator", (d2_obj *)s->pt_cls) < 0 ||
        alias(I, "paddle.framework", "in_dynamic_mode",
              d2_jit_mod_attr(I, "paddle", "in_dynamic_mode")) < 0 ||
        alias(I, "paddle.static", "cpu_places", d2_dict_get_str(I, sd, "cpu_places")) < 0)
        return -1;
    /* the module paths Paddle's documentation spells paddle.jit's objects with
     * (paddle.jit.api.TracedLayer, paddle.jit.dy2static.program_translator
     * .ProgramTranslator): modules sharing paddle.jit's namespace */
    d2_module *dy = d2_jit_get_module(I, "paddle.jit.dy2static");
    rc = dy && share_namespace(I, "paddle.jit.api", "paddle.jit") == 0 &&
                     share_namespace(I, "paddle.jit.dy2static.program_translator",
                                     "paddle.jit") == 0
                 ? 0
                 : -1;
    d2_decref((d2_obj *)dy);
    return rc;
}
