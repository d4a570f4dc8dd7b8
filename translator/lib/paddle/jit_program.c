/* jit_program.c - to_static functions: converting a user function (transforms, then the
 * converted source instantiated in its module), compiling a Program per input signature,
 * running it, and the Programs that saving builds from InputSpecs. */
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"
#include "lib/paddle/jit_train.h"

#include "exec.h"
#include "lib/paddle/tensor_api.h"
#include "transform/transform.h"
#include "syntax/unparse.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Weak: the trace recorder provides it (see jit.h). */
extern d2_obj *d2_trace_function(d2_interp *I, d2_obj *fn, d2_obj **args, size_t nargs,
                                 d2_dict *kwargs) __attribute__((weak));
/* Weak: trace.c (trace.h) traces a function that cannot be converted into the Program being
 * built by compile(). */
extern d2_obj *d2_trace_symbolic(d2_interp *I, d2_builder *B, d2_obj *fn, d2_obj **sym,
                                 size_t nargs, d2_dict *kw, const int *vars,
                                 d2_tensor *const *vals, int n_feeds) __attribute__((weak));

/* ======================================================================
 * Converting user functions
 * ====================================================================== */

/* Runs module-level statement `stmt` (a def) in module m's globals and
 * returns a new reference to the global `name` it defined, which is then
 * removed from m again. The tree must live as long as the interpreter. */
static d2_obj *exec_def(d2_interp *I, d2_ast_stmt *stmt, d2_module *m, const char *name)
{
    d2_arena *a = I->arena;
    d2_ast_module *mod = d2_ast_node_new(a, D2_AST_MODULE, stmt->span);
    if (!mod || d2_ast_seq_push(a, &mod->body, stmt) < 0)
        return nomem(I);
    if (m->ast) {
        mod->filename = m->ast->filename;
        mod->source = m->ast->source;
        mod->source_len = m->ast->source_len;
    }
    d2_obj *saved = d2_incref(d2_dict_get_str(I, m->dict, name));
    if (d2_interp_exec_ast(I, mod, m) < 0) {
        d2_decref(saved);
        if (!d2_exc_pending(I))
            d2_raise(I, "RuntimeError", "internal: the converted code does not run");
        return NULL;
    }
    d2_obj *v = d2_incref(d2_dict_get_str(I, m->dict, name));
    int rc = saved ? d2_dict_set_str(I, m->dict, name, saved) : 0;
    if (!saved) {
        d2_obj *k = d2_str_from(I, name);
        rc = k ? d2_dict_del(I, m->dict, k) : -1;
        d2_decref(k);
    }
    d2_decref(saved);
    if (!v || rc < 0) {
        d2_decref(v);
        if (!d2_exc_pending(I))
            d2_raise(I, "RuntimeError", "internal: the converted code defines no '%s'", name);
        return NULL;
    }
    return v;
}

/* Names of the module's globals bound to builtin modules (paddle, F, np...):
 * the transform leaves calls through them alone. Strings are borrowed. */
static const char **library_names(d2_interp *I, d2_dict *g, size_t *n)
{
    const char **v = d2_calloc(g->n + 8, sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < g->n; i++) {
        d2_dict_entry *e = &g->entries[i];
        if (!e->key || e->key->kind != D2_OBJ_STR)
            continue;
        bool lib = e->value->kind == D2_OBJ_MODULE && !D2_AS(d2_module, e->value)->path;
        if (!lib && e->value->kind == D2_OBJ_CLASS)
            lib = D2_AS(d2_class, e->value)->module &&
                  !D2_AS(d2_class, e->value)->module->path;
        if (!lib && e->value->kind == D2_OBJ_BUILTIN)
            lib = true;
        if (lib)
            v[(*n)++] = cstr(e->key);
    }
    static const char *const always[] = {"paddle", "F", "nn", "np", "numpy", "math"};
    for (size_t i = 0; i < D2_COUNTOF(always); i++)
        v[(*n)++] = always[i];
    D2_UNUSED(I);
    return v;
}

typedef struct conv_result {
    d2_obj *fn;        /* converted function (new ref) or NULL */
    char *code;        /* converted source of the function (d2_malloc) */
    bool fallback;     /* unsupported syntax */
    d2_span span;      /* of the first unsupported construct */
    char *why;         /* its description ("'try' statement cannot be converted") */
} conv_result;

static void conv_result_free(conv_result *r)
{
    d2_decref(r->fn);
    d2_free(r->code);
    d2_free(r->why);
    memset(r, 0, sizeof *r);
}

/* What the transforms made of a function, kept by its to_static wrapper
 * from the decoration (where .code needs it) to the first call, so that the
 * function is transformed once. Valid while the module's library names
 * (libsig) are the same: the transforms read them. */
typedef struct xf_memo {
    bool have, fallback;
    d2_ast_stmt *conv; /* in the interpreter's arena */
    d2_span span;
    char *why, *libsig;
} xf_memo;

static void xf_memo_free(xf_memo *m)
{
    d2_free(m->why);
    d2_free(m->libsig);
    memset(m, 0, sizeof *m);
}

static bool xf_memo_copy(xf_memo *to, const xf_memo *from)
{
    *to = *from;
    to->why = from->why ? d2_strdup(from->why) : NULL;
    to->libsig = d2_strdup(from->libsig);
    if ((from->why && !to->why) || !to->libsig) {
        xf_memo_free(to);
        return false;
    }
    return true;
}

/* The library names joined into one string (NULL when out of memory). */
static char *lib_signature(const char **libs, size_t n)
{
    d2_buf b;
    d2_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        d2_buf_puts(&b, libs[i]);
        d2_buf_puts(&b, "\n");
    }
    return d2_buf_take(&b);
}

/* Runs the transforms on f (or takes their result from memo when it still
 * holds). 0 with *conv set, 1 for unsupported syntax (r->span and r->why
 * set), -1 with an exception. */
static int transform(d2_interp *I, d2_function *f, xf_memo *memo, conv_result *r,
                     d2_ast_stmt **conv)
{
    size_t nlib = 0;
    const char **libs = library_names(I, f->module->dict, &nlib);
    /* the signature is only needed to keep or check a memo */
    char *sig = libs && memo ? lib_signature(libs, nlib) : NULL;
    if (!libs || (memo && !sig)) {
        d2_free(libs);
        d2_free(sig);
        nomem(I);
        return -1;
    }
    if (memo && memo->have && strcmp(memo->libsig, sig) == 0) {
        d2_free(libs);
        d2_free(sig);
        if (memo->fallback) {
            r->span = memo->span;
            r->why = memo->why ? d2_strdup(memo->why) : NULL;
            return 1;
        }
        *conv = memo->conv;
        return 0;
    }
    const d2_ast_module *mast = f->module->ast;
    const char *path = f->module->path ? f->module->path : f->module->name;
    /* diagnostics in a scratch arena; the converted tree in the interpreter's,
     * which outlives the functions made from it */
    d2_arena *a = d2_arena_new();
    if (!a) {
        d2_free(libs);
        d2_free(sig);
        nomem(I);
        return -1;
    }
    d2_diag dg;
    d2_diag_init(&dg, a);
    d2_diag_set_source(&dg, path, mast->source, mast->source_len);
    d2_xform_options opt = {false, libs, nlib};
    d2_xform_status st = d2_xform_function(I->arena, f->def, &dg, &opt, conv);
    d2_free(libs);
    int rc = -1;
    if (st == D2_XFORM_FALLBACK || (st == D2_XFORM_ERROR && dg.first)) {
        const d2_diag_item *it = dg.first;
        if (it) {
            r->span = it->span;
            const char *semi = strstr(it->message, "; ");
            r->why = semi ? d2_strndup(it->message, (size_t)(semi - it->message))
                          : d2_strdup(it->message);
        }
        rc = 1;
    } else if (st != D2_XFORM_OK || !*conv) {
        nomem(I);
    } else {
        rc = 0;
    }
    d2_arena_delete(a);
    if (rc >= 0 && memo) {
        xf_memo_free(memo);
        memo->have = true;
        memo->fallback = rc == 1;
        memo->conv = rc == 0 ? *conv : NULL;
        memo->span = r->span;
        memo->why = r->why ? d2_strdup(r->why) : NULL;
        memo->libsig = sig;
        sig = NULL;
    }
    d2_free(sig);
    return rc;
}

/* Converts user function fobj: runs the transforms (or takes them from
 * memo, which may be NULL), and unless only_code, instantiates the converted
 * source in the function's module globals with the function's closure
 * values; only_code sets r->code. 0, or -1 with an exception; unsupported
 * syntax is not an error (r->fallback). */
