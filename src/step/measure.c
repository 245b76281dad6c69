/*
 * Measurements: the energy balance, the touching contacts, and the log of
 * collisions that ended (their restitution, duration and peaks).
 */
#include <math.h>
#include <string.h>

#include "rsum.h"
#include "vec.h"
#include "world.h"
#include "measure.h"
#include "external.h"
#include "energy_terms.h"
#include "energy_table.h"
#include "slots.h"

/* The energy sums: kinetic (translational, rotational), potential and the three elastic
 * terms, each a reproducible sum (core/rsum.h): the same bits whatever the order of
 * the terms, so on any number of threads or ranks. */
typedef struct energy_pass {
    bool add;                    /* false: the bounds; true: the sums */
    double bound[TL_TERM_COUNT]; /* the largest |term| of each */
    int bad[TL_TERM_COUNT];      /* bit 0: a NaN term, bit 1: +inf, bit 2: -inf */
    tl_rsum sum[TL_TERM_COUNT];
} energy_pass;

static inline void term(energy_pass *ps, int c, double x) {
    if (!isfinite(x)) {
        ps->bad[c] |= x != x ? 1 : (x > 0.0 ? 2 : 4);
        return;
    }
    if (ps->add) tl_rsum_add(&ps->sum[c], x);
    else ps->bound[c] = fmax(ps->bound[c], fabs(x));
}

static void pass_term(void *user, int which, double x) { term(user, which, x); }

static void energy_terms(const tl_world *w, energy_pass *ps) {
    size_t first, count;
    tl_world_owned(w, &first, &count);
    tl_world_energy_terms(w, first, count, pass_term, ps);
}

tl_status tl_world_energy(const tl_world *w, tl_energy *e) {
    if (tl_ranks_viewing(&w->ranks)) { /* rank 0 writing a record: the energy of all, taken with it */
        *e = w->ranks.venergy;
        return TL_OK;
    }
    memset(e, 0, sizeof *e);
    energy_pass ps;
    memset(&ps, 0, sizeof ps);
    energy_terms(w, &ps);
    const bool dist = w->ranks.established;
    if (dist) { /* collective: every rank calls it */
        w->ranks.ops->max(w, ps.bound, TL_TERM_COUNT);
        w->ranks.ops->or_(w, ps.bad, TL_TERM_COUNT);
    }
    for (int c = 0; c < TL_TERM_COUNT; c++) tl_rsum_begin(&ps.sum[c], tl_rsum_exponent(ps.bound[c]));
    ps.add = true;
    energy_terms(w, &ps);
    if (dist) w->ranks.ops->merge(w, ps.sum, TL_TERM_COUNT);
    double v[TL_TERM_COUNT];
    for (int c = 0; c < TL_TERM_COUNT; c++) {
        v[c] = tl_rsum_value(&ps.sum[c]);
        if (ps.bad[c] & 1 || (ps.bad[c] & 6) == 6) v[c] = NAN;
        else if (ps.bad[c] & 2) v[c] = INFINITY;
        else if (ps.bad[c] & 4) v[c] = -INFINITY;
    }
    e->kinetic_translational = v[TL_TERM_KT];
    e->kinetic_rotational = v[TL_TERM_KR];
    e->potential = v[TL_TERM_POT];
    if (w->ext.count) e->potential += dist ? w->ranks.ops->external_potential(w) : tl_external_potential(w);
    const bool tracked = w->contacts.lay.energy >= 0 && w->def.track_energy;
    /* the springs' energies from the records' sums: normal, tangential and each torque slot's */
    double elastic[TL_SLOT_COUNT];
    for (int sl = 0; sl < TL_SLOT_COUNT; sl++) elastic[sl] = 0.0;
    elastic[TL_SLOT_NORMAL] = v[TL_TERM_EN];
    elastic[TL_SLOT_TANGENTIAL] = v[TL_TERM_ET];
    for (int sl = 0; sl < TL_SLOT_COUNT; sl++) {
        const tl_slot_row *row = tl_slot_row_get(sl);
        if (row->cls == TL_CLASS_TORQUE) elastic[sl] = v[TL_TERM_TORQUE + row->place];
        if (row->cls == TL_CLASS_FORCE) elastic[sl] = v[TL_TERM_FORCE + row->place];
    }
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) {
        const tl_energy_term_info *ti = tl_energy_term_get(k);
        if (ti->kind == TL_ENERGY_KIND_ELASTIC) {
            /* not tracked: only the mechanical energy of the particles is known */
            if (tracked) e->term[k] = elastic[ti->slot];
            else if (w->prepared) e->term[k] = NAN;
        } else if (ti->kind != TL_ENERGY_KIND_KINETIC && ti->kind != TL_ENERGY_KIND_POTENTIAL) {
            /* booked: the ledger's; without records the contacts' books are not kept (but for the
             * boundary work, done on the bodies) */
            e->term[k] = !tracked && w->prepared && k != TL_ENERGY_BOUNDARY_WORK ? NAN : w->books.ledger.term[k];
        }
    }
    e->total = tl_energy_total(e);
    return TL_OK;
}

