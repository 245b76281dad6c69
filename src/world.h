/* The world: every object of a simulation, reached from one handle. */
#ifndef TL_WORLD_H
#define TL_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "contacts.h"
#include "law.h"
#include "materials.h"
#include "neighbors.h"
#include "particles.h"
#include "rng.h"
#include "talus/talus.h"
#include "walls.h"

#define TL_MAX_HIST 32 /* law history values per contact, all slots together */

/* A contact that separated in this step, finished once the step's
 * velocities are known. */
typedef struct tl_pending_exit {
    uint32_t a, b;   /* particle id; particle id or face index (ids survive removals) */
    bool wall;
    double n[3];
    double t_begin, t_end, v_in, max_delta, max_fn;
    int64_t step;    /* the step in which it separated */
} tl_pending_exit;

/* Energy accumulated over the run (see tl_energy). */
typedef struct tl_energy_ledger {
    double diss_normal;
    double diss_plastic;
    double diss_tangential_damping;
    double diss_friction;
    double boundary_work;
} tl_energy_ledger;

struct tl_world {
    tl_world_def def;
    tl_mem mem;
    char error[1024];

    tl_material *mat;
    size_t nmat, capmat;
    tl_law *laws;
    size_t nlaws, caplaws;
    int32_t *law_of;      /* law index per material pair, dim x dim, -1 = none */
    size_t law_dim;       /* row length of law_of */
    tl_pair_law *pair;    /* prepared constants, law_dim x law_dim */

    tl_particles p;
    tl_walls walls;
    tl_neighbors nb;
    tl_candidates pp, pw;
    tl_contact_table ct;
    bool neighbors_dirty; /* particles were added or removed */

    bool prepared;
    double time, dt;
    int64_t steps;
    double c_pred[2];     /* force-stage velocity v_n + dt (c0 a_n + c1 a_n-1), see step.c */
    tl_timestep_info ts;
    tl_energy_ledger ledger;
    tl_energy_ledger ledger_next; /* work that belongs to the next step's kick */

    bool log_collisions;
    tl_collision *coll;
    size_t ncoll, capcoll;
    tl_pending_exit *pend;
    size_t npend, cappend;

    uint32_t next_id;
    size_t removed;
    tl_rng rng;

    /* touching contacts in query order, rebuilt on demand */
    int64_t touch_step;   /* the step the list was built at, -1 = never */
    uint32_t *touch_ref;  /* candidate index, high bit set for particle-wall */
    size_t ntouch, captouch;
};

/* Sets the world's error message and returns status. */
tl_status tl_world_fail(tl_world *w, tl_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static inline const tl_pair_law *tl_world_pair(const tl_world *w, int a, int b) {
    return &w->pair[(size_t)a * w->law_dim + (size_t)b];
}

/* Checks that every pair of materials that can meet has a law, and prepares
 * the pair constants. */
tl_status tl_world_check_laws(tl_world *w);

/* ---- stages and their helpers (step.c, contact_forces.c, timestep.c, measure.c) ---- */

/* Stages 2-3 of the step: neighbors, body forces, contact forces. */
tl_status tl_world_compute_forces(tl_world *w, bool accumulate);
/* Evaluates every candidate pair: forces, torques, records, energy.
 * accumulate = false for the initial evaluation before the first step. */
tl_status tl_contact_forces(tl_world *w, bool accumulate);
/* Computes the step bound and the step to use (fills w->ts, w->dt). */
tl_status tl_timestep_compute(tl_world *w);
/* The characteristic impact speed of the scene (0 when none). */
double tl_timestep_impact_speed(const tl_world *w);
/* Finishes the collisions of this step's pending exits. */
void tl_measure_finish_exits(tl_world *w);
/* Records a finished collision in the log. */
tl_status tl_measure_log(tl_world *w, const tl_collision *c);

#endif
