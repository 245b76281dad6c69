/* talus models: the registry of contact sub-models, slot by slot. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"

static void range_text(const tl_coeff_info *c, char *buf, size_t size) {
    char lo[48] = "", hi[48] = "";
    if (isfinite(c->min)) snprintf(lo, sizeof lo, "%g %s ", c->min, c->min_open ? "<" : "<=");
    if (isfinite(c->max)) snprintf(hi, sizeof hi, " %s %g", c->max_open ? "<" : "<=", c->max);
    snprintf(buf, size, "%s%s%s", lo, c->name, hi);
}

int cmd_models(int argc, char **argv) {
    if (app_wants_help(argc, argv)) {
        printf("usage: talus models   lists the contact sub-models of each slot, with their\n"
               "coefficients (unit, default, range) and sources; see docs/models.md\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "talus models: takes no arguments (got '%s')\n", argv[1]);
        return 2;
    }
    printf("Contact laws are assembled from one sub-model per slot (see docs/models.md).\n");
    for (int slot = 0; slot < TL_SLOT_COUNT; slot++) {
        printf("\n%s:\n", tl_slot_name((tl_slot)slot));
        for (int i = 0; i < tl_registry_count(); i++) {
            const tl_submodel_info *m = tl_registry_get(i);
            if ((int)m->slot != slot) continue;
            printf("  %-22s %s\n", m->name, m->summary);
            printf("  %-22s source: %s", "", m->source);
            if (m->history_count) printf("; %d history values per contact", m->history_count);
            printf("\n");
            for (int k = 0; k < m->coeff_count; k++) {
                const tl_coeff_info *c = &m->coeffs[k];
                char range[96], def[48];
                range_text(c, range, sizeof range);
                if (c->required) snprintf(def, sizeof def, "required");
                else if (isnan(c->default_value)) snprintf(def, sizeof def, "derived if absent");
                else snprintf(def, sizeof def, "default %g", c->default_value);
                printf("  %-22s   %-10s %-30s %-8s %s; %s\n", "", c->name, range,
                       c->unit[0] ? c->unit : "-", def, c->meaning);
            }
        }
    }
    printf("\nLaw options: clamp_tensile (default false), coulomb_test: total | spring (default total).\n");
    return 0;
}
