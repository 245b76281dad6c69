/*
 * Talus: a soft-sphere discrete element engine whose contact laws are verified.
 *
 * The public API. Every object is reached from a tl_world handle; there are
 * no globals. Calls return a tl_status; after a failure tl_world_error()
 * gives a message that names the parameter and its allowed range.
 *
 * A minimal program:
 *
 *   tl_world_def wd = tl_world_default();
 *   wd.gravity = (tl_vec3){0, 0, -9.81};
 *   tl_world *w; tl_world_create(&wd, &w);
 *   tl_material_def md = tl_material_default();
 *   md.name = "glass"; md.density = 2500; md.youngs_modulus = 1e7; md.poisson_ratio = 0.25;
 *   int glass; tl_world_add_material(w, &md, &glass);
 *   tl_law_def law = tl_law_default();           // hertz + tsuji + mindlin, true history
 *   tl_law_set(&law, "e", 0.5); tl_law_set(&law, "mu", 0.4);
 *   tl_world_set_law(w, glass, glass, &law);
 *   ... tl_world_add_particle, tl_world_add_wall ...
 *   tl_world_step(w, 1000);
 *   tl_world_destroy(w);
 */
#ifndef TALUS_TALUS_H
#define TALUS_TALUS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_VERSION_STRING "0.1.0"

TL_API const char *tl_version(void);
TL_API const char *tl_status_name(tl_status status);

/* ---- default constructors ---- */
TL_API tl_world_def tl_world_default(void);
TL_API tl_material_def tl_material_default(void);
TL_API tl_law_def tl_law_default(void);
TL_API tl_particle_def tl_particle_default(void);
TL_API tl_shape_def tl_shape_default(void);
TL_API tl_wall_def tl_wall_default(void);

/* Sets (or replaces) a named coefficient in a law definition. The name is
 * checked against the law's sub-models when the law is given to a world. */
TL_API tl_status tl_law_set(tl_law_def *law, const char *name, double value);

/* ---- world ---- */
TL_API tl_status tl_world_create(const tl_world_def *def, tl_world **out);
TL_API void tl_world_destroy(tl_world *world);
TL_API const char *tl_world_error(const tl_world *world);
TL_API size_t tl_world_bytes(const tl_world *world); /* bytes currently allocated */

/* Materials are referred to by the returned index. */
TL_API tl_status tl_world_add_material(tl_world *world, const tl_material_def *def, int *out_index);
TL_API int tl_world_material_count(const tl_world *world);
TL_API const char *tl_world_material_name(const tl_world *world, int index);
TL_API tl_status tl_world_find_material(const tl_world *world, const char *name, int *out_index);

/* The law used between two materials (in either order). Every pair of
 * materials that can meet needs one before the first step. A coefficient
 * given as NAN where the sub-model's default is NAN (derived from the
 * materials) stays derived: what tl_world_get_law returns can be set again.
 * Set again on a world that has stepped, a law whose sub-models change keeps,
 * in each touching contact, the history of every slot whose sub-model stays
 * (moved to its new place); a slot given a new sub-model starts its history
 * from zero, as a contact that has just opened. */
TL_API tl_status tl_world_set_law(tl_world *world, int material_a, int material_b, const tl_law_def *def);
TL_API bool tl_world_has_law(const tl_world *world, int material_a, int material_b);
/* The law between two materials as it is used: sub-model names, options, and
 * every coefficient of its sub-models with defaults filled in (NAN = derived
 * from the materials). Names point into the registry; valid for the world's life. */
TL_API tl_status tl_world_get_law(const tl_world *world, int material_a, int material_b, tl_law_def *out);

/* Shapes other than spheres (ellipsoids, polyhedra), referred to by the
 * returned index (1, 2, ...) in tl_particle_def.shape. A mesh is checked
 * (closed, consistently oriented, no degenerate facet) and moved to its body
 * frame (centroid, principal axes: tl_shape_info origin and frame); its mass
 * properties come from the geometry. A particle's orientation still means the
 * mesh as given: a given vertex v lies at position + R(orientation) (v - origin). */
