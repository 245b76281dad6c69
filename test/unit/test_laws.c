#define _DEFAULT_SOURCE
/* Contact laws against closed forms: restitution and contact duration of
 * binary collisions run through the whole engine (no gravity). */
#include <math.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

typedef struct collide_result {
    double e_log, e_vel, duration, max_overlap;
    size_t collisions;
} collide_result;

typedef struct collide_case {
    const char *normal, *damping;
    double e;        /* requested restitution (1 = no damping coefficient given) */
    double kn;       /* linear stiffness per body, N/m */
    double E;        /* Young's modulus, Pa */
    double v;        /* approach speed, m/s */
    double steps;    /* steps per elastic contact time */
    double t_contact;/* elastic contact time, s (sets dt = t_contact / steps) */
    int wall;        /* 1: sphere on a wall; 0: two identical spheres */
    double phase;    /* fraction of a step at which the contact starts */
    bool correct;    /* contact-boundary correction */
    bool clamp;
    tl_integrator integrator;
} collide_case;

static const double R = 0.001, RHO = 2500.0;

static double sphere_mass(void) { return RHO * 4.0 / 3.0 * M_PI * R * R * R; }

static collide_result collide(const collide_case *cc) {
    collide_result r = {NAN, NAN, NAN, NAN, 0};
    tl_world_def wd = tl_world_default();
    wd.dt = cc->t_contact / cc->steps;
    wd.allow_unresolved_contacts = true;
    wd.impact_speed = cc->v;
    wd.contact_boundary_correction = cc->correct;
    wd.integrator = cc->integrator;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return r;
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = RHO;
    md.youngs_modulus = cc->E;
    md.poisson_ratio = 0.3;
    md.k_n = cc->kn;
    int m;
    ENSURE_OK(tl_world_add_material(w, &md, &m));
    tl_law_def law = tl_law_default();
    law.normal = cc->normal;
    law.damping = cc->damping;
    law.tangential = "none";
    law.history = "none";
    law.clamp_tensile = cc->clamp;
    if (cc->e < 1.0) tl_law_set(&law, "e", cc->e);
    if (tl_world_set_law(w, m, m, &law) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(w));
        tl_world_destroy(w);
        return r;
    }
    /* the gap closes in (3 + phase) steps */
    double gap = cc->v * wd.dt * (3.0 + cc->phase);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    if (cc->wall) {
        tl_wall_def wl = tl_wall_default();
        wl.material = m;
        ENSURE_OK(tl_world_add_wall(w, &wl, NULL));
        pd.position = (tl_vec3){0, 0, R + gap};
        pd.velocity = (tl_vec3){0, 0, -cc->v};
        ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
    } else {
        pd.position = (tl_vec3){0, 0, -R - 0.5 * gap};
        pd.velocity = (tl_vec3){0, 0, 0.5 * cc->v};
        ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
        pd.position = (tl_vec3){0, 0, R + 0.5 * gap};
        pd.velocity = (tl_vec3){0, 0, -0.5 * cc->v};
        ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
    }
    tl_world_log_collisions(w, true);
    int64_t nsteps = (int64_t)(4.0 * cc->steps) + 20;
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
        r.max_overlap = c[0].max_overlap;
    }
    tl_particle_state ps;
    if (cc->wall) {
        tl_world_particle_at(w, 0, &ps);
        r.e_vel = ps.velocity.z / cc->v;
    } else {
        tl_particle_state p2;
        tl_world_particle_at(w, 0, &ps);
        tl_world_particle_at(w, 1, &p2);
        r.e_vel = (p2.velocity.z - ps.velocity.z) / cc->v;
    }
    tl_world_destroy(w);
    return r;
}

static double linear_time(double kn, int wall) {
    double m = sphere_mass();
    double meff = wall ? m : 0.5 * m;
    double k = 0.5 * kn; /* series of two equal bodies (the wall has the same material) */
    return M_PI * sqrt(meff / k);
}

