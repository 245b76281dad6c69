/*
 * Removing particles between steps (tl_world_remove_particles), all or nothing: every id is
 * checked before anything changes. A removal takes the particles' contacts with them: the lists
 * are rebuilt at once (step.c, tl_world_rebuild_keeping) and the contact records are carried
 * over by the ids of their bodies, as at any rebuild, so the records of a removed particle
 * (their history included) stay behind. The energy the removed particles take with them leaves
 * through the boundary, as that of a particle leaving the domain does (step.c, remove_lost):
 * their kinetic and potential energy (gravity's and that of a constant external force) and the
 * elastic energy of their contacts are taken off boundary_work, so the total of the ledger
 * (tl_energy.total) does not change. The forces those contacts exerted in the last step still
 * act on the particles that remain during the first half of the next step's kick (the force of
 * step n belongs to step n in the integrator), a work of the order of the step's integration
 * error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contacts.h"
#include "energy_terms.h"
#include "external.h"
#include "stages.h"
#include "vec.h"
#include "world.h"
#include "world_edit.h"

/* The elastic energy of one record (its energy group). */
static double record_elastic(const tl_world *w, const double *rec) {
    const double *be = rec + w->contacts.lay.energy;
    double e = be[TL_BE_E_N] + be[TL_BE_E_T];
    for (int t = 0; t < TL_TORQUE_SLOTS; t++) e += be[TL_BE_E_TORQUE + t];
    for (int t = 0; t < TL_FORCE_SLOTS; t++) e += be[TL_BE_E_FORCE + t];
    return e;
}

/* The elastic energy held by the touching contacts of the particles whose keep[i] is 0. */
static double leaving_elastic(const tl_world *w, const uint8_t *keep) {
    if (!w->prepared || !tl_world_records_hold_energy(w)) return 0.0;
    double e = 0.0;
    const tl_pairs *pp = &w->contacts.pp, *pw = &w->contacts.pw;
    for (size_t k = 0; k < pp->count; k++)
        if ((pp->state[k] & TL_PAIR_TOUCH) && (!keep[pp->a[k]] || !keep[pp->b[k]]))
            e += record_elastic(w, tl_pair_record(pp, k));
    for (size_t k = 0; k < pw->count; k++)
        if ((pw->state[k] & TL_PAIR_TOUCH) && !keep[pw->a[k]]) e += record_elastic(w, tl_pair_record(pw, k));
    const tl_shape_contacts *sc = &w->contacts.sc;
    const tl_patch_store *st = &sc->store[sc->cur];
    for (size_t k = 0; k < sc->cand.count && sc->live[sc->cur]; k++) {
        if (keep[sc->cand.a[k]] && (sc->cand.wall[k] || keep[sc->cand.b[k]])) continue;
        const size_t first = sc->first[sc->cur][k], m = sc->live[sc->cur][k];
        for (size_t r = first; r < first + m && r < st->count; r++)
            e += record_elastic(w, st->rec + r * (size_t)sc->stride);
    }
    return e;
}

tl_status tl_world_remove_particles(tl_world *w, const uint32_t *ids, size_t n) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (n == 0) return TL_OK;
    if (!ids) return tl_world_fail(w, TL_ERROR_ARGUMENT, "remove particles: ids are needed");
    tl_status s = tl_edit_refuse_distributed(w, "remove particles");
    if (s != TL_OK) return s;
    tl_particles *p = &w->p;
    size_t *idx = malloc(n * sizeof *idx);
    uint8_t *keep = malloc(p->count ? p->count : 1);
    if (!idx || !keep) {
        free(idx);
        free(keep);
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    }
    s = tl_edit_find_all(w, "remove particles", ids, n, idx, keep);
    if (s != TL_OK) {
        free(idx);
        free(keep);
        return s;
    }
    for (size_t i = 0; i < p->count; i++) keep[i] = !keep[i]; /* find_all marked the removed */
    /* what leaves: the bodies' kinetic and potential energy, as the ledger counts them
     * (tl_world_body_terms, tl_external_potential), and their contacts' elastic energy */
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    double out = leaving_elastic(w, keep);
    for (size_t k = 0; k < n; k++) {
        const size_t i = idx[k];
        if (p->inv_mass[i] > 0.0) {
            out += 0.5 * p->mass[i] * v3_norm2(p->v[i]) - p->mass[i] * v3_dot(g, p->x[i]);
            const double *fe = tl_external_force_of(w, p->id[i]);
            if (fe) out -= v3_dot(fe, p->x[i]);
        }
        if (p->inv_inertia[i] > 0.0) out += tl_edit_spin_energy(p, i);
    }
    free(idx);
    w->books.ledger.boundary_work -= out;
    /* nothing of theirs is left to find them by id: their external forces, the contacts of
     * theirs that ended in the last step and wait for the collision log */
    tl_external_drop(w, keep);
    size_t m = 0;
    for (size_t k = 0; k < w->log.npend; k++) {
        const tl_pending_exit *e = &w->log.pend[k];
        int64_t a = tl_particles_index(p, e->a), b = e->wall ? 0 : tl_particles_index(p, e->b);
        if ((a >= 0 && !keep[a]) || (b >= 0 && !e->wall && !keep[b])) continue;
        w->log.pend[m++] = *e;
    }
    w->log.npend = m;
    if (w->prepared) {
        s = tl_world_rebuild_keeping(w, keep);
    } else if (tl_particles_compact(&w->mem, p, keep) != 0) {
        /* not prepared: no contact yet (the lists are made when it is) */
        s = tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    } else {
        size_t nb = 0;
        for (size_t i = 0; i < p->count; i++) nb += p->shape[i] != 0;
        w->shapes.nbodies = nb;
        w->broad.dirty = true;
        w->touch.step = -1;
    }
    free(keep);
    w->books.blowup.passed = -1;
    return s;
}
