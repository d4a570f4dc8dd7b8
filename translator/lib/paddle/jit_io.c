/* jit_io.c - reading parameters and inputs: .npz archives, paddle.load of .pdparams pickles,
 * _jst._load_npz / _load_params, and the command-line helpers (input descriptions, model files,
 * printing and saving Programs). */
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"

#include "model_io.h"
#include "onnx/onnx_export.h"
#include "npy.h"
#include "pickle.h"
#include "passes/passes.h"
#include "lib/paddle/tensor_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool d2_jit_file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* ======================================================================
 * Command-line helpers (the dy2st convert/program/save commands run a
 * small driver script that calls these)
 * ====================================================================== */

int d2_jit_parse_input(const char *text, char *name, size_t name_size, d2_dtype *dt,
                       d2_shape *shape, d2_err *err)
{
    const char *colon = strchr(text, ':');
    if (!colon || colon == text)
        return d2_err_set(err, D2_ERR_INVALID,
                          "bad input '%s' (expected NAME:DTYPE[DIMS], e.g. x:float32[-1,784])",
                          text);
    snprintf(name, name_size, "%.*s", (int)(colon - text), text);
    const char *p = colon + 1, *br = strchr(p, '[');
    size_t dl = br ? (size_t)(br - p) : strlen(p);
    int d = d2_dtype_parse(p, dl);
    if (d < 0 || !d2_dtype_supported((d2_dtype)d))
        return d2_err_set(err, D2_ERR_INVALID, "bad input '%s': unknown dtype '%.*s'", text,
                          (int)dl, p);
    *dt = (d2_dtype)d;
    shape->ndim = 0;
    if (!br)
        return 0;
    p = br + 1;
    while (*p == ' ')
        p++;
    if (*p == ']')
        return p[1] ? d2_err_set(err, D2_ERR_INVALID, "bad input '%s': text after ']'", text) : 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (shape->ndim >= D2_MAX_DIMS)
            return d2_err_set(err, D2_ERR_INVALID, "bad input '%s': more than %d dims", text,
                              D2_MAX_DIMS);
        int64_t v;
        if (strncmp(p, "None", 4) == 0 || *p == '?') {
            v = -1;
            p += *p == '?' ? 1 : 4;
        } else {
            char *end;
            long long ll = strtoll(p, &end, 10);
            if (end == p || ll < -1)
                return d2_err_set(err, D2_ERR_INVALID, "bad input '%s': bad dim", text);
            v = ll;
            p = end;
        }
        shape->dims[shape->ndim++] = v;
        while (*p == ' ')
            p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ']' && p[1] == '\0')
            return 0;
        return d2_err_set(err, D2_ERR_INVALID, "bad input '%s': expected ',' or ']'", text);
    }
}

/* _jst._input_spec("x:float32[-1,784]") -> InputSpec */
D2_FN(C_input_spec)
{
    const char *text = d2_to_cstr(I, a[0], "text");
    if (!text)
        return NULL;
    char name[256];
    d2_dtype dt;
    d2_shape sh;
    d2_err err = {0};
    if (d2_jit_parse_input(text, name, sizeof name, &dt, &sh, &err) < 0)
        return d2_raise(I, "ValueError", "%s", err.msg);
    d2_obj *shape = d2_list_new(I, (size_t)sh.ndim);
    for (int d = 0; shape && d < sh.ndim; d++) {
        D2_AS(d2_list, shape)->items[d] = d2_int_new(I, sh.dims[d]);
        if (!D2_AS(d2_list, shape)->items[d])
            d2_setref(&shape, NULL);
    }
    d2_obj *nm = d2_str_from(I, name);
    d2_obj *sp = shape && nm ? d2_instance_new(I, JS(I)->spec_cls) : NULL;
    if (sp && d2_jit_spec_set(I, sp, shape, d2_pd_dtype_obj(I, dt, false), nm) < 0)
        d2_setref(&sp, NULL);
    d2_decref(shape);
    d2_decref(nm);
    return sp;
}

