/*
 * Reproducible sums: the same bits whatever the order of the terms (and so
 * whatever the number of threads or ranks that add them).
 *
 * A floating-point sum depends on the order of its terms. Here each term is
 * first rounded to a fixed point grid, 2^(e - TL_RSUM_BITS), e the binary
 * exponent of a bound on the terms (the largest |term| of the whole sum,
 * found first: a maximum is order-independent), and the grid values are
 * added exactly in a 128-bit integer; the total is rounded to double once.
 * Exact integer addition is associative, so any grouping of the terms
 * (chunks per thread, per rank, merged in any order) gives the same total.
 *
 * Accuracy: each term is off by at most half a grid step, 2^(e - 97) <
 * 1.3e-29 |bound|; with n terms the total is within n x that of the exact
 * sum (then one rounding): far below the double rounding of an ordinary sum
 * of terms near the bound. Terms below a grid step count as zero, alike in
 * every order. Capacity: |term| / 2^(e-96) < 2^97 per term, so up to 2^30
 * terms (about 1e9) cannot overflow.
 */
#ifndef TL_RSUM_H
#define TL_RSUM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define TL_RSUM_BITS 96

__extension__ typedef __int128 tl_i128;
__extension__ typedef unsigned __int128 tl_u128;

typedef struct tl_rsum {
    tl_i128 acc;
    int e;        /* the bound's exponent: the grid is 2^(e - TL_RSUM_BITS) */
    double scale; /* 2^(TL_RSUM_BITS - e) when a normal double, else 0 (then ldexp) */
} tl_rsum;

/* The exponent for terms bounded by max_abs (>= 0; 0 or non-finite: the grid of 1). */
static inline int tl_rsum_exponent(double max_abs) {
    if (!(max_abs > 0.0) || !isfinite(max_abs)) return 0;
    int e;
    (void)frexp(max_abs, &e); /* max_abs < 2^e */
    return e;
}

static inline void tl_rsum_begin(tl_rsum *s, int e) {
    s->acc = 0;
    s->e = e;
    int k = TL_RSUM_BITS - e;
    s->scale = k >= -1022 && k <= 1023 ? ldexp(1.0, k) : 0.0;
}

/* Adds x (|x| must not exceed 2^e). The scaling by a power of two is exact (a product
 * with a normal power of two rounds only where ldexp would: below the smallest normal,
 * where nearbyint gives 0 either way). */
static inline void tl_rsum_add(tl_rsum *s, double x) {
    double q = nearbyint(s->scale != 0.0 ? x * s->scale : ldexp(x, TL_RSUM_BITS - s->e)); /* |q| <= 2^96 */
    if (fabs(q) < 0x1p62) s->acc += (int64_t)q; /* one instruction, the common case */
    else s->acc += (tl_i128)q;
}

/* Adds another partial sum of the same exponent (exact). */
static inline void tl_rsum_merge(tl_rsum *to, const tl_rsum *from) { to->acc += from->acc; }

/* The total, rounded to double once: the integer's top 64 significant bits,
 * with a sticky bit for those below, converted (one rounding), then scaled. */
static inline double tl_rsum_value(const tl_rsum *s) {
    tl_i128 a = s->acc;
    int neg = a < 0;
    tl_u128 u = neg ? (tl_u128)(-a) : (tl_u128)a;
    uint64_t hi = (uint64_t)(u >> 64), lo = (uint64_t)u;
    double v;
    if (hi == 0) {
        v = (double)lo; /* one rounding */
    } else {
        /* keep the top 64 significant bits with a sticky bit: one rounding */
        int shift = 64 - __builtin_clzll(hi); /* bits of hi */
        tl_u128 top = u >> shift;              /* < 2^64 */
        int sticky = (u & ((((tl_u128)1) << shift) - 1)) != 0;
        uint64_t t = (uint64_t)top;
        /* fold the sticky bit into the lowest bit of t (t's low bits are far below a
         * double's 53: this only breaks exact ties, as a sticky bit should) */
        t |= (uint64_t)sticky;
        v = ldexp((double)t, shift);
    }
    v = neg ? -v : v;
    return ldexp(v, s->e - TL_RSUM_BITS);
}

/* The reproducible sum of n values (stride in doubles between them). */
static inline double tl_rsum_array(const double *x, size_t n, size_t stride) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i * stride]));
    tl_rsum s;
    tl_rsum_begin(&s, tl_rsum_exponent(m));
    for (size_t i = 0; i < n; i++) tl_rsum_add(&s, x[i * stride]);
    return tl_rsum_value(&s);
}

#endif
