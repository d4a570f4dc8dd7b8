/* test_astcache.c - the cache of parsed modules: exact round trips, and invalid files ignored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syntax/arena.h"
#include "syntax/ast.h"
#include "syntax/astcache.h"
#include "../testutil.h"

static char *dump(const void *m)
{
    d2_buf b;
    d2_buf_init(&b);
    d2_ast_print(&b, m);
    assert_false(b.oom);
    return d2_buf_take(&b);
}

/* The cache encoding of src parsed fresh (malloc'd, *n bytes). */
static char *encode_fresh(const char *name, const char *src, size_t len, size_t *n)
{
    d2_arena *a = d2_arena_new();
    d2_ast_module *m = d2_ast_parse(a, name, src, len, NULL);
    assert_non_null(m);
    d2_buf b;
    d2_buf_init(&b);
    d2_ast_cache_encode(m, src, len, &b);
    assert_false(b.oom);
    d2_arena_delete(a);
    *n = b.len;
    return d2_buf_take(&b);
}

/* Decoding the encoding of every Python file in dir gives the same tree:
 * the same dump and, re-encoded, the same bytes (spans' offsets included). */
static int roundtrip_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (nl < 4 || strcmp(e->d_name + nl - 3, ".py") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *src = tu_read_file(path, &len);
        assert_non_null(src);
        d2_arena *a = d2_arena_new();
        d2_ast_module *m = d2_ast_parse(a, path, src, len, NULL);
        if (m) {
            d2_buf enc;
            d2_buf_init(&enc);
            d2_ast_cache_encode(m, src, len, &enc);
            assert_false(enc.oom);
            d2_arena *b = d2_arena_new();
            d2_ast_module *back = d2_ast_cache_decode(b, path, src, len, enc.data, enc.len);
            if (!back)
                fail_msg("%s: its cache encoding does not decode", path);
            char *d1 = dump(m), *d2 = dump(back);
            if (strcmp(d1, d2) != 0) {
                tu_show_diff(path, d2, d1);
                fail_msg("%s: the decoded tree differs", path);
            }
            d2_buf enc2;
            d2_buf_init(&enc2);
            d2_ast_cache_encode(back, src, len, &enc2);
            assert_int_equal(enc2.len, enc.len);
            assert_memory_equal(enc2.data, enc.data, enc.len);
            assert_string_equal(back->filename, path);
            assert_int_equal(back->source_len, m->source_len);
            assert_memory_equal(back->source, m->source, m->source_len);
            free(d1);
            free(d2);
            d2_buf_free(&enc);
            d2_buf_free(&enc2);
            d2_arena_delete(b);
            count++;
        }
        d2_arena_delete(a);
        free(src);
    }
    closedir(d);
    return count;
}

static void test_roundtrip_sources(void **state)
{
    (void)state;
    int n = roundtrip_dir(D2_SRCDIR "/samples") + roundtrip_dir(D2_SRCDIR "/tests/py_paddle") +
            roundtrip_dir(D2_SRCDIR "/tests/py") + roundtrip_dir(D2_SRCDIR "/tests/py_static") +
            roundtrip_dir(D2_SRCDIR "/tests/py_static_api") +
            roundtrip_dir(D2_SRCDIR "/tests/trace") + roundtrip_dir(D2_SRCDIR "/bench/eager");
    assert_true(n > 150);
}

/* ---- the files ---- */

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* Parses src through the cache file at cpath; checks the result says `want`
 * and equals a fresh parse of src exactly. */
static void load(const char *cpath, const char *src, d2_ast_cache_result want)
{
    d2_arena *a = d2_arena_new();
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_cache_result how;
    d2_ast_module *m = d2_ast_parse_cached(a, "m.py", src, strlen(src), &diag, cpath, &how);
    assert_non_null(m);
    assert_int_equal(how, want);
    assert_int_equal(diag.count, 0);
    size_t n1;
    char *fresh = encode_fresh("m.py", src, strlen(src), &n1);
    d2_buf b;
    d2_buf_init(&b);
    d2_ast_cache_encode(m, src, strlen(src), &b);
    assert_int_equal(b.len, n1);
    assert_memory_equal(b.data, fresh, n1);
    assert_string_equal(m->filename, "m.py");
    d2_buf_free(&b);
    free(fresh);
    d2_arena_delete(a);
}

