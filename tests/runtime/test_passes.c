/* test_passes.c - the graph passes: golden Programs before and after each pass
 * (tests/golden/passes/NAME.prog in, NAME.out expected; DY2ST_UPDATE_GOLDEN=1 rewrites the
 * .out files), the same outputs before and after on fixed inputs, pass selection, and the
 * conv2d_fused op against conv2d + add + relu. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "cpu/dnnl.h"
#include "passes/passes.h"
#include "program.h"
#include "../testutil.h"

#define GOLDEN D2_SRCDIR "/tests/golden/passes"

static int setup(void **state)
{
    (void)state;
    d2_err err = {0};
    return d2_ops_init(&err);
}

/* Fixed inputs for the main block's params: floats in [-1, 1), bools alternating. */
static d2_tensor *make_input(const d2_type *t, unsigned seed)
{
    d2_err err = {0};
    d2_tensor *x = d2_tensor_new(NULL, t->dtype, t->shape.ndim, t->shape.dims, &err);
    assert_non_null(x);
    int64_t n = d2_tensor_numel(x);
    unsigned s = seed * 2654435761u + 12345u;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        double v = (double)((s >> 8) & 0xffff) / 32768.0 - 1.0;
        if (t->dtype == D2_F32)
            ((float *)d2_tensor_data(x))[i] = (float)v;
        else if (t->dtype == D2_F64)
            ((double *)d2_tensor_data(x))[i] = v;
        else if (t->dtype == D2_BOOL)
            ((bool *)d2_tensor_data(x))[i] = (i + seed) % 2 == 0;
        else
            memset(d2_tensor_data(x), 0, (size_t)n * d2_dtype_size(t->dtype));
    }
    return x;
}

/* Runs p's main block on the fixed inputs; outputs receives new references. */
static void run_program(const d2_program *p, d2_tensor **outputs, int n_out)
{
    d2_err err = {0};
    const d2_block *b0 = &p->blocks[0];
    d2_tensor *in[8] = {NULL};
    assert_true(b0->n_params <= 8);
    for (int i = 0; i < b0->n_params; i++)
        in[i] = make_input(&p->vars[b0->params[i]].type, (unsigned)i + 1);
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    if (!pp)
        fail_msg("prepare: %s", err.msg);
    if (d2_exec_run(pp, in, b0->n_params, outputs, n_out, &err) < 0)
        fail_msg("run: %s", err.msg);
    d2_exec_free(pp);
    for (int i = 0; i < b0->n_params; i++)
        d2_tensor_unref(in[i]);
}

/* The pass list of a golden input: its first line "# passes: LIST". */
static d2_pass_set header_passes(const char *text)
{
    const char *h = strstr(text, "# passes: ");
    assert_non_null(h);
    h += strlen("# passes: ");
    char list[128];
    size_t n = strcspn(h, "\n");
    assert_true(n < sizeof list);
    memcpy(list, h, n);
    list[n] = '\0';
    d2_pass_set set;
    d2_err err = {0};
    assert_int_equal(d2_passes_parse(list, &set, &err), 0);
    return set;
}

/* One golden case: parse, run the passes, compare the printed Program with NAME.out, and
 * the outputs on fixed inputs with the unrewritten Program's. Returns the rewrite count. */
static int golden_case(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.prog", GOLDEN, name);
    char *src = tu_load_file(path, NULL);
    d2_err err = {0};
    d2_program *p = d2_program_parse(src, path, &err);
    if (!p)
        fail_msg("%s: %s", path, err.msg);
    d2_program *orig = d2_program_clone(p, &err);
    assert_non_null(orig);
    d2_pass_stats st;
    int n = d2_passes_run(p, header_passes(src), &st, &err);
    if (n < 0)
        fail_msg("%s: %s", name, err.msg);
    assert_int_equal(d2_program_verify(p, &err), 0);
    char *got = d2_program_print(p, true);
    snprintf(path, sizeof path, "%s/%s.out", GOLDEN, name);
    const char *upd = getenv("DY2ST_UPDATE_GOLDEN");
    if (upd && *upd == '1') {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
    }
    char *want = tu_load_file(path, NULL);
    if (strcmp(got, want) != 0) {
        tu_show_diff(name, got, want);
        fail_msg("%s: the rewritten Program differs from %s", name, path);
    }
    /* the printed form reads back to the same Program */
    d2_program *back = d2_program_parse(got, path, &err);
    assert_non_null(back);
    char *again = d2_program_print(back, true);
    assert_string_equal(again, got);
    /* and computes what the Program computed before */
    int n_out = p->blocks[0].n_yields;
    assert_int_equal(n_out, orig->blocks[0].n_yields);
    d2_tensor *before[8] = {NULL}, *after[8] = {NULL};
    assert_true(n_out <= 8);
    run_program(orig, before, n_out);
    run_program(p, after, n_out);
    for (int i = 0; i < n_out; i++) {
        tu_expect_close(name, after[i], before[i], 1e-5, 1e-5, "the Program before the passes");
        d2_tensor_unref(before[i]);
        d2_tensor_unref(after[i]);
    }
    free(again);
    d2_program_free(back);
    free(want);
    free(got);
    free(src);
    d2_program_free(orig);
    d2_program_free(p);
    return n;
}

static void test_dce(void **state)
{
    (void)state;
    /* exp, add, exp in ^3 and the dead cond (its neg goes with its block) */
    assert_int_equal(golden_case("dce"), 4);
}

static void test_const_fold(void **state)
{
    (void)state;
    /* add, multiply, cast, shape, cast, transpose */
    assert_int_equal(golden_case("const_fold"), 6);
}

static void test_cse(void **state)
{
    (void)state;
    /* the second add and the second tanh; the commuted add(y, x) is not matched */
    assert_int_equal(golden_case("cse"), 2);
}

static void test_bn_fold(void **state)
{
    (void)state;
    assert_int_equal(golden_case("bn_fold"), 3);
}

static void test_fuse_conv(void **state)
{
    (void)state;
    assert_int_equal(golden_case("fuse_conv"), 3);
}

static void test_fuse_linear(void **state)
{
    (void)state;
    assert_int_equal(golden_case("fuse_linear"), 4);
}

static void test_drop_identity(void **state)
{
    (void)state;
    /* d1 and d2; d3 scales, d4 is the output */
    assert_int_equal(golden_case("drop_identity"), 2);
}

