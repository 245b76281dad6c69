/*
 * The options of the CSV kinds that have keys of their own (particles, walls, repose): each
 * kind's struct, which its reader (output_csv.c) fills as its output's tl_output_spec.opts and
 * the CSV writer and the column names (csv_columns.c) read. The table of kinds
 * (output_kinds.c) gives each struct's size and what frees it. A kind without options
 * (energy, contacts, collisions) has none (opts NULL).
 */
#ifndef TL_CSV_OPTIONS_H
#define TL_CSV_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "output_kind.h"

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

/* particles: {ids, fields} */
typedef struct tl_particles_options {
    uint32_t *ids;        /* the ids to write (NULL = all); malloc'ed */
    size_t nids;
    unsigned fields;      /* tl_particle_field bits */
} tl_particles_options;

/* walls: {walls, torque_about} */
typedef struct tl_walls_options {
    int *walls;           /* the wall indices to write (NULL = all); malloc'ed */
    size_t nwalls;
    tl_vec3 torque_point; /* the torques are about this point, m (default the origin) */
} tl_walls_options;

/* repose: {axis, point, material, bin_width, trim}: its options are a tl_repose_def (the drum's
 * axis, its point, the bins, the material; the public definition tl_world_repose takes) */

/* The readers of their keys, and what frees the particles' and walls' options (the table of
 * kinds calls these). */
int tl_read_particles_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *o);
int tl_read_walls_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *o);
int tl_read_repose_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *o);
void tl_drop_particles_options(void *opts);
void tl_drop_walls_options(void *opts);

#endif
