/*
 * Preparing a world for its first step (tl_world_prepare): the laws checked and the records'
 * layout fixed, the skin and the step chosen, the forces of t = 0 computed, and the initial
 * geometry checked (a particle outside the domain, bodies overlapping beyond half a radius).
 * The world's own files (world/) never call it: the step and the public calls above do.
 */
#include <math.h>

#include "blowup.h"
#include "law.h"
#include "contact_stage.h"
#include "stages.h"
#include "timestep.h"
#include "vec.h"
#include "world.h"

/* Impossible initial geometry (unless def.allow_initial_overlaps): a particle
 * outside the domain on an axis that is not periodic. */
static tl_status initial_domain(tl_world *w) {
    if (!w->def.has_domain || w->def.allow_initial_overlaps) return TL_OK;
    const double lo[3] = {w->def.domain_min.x, w->def.domain_min.y, w->def.domain_min.z};
    const double hi[3] = {w->def.domain_max.x, w->def.domain_max.y, w->def.domain_max.z};
    for (size_t i = 0; i < w->p.count; i++)
        for (int k = 0; k < 3; k++) {
            if (w->def.periodic[k]) continue;
            double x = w->p.x[i][k];
            if (!(x >= lo[k] && x <= hi[k]))
                return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                     "initial geometry: particle %u lies outside the domain (%c = %g m, "
                                     "the domain spans %g to %g m); it would be removed at the first "
                                     "step (allow_initial_overlaps: true accepts it)",
                                     w->p.id[i], "xyz"[k], x, lo[k], hi[k]);
        }
    return TL_OK;
}

/* ... and, once the contacts of t = 0 are known, two bodies overlapping by more
 * than half the smaller radius (coincident centres among them), or a body
 * overlapping a wall by more than half its radius (its centre behind a plane):
 * the first step would fling them apart with energy from nowhere. */
static tl_status initial_overlaps(tl_world *w) {
    if (w->def.allow_initial_overlaps) return TL_OK;
    size_t n = tl_world_contact_count(w);
    for (size_t k = 0; k < n; k++) {
        tl_contact_info c;
        if (tl_world_get_contact(w, k, &c) != TL_OK) continue;
        int64_t ia = tl_particles_index(&w->p, c.id_a);
        if (ia < 0) continue;
        double ra = w->p.radius[ia], r = ra, rb = 0.0;
        if (!c.with_wall) {
            int64_t ib = tl_particles_index(&w->p, c.id_b);
            if (ib < 0) continue;
            rb = w->p.radius[ib];
            r = dmin(ra, rb);
            if (w->p.inv_mass[ia] == 0.0 && w->p.inv_mass[ib] == 0.0) continue; /* two fixed bodies */
        }
        if (!(c.overlap > 0.5 * r)) continue;
        if (c.with_wall) {
            const tl_wall *wl = &w->walls.w[c.id_b];
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "initial geometry: particle %u overlaps wall %d%s%s%s by %.4g m, more "
                                 "than half its radius (%.4g m)%s; move it, or set "
                                 "allow_initial_overlaps: true",
                                 c.id_a, (int)c.id_b, wl->name ? " ('" : "", wl->name ? wl->name : "",
                                 wl->name ? "')" : "", c.overlap, ra,
                                 c.overlap > ra ? ": its centre is behind the wall's face" : "");
        }
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "initial geometry: particles %u and %u overlap by %.4g m, more than half "
                             "the smaller radius (%.4g m)%s; move them apart, or set "
                             "allow_initial_overlaps: true",
                             c.id_a, c.id_b, c.overlap, r,
                             ra + rb - c.overlap < 1e-9 * r ? " (their centres coincide)" : "");
    }
    return TL_OK;
}

/* A law whose cohesion holds contacts apart (jkr's reach) keeps them only while the neighbor list
 * has them: a bond's gap must stay within the skin (at the largest radius, where the reach is
 * largest: it grows as R^(1/3)). */
