/*
 * Scene loading: a YAML file (docs/scene.md) becomes a world plus its plan.
 *
 * Everything is validated while loading, each problem reported at the line
 * and column of the key or value it concerns; the world is filled through
 * the public API only and prepared at the end, so that law, material and
 * time-step problems surface at load too. Loading creates no file.
 * The `particles:` entries are read in scene_particles.c; running the plan
 * is in run.c. A scene with inflows may be loaded twice: when the particles
 * they will insert need a shorter automatic step (or a smaller automatic
 * skin) than the world chose from the particles it has, the second pass
 * creates the world with that step.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes.h"
#include "law.h"
#include "loader.h"
#include "output_kinds.h"
#include "rng.h"
#include "scene_particles.h"
#include "scene_plan.h"
#include "scene_shapes.h"
#include "yaml_doc.h"

#define MAX_MATERIALS TL_LOAD_MAX_MATERIALS

/* one entry of `laws:` */
typedef struct tl_law_entry {
    tl_law_def def;
    int a, b;       /* material indices, -1 = any; a is the specific one when only one is */
    int level;      /* 0 = [any, any], 1 = one `any`, 2 = two materials */
    tl_yval at;     /* the entry */
    tl_yval between;
} law_entry;

typedef tl_loader loader;

/* the limits on a stage's steps and on integrator.steps_per_contact (docs/scene.md) */
#define TL_SCENE_MAX_STEPS 1e15
#define TL_SCENE_MAX_STEPS_PER_CONTACT 1e6

static const char *const top_keys[] = {"talus",     "name",      "units",        "seed",
                                       "domain",    "gravity",   "integrator",   "neighbor",
                                       "threads",   "track_energy", "track_orientation",
                                       "materials", "laws",      "particles",    "walls",
                                       "stages",    "outputs",   "checkpoint", "shapes",
                                       "allow_initial_overlaps", "allow_outside_paths", "blowup"};

/* ---- header: talus, units, name, seed ---- */

static int read_version(loader *L) {
    tl_yval v;
    tl_ymap_get(&L->root, "talus", &v);
    if (!v.node) return 0;
    int64_t version;
    if (tl_yint(&L->doc, &v, 1, INT64_MAX, &version)) return -1;
    if (version != 1)
        return tl_yfail(&L->doc, &v,
                        "unsupported scene format version %lld; this build of Talus reads version 1",
                        (long long)version);
    return 0;
}

static int read_units(loader *L) {
    tl_yval v;
    tl_ymap_get(&L->root, "units", &v);
    if (!v.node) return 0;
    const char *units;
    if (tl_ystring(&L->doc, &v, "SI", &units)) return -1;
    if (strcmp(units, "SI") != 0)
        return tl_yfail(&L->doc, &v,
                        "only SI units are supported (m, kg, s, N, Pa, J), got '%.64s'; write "
                        "units: SI and give every value in SI",
                        units);
    return 0;
}

/* the file's base name without its extension */
static char *default_title(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base) n = (size_t)(dot - base);
    if (n == 0) return tl_load_copy_string("scene");
    char *t = malloc(n + 1);
    if (!t) return NULL;
    memcpy(t, base, n);
    t[n] = '\0';
    return t;
}

/* lowercase, [a-z0-9-_] only, other runs become one '-' */
static char *make_slug(const char *title) {
    size_t n = strlen(title), k = 0;
    char *s = malloc(n + 6);
    if (!s) return NULL;
    bool dash = false;
    for (size_t i = 0; i < n; i++) {
        int c = tolower((unsigned char)title[i]);
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (ok) {
            s[k++] = (char)c;
            dash = c == '-';
        } else if (k > 0 && !dash) {
            s[k++] = '-';
            dash = true;
        }
    }
    while (k > 0 && s[k - 1] == '-') k--;
    if (k == 0) {
        memcpy(s, "scene", 6);
        return s;
    }
    s[k] = '\0';
    return s;
}

static int read_title(loader *L) {
    const char *title = NULL;
    if (tl_ykey_string(&L->doc, &L->root, "name", false, "a scene title", &title)) return -1;
    L->scene->title = title ? tl_load_copy_string(title) : default_title(L->scene->path);
    if (!L->scene->title) return tl_load_out_of_memory(L);
    L->scene->slug = make_slug(L->scene->title);
    return L->scene->slug ? 0 : tl_load_out_of_memory(L);
}

static int read_header(loader *L) {
    if (read_version(L) || read_units(L) || read_title(L)) return -1;
    tl_yval v;
    tl_ymap_get(&L->root, "seed", &v);
    if (v.node && tl_yuint64(&L->doc, &v, &L->def.seed)) return -1;
    if (tl_ykey_bool(&L->doc, &L->root, "allow_initial_overlaps", &L->def.allow_initial_overlaps)) return -1;
    if (tl_ykey_bool(&L->doc, &L->root, "allow_outside_paths", &L->allow_outside)) return -1;
    tl_rng_seed(&L->rng, L->def.seed ^ 0x6c61747469636521ull); /* "lattice!" */
    return 0;
}

/* ---- world definition: domain, gravity, integrator, neighbor ---- */

/* periodic: [x, z] (or one axis name) */
static const char *const periodic_axes[] = {"x", "y", "z"};

static int read_periodic(loader *L, const tl_yval *domain) {
    const char *what = "a sequence of axis names, any of x, y, z, e.g. [x, y]";
    tl_yval v;
    tl_ymap_get(domain, "periodic", &v);
    if (!v.node) return 0;
    if (tl_yis_scalar(&v)) {
        int a;
        if (tl_ychoice(&L->doc, &v, periodic_axes, COUNT_OF(periodic_axes), &a)) return -1;
        L->def.periodic[a] = true;
        return 0;
    }
    if (tl_yseq_expect(&L->doc, &v, what)) return -1;
    tl_yiter it = {0};
    tl_yval e;
    while (tl_yseq_next(&v, &it, &e)) {
        int a;
        if (tl_ychoice(&L->doc, &e, periodic_axes, COUNT_OF(periodic_axes), &a)) return -1;
        if (L->def.periodic[a])
            return tl_yfail(&L->doc, &e, "axis %s is listed twice", periodic_axes[a]);
        L->def.periodic[a] = true;
    }
    return 0;
}

static const char *const domain_keys[] = {"min", "max", "periodic"};

static int read_domain(loader *L) {
    tl_yval m;
    tl_ymap_get(&L->root, "domain", &m);
    if (!m.node) return 0;
    if (tl_ymap_expect(&L->doc, &m,
                       "a mapping {min: [x, y, z], max: [x, y, z], periodic: [axes]} (m)") ||
        tl_ymap_check_keys(&L->doc, &m, domain_keys, COUNT_OF(domain_keys), NULL) ||
        tl_ykey_vec3(&L->doc, &m, "min", true, "m", &L->def.domain_min) ||
        tl_ykey_vec3(&L->doc, &m, "max", true, "m", &L->def.domain_max) || read_periodic(L, &m))
        return -1;
    const double lo[3] = {L->def.domain_min.x, L->def.domain_min.y, L->def.domain_min.z};
    const double hi[3] = {L->def.domain_max.x, L->def.domain_max.y, L->def.domain_max.z};
    for (int k = 0; k < 3; k++)
        if (!(hi[k] > lo[k]))
            return tl_yfail(&L->doc, &m, "min must be below max in every axis, but %c: %g >= %g",
                            "xyz"[k], lo[k], hi[k]);
    L->def.has_domain = true;
    return 0;
}

static int read_dt(loader *L, const tl_yval *integrator) {
    tl_yval v;
    tl_ymap_get(integrator, "dt", &v);
    L->dt_at = v;
    if (!v.node) return 0;
    const char *s = tl_yscalar(&v);
    if (s && strcmp(s, "auto") == 0) {
        L->def.dt = 0.0;
        return 0;
    }
    if (tl_ynumber(&L->doc, &v, ABOVE(0.0, "s"), &L->def.dt))
        return tl_yexpected(&L->doc, &v, "a number > 0 (s) or auto");
    return 0;
}

static const char *const integrator_keys[] = {"scheme",       "dt",
                                              "steps_per_contact", "impact_speed",
                                              "allow_unresolved_contacts", "contact_boundary_correction"};
/* in tl_integrator order */
static const char *const integrator_schemes[] = {"verlet", "leapfrog", "predictor-corrector"};

static int read_integrator(loader *L) {
    tl_yval m, v;
    tl_ymap_get(&L->root, "integrator", &m);
    L->integrator_at = m;
    if (!m.node) return 0;
    if (tl_ymap_expect(&L->doc, &m, "a mapping {scheme, dt, steps_per_contact, ...}") ||
        tl_ymap_check_keys(&L->doc, &m, integrator_keys, COUNT_OF(integrator_keys), NULL))
        return -1;
    tl_ymap_get(&m, "scheme", &v);
    int scheme = 0;
    if (v.node && tl_ychoice(&L->doc, &v, integrator_schemes, COUNT_OF(integrator_schemes), &scheme)) return -1;
    L->def.integrator = scheme == 2   ? TL_INTEGRATOR_PREDICTOR_CORRECTOR
                       : scheme == 1 ? TL_INTEGRATOR_LEAPFROG
                                     : TL_INTEGRATOR_VERLET;
    if (read_dt(L, &m) ||
        tl_ykey_number(&L->doc, &m, "steps_per_contact", false,
                       &(tl_yrange){1.0, TL_SCENE_MAX_STEPS_PER_CONTACT, false, false, ""},
                       &L->def.steps_per_contact) ||
        tl_ykey_number(&L->doc, &m, "impact_speed", false, AT_LEAST(0.0, "m/s"),
                       &L->def.impact_speed) ||
        tl_ykey_bool(&L->doc, &m, "allow_unresolved_contacts", &L->def.allow_unresolved_contacts) ||
        tl_ykey_bool(&L->doc, &m, "contact_boundary_correction",
                     &L->def.contact_boundary_correction))
        return -1;
    return 0;
}

static const char *const neighbor_keys[] = {"skin", "reorder_every", "domain_size"};

static int read_neighbor(loader *L) {
    tl_yval m, v;
    tl_ymap_get(&L->root, "neighbor", &m);
    if (!m.node) return 0;
    if (tl_ymap_expect(&L->doc, &m, "a mapping {skin: <m>, reorder_every: <builds>, domain_size: <particles>}") ||
        tl_ymap_check_keys(&L->doc, &m, neighbor_keys, COUNT_OF(neighbor_keys), NULL) ||
        tl_ykey_number(&L->doc, &m, "skin", false, AT_LEAST(0.0, "m"), &L->def.skin))
        return -1;
    tl_ymap_get(&m, "reorder_every", &v);
    int64_t every = 0;
    if (v.node && tl_yint(&L->doc, &v, INT32_MIN, INT32_MAX, &every)) return -1;
    if (v.node) L->def.reorder_every = (int)every;
    tl_ymap_get(&m, "domain_size", &v);
    int64_t ds = 0;
    if (v.node && tl_yint(&L->doc, &v, 64, INT32_MAX, &ds)) return -1;
    if (v.node) L->def.domain_size = (uint32_t)ds;
    return 0;
}

