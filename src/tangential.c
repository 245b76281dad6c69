/*
 * Tangential slot: the tangential force on body a from the tangential
 * displacement xi (given by the history mode) and the tangential velocity
 * vt, with the Coulomb limit mu F_n (F_n the total normal force, no friction
 * under tension).
 *
 *   none           no tangential force
 *   linear         F_t = -f k_t xi - (eta_t + f gamma_t m*) vt; eta_t = 2 beta(e_t) sqrt(m* k_t)
 *                  (Li et al. 2022 eq. 1 with Appendix A damping; Fleischmann et al. 2015 eq. 1)
 *   mindlin        F_t = -K_t0 xi - eta_t vt, K_t0 = 8 G* sqrt(R* delta),
 *                  eta_t = 2 sqrt(5/6) beta(e_t) sqrt(K_t0 m*) (Li et al. 2022 eq. 4-6)
 *   mindlin-renzo  as mindlin with K_tA = 2/3 K_t0 (Di Renzo & Di Maio 2005; Li et al. 2022
 *                  eq. 13, 17); the dashpot keeps eta_t of eq. 6
 *
 * The Coulomb test (law option coulomb_test):
 *   total   the trial force spring + dashpot is scaled onto mu F_n and the
 *           spring displacement set so that spring + dashpot equals it
 *           (Fleischmann et al. 2015 eq. 6, LAMMPS, LIGGGHTS);
 *   spring  the spring force alone is tested; when it reaches mu F_n the force
 *           is mu F_n along -xi, without dashpot (Li et al. 2022 eq. 1, 5, 17).
 */
#include <math.h>

#include "law.h"
#include "vec.h"

/* The shared spring + dashpot + Coulomb step. k: spring stiffness (N/m),
 * eta: dashpot (N s/m). Rescales c->xi when sliding. */
static void spring_dashpot_coulomb(tl_contact *c, double k, double eta, double mu, int test) {
    double fs[3], fd[3];
    v3_scale(fs, c->xi, -k);
    v3_scale(fd, c->vt, -eta);
    double limit = mu * dmax(c->fn, 0.0);
    if (test == TL_COULOMB_SPRING) {
        double fsn = v3_norm(fs);
        if (fsn >= limit) {
            c->sliding = true;
            if (fsn > 0.0) {
                v3_scale(c->ft, fs, limit / fsn);
                if (k > 0.0) v3_scale(c->xi, c->ft, -1.0 / k);
            } else {
                v3_zero(c->ft);
            }
            v3_zero(c->ft_damp);
        } else {
            v3_add(c->ft, fs, fd);
            v3_copy(c->ft_damp, fd);
        }
    } else {
        double f[3];
        v3_add(f, fs, fd);
        double fnorm = v3_norm(f);
        v3_copy(c->ft_damp, fd);
        if (fnorm > limit) {
            c->sliding = true;
            double s = fnorm > 0.0 ? limit / fnorm : 0.0;
            v3_scale(c->ft, f, s);
            /* the spring carries the capped force minus the dashpot's part */
            if (k > 0.0) {
                double spring[3];
                v3_sub(spring, c->ft, fd);
                v3_scale(c->xi, spring, -1.0 / k);
            }
        } else {
            v3_copy(c->ft, f);
        }
    }
    c->e_el_t = 0.5 * k * v3_norm2(c->xi);
}

/* ---- none ---- */

static void none_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    (void)hist;
    v3_zero(c->ft);
}

/* ---- linear ---- */
/* p: 0 mu, 1 k_t, 2 beta(e_t), 3 gamma_t, 4 coulomb test */

static tl_status linear_prepare(const tl_prep *in, double *p) {
    double kt = in->coeff[1];
    if (isnan(kt)) {
        if (!(in->a->k_t > 0.0) || !(in->b->k_t > 0.0)) {
            tl_prep_fail(in,
                         "tangential 'linear' needs k_t: give k_t in the law, or k_t (per body) "
                         "in materials '%s' and '%s'",
                         in->a->name, in->b->name);
            return TL_ERROR_ARGUMENT;
        }
        kt = tl_series(in->a->k_t, in->b->k_t);
    }
    p[0] = in->coeff[0];
    p[1] = kt;
    p[2] = tl_damping_ratio(in->coeff[2]);
    p[3] = in->coeff[3];
    p[4] = (double)in->law->coulomb_test;
    return TL_OK;
}

