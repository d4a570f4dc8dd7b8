/* cmd_jit.c - dy2st convert / program / save: converted source, static Programs and saved
 * models of a model file's to_static code. */
#include "cmd_jit.h"

#include "syntax/ast.h"
#include "interp/interp.h"
#include "lib/paddle/jit.h"
#include "transform/transform.h"
#include "model_io.h"
#include "onnx/onnx_export.h"
#include "passes/passes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const char cmd_convert_args[] = "FILE.py[:NAME] [--no-fallback]";
const char cmd_convert_summary[] = "Print the converted source of a file's to_static functions.";
const char cmd_convert_help[] =
    "Prints FILE.py with every function decorated with @paddle.jit.to_static\n"
    "converted as to_static converts it (data-dependent if/while/for, break,\n"
    "continue and return rewritten into _jst helper calls). With :NAME, only\n"
    "the function or class NAME. Functions that use syntax the transforms do\n"
    "not convert are printed unchanged with a warning (they are traced).\n"
    "\n"
    "  --no-fallback   make unsupported syntax an error\n";

const char cmd_program_args[] =
    "FILE.py[:NAME] [--input NAME:DTYPE[DIMS]]... [--dot] [--passes LIST]";
const char cmd_program_summary[] = "Print the static Program of a Layer or to_static function.";
const char cmd_program_help[] =
    "Builds the static Program of NAME in FILE.py and prints its text form.\n"
    "NAME is a Layer class (constructed with no arguments), a function taking\n"
    "no arguments that returns a Layer (such as build_model), a Layer object,\n"
    "or a function to convert; without NAME, build_model. Layers are put in\n"
    "eval mode. The file is imported as a module: its `if __name__ ==\n"
    "\"__main__\"` block does not run.\n"
    "\n"
    "  --input NAME:DTYPE[DIMS]   one per input, in order, e.g.\n"
    "                             x:float32[-1,784] (-1 or None: any size);\n"
    "                             default: the file's INPUT_SPEC, else the\n"
    "                             input_spec given to to_static\n"
    "  --params FILE              parameters: FILE.npz (numpy.savez of the\n"
    "                             state_dict; members 'param/<key>' or '<key>')\n"
    "                             or FILE.pdparams (paddle.save of the\n"
    "                             state_dict, read without running any code)\n"
    "  --dot                      print a Graphviz graph instead\n"
    "  --passes LIST              print it after the graph passes LIST (none,\n"
    "                             basic, all, or pass names separated by\n"
    "                             commas), with each pass's count on stderr\n"
    "  --no-fallback              unsupported syntax is an error\n";

const char cmd_save_args[] =
    "FILE.py[:NAME] [--input NAME:DTYPE[DIMS]]... [--params FILE] -o OUT";
const char cmd_save_summary[] = "Convert a Layer or function and write it as a saved model.";
const char cmd_save_help[] =
    "Builds the static Program of NAME in FILE.py (see 'dy2st help program')\n"
    "and writes it with its parameters to OUT, a saved model that 'dy2st run'\n"
    "and the C API load.\n"
    "\n"
    "  --input NAME:DTYPE[DIMS]   one per input (default: the file's INPUT_SPEC)\n"
    "  --params FILE              parameters: FILE.npz or FILE.pdparams\n"
    "                             (see 'dy2st help program')\n"
    "  -o, --output OUT           the saved model to write\n"
    "  --no-fallback              unsupported syntax is an error\n";

const char cmd_trace_args[] =
    "FILE.py:NAME --input NAME:DTYPE[DIMS]... [--params FILE] -o OUT";
const char cmd_trace_summary[] = "Trace a Layer or function on example inputs into a saved model.";
const char cmd_trace_help[] =
    "Runs NAME in FILE.py eagerly on example inputs (random in [0, 1) for\n"
    "floating types, zeros otherwise; unknown dims are 1) while recording\n"
    "every op applied to the inputs and parameters, as paddle.jit.TracedLayer\n"
    "does, and writes the recorded Program with its parameters to OUT.\n"
    "Python values read out of tensors during the run (bool(t), t.item(),\n"
    "int(t), t.shape, t.numpy()) are frozen into the Program as constants;\n"
    "each such place is reported as a warning. NAME is resolved as for\n"
    "'dy2st help program'.\n"
    "\n"
    "  --input NAME:DTYPE[DIMS]   one per input, in order (default: the\n"
    "                             file's INPUT_SPEC); -1 dims stay dynamic\n"
    "                             in the saved model\n"
    "  --params FILE              parameters: FILE.npz or FILE.pdparams\n"
    "                             (see 'dy2st help program')\n"
    "  -o, --output OUT           the saved model to write\n";

