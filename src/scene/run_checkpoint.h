/*
 * The state of a running scene (run.c), and its checkpoint files
 * (run_checkpoint.c): everything a run needs to continue exactly where it
 * was, written between chunks of steps and read back by a resumed run
 * (tl_run_options.resume, `talus run SCENE --resume DIR`). Internal.
 */
#ifndef TL_RUN_CHECKPOINT_H
#define TL_RUN_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "outputs.h"
#include "scene_plan.h"

/* ---- when outputs (and checkpoints) are due ---- */

typedef enum tl_schedule_mode {
    TL_SCHEDULE_NONE = 0, /* not a time series */
    TL_SCHEDULE_TIME,     /* every `every` s */
    TL_SCHEDULE_STEPS,    /* every `every_steps` steps */
    TL_SCHEDULE_SPREAD    /* SPREAD_RECORDS records over the run */
} tl_schedule_mode;

typedef struct tl_schedule {
    tl_schedule_mode mode;
    double every;
    int64_t every_steps;
    int64_t k;    /* index of the next record (TIME, SPREAD) */
    int64_t next; /* the run step at which it is next looked at */
    int64_t last; /* run step of the last record, -1 = none */
} tl_schedule;

/* ---- the run ---- */

typedef struct tl_run_state {
    tl_scene *scene;
    tl_world *world;
    tl_run_options opt;
    tl_output_context ctx;
    tl_output *out;
    tl_schedule *sched;
    size_t nout, opened;
    int64_t *stage_steps;    /* the most steps each stage can run */
    tl_stage_end *stage_cap; /* what ends a stage that runs all of them */
    tl_stage_run *runs;      /* per stage, this run */
    double energy0;          /* tl_energy.total at the start */
    /* inflows */
    double *inflow_next;     /* per inflow: world time of its next round (INFINITY: none) */
    uint8_t *present;        /* per material: the world has particles of it */
    tl_wall_def *walls;      /* the scene's walls where they are now */
    size_t inserted;
    double energy_inserted;
    double particle_steps;   /* sum over chunks of particles x steps */
    int64_t total, done;     /* steps of the run, steps done */
    double dt, t0;           /* step, world time at the start */
    int64_t step0;           /* world step count at the start */
    size_t particles0;
    int stage;               /* the running stage */
    int64_t stage_begin, stage_end; /* its first run step and the run step it ends at */
    bool resume_stage;       /* run_stages goes on with r->stage from stage_begin, stage_end */
    double wall0, progress_wall;
    int64_t progress_step;
    double particle_steps0;  /* particle steps done before this process (a resumed run) */
    bool logging;            /* a collisions output is open */
    char dir_buf[1024];
    char **made;             /* per place the run creates (output dir, checkpoints, each output):
                                where the new part of the tree starts, or NULL; nmade of them */
    size_t nmade;
    /* checkpoints */
    tl_schedule ck;          /* mode NONE: no checkpoints */
    char *ck_dir;            /* where they are written */
    char last_checkpoint[1024]; /* the last file written ("" = none) */
    int64_t last_checkpoint_step; /* the run step it was written at (-1 = none) */
    char resume_note[2400];  /* a resume that fell back to an older checkpoint says so ("" = none) */
    /* stage actions */
    double *mu0;             /* per material pair a*n+b: the law's own mu (NAN: none) */
    int nmat;                /* materials when mu0 was taken */
    /* several MPI ranks: all run the same schedule; rank 0 alone writes the files */
    bool dist, writer;
} tl_run_state;

/* Writes the state of the run as it is now (between chunks, the outputs
 * synced) to <ck_dir>/checkpoint-<step>.tlck through a temporary name,
 * then <ck_dir>/latest naming it; then removes the checkpoints beyond the
 * scene's `keep` latest. On failure run_error says why. */
tl_status tl_run_checkpoint_write(tl_run_state *r);

/* Makes the checkpoint folder and checks that `latest` can be written there
 * (no directory of that name), so that an unwritable place is found before
 * the first step; on failure run_error says why. */
tl_status tl_run_checkpoint_prepare(tl_run_state *r);

/* A checkpoint read back and checked, not yet applied. */
typedef struct tl_run_saved tl_run_saved;

/* Reads the checkpoint `where` names (a .tlck file, or a directory whose
 * `latest` names one), checks its length and checksum before anything
 * else (a directory's newest that fails them gives way to the newest intact
 * one before it, and resume_note says so), then that it belongs to this scene (the same text) and this build,
 * and that every output can continue (its files hold the bytes the
 * checkpoint counted). Nothing is written or changed. */
tl_status tl_run_saved_read(tl_run_state *r, const char *where, tl_run_saved **out);

/* Loads the world state and restores the run state; sets o->resume of
 * every output (the saved state stays valid until tl_run_saved_free), so
 * that opening them continues their files. */
tl_status tl_run_saved_apply(tl_run_state *r, tl_run_saved *saved);

void tl_run_saved_free(tl_run_saved *saved);

#endif
