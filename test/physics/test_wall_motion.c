/* Walls that move (walls.c, tl_motion_def): rotation, oscillation, rocking.
 *
 *   - a sphere on a plane that starts level and turns at Omega about a line
 *     through the initial contact point rolls down it without slipping; the
 *     Lagrangian gives (m + I/R^2) s'' = m s Omega^2 + m g sin(Omega t) for
 *     its distance s from the axis along the plane, solved in closed form
 *     (below): the engine follows it;
 *   - a sphere resting on the floor of a box that translates keeps its place
 *     in the box and does not spin;
 *   - spheres in a rocking box and in a turning box: the energy balance closes
 *     (the boundary work of turning walls);
 *   - a run with a rocking wall stopped, saved and resumed ends bit for bit
 *     where the straight run ends.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "talus/talus.h"
#include "test.h"
#include "world_hash.h"

#define PI 3.14159265358979323846

static int material(tl_world *w, double E, double e, double mu) {
    tl_material_def md = tl_material_default();
    md.name = "steel";
    md.density = 7800;
    md.youngs_modulus = E;
    md.poisson_ratio = 0.3;
    int m;
    if (tl_world_add_material(w, &md, &m) != TL_OK) return -1;
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", e);
    tl_law_set(&law, "mu", mu);
    if (tl_world_set_law(w, m, m, &law) != TL_OK) return -1;
    return m;
}

/* The closed form: s(0) = 0 and the sphere at rest in the world, so
 * s'(0) = -R Omega (the plane's point under it moves); with k^2 = 5/7 Omega^2,
 * s = C sinh(k t) + A sin(Omega t), A = -(5/12) g / Omega^2, C = -(R + A) Omega / k. */
static double rolling_s(double t, double R, double g, double Om) {
    double k = Om * sqrt(5.0 / 7.0), A = -5.0 / 12.0 * g / (Om * Om), C = -(R + A) * Om / k;
    return C * sinh(k * t) + A * sin(Om * t);
}

static void turning_plane(void) {
    const double R = 0.005, g = 9.81, Om = 0.5, T = 0.6;
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -g};
    wd.impact_speed = 0.1;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 2e9, 0.5, 0.8);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.point = (tl_vec3){0, 0, 0};
    wl.normal = (tl_vec3){0, 0, 1};
    wl.motion.kind = TL_MOTION_ROTATE;
    wl.motion.axis = (tl_vec3){0, 1, 0};
    wl.motion.pivot = (tl_vec3){0, 0, 0};
    wl.motion.angular_speed = Om;
    int wi;
    ENSURE(tl_world_add_wall(w, &wl, &wi) == TL_OK);
    /* resting at its equilibrium overlap under its weight */
    double mass = 7800 * 4.0 / 3.0 * PI * R * R * R;
    double Es = 2e9 / (2.0 * (1.0 - 0.09)); /* sphere and wall of the same steel */
    double K = 4.0 / 3.0 * Es * sqrt(R), d0 = pow(mass * g / K, 2.0 / 3.0);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0, 0, R - d0};
    uint32_t id;
    ENSURE(tl_world_add_particle(w, &pd, &id) == TL_OK);
    ENSURE(tl_world_prepare(w) == TL_OK);
    int64_t steps = (int64_t)(T / tl_world_dt(w));
    double worst = 0.0;
    for (int chunk = 1; chunk <= 6; chunk++) {
        ENSURE(tl_world_step(w, steps / 6) == TL_OK);
        tl_particle_state p;
        tl_world_get_particle(w, id, &p);
        tl_wall_state ws;
        tl_world_get_wall(w, wi, &ws);
        double t = tl_world_time(w), th = ws.angle;
        double tdir[3] = {cos(th), 0.0, -sin(th)};
        double s = p.position.x * tdir[0] + p.position.z * tdir[2];
        double want = rolling_s(t, R, g, Om);
        worst = fmax(worst, fabs(s - want) / fabs(want));
        if (chunk == 6)
            fprintf(stderr,
                    "turning plane: at t = %.4f s (plane at %.4f rad, closed form %.4f) the sphere is %.9f m down "
                    "the plane, closed form %.9f m; largest relative difference %.3g over 6 samples\n",
                    t, th, Om * t, s, want, worst);
        ENSURE_NEAR(th, Om * t, 1e-12);
    }
    ENSURE(worst < 2e-4);
    tl_world_destroy(w);
}

