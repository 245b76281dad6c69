/*
 * The contact of two ellipsoids (or an ellipsoid and a sphere) and of an
 * ellipsoid against a wall face: the minimum overlap over directions (the
 * common-normal contact), with the equivalent radius from the surfaces'
 * curvatures. ellipsoid_pair.c; docs/ellipsoid.md.
 */
#ifndef TL_ELLIPSOID_PAIR_H
#define TL_ELLIPSOID_PAIR_H

#include "patch.h"

struct tl_face; /* face.h */

/* a and b: spheres (shape NULL) or ellipsoids. u_start: a unit direction to start from
 * (NULL: the line of centres); u_out (may be NULL): the direction found (a warm start for
 * the next call). Returns 1 and the patch when they overlap, else 0. */
/* A body's M = R D^2 R^T and its inverse R D^-2 R^T (9 values each, row by row), for
 * tl_body.M and .Mi. */
void tl_ellipsoid_matrices(const tl_body *b, double M[9], double Mi[9]);
int tl_ellipsoid_pair(const tl_body *a, const tl_body *b, const double *u_start, tl_patch *out, double *u_out);
/* An ellipsoid (or sphere) against a plane or rectangle face; n from the body to the face. */
int tl_ellipsoid_face(const tl_body *a, const struct tl_face *f, tl_patch *out);
/* The same, with a patch wherever the overlap (the minimum over directions: minus the distance
 * between bodies apart) is above floor (<= 0): a contact a force holds beyond touch (jkr's reach)
 * measured apart. floor 0: the two above. */
int tl_ellipsoid_pair_within(const tl_body *a, const tl_body *b, const double *u_start, double floor, tl_patch *out,
                             double *u_out);
int tl_ellipsoid_face_within(const tl_body *a, const struct tl_face *f, double floor, tl_patch *out);

#endif
