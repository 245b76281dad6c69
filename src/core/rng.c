#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void tl_rng_seed(tl_rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t tl_rng_next(tl_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double tl_rng_uniform(tl_rng *r) { return (double)(tl_rng_next(r) >> 11) * 0x1.0p-53; }

double tl_rng_range(tl_rng *r, double lo, double hi) { return lo + (hi - lo) * tl_rng_uniform(r); }

double tl_rng_normal(tl_rng *r) {
    double u1 = tl_rng_uniform(r), u2 = tl_rng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

void tl_rng_rotation(tl_rng *r, double q[4]) {
    const double two_pi = 6.283185307179586;
    double u1 = tl_rng_uniform(r), u2 = tl_rng_uniform(r), u3 = tl_rng_uniform(r);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    q[0] = a * sin(two_pi * u2);
    q[1] = a * cos(two_pi * u2);
    q[2] = b * sin(two_pi * u3);
    q[3] = b * cos(two_pi * u3);
}
