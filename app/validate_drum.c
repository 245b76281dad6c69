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
 * Cases (validation/cases/drum/checks.yaml: the scenes, the runs' lengths, the rows): a
 * drum of R = 40 mm at 30 rpm with spheres (mu 0.5 and 0.1) and with ellipsoids of the
 * same volume (scenes of the case's own); and the example's drum (examples/drum-spheres.yaml,
 * R = 0.1 m, 10 rpm, 2500 beads). Each liner is written as drum_<case>_liner.stl next to
 * the report, where the scene is loaded from; the code steps the world and measures.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases.h"
#include "talus/scene.h"
#include "validate.h"

#define PI 3.14159265358979323846
#define BLOCK 10 /* samples (0.025 s apart) per block of the centroid angle's standard error */

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

/* a drum of validation/cases/drum/checks.yaml: its scene there, and what its run and its
 * analysis need (the case file's parameters <name>.*) */
typedef struct drum_case {
    const char *name;         /* the scene's name in the case file, and its parameters' prefix */
    char label[160], file[64]; /* the report's heading; the data files' base name (drum_<name>) */
    double R, L, rpm;         /* the liner the section writes, and the turning (as in the scene) */
    double settle, window;    /* s of turning before the measurement, and its length */
    double bin_width;         /* m, the surface's bins (0: the default, two mean diameters) */
    double w_adhesion;        /* J/m2 between the beads (a cohesive drum; NaN: none) */
} drum_case;

typedef struct drum_result {
    double surface, centroid, centroid_sd, rms, torque, torque_gravity, dl, impulse, scale, fr, seconds;
    double centroid_se; /* the standard error of the centroid angle's mean, from the means of blocks of
                         * BLOCK samples (0.25 s: the angle's swings are correlated over less) */
    double bond; /* a cohesive drum's Bond number 2 pi w R* / (m g), R* = r/2, of its first bead */
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

static int run_case(report *r, vcase *cs, const drum_case *c, drum_result *res, int threads) {
    memset(res, 0, sizeof *res);
    char stl[96], where[1200];
    snprintf(stl, sizeof stl, "%s_liner.stl", c->file);
    if (!write_liner(r, stl, c->R, c->L, 72)) return -1;
    /* the case's scene, loaded from the report's folder, where its liner is */
    char *text = vcase_scene_text(cs, c->name, NULL);
    if (!text) return -1;
    snprintf(where, sizeof where, "%s/%s.yaml", r->dir, c->file);
    tl_scene *sc = validate_scene(r, text, where, c->label);
    free(text);
    if (!sc) return -1;
    tl_world *w = tl_scene_world(sc);
    clock_t t0 = clock();
    if (tl_world_set_threads(w, threads) != TL_OK || tl_world_prepare(w) != TL_OK) {
        tl_scene_destroy(sc);
        return -1;
    }
    /* the bed rendered before it settles and at the end, seen along the axis, by speed */
    tl_render_options ro = tl_render_default();
    ro.antialias = 2;
    ro.color_by = "speed";
    ro.color_min = 0.0;
    ro.color_max = c->rpm * 2.0 * PI / 60.0 * c->R * 2.0;
    char png[128];
    snprintf(png, sizeof png, "%s_first.png", c->file);
    report_picture(r, w, png, &ro);
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
    double l0 = momentum_y(w), s = 0.0, cen = 0.0, cen2 = 0.0, rms = 0.0, t = 0.0, tg = 0.0, imp = 0.0, scale = 0.0;
    double block = 0.0, bsum = 0.0, bsum2 = 0.0;
    int nblocks = 0;
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
            cen2 += last.angle_centroid * last.angle_centroid;
            block += last.angle_centroid;
            if (res->samples % BLOCK == BLOCK - 1) {
                bsum += block / BLOCK;
                bsum2 += (block / BLOCK) * (block / BLOCK);
                nblocks++;
                block = 0.0;
            }
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
    res->centroid_se = nblocks > 1 ? sqrt(fmax(0.0, (bsum2 - bsum * bsum / nblocks) / (nblocks - 1)) / nblocks) : NAN;
    res->centroid_sd = res->samples > 1 ? sqrt(fmax(0.0, (cen2 - cen * cen / res->samples) / (res->samples - 1))) : NAN;
    res->bond = NAN;
    if (!isnan(c->w_adhesion)) {
        tl_particle_arrays pa;
        if (tl_world_particle_arrays(w, &pa) == TL_OK && pa.count > 0)
            res->bond = 2.0 * PI * c->w_adhesion * 0.5 * pa.radius[0] / (pa.mass[0] * 9.81);
    }
    res->rms = rms / res->samples;
    res->torque = t / (double)window;
    res->torque_gravity = tg / (double)window;
    res->particles = last.particles;
    res->seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    snprintf(png, sizeof png, "%s_last.png", c->file);
    report_picture(r, w, png, &ro);
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

/* a drum's parameter <name>.<what> in the case file */
static double case_param(vcase *cs, const char *name, const char *what) {
    char key[96];
    snprintf(key, sizeof key, "%s.%s", name, what);
    return vcase_param(cs, key);
}

static const char *case_text(vcase *cs, const char *name, const char *what) {
    char key[96];
    snprintf(key, sizeof key, "%s.%s", name, what);
    return vcase_text(cs, key);
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
                   "the torques' impulse over the same window, step by step. Two more small drums hold "
                   "cohesive beads (issue 46: DMT adhesion between beads, none with the walls) at the granular "
                   "Bond numbers 5 and 20 (two beads' pull-off force 2 pi w R* over one bead's weight): a "
                   "cohesive bed slumps in lumps and its surface is no line, so their angle is the "
                   "centroid's.\n");
    vcase *cs = vcase_load("drum", o->quick);
    if (!cs) return -1;
    /* the drums of the case file; the trends below compare the first three, and the first with the
     * cohesive two (their beads' scene gives g = 9.81 m/s2, which the Bond number takes) */
    static const char *const names[] = {"small_spheres", "small_spheres_mu01", "small_ellipsoids", "large_spheres",
                                        "small_spheres_bo5", "small_spheres_bo20"};
    enum { FIRST_COHESIVE = 4 };
    enum { NCASE = sizeof names / sizeof names[0] };
    drum_case cases[NCASE];
    drum_result res[NCASE];
    const size_t n = NCASE;
    bool ok = true;
    for (size_t k = 0; k < n; k++) {
        drum_case *c = &cases[k];
        c->name = names[k];
        snprintf(c->label, sizeof c->label, "%s", case_text(cs, c->name, "label"));
        snprintf(c->file, sizeof c->file, "drum_%s", c->name);
        c->R = case_param(cs, c->name, "radius");
        c->L = case_param(cs, c->name, "length");
        c->rpm = case_param(cs, c->name, "rpm");
        c->settle = case_param(cs, c->name, "settle");
        c->window = case_param(cs, c->name, "window");
        c->bin_width = case_param(cs, c->name, "bin_width");
        c->w_adhesion = k >= FIRST_COHESIVE ? case_param(cs, c->name, "w_adhesion") : NAN;
        ok = ok && (k < FIRST_COHESIVE || !isnan(c->w_adhesion));
        ok = ok && !isnan(c->R + c->L + c->rpm + c->settle + c->window + c->bin_width);
        if (!c->label[0]) {
            fprintf(stderr, "talus validate: validation/cases/drum/checks.yaml: parameters.%s.label: none\n", c->name);
            ok = false;
        }
    }
    if (!ok) { /* said on stderr */
        vcase_free(cs);
        return -1;
    }
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        if (run_case(r, cs, &cases[k], &res[k], o->threads) != 0) rc = -1;
    for (size_t k = 0; k < n && rc == 0; k++) {
        report_section(r, 3, "%s (Fr = %.3f; %zu bodies, %d samples, %.0f s of CPU)", cases[k].label, res[k].fr,
                       res[k].particles, res[k].samples, res[k].seconds);
        vcase_measure(cs, "surface", res[k].surface);
        vcase_measure(cs, "centroid", res[k].centroid);
        vcase_measure(cs, "rms", res[k].rms);
        vcase_measure(cs, "torque", res[k].torque);
        vcase_measure(cs, "torque_gravity", res[k].torque_gravity);
        vcase_measure(cs, "angle_gap", fabs(res[k].surface - res[k].centroid));
        vcase_measure(cs, "impulse", res[k].impulse);
        vcase_measure(cs, "impulse_scale", res[k].scale);
        vcase_measure(cs, "momentum_change", res[k].dl);
        vcase_measure(cs, "centroid_sd", res[k].centroid_sd);
        vcase_measure(cs, "centroid_se", res[k].centroid_se);
        vcase_measure(cs, "bond", res[k].bond);
        rc = vcase_rows(cs, r, k >= FIRST_COHESIVE ? "cohesive" : "drum");
        report_table_end(r);
    }
    if (rc == 0) {
        report_section(r, 3, "Trends");
        vcase_measure(cs, "friction_rise", res[0].surface - res[1].surface);
        vcase_measure(cs, "shape_rise", res[2].surface - res[0].surface);
        /* the rises, and what is left of each above three standard errors of the difference */
        for (int j = 0; j < 2; j++) {
            const drum_result *lo = j ? &res[FIRST_COHESIVE] : &res[0], *hi = &res[FIRST_COHESIVE + j];
            const double rise = hi->centroid - lo->centroid;
            const double se = sqrt(lo->centroid_se * lo->centroid_se + hi->centroid_se * hi->centroid_se);
            vcase_measure(cs, j ? "cohesion_rise_20" : "cohesion_rise_5", rise);
            vcase_measure(cs, j ? "cohesion_rise_20_se" : "cohesion_rise_5_se", se);
            vcase_measure(cs, j ? "cohesion_rise_20_margin" : "cohesion_rise_5_margin", rise - 3.0 * se);
        }
        rc = vcase_rows(cs, r, "trends");
        report_table_end(r);
    }
    vcase_free(cs);
    if (rc != 0) return -1;
    for (size_t k = 0; k < n; k++) {
        char png[96], plot[1024], title[320];
        snprintf(png, sizeof png, "%s_section.png", cases[k].file);
        snprintf(title, sizeof title, "%s: the section at the end", cases[k].label);
        snprintf(plot, sizeof plot,
                 "'%s_section.dat' u 1:2:3 w p pt 7 ps 0.7 lc palette t 'particles (colour: speed, m/s)', "
                 "'%s_surface.dat' u 1:2 w l "
                 "lw 3 lc rgb 'red' t 'fitted free surface', [t=0:2*pi] %g*cos(t), %g*sin(t) w l lc rgb 'black' "
                 "t 'liner'",
                 cases[k].file, cases[k].file, cases[k].R, cases[k].R);
        report_figure(r, png, title, "x (m)", "z (m)", "set size ratio -1; set parametric", plot);
        /* the bed rendered along the axis before it settled and at the end (colour: speed) */
        for (int j = 0; j < 2; j++) {
            snprintf(png, sizeof png, "%s_%s.png", cases[k].file, j ? "last" : "first");
            snprintf(title, sizeof title, "%s: %s, rendered (colour: speed, m/s)", cases[k].label,
                     j ? "at the end" : "as it was filled");
            report_picture_embed(r, png, title);
        }
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
    report_figure(r, "drum_cohesion.png", "cohesive beads: the angle by the centroid", "t (s)", "angle (deg)", "",
                  "'drum_small_spheres_angle.dat' u 1:3 w l t 'Bo 0', "
                  "'drum_small_spheres_bo5_angle.dat' u 1:3 w l t 'Bo 5', "
                  "'drum_small_spheres_bo20_angle.dat' u 1:3 w l t 'Bo 20'");
    return 0;
}
