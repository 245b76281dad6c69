/*
 * Normal slot: the elastic normal force F_el(delta).
 *
 *   linear           F = k delta, k per pair or k_a k_b/(k_a + k_b) from the
 *                    materials' per-body stiffness (the verification note 001)
 *   hooke            F = k_n delta, k_n per pair (Fleischmann et al. 2015 eq. 1, f = 1)
 *   hertz            F = K delta^3/2, K = 4/3 E* sqrt(R*) from the materials
 *                    (Li et al. 2022 eq. 5-6; E* per ERRATA)
 *   hertz-stiffness  F = k_n sqrt(R* delta) delta, k_n per pair
 *                    (Fleischmann et al. 2015 eq. 1, f = sqrt(R* delta); LIGGGHTS hertz/stiffness)
 *
 * Each kernel also reports its stiffness c->k (the one a damping model
 * needs), the factor c->area (f of eq. 1, scaling the 004 dashpots and the
 * linear tangential spring) and the stored elastic energy.
 */
#include <math.h>

#include "registry.h"

/* ---- linear ---- */

static tl_status linear_prepare(const tl_prep *in, double *p) {
    double k = in->coeff[0];
    if (isnan(k)) {
        if (!(in->a->k_n > 0.0) || !(in->b->k_n > 0.0)) {
            tl_prep_fail(in,
                         "normal 'linear' needs k_n: give k_n in the law, or k_n (per body) in "
                         "materials '%s' and '%s'",
                         in->a->name, in->b->name);
            return TL_ERROR_ARGUMENT;
        }
        k = tl_series(in->a->k_n, in->b->k_n);
    }
    p[0] = k;
    return TL_OK;
}

static void linear_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    double k = p[0];
    c->k = k;
    c->area = 1.0;
    c->fn_el = k * c->delta;
    c->e_el_n = 0.5 * k * c->delta * c->delta;
}

static tl_status hooke_prepare(const tl_prep *in, double *p) {
    p[0] = in->coeff[0];
    return TL_OK;
}

/* ---- hertz ---- */

static tl_status need_elastic(const tl_prep *in, const char *who) {
    const tl_material *m[2] = {in->a, in->b};
    for (int i = 0; i < 2; i++) {
        if (!(m[i]->youngs_modulus > 0.0)) {
            tl_prep_fail(in, "%s needs youngs_modulus and poisson_ratio of material '%s'", who,
                         m[i]->name);
            return TL_ERROR_ARGUMENT;
        }
    }
    return TL_OK;
}

static tl_status hertz_prepare(const tl_prep *in, double *p) {
    tl_status s = need_elastic(in, "normal 'hertz'");
    if (s != TL_OK) return s;
    p[0] = 4.0 / 3.0 * tl_material_e_star(in->a, in->b); /* K = p0 sqrt(R*) */
    return TL_OK;
}

static void hertz_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    double K = p[0] * sqrt(c->r_eff);
    double sd = sqrt(c->delta);
    c->k = K;
    c->area = 1.0;
    c->fn_el = K * c->delta * sd;
    c->e_el_n = 0.4 * K * c->delta * c->delta * sd;
}

/* ---- hertz-stiffness ---- */

static void hertz_stiffness_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    double K = p[0] * sqrt(c->r_eff);
    double sd = sqrt(c->delta);
    c->k = K;
    c->area = sqrt(c->r_eff) * sd;
    c->fn_el = K * c->delta * sd;
    c->e_el_n = 0.4 * K * c->delta * c->delta * sd;
}

static const tl_coeff_info linear_coeffs[] = {
    {"k_n", "N/m", NAN, false, 0.0, INFINITY, true, false,
     "contact stiffness; when absent, the series value of the materials' per-body k_n"},
};
static const tl_coeff_info hooke_coeffs[] = {
    {"k_n", "N/m", NAN, true, 0.0, INFINITY, true, false, "normal stiffness"},
};
static const tl_coeff_info hertz_stiffness_coeffs[] = {
    {"k_n", "N/m^2", NAN, true, 0.0, INFINITY, true, false,
     "normal stiffness; F = k_n sqrt(R* delta) delta"},
};

const tl_submodel tl_normal_models[] = {
    {{TL_SLOT_NORMAL, "linear", "linear spring F = k delta",
      "Cundall & Strack 1979; Li et al. 2022 eq. 1; verification note 001", linear_coeffs, 1, 0},
     TL_NORMAL_KIND_LINEAR, linear_prepare, linear_force, NULL},
    {{TL_SLOT_NORMAL, "hooke", "linear spring F = k_n delta (Chrono/LIGGGHTS form, f = 1)",
      "Fleischmann et al. 2015 eq. 1", hooke_coeffs, 1, 0},
     TL_NORMAL_KIND_LINEAR, hooke_prepare, linear_force, NULL},
    {{TL_SLOT_NORMAL, "hertz", "Hertz F = 4/3 E* sqrt(R*) delta^3/2 from the materials",
      "Hertz 1882; Li et al. 2022 eq. 5-6 (E* corrected per ERRATA)", NULL, 0, 0},
     TL_NORMAL_KIND_HERTZIAN, hertz_prepare, hertz_force, NULL},
    {{TL_SLOT_NORMAL, "hertz-stiffness",
      "Hertz F = k_n sqrt(R* delta) delta (Chrono/LIGGGHTS form, f = sqrt(R* delta))",
      "Fleischmann et al. 2015 eq. 1", hertz_stiffness_coeffs, 1, 0},
     TL_NORMAL_KIND_HERTZIAN, hooke_prepare, hertz_stiffness_force, NULL},
    {{TL_SLOT_NORMAL, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL},
};
