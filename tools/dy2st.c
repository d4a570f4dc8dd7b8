/* dy2st.c - the dy2st command: a table of subcommands (run, show, help), each one function.
 *
 * To add a subcommand, write `static int cmd_NAME(int argc, char **argv)`
 * (argv[0] is the subcommand's name; return 0, EXIT_ERROR or EXIT_USAGE) and
 * add one line to `commands` below. Errors are printed as "dy2st: error: ..."
 * with error() or usage_error().
 */
#include "dy2st/dy2st.h"

#include "cmd_jit.h"
#include "omp_env.h"

#include "dist.h"
#include "exec.h"
#include "memplan.h"

#include "interp/interp.h"
#include "model_io.h"
#include "opencl/opencl.h"
#include "passes/passes.h"
#include "program.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>


typedef struct command {
    const char *name;
    const char *args;    /* synopsis after "dy2st NAME" */
    const char *summary; /* one line for the command list */
    const char *help;    /* options and details for "dy2st help NAME" */
    int (*run)(int argc, char **argv);
} command;

static const command *find_command(const char *name);

static int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const command *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

int cli_vreport(int status, const char *cmd, const char *args, const char *fmt, va_list ap)
{
    fputs("dy2st: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    if (status == EXIT_USAGE && cmd)
        fprintf(stderr, "usage: dy2st %s %s\n(see 'dy2st help %s')\n", cmd, args, cmd);
    else if (status == EXIT_USAGE)
        fputs("(see 'dy2st help')\n", stderr);
    return status;
}

/* Prints "dy2st: error: ..." and returns EXIT_ERROR. */
static int error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = cli_vreport(EXIT_ERROR, NULL, NULL, fmt, ap);
    va_end(ap);
    return r;
}

/* Prints line `line` of the text file `path` and a caret under character
 * `col` (1-based); prints nothing when the file cannot be read or the line
 * is not text (a binary model, say). */
static void print_source_caret(const char *path, unsigned long line, unsigned long col)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    char text[512] = "";
    bool ok = false;
    for (unsigned long k = 0; k < line && fgets(text, sizeof text, f); k++) {
        size_t len = strlen(text);
        ok = len > 0 && (text[len - 1] == '\n' || feof(f));
    }
    ok = ok && !ferror(f);
    fclose(f);
    text[strcspn(text, "\r\n")] = '\0';
    for (const unsigned char *t = (const unsigned char *)text; ok && *t; t++)
        if ((*t < 0x20 && *t != '\t') || *t == 0x7f)
            ok = false;
    if (!ok)
        return;
    fprintf(stderr, "%s\n", text);
    unsigned long c = 1;
    for (const char *t = text; *t && c < col; t++) {
        if (((unsigned char)*t & 0xC0) == 0x80)
            continue; /* a UTF-8 continuation byte: same character */
        fputc(*t == '\t' ? '\t' : ' ', stderr);
        c++;
    }
    fputs("^\n", stderr);
}

/* Reports a library error message. One that already points into a file
 * ("FILE:LINE:COL: error: ...", as the text-form Program's parser writes
 * them) is printed as it is, with the source line and a caret; any other
 * gets the "dy2st: error: " prefix. Returns EXIT_ERROR. */
static int status_error(const char *msg)
{
    const char *end = strstr(msg, ": error: ");
    /* back over ":LINE:COL" before ": error: " */
    const char *c = end, *l = NULL;
    while (c && c > msg && c[-1] >= '0' && c[-1] <= '9')
        c--;
    if (c && c != end && c > msg + 1 && c[-1] == ':') {
        l = c - 1;
        while (l > msg && l[-1] >= '0' && l[-1] <= '9')
            l--;
        if (l == c - 1 || l < msg + 2 || l[-1] != ':')
            l = NULL;
    }
    /* only a message that starts with its location ("model.d2m: bad program
     * section: model.d2m:6:17: error: ..." keeps the tool's prefix) */
    if (!l || memmem(msg, (size_t)(l - 1 - msg), ": ", 2))
        return error("%s", msg);
    fprintf(stderr, "%s\n", msg);
    char path[4096];
    if ((size_t)(l - 1 - msg) < sizeof path) {
        snprintf(path, sizeof path, "%.*s", (int)(l - 1 - msg), msg);
        print_source_caret(path, strtoul(l, NULL, 10), strtoul(c, NULL, 10));
    }
    return EXIT_ERROR;
}