TL_API tl_status tl_world_add_shape(tl_world *world, const tl_shape_def *def, int *out_index);
TL_API int tl_world_shape_count(const tl_world *world); /* the largest shape index */
TL_API tl_status tl_world_get_shape(const tl_world *world, int index, tl_shape_info *out);
/* The surface of a mesh shape (body frame: placed by a particle's
 * body_orientation, not its orientation): vertex coordinates (3 per vertex,
 * m) and triangles (3 vertex indices each); valid for the world's life. */
TL_API tl_status tl_world_shape_mesh(const tl_world *world, int index, const double **vertex_xyz,
                              size_t *vertex_count, const uint32_t **triangles, size_t *triangle_count);

TL_API tl_status tl_world_add_particle(tl_world *world, const tl_particle_def *def, uint32_t *out_id);
/* Every check tl_world_add_particle makes, with the same status and message
 * (tl_world_error), without adding the particle: a batch checked particle by
 * particle is added all or nothing (Python's add_particles). A particle's
 * orientation is refused when a component is not finite (all zero = no rotation). */
TL_API tl_status tl_world_check_particle(tl_world *world, const tl_particle_def *def);
TL_API tl_status tl_world_add_wall(tl_world *world, const tl_wall_def *def, int *out_index);

/* Validates the world, derives the pair constants and the time step. Called
 * by the first tl_world_step; call it earlier to read tl_world_timestep. */
TL_API tl_status tl_world_prepare(tl_world *world);
TL_API tl_status tl_world_step(tl_world *world, int64_t steps);
/* The blow-up check that tl_world_step runs every def.blowup_every steps, now:
 * TL_OK, or TL_ERROR_BLOWUP with the diagnostic in tl_world_error. */
TL_API tl_status tl_world_check_blowup(tl_world *world);
/* ---- several MPI ranks (docs/parallel.md) ----
 * Every rank builds the same world (the same calls, in the same order), then
 * calls tl_world_distribute before the first step: from the first neighbor
 * build on, each rank keeps the particles of its share of the domains and
 * ghost copies of those around them, and the run ends in the same bits as the
 * serial one. MPI_Init must have been called (the build must have MPI);
 * otherwise TL_ERROR_ARGUMENT. Features not distributed yet are refused by
 * name at the first step. The particle queries then see this rank's stored
 * particles: its own (tl_world_owned) and the ghosts. */
TL_API tl_status tl_world_distribute(tl_world *world);
/* The same over the ranks of a communicator of the caller's instead of MPI_COMM_WORLD (the
 * world works on a duplicate of it), given by its Fortran handle so that this header needs no
 * mpi.h: MPI_Comm_c2f(comm) in C, comm.py2f() in mpi4py. Every rank of that communicator
 * calls it; TL_ERROR_ARGUMENT for MPI_COMM_NULL or an intercommunicator. */
TL_API tl_status tl_world_distribute_comm(tl_world *world, int mpi_comm_fortran);
/* For programs: starts MPI when the program was launched by mpirun (or another MPI
 * launcher) and returns the number of ranks; 1 otherwise (MPI untouched) or in a build
 * without MPI. tl_parallel_end finalizes what it started. */
TL_API int tl_parallel_begin(int *argc, char ***argv);
TL_API void tl_parallel_end(void);
TL_API int tl_world_rank(const tl_world *world);  /* 0 in a serial world */
TL_API int tl_world_ranks(const tl_world *world); /* 1 in a serial world */
/* The particles this rank owns: storage indices first .. first + count - 1 (all of them in a
 * serial world). */
TL_API void tl_world_owned(const tl_world *world, size_t *first, size_t *count);
/* Every rank's owned particles, in the global storage order, to rank 0: *out (malloc'd, free
 * it) and *n there; the other ranks get NULL and 0. Collective: every rank calls it. */
TL_API tl_status tl_world_gather_particles(tl_world *world, tl_particle_state **out, size_t *n);

