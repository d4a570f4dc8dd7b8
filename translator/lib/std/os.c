/* os.c - the os and os.path modules: paths, the working directory, makedirs. */
#include "lib/std/std.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *path_arg(d2_interp *I, d2_obj *o, const char *fname)
{
    if (o->kind != D2_OBJ_STR) {
        d2_raise(I, "TypeError", "%s: path should be string, not %s", fname, d2_type_name(o));
        return NULL;
    }
    return D2_AS(d2_str, o)->s;
}

D2_FN(path_join) /* a[0] a, a[1] the other parts */
{
    d2_tuple *rest = D2_AS(d2_tuple, a[1]);
    size_t n = 1 + rest->n;
    if (n > 64)
        return d2_raise(I, "TypeError", "join() takes at most 64 arguments (%zu given)", n);
    d2_buf b;
    d2_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        const char *p = path_arg(I, i ? rest->items[i - 1] : a[0], "join()");
        if (!p) {
            d2_buf_free(&b);
            return NULL;
        }
        if (p[0] == '/')
            b.len = 0;
        else if (b.len && b.data[b.len - 1] != '/')
            d2_buf_puts(&b, "/");
        d2_buf_puts(&b, p);
    }
    d2_obj *r = d2_str_new(I, b.data ? b.data : "", b.len);
    d2_buf_free(&b);
    return r;
}

static d2_obj *stat_fn(d2_interp *I, d2_obj *path, const char *fname, int what)
{
    const char *p = path_arg(I, path, fname);
    if (!p)
        return NULL;
    struct stat sb;
    bool ok = stat(p, &sb) == 0;
    if (what == 1)
        ok = ok && S_ISREG(sb.st_mode);
    else if (what == 2)
        ok = ok && S_ISDIR(sb.st_mode);
    return d2_bool(I, ok);
}

D2_FN(path_exists) { return stat_fn(I, a[0], def->name, 0); }
D2_FN(path_isfile) { return stat_fn(I, a[0], def->name, 1); }
D2_FN(path_isdir) { return stat_fn(I, a[0], def->name, 2); }

/* split: 0 dirname, 1 basename, 2 (head, tail), 3 splitext */
static d2_obj *path_part(d2_interp *I, d2_obj *path, const char *fname, int what)
{
    const char *p = path_arg(I, path, fname);
    if (!p)
        return NULL;
    size_t len = strlen(p);
    if (what == 3) {
        const char *slash = strrchr(p, '/');
        const char *base = slash ? slash + 1 : p;
        const char *dot = strrchr(base, '.');
        while (dot && dot > base && dot[-1] == '.')
            dot = NULL;
        if (!dot || dot == base)
            dot = p + len;
        d2_obj *x = d2_str_new(I, p, (size_t)(dot - p)), *y = d2_str_from(I, dot);
        d2_obj *t = x && y ? d2_tuple_pack(I, 2, x, y) : NULL;
        d2_decref(x);
        d2_decref(y);
        return t;
    }
    const char *slash = strrchr(p, '/');
    size_t head = slash ? (size_t)(slash - p) + 1 : 0;
    size_t hl = head;
    while (hl > 1 && p[hl - 1] == '/')
        hl--;
    if (hl == 1 && p[0] != '/')
        hl = 0;
    if (head && hl == 0)
        hl = 1;
    if (slash && hl > 0 && p[hl - 1] == '/' && hl > 1)
        hl--;
    if (what == 0)
        return d2_str_new(I, p, head ? (head > 1 ? head - 1 : 1) : 0);
    if (what == 1)
        return d2_str_from(I, p + head);
    d2_obj *x = d2_str_new(I, p, head ? (head > 1 ? head - 1 : 1) : 0),
           *y = d2_str_from(I, p + head);
    d2_obj *t = x && y ? d2_tuple_pack(I, 2, x, y) : NULL;
    d2_decref(x);
    d2_decref(y);
    return t;
}

D2_FN(path_dirname) { return path_part(I, a[0], def->name, 0); }
D2_FN(path_basename) { return path_part(I, a[0], def->name, 1); }
D2_FN(path_split) { return path_part(I, a[0], def->name, 2); }
D2_FN(path_splitext) { return path_part(I, a[0], def->name, 3); }

D2_FN(path_abspath)
{
    const char *p = path_arg(I, a[0], "abspath()");
    if (!p)
        return NULL;
    if (p[0] == '/')
        return d2_incref(a[0]);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return d2_raise(I, "OSError", "getcwd failed");
    return d2_str_printf(I, "%s/%s", cwd, p);
}

D2_FN(os_getcwd)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return d2_raise(I, "OSError", "getcwd failed");
    return d2_str_from(I, cwd);
}

D2_FN(os_makedirs) /* a[0] name, a[1] mode, a[2] exist_ok */
{
    const char *path = path_arg(I, a[0], "makedirs()");
    if (!path)
        return NULL;
    int ok = d2_truthy(I, a[2]);
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode) && ok)
            return d2_none(I);
        return d2_raise(I, "FileExistsError", "[Errno 17] File exists: '%s'", path);
    }
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return d2_raise(I, "OSError", "[Errno %d] %s: '%s'", errno, strerror(errno), buf);
        *s = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return d2_raise(I, "OSError", "[Errno %d] %s: '%s'", errno, strerror(errno), buf);
    return d2_none(I);
}

static const d2_def PATH_DEFS[] = {
    D2_DEF_POS("join", "a, *p", path_join, NULL),
    D2_DEF_POS("exists", "path, /", path_exists, NULL),
    D2_DEF_POS("isfile", "path, /", path_isfile, NULL),
    D2_DEF_POS("isdir", "s, /", path_isdir, NULL),
    D2_DEF_POS("dirname", "p, /", path_dirname, NULL),
    D2_DEF_POS("basename", "p, /", path_basename, NULL),
    D2_DEF_POS("split", "p, /", path_split, NULL),
    D2_DEF_POS("splitext", "p, /", path_splitext, NULL),
    D2_DEF_POS("abspath", "path, /", path_abspath, NULL),
};

static const d2_def OS_DEFS[] = {
    D2_DEF_POS("getcwd", "", os_getcwd, NULL),
    D2_DEF("makedirs", "name, mode=511, exist_ok=False", os_makedirs, NULL),
};

int d2_std_os_init(d2_interp *I)
{
    d2_module *m = d2_std_module(I, "os");
    d2_module *op = m ? d2_std_module_defs(I, "os.path", PATH_DEFS, D2_COUNTOF(PATH_DEFS)) : NULL;
    return !op || d2_module_add_defs(I, m, OS_DEFS, D2_COUNTOF(OS_DEFS)) < 0 ||
                   d2_std_set(I, m->dict, "sep", d2_str_from(I, "/")) < 0 ||
                   d2_std_set(I, m->dict, "environ", d2_dict_new(I)) < 0
               ? -1
               : 0;
}
