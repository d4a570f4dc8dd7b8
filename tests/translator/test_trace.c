/* test_trace.c - trace mode: every sample traced on the oracle's inputs gives Paddle's eager
 * outputs; TracedLayer calls, parameter sharing, strategies, pruned saving; the to_static
 * fallback cache; and the errors (non-Layers, bad inputs, bad indices, no fallback). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu/dnnl.h"
#include "cpu/gemm.h"
#include "exec.h"
#include "interp/interp.h"
#include "lib/paddle/jit.h"
#include "model_io.h"
#include "npy.h"
#include "../testutil.h"

/* ---- helpers ---- */

/* Runs src and returns what it printed, then the rendered diagnostics
 * (warnings included) (malloc'd); *rc gets the status. */
static char *run_opts(const char *src, bool no_fallback, int *rc)
{
    d2_interp_options opt;
    memset(&opt, 0, sizeof opt);
    opt.no_fallback = no_fallback;
    return tu_run_source(&opt, "model.py", src, true, rc);
}

static char *run(const char *src, int *rc) { return run_opts(src, false, rc); }

static void expect_ok(const char *src, const char *want)
{
    int rc;
    char *got = run(src, &rc);
    if (rc < 0 || strcmp(got, want) != 0)
        fprintf(stderr, "--- script:\n%s--- got:\n%s--- want:\n%s", src, got, want);
    assert_int_equal(rc, 0);
    assert_string_equal(got, want);
    free(got);
}

static void expect_error(const char *src, const char *needle)
{
    int rc;
    char *got = run(src, &rc);
    if (rc == 0 || !strstr(got, needle))
        fprintf(stderr, "--- script:\n%s--- got:\n%s--- want: %s\n", src, got, needle);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(got, needle));
    free(got);
}

/* ---- the samples, traced on the oracle's inputs ---- */

/* Whether an output of block 0 is computed from a feed (not a constant:
 * greedy_decoder's step count, frozen by tracing, is one). */
static bool outputs_use_feeds(const d2_program *p)
{
    const d2_block *b = &p->blocks[0];
    bool ok = false;
    for (int y = 0; y < b->n_yields && !ok; y++) {
        bool *need = calloc((size_t)p->n_vars, sizeof *need);
        need[b->yields[y]] = true;
        for (int o = b->n_ops - 1; o >= 0; o--) {
            bool k = false;
            for (int j = 0; j < b->ops[o].n_out; j++)
                k |= b->ops[o].out[j] >= 0 && need[b->ops[o].out[j]];
            for (int j = 0; k && j < b->ops[o].n_in; j++)
                if (b->ops[o].in[j] >= 0)
                    need[b->ops[o].in[j]] = true;
        }
        bool fed = false;
        for (int i = 0; i < b->n_params; i++)
            fed |= need[b->params[i]];
        ok = fed;
        free(need);
    }
    return ok;
}

/* For each input set of the oracle: the sample with Paddle's weights is
 * traced on the set's inputs, and the traced Program run on them must give
 * Paddle's eager outputs (tolerances from the oracle's json); the traced
 * Program must compute its outputs from the inputs. */
