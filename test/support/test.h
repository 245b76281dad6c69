/* A tiny assertion header: ENSURE(cond), ENSURE_NEAR(value, expected, tol),
 * ENSURE_REL(value, expected, rel). A failed check prints the expression,
 * the values and the line, counts, and the test goes on; main returns the
 * number of failures. */
#ifndef TL_TEST_H
#define TL_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int tl_test_failures = 0;
static int tl_test_checks = 0;

#define ENSURE(cond)                                                                   \
    do {                                                                               \
        tl_test_checks++;                                                              \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
            tl_test_failures++;                                                        \
        }                                                                              \
    } while (0)

#define ENSURE_NEAR(value, expected, tol)                                                       \
    do {                                                                                        \
        double v_ = (double)(value), e_ = (double)(expected), t_ = (double)(tol);                \
        tl_test_checks++;                                                                       \
        if (!(fabs(v_ - e_) <= t_)) {                                                           \
            fprintf(stderr, "%s:%d: %s = %.10g, expected %.10g within %.3g (off by %.3g)\n",   \
                    __FILE__, __LINE__, #value, v_, e_, t_, v_ - e_);                           \
            tl_test_failures++;                                                                 \
        }                                                                                       \
    } while (0)

#define ENSURE_REL(value, expected, rel)                                                        \
    do {                                                                                        \
        double v_ = (double)(value), e_ = (double)(expected), r_ = (double)(rel);                \
        tl_test_checks++;                                                                       \
        if (!(fabs(v_ - e_) <= r_ * fabs(e_))) {                                                \
            fprintf(stderr, "%s:%d: %s = %.10g, expected %.10g within %.3g relative (%.3g)\n", \
                    __FILE__, __LINE__, #value, v_, e_, r_, (v_ - e_) / e_);                    \
            tl_test_failures++;                                                                 \
        }                                                                                       \
    } while (0)

#define ENSURE_OK(expr)                                                                   \
    do {                                                                                  \
        int s_ = (int)(expr);                                                             \
        tl_test_checks++;                                                                 \
        if (s_ != 0) {                                                                    \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #expr, s_);    \
            tl_test_failures++;                                                           \
        }                                                                                 \
    } while (0)

static inline int tl_test_report(const char *name) {
    fprintf(stderr, "%s: %d checks, %d failed\n", name, tl_test_checks, tl_test_failures);
    return tl_test_failures ? 1 : 0;
}

#endif
