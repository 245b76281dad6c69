/* Checkpoints of a world (tl_world_save_state / tl_world_load_state):
 * N steps straight equal N/2 + save + load into a fresh world + N/2, bit for
 * bit, with the neighbor lists, contact histories, moving walls, periodic
 * axes and the collision log in play; any thread count after the load; a
 * truncated or altered buffer is refused and leaves the world untouched. A world prepared
 * before its particles were added (a scene whose particles come from a data file, as talus
 * bench's) continues the same after a load, into a world built alike or into one with no
 * particles: the load derives the laws of the loaded particles' materials. */
#include <string.h>

#include "talus/talus.h"
#include "setup.h"
#include "test.h"
#include "world_hash.h"

typedef enum { BUILT_WHOLE, PREPARED_BEFORE_PARTICLES, PREPARED_WITHOUT_PARTICLES } build_mode;

/* a periodic box (x, y) with a floor and a slowly rising lid, spheres of two sizes falling */
static tl_world *make_world_as(int threads, bool energy, build_mode mode) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0.0, 0.0, -9.81};
    wd.dt = 2e-5;
    wd.allow_unresolved_contacts = true;
    wd.has_domain = true;
    wd.domain_min = (tl_vec3){0.0, 0.0, -0.01};
    wd.domain_max = (tl_vec3){0.02, 0.02, 0.1};
    wd.periodic[0] = wd.periodic[1] = true;
    wd.threads = threads;
    wd.track_energy = energy;
    wd.reorder_every = 3;
    wd.seed = 7;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return NULL;
    int m = tl_test_material_law(w, "glass", 2500, 5e6, 0.3, 0.5, 0.5);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(w, &wl, NULL); /* floor z = 0 */
    /* a rectangle moving sideways through the bed's top: a moving wall with contacts */
    wl.kind = TL_WALL_RECTANGLE;
    wl.point = (tl_vec3){0.01, 0.01, 0.004};
    wl.normal = (tl_vec3){1.0, 0.0, 0.0};
    wl.axis = (tl_vec3){0.0, 1.0, 0.0};
    wl.half_length = 0.008;
    wl.half_width = 0.003;
    wl.velocity = (tl_vec3){0.05, 0.0, 0.0};
    tl_world_add_wall(w, &wl, NULL);
    if (mode != BUILT_WHOLE && tl_world_prepare(w) != TL_OK) {
        tl_world_destroy(w);
        return NULL;
    }
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    uint64_t r = 12345;
    for (int iz = 0; iz < (mode == PREPARED_WITHOUT_PARTICLES ? 0 : 8); iz++)
        for (int iy = 0; iy < 12; iy++)
            for (int ix = 0; ix < 12; ix++) {
                r = r * 6364136223846793005ULL + 1442695040888963407ULL;
                double u = (double)(r >> 11) / 9007199254740992.0;
                pd.radius = (iz + ix + iy) % 3 ? 0.0005 : 0.0007;
                pd.position = (tl_vec3){0.0008 + 0.00165 * ix + 0.0002 * u,
                                        0.0008 + 0.00165 * iy, 0.0008 + 0.0016 * iz};
                pd.velocity = (tl_vec3){0.05 * (u - 0.5), 0.0, -0.02};
                tl_world_add_particle(w, &pd, NULL);
            }
    tl_world_log_collisions(w, true);
    return w;
}

static tl_world *make_world(int threads, bool energy) { return make_world_as(threads, energy, BUILT_WHOLE); }

/* from: how the saved world was built; into: how the one that loads it was (particles added after
 * tl_world_prepare: the load must derive their laws; it once did not, and the loaded world's
 * contacts pushed with no force) */
