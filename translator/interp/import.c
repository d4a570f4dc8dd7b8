/* import.c - modules: builtin modules, imports, running scripts. */
#include "interp/interp_priv.h"
#include "syntax/astcache.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ---- builtin modules ---- */

d2_module *d2_module_new_builtin(d2_interp *I, const char *name)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_MODULE, NULL, sizeof(d2_module));
    if (!o)
        return NULL;
    d2_module *m = D2_AS(d2_module, o);
    m->name = d2_arena_strdup(I->arena, name);
    d2_obj *d = d2_dict_new(I);
    d2_obj *nm = d2_str_from(I, name);
    if (!m->name || !d || !nm) {
        d2_decref(d);
        d2_decref(nm);
        d2_decref(o);
        return NULL;
    }
    m->dict = D2_AS(d2_dict, d);
    d2i_dict_track_layout(m->dict);
    int rc = d2_dict_set_str(I, m->dict, "__name__", nm);
    d2_decref(nm);
    if (rc == 0)
        rc = d2_dict_set_str(I, I->modules, name, o);
    const char *dot = strrchr(name, '.');
    if (rc == 0 && dot) {
        char parent[256];
        snprintf(parent, sizeof parent, "%.*s", (int)(dot - name), name);
        d2_obj *p = d2_dict_get_str(I, I->modules, parent);
        if (p && p->kind == D2_OBJ_MODULE &&
            !d2_dict_get_str(I, D2_AS(d2_module, p)->dict, dot + 1))
            rc = d2_dict_set_str(I, D2_AS(d2_module, p)->dict, dot + 1, o);
    }
    if (rc < 0) {
        d2_decref(o);
        return NULL;
    }
    return m;
}

int d2_module_add_fn(d2_interp *I, d2_module *m, const char *name, d2_builtin_fn fn,
                     const void *data)
{
    d2_obj *b = d2_builtin_new(I, name, fn, NULL, data);
    if (!b)
        return -1;
    int rc = d2_dict_set_str(I, m->dict, name, b);
    d2_decref(b);
    return rc;
}

/* ======================================================================
 * Modules, imports, running scripts
 * ==================================================================== */

static int keep_arena(d2_interp *I, d2_arena *a)
{
    struct d2_interp_state *st = I->st;
    if (st->narenas == st->caparenas) {
        size_t cap = st->caparenas ? st->caparenas * 2 : 8;
        d2_arena **p = d2_realloc(st->arenas, cap * sizeof *p);
        if (!p)
            return -1;
        st->arenas = p;
        st->caparenas = cap;
    }
    st->arenas[st->narenas++] = a;
    return 0;
}

/* Executes a parsed module body in module m's globals. 0 or -1 (exception pending). */
static int run_module(d2_interp *I, d2_module *m, const d2_ast_module *ast)
{
    char err[256];
    d2_span espan = ast->span;
    d2i_unit *u = d2i_analyze(I, ast, &ast->body, m, &espan, err, sizeof err);
    d2i_frame fr;
    memset(&fr, 0, sizeof fr);
    fr.pf = &fr.f;
    fr.f.module = m;
    fr.f.func_name = "<module>";
    fr.f.span = espan;
    fr.globals = fr.ns = m->dict;
    fr.module = m;
    if (!u) {
        d2i_frame_push(I, &fr);
        d2_raise(I, "SyntaxError", "%s", err);
        d2i_frame_pop(I, &fr);
        return -1;
    }
    fr.code = u->top;
    fr.unit = u;
    d2i_frame_push(I, &fr);
    int x = d2i_exec_body(I, &fr, &ast->body);
    d2i_frame_pop(I, &fr);
    d2_decref(fr.retval);
    return x == X_ERROR ? -1 : 0;
}

int d2_interp_exec_ast(d2_interp *I, const d2_ast_module *ast, d2_module *m)
{
    char base = 0;
    bool outer = I->st->stack_base == NULL;
    d2i_stack_begin(I, &base);
    int rc = run_module(I, m, ast);
    if (outer)
        I->st->stack_base = NULL;
    return rc;
}

