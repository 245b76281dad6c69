/*
 * The shape stage: contacts that involve a body other than a sphere.
 *
 * Its candidates come from the same neighbor search as the spheres' (the
 * bounding spheres of the shapes), set apart by the build (tl_shape_list).
 * Each step, for every candidate:
 *
 *   1. geometry   the narrow phase gives the pair's patches (narrow.h): zero,
 *                 one, or (non-convex meshes) several, each with its overlap,
 *                 normal, point and equivalent radius;
 *   2. matching   each patch takes the record of the last step's patch whose
 *                 contact point, in a's body frame, lies nearest (within a
 *                 tolerance); a patch without one opens a contact, a record
 *                 without a patch closes one (its energy released, its
 *                 collision logged);
 *   3. law        the world's law between the two materials, unchanged, on
 *                 the patch's kinematics, with the equivalent radius as the
 *                 patch says (narrow.h, tl_patch_radius): the radius the
 *                 patch had when the contact began, kept for the contact's
 *                 life (spheres, meshes: the normal force then derives from a
 *                 potential of the overlap); or the surfaces' curvature now
 *                 (ellipsoids), with the torque that makes the force the
 *                 gradient of the law's energy E(delta, R) where R's rate is
 *                 known (against a face), else the change of the stored
 *                 energy that no force did booked as curvature_work;
 *                 the contact point divides the
 *                 overlap as the sphere stage does (the law's contact_point),
 *                 the lever arms are the vectors r = point - centroid, the
 *                 relative velocity at the point includes w x r of both
 *                 bodies, and the force makes the torques r x F;
 *   4. sums       each candidate's forces, torques and energy terms go to its
 *                 own slot; one pass then adds the slots in candidate order.
 *
 * Candidates are independent in steps 1-3, which therefore run on any number
 * of threads; step 4 is serial and in a fixed order, so the result is
 * bit-identical for any thread count.
 *
 * Records. A patch's record is the sphere stage's (law history, bookkeeping,
 * optional energy and impact groups: the world's layout) followed by the
 * patch group below. Records live in one of two stores: each step writes the
 * live patches to the other store in candidate order and swaps. A neighbor
 * rebuild carries the records to the new candidate list by the key of the
 * pair's stable ids.
 */
#ifndef TL_SHAPE_CONTACTS_H
#define TL_SHAPE_CONTACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contacts.h"
#include "energy_table.h"
#include "keymap.h"
#include "narrow.h"

/* the patch group, after the world's record layout */
enum tl_book_patch {
    TL_BP_ANCHOR = 0, /* the contact point in a's body frame (3 values), m */
    TL_BP_N = 3,      /* the normal of the last evaluation (3) */
    TL_BP_RA = 6,     /* its lever arms, a then b (3 + 3), m: the last force acted through them */
    TL_BP_RB = 9,
    TL_BP_PSI = 12,   /* the fraction of the step spent in contact when the patch closed */
    TL_BP_REFF = 13,  /* the equivalent radius: taken when the contact began (TL_PATCH_R_KEPT), else
                       * the last evaluation's, m */
    TL_BP_SCALE = 14, /* the patch's fn_scale at the last evaluation (narrow.h; 0: none yet) */
    TL_BP_TC = 15,    /* the curvature torque on a of the last evaluation (3; TL_PATCH_R_GRADIENT) */
    TL_BP_C = 18,     /* the patch's couple at the last evaluation (3; narrow.h, tl_patch) */
    TL_BP_TR = 21,    /* the rocking dashpot's torque on a of the last evaluation (3; tl_patch.rock) */
    TL_BP_COUNT = 24
};

/* values of a candidate's slot: force on a, torques on a and b, energy terms, counts */
enum {
    TL_SS_F = 0,
    TL_SS_TA = 3,
    TL_SS_TB = 6,
    TL_SS_CUR = 9, /* this step's booked energy terms (laws/energy_table.h: by term - TL_BOOKED_FIRST) */
    TL_SS_NEXT = TL_SS_CUR + TL_BOOKED_COUNT, /* and the next step's */
    TL_SS_TOUCH = TL_SS_NEXT + TL_BOOKED_COUNT,
    TL_SS_EXITS,
    TL_SS_COUNT
};

/* per particle of a shape, for one stage: body-to-world rotation, drift velocities */
enum tl_shape_body {
    TL_SB_R = 0,   /* 3 x 3, row by row */
    TL_SB_VH = 9,  /* the drift's velocity (3) */
    TL_SB_WH = 12, /* and angular velocity (3) */
    TL_SB_M = 15,  /* an ellipsoid's M = R D^2 R^T (9) */
    TL_SB_MI = 24, /* and its inverse (9) */
    TL_SB_COUNT = 33
};

typedef struct tl_patch_store {
    double *rec;    /* count * stride values */
    uint8_t *state; /* tl_pair_state bits of each record */
    size_t count, cap;
} tl_patch_store;

typedef struct tl_shape_contacts {
    tl_shape_list cand;
    int stride;                /* values per record: layout stride + TL_BP_COUNT */
    int cur;                   /* the store holding the live records */
    tl_patch_store store[2];
    uint32_t *first[2];        /* per candidate of each store: its first record */
    uint8_t *live[2];          /* per candidate: its records */
    size_t cap_cand;
    /* per step */
    size_t *off;               /* per candidate: its first entry in buf */
    uint8_t *np;               /* per candidate: patches found */
    uint32_t *nfirst;          /* per candidate: its first record in the store being written */
    size_t cap_step;
    tl_patch *buf;
    size_t cap_buf;
    double *slot;              /* TL_SS_COUNT per candidate */
    size_t cap_slot;
    int32_t *face;             /* per candidate: its face (a wall's), else -1 */
    size_t cap_face;
    double *body;              /* TL_SB_COUNT per particle of a shape: its attitude and drift
                                * velocities, worked out once per stage for all its candidates */
    size_t cap_body;
    tl_narrow_scratch *scratch; /* one per thread */
    int nscratch;
    tl_keymap stash;           /* rebuilds: pair key -> index in the previous list */
    size_t adopted;            /* records taken in from other ranks since the stash (after the
                                * previous list's candidates: indices count, count + 1, ...) */
    size_t touching;           /* live patches after the last stage */
} tl_shape_contacts;

void tl_shape_contacts_init(tl_shape_contacts *sc);
void tl_shape_contacts_free(tl_mem *mem, tl_shape_contacts *sc);
/* Room for n patches in a store (its contents kept), and for n candidates in both stores'
 * per-candidate arrays; 0, or -1 out of memory. */
int tl_patch_store_reserve(tl_mem *mem, tl_patch_store *s, int stride, size_t n);
int tl_shape_contacts_reserve_cand(tl_mem *mem, tl_shape_contacts *sc, size_t n);
/* Changes the records' layout (a law or an option changed). */
int tl_shape_contacts_relayout(tl_mem *mem, tl_shape_contacts *sc, const tl_rec_layout *from,
                               const tl_rec_layout *to);

#endif
