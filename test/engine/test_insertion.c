/* Insertion: size distributions and random fills (no overlaps with each
 * other, the walls or what was there; inside the region; the sizes follow
 * the distribution asked for), particle files (CSV, LAMMPS data) with their
 * errors, inflows (the rate and the mass rate kept, the shortfall
 * reported), and the ways a stage ends (steps, duration, a kinetic-energy
 * condition and its guard). Reaches into src/ for insert.h and the plan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "insert.h"
#include "scene_plan.h"
#include "talus/talus.h"
#include "test.h"

#define PI 3.14159265358979323846

/* ---- helpers ---- */

static tl_world *glass_world(int *glass) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    tl_world *w = NULL;
    ENSURE_OK(tl_world_create(&wd, &w));
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = 2500;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.25;
    ENSURE_OK(tl_world_add_material(w, &md, glass));
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.5);
    ENSURE_OK(tl_world_set_law(w, *glass, *glass, &law));
    return w;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct sample_stats {
    double mean, std, se_mean, se_std;
} sample_stats;

/* the radii of particles [from, to): mean, std and their standard errors */
static sample_stats radius_stats(const tl_world *w, size_t from, size_t to) {
    double n = (double)(to - from), s = 0.0;
    for (size_t i = from; i < to; i++) {
        tl_particle_state p;
        tl_world_particle_at(w, i, &p);
        s += p.radius;
    }
    sample_stats st;
    st.mean = s / n;
    double m2 = 0.0, m4 = 0.0;
    for (size_t i = from; i < to; i++) {
        tl_particle_state p;
        tl_world_particle_at(w, i, &p);
        double d = p.radius - st.mean;
        m2 += d * d;
        m4 += d * d * d * d;
    }
    m2 /= n;
    m4 /= n;
    st.std = sqrt(m2);
    st.se_mean = st.std / sqrt(n);
    st.se_std = m2 > 0.0 ? sqrt(fmax(m4 - m2 * m2, 0.0) / n) / (2.0 * st.std) : 0.0;
    return st;
}

/* ---- random fills ---- */

/* the region, a floor plane cutting through its bottom and a two-sided
 * rectangle standing in its middle: every sphere inside the region, above
 * the floor, clear of the rectangle and of every other sphere */
#define RX 0.04
#define RY 0.04
#define RZ 0.05
#define FLOOR 0.003

static tl_wall_def floor_wall(int material) {
    tl_wall_def w = tl_wall_default();
    w.kind = TL_WALL_PLANE;
    w.material = material;
    w.point = (tl_vec3){0, 0, FLOOR};
    w.normal = (tl_vec3){0, 0, 1};
    return w;
}

static tl_wall_def fin_wall(int material) {
    tl_wall_def w = tl_wall_default();
    w.kind = TL_WALL_RECTANGLE;
    w.material = material;
    w.point = (tl_vec3){0.5 * RX, 0.5 * RY, 0.5 * RZ}; /* x = RX / 2, y and z half extents */
    w.normal = (tl_vec3){1, 0, 0};
    w.axis = (tl_vec3){0, 1, 0};
    w.half_length = 0.01;
    w.half_width = 0.01;
    return w;
}

static void check_no_overlaps(tl_world *w, size_t from, const char *what) {
    size_t n = tl_world_particle_count(w), bad = 0, outside = 0, wall = 0;
    for (size_t i = from; i < n; i++) {
        tl_particle_state a;
        tl_world_particle_at(w, i, &a);
        const tl_vec3 x = a.position;
        double r = a.radius;
        if (x.x < r - 1e-15 || x.x > RX - r + 1e-15 || x.y < r - 1e-15 || x.y > RY - r + 1e-15 ||
            x.z < r - 1e-15 || x.z > RZ - r + 1e-15)
            outside++;
        if (x.z - r < FLOOR - 1e-15) wall++;
        /* the fin: nearest point of the rectangle x = RX/2, |y - RY/2| <= 0.01, |z - RZ/2| <= 0.01 */
        double dy = fmax(fabs(x.y - 0.5 * RY) - 0.01, 0.0), dz = fmax(fabs(x.z - 0.5 * RZ) - 0.01, 0.0);
        double dx = x.x - 0.5 * RX;
        if (dx * dx + dy * dy + dz * dz < r * r) wall++;
        for (size_t j = 0; j < i; j++) {
            tl_particle_state b;
            tl_world_particle_at(w, j, &b);
            double ex = x.x - b.position.x, ey = x.y - b.position.y, ez = x.z - b.position.z;
            double rr = r + b.radius;
            if (ex * ex + ey * ey + ez * ez < rr * rr * (1.0 - 1e-12)) bad++;
        }
    }
    if (bad || outside || wall)
        fprintf(stderr, "%s: %zu overlapping pairs, %zu outside the region, %zu on a wall\n", what, bad,
                outside, wall);
    ENSURE(bad == 0 && outside == 0 && wall == 0);
}

typedef struct dist_case {
    const char *name;
    tl_dist d;
    double scale;       /* 1 radius, 0.5 diameter */
    double mean, std;   /* of the radius, in closed form */
} dist_case;

static tl_dist make_dist(tl_dist_kind kind) {
    tl_dist d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.min = d.max = NAN;
    return d;
}

