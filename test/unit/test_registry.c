/* The registry of sub-models, law assembly and parameter validation: the
 * messages name the key and its allowed range; docs/models.md documents
 * every sub-model and coefficient. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

#ifndef TALUS_SOURCE_DIR
#define TALUS_SOURCE_DIR "."
#endif

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (b) b[n] = '\0';
    fclose(f);
    return b;
}

static void test_docs_cover_registry(void) {
    char *doc = read_file(TALUS_SOURCE_DIR "/docs/models.md");
    ENSURE(doc != NULL);
    if (!doc) return;
    ENSURE(tl_registry_count() >= 16);
    for (int i = 0; i < tl_registry_count(); i++) {
        const tl_submodel_info *m = tl_registry_get(i);
        char key[128];
        snprintf(key, sizeof key, "`%s`", m->name);
        if (!strstr(doc, key)) fprintf(stderr, "docs/models.md lacks %s (%s)\n", key, tl_slot_name(m->slot));
        ENSURE(strstr(doc, key) != NULL);
        ENSURE(m->source && m->source[0]);
        for (int k = 0; k < m->coeff_count; k++) {
            snprintf(key, sizeof key, "`%s`", m->coeffs[k].name);
            if (!strstr(doc, key)) fprintf(stderr, "docs/models.md lacks coefficient %s\n", key);
            ENSURE(strstr(doc, key) != NULL);
        }
        ENSURE(tl_registry_find(m->slot, m->name) == m);
    }
    free(doc);
}

typedef struct setup {
    tl_world *w;
    int sand, steel;
} setup;

static setup make(void) {
    setup s;
    tl_world_def wd = tl_world_default();
    tl_world_create(&wd, &s.w);
    tl_material_def md = tl_material_default();
    md.name = "sand";
    md.density = 2500;
    md.youngs_modulus = 1e7;
    tl_world_add_material(s.w, &md, &s.sand);
    md.name = "steel";
    md.youngs_modulus = 0; /* no elastic constants */
    md.k_n = 1e6;
    tl_world_add_material(s.w, &md, &s.steel);
    return s;
}

static void expect_message(tl_status st, tl_world *w, const char *a, const char *b) {
    ENSURE(st != TL_OK);
    const char *msg = tl_world_error(w);
    bool ok = strstr(msg, a) && (!b || strstr(msg, b));
    if (!ok) fprintf(stderr, "unexpected message: %s (wanted '%s'%s%s)\n", msg, a, b ? " and " : "", b ? b : "");
    ENSURE(ok);
}

static void test_law_validation(void) {
    setup s = make();
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", 1.5);
    tl_law_set(&law, "mu", 0.5);
    expect_message(tl_world_set_law(s.w, s.sand, s.sand, &law), s.w, "e = 1.5", "0 < e <= 1");
    law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", -0.1);
    expect_message(tl_world_set_law(s.w, s.sand, s.sand, &law), s.w, "mu = -0.1", "0 <= mu");
    law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "muu", 0.3);
    expect_message(tl_world_set_law(s.w, s.sand, s.sand, &law), s.w, "unknown coefficient 'muu'", "did you mean 'mu'");
    law = tl_law_default();
    tl_law_set(&law, "mu", 0.3);
    expect_message(tl_world_set_law(s.w, s.sand, s.sand, &law), s.w, "needs coefficient 'e'", NULL);
    law = tl_law_default();
    law.normal = "herz";
    expect_message(tl_world_set_law(s.w, s.sand, s.sand, &law), s.w, "unknown normal model 'herz'", "did you mean 'hertz'");
    law = tl_law_default();
    law.normal = "linear";
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.5);
    expect_message(tl_world_set_law(s.w, s.sand, s.sand, &law), s.w, "damping 'tsuji' does not fit normal 'linear'", "hertz");
    law = tl_law_default();
    law.tangential = "none";
    law.history = "true";
    tl_law_set(&law, "e", 0.5);
    expect_message(tl_world_set_law(s.w, s.sand, s.sand, &law), s.w, "has no effect without a tangential model", NULL);
    /* properties the materials lack are reported when the pair meets */
    law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.5);
    ENSURE_OK(tl_world_set_law(s.w, s.sand, s.steel, &law));
    ENSURE_OK(tl_world_set_law(s.w, s.sand, s.sand, &law));
    tl_wall_def wd = tl_wall_default();
    wd.material = s.steel;
    tl_world_add_wall(s.w, &wd, NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = s.sand;
    pd.radius = 1e-3;
    pd.position.z = 0.01;
    tl_world_add_particle(s.w, &pd, NULL);
    expect_message(tl_world_prepare(s.w), s.w, "youngs_modulus", "'steel'");
    tl_world_destroy(s.w);
}

static void test_parameter_validation(void) {
    setup s = make();
    tl_material_def md = tl_material_default();
    md.name = "bad";
    md.density = 2500;
    md.poisson_ratio = 0.5;
    expect_message(tl_world_add_material(s.w, &md, NULL), s.w, "poisson_ratio", "-1 < nu < 0.5");
    md.poisson_ratio = 0.3;
    md.youngs_modulus = -1;
    expect_message(tl_world_add_material(s.w, &md, NULL), s.w, "youngs_modulus", "> 0 Pa");
    md.youngs_modulus = 1e7;
    md.name = "sand";
    expect_message(tl_world_add_material(s.w, &md, NULL), s.w, "defined twice", NULL);
    tl_particle_def pd = tl_particle_default();
    pd.material = s.sand;
    pd.radius = 0.0;
    expect_message(tl_world_add_particle(s.w, &pd, NULL), s.w, "radius must be from 1e-12 to 1e+12 m", NULL);
    pd.radius = 1e-3;
    pd.position.x = NAN;
    expect_message(tl_world_add_particle(s.w, &pd, NULL), s.w, "finite", NULL);
    tl_world_destroy(s.w);
    tl_world_def wd = tl_world_default();
    wd.steps_per_contact = 0.5;
    tl_world *w = NULL;
    tl_status st = tl_world_create(&wd, &w);
    expect_message(st, w, "steps_per_contact must be >= 1", NULL);
    tl_world_destroy(w);
}

