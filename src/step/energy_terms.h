/* The terms of the energy sums, visited one by one: the kinetic and potential energy of each
 * body and the elastic energy of each live contact record (step/measure.c sums them exactly for
 * tl_world_energy; step/blowup.c sums them plainly first). Inline, so that a caller's fn is
 * called directly in the loop over the bodies. */
#ifndef TL_ENERGY_TERMS_H
#define TL_ENERGY_TERMS_H

#include "contacts.h"
#include "vec.h"
#include "world.h"
#include "world_records.h"

/* The terms of the energy sums */
enum {
    TL_TERM_KT,
    TL_TERM_KR,
    TL_TERM_POT,
    TL_TERM_EN,
    TL_TERM_ET,
    TL_TERM_TORQUE, /* the torque slots' springs, by their place (laws/slots.h) */
    TL_TERM_FORCE = TL_TERM_TORQUE + TL_TORQUE_SLOTS, /* the force slots' potentials, by their place */
    TL_TERM_COUNT = TL_TERM_FORCE + TL_FORCE_SLOTS
};

/* the elastic terms of one record (its energy group) */
typedef struct terms_walk {
    int energy_at; /* the energy group's offset in a record */
    void (*fn)(void *user, int which, double x);
    void *user;
} terms_walk;
static inline void record_terms(const double *rec, void *u) {
    const terms_walk *t = u;
    const double *be = rec + t->energy_at;
    t->fn(t->user, TL_TERM_EN, be[TL_BE_E_N]);
    t->fn(t->user, TL_TERM_ET, be[TL_BE_E_T]);
    for (int k = 0; k < TL_TORQUE_SLOTS; k++) t->fn(t->user, TL_TERM_TORQUE + k, be[TL_BE_E_TORQUE + k]);
    for (int k = 0; k < TL_FORCE_SLOTS; k++) t->fn(t->user, TL_TERM_FORCE + k, be[TL_BE_E_FORCE + k]);
}

/* fn(user, which, x) for the kinetic and potential energy of the count bodies from first */
static inline void tl_world_body_terms(const tl_world *w, size_t first, size_t count,
                                       void (*fn)(void *user, int which, double x), void *user) {
    const tl_particles *p = &w->p;
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    for (size_t i = first; i < first + count; i++) {
        if (p->inv_mass[i] > 0.0) {
            fn(user, TL_TERM_KT, 0.5 * p->mass[i] * v3_norm2(p->v[i]));
            fn(user, TL_TERM_POT, -p->mass[i] * v3_dot(g, p->x[i]));
        }
        if (p->inv_inertia[i] > 0.0)
            fn(user, TL_TERM_KR,
               p->shape[i] ? 0.5 * v3_dot(p->w[i], p->am[i]) : 0.5 * p->inertia[i] * v3_norm2(p->w[i]));
    }
}

/* whether the contacts' records hold their elastic energy (the ledger keeps it) */
static inline bool tl_world_records_hold_energy(const tl_world *w) {
    return w->contacts.lay.energy >= 0 && w->def.track_energy;
}

/* the elastic energy of the live records whose first body is among the count from first */
static inline void tl_world_record_terms(const tl_world *w, size_t first, size_t count,
                                         void (*fn)(void *user, int which, double x), void *user) {
    if (!tl_world_records_hold_energy(w)) return;
    terms_walk t = {w->contacts.lay.energy, fn, user};
    tl_world_each_record(w, first, count, record_terms, &t);
}

/* fn(user, which, x) for every term of the count bodies from first: their kinetic and potential
 * energy, then the elastic energy of the live records whose first body is among them (when the
 * ledger keeps it) */
static inline void tl_world_energy_terms(const tl_world *w, size_t first, size_t count,
                                         void (*fn)(void *user, int which, double x), void *user) {
    tl_world_body_terms(w, first, count, fn, user);
    tl_world_record_terms(w, first, count, fn, user);
}

#endif
