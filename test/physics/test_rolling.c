/* Rolling resistance (the rolling slot, src/laws/rolling.c: epsd) against closed forms:
 *   - a sphere on a slope with tan(theta) < mu_r stays where it is set down, turned by the
 *     static stretch of its rolling and tangential springs; on a slope with
 *     tan(theta) > mu_r it rolls (without slip) with a = (5/7) g (sin(theta) - mu_r cos(theta)),
 *     and the rolling torque dissipates mu_r m g cos(theta) per metre rolled (the ledger's
 *     dissipated_rolling), the books closing;
 *   - an ellipsoid set down tilted on a plane rocks, loses its energy to the rolling resistance
 *     and comes to rest on its flattest side: the smallest semi-axis vertical and the potential
 *     energy m g (c - delta_eq), m g c to 1e-4; without rolling resistance it rocks on
 *     (test_ellipsoid_dynamics);
 *   - a bed of spheres and ellipsoids with rolling resistance: bit-identical on 1 and 2 threads
 *     and across a save and load;
 *   - the law's errors: an unknown rolling model, mu_r missing or out of range. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"
#include "world_hash.h"

#define PI 3.14159265358979323846

static int material(tl_world *w, double E, double mu_r, double eta_r) {
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = 2500;
    md.youngs_modulus = E;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    law.damping = "tsuji";
    law.tangential = "mindlin";
    law.rolling = "epsd";
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.8);
    tl_law_set(&law, "mu_r", mu_r);
    if (eta_r > 0.0) tl_law_set(&law, "eta_r", eta_r);
    if (tl_world_set_law(w, m, m, &law) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    return m;
}

/* A sphere (R = 1 cm) set on a plane with gravity tilted by theta about y: where it is at t1
 * and t2, and the energy terms then. */
typedef struct slope_run {
    double x[2], vx[2], wy[2], fn, delta;
    tl_energy e0, e[2];
} slope_run;

static slope_run slope(double theta_deg, double mu_r, double eta_r, double t1, double t2) {
    const double g = 9.81, R = 0.01, E = 1e8, th = theta_deg * PI / 180.0;
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){g * sin(th), 0, -g * cos(th)};
    wd.impact_speed = 0.05;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, E, mu_r, eta_r);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(w, &wl, NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    /* set down at its resting overlap under the normal load (Hertz: F = 4/3 E* sqrt(R) delta^1.5,
     * the wall of the same material: E* = E / (2 (1 - nu^2))) */
    slope_run r;
    double mass = 2500 * 4.0 / 3.0 * PI * R * R * R;
    r.fn = mass * g * cos(th);
    r.delta = pow(r.fn / (4.0 / 3.0 * (E / (2 * (1 - 0.09))) * sqrt(R)), 2.0 / 3.0);
    pd.position = (tl_vec3){0, 0, R - r.delta};
    uint32_t id;
    ENSURE(tl_world_add_particle(w, &pd, &id) == TL_OK);
    ENSURE(tl_world_prepare(w) == TL_OK);
    tl_world_energy(w, &r.e0);
    double t[2] = {t1, t2};
    for (int k = 0; k < 2; k++) {
        ENSURE(tl_world_step(w, (int64_t)llround((t[k] - tl_world_time(w)) / tl_world_dt(w))) == TL_OK);
        tl_particle_state p;
        tl_world_get_particle(w, id, &p);
        tl_world_energy(w, &r.e[k]);
        r.x[k] = p.position.x;
        r.vx[k] = p.velocity.x;
        r.wy[k] = p.angular_velocity.y;
    }
    tl_world_destroy(w);
    return r;
}