/* _jst._load_file(path): imports a model file as a module named after it
 * (so its `if __name__ == "__main__":` block does not run). */
D2_FN(C_load_file)
{
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base);
    if (bl < 4 || strcmp(base + bl - 3, ".py") != 0)
        return d2_raise(I, "ValueError", "%s: a model file must end in .py", path);
    char mod[256];
    snprintf(mod, sizeof mod, "%.*s", (int)(bl - 3), base);
    for (char *c = mod; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            *c = '_';
    if (d2_dict_get_str(I, I->modules, mod))
        return d2_raise(I, "ImportError", "%s: a module named '%s' is already loaded", path, mod);
    if (!d2_jit_file_exists(path))
        return d2_raise(I, "FileNotFoundError", "%s: no such file", path);
    char *fake = d2_arena_printf(I->arena, "%.*s%s.py", (int)(base - path), path, mod);
    if (!fake)
        return nomem(I);
    if (strcmp(fake, path) != 0)
        return d2_raise(I, "ValueError",
                        "%s: the file name must be a valid module name (letters, digits, _)",
                        path);
    d2_module from;
    memset(&from, 0, sizeof from);
    from.path = path;
    return d2_import(I, mod, &from);
}

/* _jst._resolve(module, name): what NAME names in a model file: a Layer
 * class (instantiated with no arguments), a function without required
 * parameters that returns a Layer (called), a Layer instance, or a function
 * to convert. Layers are put in eval mode. name None: build_model. */
D2_FN(C_resolve)
{
    if (a[0]->kind != D2_OBJ_MODULE)
        return d2_raise(I, "TypeError", "_jst._resolve: expected a module");
    d2_module *m = D2_AS(d2_module, a[0]);
    const char *name = a[1]->kind == D2_OBJ_NONE ? "build_model" : cstr(a[1]);
    if (!name)
        return d2_raise(I, "TypeError", "_jst._resolve: the name must be a string");
    d2_obj *v = d2_dict_get_str(I, m->dict, name);
    if (!v) {
        const char *file = m->path ? m->path : m->name;
        if (a[1]->kind == D2_OBJ_NONE)
            return d2_raise(I, "NameError",
                            "no build_model() in %s; name the Layer class or function as "
                            "%s:NAME", file, file);
        return d2_raise(I, "NameError", "no class or function '%s' in %s", name, file);
    }
    d2_obj *r = NULL;
    if (v->kind == D2_OBJ_CLASS) {
        r = d2_call(I, v, NULL, 0, NULL);
    } else if (v->kind == D2_OBJ_FUNCTION && !fattr(I, v, "_dy2st_static")) {
        d2_function *f = D2_AS(d2_function, v);
        const d2_ast_arguments *fa = f->args;
        size_t required = fa ? fa->posonlyargs.n + fa->args.n : 0;
        size_t ndef = f->defaults ? f->defaults->n : 0;
        bool kwreq = false;
        for (uint32_t i = 0; fa && i < fa->kwonlyargs.n; i++)
            if (!fa->kw_defaults.items[i])
                kwreq = true;
        if (required <= ndef && !kwreq) {
            r = d2_call(I, v, NULL, 0, NULL);
            if (r && !d2_jit_is_layer(I, r)) {
                d2_raise(I, "TypeError",
                         "%s() takes no arguments, so it was called to build the model, but it "
                         "returned a %s, not a paddle.nn.Layer",
                         name, d2_type_name(r));
                d2_decref(r);
                return NULL;
            }
        } else {
            r = d2_incref(v);
        }
    } else {
        r = d2_incref(v);
    }
    if (r && d2_jit_is_layer(I, r)) {
        d2_obj *e = d2_call_method(I, r, "eval", NULL, 0, NULL);
        if (!e)
            d2_setref(&r, NULL);
        d2_decref(e);
    }
    return r;
}