/* blowup: {every: steps (< 0 = never), overlap: fraction of the smaller radius (0 = off),
 * energy: factor (0 = off)} */
static const char *const blowup_keys[] = {"every", "overlap", "energy"};

static int read_blowup(loader *L) {
    tl_yval m, v;
    tl_ymap_get(&L->root, "blowup", &m);
    if (!m.node) return 0;
    if (tl_ymap_expect(&L->doc, &m, "a mapping {every: <steps>, overlap: <fraction>, energy: <factor>}") ||
        tl_ymap_check_keys(&L->doc, &m, blowup_keys, COUNT_OF(blowup_keys), NULL) ||
        tl_ykey_number(&L->doc, &m, "overlap", false, AT_LEAST(0.0, ""), &L->def.blowup_overlap) ||
        tl_ykey_number(&L->doc, &m, "energy", false, AT_LEAST(0.0, ""), &L->def.blowup_energy))
        return -1;
    tl_ymap_get(&m, "every", &v);
    int64_t every = 0;
    if (v.node && tl_yint(&L->doc, &v, INT32_MIN, INT32_MAX, &every)) return -1;
    if (v.node) L->def.blowup_every = (int)every;
    return 0;
}

/* threads: N (0 = all cores), track_energy, track_orientation: bool */
static int read_run_keys(loader *L) {
    tl_yval v;
    tl_ymap_get(&L->root, "threads", &v);
    int64_t threads = 0;
    if (v.node && tl_yint(&L->doc, &v, 0, 4096, &threads)) return -1;
    if (v.node) L->def.threads = (int)threads;
    return tl_ykey_bool(&L->doc, &L->root, "track_energy", &L->def.track_energy) ||
           tl_ykey_bool(&L->doc, &L->root, "track_orientation", &L->def.track_orientation);
}

static int create_world(loader *L) {
    if (read_domain(L) || tl_ykey_vec3(&L->doc, &L->root, "gravity", false, "m/s2", &L->def.gravity) ||
        read_integrator(L) || read_neighbor(L) || read_run_keys(L) || read_blowup(L))
        return -1;
    if (L->forced) { /* the second pass: what the inflows need */
        if (L->forced_dt > 0.0) L->def.dt = L->forced_dt;
        if (L->forced_skin > 0.0) L->def.skin = L->forced_skin;
    }
    L->scene->def = L->def;
    tl_world *w = NULL;
    tl_status s = tl_world_create(&L->def, &w);
    L->scene->world = L->world = w;
    if (!w) return tl_load_out_of_memory(L);
    if (s != TL_OK)
        return tl_yfail(&L->doc, L->integrator_at.node ? &L->integrator_at : NULL, "%s",
                        tl_world_error(w));
    return 0;
}

/* ---- materials ---- */

static const char *const material_keys[] = {"density", "youngs_modulus", "poisson_ratio",
                                            "k_n",     "k_t",            "yield_stress"};

static int read_material(loader *L, const char *name, const tl_yval *v) {
    if (strcmp(name, "any") == 0)
        return tl_yfail(&L->doc, v, "'any' cannot name a material: in laws it matches every "
                                    "material");
    tl_material_def md = tl_material_default();
    md.name = name;
    if (tl_ymap_expect(&L->doc, v, "a mapping of material properties {density, youngs_modulus, ...}") ||
        tl_ymap_check_keys(&L->doc, v, material_keys, COUNT_OF(material_keys), NULL) ||
        tl_ykey_number(&L->doc, v, "density", false, ABOVE(0.0, "kg/m3"), &md.density) ||
        tl_ykey_number(&L->doc, v, "youngs_modulus", false, ABOVE(0.0, "Pa"), &md.youngs_modulus) ||
        tl_ykey_number(&L->doc, v, "poisson_ratio", false, &(tl_yrange){-1.0, 0.5, true, true, ""},
                       &md.poisson_ratio) ||
        tl_ykey_number(&L->doc, v, "k_n", false, ABOVE(0.0, "N/m"), &md.k_n) ||
        tl_ykey_number(&L->doc, v, "k_t", false, ABOVE(0.0, "N/m"), &md.k_t) ||
        tl_ykey_number(&L->doc, v, "yield_stress", false, ABOVE(0.0, "Pa"), &md.yield_stress))
        return -1;
    int index;
    if (tl_world_add_material(L->world, &md, &index) != TL_OK)
        return tl_yfail(&L->doc, v, "%s", tl_world_error(L->world));
    if (index >= 0 && index < MAX_MATERIALS) L->density[index] = md.density;
    return 0;
}

static int read_materials(loader *L) {
    const char *what = "a mapping of material names to their properties, e.g. sand: {density: "
                       "2500, youngs_modulus: 5.0e6, poisson_ratio: 0.3}";
    tl_yval m;
    tl_ymap_get(&L->root, "materials", &m);
    if (!m.node) return tl_ymissing(&L->doc, &m, what);
    if (tl_ymap_expect(&L->doc, &m, what)) return -1;
    size_t n = tl_ymap_count(&m);
    if (n == 0) return tl_yexpected(&L->doc, &m, "at least one material");
    if (n > MAX_MATERIALS) return tl_yfail(&L->doc, &m, "at most %d materials", MAX_MATERIALS);
    for (size_t i = 0; i < n; i++) {
        const char *name;
        tl_yval key, value;
        tl_ymap_entry(&m, i, &name, &key, &value);
        if (!tl_yis_scalar(&key) || !name[0])
            return tl_yexpected(&L->doc, &key, "material names as keys");
        if (read_material(L, name, &value)) return -1;
    }
    return 0;
}

/* ---- laws: one entry ---- */

/* the slots' keys and a law's keys (the slots' from their table: laws/slots.h) */
static const char *const slot_keys[TL_SLOT_COUNT] = {TL_SLOTS(TL_SLOT_KEY)};
static const char *const law_option_keys[] = {"between", TL_SLOTS(TL_SLOT_KEY) "clamp_tensile", "coulomb_test",
                                              "contact_point", "entry_displacement"};

static size_t slot_model_names(tl_slot slot, const char **names, size_t cap) {
    size_t n = 0;
    for (int i = 0; i < tl_registry_count() && n < cap; i++) {
        const tl_submodel_info *info = tl_registry_get(i);
        if (info && info->slot == slot) names[n++] = info->name;
    }
    return n;
}

static const char *material_label(const loader *L, int m) {
    return m < 0 ? "any" : tl_world_material_name(L->world, m);
}

static int read_between(loader *L, const tl_yval *entry, law_entry *le) {
    const char *what = "a sequence of two material names, e.g. [sand, steel] (any matches every "
                       "material)";
    tl_yval b;
    tl_ymap_get(entry, "between", &b);
    le->between = b;
    if (!b.node) return tl_ymissing(&L->doc, &b, what);
    if (!tl_yis_seq(&b) || tl_yseq_count(&b) != 2) return tl_yexpected(&L->doc, &b, what);
    int m[2];
    for (size_t k = 0; k < 2; k++) {
        tl_yval e;
        tl_yseq_at(&b, k, &e);
        if (tl_load_material(L, &e, true, &m[k])) return -1;
    }
    bool swap = m[0] < 0 || (m[1] >= 0 && m[1] < m[0]);
    le->a = swap ? m[1] : m[0];
    le->b = swap ? m[0] : m[1];
    le->level = (le->a >= 0) + (le->b >= 0);
    return 0;
}

static int check_pair_unique(loader *L, size_t i) {
    const law_entry *le = &L->laws[i];
    for (size_t j = 0; j < i; j++) {
        const law_entry *o = &L->laws[j];
        if (o->a != le->a || o->b != le->b) continue;
        return tl_yfail(&L->doc, &le->between,
                        "the pair [%s, %s] already has a law: laws[%zu] (line %d); give each pair "
                        "one entry",
                        material_label(L, le->a), material_label(L, le->b), j, o->at.line);
    }
    return 0;
}

/* history: true / false (none) / pseudo / none */
static const char *history_alias(const char *s) {
    if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "yes") == 0) return "true";
    if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "no") == 0) return "none";
    return s;
}

static int read_model(loader *L, const tl_yval *entry, tl_slot slot, const char **out) {
    const char *names[64];
    size_t n = slot_model_names(slot, names, COUNT_OF(names));
    tl_yval v;
    tl_ymap_get(entry, slot_keys[slot], &v);
    *out = NULL;
    if (!v.node) {
        if (tl_slot_get(slot)->default_model) return 0; /* else the law must name one */
        char what[256], list[200];
        size_t used = 0;
        list[0] = '\0';
        for (size_t i = 0; i < n; i++) {
            int k = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
            if (k < 0 || (size_t)k >= sizeof list - used) break;
            used += (size_t)k;
        }
        snprintf(what, sizeof what, "a %s model, one of: %s", slot_keys[slot], list);
        return tl_ymissing(&L->doc, &v, what);
    }
    const char *name;
    if (tl_ystring(&L->doc, &v, "a model name", &name)) return -1;
    if (slot == TL_SLOT_HISTORY) name = history_alias(name);
    const tl_submodel_info *info = tl_registry_find(slot, name);
    if (!info) {
        char what[32];
        snprintf(what, sizeof what, "%s model", tl_slot_name(slot));
        return tl_yunknown_name(&L->doc, &v, what, name, names, n);
    }
    *out = info->name; /* the registry's string outlives the document */
    return 0;
}

/* the sub-models a law definition resolves to, with the slots' defaults */
static void law_models(const tl_law_def *d, const tl_submodel_info *sub[TL_SLOT_COUNT]) {
    for (int s = 0; s < TL_SLOT_COUNT; s++) sub[s] = tl_registry_find((tl_slot)s, tl_law_model(d, (tl_slot)s));
}

/* the keys a law takes: its options, then the coefficients of its sub-models */
static size_t law_keys(const tl_submodel_info *const sub[TL_SLOT_COUNT], const char **keys,
                       size_t cap, size_t *first_coeff) {
    size_t n = 0;
    for (size_t i = 0; i < COUNT_OF(law_option_keys) && n < cap; i++) keys[n++] = law_option_keys[i];
    *first_coeff = n;
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        for (int c = 0; sub[s] && c < sub[s]->coeff_count && n < cap; c++) {
            const char *name = sub[s]->coeffs[c].name;
            bool seen = false;
            for (size_t k = *first_coeff; k < n; k++) seen = seen || strcmp(keys[k], name) == 0;
            if (!seen) keys[n++] = name;
        }
    }
    return n;
}

static bool coeff_in_range(const tl_coeff_info *ci, double v) {
    if (ci->min_open ? !(v > ci->min) : !(v >= ci->min)) return false;
    if (ci->max_open ? !(v < ci->max) : !(v <= ci->max)) return false;
    return true;
}

