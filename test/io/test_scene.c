/* Scene loading: a valid scene becomes the expected world and plan; bad
 * scenes are refused with the line, the key path and the words that say
 * what is wrong; loading creates no file. Reaches into src/scene/scene_plan.h
 * for the plan's fields. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv_options.h"
#include "output_plot.h"
#include "scene_plan.h"
#include "talus/talus.h"
#include "test.h"

/* ---- a valid scene ---- */

static const char *const valid_scene =
    "talus: 1\n"                                                            /* 1 */
    "name: Falling Particle (demo)!\n"                                      /* 2 */
    "units: SI\n"                                                           /* 3 */
    "seed: 42\n"                                                            /* 4 */
    "gravity: [0, 0, -9.81]\n"                                              /* 5 */
    "integrator:\n"                                                         /* 6 */
    "  scheme: leapfrog\n"                                                  /* 7 */
    "  dt: 1.0e-6\n"                                                        /* 8 */
    "  steps_per_contact: 20\n"                                             /* 9 */
    "neighbor: {skin: 1.0e-4}\n"                                            /* 10 */
    "materials:\n"                                                          /* 11 */
    "  sand: {density: 2500, youngs_modulus: 5.0e6, poisson_ratio: 0.3}\n"  /* 12 */
    "  steel: {density: 7800, youngs_modulus: 2.0e8}\n"                     /* 13 */
    "laws:\n"                                                               /* 14 */
    "  - between: [any, any]\n"                                             /* 15 */
    "    normal: hertz\n"                                                   /* 16 */
    "    damping: tsuji\n"                                                  /* 17 */
    "    e: 0.9\n"                                                          /* 18 */
    "  - between: [sand, any]\n"                                            /* 19 */
    "    normal: hertz\n"                                                   /* 20 */
    "    damping: tsuji\n"                                                  /* 21 */
    "    tangential: mindlin\n"                                             /* 22 */
    "    history: true\n"                                                   /* 23 */
    "    coulomb_test: spring\n"                                            /* 24 */
    "    e: 0.5\n"                                                          /* 25 */
    "    mu: 0.4\n"                                                         /* 26 */
    "particles:\n"                                                          /* 27 */
    "  - {id: 7, material: sand, radius: 5.0e-4, position: [0, 0, 0.01],\n" /* 28 */
    "     velocity: [0, 0, -1], fixed: false, lock_rotation: yes}\n"        /* 29 */
    "  - lattice:\n"                                                        /* 30 */
    "      material: sand\n"                                                /* 31 */
    "      radius: 1.0e-3\n"                                                /* 32 */
    "      min: [0, 0, 0.02]\n"                                             /* 33 */
    "      max: [0.01, 0.01, 0.03]\n"                                       /* 34 */
    "      jitter: 0.5\n"                                                   /* 35 */
    "      spacing: 2.4e-3\n"                                               /* 36 */
    "      velocity_jitter: 0.01\n"                                         /* 37 */
    "  - lattice: {material: sand, radius: 1.0e-3, min: [0.1, 0, 0], max: [0.11, 0.01, 0.01],\n"
    "              count: [3, 2, 1]}\n"                                     /* 39 */
    "walls:\n"                                                              /* 40 */
    "  - {name: floor, type: plane, material: steel, point: [0, 0, 0], normal: [0, 0, 1]}\n"
    "  - {name: box, type: box, material: steel, min: [-1, -1, -1], max: [1, 1, 1], open: [+z]}\n"
    "stages:\n"                                                             /* 43 */
    "  - {name: settle, duration: 0.5}\n"                                   /* 44 */
    "  - {duration: 0.25}\n"                                                /* 45 */
    "outputs:\n"                                                            /* 46 */
    "  - {type: energy, every: 1.0e-3}\n"                                   /* 47 */
    "  - {type: particles, file: p/grain.csv, every_steps: 50, ids: [7], fields: [position, force]}\n"
    "  - {type: vtk}\n"                                                     /* 49 */
    "  - {type: collisions}\n"                                              /* 50 */
    "  - {type: plot, file: grain.png, of: p/grain.csv}\n"                  /* 51 */
    "  - {type: plot}\n";                                                   /* 52 */

static void check_lattice(tl_world *w) {
    /* particles 2..: the spacing lattice, 4 x 4 x 4 in its box; then 3 x 2 x 1 */
    size_t n = tl_world_particle_count(w);
    ENSURE(n == 1 + 64 + 6);
    bool displaced = false;
    for (size_t i = 1; i < 65 && i < n; i++) {
        tl_particle_state a;
        tl_world_particle_at(w, i, &a);
        ENSURE(a.position.x >= 1e-3 - 1e-12 && a.position.x <= 9e-3 + 1e-12);
        ENSURE(a.position.y >= 1e-3 - 1e-12 && a.position.y <= 9e-3 + 1e-12);
        ENSURE(a.position.z >= 0.021 - 1e-12 && a.position.z <= 0.029 + 1e-12);
        ENSURE(fabs(a.velocity.x) <= 0.01 && fabs(a.velocity.z) <= 0.01);
        double lx = fmod(a.position.x - 1.4e-3, 2.4e-3);
        if (fabs(lx) > 1e-9 && fabs(lx - 2.4e-3) > 1e-9) displaced = true;
        for (size_t j = 1; j < i; j++) {
            tl_particle_state b;
            tl_world_particle_at(w, j, &b);
            double dx = a.position.x - b.position.x, dy = a.position.y - b.position.y,
                   dz = a.position.z - b.position.z;
            ENSURE(sqrt(dx * dx + dy * dy + dz * dz) >= 2e-3 - 1e-12);
        }
    }
    ENSURE(displaced);
    tl_particle_state p;
    /* count [3, 2, 1] in [0.1, 0.11] x [0, 0.01] x [0, 0.01] */
    tl_world_particle_at(w, 65, &p);
    ENSURE_NEAR(p.position.x, 0.101, 1e-12);
    ENSURE_NEAR(p.position.y, 0.001, 1e-12);
    ENSURE_NEAR(p.position.z, 0.005, 1e-12);
    tl_world_particle_at(w, 70, &p);
    ENSURE_NEAR(p.position.x, 0.109, 1e-12);
    ENSURE_NEAR(p.position.y, 0.009, 1e-12);
}

