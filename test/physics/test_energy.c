/* The energy balance: kinetic + potential + elastic + dissipated - boundary
 * work is conserved to integration accuracy. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "talus/scene.h"
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

/* The integration's error in its own column (issue 14): an undamped Hertz sphere
 * bouncing on a floor books nothing as damping (dissipated_normal exactly 0), and
 * its integration_residual is the mechanical energy the finite step lost (kinetic +
 * potential + elastic at the end minus at the start), to rounding. The residual
 * falls as the step shrinks, but not as a clean power: its sign and size depend on
 * where within a step the contact begins and ends (rms over 16 drop heights,
 * 2026-11-24: 3.0e-11, 2.0e-11, 1.1e-12, 5.6e-13 J at 25, 50, 100, 200 steps per
 * contact: ratios 1.5, 19, 1.9; 54 over the eightfold refinement, an order of about
 * 1.9 overall). The test asserts the decrease and that overall order (>= 4/3): a
 * fourfold fall at every doubling does not hold for a single Hertz impact. */
static double undamped_residual(double steps, double z0, double *drift, double *diss, double *e0out) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -G};
    wd.steps_per_contact = steps;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return NAN;
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = RHO;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    law.damping = "none";
    law.tangential = "none";
    law.history = "none";
    tl_world_set_law(w, m, m, &law);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(w, &wl, NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, z0};
    tl_world_add_particle(w, &pd, NULL);
    if (tl_world_prepare(w) != TL_OK) return NAN;
    tl_energy a, b;
    tl_world_energy(w, &a);
    tl_world_step(w, (int64_t)(0.04 / tl_world_dt(w))); /* one bounce, and up again */
    tl_world_energy(w, &b);
    double mech0 = a.kinetic_translational + a.potential + a.elastic_normal;
    double mech1 = b.kinetic_translational + b.potential + b.elastic_normal;
    *drift = mech1 - mech0;
    *diss = b.dissipated_normal + b.dissipated_plastic + b.dissipated_tangential_damping + b.dissipated_friction;
    *e0out = a.kinetic_translational + (a.potential - 0.0); /* m g z0: the drop energy */
    double r = b.integration_residual;
    tl_world_destroy(w);
    return r;
}

static void test_integration_residual(void) {
    /* one bounce from 16 heights (the phase of the first touch within a step varies):
     * the root mean square of the residuals at each resolution */
    const double steps[4] = {25, 50, 100, 200};
    double res[4];
    for (int k = 0; k < 4; k++) {
        double sum2 = 0.0, worst_close = 0.0, e0 = 0.0, diss_all = 0.0;
        int zero = 0;
        for (int h = 0; h < 16; h++) {
            double drift, diss, r = undamped_residual(steps[k], 0.004 + 1e-5 * h, &drift, &diss, &e0);
            sum2 += r * r;
            worst_close = fmax(worst_close, fabs(r + drift) / e0);
            diss_all += fabs(diss);
            if (r == 0.0) zero++;
        }
        res[k] = sqrt(sum2 / 16.0);
        fprintf(stderr, "undamped Hertz, %g steps per contact, one bounce from 16 heights: integration_residual "
                "%.4e J rms (%.2e of the drop energy); |residual + mechanical drift| <= %.1e of it; booked as "
                "dissipation %g J\n", steps[k], res[k], res[k] / e0, worst_close, diss_all);
        ENSURE(diss_all == 0.0);      /* no dashpot, nothing booked as one */
        ENSURE(zero == 0);            /* a finite step does err */
        ENSURE(worst_close < 1e-12);  /* and the residual is that error */
    }
    fprintf(stderr, "residual ratios when the steps per contact double: %.2f, %.2f, %.2f; over 8 times: %.1f\n",
            res[0] / res[1], res[1] / res[2], res[2] / res[3], res[0] / res[3]);
    ENSURE(res[0] > res[1] && res[1] > res[2] && res[2] > res[3]);
    ENSURE(res[0] > 16.0 * res[3]);
}

/* The balance's scale does not depend on where the scene sits: the same bouncing
 * beads 1 km up report the same scale and balance error (the potential energy
 * enters as its change, not its value from the origin). */
