/* test_autograd.c - dygraph autograd: golden scripts from real Paddle, the tape's lifetime. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/interp.h"
#include "lib/paddle/paddle_priv.h"
#include "../testutil.h"

#define GOLDEN(name)                                                                               \
    static void test_golden_##name(void **state)                                                   \
    {                                                                                              \
        (void)state;                                                                               \
        tu_run_paddle_golden(#name);                                                                         \
    }
GOLDEN(autograd_basic)
GOLDEN(autograd_clear)
GOLDEN(autograd_grad)
GOLDEN(autograd_hooks)
GOLDEN(autograd_errors)
GOLDEN(autograd_train)
GOLDEN(bn_train)
GOLDEN(dropout_train)
GOLDEN(jit_train)
GOLDEN(jit_train_list)
GOLDEN(jit_train_arrays)
GOLDEN(jit_double_grad)

/* Resident memory in KiB (Linux), 0 when unknown. */
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &res) != 2)
        res = 0;
    fclose(f);
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Calls __main__.name() n times; fails the test on an exception. */
static void call_main(d2_interp *I, const char *name, int n)
{
    d2_obj *main = d2_dict_get_str(I, I->modules, "__main__");
    assert_non_null(main);
    d2_obj *fn = d2_getattr(I, main, name);
    assert_non_null(fn);
    for (int k = 0; k < n; k++) {
        d2_obj *r = d2_call(I, fn, NULL, 0, NULL);
        if (!r)
            fail_msg("%s raised %s", name, tu_exc_message(I));
        d2_decref(r);
    }
    d2_decref(fn);
}

/* 2,000 training steps (forward, backward, update, clear) leave no object
 * and no memory behind: every step's tape is freed with its tensors. */
static void test_tape_memory_flat(void **state)
{
    (void)state;
    d2_interp *I = tu_new_paddle_interp(NULL);
    static const char src[] =
        "import paddle\n"
        "paddle.seed(1)\n"
        "net = paddle.nn.Sequential(paddle.nn.Linear(8, 16), paddle.nn.Tanh(),\n"
        "                           paddle.nn.Linear(16, 1))\n"
        "x = paddle.rand([32, 8])\n"
        "t = paddle.rand([32, 1])\n"
        "def step():\n"
        "    loss = ((net(x) - t) ** 2).mean()\n"
        "    loss.backward()\n"
        "    with paddle.no_grad():\n"
        "        for p in net.parameters():\n"
        "            p.set_value(p - 0.01 * p.grad)\n"
        "    net.clear_gradients()\n"
        "    # double grad and hooks on the way\n"
        "    w = net[0].weight\n"
        "    h = w.register_hook(lambda g: g * 0.5)\n"
        "    (g,) = paddle.grad([(net(x) ** 2).sum()], [w], create_graph=True)\n"
        "    (g * g).sum().backward()\n"
        "    h.remove()\n"
        "    net.clear_gradients(set_to_zero=False)\n"
        "    return loss\n";
    assert_int_equal(d2_interp_run_source(I, "train.py", src, sizeof src - 1), 0);
    call_main(I, "step", 200);
    size_t objs = d2_interp_live_objects(I);
    long rss = rss_kib();
    call_main(I, "step", 1800);
    size_t objs2 = d2_interp_live_objects(I);
    long rss2 = rss_kib();
    assert_int_equal(objs2, objs);
    /* a leak of one step's tape would be megabytes by now (AddressSanitizer
     * keeps freed memory in quarantine: only the objects count there) */
#ifndef __SANITIZE_ADDRESS__
    if (rss && rss2)
        assert_true(rss2 - rss < 4096);
#else
    (void)rss;
    (void)rss2;
#endif
    d2_interp_free(I);
}

/* Every allocation failure inside forward, backward, double grad and hooks
 * is an exception, and the interpreter and its tape stay usable. */
static void test_allocation_failures(void **state)
{
    (void)state;
    d2_interp *I = tu_new_paddle_interp(NULL);
    static const char src[] =
        "import paddle\n"
        "w = paddle.to_tensor([[0.5, -1.0], [2.0, 0.25]], stop_gradient=False)\n"
        "x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])\n"
        "def step():\n"
        "    m = paddle.matmul(x, w)\n"
        "    h = m.register_hook(lambda g: g * 2.0)\n"
        "    y = paddle.tanh(m) * w\n"
        "    y.retain_grads()\n"
        "    (g,) = paddle.grad([y.sum()], [w], create_graph=True)\n"
        "    (g * g + y).sum().backward()\n"
        "    h.remove()\n"
        "    w.clear_grad()\n"
        "    return float(y.grad.sum())\n";
    assert_int_equal(d2_interp_run_source(I, "oom.py", src, sizeof src - 1), 0);
    d2_obj *main = d2_dict_get_str(I, I->modules, "__main__");
    d2_obj *step = d2_getattr(I, main, "step");
    assert_non_null(step);
    int failures = 0;
    for (long k = 0; k < 100000; k++) {
        d2_alloc_fail_after(k);
        d2_obj *r = d2_call(I, step, NULL, 0, NULL);
        d2_alloc_fail_after(-1);
        if (r) {
            d2_decref(r);
            break;
        }
        assert_true(d2_exc_pending(I));
        d2_exc_clear(I);
        failures++;
    }
    assert_true(failures > 100);
    d2_obj *r = d2_call(I, step, NULL, 0, NULL);
    if (!r)
        fail_msg("step after the failures: %s", tu_exc_message(I));
    d2_decref(r);
    d2_decref(step);
    d2_interp_free(I);
}