const char cmd_export_args[] =
    "MODEL.dy2st|FILE.py[:NAME] [--input NAME:DTYPE[DIMS]]... [--params FILE] [--opset N]\n"
    "       [--external-data] -o OUT.onnx";
const char cmd_export_summary[] = "Write a saved model, or a converted Layer or function, as ONNX.";
const char cmd_export_help[] =
    "Writes an ONNX model. MODEL.dy2st is a saved model (or a text-form\n"
    "program); FILE.py[:NAME] is converted first, as 'dy2st save' does (see\n"
    "'dy2st help program'). Inputs keep their names, and their -1 dims become\n"
    "symbolic dims named NAME_dK; parameters become initializers (in OUT.data\n"
    "beside OUT when they exceed 2 GB). cond becomes If, while_loop Loop (no\n"
    "trip count), lists grown in loops ONNX sequences; the fused ops of the\n"
    "inference passes are written as their parts; print and assert are left\n"
    "out. An op with no ONNX form, or one that needs a newer opset, is an\n"
    "error naming the op and its source line.\n"
    "\n"
    "  --opset N                  the ONNX opset, 13 (default) to 21\n"
    "  --external-data            write the parameters to OUT.data whatever\n"
    "                             their size\n"
    "  --input NAME:DTYPE[DIMS]   FILE.py only: one per input (default: the\n"
    "                             file's INPUT_SPEC)\n"
    "  --params FILE              FILE.py only: FILE.npz or FILE.pdparams\n"
    "  -o, --output OUT           the ONNX file to write\n"
    "  --no-fallback              FILE.py only: unsupported syntax is an error\n";

enum { MODE_PROGRAM, MODE_SAVE, MODE_TRACE, MODE_EXPORT };

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage(const char *cmd, const char *args, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = cli_vreport(EXIT_ERROR, NULL, NULL, fmt, ap);
    va_end(ap);
    return r;
}

static int usage(const char *cmd, const char *args, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = cli_vreport(EXIT_USAGE, cmd, args, fmt, ap);
    va_end(ap);
    return r;
}

/* Splits "FILE.py[:NAME]" into a path and a name (NULL when absent). */
static int split_target(const char *arg, char **path, char **name)
{
    const char *py = strstr(arg, ".py:");
    if (py) {
        *path = d2_strndup(arg, (size_t)(py + 3 - arg));
        *name = d2_strdup(py + 4);
        if (*path && *name && **name)
            return 0;
        d2_free(*path);
        d2_free(*name);
        return -1;
    }
    *path = d2_strdup(arg);
    *name = NULL;
    return *path ? 0 : -1;
}

/* ---- convert ---------------------------------------------------------------------- */

int cmd_convert(int argc, char **argv)
{
    const char *target = NULL;
    bool no_fallback = false, opts_done = false;
    for (int i = 1; i < argc; i++) {
        if (!opts_done && strcmp(argv[i], "--") == 0)
            opts_done = true;
        else if (!opts_done && strcmp(argv[i], "--no-fallback") == 0)
            no_fallback = true;
        else if (!opts_done && argv[i][0] == '-' && argv[i][1] != '\0')
            return usage("convert", cmd_convert_args, "unknown option '%s'", argv[i]);
        else if (target)
            return usage("convert", cmd_convert_args, "unexpected argument '%s'", argv[i]);
        else
            target = argv[i];
    }
    if (!target)
        return usage("convert", cmd_convert_args, "no FILE.py given");
    char *path, *name;
    if (split_target(target, &path, &name) < 0)
        return usage("convert", cmd_convert_args, "bad target '%s' (expected FILE.py[:NAME])",
                     target);
    size_t len = 0;
    char *src = d2_read_file(path, &len, NULL);
    if (!src) {
        int rc = fail("cannot read %s: %s", path, strerror(errno));
        d2_free(path);
        d2_free(name);
        return rc;
    }
    d2_arena *a = d2_arena_new();
    d2_diag diag;
    d2_buf out, msgs;
    d2_buf_init(&out);
    d2_buf_init(&msgs);
    int rc = EXIT_ERROR;
    if (!a) {
        fail("out of memory");
        goto done;
    }
    d2_diag_init(&diag, a);
    d2_ast_module *m = d2_ast_parse(a, path, src, len, &diag);
    if (m) {
        d2_xform_options opt = {no_fallback, NULL, 0};
        d2_xform_status st = d2_xform_convert_module(a, m, name, &diag, &opt, &out);
        if (st != D2_XFORM_ERROR) {
            if (out.data)
                fputs(out.data, stdout);
            rc = EXIT_OK;
        }
    }
    d2_diag_render(&diag, &msgs);
    if (msgs.data)
        fputs(msgs.data, stderr);
done:
    d2_buf_free(&out);
    d2_buf_free(&msgs);
    d2_arena_delete(a);
    d2_free(src);
    d2_free(path);
    d2_free(name);
    return rc;
}

