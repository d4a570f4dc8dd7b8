/* sys.c - the sys module: exit, modules, argv, version, the standard streams; no eval/exec. */
#include "lib/std/std.h"

D2_FN(sys_exit) /* a[0] status or NULL */
{
    return d2_raise_args(I, "SystemExit", a, a[0] ? 1 : 0);
}

D2_FN(no_dynamic_code)
{
    return d2_raise(I, "NotImplementedError",
                    "dy2st does not provide %s: build scripts cannot run code made at run time",
                    def->name);
}

/* builtins that stay absent, with a clear error instead of a NameError */
static const d2_def ABSENT_BUILTINS[] = {
    D2_DEF("eval", "*args, **kwargs", no_dynamic_code, NULL),
    D2_DEF("exec", "*args, **kwargs", no_dynamic_code, NULL),
};

static const d2_def SYS_DEFS[] = {
    D2_DEF_POS("exit", "[status], /", sys_exit, NULL),
};

/* sys.version_info: a tuple (3, 11, 0, 'final', 0) whose items are also
 * major, minor, micro, releaselevel and serial. */
static const char *const VI_FIELDS[] = {"major", "minor", "micro", "releaselevel", "serial"};

static d2_obj *vi_field(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, size_t i)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_tuple *t = D2_AS(d2_tuple, self);
    return i < t->n ? d2_incref(t->items[i]) : d2_raise(I, "AttributeError", "%s", VI_FIELDS[i]);
}
#define VI_GETTER(i)                                                                               \
    static d2_obj *vi_get##i(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)      \
    {                                                                                              \
        return vi_field(I, self, a, n, kw, i);                                                     \
    }
VI_GETTER(0)
VI_GETTER(1)
VI_GETTER(2)
VI_GETTER(3)
VI_GETTER(4)

static d2_obj *version_info(d2_interp *I, d2_module *m)
{
    static const d2_builtin_fn getters[] = {vi_get0, vi_get1, vi_get2, vi_get3, vi_get4};
    d2_class *cls = d2_class_new_builtin(I, "version_info", I->types[D2_OBJ_TUPLE], D2_OBJ_TUPLE, m);
    if (!cls)
        return NULL;
    for (size_t i = 0; i < D2_COUNTOF(getters); i++)
        if (d2_class_add_property(I, cls, VI_FIELDS[i], getters[i], NULL) < 0)
            return NULL;
    d2_obj *t = d2_obj_alloc(I, D2_OBJ_TUPLE, cls, sizeof(d2_tuple) + 5 * sizeof(d2_obj *));
    if (!t)
        return NULL;
    d2_obj *items[5] = {d2_int_new(I, 3), d2_int_new(I, 11), d2_int_new(I, 0),
                        d2_str_from(I, "final"), d2_int_new(I, 0)};
    for (size_t i = 0; i < 5; i++) {
        if (!items[i]) {
            for (size_t k = i + 1; k < 5; k++)
                d2_decref(items[k]);
            d2_decref(t);
            return NULL;
        }
        D2_AS(d2_tuple, t)->items[i] = items[i];
        D2_AS(d2_tuple, t)->n = i + 1;
    }
    return t;
}

/* sys.argv starts empty: the command line (or d2_interp_run_file) fills it. */
int d2_std_sys_init(d2_interp *I)
{
    d2_module *m = d2_std_module_defs(I, "sys", SYS_DEFS, D2_COUNTOF(SYS_DEFS));
    if (!m || d2_dict_set_str(I, m->dict, "modules", (d2_obj *)I->modules) < 0 ||
        d2_std_set(I, m->dict, "argv", d2_list_new(I, 0)) < 0 ||
        d2_std_set(I, m->dict, "path", d2_list_new(I, 0)) < 0 ||
        d2_std_set(I, m->dict, "version", d2_str_from(I, "3.11.0 (dy2st)")) < 0 ||
        d2_std_set(I, m->dict, "platform", d2_str_from(I, "linux")) < 0 ||
        d2_std_set(I, m->dict, "maxsize", d2_int_new(I, INT64_MAX)) < 0)
        return -1;
    if (d2_std_set(I, m->dict, "version_info", version_info(I, m)) < 0)
        return -1;
    for (size_t i = 0; i < D2_COUNTOF(ABSENT_BUILTINS); i++)
        if (d2_std_set(I, I->builtins, ABSENT_BUILTINS[i].name,
                       d2_def_new(I, &ABSENT_BUILTINS[i], NULL)) < 0)
            return -1;
    return d2_std_set(I, m->dict, "stdout", d2_incref(d2_std_stream(I, 1))) < 0 ||
                   d2_std_set(I, m->dict, "stderr", d2_incref(d2_std_stream(I, 2))) < 0
               ? -1
               : 0;
}