/* Prints the error and the command's synopsis; returns EXIT_USAGE. */
static int usage_error(const command *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = cli_vreport(EXIT_USAGE, c ? c->name : NULL, c ? c->args : NULL, fmt, ap);
    va_end(ap);
    return r;
}

/* Matches argv[*i] against option `name` (and short form `alt`, may be NULL)
 * taking a value, as "--name VALUE" or "--name=VALUE". Returns 1 and sets
 * *val on a match, 0 when argv[*i] is another option, -1 when the value is
 * missing. */
int cli_opt_value(int argc, char **argv, int *i, const char *name, const char *alt,
                     const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) == 0 && a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (strcmp(a, name) != 0 && (!alt || strcmp(a, alt) != 0))
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *val = argv[++*i];
    return 1;
}

/* Parses the value of --timeout: a finite number of seconds > 0. Returns 0,
 * or -1 after printing the usage error (*rc set). */
static int parse_timeout(const command *c, const char *val, double *out, int *rc)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (end == val || *end != '\0' || errno == ERANGE || !isfinite(v) || v <= 0) {
        *rc = usage_error(c, "--timeout: expected a positive number of seconds, got '%s'", val);
        return -1;
    }
    *out = v;
    return 0;
}

static bool is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

static void print_command_help(FILE *f, const command *c)
{
    fprintf(f, "usage: dy2st %s %s\n\n%s\n", c->name, c->args, c->summary);
    if (c->help && *c->help)
        fprintf(f, "\n%s", c->help);
}

/* ---- run ---------------------------------------------------------------------- */

static void shape_text(char *out, size_t n, const dy2st_tensor *t)
{
    size_t off = (size_t)snprintf(out, n, "%s[", dy2st_dtype_name(dy2st_tensor_dtype(t)));
    for (int d = 0; d < dy2st_tensor_ndim(t) && off < n; d++)
        off += (size_t)snprintf(out + off, n - off, "%s%lld", d ? "," : "",
                                (long long)dy2st_tensor_dim(t, d));
    if (off < n)
        snprintf(out + off, n - off, "]");
}

static void decl_text(char *out, size_t n, dy2st_dtype dt, int ndim, const int64_t *shape)
{
    size_t off = (size_t)snprintf(out, n, "%s[", dy2st_dtype_name(dt));
    for (int d = 0; d < ndim && off < n; d++)
        off += (size_t)snprintf(out + off, n - off, "%s%lld", d ? "," : "", (long long)shape[d]);
    if (off < n)
        snprintf(out + off, n - off, "]");
}

static double value_at(const dy2st_tensor *t, int64_t i)
{
    const void *d = dy2st_tensor_data(t);
    switch (dy2st_tensor_dtype(t)) {
    case DY2ST_FLOAT32: return ((const float *)d)[i];
    case DY2ST_FLOAT64: return ((const double *)d)[i];
    case DY2ST_INT32: return ((const int32_t *)d)[i];
    case DY2ST_INT64: return (double)((const int64_t *)d)[i];
    case DY2ST_BOOL: return ((const unsigned char *)d)[i];
    default: return 0;
    }
}

static void print_value(const dy2st_tensor *t, int64_t i)
{
    const void *d = dy2st_tensor_data(t);
    switch (dy2st_tensor_dtype(t)) {
    case DY2ST_INT32: printf("%d", (int)((const int32_t *)d)[i]); break;
    case DY2ST_INT64: printf("%lld", (long long)((const int64_t *)d)[i]); break;
    case DY2ST_BOOL: printf("%s", ((const unsigned char *)d)[i] ? "true" : "false"); break;
    case DY2ST_FLOAT32:
    case DY2ST_FLOAT64: printf("%.6g", value_at(t, i)); break;
    default: printf("?"); break;
    }
}

/* Prints "name: dtype[shape] = [values] (stats)". */
static void print_summary(const char *name, const dy2st_tensor *t)
{
    char sh[256];
    shape_text(sh, sizeof sh, t);
    int64_t n = dy2st_tensor_numel(t);
    dy2st_dtype dt = dy2st_tensor_dtype(t);
    printf("%s: %s = ", name, sh);
    if (dt == DY2ST_FLOAT16 || dt == DY2ST_BFLOAT16) {
        printf("(%lld values)\n", (long long)n);
        return;
    }
    const int64_t show = 8;
    if (dy2st_tensor_ndim(t) == 0) {
        print_value(t, 0);
        putchar('\n');
        return;
    }
    putchar('[');
    for (int64_t i = 0; i < n && i < show; i++) {
        if (i)
            printf(", ");
        print_value(t, i);
    }
    printf("%s]", n > show ? ", ..." : "");
    if (n > show) {
        double lo = value_at(t, 0), hi = lo, sum = 0;
        for (int64_t i = 0; i < n; i++) {
            double v = value_at(t, i);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            sum += v;
        }
        if (dt == DY2ST_BOOL)
            printf(" (%lld of %lld true)", (long long)sum, (long long)n);
        else
            printf(" (%lld values, min %.6g, max %.6g, mean %.6g)", (long long)n, lo, hi,
                   sum / (double)n);
    }
    putchar('\n');
}

