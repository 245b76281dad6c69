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
 * A wall may translate with a prescribed velocity.
 */
#ifndef TL_WALLS_H
#define TL_WALLS_H

#include <stdbool.h>

#include "alloc.h"
#include "shape.h"
#include "talus/types.h"

typedef enum tl_face_kind {
    TL_FACE_PLANE = 0,  /* infinite, one-sided */
    TL_FACE_RECT        /* finite, two-sided (rectangles and box faces) */
} tl_face_kind;

typedef struct tl_face {
    int wall;
    tl_face_kind kind;
    double p[3];      /* a point on the face (rectangle: its centre), m; moves with the wall */
    double n[3];      /* unit normal (towards the particles for one-sided faces) */
    double u[3], v[3];/* rectangle: in-plane unit axes */
    double hu, hv;    /* rectangle: half extents, m */
} tl_face;

typedef struct tl_wall {
    char *name;
    tl_wall_kind kind;
    int material;
    double vel[3];       /* m/s */
    double disp[3];      /* displacement since the start, m */
    double force[3];     /* force exerted by the particles in the last step, N */
    double force_prev[3];
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
} tl_walls;

void tl_walls_init(tl_walls *w);
void tl_walls_free(tl_mem *mem, tl_walls *w);
/* Validates and adds a wall; on failure writes a message. */
tl_status tl_walls_add(tl_mem *mem, tl_walls *w, const tl_wall_def *def, char *msg, size_t msg_size,
                       int *out_index);
/* Moves every wall by its velocity over dt. */
void tl_walls_advance(tl_walls *w, double dt);
/* Sets the velocity of the force-controlled walls from the forces of the
 * last contact stage (before the next step's drift). */
void tl_walls_servo(tl_walls *w);

/* Geometry of a sphere (centre x, radius R) against a face, from the sphere
 * towards the face (g->delta < 0: the gap). */
void tl_face_geometry(const tl_face *f, const double x[3], double R, tl_geometry *g);

#endif
