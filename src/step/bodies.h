/*
 * The time step's particle stages for bodies other than spheres: the same
 * translation as a sphere's, and the rotation of a rigid body with a full
 * inertia tensor (rigid.h): the angular momentum L (world frame) takes the
 * torque's kicks where a sphere's angular velocity takes them, the attitude
 * turns by the free rotation over the drift, and the angular velocity the
 * contacts see is derived from L at the new attitude. A body whose rotation
 * is fixed, prescribed or locked turns at its given angular velocity.
 *
 * Each function mirrors the sphere's (step.c) stage for stage; the
 * coefficients mean the same (see the top of step.c).
 */
#ifndef TL_BODIES_H
#define TL_BODIES_H

#include <stdbool.h>
#include <stddef.h>

#include "particles.h"
#include "shape.h"

/* predict: returns whether the body moved more than sqrt(lim2) since the last build */
int tl_body_predict(tl_particles *p, const tl_shape *shapes, size_t i, double dt, double c1, double c2,
                    const double g[3], double lim2, bool two_step);
/* correct: v_n+1 and L_n+1 (and w from it) */
void tl_body_correct(tl_particles *p, const tl_shape *shapes, size_t i, double dt, double b1, double b2,
                     bool two_step);
/* the predictor-corrector's Euler predict and trapezoidal correct */
int tl_body_pc_predict(tl_particles *p, const tl_shape *shapes, size_t i, double dt, const double g[3],
                       double lim2);
int tl_body_pc_correct(tl_particles *p, const tl_shape *shapes, size_t i, double dt, const double g[3],
                       double lim2);
/* The drift (half-step) velocities of body i in the contact stage: v and w
 * taken back by dt (b1 a_n + b2 a_n-1), as drift_velocity does for a sphere. */
void tl_body_drift_velocity(const tl_particles *p, const tl_shape *shapes, size_t i, double dt, double b1,
                            double b2, double vh[3], double wh[3]);

#endif
