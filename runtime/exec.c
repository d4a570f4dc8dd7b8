/* exec.c - the executor: prepare (slots, kernels, liveness, parameters), run; control ops. */
#include "exec.h"
#include "bufpool.h"
#include "memplan.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Variables are resolved to slots once: slot i holds the value of variable i
 * during a run (a frame is one array of n_vars tensor pointers). Each variable
 * is defined exactly once (a block param or an op output), so its slot is
 * written only by its defining block; a block run overwrites its slots and
 * releases the old values. */

/* The output types an op with dynamic dims inferred on its last run, and the input types they
 * came from: a run whose inputs have the same types reuses them instead of inferring again.
 * Written and read only by the run that holds its prepared Program's memo (memo_busy). */
typedef struct type_memo {
    bool valid;
    d2_type *in;  /* n_in input types */
    d2_type *out; /* n_out output types */
} type_memo;

/* What the executor precomputes for one op. */
typedef struct op_plan {
    d2_kernel_fn fn;
    int n_dead;
    int *dead;          /* slots whose last use in this block is this op */
    d2_type *cached;    /* output types when every input type is static (else NULL) */
    int inplace;        /* 1 + the input port whose buffer output 0 may take (0: none) */
    const d2_opdef *def;
    type_memo *memo;    /* ops whose output types depend only on dynamic input types; else NULL */
    bool array_in;      /* an input is declared a tensor array */
} op_plan;

typedef struct block_plan {
    op_plan *ops;
    int n_entry_dead, n_exit_dead;
    int *entry_dead; /* params the block never reads: released right after binding */
    int *exit_dead;  /* values still held at the end (yields): released after yielding */
    bool *yield_move; /* per yield: its slot dies at the exit and no later yield names it, so
                       * the slot's reference moves to the result */
    bool borrow;      /* its tensor params are borrowed (plan_borrow) */
} block_plan;

struct d2_prepared {
    const d2_program *p;
    d2_program *owned; /* p, when the prepared form owns it (d2_exec_prepare_owned) */
    d2_backend *be;
    int n_slots;
    d2_tensor **params; /* per variable: the uploaded parameter (owned), else NULL */
    block_plan *blocks;
    d2_bufpool *pool;   /* the CPU backend: buffers outputs reuse from run to run; else NULL */
    int n_inplace;      /* ops given an in-place port (d2_exec_enable_inplace) */
    bool *borrowed;     /* per variable: a borrowed param (plan_borrow): its slot holds the
                         * caller's value without a reference of its own */
    atomic_bool memo_busy; /* a run holds the type memos (one run at a time uses them) */
    d2_memplan *mp;     /* block 0's static memory plan (d2_exec_enable_memplan), else NULL */
    /* the slot array of the run that holds it (slots_busy): a run needs no allocation for its
     * slots unless another run of this prepared Program is in progress */
    d2_tensor **slot_cache;
    atomic_bool slots_busy;
};

/* Idle bytes a prepared Program's buffer pool keeps between runs at most. */
#define POOL_MAX_IDLE ((size_t)256 << 20)

/* Small values a run keeps for reuse (RECYCLE_MAX of them at most). */
#define RECYCLE_MAX 8

/* Per-run state: the slots, the block being run (for d2_exec_frame_op),
 * the run's limits with what it has used of them, and the small values whose
 * last reference died in the run, kept to be outputs of later ops (a loop's
 * trips then allocate nothing). */
struct d2_exec_frame {
    const d2_prepared *pp;
    d2_tensor **slots;
    int block;
    d2_run_limits *lim; /* NULL: an unbounded run */
    size_t bytes;       /* allocated by the run's ops so far */
    bool limit_placed;  /* a while_loop has put its iteration count in the limit error */
    bool memo;          /* this run holds pp's type memos */
    d2_mp_arena *arena; /* block 0's values of this run (memplan.c), else NULL */
    int n_recycled;
    d2_tensor *recycled[RECYCLE_MAX]; /* each the only reference to a tensor and its storage */
};

/* Ports up to this count use stack arrays when running an op. */
#define SMALL_PORTS 16

/* ---- preparation ---------------------------------------------------------------------------- */

/* Liveness scratch, per variable: the defining block (-1: never released
 * early, i.e. parameters and the caller's inputs; -2: not defined anywhere)
 * and the last position in that block that uses it (-1 = block entry, n_ops =
 * the yields). */
typedef struct live_info {
    int *def_block, *last;
} live_info;

/* Index of the value of block attribute k of op, or -1 if out of range. */
static int block_attr_value(const d2_program *p, const d2_opdef *def, const d2_op *op, int k,
                            d2_err *err)
{
    int64_t b = op->attrs.v[k].u.i;
    if (b <= 0 || b >= p->n_blocks)
        return d2_err_set(err, D2_ERR_INVALID, "%s: attribute '%s' names block ^%lld, which does "
                          "not exist", def->name, def->attrs[k].name, (long long)b);
    return (int)b;
}

/* Block attribute `name` of a control op as a block index (-1 if missing). */
static int block_attr(const d2_opdef *def, const d2_attrs *attrs, const char *name)
{
    int k = d2_attr_index(def, name);
    if (k < 0 || k >= attrs->n || attrs->v[k].type != D2_ATTR_BLOCK)
        return -1;
    return (int)attrs->v[k].u.i;
}

static int mark_use(const d2_program *p, live_info *li, int v, int b, int pos, d2_err *err)
{
    if (v < 0)
        return 0;
    if (v >= p->n_vars)
        return d2_err_set(err, D2_ERR_INVALID, "variable index %d out of range", v);
    if (li->def_block[v] == -2)
        return d2_err_set(err, D2_ERR_INVALID, "variable '%s' is used but never defined",
                          p->vars[v].name);
    if (p->vars[v].persistable && !p->vars[v].data)
        return d2_err_set(err, D2_ERR_INVALID, "parameter '%s' has no data", p->vars[v].name);
    if (li->def_block[v] == b && li->last[v] < pos)
        li->last[v] = pos;
    return 0;
}

/* Marks every variable that block `sub` (and the blocks nested in it) reads
 * as used at position pos of block b. */
static int mark_block_uses(const d2_program *p, live_info *li, int sub, int b, int pos, int depth,
                           d2_err *err)
{
    if (depth > p->n_blocks)
        return d2_err_set(err, D2_ERR_INVALID, "block nesting is cyclic at block ^%d", sub);
    const d2_block *blk = &p->blocks[sub];
    for (int i = 0; i < blk->n_ops; i++) {
        const d2_op *op = &blk->ops[i];
        const d2_opdef *def = d2_op_def(op->id);
        for (int j = 0; j < op->n_in; j++)
            if (mark_use(p, li, op->in[j], b, pos, err) < 0)
                return -1;
        for (int k = 0; k < def->n_attrs; k++) {
            if (def->attrs[k].type != D2_ATTR_BLOCK)
                continue;
            int s = block_attr_value(p, def, op, k, err);
            if (s < 0 || mark_block_uses(p, li, s, b, pos, depth + 1, err) < 0)
                return -1;
        }
    }
    for (int j = 0; j < blk->n_yields; j++)
        if (mark_use(p, li, blk->yields[j], b, pos, err) < 0)
            return -1;
    return 0;
}

static int define_var(const d2_program *p, live_info *li, int v, int b, int pos, d2_err *err)
{
    if (v < 0 || v >= p->n_vars)
        return d2_err_set(err, D2_ERR_INVALID, "block ^%d: variable index %d out of range", b, v);
    if (p->vars[v].persistable)
        return d2_err_set(err, D2_ERR_INVALID, "block ^%d: parameter '%s' cannot be redefined", b,
                          p->vars[v].name);
    if (li->def_block[v] != -2)
        return d2_err_set(err, D2_ERR_INVALID, "variable '%s' is defined twice", p->vars[v].name);
    li->def_block[v] = b == 0 && pos < 0 ? -1 : b; /* the caller's inputs live to the end */
    li->last[v] = pos;
    return 0;
}

