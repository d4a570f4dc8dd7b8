/* fuzz_astcache.c - fuzz target for the cache of parsed sources: encoding round trips, decoding of changed files. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "syntax/arena.h"
#include "syntax/ast.h"
#include "syntax/astcache.h"

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* The input is a Python source. When it parses, its cache encoding must
 * decode to a tree that encodes to the same bytes; the same encoding with
 * some payload bytes changed (and its hash recomputed, so that the tree's
 * own checks are reached) must decode to NULL or to a tree that encodes
 * again. The input itself, taken as cache file bytes, must be rejected or
 * decode. Everything lives in arenas freed at the end. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *src = (const char *)data;
    d2_arena *a = d2_arena_new(), *b = d2_arena_new();
    if (!a || !b)
        goto out;
    (void)d2_ast_cache_decode(b, "fuzz.py", src, size, data, size);
    d2_ast_module *m = d2_ast_parse(a, "fuzz.py", src, size, NULL);
    if (!m)
        goto out;
    d2_buf enc, again;
    d2_buf_init(&enc);
    d2_buf_init(&again);
    d2_ast_cache_encode(m, src, size, &enc);
    if (enc.oom)
        goto done;
    d2_ast_module *back = d2_ast_cache_decode(b, "fuzz.py", src, size, enc.data, enc.len);
    if (!back && !d2_arena_oom(b))
        abort(); /* a valid file rejected */
    if (back) {
        d2_ast_cache_encode(back, src, size, &again);
        if (!again.oom && (again.len != enc.len || memcmp(again.data, enc.data, enc.len) != 0))
            abort(); /* the round trip changed the tree */
    }
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < size; i++)
        h = mix(h ^ data[i]);
    for (int round = 0; round < 8; round++) {
        char *bad = malloc(enc.len);
        if (!bad)
            break;
        memcpy(bad, enc.data, enc.len);
        for (int k = 0; k <= round % 3; k++) {
            h = mix(h + 1);
            bad[h % enc.len] ^= (char)(1u << (h >> 61));
        }
        d2_ast_cache_reseal(bad, enc.len);
        d2_arena *c = d2_arena_new();
        if (c) {
            d2_ast_module *t = d2_ast_cache_decode(c, "fuzz.py", src, size, bad, enc.len);
            if (t) {
                d2_buf x;
                d2_buf_init(&x);
                d2_ast_cache_encode(t, src, size, &x);
                d2_ast_print(&x, t);
                d2_buf_free(&x);
            }
            d2_arena_delete(c);
        }
        free(bad);
    }
done:
    d2_buf_free(&enc);
    d2_buf_free(&again);
out:
    d2_arena_delete(a);
    d2_arena_delete(b);
    return 0;
}