static void sphere_on_slopes(void) {
    const double g = 9.81, R = 0.01, mu_r = 0.1;
    /* below: tan 4 deg = 0.070 < 0.1. The spring holds the sphere turned by theta_s, where its
     * torque k_r theta_s balances gravity's about the contact point, m g sin(theta) R: with
     * k_r = 2.25 (F_n / delta) mu_r^2 R^2, x_s = R theta_s = tan(theta) delta / (2.25 mu_r^2) */
    double th = 4.0 * PI / 180.0;
    slope_run a = slope(4.0, mu_r, 0.5, 0.2, 0.4);
    /* plus the tangential spring's stretch f / k_t under the friction f = m g sin(theta) that
     * holds it (Mindlin: k_t = 8 G* sqrt(R delta), G* = G / (2 (2 - nu)) for two bodies of one
     * material) */
    double G = 1e8 / (2 * 1.3), kt = 8 * G / (2 * (2 - 0.3)) * sqrt(R * a.delta);
    double xs = tan(th) * a.delta / (2.25 * mu_r * mu_r) + a.fn * tan(th) / kt;
    fprintf(stderr,
            "sphere on a 4 deg slope, mu_r = 0.1, eta_r = 0.5: at 0.2 and 0.4 s x = %.6g and %.6g m, the springs' "
            "static stretch R theta_s + f / k_t = %.6g m (free rolling would have gone %.3g m)\n",
            a.x[0], a.x[1], xs, 5.0 / 7.0 * g * sin(th) * 0.4 * 0.4 / 2);
    ENSURE_REL(a.x[1], xs, 2e-3);
    ENSURE(fabs(a.x[1] - a.x[0]) < 1e-3 * xs);
    ENSURE(fabs(a.vx[1]) < 1e-6);
    /* above: tan 10 deg = 0.176 > 0.1: after the spring has reached its limit (a few ms) the
     * sphere rolls at a constant acceleration and the torque mu_r R F_n dissipates
     * mu_r F_n per metre rolled */
    th = 10.0 * PI / 180.0;
    double acc = 5.0 / 7.0 * g * (sin(th) - mu_r * cos(th));
    slope_run b = slope(10.0, mu_r, 0.0, 0.1, 0.3);
    double a_sim = (b.vx[1] - b.vx[0]) / 0.2, a_x = 2.0 * (b.x[1] - b.x[0] - b.vx[0] * 0.2) / (0.2 * 0.2);
    double diss = b.e[1].dissipated_rolling - b.e[0].dissipated_rolling, diss_cf = mu_r * b.fn * (b.x[1] - b.x[0]);
    double bal = b.e[1].total - b.e0.total, scale = b.e0.potential - b.e[1].potential;
    fprintf(stderr,
            "sphere on a 10 deg slope, mu_r = 0.1, 0.1 to 0.3 s: acceleration %.6g m/s2 from v, %.6g from x "
            "(closed form (5/7) g (sin - mu_r cos) = %.6g, %+.2e); omega R / v = %.6f; dissipated_rolling %.6g J "
            "(mu_r F_n dx = %.6g, %+.2e), friction %.3g J, integration residual %.3g J, balance %.2g J of %.3g J\n",
            a_sim, a_x, acc, a_sim / acc - 1, -b.wy[1] * R / b.vx[1], diss, diss_cf, diss / diss_cf - 1,
            b.e[1].dissipated_friction, b.e[1].integration_residual, bal, scale);
    ENSURE_REL(a_sim, acc, 2e-3);
    ENSURE_REL(a_x, acc, 2e-3);
    ENSURE_REL(diss, diss_cf, 2e-3);
    ENSURE(fabs(bal) < 1e-5 * scale);
    /* without rolling resistance the same sphere rolls at (5/7) g sin(theta) */
    slope_run c = slope(10.0, 0.0, 0.0, 0.1, 0.3);
    ENSURE_REL((c.vx[1] - c.vx[0]) / 0.2, 5.0 / 7.0 * g * sin(th), 2e-3);
    ENSURE(c.e[1].dissipated_rolling == 0.0);
}

/* An ellipsoid (3, 2, 1) cm set down tilted 20 degrees about its a axis comes to rest on its
 * flattest side. */