/* Checks ops against the registry, picks kernels and caches static output types. */
static int plan_ops(d2_prepared *pp, d2_err *err)
{
    const d2_program *p = pp->p;
    for (int b = 0; b < p->n_blocks; b++) {
        const d2_block *blk = &p->blocks[b];
        block_plan *bp = &pp->blocks[b];
        bp->ops = d2_calloc((size_t)blk->n_ops + 1, sizeof *bp->ops);
        if (!bp->ops)
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory preparing a program");
        for (int i = 0; i < blk->n_ops; i++) {
            const d2_op *op = &blk->ops[i];
            const d2_opdef *def = d2_op_def(op->id);
            if (!def)
                return d2_err_set(err, D2_ERR_INVALID, "block ^%d op %d: unknown op id %d", b, i,
                                  (int)op->id);
            if (d2_op_check_arity(def, op->n_in, op->n_out, err) < 0 ||
                (op->attrs.n != def->n_attrs &&
                 d2_err_set(err, D2_ERR_INVALID, "expected %d attributes, got %d", def->n_attrs,
                            op->attrs.n) < 0)) {
                d2_err_prefix(err, "block ^%d op %d (%s)", b, i, def->name);
                return -1;
            }
            for (int j = 0; j < op->n_in + op->n_out; j++) {
                int v = j < op->n_in ? op->in[j] : op->out[j - op->n_in];
                if (v >= p->n_vars || (v < 0 && j >= op->n_in))
                    return d2_err_set(err, D2_ERR_INVALID,
                                      "block ^%d op %d (%s): variable index %d out of range", b,
                                      i, def->name, v);
            }
            op_plan *pl = &bp->ops[i];
            pl->def = def;
            for (int j = 0; j < op->n_in; j++)
                if (op->in[j] >= 0 && p->vars[op->in[j]].type.kind == D2_VALUE_ARRAY)
                    pl->array_in = true;
            if (def->flags & D2_OPF_CONTROL)
                pl->fn = def->ctl_kernel;
            else
                pl->fn = pp->be->kernel(pp->be, op->id);
            if (!pl->fn)
                return d2_err_set(err, D2_ERR_UNSUPPORTED,
                                  "block ^%d op %d (%s): no kernel on the %s backend", b, i,
                                  def->name, pp->be->name);
            if (def->flags & (D2_OPF_CONTROL | D2_OPF_ALLOCS_OUTPUTS | D2_OPF_SHAPE_INPUTS))
                continue;
            bool all_static = true;
            for (int j = 0; j < op->n_in; j++) {
                int v = op->in[j];
                if (v >= 0 && (p->vars[v].type.kind != D2_VALUE_TENSOR ||
                               !d2_shape_is_static(&p->vars[v].type.shape)))
                    all_static = false;
            }
            if (!all_static)
                continue;
            d2_type *ot = d2_calloc((size_t)op->n_out + 1, sizeof *ot);
            if (!ot)
                return d2_err_set(err, D2_ERR_NOMEM, "out of memory preparing a program");
            d2_err scratch = {0};
            bool ok = d2_program_infer_op(p, op, ot, &scratch) == 0;
            for (int j = 0; ok && j < op->n_out; j++)
                ok = ot[j].kind == D2_VALUE_TENSOR && d2_shape_is_static(&ot[j].shape);
            if (ok) {
                pl->cached = ot;
                continue;
            }
            d2_free(ot);
        }
        for (int i = 0; i < blk->n_ops; i++) {
            const d2_op *op = &blk->ops[i];
            op_plan *pl = &bp->ops[i];
            if (pl->cached || (pl->def->flags & (D2_OPF_CONTROL | D2_OPF_SHAPE_INPUTS)))
                continue; /* static, or inferred from the values of shape inputs */
            type_memo *m = d2_calloc(1, sizeof *m);
            d2_type *ts = d2_calloc((size_t)op->n_in + (size_t)op->n_out + 1, sizeof *ts);
            if (!m || !ts) {
                d2_free(m);
                d2_free(ts);
                return d2_err_set(err, D2_ERR_NOMEM, "out of memory preparing a program");
            }
            m->in = ts;
            m->out = ts + op->n_in;
            pl->memo = m;
        }
    }
    return 0;
}

/* Appends v to the list (*list, *n) preallocated by the counting pass. */
static void list_push(int *list, int *n, int v) { list[(*n)++] = v; }

/* Computes, for each block, which slots die after each op (their last use in
 * the block that defines them, counting uses in nested blocks of later ops
 * and the block's yields). */
static int plan_liveness(d2_prepared *pp, d2_err *err)
{
    const d2_program *p = pp->p;
    int nv = p->n_vars;
    int rc = -1;
    live_info li;
    li.def_block = d2_malloc(sizeof(int) * ((size_t)nv + 1));
    li.last = d2_malloc(sizeof(int) * ((size_t)nv + 1));
    int *attached = d2_calloc((size_t)p->n_blocks + 1, sizeof(int));
    if (!li.def_block || !li.last || !attached) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory preparing a program");
        goto done;
    }
    for (int v = 0; v < nv; v++) {
        li.def_block[v] = p->vars[v].persistable ? -1 : -2;
        li.last[v] = -1;
    }
    for (int b = 0; b < p->n_blocks; b++) {
        const d2_block *blk = &p->blocks[b];
        for (int j = 0; j < blk->n_params; j++)
            if (define_var(p, &li, blk->params[j], b, -1, err) < 0)
                goto done;
        for (int i = 0; i < blk->n_ops; i++) {
            const d2_op *op = &blk->ops[i];
            for (int j = 0; j < op->n_out; j++)
                if (define_var(p, &li, op->out[j], b, i, err) < 0)
                    goto done;
            const d2_opdef *def = d2_op_def(op->id);
            for (int k = 0; k < def->n_attrs; k++) {
                if (def->attrs[k].type != D2_ATTR_BLOCK)
                    continue;
                int s = block_attr_value(p, def, op, k, err);
                if (s < 0)
                    goto done;
                if (attached[s]++) {
                    d2_err_set(err, D2_ERR_INVALID, "block ^%d is attached to more than one op", s);
                    goto done;
                }
            }
        }
    }
    for (int b = 0; b < p->n_blocks; b++) {
        const d2_block *blk = &p->blocks[b];
        for (int i = 0; i < blk->n_ops; i++) {
            const d2_op *op = &blk->ops[i];
            const d2_opdef *def = d2_op_def(op->id);
            for (int j = 0; j < op->n_in; j++)
                if (mark_use(p, &li, op->in[j], b, i, err) < 0)
                    goto op_fail;
            for (int k = 0; k < def->n_attrs; k++) {
                if (def->attrs[k].type != D2_ATTR_BLOCK)
                    continue;
                if (mark_block_uses(p, &li, (int)op->attrs.v[k].u.i, b, i, 1, err) < 0)
                    goto op_fail;
            }
            continue;
        op_fail:
            d2_err_prefix(err, "block ^%d op %d (%s)", b, i, def->name);
            goto done;
        }
        for (int j = 0; j < blk->n_yields; j++)
            if ((blk->yields[j] < 0 &&
                 d2_err_set(err, D2_ERR_INVALID, "variable index %d out of range",
                            blk->yields[j]) < 0) ||
                mark_use(p, &li, blk->yields[j], b, blk->n_ops, err) < 0) {
                d2_err_prefix(err, "block ^%d yield %d", b, j);
                goto done;
            }
    }
    /* count, allocate, fill */
    for (int pass = 0; pass < 2; pass++) {
        for (int v = 0; v < nv; v++) {
            int b = li.def_block[v];
            if (b < 0)
                continue;
            block_plan *bp = &pp->blocks[b];
            int pos = li.last[v], n_ops = p->blocks[b].n_ops;
            if (pos < 0) {
                if (pass)
                    list_push(bp->entry_dead, &bp->n_entry_dead, v);
                else
                    bp->n_entry_dead++;
            } else if (pos >= n_ops) {
                if (pass)
                    list_push(bp->exit_dead, &bp->n_exit_dead, v);
                else
                    bp->n_exit_dead++;
            } else if (pass) {
                list_push(bp->ops[pos].dead, &bp->ops[pos].n_dead, v);
            } else {
                bp->ops[pos].n_dead++;
            }
        }
        if (pass)
            break;
        for (int b = 0; b < p->n_blocks; b++) {
            const d2_block *blk = &p->blocks[b];
            block_plan *bp = &pp->blocks[b];
            bp->yield_move = d2_calloc((size_t)blk->n_yields + 1, sizeof(bool));
            if (!bp->yield_move)
                goto oom;
            /* the last yield naming a value that dies at the exit takes the slot's reference */
            for (int j = 0; j < blk->n_yields; j++) {
                int v = blk->yields[j];
                bool last = li.def_block[v] == b && li.last[v] >= blk->n_ops;
                for (int m = j + 1; last && m < blk->n_yields; m++)
                    last = blk->yields[m] != v;
                bp->yield_move[j] = last;
            }
        }
        for (int b = 0; b < p->n_blocks; b++) {
            block_plan *bp = &pp->blocks[b];
            bp->entry_dead = d2_malloc(sizeof(int) * ((size_t)bp->n_entry_dead + 1));
            bp->exit_dead = d2_malloc(sizeof(int) * ((size_t)bp->n_exit_dead + 1));
            if (!bp->entry_dead || !bp->exit_dead)
                goto oom;
            bp->n_entry_dead = bp->n_exit_dead = 0;
            for (int i = 0; i < p->blocks[b].n_ops; i++) {
                op_plan *pl = &bp->ops[i];
                pl->dead = d2_malloc(sizeof(int) * ((size_t)pl->n_dead + 1));
                if (!pl->dead)
                    goto oom;
                pl->n_dead = 0;
            }
        }
    }
    rc = 0;
    goto done;
oom:
    d2_err_set(err, D2_ERR_NOMEM, "out of memory preparing a program");
done:
    d2_free(li.def_block);
    d2_free(li.last);
    d2_free(attached);
    return rc;
}

/* Marks the blocks whose tensor params are borrowed: every nested block but while_loop
 * bodies. Such a block runs only through d2_exec_run_block (cond's branches, a while_loop's
 * condition), whose caller holds each argument until the block has run, so its tensor params'
 * slots take the values without a reference (an atomic increment and decrement saved per
 * value and run) and never release them; they never move to a yield, and never run in place
 * (take_input). Tensor-array params keep their references: array kernels update an array in
 * place when they see a single reference. Body blocks take their arguments' references. */
