/* The energy balance: kinetic + potential + elastic + dissipated - boundary
 * work is conserved to integration accuracy. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

static const double G = 9.81, R = 0.001, RHO = 2500.0;

typedef struct bounce_case {
    const char *normal, *damping, *tangential;
    double e, mu;
    double steps;       /* steps per contact */
    double vx;          /* initial horizontal speed (oblique bounces) */
    double wall_vz;     /* prescribed wall velocity */
    double t_end;
    double E, z0;       /* Young's modulus (0 = 1e7 Pa) and drop height of the centre (0 = 10 mm) */
    /* results */
    double max_error;   /* max |total - total0| / scale over every step */
    double dissipated;  /* total dissipated at the end, J */
    double boundary;
    double scale;
    size_t bounces;
} bounce_case;

static int run_bounce(bounce_case *c) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -G};
    wd.steps_per_contact = c->steps;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return -1;
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = RHO;
    md.youngs_modulus = c->E > 0.0 ? c->E : 1e7;
    md.poisson_ratio = 0.3;
    md.k_n = 2e4;
    md.k_t = 2e4;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    law.normal = c->normal;
    law.damping = c->damping;
    law.tangential = c->tangential;
    law.history = strcmp(c->tangential, "none") ? "true" : "none";
    if (c->e < 1.0) tl_law_set(&law, "e", c->e);
    if (strcmp(c->tangential, "none")) tl_law_set(&law, "mu", c->mu);
    if (tl_world_set_law(w, m, m, &law) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(w));
        return -1;
    }
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.velocity = (tl_vec3){0, 0, c->wall_vz};
    tl_world_add_wall(w, &wl, NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, c->z0 > 0.0 ? c->z0 : 0.01};
    pd.velocity = (tl_vec3){c->vx, 0, 0};
    pd.angular_velocity = (tl_vec3){0, 0, 0};
    tl_world_add_particle(w, &pd, NULL);
    tl_world_log_collisions(w, true);
    if (tl_world_prepare(w) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(w));
        return -1;
    }
    tl_energy e0, e;
    tl_world_energy(w, &e0);
    c->scale = fmax(fabs(e0.total), e0.kinetic_translational + fabs(e0.potential));
    c->max_error = 0.0;
    int64_t n = (int64_t)(c->t_end / tl_world_dt(w));
    for (int64_t s = 0; s < n; s++) {
        if (tl_world_step(w, 1) != TL_OK) return -1;
        tl_world_energy(w, &e);
        c->max_error = fmax(c->max_error, fabs(e.total - e0.total) / c->scale);
    }
    c->dissipated = e.dissipated_normal + e.dissipated_plastic + e.dissipated_tangential_damping +
                    e.dissipated_friction;
    c->boundary = e.boundary_work;
    c->bounces = tl_world_collision_count(w);
    tl_world_destroy(w);
    return 0;
}

static void test_elastic_bounces(void) {
    /* Hertz without damping: energy is kept over many bounces */
    bounce_case c = {"hertz", "none", "none", 1.0, 0.0, 2000, 0.0, 0.0, 0.3, 1e5, 0.002, 0, 0, 0, 0, 0};
    ENSURE_OK(run_bounce(&c));
    fprintf(stderr, "elastic hertz, %zu bounces, 2000 steps/contact: max |dE|/E = %.2e\n", c.bounces,
            c.max_error);
    ENSURE(c.bounces >= 10);
    ENSURE(c.max_error < 1e-6);
    ENSURE(fabs(c.dissipated) < 1e-6 * c.scale);
}

static void test_damped_balance(void) {
    /* damped bounces: the ledger accounts for what the dashpot takes, and the
     * error falls as the step shrinks (second order) */
    double err[2];
    const double steps[2] = {50, 100};
    for (int k = 0; k < 2; k++) {
        bounce_case c = {"linear", "restitution", "none", 0.5, 0.0, steps[k], 0.0, 0.0, 0.15, 0, 0, 0, 0, 0, 0, 0};
        ENSURE_OK(run_bounce(&c));
        err[k] = c.max_error;
        fprintf(stderr, "linear e=0.5, %g steps/contact: %zu bounces, dissipated %.3f of E0, max balance error %.2e\n",
                steps[k], c.bounces, c.dissipated / c.scale, c.max_error);
        ENSURE(c.dissipated > 0.5 * c.scale);
        }
    ENSURE(err[0] < 1e-3);
    /* second order: halving the step divides the error by about four */
    ENSURE(err[1] < 0.35 * err[0]);
}

static void test_friction_balance(void) {
    /* oblique bounces with Coulomb sliding and spin-up */
    bounce_case c = {"hertz", "tsuji", "mindlin", 0.7, 0.3, 100, 0.5, 0.0, 0.1, 0, 0, 0, 0, 0, 0, 0};
    ENSURE_OK(run_bounce(&c));
    fprintf(stderr, "oblique hertz/tsuji/mindlin: %zu bounces, dissipated %.3f of E0, max balance error %.2e\n",
            c.bounces, c.dissipated / c.scale, c.max_error);
    ENSURE(c.max_error < 5e-4);
    /* a wall moving up does work on the particle: accounted as boundary work */
    bounce_case d = {"hertz", "tsuji", "none", 0.7, 0.0, 100, 0.0, 0.05, 0.1, 0, 0, 0, 0, 0, 0, 0};
    ENSURE_OK(run_bounce(&d));
    fprintf(stderr, "moving wall: boundary work %.3e J (%.3f of E0), max balance error %.2e\n",
            d.boundary, d.boundary / d.scale, d.max_error);
    ENSURE(d.boundary > 0.01 * d.scale);
    ENSURE(d.max_error < 5e-4);
}

int main(void) {
    test_elastic_bounces();
    test_damped_balance();
    test_friction_balance();
    return tl_test_report("test_energy");
}
