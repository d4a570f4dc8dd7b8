/* test_onnx.c - the ONNX exporter without Python: the mapping table covers the registry, the
 * files read back with protobuf-c hold what the Program says (inputs with symbolic dims,
 * initializers, If / Loop with their subgraphs, external data), opset checks, and every
 * allocation failure is an error, never a crash or a leak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_io.h"
#include "onnx/onnx_priv.h"
#include "../testutil.h"

#define MLP D2_SRCDIR "/samples/programs/mlp_loop.d2p"
#define COND D2_SRCDIR "/samples/programs/sign_cond.d2p"

static d2_program *open_program(const char *path)
{
    d2_err err = {0};
    d2_program *p = d2_model_open(path, &err);
    if (!p)
        fail_msg("%s: %s", path, err.msg);
    return p;
}

/* Reads an ONNX file back with protobuf-c. */
static Onnx__ModelProto *read_model(const char *path)
{
    size_t n = 0;
    char *data = d2_read_file(path, &n, NULL);
    assert_non_null(data);
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, n, (const uint8_t *)data);
    d2_free(data);
    assert_non_null(m);
    return m;
}

static const Onnx__NodeProto *find_node(const Onnx__GraphProto *g, const char *type)
{
    for (size_t i = 0; i < g->n_node; i++)
        if (strcmp(g->node[i]->op_type, type) == 0)
            return g->node[i];
    return NULL;
}

static const Onnx__GraphProto *graph_attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (strcmp(n->attribute[i]->name, name) == 0)
            return n->attribute[i]->g;
    return NULL;
}

static void test_every_op_has_a_row(void **state)
{
    (void)state;
    d2_err err = {0};
    assert_int_equal(d2_ops_init(&err), 0);
    int mapped = 0;
    for (int id = 0; id < D2_NUM_OPS; id++) {
        const ox_map *m = ox_map_find((d2_op_id)id);
        if (!m)
            fail_msg("op %s has no row in runtime/onnx/onnx_map.c", d2_op_def((d2_op_id)id)->name);
        if (!m->lower && !m->note)
            fail_msg("op %s has neither a lowering nor a reason", m->op);
        if (m->lower && (m->min_opset < D2_ONNX_OPSET_MIN || m->min_opset > D2_ONNX_OPSET_MAX))
            fail_msg("op %s: minimum opset %d out of range", m->op, m->min_opset);
        mapped += m->lower != NULL;
    }
    assert_true(mapped > D2_NUM_OPS / 2);
    assert_int_equal(d2_onnx_op_min_opset("add"), 13);
    assert_int_equal(d2_onnx_op_min_opset("tril_triu"), 13);
    assert_int_equal(d2_onnx_op_min_opset("put_along_axis"), 13);
    assert_int_equal(d2_onnx_op_min_opset("roll"), 13);
    assert_int_equal(d2_onnx_op_min_opset("cholesky"), 0);
    assert_int_equal(d2_onnx_op_min_opset("no_such_op"), 0);
}

