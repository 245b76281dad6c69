/* The direct shear test of 004 (Fleischmann et al. 2015) in a small box: a few hundred
 * spheres rained into a 3 cm shear box, compacted without friction under the lid's
 * servo, friction restored, then 2 mm of shear. Checks the stage actions (friction
 * off and restored, wall velocities, servo), the until condition on a wall's
 * displacement, the walls output, the servo's hold on the normal stress, and that true
 * tangential history gives a clearly larger tau/sigma than none (app/validate_shear.c
 * runs the paper's size). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "talus/scene.h"
#include "talus/talus.h"
#include "test.h"

static const char *const scene_fmt =
    "talus: 1\n"
    "name: shear test %s\n"
    "units: SI\n"
    "seed: 4\n"
    "gravity: [0, 0, -9.81]\n"
    "integrator: {dt: 1e-05, steps_per_contact: 10}\n"
    "materials:\n"
    "  grain: {density: 2500, youngs_modulus: 8000000, poisson_ratio: 0.3}\n"
    "  box: {density: 7800, youngs_modulus: 8000000, poisson_ratio: 0.3}\n"
    "laws:\n"
    "  - {between: [grain, any], normal: hertz-stiffness, k_n: 5860805.86, damping: mass-proportional, gamma_n: 10000000, tangential: linear, k_t: 7239819, gamma_t: 5000000, history: %s, mu: 0.5, coulomb_test: spring}\n"
    "walls:\n"
    "  - {name: floor, type: rectangle, material: box, center: [0.015, 0.015, 0], normal: [0, 0, 1], axis: [1, 0, 0], half_length: 0.03, half_width: 0.03}\n"
    "  - {name: lower-x0, type: rectangle, material: box, center: [0, 0.015, 0.0075], normal: [1, 0, 0], axis: [0, 1, 0], half_length: 0.015, half_width: 0.0075}\n"
    "  - {name: lower-x1, type: rectangle, material: box, center: [0.03, 0.015, 0.0075], normal: [1, 0, 0], axis: [0, 1, 0], half_length: 0.015, half_width: 0.0075}\n"
    "  - {name: lower-y0, type: rectangle, material: box, center: [0.015, 0, 0.0075], normal: [0, 1, 0], axis: [1, 0, 0], half_length: 0.015, half_width: 0.0075}\n"
    "  - {name: lower-y1, type: rectangle, material: box, center: [0.015, 0.03, 0.0075], normal: [0, 1, 0], axis: [1, 0, 0], half_length: 0.015, half_width: 0.0075}\n"
    "  - {name: upper-x0, type: rectangle, material: box, center: [0, 0.015, 0.0725184132], normal: [1, 0, 0], axis: [0, 1, 0], half_length: 0.015, half_width: 0.0575184132}\n"
    "  - {name: upper-x1, type: rectangle, material: box, center: [0.03, 0.015, 0.0725184132], normal: [1, 0, 0], axis: [0, 1, 0], half_length: 0.015, half_width: 0.0575184132}\n"
    "  - {name: upper-y0, type: rectangle, material: box, center: [0.015, 0, 0.0725184132], normal: [0, 1, 0], axis: [1, 0, 0], half_length: 0.015, half_width: 0.0575184132}\n"
    "  - {name: upper-y1, type: rectangle, material: box, center: [0.015, 0.03, 0.0725184132], normal: [0, 1, 0], axis: [1, 0, 0], half_length: 0.015, half_width: 0.0575184132}\n"
    "  - {name: lid, type: rectangle, material: box, center: [0.015, 0.015, 0.0920368265], normal: [0, 0, -1], axis: [1, 0, 0], half_length: 0.015, half_width: 0.015, velocity: [0, 0, -0.2]}\n"
    "particles:\n"
    "  - random: {region: {min: [0, 0, 0], max: [0.03, 0.03, 0.0900368265]}, count: 260, diameter: 0.005, material: grain, velocity: [0, 0, -0.5]}\n"
    "stages:\n"
    "  - {name: rain, until: {wall_displacement: {wall: lid, axis: z, reaches: -0.0525239372}}, check_every: 100, max_duration: 2}\n"
    "  - name: compact\n"
    "    set: {friction: 0, walls: [{wall: lid, velocity: [0, 0, 0], servo: {direction: [0, 0, -1], stress: 10000, gain: 0.0222222222, max_speed: 0.05}}]}\n"
    "    duration: 0.15\n"
    "  - {name: settle, set: {friction: restore}, duration: 0.03}\n"
    "  - name: shear\n"
    "    set:\n"
    "      walls:\n"
    "        - {wall: upper-x0, velocity: [0.02, 0, 0]}\n"
    "        - {wall: upper-x1, velocity: [0.02, 0, 0]}\n"
    "        - {wall: upper-y0, velocity: [0.02, 0, 0]}\n"
    "        - {wall: upper-y1, velocity: [0.02, 0, 0]}\n"
    "        - {wall: lid, velocity: [0.02, 0, 0]}\n"
    "    until: {wall_displacement: {wall: upper-x0, axis: x, reaches: 0.002}}\n"
    "    check_every: 100\n"
    "    max_duration: 0.12\n"
    "outputs:\n"
    "  - {type: walls, file: walls.csv, every_steps: 20}\n"
    "  - {type: walls, file: lid.csv, walls: [lid], every: 0.05}\n";

typedef struct shear_out {
    double peak, mean_dev, max_dev;
    bool ok;
} shear_out;

static shear_out run(const char *history, const char *dir) {
    shear_out o = {0, 0, 0, false};
    char text[16384];
    snprintf(text, sizeof text, scene_fmt, history, history);
    tl_scene *sc = NULL;
    tl_scene_error err;
    if (tl_scene_load_string(text, "shear.yaml", &sc, &err) != TL_OK) {
        char msg[1024];
        tl_scene_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        ENSURE(false);
        return o;
    }
    tl_run_options opt = tl_run_options_default();
    opt.output_dir = dir;
    tl_run_summary sum;
    ENSURE_OK(tl_scene_run(sc, &opt, &sum));
    tl_stage_result sr;
    ENSURE_OK(tl_scene_stage_result(sc, 0, &sr));
    ENSURE(strcmp(sr.ended_by, "wall_displacement") == 0); /* the lid came down */
    ENSURE_OK(tl_scene_stage_result(sc, 3, &sr));
    ENSURE(strcmp(sr.ended_by, "wall_displacement") == 0); /* 2 mm of shear */
    ENSURE_NEAR(sr.time_end - sr.time_begin, 0.1, 2e-3);    /* at 20 mm/s */
    tl_world *w = tl_scene_world(sc);
    /* friction restored by the settle stage */
    tl_law_def law;
    ENSURE_OK(tl_world_get_law(w, 0, 0, &law));
    double mu = NAN;
    for (int k = 0; k < law.coeff_count; k++)
        if (strcmp(law.coeffs[k].name, "mu") == 0) mu = law.coeffs[k].value;
    ENSURE_NEAR(mu, 0.5, 0.0);
    /* the upper half moved 2 mm, the lid went with it under servo control */
    tl_wall_state up, lid;
    ENSURE_OK(tl_world_get_wall(w, 5, &up));
    ENSURE_OK(tl_world_get_wall(w, 9, &lid));
    ENSURE(up.displacement.x >= 0.002 && up.displacement.x < 0.00205);
    ENSURE_NEAR(lid.displacement.x, up.displacement.x, 1e-12);
    ENSURE(lid.servo && !up.servo);
    ENSURE_NEAR(lid.velocity.x, 0.02, 1e-12);
    tl_scene_destroy(sc);
    /* walls.csv: the shear force on walls 5-8 and the lid, the normal force on the lid */
    char path[1200];
    snprintf(path, sizeof path, "%s/walls.csv", dir);
    FILE *f = fopen(path, "r");
    ENSURE(f != NULL);
    if (!f) return o;
    char line[512];
    ENSURE(fgets(line, sizeof line, f) != NULL);
    ENSURE(strncmp(line, "time,step,wall,dx,dy,dz,vx,vy,vz,fx,fy,fz,tx,ty,tz,wx,wy,wz,angle,servo", 68) == 0);
    const double A = 0.03 * 0.03, target = 1e4;
    double fx = 0.0, dx = 0.0, sum_dev = 0.0;
    int n = 0;
    o.peak = -INFINITY;
    while (fgets(line, sizeof line, f)) {
        double d[13];
        char *p = line;
        for (int k = 0; k < 13; k++) {
            d[k] = strtod(p, &p);
            if (*p == ',') p++;
        }
        int wall = (int)d[2];
        if (wall == 5) fx = 0.0, dx = d[3];
        if (wall >= 5 && wall <= 8) fx += d[9];
        if (wall != 9 || !(dx > 0.0)) continue;
        double tau = -(fx + d[9]) / A, sigma = d[11] / A;
        if (tau / sigma > o.peak) o.peak = tau / sigma;
        double dev = fabs(sigma - target) / target;
        sum_dev += dev;
        if (dev > o.max_dev) o.max_dev = dev;
        n++;
    }
    fclose(f);
    ENSURE(n > 200);
    o.mean_dev = n ? sum_dev / n : INFINITY;
    o.ok = true;
    return o;
}

int main(void) {
    shear_out t = run("true", "test-shear-true");
    shear_out none = run("none", "test-shear-none");
    printf("peak tau/sigma: true %.3f, none %.3f; sigma held (true): mean %.2f%%, max %.2f%%\n",
           t.peak, none.peak, 100.0 * t.mean_dev, 100.0 * t.max_dev);
    ENSURE(t.ok && none.ok);
    ENSURE(t.mean_dev < 0.03);   /* the servo holds the normal stress */
    ENSURE(t.max_dev < 0.10);
    ENSURE(t.peak > 1.0);        /* well above mu = 0.5: interlocking */
    ENSURE(t.peak > 1.8 * none.peak);
    return tl_test_report("test_shear");
}
