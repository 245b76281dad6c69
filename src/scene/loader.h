/*
 * The scene loader's state and the pieces shared by every part of the
 * loader: scene.c (the format, walls, laws, stages, outputs),
 * scene_particles.c (the `particles:` entries) and scene_shapes.c (the
 * `shapes:` mapping). Defined in loader.c. Internal.
 */
#ifndef TL_SCENE_LOADER_H
#define TL_SCENE_LOADER_H

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
char *tl_load_copy_string(const char *s);
/* The path of a file the scene names at `at` (name its text), relative to
 * the scene's folder; refused (naming the key, not showing the file) when it
 * leaves that folder (absolute, "..", or a link out of it) unless the scene
 * sets allow_outside_paths: true. *outside tells whether it does leave
 * (NULL: not wanted). *out is malloc'd. */
int tl_load_path(tl_loader *L, const tl_yval *at, const char *name, char **out, bool *outside);

#endif