/* Hertz: t_c = 2.9432 (15 m* / (16 E* sqrt(R*)))^(2/5) v^(-1/5) */
static double hertz_time(double E, double v, int wall) {
    double m = sphere_mass();
    double meff = wall ? m : 0.5 * m;
    double reff = wall ? R : 0.5 * R;
    double nu = 0.3;
    double estar = 1.0 / (2.0 * (1.0 - nu * nu) / E);
    double K = 4.0 / 3.0 * estar * sqrt(reff);
    double dmax = pow(1.25 * meff * v * v / K, 0.4);
    double c = 0.8 * tgamma(0.4) * tgamma(0.5) / tgamma(0.9);
    return c * dmax / v;
}

/* damped linear oscillator: duration pi / omega_1 */
static double linear_damped_time(double kn, double e, int wall) {
    double b = -log(e) / sqrt(log(e) * log(e) + M_PI * M_PI);
    return linear_time(kn, wall) / sqrt(1.0 - b * b);
}

static void test_linear_restitution(void) {
    const double es[] = {0.1, 0.5, 0.9};
    const double kn = 1e6;
    for (int iw = 0; iw < 2; iw++)
        for (int ie = 0; ie < 3; ie++) {
            double worst = 0.0, worst_t = 0.0;
            for (int ph = 0; ph < 10; ph++) {
                collide_case cc = {"linear", "restitution", es[ie], kn, 0, 1.0, 50,
                                   linear_time(kn, iw), iw, ph / 10.0, true, false,
                                   TL_INTEGRATOR_VERLET};
                collide_result r = collide(&cc);
                ENSURE(r.collisions == 1);
                worst = fmax(worst, fabs(r.e_vel - es[ie]));
                /* the log measures the same collision as the velocities */
                ENSURE_NEAR(r.e_log, r.e_vel, 1e-12);
                double td = linear_damped_time(kn, es[ie], iw);
                worst_t = fmax(worst_t, fabs(r.duration - td) / td);
            }
            fprintf(stderr, "linear e=%.1f %s: |e - e_req| <= %.2e, duration off by <= %.2e\n",
                    es[ie], iw ? "wall" : "pair", worst, worst_t);
            /* 50 steps per contact: restitution within 1e-3 at every phase */
            ENSURE(worst < 1e-3);
            ENSURE(worst_t < 2e-3);
        }
}

static void test_hertz_duration(void) {
    const double E = 1e7;
    for (int iw = 0; iw < 2; iw++) {
        double v = 1.0;
        double tc = hertz_time(E, v, iw);
        double worst = 0.0;
        for (int ph = 0; ph < 5; ph++) {
            collide_case cc = {"hertz", "none", 1.0, 0, E, v, 400, tc, iw, ph / 5.0, true, false,
                               TL_INTEGRATOR_VERLET};
            collide_result r = collide(&cc);
            ENSURE(r.collisions == 1);
            worst = fmax(worst, fabs(r.duration - tc) / tc);
            ENSURE_NEAR(r.e_vel, 1.0, 1e-6);
        }
        fprintf(stderr, "hertz elastic %s: duration off by <= %.2e relative (t_c = %.6e s)\n",
                iw ? "wall" : "pair", worst, tc);
        ENSURE(worst < 1e-3);
    }
}

static void test_tsuji_restitution(void) {
    const double E = 1e7;
    const double speeds[] = {0.01, 1.0, 10.0};
    const double es[] = {0.1, 0.5, 0.9};
    for (int is = 0; is < 3; is++)
        for (int ie = 0; ie < 3; ie++) {
            double v = speeds[is];
            double tc = hertz_time(E, v, 1);
            collide_case cc = {"hertz", "tsuji", es[ie], 0, E, v, 1000, tc, 1, 0.37, true, false,
                               TL_INTEGRATOR_VERLET};
            collide_result r = collide(&cc);
            ENSURE(r.collisions == 1);
            ENSURE_NEAR(r.e_vel, es[ie], 2e-4);
            cc.clamp = true;
            collide_result rc = collide(&cc);
            fprintf(stderr, "tsuji v=%5.2f e=%.1f: unclamped %.5f, clamped %.5f\n", v, es[ie],
                    r.e_vel, rc.e_vel);
            /* clamping removes the tensile end of the dashpot: less is dissipated */
            ENSURE(rc.e_vel > es[ie] + 1e-3);
        }
}

int main(void) {
    test_linear_restitution();
    test_hertz_duration();
    test_tsuji_restitution();
    return tl_test_report("test_laws");
}