/* _jst._program(target, specs, dot) -> the Program's text form (or DOT). */
D2_FN(C_program)
{
    d2_pass_set set = 0;
    d2_err err = {0};
    if (a[3] != I->none) {
        const char *list = d2_to_cstr(I, a[3], "passes");
        if (!list)
            return NULL;
        if (d2_passes_parse(list, &set, &err) < 0)
            return d2_raise_err(I, &err);
    }
    d2_program *p = d2_jit_program_for(I, a[0], a[1]);
    if (!p)
        return NULL;
    /* passes=LIST: the Program after those graph passes, each one's count on stderr */
    if (set) {
        d2_pass_stats st;
        if (d2_passes_run(p, set, &st, &err) < 0) {
            d2_program_free(p);
            return d2_raise_err(I, &err);
        }
        int n;
        const d2_pass *all = d2_passes_all(&n);
        for (int i = 0; i < n; i++)
            if (set & ((d2_pass_set)1 << i))
                fprintf(stderr, "pass %s: %d rewrite%s\n", all[i].name, st.changes[i],
                        st.changes[i] == 1 ? "" : "s");
    }
    char *text = a[2] == I->true_ ? d2_program_dot(p) : d2_program_print(p, false);
    d2_program_free(p);
    if (!text)
        return nomem(I);
    d2_obj *s = d2_str_from(I, text);
    d2_free(text);
    return s;
}

/* _jst._save(target, specs, path): writes exactly path. */
D2_FN(C_save)
{
    const char *path = d2_to_cstr(I, a[2], "path");
    if (!path)
        return NULL;
    d2_program *p = d2_jit_program_for(I, a[0], a[1]);
    if (!p)
        return NULL;
    d2_err err = {0};
    int rc = d2_model_save(p, path, &err);
    d2_program_free(p);
    return rc < 0 ? d2_raise_err(I, &err) : d2_none(I);
}

/* _jst._export(target, specs, path, opset, external_data): writes target's Program to exactly path as ONNX
 * (dy2st export FILE.py:NAME). */
D2_FN(C_export)
{
    const char *path = d2_to_cstr(I, a[2], "path");
    int64_t opset = 0;
    if (!path || d2_to_int64(I, a[3], "opset", &opset) < 0)
        return NULL;
    d2_program *p = d2_jit_program_for(I, a[0], a[1]);
    if (!p)
        return NULL;
    d2_err err = {0};
    d2_onnx_options o = {0};
    o.opset = (int)opset;
    o.external_data = a[4] == I->true_;
    int rc = d2_onnx_export(p, path, &o, &err);
    d2_program_free(p);
    return rc < 0 ? d2_raise_err(I, &err) : d2_none(I);
}

/* paddle.onnx.export(layer, path, input_spec=None, opset_version=9, **configs): writes
 * path + ".onnx" as Paddle does. Paddle converts through paddle2onnx, which raises the
 * opset to what the model's ops need; so does this (and to 13, dy2st's lowest). */
D2_FN(O_export)
{
    const char *path = d2_to_cstr(I, a[1], "path");
    int64_t opset = 9;
    if (!path || (a[3]->kind != D2_OBJ_NONE && d2_to_int64(I, a[3], "opset_version", &opset) < 0))
        return NULL;
    if (opset > D2_ONNX_OPSET_MAX)
        return d2_raise(I, "ValueError", "paddle.onnx.export: opset_version %lld is not supported "
                        "(the newest is %d)", (long long)opset, D2_ONNX_OPSET_MAX);
    d2_program *p = d2_jit_program_for(I, a[0], a[2]);
    if (!p)
        return NULL;
    size_t n = strlen(path);
    char *file = d2_malloc(n + 6);
    d2_err err = {0};
    int rc = -1;
    if (file) {
        snprintf(file, n + 6, "%s.onnx", path);
        rc = d2_jit_make_parents(file, "paddle.onnx.export", &err);
    }
    if (rc == 0) {
        d2_onnx_options o = {0};
        o.opset = (int)opset;
        o.auto_opset = true;
        rc = d2_onnx_export(p, file, &o, &err);
    }
    d2_free(file);
    d2_program_free(p);
    if (rc < 0)
        return err.code ? d2_raise_err(I, &err) : nomem(I);
    return d2_none(I);
}

