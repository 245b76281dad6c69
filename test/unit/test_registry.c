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

int main(void) {
    test_docs_cover_registry();
    test_law_validation();
    test_parameter_validation();
    test_missing_law();
    return tl_test_report("test_registry");
}
