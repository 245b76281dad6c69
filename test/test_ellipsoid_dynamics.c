/* Ellipsoids moving under contact (shape stage + ellipsoid contact + rigid-body
 * rotation):
 *   - set down tilted on a plane, an ellipsoid rocks about its flattest side:
 *     at the bottom of its swings its smallest semi-axis is vertical and its
 *     centre at c - delta (the Hertz overlap with the radius of curvature
 *     there), the potential energy m g c to 1e-4 (it does not come to rest:
 *     Hertz-Mindlin contacts have no rolling resistance; with a rolling model it
 *     does, test_rolling);
 *   - dropped with spin on a plane without damping or friction, it bounces
 *     and the energy stays what it was (the integration's second-order error
 *     only, falling fourfold when the step halves);
 *   - a bed of ellipsoids in a box: bit-identical on 1 and 2 threads, and a
 *     run stopped, saved and resumed ends bit for bit where the straight run
 *     ends. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"
#include "world_hash.h"

#define PI 3.14159265358979323846

static int material(tl_world *w, double E, const char *damping, double e, const char *tangential, double mu) {
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = 1000;
    md.youngs_modulus = E;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    law.damping = damping;
    law.tangential = tangential;
    if (strcmp(tangential, "none") == 0) law.history = "none";
    if (strcmp(damping, "none") != 0) tl_law_set(&law, "e", e);
    if (strcmp(tangential, "none") != 0) tl_law_set(&law, "mu", mu);
    if (tl_world_set_law(w, m, m, &law) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    return m;
}

/* An ellipsoid set down tilted about its longest axis rocks on the plane. Hertz-Mindlin
 * contacts have no rolling resistance: rolling without slip dissipates almost nothing, so it
 * rocks on (the ledger shows where the little it loses goes). Its lowest point of each swing is
 * the stable resting state: the smallest semi-axis vertical and the centre at c - delta, the
 * potential energy m g c to 1e-4; the orientations with b or a vertical lie far higher. */
static void rocks_about_its_flattest_side(void) {
    const double a = 0.03, b = 0.02, c = 0.01, E = 5e9, g = 9.81;
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -g};
    wd.impact_speed = 0.1;
    wd.steps_per_contact = 10; /* a sustained contact: the step only has to follow the rocking */
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, E, "tsuji", 0.3, "mindlin", 0.5);
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
    /* turned 20 degrees about its a axis, resting on the plane */
    double th = 20.0 * PI / 180.0;
    pd.orientation = (tl_quat){cos(0.5 * th), sin(0.5 * th), 0, 0};
    pd.position = (tl_vec3){0, 0, sqrt(b * b * sin(th) * sin(th) + c * c * cos(th) * cos(th))};
    uint32_t id;
    ENSURE(tl_world_add_particle(w, &pd, &id) == TL_OK);
    ENSURE(tl_world_prepare(w) == TL_OK);
    tl_energy e0, e;
    tl_world_energy(w, &e0);
    double zmin = INFINITY, tilt_at_min = 0.0, zmax = 0.0;
    int64_t steps = (int64_t)(0.4 / tl_world_dt(w));
    tl_particle_state p;
    for (int64_t n = 0; n < steps; n++) {
        ENSURE(tl_world_step(w, 1) == TL_OK);
        tl_world_get_particle(w, id, &p);
        tl_quat q = p.orientation;
        double ez = 1 - 2 * (q.x * q.x + q.y * q.y);
        if (p.position.z < zmin) {
            zmin = p.position.z;
            tilt_at_min = acos(fmin(1.0, fabs(ez)));
        }
        zmax = fmax(zmax, p.position.z);
    }
    tl_world_energy(w, &e);
    double mass = p.mass, Es = E / (2 * (1 - 0.09)), Re = sqrt((a * a / c) * (b * b / c));
    double d_eq = pow(mass * g / (4.0 / 3.0 * Es * sqrt(Re)), 2.0 / 3.0);
    double lost = e.dissipated_normal + e.dissipated_tangential_damping + e.dissipated_friction;
    fprintf(stderr,
            "ellipsoid (3, 2, 1) cm set down tilted 20 deg about its a axis, 0.4 s: rocks between z = %.9f and %.6f m; "
            "at the lowest its c axis is %.2g rad from vertical and m g z = %.7f m g c (c - delta_eq = %.7f c); "
            "dissipated %.3g J of %.3g J above rest, balance %.2g J\n",
            zmin, zmax, tilt_at_min, zmin / c, (c - d_eq) / c, lost, mass * g * (pd.position.z - c),
            e.total - e0.total);
    ENSURE(zmax > c + 0.1 * (pd.position.z - c)); /* it rocks */
    ENSURE(tilt_at_min < 2e-3);
    ENSURE(fabs(zmin / c - 1.0) < 1e-4);
    ENSURE(fabs(e.total - e0.total) < 1e-6 * mass * g * c);
    tl_world_destroy(w);
}

