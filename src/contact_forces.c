/*
 * The contact stage of the time step. Every candidate pair (particle-particle,
 * then particle-wall, in list order) is measured:
 *
 *   - touching: its record is found or opened, the law is evaluated, the
 *     force and torque are applied to both bodies (the wall's force is summed
 *     for reporting), and the energy ledger is updated;
 *   - no longer touching: the record is closed and the collision logged.
 *
 * Contact-boundary correction. A force sampled once per step stands for the
 * impulse of the whole step around it. In the step where a contact starts
 * (or ends) only a fraction of that window is really in contact, and a law
 * whose force does not vanish at zero overlap (a linear dashpot) then gains
 * or loses an impulse of order F(0) dt: a first-order error in the
 * restitution. We add (phi - 1/2) F(0) dt, phi being the fraction of the
 * last drift spent in contact (from the overlaps before and after it) and
 * F(0) the law's force at zero overlap. For Hertzian laws F(0) = 0 and the
 * correction vanishes. See docs/integrator.md for the measured effect.
 */
#include <math.h>
#include <string.h>

#include "vec.h"
#include "world.h"

/* the two sides of a contact: body a is always a particle; b a particle or a wall face */
typedef struct tl_side_b {
    bool wall;
    uint32_t index;   /* particle index or face index */
    double v[3], w[3];
    double inv_mass_law;
    int material;
} tl_side_b;

static void side_b_of(const tl_world *w, bool wall, uint32_t j, tl_side_b *b) {
    b->wall = wall;
    b->index = j;
    if (!wall) {
        v3_copy(b->v, w->p.v[j]);
        v3_copy(b->w, w->p.w[j]);
        b->inv_mass_law = w->p.inv_mass_law[j];
        b->material = w->p.material[j];
    } else {
        const tl_wall *wl = &w->walls.w[w->walls.f[j].wall];
        v3_copy(b->v, wl->vel);
        v3_zero(b->w);
        b->inv_mass_law = 0.0;
        b->material = wl->material;
    }
}

static void geometry(const tl_world *w, uint32_t i, const tl_side_b *b, const double xi[3],
                     const double xj[3], tl_geometry *g) {
    if (!b->wall) {
        tl_geometry_sphere_sphere(xi, w->p.radius[i], xj, w->p.radius[b->index], g);
    } else if (!tl_face_geometry(&w->walls.f[b->index], xi, w->p.radius[i], g)) {
        g->delta = -INFINITY;
    }
}

/* Tangential displacement of a's contact point relative to b's over this
 * step's drift: what the tangential force works through. */
static void drift_slip(const tl_world *w, uint32_t i, const tl_side_b *b, const tl_geometry *g,
                       double out[3]) {
    const tl_particles *p = &w->p;
    double va[3], tmp[3];
    v3_cross(tmp, p->wh[i], g->ra);
    v3_add(va, p->vh[i], tmp);
    double vb[3];
    if (!b->wall) {
        v3_cross(tmp, p->wh[b->index], g->rb);
        v3_add(vb, p->vh[b->index], tmp);
    } else {
        v3_copy(vb, b->v);
    }
    v3_sub(out, va, vb);
    v3_reject(out, out, g->n);
    v3_scale(out, out, w->dt);
}

/* Overlap at the start of this step's drift (to place a first touch in time). */
static double previous_overlap(const tl_world *w, uint32_t i, const tl_side_b *b) {
    double xi[3];
    v3_copy(xi, w->p.x[i]);
    v3_axpy(xi, -w->dt, w->p.vh[i]);
    tl_geometry g;
    if (!b->wall) {
        double xj[3];
        v3_copy(xj, w->p.x[b->index]);
        v3_axpy(xj, -w->dt, w->p.vh[b->index]);
        geometry(w, i, b, xi, xj, &g);
    } else {
        /* the face was where it is minus its own drift */
        v3_axpy(xi, w->dt, b->v);
        geometry(w, i, b, xi, NULL, &g);
    }
    return g.delta;
}

/* The law's force at zero overlap for this contact's kinematics, with the
 * given tangential history (NULL = none yet). */
