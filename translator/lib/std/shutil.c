/* shutil.c - the shutil module: copying files and trees, removing trees, moving. */
#include "lib/std/std.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Nesting bound of copytree/rmtree (deeper trees are refused, not walked). */
#define TREE_DEPTH 64

static const char *path_of(d2_interp *I, d2_obj *o, const char *fname)
{
    if (o->kind != D2_OBJ_STR) {
        d2_raise(I, "TypeError", "%s: path should be string, not %s", fname, d2_type_name(o));
        return NULL;
    }
    return D2_AS(d2_str, o)->s;
}

static bool is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Copies the bytes of file src to dst (created or truncated): 0, or -1 with the error. */
static int copy_bytes(d2_interp *I, const char *src, const char *dst)
{
    if (strcmp(src, dst) == 0) {
        /* CPython raises shutil.SameFileError, a subclass of OSError */
        d2_raise(I, "OSError", "'%s' and '%s' are the same file", src, dst);
        return -1;
    }
    int in = open(src, O_RDONLY);
    if (in < 0)
        return d2_std_raise_errno(I, errno, src, NULL), -1;
    struct stat sb;
    if (fstat(in, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        close(in);
        return d2_std_raise_errno(I, EISDIR, src, NULL), -1;
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (out < 0) {
        int e = errno;
        close(in);
        return d2_std_raise_errno(I, e, dst, NULL), -1;
    }
    char buf[65536];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0) {
                rc = -1;
                break;
            }
            off += w;
        }
        if (rc)
            break;
    }
    if (n < 0 || rc)
        d2_std_raise_errno(I, errno, n < 0 ? src : dst, NULL);
    close(in);
    if (close(out) != 0 && !rc && n >= 0) {
        d2_std_raise_errno(I, errno, dst, NULL);
        return -1;
    }
    return n < 0 || rc ? -1 : 0;
}

D2_FN(sh_copyfile) /* a[0] src, a[1] dst */
{
    const char *s = path_of(I, a[0], "copyfile()"), *d = s ? path_of(I, a[1], "copyfile()") : NULL;
    if (!d || copy_bytes(I, s, d) < 0)
        return NULL;
    return d2_incref(a[1]);
}

/* dst, or dst/basename(src) when dst is a directory: a new string. */
static d2_obj *target(d2_interp *I, d2_obj *src, d2_obj *dst)
{
    const char *s = D2_AS(d2_str, src)->s, *d = D2_AS(d2_str, dst)->s;
    if (!is_dir(d))
        return d2_incref(dst);
    const char *slash = strrchr(s, '/');
    size_t dl = strlen(d);
    return d2_str_printf(I, "%s%s%s", d, dl && d[dl - 1] == '/' ? "" : "/", slash ? slash + 1 : s);
}

D2_FN(sh_copy) /* a[0] src, a[1] dst; copy and copy2 (the mode follows) */
{
    const char *s = path_of(I, a[0], def->name);
    if (!s || !path_of(I, a[1], def->name))
        return NULL;
    d2_obj *t = target(I, a[0], a[1]);
    if (!t || copy_bytes(I, s, D2_AS(d2_str, t)->s) < 0) {
        d2_decref(t);
        return NULL;
    }
    struct stat sb;
    if (stat(s, &sb) == 0)
        chmod(D2_AS(d2_str, t)->s, sb.st_mode & 07777);
    return t;
}

static int rm_tree(d2_interp *I, const char *p, int depth)
{
    if (depth > TREE_DEPTH) {
        d2_raise(I, "OSError", "rmtree: directories nested too deeply: '%s'", p);
        return -1;
    }
    DIR *dir = opendir(p);
    if (!dir)
        return d2_std_raise_errno(I, errno, p, NULL), -1;
    struct dirent *ent;
    int rc = 0;
    while (rc == 0 && (ent = readdir(dir)) != NULL) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        d2_obj *full = d2_str_printf(I, "%s/%s", p, ent->d_name);
        if (!full) {
            rc = -1;
            break;
        }
        const char *f = D2_AS(d2_str, full)->s;
        struct stat sb;
        if (lstat(f, &sb) == 0 && S_ISDIR(sb.st_mode))
            rc = rm_tree(I, f, depth + 1);
        else if (unlink(f) != 0)
            rc = (d2_std_raise_errno(I, errno, f, NULL), -1);
        d2_decref(full);
    }
    closedir(dir);
    if (rc == 0 && rmdir(p) != 0)
        rc = (d2_std_raise_errno(I, errno, p, NULL), -1);
    return rc;
}