/* ---- touching contacts ---- */

static int build_touch_list(tl_world *w) {
    if (w->touch.step == w->clock.steps && w->prepared) return 0;
    w->touch.n = 0;
    size_t need = w->contacts.touching;
    if (tl_mem_reserve(&w->mem, (void **)&w->touch.ref, &w->touch.cap, need + 1, sizeof *w->touch.ref) != 0)
        return -1;
    for (size_t k = 0; k < w->contacts.pp.count; k++)
        if ((w->contacts.pp.state[k] & TL_PAIR_TOUCH) && w->touch.n < w->touch.cap)
            w->touch.ref[w->touch.n++] = (uint32_t)k;
    for (size_t k = 0; k < w->contacts.pw.count; k++)
        if ((w->contacts.pw.state[k] & TL_PAIR_TOUCH) && w->touch.n < w->touch.cap)
            w->touch.ref[w->touch.n++] = (uint32_t)k | 0x80000000u;
    /* then the shape stage's patches, in record order, each with its candidate */
    const tl_shape_contacts *sc = &w->contacts.sc;
    w->touch.n_spheres = w->touch.n;
    if (sc->touching) {
        if (tl_mem_reserve(&w->mem, (void **)&w->touch.cand, &w->touch.cap_cand, sc->touching + 1,
                           sizeof *w->touch.cand) != 0)
            return -1;
        size_t r = 0;
        for (size_t k = 0; k < sc->cand.count && r < sc->touching; k++)
            for (size_t m = 0; m < sc->live[sc->cur][k] && r < sc->touching; m++) w->touch.cand[r++] = (uint32_t)k;
        w->touch.n += r;
    }
    w->touch.step = w->clock.steps;
    return 0;
}

/* The damping part of a record's applied normal force: less the normal spring's and the force
 * slots' (cohesion's), which the energy group keeps (NAN without it). */
static double damping_part(const tl_world *w, const double *rec, double fn) {
    const int at = w->contacts.lay.energy;
    if (at < 0) return NAN;
    double d = fn - rec[at + TL_BE_FN_EL];
    for (int t = 0; t < TL_FORCE_SLOTS; t++) d -= rec[at + TL_BE_F_FORCE + t];
    return d;
}

/* A patch of the shape stage as a contact. */
static void shape_contact(const tl_world *w, size_t r, tl_contact_info *o) {
    const tl_shape_contacts *sc = &w->contacts.sc;
    size_t k = w->touch.cand[r];
    const double *rec = sc->store[sc->cur].rec + r * (size_t)sc->stride;
    const double *bk = rec + w->contacts.lay.hist, *bp = rec + w->contacts.lay.stride;
    const tl_particles *p = &w->p;
    uint32_t i = sc->cand.a[k], j = sc->cand.b[k];
    bool wall = sc->cand.wall[k] != 0;
    memset(o, 0, sizeof *o);
    o->id_a = p->id[i];
    o->id_b = wall ? (uint32_t)w->walls.f[j].wall : p->id[j];
    o->with_wall = wall;
    o->overlap = bk[TL_BK_DELTA];
    o->normal = (tl_vec3){bp[TL_BP_N], bp[TL_BP_N + 1], bp[TL_BP_N + 2]};
    o->point = (tl_vec3){p->x[i][0] + bp[TL_BP_RA], p->x[i][1] + bp[TL_BP_RA + 1], p->x[i][2] + bp[TL_BP_RA + 2]};
    o->normal_force = bk[TL_BK_FN];
    o->normal_damping_force = damping_part(w, rec, bk[TL_BK_FN]);
    o->tangential_force = (tl_vec3){bk[TL_BK_FT], bk[TL_BK_FT + 1], bk[TL_BK_FT + 2]};
    o->sliding = (sc->store[sc->cur].state[r] & TL_PAIR_SLIDING) != 0;
    o->history = rec;
    o->history_count = w->contacts.lay.hist;
}

