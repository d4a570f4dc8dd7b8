/* exc.c - exceptions: raising, tracebacks, the builtin exception classes, rendering, warnings. */
#include "interp/interp_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- raising ---- */

bool d2_exc_pending(const d2_interp *I) { return I->exc != NULL; }

void d2_exc_clear(d2_interp *I)
{
    d2_obj *e = I->exc;
    I->exc = NULL;
    d2_decref(e);
}

d2_class *d2_exc_class(d2_interp *I, const char *name)
{
    if (!I->builtins)
        return NULL;
    d2_obj *c = d2_dict_get_str(I, I->builtins, name);
    if (c && c->kind == D2_OBJ_CLASS)
        return D2_AS(d2_class, c);
    return NULL;
}

bool d2_exc_matches(d2_interp *I, d2_class *cls)
{
    return I->exc && cls && d2i_issubclass(I->exc->cls, cls);
}

/* A new exception instance of cls with args (borrowed). */
d2_obj *d2i_exc_new(d2_interp *I, d2_class *cls, d2_obj **args, size_t nargs)
{
    if (!cls)
        return NULL;
    d2_obj *e = d2_instance_new(I, cls);
    if (!e)
        return NULL;
    d2_obj *t = d2_tuple_from_array(I, args, nargs);
    if (!t || d2_dict_set_str(I, D2_AS(d2_instance, e)->dict, "args", t) < 0) {
        d2_decref(t);
        d2_decref(e);
        return NULL;
    }
    d2_decref(t);
    return e;
}

/* A traceback owns references to the modules of its entries. */
static void tb_fin(void *p)
{
    d2i_tb *tb = p;
    for (size_t i = 0; i < tb->n; i++)
        d2_decref((d2_obj *)tb->e[i].module);
    d2_free(tb);
}

/* Records where every active frame is, innermost first, on exc. */
static void capture_tb(d2_interp *I, d2_obj *exc)
{
    if (exc->kind != D2_OBJ_INSTANCE)
        return;
    d2_dict *d = D2_AS(d2_instance, exc)->dict;
    if (!d || d2_dict_get_str(I, d, "__traceback__"))
        return;
    size_t n = 0;
    for (d2_frame *f = I->frame; f; f = f->back)
        n++;
    d2i_tb *tb = d2_malloc(sizeof *tb + n * sizeof(d2i_tb_entry));
    if (!tb)
        return;
    tb->n = n;
    size_t i = 0;
    for (d2_frame *f = I->frame; f; f = f->back, i++) {
        tb->e[i].module = f->module;
        d2_incref((d2_obj *)f->module);
        tb->e[i].span = f->span;
        tb->e[i].func = f->func_name;
    }
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_OPAQUE, I->st->tb_type, sizeof(d2_opaque));
    if (!o) {
        tb_fin(tb);
        d2_exc_clear(I);
        return;
    }
    D2_AS(d2_opaque, o)->payload = tb;
    D2_AS(d2_opaque, o)->fin = tb_fin;
    if (d2_dict_set_str(I, d, "__traceback__", o) < 0)
        d2_exc_clear(I);
    d2_decref(o);
}

/* Makes exc (a new reference, stolen) the pending exception. */
void d2i_set_exc(d2_interp *I, d2_obj *exc)
{
    d2_exc_clear(I);
    if (exc != I->st->memory_error)
        capture_tb(I, exc);
    d2_exc_clear(I);
    I->exc = exc;
    I->exc_frame = I->frame;
    I->exc_module = I->frame ? I->frame->module : NULL;
    if (I->frame)
        I->exc_span = I->frame->span;
}

/* Out of memory: raises the preallocated MemoryError without allocating. */
void d2i_set_nomem(d2_interp *I)
{
    if (!I->st->memory_error)
        return;
    d2_exc_clear(I);
    I->exc = d2_incref(I->st->memory_error);
    /* no traceback without allocating: remember the position for the report */
    I->exc_frame = I->frame;
    I->exc_module = I->frame ? I->frame->module : NULL;
    I->exc_span = I->frame ? I->frame->span : (d2_span){0};
}

