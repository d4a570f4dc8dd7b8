/* fuzz_util.h - shared by the fuzz targets: CRC repair of saved models, checked loading and parsing. */
#ifndef DY2ST_FUZZ_UTIL_H
#define DY2ST_FUZZ_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model_io.h"
#include "program.h"

static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Recomputes, in place, every checksum of an image that has the magic and a
 * readable section table (see the format at the top of model_io.c), so that
 * mutated inputs reach the checks that stand behind the CRCs. Returns
 * whether the image was one it could fix. */
static inline bool fix_checksums(uint8_t *b, size_t size)
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

/* Loads a saved-model image; a failure must say why (else abort). */
static inline d2_program *load_model_checked(const uint8_t *image, size_t size)
{
    d2_err err = {0};
    d2_program *p = d2_model_load_mem(image, size, "fuzz.d2m", &err);
    if (!p && (err.code == D2_OK || err.msg[0] == '\0'))
        abort();
    return p;
}

/* Parses the input as Program text (up to its first NUL byte); a failure
 * must say why (else abort). NULL also when out of memory. */
static inline d2_program *parse_text_checked(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return NULL;
    memcpy(text, data, size);
    text[size] = '\0';
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, "fuzz", &err);
    free(text);
    if (!p && (err.code == D2_OK || err.msg[0] == '\0'))
        abort();
    return p;
}

#endif
