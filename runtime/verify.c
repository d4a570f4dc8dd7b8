/* verify.c - Program verifier: structure, definitions and visibility, arity, attributes, types.
 *
 * Checks run in this order, so later checks may rely on earlier ones:
 *   1. blocks: block 0 has no parent, every other parent exists and the parent
 *      chain reaches block 0; variables have sane types; parameter data
 *      matches the parameter's type.
 *   2. indices: every variable index in params, ops and yields is in range.
 *   3. definitions: every variable is defined at most once (as a parameter, a
 *      block parameter or an op output) in the block it records.
 *   4. sub-blocks: block attributes name existing blocks whose parent is the
 *      op's block; every block but 0 is used by exactly one control op.
 *   5. a walk from block 0 in program order, entering each sub-block at its
 *      control op, checks per op: registry arity, attribute count and types,
 *      absent inputs only at optional ports, inputs visible (defined earlier
 *      in the block or in an enclosing block before the control op, a block
 *      parameter or a parameter), declared output types consistent with
 *      d2_program_infer_op; and that yields are visible. Declared and inferred
 *      sizes must fit a tensor (d2_type_check_size: no overflow, no dim below
 *      -1, within the byte cap), then so must every other variable's.
 * Errors name the block, the op (index and name) and the variable.
 */
#include "program.h"

#include <stdio.h>
#include <string.h>

typedef struct verifier {
    const d2_program *p;
    d2_err *err;
    bool *visible;    /* per variable: visible at the current point of the walk */
    int *def_block;   /* per variable: defining block, -1 when undefined */
    int *def_op;      /* per variable: defining op index; -1 block param, -2 parameter */
    int *user_block;  /* per block: block of the control op using it, -1 when none */
    int *user_op;     /* per block: index of that op */
    bool *walked;     /* per block */
    int *stack;       /* variables made visible, popped when a block is left */
    int n_stack;
} verifier;

static const char *vname(const d2_program *p, int v)
{
    return v >= 0 && v < p->n_vars && p->vars[v].name ? p->vars[v].name : "?";
}

static const char *opname(const d2_op *op)
{
    const d2_opdef *def = d2_op_def(op->id);
    return def ? def->name : "<invalid op>";
}

/* Sets "block ^B, op I (name): <msg>". Returns -1. */
static int op_err(verifier *V, int b, int i, const d2_op *op, d2_errcode code, const char *fmt,
                  ...) __attribute__((format(printf, 6, 7)));