static int convert(d2_interp *I, d2_obj *fobj, bool only_code, xf_memo *memo, conv_result *r)
{
    memset(r, 0, sizeof *r);
    d2_function *f = D2_AS(d2_function, fobj);
    if (!f->def || !f->module || !f->module->ast) {
        r->fallback = true;
        r->why = d2_strdup("a lambda or a function without source cannot be converted");
        return 0;
    }
    d2_ast_stmt *conv = NULL;
    int xr = transform(I, f, memo, r, &conv);
    if (xr < 0)
        return -1;
    int rc = -1;
    d2_buf src;
    d2_buf_init(&src);
    if (xr == 1) {
        r->fallback = true;
        if (only_code) {
            d2_unparse(&src, f->def);
            r->code = d2_buf_take(&src);
        }
        return 0;
    }
    if (only_code) {
        d2_unparse(&src, conv);
        r->code = d2_buf_take(&src);
        if (!r->code) {
            nomem(I);
            return -1;
        }
        return 0;
    }
    /* def __jst_factory__(_jst, <free variables>): <converted def>; return it,
     * run in the function's module: the converted code keeps the user's spans */
    d2_arena *pa = I->arena;
    d2_span sp = conv->span;
    d2_ast_stmt *fac = d2_ast_stmt_new(pa, D2_AST_FUNCTION_DEF, sp);
    d2_ast_arguments *fargs = d2_ast_node_new(pa, D2_AST_ARGUMENTS, sp);
    d2_ast_arg *a0 = d2_ast_arg_new(pa, "_jst", NULL, sp);
    d2_ast_expr *rv = d2_ast_name(pa, conv->function_def.name, D2_CTX_LOAD, sp);
    d2_ast_stmt *ret = rv ? d2_ast_return(pa, rv, sp) : NULL;
    if (!fac || !fargs || !a0 || !ret || d2_ast_seq_push(pa, &fargs->args, a0) < 0 ||
        d2_ast_seq_push(pa, &fac->function_def.body, conv) < 0 ||
        d2_ast_seq_push(pa, &fac->function_def.body, ret) < 0) {
        nomem(I);
        goto done;
    }
    fac->function_def.name = "__jst_factory__";
    fac->function_def.args = fargs;
    size_t nfree = 0;
    d2_dict *cl = f->closure;
    for (size_t i = 0; cl && i < cl->n; i++) {
        if (!cl->entries[i].key || !cstr(cl->entries[i].key))
            continue;
        d2_ast_arg *fa = d2_ast_arg_new(pa, cstr(cl->entries[i].key), NULL, sp);
        if (!fa || d2_ast_seq_push(pa, &fargs->args, fa) < 0) {
            nomem(I);
            goto done;
        }
        nfree++;
    }
    d2_obj *factory = exec_def(I, fac, f->module, "__jst_factory__");
    if (!factory)
        goto done;
    d2_obj **argv = d2_calloc(nfree + 2, sizeof *argv);
    if (!argv) {
        d2_decref(factory);
        nomem(I);
        goto done;
    }
    argv[0] = d2_incref((d2_obj *)JS(I)->jst);
    size_t k = 1;
    for (size_t i = 0; cl && i < cl->n; i++) {
        d2_dict_entry *e = &cl->entries[i];
        if (!e->key || !cstr(e->key))
            continue;
        d2_obj *cell = e->value;
        d2_obj *v = cell && cell->kind == D2_OBJ_CELL ? D2_AS(d2_cell, cell)->value : NULL;
        if (v)
            argv[k] = d2_incref(v);
        else {
            char msg[300];
            snprintf(msg, sizeof msg,
                     "cannot access free variable '%s' where it is not associated with a value in "
                     "enclosing scope", cstr(e->key));
            argv[k] = d2_jit_new_undef(I, cstr(e->key), msg);
        }
        if (!argv[k]) {
            decref_all(argv, k);
            d2_free(argv);
            d2_decref(factory);
            goto done;
        }
        k++;
    }
    r->fn = d2_call(I, factory, argv, k, NULL);
    decref_all(argv, k);
    d2_free(argv);
    d2_decref(factory);
    if (!r->fn)
        goto done;
    if (r->fn->kind == D2_OBJ_FUNCTION) {
        d2_function *nf = D2_AS(d2_function, r->fn);
        d2_setref((d2_obj **)&nf->defaults, d2_incref((d2_obj *)f->defaults));
        d2_setref((d2_obj **)&nf->kw_defaults, d2_incref((d2_obj *)f->kw_defaults));
        /* a recursive call inside reaches the converted function itself */
        if (d2_jit_fattr_set(I, r->fn, "_dy2st_converted", I->true_) < 0)
            goto done;
    }
    rc = 0;
done:
    if (rc < 0)
        conv_result_free(r);
    return rc;
}

/* The converted form of user function f for _jst.Call, cached; f itself
 * when it cannot be converted. New reference. */
d2_obj *d2_jit_converted_callee(d2_interp *I, d2_obj *f)
{
    d2_function *fn = D2_AS(d2_function, f);
    if (!fn->def || !fn->module || !fn->module->path || fn->module->path[0] == '<' ||
        fattr(I, f, "_dy2st_static") || fattr(I, f, "_dy2st_converted") ||
        fattr(I, f, "_dy2st_not_to_static") || d2_xform_is_not_to_static(fn->def))
        return d2_incref(f);
    jit_state *s = JS(I);
    d2_obj *hit = d2_dict_get(I, D2_AS(d2_dict, s->converted), f);
    if (hit)
        return d2_incref(hit);
    conv_result r;
    if (convert(I, f, false, NULL, &r) < 0)
        return NULL;
    d2_obj *use = r.fn && !r.fallback ? r.fn : f;
    d2_obj *out = d2_incref(use);
    if (d2_dict_set(I, D2_AS(d2_dict, s->converted), f, use) < 0)
        d2_setref(&out, NULL);
    conv_result_free(&r);
    return out;
}

/* ======================================================================
 * StaticFunction: compile once per signature, run with the executor
 * ====================================================================== */

typedef struct entry {
    struct entry *next;
    char *key;
    d2_program *prog;
    d2_prepared *pp;
    d2_obj *lifted; /* the builder's dict: id -> (tensor, var) (owned) */
    d2_obj *tmpl;   /* output template (owned) */
    d2_obj *pins;   /* objects whose identity is part of the key (owned) */
    d2_jit_grad *grads; /* its gradient Programs, built when it trains (jit_train.c) */
    int n_feeds, n_out;
    /* A signature whose dynamic-shape build failed and whose calls are
     * specialised on their shapes: no Program, the failure's message, where
     * it was raised */
    char *failed;
    d2_span fail_span;
    const d2_module *fail_module;
} entry;

typedef struct sfn {
    d2_obj *fn;         /* the original function (owned) */
    d2_obj *bound;      /* the Layer of to_static(layer), or NULL (owned) */
    d2_obj *spec;       /* input_spec (list/tuple), or NULL (owned) */
    d2_obj *conv;       /* converted function once made (owned) */
    d2_obj *last_specs; /* InputSpecs of the last compiled signature (owned) */
    bool tried, fallback;
    d2_span why_span;
    char *why;
    xf_memo memo; /* the transforms' result from the decoration, until tried */
    entry *entries;
} sfn;

static void entry_free(entry *e)
{
    d2_exec_free(e->pp);
    d2_program_free(e->prog);
    d2_decref(e->lifted);
    d2_decref(e->tmpl);
    d2_decref(e->pins);
    d2_jit_grad_release(e->grads);
    d2_free(e->key);
    d2_free(e->failed);
    d2_free(e);
}

static void sfn_fin(void *p)
{
    sfn *s = p;
    while (s->entries) {
        entry *e = s->entries;
        s->entries = e->next;
        entry_free(e);
    }
    d2_decref(s->fn);
    d2_decref(s->bound);
    d2_decref(s->spec);
    d2_decref(s->conv);
    d2_decref(s->last_specs);
    d2_free(s->why);
    xf_memo_free(&s->memo);
    d2_free(s);
}

static sfn *sfn_of(d2_interp *I, d2_obj *state)
{
    if (!state || state->kind != D2_OBJ_OPAQUE || state->cls != JS(I)->sfn_cls)
        return NULL;
    return D2_AS(d2_opaque, state)->payload;
}

/* Converts s->fn once; a fallback is remembered with its reason. */
static int sfn_convert(d2_interp *I, sfn *s)
{
    if (s->tried)
        return 0;
    conv_result r;
    int rc = convert(I, s->fn, false, &s->memo, &r);
    xf_memo_free(&s->memo);
    if (rc < 0)
        return -1;
    s->tried = true;
    s->fallback = r.fallback;
    s->why_span = r.span;
    s->why = r.why;
    r.why = NULL;
    s->conv = r.fn;
    r.fn = NULL;
    conv_result_free(&r);
    d2_function *f = D2_AS(d2_function, s->fn);
    if (s->fallback && d2_trace_function && !I->opt.no_fallback && s->why_span.line &&
        !I->opt.quiet_warnings)
        d2_warn(I, s->why_span, f->module,
                "%s; %s() is traced instead and its data-dependent branches are frozen",
                s->why ? s->why : "unsupported syntax", f->name);
    return 0;
}

/* The error for a function that cannot be converted when no tracer exists:
 * a compiler-style diagnostic at the construct. */
