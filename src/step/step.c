/*
 * The time step, stage by stage, in this order:
 *
 *   1. predict    positions x += dt (v + dt/2 a), orientations turned by the
 *                 half-step angular velocity, and the velocity the forces will
 *                 see, v* = v + dt (c1 a_n + c2 a_n-1): verlet predicts the
 *                 end-of-step velocity to second order (c1 = 3/2, c2 = -1/2,
 *                 Adams-Bashforth), leapfrog uses the half step (c1 = 1/2,
 *                 c2 = 0, as LAMMPS and LIGGGHTS); walls move
 *                 (the same loop notes whether some particle moved more
 *                 than half the skin, and resets the forces to gravity)
 *   2. neighbors  when something moved more than half the skin: particles
 *                 outside the domain are removed, positions wrapped into the
 *                 periodic axes, the particles reordered (by cell, in boxes)
 *                 now and then, the candidate lists rebuilt, and the touching
 *                 contacts' records carried over by key
 *   3. forces     the contact stage (contact_forces.c)
 *   4. correct    v_{n+1} = v_n + dt/2 (a_n + a_{n+1}) for translation and rotation
 *                 (whatever the predictor: the trajectory is velocity Verlet)
 *   5. finish     boundary work of walls and prescribed bodies, collisions
 *                 that ended, time advances
 *
 * Between two steps of one call, correct and the next predict run as one
 * pass over the particles (tl_stage_correct_predict: the same operations,
 * the arrays read once), with finish before it (finish reads only walls and
 * immovable bodies, which correct leaves alone).
 *
 * A call of tl_world_step runs these stages in this order (advance.c); the
 * stages themselves are here.
 *
 * Every stage runs on the world's threads; none of them adds numbers in an
 * order that depends on the thread count.
 *
 * The integration is second order (velocity Verlet); the quaternion update is
 * the exact rotation by the half-step angular velocity over dt (Li et al. 2022
 * eq. 19 integrated exactly for a constant angular velocity).
 *
 * The predictor-corrector scheme (integrator.scheme: predictor-corrector,
 * Wang et al. 2025 section 3.6: an Euler predictor and a trapezoidal
 * corrector, i.e. Heun's method) has its own step, in this order:
 *
 *   1. predict    Euler: f_old = F_n; x* = x_n + dt v_n, q* = q_n turned by
 *                 w_n dt, v* = v_n + dt F_n/m, w* likewise; walls move; the
 *                 forces reset to gravity
 *   2. neighbors  at the predicted positions (as above)
 *   3. trial      the contact stage at (x*, v*), its drift velocity v_n
 *                 (= v* - dt a_n: c_pred = (3/2, 0)); then f_older = F*, and
 *                 the contact records, their states, the walls' reactions,
 *                 the ledger, the touching count and the collision log are
 *                 put back as they were before it (a snapshot taken after
 *                 stage 2): a trial commits nothing
 *   4. correct    trapezoid: x_n+1 = x_n + dt/2 (v_n + v*) = x* + dt^2/2 a_n,
 *                 v_n+1 = v_n + dt/2 (a_n + a*) = v* + dt/2 (a* - a_n),
 *                 rotation likewise (q turned again by dt^2/2 alpha_n);
 *                 the skin test again; the forces reset to gravity
 *   5. neighbors  at the corrected positions
 *   6. forces     the contact stage at (x_n+1, v_n+1), committing: the
 *                 drift velocity is (x_n+1 - x_n)/dt = v_n+1 - dt/2 a*
 *                 (c_pred = (1/2, 1/2) with f_older = F*), which gives the
 *                 tangential springs their increment and the ledger its
 *                 displacement; F_n+1 is the next step's F_n
 *   7. finish     as 5 above
 *
 * Two contact stages per step (about twice the cost of verlet per step);
 * the snapshot is a copy of the touching candidates' records.
 */
#include <math.h>
#include <string.h>

#include "bodies.h"
#include "isa.h"
#include "parallel.h"
#include "reorder.h"
#include "vec.h"
#include "world.h"
#include "shape_stage.h"
#include "timestep.h"
#include "stages.h"
#include "measure.h"
#include "external.h"
#include "contact_stage.h"
#include "blowup.h"

/* ---- 1. predict ---- */

/* One particle's predict; returns its squared displacement since the last build (x_ref).
 * two_step: the predictor uses a_n-1 (verlet), which then has to be kept; leapfrog does not. */
