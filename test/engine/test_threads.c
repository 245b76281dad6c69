/* Determinism across thread counts: a polydisperse bed of 3150 spheres (radii
 * 0.5-1 mm, fast random motion and spin, gravity) in a box of walls, and one
 * periodic in x and y above a floor, run for 150 steps (neighbor lists rebuilt
 * about every 5 steps, contacts opening and closing) on 1, 2 and 4 threads must end in bit-identical states: positions,
 * velocities, spins, orientations, forces and torques of every particle,
 * the wall forces, the energy terms, the contacts with their history, and
 * the collision log. Both integrators, with and without the energy ledger
 * (without it steady contacts take the lean path), reordering at every
 * build, the collision log, and a thread count changed between calls. The
 * lean path must also equal the general path (w->knobs.no_fast_path) bit for bit.
 * With fewer cores than threads OpenMP oversubscribes; the results must not
 * change. Reaches into src/ (world.h) for the no_fast_path switch. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parallel.h"
#include "talus/talus.h"
#include "test.h"
#include "steady_lanes.h"
#include "world_probe.h"

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}
static double urand(uint64_t *s) { return (double)lcg(s) * 0x1.0p-53; }

/* ---- FNV-1a over raw bytes ---- */

typedef struct hasher {
    uint64_t h;
} hasher;
static void hash_bytes(hasher *hs, const void *data, size_t n) {
    const unsigned char *b = data;
    for (size_t k = 0; k < n; k++) hs->h = (hs->h ^ b[k]) * 1099511628211ULL;
}
static void hash_double(hasher *hs, double v) { hash_bytes(hs, &v, sizeof v); }
static void hash_vec(hasher *hs, tl_vec3 v) {
    hash_double(hs, v.x);
    hash_double(hs, v.y);
    hash_double(hs, v.z);
}

typedef struct contact_row {
    uint64_t key;
    double v[40];
    int nv;
} contact_row;

static int cmp_row(const void *a, const void *b) {
    uint64_t x = ((const contact_row *)a)->key, y = ((const contact_row *)b)->key;
    return x < y ? -1 : x > y;
}

/* The complete state in id order; contacts sorted by key. */
static uint64_t state_hash(tl_world *w, uint32_t nids) {
    hasher hs = {1469598103934665603ULL};
    for (uint32_t id = 1; id <= nids; id++) {
        tl_particle_state p;
        tl_status st = tl_world_get_particle(w, id, &p);
        hash_bytes(&hs, &st, sizeof st);
        if (st != TL_OK) continue;
        hash_vec(&hs, p.position);
        hash_vec(&hs, p.velocity);
        hash_vec(&hs, p.angular_velocity);
        hash_double(&hs, p.orientation.w);
        hash_double(&hs, p.orientation.x);
        hash_double(&hs, p.orientation.y);
        hash_double(&hs, p.orientation.z);
        hash_vec(&hs, p.force);
        hash_vec(&hs, p.torque);
    }
    for (int k = 0; k < tl_world_wall_count(w); k++) {
        tl_wall_state ws;
        tl_world_get_wall(w, k, &ws);
        hash_vec(&hs, ws.force);
    }
    tl_energy e;
    tl_world_energy(w, &e);
    const double terms[] = {e.kinetic_translational, e.kinetic_rotational, e.potential,
                            e.elastic_normal, e.elastic_tangential, e.dissipated_normal,
                            e.dissipated_plastic, e.dissipated_tangential_damping,
                            e.dissipated_friction, e.boundary_work, e.total};
    hash_bytes(&hs, terms, sizeof terms);
    size_t nc = tl_world_contact_count(w);
    hash_bytes(&hs, &nc, sizeof nc);
    contact_row *rows = calloc(nc + 1, sizeof *rows);
    size_t got = 0;
    for (size_t k = 0; k < nc; k++) {
        tl_contact_info ci;
        if (tl_world_get_contact(w, k, &ci) != TL_OK) break;
        contact_row *r = &rows[got++];
        if (ci.with_wall)
            r->key = (1ULL << 63) | ((uint64_t)ci.id_a << 24) | ci.id_b;
        else
            r->key = ci.id_a < ci.id_b ? ((uint64_t)ci.id_a << 32) | ci.id_b
                                       : ((uint64_t)ci.id_b << 32) | ci.id_a;
        int n = 0;
        r->v[n++] = ci.overlap;
        r->v[n++] = ci.normal_force;
        r->v[n++] = ci.normal_damping_force;
        r->v[n++] = ci.tangential_force.x;
        r->v[n++] = ci.tangential_force.y;
        r->v[n++] = ci.tangential_force.z;
        r->v[n++] = ci.normal.x;
        r->v[n++] = ci.normal.y;
        r->v[n++] = ci.normal.z;
        r->v[n++] = ci.sliding ? 1.0 : 0.0;
        r->v[n++] = (double)ci.id_a; /* which side is a */
        for (int q = 0; q < ci.history_count && n < 40; q++) r->v[n++] = ci.history[q];
        r->nv = n;
    }
    hash_bytes(&hs, &got, sizeof got);
    qsort(rows, got, sizeof *rows, cmp_row);
    for (size_t k = 0; k < got; k++) {
        hash_bytes(&hs, &rows[k].key, sizeof rows[k].key);
        hash_bytes(&hs, rows[k].v, (size_t)rows[k].nv * sizeof(double));
    }
    free(rows);
    size_t ncoll = tl_world_collision_count(w);
    hash_bytes(&hs, &ncoll, sizeof ncoll);
    const tl_collision *cl = tl_world_collisions(w);
    for (size_t k = 0; k < ncoll; k++) {
        const double v[] = {(double)cl[k].id_a,       (double)cl[k].id_b,     cl[k].with_wall ? 1.0 : 0.0,
                            cl[k].t_begin,            cl[k].t_end,            cl[k].normal_speed_in,
                            cl[k].normal_speed_out,   cl[k].restitution,      cl[k].max_overlap,
                            cl[k].max_normal_force};
        hash_bytes(&hs, v, sizeof v);
    }
    return hs.h;
}

