/* static_priv.h - what static_api.c and static_exec.c share: the module state, Program
 * objects and Variable views (internal to the translator: not part of any public header). */
#ifndef DY2ST_STATIC_PRIV_H
#define DY2ST_STATIC_PRIV_H

#include "exec.h"
#include "lib/paddle/static_api.h"

typedef struct st_state {
    d2_module *statics, *fluid_io;
    d2_class *prog_cls;  /* paddle.static.Program (OPAQUE: an sprog) */
    d2_class *var_cls;   /* paddle.static.Variable */
    d2_class *block_cls; /* Block */
    d2_class *op_cls;    /* Operator */
    d2_class *exe_cls;   /* paddle.static.Executor */
    d2_class *scope_cls, *scope_var_cls; /* global_scope() and its find_var results */
    d2_class *pt_cls;    /* paddle.jit.ProgramTranslator */
    d2_class *guard_cls; /* paddle.static.program_guard */
    d2_class *cp_cls;    /* paddle.static.CompiledProgram (data-parallel ones are instances) */
    d2_class *ser_cls;   /* serialize_program's bytes (OPAQUE: a length and the bytes) */
    d2_module *static_nn; /* paddle.static.nn */
    d2_obj *main_prog, *startup_prog; /* the current default Programs (program_guard swaps) */
    d2_obj *translator;  /* the ProgramTranslator singleton, made on first use */
    struct sprog *built; /* Programs with a builder (list through sprog.next) */
    int n_fc;            /* paddle.static.nn.fc calls, for parameter names */
    unsigned n_progs;    /* Programs made, for sprog.serial */
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
    /* persistable write-back (Optimizer.minimize): after each run, the value
     * of variable wb[2k+1] (an update op's result) replaces the data of the
     * persistable variable wb[2k] (a parameter or an optimizer state) */
    int *wb;
    int n_wb;
    /* training batch_norms (d2_static_batch_norm): per batch_norm four variables, the batch
     * mean and variance it normalises with and the running mean and variance (persistables)
     * that clone(for_test=True) and save_inference_model make it read instead */
    int *bn;
    int n_bn;
    /* an LRScheduler whose value Executor.run writes into variable lr_var
     * before every run (NULL: none) */
    d2_obj *lr_sched;
    int lr_var;
    bool has_lr; /* lr_var is the learning rate (with or without a scheduler) */
    /* the number of block 0's ops before the first append_backward (valid
     * when has_backward): clone(for_test=True) keeps only those */
    int fwd_ops;
    bool has_backward;
    struct sprog *next, *prev;
    uint32_t passes; /* the graph passes CompiledProgram's BuildStrategy selects (passes.h) */
    /* data parallel (static_parallel.c): block 0's op count after the last append_backward
     * (the ops from there on are the optimizer's), and the gradient variables it made */
    int bwd_ops;
    int *grads;
    int n_grads;
    bool dp_ran; /* a data-parallel run has used this Program (share_vars_from checks it) */
    bool collective;  /* fleet.distributed_optimizer minimized it: runs average over the ranks */
    bool dist_synced; /* a collective run has given every rank rank 0's persistables */
    /* serial: this Program's number; startup_serial: that of the startup Program it was
     * guarded with (program_guard), whose run initialises its persistables */
    unsigned serial, startup_serial;
    /* a startup Program: the persistable data it initialises (references) and their
     * values when it first ran (the values the parameters were created with) */
    d2_tensor **init_dst, **init_val;
    int n_init;
    /* a training Program's last pruned and prepared copy, for runs with the same fetch list
     * while the Program stays as it was (q NULL: none) */
    struct sprog_run_cache {
        d2_program *q;
        d2_prepared *qp;
        int *fetch, n_fetch; /* the fetched variables */
        int *need, n_need;   /* the fed inputs, in q's order */
        int n_vars, n_blocks, n_ops, n_wb;
        uint32_t passes;
        /* the data of p's variables when the copy was made (references): a variable rebound
         * since (share_vars_from, set_program_state) makes the copy stale */
        d2_tensor **data;
        /* what a user of the cache keeps beside the copy (the data-parallel runner's replica
         * and update Programs), freed with ext_free */
        void *ext;
        void (*ext_free)(void *ext);
    } run_cache, dp_cache; /* dp_cache: the data-parallel runner's (static_parallel.c) */
} sprog;

