/* The dynamic angle of repose (tl_world_repose) and the rotating drum.
 *
 * 1. The measure against geometry: spheres on a lattice filling a circular
 *    segment whose chord is tilted by a known angle (no stepping): the
 *    surface fit and the centroid both return that angle.
 * 2. A small drum (examples/meshes/drum.stl scaled to R = 40 mm, L = 20 mm,
 *    an open mesh wall with two plane caps, all turning at 30 rpm) with 420
 *    glass beads: once the bed rolls steadily, the two measures agree, the
 *    angle is a plausible one for mu = 0.5, the bed's angular momentum about
 *    the axis changes by exactly the impulse of the torques on it (the walls'
 *    and the weight's, M g u_c) and the drum's torque balances the weight's
 *    moment on average; with mu = 0.1 the angle is clearly lower. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

/* ---- 1: a segment of known tilt ---- */
static void test_segment(double beta_deg, double fill_depth) {
    const double R = 0.05, r = 0.001, beta = beta_deg * 3.14159265358979323846 / 180.0;
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0.0, 0.0, -9.81};
    wd.dt = 1e-6;
    wd.allow_initial_overlaps = true;
    tl_world *w;
    ENSURE_OK(tl_world_create(&wd, &w));
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = 2500;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.25;
    int m;
    ENSURE_OK(tl_world_add_material(w, &md, &m));
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = r;
    /* the chord: points whose height along n = (-sin b, cos b) (in x, z) is below c */
    const double nx = -sin(beta), nz = cos(beta), c = -R + fill_depth;
    const double h = 2.0 * r;
    int count = 0;
    for (double x = -R; x <= R; x += h)
        for (double z = -R; z <= R; z += h)
            for (double y = -0.005; y <= 0.005; y += h) {
                if (x * x + z * z > (R - r) * (R - r)) continue;
                if (nx * x + nz * z > c) continue;
                pd.position = (tl_vec3){x, y, z};
                ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
                count++;
            }
    tl_repose_def rd = tl_repose_default();
    rd.axis = (tl_vec3){0.0, 1.0, 0.0};
    tl_repose out;
    ENSURE_OK(tl_world_repose(w, &rd, &out));
    fprintf(stderr, "segment tilted %.1f deg, depth %.3f m (%d spheres): surface %.2f deg (%d bins, rms "
                    "%.2g m), centroid %.2f deg\n",
            beta_deg, fill_depth, count, out.angle_surface, out.bins, out.surface_rms, out.angle_centroid);
    /* the axis is +y, gravity -z: u = v x a = z x y = -x; a surface rising towards -x tilts +u */
    ENSURE(out.particles == (size_t)count);
    ENSURE(fabs(-out.angle_surface - beta_deg) < 1.0);
    ENSURE(fabs(-out.angle_centroid - beta_deg) < 1.0);
    ENSURE(out.surface_rms < 2.0 * r);
    /* bad definitions are refused */
    rd.trim = 0.5;
    ENSURE(tl_world_repose(w, &rd, &out) == TL_ERROR_ARGUMENT);
    rd = tl_repose_default();
    rd.axis = (tl_vec3){0.0, 0.0, 1.0}; /* along gravity */
    ENSURE(tl_world_repose(w, &rd, &out) == TL_ERROR_ARGUMENT);
    tl_world_destroy(w);
}

/* ---- 2: the drum ---- */
static const char *const DRUM =
    "talus: 1\n"
    "name: small drum\n"
    "seed: 11\n"
    "gravity: [0, 0, -9.81]\n"
    "domain: {min: [-0.05, -0.015, -0.05], max: [0.05, 0.015, 0.05]}\n"
    "integrator: {dt: auto}\n"
    "materials:\n"
    "  glass: {density: 2500, youngs_modulus: 2.0e6, poisson_ratio: 0.25}\n"
    "  steel: {density: 7800, youngs_modulus: 2.0e6, poisson_ratio: 0.3}\n"
    "laws:\n"
    "  - {between: [glass, any], normal: hertz, damping: tsuji, tangential: mindlin, e: 0.5, mu: %g}\n"
    "walls:\n"
    "  - {name: drum, type: mesh, material: steel, file: meshes/drum.stl, scale: 0.4,\n"
    "     motion: {rotate: {axis: [0, 1, 0], point: [0, 0, 0], rpm: 30}}}\n"
    "  - {name: front, type: plane, material: steel, point: [0, -0.01, 0], normal: [0, 1, 0],\n"
    "     motion: {rotate: {axis: [0, 1, 0], point: [0, 0, 0], rpm: 30}}}\n"
    "  - {name: back, type: plane, material: steel, point: [0, 0.01, 0], normal: [0, -1, 0],\n"
    "     motion: {rotate: {axis: [0, 1, 0], point: [0, 0, 0], rpm: 30}}}\n"
    "particles:\n"
    "  - random: {material: glass, radius: 0.002, count: 420,\n"
    "             region: {min: [-0.027, -0.0095, -0.027], max: [0.027, 0.0095, 0.027]}}\n"
    "stages:\n"
    "  - {duration: 1}\n";

typedef struct drum_result {
    double surface, centroid, torque, torque_gravity, dl, impulse, impulse_scale;
} drum_result;