static double run_scale(double z, double *error) {
    char text[2048];
    snprintf(text, sizeof text,
             "talus: 1\n"
             "gravity: [0, 0, -9.81]\n"
             "materials: {glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.3}}\n"
             "laws: [{between: [glass, glass], normal: hertz, damping: tsuji, tangential: mindlin, "
             "history: true, e: 0.6, mu: 0.3}]\n"
             "walls: [{type: plane, material: glass, point: [0, 0, %.17g], normal: [0, 0, 1]}]\n"
             "particles:\n"
             "  - {material: glass, radius: 0.001, position: [0, 0, %.17g], velocity: [0.1, 0, 0]}\n"
             "  - {material: glass, radius: 0.001, position: [0.0015, 0, %.17g]}\n"
             "stages: [{duration: 0.1}]\n",
             z, z + 0.004, z + 0.007);
    tl_scene *s = NULL;
    tl_scene_error err;
    if (tl_scene_load_string(text, "scale.yaml", &s, &err) != TL_OK) return NAN;
    tl_run_options o = tl_run_options_default();
    o.write_outputs = false;
    tl_run_summary sum;
    double scale = tl_scene_run(s, &o, &sum) == TL_OK ? sum.energy_scale : NAN;
    *error = sum.energy_balance_error;
    ENSURE(sum.energy_tracked); /* the summary tells a kept ledger from one the scene switched off */
    tl_scene_destroy(s);
    return scale;
}

static void test_scale_translation(void) {
    double e_here, e_far;
    double here = run_scale(0.0, &e_here), far = run_scale(1000.0, &e_far);
    fprintf(stderr, "balance scale at z = 0: %.6e J (error %.3e); 1 km up: %.6e J (error %.3e)\n", here,
            e_here, far, e_far);
    ENSURE(here > 0.0);
    ENSURE_REL(far, here, 1e-6);
    ENSURE(e_far < 10.0 * e_here + 1e-9); /* rounding at 1 km may add a little, never hide it */
}

/* The automatic step respects the dashpot: a linear spring of 1e5 N/m with a viscous
 * dashpot of 100 N s/m on a 1 mm bead (m = 1.05e-5 kg) has a contact time of 3.2e-5 s
 * (20 steps: 1.6e-6 s), but this integrator lets the dashpot's motion grow at a step of
 * m/d = 1.05e-7 s (and at 0.75 m/d), not at 0.5 m/d: the automatic step takes m/(4 d),
 * and a bead pressed into the floor then loses energy. */
static void test_dashpot_limit(void) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -G};
    tl_world *w;
    ENSURE_OK(tl_world_create(&wd, &w));
    tl_material_def md = tl_material_default();
    md.name = "sand";
    md.density = RHO;
    md.k_n = 1e5;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    law.normal = "linear";
    law.damping = "viscous";
    law.tangential = "none";
    law.history = "none";
    tl_law_set(&law, "d", 100.0);
    ENSURE_OK(tl_world_set_law(w, m, m, &law));
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(w, &wl, NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, 0.00099};
    pd.velocity = (tl_vec3){0, 0, -0.01};
    tl_world_add_particle(w, &pd, NULL);
    ENSURE_OK(tl_world_prepare(w));
    const double mass = RHO * 4.0 / 3.0 * M_PI * R * R * R;
    fprintf(stderr, "viscous dashpot d = 100 N s/m: dt %.4g s, 2 m/d %.4g s\n", tl_world_dt(w), 2.0 * mass / 100.0);
    ENSURE(tl_world_dt(w) <= 0.25 * mass / 100.0 * (1.0 + 1e-12));
    tl_energy e0, e1;
    tl_world_energy(w, &e0);
    ENSURE_OK(tl_world_step(w, 20000));
    tl_world_energy(w, &e1);
    double mech0 = e0.kinetic_translational + e0.potential + e0.elastic_normal, mech1 = e1.kinetic_translational + e1.potential + e1.elastic_normal;
    fprintf(stderr, "  mechanical energy %.6e -> %.6e J, dissipated %.3e J, residual %.3e J\n", mech0, mech1,
            e1.dissipated_normal, e1.integration_residual);
    ENSURE(mech1 <= mech0 + 1e-12 * fabs(mech0)); /* damped, not driven */
    ENSURE(e1.dissipated_normal > 0.0);
    tl_world_destroy(w);
}

int main(void) {
    test_dashpot_limit();
    test_integration_residual();
    test_scale_translation();
    test_elastic_bounces();
    test_damped_balance();
    test_friction_balance();
    return tl_test_report("test_energy");
}