/* ---- the scenarios ---- */

typedef struct config {
    const char *name;
    bool periodic;       /* periodic x, y above a floor; else a box of walls */
    tl_integrator integrator;
    bool energy;         /* track_energy (false: the lean path) */
    int reorder_every;
    bool log;            /* the collision log */
    int steps;
    bool extra;          /* also a thread count changed between calls, and the general path
                          * on 4 threads */
    size_t domain;       /* particles per domain of the contact stage (0: the default, which
                          * makes one domain of these 3150 particles; small ones make many
                          * cross-domain candidates) */
    bool mono;           /* one radius: the lean path's steady contacts go four or eight at a
                          * time (steady_lanes.h) where the CPU has AVX2 or AVX-512 */
    tl_coulomb_test coulomb;
    bool add_other;      /* after the first third of the steps, a sphere of another radius is
                          * added: the bed is no longer of one size (the lanes must stop) */
} config;

typedef struct outcome {
    uint64_t hash;
    int64_t builds;
    size_t contacts, collisions, removed;
    double dt;
    tl_status status;
    bool lanes; /* the last contact stage ran the steady contacts in lanes */
    unsigned lanes_width; /* how many */
    uint64_t skipped;     /* far candidates skipped by their gap */
} outcome;

enum { NX = 15, NY = 15, NZ = 14 }; /* 3150 spheres */
static const double SPACING = 0.0021, RMIN = 0.0005, RMAX = 0.001;

enum { LANES_WIDEST = 0, LANES_OFF = 1, LANES_FOUR = 4, GAPS_OFF = 8 };

/* threads: the thread count of each chunk of steps (chunks of steps / 3); lanes: LANES_*, or
 * GAPS_OFF: every far candidate through the distance test (none skipped by its gap) */