/* Makes a file name from an output name: path separators and odd characters
 * become '_', and a leading '.' is escaped. */
static void file_name_for(char *out, size_t n, const char *name)
{
    size_t k = 0;
    if (name[0] == '.' && k + 1 < n)
        out[k++] = '_';
    for (const char *p = name; *p && k + 1 < n; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-' || c == '@';
        out[k++] = ok ? c : '_';
    }
    out[k] = '\0';
}

static const char run_help[] =
    "Runs MODEL (a saved model, or a text-form program with its parameter data\n"
    "inline) on the given inputs.\n"
    "\n"
    "  -i, --input NAME=FILE.npy   value of input NAME (one per model input)\n"
    "  -o, --output-dir DIR        write each output as DIR/NAME.npy (DIR is\n"
    "                              created if missing); without it, print each\n"
    "                              output's name, dtype, shape and a summary\n"
    "  -d, --device DEV            cpu (default) or opencl[:N]\n"
    "  --timeout SECONDS           stop the run with an error once it has run\n"
    "                              this long (checked between ops and at every\n"
    "                              loop iteration)\n";

static int cmd_run(int argc, char **argv)
{
    const command *self = find_command("run");
    const char *model_path = NULL, *out_dir = NULL, *device = NULL;
    int n_specs = 0;
    const char **specs = calloc((size_t)argc + 1, sizeof *specs);
    if (!specs)
        return error("out of memory");
    int rc = EXIT_ERROR;
    dy2st_model *m = NULL;
    dy2st_tensor **inputs = NULL, **outputs = NULL;
    const char **sources = NULL;
    int n_in = 0, n_out = 0;
    bool opts_done = false;
    double timeout = 0;
    dy2st_run_options *ropts = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (!opts_done && strcmp(argv[i], "--") == 0) {
            opts_done = true;
        } else if (!opts_done && (r = cli_opt_value(argc, argv, &i, "--input", "-i", &v)) != 0) {
            if (r < 0) {
                rc = usage_error(self, "%s needs NAME=FILE.npy", argv[i]);
                goto done;
            }
            specs[n_specs++] = v;
        } else if (!opts_done && (r = cli_opt_value(argc, argv, &i, "--output-dir", "-o", &v)) != 0) {
            if (r < 0) {
                rc = usage_error(self, "%s needs a directory", argv[i]);
                goto done;
            }
            out_dir = v;
        } else if (!opts_done && (r = cli_opt_value(argc, argv, &i, "--device", "-d", &v)) != 0) {
            if (r < 0) {
                rc = usage_error(self, "%s needs a device name", argv[i]);
                goto done;
            }
            device = v;
        } else if (!opts_done && (r = cli_opt_value(argc, argv, &i, "--timeout", NULL, &v)) != 0) {
            if (r < 0) {
                rc = usage_error(self, "--timeout needs a number of seconds");
                goto done;
            }
            if (parse_timeout(self, v, &timeout, &rc) < 0)
                goto done;
        } else if (!opts_done && argv[i][0] == '-' && argv[i][1] != '\0') {
            rc = usage_error(self, "unknown option '%s'", argv[i]);
            goto done;
        } else if (model_path) {
            rc = usage_error(self, "unexpected argument '%s' (one MODEL only)", argv[i]);
            goto done;
        } else {
            model_path = argv[i];
        }
    }
    if (!model_path) {
        rc = usage_error(self, "no MODEL given");
        goto done;
    }
    for (int k = 0; k < n_specs; k++) {
        const char *eq = strchr(specs[k], '=');
        if (!eq || eq == specs[k] || eq[1] == '\0') {
            rc = usage_error(self, "bad --input '%s' (expected NAME=FILE.npy)", specs[k]);
            goto done;
        }
    }

    /* a directory holding model.dy2st, as save_inference_model(dirname) writes it */
    char dir_model[4096];
    struct stat dst;
    if (stat(model_path, &dst) == 0 && S_ISDIR(dst.st_mode) &&
        (size_t)snprintf(dir_model, sizeof dir_model, "%s/model.dy2st", model_path) <
            sizeof dir_model)
        model_path = dir_model;

    dy2st_status st = {0};
    m = dy2st_model_load(model_path, device, &st);
    if (!m) {
        rc = status_error(dy2st_status_message(&st));
        goto done;
    }
    n_in = dy2st_model_num_inputs(m);
    n_out = dy2st_model_num_outputs(m);
    inputs = calloc((size_t)n_in + 1, sizeof *inputs);
    outputs = calloc((size_t)n_out + 1, sizeof *outputs);
    sources = calloc((size_t)n_in + 1, sizeof *sources);
    if (!inputs || !outputs || !sources) {
        rc = error("out of memory");
        goto done;
    }
    for (int k = 0; k < n_specs; k++) {
        const char *eq = strchr(specs[k], '=');
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)(eq - specs[k]), specs[k]);
        int idx = dy2st_model_input_index(m, name);
        if (idx < 0) {
            char list[1024] = "";
            size_t off = 0;
            for (int i = 0; i < n_in && off < sizeof list; i++)
                off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "",
                                        dy2st_model_input_name(m, i));
            rc = error("%s has no input named '%s' (its inputs: %s)", model_path, name,
                       n_in ? list : "none");
            goto done;
        }
        if (inputs[idx]) {
            rc = error("input '%s' is given twice (%s and %s)", name, sources[idx], eq + 1);
            goto done;
        }
        inputs[idx] = dy2st_tensor_load_npy(eq + 1, &st);
        if (!inputs[idx]) {
            /* name the argument; the message starts with the file's name */
            const char *msg = dy2st_status_message(&st);
            size_t fl = strlen(eq + 1);
            if (strncmp(msg, eq + 1, fl) == 0 && strncmp(msg + fl, ": ", 2) == 0)
                msg += fl + 2;
            rc = error("--input %s: %s", specs[k], msg);
            goto done;
        }
        sources[idx] = eq + 1;
    }
    for (int i = 0; i < n_in; i++) {
        if (inputs[i])
            continue;
        dy2st_dtype dt;
        int64_t shape[DY2ST_MAX_DIMS];
        int nd = dy2st_model_input_info(m, i, &dt, shape);
        char decl[256];
        decl_text(decl, sizeof decl, dt, nd, shape);
        const char *name = dy2st_model_input_name(m, i);
        rc = error("%s: missing input '%s' (%s); pass --input %s=FILE.npy", model_path, name,
                   decl, name);
        goto done;
    }
    if (timeout > 0) {
        ropts = dy2st_run_options_new();
        if (!ropts) {
            rc = error("out of memory");
            goto done;
        }
        if (dy2st_run_options_set_timeout(ropts, timeout, &st) < 0) {
            rc = error("%s", dy2st_status_message(&st));
            goto done;
        }
    }
    if (dy2st_model_run_with_options(m, ropts, inputs, n_in, outputs, n_out, &st) < 0) {
        /* "input 'x': ..." is about the argument that gave x */
        const char *msg = dy2st_status_message(&st);
        for (int i = 0; i < n_in; i++) {
            char head[600];
            int hl = snprintf(head, sizeof head, "input '%s': ", dy2st_model_input_name(m, i));
            if (hl > 0 && (size_t)hl < sizeof head && strncmp(msg, head, (size_t)hl) == 0) {
                rc = error("--input %s=%s: %s", dy2st_model_input_name(m, i), sources[i],
                           msg + hl);
                goto done;
            }
        }
        rc = status_error(msg);
        goto done;
    }
    if (out_dir && mkdir(out_dir, 0777) != 0) {
        struct stat sb;
        if (errno != EEXIST) {
            rc = error("cannot create directory '%s': %s", out_dir, strerror(errno));
            goto done;
        }
        if (stat(out_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            rc = error("cannot create directory '%s': a file of that name exists", out_dir);
            goto done;
        }
    }
    for (int i = 0; i < n_out; i++) {
        const char *name = dy2st_model_output_name(m, i);
        if (!out_dir) {
            print_summary(name, outputs[i]);
            continue;
        }
        char file[512], path[4096], sh[256];
        file_name_for(file, sizeof file, name);
        snprintf(path, sizeof path, "%s/%s.npy", out_dir, file);
        if (dy2st_tensor_save_npy(outputs[i], path, &st) < 0) {
            rc = error("%s", dy2st_status_message(&st));
            goto done;
        }
        shape_text(sh, sizeof sh, outputs[i]);
        printf("%s: %s -> %s\n", name, sh, path);
    }
    rc = EXIT_OK;
done:
    for (int i = 0; inputs && i < n_in; i++)
        dy2st_tensor_free(inputs[i]);
    for (int i = 0; outputs && i < n_out; i++)
        dy2st_tensor_free(outputs[i]);
    free(inputs);
    free(outputs);
    free(sources);
    free(specs);
    dy2st_run_options_free(ropts);
    dy2st_model_free(m);
    return rc;
}