static void ellipsoid_comes_to_rest(void) {
    const double a = 0.03, b = 0.02, c = 0.01, E = 5e9, g = 9.81, nu = 0.3;
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -g};
    wd.impact_speed = 0.1;
    wd.steps_per_contact = 10;
    tl_world *w;
    tl_world_create(&wd, &w);
    const double mu_r = 0.005;
    int m = material(w, E, mu_r, 0.5);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(w, &wl, NULL);
    tl_shape_def sd = tl_shape_default();
    sd.semi_axes = (tl_vec3){a, b, c};
    int s;
    tl_world_add_shape(w, &sd, &s);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.shape = s;
    double th = 20.0 * PI / 180.0;
    pd.orientation = (tl_quat){cos(0.5 * th), sin(0.5 * th), 0, 0};
    pd.position = (tl_vec3){0, 0, sqrt(b * b * sin(th) * sin(th) + c * c * cos(th) * cos(th))};
    uint32_t id;
    ENSURE(tl_world_add_particle(w, &pd, &id) == TL_OK);
    ENSURE(tl_world_prepare(w) == TL_OK);
    tl_energy e0, e;
    tl_world_energy(w, &e0);
    ENSURE(tl_world_step(w, (int64_t)llround(3.0 / tl_world_dt(w))) == TL_OK);
    tl_particle_state p;
    tl_world_get_particle(w, id, &p);
    tl_world_energy(w, &e);
    tl_quat q = p.orientation;
    double ez = 1 - 2 * (q.x * q.x + q.y * q.y), tilt = acos(fmin(1.0, fabs(ez)));
    double mass = p.mass, Es = E / (2 * (1 - nu * nu)), Re = sqrt((a * a / c) * (b * b / c));
    double d_eq = pow(mass * g / (4.0 / 3.0 * Es * sqrt(Re)), 2.0 / 3.0);
    double excess = mass * g * (pd.position.z - c), ke = e.kinetic_translational + e.kinetic_rotational;
    fprintf(stderr,
            "ellipsoid (3, 2, 1) cm set down tilted 20 deg, mu_r = 0.005, eta_r = 0.5, 3 s: c axis %.2g rad from "
            "vertical, z = %.7f c (c - delta_eq = %.7f c), kinetic energy %.3g J of %.3g J above rest; "
            "dissipated by rolling %.4g J, friction %.3g J, normal damping %.3g J; residual %.3g J, balance %.2g J\n",
            tilt, p.position.z / c, (c - d_eq) / c, ke, excess, e.dissipated_rolling, e.dissipated_friction,
            e.dissipated_normal, e.integration_residual, e.total - e0.total);
    /* the rolling spring holds the body where gravity's torque about the contact point,
     * m g (b^2/c - c) tilt for a small tilt about a, stays below mu_r R_e F_n */
    double hold = mu_r * Re / (b * b / c - c);
    double z_cf = sqrt(b * b * sin(tilt) * sin(tilt) + c * c * cos(tilt) * cos(tilt)) - d_eq;
    fprintf(stderr, "  the spring holds tilts up to mu_r R_e / (b^2/c - c) = %.3g rad; z(tilt) - delta_eq = %.7f c\n",
            hold, z_cf / c);
    ENSURE(tilt < hold);
    ENSURE(fabs(p.position.z / c - 1.0) < 1e-4);
    ENSURE(fabs(p.position.z - z_cf) < 1e-5 * c);
    ENSURE(ke < 1e-9 * excess);
    ENSURE(e.dissipated_rolling > 0.5 * excess);
    ENSURE(fabs(e.total - e0.total) < 1e-5 * excess);
    tl_world_destroy(w);
}

