/* The options the lab's commands parse alike; see options.h. */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int app_usage_error(const app_cli *cli, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", cli->prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(%s)\n", cli->hint);
    va_end(ap);
    return 2;
}

/* ---- help ---- */

int app_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) return 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
    }
    return 0;
}

/* ---- arguments ---- */

void app_arg_split(const char *arg, app_arg *a) {
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    snprintf(a->name, sizeof a->name, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
    a->value = eq ? eq + 1 : NULL;
}

int app_arg_value(const app_cli *cli, app_arg *a, bool has_value, int argc, char **argv, int *i) {
    if (has_value && !a->value) {
        if (*i + 1 >= argc) return app_usage_error(cli, "%s needs a value", a->name);
        a->value = argv[++*i];
    } else if (!has_value && a->value) {
        return app_usage_error(cli, "%s takes no value", a->name);
    }
    return 0;
}

/* ---- numbers ---- */

bool app_parse_number(const char *s, double *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v)) return false;
    *out = v;
    return true;
}

int app_number_option(const app_cli *cli, const char *opt, const char *value, double *out) {
    if (!app_parse_number(value, out)) return app_usage_error(cli, "%s needs a number, got '%s'", opt, value);
    return 0;
}

int app_vector_option(const app_cli *cli, const char *opt, const char *value, const char *unit,
                      tl_vec3 *out) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", value);
    double v[3];
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    int n = 0;
    for (; tok && n < 3; tok = strtok_r(NULL, ",", &save)) {
        if (!app_parse_number(tok, &v[n++])) tok = NULL;
        if (!tok) break;
    }
    if (n != 3 || tok || strtok_r(NULL, ",", &save))
        return app_usage_error(cli, "%s needs three numbers X,Y,Z (%s), got '%s'", opt, unit, value);
    *out = (tl_vec3){v[0], v[1], v[2]};
    return 0;
}

/* ---- materials ---- */

static const struct {
    const char *name;
    app_mat_field field;
} MATERIAL_KEYS[] = {
    {"density", APP_MAT_DENSITY}, {"E", APP_MAT_E},       {"youngs_modulus", APP_MAT_E},
    {"nu", APP_MAT_NU},           {"poisson_ratio", APP_MAT_NU}, {"k_n", APP_MAT_KN},
    {"k_t", APP_MAT_KT},          {"yield", APP_MAT_YIELD}, {"yield_stress", APP_MAT_YIELD},
};

bool app_material_key(const char *name, app_mat_field *field) {
    for (size_t i = 0; i < sizeof MATERIAL_KEYS / sizeof MATERIAL_KEYS[0]; i++)
        if (strcmp(MATERIAL_KEYS[i].name, name) == 0) {
            *field = MATERIAL_KEYS[i].field;
            return true;
        }
    return false;
}

static double *material_slot(tl_material_def *m, app_mat_field field) {
    switch (field) {
    case APP_MAT_DENSITY: return &m->density;
    case APP_MAT_E: return &m->youngs_modulus;
    case APP_MAT_NU: return &m->poisson_ratio;
    case APP_MAT_KN: return &m->k_n;
    case APP_MAT_KT: return &m->k_t;
    case APP_MAT_YIELD: return &m->yield_stress;
    }
    return &m->density;
}

void app_material_set(tl_material_def *m, app_mat_field field, double value) {
    *material_slot(m, field) = value;
}

void app_material_unset(tl_material_def *m) {
    for (int f = APP_MAT_DENSITY; f <= APP_MAT_YIELD; f++) *material_slot(m, (app_mat_field)f) = NAN;
}

void app_material_fill(tl_material_def *m, const tl_material_def *base) {
    tl_material_def b = *base;
    for (int f = APP_MAT_DENSITY; f <= APP_MAT_YIELD; f++) {
        double *v = material_slot(m, (app_mat_field)f);
        if (isnan(*v)) *v = *material_slot(&b, (app_mat_field)f);
    }
}