static void check_plan(const tl_scene *s) {
    ENSURE(s->noutputs == 6);
    if (s->noutputs != 6) return;
    const tl_output_spec *o = s->outputs;
    /* the kinds' own options (csv_options.h, output_plot.h) */
    const tl_particles_options *po = o[1].opts;
    const tl_plot_options *plot4 = o[4].opts, *plot5 = o[5].opts;
    ENSURE(o[0].kind == TL_OUTPUT_ENERGY && o[0].every == 1e-3 && o[0].line == 47);
    ENSURE(o[1].kind == TL_OUTPUT_PARTICLES && o[1].every_steps == 50 && po && po->nids == 1);
    ENSURE(po && po->ids && po->ids[0] == 7);
    ENSURE(po && po->fields == (TL_FIELD_POSITION | TL_FIELD_FORCE));
    ENSURE(o[2].kind == TL_OUTPUT_VTK && o[2].every == 0.0 && o[2].every_steps == 0);
    ENSURE(o[4].kind == TL_OUTPUT_PLOT && plot4 && plot4->of == 1);
    ENSURE(plot5 && plot5->of == 0);
    ENSURE(strcmp(s->slug, "falling-particle-demo") == 0);
}

static void test_valid_scene(void) {
    tl_scene *s = NULL;
    tl_scene_error err;
    tl_status st = tl_scene_load_string(valid_scene, "demo.yaml", &s, &err);
    char msg[2048];
    tl_scene_error_format(&err, msg, sizeof msg);
    if (st != TL_OK) fprintf(stderr, "valid scene refused: %s\n", msg);
    ENSURE(st == TL_OK);
    if (!s) return;
    tl_world *w = tl_scene_world(s);
    ENSURE(strcmp(tl_scene_name(s), "demo.yaml") == 0);
    ENSURE(strcmp(tl_scene_title(s), "Falling Particle (demo)!") == 0);
    ENSURE(tl_world_dt(w) == 1e-6);
    ENSURE(tl_world_wall_count(w) == 2);
    ENSURE(tl_scene_stage_count(s) == 2);
    ENSURE(strcmp(tl_scene_stage_name(s, 0), "settle") == 0);
    ENSURE(strcmp(tl_scene_stage_name(s, 1), "stage2") == 0);
    ENSURE_NEAR(tl_scene_stage_duration(s, 1), 0.25, 0.0);
    ENSURE_NEAR(tl_scene_duration(s), 0.75, 1e-15);
    ENSURE(tl_scene_stage_name(s, 2) == NULL);
    ENSURE(tl_scene_output_count(s) == 6);
    const char *kind = NULL, *file = NULL;
    ENSURE_OK(tl_scene_output(s, 1, &kind, &file));
    ENSURE(strcmp(kind, "particles") == 0 && strcmp(file, "p/grain.csv") == 0);
    ENSURE_OK(tl_scene_output(s, 2, &kind, &file));
    ENSURE(strcmp(kind, "vtk") == 0 && strcmp(file, "frames") == 0);
    ENSURE_OK(tl_scene_output(s, 3, &kind, &file));
    ENSURE(strcmp(kind, "collisions") == 0 && strcmp(file, "collisions.csv") == 0);
    ENSURE_OK(tl_scene_output(s, 5, &kind, &file));
    ENSURE(strcmp(kind, "plot") == 0 && strcmp(file, "energy.png") == 0);
    ENSURE(tl_scene_output(s, 6, &kind, &file) == TL_ERROR_NOT_FOUND);

    tl_particle_state p;
    ENSURE_OK(tl_world_get_particle(w, 7, &p));
    ENSURE(p.flags == TL_PARTICLE_LOCK_ROTATION);
    ENSURE_NEAR(p.velocity.z, -1.0, 0.0);
    check_lattice(w);
    check_plan(s);

    /* the more specific [sand, any] wins over [any, any] for sand, whatever the order */
    int sand, steel;
    ENSURE_OK(tl_world_find_material(w, "sand", &sand));
    ENSURE_OK(tl_world_find_material(w, "steel", &steel));
    tl_law_def law;
    ENSURE_OK(tl_world_get_law(w, sand, steel, &law));
    ENSURE(strcmp(law.tangential, "mindlin") == 0 && law.coulomb_test == TL_COULOMB_SPRING);
    ENSURE_OK(tl_world_get_law(w, steel, steel, &law));
    ENSURE(strcmp(law.tangential, "none") == 0 && strcmp(law.history, "none") == 0);

    /* the same file gives the same particles */
    tl_scene *again = NULL;
    ENSURE_OK(tl_scene_load_string(valid_scene, "demo.yaml", &again, NULL));
    if (again) {
        tl_particle_state a, b;
        tl_world_particle_at(w, 40, &a);
        tl_world_particle_at(tl_scene_world(again), 40, &b);
        ENSURE(a.position.x == b.position.x && a.position.z == b.position.z &&
               a.velocity.y == b.velocity.y);
    }
    tl_scene_destroy(again);
    tl_scene_destroy(s);
}

