/*
 * What the contact geometry's kernels take and give (narrow.c dispatches to them: pcm.c,
 * ellipsoid_pair.c, ...): a body (its shape placed by a pose) and the patches at which two
 * bodies touch.
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
 */
#ifndef TL_PATCH_H
#define TL_PATCH_H

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
    double fn_scale; /* the body's normal force per unit of the law's, the law seeing delta as a
                      * generalised coordinate: 1 for every reading but the PCM's potential one,
                      * whose delta moves s times as fast as the bodies' approach (pcm.h) */
    int r_kind;      /* how r_eff lives with the contact (tl_patch_radius) */
    double r_grad[3]; /* TL_PATCH_R_GRADIENT: dr_eff/dt = r_grad . (w_a - w_b), 1/rad x m */
    double couple[3]; /* the wrench's couple per unit of the law's normal force, m, along n: delta
                       * moves at fn_scale (v_a - v_b at p) . n + couple . (w_a - w_b), and a gets
                       * the torque -F couple (b: +F couple) besides the force -fn_scale F n at p
                       * (the potential reading of a mesh pair, pcm.c; zero for every other) */
    double rock[6];  /* the potential readings: J = [n]x S [n]x^T / A (xx, yy, zz, xy, yz, zx, world
                      * frame, m^2), S the contact region's second moment about p, A its area: the
                      * stage's rocking dashpot, the law's normal dashpot spread over the region,
                      * resists a relative turn w with -eta fs^2 J w (docs/geometry.md); 0 elsewhere */
} tl_patch;

/* How a patch's equivalent radius lives with its contact (the contact stage reads it):
 *   TL_PATCH_R_KEPT      the record keeps the radius of the contact's beginning for its life
 *                        (spheres, whose radius is the bodies'; the meshes' readings, whose
 *                        normal force then derives from a potential of the overlap)
 *   TL_PATCH_R_CURRENT   the radius of the surfaces' curvature now, every step (ellipsoid pairs):
 *                        the stored energy it changes at a held overlap is no force's work, and
 *                        the ledger books it as curvature_work (docs/ellipsoid.md)
 *   TL_PATCH_R_GRADIENT  the radius now, a function of the bodies' relative attitude whose rate is
 *                        r_grad (an ellipsoid against a face): the stage adds the torque
 *                        -dE/dR r_grad, so the force is the gradient of the law's energy E(delta, R)
 *                        and an undamped contact is conservative (docs/ellipsoid.md) */
enum tl_patch_radius { TL_PATCH_R_KEPT = 0, TL_PATCH_R_CURRENT = 1, TL_PATCH_R_GRADIENT = 2 };

/* The pose of a body from its centroid and orientation quaternion (w, x, y, z). */
void tl_pose_from(tl_pose *pose, const double x[3], const double q[4]);

/* A body as the narrow phase sees it. */
typedef struct tl_body {
    const tl_shape *shape; /* NULL: a sphere */
    double radius;         /* sphere: its radius */
    tl_pose pose;          /* a sphere needs only pose.x */
    /* an ellipsoid's M = R D^2 R^T and its inverse (9 values each, row by row) when the caller
     * worked them out once for all its pairs (tl_ellipsoid_matrices); NULL: worked out where
     * needed, by the same operations */
    const double *M, *Mi;
} tl_body;

#endif