bool d2i_size_error(d2_interp *I, uint64_t a, uint64_t b, size_t unit, const char *kind)
{
    size_t n;
    bool fits = d2_mul_size((size_t)a, (size_t)b, &n) && (uint64_t)(size_t)a == a &&
                (uint64_t)(size_t)b == b;
    (void)unit;
    const char *units = strcmp(kind, "str") == 0     ? "characters"
                        : strcmp(kind, "bytes") == 0 ? "bytes"
                        : strcmp(kind, "dict") == 0  ? "entries"
                                                     : "items";
    if (fits)
        d2_raise(I, "MemoryError", "cannot allocate a %s of %zu %s", kind, n, units);
    else
        d2_raise(I, "MemoryError", "cannot allocate a %s of %llu x %llu %s", kind,
                 (unsigned long long)a, (unsigned long long)b, units);
    return false;
}

d2_obj *d2_raise(d2_interp *I, const char *exc_class, const char *fmt, ...)
{
    /* A plain allocation failure takes the preallocated MemoryError; one with
     * a message (a size limit) is built like any other exception, and falls
     * back to the preallocated one when that fails too. */
    if (strcmp(exc_class, "MemoryError") == 0 && strcmp(fmt, "out of memory") == 0) {
        d2i_set_nomem(I);
        return NULL;
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    d2_class *cls = d2_exc_class(I, exc_class);
    if (!cls)
        cls = d2_exc_class(I, "RuntimeError");
    if (!cls) /* during bootstrap */
        return NULL;
    d2_obj *msg = d2_str_from(I, buf);
    if (!msg)
        return NULL;
    d2_obj *e = d2i_exc_new(I, cls, &msg, 1);
    d2_decref(msg);
    if (e)
        d2i_set_exc(I, e);
    else
        d2i_set_nomem(I);
    return NULL;
}

d2_obj *d2_raise_args(d2_interp *I, const char *exc_class, d2_obj **args, size_t nargs)
{
    d2_obj *e = d2i_exc_new(I, d2_exc_class(I, exc_class), args, nargs);
    if (e)
        d2i_set_exc(I, e);
    return NULL;
}

d2_obj *d2_raise_err(d2_interp *I, const d2_err *err)
{
    const char *cls = "RuntimeError";
    switch (err->code) {
    case D2_ERR_NOMEM: cls = "MemoryError"; break;
    case D2_ERR_INVALID:
    case D2_ERR_SHAPE:
    case D2_ERR_PARSE:
    case D2_ERR_FORMAT: cls = "ValueError"; break;
    case D2_ERR_DTYPE: cls = "TypeError"; break;
    case D2_ERR_IO: cls = "OSError"; break;
    case D2_ERR_UNSUPPORTED: cls = "NotImplementedError"; break;
    case D2_ERR_LIMIT: cls = "TimeoutError"; break;
    default: break;
    }
    return d2_raise(I, cls, "%s", err->msg[0] ? err->msg : d2_errcode_name(err->code));
}

/* ---- reporting: uncaught exceptions, warnings ---- */

/* Whether a traceback entry lies in a library module written in Python. */
static bool library_frame(const d2i_tb_entry *e)
{
    const d2_module *m = e->module;
    return m && m->path && strncmp(m->path, "<dy2st>/", 8) == 0;
}

/* Renders the pending (uncaught) exception into I->diag and clears it. */
void d2i_render_exception(d2_interp *I)
{
    d2_obj *exc = I->exc;
    I->exc = NULL;
    if (!exc)
        return;
    d2_dict *d = exc->kind == D2_OBJ_INSTANCE ? D2_AS(d2_instance, exc)->dict : NULL;
    if (d && d2_dict_get_str(I, d, "__reported__")) {
        d2_decref(exc);
        return;
    }
    char msgbuf[2048];
    const char *tname = d2_type_name(exc);
    d2_obj *s = d2_str_of(I, exc);
    d2_exc_clear(I);
    const char *mp = NULL;
    if (exc->cls->flags & D2I_CF_USER && exc->cls->module &&
        strcmp(exc->cls->module->name, "__main__") != 0)
        mp = exc->cls->module->name;
    if (s && D2_AS(d2_str, s)->len)
        snprintf(msgbuf, sizeof msgbuf, "%s%s%s: %s", mp ? mp : "", mp ? "." : "", tname,
                 D2_AS(d2_str, s)->s);
    else
        snprintf(msgbuf, sizeof msgbuf, "%s%s%s", mp ? mp : "", mp ? "." : "", tname);
    d2_decref(s);
    d2_obj *tbo = d ? d2_dict_get_str(I, d, "__traceback__") : NULL;
    d2i_tb *tb = tbo && tbo->kind == D2_OBJ_OPAQUE ? D2_AS(d2_opaque, tbo)->payload : NULL;
    if ((!tb || tb->n == 0) && exc == I->st->memory_error && I->exc_module) {
        /* the preallocated MemoryError carries no traceback: its raise position */
        const d2_module *m = I->exc_module;
        const char *file = m->path ? m->path : m->name;
        d2_diag_set_source(&I->diag, file, m->ast ? m->ast->source : NULL,
                           m->ast ? m->ast->source_len : 0);
        d2_diag_add(&I->diag, D2_DIAG_ERROR, I->exc_span, "%s", msgbuf);
    } else if (!tb || tb->n == 0) {
        d2_diag_set_source(&I->diag, "<dy2st>", NULL, 0);
        d2_diag_add(&I->diag, D2_DIAG_ERROR, (d2_span){0}, "%s", msgbuf);
    } else {
        /* frames inside library modules written in Python (<dy2st>/...) are
         * left out when the user's code called them: the error points there */
        bool user = false;
        for (size_t i = 0; i < tb->n && !user; i++)
            user = !library_frame(&tb->e[i]);
        bool first = true;
        for (size_t i = 0; i < tb->n; i++) {
            const d2i_tb_entry *e = &tb->e[i];
            if (user && library_frame(e))
                continue;
            const d2_module *m = e->module;
            const char *file = m ? (m->path ? m->path : m->name) : "<dy2st>";
            if (m && m->ast)
                d2_diag_set_source(&I->diag, file, m->ast->source, m->ast->source_len);
            else
                d2_diag_set_source(&I->diag, file, NULL, 0);
            if (first)
                d2_diag_add(&I->diag, D2_DIAG_ERROR, e->span, "%s", msgbuf);
            else
                d2_diag_add(&I->diag, D2_DIAG_NOTE, e->span, "called from here");
            first = false;
        }
    }
    d2_decref(exc);
}

void d2_warn(d2_interp *I, d2_span span, const d2_module *m, const char *fmt, ...)
{
    char key[64];
    snprintf(key, sizeof key, "%p:%u", (const void *)m, span.start);
    if (d2_dict_get_str(I, I->st->warned, key))
        return;
    d2_dict_set_str(I, I->st->warned, key, I->true_);
    const char *file = m ? (m->path ? m->path : m->name) : "<dy2st>";
    if (m && m->ast)
        d2_diag_set_source(&I->diag, file, m->ast->source, m->ast->source_len);
    else
        d2_diag_set_source(&I->diag, file, NULL, 0);
    va_list ap;
    va_start(ap, fmt);
    d2_diag_item *it = d2_diag_vadd(&I->diag, D2_DIAG_WARNING, span, fmt, ap);
    va_end(ap);
    if (it && !I->opt.quiet_warnings) {
        d2_buf b;
        d2_buf_init(&b);
        d2_diag_render_item(it, &b);
        if (b.data)
            fputs(b.data, I->opt.errout ? I->opt.errout : stderr);
        d2_buf_free(&b);
    }
}

/* ---- the builtin exception classes ---- */

/* The exception hierarchy: X(name, base). */
#define D2I_EXCEPTIONS(X)                                                                          \
    X("Exception", "BaseException")                                                              \
    X("SystemExit", "BaseException")                                                             \
    X("KeyboardInterrupt", "BaseException")                                                      \
    X("GeneratorExit", "BaseException")                                                          \
    X("ArithmeticError", "Exception")                                                            \
    X("ZeroDivisionError", "ArithmeticError")                                                    \
    X("OverflowError", "ArithmeticError")                                                        \
    X("FloatingPointError", "ArithmeticError")                                                   \
    X("AssertionError", "Exception")                                                             \
    X("AttributeError", "Exception")                                                             \
    X("BufferError", "Exception")                                                                \
    X("EOFError", "Exception")                                                                   \
    X("ImportError", "Exception")                                                                \
    X("ModuleNotFoundError", "ImportError")                                                      \
    X("LookupError", "Exception")                                                                \
    X("IndexError", "LookupError")                                                               \
    X("KeyError", "LookupError")                                                                 \
    X("MemoryError", "Exception")                                                                \
    X("NameError", "Exception")                                                                  \
    X("UnboundLocalError", "NameError")                                                          \
    X("OSError", "Exception")                                                                    \
    X("FileNotFoundError", "OSError")                                                            \
    X("FileExistsError", "OSError")                                                              \
    X("PermissionError", "OSError")                                                              \
    X("TimeoutError", "OSError")                                                                 \
    X("NotADirectoryError", "OSError")                                                           \
    X("IsADirectoryError", "OSError")                                                            \
    X("RuntimeError", "Exception")                                                               \
    X("NotImplementedError", "RuntimeError")                                                     \
    X("RecursionError", "RuntimeError")                                                          \
    X("StopIteration", "Exception")                                                              \
    X("SyntaxError", "Exception")                                                                \
    X("IndentationError", "SyntaxError")                                                         \
    X("SystemError", "Exception")                                                                \
    X("TypeError", "Exception")                                                                  \
    X("ValueError", "Exception")                                                                 \
    X("UnicodeError", "ValueError")                                                              \
    X("Warning", "Exception")                                                                    \
    X("UserWarning", "Warning")                                                                  \
    X("DeprecationWarning", "Warning")                                                           \
    X("RuntimeWarning", "Warning")

static d2_obj *exc_new_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)kw;
    return d2i_exc_new(I, D2_AS(d2_class, self), a, n);
}