static void test_fuse_elementwise(void **state)
{
    (void)state;
    /* c2, h, e1 (with b1 .. d1), n1 (r1 only: m1 reads col), a4 */
    assert_int_equal(golden_case("fuse_elementwise"), 5);
}

static void test_fuse_add_norm(void **state)
{
    (void)state;
    /* n1 and n2; s3 is an output, s4 broadcasts */
    assert_int_equal(golden_case("fuse_add_norm"), 2);
}

static void test_fuse_bn_act(void **state)
{
    (void)state;
    /* n1 + a1, n2 + s2 + a2, n3 + s3 */
    assert_int_equal(golden_case("fuse_bn_act"), 3);
}

static void test_hoist(void **state)
{
    (void)state;
    /* limit, one and w2 */
    assert_int_equal(golden_case("hoist"), 3);
}

static void test_nhwc(void **state)
{
    (void)state;
    /* c1, c2, c3 and c5 */
    assert_int_equal(golden_case("nhwc"), 4);
}

static void test_nhwc_pool(void **state)
{
    (void)state;
    /* c1, c2, p1 and p2 */
    assert_int_equal(golden_case("nhwc_pool"), 4);
}

static void test_training_program(void **state)
{
    (void)state;
    d2_err err = {0};
    char path[512];
    snprintf(path, sizeof path, "%s/train.prog", GOLDEN);
    char *src = tu_load_file(path, NULL);
    d2_program *p = d2_program_parse(src, path, &err);
    assert_non_null(p);
    assert_true(d2_program_trains(p));
    d2_program_free(p);
    free(src);
    assert_int_equal(golden_case("train"), 1); /* only the dead exp */
}

static void test_parse_sets(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_pass_set s;
    int n;
    d2_passes_all(&n);
    assert_true(n >= 5);
    assert_int_equal(d2_passes_parse("none", &s, &err), 0);
    assert_int_equal(s, 0);
    assert_int_equal(d2_passes_parse("all", &s, &err), 0);
    assert_int_equal(s, d2_passes_level(D2_PASS_INFERENCE));
    assert_int_equal(d2_passes_parse("basic", &s, &err), 0);
    assert_true((s & d2_passes_level(D2_PASS_INFERENCE)) == s);
    assert_true(s != d2_passes_level(D2_PASS_INFERENCE));
    assert_int_equal(d2_passes_parse("dce,bn_fold", &s, &err), 0);
    const d2_pass *all = d2_passes_all(&n);
    int bits = 0;
    for (int i = 0; i < n; i++)
        if (s & ((d2_pass_set)1 << i)) {
            bits++;
            assert_true(strcmp(all[i].name, "dce") == 0 || strcmp(all[i].name, "bn_fold") == 0);
        }
    assert_int_equal(bits, 2);
    assert_int_equal(d2_passes_parse("dce,nosuch", &s, &err), -1);
    assert_non_null(strstr(err.msg, "nosuch"));
    assert_non_null(d2_pass_find("fuse_conv"));
    assert_null(d2_pass_find("fuse"));
}

/* d2_passes_prepare: the prepared form runs the rewritten copy (same outputs) and leaves the
 * Program it was given as it was. */
static void test_prepare(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/bn_fold.prog", GOLDEN);
    char *src = tu_load_file(path, NULL);
    d2_err err = {0};
    d2_program *p = d2_program_parse(src, path, &err);
    assert_non_null(p);
    char *before = d2_program_print(p, true);
    const d2_block *b0 = &p->blocks[0];
    d2_tensor *in[2] = {make_input(&p->vars[b0->params[0]].type, 1),
                        make_input(&p->vars[b0->params[1]].type, 2)};
    d2_tensor *want[4] = {NULL}, *got[4] = {NULL};
    d2_prepared *plain = d2_exec_prepare(p, NULL, &err);
    d2_prepared *opt = d2_passes_prepare(p, d2_passes_level(D2_PASS_INFERENCE), NULL, &err);
    assert_non_null(plain);
    assert_non_null(opt);
    assert_int_equal(d2_exec_run(plain, in, 2, want, 4, &err), 0);
    assert_int_equal(d2_exec_run(opt, in, 2, got, 4, &err), 0);
    for (int i = 0; i < 4; i++) {
        tu_expect_close("prepared", got[i], want[i], 1e-5, 1e-5, "the unrewritten Program");
        d2_tensor_unref(got[i]);
        d2_tensor_unref(want[i]);
    }
    d2_exec_free(opt);
    d2_exec_free(plain);
    char *after = d2_program_print(p, true);
    assert_string_equal(after, before);
    free(after);
    free(before);
    d2_tensor_unref(in[0]);
    d2_tensor_unref(in[1]);
    d2_program_free(p);
    free(src);
}

/* conv2d_fused with each of its epilogues equals conv2d, then add, then relu, on the CPU in
 * both dtypes (the oneDNN path for float32 shapes it takes, im2col otherwise). */
