/* The example scenes of the verification note 001, run through the scene
 * loader and the run driver, against their closed forms. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

#ifndef TALUS_SOURCE_DIR
#define TALUS_SOURCE_DIR "."
#endif

static tl_scene *load(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", TALUS_SOURCE_DIR, name);
    tl_scene *s = NULL;
    tl_scene_error err;
    if (tl_scene_load_file(path, &s, &err) != TL_OK) {
        char buf[2048];
        tl_scene_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        return NULL;
    }
    return s;
}

static tl_status run_quiet(tl_scene *s) {
    tl_run_options o = tl_run_options_default();
    o.write_outputs = false;
    tl_run_summary sum;
    tl_status st = tl_scene_run(s, &o, &sum);
    if (st != TL_OK) fprintf(stderr, "%s\n", tl_scene_run_error(s));
    return st;
}

/* Exact restitution of m x'' = -k x - eta x' + m g (x the overlap, gravity
 * pressing the grains together), from x(0) = 0, x'(0) = v: the first return
 * to x = 0. */
static double restitution_with_gravity(double e, double m, double k, double g, double v) {
    double beta = -log(e) / sqrt(log(e) * log(e) + M_PI * M_PI);
    double w = sqrt(k / m), w1 = w * sqrt(1.0 - beta * beta), zw = beta * w;
    double A = -g / (w * w), B = (v + zw * A) / w1;
#define X(t) (g / (w * w) + exp(-zw * (t)) * (A * cos(w1 * (t)) + B * sin(w1 * (t))))
    double h = M_PI / w1 / 2000.0, t = h;
    while (X(t) > 0.0) t += h;
    double lo = t - h, hi = t;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (X(mid) > 0.0) lo = mid;
        else hi = mid;
    }
    double te = 0.5 * (lo + hi);
    double xd = exp(-zw * te) * ((-zw * A + w1 * B) * cos(w1 * te) + (-zw * B - w1 * A) * sin(w1 * te));
#undef X
    return -xd / v;
}

static void test_falling_particle(void) {
    tl_scene *s = load("001-falling-particle.yaml");
    ENSURE(s != NULL);
    if (!s) return;
    tl_world *w = tl_scene_world(s);
    tl_timestep_info ts;
    ENSURE_OK(tl_world_timestep(w, &ts));
    ENSURE_NEAR(ts.steps_per_contact, 50.0, 1e-9);
    tl_world_log_collisions(w, true);
    ENSURE_OK(run_quiet(s));
    const double m = 2500.0 * 4.0 / 3.0 * M_PI * pow(0.5e-3, 3), k = 5e8;
    size_t n = tl_world_collision_count(w);
    const tl_collision *c = tl_world_collisions(w);
    int fast = 0;
    double worst_e = 0.0, worst_exact = 0.0;
    for (size_t i = 0; i < n; i++) {
        double exact = restitution_with_gravity(0.5, m, k, 9.81, c[i].normal_speed_in);
        worst_exact = fmax(worst_exact, fabs(c[i].restitution - exact));
        if (c[i].normal_speed_in > 1e-3) {
            fast++;
            worst_e = fmax(worst_e, fabs(c[i].restitution - 0.5));
        }
    }
    fprintf(stderr,
            "001 falling particle: %zu bounces; %d faster than 1 mm/s, |e - 0.5| <= %.2e; every "
            "bounce vs the exact restitution under gravity: <= %.2e\n",
            n, fast, worst_e, worst_exact);
    ENSURE(fast >= 7);
    ENSURE(worst_e < 1e-3);
    ENSURE(worst_exact < 1e-3);
    /* the first impact: free fall through d_p = 1 mm */
    ENSURE(n > 0 && fabs(c[0].normal_speed_in - sqrt(2.0 * 9.81 * 1e-3)) < 1e-5);
    tl_scene_destroy(s);
}

static void test_constant_approach(void) {
    tl_scene *s = load("001-constant-approach.yaml");
    ENSURE(s != NULL);
    if (!s) return;
    tl_world *w = tl_scene_world(s);
    ENSURE_OK(run_quiet(s));
    /* the stage runs round(0.1 / dt) steps */
    double t = tl_world_time(w);
    ENSURE_NEAR(t, 0.1, 0.5 * tl_world_dt(w));
    tl_contact_info ci;
    ENSURE_OK(tl_world_get_contact(w, 0, &ci));
    double elastic = ci.normal_force - ci.normal_damping_force;
    fprintf(stderr, "001 constant approach: overlap %.9e m, normal force %.6f N (dashpot %.3e N)\n",
            ci.overlap, ci.normal_force, ci.normal_damping_force);
    ENSURE_NEAR(ci.overlap, 0.001 * t, 1e-11); /* rounding over 1.2e7 steps */
    ENSURE_NEAR(ci.normal_force, 5e4, 1.0);
    ENSURE(fabs(ci.normal_damping_force) < 1e-3 * elastic);
    /* eta v = 2 beta(0.5) sqrt(m k) * 0.001 m/s */
    double m = 2500.0 * 4.0 / 3.0 * M_PI * pow(0.5e-3, 3);
    double beta = -log(0.5) / sqrt(log(0.5) * log(0.5) + M_PI * M_PI);
    ENSURE_REL(ci.normal_damping_force, 2.0 * beta * sqrt(m * 5e8) * 0.001, 1e-6);
    tl_scene_destroy(s);
}

static void test_default_scene_starts(void) {
    /* the demo (run in full by `make demo`): loads and steps with a sound ledger */
    tl_scene *s = load("default.yaml");
    ENSURE(s != NULL);
    if (!s) return;
    tl_world *w = tl_scene_world(s);
    ENSURE(tl_world_particle_count(w) > 2000);
    tl_energy e0, e1;
    tl_world_energy(w, &e0);
    ENSURE_OK(tl_world_step(w, 2000));
    tl_world_energy(w, &e1);
    double scale = fabs(e0.potential) + e0.kinetic_translational;
    fprintf(stderr, "demo, first 2000 steps: %zu contacts, balance error %.2e\n",
            tl_world_contact_count(w), fabs(e1.total - e0.total) / scale);
    ENSURE(fabs(e1.total - e0.total) < 1e-5 * scale);
    tl_scene_destroy(s);
}

int main(void) {
    test_falling_particle();
    test_constant_approach();
    test_default_scene_starts();
    return tl_test_report("test_examples");
}
