/* fuzz_model.c - fuzz target for the saved-model loader (d2_model_load_mem) and its writer's round trip. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

/* Loads image; a failure must say why. A loaded model saves to an image
 * that loads again and saves identically. */
static void load_one(const uint8_t *image, size_t size)
{
    d2_program *p = load_model_checked(image, size);
    if (!p)
        return;
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