static tl_status check_reach_at(tl_world *w, double rmax) {
    const size_t nm = w->cat.nmat;
    for (size_t a = 0; a < nm; a++)
        for (size_t b = 0; b < nm; b++) {
            const int li = w->cat.law_of[a * w->cat.law_dim + b];
            if (li < 0 || !w->cat.laws[li].reaches) continue;
            const double reach = tl_law_reach(&w->cat.laws[li], tl_world_pair(w, (int)a, (int)b), rmax);
            if (reach > 0.5 * w->broad.nb.skin)
                return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                     "the cohesion between materials '%s' and '%s' holds contacts up to %.3g m "
                                     "apart, more than half the neighbor skin (%.3g m); set neighbor: skin: to "
                                     "at least %.3g m",
                                     w->cat.mat[a].name, w->cat.mat[b].name, reach, w->broad.nb.skin, 2.0 * reach);
        }
    return TL_OK;
}

static tl_status check_reach(tl_world *w) {
    double rmax = 0.0;
    for (size_t i = 0; i < w->p.count; i++) rmax = dmax(rmax, w->p.radius[i]);
    return check_reach_at(w, rmax);
}

/* A world prepared before it had particles took a 1 mm placeholder for its automatic skin; at the
 * next step after particles came, the skin becomes what preparing with them would have chosen: a
 * tenth of the smallest diameter added (the same on every rank, each of which sees every
 * addition), checked against the cohesions' reach at the largest. */
tl_status tl_world_size_skin(tl_world *w) {
    if (!w->broad.skin_unsized || !(w->broad.added_rmin > 0.0)) return TL_OK;
    w->broad.nb.skin = 0.2 * w->broad.added_rmin; /* a tenth of the smallest diameter */
    w->broad.skin_unsized = false;
    w->broad.dirty = true;
    return check_reach_at(w, w->broad.added_rmax);
}

tl_status tl_world_prepare(tl_world *w) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (w->prepared) return TL_OK;
    tl_status s = tl_world_check_laws(w);
    if (s != TL_OK) return s;
    w->contacts.lay = tl_world_layout(w);
    tl_pairs_free(&w->mem, &w->contacts.pp);
    tl_pairs_free(&w->mem, &w->contacts.pw);
    tl_pairs_init(&w->contacts.pp, w->contacts.lay.stride);
    tl_pairs_init(&w->contacts.pw, w->contacts.lay.stride);
    tl_shape_contacts_free(&w->mem, &w->contacts.sc);
    w->contacts.sc.stride = w->contacts.lay.stride + TL_BP_COUNT;
    w->nthreads = tl_world_thread_count(w->def.threads);
    w->broad.skin_unsized = false;
    w->broad.added_rmin = w->broad.added_rmax = 0.0;
    if (w->def.skin > 0.0) {
        w->broad.nb.skin = w->def.skin;
    } else {
        double rmin = INFINITY;
        for (size_t i = 0; i < w->p.count; i++) rmin = dmin(rmin, w->p.radius[i]);
        /* a tenth of the smallest diameter; with no particles yet, 1 mm until the step after some
         * are added (tl_world_size_skin) */
        w->broad.skin_unsized = !isfinite(rmin);
        w->broad.nb.skin = isfinite(rmin) ? 0.2 * rmin : 1e-3;
    }
    s = initial_domain(w);
    if (s == TL_OK) s = check_reach(w);
    if (s != TL_OK) return s;
    s = tl_timestep_compute(w);
    if (s != TL_OK) return s;
    w->prepared = true;
    s = tl_world_initial_forces(w);
    if (s == TL_OK) s = initial_overlaps(w);
    if (s != TL_OK) w->prepared = false;
    else tl_blowup_reference(w);
    return s;
}

tl_status tl_world_initial_forces(tl_world *w) {
    /* the forces at t = 0 (needed by the first predictor step) */
    tl_particles *p = &w->p;
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    for (size_t i = 0; i < p->count; i++) {
        if (p->inv_mass[i] > 0.0) v3_scale(p->f[i], g, p->mass[i]);
        else v3_zero(p->f[i]);
        v3_zero(p->t[i]);
    }
    tl_status s = tl_world_compute_forces(w, false);
    if (s != TL_OK) return s;
    /* the predictor of the first step takes a_-1 = a_0 */
    for (size_t i = 0; i < w->p.count; i++) {
        v3_copy(w->p.f_old[i], w->p.f[i]);
        v3_copy(w->p.t_old[i], w->p.t[i]);
    }
    return TL_OK;
}