static void translating_box(void) {
    const double R = 0.004, g = 9.81;
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -g};
    wd.impact_speed = 0.1;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 1e8, 0.5, 0.5);
    tl_vec3 v = {0.2, -0.1, 0.0};
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.kind = TL_WALL_BOX;
    wl.box_min = (tl_vec3){0, 0, 0};
    wl.box_max = (tl_vec3){0.05, 0.05, 0.05};
    wl.velocity = v;
    int wi;
    ENSURE(tl_world_add_wall(w, &wl, &wi) == TL_OK);
    double mass = 7800 * 4.0 / 3.0 * PI * R * R * R;
    double Es = 1e8 / (2.0 * (1.0 - 0.09)), K = 4.0 / 3.0 * Es * sqrt(R), d0 = pow(mass * g / K, 2.0 / 3.0);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    pd.position = (tl_vec3){0.02, 0.03, R - d0};
    pd.velocity = v;
    uint32_t id;
    ENSURE(tl_world_add_particle(w, &pd, &id) == TL_OK);
    ENSURE(tl_world_step(w, 20000) == TL_OK);
    tl_particle_state p;
    tl_world_get_particle(w, id, &p);
    tl_wall_state ws;
    tl_world_get_wall(w, wi, &ws);
    double rel[3] = {p.position.x - ws.displacement.x - 0.02, p.position.y - ws.displacement.y - 0.03,
                     p.position.z - (R - d0)};
    double drift = sqrt(rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2]);
    double spin = sqrt(p.angular_velocity.x * p.angular_velocity.x + p.angular_velocity.y * p.angular_velocity.y +
                       p.angular_velocity.z * p.angular_velocity.z);
    fprintf(stderr, "translating box: after %.3f s (box moved %.4f m) the sphere is %.3g m from its place in the box, "
                    "spin %.3g rad/s\n",
            tl_world_time(w), ws.displacement.x, drift, spin);
    ENSURE(fabs(ws.displacement.x) > 0.01);
    ENSURE(drift < 1e-12); /* m */
    ENSURE(spin < 1e-9);
    tl_world_destroy(w);
}

/* spheres in a box that rocks or turns */
static tl_world *moving_box(tl_motion_kind kind, uint32_t *n) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 5e6, 0.6, 0.4);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.kind = TL_WALL_BOX;
    wl.box_min = (tl_vec3){-0.02, -0.01, 0};
    wl.box_max = (tl_vec3){0.02, 0.01, 0.04};
    wl.motion.kind = kind;
    wl.motion.axis = (tl_vec3){0, 1, 0};
    wl.motion.pivot = (tl_vec3){0, 0, 0.01};
    if (kind == TL_MOTION_ROCK) {
        wl.motion.amplitude = 15.0 * PI / 180.0;
        wl.motion.period = 0.1;
    } else {
        wl.motion.angular_speed = 6.0;
    }
    tl_world_add_wall(w, &wl, NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = 0.0018;
    *n = 0;
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 8; i++) {
                pd.position = (tl_vec3){-0.017 + i * 0.0045 + 0.0002 * k, -0.007 + j * 0.0045, 0.003 + k * 0.0045};
                tl_world_add_particle(w, &pd, NULL);
                (*n)++;
            }
    return w;
}

static void ledger(tl_motion_kind kind, const char *name) {
    uint32_t n;
    tl_world *w = moving_box(kind, &n);
    ENSURE(tl_world_prepare(w) == TL_OK);
    tl_energy e0, e;
    tl_world_energy(w, &e0);
    ENSURE(tl_world_step(w, (int64_t)(0.2 / tl_world_dt(w))) == TL_OK);
    tl_world_energy(w, &e);
    double scale = fabs(e.boundary_work) + fabs(e.dissipated_normal) + fabs(e.dissipated_friction) +
                   fabs(e0.potential) + 1e-30;
    fprintf(stderr,
            "%s box: %u spheres for 0.2 s: boundary work %.6g J, dissipated %.6g J, kinetic %.6g J; balance "
            "%.3g J (%.2g of the largest term)\n",
            name, n, e.boundary_work,
            e.dissipated_normal + e.dissipated_friction + e.dissipated_tangential_damping,
            e.kinetic_translational + e.kinetic_rotational, e.total - e0.total, (e.total - e0.total) / scale);
    ENSURE(fabs(e.boundary_work) > 1e-5); /* the walls did work */
    ENSURE(fabs(e.total - e0.total) < 2e-3 * fabs(e.boundary_work));
    tl_world_destroy(w);
}

