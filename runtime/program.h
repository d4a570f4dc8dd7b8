/* program.h - the Program IR: variables, ops, blocks; builder, text form, verifier, DOT. */
#ifndef DY2ST_PROGRAM_H
#define DY2ST_PROGRAM_H

#include "ops.h"

/* A variable. Names are unique within a Program. Persistable variables are
 * parameters and carry data (a CPU tensor) once loaded. */
typedef struct d2_var {
    char *name;
    d2_type type;
    bool persistable;
    d2_tensor *data; /* parameters only; owned reference */
    int block;       /* block that defines it (params: 0) */
} d2_var;

/* An op instance; in/out are variable indices (-1 = absent optional input). */
typedef struct d2_op {
    d2_op_id id;
    int n_in, n_out;
    int *in, *out;
    d2_attrs attrs;
    int line, col; /* source position in the user's file, 0 if none */
} d2_op;

/* A block: parameters (variables bound on entry), ops, and yielded results.
 * Block 0 is the main block: its params are the Program's inputs (feeds), its
 * yields its outputs (fetches). Sub-blocks belong to exactly one control op;
 * they may read variables visible at that op in enclosing blocks. */
typedef struct d2_block {
    int parent; /* -1 for block 0 */
    int n_params;
    int *params;
    int n_ops, cap_ops;
    d2_op *ops;
    int n_yields;
    int *yields;
} d2_block;

typedef struct d2_program {
    int n_vars, cap_vars;
    d2_var *vars;
    int n_blocks, cap_blocks;
    d2_block *blocks;
    /* names -> vars: open addressing over var index + 1 (0 empty), kept by
     * add_var/rename_var/clone; vars are never removed */
    int *name_index;
    int name_cap; /* a power of two, at least twice n_vars, or 0 */
} d2_program;

d2_program *d2_program_new(d2_err *err);
void d2_program_free(d2_program *p);
/* Deep copy (parameters share data by reference). */
d2_program *d2_program_clone(const d2_program *p, d2_err *err);

/* Builder. Each returns an index, or -1 with err set. */
int d2_program_add_block(d2_program *p, int parent, d2_err *err);
/* Adds a variable defined in block `block`; name NULL generates "t<N>". */
int d2_program_add_var(d2_program *p, int block, const char *name, const d2_type *type,
                       d2_err *err);
/* Gives var a new name: 0, 1 when another variable has it already (nothing
 * changes), or -1 with err set. */
int d2_program_rename_var(d2_program *p, int var, const char *name, d2_err *err);
/* Adds a parameter (persistable, block 0); takes a new reference on data (may be NULL). */
int d2_program_add_param(d2_program *p, const char *name, d2_tensor *data, const d2_type *type,
                         d2_err *err);
int d2_block_add_param(d2_program *p, int block, int var, d2_err *err);
int d2_block_add_yield(d2_program *p, int block, int var, d2_err *err);
/* Appends an op; copies in/out arrays and attrs (attrs NULL = defaults). */
int d2_block_add_op(d2_program *p, int block, d2_op_id id, const int *in, int n_in, const int *out,
                    int n_out, const d2_attrs *attrs, d2_err *err);
/* Appends an op whose outputs are new variables of the inferred types (the
 * static-mode path). Writes the new var indices into out_vars. */
int d2_block_append_inferred(d2_program *p, int block, d2_op_id id, const int *in, int n_in,
                             const d2_attrs *attrs, int n_out, int *out_vars, d2_err *err);
int d2_program_find_var(const d2_program *p, const char *name);
/* Infers the output types of op (in block `block`) from its inputs' declared
 * types, parameter data, and (control ops) its blocks' yields. */
int d2_program_infer_op(const d2_program *p, const d2_op *op, d2_type *out, d2_err *err);

/* Text form: print then parse gives a Program that prints identically.
 * Parameter data is printed in full when present (print_data). */
char *d2_program_print(const d2_program *p, bool print_data);
/* Parses the text form. `srcname` is used in error messages
 * ("<srcname>:<line>:<col>: ..."). */
d2_program *d2_program_parse(const char *text, const char *srcname, d2_err *err);
/* Checks the Program is well formed and well typed: every op's arity and
 * attributes match the registry, every input is defined before use and
 * visible, inferred types agree with the declared ones, blocks are attached
 * to exactly one control op, yields match results. The error names the op
 * and the variable. */
int d2_program_verify(const d2_program *p, d2_err *err);
/* Graphviz DOT form. */
char *d2_program_dot(const d2_program *p);

#endif
