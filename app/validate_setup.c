/* What the validation cases share to set themselves up (validate.h): a material of the paper's
 * properties, a scene from its embedded text with a refusal written to the report, the ledger's
 * scale for a balance. */
#include "validate.h"

#include <math.h>

tl_material_def validate_material(const char *name, double density, double E, double nu,
                                  double yield) {
    tl_material_def m = tl_material_default();
    m.name = name;
    m.density = density;
    m.youngs_modulus = E;
    m.poisson_ratio = nu;
    m.yield_stress = yield;
    return m;
}

tl_scene *validate_scene(report *r, const char *text, const char *path, const char *label) {
    tl_scene *sc = NULL;
    tl_scene_error err;
    if (tl_scene_load_string(text, path, &sc, &err) == TL_OK) return sc;
    char buf[2048];
    tl_scene_error_format(&err, buf, sizeof buf);
    report_text(r, "\n%s: the scene was refused: %s\n", label, buf);
    return NULL;
}

void report_picture(const report *r, tl_world *w, const char *png, const tl_render_options *ro) {
    if (!r->owns_md || !r->plots) return;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", r->dir, png);
    if (tl_world_render(w, path, ro) != TL_OK)
        fprintf(stderr, "talus validate: cannot draw %s: %s\n", png, tl_world_error(w));
}

double validate_largest_term(const tl_energy *e) {
    double m = 0.0;
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) m = fmax(m, fabs(e->term[k]));
    return m;
}