/* A custom node (what a to_static Program run is on the tape): y = 3 x with
 * a backward in C; its state goes with the node. */
static int custom_finis;

static void custom_fini(void *ctx)
{
    (void)ctx;
    custom_finis++;
}

static int custom_backward(d2_interp *I, d2_gnode *n, d2_obj **dout, const bool *need,
                           d2_obj **din, bool create_graph)
{
    (void)n;
    (void)create_graph;
    if (!need[0] || !dout[0])
        return 0;
    d2_ab b;
    d2_ab_init(&b, D2_OP_scale);
    d2_ab_float(&b, "scale", 3.0);
    int rc = d2_apply_op(I, D2_OP_scale, &dout[0], 1, &b.a, &din[0], 1);
    d2_ab_free(&b);
    return rc;
}

static void test_custom_node(void **state)
{
    (void)state;
    static const d2_gnode_vt vt = {"Triple", custom_backward, custom_fini};
    FILE *out = tmpfile();
    d2_interp *I = tu_new_paddle_interp(out);
    static const char src[] = "import paddle\n"
                              "x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)\n";
    assert_int_equal(d2_interp_run_source(I, "c.py", src, sizeof src - 1), 0);
    d2_obj *main = d2_dict_get_str(I, I->modules, "__main__");
    d2_obj *x = d2_getattr(I, main, "x");
    assert_non_null(x);
    /* the forward runs off the tape, then the node is recorded by hand */
    d2_obj *xd = d2_tensor_wrap(I, D2_AS(d2_tensor_obj, x)->t);
    d2_ab b;
    d2_ab_init(&b, D2_OP_scale);
    d2_ab_float(&b, "scale", 3.0);
    d2_obj *y = NULL;
    assert_int_equal(d2_apply_op(I, D2_OP_scale, &xd, 1, &b.a, &y, 1), 0);
    d2_ab_free(&b);
    custom_finis = 0;
    assert_int_equal(d2_pd_tape_custom(I, &x, 1, &y, 1, &vt, NULL), 0);
    assert_false(D2_AS(d2_tensor_obj, y)->stop_gradient);
    /* a new script gets a new __main__: hand x and y over in paddle's dict */
    d2_obj *pd = d2_dict_get_str(I, I->modules, "paddle");
    d2_dict *pdd = D2_AS(d2_module, pd)->dict;
    assert_int_equal(d2_dict_set_str(I, pdd, "_test_y", y), 0);
    assert_int_equal(d2_dict_set_str(I, pdd, "_test_x", x), 0);
    d2_decref(y);
    static const char use[] =
        "import paddle\n"
        "x, y = paddle._test_x, paddle._test_y\n"
        "(g,) = paddle.grad([(y * y).sum()], [x], create_graph=True)\n"
        "print(g.numpy().tolist(), g.stop_gradient)\n"
        "(y * y).sum().backward()\n"
        "print(x.grad.numpy().tolist())\n"
        "try:\n"
        "    (y * 2.0).sum().backward()\n"
        "except SystemError as e:\n"
        "    print(str(e).split('\\n')[0])\n"
        "del y, g\n";
    int rc = d2_interp_run_source(I, "c.py", use, sizeof use - 1);
    if (rc < 0) {
        d2_buf db;
        d2_buf_init(&db);
        d2_diag_render(&I->diag, &db);
        fprintf(stderr, "%s\n", db.data ? db.data : "");
        d2_buf_free(&db);
    }
    assert_int_equal(rc, 0);
    d2_obj *k = d2_str_from(I, "_test_y");
    assert_int_equal(d2_dict_del(I, pdd, k), 0);
    d2_decref(k);
    assert_int_equal(custom_finis, 1);
    /* with gradients off nothing is taped and the state goes at once */
    d2_obj *y2 = NULL;
    assert_int_equal(d2_apply_op(I, D2_OP_assign, &xd, 1, NULL, &y2, 1), 0);
    pd_state *st = ST(I);
    st->no_grad++;
    assert_int_equal(d2_pd_tape_custom(I, &x, 1, &y2, 1, &vt, NULL), 0);
    st->no_grad--;
    assert_int_equal(custom_finis, 2);
    assert_true(D2_AS(d2_tensor_obj, y2)->stop_gradient);
    d2_decref(y2);
    d2_decref(xd);
    d2_decref(x);
    d2_interp_free(I);
    char *got = tu_slurp(out);
    fclose(out);
    assert_string_equal(got, "[18.0, 36.0] False\n[18.0, 36.0]\n"
                             "(Fatal) The TensorWrappers of TripleGradNode do not exist. This "
                             "may be because:\n");
    free(got);
}