/* ---- show --------------------------------------------------------------------- */

static const char show_help[] =
    "Prints the Program of MODEL (a saved model or a text-form program file) in\n"
    "text form.\n"
    "\n"
    "  --dot     print it as a Graphviz graph instead\n"
    "  --data    include parameter data in the text form\n"
    "  --passes LIST\n"
    "            print it after the graph passes LIST (none, basic, all, or pass\n"
    "            names with commas: const_fold, cse, bn_fold, fuse_conv, dce; all\n"
    "            is what running a saved model applies) and each pass's rewrite\n"
    "            count on stderr; with memplan, the memory plan's arena size\n";

/* Prints what the static memory plan makes of p (prepared on the CPU as a run would be). */
static void show_memplan(const d2_program *p, d2_pass_set set)
{
    d2_err err = {0};
    d2_prepared *pp = d2_exec_prepare(p, NULL, &err);
    if (!pp) {
        fprintf(stderr, "memplan: not planned: %s\n", err.msg);
        return;
    }
    d2_passes_select_exec(pp, set);
    d2_memplan_stats st;
    d2_memplan_get_stats(d2_exec_memplan(pp), &st);
    if (st.n_plans)
        fprintf(stderr, "memplan: %d values in %d slots, arena %zu bytes (their buffers add up to "
                "%zu bytes)\n", st.n_values, st.n_slots, st.arena_bytes, st.sum_bytes);
    else
        fprintf(stderr, "memplan: %d values, planned at the first run of each set of input "
                "shapes (dynamic dims)\n", st.n_values);
    d2_exec_free(pp);
}