static outcome run(const config *c, const int threads[3], bool no_fast_path, bool set_after, int lanes) {
    outcome o;
    memset(&o, 0, sizeof o);
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.integrator = c->integrator;
    wd.track_energy = c->energy;
    wd.reorder_every = c->reorder_every;
    wd.threads = set_after ? 1 : threads[0];
    const double lx = NX * SPACING, ly = NY * SPACING, lz = NZ * SPACING;
    if (c->periodic) {
        wd.has_domain = true;
        wd.domain_min = (tl_vec3){0, 0, -0.01};
        wd.domain_max = (tl_vec3){lx, ly, 0.2};
        wd.periodic[0] = wd.periodic[1] = true;
    }
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) {
        o.status = TL_ERROR_ARGUMENT;
        return o;
    }
    tl_debug_knobs knobs = {.no_fast_path = no_fast_path,
                            .no_lanes = lanes == LANES_OFF,
                            .lanes_width = lanes == LANES_FOUR ? 4 : 0,
                            .no_gap_skip = lanes == GAPS_OFF};
    tl_probe_set_knobs(w, &knobs);
    if (c->domain) tl_probe_set_domain_size(w, c->domain);
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = 2500;
    md.youngs_modulus = 1e6;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default(); /* hertz + tsuji + mindlin, true history */
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.5);
    law.coulomb_test = c->coulomb;
    tl_world_set_law(w, m, m, &law);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    if (c->periodic) {
        wl.kind = TL_WALL_PLANE;
        wl.point = (tl_vec3){0, 0, 0};
        wl.normal = (tl_vec3){0, 0, 1};
    } else {
        wl.kind = TL_WALL_BOX;
        wl.box_min = (tl_vec3){0, 0, 0};
        wl.box_max = (tl_vec3){lx, ly, lz + SPACING};
    }
    tl_world_add_wall(w, &wl, NULL);
    /* a loose random packing: a jittered lattice, radii uniform in [0.5, 1] mm, random
     * velocities of up to 0.5 m/s per axis */
    uint64_t seed = 2024;
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    uint32_t n = 0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                pd.radius = RMIN + (RMAX - RMIN) * urand(&seed);
                if (c->mono) pd.radius = 0.5 * (RMIN + RMAX);
                double jit = 0.5 * SPACING - pd.radius - 1e-6;
                pd.position = (tl_vec3){(i + 0.5) * SPACING + jit * (2.0 * urand(&seed) - 1.0),
                                        (j + 0.5) * SPACING + jit * (2.0 * urand(&seed) - 1.0),
                                        (k + 0.5) * SPACING + jit * (2.0 * urand(&seed) - 1.0)};
                pd.velocity = (tl_vec3){urand(&seed) - 0.5, urand(&seed) - 0.5, urand(&seed) - 0.5};
                pd.angular_velocity = (tl_vec3){200.0 * (urand(&seed) - 0.5), 200.0 * (urand(&seed) - 0.5),
                                                200.0 * (urand(&seed) - 0.5)};
                tl_world_add_particle(w, &pd, NULL);
                n++;
            }
    tl_world_log_collisions(w, c->log);
    for (int chunk = 0; chunk < 3 && o.status == TL_OK; chunk++) {
        if (c->add_other && chunk == 1) {
            /* a larger sphere dropped onto the bed from just above it, where it touches soon */
            pd.radius = 1.4 * RMAX;
            pd.position = (tl_vec3){0.5 * lx, 0.5 * ly, (NZ + 0.5) * SPACING + pd.radius};
            pd.velocity = (tl_vec3){0.0, 0.0, -1.0};
            pd.angular_velocity = (tl_vec3){0.0, 0.0, 0.0};
            o.status = tl_world_add_particle(w, &pd, NULL);
            n++;
        }
        if (o.status == TL_OK && (set_after || chunk > 0)) o.status = tl_world_set_threads(w, threads[chunk]);
        if (o.status == TL_OK) o.status = tl_world_step(w, c->steps / 3);
    }
    if (o.status != TL_OK) fprintf(stderr, "%s: %s\n", c->name, tl_world_error(w));
    o.hash = state_hash(w, n);
    o.builds = tl_world_neighbor_builds(w);
    o.contacts = tl_world_contact_count(w);
    o.collisions = tl_world_collision_count(w);
    o.removed = tl_world_particles_removed(w);
    o.dt = tl_world_dt(w);
    tl_probe pr;
    tl_probe_read(w, &pr);
    o.lanes = pr.lanes_on;
    o.lanes_width = pr.lanes_width_on;
    o.skipped = pr.far_skipped;
    tl_world_destroy(w);
    return o;
}