/* The particles of all ranks (the stored count in a serial world). */
TL_API size_t tl_world_particle_total(const tl_world *world);
/* The views of a distributed world (collective; nothing in a serial world):
 * TL_VIEW_RECORD: rank 0's particle, contact and energy queries (tl_world_particle_count,
 * _particle_at, _get_particle, _contact_count, _get_contact, tl_world_energy) answer for
 * every rank's particles, in the global order, so that rank 0 writes the outputs a serial
 * run writes; TL_VIEW_ALL: every rank's particle queries answer for all particles (an
 * insertion that checks overlaps with them then places the same particles everywhere);
 * TL_VIEW_OFF: each rank's own store again. */
typedef enum tl_view { TL_VIEW_OFF, TL_VIEW_RECORD, TL_VIEW_ALL } tl_view;
TL_API tl_status tl_world_view(tl_world *world, tl_view view);
/* Collective: TL_OK when s is TL_OK on every rank, else a failure on every rank (rank 0's
 * status and message where it failed). s itself in a serial world. */
TL_API tl_status tl_world_agree(tl_world *world, tl_status s);
/* The same, carrying the message of the lowest rank that failed: on the ranks where s is
 * TL_OK, that rank's status is returned and its message (prefixed "rank R: ") written to msg
 * (size bytes), or set as the world's error when msg is NULL; a rank that failed keeps its own. */
TL_API tl_status tl_world_agree_message(tl_world *world, tl_status s, char *msg, size_t size);
/* What the ranks cost, counted since the world was spread (collective; zeros but ranks = 1 and
 * the particles in a serial world): the measured inputs of the scaling model (docs/scaling.md). */
typedef struct tl_parallel_stats {
    int ranks;
    uint64_t owned_total, owned_max;   /* particles owned: all ranks', the largest share */
    uint64_t ghosts_total, ghosts_max; /* ghost copies held now */
    uint64_t ghosts_needed_total;      /* of them, those a candidate pair joins to an owned one */
    uint64_t partners_max;             /* the most ranks one rank sends ghosts to */
    uint64_t refreshes;                /* ghost refreshes (one per step between rebuilds) */
    uint64_t rebuilds;                 /* distributed rebuilds (migration, ghost exchange) */
    uint64_t sums;                     /* gathers of the domain sums (one per force pass) */
    uint64_t collectives;              /* MPI collectives of rank 0 */
    uint64_t packed_total;             /* particles packed in refreshes, all ranks */
    uint64_t particle_bytes;           /* bytes per packed particle */
    uint64_t sums_bytes;               /* bytes one rank receives per domain-sum gather */
    double pack_s, exchange_s, unpack_s; /* seconds in refreshes, the slowest rank's each */
    double sums_s;                     /* in the domain sums' gathers, the slowest rank's */
    double rebuild_s;                  /* in the distributed parts of rebuilds, the slowest's */
} tl_parallel_stats;
TL_API tl_status tl_world_parallel_stats(tl_world *world, tl_parallel_stats *stats);
/* Rank 0's v on every rank (collective; v in a serial world). */
TL_API int64_t tl_world_agree_i64(tl_world *world, int64_t v);

/* Worker threads for the following steps (0 = all available, 1 = serial). */
TL_API tl_status tl_world_set_threads(tl_world *world, int threads);
TL_API int tl_world_threads(const tl_world *world); /* the worker threads the steps use */

/* ---- queries ---- */
TL_API double tl_world_time(const tl_world *world);
TL_API int64_t tl_world_step_count(const tl_world *world);
TL_API double tl_world_dt(const tl_world *world);
TL_API tl_status tl_world_timestep(const tl_world *world, tl_timestep_info *out);

