/*
 * Damping slot: the normal dashpot force F_d (> 0 opposing approach), with
 * delta_rate = d delta/dt.
 *
 *   none               F_d = 0
 *   restitution        F_d = 2 beta(e) sqrt(m* k) delta_rate, for linear springs: the
 *                      exact restitution e of a linear oscillator
 *                      (Li et al. 2022 Appendix A eq. A4; verification note 001)
 *   tsuji              F_d = sqrt(5) beta(e) sqrt(m* K) delta^1/4 delta_rate, for Hertzian
 *                      springs (Tsuji et al. 1992; Li et al. 2022 eq. 6 and 10). Without
 *                      clamping it gives exactly e at every impact speed (docs/readings.md, li-tsuji-exact).
 *   viscous            F_d = d delta_rate, constant d
 *   mass-proportional  F_d = f gamma_n m* delta_rate (Fleischmann et al. 2015 eq. 1)
 *
 *   hunt-crossley      F_d = 3/2 (1 - e) F_el delta_rate / v_in, v_in the impact speed at first
 *                      touch (at least v_min): Hunt & Crossley 1975; Wang et al. 2025 eq. 27
 *                      with the standard exponent 3/2 (docs/readings.md, wang-eq27-hc)
 *   viscous-adaptive   F_d = d delta_rate with d chosen per collision by an adaptive
 *                      normal model (hertz-adaptive)
 *   wang-kv            g2 sqrt(K_h m*) delta^1/4 delta_rate below the yield overlap, g1
 *                      sqrt(K_p m*) delta_rate above (Wang et al. 2025 eq. 11, 23, 25)
 *
 * beta(e) = -ln e / sqrt(ln^2 e + pi^2).
 */
#include <math.h>

#include "submodel.h"
#include "vec.h"

static tl_status beta_prepare(const tl_prep *in, double *p) {
    p[0] = tl_damping_ratio(in->coeff[0]);
    return TL_OK;
}

static tl_status coeff_prepare(const tl_prep *in, double *p) {
    p[0] = in->coeff[0];
    return TL_OK;
}

static void none_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    (void)hist;
    c->fn_damp = 0.0;
}

static void restitution_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    c->fn_damp = 2.0 * p[0] * sqrt(c->m_eff * c->k) * c->delta_rate;
}

static void tsuji_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    const double sqrt5 = 2.23606797749979;
    c->fn_damp = sqrt5 * p[0] * sqrt(c->m_eff * c->k) * sqrt(sqrt(c->delta)) * c->delta_rate;
}

static void viscous_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    c->fn_damp = p[0] * c->delta_rate;
}

static void mass_proportional_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    c->fn_damp = p[0] * c->m_eff * c->area * c->delta_rate;
}

/* ---- hunt-crossley ---- */
/* p: 0 3/2 (1 - e), 1 v_min */

static tl_status hunt_crossley_prepare(const tl_prep *in, double *p) {
    p[0] = 1.5 * (1.0 - in->coeff[0]);
    p[1] = in->coeff[1];
    return TL_OK;
}

static void hunt_crossley_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    c->fn_damp = p[0] * c->fn_el * c->delta_rate / dmax(c->v_impact, p[1]);
}

/* ---- viscous-adaptive ---- */

static void viscous_adaptive_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    (void)hist;
    c->fn_damp = c->eta * c->delta_rate;
}

/* ---- wang-kv ---- */
/* p: 0 g2(e) (eq. 23), 1 g1(e_p) (eq. 11) */

static tl_status wang_prepare(const tl_prep *in, double *p) {
    double e = in->coeff[0], ep = in->coeff[1];
    p[0] = 9.0 * sqrt(5.0) * (1.0 - e * e) / (e * (e * (9.0 * TL_PI - 16.0) + 16.0));
    p[1] = 2.0 * tl_damping_ratio(ep);
    return TL_OK;
}

static void wang_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    double s = sqrt(c->k * c->m_eff);
    if (c->yielded) c->fn_damp = p[1] * s * c->delta_rate;
    else c->fn_damp = p[0] * s * sqrt(sqrt(dmax(c->delta, 0.0))) * c->delta_rate;
}

