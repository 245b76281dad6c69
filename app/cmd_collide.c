/* talus collide: the collision lab. Two bodies, one collision, any law of the
 * registry: restitution, duration, peaks, rebound angles and spin, the energy
 * split, a time series, and sweeps over a parameter. See docs/lab.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "progress.h"
#include "write_file.h"

#define PI 3.14159265358979323846
#define MAX_MATERIAL_KEYS 16 /* pairs in one --material, in all --material-b */
#define MAX_SWEEP 10000
#define SPEC_LEN 512

static const char *const CSV_COLUMNS =
    "e_n,e_t,duration,max_overlap,max_normal_force,v_out_n,v_out_t,omega_out,alpha_v,alpha_c,"
    "psi1,psi2,diss_normal,diss_plastic,diss_tangential_damping,diss_friction,integration_residual,energy_error";

/* ---- options ---- */

static const app_cli CLI = {"talus collide", "talus collide --help lists the options"};

typedef struct sweep {
    char param[APP_NAME_LEN];
    bool model;               /* values are law specs */
    double *values;           /* numeric sweeps */
    char (*specs)[SPEC_LEN];  /* model sweeps */
    size_t count;
} sweep;

typedef struct collide_opts {
    tl_collide_def def;
    char name_a[APP_NAME_LEN], name_b[APP_NAME_LEN];
    tl_material_def mat_b; /* the keys given for b, NAN elsewhere */
    int b_keys_left;
    bool b_given, radius_b_given;
    app_law_names law;
    app_coefs coefs;
    int user_coefs;   /* the first user_coefs of coefs were given (the rest are defaults) */
    bool json;
    const char *csv;
    bool has_sweep;
    sweep sw;
} collide_opts;

/* ---- materials ---- */

static int opt_material(collide_opts *o, const char *opt, const char *value) {
    int keys_left = MAX_MATERIAL_KEYS;
    return app_material_option(&CLI, opt, value, o->name_a, &o->def.material_a, &keys_left);
}

static int opt_material_b(collide_opts *o, const char *opt, const char *value) {
    o->b_given = true;
    return app_material_option(&CLI, opt, value, o->name_b, &o->mat_b, &o->b_keys_left);
}

static int opt_material_field(collide_opts *o, const char *opt, const char *value) {
    app_mat_field f = APP_MAT_DENSITY;
    double v = 0.0;
    if (!app_material_key(opt + 2, &f) || app_number_option(&CLI, opt, value, &v)) return 2;
    app_material_set(&o->def.material_a, f, v);
    return 0;
}

/* ---- the law ---- */

static int opt_law(collide_opts *o, const char *opt, const char *value) {
    (void)opt;
    return app_law_spec(&CLI, &o->law, value, ",");
}

/* --KEY NAME for every slot of the law (`talus models`: its keys) */
static int opt_slot(collide_opts *o, const char *opt, const char *value) {
    int s = strncmp(opt, "--", 2) == 0 ? tl_slot_find(opt + 2) : -1;
    return s >= 0 ? app_law_slot(&CLI, &o->law, (tl_slot)s, value) : 2;
}

static int opt_coef(collide_opts *o, const char *opt, const char *value) {
    return app_coef_option(&CLI, &o->coefs, opt, value);
}

static int opt_coulomb(collide_opts *o, const char *opt, const char *value) {
    if (strcmp(value, "total") == 0) o->def.law.coulomb_test = TL_COULOMB_TOTAL;
    else if (strcmp(value, "spring") == 0) o->def.law.coulomb_test = TL_COULOMB_SPRING;
    else if (strcmp(value, "spring-capped") == 0) o->def.law.coulomb_test = TL_COULOMB_SPRING_CAPPED;
    else if (strcmp(value, "lammps") == 0) o->def.law.coulomb_test = TL_COULOMB_LAMMPS;
    else if (strcmp(value, "liggghts") == 0) o->def.law.coulomb_test = TL_COULOMB_LIGGGHTS;
    else return app_usage_error(&CLI, "%s is 'total', 'spring', 'spring-capped', 'lammps' or 'liggghts', got '%s'",
                                opt, value);
    return 0;
}

static int opt_contact_point(collide_opts *o, const char *opt, const char *value) {
    if (strcmp(value, "compliance") == 0) o->def.law.contact_point = TL_CONTACT_POINT_COMPLIANCE;
    else if (strcmp(value, "surface") == 0) o->def.law.contact_point = TL_CONTACT_POINT_SURFACE;
    else return app_usage_error(&CLI, "%s is 'compliance' or 'surface', got '%s'", opt, value);
    return 0;
}

static const char *coulomb_name(tl_coulomb_test t) {
    return t == TL_COULOMB_SPRING          ? "spring"
           : t == TL_COULOMB_SPRING_CAPPED ? "spring-capped"
           : t == TL_COULOMB_LAMMPS        ? "lammps"
           : t == TL_COULOMB_LIGGGHTS      ? "liggghts"
                                           : "total";
}