static d2_obj *exc_init_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)kw;
    d2_obj *t = d2_tuple_from_array(I, a, n);
    if (!t || self->kind != D2_OBJ_INSTANCE ||
        d2_dict_set_str(I, D2_AS(d2_instance, self)->dict, "args", t) < 0) {
        d2_decref(t);
        return t ? d2_raise(I, "TypeError", "bad exception object") : NULL;
    }
    d2_decref(t);
    return d2_none(I);
}

static d2_obj *exc_args(d2_interp *I, d2_obj *self)
{
    d2_obj *a = self->kind == D2_OBJ_INSTANCE
                    ? d2_dict_get_str(I, D2_AS(d2_instance, self)->dict, "args")
                    : NULL;
    return a && a->kind == D2_OBJ_TUPLE ? a : I->st->empty_tuple;
}

static d2_obj *exc_str_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_obj *args = exc_args(I, self);
    d2_tuple *t = D2_AS(d2_tuple, args);
    if (t->n == 0)
        return d2_str_new(I, "", 0);
    if (t->n == 1) {
        if (d2i_issubclass(self->cls, D2_AS(d2_class, d2_dict_get_str(I, I->builtins, "KeyError"))))
            return d2_repr(I, t->items[0]);
        return d2_str_of(I, t->items[0]);
    }
    return d2_repr(I, args);
}

