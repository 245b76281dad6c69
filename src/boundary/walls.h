/*
 * Walls: bodies of infinite mass with their own material, seen by a contact
 * law as "particle j" with R -> infinity (R* = R of the particle) and
 * m -> infinity (m* = m of the particle).
 *
 * A wall is made of faces: an infinite plane (one face, one-sided: the
 * particles stay on the side its normal points to), a finite rectangle (one
 * two-sided face), or a box (up to six rectangles, normals inwards). A box's
 * faces are two-sided thin plates like a rectangle: a sphere whose centre has
 * crossed a face (an overlap beyond its radius, or a moving half of a shear box
 * sweeping past it) is pushed to the side its centre is on, with an overlap
 * below its radius, instead of receiving an unbounded push back.
 * A wall moves (tl_motion_def): it translates at its velocity (which a servo
 * may drive), or rotates at a constant angular speed about an axis through a
 * pivot that translates with it, or oscillates along an axis, or rocks about
 * an axis by an angle A sin(2 pi t / T + phase). Rotations and oscillations
 * place the faces from where they were when the motion started (exactly, in
 * closed form: no drift however long the run); a translation advances them
 * by velocity x dt. Each step's drift velocities (the face's displacement
 * over the step divided by dt, as a translation at vel_mid plus a rotation at
 * omega_mid about pivot_mid) are what the contacts' tangential springs and the
 * energy ledger see; the velocities at the end of the step are what the
 * dashpots see.
 */
#ifndef TL_WALLS_H
#define TL_WALLS_H

#include <stdbool.h>

#include "alloc.h"
#include "face.h"
#include "shape.h"
#include "talus/types.h"

typedef struct tl_wall {
    char *name;
    tl_wall_kind kind;
    int material;
    double vel[3];       /* translation velocity (of the pivot), m/s */
    double disp[3];      /* displacement (of the pivot) since the start, m */
    double force[3];     /* force exerted by the particles in the last step, N */
    double force_prev[3];
    double torque[3];    /* their torque about the world origin in the last step, N m */
    double torque_prev[3];
    tl_motion_def motion;/* axis normalised */
    bool turns;          /* the motion rotates it (rotate, rock) */
    double t0;           /* time its motion started, s */
    double pivot[3];     /* the rotation pivot now, m */
    double pivot0[3];    /* and when the motion started */
    double disp0[3];     /* disp when the motion started */
    double omega[3];     /* angular velocity now, rad/s */
    double angle;        /* rotation about motion.axis since the motion started, rad */
    double vel_mid[3], omega_mid[3], pivot_mid[3]; /* the last drift's */
    double vel_base[3];  /* the translation velocity the motion was started with */
    int first_face, face_count;
    double area;         /* rectangle: 4 hu hv; plane: INFINITY; box: 0 */
    tl_servo_def servo;  /* force control of the velocity along servo.direction */
    double servo_last;   /* the servo's last speed along its direction (m/s) */
    int64_t servo_chatter; /* steps in which it flipped from one speed clamp to the other */
} tl_wall;

typedef struct tl_walls {
    tl_wall *w;
    size_t count, cap;
    tl_face *f;
    size_t nfaces, capf;
    size_t nmesh;       /* mesh faces (their contacts go to the shape stage) */
} tl_walls;

void tl_walls_init(tl_walls *w);
void tl_walls_free(tl_mem *mem, tl_walls *w);
/* Validates and adds a wall; on failure writes a message. */
tl_status tl_walls_add(tl_mem *mem, tl_walls *w, const tl_wall_def *def, char *msg, size_t msg_size,
                       int *out_index);
/* Moves every wall over the step that ends at time t (of length dt). */
void tl_walls_advance(tl_walls *w, double t, double dt);
/* Starts a motion of wall k at time t from where it is (the translation
 * velocity given); checks the motion. */
tl_status tl_walls_set_motion(tl_walls *w, size_t k, const double vel[3], const tl_motion_def *m, double t,
                              char *msg, size_t msg_size);
/* The velocity of wall k's material point at x: now (v) and over the last drift (vh). */
static inline void tl_wall_point_velocity(const tl_wall *wl, const double x[3], double v[3], double vh[3]) {
    double r[3], t[3];
    for (int q = 0; q < 3; q++) r[q] = x[q] - wl->pivot[q];
    t[0] = wl->omega[1] * r[2] - wl->omega[2] * r[1];
    t[1] = wl->omega[2] * r[0] - wl->omega[0] * r[2];
    t[2] = wl->omega[0] * r[1] - wl->omega[1] * r[0];
    for (int q = 0; q < 3; q++) v[q] = wl->vel[q] + t[q];
    for (int q = 0; q < 3; q++) r[q] = x[q] - wl->pivot_mid[q];
    t[0] = wl->omega_mid[1] * r[2] - wl->omega_mid[2] * r[1];
    t[1] = wl->omega_mid[2] * r[0] - wl->omega_mid[0] * r[2];
    t[2] = wl->omega_mid[0] * r[1] - wl->omega_mid[1] * r[0];
    for (int q = 0; q < 3; q++) vh[q] = wl->vel_mid[q] + t[q];
}
/* Sets the velocity of the force-controlled walls from the forces of the
 * last contact stage (before the next step's drift). */
void tl_walls_servo(tl_walls *w);


#endif
