/*
 * Changing many particles at once, between steps: one field of a set of
 * particles (positions, velocities, angular velocities, constant external
 * forces); the removal of particles, which rebuilds the lists, is the step's
 * (step/remove.c) and shares the checks below (world_edit.h).
 *
 * Both are all or nothing: every id and every value is checked before
 * anything changes, so a refused call leaves the world as it was.
 *
 * A removal takes the particles' contacts with them: the lists are rebuilt at
 * once (step.c, tl_world_rebuild_keeping) and the contact records are carried
 * over by the ids of their bodies, as at any rebuild, so the records of a
 * removed particle (their history included) stay behind. The energy the
 * removed particles take with them leaves through the boundary, as that of a
 * particle leaving the domain does (step.c, remove_lost): their kinetic and
 * potential energy (gravity's and that of a constant external force) and the
 * elastic energy of their contacts are taken off boundary_work, so the total
 * of the ledger (tl_energy.total) does not change. The forces those contacts
 * exerted in the last step still act on the particles that remain during the
 * first half of the next step's kick (the force of step n belongs to step n
 * in the integrator), a work of the order of the step's integration error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contacts.h"
#include "rigid.h"
#include "vec.h"
#include "world.h"
#include "world_edit.h"
#include "external.h"

static const char *field_name(tl_particle_set f) {
    switch (f) {
    case TL_SET_POSITION: return "positions";
    case TL_SET_VELOCITY: return "velocities";
    case TL_SET_ANGULAR_VELOCITY: return "angular velocities";
    case TL_SET_EXTERNAL_FORCE: return "external forces";
    }
    return "?";
}

/* A world spread over ranks keeps its particles apart: these calls are serial (or before the
 * world is prepared, when every rank makes the same calls). */
tl_status tl_edit_refuse_distributed(tl_world *w, const char *what) {
    if (w->ranks.ops && (w->ranks.established || w->prepared))
        return tl_world_fail(w, TL_ERROR_STATE,
                             "%s: not available on a world spread over MPI ranks (tl_world_distribute) once it "
                             "is prepared; make the change before the first step, on every rank alike",
                             what);
    return TL_OK;
}

/* Each id's storage index into idx (n of them), every id known and given once; mark has
 * room for the store (zeroed here). */
tl_status tl_edit_find_all(tl_world *w, const char *what, const uint32_t *ids, size_t n, size_t *idx,
                           uint8_t *mark) {
    memset(mark, 0, w->p.count);
    for (size_t k = 0; k < n; k++) {
        int64_t i = tl_particles_index(&w->p, ids[k]);
        if (i < 0)
            return tl_world_fail(w, TL_ERROR_NOT_FOUND, "%s: no particle with id %u (ids[%zu]); nothing was changed",
                                 what, (unsigned)ids[k], k);
        if (mark[i])
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "%s: particle %u is given twice (ids[%zu] again); give each id once; nothing was "
                                 "changed",
                                 what, (unsigned)ids[k], k);
        mark[i] = 1;
        idx[k] = (size_t)i;
    }
    return TL_OK;
}

/* The checks of one value of field f for particle i (ids[k]). */
static tl_status check_value(tl_world *w, tl_particle_set f, const uint32_t *ids, size_t k, size_t i,
                             const double *v) {
    const char *what = field_name(f);
    if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "%s: the value of particle %u (row %zu) is not finite: (%g, %g, %g); nothing was "
                             "changed",
                             what, (unsigned)ids[k], k, v[0], v[1], v[2]);
    if ((f == TL_SET_VELOCITY || f == TL_SET_ANGULAR_VELOCITY) && (w->p.flags[i] & TL_PARTICLE_FIXED))
        return tl_world_fail(w, TL_ERROR_STATE,
                             "%s: particle %u (row %zu) is fixed: it does not move, so it takes no velocity (a "
                             "prescribed particle does); nothing was changed",
                             what, (unsigned)ids[k], k);
    if (f != TL_SET_POSITION) return TL_OK;
    for (int d = 0; d < 3; d++) {
        if (!(fabs(v[d]) <= TL_MAX_COORDINATE))
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "%s: particle %u (row %zu) would lie at %c = %g m, beyond +-%g m (the limit on "
                                 "coordinates); nothing was changed",
                                 what, (unsigned)ids[k], k, "xyz"[d], v[d], TL_MAX_COORDINATE);
        if (!w->def.has_domain || w->def.periodic[d]) continue;
        const double lo = d == 0 ? w->def.domain_min.x : d == 1 ? w->def.domain_min.y : w->def.domain_min.z;
        const double hi = d == 0 ? w->def.domain_max.x : d == 1 ? w->def.domain_max.y : w->def.domain_max.z;
        if (!(v[d] >= lo && v[d] <= hi))
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "%s: particle %u (row %zu) would lie at %c = %g m, outside the domain (%g to %g "
                                 "m on that axis), where it would be removed; nothing was changed",
                                 what, (unsigned)ids[k], k, "xyz"[d], v[d], lo, hi);
    }
    return TL_OK;
}