static void test_loop_model(void **state)
{
    (void)state;
    char path[512];
    tu_tmp_path(path, sizeof path, "onnx", "loop.onnx");
    d2_program *p = open_program(MLP);
    d2_err err = {0};
    d2_onnx_options o = {0};
    assert_int_equal(d2_onnx_export(p, path, &o, &err), 0);
    Onnx__ModelProto *m = read_model(path);
    assert_int_equal(m->n_opset_import, 1);
    assert_int_equal(m->opset_import[0]->version, 13);
    const Onnx__GraphProto *g = m->graph;
    assert_int_equal(g->n_input, 1);
    assert_string_equal(g->input[0]->name, "x");
    const Onnx__TensorShapeProto *sh = g->input[0]->type->tensor_type->shape;
    assert_int_equal(sh->n_dim, 2);
    assert_int_equal(sh->dim[0]->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM);
    assert_string_equal(sh->dim[0]->dim_param, "x_d0");
    assert_int_equal(sh->dim[1]->dim_value, 4);
    assert_int_equal(g->n_output, 3);
    assert_string_equal(g->output[0]->name, "logits");
    assert_int_equal(g->n_initializer, 4);
    for (size_t i = 0; i < g->n_initializer; i++)
        assert_true(g->initializer[i]->has_raw_data);
    const Onnx__NodeProto *loop = find_node(g, "Loop");
    assert_non_null(loop);
    assert_string_equal(loop->input[0], ""); /* no trip count */
    const Onnx__GraphProto *body = graph_attr(loop, "body");
    assert_non_null(body);
    /* iteration number, condition, then the carried values; out: condition and values */
    assert_int_equal(body->n_input, 2 + (loop->n_input - 2));
    assert_int_equal(body->n_output, 1 + (loop->n_input - 2));
    onnx__model_proto__free_unpacked(m, NULL);
    unlink(path);

    /* external data: initializers point into PATH.data */
    o.external_data = true;
    o.opset = 21;
    assert_int_equal(d2_onnx_export(p, path, &o, &err), 0);
    char data_path[600];
    snprintf(data_path, sizeof data_path, "%s.data", path);
    struct stat st;
    assert_int_equal(stat(data_path, &st), 0);
    assert_true(st.st_size >= (4 * 8 + 8 + 8 * 3 + 3) * 4);
    m = read_model(path);
    assert_int_equal(m->opset_import[0]->version, 21);
    for (size_t i = 0; i < m->graph->n_initializer; i++) {
        const Onnx__TensorProto *t = m->graph->initializer[i];
        assert_int_equal(t->data_location, ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
        assert_false(t->has_raw_data);
        assert_int_equal(t->n_external_data, 3);
        assert_string_equal(t->external_data[0]->key, "location");
        assert_non_null(strstr(data_path, t->external_data[0]->value));
    }
    onnx__model_proto__free_unpacked(m, NULL);
    unlink(path);
    unlink(data_path);

    /* parameters over the size limit (2 GB by default; lowered here) go to external data
     * without being asked; under it they stay inline */
    o.external_data = false;
    o.external_threshold = 100;
    assert_int_equal(d2_onnx_export(p, path, &o, &err), 0);
    assert_int_equal(stat(data_path, &st), 0);
    m = read_model(path);
    assert_true(m->graph->n_initializer > 0);
    for (size_t i = 0; i < m->graph->n_initializer; i++)
        assert_int_equal(m->graph->initializer[i]->data_location,
                         ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
    onnx__model_proto__free_unpacked(m, NULL);
    unlink(path);
    unlink(data_path);
    o.external_threshold = 1 << 20;
    assert_int_equal(d2_onnx_export(p, path, &o, &err), 0);
    assert_int_not_equal(stat(data_path, &st), 0);
    m = read_model(path);
    for (size_t i = 0; i < m->graph->n_initializer; i++)
        assert_true(m->graph->initializer[i]->has_raw_data);
    onnx__model_proto__free_unpacked(m, NULL);
    unlink(path);
    d2_program_free(p);
}

static void test_cond_model(void **state)
{
    (void)state;
    char path[512];
    tu_tmp_path(path, sizeof path, "onnx", "cond.onnx");
    d2_program *p = open_program(COND);
    d2_err err = {0};
    assert_int_equal(d2_onnx_export(p, path, NULL, &err), 0);
    Onnx__ModelProto *m = read_model(path);
    const Onnx__NodeProto *n = find_node(m->graph, "If");
    assert_non_null(n);
    const Onnx__GraphProto *t = graph_attr(n, "then_branch"), *e = graph_attr(n, "else_branch");
    assert_non_null(t);
    assert_non_null(e);
    assert_int_equal(t->n_output, 1);
    assert_int_equal(e->n_output, 1);
    assert_int_equal(t->n_input, 0);
    assert_non_null(find_node(t, "Mul"));
    assert_string_equal(m->graph->output[0]->name, "y");
    onnx__model_proto__free_unpacked(m, NULL);
    unlink(path);
    d2_program_free(p);
}

static void test_errors(void **state)
{
    (void)state;
    char path[512];
    tu_tmp_path(path, sizeof path, "onnx", "err.onnx");
    d2_program *p = open_program(MLP);
    d2_err err = {0};
    d2_onnx_options o = {0};
    o.opset = 12;
    assert_int_equal(d2_onnx_export(p, path, &o, &err), -1);
    assert_non_null(strstr(err.msg, "opset 12 is not supported (supported: 13 to 21)"));
    d2_err_clear(&err);
    o.opset = 0;
    assert_int_equal(d2_onnx_export(p, "/nonexistent-dir/x.onnx", &o, &err), -1);
    assert_int_equal(err.code, D2_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x.onnx: cannot create"));
    d2_program_free(p);

    /* an op that needs a newer opset; the same with auto_opset raises the opset */
    p = open_program(D2_SRCDIR "/tests/onnx/needs_opset16.d2p");
    d2_err_clear(&err);
    assert_int_equal(d2_onnx_export(p, path, NULL, &err), -1);
    assert_int_equal(err.code, D2_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "line 12:9: op put_along_axis: needs ONNX opset 16"));
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
    o.auto_opset = true;
    assert_int_equal(d2_onnx_export(p, path, &o, &err), 0);
    Onnx__ModelProto *m = read_model(path);
    assert_int_equal(m->opset_import[0]->version, 16);
    onnx__model_proto__free_unpacked(m, NULL);
    unlink(path);
    d2_program_free(p);

    p = open_program(D2_SRCDIR "/tests/onnx/no_mapping.d2p");
    d2_err_clear(&err);
    assert_int_equal(d2_onnx_export(p, path, &o, &err), -1);
    assert_non_null(strstr(err.msg, "line 7:13: op cholesky: no ONNX mapping"));
    d2_program_free(p);
}

static void test_oom(void **state)
{
    (void)state;
    char path[512];
    tu_tmp_path(path, sizeof path, "onnx", "oom.onnx");
    d2_program *p = open_program(MLP);
    bool done = false;
    for (long k = 0; !done && k < 100000; k++) {
        d2_err err = {0};
        d2_alloc_fail_after(k);
        int rc = d2_onnx_export(p, path, NULL, &err);
        d2_alloc_fail_after(-1);
        if (rc == 0)
            done = true;
        else
            assert_int_equal(err.code, D2_ERR_NOMEM);
    }
    assert_true(done);
    unlink(path);
    d2_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_has_a_row),
        cmocka_unit_test(test_loop_model),
        cmocka_unit_test(test_cond_model),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_oom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
