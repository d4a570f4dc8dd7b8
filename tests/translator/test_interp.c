/* test_interp.c - the interpreter: CPython-checked scripts, rendered diagnostics, memory, the C API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/interp.h"
#include "../testutil.h"

#define PY_DIR D2_SRCDIR "/tests/py"
#define ERR_DIR D2_SRCDIR "/tests/py/errors"

/* Every diagnostic except warnings, rendered; caller frees. */
static char *render_errors(const d2_interp *I)
{
    d2_buf b;
    d2_buf_init(&b);
    for (const d2_diag_item *it = I->diag.first; it; it = it->next)
        if (it->severity != D2_DIAG_WARNING)
            d2_diag_render_item(it, &b);
    d2_buf_append(&b, "", 1);
    char *s = strdup(b.data);
    d2_buf_free(&b);
    return s;
}

/* Runs src as a script; returns its output (caller frees) and rc. */
static char *run(d2_interp *I, FILE *out, const char *src, int *rc)
{
    rewind(out);
    *rc = d2_interp_run_source(I, "test.py", src, strlen(src));
    char *s = tu_slurp(out);
    rewind(out);
    return s;
}

/* Sorted names of the scripts in dir (not starting with '_'); returns count. */
static int list_scripts(const char *dir, char names[][128], int max)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        size_t len = strlen(e->d_name);
        if (len < 4 || len >= 128 || e->d_name[0] == '_' || strcmp(e->d_name + len - 3, ".py") != 0)
            continue;
        snprintf(names[n++], 128, "%.*s", (int)(len - 3), e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    return n;
}

/* Each tests/py/NAME.py prints what CPython printed (NAME.out, from tests/gen/gen_py_expected.py). */
static void test_scripts_match_cpython(void **state)
{
    (void)state;
    static char names[256][128];
    int n = list_scripts(PY_DIR, names, 256);
    assert_true(n >= 12);
    int failures = 0;
    for (int i = 0; i < n; i++) {
        char path[512], outp[512];
        snprintf(path, sizeof path, "%s/%.100s.py", PY_DIR, names[i]);
        snprintf(outp, sizeof outp, "%s/%.100s.out", PY_DIR, names[i]);
        char *want = tu_read_file(outp, NULL);
        if (!want) {
            fprintf(stderr, "%s: no expected output %s\n", names[i], outp);
            failures++;
            continue;
        }
        FILE *out = tmpfile();
        assert_non_null(out);
        d2_interp *I = tu_new_interp(out);
        int rc = d2_interp_run_file(I, path);
        char *got = tu_slurp(out);
        if (rc != 0) {
            char *diag = render_errors(I);
            fprintf(stderr, "%s: failed:\n%s", names[i], diag);
            free(diag);
            failures++;
        } else if (strcmp(got, want) != 0) {
            tu_show_diff(names[i], got, want);
            failures++;
        }
        free(got);
        free(want);
        d2_interp_free(I);
        fclose(out);
    }
    assert_int_equal(failures, 0);
}

/* Removes every occurrence of prefix from s in place. */
static void strip_all(char *s, const char *prefix)
{
    size_t pl = strlen(prefix);
    char *p;
    while ((p = strstr(s, prefix)))
        memmove(p, p + pl, strlen(p + pl) + 1);
}

/* Each tests/py/errors/NAME.py fails with the diagnostics written by hand in NAME.err. */
static void test_error_diagnostics(void **state)
{
    (void)state;
    static char names[128][128];
    int n = list_scripts(ERR_DIR, names, 128);
    assert_true(n >= 10);
    int failures = 0;
    for (int i = 0; i < n; i++) {
        char path[512], errp[512];
        snprintf(path, sizeof path, "%s/%.100s.py", ERR_DIR, names[i]);
        snprintf(errp, sizeof errp, "%s/%.100s.err", ERR_DIR, names[i]);
        char *want = tu_read_file(errp, NULL);
        assert_non_null(want);
        FILE *out = tmpfile();
        d2_interp *I = tu_new_interp(out);
        int rc = d2_interp_run_file(I, path);
        char *got = render_errors(I);
        strip_all(got, ERR_DIR "/");
        if (rc != -1) {
            fprintf(stderr, "%s: expected failure, got rc %d\n", names[i], rc);
            failures++;
        } else if (strcmp(got, want) != 0) {
            tu_show_diff(names[i], got, want);
            failures++;
        }
        free(got);
        free(want);
        d2_interp_free(I);
        fclose(out);
    }
    assert_int_equal(failures, 0);
}