static void trace_sample(const char *sample)
{
    char py[1024], npz[1024], json[1024], cwd[1024];
    snprintf(py, sizeof py, "%s/samples/%s.py", D2_SRCDIR, sample);
    snprintf(npz, sizeof npz, "%s/tests/oracle/expected/%s.npz", D2_SRCDIR, sample);
    snprintf(json, sizeof json, "%s/tests/oracle/expected/%s.json", D2_SRCDIR, sample);
    char *meta = tu_read_file(json, NULL);
    assert_non_null(meta);
    double rtol = tu_json_number(meta, "rtol"), atol = tu_json_number(meta, "atol");
    tu_arrays a = {0};
    d2_err err = {0};
    assert_int_equal(d2_npz_load(npz, tu_keep_array, &a, &err), 0);
    static const char *const sets[] = {"example", "other"};
    int ran = 0;
    for (int s = 0; s < 2; s++) {
        char name[128];
        int n_in = 0;
        tu_enter_scratch("trace", cwd, sizeof cwd);
        for (;; n_in++) {
            snprintf(name, sizeof name, "%s/input%d", sets[s], n_in);
            d2_tensor *t = tu_find_array(&a, name);
            if (!t)
                break;
            char f[64];
            snprintf(f, sizeof f, "in%d.npy", n_in);
            assert_int_equal(d2_npy_save(t, f, &err), 0);
        }
        if (n_in == 0) {
            tu_leave_scratch(cwd);
            continue;
        }
        char src[4096];
        snprintf(src, sizeof src,
                 "import _jst\nimport numpy as np\nimport paddle\n"
                 "_m = _jst._load_file('%s')\n_t = _jst._resolve(_m, None)\n"
                 "_jst._load_params(_t, '%s')\n"
                 "xs = [paddle.to_tensor(np.load('in%%d.npy' %% i)) for i in range(%d)]\n"
                 "out, tl = paddle.jit.TracedLayer.trace(_t, inputs=xs)\n"
                 "r = tl(xs)\n"
                 "tl.save_inference_model('traced')\n"
                 "for k, v in enumerate(r):\n    np.save('out%%d.npy' %% k, v)\n"
                 "print(len(r))\n",
                 py, npz, n_in);
        int rc;
        char *out = run(src, &rc);
        if (rc < 0)
            fprintf(stderr, "%s/%s: %s\n", sample, sets[s], out);
        assert_int_equal(rc, 0);
        int n_out = atoi(out);
        free(out);
        assert_true(n_out > 0);
        for (int k = 0; k < n_out; k++) {
            snprintf(name, sizeof name, "%s/eager%d", sets[s], k);
            d2_tensor *want = tu_find_array(&a, name);
            assert_non_null(want);
            char f[64], what[256];
            snprintf(f, sizeof f, "out%d.npy", k);
            d2_tensor *got = d2_npy_load(f, &err);
            assert_non_null(got);
            snprintf(what, sizeof what, "%s/%s traced output %d", sample, sets[s], k);
            tu_expect_close(what, got, want, rtol, atol, "Paddle's eager run");
            d2_tensor_unref(got);
        }
        d2_program *p = d2_model_load("traced.dy2st", &err);
        assert_non_null(p);
        assert_true(p->blocks[0].n_ops > 0);
        assert_true(outputs_use_feeds(p));
        d2_program_free(p);
        tu_leave_scratch(cwd);
        ran++;
    }
    assert_true(ran > 0);
    tu_free_arrays(&a);
    free(meta);
}