static int plan_borrow(d2_prepared *pp, d2_err *err)
{
    const d2_program *p = pp->p;
    pp->borrowed = d2_calloc((size_t)p->n_vars + 1, sizeof *pp->borrowed);
    if (!pp->borrowed)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory preparing a program");
    for (int b = 1; b < p->n_blocks; b++)
        pp->blocks[b].borrow = true;
    for (int b = 0; b < p->n_blocks; b++)
        for (int i = 0; i < p->blocks[b].n_ops; i++) {
            const d2_op *op = &p->blocks[b].ops[i];
            if (op->id != D2_OP_while_loop)
                continue;
            int body = block_attr(d2_op_def(op->id), &op->attrs, "body");
            if (body > 0 && body < p->n_blocks)
                pp->blocks[body].borrow = false;
        }
    for (int b = 1; b < p->n_blocks; b++) {
        const d2_block *blk = &p->blocks[b];
        if (!pp->blocks[b].borrow)
            continue;
        for (int j = 0; j < blk->n_params; j++) {
            int v = blk->params[j];
            pp->borrowed[v] = p->vars[v].type.kind == D2_VALUE_TENSOR;
        }
        for (int j = 0; j < blk->n_yields; j++)
            if (pp->borrowed[blk->yields[j]])
                pp->blocks[b].yield_move[j] = false;
    }
    return 0;
}

/* Uploads every parameter that has data to the backend (a shared reference
 * on CPU backends). */
static int upload_params(d2_prepared *pp, d2_err *err)
{
    const d2_program *p = pp->p;
    for (int v = 0; v < p->n_vars; v++) {
        const d2_var *var = &p->vars[v];
        if (!var->persistable || !var->data)
            continue;
        if (pp->be->kind == D2_BACKEND_CPU && var->data->kind == D2_VALUE_TENSOR &&
            (!var->data->storage || var->data->storage->backend->kind == D2_BACKEND_CPU))
            pp->params[v] = d2_tensor_contiguous(var->data, err);
        else
            pp->params[v] = d2_tensor_copy_to(var->data, pp->be, err);
        if (!pp->params[v]) {
            d2_err_prefix(err, "uploading parameter '%s'", var->name);
            return -1;
        }
    }
    return 0;
}

d2_prepared *d2_exec_prepare(const d2_program *p, d2_backend *be, d2_err *err)
{
    if (d2_ops_init(err) < 0)
        return NULL;
    if (!p) {
        d2_err_set(err, D2_ERR_INVALID, "no program to prepare");
        return NULL;
    }
    if (d2_program_verify(p, err) < 0)
        return NULL;
    if (p->n_blocks < 1) {
        d2_err_set(err, D2_ERR_INVALID, "the program has no main block");
        return NULL;
    }
    d2_prepared *pp = d2_calloc(1, sizeof *pp);
    if (!pp) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory preparing a program");
        return NULL;
    }
    pp->p = p;
    pp->be = be ? be : d2_cpu_backend();
    pp->n_slots = p->n_vars;
    pp->params = d2_calloc((size_t)p->n_vars + 1, sizeof *pp->params);
    pp->blocks = d2_calloc((size_t)p->n_blocks, sizeof *pp->blocks);
    pp->slot_cache = d2_calloc((size_t)p->n_vars + 1, sizeof *pp->slot_cache);
    if (!pp->params || !pp->blocks || !pp->slot_cache) {
        d2_free(pp->params);
        d2_free(pp->blocks);
        d2_free(pp->slot_cache);
        d2_free(pp);
        d2_err_set(err, D2_ERR_NOMEM, "out of memory preparing a program");
        return NULL;
    }
    if (pp->be == d2_cpu_backend() && !(pp->pool = d2_bufpool_new(POOL_MAX_IDLE, err))) {
        d2_exec_free(pp);
        return NULL;
    }
    if (plan_ops(pp, err) < 0 || plan_liveness(pp, err) < 0 || plan_borrow(pp, err) < 0 ||
        upload_params(pp, err) < 0) {
        d2_exec_free(pp);
        return NULL;
    }
    return pp;
}

int d2_exec_bind_param(d2_prepared *pp, int var, d2_tensor *t, d2_err *err)
{
    const d2_program *p = pp->p;
    if (var < 0 || var >= p->n_vars || !pp->params[var])
        return d2_err_set(err, D2_ERR_INVALID, "binding a parameter: variable %d is not one",
                          var);
    const d2_var *pv = &p->vars[var];
    d2_shape sh;
    d2_tensor_get_shape(t, &sh);
    if (t->kind != D2_VALUE_TENSOR || t->dtype != pv->type.dtype ||
        !d2_shape_equal(&sh, &pv->type.shape) || !d2_tensor_is_contiguous(t) ||
        (t->storage ? t->storage->backend : d2_cpu_backend()) != pp->be)
        return d2_err_set(err, D2_ERR_INVALID,
                          "binding parameter '%s': the tensor is not a contiguous value of its "
                          "type on the Program's backend",
                          pv->name);
    d2_tensor_unref(pp->params[var]);
    pp->params[var] = d2_tensor_ref(t);
    return 0;
}

void d2_exec_free(d2_prepared *pp)
{
    if (!pp)
        return;
    const d2_program *p = pp->p;
    if (pp->blocks) {
        for (int b = 0; b < p->n_blocks; b++) {
            block_plan *bp = &pp->blocks[b];
            if (bp->ops)
                for (int i = 0; i < p->blocks[b].n_ops; i++) {
                    d2_free(bp->ops[i].dead);
                    d2_free(bp->ops[i].cached);
                    if (bp->ops[i].memo)
                        d2_free(bp->ops[i].memo->in);
                    d2_free(bp->ops[i].memo);
                }
            d2_free(bp->ops);
            d2_free(bp->entry_dead);
            d2_free(bp->exit_dead);
            d2_free(bp->yield_move);
        }
    }
    if (pp->params)
        for (int v = 0; v < pp->n_slots; v++)
            d2_tensor_unref(pp->params[v]);
    d2_free(pp->params);
    d2_free(pp->blocks);
    d2_free(pp->slot_cache);
    d2_free(pp->borrowed);
    d2_bufpool_close(pp->pool);
    d2_memplan_free(pp->mp);
    d2_program_free(pp->owned);
    d2_free(pp);
}

/* The input ports whose buffer op's output may take: the operand of an elementwise unary op
 * or of softmax / log_softmax (each row read before it is written), either operand of a broadcasting binary one (the one shaped as the result, checked at run
 * time), the residual of conv2d_fused (its sum post-op adds what the output holds). Their
 * kernels write each output element after reading the inputs at that element. */
static int inplace_ports(const d2_opdef *def, const d2_op *op, int *ports)
{
    if (def->infer == infer_unary || def->infer == infer_unary_float ||
        def->infer == infer_softmax) {
        ports[0] = 0;
        return 1;
    }
    if (def->infer == infer_binary) {
        ports[0] = 0;
        ports[1] = 1;
        return 2;
    }
    if (op->id == D2_OP_conv2d_fused && op->n_in > 3) {
        ports[0] = 3;
        return 1;
    }
    return 0;
}

int d2_exec_enable_inplace(d2_prepared *pp)
{
    if (!pp || !pp->pool)
        return 0; /* host buffers only */
    const d2_program *p = pp->p;
    int n = 0;
    for (int b = 0; b < p->n_blocks; b++)
        for (int i = 0; i < p->blocks[b].n_ops; i++) {
            const d2_op *op = &p->blocks[b].ops[i];
            const d2_opdef *def = d2_op_def(op->id);
            op_plan *pl = &pp->blocks[b].ops[i];
            int ports[2], np = 0;
            if (op->n_out == 1 && !(def->flags & (D2_OPF_CONTROL | D2_OPF_ALLOCS_OUTPUTS)))
                np = inplace_ports(def, op, ports);
            pl->inplace = 0;
            for (int q = 0; q < np && !pl->inplace; q++) {
                int j = ports[q], v = j < op->n_in ? op->in[j] : -1;
                /* dies here (so neither a parameter nor a value read later or yielded), is
                 * read by no other port of this op, and has the output's dtype */
                bool ok = v >= 0 && !p->vars[v].persistable &&
                          p->vars[v].type.kind == D2_VALUE_TENSOR &&
                          p->vars[v].type.dtype == p->vars[op->out[0]].type.dtype;
                for (int k = 0; ok && k < op->n_in; k++)
                    ok = k == j || op->in[k] != v;
                /* a broadcast operand, when its shape is known, never has the result's */
                const d2_shape *vs = ok ? &p->vars[v].type.shape : NULL,
                               *os = &p->vars[op->out[0]].type.shape;
                if (ok && d2_shape_is_static(vs) && d2_shape_is_static(os))
                    ok = d2_shape_equal(vs, os);
                bool dies = false;
                for (int d = 0; ok && d < pl->n_dead && !dies; d++)
                    dies = pl->dead[d] == v;
                if (ok && dies)
                    pl->inplace = 1 + j;
            }
            n += pl->inplace != 0;
        }
    pp->n_inplace = n;
    return n;
}

int d2_exec_enable_memplan(d2_prepared *pp, d2_err *err)
{
    if (!pp || !pp->pool)
        return 0; /* host buffers only */
    const d2_program *p = pp->p;
    const d2_block *b0 = &p->blocks[0];
    int *ports = d2_malloc(sizeof(int) * ((size_t)b0->n_ops + 1));
    if (!ports)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory planning memory");
    for (int i = 0; i < b0->n_ops; i++)
        ports[i] = pp->blocks[0].ops[i].inplace - 1;
    d2_memplan_free(pp->mp);
    pp->mp = d2_memplan_new(p, ports, err);
    d2_free(ports);
    if (!pp->mp)
        return -1;
    d2_memplan_stats st;
    d2_memplan_get_stats(pp->mp, &st);
    return st.n_values;
}

