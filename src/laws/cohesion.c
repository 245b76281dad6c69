/*
 * Cohesion slot: an adhesive normal force added to the normal and damping slots' (after the
 * clamp of clamp_tensile, which acts on theirs alone), and the energy it stores. A force slot
 * (slots.h, TL_CLASS_FORCE): its kernel writes c->fo, its force f (N, > 0 repulsive: an adhesive
 * force is negative) and its potential U (J) with f = dU/d delta (U < 0: the contact is bound),
 * relative to the state in which it stops acting. The models here act while the bodies overlap
 * (delta > 0) and stop at separation:
 *
 *   none    no cohesion (the default)
 *   dmt     f = -2 pi w R*: the Derjaguin-Muller-Toporov pull-off force 2 pi w R* (Derjaguin et
 *           al. 1975; LAMMPS pair granular `dmt`, whose surface energy gamma is w/2), acting while
 *           the bodies touch; U = -2 pi w R* delta. With hertz it is Hertz plus the constant
 *           adhesion of DMT theory; the pull-off force is 2 pi w R* at delta -> 0+.
 *   sjkr    f = -k A, A the area of the circle where the two undeformed spheres intersect
 *           (LIGGGHTS `cohesion sjkr`: A = -pi/4 (d-Ra-Rb)(d+Ra-Rb)(d-Ra+Rb)(d+Ra+Rb)/d^2,
 *           d = Ra + Rb - delta; a wall: A = pi (2 Ra delta - delta^2)); k the cohesion energy
 *           density (LIGGGHTS's cohesionEnergyDensity, J/m^3). U = -k int_0^delta A.
 *   sjkr2   f = -k A, A = 2 pi delta (2 R*) (LIGGGHTS `cohesion sjkr2`); U = -2 pi k R* delta^2.
 *
 * and one acts beyond first touch (its row's reach):
 *
 *   jkr     Johnson, Kendall & Roberts 1971 with normal hertz: the contact radius a from
 *           delta = a^2/R - sqrt(2 pi w a / E*) on its stable branch, the total normal force
 *           F = 4 E* a^3/(3R) - sqrt(8 pi w E* a^3), so f = F - F_Hertz(delta+). The contact forms
 *           at delta = 0 on approach (the force jumps to -4/3 pi w R) and holds while delta >
 *           delta_c, the overlap where d delta/da = 0 (a_c^3 = pi w R^2/(8 E*), F = -5/6 pi w R:
 *           a displacement-controlled pull-off); the largest tension on the way is 3/2 pi w R (the
 *           pull-off force under load control). U = W(a) - W(a_c) - E_Hertz(delta+), W(a) =
 *           int F d delta = 8 E* a^5/(15 R^2) - 2/3 sqrt(8 pi w E*) a^(7/2)/R + pi w a^2; the jump at
 *           formation, -U(0), is the energy a contact cycle loses (dissipated_cohesion).
 *
 *   capillary  a pendular liquid bridge of volume V, surface tension gamma, contact angle theta
 *           (Rabinovich et al. 2005, written with R = 2 R*, which is the sphere radius for two equal
 *           spheres and gives a sphere on a plate its 4 pi R gamma cos theta): at separation s >= 0
 *           f = -F0 (1 - s / sqrt(s^2 + q)), F0 = 4 pi R* gamma cos theta, q = V / (pi R*);
 *           in contact (delta > 0) f = -F0. The bridge forms at touch and ruptures at
 *           s_r = (1 + theta/2) V^(1/3) (Lian et al. 1993): its reach. U(s) = -int_s^{s_r} f ds =
 *           -F0 [(s_r - sqrt(s_r^2 + q)) - (s - sqrt(s^2 + q))], and U(delta) = U(0) - F0 delta in
 *           contact; forming the bridge costs -U(0) (dissipated_cohesion), the energy a cycle loses.
 *
 * The radii Ra, Rb are the contact's (c->ra, c->rb: Rb infinite for a wall).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "submodel.h"

static const double PI = 3.14159265358979323846;

static void none_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    (void)hist;
    c->fo.f = 0.0;
    c->fo.e = 0.0;
}

static tl_status w_prepare(const tl_prep *in, double *p) {
    p[0] = in->coeff[0];
    return TL_OK;
}

static void dmt_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    const double fc = 2.0 * PI * p[0] * c->r_eff;
    c->fo.f = c->delta > 0.0 ? -fc : 0.0;
    c->fo.e = c->delta > 0.0 ? -fc * c->delta : 0.0;
}

/* The area of the intersection circle of two spheres of radii ra and rb at overlap x (rb
 * infinite: a sphere and a plane), written without cancellation: with S = ra + rb and
 * d = S - x, (d^2 - S^2)(d^2 - (ra - rb)^2) = -x (2S - x)(2ra - x)(2rb - x). */