static void test_resume_equals_straight(int threads_after, bool energy, build_mode from, build_mode into) {
    const int N = 2400;
    tl_world *a = make_world_as(1, energy, from);
    ENSURE(a != NULL);
    /* a constant external force on one sphere: only the checkpoint can give it to b */
    ENSURE_OK(tl_world_set_particle_force(a, 5, (tl_vec3){1e-4, 0.0, -2e-4}));
    ENSURE_OK(tl_world_step(a, N / 2));
    void *data = NULL;
    size_t size = 0;
    ENSURE_OK(tl_world_save_state(a, &data, &size));
    ENSURE_OK(tl_world_step(a, N / 2));
    uint64_t straight = tl_test_world_hash(a);
    int64_t builds = tl_world_neighbor_builds(a);
    size_t contacts = tl_world_contact_count(a);

    tl_world *b = make_world_as(threads_after, energy, into);
    ENSURE(b != NULL);
    ENSURE_OK(tl_world_load_state(b, data, size));
    ENSURE(tl_world_step_count(b) == N / 2);
    size_t pushing = 0; /* the loaded contacts that push, after one step */
    ENSURE_OK(tl_world_step(b, 1));
    for (size_t k = 0; k < tl_world_contact_count(b); k++) {
        tl_contact_info c;
        if (tl_world_get_contact(b, k, &c) == TL_OK && c.overlap > 0.0 && c.normal_force > 0.0) pushing++;
    }
    ENSURE_OK(tl_world_step(b, N / 2 - 1));
    uint64_t resumed = tl_test_world_hash(b);
    static const char *const how[] = {"built whole", "prepared before its particles", "prepared without particles"};
    fprintf(stderr, "resume (energy %d, %d thread(s) after; saved %s, loaded %s): %zu bytes, %lld builds, %zu "
                    "contacts (%zu pushing after the load), %zu collisions; straight %016llx resumed %016llx\n",
            (int)energy, threads_after, how[from], how[into], size, (long long)builds, contacts, pushing,
            tl_world_collision_count(a), (unsigned long long)straight, (unsigned long long)resumed);
    ENSURE(builds > 3);
    ENSURE(contacts > 100);
    ENSURE(pushing > 100);
    ENSURE(straight == resumed);
    free(data);
    tl_world_destroy(a);
    tl_world_destroy(b);
}

static void test_refusals(void) {
    tl_world *a = make_world(1, true);
    ENSURE_OK(tl_world_step(a, 100));
    void *data = NULL;
    size_t size = 0;
    ENSURE_OK(tl_world_save_state(a, &data, &size));
    tl_world *b = make_world(1, true);
    ENSURE_OK(tl_world_step(b, 10));
    uint64_t before = tl_test_world_hash(b);
    /* truncated anywhere: refused, the world untouched */
    size_t cuts[] = {0, 8, 100, size / 3, size / 2, size - 9, size - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        tl_status s = tl_world_load_state(b, data, cuts[c]);
        ENSURE(s != TL_OK);
        ENSURE(strstr(tl_world_error(b), "checkpoint refused") != NULL);
    }
    /* a particle index altered in the contact list: refused */
    unsigned char *bad = malloc(size + 8);
    memcpy(bad, data, size);
    memcpy(bad + size, data, 8);
    ENSURE(tl_world_load_state(b, bad, size + 8) != TL_OK); /* trailing bytes */
    ENSURE(tl_test_world_hash(b) == before);
    /* structures are written field by field, a bool as a 64-bit 0 or 1: the time-step
     * record's first bool (after magic, format, 7 sizes, fingerprint, time, steps, dt and
     * its 5 doubles: byte 144) must read 0 or 1; 2 is refused, not loaded into a bool */
    memcpy(bad, data, size);
    uint64_t flag;
    memcpy(&flag, bad + 144, sizeof flag);
    ENSURE(flag <= 1);
    flag = 2;
    memcpy(bad + 144, &flag, sizeof flag);
    ENSURE(tl_world_load_state(b, bad, size) != TL_OK);
    ENSURE(strstr(tl_world_error(b), "checkpoint refused") != NULL);
    ENSURE(tl_test_world_hash(b) == before);
    /* another world (a different law) refuses it */
    tl_world_def wd = tl_world_default();
    wd.dt = 1e-6;
    tl_world *c;
    tl_world_create(&wd, &c);
    tl_material_def md = tl_material_default();
    md.name = "steel";
    md.density = 7800;
    md.youngs_modulus = 2e11;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(c, &md, &m);
    tl_law_def law = tl_law_default();
    law.damping = "none";
    tl_law_set(&law, "mu", 0.3);
    ENSURE_OK(tl_world_set_law(c, m, m, &law));
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = 0.001;
    tl_world_add_particle(c, &pd, NULL);
    tl_status s = tl_world_load_state(c, data, size);
    ENSURE(s != TL_OK);
    fprintf(stderr, "foreign world: %s\n", tl_world_error(c));
    ENSURE(strstr(tl_world_error(c), "differ") != NULL);
    /* the untouched world still steps as its twin */
    tl_world *twin = make_world(1, true);
    ENSURE_OK(tl_world_step(twin, 10));
    ENSURE_OK(tl_world_step(b, 50));
    ENSURE_OK(tl_world_step(twin, 50));
    ENSURE(tl_test_world_hash(b) == tl_test_world_hash(twin));
    free(bad);
    free(data);
    tl_world_destroy(a);
    tl_world_destroy(b);
    tl_world_destroy(c);
    tl_world_destroy(twin);
}