/* ---- geometry, kinematics, integration ---- */

static int opt_number(collide_opts *o, const char *opt, const char *value) {
    double v = 0.0;
    if (app_number_option(&CLI, opt, value, &v)) return 2;
    tl_collide_def *d = &o->def;
    if (strcmp(opt, "--radius") == 0) d->radius_a = v;
    else if (strcmp(opt, "--radius-b") == 0) { d->radius_b = v; o->radius_b_given = true; }
    else if (strcmp(opt, "--mass") == 0) d->mass_a = v;
    else if (strcmp(opt, "--mass-b") == 0) d->mass_b = v;
    else if (strcmp(opt, "--speed") == 0) d->speed = v;
    else if (strcmp(opt, "--angle") == 0) d->angle = v * PI / 180.0;
    else if (strcmp(opt, "--steps") == 0) d->steps_per_contact = v;
    else if (strcmp(opt, "--dt") == 0) d->dt = v;
    return 0;
}

static int opt_spin(collide_opts *o, const char *opt, const char *value) {
    tl_vec3 *spin = strcmp(opt, "--spin") == 0 ? &o->def.spin_a : &o->def.spin_b;
    return app_vector_option(&CLI, opt, value, "rad/s", spin);
}

static int opt_flag(collide_opts *o, const char *opt, const char *value) {
    (void)value;
    if (strcmp(opt, "--wall") == 0) o->def.wall = true;
    else if (strcmp(opt, "--leapfrog") == 0) o->def.integrator = TL_INTEGRATOR_LEAPFROG;
    else if (strcmp(opt, "--no-correction") == 0) o->def.contact_boundary_correction = false;
    else if (strcmp(opt, "--clamp") == 0) o->def.law.clamp_tensile = true;
    else if (strcmp(opt, "--json") == 0) o->json = true;
    return 0;
}

static int opt_csv(collide_opts *o, const char *opt, const char *value) {
    (void)opt;
    o->csv = value;
    return 0;
}

/* ---- sweeps ---- */

static int sweep_range(sweep *sw, const char *spec) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    char *a = buf, *b = strchr(a, ':'), *c = b ? strchr(b + 1, ':') : NULL;
    double from, to, n;
    if (!b || !c) return app_usage_error(&CLI, "--sweep %s: a range is FROM:TO:N, got '%s'", sw->param, spec);
    *b++ = '\0';
    *c++ = '\0';
    if (!app_parse_number(a, &from) || !app_parse_number(b, &to) || !app_parse_number(c, &n) || n < 1 ||
        n > MAX_SWEEP || n != floor(n))
        return app_usage_error(&CLI, "--sweep %s: bad range '%s' (FROM:TO:N, N a whole number >= 1)",
                               sw->param, spec);
    sw->count = (size_t)n;
    sw->values = calloc(sw->count, sizeof *sw->values);
    if (!sw->values) return app_usage_error(&CLI, "out of memory");
    for (size_t i = 0; i < sw->count; i++)
        sw->values[i] = sw->count == 1 ? from : from + (to - from) * (double)i / (double)(sw->count - 1);
    return 0;
}

static size_t count_items(const char *list) {
    size_t n = 1;
    for (const char *p = list; *p; p++) n += *p == ',';
    return n;
}

static int sweep_list(sweep *sw, const char *spec) {
    size_t n = count_items(spec);
    if (n > MAX_SWEEP) return app_usage_error(&CLI, "--sweep %s: more than 10000 values", sw->param);
    if (sw->model) sw->specs = calloc(n, sizeof *sw->specs);
    else sw->values = calloc(n, sizeof *sw->values);
    if (!sw->specs && !sw->values) return app_usage_error(&CLI, "out of memory");
    const char *p = spec;
    for (size_t i = 0; i < n; i++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[SPEC_LEN];
        if (len == 0 || len >= SPEC_LEN)
            return app_usage_error(&CLI, "--sweep %s: empty or too long item in '%s'", sw->param, spec);
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        if (sw->model) snprintf(sw->specs[i], SPEC_LEN, "%s", item);
        else if (!app_parse_number(item, &sw->values[i]))
            return app_usage_error(&CLI, "--sweep: '%s' is not a number (%s)", item, sw->param);
        p += len + 1;
    }
    sw->count = n;
    return 0;
}

static int opt_sweep(collide_opts *o, const char *opt, const char *value) {
    const char *eq = strchr(value, '=');
    if (o->has_sweep) return app_usage_error(&CLI, "%s: one sweep at a time ('%s')", opt, value);
    if (!eq || eq == value || (size_t)(eq - value) >= APP_NAME_LEN || !eq[1])
        return app_usage_error(&CLI, "%s needs PARAM=FROM:TO:N or PARAM=V1,V2,..., got '%s'", opt, value);
    sweep *sw = &o->sw;
    snprintf(sw->param, APP_NAME_LEN, "%.*s", (int)(eq - value), value);
    sw->model = strcmp(sw->param, "model") == 0;
    o->has_sweep = true;
    if (!sw->model && strchr(eq + 1, ':')) return sweep_range(sw, eq + 1);
    return sweep_list(sw, eq + 1);
}

