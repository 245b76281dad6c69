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

#include "alloc.h"
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

/* Working memory of the narrow phase, one per thread (the mesh pairs keep
 * their element lists here); grown on demand through the allocator. */
typedef struct tl_narrow_scratch {
    tl_mem mem;            /* its own allocation books (threads grow their scratches at once) */
    struct tl_pcm_scratch *pcm; /* the polygonal contact model's buffers (pcm.h) */
} tl_narrow_scratch;

/* a: the allocator of the world (its own byte count is kept apart) */
void tl_narrow_scratch_init(tl_narrow_scratch *s, const tl_allocator *a);
void tl_narrow_scratch_free(tl_narrow_scratch *s);
/* after the scratch was moved in memory (an array of them reallocated): its buffers' books
 * are its own member, so the pointer to them is set again */
void tl_narrow_scratch_moved(tl_narrow_scratch *s);

/* The patches of two bodies (at most max); -1 when the pair of shapes has no
 * geometry function, -2 when the scratch could not grow. n_hint (NULL: none): a unit
 * normal from a to b near the contact's (the last step's), which steers the search of two
 * meshes without changing its result (pcm.h). */
int tl_narrow_bodies(const tl_body *a, const tl_body *b, const double *n_hint, tl_patch *out, int max,
                     tl_narrow_scratch *s);
/* The patches of a body against a wall face. */
struct tl_face;
int tl_narrow_face(const tl_body *a, const struct tl_face *f, tl_patch *out, int max, tl_narrow_scratch *s);
/* The most patches a pair of these shapes can have (1: both convex). */
int tl_narrow_max_patches(const tl_shape *a, const tl_shape *b);
int tl_narrow_max_patches_face(const tl_shape *a, const struct tl_face *f);

#define TL_MAX_PATCHES 8

#endif
