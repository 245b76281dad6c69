#define _DEFAULT_SOURCE
/* The predictor-corrector integrator (Euler predictor, trapezoidal corrector;
 * Wang et al. 2025, file 002, section 3.6) against closed forms:
 *
 *   - free flight: the parabola is exact (Heun integrates a constant
 *     acceleration exactly);
 *   - a linear spring-dashpot sphere-wall collision: the restitution and the
 *     contact duration of the damped oscillator, worst case over the phase at
 *     which the contact starts, fall about 4x when dt halves (second order);
 *   - an elastic Hertz bounce: restitution 1 and the Hertz duration;
 *   - the energy balance over damped bounces under gravity;
 *   - the same bed on 1, 2 and 4 threads: bit-identical states;
 *   - verlet and leapfrog untouched by the new scheme (their collisions as
 *     before: checked by the restitution they reach).
 */
#include <math.h>
#include <string.h>

#include "talus/talus.h"
#include "setup.h"
#include "test.h"
#include "world_hash.h"

static const double R = 0.001, RHO = 2500.0;

static double sphere_mass(void) { return RHO * 4.0 / 3.0 * M_PI * R * R * R; }

typedef struct bounce_result {
    double e_log, e_vel, duration;
    size_t collisions;
} bounce_result;

/* A sphere hits a wall at speed v (no gravity); the contact starts `phase` of a
 * step after the 3rd step. */
static bounce_result wall_hit(tl_integrator integ, const char *normal, const char *damping, double e,
                              double kn, double E, double v, double dt, double phase, int64_t nsteps) {
    bounce_result r = {NAN, NAN, NAN, 0};
    tl_world_def wd = tl_world_default();
    wd.dt = dt;
    wd.allow_unresolved_contacts = true;
    wd.impact_speed = v;
    wd.integrator = integ;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return r;
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = RHO;
    md.youngs_modulus = E;
    md.poisson_ratio = 0.3;
    md.k_n = kn;
    int m;
    ENSURE_OK(tl_world_add_material(w, &md, &m));
    tl_law_def law = tl_law_default();
    law.normal = normal;
    law.damping = damping;
    law.tangential = "none";
    law.history = "none";
    if (e < 1.0) tl_law_set(&law, "e", e);
    ENSURE_OK(tl_world_set_law(w, m, m, &law));
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    ENSURE_OK(tl_world_add_wall(w, &wl, NULL));
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, R + v * dt * (3.0 + phase)};
    pd.velocity = (tl_vec3){0, 0, -v};
    ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
    tl_world_log_collisions(w, true);
    if (tl_world_step(w, nsteps) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(w));
        tl_world_destroy(w);
        return r;
    }
    r.collisions = tl_world_collision_count(w);
    if (r.collisions >= 1) {
        const tl_collision *c = tl_world_collisions(w);
        r.e_log = c[0].restitution;
        r.duration = c[0].t_end - c[0].t_begin;
    }
    tl_particle_state ps;
    tl_world_particle_at(w, 0, &ps);
    r.e_vel = ps.velocity.z / v;
    tl_world_destroy(w);
    return r;
}

/* free flight under gravity: exact parabola */
static void test_parabola(void) {
    tl_world_def wd = tl_world_default();
    wd.dt = 1e-3;
    wd.gravity = (tl_vec3){0, -9.81, 0};
    wd.integrator = TL_INTEGRATOR_PREDICTOR_CORRECTOR;
    tl_world *w;
    ENSURE_OK(tl_world_create(&wd, &w));
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = RHO;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.3;
    int m;
    ENSURE_OK(tl_world_add_material(w, &md, &m));
    tl_law_def law = tl_law_default();
    law.damping = "none";
    law.tangential = "none";
    law.history = "none";
    ENSURE_OK(tl_world_set_law(w, m, m, &law));
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0.1, 1.0, 0.0};
    pd.velocity = (tl_vec3){0.5, 5.0, -0.2};
    pd.angular_velocity = (tl_vec3){0.0, 0.0, 3.0};
    ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
    tl_status st = tl_world_step(w, 1000);
    if (st != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    ENSURE_OK(st);
    tl_particle_state ps;
    tl_world_particle_at(w, 0, &ps);
    double t = tl_world_time(w);
    ENSURE_NEAR(ps.position.x, 0.1 + 0.5 * t, 1e-12);
    ENSURE_NEAR(ps.position.y, 1.0 + 5.0 * t - 0.5 * 9.81 * t * t, 1e-11);
    ENSURE_NEAR(ps.position.z, -0.2 * t, 1e-12);
    ENSURE_NEAR(ps.velocity.y, 5.0 - 9.81 * t, 1e-11);
    ENSURE_NEAR(ps.angular_velocity.z, 3.0, 1e-14);
    tl_energy en;
    ENSURE_OK(tl_world_energy(w, &en));
    double m0 = RHO * 4.0 / 3.0 * M_PI * R * R * R;
    double e0 = 0.5 * m0 * (0.25 + 25.0 + 0.04) + m0 * 9.81 * 1.0 +
                0.5 * 0.4 * m0 * R * R * 9.0; /* the origin of the potential: y = 0 */
    ENSURE_REL(en.total, e0, 1e-10);
    tl_world_destroy(w);
}