/* Symbolic tensors are never taped; the tape of eager tensors does not
 * leak into to_static Programs and tracing still works. */
static void test_static_not_taped(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    d2_interp *I = tu_new_paddle_interp(out);
    static const char src[] =
        "import paddle\n"
        "class Net(paddle.nn.Layer):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = paddle.nn.Linear(3, 2)\n"
        "    @paddle.jit.to_static\n"
        "    def forward(self, x):\n"
        "        return paddle.tanh(self.fc(x))\n"
        "net = Net()\n"
        "x = paddle.to_tensor([[1.0, 2.0, 3.0]])\n"
        "y = net(x)\n"
        "print(y.shape, net.fc.weight.grad)\n"
        "e = net.fc(x)\n"
        "print(e.stop_gradient, e.is_leaf)\n";
    int rc = d2_interp_run_source(I, "s.py", src, sizeof src - 1);
    if (rc < 0) {
        d2_buf b;
        d2_buf_init(&b);
        d2_diag_render(&I->diag, &b);
        fprintf(stderr, "%s\n", b.data ? b.data : "");
        d2_buf_free(&b);
    }
    assert_int_equal(rc, 0);
    d2_interp_free(I);
    char *got = tu_slurp(out);
    fclose(out);
    assert_string_equal(got, "[1, 2] None\nFalse False\n");
    free(got);
}

/* Dropout recorded in a to_static Layer in train mode drops: element-wise
 * with the fraction of zeros near p and kept values scaled by 1/(1-p), along
 * axes with one draw per index of those axes; identity in eval mode. */
static void test_static_dropout_train(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    d2_interp *I = tu_new_paddle_interp(out);
    static const char src[] =
        "import paddle\n"
        "import paddle.nn.functional as F\n"
        "class Net(paddle.nn.Layer):\n"
        "    def forward(self, x):\n"
        "        return F.dropout(x, 0.5, training=self.training), "
        "F.dropout(x, 0.5, axis=[0, 1], training=self.training)\n"
        "net = Net()\n"
        "st = paddle.jit.to_static(net)\n"
        "x = paddle.ones([40, 30, 5])\n"
        "a, b = st(x)\n"
        "an = a.numpy()\n"
        "bn = b.numpy()\n"
        "print(abs(float((an == 0).mean()) - 0.5) < 0.03, float(an.max()))\n"
        "print(bool((bn.min(axis=2) == bn.max(axis=2)).all()), "
        "abs(float((bn == 0).mean()) - 0.5) < 0.06)\n"
        "net.eval()\n"
        "a, b = st(x)\n"
        "print(bool((a.numpy() == 1).all()), bool((b.numpy() == 1).all()))\n";
    int rc = d2_interp_run_source(I, "s.py", src, sizeof src - 1);
    if (rc < 0) {
        d2_buf b;
        d2_buf_init(&b);
        d2_diag_render(&I->diag, &b);
        fprintf(stderr, "%s\n", b.data ? b.data : "");
        d2_buf_free(&b);
    }
    assert_int_equal(rc, 0);
    d2_interp_free(I);
    char *got = tu_slurp(out);
    fclose(out);
    assert_string_equal(got, "True 2.0\nTrue True\nTrue True\n");
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_not_taped),
        cmocka_unit_test(test_static_dropout_train),
        cmocka_unit_test(test_custom_node),
        cmocka_unit_test(test_tape_memory_flat),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_golden_autograd_basic),
        cmocka_unit_test(test_golden_autograd_clear),
        cmocka_unit_test(test_golden_autograd_grad),
        cmocka_unit_test(test_golden_autograd_hooks),
        cmocka_unit_test(test_golden_autograd_errors),
        cmocka_unit_test(test_golden_autograd_train),
        cmocka_unit_test(test_golden_bn_train),
        cmocka_unit_test(test_golden_dropout_train),
        cmocka_unit_test(test_golden_jit_train),
        cmocka_unit_test(test_golden_jit_train_list),
        cmocka_unit_test(test_golden_jit_train_arrays),
        cmocka_unit_test(test_golden_jit_double_grad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
