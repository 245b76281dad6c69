/* Sedimentation onto a fixed hexagonal layer (Ray, Kempe & Fröhlich 2015, section 6.2),
 * shortened: fewer mobile spheres and steps than `talus validate` runs.
 *   (a) the hexagonal lattice: 15 x 13 fixed spheres of the paper's layer, rows and
 *       spacings as documented, and a layer with an even row count that tiles its
 *       periodic box exactly (six neighbours at the same distance, across the boundaries);
 *       the hexagonal-only keys are checked;
 *   (b) the mobile spheres fall, collide (collisions counted) and settle on the layer,
 *       never through it; the energy balance closes; e = 0.7 dissipates faster than 0.95;
 *       the direct formulas and the exact inversion give nearly the same bulk behaviour. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "talus/scene.h"
#include "talus/talus.h"
#include "test.h"

#define D 0.1154

static tl_scene *load(const char *text) {
    tl_scene *s = NULL;
    tl_scene_error err;
    if (tl_scene_load_string(text, "sediment.yaml", &s, &err) != TL_OK) {
        char msg[1024];
        tl_scene_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "load: %s\n", msg);
        return NULL;
    }
    return s;
}

static tl_scene *sediment(int mobile, double e, const char *normal) {
    char text[4096];
    snprintf(text, sizeof text,
             "talus: 1\nseed: 5\n"
             "domain: {min: [0, 0, 0], max: [1.5, 1.5, 1.5], periodic: [x, z]}\n"
             "gravity: [0, -9.81, 0]\n"
             "integrator: {dt: 5.0e-4, steps_per_contact: 9}\n"
             "materials: {grain: {density: 1200}}\n"
             "laws:\n  - {between: [grain, grain], normal: %s, damping: viscous-adaptive, T_c: 5.0e-3, "
             "e: %g}\n"
             "particles:\n"
             "  - lattice: {type: hexagonal, plane: xz, count: [15, 13], material: grain, radius: 0.0577, "
             "min: [0, 0, 0], max: [1.5, 0.1154, 1.5], fixed: true}\n"
             "  - random: {region: {min: [0.1, 0.3, 0.1], max: [1.4, 0.8, 1.4]}, count: %d, diameter: "
             "0.1154, material: grain}\n"
             "walls:\n  - {type: plane, material: grain, point: [0, 1.5, 0], normal: [0, -1, 0]}\n"
             "stages:\n  - {steps: 1}\n",
             normal, e, mobile);
    return load(text);
}

/* minimum-image distance in the periodic x-z plane */
static double pdist(tl_vec3 a, tl_vec3 b, double lx, double lz) {
    double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    dx -= lx * round(dx / lx);
    dz -= lz * round(dz / lz);
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static void test_paper_layer(void) {
    tl_scene *s = sediment(1, 0.95, "hertz-adaptive");
    ENSURE(s != NULL);
    if (!s) return;
    tl_world *w = tl_scene_world(s);
    ENSURE(tl_world_particle_count(w) == 196);
    tl_vec3 x[195];
    int nf = 0;
    for (size_t i = 0; i < tl_world_particle_count(w); i++) {
        tl_particle_state p;
        tl_world_particle_at(w, i, &p);
        if (!(p.flags & TL_PARTICLE_FIXED)) continue;
        if (nf < 195) x[nf] = p.position;
        nf++;
    }
    ENSURE(nf == 195);
    if (nf != 195) {
        tl_scene_destroy(s);
        return;
    }
    /* ids in order: row i (x = (i + 1/2) 0.1), sphere j along z, odd rows shifted by half */
    double dz = 1.5 / 13.0, worst = 0.0;
    for (int i = 0; i < 15; i++)
        for (int j = 0; j < 13; j++) {
            tl_vec3 p = x[i * 13 + j];
            double zj = fmod((j + 0.5 + 0.5 * (i & 1)) * dz, 1.5);
            worst = fmax(worst, fabs(p.x - (i + 0.5) * 0.1) + fabs(p.y - 0.0577) + fabs(p.z - zj));
        }
    ENSURE(worst < 1e-12);
    /* nearest neighbours: in a row 1.5/13 = 0.11538 apart (D = 0.1154: the paper's layer is
     * touching to 1.5e-5 m), between rows 0.11545; only across the x boundary (rows 14 and 0,
     * both unshifted: 15 rows is odd) are two rows 0.1 apart */
    double dmin = 1e9, dseam = 1e9;
    for (int a = 0; a < 195; a++)
        for (int b = a + 1; b < 195; b++) {
            double d = pdist(x[a], x[b], 1.5, 1.5);
            int ra = a / 13, rb = b / 13;
            if (ra == 0 && rb == 14) dseam = fmin(dseam, d);
            else dmin = fmin(dmin, d);
        }
    ENSURE_NEAR(dmin, 1.5 / 13.0, 1e-12);
    ENSURE_NEAR(dseam, 0.1, 1e-12);
    tl_scene_destroy(s);
}

/* an even number of rows with the hexagonal proportions tiles the periodic box */
static void test_even_layer(void) {
    const double a = 0.1, lx = 4 * a * sqrt(3.0) / 2.0, lz = 3 * a;
    char text[2048];
    snprintf(text, sizeof text,
             "talus: 1\ndomain: {min: [0, 0, 0], max: [%.17g, 1, %.17g], periodic: [x, z]}\n"
             "integrator: {dt: 1.0e-5}\nmaterials: {m: {density: 1000, k_n: 1.0e5}}\n"
             "laws: [{between: [m, m], normal: linear}]\n"
             "particles:\n  - lattice: {type: hexagonal, plane: xz, count: [4, 3], material: m, radius: 0.05, "
             "min: [0, 0, 0], max: [%.17g, 0.1, %.17g], fixed: true}\n"
             "  - {material: m, radius: 0.05, position: [0.1, 0.5, 0.1]}\n"
             "stages: [{steps: 1}]\n",
             lx, lz, lx, lz);
    tl_scene *s = load(text);
    ENSURE(s != NULL);
    if (!s) return;
    tl_world *w = tl_scene_world(s);
    tl_vec3 x[12];
    int n = 0;
    for (size_t i = 0; i < tl_world_particle_count(w); i++) {
        tl_particle_state p;
        tl_world_particle_at(w, i, &p);
        if ((p.flags & TL_PARTICLE_FIXED) && n < 12) x[n++] = p.position;
    }
    ENSURE(n == 12);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int six = 0;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double d = pdist(x[i], x[j], lx, lz);
            if (fabs(d - a) < 1e-12) six++;
            else if (d < a) bad++;
        }
        if (six != 6) bad++;
    }
    ENSURE(bad == 0);
    tl_scene_destroy(s);
    /* the keys that are not for a hexagonal layer, and its count */
    const char *wrong[] = {"spacing: 0.1", "jitter: 0.1", "count: [4, 3, 1]"};
    for (int k = 0; k < 3; k++) {
        char t2[2048];
        snprintf(t2, sizeof t2,
                 "talus: 1\nmaterials: {m: {density: 1000, k_n: 1.0e5}}\n"
                 "laws: [{between: [m, m], normal: linear}]\n"
                 "particles:\n  - lattice: {type: hexagonal, %s%s material: m, radius: 0.05, min: [0, 0, 0], "
                 "max: [1, 0.1, 1]}\nstages: [{steps: 1}]\n",
                 wrong[k], k < 2 ? ", count: [4, 3]," : ",");
        tl_scene *bad_scene = NULL;
        tl_scene_error err;
        ENSURE(tl_scene_load_string(t2, "bad.yaml", &bad_scene, &err) != TL_OK);
        if (bad_scene) tl_scene_destroy(bad_scene);
    }
}

