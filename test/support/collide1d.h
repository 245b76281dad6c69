/* A head-on collision of a sphere with a wall or with an identical sphere,
 * run through the public API, for the law tests. Header-only helper. */
#ifndef TL_TEST_COLLIDE1D_H
#define TL_TEST_COLLIDE1D_H

#include <math.h>
#include <string.h>

#include "talus/talus.h"

typedef struct c1d_case {
    tl_material_def mat;
    tl_law_def law;
    double radius;
    double speed;      /* approach speed, m/s */
    double dt;         /* s */
    int wall;          /* sphere on a wall (else two identical spheres, one at rest) */
    double phase;      /* fraction of a step at which the contact starts */
} c1d_case;

typedef struct c1d_result {
    int ok;
    double e;           /* separation / approach speed */
    double duration;    /* s */
    double max_overlap, max_force;
    double diss_normal, diss_plastic;
    double energy_in, energy_error;
    size_t collisions;
} c1d_result;

static inline c1d_result c1d_run(const c1d_case *cc) {
    c1d_result r;
    memset(&r, 0, sizeof r);
    tl_world_def wd = tl_world_default();
    wd.blowup_overlap = 0.0; /* the 1D model cases go as deep as their law takes them */
    wd.dt = cc->dt;
    wd.allow_unresolved_contacts = true;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return r;
    int m;
    if (tl_world_add_material(w, &cc->mat, &m) != TL_OK || tl_world_set_law(w, m, m, &cc->law) != TL_OK) {
        fprintf(stderr, "c1d: %s\n", tl_world_error(w));
        tl_world_destroy(w);
        return r;
    }
    double R = cc->radius, gap = cc->speed * cc->dt * (3.0 + cc->phase);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    if (cc->wall) {
        tl_wall_def wl = tl_wall_default();
        wl.material = m;
        tl_world_add_wall(w, &wl, NULL);
        pd.position = (tl_vec3){0, 0, R + gap};
        pd.velocity = (tl_vec3){0, 0, -cc->speed};
        tl_world_add_particle(w, &pd, NULL);
    } else {
        pd.position = (tl_vec3){0, 0, 0};
        tl_world_add_particle(w, &pd, NULL);
        pd.position = (tl_vec3){0, 0, 2.0 * R + gap};
        pd.velocity = (tl_vec3){0, 0, -cc->speed};
        tl_world_add_particle(w, &pd, NULL);
    }
    tl_world_log_collisions(w, true);
    if (tl_world_prepare(w) != TL_OK) {
        fprintf(stderr, "c1d: %s\n", tl_world_error(w));
        tl_world_destroy(w);
        return r;
    }
    tl_energy e0, e1;
    tl_world_energy(w, &e0);
    r.energy_in = e0.kinetic_translational;
    int64_t limit = 100000000;
    bool touched = false;
    for (int64_t s = 0; s < limit; s++) {
        if (tl_world_step(w, 1) != TL_OK) {
            fprintf(stderr, "c1d: %s\n", tl_world_error(w));
            break;
        }
        size_t nc = tl_world_contact_count(w);
        if (nc) {
            touched = true;
            tl_contact_info ci;
            tl_world_get_contact(w, 0, &ci);
            if (ci.overlap > r.max_overlap) r.max_overlap = ci.overlap;
            if (ci.normal_force > r.max_force) r.max_force = ci.normal_force;
        }
        if (touched && tl_world_collision_count(w) > 0) break;
    }
    r.collisions = tl_world_collision_count(w);
    if (r.collisions) {
        const tl_collision *c = tl_world_collisions(w);
        r.e = c[0].restitution;
        r.duration = c[0].t_end - c[0].t_begin;
        r.ok = 1;
    }
    tl_world_energy(w, &e1);
    r.diss_normal = e1.dissipated_normal;
    r.diss_plastic = e1.dissipated_plastic;
    r.energy_error = e1.total - e0.total;
    tl_world_destroy(w);
    return r;
}

#endif