static inline double predict_one(tl_particles *p, size_t i, double dt, double c1, double c2,
                                 const double g[3], bool two_step, bool keep_old, bool turn) {
    double im = p->inv_mass[i], ii = p->inv_inertia[i];
    double wh[3], d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double a = p->f[i][k] * im, al = p->t[i][k] * ii;
        double vh = p->v[i][k] + 0.5 * dt * a;
        wh[k] = p->w[i][k] + 0.5 * dt * al;
        p->x[i][k] += dt * vh;
        if (two_step) {
            double a1 = p->f_old[i][k] * im, al1 = p->t_old[i][k] * ii;
            p->v[i][k] += dt * (c1 * a + c2 * a1);
            p->w[i][k] += dt * (c1 * al + c2 * al1);
        } else {
            p->v[i][k] += dt * (c1 * a);
            p->w[i][k] += dt * (c1 * al);
        }
        double d = p->x[i][k] - p->x_ref[i][k];
        d2 += d * d;
    }
    if (turn) q_rotate_by(p->q[i], wh, dt);
    if (two_step) {
        v3_copy(p->f_older[i], p->f_old[i]);
        v3_copy(p->t_older[i], p->t_old[i]);
    }
    /* the force of step n, for those who read it during step n+1: the verlet
     * predictor and corrector, the impact-speed estimate of new contacts, and
     * the boundary work of immovable particles */
    if (two_step || keep_old || im == 0.0 || ii == 0.0) {
        v3_copy(p->f_old[i], p->f[i]);
        v3_copy(p->t_old[i], p->t[i]);
    }
    /* the force of the new step starts with gravity on free particles */
    if (im > 0.0) v3_scale(p->f[i], g, p->mass[i]);
    else v3_zero(p->f[i]);
    v3_zero(p->t[i]);
    return d2;
}

/* A particle's squared displacement since the last build, noted: bit 0 of the flags when it
 * exceeds lim2 (half the skin: the lists are rebuilt), bit 1 when it is not a number; *dmax
 * keeps the largest (the contact stage skips the far candidates by it: contact_forces.c). */
static inline int note_moved(double d2, double lim2, double *dmax) {
    if (d2 > *dmax) *dmax = d2;
    return (d2 > lim2) | (d2 != d2) << 1;
}

/* After particle i of rows ending at hi: at the end of a block of TL_DISP_BLOCK particles, its
 * largest displacement (dmax: squared) kept for the contact stage, rounded up with a relative
 * 1e-5 to spare (what the stage adds and rounds is covered, contact_forces.c), and dmax reset */
static inline void note_block(float *disp_blk, size_t i, size_t hi, double *dmax) {
    if (((i + 1) & (TL_DISP_BLOCK - 1)) && i + 1 != hi) return;
    const double d = sqrt(*dmax) * (1.0 + 1e-5);
    float f = (float)d;
    if ((double)f < d) f = nextafterf(f, INFINITY);
    disp_blk[i / TL_DISP_BLOCK] = f;
    *dmax = 0.0;
}

/* the blocks of TL_DISP_BLOCK particles n particles make */
static inline size_t disp_block_count(size_t n) { return (n + TL_DISP_BLOCK - 1) / TL_DISP_BLOCK; }

/* where rows q of nblk start: whole blocks of TL_DISP_BLOCK particles (q = nblk: n) */
static inline size_t rows_at(size_t q, size_t nblk, size_t n) {
    const size_t at = q * disp_block_count(n) / nblk * TL_DISP_BLOCK;
    return at < n ? at : n;
}

/* The particles the correct and predict passes move: all of them, or on a rank its own (the
 * ghosts take their owners' state at the next refresh or build, and nothing reads theirs
 * before) */
static inline void moving(const tl_world *w, size_t *lo, size_t *hi) {
    if (w->ranks.established) {
        *lo = w->ranks.own_lo;
        *hi = w->ranks.own_hi;
    } else {
        *lo = 0;
        *hi = w->p.count;
    }
}

/* rows q of nblk over [lo, hi): whole blocks of TL_DISP_BLOCK particles of the storage (but for
 * the first and last), the same whatever the thread count */
static inline void rows_in(size_t q, size_t nblk, size_t lo, size_t hi, size_t n, size_t *a, size_t *b) {
    *a = rows_at(q, nblk, n);
    *b = rows_at(q + 1, nblk, n);
    if (*a < lo) *a = lo;
    if (*b > hi) *b = hi;
    if (*b < *a) *b = *a;
}

/* the blocks' displacements for the predict pass about to run, NULL where the contact stage
 * will not skip by them: bodies (their candidates are not measured there), no memory. On ranks
 * the blocks holding ghosts are measured again once the ghosts hold their owners' state
 * (ghost_blocks) */
static float *disp_blocks(tl_world *w) {
    w->broad.far.disp_ok = false;
    if (w->shapes.nbodies) return NULL;
    if (tl_mem_reserve(&w->mem, (void **)&w->broad.far.disp_blk, &w->broad.far.cap_disp_blk, disp_block_count(w->p.count) + 1,
                       sizeof *w->broad.far.disp_blk) != 0)
        return NULL;
    return w->broad.far.disp_blk;
}

/* rows [lo, hi) of the predict pass (spheres alone) */
TL_ISA_CLONES static int predict_rows(tl_world *w, size_t lo, size_t hi, float *disp_blk) {
    tl_particles *p = &w->p;
    const double dt = w->clock.dt, c1 = w->clock.c_pred[0], c2 = w->clock.c_pred[1];
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    const double lim2 = 0.25 * w->broad.nb.skin * w->broad.nb.skin;
    const bool keep_old = w->contacts.lay.impact >= 0, turn = w->def.track_orientation, two = c2 != 0.0;
    int acc = 0;
    double m = 0.0;
    for (size_t i = lo; i < hi; i++) {
        acc |= note_moved(two ? predict_one(p, i, dt, c1, c2, g, true, true, turn)
                              : predict_one(p, i, dt, c1, c2, g, false, keep_old, turn), lim2, &m);
        if (disp_blk) note_block(disp_blk, i, hi, &m);
    }
    return acc;
}

