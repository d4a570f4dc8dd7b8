/* elementwise.cl - broadcasting binary ops, comparisons, logic, unary math, cast, where, arange. */

/* Broadcasting: the host collapses the output shape and gives each operand
 * strides in the output's index space (0 along broadcast dims); nd <= 1 is
 * the fast path (same shape or scalar operand). Offsets are in elements. */

/* Binary op codes (host: enum bin_op in opencl_ops.c). */
#define D2_ADD 0
#define D2_SUB 1
#define D2_MUL 2
#define D2_DIV 3
#define D2_FLOORDIV 4
#define D2_REM 5
#define D2_POW 6
#define D2_MAX 7
#define D2_MIN 8
#define D2_RELU_GRAD 9 /* relu_grad(out, dout): dout where out > 0 */

/* Float floor division and remainder follow numpy (Python sign rules);
 * maximum/minimum propagate NaN from either side. */
#define D2_BINOP_FLOAT(T, S)                                                        \
    T d2_floordiv_##S(T a, T b)                                                     \
    {                                                                               \
        if (b == 0)                                                                 \
            return a / b;                                                           \
        T mod = fmod(a, b), div = (a - mod) / b;                                    \
        if (mod != 0 && ((b < 0) != (mod < 0)))                                     \
            div -= 1;                                                               \
        if (div == 0)                                                               \
            return copysign((T)0, a / b);                                           \
        T fl = floor(div);                                                          \
        return div - fl > (T)0.5 ? fl + 1 : fl;                                     \
    }                                                                               \
    T d2_bin_##S(int op, T a, T b, __global int *flag)                              \
    {                                                                               \
        switch (op) {                                                               \
        case D2_ADD: return a + b;                                                  \
        case D2_SUB: return a - b;                                                  \
        case D2_MUL: return a * b;                                                  \
        case D2_DIV: return a / b;                                                  \
        case D2_FLOORDIV: return d2_floordiv_##S(a, b);                             \
        case D2_REM: {                                                              \
            T mod = fmod(a, b);                                                     \
            if (mod == 0)                                                           \
                return copysign((T)0, b);                                           \
            return ((b < 0) != (mod < 0)) ? mod + b : mod;                          \
        }                                                                           \
        case D2_POW: return pow(a, b);                                              \
        case D2_MAX: return (a > b || a != a) ? a : b;                              \
        case D2_MIN: return (a < b || a != a) ? a : b;                              \
        case D2_RELU_GRAD: return a > 0 ? b : (T)0;                                 \
        }                                                                           \
        return 0;                                                                   \
    }

/* Integer ops wrap on overflow. Division by zero sets flag[0] = 1 and 0 to a
 * negative power flag[0] = 2 (the host reports an error); floor division and
 * remainder follow Python's sign rules; pow is exact (negative exponents
 * truncate toward zero). */
#define D2_BINOP_INT(T, S)                                                          \
    T d2_ipow_##S(T a, T b)                                                         \
    {                                                                               \
        if (b < 0)                                                                  \
            return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;                   \
        T r = 1;                                                                    \
        while (b) {                                                                 \
            if (b & 1)                                                              \
                r *= a;                                                             \
            a *= a;                                                                 \
            b >>= 1;                                                                \
        }                                                                           \
        return r;                                                                   \
    }                                                                               \
    T d2_bin_##S(int op, T a, T b, __global int *flag)                              \
    {                                                                               \
        switch (op) {                                                               \
        case D2_ADD: return a + b;                                                  \
        case D2_SUB: return a - b;                                                  \
        case D2_MUL: return a * b;                                                  \
        case D2_DIV:                                                                \
        case D2_FLOORDIV:                                                           \
        case D2_REM: {                                                              \
            if (b == 0) {                                                           \
                flag[0] = 1;                                                        \
                return 0;                                                           \
            }                                                                       \
            if (b == -1)                                                            \
                return op == D2_REM ? 0 : -a;                                       \
            T q = a / b, r = a - q * b;                                             \
            if (op == D2_DIV)                                                       \
                return q;                                                           \
            bool adjust = r != 0 && ((r < 0) != (b < 0));                           \
            if (op == D2_FLOORDIV)                                                  \
                return adjust ? q - 1 : q;                                          \
            return adjust ? r + b : r;                                              \
        }                                                                           \
        case D2_POW:                                                                \
            if (a == 0 && b < 0)                                                    \
                flag[0] = 2;                                                        \
            return d2_ipow_##S(a, b);                                               \
        case D2_MAX: return a > b ? a : b;                                          \
        case D2_MIN: return a < b ? a : b;                                          \
        case D2_RELU_GRAD: return a > 0 ? b : 0;                                    \
        }                                                                           \
        return 0;                                                                   \
    }

/* Bool arithmetic (the host allows add, multiply, maximum, minimum only). */
uchar d2_bin_b8(int op, uchar a, uchar b, __global int *flag)
{
    switch (op) {
    case D2_ADD:
    case D2_MAX: return (a | b) != 0;
    case D2_MUL:
    case D2_MIN: return (a & b) != 0;
    }
    return 0;
}