#define SAMPLE(name)                                                                               \
    static void test_sample_##name(void **state)                                                   \
    {                                                                                              \
        (void)state;                                                                               \
        trace_sample(#name);                                                                       \
    }
SAMPLE(simple_fc)
SAMPLE(mnist_cnn)
SAMPLE(lenet_branch)
SAMPLE(char_rnn)
SAMPLE(greedy_decoder)
SAMPLE(lstm_cell)
SAMPLE(lstm_tagger)
SAMPLE(unet_small)
SAMPLE(resnet18)
SAMPLE(mobilenetv3_small)
SAMPLE(transformer_beam)
SAMPLE(resnet_small)
SAMPLE(transformer_encoder)

/* ---- TracedLayer ---- */

#define NET                                                                                        \
    "import numpy as np\nimport paddle\n"                                                          \
    "class Net(paddle.nn.Layer):\n"                                                                \
    "    def __init__(self):\n"                                                                    \
    "        super().__init__()\n"                                                                 \
    "        self.fc = paddle.nn.Linear(2, 2)\n"                                                   \
    "        self.fc.weight.set_value(np.array([[1., 2.], [3., 4.]], 'float32'))\n"                \
    "        self.fc.bias.set_value(np.array([0.5, -0.5], 'float32'))\n"                           \
    "    def forward(self, x, y):\n"                                                               \
    "        return self.fc(x), [y * 2.0, x + y]\n"                                                \
    "net = Net()\n"                                                                                \
    "x = paddle.to_tensor(np.array([[1., 1.]], 'float32'))\n"                                      \
    "y = paddle.to_tensor(np.array([[2., 3.]], 'float32'))\n"                                      \
    "out, tl = paddle.jit.TracedLayer.trace(net, inputs=[x, y])\n"

static void test_traced_layer(void **state)
{
    (void)state;
    /* outputs are flattened; calls return numpy arrays; parameters are shared */
    expect_ok(NET "print(type(out).__name__, len(out), out[0].numpy().tolist())\n"
                  "r = tl([x, y])\n"
                  "print(len(r), type(r[0]).__name__, [v.tolist() for v in r])\n"
                  "net.fc.weight.set_value(np.zeros([2, 2], 'float32'))\n"
                  "print(tl([x, y])[0].tolist())\n"
                  "print(tl((x * 0.0, y))[2].tolist())\n"
                  "print(tl)\n",
              "tuple 2 [[4.5, 5.5]]\n"
              "3 ndarray [[[4.5, 5.5]], [[4.0, 6.0]], [[3.0, 4.0]]]\n"
              "[[0.5, -0.5]]\n"
              "[[2.0, 3.0]]\n"
              "<TracedLayer: 2 inputs, 3 outputs, 3 ops>\n");
    /* strategies: every attribute settable, checked types */
    expect_ok("import paddle\nfrom paddle.fluid.dygraph import TracedLayer\n"
              "from paddle.fluid.dygraph.jit import TracedLayer as T2\n"
              "b = paddle.static.BuildStrategy()\ne = paddle.static.ExecutionStrategy()\n"
              "print(TracedLayer is T2, b.enable_inplace, b.memory_optimize, e.num_threads,\n"
              "      e.num_iteration_per_drop_scope)\n"
              "b.fuse_elewise_add_act_ops = True\nb.memory_optimize = False\n"
              "b.reduce_strategy = paddle.static.BuildStrategy.ReduceStrategy.Reduce\n"
              "b.debug_graphviz_path = 'g'\ne.num_threads = 4\ne.use_thread_barrier = True\n"
              "print(b.fuse_elewise_add_act_ops, b.memory_optimize, b.reduce_strategy,\n"
              "      e.num_threads)\n"
              "for obj, k, v in [(b, 'enable_inplace', 'yes'), (e, 'num_threads', 1.5),\n"
              "                  (b, 'debug_graphviz_path', 3)]:\n"
              "    try:\n        setattr(obj, k, v)\n"
              "    except TypeError as ex:\n        print('TypeError', ex)\n"
              "try:\n    b.no_such_flag = True\nexcept AttributeError as ex:\n    print(ex)\n",
              "True True None 0 100\n"
              "True False 1 4\n"
              "TypeError BuildStrategy.enable_inplace must be bool, got str\n"
              "TypeError ExecutionStrategy.num_threads must be int, got float\n"
              "TypeError BuildStrategy.debug_graphviz_path must be str, got int\n"
              "'BuildStrategy' object has no attribute 'no_such_flag'\n");
    expect_ok(NET "tl.set_strategy(build_strategy=paddle.static.BuildStrategy(),\n"
                  "                exec_strategy=paddle.static.ExecutionStrategy())\n"
                  "tl.set_strategy()\n"
                  "for kw in [{'build_strategy': 1},\n"
                  "           {'exec_strategy': paddle.static.BuildStrategy()}]:\n"
                  "    try:\n        tl.set_strategy(**kw)\n"
                  "    except TypeError as ex:\n        print(ex)\n"
                  "tl([x, y])\n"
                  "try:\n    tl.set_strategy()\nexcept AssertionError as ex:\n    print(ex)\n",
              "TracedLayer.set_strategy: build_strategy must be a paddle.static.BuildStrategy, got "
              "int\n"
              "TracedLayer.set_strategy: exec_strategy must be a "
              "paddle.static.ExecutionStrategy, got BuildStrategy\n"
              "TracedLayer.set_strategy: cannot set the strategy after the traced layer has run\n");
}

/* exec_strategy.num_threads: the traced program's convolutions run on that many threads, and
 * the default comes back after the run */
static void test_strategy_threads(void **state)
{
    (void)state;
    if (!d2_dnnl_available())
        skip();
    d2_dnnl_set_mode(D2_DNNL_ALWAYS);
    int base = d2_gemm_threads();
    expect_ok("import paddle\n"
              "class C(paddle.nn.Layer):\n"
              "    def __init__(self):\n"
              "        super().__init__()\n"
              "        self.conv = paddle.nn.Conv2D(4, 8, 3, padding=1)\n"
              "    def forward(self, x):\n"
              "        return self.conv(x)\n"
              "x = paddle.ones([1, 4, 6, 6])\n"
              "_, tl = paddle.jit.TracedLayer.trace(C(), inputs=[x])\n"
              "es = paddle.static.ExecutionStrategy()\n"
              "es.num_threads = 3\n"
              "tl.set_strategy(exec_strategy=es)\n"
              "print(tl([x])[0].shape)\n",
              "(1, 8, 6, 6)\n");
    assert_int_equal(d2_dnnl_last_threads(), 3);
    assert_int_equal(d2_gemm_threads(), base);
    /* a data-parallel CompiledProgram shares the threads out among its replicas: replica 0
     * runs on this thread with 4 / 2 */
    expect_ok("import numpy as np\nimport paddle\npaddle.enable_static()\n"
              "main, start = paddle.static.Program(), paddle.static.Program()\n"
              "with paddle.static.program_guard(main, start):\n"
              "    x = paddle.static.data('x', [-1, 4, 6, 6], 'float32')\n"
              "    y = paddle.nn.Conv2D(4, 8, 3, padding=1)(x)\n"
              "exe = paddle.static.Executor(paddle.CPUPlace())\n"
              "exe.run(start)\n"
              "es = paddle.static.ExecutionStrategy()\n"
              "es.num_threads = 4\n"
              "cp = paddle.static.CompiledProgram(main).with_data_parallel(\n"
              "    exec_strategy=es, places=[paddle.CPUPlace(), paddle.CPUPlace()])\n"
              "out, = exe.run(cp, feed={'x': np.ones([2, 4, 6, 6], 'float32')}, "
              "fetch_list=[y])\n"
              "print(out.shape)\n",
              "(2, 8, 6, 6)\n");
    assert_int_equal(d2_dnnl_last_threads(), 2);
    assert_int_equal(d2_gemm_threads(), base);
    expect_error(NET "es = paddle.static.ExecutionStrategy()\nes.num_threads = 5000\n"
                     "tl.set_strategy(exec_strategy=es)\n",
                 "exec_strategy.num_threads must be 0 (the default) to 4096, got 5000");
    d2_dnnl_set_mode(D2_DNNL_AUTO);
}

/* save_inference_model: where it writes, and the pruned Program */
static void test_save_inference_model(void **state)
{
    (void)state;
    char cwd[1024];
    tu_enter_scratch("trace", cwd, sizeof cwd);
    assert_int_equal(mkdir("dir", 0777), 0);
    expect_ok(NET "import os\n"
                  "tl.save_inference_model('m')\n"
                  "tl.save_inference_model('m2.dy2st', feed=[1], fetch=[1])\n"
                  "tl.save_inference_model('dir', fetch=[2, 0])\n"
                  "tl.save_inference_model('newdir/', feed=[0], fetch=[0])\n"
                  "print([os.path.exists(f) for f in ['m.dy2st', 'm2.dy2st', 'm2.dy2st.dy2st',\n"
                  "       'dir/model.dy2st', 'dir.dy2st', 'newdir/model.dy2st']])\n",
              "[True, True, False, True, False, True]\n");
    d2_err err = {0};
    d2_program *p = d2_model_load("m2.dy2st", &err);
    assert_non_null(p);
    /* only y feeds it, and no Layer parameter: y * 2 */
    assert_int_equal(p->blocks[0].n_params, 1);
    assert_int_equal(p->blocks[0].n_yields, 1);
    assert_int_equal(p->blocks[0].n_ops, 1);
    for (int v = 0; v < p->n_vars; v++)
        assert_false(p->vars[v].persistable && p->vars[v].type.shape.ndim > 0 &&
                     p->vars[v].type.shape.dims[0] == 2);
    d2_program_free(p);
    p = d2_model_load("dir/model.dy2st", &err);
    assert_non_null(p);
    assert_int_equal(p->blocks[0].n_params, 2);
    assert_int_equal(p->blocks[0].n_yields, 2);
    d2_program_free(p);
    p = d2_model_load("newdir/model.dy2st", &err);
    assert_non_null(p);
    assert_int_equal(p->blocks[0].n_params, 1);
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    assert_non_null(pp);
    float xv[2] = {1.0f, 1.0f};
    int64_t shape[2] = {1, 2};
    d2_tensor *in = d2_tensor_from_data(D2_F32, 2, shape, xv, &err), *o = NULL;
    assert_int_equal(d2_exec_run(pp, &in, 1, &o, 1, &err), 0);
    assert_true(fabs(d2_tensor_get_f64(o, 0) - 4.5) < 1e-6);
    assert_true(fabs(d2_tensor_get_f64(o, 1) - 5.5) < 1e-6);
    d2_tensor_unref(in);
    d2_tensor_unref(o);
    d2_exec_free(pp);
    d2_program_free(p);
    tu_leave_scratch(cwd);
}

/* ---- errors ---- */

static void test_errors(void **state)
{
    (void)state;
    expect_error("import paddle\ndef f(x):\n    return x\n"
                 "paddle.jit.TracedLayer.trace(f, inputs=[paddle.ones([1])])\n",
                 "model.py:4:1: error: TypeError: TracedLayer.trace: the first argument must be a "
                 "paddle.nn.Layer, got function");
    expect_error("import paddle\nnet = paddle.nn.Linear(2, 2)\n"
                 "paddle.jit.TracedLayer.trace(net, inputs=[1.0])\n",
                 "TypeError: TracedLayer.trace: inputs[0] must be a Tensor, got float");
    expect_error("import numpy as np\nimport paddle\nnet = paddle.nn.Linear(2, 2)\n"
                 "paddle.jit.TracedLayer.trace(net, inputs=[np.ones([1, 2], 'float32')])\n",
                 "TypeError: TracedLayer.trace: inputs[0] must be a Tensor, got ndarray");
    expect_error("import paddle\nnet = paddle.nn.Linear(2, 2)\n"
                 "paddle.jit.TracedLayer.trace(net, inputs={'x': 1})\n",
                 "TypeError: TracedLayer.trace: inputs must be a Tensor or a list/tuple of "
                 "Tensors, got dict");
    expect_error("import paddle\nclass N(paddle.nn.Layer):\n"
                 "    def forward(self, x):\n        return x.shape\n"
                 "paddle.jit.TracedLayer.trace(N(), inputs=[paddle.ones([1])])\n",
                 "TypeError: TracedLayer: the outputs of the traced layer must be Tensors or "
                 "lists/tuples of Tensors, got int");
    expect_error(NET "tl([x])\n",
                 "ValueError: TracedLayer.__call__: the layer was traced with 2 inputs, got 1");
    expect_error(NET "tl([x, paddle.ones([3, 2])])\n",
                 "ValueError: TracedLayer.__call__: inputs[1] is float32[3,2] but the layer was "
                 "traced with float32[1,2]");
    expect_error(NET "tl([x, 'y'])\n",
                 "TypeError: TracedLayer.__call__: inputs[1] must be a Tensor, got str");
    expect_error(NET "tl.save_inference_model('m', feed=[2])\n",
                 "IndexError: TracedLayer.save_inference_model: feed index 2 is out of range (the "
                 "traced layer has 2 inputs)");
    expect_error(NET "tl.save_inference_model('m', fetch=[0, -1])\n",
                 "IndexError: TracedLayer.save_inference_model: fetch index -1 is out of range "
                 "(the traced layer has 3 outputs)");
    expect_error(NET "tl.save_inference_model('m', fetch=['a'])\n",
                 "TypeError: TracedLayer.save_inference_model: fetch[0] must be an int, got str");
    expect_error(NET "tl.save_inference_model('m', feed=0)\n",
                 "TypeError: TracedLayer.save_inference_model: feed must be a list of int indices, "
                 "got int");
    expect_error(NET "tl.save_inference_model('m', feed=[1], fetch=[0])\n",
                 "ValueError: TracedLayer.save_inference_model: the fetched outputs depend on "
                 "input 0 ('input_0'), which is not in feed");
    expect_error(NET "tl.save_inference_model('m', feed=[0, 0])\n",
                 "ValueError: TracedLayer.save_inference_model: feed index 0 is given twice");
    /* with the API flag, unsupported syntax is an error instead of a trace */
    int rc;
    char *got = run_opts("import paddle\n@paddle.jit.to_static\ndef f(x):\n"
                         "    try:\n        y = x + 1\n    except ValueError:\n        y = x\n"
                         "    return y\nf(paddle.ones([2]))\n",
                         true, &rc);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(got, "model.py:4:5: error: 'try' statement cannot be converted; f() "
                                "cannot be converted to a static program (with --no-fallback it "
                                "is not traced instead)"));
    free(got);
}

