/*
 * What a scene asks of an output: its kind, its file, its interval and the
 * options of its kind (particle fields, walls, the repose drum...: the kind's
 * own struct, in its file's header). scene.c fills them from YAML through the
 * table of kinds (output_kinds.c; scene_plan.h holds them in the scene); the
 * outputs (outputs.h) write them. A new kind changes this file by its enum
 * value only.
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
    TL_OUTPUT_REPOSE,      /* CSV time series of a drum bed's angle of repose (tl_world_repose) */
    TL_OUTPUT_IMAGE        /* PNG frames of the particles (render.h), optionally an MP4 */
} tl_output_kind;

typedef struct tl_output_spec {
    tl_output_kind kind;
    char *file;           /* relative to the output directory; for vtk a base name */
    double every;         /* s of simulated time between records; 0 = see every_steps */
    int64_t every_steps;  /* steps between records; 0 with every = 0: the kind's default */
    /* the kind's own options: its struct, declared beside its file (csv_options.h, output_plot.h),
     * as many bytes as its row's opts_size, allocated zeroed by the scene loader and filled by
     * the kind's reader or resolve step; NULL for a kind without options. Freed (and what they
     * own) by tl_output_options_free (output_kinds.h) */
    void *opts;
    int line;             /* where it was declared, for run-time messages */
} tl_output_spec;

#endif
