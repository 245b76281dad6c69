/* A deterministic random generator (xoshiro256**, seeded by splitmix64). Its
 * whole state is four words, so checkpoints can store it. */
#ifndef TL_RNG_H
#define TL_RNG_H

#include <stdint.h>

typedef struct tl_rng {
    uint64_t s[4];
} tl_rng;

void tl_rng_seed(tl_rng *r, uint64_t seed);
uint64_t tl_rng_next(tl_rng *r);
double tl_rng_uniform(tl_rng *r);          /* [0, 1) */
double tl_rng_range(tl_rng *r, double lo, double hi);
double tl_rng_normal(tl_rng *r);           /* standard normal (Box-Muller) */
/* A rotation drawn uniformly (Haar measure): the unit quaternion (w, x, y, z)
 * of Shoemake's method, from three uniform numbers. */
void tl_rng_rotation(tl_rng *r, double q[4]);

#endif
