/*
 * What a scene asks of an output: its kind, its file, its interval and the
 * choices of its kind (particle fields, walls, the repose drum...). scene.c
 * fills them from YAML (scene_plan.h holds them in the scene); the outputs
 * (outputs.h) write them.
 */
#ifndef TL_OUTPUT_SPEC_H
#define TL_OUTPUT_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "talus/types.h"

typedef enum tl_output_kind {
    TL_OUTPUT_ENERGY = 0,  /* CSV time series of the energy balance */
    TL_OUTPUT_PARTICLES,   /* CSV time series of chosen particle fields */
    TL_OUTPUT_CONTACTS,    /* CSV snapshots of every touching contact */
    TL_OUTPUT_VTK,         /* VTK XML PolyData frames (.vtp) + a .pvd series */
    TL_OUTPUT_COLLISIONS,  /* CSV, one row per contact that ended */
    TL_OUTPUT_PLOT,        /* PNG (gnuplot) of a CSV output, at the end of the run */
    TL_OUTPUT_WALLS,       /* CSV time series of the walls: displacement, velocity, force */
    TL_OUTPUT_REPOSE       /* CSV time series of a drum bed's angle of repose (tl_world_repose) */
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
    int *walls;           /* walls: the wall indices to write (NULL = all) */
    size_t nwalls;
    tl_vec3 torque_point; /* walls: the torques are about this point, m (default the origin) */
    tl_repose_def repose; /* repose: the drum's axis, its point, the bins, the material */
    int line;             /* where it was declared, for run-time messages */
} tl_output_spec;

#endif
