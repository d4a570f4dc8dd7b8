/* rng.c - MT19937 with NumPy's legacy RandomState conventions: paddle.seed and numpy.random draw from it. */
#include "rng.h"

#include <math.h>

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
