/* rng.h - the random number generators behind paddle.seed, paddle.rand & co. and numpy.random. */
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

/* A counter-based stream: the 53-bit double in [0, 1) at position i of the
 * stream named by seed (SplitMix64 of both), so that a kernel draws element i
 * without shared state and every backend draws the same numbers. */
double d2_rng_at(uint64_t seed, uint64_t i);

/* Paddle's CPU generator: std::mt19937_64 seeded through std::seed_seq{seed}
 * (Paddle's Generator::SetCurrentSeed), and the libstdc++ distributions its
 * CPU kernels draw with, so that paddle.seed(s) followed by paddle.rand,
 * randn, uniform, normal, randint or randperm gives Paddle's numbers. */
typedef struct d2_mt64 {
    uint64_t key[312];
    int pos;
} d2_mt64;
void d2_mt64_seed(d2_mt64 *s, uint64_t seed);
/* mt19937_64::seed(seed): the engine's own integer seeding (a kernel's seed
 * attribute). */
void d2_mt64_seed_int(d2_mt64 *s, uint64_t seed);
uint64_t d2_mt64_next(d2_mt64 *s);
/* std::generate_canonical<float, 24> and <double, 53>: a value in [0, 1). */
float d2_mt64_canon_f(d2_mt64 *s);
double d2_mt64_canon_d(d2_mt64 *s);
/* std::normal_distribution (Marsaglia's polar method) in float or double
 * arithmetic; *saved holds the second value of a pair and *has_saved says
 * whether it is set: start both cleared for each new distribution object
 * (Paddle makes one per kernel call). */
float d2_mt64_normal_f(d2_mt64 *s, bool *has_saved, float *saved);
double d2_mt64_normal_d(d2_mt64 *s, bool *has_saved, double *saved);
/* std::uniform_int_distribution over [0, n - 1] (n >= 1), libstdc++'s
 * multiply-shift with rejection for a 64-bit engine. */
uint64_t d2_mt64_below(d2_mt64 *s, uint64_t n);
/* std::shuffle of a[0..n-1] as libstdc++ does it (two swap positions from
 * one draw while n * n fits in 64 bits). */
void d2_mt64_shuffle(d2_mt64 *s, int64_t *a, int64_t n);
/* std::poisson_distribution<int>(mean), one draw (a fresh distribution). */
int64_t d2_mt64_poisson(d2_mt64 *s, double mean);

#endif