static double intersection_area(double ra, double rb, double x) {
    if (!(x > 0.0)) return 0.0;
    if (isinf(rb)) return PI * x * (2.0 * ra - x);
    const double S = ra + rb, d = S - x;
    return PI * x * (2.0 * S - x) * (2.0 * ra - x) * (2.0 * rb - x) / (4.0 * d * d);
}

/* int_0^x A(s) ds by 8-point Gauss-Legendre (A is smooth on [0, x] for x < min(ra, rb); exact
 * for the plane's quadratic) */
static double intersection_area_integral(double ra, double rb, double x) {
    static const double node[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                                   0.9602898564975363};
    static const double weight[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                     0.1012285362903763};
    if (!(x > 0.0)) return 0.0;
    if (isinf(rb)) return PI * (ra * x * x - x * x * x / 3.0);
    double sum = 0.0;
    for (int k = 0; k < 4; k++)
        sum += weight[k] * (intersection_area(ra, rb, 0.5 * x * (1.0 - node[k])) +
                            intersection_area(ra, rb, 0.5 * x * (1.0 + node[k])));
    return 0.5 * x * sum;
}

static void sjkr_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    const double k = p[0];
    c->fo.f = -k * intersection_area(c->ra, c->rb, c->delta);
    c->fo.e = -k * intersection_area_integral(c->ra, c->rb, c->delta);
}

static void sjkr2_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    const double k = p[0], x = c->delta > 0.0 ? c->delta : 0.0;
    c->fo.f = -k * 4.0 * PI * c->r_eff * x;
    c->fo.e = -k * 2.0 * PI * c->r_eff * x * x;
}

/* ---- jkr ---- */

enum { J_W = 0, J_E, J_C, J_C1 };

static tl_status jkr_prepare(const tl_prep *in, double *p) {
    const double E = tl_material_e_star(in->a, in->b);
    if (!(E > 0.0) || !isfinite(E)) return tl_prep_fail(in, "cohesion 'jkr' needs the Young's moduli and Poisson ratios of both materials");
    p[J_W] = in->coeff[0];
    p[J_E] = E;
    p[J_C] = sqrt(2.0 * PI * p[J_W] / E);  /* delta = x^4/R - C x, x = sqrt(a) */
    p[J_C1] = sqrt(8.0 * PI * p[J_W] * E); /* F = 4 E a^3/(3R) - C1 a^3/2 */
    return TL_OK;
}

/* the stable branch's limit: x_c = sqrt(a_c), (C R / 4)^(1/3) */
static double jkr_xc(const double *p, double R) { return cbrt(0.25 * p[J_C] * R); }

static double jkr_reach(const double *p, double R) {
    if (!(p[J_W] > 0.0) || !(R > 0.0)) return 0.0;
    const double x = jkr_xc(p, R);
    return -(x * x * x * x / R - p[J_C] * x); /* -delta_c */
}

/* x = sqrt(a) on the stable branch for the overlap d (>= delta_c): Newton from the right (g is
 * convex and increasing there), to the last digits */
static double jkr_x(const double *p, double R, double d) {
    const double C = p[J_C], xc = jkr_xc(p, R);
    double x = fmax(cbrt(2.0 * C * R), pow(2.0 * R * fmax(d, 0.0), 0.25));
    x = fmax(x, xc);
    for (int it = 0; it < 100; it++) {
        const double x3 = x * x * x, g = x3 * x / R - C * x - d, dg = 4.0 * x3 / R - C;
        if (!(dg > 0.0)) break;
        const double step = g / dg;
        x -= step;
        if (x < xc) x = xc;
        if (fabs(step) <= 1e-15 * x) break;
    }
    return x;
}

/* W(a) = int F d delta along the branch (up to a constant) */
static double jkr_w(const double *p, double R, double x) {
    const double a = x * x, a2 = a * a;
    return 8.0 * p[J_E] * a2 * a2 * a / (15.0 * R * R) - 2.0 / 3.0 * p[J_C1] * a2 * x * x * x / R + PI * p[J_W] * a2;
}

static void jkr_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    const double R = c->r_eff, d = c->delta;
    if (!(p[J_W] > 0.0)) {
        c->fo.f = c->fo.e = 0.0;
        return;
    }
    const double x = jkr_x(p, R, d), a = x * x, a3 = a * a * a;
    const double F = 4.0 * p[J_E] * a3 / (3.0 * R) - p[J_C1] * a * x;
    const double dp = d > 0.0 ? d : 0.0, K = 4.0 / 3.0 * p[J_E] * sqrt(R), sd = sqrt(dp);
    c->fo.f = F - K * dp * sd;
    c->fo.e = jkr_w(p, R, x) - jkr_w(p, R, jkr_xc(p, R)) - 0.4 * K * dp * dp * sd;
}

/* its Hertz part is the normal slot's: jkr is JKR theory with normal hertz */
static bool needs_hertz(const char *const models[TL_SLOT_COUNT], char *msg, size_t msg_size) {
    if (strcmp(models[TL_SLOT_NORMAL], "hertz") == 0) return true;
    snprintf(msg, msg_size,
             "cohesion 'jkr' completes Hertz's force to JKR's: it needs normal 'hertz' (got '%s'); with other "
             "normal models use dmt, sjkr or sjkr2",
             models[TL_SLOT_NORMAL]);
    return false;
}

