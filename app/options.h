/* What the lab's commands (talus collide, talus calibrate) parse alike: options and their
 * values, numbers and vectors, materials as [NAME=]KEY:VALUE,..., law names checked against
 * the registry, and --coef NAME=VALUE. Every function that refuses a value prints why on stderr, as
 * the command named by its app_cli, and returns the exit status of a usage error (2);
 * it returns 0 when the value is taken. Also --help, which every command looks for
 * (app_wants_help). */
#ifndef TALUS_APP_OPTIONS_H
#define TALUS_APP_OPTIONS_H

#include <stdbool.h>

#include "talus/talus.h"

#define APP_NAME_LEN 64 /* material, coefficient and sub-model names, with the '\0' */

/* the command refusing: "PROG: <message>\n(HINT)\n" */
typedef struct app_cli {
    const char *prog; /* "talus collide" */
    const char *hint; /* "talus collide --help lists the options" */
} app_cli;

/* prints the message as above, and returns 2 */
int app_usage_error(const app_cli *cli, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- help ---- */

/* --help or -h anywhere among a subcommand's arguments (before a lone "--"). */
int app_wants_help(int argc, char **argv);

/* ---- arguments ---- */

/* an option on the command line: --NAME, --NAME=VALUE or --NAME VALUE */
typedef struct app_arg {
    char name[APP_NAME_LEN]; /* the argument up to the '=' of --NAME=VALUE, cut to fit */
    const char *value;       /* VALUE; NULL for none */
} app_arg;

/* arg into name and the value after '=' */
void app_arg_split(const char *arg, app_arg *a);
/* an option that has_value takes the value after '=', or else the next argument (*i moves on
 * to it): "NAME needs a value" without one; one without must have none: "NAME takes no value" */
int app_arg_value(const app_cli *cli, app_arg *a, bool has_value, int argc, char **argv, int *i);

/* ---- numbers ---- */

/* the whole of s, a finite number */
bool app_parse_number(const char *s, double *out);
/* "OPT needs a number, got 'VALUE'" */
int app_number_option(const app_cli *cli, const char *opt, const char *value, double *out);
/* X,Y,Z: "OPT needs three numbers X,Y,Z (UNIT), got 'VALUE'" */
int app_vector_option(const app_cli *cli, const char *opt, const char *value, const char *unit,
                      tl_vec3 *out);

/* ---- materials ---- */

typedef enum app_mat_field {
    APP_MAT_DENSITY,
    APP_MAT_E,
    APP_MAT_NU,
    APP_MAT_KN,
    APP_MAT_KT,
    APP_MAT_YIELD
} app_mat_field;

/* the keys: density, E (youngs_modulus), nu (poisson_ratio), k_n, k_t, yield (yield_stress) */
bool app_material_key(const char *name, app_mat_field *field);
void app_material_set(tl_material_def *m, app_mat_field field, double value);
/* every key NAN: not given */
void app_material_unset(tl_material_def *m);
/* the keys of m not given (NAN) taken from base */
void app_material_fill(tl_material_def *m, const tl_material_def *base);

/* [NAME=]KEY:VALUE,... into m, the name copied into name (APP_NAME_LEN). keys_left: how
 * many more pairs may be given, counted down (NULL: no limit). */
int app_material_option(const app_cli *cli, const char *opt, const char *value, char *name,
                        tl_material_def *m, int *keys_left);

/* ---- laws ---- */

/* the sub-model names of a law, as named on the command line */
typedef struct app_law_names {
    char slot[TL_SLOT_COUNT][APP_NAME_LEN];
    bool given[TL_SLOT_COUNT];
} app_law_names;

/* one sub-model, a name of the registry for that slot; else "PROG: unknown SLOT model
 * 'NAME' (known: ...)", listing the registry's names */
int app_law_slot(const app_cli *cli, app_law_names *ln, tl_slot slot, const char *name);
/* Whether a law's line shows a slot: the first four (normal .. history) always, a later, optional
 * one (rolling, twisting, cohesion) when the law uses it; *model its model ("none" when unset). */
bool app_slot_shown(const tl_law_def *law, int slot, const char **model);
/* NORMAL[<sep>DAMPING[<sep>TANGENTIAL[<sep>HISTORY]]]: ln cleared, then the slots named */
int app_law_spec(const app_cli *cli, app_law_names *ln, const char *spec, const char *sep);

/* ---- coefficients ---- */

typedef struct app_coefs {
    char names[TL_LAW_MAX_COEFFS][APP_NAME_LEN];
    double values[TL_LAW_MAX_COEFFS];
    int count;
} app_coefs;

/* name = value, replacing a value given before */
int app_coef_add(const app_cli *cli, app_coefs *c, const char *name, double value);
/* --coef NAME=VALUE */
int app_coef_option(const app_cli *cli, app_coefs *c, const char *opt, const char *value);

#endif