/* worst errors over phases of the contact start */
typedef struct worst {
    double de, dt_c;
} worst;

static worst linear_worst(tl_integrator integ, double steps, double e) {
    const double kn = 1e6, v = 1.0, m = sphere_mass(), k = 0.5 * kn;
    double tc0 = M_PI * sqrt(m / k);
    double b = -log(e) / sqrt(log(e) * log(e) + M_PI * M_PI);
    double tc = tc0 / sqrt(1.0 - b * b);
    double dt = tc0 / steps;
    worst wr = {0.0, 0.0};
    for (int ph = 0; ph < 10; ph++) {
        bounce_result r = wall_hit(integ, "linear", "restitution", e, kn, 1e9, v, dt, 0.05 + 0.1 * ph,
                                   (int64_t)(3.0 * steps) + 20);
        ENSURE(r.collisions == 1);
        wr.de = fmax(wr.de, fmax(fabs(r.e_log - e), fabs(r.e_vel - e)));
        wr.dt_c = fmax(wr.dt_c, fabs(r.duration - tc) / tc);
    }
    return wr;
}

static void test_linear_convergence(void) {
    const double steps[] = {20, 40, 80, 160};
    const double es[] = {0.5, 0.9};
    for (int ie = 0; ie < 2; ie++) {
        worst first = {0, 0}, prev = {0, 0};
        for (int s = 0; s < 4; s++) {
            worst wr = linear_worst(TL_INTEGRATOR_PREDICTOR_CORRECTOR, steps[s], es[ie]);
            fprintf(stderr,
                    "predictor-corrector, linear + restitution e = %.1f, %3.0f steps/contact: "
                    "worst |de| %.3e, worst duration error %.3e",
                    es[ie], steps[s], wr.de, wr.dt_c);
            if (s > 0)
                fprintf(stderr, "  (ratios %.2f, %.2f)", prev.de / wr.de, prev.dt_c / wr.dt_c);
            fprintf(stderr, "\n");
            /* the duration: a factor of about 4 per halving (second order) */
            if (s > 0) ENSURE(prev.dt_c / wr.dt_c > 3.5);
            if (s == 0) first = wr;
            if (s == 1) {
                ENSURE(wr.de < 1e-3);
                ENSURE(wr.dt_c < 2e-3);
            }
            prev = wr;
        }
        /* the restitution error changes sign with the step for some e (e = 0.9 here), so
         * the order is judged over the three halvings: 4^3 = 64 for second order */
        double order_e = log2(first.de / prev.de) / 3.0, order_t = log2(first.dt_c / prev.dt_c) / 3.0;
        fprintf(stderr, "  orders over 20 -> 160 steps: restitution %.2f, duration %.2f\n", order_e,
                order_t);
        ENSURE(order_e > 1.8);
        ENSURE(order_t > 1.9);
    }
}

static void test_hertz_elastic(void) {
    const double E = 1e7, v = 1.0, m = sphere_mass();
    double estar = 1.0 / (2.0 * (1.0 - 0.09) / E);
    double K = 4.0 / 3.0 * estar * sqrt(R);
    double dmax = pow(1.25 * m * v * v / K, 0.4);
    double tc = 0.8 * tgamma(0.4) * tgamma(0.5) / tgamma(0.9) * dmax / v;
    double prev = 0.0;
    const double steps[] = {25, 50, 100};
    for (int s = 0; s < 3; s++) {
        bounce_result r = wall_hit(TL_INTEGRATOR_PREDICTOR_CORRECTOR, "hertz", "none", 1.0, 0.0, E, v,
                                   tc / steps[s], 0.37, (int64_t)(3.0 * steps[s]) + 20);
        double err = fabs(r.e_vel - 1.0);
        fprintf(stderr, "predictor-corrector, elastic hertz, %3.0f steps: |e - 1| %.3e, duration %.3e\n",
                steps[s], err, fabs(r.duration - tc) / tc);
        ENSURE(r.collisions == 1);
        ENSURE(fabs(r.duration - tc) / tc < 2e-2 / (steps[s] / 25.0));
        if (s > 0) ENSURE(prev / err > 3.0);
        prev = err;
    }
}