D2_FLOAT_TYPES(D2_BINOP_FLOAT)
D2_INT_TYPES(D2_BINOP_INT)

#define D2_BINARY_KERNEL(T, S)                                                                  \
    __kernel void binary_##S(int op, long n, int nd, long8 sh8, __global const T *x, long xo,    \
                             long8 xs8, __global const T *y, long yo, long8 ys8, __global T *out, \
                             long oo, __global int *flag)                                       \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= n)                                                                             \
            return;                                                                             \
        long xi, yi;                                                                            \
        if (nd <= 1) {                                                                          \
            xi = i * xs8.s0;                                                                    \
            yi = i * ys8.s0;                                                                    \
        } else {                                                                                \
            d2_offset2(i, nd, sh8, xs8, ys8, &xi, &yi);                                         \
        }                                                                                       \
        out[oo + i] = d2_bin_##S(op, x[xo + xi], y[yo + yi], flag);                             \
    }
D2_ALL_TYPES(D2_BINARY_KERNEL)

/* Comparison and logic codes; results are bool (uchar 0/1). */
#define D2_EQ 0
#define D2_NE 1
#define D2_LT 2
#define D2_LE 3
#define D2_GT 4
#define D2_GE 5
#define D2_AND 6
#define D2_OR 7
#define D2_XOR 8
#define D2_NOT 9

#define D2_COMPARE_KERNEL(T, S)                                                                 \
    __kernel void compare_##S(int op, long n, int nd, long8 sh8, __global const T *x, long xo,   \
                              long8 xs8, __global const T *y, long yo, long8 ys8,               \
                              __global uchar *out, long oo)                                     \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= n)                                                                             \
            return;                                                                             \
        long xi, yi;                                                                            \
        if (nd <= 1) {                                                                          \
            xi = i * xs8.s0;                                                                    \
            yi = i * ys8.s0;                                                                    \
        } else {                                                                                \
            d2_offset2(i, nd, sh8, xs8, ys8, &xi, &yi);                                         \
        }                                                                                       \
        T a = x[xo + xi], b = y[yo + yi];                                                       \
        bool r = false;                                                                         \
        switch (op) {                                                                           \
        case D2_EQ: r = a == b; break;                                                          \
        case D2_NE: r = a != b; break;                                                          \
        case D2_LT: r = a < b; break;                                                           \
        case D2_LE: r = a <= b; break;                                                          \
        case D2_GT: r = a > b; break;                                                           \
        case D2_GE: r = a >= b; break;                                                          \
        case D2_AND: r = a != 0 && b != 0; break;                                               \
        case D2_OR: r = a != 0 || b != 0; break;                                                \
        case D2_XOR: r = (a != 0) != (b != 0); break;                                           \
        case D2_NOT: r = a == 0; break;                                                         \
        }                                                                                       \
        out[oo + i] = r ? 1 : 0;                                                                \
    }
D2_ALL_TYPES(D2_COMPARE_KERNEL)

/* Unary op codes (host: enum un_op in opencl_ops.c). a and b are float
 * parameters; ia and ib integer ones (integer clip bounds and scale). */
#define D2_NEG 0
#define D2_ABS 1
#define D2_SIGN 2
#define D2_SQUARE 3
#define D2_EXP 4
#define D2_LOG 5
#define D2_SQRT 6
#define D2_RSQRT 7
#define D2_RECIP 8
#define D2_FLOOR 9
#define D2_CEIL 10
#define D2_SIN 11
#define D2_COS 12
#define D2_TANH 13
#define D2_SIGMOID 14
#define D2_RELU 15
#define D2_SILU 16
#define D2_GELU 17
#define D2_GELU_TANH 18
#define D2_LEAKY 19
#define D2_SCALE 20
#define D2_SCALE_AFTER 21
#define D2_CLIP 22
#define D2_ISCALE 23
#define D2_ISCALE_AFTER 24
#define D2_ERF 25