static void test_conv2d_fused_op(void **state)
{
    (void)state;
    d2_err err = {0};
    const d2_dtype dts[2] = {D2_F32, D2_F64};
    for (int d = 0; d < 2; d++) {
        d2_type tx = {D2_VALUE_TENSOR, dts[d], {4, {2, 8, 12, 12}}};
        d2_type tw = {D2_VALUE_TENSOR, dts[d], {4, {16, 8, 3, 3}}};
        d2_type tb = {D2_VALUE_TENSOR, dts[d], {1, {16}}};
        d2_type tr = {D2_VALUE_TENSOR, dts[d], {4, {2, 16, 12, 12}}};
        d2_tensor *x = make_input(&tx, 1), *w = make_input(&tw, 2), *b = make_input(&tb, 3);
        d2_tensor *r = make_input(&tr, 4);
        const d2_opdef *cdef = d2_op_def(D2_OP_conv2d), *fdef = d2_op_def(D2_OP_conv2d_fused);
        d2_attrs ca, fa;
        assert_int_equal(d2_attrs_parse(cdef, "paddings = [1, 1]", &ca, &err), 0);
        for (int mode = 0; mode < 3; mode++) {
            const char *text = mode == 0   ? "paddings = [1, 1], activation = \"relu\""
                               : mode == 1 ? "paddings = [1, 1]"
                                           : "paddings = [1, 1], activation = \"relu\"";
            assert_int_equal(d2_attrs_parse(fdef, text, &fa, &err), 0);
            d2_tensor *cin[3] = {x, w, b}, *conv = NULL, *want = NULL, *got = NULL;
            assert_int_equal(d2_op_run(NULL, D2_OP_conv2d, &ca, cin, 3, &conv, 1, &err), 0);
            want = d2_tensor_ref(conv);
            if (mode >= 1) { /* residual */
                d2_tensor *ain[2] = {want, r}, *sum = NULL;
                assert_int_equal(d2_op_run(NULL, D2_OP_add, NULL, ain, 2, &sum, 1, &err), 0);
                d2_tensor_unref(want);
                want = sum;
            }
            if (mode != 1) {
                d2_tensor *rl = NULL;
                assert_int_equal(d2_op_run(NULL, D2_OP_relu, NULL, &want, 1, &rl, 1, &err), 0);
                d2_tensor_unref(want);
                want = rl;
            }
            d2_tensor *fin[4] = {x, w, b, mode >= 1 ? r : NULL};
            if (d2_op_run(NULL, D2_OP_conv2d_fused, &fa, fin, 4, &got, 1, &err) < 0)
                fail_msg("conv2d_fused: %s", err.msg);
            tu_expect_close("conv2d_fused", got, want, 1e-5, 1e-5, "conv2d + add + relu");
            d2_tensor_unref(conv);
            d2_tensor_unref(want);
            d2_tensor_unref(got);
            d2_attrs_free(&fa);
        }
        /* an unknown activation and a residual of another shape are refused */
        assert_int_equal(d2_attrs_parse(fdef, "activation = \"gelu\"", &fa, &err), 0);
        d2_tensor *fin[4] = {x, w, b, NULL}, *got = NULL;
        assert_int_equal(d2_op_run(NULL, D2_OP_conv2d_fused, &fa, fin, 4, &got, 1, &err), -1);
        assert_non_null(strstr(err.msg, "gelu"));
        d2_err_clear(&err);
        d2_attrs_free(&fa);
        assert_int_equal(d2_attrs_parse(fdef, "", &fa, &err), 0);
        fin[3] = x;
        assert_int_equal(d2_op_run(NULL, D2_OP_conv2d_fused, &fa, fin, 4, &got, 1, &err), -1);
        assert_non_null(strstr(err.msg, "residual"));
        d2_err_clear(&err);
        d2_attrs_free(&fa);
        d2_attrs_free(&ca);
        d2_tensor_unref(x);
        d2_tensor_unref(w);
        d2_tensor_unref(b);
        d2_tensor_unref(r);
    }
}

/* linear_fused with each epilogue equals linear, then add, then the activation, on the CPU in
 * both dtypes, at a size where the product goes through BLIS and the epilogue loops vectorise
 * with a scalar tail. */
static void test_linear_fused_op(void **state)
{
    (void)state;
    d2_err err = {0};
    const d2_dtype dts[2] = {D2_F32, D2_F64};
    static const char *const acts[4] = {"", "relu", "gelu", "gelu_tanh"};
    for (int d = 0; d < 2; d++) {
        d2_type tx = {D2_VALUE_TENSOR, dts[d], {3, {5, 7, 33}}};
        d2_type tw = {D2_VALUE_TENSOR, dts[d], {2, {33, 41}}};
        d2_type tb = {D2_VALUE_TENSOR, dts[d], {1, {41}}};
        d2_type tr = {D2_VALUE_TENSOR, dts[d], {3, {5, 7, 41}}};
        d2_tensor *x = make_input(&tx, 1), *w = make_input(&tw, 2), *b = make_input(&tb, 3);
        d2_tensor *r = make_input(&tr, 4);
        const d2_opdef *fdef = d2_op_def(D2_OP_linear_fused), *gdef = d2_op_def(D2_OP_gelu);
        for (int mode = 0; mode < 8; mode++) {
            int act = mode % 4;
            bool res = mode >= 4;
            char text[64];
            snprintf(text, sizeof text, "activation = \"%s\"", acts[act]);
            d2_attrs fa, ga;
            assert_int_equal(d2_attrs_parse(fdef, text, &fa, &err), 0);
            assert_int_equal(
                d2_attrs_parse(gdef, act == 3 ? "approximate = true" : "", &ga, &err), 0);
            d2_tensor *lin[3] = {x, w, b}, *want = NULL, *got = NULL;
            assert_int_equal(d2_op_run(NULL, D2_OP_linear, NULL, lin, 3, &want, 1, &err), 0);
            if (res) {
                d2_tensor *ain[2] = {want, r}, *sum = NULL;
                assert_int_equal(d2_op_run(NULL, D2_OP_add, NULL, ain, 2, &sum, 1, &err), 0);
                d2_tensor_unref(want);
                want = sum;
            }
            if (act) {
                d2_tensor *a = NULL;
                assert_int_equal(d2_op_run(NULL, act == 1 ? D2_OP_relu : D2_OP_gelu,
                                           act == 1 ? NULL : &ga, &want, 1, &a, 1, &err),
                                 0);
                d2_tensor_unref(want);
                want = a;
            }
            d2_tensor *fin[4] = {x, w, b, res ? r : NULL};
            if (d2_op_run(NULL, D2_OP_linear_fused, &fa, fin, 4, &got, 1, &err) < 0)
                fail_msg("linear_fused: %s", err.msg);
            tu_expect_close(text, got, want, 1e-6, 1e-6, "linear + add + activation");
            d2_tensor_unref(want);
            d2_tensor_unref(got);
            d2_attrs_free(&fa);
            d2_attrs_free(&ga);
        }
        /* an unknown activation and a residual of another shape are refused */
        d2_attrs fa;
        assert_int_equal(d2_attrs_parse(fdef, "activation = \"tanh\"", &fa, &err), 0);
        d2_tensor *fin[4] = {x, w, b, NULL}, *got = NULL;
        assert_int_equal(d2_op_run(NULL, D2_OP_linear_fused, &fa, fin, 4, &got, 1, &err), -1);
        assert_non_null(strstr(err.msg, "tanh"));
        d2_err_clear(&err);
        d2_attrs_free(&fa);
        assert_int_equal(d2_attrs_parse(fdef, "", &fa, &err), 0);
        fin[3] = x;
        assert_int_equal(d2_op_run(NULL, D2_OP_linear_fused, &fa, fin, 4, &got, 1, &err), -1);
        assert_non_null(strstr(err.msg, "residual"));
        d2_err_clear(&err);
        d2_attrs_free(&fa);
        d2_tensor_unref(x);
        d2_tensor_unref(w);
        d2_tensor_unref(b);
        d2_tensor_unref(r);
    }
}

