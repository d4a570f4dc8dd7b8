/* rng.c - MT19937 with NumPy's legacy RandomState conventions: paddle.seed and numpy.random draw from it. */
#include "rng.h"

#include <math.h>
#include <stddef.h>

#define MT_N 624
#define MT_M 397

void d2_mt_seed(d2_mt19937 *s, uint32_t seed)
{
    for (int i = 0; i < MT_N; i++) {
        s->key[i] = seed;
        seed = 1812433253u * (seed ^ (seed >> 30)) + (uint32_t)i + 1;
    }
    s->pos = MT_N;
    s->has_gauss = false;
    s->gauss = 0;
}

void d2_mt_seed_array(d2_mt19937 *s, const uint32_t *key, int n)
{
    d2_mt_seed(s, 19650218u);
    int i = 1, j = 0;
    int k = MT_N > n ? MT_N : n;
    for (; k; k--) {
        s->key[i] = (s->key[i] ^ ((s->key[i - 1] ^ (s->key[i - 1] >> 30)) * 1664525u)) + key[j] +
                    (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            s->key[0] = s->key[MT_N - 1];
            i = 1;
        }
        if (j >= n)
            j = 0;
    }
    for (k = MT_N - 1; k; k--) {
        s->key[i] =
            (s->key[i] ^ ((s->key[i - 1] ^ (s->key[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            s->key[0] = s->key[MT_N - 1];
            i = 1;
        }
    }
    s->key[0] = 0x80000000u;
    s->pos = MT_N;
    s->has_gauss = false;
    s->gauss = 0;
}

static void mt_gen(d2_mt19937 *s)
{
    uint32_t y;
    int i;
    for (i = 0; i < MT_N - MT_M; i++) {
        y = (s->key[i] & 0x80000000u) | (s->key[i + 1] & 0x7fffffffu);
        s->key[i] = s->key[i + MT_M] ^ (y >> 1) ^ (-(y & 1) & 0x9908b0dfu);
    }
    for (; i < MT_N - 1; i++) {
        y = (s->key[i] & 0x80000000u) | (s->key[i + 1] & 0x7fffffffu);
        s->key[i] = s->key[i + (MT_M - MT_N)] ^ (y >> 1) ^ (-(y & 1) & 0x9908b0dfu);
    }
    y = (s->key[MT_N - 1] & 0x80000000u) | (s->key[0] & 0x7fffffffu);
    s->key[MT_N - 1] = s->key[MT_M - 1] ^ (y >> 1) ^ (-(y & 1) & 0x9908b0dfu);
    s->pos = 0;
}

uint32_t d2_mt_next32(d2_mt19937 *s)
{
    if (s->pos >= MT_N)
        mt_gen(s);
    uint32_t y = s->key[s->pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

uint64_t d2_mt_next64(d2_mt19937 *s)
{
    uint64_t hi = d2_mt_next32(s);
    return hi << 32 | d2_mt_next32(s);
}

double d2_mt_double(d2_mt19937 *s)
{
    int32_t a = (int32_t)(d2_mt_next32(s) >> 5), b = (int32_t)(d2_mt_next32(s) >> 6);
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

double d2_mt_gauss(d2_mt19937 *s)
{
    if (s->has_gauss) {
        double t = s->gauss;
        s->has_gauss = false;
        s->gauss = 0;
        return t;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * d2_mt_double(s) - 1.0;
        x2 = 2.0 * d2_mt_double(s) - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    s->gauss = f * x1;
    s->has_gauss = true;
    return f * x2;
}

uint64_t d2_mt_bounded(d2_mt19937 *s, uint64_t rng)
{
    if (rng == 0)
        return 0;
    uint64_t mask = rng;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    uint64_t v;
    if (rng <= 0xffffffffu) {
        if (rng == 0xffffffffu)
            return d2_mt_next32(s);
        while ((v = (d2_mt_next32(s) & mask)) > rng)
            ;
    } else {
        if (rng == UINT64_MAX)
            return d2_mt_next64(s);
        while ((v = (d2_mt_next64(s) & mask)) > rng)
            ;
    }
    return v;
}

static uint64_t splitmix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

double d2_rng_at(uint64_t seed, uint64_t i)
{
    uint64_t z = splitmix64(splitmix64(seed) ^ (i * 0xd1b54a32d192ed03u));
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- std::mt19937_64 with std::seed_seq seeding (Paddle's generator) ---- */

/* std::seed_seq{v}.generate(b, b + n) for one 32-bit value v ([rand.util.seedseq]) */
static void seed_seq_generate(uint32_t v, uint32_t *b, size_t n)
{
    const size_t s = 1, m = n > s + 1 ? n : s + 1;
    const size_t t = n >= 623 ? 11 : n >= 68 ? 7 : n >= 39 ? 5 : n >= 7 ? 3 : (n - 1) / 2;
    const size_t p = (n - t) / 2, q = p + t;
    for (size_t i = 0; i < n; i++)
        b[i] = 0x8b8b8b8bu;
    for (size_t k = 0; k < m; k++) {
        uint32_t x = b[k % n] ^ b[(k + p) % n] ^ b[(k + n - 1) % n];
        uint32_t r1 = 1664525u * (x ^ (x >> 27));
        uint32_t r2 = r1 + (k == 0 ? (uint32_t)s : k <= s ? (uint32_t)(k % n) + v : (uint32_t)(k % n));
        b[(k + p) % n] += r1;
        b[(k + q) % n] += r2;
        b[k % n] = r2;
    }
    for (size_t k = m; k < m + n; k++) {
        uint32_t x = b[k % n] + b[(k + p) % n] + b[(k + n - 1) % n];
        uint32_t r3 = 1566083941u * (x ^ (x >> 27));
        uint32_t r4 = r3 - (uint32_t)(k % n);
        b[(k + p) % n] ^= r3;
        b[(k + q) % n] ^= r4;
        b[k % n] = r4;
    }
}

void d2_mt64_seed(d2_mt64 *s, uint64_t seed)
{
    uint32_t w[624];
    seed_seq_generate((uint32_t)seed, w, 624);
    bool zero = true;
    for (int i = 0; i < 312; i++) {
        s->mt[i] = (uint64_t)w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
        zero = zero && (i == 0 ? (s->mt[0] >> 31) == 0 : s->mt[i] == 0);
    }
    if (zero) /* the standard's guard against an all-zero state */
        s->mt[0] = (uint64_t)1 << 63;
    s->pos = 312;
}

uint64_t d2_mt64_next(d2_mt64 *s)
{
    if (s->pos >= 312) {
        for (int k = 0; k < 312; k++) {
            uint64_t x = (s->mt[k] & 0xFFFFFFFF80000000u) | (s->mt[(k + 1) % 312] & 0x7FFFFFFFu);
            uint64_t xa = x >> 1;
            if (x & 1)
                xa ^= 0xB5026F5AA96619E9u;
            s->mt[k] = s->mt[(k + 156) % 312] ^ xa;
        }
        s->pos = 0;
    }
    uint64_t y = s->mt[s->pos++];
    y ^= (y >> 29) & 0x5555555555555555u;
    y ^= (y << 17) & 0x71D67FFFEDA60000u;
    y ^= (y << 37) & 0xFFF7EEE000000000u;
    return y ^ (y >> 43);
}

float d2_mt64_canonical_f(d2_mt64 *s)
{
    float r = (float)d2_mt64_next(s) * 0x1p-64f;
    return r >= 1.0f ? 0x1.fffffep-1f : r;
}

double d2_mt64_canonical_d(d2_mt64 *s)
{
    double r = (double)d2_mt64_next(s) * 0x1p-64;
    return r >= 1.0 ? 0x1.fffffffffffffp-1 : r;
}

uint64_t d2_mt64_bounded(d2_mt64 *s, uint64_t rng)
{
    if (rng == UINT64_MAX)
        return d2_mt64_next(s);
    uint64_t range = rng + 1, scaling = UINT64_MAX / range, past = range * scaling, r;
    do
        r = d2_mt64_next(s);
    while (r >= past);
    return r / scaling;
}

void d2_mt64_normal_f(d2_mt64 *s, float mean, float std, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i += 2) {
        float x, y, r2;
        do {
            x = 2.0f * d2_mt64_canonical_f(s) - 1.0f;
            y = 2.0f * d2_mt64_canonical_f(s) - 1.0f;
            r2 = x * x + y * y;
        } while (r2 > 1.0f || r2 == 0.0f);
        float mult = sqrtf(-2.0f * logf(r2) / r2);
        float a = y * mult, b = x * mult;
        out[i] = a * std + mean;
        if (i + 1 < n)
            out[i + 1] = b * std + mean;
    }
}

void d2_mt64_normal_d(d2_mt64 *s, double mean, double std, double *out, int64_t n)
{
    for (int64_t i = 0; i < n; i += 2) {
        double x, y, r2;
        do {
            x = 2.0 * d2_mt64_canonical_d(s) - 1.0;
            y = 2.0 * d2_mt64_canonical_d(s) - 1.0;
            r2 = x * x + y * y;
        } while (r2 > 1.0 || r2 == 0.0);
        double mult = sqrt(-2.0 * log(r2) / r2);
        out[i] = y * mult * std + mean;
        if (i + 1 < n)
            out[i + 1] = x * mult * std + mean;
    }
}
