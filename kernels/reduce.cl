/* reduce.cl - reductions over any set of axes, argmax/argmin, softmax and log_softmax. */

/* Reductions see the input as kept dims (nk, ksh, kst: the output's index
 * space) times reduced dims (nr, rsh, rst: R elements per output). reduce_S
 * runs one work-item per output; reduce_wg_S one work-group per output (for
 * few outputs over long rows), with a power-of-two local size <= 256. */

/* Reduction op codes (host: enum red_op in opencl_ops.c). */
#define D2_RSUM 0
#define D2_RMEAN 1
#define D2_RMAX 2
#define D2_RMIN 3
#define D2_RPROD 4
#define D2_RANY 5
#define D2_RALL 6

#define D2_LOWEST_f32 (-INFINITY)
#define D2_HIGHEST_f32 INFINITY
#define D2_LOWEST_f64 (-(double)INFINITY)
#define D2_HIGHEST_f64 ((double)INFINITY)
#define D2_LOWEST_i32 INT_MIN
#define D2_HIGHEST_i32 INT_MAX
#define D2_LOWEST_i64 LONG_MIN
#define D2_HIGHEST_i64 LONG_MAX
#define D2_LOWEST_b8 0
#define D2_HIGHEST_b8 1

#define D2_FINITE_f32(v) isfinite(v)
#define D2_FINITE_f64(v) isfinite(v)
#define D2_FINITE_i32(v) 1
#define D2_FINITE_i64(v) 1
#define D2_FINITE_b8(v) 1

#define D2_RED_WG 256

#define D2_REDUCE(T, S)                                                                         \
    T d2_rinit_##S(int op)                                                                      \
    {                                                                                           \
        switch (op) {                                                                           \
        case D2_RMAX: return D2_LOWEST_##S;                                                     \
        case D2_RMIN: return D2_HIGHEST_##S;                                                    \
        case D2_RPROD:                                                                          \
        case D2_RALL: return 1;                                                                 \
        }                                                                                       \
        return 0;                                                                               \
    }                                                                                           \
    T d2_rstep_##S(int op, T acc, T v)                                                          \
    {                                                                                           \
        switch (op) {                                                                           \
        case D2_RSUM:                                                                           \
        case D2_RMEAN: return acc + v;                                                          \
        case D2_RMAX: return (v > acc || v != v) ? v : acc;                                     \
        case D2_RMIN: return (v < acc || v != v) ? v : acc;                                     \
        case D2_RPROD: return acc * v;                                                          \
        case D2_RANY: return (acc != 0 || v != 0) ? 1 : 0;                                      \
        case D2_RALL: return (acc != 0 && v != 0) ? 1 : 0;                                      \
        }                                                                                       \
        return acc;                                                                             \
    }                                                                                           \
    /* Folds elements r = r0, r0 + dr, ... < R; max/min propagate NaN; sums   \
     * are compensated (Kahan, dropped once the sum is not finite), which is \
     * exact for integers and keeps float sums near the double-accumulated   \
     * result of the CPU backend. */                                         \
    T d2_racc_##S(int op, __global const T *x, long base, long r0, long dr, long R, int nr,     \
                  long8 rsh, long8 rst)                                                         \
    {                                                                                           \
        T acc = d2_rinit_##S(op), comp = 0;                                                     \
        bool sum = op == D2_RSUM || op == D2_RMEAN;                                             \
        for (long r = r0; r < R; r += dr) {                                                     \
            T v = x[base + (nr <= 1 ? r * rst.s0 : d2_offset(r, nr, rsh, rst))];                \
            if (sum) {                                                                          \
                T y = v - comp, t = acc + y;                                                    \
                comp = D2_FINITE_##S(t) ? (t - acc) - y : 0;                                    \
                acc = t;                                                                        \
            } else {                                                                            \
                acc = d2_rstep_##S(op, acc, v);                                                 \
            }                                                                                   \
        }                                                                                       \
        return acc;                                                                             \
    }                                                                                           \
    __kernel void reduce_##S(int op, long nout, long R, __global const T *x, long xo,           \
                             __global T *out, long oo, int nk, long8 ksh8, long8 kst8, int nr,  \
                             long8 rsh8, long8 rst8)                                            \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= nout)                                                                          \
            return;                                                                             \
        long base = xo + d2_offset(i, nk, ksh8, kst8);                                          \
        T acc = d2_racc_##S(op, x, base, 0, 1, R, nr, rsh8, rst8);                              \
        if (op == D2_RMEAN)                                                                     \
            acc = acc / (T)R;                                                                   \
        out[oo + i] = acc;                                                                      \
    }                                                                                           \
    __kernel void reduce_wg_##S(int op, long nout, long R, __global const T *x, long xo,        \
                                __global T *out, long oo, int nk, long8 ksh8, long8 kst8,       \
                                int nr, long8 rsh8, long8 rst8)                                 \
    {                                                                                           \
        __local T buf[D2_RED_WG];                                                               \
        long i = get_group_id(0);                                                               \
        int lid = get_local_id(0), ls = get_local_size(0);                                      \
        long base = xo + d2_offset(i, nk, ksh8, kst8);                                          \
        buf[lid] = d2_racc_##S(op, x, base, lid, ls, R, nr, rsh8, rst8);                        \
        barrier(CLK_LOCAL_MEM_FENCE);                                                           \
        for (int s = ls / 2; s > 0; s >>= 1) {                                                  \
            if (lid < s)                                                                        \
                buf[lid] = d2_rstep_##S(op, buf[lid], buf[lid + s]);                            \
            barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        }                                                                                       \
        if (lid == 0) {                                                                         \
            T acc = buf[0];                                                                     \
            if (op == D2_RMEAN)                                                                 \
                acc = acc / (T)R;                                                               \
            out[oo + i] = acc;                                                                  \
        }                                                                                       \
    }