static d2_obj *fallback_error(d2_interp *I, sfn *s)
{
    d2_function *f = D2_AS(d2_function, s->fn);
    const char *why = s->why ? s->why : "unsupported syntax";
    const char *how = I->opt.no_fallback ? "with --no-fallback it is not traced instead"
                                         : "tracing is not available to run it instead";
    if (f->module && f->module->ast && s->why_span.line) {
        const char *path = f->module->path ? f->module->path : f->module->name;
        d2_diag_set_source(&I->diag, path, f->module->ast->source, f->module->ast->source_len);
        d2_diag_add(&I->diag, D2_DIAG_ERROR, s->why_span,
                    "%s; %s() cannot be converted to a static program (%s)", why, f->name, how);
        d2_raise(I, "SyntaxError", "%s; %s() cannot be converted to a static program (%s)", why,
                 f->name, how);
        if (I->exc && I->exc->kind == D2_OBJ_INSTANCE)
            d2_dict_set_str(I, D2_AS(d2_instance, I->exc)->dict, "__reported__", I->true_);
        return NULL;
    }
    return d2_raise(I, "SyntaxError", "%s; %s() cannot be converted to a static program (%s)",
                    why, f->name, how);
}

/* ---- signatures and feeds ---- */

typedef struct feeds {
    int n, cap;
    d2_tensor **t; /* concrete values (borrowed), NULL when compiling from an InputSpec */
    d2_obj **obj;  /* the tensor objects they come from (borrowed), NULL for ndarrays */
    d2_type *type;
    char **name;
} feeds;

static void feeds_free(feeds *f)
{
    for (int i = 0; i < f->n; i++)
        d2_free(f->name[i]);
    d2_free(f->t);
    d2_free(f->obj);
    d2_free(f->type);
    d2_free(f->name);
    memset(f, 0, sizeof *f);
}

static int feeds_add(d2_interp *I, feeds *f, d2_tensor *t, d2_obj *obj, const d2_type *ty,
                     const char *name)
{
    if (f->n == f->cap) {
        int cap = f->cap ? f->cap * 2 : 8;
        d2_tensor **nt = d2_realloc(f->t, sizeof *nt * (size_t)cap);
        if (nt)
            f->t = nt;
        d2_obj **no = nt ? d2_realloc(f->obj, sizeof *no * (size_t)cap) : NULL;
        if (no)
            f->obj = no;
        d2_type *ny = no ? d2_realloc(f->type, sizeof *ny * (size_t)cap) : NULL;
        if (ny)
            f->type = ny;
        char **nn = ny ? d2_realloc(f->name, sizeof *nn * (size_t)cap) : NULL;
        if (!nn) {
            nomem(I);
            return -1;
        }
        f->name = nn;
        f->cap = cap;
    }
    f->name[f->n] = d2_strdup(name);
    if (!f->name[f->n]) {
        nomem(I);
        return -1;
    }
    f->t[f->n] = t;
    f->obj[f->n] = obj;
    f->type[f->n] = *ty;
    f->n++;
    return 0;
}

/* Reads an InputSpec into a type and name (borrowed, may be NULL). */
static int spec_type(d2_interp *I, d2_obj *spec, d2_type *t, const char **name)
{
    memset(t, 0, sizeof *t);
    t->kind = D2_VALUE_TENSOR;
    d2_obj *shape = iget(I, spec, "shape"), *dtype = iget(I, spec, "dtype");
    int dt = D2_F32;
    if (dtype && d2_pd_parse_dtype(I, dtype, "InputSpec", false, &dt) < 0)
        return -1;
    t->dtype = dt < 0 ? D2_F32 : (d2_dtype)dt;
    size_t n = 0;
    d2_obj **dims = shape ? d2_jit_seq_items(shape, &n) : NULL;
    if (n > D2_MAX_DIMS) {
        d2_raise(I, "ValueError", "InputSpec: at most %d dims", D2_MAX_DIMS);
        return -1;
    }
    t->shape.ndim = (int)n;
    for (size_t i = 0; i < n; i++) {
        int64_t v = -1;
        if (dims[i]->kind != D2_OBJ_NONE && d2_to_int64(I, dims[i], "InputSpec.shape", &v) < 0)
            return -1;
        t->shape.dims[i] = v < 0 ? -1 : v;
    }
    *name = cstr(iget(I, spec, "name"));
    return 0;
}

static bool is_spec(d2_interp *I, d2_obj *o) { return is_inst(I, o, JS(I)->spec_cls); }

typedef struct walk {
    d2_interp *I;
    feeds *fd;
    d2_buf *key;
    d2_obj *pins; /* list */
} walk;

/* Adds value v (argument `name`, described by spec when not NULL) to the
 * signature key and its tensors to the feeds. */
static int walk_value(walk *w, d2_obj *v, d2_obj *spec, const char *name, int depth)
{
    d2_interp *I = w->I;
    if (depth > 32) {
        d2_raise(I, "ValueError", "to_static: arguments nested too deeply");
        return -1;
    }
    d2_type ty;
    const char *sname = NULL;
    char ts[160];
    if (is_spec(I, v) || is_tensor(v) || v->kind == D2_OBJ_NDARRAY) {
        d2_tensor *t = NULL;
        if (is_spec(I, v)) {
            if (spec_type(I, v, &ty, &sname) < 0)
                return -1;
        } else {
            if (is_sym(v)) {
                d2_raise(I, "ValueError",
                         "a symbolic tensor is passed to a to_static function outside of a "
                         "Program build");
                return -1;
            }
            t = is_tensor(v) ? TOBJ(v)->t : D2_AS(d2_ndarray, v)->t;
            memset(&ty, 0, sizeof ty);
            ty.kind = D2_VALUE_TENSOR;
            ty.dtype = t->dtype;
            d2_tensor_get_shape(t, &ty.shape);
            if (t->kind == D2_VALUE_ARRAY) {
                d2_raise(I, "TypeError", "to_static: tensor arrays cannot be passed as inputs");
                return -1;
            }
            if (spec && is_spec(I, spec)) {
                d2_type st;
                if (spec_type(I, spec, &st, &sname) < 0)
                    return -1;
                bool ok = st.shape.ndim == ty.shape.ndim && st.dtype == ty.dtype;
                for (int d = 0; ok && d < st.shape.ndim; d++)
                    ok = st.shape.dims[d] < 0 || st.shape.dims[d] == ty.shape.dims[d];
                if (!ok) {
                    char a[160];
                    d2_type_str(&ty, a, sizeof a);
                    d2_type_str(&st, ts, sizeof ts);
                    d2_raise(I, "ValueError",
                             "input '%s' is %s but its InputSpec says %s", sname ? sname : name,
                             a, ts);
                    return -1;
                }
                ty = st;
            }
        }
        d2_type_str(&ty, ts, sizeof ts);
        d2_buf_printf(w->key, "T%s,", ts);
        return feeds_add(I, w->fd, t, is_tensor(v) ? v : NULL, &ty, sname ? sname : name);
    }
    if (v->kind == D2_OBJ_LIST || v->kind == D2_OBJ_TUPLE) {
        size_t n, ns = 0;
        d2_obj **items = d2_jit_seq_items(v, &n);
        d2_obj **sitems = spec ? d2_jit_seq_items(spec, &ns) : NULL;
        d2_buf_puts(w->key, v->kind == D2_OBJ_LIST ? "[" : "(");
        for (size_t i = 0; i < n; i++) {
            char sub[300];
            snprintf(sub, sizeof sub, "%s_%zu", name, i);
            if (walk_value(w, items[i], i < ns ? sitems[i] : NULL, sub, depth + 1) < 0)
                return -1;
        }
        d2_buf_puts(w->key, v->kind == D2_OBJ_LIST ? "]," : "),");
        return 0;
    }
    if (v->kind == D2_OBJ_DICT) {
        d2_dict *d = D2_AS(d2_dict, v);
        d2_buf_puts(w->key, "{");
        for (size_t i = 0; i < d->n; i++) {
            if (!d->entries[i].key)
                continue;
            d2_obj *kr = d2_repr(I, d->entries[i].key);
            if (!kr)
                return -1;
            char sub[300];
            snprintf(sub, sizeof sub, "%s_%s", name,
                     d->entries[i].key->kind == D2_OBJ_STR ? cstr(d->entries[i].key) : "k");
            d2_buf_printf(w->key, "%s:", cstr(kr));
            d2_decref(kr);
            if (walk_value(w, d->entries[i].value, NULL, sub, depth + 1) < 0)
                return -1;
        }
        d2_buf_puts(w->key, "},");
        return 0;
    }
    if (is_pynum(v) || v->kind == D2_OBJ_STR || v->kind == D2_OBJ_NONE) {
        d2_obj *r = d2_repr(I, v);
        if (!r)
            return -1;
        d2_buf_printf(w->key, "%c%s,", v->kind == D2_OBJ_STR ? 'S' : 'V', cstr(r));
        d2_decref(r);
        return 0;
    }
    d2_buf_printf(w->key, "O%p,", (void *)v);
    if (d2_jit_is_layer(I, v)) {
        d2_obj *tr = d2_getattr_opt(I, v, "training");
        int t = tr ? d2_truthy(I, tr) : 0;
        d2_decref(tr);
        if (t < 0)
            return -1;
        d2_buf_printf(w->key, "train=%d,", t);
    }
    return d2_list_append(I, w->pins, v);
}