/* ---- program / save: a driver script run by the interpreter ------------------------ */

/* Appends s as a Python string literal. */
static void py_str(d2_buf *b, const char *s)
{
    d2_buf_puts(b, "'");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\' || *p == '\'')
            d2_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            d2_buf_printf(b, "\\x%02x", *p);
        else
            d2_buf_append(b, p, 1);
    }
    d2_buf_puts(b, "'");
}

typedef struct jit_args {
    const char *target; /* FILE.py[:NAME] as given */
    char *path, *name;
    const char **inputs;
    int n_inputs;
    const char *params, *output, *passes;
    bool dot, no_fallback, external_data;
    int opset;
} jit_args;

static int parse_jit_args(int argc, char **argv, int mode, jit_args *ja)
{
    bool save = mode != MODE_PROGRAM;
    const char *cmd = mode == MODE_TRACE    ? "trace"
                      : mode == MODE_EXPORT ? "export"
                      : save                ? "save"
                                            : "program";
    const char *syn = mode == MODE_TRACE    ? cmd_trace_args
                      : mode == MODE_EXPORT ? cmd_export_args
                      : save                ? cmd_save_args
                                            : cmd_program_args;
    const char *target = NULL;
    bool opts_done = false;
    memset(ja, 0, sizeof *ja);
    ja->inputs = calloc((size_t)argc + 1, sizeof *ja->inputs);
    if (!ja->inputs)
        return fail("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (!opts_done && strcmp(argv[i], "--") == 0) {
            opts_done = true;
        } else if (!opts_done && (r = cli_opt_value(argc, argv, &i, "--input", "-i", &v)) != 0) {
            if (r < 0)
                return usage(cmd, syn, "--input needs NAME:DTYPE[DIMS]");
            char nm[256];
            d2_dtype dt;
            d2_shape sh;
            d2_err err = {0};
            if (d2_jit_parse_input(v, nm, sizeof nm, &dt, &sh, &err) < 0)
                return usage(cmd, syn, "%s", err.msg);
            ja->inputs[ja->n_inputs++] = v;
        } else if (!opts_done && (r = cli_opt_value(argc, argv, &i, "--params", NULL, &v)) != 0) {
            if (r < 0)
                return usage(cmd, syn, "--params needs a file");
            ja->params = v;
        } else if (!opts_done && save &&
                   (r = cli_opt_value(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0)
                return usage(cmd, syn, "%s needs a file", argv[i]);
            ja->output = v;
        } else if (!opts_done && mode == MODE_EXPORT &&
                   (r = cli_opt_value(argc, argv, &i, "--opset", NULL, &v)) != 0) {
            char *end = NULL;
            long n = r < 0 ? 0 : strtol(v, &end, 10);
            if (r < 0 || !end || *end || end == v)
                return usage(cmd, syn, "--opset needs a number");
            if (n < D2_ONNX_OPSET_MIN || n > D2_ONNX_OPSET_MAX)
                return usage(cmd, syn, "--opset %s: supported opsets are %d to %d", v,
                             D2_ONNX_OPSET_MIN, D2_ONNX_OPSET_MAX);
            ja->opset = (int)n;
        } else if (!opts_done && mode == MODE_EXPORT && strcmp(argv[i], "--external-data") == 0) {
            ja->external_data = true;
        } else if (!opts_done && !save &&
                   (r = cli_opt_value(argc, argv, &i, "--passes", NULL, &v)) != 0) {
            d2_pass_set set;
            d2_err err = {0};
            if (r < 0)
                return usage(cmd, syn, "--passes needs a LIST");
            if (d2_passes_parse(v, &set, &err) < 0)
                return usage(cmd, syn, "%s", err.msg);
            ja->passes = v;
        } else if (!opts_done && !save && strcmp(argv[i], "--dot") == 0) {
            ja->dot = true;
        } else if (!opts_done && mode != MODE_TRACE && strcmp(argv[i], "--no-fallback") == 0) {
            ja->no_fallback = true;
        } else if (!opts_done && argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage(cmd, syn, "unknown option '%s'", argv[i]);
        } else if (target) {
            return usage(cmd, syn, "unexpected argument '%s'", argv[i]);
        } else {
            target = argv[i];
        }
    }
    if (!target)
        return usage(cmd, syn, "no FILE.py given");
    if (save && !ja->output)
        return usage(cmd, syn, "no output file given (-o OUT)");
    if (split_target(target, &ja->path, &ja->name) < 0)
        return usage(cmd, syn, "bad target '%s' (expected FILE.py[:NAME])", target);
    ja->target = target;
    return EXIT_OK;
}

