/*
 * The scene loader's state, shared by scene.c (the format, walls, laws,
 * stages, outputs) and scene_particles.c (the `particles:` entries: single
 * particles, lattices, files, random fills, inflows). Internal.
 */
#ifndef TL_SCENE_PARTICLES_H
#define TL_SCENE_PARTICLES_H

#include <math.h>
#include <stddef.h>

#include "rng.h"
#include "scene_plan.h"
#include "yaml_doc.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define TL_LOAD_MAX_MATERIALS 256

/* ranges of numbers, with their units */
#define ABOVE(lo, unit) (&(tl_yrange){(lo), INFINITY, true, false, (unit)})
#define AT_LEAST(lo, unit) (&(tl_yrange){(lo), INFINITY, false, false, (unit)})

struct tl_law_entry;

typedef struct tl_loader {
    tl_ydoc doc;
    tl_yval root;
    tl_status status;      /* TL_ERROR_SCENE, or TL_ERROR_MEMORY */
    tl_scene *scene;
    tl_world_def def;
    tl_world *world;       /* = scene->world */
    tl_yval integrator_at, dt_at, laws_at; /* where tl_world_prepare's complaints point */
    struct tl_law_entry *laws;
    size_t nlaws;
    int *pair_law;         /* per material pair: the entry that sets its law, -1 = none */
    tl_rng rng;            /* lattice jitter */
    char *dir;             /* the scene file's directory ("." for none): files are relative to it */
    bool allow_outside;    /* allow_outside_paths: files may lie outside dir */
    double density[TL_LOAD_MAX_MATERIALS]; /* per material, kg/m3 (0 = not given) */
    tl_yval *inflow_at;    /* per inflow: its material key, for messages */
    /* a second pass: the first found that inflows need a shorter step or skin */
    bool forced;           /* this is the second pass */
    bool reload;           /* set by the first pass: load again with forced_dt, forced_skin */
    double forced_dt, forced_skin; /* s, m; 0 = as the scene says */
} tl_loader;

/* Writes "out of memory" and marks the status; returns -1. */
int tl_load_out_of_memory(tl_loader *L);
/* A material by name ("any" too when allow_any: *out = -1). */
int tl_load_material(tl_loader *L, const tl_yval *v, bool allow_any, int *out);
/* The required `material` key of a mapping. */
int tl_load_material_key(tl_loader *L, const tl_yval *map, int *material);
char *tl_load_copy_string(const char *s);
/* The path of a file the scene names at `at` (name its text), relative to
 * the scene's folder; refused (naming the key, not showing the file) when it
 * leaves that folder (absolute, "..", or a link out of it) unless the scene
 * sets allow_outside_paths: true. *outside tells whether it does leave
 * (NULL: not wanted). *out is malloc'd. */
int tl_load_path(tl_loader *L, const tl_yval *at, const char *name, char **out, bool *outside);

/* The `shapes:` mapping (scene_shapes.c): each shape added to the world. */
int tl_load_shapes(tl_loader *L);
/* A shape by name; *out its index. */
int tl_load_shape(tl_loader *L, const tl_yval *v, int *out);
/* The names of tl_scene_names' tables "shape", "shape.kind", "shape.mesh", "shape.units",
 * "shape.contact_radius", "shape.contact_depth" (scene_shapes.c) and "particle"
 * (scene_particles.c): the count, 0 for a table they do not hold. */
size_t tl_load_shape_names(const char *table, const char *const **names);
size_t tl_load_particle_names(const char *table, const char *const **names);
/* A quaternion [w, x, y, z] (normalised), or `random` where random is not NULL. */
int tl_load_orientation(tl_loader *L, const tl_yval *v, tl_quat *q, bool *random);
/* The body of an entry: `radius` (a sphere; required when radius_required) or
 * `shape` (then pd->radius is its bounding radius), and `orientation`.
 * random_orientation (NULL where an entry places one body) is set for shapes
 * unless a fixed orientation is given. */
int tl_load_body(tl_loader *L, const tl_yval *map, tl_particle_def *pd, bool radius_required,
                 bool *random_orientation);

/* The `particles:` sequence: every entry is added to the world; inflows
 * become the scene's inflows. Walls must be read before. */
int tl_load_particles(tl_loader *L);

/* After the world is complete and before it is prepared: checks that
 * every pair an inflow's particles can meet has a law, and gives the
 * shortest contact time they can have divided by steps_per_contact
 * (INFINITY without inflows) and their smallest radius. */
int tl_load_inflow_bounds(tl_loader *L, double *dt_bound, double *r_min);

#endif