/* v with its tensors (and InputSpecs) replaced by the symbolic feeds *k, *k+1... */
/* Whether v holds a tensor, ndarray or InputSpec (a feed). */
static bool has_feed(d2_interp *I, d2_obj *v, int depth)
{
    if (is_spec(I, v) || is_tensor(v) || v->kind == D2_OBJ_NDARRAY)
        return true;
    if (depth > 32)
        return false;
    if (v->kind == D2_OBJ_LIST || v->kind == D2_OBJ_TUPLE) {
        size_t n;
        d2_obj **items = d2_jit_seq_items(v, &n);
        for (size_t i = 0; i < n; i++)
            if (has_feed(I, items[i], depth + 1))
                return true;
    } else if (v->kind == D2_OBJ_DICT) {
        d2_dict *d = D2_AS(d2_dict, v);
        for (size_t i = 0; i < d->n; i++)
            if (d->entries[i].key && has_feed(I, d->entries[i].value, depth + 1))
                return true;
    }
    return false;
}

typedef struct sym_ctx {
    const int *vars;
    int *k;
} sym_ctx;

static d2_obj *symbolic_args(d2_interp *I, d2_obj *v, const int *vars, int *k, int depth);

static d2_obj *symbolic_item(d2_interp *I, d2_obj *v, void *ctx, int depth)
{
    sym_ctx *c = ctx;
    return symbolic_args(I, v, c->vars, c->k, depth);
}

static d2_obj *symbolic_args(d2_interp *I, d2_obj *v, const int *vars, int *k, int depth)
{
    if (is_spec(I, v) || is_tensor(v) || v->kind == D2_OBJ_NDARRAY) {
        d2_obj *t = d2_pd_symbolic(I, D2_MODE(I)->builder, vars[(*k)++]);
        if (t && is_tensor(v)) /* a parameter passed in still needs its gradient */
            TOBJ(t)->stop_gradient = TOBJ(v)->stop_gradient;
        return t;
    }
    if (depth > 32 || !has_feed(I, v, depth))
        return d2_incref(v);
    sym_ctx c = {vars, k};
    return d2_jit_map_items(I, v, symbolic_item, &c, depth);
}

/* ---- outputs ---- */

static bool is_yielded(const d2_block *b, int v)
{
    for (int i = 0; i < b->n_yields; i++)
        if (b->yields[i] == v)
            return true;
    return false;
}

static bool is_param(const d2_block *b, int v)
{
    for (int i = 0; i < b->n_params; i++)
        if (b->params[i] == v)
            return true;
    return false;
}

static d2_obj *out_template(d2_interp *I, d2_obj *v, int depth);

static d2_obj *template_item(d2_interp *I, d2_obj *v, void *ctx, int depth)
{
    D2_UNUSED(ctx);
    return out_template(I, v, depth);
}

/* The output template of v: tensors become yields of block 0 (named
 * output_<k>), Python values stay as they are. */
static d2_obj *out_template(d2_interp *I, d2_obj *v, int depth)
{
    d2_builder *B = D2_MODE(I)->builder;
    d2_program *p = B->prog;
    if (is_tensor(v)) {
        int var = d2_pd_lift(I, B, v);
        if (var < 0)
            return NULL;
        d2_block *b0 = &p->blocks[0];
        if (p->vars[var].persistable || is_param(b0, var) || is_yielded(b0, var) ||
            p->vars[var].block != 0 || p->vars[var].type.kind == D2_VALUE_ARRAY) {
            if (p->vars[var].type.kind == D2_VALUE_ARRAY)
                return d2_raise(I, "TypeError",
                                "a to_static function cannot return a tensor array; stack or "
                                "concatenate it (paddle.stack / paddle.concat)");
            d2_obj *c = op_1(I, D2_OP_assign, v, NULL);
            if (!c)
                return NULL;
            var = d2_pd_lift(I, B, c);
            d2_decref(c);
            if (var < 0)
                return NULL;
        }
        int k = b0->n_yields;
        char nm[64];
        snprintf(nm, sizeof nm, "output_%d", k);
        d2_err err = {0};
        if (d2_program_rename_var(p, var, nm, &err) < 0) {
            d2_raise_err(I, &err);
            return NULL;
        }
        if (d2_block_add_yield(p, 0, var, &err) < 0) {
            d2_raise_err(I, &err);
            return NULL;
        }
        return d2_jit_new_slot(I, k);
    }
    if (is_array(I, v))
        return d2_raise(I, "TypeError",
                        "a to_static function cannot return a list grown in a tensor loop; stack "
                        "or concatenate it (paddle.stack / paddle.concat)");
    if (is_undef(I, v))
        return d2_jit_raise_undef(I, v);
    if (depth > 32)
        return d2_incref(v);
    return d2_jit_map_items(I, v, template_item, NULL, depth);
}

/* ---- compile and run ---- */

/* Parameter names of the original function, for naming feeds. */
static const char *param_name(d2_obj *fobj, size_t i, char *buf, size_t n)
{
    d2_function *f = D2_AS(d2_function, fobj);
    const d2_ast_arguments *a = f->args;
    size_t np = a ? a->posonlyargs.n + a->args.n : 0;
    if (i < np) {
        const d2_ast_arg *arg = i < a->posonlyargs.n ? a->posonlyargs.items[i]
                                                      : a->args.items[i - a->posonlyargs.n];
        return arg->arg;
    }
    snprintf(buf, n, "input_%zu", i);
    return buf;
}

/* Whether args[0] is the receiver (a method): bound by to_static(layer), or
 * a first parameter named self. */
static size_t first_data_arg(sfn *s)
{
    if (s->bound)
        return 1;
    d2_function *f = D2_AS(d2_function, s->fn);
    const d2_ast_arguments *a = f->args;
    if (!a)
        return 0;
    const d2_ast_arg *first = a->posonlyargs.n ? a->posonlyargs.items[0]
                              : a->args.n      ? a->args.items[0]
                                               : NULL;
    return first && strcmp(first->arg, "self") == 0 ? 1 : 0;
}

/* Signature key and feeds of a call. spec: the InputSpecs for the data
 * arguments (NULL: none). */
static int signature(d2_interp *I, sfn *s, d2_obj **args, size_t nargs, d2_dict *kw, feeds *fd,
                     d2_buf *key, d2_obj *pins)
{
    walk w = {I, fd, key, pins};
    size_t first = first_data_arg(s);
    size_t ns = 0;
    d2_obj **specs = s->spec ? d2_jit_seq_items(s->spec, &ns) : NULL;
    for (size_t i = 0; i < nargs; i++) {
        char buf[64];
        const char *name = param_name(s->fn, i, buf, sizeof buf);
        d2_obj *sp = i >= first && i - first < ns ? specs[i - first] : NULL;
        if (walk_value(&w, args[i], sp, name, 0) < 0)
            return -1;
    }
    for (size_t i = 0; kw && i < kw->n; i++) {
        d2_dict_entry *e = &kw->entries[i];
        if (!e->key)
            continue;
        d2_buf_printf(key, "%s=", cstr(e->key) ? cstr(e->key) : "?");
        if (walk_value(&w, e->value, NULL, cstr(e->key) ? cstr(e->key) : "kw", 0) < 0)
            return -1;
    }
    if (key->oom) {
        nomem(I);
        return -1;
    }
    return 0;
}

/* A tensor condition the transforms left to Python (the `if` of a
 * comprehension, a condition inside a lambda) fails while building, and so
 * does recursion whose depth a tensor decides (both branches of the
 * converted `if` are built): with the tracer, s is then traced instead. True
 * when it will be (the exception is cleared and the warning given where it
 * was raised). */
static bool late_fallback(d2_interp *I, sfn *s)
{
    if (!d2_trace_symbolic || I->opt.no_fallback || !I->exc)
        return false;
    char *why = NULL;
    if (d2_exc_matches(I, d2_exc_class(I, "RecursionError"))) {
        why = d2_strdup("recursion whose depth depends on a tensor cannot be converted");
    } else if (d2_exc_matches(I, d2_exc_class(I, "TypeError"))) {
        d2_obj *m = d2_str_of(I, I->exc);
        if (m && m->kind == D2_OBJ_STR &&
            strstr(D2_AS(d2_str, m)->s, "truth value of a symbolic tensor"))
            why = d2_strdup("the truth value of a tensor is needed where the transforms cannot "
                            "convert it");
        d2_decref(m);
    }
    if (!why)
        return false;
    d2_span sp = I->exc_span;
    const d2_module *mod = I->exc_module;
    d2_exc_clear(I);
    s->fallback = true;
    s->why_span = sp;
    d2_free(s->why);
    s->why = why;
    if (!I->opt.quiet_warnings)
        d2_warn(I, sp, mod,
                "%s; %s() is traced instead and its data-dependent branches are frozen", why,
                D2_AS(d2_function, s->fn)->name);
    return true;
}

