/*
 * A loaded scene: the world plus its plan (stages run in order, outputs
 * written at their own intervals). scene.c fills it from YAML; run.c
 * executes it. Scene-level memory uses the C library allocator; the world
 * uses its own.
 */
#ifndef TL_SCENE_PLAN_H
#define TL_SCENE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "insert.h"
#include "output_spec.h"
#include "rng.h"
#include "talus/talus.h"

typedef struct tl_stage_spec {
    char *name;
    double duration;      /* s; 0 = not given (see tl_stage_limits) */
} tl_stage_spec;

/* More ways for a stage to end, parallel to the stages (a scene without
 * them: every stage ends by its duration). A stage ends at whichever comes
 * first: its duration, its step count, its condition (checked every
 * check_every steps), the max_duration guard of the condition. */
typedef struct tl_stage_limits {
    int64_t steps;        /* 0 = not given */
    double max_duration;  /* s, the guard of a condition; 0 = not given */
    bool until_kinetic;   /* until: {kinetic_energy_below: J} */
    double kinetic_below; /* J */
    bool until_wall;      /* until: {wall_displacement: {wall, axis, reaches}} */
    int until_wall_index; /* the wall */
    int until_wall_axis;  /* 0, 1, 2: x, y, z */
    double until_wall_reaches; /* m: the wall's displacement since the start of the run
                                * along the axis reaches it (>= when > 0, <= when < 0) */
    int64_t check_every;  /* steps between checks of the condition */
} tl_stage_limits;

/* What a stage changes when it begins (`set:` of a stage), in this order:
 * the friction of every law, then each wall's velocity, then its servo. */
typedef struct tl_wall_action {
    int wall;             /* index */
    bool set_velocity;    /* velocity: [x, y, z] */
    tl_vec3 velocity;
    bool set_servo;       /* servo: {...} or servo: off */
    tl_servo_def servo;   /* enabled = false: off (the wall keeps its current velocity) */
    bool set_motion;      /* motion: {...} from where the wall is, with the velocity given (else no
                           * translation), or none (translation only) */
    tl_motion_def motion;
} tl_wall_action;

typedef struct tl_stage_action {
    bool set_friction;    /* friction: mu, or restore */
    double friction;      /* mu >= 0 for every law with a friction coefficient; NAN = restore
                           * each law's own mu (as the scene gave it) */
    tl_wall_action *walls;
    size_t nwalls;
} tl_stage_action;

/* What ended a stage (tl_stage_result.ended_by names them). */
typedef enum tl_stage_end {
    TL_STAGE_NOT_RUN = 0,
    TL_STAGE_BY_DURATION,
    TL_STAGE_BY_STEPS,
    TL_STAGE_BY_KINETIC_ENERGY,
    TL_STAGE_BY_MAX_DURATION,
    TL_STAGE_INTERRUPTED,
    TL_STAGE_BY_WALL_DISPLACEMENT,
    TL_STAGE_FAILED        /* a step failed (a blow-up): the stage stopped there */
} tl_stage_end;

/* How a stage went in the last run. */
typedef struct tl_stage_run {
    tl_stage_end ended_by;
    int64_t steps;
    double t_begin, t_end;    /* world time, s */
    double kinetic_energy;    /* J at the last check of its condition (NAN = none) */
} tl_stage_run;

/* An inflow: particles inserted during the run at random free places of a
 * region, at a rate (particles/s) or a mass rate (kg/s), from start to stop. */
typedef struct tl_inflow_spec {
    tl_vec3 min, max;         /* the region */
    double rate;              /* particles/s; 0 = by mass_rate */
    double mass_rate;         /* kg/s */
    tl_dist size;             /* of the radius or the diameter */
    double size_scale;        /* radius = size_scale x draw (0.5 for diameters) */
    int material;
    double density;           /* kg/m3 of the material */
    tl_vec3 velocity;         /* m/s */
    double velocity_jitter;   /* m/s, uniform in [-j, j] per axis */
    double start, stop;       /* world time, s; stop = INFINITY when not given */
    int64_t count;            /* at most this many; 0 = no limit */
    int max_attempts;         /* centres tried per particle and round */
    int64_t every_steps;      /* the fewest steps between two rounds (each rebuilds the
                               * neighbor lists); the end of the run inserts what is due */
    uint64_t seed;
    int line;                 /* of the entry in the scene */
    int index;                /* in particles: */
} tl_inflow_spec;

/* Everything an inflow changes while it runs: one plain struct (no
 * pointers), so that a checkpoint can store and restore it as it is. */
typedef struct tl_inflow_state {
    tl_rng size_rng;          /* draws the sizes, in order */
    tl_rng place_rng;         /* draws the centres and the velocity jitter */
    int64_t inserted;         /* particles inserted so far */
    double mass_inserted;     /* kg */
    double energy_inserted;   /* J: kinetic + potential of the inserted particles at insertion */
    double next_radius;       /* m: the next particle's radius, drawn ahead (0 = not drawn) */
    int64_t rounds;           /* insertion rounds done */
    int64_t failed_rounds;    /* rounds that left due particles unplaced (the region was full) */
    int64_t shortfall;        /* particles due by the stop (or the end) that found no place */
    double last_round;        /* world time of the last round, s (-INFINITY = none) */
    bool finished;            /* stopped: the count reached, or the stop time passed */
} tl_inflow_state;

/* `checkpoint:` of a scene: the complete state of a run written between
 * chunks of steps (and when a run is interrupted), so that `talus run
 * --resume DIR` continues it (run.c, run_checkpoint.c). */
typedef struct tl_checkpoint_spec {
    bool on;              /* the scene asks for checkpoints */
    double every;         /* s of simulated time between checkpoints; 0 = by every_steps */
    int64_t every_steps;  /* steps between checkpoints */
    char *dir;            /* NULL = <output dir>/checkpoint; relative: to the output dir */
    int64_t keep;         /* the latest checkpoints kept, >= 1 */
    int line;             /* where it was declared */
} tl_checkpoint_spec;

struct tl_scene {
    tl_world *world;
    tl_world_def def;     /* the world's definition as the scene gave it */
    char *path;           /* the file, or the name given to tl_scene_load_string */
    char *title;          /* the scene's `name:` (defaults to the file's base name) */
    char *slug;           /* file-name-safe title, for the default output directory */
    tl_stage_spec *stages;
    size_t nstages;
    tl_stage_limits *stage_limits; /* per stage, or NULL: durations only */
    tl_stage_action *stage_actions; /* per stage, or NULL: none */
    tl_stage_run *stage_runs; /* per stage: how it went in the last run (NULL: not kept) */
    tl_inflow_spec *inflows;
    tl_inflow_state *inflow_states;
    size_t ninflows;
    tl_wall_def *walls;   /* the walls as given (names dropped), in the world's order */
    size_t nwalls;
    tl_output_spec *outputs;
    size_t noutputs;
    tl_checkpoint_spec checkpoint;
    uint64_t text_hash;   /* FNV-1a 64 of the scene's text: a resume refuses another text */
    char run_error[1024];
};

#endif