static int read_coeff(loader *L, const tl_yval *entry, const tl_submodel_info *const sub[],
                      const char *name, tl_law_def *def) {
    tl_yval v;
    tl_ymap_get(entry, name, &v);
    if (!v.node) return 0;
    double x;
    if (tl_ynumber(&L->doc, &v, NULL, &x)) return -1;
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        for (int c = 0; c < sub[s]->coeff_count; c++) {
            const tl_coeff_info *ci = &sub[s]->coeffs[c];
            if (strcmp(ci->name, name) != 0 || coeff_in_range(ci, x)) continue;
            char range[192];
            tl_coeff_range_text(ci, range, sizeof range);
            return tl_yfail(&L->doc, &v, "%s is out of range: %s (%s)", tl_yscalar(&v), range,
                            ci->meaning);
        }
    }
    if (tl_law_set(def, name, x) != TL_OK)
        return tl_yfail(&L->doc, &v, "too many coefficients (at most %d)", TL_LAW_MAX_COEFFS);
    return 0;
}

/* in the order of tl_coulomb_test, tl_contact_point and tl_entry_displacement */
static const char *const coulomb_tests[] = {"total", "spring", "spring-capped", "lammps", "liggghts"};
static const char *const contact_points[] = {"compliance", "surface"};
static const char *const entry_displacements[] = {"in-contact", "whole-step"};

static int read_law_options(loader *L, const tl_yval *entry, tl_law_def *def) {
    static const tl_coulomb_test test_of[] = {TL_COULOMB_TOTAL, TL_COULOMB_SPRING, TL_COULOMB_SPRING_CAPPED,
                                              TL_COULOMB_LAMMPS, TL_COULOMB_LIGGGHTS};
    if (tl_ykey_bool(&L->doc, entry, "clamp_tensile", &def->clamp_tensile)) return -1;
    tl_yval v;
    tl_ymap_get(entry, "coulomb_test", &v);
    int test = 0;
    if (v.node && tl_ychoice(&L->doc, &v, coulomb_tests, COUNT_OF(coulomb_tests), &test)) return -1;
    def->coulomb_test = test_of[test];
    tl_ymap_get(entry, "contact_point", &v);
    int point = 0;
    if (v.node && tl_ychoice(&L->doc, &v, contact_points, COUNT_OF(contact_points), &point)) return -1;
    def->contact_point = point == 1 ? TL_CONTACT_POINT_SURFACE : TL_CONTACT_POINT_COMPLIANCE;
    tl_ymap_get(entry, "entry_displacement", &v);
    int ent = 0;
    if (v.node && tl_ychoice(&L->doc, &v, entry_displacements, COUNT_OF(entry_displacements), &ent)) return -1;
    def->entry_displacement = ent == 1 ? TL_ENTRY_WHOLE_STEP : TL_ENTRY_IN_CONTACT;
    return 0;
}

static int read_law_keys(loader *L, const tl_yval *entry, tl_law_def *def) {
    const tl_submodel_info *sub[TL_SLOT_COUNT];
    law_models(def, sub);
    const char *keys[COUNT_OF(law_option_keys) + TL_SLOT_COUNT * TL_MAX_SUB_COEFFS];
    size_t first, n = law_keys(sub, keys, COUNT_OF(keys), &first);
    char extra[512];
    const char *names[TL_SLOT_COUNT];
    for (int s = 0; s < TL_SLOT_COUNT; s++) names[s] = sub[s]->name;
    char models[256];
    tl_slot_models_text(names, models, sizeof models);
    int k = snprintf(extra, sizeof extra, "; %s take %s", models, n == first ? "no coefficients" : "the coefficients ");
    size_t used = k > 0 ? (size_t)k : 0;
    for (size_t i = first; i < n && used < sizeof extra; i++) {
        k = snprintf(extra + used, sizeof extra - used, "%s%s", i > first ? ", " : "", keys[i]);
        if (k < 0 || (size_t)k >= sizeof extra - used) break;
        used += (size_t)k;
    }
    if (tl_ymap_check_keys(&L->doc, entry, keys, n, extra) || read_law_options(L, entry, def))
        return -1;
    for (size_t i = first; i < n; i++)
        if (read_coeff(L, entry, sub, keys[i], def)) return -1;
    return 0;
}

static int read_law(loader *L, const tl_yval *entry, law_entry *le) {
    if (tl_ymap_expect(&L->doc, entry, "a law mapping {between: [a, b], normal: <model>, ...}"))
        return -1;
    le->at = *entry;
    le->def = tl_law_default();
    if (read_between(L, entry, le)) return -1;
    for (int s = 0; s < TL_SLOT_COUNT; s++)
        if (read_model(L, entry, (tl_slot)s, tl_law_def_slot(&le->def, s))) return -1;
    return read_law_keys(L, entry, &le->def);
}

static int read_laws(loader *L) {
    const char *what = "a sequence of contact laws, e.g. - {between: [sand, sand], normal: hertz, "
                       "damping: tsuji, e: 0.5}";
    tl_yval s;
    tl_ymap_get(&L->root, "laws", &s);
    L->laws_at = s;
    if (!s.node) return tl_ymissing(&L->doc, &s, what);
    if (tl_yseq_expect(&L->doc, &s, what)) return -1;
    size_t n = tl_yseq_count(&s);
    if (n == 0) return tl_yexpected(&L->doc, &s, "at least one contact law");
    L->laws = calloc(n, sizeof *L->laws);
    if (!L->laws) return tl_load_out_of_memory(L);
    tl_yiter it = {0};
    tl_yval e;
    while (tl_yseq_next(&s, &it, &e)) {
        size_t i = it.index;
        if (read_law(L, &e, &L->laws[i])) return -1;
        L->nlaws = i + 1;
        if (check_pair_unique(L, i)) return -1;
    }
    return 0;
}

/* ---- laws: applying them to material pairs ---- */

static bool law_covers(const law_entry *le, int a, int b) {
    bool fwd = (le->a < 0 || le->a == a) && (le->b < 0 || le->b == b);
    bool rev = (le->a < 0 || le->a == b) && (le->b < 0 || le->b == a);
    return fwd || rev;
}

/* the most specific entry covering a pair; two of that specificity tie */
static int pair_entry(loader *L, int a, int b, int *out) {
    int best = -1, tie = -1;
    for (size_t i = 0; i < L->nlaws; i++) {
        const law_entry *le = &L->laws[i];
        if (!law_covers(le, a, b)) continue;
        if (best < 0 || le->level > L->laws[best].level) {
            best = (int)i;
            tie = -1;
        } else if (le->level == L->laws[best].level && tie < 0) {
            tie = (int)i;
        }
    }
    *out = best;
    if (tie < 0) return 0;
    const char *na = material_label(L, a), *nb = material_label(L, b);
    return tl_yfail(&L->doc, &L->laws[tie].between,
                    "laws[%d] and laws[%d] both cover the pair [%s, %s] and neither is more "
                    "specific; add an entry with between: [%s, %s]",
                    best, tie, na, nb, na, nb);
}

static int resolve_pairs(loader *L, int nm) {
    L->pair_law = malloc((size_t)nm * (size_t)nm * sizeof *L->pair_law);
    if (!L->pair_law) return tl_load_out_of_memory(L);
    for (int a = 0; a < nm; a++)
        for (int b = a; b < nm; b++) {
            int e;
            if (pair_entry(L, a, b, &e)) return -1;
            L->pair_law[a * nm + b] = L->pair_law[b * nm + a] = e;
        }
    return 0;
}

/* every entry is given to the world for all its pairs, least specific first,
 * so that each is checked even when a more specific one overrides it */
static int apply_laws(loader *L) {
    int nm = tl_world_material_count(L->world);
    if (resolve_pairs(L, nm)) return -1;
    for (int level = 0; level <= 2; level++)
        for (size_t i = 0; i < L->nlaws; i++) {
            const law_entry *le = &L->laws[i];
            if (le->level != level) continue;
            for (int a = 0; a < nm; a++)
                for (int b = a; b < nm; b++) {
                    if (!law_covers(le, a, b)) continue;
                    if (tl_world_set_law(L->world, a, b, &le->def) != TL_OK)
                        return tl_yfail(&L->doc, &le->at, "%s", tl_world_error(L->world));
                }
        }
    return 0;
}

/* ---- walls ---- */

static const char *const wall_types[] = {"plane", "rectangle", "box", "mesh"};
static const char *const box_faces[] = {"-x", "+x", "-y", "+y", "-z", "+z"};

static int read_open_faces(loader *L, const tl_yval *wall, unsigned *faces) {
    tl_yval v;
    tl_ymap_get(wall, "open", &v);
    if (!v.node) return 0;
    if (tl_yis_scalar(&v)) {
        int f;
        if (tl_ychoice(&L->doc, &v, box_faces, COUNT_OF(box_faces), &f)) return -1;
        *faces |= 1u << f;
        return 0;
    }
    if (tl_yseq_expect(&L->doc, &v, "a sequence of faces from -x +x -y +y -z +z")) return -1;
    tl_yiter it = {0};
    tl_yval e;
    while (tl_yseq_next(&v, &it, &e)) {
        int f;
        if (tl_ychoice(&L->doc, &e, box_faces, COUNT_OF(box_faces), &f)) return -1;
        *faces |= 1u << f;
    }
    return 0;
}

/* motion: {rotate: {axis, point, speed | rpm}} | {oscillate: {axis, amplitude, period, phase}}
 *       | {rock: {axis, point, amplitude | amplitude_deg, period, phase | phase_deg}} */
static int read_angle(loader *L, const tl_yval *m, const char *rad_key, const char *deg_key, bool required,
                      double *out) {
    tl_yval r, d;
    tl_ymap_get(m, rad_key, &r);
    tl_ymap_get(m, deg_key, &d);
    if (r.node && d.node) return tl_yfail(&L->doc, &d, "give either %s (rad) or %s, not both", rad_key, deg_key);
    const tl_yrange any = {-INFINITY, INFINITY, false, false, ""};
    if (d.node) {
        double deg;
        if (tl_ynumber(&L->doc, &d, &any, &deg)) return -1;
        *out = deg * 3.14159265358979323846 / 180.0;
        return 0;
    }
    if (!r.node) {
        if (!required) return 0;
        return tl_ymissing(&L->doc, &r, "an angle (rad), or give the same in degrees");
    }
    return tl_ynumber(&L->doc, &r, &any, out);
}

/* in tl_motion_kind order, from TL_MOTION_ROTATE */
static const char *const motion_kinds[] = {"rotate", "oscillate", "rock"};
static const char *const rotate_keys[] = {"axis", "point", "speed", "rpm"};
static const char *const oscillate_keys[] = {"axis", "amplitude", "period", "phase", "phase_deg"};
static const char *const rock_keys[] = {"axis", "point", "amplitude", "amplitude_deg", "period", "phase",
                                        "phase_deg"};

