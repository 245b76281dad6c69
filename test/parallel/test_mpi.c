/* Distributed runs end in the serial run's bits (issue 15, docs/parallel.md).
 * Run under mpirun with any number of ranks: every rank builds the same world and
 * spreads it over the ranks; rank 0 also runs it serially in the same process, and
 * the gathered particles (id, position, velocity, spin, force, torque), the energy
 * ledger and the walls' reactions must agree bit for bit. Reaches into the engine
 * for the domain size (small domains: several per rank, many cross-rank pairs).
 *
 *   test_mpi THREADS   (each rank's threads) */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "talus/talus.h"
#include "steady_lanes.h"
#include "world_probe.h"

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}
static double urand(uint64_t *s) { return (double)lcg(s) * 0x1.0p-53; }

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ULL;
    }
    return h;
}

typedef struct config {
    const char *name;
    bool periodic;     /* periodic x and y above a floor (particles wrap), else a box of walls */
    int reorder_every; /* 0: every 20 builds */
    size_t domain;     /* particles per domain */
    int steps;
    tl_integrator integrator;
    bool lean;         /* no energy, no collision log, one radius, leapfrog: the steady contacts go
                        * four at a time (steady_lanes.h) where the CPU has AVX2 */
    bool spins;        /* rolling epsd and twisting sds: torques across the ranks (out_m) */
} config;

enum { NX = 15, NY = 15, NZ = 8 }; /* 1800 spheres */
static const double SPACING = 0.0021, RMIN = 0.0005, RMAX = 0.001;