/* Fills x with values in [-4, 4) and, when special, NaN, +inf, -inf and -0 at a few places. */
static void fill_special(d2_tensor *x, unsigned seed, bool special)
{
    int64_t n = d2_tensor_numel(x);
    unsigned s = seed * 2654435761u + 7u;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        double v = (double)((s >> 8) & 0xffff) / 8192.0 - 4.0;
        if (special && i % 97 == 3)
            v = NAN;
        else if (special && i % 89 == 5)
            v = INFINITY;
        else if (special && i % 83 == 7)
            v = -INFINITY;
        else if (special && i % 79 == 11)
            v = -0.0;
        if (x->dtype == D2_F32)
            ((float *)d2_tensor_data(x))[i] = (float)v;
        else
            ((double *)d2_tensor_data(x))[i] = v;
    }
}

/* got equals want bit for bit, except that any NaN matches any NaN. */
static void expect_same_bits(const char *what, const d2_tensor *got, const d2_tensor *want)
{
    assert_int_equal(got->dtype, want->dtype);
    assert_int_equal(got->ndim, want->ndim);
    for (int d = 0; d < got->ndim; d++)
        assert_int_equal(got->shape[d], want->shape[d]);
    int64_t n = d2_tensor_numel(want);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double x = d2_tensor_get_f64(got, i), y = d2_tensor_get_f64(want, i);
        bool same = (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
        if (!same && bad++ < 5)
            fprintf(stderr, "%s: element %lld is %.17g, the unfused ops give %.17g\n", what,
                    (long long)i, x, y);
    }
    assert_int_equal(bad, 0);
}

/* Evaluates a postfix expr with the registry ops one at a time (the reference). */
static d2_tensor *eval_unfused(const char *expr, d2_tensor **in)
{
    d2_err err = {0};
    d2_tensor *st[16];
    int sp = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", expr);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        if (tok[0] == '$') {
            st[sp++] = d2_tensor_ref(in[atoi(tok + 1)]);
            continue;
        }
        char *end;
        double c = strtod(tok, &end);
        if (*end == '\0') {
            d2_attrs a;
            const d2_opdef *fd = d2_op_def(D2_OP_full);
            d2_attrs_init_default(fd, &a);
            assert_int_equal(d2_attr_set_float(fd, &a, "value", c), 0);
            assert_int_equal(d2_attr_set_int(fd, &a, "dtype", in[0]->dtype), 0);
            assert_int_equal(d2_op_run(NULL, D2_OP_full, &a, NULL, 0, &st[sp++], 1, &err), 0);
            d2_attrs_free(&a);
            continue;
        }
        bool tanh_gelu = strcmp(tok, "gelu_tanh") == 0;
        const d2_opdef *def = d2_op_lookup(tanh_gelu ? "gelu" : tok, strlen(tanh_gelu ? "gelu" : tok));
        assert_non_null(def);
        d2_attrs a;
        d2_attrs_init_default(def, &a);
        if (tanh_gelu)
            assert_int_equal(d2_attr_set_bool(def, &a, "approximate", true), 0);
        int na = def->n_ins;
        d2_tensor *r = NULL;
        if (d2_op_run(NULL, def->id, &a, &st[sp - na], na, &r, 1, &err) < 0)
            fail_msg("%s: %s", tok, err.msg);
        d2_attrs_free(&a);
        for (int k = 0; k < na; k++)
            d2_tensor_unref(st[--sp]);
        st[sp++] = r;
    }
    assert_int_equal(sp, 1);
    return st[0];
}

/* fused_elementwise equals its ops run one by one, bit for bit: float32 and float64, lengths
 * that leave a block tail, bias-shaped operands shorter and longer than a block, scalars,
 * NaN and infinities, and shapes the one-pass kernel does not take (general broadcasting:
 * the parts run). A bad expr is refused with the token at fault. */
