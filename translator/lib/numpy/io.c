/* io.c - numpy.save / numpy.load: .npy files, and .npz archives (read) as NpzFile. */
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

/* numpy.lib.npyio.NpzFile: the arrays of an archive by name, as NumPy's
 * lazy mapping presents them (here read at once). */
static const char NPYIO_SRC[] =
    "class NpzFile:\n"
    "    def __init__(self, arrays):\n"
    "        self._arrays = arrays\n"
    "        self.files = list(arrays)\n"
    "    def __getitem__(self, key):\n"
    "        if key in self._arrays:\n"
    "            return self._arrays[key]\n"
    "        raise KeyError('%s is not a file in the archive' % key)\n"
    "    def __contains__(self, key):\n"
    "        return key in self._arrays\n"
    "    def __iter__(self):\n"
    "        return iter(self.files)\n"
    "    def __len__(self):\n"
    "        return len(self.files)\n"
    "    def get(self, key, default=None):\n"
    "        return self._arrays.get(key, default)\n"
    "    def keys(self):\n"
    "        return self._arrays.keys()\n"
    "    def values(self):\n"
    "        return self._arrays.values()\n"
    "    def items(self):\n"
    "        return self._arrays.items()\n"
    "    def close(self):\n"
    "        pass\n"
    "    def __enter__(self):\n"
    "        return self\n"
    "    def __exit__(self, *exc):\n"
    "        self.close()\n";

typedef struct npz_ctx {
    d2_interp *I;
    d2_dict *d;
} npz_ctx;

static int npz_member(void *ctx, const char *name, d2_tensor *t, d2_err *err)
{
    npz_ctx *c = ctx;
    d2_obj *v = d2_ndarray_wrap(c->I, t);
    int rc = v ? d2_dict_set_str(c->I, c->d, name, v) : -1;
    d2_decref(v);
    if (rc < 0)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    return 0;
}

/* An .npz archive (a zip file: it starts with "PK\3\4") as an NpzFile. */
static d2_obj *load_npz(d2_interp *I, const char *path)
{
    d2_obj *d = d2_dict_new(I);
    if (!d)
        return NULL;
    npz_ctx c = {I, D2_AS(d2_dict, d)};
    d2_err err = {0};
    if (d2_npz_load(path, npz_member, &c, &err) < 0) {
        d2_decref(d);
        return I->exc ? NULL : d2_raise_err(I, &err);
    }
    d2_obj *mod = d2_import(I, "numpy.lib.npyio", NULL);
    d2_obj *cls = mod ? d2_getattr(I, mod, "NpzFile") : NULL;
    d2_obj *r = cls ? d2_call(I, cls, &d, 1, NULL) : NULL;
    d2_decref(cls);
    d2_decref(mod);
    d2_decref(d);
    return r;
}

static bool is_zip(const char *path)
{
    unsigned char m[4] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(m, 1, 4, f);
    fclose(f);
    return n == 4 && m[0] == 'P' && m[1] == 'K' && m[2] == 3 && m[3] == 4;
}

D2_FN(n_load) /* a[0] file, a[1] mmap_mode, a[2] allow_pickle, a[3] fix_imports, a[4] encoding */
{
    const char *path = d2_to_cstr(I, a[0], "file");
    if (!path)
        return NULL;
    if (is_zip(path))
        return load_npz(I, path);
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
    d2_module *lib = d2_module_new_builtin(I, "numpy.lib");
    d2_decref((d2_obj *)lib);
    if (!lib || d2_module_add_source(I, "numpy.lib.npyio", NPYIO_SRC) < 0)
        return -1;
    return d2_module_add_defs(I, np, IO_DEFS, D2_COUNTOF(IO_DEFS));
}
