/* The world: every object of a simulation, reached from one handle. */
#ifndef TL_WORLD_H
#define TL_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "contacts.h"
#include "debug_knobs.h"
#include "law.h"
#include "materials.h"
#include "neighbors.h"
#include "particles.h"
#include "ranks.h"
#include "rng.h"
#include "shape.h"
#include "shape_contacts.h"
#include "talus/talus.h"
#include "walls.h"

/* A contact that separated in this step, finished once the step's
 * velocities are known. */
typedef struct tl_pending_exit {
    uint32_t a, b;   /* particle id; particle id or face index (ids survive removals) */
    bool wall;
    double n[3];
    double t_begin, t_end, v_in, max_delta, max_fn;
    int64_t step;    /* the step in which it separated */
    uint8_t list;    /* where it was noted: the shape stage's pairs 0, its wall pairs 1, the pairs
                      * 2, the wall pairs 3 (the order of a step's exits; not saved:
                      * tl_measure_pending_list) */
} tl_pending_exit;

/* Energy accumulated over the run: a tl_energy of which the booked terms (dissipated, work,
 * residual: laws/energy_table.c) are used; the measured ones stay zero. */
typedef tl_energy tl_energy_ledger;

/* The contact stage works in blocks of candidates; each block sums its own
 * energy terms and counts, added in block order (so the sums do not depend on
 * the number of threads). */
#define TL_BLOCK 1024
#define TL_DISP_BLOCK 256 /* particles per block of the displacements' maxima (a power of 2) */

typedef struct tl_block_sum {
    tl_energy_ledger cur, next;
    size_t touching, exits, skipped;
} tl_block_sum;

#define TL_OUT 8 /* values of a cross candidate's force slot (threads > 1) */
/* a cross candidate's bodies and state after the contact stage, written by its domain so that
 * the slots' additions read one sequential array instead of the candidate list far apart */
typedef struct tl_cross_pair {
    uint32_t a, b;
    uint8_t state;
} tl_cross_pair;

/* a constant external force on one particle (external.c) */
typedef struct tl_external {
    uint64_t id; /* the particle's id (64 bits: no padding in checkpoints) */
    double f[3]; /* N */
} tl_external;

/* The reference of the blow-up check's energy criterion (step/blowup.c). */
typedef struct tl_blowup_ref {
    double energy0;   /* kinetic + elastic when the reference was taken, J */
    double potential0;
    double potential_mag0; /* sum of |m g . x| over the bodies then: the rounding of potential0 */
    double boundary0;
    double added;     /* kinetic energy of the particles added since, J */
    int64_t passed;   /* the step whose state last passed the check (-1: none) */
    bool set;
} tl_blowup_ref;

/* The world's parts: each a struct one module owns and writes (docs/architecture.md). */

/* The collision log (step/measure.c; merged over ranks by parallel/decomp_log.c). */
typedef struct tl_collision_log {
    bool on;               /* collisions are logged */
    tl_collision *coll;
    size_t n, cap;
    uint64_t *key;         /* per logged collision: 4 x the step it separated in + the list it was
                            * noted from: the order in which ranks' logs merge (parallel/decomp_log.c) */
    size_t cap_key;
    tl_pending_exit *pend; /* contacts that ended and wait a step for their outgoing velocities */
    size_t npend, cap_pend;
} tl_collision_log;

/* The touching contacts in query order, rebuilt on demand (step/measure.c). */
typedef struct tl_touch_index {
    int64_t step;          /* the step the list was built at, -1 = never */
    uint32_t *ref;         /* candidate index, high bit set for particle-wall */
    size_t n, cap;
    size_t n_spheres;      /* the first ones: sphere contacts; then the shape stage's patches */
    uint32_t *cand;        /* each patch's candidate */
    size_t cap_cand;
} tl_touch_index;

/* The predictor-corrector's copy of the records before its trial stage (step/step.c): no
 * meaning between steps. */
typedef struct tl_pc_scratch {
    double *rec;
    uint8_t *state;
    size_t cap_rec, cap_state;
} tl_pc_scratch;

/* Tests only: switches that send the contacts through the general paths. */

/* The contact stage's working arrays (step/contact_forces.c): no meaning between steps but
 * what the last stage ran (the lanes) and what it found of the particles (one size, mass and
 * material), kept to be looked at again only when the particles change. */