static void sweep_free(sweep *sw) {
    free(sw->values);
    free(sw->specs);
    sw->values = NULL;
    sw->specs = NULL;
}

/* ---- the option table ---- */

typedef int (*opt_fn)(collide_opts *o, const char *opt, const char *value);

typedef struct option {
    const char *name;
    bool has_value;
    opt_fn fn;
} option;

static const option OPTIONS[] = {
    {"--law", true, opt_law},          {"--coef", true, opt_coef},
    {"--clamp", false, opt_flag},      {"--coulomb", true, opt_coulomb},
    {"--contact-point", true, opt_contact_point},
    {"--material", true, opt_material}, {"--material-b", true, opt_material_b},
    {"--E", true, opt_material_field}, {"--nu", true, opt_material_field},
    {"--density", true, opt_material_field}, {"--yield", true, opt_material_field},
    {"--wall", false, opt_flag},       {"--radius", true, opt_number},
    {"--radius-b", true, opt_number},  {"--mass", true, opt_number},
    {"--mass-b", true, opt_number},    {"--speed", true, opt_number},
    {"--angle", true, opt_number},     {"--spin", true, opt_spin},
    {"--spin-b", true, opt_spin},      {"--steps", true, opt_number},
    {"--dt", true, opt_number},        {"--leapfrog", false, opt_flag},
    {"--no-correction", false, opt_flag}, {"--json", false, opt_flag},
    {"--csv", true, opt_csv},          {"--sweep", true, opt_sweep},
};

static void help(FILE *f) {
    /* a flag per slot of the law, from its table: "  --normal NAME  --damping NAME ..." */
    char slots[320];
    size_t used = 0;
    slots[0] = '\0';
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        int n = snprintf(slots + used, sizeof slots - used, "  --%s NAME%s", tl_slot_name((tl_slot)s),
                         s % 5 == 4 || s + 1 == TL_SLOT_COUNT ? "\n" : "");
        if (n < 0 || (size_t)n >= sizeof slots - used) break;
        used += (size_t)n;
    }
    fprintf(f,
            "usage: talus collide [options]\n"
            "\n"
            "One collision of two bodies, run by the engine with a step that resolves it, and\n"
            "measured (Li et al. 2022 eq. 20-23). Body b sits at the origin (a sphere at rest, or\n"
            "with --wall the plane z = 0); a arrives at --speed, --angle degrees from the normal.\n"
            "See docs/lab.md.\n"
            "\n"
            "law (any names of `talus models`; default hertz,tsuji,mindlin,true with e = 0.9, mu = 0.3):\n"
            "  --law NORMAL[,DAMPING[,TANGENTIAL[,HISTORY]]]\n"
            "%s"
            "  --coef NAME=VALUE     a coefficient of the law's sub-models (repeatable), e.g. e=0.5\n"
            "  --clamp               clamp_tensile: a tensile normal force is set to zero\n"
            "  --coulomb total|spring|spring-capped|lammps|liggghts   the Coulomb test (default total)\n"
            "  --contact-point compliance|surface     where the contact point of two spheres lies:\n"
            "                        the overlap split by compliances (default) or each lever arm R\n"
            "materials (default: density 2500 kg/m3, E 70 GPa, nu 0.25, for both bodies):\n"
            "  --material [NAME=]KEY:VALUE,...   keys: density, E, nu, k_n, k_t, yield\n"
            "  --E PA  --nu NU  --density KG_M3  --yield PA   the same, one key at a time\n"
            "  --material-b [NAME=]KEY:VALUE,... the wall's or second sphere's own material\n"
            "                        (starts as a copy of the first)\n"
            "bodies and impact:\n"
            "  --wall                b is a flat wall (default: a sphere)\n"
            "  --radius M  --radius-b M      radii (default 0.01 m; b as a unless given)\n"
            "  --mass KG  --mass-b KG        masses (default density x volume)\n"
            "  --speed M_S           impact speed (default 1 m/s)\n"
            "  --angle DEG           impact angle from the normal (default 0, head-on)\n"
            "  --spin WX,WY,WZ  --spin-b WX,WY,WZ   initial angular velocities, rad/s\n"
            "integration:\n"
            "  --steps N             steps per elastic contact time (default 1000)\n"
            "  --dt S                the time step itself (taken as given)\n"
            "  --leapfrog            half-step velocities in the dashpots (default: verlet)\n"
            "  --no-correction       no contact-boundary correction\n"
            "output (default: a readable summary):\n"
            "  --json                the result as one JSON object (an array with --sweep)\n"
            "  --csv FILE            the time series: t, overlap, overlap_rate, fn, fn_elastic,\n"
            "                        fn_damping, ft, ft_normal (SI units)\n"
            "  --sweep PARAM=FROM:TO:N | PARAM=V1,V2,...\n"
            "                        one run per value, one CSV row each (stdout, or --csv FILE).\n"
            "                        PARAM: speed, angle, radius, E, nu, density, yield, any\n"
            "                        coefficient name (e, mu, ...), or model with values\n"
            "                        NORMAL[/DAMPING[/TANGENTIAL]]. Columns: PARAM,%s\n"
            "                        (angles in degrees)\n"
            "\n"
            "Exit status: 0 done, 1 the law or the run was refused, 2 a usage error.\n",
            slots, CSV_COLUMNS);
}