static size_t dist_cases(dist_case *c) {
    size_t n = 0;
    /* uniform radius on [0.5, 0.9] mm */
    c[n] = (dist_case){"uniform", make_dist(TL_DIST_UNIFORM), 1.0, 0.7e-3, 0.4e-3 / sqrt(12.0)};
    c[n].d.min = 0.5e-3;
    c[n].d.max = 0.9e-3;
    n++;
    /* normal diameter, mean 1.4 mm, std 0.15 mm (cut at 5 std: no visible effect) */
    c[n] = (dist_case){"normal", make_dist(TL_DIST_NORMAL), 0.5, 0.7e-3, 0.075e-3};
    c[n].d.mean = 1.4e-3;
    c[n].d.std = 0.15e-3;
    n++;
    /* normal radius truncated to [mean - std, mean + 2 std]: the truncated moments */
    {
        double mu = 0.7e-3, sg = 0.1e-3, a = -1.0, b = 2.0;
        double pa = exp(-0.5 * a * a) / sqrt(2 * PI), pb = exp(-0.5 * b * b) / sqrt(2 * PI);
        double z = 0.5 * (erfc(-b / sqrt(2.0)) - erfc(-a / sqrt(2.0)));
        double m = mu + sg * (pa - pb) / z;
        double v = sg * sg * (1.0 + (a * pa - b * pb) / z - (pa - pb) * (pa - pb) / (z * z));
        c[n] = (dist_case){"truncated normal", make_dist(TL_DIST_NORMAL), 1.0, m, sqrt(v)};
        c[n].d.mean = mu;
        c[n].d.std = sg;
        c[n].d.min = mu + a * sg;
        c[n].d.max = mu + b * sg;
        n++;
    }
    /* log-normal radius, median 0.65 mm, sigma 0.2 */
    {
        double med = 0.65e-3, s = 0.2;
        c[n] = (dist_case){"log-normal", make_dist(TL_DIST_LOGNORMAL), 1.0, med * exp(0.5 * s * s),
                           med * exp(0.5 * s * s) * sqrt(exp(s * s) - 1.0)};
        c[n].d.mu = log(med);
        c[n].d.sigma = s;
        n++;
    }
    /* a list: 0.5 mm (weight 1), 0.8 mm (weight 3) */
    {
        double m = 0.25 * 0.5e-3 + 0.75 * 0.8e-3;
        double v = 0.25 * 0.5e-3 * 0.5e-3 + 0.75 * 0.8e-3 * 0.8e-3 - m * m;
        c[n] = (dist_case){"list", make_dist(TL_DIST_LIST), 1.0, m, sqrt(v)};
        c[n].d.nvalues = 2;
        c[n].d.values[0] = 0.5e-3;
        c[n].d.values[1] = 0.8e-3;
        c[n].d.weights[0] = 1.0;
        c[n].d.weights[1] = 3.0;
        n++;
    }
    return n;
}

static void test_fill_distributions(void) {
    dist_case cases[8];
    size_t nc = dist_cases(cases);
    for (size_t k = 0; k < nc; k++) {
        dist_case *c = &cases[k];
        char msg[512];
        ENSURE_OK(tl_dist_finish(&c->d, msg, sizeof msg));
        /* the distribution's own moments agree with the closed forms */
        double m1 = c->scale * tl_dist_moment(&c->d, 1);
        double m2 = c->scale * c->scale * tl_dist_moment(&c->d, 2);
        ENSURE_REL(m1, c->mean, 1e-5);
        ENSURE_REL(sqrt(m2 - m1 * m1), c->std, 1e-4);

        int glass;
        tl_world *w = glass_world(&glass);
        tl_wall_def walls[2] = {floor_wall(glass), fin_wall(glass)};
        ENSURE_OK(tl_world_add_wall(w, &walls[0], NULL));
        ENSURE_OK(tl_world_add_wall(w, &walls[1], NULL));
        /* a particle already there, in the middle of the region */
        tl_particle_def big = tl_particle_default();
        big.material = glass;
        big.radius = 3e-3;
        big.position = (tl_vec3){0.01, 0.03, 0.025};
        ENSURE_OK(tl_world_add_particle(w, &big, NULL));

        tl_fill_def fd;
        memset(&fd, 0, sizeof fd);
        fd.space.min = (tl_vec3){0, 0, 0};
        fd.space.max = (tl_vec3){RX, RY, RZ};
        fd.space.walls = walls;
        fd.space.nwalls = 2;
        fd.size = c->d;
        fd.size_scale = c->scale;
        fd.count = 2000;
        fd.particle = tl_particle_default();
        fd.particle.material = glass;
        fd.seed = 1000 + k;
        tl_fill_result res;
        tl_status st = tl_insert_fill(w, &fd, &res, msg, sizeof msg);
        if (st != TL_OK) fprintf(stderr, "%s fill: %s\n", c->name, msg);
        ENSURE(st == TL_OK && res.placed == 2000);
        ENSURE(tl_world_particle_count(w) == 2001);
        check_no_overlaps(w, 0, c->name);

        sample_stats s = radius_stats(w, 1, 2001);
        fprintf(stderr, "%-16s radius mean %.5g (expected %.5g, %+.2f SE), std %.5g (expected %.5g, "
                        "%+.2f SE)\n",
                c->name, s.mean, c->mean, (s.mean - c->mean) / s.se_mean, s.std, c->std,
                (s.std - c->std) / s.se_std);
        ENSURE_NEAR(s.mean, c->mean, 4.0 * s.se_mean);
        ENSURE_NEAR(s.std, c->std, 4.0 * s.se_std);
        /* every radius is one the distribution can draw */
        for (size_t i = 1; i < 2001; i++) {
            tl_particle_state p;
            tl_world_particle_at(w, i, &p);
            ENSURE(p.radius >= c->scale * tl_dist_lower(&c->d) - 1e-18 &&
                   p.radius <= c->scale * tl_dist_upper(&c->d) + 1e-18);
            if (c->d.kind == TL_DIST_LIST)
                ENSURE(p.radius == c->d.values[0] || p.radius == c->d.values[1]);
        }
        /* the engine sees no contact at all */
        ENSURE_OK(tl_world_prepare(w));
        ENSURE(tl_world_contact_count(w) == 0);
        tl_world_destroy(w);
    }
}

