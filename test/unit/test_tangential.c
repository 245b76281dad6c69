/* Tangential laws and history modes on an incline, and the Coulomb
 * rescaling of Fleischmann et al. 2015 eq. 6. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

static const double G = 9.81, R = 0.001, RHO = 2500.0;

typedef struct incline {
    double theta_deg, mu;
    const char *history;  /* "true", "pseudo", "none" */
    bool lock_rotation;
    double t_end;
    /* results */
    double disp;          /* downhill displacement of the centre at t_end, m */
    double accel;         /* fitted downhill acceleration over the second half, m/s2 */
    double spin_accel;    /* fitted angular acceleration about the rolling axis, rad/s2 */
    double v_end;
} incline;

/* A sphere resting on a plane tilted by theta: plane normal n = (sin, 0, cos),
 * downhill d = (cos, 0, -sin), gravity -z. Hertz + Tsuji + Mindlin. */
static int run_incline(incline *c) {
    double th = c->theta_deg * M_PI / 180.0;
    double n[3] = {sin(th), 0.0, cos(th)}, d[3] = {cos(th), 0.0, -sin(th)};
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -G};
    wd.impact_speed = 0.1;
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return -1;
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = RHO;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default(); /* hertz + tsuji + mindlin */
    law.history = c->history;
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", c->mu);
    if (tl_world_set_law(w, m, m, &law) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(w));
        return -1;
    }
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.normal = (tl_vec3){n[0], n[1], n[2]};
    ENSURE_OK(tl_world_add_wall(w, &wl, NULL));
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){R * n[0], 0, R * n[2]};
    if (c->lock_rotation) pd.flags = TL_PARTICLE_LOCK_ROTATION;
    uint32_t id;
    ENSURE_OK(tl_world_add_particle(w, &pd, &id));
    if (tl_world_prepare(w) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(w));
        return -1;
    }
    double dt = tl_world_dt(w);
    int64_t nsteps = (int64_t)(c->t_end / dt);
    /* least-squares slopes of v(t) and omega(t) over the second half */
    double st = 0, sv = 0, stt = 0, stv = 0, sw = 0, stw = 0;
    int cnt = 0;
    tl_particle_state ps;
    for (int64_t s = 0; s < nsteps; s++) {
        tl_world_step(w, 1);
        if (s >= nsteps / 2) {
            tl_world_get_particle(w, id, &ps);
            double t = tl_world_time(w);
            double v = ps.velocity.x * d[0] + ps.velocity.z * d[2];
            double om = ps.angular_velocity.y; /* rolling downhill spins about +y */
            st += t;
            sv += v;
            stt += t * t;
            stv += t * v;
            sw += om;
            stw += t * om;
            cnt++;
        }
    }
    double den = cnt * stt - st * st;
    c->accel = (cnt * stv - st * sv) / den;
    c->spin_accel = (cnt * stw - st * sw) / den;
    tl_world_get_particle(w, id, &ps);
    c->disp = (ps.position.x - R * n[0]) * d[0] + (ps.position.z - R * n[2]) * d[2];
    c->v_end = ps.velocity.x * d[0] + ps.velocity.z * d[2];
    tl_world_destroy(w);
    return 0;
}

static void test_locked_sphere(void) {
    const double mu = 0.5; /* atan(mu) = 26.57 deg */
    /* below the friction angle, true history holds the sphere */
    incline a = {20.0, mu, "true", true, 0.2, 0, 0, 0, 0};
    ENSURE_OK(run_incline(&a));
    fprintf(stderr, "locked, 20 deg, true history: displacement %.3e m, v %.3e m/s\n", a.disp, a.v_end);
    ENSURE(fabs(a.disp) < 1e-6);  /* only the elastic tangential deflection */
    ENSURE(fabs(a.v_end) < 1e-6);
    /* above it, it slides with g (sin - mu cos) */
    incline b = {35.0, mu, "true", true, 0.1, 0, 0, 0, 0};
    ENSURE_OK(run_incline(&b));
    double th = 35.0 * M_PI / 180.0;
    double expect = G * (sin(th) - mu * cos(th));
    fprintf(stderr, "locked, 35 deg, true history: a = %.6f, expected %.6f m/s2\n", b.accel, expect);
    ENSURE_REL(b.accel, expect, 1e-3);
    /* pseudo and no history cannot hold it: it creeps below the friction angle */
    const char *modes[] = {"pseudo", "none"};
    for (int k = 0; k < 2; k++) {
        incline c = {20.0, mu, modes[k], true, 0.2, 0, 0, 0, 0};
        ENSURE_OK(run_incline(&c));
        fprintf(stderr, "locked, 20 deg, %s history: displacement %.3e m, v %.3e m/s\n", modes[k],
                c.disp, c.v_end);
        ENSURE(c.disp > 1e3 * fabs(a.disp) && c.disp > 1e-5);
        ENSURE(c.v_end > 1e-5);
    }
}