/* the bed's angular momentum about the drum's axis (y, through the origin) */
static double momentum_y(tl_world *w) {
    tl_particle_arrays pa;
    if (tl_world_particle_arrays(w, &pa) != TL_OK) return NAN;
    double l = 0.0;
    for (size_t i = 0; i < pa.count; i++) {
        const double *x = pa.position + 3 * i, *v = pa.velocity + 3 * i;
        double m = pa.mass[i], r = pa.radius[i];
        l += m * (x[2] * v[0] - x[0] * v[2]) + 0.4 * m * r * r * pa.angular_velocity[3 * i + 1];
    }
    return l;
}

static drum_result run_drum(double mu) {
    drum_result res = {NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    char text[4096];
    snprintf(text, sizeof text, DRUM, mu);
    tl_scene *sc = NULL;
    tl_scene_error err;
    tl_status st = tl_scene_load_string(text, TALUS_SOURCE_DIR "/examples/test-drum.yaml", &sc, &err);
    if (st != TL_OK) {
        char buf[2048];
        tl_scene_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "drum scene refused: %s\n", buf);
    }
    ENSURE_OK(st);
    if (st != TL_OK) return res;
    tl_world *w = tl_scene_world(sc);
    ENSURE_OK(tl_world_prepare(w));
    double dt = tl_world_dt(w);
    /* 1 s (half a turn) to fall and roll steadily, then 0.3 s step by step: the angles
     * sampled every 0.025 s, the torques at every step */
    ENSURE_OK(tl_world_step(w, (int64_t)(1.0 / dt)));
    const int64_t steps = (int64_t)(0.3 / dt), every = (int64_t)(0.025 / dt);
    double s = 0.0, c = 0.0, t = 0.0, tg = 0.0, impulse = 0.0, scale = 0.0;
    int samples = 0;
    tl_repose_def rd = tl_repose_default();
    double l0 = momentum_y(w);
    for (int64_t k = 1; k <= steps; k++) {
        ENSURE_OK(tl_world_step(w, 1));
        tl_repose out;
        ENSURE_OK(tl_world_repose(w, &rd, &out));
        double ta = 0.0; /* the particles' torque on the walls about the axis */
        for (int i = 0; i < tl_world_wall_count(w); i++) {
            tl_wall_state ws;
            ENSURE_OK(tl_world_get_wall(w, i, &ws));
            ta += ws.torque.y;
        }
        /* on the bed: the walls' torque -ta and gravity's moment (u = -x here) -M g u_c */
        impulse += (-ta - out.torque_gravity) * dt;
        scale += fabs(out.torque_gravity) * dt;
        t += ta;
        tg += out.torque_gravity;
        if (k % every == 0) {
            s += out.angle_surface;
            c += out.angle_centroid;
            samples++;
        }
    }
    res.dl = momentum_y(w) - l0;
    res.impulse = impulse;
    res.impulse_scale = scale;
    res.surface = s / samples;
    res.centroid = c / samples;
    res.torque = t / (double)steps;
    res.torque_gravity = tg / (double)steps;
    fprintf(stderr, "drum, mu = %.2f, dt %.3g s: surface %.2f deg, centroid %.2f deg (%d samples); mean "
                    "torque on the walls about the axis %.4g N m, weight's moment M g u_c %.4g N m; over "
                    "0.3 s the bed's angular momentum changed by %.4g N m s, the torques' impulse %.4g "
                    "(of %.4g)\n",
            mu, dt, res.surface, res.centroid, samples, res.torque, res.torque_gravity, res.dl,
            res.impulse, res.impulse_scale);
    tl_scene_destroy(sc);
    return res;
}

/* `test_drum measure` runs part 1 only, `test_drum drum` part 2 only (two ctest entries:
 * the drum takes 12 minutes under the sanitizers, which CI's sanitizer run leaves out) */
int main(int argc, char **argv) {
    const char *part = argc > 1 ? argv[1] : "";
    if (strcmp(part, "drum") != 0) {
        test_segment(30.0, 0.04);
        test_segment(12.0, 0.055);
    }
    if (strcmp(part, "measure") == 0) return tl_test_report("test_drum measure");
    drum_result a = run_drum(0.5);
    /* +30 rpm about +y carries the bed up on the +u side */
    ENSURE(a.surface > 18.0 && a.surface < 45.0);
    ENSURE(fabs(a.surface - a.centroid) < 4.0);
    /* the bed's angular momentum changes by the impulse of the torques on it (walls and
     * weight), step by step; in steady rolling both are small: the drum's torque balances
     * the weight's moment */
    ENSURE(fabs(a.dl - a.impulse) < 0.01 * a.impulse_scale);
    ENSURE(fabs(a.torque + a.torque_gravity) < 0.1 * fabs(a.torque_gravity));
    drum_result b = run_drum(0.1);
    ENSURE(b.surface < a.surface - 5.0);
    ENSURE(fabs(b.surface - b.centroid) < 4.0);
    ENSURE(fabs(b.dl - b.impulse) < 0.01 * b.impulse_scale);
    ENSURE(fabs(b.torque + b.torque_gravity) < 0.1 * fabs(b.torque_gravity));
    return tl_test_report("test_drum");
}
