/* opcase.c - reads and runs golden op case files (see opcase.h). */
#include "opcase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PORTS 16

typedef struct {
    char name[128];
    char op[64];
    char *attrs;
    int n_in, n_out;
    d2_tensor *in[MAX_PORTS];
    d2_tensor *out[MAX_PORTS];
    double rtol, atol;
    bool has_tol;
    char *error;
} opcase;

static void case_clear(opcase *c)
{
    free(c->attrs);
    free(c->error);
    for (int i = 0; i < c->n_in; i++)
        d2_tensor_unref(c->in[i]);
    for (int i = 0; i < c->n_out; i++)
        d2_tensor_unref(c->out[i]);
    memset(c, 0, sizeof *c);
}

/* Parses "DTYPE [dims] values..." into a CPU tensor; "none" gives NULL with *ok. */
static d2_tensor *parse_tensor(char *s, bool *ok)
{
    *ok = false;
    while (*s == ' ')
        s++;
    if (strncmp(s, "none", 4) == 0) {
        *ok = true;
        return NULL;
    }
    char *p = s;
    while (*p && *p != ' ')
        p++;
    int dt = d2_dtype_parse(s, (size_t)(p - s));
    if (dt < 0)
        return NULL;
    while (*p == ' ')
        p++;
    if (*p != '[')
        return NULL;
    p++;
    int64_t shape[D2_MAX_DIMS];
    int nd = 0;
    while (*p != ']') {
        if (nd == D2_MAX_DIMS)
            return NULL;
        char *e;
        shape[nd++] = strtoll(p, &e, 10);
        if (e == p)
            return NULL;
        p = e;
        if (*p == ',')
            p++;
    }
    p++;
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)dt, nd, shape, &err);
    if (!t)
        return NULL;
    int64_t n = d2_tensor_numel(t);
    void *data = d2_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        char *e;
        while (*p == ' ')
            p++;
        double v = strtod(p, &e);
        long long iv = strtoll(p, NULL, 10);
        if (e == p) {
            d2_tensor_unref(t);
            return NULL;
        }
        p = e;
        switch (dt) {
        case D2_F32: ((float *)data)[i] = (float)v; break;
        case D2_F64: ((double *)data)[i] = v; break;
        case D2_I32: ((int32_t *)data)[i] = (int32_t)iv; break;
        case D2_I64: ((int64_t *)data)[i] = (int64_t)iv; break;
        case D2_BOOL: ((uint8_t *)data)[i] = v != 0; break;
        case D2_F16:
        case D2_BF16: /* values written exactly; the conversion keeps them */
            d2_convert(D2_F64, (d2_dtype)dt, 1, &v, (char *)data + (size_t)i * 2);
            break;
        case D2_I8:
        case D2_I16:
        case D2_U8: {
            int64_t w = iv;
            d2_convert(D2_I64, (d2_dtype)dt, 1, &w, (char *)data + (size_t)i * d2_dtype_size(dt));
            break;
        }
        default: d2_tensor_unref(t); return NULL;
        }
    }
    while (*p == ' ' || *p == '\n' || *p == '\r')
        p++;
    if (*p) {
        d2_tensor_unref(t);
        return NULL;
    }
    *ok = true;
    return t;
}

static bool compare(const opcase *c, int i, const d2_tensor *got, char *why, size_t n)
{
    const d2_tensor *exp = c->out[i];
    if (got->dtype != exp->dtype) {
        snprintf(why, n, "output %d dtype %s, expected %s", i, d2_dtype_name(got->dtype),
                 d2_dtype_name(exp->dtype));
        return false;
    }
    d2_shape gs, es;
    d2_tensor_get_shape(got, &gs);
    d2_tensor_get_shape(exp, &es);
    if (!d2_shape_equal(&gs, &es)) {
        char a[160], b[160];
        d2_shape_str(&gs, a, sizeof a);
        d2_shape_str(&es, b, sizeof b);
        snprintf(why, n, "output %d shape %s, expected %s", i, a, b);
        return false;
    }
    double rtol = 0, atol = 0;
    if (exp->dtype == D2_F32) {
        rtol = 1e-5;
        atol = 1e-6;
    } else if (exp->dtype == D2_F64) {
        rtol = 1e-12;
        atol = 1e-12;
    }
    if (c->has_tol) {
        rtol = c->rtol;
        atol = c->atol;
    }
    d2_err err = {0};
    d2_tensor *g = d2_tensor_copy_to((d2_tensor *)got, NULL, &err);
    if (!g) {
        snprintf(why, n, "cannot read output %d: %s", i, err.msg);
        return false;
    }
    bool ok = true;
    int64_t cnt = d2_tensor_numel(exp);
    for (int64_t k = 0; k < cnt && ok; k++) {
        double a = d2_tensor_get_f64(g, k), e = d2_tensor_get_f64(exp, k);
        bool same;
        if (d2_dtype_is_float(exp->dtype)) {
            if (isnan(e))
                same = isnan(a);
            else if (isinf(e))
                same = a == e;
            else
                same = fabs(a - e) <= atol + rtol * fabs(e);
        } else {
            same = d2_tensor_get_i64(g, k) == d2_tensor_get_i64(exp, k);
        }
        if (!same) {
            snprintf(why, n, "output %d element %lld: got %.9g, expected %.9g", i, (long long)k, a,
                     e);
            ok = false;
        }
    }
    d2_tensor_unref(g);
    return ok;
}

