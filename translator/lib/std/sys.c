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
    d2_obj *a = d2_int_new(I, 3), *b = d2_int_new(I, 11), *c = d2_int_new(I, 0);
    d2_obj *vi = a && b && c ? d2_tuple_pack(I, 3, a, b, c) : NULL;
    d2_decref(a);
    d2_decref(b);
    d2_decref(c);
    if (d2_std_set(I, m->dict, "version_info", vi) < 0)
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