static void test_rolling(void) {
    /* rolls without slipping at 5/7 g sin while tan < 7 mu / 2 */
    incline a = {20.0, 0.5, "true", false, 0.1, 0, 0, 0, 0};
    ENSURE_OK(run_incline(&a));
    double th = 20.0 * M_PI / 180.0;
    double expect = 5.0 / 7.0 * G * sin(th);
    fprintf(stderr, "free, 20 deg, mu 0.5: a = %.6f, expected rolling %.6f; omega' R = %.6f\n",
            a.accel, expect, a.spin_accel * R);
    ENSURE_REL(a.accel, expect, 2e-3);
    ENSURE_REL(a.spin_accel * R, expect, 2e-3);
    /* beyond: slips with g (sin - mu cos), spin-up 5 mu g cos / (2 R) */
    incline b = {30.0, 0.1, "true", false, 0.1, 0, 0, 0, 0};
    ENSURE_OK(run_incline(&b));
    th = 30.0 * M_PI / 180.0;
    double expect_a = G * (sin(th) - 0.1 * cos(th));
    double expect_w = 5.0 * 0.1 * G * cos(th) / (2.0 * R);
    fprintf(stderr, "free, 30 deg, mu 0.1: a = %.6f (expected %.6f), omega' = %.4f (expected %.4f)\n",
            b.accel, expect_a, b.spin_accel, expect_w);
    ENSURE_REL(b.accel, expect_a, 1e-3);
    ENSURE_REL(b.spin_accel, expect_w, 2e-3);
}

/* A prescribed sphere pressed into a plane and dragged along it: with the
 * Chrono/LIGGGHTS Hooke law and true history, the stored displacement grows
 * as v t and, once k_t |u_t| exceeds mu F_n, is rescaled to mu F_n / k_t
 * (Fleischmann et al. 2015 eq. 6). */
static void test_chrono_rescaling(void) {
    const double kn = 1e5, kt = 4e4, mu = 0.3, delta0 = 1e-5, v = 0.01;
    tl_world_def wd = tl_world_default();
    wd.dt = 1e-6;
    tl_world *w;
    ENSURE_OK(tl_world_create(&wd, &w));
    tl_material_def md = tl_material_default();
    md.name = "q";
    md.density = RHO;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    law.normal = "hooke";
    law.damping = "mass-proportional";
    law.tangential = "linear";
    law.history = "true";
    law.coulomb_test = TL_COULOMB_SPRING;
    tl_law_set(&law, "k_n", kn);
    tl_law_set(&law, "gamma_n", 100.0);
    tl_law_set(&law, "k_t", kt);
    tl_law_set(&law, "mu", mu);
    ENSURE_OK(tl_world_set_law(w, m, m, &law));
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(w, &wl, NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, R - delta0};
    pd.velocity = (tl_vec3){v, 0, 0};
    pd.flags = TL_PARTICLE_PRESCRIBED;
    ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
    ENSURE_OK(tl_world_prepare(w));
    double fn = kn * delta0;
    double limit = mu * fn / kt; /* the rescaled |u_t| */
    int64_t stick_steps = (int64_t)(limit / (v * wd.dt));
    double worst_stick = 0.0, worst_slide = 0.0, worst_force = 0.0;
    for (int64_t s = 1; s <= 2 * stick_steps; s++) {
        tl_world_step(w, 1);
        tl_contact_info ci;
        ENSURE_OK(tl_world_get_contact(w, 0, &ci));
        double u = fabs(ci.history[0]); /* u_t along x (contact normal is -z) */
        if (s < stick_steps - 1) {
            worst_stick = fmax(worst_stick, fabs(u - v * wd.dt * (double)s) / limit);
            ENSURE(!ci.sliding);
        } else if (s > stick_steps + 1) {
            worst_slide = fmax(worst_slide, fabs(u - limit) / limit);
            worst_force = fmax(worst_force, fabs(fabs(ci.tangential_force.x) - mu * ci.normal_force) / (mu * fn));
            ENSURE(ci.sliding);
        }
    }
    fprintf(stderr, "chrono hooke rescaling: stick |u - v t| <= %.1e, slide |u - mu Fn/kt| <= %.1e, "
            "|Ft - mu Fn| <= %.1e (relative)\n", worst_stick, worst_slide, worst_force);
    ENSURE(worst_stick < 1e-9);
    ENSURE(worst_slide < 1e-12);
    ENSURE(worst_force < 1e-12);
    tl_world_destroy(w);
}

int main(void) {
    test_locked_sphere();
    test_rolling();
    test_chrono_rescaling();
    return tl_test_report("test_tangential");
}