static int read_motion(loader *L, const tl_yval *v, tl_motion_def *m) {
    const char *what = "{rotate: {axis, point, speed}}, {oscillate: {axis, amplitude, period}} or "
                       "{rock: {axis, point, amplitude_deg, period}}";
    memset(m, 0, sizeof *m);
    if (tl_ymap_expect(&L->doc, v, what)) return -1;
    if (tl_ymap_count(v) != 1) return tl_yexpected(&L->doc, v, what);
    const char *name;
    tl_yval key, e;
    tl_ymap_entry(v, 0, &name, &key, &e);
    int kind;
    if (tl_ychoice(&L->doc, &key, motion_kinds, COUNT_OF(motion_kinds), &kind)) return -1;
    if (tl_ymap_expect(&L->doc, &e, what)) return -1;
    const tl_yrange any = {-INFINITY, INFINITY, false, false, ""};
    if (tl_ykey_vec3(&L->doc, &e, "axis", true, "", &m->axis)) return -1;
    switch (kind) {
    case 0: {
        m->kind = TL_MOTION_ROTATE;
        if (tl_ymap_check_keys(&L->doc, &e, rotate_keys, COUNT_OF(rotate_keys), NULL) ||
            tl_ykey_vec3(&L->doc, &e, "point", true, "m", &m->pivot))
            return -1;
        tl_yval sp, rpm;
        tl_ymap_get(&e, "speed", &sp);
        tl_ymap_get(&e, "rpm", &rpm);
        if ((sp.node != NULL) == (rpm.node != NULL))
            return tl_yfail(&L->doc, &e, "give the angular speed as speed (rad/s) or rpm, once");
        if (sp.node && tl_ynumber(&L->doc, &sp, &any, &m->angular_speed)) return -1;
        if (rpm.node) {
            double r;
            if (tl_ynumber(&L->doc, &rpm, &any, &r)) return -1;
            m->angular_speed = r * 2.0 * 3.14159265358979323846 / 60.0;
        }
        return 0;
    }
    case 1:
        m->kind = TL_MOTION_OSCILLATE;
        return tl_ymap_check_keys(&L->doc, &e, oscillate_keys, COUNT_OF(oscillate_keys), NULL) ||
                       tl_ykey_number(&L->doc, &e, "amplitude", true, &any, &m->amplitude) ||
                       tl_ykey_number(&L->doc, &e, "period", true, ABOVE(0.0, "s"), &m->period) ||
                       read_angle(L, &e, "phase", "phase_deg", false, &m->phase)
                   ? -1
                   : 0;
    default:
        m->kind = TL_MOTION_ROCK;
        return tl_ymap_check_keys(&L->doc, &e, rock_keys, COUNT_OF(rock_keys), NULL) ||
                       tl_ykey_vec3(&L->doc, &e, "point", true, "m", &m->pivot) ||
                       read_angle(L, &e, "amplitude", "amplitude_deg", true, &m->amplitude) ||
                       tl_ykey_number(&L->doc, &e, "period", true, ABOVE(0.0, "s"), &m->period) ||
                       read_angle(L, &e, "phase", "phase_deg", false, &m->phase)
                   ? -1
                   : 0;
    }
}

static const char *const plane_keys[] = {"name", "type", "material", "velocity", "servo",
                                         "point", "normal", "motion"};
static const char *const rect_keys[] = {"name",   "type",   "material", "velocity",
                                        "servo",  "center", "normal",   "axis",
                                        "half_length", "half_width", "motion"};
static const char *const box_keys[] = {"name", "type", "material", "velocity",
                                       "servo", "min", "max", "open", "motion"};
static const char *const mesh_wall_keys[] = {"name",  "type",  "material", "velocity",    "servo", "motion",
                                             "file",  "units", "scale",    "origin", "orientation"};
static const char *const mesh_units[] = {"m", "cm", "mm", "um"};

static int read_wall_shape(loader *L, const tl_yval *e, tl_wall_def *wd) {
    switch (wd->kind) {
    case TL_WALL_PLANE:
        wd->point = (tl_vec3){0, 0, 0};
        return tl_ymap_check_keys(&L->doc, e, plane_keys, COUNT_OF(plane_keys), NULL) ||
                       tl_ykey_vec3(&L->doc, e, "point", false, "m", &wd->point) ||
                       tl_ykey_vec3(&L->doc, e, "normal", true, "", &wd->normal)
                   ? -1
                   : 0;
    case TL_WALL_RECTANGLE:
        return tl_ymap_check_keys(&L->doc, e, rect_keys, COUNT_OF(rect_keys), NULL) ||
                       tl_ykey_vec3(&L->doc, e, "center", true, "m", &wd->point) ||
                       tl_ykey_vec3(&L->doc, e, "normal", true, "", &wd->normal) ||
                       tl_ykey_vec3(&L->doc, e, "axis", true, "", &wd->axis) ||
                       tl_ykey_number(&L->doc, e, "half_length", true, ABOVE(0.0, "m"),
                                      &wd->half_length) ||
                       tl_ykey_number(&L->doc, e, "half_width", true, ABOVE(0.0, "m"),
                                      &wd->half_width)
                   ? -1
                   : 0;
    case TL_WALL_BOX:
        return tl_ymap_check_keys(&L->doc, e, box_keys, COUNT_OF(box_keys), NULL) ||
                       tl_ykey_vec3(&L->doc, e, "min", true, "m", &wd->box_min) ||
                       tl_ykey_vec3(&L->doc, e, "max", true, "m", &wd->box_max) ||
                       read_open_faces(L, e, &wd->open_faces)
                   ? -1
                   : 0;
    case TL_WALL_MESH: {
        if (tl_ymap_check_keys(&L->doc, e, mesh_wall_keys, COUNT_OF(mesh_wall_keys), NULL) ||
            tl_ykey_vec3(&L->doc, e, "origin", false, "m", &wd->mesh_origin))
            return -1;
        tl_yval v;
        tl_ymap_get(e, "orientation", &v);
        if (v.node && tl_load_orientation(L, &v, &wd->mesh_orientation, NULL)) return -1;
        tl_ymap_get(e, "file", &v);
        const char *name;
        if (!v.node) return tl_ymissing(&L->doc, &v, "an STL or OBJ file");
        if (tl_ystring(&L->doc, &v, "an STL or OBJ file", &name)) return -1;
        char *path;
        if (tl_load_path(L, &v, name, &path, NULL)) return -1;
        wd->mesh_file = path; /* freed by read_wall once the wall is made */
        tl_yval u, sc;
        tl_ymap_get(e, "units", &u);
        tl_ymap_get(e, "scale", &sc);
        if (u.node && sc.node) return tl_yfail(&L->doc, &sc, "give either units or scale, not both");
        wd->mesh_scale = 1.0;
        if (u.node) {
            static const double scale[] = {1.0, 1e-2, 1e-3, 1e-6};
            int k;
            if (tl_ychoice(&L->doc, &u, mesh_units, COUNT_OF(mesh_units), &k)) return -1;
            wd->mesh_scale = scale[k];
        }
        if (sc.node && tl_ynumber(&L->doc, &sc, ABOVE(0.0, "m per file unit"), &wd->mesh_scale)) return -1;
        return 0;
    }
    }
    return -1;
}

static int check_wall_name(loader *L, const tl_yval *e, const char *name) {
    for (int i = 0; i < tl_world_wall_count(L->world); i++) {
        tl_wall_state st;
        if (tl_world_get_wall(L->world, i, &st) == TL_OK && st.name && strcmp(st.name, name) == 0) {
            tl_yval at;
            tl_ymap_get(e, "name", &at);
            return tl_yfail(&L->doc, &at, "the wall name '%s' is already used by walls[%d]", name, i);
        }
    }
    return 0;
}

/* servo: {direction, stress (Pa) or force (N), gain, max_speed}, or off */
static const char *const servo_keys[] = {"direction", "stress", "force", "gain", "max_speed"};

static int read_servo(loader *L, const tl_yval *v, int wall, tl_servo_def *sv) {
    const char *what = "a servo {direction: [x, y, z], stress: Pa (or force: N), gain: m/s per N, "
                       "max_speed: m/s}, or off";
    memset(sv, 0, sizeof *sv);
    if (tl_yis_scalar(v)) {
        const char *t = tl_yscalar(v);
        if (t && strcmp(t, "off") == 0) return 0;
        return tl_yexpected(&L->doc, v, what);
    }
    if (tl_ymap_expect(&L->doc, v, what) ||
        tl_ymap_check_keys(&L->doc, v, servo_keys, COUNT_OF(servo_keys), NULL) ||
        tl_ykey_vec3(&L->doc, v, "direction", true, "", &sv->direction) ||
        tl_ykey_number(&L->doc, v, "gain", true, ABOVE(0.0, "m/s per N"), &sv->gain) ||
        tl_ykey_number(&L->doc, v, "max_speed", true, ABOVE(0.0, "m/s"), &sv->max_speed))
        return -1;
    tl_vec3 d = sv->direction;
    double n = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    tl_yval at;
    if (!(n > 0.0)) {
        tl_ymap_get(v, "direction", &at);
        return tl_yfail(&L->doc, &at, "expected a non-zero direction (the way the wall presses on "
                                      "the particles)");
    }
    sv->direction = (tl_vec3){d.x / n, d.y / n, d.z / n};
    sv->enabled = true;
    bool has_stress = tl_ymap_has(v, "stress"), has_force = tl_ymap_has(v, "force");
    if (has_stress == has_force) {
        tl_ymap_get(v, has_stress ? "force" : "stress", &at);
        if (!has_stress) return tl_ymissing(&L->doc, &at, "stress: Pa (>= 0), or force: N (>= 0)");
        return tl_yfail(&L->doc, &at, "give either stress (Pa) or force (N), not both");
    }
    if (has_force)
        return tl_ykey_number(&L->doc, v, "force", true, AT_LEAST(0.0, "N"), &sv->target_force);
    double stress = 0.0;
    if (tl_ykey_number(&L->doc, v, "stress", true, AT_LEAST(0.0, "Pa"), &stress)) return -1;
    tl_wall_state ws;
    if (tl_world_get_wall(L->world, wall, &ws) != TL_OK || !(ws.area > 0.0) || !isfinite(ws.area)) {
        tl_ymap_get(v, "stress", &at);
        return tl_yfail(&L->doc, &at, "a stress needs a wall with a finite area (a rectangle); "
                                      "give force (N) for this wall");
    }
    sv->target_force = stress * ws.area;
    return 0;
}

static int read_wall(loader *L, const tl_yval *e) {
    if (tl_ymap_expect(&L->doc, e, "a wall mapping {type, material, ...}")) return -1;
    tl_wall_def wd = tl_wall_default();
    tl_yval v;
    tl_ymap_get(e, "type", &v);
    int type;
    if (!v.node) return tl_ymissing(&L->doc, &v, "one of: plane, rectangle, box, mesh");
    if (tl_ychoice(&L->doc, &v, wall_types, COUNT_OF(wall_types), &type)) return -1;
    static const tl_wall_kind kinds[] = {TL_WALL_PLANE, TL_WALL_RECTANGLE, TL_WALL_BOX, TL_WALL_MESH};
    wd.kind = kinds[type];
    tl_yval motion;
    tl_ymap_get(e, "motion", &motion);
    if (read_wall_shape(L, e, &wd) || tl_ykey_string(&L->doc, e, "name", false, "a wall name", &wd.name) ||
        tl_load_material_key(L, e, &wd.material) ||
        tl_ykey_vec3(&L->doc, e, "velocity", false, "m/s", &wd.velocity) ||
        (motion.node && read_motion(L, &motion, &wd.motion)) || (wd.name && check_wall_name(L, e, wd.name))) {
        free((char *)wd.mesh_file);
        return -1;
    }
    int index;
    tl_status added = tl_world_add_wall(L->world, &wd, &index);
    free((char *)wd.mesh_file);
    wd.mesh_file = NULL;
    if (added != TL_OK) return tl_yfail(&L->doc, e, "%s", tl_world_error(L->world));
    tl_ymap_get(e, "servo", &v);
    if (v.node) {
        tl_servo_def sv;
        if (read_servo(L, &v, index, &sv)) return -1;
        if (tl_world_set_wall_servo(L->world, index, &sv) != TL_OK)
            return tl_yfail(&L->doc, &v, "%s", tl_world_error(L->world));
    }
    /* kept for insertion: random fills and inflows avoid the walls */
    tl_scene *sc = L->scene;
    tl_wall_def *walls = realloc(sc->walls, (sc->nwalls + 1) * sizeof *walls);
    if (!walls) return tl_load_out_of_memory(L);
    sc->walls = walls;
    wd.name = NULL;
    walls[sc->nwalls++] = wd;
    return 0;
}