/* What the predict pass saw: whether to rebuild, and whether the next contact stage may skip
 * far candidates by the blocks' displacements (not where one was not finite; disp_ok is
 * consumed by that stage) */
static void note_predicted(tl_world *w, int acc, const float *disp_blk) {
    w->broad.moved = (acc & 1) != 0;
    w->broad.far.disp_ok = disp_blk && !(acc & 2);
}

void tl_stage_predict(tl_world *w) {
    tl_particles *p = &w->p;
    const double dt = w->clock.dt, c1 = w->clock.c_pred[0], c2 = w->clock.c_pred[1];
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    const double lim2 = 0.25 * w->broad.nb.skin * w->broad.nb.skin;
    const size_t n = p->count;
    size_t lo, hi;
    moving(w, &lo, &hi);
    int nt = w->nthreads;
    const bool keep_old = w->contacts.lay.impact >= 0, turn = w->def.track_orientation;
    int acc = 0; /* some particle moved more than skin/2 (bit 0), or is not finite (bit 1) */
    const tl_shape *sh = w->shapes.of;
    float *disp_blk = disp_blocks(w);
    if (w->shapes.nbodies) {
        /* spheres as below; the other bodies turn as rigid bodies (bodies.c) */
        const bool two = c2 != 0.0;
        TL_FOR_STATIC_OR(k, hi - lo, {
            const size_t i = lo + k;
            acc |= p->shape[i] ? tl_body_predict(p, sh, i, dt, c1, c2, g, lim2, two)
                               : predict_one(p, i, dt, c1, c2, g, two, two || keep_old, turn) > lim2;
        })
    } else {
        /* a few row ranges per thread, each whole blocks, the same whatever the thread count */
        const size_t nblk = (size_t)nt * 4;
        TL_FOR_STATIC_OR(q, nblk, {
            size_t a, b;
            rows_in(q, nblk, lo, hi, n, &a, &b);
            acc |= predict_rows(w, a, b, disp_blk);
        })
    }
    note_predicted(w, acc, disp_blk);
    tl_walls_advance(&w->walls, w->clock.time + dt, dt);
}

/* ---- 2. neighbors ---- */

static tl_status remove_lost(tl_world *w) {
    if (!w->def.has_domain) return TL_OK;
    tl_particles *p = &w->p;
    const double lo[3] = {w->def.domain_min.x, w->def.domain_min.y, w->def.domain_min.z};
    const double hi[3] = {w->def.domain_max.x, w->def.domain_max.y, w->def.domain_max.z};
    size_t lost = 0;
    for (size_t i = 0; i < p->count; i++)
        for (int k = 0; k < 3; k++)
            if (!w->per.on[k] && !(p->x[i][k] >= lo[k] && p->x[i][k] <= hi[k])) {
                lost++;
                break;
            }
    if (!lost) return TL_OK;
    uint8_t *keep = tl_mem_alloc(&w->mem, p->count);
    if (!keep) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    for (size_t i = 0; i < p->count; i++) {
        keep[i] = 1;
        for (int k = 0; k < 3; k++)
            if (!w->per.on[k] && !(p->x[i][k] >= lo[k] && p->x[i][k] <= hi[k])) keep[i] = 0;
        if (!keep[i] && p->inv_mass[i] > 0.0) {
            /* the energy it carries leaves the system through the boundary */
            double ke = 0.5 * p->mass[i] * v3_norm2(p->v[i]);
            if (p->inv_inertia[i] > 0.0)
                ke += p->shape[i] ? 0.5 * v3_dot(p->w[i], p->am[i]) : 0.5 * p->inertia[i] * v3_norm2(p->w[i]);
            double pe = -p->mass[i] * v3_dot(g, p->x[i]);
            w->books.ledger.boundary_work -= ke + pe;
        }
    }
    size_t n = p->count;
    int r = tl_particles_compact(&w->mem, p, keep);
    tl_mem_free(&w->mem, keep, n);
    if (r != 0) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    w->removed += lost;
    return TL_OK;
}

/* Positions back into the period. Where gravity has a component along a
 * periodic axis (an inclined chute), the jump of potential energy is work
 * done across the boundary (and that of a constant external force). */
static void wrap_periodic(tl_world *w) {
    tl_particles *p = &w->p;
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    double work = 0.0;
    for (int k = 0; k < 3; k++) {
        if (!w->per.on[k]) continue;
        const double lo = w->per.lo[k], len = w->per.len[k];
        for (size_t i = 0; i < p->count; i++) {
            double x = p->x[i][k];
            if (x >= lo && x < lo + len) continue;
            double nx = x - len * floor((x - lo) / len);
            if (!(nx < lo + len)) nx = lo; /* rounding at the top edge */
            if (p->inv_mass[i] > 0.0) {
                work += -p->mass[i] * g[k] * (nx - x);
                const double *fe = tl_external_force_of(w, p->id[i]);
                if (fe) work += -fe[k] * (nx - x);
            }
            p->x[i][k] = nx;
        }
    }
    w->books.ledger.boundary_work += work;
}