/* A new module object for a source file (registered in sys.modules). */
static d2_module *module_new(d2_interp *I, const char *name, const char *path,
                             const d2_ast_module *ast)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_MODULE, NULL, sizeof(d2_module));
    if (!o)
        return NULL;
    d2_module *m = D2_AS(d2_module, o);
    m->name = d2_arena_strdup(I->arena, name);
    m->path = path ? d2_arena_strdup(I->arena, path) : NULL;
    m->ast = ast;
    d2_obj *d = d2_dict_new(I);
    m->dict = d ? D2_AS(d2_dict, d) : NULL;
    if (m->dict)
        d2i_dict_track_layout(m->dict);
    d2_obj *nm = d2_str_from(I, name), *fp = path ? d2_str_from(I, path) : d2_none(I);
    int rc = (m->name && d && nm && fp) ? 0 : -1;
    if (rc == 0)
        rc = d2_dict_set_str(I, m->dict, "__name__", nm);
    if (rc == 0)
        rc = d2_dict_set_str(I, m->dict, "__file__", fp);
    if (rc == 0)
        rc = d2_dict_set_str(I, m->dict, "__builtins__", (d2_obj *)I->st->builtins_mod);
    if (rc == 0)
        rc = d2_dict_set_str(I, I->modules, name, o);
    d2_decref(nm);
    d2_decref(fp);
    d2_decref(o);
    if (rc < 0) {
        if (!I->exc)
            d2_raise(I, "MemoryError", "out of memory");
        return NULL;
    }
    return m;
}

/* Parses src; on a syntax error the parser's diagnostic is in I->diag and
 * NULL is returned with a SyntaxError pending. */
static const d2_ast_module *parse_source(d2_interp *I, const char *filename, const char *src,
                                         size_t len)
{
    d2_arena *a = d2_arena_new();
    if (!a || keep_arena(I, a) < 0) {
        d2_arena_delete(a);
        d2_raise(I, "MemoryError", "out of memory");
        return NULL;
    }
    size_t before = I->diag.nerrors;
    char *cache = I->opt.ast_cache ? d2_ast_cache_path(filename, I->opt.cache_dir) : NULL;
    const d2_ast_module *ast =
        d2_ast_parse_cached(a, filename, src, len, &I->diag, cache, NULL);
    d2_free(cache);
    if (!ast) {
        if (I->diag.nerrors > before && I->diag.last)
            d2_raise(I, "SyntaxError", "%s", I->diag.last->message);
        else
            d2_raise(I, "MemoryError", "out of memory while parsing %s", filename);
        if (I->exc && I->exc->kind == D2_OBJ_INSTANCE)
            d2_dict_set_str(I, D2_AS(d2_instance, I->exc)->dict, "__reported__", I->true_);
        return NULL;
    }
    return ast;
}

/* The tree of library module name frozen at build time (tools/freeze), when
 * this program carries the frozen table and the entry is valid for exactly
 * this source text (the cache format's checks: format version, node layout,
 * dy2st version, the source's length and hash, the payload's hash and
 * structure); NULL otherwise, and the source is parsed instead. */
static const d2_ast_module *thaw_source(d2_interp *I, const char *name, const char *path,
                                        const char *src, size_t len)
{
    if (!&d2_frozen_nmodules || !d2_frozen_modules)
        return NULL;
    for (size_t i = 0; i < d2_frozen_nmodules; i++) {
        const d2_frozen_module *f = &d2_frozen_modules[i];
        if (strcmp(f->name, name) != 0)
            continue;
        d2_arena *a = d2_arena_new();
        const d2_ast_module *ast = a ? d2_ast_cache_decode(a, path, src, len, f->data, f->len) : NULL;
        if (!ast || keep_arena(I, a) < 0) {
            d2_arena_delete(a);
            return NULL;
        }
        I->st->nthawed++;
        return ast;
    }
    return NULL;
}

size_t d2_interp_thawed(const d2_interp *I)
{
    return I->st->nthawed;
}

/* Parses (or, for a frozen library module, thaws) and runs src as module
 * name (registered before it runs). */
static d2_obj *load_module_source(d2_interp *I, const char *name, const char *path, const char *src,
                                  size_t len, bool library)
{
    const d2_ast_module *ast = library ? thaw_source(I, name, path, src, len) : NULL;
    if (!ast)
        ast = parse_source(I, path, src, len);
    if (!ast)
        return NULL;
    d2_module *m = module_new(I, name, path, ast);
    if (!m)
        return NULL;
    d2_obj *ref = d2_incref((d2_obj *)m);
    if (run_module(I, m, ast) < 0) {
        d2_obj *pending = I->exc;
        I->exc = NULL;
        d2_obj *k = d2_str_from(I, name);
        if (k)
            d2_decref(d2i_dict_pop(I, I->modules, k));
        d2_decref(k);
        d2_exc_clear(I);
        I->exc = pending;
        d2_decref(ref);
        return NULL;
    }
    return ref;
}