static int read_walls(loader *L) {
    tl_yval s;
    tl_ymap_get(&L->root, "walls", &s);
    if (!s.node) return 0;
    if (tl_yseq_expect(&L->doc, &s, "a sequence of walls")) return -1;
    tl_yiter it = {0};
    tl_yval e;
    while (tl_yseq_next(&s, &it, &e))
        if (read_wall(L, &e)) return -1;
    return 0;
}

/* ---- stages ---- */

/* a wall by its name (walls[i] names without a name are not found) */
static int find_wall(loader *L, const tl_yval *v, int *index) {
    const char *name;
    if (tl_ystring(&L->doc, v, "a wall name", &name)) return -1;
    const char *known[256];
    size_t n = 0;
    for (int i = 0; i < tl_world_wall_count(L->world); i++) {
        tl_wall_state st;
        if (tl_world_get_wall(L->world, i, &st) != TL_OK || !st.name) continue;
        if (strcmp(st.name, name) == 0) {
            *index = i;
            return 0;
        }
        if (n < COUNT_OF(known)) known[n++] = st.name;
    }
    if (n == 0) return tl_yfail(&L->doc, v, "no wall is named '%s' (give the wall a name: key)", name);
    return tl_yunknown_name(&L->doc, v, "wall", name, known, n);
}

/* until: {wall_displacement: {wall: NAME, axis: x|y|z, reaches: m}} */
static int read_until_wall(loader *L, const tl_yval *u, tl_stage_limits *st) {
    static const char *const keys[] = {"wall", "axis", "reaches"};
    static const char *const axes[] = {"x", "y", "z"};
    tl_yval w, v;
    tl_ymap_get(u, "wall_displacement", &w);
    if (tl_ymap_expect(&L->doc, &w, "{wall: <name>, axis: x|y|z, reaches: <m>}") ||
        tl_ymap_check_keys(&L->doc, &w, keys, COUNT_OF(keys), NULL))
        return -1;
    tl_ymap_get(&w, "wall", &v);
    if (!v.node) return tl_ymissing(&L->doc, &v, "the name of a wall");
    if (find_wall(L, &v, &st->until_wall_index)) return -1;
    tl_ymap_get(&w, "axis", &v);
    if (!v.node) return tl_ymissing(&L->doc, &v, "one of: x, y, z");
    if (tl_ychoice(&L->doc, &v, axes, COUNT_OF(axes), &st->until_wall_axis)) return -1;
    static const tl_yrange any = {-INFINITY, INFINITY, false, false, "m"};
    if (tl_ykey_number(&L->doc, &w, "reaches", true, &any, &st->until_wall_reaches)) return -1;
    if (st->until_wall_reaches == 0.0) {
        tl_ymap_get(&w, "reaches", &v);
        return tl_yfail(&L->doc, &v, "expected a displacement != 0 (m, since the start of the "
                                     "run; its sign gives the way)");
    }
    st->until_wall = true;
    return 0;
}

/* until: {kinetic_energy_below: J} or {wall_displacement: {...}} */
static int read_until(loader *L, const tl_yval *e, tl_stage_limits *st) {
    static const char *const keys[] = {"kinetic_energy_below", "wall_displacement"};
    const char *what = "a condition {kinetic_energy_below: <J>} or {wall_displacement: {wall: "
                       "<name>, axis: x|y|z, reaches: <m>}}";
    tl_yval u;
    tl_ymap_get(e, "until", &u);
    if (!u.node) return 0;
    if (tl_ymap_expect(&L->doc, &u, what) ||
        tl_ymap_check_keys(&L->doc, &u, keys, COUNT_OF(keys), NULL))
        return -1;
    if (tl_ymap_count(&u) != 1) return tl_yexpected(&L->doc, &u, "exactly one condition");
    if (tl_ymap_has(&u, "wall_displacement")) return read_until_wall(L, &u, st);
    if (tl_ykey_number(&L->doc, &u, "kinetic_energy_below", true, ABOVE(0.0, "J"),
                       &st->kinetic_below))
        return -1;
    st->until_kinetic = true;
    return 0;
}

/* set: {friction: <mu> | restore, walls: [{wall, velocity, servo}, ...]} */
static int read_wall_action(loader *L, const tl_yval *e, tl_wall_action *a) {
    static const char *const keys[] = {"wall", "velocity", "servo", "motion"};
    tl_yval v;
    if (tl_ymap_expect(&L->doc, e, "{wall: <name>, velocity: [x, y, z], servo: {...} | off, motion: {...} | "
                                   "none}") ||
        tl_ymap_check_keys(&L->doc, e, keys, COUNT_OF(keys), NULL))
        return -1;
    tl_ymap_get(e, "wall", &v);
    if (!v.node) return tl_ymissing(&L->doc, &v, "the name of a wall");
    if (find_wall(L, &v, &a->wall)) return -1;
    a->set_velocity = tl_ymap_has(e, "velocity");
    if (tl_ykey_vec3(&L->doc, e, "velocity", false, "m/s", &a->velocity)) return -1;
    tl_ymap_get(e, "servo", &v);
    a->set_servo = v.node != NULL;
    if (v.node && read_servo(L, &v, a->wall, &a->servo)) return -1;
    tl_ymap_get(e, "motion", &v);
    a->set_motion = v.node != NULL;
    if (v.node) {
        const char *t = tl_yis_scalar(&v) ? tl_yscalar(&v) : NULL;
        if (t && strcmp(t, "none") == 0) memset(&a->motion, 0, sizeof a->motion); /* translate only */
        else if (read_motion(L, &v, &a->motion)) return -1;
    }
    if (!a->set_velocity && !a->set_servo && !a->set_motion)
        return tl_yexpected(&L->doc, e, "velocity: [x, y, z], servo: {...} | off or motion: {...} | none for the "
                                        "wall");
    return 0;
}

static int read_stage_set(loader *L, const tl_yval *e, tl_stage_action *a) {
    static const char *const keys[] = {"friction", "walls"};
    const char *what = "{friction: <mu> | restore, walls: [{wall: <name>, velocity: [x, y, z], "
                       "servo: {...} | off}, ...]}";
    tl_yval s, v;
    tl_ymap_get(e, "set", &s);
    if (!s.node) return 0;
    if (tl_ymap_expect(&L->doc, &s, what) ||
        tl_ymap_check_keys(&L->doc, &s, keys, COUNT_OF(keys), NULL))
        return -1;
    tl_ymap_get(&s, "friction", &v);
    if (v.node) {
        a->set_friction = true;
        const char *t = tl_yis_scalar(&v) ? tl_yscalar(&v) : NULL;
        if (t && strcmp(t, "restore") == 0) a->friction = NAN;
        else if (tl_ynumber(&L->doc, &v, AT_LEAST(0.0, ""), &a->friction)) return -1;
    }
    tl_ymap_get(&s, "walls", &v);
    if (v.node) {
        if (tl_yseq_expect(&L->doc, &v, "a sequence of {wall: <name>, velocity, servo}")) return -1;
        size_t n = tl_yseq_count(&v);
        if (n == 0) return tl_yexpected(&L->doc, &v, "at least one wall");
        a->walls = calloc(n, sizeof *a->walls);
        if (!a->walls) return tl_load_out_of_memory(L);
        tl_yiter it = {0};
        tl_yval item;
        while (tl_yseq_next(&v, &it, &item)) {
            a->nwalls = it.index + 1;
            if (read_wall_action(L, &item, &a->walls[it.index])) return -1;
        }
    }
    if (!a->set_friction && a->nwalls == 0) return tl_yexpected(&L->doc, &s, what);
    return 0;
}

/* a stage ends at whichever comes first of duration, steps, its until
 * condition (checked every check_every steps) and its max_duration guard */
static int check_stage_ends(loader *L, const tl_yval *e, const tl_stage_spec *sp,
                            const tl_stage_limits *st) {
    tl_yval v;
    const bool until = st->until_kinetic || st->until_wall;
    if (st->max_duration > 0.0 && !until) {
        tl_ymap_get(e, "max_duration", &v);
        return tl_yfail(&L->doc, &v, "max_duration guards an until condition, and this stage has "
                                     "none; give duration (s) or steps");
    }
    if (st->max_duration > 0.0 && sp->duration > 0.0) {
        tl_ymap_get(e, "max_duration", &v);
        return tl_yfail(&L->doc, &v, "give either duration or max_duration, not both");
    }
    if (tl_ymap_has(e, "check_every") && !until) {
        tl_ymap_get(e, "check_every", &v);
        return tl_yfail(&L->doc, &v, "check_every says how often the until condition is checked, "
                                     "and this stage has none");
    }
    if (until && sp->duration == 0.0 && st->steps == 0 && st->max_duration == 0.0) {
        tl_ymap_get(e, "until", &v);
        return tl_yfail(&L->doc, &v, "a stage that ends on a condition needs a guard: give "
                                     "max_duration (s), so that it ends even if the condition is "
                                     "never met (or steps, or duration)");
    }
    if (!until && sp->duration == 0.0 && st->steps == 0) {
        tl_ymap_get(e, "duration", &v);
        return tl_ymissing(&L->doc, &v, "a number > 0 (s), or steps: N, or until: {...} with "
                                        "max_duration");
    }
    return 0;
}

static int read_stage(loader *L, const tl_yval *e, size_t index, tl_stage_spec *sp,
                      tl_stage_limits *st, tl_stage_action *act) {
    static const char *const keys[] = {"name",        "duration",     "steps", "until",
                                       "check_every", "max_duration", "set"};
    const char *name = NULL;
    st->check_every = 100;
    if (tl_ymap_expect(&L->doc, e, "a stage {name, duration, steps, until, ...}") ||
        tl_ymap_check_keys(&L->doc, e, keys, COUNT_OF(keys), NULL) ||
        tl_ykey_string(&L->doc, e, "name", false, "a stage name", &name) ||
        tl_ykey_number(&L->doc, e, "duration", false, ABOVE(0.0, "s"), &sp->duration) ||
        tl_ykey_number(&L->doc, e, "max_duration", false, ABOVE(0.0, "s"), &st->max_duration) ||
        read_until(L, e, st) || read_stage_set(L, e, act))
        return -1;
    tl_yval v;
    tl_ymap_get(e, "steps", &v);
    if (v.node && tl_yint(&L->doc, &v, 1, (int64_t)TL_SCENE_MAX_STEPS, &st->steps)) return -1;
    tl_ymap_get(e, "check_every", &v);
    if (v.node && tl_yint(&L->doc, &v, 1, (int64_t)1e15, &st->check_every)) return -1;
    if (check_stage_ends(L, e, sp, st)) return -1;
    char fallback[32];
    snprintf(fallback, sizeof fallback, "stage%zu", index + 1);
    sp->name = tl_load_copy_string(name ? name : fallback);
    return sp->name ? 0 : tl_load_out_of_memory(L);
}

