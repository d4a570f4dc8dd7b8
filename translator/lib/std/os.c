/* os.c - the os and os.path modules: paths, files and directories, the environment; no processes. */
#include "lib/std/std.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

void d2_std_urandom(void *buf, size_t n)
{
    static unsigned counter;
    FILE *f = fopen("/dev/urandom", "rb");
    size_t got = f ? fread(buf, 1, n, f) : 0;
    if (f)
        fclose(f);
    if (got == n)
        return;
    uint64_t x = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 20 ^ ++counter;
    for (size_t i = 0; i < n; i++, x = x * 6364136223846793005u + 1442695040888963407u)
        ((unsigned char *)buf)[i] = (unsigned char)(x >> 56);
}

d2_obj *d2_std_raise_errno(d2_interp *I, int e, const char *path, const char *path2)
{
    const char *cls = e == ENOENT   ? "FileNotFoundError"
                      : e == EEXIST ? "FileExistsError"
                      : e == EACCES || e == EPERM ? "PermissionError"
                      : e == ENOTDIR ? "NotADirectoryError"
                      : e == EISDIR  ? "IsADirectoryError"
                                     : "OSError";
    if (path2)
        return d2_raise(I, cls, "[Errno %d] %s: '%s' -> '%s'", e, strerror(e), path, path2);
    return d2_raise(I, cls, "[Errno %d] %s: '%s'", e, strerror(e), path);
}

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

/* what: 0 mkdir, 1 rmdir, 2 remove/unlink */
static d2_obj *path_op(d2_interp *I, d2_obj *path, const char *fname, int what)
{
    const char *p = path_arg(I, path, fname);
    if (!p)
        return NULL;
    int rc = what == 0 ? mkdir(p, 0777) : what == 1 ? rmdir(p) : unlink(p);
    return rc == 0 ? d2_none(I) : d2_std_raise_errno(I, errno, p, NULL);
}

D2_FN(os_mkdir) { return path_op(I, a[0], "mkdir()", 0); }
D2_FN(os_rmdir) { return path_op(I, a[0], "rmdir()", 1); }
D2_FN(os_remove) { return path_op(I, a[0], "remove()", 2); }

D2_FN(os_rename) /* a[0] src, a[1] dst */
{
    const char *s = path_arg(I, a[0], "rename()"), *d = s ? path_arg(I, a[1], "rename()") : NULL;
    if (!d)
        return NULL;
    return rename(s, d) == 0 ? d2_none(I) : d2_std_raise_errno(I, errno, s, d);
}

static int name_cmp(const void *x, const void *y)
{
    return strcmp(D2_AS(d2_str, *(d2_obj *const *)x)->s, D2_AS(d2_str, *(d2_obj *const *)y)->s);
}

/* The names in directory p, sorted (CPython's order is the file system's;
 * sorting makes scripts reproducible): a new list, NULL with the error pending. */
static d2_obj *list_dir(d2_interp *I, const char *p)
{
    DIR *dir = opendir(p);
    if (!dir)
        return d2_std_raise_errno(I, errno, p, NULL);
    d2_obj *list = d2_list_new(I, 0);
    struct dirent *ent;
    while (list && (ent = readdir(dir)) != NULL) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        d2_obj *name = d2_str_from(I, ent->d_name);
        if (!name || d2_list_append(I, list, name) < 0) {
            d2_decref(list);
            list = NULL;
        }
        d2_decref(name);
    }
    closedir(dir);
    if (list && D2_AS(d2_list, list)->n > 1)
        qsort(D2_AS(d2_list, list)->items, D2_AS(d2_list, list)->n, sizeof(d2_obj *), name_cmp);
    return list;
}

D2_FN(os_listdir) /* a[0] path */
{
    const char *p = path_arg(I, a[0], "listdir()");
    return p ? list_dir(I, p) : NULL;
}

D2_FN(os_getenv) /* a[0] key, a[1] default */
{
    const char *k = path_arg(I, a[0], "getenv()");
    if (!k)
        return NULL;
    const char *v = getenv(k);
    return v ? d2_str_from(I, v) : d2_incref(a[1]);
}

D2_FN(os_no_process)
{
    return d2_raise(I, "NotImplementedError", "dy2st does not provide os.%s: build scripts cannot "
                                              "spawn processes", def->name);
}