static d2_obj *fn_live(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    (void)self;
    (void)args;
    (void)nargs;
    (void)kw;
    return d2_int_new(I, (int64_t)d2_interp_live_objects(I));
}

/* A million iterations that create ints, strings, lists, dicts, instances
 * and closures leave the number of live objects unchanged: reference
 * counting reclaims everything while the script runs. */
static void test_memory_is_reclaimed(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    d2_interp *I = tu_new_interp(out);
    d2_obj *live = d2_builtin_new(I, "live", fn_live, NULL, NULL);
    d2_dict_set_str(I, I->builtins, "live", live);
    d2_decref(live);
    int rc;
    char *o = run(I, out,
                  "class P:\n"
                  "    def __init__(self, v):\n"
                  "        self.v = v\n"
                  "def step(i):\n"
                  "    s = str(i) + '-' + str(i * 2)\n"
                  "    l = [i, s, (i, i + 1), {'k': [i]}]\n"
                  "    p = P(l)\n"
                  "    f = lambda: p.v[0] + i\n"
                  "    return f() + len(s) + 1000000000\n"
                  "def work(n):\n"
                  "    total = 0\n"
                  "    for i in range(n):\n"
                  "        total += step(i) % 7\n"
                  "        big = 10 ** 12 + i\n"
                  "    return total\n"
                  "work(10)\n"
                  "before = live()\n"
                  "total = work(1000000)\n"
                  "after = live()\n"
                  "print(total, after - before < 16)\n",
                  &rc);
    assert_int_equal(rc, 0);
    /* a few new globals and constants, nothing per iteration */
    assert_string_equal(o, "3000004 True\n");
    free(o);
    d2_interp_free(I);
    fclose(out);
}

/* Cycles survive reference counting and are freed at teardown (checked by
 * the sanitizer build's leak detector). */
