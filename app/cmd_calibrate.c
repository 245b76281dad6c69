/* talus calibrate: from what a user knows to what a law needs.
 *
 *   actm         e, T_c, m, u_in -> lambda, k, d (Ray et al. 2015 direct and exact),
 *                checked by the dimensionless solution and by a collision run
 *   lambda       lambda -> e and tau_c, exact and by eq. 43-44, with their differences
 *   restitution  a law and a requested e -> the e the engine achieves (a collision run)
 *   timestep     materials, size, speed -> the Hertz contact time (Li et al. 2022 eq. 24
 *                corrected), the step, and what softening E by c does to both
 *   adhesion     a work of adhesion, a Bond number or a pull-off force -> the others, the JKR
 *                loss per contact and sticking speed, checked by collision runs
 *
 * See docs/lab.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"

#define PI 3.14159265358979323846
#define MAX_SOFTEN 32
#define MAX_LAMBDA 10000

typedef enum calib_mode {
    MODE_ACTM = 1u << 0,
    MODE_LAMBDA = 1u << 1,
    MODE_RESTITUTION = 1u << 2,
    MODE_TIMESTEP = 1u << 3,
    MODE_ADHESION = 1u << 4
} calib_mode;

static const struct {
    const char *name;
    calib_mode mode;
} MODES[] = {{"actm", MODE_ACTM},
             {"lambda", MODE_LAMBDA},
             {"restitution", MODE_RESTITUTION},
             {"timestep", MODE_TIMESTEP},
             {"adhesion", MODE_ADHESION}};

typedef struct calib_opts {
    calib_mode mode;
    const char *mode_name;
    double e, tc, mass, speed, radius, steps;
    bool has_e, has_tc, has_mass, has_density;
    bool direct_only, exact_only, json, clamp, wall;
    double lambda_from, lambda_to;
    int lambda_n;
    bool has_lambda;
    double soften[MAX_SOFTEN];
    int nsoften;
    tl_material_def mat_a, mat_b; /* b: the keys given for it, NAN elsewhere, until resolved */
    bool b_given;
    char name_a[APP_NAME_LEN], name_b[APP_NAME_LEN];
    char normal[APP_NAME_LEN], damping[APP_NAME_LEN];
    app_coefs coefs;
    double w, bond, pull_off, gravity; /* adhesion: one of the first three given (NAN: not) */
    bool jkr;                          /* adhesion: the Bond number's pull-off is JKR's (else DMT's) */
} calib_opts;

static const app_cli CLI = {"talus calibrate", "talus calibrate --help lists the modes and their options"};

static double sphere_volume(double r) { return 4.0 / 3.0 * PI * r * r * r; }

/* ---- options ---- */

static int opt_value(calib_opts *o, const char *opt, const char *value) {
    double v;
    if (app_number_option(&CLI, opt, value, &v)) return 2;
    if (strcmp(opt, "--e") == 0) { o->e = v; o->has_e = true; }
    else if (strcmp(opt, "--tc") == 0) { o->tc = v; o->has_tc = true; }
    else if (strcmp(opt, "--mass") == 0) { o->mass = v; o->has_mass = true; }
    else if (strcmp(opt, "--speed") == 0) o->speed = v;
    else if (strcmp(opt, "--radius") == 0) o->radius = v;
    else if (strcmp(opt, "--steps") == 0) o->steps = v;
    else if (strcmp(opt, "--E") == 0) o->mat_a.youngs_modulus = v;
    else if (strcmp(opt, "--nu") == 0) o->mat_a.poisson_ratio = v;
    else if (strcmp(opt, "--yield") == 0) o->mat_a.yield_stress = v;
    else if (strcmp(opt, "--density") == 0) { o->mat_a.density = v; o->has_density = true; }
    else if (strcmp(opt, "--w") == 0) o->w = v;
    else if (strcmp(opt, "--bond") == 0) o->bond = v;
    else if (strcmp(opt, "--pull-off") == 0) o->pull_off = v;
    else if (strcmp(opt, "--gravity") == 0) o->gravity = v;
    return 0;
}

static int opt_cohesion(calib_opts *o, const char *opt, const char *value) {
    if (strcmp(value, "dmt") == 0) o->jkr = false;
    else if (strcmp(value, "jkr") == 0) o->jkr = true;
    else return app_usage_error(&CLI, "%s: dmt or jkr, got '%s'", opt, value);
    return 0;
}

static int opt_flag(calib_opts *o, const char *opt, const char *value) {
    (void)value;
    if (strcmp(opt, "--direct") == 0) o->direct_only = true;
    else if (strcmp(opt, "--exact") == 0) o->exact_only = true;
    else if (strcmp(opt, "--json") == 0) o->json = true;
    else if (strcmp(opt, "--clamp") == 0) o->clamp = true;
    else if (strcmp(opt, "--wall") == 0) o->wall = true;
    return 0;
}

