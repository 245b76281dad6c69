/*
 * The table of a contact law's slots: its rows (TL_SLOTS, slots.h) in evaluation order, and the
 * public face of the slots. A new slot is its file (its sub-models' kernels and rows), its row in
 * TL_SLOTS and its tl_slot value.
 */
#include "slots.h"

#include <stdio.h>
#include <string.h>

#include "talus/talus.h"

const char *tl_history_default(const tl_law_def *def) {
    const char *t = def->tangential;
    return t && strcmp(t, "none") != 0 ? "true" : "none";
}

/* TL_TORQUE_SLOTS (submodel.h: the size of a contact's torque outputs) counts the torque rows */
#define IS_TORQUE(slot, key, summary, dflt, models, cls, place, dflt_of) +((cls) == TL_CLASS_TORQUE)
#define IS_FORCE(slot, key, summary, dflt, models, cls, place, dflt_of) +((cls) == TL_CLASS_FORCE)
_Static_assert(0 TL_SLOTS(IS_TORQUE) == TL_TORQUE_SLOTS, "TL_TORQUE_SLOTS must count the torque rows of TL_SLOTS");
_Static_assert(0 TL_SLOTS(IS_FORCE) == TL_FORCE_SLOTS, "TL_FORCE_SLOTS must count the force rows of TL_SLOTS");
#undef IS_TORQUE
#undef IS_FORCE

#define ROW(slot, key, summary, dflt, models, cls, place, dflt_of)                                                  \
    {{slot, #key, summary, dflt}, offsetof(tl_law_def, key), models, cls, place, dflt_of},
static const tl_slot_row slot_rows[TL_SLOT_COUNT] = {TL_SLOTS(ROW)};
#undef ROW

const tl_slot_row *tl_slot_row_get(int slot) {
    return slot >= 0 && slot < TL_SLOT_COUNT ? &slot_rows[slot] : NULL;
}

void tl_slot_models_text(const char *const names[TL_SLOT_COUNT], char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const tl_slot_row *row = &slot_rows[s];
        const char *name = names[s] ? names[s] : "?";
        /* the optional slots (torque, force) by key and model, and only when used */
        bool named = row->cls == TL_CLASS_TORQUE || row->cls == TL_CLASS_FORCE;
        if (named && strcmp(name, "none") == 0) continue;
        int n = snprintf(buf + used, size - used, "%s%s%s%s", used ? " + " : "", named ? row->info.key : "",
                         named ? " " : "", name);
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
    }
}

/* ---- public face ---- */

const tl_slot_info *tl_slot_get(tl_slot slot) {
    const tl_slot_row *r = tl_slot_row_get((int)slot);
    return r ? &r->info : NULL;
}

const char *tl_slot_name(tl_slot slot) {
    const tl_slot_row *r = tl_slot_row_get((int)slot);
    return r ? r->info.key : "?";
}

int tl_slot_find(const char *key) {
    if (!key) return -1;
    for (int s = 0; s < TL_SLOT_COUNT; s++)
        if (strcmp(slot_rows[s].info.key, key) == 0) return s;
    return -1;
}

const char *tl_law_model(const tl_law_def *law, tl_slot slot) {
    const tl_slot_row *r = tl_slot_row_get((int)slot);
    if (!law || !r) return NULL;
    const char *named = tl_law_def_named(law, (int)slot);
    if (named) return named;
    return r->default_of ? r->default_of(law) : r->info.default_model;
}

tl_status tl_law_choose(tl_law_def *law, const char *slot, const char *model) {
    if (!law || !slot) return TL_ERROR_ARGUMENT;
    int s = tl_slot_find(slot);
    if (s < 0) return TL_ERROR_NOT_FOUND;
    const tl_submodel *m = NULL;
    for (const tl_submodel *r = slot_rows[s].models; model && r->info.name && !m; r++)
        if (strcmp(r->info.name, model) == 0) m = r;
    if (model && !m) return TL_ERROR_NOT_FOUND;
    *tl_law_def_slot(law, s) = m ? m->info.name : NULL; /* the registry's string: outlives the caller's */
    return TL_OK;
}