typedef struct tl_contact_scratch {
    double *out;           /* TL_OUT values per cross candidate (threads > 1) */
    double *out_m;         /* 3 per cross candidate: its rolling and twisting torque (TL_PAIR_TORQUE) */
    tl_cross_pair *out_pair; /* per cross candidate: its bodies and state after this stage */
    double (*drift)[6];    /* per particle, the drift velocity and spin of this contact stage
                            * when they are not v and w (contact_forces.c, drift_velocity) */
    size_t cap_drift;
    double (*wall_part)[3];/* each domain's share of each wall's reaction */
    double (*wall_tpart)[3];/* and of its torque about the origin */
    size_t cap_out, cap_out_m, cap_out_pair, cap_wall_part, cap_wall_tpart;
    tl_block_sum *blocks;
    size_t cap_blocks;
    bool mono_seen, mono_same; /* the particles were found all of particle 0's radius, inverse
                                * mass and material (mono_same) at generation mono_generation */
    uint64_t mono_generation;
    bool lanes_on;         /* the last contact stage ran steady contacts in the lanes */
    unsigned lanes_width_on; /* how many lanes the last contact stage ran (0: none) */
} tl_contact_scratch;

/* The far candidates skipped by their gap (step/contact_forces.c, "Far candidates"): the predict
 * stage notes how far each block of particles moved, the contact stage skips a candidate whose
 * gap at the build exceeds its two blocks' displacements. */
typedef struct tl_far_skip {
    float *disp_blk;       /* per block of TL_DISP_BLOCK particles (storage order): the largest
                            * displacement since the last build as the last predict stage saw
                            * it, rounded up, with a relative 1e-5 to spare (m) */
    size_t cap_disp_blk;
    bool disp_ok;          /* disp_blk holds this step's predict (set by the predict stage,
                            * consumed by the contact stage) */
    float *gap;            /* per candidate of pp: its gap at the last build, less a margin,
                            * rounded down (m) */
    size_t cap_gap;
    bool gap_ready;        /* gap holds the gaps of the present lists */
    uint64_t skipped;      /* far candidates skipped by their gap, all contact stages together */
} tl_far_skip;

/* The energy books: the ledger of the work done and dissipated, the part of it that belongs to
 * the next step's kick, and the blow-up check's reference (step/measure.c, step/blowup.c). */
typedef struct tl_books {
    tl_energy_ledger ledger;
    tl_energy_ledger next;  /* work that belongs to the next step's kick */
    tl_blowup_ref blowup;
} tl_books;

/* The constant external forces, sorted by particle id (external.c). */
typedef struct tl_externals {
    tl_external *list;
    size_t count, cap;
} tl_externals;

/* The materials and the laws between them (world_api.c), with each pair's prepared constants
 * (step/prepare.c). */
typedef struct tl_catalog {
    tl_material *mat;
    size_t nmat, capmat;
    tl_law *laws;
    size_t nlaws, caplaws;
    int32_t *law_of;      /* law index per material pair, dim x dim, -1 = none */
    size_t law_dim;       /* row length of law_of */
    tl_pair_law *pair;    /* prepared constants, law_dim x law_dim */
} tl_catalog;

/* The shapes of tl_world_add_shape (world_shapes.c); index 0 (TL_SPHERE) unused. */
typedef struct tl_shape_table {
    tl_shape *of;
    char **names;
    tl_mesh **mesh;        /* per shape: its mesh (a mesh shape's surface, an ellipsoid's display
                            * tessellation), owned */
    double (*frame)[12];   /* per shape: where the body frame lies in the given frame:
                            * origin (3), then R row by row (9) */
    size_t count, cap;     /* count includes index 0 */
    size_t nbodies;        /* particles whose shape is not a sphere */
} tl_shape_table;

/* A list of storage indices. */
typedef struct tl_index_list {
    uint32_t *idx;
    size_t count, cap;
} tl_index_list;

/* The broad phase (contact/neighbors.c, run by step/step.c): the cell grid and candidate lists'
 * builder, the particles' domains, and what decides the next rebuild. */
typedef struct tl_broad {
    tl_neighbors nb;
    tl_domains dom;        /* the particles' domains and the cross candidates (neighbors.h) */
    bool dirty;            /* particles were added or removed */
    bool moved;            /* the predict stage saw a particle move more than skin/2 */
    bool skin_unsized;     /* the automatic skin was chosen before there were particles: a 1 mm
                            * placeholder until the next step sizes it from those added since
                            * (step/prepare.c, tl_world_size_skin) */
    double added_rmin, added_rmax; /* the radii added while skin_unsized (0: none yet) */
    tl_far_skip far;       /* the far candidates skipped by their gap (step.c, contact_forces.c) */
    int64_t builds_since_reorder;
} tl_broad;

/* The candidates and their contact records (contact/contacts.h, written by the contact and shape
 * stages). */
typedef struct tl_contact_table {
    tl_pairs pp, pw;       /* particle pairs, particle-wall pairs */
    tl_rec_layout lay;     /* the records' layout */
    tl_stash stash;        /* records set aside during a rebuild */
    tl_shape_contacts sc;  /* the candidates that involve other shapes, and their patches */
    size_t touching;       /* touching contacts after the last contact stage */
} tl_contact_table;