static void test_cycles_freed_at_teardown(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    d2_interp *I = tu_new_interp(out);
    size_t before = d2_interp_live_objects(I);
    int rc;
    char *o = run(I, out,
                  "def make():\n"
                  "    a = []\n"
                  "    a.append(a)\n"
                  "    d = {}\n"
                  "    d['self'] = d\n"
                  "    class Node:\n"
                  "        pass\n"
                  "    n = Node()\n"
                  "    n.me = n\n"
                  "    def rec():\n"
                  "        return rec\n"
                  "    return len(a) + len(d)\n"
                  "for _ in range(100):\n"
                  "    make()\n"
                  "print('done')\n",
                  &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(o, "done\n");
    free(o);
    assert_true(d2_interp_live_objects(I) > before + 500);
    d2_interp_free(I);
    fclose(out);
}

/* Runaway recursion is a RecursionError, never a stack overflow; deep data
 * structures are freed without deep C recursion. */
static void test_recursion_limits(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    d2_interp *I = tu_new_interp(out);
    int rc;
    char *o = run(I, out,
                  "def down(n):\n"
                  "    return down(n + 1) + 1\n"
                  "try:\n"
                  "    down(0)\n"
                  "except RecursionError as e:\n"
                  "    print('caught', e)\n"
                  "class R:\n"
                  "    def __repr__(self):\n"
                  "        return repr(self)\n"
                  "try:\n"
                  "    repr(R())\n"
                  "except RecursionError:\n"
                  "    print('repr loop caught')\n"
                  "x = []\n"
                  "for i in range(200000):\n"
                  "    x = [x]\n"
                  "try:\n"
                  "    s = str(x)\n"
                  "except RecursionError:\n"
                  "    print('deep repr caught')\n"
                  "del x\n"
                  "print('freed')\n",
                  &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(o, "caught maximum recursion depth exceeded\nrepr loop caught\ndeep repr caught\nfreed\n");
    free(o);
    /* uncaught: rendered with one note per calling frame */
    o = run(I, out, "def f(n):\n    return f(n + 1)\nf(0)\n", &rc);
    assert_int_equal(rc, -1);
    free(o);
    char *diag = render_errors(I);
    assert_non_null(strstr(diag, "test.py:2:12: error: RecursionError: maximum recursion depth exceeded"));
    assert_non_null(strstr(diag, "test.py:3:1: note: called from here"));
    free(diag);
    d2_interp_free(I);
    fclose(out);
}

/* ---- the C API ---- */

static d2_obj *fn_scale(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    (void)self;
    d2_obj *a[4];
    if (d2_parse_args(I, "scale", "x, factor=2, *, bias=0.5, name=None", args, nargs, kw, a) < 0)
        return NULL;
    double x, f, b;
    if (d2_to_double(I, a[0], "x", &x) < 0 || d2_to_double(I, a[1], "factor", &f) < 0 ||
        d2_to_double(I, a[2], "bias", &b) < 0)
        return NULL;
    return d2_float_new(I, x * f + b);
}

static d2_obj *fn_collect(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    (void)self;
    d2_obj *a[3];
    if (d2_parse_args(I, "collect", "first, *rest, **extra", args, nargs, kw, a) < 0)
        return NULL;
    return d2_tuple_pack(I, 3, a[0], a[1], a[2]);
}

static d2_obj *counter_get(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    (void)args;
    (void)nargs;
    (void)kw;
    d2_obj *v = d2_dict_get_str(I, D2_AS(d2_instance, self)->dict, "_n");
    return d2_int_new(I, v ? D2_AS(d2_int, v)->v : 0);
}

static d2_obj *counter_bump(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    (void)kw;
    int64_t step = 1;
    if (nargs > 0 && d2_to_int64(I, args[0], "step", &step) < 0)
        return NULL;
    d2_obj *v = d2_dict_get_str(I, D2_AS(d2_instance, self)->dict, "_n");
    d2_obj *n = d2_int_new(I, (v ? D2_AS(d2_int, v)->v : 0) + step);
    if (!n || d2_dict_set_str(I, D2_AS(d2_instance, self)->dict, "_n", n) < 0) {
        d2_decref(n);
        return NULL;
    }
    d2_decref(n);
    return d2_incref(self);
}

static void test_c_api(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    d2_interp *I = tu_new_interp(out);
    /* dicts: growth, deletion, order, numeric key equivalence */
    d2_obj *d = d2_dict_new(I);
    for (int i = 0; i < 1000; i++) {
        d2_obj *k = d2_int_new(I, i), *v = d2_str_printf(I, "v%d", i);
        assert_int_equal(d2_dict_set(I, D2_AS(d2_dict, d), k, v), 0);
        d2_decref(k);
        d2_decref(v);
    }
    for (int i = 0; i < 1000; i += 2) {
        d2_obj *k = d2_float_new(I, i);
        assert_int_equal(d2_dict_del(I, D2_AS(d2_dict, d), k), 0);
        d2_decref(k);
    }
    assert_int_equal(d2_len(I, d), 500);
    d2_obj *k = d2_int_new(I, 999);
    d2_obj *v = d2_dict_get(I, D2_AS(d2_dict, d), k);
    assert_non_null(v);
    assert_string_equal(D2_AS(d2_str, v)->s, "v999");
    d2_decref(k);
    k = d2_int_new(I, 4);
    assert_null(d2_dict_get(I, D2_AS(d2_dict, d), k));
    assert_false(d2_exc_pending(I));
    assert_int_equal(d2_dict_del(I, D2_AS(d2_dict, d), k), -1);
    assert_true(d2_exc_matches(I, d2_exc_class(I, "KeyError")));
    d2_exc_clear(I);
    d2_decref(k);
    d2_obj *l = d2_list_new(I, 0);
    assert_int_equal(d2_dict_set(I, D2_AS(d2_dict, d), l, l), -1); /* unhashable */
    assert_true(d2_exc_matches(I, d2_exc_class(I, "TypeError")));
    d2_exc_clear(I);
    d2_decref(l);
    d2_obj *r = d2_repr(I, d);
    assert_true(strncmp(D2_AS(d2_str, r)->s, "{1: 'v1', 3: 'v3', 5: 'v5'", 26) == 0);
    d2_decref(r);
    d2_decref(d);

    /* builtins written in C, called from Python */
    assert_int_equal(d2_dict_set_str(I, I->builtins, "scale", d2_builtin_new(I, "scale", fn_scale, NULL, NULL)), 0);
    d2_decref(d2_dict_get_str(I, I->builtins, "scale"));
    d2_obj *coll = d2_builtin_new(I, "collect", fn_collect, NULL, NULL);
    d2_dict_set_str(I, I->builtins, "collect", coll);
    d2_decref(coll);
    d2_class *cls = d2_class_new_builtin(I, "Counter", NULL, D2_OBJ_INSTANCE, NULL);
    assert_non_null(cls);
    assert_int_equal(d2_class_add_method(I, cls, "bump", counter_bump), 0);
    assert_int_equal(d2_class_add_property(I, cls, "count", counter_get, NULL), 0);
    d2_dict_set_str(I, I->builtins, "Counter", (d2_obj *)cls);
    int rc;
    char *o = run(I, out,
                  "print(scale(3), scale(3, 10), scale(x=1, bias=0), scale(2, factor=0.5, name='n'))\n"
                  "print(collect(1), collect(1, 2, 3, k=4))\n"
                  "class Sub(Counter):\n"
                  "    def twice(self):\n"
                  "        return self.bump().bump()\n"
                  "c = Sub()\n"
                  "c.twice().bump(5)\n"
                  "print(c.count, isinstance(c, Counter), type(c).__mro__[1].__name__)\n"
                  "for bad in ('scale()', 'scale(1, 2, 3)', 'scale(1, bias=1, bias2=2)', 'scale(1, x=2)', 'c.count = 3'):\n"
                  "    try:\n"
                  "        exec_me = bad\n"
                  "        if bad == 'scale()': scale()\n"
                  "        elif bad == 'scale(1, 2, 3)': scale(1, 2, 3)\n"
                  "        elif bad == 'scale(1, x=2)': scale(1, x=2)\n"
                  "        elif bad == 'c.count = 3': c.count = 3\n"
                  "        else: scale(1, bias=1, bias2=2)\n"
                  "    except (TypeError, AttributeError) as e:\n"
                  "        print(type(e).__name__, e)\n"
                  "def py_add(a, b=10, *rest, **kw):\n"
                  "    return a + b + sum(rest) + len(kw)\n",
                  &rc);
    if (rc != 0) {
        char *diag = render_errors(I);
        fprintf(stderr, "%s", diag);
        free(diag);
    }
    assert_int_equal(rc, 0);
    assert_string_equal(o, "6.5 30.5 2.0 1.5\n"
                           "(1, (), {}) (1, (2, 3), {'k': 4})\n"
                           "7 True Counter\n"
                           "TypeError scale() missing required argument 'x' (pos 1)\n"
                           "TypeError scale() takes at most 2 arguments (3 given)\n"
                           "TypeError scale() got an unexpected keyword argument 'bias2'\n"
                           "TypeError scale() got multiple values for argument 'x'\n"
                           "AttributeError property 'count' of 'Sub' object has no setter\n");
    free(o);

    /* calling Python from C */
    d2_obj *mainm = d2_dict_get_str(I, I->modules, "__main__");
    assert_non_null(mainm);
    d2_obj *fn = d2_getattr(I, mainm, "py_add");
    assert_non_null(fn);
    d2_obj *args[3] = {d2_int_new(I, 1), d2_int_new(I, 2), d2_int_new(I, 3)};
    d2_obj *kw = d2_dict_new(I);
    d2_dict_set_str(I, D2_AS(d2_dict, kw), "z", I->none);
    d2_obj *res = d2_call(I, fn, args, 3, D2_AS(d2_dict, kw));
    assert_non_null(res);
    assert_int_equal(D2_AS(d2_int, res)->v, 7);
    d2_decref(res);
    res = d2_call(I, fn, NULL, 0, NULL);
    assert_null(res);
    assert_true(d2_exc_matches(I, d2_exc_class(I, "TypeError")));
    d2_obj *msg = d2_str_of(I, I->exc);
    assert_string_equal(D2_AS(d2_str, msg)->s, "py_add() missing 1 required positional argument: 'a'");
    d2_decref(msg);
    d2_exc_clear(I);
    for (int i = 0; i < 3; i++)
        d2_decref(args[i]);
    d2_decref(kw);
    d2_decref(fn);

    /* operators: 64-bit overflow is an error, never undefined behaviour */
    d2_obj *big = d2_int_new(I, INT64_MAX), *one = d2_int_new(I, 1), *neg = d2_int_new(I, INT64_MIN);
    assert_null(d2_binop(I, D2_OP_ADD, big, one));
    assert_true(d2_exc_matches(I, d2_exc_class(I, "OverflowError")));
    d2_exc_clear(I);
    d2_obj *m1 = d2_int_new(I, -1);
    assert_null(d2_binop(I, D2_OP_FLOOR_DIV, neg, m1));
    d2_exc_clear(I);
    assert_null(d2_binop(I, D2_OP_MULT, big, big));
    d2_exc_clear(I);
    assert_null(d2_unaryop(I, D2_UNARY_USUB, neg));
    d2_exc_clear(I);
    res = d2_binop(I, D2_OP_MOD, neg, m1);
    assert_non_null(res);
    assert_int_equal(D2_AS(d2_int, res)->v, 0);
    d2_decref(res);
    d2_obj *sixty4 = d2_int_new(I, 64);
    assert_null(d2_binop(I, D2_OP_LSHIFT, one, sixty4));
    d2_exc_clear(I);
    res = d2_binop(I, D2_OP_RSHIFT, neg, sixty4);
    assert_int_equal(D2_AS(d2_int, res)->v, -1);
    d2_decref(res);
    d2_decref(big);
    d2_decref(one);
    d2_decref(neg);
    d2_decref(m1);
    d2_decref(sixty4);

    /* float repr is the shortest round-trip string */
    static const struct {
        double v;
        const char *s;
    } fr[] = {{0.1, "0.1"}, {1.0 / 3, "0.3333333333333333"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"},
              {1e-5, "1e-05"}, {1e-4, "0.0001"}, {-0.0, "-0.0"}, {5e-324, "5e-324"},
              {1.7976931348623157e308, "1.7976931348623157e+308"}, {123456789.125, "123456789.125"}};
    for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++) {
        d2_obj *f = d2_float_new(I, fr[i].v);
        d2_obj *s = d2_repr(I, f);
        assert_string_equal(D2_AS(d2_str, s)->s, fr[i].s);
        d2_decref(s);
        d2_decref(f);
    }
    d2_interp_free(I);
    fclose(out);
}

/* d2_interp_exec_ast: a tree parsed elsewhere runs in an existing module's
 * globals and leaves its exception pending. */
static void test_exec_ast(void **state)
{
    (void)state;
    d2_arena *a = d2_arena_new(); /* the tree must outlive the interpreter */
    FILE *out = tmpfile();
    d2_interp *I = tu_new_interp(out);
    int rc;
    char *o = run(I, out, "x = 21\ndef twice(v):\n    return 2 * v\n", &rc);
    assert_int_equal(rc, 0);
    free(o);
    d2_diag diag;
    d2_diag_init(&diag, a);
    const char *src = "y = twice(x)\nprint(y)\nz = y + missing\n";
    const d2_ast_module *ast = d2_ast_parse(a, "extra.py", src, strlen(src), &diag);
    assert_non_null(ast);
    d2_module *m = D2_AS(d2_module, d2_dict_get_str(I, I->modules, "__main__"));
    rewind(out);
    assert_int_equal(d2_interp_exec_ast(I, ast, m), -1);
    assert_true(d2_exc_matches(I, d2_exc_class(I, "NameError")));
    assert_int_equal(I->exc_span.line, 3);
    assert_int_equal(I->exc_span.col, 8);
    d2_exc_clear(I);
    o = tu_slurp(out);
    assert_string_equal(o, "42\n");
    free(o);
    d2_obj *y = d2_dict_get_str(I, m->dict, "y");
    assert_non_null(y);
    assert_int_equal(D2_AS(d2_int, y)->v, 42);
    d2_interp_free(I);
    fclose(out);
    d2_arena_delete(a);
}

/* ---- per-layout hooks: a fake layout that behaves like a tiny vector ---- */

typedef struct {
    d2_obj h;
    d2_dtype dt;
    bool np_style; /* the DTYPE layout's struct; dt holds the fake value */
} fake_obj;

static d2_class *fake_cls;

static int64_t fake_val(d2_obj *o) { return (int64_t)((fake_obj *)o)->dt; }

static d2_obj *fake_new(d2_interp *I, int64_t v)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_DTYPE, fake_cls, sizeof(fake_obj));
    if (o)
        ((fake_obj *)o)->dt = (d2_dtype)v;
    return o;
}

