/* gemm.h - GEMM through BLIS. */
#ifndef DY2ST_GEMM_H
#define DY2ST_GEMM_H
#endif