static void check_config(const config *c) {
    static const int one[3] = {1, 1, 1}, two[3] = {2, 2, 2}, four[3] = {4, 4, 4}, mixed[3] = {4, 1, 2};
    outcome o1 = run(c, one, false, false, LANES_WIDEST);
    outcome o2 = run(c, two, false, false, LANES_WIDEST);
    outcome o4 = run(c, four, false, true, LANES_WIDEST);
    outcome om = c->extra ? run(c, mixed, false, false, LANES_WIDEST) : o1;
    ENSURE(o1.status == TL_OK && o2.status == TL_OK && o4.status == TL_OK && om.status == TL_OK);
    fprintf(stderr,
            "%-44s %d steps of %.3g s: %lld builds, %zu contacts, %zu collisions logged; hash "
            "%016llx (1 thread) %016llx (2) %016llx (4)",
            c->name, c->steps, o1.dt, (long long)o1.builds, o1.contacts, o1.collisions,
            (unsigned long long)o1.hash, (unsigned long long)o2.hash, (unsigned long long)o4.hash);
    if (c->extra) fprintf(stderr, " %016llx (4, 1, 2 in turn)", (unsigned long long)om.hash);
    /* the runs mean something: lists rebuilt, contacts present */
    ENSURE(o1.builds > 5);
    ENSURE(o1.contacts > 100);
    ENSURE(o1.removed == 0);
    if (c->log) ENSURE(o1.collisions > 10); /* contacts opened and closed */
    ENSURE(o2.hash == o1.hash);
    ENSURE(o4.hash == o1.hash);
    ENSURE(om.hash == o1.hash);
    ENSURE(o2.builds == o1.builds && o4.builds == o1.builds && o2.contacts == o1.contacts);
    /* the far candidates skipped by their gap: many of them (the spheres fly at up to 0.5 m/s
     * per axis, so the lists are rebuilt every few steps and candidates skipped at one step
     * touch a few steps on), and the results those of every candidate measured */
    outcome n1 = run(c, one, false, false, GAPS_OFF);
    outcome n4 = c->extra ? run(c, four, false, false, GAPS_OFF) : n1;
    fprintf(stderr, "; %llu far candidates skipped; none skipped %016llx (1)", (unsigned long long)o1.skipped,
            (unsigned long long)n1.hash);
    if (c->extra) fprintf(stderr, " %016llx (4)", (unsigned long long)n4.hash);
    ENSURE(o1.skipped > 1000 && o2.skipped == o1.skipped && o4.skipped == o1.skipped);
    ENSURE(n1.skipped == 0 && n4.skipped == 0);
    ENSURE(n1.hash == o1.hash);
    ENSURE(n4.hash == o1.hash);
    if (!c->energy && !c->log) {
        /* the lean path against the general path, serial and threaded */
        outcome g1 = run(c, one, true, false, LANES_WIDEST);
        outcome g4 = c->extra ? run(c, four, true, false, LANES_WIDEST) : g1;
        fprintf(stderr, "; general path %016llx (1)", (unsigned long long)g1.hash);
        if (c->extra) fprintf(stderr, " %016llx (4)", (unsigned long long)g4.hash);
        ENSURE(g1.hash == o1.hash);
        ENSURE(g4.hash == o1.hash);
        ENSURE(!g1.lanes);
    }
    /* the lanes: taken for a bed of one size under leapfrog on the lean path (where the CPU
     * has AVX2), as many as the CPU gives (eight with AVX-512), and their results those of the
     * steady contacts one at a time; where eight are the widest, four give the same too */
    const bool want_lanes = c->mono && !c->add_other && !c->energy && !c->log &&
                            c->integrator == TL_INTEGRATOR_LEAPFROG && tl_lanes_available();
    ENSURE(o1.lanes == want_lanes && o4.lanes == want_lanes);
    if (want_lanes) {
        outcome s1 = run(c, one, false, false, LANES_OFF);
        outcome s4 = run(c, four, false, false, LANES_OFF);
        fprintf(stderr, "; %u lanes; lanes off %016llx (1) %016llx (4)", o1.lanes_width,
                (unsigned long long)s1.hash, (unsigned long long)s4.hash);
        ENSURE(!s1.lanes && !s4.lanes);
        ENSURE(s1.hash == o1.hash);
        ENSURE(s4.hash == o1.hash);
        ENSURE(o1.lanes_width == tl_lanes_width() && o4.lanes_width == tl_lanes_width());
        if (tl_lanes_width() == 8) {
            outcome f1 = run(c, one, false, false, LANES_FOUR);
            outcome f4 = run(c, four, false, false, LANES_FOUR);
            fprintf(stderr, "; four lanes %016llx (1) %016llx (4)", (unsigned long long)f1.hash,
                    (unsigned long long)f4.hash);
            ENSURE(f1.lanes_width == 4 && f4.lanes_width == 4);
            ENSURE(f1.hash == o1.hash);
            ENSURE(f4.hash == o1.hash);
        }
    } else if (c->mono) {
        fprintf(stderr, "; the lanes not taken (%s)",
                !tl_lanes_available()                    ? "no AVX2"
                : c->add_other                           ? "another size added"
                : c->integrator != TL_INTEGRATOR_LEAPFROG ? "not leapfrog"
                                                          : "not lean");
    }
    fprintf(stderr, "\n");
}