/* The largest script or module source read, in bytes. */
#define MAX_SOURCE_BYTES ((size_t)64 << 20)

/* Reads a script or module: only a regular file, of at most MAX_SOURCE_BYTES
 * (a device or a pipe could be endless). NULL with why in err. */
static char *read_source(const char *path, size_t *len, d2_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        d2_err_set(err, D2_ERR_IO, "cannot read file: %s", strerror(errno));
        return NULL;
    }
    if (!S_ISREG(sb.st_mode)) {
        d2_err_set(err, D2_ERR_IO, "%s", S_ISDIR(sb.st_mode) ? "is a directory" : "not a regular file");
        return NULL;
    }
    if ((uint64_t)sb.st_size > MAX_SOURCE_BYTES) {
        d2_err_set(err, D2_ERR_LIMIT, "the file is %lld bytes, above the limit of %zu MiB",
                   (long long)sb.st_size, MAX_SOURCE_BYTES >> 20);
        return NULL;
    }
    char *src = d2_read_file(path, len, NULL);
    if (!src) {
        d2_err_set(err, errno == ENOMEM ? D2_ERR_NOMEM : D2_ERR_IO, "cannot read file: %s",
                   strerror(errno));
        return NULL;
    }
    if (*len > MAX_SOURCE_BYTES) { /* it grew while read */
        d2_free(src);
        d2_err_set(err, D2_ERR_LIMIT, "the file is above the limit of %zu MiB",
                   MAX_SOURCE_BYTES >> 20);
        return NULL;
    }
    return src;
}

static d2_obj *load_file_module(d2_interp *I, const char *name, const char *path)
{
    size_t len;
    d2_err err = {0};
    char *src = read_source(path, &len, &err);
    if (!src)
        return d2_raise(I, "ImportError", "%s: %s", path, err.msg);
    d2_obj *m = load_module_source(I, name, path, src, len, false);
    d2_free(src);
    return m;
}

