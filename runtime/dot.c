/* dot.c - Program Graphviz form: ops as nodes, variables as labelled edges, sub-blocks as clusters.
 *
 * Node names: parameters and block parameters "v<var>", ops "op<block>_<index>",
 * a block's return/yield "y<block>". Sub-block ^N is "subgraph cluster_N",
 * nested in the cluster of its parent block, with a dashed edge from its
 * control op (lhead=cluster_N) labelled by the block attribute's name.
 * Nodes are all declared before any edge, so edges never move a node into
 * another cluster.
 */
#include "program.h"

#include <stdio.h>
#include <string.h>

#define MAX_LITERAL 32

typedef struct dotter {
    const d2_program *p;
    d2_buf *b;
    int *prod_block, *prod_op; /* per variable: producing op, -1 none */
    bool *emitted;             /* per block */
} dotter;

/* Appends s with DOT string escapes (quotes, backslashes, newlines). */
static void put_escaped(d2_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        char c = s[i];
        if (c == '"' || c == '\\')
            d2_buf_printf(b, "\\%c", c);
        else if (c == '\n')
            d2_buf_puts(b, "\\n");
        else
            d2_buf_append(b, &c, 1);
    }
}

static const char *var_name(const d2_program *p, int v)
{
    return v >= 0 && v < p->n_vars && p->vars[v].name ? p->vars[v].name : "?";
}

/* Appends "name : type" escaped. */
static void put_var_label(d2_buf *b, const d2_program *p, int v, const char *sep)
{
    const char *name = var_name(p, v);
    put_escaped(b, name, strlen(name));
    if (v >= 0 && v < p->n_vars) {
        char ts[160];
        d2_type_str(&p->vars[v].type, ts, sizeof ts);
        d2_buf_puts(b, sep);
        put_escaped(b, ts, strlen(ts));
    }
}

static void indent(d2_buf *b, int depth)
{
    for (int i = 0; i <= depth; i++)
        d2_buf_puts(b, "  ");
}

/* Op label: its name, then each attribute that differs from its default. */
static void put_op_label(d2_buf *b, const d2_op *op)
{
    const d2_opdef *def = d2_op_def(op->id);
    if (!def) {
        d2_buf_puts(b, "<invalid op>");
        return;
    }
    d2_buf_puts(b, def->name);
    for (int a = 0; a < op->attrs.n && a < def->n_attrs; a++) {
        const d2_attr_schema *s = &def->attrs[a];
        if (s->has_default && d2_attr_value_equal(&op->attrs.v[a], &s->def))
            continue;
        d2_buf lit;
        d2_buf_init(&lit);
        d2_attr_print_literal(&lit, &op->attrs.v[a]);
        d2_buf_printf(b, "\\n%s=", s->name);
        if (lit.oom) {
            b->oom = true;
        } else if (lit.data) {
            put_escaped(b, lit.data, lit.len > MAX_LITERAL ? MAX_LITERAL : lit.len);
            if (lit.len > MAX_LITERAL)
                d2_buf_puts(b, "...");
        }
        d2_buf_free(&lit);
    }
}

static void emit_var_node(dotter *D, int v, int depth, const char *extra)
{
    indent(D->b, depth);
    d2_buf_printf(D->b, "v%d [label=\"", v);
    put_var_label(D->b, D->p, v, "\\n");
    d2_buf_printf(D->b, "\", shape=ellipse%s];\n", extra);
}

/* Declares block bi's nodes and, nested, the clusters of its sub-blocks. */
static void emit_block(dotter *D, int bi, int depth)
{
    const d2_program *p = D->p;
    const d2_block *blk = &p->blocks[bi];
    D->emitted[bi] = true;
    for (int i = 0; i < blk->n_params; i++)
        if (blk->params[i] >= 0 && blk->params[i] < p->n_vars)
            emit_var_node(D, blk->params[i], depth, "");
    for (int i = 0; i < blk->n_ops; i++) {
        const d2_op *op = &blk->ops[i];
        indent(D->b, depth);
        d2_buf_printf(D->b, "op%d_%d [label=\"", bi, i);
        put_op_label(D->b, op);
        d2_buf_puts(D->b, "\"];\n");
    }
    indent(D->b, depth);
    d2_buf_printf(D->b, "y%d [label=\"%s\", shape=plaintext];\n", bi, bi == 0 ? "return" : "yield");
    for (int i = 0; i < blk->n_ops; i++) {
        const d2_op *op = &blk->ops[i];
        for (int a = 0; a < op->attrs.n; a++) {
            if (op->attrs.v[a].type != D2_ATTR_BLOCK)
                continue;
            int64_t sb = op->attrs.v[a].u.i;
            if (sb <= 0 || sb >= p->n_blocks || D->emitted[sb] || p->blocks[sb].parent != bi)
                continue;
            const d2_opdef *def = d2_op_def(op->id);
            indent(D->b, depth);
            d2_buf_printf(D->b, "subgraph cluster_%lld {\n", (long long)sb);
            indent(D->b, depth + 1);
            d2_buf_printf(D->b, "label=\"^%lld: %s of op %d (%s)\";\n", (long long)sb,
                          def && a < def->n_attrs ? def->attrs[a].name : "block", i,
                          def ? def->name : "?");
            emit_block(D, (int)sb, depth + 1);
            indent(D->b, depth);
            d2_buf_puts(D->b, "}\n");
        }
    }
}