static const option *find_option(const char *name) {
    static const option slot_option = {"--SLOT", true, opt_slot}; /* --normal, --rolling, ... */
    for (size_t i = 0; i < sizeof OPTIONS / sizeof OPTIONS[0]; i++)
        if (strcmp(OPTIONS[i].name, name) == 0) return &OPTIONS[i];
    if (strncmp(name, "--", 2) == 0 && tl_slot_find(name + 2) >= 0) return &slot_option;
    return NULL;
}

/* returns -1 to go on, else the exit status */
static int parse_args(collide_opts *o, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            help(stdout);
            return 0;
        }
        app_arg a;
        app_arg_split(arg, &a);
        const option *op = find_option(a.name);
        if (!op) return app_usage_error(&CLI, "unknown option '%s'", arg);
        if (app_arg_value(&CLI, &a, op->has_value, argc, argv, &i) || op->fn(o, a.name, a.value)) return 2;
    }
    return -1;
}

/* ---- assembling the definition ---- */

static void opts_init(collide_opts *o) {
    memset(o, 0, sizeof *o);
    o->def = tl_collide_default();
    o->def.material_a.density = 2500.0;
    o->def.material_a.youngs_modulus = 70e9;
    o->def.material_a.poisson_ratio = 0.25;
    app_material_unset(&o->mat_b);
    o->b_keys_left = MAX_MATERIAL_KEYS;
    snprintf(o->name_a, APP_NAME_LEN, "glass");
}

static bool any_slot_given(const app_law_names *ln) {
    for (int s = 0; s < TL_SLOT_COUNT; s++)
        if (ln->given[s]) return true;
    return false;
}

/* slots not named: their defaults (tl_law_model: none, and the history that goes with the
 * tangential model); the normal model is always named */
static void complete_law(app_law_names *ln) {
    tl_law_def d = tl_law_default();
    for (int s = 0; s < TL_SLOT_COUNT; s++) tl_law_choose(&d, tl_slot_name((tl_slot)s), ln->given[s] ? ln->slot[s] : NULL);
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const char *m = tl_law_model(&d, (tl_slot)s);
        if (!ln->given[s] && m) snprintf(ln->slot[s], APP_NAME_LEN, "%s", m);
    }
}

/* the names (checked against the registry as they were read: app_law_slot) into the law */
static void point_law(tl_law_def *law, const app_law_names *ln) {
    for (int s = 0; s < TL_SLOT_COUNT; s++) tl_law_choose(law, tl_slot_name((tl_slot)s), ln->slot[s]);
}

static bool has_coef(const collide_opts *o, const char *name) {
    for (int i = 0; i < o->coefs.count; i++)
        if (strcmp(o->coefs.names[i], name) == 0) return true;
    return false;
}

/* no law named at all: hertz + tsuji + mindlin with e = 0.9 and mu = 0.3 unless given;
 * a sweep over models keeps the coefficients e = 0.9 and mu = 0.3 (each run takes those its
 * sub-models declare) */
static int default_law(collide_opts *o) {
    o->user_coefs = o->coefs.count;
    if (any_slot_given(&o->law)) return 0;
    if (o->has_sweep && o->sw.model) {
        if (!has_coef(o, "e") && app_coef_add(&CLI, &o->coefs, "e", 0.9)) return 2;
        if (!has_coef(o, "mu") && app_coef_add(&CLI, &o->coefs, "mu", 0.3)) return 2;
        return 0;
    }
    app_law_slot(&CLI, &o->law, TL_SLOT_NORMAL, "hertz");
    app_law_slot(&CLI, &o->law, TL_SLOT_DAMPING, "tsuji");
    app_law_slot(&CLI, &o->law, TL_SLOT_TANGENTIAL, "mindlin");
    if (!has_coef(o, "e") && app_coef_add(&CLI, &o->coefs, "e", 0.9)) return 2;
    if (!has_coef(o, "mu") && app_coef_add(&CLI, &o->coefs, "mu", 0.3)) return 2;
    return 0;
}

static bool slot_declares(tl_slot slot, const char *model, const char *coef) {
    const tl_submodel_info *m = tl_registry_find(slot, model);
    if (!m) return false;
    for (int i = 0; i < m->coeff_count; i++)
        if (strcmp(m->coeffs[i].name, coef) == 0) return true;
    return false;
}