/* ---- capillary ---- */

enum { L_V = 0, L_G, L_COS, L_SR };

static tl_status capillary_prepare(const tl_prep *in, double *p) {
    p[L_V] = in->coeff[0];
    p[L_G] = in->coeff[1];
    const double theta = in->coeff[2] * PI / 180.0;
    p[L_COS] = cos(theta);
    p[L_SR] = (1.0 + 0.5 * theta) * cbrt(p[L_V]); /* Lian et al. 1993 */
    return TL_OK;
}

static double capillary_reach(const double *p, double r_eff) {
    (void)r_eff;
    return p[L_SR];
}

/* -int_s^{s_r} f ds for s in [0, s_r] */
static double capillary_u(double F0, double q, double sr, double s) {
    return -F0 * ((sr - sqrt(sr * sr + q)) - (s - sqrt(s * s + q)));
}

static void capillary_force(const double *p, tl_contact *c, double *hist) {
    (void)hist;
    const double R = c->r_eff, F0 = 4.0 * PI * R * p[L_G] * p[L_COS], q = p[L_V] / (PI * R), sr = p[L_SR];
    const double s = -c->delta; /* the separation (negative in contact) */
    if (!(p[L_V] > 0.0) || s >= sr) {
        c->fo.f = c->fo.e = 0.0;
        return;
    }
    if (s <= 0.0) {
        c->fo.f = -F0;
        c->fo.e = capillary_u(F0, q, sr, 0.0) - F0 * c->delta;
    } else {
        c->fo.f = -F0 * (1.0 - s / sqrt(s * s + q));
        c->fo.e = capillary_u(F0, q, sr, s);
    }
}

static const tl_coeff_info capillary_coeffs[] = {
    {"liquid_volume", "m3", NAN, true, 0.0, INFINITY, false, false,
     "the volume V of liquid in one bridge (its rupture distance is (1 + theta/2) V^(1/3))"},
    {"surface_tension", "N/m", NAN, true, 0.0, INFINITY, false, false, "the liquid's surface tension gamma"},
    {"contact_angle", "deg", 0.0, false, 0.0, 90.0, false, true, "the contact angle theta of the liquid on the solid"},
};

static const tl_coeff_info w_coeffs[] = {
    {"w_adhesion", "J/m2", NAN, true, 0.0, INFINITY, false, false,
     "work of adhesion w (twice the surface energy gamma of each surface): the pull-off force is 2 pi w R*"},
};

static const tl_coeff_info k_coeffs[] = {
    {"k_cohesion", "J/m3", NAN, true, 0.0, INFINITY, false, false,
     "cohesion energy density k (LIGGGHTS's cohesionEnergyDensity): the force is k times the contact area"},
};

const tl_submodel tl_cohesion_models[] = {
    {{TL_SLOT_COHESION, "none", "no cohesion", "-", NULL, 0, 0}, 0, NULL, none_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_COHESION, "dmt",
      "Derjaguin-Muller-Toporov adhesion: a constant pull 2 pi w R* while the bodies touch",
      "Derjaguin, Muller & Toporov 1975; LAMMPS pair granular normal dmt (gamma = w/2)", w_coeffs, 1, 0},
     0, w_prepare, dmt_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_COHESION, "sjkr",
      "simplified JKR: a pull k A, A the intersection area of the undeformed spheres, while they touch",
      "LIGGGHTS cohesion sjkr", k_coeffs, 1, 0},
     0, w_prepare, sjkr_force, NULL, false, NULL, NULL, true},
    {{TL_SLOT_COHESION, "sjkr2", "simplified JKR: a pull k A, A = 2 pi delta (2 R*), while the bodies touch",
      "LIGGGHTS cohesion sjkr2", k_coeffs, 1, 0},
     0, w_prepare, sjkr2_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_COHESION, "jkr",
      "Johnson-Kendall-Roberts adhesion with hertz: the JKR force through the contact radius, formed at touch, "
      "held to the displacement-controlled pull-off overlap",
      "Johnson, Kendall & Roberts 1971; pull-off as Maugis 2000 (fixed grips)", w_coeffs, 1, 0},
     0, jkr_prepare, jkr_force, NULL, false, needs_hertz, jkr_reach, false},
    {{TL_SLOT_COHESION, "capillary",
      "a pendular liquid bridge: the capillary pull of a given liquid volume, formed at touch, ruptured at "
      "(1 + theta/2) V^(1/3)",
      "Rabinovich et al. 2005 (force, with R = 2 R*); Lian et al. 1993 (rupture distance)", capillary_coeffs, 3, 0},
     0, capillary_prepare, capillary_force, NULL, false, NULL, capillary_reach, false},
    {{TL_SLOT_COHESION, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL, false, NULL, NULL, false},
};