/* spheres and ellipsoids falling into a box, with rolling resistance */
static tl_world *bed(int threads) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.threads = threads;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 5e6, 0.2, 0.3);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.kind = TL_WALL_BOX;
    wl.box_min = (tl_vec3){0, 0, 0};
    wl.box_max = (tl_vec3){0.05, 0.05, 0.2};
    tl_world_add_wall(w, &wl, NULL);
    tl_shape_def sd = tl_shape_default();
    sd.semi_axes = (tl_vec3){0.006, 0.004, 0.003};
    int s;
    tl_world_add_shape(w, &sd, &s);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    uint64_t seed = 5;
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 4; i++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                double r = (double)(seed >> 11) * 0x1.0p-53;
                pd.shape = (i + j + k) % 3 == 0 ? s : -1;
                pd.radius = 0.004 + 0.001 * r;
                pd.position = (tl_vec3){0.007 + 0.012 * i + 0.001 * r, 0.007 + 0.012 * j, 0.008 + 0.013 * k};
                pd.orientation = (tl_quat){cos(r), sin(r) * 0.6, sin(r) * 0.8, 0};
                pd.angular_velocity = (tl_vec3){10 * r, -5 * r, 2};
                tl_world_add_particle(w, &pd, NULL);
            }
    return w;
}

static void bed_determinism(void) {
    uint64_t h[3];
    tl_world *a = tl_test_three_runs(bed, 12000, h);
    ENSURE(a != NULL);
    if (!a) return;
    tl_energy e, e0;
    tl_world_energy(a, &e);
    tl_world *f = bed(1);
    tl_world_prepare(f);
    tl_world_energy(f, &e0);
    fprintf(stderr,
            "128 spheres and ellipsoids with rolling resistance in a box, 12000 steps: %zu contacts, dissipated by "
            "rolling %.3g J, balance %.2g J of %.3g J; hash %016llx (1 thread) %016llx (2) %016llx (saved at 6000, "
            "loaded)\n",
            tl_world_contact_count(a), e.dissipated_rolling, e.total - e0.total, e0.potential - e.potential,
            (unsigned long long)h[0], (unsigned long long)h[1], (unsigned long long)h[2]);
    ENSURE(tl_world_contact_count(a) > 50);
    ENSURE(e.dissipated_rolling > 0.0);
    ENSURE(h[0] == h[1]);
    ENSURE(h[0] == h[2]);
    tl_world_destroy(a);
    tl_world_destroy(f);
}

static void law_errors(void) {
    tl_world_def wd = tl_world_default();
    tl_world *w;
    tl_world_create(&wd, &w);
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = 2500;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    law.rolling = "epsdd";
    ENSURE(tl_world_set_law(w, m, m, &law) != TL_OK);
    fprintf(stderr, "unknown rolling model: %s\n", tl_world_error(w));
    ENSURE(strstr(tl_world_error(w), "did you mean 'epsd'") != NULL);
    law.rolling = "epsd";
    law.damping = "none";
    law.tangential = "none";
    law.history = "none";
    ENSURE(tl_world_set_law(w, m, m, &law) != TL_OK);
    fprintf(stderr, "mu_r missing: %s\n", tl_world_error(w));
    ENSURE(strstr(tl_world_error(w), "mu_r") != NULL);
    tl_law_set(&law, "mu_r", -0.1);
    ENSURE(tl_world_set_law(w, m, m, &law) != TL_OK);
    fprintf(stderr, "mu_r < 0: %s\n", tl_world_error(w));
    ENSURE(strstr(tl_world_error(w), "out of range") != NULL);
    law = tl_law_default();
    tl_law_set(&law, "mu_r", 0.1);
    ENSURE(tl_world_set_law(w, m, m, &law) != TL_OK); /* no rolling model takes it */
    fprintf(stderr, "mu_r without a rolling model: %s\n", tl_world_error(w));
    tl_world_destroy(w);
}

int main(void) {
    law_errors();
    sphere_on_slopes();
    ellipsoid_comes_to_rest();
    bed_determinism();
    return tl_test_report("test_rolling");
}