static double bounce_drift(double steps_per_contact, double *total0) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.impact_speed = 1.0;
    wd.steps_per_contact = steps_per_contact;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 1e7, "none", 1.0, "none", 0.0);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    tl_world_add_wall(w, &wl, NULL);
    tl_shape_def sd = tl_shape_default();
    sd.semi_axes = (tl_vec3){0.02, 0.012, 0.008};
    int s;
    tl_world_add_shape(w, &sd, &s);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.shape = s;
    pd.orientation = (tl_quat){0.8, 0.36, 0.48, 0.0};
    pd.position = (tl_vec3){0, 0, 0.05};
    pd.angular_velocity = (tl_vec3){3, -7, 11};
    uint32_t id;
    tl_world_add_particle(w, &pd, &id);
    tl_world_prepare(w);
    tl_energy e0, e;
    tl_world_energy(w, &e0);
    *total0 = e0.kinetic_translational + e0.kinetic_rotational + e0.potential;
    ENSURE(tl_world_step(w, (int64_t)(0.4 / tl_world_dt(w))) == TL_OK);
    tl_world_energy(w, &e);
    /* the collisions it had: the log is not on; count the bounces by the kinetic energy instead */
    double drift = fabs(e.kinetic_translational + e.kinetic_rotational + e.potential + e.elastic_normal - *total0);
    tl_world_destroy(w);
    return drift;
}

static void conserves_energy(void) {
    double t0, d20 = bounce_drift(20, &t0), d40 = bounce_drift(40, &t0), d80 = bounce_drift(80, &t0);
    fprintf(stderr,
            "undamped frictionless ellipsoid spinning and bouncing for 0.4 s: energy drift %.3g, %.3g, %.3g of "
            "%.6g J at 20, 40, 80 steps per contact (ratios %.2f, %.2f)\n",
            d20, d40, d80, t0, d20 / d40, d40 / d80);
    ENSURE(d80 < 3e-5 * fabs(t0));
    ENSURE(d20 / d40 > 3.0 && d40 / d80 > 3.0);
}

/* a bed of 3 x 3 x 4 ellipsoids falling into a box */
static tl_world *bed(int threads) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.threads = threads;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 5e6, "tsuji", 0.5, "mindlin", 0.5);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.kind = TL_WALL_BOX;
    wl.box_min = (tl_vec3){0, 0, 0};
    wl.box_max = (tl_vec3){0.04, 0.04, 0.1};
    tl_world_add_wall(w, &wl, NULL);
    tl_shape_def sd = tl_shape_default();
    sd.semi_axes = (tl_vec3){0.006, 0.004, 0.003};
    int s;
    tl_world_add_shape(w, &sd, &s);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.shape = s;
    uint64_t seed = 9;
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                double r = (double)(seed >> 11) * 0x1.0p-53;
                pd.position = (tl_vec3){0.008 + 0.012 * i, 0.008 + 0.012 * j, 0.008 + 0.013 * k};
                pd.orientation = (tl_quat){cos(r), sin(r) * 0.6, sin(r) * 0.8, 0};
                pd.angular_velocity = (tl_vec3){10 * r, -5 * r, 2};
                tl_world_add_particle(w, &pd, NULL);
            }
    return w;
}

static void bed_determinism(void) {
    uint64_t h[3];
    tl_world *a = tl_test_three_runs(bed, 3000, h);
    ENSURE(a != NULL);
    if (!a) return;
    size_t contacts = tl_world_contact_count(a);
    fprintf(stderr, "36 ellipsoids in a box, 3000 steps: %zu contacts; hash %016llx (1 thread) %016llx (2) "
                    "%016llx (saved at 1500, resumed)\n",
            contacts, (unsigned long long)h[0], (unsigned long long)h[1], (unsigned long long)h[2]);
    ENSURE(contacts > 15);
    ENSURE(h[0] == h[1]);
    ENSURE(h[0] == h[2]);
    /* the state as one piece and a frame (what each MPI rank writes): joined in a fresh bed, the
     * state's bytes exactly, shape-stage candidates and patch records included */
    void *data = NULL, *piece = NULL, *frame = NULL, *joined = NULL;
    size_t size = 0, ps = 0, fs = 0, js = 0;
    ENSURE_OK(tl_world_save_state(a, &data, &size));
    ENSURE_OK(tl_world_save_piece(a, &piece, &ps));
    ENSURE_OK(tl_world_save_frame(a, &frame, &fs));
    tl_world *b = bed(1);
    ENSURE_OK(tl_world_prepare(b));
    const void *pv[1] = {piece};
    ENSURE_OK(tl_world_join_state(b, frame, fs, pv, &ps, 1, &joined, &js));
    ENSURE(js == size && joined && memcmp(joined, data, size) == 0);
    fprintf(stderr, "its state as a piece (%zu bytes) and a frame (%zu): joined, the state's %zu bytes %s\n", ps, fs,
            size, js == size && joined && memcmp(joined, data, size) == 0 ? "exactly" : "NOT");
    free(data);
    free(piece);
    free(frame);
    free(joined);
    tl_world_destroy(b);
    tl_world_destroy(a);
}

int main(void) {
    rocks_about_its_flattest_side();
    conserves_energy();
    bed_determinism();
    return tl_test_report("test_ellipsoid_dynamics");
}