TL_API size_t tl_world_particle_count(const tl_world *world);
/* Particles in storage order, index 0 .. count-1 (the order changes when particles are removed). */
TL_API tl_status tl_world_particle_at(const tl_world *world, size_t index, tl_particle_state *out);
/* The kinetic energy of a particle's rotation, J: 1/2 I w^2 (sphere), 1/2 w . L (other shapes). */
TL_API double tl_particle_rotational_energy(const tl_particle_state *p);
TL_API tl_status tl_world_get_particle(const tl_world *world, uint32_t id, tl_particle_state *out);
TL_API tl_status tl_world_set_particle_velocity(tl_world *world, uint32_t id, tl_vec3 velocity,
                                         tl_vec3 angular_velocity);
TL_API size_t tl_world_particles_removed(const tl_world *world); /* left the domain */
/* One field of n particles at once (tl_particle_set): values holds three numbers per id,
 * in the order of ids. All or nothing: every id must name a particle, once; every value must
 * be finite; a position must lie within the limit on coordinates (+-1e12 m) and, on the axes of
 * the domain that are not periodic, inside it; a fixed particle takes no velocity or angular
 * velocity (TL_ERROR_STATE). Otherwise nothing changes and the message names the first
 * offending id and its row (TL_ERROR_NOT_FOUND for an unknown id). A new position is a move:
 * the next step rebuilds the neighbor lists when it exceeds half the skin, and the overlaps it
 * makes are the next step's contacts (their history carries on where a contact stays). A
 * position or velocity set by hand is energy given without a ledger entry, as with
 * tl_world_set_particle_velocity; an external force is that of tl_world_set_particle_force (a
 * zero vector removes it). Refused on a world spread over MPI ranks once it is prepared. */
TL_API tl_status tl_world_set_particles(tl_world *world, tl_particle_set field, const uint32_t *ids, size_t n,
                                 const double *values);
/* Removes n particles by id, between steps; all or nothing (every id known, given once). Their
 * contacts go with them, with the contacts' history (the neighbor lists are rebuilt at once),
 * and so do their external forces and their contacts that ended in the last step and wait for
 * the collision log. What they carry leaves through the boundary, as for particles leaving the
 * domain: their kinetic and potential energy and the elastic energy of their contacts are
 * taken off tl_energy.boundary_work, so tl_energy.total stays (docs/outputs.md). Ids are not
 * given again by tl_world_add_particle's automatic numbering; tl_world_particles_removed counts
 * only the particles that left the domain. Refused on a world spread over MPI ranks once it is
 * prepared. */
TL_API tl_status tl_world_remove_particles(tl_world *world, const uint32_t *ids, size_t n);

/* The particle arrays, read in place (zero-copy views, e.g. NumPy's). Valid
 * between calls that change the world; `generation` tells when their count or
 * order changed. Once called, the world keeps every array block that growth
 * (tl_world_add_particle beyond the capacity) or tl_world_load_state replaces,
 * and no longer shrinks the arrays, so that a view taken earlier still reads
 * memory of the world (stale, not freed) until tl_world_release_particle_arrays
 * says no view older than `generation` is left, or the world is destroyed. */
TL_API tl_status tl_world_particle_arrays(tl_world *world, tl_particle_arrays *out);
TL_API void tl_world_release_particle_arrays(tl_world *world, uint64_t generation);

TL_API int tl_world_wall_count(const tl_world *world);
TL_API tl_status tl_world_get_wall(const tl_world *world, int index, tl_wall_state *out);
TL_API tl_status tl_world_set_wall_velocity(tl_world *world, int index, tl_vec3 velocity);
/* Starts a motion of a wall now (rotation, oscillation, rocking: tl_motion_def),
 * from where the wall is, with the translation velocity given. */
TL_API tl_status tl_world_set_wall_motion(tl_world *world, int index, tl_vec3 velocity, const tl_motion_def *motion);
/* Makes a wall force-controlled (servo.enabled) or gives its velocity back to
 * tl_world_set_wall_velocity (!servo.enabled); see tl_servo_def. */
/* A constant external force on a particle (N; a zero vector removes it), added
 * to its contact forces every step; counted as the potential -F.x in the energy. */
