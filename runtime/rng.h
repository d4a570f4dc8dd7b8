/* rng.h - the random number generator behind paddle.seed and numpy.random. */
#ifndef DY2ST_RNG_H
#define DY2ST_RNG_H

#include <stdbool.h>
#include <stdint.h>

/* MT19937 with NumPy's legacy RandomState conventions (seed = init_genrand,
 * 53-bit doubles from two draws, polar Box-Muller with a cached value). */
typedef struct d2_mt19937 {
    uint32_t key[624];
    int pos;
    bool has_gauss;
    double gauss;
} d2_mt19937;
void d2_mt_seed(d2_mt19937 *s, uint32_t seed);
void d2_mt_seed_array(d2_mt19937 *s, const uint32_t *key, int n);
uint32_t d2_mt_next32(d2_mt19937 *s);
uint64_t d2_mt_next64(d2_mt19937 *s);
double d2_mt_double(d2_mt19937 *s);
double d2_mt_gauss(d2_mt19937 *s);
/* Uniform integer in [0, rng] by masked rejection (NumPy's legacy randint). */
uint64_t d2_mt_bounded(d2_mt19937 *s, uint64_t rng);

/* Paddle's CPU generator: std::mt19937_64 seeded through std::seed_seq{seed}
 * (paddle.seed), drawn as libstdc++'s distributions draw, so that seeded
 * random tensors and initial weights equal Paddle's. */
typedef struct d2_mt64 {
    uint64_t mt[312];
    int pos;
} d2_mt64;
void d2_mt64_seed(d2_mt64 *s, uint64_t seed);
uint64_t d2_mt64_next(d2_mt64 *s);
/* std::generate_canonical<float, 24> and <double, 53>: one draw each */
float d2_mt64_canonical_f(d2_mt64 *s);
double d2_mt64_canonical_d(d2_mt64 *s);
/* std::uniform_int_distribution over [0, rng] (rejection, then downscaling) */
uint64_t d2_mt64_bounded(d2_mt64 *s, uint64_t rng);
/* n values of one std::normal_distribution<float> (or <double>): Marsaglia's
 * polar method, each pair used second value first; a value left over at the
 * end is dropped, as the distribution object ends with the call. */
void d2_mt64_normal_f(d2_mt64 *s, float mean, float std, float *out, int64_t n);
void d2_mt64_normal_d(d2_mt64 *s, double mean, double std, double *out, int64_t n);

/* A counter-based stream: the 53-bit double in [0, 1) at position i of the
 * stream named by seed (SplitMix64 of both), so that a kernel draws element i
 * without shared state and every backend draws the same numbers. */
double d2_rng_at(uint64_t seed, uint64_t i);

#endif
