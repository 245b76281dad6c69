/* The shape stage, and the carrying of its records over a rebuild; see shape_contacts.h and
 * shape_stage.h. */
#include "shape_stage.h"

#include <math.h>
#include <string.h>

#include "bodies.h"
#include "law.h"
#include "parallel.h"
#include "rigid.h"
#include "vec.h"
#include "shape_kind.h"
#include "tangential_books.h"
#include "world.h"

static uint64_t cand_key(const tl_shape_list *c, size_t k, const uint32_t *ids) {
    return c->wall[k] ? tl_key_pw(ids[c->a[k]], c->b[k]) : tl_key_pp(ids[c->a[k]], ids[c->b[k]]);
}

int tl_shape_contacts_stash(tl_world *w) {
    tl_shape_contacts *sc = &w->contacts.sc;
    tl_keymap_clear(&sc->stash);
    sc->adopted = 0;
    const uint8_t *live = sc->live[sc->cur];
    for (size_t k = 0; k < sc->cand.count; k++) {
        if (!live[k]) continue;
        if (tl_keymap_put(&w->mem, &sc->stash, cand_key(&sc->cand, k, w->p.id), (int32_t)k) != 0) return -1;
    }
    return 0;
}

int tl_shape_contacts_give(tl_world *w) {
    tl_shape_contacts *sc = &w->contacts.sc;
    const size_t n = sc->cand.count;
    if (tl_shape_contacts_reserve_cand(&w->mem, sc, n) != 0) return -1;
    const int from = sc->cur, to = 1 - from;
    const size_t st = (size_t)sc->stride;
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        int32_t o = sc->stash.count ? tl_keymap_get(&sc->stash, cand_key(&sc->cand, k, w->p.id)) : -1;
        total += o >= 0 ? sc->live[from][o] : 0;
    }
    if (tl_patch_store_reserve(&w->mem, &sc->store[to], sc->stride, total) != 0) return -1;
    const tl_patch_store *src = &sc->store[from];
    tl_patch_store *dst = &sc->store[to];
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        int32_t o = sc->stash.count ? tl_keymap_get(&sc->stash, cand_key(&sc->cand, k, w->p.id)) : -1;
        size_t m = o >= 0 ? sc->live[from][o] : 0;
        sc->first[to][k] = (uint32_t)at;
        sc->live[to][k] = (uint8_t)m;
        if (m) {
            size_t f = sc->first[from][o];
            memcpy(dst->rec + at * st, src->rec + f * st, m * st * sizeof *dst->rec);
            memcpy(dst->state + at, src->state + f, m);
            at += m;
        }
    }
    dst->count = at;
    sc->cur = to;
    tl_keymap_clear(&sc->stash);
    return 0;
}

int tl_shape_contacts_adopt(tl_world *w, uint64_t key, size_t m, const double *rec, const uint8_t *state) {
    tl_shape_contacts *sc = &w->contacts.sc;
    if (m == 0 || (sc->stash.count && tl_keymap_get(&sc->stash, key) >= 0)) return 0;
    const size_t o = sc->cand.count + sc->adopted, st = (size_t)sc->stride;
    tl_patch_store *s = &sc->store[sc->cur];
    if (m > UINT8_MAX || tl_shape_contacts_reserve_cand(&w->mem, sc, o + 1) != 0 ||
        tl_patch_store_reserve(&w->mem, s, sc->stride, s->count + m) != 0)
        return -1;
    memcpy(s->rec + s->count * st, rec, m * st * sizeof *rec);
    memcpy(s->state + s->count, state, m);
    sc->first[sc->cur][o] = (uint32_t)s->count;
    sc->live[sc->cur][o] = (uint8_t)m;
    s->count += m;
    if (tl_keymap_put(&w->mem, &sc->stash, key, (int32_t)o) != 0) return -1;
    sc->adopted++;
    return 0;
}

/* ---- the stage ---- */

typedef struct sstage {
    tl_world *w;
    const tl_rec_layout *lay;
    int pb;          /* offset of the patch group */
    double dt;
    bool acc, correct, energy, half_is_v;
    bool reaches;    /* a law of the world holds contacts beyond touch (cohesion's reach) */
    double b1, b2;   /* drift velocity = v - dt (b1 a_n + b2 a_n-1) */
    int from, to;    /* stores */
} sstage;

/* the two bodies of a candidate */
typedef struct side {
    bool wall;
    const tl_wall *wl;   /* a wall: its motion gives the velocity of each of its points */
    uint32_t index;      /* particle or face */
    tl_body body;        /* pose (centroid, with b's periodic image) and shape */
    double v[3], w[3];   /* force-stage velocities */
    double vh[3], wh[3]; /* drift velocities */
    double iml;          /* inverse mass seen by the law */
    int material;
} side;

static void side_particle(const sstage *s, uint32_t i, const double shift[3], side *o) {
    const tl_world *w = s->w;
    const tl_particles *p = &w->p;
    o->wall = false;
    o->index = i;
    o->body.shape = tl_world_shape_of(w, i);
    o->body.radius = p->radius[i];
    v3_add(o->body.pose.x, p->x[i], shift);
    /* a body of a shape: its attitude and drift velocities from the stage's table (body_table) */
    const double *sb = o->body.shape ? w->contacts.sc.body + (size_t)i * TL_SB_COUNT : NULL;
    if (sb) memcpy(o->body.pose.R, sb + TL_SB_R, sizeof o->body.pose.R);
    const bool mat = sb && tl_shape_kinds[o->body.shape->kind]->matrices; /* body_table's */
    o->body.M = mat ? sb + TL_SB_M : NULL;
    o->body.Mi = mat ? sb + TL_SB_MI : NULL;
    v3_copy(o->v, p->v[i]);
    v3_copy(o->w, p->w[i]);
    if (s->half_is_v) {
        v3_copy(o->vh, p->v[i]);
        v3_copy(o->wh, p->w[i]);
    } else if (sb) {
        v3_copy(o->vh, sb + TL_SB_VH);
        v3_copy(o->wh, sb + TL_SB_WH);
    } else {
        double im = p->inv_mass[i], ii = p->inv_inertia[i];
        for (int k = 0; k < 3; k++) {
            o->vh[k] = p->v[i][k] - s->dt * (s->b1 * p->f_old[i][k] + s->b2 * p->f_older[i][k]) * im;
            o->wh[k] = p->w[i][k] - s->dt * (s->b1 * p->t_old[i][k] + s->b2 * p->t_older[i][k]) * ii;
        }
    }
    o->iml = p->inv_mass_law[i];
    o->material = p->material[i];
}

static void side_wall(const sstage *s, uint32_t face, side *o) {
    const tl_wall *wl = &s->w->walls.w[s->w->walls.f[face].wall];
    o->wall = true;
    o->wl = wl;
    o->index = face;
    v3_copy(o->v, wl->vel);
    v3_copy(o->w, wl->omega); /* read by the rolling models only: point_velocity asks the wall */
    v3_copy(o->vh, wl->vel);
    v3_copy(o->wh, wl->omega_mid);
    o->iml = 0.0;
    o->material = wl->material;
}

/* The velocity of a body's point at arm r from its centre (a wall: at the point r,
 * from the world origin), now or over the drift. */
static inline void point_velocity(const side *b, const double r[3], bool drift, double out[3]) {
    if (b->wall) {
        double v[3], vh[3];
        tl_wall_point_velocity(b->wl, r, v, vh);
        v3_copy(out, drift ? vh : v);
        return;
    }
    double t[3];
    v3_cross(t, drift ? b->wh : b->w, r);
    v3_add(out, drift ? b->vh : b->v, t);
}