static d2_obj *exc_repr_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_obj *args = exc_args(I, self);
    d2_tuple *t = D2_AS(d2_tuple, args);
    d2_obj *r = t->n == 1 ? d2_repr(I, t->items[0]) : d2_repr(I, args);
    if (!r)
        return NULL;
    d2_obj *out;
    if (t->n == 1)
        out = d2_str_printf(I, "%s(%s)", d2_type_name(self), D2_AS(d2_str, r)->s);
    else
        out = d2_str_printf(I, "%s%s", d2_type_name(self), D2_AS(d2_str, r)->s);
    d2_decref(r);
    return out;
}

static d2_obj *stop_value_get(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_tuple *t = D2_AS(d2_tuple, exc_args(I, self));
    return d2_incref(t->n ? t->items[0] : I->none);
}

int d2i_make_exceptions(d2_interp *I)
{
    struct d2_interp_state *st = I->st;
    d2_class *be = d2i_class_new(I, "BaseException", NULL, D2_OBJ_INSTANCE, NULL, false);
    if (!be)
        return -1;
    st->base_exc = be;
    be->flags |= D2I_CF_EXC;
    if (d2_dict_set_str(I, I->builtins, "BaseException", (d2_obj *)be) < 0 ||
        d2_class_add_method(I, be, "__new__", exc_new_m) < 0 ||
        d2_class_add_method(I, be, "__init__", exc_init_m) < 0 ||
        d2_class_add_method(I, be, "__str__", exc_str_m) < 0 ||
        d2_class_add_method(I, be, "__repr__", exc_repr_m) < 0)
        return -1;
    d2_decref((d2_obj *)be);
#define X(name, base)                                                                              \
    {                                                                                              \
        d2_obj *b = d2_dict_get_str(I, I->builtins, base);                                         \
        d2_class *c = d2i_class_new(I, name, D2_AS(d2_class, b), D2_OBJ_INSTANCE, NULL, false);    \
        if (!c || d2_dict_set_str(I, I->builtins, name, (d2_obj *)c) < 0)                          \
            return -1;                                                                             \
        d2_decref((d2_obj *)c);                                                                    \
    }
    D2I_EXCEPTIONS(X)
#undef X
    d2_class *si = D2_AS(d2_class, d2_dict_get_str(I, I->builtins, "StopIteration"));
    return d2_class_add_property(I, si, "value", stop_value_get, NULL);
}