static void test_fused_elementwise_op(void **state)
{
    (void)state;
    static const struct {
        const char *expr;
        const char *shapes; /* per input: dims separated by ',', inputs by ' ' ("" = 0-d) */
    } cases[] = {
        {"$0 sigmoid $1 multiply $2 sigmoid $3 tanh multiply add", "3,333 3,333 3,333 3,333"},
        {"$0 $1 add relu", "7,300 300"},
        {"$0 $1 add relu", "1031 1031"},
        {"$0 $1 add 2 multiply 0.5 add gelu $2 divide silu", "2,5,37 37 _"},
        {"$0 $1 subtract gelu_tanh neg exp", "4,600 1,600"},
        {"$0 square $0 abs subtract $1 divide", "513 1"},
        {"$0 $1 multiply tanh", "5,1 1,9"}, /* general broadcasting: the parts */
        {"$0 $1 add sigmoid", "6,3 6,1"},   /* a column: the parts */
        {"-1.5 $0 multiply inf add", "17"},
    };
    d2_err err = {0};
    const d2_opdef *fdef = d2_op_def(D2_OP_fused_elementwise);
    for (int d = 0; d < 2; d++)
        for (int sp = 0; sp < 2; sp++)
            for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
                d2_tensor *in[4] = {NULL};
                int n_in = 0;
                char sh[128];
                snprintf(sh, sizeof sh, "%s", cases[c].shapes);
                char *save = NULL;
                for (char *tok = strtok_r(sh, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                    int64_t dims[4];
                    int nd = 0;
                    for (char *q = tok; *q && *q != '_';) {
                        dims[nd++] = strtoll(q, &q, 10);
                        if (*q == ',')
                            q++;
                    }
                    in[n_in] = d2_tensor_new(NULL, d ? D2_F64 : D2_F32, nd, dims, &err);
                    assert_non_null(in[n_in]);
                    fill_special(in[n_in], (unsigned)(n_in + 1), sp == 1);
                    n_in++;
                }
                char text[256], what[300];
                snprintf(text, sizeof text, "expr = \"%s\"", cases[c].expr);
                snprintf(what, sizeof what, "%s %s [%s]%s", d ? "float64" : "float32",
                         cases[c].expr, cases[c].shapes, sp ? " with NaN and inf" : "");
                d2_attrs fa;
                assert_int_equal(d2_attrs_parse(fdef, text, &fa, &err), 0);
                d2_tensor *got = NULL;
                if (d2_op_run(NULL, D2_OP_fused_elementwise, &fa, in, n_in, &got, 1, &err) < 0)
                    fail_msg("%s: %s", what, err.msg);
                d2_tensor *want = eval_unfused(cases[c].expr, in);
                expect_same_bits(what, got, want);
                d2_tensor_unref(got);
                d2_tensor_unref(want);
                d2_attrs_free(&fa);
                for (int i = 0; i < n_in; i++)
                    d2_tensor_unref(in[i]);
            }
    /* refused: unknown token, no such input, an input never read, a stack left with two
     * values, an operation short of operands, mixed dtypes */
    static const struct {
        const char *expr, *msg;
    } bad[] = {
        {"$0 $1 add frob", "unknown expr token 'frob'"},
        {"$0 $2 add", "'$2' names no input"},
        {"$0 relu", "never reads input $1"},
        {"$0 $1", "leaves 2 values"},
        {"$0 add $1 add", "needs 2 values"},
        {"", "leaves 0 values"},
    };
    int64_t dims[1] = {4};
    d2_tensor *x = d2_tensor_new(NULL, D2_F32, 1, dims, &err), *y = d2_tensor_new(NULL, D2_F32, 1, dims, &err);
    d2_tensor *z = d2_tensor_new(NULL, D2_F64, 1, dims, &err);
    assert_non_null(z);
    fill_special(x, 1, false);
    fill_special(y, 2, false);
    fill_special(z, 3, false);
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        char text[128];
        snprintf(text, sizeof text, "expr = \"%s\"", bad[c].expr);
        d2_attrs fa;
        assert_int_equal(d2_attrs_parse(fdef, text, &fa, &err), 0);
        d2_tensor *xy[2] = {x, y}, *got = NULL;
        assert_int_equal(d2_op_run(NULL, D2_OP_fused_elementwise, &fa, xy, 2, &got, 1, &err), -1);
        if (!strstr(err.msg, bad[c].msg))
            fail_msg("expr \"%s\": got \"%s\", expected \"%s\"", bad[c].expr, err.msg, bad[c].msg);
        d2_err_clear(&err);
        d2_attrs_free(&fa);
    }
    d2_attrs fa;
    assert_int_equal(d2_attrs_parse(fdef, "expr = \"$0 $1 add\"", &fa, &err), 0);
    d2_tensor *xz[2] = {x, z}, *got = NULL;
    assert_int_equal(d2_op_run(NULL, D2_OP_fused_elementwise, &fa, xz, 2, &got, 1, &err), -1);
    if (!strstr(err.msg, "must all be float32 or all float64"))
        fail_msg("mixed dtypes: %s", err.msg);
    d2_err_clear(&err);
    d2_attrs_free(&fa);
    d2_tensor_unref(x);
    d2_tensor_unref(y);
    d2_tensor_unref(z);
}

/* add_layer_norm equals add then layer_norm bit for bit in float32 (the one-pass kernel) and
 * float64 (the parts), with and without scale and bias, rows shorter and longer than 8 (the
 * partial sums) and NaN in a row. */
static void test_add_layer_norm_op(void **state)
{
    (void)state;
    d2_err err = {0};
    const d2_opdef *adef = d2_op_def(D2_OP_add_layer_norm), *ldef = d2_op_def(D2_OP_layer_norm);
    static const int64_t shapes[3][3] = {{2, 3, 33}, {4, 5, 7}, {1, 2, 256}};
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 3; s++)
            for (int with = 0; with < 2; with++) {
                d2_dtype dt = d ? D2_F64 : D2_F32;
                d2_tensor *x = d2_tensor_new(NULL, dt, 3, shapes[s], &err);
                d2_tensor *y = d2_tensor_new(NULL, dt, 3, shapes[s], &err);
                d2_tensor *w = d2_tensor_new(NULL, dt, 1, &shapes[s][2], &err);
                d2_tensor *b = d2_tensor_new(NULL, dt, 1, &shapes[s][2], &err);
                assert_non_null(b);
                fill_special(x, 1, s == 2);
                fill_special(y, 2, false);
                fill_special(w, 3, false);
                fill_special(b, 4, false);
                const char *attrs = "begin_norm_axis = 2, epsilon = 0.001";
                d2_attrs aa, la;
                assert_int_equal(d2_attrs_parse(adef, attrs, &aa, &err), 0);
                assert_int_equal(d2_attrs_parse(ldef, attrs, &la, &err), 0);
                d2_tensor *xy[2] = {x, y}, *sum = NULL, *want = NULL, *got = NULL;
                assert_int_equal(d2_op_run(NULL, D2_OP_add, NULL, xy, 2, &sum, 1, &err), 0);
                d2_tensor *lin[3] = {sum, with ? w : NULL, with ? b : NULL};
                assert_int_equal(d2_op_run(NULL, D2_OP_layer_norm, &la, lin, 3, &want, 1, &err), 0);
                d2_tensor *ain[4] = {x, y, with ? w : NULL, with ? b : NULL};
                if (d2_op_run(NULL, D2_OP_add_layer_norm, &aa, ain, 4, &got, 1, &err) < 0)
                    fail_msg("add_layer_norm: %s", err.msg);
                expect_same_bits("add_layer_norm", got, want);
                d2_tensor_unref(got);
                d2_tensor_unref(want);
                d2_tensor_unref(sum);
                d2_attrs_free(&aa);
                d2_attrs_free(&la);
                d2_tensor_unref(x);
                d2_tensor_unref(y);
                d2_tensor_unref(w);
                d2_tensor_unref(b);
            }
    /* y of another shape is refused */
    int64_t d1[2] = {2, 3}, d2[2] = {2, 4};
    d2_tensor *x = d2_tensor_new(NULL, D2_F32, 2, d1, &err), *y = d2_tensor_new(NULL, D2_F32, 2, d2, &err);
    d2_tensor *xy[2] = {x, y}, *got = NULL;
    assert_int_equal(d2_op_run(NULL, D2_OP_add_layer_norm, NULL, xy, 2, &got, 1, &err), -1);
    assert_non_null(strstr(err.msg, "add_layer_norm"));
    d2_err_clear(&err);
    d2_tensor_unref(x);
    d2_tensor_unref(y);
}