static int add_source(d2_interp *I, const char *name, const char *src, bool absent)
{
    struct d2_interp_state *st = I->st;
    if (st->nsources == st->capsources) {
        size_t cap = st->capsources ? st->capsources * 2 : 8;
        struct d2i_source *p = d2_realloc(st->sources, cap * sizeof *p);
        if (!p) {
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        st->sources = p;
        st->capsources = cap;
    }
    st->sources[st->nsources].name = name;
    st->sources[st->nsources].absent = absent;
    st->sources[st->nsources++].src = src;
    return 0;
}

int d2_module_add_source(d2_interp *I, const char *name, const char *src)
{
    return add_source(I, name, src, false);
}

int d2_module_add_absent(d2_interp *I, const char *name, const char *reason)
{
    return add_source(I, name, reason, true);
}

const char *d2_module_source_at(d2_interp *I, size_t i, const char **src)
{
    if (i >= I->st->nsources)
        return NULL;
    *src = I->st->sources[i].absent ? NULL : I->st->sources[i].src;
    return I->st->sources[i].name;
}

/* The registration of a module by d2_module_add_source/_absent, or NULL. */
static const struct d2i_source *module_source(d2_interp *I, const char *name)
{
    for (size_t i = 0; i < I->st->nsources; i++)
        if (strcmp(I->st->sources[i].name, name) == 0)
            return &I->st->sources[i];
    return NULL;
}

static bool is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

d2_obj *d2_import(d2_interp *I, const char *name, const d2_module *from)
{
    d2_obj *m = d2_dict_get_str(I, I->modules, name);
    if (m)
        return d2_incref(m);
    const char *dot = strrchr(name, '.');
    if (dot) {
        char parent[512];
        snprintf(parent, sizeof parent, "%.*s", (int)(dot - name), name);
        d2_obj *p = d2_import(I, parent, from);
        if (!p)
            return NULL;
        m = d2_dict_get_str(I, I->modules, name);
        const struct d2i_source *src = m ? NULL : module_source(I, name);
        if (src && !src->absent) {
            /* a library module written in Python under a package: a.b.c */
            char path[4096];
            snprintf(path, sizeof path, "<dy2st>/%s.py", name);
            m = load_module_source(I, name, path, src->src, strlen(src->src), true);
            if (m && p->kind == D2_OBJ_MODULE &&
                d2_dict_set_str(I, D2_AS(d2_module, p)->dict, dot + 1, m) < 0)
                d2_setref(&m, NULL);
            d2_decref(p);
            return m;
        }
        d2_decref(p);
        if (src)
            return d2_raise(I, "ImportError", "dy2st does not provide %s: %s", name, src->src);
        if (m)
            return d2_incref(m);
        return d2_raise(I, "ModuleNotFoundError", "No module named '%s'", name);
    }
    /* NAME.py beside the importing file, else beside the main script */
    const char *base = from && from->path ? from->path : NULL;
    if (!base) {
        d2_obj *mm = d2_dict_get_str(I, I->modules, "__main__");
        if (mm && mm->kind == D2_OBJ_MODULE)
            base = D2_AS(d2_module, mm)->path;
    }
    char path[4096];
    const char *slash = base ? strrchr(base, '/') : NULL;
    if (slash)
        snprintf(path, sizeof path, "%.*s/%s.py", (int)(slash - base), base, name);
    else
        snprintf(path, sizeof path, "%s.py", name);
    if (is_file(path))
        return load_file_module(I, name, path);
    const struct d2i_source *src = module_source(I, name);
    if (src && src->absent)
        return d2_raise(I, "ImportError", "dy2st does not provide %s: %s", name, src->src);
    if (src) {
        snprintf(path, sizeof path, "<dy2st>/%s.py", name);
        return load_module_source(I, name, path, src->src, strlen(src->src), true);
    }
    return d2_raise(I, "ModuleNotFoundError", "No module named '%s'", name);
}

int d2_interp_run_source(d2_interp *I, const char *filename, const char *src, size_t len)
{
    char base = 0;
    bool outer = I->st->stack_base == NULL;
    d2i_stack_begin(I, &base);
    int rc = -1;
    const d2_ast_module *ast = parse_source(I, filename, src, len);
    if (ast) {
        d2_module *m = module_new(I, "__main__", filename, ast);
        if (m)
            rc = run_module(I, m, ast);
    }
    if (rc < 0 && I->exc && d2_exc_matches(I, d2_exc_class(I, "SystemExit"))) {
        /* sys.exit(): None or 0 is success; a message is reported as an error */
        d2_obj *args = D2_AS(d2_instance, I->exc)->dict
                           ? d2_dict_get_str(I, D2_AS(d2_instance, I->exc)->dict, "args")
                           : NULL;
        d2_obj *code = args && args->kind == D2_OBJ_TUPLE && D2_AS(d2_tuple, args)->n
                           ? D2_AS(d2_tuple, args)->items[0]
                           : I->none;
        if (code->kind == D2_OBJ_NONE || ((code->kind == D2_OBJ_INT || code->kind == D2_OBJ_BOOL) &&
                                          D2_AS(d2_int, code)->v == 0)) {
            rc = 0;
        } else if (code->kind == D2_OBJ_INT || code->kind == D2_OBJ_BOOL) {
            I->st->exit_status = (int)(D2_AS(d2_int, code)->v & 0xff);
            rc = I->st->exit_status ? -1 : 0;
            if (rc < 0) {
                d2_exc_clear(I);
                if (outer)
                    I->st->stack_base = NULL;
                return rc;
            }
        } else if (code->kind == D2_OBJ_STR) {
            d2_diag_set_source(&I->diag, filename, NULL, 0);
            d2_diag_add(&I->diag, D2_DIAG_ERROR, (d2_span){0}, "%s", D2_AS(d2_str, code)->s);
        }
        d2_exc_clear(I);
    }
    if (rc < 0)
        d2i_render_exception(I);
    if (outer)
        I->st->stack_base = NULL;
    return rc;
}

int d2_interp_exit_status(const d2_interp *I)
{
    return I->st->exit_status;
}

int d2_interp_run_file(d2_interp *I, const char *path)
{
    size_t len;
    d2_err err = {0};
    char *src = read_source(path, &len, &err);
    if (!src) {
        d2_diag_set_source(&I->diag, path, NULL, 0);
        d2_diag_add(&I->diag, D2_DIAG_ERROR, (d2_span){0}, "%s", err.msg);
        return -1;
    }
    /* sys.argv defaults to [path] */
    d2_obj *sys = d2_dict_get_str(I, I->modules, "sys");
    d2_obj *argv = sys && sys->kind == D2_OBJ_MODULE
                       ? d2_dict_get_str(I, D2_AS(d2_module, sys)->dict, "argv")
                       : NULL;
    if (argv && argv->kind == D2_OBJ_LIST && D2_AS(d2_list, argv)->n == 0) {
        d2_obj *p = d2_str_from(I, path);
        if (!p || d2_list_append(I, argv, p) < 0)
            d2_exc_clear(I);
        d2_decref(p);
    }
    int rc = d2_interp_run_source(I, path, src, len);
    d2_free(src);
    return rc;
}
