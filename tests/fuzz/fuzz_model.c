/* fuzz_model.c - fuzz target for the saved-model loader (d2_model_load_mem) and its writer's round trip. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model_io.h"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Recomputes, in place, every checksum of an image that has the magic and a
 * readable section table (see the format at the top of model_io.c), so that
 * mutated inputs reach the checks that stand behind the CRCs. Returns
 * whether the image was one it could fix. */
static bool fix_checksums(uint8_t *b, size_t size)
{
    if (size < 32 || !d2_model_is_saved(b, size))
        return false;
    uint32_t n = rd32(b + 12);
    if (n > 64 || 32 + 32 * (size_t)n > size)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = b + 32 + 32 * (size_t)i;
        uint64_t off = rd64(e + 8), len = rd64(e + 16);
        if (off <= size && len <= size - off)
            wr32(e + 24, d2_model_crc32(0, b + off, (size_t)len));
    }
    wr32(b + 24, 0);
    wr32(b + 24, d2_model_crc32(0, b, 32 + 32 * (size_t)n));
    return true;
}

/* Loads image; a failure must say why. A loaded model saves to an image
 * that loads again and saves identically. */
static void load_one(const uint8_t *image, size_t size)
{
    d2_err err = {0};
    d2_program *p = d2_model_load_mem(image, size, "fuzz.d2m", &err);
    if (!p) {
        if (err.code == D2_OK || err.msg[0] == '\0')
            abort();
        return;
    }
    d2_buf a, b;
    d2_buf_init(&a);
    d2_buf_init(&b);
    d2_err e2 = {0};
    if (d2_model_save_mem(p, &a, &e2) != 0)
        abort();
    d2_program *q = d2_model_load_mem(a.data, a.len, "resaved.d2m", &e2);
    if (!q)
        abort();
    if (d2_model_save_mem(q, &b, &e2) != 0 || a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
        abort();
    d2_buf_free(&a);
    d2_buf_free(&b);
    d2_program_free(q);
    d2_program_free(p);
}

/* Each input is loaded as it is, then again with its checksums repaired. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load_one(data, size);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    if (fix_checksums(copy, size) && memcmp(copy, data, size) != 0)
        load_one(copy, size);
    free(copy);
    return 0;
}
