/* warnings.c - the warnings module: warn() reports compiler-style, once per place. */
#include "lib/std/std.h"

D2_FN(warn_warn) /* a[0] message, a[1] category, a[2] stacklevel */
{
    d2_obj *s = d2_str_of(I, a[0]);
    if (!s)
        return NULL;
    const char *cat = a[1]->kind == D2_OBJ_CLASS ? D2_AS(d2_class, a[1])->name : "UserWarning";
    if (I->frame)
        d2_warn(I, I->frame->span, I->frame->module, "%s: %s", cat, D2_AS(d2_str, s)->s);
    d2_decref(s);
    return d2_none(I);
}

/* filterwarnings / simplefilter: every warning is reported once anyway. */
D2_FN(warn_filter)
{
    return d2_none(I);
}

static const d2_def WARNINGS_DEFS[] = {
    D2_DEF("warn", "message, category=None, stacklevel=1", warn_warn, NULL),
    D2_DEF("filterwarnings", "*args, **kwargs", warn_filter, NULL),
    D2_DEF("simplefilter", "*args, **kwargs", warn_filter, NULL),
};

int d2_std_warnings_init(d2_interp *I)
{
    return d2_std_module_defs(I, "warnings", WARNINGS_DEFS, D2_COUNTOF(WARNINGS_DEFS)) ? 0 : -1;
}