int app_material_option(const app_cli *cli, const char *opt, const char *value, char *name,
                        tl_material_def *m, int *keys_left) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    char *list = buf, *eq = strchr(buf, '=');
    if (eq) {
        *eq = '\0';
        if (!buf[0] || strlen(buf) >= APP_NAME_LEN)
            return app_usage_error(cli, "%s: bad material name in '%s'", opt, value);
        snprintf(name, APP_NAME_LEN, "%.*s", APP_NAME_LEN - 1, buf);
        list = eq + 1;
    }
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        app_mat_field f;
        double v;
        if (!colon) return app_usage_error(cli, "%s: '%s' is not KEY:VALUE", opt, tok);
        *colon = '\0';
        if (!app_material_key(tok, &f))
            return app_usage_error(cli, "%s: unknown material key '%s' (density, E, nu, k_n, k_t, yield)", opt,
                                   tok);
        if (!app_parse_number(colon + 1, &v))
            return app_usage_error(cli, "%s: '%s' is not a number", opt, colon + 1);
        if (keys_left && (*keys_left)-- <= 0)
            return app_usage_error(cli, "%s: too many keys in '%s'", opt, value);
        app_material_set(m, f, v);
    }
    return 0;
}

/* ---- laws ---- */

/* the registry's names for a slot, "a, b, c" */
static void list_models(tl_slot slot, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < tl_registry_count(); i++) {
        const tl_submodel_info *m = tl_registry_get(i);
        if (m->slot != slot) continue;
        int k = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", m->name);
        if (k < 0 || (size_t)k >= size - used) break;
        used += (size_t)k;
    }
}

int app_law_slot(const app_cli *cli, app_law_names *ln, tl_slot slot, const char *name) {
    if (!tl_registry_find(slot, name)) {
        char known[1024];
        list_models(slot, known, sizeof known);
        fprintf(stderr, "%s: unknown %s model '%s' (known: %s)\n", cli->prog, tl_slot_name(slot), name, known);
        return 2;
    }
    snprintf(ln->slot[slot], APP_NAME_LEN, "%s", name);
    ln->given[slot] = true;
    return 0;
}

bool app_slot_shown(const tl_law_def *law, int slot, const char **model) {
    const char *m = tl_law_model(law, (tl_slot)slot);
    *model = m ? m : "none";
    return slot <= TL_SLOT_HISTORY || strcmp(*model, "none") != 0;
}

int app_law_spec(const app_cli *cli, app_law_names *ln, const char *spec, const char *sep) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", spec);
    memset(ln, 0, sizeof *ln);
    char *save = NULL;
    int s = 0;
    for (char *tok = strtok_r(buf, sep, &save); tok; tok = strtok_r(NULL, sep, &save), s++) {
        if (s >= TL_SLOT_COUNT) return app_usage_error(cli, "law '%s' has more parts than the law has slots (%d)", spec, TL_SLOT_COUNT);
        if (app_law_slot(cli, ln, (tl_slot)s, tok)) return 2;
    }
    if (s == 0) return app_usage_error(cli, "empty law '%s'", spec);
    return 0;
}

/* ---- coefficients ---- */

int app_coef_add(const app_cli *cli, app_coefs *c, const char *name, double value) {
    for (int i = 0; i < c->count; i++)
        if (strcmp(c->names[i], name) == 0) {
            c->values[i] = value;
            return 0;
        }
    if (c->count >= TL_LAW_MAX_COEFFS) return app_usage_error(cli, "too many coefficients");
    snprintf(c->names[c->count], APP_NAME_LEN, "%s", name);
    c->values[c->count++] = value;
    return 0;
}

int app_coef_option(const app_cli *cli, app_coefs *c, const char *opt, const char *value) {
    const char *eq = strchr(value, '=');
    double v;
    if (!eq || eq == value || (size_t)(eq - value) >= APP_NAME_LEN)
        return app_usage_error(cli, "%s needs NAME=VALUE, got '%s'", opt, value);
    if (!app_parse_number(eq + 1, &v)) return app_usage_error(cli, "%s: '%s' is not a number", opt, eq + 1);
    char name[APP_NAME_LEN];
    snprintf(name, sizeof name, "%.*s", (int)(eq - value), value);
    return app_coef_add(cli, c, name, v);
}