struct d2_memplan *d2_exec_memplan(d2_prepared *pp) { return pp ? pp->mp : NULL; }

d2_prepared *d2_exec_prepare_owned(d2_program *p, d2_backend *be, d2_err *err)
{
    d2_prepared *pp = d2_exec_prepare(p, be, err);
    if (!pp) {
        d2_program_free(p);
        return NULL;
    }
    pp->owned = p;
    return pp;
}

/* ---- running ------------------------------------------------------------------------------- */

/* Whether t may be kept for reuse as a later op's output: a small contiguous tensor in a
 * buffer of the CPU tensor cache (not the memory plan's arena, not a pool's or a caller's
 * buffer), its storage unshared and t itself referenced only by the caller. */
static bool recyclable(const d2_tensor *t)
{
    const d2_storage *s = t->storage;
    return t->kind == D2_VALUE_TENSOR && s && s->pool_class && !s->release && t->offset == 0 &&
           s->nbytes <= 4096 && __atomic_load_n(&t->refcount, __ATOMIC_ACQUIRE) == 1 &&
           __atomic_load_n(&s->refcount, __ATOMIC_ACQUIRE) == 1 && d2_tensor_is_contiguous(t);
}

/* Releases the caller's reference to t (may be NULL): keeps t for reuse when it is the last
 * one and t is small, else unrefs it. */
static void drop_value(d2_exec_frame *f, d2_tensor *t)
{
    if (t && f->n_recycled < RECYCLE_MAX && recyclable(t))
        f->recycled[f->n_recycled++] = t;
    else
        d2_tensor_unref(t);
}

/* A kept tensor of type t (the caller takes the reference), or NULL. */
static d2_tensor *take_recycled(d2_exec_frame *f, const d2_type *t)
{
    for (int r = f->n_recycled - 1; r >= 0; r--) {
        d2_tensor *x = f->recycled[r];
        if (x->dtype != t->dtype || x->ndim != t->shape.ndim)
            continue;
        bool same = true;
        for (int d = 0; d < x->ndim && same; d++)
            same = x->shape[d] == t->shape.dims[d];
        if (!same)
            continue;
        f->recycled[r] = f->recycled[--f->n_recycled];
        return x;
    }
    return NULL;
}

static void slot_set(d2_exec_frame *f, int v, d2_tensor *t)
{
    d2_tensor *old = f->slots[v];
    f->slots[v] = t;
    if (!f->pp->borrowed[v])
        drop_value(f, old);
}

static void release_list(d2_exec_frame *f, const int *list, int n)
{
    for (int i = 0; i < n; i++)
        slot_set(f, list[i], NULL);
}

static bool on_host(const d2_tensor *t)
{
    return t->kind == D2_VALUE_TENSOR &&
           (!t->storage || t->storage->backend->kind == D2_BACKEND_CPU);
}

/* The run-time type of a value. A tensor array's element shape is left
 * unknown (rank 0), as the array ops expect: their kernels check the items. */
static void value_type(const d2_tensor *t, d2_type *out)
{
    memset(out, 0, sizeof *out);
    out->kind = t->kind;
    out->dtype = t->dtype;
    if (t->kind == D2_VALUE_TENSOR)
        d2_tensor_get_shape(t, &out->shape);
}

/* Whether the inputs' run-time types equal the declared static ones, so the
 * output types cached at prepare time hold. */
static bool inputs_match_declared(const d2_program *p, const d2_op *op, d2_tensor *const *in)
{
    for (int j = 0; j < op->n_in; j++) {
        if (op->in[j] < 0)
            continue;
        const d2_type *dt = &p->vars[op->in[j]].type;
        const d2_tensor *t = in[j];
        if (t->kind != D2_VALUE_TENSOR || t->dtype != dt->dtype || t->ndim != dt->shape.ndim)
            return false;
        for (int d = 0; d < t->ndim; d++)
            if (t->shape[d] != dt->shape.dims[d])
                return false;
    }
    return true;
}

/* Whether run-time input types a and b are equal (kind, dtype, rank, dims). */
static bool types_match(const d2_type *a, const d2_type *b, int n)
{
    for (int j = 0; j < n; j++) {
        if (a[j].kind != b[j].kind || a[j].dtype != b[j].dtype ||
            a[j].shape.ndim != b[j].shape.ndim)
            return false;
        for (int d = 0; d < a[j].shape.ndim; d++)
            if (a[j].shape.dims[d] != b[j].shape.dims[d])
                return false;
    }
    return true;
}

/* Whether output types inferred from these input types may be reused for equal ones: not when
 * an input is a tensor array (its type does not describe its items). */
static bool memoisable(const d2_type *in, int n)
{
    for (int j = 0; j < n; j++)
        if (in[j].kind != D2_VALUE_TENSOR)
            return false;
    return true;
}

/* Scratch arrays for one op run: stack space for small ops, heap otherwise. */
typedef struct op_scratch {
    d2_tensor *in_s[SMALL_PORTS], *out_s[SMALL_PORTS], *tmp_s[2 * SMALL_PORTS];
    d2_type it_s[SMALL_PORTS], ot_s[SMALL_PORTS];
    const d2_tensor *iv_s[SMALL_PORTS];
    d2_tensor **in, **out, **tmp;
    d2_type *it, *ot;
    const d2_tensor **iv;
    int n_tmp;
    void *heap;
} op_scratch;

static int scratch_init(op_scratch *s, int n_in, int n_out, d2_err *err)
{
    s->heap = NULL;
    s->n_tmp = 0;
    if (n_in <= SMALL_PORTS && n_out <= SMALL_PORTS) {
        s->in = s->in_s;
        s->out = s->out_s;
        s->tmp = s->tmp_s;
        s->it = s->it_s;
        s->ot = s->ot_s;
        s->iv = s->iv_s;
    } else {
        size_t ni = (size_t)n_in + 1, no = (size_t)n_out + 1;
        size_t sz = sizeof(d2_type) * (ni + no) + sizeof(d2_tensor *) * (ni + no + 2 * ni) +
                    sizeof(d2_tensor *) * ni;
        char *h = d2_calloc(1, sz);
        if (!h)
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory running an op");
        s->heap = h;
        s->it = (d2_type *)h;
        s->ot = s->it + ni;
        s->in = (d2_tensor **)(s->ot + no);
        s->out = s->in + ni;
        s->tmp = s->out + no;
        s->iv = (const d2_tensor **)(s->tmp + 2 * ni);
    }
    for (int j = 0; j < n_out; j++)
        s->out[j] = NULL;
    return 0;
}

static void scratch_free(op_scratch *s, int n_out)
{
    for (int j = 0; j < s->n_tmp; j++)
        d2_tensor_unref(s->tmp[j]);
    for (int j = 0; j < n_out; j++)
        d2_tensor_unref(s->out[j]);
    d2_free(s->heap);
}

/* Fills the run-time types of the gathered inputs, which inference reads. */
static void input_types(const d2_op *op, op_scratch *s)
{
    for (int j = 0; j < op->n_in; j++)
        if (s->in[j])
            value_type(s->in[j], &s->it[j]);
}

/* Gathers op inputs from the slots: contiguous, and (on the host, or downloaded for shape
 * inputs) their values; their types only for absent inputs (input_types fills the others
 * when an op needs inference). */
static int gather_inputs(d2_exec_frame *f, const d2_op *op, const d2_opdef *def, op_scratch *s,
                         d2_err *err)
{
    const d2_program *p = f->pp->p;
    for (int j = 0; j < op->n_in; j++) {
        int v = op->in[j];
        if (v < 0) {
            s->in[j] = NULL;
            s->iv[j] = NULL;
            memset(&s->it[j], 0, sizeof s->it[j]);
            s->it[j].dtype = (d2_dtype)-1;
            continue;
        }
        d2_tensor *t = f->slots[v];
        if (!t)
            return d2_err_set(err, D2_ERR_INVALID, "input %d ('%s') has no value", j,
                              p->vars[v].name);
        if (t->kind == D2_VALUE_TENSOR && !d2_tensor_is_contiguous(t)) {
            t = d2_tensor_contiguous(t, err);
            if (!t)
                return -1;
            s->tmp[s->n_tmp++] = t;
        }
        s->in[j] = t;
        s->iv[j] = on_host(t) ? t : NULL;
        int port = j < def->n_ins ? j : def->n_ins - 1;
        if (!s->iv[j] && t->kind == D2_VALUE_TENSOR && (def->flags & D2_OPF_SHAPE_INPUTS) &&
            port >= 0 && def->in_optional[port]) {
            d2_tensor *h = d2_tensor_copy_to(t, NULL, err);
            if (!h)
                return -1;
            s->tmp[s->n_tmp++] = h;
            s->iv[j] = h;
        }
    }
    return 0;
}

/* ---- limits ---- */

/* The same clock as of its last tick (a few ms behind at most, never ahead):
 * several times cheaper to read, so a deadline is checked after every op. */
static double coarse_clock(void)
{
#ifdef CLOCK_MONOTONIC_COARSE
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#else
    return d2_monotonic_s();
#endif
}

/* Describes the time limit lim->hit (a deadline or a cancel) into buf. */
static const char *time_limit_reason(const d2_run_limits *lim, char *buf, size_t n)
{
    if (lim->hit == D2_LIMIT_CANCEL)
        snprintf(buf, n, "cancelled");
    else if (lim->timeout_s > 0)
        snprintf(buf, n, "deadline of %g s exceeded", lim->timeout_s);
    else
        snprintf(buf, n, "deadline exceeded");
    return buf;
}