size_t tl_world_contact_count(const tl_world *w) {
    if (tl_ranks_viewing(&w->ranks)) return w->ranks.nvc;
    return w->prepared ? w->contacts.touching : 0;
}

tl_status tl_world_get_contact(const tl_world *cw, size_t index, tl_contact_info *o) {
    if (tl_ranks_viewing(&cw->ranks)) {
        if (index >= cw->ranks.nvc) return TL_ERROR_NOT_FOUND;
        *o = cw->ranks.vc[index];
        return TL_OK;
    }
    tl_world *w = (tl_world *)cw; /* the query list is a cache */
    if (build_touch_list(w) != 0) return TL_ERROR_MEMORY;
    if (index >= w->touch.n) return TL_ERROR_NOT_FOUND;
    if (index >= w->touch.n_spheres) {
        shape_contact(w, index - w->touch.n_spheres, o);
        return TL_OK;
    }
    uint32_t ref = w->touch.ref[index];
    bool wall = (ref & 0x80000000u) != 0;
    size_t k = ref & 0x7fffffffu;
    const tl_pairs *cl = wall ? &w->contacts.pw : &w->contacts.pp;
    uint32_t i = cl->a[k], j = cl->b[k];
    const tl_particles *p = &w->p;
    tl_geometry g;
    if (!wall) {
        double xj[3];
        const double *sh = w->broad.nb.shift[cl->img[k]];
        for (int d = 0; d < 3; d++) xj[d] = p->x[j][d] + sh[d];
        tl_geometry_sphere_sphere(p->x[i], p->radius[i], xj, p->radius[j], &g);
    } else {
        tl_face_geometry(&w->walls.f[j], p->x[i], p->radius[i], &g);
    }
    const double *rec = tl_pair_record(cl, k);
    const double *bk = rec + w->contacts.lay.hist;
    memset(o, 0, sizeof *o);
    o->id_a = p->id[i];
    o->id_b = wall ? (uint32_t)w->walls.f[j].wall : p->id[j];
    o->with_wall = wall;
    o->overlap = bk[TL_BK_DELTA];
    o->normal = (tl_vec3){g.n[0], g.n[1], g.n[2]};
    /* the contact point: where the law put it (the overlap split by compliances) */
    const tl_pair_law *pl = tl_world_pair(w, p->material[i], wall ? w->walls.w[w->walls.f[j].wall].material
                                                                    : p->material[j]);
    double la = p->radius[i] - pl->split * bk[TL_BK_DELTA];
    o->point = (tl_vec3){p->x[i][0] + la * g.n[0], p->x[i][1] + la * g.n[1], p->x[i][2] + la * g.n[2]};
    o->normal_force = bk[TL_BK_FN];
    /* the damping part is kept with the energy terms */
    o->normal_damping_force = damping_part(w, rec, bk[TL_BK_FN]);
    o->tangential_force = (tl_vec3){bk[TL_BK_FT], bk[TL_BK_FT + 1], bk[TL_BK_FT + 2]};
    o->sliding = (cl->state[k] & TL_PAIR_SLIDING) != 0;
    o->history = rec;
    o->history_count = w->contacts.lay.hist;
    return TL_OK;
}

/* ---- collisions ---- */