static void touch_force(const tl_law *law, const tl_pair_law *pl, const tl_contact *c0,
                        const double *hist, double *fn, double ft[3]) {
    tl_contact c = *c0;
    c.delta = 0.0;
    c.dt = 0.0; /* no displacement is added at the instant of touch */
    v3_zero(c.dxi);
    double scratch[TL_MAX_HIST];
    if (hist) memcpy(scratch, hist, (size_t)law->hist_count * sizeof *scratch);
    else memset(scratch, 0, sizeof scratch);
    tl_law_eval(law, pl, &c, scratch);
    *fn = c.fn;
    v3_copy(ft, c.ft);
}

static void apply(tl_world *w, uint32_t i, const tl_side_b *b, const tl_geometry *g,
                  const double fa[3], const double ft[3]) {
    tl_particles *p = &w->p;
    double tq[3];
    v3_add(p->f[i], p->f[i], fa);
    v3_cross(tq, g->ra, ft);
    v3_add(p->t[i], p->t[i], tq);
    if (!b->wall) {
        uint32_t j = b->index;
        v3_sub(p->f[j], p->f[j], fa);
        v3_cross(tq, g->rb, ft);
        v3_sub(p->t[j], p->t[j], tq);
    } else {
        tl_wall *wl = &w->walls.w[w->walls.f[b->index].wall];
        v3_sub(wl->force, wl->force, fa);
    }
}

