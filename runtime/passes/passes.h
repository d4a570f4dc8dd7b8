/* passes.h - graph optimisation: named Program -> Program rewrites with a level, and the pass
 * manager that runs a pipeline of them and verifies the result. */
#ifndef DY2ST_PASSES_H
#define DY2ST_PASSES_H

#include "../program.h"

/* Levels, as ONNX Runtime's: BASIC rewrites keep the meaning of any Program, training ones
 * included; INFERENCE rewrites assume frozen parameters and no backward (they fold parameters
 * into each other and make fused ops that have no gradient). */
typedef enum { D2_PASS_BASIC = 1, D2_PASS_INFERENCE = 2 } d2_pass_level;

/* What a pass sees besides the Program. */
typedef struct d2_pass_ctx {
    bool trains; /* the Program holds backward or update ops (d2_program_trains) */
} d2_pass_ctx;

/* One pass: rewrites p in place and returns how many rewrites it made (0: p is unchanged),
 * or -1 with err set (p may then be half rewritten: callers run passes on a clone). */
typedef struct d2_pass {
    const char *name;
    d2_pass_level level;
    const char *doc; /* one line */
    int (*run)(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
} d2_pass;

/* The passes, in pipeline order; *n receives their count. */
const d2_pass *d2_passes_all(int *n);
const d2_pass *d2_pass_find(const char *name);

/* A selection of passes: bit i selects d2_passes_all()[i]. */
typedef uint32_t d2_pass_set;
#define D2_PASSES_NONE ((d2_pass_set)0)
/* Every pass up to level (BASIC: the basic ones; INFERENCE: all). */
d2_pass_set d2_passes_level(d2_pass_level level);
/* Parses "none", "basic", "all" (= inference) or a comma-separated list of pass names,
 * levels (basic, all) and names to take out of them (-NAME: "all,-memplan"); -1 with err
 * set naming an unknown pass. */
int d2_passes_parse(const char *text, d2_pass_set *out, d2_err *err);

/* Whether p trains: it has optimizer updates, gradient ops or gradient variables (named
 * "...@GRAD"). INFERENCE passes never run on such a Program. */
bool d2_program_trains(const d2_program *p);

/* Rewrites per pass of one pipeline run, in d2_passes_all() order. */
typedef struct d2_pass_stats {
    int n;
    int changes[32];
} d2_pass_stats;

/* Runs the selected passes in pipeline order on p (INFERENCE ones only when p does not
 * train), repeating the pipeline while it changes something (at most a few rounds), and
 * verifies p after every pass that changed it. stats may be NULL. Returns the total number
 * of rewrites, or -1 with err set (p is then unusable: run on a clone). */
int d2_passes_run(d2_program *p, d2_pass_set set, d2_pass_stats *stats, d2_err *err);

/* The inference pipeline of loaded models: DY2ST_PASSES in the environment when set
 * (d2_passes_parse syntax), else every pass. */
int d2_passes_from_env(d2_pass_set *out, d2_err *err);

/* Prepares p for backend be (exec.h) after the passes of set, which run on a clone that the
 * prepared form owns; p itself is not changed. With no pass selected, when p trains, or when
 * a pass fails, p is prepared as it is. The prepared form's block-0 params and yields are p's
 * (same variables, same order), so feeds and fetches of p's outputs map one to one. */
struct d2_prepared *d2_passes_prepare(const d2_program *p, d2_pass_set set,
                                      struct d2_backend *be, d2_err *err);
/* Applies the selections of set that the executor makes rather than a rewrite (inplace,
 * memplan) to pp, prepared from a Program the passes of set already ran on. */
void d2_passes_select_exec(struct d2_prepared *pp, d2_pass_set set);

/* ---- rewrite helpers shared by the passes (pass_util.c) ---- */

/* How many times each variable is read: by op inputs and block yields, in every block.
 * Returns a new array of p->n_vars counts (caller frees), NULL when out of memory. */
int *d2_pass_use_counts(const d2_program *p);
/* Removes op i of block b (frees it; later ops move up). */
void d2_pass_remove_op(d2_program *p, int b, int i);
/* Ends an epilogue fusion: the fused op just appended at the end of block b (index fi) takes
 * the slot of the chain's last op `last` (which it replaces, with the head's source place
 * line:col), then the chain's add `add_i` (when there is one and it was not last) and its head
 * op `head_i` are removed. */
void d2_pass_place_fused(d2_program *p, int b, int fi, int last, int add_i, int head_i, int line,
                         int col);
/* Runs fuse(p, b, i, uses, err) on every op of kind `head` in every block, with the reader
 * counts of d2_pass_use_counts (a fusion must leave every other variable's count as it was);
 * fuse returns 1 when it fused (op i is gone), 0 when not, -1 on error. The number fused, or -1. */
int d2_pass_fuse_each(d2_program *p, d2_op_id head,
                      int (*fuse)(d2_program *p, int b, int i, const int *uses, d2_err *err),
                      d2_err *err);
/* Replaces every read of variable `from` (op inputs and yields, every block) by `to`. */
void d2_pass_replace_uses(d2_program *p, int from, int to);
/* The index of the one op of block b after op `from` that reads var, when var has exactly
 * one reader (uses: d2_pass_use_counts) and is no Program output; -1 otherwise. */
int d2_pass_only_reader(const d2_program *p, int b, int from, int var, const int *uses);
/* Whether two variable types are equal: kind, dtype and every dim. */
bool d2_pass_same_type(const d2_type *a, const d2_type *b);
/* The residual add of an epilogue: after op `head` of block b, whose output y has one reader,
 * an add of y and another value of y's type whose result has y's type too. Sets *residual and
 * *add_i to that value and the add's index (-1 each when there is no such add) and returns the
 * only reader of the chain's value so far (the add's result, or y), or -1. */
int d2_pass_residual_add(const d2_program *p, int b, int head, int y, const int *uses,
                         int *residual, int *add_i);
/* The residual-add-then-relu epilogue after op `head`: d2_pass_residual_add, then a relu when
 * the chain's value has one as its only reader. Sets *residual, *add_i and *relu and returns
 * the index of the chain's last op, or -1 when neither follows. */
int d2_pass_add_relu_epilogue(const d2_program *p, int b, int head, int y, const int *uses,
                              int *residual, int *add_i, bool *relu);
/* Whether var is yielded by block 0 (a fetch: its name is part of the model's interface). */
bool d2_pass_is_output(const d2_program *p, int var);
/* The parameter data of var when it is a parameter with data, else NULL. */
d2_tensor *d2_pass_param_data(const d2_program *p, int var);
/* Adds a parameter holding data (a new reference is taken) named after base with suffix,
 * made unique. Returns its index or -1 with err set. */
int d2_pass_add_param(d2_program *p, const char *base, const char *suffix, d2_tensor *data,
                      d2_err *err);
/* Drops blocks no control op refers to (renumbering the rest) and, with drop_params, the
 * parameters nothing reads any more (they stay as plain unused variables, without data).
 * Returns how many blocks it dropped. */
int d2_pass_compact(d2_program *p, bool drop_params, d2_err *err);

/* The passes (one file each). */
int d2_pass_dce(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_const_fold(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_cse(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_bn_fold(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_fuse_conv(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_drop_identity(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_fuse_linear(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_fuse_add_norm(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_fuse_elementwise(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_fuse_bn_act(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_hoist(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_nhwc(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_inplace(d2_program *p, const d2_pass_ctx *cx, d2_err *err);
int d2_pass_memplan(d2_program *p, const d2_pass_ctx *cx, d2_err *err);

#endif