static tl_world *make(const config *c, int threads) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.track_energy = !c->lean;
    wd.reorder_every = c->reorder_every;
    wd.integrator = c->integrator;
    wd.threads = threads;
    const double lx = NX * SPACING, ly = NY * SPACING, lz = NZ * SPACING;
    if (c->periodic) {
        wd.has_domain = true;
        wd.domain_min = (tl_vec3){0, 0, -0.01};
        wd.domain_max = (tl_vec3){lx, ly, 0.2};
        wd.periodic[0] = wd.periodic[1] = true;
    }
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return NULL;
    tl_probe_set_domain_size(w, c->domain);
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
    if (c->spins) {
        law.rolling = "epsd";
        tl_law_set(&law, "mu_r", 0.1);
        tl_law_set(&law, "eta_r", 0.3);
        law.twisting = "sds";
        tl_law_set(&law, "k_twist", 1e-6);
        tl_law_set(&law, "gamma_twist", 1e-10);
        tl_law_set(&law, "mu_twist", 1e-4);
    }
    tl_world_set_law(w, m, m, &law);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    if (c->periodic) {
        /* a floor turning to and fro about its normal by 0.2 rad, period 4 ms (a turning wall:
         * its reach over the ranks' particles sets the rebuilds; its sliding drags the bed) */
        wl.kind = TL_WALL_PLANE;
        wl.point = (tl_vec3){0, 0, 0};
        wl.normal = (tl_vec3){0, 0, 1};
        wl.motion = (tl_motion_def){TL_MOTION_ROCK, {0, 0, 1}, {0.5 * lx, 0.5 * ly, 0}, 0.0, 0.2, 0.004, 0.0};
    } else {
        wl.kind = TL_WALL_BOX;
        wl.box_min = (tl_vec3){0, 0, 0};
        wl.box_max = (tl_vec3){lx, ly, lz + SPACING};
    }
    tl_world_add_wall(w, &wl, NULL);
    if (!c->periodic) {
        /* a lid under a servo pressing down with 0.05 N (the walls' reaction, summed over the
         * ranks, sets its speed every step) */
        tl_wall_def lid = tl_wall_default();
        lid.material = m;
        lid.kind = TL_WALL_PLANE;
        lid.point = (tl_vec3){0, 0, lz + 0.5 * SPACING};
        lid.normal = (tl_vec3){0, 0, -1};
        int k;
        tl_world_add_wall(w, &lid, &k);
        tl_servo_def sv = {true, {0, 0, -1}, 0.05, 0.2, 0.05};
        if (tl_world_set_wall_servo(w, k, &sv) != TL_OK) return NULL;
    }
    uint64_t seed = 2024;
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                pd.radius = RMIN + (RMAX - RMIN) * urand(&seed);
                if (c->lean) pd.radius = 0.5 * (RMIN + RMAX);
                double jit = 0.5 * SPACING - pd.radius - 1e-6;
                pd.position = (tl_vec3){(i + 0.5) * SPACING + jit * (2.0 * urand(&seed) - 1.0),
                                        (j + 0.5) * SPACING + jit * (2.0 * urand(&seed) - 1.0),
                                        (k + 0.5) * SPACING + jit * (2.0 * urand(&seed) - 1.0)};
                /* fast sideways: along the periodic axes they cross the period */
                double vs = c->periodic ? 3.0 : 0.5;
                pd.velocity = (tl_vec3){vs * (urand(&seed) - 0.5), vs * (urand(&seed) - 0.5), urand(&seed) - 0.5};
                pd.angular_velocity = (tl_vec3){200.0 * (urand(&seed) - 0.5), 200.0 * (urand(&seed) - 0.5),
                                                200.0 * (urand(&seed) - 0.5)};
                /* the periodic bed: some of the bottom layer fixed, some driven sideways (their
                 * work on the others is booked as boundary work, summed over the ranks) */
                pd.flags = 0;
                if (c->periodic && k == 0 && (i + j) % 7 == 0) pd.flags = TL_PARTICLE_FIXED;
                if (c->periodic && k == 0 && (i + 2 * j) % 11 == 0) {
                    pd.flags = TL_PARTICLE_PRESCRIBED;
                    pd.velocity = (tl_vec3){0.05, 0, 0};
                    pd.angular_velocity = (tl_vec3){0, 0, 0};
                }
                uint32_t id;
                tl_world_add_particle(w, &pd, &id);
                /* and every 97th pushed sideways by a constant force (its work across the
                 * period is booked at the wrap, its potential summed over the ranks) */
                if (c->periodic && id % 97 == 5 && !pd.flags)
                    tl_world_set_particle_force(w, id, (tl_vec3){2e-4, 1e-4, 0});
            }
    tl_world_log_collisions(w, !c->lean); /* the collision log: merged from the ranks in the serial order */
    return w;
}

static int cmp_id(const void *a, const void *b) {
    uint32_t x = ((const tl_particle_state *)a)->id, y = ((const tl_particle_state *)b)->id;
    return x < y ? -1 : x > y;
}

