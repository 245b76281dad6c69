/*
 * A rotating drum: the dynamic angle of repose (issue 13; docs/drum.md), in
 * `talus validate --long`. No source paper gives a drum, so the section holds
 * Talus's measures and the checks that hold whatever the angle is:
 *  - the two measures of tl_world_repose (the free surface's slope and the
 *    bed's centroid) agree when the surface is flat (the rolling regime);
 *  - the bed's angular momentum about the axis changes by the impulse of the
 *    torques on it, the walls' (the drum's liner and caps) and the weight's,
 *    summed step by step;
 *  - friction raises the angle, and elongated grains stand steeper than spheres.
 * Cases: a drum of R = 40 mm at 30 rpm with spheres (mu 0.5 and 0.1) and with
 * ellipsoids of the same volume; and the example's drum (R = 0.1 m, 10 rpm,
 * 2500 beads). The liner is written as drum_liner.stl next to the report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "talus/scene.h"
#include "validate.h"

#define PI 3.14159265358979323846

/* the curved side of a cylinder along y (radius R, length L, n segments), normals out */
static bool write_liner(report *r, const char *name, double R, double L, int n) {
    FILE *f = report_data_open(r, name);
    if (!f) return false;
    fprintf(f, "solid liner\n");
    for (int k = 0; k < n; k++) {
        double a0 = 2.0 * PI * k / n, a1 = 2.0 * PI * (k + 1) / n;
        double x0 = R * cos(a0), z0 = R * sin(a0), x1 = R * cos(a1), z1 = R * sin(a1);
        double p[4][3] = {{x0, -L / 2, z0}, {x1, -L / 2, z1}, {x1, L / 2, z1}, {x0, L / 2, z0}};
        int tri[2][3] = {{0, 2, 1}, {0, 3, 2}};
        for (int t = 0; t < 2; t++) {
            fprintf(f, " facet normal 0 0 0\n  outer loop\n");
            for (int v = 0; v < 3; v++)
                fprintf(f, "   vertex %.12g %.12g %.12g\n", p[tri[t][v]][0], p[tri[t][v]][1], p[tri[t][v]][2]);
            fprintf(f, "  endloop\n endfacet\n");
        }
    }
    fprintf(f, "endsolid liner\n");
    return report_data_close(r, f, name);
}

typedef struct drum_case {
    const char *label, *file; /* the data file's base name */
    double R, L, rpm, mu, E;
    const char *particles;    /* the particles: entries (YAML lines) */
    const char *shapes;       /* a shapes: block or "" */
    double settle, window;    /* s of turning before the measurement, and its length */
    double bin_width;         /* m, the surface's bins (0: the default, two mean diameters) */
} drum_case;

typedef struct drum_result {
    double surface, centroid, rms, torque, torque_gravity, dl, impulse, scale, fr, seconds;
    int samples;
    size_t particles;
} drum_result;

/* the bed's angular momentum about the axis (y, through the origin): each body's
 * m (r x v).y and its own spin (spheres: 2/5 m r^2 w; other shapes: the world's
 * angular momentum of the body, through tl_world_get_particle) */
static double momentum_y(tl_world *w) {
    tl_particle_arrays pa;
    if (tl_world_particle_arrays(w, &pa) != TL_OK) return NAN;
    double l = 0.0;
    for (size_t i = 0; i < pa.count; i++) {
        const double *x = pa.position + 3 * i, *v = pa.velocity + 3 * i;
        l += pa.mass[i] * (x[2] * v[0] - x[0] * v[2]);
        if (pa.shape[i] == TL_SPHERE) {
            l += 0.4 * pa.mass[i] * pa.radius[i] * pa.radius[i] * pa.angular_velocity[3 * i + 1];
        } else {
            tl_particle_state st;
            if (tl_world_get_particle(w, pa.id[i], &st) == TL_OK) l += st.angular_momentum.y;
        }
    }
    return l;
}