typedef struct outcome {
    double kin, pot, spring, dissipated, residual, balance, e0; /* fractions of e0 = the initial total */
    double ymin, ymax;                        /* of the mobile spheres at the end */
    size_t collisions, removed;
} outcome;

static outcome settle(double e, const char *normal, int steps) {
    outcome o;
    memset(&o, 0, sizeof o);
    tl_scene *s = sediment(30, e, normal);
    ENSURE(s != NULL);
    if (!s) return o;
    tl_world *w = tl_scene_world(s);
    tl_world_log_collisions(w, true);
    tl_energy e0, e1;
    ENSURE_OK(tl_world_prepare(w));
    tl_world_energy(w, &e0);
    for (int k = 0; k < steps / 500; k++) {
        ENSURE_OK(tl_world_step(w, 500));
        o.collisions += tl_world_collision_count(w);
        tl_world_clear_collisions(w);
    }
    tl_world_energy(w, &e1);
    o.e0 = e0.total;
    o.kin = e1.kinetic_translational / e0.total;
    o.pot = e1.potential / e0.total;
    o.spring = e1.elastic_normal / e0.total;
    o.dissipated = e1.dissipated_normal / e0.total;
    o.residual = e1.integration_residual / e0.total;
    o.balance = (e1.total - e0.total) / e0.total;
    o.ymin = 1e9;
    o.ymax = -1e9;
    for (size_t i = 0; i < tl_world_particle_count(w); i++) {
        tl_particle_state p;
        tl_world_particle_at(w, i, &p);
        if (p.flags & TL_PARTICLE_FIXED) continue;
        o.ymin = fmin(o.ymin, p.position.y);
        o.ymax = fmax(o.ymax, p.position.y);
    }
    o.removed = tl_world_particles_removed(w);
    tl_scene_destroy(s);
    return o;
}