static const char SRC_A[] =
    "import paddle\n"
    "class Net(paddle.nn.Layer):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = paddle.nn.Linear(4, 2)\n"
    "    @paddle.jit.to_static\n"
    "    def forward(self, x):\n"
    "        if x.mean() > 0 and not x.shape[0] in (1, 2):\n"
    "            y = self.fc(x) * 2.5 + 1j\n"
    "        else:\n"
    "            y = [v for v in x if v is not None][0]\n"
    "        return {'y': y, **{}}, f'{x!r:>{3}}', b'\\x00z', 123456789012345678901234567890\n";
/* the same length, one character changed */
static const char SRC_B[] =
    "import paddle\n"
    "class Net(paddle.nn.Layer):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = paddle.nn.Linear(4, 3)\n"
    "    @paddle.jit.to_static\n"
    "    def forward(self, x):\n"
    "        if x.mean() > 0 and not x.shape[0] in (1, 2):\n"
    "            y = self.fc(x) * 2.5 + 1j\n"
    "        else:\n"
    "            y = [v for v in x if v is not None][0]\n"
    "        return {'y': y, **{}}, f'{x!r:>{3}}', b'\\x00z', 123456789012345678901234567890\n";

static void test_cache_files(void **state)
{
    (void)state;
    char old[4096];
    tu_enter_scratch("astcache", old, sizeof old);
    assert_null(d2_ast_cache_path("m.py", NULL)); /* no such file */
    assert_null(d2_ast_cache_path("<dy2st program>", NULL));
    /* the library's modules written in Python: the given directory, else the user's */
    char *lp = d2_ast_cache_path("<dy2st>/paddle.optimizer.py", "cdir");
    assert_true(strncmp(lp, "cdir/paddle.optimizer.py-", 25) == 0);
    free(lp);
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    setenv("HOME", "/h", 1);
    unsetenv("XDG_CACHE_HOME");
    lp = d2_ast_cache_path("<dy2st>/paddle.optimizer.py", NULL);
    assert_true(strncmp(lp, "/h/.cache/dy2st/paddle.optimizer.py-", 36) == 0);
    free(lp);
    setenv("XDG_CACHE_HOME", "/x", 1);
    lp = d2_ast_cache_path("<dy2st>/paddle.optimizer.py", NULL);
    assert_true(strncmp(lp, "/x/dy2st/paddle.optimizer.py-", 29) == 0);
    free(lp);
    if (home)
        setenv("HOME", home, 1);
    if (xdg)
        setenv("XDG_CACHE_HOME", xdg, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    free(home);
    free(xdg);
    write_file("m.py", SRC_A, strlen(SRC_A));
    write_file("w.py", "", 0);
    write_file("d.py", "", 0);
    char *cpath = d2_ast_cache_path("m.py", NULL);
    assert_string_equal(cpath, "__dy2st_cache__/m.py.ast");

    load(cpath, SRC_A, D2_AST_CACHE_WRITTEN);
    load(cpath, SRC_A, D2_AST_CACHE_HIT);
    size_t n;
    char *good = tu_read_file(cpath, &n);
    assert_non_null(good);
    assert_true(n > 100);

    /* a flipped byte anywhere: header (magic, version, lengths, hashes) or tree */
    size_t at[] = {0, 8, 12, 20, 30, 40, n / 2, n - 1};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        char *bad = malloc(n);
        memcpy(bad, good, n);
        bad[at[i]] ^= 0x41;
        write_file(cpath, bad, n);
        load(cpath, SRC_A, D2_AST_CACHE_REJECTED);
        load(cpath, SRC_A, D2_AST_CACHE_HIT); /* rebuilt */
        free(bad);
    }
    /* truncated, empty, extended */
    size_t cut[] = {0, 5, 8, 40, n / 2, n - 1};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        write_file(cpath, good, cut[i]);
        load(cpath, SRC_A, D2_AST_CACHE_REJECTED);
        load(cpath, SRC_A, D2_AST_CACHE_HIT);
    }
    char *longer = malloc(n + 3);
    memcpy(longer, good, n);
    memcpy(longer + n, "xyz", 3);
    write_file(cpath, longer, n + 3);
    load(cpath, SRC_A, D2_AST_CACHE_REJECTED);
    free(longer);
    /* stale: the source changed (same length), then back */
    load(cpath, SRC_B, D2_AST_CACHE_REJECTED);
    load(cpath, SRC_B, D2_AST_CACHE_HIT);
    load(cpath, SRC_A, D2_AST_CACHE_REJECTED);
    load(cpath, SRC_A, D2_AST_CACHE_HIT);
    /* another format version */
    char *ver = malloc(n);
    memcpy(ver, good, n);
    ver[8] = (char)(ver[8] + 1);
    write_file(cpath, ver, n);
    load(cpath, SRC_A, D2_AST_CACHE_REJECTED);
    free(ver);
    /* another source's valid file in its place */
    size_t nb;
    char *other = encode_fresh("m.py", SRC_B, strlen(SRC_B), &nb);
    write_file(cpath, other, nb);
    load(cpath, SRC_A, D2_AST_CACHE_REJECTED);
    free(other);

    /* nothing is cached for a source with an error or a warning; the
     * warning is reported on every load */
    char *wpath = d2_ast_cache_path("w.py", NULL);
    for (int round = 0; round < 2; round++) {
        d2_arena *a = d2_arena_new();
        d2_diag diag;
        d2_diag_init(&diag, a);
        d2_ast_cache_result how;
        const char *w = "s = '\\d'\n";
        assert_non_null(d2_ast_parse_cached(a, "w.py", w, strlen(w), &diag, wpath, &how));
        assert_int_equal(how, D2_AST_CACHE_OFF);
        assert_int_equal(diag.nwarnings, 1);
        const char *e = "x = (\n";
        assert_null(d2_ast_parse_cached(a, "w.py", e, strlen(e), &diag, wpath, &how));
        assert_int_equal(how, D2_AST_CACHE_OFF);
        assert_int_equal(diag.nerrors, 1);
        d2_arena_delete(a);
    }
    struct stat st;
    assert_int_not_equal(stat(wpath, &st), 0);
    free(wpath);

    /* a directory where the file should be: parsed, nothing written */
    char *dpath = d2_ast_cache_path("d.py", NULL);
    assert_int_equal(mkdir(dpath, 0777), 0);
    load(dpath, SRC_A, D2_AST_CACHE_UNWRITABLE);
    assert_int_equal(rmdir(dpath), 0);
    free(dpath);

    /* one directory for every source: named by base name and path */
    assert_int_equal(mkdir("x", 0777), 0);
    assert_int_equal(mkdir("y", 0777), 0);
    write_file("x/m.py", SRC_A, strlen(SRC_A));
    write_file("y/m.py", SRC_B, strlen(SRC_B));
    char *p1 = d2_ast_cache_path("x/m.py", "cdir"), *p2 = d2_ast_cache_path("y/m.py", "cdir");
    assert_true(strncmp(p1, "cdir/m.py-", 10) == 0);
    assert_string_not_equal(p1, p2);
    assert_int_equal(mkdir("cdir", 0777), 0);
    load(p1, SRC_A, D2_AST_CACHE_WRITTEN);
    load(p2, SRC_B, D2_AST_CACHE_WRITTEN);
    load(p1, SRC_A, D2_AST_CACHE_HIT);
    load(p2, SRC_B, D2_AST_CACHE_HIT);
    /* missing parent directories are made */
    load("nest/ed/m.py.ast", SRC_A, D2_AST_CACHE_WRITTEN);
    load("nest/ed/m.py.ast", SRC_A, D2_AST_CACHE_HIT);
    /* no temporary files are left behind */
    DIR *d = opendir("cdir");
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            files++;
    closedir(d);
    assert_int_equal(files, 2);
    free(p1);
    free(p2);

    free(good);
    free(cpath);
    tu_leave_scratch(old);
}