static int read_stages(loader *L) {
    const char *what = "a non-empty sequence of stages, e.g. - {name: settle, duration: 0.5}";
    tl_yval s;
    tl_ymap_get(&L->root, "stages", &s);
    if (!s.node) return tl_ymissing(&L->doc, &s, what);
    if (tl_yseq_expect(&L->doc, &s, what)) return -1;
    size_t n = tl_yseq_count(&s);
    if (n == 0) return tl_yexpected(&L->doc, &s, what);
    L->scene->stages = calloc(n, sizeof *L->scene->stages);
    L->scene->stage_limits = calloc(n, sizeof *L->scene->stage_limits);
    L->scene->stage_runs = calloc(n, sizeof *L->scene->stage_runs);
    L->scene->stage_actions = calloc(n, sizeof *L->scene->stage_actions);
    if (!L->scene->stages || !L->scene->stage_limits || !L->scene->stage_runs ||
        !L->scene->stage_actions)
        return tl_load_out_of_memory(L);
    tl_yiter it = {0};
    tl_yval e;
    while (tl_yseq_next(&s, &it, &e)) {
        size_t i = it.index;
        L->scene->nstages = i + 1;
        if (read_stage(L, &e, i, &L->scene->stages[i], &L->scene->stage_limits[i],
                       &L->scene->stage_actions[i]))
            return -1;
    }
    return 0;
}

/* ---- outputs ---- */

/* An output's kind, its keys and its options come from the table of kinds (io/output_kinds.c):
 * type, file and, for a time series, every or every_steps here; the kind's own keys by its
 * reader. */
static int check_output_keys(loader *L, const tl_yval *e, const tl_output_kind_def *d) {
    const char *allowed[32];
    size_t n = 0;
    allowed[n++] = "type";
    allowed[n++] = "file";
    if (d->series) {
        allowed[n++] = "every";
        allowed[n++] = "every_steps";
    }
    for (const char *const *k = d->keys; k && *k && n < COUNT_OF(allowed); k++) allowed[n++] = *k;
    return tl_ymap_check_keys(&L->doc, e, allowed, n, NULL);
}

static int reader_material(void *scene, const tl_yval *v, int *index) {
    return tl_load_material(scene, v, false, index);
}
static int find_wall(loader *L, const tl_yval *v, int *index);
static int reader_wall(void *scene, const tl_yval *v, int *index) { return find_wall(scene, v, index); }
static int reader_out_of_memory(void *scene) { return tl_load_out_of_memory(scene); }

static tl_output_reader output_reader(loader *L) {
    tl_output_reader r = {&L->doc,        L->world,    L->def.gravity,       L,
                          reader_material, reader_wall, reader_out_of_memory, tl_output_kind_def_of};
    return r;
}

static int check_file_name(loader *L, const tl_yval *v, const char *file) {
    size_t n = strlen(file);
    if (file[0] == '/')
        return tl_yfail(&L->doc, v, "'%s' must be relative to the output directory", file);
    if (file[n - 1] == '/') return tl_yfail(&L->doc, v, "'%s' must name a file, not a folder", file);
    for (const char *p = file; *p;) {
        const char *q = strchr(p, '/');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == 0 || (len == 2 && p[0] == '.' && p[1] == '.'))
            return tl_yfail(&L->doc, v,
                            "'%s' must stay inside the output directory (no '..' and no empty "
                            "path parts)",
                            file);
        p += len + (q ? 1 : 0);
    }
    return 0;
}

static int read_output_file(loader *L, const tl_yval *e, tl_output_spec *o) {
    tl_yval v;
    tl_ymap_get(e, "file", &v);
    const char *file = tl_output_kind_def_of(o->kind)->default_file;
    if (v.node && (tl_ystring(&L->doc, &v, "a file name relative to the output directory", &file) ||
                   check_file_name(L, &v, file)))
        return -1;
    o->file = tl_load_copy_string(file);
    return o->file ? 0 : tl_load_out_of_memory(L);
}

static int read_output_every(loader *L, const tl_yval *e, tl_output_spec *o) {
    tl_yval steps;
    tl_ymap_get(e, "every_steps", &steps);
    if (steps.node && tl_ymap_has(e, "every"))
        return tl_yfail(&L->doc, &steps, "give either every (s of simulated time) or every_steps, "
                                         "not both");
    if (tl_ykey_number(&L->doc, e, "every", false, ABOVE(0.0, "s"), &o->every)) return -1;
    return steps.node ? tl_yint(&L->doc, &steps, 1, INT64_MAX, &o->every_steps) : 0;
}

static int read_output(loader *L, const tl_yval *e, tl_output_spec *o) {
    if (tl_ymap_expect(&L->doc, e, "an output mapping {type, file, ...}")) return -1;
    o->line = e->line;
    const size_t nk = tl_output_kind_count();
    const char *names[32];
    char list[512] = "one of:";
    for (size_t k = 0; k < nk && k < COUNT_OF(names); k++) {
        names[k] = tl_output_kind_def_of((tl_output_kind)k)->name;
        size_t at = strlen(list);
        snprintf(list + at, sizeof list - at, "%s %s", k ? "," : "", names[k]);
    }
    tl_yval v;
    tl_ymap_get(e, "type", &v);
    int kind;
    if (!v.node) return tl_ymissing(&L->doc, &v, list);
    if (tl_ychoice(&L->doc, &v, names, nk, &kind)) return -1;
    o->kind = (tl_output_kind)kind;
    const tl_output_kind_def *d = tl_output_kind_def_of(o->kind);
    if (check_output_keys(L, e, d) || read_output_file(L, e, o) || (d->series && read_output_every(L, e, o)))
        return -1;
    /* the kind's own options, which its reader (and its resolve step) fills */
    if (d->opts_size && !(o->opts = calloc(1, d->opts_size))) return tl_load_out_of_memory(L);
    if (d->read) {
        tl_output_reader r = output_reader(L);
        return d->read(&r, e, o);
    }
    return 0;
}

/* the names an output claims under the output directory: its file, and the
 * collection of a vtk series or the gnuplot script of a plot */
static size_t output_claims(const tl_output_spec *o, char claims[2][600]) {
    snprintf(claims[0], 600, "%.512s", o->file);
    const char *also = tl_output_kind_def_of(o->kind)->also_claims;
    if (!also) return 1;
    snprintf(claims[1], 600, "%.512s%.64s", o->file, also);
    return 2;
}

static bool claims_clash(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (strcmp(a, b) == 0) return true;
    if (la < lb && strncmp(a, b, la) == 0 && b[la] == '/') return true; /* a is b's folder */
    return lb < la && strncmp(a, b, lb) == 0 && a[lb] == '/';
}

static void output_value(const tl_yval *outputs, size_t i, const char *key, tl_yval *out) {
    tl_yval e;
    tl_yseq_at(outputs, i, &e);
    tl_ymap_get(&e, key, out);
    if (!out->node) *out = e;
}

static int check_output_files(loader *L, const tl_yval *outputs) {
    const tl_scene *sc = L->scene;
    for (size_t j = 1; j < sc->noutputs; j++) {
        char cj[2][600];
        size_t nj = output_claims(&sc->outputs[j], cj);
        for (size_t i = 0; i < j; i++) {
            char ci[2][600];
            size_t ni = output_claims(&sc->outputs[i], ci);
            for (size_t a = 0; a < ni; a++)
                for (size_t b = 0; b < nj; b++) {
                    if (!claims_clash(ci[a], cj[b])) continue;
                    tl_yval at;
                    output_value(outputs, j, "file", &at);
                    return tl_yfail(&L->doc, &at,
                                    "file '%s' clashes with outputs[%zu] (line %d, file '%s'); "
                                    "give each output its own file",
                                    sc->outputs[j].file, i, sc->outputs[i].line, sc->outputs[i].file);
                }
        }
    }
    return 0;
}

static int read_outputs(loader *L) {
    tl_yval s;
    tl_ymap_get(&L->root, "outputs", &s);
    if (!s.node) return 0;
    if (tl_yseq_expect(&L->doc, &s, "a sequence of outputs")) return -1;
    size_t n = tl_yseq_count(&s);
    if (n == 0) return 0;
    L->scene->outputs = calloc(n, sizeof *L->scene->outputs);
    if (!L->scene->outputs) return tl_load_out_of_memory(L);
    tl_yiter it = {0};
    tl_yval e;
    while (tl_yseq_next(&s, &it, &e)) {
        size_t i = it.index;
        L->scene->noutputs = i + 1;
        if (read_output(L, &e, &L->scene->outputs[i])) return -1;
    }
    tl_output_reader r = output_reader(L);
    for (size_t i = 0; i < n; i++) {
        const tl_output_kind_def *d = tl_output_kind_def_of(L->scene->outputs[i].kind);
        tl_yseq_at(&s, i, &e);
        if (d->resolve && d->resolve(&r, &e, L->scene->outputs, n, i)) return -1;
    }
    return check_output_files(L, &s);
}

/* ---- checkpoint ---- */

/* checkpoint: {every: s | every_steps: n, dir: path, keep: k} */
static int read_checkpoint(loader *L) {
    static const char *const keys[] = {"every", "every_steps", "dir", "keep"};
    tl_yval m;
    tl_ymap_get(&L->root, "checkpoint", &m);
    if (!m.node) return 0;
    tl_checkpoint_spec *ck = &L->scene->checkpoint;
    if (tl_ymap_expect(&L->doc, &m, "a mapping {every: s or every_steps: n, dir: path, keep: k}") ||
        tl_ymap_check_keys(&L->doc, &m, keys, COUNT_OF(keys), NULL))
        return -1;
    ck->line = m.line;
    ck->keep = 1;
    tl_yval steps, v;
    tl_ymap_get(&m, "every_steps", &steps);
    if (steps.node && tl_ymap_has(&m, "every"))
        return tl_yfail(&L->doc, &steps, "give either every (s of simulated time) or every_steps, "
                                         "not both");
    if (!steps.node && !tl_ymap_has(&m, "every")) {
        tl_ymap_get(&m, "every", &v);
        return tl_ymissing(&L->doc, &v, "every: s of simulated time between checkpoints, or "
                                        "every_steps: steps between them");
    }
    if (tl_ykey_number(&L->doc, &m, "every", false, ABOVE(0.0, "s"), &ck->every) ||
        (steps.node && tl_yint(&L->doc, &steps, 1, INT64_MAX, &ck->every_steps)))
        return -1;
    tl_ymap_get(&m, "keep", &v);
    if (v.node && tl_yint(&L->doc, &v, 1, 1000000, &ck->keep)) return -1;
    const char *dir = NULL;
    if (tl_ykey_string(&L->doc, &m, "dir", false,
                       "a directory (relative to the output directory, or absolute)", &dir))
        return -1;
    if (dir) {
        ck->dir = tl_load_copy_string(dir);
        if (!ck->dir) return tl_load_out_of_memory(L);
    }
    ck->on = true;
    return 0;
}

