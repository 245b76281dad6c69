/*
 * The shape interface: what the engine needs to know of a body's shape. Only
 * spheres exist today; ellipsoids and polyhedra add a kind here, their mass
 * properties, and their narrow-phase functions, without touching the step.
 */
#ifndef TL_SHAPE_H
#define TL_SHAPE_H

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
void tl_geometry_sphere_sphere(const double xa[3], double ra, const double xb[3], double rb,
                               tl_geometry *g);

#endif