/* ---- the to_static fallback ---- */

static void test_fallback(void **state)
{
    (void)state;
    /* traced once per signature, frozen branch, warnings once per place */
    int rc;
    char *got = run("import _jst\nimport numpy as np\nimport paddle\n"
                    "@paddle.jit.to_static\ndef f(x):\n"
                    "    try:\n        y = x * 2.0\n    except ValueError:\n        y = x\n"
                    "    if y.sum() > 0:\n        y = y + 10.0\n    return y\n"
                    "a = paddle.to_tensor(np.array([1., 2.], 'float32'))\n"
                    "print(f(a).numpy().tolist(), f(-a).numpy().tolist(), _jst._cache_size(f))\n"
                    "print(f(paddle.ones([3])).numpy().tolist(), _jst._cache_size(f))\n",
                    &rc);
    assert_int_equal(rc, 0);
    const char *want = "[12.0, 14.0] [8.0, 6.0] 1\n[12.0, 12.0, 12.0] 2\n"
                       "model.py:6:5: warning: 'try' statement cannot be converted; f() is traced "
                       "instead and its data-dependent branches are frozen\n";
    if (strncmp(got, want, strlen(want)) != 0)
        fprintf(stderr, "got:\n%s", got);
    assert_true(strncmp(got, want, strlen(want)) == 0);
    assert_non_null(strstr(got, "model.py:10:8: warning: converting a traced tensor to a Python "
                                "bool freezes this branch"));
    free(got);
    /* the fallback under paddle.jit.save traces example inputs built from the InputSpec; the
     * -1 dim stays dynamic in the saved model */
    char cwd[1024];
    tu_enter_scratch("trace", cwd, sizeof cwd);
    expect_ok("import numpy as np\nimport paddle\n"
              "class N(paddle.nn.Layer):\n"
              "    def __init__(self):\n        super().__init__()\n"
              "        self.fc = paddle.nn.Linear(3, 2)\n"
              "    @paddle.jit.to_static\n    def forward(self, x):\n"
              "        try:\n            return self.fc(x) * 2.0\n"
              "        except ValueError:\n            return x\n"
              "n = N()\n"
              "spec = [paddle.static.InputSpec([None, 3], 'float32')]\n"
              "paddle.jit.save(n, 'm', input_spec=spec)\n"
              "m = paddle.jit.load('m')\n"
              "x = paddle.to_tensor(np.arange(12, dtype='float32').reshape(4, 3))\n"
              "paddle.jit.enable_to_static(False)\n"
              "print(np.allclose(m(x).numpy(), n(x).numpy()), m(x).shape)\n",
              "True [4, 2]\n"
              "model.py:9:9: warning: 'try' statement cannot be converted; forward() is traced "
              "instead and its data-dependent branches are frozen\n"
              "        try:\n        ^~~\n");
    tu_leave_scratch(cwd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traced_layer),
        cmocka_unit_test(test_strategy_threads),
        cmocka_unit_test(test_save_inference_model),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_sample_simple_fc),
        cmocka_unit_test(test_sample_mnist_cnn),
        cmocka_unit_test(test_sample_lenet_branch),
        cmocka_unit_test(test_sample_char_rnn),
        cmocka_unit_test(test_sample_greedy_decoder),
        cmocka_unit_test(test_sample_lstm_cell),
        cmocka_unit_test(test_sample_lstm_tagger),
        cmocka_unit_test(test_sample_unet_small),
        cmocka_unit_test(test_sample_resnet18),
        cmocka_unit_test(test_sample_mobilenetv3_small),
        cmocka_unit_test(test_sample_transformer_beam),
        cmocka_unit_test(test_sample_resnet_small),
        cmocka_unit_test(test_sample_transformer_encoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
