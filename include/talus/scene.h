/*
 * Talus: scenes (YAML files describing a whole simulation) and running them.
 *
 * A scene holds a world plus a plan: stages run in order, and outputs written
 * at their own intervals. Loading validates everything and creates no file;
 * running writes outputs under a directory, each file through a temporary
 * name renamed into place.
 */
#ifndef TALUS_SCENE_H
#define TALUS_SCENE_H

#include <signal.h>
#include <stdio.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where and why a scene was refused. */
typedef struct tl_scene_error {
    char file[512];   /* the scene file (or the name given for a string) */
    int line, column; /* 1-based; 0 when not known */
    char key[256];    /* dotted path of the offending key, e.g. materials.sand.density */
    char message[1024];
} tl_scene_error;

/* Formats "file:line:column: key: message" into buf. */
TL_API void tl_scene_error_format(const tl_scene_error *err, char *buf, size_t size);

/* The scene format's own names, in the loader's order, for bindings that speak
 * its vocabulary (the Python package takes its keywords and choices from here):
 * the keys a mapping takes, or the values a choice takes. Tables: "top" (the
 * top-level keys), "domain", "domain.periodic" (x, y, z), "integrator",
 * "integrator.scheme" (tl_integrator order), "neighbor", "blowup", "material",
 * "law" (between, the slots, the options), "law.slot" (tl_slot order),
 * "law.coulomb_test", "law.contact_point", "law.entry_displacement" (the order
 * of their enums), "wall.type" (tl_wall_kind order), "wall.plane",
 * "wall.rectangle", "wall.box", "wall.mesh" (the keys of each wall type),
 * "wall.open" (-x +x -y +y -z +z: the tl_box_face bits from the lowest),
 * "wall.units" (m, cm, mm, um), "wall.servo", "wall.motion" (rotate, oscillate,
 * rock: tl_motion_kind from TL_MOTION_ROTATE), "wall.motion.rotate",
 * "wall.motion.oscillate", "wall.motion.rock", "particle", "shape" (the keys of
 * a shape), "shape.kind" (sphere, ellipsoid, mesh: tl_shape_kind order),
 * "shape.mesh", "shape.units", "shape.contact_radius" (tl_mesh_radius order),
 * "shape.contact_depth" (tl_mesh_depth order). Sets *names (when not NULL) to
 * a static array and returns its count; 0 and NULL for an unknown table. */
TL_API size_t tl_scene_names(const char *table, const char *const **names);

TL_API tl_status tl_scene_load_file(const char *path, tl_scene **out, tl_scene_error *err);
TL_API tl_status tl_scene_load_string(const char *text, const char *name, tl_scene **out,
                               tl_scene_error *err);
/* The scene in the first len bytes of text (which need not end with a NUL):
 * a NUL byte among them is refused, with its line and column, as in a file. */
TL_API tl_status tl_scene_load_text(const char *text, size_t len, const char *name, tl_scene **out,
                             tl_scene_error *err);
TL_API void tl_scene_destroy(tl_scene *scene);

TL_API tl_world *tl_scene_world(tl_scene *scene);
TL_API const char *tl_scene_name(const tl_scene *scene);
TL_API const char *tl_scene_title(const tl_scene *scene); /* the scene's `name:` */
TL_API int tl_scene_stage_count(const tl_scene *scene);
TL_API const char *tl_scene_stage_name(const tl_scene *scene, int index);
TL_API double tl_scene_stage_duration(const tl_scene *scene, int index);
TL_API double tl_scene_duration(const tl_scene *scene); /* all stages, s */
TL_API int tl_scene_output_count(const tl_scene *scene);
/* How stage i ended in the last run (tl_scene_run). */
typedef struct tl_stage_result {
    const char *name;
    /* "duration", "steps", "kinetic_energy_below" (its until condition),
     * "max_duration" (the condition's guard), "interrupted", "not run",
     * "wall_displacement" (its until condition) */
    const char *ended_by;
    int64_t steps;
    double time_begin, time_end; /* world time, s */
    double kinetic_energy;       /* J at the last check of its condition; NAN when none */
} tl_stage_result;
TL_API tl_status tl_scene_stage_result(const tl_scene *scene, int index, tl_stage_result *out);

/* Describe output i: its kind ("energy", "particles", "contacts", "vtk",
 * "collisions", "plot") and its file name relative to the output directory. */