/* The part of delta's rate that a patch's couple adds: couple . (w_a - w_b), now or over the drift
 * (narrow.h, tl_patch: zero but for the potential reading of a mesh pair). */
static inline double couple_rate(const double couple[3], const side *a, const side *b, bool drift) {
    double wr[3];
    v3_sub(wr, drift ? a->wh : a->w, drift ? b->wh : b->w);
    return v3_dot(couple, wr);
}

/* velocity of a's point (arm ra) relative to b's point (arm rb) */
static inline void rel_velocity(const side *a, const double ra[3], const side *b, const double rb[3], bool drift,
                                double out[3]) {
    double va[3], vb[3];
    point_velocity(a, ra, drift, va);
    point_velocity(b, rb, drift, vb);
    v3_sub(out, va, vb);
}

/* the tangential displacement over this step's drift of a's point relative to b's */
static inline void drift_slip(const sstage *s, const side *a, const side *b, const double n[3],
                              const double ra[3], const double rb[3], double out[3]) {
    double vr[3];
    rel_velocity(a, ra, b, rb, true, vr);
    v3_reject(out, vr, n);
    v3_scale(out, out, s->dt);
}

/* adds x to a candidate slot's booked energy term (its step at: TL_SS_CUR or TL_SS_NEXT) */
static inline void book(double *slot, int at, tl_energy_term term, double x) {
    slot[at + (int)term - TL_BOOKED_FIRST] += x;
}

/* The moment of inertia a rolling dashpot sees of one body about its contact point at arm r:
 * the mean of its principal moments (a sphere's own) plus m |r|^2; 0 for one that does not turn. */
static double rolling_inertia(const tl_world *w, const side *o, const double r[3]) {
    if (o->wall) return 0.0;
    const tl_particles *p = &w->p;
    uint32_t i = o->index;
    if (!(p->inv_inertia[i] > 0.0)) return 0.0;
    const tl_shape *sh = o->body.shape;
    double I = sh ? p->mass[i] * (sh->inertia[0] + sh->inertia[1] + sh->inertia[2]) / 3.0 : p->inertia[i];
    return I + p->mass[i] * v3_norm2(r);
}

/* The rolling model's inputs (laws with rolling resistance): w_a - w_b now, the rotation of a
 * relative to b over this step's drift (dth, zero before the first step), and the equivalent
 * moment of inertia. */
static void rolling_inputs(const sstage *s, const side *a, const side *b, const double ra[3], const double rb[3],
                           tl_contact *c, double dth[3]) {
    v3_sub(c->wr, a->w, b->w);
    v3_zero(dth);
    if (s->acc) {
        v3_sub(dth, a->wh, b->wh);
        v3_scale(dth, dth, s->dt);
    }
    double ia = rolling_inertia(s->w, a, ra), ib = rolling_inertia(s->w, b, rb);
    double inv = (ia > 0.0 ? 1.0 / ia : 0.0) + (ib > 0.0 ? 1.0 / ib : 0.0);
    c->i_eff = inv > 0.0 ? 1.0 / inv : 0.0;
}

/* the rolling (and twisting) torque: on a, and its opposite on b (a wall's torque: about any point) */
static inline void apply_torque(double *slot, const double m[3]) {
    v3_add(slot + TL_SS_TA, slot + TL_SS_TA, m);
    v3_sub(slot + TL_SS_TB, slot + TL_SS_TB, m);
}

static inline void apply(double *slot, const double fa[3], const double ra[3], const double rb[3]) {
    double t[3], mf[3];
    v3_add(slot + TL_SS_F, slot + TL_SS_F, fa);
    v3_cross(t, ra, fa);
    v3_add(slot + TL_SS_TA, slot + TL_SS_TA, t);
    v3_scale(mf, fa, -1.0);
    v3_cross(t, rb, mf);
    v3_add(slot + TL_SS_TB, slot + TL_SS_TB, t);
}

/* A patch record's fn_scale of its last evaluation (1 before the first). */
static inline double last_scale(const double *bp) {
    return bp[TL_BP_SCALE] > 0.0 ? bp[TL_BP_SCALE] : 1.0;
}

/* The law on one patch: through its fused kernel when the patch's fn_scale is 1. */
static inline void eval_law(const tl_law *law, const tl_pair_law *pl, tl_contact *c, double *hist, double fn_scale) {
    if (fn_scale == 1.0) tl_law_eval(law, pl, c, hist);
    else tl_law_eval_scaled(law, pl, c, hist, fn_scale);
}

/* The law's force at zero overlap (the contact-boundary correction), with the
 * given tangential history (NULL = none yet). */
static void touch_force(const tl_law *law, const tl_pair_law *pl, const tl_contact *c0, const double *hist,
                        double fn_scale, double *fn, double ft[3], tl_force_out fo0[TL_FORCE_SLOTS]) {
    tl_contact c = *c0;
    c.delta = 0.0;
    c.dt = 0.0;
    v3_zero(c.dxi);
    double scratch[TL_MAX_HIST];
    if (hist) memcpy(scratch, hist, (size_t)law->hist_count * sizeof *scratch);
    else memset(scratch, 0, sizeof scratch);
    eval_law(law, pl, &c, scratch, fn_scale);
    *fn = c.fn;
    v3_copy(ft, c.ft);
    if (fo0) memcpy(fo0, c.fos, sizeof c.fos); /* the force slots' part (law->force_at's places) */
}

/* The force slots' potential (cohesion's) at the contact's overlap with another equivalent radius
 * (on a copy: nothing of the contact changes) */
static double force_energy_at(const tl_law *law, const tl_pair_law *pl, const tl_contact *c0, const double *hist,
                              double r_eff) {
    tl_contact c = *c0;
    c.r_eff = r_eff;
    c.ra = c.rb = 2.0 * r_eff;
    double scratch[TL_MAX_HIST], u = 0.0;
    for (int k = 0; k < law->force_count; k++) {
        const int sl = law->force_slot[k], o = law->hist_offset[sl];
        memcpy(scratch, hist + o, (size_t)(law->hist_count - o) * sizeof *scratch);
        law->sub[sl]->force(pl->p[sl], &c, scratch);
        u += c.fo.e;
    }
    return u;
}

/* The law's elastic normal energy at the contact's overlap with another equivalent radius (the
 * normal slot on a copy of its history: nothing of the contact changes). */
static double normal_energy_at(const tl_law *law, const tl_pair_law *pl, const tl_contact *c0, const double *hist,
                               double r_eff) {
    tl_contact c = *c0;
    c.r_eff = r_eff;
    if (c.delta < 0.0) c.delta = 0.0; /* held apart by a force slot's reach: the normal slot sees touch */
    double scratch[TL_MAX_HIST];
    const int o = law->hist_offset[TL_SLOT_NORMAL];
    memcpy(scratch, hist + o, (size_t)(law->hist_count - o) * sizeof *scratch);
    law->sub[TL_SLOT_NORMAL]->force(pl->p[TL_SLOT_NORMAL], &c, scratch);
    return c.e_el_n;
}

/* dE/dR of the law's elastic normal energy at the contact's overlap, J/m: a central difference of
 * relative width 1e-6 (the energies of the catalogue go as R^p with p = 0 or 1/2, or through a yield
 * overlap that moves with R: its truncation error is about 1e-13 relative, its rounding 1e-10) */
static double normal_energy_slope(const tl_law *law, const tl_pair_law *pl, const tl_contact *c, const double *hist) {
    const double R = c->r_eff, h = 1e-6 * R;
    if (!(R > 0.0) || !isfinite(R)) return 0.0;
    return (normal_energy_at(law, pl, c, hist, R + h) - normal_energy_at(law, pl, c, hist, R - h)) / (2.0 * h);
}

