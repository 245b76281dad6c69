/*
 * Mass properties of bodies (docs/geometry.md): exact for a closed
 * triangulated polyhedron of uniform density by the divergence theorem
 * (Mirtich, "Fast and accurate computation of polyhedral mass properties",
 * J. Graphics Tools 1(2), 1996; in the per-triangle form of Eberly,
 * "Polyhedral mass properties (revisited)", Geometric Tools, 2002), closed
 * forms for the ellipsoid and the sphere; principal moments and axes by
 * cyclic Jacobi rotations; the move of a mesh into its body frame.
 */
#ifndef TL_MASS_H
#define TL_MASS_H

#include "mesh.h"

/* Volume, centroid and inertia tensor about the centroid, for unit density
 * (multiply by the density for kg m^2). */
typedef struct tl_mass_props {
    double volume;        /* m^3 */
    double centroid[3];   /* m */
    double inertia[3][3]; /* m^5: I_ij = int (r^2 delta_ij - x_i x_j) dV about the centroid */
} tl_mass_props;

/* The mass properties of a closed mesh (its enclosed solid). */
void tl_mesh_mass(const tl_mesh *m, tl_mass_props *out);

/* The eigenvalues of a symmetric 3x3 matrix in ascending order (w) and the
 * unit eigenvectors as the columns of V, a right-handed frame (det V = +1);
 * each column's largest component is made positive (of the first two
 * columns; the third follows from handedness). Off-diagonal terms below
 * 1e-14 of the largest diagonal term are taken as zero and eigenvalues
 * within 1e-12 of the largest keep their order, so an isotropic or already
 * diagonal tensor keeps the coordinate axes. */
void tl_sym3_eigen(const double A[3][3], double w[3], double V[3][3]);

/* Where a mesh's body frame lies in the frame it was given in: a point with
 * body coordinates b is at origin + R b there. */
typedef struct tl_body_frame {
    double origin[3];  /* the centroid, m */
    double R[3][3];    /* columns: the principal axes (ascending moments) */
    double moments[3]; /* principal moments per unit mass, m^2 (I = mass * moments) */
    double volume;     /* m^3 */
} tl_body_frame;

/* Moves a closed mesh into its body frame: centroid at the origin, principal
 * axes of inertia (smallest moment first) along x, y, z. */
tl_status tl_mesh_to_body_frame(tl_mesh *m, tl_body_frame *out);

/* Closed forms: principal moments of a body of mass `mass`, kg m^2. */
void tl_ellipsoid_moments(double a, double b, double c, double mass, double I[3]);
double tl_sphere_moment(double R, double mass);

#endif