static d2_obj *fake_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (op != D2_OP_ADD && op != D2_OP_MULT)
        return d2_incref(I->not_implemented);
    int64_t x, y;
    if (a->cls == fake_cls)
        x = fake_val(a);
    else if (a->kind == D2_OBJ_INT)
        x = D2_AS(d2_int, a)->v;
    else
        return d2_incref(I->not_implemented);
    if (b->cls == fake_cls)
        y = fake_val(b);
    else if (b->kind == D2_OBJ_INT)
        y = D2_AS(d2_int, b)->v;
    else
        return d2_incref(I->not_implemented);
    return fake_new(I, op == D2_OP_ADD ? x + y : x * y);
}

static int fake_truthy(d2_interp *I, d2_obj *o)
{
    (void)I;
    return fake_val(o) != 0;
}

static int64_t fake_len(d2_interp *I, d2_obj *o)
{
    (void)I;
    return fake_val(o);
}

static d2_obj *fake_getitem(d2_interp *I, d2_obj *o, d2_obj *key)
{
    int64_t i;
    if (d2_to_int64(I, key, "index", &i) < 0)
        return NULL;
    if (i < 0 || i >= fake_val(o))
        return d2_raise(I, "IndexError", "fake index out of range");
    return d2_int_new(I, i * 100);
}