/* The rotational kinetic energy of particle i as the ledger counts it. */
double tl_edit_spin_energy(const tl_particles *p, size_t i) {
    return p->shape[i] ? 0.5 * v3_dot(p->w[i], p->am[i]) : 0.5 * p->inertia[i] * v3_norm2(p->w[i]);
}

tl_status tl_world_set_particles(tl_world *w, tl_particle_set f, const uint32_t *ids, size_t n,
                                 const double *values) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (f != TL_SET_POSITION && f != TL_SET_VELOCITY && f != TL_SET_ANGULAR_VELOCITY &&
        f != TL_SET_EXTERNAL_FORCE)
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "set particles: unknown field %d (TL_SET_POSITION, _VELOCITY, _ANGULAR_VELOCITY or "
                             "_EXTERNAL_FORCE)",
                             (int)f);
    if (n == 0) return TL_OK;
    if (!ids || !values) return tl_world_fail(w, TL_ERROR_ARGUMENT, "set %s: ids and values are needed", field_name(f));
    tl_status s = tl_edit_refuse_distributed(w, field_name(f));
    if (s != TL_OK) return s;
    size_t *idx = malloc(n * sizeof *idx);
    uint8_t *mark = malloc(w->p.count ? w->p.count : 1);
    if (!idx || !mark) {
        free(idx);
        free(mark);
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    }
    s = tl_edit_find_all(w, field_name(f), ids, n, idx, mark);
    for (size_t k = 0; s == TL_OK && k < n; k++) s = check_value(w, f, ids, k, idx[k], values + 3 * k);
    free(mark);
    if (s == TL_OK && f == TL_SET_EXTERNAL_FORCE) s = tl_external_set_many(w, ids, n, values);
    if (s != TL_OK || f == TL_SET_EXTERNAL_FORCE) {
        free(idx);
        return s;
    }
    tl_particles *p = &w->p;
    for (size_t k = 0; k < n; k++) {
        const size_t i = idx[k];
        const double *v = values + 3 * k;
        if (f == TL_SET_POSITION) {
            /* the next step's skin test sees the move (x - x_ref): the lists are rebuilt when it
             * is more than half the skin */
            v3_set(p->x[i], v[0], v[1], v[2]);
        } else if (f == TL_SET_VELOCITY) {
            const double before = 0.5 * p->mass[i] * v3_norm2(p->v[i]);
            v3_set(p->v[i], v[0], v[1], v[2]);
            const double after = 0.5 * p->mass[i] * v3_norm2(p->v[i]);
            if (after > before) w->books.blowup.added += after - before; /* given by hand */
        } else {
            const double before = tl_edit_spin_energy(p, i);
            v3_set(p->w[i], v[0], v[1], v[2]);
            const tl_shape *sh = tl_world_shape_of(w, i);
            if (sh) { /* a body turns by its angular momentum */
                double I[3];
                tl_shape_moments(sh, p->mass[i], I);
                rigid_momentum(p->q[i], I, p->w[i], p->am[i]);
            }
            const double after = tl_edit_spin_energy(p, i);
            if (after > before) w->books.blowup.added += after - before;
        }
    }
    free(idx);
    w->books.blowup.passed = -1; /* a changed state is checked afresh */
    if (f == TL_SET_POSITION) w->touch.step = -1;
    return TL_OK;
}