/* Whether the run must stop now: its cancel flag is set or its deadline has
 * passed. Returns -1 with the reason in err (and lim->hit set), else 0. */
static int time_limit(d2_exec_frame *f, d2_err *err)
{
    d2_run_limits *lim = f->lim;
    if (lim->cancel && atomic_load_explicit(lim->cancel, memory_order_relaxed))
        lim->hit = D2_LIMIT_CANCEL;
    else if (lim->deadline > 0 && coarse_clock() >= lim->deadline)
        lim->hit = D2_LIMIT_DEADLINE;
    else
        return 0;
    char why[96];
    return d2_err_set(err, D2_ERR_LIMIT, "%s", time_limit_reason(lim, why, sizeof why));
}

/* Counts the bytes of output j (type t) against the run's byte cap. */
static int charge_output(d2_exec_frame *f, int j, const d2_type *t, d2_err *err)
{
    size_t n = d2_dtype_size(t->dtype), total;
    for (int d = 0; d < t->shape.ndim; d++)
        if (!d2_mul_size(n, t->shape.dims[d] > 0 ? (size_t)t->shape.dims[d] : 0, &n))
            n = SIZE_MAX;
    if (!d2_add_size(f->bytes, n, &total) || total > f->lim->max_bytes) {
        f->lim->hit = D2_LIMIT_BYTES;
        return d2_err_set(err, D2_ERR_LIMIT, "output %d needs %zu bytes, over the run's cap of %zu "
                          "bytes (%zu allocated before it)", j, n, f->lim->max_bytes, f->bytes);
    }
    f->bytes = total;
    return 0;
}

/* Whether t's storage is that of one of the inputs (or of an item of an input
 * array): a view or a pass-through, which allocates nothing. */
static bool shares_storage(const d2_tensor *t, d2_tensor *const *in, int n_in)
{
    for (int j = 0; j < n_in; j++) {
        const d2_tensor *x = in[j];
        if (!x)
            continue;
        if (x->kind == D2_VALUE_TENSOR && x->storage == t->storage)
            return true;
        for (int64_t i = 0; x->kind == D2_VALUE_ARRAY && i < x->array_len; i++)
            if (x->items[i] && x->items[i]->storage == t->storage)
                return true;
    }
    return false;
}

/* Runs op i of block b: infers concrete output types, allocates outputs,
 * runs the kernel, stores the outputs in their slots and releases the slots
 * that die here. */
/* Whether a value of static type t holds at most 4 KiB (d2_tensor_new's cached sizes). */
static bool small_value(const d2_type *t)
{
    int64_t n = (int64_t)d2_dtype_size(t->dtype);
    for (int d = 0; d < t->shape.ndim && n <= 4096; d++)
        if (__builtin_mul_overflow(n, t->shape.dims[d], &n))
            return false; /* far past 4 KiB (a huge dim read from a model file) */
    return n <= 4096;
}

/* The input buffer op's output of type t takes in place, or NULL. The variable dies at this
 * op (d2_exec_enable_inplace); at run time the value must also be the slot's own tensor (not
 * a contiguous copy), a host tensor of the output's dtype and shape, and referenced by nobody
 * else: no other slot, caller, view or array holds it or its storage, so nothing can observe
 * the overwrite. The slot's reference moves to the output (the slot is left empty; the
 * kernel still reads the value through s->in). */
static d2_tensor *take_input(d2_exec_frame *f, const d2_op *op, const op_plan *pl,
                             const op_scratch *s, const d2_type *t)
{
    int j = pl->inplace - 1;
    d2_tensor *x = s->in[j];
    if (!x || x != f->slots[op->in[j]] || f->pp->borrowed[op->in[j]] ||
        x->kind != D2_VALUE_TENSOR || !x->storage ||
        x->storage->backend->kind != D2_BACKEND_CPU || x->dtype != t->dtype ||
        x->ndim != t->shape.ndim || x->offset != 0)
        return NULL;
    for (int d = 0; d < x->ndim; d++)
        if (x->shape[d] != t->shape.dims[d])
            return NULL;
    if (__atomic_load_n(&x->refcount, __ATOMIC_ACQUIRE) != 1 ||
        __atomic_load_n(&x->storage->refcount, __ATOMIC_ACQUIRE) != 1)
        return NULL;
    f->slots[op->in[j]] = NULL;
    return x;
}

static int run_op(d2_exec_frame *f, int b, int i, d2_err *err)
{
    const d2_prepared *pp = f->pp;
    const d2_program *p = pp->p;
    const d2_op *op = &p->blocks[b].ops[i];
    const op_plan *pl = &pp->blocks[b].ops[i];
    const d2_opdef *def = pl->def;
    bool control = def->flags & D2_OPF_CONTROL;
    op_scratch s;
    int rc = -1;
    if (scratch_init(&s, op->n_in, op->n_out, err) < 0)
        goto fail;
    if (gather_inputs(f, op, def, &s, err) < 0)
        goto fail;
    /* a kernel updates an array in place when it holds the only reference (array_write): an
     * array that lives on after this op (read later, or by a later op's nested block) gets
     * another reference for the call, so that its slot keeps its value */
    for (int j = 0; pl->array_in && j < op->n_in; j++) {
        if (!s.in[j] || s.in[j]->kind != D2_VALUE_ARRAY)
            continue;
        bool dies = false;
        for (int d = 0; d < pl->n_dead && !dies; d++)
            dies = pl->dead[d] == op->in[j];
        if (!dies)
            s.tmp[s.n_tmp++] = d2_tensor_ref(s.in[j]);
    }
    const d2_type *ot = s.ot; /* the output types: s.ot, or types prepare or a memo holds */
    if (!control) {
        type_memo *m = f->memo ? pl->memo : NULL;
        bool cached = pl->cached && inputs_match_declared(p, op, s.in);
        if (!cached)
            input_types(op, &s);
        if (cached) {
            ot = pl->cached;
        } else if (m && m->valid && types_match(m->in, s.it, op->n_in)) {
            ot = m->out;
        } else {
            for (int j = 0; j < op->n_out; j++) {
                memset(&s.ot[j], 0, sizeof s.ot[j]);
                s.ot[j].dtype = (d2_dtype)-1;
            }
            d2_infer_ctx ic = {def, &op->attrs, op->n_in, s.it, s.iv, op->n_out, s.ot, err, p, op};
            if (m)
                m->valid = false;
            if (d2_infer_checked(&ic) < 0)
                goto fail;
            if (m && memoisable(s.it, op->n_in)) {
                memcpy(m->in, s.it, sizeof(d2_type) * (size_t)op->n_in);
                memcpy(m->out, s.ot, sizeof(d2_type) * (size_t)op->n_out);
                m->valid = true;
            }
        }
    }
    if (!control && !(def->flags & D2_OPF_ALLOCS_OUTPUTS)) {
        for (int j = 0; j < op->n_out; j++) {
            const d2_type *t = &ot[j];
            /* types cached at prepare are static tensor types */
            if (ot != pl->cached &&
                (t->kind != D2_VALUE_TENSOR || !d2_shape_is_static(&t->shape))) {
                char ts[160];
                d2_type_str(t, ts, sizeof ts);
                d2_err_set(err, D2_ERR_SHAPE, "output %d has unresolved type %s", j, ts);
                goto fail;
            }
            if (j == 0 && pl->inplace && (s.out[0] = take_input(f, op, pl, &s, t)) != NULL)
                continue;
            if (f->lim && f->lim->max_bytes && charge_output(f, j, t, err) < 0)
                goto fail;
            if (f->arena && b == 0 && (s.out[j] = d2_memplan_tensor(f->arena, op->out[j], t)))
                continue;
            /* small values (loop counters, scalars) are those of earlier ops that died in
             * this run, or come from the thread's tensor cache, which takes no lock and no
             * best-fit search */
            if (f->n_recycled && pp->pool && (s.out[j] = take_recycled(f, t)))
                continue;
            if (pp->pool && !small_value(t))
                s.out[j] = d2_bufpool_tensor_new(pp->pool, t->dtype, t->shape.ndim, t->shape.dims,
                                                 err);
            else
                s.out[j] = d2_tensor_new(pp->be, t->dtype, t->shape.ndim, t->shape.dims, err);
            if (!s.out[j])
                goto fail;
        }
    }
    d2_kctx k = {def, &op->attrs, pp->be, op->n_in, s.in, op->n_out, s.out, err,
                 control ? f : NULL, control ? i : 0, f->lim ? f->lim->rng_offset : 0};
    if (pl->fn(&k) < 0) {
        if (err && err->code == D2_OK)
            d2_err_set(err, D2_ERR_RUNTIME, "kernel failed");
        goto fail;
    }
    for (int j = 0; j < op->n_out; j++) {
        const d2_var *var = &p->vars[op->out[j]];
        const d2_tensor *t = s.out[j];
        if (!t) {
            d2_err_set(err, D2_ERR_RUNTIME, "the kernel produced no value for output %d ('%s')", j,
                       var->name);
            goto fail;
        }
        if (f->lim && f->lim->max_bytes && !control && (def->flags & D2_OPF_ALLOCS_OUTPUTS) &&
            t->kind == D2_VALUE_TENSOR && !shares_storage(t, s.in, op->n_in)) {
            d2_type ty;
            value_type(t, &ty);
            if (charge_output(f, j, &ty, err) < 0)
                goto fail;
        }
        if (t->kind != var->type.kind || t->dtype != var->type.dtype) {
            char want[160];
            d2_type_str(&var->type, want, sizeof want);
            d2_err_set(err, D2_ERR_DTYPE, "output %d ('%s') is %s%s but is declared %s", j,
                       var->name, t->kind == D2_VALUE_ARRAY ? "an array of " : "",
                       d2_dtype_name(t->dtype), want);
            goto fail;
        }
    }
    for (int j = 0; j < op->n_out; j++) {
        slot_set(f, op->out[j], s.out[j]);
        s.out[j] = NULL;
    }
    release_list(f, pl->dead, pl->n_dead);
    rc = 0;
fail:
    scratch_free(&s, rc < 0 ? op->n_out : 0);
    if (rc < 0) {
        if (err && err->code == D2_OK)
            d2_err_set(err, D2_ERR_RUNTIME, "failed");
        d2_err_prefix(err, "block ^%d op %d (%s)", b, i, def->name);
        if (op->line > 0)
            d2_err_prefix(err, "line %d", op->line);
    }
    return rc;
}