static void append_line(const char *dir, const char *file, const char *line)
{
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_printf(&b, "%s/%s", dir, file);
    FILE *f = b.data ? fopen(b.data, "a") : NULL;
    if (f) {
        fputs(line, f);
        fclose(f);
    }
    d2_buf_free(&b);
}

void d2_jit_onnx_check_dump(const d2_program *p, d2_tensor *const *in, int n_in,
                            d2_tensor *const *out, int n_out)
{
    const char *dir = getenv("DY2ST_ONNX_CHECK_DIR");
    if (!dir || !*dir)
        return;
    static int counter;
    int k = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    d2_buf path, line;
    d2_buf_init(&path);
    d2_buf_init(&line);
    d2_err err = {0};
    d2_buf_printf(&path, "%s/call%ld_%d.onnx", dir, (long)getpid(), k);
    int rc = path.data ? d2_onnx_export(p, path.data, NULL, &err) : -1;
    d2_buf_printf(&line, "%s\t", path.data ? path.data : "");
    for (int pass = 0; rc == 0 && pass < 2; pass++) {
        d2_tensor *const *ts = pass ? out : in;
        for (int i = 0; rc == 0 && i < (pass ? n_out : n_in); i++) {
            d2_buf f;
            d2_buf_init(&f);
            d2_buf_printf(&f, "%s/call%ld_%d_%s%d.npy", dir, (long)getpid(), k,
                          pass ? "out" : "in", i);
            if (!ts[i] || ts[i]->kind != D2_VALUE_TENSOR)
                rc = d2_err_set(&err, D2_ERR_UNSUPPORTED, "%s %d is not a tensor",
                                pass ? "output" : "input", i);
            else if (!f.data || d2_npy_save(ts[i], f.data, &err) < 0)
                rc = -1;
            d2_buf_printf(&line, "%s%s", i ? "," : "", f.data ? f.data : "");
            d2_buf_free(&f);
        }
        d2_buf_puts(&line, pass ? "\t-\n" : "\t");
    }
    if (rc == 0 && line.data) {
        append_line(dir, "manifest.tsv", line.data);
    } else {
        d2_buf msg;
        d2_buf_init(&msg);
        d2_buf_printf(&msg, "call%ld_%d: %s\n", (long)getpid(), k,
                      err.msg[0] ? err.msg : "out of memory");
        if (msg.data)
            append_line(dir, "skipped.txt", msg.data);
        d2_buf_free(&msg);
    }
    d2_buf_free(&path);
    d2_buf_free(&line);
}

/* _jst._stats(): {"decorate_s": seconds spent making to_static functions
 * (the transforms run there), "decorated": how many}; for the benchmark,
 * which counts the conversion the decorator does while a module loads. */
D2_FN(C_stats)
{
    d2_obj *d = d2_dict_new(I);
    d2_obj *t = d2_float_new(I, JS(I)->decorate_s);
    d2_obj *n = d2_int_new(I, JS(I)->decorated);
    if (!d || !t || !n || d2_dict_set_str(I, D2_AS(d2_dict, d), "decorate_s", t) < 0 ||
        d2_dict_set_str(I, D2_AS(d2_dict, d), "decorated", n) < 0)
        d2_setref(&d, NULL);
    d2_decref(t);
    d2_decref(n);
    return d;
}

typedef struct npz_ctx {
    d2_interp *I;
    d2_obj *dict;
    bool prefixed; /* only "param/<key>" members */
} npz_ctx;