#define D2_UNARY_FLOAT(T, S)                                                                    \
    __kernel void unary_##S(int op, long n, __global const T *x, long xo, __global T *out,       \
                            long oo, T a, T b, long ia, long ib)                                \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= n)                                                                             \
            return;                                                                             \
        T v = x[xo + i], r = v;                                                                 \
        switch (op) {                                                                           \
        case D2_NEG: r = -v; break;                                                             \
        case D2_ABS: r = fabs(v); break;                                                        \
        case D2_SIGN: r = v > 0 ? 1 : v < 0 ? -1 : v; break;                                    \
        case D2_SQUARE: r = v * v; break;                                                       \
        case D2_EXP: r = exp(v); break;                                                         \
        case D2_LOG: r = log(v); break;                                                         \
        case D2_SQRT: r = sqrt(v); break;                                                       \
        case D2_RSQRT: r = 1 / sqrt(v); break;                                                  \
        case D2_RECIP: r = 1 / v; break;                                                        \
        case D2_FLOOR: r = floor(v); break;                                                     \
        case D2_CEIL: r = ceil(v); break;                                                       \
        case D2_SIN: r = sin(v); break;                                                         \
        case D2_COS: r = cos(v); break;                                                         \
        case D2_TANH: r = tanh(v); break;                                                       \
        case D2_SIGMOID: r = 1 / (1 + exp(-v)); break;                                          \
        case D2_RELU: r = v < 0 ? 0 : v; break;                                                 \
        case D2_SILU: r = v / (1 + exp(-v)); break;                                             \
        case D2_ERF: r = erf(v); break;                                                         \
        case D2_GELU: r = (T)0.5 * v * (1 + erf(v * (T)M_SQRT1_2)); break;                     \
        case D2_GELU_TANH:                                                                      \
            r = (T)0.5 * v *                                                                    \
                (1 + tanh((T)0.79788456080286535588 * (v + (T)0.044715 * v * v * v)));          \
            break;                                                                              \
        case D2_LEAKY: r = v > 0 ? v : v * a; break;                                            \
        case D2_SCALE: r = v * a + b; break;                                                    \
        case D2_SCALE_AFTER: r = (v + b) * a; break;                                            \
        case D2_CLIP: r = v < a ? a : v > b ? b : v; break;                                     \
        }                                                                                       \
        out[oo + i] = r;                                                                        \
    }

#define D2_UNARY_INT(T, S)                                                                      \
    __kernel void unary_##S(int op, long n, __global const T *x, long xo, __global T *out,       \
                            long oo, float a, float b, long ia, long ib)                        \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= n)                                                                             \
            return;                                                                             \
        T v = x[xo + i], r = v;                                                                 \
        switch (op) {                                                                           \
        case D2_NEG: r = -v; break;                                                             \
        case D2_ABS: r = v < 0 ? -v : v; break;                                                 \
        case D2_SIGN: r = v > 0 ? 1 : v < 0 ? -1 : 0; break;                                    \
        case D2_SQUARE: r = v * v; break;                                                       \
        case D2_RELU: r = v > 0 ? v : 0; break;                                                 \
        case D2_SCALE: r = (T)((float)v * a + b); break;                                        \
        case D2_SCALE_AFTER: r = (T)(((float)v + b) * a); break;                                \
        case D2_ISCALE: r = (T)(v * ia + ib); break;                                            \
        case D2_ISCALE_AFTER: r = (T)((v + ib) * ia); break;                                    \
        case D2_CLIP: r = v < ia ? (T)ia : v > ib ? (T)ib : v; break;                           \
        }                                                                                       \
        out[oo + i] = r;                                                                        \
    }

D2_FLOAT_TYPES(D2_UNARY_FLOAT)
D2_INT_TYPES(D2_UNARY_INT)
D2_UNARY_INT(uchar, b8)

/* cast_<from>_<to>: every pair of the dtypes the device supports. */
#define D2_CAST_KERNEL(TS, SS, TD, SD)                                                          \
    __kernel void cast_##SS##_##SD(long n, __global const TS *x, long xo, __global TD *out,     \
                                   long oo)                                                     \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i < n)                                                                              \
            out[oo + i] = D2_CVT(SS, SD, x[xo + i]);                                            \
    }
#define D2_CAST_FROM(TS, SS) D2_ALL_TYPES_B(D2_CAST_KERNEL, TS, SS)
D2_ALL_TYPES(D2_CAST_FROM)

/* where_<esize>: out = cond ? x : y with three broadcast operands; data are
 * moved as raw elements, so every dtype of that size shares the kernel. */
#define D2_WHERE_KERNEL(T, E)                                                                   \
    __kernel void where_##E(long n, int nd, long8 sh8, __global const uchar *c, long co,         \
                            long8 cs8, __global const T *x, long xo, long8 xs8,                 \
                            __global const T *y, long yo, long8 ys8, __global T *out, long oo)  \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= n)                                                                             \
            return;                                                                             \
        long ci, xi, yi;                                                                        \
        d2_offset3(i, nd, sh8, cs8, xs8, ys8, &ci, &xi, &yi);                                   \
        out[oo + i] = c[co + ci] ? x[xo + xi] : y[yo + yi];                                     \
    }
D2_ELEM_TYPES(D2_WHERE_KERNEL)

/* arange: out[i] = start + i * step. */
#define D2_ARANGE_FLOAT(T, S)                                                                   \
    __kernel void arange_##S(long n, __global T *out, long oo, T start, T step, long istart,    \
                             long istep)                                                        \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i < n)                                                                              \
            out[oo + i] = start + (T)i * step;                                                  \
    }
#define D2_ARANGE_INT(T, S)                                                                     \
    __kernel void arange_##S(long n, __global T *out, long oo, float start, float step,        \
                             long istart, long istep)                                           \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i < n)                                                                              \
            out[oo + i] = (T)(istart + i * istep);                                              \
    }
D2_FLOAT_TYPES(D2_ARANGE_FLOAT)
D2_INT_TYPES(D2_ARANGE_INT)
