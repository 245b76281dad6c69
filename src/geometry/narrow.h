/*
 * The narrow phase: the contact geometry of two bodies of any shape, the only
 * code (with the broad phase) that knows shapes. Laws never see a shape: they
 * receive the patches computed here (overlap, normal, point, equivalent
 * radius) and the stage turns each into forces with lever arms r = p - x.
 *
 * Poses. A body is its shape (stored once, in its body frame: centred at the
 * centroid, axes along the principal axes of inertia) placed by a pose: the
 * centroid x in the world and the rotation R from the body frame to the world
 * (world = x + R body). A sphere's pose needs only x.
 *
 * Patches. Two bodies touch at zero, one or more patches (convex pairs: at
 * most one; non-convex meshes: several). Each patch is one contact for the
 * law, with its own record and tangential history (the contact stage matches
 * patches from step to step by their point in a's body frame).
 *
 * Conventions (as tl_geometry for spheres):
 *   delta  overlap, m, > 0 for a returned patch
 *   n      unit normal from a towards b (the force on a is -fn n + ft)
 *   p      the contact point, world frame, m
 *   r_eff  the equivalent radius the Hertzian laws use (R* of the pair), m
 *   area   the patch's area projected on the contact plane, m^2 (0 = unknown)
 *
 * Each function returns the number of patches written to out (at most max),
 * or, for the mesh pairs, more than max when patches were merged to fit
 * (see pcm.h). Functions are pure: no allocation, no global state, safe on
 * any thread; scratch space, where needed, is passed in.
 */
#ifndef TL_NARROW_H
#define TL_NARROW_H

#include <stdbool.h>
#include <stdint.h>

#include "shape.h"

typedef struct tl_pose {
    double x[3];    /* centroid, world frame, m */
    double R[3][3]; /* body -> world rotation (columns: the body axes in the world) */
} tl_pose;

typedef struct tl_patch {
    double delta;
    double n[3];
    double p[3];
    double r_eff;
    double area;
} tl_patch;

/* The pose of a body from its centroid and orientation quaternion (w, x, y, z). */
void tl_pose_from(tl_pose *pose, const double x[3], const double q[4]);

#endif