/* ---- preparation ---- */

/* the entry whose law cannot be prepared for its pair of materials, or -1 */
static int failing_law_entry(loader *L) {
    int nm = tl_world_material_count(L->world);
    if (!L->pair_law) return -1;
    for (int a = 0; a < nm; a++)
        for (int b = 0; b < nm; b++) {
            int e = L->pair_law[a * nm + b];
            tl_pair_estimate est;
            if (e >= 0 &&
                tl_world_estimate_pair(L->world, a, b, 1.0, 1.0, 1.0, 1.0, 1.0, &est) != TL_OK)
                return e;
        }
    return -1;
}

static int prepare_failed(loader *L, tl_status s) {
    char msg[sizeof L->doc.err->message];
    snprintf(msg, sizeof msg, "%s", tl_world_error(L->world));
    const tl_yval *at = L->integrator_at.node ? &L->integrator_at : NULL;
    tl_yval particles;
    tl_ymap_get(&L->root, "particles", &particles);
    if (s == TL_ERROR_UNRESOLVED) {
        if (L->dt_at.node) at = &L->dt_at;
    } else if (strncmp(msg, "initial geometry", 16) == 0) {
        at = particles.node ? &particles : NULL;
    } else {
        int e = failing_law_entry(L);
        if (e >= 0)
            at = &L->laws[e].at;
        else if (strncmp(msg, "no contact law", 14) == 0)
            at = &L->laws_at;
    }
    return tl_yfail(&L->doc, at, "%s", msg);
}

static double smallest_radius(const tl_world *w) {
    double r = INFINITY;
    size_t n = tl_world_particle_count(w);
    for (size_t i = 0; i < n; i++) {
        tl_particle_state st;
        if (tl_world_particle_at(w, i, &st) == TL_OK) r = fmin(r, st.radius);
    }
    return r;
}

/* Prepares the world. Inflows insert particles the world does not have
 * yet: their contacts must be resolved by the step too (a given dt is
 * checked; an automatic one is shortened, by loading once more with it),
 * and an automatic skin follows the smallest radius they bring. */
static int prepare_world(loader *L) {
    double in_dt, in_rmin;
    if (tl_load_inflow_bounds(L, &in_dt, &in_rmin)) return -1;
    bool inflows = L->scene->ninflows > 0;
    if (inflows && !L->forced && L->def.dt > 0.0 && isfinite(in_dt) &&
        L->def.dt > in_dt * (1.0 + 1e-12) && !L->def.allow_unresolved_contacts) {
        const tl_yval *at = L->dt_at.node ? &L->dt_at : (L->integrator_at.node ? &L->integrator_at : NULL);
        return tl_yfail(&L->doc, at,
                        "dt = %g s does not resolve the contacts of the particles the inflows "
                        "insert: the shortest lasts %.4g s, which needs dt <= %.4g s for %g steps "
                        "per contact (integrator.steps_per_contact); use a shorter dt, or set "
                        "allow_unresolved_contacts: true",
                        L->def.dt, in_dt * L->def.steps_per_contact, in_dt, L->def.steps_per_contact);
    }
    tl_status s = tl_world_prepare(L->world);
    if (inflows && !L->forced) {
        double want_dt = 0.0, want_skin = 0.0;
        if (L->def.dt == 0.0 && isfinite(in_dt) && in_dt > 0.0 &&
            (s != TL_OK || in_dt < tl_world_dt(L->world) * (1.0 - 1e-12)))
            want_dt = in_dt;
        if (L->def.skin == 0.0 && isfinite(in_rmin) && in_rmin < smallest_radius(L->world))
            want_skin = 0.2 * in_rmin; /* a tenth of the smallest diameter */
        if (want_dt > 0.0 || want_skin > 0.0) {
            L->reload = true;
            L->forced_dt = want_dt;
            L->forced_skin = want_skin;
            return -1;
        }
    }
    return s == TL_OK ? 0 : prepare_failed(L, s);
}

/* ---- loading ---- */

static int check_stage_steps(loader *L);

static int load(loader *L) {
    tl_ydoc_root(&L->doc, &L->root);
    if (tl_ymap_expect(&L->doc, &L->root, "a mapping with at least materials, laws and stages") ||
        tl_ymap_check_keys(&L->doc, &L->root, top_keys, COUNT_OF(top_keys), NULL))
        return -1;
    tl_yval v;
    static const char *const required[] = {"materials", "laws", "stages"};
    for (size_t i = 0; i < COUNT_OF(required); i++) {
        tl_ymap_get(&L->root, required[i], &v);
        if (!v.node)
            return tl_ymissing(&L->doc, &v,
                               i == 0 ? "a mapping of material names to their properties"
                                      : (i == 1 ? "a sequence of contact laws"
                                                : "a non-empty sequence of stages"));
    }
    /* walls before particles: random fills avoid them */
    if (read_header(L) || create_world(L) || read_materials(L) || tl_load_shapes(L) || read_laws(L) || read_walls(L) ||
        tl_load_particles(L) || apply_laws(L) || read_stages(L) || read_outputs(L) ||
        read_checkpoint(L))
        return -1;
    return prepare_world(L) || check_stage_steps(L);
}

/* Every stage's duration is a whole number of steps of the chosen dt, at
 * least one and at most TL_SCENE_MAX_STEPS (so that the step count, the
 * time t + dt and the progress stay exact); `check` and `run` load the same. */
static int check_stage_steps(loader *L) {
    double dt = tl_world_dt(L->world);
    tl_yval s, e;
    tl_ymap_get(&L->root, "stages", &s);
    tl_yiter it = {0};
    while (tl_yseq_next(&s, &it, &e) && it.index < L->scene->nstages) {
        size_t i = it.index;
        const char *key = L->scene->stages[i].duration > 0.0 ? "duration" : "max_duration";
        double span = L->scene->stages[i].duration > 0.0 ? L->scene->stages[i].duration
                                                         : L->scene->stage_limits[i].max_duration;
        if (!(span > 0.0)) continue;
        tl_yval v;
        tl_ymap_get(&e, key, &v);
        double steps = span / dt;
        if (!(dt > 0.0) || !isfinite(dt) || !(steps <= TL_SCENE_MAX_STEPS))
            return tl_yfail(&L->doc, &v, "%g s is %.3g steps of dt = %g s, more than %.0e (the "
                                         "limit on a stage's steps); shorten the stage or "
                                         "lengthen dt", span, steps, dt, TL_SCENE_MAX_STEPS);
        if (steps < 1.0)
            return tl_yfail(&L->doc, &v, "%g s is less than one step of dt = %g s (%.3g steps): "
                                         "check dt and the materials' stiffness", span, dt, steps);
    }
    return 0;
}

/* the directory of the scene file, "." when it names none */
static char *scene_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return tl_load_copy_string(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

/* One pass of the loader. *again is set when the inflows need a shorter
 * step or a smaller skin than the world chose: the caller loads once more
 * with *forced filled in. */
static tl_status load_once(const char *text, size_t len, const char *path, tl_loader *forced,
                           tl_scene **out, tl_scene_error *err, bool *again) {
    loader L;
    memset(&L, 0, sizeof L);
    L.status = TL_ERROR_SCENE;
    L.def = tl_world_default();
    L.doc.err = err;
    L.forced = forced->forced;
    L.forced_dt = forced->forced_dt;
    L.forced_skin = forced->forced_skin;
    L.scene = calloc(1, sizeof *L.scene);
    if (L.scene) L.scene->path = tl_load_copy_string(path);
    L.dir = scene_dir(path);
    if (!L.scene || !L.scene->path || !L.dir) {
        if (L.scene) free(L.scene->path);
        free(L.scene);
        free(L.dir);
        snprintf(err->message, sizeof err->message, "out of memory");
        return TL_ERROR_MEMORY;
    }
    int rc = tl_ydoc_parse(&L.doc, text, len, err);
    if (rc == 0) rc = load(&L);
    tl_ydoc_free(&L.doc);
    free(L.laws);
    free(L.pair_law);
    free(L.dir);
    free(L.inflow_at);
    *again = rc != 0 && L.reload;
    if (*again) {
        forced->forced = true;
        forced->forced_dt = L.forced_dt;
        forced->forced_skin = L.forced_skin;
    }
    if (rc != 0) {
        tl_scene_destroy(L.scene);
        return L.status;
    }
    L.scene->text_hash = tl_fnv1a(text, len, TL_FNV_START);
    *out = L.scene;
    return TL_OK;
}

static tl_status load_text(const char *text, size_t len, const char *path, tl_scene **out,
                           tl_scene_error *err) {
    tl_loader forced;
    memset(&forced, 0, sizeof forced);
    bool again = false;
    tl_status st = load_once(text, len, path, &forced, out, err, &again);
    if (again) {
        tl_scene_error first = *err;
        memset(err, 0, sizeof *err);
        snprintf(err->file, sizeof err->file, "%s", first.file);
        st = load_once(text, len, path, &forced, out, err, &again);
    }
    return st;
}

static void error_begin(tl_scene_error *err, const char *file) {
    memset(err, 0, sizeof *err);
    snprintf(err->file, sizeof err->file, "%s", file);
}

tl_status tl_scene_load_string(const char *text, const char *name, tl_scene **out,
                               tl_scene_error *err) {
    /* a missing text is refused as tl_scene_load_text refuses it (len 1 without text) */
    return tl_scene_load_text(text, text ? strlen(text) : 1, name, out, err);
}

tl_status tl_scene_load_text(const char *text, size_t len, const char *name, tl_scene **out,
                             tl_scene_error *err) {
    tl_scene_error local;
    if (!err) err = &local;
    if (!name) name = "<string>";
    error_begin(err, name);
    if (out) *out = NULL;
    if ((!text && len > 0) || !out) {
        snprintf(err->message, sizeof err->message, "no scene text, or nowhere to put the scene");
        return TL_ERROR_ARGUMENT;
    }
    return load_text(text ? text : "", len, name, out, err);
}

/* the whole file, NUL-terminated; 0 or an errno-style message. Only a
 * regular file of at most TL_YAML_MAX_BYTES is read (a directory, a device
 * such as /dev/zero or a pipe is refused before reading). */
static int read_whole_file(const char *path, char **text, size_t *len, char *msg, size_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(msg, size, "cannot open the scene file: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        snprintf(msg, size, "cannot read the scene file: %s", strerror(errno));
        fclose(f);
        return -1;
    }
    /* a pipe (talus check <(...)) is read up to the limit */
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        snprintf(msg, size, "the scene is not a regular file (it is %s)",
                 S_ISDIR(st.st_mode) ? "a directory" : "a device or socket");
        fclose(f);
        return -1;
    }
    if (S_ISFIFO(st.st_mode)) st.st_size = 0;
    if (st.st_size < 0 || (uint64_t)st.st_size > TL_YAML_MAX_BYTES) {
        snprintf(msg, size, "the scene file is %lld bytes, more than %zu (the limit on a scene's "
                 "size; give long particle lists in a data file)", (long long)st.st_size,
                 TL_YAML_MAX_BYTES);
        fclose(f);
        return -1;
    }
    /* the size may change while reading: read at most one byte past the limit */
    size_t cap = (size_t)st.st_size + 2, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(msg, size, "out of memory");
        fclose(f);
        return -1;
    }
    int rc = 0;
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got > 0 && n + 1 < cap) continue;
        if (ferror(f)) {
            snprintf(msg, size, "cannot read the scene file: %s", strerror(errno));
            rc = -1;
        } else if (n + 1 >= cap && n > TL_YAML_MAX_BYTES) {
            snprintf(msg, size, "the scene file is more than %zu bytes (the limit on a scene's "
                     "size)", TL_YAML_MAX_BYTES);
            rc = -1;
        } else if (n + 1 >= cap) {
            /* grown while reading, still within the limit */
            size_t grow = cap * 2 > TL_YAML_MAX_BYTES + 2 ? TL_YAML_MAX_BYTES + 2 : cap * 2;
            char *nb = grow > cap ? realloc(buf, grow) : NULL;
            if (!nb) {
                snprintf(msg, size, "the scene file is more than %zu bytes (the limit on a "
                         "scene's size)", TL_YAML_MAX_BYTES);
                rc = -1;
            } else {
                buf = nb;
                cap = grow;
                continue;
            }
        }
        break;
    }
    fclose(f);
    if (rc != 0) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