static void resume(void) {
    uint32_t n;
    tl_world *a = moving_box(TL_MOTION_ROCK, &n);
    ENSURE(tl_world_step(a, 3000) == TL_OK);
    void *data;
    size_t size;
    ENSURE(tl_world_save_state(a, &data, &size) == TL_OK);
    ENSURE(tl_world_step(a, 3000) == TL_OK);
    uint64_t straight = tl_test_world_hash(a);
    tl_world *b = moving_box(TL_MOTION_ROCK, &n);
    ENSURE(tl_world_load_state(b, data, size) == TL_OK);
    ENSURE(tl_world_step(b, 3000) == TL_OK);
    uint64_t resumed = tl_test_world_hash(b);
    tl_wall_state wa, wb;
    tl_world_get_wall(a, 0, &wa);
    tl_world_get_wall(b, 0, &wb);
    fprintf(stderr, "rocking box: straight %016llx, resumed %016llx; wall angle %.9f / %.9f rad, torque y %.6g / %.6g\n",
            (unsigned long long)straight, (unsigned long long)resumed, wa.angle, wb.angle, wa.torque.y, wb.torque.y);
    ENSURE(straight == resumed);
    ENSURE(wa.angle == wb.angle && wa.torque.y == wb.torque.y);
    free(data);
    tl_world_destroy(a);
    tl_world_destroy(b);
}

/* A scene: a box rocks for one period, then stands still (motion: none); the walls
 * output follows the angle A sin(2 pi t / T) and the torque about the pivot. */
static void scene_sequence(void) {
    static const char *text =
        "talus: 1\n"
        "materials: {steel: {density: 7800, youngs_modulus: 5.0e6, poisson_ratio: 0.3}}\n"
        "laws: [{between: [steel, steel], normal: hertz, damping: tsuji, tangential: mindlin, e: 0.5, mu: 0.4}]\n"
        "gravity: [0, 0, -9.81]\n"
        "walls:\n"
        "  - {name: box, type: box, material: steel, min: [-0.02, -0.01, 0], max: [0.02, 0.01, 0.04],\n"
        "     motion: {rock: {axis: [0, 1, 0], point: [0, 0, 0.01], amplitude_deg: 10, period: 0.1}}}\n"
        "particles:\n"
        "  - lattice: {material: steel, radius: 0.0018, min: [-0.018, -0.008, 0.002], max: [0.018, 0.008, 0.02],"
        " spacing: 0.0045}\n"
        "stages:\n"
        "  - {name: rock, duration: 0.1}\n"
        "  - {name: still, duration: 0.02, set: {walls: [{wall: box, motion: none}]}}\n"
        "outputs:\n"
        "  - {type: walls, file: walls.csv, every_steps: 50, torque_about: [0, 0, 0.01]}\n";
    tl_scene *sc = NULL;
    tl_scene_error err;
    ENSURE(tl_scene_load_string(text, "rock.yaml", &sc, &err) == TL_OK);
    if (!sc) {
        char msg[1024];
        tl_scene_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return;
    }
    char dir[] = "/tmp/talus-test-motion-XXXXXX";
    ENSURE(mkdtemp(dir) != NULL);
    tl_run_options opt = tl_run_options_default();
    opt.output_dir = dir;
    tl_run_summary sum;
    ENSURE(tl_scene_run(sc, &opt, &sum) == TL_OK);
    char path[256];
    snprintf(path, sizeof path, "%s/walls.csv", dir);
    FILE *f = fopen(path, "r");
    ENSURE(f != NULL);
    char line[1024];
    int rows = 0;
    double worst = 0.0, last_angle = NAN, torque_seen = 0.0;
    if (f && fgets(line, sizeof line, f)) {
        ENSURE(strncmp(line, "time,step,wall,dx,dy,dz,vx,vy,vz,fx,fy,fz,tx,ty,tz,wx,wy,wz,angle,servo", 68) == 0);
        while (fgets(line, sizeof line, f)) {
            double d[20];
            char *p = line;
            for (int k = 0; k < 20; k++) {
                d[k] = strtod(p, &p);
                if (*p == ',') p++;
            }
            double t = d[0], want = t <= 0.1 + 1e-12 ? 10.0 * PI / 180.0 * sin(2.0 * PI * t / 0.1) : last_angle;
            if (t <= 0.1 + 1e-12) worst = fmax(worst, fabs(d[18] - want));
            else ENSURE(d[18] == 0.0 && d[16] == 0.0); /* it stands still (a new motion: angle from 0) */
            if (t <= 0.1 + 1e-12) last_angle = d[18];
            torque_seen = fmax(torque_seen, fabs(d[13]));
            rows++;
        }
        fclose(f);
    }
    fprintf(stderr, "scene: rock for 0.1 s then stand still: %d rows, angle within %.2g rad of 10 deg sin(2 pi t / "
                    "T), largest torque about the pivot %.3g N m\n",
            rows, worst, torque_seen);
    ENSURE(rows > 20);
    ENSURE(worst < 1e-11); /* the CSV's 12 significant digits */
    ENSURE(torque_seen > 1e-5);
    tl_scene_destroy(sc);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ENSURE(system(cmd) == 0);
}