/* A serial world's state as one piece and a frame (the pieces of the ranks, one rank): joined,
 * the state's bytes exactly, also in a fresh world of the same definitions; a truncated, foreign
 * or misnumbered piece is refused. */
static void test_pieces(void) {
    tl_world *a = make_world(2, true);
    ENSURE_OK(tl_world_step(a, 150)); /* contacts, wall pairs, some collisions logged */
    void *data = NULL, *piece = NULL, *frame = NULL, *joined = NULL;
    size_t size = 0, ps = 0, fs = 0, js = 0;
    ENSURE_OK(tl_world_save_state(a, &data, &size));
    ENSURE_OK(tl_world_save_piece(a, &piece, &ps));
    ENSURE_OK(tl_world_save_frame(a, &frame, &fs));
    ENSURE(fs < size / 4); /* the frame holds no particle */
    tl_world *b = make_world(1, true);
    ENSURE(tl_world_join_state(b, NULL, 0, NULL, NULL, 0, &joined, &js) == TL_ERROR_ARGUMENT);
    ENSURE_OK(tl_world_prepare(b)); /* the join needs the record layout */
    const void *pv[2] = {piece, piece};
    size_t sz[2] = {ps, ps};
    ENSURE_OK(tl_world_join_state(b, frame, fs, pv, sz, 1, &joined, &js));
    ENSURE(js == size && memcmp(joined, data, size) == 0);
    ENSURE_OK(tl_world_load_state(b, joined, js));
    ENSURE_OK(tl_world_step(a, 60));
    ENSURE_OK(tl_world_step(b, 60));
    ENSURE(tl_test_world_hash(a) == tl_test_world_hash(b));
    free(joined);
    joined = NULL;
    /* refusals: a cut piece, two pieces that both say rank 0, a cut frame */
    size_t cuts[] = {0, 8, 79, ps / 2, ps - 8, ps - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        sz[0] = cuts[c];
        ENSURE(tl_world_join_state(b, frame, fs, pv, sz, 1, &joined, &js) != TL_OK && !joined);
    }
    sz[0] = ps;
    ENSURE(tl_world_join_state(b, frame, fs, pv, sz, 2, &joined, &js) != TL_OK && !joined);
    ENSURE(strstr(tl_world_error(b), "piece 0") != NULL);
    ENSURE(tl_world_join_state(b, frame, fs - 1, pv, sz, 1, &joined, &js) != TL_OK && !joined);
    free(data);
    free(piece);
    free(frame);
    tl_world_destroy(a);
    tl_world_destroy(b);
}

int main(void) {
    test_pieces();
    test_resume_equals_straight(1, true, BUILT_WHOLE, BUILT_WHOLE);
    test_resume_equals_straight(2, false, BUILT_WHOLE, BUILT_WHOLE);
    test_resume_equals_straight(4, true, BUILT_WHOLE, BUILT_WHOLE);
    test_resume_equals_straight(2, false, PREPARED_BEFORE_PARTICLES, PREPARED_BEFORE_PARTICLES);
    test_resume_equals_straight(1, true, PREPARED_BEFORE_PARTICLES, PREPARED_WITHOUT_PARTICLES);
    test_refusals();
    return tl_test_report("test_checkpoint");
}