static tl_status add_pending(tl_world *w, uint32_t i, const tl_side_b *b, const double n[3],
                             const double *rec, double t_end) {
    if (tl_mem_reserve(&w->mem, (void **)&w->pend, &w->cappend, w->npend + 1, sizeof *w->pend) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    tl_pending_exit *e = &w->pend[w->npend++];
    e->a = w->p.id[i];
    e->b = b->wall ? b->index : w->p.id[b->index];
    e->wall = b->wall;
    v3_copy(e->n, n);
    e->t_begin = rec[TL_BK_T_BEGIN];
    e->t_end = t_end;
    e->v_in = rec[TL_BK_V_IN];
    e->max_delta = rec[TL_BK_MAX_DELTA];
    e->max_fn = rec[TL_BK_MAX_FN];
    e->step = w->steps;
    return TL_OK;
}

static tl_status interact(tl_world *w, tl_candidates *cl, size_t k, bool wall, bool acc) {
    tl_particles *p = &w->p;
    uint32_t i = cl->a[k];
    int32_t slot = cl->slot[k];
    tl_side_b b;
    side_b_of(w, wall, cl->b[k], &b);
    double iml = p->inv_mass_law[i] + b.inv_mass_law;
    if (iml == 0.0) { /* two immovable bodies do not interact */
        if (slot >= 0) {
            tl_contacts_close(&w->ct, slot);
            cl->slot[k] = -1;
        }
        return TL_OK;
    }
    tl_geometry g;
    geometry(w, i, &b, p->x[i], wall ? NULL : p->x[b.index], &g);
    if (g.delta <= 0.0 && slot < 0) return TL_OK;
    int32_t li = w->law_of[(size_t)p->material[i] * w->law_dim + (size_t)b.material];
    const tl_law *law = &w->laws[li];
    const tl_pair_law *pl = tl_world_pair(w, p->material[i], b.material);
    /* the contact point divides the overlap in proportion to the bodies' compliances */
    v3_scale(g.ra, g.n, p->radius[i] - pl->split * g.delta);
    if (!wall) v3_scale(g.rb, g.n, -(p->radius[b.index] - (1.0 - pl->split) * g.delta));

    /* kinematics at the contact point: velocity of a relative to b */
    double va[3], vb[3], tmp[3], vrel[3], vt[3];
    v3_cross(tmp, p->w[i], g.ra);
    v3_add(va, p->v[i], tmp);
    v3_cross(tmp, b.w, g.rb);
    v3_add(vb, b.v, tmp);
    v3_sub(vrel, va, vb);
    double rate = v3_dot(vrel, g.n);
    v3_copy(vt, vrel);
    v3_axpy(vt, -rate, g.n);

    const double dt = w->dt;
    bool correct = acc && w->def.contact_boundary_correction;
    bool plastic = (law->sub[TL_SLOT_NORMAL]->normal_kind & TL_NORMAL_KIND_PLASTIC) != 0;

    tl_contact c;
    memset(&c, 0, sizeof c);
    c.delta = g.delta;
    c.delta_rate = rate;
    v3_copy(c.n, g.n);
    v3_copy(c.vt, vt);
    c.r_eff = g.r_eff;
    c.m_eff = 1.0 / iml;
    c.dt = acc ? dt : 0.0; /* the evaluation before the first step adds no displacement */

    if (g.delta <= 0.0) {
        /* ---- the contact ended during the last drift ---- */
        double *rec = tl_contacts_record(&w->ct, slot);
        double dprev = rec[w->ct.hist + TL_BK_DELTA];
        double psi = dprev > 0.0 ? dprev / (dprev - g.delta) : 0.5;
        double *bk = rec + w->ct.hist;
        c.v_impact = bk[TL_BK_V_IN];
        if (acc) {
            double fn0, ft0[3], fn_app = 0.0, ft_app[3] = {0.0, 0.0, 0.0};
            touch_force(law, pl, &c, rec, &fn0, ft0);
            if (correct) {
                double wgt = psi - 0.5, fa[3];
                fn_app = wgt * fn0;
                v3_scale(ft_app, ft0, wgt);
                v3_scale(fa, g.n, -fn_app);
                v3_add(fa, fa, ft_app);
                apply(w, i, &b, &g, fa, ft_app);
            }
            /* the force of the last contact sample and of this step's
             * correction, over this step and (for the correction) half the
             * next; the stored elastic energy is released */
            double ds[3], ftsum[3];
            drift_slip(w, i, &b, &g, ds);
            v3_add(ftsum, bk + TL_BK_FT, ft_app);
            /* the elastic part of the last sample ends at zero; the stored energy is released */
            double dd = g.delta - dprev, fel_prev = bk[TL_BK_FN_EL];
            double spring = 0.5 * fel_prev * dd + bk[TL_BK_E_N];
            w->ledger.diss_normal += 0.5 * (bk[TL_BK_FN] - fel_prev + fn_app) * dd;
            if (plastic) w->ledger.diss_plastic += spring;
            else w->ledger.diss_normal += spring;
            w->ledger.diss_tangential_damping += -0.5 * v3_dot(ftsum, ds) + bk[TL_BK_E_T];
            /* the correction's second half-kick lands in the next step: so does its work */
            w->ledger_next.diss_normal += 0.5 * fn_app * rate * dt;
            w->ledger_next.diss_tangential_damping -= 0.5 * v3_dot(ft_app, ds);
            if (w->log_collisions) {
                tl_status s = add_pending(w, i, &b, g.n, bk, w->time + psi * dt);
                if (s != TL_OK) return s;
            }
        }
        tl_contacts_close(&w->ct, slot);
        cl->slot[k] = -1;
        return TL_OK;
    }

    /* ---- touching ---- */
    bool first = slot < 0;
    double t_now = acc ? w->time + dt : w->time;
    double phi = 0.5, d_first = 0.0;
    if (first) {
        uint64_t key = wall ? tl_key_pw(p->id[i], b.index) : tl_key_pp(p->id[i], p->id[b.index]);
        slot = tl_contacts_open(&w->mem, &w->ct, key);
        if (slot < 0) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (contact table)");
        cl->slot[k] = slot;
        if (acc) {
            d_first = previous_overlap(w, i, &b);
            if (d_first <= 0.0) phi = g.delta / (g.delta - d_first);
            else d_first = g.delta; /* overlapping already (added that way): no entry */
        }
        double *bk = tl_contacts_record(&w->ct, slot) + w->ct.hist;
        bk[TL_BK_T_BEGIN] = acc ? t_now - phi * dt : t_now;
        /* the approach speed at the instant of touch: back from now by the
         * accelerations of the step before (which did not include this contact) */
        double arel[3];
        v3_scale(arel, p->f_old[i], p->inv_mass[i]);
        if (!wall) v3_axpy(arel, -p->inv_mass[b.index], p->f_old[b.index]);
        bk[TL_BK_V_IN] = rate - (acc ? phi * dt : 0.0) * v3_dot(arel, g.n);
        bk[TL_BK_DELTA] = d_first; /* the applied force of the previous step was zero */
    }
    c.first = first;
    double *rec = tl_contacts_record(&w->ct, slot);
    double *bk = rec + w->ct.hist;
    c.v_impact = bk[TL_BK_V_IN];
    double fn_prev = bk[TL_BK_FN], fel_prev = bk[TL_BK_FN_EL], d_prev = bk[TL_BK_DELTA];
    double ft_prev[3], en_prev = bk[TL_BK_E_N], et_prev = bk[TL_BK_E_T];
    v3_copy(ft_prev, bk + TL_BK_FT);
    /* the tangential displacement the bodies made in this step's drift (only its part in
     * contact on the first step): what the tangential spring takes */
    double ds[3] = {0.0, 0.0, 0.0};
    if (acc) {
        drift_slip(w, i, &b, &g, ds);
        v3_scale(c.dxi, ds, first ? phi : 1.0);
    }

    tl_law_eval(law, pl, &c, rec);

    /* the force applied to a: the law's, plus the entry correction */
    double fn_app = c.fn, ft_app[3];
    v3_copy(ft_app, c.ft);
    if (first && correct && phi != 0.5) {
        double fn0, ft0[3], wgt = phi - 0.5;
        touch_force(law, pl, &c, NULL, &fn0, ft0);
        fn_app += wgt * fn0;
        v3_axpy(ft_app, wgt, ft0);
    }
    double fa[3];
    v3_scale(fa, g.n, -fn_app);
    v3_add(fa, fa, ft_app);
    apply(w, i, &b, &g, fa, ft_app);

    if (acc) {
        /* work absorbed by the contact over the step (trapezoid of the applied
         * forces over the relative displacement), minus its change of stored energy */
        double dd = c.delta - d_prev;
        double damper = 0.5 * ((fn_prev - fel_prev) + (fn_app - c.fn_el)) * dd;
        double spring = 0.5 * (fel_prev + c.fn_el) * dd - (c.e_el_n - en_prev);
        w->ledger.diss_normal += damper;
        /* a conservative spring returns what it took (to integration accuracy);
         * the hysteresis of an elastoplastic one is plastic work */
        if (plastic) w->ledger.diss_plastic += spring;
        else w->ledger.diss_normal += spring;
        double ftsum[3];
        v3_add(ftsum, ft_prev, ft_app);
        double absorbed_t = -0.5 * v3_dot(ftsum, ds);
        double diss_t = absorbed_t - (c.e_el_t - et_prev);
        /* at the Coulomb limit the whole tangential loss is friction; below it, the dashpot's */
        if (c.sliding) w->ledger.diss_friction += diss_t;
        else w->ledger.diss_tangential_damping += diss_t;
    }
    bk[TL_BK_DELTA] = c.delta;
    bk[TL_BK_FN] = fn_app;
    v3_copy(bk + TL_BK_FT, ft_app);
    bk[TL_BK_FN_EL] = c.fn_el;
    bk[TL_BK_E_N] = c.e_el_n;
    bk[TL_BK_E_T] = c.e_el_t;
    bk[TL_BK_SLIDING] = c.sliding ? 1.0 : 0.0;
    if (c.delta > bk[TL_BK_MAX_DELTA]) bk[TL_BK_MAX_DELTA] = c.delta;
    if (c.fn > bk[TL_BK_MAX_FN]) bk[TL_BK_MAX_FN] = c.fn;
    return TL_OK;
}

tl_status tl_contact_forces(tl_world *w, bool accumulate) {
    if (accumulate) {
        w->ledger.diss_normal += w->ledger_next.diss_normal;
        w->ledger.diss_tangential_damping += w->ledger_next.diss_tangential_damping;
        memset(&w->ledger_next, 0, sizeof w->ledger_next);
    }
    for (size_t k = 0; k < w->walls.count; k++) {
        v3_copy(w->walls.w[k].force_prev, w->walls.w[k].force);
        v3_zero(w->walls.w[k].force);
    }
    for (size_t k = 0; k < w->pp.count; k++) {
        tl_status s = interact(w, &w->pp, k, false, accumulate);
        if (s != TL_OK) return s;
    }
    for (size_t k = 0; k < w->pw.count; k++) {
        tl_status s = interact(w, &w->pw, k, true, accumulate);
        if (s != TL_OK) return s;
    }
    return TL_OK;
}