/* The law's normal dashpot coefficient at the contact, d fn_damp / d delta_rate (N s/m in the law's
 * delta): the damping slot at two rates on a copy (a law without damping: 0) */
static double normal_damping_rate(const tl_law *law, const tl_pair_law *pl, const tl_contact *c0, const double *hist) {
    double scratch[TL_MAX_HIST], f[2];
    const int o = law->hist_offset[TL_SLOT_DAMPING];
    for (int k = 0; k < 2; k++) {
        tl_contact c = *c0;
        c.delta_rate = (double)k;
        if (c.delta < 0.0) c.delta = 0.0; /* held apart: the damping slot sees touch */
        memcpy(scratch, hist + o, (size_t)(law->hist_count - o) * sizeof *scratch);
        law->sub[TL_SLOT_DAMPING]->force(pl->p[TL_SLOT_DAMPING], &c, scratch);
        f[k] = c.fn_damp;
    }
    return f[1] - f[0];
}

/* One patch in contact this step: rec holds its record (copied from the
 * last step's when `touching`, else to be opened). Returns the new state. */
static uint8_t patch_touch(const sstage *s, const side *a, const side *b, const tl_patch *P, double *rec,
                           bool touching, const tl_law *law, const tl_pair_law *pl, double *slot) {
    const tl_world *w = s->w;
    const tl_particles *p = &w->p;
    const tl_rec_layout *lay = s->lay;
    const double delta = P->delta;
    /* delta's rate per unit of the bodies' approach at the point (1 but for the potential depth,
     * whose delta is a generalised coordinate: the law works in it, the bodies take fn_scale
     * times its normal force, and the ledger books the law's forces against delta's change) */
    const double fs = P->fn_scale;
    /* the contact point divides the overlap as the law says (contact_point) */
    double pa[3], pbp[3], ra[3], rb[3];
    v3_copy(pa, P->p);
    v3_axpy(pa, (0.5 - pl->split) * delta, P->n);
    v3_sub(ra, pa, a->body.pose.x);
    v3_copy(pbp, P->p);
    v3_axpy(pbp, -(0.5 - pl->split_b) * delta, P->n);
    /* b's arm: from its centre, or for a wall the point itself (torques about the origin) */
    if (b->wall) v3_copy(rb, pbp);
    else v3_sub(rb, pbp, b->body.pose.x);
    double vrel[3], vt[3];
    rel_velocity(a, ra, b, rb, false, vrel);
    double rate = v3_dot(vrel, P->n);
    v3_copy(vt, vrel);
    v3_axpy(vt, -rate, P->n);

    tl_contact c;
    c.delta = delta;
    c.delta_rate = fs * rate + couple_rate(P->couple, a, b, false);
    v3_copy(c.n, P->n);
    v3_copy(c.vt, vt);
    v3_zero(c.dxi);
    /* the radius of the contact's beginning (set below when it opens), or the one now
     * (tl_patch_radius) */
    const double r_last = touching ? rec[s->pb + TL_BP_REFF] : P->r_eff;
    c.r_eff = P->r_kind == TL_PATCH_R_KEPT ? r_last : P->r_eff;
    c.m_eff = 1.0 / (a->iml + b->iml);
    c.dt = s->acc ? s->dt : 0.0;
    c.first = false;
    c.ledger = s->energy;
    c.v_impact = lay->impact >= 0 ? rec[lay->impact + TL_BI_V_IN] : 0.0;
    /* the force slots' radii: the patch's one equivalent radius (a slot that reads two bodies'
     * radii is refused here: world_api.c, shape_stage_refuses) */
    if (law->force_count) c.ra = c.rb = 2.0 * c.r_eff;

    double ds[3] = {0.0, 0.0, 0.0};
    if (s->acc) drift_slip(s, a, b, P->n, ra, rb, ds);
    double phi = 0.5;
    bool entered = false;
    if (!touching) {
        memset(rec, 0, (size_t)w->contacts.sc.stride * sizeof *rec);
        double d_first = 0.0;
        if (s->acc) {
            /* the overlap at the start of the drift, from the drift's approach rate at the point */
            double vd[3];
            rel_velocity(a, ra, b, rb, true, vd);
            d_first = delta - s->dt * (fs * v3_dot(vd, P->n) + couple_rate(P->couple, a, b, true));
            if (d_first <= 0.0) {
                phi = delta / (delta - d_first);
                entered = true;
            } else {
                phi = 1.0;
                d_first = delta;
            }
        }
        if (lay->impact >= 0) {
            double *bi = rec + lay->impact;
            double t_now = s->acc ? w->clock.time + s->dt : w->clock.time;
            bi[TL_BI_T_BEGIN] = s->acc ? t_now - phi * s->dt : t_now;
            double arel[3];
            v3_scale(arel, p->f_old[a->index], p->inv_mass[a->index]);
            if (!b->wall) v3_axpy(arel, -p->inv_mass[b->index], p->f_old[b->index]);
            bi[TL_BI_V_IN] = rate - (s->acc ? phi * s->dt : 0.0) * v3_dot(arel, P->n);
            if (s->acc && w->clock.pc_phase == 2) {
                /* predictor-corrector, committing stage: back from v_n+1 = v_n + dt/2 (a_n + a*)
                 * to v_n + (1 - phi) dt a_n (as the sphere stage) */
                double astar[3];
                v3_scale(astar, p->f_older[a->index], p->inv_mass[a->index]);
                if (!b->wall) v3_axpy(astar, -p->inv_mass[b->index], p->f_older[b->index]);
                bi[TL_BI_V_IN] = rate - 0.5 * s->dt * v3_dot(astar, P->n) + (0.5 - phi) * s->dt * v3_dot(arel, P->n);
            }
            c.v_impact = bi[TL_BI_V_IN];
        }
        rec[lay->hist + TL_BK_DELTA] = d_first;
        c.first = true;
        v3_scale(c.dxi, ds, law->entry_displacement == TL_ENTRY_WHOLE_STEP ? 1.0 : phi);
    } else {
        v3_copy(c.dxi, ds);
    }
    /* the torque slots' last torques, spring and dashpot (zero for a new contact) */
    double dth[3] = {0.0, 0.0, 0.0}, th0[TL_TORQUE_SLOTS][6];
    memset(th0, 0, sizeof th0);
    if (law->spins) {
        rolling_inputs(s, a, b, ra, rb, &c, dth);
        v3_scale(c.dth, dth, touching || law->entry_displacement == TL_ENTRY_WHOLE_STEP ? 1.0 : phi);
        for (int k = 0; touching && k < law->torque_count; k++)
            memcpy(th0[law->torque_at[k]], tl_law_torque_hist(law, law->torque_slot[k], rec), sizeof th0[0]);
    }

    eval_law(law, pl, &c, rec, fs);

    /* a radius that follows the attitude at a known rate: the torque that makes the contact's force
     * the gradient of E(delta, R(attitude)), -dE/dR dR/dtheta on a, its opposite on b */
    double tc[3] = {0.0, 0.0, 0.0};
    if (P->r_kind == TL_PATCH_R_GRADIENT) {
        v3_scale(tc, P->r_grad, -normal_energy_slope(law, pl, &c, rec));
        apply_torque(slot, tc);
    }

    double fn_app = c.fn, ft_app[3];
    v3_copy(ft_app, c.ft);
    /* the force slots' applied forces (the law's units), and their state at the touch of a new
     * contact: its potential there is what forming the contact cost (as the sphere stage) */
    double f_app[TL_FORCE_SLOTS] = {0.0};
    for (int m = 0; m < law->force_count; m++) f_app[law->force_at[m]] = c.fos[law->force_at[m]].f;
    tl_force_out fo0[TL_FORCE_SLOTS];
    const bool touch_known = c.first && law->force_count, corrected = entered && s->correct && phi != 0.5;
    if (touch_known || corrected) {
        double fn0, ft0[3];
        touch_force(law, pl, &c, NULL, fs, &fn0, ft0, fo0);
        if (corrected) {
            const double wgt = phi - 0.5;
            fn_app += wgt * fn0;
            v3_axpy(ft_app, wgt, ft0);
            for (int m = 0; m < law->force_count; m++) f_app[law->force_at[m]] += wgt * fo0[law->force_at[m]].f;
        }
    }
    double fa[3];
    v3_scale(fa, P->n, -fn_app);
    v3_add(fa, fa, ft_app);
    apply(slot, fa, ra, rb);
    /* the wrench's couple: the law's force (the body's over fn_scale) times it, on a, and on b its
     * opposite */
    double cpl[3];
    v3_scale(cpl, P->couple, -fn_app / fs);
    apply_torque(slot, cpl);
    if (law->spins) apply_torque(slot, c.mr);
    /* The rocking dashpot of a potential reading: the law's normal dashpot spread over the contact
     * region, as a bed of dashpots of equal strength per area would act, resists the relative turn
     * in the contact plane with -eta fs^2 J w (J = P->rock; eta fs^2 the dashpot the bodies' approach
     * sees). A flat face rocking about its centre keeps delta, so the law's dashpot alone does not see
     * the rocking (docs/geometry.md). */
    double trk[3] = {0.0, 0.0, 0.0};
    const double *J = P->rock;
    if (J[0] + J[1] + J[2] > 0.0) {
        const double eta = normal_damping_rate(law, pl, &c, rec);
        if (eta > 0.0) {
            double wr[3], cf = -eta * fs * fs;
            v3_sub(wr, a->w, b->w);
            trk[0] = cf * (J[0] * wr[0] + J[3] * wr[1] + J[5] * wr[2]);
            trk[1] = cf * (J[3] * wr[0] + J[1] * wr[1] + J[4] * wr[2]);
            trk[2] = cf * (J[5] * wr[0] + J[4] * wr[1] + J[2] * wr[2]);
            apply_torque(slot, trk);
        }
    }

    double *bk = rec + lay->hist, *bp = rec + s->pb;
    if (s->energy) {
        double *be = rec + lay->energy;
        if (s->acc) {
            bool plastic = (law->sub[TL_SLOT_NORMAL]->normal_kind & TL_NORMAL_KIND_PLASTIC) != 0;
            /* The law's forces (the body's over fn_scale) through the bodies' approach over this
             * drift, as the tangential forces below: the last step's force at the point and along
             * the normal it was applied with, this step's at this one's (the drift's approach there,
             * times fn_scale, is the law's overlap rate). This is the work the bodies receive. A
             * patch's delta is not a distance the points travel (a mesh's 2V/A, docs/geometry.md),
             * so its own change would book a different work, and what the model creates or
             * destroys would be in no column; here it is in the spring's residual. A contact's
             * first evaluation: from its overlap at the drift's start (nothing before it). */
            const double fs_prev = last_scale(bp);
            double fn_prev = bk[TL_BK_FN] / fs_prev, fel_prev = be[TL_BE_FN_EL], d_prev = bk[TL_BK_DELTA];
            double dd_prev = 0.0, dd = c.delta - d_prev;
            double ds_prev[3] = {0.0, 0.0, 0.0};
            if (!c.first) {
                double vp[3], vc[3];
                rel_velocity(a, bp + TL_BP_RA, b, bp + TL_BP_RB, true, vp);
                rel_velocity(a, ra, b, rb, true, vc);
                dd_prev = s->dt * (fs_prev * v3_dot(vp, bp + TL_BP_N) + couple_rate(bp + TL_BP_C, a, b, true));
                dd = s->dt * (fs * v3_dot(vc, P->n) + couple_rate(P->couple, a, b, true));
                drift_slip(s, a, b, bp + TL_BP_N, bp + TL_BP_RA, bp + TL_BP_RB, ds_prev);
            }
            /* the turn of a relative to b over the drift, for the torques that act beside the force
             * (rocking dashpot, curvature torque): the work done against each (the trapezoid of the
             * last step's and this one's; from the contact's start when it opened) */
            double turn[3];
            v3_sub(turn, a->wh, b->wh);
            v3_scale(turn, turn, s->dt);
            double damper = 0.5 * ((fn_prev - fel_prev) * (c.first ? dd : dd_prev) + (fn_app / fs - c.fn_el) * dd);
            damper -= c.first ? 0.5 * phi * v3_dot(trk, turn) : 0.5 * (v3_dot(bp + TL_BP_TR, turn) + v3_dot(trk, turn));
            double spring = 0.5 * (fel_prev * (c.first ? dd : dd_prev) + c.fn_el * dd) - (c.e_el_n - be[TL_BE_E_N]);
            /* the force slots (cohesion) are conservative springs of their own: the damper is what the
             * applied force did beyond the normal spring's and theirs, and their work less the change
             * of their potential is the integration's error (as the sphere stage books them) */
            double fspring = 0.0;
            for (int m = 0; m < law->force_count; m++) {
                const int t = law->force_at[m];
                double u_prev = be[TL_BE_E_FORCE + t];
                if (touch_known && fo0[t].e != 0.0) {
                    u_prev = fo0[t].e;
                    book(slot, TL_SS_CUR, law->force_dissipated[m], -fo0[t].e);
                }
                const double w_f = 0.5 * (be[TL_BE_F_FORCE + t] * (c.first ? dd : dd_prev) + f_app[t] * dd);
                damper -= w_f;
                fspring += w_f - (c.fos[t].e - u_prev);
            }
            /* the tangential force's work: the dashpot's, the stiffness's, friction's or the
             * integration's (tangential_books.h) */
            const tl_tangential_books tb =
                tl_tangential_step(be, &c, tl_law_keeps_xi(law), bk + TL_BK_FT, ds_prev, ft_app, ds);
            /* the torque slots' torques (rolling, twisting), as the sphere stage books them
             * (contact_forces.c, contact_energy): the dashpot's work is lost; the spring's, less the
             * change of its energy, is the slip's loss at the limit, else the integration's error */
            double ts[TL_TORQUE_SLOTS], td[TL_TORQUE_SLOTS];
            for (int k = 0; k < law->torque_count; k++) {
                const int sl = law->torque_slot[k], t = law->torque_at[k];
                const double *th = tl_law_torque_hist(law, sl, rec);
                ts[k] = -0.5 * (v3_dot(th0[t], dth) + v3_dot(th, dth)) - (c.tqs[t].e_el - be[TL_BE_E_TORQUE + t]);
                td[k] = -0.5 * (v3_dot(th0[t] + 3, dth) + v3_dot(th + 3, dth));
            }
            /* the radius of curvature now: what its change did to the stored energy. Against a face
             * the curvature torque did it, and the work done against it over the drift joins the
             * spring's (so the residual keeps only the integration's error); between two ellipsoids
             * no force did: curvature_work books E(delta, R) - E(delta, R_last) as energy put in, and
             * the spring's term leaves it out */
            double curv = 0.0;
            if (P->r_kind == TL_PATCH_R_GRADIENT) {
                /* (the spring's term is the work the bodies did against the contact: minus the torque's) */
                spring -= c.first ? 0.5 * phi * v3_dot(tc, turn) : 0.5 * (v3_dot(bp + TL_BP_TC, turn) + v3_dot(tc, turn));
            } else if (P->r_kind == TL_PATCH_R_CURRENT && !c.first && c.r_eff != r_last) {
                curv = c.e_el_n - normal_energy_at(law, pl, &c, rec, r_last);
                spring += curv;
            }
            /* the force slots' potentials change with the radius too; no torque of theirs does it (the
             * curvature torque is the normal spring's): curvature_work books it, as between two
             * ellipsoids (docs/models.md, cohesion) */
            if (law->force_count && P->r_kind != TL_PATCH_R_KEPT && !c.first && c.r_eff != r_last) {
                double u_now = 0.0;
                for (int m = 0; m < law->force_count; m++) u_now += c.fos[law->force_at[m]].e;
                const double curv_f = u_now - force_energy_at(law, pl, &c, rec, r_last);
                curv += curv_f;
                fspring += curv_f;
            }
            book(slot, TL_SS_CUR, TL_ENERGY_CURVATURE_WORK, curv);
            double residual = (plastic ? 0.0 : spring) + fspring + tb.residual;
            for (int k = 0; k < law->torque_count; k++)
                if (!c.tqs[law->torque_at[k]].slip) residual += ts[k];
            book(slot, TL_SS_CUR, TL_ENERGY_DISSIPATED_NORMAL, damper);
            book(slot, TL_SS_CUR, TL_ENERGY_DISSIPATED_PLASTIC, plastic ? spring : 0.0);
            book(slot, TL_SS_CUR, TL_ENERGY_DISSIPATED_TANGENTIAL_DAMPING, tb.damping);
            book(slot, TL_SS_CUR, TL_ENERGY_DISSIPATED_FRICTION, tb.friction);
            book(slot, TL_SS_CUR, TL_ENERGY_TANGENTIAL_STIFFNESS_WORK, tb.stiffness);
            book(slot, TL_SS_CUR, TL_ENERGY_INTEGRATION_RESIDUAL, residual);
            for (int k = 0; k < law->torque_count; k++) {
                const int t = law->torque_at[k];
                book(slot, TL_SS_CUR, law->torque_dissipated[k], c.tqs[t].slip ? td[k] + ts[k] : td[k]);
            }
        }
        for (int k = 0; k < law->torque_count; k++) { /* else 0 from the record's opening */
            const int t = law->torque_at[k];
            be[TL_BE_E_TORQUE + t] = c.tqs[t].e_el;
        }
        for (int m = 0; m < law->force_count; m++) {
            const int t = law->force_at[m];
            be[TL_BE_F_FORCE + t] = f_app[t];
            be[TL_BE_E_FORCE + t] = c.fos[t].e;
        }
        be[TL_BE_FN_EL] = c.fn_el;
        be[TL_BE_E_N] = c.e_el_n;
        tl_tangential_store(be, &c);
        v3_copy(be + TL_BE_N, P->n);
    }
    bp[TL_BP_REFF] = c.r_eff;
    bp[TL_BP_SCALE] = fs;
    v3_copy(bp + TL_BP_TC, tc);
    v3_copy(bp + TL_BP_C, P->couple);
    v3_copy(bp + TL_BP_TR, trk);
    v3_copy(bp + TL_BP_N, P->n);
    v3_copy(bp + TL_BP_RA, ra);
    v3_copy(bp + TL_BP_RB, rb);
    bk[TL_BK_DELTA] = c.delta;
    bk[TL_BK_FN] = fn_app;
    v3_copy(bk + TL_BK_FT, ft_app);
    if (lay->impact >= 0) {
        double *bi = rec + lay->impact;
        if (c.delta > bi[TL_BI_MAX_DELTA]) bi[TL_BI_MAX_DELTA] = c.delta;
        if (c.fn > bi[TL_BI_MAX_FN]) bi[TL_BI_MAX_FN] = c.fn;
    }
    slot[TL_SS_TOUCH] += 1.0;
    return (uint8_t)(TL_PAIR_TOUCH | (c.sliding ? TL_PAIR_SLIDING : 0));
}