/* L or FROM:TO:N */
static int opt_lambda(calib_opts *o, const char *opt, const char *value) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", value);
    char *b = strchr(buf, ':'), *c = b ? strchr(b + 1, ':') : NULL;
    double n = 1.0;
    o->has_lambda = true;
    if (!b) {
        if (!app_parse_number(buf, &o->lambda_from))
            return app_usage_error(&CLI, "%s needs a number, got '%s'", opt, value);
        o->lambda_to = o->lambda_from;
    } else {
        if (!c) return app_usage_error(&CLI, "%s: a range is FROM:TO:N, got '%s'", opt, value);
        *b++ = '\0';
        *c++ = '\0';
        if (!app_parse_number(buf, &o->lambda_from) || !app_parse_number(b, &o->lambda_to) ||
            !app_parse_number(c, &n) || n < 1 || n > MAX_LAMBDA || n != floor(n))
            return app_usage_error(&CLI, "%s: bad range '%s' (FROM:TO:N, N a whole number >= 1)", opt,
                                   value);
    }
    if (!(o->lambda_from >= 0.0) || !(o->lambda_to >= 0.0))
        return app_usage_error(&CLI, "%s must be >= 0", opt);
    o->lambda_n = (int)n;
    return 0;
}

static int opt_soften(calib_opts *o, const char *opt, const char *value) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double c;
        if (!app_parse_number(tok, &c) || !(c > 0.0))
            return app_usage_error(&CLI, "%s: '%s' is not a factor > 0", opt, tok);
        if (o->nsoften >= MAX_SOFTEN) return app_usage_error(&CLI, "%s: at most %d factors", opt, MAX_SOFTEN);
        o->soften[o->nsoften++] = c;
    }
    return 0;
}

/* NORMAL,DAMPING: names checked against the registry */
static int opt_law(calib_opts *o, const char *opt, const char *value) {
    const char *comma = strchr(value, ',');
    size_t len = comma ? (size_t)(comma - value) : strlen(value);
    if (len == 0 || len >= APP_NAME_LEN ||
        (comma && (strlen(comma + 1) >= APP_NAME_LEN || strchr(comma + 1, ','))))
        return app_usage_error(&CLI, "%s needs NORMAL[,DAMPING], got '%s'", opt, value);
    snprintf(o->normal, APP_NAME_LEN, "%.*s", (int)len, value);
    snprintf(o->damping, APP_NAME_LEN, "%s", comma ? comma + 1 : "none");
    if (!tl_registry_find(TL_SLOT_NORMAL, o->normal))
        return app_usage_error(&CLI, "unknown normal model '%s' (talus models lists them)", o->normal);
    if (!tl_registry_find(TL_SLOT_DAMPING, o->damping))
        return app_usage_error(&CLI, "unknown damping model '%s' (talus models lists them)", o->damping);
    return 0;
}

/* NAME=VALUE; a VALUE that is no number is refused as not NAME=VALUE */
static int opt_coef(calib_opts *o, const char *opt, const char *value) {
    const char *eq = strchr(value, '=');
    double v;
    if (eq && !app_parse_number(eq + 1, &v))
        return app_usage_error(&CLI, "%s needs NAME=VALUE, got '%s'", opt, value);
    return app_coef_option(&CLI, &o->coefs, opt, value);
}

/* [NAME=]KEY:VALUE,... */
static int opt_material(calib_opts *o, const char *opt, const char *value) {
    bool b = strcmp(opt, "--material-b") == 0;
    o->b_given |= b;
    if (!b && strstr(value, "density:")) o->has_density = true;
    return app_material_option(&CLI, opt, value, b ? o->name_b : o->name_a, b ? &o->mat_b : &o->mat_a,
                               NULL);
}

typedef int (*opt_fn)(calib_opts *o, const char *opt, const char *value);

typedef struct option {
    const char *name;
    bool has_value;
    unsigned modes;
    opt_fn fn;
} option;

#define M_ALL (MODE_ACTM | MODE_LAMBDA | MODE_RESTITUTION | MODE_TIMESTEP)
#define M_COLL (MODE_RESTITUTION | MODE_TIMESTEP | MODE_ADHESION)

static const option OPTIONS[] = {
    {"--e", true, MODE_ACTM | MODE_RESTITUTION, opt_value},
    {"--tc", true, MODE_ACTM, opt_value},
    {"--mass", true, MODE_ACTM | M_COLL, opt_value},
    {"--speed", true, MODE_ACTM | M_COLL, opt_value},
    {"--radius", true, MODE_ACTM | M_COLL, opt_value},
    {"--density", true, MODE_ACTM | M_COLL, opt_value},
    {"--direct", false, MODE_ACTM, opt_flag},
    {"--exact", false, MODE_ACTM, opt_flag},
    {"--lambda", true, MODE_LAMBDA, opt_lambda},
    {"--law", true, MODE_RESTITUTION, opt_law},
    {"--coef", true, MODE_RESTITUTION, opt_coef},
    {"--clamp", false, MODE_RESTITUTION, opt_flag},
    {"--E", true, M_COLL, opt_value},
    {"--nu", true, M_COLL, opt_value},
    {"--yield", true, M_COLL, opt_value},
    {"--material", true, M_COLL, opt_material},
    {"--material-b", true, M_COLL, opt_material},
    {"--wall", false, M_COLL, opt_flag},
    {"--steps", true, M_COLL, opt_value},
    {"--soften", true, MODE_TIMESTEP, opt_soften},
    {"--w", true, MODE_ADHESION, opt_value},
    {"--bond", true, MODE_ADHESION, opt_value},
    {"--pull-off", true, MODE_ADHESION, opt_value},
    {"--gravity", true, MODE_ADHESION, opt_value},
    {"--cohesion", true, MODE_ADHESION, opt_cohesion},
    {"--json", false, M_ALL | MODE_ADHESION, opt_flag},
};