/* batch_norm_act with each epilogue equals batch_norm, then add, then relu, bit for bit, in
 * both dtypes, with an inner size that leaves a vector tail and NaN and infinities. */
static void test_batch_norm_act_op(void **state)
{
    (void)state;
    d2_err err = {0};
    const d2_opdef *fdef = d2_op_def(D2_OP_batch_norm_act), *bdef = d2_op_def(D2_OP_batch_norm);
    static const int64_t xs[4] = {2, 3, 5, 7}, cs[1] = {3};
    for (int d = 0; d < 2; d++)
        for (int mode = 0; mode < 4; mode++) {
            d2_dtype dt = d ? D2_F64 : D2_F32;
            bool res = mode & 1, relu = mode & 2;
            d2_tensor *x = d2_tensor_new(NULL, dt, 4, xs, &err), *r = d2_tensor_new(NULL, dt, 4, xs, &err);
            d2_tensor *st[4];
            for (int i = 0; i < 4; i++) {
                st[i] = d2_tensor_new(NULL, dt, 1, cs, &err);
                assert_non_null(st[i]);
                fill_special(st[i], (unsigned)i + 3, false);
            }
            for (int i = 0; i < 3; i++) { /* a positive variance */
                double pv = fabs(d2_tensor_get_f64(st[1], i)) + 0.5;
                if (dt == D2_F32)
                    ((float *)d2_tensor_data(st[1]))[i] = (float)pv;
                else
                    ((double *)d2_tensor_data(st[1]))[i] = pv;
            }
            fill_special(x, 1, true);
            fill_special(r, 2, false);
            char text[96];
            snprintf(text, sizeof text, "epsilon = 0.001, activation = \"%s\"", relu ? "relu" : "");
            d2_attrs fa, ba;
            assert_int_equal(d2_attrs_parse(fdef, text, &fa, &err), 0);
            assert_int_equal(d2_attrs_parse(bdef, "epsilon = 0.001", &ba, &err), 0);
            d2_tensor *bin[5] = {x, st[0], st[1], st[2], st[3]}, *want = NULL, *got = NULL;
            assert_int_equal(d2_op_run(NULL, D2_OP_batch_norm, &ba, bin, 5, &want, 1, &err), 0);
            if (res) {
                d2_tensor *ain[2] = {want, r}, *sum = NULL;
                assert_int_equal(d2_op_run(NULL, D2_OP_add, NULL, ain, 2, &sum, 1, &err), 0);
                d2_tensor_unref(want);
                want = sum;
            }
            if (relu) {
                d2_tensor *a = NULL;
                assert_int_equal(d2_op_run(NULL, D2_OP_relu, NULL, &want, 1, &a, 1, &err), 0);
                d2_tensor_unref(want);
                want = a;
            }
            d2_tensor *fin[6] = {x, st[0], st[1], st[2], st[3], res ? r : NULL};
            if (d2_op_run(NULL, D2_OP_batch_norm_act, &fa, fin, 6, &got, 1, &err) < 0)
                fail_msg("batch_norm_act: %s", err.msg);
            expect_same_bits(text, got, want);
            d2_tensor_unref(got);
            d2_tensor_unref(want);
            d2_attrs_free(&fa);
            d2_attrs_free(&ba);
            /* a residual of another shape and an unknown activation are refused */
            if (mode == 3) {
                fin[5] = st[0];
                assert_int_equal(d2_attrs_parse(fdef, "", &fa, &err), 0);
                assert_int_equal(d2_op_run(NULL, D2_OP_batch_norm_act, &fa, fin, 6, &got, 1, &err), -1);
                assert_non_null(strstr(err.msg, "residual"));
                d2_err_clear(&err);
                d2_attrs_free(&fa);
                assert_int_equal(d2_attrs_parse(fdef, "activation = \"gelu\"", &fa, &err), 0);
                assert_int_equal(d2_op_run(NULL, D2_OP_batch_norm_act, &fa, fin, 5, &got, 1, &err), -1);
                assert_non_null(strstr(err.msg, "gelu"));
                d2_err_clear(&err);
                d2_attrs_free(&fa);
            }
            for (int i = 0; i < 4; i++)
                d2_tensor_unref(st[i]);
            d2_tensor_unref(x);
            d2_tensor_unref(r);
        }
}

/* Out of memory at every allocation of the fusion passes and of the fused kernels' fallback:
 * each fails cleanly with an error (the sanitizer builds check that nothing leaks) and, once
 * memory suffices, does all its rewrites. */
static void test_fusion_out_of_memory(void **state)
{
    (void)state;
    static const char *const names[3] = {"fuse_elementwise", "fuse_add_norm", "fuse_bn_act"};
    static const int want[3] = {5, 2, 3};
    for (int c = 0; c < 3; c++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.prog", GOLDEN, names[c]);
        char *src = tu_load_file(path, NULL);
        d2_err err = {0};
        d2_program *p = d2_program_parse(src, path, &err);
        assert_non_null(p);
        d2_pass_set set;
        assert_int_equal(d2_passes_parse(names[c], &set, &err), 0);
        int done = -1;
        for (int k = 0; k < 5000 && done < 0; k++) {
            d2_program *q = d2_program_clone(p, &err);
            assert_non_null(q);
            d2_err e = {0};
            d2_alloc_fail_after(k);
            int n = d2_passes_run(q, set, NULL, &e);
            d2_alloc_fail_after(-1);
            if (n < 0)
                assert_true(e.msg[0] != '\0');
            else if (n == want[c])
                done = k;
            d2_program_free(q);
        }
        assert_true(done >= 0);
        d2_program_free(p);
        free(src);
    }
    /* the fallback (a column operand: the parts run one by one) */
    d2_err err = {0};
    int64_t xd[2] = {6, 3}, cd[2] = {6, 1};
    d2_tensor *x = d2_tensor_new(NULL, D2_F32, 2, xd, &err), *col = d2_tensor_new(NULL, D2_F32, 2, cd, &err);
    assert_non_null(col);
    fill_special(x, 1, false);
    fill_special(col, 2, false);
    const d2_opdef *fdef = d2_op_def(D2_OP_fused_elementwise);
    d2_attrs fa;
    assert_int_equal(d2_attrs_parse(fdef, "expr = \"$0 $1 add 0.5 multiply sigmoid\"", &fa, &err), 0);
    int done = -1;
    for (int k = 0; k < 1000 && done < 0; k++) {
        d2_tensor *in[2] = {x, col}, *got = NULL;
        d2_err e = {0};
        d2_alloc_fail_after(k);
        int rc = d2_op_run(NULL, D2_OP_fused_elementwise, &fa, in, 2, &got, 1, &e);
        d2_alloc_fail_after(-1);
        if (rc < 0)
            assert_true(e.msg[0] != '\0');
        else
            done = k;
        d2_tensor_unref(got);
    }
    assert_true(done > 0);
    d2_attrs_free(&fa);
    d2_tensor_unref(x);
    d2_tensor_unref(col);
}

