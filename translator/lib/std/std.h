/* std.h - the standard-library modules build scripts import: their init functions. */
#ifndef DY2ST_LIB_STD_H
#define DY2ST_LIB_STD_H

#include "interp/interp.h"

/* Each registers its module (or modules) in sys.modules, as rows of
 * d2_lib_modules do: 0, or -1 with an exception pending. */
int d2_std_math_init(d2_interp *I);
int d2_std_sys_init(d2_interp *I);
int d2_std_os_init(d2_interp *I); /* os and os.path */
int d2_std_time_init(d2_interp *I);
int d2_std_functools_init(d2_interp *I);
int d2_std_copy_init(d2_interp *I);
int d2_std_warnings_init(d2_interp *I);
int d2_std_importlib_init(d2_interp *I);
int d2_std_typing_init(d2_interp *I);   /* typing, _collections, abc */
int d2_std_argparse_init(d2_interp *I); /* written in Python: runs on first import */
int d2_std_shutil_init(d2_interp *I);
int d2_std_tempfile_init(d2_interp *I); /* in Python, over _tempfile */
int d2_std_json_init(d2_interp *I); /* in Python */
int d2_std_collections_init(d2_interp *I); /* in Python, over typing.c's _collections */
int d2_std_random_init(d2_interp *I); /* in Python, over _random */
int d2_std_pathlib_init(d2_interp *I); /* in Python */
int d2_std_fnmatch_init(d2_interp *I); /* in Python */
int d2_std_logging_init(d2_interp *I); /* in Python */
int d2_std_itertools_init(d2_interp *I); /* in Python */
int d2_std_dataclasses_init(d2_interp *I); /* in Python */
int d2_std_re_init(d2_interp *I); /* in Python, over _re (PCRE2) */

/* The body of rows that return their one positional argument unchanged
 * (functools.wraps(f)(g), abc.abstractmethod): signature "*args, **kwargs". */
d2_obj *d2_std_identity(d2_interp *I, d2_obj *self, d2_obj **a, const d2_def *def);

/* Raises the OSError subclass CPython raises for errno e on path (and path2,
 * as rename's): "[Errno 2] No such file or directory: 'p'". Returns NULL. */
d2_obj *d2_std_raise_errno(d2_interp *I, int e, const char *path, const char *path2);

/* A row whose first npath (at most 2) arguments may be os.PathLike objects
 * (pathlib.Path): d2_std_fs_call hands fn their __fspath__() strings. */
typedef struct d2_std_fs_row {
    d2_def_fn fn;
    int npath;
} d2_std_fs_row;
d2_obj *d2_std_fs_call(d2_interp *I, d2_obj *self, d2_obj **a, const d2_def *def);
#define D2_FS(name, sig, fn, npath, flags)                                                        \
    {(name), (sig), d2_std_fs_call, NULL, &(const d2_std_fs_row){(fn), (npath)}, (flags)}

/* A new builtin module, borrowed: sys.modules keeps it. */
static inline d2_module *d2_std_module(d2_interp *I, const char *name)
{
    d2_module *m = d2_module_new_builtin(I, name);
    d2_decref((d2_obj *)m);
    return m;
}

/* A new builtin module holding the rows defs, borrowed; NULL with the error pending. */
static inline d2_module *d2_std_module_defs(d2_interp *I, const char *name, const d2_def *defs,
                                            size_t n)
{
    d2_module *m = d2_std_module(I, name);
    return m && d2_module_add_defs(I, m, defs, n) == 0 ? m : NULL;
}

/* Sets d[name] to o, a new reference it steals (NULL: -1, the error pending). */
static inline int d2_std_set(d2_interp *I, d2_dict *d, const char *name, d2_obj *o)
{
    int rc = o ? d2_dict_set_str(I, d, name, o) : -1;
    d2_decref(o);
    return rc;
}

/* A C helper module (rows defs) and the Python module name whose source src
 * imports it on first import: 0, or -1 with the error pending. */
static inline int d2_std_helper_and_source(d2_interp *I, const char *helper, const d2_def *defs,
                                           size_t n, const char *name, const char *src)
{
    return d2_std_module_defs(I, helper, defs, n) && d2_module_add_source(I, name, src) == 0 ? 0
                                                                                          : -1;
}

/* Fills buf with n unpredictable bytes: /dev/urandom, else the clock, the
 * process id and a counter. */
void d2_std_urandom(void *buf, size_t n);

#endif