static void test_settling(void) {
    outcome hi = settle(0.95, "hertz-adaptive", 4000), lo = settle(0.7, "hertz-adaptive", 4000);
    outcome lod = settle(0.7, "hertz-adaptive-direct", 4000);
    const outcome *all[3] = {&hi, &lo, &lod};
    for (int k = 0; k < 3; k++) {
        const outcome *o = all[k];
        ENSURE(o->e0 > 0.0);
        ENSURE(fabs(o->balance) < 1e-3);                      /* the energy balance closes */
        /* eq. 59 + dissipation + what the 10-step contacts leave as integration error (booked
         * apart: about 1.3 % of the energy here, once hidden in the dashpot's column) */
        ENSURE_NEAR(o->kin + o->pot + o->spring + o->dissipated + o->residual, 1.0, 1e-3);
        ENSURE(fabs(o->residual) < 0.03);
        ENSURE(o->removed == 0);
        ENSURE(o->collisions >= 30);                          /* every sphere hit something */
        /* on the layer, never through it: a sphere in a pocket of the layer has its centre
         * sqrt(D^2 - s^2/3) = 0.094 m above the layer's centres (y = 0.0577) */
        ENSURE(o->ymin > 0.0577 + 0.08);
    }
    /* e = 0.7 has settled after 2 s: little kinetic energy left, all on or near the bed */
    ENSURE(lo.kin < 0.01);
    ENSURE(lo.ymax < 0.0577 + 0.0942 + 2 * D);
    /* e = 0.95 still bounces, and has dissipated less */
    ENSURE(hi.kin > 3.0 * lo.kin);
    ENSURE(lo.dissipated > hi.dissipated + 0.1);
    /* direct formulas against the exact inversion: the same bulk outcome */
    ENSURE_NEAR(lod.dissipated, lo.dissipated, 0.03);
    ENSURE_NEAR(lod.pot, lo.pot, 0.03);
    fprintf(stderr,
            "e=0.95: kin %.4f pot %.4f diss %.4f residual %.4f collisions %zu | e=0.7: kin %.4f pot %.4f "
            "diss %.4f residual %.4f collisions %zu | direct: kin %.4f pot %.4f diss %.4f residual %.4f\n",
            hi.kin, hi.pot, hi.dissipated, hi.residual, hi.collisions, lo.kin, lo.pot, lo.dissipated,
            lo.residual, lo.collisions, lod.kin, lod.pot, lod.dissipated, lod.residual);
}

int main(void) {
    test_paper_layer();
    test_even_layer();
    test_settling();
    return tl_test_report("test_sediment");
}
