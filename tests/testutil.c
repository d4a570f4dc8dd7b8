/* testutil.c - helpers the cmocka tests share (see testutil.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "cpu/gemm.h"

#include "lib/paddle/tensor_api.h"

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n < 0 ? NULL : malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return buf;
}

void *tu_load_file(const char *path, size_t *len)
{
    char *buf = tu_read_file(path, len);
    if (!buf)
        fail_msg("cannot read %s", path);
    return buf;
}

char *tu_slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    return s;
}

void tu_tmp_path(char *out, size_t n, const char *prefix, const char *tag)
{
    const char *dir = getenv("TMPDIR");
    snprintf(out, n, "%s/%s_%ld_%s", dir && *dir ? dir : "/tmp", prefix, (long)getpid(), tag);
}

static char scratch[512];

void tu_enter_scratch(const char *tag, char *oldcwd, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/dy2st-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
    assert_non_null(mkdtemp(scratch));
    assert_non_null(getcwd(oldcwd, n));
    assert_int_equal(chdir(scratch), 0);
}

const char *tu_scratch_dir(void)
{
    return scratch;
}

void tu_leave_scratch(const char *oldcwd)
{
    assert_int_equal(chdir(oldcwd), 0);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    assert_int_equal(system(cmd), 0);
}

void tu_show_diff(const char *name, const char *got, const char *want)
{
    int line = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        if (*g == '\n')
            line++;
        g++;
        w++;
    }
    while (g > got && g[-1] != '\n')
        g--;
    while (w > want && w[-1] != '\n')
        w--;
    fprintf(stderr, "%s: first difference at line %d\n  got:  %.*s\n  want: %.*s\n", name, line,
            (int)strcspn(g, "\n"), g, (int)strcspn(w, "\n"), w);
}

d2_interp *tu_new_interp(FILE *out)
{
    d2_interp_options opt;
    memset(&opt, 0, sizeof opt);
    opt.out = out;
    opt.quiet_warnings = true;
    d2_err err = {0};
    d2_interp *I = d2_interp_new(&opt, &err);
    if (!I)
        fail_msg("d2_interp_new: %s", err.msg);
    return I;
}

d2_interp *tu_new_paddle_interp(FILE *out)
{
    d2_interp *I = tu_new_interp(out);
    if (!d2_dict_get_str(I, I->modules, "paddle")) {
        assert_int_equal(d2_tensor_api_init(I), 0);
        assert_int_equal(d2_numpy_api_init(I), 0);
    }
    return I;
}

const char *tu_exc_message(d2_interp *I)
{
    static char buf[2048];
    buf[0] = 0;
    if (!I->exc)
        return buf;
    d2_obj *e = I->exc;
    d2_incref(e);
    d2_exc_clear(I);
    d2_obj *s = d2_str_of(I, e);
    if (s && s->kind == D2_OBJ_STR)
        snprintf(buf, sizeof buf, "%s: %s", e->cls->name, D2_AS(d2_str, s)->s);
    d2_decref(s);
    d2_decref(e);
    return buf;
}

/* A number token at s (digits, sign, point, exponent, as Python prints floats and ints): its
 * value and end, or NULL where s does not start one. */
static const char *number_at(const char *s, double *v)
{
    if (!(isdigit((unsigned char)*s) || ((*s == '-' || *s == '.') && isdigit((unsigned char)s[1]))))
        return NULL;
    char *end;
    *v = strtod(s, &end);
    return end > s ? end : NULL;
}

bool tu_text_close(const char *got, const char *want, double tol)
{
    const char *g = got, *w = want;
    while (*g && *w) {
        double a, b;
        const char *ge = number_at(g, &a), *we = number_at(w, &b);
        /* a number starts at a token boundary only: not inside a name such as fc2 */
        bool boundary = g == got || !isalnum((unsigned char)g[-1]);
        if (ge && we && boundary) {
            /* the slack absorbs the binary representation of the decimal difference */
            if (!(fabs(a - b) <= tol * (1 + 1e-9)))
                return false;
            g = ge;
            w = we;
        } else if (*g++ != *w++) {
            return false;
        }
    }
    return *g == *w;
}