int main(int argc, char **argv) {
    (void)argc;
    /* OpenMP threads that spin while they wait cost milliseconds per parallel region when
     * another process holds a core (a loaded CI machine: 2 threads on 2 cores, one of them
     * busy). Results do not depend on it; the running time does. The wait policy is read
     * when the OpenMP runtime starts, so the test restarts itself once with passive waiting
     * unless the caller chose a policy. */
    if (!getenv("OMP_WAIT_POLICY")) {
        setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
        execv("/proc/self/exe", argv);
        /* no /proc: go on with the default policy */
    }
    fprintf(stderr, "threads available: %d, OMP_WAIT_POLICY=%s\n", tl_threads_available(),
            getenv("OMP_WAIT_POLICY"));
    /* 150 steps: the spheres move fast enough that the lists are rebuilt every few steps */
    const config configs[] = {
        {"box, verlet, energy", false, TL_INTEGRATOR_VERLET, true, 0, false, 150, false, 0, false, TL_COULOMB_TOTAL, false},
        {"box, verlet, lean, 7 domains", false, TL_INTEGRATOR_VERLET, false, 0, false, 150, true, 450, false, TL_COULOMB_TOTAL, false},
        {"box, leapfrog, lean, reorder every build, 10 domains", false, TL_INTEGRATOR_LEAPFROG, false, 1, false, 150, false, 300, false, TL_COULOMB_TOTAL, false},
        {"box, leapfrog, energy, collision log, 5 domains", false, TL_INTEGRATOR_LEAPFROG, true, 0, true, 150, false, 600, false, TL_COULOMB_TOTAL, false},
        {"periodic xy, verlet, lean, 7 domains", true, TL_INTEGRATOR_VERLET, false, 0, false, 150, true, 450, false, TL_COULOMB_TOTAL, false},
        {"periodic xy, leapfrog, energy, log, reorder 1, 3 domains", true, TL_INTEGRATOR_LEAPFROG, true, 1, true, 150, false, 1000, false, TL_COULOMB_TOTAL, false},
        /* one size: the lanes, with each Coulomb test */
        {"periodic xy, leapfrog, lean, one size, total", true, TL_INTEGRATOR_LEAPFROG, false, 0, false, 150, true, 450,
         true, TL_COULOMB_TOTAL, false},
        {"box, leapfrog, lean, one size, spring", false, TL_INTEGRATOR_LEAPFROG, false, 1, false, 150, false, 300,
         true, TL_COULOMB_SPRING, false},
        {"periodic xy, leapfrog, lean, one size, spring-capped", true, TL_INTEGRATOR_LEAPFROG, false, 0, false, 150,
         false, 600, true, TL_COULOMB_SPRING_CAPPED, false},
        {"periodic xy, verlet, lean, one size (no lanes)", true, TL_INTEGRATOR_VERLET, false, 0, false, 150, false, 450,
         true, TL_COULOMB_SPRING, false},
        /* one size, then another size added: the lanes run, then stop */
        {"periodic xy, leapfrog, lean, one size, another added", true, TL_INTEGRATOR_LEAPFROG, false, 0, false, 150,
         false, 450, true, TL_COULOMB_TOTAL, true},
    };
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) check_config(&configs[k]);
    return tl_test_report("test_threads");
}
