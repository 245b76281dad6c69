/*
 * The one table of contact sub-models. The rows live next to their kernels
 * in the slot files; this file presents them as a single table in slot
 * order (normal, damping, tangential, history, rolling, twisting) and answers lookups.
 */
#include "registry.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "vec.h"
#include "talus/talus.h"

static const tl_submodel *const slot_rows[TL_SLOT_COUNT] = {
    tl_normal_models, tl_damping_models, tl_tangential_models, tl_history_models, tl_rolling_models,
    tl_twisting_models};

static int slot_size(int slot) {
    int n = 0;
    while (slot_rows[slot][n].info.name) n++;
    return n;
}

int tl_registry_size(void) {
    int n = 0;
    for (int s = 0; s < TL_SLOT_COUNT; s++) n += slot_size(s);
    return n;
}

const tl_submodel *tl_registry_row(int index) {
    if (index < 0) return NULL;
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        int n = slot_size(s);
        if (index < n) return &slot_rows[s][index];
        index -= n;
    }
    return NULL;
}

const tl_submodel *tl_registry_lookup(tl_slot slot, const char *name) {
    if ((int)slot < 0 || slot >= TL_SLOT_COUNT || !name) return NULL;
    for (const tl_submodel *r = slot_rows[slot]; r->info.name; r++)
        if (strcmp(r->info.name, name) == 0) return r;
    return NULL;
}

const char *tl_registry_suggest(tl_slot slot, const char *name) {
    const char *names[64];
    size_t n = 0;
    for (const tl_submodel *r = slot_rows[slot]; r->info.name && n < 64; r++) names[n++] = r->info.name;
    return tl_closest_name(name, names, n);
}

/* ---- public face ---- */

int tl_registry_count(void) { return tl_registry_size(); }

const tl_submodel_info *tl_registry_get(int index) {
    const tl_submodel *r = tl_registry_row(index);
    return r ? &r->info : NULL;
}

const tl_submodel_info *tl_registry_find(tl_slot slot, const char *name) {
    const tl_submodel *r = tl_registry_lookup(slot, name);
    return r ? &r->info : NULL;
}

const char *tl_slot_name(tl_slot slot) {
    switch (slot) {
    case TL_SLOT_NORMAL: return "normal";
    case TL_SLOT_DAMPING: return "damping";
    case TL_SLOT_TANGENTIAL: return "tangential";
    case TL_SLOT_HISTORY: return "history";
    case TL_SLOT_ROLLING: return "rolling";
    case TL_SLOT_TWISTING: return "twisting";
    default: return "?";
    }
}