TL_API tl_status tl_scene_output(const tl_scene *scene, int index, const char **kind, const char **file);

/* ---- running ---- */

typedef struct tl_progress {
    int64_t step, steps_total;
    double time, time_total;  /* simulated, s */
    double wall_seconds;      /* since the run started */
    double steps_per_second;  /* recent rate */
    double eta_seconds;       /* < 0 when unknown */
    int stage;                /* index of the running stage */
    const char *stage_name;
    size_t contacts;
} tl_progress;

typedef void (*tl_progress_fn)(const tl_progress *progress, void *user);

typedef struct tl_run_options {
    const char *output_dir;       /* created if missing; NULL = "out/<scene name>" */
    tl_progress_fn progress;      /* called about every progress_interval seconds; may be NULL */
    void *progress_user;
    double progress_interval;     /* s of wall time, default 0.5 */
    bool write_outputs;           /* false: run without writing files */
    /* When set and *interrupt becomes non-zero (e.g. from a SIGINT handler), the
     * run stops after the current chunk of steps, records every output at that
     * time, commits the files and returns TL_INTERRUPTED. */
    volatile sig_atomic_t *interrupt;
    int threads;                  /* > 0: overrides the scene's thread count */
    /* Continue a run from a checkpoint (scene key `checkpoint:`): a checkpoint
     * file (.tlck), or a directory whose `latest` file names one; NULL = start
     * afresh. The scene must be the one the checkpoint was written for (the
     * same text). The outputs continue their files in output_dir: the result
     * is the same, byte for byte, as that of a run that was never stopped. A
     * checkpoint that is truncated, corrupted, or of another scene is refused
     * before anything is changed. */
    const char *resume;
    /* Called after every `step_every` steps of the run (counted from where it starts: a resumed
     * run from the checkpoint), once the outputs due at that step are recorded; the world may be
     * read and changed then (particles set, added or removed, walls driven), not stepped.
     * Returning true stops the run there as *interrupt does: the outputs are committed and
     * tl_scene_run returns TL_INTERRUPTED (the stage's ended_by "interrupted"). On several ranks
     * every rank calls it and rank 0's answer counts. NULL: none (step_every is then ignored). */
    bool (*on_steps)(tl_world *world, void *user);
    void *on_steps_user;
    int64_t step_every; /* >= 1 with on_steps */
} tl_run_options;

TL_API tl_run_options tl_run_options_default(void);

typedef struct tl_run_summary {
    int64_t steps;
    double simulated_time;        /* s */
    double wall_seconds;
    double particle_steps_per_second;
    size_t particles;
    size_t contacts;              /* touching at the end */
    int64_t neighbor_builds;
    double energy_initial;        /* J, tl_energy.total at the start */
    double energy_final;          /* J */
    double energy_scale;          /* J, the largest magnitude a term of the balance reached */
    double energy_balance_error;  /* |final - initial| / energy_scale; this and the two below are
                                   * NAN when the scene sets track_energy: false */
    double energy_dissipated;     /* J, by damping, plasticity and friction (tl_energy) */
    double energy_integration_residual; /* J, the normal springs' integration error (tl_energy) */
    bool energy_tracked;          /* the scene keeps the ledger (track_energy); when it does, a NAN
                                   * above means the books themselves went NAN (a blow-up) */
    size_t particles_removed;
    char output_dir[1024];
    int files_written;
    /* inflows (scene particles: - inflow: {...}) */
    size_t particles_inserted;    /* by the inflows in this run */
    size_t inflow_shortfall;      /* particles due that found no free place by the end */
    double energy_inserted;       /* J brought in by inserted particles (kinetic + potential);
                                   * the balance error counts it as entering the system */
    char warnings[1024];          /* lines for the user ("" when none), e.g. an inflow shortfall */
    char checkpoint[1024];        /* the last checkpoint file this run wrote ("" = none) */
} tl_run_summary;

/* Runs every stage, writing the scene's outputs. On failure nothing that was
 * being written is left under its final name. */
TL_API tl_status tl_scene_run(tl_scene *scene, const tl_run_options *options, tl_run_summary *summary);

/* The message of the last tl_scene_run failure. */
TL_API const char *tl_scene_run_error(const tl_scene *scene);

#ifdef __cplusplus
}
#endif

#endif /* TALUS_SCENE_H */