/* conv2d_fused in NHWC equals the NCHW op on transposed values, through oneDNN and through
 * the fallback that permutes to NCHW (oneDNN off), with each epilogue. */
static void test_conv2d_nhwc_op(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_type tx = {D2_VALUE_TENSOR, D2_F32, {4, {2, 8, 11, 9}}};
    d2_type tw = {D2_VALUE_TENSOR, D2_F32, {4, {16, 8, 3, 3}}};
    d2_type tb = {D2_VALUE_TENSOR, D2_F32, {1, {16}}};
    d2_type tr = {D2_VALUE_TENSOR, D2_F32, {4, {2, 16, 6, 5}}};
    d2_tensor *x = make_input(&tx, 1), *w = make_input(&tw, 2), *b = make_input(&tb, 3);
    d2_tensor *r = make_input(&tr, 4);
    const d2_opdef *fdef = d2_op_def(D2_OP_conv2d_fused), *tdef = d2_op_def(D2_OP_transpose);
    d2_attrs to_nhwc, to_nchw;
    assert_int_equal(d2_attrs_parse(tdef, "perm = [0, 2, 3, 1]", &to_nhwc, &err), 0);
    assert_int_equal(d2_attrs_parse(tdef, "perm = [0, 3, 1, 2]", &to_nchw, &err), 0);
    d2_tensor *xt = NULL, *rt = NULL;
    assert_int_equal(d2_op_run(NULL, D2_OP_transpose, &to_nhwc, &x, 1, &xt, 1, &err), 0);
    assert_int_equal(d2_op_run(NULL, D2_OP_transpose, &to_nhwc, &r, 1, &rt, 1, &err), 0);
    for (int mode = 0; mode < 4; mode++) {
        const char *act = mode % 2 ? "relu" : "";
        bool res = mode >= 2;
        char text[160], textn[200];
        snprintf(text, sizeof text, "strides = [2, 2], paddings = [1, 1], activation = \"%s\"",
                 act);
        snprintf(textn, sizeof textn, "%s, data_format = \"NHWC\"", text);
        d2_attrs fa, na;
        assert_int_equal(d2_attrs_parse(fdef, text, &fa, &err), 0);
        assert_int_equal(d2_attrs_parse(fdef, textn, &na, &err), 0);
        d2_tensor *fin[4] = {x, w, b, res ? r : NULL}, *want = NULL;
        assert_int_equal(d2_op_run(NULL, D2_OP_conv2d_fused, &fa, fin, 4, &want, 1, &err), 0);
        for (int never = 0; never < 2; never++) {
            d2_dnnl_set_mode(never ? D2_DNNL_NEVER : D2_DNNL_AUTO);
            d2_tensor *nin[4] = {xt, w, b, res ? rt : NULL}, *got = NULL, *back = NULL;
            if (d2_op_run(NULL, D2_OP_conv2d_fused, &na, nin, 4, &got, 1, &err) < 0)
                fail_msg("conv2d_fused NHWC: %s", err.msg);
            assert_int_equal(got->shape[3], 16);
            assert_int_equal(d2_op_run(NULL, D2_OP_transpose, &to_nchw, &got, 1, &back, 1, &err),
                             0);
            tu_expect_close(textn, back, want, 1e-5, 1e-5, "conv2d_fused in NCHW");
            d2_tensor_unref(got);
            d2_tensor_unref(back);
        }
        d2_dnnl_set_mode(D2_DNNL_AUTO);
        d2_tensor_unref(want);
        d2_attrs_free(&fa);
        d2_attrs_free(&na);
    }
    /* an unknown layout is refused */
    d2_attrs fa;
    assert_int_equal(d2_attrs_parse(fdef, "data_format = \"NCWH\"", &fa, &err), 0);
    d2_tensor *fin[4] = {x, w, b, NULL}, *got = NULL;
    assert_int_equal(d2_op_run(NULL, D2_OP_conv2d_fused, &fa, fin, 4, &got, 1, &err), -1);
    assert_non_null(strstr(err.msg, "NCWH"));
    d2_err_clear(&err);
    d2_attrs_free(&fa);
    d2_attrs_free(&to_nhwc);
    d2_attrs_free(&to_nchw);
    d2_tensor_unref(xt);
    d2_tensor_unref(rt);
    d2_tensor_unref(x);
    d2_tensor_unref(w);
    d2_tensor_unref(b);
    d2_tensor_unref(r);
}

/* In-place execution: the same outputs as without it, the feeds left as they were, the ops
 * that take a dying input's buffer counted at prepare, and a run that fits a byte cap only
 * because those ops allocate nothing. */
