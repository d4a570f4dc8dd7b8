/* rng.c - MT19937 with NumPy's legacy RandomState conventions (numpy.random, initialisers, dropout) and Paddle's mt19937_64 generator (paddle.rand, randn, ...). */
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

/* ---- Paddle's generator: std::mt19937_64 and libstdc++'s distributions ---- */

#define MT64_N 312
#define MT64_M 156

/* std::seed_seq{seed}.generate(out, out + n) (the seed keeps its low 32 bits). */
static void seed_seq_generate(uint32_t seed, uint32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = 0x8b8b8b8bu;
    size_t s = 1;
    size_t t = n >= 623 ? 11 : n >= 68 ? 7 : n >= 39 ? 5 : n >= 7 ? 3 : (n - 1) / 2;
    size_t p = (n - t) / 2, q = p + t, m = n > s + 1 ? n : s + 1;
    for (size_t k = 0; k < m; k++) {
        uint32_t x = out[k % n] ^ out[(k + p) % n] ^ out[(k + n - 1) % n];
        uint32_t r1 = 1664525u * (x ^ (x >> 27));
        uint32_t r2 = r1 + (k == 0 ? (uint32_t)s : k <= s ? (uint32_t)(k % n) + seed : (uint32_t)(k % n));
        out[(k + p) % n] += r1;
        out[(k + q) % n] += r2;
        out[k % n] = r2;
    }
    for (size_t k = m; k < m + n; k++) {
        uint32_t x = out[k % n] + out[(k + p) % n] + out[(k + n - 1) % n];
        uint32_t r3 = 1566083941u * (x ^ (x >> 27));
        uint32_t r4 = r3 - (uint32_t)(k % n);
        out[(k + p) % n] ^= r3;
        out[(k + q) % n] ^= r4;
        out[k % n] = r4;
    }
}

void d2_mt64_seed(d2_mt64 *s, uint64_t seed)
{
    uint32_t arr[2 * MT64_N];
    seed_seq_generate((uint32_t)seed, arr, 2 * MT64_N);
    bool zero = true;
    for (int i = 0; i < MT64_N; i++) {
        s->key[i] = (uint64_t)arr[2 * i] | (uint64_t)arr[2 * i + 1] << 32;
        if (zero && (i == 0 ? (s->key[0] & ~(uint64_t)0 << 31) != 0 : s->key[i] != 0))
            zero = false;
    }
    if (zero)
        s->key[0] = (uint64_t)1 << 63;
    s->pos = MT64_N;
}

void d2_mt64_seed_int(d2_mt64 *s, uint64_t seed)
{
    s->key[0] = seed;
    for (int i = 1; i < MT64_N; i++)
        s->key[i] = 6364136223846793005u * (s->key[i - 1] ^ (s->key[i - 1] >> 62)) + (uint64_t)i;
    s->pos = MT64_N;
}

static void mt64_gen(d2_mt64 *s)
{
    const uint64_t upper = ~(uint64_t)0 << 31, lower = ~upper, a = 0xb5026f5aa96619e9u;
    int i;
    uint64_t y;
    for (i = 0; i < MT64_N - MT64_M; i++) {
        y = (s->key[i] & upper) | (s->key[i + 1] & lower);
        s->key[i] = s->key[i + MT64_M] ^ (y >> 1) ^ ((y & 1) ? a : 0);
    }
    for (; i < MT64_N - 1; i++) {
        y = (s->key[i] & upper) | (s->key[i + 1] & lower);
        s->key[i] = s->key[i + (MT64_M - MT64_N)] ^ (y >> 1) ^ ((y & 1) ? a : 0);
    }
    y = (s->key[MT64_N - 1] & upper) | (s->key[0] & lower);
    s->key[MT64_N - 1] = s->key[MT64_M - 1] ^ (y >> 1) ^ ((y & 1) ? a : 0);
    s->pos = 0;
}

uint64_t d2_mt64_next(d2_mt64 *s)
{
    if (s->pos >= MT64_N)
        mt64_gen(s);
    uint64_t z = s->key[s->pos++];
    z ^= (z >> 29) & 0x5555555555555555u;
    z ^= (z << 17) & 0x71d67fffeda60000u;
    z ^= (z << 37) & 0xfff7eee000000000u;
    z ^= z >> 43;
    return z;
}

float d2_mt64_canon_f(d2_mt64 *s)
{
    float r = (float)d2_mt64_next(s) / 18446744073709551616.0f;
    return r >= 1.0f ? nextafterf(1.0f, 0.0f) : r;
}

double d2_mt64_canon_d(d2_mt64 *s)
{
    double r = (double)d2_mt64_next(s) / 18446744073709551616.0;
    return r >= 1.0 ? nextafter(1.0, 0.0) : r;
}

float d2_mt64_normal_f(d2_mt64 *s, bool *has_saved, float *saved)
{
    if (*has_saved) {
        *has_saved = false;
        return *saved;
    }
    float x, y, r2;
    do {
        x = 2.0f * d2_mt64_canon_f(s) - 1.0f;
        y = 2.0f * d2_mt64_canon_f(s) - 1.0f;
        r2 = x * x + y * y;
    } while (r2 > 1.0f || r2 == 0.0f);
    float mult = sqrtf(-2.0f * logf(r2) / r2);
    *saved = x * mult;
    *has_saved = true;
    return y * mult;
}

