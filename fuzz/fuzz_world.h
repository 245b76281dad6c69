/* A small world the fuzz targets share: glass beads (and optionally one
 * shape) above a plane, with a Hertz-Mindlin law. */
#ifndef TALUS_FUZZ_WORLD_H
#define TALUS_FUZZ_WORLD_H

#include "talus/talus.h"

/* NULL on failure; shape < 0: beads only, else one body of that shape too */
static inline tl_world *fuzz_world(int with_shape_of(tl_world *w, int *shape)) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0.0, 0.0, -9.81};
    wd.dt = 1e-5;
    wd.threads = 1;
    tl_world *w = NULL;
    if (tl_world_create(&wd, &w) != TL_OK) return NULL;
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = 2500.0;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.25;
    int m = 0;
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.4);
    tl_wall_def wall = tl_wall_default();
    wall.kind = TL_WALL_PLANE;
    wall.material = 0;
    if (tl_world_add_material(w, &md, &m) != TL_OK || tl_world_set_law(w, 0, 0, &law) != TL_OK ||
        tl_world_add_wall(w, &wall, NULL) != TL_OK) {
        tl_world_destroy(w);
        return NULL;
    }
    for (int i = 0; i < 8; i++) {
        tl_particle_def p = tl_particle_default();
        p.material = 0;
        p.radius = 1e-3;
        p.position = (tl_vec3){0.0021 * (i % 2), 0.0021 * ((i / 2) % 2), 0.00105 + 0.0021 * (i / 4)};
        p.velocity = (tl_vec3){0.01 * (i % 3), -0.01 * (i % 2), -0.05};
        if (tl_world_add_particle(w, &p, NULL) != TL_OK) {
            tl_world_destroy(w);
            return NULL;
        }
    }
    int shape = -1;
    if (with_shape_of && with_shape_of(w, &shape) == 0 && shape >= 0) {
        tl_particle_def p = tl_particle_default();
        p.material = 0;
        p.shape = shape;
        p.position = (tl_vec3){0.01, 0.01, 0.01};
        tl_world_add_particle(w, &p, NULL); /* may be refused: a degenerate body */
    }
    return w;
}

#endif