D2_FN(sh_rmtree) /* a[0] path, a[1] ignore_errors */
{
    const char *p = path_of(I, a[0], "rmtree()");
    if (!p)
        return NULL;
    int ignore = d2_truthy(I, a[1]);
    if (ignore < 0)
        return NULL;
    struct stat sb;
    if (!ignore && lstat(p, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return d2_std_raise_errno(I, ENOTDIR, p, NULL);
    if (rm_tree(I, p, 0) < 0) {
        if (!ignore)
            return NULL;
        d2_exc_clear(I);
    }
    return d2_none(I);
}

static int copy_tree(d2_interp *I, const char *src, const char *dst, bool exist_ok, int depth)
{
    if (depth > TREE_DEPTH) {
        d2_raise(I, "OSError", "copytree: directories nested too deeply: '%s'", src);
        return -1;
    }
    DIR *dir = opendir(src);
    if (!dir)
        return d2_std_raise_errno(I, errno, src, NULL), -1;
    if (mkdir(dst, 0777) != 0 && !(errno == EEXIST && exist_ok && is_dir(dst))) {
        int e = errno;
        closedir(dir);
        return d2_std_raise_errno(I, e, dst, NULL), -1;
    }
    struct dirent *ent;
    int rc = 0;
    while (rc == 0 && (ent = readdir(dir)) != NULL) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        d2_obj *s = d2_str_printf(I, "%s/%s", src, ent->d_name);
        d2_obj *d = s ? d2_str_printf(I, "%s/%s", dst, ent->d_name) : NULL;
        if (!d)
            rc = -1;
        else if (is_dir(D2_AS(d2_str, s)->s))
            rc = copy_tree(I, D2_AS(d2_str, s)->s, D2_AS(d2_str, d)->s, exist_ok, depth + 1);
        else
            rc = copy_bytes(I, D2_AS(d2_str, s)->s, D2_AS(d2_str, d)->s);
        d2_decref(s);
        d2_decref(d);
    }
    closedir(dir);
    return rc;
}

D2_FN(sh_copytree) /* a[0] src, a[1] dst, a[2] symlinks, a[3] ignore, a[4] copy_function,
                      a[5] ignore_dangling_symlinks, a[6] dirs_exist_ok */
{
    const char *s = path_of(I, a[0], "copytree()"), *d = s ? path_of(I, a[1], "copytree()") : NULL;
    if (!d)
        return NULL;
    if (a[3]->kind != D2_OBJ_NONE)
        return d2_raise(I, "NotImplementedError", "dy2st's shutil.copytree takes no ignore=");
    int ok = d2_truthy(I, a[6]);
    if (ok < 0 || copy_tree(I, s, d, ok, 0) < 0)
        return NULL;
    return d2_incref(a[1]);
}

D2_FN(sh_move) /* a[0] src, a[1] dst */
{
    const char *s = path_of(I, a[0], "move()");
    if (!s || !path_of(I, a[1], "move()"))
        return NULL;
    d2_obj *t = target(I, a[0], a[1]);
    if (!t)
        return NULL;
    if (rename(s, D2_AS(d2_str, t)->s) != 0) {
        d2_std_raise_errno(I, errno, s, D2_AS(d2_str, t)->s);
        d2_decref(t);
        return NULL;
    }
    return t;
}

static const d2_def SHUTIL_DEFS[] = {
    D2_FS("copyfile", "src, dst, *, follow_symlinks=True", sh_copyfile, 2, 0u),
    D2_FS("copy", "src, dst, *, follow_symlinks=True", sh_copy, 2, 0u),
    D2_FS("copy2", "src, dst, *, follow_symlinks=True", sh_copy, 2, 0u),
    D2_FS("rmtree", "path, ignore_errors=False, onerror=None", sh_rmtree, 1, 0u),
    D2_FS("copytree", "src, dst, symlinks=False, ignore=None, copy_function=None, "
           "ignore_dangling_symlinks=False, dirs_exist_ok=False", sh_copytree, 2, 0u),
    D2_FS("move", "src, dst, copy_function=None", sh_move, 2, 0u),
};

int d2_std_shutil_init(d2_interp *I)
{
    return d2_std_module_defs(I, "shutil", SHUTIL_DEFS, D2_COUNTOF(SHUTIL_DEFS)) ? 0 : -1;
}