double d2_mt64_normal_d(d2_mt64 *s, bool *has_saved, double *saved)
{
    if (*has_saved) {
        *has_saved = false;
        return *saved;
    }
    double x, y, r2;
    do {
        x = 2.0 * d2_mt64_canon_d(s) - 1.0;
        y = 2.0 * d2_mt64_canon_d(s) - 1.0;
        r2 = x * x + y * y;
    } while (r2 > 1.0 || r2 == 0.0);
    double mult = sqrt(-2.0 * log(r2) / r2);
    *saved = x * mult;
    *has_saved = true;
    return y * mult;
}

/* The 128-bit product a * b as its high and low halves. */
static void mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *lo = (mid << 32) | (p00 & 0xffffffffu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

uint64_t d2_mt64_below(d2_mt64 *s, uint64_t n)
{
    if (n == 0) /* the whole 64-bit range */
        return d2_mt64_next(s);
    uint64_t hi, low;
    mul64(d2_mt64_next(s), n, &hi, &low);
    if (low < n) {
        uint64_t threshold = -n % n;
        while (low < threshold)
            mul64(d2_mt64_next(s), n, &hi, &low);
    }
    return hi;
}

void d2_mt64_shuffle(d2_mt64 *s, int64_t *a, int64_t n)
{
    if (n <= 0)
        return;
    uint64_t range = (uint64_t)n, t;
    if (UINT64_MAX / range >= range) {
        int64_t i = 1;
        if (range % 2 == 0) {
            int64_t j = (int64_t)d2_mt64_below(s, 2);
            t = (uint64_t)a[i], a[i] = a[j], a[j] = (int64_t)t;
            i++;
        }
        while (i != n) {
            uint64_t b0 = (uint64_t)i + 1, b1 = b0 + 1;
            uint64_t x = d2_mt64_below(s, b0 * b1);
            int64_t j0 = (int64_t)(x / b1), j1 = (int64_t)(x % b1);
            t = (uint64_t)a[i], a[i] = a[j0], a[j0] = (int64_t)t;
            i++;
            t = (uint64_t)a[i], a[i] = a[j1], a[j1] = (int64_t)t;
            i++;
        }
        return;
    }
    for (int64_t i = 1; i < n; i++) {
        int64_t j = (int64_t)d2_mt64_below(s, (uint64_t)i + 1);
        t = (uint64_t)a[i], a[i] = a[j], a[j] = (int64_t)t;
    }
}

int64_t d2_mt64_poisson(d2_mt64 *s, double mean)
{
    if (!(mean >= 12)) { /* the product of uniforms against exp(-mean) */
        double thr = exp(-mean), prod = 1.0;
        int64_t x = 0;
        do {
            prod *= d2_mt64_canon_d(s);
            x++;
        } while (prod > thr);
        return x - 1;
    }
    /* Devroye's rejection method, with libstdc++'s constants */
    const double m = floor(mean), lm_thr = log(mean), lfm = lgamma(m + 1), sm = sqrt(m);
    const double pi_4 = 0.7853981633974483096156608458198757;
    const double dx = sqrt(2 * m * log(32 * m / pi_4));
    const double d = round(fmax(6.0, fmin(m, dx)));
    const double cx = 2 * m + d, scx = sqrt(cx / 2), one_cx = 1 / cx;
    const double c2b = sqrt(pi_4 * cx) * exp(one_cx);
    const double cb = 2 * cx * exp(-d * one_cx * (1 + d / 2)) / d;
    const double naf = (1 - 2.220446049250313080847263336181640625e-16) / 2;
    const double thr = 2147483647.0 + naf;
    const double spi_2 = 1.2533141373155002512078826424055226;
    const double c1 = sm * spi_2, c2 = c2b + c1, c3 = c2 + 1, c4 = c3 + 1;
    const double r178 = 0.0128205128205128205128205128205128;
    const double e178 = 1.0129030479320018583185514777512983;
    const double c5 = c4 + e178, c = cb + c5, two_cx = 2 * (2 * m + d);
    bool has = false, reject = true;
    double saved = 0, x = 0;
    do {
        const double u = c * d2_mt64_canon_d(s);
        const double e = -log(1.0 - d2_mt64_canon_d(s));
        double w = 0.0;
        if (u <= c1) {
            const double n = d2_mt64_normal_d(s, &has, &saved);
            const double y = -fabs(n) * sm - 1;
            x = floor(y);
            w = -n * n / 2;
            if (x < -m)
                continue;
        } else if (u <= c2) {
            const double n = d2_mt64_normal_d(s, &has, &saved);
            const double y = 1 + fabs(n) * scx;
            x = ceil(y);
            w = y * (2 - y) * one_cx;
            if (x > d)
                continue;
        } else if (u <= c3) {
            x = -1;
        } else if (u <= c4) {
            x = 0;
        } else if (u <= c5) {
            x = 1;
            w = r178;
        } else {
            const double v = -log(1.0 - d2_mt64_canon_d(s));
            const double y = d + v * two_cx / d;
            x = ceil(y);
            w = -d * one_cx * (1 + y / 2);
        }
        reject = w - e - x * lm_thr > lfm - lgamma(x + m + 1);
        reject |= x + m >= thr;
    } while (reject);
    return (int64_t)(x + m + naf);
}
