/* fused_expr.h - the expression of a fused_elementwise op: a postfix program over its inputs,
 * parsed from the op's `expr` attribute (text form), shared by inference, the kernels, the
 * fusion pass and the ONNX lowering.
 *
 * Tokens, separated by spaces: "$k" pushes input k; a number ("0.5", "-inf", "nan") pushes a
 * constant of the inputs' dtype; "add", "subtract", "multiply", "divide" pop b, then a, and push
 * a op b with the registry op's semantics; "relu", "sigmoid", "tanh", "silu", "gelu",
 * "gelu_tanh", "neg", "exp", "square", "abs" replace the top with the op applied to it. A
 * program leaves exactly one value and ends with an operation. */
#ifndef DY2ST_FUSED_EXPR_H
#define DY2ST_FUSED_EXPR_H

#include "ops.h"

typedef enum {
    D2_FX_IN,
    D2_FX_CONST,
    /* binary */
    D2_FX_ADD,
    D2_FX_SUB,
    D2_FX_MUL,
    D2_FX_DIV,
    /* unary */
    D2_FX_RELU,
    D2_FX_SIGMOID,
    D2_FX_TANH,
    D2_FX_SILU,
    D2_FX_GELU,
    D2_FX_GELU_TANH,
    D2_FX_NEG,
    D2_FX_EXP,
    D2_FX_SQUARE,
    D2_FX_ABS,
    D2_FX_NCODES
} d2_fx_code;

#define D2_FX_MAX_INS 64  /* instructions in one program */
#define D2_FX_MAX_DEPTH 8 /* values on the stack at once */
#define D2_FX_MAX_INPUTS 16

typedef struct d2_fx_ins {
    d2_fx_code code;
    int arg;  /* D2_FX_IN: the input index */
    double c; /* D2_FX_CONST: the value */
} d2_fx_ins;

typedef struct d2_fx_prog {
    int n;     /* instructions */
    int depth; /* the most values on the stack at once */
    d2_fx_ins ins[D2_FX_MAX_INS];
} d2_fx_prog;

/* Parses text for an op with n_inputs inputs (every input must be read at least once).
 * 0, or -1 with err set naming the token at fault. */
int d2_fx_parse(const char *text, int n_inputs, d2_fx_prog *p, d2_err *err);
/* The parsed program of text for a kernel run: from a small per-thread cache of the last
 * programs parsed (keyed by the text itself), else parsed into *scratch. *out points into the
 * cache or at scratch, valid until the thread's next call. 0, or -1 with err set. */
int d2_fx_get(const char *text, int n_inputs, d2_fx_prog *scratch, const d2_fx_prog **out,
              d2_err *err);
/* The token of an operation code (NULL for D2_FX_IN / D2_FX_CONST). */
const char *d2_fx_token(d2_fx_code code);
/* Whether code pops two values. */
bool d2_fx_binary(d2_fx_code code);
/* The registry op an operation code computes, and whether that op is gelu with
 * approximate = true (D2_FX_GELU_TANH). */
d2_op_id d2_fx_op(d2_fx_code code);

/* Runs the program of k's `expr` as the registry ops it is made of, one after another on k's
 * backend (any shapes numpy broadcasting allows, any dtype those ops take): the fallback of
 * backends without a fused kernel and of shapes the CPU kernel does not take. 0 or -1. */
int d2_fx_run_parts(d2_kctx *k, const d2_fx_prog *p);

/* add_layer_norm as its parts: layer_norm(x + y) on k's backend. 0 or -1. */
int d2_add_layer_norm_parts(d2_kctx *k);
/* batch_norm_act as its parts: batch_norm, add, relu on k's backend. 0 or -1. */
int d2_batch_norm_act_parts(d2_kctx *k);

#endif
