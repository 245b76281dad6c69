/* tl_world_particle_arrays: the particle store read in place. The arrays hold
 * what tl_world_particle_at reports, follow the state through steps, their
 * generation changes when particles are added, reordered, removed or loaded,
 * and a block replaced by growth or by a loaded state stays readable (a frozen
 * copy) until it is released. Public API only. */
#include <string.h>

#include "setup.h"
#include "talus/talus.h"
#include "test.h"

/* a 10 x 10 layer of 1 mm beads above a floor; reorder_every as given */
static tl_world *bed(int reorder_every, bool domain) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.reorder_every = reorder_every;
    wd.threads = 1;
    if (domain) {
        wd.has_domain = true;
        wd.domain_min = (tl_vec3){-0.01, -0.01, -0.01};
        wd.domain_max = (tl_vec3){0.03, 0.03, 0.03};
    }
    tl_world *w = NULL;
    if (tl_world_create(&wd, &w) != TL_OK) return NULL;
    int m = tl_test_material_law(w, "glass", 2500, 1e7, 0.25, 0.5, 0.4);
    tl_wall_def floor = tl_wall_default();
    floor.material = m;
    if (m < 0 || tl_world_add_wall(w, &floor, NULL) != TL_OK) return w;
    for (int i = 0; i < 100; i++) {
        tl_particle_def pd = tl_particle_default();
        pd.material = m;
        pd.radius = 1e-3;
        /* in a shuffled order along x, so that a reorder changes it */
        int k = (i * 37) % 100;
        pd.position = (tl_vec3){0.0021 * (k % 10), 0.0021 * (k / 10), 0.0015 + 1e-4 * (k % 3)};
        pd.velocity = (tl_vec3){0.01 * (k % 7), -0.02, 0};
        tl_world_add_particle(w, &pd, NULL);
    }
    return w;
}

/* every array element against tl_world_particle_at */
static int arrays_match(tl_world *w, const tl_particle_arrays *a) {
    if (a->count != tl_world_particle_count(w)) return 0;
    for (size_t i = 0; i < a->count; i++) {
        tl_particle_state s;
        if (tl_world_particle_at(w, i, &s) != TL_OK) return 0;
        const double *x = a->position + 3 * i, *v = a->velocity + 3 * i, *om = a->angular_velocity + 3 * i;
        const double *f = a->force + 3 * i, *t = a->torque + 3 * i, *q = a->orientation + 4 * i;
        if (a->id[i] != s.id || a->material[i] != s.material || a->shape[i] != s.shape ||
            a->flags[i] != s.flags || a->radius[i] != s.radius || a->mass[i] != s.mass)
            return 0;
        if (x[0] != s.position.x || x[1] != s.position.y || x[2] != s.position.z) return 0;
        if (v[0] != s.velocity.x || v[1] != s.velocity.y || v[2] != s.velocity.z) return 0;
        if (om[0] != s.angular_velocity.x || om[1] != s.angular_velocity.y || om[2] != s.angular_velocity.z)
            return 0;
        if (f[0] != s.force.x || f[1] != s.force.y || f[2] != s.force.z) return 0;
        if (t[0] != s.torque.x || t[1] != s.torque.y || t[2] != s.torque.z) return 0;
        if (q[0] != s.orientation.w || q[1] != s.orientation.x || q[2] != s.orientation.y ||
            q[3] != s.orientation.z)
            return 0;
    }
    return 1;
}

/* the arrays are the state: after steps the same pointers hold the new values */
static void test_views_follow_steps(void) {
    tl_world *w = bed(-1, false);
    ENSURE(w != NULL);
    if (!w) return;
    tl_particle_arrays a, b;
    ENSURE_OK(tl_world_particle_arrays(w, &a));
    ENSURE(a.count == 100);
    ENSURE(arrays_match(w, &a));
    double z0 = a.position[2], vz0 = a.velocity[2];
    ENSURE_OK(tl_world_step(w, 20));
    ENSURE_OK(tl_world_particle_arrays(w, &b));
    ENSURE(b.position == a.position && b.velocity == a.velocity && b.count == a.count);
    ENSURE(arrays_match(w, &b));
    /* the first particle falls freely for these 20 steps: v_z = -g t */
    ENSURE(a.position[2] < z0);
    ENSURE_REL(a.velocity[2] - vz0, -9.81 * tl_world_time(w), 1e-12);
    ENSURE(a.force[2] < 0.0); /* its weight */
    tl_world_destroy(w);
}

