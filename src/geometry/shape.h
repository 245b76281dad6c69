/*
 * The shape interface: what the engine needs to know of a body's shape. Only
 * spheres exist today; ellipsoids and polyhedra add a kind here, their mass
 * properties, and their narrow-phase functions, without touching the step.
 */
#ifndef TL_SHAPE_H
#define TL_SHAPE_H

#include <math.h>
#include <stdbool.h>

#include "talus/types.h"

/* Contact geometry between two bodies, from body a towards body b. */
typedef struct tl_geometry {
    double delta;   /* overlap, m (> 0 touching) */
    double n[3];    /* unit normal from a to b */
    double ra[3];   /* from a's centre to the contact point, m */
    double rb[3];   /* from b's centre (or the wall's reference) to the contact point, m */
    double r_eff;   /* effective radius of curvature, m */
} tl_geometry;

bool tl_shape_valid(tl_shape_kind kind);
double tl_shape_volume(tl_shape_kind kind, double radius);
/* Principal moment of inertia of a body of the given mass (sphere: 2/5 m R^2). */
double tl_shape_inertia(tl_shape_kind kind, double mass, double radius);

/* Sphere-sphere: centres xa, xb, radii. Returns the gap-signed overlap in
 * g->delta always; the other fields only when touching or when `always`. */
static inline void tl_geometry_sphere_sphere(const double xa[3], double ra, const double xb[3],
                                             double rb, tl_geometry *g) {
    double d[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
    double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    g->delta = ra + rb - dist;
    if (dist > 0.0) {
        double inv = 1.0 / dist;
        g->n[0] = d[0] * inv;
        g->n[1] = d[1] * inv;
        g->n[2] = d[2] * inv;
    } else {
        g->n[0] = g->n[1] = 0.0;
        g->n[2] = 1.0;
    }
    /* the contact point is the middle of the overlap along the line of centres */
    double la = ra - 0.5 * g->delta, lb = rb - 0.5 * g->delta;
    for (int k = 0; k < 3; k++) {
        g->ra[k] = g->n[k] * la;
        g->rb[k] = -(g->n[k] * lb);
    }
    g->r_eff = ra * rb / (ra + rb);
}

#endif