D2_FN(path_isabs)
{
    const char *p = path_arg(I, a[0], "isabs()");
    return p ? d2_bool(I, p[0] == '/') : NULL;
}

D2_FN(path_getsize)
{
    const char *p = path_arg(I, a[0], "getsize()");
    if (!p)
        return NULL;
    struct stat sb;
    if (stat(p, &sb) != 0)
        return d2_std_raise_errno(I, errno, p, NULL);
    return d2_int_new(I, (int64_t)sb.st_size);
}

/* posixpath.normpath: collapses separators, "." and "a/.." */
static d2_obj *norm_path(d2_interp *I, const char *p)
{
    if (!*p)
        return d2_str_from(I, ".");
    size_t len = strlen(p);
    int lead = p[0] == '/' ? (p[1] == '/' && p[2] != '/' ? 2 : 1) : 0;
    const char **parts = d2_malloc((len / 2 + 2) * sizeof *parts);
    size_t *lens = d2_malloc((len / 2 + 2) * sizeof *lens);
    if (!parts || !lens) {
        d2_free(parts);
        d2_free(lens);
        return d2_raise(I, "MemoryError", "out of memory");
    }
    size_t n = 0;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == 0 || (l == 1 && s[0] == '.')) {
        } else if (l == 2 && s[0] == '.' && s[1] == '.' &&
                   (n ? !(lens[n - 1] == 2 && parts[n - 1][0] == '.' && parts[n - 1][1] == '.')
                      : lead)) {
            if (n)
                n--;
        } else {
            parts[n] = s;
            lens[n++] = l;
        }
        s += l;
        if (*s)
            s++;
    }
    d2_buf b;
    d2_buf_init(&b);
    for (int i = 0; i < lead; i++)
        d2_buf_puts(&b, "/");
    for (size_t i = 0; i < n; i++) {
        if (i)
            d2_buf_puts(&b, "/");
        d2_buf_append(&b, parts[i], lens[i]);
    }
    d2_free(parts);
    d2_free(lens);
    d2_obj *r = b.len ? d2_str_new(I, b.data, b.len) : d2_str_from(I, ".");
    d2_buf_free(&b);
    return r;
}

D2_FN(path_normpath)
{
    const char *p = path_arg(I, a[0], "normpath()");
    return p ? norm_path(I, p) : NULL;
}

/* normpath(abspath(p)), a new string */
static d2_obj *abs_norm(d2_interp *I, const char *p)
{
    if (p[0] == '/')
        return norm_path(I, p);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return d2_raise(I, "OSError", "getcwd failed");
    d2_obj *full = d2_str_printf(I, "%s/%s", cwd, p);
    d2_obj *r = full ? norm_path(I, D2_AS(d2_str, full)->s) : NULL;
    d2_decref(full);
    return r;
}

D2_FN(path_relpath) /* a[0] path, a[1] start */
{
    const char *p = path_arg(I, a[0], "relpath()");
    const char *st = p ? (a[1]->kind == D2_OBJ_NONE ? "." : path_arg(I, a[1], "relpath()")) : NULL;
    if (!st)
        return NULL;
    if (!*p)
        return d2_raise(I, "ValueError", "no path specified");
    d2_obj *x = abs_norm(I, p), *y = x ? abs_norm(I, st) : NULL;
    if (!y) {
        d2_decref(x);
        return NULL;
    }
    const char *xs = D2_AS(d2_str, x)->s, *ys = D2_AS(d2_str, y)->s;
    /* the common leading components */
    size_t common = 0, i = 0;
    for (;; i++) {
        bool xe = xs[i] == 0 || xs[i] == '/', ye = ys[i] == 0 || ys[i] == '/';
        if (xe && ye)
            common = i;
        if (xs[i] != ys[i] || !xs[i])
            break;
    }
    d2_buf b;
    d2_buf_init(&b);
    for (const char *s = ys + common; *s; s++)
        if (*s == '/' && s[1])
            d2_buf_puts(&b, b.len ? "/.." : "..");
    const char *rest = xs + common;
    while (*rest == '/')
        rest++;
    if (*rest) {
        if (b.len)
            d2_buf_puts(&b, "/");
        d2_buf_puts(&b, rest);
    }
    d2_obj *r = b.len ? d2_str_new(I, b.data, b.len) : d2_str_from(I, ".");
    d2_buf_free(&b);
    d2_decref(x);
    d2_decref(y);
    return r;
}

