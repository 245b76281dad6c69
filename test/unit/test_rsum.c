/* Reproducible sums (src/core/rsum.h): the same bits in any order and any
 * grouping, and within an ulp of the exact sum. The exact sum is computed with
 * rational arithmetic on the terms' own fixed point (every double is an
 * integer times a power of two): terms of 1e-20 to 1e6, of both signs, with
 * cancellation. Reaches into src/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsum.h"
#include "test.h"

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}
static double urand(uint64_t *s) { return (double)lcg(s) * 0x1.0p-53; }

/* the exact sum, rounded once: long double accumulation of terms sorted by magnitude is
 * not exact; instead an integer sum on a grid fine enough for every term */
static double exact_sum(const double *x, size_t n) {
    /* every term here is a multiple of 2^-140 and below 2^30: 170 bits; split into three
     * 64-bit limbs of a fixed point with 140 fractional bits */
    __extension__ __int128 hi = 0, lo = 0;
    /* value = hi * 2^64 + lo, in units of 2^-140 */
    __extension__ const __int128 ONE128 = 1; /* powers of two by shifting 1: shifting a negative value is undefined */
    for (size_t i = 0; i < n; i++) {
        int e;
        double m = frexp(x[i], &e);                  /* x = m 2^e, 0.5 <= |m| < 1 */
        int64_t mi = (int64_t)ldexp(m, 53);          /* x = mi 2^(e - 53) */
        int sh = e - 53 + 140;                       /* x = mi 2^sh units */
        if (sh < 0) {
            fprintf(stderr, "exact_sum: term too small\n");
            abort();
        }
        __extension__ __int128 v = (__int128)mi;
        if (sh < 64) {
            __extension__ __int128 part = v * (ONE128 << sh); /* fits: |mi| < 2^53, sh < 64 (a product: shifting a negative value is undefined) */
            lo += part;
        } else {
            hi += v * (ONE128 << (sh - 64));
        }
        /* normalise: move lo's high part into hi */
        __extension__ __int128 carry = lo >> 64;
        lo -= carry * (ONE128 << 64);
        hi += carry;
    }
    long double v = (long double)hi * 0x1.0p64L + (long double)lo; /* 64-bit mantissa: enough for one
                                                                      * rounding check below */
    return (double)ldexpl(v, -140);
}

int main(void) {
    uint64_t seed = 12345;
    const size_t n = 20000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    int worst_ulps = 0;
    for (int trial = 0; trial < 20; trial++) {
        for (size_t i = 0; i < n; i++) {
            double mag = pow(10.0, -20.0 + 26.0 * urand(&seed));
            x[i] = ldexp(nearbyint(ldexp((urand(&seed) - 0.5) * mag, 120)), -120); /* on the 2^-120 grid */
            if (fabs(x[i]) < 0x1.0p-100) x[i] = 0.0;
        }
        /* cancellation: the last terms undo most of the sum */
        x[n - 1] = -x[0];
        x[n - 2] = -x[1];
        double a = tl_rsum_array(x, n, 1);
        /* reversed, shuffled, and in chunks merged in another order */
        for (size_t i = 0; i < n; i++) y[i] = x[n - 1 - i];
        double b = tl_rsum_array(y, n, 1);
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)(urand(&seed) * (double)(i + 1));
            double t = y[i];
            y[i] = y[j];
            y[j] = t;
        }
        double c = tl_rsum_array(y, n, 1);
        double m = 0.0;
        for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
        int e = tl_rsum_exponent(m);
        tl_rsum parts[7];
        for (int k = 0; k < 7; k++) tl_rsum_begin(&parts[k], e);
        for (size_t i = 0; i < n; i++) tl_rsum_add(&parts[(i * 31) % 7], x[i]);
        tl_rsum all;
        tl_rsum_begin(&all, e);
        for (int k = 6; k >= 0; k--) tl_rsum_merge(&all, &parts[k]);
        double d = tl_rsum_value(&all);
        ENSURE(memcmp(&a, &b, sizeof a) == 0);
        ENSURE(memcmp(&a, &c, sizeof a) == 0);
        ENSURE(memcmp(&a, &d, sizeof a) == 0);
        /* against the exact sum: each term's grid error is < 2^(e-97), n of them */
        double ex = exact_sum(x, n);
        double tol = fabs(ex) * 0x1.0p-52 + (double)n * ldexp(1.0, e - 97);
        ENSURE_NEAR(a, ex, tol);
        double naive = 0.0;
        for (size_t i = 0; i < n; i++) naive += y[i];
        double ulp = fabs(ex) > 0 ? ldexp(1.0, ilogb(ex) - 52) : 1e-300;
        int ulps = (int)fmin(1e9, fabs(a - ex) / ulp);
        if (ulps > worst_ulps) worst_ulps = ulps;
        if (trial == 0)
            fprintf(stderr, "sum of %zu terms (1e-20 to 1e6, cancelling): reproducible %.17g, exact %.17g, "
                            "naive shuffled %.17g\n", n, a, ex, naive);
    }
    fprintf(stderr, "20 trials: the same bits in 4 orders and groupings; at most %d ulp from the exact sum\n",
            worst_ulps);
    ENSURE(worst_ulps <= 1);
    double z[3] = {0.0, 0.0, 0.0};
    ENSURE(tl_rsum_array(z, 3, 1) == 0.0);
    free(x);
    free(y);
    return tl_test_report("test_rsum");
}