/* A patch of the last step that has no patch now: the contact ended during
 * this step's drift. Its force's boundary correction, the energy its record
 * still holds, and a mark for the collision log. Returns the record's state. */
static uint8_t patch_exit(const sstage *s, const side *a, const side *b, double *rec, const tl_law *law,
                          const tl_pair_law *pl, double *slot) {
    if (!s->acc) return 0;
    const tl_rec_layout *lay = s->lay;
    double *bk = rec + lay->hist, *bp = rec + s->pb;
    const double *n = bp + TL_BP_N, *ra = bp + TL_BP_RA, *rb = bp + TL_BP_RB;
    /* the overlap now, from the drift's approach rate at the last contact point */
    double vd[3];
    rel_velocity(a, ra, b, rb, true, vd);
    const double fs = last_scale(bp);
    double dprev = bk[TL_BK_DELTA], rate_d = v3_dot(vd, n) + couple_rate(bp + TL_BP_C, a, b, true) / fs;
    double dnow = dprev + s->dt * fs * rate_d;
    double psi = dprev > 0.0 && dnow < 0.0 ? dprev / (dprev - dnow) : (dprev > 0.0 ? 1.0 : 0.5);
    bp[TL_BP_PSI] = psi;
    tl_contact c;
    memset(&c, 0, sizeof c);
    v3_copy(c.n, n);
    /* unused at zero overlap by the Hertzian laws (the linear ones ignore it); the force slots' at
     * their last radius */
    c.r_eff = law->force_count ? bp[TL_BP_REFF] : 1.0;
    c.ra = c.rb = 2.0 * c.r_eff;
    c.m_eff = 1.0 / (a->iml + b->iml);
    c.v_impact = lay->impact >= 0 ? rec[lay->impact + TL_BI_V_IN] : 0.0;
    c.delta_rate = fs * rate_d;
    double fn0, ft0[3], fn_app = 0.0, ft_app[3] = {0.0, 0.0, 0.0};
    tl_force_out fo0[TL_FORCE_SLOTS];
    touch_force(law, pl, &c, rec, fs, &fn0, ft0, fo0);
    if (s->correct) {
        double wgt = psi - 0.5, fa[3];
        fn_app = wgt * fn0;
        v3_scale(ft_app, ft0, wgt);
        v3_scale(fa, n, -fn_app);
        v3_add(fa, fa, ft_app);
        apply(slot, fa, ra, rb);
        double cpl[3];
        v3_scale(cpl, bp + TL_BP_C, -fn_app / fs);
        apply_torque(slot, cpl);
    }
    if (s->energy) {
        const double *be = rec + lay->energy;
        bool plastic = (law->sub[TL_SLOT_NORMAL]->normal_kind & TL_NORMAL_KIND_PLASTIC) != 0;
        double ds[3];
        drift_slip(s, a, b, n, ra, rb, ds);
        double dd = dnow - dprev, fel_prev = be[TL_BE_FN_EL];
        double spring = 0.5 * fel_prev * dd + be[TL_BE_E_N];
        double damper = 0.5 * ((bk[TL_BK_FN] + fn_app) / fs - fel_prev) * dd;
        /* the force slots (cohesion): their last applied force and this correction's share act as the
         * normal spring's do, and their potential goes with the contact (into the residual) */
        double fslots_corr = 0.0, fspring = 0.0;
        for (int m = 0; m < law->force_count; m++) {
            const int t = law->force_at[m];
            const double fcorr = (s->correct ? psi - 0.5 : 0.0) * fo0[t].f, w_f = 0.5 * (be[TL_BE_F_FORCE + t] + fcorr) * dd;
            fslots_corr += fcorr;
            damper -= w_f;
            fspring += w_f + be[TL_BE_E_FORCE + t];
        }
        /* the last tangential force over half this drift and the spring's energy, which goes with
         * the contact, and the correction's share with the spring's (tangential_books.h) */
        const bool held = tl_law_keeps_xi(law);
        const tl_tangential_books tb = tl_tangential_exit(be, held, bk + TL_BK_FT, ds);
        tl_tangential_books tn = {0.0, 0.0, 0.0, 0.0};
        tl_tangential_book_rest(&tn, tl_tangential_exit_term(be, held), -0.5 * v3_dot(ft_app, ds));
        /* the torque slots' last torques over half this drift, and their springs' energy, which
         * goes with the contact */
        double dtq[TL_TORQUE_SLOTS] = {0.0};
        if (law->spins) {
            double dth[3];
            rolling_inputs(s, a, b, ra, rb, &c, dth);
            for (int k = 0; k < law->torque_count; k++) {
                const int t = law->torque_at[k];
                const double *th = tl_law_torque_hist(law, law->torque_slot[k], rec);
                dtq[k] = -0.5 * (v3_dot(th, dth) + v3_dot(th + 3, dth)) + be[TL_BE_E_TORQUE + t];
            }
        }
        /* the last curvature torque over half this drift (zero but for an ellipsoid at a face) */
        double dth_r[3];
        v3_sub(dth_r, a->wh, b->wh);
        spring -= 0.5 * s->dt * v3_dot(bp + TL_BP_TC, dth_r);
        damper -= 0.5 * s->dt * v3_dot(bp + TL_BP_TR, dth_r);
        book(slot, TL_SS_CUR, TL_ENERGY_DISSIPATED_NORMAL, damper);
        book(slot, TL_SS_CUR, TL_ENERGY_DISSIPATED_PLASTIC, plastic ? spring : 0.0);
        book(slot, TL_SS_CUR, TL_ENERGY_DISSIPATED_TANGENTIAL_DAMPING, tb.damping);
        book(slot, TL_SS_CUR, TL_ENERGY_DISSIPATED_FRICTION, tb.friction);
        book(slot, TL_SS_CUR, TL_ENERGY_TANGENTIAL_STIFFNESS_WORK, tb.stiffness);
        book(slot, TL_SS_CUR, TL_ENERGY_INTEGRATION_RESIDUAL, (plastic ? 0.0 : spring) + fspring + tb.residual);
        for (int k = 0; k < law->torque_count; k++)
            book(slot, TL_SS_CUR, law->torque_dissipated[k], dtq[k]);
        /* the correction's second half-kick lands in the next step: so does its work */
        book(slot, TL_SS_NEXT, TL_ENERGY_DISSIPATED_NORMAL, 0.5 * (fn_app - fs * fslots_corr) * rate_d * s->dt);
        book(slot, TL_SS_NEXT, TL_ENERGY_INTEGRATION_RESIDUAL, 0.5 * fs * fslots_corr * rate_d * s->dt);
        book(slot, TL_SS_NEXT, TL_ENERGY_DISSIPATED_TANGENTIAL_DAMPING, tn.damping);
        book(slot, TL_SS_NEXT, TL_ENERGY_DISSIPATED_FRICTION, tn.friction);
        book(slot, TL_SS_NEXT, TL_ENERGY_TANGENTIAL_STIFFNESS_WORK, tn.stiffness);
        book(slot, TL_SS_NEXT, TL_ENERGY_INTEGRATION_RESIDUAL, tn.residual);
    }
    if (s->w->log.on && lay->impact >= 0) {
        slot[TL_SS_EXITS] += 1.0;
        return TL_PAIR_EXIT;
    }
    return 0;
}