static int cmd_show(int argc, char **argv)
{
    const command *self = find_command("show");
    const char *model_path = NULL;
    const char *passes = NULL;
    bool dot = false, data = false, opts_done = false;
    for (int i = 1; i < argc; i++) {
        if (!opts_done && strcmp(argv[i], "--") == 0)
            opts_done = true;
        else if (!opts_done && strcmp(argv[i], "--dot") == 0)
            dot = true;
        else if (!opts_done && strcmp(argv[i], "--passes") == 0) {
            if (++i == argc)
                return usage_error(self, "--passes needs a LIST");
            passes = argv[i];
        } else if (!opts_done && strncmp(argv[i], "--passes=", 9) == 0)
            passes = argv[i] + 9;
        else if (!opts_done && strcmp(argv[i], "--data") == 0)
            data = true;
        else if (!opts_done && argv[i][0] == '-' && argv[i][1] != '\0')
            return usage_error(self, "unknown option '%s'", argv[i]);
        else if (model_path)
            return usage_error(self, "unexpected argument '%s' (one MODEL only)", argv[i]);
        else
            model_path = argv[i];
    }
    if (!model_path)
        return usage_error(self, "no MODEL given");
    if (dot && data)
        return usage_error(self, "--dot and --data do not go together");
    d2_err err = {0};
    d2_pass_set set = 0;
    if (passes && d2_passes_parse(passes, &set, &err) < 0)
        return usage_error(self, "%s", err.msg);
    d2_program *p = d2_model_open(model_path, &err);
    if (!p)
        return status_error(err.msg);
    if (set) {
        d2_pass_stats st;
        if (d2_passes_run(p, set, &st, &err) < 0) {
            d2_program_free(p);
            return status_error(err.msg);
        }
        int n;
        const d2_pass *all = d2_passes_all(&n);
        for (int i = 0; i < n; i++)
            if (set & ((d2_pass_set)1 << i))
                fprintf(stderr, "pass %s: %d rewrite%s\n", all[i].name, st.changes[i],
                        st.changes[i] == 1 ? "" : "s");
        d2_pass_set mset = 0;
        if (d2_passes_parse("memplan", &mset, &err) == 0 && (set & mset))
            show_memplan(p, set);
    }
    char *text = dot ? d2_program_dot(p) : d2_program_print(p, data);
    d2_program_free(p);
    if (!text)
        return error("%s: cannot print the program", model_path);
    fputs(text, stdout);
    size_t n = strlen(text);
    if (n && text[n - 1] != '\n')
        putchar('\n');
    d2_free(text);
    return EXIT_OK;
}