static void run_paddle_golden(const char *name, double tol)
{
    char py[1024], outp[1024];
    snprintf(py, sizeof py, "%s/tests/py_paddle/%s.py", D2_SRCDIR, name);
    snprintf(outp, sizeof outp, "%s/tests/py_paddle/%s.out", D2_SRCDIR, name);
    FILE *out = tmpfile();
    assert_non_null(out);
    d2_interp *I = tu_new_paddle_interp(out);
    int rc = d2_interp_run_file(I, py);
    if (rc < 0) {
        d2_buf b;
        d2_buf_init(&b);
        d2_diag_render(&I->diag, &b);
        fprintf(stderr, "%s failed:\n%s\n", name, b.data ? b.data : "");
        d2_buf_free(&b);
    }
    d2_interp_free(I);
    char *got = tu_slurp(out);
    fclose(out);
    char *want = tu_read_file(outp, NULL);
    assert_non_null(want);
    bool same = tol > 0 ? tu_text_close(got, want, tol) : strcmp(got, want) == 0;
    if (!same)
        tu_show_diff(name, got, want);
    assert_int_equal(rc, 0);
    if (tol > 0)
        assert_true(same);
    else
        assert_string_equal(got, want);
    free(got);
    free(want);
}

void tu_run_paddle_golden(const char *name) { run_paddle_golden(name, 0); }

void tu_run_paddle_golden_tol(const char *name, double tol) { run_paddle_golden(name, tol); }

char *tu_run_source(const d2_interp_options *opt, const char *file, const char *src,
                    bool all_diags, int *rc)
{
    FILE *out = tmpfile(), *errout = NULL;
    assert_non_null(out);
    d2_interp_options o = *opt;
    o.out = out;
    if (all_diags) {
        errout = tmpfile(); /* warnings are read from the diagnostics instead */
        assert_non_null(errout);
        o.errout = errout;
    }
    d2_err err = {0};
    d2_interp *I = d2_interp_new(&o, &err);
    if (!I)
        fail_msg("d2_interp_new: %s", err.msg);
    *rc = d2_interp_run_source(I, file, src, strlen(src));
    if (all_diags || *rc < 0) {
        d2_buf b;
        d2_buf_init(&b);
        d2_diag_render(&I->diag, &b);
        if (b.data)
            fputs(b.data, out);
        d2_buf_free(&b);
    }
    d2_interp_free(I);
    char *s = tu_slurp(out);
    fclose(out);
    if (errout)
        fclose(errout);
    return s;
}

int tu_keep_array(void *ctx, const char *name, d2_tensor *t, d2_err *err)
{
    (void)err;
    tu_arrays *a = ctx;
    if (a->n >= TU_MAX_ARRAYS)
        return 1;
    a->name[a->n] = strdup(name);
    a->t[a->n] = d2_tensor_ref(t);
    a->n++;
    return 0;
}

d2_tensor *tu_find_array(tu_arrays *a, const char *name)
{
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->name[i], name) == 0)
            return a->t[i];
    return NULL;
}

void tu_free_arrays(tu_arrays *a)
{
    for (int i = 0; i < a->n; i++) {
        free(a->name[i]);
        d2_tensor_unref(a->t[i]);
    }
    a->n = 0;
}

double tu_json_number(const char *json, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(json, k);
    assert_non_null(p);
    return strtod(p + strlen(k), NULL);
}

