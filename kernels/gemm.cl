/* gemm.cl - tiled, register-blocked, batched GEMM (matmul, linear, conv2d) and im2col. */

/* C[m, n] = sum_k A[m, k] * B[k, n] (+ bias[n]) with arbitrary element
 * strides (transposes are stride swaps). Each 16x16 work-group computes a
 * 64x64 tile of C, each work-item a 4x4 block (rows ty + 16 i, columns
 * tx + 16 j), staging 64x16 and 16x64 tiles of A and B in local memory.
 * Batches run along dimension 2: batch b is decomposed over nb batch dims
 * (bsh) and each operand moves by its own batch strides (0 = broadcast). */
/* The host passes -DD2_WG256 when the device's work-groups hold 256 items;
 * otherwise the tiled kernel is built without the attribute and not used. */
#ifdef D2_WG256
#define D2_GEMM_WG __attribute__((reqd_work_group_size(16, 16, 1)))
#else
#define D2_GEMM_WG
#endif

#define D2_TM 64
#define D2_TN 64
#define D2_TK 16

#define D2_GEMM_KERNEL(T, S)                                                                    \
    __kernel D2_GEMM_WG void gemm_##S(                                                          \
        long M, long N, long K, __global const T *A, long ao, long sam, long sak,               \
        __global const T *B, long bo, long sbk, long sbn, __global T *C, long co, long scm,     \
        long scn, __global const T *bias, long biaso, int has_bias, int nb, long8 bsh8,         \
        long8 bsa8, long8 bsb8, long8 bsc8)                                                     \
    {                                                                                           \
        __local T As[D2_TK][D2_TM + 1];                                                         \
        __local T Bs[D2_TK][D2_TN + 1];                                                         \
        int tx = get_local_id(0), ty = get_local_id(1);                                         \
        int lid = ty * 16 + tx;                                                                 \
        long n0 = (long)get_group_id(0) * D2_TN, m0 = (long)get_group_id(1) * D2_TM;            \
        if (nb > 0) {                                                                           \
            long da, db, dc;                                                                    \
            d2_offset3(get_group_id(2), nb, bsh8, bsa8, bsb8, bsc8, &da, &db, &dc);             \
            ao += da;                                                                           \
            bo += db;                                                                           \
            co += dc;                                                                           \
        }                                                                                       \
        T acc[4][4];                                                                            \
        for (int i = 0; i < 4; i++)                                                             \
            for (int j = 0; j < 4; j++)                                                         \
                acc[i][j] = 0;                                                                  \
        for (long k0 = 0; k0 < K; k0 += D2_TK) {                                                \
            for (int l = 0; l < 4; l++) {                                                       \
                int e = lid + l * 256, mm, kk, nn;                                              \
                if (sak == 1) {                                                                 \
                    mm = e / D2_TK;                                                             \
                    kk = e % D2_TK;                                                             \
                } else {                                                                        \
                    kk = e / D2_TM;                                                             \
                    mm = e % D2_TM;                                                             \
                }                                                                               \
                long gm = m0 + mm, gk = k0 + kk;                                                \
                As[kk][mm] = (gm < M && gk < K) ? A[ao + gm * sam + gk * sak] : (T)0;           \
                if (sbn == 1) {                                                                 \
                    kk = e / D2_TN;                                                             \
                    nn = e % D2_TN;                                                             \
                } else {                                                                        \
                    nn = e / D2_TK;                                                             \
                    kk = e % D2_TK;                                                             \
                }                                                                               \
                long gn = n0 + nn;                                                              \
                gk = k0 + kk;                                                                   \
                Bs[kk][nn] = (gk < K && gn < N) ? B[bo + gk * sbk + gn * sbn] : (T)0;           \
            }                                                                                   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                       \
            for (int kk = 0; kk < D2_TK; kk++) {                                                \
                T a[4], b[4];                                                                   \
                for (int i = 0; i < 4; i++)                                                     \
                    a[i] = As[kk][ty + 16 * i];                                                 \
                for (int j = 0; j < 4; j++)                                                     \
                    b[j] = Bs[kk][tx + 16 * j];                                                 \
                for (int i = 0; i < 4; i++)                                                     \
                    for (int j = 0; j < 4; j++)                                                 \
                        acc[i][j] += a[i] * b[j];                                               \
            }                                                                                   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        }                                                                                       \
        for (int i = 0; i < 4; i++) {                                                           \
            long m = m0 + ty + 16 * i;                                                          \
            if (m >= M)                                                                         \
                continue;                                                                       \
            for (int j = 0; j < 4; j++) {                                                       \
                long n = n0 + tx + 16 * j;                                                      \
                if (n < N) {                                                                    \
                    T v = acc[i][j];                                                            \
                    if (has_bias)                                                               \
                        v += bias[biaso + n];                                                   \
                    C[co + m * scm + n * scn] = v;                                              \
                }                                                                               \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    /* Fallback for devices whose work-groups cannot hold 16x16 items. */                       \
    __kernel void gemm_naive_##S(long M, long N, long K, __global const T *A, long ao,          \
                                 long sam, long sak, __global const T *B, long bo, long sbk,    \
                                 long sbn, __global T *C, long co, long scm, long scn,          \
                                 __global const T *bias, long biaso, int has_bias, int nb,      \
                                 long8 bsh8, long8 bsa8, long8 bsb8, long8 bsc8)                \
    {                                                                                           \
        long n = get_global_id(0), m = get_global_id(1);                                        \
        if (n >= N || m >= M)                                                                   \
            return;                                                                             \
        if (nb > 0) {                                                                           \
            long da, db, dc;                                                                    \
            d2_offset3(get_global_id(2), nb, bsh8, bsa8, bsb8, bsc8, &da, &db, &dc);             \
            ao += da;                                                                           \
            bo += db;                                                                           \
            co += dc;                                                                           \
        }                                                                                       \
        T acc = 0;                                                                              \
        for (long k = 0; k < K; k++)                                                            \
            acc += A[ao + m * sam + k * sak] * B[bo + k * sbk + n * sbn];                       \
        if (has_bias)                                                                           \
            acc += bias[biaso + n];                                                             \
        C[co + m * scm + n * scn] = acc;                                                        \
    }
D2_FLOAT_TYPES(D2_GEMM_KERNEL)

/* im2col_E: x [N, C, H, W] to col [N, C*KH*KW, OH*OW]; element i of col is
 * (n, c, kh, kw, oh, ow) in row-major order; padding reads as zero. */
#define D2_IM2COL_KERNEL(T, E)                                                                  \
    __kernel void im2col_##E(long total, long C, long H, long W, long KH, long KW, long OH,     \
                             long OW, long sh, long sw, long ph, long pw, long dh, long dw,     \
                             __global const T *x, long xo, __global T *col, long co)            \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= total)                                                                         \
            return;                                                                             \
        long t = i;                                                                             \
        long ow = t % OW;                                                                       \
        t /= OW;                                                                                \
        long oh = t % OH;                                                                       \
        t /= OH;                                                                                \
        long kw = t % KW;                                                                       \
        t /= KW;                                                                                \
        long kh = t % KH;                                                                       \
        t /= KH;                                                                                \
        long c = t % C, n = t / C;                                                              \
        long ih = oh * sh - ph + kh * dh, iw = ow * sw - pw + kw * dw;                          \
        T v = 0;                                                                                \
        if (ih >= 0 && ih < H && iw >= 0 && iw < W)                                             \
            v = x[xo + ((n * C + c) * H + ih) * W + iw];                                        \
        col[co + i] = v;                                                                        \
    }
D2_ELEM_TYPES(D2_IM2COL_KERNEL)
