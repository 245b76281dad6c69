/*
 * A wall's face as the contact geometry sees it: an infinite one-sided plane, a finite two-sided
 * rectangle (rectangles and box faces) or a triangle mesh, placed where its wall's motion has
 * put it (boundary/walls.c moves the faces), and the geometry of a sphere against it.
 */
#ifndef TL_FACE_H
#define TL_FACE_H

#include "shape.h"

typedef enum tl_face_kind {
    TL_FACE_PLANE = 0,  /* infinite, one-sided */
    TL_FACE_RECT,       /* finite, two-sided (rectangles and box faces) */
    TL_FACE_MESH        /* a triangle mesh (the shape stage measures it, narrow.h) */
} tl_face_kind;

typedef struct tl_mesh tl_mesh; /* mesh.h */

typedef struct tl_face {
    int wall;
    tl_face_kind kind;
    double p[3];      /* a point on the face (rectangle: its centre), m; moves with the wall */
    double n[3];      /* unit normal (towards the particles for one-sided faces) */
    double u[3], v[3];/* rectangle: in-plane unit axes */
    double hu, hv;    /* rectangle: half extents, m */
    double p0[3], n0[3], u0[3], v0[3]; /* where it was when its wall's motion started */
    /* mesh: the surface (as placed when the wall was made) and its pose now and when the
     * motion started: world = R x + T */
    tl_mesh *mesh;
    double R[3][3], T[3], R0[3][3], T0[3];
} tl_face;

/* Geometry of a sphere (centre x, radius R) against a face, from the sphere
 * towards the face (g->delta < 0: the gap). */
void tl_face_geometry(const tl_face *f, const double x[3], double R, tl_geometry *g);

#endif