void tu_expect_close(const char *what, const d2_tensor *got, const d2_tensor *want, double rtol,
                     double atol, const char *ref)
{
    assert_int_equal(got->dtype, want->dtype);
    assert_int_equal(got->ndim, want->ndim);
    for (int d = 0; d < got->ndim; d++)
        assert_int_equal(got->shape[d], want->shape[d]);
    int64_t n = d2_tensor_numel(want);
    d2_err err = {0};
    d2_tensor *g = d2_tensor_contiguous((d2_tensor *)got, &err);
    assert_non_null(g);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double x = d2_tensor_get_f64(g, i), y = d2_tensor_get_f64(want, i);
        if (!(fabs(x - y) <= atol + rtol * fabs(y)) && bad++ < 5)
            fprintf(stderr, "%s: element %lld is %.9g, %s gives %.9g\n", what, (long long)i, x,
                    ref, y);
    }
    d2_tensor_unref(g);
    assert_int_equal(bad, 0);
}

d2_type tu_ttype(d2_dtype dt, int ndim, const int64_t *dims)
{
    d2_type t;
    memset(&t, 0, sizeof t);
    t.kind = D2_VALUE_TENSOR;
    t.dtype = dt;
    t.shape.ndim = ndim;
    for (int i = 0; i < ndim; i++)
        t.shape.dims[i] = dims[i];
    return t;
}

int tu_infer(const char *name, const char *attrs, const d2_type *in, int n_in, d2_type *out,
             d2_err *err)
{
    const d2_opdef *def = d2_op_lookup(name, strlen(name));
    assert_non_null(def);
    d2_attrs a;
    assert_int_equal(d2_attrs_parse(def, attrs, &a, err), 0);
    int rc = d2_op_infer(def, &a, in, NULL, n_in, out, 1, err);
    d2_attrs_free(&a);
    return rc;
}

void tu_assert_shape(const d2_type *t, d2_dtype dt, int ndim, const int64_t *dims)
{
    assert_int_equal(t->dtype, dt);
    assert_int_equal(t->shape.ndim, ndim);
    for (int i = 0; i < ndim; i++)
        assert_int_equal(t->shape.dims[i], dims[i]);
}

d2_tensor *tu_filled_f32(int ndim, const int64_t *shape, unsigned seed)
{
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, D2_F32, ndim, shape, &err);
    assert_non_null(t);
    float *p = d2_tensor_data(t);
    unsigned s = seed * 2654435761u + 12345u;
    for (int64_t i = 0; i < d2_tensor_numel(t); i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
    return t;
}

double tu_max_rel_diff(const d2_tensor *a, const d2_tensor *b)
{
    assert_int_equal(d2_tensor_numel(a), d2_tensor_numel(b));
    const float *pa = d2_tensor_data(a), *pb = d2_tensor_data(b);
    double m = 0;
    for (int64_t i = 0; i < d2_tensor_numel(a); i++) {
        double d = fabs((double)pa[i] - (double)pb[i]) / fmax(1.0, fabs((double)pb[i]));
        if (isnan(d))
            return INFINITY;
        m = d > m ? d : m;
    }
    return m;
}

d2_tensor *tu_run_on_threads(d2_op_id op, const d2_attrs *attrs, d2_tensor *x)
{
    d2_err err = {0};
    d2_tensor *ref = NULL;
    for (int nt = 1; nt <= 3; nt++) {
        d2_gemm_set_threads(nt);
        d2_tensor *out = NULL;
        if (d2_op_run(NULL, op, attrs, &x, 1, &out, 1, &err) != 0)
            fail_msg("%s on %d threads: %s", d2_op_def(op)->name, nt, err.msg);
        if (!ref) {
            ref = out;
            continue;
        }
        if (d2_tensor_numel(out) != d2_tensor_numel(ref) ||
            memcmp(d2_tensor_data(out), d2_tensor_data(ref),
                   (size_t)d2_tensor_numel(ref) * sizeof(float)) != 0)
            fail_msg("%s on %d threads differs from one thread", d2_op_def(op)->name, nt);
        d2_tensor_unref(out);
    }
    d2_gemm_set_threads(0);
    return ref;
}
