/* fuzz_npy.c - fuzz target for the .npy reader (d2_npy_parse) and its writer's round trip. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

/* Any input either fails with an error message, or gives a tensor whose
 * .npy image parses again and writes back identically. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    d2_err err = {0};
    d2_tensor *t = d2_npy_parse(data, size, "fuzz.npy", &err);
    if (!t) {
        if (err.code == D2_OK || err.msg[0] == '\0')
            abort(); /* a failure must say why */
        return 0;
    }
    d2_buf a, b;
    d2_buf_init(&a);
    d2_buf_init(&b);
    d2_err e2 = {0};
    if (d2_npy_write(&a, t, &e2) != 0)
        abort();
    d2_tensor *u = d2_npy_parse(a.data, a.len, "rewritten.npy", &e2);
    if (!u)
        abort();
    if (d2_npy_write(&b, u, &e2) != 0 || a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
        abort();
    d2_buf_free(&a);
    d2_buf_free(&b);
    d2_tensor_unref(u);
    d2_tensor_unref(t);
    return 0;
}