static void test_fill_fraction_and_errors(void) {
    int glass;
    tl_world *w = glass_world(&glass);
    tl_fill_def fd;
    memset(&fd, 0, sizeof fd);
    fd.space.min = (tl_vec3){0, 0, 0};
    fd.space.max = (tl_vec3){0.02, 0.02, 0.02};
    fd.size = tl_dist_constant(0.5e-3);
    fd.volume_fraction = 0.25;
    fd.particle = tl_particle_default();
    fd.particle.material = glass;
    fd.seed = 5;
    char msg[768];
    tl_fill_result res;
    ENSURE_OK(tl_insert_fill(w, &fd, &res, msg, sizeof msg));
    double v1 = 4.0 / 3.0 * PI * 0.5e-3 * 0.5e-3 * 0.5e-3, vol = 0.02 * 0.02 * 0.02;
    /* the spheres' volume is the fraction asked for, to half a sphere */
    ENSURE_NEAR(res.volume_fraction, 0.25, 0.5 * v1 / vol + 1e-12);
    ENSURE(res.placed == tl_world_particle_count(w));
    ENSURE_NEAR((double)res.placed, 0.25 * vol / v1, 0.5 + 1e-9);
    /* the same seed gives the same spheres */
    int g2;
    tl_world *w2 = glass_world(&g2);
    ENSURE_OK(tl_insert_fill(w2, &fd, NULL, msg, sizeof msg));
    bool same = tl_world_particle_count(w2) == tl_world_particle_count(w);
    for (size_t i = 0; same && i < tl_world_particle_count(w); i++) {
        tl_particle_state a, b;
        tl_world_particle_at(w, i, &a);
        tl_world_particle_at(w2, i, &b);
        same = a.position.x == b.position.x && a.position.y == b.position.y &&
               a.position.z == b.position.z && a.radius == b.radius;
    }
    ENSURE(same);
    tl_world_destroy(w2);

    /* too many: nothing is added and the message says how many fit */
    tl_world_destroy(w);
    w = glass_world(&glass);
    size_t before = tl_world_particle_count(w);
    fd.volume_fraction = 0.0;
    fd.count = 3000;
    fd.size = tl_dist_constant(1e-3);
    fd.max_attempts = 200;
    tl_status st = tl_insert_fill(w, &fd, &res, msg, sizeof msg);
    ENSURE(st == TL_ERROR_ARGUMENT);
    ENSURE(strstr(msg, "of the 3000 spheres fit") != NULL);
    ENSURE(res.placed > 100 && res.placed < 1000);
    ENSURE(tl_world_particle_count(w) == before);
    fprintf(stderr, "too many: %s\n", msg);
    tl_world_destroy(w);

    /* 10^5 spheres insert in well under a second */
    w = glass_world(&glass);
    memset(&fd, 0, sizeof fd);
    fd.space.min = (tl_vec3){0, 0, 0};
    fd.space.max = (tl_vec3){0.1, 0.1, 0.4};
    fd.size.kind = TL_DIST_UNIFORM;
    fd.size.min = 0.6e-3;
    fd.size.max = 1.0e-3;
    ENSURE_OK(tl_dist_finish(&fd.size, msg, sizeof msg));
    fd.count = 100000;
    fd.particle = tl_particle_default();
    fd.particle.material = glass;
    double t0 = now_s();
    ENSURE_OK(tl_insert_fill(w, &fd, &res, msg, sizeof msg));
    double el = now_s() - t0;
    fprintf(stderr, "10^5 spheres (solid fraction %.3f) inserted in %.3f s\n", res.volume_fraction, el);
    ENSURE(tl_world_particle_count(w) == 100000);
    /* the time is printed, not tested: speed is measured by bench/ (a timed test fails on a busy
     * machine or under the sanitizers: 68 s under ASan) */
    tl_world_destroy(w);
}

/* across a periodic boundary two spheres must not overlap either */
static void test_fill_periodic(void) {
    int glass;
    tl_world *w = glass_world(&glass);
    tl_fill_def fd;
    memset(&fd, 0, sizeof fd);
    fd.space.min = (tl_vec3){0, 0, 0};
    fd.space.max = (tl_vec3){0.01, 0.01, 0.01};
    fd.space.periodic[0] = fd.space.periodic[1] = true;
    fd.space.period_min = (tl_vec3){0, 0, 0};
    fd.space.period_max = (tl_vec3){0.01, 0.01, 0.01};
    fd.size = tl_dist_constant(0.5e-3);
    fd.count = 400;
    fd.particle = tl_particle_default();
    fd.particle.material = glass;
    char msg[512];
    ENSURE_OK(tl_insert_fill(w, &fd, NULL, msg, sizeof msg));
    size_t n = tl_world_particle_count(w), bad = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) {
            tl_particle_state a, b;
            tl_world_particle_at(w, i, &a);
            tl_world_particle_at(w, j, &b);
            double d[3] = {a.position.x - b.position.x, a.position.y - b.position.y,
                           a.position.z - b.position.z};
            for (int k = 0; k < 2; k++) d[k] -= 0.01 * nearbyint(d[k] / 0.01);
            if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < 1e-6 * (1.0 - 1e-12)) bad++;
        }
    ENSURE(n == 400 && bad == 0);
    tl_world_destroy(w);
}