static d2_obj *fake_iter(d2_interp *I, d2_obj *o)
{
    d2_obj *l = d2_list_new(I, 0);
    for (int64_t i = 0; l && i < fake_val(o); i++) {
        d2_obj *v = d2_int_new(I, i);
        d2_list_append(I, l, v);
        d2_decref(v);
    }
    d2_obj *it = l ? d2_get_iter(I, l) : NULL;
    d2_decref(l);
    return it;
}

static d2_obj *fake_repr(d2_interp *I, d2_obj *o) { return d2_str_printf(I, "Fake(%lld)", (long long)fake_val(o)); }

static d2_obj *fake_getattr(d2_interp *I, d2_obj *o, const char *name)
{
    if (strcmp(name, "value") == 0)
        return d2_int_new(I, fake_val(o));
    return NULL;
}

static d2_obj *fake_to_number(d2_interp *I, d2_obj *o, d2_obj_kind to)
{
    return to == D2_OBJ_FLOAT ? d2_float_new(I, (double)fake_val(o)) : d2_int_new(I, fake_val(o));
}

static d2_obj *fake_compare(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if (op != D2_CMP_EQ || a->cls != fake_cls || b->cls != fake_cls)
        return d2_incref(I->not_implemented);
    return d2_str_printf(I, "eq(%lld,%lld)", (long long)fake_val(a), (long long)fake_val(b));
}

