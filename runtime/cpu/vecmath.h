/* vecmath.h - float functions written so that loops over them vectorise (libm's are scalar
 * calls): erf and gelu, shared by the gelu op and fused epilogues. */
#ifndef DY2ST_CPU_VECMATH_H
#define DY2ST_CPU_VECMATH_H

/* erf(x) for float as a rational function of x (odd degree 13 over even degree 8, the
 * coefficients of Eigen's and XLA's vectorised erf), x clamped to [-4, 4] where erf is +-1 in
 * float: largest error 4.2e-7 against double erf, so gelu is within 1.4e-6 of the exact value
 * for |x| < 10 (libm's erff: 4.5e-7). */
static inline float d2_erf_poly(float a)
{
    float x = a > 4.0f ? 4.0f : a < -4.0f ? -4.0f : a;
    float x2 = x * x;
    float p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
    p = x2 * p + -2.10102402082508e-06f;
    p = x2 * p + -5.69250639462346e-05f;
    p = x2 * p + -7.34990630326855e-04f;
    p = x2 * p + -2.95459980854025e-03f;
    p = x2 * p + -1.60960333262415e-02f;
    float q = x2 * -1.45660718464996e-05f + -2.13374055278905e-04f;
    q = x2 * q + -1.68282697438203e-03f;
    q = x2 * q + -7.37332916720468e-03f;
    q = x2 * q + -1.42647390514189e-02f;
    return x * p / q;
}

/* Exact gelu, x/2 (1 + erf(x/sqrt 2)). */
static inline float d2_gelu_f32(float x)
{
    return 0.5f * x * (1.0f + d2_erf_poly(x * 0.70710678118654752f));
}

#endif