static int npz_param(void *vctx, const char *name, d2_tensor *t, d2_err *err)
{
    npz_ctx *c = vctx;
    const char *key = name;
    if (c->prefixed) {
        if (strncmp(name, "param/", 6) != 0)
            return 0;
        key += 6;
    }
    d2_obj *v = d2_tensor_wrap(c->I, t);
    int rc = v ? d2_dict_set_str(c->I, D2_AS(d2_dict, c->dict), key, v) : -1;
    d2_decref(v);
    if (rc < 0)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    return 0;
}

static int npz_has_prefix(void *vctx, const char *name, d2_tensor *t, d2_err *err)
{
    D2_UNUSED(t);
    D2_UNUSED(err);
    if (strncmp(name, "param/", 6) == 0)
        *(bool *)vctx = true;
    return 0;
}

/* _jst._load_npz(path): every member of an .npz as a dict name -> Tensor
 * (on the CPU), for scripts that compare outputs with stored ones. */
D2_FN(C_load_npz)
{
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    npz_ctx c = {I, d2_dict_new(I), false};
    if (!c.dict)
        return NULL;
    d2_err err = {0};
    if (d2_npz_load(path, npz_param, &c, &err) < 0) {
        d2_decref(c.dict);
        return err.code == D2_ERR_IO ? d2_raise(I, "FileNotFoundError", "%s", err.msg)
                                     : d2_raise_err(I, &err);
    }
    return c.dict;
}

/* Sets dict[name] = Tensor for each array of a paddle.save pickle
 * (.pdparams, .pdopt), read by the restricted unpickler. */
