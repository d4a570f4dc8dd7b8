/* jit_api.c - paddle.jit: to_static, not_to_static, enable_to_static, save, load
 * (TranslatedLayer); paddle.static.InputSpec; and d2_jit_init, which registers every jit file's
 * builtins. */
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"

#include "exec.h"
#include "model_io.h"
#include "lib/paddle/tensor_api.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ======================================================================
 * paddle.jit.to_static, not_to_static, enable_to_static
 * ====================================================================== */

D2_FN(J_decorate)
{
    return d2_jit_to_static(I, a[0], self && self->kind != D2_OBJ_NONE ? self : NULL);
}

/* what paddle.jit.to_static(input_spec=...) returns, bound to the spec */
static const d2_def DECORATE_DEF = D2_DEF("to_static", "function", J_decorate, "to_static");

/* paddle.jit.to_static(function=None, input_spec=None, build_strategy=None,
 * backend=None, **kwargs) */
D2_FN(J_to_static)
{
    if (a[0]->kind == D2_OBJ_NONE)
        return d2_def_new(I, &DECORATE_DEF, a[1]);
    return d2_jit_to_static(I, a[0], a[1]->kind == D2_OBJ_NONE ? NULL : a[1]);
}

D2_FN(J_not_to_static)
{
    if (a[0]->kind == D2_OBJ_FUNCTION &&
        d2_jit_fattr_set(I, a[0], "_dy2st_not_to_static", I->true_) < 0)
        return NULL;
    return d2_incref(a[0]);
}

D2_FN(J_enable_to_static)
{
    if (a[0]->kind != D2_OBJ_BOOL)
        return d2_raise(I, "TypeError",
                        "paddle.jit.enable_to_static: the argument must be a bool, got %s",
                        d2_type_name(a[0]));
    JS(I)->enabled = a[0] == I->true_;
    return d2_none(I);
}

/* ======================================================================
 * paddle.jit.save
 * ====================================================================== */

char *d2_jit_model_path(const char *path)
{
    size_t n = strlen(path);
    if (n >= 6 && strcmp(path + n - 6, ".dy2st") == 0)
        return d2_strdup(path);
    char *r = d2_malloc(n + 7);
    if (r)
        snprintf(r, n + 7, "%s.dy2st", path);
    return r;
}

int d2_jit_make_parents(const char *file, const char *who, d2_err *err)
{
    char *d = d2_strdup(file);
    if (!d) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        return -1;
    }
    char *last = strrchr(d, '/');
    int rc = 0;
    for (char *p = d + 1; last && p <= last; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        struct stat st;
        if (stat(d, &st) < 0 && mkdir(d, 0777) < 0 && errno != EEXIST) {
            d2_err_set(err, D2_ERR_IO, "%s: cannot create directory '%s': %s", who, d,
                       strerror(errno));
            rc = -1;
            break;
        }
        *p = '/';
    }
    d2_free(d);
    return rc;
}

/* paddle.jit.save(layer, path, input_spec=None, **configs) */
D2_FN(J_save)
{
    const char *path = d2_to_cstr(I, a[1], "path");
    if (!path)
        return NULL;
    d2_program *p = d2_jit_program_for(I, a[0], a[2]);
    if (!p)
        return NULL;
    char *file = d2_jit_model_path(path);
    d2_err err = {0};
    int rc = file ? d2_jit_make_parents(file, "paddle.jit.save", &err) : -1;
    if (rc == 0)
        rc = d2_model_save(p, file, &err);
    d2_free(file);
    d2_program_free(p);
    if (rc < 0)
        return err.code ? d2_raise_err(I, &err) : nomem(I);
    return d2_none(I);
}

d2_program *d2_jit_last_program(d2_interp *I, d2_err *err)
{
    if (!JS(I) || !JS(I)->last_prog) {
        d2_err_set(err, D2_ERR_INVALID, "no to_static function has been compiled yet: call it "
                   "once before saving its program");
        return NULL;
    }
    return d2_program_clone(JS(I)->last_prog, err);
}

/* ---- paddle.jit.load: TranslatedLayer ---- */

typedef struct loaded {
    d2_program *p;
    d2_prepared *pp;
} loaded;

static void loaded_fin(void *v)
{
    loaded *l = v;
    d2_exec_free(l->pp);
    d2_program_free(l->p);
    d2_free(l);
}