static bool law_declares(const tl_law_def *law, const char *coef) {
    for (int s = 0; s < TL_SLOT_COUNT; s++)
        if (tl_law_model(law, (tl_slot)s) && slot_declares((tl_slot)s, tl_law_model(law, (tl_slot)s), coef))
            return true;
    return false;
}

/* the coefficients into the law; with only_declared, those its sub-models take */
static void fill_coeffs(const collide_opts *o, tl_law_def *law, bool only_declared) {
    law->coeff_count = 0;
    for (int i = 0; i < o->coefs.count; i++)
        if (!only_declared || law_declares(law, o->coefs.names[i]))
            tl_law_set(law, o->coefs.names[i], o->coefs.values[i]);
}

static int finish_materials(collide_opts *o) {
    tl_collide_def *d = &o->def;
    d->material_a.name = o->name_a;
    if (!o->radius_b_given) d->radius_b = d->radius_a;
    d->same_material = !o->b_given;
    if (!o->b_given) return 0;
    d->material_b = o->mat_b;
    app_material_fill(&d->material_b, &d->material_a);
    if (!o->name_b[0]) snprintf(o->name_b, APP_NAME_LEN, "%s", d->wall ? "wall" : "b");
    if (strcmp(o->name_b, o->name_a) == 0)
        return app_usage_error(&CLI, "--material-b: '%s' is the name of the first material", o->name_b);
    d->material_b.name = o->name_b;
    return 0;
}

static int check_ranges(const collide_opts *o) {
    const tl_collide_def *d = &o->def;
    if (!(d->speed > 0.0)) {
        return app_usage_error(&CLI, "--speed must be > 0 m/s, got %g", d->speed);
    }
    if (!(d->angle >= 0.0 && d->angle < 0.5 * PI)) {
        return app_usage_error(&CLI, "--angle must be in 0 <= angle < 90 degrees, got %g",
                               d->angle * 180.0 / PI);
    }
    if (!(d->radius_a > 0.0) || !(d->radius_b > 0.0)) return app_usage_error(&CLI, "the radii must be > 0 m");
    if (!(d->steps_per_contact >= 1.0)) return app_usage_error(&CLI, "--steps must be >= 1");
    if (!(d->dt >= 0.0)) return app_usage_error(&CLI, "--dt must be > 0 s");
    if (o->has_sweep && o->csv && o->json) return app_usage_error(&CLI, "--sweep writes either --csv or --json");
    return 0;
}

static bool is_sweep_name(const char *param) {
    app_mat_field f;
    return strcmp(param, "speed") == 0 || strcmp(param, "angle") == 0 ||
           strcmp(param, "radius") == 0 || strcmp(param, "model") == 0 ||
           (app_material_key(param, &f) && f != APP_MAT_KN && f != APP_MAT_KT);
}

static int check_sweep(const collide_opts *o) {
    const char *p = o->sw.param;
    if (!o->has_sweep || is_sweep_name(p) || law_declares(&o->def.law, p)) return 0;
    return app_usage_error(&CLI, "--sweep: '%s' is none of speed, angle, radius, model, E, nu, density, yield, "
                       "and no coefficient of the law (%s + %s + %s + %s)",
                       p, o->def.law.normal, o->def.law.damping, o->def.law.tangential, o->def.law.history);
}

static int finish_opts(collide_opts *o) {
    int rc = default_law(o);
    if (rc) return rc;
    complete_law(&o->law);
    point_law(&o->def.law, &o->law);
    fill_coeffs(o, &o->def.law, false);
    rc = finish_materials(o);
    if (!rc) rc = check_ranges(o);
    return rc ? rc : check_sweep(o);
}

/* ---- output ---- */

static void json_number(FILE *f, const char *key, double v, bool comma) {
    if (isfinite(v)) fprintf(f, "\"%s\": %.10g", key, v);
    else fprintf(f, "\"%s\": null", key);
    if (comma) fprintf(f, ", ");
}

static void json_vec(FILE *f, const char *key, tl_vec3 v) {
    fprintf(f, "\"%s\": [%.10g, %.10g, %.10g], ", key, v.x, v.y, v.z);
}

static void json_law(FILE *f, const tl_law_def *law) {
    fprintf(f, "\"law\": {\"normal\": \"%s\", \"damping\": \"%s\", \"tangential\": \"%s\", "
               "\"history\": \"%s\", \"clamp_tensile\": %s, \"coulomb_test\": \"%s\", \"contact_point\": \"%s\", "
               "\"coefficients\": {",
            law->normal, law->damping, law->tangential, law->history, law->clamp_tensile ? "true" : "false",
            coulomb_name(law->coulomb_test),
            law->contact_point == TL_CONTACT_POINT_SURFACE ? "surface" : "compliance");
    for (int i = 0; i < law->coeff_count; i++) json_number(f, law->coeffs[i].name, law->coeffs[i].value, i + 1 < law->coeff_count);
    fprintf(f, "}}, ");
}