static int run_case(report *r, const drum_case *c, drum_result *res, int threads) {
    memset(res, 0, sizeof *res);
    char stl[64], text[4096], where[1200];
    snprintf(stl, sizeof stl, "%s_liner.stl", c->file);
    if (!write_liner(r, stl, c->R, c->L, 72)) return -1;
    snprintf(text, sizeof text,
             "talus: 1\nname: %s\nseed: 11\ngravity: [0, 0, -9.81]\n"
             "domain: {min: [%g, %g, %g], max: [%g, %g, %g]}\n"
             "integrator: {dt: auto}\n"
             "materials:\n"
             "  glass: {density: 2500, youngs_modulus: %g, poisson_ratio: 0.25}\n"
             "  steel: {density: 7800, youngs_modulus: %g, poisson_ratio: 0.3}\n"
             "%s"
             "laws:\n"
             "  - {between: [glass, any], normal: hertz, damping: tsuji, tangential: mindlin, e: 0.5, mu: %g}\n"
             "walls:\n"
             "  - {name: liner, type: mesh, material: steel, file: %s,\n"
             "     motion: {rotate: {axis: [0, 1, 0], point: [0, 0, 0], rpm: %g}}}\n"
             "  - {name: front, type: plane, material: steel, point: [0, %g, 0], normal: [0, 1, 0],\n"
             "     motion: {rotate: {axis: [0, 1, 0], point: [0, 0, 0], rpm: %g}}}\n"
             "  - {name: back, type: plane, material: steel, point: [0, %g, 0], normal: [0, -1, 0],\n"
             "     motion: {rotate: {axis: [0, 1, 0], point: [0, 0, 0], rpm: %g}}}\n"
             "particles:\n%s"
             "stages:\n  - {duration: 1}\n",
             c->label, -1.2 * c->R, -0.6 * c->L, -1.2 * c->R, 1.2 * c->R, 0.6 * c->L, 1.2 * c->R, c->E, c->E,
             c->shapes, c->mu, stl, c->rpm, -0.5 * c->L, c->rpm, 0.5 * c->L, c->rpm, c->particles);
    snprintf(where, sizeof where, "%s/%s.yaml", r->dir, c->file);
    tl_scene *sc = validate_scene(r, text, where, c->label);
    if (!sc) return -1;
    tl_world *w = tl_scene_world(sc);
    clock_t t0 = clock();
    if (tl_world_set_threads(w, threads) != TL_OK || tl_world_prepare(w) != TL_OK) {
        tl_scene_destroy(sc);
        return -1;
    }
    double dt = tl_world_dt(w), omega = c->rpm * 2.0 * PI / 60.0;
    res->fr = omega * omega * c->R / 9.81;
    char series[96];
    snprintf(series, sizeof series, "%s_angle.dat", c->file);
    FILE *fs = report_data_open(r, series);
    if (!fs) {
        tl_scene_destroy(sc);
        return -1;
    }
    fprintf(fs, "# t (s), angle by the surface (deg), by the centroid (deg)\n");
    tl_repose_def rd = tl_repose_default();
    rd.bin_width = c->bin_width;
    const int64_t settle = (int64_t)(c->settle / dt), window = (int64_t)(c->window / dt);
    const int64_t every = (int64_t)(0.025 / dt) > 0 ? (int64_t)(0.025 / dt) : 1;
    tl_status st = TL_OK;
    for (int64_t k = 0; k < settle && st == TL_OK; k += every) {
        tl_repose out;
        st = tl_world_step(w, k + every <= settle ? every : settle - k);
        if (st == TL_OK && tl_world_repose(w, &rd, &out) == TL_OK)
            fprintf(fs, "%.6f %.4f %.4f\n", tl_world_time(w), out.angle_surface, out.angle_centroid);
    }
    double l0 = momentum_y(w), s = 0.0, cen = 0.0, rms = 0.0, t = 0.0, tg = 0.0, imp = 0.0, scale = 0.0;
    tl_repose last;
    memset(&last, 0, sizeof last);
    for (int64_t k = 1; k <= window && st == TL_OK; k++) {
        st = tl_world_step(w, 1);
        if (st != TL_OK || tl_world_repose(w, &rd, &last) != TL_OK) break;
        double ta = 0.0;
        for (int i = 0; i < tl_world_wall_count(w); i++) {
            tl_wall_state ws;
            if (tl_world_get_wall(w, i, &ws) == TL_OK) ta += ws.torque.y;
        }
        imp += (-ta - last.torque_gravity) * dt;
        scale += fabs(last.torque_gravity) * dt;
        t += ta;
        tg += last.torque_gravity;
        if (k % every == 0) {
            s += last.angle_surface;
            cen += last.angle_centroid;
            rms += last.surface_rms;
            res->samples++;
            fprintf(fs, "%.6f %.4f %.4f\n", tl_world_time(w), last.angle_surface, last.angle_centroid);
        }
    }
    report_data_close(r, fs, series);
    if (st != TL_OK) {
        report_text(r, "\n%s: the run stopped: %s\n", c->label, tl_world_error(w));
        tl_scene_destroy(sc);
        return -1;
    }
    res->dl = momentum_y(w) - l0;
    res->impulse = imp;
    res->scale = scale;
    res->surface = s / res->samples;
    res->centroid = cen / res->samples;
    res->rms = rms / res->samples;
    res->torque = t / (double)window;
    res->torque_gravity = tg / (double)window;
    res->particles = last.particles;
    res->seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* the cross-section at the end: x, z, speed; and the fitted surface (u = -x here) */
    char snap[96], line[96];
    snprintf(snap, sizeof snap, "%s_section.dat", c->file);
    snprintf(line, sizeof line, "%s_surface.dat", c->file);
    FILE *fp = report_data_open(r, snap);
    if (fp) {
        tl_particle_arrays pa;
        fprintf(fp, "# x (m), z (m), speed (m/s), radius (m)\n");
        if (tl_world_particle_arrays(w, &pa) == TL_OK)
            for (size_t i = 0; i < pa.count; i++) {
                const double *x = pa.position + 3 * i, *v = pa.velocity + 3 * i;
                fprintf(fp, "%.6g %.6g %.6g %.6g\n", x[0], x[2], sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
                        pa.radius[i]);
            }
        report_data_close(r, fp, snap);
    }
    FILE *fl = report_data_open(r, line);
    if (fl) {
        /* drawn over the bed's span across the section (u = -x here) */
        double slope = tan(last.angle_surface * PI / 180.0), umin = INFINITY, umax = -INFINITY;
        tl_particle_arrays pa;
        if (tl_world_particle_arrays(w, &pa) == TL_OK)
            for (size_t i = 0; i < pa.count; i++) {
                umin = fmin(umin, -pa.position[3 * i]);
                umax = fmax(umax, -pa.position[3 * i]);
            }
        fprintf(fl, "# the fitted free surface at the end, over the bed: x (m), z (m)\n");
        if (umin < umax) {
            fprintf(fl, "%.6g %.6g\n", -umin, last.surface_v0 + slope * umin);
            fprintf(fl, "%.6g %.6g\n", -umax, last.surface_v0 + slope * umax);
        }
        report_data_close(r, fl, line);
    }
    tl_scene_destroy(sc);
    return 0;
}