/* the hash of the gathered particles (rank 0), the ledger and the walls */
static uint64_t hash(tl_world *w, size_t *count) {
    tl_particle_state *ps;
    size_t n;
    if (tl_world_gather_particles(w, &ps, &n) != TL_OK) return 0;
    uint64_t h = 14695981039346656037ULL;
    if (n) qsort(ps, n, sizeof *ps, cmp_id);
    for (size_t i = 0; i < n; i++) {
        h = fnv(&ps[i].id, sizeof ps[i].id, h);
        h = fnv(&ps[i].position, sizeof ps[i].position, h);
        h = fnv(&ps[i].velocity, sizeof ps[i].velocity, h);
        h = fnv(&ps[i].angular_velocity, sizeof ps[i].angular_velocity, h);
        h = fnv(&ps[i].force, sizeof ps[i].force, h);
        h = fnv(&ps[i].torque, sizeof ps[i].torque, h);
    }
    free(ps);
    *count = n;
    tl_energy e;
    tl_world_energy(w, &e);
    h = fnv(&e, sizeof e, h); /* sums over all ranks */
    for (int k = 0; k < tl_world_wall_count(w); k++) {
        tl_wall_state ws;
        tl_world_get_wall(w, k, &ws);
        h = fnv(&ws.force, sizeof ws.force, h);
    }
    double t = tl_world_time(w);
    h = fnv(&t, sizeof t, h);
    /* the collision log (on ranks: every rank's, merged on rank 0) */
    if (tl_world_collect_collisions(w) != TL_OK) return 0;
    size_t nc = tl_world_collision_count(w);
    const tl_collision *c = tl_world_collisions(w);
    for (size_t k = 0; k < nc; k++) {
        h = fnv(&c[k].id_a, sizeof c[k].id_a, h);
        h = fnv(&c[k].id_b, sizeof c[k].id_b, h);
        double v[7] = {c[k].t_begin, c[k].t_end, c[k].normal_speed_in, c[k].normal_speed_out, c[k].restitution,
                       c[k].max_overlap, c[k].max_normal_force};
        h = fnv(v, sizeof v, h);
    }
    if (count) *count += nc << 32; /* the count of collisions in the high half */
    return h;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    const config cases[] = {
        {"box with a servo lid, predictor-corrector, reordered every 20 builds", false, 0, 250, 400,
         TL_INTEGRATOR_PREDICTOR_CORRECTOR, false, false},
        {"periodic x y, a turning floor, fixed, driven and pushed particles, reordered every 2 builds", true, 2, 200, 400,
         TL_INTEGRATOR_VERLET, false, false},
        {"box with a servo lid, one size, leapfrog, lean (the lanes)", false, 0, 250, 400, TL_INTEGRATOR_LEAPFROG, true,
         false},
        {"box with a servo lid, rolling and twisting resistance", false, 0, 250, 400, TL_INTEGRATOR_VERLET, false,
         true},
    };
    int failed = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        /* half the steps, a checkpoint (the serial state, put together on rank 0), the rest */
        const int half = cases[c].steps / 2;
        tl_world *w = make(&cases[c], threads);
        tl_status s = w ? tl_world_distribute(w) : TL_ERROR_MEMORY;
        if (s == TL_OK) s = tl_world_step(w, half);
        void *state = NULL;
        size_t state_size = 0;
        if (s == TL_OK) s = tl_world_save_state(w, &state, &state_size);
        if (s == TL_OK) s = tl_world_step(w, cases[c].steps - half);
        if (s != TL_OK) {
            fprintf(stderr, "rank %d, %s: %s\n", rank, cases[c].name, w ? tl_world_error(w) : "no world");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        /* the checkpoint, resumed on these ranks: every rank reads the same bytes */
        unsigned long long ssz = state_size;
        MPI_Bcast(&ssz, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        if (rank != 0) state = malloc(ssz ? ssz : 1);
        MPI_Bcast(state, (int)ssz, MPI_BYTE, 0, MPI_COMM_WORLD);
        tl_world *wr = make(&cases[c], threads);
        s = wr ? tl_world_distribute(wr) : TL_ERROR_MEMORY;
        if (s == TL_OK) s = tl_world_load_state(wr, state, (size_t)ssz);
        if (s == TL_OK) s = tl_world_step(wr, cases[c].steps - half);
        if (s != TL_OK) {
            fprintf(stderr, "rank %d, %s, resumed: %s\n", rank, cases[c].name, wr ? tl_world_error(wr) : "no world");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        size_t nr = 0;
        uint64_t hr = hash(wr, &nr);
        tl_world_destroy(wr);
        if (!cases[c].periodic && rank == 0) { /* the lid moved under its servo */
            tl_wall_state lid;
            tl_world_get_wall(w, 1, &lid);
            printf("  the servo lid: moved %.4g m, the particles push it with %.4g N\n", lid.displacement.z,
                   lid.force.z);
            if (!(lid.displacement.z < -1e-5)) failed = 1;
        }
        tl_energy en;
        tl_world_energy(w, &en); /* collective */
        if (cases[c].periodic && rank == 0) { /* the boundary work is booked */
            printf("  the driven particles and the turning floor did %.4g J of boundary work\n", en.boundary_work);
            if (!(fabs(en.boundary_work) > 0.0)) failed = 1;
        }
        /* the run was spread: each rank owned a share, held ghosts and took in migrants */
        size_t first, own;
        tl_world_owned(w, &first, &own);
        tl_probe pr;
        tl_probe_read(w, &pr);
        unsigned long long mine[3] = {own, tl_world_particle_count(w) - own, pr.arrived}, all[3],
                           least = own;
        MPI_Reduce(mine, all, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(mine, &least, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
        /* the lanes taken exactly where they should be, on every rank */
        int lanes_wrong = pr.lanes_on != (cases[c].lean && tl_lanes_available());
        if (lanes_wrong)
            fprintf(stderr, "rank %d, %s: the lanes %s\n", rank, cases[c].name, pr.lanes_on ? "taken" : "not taken");
        MPI_Allreduce(MPI_IN_PLACE, &lanes_wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        failed |= lanes_wrong;
        /* the far candidates skipped by their gaps on every rank, as in a serial run (the
         * blocks holding ghosts measured from the ghosts' refreshed state): the same bits */
        int no_skip = pr.far_skipped == 0;
        if (no_skip) fprintf(stderr, "rank %d, %s: no far candidate skipped by its gap\n", rank, cases[c].name);
        MPI_Allreduce(MPI_IN_PLACE, &no_skip, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        failed |= no_skip;
        size_t n = 0, n1 = 0;
        uint64_t h = hash(w, &n);
        tl_world_destroy(w);
        if (rank == 0) {
            tl_world *ws = make(&cases[c], threads);
            uint64_t h1 = 0;
            void *sstate = NULL;
            size_t ssize = 0;
            size_t pending = 0, logged = 0;
            if (ws && tl_world_step(ws, half) == TL_OK && tl_world_save_state(ws, &sstate, &ssize) == TL_OK) {
                tl_probe pw;
                tl_probe_read(ws, &pw);
                pending = pw.log_pending;
                logged = tl_world_collision_count(ws);
                if (tl_world_step(ws, cases[c].steps - half) == TL_OK) h1 = hash(ws, &n1);
            }
            printf("  the collision log: %zu collisions logged, %zu pending, at the checkpoint; %zu at the end\n",
                   logged, pending, n1 >> 32);
            /* the log must have something to compare */
            if (!cases[c].lean && (logged == 0 || (n1 >> 32) <= logged)) failed = 1;
            tl_world_destroy(ws);
            bool same_state = sstate && ssize == ssz && memcmp(sstate, state, ssize) == 0;
            printf("  the checkpoint at step %d: %zu bytes, %s the serial run's; resumed on %d ranks: %016llx, %s\n",
                   half, (size_t)ssz, same_state ? "identical to" : "DIFFERENT from", size, (unsigned long long)hr,
                   hr == h1 && nr == n1 ? "the same" : "DIFFERENT");
            failed |= !same_state || hr != h1 || nr != n1;
            free(sstate);
            bool same = h == h1 && n == n1 && h1 != 0;
            printf("%s, %d ranks x %d threads: %zu particles, hash %016llx; serial %zu, %016llx: %s\n",
                   cases[c].name, size, threads, n & 0xffffffffu, (unsigned long long)h, n1 & 0xffffffffu,
                   (unsigned long long)h1,
                   same ? "the same" : "DIFFERENT");
            printf("  owned %llu (the least on a rank: %llu), ghosts %llu, migrated %llu\n", all[0], least, all[1],
                   all[2]);
            failed |= !same;
            if (size > 1 && (least == 0 || all[1] == 0 || all[2] == 0)) {
                printf("  not spread over the ranks\n");
                failed = 1;
            }
        }
        free(state);
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failed;
}
