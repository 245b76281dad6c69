/* A hash of a world's complete observable state, for the tests that require
 * two runs to agree bit for bit (checkpoint, restart): every particle in id
 * order (position, velocity, spin, orientation, force, torque), the touching
 * contacts (ids, overlap, forces), the energy terms, the time and step count
 * and the collision log. */
#ifndef TL_TEST_WORLD_HASH_H
#define TL_TEST_WORLD_HASH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "talus/talus.h"

static inline uint64_t tl_test_fnv(const void *p, size_t n, uint64_t h) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static inline int tl_test_cmp_id(const void *a, const void *b) {
    uint32_t x = ((const tl_particle_state *)a)->id, y = ((const tl_particle_state *)b)->id;
    return x < y ? -1 : x > y;
}

static inline uint64_t tl_test_world_hash(tl_world *w) {
    uint64_t h = 14695981039346656037ULL;
    size_t n = tl_world_particle_count(w);
    tl_particle_state *ps = calloc(n ? n : 1, sizeof *ps);
    if (!ps) return 0;
    for (size_t i = 0; i < n; i++) tl_world_particle_at(w, i, &ps[i]);
    qsort(ps, n, sizeof *ps, tl_test_cmp_id);
    for (size_t i = 0; i < n; i++) {
        h = tl_test_fnv(&ps[i].id, sizeof ps[i].id, h);
        h = tl_test_fnv(&ps[i].position, sizeof ps[i].position, h);
        h = tl_test_fnv(&ps[i].velocity, sizeof ps[i].velocity, h);
        h = tl_test_fnv(&ps[i].angular_velocity, sizeof ps[i].angular_velocity, h);
        h = tl_test_fnv(&ps[i].orientation, sizeof ps[i].orientation, h);
        h = tl_test_fnv(&ps[i].force, sizeof ps[i].force, h);
        h = tl_test_fnv(&ps[i].torque, sizeof ps[i].torque, h);
    }
    free(ps);
    size_t nc = tl_world_contact_count(w);
    h = tl_test_fnv(&nc, sizeof nc, h);
    for (size_t i = 0; i < nc; i++) {
        tl_contact_info c;
        if (tl_world_get_contact(w, i, &c) != TL_OK) continue;
        h = tl_test_fnv(&c.id_a, sizeof c.id_a, h);
        h = tl_test_fnv(&c.id_b, sizeof c.id_b, h);
        h = tl_test_fnv(&c.overlap, sizeof c.overlap, h);
        h = tl_test_fnv(&c.normal_force, sizeof c.normal_force, h);
        h = tl_test_fnv(&c.tangential_force, sizeof c.tangential_force, h);
    }
    tl_energy e;
    tl_world_energy(w, &e);
    h = tl_test_fnv(&e, sizeof e, h);
    double t = tl_world_time(w);
    int64_t steps = tl_world_step_count(w);
    h = tl_test_fnv(&t, sizeof t, h);
    h = tl_test_fnv(&steps, sizeof steps, h);
    size_t ncoll = tl_world_collision_count(w);
    h = tl_test_fnv(&ncoll, sizeof ncoll, h);
    const tl_collision *cl = tl_world_collisions(w);
    for (size_t i = 0; i < ncoll; i++) { /* field by field: no padding bytes in the hash */
        const tl_collision *c = &cl[i];
        uint64_t ids[3] = {c->id_a, c->id_b, c->with_wall ? 1u : 0u};
        double v[7] = {c->t_begin, c->t_end, c->normal_speed_in, c->normal_speed_out, c->restitution,
                       c->max_overlap, c->max_normal_force};
        h = tl_test_fnv(ids, sizeof ids, h);
        h = tl_test_fnv(v, sizeof v, h);
    }
    return h;
}

/* The determinism protocol of the bed tests: the world make(threads) builds, run `steps` on
 * 1 thread (h[0]) and on 2 (h[1]), and on 1 thread saved half way, loaded into a fresh world and
 * run to the end (h[2]). Returns the 1-thread world, run, for the caller's other checks (its
 * to destroy), or NULL when a step, the save or the load failed. */
static inline tl_world *tl_test_three_runs(tl_world *(*make)(int threads), int64_t steps, uint64_t h[3]) {
    tl_world *a = make(1), *b = make(2), *c = make(1), *d = make(1);
    void *data = NULL;
    size_t size = 0;
    bool ok = tl_world_step(a, steps) == TL_OK && tl_world_step(b, steps) == TL_OK &&
              tl_world_step(c, steps / 2) == TL_OK && tl_world_save_state(c, &data, &size) == TL_OK &&
              tl_world_load_state(d, data, size) == TL_OK && tl_world_step(d, steps - steps / 2) == TL_OK;
    free(data);
    h[0] = tl_test_world_hash(a);
    h[1] = tl_test_world_hash(b);
    h[2] = tl_test_world_hash(d);
    tl_world_destroy(b);
    tl_world_destroy(c);
    tl_world_destroy(d);
    if (!ok) {
        tl_world_destroy(a);
        return NULL;
    }
    return a;
}

#endif
