/*
 * Normal slot: the elastic normal force F_el(delta).
 *
 *   linear           F = k delta, k per pair or k_a k_b/(k_a + k_b) from the
 *                    materials' per-body stiffness (the verification note 001)
 *   hooke            F = k_n delta, k_n per pair (Fleischmann et al. 2015 eq. 1, f = 1)
 *   hertz            F = K delta^3/2, K = 4/3 E* sqrt(R*) from the materials
 *                    (Li et al. 2022 eq. 5-6; E* as docs/readings.md, li-kn-index)
 *   hertz-stiffness  F = k_n sqrt(R* delta) delta, k_n per pair
 *                    (Fleischmann et al. 2015 eq. 1, f = sqrt(R* delta); LIGGGHTS hertz/stiffness)
 *
 *   hertz-adaptive   F = k delta^3/2 with k (and the dashpot d, for `viscous-adaptive`)
 *                    chosen per collision from the impact speed so that it lasts T_c and
 *                    returns e: the adaptive collision time model (Kempe & Fröhlich 2012),
 *                    inverted exactly (Ray et al. 2015 eq. 6); hertz-adaptive-direct uses
 *                    the paper's direct formulas (eq. 51-54) instead
 *   ma-liu           the elastoplastic loading curve of Ma & Liu (Wang et al. 2025 eq. 1-2),
 *                    Hertzian unloading from the maximum with a residual overlap (eq. 3, with
 *                    the closure of docs/models.md); reloading follows the unloading curve
 *   wang-kv          Hertz below the yield overlap delta_y, linear K_p above (Wang et al.
 *                    2025 eq. 25, K_p of eq. 12 from the Ma-Liu curve), continuous at
 *                    delta_y; wang-kv-printed jumps there as eq. 25 is printed
 *
 * Each kernel also reports its stiffness c->k (the one a damping model
 * needs), the factor c->area (f of eq. 1, scaling the 004 dashpots and the
 * linear tangential spring) and the stored (recoverable) elastic energy.
 */
#include <math.h>

#include "submodel.h"
#include "talus/talus.h"
#include "vec.h"

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

/* ---- hertz-adaptive, hertz-adaptive-direct ---- */
/* p: 0 lambda, 1 tau_c(lambda) (dimensionless), 2 T_c, 3 v_min; history: k, d */

static tl_status adaptive_prepare_common(const tl_prep *in, double *p, bool exact) {
    double tc = in->coeff[0], e = in->coeff[1];
    if (exact) {
        tl_hertz_damped s;
        if (tl_hertz_damped_from_restitution(e, &s) != TL_OK || !isfinite(s.tau_c)) {
            tl_prep_fail(in, "normal 'hertz-adaptive': no damping gives e = %g", e);
            return TL_ERROR_ARGUMENT;
        }
        p[0] = s.lambda;
        p[1] = s.tau_c;
    } else {
        double k, d, lambda;
        tl_actm_direct(e, 1.0, 1.0, 1.0, &k, &d, &lambda); /* lambda depends on e alone */
        p[0] = lambda;
        tl_hertz_damped_approx(lambda, NULL, &p[1]);     /* tau_c of eq. 44: t* = T_c / tau_c, eq. 52 */
    }
    p[2] = tc;
    p[3] = in->coeff[2];
    return TL_OK;
}

static tl_status adaptive_prepare(const tl_prep *in, double *p) {
    return adaptive_prepare_common(in, p, true);
}

static tl_status adaptive_direct_prepare(const tl_prep *in, double *p) {
    return adaptive_prepare_common(in, p, false);
}

static void adaptive_force(const double *p, tl_contact *c, double *hist) {
    if (!(hist[0] > 0.0)) {
        /* first touch: eq. 5, 7, 53, 54 with the impact speed (at least v_min) */
        double u = dmax(c->v_impact, p[3]);
        double tstar = p[2] / p[1];
        hist[0] = c->m_eff / sqrt(u * pow(tstar, 5.0));
        hist[1] = 2.0 * p[0] * c->m_eff / tstar;
    }
    double k = hist[0], sd = sqrt(dmax(c->delta, 0.0));
    c->k = k;
    c->area = 1.0;
    c->eta = hist[1];
    c->fn_el = k * c->delta * sd;
    c->e_el_n = 0.4 * k * c->delta * c->delta * sd;
}

/* ---- the Ma & Liu loading curve (Wang et al. 2025 eq. 1-2) ---- */
/* p: 0 E*, 1 yield stress, 2 psi, 3 epsilon */

typedef struct ml_curve {
    double E, R, dy, dp, Fy, Fp, c1, c2, c3, k1, Kh, Kp;
} ml_curve;