/* ---- scenes: files, random entries, inflows, stages ---- */

static char tmpdir[64];

static void write_file(const char *name, const char *text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    ENSURE(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* loads tmpdir/name written from text; NULL and the message on failure */
static tl_scene *load(const char *name, const char *text, char *msg, size_t size) {
    write_file(name, text);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    tl_scene *s = NULL;
    tl_scene_error err;
    msg[0] = '\0';
    if (tl_scene_load_file(path, &s, &err) != TL_OK) tl_scene_error_format(&err, msg, size);
    return s;
}

#define HEAD                                                                          \
    "gravity: [0, 0, -9.81]\n"                                                        \
    "materials:\n"                                                                    \
    "  glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}\n"          \
    "  steel: {density: 7800, youngs_modulus: 1.0e7, poisson_ratio: 0.3}\n"           \
    "laws:\n"                                                                         \
    "  - {between: [any, any], normal: hertz, damping: tsuji, tangential: mindlin, e: 0.5, mu: 0.5}\n"
#define BOX "walls:\n  - {type: box, material: steel, min: [0, 0, 0], max: [0.02, 0.02, 0.1], open: [+z]}\n"
#define STAGE "stages:\n  - {duration: 1.0e-3}\n"

static void expect_error(const char *name, const char *text, const char *w1, const char *w2) {
    char msg[2048];
    tl_scene *s = load(name, text, msg, sizeof msg);
    bool ok = !s && strstr(msg, w1) && (!w2 || strstr(msg, w2));
    if (!ok) fprintf(stderr, "%s: expected an error with '%s' / '%s', got: %s\n", name, w1,
                     w2 ? w2 : "", s ? "(loaded)" : msg);
    ENSURE(ok);
    tl_scene_destroy(s);
}

static void test_csv(void) {
    write_file("bed.csv",
               "# a comment line\n"
               "id, x, y, z, diameter, vx, vy, vz, wx, wy, wz, material, fixed, mass\n"
               "11, 0.005, 0.005, 0.003, 2.0e-3, 0.1, 0.2, 0.3, 1, 2, 3, glass, 0, \n"
               "\n"
               "12, 0.010, 0.005, 0.003, 2.0e-3, 0, 0, 0, 0, 0, 0, steel, 1, 1.0e-5\n");
    /* the empty mass cell is an error: each row gives every column */
    char msg[2048];
    tl_scene *s = load("csv.yaml", HEAD BOX "particles:\n  - {file: bed.csv}\n" STAGE, msg, sizeof msg);
    if (s || !strstr(msg, "csv.yaml:10:") || !strstr(msg, "bed.csv:3: column 'mass'"))
        fprintf(stderr, "empty cell: %s\n", msg);
    ENSURE(!s && strstr(msg, "csv.yaml:10:") && strstr(msg, "bed.csv:3: column 'mass'"));
    write_file("bed.csv",
               "# a comment line\n"
               "id, x, y, z, diameter, vx, vy, vz, wx, wy, wz, material, fixed, mass\n"
               "11, 0.005, 0.005, 0.003, 2.0e-3, 0.1, 0.2, 0.3, 1, 2, 3, glass, 0, 5.0e-6\n"
               "\n"
               "12, 0.010, 0.005, 0.003, 2.0e-3, 0, 0, 0, 0, 0, 0, steel, 1, 1.0e-5\n");
    s = load("csv.yaml", HEAD BOX "particles:\n  - {file: bed.csv}\n" STAGE, msg, sizeof msg);
    if (!s) fprintf(stderr, "csv: %s\n", msg);
    ENSURE(s != NULL);
    if (s) {
        tl_world *w = tl_scene_world(s);
        tl_particle_state p;
        ENSURE_OK(tl_world_get_particle(w, 11, &p));
        ENSURE(p.radius == 1e-3 && p.position.x == 0.005 && p.position.z == 0.003);
        ENSURE(p.velocity.x == 0.1 && p.velocity.z == 0.3 && p.angular_velocity.y == 2.0);
        ENSURE(p.mass == 5e-6 && p.flags == 0);
        int steel;
        ENSURE_OK(tl_world_find_material(w, "steel", &steel));
        ENSURE_OK(tl_world_get_particle(w, 12, &p));
        ENSURE(p.material == steel && (p.flags & TL_PARTICLE_FIXED));
        tl_scene_destroy(s);
    }
    /* the minimum: x, y, z, radius, with the material from the scene */
    write_file("min.csv", "x,y,z,radius\n0.005,0.005,0.002,1e-3\n0.01,0.005,0.002,1e-3\n");
    s = load("min.yaml", HEAD BOX "particles:\n  - {file: min.csv, material: glass, fixed: true}\n"
             "  - {material: glass, radius: 1.0e-3, position: [0.01, 0.01, 0.01]}\n" STAGE,
             msg, sizeof msg);
    if (!s) fprintf(stderr, "min.csv: %s\n", msg);
    ENSURE(s && tl_world_particle_count(tl_scene_world(s)) == 3);
    if (s) {
        tl_particle_state p;
        tl_world_particle_at(tl_scene_world(s), 1, &p);
        ENSURE(p.radius == 1e-3 && (p.flags & TL_PARTICLE_FIXED));
    }
    tl_scene_destroy(s);

    /* errors name the CSV file and its line */
    write_file("e1.csv", "x,y,z,radius\n0.005,0.005,0.002,1e-3\n0.01,0.005,abc,1e-3\n");
    expect_error("e1.yaml", HEAD BOX "particles:\n  - {file: e1.csv, material: glass}\n" STAGE,
                 "e1.csv:3: column 'z': expected a number, got 'abc'", "particles[0].file");
    write_file("e2.csv", "x,y,z,radus\n");
    expect_error("e2.yaml", HEAD BOX "particles:\n  - {file: e2.csv, material: glass}\n" STAGE,
                 "e2.csv:1: unknown column 'radus'", "did you mean 'radius'?");
    write_file("e3.csv", "x,y,z,radius\n\n0.005,0.005,0.002\n");
    expect_error("e3.yaml", HEAD BOX "particles:\n  - {file: e3.csv, material: glass}\n" STAGE,
                 "e3.csv:3: expected 4 values", NULL);
    write_file("e4.csv", "x,y,z,radius,material\n0.005,0.005,0.002,1e-3,glas\n");
    expect_error("e4.yaml", HEAD BOX "particles:\n  - {file: e4.csv}\n" STAGE,
                 "e4.csv:2: column 'material': unknown material 'glas'", "did you mean 'glass'?");
    write_file("e5.csv", "id,x,y,z,radius\n3,0.005,0.005,0.002,1e-3\n3,0.01,0.005,0.002,1e-3\n");
    expect_error("e5.yaml", HEAD BOX "particles:\n  - {file: e5.csv, material: glass}\n" STAGE,
                 "e5.csv:3:", "id 3 is already used");
    write_file("e6.csv", "x,y,z,radius\n0.005,0.005,0.002,-1e-3\n");
    expect_error("e6.yaml", HEAD BOX "particles:\n  - {file: e6.csv, material: glass}\n" STAGE,
                 "e6.csv:2: column 'radius': expected a number > 0 (m)", NULL);
    write_file("e7.csv", "x,y,radius\n");
    expect_error("e7.yaml", HEAD BOX "particles:\n  - {file: e7.csv, material: glass}\n" STAGE,
                 "e7.csv:1: the header has no column 'z'", NULL);
    expect_error("e8.yaml", HEAD BOX "particles:\n  - {file: nothere.csv, material: glass}\n" STAGE,
                 "cannot open", "nothere.csv");
    write_file("e9.csv", "x,y,z,radius\n0.005,0.005,0.002,1e-3\n");
    expect_error("e9.yaml", HEAD BOX "particles:\n  - {file: e9.csv}\n" STAGE,
                 "e9.csv:1: no material", NULL);
}

static const char *const lammps_data =
    "three spheres (LAMMPS data file)\n"
    "\n"
    "3 atoms\n"
    "2 atom types\n"
    "\n"
    "0.0 0.02 xlo xhi\n"
    "0.0 0.02 ylo yhi\n"
    "0.0 0.10 zlo zhi\n"
    "\n"
    "Atoms # sphere\n"
    "\n"
    "1 1 2.0e-3 2500 0.005 0.005 0.002\n"
    "2 1 2.0e-3 2500 0.010 0.005 0.002\n"
    "3 2 3.0e-3 7800 -0.005 0.010 0.004 1 0 0\n"
    "\n"
    "Velocities\n"
    "\n"
    "1 0.5 0 0 0 0 1\n"
    "2 0 0 0 0 0 0\n"
    "3 0 0 -1 0 0 0\n";

static void test_lammps(void) {
    write_file("bed.data", lammps_data);
    char msg[2048];
    tl_scene *s = load("lmp.yaml", HEAD BOX "particles:\n  - {file: bed.data, types: {1: glass, 2: steel}}\n"
                       STAGE, msg, sizeof msg);
    if (!s) fprintf(stderr, "lammps: %s\n", msg);
    ENSURE(s != NULL);
    if (s) {
        tl_world *w = tl_scene_world(s);
        ENSURE(tl_world_particle_count(w) == 3);
        tl_particle_state p;
        ENSURE_OK(tl_world_get_particle(w, 1, &p));
        ENSURE(p.radius == 1e-3 && p.position.x == 0.005 && p.velocity.x == 0.5 &&
               p.angular_velocity.z == 1.0);
        ENSURE_REL(p.mass, 2500 * 4.0 / 3.0 * PI * 1e-9, 1e-12);
        ENSURE_OK(tl_world_get_particle(w, 3, &p));
        ENSURE_NEAR(p.position.x, 0.015, 1e-15); /* unwrapped by its image flag */
        ENSURE(p.radius == 1.5e-3 && p.velocity.z == -1.0);
        tl_scene_destroy(s);
    }
    /* format given, file of any name */
    write_file("bed.txt", lammps_data);
    s = load("lmp2.yaml", HEAD BOX "particles:\n  - {file: bed.txt, format: lammps-data, types: {1: glass, "
             "2: steel}}\n" STAGE, msg, sizeof msg);
    ENSURE(s != NULL);
    tl_scene_destroy(s);
    /* the density must match the material's */
    write_file("rho.data", "bad density\n\n1 atoms\n\nAtoms # sphere\n\n1 1 2.0e-3 2400 0.005 0.005 0.002\n");
    expect_error("rho.yaml", HEAD BOX "particles:\n  - {file: rho.data, types: {1: glass}}\n" STAGE,
                 "rho.data:7: atom 1: density 2400 kg/m3 differs from material 'glass' (2500 kg/m3)",
                 NULL);
    expect_error("typ.yaml", HEAD BOX "particles:\n  - {file: bed.data, types: {1: glass}}\n" STAGE,
                 "bed.data:14: atom 3 has type 2", "add 2: <material>");
    write_file("cnt.data", "count\n\n2 atoms\n\nAtoms\n\n1 1 2.0e-3 2500 0.005 0.005 0.002\n");
    expect_error("cnt.yaml", HEAD BOX "particles:\n  - {file: cnt.data, types: {1: glass}}\n" STAGE,
                 "cnt.data: the header says 2 atoms but the Atoms section has 1", NULL);
    write_file("sty.data", "style\n\n1 atoms\n\nAtoms # atomic\n\n1 1 0.005 0.005 0.002\n");
    expect_error("sty.yaml", HEAD BOX "particles:\n  - {file: sty.data, types: {1: glass}}\n" STAGE,
                 "sty.data:5: Atoms of style 'atomic'", NULL);
    expect_error("mat.yaml", HEAD BOX "particles:\n  - {file: bed.data, material: glass}\n" STAGE,
                 "particles[0].material", "types: {1: glass");
    expect_error("gz.yaml", HEAD BOX "particles:\n  - {file: bed.data.gz, types: {1: glass}}\n" STAGE,
                 "gunzip it first", NULL);
}

static void test_random_entry(void) {
    char msg[2048];
    const char *text = HEAD BOX
        "particles:\n"
        "  - {material: steel, radius: 2.0e-3, position: [0.01, 0.01, 0.01], fixed: true}\n"
        "  - random:\n"
        "      region: {min: [0, 0, 0], max: [0.02, 0.02, 0.04]}\n"
        "      count: 500\n"
        "      diameter: {distribution: list, values: [1.0e-3, 1.5e-3], weights: [2, 1]}\n"
        "      material: glass\n"
        "      velocity: [0, 0, -0.1]\n"
        STAGE;
    tl_scene *s = load("rnd.yaml", text, msg, sizeof msg);
    if (!s) fprintf(stderr, "random: %s\n", msg);
    ENSURE(s != NULL);
    if (s) {
        tl_world *w = tl_scene_world(s);
        ENSURE(tl_world_particle_count(w) == 501);
        ENSURE(tl_world_contact_count(w) == 0); /* prepared at load: forces at t = 0 */
        tl_particle_state p;
        tl_world_particle_at(w, 300, &p);
        ENSURE(p.velocity.z == -0.1 && (p.radius == 0.5e-3 || p.radius == 0.75e-3));
        tl_scene_destroy(s);
    }
    /* too many: the message says how many fit, at the count */
    expect_error("many.yaml", HEAD BOX "particles:\n  - random: {region: {min: [0, 0, 0], max: [0.01, 0.01, 0.01]},\n"
                 "      count: 5000, radius: 1.0e-3, material: glass, max_attempts: 100}\n" STAGE,
                 "many.yaml:11:", "particles[0].random.count: only");
    expect_error("frac.yaml", HEAD BOX "particles:\n  - random: {region: {min: [0, 0, 0], max: [0.01, 0.01, 0.01]},\n"
                 "      count: 10, volume_fraction: 0.1, radius: 1.0e-3, material: glass}\n" STAGE,
                 "particles[0].random.volume_fraction: give either count or volume_fraction", NULL);
    expect_error("dist.yaml", HEAD BOX "particles:\n  - random: {region: {min: [0, 0, 0], max: [0.01, 0.01, 0.01]},\n"
                 "      count: 10, radius: {distribution: normal, mean: 1.0e-3, std: 0.5e-3}, material: glass}\n" STAGE,
                 "particles[0].random.radius", "give min > 0");
    expect_error("dist2.yaml", HEAD BOX "particles:\n  - random: {region: {min: [0, 0, 0], max: [0.01, 0.01, 0.01]},\n"
                 "      count: 10, radius: {distribution: gamma}, material: glass}\n" STAGE,
                 "particles[0].random.radius.distribution", "uniform, normal, log-normal, list");
    expect_error("dist3.yaml", HEAD BOX "particles:\n  - random: {region: {min: [0, 0, 0], max: [0.01, 0.01, 0.01]},\n"
                 "      count: 10, radius: {distribution: uniform, min: 1.0e-3, mean: 2.0e-3}, material: glass}\n" STAGE,
                 "unknown key 'mean'", NULL);
    expect_error("dom.yaml", "domain: {min: [0, 0, 0], max: [0.02, 0.02, 0.02]}\n" HEAD BOX
                 "particles:\n  - random: {region: {min: [0, 0, 0], max: [0.01, 0.01, 0.03]},\n"
                 "      count: 10, radius: 1.0e-3, material: glass}\n" STAGE,
                 "particles[0].random.region: the region must lie inside the domain", NULL);
}

/* runs a loaded scene without outputs */
static tl_status run(tl_scene *s, tl_run_summary *sum) {
    tl_run_options o = tl_run_options_default();
    o.write_outputs = false;
    tl_status st = tl_scene_run(s, &o, sum);
    if (st != TL_OK) fprintf(stderr, "run failed: %s\n", tl_scene_run_error(s));
    return st;
}

static void test_inflow(void) {
    char msg[2048];
    /* a rate: particles inserted = rate x time, to one particle, whatever the step */
    const char *text = HEAD BOX
        "particles:\n"
        "  - inflow:\n"
        "      region: {min: [0, 0, 0.05], max: [0.02, 0.02, 0.09]}\n"
        "      rate: 20000\n"
        "      radius: {distribution: uniform, min: 0.4e-3, max: 0.6e-3}\n"
        "      material: glass\n"
        "      velocity: [0, 0, -0.5]\n"
        "      start: 0.002\n"
        "stages:\n  - {duration: 0.0123}\n";
    tl_scene *s = load("inflow.yaml", text, msg, sizeof msg);
    if (!s) fprintf(stderr, "inflow: %s\n", msg);
    ENSURE(s != NULL);
    if (s) {
        tl_world *w = tl_scene_world(s);
        ENSURE(tl_world_particle_count(w) == 0);
        tl_run_summary sum;
        ENSURE_OK(run(s, &sum));
        double t = tl_world_time(w);
        double expected = 20000.0 * (t - 0.002);
        fprintf(stderr, "inflow: %zu inserted by t = %.6g s, rate x time = %.3f\n",
                sum.particles_inserted, t, expected);
        ENSURE(fabs((double)sum.particles_inserted - expected) <= 1.0);
        ENSURE(tl_world_particle_count(w) == sum.particles_inserted);
        ENSURE(s->inflow_states[0].inserted == (int64_t)sum.particles_inserted);
        ENSURE(sum.inflow_shortfall == 0 && sum.warnings[0] == '\0');
        /* the energy brought in is counted: the balance holds */
        ENSURE(sum.energy_inserted > 0.0);
        ENSURE(sum.energy_balance_error < 1e-3);
        /* the step was shortened for the inflow's smallest particles */
        tl_timestep_info ts;
        ENSURE_OK(tl_world_timestep(w, &ts));
        tl_scene_destroy(s);
    }
    /* a mass rate: the mass inserted stays within one particle of mass_rate x time */
    const char *mtext = HEAD BOX
        "particles:\n"
        "  - inflow: {region: {min: [0, 0, 0.05], max: [0.02, 0.02, 0.09]}, mass_rate: 0.02,\n"
        "             diameter: 1.0e-3, material: glass, stop: 0.008}\n"
        "stages:\n  - {duration: 0.01}\n";
    s = load("mass.yaml", mtext, msg, sizeof msg);
    if (!s) fprintf(stderr, "mass inflow: %s\n", msg);
    ENSURE(s != NULL);
    if (s) {
        tl_run_summary sum;
        ENSURE_OK(run(s, &sum));
        double m1 = 2500 * 4.0 / 3.0 * PI * 0.5e-3 * 0.5e-3 * 0.5e-3;
        double due = 0.02 * 0.008;
        ENSURE(s->inflow_states[0].finished);
        ENSURE(s->inflow_states[0].mass_inserted <= due * (1 + 1e-9));
        ENSURE(s->inflow_states[0].mass_inserted > due - m1);
        ENSURE(sum.particles_inserted == (size_t)floor(due / m1 + 1e-9));
        tl_scene_destroy(s);
    }
    /* a region that fills up: the shortfall is reported, and count caps the total */
    const char *full = HEAD BOX
        "particles:\n"
        "  - inflow: {region: {min: [0, 0, 0.05], max: [0.004, 0.004, 0.054]}, rate: 100000,\n"
        "             radius: 1.0e-3, material: glass, stop: 0.002, max_attempts: 50}\n"
        "  - inflow: {region: {min: [0.01, 0.01, 0.05], max: [0.02, 0.02, 0.09]}, rate: 100000,\n"
        "             radius: 0.5e-3, material: glass, count: 37}\n"
        "stages:\n  - {duration: 0.002}\n";
    s = load("full.yaml", full, msg, sizeof msg);
    if (!s) fprintf(stderr, "full inflow: %s\n", msg);
    ENSURE(s != NULL);
    if (s) {
        tl_run_summary sum;
        ENSURE_OK(run(s, &sum));
        const tl_inflow_state *a = &s->inflow_states[0], *b = &s->inflow_states[1];
        fprintf(stderr, "full region: %lld inserted, shortfall %lld; warning: %s\n",
                (long long)a->inserted, (long long)a->shortfall, sum.warnings);
        double t = tl_world_time(tl_scene_world(s));
        ENSURE(a->inserted + a->shortfall == (int64_t)floor(100000 * t + 1e-9));
        ENSURE(a->shortfall > 100 && a->failed_rounds > 0);
        ENSURE(sum.inflow_shortfall == (size_t)a->shortfall);
        ENSURE(strstr(sum.warnings, "inflow particles[0]") && strstr(sum.warnings, "no free place"));
        ENSURE(b->inserted == 37 && b->finished && b->shortfall == 0);
        tl_scene_destroy(s);
    }
    /* a step given too long for the inflow's particles is refused */
    expect_error("dt.yaml", "integrator: {dt: 1.0e-4}\n" HEAD BOX
                 "particles:\n  - inflow: {region: {min: [0, 0, 0.05], max: [0.02, 0.02, 0.09]}, rate: 1000,\n"
                 "             radius: 0.5e-3, material: glass}\n" STAGE,
                 "integrator.dt: dt = 0.0001 s does not resolve the contacts of the particles the "
                 "inflows insert", NULL);
    expect_error("law.yaml", "gravity: [0, 0, -9.81]\nmaterials:\n  glass: {density: 2500, youngs_modulus: 1.0e7}\n"
                 "  steel: {density: 7800, youngs_modulus: 1.0e7}\nlaws:\n"
                 "  - {between: [glass, glass], normal: hertz, damping: tsuji, e: 0.5}\n" BOX
                 "particles:\n  - inflow: {region: {min: [0, 0, 0.05], max: [0.02, 0.02, 0.09]}, rate: 1000,\n"
                 "             radius: 0.5e-3, material: glass}\n" STAGE,
                 "particles[0].inflow.material: no contact law between materials 'glass' and 'steel'",
                 "walls of 'steel'");
}

static void test_stages(void) {
    char msg[2048];
    /* a column of beads settling on the floor of the box */
    const char *text = HEAD BOX
        "particles:\n"
        "  - lattice: {material: glass, radius: 1.0e-3, min: [0.004, 0.004, 0], max: [0.016, 0.016, 0.03],\n"
        "              spacing: 2.4e-3, jitter: 0.3}\n"
        "stages:\n"
        "  - {name: count, steps: 123}\n"
        "  - {name: timed, duration: 2.0e-3}\n"
        "  - {name: both, duration: 1.0, steps: 77}\n"
        "  - {name: settle, until: {kinetic_energy_below: 1.0e-7}, max_duration: 1.0, check_every: 50}\n"
        "  - {name: guard, until: {kinetic_energy_below: 1.0e-30}, max_duration: 1.0e-3}\n";
    tl_scene *s = load("stages.yaml", text, msg, sizeof msg);
    if (!s) fprintf(stderr, "stages: %s\n", msg);
    ENSURE(s != NULL);
    if (!s) return;
    tl_world *w = tl_scene_world(s);
    double dt = tl_world_dt(w);
    ENSURE_NEAR(tl_scene_stage_duration(s, 0), 123 * dt, 1e-15);
    ENSURE_NEAR(tl_scene_stage_duration(s, 2), 77 * dt, 1e-15);
    ENSURE_NEAR(tl_scene_stage_duration(s, 3), 1.0, 0.0);
    tl_run_summary sum;
    ENSURE_OK(run(s, &sum));
    tl_stage_result r[5];
    for (int i = 0; i < 5; i++) ENSURE_OK(tl_scene_stage_result(s, i, &r[i]));
    ENSURE(strcmp(r[0].ended_by, "steps") == 0 && r[0].steps == 123);
    ENSURE(strcmp(r[1].ended_by, "duration") == 0 && r[1].steps == llround(2e-3 / dt));
    ENSURE(strcmp(r[2].ended_by, "steps") == 0 && r[2].steps == 77);
    fprintf(stderr, "settle: ended by %s after %lld steps (%.4g s), kinetic energy %.3g J\n",
            r[3].ended_by, (long long)r[3].steps, r[3].time_end - r[3].time_begin, r[3].kinetic_energy);
    ENSURE(strcmp(r[3].ended_by, "kinetic_energy_below") == 0);
    ENSURE(r[3].kinetic_energy < 1e-7 && r[3].steps % 50 == 0);
    ENSURE(r[3].steps < llround(1.0 / dt));
    ENSURE(r[3].time_end - r[3].time_begin > 0.01); /* it did have to settle */
    ENSURE(strcmp(r[4].ended_by, "max_duration") == 0 && r[4].steps == llround(1e-3 / dt));
    ENSURE(r[4].kinetic_energy >= 1e-30);
    ENSURE(sum.steps == 123 + r[1].steps + 77 + r[3].steps + r[4].steps);
    ENSURE(r[1].time_begin == r[0].time_end);
    tl_scene_destroy(s);

    /* a condition alone needs a guard */
    expect_error("guard.yaml", HEAD BOX "particles:\n  - {material: glass, radius: 1.0e-3, position: [0.01, 0.01, 0.01]}\n"
                 "stages:\n  - {until: {kinetic_energy_below: 1.0e-6}}\n",
                 "stages[0].until: a stage that ends on a condition needs a guard", "max_duration");
    expect_error("guard2.yaml", HEAD BOX "particles:\n  - {material: glass, radius: 1.0e-3, position: [0.01, 0.01, 0.01]}\n"
                 "stages:\n  - {duration: 0.1, max_duration: 0.2}\n",
                 "stages[0].max_duration: max_duration guards an until condition", NULL);
    expect_error("guard3.yaml", HEAD BOX "particles:\n  - {material: glass, radius: 1.0e-3, position: [0.01, 0.01, 0.01]}\n"
                 "stages:\n  - {name: x}\n",
                 "stages[0].duration: required key is missing", "steps: N");
    expect_error("guard4.yaml", HEAD BOX "particles:\n  - {material: glass, radius: 1.0e-3, position: [0.01, 0.01, 0.01]}\n"
                 "stages:\n  - {until: {kinetic_energy_belo: 1}, max_duration: 1}\n",
                 "stages[0].until: unknown key 'kinetic_energy_belo'", NULL);
}

/* the examples load: rainfall (random fill + inflow + a settling stage), pour-100k */
static void test_examples(void) {
    const char *names[] = {"rainfall.yaml", "pour-100k.yaml"};
    for (size_t i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/examples/%s", TALUS_SOURCE_DIR, names[i]);
        tl_scene *s = NULL;
        tl_scene_error err;
        tl_status st = tl_scene_load_file(path, &s, &err);
        char msg[2048];
        tl_scene_error_format(&err, msg, sizeof msg);
        if (st != TL_OK) fprintf(stderr, "%s: %s\n", names[i], msg);
        ENSURE(st == TL_OK && s && s->ninflows == 1);
        if (!s) continue;
        if (i == 0) ENSURE(tl_world_particle_count(tl_scene_world(s)) == 1000);
        if (i == 1) ENSURE(s->inflows[0].count == 100000 && s->inflows[0].rate == 200000);
        tl_scene_destroy(s);
    }
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/talus_insertion_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_fill_distributions();
    test_fill_fraction_and_errors();
    test_fill_periodic();
    test_csv();
    test_lammps();
    test_random_entry();
    test_inflow();
    test_stages();
    test_examples();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return tl_test_report("test_insertion");
}