D2_FN(J_load)
{
    const char *path = d2_to_cstr(I, a[0], "path");
    if (!path)
        return NULL;
    char *file = d2_jit_model_path(path);
    if (!file)
        return nomem(I);
    const char *use = d2_jit_file_exists(file) ? file : path;
    d2_err err = {0};
    loaded *l = d2_calloc(1, sizeof *l);
    if (!l) {
        d2_free(file);
        return nomem(I);
    }
    l->p = d2_model_load(use, &err);
    d2_free(file);
    if (l->p)
        l->pp = d2_exec_prepare(l->p, D2_MODE(I)->backend, &err);
    if (!l->pp) {
        loaded_fin(l);
        if (err.code == D2_ERR_IO)
            return d2_raise(I, "FileNotFoundError", "%s", err.msg);
        return d2_raise_err(I, &err);
    }
    d2_obj *po = d2_obj_alloc(I, D2_OBJ_OPAQUE, JS(I)->prog_cls, sizeof(d2_opaque));
    if (!po) {
        loaded_fin(l);
        return NULL;
    }
    D2_AS(d2_opaque, po)->payload = l;
    D2_AS(d2_opaque, po)->fin = loaded_fin;
    d2_obj *layer = d2_instance_new(I, JS(I)->loaded_cls);
    if (!layer || iset(I, layer, "_program", po) < 0 || iset(I, layer, "training", I->false_) < 0)
        d2_setref(&layer, NULL);
    d2_decref(po);
    return layer;
}

static loaded *loaded_of(d2_interp *I, d2_obj *layer)
{
    d2_obj *po = iget(I, layer, "_program");
    if (!po || po->kind != D2_OBJ_OPAQUE || po->cls != JS(I)->prog_cls)
        return NULL;
    return D2_AS(d2_opaque, po)->payload;
}

static d2_obj *TL_forward(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(kw);
    loaded *l = loaded_of(I, self);
    if (!l)
        return d2_raise(I, "TypeError", "TranslatedLayer: no program loaded");
    int n_in = l->p->blocks[0].n_params, n_out = l->p->blocks[0].n_yields;
    if ((int)nargs != n_in)
        return d2_raise(I, "TypeError", "the loaded model takes %d inputs, got %zu", n_in, nargs);
    d2_tensor **in = d2_calloc((size_t)n_in + 1, sizeof *in);
    d2_tensor **out = d2_calloc((size_t)n_out + 1, sizeof *out);
    d2_obj *r = NULL;
    if (!in || !out) {
        nomem(I);
        goto done;
    }
    for (int i = 0; i < n_in; i++) {
        d2_obj *x = args[i];
        if (is_tensor(x) && TOBJ(x)->t)
            in[i] = d2_tensor_ref(TOBJ(x)->t);
        else if (x->kind == D2_OBJ_NDARRAY)
            in[i] = d2_tensor_ref(D2_AS(d2_ndarray, x)->t);
        else
            in[i] = d2_pd_from_py(I, x, (int)l->p->vars[l->p->blocks[0].params[i]].type.dtype,
                                  D2_F32, "TranslatedLayer");
        if (!in[i])
            goto done;
    }
    d2_err err = {0};
    if (d2_jit_exec_run(I, l->pp, in, n_in, out, n_out, &err) < 0) {
        d2_raise_err(I, &err);
        goto done;
    }
    if (n_out == 1) {
        r = d2_tensor_wrap(I, out[0]);
    } else {
        r = d2_list_new(I, (size_t)n_out);
        for (int k = 0; r && k < n_out; k++) {
            D2_AS(d2_list, r)->items[k] = d2_tensor_wrap(I, out[k]);
            if (!D2_AS(d2_list, r)->items[k])
                d2_setref(&r, NULL);
        }
    }
done:
    for (int i = 0; in && i < n_in; i++)
        d2_tensor_unref(in[i]);
    for (int k = 0; out && k < n_out; k++)
        d2_tensor_unref(out[k]);
    d2_free(in);
    d2_free(out);
    return r;
}

static d2_obj *TL_mode(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_incref(self ? self : I->none);
}

static d2_obj *TL_program(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    loaded *l = loaded_of(I, self);
    if (!l)
        return d2_raise(I, "TypeError", "TranslatedLayer: no program loaded");
    return d2_jit_program_text(I, l->p);
}

d2_obj *d2_jit_program_text(d2_interp *I, const d2_program *p)
{
    char *text = d2_program_print(p, false);
    if (!text)
        return nomem(I);
    d2_obj *s = d2_str_from(I, text);
    d2_free(text);
    return s;
}

/* ======================================================================
 * paddle.static.InputSpec
 * ====================================================================== */