static tl_status check_periods(tl_world *w, const tl_nb_frame *frame) {
    double range = frame ? 2.0 * frame->rmax + w->broad.nb.skin : tl_neighbors_range(&w->broad.nb, &w->p);
    for (int k = 0; k < 3; k++)
        if (w->per.on[k] && w->per.len[k] < 2.0 * range)
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "periodic along %c: the period %g m must be at least twice the largest "
                                 "interaction range 2 R_max + skin = %g m",
                                 "xyz"[k], w->per.len[k], range);
    return TL_OK;
}

static tl_status reorder(tl_world *w) {
    tl_particles *p = &w->p;
    if (!tl_reorder_due(w, p->count)) return TL_OK;
    double lo[4];
    tl_order_extent(p, lo);
    tl_order_frame f = tl_order_frame_of(w, lo, p->count);
    if (tl_reorder_particles(&w->mem, p, &f) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (reordering)");
    return TL_OK;
}

tl_status tl_world_list_immovable(tl_world *w) {
    tl_particles *p = &w->p;
    w->immovable.count = 0;
    size_t first, count; /* a distributed world: the owned ones (each rank books its own) */
    tl_world_owned(w, &first, &count);
    for (size_t i = first; i < first + count; i++) {
        if (p->inv_mass[i] != 0.0 && p->inv_inertia[i] != 0.0) continue;
        if (tl_mem_reserve(&w->mem, (void **)&w->immovable.idx, &w->immovable.cap, w->immovable.count + 1,
                           sizeof *w->immovable.idx) != 0)
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        w->immovable.idx[w->immovable.count++] = (uint32_t)i;
    }
    if (w->ranks.established) w->ranks.ops->note_immovable(w);
    return TL_OK;
}

/* in_place: a world being distributed after its lists were built (and nothing moved since):
 * the same lists on every rank's share, without counting a build; keep (a serial world, or
 * NULL): the particles whose keep[i] is 0 are removed first (tl_world_remove_particles) */
static tl_status world_rebuild_as(tl_world *w, bool in_place, const uint8_t *keep) {
    /* the touching records, by key, before indices change */
    if (tl_stash_take(&w->mem, &w->contacts.stash, &w->contacts.pp, &w->contacts.pw, w->p.id) != 0 || tl_shape_contacts_stash(w) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (contact table)");
    tl_status s;
    const tl_nb_frame *frame = NULL;
    if (in_place) {
        s = w->ranks.ops->establish(w);
        if (s != TL_OK) return s;
    } else if (w->ranks.established) {
        /* a distributed world: the same removal, wrap and reordering over all ranks, and the
         * migration (parallel/decomp.c) */
        s = w->ranks.ops->particles(w);
        if (s != TL_OK) return s;
    } else {
        if (keep && tl_particles_compact(&w->mem, &w->p, keep) != 0)
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        s = remove_lost(w);
        if (s != TL_OK) return s;
        if (w->shapes.nbodies) {
            size_t nb = 0;
            for (size_t i = 0; i < w->p.count; i++) nb += w->p.shape[i] != 0;
            w->shapes.nbodies = nb;
        }
        tl_particles_fit(&w->mem, &w->p);
        wrap_periodic(w);
        s = reorder(w);
        if (s != TL_OK) return s;
        /* the first build of a distributed world: every rank did the above alike */
        if (w->ranks.ops) s = w->ranks.ops->establish(w);
        if (s != TL_OK) return s;
    }
    if (w->ranks.ops) s = w->ranks.ops->ghosts(w, &frame);
    if (s != TL_OK) return s;
    s = check_periods(w, frame);
    if (s != TL_OK) return s;
    tl_shape_list *shapes =
        w->shapes.nbodies || w->contacts.sc.cand.count || w->broad.nb.all_to_shapes || w->walls.nmesh ? &w->contacts.sc.cand : NULL;
    if (tl_neighbors_build(&w->mem, &w->broad.nb, &w->p, &w->walls, &w->per, &w->contacts.pp, &w->contacts.pw, &w->broad.dom, shapes,
                           w->nthreads, frame) != 0 ||
        (shapes && tl_shape_contacts_give(w) != 0))
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (neighbor lists)");
    tl_stash_give(&w->contacts.stash, &w->contacts.pp, false, w->p.id, w->nthreads);
    tl_stash_give(&w->contacts.stash, &w->contacts.pw, true, w->p.id, w->nthreads);
    /* a large stash is memory the steps do not need; a small one is kept (no
     * allocation churn for small worlds that rebuild often) */
    if (tl_stash_bytes(&w->contacts.stash) > ((size_t)4 << 20)) tl_stash_free(&w->mem, &w->contacts.stash);
    w->broad.dirty = false;
    w->broad.moved = false;
    /* the far candidates' gaps are of the last lists (contact_forces.c); every particle is at
     * its x_ref now, so the blocks' displacements are zero */
    w->broad.far.gap_ready = false;
    float *disp_blk = disp_blocks(w);
    if (disp_blk) memset(disp_blk, 0, disp_block_count(w->p.count) * sizeof *disp_blk);
    w->broad.far.disp_ok = disp_blk != NULL;
    if (in_place) w->broad.nb.builds--;
    return tl_world_list_immovable(w);
}

static tl_status world_rebuild(tl_world *w) { return world_rebuild_as(w, false, NULL); }

tl_status tl_world_establish(tl_world *w) { return world_rebuild_as(w, true, NULL); }

tl_status tl_world_rebuild_keeping(tl_world *w, const uint8_t *keep) {
    tl_status s = world_rebuild_as(w, false, keep);
    if (s != TL_OK) return s;
    /* the touching contacts as the next contact stage will find them: those the rebuild carried
     * over (the removed particles' records stayed behind) */
    size_t touching = 0;
    const tl_pairs *lists[2] = {&w->contacts.pp, &w->contacts.pw};
    for (int li = 0; li < 2; li++)
        for (size_t k = 0; k < lists[li]->count; k++) touching += (lists[li]->state[k] & TL_PAIR_TOUCH) != 0;
    w->contacts.sc.touching = w->contacts.sc.store[w->contacts.sc.cur].count;
    w->contacts.touching = touching + w->contacts.sc.touching;
    w->touch.step = -1; /* the query list is of the old lists */
    return TL_OK;
}

/* A distributed world's blocks of TL_DISP_BLOCK particles that hold ghosts, measured again
 * from the ghosts' new state (the predict pass moved the ghosts by this rank's share of their
 * forces; their owners by the whole): each block's largest displacement since the build, as
 * the predict pass notes it. */
static void ghost_blocks(tl_world *w) {
    if (!w->broad.far.disp_ok) return;
    const tl_particles *p = &w->p;
    const size_t n = p->count, nblk = disp_block_count(n);
    const size_t own_lo = w->ranks.own_lo, own_hi = w->ranks.own_hi;
    for (size_t b = 0; b < nblk; b++) {
        const size_t lo = b * TL_DISP_BLOCK, hi = lo + TL_DISP_BLOCK < n ? lo + TL_DISP_BLOCK : n;
        if (lo >= own_lo && hi <= own_hi) continue; /* no ghost in it */
        double m = 0.0;
        int acc = 0;
        for (size_t i = lo; i < hi; i++) {
            double d2 = 0.0;
            for (int k = 0; k < 3; k++) {
                double e = p->x[i][k] - p->x_ref[i][k];
                d2 += e * e;
            }
            acc |= note_moved(d2, INFINITY, &m);
        }
        if (acc & 2) { /* not a number: nothing is skipped this step */
            w->broad.far.disp_ok = false;
            return;
        }
        note_block(w->broad.far.disp_blk, hi - 1, hi, &m);
    }
}

static tl_status stage_neighbors(tl_world *w) {
    if (w->ranks.established) {
        /* a distributed world: rebuilt when a particle of any rank moved; else the ghosts
         * take their owners' new state */
        w->ranks.ops->moved(w);
        if (!w->broad.dirty && !w->broad.moved && !tl_neighbors_walls_moved(&w->broad.nb, &w->walls)) {
            tl_status s = w->ranks.ops->refresh(w);
            if (s == TL_OK) ghost_blocks(w);
            return s;
        }
        return world_rebuild(w);
    }
    if (!w->broad.dirty && !w->broad.moved && !tl_neighbors_walls_moved(&w->broad.nb, &w->walls)) return TL_OK;
    return world_rebuild(w);
}

/* ---- 3. forces ---- */

tl_status tl_world_compute_forces(tl_world *w, bool accumulate) {
    tl_status s = stage_neighbors(w);
    if (s != TL_OK) return s;
    return tl_contact_forces(w, accumulate);
}

/* ---- 4. correct ---- */

/* One particle's correct: v_n+1 = v_n + dt (1/2 a_n+1 + b1 a_n + b2 a_n-1),
 * the predicted part taken back (leapfrog: b1 = b2 = 0). */
static inline void correct_one(tl_particles *p, size_t i, double dt, double b1, double b2,
                               bool two_step) {
    double im = p->inv_mass[i], ii = p->inv_inertia[i];
    for (int k = 0; k < 3; k++) {
        if (two_step) {
            p->v[i][k] += dt * (0.5 * p->f[i][k] + b1 * p->f_old[i][k] + b2 * p->f_older[i][k]) * im;
            p->w[i][k] += dt * (0.5 * p->t[i][k] + b1 * p->t_old[i][k] + b2 * p->t_older[i][k]) * ii;
        } else {
            p->v[i][k] += dt * (0.5 * p->f[i][k]) * im;
            p->w[i][k] += dt * (0.5 * p->t[i][k]) * ii;
        }
    }
}

void tl_stage_correct(tl_world *w) {
    tl_particles *p = &w->p;
    const double dt = w->clock.dt, b1 = 0.5 - w->clock.c_pred[0], b2 = -w->clock.c_pred[1];
    size_t lo, hi;
    moving(w, &lo, &hi);
    int nt = w->nthreads;
    const tl_shape *sh = w->shapes.of;
    if (w->shapes.nbodies) {
        const bool two = b2 != 0.0;
        TL_FOR_STATIC(k, hi - lo, {
            const size_t i = lo + k;
            if (p->shape[i]) tl_body_correct(p, sh, i, dt, b1, b2, two);
            else correct_one(p, i, dt, b1, b2, two);
        })
    } else if (b2 != 0.0) {
        TL_FOR_STATIC(k, hi - lo, correct_one(p, lo + k, dt, b1, b2, true);)
    } else {
        TL_FOR_STATIC(k, hi - lo, correct_one(p, lo + k, dt, b1, b2, false);)
    }
}

/* ---- 4 + 1. correct, then the next step's predict, in one pass ----
 * The same operations on each particle as tl_stage_correct followed by
 * tl_stage_predict, reading and writing the particle arrays once instead of
 * twice. Used between two steps of one tl_world_step call when nothing in
 * between needs the corrected velocities of every particle (no collision
 * waits to be measured). */
/* Rows [lo, hi) of the pass; returns note_moved's flags of them, and notes their blocks'
 * displacements in disp_blk (spheres only; NULL: not kept). */
TL_ISA_CLONES static int correct_predict_rows(tl_world *w, size_t lo, size_t hi, float *disp_blk) {
    tl_particles *p = &w->p;
    const double dt = w->clock.dt, c1 = w->clock.c_pred[0], c2 = w->clock.c_pred[1];
    const double b1 = 0.5 - c1, b2 = -c2;
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    const double lim2 = 0.25 * w->broad.nb.skin * w->broad.nb.skin;
    const bool keep_old = w->contacts.lay.impact >= 0, turn = w->def.track_orientation;
    int acc = 0;
    double m = 0.0;
    const tl_shape *sh = w->shapes.of;
    if (w->shapes.nbodies) {
        const bool two = c2 != 0.0;
        for (size_t i = lo; i < hi; i++) {
            if (p->shape[i]) {
                tl_body_correct(p, sh, i, dt, b1, b2, two);
                acc |= tl_body_predict(p, sh, i, dt, c1, c2, g, lim2, two);
            } else {
                correct_one(p, i, dt, b1, b2, two);
                acc |= predict_one(p, i, dt, c1, c2, g, two, two || keep_old, turn) > lim2;
            }
        }
    } else if (c2 != 0.0) {
        for (size_t i = lo; i < hi; i++) {
            correct_one(p, i, dt, b1, b2, true);
            acc |= note_moved(predict_one(p, i, dt, c1, c2, g, true, true, turn), lim2, &m);
            if (disp_blk) note_block(disp_blk, i, hi, &m);
        }
    } else {
        for (size_t i = lo; i < hi; i++) {
            correct_one(p, i, dt, b1, b2, false);
            acc |= note_moved(predict_one(p, i, dt, c1, c2, g, false, keep_old, turn), lim2, &m);
            if (disp_blk) note_block(disp_blk, i, hi, &m);
        }
    }
    return acc;
}

void tl_stage_correct_predict(tl_world *w) {
    const size_t n = w->p.count;
    size_t lo, hi;
    moving(w, &lo, &hi);
    int nt = w->nthreads;
    int acc = 0;
    float *disp_blk = disp_blocks(w);
    /* a few row ranges per thread, each whole blocks, the same whatever the thread count */
    const size_t nblk = (size_t)nt * 4;
    TL_FOR_STATIC_OR(q, nblk, {
        size_t a, b;
        rows_in(q, nblk, lo, hi, n, &a, &b);
        acc |= correct_predict_rows(w, a, b, disp_blk);
    })
    note_predicted(w, acc, disp_blk);
    tl_walls_advance(&w->walls, w->clock.time + w->clock.dt, w->clock.dt);
}

/* ---- 5. finish ---- */

void tl_stage_finish(tl_world *w) {
    tl_particles *p = &w->p;
    const double dt = w->clock.dt;
    /* work done on the particles by bodies that move regardless of forces (a distributed
     * world: every rank's terms, added one by one in global order) */
    double work = 0.0;
    const bool gather = w->ranks.established && w->ranks.any_immovable;
    for (size_t m = 0; m < w->immovable.count; m++) {
        size_t i = w->immovable.idx[m];
        if (p->inv_mass[i] == 0.0) {
            double f[3];
            v3_add(f, p->f[i], p->f_old[i]);
            double t = 0.5 * dt * v3_dot(f, p->v[i]);
            if (gather) w->ranks.ops->term(w, t);
            else work -= t;
        }
        if (p->inv_inertia[i] == 0.0) {
            double t[3];
            v3_add(t, p->t[i], p->t_old[i]);
            double e = 0.5 * dt * v3_dot(t, p->w[i]);
            if (gather) w->ranks.ops->term(w, e);
            else work -= e;
        }
    }
    if (gather) w->ranks.ops->terms_subtract(w, &work);
    for (size_t k = 0; k < w->walls.count; k++) {
        const tl_wall *wl = &w->walls.w[k];
        double f[3];
        v3_add(f, wl->force, wl->force_prev);
        if (wl->motion.kind == TL_MOTION_TRANSLATE) {
            work -= 0.5 * dt * v3_dot(f, wl->vel);
            continue;
        }
        /* the work of the step's drift: the mean force through the pivot's displacement, the
         * mean torque about the pivot through the rotation */
        double t[3], c[3];
        v3_add(t, wl->torque, wl->torque_prev);
        v3_cross(c, wl->pivot_mid, f);
        v3_sub(t, t, c);
        work -= 0.5 * dt * (v3_dot(f, wl->vel_mid) + v3_dot(t, wl->omega_mid));
    }
    w->books.ledger.boundary_work += work;
    w->clock.time += dt;
    w->clock.steps++;
    /* force-controlled walls take their velocity for the next step from this one's forces */
    tl_walls_servo(&w->walls);
    /* a collision's outgoing velocity is complete one step after it ended:
     * the last force's second half-kick lands then */
    if (w->log.npend || tl_world_log_spread(w)) tl_measure_finish_exits(w); /* on ranks: collective */
}

/* ---- the predictor-corrector step (Heun) ---- */

/* 1. Euler predict of one particle; returns whether it moved more than skin/2. */
static inline int pc_predict_one(tl_particles *p, size_t i, double dt, const double g[3], double lim2,
                                 bool turn) {
    double im = p->inv_mass[i], ii = p->inv_inertia[i], d2 = 0.0;
    if (turn) q_rotate_by(p->q[i], p->w[i], dt);
    for (int k = 0; k < 3; k++) {
        p->x[i][k] += dt * p->v[i][k];
        p->v[i][k] += dt * p->f[i][k] * im;
        p->w[i][k] += dt * p->t[i][k] * ii;
        double d = p->x[i][k] - p->x_ref[i][k];
        d2 += d * d;
    }
    v3_copy(p->f_old[i], p->f[i]);
    v3_copy(p->t_old[i], p->t[i]);
    if (im > 0.0) v3_scale(p->f[i], g, p->mass[i]);
    else v3_zero(p->f[i]);
    v3_zero(p->t[i]);
    return d2 > lim2;
}

/* 4. trapezoidal correct of one particle (f_old = F_n, f = F*). */
static inline int pc_correct_one(tl_particles *p, size_t i, double dt, const double g[3], double lim2,
                                 bool turn) {
    double im = p->inv_mass[i], ii = p->inv_inertia[i], d2 = 0.0;
    double al[3];
    for (int k = 0; k < 3; k++) {
        p->x[i][k] += 0.5 * dt * dt * p->f_old[i][k] * im;
        p->v[i][k] += 0.5 * dt * (p->f[i][k] - p->f_old[i][k]) * im;
        p->w[i][k] += 0.5 * dt * (p->t[i][k] - p->t_old[i][k]) * ii;
        al[k] = p->t_old[i][k] * ii;
        double d = p->x[i][k] - p->x_ref[i][k];
        d2 += d * d;
    }
    if (turn) q_rotate_by(p->q[i], al, 0.5 * dt * dt);
    v3_copy(p->f_older[i], p->f[i]);
    v3_copy(p->t_older[i], p->t[i]);
    if (im > 0.0) v3_scale(p->f[i], g, p->mass[i]);
    else v3_zero(p->f[i]);
    v3_zero(p->t[i]);
    return d2 > lim2;
}

/* One pass of the predictor (Euler) or of the corrector (trapezoid) over the
 * particles; either notes whether some particle moved more than half the skin. */
static void pc_pass(tl_world *w, bool correct) {
    tl_particles *p = &w->p;
    const double dt = w->clock.dt;
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    const double lim2 = 0.25 * w->broad.nb.skin * w->broad.nb.skin;
    const size_t n = p->count;
    int nt = w->nthreads;
    const bool turn = w->def.track_orientation;
    int acc = 0;
    const tl_shape *sh = w->shapes.of;
    if (correct) {
        TL_FOR_STATIC_OR(i, n, acc |= p->shape[i] ? tl_body_pc_correct(p, sh, i, dt, g, lim2)
                                                  : pc_correct_one(p, i, dt, g, lim2, turn);)
        w->broad.moved = w->broad.moved || acc != 0;
    } else {
        TL_FOR_STATIC_OR(i, n, acc |= p->shape[i] ? tl_body_pc_predict(p, sh, i, dt, g, lim2)
                                                  : pc_predict_one(p, i, dt, g, lim2, turn);)
        w->broad.moved = acc != 0;
        tl_walls_advance(&w->walls, w->clock.time + dt, dt);
    }
}

/* The touching candidates' records and every state byte of one list. */
static size_t pc_list_values(const tl_pairs *l) { return l->count * (size_t)l->stride; }

static tl_status pc_snapshot_reserve(tl_world *w) {
    size_t nrec = pc_list_values(&w->contacts.pp) + pc_list_values(&w->contacts.pw);
    size_t nst = w->contacts.pp.count + w->contacts.pw.count;
    size_t nwall = 4 * 3 * w->walls.count;
    if (tl_mem_reserve(&w->mem, (void **)&w->pc.rec, &w->pc.cap_rec, nrec + nwall + 1, sizeof *w->pc.rec) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&w->pc.state, &w->pc.cap_state, nst + 1, sizeof *w->pc.state) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (predictor-corrector)");
    return TL_OK;
}

/* Copies the live records (touching or waiting for the collision log) of a list
 * to (save) or from the snapshot. */
static void pc_copy_list(tl_pairs *l, double *rec, uint8_t *state, bool save, int nt) {
    const size_t stride = (size_t)l->stride, n = l->count;
    if (n == 0) return; /* an empty list may have no arrays yet */
    if (save) {
        memcpy(state, l->state, n);
        TL_FOR_STATIC(k, n, if (state[k] & (TL_PAIR_TOUCH | TL_PAIR_EXIT))
                                memcpy(rec + k * stride, l->rec + k * stride, stride * sizeof *rec);)
    } else {
        TL_FOR_STATIC(k, n, if (state[k] & (TL_PAIR_TOUCH | TL_PAIR_EXIT))
                                memcpy(l->rec + k * stride, rec + k * stride, stride * sizeof *rec);)
        memcpy(l->state, state, n);
    }
}

typedef struct pc_saved {
    tl_energy_ledger ledger, ledger_next;
    size_t touching, npend;
    int shape_store;       /* the shape stage's live store (the trial writes the other) */
    size_t shape_touching;
} pc_saved;

static void pc_save(tl_world *w, pc_saved *sv) {
    int nt = w->nthreads;
    double *rec = w->pc.rec;
    pc_copy_list(&w->contacts.pp, rec, w->pc.state, true, nt);
    rec += pc_list_values(&w->contacts.pp);
    pc_copy_list(&w->contacts.pw, rec, w->pc.state + w->contacts.pp.count, true, nt);
    rec += pc_list_values(&w->contacts.pw);
    for (size_t k = 0; k < w->walls.count; k++) {
        v3_copy(rec + 12 * k, w->walls.w[k].force);
        v3_copy(rec + 12 * k + 3, w->walls.w[k].force_prev);
        v3_copy(rec + 12 * k + 6, w->walls.w[k].torque);
        v3_copy(rec + 12 * k + 9, w->walls.w[k].torque_prev);
    }
    sv->ledger = w->books.ledger;
    sv->ledger_next = w->books.next;
    sv->touching = w->contacts.touching;
    sv->npend = w->log.npend;
    sv->shape_store = w->contacts.sc.cur;
    sv->shape_touching = w->contacts.sc.touching;
}

static void pc_restore(tl_world *w, const pc_saved *sv) {
    int nt = w->nthreads;
    double *rec = w->pc.rec;
    pc_copy_list(&w->contacts.pp, rec, w->pc.state, false, nt);
    rec += pc_list_values(&w->contacts.pp);
    pc_copy_list(&w->contacts.pw, rec, w->pc.state + w->contacts.pp.count, false, nt);
    rec += pc_list_values(&w->contacts.pw);
    for (size_t k = 0; k < w->walls.count; k++) {
        v3_copy(w->walls.w[k].force, rec + 12 * k);
        v3_copy(w->walls.w[k].force_prev, rec + 12 * k + 3);
        v3_copy(w->walls.w[k].torque, rec + 12 * k + 6);
        v3_copy(w->walls.w[k].torque_prev, rec + 12 * k + 9);
    }
    w->books.ledger = sv->ledger;
    w->books.next = sv->ledger_next;
    w->contacts.touching = sv->touching;
    w->log.npend = sv->npend;
    w->contacts.sc.cur = sv->shape_store;
    w->contacts.sc.touching = sv->shape_touching;
}

tl_status tl_stage_pc_step(tl_world *w) {
    pc_pass(w, false);
    tl_status s = stage_neighbors(w);
    if (s != TL_OK) return s;
    s = pc_snapshot_reserve(w);
    if (s != TL_OK) return s;
    pc_saved sv;
    pc_save(w, &sv);
    /* the trial: drift velocity v* - dt a_n = v_n */
    w->clock.c_pred[0] = 1.5;
    w->clock.c_pred[1] = 0.0;
    w->clock.pc_phase = 1;
    s = tl_contact_forces(w, true);
    w->clock.pc_phase = 0;
    pc_restore(w, &sv);
    if (s != TL_OK) return s;
    pc_pass(w, true);
    /* the committing evaluation: drift velocity v_n+1 - dt/2 a* (f_older = F*) */
    w->clock.c_pred[0] = 0.5;
    w->clock.c_pred[1] = 0.5;
    w->clock.pc_phase = 2;
    s = tl_world_compute_forces(w, true);
    w->clock.pc_phase = 0;
    if (s != TL_OK) return s;
    tl_stage_finish(w);
    return TL_OK;
}

