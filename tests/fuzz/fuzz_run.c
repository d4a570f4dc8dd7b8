/* fuzz_run.c - fuzz target that loads saved models and text-form Programs and runs them on small inputs. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "fuzz_util.h"

/* Each tensor made while fuzzing stays far below libFuzzer's malloc limit:
 * a larger one must fail as a clean error like any other. */
#define RUN_MAX_BYTES ((size_t)1 << 24)
/* Inputs larger than this are not made (the run would only be slow). */
#define INPUT_MAX_ELEMS 4096

/* A small input for feed v: dynamic dims become 2, values small and varied
 * (seeded by the input's bytes). NULL when the feed is too large to make. */
static d2_tensor *make_input(const d2_var *v, uint32_t seed)
{
    if (v->type.kind != D2_VALUE_TENSOR || !d2_dtype_supported(v->type.dtype))
        return NULL;
    int64_t shape[D2_MAX_DIMS], n = 1;
    for (int i = 0; i < v->type.shape.ndim; i++) {
        shape[i] = v->type.shape.dims[i] < 0 ? 2 : v->type.shape.dims[i];
        if (!d2_mul_i64(n, shape[i], &n) || n > INPUT_MAX_ELEMS)
            return NULL;
    }
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, v->type.dtype, v->type.shape.ndim, shape, &err);
    if (!t)
        return NULL;
    /* int64 inputs are often shapes: now and then a huge or negative one */
    static const int64_t wild[] = {INT64_C(4294967296), INT64_C(4611686018427387968), -5,
                                   INT64_MAX};
    void *p = d2_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        uint32_t h = seed + (uint32_t)i * 2654435761u;
        int64_t k = (int64_t)(h % 7) - 3; /* -3..3 */
        if (t->dtype == D2_I64 && (h >> 8) % 4 == 0)
            k = wild[(h >> 12) % D2_COUNTOF(wild)];
        switch (t->dtype) {
        case D2_F32: ((float *)p)[i] = (float)k * 0.5f; break;
        case D2_F64: ((double *)p)[i] = (double)k * 0.5; break;
        case D2_I32: ((int32_t *)p)[i] = (int32_t)k; break;
        case D2_I64: ((int64_t *)p)[i] = k; break;
        case D2_BOOL: ((uint8_t *)p)[i] = k > 0; break;
        default: break;
        }
    }
    return t;
}

/* Runs a verified Program once under a short deadline and a byte cap (an
 * endless while_loop must stop with a limit error): either it fails with a
 * message, or it gives one tensor per yield of block 0. */
static void run_program(const d2_program *p, uint32_t seed)
{
    if (p->n_blocks < 1)
        return;
    const d2_block *b0 = &p->blocks[0];
    int ni = b0->n_params, no = b0->n_yields;
    d2_tensor **in = calloc((size_t)ni + 1, sizeof *in);
    d2_tensor **out = calloc((size_t)no + 1, sizeof *out);
    bool ok = in && out;
    for (int i = 0; ok && i < ni; i++)
        ok = (in[i] = make_input(&p->vars[b0->params[i]], seed + (uint32_t)i)) != NULL;
    d2_err err = {0};
    d2_prepared *pp = ok ? d2_exec_prepare(p, NULL, &err) : NULL;
    if (ok && !pp && err.msg[0] == '\0')
        abort();
    if (pp) {
        d2_run_limits lim = {0};
        lim.timeout_s = 0.05;
        lim.deadline = d2_monotonic_s() + lim.timeout_s;
        lim.max_bytes = 4 * RUN_MAX_BYTES;
        if (d2_exec_run_limited(pp, &lim, in, ni, out, no, &err) != 0) {
            if (err.msg[0] == '\0')
                abort();
            for (int i = 0; i < no; i++)
                if (out[i])
                    abort(); /* a failed run leaves no outputs */
        } else {
            for (int i = 0; i < no; i++)
                if (!out[i])
                    abort();
        }
        d2_exec_free(pp);
    }
    for (int i = 0; out && i < no; i++)
        d2_tensor_unref(out[i]);
    for (int i = 0; in && i < ni; i++)
        d2_tensor_unref(in[i]);
    free(in);
    free(out);
}

static void load_and_run_model(const uint8_t *image, size_t size, uint32_t seed)
{
    d2_program *p = load_model_checked(image, size);
    if (!p)
        return;
    run_program(p, seed);
    d2_program_free(p);
}

/* A saved model is run as it is and with its checksums repaired; anything
 * else is taken as a text-form Program (up to its first NUL byte), run when
 * it parses and verifies. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    d2_tensor_set_max_bytes(RUN_MAX_BYTES);
    uint32_t seed = d2_model_crc32(0, data, size);
    if (d2_model_is_saved(data, size)) {
        load_and_run_model(data, size, seed);
        uint8_t *copy = malloc(size ? size : 1);
        if (!copy)
            return 0;
        memcpy(copy, data, size);
        if (fix_checksums(copy, size) && memcmp(copy, data, size) != 0)
            load_and_run_model(copy, size, seed);
        free(copy);
        return 0;
    }
    d2_program *p = parse_text_checked(data, size);
    if (!p)
        return 0;
    d2_err verr = {0};
    if (d2_program_verify(p, &verr) == 0)
        run_program(p, seed);
    else if (verr.msg[0] == '\0')
        abort();
    d2_program_free(p);
    return 0;
}
