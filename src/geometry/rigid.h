/*
 * Rotation of a rigid body with a full inertia tensor (Li et al. 2022 eq. 19:
 * Euler's equations with the gyroscopic term, the attitude as a unit
 * quaternion).
 *
 * The state is the angular momentum L in the world frame and the attitude q
 * (body -> world). A torque changes L directly (dL/dt = T in the world
 * frame); between the kicks the body turns freely, which is where the
 * gyroscopic term acts. The free rotation over a step h is Strang's splitting
 * of the free rigid body's Hamiltonian H = sum l_k^2 / (2 I_k) into its three
 * body-axis terms (Dullweber, Leimkuhler & McLachlan 1997; Touma & Wisdom
 * 1994): rotations about body axis 1 for h/2, 2 for h/2, 3 for h, 2 for h/2,
 * 1 for h/2, each exact. It is symplectic and time-reversible, keeps |L| and
 * the unit quaternion exactly (to rounding), and keeps the kinetic energy
 * within O(h^2) of its value without drift.
 *
 * The angular velocity the contacts see is w = R diag(1/I) R^T L.
 */
#ifndef TL_RIGID_H
#define TL_RIGID_H

#include <math.h>

#include "vec.h"

/* R (body -> world) from the unit quaternion q = (w, x, y, z). */
static inline void q_to_matrix(const double q[4], double R[3][3]) {
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0][0] = 1.0 - 2.0 * (y * y + z * z);
    R[0][1] = 2.0 * (x * y - w * z);
    R[0][2] = 2.0 * (x * z + w * y);
    R[1][0] = 2.0 * (x * y + w * z);
    R[1][1] = 1.0 - 2.0 * (x * x + z * z);
    R[1][2] = 2.0 * (y * z - w * x);
    R[2][0] = 2.0 * (x * z - w * y);
    R[2][1] = 2.0 * (y * z + w * x);
    R[2][2] = 1.0 - 2.0 * (x * x + y * y);
}

/* r = R a (body -> world) and r = R^T a (world -> body) */
static inline void m3_mul(double r[3], double R[3][3], const double a[3]) {
    double x = R[0][0] * a[0] + R[0][1] * a[1] + R[0][2] * a[2];
    double y = R[1][0] * a[0] + R[1][1] * a[1] + R[1][2] * a[2];
    double z = R[2][0] * a[0] + R[2][1] * a[1] + R[2][2] * a[2];
    r[0] = x; r[1] = y; r[2] = z;
}
static inline void m3_tmul(double r[3], double R[3][3], const double a[3]) {
    double x = R[0][0] * a[0] + R[1][0] * a[1] + R[2][0] * a[2];
    double y = R[0][1] * a[0] + R[1][1] * a[1] + R[2][1] * a[2];
    double z = R[0][2] * a[0] + R[1][2] * a[1] + R[2][2] * a[2];
    r[0] = x; r[1] = y; r[2] = z;
}

/* The world angular velocity of a body of principal moments I (kg m^2) at
 * attitude q with angular momentum L (world). */
static inline void rigid_omega(const double q[4], const double I[3], const double L[3], double w[3]) {
    double R[3][3], l[3];
    q_to_matrix(q, R);
    m3_tmul(l, R, L);
    for (int k = 0; k < 3; k++) l[k] /= I[k];
    m3_mul(w, R, l);
}

/* The world angular momentum of a body turning at w (world). */
static inline void rigid_momentum(const double q[4], const double I[3], const double w[3], double L[3]) {
    double R[3][3], b[3];
    q_to_matrix(q, R);
    m3_tmul(b, R, w);
    for (int k = 0; k < 3; k++) b[k] *= I[k];
    m3_mul(L, R, b);
}

/* One exact sub-flow: the body turns about its axis k by the angle h l_k / I_k;
 * l (body frame) turns the other way. */
static inline void rigid_axis_flow(double q[4], double l[3], const double I[3], int k, double h) {
    double th = h * l[k] / I[k], c, s, ch, sh;
    small_sincos(th, &s, &c);
    small_sincos(0.5 * th, &sh, &ch);
    int a = (k + 1) % 3, b = (k + 2) % 3;
    /* l' = R_k(-th) l */
    double la = c * l[a] + s * l[b], lb = -s * l[a] + c * l[b];
    l[a] = la;
    l[b] = lb;
    /* q' = q (ch, sh e_k) */
    double e[4] = {ch, 0.0, 0.0, 0.0};
    e[1 + k] = sh;
    q_mul(q, q, e);
}

/* Turns q by the free motion of a body of principal moments I with world
 * angular momentum L over h (Strang splitting, see above), then renormalises. */
static inline void rigid_free_rotation(double q[4], const double I[3], const double L[3], double h) {
    double R[3][3], l[3];
    q_to_matrix(q, R);
    m3_tmul(l, R, L);
    rigid_axis_flow(q, l, I, 0, 0.5 * h);
    rigid_axis_flow(q, l, I, 1, 0.5 * h);
    rigid_axis_flow(q, l, I, 2, h);
    rigid_axis_flow(q, l, I, 1, 0.5 * h);
    rigid_axis_flow(q, l, I, 0, 0.5 * h);
    q_normalize(q);
}

#endif