D2_FN(path_expanduser)
{
    const char *p = path_arg(I, a[0], "expanduser()");
    if (!p)
        return NULL;
    const char *home = getenv("HOME");
    if (p[0] != '~' || (p[1] && p[1] != '/') || !home)
        return d2_incref(a[0]);
    return d2_str_printf(I, "%s%s", home, p + 1);
}

/* os.walk(top): the (dirpath, dirnames, filenames) triples, top-down, as a list. */
static int walk(d2_interp *I, const char *top, d2_obj *out, int depth)
{
    if (depth > 64)
        return d2_raise(I, "RecursionError", "os.walk: directories nested too deeply"), -1;
    d2_obj *names = list_dir(I, top);
    if (!names) { /* CPython's onerror=None ignores unreadable directories */
        d2_exc_clear(I);
        return 0;
    }
    d2_obj *dirs = d2_list_new(I, 0), *files = d2_list_new(I, 0);
    d2_obj *dp = d2_str_from(I, top);
    d2_list *l = D2_AS(d2_list, names);
    int rc = dirs && files && dp ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < l->n; i++) {
        d2_obj *full = d2_str_printf(I, "%s%s%s", top, top[strlen(top) - 1] == '/' ? "" : "/",
                                     D2_AS(d2_str, l->items[i])->s);
        struct stat sb;
        bool isdir = full && stat(D2_AS(d2_str, full)->s, &sb) == 0 && S_ISDIR(sb.st_mode);
        rc = full ? d2_list_append(I, isdir ? dirs : files, l->items[i]) : -1;
        d2_decref(full);
    }
    d2_obj *t = rc == 0 ? d2_tuple_pack(I, 3, dp, dirs, files) : NULL;
    rc = t ? d2_list_append(I, out, t) : -1;
    d2_decref(t);
    l = rc == 0 ? D2_AS(d2_list, dirs) : NULL;
    for (size_t i = 0; l && rc == 0 && i < l->n; i++) {
        d2_obj *full = d2_str_printf(I, "%s%s%s", top, top[strlen(top) - 1] == '/' ? "" : "/",
                                     D2_AS(d2_str, l->items[i])->s);
        rc = full ? walk(I, D2_AS(d2_str, full)->s, out, depth + 1) : -1;
        d2_decref(full);
    }
    d2_decref(names);
    d2_decref(dirs);
    d2_decref(files);
    d2_decref(dp);
    return rc;
}

D2_FN(os_walk)
{
    const char *p = path_arg(I, a[0], "walk()");
    if (!p)
        return NULL;
    d2_obj *out = d2_list_new(I, 0);
    if (out && walk(I, *p ? p : ".", out, 0) < 0) {
        d2_decref(out);
        return NULL;
    }
    return out;
}

d2_obj *d2_std_fs_call(d2_interp *I, d2_obj *self, d2_obj **a, const d2_def *def)
{
    const d2_std_fs_row *r = def->data;
    d2_obj *orig[2] = {NULL, NULL}, *held[2] = {NULL, NULL};
    d2_obj *res = NULL;
    int i;
    for (i = 0; i < r->npath && i < 2; i++) {
        if (!a[i] || a[i]->kind != D2_OBJ_INSTANCE)
            continue;
        d2_obj *f = d2_getattr_opt(I, a[i], "__fspath__");
        if (!f) {
            if (d2_exc_pending(I))
                goto out;
            continue;
        }
        held[i] = d2_call(I, f, NULL, 0, NULL);
        d2_decref(f);
        if (!held[i])
            goto out;
        if (held[i]->kind != D2_OBJ_STR) {
            d2_raise(I, "TypeError", "expected %s.__fspath__() to return str, not %s",
                     d2_type_name(a[i]), d2_type_name(held[i]));
            goto out;
        }
        orig[i] = a[i];
        a[i] = held[i];
    }
    res = r->fn(I, self, a, def);
out:
    for (int k = 0; k < 2; k++) {
        if (orig[k])
            a[k] = orig[k];
        d2_decref(held[k]);
    }
    return res;
}