static void json_result(FILE *f, const tl_collide_def *d, const tl_collide_result *r) {
    fprintf(f, "{");
    json_law(f, &d->law);
    fprintf(f, "\"wall\": %s, ", d->wall ? "true" : "false");
    json_number(f, "radius_a", d->radius_a, true);
    if (!d->wall) json_number(f, "radius_b", d->radius_b, true);
    json_number(f, "speed", d->speed, true);
    json_number(f, "angle_deg", d->angle * 180.0 / PI, true);
    json_number(f, "dt", r->dt, true);
    fprintf(f, "\"steps\": %lld, ", (long long)r->steps);
    json_number(f, "e_n", r->e_n, true);
    json_number(f, "e_t", r->e_t, true);
    json_number(f, "duration", r->duration, true);
    json_number(f, "max_overlap", r->max_overlap, true);
    json_number(f, "max_normal_force", r->max_normal_force, true);
    json_vec(f, "v_in", r->v_in);
    json_vec(f, "v_out", r->v_out);
    json_vec(f, "omega_out", r->omega_out);
    if (!d->wall) json_vec(f, "omega_out_b", r->omega_out_b);
    json_vec(f, "vc_out", r->vc_out);
    json_number(f, "alpha_v_deg", r->alpha_v * 180.0 / PI, true);
    json_number(f, "alpha_c_deg", r->alpha_c * 180.0 / PI, true);
    json_number(f, "kappa", r->kappa, true);
    json_number(f, "psi1", r->psi1, true);
    json_number(f, "psi2", r->psi2, true);
    json_number(f, "energy_in", r->energy_in, true);
    json_number(f, "energy_out_translational", r->energy_out_translational, true);
    json_number(f, "energy_out_rotational", r->energy_out_rotational, true);
    json_number(f, "diss_normal", r->diss_normal, true);
    json_number(f, "diss_plastic", r->diss_plastic, true);
    json_number(f, "diss_tangential_damping", r->diss_tangential_damping, true);
    json_number(f, "diss_friction", r->diss_friction, true);
    json_number(f, "integration_residual", r->integration_residual, true);
    /* the whole ledger at the end, by the table's names */
    fprintf(f, "\"energy\": {");
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) json_number(f, tl_energy_term_get(k)->name, r->energy.term[k], true);
    json_number(f, "total", r->energy.total, false);
    fprintf(f, "}, ");
    json_number(f, "energy_error", r->energy_error, false);
    fprintf(f, "}");
}

static void print_law(const tl_law_def *law) {
    /* the slots in table order: the first four always, an optional one (none by default) when used */
    printf("  law        ");
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const char *m;
        if (!app_slot_shown(law, s, &m)) continue;
        const bool optional = s > TL_SLOT_HISTORY; /* named with its key */
        printf("%s%s%s%s", s ? " + " : "", optional ? tl_slot_name((tl_slot)s) : "", optional ? " " : "", m);
    }
    for (int i = 0; i < law->coeff_count; i++)
        printf("%s%s = %g", i ? ", " : " (", law->coeffs[i].name, law->coeffs[i].value);
    printf("%s%s%s%s%s\n", law->coeff_count ? ")" : "", law->clamp_tensile ? ", clamp_tensile" : "",
           law->coulomb_test != TL_COULOMB_TOTAL ? ", coulomb_test " : "",
           law->coulomb_test != TL_COULOMB_TOTAL ? coulomb_name(law->coulomb_test) : "",
           law->contact_point == TL_CONTACT_POINT_SURFACE ? ", contact_point surface" : "");
}

static void print_setup(const tl_collide_def *d, const tl_collide_result *r) {
    char steps[32];
    app_format_count(r->steps, steps, sizeof steps);
    printf("talus collide: a sphere of R = %g m (%s) on %s, %g m/s at %g degrees\n", d->radius_a,
           d->material_a.name, d->wall ? "a wall" : "a sphere at rest", d->speed, d->angle * 180.0 / PI);
    if (!d->wall) printf("  sphere b   R = %g m (%s)\n", d->radius_b, d->same_material ? d->material_a.name : d->material_b.name);
    print_law(&d->law);
    printf("  step       dt = %.4g s, %s steps (%s%s)\n", r->dt, steps,
           d->integrator == TL_INTEGRATOR_LEAPFROG ? "leapfrog" : "verlet",
           d->contact_boundary_correction ? ", boundary correction" : "");
}