/* Edge from the producer of v to node `to` (a node name). */
static void emit_use(dotter *D, int v, const char *to)
{
    const d2_program *p = D->p;
    if (v < 0 || v >= p->n_vars)
        return;
    if (D->prod_op[v] >= 0)
        d2_buf_printf(D->b, "  op%d_%d -> %s [label=\"", D->prod_block[v], D->prod_op[v], to);
    else
        d2_buf_printf(D->b, "  v%d -> %s [label=\"", v, to);
    put_var_label(D->b, p, v, " : ");
    d2_buf_puts(D->b, "\"];\n");
}

char *d2_program_dot(const d2_program *p)
{
    d2_buf b;
    d2_buf_init(&b);
    size_t nv = (size_t)(p->n_vars > 0 ? p->n_vars : 0) + 1;
    size_t nb = (size_t)(p->n_blocks > 0 ? p->n_blocks : 0) + 1;
    dotter D = {p, &b, d2_malloc(nv * sizeof(int)), d2_malloc(nv * sizeof(int)),
                d2_calloc(nb, sizeof(bool))};
    bool *declared = d2_calloc(nv, sizeof(bool));
    if (!D.prod_block || !D.prod_op || !D.emitted || !declared) {
        b.oom = true;
        goto done;
    }
    for (int v = 0; v < p->n_vars; v++)
        D.prod_block[v] = D.prod_op[v] = -1;
    for (int bi = 0; bi < p->n_blocks; bi++) {
        const d2_block *blk = &p->blocks[bi];
        for (int i = 0; i < blk->n_params; i++)
            if (blk->params[i] >= 0 && blk->params[i] < p->n_vars)
                declared[blk->params[i]] = true;
        for (int i = 0; i < blk->n_ops; i++)
            for (int k = 0; k < blk->ops[i].n_out; k++) {
                int v = blk->ops[i].out[k];
                if (v >= 0 && v < p->n_vars && D.prod_op[v] < 0) {
                    D.prod_block[v] = bi;
                    D.prod_op[v] = i;
                }
            }
    }

    d2_buf_puts(&b, "digraph program {\n"
                    "  compound=true;\n"
                    "  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
                    "  edge [fontname=\"Helvetica\", fontsize=10];\n");
    /* parameters, then variables nothing defines (shown dashed) */
    for (int v = 0; v < p->n_vars; v++) {
        if (p->vars[v].persistable && D.prod_op[v] < 0 && !declared[v])
            emit_var_node(&D, v, 0, ", style=filled, fillcolor=\"#e0e0e0\"");
    }
    for (int bi = 0; bi < p->n_blocks; bi++) {
        const d2_block *blk = &p->blocks[bi];
        for (int i = 0; i < blk->n_ops; i++)
            for (int k = 0; k < blk->ops[i].n_in; k++) {
                int v = blk->ops[i].in[k];
                if (v >= 0 && v < p->n_vars && !p->vars[v].persistable && !declared[v] &&
                    D.prod_op[v] < 0) {
                    declared[v] = true;
                    emit_var_node(&D, v, 0, ", style=dashed");
                }
            }
    }
    if (p->n_blocks > 0)
        emit_block(&D, 0, 0);
    for (int bi = 1; bi < p->n_blocks; bi++) /* blocks no control op owns */
        if (!D.emitted[bi]) {
            d2_buf_printf(&b, "  subgraph cluster_%d {\n    label=\"^%d (unattached)\";\n", bi, bi);
            emit_block(&D, bi, 1);
            d2_buf_puts(&b, "  }\n");
        }

    /* edges */
    char to[48];
    for (int bi = 0; bi < p->n_blocks; bi++) {
        const d2_block *blk = &p->blocks[bi];
        for (int i = 0; i < blk->n_ops; i++) {
            const d2_op *op = &blk->ops[i];
            snprintf(to, sizeof to, "op%d_%d", bi, i);
            for (int k = 0; k < op->n_in; k++)
                emit_use(&D, op->in[k], to);
            const d2_opdef *def = d2_op_def(op->id);
            for (int a = 0; a < op->attrs.n; a++) {
                if (op->attrs.v[a].type != D2_ATTR_BLOCK)
                    continue;
                int64_t sb = op->attrs.v[a].u.i;
                if (sb <= 0 || sb >= p->n_blocks)
                    continue;
                d2_buf_printf(&b, "  op%d_%d -> y%lld [lhead=cluster_%lld, style=dashed, "
                                  "label=\"%s\"];\n",
                              bi, i, (long long)sb, (long long)sb,
                              def && a < def->n_attrs ? def->attrs[a].name : "block");
            }
        }
        snprintf(to, sizeof to, "y%d", bi);
        for (int i = 0; i < blk->n_yields; i++)
            emit_use(&D, blk->yields[i], to);
    }
    d2_buf_puts(&b, "}\n");
done:
    d2_free(D.prod_block);
    d2_free(D.prod_op);
    d2_free(D.emitted);
    d2_free(declared);
    return d2_buf_take(&b);
}