int d2_jit_spec_set(d2_interp *I, d2_obj *self, d2_obj *shape, d2_obj *dtype, d2_obj *name)
{
    size_t n = 0;
    d2_obj **dims = NULL;
    if (shape && shape->kind != D2_OBJ_NONE) {
        if (shape->kind != D2_OBJ_LIST && shape->kind != D2_OBJ_TUPLE) {
            int64_t v;
            if (d2_to_int64(I, shape, "InputSpec.shape", &v) < 0)
                return -1;
            dims = &shape;
            n = 1;
        } else {
            dims = d2_jit_seq_items(shape, &n);
        }
    }
    d2_obj *t = d2_jit_tuple_n(I, n);
    for (size_t i = 0; t && i < n; i++) {
        int64_t v = -1;
        if (dims[i]->kind != D2_OBJ_NONE && d2_to_int64(I, dims[i], "InputSpec.shape", &v) < 0) {
            d2_decref(t);
            return -1;
        }
        D2_AS(d2_tuple, t)->items[i] = d2_int_new(I, v < 0 ? -1 : v);
        if (!D2_AS(d2_tuple, t)->items[i])
            d2_setref(&t, NULL);
    }
    int dt = D2_F32;
    if (!t || (dtype && d2_pd_parse_dtype(I, dtype, "InputSpec", false, &dt) < 0)) {
        d2_decref(t);
        return -1;
    }
    d2_obj *dto = d2_pd_dtype_obj(I, dt < 0 ? D2_F32 : (d2_dtype)dt, false);
    int rc = dto ? iset(I, self, "shape", t) : -1;
    if (rc == 0)
        rc = iset(I, self, "dtype", dto);
    if (rc == 0)
        rc = iset(I, self, "name", name ? name : I->none);
    if (rc == 0)
        rc = iset(I, self, "stop_gradient", I->false_);
    d2_decref(t);
    return rc;
}

