/* common.cl - dtype lists and index helpers shared by every OpenCL kernel file (built first). */

/* dy2st dtypes map to OpenCL C types: float32 float, float64 double (only
 * with cl_khr_fp64; the host passes -DD2_FP64), int32 int, int64 long, bool
 * uchar (0 or 1). Kernels are instantiated per dtype with the list macros;
 * the suffix names the dtype in the kernel name (binary_f32, cast_i64_b8). */
#ifdef D2_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define D2_IF_FP64(x) x
#else
#define D2_IF_FP64(x)
#endif

#define D2_ALL_TYPES(M) \
    M(float, f32) M(int, i32) M(long, i64) M(uchar, b8) D2_IF_FP64(M(double, f64))
#define D2_ALL_TYPES_B(M, A, B) M(A, B, float, f32) M(A, B, int, i32) M(A, B, long, i64) \
    M(A, B, uchar, b8) D2_IF_FP64(M(A, B, double, f64))
#define D2_NUM_TYPES(M) M(float, f32) M(int, i32) M(long, i64) D2_IF_FP64(M(double, f64))
#define D2_INT_TYPES(M) M(int, i32) M(long, i64)
#define D2_FLOAT_TYPES(M) M(float, f32) D2_IF_FP64(M(double, f64))
/* Unsigned types of each element size, for kernels that only move data. */
#define D2_ELEM_TYPES(M) M(uchar, e1) M(ushort, e2) M(uint, e4) M(ulong, e8)
#define D2_INDEX_TYPES_B(M, A, B) M(A, B, int, i32) M(A, B, long, i64)

/* Scalar parameter type per dtype suffix (float attributes arrive as this). */
#define D2_PARAM_f32 float
#define D2_PARAM_i32 float
#define D2_PARAM_i64 float
#define D2_PARAM_b8 float
#define D2_PARAM_f64 double

/* Conversion of a value to each dtype: D2_CVT(from, to, v). Bool is nonzero;
 * float to integer truncates toward zero, NaN and out-of-range values giving
 * the most negative integer (as the CPU backend does); integers wrap. */
#define D2_KIND_f32 F
#define D2_KIND_f64 F
#define D2_KIND_i32 I
#define D2_KIND_i64 I
#define D2_KIND_b8 I
#define D2_CVT(SS, SD, v) D2_CVT2(D2_KIND_##SS, SD, v)
#define D2_CVT2(K, SD, v) D2_CVT3(K, SD, v)
#define D2_CVT3(K, SD, v) D2_##K##TO_##SD(v)
#define D2_ITO_f32(v) ((float)(v))
#define D2_ITO_f64(v) ((double)(v))
#define D2_ITO_i32(v) ((int)(v))
#define D2_ITO_i64(v) ((long)(v))
#define D2_ITO_b8(v) ((uchar)((v) != 0))
#define D2_FTO_f32(v) ((float)(v))
#define D2_FTO_f64(v) ((double)(v))
#define D2_FTO_i32(v) (((v) >= -2147483648.0f && (v) < 2147483648.0f) ? (int)(v) : INT_MIN)
#define D2_FTO_i64(v) \
    (((v) >= -9223372036854775808.0f && (v) < 9223372036854775808.0f) ? (long)(v) : LONG_MIN)
#define D2_FTO_b8(v) ((uchar)((v) != 0))

/* Shapes and strides travel as long8 (up to 8 dims, s0 outermost; entries
 * from nd on are ignored). The helpers below walk the components with
 * constant indices, so nothing lands in dynamically indexed private memory. */
#define D2_DIMS_DOWN(STEP) STEP(7) STEP(6) STEP(5) STEP(4) STEP(3) STEP(2) STEP(1) STEP(0)

/* Offset, in a strided operand, of element i of a row-major shape of nd dims. */
long d2_offset(long i, int nd, long8 sh, long8 st)
{
    long off = 0, q;
#define D2_STEP1(c)                         \
    if (c < nd) {                           \
        q = i / sh.s##c;                    \
        off += (i - q * sh.s##c) * st.s##c; \
        i = q;                              \
    }
    D2_DIMS_DOWN(D2_STEP1)
#undef D2_STEP1
    return off;
}

/* Offsets of element i in two strided operands at once. */
void d2_offset2(long i, int nd, long8 sh, long8 sa, long8 sb, long *oa, long *ob)
{
    long a = 0, b = 0, q, c;
#define D2_STEP2(k)          \
    if (k < nd) {            \
        q = i / sh.s##k;     \
        c = i - q * sh.s##k; \
        a += c * sa.s##k;    \
        b += c * sb.s##k;    \
        i = q;               \
    }
    D2_DIMS_DOWN(D2_STEP2)
#undef D2_STEP2
    *oa = a;
    *ob = b;
}

/* Offsets of element i in three strided operands at once. */
void d2_offset3(long i, int nd, long8 sh, long8 sa, long8 sb, long8 sc, long *oa, long *ob,
                long *oc)
{
    long a = 0, b = 0, d = 0, q, c;
#define D2_STEP3(k)          \
    if (k < nd) {            \
        q = i / sh.s##k;     \
        c = i - q * sh.s##k; \
        a += c * sa.s##k;    \
        b += c * sb.s##k;    \
        d += c * sc.s##k;    \
        i = q;               \
    }
    D2_DIMS_DOWN(D2_STEP3)
#undef D2_STEP3
    *oa = a;
    *ob = b;
    *oc = d;
}
