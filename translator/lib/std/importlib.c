/* importlib.c - importlib.import_module: a module by its dotted name, at run time. */
#include "lib/std/std.h"

/* import_module(name, package=None): the module itself (the last part of a dotted name),
 * imported from where the calling file would import it; relative names (".x") need a
 * package, which dy2st's import does not resolve, so they are refused. */
D2_FN(il_import_module)
{
    const char *name = d2_to_cstr(I, a[0], "name");
    if (!name)
        return NULL;
    if (name[0] == '.')
        return d2_raise(I, "ImportError",
                        "importlib.import_module: relative import '%s' is not supported", name);
    return d2_import(I, name, I->frame ? I->frame->module : NULL);
}

static const d2_def IMPORTLIB_DEFS[] = {
    D2_DEF("import_module", "name, package=None", il_import_module, NULL),
};

int d2_std_importlib_init(d2_interp *I)
{
    return d2_std_module_defs(I, "importlib", IMPORTLIB_DEFS, D2_COUNTOF(IMPORTLIB_DEFS)) ? 0
                                                                                           : -1;
}
