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

#include "talus/talus.h"

typedef enum tl_output_kind {
    TL_OUTPUT_ENERGY = 0,  /* CSV time series of the energy balance */
    TL_OUTPUT_PARTICLES,   /* CSV time series of chosen particle fields */
    TL_OUTPUT_CONTACTS,    /* CSV snapshots of every touching contact */
    TL_OUTPUT_VTK,         /* VTK XML PolyData frames (.vtp) + a .pvd series */
    TL_OUTPUT_COLLISIONS,  /* CSV, one row per contact that ended */
    TL_OUTPUT_PLOT         /* PNG (gnuplot) of a CSV output, at the end of the run */
} tl_output_kind;

/* particle fields for TL_OUTPUT_PARTICLES (bit set) */
enum tl_particle_field {
    TL_FIELD_POSITION = 1u << 0,
    TL_FIELD_VELOCITY = 1u << 1,
    TL_FIELD_ANGULAR_VELOCITY = 1u << 2,
    TL_FIELD_FORCE = 1u << 3,
    TL_FIELD_TORQUE = 1u << 4,
    TL_FIELD_ORIENTATION = 1u << 5,
    TL_FIELD_RADIUS = 1u << 6,
    TL_FIELD_KINETIC_ENERGY = 1u << 7
};

typedef struct tl_output_spec {
    tl_output_kind kind;
    char *file;           /* relative to the output directory; for vtk a base name */
    double every;         /* s of simulated time between records; 0 = see every_steps */
    int64_t every_steps;  /* steps between records; 0 with every = 0: the kind's default */
    uint32_t *ids;        /* particles: the ids to write (NULL = all) */
    size_t nids;
    unsigned fields;      /* particles: tl_particle_field bits */
    int plot_of;          /* plot: index of the CSV output it draws (-1 = the first energy output) */
    int line;             /* where it was declared, for run-time messages */
} tl_output_spec;

typedef struct tl_stage_spec {
    char *name;
    double duration;      /* s */
} tl_stage_spec;

struct tl_scene {
    tl_world *world;
    char *path;           /* the file, or the name given to tl_scene_load_string */
    char *title;          /* the scene's `name:` (defaults to the file's base name) */
    char *slug;           /* file-name-safe title, for the default output directory */
    tl_stage_spec *stages;
    size_t nstages;
    tl_output_spec *outputs;
    size_t noutputs;
    char run_error[1024];
};

#endif