static const tl_coeff_info hunt_crossley_coeffs[] = {
    {"e", "", NAN, true, 0.0, 1.0, true, false, "coefficient of restitution in 3/2 (1 - e)"},
    {"v_min", "m/s", 1e-3, false, 0.0, INFINITY, true, false,
     "impact speeds below it are taken as v_min (contacts that start at rest)"},
};
static const tl_coeff_info wang_coeffs[] = {
    {"e", "", NAN, true, 0.0, 1.0, true, false, "restitution of the elastic phase (g2, eq. 23)"},
    {"e_p", "", NAN, true, 0.0, 1.0, true, false,
     "restitution of the elastoplastic phase (g1, eq. 11)"},
};

static const tl_coeff_info e_coeffs[] = {
    {"e", "", NAN, true, 0.0, 1.0, true, false, "normal coefficient of restitution"},
};
static const tl_coeff_info viscous_coeffs[] = {
    {"d", "N s/m", NAN, true, 0.0, INFINITY, false, false, "damping coefficient"},
};
static const tl_coeff_info mass_coeffs[] = {
    {"gamma_n", "1/s (1/(m s) with hertz-stiffness)", NAN, true, 0.0, INFINITY, false, false,
     "mass-proportional damping rate"},
};

const tl_submodel tl_damping_models[] = {
    {{TL_SLOT_DAMPING, "none", "no normal damping", "-", NULL, 0, 0}, TL_NORMAL_KIND_ANY, NULL,
     none_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_DAMPING, "restitution",
      "linear dashpot 2 beta(e) sqrt(m* k), exact restitution for linear springs",
      "Li et al. 2022 Appendix A eq. A4; verification note 001", e_coeffs, 1, 0},
     TL_NORMAL_KIND_LINEAR, beta_prepare, restitution_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_DAMPING, "tsuji",
      "nonlinear dashpot sqrt(5) beta(e) sqrt(m* K) delta^1/4 for Hertzian springs",
      "Tsuji et al. 1992; Li et al. 2022 eq. 6 and 10", e_coeffs, 1, 0},
     TL_NORMAL_KIND_HERTZIAN, beta_prepare, tsuji_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_DAMPING, "viscous", "constant dashpot d", "Kelvin-Voigt; Ray et al. 2015 eq. 1",
      viscous_coeffs, 1, 0},
     TL_NORMAL_KIND_ANY, coeff_prepare, viscous_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_DAMPING, "mass-proportional", "dashpot f gamma_n m* (Chrono/LIGGGHTS form)",
      "Fleischmann et al. 2015 eq. 1", mass_coeffs, 1, 0},
     TL_NORMAL_KIND_ANY, coeff_prepare, mass_proportional_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_DAMPING, "hunt-crossley", "hysteretic dashpot 3/2 (1 - e) F_el / v_in",
      "Hunt & Crossley 1975; Wang et al. 2025 eq. 27 (exponent 3/2)", hunt_crossley_coeffs, 2, 0},
     TL_NORMAL_KIND_HERTZIAN, hunt_crossley_prepare, hunt_crossley_force, NULL, true, NULL, NULL, false},
    {{TL_SLOT_DAMPING, "viscous-adaptive", "dashpot d chosen per collision by hertz-adaptive",
      "Kempe & Fröhlich 2012; Ray et al. 2015 eq. 1", NULL, 0, 0},
     TL_NORMAL_KIND_ADAPTIVE, NULL, viscous_adaptive_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_DAMPING, "wang-kv",
      "g2 sqrt(K_h m*) delta^1/4 below delta_y, g1 sqrt(K_p m*) above (frequency-dependent)",
      "Wang et al. 2025 eq. 5, 11, 14, 23, 25", wang_coeffs, 2, 0},
     TL_NORMAL_KIND_YIELDING, wang_prepare, wang_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_DAMPING, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL, false, NULL, NULL, false},
};