/* ---- decoding never trusts its bytes ---- */

static uint64_t fnv(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* With the payload's hash made to match again, every change of a payload
 * byte reaches the structural checks: each decodes to NULL or to a tree
 * that encodes again (AddressSanitizer watches the reads). */
static void test_decode_never_trusts(void **state)
{
    (void)state;
    const char *src = SRC_A;
    size_t n;
    char *good = encode_fresh("m.py", src, strlen(src), &n);
    size_t hdr = 8 + 4 + 8 + 4 + strlen(PACKAGE_VERSION) + 8 + 8 + 8 + 8;
    assert_true(n > hdr);
    static const unsigned char flips[] = {0x01, 0x80, 0xFF, 0x7F};
    int rejected = 0, accepted = 0;
    char *bad = malloc(n);
    for (size_t i = hdr; i < n; i++) {
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(bad, good, n);
            bad[i] ^= (char)flips[f];
            uint64_t h = fnv(bad + hdr, n - hdr);
            for (int k = 0; k < 8; k++)
                bad[hdr - 8 + k] = (char)(h >> (8 * k));
            d2_arena *a = d2_arena_new();
            d2_ast_module *m = d2_ast_cache_decode(a, "m.py", src, strlen(src), bad, n);
            if (m) {
                d2_buf b;
                d2_buf_init(&b);
                d2_ast_cache_encode(m, src, strlen(src), &b);
                assert_false(b.oom);
                d2_buf_free(&b);
                accepted++;
            } else {
                rejected++;
            }
            d2_arena_delete(a);
        }
    }
    free(bad);
    /* most changes break the structure; some (a name's letter, a number) do not */
    assert_true(rejected > accepted);
    assert_true(accepted > 0);
    /* any prefix of a valid file */
    for (size_t k = 0; k < n; k++) {
        d2_arena *a = d2_arena_new();
        assert_null(d2_ast_cache_decode(a, "m.py", src, strlen(src), good, k));
        d2_arena_delete(a);
    }
    free(good);
}

