/* io.c - numpy.save / numpy.load: .npy files. */
#include "lib/numpy/numpy_priv.h"

#include <stdio.h>
#include <string.h>

#include "npy.h"

D2_FN(n_save) /* a[0] file, a[1] arr, a[2] allow_pickle, a[3] fix_imports */
{
    const char *path = d2_to_cstr(I, a[0], "file");
    if (!path)
        return NULL;
    char buf[4096];
    size_t l = strlen(path);
    snprintf(buf, sizeof buf, "%s%s", path,
             l >= 4 && strcmp(path + l - 4, ".npy") == 0 ? "" : ".npy");
    d2_tensor *t = arr(I, a[1], -1, "numpy.save");
    if (!t)
        return NULL;
    d2_err err = {0};
    int rc = d2_npy_save(t, buf, &err);
    d2_tensor_unref(t);
    if (rc < 0)
        return d2_raise_err(I, &err);
    return d2_none(I);
}

D2_FN(n_load) /* a[0] file, a[1] mmap_mode, a[2] allow_pickle, a[3] fix_imports, a[4] encoding */
{
    const char *path = d2_to_cstr(I, a[0], "file");
    if (!path)
        return NULL;
    d2_err err = {0};
    d2_tensor *t = d2_npy_load(path, &err);
    if (!t) {
        if (err.code == D2_ERR_IO)
            return d2_raise(I, "FileNotFoundError", "%s", err.msg);
        return d2_raise_err(I, &err);
    }
    return wrap(I, t);
}

static const d2_def IO_DEFS[] = {
    D2_DEF("save", "file, arr, allow_pickle=True, fix_imports=True", n_save, "numpy.save"),
    D2_DEF("load", "file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding='ASCII'",
           n_load, "numpy.load"),
};

int d2np_io_init(d2_interp *I, d2_module *np)
{
    return d2_module_add_defs(I, np, IO_DEFS, D2_COUNTOF(IO_DEFS));
}