static void test_missing_law(void) {
    setup s = make();
    tl_particle_def pd = tl_particle_default();
    pd.material = s.sand;
    pd.radius = 1e-3;
    tl_world_add_particle(s.w, &pd, NULL);
    expect_message(tl_world_prepare(s.w), s.w, "no contact law between materials 'sand' and 'sand'", NULL);
    tl_world_destroy(s.w);
}

/* The table of slots and the table of energy terms hold together: rows in their enum's order,
 * keys found back, each sub-model under its slot, each term a member of tl_energy at its index,
 * the measured terms before the booked ones (the stages book by term - TL_ENERGY_DISSIPATED_NORMAL),
 * each optional torque slot with its elastic and dissipated terms; tl_law_choose and
 * tl_law_model by key, defaults as a scene's. */
static void test_tables(void) {
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const tl_slot_info *si = tl_slot_get((tl_slot)s);
        ENSURE(si && si->slot == (tl_slot)s && tl_slot_find(si->key) == s);
        ENSURE(strcmp(tl_slot_name((tl_slot)s), si->key) == 0);
    }
    ENSURE(tl_slot_get(TL_SLOT_COUNT) == NULL && tl_slot_find("adhesion") == -1 && tl_slot_find("cohesion") == TL_SLOT_COHESION);
    for (int i = 0; i < tl_registry_count(); i++) {
        const tl_submodel_info *m = tl_registry_get(i);
        ENSURE(tl_registry_find(m->slot, m->name) == m);
    }
    tl_energy e;
    memset(&e, 0, sizeof e);
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) {
        const tl_energy_term_info *t = tl_energy_term_get(k);
        ENSURE(t && (int)t->term == k && (t->sign == 1 || t->sign == -1));
        bool measured = t->kind == TL_ENERGY_KIND_KINETIC || t->kind == TL_ENERGY_KIND_POTENTIAL ||
                        t->kind == TL_ENERGY_KIND_ELASTIC;
        if (measured != (k < TL_ENERGY_DISSIPATED_NORMAL)) fprintf(stderr, "term %s out of its place\n", t->name);
        ENSURE(measured == (k < TL_ENERGY_DISSIPATED_NORMAL));
        ENSURE(t->slot >= -1 && t->slot < TL_SLOT_COUNT);
        for (int j = 0; j < k; j++) ENSURE(strcmp(tl_energy_term_get(j)->name, t->name) != 0);
        e.term[k] = (double)(k + 1);
    }
    ENSURE(tl_energy_term_get(TL_ENERGY_TERM_COUNT) == NULL);
    /* the named members are the term[] view (a few checked by name) */
    ENSURE(e.kinetic_translational == 1.0 && e.elastic_twisting == 1.0 + TL_ENERGY_ELASTIC_TWISTING &&
           e.dissipated_rolling == 1.0 + TL_ENERGY_DISSIPATED_ROLLING && e.curvature_work == 1.0 + TL_ENERGY_CURVATURE_WORK &&
           e.tangential_stiffness_work == (double)TL_ENERGY_TERM_COUNT);
    for (int s = TL_SLOT_ROLLING; s <= TL_SLOT_COHESION; s++) { /* the optional slots: two terms each */
        int elastic = 0, dissipated = 0;
        for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) {
            const tl_energy_term_info *t = tl_energy_term_get(k);
            elastic += t->slot == s && t->kind == TL_ENERGY_KIND_ELASTIC;
            dissipated += t->slot == s && t->kind == TL_ENERGY_KIND_DISSIPATED;
        }
        ENSURE(elastic == 1 && dissipated == 1);
    }
    tl_law_def d = tl_law_default();
    ENSURE(tl_law_choose(&d, "tangential", "none") == TL_OK);
    ENSURE(strcmp(tl_law_model(&d, TL_SLOT_TANGENTIAL), "none") == 0);
    ENSURE(tl_law_choose(&d, "history", NULL) == TL_OK && strcmp(tl_law_model(&d, TL_SLOT_HISTORY), "none") == 0);
    ENSURE(tl_law_choose(&d, "tangential", "mindlin") == TL_OK && strcmp(tl_law_model(&d, TL_SLOT_HISTORY), "true") == 0);
    ENSURE(tl_law_choose(&d, "rolling", "epsd") == TL_OK && strcmp(d.rolling, "epsd") == 0);
    ENSURE(tl_law_choose(&d, "rolling", "epsdd") == TL_ERROR_NOT_FOUND && strcmp(d.rolling, "epsd") == 0);
    ENSURE(tl_law_choose(&d, "rollin", "epsd") == TL_ERROR_NOT_FOUND);
    ENSURE(strcmp(tl_law_model(&d, TL_SLOT_TWISTING), "none") == 0);
    d.normal = NULL;
    ENSURE(tl_law_model(&d, TL_SLOT_NORMAL) == NULL); /* a law must name its normal model */
}

int main(void) {
    test_tables();
    test_docs_cover_registry();
    test_law_validation();
    test_parameter_validation();
    test_missing_law();
    return tl_test_report("test_registry");
}
