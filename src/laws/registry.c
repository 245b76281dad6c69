/*
 * The one table of contact sub-models. The rows live next to their kernels
 * in the slot files; this file presents them as a single table in the order of
 * the table of slots (slots.c) and answers lookups.
 */
#include "registry.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "slots.h"
#include "vec.h"
#include "talus/talus.h"

/* the sub-models of a slot: its row's (slots.c) */
static const tl_submodel *slot_models(int slot) { return tl_slot_row_get(slot)->models; }

static int slot_size(int slot) {
    int n = 0;
    while (slot_models(slot)[n].info.name) n++;
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
        if (index < n) return &slot_models(s)[index];
        index -= n;
    }
    return NULL;
}

const tl_submodel *tl_registry_lookup(tl_slot slot, const char *name) {
    if ((int)slot < 0 || slot >= TL_SLOT_COUNT || !name) return NULL;
    for (const tl_submodel *r = slot_models(slot); r->info.name; r++)
        if (strcmp(r->info.name, name) == 0) return r;
    return NULL;
}

const char *tl_registry_suggest(tl_slot slot, const char *name) {
    const char *names[64];
    size_t n = 0;
    for (const tl_submodel *r = slot_models(slot); r->info.name && n < 64; r++) names[n++] = r->info.name;
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