int validate_drum(report *r, const validate_opts *o) {
    if (!o->long_runs || o->quick) return 0;
    report_section(r, 2, "A rotating drum: the dynamic angle of repose (`--long`)");
    report_text(r, "No source paper has a drum; this section gives Talus's angles and the checks "
                   "that hold whatever the angle is (docs/drum.md). The angle is measured two "
                   "independent ways: a line fitted to the free surface (the highest particle top "
                   "in bins across the section, one 4 mm diameter wide in the small drums, two in the "
                   "large one; the middle 60 %% of the chord) and the direction of "
                   "the bed's centroid from the axis (a flat-surfaced segment's centroid lies on "
                   "the chord's perpendicular through the axis). Glass on steel, Hertz-Mindlin, "
                   "e = 0.5; the liner an open mesh wall, the caps two planes, all turning about +y. "
                   "Averages over the measurement window, every 0.025 s; the angular momentum and "
                   "the torques' impulse over the same window, step by step.\n");
    static const char spheres[] =
        "  - random: {material: glass, radius: 0.002, count: 420,\n"
        "             region: {min: [-0.027, -0.0095, -0.027], max: [0.027, 0.0095, 0.027]}}\n";
    static const char grains[] = /* a lattice: random fills of these would jam */
        "  - lattice: {material: glass, shape: grain, min: [-0.0243, -0.0095, -0.0243],\n"
        "              max: [0.0243, 0.0095, 0.0243], count: [7, 3, 7]}\n";
    static const char large[] =
        "  - random: {material: glass, radius: 0.002, count: 2500,\n"
        "             region: {min: [-0.06, -0.0245, -0.075], max: [0.06, 0.0245, 0.02]}}\n";
    static const char grain_shape[] = "shapes:\n  grain: {ellipsoid: [0.003, 0.002, 0.002]}\n";
    const drum_case cases[] = {
        {"drum R 40 mm, 30 rpm, 420 spheres, mu 0.5", "drum_small_spheres", 0.04, 0.02, 30, 0.5, 2e6, spheres,
         "", 1.0, 1.0, 0.004},
        {"drum R 40 mm, 30 rpm, 420 spheres, mu 0.1", "drum_small_spheres_mu01", 0.04, 0.02, 30, 0.1, 2e6,
         spheres, "", 1.0, 1.0, 0.004},
        {"drum R 40 mm, 30 rpm, 147 ellipsoids 3x2x2 mm, mu 0.5", "drum_small_ellipsoids", 0.04, 0.02, 30, 0.5,
         2e6, grains, grain_shape, 1.0, 1.0, 0.004},
        {"drum R 0.1 m, 10 rpm, 2500 spheres, mu 0.5", "drum_large_spheres", 0.1, 0.05, 10, 0.5, 1e7, large, "",
         3.0, 1.5, 0.0},
    };
    const size_t n = sizeof cases / sizeof cases[0];
    drum_result res[sizeof cases / sizeof cases[0]];
    for (size_t k = 0; k < n; k++)
        if (run_case(r, &cases[k], &res[k], o->threads) != 0) return -1;
    for (size_t k = 0; k < n; k++) {
        report_section(r, 3, "%s (Fr = %.3f; %zu bodies, %d samples, %.0f s of CPU)", cases[k].label, res[k].fr,
                       res[k].particles, res[k].samples, res[k].seconds);
        report_value(r, "dynamic angle of repose, by the free surface", "deg", res[k].surface);
        report_value(r, "dynamic angle of repose, by the centroid", "deg", res[k].centroid);
        report_value(r, "free surface: rms of the bins about the line", "m", res[k].rms);
        report_value(r, "mean torque of the particles on the walls about the axis", "N m", res[k].torque);
        report_value(r, "the weight's moment about the axis, M g u_c", "N m", res[k].torque_gravity);
        report_check_bound(r, "the two measures of the angle: |surface - centroid|", "deg", 4.0, BOUND_AT_MOST,
                           fabs(res[k].surface - res[k].centroid));
        report_check(r, "change of the bed's angular momentum about the axis against the torques' impulse",
                     "N m s", res[k].impulse, (tolerance){0.0, 0.01 * res[k].scale}, res[k].dl);
        report_table_end(r);
    }
    report_section(r, 3, "Trends");
    report_check_bound(r, "spheres: the angle at mu 0.5 less the angle at mu 0.1", "deg", 5.0, BOUND_AT_LEAST,
                       res[0].surface - res[1].surface);
    report_check_bound(r, "the angle of ellipsoids less that of spheres (mu 0.5)", "deg", 0.0, BOUND_AT_LEAST,
                       res[2].surface - res[0].surface);
    report_table_end(r);
    for (size_t k = 0; k < n; k++) {
        char png[96], plot[1024], title[160];
        snprintf(png, sizeof png, "%s_section.png", cases[k].file);
        snprintf(title, sizeof title, "%s: the section at the end", cases[k].label);
        snprintf(plot, sizeof plot,
                 "'%s_section.dat' u 1:2:3 w p pt 7 ps 0.7 lc palette t 'particles (colour: speed, m/s)', "
                 "'%s_surface.dat' u 1:2 w l "
                 "lw 3 lc rgb 'red' t 'fitted free surface', [t=0:2*pi] %g*cos(t), %g*sin(t) w l lc rgb 'black' "
                 "t 'liner'",
                 cases[k].file, cases[k].file, cases[k].R, cases[k].R);
        report_figure(r, png, title, "x (m)", "z (m)", "set size ratio -1; set parametric", plot);
    }
    report_figure(r, "drum_angles.png", "angle of repose: free surface (lines), centroid (points)",
                  "t (s)", "angle (deg)", "",
                  "'drum_small_spheres_angle.dat' u 1:2 w l t 'R 40 mm, spheres, mu 0.5', "
                  "'drum_small_spheres_angle.dat' u 1:3 w p pt 7 ps 0.4 t '', "
                  "'drum_small_spheres_mu01_angle.dat' u 1:2 w l t 'R 40 mm, spheres, mu 0.1', "
                  "'drum_small_spheres_mu01_angle.dat' u 1:3 w p pt 7 ps 0.4 t '', "
                  "'drum_small_ellipsoids_angle.dat' u 1:2 w l t 'R 40 mm, ellipsoids, mu 0.5', "
                  "'drum_small_ellipsoids_angle.dat' u 1:3 w p pt 7 ps 0.4 t '', "
                  "'drum_large_spheres_angle.dat' u 1:2 w l t 'R 0.1 m, spheres, mu 0.5', "
                  "'drum_large_spheres_angle.dat' u 1:3 w p pt 7 ps 0.4 t ''");
    return 0;
}