static const d2_type_hooks fake_hooks = {
    .binop = fake_binop, .compare = fake_compare, .truthy = fake_truthy, .len = fake_len,
    .getitem = fake_getitem, .get_iter = fake_iter, .repr = fake_repr, .getattr = fake_getattr,
    .to_number = fake_to_number,
};

static d2_obj *make_fake(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    (void)self;
    (void)kw;
    int64_t v;
    if (nargs != 1 || d2_to_int64(I, args[0], "v", &v) < 0)
        return NULL;
    return fake_new(I, v);
}

static void test_layout_hooks(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    d2_interp *I = tu_new_interp(out);
    fake_cls = d2_class_new_builtin(I, "Fake", NULL, D2_OBJ_DTYPE, NULL);
    const d2_type_hooks *saved = I->hooks[D2_OBJ_DTYPE];
    I->hooks[D2_OBJ_DTYPE] = &fake_hooks;
    d2_obj *mk = d2_builtin_new(I, "make_fake", make_fake, NULL, NULL);
    d2_dict_set_str(I, I->builtins, "make_fake", mk);
    d2_decref(mk);
    int rc;
    char *o = run(I, out,
                  "a = make_fake(3)\n"
                  "print(a, a + 4, 2 * a, a + a, len(a), list(a), a[2], bool(a), bool(make_fake(0)))\n"
                  "print(a.value, int(a), float(a), [1, 2, 3, 4][a], range(a), a == make_fake(5), f'{a!r}')\n"
                  "s = 0\n"
                  "for x in make_fake(4):\n"
                  "    s += x\n"
                  "print(s, 'yes' if make_fake(1) else 'no', max([a, make_fake(1)], key=lambda f: f.value))\n"
                  "try:\n"
                  "    a - 1\n"
                  "except TypeError as e:\n"
                  "    print(e)\n"
                  "try:\n"
                  "    a[7]\n"
                  "except IndexError as e:\n"
                  "    print(e)\n",
                  &rc);
    if (rc != 0) {
        char *diag = render_errors(I);
        fprintf(stderr, "%s", diag);
        free(diag);
    }
    assert_int_equal(rc, 0);
    assert_string_equal(o, "Fake(3) Fake(7) Fake(6) Fake(6) 3 [0, 1, 2] 200 True False\n"
                           "3 3 3.0 4 range(0, 3) eq(3,5) Fake(3)\n"
                           "6 yes Fake(3)\n"
                           "unsupported operand type(s) for -: 'Fake' and 'int'\n"
                           "fake index out of range\n");
    free(o);
    I->hooks[D2_OBJ_DTYPE] = saved;
    d2_interp_free(I);
    fclose(out);
}

