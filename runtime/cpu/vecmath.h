/* vecmath.h - float functions written so that loops over them vectorise (libm's are scalar
 * calls): erf and gelu, shared by the gelu op and fused epilogues; exp, tanh and sigmoid,
 * shared by the tanh and sigmoid ops and fused_elementwise. */
#ifndef DY2ST_CPU_VECMATH_H
#define DY2ST_CPU_VECMATH_H

#include <stdint.h>
#include <string.h>

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

/* exp(x) for float x in [-87.3, 88.3] (callers clamp; NaN gives NaN): Cephes' expf, the
 * reduction x = n ln2 + r (|r| <= ln2/2, ln2 in two parts) and a degree-7 polynomial in r, then
 * 2^n from n's exponent bits. n is rounded by adding 1.5 * 2^23, which leaves it in the low
 * bits of the sum, so that no float is converted to an integer (NaN would be undefined there):
 * within 2 ulp of exp. Branch-free, so that loops over it vectorise. */
static inline float d2_exp_f32_core(float x)
{
    const float shift = 12582912.0f; /* 1.5 * 2^23 */
    float k = x * 1.44269504088896341f + shift;
    uint32_t kb;
    memcpy(&kb, &k, sizeof kb);
    float n = k - shift;
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float y = p * (r * r) + r + 1.0f;
    uint32_t sb = (kb - 0x4b400000u + 127u) << 23; /* 2^n: n + 127 in the exponent field */
    float s;
    memcpy(&s, &sb, sizeof s);
    return y * s;
}

/* tanh(x) for float: Cephes' tanhf. |x| < 0.625: x + x^3 P(x^2) (degree 4); otherwise
 * 1 - 2 / (exp(2|x|) + 1) with the sign of x, 2|x| clamped to 20 (tanh is 1 in float past 9).
 * Both are computed and one is selected, branch-free; NaN stays NaN, -0 stays -0. Largest
 * error, measured over every float against double tanh: 1.4 ulp. */
static inline float d2_tanh_f32(float x)
{
    float ax = x < 0 ? -x : x;
    float z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z + -5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z + -3.33332819422e-1f;
    float small = p * z * x + x;
    float t = ax + ax;
    t = t > 20.0f ? 20.0f : t;
    float big = 1.0f - 2.0f / (d2_exp_f32_core(t) + 1.0f);
    big = x < 0 ? -big : big;
    return x == 0 ? x : ax < 0.625f ? small : big;
}

/* sigmoid(x) = 1 / (1 + exp(-x)) for float, -x clamped below at -87.3 (sigmoid is 1 in float
 * long before); below x = -88.3 it is 0, as with libm's expf, which overflows near there (the
 * exact value is below 5e-39). NaN stays NaN. Largest error, measured over every float in
 * [-87, 87] against double: 2.5 ulp. */
static inline float d2_sigmoid_f32(float x)
{
    float t = -x;
    float c = t < -87.3f ? -87.3f : t > 88.3f ? 88.3f : t;
    float y = 1.0f / (1.0f + d2_exp_f32_core(c));
    return t > 88.3f ? 0.0f : y;
}

#endif