TL_API tl_status tl_world_set_particle_force(tl_world *world, uint32_t id, tl_vec3 force);
TL_API tl_vec3 tl_world_particle_external_force(const tl_world *world, uint32_t id);
TL_API tl_status tl_world_set_wall_servo(tl_world *world, int index, const tl_servo_def *servo);

/* Touching contacts (particle-particle, then particle-wall), index 0 .. count-1. */
TL_API size_t tl_world_contact_count(const tl_world *world);
TL_API tl_status tl_world_get_contact(const tl_world *world, size_t index, tl_contact_info *out);

TL_API tl_status tl_world_energy(const tl_world *world, tl_energy *out);

/* Contacts that ended are kept in a log while it is enabled; read then clear it. */
TL_API void tl_world_log_collisions(tl_world *world, bool enable);
TL_API size_t tl_world_collision_count(const tl_world *world);
TL_API const tl_collision *tl_world_collisions(const tl_world *world);
TL_API void tl_world_clear_collisions(tl_world *world);
/* A distributed world (collective): every rank's log to rank 0, in the order a serial run logs
 * them; the other ranks' logs are emptied (each rank logs the contacts of its own particles).
 * Nothing in a serial world. */
TL_API tl_status tl_world_collect_collisions(tl_world *world);

/* Neighbor-list rebuilds so far. */
TL_API int64_t tl_world_neighbor_builds(const tl_world *world);

/* ---- checkpoints ----
 * The complete state of a prepared world as bytes: particles (every field,
 * in storage order), the contact records with every history value and the
 * neighbor lists, walls (positions, motion, forces), time and step, the
 * energy ledger, the random generator, the collision log. A world built from
 * the same definitions (materials, laws, walls, periodic axes, in the same
 * order) that loads these bytes continues exactly, bit for bit, as the saved
 * one would have, with any number of threads. *data is malloc'd (free it).
 * Loading checks every size and index first and refuses a buffer that is
 * truncated, from another build, or from a world with other definitions,
 * leaving the world as it was. The load derives the laws of the loaded particles' materials, so
 * a world that was prepared before any particle was added (or has none) continues the same.
 * Scenes write these inside checksummed
 * checkpoint files (scene.h, tl_run_options.resume). */
TL_API tl_status tl_world_save_state(const tl_world *world, void **data, size_t *size);
TL_API tl_status tl_world_load_state(tl_world *world, const void *data, size_t size);
/* The same state in pieces, written by every rank without communication (docs/parallel.md,
 * "Checkpoints"): this rank's piece (its particles, its domains' candidates and records, its
 * share of the collision log and of the shape stage) and the frame (the rest, which every rank
 * holds alike: take rank 0's). tl_world_join_state puts the serial state's bytes back together
 * from a frame and the n pieces of the ranks that wrote them, in rank order, on any prepared world
 * built from the same definitions and on any rank count: the bytes tl_world_save_state gives (in a
 * serial world, one piece). It refuses pieces that are truncated, out of order or do not agree.
 * *data is malloc'd (free it). */
TL_API tl_status tl_world_save_piece(const tl_world *world, void **data, size_t *size);
TL_API tl_status tl_world_save_frame(const tl_world *world, void **data, size_t *size);
TL_API tl_status tl_world_join_state(tl_world *world, const void *frame, size_t frame_size, const void *const *pieces,
                              const size_t *sizes, size_t n, void **data, size_t *size);
/* Every rank's n values to every rank, in rank order: out holds ranks x n (collective; a
 * copy of v in a serial world). */
TL_API void tl_world_allgather_u64(tl_world *world, const uint64_t *v, size_t n, uint64_t *out);

/* What the law between two materials derives for two bodies of the given
 * radii and masses meeting at impact_speed (0 = the world's characteristic
 * speed). For a wall pass material_b of the wall, radius_b = mass_b = INFINITY. */
TL_API tl_status tl_world_estimate_pair(tl_world *world, int material_a, int material_b, double radius_a,
                                 double mass_a, double radius_b, double mass_b, double impact_speed,
                                 tl_pair_estimate *out);

