/* fuzz_pickle.c - fuzz target for the restricted unpickler (d2_pickle_parse_params). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"

/* Any input either fails with an error message, or gives named contiguous
 * tensors whose sizes fit in the input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    d2_err err = {0};
    d2_pickle_params p;
    if (d2_pickle_parse_params(data, size, "fuzz.pdparams", &p, &err) != 0) {
        if (err.code == D2_OK || err.msg[0] == '\0' || p.n != 0 || p.items)
            abort(); /* a failure must say why and leave nothing */
        return 0;
    }
    for (size_t i = 0; i < p.n; i++) {
        const d2_tensor *t = p.items[i].tensor;
        if (!p.items[i].name || !t || !d2_tensor_is_contiguous(t))
            abort();
        int64_t n = d2_tensor_numel(t);
        if (n < 0 || (uint64_t)n * d2_dtype_size(t->dtype) > size)
            abort();
    }
    d2_pickle_params_free(&p);
    return 0;
}