/* a small bed: damped Hertz-Mindlin contacts with history, gravity, a box */
static uint64_t bed(tl_integrator integ, int threads, int steps, bool energy, double *balance) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.integrator = integ;
    wd.threads = threads;
    wd.track_energy = energy;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return 0;
    int m = tl_test_material_law(w, "glass", 2500, 1e6, 0.3, 0.5, 0.5);
    const int NX = 8, NY = 8, NZ = 8;
    const double S = 0.0021;
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.kind = TL_WALL_BOX;
    wl.box_min = (tl_vec3){0, 0, 0};
    wl.box_max = (tl_vec3){NX * S, NY * S, (NZ + 1) * S};
    tl_world_add_wall(w, &wl, NULL);
    uint64_t seed = 7;
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                double u1 = (double)(seed >> 11) * 0x1.0p-53;
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                double u2 = (double)(seed >> 11) * 0x1.0p-53;
                pd.radius = 0.0005 + 0.0005 * u1;
                pd.position = (tl_vec3){(i + 0.5) * S, (j + 0.5) * S, (k + 0.5) * S};
                pd.velocity = (tl_vec3){u2 - 0.5, 0.5 - u1, u1 - u2};
                pd.angular_velocity = (tl_vec3){100.0 * (u1 - 0.5), 0.0, 100.0 * (u2 - 0.5)};
                tl_world_add_particle(w, &pd, NULL);
            }
    tl_world_log_collisions(w, true);
    tl_energy e0, e1;
    if (tl_world_step(w, 0) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    tl_world_energy(w, &e0);
    if (tl_world_step(w, steps) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    tl_world_energy(w, &e1);
    if (balance) {
        double ref = e0.kinetic_translational + e0.kinetic_rotational;
        *balance = fabs(e1.total - e0.total) / ref;
        fprintf(stderr, "bed, %d steps: %zu contacts, %zu collisions; energy balance error %.2e of the "
                "initial kinetic energy; dissipated %.3g J of %.3g J\n",
                steps, tl_world_contact_count(w), tl_world_collision_count(w), *balance,
                e1.dissipated_normal + e1.dissipated_tangential_damping + e1.dissipated_friction, ref);
    }
    uint64_t h = tl_test_world_hash(w);
    tl_world_destroy(w);
    return h;
}

static void test_threads(void) {
    double bal = 0.0;
    uint64_t h1 = bed(TL_INTEGRATOR_PREDICTOR_CORRECTOR, 1, 1500, true, &bal);
    uint64_t h2 = bed(TL_INTEGRATOR_PREDICTOR_CORRECTOR, 2, 1500, true, NULL);
    uint64_t h4 = bed(TL_INTEGRATOR_PREDICTOR_CORRECTOR, 4, 1500, true, NULL);
    fprintf(stderr, "predictor-corrector bed hashes (1, 2, 4 threads): %016llx %016llx %016llx\n",
            (unsigned long long)h1, (unsigned long long)h2, (unsigned long long)h4);
    ENSURE(h1 != 0 && h1 == h2 && h1 == h4);
    ENSURE(bal < 1e-2);
    /* the lean path (no ledger, no impact bookkeeping unless logged) */
    uint64_t l1 = bed(TL_INTEGRATOR_PREDICTOR_CORRECTOR, 1, 600, false, NULL);
    uint64_t l4 = bed(TL_INTEGRATOR_PREDICTOR_CORRECTOR, 4, 600, false, NULL);
    ENSURE(l1 != 0 && l1 == l4);
    /* a different scheme gives a different (but valid) trajectory */
    uint64_t v1 = bed(TL_INTEGRATOR_VERLET, 1, 600, true, NULL);
    ENSURE(v1 != l1);
}

int main(void) {
    test_parabola();
    test_linear_convergence();
    test_hertz_elastic();
    test_threads();
    return tl_test_report("test_bounce");
}
