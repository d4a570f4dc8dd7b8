/* activation.cl - special functions and parameterised activations (host: ocl_act in opencl_ops.c). */

/* Op codes: enum act_op in opencl_ops.c. p0 and p1 are the op's float
 * attributes in schema order. */
#define D2A_ERF 0
#define D2A_LGAMMA 1
#define D2A_EXPM1 2
#define D2A_LOG1P 3
#define D2A_LOG2 4
#define D2A_LOG10 5
#define D2A_TAN 6
#define D2A_ASIN 7
#define D2A_ACOS 8
#define D2A_ATAN 9
#define D2A_SINH 10
#define D2A_COSH 11
#define D2A_ASINH 12
#define D2A_ACOSH 13
#define D2A_ATANH 14
#define D2A_TRUNC 15
#define D2A_ROUND 16
#define D2A_SOFTSIGN 17
#define D2A_MISH 18
#define D2A_LOGSIGMOID 19
#define D2A_TANHSHRINK 20
#define D2A_HARDSWISH 21
#define D2A_SOFTPLUS 22
#define D2A_ELU 23
#define D2A_CELU 24
#define D2A_SELU 25
#define D2A_HARDSIGMOID 26
#define D2A_HARDSHRINK 27
#define D2A_SOFTSHRINK 28
#define D2A_THRESHOLDED_RELU 29
#define D2A_STANH 30
#define D2A_LOGIT 31
#define D2A_ISNAN 32
#define D2A_ISINF 33
#define D2A_ISFINITE 34

#define D2_ACT_KERNEL(T, S)                                                                 \
    __kernel void act_##S(int op, long n, __global const T *x, long xo, __global T *out,    \
                          long oo, T p0, T p1)                                              \
    {                                                                                       \
        long i = get_global_id(0);                                                          \
        if (i >= n)                                                                         \
            return;                                                                         \
        T a = x[xo + i], r = a;                                                             \
        switch (op) {                                                                       \
        case D2A_ERF: r = erf(a); break;                                                    \
        case D2A_LGAMMA: r = lgamma(a); break;                                              \
        case D2A_EXPM1: r = expm1(a); break;                                                \
        case D2A_LOG1P: r = log1p(a); break;                                                \
        case D2A_LOG2: r = log2(a); break;                                                  \
        case D2A_LOG10: r = log10(a); break;                                                \
        case D2A_TAN: r = tan(a); break;                                                    \
        case D2A_ASIN: r = asin(a); break;                                                  \
        case D2A_ACOS: r = acos(a); break;                                                  \
        case D2A_ATAN: r = atan(a); break;                                                  \
        case D2A_SINH: r = sinh(a); break;                                                  \
        case D2A_COSH: r = cosh(a); break;                                                  \
        case D2A_ASINH: r = asinh(a); break;                                                \
        case D2A_ACOSH: r = acosh(a); break;                                                \
        case D2A_ATANH: r = atanh(a); break;                                                \
        case D2A_TRUNC: r = trunc(a); break;                                                \
        case D2A_ROUND: r = round(a); break;                                                \
        case D2A_SOFTSIGN: r = a / (1 + fabs(a)); break;                                    \
        case D2A_MISH: r = a * tanh(a > 20 ? a : log1p(exp(a))); break;                     \
        case D2A_LOGSIGMOID: r = fmin(a, (T)0) - log1p(exp(-fabs(a))); break;               \
        case D2A_TANHSHRINK: r = a - tanh(a); break;                                        \
        case D2A_HARDSWISH: r = a * fmin(fmax(a + 3, (T)0), (T)6) / 6; break;               \
        case D2A_SOFTPLUS: r = a * p0 > p1 ? a : log1p(exp(a * p0)) / p0; break;            \
        case D2A_ELU: r = a > 0 ? a : p0 * expm1(a); break;                                 \
        case D2A_CELU: r = a > 0 ? a : p0 * expm1(a / p0); break;                           \
        case D2A_SELU: r = p0 * (a > 0 ? a : p1 * expm1(a)); break;                         \
        case D2A_HARDSIGMOID:                                                               \
            r = p0 * a + p1;                                                                \
            r = r < 0 ? 0 : r > 1 ? 1 : r;                                                  \
            break;                                                                          \
        case D2A_HARDSHRINK: r = a * (T)(a > p0 || a < -p0); break;                           \
        case D2A_SOFTSHRINK: r = a > p0 ? a - p0 : a < -p0 ? a + p0 : 0; break;             \
        case D2A_THRESHOLDED_RELU: r = a * (T)(a > p0); break;                                \
        case D2A_STANH: r = p1 * tanh(p0 * a); break;                                       \
        case D2A_LOGIT: {                                                                   \
            T c = p0 > 0 ? (a < p0 ? p0 : a > 1 - p0 ? 1 - p0 : a) : a;                     \
            r = log(c / (1 - c));                                                           \
            break;                                                                          \
        }                                                                                   \
        }                                                                                   \
        out[oo + i] = r;                                                                    \
    }
D2_FLOAT_TYPES(D2_ACT_KERNEL)

/* isnan / isinf / isfinite of float inputs into bool. */
#define D2_CLASSIFY_KERNEL(T, S)                                                            \
    __kernel void classify_##S(int op, long n, __global const T *x, long xo,                \
                               __global uchar *out, long oo)                                \
    {                                                                                       \
        long i = get_global_id(0);                                                          \
        if (i >= n)                                                                         \
            return;                                                                         \
        T a = x[xo + i];                                                                    \
        out[oo + i] = op == D2A_ISNAN ? isnan(a) != 0                                       \
                      : op == D2A_ISINF ? isinf(a) != 0                                     \
                                        : isfinite(a) != 0;                                 \
    }
D2_FLOAT_TYPES(D2_CLASSIFY_KERNEL)