/* What a line of the driver does, for its errors: they are reported as
 * "dy2st: error: ARG: message", ARG the command-line argument at fault, and
 * a leading "FILE: " that repeats the argument's file is dropped. */
enum { MAX_DRIVER_LINES = 8 };
typedef struct driver_line {
    const char *arg;  /* the argument, as given */
    const char *file; /* the file the argument names */
} driver_line;

typedef struct driver {
    char *src;
    const char *name; /* "<dy2st program>" etc. */
    driver_line lines[MAX_DRIVER_LINES + 1]; /* by line number */
    char *params_arg, *output_arg;
} driver;

static void driver_line_is(driver *d, uint32_t line, const char *arg, const char *file)
{
    if (line <= MAX_DRIVER_LINES) {
        d->lines[line].arg = arg;
        d->lines[line].file = file;
    }
}

/* The driver: load the file, resolve NAME, set parameters, then print the
 * Program or save the model. */
static void driver_build(driver *d, const jit_args *ja, int mode)
{
    d2_buf b;
    d2_buf_init(&b);
    uint32_t line = 1;
    d->name = mode == MODE_TRACE    ? "<dy2st trace>"
              : mode == MODE_SAVE   ? "<dy2st save>"
              : mode == MODE_EXPORT ? "<dy2st export>"
                                    : "<dy2st program>";
    d2_buf_puts(&b, "import _jst\n");
    line++;
    driver_line_is(d, line++, ja->target, ja->path);
    d2_buf_puts(&b, "_m = _jst._load_file(");
    py_str(&b, ja->path);
    d2_buf_puts(&b, ")\n");
    driver_line_is(d, line++, ja->target, ja->path);
    d2_buf_puts(&b, "_t = _jst._resolve(_m, ");
    if (ja->name)
        py_str(&b, ja->name);
    else
        d2_buf_puts(&b, "None");
    d2_buf_puts(&b, ")\n");
    if (ja->params) {
        driver_line_is(d, line++, d->params_arg, ja->params);
        d2_buf_puts(&b, "_jst._load_params(_t, ");
        py_str(&b, ja->params);
        d2_buf_puts(&b, ")\n");
    } else if (mode != MODE_PROGRAM) {
        /* a Layer saved without --params keeps the weights its constructor drew */
        driver_line_is(d, line++, ja->target, ja->path);
        d2_buf_puts(&b, "import paddle, sys\n");
        driver_line_is(d, line++, ja->target, ja->path);
        d2_buf_puts(&b, "if isinstance(_t, paddle.nn.Layer) and _t.parameters(): "
                        "print(\"dy2st: warning: no --params given: saving the layer's initial "
                        "(random) weights\", file=sys.stderr)\n");
    }
    driver_line_is(d, line++, ja->n_inputs ? "--input" : ja->target,
                   ja->n_inputs ? NULL : ja->path);
    if (ja->n_inputs) {
        d2_buf_puts(&b, "_s = [");
        for (int i = 0; i < ja->n_inputs; i++) {
            d2_buf_puts(&b, i ? ", _jst._input_spec(" : "_jst._input_spec(");
            py_str(&b, ja->inputs[i]);
            d2_buf_puts(&b, ")");
        }
        d2_buf_puts(&b, "]\n");
    } else {
        d2_buf_puts(&b, "_s = getattr(_m, 'INPUT_SPEC', None)\n");
    }
    driver_line_is(d, line++, ja->target, ja->path);
    if (mode == MODE_EXPORT) {
        d2_buf_puts(&b, "_jst._export(_t, _s, ");
        py_str(&b, ja->output);
        d2_buf_printf(&b, ", %d, %s)\n", ja->opset ? ja->opset : D2_ONNX_OPSET_DEFAULT,
                      ja->external_data ? "True" : "False");
    } else if (mode == MODE_TRACE) {
        d2_buf_puts(&b, "_jst._trace_save(_t, _s, ");
        py_str(&b, ja->output);
        d2_buf_puts(&b, ")\n");
    } else if (mode == MODE_SAVE) {
        d2_buf_puts(&b, "_jst._save(_t, _s, ");
        py_str(&b, ja->output);
        d2_buf_puts(&b, ")\n");
    } else {
        d2_buf_printf(&b, "print(_jst._program(_t, _s, %s", ja->dot ? "True" : "False");
        if (ja->passes) {
            d2_buf_puts(&b, ", ");
            py_str(&b, ja->passes);
        }
        d2_buf_puts(&b, "), end='')\n");
    }
    d->src = d2_buf_take(&b);
}