/* the body-frame point of a world point on body a */
static void anchor_of(const side *a, const double pw[3], double out[3]) {
    double d[3];
    v3_sub(d, pw, a->body.pose.x);
    if (a->body.shape) {
        double R[3][3];
        memcpy(R, a->body.pose.R, sizeof R);
        m3_tmul(out, R, d);
    } else {
        v3_copy(out, d);
    }
}

static void sides_of(const sstage *s, size_t k, side *a, side *b) {
    const tl_world *w = s->w;
    const tl_shape_list *c = &w->contacts.sc.cand;
    static const double zero[3] = {0.0, 0.0, 0.0};
    side_particle(s, c->a[k], zero, a);
    if (c->wall[k]) side_wall(s, c->b[k], b);
    else side_particle(s, c->b[k], w->broad.nb.shift[c->img[k]], b);
}

/* The attitude and drift velocities of every body of a shape, once per stage: each of its
 * candidates reads them (side_particle) instead of working them out again. */
static int body_table(const sstage *s) {
    tl_world *w = s->w;
    tl_shape_contacts *sc = &w->contacts.sc;
    const tl_particles *p = &w->p;
    const size_t n = p->count;
    if (tl_mem_reserve(&w->mem, (void **)&sc->body, &sc->cap_body, n * TL_SB_COUNT + 1, sizeof *sc->body) != 0)
        return -1;
    const int nt = w->nthreads;
    TL_FOR_STATIC(i, n, {
        if (tl_world_shape_of(w, (uint32_t)i)) {
            double *sb = sc->body + i * TL_SB_COUNT;
            tl_pose pose;
            tl_pose_from(&pose, p->x[i], p->q[i]);
            memcpy(sb + TL_SB_R, pose.R, sizeof pose.R);
            const tl_shape *shp = tl_world_shape_of(w, (uint32_t)i);
            void (*matrices)(const tl_body *, double *, double *) = tl_shape_kinds[shp->kind]->matrices;
            if (matrices) { /* the matrices its pairs' searches need (an ellipsoid's) */
                tl_body bd = {shp, p->radius[i], pose, NULL, NULL};
                matrices(&bd, sb + TL_SB_M, sb + TL_SB_MI);
            }
            if (!s->half_is_v)
                tl_body_drift_velocity(p, w->shapes.of, i, s->dt, s->b1, s->b2, sb + TL_SB_VH, sb + TL_SB_WH);
        }
    })
    return 0;
}