static void print_kinematics(const tl_collide_def *d, const tl_collide_result *r) {
    printf("\nresult\n");
    printf("  restitution       e_n = %.6g, e_t = %.6g\n", r->e_n, r->e_t);
    printf("  duration          %.6g s (%.0f steps)\n", r->duration, r->duration / r->dt);
    printf("  peak overlap      %.4g m (%.3g%% of R)\n", r->max_overlap, 100.0 * r->max_overlap / d->radius_a);
    printf("  peak normal force %.4g N\n", r->max_normal_force);
    printf("  v_out             normal %.6g m/s, tangential %.6g m/s (v_in: %.6g, %.6g)\n", r->v_out.z,
           r->v_out.x, r->v_in.z, r->v_in.x);
    printf("  omega_out         (%.6g, %.6g, %.6g) rad/s\n", r->omega_out.x, r->omega_out.y, r->omega_out.z);
    if (!d->wall)
        printf("  omega_out of b    (%.6g, %.6g, %.6g) rad/s\n", r->omega_out_b.x, r->omega_out_b.y,
               r->omega_out_b.z);
    printf("  rebound angles    alpha_v = %.4g deg (centre), alpha_c = %.4g deg (contact point)\n",
           r->alpha_v * 180.0 / PI, r->alpha_c * 180.0 / PI);
    if (isfinite(r->psi1))
        printf("  Maw's angles      psi1 = %.4g, psi2 = %.4g (kappa = %.4g)\n", r->psi1, r->psi2, r->kappa);
    else
        printf("  Maw's angles      undefined (no friction, or no elastic moduli)\n");
}

static void print_energy(const tl_law_def *law, const tl_collide_result *r) {
    double out = r->energy_out_translational + r->energy_out_rotational;
    printf("\nenergy\n");
    printf("  in                %.6g J\n", r->energy_in);
    printf("  out               %.6g J: translational %.6g J, rotational %.6g J\n", out,
           r->energy_out_translational, r->energy_out_rotational);
    /* every dissipated term of the ledger's table: the four slots' always, an optional slot's when
     * the law uses it */
    printf("  dissipated       ");
    for (int k = 0, n = 0; k < TL_ENERGY_TERM_COUNT; k++) {
        const tl_energy_term_info *ti = tl_energy_term_get(k);
        if (ti->kind != TL_ENERGY_KIND_DISSIPATED) continue;
        const char *m;
        if (ti->slot >= 0 && !app_slot_shown(law, ti->slot, &m)) continue;
        const char *label = strncmp(ti->label, "dissipated, ", 12) == 0 ? ti->label + 12 : ti->label;
        printf("%s %s %.4g J", n++ ? "," : "", label, r->energy.term[k]);
    }
    printf("\n");
    printf("  integration error %.3g J (%.2g of the energy in: what the normal spring did not give "
           "back, a finite step's error)\n",
           r->integration_residual, r->integration_residual / r->energy_in);
    printf("  balance error     %.3g J (%.2g of the energy in)\n", r->energy_error,
           r->energy_error / r->energy_in);
    if (fabs(r->energy_error) > 1e-3 * r->energy_in || fabs(r->integration_residual) > 1e-3 * r->energy_in)
        printf("  warning: the energy balance is off by more than 0.1%%: the step does not resolve "
               "this law (try more --steps)\n");
}

/* ---- files ---- */

static void write_series(FILE *f, const void *data) {
    const tl_collide_result *r = data;
    fprintf(f, "t,overlap,overlap_rate,fn,fn_elastic,fn_damping,ft,ft_normal\n");
    for (size_t i = 0; i < r->nsamples; i++) {
        const tl_collide_sample *s = &r->samples[i];
        fprintf(f, "%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g\n", s->t, s->overlap,
                s->overlap_rate, s->fn, s->fn_elastic, s->fn_damping, s->ft, s->ft_normal);
    }
}

/* ---- one run ---- */

static int run_one(collide_opts *o) {
    tl_collide_result r;
    char err[1024];
    o->def.record = o->csv != NULL;
    if (tl_collide(&o->def, &r, err, sizeof err) != TL_OK) {
        fprintf(stderr, "talus collide: %s\n", err);
        return 1;
    }
    int rc = o->csv ? app_write_file("talus collide", o->csv, write_series, &r) : 0;
    if (rc == 0 && o->json) {
        json_result(stdout, &o->def, &r);
        printf("\n");
    } else if (rc == 0) {
        print_setup(&o->def, &r);
        print_kinematics(&o->def, &r);
        print_energy(&o->def.law, &r);
        if (o->csv) printf("\ntime series (%zu rows) written to %s\n", r.nsamples, o->csv);
    }
    tl_collide_result_free(&r);
    return rc;
}

/* ---- a sweep ---- */

typedef struct sweep_rows {
    const collide_opts *o;
    tl_collide_def *defs;
    tl_collide_result *res;
    size_t count;
} sweep_rows;