/* Runs one case; returns true when it passes. */
static bool run_case(d2_backend *be, const opcase *c, const char *path)
{
    d2_err err = {0};
    char why[2600] = "";
    const d2_opdef *def = d2_op_lookup(c->op, strlen(c->op));
    if (!def) {
        fprintf(stderr, "%s: case %s: unknown op %s\n", path, c->name, c->op);
        return false;
    }
    d2_attrs attrs;
    if (d2_attrs_parse(def, c->attrs ? c->attrs : "", &attrs, &err) < 0) {
        fprintf(stderr, "%s: case %s: bad attrs: %s\n", path, c->name, err.msg);
        return false;
    }
    d2_tensor *in[MAX_PORTS] = {0}, *out[MAX_PORTS] = {0};
    bool pass = true;
    for (int i = 0; i < c->n_in; i++) {
        if (!c->in[i])
            continue;
        in[i] = be ? d2_tensor_copy_to(c->in[i], be, &err) : d2_tensor_ref(c->in[i]);
        if (!in[i]) {
            snprintf(why, sizeof why, "cannot upload input %d: %s", i, err.msg);
            pass = false;
        }
    }
    int n_out = c->error ? (def->outs_variadic ? 0 : def->n_outs) : c->n_out;
    if (c->error && def->outs_variadic)
        n_out = c->n_out > 0 ? c->n_out : 1;
    int rc = pass ? d2_op_run(be, def->id, &attrs, in, c->n_in, out, n_out, &err) : -1;
    if (pass && c->error) {
        if (rc == 0) {
            snprintf(why, sizeof why, "expected an error containing '%s', but the op succeeded",
                     c->error);
            pass = false;
        } else if (!strstr(err.msg, c->error)) {
            snprintf(why, sizeof why, "error '%.1100s' does not contain '%.1100s'", err.msg, c->error);
            pass = false;
        }
    } else if (pass) {
        if (rc < 0) {
            snprintf(why, sizeof why, "op failed: %s", err.msg);
            pass = false;
        }
        for (int i = 0; pass && i < c->n_out; i++)
            pass = compare(c, i, out[i], why, sizeof why);
    }
    if (!pass)
        fprintf(stderr, "%s: case %s (%s): %s\n", path, c->name, c->op, why);
    for (int i = 0; i < MAX_PORTS; i++) {
        d2_tensor_unref(in[i]);
        d2_tensor_unref(out[i]);
    }
    d2_attrs_free(&attrs);
    return pass;
}

int opcase_run_file(d2_backend *be, const char *path, int *n_cases)
{
    *n_cases = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    opcase c;
    memset(&c, 0, sizeof c);
    size_t cap = 0;
    char *line = NULL;
    ssize_t len;
    int failures = 0, lineno = 0;
    bool in_case = false;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        char *sp = strchr(line, ' ');
        char *arg = sp ? sp + 1 : line + len;
        size_t kw = sp ? (size_t)(sp - line) : (size_t)len;
#define KW(s) (kw == strlen(s) && strncmp(line, s, kw) == 0)
        bool ok = true;
        if (KW("case")) {
            case_clear(&c);
            snprintf(c.name, sizeof c.name, "%s", arg);
            in_case = true;
        } else if (!in_case) {
            ok = false;
        } else if (KW("op")) {
            snprintf(c.op, sizeof c.op, "%s", arg);
        } else if (KW("attrs")) {
            c.attrs = strdup(arg);
        } else if (KW("in") && c.n_in < MAX_PORTS) {
            c.in[c.n_in] = parse_tensor(arg, &ok);
            c.n_in++;
        } else if (KW("out") && c.n_out < MAX_PORTS) {
            c.out[c.n_out] = parse_tensor(arg, &ok);
            ok = ok && c.out[c.n_out];
            c.n_out++;
        } else if (KW("tol")) {
            ok = sscanf(arg, "%lf %lf", &c.rtol, &c.atol) == 2;
            c.has_tol = true;
        } else if (KW("error")) {
            c.error = strdup(arg);
        } else if (KW("end")) {
            (*n_cases)++;
            if (!run_case(be, &c, path))
                failures++;
            case_clear(&c);
            in_case = false;
        } else {
            ok = false;
        }
#undef KW
        if (!ok) {
            fprintf(stderr, "%s:%d: malformed case line\n", path, lineno);
            failures = -1;
            break;
        }
    }
    case_clear(&c);
    free(line);
    fclose(f);
    return failures;
}