/* "FILE: rest" -> "rest" when FILE is file. */
static const char *drop_file(const char *msg, const char *file)
{
    size_t n = file ? strlen(file) : 0;
    if (n && strncmp(msg, file, n) == 0 && strncmp(msg + n, ": ", 2) == 0)
        return msg + n + 2;
    return msg;
}

/* "NameError: ..." -> "..." (any "<Name>Error: " or "<Name>Exception: "). */
static const char *strip_exc_type(const char *msg)
{
    size_t n = strspn(msg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    if (strncmp(msg + n, ": ", 2) != 0)
        return msg;
    if ((n > 5 && strncmp(msg + n - 5, "Error", 5) == 0) ||
        (n > 9 && strncmp(msg + n - 9, "Exception", 9) == 0))
        return msg + n + 2;
    return msg;
}

/* "OPTION VALUE" in new memory (NULL when out of memory). */
static char *option_text(const char *option, const char *value)
{
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_printf(&b, "%s %s", option, value);
    return d2_buf_take(&b);
}

/* An export error "line L:C: message" about the converted file: printed as the compiler
 * does, "FILE:L:C: error: message" with the source line and a caret. False when msg has
 * no position or the line cannot be read. */
static bool report_at_line(const char *file, const char *msg)
{
    unsigned line = 0, col = 0;
    int n = 0;
    if (!file || sscanf(msg, "line %u:%u: %n", &line, &col, &n) != 2 || n == 0 || line == 0 ||
        col == 0)
        return false;
    size_t len = 0;
    char *src = d2_read_file(file, &len, NULL);
    if (!src)
        return false;
    const char *p = src, *end = src + len;
    for (unsigned l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    char *text = p < end ? d2_strndup(p, (size_t)((nl ? nl : end) - p)) : NULL;
    d2_free(src);
    if (!text)
        return false;
    d2_diag_item it;
    memset(&it, 0, sizeof it);
    it.severity = D2_DIAG_ERROR;
    it.file = file;
    it.line = line;
    it.col = col;
    it.width = 1;
    it.message = msg + n;
    it.source_line = text;
    it.caret_col = col;
    d2_buf b;
    d2_buf_init(&b);
    d2_diag_render_item(&it, &b);
    if (b.data)
        fputs(b.data, stderr);
    d2_buf_free(&b);
    d2_free(text);
    return true;
}

/* Prints the errors of a failed driver run. An error raised by the driver's
 * own line (a _jst helper) is about a command-line argument and names it,
 * without the exception's type; an error in the user's files is rendered as
 * usual, less the notes that point into the driver. */
static void driver_report(const driver *d, const jit_args *ja, int mode, d2_interp *I)
{
    const d2_diag_item *top = NULL;
    for (const d2_diag_item *it = I->diag.first; it && !top; it = it->next)
        if (it->severity == D2_DIAG_ERROR)
            top = it;
    if (top && top->file && strcmp(top->file, d->name) == 0) {
        const char *msg = strip_exc_type(top->message);
        /* the helpers' "dy2st trace: " says what the argument already does */
        const char *cmd = mode == MODE_TRACE ? "dy2st trace: " : NULL;
        if (cmd && strncmp(msg, cmd, strlen(cmd)) == 0)
            msg += strlen(cmd);
        if (mode == MODE_EXPORT && report_at_line(ja->path, msg))
            return;
        const driver_line *l = top->line <= MAX_DRIVER_LINES ? &d->lines[top->line] : NULL;
        const char *arg = l && l->arg ? l->arg : ja->target;
        if (ja->output && msg != drop_file(msg, ja->output)) {
            arg = d->output_arg;
            msg = drop_file(msg, ja->output);
        } else if (l && l->file) {
            msg = drop_file(msg, l->file);
        }
        fail("%s: %s", arg, msg);
        return;
    }
    d2_buf b;
    d2_buf_init(&b);
    for (const d2_diag_item *it = I->diag.first; it; it = it->next)
        if (it->severity != D2_DIAG_WARNING && !(it->file && strcmp(it->file, d->name) == 0))
            d2_diag_render_item(it, &b);
    if (b.data)
        fputs(b.data, stderr);
    d2_buf_free(&b);
}

static int run_driver(int argc, char **argv, int mode)
{
    bool save = mode != MODE_PROGRAM;
    jit_args ja;
    driver d;
    memset(&d, 0, sizeof d);
    int rc = parse_jit_args(argc, argv, mode, &ja);
    if (rc != EXIT_OK)
        goto done;
    d.params_arg = ja.params ? option_text("--params", ja.params) : NULL;
    d.output_arg = ja.output ? option_text("-o", ja.output) : NULL;
    if ((ja.params && !d.params_arg) || (ja.output && !d.output_arg)) {
        rc = fail("out of memory");
        goto done;
    }
    driver_build(&d, &ja, mode);
    d2_interp_options opt = {0};
    cli_cache_options(&opt);
    opt.no_fallback = ja.no_fallback;
    d2_err err = {0};
    d2_interp *I = d.src ? d2_interp_new(&opt, &err) : NULL;
    if (!I) {
        rc = fail("%s", d.src ? err.msg : "out of memory");
        goto done;
    }
    int r = d2_interp_run_source(I, d.name, d.src, strlen(d.src));
    fflush(stdout);
    if (r < 0) {
        driver_report(&d, &ja, mode, I);
        rc = EXIT_ERROR;
    } else if (mode == MODE_EXPORT) {
        printf("exported %s\n", ja.output);
    } else if (save) {
        printf("saved %s\n", ja.output);
    }
    d2_interp_free(I);
done:
    d2_free(d.src);
    d2_free(d.params_arg);
    d2_free(d.output_arg);
    free(ja.inputs);
    d2_free(ja.path);
    d2_free(ja.name);
    return rc;
}

int cmd_program(int argc, char **argv) { return run_driver(argc, argv, MODE_PROGRAM); }

int cmd_save(int argc, char **argv) { return run_driver(argc, argv, MODE_SAVE); }

int cmd_trace(int argc, char **argv) { return run_driver(argc, argv, MODE_TRACE); }

/* export of a saved model or text-form program: no conversion */
static int export_model(const jit_args *ja)
{
    if (ja->n_inputs || ja->params || ja->no_fallback)
        return usage("export", cmd_export_args,
                     "--input, --params and --no-fallback apply to FILE.py only, not to '%s'",
                     ja->target);
    d2_err err = {0};
    d2_program *p = d2_model_open(ja->target, &err);
    if (!p)
        return fail("%s", err.msg);
    d2_onnx_options o = {0};
    o.opset = ja->opset;
    o.external_data = ja->external_data;
    int rc = d2_onnx_export(p, ja->output, &o, &err);
    d2_program_free(p);
    if (rc < 0) {
        /* "OUT: cannot create: ..." names the -o argument */
        size_t n = strlen(ja->output);
        if (strncmp(err.msg, ja->output, n) == 0 && strncmp(err.msg + n, ": ", 2) == 0)
            return fail("-o %s: %s", ja->output, err.msg + n + 2);
        return fail("%s: %s", ja->target, err.msg);
    }
    printf("exported %s\n", ja->output);
    return EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
    /* FILE.py[:NAME] converts; anything else is a saved model */
    const char *target = NULL;
    for (int i = 1; i < argc && !target; i++) {
        if (argv[i][0] != '-' || argv[i][1] == '\0')
            target = argv[i];
        else if (strcmp(argv[i], "--no-fallback") != 0 && strcmp(argv[i], "--external-data") != 0 &&
                 !strchr(argv[i], '='))
            i++; /* an option's value */
    }
    size_t n = target ? strlen(target) : 0;
    if (target && !strstr(target, ".py:") && !(n >= 3 && strcmp(target + n - 3, ".py") == 0)) {
        jit_args ja;
        int rc = parse_jit_args(argc, argv, MODE_EXPORT, &ja);
        if (rc == EXIT_OK)
            rc = export_model(&ja);
        free(ja.inputs);
        d2_free(ja.path);
        d2_free(ja.name);
        return rc;
    }
    return run_driver(argc, argv, MODE_EXPORT);
}