/* ---- exec --------------------------------------------------------------------- */

static const char exec_help[] =
    "Runs a Python build script: dygraph code runs eagerly, to_static and the\n"
    "saving APIs behave as in Paddle. ARGS after SCRIPT become sys.argv[1:].\n"
    "\n"
    "  --device DEV     where tensors live: cpu (default) or opencl[:N]\n"
    "  --no-fallback    make a to_static conversion failure an error instead of\n"
    "                   falling back to tracing\n"
    "  --timeout SECONDS\n"
    "                   stop the script with an error once it has run this long\n";

void cli_cache_options(d2_interp_options *opt)
{
    const char *on = getenv("DY2ST_CACHE"), *dir = getenv("DY2ST_CACHE_DIR");
    opt->ast_cache = !(on && (strcmp(on, "0") == 0 || strcasecmp(on, "off") == 0 ||
                              strcasecmp(on, "no") == 0));
    opt->cache_dir = dir && *dir ? dir : NULL;
}

static int cmd_exec(int argc, char **argv)
{
    const command *self = find_command("exec");
    d2_interp_options opt = {0};
    cli_cache_options(&opt);
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        const char *val;
        int r;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if ((r = cli_opt_value(argc, argv, &i, "--device", NULL, &val)) != 0) {
            if (r < 0)
                return usage_error(self, "--device needs a value");
            opt.device = val;
        } else if (strcmp(argv[i], "--no-fallback") == 0) {
            opt.no_fallback = true;
        } else if ((r = cli_opt_value(argc, argv, &i, "--timeout", NULL, &val)) != 0) {
            int rc;
            if (r < 0)
                return usage_error(self, "--timeout needs a number of seconds");
            if (parse_timeout(self, val, &opt.timeout_s, &rc) < 0)
                return rc;
        } else {
            return usage_error(self, "unknown option '%s'", argv[i]);
        }
    }
    if (i >= argc)
        return usage_error(self, "no SCRIPT given");
    const char *script = argv[i];
    d2_err err = {0};
    d2_interp *I = d2_interp_new(&opt, &err);
    if (!I)
        return error("%s", err.msg);
    d2_obj *sys = d2_dict_get_str(I, I->modules, "sys");
    d2_obj *args = d2_list_new(I, 0);
    for (int k = i; args && k < argc; k++) {
        d2_obj *s = d2_str_from(I, argv[k]);
        if (!s || d2_list_append(I, args, s) < 0) {
            d2_decref(s);
            break;
        }
        d2_decref(s);
    }
    if (sys && args)
        d2_setattr(I, sys, "argv", args);
    d2_decref(args);
    int rc = d2_interp_run_file(I, script);
    fflush(stdout);
    if (rc < 0) {
        d2_buf b;
        d2_buf_init(&b);
        for (const d2_diag_item *it = I->diag.first; it; it = it->next)
            if (it->severity != D2_DIAG_WARNING)
                d2_diag_render_item(it, &b);
        if (b.data)
            fputs(b.data, stderr);
        d2_buf_free(&b);
    }
    int status = d2_interp_exit_status(I);
    d2_interp_free(I);
    /* under mpirun: a failed rank ends the whole job (MPI_Abort), a finished one finalizes */
    d2_dist_finish(status != 0 || rc < 0);
    return status ? status : rc < 0 ? EXIT_ERROR : EXIT_OK;
}

/* ---- launch ------------------------------------------------------------------- */