static void linear_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    double k = p[1] * c->area;
    double eta = 2.0 * p[2] * sqrt(c->m_eff * p[1]) + p[3] * c->m_eff * c->area;
    spring_dashpot_coulomb(c, k, eta, p[0], (int)p[4]);
}

/* ---- mindlin, mindlin-renzo ---- */
/* p: 0 mu, 1 8 G*, 2 beta(e_t), 3 coulomb test, 4 stiffness factor (1 or 2/3) */

static tl_status mindlin_prepare_factor(const tl_prep *in, double *p, double factor,
                                        const char *who) {
    const tl_material *m[2] = {in->a, in->b};
    for (int i = 0; i < 2; i++) {
        if (!(m[i]->youngs_modulus > 0.0)) {
            tl_prep_fail(in, "tangential '%s' needs youngs_modulus and poisson_ratio of material '%s'",
                         who, m[i]->name);
            return TL_ERROR_ARGUMENT;
        }
    }
    double et = in->coeff[1];
    if (isnan(et)) et = tl_law_coeff(in->law, "e"); /* e_t defaults to the normal e */
    p[0] = in->coeff[0];
    p[1] = 8.0 * tl_material_g_star(in->a, in->b);
    p[2] = isnan(et) ? 0.0 : tl_damping_ratio(et);
    p[3] = (double)in->law->coulomb_test;
    p[4] = factor;
    return TL_OK;
}

static tl_status mindlin_prepare(const tl_prep *in, double *p) {
    return mindlin_prepare_factor(in, p, 1.0, "mindlin");
}

static tl_status renzo_prepare(const tl_prep *in, double *p) {
    return mindlin_prepare_factor(in, p, 2.0 / 3.0, "mindlin-renzo");
}

static void mindlin_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    const double two_sqrt_5_6 = 1.8257418583505538; /* 2 sqrt(5/6) */
    double kt0 = p[1] * sqrt(c->r_eff * c->delta);
    double eta = two_sqrt_5_6 * p[2] * sqrt(kt0 * c->m_eff);
    spring_dashpot_coulomb(c, p[4] * kt0, eta, p[0], (int)p[3]);
}

static const tl_coeff_info linear_coeffs[] = {
    {"mu", "", NAN, true, 0.0, INFINITY, false, false, "Coulomb friction coefficient"},
    {"k_t", "N/m (N/m^2 with hertz-stiffness)", NAN, false, 0.0, INFINITY, true, false,
     "tangential stiffness; when absent, the series value of the materials' per-body k_t"},
    {"e_t", "", 1.0, false, 0.0, 1.0, true, false,
     "tangential restitution setting the dashpot 2 beta(e_t) sqrt(m* k_t); 1 = none"},
    {"gamma_t", "1/s (1/(m s) with hertz-stiffness)", 0.0, false, 0.0, INFINITY, false, false,
     "mass-proportional tangential damping rate"},
};
static const tl_coeff_info mindlin_coeffs[] = {
    {"mu", "", NAN, true, 0.0, INFINITY, false, false, "Coulomb friction coefficient"},
    {"e_t", "", NAN, false, 0.0, 1.0, true, false,
     "tangential restitution for the dashpot of eq. 6; when absent, the law's e (else no "
     "dashpot)"},
};

const tl_submodel tl_tangential_models[] = {
    {{TL_SLOT_TANGENTIAL, "none", "no tangential force (frictionless)", "-", NULL, 0, 0}, 0, NULL,
     none_force, NULL},
    {{TL_SLOT_TANGENTIAL, "linear", "linear spring k_t + dashpot, Coulomb limit",
      "Cundall & Strack 1979; Li et al. 2022 eq. 1; Fleischmann et al. 2015 eq. 1", linear_coeffs,
      4, 0},
     0, linear_prepare, linear_force, NULL},
    {{TL_SLOT_TANGENTIAL, "mindlin", "no-slip Mindlin spring K_t0 = 8 G* sqrt(R* delta) + dashpot",
      "Mindlin 1949; Tsuji et al. 1992; Li et al. 2022 eq. 4-6", mindlin_coeffs, 2, 0},
     0, mindlin_prepare, mindlin_force, NULL},
    {{TL_SLOT_TANGENTIAL, "mindlin-renzo", "Di Renzo-Di Maio spring K_tA = 2/3 K_t0 + dashpot",
      "Di Renzo & Di Maio 2005; Li et al. 2022 eq. 13, 17", mindlin_coeffs, 2, 0},
     0, renzo_prepare, mindlin_force, NULL},
    {{TL_SLOT_TANGENTIAL, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL},
};