tl_status tl_measure_log(tl_world *w, const tl_collision *c, uint64_t key) {
    if (tl_mem_reserve(&w->mem, (void **)&w->log.coll, &w->log.cap, w->log.n + 1, sizeof *w->log.coll) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&w->log.key, &w->log.cap_key, w->log.n + 1, sizeof *w->log.key) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (collision log)");
    w->log.key[w->log.n] = key;
    w->log.coll[w->log.n++] = *c;
    return TL_OK;
}

uint8_t tl_measure_pending_list(const tl_world *w, const tl_pending_exit *e) {
    const uint8_t shape = e->wall ? 1 : 0; /* the shape stage: its pairs, then its wall pairs */
    if (w->broad.nb.all_to_shapes) return shape;
    int64_t a = tl_particles_index(&w->p, e->a);
    if (a >= 0 && w->p.shape[a] != 0) return shape;
    if (e->wall) return e->b < w->walls.nfaces && w->walls.f[e->b].kind == TL_FACE_MESH ? 1 : 3;
    int64_t b = tl_particles_index(&w->p, e->b);
    return b >= 0 && w->p.shape[b] != 0 ? 0 : 2;
}

/* The velocity, force and inverse mass of particle `id` for a collision's end: from the store
 * (serially; on ranks when this rank owns it), else the next of the values fetched from the
 * owners (*next counts them off in the order they were asked for). False: it is gone. */
static bool motion_of(const tl_world *w, uint32_t id, const double (*got)[7], size_t *next, double v[3],
                      double f[3], double *im) {
    int64_t i = tl_particles_index(&w->p, id);
    if (tl_ranks_local(&w->ranks, i)) {
        v3_copy(v, w->p.v[i]);
        v3_copy(f, w->p.f[i]);
        *im = w->p.inv_mass[i];
        return true;
    }
    if (!got) return false;
    const double *g = got[(*next)++];
    if (isnan(g[6])) return false;
    v3_copy(v, g);
    v3_copy(f, g + 3);
    *im = g[6];
    return true;
}

void tl_measure_finish_exits(tl_world *w) {
    /* on ranks (collective): the ends' velocities and forces from the ranks that own them */
    const double(*got)[7] = tl_world_log_spread(w) ? w->ranks.ops->log_fetch(w) : NULL;
    size_t next = 0;
    size_t keep = 0;
    for (size_t k = 0; k < w->log.npend; k++) {
        const tl_pending_exit *e = &w->log.pend[k];
        if (e->step + 1 >= w->clock.steps) { /* separated in this step: finish after the next */
            w->log.pend[keep++] = *e;
            continue;
        }
        double va[3], fa[3], ima, vb[3], fb[3] = {0, 0, 0}, imb = 0.0;
        bool has_a = motion_of(w, e->a, got, &next, va, fa, &ima);
        bool has_b = e->wall || motion_of(w, e->b, got, &next, vb, fb, &imb);
        if (!has_a || !has_b) continue; /* a body left the domain meanwhile */
        if (e->wall) v3_copy(vb, w->walls.w[w->walls.f[e->b].wall].vel);
        double vrel[3];
        v3_sub(vrel, va, vb);
        /* the separation speed at the instant the contact ended: back from now
         * by the current (contact-free) accelerations */
        double arel[3];
        v3_scale(arel, fa, ima);
        if (!e->wall) v3_axpy(arel, -imb, fb);
        v3_axpy(vrel, -(w->clock.time - e->t_end), arel);
        tl_collision c;
        memset(&c, 0, sizeof c);
        c.id_a = e->a;
        c.id_b = e->wall ? (uint32_t)w->walls.f[e->b].wall : e->b;
        c.with_wall = e->wall;
        c.t_begin = e->t_begin;
        c.t_end = e->t_end;
        c.normal_speed_in = e->v_in;
        c.normal_speed_out = -v3_dot(vrel, e->n);
        c.restitution = e->v_in > 0.0 ? c.normal_speed_out / e->v_in : NAN;
        c.max_overlap = e->max_delta;
        c.max_normal_force = e->max_fn;
        (void)tl_measure_log(w, &c, 4 * (uint64_t)e->step + e->list);
    }
    w->log.npend = keep;
}