static const d2_def PATH_DEFS[] = {
    D2_FS("join", "a, *p", path_join, 1, D2_DEF_ARGC),
    D2_FS("exists", "path, /", path_exists, 1, D2_DEF_ARGC),
    D2_FS("isfile", "path, /", path_isfile, 1, D2_DEF_ARGC),
    D2_FS("isdir", "s, /", path_isdir, 1, D2_DEF_ARGC),
    D2_FS("dirname", "p, /", path_dirname, 1, D2_DEF_ARGC),
    D2_FS("basename", "p, /", path_basename, 1, D2_DEF_ARGC),
    D2_FS("split", "p, /", path_split, 1, D2_DEF_ARGC),
    D2_FS("splitext", "p, /", path_splitext, 1, D2_DEF_ARGC),
    D2_FS("abspath", "path, /", path_abspath, 1, D2_DEF_ARGC),
    D2_FS("isabs", "s, /", path_isabs, 1, D2_DEF_ARGC),
    D2_FS("getsize", "filename, /", path_getsize, 1, D2_DEF_ARGC),
    D2_FS("normpath", "path, /", path_normpath, 1, D2_DEF_ARGC),
    D2_FS("expanduser", "path, /", path_expanduser, 1, D2_DEF_ARGC),
    D2_FS("relpath", "path, start=None", path_relpath, 2, 0u),
};

static const d2_def OS_DEFS[] = {
    D2_DEF_POS("getcwd", "", os_getcwd, NULL),
    D2_FS("makedirs", "name, mode=511, exist_ok=False", os_makedirs, 1, 0u),
    D2_FS("mkdir", "path, mode=511", os_mkdir, 1, 0u),
    D2_FS("rmdir", "path", os_rmdir, 1, 0u),
    D2_FS("remove", "path", os_remove, 1, 0u),
    D2_FS("unlink", "path", os_remove, 1, 0u),
    D2_FS("rename", "src, dst", os_rename, 2, 0u),
    D2_FS("replace", "src, dst", os_rename, 2, 0u),
    D2_FS("listdir", "path='.'", os_listdir, 1, 0u),
    D2_FS("walk", "top", os_walk, 1, 0u),
    D2_DEF("getenv", "key, default=None", os_getenv, NULL),
    D2_DEF("system", "*args, **kwargs", os_no_process, NULL),
    D2_DEF("popen", "*args, **kwargs", os_no_process, NULL),
};

/* os.environ: a dict of the process environment at start. */
static d2_obj *environ_dict(d2_interp *I)
{
    d2_obj *d = d2_dict_new(I);
    for (char **e = environ; d && e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        d2_obj *k = d2_str_new(I, *e, (size_t)(eq - *e)), *v = d2_str_from(I, eq + 1);
        int rc = k && v ? d2_dict_set(I, D2_AS(d2_dict, d), k, v) : -1;
        d2_decref(k);
        d2_decref(v);
        if (rc < 0) {
            d2_decref(d);
            return NULL;
        }
    }
    return d;
}

int d2_std_os_init(d2_interp *I)
{
    d2_module *m = d2_std_module(I, "os");
    d2_module *op = m ? d2_std_module_defs(I, "os.path", PATH_DEFS, D2_COUNTOF(PATH_DEFS)) : NULL;
    return !op || d2_module_add_defs(I, m, OS_DEFS, D2_COUNTOF(OS_DEFS)) < 0 ||
                   d2_std_set(I, m->dict, "sep", d2_str_from(I, "/")) < 0 ||
                   d2_std_set(I, m->dict, "environ", environ_dict(I)) < 0 ||
                   d2_std_set(I, m->dict, "name", d2_str_from(I, "posix")) < 0 ||
                   d2_std_set(I, m->dict, "linesep", d2_str_from(I, "\n")) < 0 ||
                   d2_std_set(I, m->dict, "curdir", d2_str_from(I, ".")) < 0 ||
                   d2_std_set(I, m->dict, "pardir", d2_str_from(I, "..")) < 0 ||
                   d2_std_set(I, m->dict, "pathsep", d2_str_from(I, ":")) < 0 ||
                   d2_std_set(I, op->dict, "sep", d2_str_from(I, "/")) < 0 ||
                   d2_module_add_absent(I, "subprocess",
                                        "build scripts cannot spawn processes") < 0
               ? -1
               : 0;
}