/* ---- bad scenes ---- */

#define HEAD                                                                                       \
    "gravity: [0, 0, -9.81]\n"                                                   /* 1 */          \
    "materials:\n"                                                               /* 2 */          \
    "  sand: {density: 2500, youngs_modulus: 5.0e6, poisson_ratio: 0.3}\n"       /* 3 */
#define LAW "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, e: 0.5}\n" /* 4-5 */
#define GRAIN "particles:\n  - {material: sand, radius: 1.0e-3, position: [0, 0, 0.01]}\n" /* 6-7 */
#define STAGE "stages:\n  - {duration: 0.1}\n" /* 8-9 */

typedef struct bad_case {
    const char *text;
    int line;                /* expected line, 0 = none */
    const char *words[3];    /* each must appear in the formatted message */
} bad_case;

static const bad_case bad_cases[] = {
    {HEAD "  steel:\n    density: 7800\n    desnity: 7800\n" LAW GRAIN STAGE, 6,
     {"materials.steel: unknown key 'desnity'", "did you mean 'density'?", "allowed: density, "}},
    {"materials:\n  sand: {density: abc}\n" LAW STAGE, 2,
     {"scene.yaml:2:19: materials.sand.density:", "expected a number > 0 (kg/m3)", "got 'abc'"}},
    {"materials:\n  sand: {density: -3}\n" LAW STAGE, 2, {"materials.sand.density", "got -3", NULL}},
    {"materials:\n  sand: {density: .nan}\n" LAW STAGE, 2, {"expected a number", NULL, NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, e: 1.5}\n" GRAIN STAGE,
     5, {"laws[0].e: 1.5 is out of range: 0 < e <= 1", "restitution", NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, tangential: mindlin,\n"
          "     e: 0.5, muu: 0.3}\n" GRAIN STAGE,
     6, {"laws[0]: unknown key 'muu'", "did you mean 'mu'?", "mu, e_t"}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, tangential: mindlin,\n"
          "     e: 0.5}\n" GRAIN STAGE,
     5, {"laws[0]:", "needs coefficient 'mu'", NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: restitution, e: 0.5}\n" GRAIN
         STAGE,
     5, {"laws[0]:", "does not fit normal 'hertz'", NULL}},
    {HEAD "laws:\n  - {between: [sand, snad], normal: hertz}\n" GRAIN STAGE, 5,
     {"laws[0].between[1]: unknown material 'snad'", "did you mean 'sand'?", "known: sand"}},
    {HEAD LAW "particles:\n  - {material: snd, radius: 1.0e-3, position: [0, 0, 0]}\n" STAGE, 7,
     {"particles[0].material: unknown material 'snd'", "did you mean 'sand'?", NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: herz}\n" GRAIN STAGE, 5,
     {"laws[0].normal: unknown normal model 'herz'", "did you mean 'hertz'?", "hertz-stiffness"}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, e: 0.5,\n"
          "     tangential: mindlen, mu: 0.3}\n" GRAIN STAGE,
     6, {"laws[0].tangential: unknown tangential model", "did you mean 'mindlin'?", NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, e: 0.5,\n"
          "     rolling: epsdd, mu_r: 0.1}\n" GRAIN STAGE,
     6, {"laws[0].rolling: unknown rolling model 'epsdd'", "did you mean 'epsd'?", NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, e: 0.5,\n"
          "     rolling: epsd, mu_r: -0.1}\n" GRAIN STAGE,
     6, {"laws[0].mu_r: -0.1 is out of range: 0 <= mu_r", "rolling friction", NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, e: 0.5, mu_r: 0.1}\n" GRAIN
         STAGE,
     5, {"laws[0]: unknown key 'mu_r'", "rolling, twisting", NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, e: 0.5, rolling: epsd}\n" GRAIN
         STAGE,
     5, {"laws[0]:", "rolling 'epsd' needs coefficient 'mu_r'", NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, e: 0.5,\n"
          "     twisting: sdds, k_twist: 0.1}\n" GRAIN STAGE,
     6, {"laws[0].twisting: unknown twisting model 'sdds'", "did you mean 'sds'?", NULL}},
    {HEAD "laws:\n  - {between: [sand, sand], normal: hertz, damping: tsuji, e: 0.5, twisting: sds, k_twist: 0.1}\n"
          GRAIN STAGE,
     5, {"laws[0]:", "twisting 'sds' needs coefficient 'mu_twist'", NULL}},
    {HEAD "shapes:\n  die: {ellipsoid: [0.002, 0.002, 0.001], contact_depth: potential}\n" LAW GRAIN STAGE, 5,
     {"shapes.die.contact_depth", "contact_depth applies to meshes", NULL}},
    {HEAD "shapes:\n  die: {mesh: {icosphere: 0.002, subdivisions: 1}, contact_depth: potentail}\n" LAW GRAIN
         STAGE,
     5, {"shapes.die.contact_depth", "did you mean 'potential'?", NULL}},
    {HEAD "shapes:\n  die: {mesh: {icosphere: 0.002, subdivisions: 1}, contact_radius: area,\n"
          "        contact_depth: potential}\n" LAW GRAIN STAGE,
     6, {"shapes.die.contact_depth", "takes the volume-equivalent radius", NULL}},
    {HEAD LAW "particles:\n  - {material: sand, position: [0, 0, 0]}\n" STAGE, 7,
     {"particles[0].radius: required key is missing", "a number > 0 (m)", NULL}},
    {"gravity: [0, 0, -9.81]\n" LAW GRAIN STAGE, 1,
     {"scene.yaml:1:1: materials: required key is missing", NULL, NULL}},
    {HEAD GRAIN STAGE, 1, {"laws: required key is missing", NULL, NULL}},
    {HEAD LAW GRAIN, 1, {"stages: required key is missing", NULL, NULL}},
    {HEAD LAW GRAIN "stages: []\n", 8, {"stages: expected a non-empty sequence", NULL, NULL}},
    {HEAD LAW GRAIN "stages:\n  - {name: settle, duration: 0.1]\n", 9,
     {"scene.yaml:9:", "YAML syntax error", NULL}},
    {HEAD "  sand: {density: 1}\n" LAW GRAIN STAGE, 4,
     {"YAML syntax error: duplicate key 'sand'", NULL, NULL}},
    {"integrator:\n  dt: 1.0e-3\n" HEAD LAW GRAIN
     "  - {material: sand, radius: 1.0e-3, position: [0, 0, 0]}\n" STAGE,
     2,
     {"integrator.dt: dt = 0.001 s", "allow_unresolved_contacts: true", NULL}},
    {"integrator: {dt: soon}\n" HEAD LAW GRAIN STAGE, 1,
     {"integrator.dt: expected a number > 0 (s) or auto, got 'soon'", NULL, NULL}},
    {"integrator: {scheme: verlett}\n" HEAD LAW GRAIN STAGE, 1,
     {"integrator.scheme", "did you mean 'verlet'?", NULL}},
    {"units: mm\n" HEAD LAW GRAIN STAGE, 1, {"units: only SI units are supported", NULL, NULL}},
    {"talus: 2\n" HEAD LAW GRAIN STAGE, 1, {"talus: unsupported scene format version 2", NULL, NULL}},
    {"gravyty: [0, 0, 0]\n" HEAD LAW GRAIN STAGE, 1,
     {"unknown key 'gravyty'", "did you mean 'gravity'?", NULL}},
    {"gravity: [0, -9.81]\n" "materials:\n  sand: {density: 1}\n" LAW STAGE, 1,
     {"gravity: expected a sequence of 3 numbers [x, y, z] (m/s2)", NULL, NULL}},
    {HEAD LAW "particles:\n  - {material: sand, radius: 1.0e-3, position: [0, 0, 0], fixed: maybe}\n"
         STAGE,
     7, {"particles[0].fixed: expected true or false, got 'maybe'", NULL, NULL}},
    {HEAD LAW GRAIN STAGE "outputs:\n  - {type: particles, ids: [9]}\n", 11,
     {"outputs[0].ids[0]: no particle has id 9", NULL, NULL}},
    {HEAD LAW GRAIN STAGE "outputs:\n  - {type: energy, file: ../energy.csv}\n", 11,
     {"outputs[0].file", "must stay inside the output directory", NULL}},
    {HEAD LAW GRAIN STAGE "outputs:\n  - {type: energy}\n  - {type: energy, every: 1}\n", 12,
     {"outputs[1]: file 'energy.csv' clashes with outputs[0]", NULL, NULL}},
    {HEAD LAW GRAIN STAGE "outputs:\n  - {type: energy}\n  - {type: plot, of: enrgy.csv}\n", 12,
     {"outputs[1].of: unknown CSV output 'enrgy.csv'", "did you mean 'energy.csv'?", NULL}},
    {HEAD LAW GRAIN STAGE "outputs:\n  - {type: collisions, every: 1.0e-3}\n", 11,
     {"outputs[0]: unknown key 'every'", "(allowed: type, file)", NULL}},
    {HEAD LAW "  - {between: [sand, sand], normal: linear}\n" GRAIN STAGE, 6,
     {"laws[1].between: the pair [sand, sand] already has a law: laws[0]", NULL, NULL}},
    {HEAD "  steel: {density: 7800}\n" LAW
     "walls:\n  - {type: plane, material: steel, normal: [0, 0, 1]}\n" GRAIN STAGE,
     5, {"laws: no contact law between materials 'sand' and 'steel'", NULL, NULL}},
    {HEAD LAW "particles:\n  - lattice: {material: sand, radius: 1.0e-3, min: [0, 0, 0],\n"
              "      max: [1.0e-2, 1.0e-2, 1.0e-2], spacing: 1.0e-3}\n" STAGE,
     8, {"particles[0].lattice.spacing", "below the diameter", NULL}},
    {HEAD LAW GRAIN "walls:\n  - {type: plain, material: sand, normal: [0, 0, 1]}\n" STAGE, 9,
     {"walls[0].type", "did you mean 'plane'?", NULL}},
    {HEAD LAW GRAIN STAGE "domain: {min: [-1, -1, -1], max: [1, 1, 1], periodic: [x, w]}\n", 10,
     {"domain.periodic[1]", "'w'", "x, y, z"}},
    {HEAD LAW GRAIN STAGE "domain: {min: [-1, -1, -1], max: [1, 1, 1], periodic: [x, x]}\n", 10,
     {"domain.periodic[1]: axis x is listed twice", NULL, NULL}},
    {HEAD LAW GRAIN STAGE "threads: -2\n", 10, {"threads: expected an integer from 0", "got '-2'", NULL}},
    {HEAD LAW GRAIN STAGE "threads: 1.5\n", 10, {"threads", "integer", NULL}},
    {HEAD LAW GRAIN STAGE "track_energy: sometimes\n", 10,
     {"track_energy: expected true or false", NULL, NULL}},
    {HEAD LAW GRAIN STAGE "neighbor: {reorder_every: often}\n", 10,
     {"neighbor.reorder_every", "integer", NULL}},
    {HEAD LAW GRAIN STAGE "neighbor: {domain_size: 10}\n", 10,
     {"neighbor.domain_size", "from 64", "got '10'"}},
    {"", 0, {"scene.yaml: the scene is empty", NULL, NULL}},
    {"- 1\n- 2\n", 1, {"expected a mapping", "got a sequence", NULL}},
};

static bool contains(const char *text, const char *word) { return !word || strstr(text, word); }

static void test_bad_scenes(void) {
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        tl_scene *s = (tl_scene *)&s; /* must be reset to NULL */
        tl_scene_error err;
        tl_status st = tl_scene_load_string(c->text, "scene.yaml", &s, &err);
        char msg[2048];
        tl_scene_error_format(&err, msg, sizeof msg);
        bool ok = st == TL_ERROR_SCENE && s == NULL && err.line == c->line &&
                  contains(msg, c->words[0]) && contains(msg, c->words[1]) &&
                  contains(msg, c->words[2]);
        if (!ok)
            fprintf(stderr, "bad case %zu (expected line %d): status %d, got: %s\n", i, c->line,
                    (int)st, msg);
        ENSURE(ok);
        if (st == TL_OK) tl_scene_destroy(s);
    }
}

/* ---- files ---- */

static size_t dir_entries(const char *path) {
    DIR *d = opendir(path);
    if (!d) return (size_t)-1;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ENSURE(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void test_files(void) {
    char home[4096], src[] = "/tmp/talus_scene_src_XXXXXX", cwd[] = "/tmp/talus_scene_cwd_XXXXXX";
    ENSURE(getcwd(home, sizeof home) != NULL);
    ENSURE(mkdtemp(src) != NULL && mkdtemp(cwd) != NULL);
    char bad[256], good[256];
    snprintf(bad, sizeof bad, "%s/bad.yaml", src);
    snprintf(good, sizeof good, "%s/good.yaml", src);
    write_text(bad, HEAD LAW GRAIN STAGE "outputs:\n  - {type: energy, every: -1}\n");
    write_text(good, valid_scene);
    ENSURE(chdir(cwd) == 0);

    tl_scene *s = NULL;
    tl_scene_error err;
    char msg[2048];
    ENSURE(tl_scene_load_file(bad, &s, &err) == TL_ERROR_SCENE && s == NULL);
    tl_scene_error_format(&err, msg, sizeof msg);
    ENSURE(strstr(msg, "bad.yaml:11:") && strstr(msg, "outputs[0].every"));
    ENSURE(tl_scene_load_file(good, &s, &err) == TL_OK);
    ENSURE(s && strcmp(tl_scene_name(s), good) == 0);
    tl_scene_destroy(s);
    snprintf(msg, sizeof msg, "%s/missing.yaml", src);
    ENSURE(tl_scene_load_file(msg, &s, &err) == TL_ERROR_IO && s == NULL);
    ENSURE(strstr(err.message, "cannot open") != NULL);

    /* loading wrote nothing, neither where we stand nor next to the scene */
    ENSURE(dir_entries(cwd) == 0);
    ENSURE(dir_entries(src) == 2);
    ENSURE(chdir(home) == 0);
    remove(bad);
    remove(good);
    rmdir(src);
    rmdir(cwd);
}

static void test_defaults(void) {
    tl_scene *s = NULL;
    tl_scene_error err;
    const char *text =
        HEAD LAW GRAIN STAGE "walls:\n  - {type: plane, material: sand, normal: [0, 0, 1]}\n";
    ENSURE_OK(tl_scene_load_string(text, "dir/my scene.v2.yaml", &s, &err));
    if (!s) return;
    ENSURE(strcmp(tl_scene_title(s), "my scene.v2") == 0);
    ENSURE(strcmp(s->slug, "my-scene-v2") == 0);
    ENSURE(strcmp(tl_scene_stage_name(s, 0), "stage1") == 0);
    ENSURE(tl_scene_output_count(s) == 0);
    ENSURE(tl_world_dt(tl_scene_world(s)) > 0.0); /* dt: auto */
    tl_scene_destroy(s);
    tl_scene_error_format(NULL, NULL, 0);
    ENSURE(tl_scene_load_string(NULL, NULL, &s, &err) == TL_ERROR_ARGUMENT && s == NULL);
}

/* domain.periodic, threads, track_energy, neighbor.reorder_every fill the world's definition */
static void test_world_keys(void) {
    tl_scene *s = NULL;
    tl_scene_error err;
    const char *text = HEAD LAW GRAIN STAGE
        "domain: {min: [-1, -1, -1], max: [1, 1, 1], periodic: [x, z]}\n"
        "threads: 3\n"
        "track_energy: false\n"
        "neighbor: {skin: 1.0e-4, reorder_every: -1, domain_size: 500}\n"
        "walls:\n  - {type: plane, material: sand, normal: [0, 0, 1]}\n";
    tl_status st = tl_scene_load_string(text, "keys.yaml", &s, &err);
    char msg[2048];
    tl_scene_error_format(&err, msg, sizeof msg);
    if (st != TL_OK) fprintf(stderr, "world keys refused: %s\n", msg);
    ENSURE(st == TL_OK);
    if (!s) return;
    ENSURE(s->def.has_domain && s->def.periodic[0] && !s->def.periodic[1] && s->def.periodic[2]);
    ENSURE(s->def.threads == 3);
    ENSURE(!s->def.track_energy);
    ENSURE(s->def.reorder_every == -1);
    ENSURE(s->def.domain_size == 500);
    ENSURE(s->def.skin == 1e-4);
    tl_scene_destroy(s);
    /* the defaults: no periodic axis, the library's thread count, energy tracked */
    ENSURE_OK(tl_scene_load_string(HEAD LAW GRAIN STAGE "domain: {min: [-1, -1, -1], max: [1, 1, 1], "
                                   "periodic: y}\nwalls:\n  - {type: plane, material: sand, normal: [0, 0, 1]}\n",
                                   "keys.yaml", &s, &err));
    if (!s) return;
    tl_world_def d = tl_world_default();
    ENSURE(!s->def.periodic[0] && s->def.periodic[1] && !s->def.periodic[2]);
    ENSURE(s->def.threads == d.threads && s->def.track_energy && s->def.reorder_every == 0);
    tl_scene_destroy(s);
}

/* ---- the orientation of a mesh body (issue 39, item 5) ---- */

static void quat_matrix(tl_quat q, double R[3][3]) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - w * z), R[0][2] = 2 * (x * z + w * y);
    R[1][0] = 2 * (x * y + w * z), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - w * x);
    R[2][0] = 2 * (x * z - w * y), R[2][1] = 2 * (y * z + w * x), R[2][2] = 1 - 2 * (x * x + y * y);
}

/* A box of 20 x 30 x 60 mm in an OBJ file, off the origin and standing (its
 * principal frame is its axes permuted), given in a scene at a turn q: every
 * vertex of the file lies at R(q) (v - c) + x (to 1e-12 m), the orientation
 * reads back as q, and so does it after the state is saved and loaded (the
 * state holds the body frame's attitude, as before). */
static void test_mesh_orientation(void) {
    char dir[] = "/tmp/talus_scene_mesh_XXXXXX";
    ENSURE(mkdtemp(dir) != NULL);
    char obj[256], text[2048];
    snprintf(obj, sizeof obj, "%s/brick.obj", dir);
    double v[8][3]; /* mm, exact in binary (the reader's precision does not matter) */
    for (int k = 0; k < 8; k++) {
        v[k][0] = (k & 1) ? 25.0 : 5.0;
        v[k][1] = (k & 2) ? 37.0 : 7.0;
        v[k][2] = (k & 4) ? 57.0 : -3.0;
    }
    static const int t[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                 {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    FILE *f = fopen(obj, "w");
    ENSURE(f != NULL);
    if (!f) return;
    for (int k = 0; k < 8; k++) fprintf(f, "v %g %g %g\n", v[k][0], v[k][1], v[k][2]);
    for (int k = 0; k < 12; k++) fprintf(f, "f %d %d %d\n", t[k][0] + 1, t[k][1] + 1, t[k][2] + 1);
    fclose(f);
    /* q: 0.5 rad about (1, 2, 3)/|.| */
    const double n = sqrt(14.0), h = 0.25;
    const tl_quat q = {cos(h), sin(h) / n, 2 * sin(h) / n, 3 * sin(h) / n};
    snprintf(text, sizeof text,
             "allow_outside_paths: true\n" HEAD LAW
             "shapes:\n  brick: {mesh: {file: %s, units: mm}}\n"
             "particles:\n"
             "  - {id: 7, material: sand, shape: brick, position: [0.1, -0.2, 0.3],\n"
             "     orientation: [%.17g, %.17g, %.17g, %.17g]}\n"
             "  - {id: 8, material: sand, shape: brick, position: [1, 1, 1]}\n" STAGE,
             obj, q.w, q.x, q.y, q.z);
    tl_scene *s = NULL;
    tl_scene_error err;
    tl_status st = tl_scene_load_string(text, "brick.yaml", &s, &err);
    if (st != TL_OK) fprintf(stderr, "brick scene: %s\n", err.message);
    ENSURE_OK(st);
    if (st != TL_OK) return;
    tl_world *w = tl_scene_world(s);
    tl_shape_info si;
    ENSURE_OK(tl_world_get_shape(w, 1, &si));
    ENSURE(fabs(si.frame.w - 1.0) > 1e-3); /* the principal frame is turned from the file's */
    ENSURE_NEAR(si.origin.x, 0.015, 1e-12);
    ENSURE_NEAR(si.origin.y, 0.022, 1e-12);
    ENSURE_NEAR(si.origin.z, 0.027, 1e-12);
    const double *bv;
    const uint32_t *bt;
    size_t nv, nt;
    ENSURE_OK(tl_world_shape_mesh(w, 1, &bv, &nv, &bt, &nt));
    for (int pass = 0; pass < 2; pass++) {
        tl_particle_state ps;
        ENSURE_OK(tl_world_get_particle(w, 7, &ps));
        ENSURE_NEAR(ps.orientation.w, q.w, 1e-12);
        ENSURE_NEAR(ps.orientation.x, q.x, 1e-12);
        ENSURE_NEAR(ps.orientation.y, q.y, 1e-12);
        ENSURE_NEAR(ps.orientation.z, q.z, 1e-12);
        double Q[3][3], B[3][3], worst = 0.0;
        quat_matrix(q, Q);
        quat_matrix(ps.body_orientation, B);
        const double x[3] = {ps.position.x, ps.position.y, ps.position.z};
        const double c[3] = {si.origin.x, si.origin.y, si.origin.z};
        for (int k = 0; k < 8; k++) {
            double d[3], p[3], best = INFINITY;
            for (int a = 0; a < 3; a++) d[a] = 1e-3 * v[k][a] - c[a];
            for (int a = 0; a < 3; a++) p[a] = x[a] + Q[a][0] * d[0] + Q[a][1] * d[1] + Q[a][2] * d[2];
            for (size_t j = 0; j < nv; j++) { /* the engine's vertex: x + R(body) b */
                double e2 = 0.0;
                for (int a = 0; a < 3; a++) {
                    double wa = x[a] + B[a][0] * bv[3 * j] + B[a][1] * bv[3 * j + 1] + B[a][2] * bv[3 * j + 2];
                    e2 += (wa - p[a]) * (wa - p[a]);
                }
                best = fmin(best, sqrt(e2));
            }
            worst = fmax(worst, best);
        }
        fprintf(stderr, "a brick turned in a scene%s: its file's vertices off their place by %.2g m\n",
                pass ? " (state saved and loaded)" : "", worst);
        ENSURE(worst <= 1e-12);
        /* the one given no orientation stands as in its file: the identity reads back */
        ENSURE_OK(tl_world_get_particle(w, 8, &ps));
        ENSURE(fabs(ps.orientation.w - 1.0) <= 1e-15 && fabs(ps.orientation.x) <= 1e-15 &&
               fabs(ps.orientation.y) <= 1e-15 && fabs(ps.orientation.z) <= 1e-15);
        if (pass == 0) {
            void *data = NULL;
            size_t size = 0;
            ENSURE_OK(tl_world_save_state(w, &data, &size));
            ENSURE_OK(tl_world_load_state(w, data, size));
            free(data);
        }
    }
    tl_scene_destroy(s);
    remove(obj);
    rmdir(dir);
}

/* ---- the format's names for bindings (tl_scene_names, tl_suggest_name) ---- */

/* The loader's message for an unknown key `bad` in the mapping `text` puts
 * there lists exactly the names tl_scene_names gives for `table`. */
static void check_listed(const char *table, const char *text) {
    const char *const *names = NULL;
    size_t n = tl_scene_names(table, &names);
    ENSURE(n > 0 && names != NULL);
    char list[1024] = "(allowed: ";
    for (size_t i = 0; i < n; i++) {
        strcat(list, i ? ", " : "");
        strcat(list, names[i]);
    }
    tl_scene *s = NULL;
    tl_scene_error err;
    ENSURE(tl_scene_load_string(text, "names.yaml", &s, &err) == TL_ERROR_SCENE && s == NULL);
    bool listed = strstr(err.message, list) != NULL && strstr(err.message, "unknown key 'bad'") != NULL;
    if (!listed) fprintf(stderr, "%s: '%s' is not in: %s\n", table, list, err.message);
    ENSURE(listed);
}

static bool name_is(const char *table, size_t i, const char *expect) {
    const char *const *names = NULL;
    size_t n = tl_scene_names(table, &names);
    return i < n && strcmp(names[i], expect) == 0;
}

static void test_names(void) {
    check_listed("material", "materials:\n  sand: {density: 2500, bad: 1}\n" LAW GRAIN STAGE);
    check_listed("integrator", HEAD LAW GRAIN STAGE "integrator: {bad: 1}\n");
    check_listed("domain", HEAD LAW GRAIN STAGE "domain: {min: [-1, -1, -1], max: [1, 1, 1], bad: 1}\n");
    check_listed("neighbor", HEAD LAW GRAIN STAGE "neighbor: {bad: 1}\n");
    check_listed("blowup", HEAD LAW GRAIN STAGE "blowup: {bad: 1}\n");
    check_listed("top", HEAD LAW GRAIN STAGE "bad: 1\n");
    check_listed("particle", HEAD LAW STAGE "particles:\n  - {material: sand, radius: 1.0e-3, position: [0, 0, 0], "
                             "bad: 1}\n");
    check_listed("wall.plane", HEAD LAW GRAIN STAGE "walls:\n  - {type: plane, material: sand, bad: 1}\n");
    check_listed("wall.rectangle", HEAD LAW GRAIN STAGE "walls:\n  - {type: rectangle, material: sand, bad: 1}\n");
    check_listed("wall.box", HEAD LAW GRAIN STAGE "walls:\n  - {type: box, material: sand, bad: 1}\n");
    check_listed("wall.mesh", HEAD LAW GRAIN STAGE "walls:\n  - {type: mesh, material: sand, bad: 1}\n");
    check_listed("wall.servo", HEAD LAW GRAIN STAGE "walls:\n  - {type: plane, material: sand, normal: [0, 0, 1], "
                               "servo: {bad: 1}}\n");
    check_listed("wall.motion.rotate", HEAD LAW GRAIN STAGE "walls:\n  - {type: plane, material: sand, normal: "
                                       "[0, 0, 1], motion: {rotate: {axis: [0, 0, 1], bad: 1}}}\n");
    check_listed("wall.motion.oscillate", HEAD LAW GRAIN STAGE "walls:\n  - {type: plane, material: sand, normal: "
                                          "[0, 0, 1], motion: {oscillate: {axis: [0, 0, 1], bad: 1}}}\n");
    check_listed("wall.motion.rock", HEAD LAW GRAIN STAGE "walls:\n  - {type: plane, material: sand, normal: "
                                     "[0, 0, 1], motion: {rock: {axis: [0, 0, 1], bad: 1}}}\n");
    check_listed("shape", HEAD LAW GRAIN STAGE "shapes:\n  pebble: {ellipsoid: [1, 1, 1], bad: 1}\n");
    check_listed("shape.mesh", HEAD LAW GRAIN STAGE "shapes:\n  pebble: {mesh: {bad: 1}}\n");
    /* a law's options open its list of keys (the coefficients of its models follow) */
    check_listed("law", HEAD STAGE "laws:\n  - {between: [sand, sand], normal: hertz, bad: 1}\n");
    /* the choices, in the order of the enums they stand for */
    ENSURE(tl_scene_names("law.slot", NULL) == TL_SLOT_COUNT);
    for (int k = 0; k < TL_SLOT_COUNT; k++) ENSURE(name_is("law.slot", (size_t)k, tl_slot_name((tl_slot)k)));
    ENSURE(name_is("integrator.scheme", TL_INTEGRATOR_PREDICTOR_CORRECTOR, "predictor-corrector"));
    ENSURE(name_is("law.coulomb_test", TL_COULOMB_SPRING_CAPPED, "spring-capped"));
    ENSURE(name_is("law.coulomb_test", TL_COULOMB_LIGGGHTS, "liggghts"));
    ENSURE(name_is("law.contact_point", TL_CONTACT_POINT_SURFACE, "surface"));
    ENSURE(name_is("law.entry_displacement", TL_ENTRY_WHOLE_STEP, "whole-step"));
    ENSURE(name_is("wall.type", TL_WALL_MESH, "mesh") && name_is("wall.type", TL_WALL_RECTANGLE, "rectangle"));
    ENSURE(name_is("wall.open", 5, "+z") && (1u << 5) == TL_BOX_ZMAX && name_is("wall.open", 0, "-x"));
    ENSURE(name_is("wall.motion", TL_MOTION_ROCK - TL_MOTION_ROTATE, "rock"));
    ENSURE(name_is("shape.kind", TL_SHAPE_ELLIPSOID, "ellipsoid") && name_is("shape.kind", TL_SHAPE_MESH, "mesh"));
    ENSURE(name_is("shape.contact_depth", TL_MESH_DEPTH_POTENTIAL, "potential"));
    ENSURE(name_is("shape.contact_radius", TL_MESH_RADIUS_AREA, "area"));
    ENSURE(name_is("wall.units", 2, "mm") && name_is("shape.units", 3, "um"));
    ENSURE(tl_scene_names("domain.periodic", NULL) == 3);
    /* an unknown table: nothing */
    const char *const *names = (const char *const *)&names;
    ENSURE(tl_scene_names("walls.box", &names) == 0 && names == NULL);
    ENSURE(tl_scene_names(NULL, &names) == 0 && names == NULL);
    /* did you mean: the loader's rule */
    const char *const keys[] = {"density", "youngs_modulus", "poisson_ratio"};
    const char *sug = tl_suggest_name("desnity", keys, 3);
    ENSURE(sug && strcmp(sug, "density") == 0);
    sug = tl_suggest_name("youngs-modulus", keys, 3);
    ENSURE(sug && strcmp(sug, "youngs_modulus") == 0);
    sug = tl_suggest_name("dens", keys, 3); /* a prefix */
    ENSURE(sug && strcmp(sug, "density") == 0);
    ENSURE(tl_suggest_name("gravity", keys, 3) == NULL);
    ENSURE(tl_suggest_name(NULL, keys, 3) == NULL && tl_suggest_name("x", NULL, 0) == NULL);
}

/* ---- tl_run_options.on_steps: a callback every N steps inside a run ---- */

typedef struct step_calls {
    int calls, stop_at;
    int64_t steps[64];
    tl_status nested; /* what tl_world_step said inside the callback */
} step_calls;

static bool on_steps(tl_world *w, void *user) {
    step_calls *c = user;
    if (c->calls < 64) c->steps[c->calls] = tl_world_step_count(w);
    c->calls++;
    c->nested = tl_world_step(w, 1);
    return c->calls == c->stop_at;
}

static void test_step_callback(void) {
    const char *text = HEAD LAW GRAIN "stages:\n  - {duration: 0.02}\n"
                       "walls:\n  - {type: plane, material: sand, normal: [0, 0, 1]}\n";
    for (int stop = 0; stop < 2; stop++) {
        tl_scene *s = NULL;
        ENSURE_OK(tl_scene_load_string(text, "cb.yaml", &s, NULL));
        if (!s) return;
        step_calls c = {0, stop ? 3 : -1, {0}, TL_OK};
        tl_run_options o = tl_run_options_default();
        o.write_outputs = false;
        o.on_steps = on_steps;
        o.on_steps_user = &c;
        o.step_every = 0;
        tl_run_summary sum;
        ENSURE(tl_scene_run(s, &o, &sum) == TL_ERROR_ARGUMENT);
        ENSURE(strstr(tl_scene_run_error(s), "step_every must be >= 1") != NULL);
        o.step_every = 70;
        tl_status st = tl_scene_run(s, &o, &sum);
        fprintf(stderr, "step callback: status %d, %lld steps, %d calls: %s\n", (int)st, (long long)sum.steps, c.calls,
                tl_scene_run_error(s));
        tl_stage_result r;
        tl_scene_stage_result(s, 0, &r);
        if (stop) {
            ENSURE(st == TL_INTERRUPTED && c.calls == 3 && sum.steps == 210);
            ENSURE(strstr(tl_scene_run_error(s), "stopped by the step callback") != NULL);
            ENSURE(strcmp(r.ended_by, "interrupted") == 0);
        } else {
            ENSURE(st == TL_OK && sum.steps > 300);
            ENSURE(c.calls == (int)(sum.steps / 70));
            ENSURE(strcmp(r.ended_by, "duration") == 0);
        }
        for (int k = 0; k < c.calls && k < 64; k++) ENSURE(c.steps[k] == 70 * (k + 1));
        ENSURE(c.nested == TL_ERROR_STATE); /* the run's world is not stepped by its callback */
        ENSURE(tl_world_step(tl_scene_world(s), 1) == TL_OK); /* after the run it is */
        tl_scene_destroy(s);
    }
}

int main(void) {
    test_names();
    test_world_keys();
    test_valid_scene();
    test_bad_scenes();
    test_files();
    test_defaults();
    test_mesh_orientation();
    test_step_callback();
    return tl_test_report("test_scene");
}