/* 1. geometry of candidate k */
static int candidate_geometry(const sstage *s, size_t k, tl_narrow_scratch *scr) {
    tl_world *w = s->w;
    tl_shape_contacts *sc = &w->contacts.sc;
    const tl_shape_list *cl = &sc->cand;
    const tl_particles *p = &w->p;
    sc->np[k] = 0;
    /* a contact of the last step that a force holds beyond touch (jkr's, a liquid bridge's reach)
     * is measured apart down to minus that reach (at its last radius), where the kind's geometry
     * measures bodies apart (the ellipsoid's); else from touch */
    double floor = 0.0;
    const uint32_t i = cl->a[k], j = cl->b[k];
    if (s->reaches) { /* else the scratch's floor stays 0, as it began */
        if (sc->live[s->from][k] > 0 && sc->store[s->from].rec) {
            const int ma = p->material[i], mb = cl->wall[k] ? w->walls.w[w->walls.f[j].wall].material : p->material[j];
            const tl_law *law = &w->cat.laws[w->cat.law_of[(size_t)ma * w->cat.law_dim + (size_t)mb]];
            if (law->reaches) {
                const double *rec = sc->store[s->from].rec + (size_t)sc->first[s->from][k] * (size_t)sc->stride;
                floor = -tl_law_reach(law, tl_world_pair(w, ma, mb), rec[s->pb + TL_BP_REFF]);
            }
        }
        scr->floor = floor;
    }
    /* the bounding spheres first, from the positions alone: most candidates end here, before
     * their poses and drift velocities are worked out */
    if (cl->wall[k]) {
        tl_geometry g;
        tl_face_geometry(&w->walls.f[j], p->x[i], p->radius[i], &g);
        if (!(g.delta > floor)) return 0;
    } else {
        const double *sh = w->broad.nb.shift[cl->img[k]];
        double d[3], r = p->radius[i] + p->radius[j] - floor;
        for (int q = 0; q < 3; q++) d[q] = p->x[j][q] + sh[q] - p->x[i][q];
        if (v3_norm2(d) >= r * r) return 0;
    }
    side a, b;
    sides_of(s, k, &a, &b);
    if (a.iml + b.iml == 0.0) return 0; /* two immovable bodies do not interact */
    int max = (int)(sc->off[k + 1] - sc->off[k]);
    tl_patch *out = sc->buf + sc->off[k];
    /* the normal of the pair's first record of the last step steers a mesh pair's search (its
     * result does not depend on it: pcm.h) */
    const double *hint = NULL;
    if (sc->live[s->from][k] > 0 && sc->store[s->from].rec)
        hint = sc->store[s->from].rec + (size_t)sc->first[s->from][k] * (size_t)sc->stride + s->pb + TL_BP_N;
    int n = b.wall ? tl_narrow_face(&a.body, &w->walls.f[b.index], out, max, scr)
                   : tl_narrow_bodies(&a.body, &b.body, hint, out, max, scr);
    if (n < 0) return n;
    sc->np[k] = (uint8_t)(n > max ? max : n);
    return 0;
}