/* adding particles: the generation changes; once the arrays grow, the old block
 * is kept (its contents frozen) until released, and the bytes come back */
static void test_growth_keeps_old_blocks(void) {
    tl_world *w = bed(-1, false);
    if (!w) return;
    tl_particle_arrays a, b;
    ENSURE_OK(tl_world_particle_arrays(w, &a));
    double saved[300];
    memcpy(saved, a.position, sizeof saved);
    size_t added = 0;
    uint64_t gen = a.generation;
    int monotone = 1;
    do {
        tl_particle_def pd = tl_particle_default();
        pd.radius = 1e-3;
        pd.position = (tl_vec3){0.05 + 0.0021 * (double)added, 0, 0.01};
        ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
        added++;
        ENSURE_OK(tl_world_particle_arrays(w, &b));
        monotone &= b.generation > gen;
        gen = b.generation;
    } while (b.position == a.position && added < 100000);
    ENSURE(monotone);
    ENSURE(b.position != a.position);
    ENSURE(b.count == 100 + added);
    ENSURE(arrays_match(w, &b));
    /* the old block still holds the state at the time it was replaced */
    ENSURE(memcmp(saved, a.position, sizeof saved) == 0);
    size_t before = tl_world_bytes(w);
    tl_world_release_particle_arrays(w, a.generation); /* views of a's generation remain: nothing goes */
    ENSURE(tl_world_bytes(w) == before);
    tl_world_release_particle_arrays(w, b.generation);
    size_t after = tl_world_bytes(w);
    /* the replaced blocks: at least positions, velocities, spins, forces, torques and
     * orientations of the 100 + added - 1 particles they held */
    ENSURE(before - after >= (size_t)(100 + added - 1) * 19 * sizeof(double));
    tl_world_destroy(w);
}

/* steps that rebuild the neighbor lists reorder and drop particles that
 * leave the domain in place: the pointers stay, the generation changes, and
 * the store is not shrunk under the views */
static void test_reorder_and_removal(void) {
    tl_world *w = bed(1, true);
    if (!w) return;
    tl_particle_arrays a, b;
    ENSURE_OK(tl_world_particle_arrays(w, &a));
    uint32_t ids0[100];
    memcpy(ids0, a.id, sizeof ids0);
    ENSURE_OK(tl_world_step(w, 1));
    ENSURE_OK(tl_world_particle_arrays(w, &b));
    ENSURE(b.position == a.position && b.id == a.id);
    ENSURE(b.generation != a.generation);              /* reordered at the first build */
    ENSURE(memcmp(ids0, b.id, sizeof ids0) != 0);
    ENSURE(arrays_match(w, &b));
    /* a particle shot out of the domain is removed at a later build */
    tl_world_set_particle_velocity(w, b.id[0], (tl_vec3){0, 0, 50}, (tl_vec3){0, 0, 0});
    uint64_t g = b.generation;
    ENSURE_OK(tl_world_step(w, 400));
    ENSURE_OK(tl_world_particle_arrays(w, &b));
    ENSURE(tl_world_particles_removed(w) == 1);
    ENSURE(b.count == 99 && b.generation != g && b.position == a.position);
    ENSURE(arrays_match(w, &b));
    tl_world_destroy(w);
}

/* a loaded state replaces the arrays; the replaced ones stay readable */
static void test_load_state(void) {
    tl_world *w = bed(-1, false);
    if (!w) return;
    ENSURE_OK(tl_world_step(w, 5));
    void *data = NULL;
    size_t size = 0;
    ENSURE_OK(tl_world_save_state(w, &data, &size));
    tl_particle_arrays a, b;
    ENSURE_OK(tl_world_particle_arrays(w, &a));
    double x5 = a.position[2];
    ENSURE_OK(tl_world_step(w, 5));
    double x10 = a.position[2];
    ENSURE(x10 != x5);
    ENSURE_OK(tl_world_load_state(w, data, size));
    ENSURE_OK(tl_world_particle_arrays(w, &b));
    ENSURE(b.generation > a.generation && b.position != a.position);
    ENSURE(b.position[2] == x5);
    ENSURE(a.position[2] == x10); /* the replaced block, frozen */
    ENSURE(arrays_match(w, &b));
    free(data);
    tl_world_destroy(w);
}

int main(void) {
    test_views_follow_steps();
    test_growth_keeps_old_blocks();
    test_reorder_and_removal();
    test_load_state();
    return tl_test_report("test_particle_arrays");
}