/* Builds the Program of s for the call, prepared unless prepare is false. */
static entry *compile(d2_interp *I, sfn *s, d2_obj **args, size_t nargs, d2_dict *kw, feeds *fd,
                      bool prepare)
{
    if (sfn_convert(I, s) < 0)
        return NULL;
    bool traced = s->fallback && d2_trace_symbolic && !I->opt.no_fallback;
    if ((s->fallback || !s->conv) && !traced) {
        fallback_error(I, s);
        return NULL;
    }
    d2_err err = {0};
    entry *e = d2_calloc(1, sizeof *e);
    d2_program *p = e ? d2_program_new(&err) : NULL;
    if (!p) {
        d2_free(e);
        if (err.code)
            d2_raise_err(I, &err);
        else
            nomem(I);
        return NULL;
    }
    e->prog = p;
    int *vars = d2_calloc((size_t)fd->n + 1, sizeof *vars);
    d2_obj **sym = d2_calloc(nargs + 1, sizeof *sym);
    d2_obj *kws = NULL, *result = NULL;
    d2_builder B = {p, 0, ++I->next_gen, D2_MODE(I)->builder, NULL, NULL};
    bool ok = false, retry = false;
    if (!vars || !sym) {
        nomem(I);
        goto done;
    }
    for (int k = 0; k < fd->n; k++) {
        char nm[300];
        d2_jit_unique_name(p, fd->name[k], nm, sizeof nm);
        vars[k] = d2_program_add_var(p, 0, nm, &fd->type[k], &err);
        if (vars[k] < 0 || d2_block_add_param(p, 0, vars[k], &err) < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
    }
    D2_MODE(I)->builder = &B;
    bool run_prints = JS(I)->run_prints;
    JS(I)->run_prints = prepare;
    int k = 0;
    for (size_t i = 0; i < nargs; i++) {
        sym[i] = symbolic_args(I, args[i], vars, &k, 0);
        if (!sym[i])
            goto built;
    }
    if (kw) {
        kws = symbolic_args(I, (d2_obj *)kw, vars, &k, 0);
        if (!kws)
            goto built;
    }
    if (traced) /* unsupported syntax: trace the original on example inputs */
        result = d2_trace_symbolic(I, &B, s->fn, sym, nargs, kws ? D2_AS(d2_dict, kws) : NULL,
                                   vars, fd->t, fd->n);
    else
        result = d2_call(I, s->conv, sym, nargs, kws ? D2_AS(d2_dict, kws) : NULL);
    if (result) {
        e->tmpl = out_template(I, result, 0);
        ok = e->tmpl != NULL;
    } else if (!traced) {
        retry = late_fallback(I, s);
    }
built:
    D2_MODE(I)->builder = B.outer;
    JS(I)->run_prints = run_prints;
    /* symbolic tensors of the finished build that Python code kept (say in a
     * Layer attribute) must not pass for values of a later build: they are
     * detached from the builder, whose memory is reused */
    d2_pd_retire_builder(&B);
    e->lifted = (d2_obj *)B.lifted;
    B.lifted = NULL;
    if (!ok)
        goto done;
    ok = false;
    e->n_feeds = fd->n;
    e->n_out = p->blocks[0].n_yields;
    if (d2_program_verify(p, &err) < 0) {
        d2_raise(I, "ValueError", "the static Program of %s() is invalid: %s",
                 D2_AS(d2_function, s->fn)->name, err.msg);
        goto done;
    }
    if (prepare) {
        e->pp = d2_exec_prepare(p, D2_MODE(I)->backend, &err);
        if (!e->pp) {
            d2_raise_err(I, &err);
            goto done;
        }
    }
    ok = true;
done:
    if (sym)
        decref_all(sym, nargs);
    d2_free(sym);
    d2_free(vars);
    d2_decref(kws);
    d2_decref(result);
    if (!ok) {
        entry_free(e);
        return retry ? compile(I, s, args, nargs, kw, fd, prepare) : NULL;
    }
    return e;
}

int d2_jit_refresh_lifted(d2_interp *I, d2_obj *lifted, d2_program *prog, bool *changed,
                          int *bad)
{
    if (!lifted || lifted->kind != D2_OBJ_DICT)
        return 0;
    d2_dict *d = D2_AS(d2_dict, lifted);
    for (size_t i = 0; i < d->n; i++) {
        d2_dict_entry *de = &d->entries[i];
        if (!de->key || de->value->kind != D2_OBJ_TUPLE || D2_AS(d2_tuple, de->value)->n != 2)
            continue;
        d2_obj *o = D2_AS(d2_tuple, de->value)->items[0];
        int var = (int)D2_AS(d2_int, D2_AS(d2_tuple, de->value)->items[1])->v;
        if (!is_tensor(o) || !TOBJ(o)->t || var < 0 || var >= prog->n_vars)
            continue;
        d2_tensor *t = TOBJ(o)->t;
        d2_var *pv = &prog->vars[var];
        if (t == pv->data || !t->storage || t->storage->backend != d2_cpu_backend())
            continue;
        d2_shape sh;
        d2_tensor_get_shape(t, &sh);
        if (t->dtype != pv->type.dtype || !d2_shape_equal(&sh, &pv->type.shape)) {
            if (bad)
                *bad = var;
            return 1;
        }
        d2_err err = {0};
        d2_tensor *c = d2_tensor_contiguous(t, &err);
        if (!c) {
            d2_raise_err(I, &err);
            return -1;
        }
        d2_tensor_unref(pv->data);
        pv->data = c;
        *changed = true;
    }
    return 0;
}

/* Makes the Program see Layer parameters replaced since it was compiled
 * (set_state_dict, set_value); re-prepares when one changed. 1 when the
 * entry must be rebuilt (a parameter changed its shape), 0, or -1. */
static int refresh_params(d2_interp *I, entry *e)
{
    bool changed = false;
    int rc = d2_jit_refresh_lifted(I, e->lifted, e->prog, &changed, NULL);
    if (rc != 0)
        return rc;
    if (changed && e->pp) {
        d2_exec_free(e->pp);
        d2_err err = {0};
        e->pp = d2_exec_prepare(e->prog, D2_MODE(I)->backend, &err);
        if (!e->pp) {
            d2_raise_err(I, &err);
            return -1;
        }
    }
    return 0;
}

/* Runs entry e of s on feeds fd; with gradients on and a feed or lifted
 * parameter that wants one, the run is one tape node (jit_train.c). */
static d2_obj *run_entry(d2_interp *I, sfn *s, entry *e, feeds *fd)
{
    d2_tensor **outs = d2_calloc((size_t)e->n_out + 1, sizeof *outs);
    d2_obj **vals = d2_calloc((size_t)e->n_out + 1, sizeof *vals);
    d2_obj *r = NULL;
    if (!outs || !vals) {
        nomem(I);
        goto done;
    }
    if (d2_jit_bind_lifted(I, e->lifted, e->prog, e->pp) < 0)
        goto done;
    d2_err err = {0};
    /* print ops write where print() does */
    FILE *saved = d2_print_stream_set(I->opt.out);
    uint64_t rng = d2_jit_rng_offset(I, e->prog); /* a new dropout mask per run */
    int rc = d2_jit_exec_run_rng(I, e->pp, rng, fd->t, fd->n, outs, e->n_out, &err);
    d2_print_stream_set(saved);
    if (rc < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    d2_jit_onnx_check_dump(e->prog, fd->t, fd->n, outs, e->n_out);
    for (int k = 0; k < e->n_out; k++) {
        vals[k] = d2_tensor_wrap(I, outs[k]);
        if (!vals[k])
            goto done;
    }
    if (d2_jit_tape_run(I, D2_AS(d2_function, s->fn)->name, e->prog, e->lifted, &e->grads,
                        fd->obj, fd->t, fd->n, vals, e->n_out, rng) < 0)
        goto done;
    r = d2_jit_fill_slots(I, e->tmpl, vals, 0);
done:
    for (int k = 0; outs && k < e->n_out; k++)
        d2_tensor_unref(outs[k]);
    if (vals)
        decref_all(vals, (size_t)e->n_out);
    d2_free(outs);
    d2_free(vals);
    return r;
}

/* InputSpecs describing feeds fd (what jit.save uses when given none). */
static d2_obj *specs_of(d2_interp *I, const feeds *fd)
{
    d2_obj *l = d2_list_new(I, 0);
    for (int k = 0; l && k < fd->n; k++) {
        d2_obj *shape = d2_jit_tuple_n(I, (size_t)fd->type[k].shape.ndim);
        for (int d = 0; shape && d < fd->type[k].shape.ndim; d++) {
            D2_AS(d2_tuple, shape)->items[d] = d2_int_new(I, fd->type[k].shape.dims[d]);
            if (!D2_AS(d2_tuple, shape)->items[d])
                d2_setref(&shape, NULL);
        }
        d2_obj *dt = d2_pd_dtype_obj(I, fd->type[k].dtype, false);
        d2_obj *nm = d2_str_from(I, fd->name[k]);
        d2_obj *sp = shape && dt && nm ? d2_instance_new(I, JS(I)->spec_cls) : NULL;
        int rc = sp ? iset(I, sp, "shape", shape) : -1;
        if (rc == 0)
            rc = iset(I, sp, "dtype", dt);
        if (rc == 0)
            rc = iset(I, sp, "name", nm);
        if (rc == 0)
            rc = d2_list_append(I, l, sp);
        d2_decref(shape);
        d2_decref(nm);
        d2_decref(sp);
        if (rc < 0)
            d2_setref(&l, NULL);
    }
    return l;
}

/* The entry of s for signature key, compiled (and recorded as the last
 * signature) when absent; a failed marker is returned as found. */
static entry *get_entry(d2_interp *I, sfn *s, d2_obj **args, size_t nargs, d2_dict *kw,
                        feeds *fd, const char *key, d2_obj *pins)
{
    entry *e = s->entries, *prev = NULL;
    while (e && strcmp(e->key, key) != 0) {
        prev = e;
        e = e->next;
    }
    if (e && !e->failed) {
        int rr = refresh_params(I, e);
        if (rr < 0)
            return NULL;
        if (rr > 0) {
            if (prev)
                prev->next = e->next;
            else
                s->entries = e->next;
            entry_free(e);
            e = NULL;
        }
    }
    if (e)
        return e;
    e = compile(I, s, args, nargs, kw, fd, true);
    if (!e)
        return NULL;
    e->key = d2_strdup(key);
    e->pins = d2_incref(pins);
    e->next = s->entries;
    s->entries = e;
    d2_setref(&s->last_specs, specs_of(I, fd));
    if (!e->key || !s->last_specs) {
        if (!d2_exc_pending(I))
            nomem(I);
        return NULL;
    }
    d2_err cerr = {0};
    d2_program_free(JS(I)->last_prog);
    JS(I)->last_prog = d2_program_clone(e->prog, &cerr);
    if (!JS(I)->last_prog) {
        d2_raise_err(I, &cerr);
        return NULL;
    }
    return e;
}

/* Whether an InputSpec left a dim of a concrete input dynamic. */
static bool feeds_relaxed(const feeds *fd)
{
    for (int k = 0; k < fd->n; k++) {
        if (!fd->t[k])
            continue;
        d2_shape sh;
        d2_tensor_get_shape(fd->t[k], &sh);
        if (!d2_shape_equal(&sh, &fd->type[k].shape))
            return true;
    }
    return false;
}

/* Whether the pending exception of a failed dynamic-shape build may go away
 * with the call's shapes (not a resource or interpreter limit). */
static bool shape_may_fix(d2_interp *I)
{
    static const char *const never[] = {"MemoryError", "RecursionError", "TimeoutError",
                                        "KeyboardInterrupt", "SystemExit"};
    if (!I->exc)
        return false;
    for (size_t i = 0; i < D2_COUNTOF(never); i++)
        if (d2_exc_matches(I, d2_exc_class(I, never[i])))
            return false;
    return true;
}

/* Paddle 2.6's default to_static builds a Program per call shape. When the
 * build on the InputSpec's dynamic dims fails, the call runs a Program
 * specialised on its own shapes instead (cached under them: a later call
 * with the same shapes reuses it, other shapes build another), with a
 * warning saying why. The failed signature is remembered by a marker entry,
 * so it is built once; saving the dynamic signature still reports the
 * error. The original exception stays pending when the specialised build
 * fails too. */
static entry *specialise(d2_interp *I, sfn *s, d2_obj **args, size_t nargs, d2_dict *kw,
                         const char *dyn_key, entry *marker)
{
    d2_obj *exc = NULL;
    d2_span span = {0};
    const d2_module *mod = NULL;
    if (!marker) { /* the dynamic build just failed: keep its exception */
        exc = I->exc;
        I->exc = NULL;
        span = I->exc_span;
        mod = I->exc_module;
    }
    feeds fd = {0};
    d2_buf key;
    d2_buf_init(&key);
    d2_buf_puts(&key, "shape:");
    d2_obj *pins = d2_list_new(I, 0);
    entry *e = NULL;
    d2_obj *saved_spec = s->spec;
    s->spec = NULL;
    int rc = pins ? signature(I, s, args, nargs, kw, &fd, &key, pins) : -1;
    s->spec = saved_spec;
    bool fresh = false;
    if (rc == 0) {
        e = s->entries;
        while (e && strcmp(e->key, key.data) != 0)
            e = e->next;
        fresh = !e;
        e = get_entry(I, s, args, nargs, kw, &fd, key.data, pins);
    }
    if (exc && !e) { /* not fixed by the shapes: the original error */
        d2_exc_clear(I);
        I->exc = exc;
        I->exc_span = span;
        I->exc_module = mod;
        exc = NULL;
    }
    char *why = NULL;
    if (e && exc) {
        d2_obj *m = d2_str_of(I, exc);
        const char *ms = m && m->kind == D2_OBJ_STR ? D2_AS(d2_str, m)->s : "";
        size_t n = strlen(exc->cls->name) + strlen(ms) + 3;
        why = d2_malloc(n);
        if (why)
            snprintf(why, n, *ms ? "%s: %s" : "%s", exc->cls->name, ms);
        d2_decref(m);
        entry *mk = why ? d2_calloc(1, sizeof *mk) : NULL;
        if (mk)
            mk->key = d2_strdup(dyn_key);
        if (!mk || !mk->key) {
            if (mk)
                entry_free(mk);
            d2_free(why);
            why = NULL;
            nomem(I);
            e = NULL;
        } else {
            mk->failed = why;
            mk->fail_span = span;
            mk->fail_module = mod;
            mk->next = s->entries;
            s->entries = mk;
            marker = mk;
        }
    }
    if (e && fresh && marker && !I->opt.quiet_warnings) {
        char shapes[400] = "";
        size_t off = 0;
        for (int k = 0; k < fd.n && off < sizeof shapes; k++) {
            char ts[160];
            d2_type_str(&fd.type[k], ts, sizeof ts);
            off += (size_t)snprintf(shapes + off, sizeof shapes - off, "%s%s: %s",
                                    k ? ", " : "", fd.name[k], ts);
        }
        d2_warn(I, marker->fail_span, marker->fail_module,
                "%s() cannot be built for its InputSpec's dynamic dims (%s); it is specialised "
                "on the shapes of this call (%s), as Paddle's default to_static does",
                D2_AS(d2_function, s->fn)->name, marker->failed, shapes);
    }
    d2_decref(exc);
    feeds_free(&fd);
    d2_buf_free(&key);
    d2_decref(pins);
    return e;
}

/* A call of a to_static function outside a Program build. */
static d2_obj *run_static(d2_interp *I, sfn *s, d2_obj **args, size_t nargs, d2_dict *kw)
{
    feeds fd = {0};
    d2_buf key;
    d2_buf_init(&key);
    d2_obj *pins = d2_list_new(I, 0), *r = NULL;
    if (!pins || signature(I, s, args, nargs, kw, &fd, &key, pins) < 0)
        goto done;
    const char *k = key.data ? key.data : "";
    /* a traced function freezes what it reads of its inputs' shapes: with
     * InputSpec dims this call does not fill, trace it on its own shapes */
    entry *e = s->fallback && s->spec && feeds_relaxed(&fd)
                   ? specialise(I, s, args, nargs, kw, k, NULL)
                   : get_entry(I, s, args, nargs, kw, &fd, k, pins);
    if (e && e->failed)
        e = specialise(I, s, args, nargs, kw, k, e);
    else if (!e && s->spec && feeds_relaxed(&fd) && shape_may_fix(I))
        e = specialise(I, s, args, nargs, kw, k, NULL);
    /* a specialised Program takes the same tensors */
    if (e)
        r = run_entry(I, s, e, &fd);
done:
    feeds_free(&fd);
    d2_buf_free(&key);
    d2_decref(pins);
    return r;
}

/* The builtin each to_static wrapper calls with (args, kwargs). */
/* f.rollback(): undoes to_static. For a Layer converted with
 * paddle.jit.to_static(layer), its forward becomes the original method
 * again (as Paddle does), which is returned; otherwise the original
 * function is returned. (Paddle also rebinds a forward decorated in the
 * class body when reached through an instance; here that case returns the
 * original function and the Layer stays converted.) */
D2_FN(SF_rollback)
{
    sfn *s = sfn_of(I, self);
    if (!s)
        return d2_raise(I, "TypeError", "internal: rollback of a non-to_static function");
    if (!s->bound || !d2_jit_is_layer(I, s->bound))
        return d2_incref(s->fn);
    d2_obj *m = d2_bound_method_new(I, s->fn, s->bound);
    if (!m || iset(I, s->bound, "forward", m) < 0)
        d2_setref(&m, NULL);
    return m;
}

/* f.rollback, bound to the state */
static const d2_def ROLLBACK_DEF = D2_DEF("rollback", "", SF_rollback, "rollback");

/* Paddle's FunctionSpec takes only the named positional parameters (self
 * left out): more positional arguments than those, *args included, raise
 * ValueError (NotImplementedError when the first is a class). A method
 * decorated in its class body gets its instance first here; Paddle binds it
 * before counting. */
static int check_arg_count(d2_interp *I, sfn *s, d2_obj **items, size_t n)
{
    if (s->fn->kind != D2_OBJ_FUNCTION)
        return 0;
    const d2_ast_arguments *a = D2_AS(d2_function, s->fn)->args;
    size_t np = a->posonlyargs.n + a->args.n, skip = 0;
    d2_buf names;
    d2_buf_init(&names);
    for (size_t i = 0; i < np; i++) {
        const d2_ast_seq *q = i < a->posonlyargs.n ? &a->posonlyargs : &a->args;
        const d2_ast_arg *g = q->items[i < a->posonlyargs.n ? i : i - a->posonlyargs.n];
        if (i == 0 && !strcmp(g->arg, "self")) {
            skip = 1;
            continue;
        }
        d2_buf_printf(&names, "%s'%s'", i > skip ? ", " : "", g->arg);
    }
    if (skip && !s->bound && n > 0) {
        items++;
        n--;
    }
    if (n <= np - skip) {
        d2_buf_free(&names);
        return 0;
    }
    d2_obj *tuple = d2_tuple_from_array(I, items, n);
    d2_obj *r = tuple ? d2_repr(I, tuple) : NULL;
    d2_decref(tuple);
    if (r)
        d2_raise(I, items[0]->kind == D2_OBJ_CLASS ? "NotImplementedError" : "ValueError",
                 "The decorated function `%s` requires %zu arguments: [%s], but received %zu "
                 "with %s.%s",
                 D2_AS(d2_function, s->fn)->name, np - skip, names.data ? names.data : "", n,
                 cstr(r),
                 items[0]->kind == D2_OBJ_CLASS
                     ? "\n\tMaybe the function has more than one decorator, we don't support "
                       "this for now."
                     : "");
    d2_decref(r);
    d2_buf_free(&names);
    return -1;
}

static d2_obj *SF_call(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(kw);
    sfn *s = sfn_of(I, self);
    if (!s || nargs != 2 || args[0]->kind != D2_OBJ_TUPLE || args[1]->kind != D2_OBJ_DICT)
        return d2_raise(I, "TypeError", "internal: bad call of a to_static function");
    size_t n;
    d2_obj **items = d2_jit_seq_items(args[0], &n);
    d2_dict *kwd = D2_AS(d2_dict, args[1])->live ? D2_AS(d2_dict, args[1]) : NULL;
    if (JS(I)->enabled && !D2_MODE(I)->tracer && check_arg_count(I, s, items, n) < 0)
        return NULL;
    size_t off = s->bound ? 1 : 0;
    d2_obj **all = d2_calloc(n + 2, sizeof *all);
    if (!all)
        return nomem(I);
    if (s->bound)
        all[0] = s->bound;
    for (size_t i = 0; i < n; i++)
        all[i + off] = items[i];
    n += off;
    d2_obj *r = NULL;
    if (!JS(I)->enabled || D2_MODE(I)->tracer) {
        r = d2_call(I, s->fn, all, n, kwd);
    } else if (sfn_convert(I, s) < 0) {
        r = NULL;
    } else if (s->fallback || !s->conv) {
        if (D2_MODE(I)->builder)
            r = d2_call(I, s->fn, all, n, kwd);
        else if (s->fallback && d2_trace_symbolic && !I->opt.no_fallback)
            r = run_static(I, s, all, n, kwd); /* traced once per signature */
        else if (d2_trace_function && !I->opt.no_fallback)
            r = d2_trace_function(I, s->fn, all, n, kwd);
        else
            r = fallback_error(I, s);
    } else if (D2_MODE(I)->builder) {
        r = d2_call(I, s->conv, all, n, kwd);
    } else {
        r = run_static(I, s, all, n, kwd);
    }
    d2_free(all);
    return r;
}

/* ---- to_static wrappers ---- */

/* A new StaticFunction state for fn (spec and bound may be NULL). */
static d2_obj *new_state(d2_interp *I, d2_obj *fn, d2_obj *spec, d2_obj *bound)
{
    sfn *s = d2_calloc(1, sizeof *s);
    if (!s)
        return nomem(I);
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_OPAQUE, JS(I)->sfn_cls, sizeof(d2_opaque));
    if (!o) {
        d2_free(s);
        return NULL;
    }
    s->fn = d2_incref(fn);
    s->spec = spec && spec->kind != D2_OBJ_NONE ? d2_incref(spec) : NULL;
    s->bound = d2_incref(bound);
    D2_AS(d2_opaque, o)->payload = s;
    D2_AS(d2_opaque, o)->fin = sfn_fin;
    return o;
}

/* The state behind a to_static wrapper function, or NULL. */
static sfn *wrapper_state(d2_interp *I, d2_obj *f)
{
    return sfn_of(I, fattr(I, f, "_dy2st_static"));
}

/* def __jst_make__(_call):
 *     def to_static_function(*args, **kwargs):
 *         return _call(args, kwargs)
 *     return to_static_function
 * built directly (every node at span sp), since parsing it per to_static
 * costs more than the rest of the decoration. */
static d2_ast_stmt *wrapper_def(d2_arena *a, d2_span sp)
{
    d2_ast_stmt *outer = d2_ast_stmt_new(a, D2_AST_FUNCTION_DEF, sp);
    d2_ast_stmt *inner = d2_ast_stmt_new(a, D2_AST_FUNCTION_DEF, sp);
    d2_ast_arguments *oargs = d2_ast_node_new(a, D2_AST_ARGUMENTS, sp);
    d2_ast_arguments *iargs = d2_ast_node_new(a, D2_AST_ARGUMENTS, sp);
    d2_ast_arg *call = d2_ast_arg_new(a, "_call", NULL, sp);
    if (!outer || !inner || !oargs || !iargs || !call ||
        !(iargs->vararg = d2_ast_arg_new(a, "args", NULL, sp)) ||
        !(iargs->kwarg = d2_ast_arg_new(a, "kwargs", NULL, sp)) ||
        d2_ast_seq_push(a, &oargs->args, call) < 0)
        return NULL;
    d2_ast_seq cargs = {0}, nokw = {0};
    d2_ast_expr *fn = d2_ast_name(a, "_call", D2_CTX_LOAD, sp);
    d2_ast_expr *pa = d2_ast_name(a, "args", D2_CTX_LOAD, sp);
    d2_ast_expr *pk = d2_ast_name(a, "kwargs", D2_CTX_LOAD, sp);
    if (!fn || !pa || !pk || d2_ast_seq_push(a, &cargs, pa) < 0 ||
        d2_ast_seq_push(a, &cargs, pk) < 0)
        return NULL;
    d2_ast_expr *ce = d2_ast_call(a, fn, cargs, nokw, sp);
    d2_ast_stmt *iret = ce ? d2_ast_return(a, ce, sp) : NULL;
    d2_ast_expr *rv = d2_ast_name(a, "to_static_function", D2_CTX_LOAD, sp);
    d2_ast_stmt *oret = rv ? d2_ast_return(a, rv, sp) : NULL;
    if (!iret || !oret || d2_ast_seq_push(a, &inner->function_def.body, iret) < 0 ||
        d2_ast_seq_push(a, &outer->function_def.body, inner) < 0 ||
        d2_ast_seq_push(a, &outer->function_def.body, oret) < 0)
        return NULL;
    inner->function_def.name = "to_static_function";
    inner->function_def.args = iargs;
    outer->function_def.name = "__jst_make__";
    outer->function_def.args = oargs;
    return outer;
}

/* Wraps user function fn as a to_static function (a Python function, so
 * it binds as a method; attributes code and __wrapped__). */
static d2_obj *make_static_impl(d2_interp *I, d2_obj *fn, d2_obj *spec, d2_obj *bound);

/* make_static_impl, timed for _jst._stats. */
static d2_obj *make_static(d2_interp *I, d2_obj *fn, d2_obj *spec, d2_obj *bound)
{
    double t0 = d2_monotonic_s();
    d2_obj *w = make_static_impl(I, fn, spec, bound);
    JS(I)->decorate_s += d2_monotonic_s() - t0;
    JS(I)->decorated++;
    return w;
}

static d2_obj *make_static_impl(d2_interp *I, d2_obj *fn, d2_obj *spec, d2_obj *bound)
{
    sfn *prev = wrapper_state(I, fn);
    if (prev)
        fn = prev->fn;
    if (fn->kind != D2_OBJ_FUNCTION)
        return d2_raise(I, "TypeError", "paddle.jit.to_static: expected a function or a Layer, "
                        "got %s", d2_type_name(fn));
    d2_function *of = D2_AS(d2_function, fn);
    if (!of->module)
        return d2_raise(I, "TypeError", "paddle.jit.to_static: %s() has no module", of->name);
    /* a wrapper per function, run in its module with the def's span, so that
     * tracebacks show the wrapper's frame at the user's def */
    d2_ast_stmt *wdef = wrapper_def(I->arena, of->def ? of->def->span : (d2_span){0});
    if (!wdef)
        return nomem(I);
    d2_obj *make = exec_def(I, wdef, of->module, "__jst_make__");
    if (!make)
        return NULL;
    d2_obj *state = new_state(I, fn, spec, bound);
    if (state && prev && prev->memo.have && !xf_memo_copy(&sfn_of(I, state)->memo, &prev->memo))
        d2_setref(&state, nomem(I));
    d2_obj *call = state ? d2_builtin_new(I, "to_static_call", SF_call, state, NULL) : NULL;
    d2_obj *w = call ? d2_call(I, make, &call, 1, NULL) : NULL;
    d2_decref(make);
    d2_decref(call);
    conv_result r = {0};
    int rc = w && w->kind == D2_OBJ_FUNCTION ? 0 : -1;
    if (rc == 0) {
        d2_function *wf = D2_AS(d2_function, w);
        wf->name = of->name;
        wf->qualname = of->qualname;
        rc = convert(I, fn, true, &sfn_of(I, state)->memo, &r);
    }
    d2_obj *code = rc == 0 ? d2_str_from(I, r.code ? r.code : "") : NULL;
    d2_obj *rb = code ? d2_def_new(I, &ROLLBACK_DEF, state) : NULL;
    if (!rb || d2_jit_fattr_set(I, w, "_dy2st_static", state) < 0 ||
        d2_jit_fattr_set(I, w, "__wrapped__", fn) < 0 || d2_jit_fattr_set(I, w, "code", code) < 0 ||
        d2_jit_fattr_set(I, w, "rollback", rb) < 0)
        d2_setref(&w, NULL);
    d2_decref(rb);
    d2_decref(code);
    d2_decref(state);
    conv_result_free(&r);
    return w;
}

d2_obj *d2_jit_to_static(d2_interp *I, d2_obj *target, d2_obj *spec)
{
    if (target->kind == D2_OBJ_FUNCTION)
        return make_static(I, target, spec, NULL);
    if (target->kind == D2_OBJ_BOUND_METHOD) {
        d2_bound_method *m = D2_AS(d2_bound_method, target);
        return make_static(I, m->func, spec, m->self);
    }
    if (d2_jit_is_layer(I, target)) {
        d2_obj *fwd = d2_getattr(I, (d2_obj *)target->cls, "forward");
        if (!fwd)
            return NULL;
        d2_obj *w = fwd->kind == D2_OBJ_FUNCTION ? make_static(I, fwd, spec, target)
                                                  : d2_raise(I, "TypeError",
                                                             "paddle.jit.to_static: %s.forward "
                                                             "is not a Python function",
                                                             target->cls->name);
        d2_decref(fwd);
        if (!w)
            return NULL;
        int rc = iset(I, target, "forward", w);
        d2_decref(w);
        return rc < 0 ? NULL : d2_incref(target);
    }
    return d2_raise(I, "TypeError", "paddle.jit.to_static: expected a function or a Layer, got %s",
                    d2_type_name(target));
}

/* ======================================================================
 * Programs for saving: a Layer or function with InputSpecs
 * ====================================================================== */

/* The StaticFunction state for target (a Layer, a to_static wrapper, a
 * bound method or a plain function): a new reference to its state object. */
static d2_obj *state_for(d2_interp *I, d2_obj *target)
{
    if (target->kind == D2_OBJ_FUNCTION) {
        d2_obj *st = fattr(I, target, "_dy2st_static");
        return st ? d2_incref(st) : new_state(I, target, NULL, NULL);
    }
    if (target->kind == D2_OBJ_BOUND_METHOD) {
        d2_bound_method *m = D2_AS(d2_bound_method, target);
        if (m->func->kind != D2_OBJ_FUNCTION)
            return d2_raise(I, "TypeError", "cannot convert builtin method %s",
                            d2_type_name(m->func));
        sfn *w = wrapper_state(I, m->func);
        d2_obj *st = new_state(I, w ? w->fn : m->func, w ? w->spec : NULL, m->self);
        if (st && w) {
            sfn_of(I, st)->last_specs = d2_incref(w->last_specs);
            if (w->memo.have && !xf_memo_copy(&sfn_of(I, st)->memo, &w->memo))
                d2_setref(&st, nomem(I));
        }
        return st;
    }
    if (d2_jit_is_layer(I, target)) {
        d2_obj *fwd = d2_getattr(I, target, "forward");
        if (!fwd)
            return NULL;
        d2_obj *r;
        if (fwd->kind == D2_OBJ_FUNCTION && wrapper_state(I, fwd))
            r = d2_incref(fattr(I, fwd, "_dy2st_static"));
        else if (fwd->kind == D2_OBJ_BOUND_METHOD)
            r = state_for(I, fwd);
        else
            r = d2_raise(I, "TypeError", "%s.forward is not a Python function", target->cls->name);
        d2_decref(fwd);
        return r;
    }
    return d2_raise(I, "TypeError", "expected a Layer or a function to convert, got %s",
                    d2_type_name(target));
}

/* The Program of target for input specs (a list of InputSpec; NULL: the
 * to_static input_spec, else the last compiled signature). Caller frees. */
d2_program *d2_jit_program_for(d2_interp *I, d2_obj *target, d2_obj *specs)
{
    d2_obj *state = state_for(I, target);
    sfn *s = state ? sfn_of(I, state) : NULL;
    if (!s) {
        d2_decref(state);
        return NULL;
    }
    if (!specs || specs->kind == D2_OBJ_NONE)
        specs = s->spec ? s->spec : s->last_specs;
    if (!specs) {
        d2_decref(state);
        d2_raise(I, "ValueError",
                 "no input_spec: give the input shapes (input_spec=[InputSpec(...)], or --input "
                 "NAME:DTYPE[DIMS] on the command line)");
        return NULL;
    }
    size_t ns;
    d2_obj **sp = d2_jit_seq_items(specs, &ns);
    if (specs->kind != D2_OBJ_LIST && specs->kind != D2_OBJ_TUPLE) {
        d2_decref(state);
        d2_raise(I, "TypeError", "input_spec must be a list of InputSpec");
        return NULL;
    }
    size_t first = first_data_arg(s);
    d2_obj **args = d2_calloc(ns + 2, sizeof *args);
    d2_program *p = NULL;
    feeds fd = {0};
    d2_buf key;
    d2_buf_init(&key);
    d2_obj *pins = d2_list_new(I, 0);
    if (!args || !pins) {
        nomem(I);
        goto done;
    }
    if (first)
        args[0] = s->bound;
    if (first && !s->bound) {
        d2_raise(I, "TypeError", "%s() is a method: save the Layer, not the function",
                 D2_AS(d2_function, s->fn)->name);
        goto done;
    }
    for (size_t i = 0; i < ns; i++) {
        d2_obj *v = sp[i];
        if (is_tensor(v) || v->kind == D2_OBJ_NDARRAY) {
            /* an example tensor stands for its own spec */
        } else if (!is_spec(I, v) && v->kind != D2_OBJ_NONE && !is_pynum(v) &&
                   v->kind != D2_OBJ_STR) {
            d2_raise(I, "TypeError", "input_spec[%zu] is a %s, expected an InputSpec", i,
                     d2_type_name(v));
            goto done;
        }
        args[first + i] = v;
    }
    d2_obj *saved_spec = s->spec;
    s->spec = NULL;
    int rc = signature(I, s, args, first + ns, NULL, &fd, &key, pins);
    s->spec = saved_spec;
    if (rc < 0)
        goto done;
    entry *e = compile(I, s, args, first + ns, NULL, &fd, false);
    if (!e)
        goto done;
    p = e->prog;
    e->prog = NULL;
    entry_free(e);
    d2_err cerr = {0};
    d2_program_free(JS(I)->last_prog);
    JS(I)->last_prog = d2_program_clone(p, &cerr);
    if (!JS(I)->last_prog) {
        d2_raise_err(I, &cerr);
        d2_program_free(p);
        p = NULL;
    }
done:
    feeds_free(&fd);
    d2_buf_free(&key);
    d2_decref(pins);
    d2_free(args);
    d2_decref(state);
    return p;
}

/* ======================================================================
 * _jst._cache_size (for tests), registration
 * ====================================================================== */

/* _jst._cache_size(f): how many Programs the to_static function f (or a
 * bound method of it) has compiled; for tests. */
D2_FN(C_cache_size)
{
    d2_obj *f = a[0];
    if (f->kind == D2_OBJ_BOUND_METHOD)
        f = D2_AS(d2_bound_method, f)->func;
    sfn *s = f->kind == D2_OBJ_FUNCTION ? wrapper_state(I, f) : NULL;
    if (!s)
        return d2_raise(I, "TypeError", "_jst._cache_size: not a to_static function");
    int64_t n = 0;
    for (entry *e = s->entries; e; e = e->next)
        n += !e->failed;
    return d2_int_new(I, n);
}

int d2_jit_program_init(d2_interp *I, jit_state *s)
{
    static const d2_def jst_defs[] = {
        D2_DEF("_cache_size", "f", C_cache_size, "_jst._cache_size"),
    };
    return d2_module_add_defs(I, s->jst, jst_defs, D2_COUNTOF(jst_defs));
}