static int op_err(verifier *V, int b, int i, const d2_op *op, d2_errcode code, const char *fmt,
                  ...)
{
    char msg[D2_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return d2_err_set(V->err, code, "block ^%d, op %d (%s): %s", b, i, opname(op), msg);
}

static bool type_valid(const d2_type *t)
{
    if ((t->kind != D2_VALUE_TENSOR && t->kind != D2_VALUE_ARRAY) ||
        (unsigned)t->dtype >= D2_NUM_DTYPES || t->shape.ndim < 0 || t->shape.ndim > D2_MAX_DIMS)
        return false;
    for (int i = 0; i < t->shape.ndim; i++)
        if (t->shape.dims[i] < -1)
            return false;
    return true;
}

/* 1. blocks, variable types, parameter data */
static int check_structure(verifier *V)
{
    const d2_program *p = V->p;
    if (p->n_blocks < 1)
        return d2_err_set(V->err, D2_ERR_INVALID, "program has no blocks");
    if (p->blocks[0].parent != -1)
        return d2_err_set(V->err, D2_ERR_INVALID, "block ^0 must not have a parent (has ^%d)",
                          p->blocks[0].parent);
    for (int b = 1; b < p->n_blocks; b++) {
        int par = p->blocks[b].parent;
        if (par < 0 || par >= p->n_blocks || par == b)
            return d2_err_set(V->err, D2_ERR_INVALID, "block ^%d has an invalid parent %d", b, par);
        int steps = 0;
        for (int a = b; a != 0; a = p->blocks[a].parent)
            if (++steps > p->n_blocks)
                return d2_err_set(V->err, D2_ERR_INVALID,
                                  "block ^%d: the parent chain does not reach block ^0", b);
    }
    for (int v = 0; v < p->n_vars; v++) {
        const d2_var *var = &p->vars[v];
        if (!var->name || !var->name[0])
            return d2_err_set(V->err, D2_ERR_INVALID, "variable %d has no name", v);
        if (!type_valid(&var->type))
            return d2_err_set(V->err, D2_ERR_INVALID, "variable '%s' has an invalid type",
                              var->name);
        if (var->block < 0 || var->block >= p->n_blocks)
            return d2_err_set(V->err, D2_ERR_INVALID, "variable '%s' records block %d, which "
                              "does not exist", var->name, var->block);
        if (var->persistable && var->block != 0)
            return d2_err_set(V->err, D2_ERR_INVALID, "parameter '%s' must belong to block ^0",
                              var->name);
        if (!var->persistable && var->data)
            return d2_err_set(V->err, D2_ERR_INVALID,
                              "variable '%s' carries data but is not a parameter", var->name);
        if (var->data) {
            d2_shape s;
            d2_tensor_get_shape(var->data, &s);
            if (var->data->kind != var->type.kind || var->data->dtype != var->type.dtype ||
                (var->data->kind == D2_VALUE_TENSOR && !d2_shape_equal(&s, &var->type.shape))) {
                char ts[160];
                d2_type_str(&var->type, ts, sizeof ts);
                return d2_err_set(V->err, D2_ERR_SHAPE,
                                  "parameter '%s': its data does not match its type %s",
                                  var->name, ts);
            }
        }
    }
    return 0;
}

/* 2. every variable index in range */
static int check_indices(verifier *V)
{
    const d2_program *p = V->p;
    for (int b = 0; b < p->n_blocks; b++) {
        const d2_block *blk = &p->blocks[b];
        for (int i = 0; i < blk->n_params; i++)
            if (blk->params[i] < 0 || blk->params[i] >= p->n_vars)
                return d2_err_set(V->err, D2_ERR_INVALID,
                                  "block ^%d: parameter %d refers to no variable (%d)", b, i,
                                  blk->params[i]);
        for (int i = 0; i < blk->n_yields; i++)
            if (blk->yields[i] < 0 || blk->yields[i] >= p->n_vars)
                return d2_err_set(V->err, D2_ERR_INVALID,
                                  "block ^%d: yield %d refers to no variable (%d)", b, i,
                                  blk->yields[i]);
        for (int i = 0; i < blk->n_ops; i++) {
            const d2_op *op = &blk->ops[i];
            if (!d2_op_def(op->id))
                return d2_err_set(V->err, D2_ERR_INVALID, "block ^%d, op %d: unknown op id %d",
                                  b, i, (int)op->id);
            if (op->n_in < 0 || op->n_out < 0 || (op->n_in && !op->in) || (op->n_out && !op->out))
                return op_err(V, b, i, op, D2_ERR_INVALID, "malformed input or output list");
            for (int k = 0; k < op->n_in; k++)
                if (op->in[k] < -1 || op->in[k] >= p->n_vars)
                    return op_err(V, b, i, op, D2_ERR_INVALID,
                                  "input %d refers to no variable (%d)", k, op->in[k]);
            for (int k = 0; k < op->n_out; k++)
                if (op->out[k] < 0 || op->out[k] >= p->n_vars)
                    return op_err(V, b, i, op, D2_ERR_INVALID,
                                  "output %d refers to no variable (%d)", k, op->out[k]);
        }
    }
    return 0;
}

static void describe_def(const verifier *V, int v, char *out, size_t n)
{
    int db = V->def_block[v], di = V->def_op[v];
    if (di == -2)
        snprintf(out, n, "as a parameter");
    else if (di == -1)
        snprintf(out, n, "as a parameter of block ^%d", db);
    else
        snprintf(out, n, "by op %d (%s) of block ^%d", di, opname(&V->p->blocks[db].ops[di]), db);
}

/* Records the definition of v by (b, op); op -1 = block param. */
static int define(verifier *V, int v, int b, int i, const d2_op *op)
{
    const d2_program *p = V->p;
    if (V->def_block[v] >= 0) {
        char prev[128];
        describe_def(V, v, prev, sizeof prev);
        if (op)
            return op_err(V, b, i, op, D2_ERR_INVALID, "output '%s' is already defined %s",
                          vname(p, v), prev);
        return d2_err_set(V->err, D2_ERR_INVALID,
                          "block ^%d: parameter '%s' is already defined %s", b, vname(p, v), prev);
    }
    if (p->vars[v].block != b) {
        if (op)
            return op_err(V, b, i, op, D2_ERR_INVALID,
                          "output '%s' records block ^%d but is defined in block ^%d",
                          vname(p, v), p->vars[v].block, b);
        return d2_err_set(V->err, D2_ERR_INVALID,
                          "block ^%d: parameter '%s' records block ^%d", b, vname(p, v),
                          p->vars[v].block);
    }
    V->def_block[v] = b;
    V->def_op[v] = op ? i : -1;
    return 0;
}

/* 3. single definitions */
static int check_definitions(verifier *V)
{
    const d2_program *p = V->p;
    for (int v = 0; v < p->n_vars; v++) {
        V->def_block[v] = -1;
        V->def_op[v] = -1;
        if (p->vars[v].persistable) {
            V->def_block[v] = 0;
            V->def_op[v] = -2;
        }
    }
    for (int b = 0; b < p->n_blocks; b++) {
        const d2_block *blk = &p->blocks[b];
        for (int i = 0; i < blk->n_params; i++)
            if (define(V, blk->params[i], b, -1, NULL) < 0)
                return -1;
        for (int i = 0; i < blk->n_ops; i++)
            for (int k = 0; k < blk->ops[i].n_out; k++)
                if (define(V, blk->ops[i].out[k], b, i, &blk->ops[i]) < 0)
                    return -1;
    }
    return 0;
}

/* 4. sub-block ownership */
static int check_sub_blocks(verifier *V)
{
    const d2_program *p = V->p;
    for (int b = 0; b < p->n_blocks; b++)
        V->user_block[b] = V->user_op[b] = -1;
    for (int b = 0; b < p->n_blocks; b++) {
        const d2_block *blk = &p->blocks[b];
        for (int i = 0; i < blk->n_ops; i++) {
            const d2_op *op = &blk->ops[i];
            const d2_opdef *def = d2_op_def(op->id);
            for (int a = 0; a < op->attrs.n; a++) {
                const d2_attr_value *av = &op->attrs.v[a];
                if (av->type != D2_ATTR_BLOCK)
                    continue;
                const char *an = a < def->n_attrs ? def->attrs[a].name : "?";
                int64_t sb = av->u.i;
                if (sb <= 0 || sb >= p->n_blocks)
                    return op_err(V, b, i, op, D2_ERR_INVALID,
                                  "attribute '%s' refers to block ^%lld, which %s", an,
                                  (long long)sb, sb == 0 ? "is the main block" : "does not exist");
                if (p->blocks[sb].parent != b)
                    return op_err(V, b, i, op, D2_ERR_INVALID,
                                  "attribute '%s': block ^%lld has parent ^%d, not ^%d", an,
                                  (long long)sb, p->blocks[sb].parent, b);
                if (V->user_block[sb] >= 0) {
                    int ub = V->user_block[sb], ui = V->user_op[sb];
                    return op_err(V, b, i, op, D2_ERR_INVALID,
                                  "attribute '%s': block ^%lld is already used by op %d (%s) of "
                                  "block ^%d",
                                  an, (long long)sb, ui, opname(&p->blocks[ub].ops[ui]), ub);
                }
                V->user_block[sb] = b;
                V->user_op[sb] = i;
            }
        }
    }
    for (int b = 1; b < p->n_blocks; b++)
        if (V->user_block[b] < 0)
            return d2_err_set(V->err, D2_ERR_INVALID, "block ^%d is not used by any control op", b);
    return 0;
}

static void make_visible(verifier *V, int v)
{
    if (V->visible[v])
        return;
    V->visible[v] = true;
    V->stack[V->n_stack++] = v;
}

/* Explains why variable v is not visible in block b. */
static void why_invisible(const verifier *V, int v, int b, char *out, size_t n)
{
    const d2_program *p = V->p;
    int db = V->def_block[v];
    bool enclosing = false;
    for (int a = p->blocks[b].parent, guard = 0; a >= 0 && guard < p->n_blocks;
         a = p->blocks[a].parent, guard++)
        enclosing = enclosing || a == db;
    if (db < 0)
        snprintf(out, n, "is not defined by any op or block");
    else if (db == b)
        snprintf(out, n, "is used before its definition");
    else if (enclosing)
        snprintf(out, n, "is defined in block ^%d after the op that runs block ^%d", db, b);
    else
        snprintf(out, n, "is defined in block ^%d, which does not enclose block ^%d", db, b);
}

static int attrs_check(verifier *V, int b, int i, const d2_op *op, const d2_opdef *def)
{
    static const char *tn[] = {"bool", "int", "float", "str", "ints", "floats", "dtype", "block"};
    if (op->attrs.n != def->n_attrs)
        return op_err(V, b, i, op, D2_ERR_INVALID, "expected %d attributes, got %d", def->n_attrs,
                      op->attrs.n);
    for (int a = 0; a < def->n_attrs; a++) {
        const d2_attr_value *av = &op->attrs.v[a];
        const d2_attr_schema *s = &def->attrs[a];
        if (av->type != s->type)
            return op_err(V, b, i, op, D2_ERR_INVALID, "attribute '%s' is %s, expected %s",
                          s->name, (unsigned)av->type < 8 ? tn[av->type] : "invalid",
                          tn[s->type]);
        bool bad = false;
        if (av->type == D2_ATTR_INTS)
            bad = av->u.ints.n < 0 || (av->u.ints.n > 0 && !av->u.ints.v);
        else if (av->type == D2_ATTR_FLOATS)
            bad = av->u.floats.n < 0 || (av->u.floats.n > 0 && !av->u.floats.v);
        else if (av->type == D2_ATTR_DTYPE)
            bad = av->u.i < -1 || av->u.i >= D2_NUM_DTYPES;
        if (bad)
            return op_err(V, b, i, op, D2_ERR_INVALID, "attribute '%s' has a malformed value",
                          s->name);
    }
    return 0;
}

/* Compares a declared output type with the inferred one; 0 when consistent. */
static int type_check(verifier *V, int b, int i, const d2_op *op, int k, const d2_type *inf)
{
    const d2_type *dec = &V->p->vars[op->out[k]].type;
    d2_err e = {0};
    if (d2_type_check_size(dec, &e) < 0)
        return op_err(V, b, i, op, e.code, "output '%s': %s", vname(V->p, op->out[k]), e.msg);
    if ((int)inf->dtype == -1)
        return 0; /* inference leaves it open */
    bool dt_ok = dec->kind == inf->kind && dec->dtype == inf->dtype;
    bool shape_ok = dec->shape.ndim == inf->shape.ndim;
    for (int d = 0; shape_ok && d < dec->shape.ndim; d++)
        if (dec->shape.dims[d] >= 0 && inf->shape.dims[d] >= 0 &&
            dec->shape.dims[d] != inf->shape.dims[d])
            shape_ok = false;
    if (dt_ok && shape_ok)
        return 0;
    char ds[160], is[160];
    d2_type_str(dec, ds, sizeof ds);
    if (!type_valid(inf))
        snprintf(is, sizeof is, "an invalid type");
    else
        d2_type_str(inf, is, sizeof is);
    return op_err(V, b, i, op, dt_ok ? D2_ERR_SHAPE : D2_ERR_DTYPE,
                  "output '%s' is declared %s but inferred %s", vname(V->p, op->out[k]), ds, is);
}

static int walk_block(verifier *V, int b);

static int walk_op(verifier *V, int b, int i)
{
    const d2_program *p = V->p;
    const d2_op *op = &p->blocks[b].ops[i];
    const d2_opdef *def = d2_op_def(op->id);
    d2_err e = {0};
    if (d2_op_check_arity(def, op->n_in, op->n_out, &e) < 0)
        return op_err(V, b, i, op, D2_ERR_INVALID, "%s", e.msg);
    if (attrs_check(V, b, i, op, def) < 0)
        return -1;
    for (int k = 0; k < op->n_in; k++) {
        int v = op->in[k];
        if (v < 0) {
            int port = k < def->n_ins ? k : def->n_ins - 1;
            bool variadic = def->ins_variadic && port == def->n_ins - 1;
            if (port < 0 || variadic || !def->in_optional[port])
                return op_err(V, b, i, op, D2_ERR_INVALID,
                              "input %d ('%s') is absent but not optional", k,
                              port >= 0 ? def->in_names[port] : "?");
            continue;
        }
        if (!V->visible[v]) {
            char why[160];
            why_invisible(V, v, b, why, sizeof why);
            return op_err(V, b, i, op, D2_ERR_INVALID, "input '%s' %s", vname(p, v), why);
        }
    }
    /* sub-blocks see what is visible at this op */
    for (int a = 0; a < op->attrs.n; a++)
        if (op->attrs.v[a].type == D2_ATTR_BLOCK && walk_block(V, (int)op->attrs.v[a].u.i) < 0)
            return -1;
    d2_type *out = d2_calloc((size_t)op->n_out + 1, sizeof *out);
    if (!out)
        return d2_err_set(V->err, D2_ERR_NOMEM, "out of memory verifying a program");
    int rc = 0;
    if (d2_program_infer_op(p, op, out, &e) < 0) {
        const char *msg = e.msg;
        size_t nl = strlen(def->name);
        if (strncmp(msg, def->name, nl) == 0 && msg[nl] == ':' && msg[nl + 1] == ' ')
            msg += nl + 2;
        rc = op_err(V, b, i, op, e.code ? e.code : D2_ERR_INVALID, "%s", msg);
    }
    for (int k = 0; rc == 0 && k < op->n_out; k++)
        rc = type_check(V, b, i, op, k, &out[k]);
    d2_free(out);
    if (rc < 0)
        return -1;
    for (int k = 0; k < op->n_out; k++)
        make_visible(V, op->out[k]);
    return 0;
}

/* Walks block b with the current visibility; restores it on return. */
static int walk_block(verifier *V, int b)
{
    const d2_program *p = V->p;
    if (V->walked[b])
        return d2_err_set(V->err, D2_ERR_INVALID, "block ^%d is entered twice", b);
    V->walked[b] = true;
    int mark = V->n_stack;
    const d2_block *blk = &p->blocks[b];
    int rc = 0;
    for (int i = 0; i < blk->n_params; i++)
        make_visible(V, blk->params[i]);
    for (int i = 0; rc == 0 && i < blk->n_ops; i++)
        rc = walk_op(V, b, i);
    for (int i = 0; rc == 0 && i < blk->n_yields; i++) {
        int v = blk->yields[i];
        if (!V->visible[v]) {
            char why[160];
            why_invisible(V, v, b, why, sizeof why);
            rc = d2_err_set(V->err, D2_ERR_INVALID, "block ^%d: %s value '%s' %s", b,
                            b == 0 ? "returned" : "yielded", vname(p, v), why);
        }
    }
    while (V->n_stack > mark)
        V->visible[V->stack[--V->n_stack]] = false;
    return rc;
}

int d2_program_verify(const d2_program *p, d2_err *err)
{
    if (!p)
        return d2_err_set(err, D2_ERR_INVALID, "no program");
    if (d2_ops_init(err) < 0)
        return -1;
    verifier V;
    memset(&V, 0, sizeof V);
    V.p = p;
    V.err = err;
    size_t nv = (size_t)(p->n_vars > 0 ? p->n_vars : 0) + 1;
    size_t nb = (size_t)(p->n_blocks > 0 ? p->n_blocks : 0) + 1;
    V.visible = d2_calloc(nv, sizeof *V.visible);
    V.def_block = d2_calloc(nv, sizeof *V.def_block);
    V.def_op = d2_calloc(nv, sizeof *V.def_op);
    V.stack = d2_calloc(nv, sizeof *V.stack);
    V.user_block = d2_calloc(nb, sizeof *V.user_block);
    V.user_op = d2_calloc(nb, sizeof *V.user_op);
    V.walked = d2_calloc(nb, sizeof *V.walked);
    int rc = -1;
    if (!V.visible || !V.def_block || !V.def_op || !V.stack || !V.user_block || !V.user_op ||
        !V.walked) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory verifying a program");
        goto done;
    }
    if (check_structure(&V) < 0 || check_indices(&V) < 0 || check_definitions(&V) < 0 ||
        check_sub_blocks(&V) < 0)
        goto done;
    for (int v = 0; v < p->n_vars; v++)
        V.visible[v] = p->vars[v].persistable; /* never popped: not on the stack */
    rc = walk_block(&V, 0);
    /* the rest (feeds, parameters, unused variables): no op to name */
    for (int v = 0; rc == 0 && v < p->n_vars; v++) {
        d2_err e = {0};
        if (d2_type_check_size(&p->vars[v].type, &e) < 0)
            rc = d2_err_set(err, e.code, "variable '%s': %s", p->vars[v].name, e.msg);
    }
done:
    d2_free(V.visible);
    d2_free(V.def_block);
    d2_free(V.def_op);
    d2_free(V.stack);
    d2_free(V.user_block);
    d2_free(V.user_op);
    d2_free(V.walked);
    return rc;
}
