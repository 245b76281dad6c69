/* The live contact records of the world's lists (world_records.h). */
#include "world_records.h"

/* Visits the live contact records whose first body is one of the count bodies from first (a
 * pair between two ranks is held by both: the owner of its first body counts it): the touching
 * particle pairs, the particle-wall pairs, then the patches of the other shapes' contacts. */
void tl_world_each_record(const tl_world *w, size_t first, size_t count, void (*fn)(const double *rec, void *user),
                          void *user) {
    const tl_pairs *lists[2] = {&w->contacts.pp, &w->contacts.pw};
    for (int li = 0; li < 2; li++) {
        const tl_pairs *l = lists[li];
        for (size_t k = 0; k < l->count; k++) {
            if (!(l->state[k] & TL_PAIR_TOUCH)) continue;
            if (l->a[k] < first || l->a[k] >= first + count) continue;
            fn(tl_pair_record(l, k), user);
        }
    }
    const tl_shape_contacts *sc = &w->contacts.sc;
    const tl_patch_store *st = &sc->store[sc->cur];
    for (size_t k = 0; k < sc->cand.count; k++) {
        if (sc->cand.a[k] < first || sc->cand.a[k] >= first + count) continue;
        const size_t f = sc->first[sc->cur][k], m = sc->live[sc->cur][k];
        for (size_t r = f; r < f + m && r < st->count; r++) fn(st->rec + r * (size_t)sc->stride, user);
    }
}