D2_ALL_TYPES(D2_REDUCE)

/* argminmax_S: index (int64) of the first maximum (op 0) or minimum (op 1)
 * along the reduced dims, counted in their row-major order; the first NaN
 * beats everything. */
#define D2_ARGMINMAX(T, S)                                                                      \
    __kernel void argminmax_##S(int op, long nout, long R, __global const T *x, long xo,        \
                                __global long *out, long oo, int nk, long8 ksh8, long8 kst8,    \
                                int nr, long8 rsh8, long8 rst8)                                 \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= nout)                                                                          \
            return;                                                                             \
        long base = xo + d2_offset(i, nk, ksh8, kst8);                                          \
        long best = 0;                                                                          \
        T bv = x[base];                                                                         \
        for (long r = 1; r < R; r++) {                                                          \
            T v = x[base + d2_offset(r, nr, rsh8, rst8)];                                       \
            if ((op == 0 ? v > bv : v < bv) || (v != v && bv == bv)) {                          \
                bv = v;                                                                         \
                best = r;                                                                       \
            }                                                                                   \
        }                                                                                       \
        out[oo + i] = best;                                                                     \
    }
D2_ALL_TYPES(D2_ARGMINMAX)

/* softmax_S: rows of length L with stride `inner` (row id = outer * inner +
 * in); one work-item per row. softmax_wg_S: inner == 1, one work-group per
 * row (power-of-two local size <= 256). islog selects log_softmax. */
#define D2_SOFTMAX(T, S)                                                                        \
    __kernel void softmax_##S(int islog, long rows, long L, long inner, __global const T *x,    \
                              long xo, __global T *out, long oo)                                \
    {                                                                                           \
        long id = get_global_id(0);                                                             \
        if (id >= rows)                                                                         \
            return;                                                                             \
        long base = (id / inner) * L * inner + id % inner;                                      \
        T m = -INFINITY;                                                                        \
        for (long j = 0; j < L; j++)                                                            \
            m = fmax(m, x[xo + base + j * inner]);                                              \
        T s = 0;                                                                                \
        for (long j = 0; j < L; j++)                                                            \
            s += exp(x[xo + base + j * inner] - m);                                             \
        T ls = log(s);                                                                          \
        for (long j = 0; j < L; j++) {                                                          \
            T v = x[xo + base + j * inner] - m;                                                 \
            out[oo + base + j * inner] = islog ? v - ls : exp(v) / s;                           \
        }                                                                                       \
    }                                                                                           \
    __kernel void softmax_wg_##S(int islog, long rows, long L, long inner,                      \
                                 __global const T *x, long xo, __global T *out, long oo)        \
    {                                                                                           \
        __local T buf[D2_RED_WG];                                                               \
        long base = (long)get_group_id(0) * L;                                                  \
        int lid = get_local_id(0), ls = get_local_size(0);                                      \
        T m = -INFINITY;                                                                        \
        for (long j = lid; j < L; j += ls)                                                      \
            m = fmax(m, x[xo + base + j]);                                                      \
        buf[lid] = m;                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                           \
        for (int s = ls / 2; s > 0; s >>= 1) {                                                  \
            if (lid < s)                                                                        \
                buf[lid] = fmax(buf[lid], buf[lid + s]);                                        \
            barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        }                                                                                       \
        m = buf[0];                                                                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                                           \
        T sum = 0;                                                                              \
        for (long j = lid; j < L; j += ls)                                                      \
            sum += exp(x[xo + base + j] - m);                                                   \
        buf[lid] = sum;                                                                         \
        barrier(CLK_LOCAL_MEM_FENCE);                                                           \
        for (int s = ls / 2; s > 0; s >>= 1) {                                                  \
            if (lid < s)                                                                        \
                buf[lid] += buf[lid + s];                                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        }                                                                                       \
        sum = buf[0];                                                                           \
        T lsum = log(sum);                                                                      \
        for (long j = lid; j < L; j += ls) {                                                    \
            T v = x[xo + base + j] - m;                                                         \
            out[oo + base + j] = islog ? v - lsum : exp(v) / sum;                               \
        }                                                                                       \
    }
D2_FLOAT_TYPES(D2_SOFTMAX)
