/* shape.cl - data movement by element size: strided copy, tile, gather/index_select/embedding. */

/* copy_S: dst[do + off(i, ds)] = src[so + off(i, ss)] over a row-major shape
 * of nd dims: transpose, expand, slice, concat, stack, split all reduce to it. */
#define D2_COPY_KERNEL(T, E)                                                                    \
    __kernel void copy_##E(long n, int nd, long8 sh8, __global const T *src, long so,           \
                           long8 ss8, __global T *dst, long dof, long8 ds8)                     \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= n)                                                                             \
            return;                                                                             \
        long si, di;                                                                            \
        d2_offset2(i, nd, sh8, ss8, ds8, &si, &di);                                             \
        dst[dof + di] = src[so + si];                                                           \
    }
D2_ELEM_TYPES(D2_COPY_KERNEL)

/* Offset in contiguous src (shape ish) of element i of out (shape osh, same
 * rank) when out[..c_d..] = src[..c_d % ish_d..]. */
long d2_tile_offset(long i, int nd, long8 osh, long8 ish)
{
    long off = 0, mul = 1, q;
#define D2_TSTEP(c)                                   \
    if (c < nd) {                                     \
        q = i / osh.s##c;                             \
        off += ((i - q * osh.s##c) % ish.s##c) * mul; \
        mul *= ish.s##c;                              \
        i = q;                                        \
    }
    D2_DIMS_DOWN(D2_TSTEP)
#undef D2_TSTEP
    return off;
}

/* tile_S: contiguous out of shape osh from contiguous src of shape ish. */
#define D2_TILE_KERNEL(T, E)                                                                    \
    __kernel void tile_##E(long n, int nd, long8 osh8, long8 ish8, __global const T *src,       \
                           long so, __global T *dst, long dof)                                  \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= n)                                                                             \
            return;                                                                             \
        dst[dof + i] = src[so + d2_tile_offset(i, nd, osh8, ish8)];                             \
    }
D2_ELEM_TYPES(D2_TILE_KERNEL)

/* gather_S_I: src seen as [outer, dim, inner], idx as nidx indices of type I;
 * dst[o, j, r] = src[o, idx[j], r]. An index equal to pad (when pad >= 0)
 * writes zero (embedding's padding_idx); one outside [0, dim) writes zero
 * and lowers flag[0] to its position (the host reports the first one). */
#define D2_GATHER_KERNEL(T, E, TI, SI)                                                          \
    __kernel void gather_##E##_##SI(long n, long inner, long nidx, long dim,                    \
                                    __global const T *src, long so, __global const TI *idx,     \
                                    long io, __global T *dst, long dof, long pad,               \
                                    __global int *flag)                                         \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= n)                                                                             \
            return;                                                                             \
        long r = i % inner, t = i / inner;                                                      \
        long j = t % nidx, o = t / nidx;                                                        \
        long id = (long)idx[io + j];                                                            \
        if (pad >= 0 && id == pad) {                                                            \
            dst[dof + i] = 0;                                                                   \
        } else if (id < 0 || id >= dim) {                                                       \
            atomic_min((volatile __global int *)flag, (int)min(j, (long)0x7ffffffe));           \
            dst[dof + i] = 0;                                                                   \
        } else {                                                                                \
            dst[dof + i] = src[so + (o * dim + id) * inner + r];                                \
        }                                                                                       \
    }
#define D2_GATHER_FOR(T, E) D2_INDEX_TYPES_B(D2_GATHER_KERNEL, T, E)
D2_ELEM_TYPES(D2_GATHER_FOR)
