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
 * The radii Ra, Rb are the contact's (c->ra, c->rb: Rb infinite for a wall).
 */
#include <math.h>

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

static const tl_coeff_info w_coeffs[] = {
    {"w_adhesion", "J/m2", NAN, true, 0.0, INFINITY, false, false,
     "work of adhesion w (twice the surface energy gamma of each surface): the pull-off force is 2 pi w R*"},
};

static const tl_coeff_info k_coeffs[] = {
    {"k_cohesion", "J/m3", NAN, true, 0.0, INFINITY, false, false,
     "cohesion energy density k (LIGGGHTS's cohesionEnergyDensity): the force is k times the contact area"},
};

const tl_submodel tl_cohesion_models[] = {
    {{TL_SLOT_COHESION, "none", "no cohesion", "-", NULL, 0, 0}, 0, NULL, none_force, NULL, false, NULL},
    {{TL_SLOT_COHESION, "dmt",
      "Derjaguin-Muller-Toporov adhesion: a constant pull 2 pi w R* while the bodies touch",
      "Derjaguin, Muller & Toporov 1975; LAMMPS pair granular normal dmt (gamma = w/2)", w_coeffs, 1, 0},
     0, w_prepare, dmt_force, NULL, false, NULL},
    {{TL_SLOT_COHESION, "sjkr",
      "simplified JKR: a pull k A, A the intersection area of the undeformed spheres, while they touch",
      "LIGGGHTS cohesion sjkr", k_coeffs, 1, 0},
     0, w_prepare, sjkr_force, NULL, false, NULL},
    {{TL_SLOT_COHESION, "sjkr2", "simplified JKR: a pull k A, A = 2 pi delta (2 R*), while the bodies touch",
      "LIGGGHTS cohesion sjkr2", k_coeffs, 1, 0},
     0, w_prepare, sjkr2_force, NULL, false, NULL},
    {{TL_SLOT_COHESION, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL, false, NULL},
};
