/*
 * Impact indicators of an oblique collision (Li et al. 2022 eq. 20-23),
 * from the velocities before and after: restitution, rebound angles of the
 * centre and of the contact point, Maw's dimensionless angles, the spin and
 * the outgoing energies. Used by the collision lab and by scene analyses.
 */
#include <math.h>

#include "talus/talus.h"

static tl_vec3 vec(double x, double y, double z) { return (tl_vec3){x, y, z}; }
static tl_vec3 vadd(tl_vec3 a, tl_vec3 b) { return vec(a.x + b.x, a.y + b.y, a.z + b.z); }
static tl_vec3 vsub(tl_vec3 a, tl_vec3 b) { return vec(a.x - b.x, a.y - b.y, a.z - b.z); }
static tl_vec3 vscale(tl_vec3 a, double s) { return vec(s * a.x, s * a.y, s * a.z); }
static double vdot(tl_vec3 a, tl_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static tl_vec3 vcross(tl_vec3 a, tl_vec3 b) {
    return vec(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

double tl_kappa(const tl_material_def *a, const tl_material_def *b) {
    if (a == b || (a->poisson_ratio == b->poisson_ratio && a->youngs_modulus == b->youngs_modulus))
        return (1.0 - a->poisson_ratio) / (1.0 - 0.5 * a->poisson_ratio); /* one material */
    if (!(a->youngs_modulus > 0.0) || !(b->youngs_modulus > 0.0)) return NAN;
    double ga = a->youngs_modulus / (2.0 * (1.0 + a->poisson_ratio));
    double gb = b->youngs_modulus / (2.0 * (1.0 + b->poisson_ratio));
    double num = (1.0 - a->poisson_ratio) / ga + (1.0 - b->poisson_ratio) / gb;
    double den = (1.0 - 0.5 * a->poisson_ratio) / ga + (1.0 - 0.5 * b->poisson_ratio) / gb;
    return num / den;
}

/* velocity of a's contact point relative to b's: r_s = -R_a n on a, +R_b n on b */
static tl_vec3 contact_point(const tl_impact_input *in, tl_vec3 v, tl_vec3 wa, tl_vec3 wb) {
    tl_vec3 vc = vadd(v, vcross(wa, vscale(in->normal, -in->radius_a)));
    bool wall = !(in->radius_b > 0.0) || isinf(in->radius_b);
    if (!wall) vc = vsub(vc, vcross(wb, vscale(in->normal, in->radius_b)));
    return vc;
}

void tl_impact_measure(const tl_impact_input *in, tl_impact_indicators *o) {
    tl_vec3 n = in->normal;
    double vn_in = vdot(in->v_in, n);
    tl_vec3 vt_in = vsub(in->v_in, vscale(n, vn_in));
    double vt_mag = sqrt(vdot(vt_in, vt_in));
    bool head_on = !(vt_mag > 1e-12 * fabs(vn_in));
    o->t = head_on ? vec(0, 0, 0) : vscale(vt_in, 1.0 / vt_mag);
    double vn_out = vdot(in->v_out, n);
    o->e_n = fabs(vn_out) / fabs(vn_in);
    o->e_t = head_on ? 0.0 : fabs(vdot(in->v_out, o->t)) / vt_mag;
    o->vc_out = contact_point(in, in->v_out, in->omega_out, in->omega_b_out);
    if (head_on) {
        tl_vec3 wt = vsub(in->v_out, vscale(n, vn_out));
        o->alpha_v = atan2(sqrt(vdot(wt, wt)), vn_out);
        double vcn = vdot(o->vc_out, n);
        tl_vec3 ct = vsub(o->vc_out, vscale(n, vcn));
        o->alpha_c = atan2(sqrt(vdot(ct, ct)), vcn);
        o->omega_roll = 0.0;
    } else {
        o->alpha_v = atan2(vdot(in->v_out, o->t), vn_out);
        o->alpha_c = atan2(vdot(o->vc_out, o->t), vdot(o->vc_out, n));
        o->omega_roll = vdot(in->omega_out, vcross(n, o->t));
    }
    if (in->mu > 0.0 && isfinite(in->kappa) && !head_on) {
        tl_vec3 vc_in = contact_point(in, in->v_in, in->omega_in, in->omega_b_in);
        o->psi1 = in->kappa / in->mu * vdot(vc_in, o->t) / fabs(vn_in);
        o->psi2 = in->kappa / in->mu * vdot(o->vc_out, o->t) / fabs(vn_in);
    } else {
        o->psi1 = o->psi2 = NAN;
    }
    o->energy_out_translational = 0.5 * in->mass_a * vdot(in->v_out, in->v_out);
    o->energy_out_rotational = 0.5 * in->inertia_a * vdot(in->omega_out, in->omega_out);
    o->energy_out_paper = 0.5 * in->mass_a * vdot(o->vc_out, o->vc_out);
}