/* d2_exec_run_block; with consume, the block takes the caller's references to args (each
 * bound one becomes NULL), so that a value only the block holds may be written in place. */
static int run_block(d2_exec_frame *f, int block, d2_tensor **args, int n_args,
                     d2_tensor **results, int n_results, bool consume, d2_err *err);

int d2_exec_run_block(d2_exec_frame *f, int block, d2_tensor **args, int n_args,
                      d2_tensor **results, int n_results, d2_err *err)
{
    return run_block(f, block, args, n_args, results, n_results, false, err);
}

static int run_block(d2_exec_frame *f, int block, d2_tensor **args, int n_args,
                     d2_tensor **results, int n_results, bool consume, d2_err *err)
{
    for (int j = 0; j < n_results; j++)
        results[j] = NULL;
    if (!f)
        return d2_err_set(err, D2_ERR_INVALID, "no executor frame to run a block in");
    const d2_program *p = f->pp->p;
    if (block < 0 || block >= p->n_blocks)
        return d2_err_set(err, D2_ERR_INVALID, "block ^%d does not exist", block);
    const d2_block *blk = &p->blocks[block];
    const block_plan *bp = &f->pp->blocks[block];
    if (n_args != blk->n_params)
        return d2_err_set(err, D2_ERR_INVALID, "block ^%d takes %d values, got %d", block,
                          blk->n_params, n_args);
    if (n_results != blk->n_yields)
        return d2_err_set(err, D2_ERR_INVALID, "block ^%d yields %d values, expected %d", block,
                          blk->n_yields, n_results);
    int saved = f->block;
    f->block = block;
    for (int j = 0; j < n_args; j++) {
        int v = blk->params[j];
        const d2_type *dt = &p->vars[v].type;
        if (!args[j]) {
            d2_err_set(err, D2_ERR_INVALID, "block ^%d: no value for param %d ('%s')", block, j,
                       p->vars[v].name);
            goto fail;
        }
        if (args[j]->kind != dt->kind || args[j]->dtype != dt->dtype) {
            char want[160];
            d2_type_str(dt, want, sizeof want);
            d2_err_set(err, D2_ERR_DTYPE, "block ^%d: param %d ('%s') is declared %s but gets %s%s",
                       block, j, p->vars[v].name, want,
                       args[j]->kind == D2_VALUE_ARRAY ? "an array of " : "",
                       d2_dtype_name(args[j]->dtype));
            goto fail;
        }
        if (consume) {
            slot_set(f, v, args[j]);
            args[j] = NULL;
        } else {
            slot_set(f, v, f->pp->borrowed[v] ? args[j] : d2_tensor_ref(args[j]));
        }
    }
    release_list(f, bp->entry_dead, bp->n_entry_dead);
    for (int i = 0; i < blk->n_ops; i++) {
        if (run_op(f, block, i, err) < 0)
            goto fail;
        if (f->lim && time_limit(f, err) < 0) {
            d2_err_prefix(err, "block ^%d op %d (%s)", block, i, d2_op_def(blk->ops[i].id)->name);
            if (blk->ops[i].line > 0)
                d2_err_prefix(err, "line %d", blk->ops[i].line);
            goto fail;
        }
    }
    for (int j = 0; j < n_results; j++) {
        int v = blk->yields[j];
        if (!f->slots[v]) {
            d2_err_set(err, D2_ERR_INVALID, "block ^%d: yield %d ('%s') has no value", block, j,
                       p->vars[v].name);
            goto fail;
        }
        if (bp->yield_move[j]) {
            results[j] = f->slots[v];
            f->slots[v] = NULL;
        } else {
            results[j] = d2_tensor_ref(f->slots[v]);
        }
    }
    release_list(f, bp->exit_dead, bp->n_exit_dead);
    f->block = saved;
    return 0;
fail:
    for (int j = 0; j < n_results; j++) {
        d2_tensor_unref(results[j]);
        results[j] = NULL;
    }
    f->block = saved;
    return -1;
}

const d2_op *d2_exec_frame_op(d2_exec_frame *f, int op_index)
{
    if (!f || f->block < 0)
        return NULL;
    const d2_block *blk = &f->pp->p->blocks[f->block];
    return op_index >= 0 && op_index < blk->n_ops ? &blk->ops[op_index] : NULL;
}

/* Checks one input of d2_exec_run against block 0's param v. */
static int check_input(const d2_program *p, int j, int v, const d2_tensor *t, d2_err *err)
{
    const d2_type *dt = &p->vars[v].type;
    const char *name = p->vars[v].name;
    char want[160], got[160]; /* formatted only for an error: this runs on every run */
#define WANT d2_type_str(dt, want, sizeof want)
#define GOT (d2_tensor_get_shape(t, &s), d2_shape_str(&s, got, sizeof got))
    if (!t)
        return d2_err_set(err, D2_ERR_INVALID, "input %d ('%s') is missing", j, name);
    if (t->kind != dt->kind)
        return WANT, d2_err_set(err, D2_ERR_INVALID, "input %d ('%s'): expected %s, got a %s", j,
                                name, want, t->kind == D2_VALUE_ARRAY ? "tensor array" : "tensor");
    if (t->dtype != dt->dtype)
        return WANT, d2_err_set(err, D2_ERR_DTYPE, "input %d ('%s'): expected %s, got dtype %s", j,
                                name, want, d2_dtype_name(t->dtype));
    if (t->kind == D2_VALUE_ARRAY)
        return 0;
    d2_shape s;
    if (t->ndim != dt->shape.ndim)
        return WANT, GOT,
               d2_err_set(err, D2_ERR_SHAPE, "input %d ('%s'): expected rank %d (%s), got shape %s",
                          j, name, dt->shape.ndim, want, got);
    for (int d = 0; d < t->ndim; d++)
        if (dt->shape.dims[d] >= 0 && dt->shape.dims[d] != t->shape[d])
            return WANT, GOT,
                   d2_err_set(err, D2_ERR_SHAPE,
                              "input %d ('%s'): expected %s, got shape %s (dim %d is %lld, not "
                              "%lld)",
                              j, name, want, got, d, (long long)t->shape[d],
                              (long long)dt->shape.dims[d]);
    return 0;
#undef WANT
#undef GOT
}

/* Whether a caller's tensor must be copied to be before running. */
static bool needs_upload(const d2_tensor *t, const d2_backend *be)
{
    if (t->kind == D2_VALUE_ARRAY) {
        for (int64_t i = 0; i < t->array_len; i++)
            if (needs_upload(t->items[i], be))
                return true;
        return false;
    }
    if (!t->storage || t->storage->backend == be)
        return false;
    return !(t->storage->backend->kind == D2_BACKEND_CPU && be->kind == D2_BACKEND_CPU);
}

int d2_exec_run(d2_prepared *pp, d2_tensor **inputs, int n_in, d2_tensor **outputs, int n_out,
                d2_err *err)
{
    return d2_exec_run_limited(pp, NULL, inputs, n_in, outputs, n_out, err);
}

