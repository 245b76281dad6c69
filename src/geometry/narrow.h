/*
 * The narrow phase: the contact geometry of two bodies of any shape, the only
 * code (with the broad phase) that knows shapes. It dispatches by the table of
 * shape kinds (shape_kind.h), whose rows name each kind's functions. Laws never see a shape: they
 * receive the patches computed here (overlap, normal, point, equivalent
 * radius) and the stage turns each into forces with lever arms r = p - x.
 *
 * The bodies it takes and the patches it gives are those of patch.h.
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

#include "narrow_scratch.h"
#include "patch.h"
#include "shape.h"

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