/* open(): text files written and read back (the path is a fresh temporary file). */
static void test_text_files(void **state)
{
    (void)state;
    char path[] = "/tmp/d2interpXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char src[2048];
    snprintf(src, sizeof src,
             "path = '%s'\n"
             "with open(path, 'w') as f:\n"
             "    f.write('line one\\n')\n"
             "    f.write('line two\\nlast')\n"
             "with open(path) as f:\n"
             "    print(repr(f.read()))\n"
             "f = open(path)\n"
             "print(f.readline(), end='')\n"
             "print(f.readlines())\n"
             "f.close()\n"
             "for line in open(path):\n"
             "    print(line.rstrip())\n"
             "with open(path, 'a') as f:\n"
             "    print(f.write('\\nappended'))\n"
             "print(open(path).read().splitlines())\n"
             "try:\n"
             "    open(path + '.missing/x')\n"
             "except FileNotFoundError as e:\n"
             "    print(type(e).__name__)\n"
             "try:\n"
             "    f.read()\n"
             "except ValueError as e:\n"
             "    print(e)\n",
             path);
    FILE *out = tmpfile();
    d2_interp *I = tu_new_interp(out);
    int rc;
    char *o = run(I, out, src, &rc);
    unlink(path);
    assert_int_equal(rc, 0);
    assert_string_equal(o, "'line one\\nline two\\nlast'\n"
                           "line one\n"
                           "['line two\\n', 'last']\n"
                           "line one\n"
                           "line two\n"
                           "last\n"
                           "9\n"
                           "['line one', 'line two', 'last', 'appended']\n"
                           "FileNotFoundError\n"
                           "I/O operation on closed file.\n");
    free(o);
    d2_interp_free(I);
    fclose(out);
}

/* Out of memory at any allocation: creating an interpreter or running a
 * script fails cleanly (no crash; no leak under the sanitizer build). */
static void test_allocation_failures(void **state)
{
    (void)state;
    const char *src = "class A:\n"
                      "    def __init__(self, x):\n"
                      "        self.x = [x, str(x), {'k': x}]\n"
                      "def f(n):\n"
                      "    return [A(i).x for i in range(n)]\n"
                      "try:\n"
                      "    r = f(20)\n"
                      "except ZeroDivisionError:\n"
                      "    r = None\n"
                      "print(len(r), f'{1.5:.2f}', sorted({3, 1}))\n";
    int completed = 0, located = 0;
    /* one-time process-wide initialisation (the op registry) happens outside the window */
    FILE *out = tmpfile();
    d2_interp_free(tu_new_interp(out));
    for (long k = 0; k < 3600; k += 11) {
        d2_interp_options opt = {0};
        opt.out = out;
        d2_err err = {0};
        d2_alloc_fail_after(k);
        d2_interp *I = d2_interp_new(&opt, &err);
        if (I)
            d2_interp_run_source(I, "oom.py", src, strlen(src));
        d2_alloc_fail_after(-1);
        d2_interp_free(I);
    }
    /* failing inside the script at every allocation; running again after
     * the failure must not crash either (out of memory is sticky for the
     * interpreter's arena, so it may fail again) */
    for (long k = 0; k < 320; k++) {
        d2_interp *I = tu_new_interp(out);
        rewind(out);
        d2_alloc_fail_after(k);
        int rc = d2_interp_run_source(I, "oom.py", src, strlen(src));
        d2_alloc_fail_after(-1);
        completed += rc == 0;
        if (rc < 0) { /* a failure in the script is reported at its line */
            char *got = render_errors(I);
            located += strncmp(got, "oom.py:", 7) == 0 && strstr(got, "MemoryError: out of memory");
            free(got);
        }
        rewind(out);
        d2_interp_run_source(I, "again.py", src, strlen(src));
        d2_interp_free(I);
    }
    fclose(out);
    assert_true(completed > 0);
    assert_true(located > 0);
}

