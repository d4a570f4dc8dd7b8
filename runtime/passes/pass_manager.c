/* pass_manager.c - the pass table, pass selection, and the pipeline runner (each changing pass
 * followed by the verifier). */
#include "passes.h"

#include "../exec.h"

#include <stdlib.h>
#include <string.h>

/* Pipeline order: folding first (it feeds the fusions), dead code last. */
static const d2_pass PASSES[] = {
    {"const_fold", D2_PASS_BASIC, "ops over parameters and static shapes become parameters",
     d2_pass_const_fold},
    {"cse", D2_PASS_BASIC, "repeated computations are computed once", d2_pass_cse},
    {"hoist", D2_PASS_INFERENCE, "loop-invariant ops move out of while_loop blocks",
     d2_pass_hoist},
    {"drop_identity", D2_PASS_INFERENCE, "inference dropout (a copy) is removed",
     d2_pass_drop_identity},
    {"bn_fold", D2_PASS_INFERENCE, "batch_norm after conv2d / linear folds into its weights",
     d2_pass_bn_fold},
    {"fuse_conv", D2_PASS_INFERENCE, "conv2d + residual add + relu become conv2d_fused",
     d2_pass_fuse_conv},
    {"nhwc", D2_PASS_INFERENCE, "chains of convolutions run in NHWC, transposed at their edges",
     d2_pass_nhwc},
    {"fuse_linear", D2_PASS_INFERENCE, "linear + residual add + relu/gelu become linear_fused",
     d2_pass_fuse_linear},
    {"fuse_add_norm", D2_PASS_INFERENCE, "residual add + layer_norm become add_layer_norm",
     d2_pass_fuse_add_norm},
    {"fuse_bn_act", D2_PASS_INFERENCE,
     "batch_norm (not folded) + residual add + relu become batch_norm_act", d2_pass_fuse_bn_act},
    {"fuse_elementwise", D2_PASS_INFERENCE,
     "trees of elementwise ops become one fused_elementwise", d2_pass_fuse_elementwise},
    {"dce", D2_PASS_BASIC, "ops whose results nothing reads are removed", d2_pass_dce},
    {"inplace", D2_PASS_BASIC, "elementwise ops write into an input buffer that dies at them",
     d2_pass_inplace},
    {"memplan", D2_PASS_BASIC, "intermediate values share one arena per run by liveness",
     d2_pass_memplan},
};

#define N_PASSES ((int)D2_COUNTOF(PASSES))
#define MAX_ROUNDS 4

const d2_pass *d2_passes_all(int *n)
{
    *n = N_PASSES;
    return PASSES;
}

const d2_pass *d2_pass_find(const char *name)
{
    for (int i = 0; i < N_PASSES; i++)
        if (strcmp(PASSES[i].name, name) == 0)
            return &PASSES[i];
    return NULL;
}

d2_pass_set d2_passes_level(d2_pass_level level)
{
    d2_pass_set s = 0;
    for (int i = 0; i < N_PASSES; i++)
        if (PASSES[i].level <= level)
            s |= (d2_pass_set)1 << i;
    return s;
}

int d2_passes_parse(const char *text, d2_pass_set *out, d2_err *err)
{
    *out = 0;
    if (strcmp(text, "none") == 0 || !*text)
        return 0;
    if (strcmp(text, "basic") == 0) {
        *out = d2_passes_level(D2_PASS_BASIC);
        return 0;
    }
    if (strcmp(text, "all") == 0 || strcmp(text, "inference") == 0) {
        *out = d2_passes_level(D2_PASS_INFERENCE);
        return 0;
    }
    for (const char *s = text; *s;) {
        size_t len = strcspn(s, ",");
        /* "all,-memplan": a level, then names taken out of it */
        bool drop = *s == '-';
        if (drop) {
            s++;
            len--;
        }
        if (!drop && len == 3 && strncmp(s, "all", 3) == 0) {
            *out |= d2_passes_level(D2_PASS_INFERENCE);
            s += len + (s[len] == ',');
            continue;
        }
        if (!drop && len == 5 && strncmp(s, "basic", 5) == 0) {
            *out |= d2_passes_level(D2_PASS_BASIC);
            s += len + (s[len] == ',');
            continue;
        }
        int found = -1;
        for (int i = 0; i < N_PASSES && found < 0; i++)
            if (strlen(PASSES[i].name) == len && strncmp(PASSES[i].name, s, len) == 0)
                found = i;
        if (found < 0)
            return d2_err_set(err, D2_ERR_INVALID,
                              "unknown pass '%.*s' (passes: const_fold, cse, hoist, "
                              "drop_identity, bn_fold, fuse_conv, nhwc, fuse_linear, fuse_add_norm, "
                              "fuse_bn_act, fuse_elementwise, dce, inplace, memplan; or none, "
                              "basic, all; -NAME drops one: all,-memplan)",
                              (int)len, s);
        if (drop)
            *out &= ~((d2_pass_set)1 << found);
        else
            *out |= (d2_pass_set)1 << found;
        s += len;
        if (*s == ',')
            s++;
    }
    return 0;
}

