/*
 * The shape interface: what the engine needs to know of a body's shape.
 * A sphere is described by its radius alone (the particle store's radius). A
 * non-spherical body refers to a tl_shape, stored once per world in its body
 * frame (centroid at the origin, axes along the principal axes of inertia):
 * an ellipsoid by its semi-axes, a polyhedron by its triangle mesh (mesh.h).
 * Narrow-phase functions of each pair of shapes are in narrow.h.
 */
#ifndef TL_SHAPE_H
#define TL_SHAPE_H

#include <math.h>
#include <stdbool.h>

#include "talus/types.h"

typedef struct tl_mesh tl_mesh; /* mesh.h */

/* A particle's coordinates and radius are bounded (docs/scene.md, limits):
 * positions far from the others coarsen the cell grid, and beyond these the
 * energies (m g z) and the step's arithmetic lose their meaning. */
#define TL_MAX_COORDINATE 1e12 /* m */
#define TL_MIN_RADIUS 1e-12    /* m */

/* a body's length (a radius, a semi-axis): the range of a sphere's radius, TL_MIN_RADIUS (below,
 * masses underflow) to TL_MAX_COORDINATE */
static inline bool tl_body_length_ok(double x) { return x >= TL_MIN_RADIUS && x <= TL_MAX_COORDINATE; }

typedef struct tl_shape {
    tl_shape_kind kind;
    double semi[3];       /* ellipsoid: semi-axes a, b, c along the body axes, m */
    const tl_mesh *mesh;  /* mesh: the surface in the body frame */
    double radius;        /* bounding radius about the centroid, m (the broad phase's) */
    double volume;        /* m^3 */
    double inertia[3];    /* principal moments of inertia per unit mass, m^2 (I = m inertia) */
    double r_volume;      /* radius of the sphere of the same volume, m */
    double r_contact;     /* mesh: the radius its law's rule gives at most (0: the bounding radius) */
    tl_mesh_radius mesh_radius; /* mesh: how Hertzian laws see it */
    tl_mesh_depth mesh_depth;   /* mesh: how its overlap is measured */
    /* the body frame's attitude in the frame the shape was given in (a mesh's
     * file): the unit quaternion of the shape's frame R, (1, 0, 0, 0) for
     * ellipsoids. A particle's orientation as given and read (the API, scenes,
     * outputs) turns the shape as given; the engine keeps the body frame's,
     * q_body = q_given * frame_q (world_shapes.c, "Orientations"). */
    double frame_q[4];
    bool framed;                /* frame_q is not exactly (1, 0, 0, 0): orientations are converted */
} tl_shape;

/* Contact geometry between two bodies, from body a towards body b. */
typedef struct tl_geometry {
    double delta;   /* overlap, m (> 0 touching) */
    double n[3];    /* unit normal from a to b */
    double ra[3];   /* from a's centre to the contact point, m */
    double rb[3];   /* from b's centre (or the wall's reference) to the contact point, m */
    double r_eff;   /* effective radius of curvature, m */
} tl_geometry;

double tl_sphere_volume(double radius);
/* The principal moment of inertia of a sphere of the given mass, 2/5 m R^2. */
double tl_sphere_inertia(double mass, double radius);

/* The principal moments of a body of the given mass and shape, kg m^2. */
static inline void tl_shape_moments(const tl_shape *s, double mass, double I[3]) {
    for (int k = 0; k < 3; k++) I[k] = mass * s->inertia[k];
}

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
    /* written out: a loop here is vectorized into pairs read back from the scalars just stored
     * (a stalled store forwarding per contact) */
    g->ra[0] = g->n[0] * la;
    g->ra[1] = g->n[1] * la;
    g->ra[2] = g->n[2] * la;
    g->rb[0] = -(g->n[0] * lb);
    g->rb[1] = -(g->n[1] * lb);
    g->rb[2] = -(g->n[2] * lb);
    g->r_eff = ra * rb / (ra + rb);
}

#endif
