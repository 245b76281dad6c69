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

/* a material of density 1000 and Poisson's ratio 0.3, the given law between itself */
static int material_with(tl_world *w, double E, const tl_law_def *law) {
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = 1000;
    md.youngs_modulus = E;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(w, &md, &m);
    if (tl_world_set_law(w, m, m, law) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    return m;
}

static int material(tl_world *w, double E, const char *damping, double e, const char *tangential, double mu) {
    tl_law_def law = tl_law_default();
    law.damping = damping;
    law.tangential = tangential;
    if (strcmp(tangential, "none") == 0) law.history = "none";
    if (strcmp(damping, "none") != 0) tl_law_set(&law, "e", e);
    if (strcmp(tangential, "none") != 0) tl_law_set(&law, "mu", mu);
    return material_with(w, E, &law);
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

/* rock: set down tilted 0.3 rad on the plane, at rest, touching (the contact then lasts: it rocks);
 * else dropped from 5 cm with spin (it bounces) */
static double bounce_drift(double steps_per_contact, double *total0, bool rock, double *balance) {
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
    if (rock) {
        /* turned 0.3 rad about a unit axis in the x-y plane off the body axes, its lowest point on
         * the plane: a rocking that turns the contact over the whole cap */
        const double th = 0.3, ux = 0.6, uy = 0.8, b2[3] = {0.02 * 0.02, 0.012 * 0.012, 0.008 * 0.008};
        pd.orientation = (tl_quat){cos(0.5 * th), ux * sin(0.5 * th), uy * sin(0.5 * th), 0.0};
        /* the body's z column of R is the world z in body coordinates: (R^T e_z) */
        double sn = sin(th), cs = cos(th), ez[3] = {uy * sn, -ux * sn, cs};
        pd.position = (tl_vec3){0, 0, sqrt(b2[0] * ez[0] * ez[0] + b2[1] * ez[1] * ez[1] + b2[2] * ez[2] * ez[2])};
        pd.angular_velocity = (tl_vec3){0, 0, 0};
    }
    uint32_t id;
    tl_world_add_particle(w, &pd, &id);
    tl_world_prepare(w);
    tl_energy e0, e;
    tl_world_energy(w, &e0);
    *total0 = e0.kinetic_translational + e0.kinetic_rotational + e0.potential;
    /* the largest departure over the run, sampled every step (the value at one instant is a sum of
     * errors of either sign, which a finer step need not shrink at every halving) */
    double drift = 0.0;
    const int64_t steps = (int64_t)(0.4 / tl_world_dt(w));
    for (int64_t k = 0; k < steps; k++) {
        ENSURE(tl_world_step(w, 1) == TL_OK);
        tl_world_energy(w, &e);
        drift = fmax(drift, fabs(e.kinetic_translational + e.kinetic_rotational + e.potential + e.elastic_normal -
                                 *total0));
    }
    *balance = fabs(e.total - e0.total);
    tl_world_destroy(w);
    return drift;
}

/* The curvature at the contact is the one of the body's attitude now, and the force against a face
 * is the gradient of the law's energy E(delta, R(attitude)) (docs/ellipsoid.md): undamped and
 * frictionless, bouncing or rocking, the energy departs only by the integrator's second-order error.
 * Without the curvature torque the departure stays at 4.8e-5 J (bounce) whatever the step. */
static void conserves_energy(void) {
    double t0, b[3], d20 = bounce_drift(20, &t0, false, b), d40 = bounce_drift(40, &t0, false, b + 1),
                     d80 = bounce_drift(80, &t0, false, b + 2);
    fprintf(stderr,
            "undamped frictionless ellipsoid spinning and bouncing for 0.4 s: largest energy departure %.3g, %.3g, "
            "%.3g of %.6g J at 20, 40, 80 steps per contact (ratios %.2f, %.2f); the books' balance at the end "
            "%.2g, %.2g, %.2g J\n",
            d20, d40, d80, t0, d20 / d40, d40 / d80, b[0], b[1], b[2]);
    ENSURE(d80 < 3e-4 * fabs(t0));
    ENSURE(d20 / d40 > 3.0 && d40 / d80 > 3.0);
    /* the ledger books the work against the curvature torque with the spring's: the balance closes
     * (booked with the wrong sign: 3e-5 J at every step) */
    ENSURE(b[2] < 1e-6 * fabs(t0));
    double r0, rb[3], r20 = bounce_drift(20, &r0, true, rb), r40 = bounce_drift(40, &r0, true, rb + 1),
                      r80 = bounce_drift(80, &r0, true, rb + 2);
    fprintf(stderr,
            "undamped frictionless ellipsoid rocking on the plane from a 0.3 rad tilt for 0.4 s: largest energy "
            "departure %.3g, %.3g, %.3g J of %.4g J at 20, 40, 80 steps per contact (ratios %.2f, %.2f); the books' "
            "balance %.2g, %.2g, %.2g J\n",
            r20, r40, r80, r0, r20 / r40, r40 / r80, rb[0], rb[1], rb[2]);
    ENSURE(r20 / r40 > 3.0 && r40 / r80 > 3.0);
    ENSURE(r80 < 1e-6 * r0);
    ENSURE(rb[2] < 1e-7 * r0 && rb[0] / rb[2] > 8.0);
}

/* The Hertz overlap of the curvature at rest. An ellipsoid 30 x 20 x 10 mm dropped in three attitudes
 * with damping, friction and rolling resistance comes to rest on its c pole; its overlap, h(e_z) - z
 * for its attitude (h the support function along the vertical), is Hertz's for the contact's
 * curvature there, R = abc / h^2 (ab/c on the pole) to 1 %. With the radius of the first touch kept
 * for the contact's life it rested at 1.16 to 1.89 times that overlap. */
static void rests_at_its_curvature(void) {
    const double a = 0.03, b = 0.02, c = 0.01, E = 5e6, nu = 0.3, g = 9.81;
    const double att[3][4] = {{0.8, 0.36, 0.48, 0.0}, {0.7, 0.2, -0.3, 0.6}, {0.3, 0.1, -0.9, 0.3}};
    for (int k = 0; k < 3; k++) {
        tl_world_def wd = tl_world_default();
        wd.gravity = (tl_vec3){0, 0, -g};
        wd.impact_speed = 1.0;
        tl_world *w;
        tl_world_create(&wd, &w);
        tl_law_def law = tl_law_default();
        law.damping = "tsuji";
        law.tangential = "mindlin";
        law.rolling = "epsd";
        tl_law_set(&law, "e", 0.3);
        tl_law_set(&law, "mu", 0.5);
        tl_law_set(&law, "mu_r", 0.05);
        tl_law_set(&law, "eta_r", 0.5);
        int m = material_with(w, E, &law); /* its Poisson ratio is 0.3: nu above */
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
        const double *q = att[k], nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        pd.orientation = (tl_quat){q[0] / nq, q[1] / nq, q[2] / nq, q[3] / nq};
        pd.position = (tl_vec3){0, 0, a + 0.005};
        uint32_t id;
        ENSURE_OK(tl_world_add_particle(w, &pd, &id));
        ENSURE_OK(tl_world_prepare(w));
        ENSURE_OK(tl_world_step(w, (int64_t)llround(3.0 / tl_world_dt(w))));
        tl_particle_state p;
        tl_world_get_particle(w, id, &p);
        /* the vertical in body coordinates: the third row of R(q) */
        tl_quat o = p.orientation;
        double ez[3] = {2 * (o.x * o.z - o.w * o.y), 2 * (o.y * o.z + o.w * o.x), 1 - 2 * (o.x * o.x + o.y * o.y)};
        double h = sqrt(a * a * ez[0] * ez[0] + b * b * ez[1] * ez[1] + c * c * ez[2] * ez[2]);
        double delta = h - p.position.z, R = a * b * c / (h * h);
        double Es = E / (2 * (1 - nu * nu)), d_hertz = pow(p.mass * g / (4.0 / 3.0 * Es * sqrt(R)), 2.0 / 3.0);
        double speed = sqrt(p.velocity.x * p.velocity.x + p.velocity.y * p.velocity.y + p.velocity.z * p.velocity.z);
        double tilt = acos(fmin(1.0, fabs(ez[2])));
        fprintf(stderr,
                "ellipsoid (30, 20, 10) mm dropped in attitude %d, 3 s: c axis %.2g rad from vertical, speed %.2g m/s, "
                "spin about the vertical %.3g rad/s; overlap %.6g m = %.6f x Hertz's for R = abc/h^2 = %.5g m "
                "(ab/c = %.5g)\n",
                k, tilt, speed, p.angular_velocity.z, delta, delta / d_hertz, R, a * b / c);
        /* settled on its c pole (it may still wobble a little: its spin about the vertical meets no
         * resistance and keeps it precessing) */
        ENSURE(tilt < 0.05);
        ENSURE(speed < 2e-3);
        ENSURE(fabs(delta / d_hertz - 1.0) < 0.01);
        tl_world_destroy(w);
    }
}

/* Two ellipsoids meeting with spin, undamped and frictionless, in no gravity: the radius of the
 * contact follows the surfaces' curvature, and what its change does to the stored energy is booked
 * as curvature_work (no force does it). The books close with it: the integration residual is the
 * integrator's (falling fourfold per halving of the step) and the total, with the curvature work
 * taken as energy put in, is conserved; the curvature work is not zero. */
static void pair_books_its_curvature(void) {
    double res[3], curv[3], tot[3];
    for (int r = 0; r < 3; r++) {
        tl_world_def wd = tl_world_default();
        wd.impact_speed = 1.0;
        wd.steps_per_contact = 20.0 * (double)(1 << r);
        tl_world *w;
        tl_world_create(&wd, &w);
        int m = material(w, 1e7, "none", 1.0, "none", 0.0);
        tl_shape_def sd = tl_shape_default();
        sd.semi_axes = (tl_vec3){0.02, 0.012, 0.008};
        int s;
        tl_world_add_shape(w, &sd, &s);
        tl_particle_def pd = tl_particle_default();
        pd.material = m;
        pd.shape = s;
        pd.orientation = (tl_quat){0.8, 0.36, 0.48, 0.0};
        pd.position = (tl_vec3){0, 0, 0};
        pd.velocity = (tl_vec3){0, 0, 0.5};
        pd.angular_velocity = (tl_vec3){30, -70, 110};
        tl_world_add_particle(w, &pd, NULL);
        pd.orientation = (tl_quat){0.6, 0.0, -0.8, 0.0};
        pd.position = (tl_vec3){0.004, -0.003, 0.045};
        pd.velocity = (tl_vec3){0, 0, -0.5};
        pd.angular_velocity = (tl_vec3){-50, 20, 40};
        tl_world_add_particle(w, &pd, NULL);
        ENSURE_OK(tl_world_prepare(w));
        tl_energy e0, e;
        tl_world_energy(w, &e0);
        double worst = 0.0;
        const int64_t steps = (int64_t)(0.05 / tl_world_dt(w));
        for (int64_t k = 0; k < steps; k++) {
            ENSURE_OK(tl_world_step(w, 1));
            tl_world_energy(w, &e);
            worst = fmax(worst, fabs(e.integration_residual));
        }
        res[r] = worst;
        curv[r] = e.curvature_work;
        tot[r] = fabs(e.total - e0.total) / e0.kinetic_translational;
        tl_world_destroy(w);
    }
    fprintf(stderr,
            "two spinning ellipsoids meeting undamped and frictionless: curvature work %.4g, %.4g, %.4g J, largest "
            "integration residual %.3g, %.3g, %.3g J at 20, 40, 80 steps per contact (ratios %.2f, %.2f); total "
            "conserved to %.2g, %.2g, %.2g\n",
            curv[0], curv[1], curv[2], res[0], res[1], res[2], res[0] / res[1], res[1] / res[2], tot[0], tot[1], tot[2]);
    ENSURE(fabs(curv[2]) > 20.0 * res[2]);
    ENSURE(res[0] / res[1] > 3.0 && res[1] / res[2] > 3.0);
    /* the total too departs by the integrator's error only (the rigid bodies' rotation is not
     * integrated to the ledger's trapezoid exactly) */
    ENSURE(tot[0] / tot[1] > 3.0 && tot[1] / tot[2] > 3.0 && tot[2] < 1e-5);
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
    rests_at_its_curvature();
    pair_books_its_curvature();
    bed_determinism();
    return tl_test_report("test_ellipsoid_dynamics");
}