int d2_exec_run_limited(d2_prepared *pp, d2_run_limits *lim, d2_tensor **inputs, int n_in,
                        d2_tensor **outputs, int n_out, d2_err *err)
{
    for (int j = 0; j < n_out; j++)
        outputs[j] = NULL;
    if (!pp)
        return d2_err_set(err, D2_ERR_INVALID, "no prepared program to run");
    const d2_program *p = pp->p;
    const d2_block *blk0 = &p->blocks[0];
    if (n_in != blk0->n_params)
        return d2_err_set(err, D2_ERR_INVALID, "the program takes %d inputs, got %d",
                          blk0->n_params, n_in);
    if (n_out != blk0->n_yields)
        return d2_err_set(err, D2_ERR_INVALID, "the program has %d outputs, asked for %d",
                          blk0->n_yields, n_out);
    for (int j = 0; j < n_in; j++)
        if (check_input(p, j, blk0->params[j], inputs[j], err) < 0)
            return -1;
    int rc = -1;
    d2_exec_frame f = {pp, NULL, -1, lim, 0, false, false, NULL, 0, {NULL}};
    if (lim) {
        lim->hit = D2_LIMIT_NONE;
        if (time_limit(&f, err) < 0)
            return -1;
    }
    d2_tensor **args = inputs, **copies = NULL;
    /* errors a device defers (bad indices found by kernels) belong to this run */
    void *run = NULL;
    if (pp->be->run_begin && !(run = pp->be->run_begin(pp->be, err)))
        return -1;
    /* one run at a time uses the prepared slot array; a concurrent run allocates its own */
    bool own_slots = !atomic_exchange_explicit(&pp->slots_busy, true, memory_order_acquire);
    f.slots = own_slots ? pp->slot_cache
                        : d2_calloc((size_t)pp->n_slots + 1, sizeof *f.slots);
    if (!f.slots) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory starting a run");
        goto done;
    }
    for (int j = 0; j < n_in; j++) {
        if (!needs_upload(inputs[j], pp->be))
            continue;
        if (!copies) {
            copies = d2_calloc((size_t)n_in + 1, sizeof *copies);
            if (!copies) {
                d2_err_set(err, D2_ERR_NOMEM, "out of memory starting a run");
                goto done;
            }
            for (int m = 0; m < n_in; m++)
                copies[m] = d2_tensor_ref(inputs[m]);
            args = copies;
        }
        d2_tensor *c = d2_tensor_copy_to(inputs[j], pp->be, err);
        if (!c) {
            d2_err_prefix(err, "uploading input %d ('%s')", j, p->vars[blk0->params[j]].name);
            goto done;
        }
        d2_tensor_unref(copies[j]);
        copies[j] = c;
    }
    /* parameters are borrowed from the prepared program, never released by a run */
    memcpy(f.slots, pp->params, sizeof *f.slots * (size_t)pp->n_slots);
    /* one run at a time reuses the type memos; a concurrent run infers types itself */
    f.memo = !atomic_exchange_explicit(&pp->memo_busy, true, memory_order_acquire);
    f.arena = d2_memplan_begin(pp->mp, args, n_in);
    rc = d2_exec_run_block(&f, 0, args, n_in, outputs, n_out, err);
    if (f.memo)
        atomic_store_explicit(&pp->memo_busy, false, memory_order_release);
    if (rc == 0 && pp->be->sync && pp->be->sync(pp->be, err) < 0) {
        for (int j = 0; j < n_out; j++) {
            d2_tensor_unref(outputs[j]);
            outputs[j] = NULL;
        }
        rc = -1;
    }
done:
    if (f.slots)
        for (int v = 0; v < pp->n_slots; v++)
            if (!pp->params[v] && !pp->borrowed[v])
                d2_tensor_unref(f.slots[v]);
    for (int r = 0; r < f.n_recycled; r++)
        d2_tensor_unref(f.recycled[r]);
    d2_memplan_end(f.arena, rc == 0); /* after the run's values are released */
    if (copies)
        for (int j = 0; j < n_in; j++)
            d2_tensor_unref(copies[j]);
    d2_free(copies);
    if (own_slots)
        atomic_store_explicit(&pp->slots_busy, false, memory_order_release);
    else
        d2_free(f.slots);
    if (run)
        pp->be->run_end(pp->be, run);
    return rc;
}

int d2_exec_read_pred(d2_exec_frame *f, d2_tensor *t, bool *out, d2_err *err)
{
    D2_UNUSED(f);
    *out = false;
    if (!t)
        return d2_err_set(err, D2_ERR_INVALID, "the predicate has no value");
    if (t->kind != D2_VALUE_TENSOR)
        return d2_err_set(err, D2_ERR_INVALID, "the predicate is a tensor array, not a tensor");
    if (d2_tensor_numel(t) != 1) {
        d2_shape s;
        char ss[160];
        d2_tensor_get_shape(t, &s);
        d2_shape_str(&s, ss, sizeof ss);
        return d2_err_set(err, D2_ERR_SHAPE,
                          "the predicate must have exactly one element, got shape %s", ss);
    }
    if (!t->storage)
        return d2_err_set(err, D2_ERR_INVALID, "the predicate has no storage");
    size_t es = d2_dtype_size(t->dtype);
    unsigned char buf[16] = {0};
    if (es == 0 || es > sizeof buf)
        return d2_err_set(err, D2_ERR_DTYPE, "the predicate has invalid dtype %d", (int)t->dtype);
    d2_backend *sb = t->storage->backend;
    if (sb->kind == D2_BACKEND_CPU)
        memcpy(buf, d2_tensor_data(t), es);
    else if (sb->download(sb, buf, t->storage->data, (size_t)t->offset * es, es, err) < 0)
        return -1;
    switch (t->dtype) {
    case D2_F32: {
        float x;
        memcpy(&x, buf, sizeof x);
        *out = x != 0; /* NaN is true, as in Python */
        break;
    }
    case D2_F64: {
        double x;
        memcpy(&x, buf, sizeof x);
        *out = x != 0;
        break;
    }
    case D2_I32: {
        int32_t x;
        memcpy(&x, buf, sizeof x);
        *out = x != 0;
        break;
    }
    case D2_I64: {
        int64_t x;
        memcpy(&x, buf, sizeof x);
        *out = x != 0;
        break;
    }
    case D2_BOOL:
        *out = buf[0] != 0;
        break;
    case D2_F16:
    case D2_BF16: {
        uint16_t x;
        memcpy(&x, buf, sizeof x);
        *out = (x & 0x7fff) != 0; /* nonzero apart from the sign bit */
        break;
    }
    default:
        return d2_err_set(err, D2_ERR_DTYPE, "the predicate has invalid dtype %d", (int)t->dtype);
    }
    return 0;
}

/* ---- control ops --------------------------------------------------------------------------- */

/* cond(pred, operands...) -> results: runs the then or else block with the
 * operands and returns its yields. */
int ctl_cond(d2_kctx *k)
{
    if (!k->frame)
        return d2_err_set(k->err, D2_ERR_INVALID, "cond: runs only inside the executor");
    int then_b = block_attr(k->def, k->attrs, "then");
    int else_b = block_attr(k->def, k->attrs, "else");
    bool pred;
    if (d2_exec_read_pred(k->frame, k->in[0], &pred, k->err) < 0)
        return -1;
    return d2_exec_run_block(k->frame, pred ? then_b : else_b, k->in + 1, k->n_in - 1, k->out,
                             k->n_out, k->err);
}

/* When err is a deadline or cancel that no inner loop has claimed, restates
 * it as this loop's ("deadline of 2 s exceeded after 1234 iterations"): which
 * op of the body was running is happenstance, the loop is what ran long.
 * Returns whether it did. */
static bool place_time_limit(d2_exec_frame *f, d2_err *err, long long iter)
{
    if (!f->lim || !err || err->code != D2_ERR_LIMIT || f->limit_placed ||
        (f->lim->hit != D2_LIMIT_DEADLINE && f->lim->hit != D2_LIMIT_CANCEL))
        return false;
    char why[96];
    time_limit_reason(f->lim, why, sizeof why);
    d2_err_clear(err);
    d2_err_set(err, D2_ERR_LIMIT, "%s after %lld iteration%s", why, iter, iter == 1 ? "" : "s");
    f->limit_placed = true;
    return true;
}

/* while_loop(inits...) -> finals: carried = inits; while cond(carried):
 * carried = body(carried). */
int ctl_while_loop(d2_kctx *k)
{
    if (!k->frame)
        return d2_err_set(k->err, D2_ERR_INVALID, "while_loop: runs only inside the executor");
    int n = k->n_in;
    if (k->n_out != n)
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "while_loop: %d initial values but %d final values", n, k->n_out);
    int cond_b = block_attr(k->def, k->attrs, "cond");
    int body_b = block_attr(k->def, k->attrs, "body");
    /* stack arrays for loops that carry few values */
    d2_tensor *carried_s[2 * SMALL_PORTS];
    d2_value_kind kinds_s[SMALL_PORTS];
    d2_dtype dtypes_s[SMALL_PORTS];
    bool heap = n > SMALL_PORTS;
    d2_tensor **carried = heap ? d2_calloc(2 * (size_t)n + 1, sizeof *carried) : carried_s;
    d2_value_kind *kinds = heap ? d2_calloc((size_t)n + 1, sizeof *kinds) : kinds_s;
    d2_dtype *dtypes = heap ? d2_calloc((size_t)n + 1, sizeof *dtypes) : dtypes_s;
    if (!carried || !kinds || !dtypes) {
        d2_free(carried);
        d2_free(kinds);
        d2_free(dtypes);
        return d2_err_set(k->err, D2_ERR_NOMEM, "while_loop: out of memory");
    }
    d2_tensor **next = carried + n;
    for (int j = 0; j < n; j++)
        carried[j] = d2_tensor_ref(k->in[j]);
    int rc = -1;
    for (long long iter = 0;; iter++) {
        d2_tensor *pt = NULL;
        bool go;
        if (iter > 0 && k->frame->lim && time_limit(k->frame, k->err) < 0) {
            place_time_limit(k->frame, k->err, iter);
            goto done;
        }
        if (d2_exec_run_block(k->frame, cond_b, carried, n, &pt, 1, k->err) < 0 ||
            d2_exec_read_pred(k->frame, pt, &go, k->err) < 0) {
            d2_tensor_unref(pt);
            if (!place_time_limit(k->frame, k->err, iter))
                d2_err_prefix(k->err, "iteration %lld: condition", iter);
            goto done;
        }
        drop_value(k->frame, pt);
        if (!go)
            break;
        /* the body takes the carried values (they are replaced by its yields), so that its
         * ops may update a value no one else holds in place */
        for (int j = 0; j < n; j++) {
            kinds[j] = carried[j]->kind;
            dtypes[j] = carried[j]->dtype;
        }
        if (run_block(k->frame, body_b, carried, n, next, n, true, k->err) < 0) {
            if (!place_time_limit(k->frame, k->err, iter))
                d2_err_prefix(k->err, "iteration %lld: body", iter);
            goto done;
        }
        for (int j = 0; j < n; j++) {
            if (next[j]->kind != kinds[j] || next[j]->dtype != dtypes[j]) {
                d2_err_set(k->err, D2_ERR_DTYPE,
                           "iteration %lld: the body yields %s%s for carried value %d, which was "
                           "%s%s", iter, next[j]->kind == D2_VALUE_ARRAY ? "an array of " : "",
                           d2_dtype_name(next[j]->dtype), j,
                           kinds[j] == D2_VALUE_ARRAY ? "an array of " : "",
                           d2_dtype_name(dtypes[j]));
                for (int m = 0; m < n; m++) {
                    d2_tensor_unref(next[m]);
                    next[m] = NULL;
                }
                goto done;
            }
        }
        for (int j = 0; j < n; j++) {
            d2_tensor_unref(carried[j]);
            carried[j] = next[j];
            next[j] = NULL;
        }
    }
    for (int j = 0; j < n; j++) {
        k->out[j] = carried[j];
        carried[j] = NULL;
    }
    rc = 0;