/* 2.-3. matching and the law for candidate k */
static void candidate_contacts(const sstage *s, size_t k) {
    tl_world *w = s->w;
    tl_shape_contacts *sc = &w->contacts.sc;
    const size_t st = (size_t)sc->stride;
    double *slot = sc->slot + k * TL_SS_COUNT;
    memset(slot, 0, TL_SS_COUNT * sizeof *slot);
    const size_t nnew = sc->np[k], nold = sc->live[s->from][k];
    if (nnew == 0 && nold == 0) return;
    side a, b;
    sides_of(s, k, &a, &b);
    tl_patch_store *os = &sc->store[s->from], *ns = &sc->store[s->to];
    /* an empty store has no block yet: no arithmetic on its null pointer (UBSan, found by
     * fuzz_scene: fuzz/regressions/scene-null-store) */
    double *orec = os->rec ? os->rec + (size_t)sc->first[s->from][k] * st : NULL;
    uint8_t *ostate = os->state ? os->state + sc->first[s->from][k] : NULL;
    if (a.iml + b.iml == 0.0) return; /* dropped without a word, as the sphere stage does */
    const int ma = a.material, mb = b.material;
    const tl_law *law = &w->cat.laws[w->cat.law_of[(size_t)ma * w->cat.law_dim + (size_t)mb]];
    const tl_pair_law *pl = tl_world_pair(w, ma, mb);
    const tl_patch *P = sc->buf + sc->off[k];
    /* match by the contact point in a's body frame: nearest first, within a quarter of the
     * smaller bounding radius (a convex pair's one patch always takes the one record) */
    int match[TL_MAX_PATCHES];
    bool used[TL_MAX_PATCHES] = {false};
    double anchor[TL_MAX_PATCHES][3];
    double tol = 0.25 * (b.wall ? a.body.radius : dmin(a.body.radius, b.body.radius));
    for (size_t j = 0; j < nnew; j++) {
        anchor_of(&a, P[j].p, anchor[j]);
        match[j] = -1;
        if (nnew == 1 && nold == 1) {
            match[j] = 0;
            used[0] = true;
            continue;
        }
        double best = tol * tol;
        for (size_t o = 0; o < nold; o++) {
            if (used[o]) continue;
            double d[3];
            v3_sub(d, anchor[j], orec + o * st + s->pb + TL_BP_ANCHOR);
            double d2 = v3_norm2(d);
            if (d2 < best) {
                best = d2;
                match[j] = (int)o;
            }
        }
        if (match[j] >= 0) used[match[j]] = true;
    }
    for (size_t j = 0; j < nnew; j++) {
        size_t at = (size_t)sc->nfirst[k] + j;
        double *rec = ns->rec + at * st;
        bool touching = match[j] >= 0;
        if (touching) memcpy(rec, orec + (size_t)match[j] * st, st * sizeof *rec);
        ns->state[at] = patch_touch(s, &a, &b, &P[j], rec, touching, law, pl, slot);
        /* the anchor of the point the law used on a */
        double pa[3];
        v3_copy(pa, a.body.pose.x);
        v3_add(pa, pa, rec + s->pb + TL_BP_RA);
        anchor_of(&a, pa, rec + s->pb + TL_BP_ANCHOR);
    }
    for (size_t o = 0; o < nold; o++)
        if (!used[o]) ostate[o] = patch_exit(s, &a, &b, orec + o * st, law, pl, slot);
}

static tl_status reserve_step(tl_world *w, size_t n) {
    tl_shape_contacts *sc = &w->contacts.sc;
    if (n + 1 > sc->cap_step) {
        size_t ncap = n + n / 4 + 16, old = sc->cap_step;
        size_t *off = tl_mem_realloc(&w->mem, sc->off, old * sizeof *off, ncap * sizeof *off);
        if (!off) return TL_ERROR_MEMORY;
        sc->off = off;
        uint8_t *np = tl_mem_realloc(&w->mem, sc->np, old * sizeof *np, ncap * sizeof *np);
        if (!np) return TL_ERROR_MEMORY;
        sc->np = np;
        uint32_t *nf = tl_mem_realloc(&w->mem, sc->nfirst, old * sizeof *nf, ncap * sizeof *nf);
        if (!nf) return TL_ERROR_MEMORY;
        sc->nfirst = nf;
        sc->cap_step = ncap;
    }
    if (tl_mem_reserve(&w->mem, (void **)&sc->slot, &sc->cap_slot, n * TL_SS_COUNT + 1, sizeof *sc->slot) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&sc->face, &sc->cap_face, n + 1, sizeof *sc->face) != 0)
        return TL_ERROR_MEMORY;
    if (tl_shape_contacts_reserve_cand(&w->mem, sc, n) != 0) return TL_ERROR_MEMORY;
    int nt = w->nthreads > 0 ? w->nthreads : 1;
    if (nt > sc->nscratch) {
        tl_narrow_scratch *ns = tl_mem_realloc(&w->mem, sc->scratch, (size_t)sc->nscratch * sizeof *ns,
                                               (size_t)nt * sizeof *ns);
        if (!ns) return TL_ERROR_MEMORY;
        for (int t = 0; t < sc->nscratch; t++) tl_narrow_scratch_moved(&ns[t]);
        for (int t = sc->nscratch; t < nt; t++) tl_narrow_scratch_init(&ns[t], &w->def.allocator);
        sc->scratch = ns;
        sc->nscratch = nt;
    }
    return TL_OK;
}

static const char *kind_name(const tl_shape *s) { return tl_shape_kind_name(s ? s->kind : TL_SHAPE_SPHERE); }

/* Step 4's sums of the whole (walls' reactions, the ledger, the touching count) from the
 * candidates' slots, in candidate order. Serially this world's slots; on several ranks those of
 * every rank in rank order, the serial candidate order (parallel/decomp_shapes.c). */
static void add_global_parts(tl_world *w, const double *slots, size_t n, size_t stride, const int32_t *face) {
    tl_shape_contacts *sc = &w->contacts.sc;
    for (size_t k = 0; k < n; k++) {
        const double *slot = slots + k * stride;
        int32_t fk = face ? face[k] : (int32_t)slot[TL_SS_COUNT]; /* gathered: the face after the slot */
        if (fk >= 0) {
            tl_wall *wl = &w->walls.w[w->walls.f[fk].wall];
            v3_sub(wl->force, wl->force, slot + TL_SS_F);
            v3_add(wl->torque, wl->torque, slot + TL_SS_TB); /* about the origin: see patch_touch */
        }
        const double *c = slot + TL_SS_CUR, *nx = slot + TL_SS_NEXT;
        for (int t = 0; t < TL_BOOKED_COUNT; t++) {
            w->books.ledger.term[TL_BOOKED_FIRST + t] += c[t];
            w->books.next.term[TL_BOOKED_FIRST + t] += nx[t];
        }
        sc->touching += (size_t)slot[TL_SS_TOUCH];
    }
}