tl_status tl_scene_load_file(const char *path, tl_scene **out, tl_scene_error *err) {
    tl_scene_error local;
    if (!err) err = &local;
    error_begin(err, path ? path : "<no file>");
    if (out) *out = NULL;
    if (!path || !out) {
        snprintf(err->message, sizeof err->message, "no scene file, or nowhere to put the scene");
        return TL_ERROR_ARGUMENT;
    }
    char *text;
    size_t len;
    if (read_whole_file(path, &text, &len, err->message, sizeof err->message) != 0)
        return TL_ERROR_IO;
    tl_status s = load_text(text, len, path, out, err);
    free(text);
    return s;
}

/* ---- the scene ---- */

/* the length of the UTF-8 sequence at s that is printable (not a C1
 * control, U+0080 to U+009F), or 0 */
static size_t utf8_printable(const unsigned char *s) {
    if (s[0] >= 0xc2 && s[0] <= 0xdf && (s[1] & 0xc0) == 0x80) return s[0] == 0xc2 && s[1] < 0xa0 ? 0 : 2;
    if (s[0] >= 0xe0 && s[0] <= 0xef && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80) return 3;
    if (s[0] >= 0xf0 && s[0] <= 0xf4 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
        (s[3] & 0xc0) == 0x80)
        return 4;
    return 0;
}

/* Messages quote bytes from files: control characters (a terminal's escape
 * sequences among them), C1 controls and bytes that are not UTF-8 are written
 * as \xNN, so that none reaches the terminal. */
static void escape_text(const char *in, char *out, size_t size) {
    const unsigned char *s = (const unsigned char *)in;
    size_t n = 0;
    while (*s && n + 1 < size) {
        size_t k = *s >= 0x20 && *s < 0x7f ? 1 : (*s >= 0x80 ? utf8_printable(s) : 0);
        if (k == 0) {
            if (n + 5 > size) break;
            snprintf(out + n, 5, "\\x%02x", *s);
            n += 4;
            s++;
            continue;
        }
        if (n + k + 1 > size) break;
        memcpy(out + n, s, k);
        n += k;
        s += k;
    }
    out[n] = '\0';
}

static void error_text(const tl_scene_error *err, char *buf, size_t size) {
    if (!buf || size == 0) return;
    if (!err) {
        snprintf(buf, size, "no error");
        return;
    }
    const char *key = err->key, *sep = err->key[0] ? ": " : "";
    if (err->line > 0 && err->column > 0)
        snprintf(buf, size, "%s:%d:%d: %s%s%s", err->file, err->line, err->column, key, sep,
                 err->message);
    else if (err->line > 0)
        snprintf(buf, size, "%s:%d: %s%s%s", err->file, err->line, key, sep, err->message);
    else if (err->file[0])
        snprintf(buf, size, "%s: %s%s%s", err->file, key, sep, err->message);
    else
        snprintf(buf, size, "%s%s%s", key, sep, err->message);
}

void tl_scene_error_format(const tl_scene_error *err, char *buf, size_t size) {
    if (!buf || size == 0) return;
    char raw[sizeof err->file + sizeof err->key + sizeof err->message + 64];
    error_text(err, raw, sizeof raw);
    escape_text(raw, buf, size);
}

/* ---- the format's names, for bindings ---- */

size_t tl_scene_names(const char *table, const char *const **names) {
    static const struct {
        const char *table;
        const char *const *names;
        size_t count;
    } tables[] = {
        {"top", top_keys, COUNT_OF(top_keys)},
        {"domain", domain_keys, COUNT_OF(domain_keys)},
        {"domain.periodic", periodic_axes, COUNT_OF(periodic_axes)},
        {"integrator", integrator_keys, COUNT_OF(integrator_keys)},
        {"integrator.scheme", integrator_schemes, COUNT_OF(integrator_schemes)},
        {"neighbor", neighbor_keys, COUNT_OF(neighbor_keys)},
        {"blowup", blowup_keys, COUNT_OF(blowup_keys)},
        {"material", material_keys, COUNT_OF(material_keys)},
        {"law", law_option_keys, COUNT_OF(law_option_keys)},
        {"law.slot", slot_keys, COUNT_OF(slot_keys)},
        {"law.coulomb_test", coulomb_tests, COUNT_OF(coulomb_tests)},
        {"law.contact_point", contact_points, COUNT_OF(contact_points)},
        {"law.entry_displacement", entry_displacements, COUNT_OF(entry_displacements)},
        {"wall.type", wall_types, COUNT_OF(wall_types)},
        {"wall.plane", plane_keys, COUNT_OF(plane_keys)},
        {"wall.rectangle", rect_keys, COUNT_OF(rect_keys)},
        {"wall.box", box_keys, COUNT_OF(box_keys)},
        {"wall.mesh", mesh_wall_keys, COUNT_OF(mesh_wall_keys)},
        {"wall.open", box_faces, COUNT_OF(box_faces)},
        {"wall.units", mesh_units, COUNT_OF(mesh_units)},
        {"wall.servo", servo_keys, COUNT_OF(servo_keys)},
        {"wall.motion", motion_kinds, COUNT_OF(motion_kinds)},
        {"wall.motion.rotate", rotate_keys, COUNT_OF(rotate_keys)},
        {"wall.motion.oscillate", oscillate_keys, COUNT_OF(oscillate_keys)},
        {"wall.motion.rock", rock_keys, COUNT_OF(rock_keys)},
    };
    const char *const *found = NULL;
    size_t n = 0;
    if (table) {
        for (size_t i = 0; i < COUNT_OF(tables) && !found; i++)
            if (strcmp(table, tables[i].table) == 0) {
                found = tables[i].names;
                n = tables[i].count;
            }
        if (!found) n = tl_load_shape_names(table, &found);
        if (!found) n = tl_load_particle_names(table, &found);
    }
    if (names) *names = found;
    return found ? n : 0;
}

void tl_scene_destroy(tl_scene *scene) {
    if (!scene) return;
    tl_world_destroy(scene->world);
    for (size_t i = 0; i < scene->nstages; i++) free(scene->stages[i].name);
    free(scene->stages);
    free(scene->stage_limits);
    free(scene->stage_runs);
    for (size_t i = 0; scene->stage_actions && i < scene->nstages; i++)
        free(scene->stage_actions[i].walls);
    free(scene->stage_actions);
    free(scene->inflows);
    free(scene->inflow_states);
    free(scene->walls);
    for (size_t i = 0; i < scene->noutputs; i++) {
        free(scene->outputs[i].file);
        tl_output_options_free(&scene->outputs[i]);
    }
    free(scene->outputs);
    free(scene->checkpoint.dir);
    free(scene->path);
    free(scene->title);
    free(scene->slug);
    free(scene);
}

tl_world *tl_scene_world(tl_scene *scene) { return scene ? scene->world : NULL; }
const char *tl_scene_name(const tl_scene *scene) { return scene ? scene->path : NULL; }
const char *tl_scene_title(const tl_scene *scene) { return scene ? scene->title : NULL; }
int tl_scene_stage_count(const tl_scene *scene) { return scene ? (int)scene->nstages : 0; }

const char *tl_scene_stage_name(const tl_scene *scene, int index) {
    if (!scene || index < 0 || (size_t)index >= scene->nstages) return NULL;
    return scene->stages[index].name;
}

/* the longest a stage can last: its duration, steps or max_duration, whichever is shortest */
static double stage_span(const tl_scene *scene, size_t i) {
    double dt = scene->world ? tl_world_dt(scene->world) : 0.0;
    double t = scene->stages[i].duration > 0.0 ? scene->stages[i].duration : INFINITY;
    const tl_stage_limits *st = scene->stage_limits ? &scene->stage_limits[i] : NULL;
    if (st && st->max_duration > 0.0) t = fmin(t, st->max_duration);
    if (st && st->steps > 0 && dt > 0.0) t = fmin(t, (double)st->steps * dt);
    return isfinite(t) ? t : 0.0;
}

double tl_scene_stage_duration(const tl_scene *scene, int index) {
    if (!scene || index < 0 || (size_t)index >= scene->nstages) return 0.0;
    return stage_span(scene, (size_t)index);
}

double tl_scene_duration(const tl_scene *scene) {
    double t = 0.0;
    for (size_t i = 0; scene && i < scene->nstages; i++) t += stage_span(scene, i);
    return t;
}

static const char *const stage_end_names[] = {"not run",      "duration",    "steps",
                                              "kinetic_energy_below", "max_duration",
                                              "interrupted",  "wall_displacement", "failed"};

tl_status tl_scene_stage_result(const tl_scene *scene, int index, tl_stage_result *out) {
    if (!scene || !out || index < 0 || (size_t)index >= scene->nstages) return TL_ERROR_NOT_FOUND;
    static const tl_stage_run none = {TL_STAGE_NOT_RUN, 0, 0.0, 0.0, NAN};
    const tl_stage_run *r = scene->stage_runs ? &scene->stage_runs[index] : &none;
    memset(out, 0, sizeof *out);
    out->name = scene->stages[index].name;
    out->ended_by = (unsigned)r->ended_by < COUNT_OF(stage_end_names) ? stage_end_names[r->ended_by]
                                                                      : "?";
    out->steps = r->steps;
    out->time_begin = r->t_begin;
    out->time_end = r->t_end;
    out->kinetic_energy = r->kinetic_energy;
    return TL_OK;
}

int tl_scene_output_count(const tl_scene *scene) { return scene ? (int)scene->noutputs : 0; }

tl_status tl_scene_output(const tl_scene *scene, int index, const char **kind, const char **file) {
    if (!scene || index < 0 || (size_t)index >= scene->noutputs) return TL_ERROR_NOT_FOUND;
    const tl_output_spec *o = &scene->outputs[index];
    const tl_output_kind_def *d = tl_output_kind_def_of(o->kind);
    if (kind) *kind = d ? d->name : "?";
    if (file) *file = o->file;
    return TL_OK;
}