static const char launch_help[] =
    "Runs SCRIPT as N processes per machine that train together (paddle.distributed,\n"
    "DataParallel), as `python -m paddle.distributed.launch` does: it runs Open MPI's\n"
    "mpirun for you,\n"
    "\n"
    "    mpirun -np N dy2st exec SCRIPT [ARGS]...          (this machine)\n"
    "    mpirun --hostfile FILE | --host IPS --npernode N dy2st exec SCRIPT [ARGS]...\n"
    "\n"
    "(with --oversubscribe on one machine, so more processes than cores may run, and\n"
    "--allow-run-as-root when run as root). DY2ST_MPIRUN names another mpirun.\n"
    "  --nproc_per_node N  processes per machine (default 1)\n"
    "  --hosts FILE        an Open MPI hostfile of the machines to run on\n"
    "  --ips A,B,...       the machines to run on (mpirun --host)\n"
    "  --dist_timeout S    seconds a collective waits for the other ranks before it fails\n"
    "                      (DY2ST_DIST_TIMEOUT; default 300)\n"
    "  --device, --no-fallback, --timeout\n"
    "                      passed to each process's `dy2st exec`\n";

static int cmd_launch(int argc, char **argv)
{
    const command *self = find_command("launch");
    if (!d2_dist_has_mpi())
        return error("launch: this dy2st was built without Open MPI (configure found no "
                     "libopenmpi-dev); rebuild with it to train on several processes");
    const char *nproc = "1", *hosts = NULL, *ips = NULL, *dtimeout = NULL;
    const char *exec_opts[6];
    int n_exec = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        const char *val;
        int r;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if ((r = cli_opt_value(argc, argv, &i, "--nproc_per_node", NULL, &val)) != 0) {
            char *end;
            long n = r > 0 ? strtol(val, &end, 10) : 0;
            if (r < 0 || *end || n < 1 || n > 4096)
                return usage_error(self, "--nproc_per_node needs a number of processes (1 to "
                                         "4096)");
            nproc = val;
        } else if ((r = cli_opt_value(argc, argv, &i, "--hosts", NULL, &val)) != 0) {
            if (r < 0)
                return usage_error(self, "--hosts needs a hostfile");
            hosts = val;
        } else if ((r = cli_opt_value(argc, argv, &i, "--ips", NULL, &val)) != 0) {
            if (r < 0)
                return usage_error(self, "--ips needs a list of machines");
            ips = val;
        } else if ((r = cli_opt_value(argc, argv, &i, "--dist_timeout", NULL, &val)) != 0) {
            double t;
            int rc;
            if (r < 0)
                return usage_error(self, "--dist_timeout needs a number of seconds");
            if (parse_timeout(self, val, &t, &rc) < 0)
                return rc;
            dtimeout = val;
        } else if (n_exec > 3) {
            return usage_error(self, "too many options for dy2st exec");
        } else if ((r = cli_opt_value(argc, argv, &i, "--device", NULL, &val)) != 0) {
            if (r < 0)
                return usage_error(self, "--device needs a value");
            exec_opts[n_exec++] = "--device";
            exec_opts[n_exec++] = val;
        } else if ((r = cli_opt_value(argc, argv, &i, "--timeout", NULL, &val)) != 0) {
            if (r < 0)
                return usage_error(self, "--timeout needs a number of seconds");
            exec_opts[n_exec++] = "--timeout";
            exec_opts[n_exec++] = val;
        } else if (strcmp(argv[i], "--no-fallback") == 0) {
            exec_opts[n_exec++] = "--no-fallback";
        } else {
            return usage_error(self, "unknown option '%s'", argv[i]);
        }
    }
    if (i >= argc)
        return usage_error(self, "no SCRIPT given");
    if (hosts && ips)
        return usage_error(self, "--hosts and --ips exclude each other");
    static char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return error("launch: cannot find the dy2st executable: %s", strerror(errno));
    exe[len] = '\0';
    if (dtimeout && setenv("DY2ST_DIST_TIMEOUT", dtimeout, 1) != 0)
        return error("launch: %s", strerror(errno));
    const char *mpirun = getenv("DY2ST_MPIRUN");
    if (!mpirun || !*mpirun)
        mpirun = "mpirun";
    const char **av = calloc((size_t)argc + 24, sizeof *av);
    if (!av)
        return error("out of memory");
    int k = 0;
    av[k++] = mpirun;
    if (hosts || ips) { /* N per machine, as Paddle's launcher counts them */
        av[k++] = hosts ? "--hostfile" : "--host";
        av[k++] = hosts ? hosts : ips;
        av[k++] = "--npernode";
    } else {
        av[k++] = "-np";
    }
    av[k++] = nproc;
    av[k++] = "--oversubscribe";
    if (geteuid() == 0)
        av[k++] = "--allow-run-as-root";
    av[k++] = "-x";
    av[k++] = "DY2ST_DIST_TIMEOUT";
    av[k++] = exe;
    av[k++] = "exec";
    for (int e = 0; e < n_exec; e++)
        av[k++] = exec_opts[e];
    av[k++] = "--";
    for (; i < argc; i++)
        av[k++] = argv[i];
    av[k] = NULL;
    if (!getenv("DY2ST_DIST_TIMEOUT"))
        setenv("DY2ST_DIST_TIMEOUT", "300", 1);
    fflush(stdout);
    execvp(mpirun, (char *const *)av);
    int e = errno;
    free(av);
    return error("launch: cannot run '%s': %s%s", mpirun, strerror(e),
                 e == ENOENT ? " (install Open MPI: Debian's openmpi-bin)" : "");
}

