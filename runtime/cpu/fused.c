/* fused.c - CPU kernel of fused_elementwise: its postfix program evaluated over blocks of
 * elements that stay in L1, one read of each input and one write of the output per element. */
#include "../fused_expr.h"
#include "vecmath.h"

#include <string.h>
#include <tgmath.h>

/* Elements per block: the stack's buffers (D2_FX_MAX_DEPTH of them) stay in L1. */
#define FX_B 256

/* An input the kernel reads periodically: element i of the result reads data[i % n] (n == the
 * result's size: read as is; n == 1: one value; otherwise a "bias" shaped as the result's
 * trailing dims). */
typedef struct fx_src {
    const void *data;
    int64_t n;
} fx_src;

/* One evaluator per float type. The expressions are the registry kernels' (cpu/math.c), in
 * the same type and order, so the fused result equals the unfused one bit for bit. */
#define FX_EVAL(NAME, T, GELU, GELU_TANH, SIGMOID, TANH)                                           \
    D2_SIMD static void NAME(const d2_fx_prog *p, const fx_src *src, T *out, int64_t n)            \
    {                                                                                              \
        T buf[D2_FX_MAX_DEPTH][FX_B];                                                              \
        const T *stk[D2_FX_MAX_DEPTH];                                                             \
        for (int64_t base = 0; base < n; base += FX_B) {                                           \
            int len = n - base < FX_B ? (int)(n - base) : FX_B, sp = 0;                            \
            for (int pc = 0; pc < p->n; pc++) {                                                    \
                const d2_fx_ins *in = &p->ins[pc];                                                 \
                if (in->code == D2_FX_IN) {                                                        \
                    const fx_src *s = &src[in->arg];                                               \
                    const T *x = s->data;                                                          \
                    int64_t off = s->n == n ? base : base % s->n;                                  \
                    if (off + len <= s->n) {                                                       \
                        stk[sp] = x + off;                                                         \
                    } else {                                                                       \
                        T *d = buf[sp];                                                            \
                        for (int j = 0; j < len; j++) {                                            \
                            d[j] = x[off];                                                         \
                            if (++off == s->n)                                                     \
                                off = 0;                                                           \
                        }                                                                          \
                        stk[sp] = d;                                                               \
                    }                                                                              \
                    sp++;                                                                          \
                    continue;                                                                      \
                }                                                                                  \
                if (in->code == D2_FX_CONST) {                                                     \
                    T c = (T)in->c, *d = buf[sp];                                                  \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = c;                                                                  \
                    stk[sp++] = d;                                                                 \
                    continue;                                                                      \
                }                                                                                  \
                bool bin = d2_fx_binary(in->code);                                                 \
                int at = sp - (bin ? 2 : 1);                                                       \
                const T *a = stk[at], *b = bin ? stk[at + 1] : NULL;                               \
                T *d = pc == p->n - 1 ? out + base : buf[at];                                      \
                switch (in->code) {                                                                \
                case D2_FX_ADD:                                                                    \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = a[j] + b[j];                                                        \
                    break;                                                                         \
                case D2_FX_SUB:                                                                    \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = a[j] - b[j];                                                        \
                    break;                                                                         \
                case D2_FX_MUL:                                                                    \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = a[j] * b[j];                                                        \
                    break;                                                                         \
                case D2_FX_DIV:                                                                    \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = a[j] / b[j];                                                        \
                    break;                                                                         \
                case D2_FX_RELU:                                                                   \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = a[j] < 0 ? 0 : a[j];                                                \
                    break;                                                                         \
                case D2_FX_SIGMOID:                                                                \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = SIGMOID(a[j]);                                                      \
                    break;                                                                         \
                case D2_FX_TANH:                                                                   \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = TANH(a[j]);                                                         \
                    break;                                                                         \
                case D2_FX_SILU:                                                                   \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = a[j] / (1 + exp(-a[j]));                                            \
                    break;                                                                         \
                case D2_FX_GELU:                                                                   \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = GELU(a[j]);                                                         \
                    break;                                                                         \
                case D2_FX_GELU_TANH:                                                              \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = GELU_TANH(a[j]);                                                    \
                    break;                                                                         \
                case D2_FX_NEG:                                                                    \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = -a[j];                                                              \
                    break;                                                                         \
                case D2_FX_EXP:                                                                    \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = exp(a[j]);                                                          \
                    break;                                                                         \
                case D2_FX_SQUARE:                                                                 \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = a[j] * a[j];                                                        \
                    break;                                                                         \
                default: /* D2_FX_ABS */                                                           \
                    for (int j = 0; j < len; j++)                                                  \
                        d[j] = fabs(a[j]);                                                         \
                    break;                                                                         \
                }                                                                                  \
                stk[at] = d;                                                                       \
                sp = at + 1;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }

#define GELU_F32(x) d2_gelu_f32(x)
#define GELU_TANH_F32(x)                                                                           \
    ((float)0.5 * (x) * (1 + tanh((float)0.79788456080286536 * ((x) + (float)0.044715 * (x) * (x) * (x)))))
#define SIGMOID_F64(x) (1 / (1 + exp(-(x))))
#define GELU_F64(x) (0.5 * (x) * (1 + erf((x) * 0.70710678118654752)))
#define GELU_TANH_F64(x) (0.5 * (x) * (1 + tanh(0.79788456080286536 * ((x) + 0.044715 * (x) * (x) * (x)))))

FX_EVAL(eval_f32, float, GELU_F32, GELU_TANH_F32, d2_sigmoid_f32, d2_tanh_f32)
FX_EVAL(eval_f64, double, GELU_F64, GELU_TANH_F64, SIGMOID_F64, tanh)

/* Whether input t is read periodically by the result out: t's dims, after leading 1s, are
 * out's trailing dims. */
static bool periodic(const d2_tensor *t, const d2_tensor *out)
{
    if (t->ndim > out->ndim)
        return false;
    int d = 0;
    while (d < t->ndim && t->shape[d] == 1)
        d++;
    for (; d < t->ndim; d++)
        if (t->shape[d] != out->shape[out->ndim - t->ndim + d])
            return false;
    return true;
}

int cpu_fused_elementwise(d2_kctx *k)
{
    d2_fx_prog scratch;
    const d2_fx_prog *prog;
    /* expr is the op's only attribute */
    if (d2_fx_get(k->attrs->v[0].u.s, k->n_in, &scratch, &prog, k->err) < 0)
        return -1;
    d2_tensor *out = k->out[0];
    fx_src src[D2_FX_MAX_INPUTS];
    bool fast = out->dtype == D2_F32 || out->dtype == D2_F64;
    for (int i = 0; i < k->n_in && fast; i++) {
        fast = k->in[i]->dtype == out->dtype && periodic(k->in[i], out);
        src[i].data = d2_tensor_data(k->in[i]);
        src[i].n = d2_tensor_numel(k->in[i]);
        fast = fast && src[i].n > 0;
    }
    int64_t n = d2_tensor_numel(out);
    if (!fast)
        return n == 0 ? 0 : d2_fx_run_parts(k, prog);
    if (out->dtype == D2_F32)
        eval_f32(prog, src, d2_tensor_data(out), n);
    else
        eval_f64(prog, src, d2_tensor_data(out), n);
    return 0;
}