static tl_status ml_prepare(const tl_prep *in, double *p, const char *who) {
    const tl_material *m[2] = {in->a, in->b};
    for (int i = 0; i < 2; i++)
        if (!(m[i]->youngs_modulus > 0.0)) {
            tl_prep_fail(in, "normal '%s' needs youngs_modulus and poisson_ratio of material '%s'",
                         who, m[i]->name);
            return TL_ERROR_ARGUMENT;
        }
    double sa = in->a->yield_stress, sb = in->b->yield_stress;
    double sy = sa > 0.0 && sb > 0.0 ? dmin(sa, sb) : dmax(sa, sb);
    if (!(sy > 0.0)) {
        tl_prep_fail(in, "normal '%s' needs the yield_stress of material '%s' or '%s'", who,
                     in->a->name, in->b->name);
        return TL_ERROR_ARGUMENT;
    }
    p[0] = tl_material_e_star(in->a, in->b);
    p[1] = sy;
    p[2] = in->coeff[0];
    p[3] = in->coeff[1];
    return TL_OK;
}

/* the curve's constants for one contact (they depend on R*) */
static void ml_setup(const double *p, double R, ml_curve *m) {
    const double pi = TL_PI;
    double E = p[0], sy = p[1], psi = p[2], eps = p[3];
    double py = 1.61 * sy;
    double L = log(0.5 * eps * eps);
    m->E = E;
    m->R = R;
    m->dy = pi * pi * R * py * py / (4.0 * E * E);
    m->dp = 0.5 * eps * eps * m->dy;
    m->Fy = pi * pi * pi * R * R * py * py * py / (6.0 * E * E);
    m->k1 = 2.0 * pi * R * psi * sy;
    m->c1 = (py * (1.0 + L) - 2.0 * psi * sy) / L * pi * R;
    m->c2 = (2.0 * psi * sy - py) / L * pi * R;
    m->c3 = m->Fy - m->c1 * m->dy;
    m->Fp = m->dp * (m->c1 + m->c2 * L) + m->c3;
    m->Kh = 4.0 / 3.0 * E * sqrt(R);
    m->Kp = (m->Fp - m->Fy) / (m->dp - m->dy); /* eq. 12 */
}

static double ml_load(const ml_curve *m, double d) {
    if (d < m->dy) return m->Kh * d * sqrt(d);
    if (d < m->dp) return d * (m->c1 + m->c2 * log(d / m->dy)) + m->c3;
    return m->Fp + m->k1 * (d - m->dp);
}

/* ---- ma-liu ---- */
/* history: 0 delta_max, 1 delta_r (residual), 2 K_e (unloading stiffness) */

static tl_status ma_liu_prepare(const tl_prep *in, double *p) { return ml_prepare(in, p, "ma-liu"); }

static void ma_liu_force(const double *p, tl_contact *c, double *hist) {
    double d = c->delta;
    c->area = 1.0;
    if (!(d > 0.0)) {
        c->fn_el = c->e_el_n = 0.0;
        c->k = hist[2];
        return;
    }
    if (d >= hist[0]) {
        /* loading on the virgin curve; the unloading curve through this point
         * is Hertzian, F = K_e (delta - delta_r)^3/2, with the contact radius
         * a = sqrt(R* delta_max) and the force F_max it reached */
        ml_curve m;
        ml_setup(p, c->r_eff, &m);
        double F = ml_load(&m, d);
        double a = sqrt(m.R * d);
        double span = 3.0 * F / (4.0 * m.E * a); /* delta_max - delta_r */
        hist[0] = d;
        hist[1] = d - span;
        hist[2] = F / (span * sqrt(span));
    }
    double s = d - hist[1];
    double K = hist[2];
    c->k = K;
    if (s > 0.0) {
        double ss = sqrt(s);
        c->fn_el = K * s * ss;
        c->e_el_n = 0.4 * K * s * s * ss;
    } else {
        c->fn_el = c->e_el_n = 0.0; /* below the residual overlap: apart */
    }
}

/* ---- wang-kv, wang-kv-printed ---- */

static tl_status wang_prepare(const tl_prep *in, double *p) { return ml_prepare(in, p, "wang-kv"); }