static void test_inplace(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/inplace_exec.prog", GOLDEN);
    char *src = tu_load_file(path, NULL);
    d2_err err = {0};
    d2_program *p = d2_program_parse(src, path, &err);
    if (!p)
        fail_msg("parse: %s", err.msg);
    const d2_block *b0 = &p->blocks[0];
    d2_tensor *in[3], *keep[3];
    for (int i = 0; i < 3; i++) {
        in[i] = make_input(&p->vars[b0->params[i]].type, (unsigned)i + 1);
        keep[i] = d2_tensor_copy_to(in[i], NULL, &err);
    }
    d2_prepared *plain = d2_exec_prepare(p, NULL, &err), *ip = d2_exec_prepare(p, NULL, &err);
    assert_non_null(plain);
    assert_non_null(ip);
    /* relu, scale, conv2d_fused (residual), multiply, subtract (its y), add (its y) */
    assert_int_equal(d2_exec_enable_inplace(ip), 6);
    d2_tensor *want[2] = {NULL}, *got[2] = {NULL};
    assert_int_equal(d2_exec_run(plain, in, 3, want, 2, &err), 0);
    for (int round = 0; round < 2; round++) { /* the second run reuses pooled buffers */
        assert_int_equal(d2_exec_run(ip, in, 3, got, 2, &err), 0);
        for (int i = 0; i < 2; i++) {
            tu_expect_close("in place", got[i], want[i], 0, 0, "without in-place execution");
            d2_tensor_unref(got[i]);
        }
        for (int i = 0; i < 3; i++)
            tu_expect_close("feed after the run", in[i], keep[i], 0, 0, "the feed before");
    }
    /* 9 outputs of 800 bytes but exp's (40): 6440 bytes fresh, 2440 with in-place */
    d2_run_limits lim = {0};
    lim.max_bytes = 2440;
    assert_int_equal(d2_exec_run_limited(ip, &lim, in, 3, got, 2, &err), 0);
    for (int i = 0; i < 2; i++)
        d2_tensor_unref(got[i]);
    d2_run_limits lim2 = {0};
    lim2.max_bytes = 2440;
    assert_int_equal(d2_exec_run_limited(plain, &lim2, in, 3, got, 2, &err), -1);
    assert_int_equal(lim2.hit, D2_LIMIT_BYTES);
    d2_err_clear(&err);
    /* a fetched value held by the caller is never overwritten by a later run */
    d2_tensor *first[2] = {NULL};
    assert_int_equal(d2_exec_run(ip, in, 3, first, 2, &err), 0);
    d2_tensor *snap = d2_tensor_copy_to(first[0], NULL, &err);
    assert_int_equal(d2_exec_run(ip, in, 3, got, 2, &err), 0);
    tu_expect_close("held output", first[0], snap, 0, 0, "itself before the next run");
    for (int i = 0; i < 2; i++) {
        d2_tensor_unref(got[i]);
        d2_tensor_unref(first[i]);
        d2_tensor_unref(want[i]);
    }
    d2_tensor_unref(snap);
    d2_exec_free(ip);
    d2_exec_free(plain);
    /* the pass selects it: "inplace" is in the basic and the full set, not in "none" */
    d2_pass_set s;
    assert_int_equal(d2_passes_parse("inplace", &s, &err), 0);
    assert_true((s & d2_passes_level(D2_PASS_BASIC)) == s);
    for (int i = 0; i < 3; i++) {
        d2_tensor_unref(in[i]);
        d2_tensor_unref(keep[i]);
    }
    d2_program_free(p);
    free(src);
}

/* In-place execution inside a while_loop body (the body owns the carried values): the same
 * results, the feed unchanged, and 10 trips within a byte cap that fresh buffers exceed. */
static void test_inplace_loop(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/inplace_loop.prog", GOLDEN);
    char *src = tu_load_file(path, NULL);
    d2_err err = {0};
    d2_program *p = d2_program_parse(src, path, &err);
    if (!p)
        fail_msg("parse: %s", err.msg);
    d2_tensor *x = make_input(&p->vars[p->blocks[0].params[0]].type, 1);
    d2_tensor *keep = d2_tensor_copy_to(x, NULL, &err);
    d2_prepared *plain = d2_exec_prepare(p, NULL, &err), *ip = d2_exec_prepare(p, NULL, &err);
    assert_non_null(plain);
    assert_non_null(ip);
    assert_true(d2_exec_enable_inplace(ip) >= 2); /* add (its x), tanh, scale */
    d2_tensor *want[2] = {NULL}, *got[2] = {NULL};
    assert_int_equal(d2_exec_run(plain, &x, 1, want, 2, &err), 0);
    assert_int_equal(d2_exec_run(ip, &x, 1, got, 2, &err), 0);
    for (int i = 0; i < 2; i++) {
        tu_expect_close("loop in place", got[i], want[i], 0, 0, "without in-place execution");
        d2_tensor_unref(got[i]);
    }
    tu_expect_close("feed after the loop", x, keep, 0, 0, "the feed before");
    /* fresh buffers: 20 of 1600 bytes and the scalars; in place: tanh's first trip only */
    d2_run_limits lim = {0}, lim2 = {0};
    lim.max_bytes = lim2.max_bytes = 8000;
    assert_int_equal(d2_exec_run_limited(ip, &lim, &x, 1, got, 2, &err), 0);
    for (int i = 0; i < 2; i++)
        d2_tensor_unref(got[i]);
    assert_int_equal(d2_exec_run_limited(plain, &lim2, &x, 1, got, 2, &err), -1);
    assert_int_equal(lim2.hit, D2_LIMIT_BYTES);
    d2_err_clear(&err);
    for (int i = 0; i < 2; i++)
        d2_tensor_unref(want[i]);
    d2_exec_free(ip);
    d2_exec_free(plain);
    d2_tensor_unref(x);
    d2_tensor_unref(keep);
    d2_program_free(p);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dce),          cmocka_unit_test(test_const_fold),
        cmocka_unit_test(test_cse),          cmocka_unit_test(test_bn_fold),
        cmocka_unit_test(test_fuse_conv),    cmocka_unit_test(test_training_program),
        cmocka_unit_test(test_parse_sets),   cmocka_unit_test(test_prepare),
        cmocka_unit_test(test_conv2d_fused_op),
        cmocka_unit_test(test_fuse_linear),  cmocka_unit_test(test_drop_identity),
        cmocka_unit_test(test_linear_fused_op), cmocka_unit_test(test_hoist),
        cmocka_unit_test(test_nhwc), cmocka_unit_test(test_nhwc_pool),         cmocka_unit_test(test_conv2d_nhwc_op),
        cmocka_unit_test(test_inplace),      cmocka_unit_test(test_inplace_loop),
        cmocka_unit_test(test_fuse_elementwise), cmocka_unit_test(test_fuse_add_norm),
        cmocka_unit_test(test_fused_elementwise_op), cmocka_unit_test(test_add_layer_norm_op),
        cmocka_unit_test(test_fuse_bn_act),  cmocka_unit_test(test_batch_norm_act_op),
        cmocka_unit_test(test_fusion_out_of_memory),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