done:
    for (int j = 0; j < n; j++)
        d2_tensor_unref(carried[j]);
    if (heap) {
        d2_free(carried);
        d2_free(kinds);
        d2_free(dtypes);
    }
    return rc;
}

/* ---- inference of control ops -------------------------------------------------------------- */

/* Merges the shape of b into a (same kind and dtype): equal dims stay,
 * differing dims become -1. An array whose element shape is unknown (rank 0)
 * takes the other's. Returns false when the ranks differ. */
static bool merge_type(d2_type *a, const d2_type *b)
{
    if (a->kind == D2_VALUE_ARRAY && b->shape.ndim == 0)
        return true;
    if (a->kind == D2_VALUE_ARRAY && a->shape.ndim == 0) {
        a->shape = b->shape;
        return true;
    }
    if (a->shape.ndim != b->shape.ndim)
        return false;
    for (int d = 0; d < a->shape.ndim; d++)
        if (a->shape.dims[d] != b->shape.dims[d])
            a->shape.dims[d] = -1;
    return true;
}

/* The block named by attribute `name`, checked to exist; -1 + err otherwise. */
static int infer_block(d2_infer_ctx *ic, const char *name)
{
    int b = block_attr(ic->def, ic->attrs, name);
    if (b <= 0 || b >= ic->prog->n_blocks)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: %s block ^%d does not exist",
                          ic->def->name, name, b);
    return b;
}

static const d2_type *var_type(const d2_program *p, int v)
{
    return v >= 0 && v < p->n_vars ? &p->vars[v].type : NULL;
}

/* Checks that block b's params match types in[0..n) in count, kind and dtype. */
static int check_block_params(d2_infer_ctx *ic, const char *role, int b, const d2_type *in, int n,
                              const char *what)
{
    const d2_block *blk = &ic->prog->blocks[b];
    if (blk->n_params != n)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: %s block ^%d takes %d values but the op "
                          "passes %d %s", ic->def->name, role, b, blk->n_params, n, what);
    for (int j = 0; j < n; j++) {
        const d2_type *pt = var_type(ic->prog, blk->params[j]);
        if (!pt)
            return d2_err_set(ic->err, D2_ERR_INVALID, "%s: %s block ^%d param %d is no variable",
                              ic->def->name, role, b, j);
        if (pt->kind != in[j].kind || pt->dtype != in[j].dtype) {
            char a[160], c[160];
            d2_type_str(pt, a, sizeof a);
            d2_type_str(&in[j], c, sizeof c);
            return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: %s block ^%d param %d is %s but %s %d "
                              "is %s", ic->def->name, role, b, j, a, what, j, c);
        }
    }
    return 0;
}

/* The type of yield j of block b; NULL + err when it is no variable. */
static const d2_type *yield_type(d2_infer_ctx *ic, const char *role, int b, int j)
{
    const d2_type *t = var_type(ic->prog, ic->prog->blocks[b].yields[j]);
    if (!t)
        d2_err_set(ic->err, D2_ERR_INVALID, "%s: %s block ^%d yield %d is no variable",
                   ic->def->name, role, b, j);
    return t;
}

/* cond: results are the yields of the then and else blocks, dims merged. */
int infer_cond(d2_infer_ctx *ic)
{
    if (!ic->prog || !ic->op)
        return d2_err_set(ic->err, D2_ERR_INVALID, "cond: inference needs the program's blocks");
    const d2_type *pred = &ic->in[0];
    if ((int)pred->dtype < 0 || pred->kind != D2_VALUE_TENSOR)
        return d2_err_set(ic->err, D2_ERR_INVALID, "cond: the predicate must be a tensor");
    int64_t pn = d2_shape_numel(&pred->shape);
    if (pn >= 0 && pn != 1) {
        char ts[160];
        d2_type_str(pred, ts, sizeof ts);
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "cond: the predicate must have one element, got %s", ts);
    }
    int then_b = infer_block(ic, "then");
    int else_b = then_b < 0 ? -1 : infer_block(ic, "else");
    if (else_b < 0)
        return -1;
    int n_ops = ic->n_in - 1;
    if (check_block_params(ic, "then", then_b, ic->in + 1, n_ops, "operand") < 0 ||
        check_block_params(ic, "else", else_b, ic->in + 1, n_ops, "operand") < 0)
        return -1;
    const int bs[2] = {then_b, else_b};
    const char *roles[2] = {"then", "else"};
    for (int r = 0; r < 2; r++)
        if (ic->prog->blocks[bs[r]].n_yields != ic->n_out)
            return d2_err_set(ic->err, D2_ERR_INVALID,
                              "cond: %s block ^%d yields %d values but the op has %d results",
                              roles[r], bs[r], ic->prog->blocks[bs[r]].n_yields, ic->n_out);
    for (int j = 0; j < ic->n_out; j++) {
        const d2_type *a = yield_type(ic, "then", then_b, j);
        const d2_type *b = a ? yield_type(ic, "else", else_b, j) : NULL;
        if (!b)
            return -1;
        ic->out[j] = *a;
        if (a->kind != b->kind || a->dtype != b->dtype || !merge_type(&ic->out[j], b)) {
            char sa[160], sb[160];
            d2_type_str(a, sa, sizeof sa);
            d2_type_str(b, sb, sizeof sb);
            d2_errcode code = a->kind == b->kind && a->dtype == b->dtype ? D2_ERR_SHAPE
                                                                          : D2_ERR_DTYPE;
            return d2_err_set(ic->err, code,
                              "cond: result %d is %s in the then block but %s in the else block",
                              j, sa, sb);
        }
    }
    return 0;
}

/* while_loop: finals are the inits generalised with the body's yields. */
int infer_while_loop(d2_infer_ctx *ic)
{
    if (!ic->prog || !ic->op)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "while_loop: inference needs the program's blocks");
    int n = ic->n_in;
    if (ic->n_out != n)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "while_loop: %d initial values but %d final values", n, ic->n_out);
    for (int j = 0; j < n; j++)
        if ((int)ic->in[j].dtype < 0)
            return d2_err_set(ic->err, D2_ERR_INVALID, "while_loop: initial value %d is absent", j);
    int cond_b = infer_block(ic, "cond");
    int body_b = cond_b < 0 ? -1 : infer_block(ic, "body");
    if (body_b < 0)
        return -1;
    if (check_block_params(ic, "cond", cond_b, ic->in, n, "initial value") < 0 ||
        check_block_params(ic, "body", body_b, ic->in, n, "initial value") < 0)
        return -1;
    const d2_block *cb = &ic->prog->blocks[cond_b], *bb = &ic->prog->blocks[body_b];
    if (cb->n_yields != 1)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "while_loop: cond block ^%d must yield one bool value, it yields %d",
                          cond_b, cb->n_yields);
    const d2_type *ct = yield_type(ic, "cond", cond_b, 0);
    if (!ct)
        return -1;
    int64_t cn = d2_shape_numel(&ct->shape);
    if (ct->kind != D2_VALUE_TENSOR || ct->dtype != D2_BOOL || (cn >= 0 && cn != 1)) {
        char ts[160];
        d2_type_str(ct, ts, sizeof ts);
        return d2_err_set(ic->err, D2_ERR_DTYPE,
                          "while_loop: cond block ^%d must yield one bool value with one "
                          "element, it yields %s%s", cond_b,
                          ct->kind == D2_VALUE_ARRAY ? "an " : "", ts);
    }
    if (bb->n_yields != n)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "while_loop: body block ^%d yields %d values for %d carried values",
                          body_b, bb->n_yields, n);
    for (int j = 0; j < n; j++) {
        const d2_type *yt = yield_type(ic, "body", body_b, j);
        if (!yt)
            return -1;
        ic->out[j] = ic->in[j];
        if (yt->kind != ic->in[j].kind || yt->dtype != ic->in[j].dtype ||
            !merge_type(&ic->out[j], yt)) {
            char sa[160], sb[160];
            d2_type_str(yt, sa, sizeof sa);
            d2_type_str(&ic->in[j], sb, sizeof sb);
            return d2_err_set(ic->err,
                              yt->dtype == ic->in[j].dtype ? D2_ERR_SHAPE : D2_ERR_DTYPE,
                              "while_loop: body block ^%d yields %s for carried value %d, which "
                              "enters as %s", body_b, sa, j, sb);
        }
    }
    return 0;
}