static void wang_force_common(const double *p, tl_contact *c, bool continuous) {
    ml_curve m;
    ml_setup(p, c->r_eff, &m);
    double d = dmax(c->delta, 0.0);
    c->area = 1.0;
    if (d <= m.dy) {
        double sd = sqrt(d);
        c->k = m.Kh;
        c->yielded = false;
        c->fn_el = m.Kh * d * sd;
        c->e_el_n = 0.4 * m.Kh * d * d * sd;
        return;
    }
    double ey = 0.4 * m.Fy * m.dy, x = d - m.dy;
    c->k = m.Kp;
    c->yielded = true;
    if (continuous) {
        c->fn_el = m.Fy + m.Kp * x;
        c->e_el_n = ey + m.Fy * x + 0.5 * m.Kp * x * x;
    } else {
        c->fn_el = m.Kp * d;
        c->e_el_n = ey + 0.5 * m.Kp * (d * d - m.dy * m.dy);
    }
}

static void wang_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    wang_force_common(p, c, true);
}

static void wang_printed_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    wang_force_common(p, c, false);
}

static const tl_coeff_info adaptive_coeffs[] = {
    {"T_c", "s", NAN, true, 0.0, INFINITY, true, false, "prescribed collision time"},
    {"e", "", NAN, true, 0.0, 1.0, true, false, "prescribed restitution"},
    {"v_min", "m/s", 1e-3, false, 0.0, INFINITY, true, false,
     "impact speeds below it are taken as v_min (contacts that start at rest)"},
};
static const tl_coeff_info ml_coeffs[] = {
    {"psi", "", 3.0, false, 0.0, INFINITY, true, false,
     "Ma-Liu plastic slope parameter: k_1 = 2 pi R psi sigma_y"},
    {"epsilon", "", 13.0, false, 1.4142135623730951, INFINITY, true, false,
     "Ma-Liu plastic onset: delta_p = epsilon^2 delta_y / 2"},
};

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
     TL_NORMAL_KIND_LINEAR, linear_prepare, linear_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_NORMAL, "hooke", "linear spring F = k_n delta (Chrono/LIGGGHTS form, f = 1)",
      "Fleischmann et al. 2015 eq. 1", hooke_coeffs, 1, 0},
     TL_NORMAL_KIND_LINEAR, hooke_prepare, linear_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_NORMAL, "hertz", "Hertz F = 4/3 E* sqrt(R*) delta^3/2 from the materials",
      "Hertz 1882; Li et al. 2022 eq. 5-6 (E* corrected: docs/readings.md, li-kn-index)", NULL, 0, 0},
     TL_NORMAL_KIND_HERTZIAN, hertz_prepare, hertz_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_NORMAL, "hertz-stiffness",
      "Hertz F = k_n sqrt(R* delta) delta (Chrono/LIGGGHTS form, f = sqrt(R* delta))",
      "Fleischmann et al. 2015 eq. 1", hertz_stiffness_coeffs, 1, 0},
     TL_NORMAL_KIND_HERTZIAN, hooke_prepare, hertz_stiffness_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_NORMAL, "hertz-adaptive",
      "Hertz k delta^3/2, k and dashpot d per collision for T_c and e (exact inverse)",
      "Kempe & Fröhlich 2012; Ray et al. 2015 eq. 1, 5-8", adaptive_coeffs, 3, 2},
     TL_NORMAL_KIND_ADAPTIVE, adaptive_prepare, adaptive_force, NULL, true, NULL, NULL, false},
    {{TL_SLOT_NORMAL, "hertz-adaptive-direct",
      "as hertz-adaptive with the paper's direct formulas (fitted constants)",
      "Ray et al. 2015 eq. 43-44, 51-54", adaptive_coeffs, 3, 2},
     TL_NORMAL_KIND_ADAPTIVE, adaptive_direct_prepare, adaptive_force, NULL, true, NULL, NULL, false},
    {{TL_SLOT_NORMAL, "ma-liu",
      "elastoplastic loading (Hertz, log, linear), Hertzian unloading with residual overlap",
      "Ma & Liu; Wang et al. 2025 eq. 1-3 (closure: docs/models.md)", ml_coeffs, 2, 3},
     TL_NORMAL_KIND_PLASTIC, ma_liu_prepare, ma_liu_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_NORMAL, "wang-kv",
      "Hertz below delta_y, K_h delta_y^3/2 + K_p (delta - delta_y) above (continuous)",
      "Wang et al. 2025 eq. 12, 25 (continuous reading)", ml_coeffs, 2, 0},
     TL_NORMAL_KIND_YIELDING, wang_prepare, wang_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_NORMAL, "wang-kv-printed",
      "Hertz below delta_y, K_p delta above (as printed: jumps at delta_y)",
      "Wang et al. 2025 eq. 12, 25 (as printed)", ml_coeffs, 2, 0},
     TL_NORMAL_KIND_YIELDING, wang_prepare, wang_printed_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_NORMAL, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL, false, NULL, NULL, false},
};
