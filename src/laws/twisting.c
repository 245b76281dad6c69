/*
 * Twisting slot: a torque against the relative spin of the two bodies about the contact
 * normal (twisting resistance). Runs after the rolling slot: it needs the total normal force
 * and, for marshall, the tangential slot's stiffness, damping and friction coefficient of this
 * evaluation (c->kt, c->eta_t, c->mu_t). Its torque (c->tq) is added to the contact's c->mr,
 * which the stages apply on a (and its opposite on b).
 *
 *   none      no twisting torque (the default)
 *   sds       spring-dashpot-slider on the relative twist (LAMMPS pair granular `twisting sds`;
 *             Marshall 2009 eq. 30, 34, 44 with given coefficients):
 *
 *               dtheta_t = n . dth                  the twist of the step's drift
 *               M_k <- (n . M_k) - k_tw dtheta_t    the spring, kept along the current n
 *               M_d = -gamma_tw (n . w_r)           the dashpot
 *               |M_k + M_d| <= M_c = mu_tw |F_n|    F_n the total normal force (as LAMMPS's
 *                                                   Fncrit; mu_tw is a length)
 *             at the limit the torque is M_c along the trial M_k + M_d, the spring alone
 *             carries it (M_k = that torque) and the dashpot is off: the reading of the
 *             tangential slot's `total` Coulomb test. LAMMPS keeps the twist angle and stores it
 *             so that spring plus dashpot equals -M_c sign(n . w_r); the two agree when the
 *             dashpot is off and whenever the trial torque opposes the spin.
 *   marshall  the same with the coefficients of Marshall 2009 eq. 32 (LAMMPS `twisting
 *             marshall`; a law without a tangential model is refused), per evaluation from the
 *             tangential slot and the contact radius
 *             a = sqrt(R* delta):
 *               k_tw = 1/2 k_t a^2,  gamma_tw = 1/2 eta_t a^2,  mu_tw = 2/3 mu_t a
 *             k_t the tangential spring's stiffness (N/m: linear f k_t, Mindlin's K_t0 =
 *             8 G* a, mindlin-renzo's 2/3 K_t0), eta_t its dashpot (N s/m), mu_t its friction
 *             coefficient. (LAMMPS multiplies its tangential coefficient k_t as given, not the
 *             stiffness of the contact: for a Mindlin law the two differ by the factor 8 G* a.)
 *
 * The elastic energy is M_k^2 / (2 k_tw). History: M_k (3), then M_d (3), the torques (along
 * n) of the last evaluation, which the energy ledger reads, as the rolling slot's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "submodel.h"
#include "vec.h"

enum { T_K = 0, T_G, T_MU };

static void none_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    (void)hist;
    v3_zero(c->tq.m);
    v3_zero(c->tq.m_damp);
    c->tq.e_el = 0.0;
    c->tq.slip = false;
}

/* The spring-dashpot-slider on the twist with stiffness k (N m/rad), dashpot g (N m s/rad) and
 * limit mc (N m). */
static void twist_sds(tl_contact *c, double *hist, double k, double g, double mc) {
    const double *n = c->n;
    double mk = v3_dot(hist, n) - k * v3_dot(c->dth, n);
    double md = -g * v3_dot(c->wr, n);
    double m = mk + md;
    c->tq.slip = false;
    if (fabs(m) > mc) {
        m = m > 0.0 ? mc : -mc;
        mk = m;
        md = 0.0;
        c->tq.slip = true;
    }
    v3_scale(c->tq.m, n, m);
    v3_scale(c->tq.m_damp, n, md);
    c->tq.e_el = k > 0.0 ? 0.5 * mk * mk / k : 0.0;
    v3_scale(hist, n, mk);
    v3_copy(hist + 3, c->tq.m_damp);
}

static tl_status sds_prepare(const tl_prep *in, double *p) {
    p[T_K] = in->coeff[0];
    p[T_G] = in->coeff[1];
    p[T_MU] = in->coeff[2];
    return TL_OK;
}

static void sds_force(const double *p, tl_contact *c, double *hist) {
    twist_sds(c, hist, p[T_K], p[T_G], p[T_MU] * fabs(c->fn));
}

static void marshall_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    double a2 = c->delta > 0.0 ? c->r_eff * c->delta : 0.0;
    twist_sds(c, hist, 0.5 * c->kt * a2, 0.5 * c->eta_t * a2, 2.0 / 3.0 * c->mu_t * sqrt(a2) * fabs(c->fn));
}

static const tl_coeff_info sds_coeffs[] = {
    {"k_twist", "N m/rad", NAN, true, 0.0, INFINITY, false, false,
     "twisting spring stiffness k_tw: the torque -k_tw theta_t against the twist angle"},
    {"gamma_twist", "N m s/rad", 0.0, false, 0.0, INFINITY, false, false,
     "twisting dashpot gamma_tw: the torque -gamma_tw (n . w_r), off at the limit"},
    {"mu_twist", "m", NAN, true, 0.0, INFINITY, false, false,
     "twisting friction mu_tw: the torque is limited to mu_tw |F_n|"},
};

/* marshall takes its spring, dashpot and friction from the tangential model */
static bool needs_tangential(const char *const models[TL_SLOT_COUNT], char *msg, size_t msg_size) {
    if (strcmp(models[TL_SLOT_TANGENTIAL], "none") != 0) return true;
    snprintf(msg, msg_size,
             "twisting 'marshall' takes its stiffness, damping and friction from the tangential model: "
             "choose a tangential model or twisting 'sds'");
    return false;
}

const tl_submodel tl_twisting_models[] = {
    {{TL_SLOT_TWISTING, "none", "no twisting resistance", "-", NULL, 0, 0}, 0, NULL, none_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_TWISTING, "sds",
      "spring-dashpot-slider twisting resistance: a spring torque against the twist about the normal, a "
      "dashpot, capped at mu_tw |F_n|",
      "Marshall 2009 eq. 30, 34, 44; LAMMPS pair granular twisting sds", sds_coeffs, 3, 6},
     0, sds_prepare, sds_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_TWISTING, "marshall",
      "twisting spring-dashpot-slider from the tangential model: k_tw = k_t a^2/2, gamma_tw = eta_t a^2/2, "
      "mu_tw = 2/3 mu_t a, a = sqrt(R* delta)",
      "Marshall 2009 eq. 32; LAMMPS pair granular twisting marshall", NULL, 0, 6},
     0, NULL, marshall_force, NULL, false, needs_tangential, NULL, false},
    {{TL_SLOT_TWISTING, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL, false, NULL, NULL, false},
};
