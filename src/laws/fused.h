/*
 * Fused kernels: a common composition of sub-models evaluated in one
 * function, inlined into the contact stage. Each computes the formulas of
 * its slot kernels, sharing the square roots they have in common (e.g.
 * sqrt(R* delta) = sqrt(R*) sqrt(delta)), so it agrees with the generic
 * path of tl_law_eval to rounding (test_fused: 1e-14 relative on random
 * contacts) with a third of the square roots. A law gets one when its four
 * sub-models match a row of the table in fused.c; its constants are
 * prepared per material pair into tl_pair_law.fused.
 */
#ifndef TL_FUSED_H
#define TL_FUSED_H

#include <math.h>

#include "coulomb.h"
#include "law.h"
#include "vec.h"

/* Kinds the contact stage inlines (the others are called through the pointer). */
typedef enum tl_fused_kind { TL_FUSED_NONE = 0, TL_FUSED_HERTZ_MINDLIN } tl_fused_kind;

/* The fused kernel for a law's composition, or NULL (kind TL_FUSED_NONE). */
tl_fused_fn tl_fused_find(const tl_law *law, tl_fused_kind *kind);
/* The law's fused kernel found and attached (law->fused, law->fused_kind), after
 * tl_law_assemble; tl_fused_prepare below then fills a pair's constants after tl_law_prepare. */
void tl_fused_attach(tl_law *law);
/* Derives the fused kernel's constants of a prepared pair. */
void tl_fused_prepare(const tl_law *law, tl_pair_law *pl);

/* ---- the kernels, inline so that the contact stage inlines the common ones ---- */

/* hertz + tsuji + mindlin | mindlin-renzo + true history: the Hertz-Mindlin
 * law of LIGGGHTS and EDEM (normal.c hertz_force, damping.c tsuji_force,
 * history.c true_force / true_commit, tangential.c mindlin_force), with
 *   K = K0 sqrt(R*),  sqrt(m* K) = sqrt(K0) A,  A = sqrt(m* sqrt(R*)),
 *   K_t0 = 8G* sqrt(R*) sqrt(delta),  sqrt(K_t0 m*) = sqrt(8G*) A delta^1/4.
 * fused: 0 sqrt(K0), 1 sqrt(8G*). Four square roots instead of seven. (Keeping
 * sqrt(R*) and A in the contact's record would save two more, but the record
 * would outgrow a cache line; measured slower at 10^5 particles.) */
/* sqrt(5) of Tsuji's dashpot and 2 sqrt(5/6) of Mindlin's (damping.c, tangential.c) */
#define TL_SQRT5 2.23606797749979
#define TL_TWO_SQRT_5_6 1.8257418583505538

/* What the kernel gives for one contact. */
typedef struct tl_hm_result {
    double fn, fn_el, fn_damp, k, e_el_n, e_el_t, kt;
    double xi[3], ft[3], ft_damp[3];
    bool sliding;
} tl_hm_result;

/* The kernel on plain values, given sr = sqrt(R*) and A = sqrt(m* sqrt(R*)) (hist: the true
 * history's 3 values, updated). steady_lanes_body.h performs these operations in four or eight lanes, in this
 * order: a change here is a change there (test_threads compares the two). */
static inline void tl_hm_eval_sr(const tl_law *law, const tl_pair_law *pl, double delta, double rate,
                                 const double n[3], const double vt[3], const double dxi[3], double sr,
                                 double A, double *hist, tl_hm_result *r) {
    const double *pn = pl->p[TL_SLOT_NORMAL], *pd = pl->p[TL_SLOT_DAMPING];
    const double *pt = pl->p[TL_SLOT_TANGENTIAL];
    double sd = sqrt(delta), q = sqrt(sd);
    /* normal: hertz */
    double K = pn[0] * sr;
    r->k = K;
    r->fn_el = K * delta * sd;
    r->e_el_n = 0.4 * K * delta * delta * sd;
    /* damping: tsuji, sqrt(5) beta sqrt(m* K) delta^1/4 rate */
    r->fn_damp = TL_SQRT5 * pd[0] * (pl->fused[0] * A) * q * rate;
    double fn = r->fn_el + r->fn_damp;
    if (law->clamp_tensile && fn < 0.0) fn = 0.0;
    r->fn = fn;
    /* history: true */
    double x[3], xi[3];
    v3_add(x, hist, dxi);
    v3_reject(xi, x, n);
    /* tangential: mindlin (pt[4] = 1) or mindlin-renzo (2/3), dashpot 2 sqrt(5/6) beta_t sqrt(K_t0 m*) */
    double kt0 = pt[1] * sr * sd;
    double eta = TL_TWO_SQRT_5_6 * pt[2] * (pl->fused[1] * A * q);
    r->kt = pt[4] * kt0;
    tl_coulomb_eval(xi, vt, r->kt, eta, pt[0], fn, (int)pt[3], r->xi, r->ft, r->ft_damp,
                    &r->sliding, &r->e_el_t);
    v3_copy(hist, r->xi);
}

/* The kernel on plain values (hist: the true history's 3 values, updated). */
static inline void tl_hm_eval(const tl_law *law, const tl_pair_law *pl, double delta, double rate,
                              const double n[3], const double vt[3], const double dxi[3],
                              double r_eff, double m_eff, double *hist, tl_hm_result *r) {
    double sr = sqrt(r_eff), A = sqrt(m_eff * sr);
    tl_hm_eval_sr(law, pl, delta, rate, n, vt, dxi, sr, A, hist, r);
}

/* The same on a contact record. */
static inline void tl_fused_hertz_mindlin(const tl_law *law, const tl_pair_law *pl, tl_contact *c,
                                          double *hist) {
    tl_hm_result r;
    tl_hm_eval(law, pl, c->delta, c->delta_rate, c->n, c->vt, c->dxi, c->r_eff, c->m_eff,
               hist + law->hist_offset[TL_SLOT_HISTORY], &r);
    c->eta = 0.0;
    c->yielded = false;
    c->area = 1.0;
    c->k = r.k;
    c->fn_el = r.fn_el;
    c->e_el_n = r.e_el_n;
    c->fn_damp = r.fn_damp;
    c->fn = r.fn;
    v3_copy(c->xi, r.xi);
    v3_copy(c->ft, r.ft);
    v3_copy(c->ft_damp, r.ft_damp);
    c->e_el_t = r.e_el_t;
    c->kt_xi = r.kt;
    c->w_t = 0.0;
    c->sliding = r.sliding;
}

#endif