static void help(FILE *f) {
    fprintf(f,
            "usage: talus calibrate MODE [options]   from what you know to what a law needs\n"
            "\n"
            "  actm --e E --tc T_C (--mass M | --density RHO [--radius R]) --speed U [--direct|--exact]\n"
            "      the stiffness k (N/m^1.5) and damping d (N s/m) of a damped Hertz contact giving\n"
            "      restitution E and collision time T_C at impact speed U (Ray et al. 2015; m is the\n"
            "      particle mass on a wall, the reduced mass m1 m2/(m1+m2) between two particles), by\n"
            "      the paper's direct formulas (eq. 51-54) and exactly (inverse of eq. 6); each checked\n"
            "      by solving eq. 6 and by a collision run with hertz-adaptive(-direct).\n"
            "  lambda --lambda L | --lambda FROM:TO:N\n"
            "      restitution e and dimensionless duration tau_c of eq. 6 at damping lambda: exact,\n"
            "      and by the paper's approximations (eq. 43, 44), with their relative differences.\n"
            "  restitution --e E [--law NORMAL,DAMPING] [--coef NAME=VALUE] [--clamp] [bodies]\n"
            "      the restitution the engine achieves for the requested one (one head-on collision;\n"
            "      default law hertz,tsuji); --clamp adds the run with clamp_tensile.\n"
            "  timestep [bodies] [--steps N] [--soften C1,C2,...]\n"
            "      the Hertz contact time (Li et al. 2022 eq. 24 with 1/E* = sum (1 - nu^2)/E), the\n"
            "      step resolving it with N steps (default 20), and for each softening factor c\n"
            "      (E -> c E) the contact time, the step, its ratio to c = 1, and the peak overlap.\n"
            "  adhesion (--w W | --bond BO | --pull-off F) [--cohesion dmt|jkr] [--gravity G] [bodies]\n"
            "      from one of the work of adhesion W (J/m2), the granular Bond number BO (a pair's\n"
            "      pull-off force over body a's weight m g, G = 9.81 m/s2 by default) or the pull-off\n"
            "      force F (N) of --cohesion's model (dmt, the default: 2 pi W R*; jkr: 3/2 pi W R*)\n"
            "      to the others: both models' pull-off forces, JKR's loss per contact and the speed\n"
            "      below which two bodies stick (undamped), checked by two collision runs (hertz + jkr)\n"
            "      at 1.5 and 3 times that speed against e_n = sqrt(1 - (v_s / v)^2).\n"
            "\n"
            "bodies (restitution, timestep, adhesion): --material [NAME=]KEY:VALUE,... (keys density, E, nu,\n"
            "  k_n, k_t, yield) or --E PA --nu NU --density KG_M3 --yield PA (default 2500 kg/m3,\n"
            "  70 GPa, 0.25); --material-b [NAME=]KEY:VALUE,... (the wall's or second sphere's own,\n"
            "  a copy of the first otherwise); --wall (b is a wall; default two equal spheres);\n"
            "  --radius M (0.01); --mass KG; --speed M_S (1); --steps N per contact.\n"
            "  --json prints the result as one JSON object.\n"
            "\n"
            "examples:\n"
            "  talus calibrate actm --e 0.95 --tc 0.01 --density 7800 --radius 0.01 --speed 1\n"
            "  talus calibrate lambda --lambda 0:0.5:11\n"
            "  talus calibrate restitution --law hertz,hunt-crossley --e 0.5 --wall\n"
            "  talus calibrate timestep --wall --radius 2.5e-3 --speed 3.9 --soften 0.1,0.01,0.001 \\\n"
            "      --material alumina=E:380e9,nu:0.23,density:3500 --material-b glass=E:70e9,nu:0.25\n"
            "\n"
            "Exit status: 0 done, 1 refused (law, run), 2 a usage error.\n");
}

static const option *find_option(const char *name) {
    for (size_t i = 0; i < sizeof OPTIONS / sizeof OPTIONS[0]; i++)
        if (strcmp(OPTIONS[i].name, name) == 0) return &OPTIONS[i];
    return NULL;
}

static void opts_init(calib_opts *o) {
    memset(o, 0, sizeof *o);
    o->speed = 1.0;
    o->radius = 0.01;
    o->mat_a = tl_material_default();
    o->mat_a.density = 2500.0;
    o->mat_a.youngs_modulus = 70e9;
    o->mat_a.poisson_ratio = 0.25;
    app_material_unset(&o->mat_b);
    snprintf(o->name_a, APP_NAME_LEN, "glass");
    snprintf(o->normal, APP_NAME_LEN, "hertz");
    snprintf(o->damping, APP_NAME_LEN, "tsuji");
    o->w = o->bond = o->pull_off = NAN;
    o->gravity = 9.81;
}

static int parse_mode(calib_opts *o, const char *name) {
    for (size_t i = 0; i < sizeof MODES / sizeof MODES[0]; i++)
        if (strcmp(MODES[i].name, name) == 0) {
            o->mode = MODES[i].mode;
            o->mode_name = MODES[i].name;
            return 0;
        }
    return app_usage_error(&CLI, "unknown mode '%s' (actm, lambda, restitution, timestep, adhesion)", name);
}

