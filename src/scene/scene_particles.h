/*
 * The `particles:` entries of a scene (scene_particles.c): single
 * particles, lattices, files, random fills, inflows. Used by scene.c;
 * the loader's state is in loader.h. Internal.
 */
#ifndef TL_SCENE_PARTICLES_H
#define TL_SCENE_PARTICLES_H

#include <stddef.h>

#include "loader.h"

/* The required `material` key of a mapping. */
int tl_load_material_key(tl_loader *L, const tl_yval *map, int *material);
/* The names of tl_scene_names' table "particle": the count, 0 for a table it does not hold. */
size_t tl_load_particle_names(const char *table, const char *const **names);

/* The `particles:` sequence: every entry is added to the world; inflows
 * become the scene's inflows. Walls must be read before. */
int tl_load_particles(tl_loader *L);

/* After the world is complete and before it is prepared: checks that
 * every pair an inflow's particles can meet has a law, and gives the
 * shortest contact time they can have divided by steps_per_contact
 * (INFINITY without inflows) and their smallest radius. */
int tl_load_inflow_bounds(tl_loader *L, double *dt_bound, double *r_min);

#endif