D2_FN(IS_init)
{
    if (d2_jit_spec_set(I, self, a[0], a[1], a[2]) < 0)
        return NULL;
    if (iset(I, self, "stop_gradient", a[3]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *IS_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    d2_obj *sh = iget(I, self, "shape"), *dt = iget(I, self, "dtype"), *nm = iget(I, self, "name");
    d2_obj *shr = sh ? d2_repr(I, sh) : NULL;
    d2_obj *dtr = dt ? d2_str_of(I, dt) : NULL;
    d2_obj *nmr = nm ? d2_str_of(I, nm) : NULL;
    d2_obj *sg = iget(I, self, "stop_gradient");
    d2_obj *r = shr && dtr && nmr
                    ? d2_str_printf(I, "InputSpec(shape=%s, dtype=%s, name=%s, stop_gradient=%s)",
                                    cstr(shr), cstr(dtr), cstr(nmr),
                                    sg == I->true_ ? "True" : "False")
                    : NULL;
    d2_decref(shr);
    d2_decref(dtr);
    d2_decref(nmr);
    return r;
}

/* InputSpec.batch(batch_size): puts batch_size in front of the shape and
 * returns the spec itself. A list or tuple of one int is taken too (Paddle
 * 2.6 accepts the form but then reads its second element and fails). */
D2_FN(IS_batch)
{
    d2_obj *b = a[0];
    if (b->kind == D2_OBJ_LIST || b->kind == D2_OBJ_TUPLE) {
        size_t n;
        d2_obj **items = d2_jit_seq_items(b, &n);
        if (n != 1)
            return d2_raise(I, "ValueError", "Length of batch_size: %zu shall be 1", n);
        b = items[0];
    }
    if (b->kind != D2_OBJ_INT && b->kind != D2_OBJ_BOOL)
        return d2_raise(I, "TypeError", "type(batch_size) shall be `int`, but received %s.",
                        d2_type_name(b));
    d2_obj *sh = iget(I, self, "shape");
    size_t n = 0;
    d2_obj **dims = sh ? d2_jit_seq_items(sh, &n) : NULL;
    d2_obj *t = d2_jit_tuple_n(I, n + 1);
    if (!t)
        return NULL;
    D2_AS(d2_tuple, t)->items[0] = d2_incref(b);
    for (size_t i = 0; i < n; i++)
        D2_AS(d2_tuple, t)->items[i + 1] = d2_incref(dims[i]);
    int rc = iset(I, self, "shape", t);
    d2_decref(t);
    return rc < 0 ? NULL : d2_incref(self);
}

/* InputSpec.unbatch(): drops the first dim of the shape; returns the spec. */
D2_FN(IS_unbatch)
{
    d2_obj *sh = iget(I, self, "shape");
    size_t n = 0;
    d2_obj **dims = sh ? d2_jit_seq_items(sh, &n) : NULL;
    if (n == 0)
        return d2_raise(I, "ValueError", "Not support to unbatch a InputSpec when len(shape) == 0.");
    d2_obj *t = d2_jit_tuple_n(I, n - 1);
    if (!t)
        return NULL;
    for (size_t i = 1; i < n; i++)
        D2_AS(d2_tuple, t)->items[i - 1] = d2_incref(dims[i]);
    int rc = iset(I, self, "shape", t);
    d2_decref(t);
    return rc < 0 ? NULL : d2_incref(self);
}

/* InputSpec.from_tensor(tensor, name=None) / from_numpy(ndarray, name=None) */
D2_FN(IS_from_tensor)
{
    d2_tensor *t = is_tensor(a[0]) ? TOBJ(a[0])->t
                   : a[0]->kind == D2_OBJ_NDARRAY ? D2_AS(d2_ndarray, a[0])->t
                                                  : NULL;
    if (!t)
        return d2_raise(I, "TypeError", "InputSpec.from_tensor: expected a Tensor, got %s",
                        d2_type_name(a[0]));
    d2_obj *shape = d2_jit_tuple_n(I, (size_t)t->ndim);
    for (int d = 0; shape && d < t->ndim; d++) {
        D2_AS(d2_tuple, shape)->items[d] = d2_int_new(I, t->shape[d]);
        if (!D2_AS(d2_tuple, shape)->items[d])
            d2_setref(&shape, NULL);
    }
    d2_obj *sp = shape ? d2_instance_new(I, JS(I)->spec_cls) : NULL;
    d2_obj *dt = d2_pd_dtype_obj(I, t->dtype, false);
    if (!sp || d2_jit_spec_set(I, sp, shape, dt, a[1]) < 0)
        d2_setref(&sp, NULL);
    d2_decref(shape);
    return sp;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

int d2_jit_add_fns(d2_interp *I, d2_module *m, const d2_fn_entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (d2_module_add_fn(I, m, v[i].name, v[i].fn, NULL) < 0)
            return -1;
    return 0;
}

d2_class *d2_jit_new_class(d2_interp *I, d2_module *m, const char *name, d2_obj_kind layout,
                           const d2_def *defs, size_t nd, const d2_fn_entry *methods, size_t n)
{
    d2_class *c = d2_class_new_builtin(I, name, NULL, layout, m);
    if (!c || d2_class_add_defs(I, c, defs, nd, 0) < 0)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (d2_class_add_method(I, c, methods[i].name, methods[i].fn) < 0)
            return NULL;
    if (m && d2_dict_set_str(I, m->dict, name, (d2_obj *)c) < 0)
        return NULL;
    return c;
}

d2_module *d2_jit_get_module(d2_interp *I, const char *name)
{
    d2_obj *o = d2_dict_get_str(I, I->modules, name);
    if (o && o->kind == D2_OBJ_MODULE)
        return D2_AS(d2_module, d2_incref(o));
    return d2_module_new_builtin(I, name);
}

static void state_fini(d2_interp *I, void *p)
{
    D2_UNUSED(I);
    jit_state *s = p;
    d2_decref((d2_obj *)s->jst);
    d2_decref((d2_obj *)s->jit);
    d2_decref((d2_obj *)s->statics);
    d2_decref(s->orig_concat);
    d2_decref(s->orig_stack);
    d2_decref(s->converted);
    d2_program_free(s->last_prog);
    d2_free(s);
}

int d2_jit_init(d2_interp *I)
{
    D2_MODE(I)->up.raise_if_undef = d2_jit_raise_if_undef;
    if (JS(I))
        return 0;
    jit_state *s = d2_calloc(1, sizeof *s);
    if (!s) {
        nomem(I);
        return -1;
    }
    I->ext[D2_EXT_JIT] = s;
    I->ext_fini[D2_EXT_JIT] = state_fini;
    s->enabled = true;
    s->converted = d2_dict_new(I);
    s->jst = d2_jit_get_module(I, "_jst");
    s->jit = d2_jit_get_module(I, "paddle.jit");
    s->statics = d2_jit_get_module(I, "paddle.static");
    if (!s->converted || !s->jst || !s->jit || !s->statics)
        return -1;
    /* _jst (the helpers the converted code calls), paddle.load, concat/stack */
    if (d2_jit_values_init(I, s) < 0 || d2_jit_loops_init(I, s) < 0 ||
        d2_jit_runtime_init(I, s) < 0 || d2_jit_io_init(I, s) < 0 ||
        d2_jit_program_init(I, s) < 0)
        return -1;
    static const d2_def is_defs[] = {
        D2_DEF("__init__", "shape=None, dtype='float32', name=None, stop_gradient=False", IS_init,
               "InputSpec"),
        D2_DEF("batch", "batch_size", IS_batch, "InputSpec.batch"),
        D2_DEF("unbatch", "", IS_unbatch, "InputSpec.unbatch"),
    };
    static const d2_fn_entry is_m[] = {{"__repr__", IS_repr}};
    /* a static method: InputSpec.from_tensor(tensor), also from_numpy */
    static const d2_def from_tensor =
        D2_DEF("from_tensor", "tensor, name=None", IS_from_tensor, "InputSpec.from_tensor");
    static const d2_fn_entry tl_m[] = {{"__call__", TL_forward}, {"forward", TL_forward},
                                       {"eval", TL_mode},        {"train", TL_mode},
                                       {"program", TL_program}};
    s->slot_cls = d2_jit_new_class(I, NULL, "_Slot", D2_OBJ_OPAQUE, NULL, 0, NULL, 0);
    s->fmt_cls = d2_jit_new_class(I, NULL, "_Fmt", D2_OBJ_OPAQUE, NULL, 0, NULL, 0);
    s->sfn_cls =
        d2_jit_new_class(I, NULL, "StaticFunctionState", D2_OBJ_OPAQUE, NULL, 0, NULL, 0);
    s->prog_cls = d2_jit_new_class(I, NULL, "LoadedProgram", D2_OBJ_OPAQUE, NULL, 0, NULL, 0);
    s->spec_cls = d2_jit_new_class(I, s->statics, "InputSpec", D2_OBJ_INSTANCE, is_defs,
                                   D2_COUNTOF(is_defs), is_m, D2_COUNTOF(is_m));
    s->loaded_cls = d2_jit_new_class(I, s->jit, "TranslatedLayer", D2_OBJ_INSTANCE, NULL, 0,
                                     tl_m, D2_COUNTOF(tl_m));
    if (!s->slot_cls || !s->sfn_cls || !s->prog_cls || !s->spec_cls || !s->loaded_cls)
        return -1;
    d2_obj *ft = d2_def_new(I, &from_tensor, NULL);
    int rc = ft ? d2_dict_set_str(I, s->spec_cls->dict, "from_tensor", ft) : -1;
    if (rc == 0)
        rc = d2_dict_set_str(I, s->spec_cls->dict, "from_numpy", ft);
    d2_decref(ft);
    if (rc < 0)
        return -1;
    static const d2_def jit_defs[] = {
        D2_DEF("to_static",
               "function=None, input_spec=None, build_strategy=None, backend=None, **kwargs",
               J_to_static, "paddle.jit.to_static"),
        D2_DEF("not_to_static", "func=None", J_not_to_static, "paddle.jit.not_to_static"),
        D2_DEF("enable_to_static", "enable_to_static", J_enable_to_static,
               "paddle.jit.enable_to_static"),
        D2_DEF("save", "layer, path, input_spec=None, **configs", J_save, "paddle.jit.save"),
        D2_DEF("load", "path, **configs", J_load, "paddle.jit.load"),
    };
    if (d2_module_add_defs(I, s->jit, jit_defs, D2_COUNTOF(jit_defs)) < 0)
        return -1;
    /* paddle.jit.to_static as fluid.dygraph.declarative and jit.declarative */
    d2_obj *ts = d2_dict_get_str(I, s->jit->dict, "to_static");
    d2_obj *dyg = d2_dict_get_str(I, I->modules, "paddle.fluid.dygraph");
    if (!ts || d2_dict_set_str(I, s->jit->dict, "declarative", ts) < 0)
        return -1;
    if (dyg && dyg->kind == D2_OBJ_MODULE &&
        (d2_dict_set_str(I, D2_AS(d2_module, dyg)->dict, "declarative", ts) < 0 ||
         d2_dict_set_str(I, D2_AS(d2_module, dyg)->dict, "jit", (d2_obj *)s->jit) < 0))
        return -1;
    d2_obj *pd = d2_dict_get_str(I, I->modules, "paddle");
    if (pd && pd->kind == D2_OBJ_MODULE) {
        d2_dict *pdd = D2_AS(d2_module, pd)->dict;
        if (d2_dict_set_str(I, pdd, "jit", (d2_obj *)s->jit) < 0 ||
            d2_dict_set_str(I, pdd, "static", (d2_obj *)s->statics) < 0)
            return -1;
    }
    return 0;
}