/* returns -1 to go on, else the exit status */
static int parse_args(calib_opts *o, int argc, char **argv) {
    if (argc < 2) {
        help(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        help(stdout);
        return 0;
    }
    if (parse_mode(o, argv[1])) return 2;
    for (int i = 2; i < argc; i++) {
        app_arg a;
        app_arg_split(argv[i], &a);
        const option *op = find_option(a.name);
        if (!op) return app_usage_error(&CLI, "unknown option '%s'", argv[i]);
        if (!(op->modes & o->mode))
            return app_usage_error(&CLI, "%s does not apply to '%s'", a.name, o->mode_name);
        if (app_arg_value(&CLI, &a, op->has_value, argc, argv, &i) || op->fn(o, a.name, a.value)) return 2;
    }
    return -1;
}

/* ---- collisions through the lab ---- */

/* names, and b's material: a copy of a's with the keys given for b */
static void resolve_materials(calib_opts *o) {
    o->mat_a.name = o->name_a;
    if (!o->b_given) return;
    app_material_fill(&o->mat_b, &o->mat_a);
    if (!o->name_b[0] || strcmp(o->name_b, o->name_a) == 0)
        snprintf(o->name_b, APP_NAME_LEN, "%s", o->wall ? "wall" : "b");
    o->mat_b.name = o->name_b;
}

static tl_collide_def lab_def(const calib_opts *o) {
    tl_collide_def d = tl_collide_default();
    d.material_a = o->mat_a;
    d.material_b = o->mat_b;
    d.same_material = !o->b_given;
    d.wall = o->wall;
    d.radius_a = d.radius_b = o->radius;
    d.mass_a = o->has_mass ? o->mass : 0.0;
    d.mass_b = d.mass_a;
    d.speed = o->speed;
    if (o->steps > 0.0) d.steps_per_contact = o->steps;
    d.law.tangential = "none";
    d.law.history = "none";
    return d;
}

static bool collide(const tl_collide_def *d, tl_collide_result *r) {
    char err[1024];
    if (tl_collide(d, r, err, sizeof err) == TL_OK) return true;
    fprintf(stderr, "talus calibrate: %s\n", err);
    return false;
}

static void json_num(const char *key, double v, bool comma) {
    if (isfinite(v)) printf("\"%s\": %.10g%s", key, v, comma ? ", " : "");
    else printf("\"%s\": null%s", key, comma ? ", " : "");
}

/* ---- actm ---- */

typedef struct actm_way {
    const char *name, *what, *model; /* model: the normal model running it */
    tl_status (*inverse)(double e, double T_c, double m, double u_in, double *k, double *d, double *lambda);
    double k, d, lambda;
    tl_hertz_damped solved;
    double tc_solved;
    bool ran;
    double e_run, tc_run;
} actm_way;

static int actm_solve(const calib_opts *o, double m, actm_way *w) {
    if (w->inverse(o->e, o->tc, m, o->speed, &w->k, &w->d, &w->lambda) != TL_OK) {
        fprintf(stderr, "talus calibrate: no %s solution for e = %g, T_c = %g s, m = %g kg, u = %g m/s\n",
                w->name, o->e, o->tc, m, o->speed);
        return 1;
    }
    tl_hertz_damped_solve(w->lambda, &w->solved);
    double tstar = pow(m * m / (w->k * w->k * o->speed), 0.2); /* eq. 5 */
    w->tc_solved = w->solved.tau_c * tstar;
    return 0;
}

/* a particle on a wall with the adaptive normal model, when the registry has it */
static int actm_run(const calib_opts *o, double m, actm_way *w) {
    w->ran = false;
    if (!tl_registry_find(TL_SLOT_NORMAL, w->model) || !tl_registry_find(TL_SLOT_DAMPING, "viscous-adaptive"))
        return 0;
    tl_collide_def d = lab_def(o);
    d.wall = true;
    d.same_material = true;
    d.mass_a = m;
    d.law.normal = w->model;
    d.law.damping = "viscous-adaptive";
    tl_law_set(&d.law, "T_c", o->tc);
    tl_law_set(&d.law, "e", o->e);
    tl_collide_result r;
    if (!collide(&d, &r)) return 1;
    w->ran = true;
    w->e_run = r.e_n;
    w->tc_run = r.duration;
    tl_collide_result_free(&r);
    return 0;
}

static void actm_print(const calib_opts *o, const actm_way *w) {
    printf("\n%s (%s)\n", w->name, w->what);
    printf("  lambda = %.6g   k = %.6g N/m^1.5   d = %.5g N s/m\n", w->lambda, w->k, w->d);
    printf("  eq. 6 solved:  e = %.6f  T_c = %.6g s   (relative errors %.2g, %.2g)\n", w->solved.restitution,
           w->tc_solved, w->solved.restitution / o->e - 1.0, w->tc_solved / o->tc - 1.0);
    if (w->ran)
        printf("  collision run (%s + viscous-adaptive, on a wall):  e = %.6f  T_c = %.6g s   "
               "(relative errors %.2g, %.2g)\n",
               w->model, w->e_run, w->tc_run, w->e_run / o->e - 1.0, w->tc_run / o->tc - 1.0);
    else
        printf("  collision run: skipped (normal '%s' with damping 'viscous-adaptive' is not in this "
               "build's registry)\n",
               w->model);
}

static void actm_json(const actm_way *w, bool comma) {
    printf("\"%s\": {", w->name);
    json_num("lambda", w->lambda, true);
    json_num("k", w->k, true);
    json_num("d", w->d, true);
    json_num("e_solved", w->solved.restitution, true);
    json_num("tc_solved", w->tc_solved, w->ran);
    if (w->ran) {
        json_num("e_run", w->e_run, true);
        json_num("tc_run", w->tc_run, false);
    }
    printf("}%s", comma ? ", " : "");
}

static int mode_actm(calib_opts *o) {
    if (!o->has_e || !o->has_tc) return app_usage_error(&CLI, "actm needs --e and --tc");
    if (!o->has_mass && !o->has_density)
        return app_usage_error(&CLI, "actm needs --mass, or --density (and --radius)");
    if (!(o->e > 0.0 && o->e <= 1.0) || !(o->tc > 0.0) || !(o->speed > 0.0) || !(o->radius > 0.0))
        return app_usage_error(&CLI, "actm needs 0 < e <= 1, T_c > 0 s, speed > 0 m/s, radius > 0 m");
    double m = o->has_mass ? o->mass : o->mat_a.density * sphere_volume(o->radius);
    if (!(m > 0.0)) return app_usage_error(&CLI, "the mass must be > 0 kg");
    actm_way ways[2] = {{.name = "direct",
                         .what = "Ray et al. eq. 51-54, fitted constants",
                         .model = "hertz-adaptive-direct",
                         .inverse = tl_actm_direct},
                        {.name = "exact",
                         .what = "inverse of eq. 6",
                         .model = "hertz-adaptive",
                         .inverse = tl_actm_exact}};
    int first = o->exact_only ? 1 : 0, last = o->direct_only ? 0 : 1;
    if (first > last) return app_usage_error(&CLI, "--direct and --exact exclude each other");
    for (int i = first; i <= last; i++)
        if (actm_solve(o, m, &ways[i]) || actm_run(o, m, &ways[i])) return 1;
    if (o->json) {
        printf("{");
        json_num("e", o->e, true);
        json_num("tc", o->tc, true);
        json_num("mass", m, true);
        json_num("speed", o->speed, true);
        for (int i = first; i <= last; i++) actm_json(&ways[i], i < last);
        printf("}\n");
        return 0;
    }
    printf("talus calibrate actm: e = %g, T_c = %g s, m = %.6g kg, u_in = %g m/s\n", o->e, o->tc, m, o->speed);
    for (int i = first; i <= last; i++) actm_print(o, &ways[i]);
    return 0;
}

/* ---- lambda ---- */

typedef struct lambda_row {
    double lambda, e, tau, e_approx, tau_approx;
} lambda_row;

static void lambda_eval(double lambda, lambda_row *r) {
    tl_hertz_damped s;
    tl_hertz_damped_solve(lambda, &s);
    r->lambda = lambda;
    r->e = s.restitution;
    r->tau = s.tau_c;
    tl_hertz_damped_approx(lambda, &r->e_approx, &r->tau_approx);
}

static double rel(double approx, double exact) { return exact != 0.0 ? approx / exact - 1.0 : NAN; }

/* a cell of the table: the number, or "none" where there is no finite value */
static void cell(const char *fmt, int width, double v) {
    if (isfinite(v)) printf(fmt, v);
    else printf("%*s", width, "none");
}

static int mode_lambda(const calib_opts *o) {
    if (!o->has_lambda) return app_usage_error(&CLI, "lambda needs --lambda L or --lambda FROM:TO:N");
    int n = o->lambda_n;
    int no_rebound = 0;
    double first_bad = NAN;
    if (o->json) printf("[\n");
    else
        printf("%10s %12s %12s %10s %12s %12s %10s\n", "lambda", "e exact", "e eq. 43", "rel. diff",
               "tau_c exact", "tau_c eq.44", "rel. diff");
    for (int i = 0; i < n; i++) {
        double l = n == 1 ? o->lambda_from
                          : o->lambda_from + (o->lambda_to - o->lambda_from) * i / (double)(n - 1);
        lambda_row r;
        lambda_eval(l, &r);
        if (!isfinite(r.e) || !isfinite(r.tau) || !(r.e > 0.0)) {
            if (!no_rebound++) first_bad = l;
        }
        if (o->json) {
            printf("{");
            json_num("lambda", r.lambda, true);
            json_num("e", r.e, true);
            json_num("e_eq43", r.e_approx, true);
            json_num("tau_c", r.tau, true);
            json_num("tau_c_eq44", r.tau_approx, false);
            printf("}%s\n", i + 1 < n ? "," : "");
        } else {
            printf("%10.5g ", r.lambda);
            cell("%12.8f ", 12, r.e);
            cell("%12.8f ", 12, r.e_approx);
            cell("%10.2e ", 10, rel(r.e_approx, r.e));
            cell("%12.8g ", 12, r.tau);
            cell("%12.8g ", 12, r.tau_approx);
            cell("%10.2e", 10, rel(r.tau_approx, r.tau));
            printf("\n");
        }
    }
    if (o->json) printf("]\n");
    else
        printf("(eq. 43-44 use the paper's fitted constants; eq. 44 has no real value above "
               "lambda = %.4g)\n", (-0.716 + sqrt(0.716 * 0.716 + 4 * 0.830)) / (2 * 0.830));
    if (no_rebound) {
        fprintf(stderr,
                "talus calibrate: %d of the dampings (the first: lambda = %g) give no rebound: the "
                "body comes to rest in contact, so e = 0 and the collision has no finite duration; "
                "no stiffness and dashpot reach such a restitution\n",
                no_rebound, first_bad);
        return 1;
    }
    return 0;
}

/* ---- restitution ---- */

static int restitution_run(const calib_opts *o, bool clamp, double *e_n) {
    tl_collide_def d = lab_def(o);
    d.law.normal = o->normal;
    d.law.damping = o->damping;
    d.law.clamp_tensile = clamp;
    tl_law_set(&d.law, "e", o->e);
    for (int i = 0; i < o->coefs.count; i++) tl_law_set(&d.law, o->coefs.names[i], o->coefs.values[i]);
    tl_collide_result r;
    if (!collide(&d, &r)) return 1;
    *e_n = r.e_n;
    tl_collide_result_free(&r);
    return 0;
}

static int mode_restitution(calib_opts *o) {
    if (!o->has_e) return app_usage_error(&CLI, "restitution needs --e (the requested restitution)");
    if (!(o->speed > 0.0) || !(o->radius > 0.0)) return app_usage_error(&CLI, "speed and radius must be > 0");
    double e_free = NAN, e_clamp = NAN;
    if (restitution_run(o, false, &e_free)) return 1;
    if (o->clamp && restitution_run(o, true, &e_clamp)) return 1;
    if (o->json) {
        printf("{\"normal\": \"%s\", \"damping\": \"%s\", ", o->normal, o->damping);
        json_num("e", o->e, true);
        json_num("speed", o->speed, true);
        json_num("e_achieved", e_free, o->clamp);
        if (o->clamp) json_num("e_achieved_clamped", e_clamp, false);
        printf("}\n");
        return 0;
    }
    printf("talus calibrate restitution: %s + %s, %s, R = %g m, %g m/s head-on\n", o->normal,
           o->damping, o->wall ? "a sphere on a wall" : "two spheres", o->radius, o->speed);
    printf("  requested e              %.6g\n", o->e);
    printf("  achieved e_n             %.6f  (difference %+.3g)\n", e_free, e_free - o->e);
    if (o->clamp)
        printf("  achieved, clamp_tensile  %.6f  (difference %+.3g)\n", e_clamp, e_clamp - o->e);
    return 0;
}

/* ---- timestep ---- */

typedef struct pair_props {
    double m_eff, r_eff, inv_estar, inv_estar_printed; /* 1/E*: sum (1 - nu^2)/E, and (1 - nu)/E */
} pair_props;

static const tl_material_def *mat_b_of(const calib_opts *o) { return o->b_given ? &o->mat_b : &o->mat_a; }

static pair_props pair_of(const calib_opts *o, double c) {
    const tl_material_def *a = &o->mat_a, *b = mat_b_of(o);
    double ma = o->has_mass ? o->mass : a->density * sphere_volume(o->radius);
    double mb = o->has_mass ? o->mass : b->density * sphere_volume(o->radius);
    pair_props p;
    p.m_eff = o->wall ? ma : ma * mb / (ma + mb);
    p.r_eff = o->wall ? o->radius : 0.5 * o->radius;
    p.inv_estar = ((1.0 - a->poisson_ratio * a->poisson_ratio) / a->youngs_modulus +
                   (1.0 - b->poisson_ratio * b->poisson_ratio) / b->youngs_modulus) / c;
    p.inv_estar_printed = ((1.0 - a->poisson_ratio) / a->youngs_modulus +
                           (1.0 - b->poisson_ratio) / b->youngs_modulus) / c;
    return p;
}

/* eq. 24: t_c = 2.9432 (15 m* / (16 E* sqrt(R* v)))^(2/5), with v inside the root as printed */
static double hertz_time(const pair_props *p, double inv_estar, double v) {
    double tcon = 0.8 * tgamma(0.4) * tgamma(0.5) / tgamma(0.9);
    return tcon * pow(15.0 * p->m_eff * inv_estar / (16.0 * sqrt(p->r_eff * v)), 0.4);
}

typedef struct soften_row {
    double c, tc, dt, ratio, tc_run, overlap_rel;
} soften_row;

static int soften_eval(const calib_opts *o, double c, double dt1, soften_row *r) {
    pair_props p = pair_of(o, c);
    r->c = c;
    r->tc = hertz_time(&p, p.inv_estar, o->speed);
    r->dt = r->tc / o->steps;
    r->ratio = dt1 > 0.0 ? r->dt / dt1 : 1.0;
    tl_collide_def d = lab_def(o);
    d.material_a.youngs_modulus *= c;
    d.material_b.youngs_modulus *= c;
    d.steps_per_contact = tl_collide_default().steps_per_contact; /* --steps is the design's */
    d.law.normal = "hertz";
    d.law.damping = "none";
    tl_collide_result res;
    if (!collide(&d, &res)) return 1;
    r->tc_run = res.duration;
    r->overlap_rel = res.max_overlap / o->radius;
    tl_collide_result_free(&res);
    return 0;
}

static void timestep_text(const calib_opts *o, const soften_row *rows, int n) {
    pair_props p = pair_of(o, 1.0);
    double printed = hertz_time(&p, p.inv_estar_printed, o->speed);
    printf("talus calibrate timestep: %s, R = %g m, %g m/s, %g steps per contact\n",
           o->wall ? "a sphere on a wall" : "two equal spheres", o->radius, o->speed, o->steps);
    printf("  m* = %.6g kg, R* = %.6g m, E* = %.6g Pa (1/E* = sum (1 - nu^2)/E)\n", p.m_eff, p.r_eff,
           1.0 / p.inv_estar);
    printf("  Hertz contact time (eq. 24)   %.6g s; as printed, with (1 - nu): %.6g s (%+.2g)\n",
           rows[0].tc, printed, printed / rows[0].tc - 1.0);
    printf("  step for %g steps             %.6g s\n\n", o->steps, rows[0].dt);
    printf("  %-10s %-12s %-12s %-10s %-10s %-14s %s\n", "c", "t_c (s)", "dt (s)", "dt/dt(1)",
           "c^(-2/5)", "t_c run (s)", "peak overlap / R");
    for (int i = 0; i < n; i++)
        printf("  %-10g %-12.6g %-12.6g %-10.3f %-10.3f %-14.6g %.3g%%%s\n", rows[i].c, rows[i].tc,
               rows[i].dt, rows[i].ratio, pow(rows[i].c, -0.4), rows[i].tc_run,
               100.0 * rows[i].overlap_rel, rows[i].overlap_rel > 0.01 ? "  (above 1%)" : "");
}

static void timestep_json(const calib_opts *o, const soften_row *rows, int n) {
    printf("{");
    json_num("speed", o->speed, true);
    json_num("radius", o->radius, true);
    json_num("steps", o->steps, true);
    printf("\"rows\": [");
    for (int i = 0; i < n; i++) {
        printf("{");
        json_num("c", rows[i].c, true);
        json_num("contact_time", rows[i].tc, true);
        json_num("dt", rows[i].dt, true);
        json_num("dt_ratio", rows[i].ratio, true);
        json_num("contact_time_run", rows[i].tc_run, true);
        json_num("peak_overlap_over_radius", rows[i].overlap_rel, false);
        printf("}%s", i + 1 < n ? ", " : "");
    }
    printf("]}\n");
}

static int mode_timestep(calib_opts *o) {
    if (o->steps == 0.0) o->steps = 20.0;
    if (!(o->steps >= 1.0) || !(o->speed > 0.0) || !(o->radius > 0.0))
        return app_usage_error(&CLI, "timestep needs --steps >= 1, speed > 0 m/s, radius > 0 m");
    const tl_material_def *b = mat_b_of(o);
    if (!(o->mat_a.youngs_modulus > 0.0) || !(b->youngs_modulus > 0.0))
        return app_usage_error(&CLI, "timestep needs the Young's moduli (--E or E: in --material)");
    soften_row rows[MAX_SOFTEN + 1];
    int n = 0;
    double cs[MAX_SOFTEN + 1] = {1.0};
    for (int i = 0; i < o->nsoften; i++)
        if (o->soften[i] != 1.0) cs[++n] = o->soften[i];
    n++;
    for (int i = 0; i < n; i++)
        if (soften_eval(o, cs[i], i ? rows[0].dt : 0.0, &rows[i])) return 1;
    if (o->json) timestep_json(o, rows, n);
    else timestep_text(o, rows, n);
    return 0;
}

/* ---- adhesion ---- */

/* JKR's loss per contact, -U(0) = W(a_c) - W(a_0) along the curve from the touch (a_0^3 = 2 pi w
 * R*^2 / E*) to the let-go under imposed separation (a_c^3 = pi w R*^2 / (8 E*)), W(a) =
 * 8 E* a^5 / (15 R*^2) - 2/3 sqrt(8 pi w E*) a^(7/2) / R* + pi w a^2 (docs/models.md, jkr); equal
 * to 7.09 (w^5 R*^4 / E*^2)^(1/3) */
static double jkr_loss(double w, double rs, double es) {
    const double ac = cbrt(PI * w * rs * rs / (8.0 * es)), a0 = cbrt(2.0 * PI * w * rs * rs / es);
    const double c1 = sqrt(8.0 * PI * w * es);
#define W_OF(a) (8.0 * es * pow(a, 5) / (15.0 * rs * rs) - 2.0 / 3.0 * c1 * pow(a, 3.5) / rs + PI * w * (a) * (a))
    const double loss = W_OF(ac) - W_OF(a0);
#undef W_OF
    return loss;
}

/* a head-on collision under hertz + jkr, undamped: its e_n (NAN: the bodies stuck) */
static int adhesion_run(const calib_opts *o, double w, double v, double *e_n) {
    tl_collide_def d = lab_def(o);
    d.speed = v;
    d.law.normal = "hertz";
    d.law.damping = "none";
    if (tl_law_choose(&d.law, "cohesion", "jkr") != TL_OK || tl_law_set(&d.law, "w_adhesion", w) != TL_OK) return 1;
    tl_collide_result r;
    if (!collide(&d, &r)) return 1;
    *e_n = r.e_n;
    tl_collide_result_free(&r);
    return 0;
}

static int mode_adhesion(calib_opts *o) {
    const int given = !isnan(o->w) + !isnan(o->bond) + !isnan(o->pull_off);
    if (given != 1) return app_usage_error(&CLI, "adhesion needs one of --w, --bond and --pull-off");
    if (!(o->radius > 0.0) || !(o->gravity > 0.0))
        return app_usage_error(&CLI, "adhesion needs radius > 0 m and gravity > 0 m/s2");
    if (!(o->w >= 0.0 || o->bond >= 0.0 || o->pull_off >= 0.0))
        return app_usage_error(&CLI, "the work of adhesion, the Bond number and the pull-off force are >= 0");
    const tl_material_def *b = mat_b_of(o);
    if (!(o->mat_a.youngs_modulus > 0.0) || !(b->youngs_modulus > 0.0))
        return app_usage_error(&CLI, "adhesion needs the Young's moduli (--E or E: in --material)");
    const pair_props p = pair_of(o, 1.0);
    const double es = 1.0 / p.inv_estar, rs = p.r_eff;
    const double weight = (o->has_mass ? o->mass : o->mat_a.density * sphere_volume(o->radius)) * o->gravity;
    const double per_w = (o->jkr ? 1.5 : 2.0) * PI * rs; /* the chosen model's pull-off per unit w */
    double w = o->w;
    if (!isnan(o->bond)) w = o->bond * weight / per_w;
    if (!isnan(o->pull_off)) w = o->pull_off / per_w;
    const double f_dmt = 2.0 * PI * w * rs, f_jkr = 1.5 * PI * w * rs, f_jkr_c = 5.0 / 6.0 * PI * w * rs;
    const double bond = per_w * w / weight, loss = jkr_loss(w, rs, es), v_s = sqrt(2.0 * loss / p.m_eff);
    /* the check: two collisions above the sticking speed, e_n against the ideal's */
    const double fac[2] = {1.5, 3.0};
    double e_run[2] = {NAN, NAN}, e_ideal[2];
    for (int k = 0; k < 2; k++) {
        e_ideal[k] = sqrt(1.0 - 1.0 / (fac[k] * fac[k]));
        if (w > 0.0 && adhesion_run(o, w, fac[k] * v_s, &e_run[k])) return 1;
    }
    if (o->json) {
        printf("{\"model\": \"%s\", ", o->jkr ? "jkr" : "dmt");
        json_num("w_adhesion", w, true);
        json_num("bond", bond, true);
        json_num("pull_off_dmt", f_dmt, true);
        json_num("pull_off_jkr", f_jkr, true);
        json_num("pull_off_jkr_imposed", f_jkr_c, true);
        json_num("jkr_loss", loss, true);
        json_num("sticking_speed", v_s, true);
        json_num("e_n_at_1_5", e_run[0], true);
        json_num("e_n_at_3", e_run[1], false);
        printf("}\n");
        return 0;
    }
    printf("talus calibrate adhesion: %s, R = %g m, R* = %.6g m, m* = %.6g kg, E* = %.6g Pa\n",
           o->wall ? "a sphere on a wall" : "two equal spheres", o->radius, rs, p.m_eff, es);
    printf("  work of adhesion w          %.6g J/m2 (w_adhesion)\n", w);
    printf("  Bond number                 %.6g  (%s pull-off over body a's weight %.6g N)\n", bond,
           o->jkr ? "JKR's" : "DMT's", weight);
    printf("  pull-off, dmt               %.6g N  (2 pi w R*)\n", f_dmt);
    printf("  pull-off, jkr               %.6g N  (3/2 pi w R*, the largest tension); the contact lets go "
           "at %.6g N (5/6 pi w R*)\n", f_jkr, f_jkr_c);
    printf("  jkr: loss per contact       %.6g J  (7.09 (w^5 R*^4 / E*^2)^(1/3))\n", loss);
    printf("  jkr: sticking speed         %.6g m/s  (undamped: sqrt(2 loss / m*); slower pairs stick)\n", v_s);
    for (int k = 0; k < 2 && w > 0.0; k++)
        printf("  check at %.1f v_s             e_n %.6f, ideal sqrt(1 - (v_s/v)^2) = %.6f (%+.2g: the force's "
               "jumps, first order in the step)\n", fac[k], e_run[k], e_ideal[k], e_run[k] - e_ideal[k]);
    return 0;
}

int cmd_calibrate(int argc, char **argv) {
    calib_opts o;
    opts_init(&o);
    int rc = parse_args(&o, argc, argv);
    if (rc >= 0) return rc;
    resolve_materials(&o);
    switch (o.mode) {
    case MODE_ACTM: return mode_actm(&o);
    case MODE_LAMBDA: return mode_lambda(&o);
    case MODE_RESTITUTION: return mode_restitution(&o);
    case MODE_TIMESTEP: return mode_timestep(&o);
    case MODE_ADHESION: return mode_adhesion(&o);
    }
    return 2;
}