/* The automatic step's impact speed counts every way a surface can arrive (issue 42 items 8, 9):
 * a body's spin (what it adds to the normal speed of its surface: omega sqrt(a^2 - c^2) for an
 * ellipsoid, none for a sphere), a turning wall's surface at the bodies
 * (omega x (x - pivot)), and a servo's largest speed. No gravity: the speed alone (a body at rest
 * in zero gravity gives none, and the step cannot be estimated). Before, each gave 0 here. */
static double impact_speed_of(double spin, double wall_spin, double servo_max, bool ellipsoid) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, 0};
    tl_world *w;
    ENSURE(tl_world_create(&wd, &w) == TL_OK);
    int m = material(w, 2e9, 0.5, 0.5);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.point = (tl_vec3){0, 0, 0};
    wl.normal = (tl_vec3){0, 0, 1};
    if (wall_spin > 0.0) {
        wl.motion.kind = TL_MOTION_ROTATE;
        wl.motion.axis = (tl_vec3){0, 0, 1}; /* about its own normal */
        wl.motion.pivot = (tl_vec3){0, 0, 0};
        wl.motion.angular_speed = wall_spin;
    }
    int wi;
    ENSURE(tl_world_add_wall(w, &wl, &wi) == TL_OK);
    if (servo_max > 0.0) {
        tl_servo_def sv = {true, {0, 0, 1}, 1.0, 1.0, servo_max};
        ENSURE(tl_world_set_wall_servo(w, wi, &sv) == TL_OK);
    }
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = 1e-3;
    pd.position = (tl_vec3){0.5, 0, 0.01};
    pd.angular_velocity = (tl_vec3){0, spin, 0};
    if (ellipsoid) { /* 2 x 1 x 1 mm: its spin moves its surface at up to omega sqrt(a^2 - c^2) */
        tl_shape_def sd = tl_shape_default();
        sd.kind = TL_SHAPE_ELLIPSOID;
        sd.semi_axes = (tl_vec3){2e-3, 1e-3, 1e-3};
        int shape;
        ENSURE(tl_world_add_shape(w, &sd, &shape) == TL_OK);
        pd.shape = shape;
    }
    ENSURE(tl_world_add_particle(w, &pd, NULL) == TL_OK);
    ENSURE(tl_world_prepare(w) == TL_OK);
    tl_timestep_info ts;
    ENSURE(tl_world_timestep(w, &ts) == TL_OK);
    ENSURE(ts.impact_speed_estimated);
    tl_world_destroy(w);
    return ts.impact_speed;
}

static void impact_speeds(void) {
    double spin = impact_speed_of(1000.0, 0, 0, true), sphere = impact_speed_of(1000.0, 0, 1e-9, false);
    double plane = impact_speed_of(0, 100.0, 0, false), servo = impact_speed_of(0, 0, 3.0, false);
    fprintf(stderr, "impact speed: an ellipsoid spinning at 1000 rad/s %.9g, a sphere %.9g, on a plane turning at "
                    "100 rad/s %.9g, under a servo of 3 m/s %.9g (m/s)\n", spin, sphere, plane, servo);
    ENSURE_REL(spin, 1000.0 * sqrt(4e-6 - 1e-6), 1e-12);   /* omega sqrt(a^2 - c^2) */
    ENSURE_REL(sphere, 1e-9, 1e-9);                           /* a sphere's spin approaches nothing */
    ENSURE_REL(plane, 100.0 * 0.5 + 100.0 * 1e-3, 1e-12); /* omega (distance from the axis) + omega R */
    ENSURE_REL(servo, 3.0, 1e-12);
}

int main(void) {
    impact_speeds();
    scene_sequence();
    turning_plane();
    translating_box();
    ledger(TL_MOTION_ROCK, "rocking");
    ledger(TL_MOTION_ROTATE, "turning");
    resume();
    return tl_test_report("test_wall_motion");
}
