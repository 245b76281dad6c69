/* The sphere path is unchanged by the arrival of other shapes: sphere-only
 * scenes must end bit for bit where the engine before shapes (commit
 * 5963edf) ended them. The hashes below were recorded with that engine; this
 * test recomputes them. It hashes what the trajectories are made of (every
 * particle's position, velocity, spin, orientation, force and torque in id
 * order, and each touching contact's overlap and forces), not the energy
 * ledger, whose bookkeeping may change without moving a particle.
 *
 * A hash mismatch means the sphere arithmetic changed: find out why before
 * recording new values (and then say so in the commit). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}
static double urand(uint64_t *s) { return (double)lcg(s) * 0x1.0p-53; }

static uint64_t trajectory_hash(tl_world *w, uint32_t n) {
    uint64_t h = 14695981039346656037ULL;
    for (uint32_t id = 1; id <= n; id++) {
        tl_particle_state p;
        if (tl_world_get_particle(w, id, &p) != TL_OK) {
            h = fnv(h, &id, sizeof id);
            continue;
        }
        const double v[] = {p.position.x,         p.position.y,         p.position.z,
                            p.velocity.x,         p.velocity.y,         p.velocity.z,
                            p.angular_velocity.x, p.angular_velocity.y, p.angular_velocity.z,
                            p.orientation.w,      p.orientation.x,      p.orientation.y,
                            p.orientation.z,      p.force.x,            p.force.y,
                            p.force.z,            p.torque.x,           p.torque.y,
                            p.torque.z};
        h = fnv(h, v, sizeof v);
    }
    size_t nc = tl_world_contact_count(w);
    h = fnv(h, &nc, sizeof nc);
    for (size_t k = 0; k < nc; k++) {
        tl_contact_info c;
        if (tl_world_get_contact(w, k, &c) != TL_OK) continue;
        const double v[] = {(double)c.id_a,         (double)c.id_b,         c.with_wall ? 1.0 : 0.0,
                            c.overlap,              c.normal_force,         c.tangential_force.x,
                            c.tangential_force.y,   c.tangential_force.z};
        h = fnv(h, v, sizeof v);
    }
    return h;
}

typedef struct scene {
    const char *name;
    tl_integrator integrator;
    bool energy, orientation, log;
    int threads, steps;
    uint64_t expected;
} scene;

static uint64_t run(const scene *sc, uint32_t *count) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0.3, -0.2, -9.81};
    wd.integrator = sc->integrator;
    wd.track_energy = sc->energy;
    wd.track_orientation = sc->orientation;
    wd.threads = sc->threads;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return 0;
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = 2500;
    md.youngs_modulus = 5e6;
    md.poisson_ratio = 0.25;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default(); /* hertz + tsuji + mindlin, true history */
    tl_law_set(&law, "e", 0.6);
    tl_law_set(&law, "mu", 0.4);
    tl_world_set_law(w, m, m, &law);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.kind = TL_WALL_BOX;
    wl.box_min = (tl_vec3){0, 0, 0};
    wl.box_max = (tl_vec3){0.02, 0.02, 0.05};
    tl_world_add_wall(w, &wl, NULL);
    tl_wall_def tilt = tl_wall_default();
    tilt.material = m;
    tilt.kind = TL_WALL_PLANE;
    tilt.point = (tl_vec3){0, 0, 0.002};
    tilt.normal = (tl_vec3){0.2, 0.1, 1.0};
    tl_world_add_wall(w, &tilt, NULL);
    uint64_t seed = 77;
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    uint32_t n = 0;
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 7; j++)
            for (int i = 0; i < 7; i++) {
                pd.radius = 0.0007 + 0.0006 * urand(&seed);
                pd.position = (tl_vec3){0.0015 + i * 0.0027 + 0.0003 * urand(&seed),
                                        0.0015 + j * 0.0027 + 0.0003 * urand(&seed),
                                        0.004 + k * 0.0028};
                pd.velocity = (tl_vec3){urand(&seed) - 0.5, urand(&seed) - 0.5, -urand(&seed)};
                pd.angular_velocity = (tl_vec3){100 * (urand(&seed) - 0.5), 100 * (urand(&seed) - 0.5),
                                                100 * (urand(&seed) - 0.5)};
                tl_world_add_particle(w, &pd, NULL);
                n++;
            }
    tl_world_log_collisions(w, sc->log);
    tl_status st = tl_world_step(w, sc->steps);
    if (st != TL_OK) fprintf(stderr, "%s: %s\n", sc->name, tl_world_error(w));
    *count = (uint32_t)tl_world_contact_count(w);
    uint64_t h = st == TL_OK ? trajectory_hash(w, n) : 0;
    tl_world_destroy(w);
    return h;
}

int main(int argc, char **argv) {
    const scene scenes[] = {
        {"verlet, lean", TL_INTEGRATOR_VERLET, false, false, false, 1, 8000, 0x68a322e6fd069b7eULL},
        {"verlet, energy, orientation, log, 2 threads", TL_INTEGRATOR_VERLET, true, true, true, 2, 8000, 0x2e72e1acbd3b3d72ULL},
        {"leapfrog, energy", TL_INTEGRATOR_LEAPFROG, true, true, false, 1, 8000, 0x1463184726d23bb1ULL},
        {"predictor-corrector", TL_INTEGRATOR_PREDICTOR_CORRECTOR, true, true, false, 1, 4000, 0x123e34c04ed253feULL},
    };
    bool record = argc > 1 && strcmp(argv[1], "--record") == 0;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        uint32_t contacts = 0;
        uint64_t h = run(&scenes[k], &contacts);
        fprintf(stderr, "%-48s %u contacts, hash 0x%016llxULL\n", scenes[k].name, contacts,
                (unsigned long long)h);
        ENSURE(contacts > 100); /* the scene has a settled bed to hash */
        if (!record) ENSURE(h == scenes[k].expected);
    }
    return tl_test_report("test_sphere_identity");
}