int d2_passes_from_env(d2_pass_set *out, d2_err *err)
{
    const char *e = getenv("DY2ST_PASSES");
    if (!e) {
        *out = d2_passes_level(D2_PASS_INFERENCE);
        return 0;
    }
    return d2_passes_parse(e, out, err);
}

bool d2_program_trains(const d2_program *p)
{
    for (int v = 0; v < p->n_vars; v++) {
        const char *at = strstr(p->vars[v].name, "@GRAD");
        if (at && (at[5] == '\0' || at[5] == '@' || at[5] == '_'))
            return true;
    }
    for (int b = 0; b < p->n_blocks; b++)
        for (int i = 0; i < p->blocks[b].n_ops; i++) {
            const d2_opdef *def = d2_op_def(p->blocks[b].ops[i].id);
            /* optimizer updates and the backward ops of conv2d / pool2d / broadcasting */
            if (def->infer == infer_optimizer || def->infer == infer_conv2d_grad_input ||
                def->infer == infer_conv2d_grad_filter || def->infer == infer_pool2d_grad ||
                def->infer == infer_reduce_as)
                return true;
        }
    return false;
}

int d2_passes_run(d2_program *p, d2_pass_set set, d2_pass_stats *stats, d2_err *err)
{
    d2_pass_ctx cx = {d2_program_trains(p)};
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->n = N_PASSES;
    }
    int total = 0;
    for (int round = 0; round < MAX_ROUNDS; round++) {
        int changed = 0;
        for (int i = 0; i < N_PASSES; i++) {
            const d2_pass *ps = &PASSES[i];
            if (!(set & ((d2_pass_set)1 << i)) || (ps->level == D2_PASS_INFERENCE && cx.trains))
                continue;
            int n = ps->run(p, &cx, err);
            if (n < 0) {
                d2_err_prefix(err, "pass %s", ps->name);
                return -1;
            }
            if (n > 0 && d2_program_verify(p, err) < 0) {
                d2_err_prefix(err, "after pass %s", ps->name);
                return -1;
            }
            if (stats)
                stats->changes[i] += n;
            changed += n;
        }
        total += changed;
        if (!changed)
            break;
    }
    return total;
}

/* Prepares p (the passes already run) and applies the executor's selections. */
static d2_prepared *prepare_with(const d2_program *p, d2_program *owned, d2_pass_set set,
                                 d2_backend *be, d2_err *err)
{
    d2_prepared *pp = owned ? d2_exec_prepare_owned(owned, be, err) : d2_exec_prepare(p, be, err);
    if (pp)
        d2_passes_select_exec(pp, set);
    return pp;
}

void d2_passes_select_exec(struct d2_prepared *pp, d2_pass_set set)
{
    const d2_pass *ip = d2_pass_find("inplace"), *mp = d2_pass_find("memplan");
    if (set & ((d2_pass_set)1 << (ip - PASSES)))
        d2_exec_enable_inplace(pp);
    d2_err merr = {0}; /* a plan that cannot be made leaves the runs as they were */
    if (set & ((d2_pass_set)1 << (mp - PASSES)))
        d2_exec_enable_memplan(pp, &merr);
}

d2_prepared *d2_passes_prepare(const d2_program *p, d2_pass_set set, d2_backend *be, d2_err *err)
{
    if (!set || !p || d2_program_trains(p))
        return prepare_with(p, NULL, set, be, err);
    d2_err perr = {0};
    d2_program *q = d2_program_clone(p, &perr);
    if (!q || d2_passes_run(q, set, NULL, &perr) < 0) {
        d2_program_free(q);
        return prepare_with(p, NULL, set, be, err);
    }
    return prepare_with(NULL, q, set, be, err);
}