/* ---- the damped Hertz collision and the adaptive collision time model ----
 * (Ray, Kempe & Fröhlich 2015; Kempe & Fröhlich 2012). m: the mass of the
 * particle (particle-wall) or the reduced mass, u_in the impact speed. */

/* e(lambda) and tau_c(lambda) by integrating eq. 6 (about 1e-11). */
TL_API tl_status tl_hertz_damped_solve(double lambda, tl_hertz_damped *out);
/* The lambda that gives restitution e, exactly (e in (0, 1]). */
TL_API tl_status tl_hertz_damped_from_restitution(double e, tl_hertz_damped *out);
/* The paper's approximations, eq. 43 and 44. */
TL_API void tl_hertz_damped_approx(double lambda, double *e, double *tau_c);
/* Stiffness k (N/m^1.5) and damping d (N s/m) giving restitution e and
 * collision time T_c at impact speed u_in: by the paper's direct formulas
 * (eq. 51-54, its fitted constants) or exactly (the inverse of eq. 6). */
TL_API tl_status tl_actm_direct(double e, double T_c, double m, double u_in, double *k, double *d,
                         double *lambda);
TL_API tl_status tl_actm_exact(double e, double T_c, double m, double u_in, double *k, double *d,
                        double *lambda);

/* ---- measurements ---- */
/* The bed's dynamic angle of repose, by its free surface and by its centroid
 * (tl_repose; NAN where a method has too little to go on). */
TL_API tl_repose_def tl_repose_default(void);
TL_API tl_status tl_world_repose(const tl_world *world, const tl_repose_def *def, tl_repose *out);

/* ---- pictures (docs/outputs.md, "image") ---- */
TL_API tl_render_options tl_render_default(void);
/* Renders the world into a PNG at path (written as path.part, then renamed: never a partial file
 * under its name). TL_ERROR_ARGUMENT for options out of range (the message, tl_world_error, names
 * the option and what it takes), TL_ERROR_IO when the file cannot be written. Reads the world
 * only (its error message aside). On a world spread over MPI ranks it draws the particles the
 * rank's queries see: call it on rank 0 under tl_world_view(TL_VIEW_RECORD) for all of them. */
TL_API tl_status tl_world_render(tl_world *world, const char *path, const tl_render_options *options);

/* ---- the registry of contact sub-models ---- */
TL_API int tl_registry_count(void);
TL_API const tl_submodel_info *tl_registry_get(int index);
TL_API const tl_submodel_info *tl_registry_find(tl_slot slot, const char *name);
TL_API const char *tl_slot_name(tl_slot slot);
/* The slot's row (NULL out of range), and the slot whose key is `key` (-1: none). */
TL_API const tl_slot_info *tl_slot_get(tl_slot slot);
TL_API int tl_slot_find(const char *key);
/* The model the law uses in `slot`: the one it names, else the slot's default (NULL when the slot
 * needs one and the law names none). */
TL_API const char *tl_law_model(const tl_law_def *law, tl_slot slot);
/* Names the model of the slot whose key is `slot` ("rolling", "sds"; NULL: the slot's default):
 * TL_ERROR_NOT_FOUND for an unknown slot or model. The law keeps the registry's name. */
TL_API tl_status tl_law_choose(tl_law_def *law, const char *slot, const char *model);
/* The row of an energy term (tl_energy_term), NULL out of range: its name, meaning, kind, sign. */
TL_API const tl_energy_term_info *tl_energy_term_get(int term);

/* The candidate closest to `name` (edit distance, case-insensitive, '-' and '_'
 * alike; a prefix of three or more letters counts too), or NULL when none is
 * reasonably close: the "did you mean" of the library's and the scene loader's
 * messages, for bindings that check names themselves. */
TL_API const char *tl_suggest_name(const char *name, const char *const *candidates, size_t count);

#ifdef __cplusplus
}
#endif

#include "lab.h"
#include "scene.h"

#endif /* TALUS_TALUS_H */