/* a value of the sweep into a copy of the definition; a swept law's names are kept in ln */
static int apply_value(const collide_opts *o, size_t i, tl_collide_def *d, app_law_names *ln) {
    const sweep *sw = &o->sw;
    *d = o->def;
    if (sw->model) {
        if (app_law_spec(&CLI, ln, sw->specs[i], "/")) return 2;
        if (o->law.given[TL_SLOT_HISTORY]) {
            snprintf(ln->slot[TL_SLOT_HISTORY], APP_NAME_LEN, "%s", o->law.slot[TL_SLOT_HISTORY]);
            ln->given[TL_SLOT_HISTORY] = true;
        }
        complete_law(ln);
        point_law(&d->law, ln);
        fill_coeffs(o, &d->law, true);
        return 0;
    }
    double v = sw->values[i];
    app_mat_field f;
    if (strcmp(sw->param, "speed") == 0) d->speed = v;
    else if (strcmp(sw->param, "angle") == 0) d->angle = v * PI / 180.0;
    else if (strcmp(sw->param, "radius") == 0) {
        d->radius_a = v;
        if (!o->radius_b_given) d->radius_b = v;
    } else if (app_material_key(sw->param, &f) && f != APP_MAT_KN && f != APP_MAT_KT) {
        app_material_set(&d->material_a, f, v);
        if (!d->same_material) app_material_set(&d->material_b, f, v);
    } else {
        tl_law_set(&d->law, sw->param, v);
    }
    return 0;
}

static void write_row(FILE *f, const collide_opts *o, size_t i, const tl_collide_result *r) {
    if (o->sw.model) fprintf(f, "%s", o->sw.specs[i]);
    else fprintf(f, "%.10g", o->sw.values[i]);
    double deg = 180.0 / PI;
    const double cols[] = {r->e_n, r->e_t, r->duration, r->max_overlap, r->max_normal_force,
                           r->v_out.z, r->v_out.x, r->omega_out.y, r->alpha_v * deg,
                           r->alpha_c * deg, r->psi1, r->psi2, r->diss_normal, r->diss_plastic,
                           r->diss_tangential_damping, r->diss_friction, r->integration_residual,
                           r->energy_error};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) fprintf(f, ",%.10g", cols[k]);
    fprintf(f, "\n");
}

static void write_sweep_csv(FILE *f, const void *data) {
    const sweep_rows *rows = data;
    fprintf(f, "%s,%s\n", rows->o->sw.param, CSV_COLUMNS);
    for (size_t i = 0; i < rows->count; i++) write_row(f, rows->o, i, &rows->res[i]);
}

static void write_sweep_json(FILE *f, const sweep_rows *rows) {
    fprintf(f, "[\n");
    for (size_t i = 0; i < rows->count; i++) {
        json_result(f, &rows->defs[i], &rows->res[i]);
        fprintf(f, "%s\n", i + 1 < rows->count ? "," : "");
    }
    fprintf(f, "]\n");
}

/* every --coef must be taken by at least one of the swept models */
static int check_model_coeffs(const collide_opts *o, const tl_collide_def *defs) {
    for (int c = 0; c < o->user_coefs; c++) {
        bool used = false;
        for (size_t i = 0; i < o->sw.count && !used; i++) used = law_declares(&defs[i].law, o->coefs.names[c]);
        if (!used) {
            fprintf(stderr, "talus collide: coefficient '%s' is taken by none of the swept models\n",
                    o->coefs.names[c]);
            return 1;
        }
    }
    return 0;
}

static int run_rows(const collide_opts *o, sweep_rows *rows, app_law_names *laws) {
    for (size_t i = 0; i < rows->count; i++)
        if (apply_value(o, i, &rows->defs[i], &laws[i])) return 2;
    if (o->sw.model && check_model_coeffs(o, rows->defs)) return 1;
    for (size_t i = 0; i < rows->count; i++) {
        char err[1024];
        if (tl_collide(&rows->defs[i], &rows->res[i], err, sizeof err) != TL_OK) {
            fprintf(stderr, "talus collide: --sweep %s, value %zu: %s\n", o->sw.param, i + 1, err);
            return 1;
        }
    }
    return 0;
}

static int run_sweep(collide_opts *o) {
    sweep_rows rows = {o, calloc(o->sw.count, sizeof(tl_collide_def)),
                       calloc(o->sw.count, sizeof(tl_collide_result)), o->sw.count};
    app_law_names *laws = calloc(o->sw.count, sizeof *laws);
    int rc = 1;
    if (!rows.defs || !rows.res || !laws) fprintf(stderr, "talus collide: out of memory\n");
    else rc = run_rows(o, &rows, laws);
    if (rc == 0 && o->csv) rc = app_write_file("talus collide", o->csv, write_sweep_csv, &rows);
    else if (rc == 0 && o->json) write_sweep_json(stdout, &rows);
    else if (rc == 0) write_sweep_csv(stdout, &rows);
    for (size_t i = 0; rows.res && i < rows.count; i++) tl_collide_result_free(&rows.res[i]);
    free(rows.defs);
    free(rows.res);
    free(laws);
    return rc;
}

int cmd_collide(int argc, char **argv) {
    collide_opts *o = calloc(1, sizeof *o);
    if (!o) return 1;
    opts_init(o);
    int rc = parse_args(o, argc, argv);
    if (rc < 0) {
        rc = finish_opts(o);
        if (rc == 0) rc = o->has_sweep ? run_sweep(o) : run_one(o);
    }
    sweep_free(&o->sw);
    free(o);
    return rc;
}