/* ---- devices ------------------------------------------------------------------ */

static const char devices_help[] =
    "Lists the OpenCL devices dy2st can use, numbered as --device opencl:N takes them.\n"
    "The CPU backend (--device cpu) is always available.\n";

static int cmd_devices(int argc, char **argv)
{
    D2_UNUSED(argv);
    if (argc > 1)
        return usage_error(find_command("devices"), "too many arguments");
    printf("cpu: the CPU backend (default)\n");
    d2_buf b;
    d2_buf_init(&b);
    d2_err err = {0};
    int n = d2_opencl_list_devices(&b, &err);
    if (n < 0) {
        printf("opencl: none (%s)\n", err.msg);
    } else {
        char *text = d2_buf_take(&b);
        if (text)
            fputs(text, stdout);
        d2_free(text);
    }
    d2_buf_free(&b);
    return EXIT_OK;
}

/* ---- help --------------------------------------------------------------------- */

static int cmd_help(int argc, char **argv);

static const command commands[] = {
    {"run", "MODEL [--input NAME=FILE.npy]... [--output-dir DIR] [--device DEV] [--timeout S]",
     "Run a saved model or a text-form program on .npy inputs.", run_help, cmd_run},
    {"show", "MODEL [--dot | --data] [--passes LIST]", "Print a model's Program (text form or Graphviz).",
     show_help, cmd_show},
    {"exec", "[--device DEV] [--no-fallback] [--timeout S] SCRIPT [ARGS]...",
     "Run a Python build script (dygraph code, to_static, saving).", exec_help, cmd_exec},
    {"convert", cmd_convert_args, cmd_convert_summary, cmd_convert_help, cmd_convert},
    {"program", cmd_program_args, cmd_program_summary, cmd_program_help, cmd_program},
    {"save", cmd_save_args, cmd_save_summary, cmd_save_help, cmd_save},
    {"trace", cmd_trace_args, cmd_trace_summary, cmd_trace_help, cmd_trace},
    {"export", cmd_export_args, cmd_export_summary, cmd_export_help, cmd_export},
    {"launch", "[--nproc_per_node N] [--hosts FILE | --ips LIST] [--dist_timeout S] SCRIPT [ARGS]...",
     "Run a training script as several processes on MPI (data parallel).", launch_help,
     cmd_launch},
    {"devices", "", "List the devices tensors can live on (cpu, opencl:N).", devices_help,
     cmd_devices},
    {"help", "[COMMAND]", "Show the commands, or the options of one command.", "", cmd_help},
};

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static void print_usage(FILE *f)
{
    fprintf(f, "usage: dy2st COMMAND [ARGS]\n       dy2st --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'dy2st help COMMAND' for a command's options.\n");
}

static int cmd_help(int argc, char **argv)
{
    if (argc > 2)
        return usage_error(find_command("help"), "too many arguments");
    if (argc < 2) {
        print_usage(stdout);
        return EXIT_OK;
    }
    const command *c = find_command(argv[1]);
    if (!c)
        return usage_error(NULL, "unknown command '%s'", argv[1]);
    print_command_help(stdout, c);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc >= 1)
        d2_omp_env_default(argv); /* may execute the command again, once */
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("dy2st %s\n", dy2st_version());
        return EXIT_OK;
    }
    if (is_help(argv[1])) {
        print_usage(stdout);
        return EXIT_OK;
    }
    const command *c = find_command(argv[1]);
    if (!c) {
        if (argv[1][0] == '-')
            return usage_error(NULL, "unknown option '%s'", argv[1]);
        return usage_error(NULL, "unknown command '%s'", argv[1]);
    }
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (is_help(argv[i])) {
            print_command_help(stdout, c);
            return EXIT_OK;
        }
    return c->run(argc - 1, argv + 1);
}
