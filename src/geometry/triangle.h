/*
 * Primitives on single triangles, shared by the mesh, its BVH and the
 * polygonal contact model (docs/geometry.md):
 *   - the closest point of a triangle to a point, with the feature it lies on
 *     (Ericson, Real-Time Collision Detection, 2005, sec. 5.1.5);
 *   - a watertight ray-triangle test (Woop, Benthin, Wald, "Watertight
 *     ray/triangle intersection", JCGT 2(1), 2013): a ray through a shared
 *     edge or vertex of a closed mesh is counted once, which ray parity needs;
 *   - the part of a triangle where a linear function is positive, and the
 *     exact integrals over it that the contact model sums.
 */
#ifndef TL_TRIANGLE_H
#define TL_TRIANGLE_H

#include <stdbool.h>

/* Features of a triangle (a, b, c): its interior, an edge, a vertex. */
typedef enum tl_feature {
    TL_FEATURE_FACE = 0,
    TL_FEATURE_EDGE,   /* index k: the edge from vertex k to vertex (k + 1) % 3 */
    TL_FEATURE_VERTEX  /* index k: vertex k */
} tl_feature;

/* The point q of triangle (a, b, c) closest to p; *feature and *index say
 * where it lies (q = w0 a + w1 b + w2 c with the weights in w when w != NULL). */
void tl_tri_closest(const double p[3], const double a[3], const double b[3], const double c[3],
                    double q[3], tl_feature *feature, int *index, double w[3]);

/* The ray o + t d (d any non-zero vector) against triangle (a, b, c): true
 * and *t when it crosses the triangle at tmin <= t <= tmax. Watertight. */
bool tl_tri_ray(const double o[3], const double d[3], const double a[3], const double b[3],
                const double c[3], double tmin, double tmax, double *t);

/* Integrals over the part of triangle (x0, x1, x2) where the linear function
 * with vertex values h0, h1, h2 is >= 0 (the whole triangle when all are):
 * area, int x dA, int h dA, int h x dA, int h^2 dA (all exact). */
typedef struct tl_tri_moments {
    double area;
    double x[3];  /* int x dA */
    double h;     /* int h dA */
    double hx[3]; /* int h x dA */
    double hh;    /* int h^2 dA */
    double xx[6]; /* int x x^T dA: xx, yy, zz, xy, yz, zx */
} tl_tri_moments;

/* Adds the moments of the part where h >= 0 to *m. */
void tl_tri_clip_moments(const double x0[3], const double x1[3], const double x2[3], const double h[3],
                         tl_tri_moments *m);

/* The same for a convex polygon of n vertices (n <= 16), fanned from vertex 0. */
void tl_poly_moments(const double (*x)[3], const double *h, int n, tl_tri_moments *m);

/* Clips a convex polygon (n vertices, values h per vertex of a linear
 * function) to the part where the plane function g >= 0 (values g per vertex);
 * writes at most n + 1 vertices to xo, ho and returns their count. */
int tl_poly_clip(const double (*x)[3], const double *h, const double *g, int n, double (*xo)[3], double *ho);

#endif
