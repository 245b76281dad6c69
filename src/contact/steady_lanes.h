/*
 * Steady contacts four or eight at a time: the lean path's Hertz-Mindlin
 * contact (contact_forces.c, steady_body, with tl_hm_eval_sr and
 * tl_coulomb_eval) evaluated in the four lanes of AVX2 registers or the eight
 * of AVX-512 ones, whichever the CPU has. Each lane performs the
 * scalar code's IEEE operations in the scalar code's order (no fused
 * multiply-add, no reassociation), so each lane's numbers are the scalar
 * ones bit for bit; the caller applies the forces lane by lane in list
 * order, so every particle receives the same additions in the same order.
 *
 * Only for what the batch is written for: a bed of one radius, mass and law
 * (the stage's all_mono), leapfrog's drift velocities, the fused
 * Hertz-Mindlin law with its true history at the start of a record of 8
 * values (history 3, then the core bookkeeping), any of the three Coulomb
 * tests; and only on a CPU with AVX2. tl_lanes_law_make says whether.
 */
#ifndef TL_STEADY_LANES_H
#define TL_STEADY_LANES_H

#include <stdbool.h>
#include <stdint.h>

#include "law.h"

/* The constants of the batch, each worked out by the scalar kernel's operations. */
typedef struct tl_lanes_law {
    double ri, rj;          /* the bed's radius (both sides) */
    double rr;              /* ri + rj */
    double split, split_b;  /* the pair's lever-arm split */
    double dt;
    double K;               /* pn[0] sr */
    double Cd;              /* sqrt(5) pd[0] (fused[0] A) */
    double Ckt;             /* pt[1] sr */
    double Ce1, Ce2;        /* 2 sqrt(5/6) pt[2], fused[1] A */
    double kfac;            /* pt[4] */
    double mu;              /* pt[0] */
    bool clamp;             /* the law clamps a tensile normal force to zero */
    int test;               /* the Coulomb test (tl_coulomb_test) */
    unsigned width;         /* the lanes a batch fills: 4 or 8 */
} tl_lanes_law;

#define TL_LANES_MAX 8

/* What the lanes give for the caller to apply (one value per lane; four lanes fill the first
 * four columns). */
typedef struct tl_lanes_out {
    double fa[3][TL_LANES_MAX];  /* force on a */
    double cn[3][TL_LANES_MAX];  /* n x ft */
    double tqi[3][TL_LANES_MAX]; /* torque on a: cn la */
    double tqj[3][TL_LANES_MAX]; /* torque on b: cn lb */
    double la[TL_LANES_MAX], lb[TL_LANES_MAX];
} __attribute__((aligned(64))) tl_lanes_out;

/* Whether this build and CPU have the lanes (AVX2). */
bool tl_lanes_available(void);
/* How many lanes this build and CPU give: 8 (AVX-512 F and DQ), 4 (AVX2) or 0. */
unsigned tl_lanes_width(void);

/* Fills c for a law and pair of the one-size bed (sr = sqrt(R*), A = sqrt(m* sqrt(R*)), r the
 * radius), with the widest lanes the CPU has, or four when max_width is 4; false when the batch
 * does not apply (see above) or the CPU lacks AVX2. */
bool tl_lanes_law_make(tl_lanes_law *c, const tl_law *law, const tl_pair_law *pl, double r, double sr,
                       double A, double dt, int hist_values, int record_stride, unsigned max_width);

/* Evaluates the candidates k[0..n) of the list (a, b, img, rec of stride 8, state), all
 * touching at their last evaluation; k and force_bit hold 4 (8) entries, those from n on copies
 * of a real one, n <= 4 (8). A lane whose pair no longer overlaps (or whose centres coincide) is
 * left untouched for the caller's general path; the others have their record and state written
 * (state |= force_bit[lane]) and their forces in o. Returns the mask of those. The eight-lane
 * function needs tl_lanes_width() == 8. */
unsigned tl_steady_lanes4(const tl_lanes_law *c, const double (*x)[3], const double (*v)[3],
                          const double (*w)[3], const double (*shift)[3], const uint32_t *a,
                          const uint32_t *b, const uint8_t *img, double *rec, uint8_t *state,
                          const size_t *k, const uint8_t *force_bit, unsigned n, tl_lanes_out *o);
unsigned tl_steady_lanes8(const tl_lanes_law *c, const double (*x)[3], const double (*v)[3],
                          const double (*w)[3], const double (*shift)[3], const uint32_t *a,
                          const uint32_t *b, const uint8_t *img, double *rec, uint8_t *state,
                          const size_t *k, const uint8_t *force_bit, unsigned n, tl_lanes_out *o);

#endif