static int pickle_to_dict(d2_interp *I, const char *path, d2_obj *dict, d2_err *err)
{
    d2_pickle_params pp;
    if (d2_pickle_load_params(path, &pp, err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < pp.n; i++) {
        d2_obj *v = d2_tensor_wrap(I, pp.items[i].tensor);
        rc = v ? d2_dict_set_str(I, D2_AS(d2_dict, dict), pp.items[i].name, v) : -1;
        d2_decref(v);
    }
    d2_pickle_params_free(&pp);
    if (rc < 0)
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    return rc;
}

/* paddle.load(path): the dict name -> Tensor of a file paddle.save wrote
 * (nested dicts flattened with '.'; see pickle.h). */
D2_FN(P_load)
{
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    d2_obj *dict = d2_dict_new(I);
    if (!dict)
        return NULL;
    d2_err err = {0};
    if (pickle_to_dict(I, path, dict, &err) < 0) {
        d2_decref(dict);
        return err.code == D2_ERR_IO ? d2_raise(I, "FileNotFoundError", "%s", err.msg)
                                     : d2_raise_err(I, &err);
    }
    return dict;
}

/* _jst._load_params(layer, path): sets the Layer's state_dict from an .npz
 * (members "param/<key>" when there are any, else every member) or from a
 * paddle.save pickle (.pdparams). Returns the number of entries set. */
D2_FN(C_load_params)
{
    const char *path = d2_to_cstr(I, a[1], "path");
    if (!path)
        return NULL;
    if (!d2_jit_is_layer(I, a[0]))
        return d2_raise(I, "TypeError", "--params needs a Layer, got %s", d2_type_name(a[0]));
    size_t pl = strlen(path);
    bool npz = pl >= 4 && strcmp(path + pl - 4, ".npz") == 0;
    bool prefixed = false;
    d2_err err = {0};
    if (npz && d2_npz_load(path, npz_has_prefix, &prefixed, &err) < 0)
        return err.code == D2_ERR_IO ? d2_raise(I, "FileNotFoundError", "%s", err.msg)
                                     : d2_raise_err(I, &err);
    npz_ctx c = {I, d2_dict_new(I), prefixed};
    if (!c.dict)
        return NULL;
    if (npz ? d2_npz_load(path, npz_param, &c, &err) < 0
            : pickle_to_dict(I, path, c.dict, &err) < 0) {
        d2_decref(c.dict);
        return err.code == D2_ERR_IO ? d2_raise(I, "FileNotFoundError", "%s", err.msg)
                                     : d2_raise_err(I, &err);
    }
    /* every key must name an entry of the state_dict */
    d2_obj *sd = d2_call_method(I, a[0], "state_dict", NULL, 0, NULL);
    if (!sd) {
        d2_decref(c.dict);
        return NULL;
    }
    d2_dict *pd = D2_AS(d2_dict, c.dict);
    for (size_t i = 0; sd->kind == D2_OBJ_DICT && i < pd->n; i++) {
        if (!pd->entries[i].key)
            continue;
        if (!d2_dict_get(I, D2_AS(d2_dict, sd), pd->entries[i].key)) {
            d2_raise(I, "KeyError", "%s: '%s' is not in the model's state_dict", path,
                     cstr(pd->entries[i].key));
            d2_decref(sd);
            d2_decref(c.dict);
            return NULL;
        }
    }
    d2_decref(sd);
    d2_obj *r = d2_call_method(I, a[0], "set_state_dict", &c.dict, 1, NULL);
    size_t n = pd->live;
    d2_decref(c.dict);
    if (!r)
        return NULL;
    d2_decref(r);
    return d2_int_new(I, (int64_t)n);
}

/* ======================================================================
 * Registration
 * ====================================================================== */

int d2_jit_io_init(d2_interp *I, jit_state *s)
{
    static const d2_def jst_defs[] = {
        D2_DEF("_input_spec", "text", C_input_spec, "_jst._input_spec"),
        D2_DEF("_load_file", "path", C_load_file, "_jst._load_file"),
        D2_DEF("_resolve", "module, name=None", C_resolve, "_jst._resolve"),
        D2_DEF("_program", "target, specs=None, dot=False, passes=None", C_program, "_jst._program"),
        D2_DEF("_save", "target, specs, path", C_save, "_jst._save"),
        D2_DEF("_load_params", "layer, path", C_load_params, "_jst._load_params"),
        D2_DEF("_stats", "", C_stats, "_jst._stats"),
        D2_DEF("_load_npz", "path", C_load_npz, "_jst._load_npz"),
        D2_DEF("_export", "target, specs, path, opset=13, external_data=False", C_export, "_jst._export"),
    };
    static const d2_def paddle_defs[] = {D2_DEF("load", "path", P_load, "paddle.load")};
    if (d2_module_add_defs(I, s->jst, jst_defs, D2_COUNTOF(jst_defs)) < 0)
        return -1;
    /* paddle.onnx */
    static const d2_def onnx_defs[] = {
        D2_DEF("export", "layer, path, input_spec=None, opset_version=None, **configs", O_export,
               "paddle.onnx.export"),
    };
    d2_module *onnx = d2_jit_get_module(I, "paddle.onnx");
    int rc = onnx ? d2_module_add_defs(I, onnx, onnx_defs, D2_COUNTOF(onnx_defs)) : -1;
    d2_obj *pdm = rc == 0 ? d2_dict_get_str(I, I->modules, "paddle") : NULL;
    if (rc == 0 && pdm && pdm->kind == D2_OBJ_MODULE)
        rc = d2_dict_set_str(I, D2_AS(d2_module, pdm)->dict, "onnx", (d2_obj *)onnx);
    d2_decref((d2_obj *)onnx);
    if (rc < 0)
        return -1;
    d2_obj *pd = d2_dict_get_str(I, I->modules, "paddle");
    if (pd && pd->kind == D2_OBJ_MODULE &&
        d2_module_add_defs(I, D2_AS(d2_module, pd), paddle_defs, D2_COUNTOF(paddle_defs)) < 0)
        return -1;
    return 0;
}