/* candidates per chunk of the stage's parallel loops */
#define SHAPE_CHUNK 64

tl_status tl_shape_stage(tl_world *w, bool accumulate) {
    tl_shape_contacts *sc = &w->contacts.sc;
    const size_t n = sc->cand.count;
    const bool dist = tl_ranks_spread(&w->ranks);
    sc->touching = 0;
    if (n == 0) {
        sc->store[sc->cur].count = 0;
        /* on ranks the others' sums still come (collective) */
        return dist ? w->ranks.ops->shape_sums(w, NULL, NULL, 0, add_global_parts) : TL_OK;
    }
    sstage s;
    s.w = w;
    s.lay = &w->contacts.lay;
    s.pb = w->contacts.lay.stride;
    s.dt = w->clock.dt;
    s.acc = accumulate;
    s.correct = accumulate && w->def.contact_boundary_correction;
    s.energy = w->def.track_energy && w->contacts.lay.energy >= 0;
    s.half_is_v = w->clock.c_pred[0] == 0.5 && w->clock.c_pred[1] == 0.0;
    s.reaches = false;
    for (size_t l = 0; l < w->cat.nlaws; l++) s.reaches = s.reaches || w->cat.laws[l].reaches;
    /* without such a law every pair is measured from touch (candidate_geometry sets the floor
     * only with one) */
    for (int t = 0; !s.reaches && t < sc->nscratch; t++) sc->scratch[t].floor = 0.0;
    s.b1 = w->clock.c_pred[0] - 0.5;
    s.b2 = w->clock.c_pred[1];
    s.from = sc->cur;
    s.to = 1 - sc->cur;
    if (reserve_step(w, n) != TL_OK || body_table(&s) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (shape contacts)");

    /* 1. geometry: room for each candidate's largest patch count */
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        sc->off[k] = total;
        const tl_shape *sa = tl_world_shape_of(w, sc->cand.a[k]);
        if (sc->cand.wall[k]) total += (size_t)tl_narrow_max_patches_face(sa, &w->walls.f[sc->cand.b[k]]);
        else total += (size_t)tl_narrow_max_patches(sa, tl_world_shape_of(w, sc->cand.b[k]));
    }
    sc->off[n] = total;
    if (tl_mem_reserve(&w->mem, (void **)&sc->buf, &sc->cap_buf, total + 1, sizeof *sc->buf) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (shape contacts)");
    int nt = w->nthreads;
    int err = 0;
    /* one thread: scratch 0, not the caller's thread number (a world stepped from inside the
     * caller's own parallel region, one world per thread: validate's Brazil nut runs) */
    /* in chunks of SHAPE_CHUNK candidates: most end at their bounding spheres in a few
     * nanoseconds, and their outputs (np, the slots) are neighbours in memory */
    TL_FOR_DYNAMIC_CHUNK(k, n, SHAPE_CHUNK, {
        int r = candidate_geometry(&s, k, &sc->scratch[nt > 1 ? tl_thread_num() : 0]);
        if (r < 0) {
            _Pragma("omp atomic write") err = r;
        }
    })
    if (err) {
        for (size_t k = 0; k < n; k++) {
            side a, b;
            sides_of(&s, k, &a, &b);
            if (candidate_geometry(&s, k, &sc->scratch[0]) >= 0) continue;
            return tl_world_fail(w, err == -2 ? TL_ERROR_MEMORY : TL_ERROR_ARGUMENT,
                                 err == -2 ? "out of memory (contact geometry)"
                                           : "no contact geometry between a %s and a %s",
                                 kind_name(a.body.shape), b.wall ? "wall" : kind_name(b.body.shape));
        }
    }
    /* 2. where each candidate's records go */
    size_t nrec = 0;
    for (size_t k = 0; k < n; k++) {
        sc->nfirst[k] = (uint32_t)nrec;
        nrec += sc->np[k];
    }
    if (tl_patch_store_reserve(&w->mem, &sc->store[s.to], sc->stride, nrec) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (shape contacts)");
    /* 3. matching and the law */
    TL_FOR_DYNAMIC_CHUNK(k, n, SHAPE_CHUNK, candidate_contacts(&s, k);)

    /* 4. the sums, in candidate order: each body's, then those of the whole (the walls, the
     * ledger: on ranks over every rank's candidates) */
    tl_particles *p = &w->p;
    tl_patch_store *os = &sc->store[s.from];
    const size_t st = (size_t)sc->stride;
    for (size_t k = 0; k < n; k++) {
        const double *slot = sc->slot + k * TL_SS_COUNT;
        uint32_t i = sc->cand.a[k], j = sc->cand.b[k];
        v3_add(p->f[i], p->f[i], slot + TL_SS_F);
        v3_add(p->t[i], p->t[i], slot + TL_SS_TA);
        sc->face[k] = sc->cand.wall[k] ? (int32_t)j : -1;
        if (!sc->cand.wall[k]) {
            v3_sub(p->f[j], p->f[j], slot + TL_SS_F);
            v3_add(p->t[j], p->t[j], slot + TL_SS_TB);
        }
    }
    if (dist) {
        tl_status gs = w->ranks.ops->shape_sums(w, sc->slot, sc->face, n, add_global_parts);
        if (gs != TL_OK) return gs;
    } else {
        add_global_parts(w, sc->slot, n, TL_SS_COUNT, sc->face);
    }
    for (size_t k = 0; k < n; k++) {
        const double *slot = sc->slot + k * TL_SS_COUNT;
        uint32_t i = sc->cand.a[k], j = sc->cand.b[k];
        if (slot[TL_SS_EXITS] > 0.0) {
            /* the collision log: the patches that closed */
            size_t f = sc->first[s.from][k], m = sc->live[s.from][k];
            for (size_t o = 0; o < m; o++) {
                if (!(os->state[f + o] & TL_PAIR_EXIT)) continue;
                os->state[f + o] &= (uint8_t)~TL_PAIR_EXIT;
                if (dist && !w->ranks.ops->own_shape(w, k)) continue; /* on ranks: the rank of the domain that found it logs it */
                if (tl_mem_reserve(&w->mem, (void **)&w->log.pend, &w->log.cap_pend, w->log.npend + 1, sizeof *w->log.pend) != 0)
                    return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
                const double *rec = os->rec + (f + o) * st;
                const double *bm = rec + w->contacts.lay.impact, *bp = rec + s.pb;
                tl_pending_exit *e = &w->log.pend[w->log.npend++];
                e->a = p->id[i];
                e->b = sc->cand.wall[k] ? j : p->id[j];
                e->wall = sc->cand.wall[k] != 0;
                v3_copy(e->n, bp + TL_BP_N);
                e->t_begin = bm[TL_BI_T_BEGIN];
                e->t_end = w->clock.time + bp[TL_BP_PSI] * s.dt;
                e->v_in = bm[TL_BI_V_IN];
                e->max_delta = bm[TL_BI_MAX_DELTA];
                e->max_fn = bm[TL_BI_MAX_FN];
                e->step = w->clock.steps;
                e->list = e->wall ? 1 : 0;
            }
        }
    }
    for (size_t k = 0; k < n; k++) {
        sc->first[s.to][k] = sc->nfirst[k];
        sc->live[s.to][k] = sc->np[k];
    }
    sc->store[s.to].count = nrec;
    sc->cur = s.to;
    return TL_OK;
}
