/*
 * Rolling slot: a torque against the relative rolling of the two bodies
 * (rolling resistance). Runs after the tangential slot: it needs the total
 * normal force.
 *
 *   none  no rolling torque (the default)
 *   epsd  the elastic-plastic spring-dashpot model (Iwashita & Oda 1998; Ai, Chen,
 *         Rotter & Ooi 2011, model type C), with the stiffness of Ai et al. 2011 and
 *         LIGGGHTS's `rolling_friction epsd` / `epsd3`:
 *
 *           dtheta_r = dth - (n . dth) n      the relative rolling rotation of the
 *                                             step (twisting about n left out)
 *           k_r  = c_k k_n mu_r^2 R*^2        k_n = F_el / delta, the normal law's
 *                                             secant stiffness; c_k = 2.25 (Ai et al.)
 *           M_k <- P M_k - k_r dtheta_r       P: projection onto the contact plane
 *           |M_k| <= M_m = mu_r R* F_n        full mobilisation: M_k rescaled onto it
 *           M_d = -eta C_r w_r,  C_r = 2 eta_r sqrt(I_r k_r)
 *                                             w_r the relative rolling angular velocity,
 *                                             eta = 0 at full mobilisation (Ai's f)
 *           torque on a: M_k + M_d;  on b: -(M_k + M_d)
 *
 *         The elastic energy is |M_k|^2 / (2 k_r). History: M_k (3), then M_d (3),
 *         the torques of the last evaluation, which the energy ledger reads.
 *
 * For two spheres at rest against each other the spring holds any torque below
 * M_m = mu_r R* F_n: a sphere on a slope of angle theta stays where it is when
 * tan(theta) < mu_r (on a wall R* is the sphere's own radius), and rolls with the
 * constant deceleration of that torque above it (docs/rolling.md).
 */
#include <math.h>

#include "submodel.h"
#include "vec.h"

enum { R_MU = 0, R_CK, R_ETA };

static void none_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    (void)hist;
    v3_zero(c->tq.m);
    v3_zero(c->tq.m_damp);
    c->tq.e_el = 0.0;
    c->tq.slip = false;
}

static tl_status epsd_prepare(const tl_prep *in, double *p) {
    p[R_MU] = in->coeff[0];
    p[R_CK] = in->coeff[1];
    p[R_ETA] = in->coeff[2];
    return TL_OK;
}

static void epsd_force(const double *p, tl_contact *c, double *hist) {
    const double mu = p[R_MU], R = c->r_eff;
    double kn = c->delta > 0.0 && c->fn_el > 0.0 ? c->fn_el / c->delta : 0.0;
    double kr = p[R_CK] * kn * mu * mu * R * R;
    double mk[3], d[3];
    v3_reject(mk, hist, c->n);
    v3_reject(d, c->dth, c->n);
    v3_axpy(mk, -kr, d);
    double mm = mu * R * (c->fn > 0.0 ? c->fn : 0.0), m2 = v3_norm2(mk);
    c->tq.slip = false;
    if (m2 > mm * mm) {
        double s = m2 > 0.0 ? mm / sqrt(m2) : 0.0;
        v3_scale(mk, mk, s);
        c->tq.slip = true;
    }
    v3_zero(c->tq.m_damp);
    if (!c->tq.slip && p[R_ETA] > 0.0 && kr > 0.0 && c->i_eff > 0.0) {
        double wr[3];
        v3_reject(wr, c->wr, c->n);
        v3_scale(c->tq.m_damp, wr, -2.0 * p[R_ETA] * sqrt(c->i_eff * kr));
    }
    v3_add(c->tq.m, mk, c->tq.m_damp);
    c->tq.e_el = kr > 0.0 ? 0.5 * v3_norm2(mk) / kr : 0.0;
    v3_copy(hist, mk);
    v3_copy(hist + 3, c->tq.m_damp);
}

static const tl_coeff_info epsd_coeffs[] = {
    {"mu_r", "", NAN, true, 0.0, INFINITY, false, false,
     "coefficient of rolling friction: the torque is limited to mu_r R* F_n"},
    {"k_r_factor", "", 2.25, false, 0.0, INFINITY, true, false,
     "c_k in the rolling stiffness k_r = c_k k_n mu_r^2 R*^2 (2.25: Ai et al. 2011, 3D)"},
    {"eta_r", "", 0.0, false, 0.0, INFINITY, false, false,
     "rolling damping ratio: the dashpot C_r = 2 eta_r sqrt(I_r k_r), off at full mobilisation"},
};

const tl_submodel tl_rolling_models[] = {
    {{TL_SLOT_ROLLING, "none", "no rolling resistance", "-", NULL, 0, 0}, 0, NULL, none_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_ROLLING, "epsd",
      "elastic-plastic spring-dashpot rolling resistance: a spring torque capped at mu_r R* F_n, "
      "and a dashpot",
      "Iwashita & Oda 1998; Ai et al. 2011 (model type C)", epsd_coeffs, 3, 6},
     0, epsd_prepare, epsd_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_ROLLING, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL, false, NULL, NULL, false},
};