/* Frees a run cache's copy (the cache is left empty). */
void d2_static_run_cache_clear(struct sprog_run_cache *c);
/* Whether c holds a copy made for a run of s fetching variables fetch[0..n) that is still
 * valid: the Program has not grown or changed its passes or write-backs since, and no
 * variable has been rebound to other data. */
bool d2_static_run_cache_hit(const sprog *s, const struct sprog_run_cache *c, const int *fetch,
                             int n);
/* Records in c the key of a copy just made for s and fetch[0..n) (c's q, qp, need and ext are
 * the caller's to set). 0, or -1 when out of memory (c is then cleared). */
int d2_static_run_cache_key(const sprog *s, struct sprog_run_cache *c, const int *fetch, int n);

/* Executor.run of startup Program s: the persistables of the Programs guarded with it take
 * the values they had when s first ran (then: their values at creation). 0, or -1 with an
 * exception. */
int d2_static_run_startup(d2_interp *I, sprog *s);

/* Turns the training dropouts of q whose masks nothing reads (no backward) into inference
 * dropouts, as Paddle's clone(for_test=True) and save_inference_model set is_test. */
void d2_static_eval_dropout(d2_program *q);

/* Makes the training batch_norms of q (a copy of s's Program, same variables) normalise with
 * their running statistics, as Paddle's batch_norm with is_test set. */
void d2_static_eval_batch_norm(const sprog *s, d2_program *q);

static inline st_state *SS(d2_interp *I) { return I->ext[D2_EXT_STATIC]; }

/* Sets attribute name of instance o to v, stealing the reference to v. */
static inline int iset_steal(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    int rc = v ? d2_dict_set_str(I, D2_AS(d2_instance, o)->dict, name, v) : -1;
    d2_decref(v);
    return rc;
}

static inline bool is_seq(const d2_obj *o)
{
    return o && (o->kind == D2_OBJ_LIST || o->kind == D2_OBJ_TUPLE);
}

/* A Program object owning p (may be NULL: empty) and file (may be NULL);
 * on failure both are freed. */
d2_obj *d2_static_prog_new(d2_interp *I, d2_program *p, char *file);

/* The payload of Program object o, or NULL when o is none. */
sprog *d2_static_sprog_of(d2_interp *I, d2_obj *o);

/* Variable view of variable v of p. */
d2_obj *d2_static_var_new(d2_interp *I, const d2_program *p, int v);

/* The name of a feed/fetch item: a name, a Variable, or a tensor (symbolic
 * ones by their variable); *var receives the variable of a symbolic tensor
 * of p's builder b (else -1). NULL when the item is none of these. */
const char *d2_static_item_name(d2_interp *I, d2_obj *item, const d2_builder *b, int *var);

/* Registers paddle.static.append_backward and gradients (static_grad.c). 0, or -1 with an
 * exception. */
int d2_static_grad_init(d2_interp *I, st_state *s);

/* Registers the Executor and ProgramTranslator classes and the functions of
 * static_exec.c (called by d2_static_api_init). 0, or -1 with an exception. */
int d2_static_exec_init(d2_interp *I, st_state *s);

/* Helpers of static_exec.c that the data-parallel runner (static_parallel.c) shares. */
d2_tensor *d2_static_feed_tensor(d2_interp *I, const d2_var *var, d2_obj *v);
int d2_static_fetch_var(d2_interp *I, const sprog *s, d2_obj *item, size_t i);
int d2_static_prune_dead(d2_interp *I, d2_program *q);
bool d2_static_var_read(const d2_program *p, int v);
int d2_static_write_persistable(d2_tensor *dst, d2_tensor *src, const char *name, d2_err *err);
/* Writes the LRScheduler's value into the learning-rate variable of s (Executor.run does
 * this before every run). 0, or -1 with an exception. */
int d2_static_apply_lr(d2_interp *I, sprog *s);

/* Executor.run of a data-parallel CompiledProgram cp (static_parallel.c). */
d2_obj *d2_static_run_parallel(d2_interp *I, d2_obj *cp, d2_obj *feed, d2_obj **fitems,
                               size_t nfl, bool ret_np);
/* Whether Executor.run of s averages its gradients over MPI ranks (fleet), and that run. */
bool d2_static_is_collective(const sprog *s);
d2_obj *d2_static_run_collective(d2_interp *I, sprog *s, d2_obj *feed, d2_obj **fitems,
                                 size_t nfl, bool ret_np);
/* Registers CompiledProgram.with_data_parallel (static_parallel.c). 0, or -1 with an
 * exception. */
int d2_static_parallel_init(d2_interp *I, st_state *s);

#endif