/* The clock and the integrator's state between stages (step/). */
typedef struct tl_clock {
    double time, dt;
    int64_t steps;
    double c_pred[2];      /* force-stage velocity v_n + dt (c0 a_n + c1 a_n-1), see step.c */
    int pc_phase;          /* predictor-corrector: 1 in the trial contact stage, 2 in the
                            * committing one, 0 otherwise (step.c) */
    tl_timestep_info ts;   /* the step's bound (step/timestep.c) */
} tl_clock;

struct tl_world {
    /* the frame: the definition, memory, the last error, threads, random numbers */
    tl_world_def def;
    tl_mem mem;
    char error[1024];
    int nthreads;              /* in use: def.threads, or all available for 0 */
    tl_rng rng;
    bool prepared;             /* the laws' pairs and the step are prepared (step/prepare.c) */
    bool in_run_callback;      /* tl_scene_run's step callback is running: no step, no state loaded */

    /* the state: what a checkpoint holds, each part with the module that writes it */
    tl_catalog cat;            /* materials, laws and their prepared pairs (world_api.c, step/prepare.c) */
    tl_particles p;            /* the particle store (core/particles.c; the stages move it) */
    uint32_t next_id;          /* the id the next particle takes */
    size_t removed;            /* particles removed so far */
    tl_shape_table shapes;     /* the shapes of tl_world_add_shape (world_shapes.c) */
    tl_externals ext;          /* constant external forces (external.c) */
    tl_walls walls;            /* walls and their motion (boundary/walls.c) */
    tl_periodic per;           /* periodic axes and their periods */
    tl_broad broad;            /* the broad phase: grid, domains, when to rebuild (step/step.c) */
    tl_contact_table contacts; /* the candidates and their contact records (step/) */
    tl_clock clock;            /* time, step, the integrator's phase (step/) */
    tl_books books;            /* the energy ledger and the blow-up check's reference (step/) */
    tl_collision_log log;      /* the collision log (step/measure.c) */
    tl_ranks ranks;            /* the ranks of a distributed run (ranks.h; parallel/ writes it), ops NULL: serial */

    /* derived and scratch: rebuilt from the state, no meaning of their own between steps */
    tl_index_list immovable;   /* particles moved regardless of forces (step/step.c, at each build) */
    tl_touch_index touch;      /* touching contacts in query order (step/measure.c) */
    tl_contact_scratch scratch; /* the contact stage's working arrays (step/contact_forces.c) */
    tl_pc_scratch pc;          /* predictor-corrector: the records before the trial stage (step/step.c) */
    tl_debug_knobs knobs;      /* tests only */
};

/* Whether the collision log is kept over ranks (its pending exits are then finished
 * collectively, their ends fetched from the ranks that own them). */
static inline bool tl_world_log_spread(const tl_world *w) { return w->log.on && tl_ranks_spread(&w->ranks); }

/* Sets the world's error message and returns status. */
tl_status tl_world_fail(tl_world *w, tl_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static inline const tl_pair_law *tl_world_pair(const tl_world *w, int a, int b) {
    return &w->cat.pair[(size_t)a * w->cat.law_dim + (size_t)b];
}

/* The shape of particle i (NULL for a sphere). */
static inline const tl_shape *tl_world_shape_of(const tl_world *w, size_t i) {
    int32_t s = w->p.shape[i];
    return s ? &w->shapes.of[s] : NULL;
}
/* Frees the shape table (world_shapes.c). */
void tl_world_shapes_free(tl_world *w);
/* A particle's orientation as given (the shape as given in its file, turned
 * about its centroid) to the attitude of its body frame (principal axes) that
 * the engine keeps, and back (world_shapes.c, "Orientations"); s NULL (a
 * sphere) or a shape whose frame is the identity: a copy. */
void tl_shape_body_attitude(const tl_shape *s, const double given[4], double body[4]);
void tl_shape_given_attitude(const tl_shape *s, const double body[4], double given[4]);
/* tl_world_add_particle, with def->orientation the body frame's attitude
 * (body_frame) or the shape's as given (the API's): the scenes' random
 * orientations are drawn for the body frame (the same bodies as before the
 * convention, a uniform rotation either way). */
tl_status tl_world_add_particle_as(tl_world *w, const tl_particle_def *def, bool body_frame, uint32_t *out_id);

/* Checks that every pair of materials that can meet has a law, and prepares
 * the pair constants. */
tl_status tl_world_check_laws(tl_world *w);

/* The record layout the world's laws and options need. */
tl_rec_layout tl_world_layout(const tl_world *w);
/* Brings the records to the layout the world needs now (after a law or an
 * option changed); TL_OK or TL_ERROR_MEMORY. */
tl_status tl_world_update_layout(tl_world *w);
/* The thread count to use for def.threads. */
int tl_world_thread_count(int requested);

#endif