/* A script gives the same output with the cache off, on and cold, and on
 * and warm. */
static void test_interp_same_results(void **state)
{
    (void)state;
    char old[4096];
    tu_enter_scratch("astcache-run", old, sizeof old);
    size_t len;
    char *src = tu_load_file(D2_SRCDIR "/tests/py_paddle/autograd_train.py", &len);
    char *want = tu_load_file(D2_SRCDIR "/tests/py_paddle/autograd_train.out", NULL);
    write_file("autograd_train.py", src, len);
    d2_interp_options opt = {0};
    char *out[3];
    for (int i = 0; i < 3; i++) {
        opt.ast_cache = i > 0;
        int rc;
        out[i] = tu_run_source(&opt, "autograd_train.py", src, false, &rc);
        assert_int_equal(rc, 0);
        struct stat st;
        assert_int_equal(stat("__dy2st_cache__/autograd_train.py.ast", &st) == 0, i > 0);
    }
    for (int i = 0; i < 3; i++) {
        if (strcmp(out[i], want) != 0)
            tu_show_diff("autograd_train", out[i], want);
        assert_string_equal(out[i], want);
        free(out[i]);
    }
    free(src);
    free(want);
    tu_leave_scratch(old);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_sources),
        cmocka_unit_test(test_cache_files),
        cmocka_unit_test(test_decode_never_trusts),
        cmocka_unit_test(test_interp_same_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