/* ---- hostile scripts: endless loops, files that are not scripts ---- */

/* A run past d2_interp_options.timeout_s stops with TimeoutError at the loop
 * or call it was in, even when the loop swallows exceptions. */
static void test_timeout(void **state)
{
    (void)state;
    d2_interp_options opt;
    memset(&opt, 0, sizeof opt);
    opt.quiet_warnings = true;
    opt.timeout_s = 0.2;
    int rc;
    char *got = tu_run_source(&opt, "t.py",
                              "i = 0\n"
                              "while i >= 0:\n"
                              "    try:\n"
                              "        i += 1\n"
                              "    except Exception:\n"
                              "        pass\n",
                              false, &rc);
    assert_int_equal(rc, -1);
    assert_string_equal(got, "t.py:2:7: error: TimeoutError: the run exceeded its time limit of "
                             "0.2 s\n"
                             "while i >= 0:\n"
                             "      ^~~~~~\n");
    free(got);
    /* a comprehension that builds nothing is stopped too */
    got = tu_run_source(&opt, "t.py",
                        "def f(n):\n"
                        "    return n + 1\n"
                        "total = sum([f(k) for k in range(10**12) if k < 0])\n",
                        false, &rc);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(got, "t.py:"));
    assert_non_null(strstr(got, "error: TimeoutError: the run exceeded its time limit of 0.2 s"));
    free(got);
    /* without a limit the same kind of loop ends normally */
    opt.timeout_s = 0;
    got = tu_run_source(&opt, "t.py", "i = 0\nwhile i < 100000:\n    i += 1\nprint(i)\n", false,
                        &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(got, "100000\n");
    free(got);
}

/* Only regular files of bounded size are read as scripts. */
static void test_script_files(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    d2_interp *I = tu_new_interp(out);
    assert_int_equal(d2_interp_run_file(I, "/dev/zero"), -1);
    char *got = render_errors(I);
    assert_string_equal(got, "/dev/zero: error: not a regular file\n");
    free(got);
    d2_interp_free(I);
    /* a sparse file above the size limit is refused before it is read */
    char path[] = "/tmp/d2_big_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)65 << 20), 0);
    close(fd);
    I = tu_new_interp(out);
    assert_int_equal(d2_interp_run_file(I, path), -1);
    got = render_errors(I);
    char want[256];
    snprintf(want, sizeof want,
             "%s: error: the file is 68157440 bytes, above the limit of 64 MiB\n", path);
    assert_string_equal(got, want);
    free(got);
    d2_interp_free(I);
    unlink(path);
    fclose(out);
}

/* An allocation failure from the runtime keeps the size it reports. */
static void test_runtime_nomem(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    d2_interp *I = tu_new_interp(out);
    d2_err err = {0};
    d2_err_set(&err, D2_ERR_NOMEM, "zeros: out of memory allocating 40000000000000 bytes");
    assert_null(d2_raise_err(I, &err));
    assert_true(d2_exc_pending(I));
    assert_string_equal(d2_type_name(I->exc), "MemoryError");
    d2_obj *s = d2_str_of(I, I->exc);
    assert_non_null(s);
    assert_string_equal(D2_AS(d2_str, s)->s, "zeros: out of memory allocating 40000000000000 bytes");
    d2_decref(s);
    d2_exc_clear(I);
    d2_interp_free(I);
    fclose(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scripts_match_cpython),
        cmocka_unit_test(test_error_diagnostics),
        cmocka_unit_test(test_memory_is_reclaimed),
        cmocka_unit_test(test_cycles_freed_at_teardown),
        cmocka_unit_test(test_recursion_limits),
        cmocka_unit_test(test_c_api),
        cmocka_unit_test(test_exec_ast),
        cmocka_unit_test(test_layout_hooks),
        cmocka_unit_test(test_text_files),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_script_files),
        cmocka_unit_test(test_runtime_nomem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
