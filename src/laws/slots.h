/*
 * The table of a contact law's slots: one row per slot (normal, damping, tangential, history,
 * rolling, twisting), in the order a law evaluates them. A row holds the slot's public face
 * (its key, summary and default model: tl_slot_info), its sub-models (the rows of its file),
 * how the law composes it (its class) and, for a torque slot, its place among the torque slots
 * (its output in tl_contact and its stored energy in a contact record).
 *
 * What derives from this table: the registry's lookups, the law's assembly and defaults, the
 * scene's law keys, the collision lab's --KEY flags, `talus models` and `talus check`, the
 * Python keywords, and (with energy_table.h) the ledger's terms a slot books.
 */
#ifndef TL_SLOTS_H
#define TL_SLOTS_H

#include <stddef.h>

#include "submodel.h"

/* How a law composes a slot (law.h, tl_law_eval_scaled). */
typedef enum tl_slot_class {
    TL_CLASS_NORMAL = 0, /* the elastic normal force */
    TL_CLASS_DAMPING,    /* the normal dashpot */
    TL_CLASS_HISTORY,    /* keeps the tangential displacement (update before, commit after) */
    TL_CLASS_TANGENTIAL, /* the tangential force and its Coulomb limit */
    TL_CLASS_FORCE,      /* a normal force added after the clamp (before the tangential slot, which sees
                          * it in c->fn): its inputs those of the normal slot and ra, rb; its output
                          * c->fo (tl_force_out), its force added to c->fn; its potential stored in
                          * the record, what it loses booked as its dissipated term */
    TL_CLASS_TORQUE      /* a torque against a relative rotation, after the forces: its inputs
                          * wr, dth, i_eff; its output c->tq (tl_torque_out), added to c->mr;
                          * its history begins with its spring torque (3) then its dashpot
                          * torque (3) of the last evaluation, which the ledger books */
} tl_slot_class;

/* The rows of each slot file, terminated by a row with a NULL name. */
extern const tl_submodel tl_normal_models[];
extern const tl_submodel tl_damping_models[];
extern const tl_submodel tl_tangential_models[];
extern const tl_submodel tl_history_models[];
extern const tl_submodel tl_rolling_models[];
extern const tl_submodel tl_twisting_models[];
extern const tl_submodel tl_cohesion_models[];

typedef struct tl_slot_row {
    tl_slot_info info;
    size_t field;              /* its member in tl_law_def (named by its key): offsetof */
    const tl_submodel *models; /* the slot file's rows, ended by a row with a NULL name */
    tl_slot_class cls;
    int place;                 /* its place among the slots of its class: TL_CLASS_TORQUE 0 ..
                                * TL_TORQUE_SLOTS - 1, TL_CLASS_FORCE 0 .. TL_FORCE_SLOTS - 1; else -1 */
    /* the default when it depends on the other slots (history), else NULL: info.default_model */
    const char *(*default_of)(const tl_law_def *def);
} tl_slot_row;

/* The table: one row per slot, in its tl_slot value's order (a law evaluates each class in its
 * place: law.h, and the slots of a class in this order):
 *   X(slot, key, summary, default model, sub-models, class, place in its class, default function)
 * (the key is an identifier: its member in tl_law_def is named by it)
 * slots.c makes the rows of it; a list of the keys is TL_SLOTS(TL_SLOT_KEY) (the scene's law keys). */
#define TL_SLOTS(X)                                                                                            \
    X(TL_SLOT_NORMAL, normal, "the elastic normal force and the energy its spring stores", NULL,           \
      tl_normal_models, TL_CLASS_NORMAL, -1, NULL)                                                             \
    X(TL_SLOT_DAMPING, damping, "the normal dashpot", "none", tl_damping_models, TL_CLASS_DAMPING, -1, NULL)  \
    X(TL_SLOT_TANGENTIAL, tangential, "the tangential force and its Coulomb limit", "none",                  \
      tl_tangential_models, TL_CLASS_TANGENTIAL, -1, NULL)                                                     \
    X(TL_SLOT_HISTORY, history, "how the tangential displacement is kept between steps", "true",            \
      tl_history_models, TL_CLASS_HISTORY, -1, tl_history_default)                                             \
    X(TL_SLOT_ROLLING, rolling, "rolling resistance: a torque against the bodies' relative rolling", "none", \
      tl_rolling_models, TL_CLASS_TORQUE, 0, NULL)                                                             \
    X(TL_SLOT_TWISTING, twisting,                                                                            \
      "twisting resistance: a torque against the relative spin about the normal", "none", tl_twisting_models,  \
      TL_CLASS_TORQUE, 1, NULL)                                                                                \
    X(TL_SLOT_COHESION, cohesion, "cohesion: an adhesive normal force and its potential", "none",            \
      tl_cohesion_models, TL_CLASS_FORCE, 0, NULL)
#define TL_SLOT_KEY(slot, key, ...) #key,

/* history's default: the true displacement with a tangential model, else none */
const char *tl_history_default(const tl_law_def *def);

/* "hertz + tsuji + mindlin + true + rolling epsd": a law's models by slot, for messages (a torque
 * slot named with its key, and only when its model is not none). */
void tl_slot_models_text(const char *const names[TL_SLOT_COUNT], char *buf, size_t size);

/* The row of a slot (NULL out of range). */
const tl_slot_row *tl_slot_row_get(int slot);

/* The model a law definition names in a slot (its member; NULL: not named), and a place to set it. */
static inline const char *tl_law_def_named(const tl_law_def *def, int slot) {
    return *(const char *const *)(const void *)((const char *)def + tl_slot_row_get(slot)->field);
}
static inline const char **tl_law_def_slot(tl_law_def *def, int slot) {
    return (const char **)(void *)((char *)def + tl_slot_row_get(slot)->field);
}

#endif
