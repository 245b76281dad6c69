/*
 * The contact stage of the time step. Every candidate pair (particle-particle,
 * then particle-wall, in list order) is measured:
 *
 *   - touching: its record is opened if it was not, the law is evaluated, the
 *     force and torque are applied to both bodies (the wall's force is summed
 *     for reporting), and the energy ledger is updated;
 *   - no longer touching: the record is closed (the collision log reads it
 *     first).
 *
 * Threads. The particles are split into fixed domains (consecutive storage
 * ranges of some thousands of particles, set at each rebuild and independent
 * of the thread count). Each domain runs the candidates its particles found,
 * in list order: an internal one (both particles in the domain) adds its
 * forces to them at once; a cross one (the other particle elsewhere) writes
 * its forces to its own slot. Domains share nothing, so they run on any
 * threads. Then the cross slots are added in list order, each particle's by
 * one thread (add_cross_range). Every particle thus receives the same
 * additions in the same order whatever the number of threads, and the result
 * is bit-identical. Energy terms and counts are
 * summed per domain, the walls' reactions per domain, both added in domain
 * order.
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
 *
 * Far candidates. Between two builds a candidate that did not touch at the
 * build can touch only once its particles have closed the gap they had then:
 * the distance now is at least the gap at the build less the two particles'
 * displacements since: each at most the largest the predict stage saw in the
 * particle's block of TL_DISP_BLOCK particles (storage order, so a block is a
 * small region of space and one rattling particle spoils only its own). The
 * first contact stage after a build notes every candidate's gap (from the
 * build's positions, x_ref, less a margin a million times the rounding of the
 * distance test, rounded down to a float); a later stage skips a candidate
 * without a contact whose noted gap exceeds the sum of its two blocks'
 * displacements: the distance test would find it apart, and a candidate found
 * apart changes nothing. So the forces are the same bits; only the partner's data
 * are not read, and the loop over the kept candidates meets far fewer candidates
 * that do not touch, a branch it cannot foresee (the benchmark's settled bed of
 * 10^5: 46 % of the candidates apart, 40 to 42 % skipped over steps 200 to 1200).
 * A block's displacement is the largest of exact numbers, so what is skipped does
 * not depend on the thread count either.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fused.h"
#include "steady_lanes.h"
#include "isa.h"
#include "parallel.h"
#include "vec.h"
#include "world.h"
#include "shape_stage.h"
#include "external.h"
#include "contact_stage.h"
#include "tangential_books.h"

/* force slot of a cross candidate: force on a (3), n x ft (3), lever arms of a and b (its
 * rolling torque, when it has one, in a slot of its own: w->scratch.out_m) */
enum { OUT_F = 0, OUT_C = 3, OUT_LA = 6, OUT_LB = 7 };

/* what stays the same for every candidate of one contact stage */
typedef struct stage {
    tl_world *w;
    const tl_rec_layout *lay;
    double dt;
    bool acc;        /* a real step (not the evaluation before the first step) */
    bool correct;    /* contact-boundary correction */
    bool energy;     /* keep the ledger */
    bool half_is_v;  /* the force-stage velocity is the drift velocity (leapfrog) */
    bool lean;       /* no energy ledger, no impact bookkeeping: steady contacts take steady() */
    double b1, b2;   /* drift velocity = v - dt (b1 a_n + b2 a_n-1) otherwise */
    /* a pair of two particles of radius mono_r and inverse mass (for the law) mono_im (those of
     * the first particle: in a bed of one size, every pair) has R*, m*, sqrt(R*) and
     * sqrt(m* sqrt(R*)) worked out once per stage, by the same operations (steady) */
    double mono_r, mono_im, mono_reff, mono_meff, mono_sr, mono_A;
    /* every particle of that size and inverse mass, and of one material whose law is the fused
     * Hertz-Mindlin: steady() takes that law, its pair constants and mono_sr, mono_A without
     * looking them up per pair (the same values) */
    bool all_mono;
    const tl_law *mono_law;
    const tl_pair_law *mono_pl;
    /* such a bed under leapfrog, lean, on a CPU with AVX2: steady contacts four (AVX-512: eight) at a time
     * (steady_lanes.h), with these constants */
    bool lanes;
    tl_lanes_law lanes_law;
    const double (*drift)[6]; /* the drift velocities (when !half_is_v): v then w per particle */
    /* the far candidates' noted gaps and the particles' displacements since the build, per block
     * of TL_DISP_BLOCK (NULL: none is skipped) */
    const float *gap, *disp_blk;
} stage;

/* where one task's forces go */
typedef struct sink {
    double (*wall_force)[3]; /* the task's share of each wall's reaction */
    double (*wall_torque)[3]; /* and of its torque about the world origin */
    double *slot;            /* a cross candidate's force slot (TL_OUT values), or NULL:
                              * the forces go to the bodies at once */
    double *slot_m;          /* and its rolling torque's (3 values) */
} sink;

/* the two sides of a contact: body a is always a particle; b a particle or a wall face */
typedef struct side_b {
    bool wall;
    uint32_t index;   /* particle index or face index */
    double x[3];      /* particle: its centre in a's image */
    const double *v, *w;
    const double *vh; /* wall: the velocity of its point over the last drift */
    double vbuf[3], vhbuf[3]; /* a turning wall's point velocities */
    double inv_mass_law;
    int material;
} side_b;

static const double zero3[3] = {0.0, 0.0, 0.0};

static inline void side_b_of(const tl_world *w, const tl_pairs *l, size_t k, bool wall, side_b *b) {
    uint32_t j = l->b[k];
    b->wall = wall;
    b->index = j;
    if (!wall) {
        const double *s = w->broad.nb.shift[l->img[k]];
        for (int d = 0; d < 3; d++) b->x[d] = w->p.x[j][d] + s[d];
        b->v = w->p.v[j];
        b->w = w->p.w[j];
        b->inv_mass_law = w->p.inv_mass_law[j];
        b->material = w->p.material[j];
    } else {
        const tl_wall *wl = &w->walls.w[w->walls.f[j].wall];
        b->v = wl->vel;
        b->vh = wl->vel_mid;
        b->w = zero3;
        b->inv_mass_law = 0.0;
        b->material = wl->material;
    }
}

/* Velocity of a's contact point relative to b's: v_a - v_b + (la w_a + lb w_b) x n,
 * the contact point lying la from a's centre and lb from b's along n. */
static inline void contact_velocity(const double va[3], const double wa[3], const double vb[3],
                                    const double wb[3], const double n[3], double la, double lb,
                                    double out[3]) {
    /* component by component, in scalars: the same arithmetic as a loop over arrays, which the
     * compiler packed two at a time through the stack (a stalled store forwarding per contact) */
    const double o0 = la * wa[0] + lb * wb[0], o1 = la * wa[1] + lb * wb[1], o2 = la * wa[2] + lb * wb[2];
    const double t0 = o1 * n[2] - o2 * n[1], t1 = o2 * n[0] - o0 * n[2], t2 = o0 * n[1] - o1 * n[0];
    out[0] = va[0] - vb[0] + t0;
    out[1] = va[1] - vb[1] + t1;
    out[2] = va[2] - vb[2] + t2;
}

static inline void geometry(const tl_world *w, uint32_t i, const side_b *b, const double xi[3],
                     const double xj[3], tl_geometry *g) {
    if (!b->wall) {
        tl_geometry_sphere_sphere(xi, w->p.radius[i], xj, w->p.radius[b->index], g);
    } else {
        tl_face_geometry(&w->walls.f[b->index], xi, w->p.radius[i], g);
    }
}

/* Each particle's drift velocity and spin, v - dt (b1 a_n + b2 a_n-1), worked out once per
 * stage for every particle (the drift table): a contact reads two rows instead of the six
 * force arrays. */
/* Rows [lo, hi) of the drift table, in a loop whose constants and arrays stay in registers
 * (as a function of one particle through the stage, the compiler reloaded them and tested
 * the arrays for overlap at every call: 200 instructions a particle). */
static void drift_rows(const tl_particles *p, double dt, double b1, double b2, size_t lo, size_t hi,
                       double (*restrict out)[6]) {
    double(*restrict v)[3] = p->v, (*restrict w)[3] = p->w;
    double(*restrict fo)[3] = p->f_old, (*restrict fo2)[3] = p->f_older;
    double(*restrict to)[3] = p->t_old, (*restrict to2)[3] = p->t_older;
    const double *restrict im = p->inv_mass, *restrict ii = p->inv_inertia;
    for (size_t i = lo; i < hi; i++)
        for (int k = 0; k < 3; k++) {
            out[i][k] = v[i][k] - dt * (b1 * fo[i][k] + b2 * fo2[i][k]) * im[i];
            out[i][3 + k] = w[i][k] - dt * (b1 * to[i][k] + b2 * to2[i][k]) * ii[i];
        }
}

/* Particle i's drift velocities, where they are held (no copy: a copy stored as scalars and read
 * back as pairs stalls the store forwarding, measured as a third of a pour's force stage) */
static inline void drift_velocity(const stage *s, uint32_t i, const double **vh, const double **wh) {
    const tl_particles *p = &s->w->p;
    if (s->half_is_v) {
        *vh = p->v[i];
        *wh = p->w[i];
        return;
    }
    *vh = s->drift[i];
    *wh = s->drift[i] + 3;
}

/* Tangential displacement of a's contact point relative to b's over this
 * step's drift: what the tangential force works through. la, lb: lever arms. */
static void drift_slip(const stage *s, uint32_t i, const side_b *b, const double n[3], double la,
                       double lb, double out[3]) {
    const tl_particles *p = &s->w->p;
    double vrel[3];
    if (s->half_is_v) {
        /* the force-stage velocities are the drift velocities */
        contact_velocity(p->v[i], p->w[i], b->v, b->w, n, la, lb, vrel);
    } else {
        const double *vha, *wha, *vhb, *whb;
        drift_velocity(s, i, &vha, &wha);
        if (!b->wall) drift_velocity(s, b->index, &vhb, &whb);
        else {
            vhb = b->vh;
            whb = zero3;
        }
        contact_velocity(vha, wha, vhb, whb, n, la, lb, vrel);
    }
    v3_reject(out, vrel, n);
    v3_scale(out, out, s->dt);
}

/* Overlap at the start of this step's drift (to place a first touch in time). */
static double previous_overlap(const stage *s, uint32_t i, const side_b *b) {
    const tl_world *w = s->w;
    double xi[3];
    const double *vh, *wh;
    drift_velocity(s, i, &vh, &wh);
    v3_copy(xi, w->p.x[i]);
    v3_axpy(xi, -s->dt, vh);
    tl_geometry g;
    if (!b->wall) {
        double xj[3];
        drift_velocity(s, b->index, &vh, &wh);
        v3_copy(xj, b->x);
        v3_axpy(xj, -s->dt, vh);
        geometry(w, i, b, xi, xj, &g);
    } else {
        /* the face was where it is minus its own drift */
        v3_axpy(xi, s->dt, b->vh);
        geometry(w, i, b, xi, NULL, &g);
    }
    return g.delta;
}

/* The law's force at zero overlap for this contact's kinematics, with the
 * given tangential history (NULL = none yet). */
static void touch_force(const tl_law *law, const tl_pair_law *pl, const tl_contact *c0,
                        const double *hist, double *fn, double ft[3], tl_force_out fo0[TL_FORCE_SLOTS]) {
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
    if (fo0) memcpy(fo0, c.fos, sizeof c.fos); /* the force slots' part (read for the law's force slots) */
}

/* Applies the force fa (on a; -fa on b) and the torques of the tangential
 * force ft at lever arms la (a) and lb (b) along the normal n, and a rolling
 * torque mr (on a; -mr on b; NULL = none): to the bodies at once, or to the
 * slot of a cross candidate (the caller then sets TL_PAIR_FORCE and add_slot
 * adds it later, in list order). */
static inline void apply(const stage *s, const sink *out, uint32_t i, const side_b *b,
                         const double n[3], double la, double lb, const double fa[3],
                         const double ft[3], const double *mr) {
    tl_world *w = s->w;
    double c[3];
    v3_cross(c, n, ft);
    if (out->slot) {
        double *o = out->slot;
        v3_copy(o + OUT_F, fa);
        v3_copy(o + OUT_C, c);
        o[OUT_LA] = la;
        o[OUT_LB] = lb;
        if (mr) v3_copy(out->slot_m, mr); /* the caller sets TL_PAIR_TORQUE */
        return;
    }
    double (*f)[3] = w->p.f, (*t)[3] = w->p.t;
    double tq[3];
    v3_add(f[i], f[i], fa);
    v3_scale(tq, c, la);
    v3_add(t[i], t[i], tq);
    if (mr) v3_add(t[i], t[i], mr);
    if (!b->wall) {
        uint32_t j = b->index;
        v3_sub(f[j], f[j], fa);
        v3_scale(tq, c, lb);
        v3_add(t[j], t[j], tq);
        if (mr) v3_sub(t[j], t[j], mr);
    } else {
        int k = w->walls.f[b->index].wall;
        double *wf = out->wall_force[k], *wt = out->wall_torque[k];
        v3_sub(wf, wf, fa);
        /* its torque about the origin, from the contact point */
        double pt[3], mf[3], tw[3];
        v3_copy(pt, w->p.x[i]);
        v3_axpy(pt, la, n);
        v3_scale(mf, fa, -1.0);
        v3_cross(tw, pt, mf);
        v3_add(wt, wt, tw);
        if (mr) v3_sub(wt, wt, mr);
    }
}

/* Adds the cross candidates' slots (and rolling torques) to the particles in [lo, hi), in list
 * order: apply's operations, each side by the range that holds its particle. A particle receives
 * the same additions in the same order however the particles are cut into ranges, so the ranges
 * run on any threads. */
#define CROSS_BODY_AHEAD 8 /* entries: the bodies' force and torque in this range asked for */
static void add_cross_range(tl_world *w, size_t lo, size_t hi) {
    const tl_domains *dm = &w->broad.dom;
    double (*f)[3] = w->p.f, (*t)[3] = w->p.t;
    const tl_cross_pair *xp = w->scratch.out_pair;
    const size_t n = dm->ncross;
    for (size_t e = 0; e < n; e++) {
        /* the bodies lie anywhere: their force and torque lines asked for ahead */
        if (e + CROSS_BODY_AHEAD < n) {
            const uint32_t ip = xp[e + CROSS_BODY_AHEAD].a, jp = xp[e + CROSS_BODY_AHEAD].b;
            if (ip >= lo && ip < hi) {
                __builtin_prefetch(f[ip], 1);
                __builtin_prefetch(t[ip], 1);
            }
            if (jp >= lo && jp < hi) {
                __builtin_prefetch(f[jp], 1);
                __builtin_prefetch(t[jp], 1);
            }
        }
        const uint8_t st = xp[e].state;
        if (!(st & TL_PAIR_FORCE)) continue;
        const uint32_t i = xp[e].a, j = xp[e].b;
        const bool in_a = i >= lo && i < hi, in_b = j >= lo && j < hi;
        if (!in_a && !in_b) continue;
        const double *o = w->scratch.out + e * TL_OUT, *m = st & TL_PAIR_TORQUE ? w->scratch.out_m + e * 3 : NULL;
        double tq[3];
        if (in_a) {
            v3_add(f[i], f[i], o + OUT_F);
            v3_scale(tq, o + OUT_C, o[OUT_LA]);
            v3_add(t[i], t[i], tq);
            if (m) v3_add(t[i], t[i], m);
        }
        if (in_b) {
            v3_sub(f[j], f[j], o + OUT_F);
            v3_scale(tq, o + OUT_C, o[OUT_LB]);
            v3_add(t[j], t[j], tq);
            if (m) v3_sub(t[j], t[j], m);
        }
    }
}

/* The rolling model's inputs (laws with rolling resistance): w_a - w_b now, the rotation of a
 * relative to b over this step's drift (dth, zero before the first step), and the equivalent
 * moment of inertia 1 / (1/(I_a + m_a la^2) + 1/(I_b + m_b lb^2)) (a body that does not turn
 * adds nothing). */
static void rolling_inputs(const stage *s, uint32_t i, const side_b *b, double la, double lb, tl_contact *c,
                           double dth[3]) {
    const tl_world *w = s->w;
    const tl_particles *p = &w->p;
    const tl_wall *wl = b->wall ? &w->walls.w[w->walls.f[b->index].wall] : NULL;
    v3_sub(c->wr, p->w[i], wl ? wl->omega : p->w[b->index]);
    v3_zero(dth);
    if (s->acc) {
        const double *vh, *wha, *whb;
        drift_velocity(s, i, &vh, &wha);
        if (wl) whb = wl->omega_mid;
        else drift_velocity(s, b->index, &vh, &whb);
        v3_sub(dth, wha, whb);
        v3_scale(dth, dth, s->dt);
    }
    double inv = 0.0;
    if (p->inv_inertia[i] > 0.0) inv += 1.0 / (p->inertia[i] + p->mass[i] * la * la);
    if (!wl && p->inv_inertia[b->index] > 0.0) {
        uint32_t j = b->index;
        inv += 1.0 / (p->inertia[j] + p->mass[j] * lb * lb);
    }
    c->i_eff = inv > 0.0 ? 1.0 / inv : 0.0;
}

/* The kinematics of a touching (or just separated) pair. */
typedef struct pair_kin {
    tl_geometry g;
    double la, lb;    /* lever arms: the contact point lies la from a, lb from b along n */
    double vt[3];     /* tangential velocity of a relative to b at the contact point */
    double rate;      /* normal approach rate */
} pair_kin;

/* A contact that ended during the last drift: the boundary correction, the
 * energy its record still holds, the collision log. Returns the new state. */
static uint8_t contact_exit(const stage *s, const sink *out, tl_pairs *l, size_t k, uint32_t i,
                            const side_b *b, const pair_kin *q, const tl_law *law,
                            const tl_pair_law *pl, tl_contact *c, tl_block_sum *bs) {
    if (!s->acc) return 0;
    const tl_rec_layout *lay = s->lay;
    double *rec = tl_pair_record(l, k);
    double *bk = rec + lay->hist;
    double dprev = bk[TL_BK_DELTA];
    double psi = dprev > 0.0 ? dprev / (dprev - q->g.delta) : 0.5;
    uint8_t next = 0;
    double fn0, ft0[3], fn_app = 0.0, ft_app[3] = {0.0, 0.0, 0.0};
    tl_force_out fo0[TL_FORCE_SLOTS];
    touch_force(law, pl, c, rec, &fn0, ft0, fo0);
    if (s->correct) {
        double wgt = psi - 0.5, fa[3];
        fn_app = wgt * fn0;
        v3_scale(ft_app, ft0, wgt);
        v3_scale(fa, q->g.n, -fn_app);
        v3_add(fa, fa, ft_app);
        apply(s, out, i, b, q->g.n, q->la, q->lb, fa, ft_app, NULL);
        if (out->slot) next |= TL_PAIR_FORCE;
    }
    if (s->energy) {
        /* the force of the last contact sample and of this step's correction,
         * over this step and (for the correction) half the next; the stored
         * elastic energy is released */
        const double *be = rec + lay->energy;
        bool plastic = (law->sub[TL_SLOT_NORMAL]->normal_kind & TL_NORMAL_KIND_PLASTIC) != 0;
        double ds[3], ds_prev[3];
        drift_slip(s, i, b, q->g.n, q->la, q->lb, ds);
        /* the last force acted through the geometry it was applied with */
        drift_slip(s, i, b, be + TL_BE_N, be[TL_BE_LA], be[TL_BE_LB], ds_prev);
        double dd = q->g.delta - dprev, fel_prev = be[TL_BE_FN_EL];
        double spring = 0.5 * fel_prev * dd + be[TL_BE_E_N];
        /* the force slots (cohesion): conservative springs of their own, whose last applied force
         * and this correction's share act as the normal spring's do, and whose potential goes with
         * the contact (into the residual) */
        double fslots = 0.0, fslots_corr = 0.0, fspring = 0.0;
        if (law->force_count) {
            const double wgt = s->correct ? psi - 0.5 : 0.0;
            for (int m = 0; m < law->force_count; m++) {
                const int t = law->force_at[m];
                const double fcorr = wgt * fo0[t].f;
                fslots += be[TL_BE_F_FORCE + t];
                fslots_corr += fcorr;
                fspring += 0.5 * (be[TL_BE_F_FORCE + t] + fcorr) * dd + be[TL_BE_E_FORCE + t];
            }
        }
        if (law->force_count) bs->cur.dissipated_normal += 0.5 * (bk[TL_BK_FN] - fel_prev - fslots + fn_app - fslots_corr) * dd;
        else bs->cur.dissipated_normal += 0.5 * (bk[TL_BK_FN] - fel_prev + fn_app) * dd;
        /* the stored energy the spring did not give back by separation: plastic work for an
         * elastoplastic law, the integration's error for a conservative one */
        if (plastic) bs->cur.dissipated_plastic += spring;
        else bs->cur.integration_residual += spring;
        if (law->force_count) bs->cur.integration_residual += fspring;
        /* the last tangential force over half this drift, and the spring's energy, which goes with
         * the contact (tangential_books.h) */
        const bool held = tl_law_keeps_xi(law);
        const tl_tangential_books tb = tl_tangential_exit(be, held, bk + TL_BK_FT, ds_prev);
        tl_tangential_add(&bs->cur, &tb);
        if (law->spins) {
            /* the last rolling (twisting) torque over half this drift, and the rolling (twisting)
             * spring's energy, which goes with the contact */
            tl_contact cr; /* rolling_inputs fills its wr and i_eff, not read here */
            double dth[3];
            rolling_inputs(s, i, b, q->la, q->lb, &cr, dth);
            for (int m = 0; m < law->torque_count; m++) {
                const int t = law->torque_at[m];
                const double *th = tl_law_torque_hist(law, law->torque_slot[m], rec);
                bs->cur.term[law->torque_dissipated[m]] +=
                    -0.5 * (v3_dot(th, dth) + v3_dot(th + 3, dth)) + be[TL_BE_E_TORQUE + t];
            }
        }
        /* the correction's second half-kick lands in the next step: so does its work */
        if (law->force_count) {
            bs->next.dissipated_normal += 0.5 * (fn_app - fslots_corr) * q->rate * s->dt;
            bs->next.integration_residual += 0.5 * fslots_corr * q->rate * s->dt;
        } else {
            bs->next.dissipated_normal += 0.5 * fn_app * q->rate * s->dt;
        }
        /* and the correction's tangential share, with the spring's energy (tangential_books.h) */
        tl_tangential_books tc = {0.0, 0.0, 0.0, 0.0};
        tl_tangential_book_rest(&tc, tl_tangential_exit_term(be, held), -0.5 * v3_dot(ft_app, ds));
        tl_tangential_add(&bs->next, &tc);
    }
    if (s->w->log.on && lay->impact >= 0) {
        /* the collision log reads the record after the stage */
        next |= TL_PAIR_EXIT;
        bs->exits++;
    }
    return next;
}

/* A contact that starts in this step: a fresh record, the fraction phi of the
 * drift spent in contact (1 when the bodies already overlapped before it:
 * added that way, no entry), the impact speed. Returns phi. */
static double contact_open(const stage *s, tl_pairs *l, size_t k, uint32_t i, const side_b *b,
                           const pair_kin *q, bool *entered) {
    tl_world *w = s->w;
    const tl_particles *p = &w->p;
    const tl_rec_layout *lay = s->lay;
    double *rec = tl_pair_record(l, k);
    memset(rec, 0, (size_t)lay->stride * sizeof *rec);
    double phi = 0.5, d_first = 0.0;
    *entered = false;
    if (s->acc) {
        d_first = previous_overlap(s, i, b);
        if (d_first <= 0.0) {
            phi = q->g.delta / (q->g.delta - d_first);
            *entered = true;
        } else {
            phi = 1.0;
            d_first = q->g.delta; /* overlapping already (added that way): no entry */
        }
    }
    if (lay->impact >= 0) {
        double *bi = rec + lay->impact;
        double t_now = s->acc ? w->clock.time + s->dt : w->clock.time;
        bi[TL_BI_T_BEGIN] = s->acc ? t_now - phi * s->dt : t_now;
        /* the approach speed at the instant of touch: back from now by the
         * accelerations of the step before (which did not include this contact) */
        double arel[3];
        v3_scale(arel, p->f_old[i], p->inv_mass[i]);
        if (!b->wall) v3_axpy(arel, -p->inv_mass[b->index], p->f_old[b->index]);
        bi[TL_BI_V_IN] = q->rate - (s->acc ? phi * s->dt : 0.0) * v3_dot(arel, q->g.n);
        if (s->acc && w->clock.pc_phase == 2) {
            /* predictor-corrector, committing stage: the velocities already hold
             * dt/2 (a_n + a*), a* (f_older) with this contact's trial force; back
             * to v_n + (1 - phi) dt a_n */
            double astar[3];
            v3_scale(astar, p->f_older[i], p->inv_mass[i]);
            if (!b->wall) v3_axpy(astar, -p->inv_mass[b->index], p->f_older[b->index]);
            bi[TL_BI_V_IN] = q->rate - 0.5 * s->dt * v3_dot(astar, q->g.n) +
                             (0.5 - phi) * s->dt * v3_dot(arel, q->g.n);
        }
    }
    rec[lay->hist + TL_BK_DELTA] = d_first; /* the applied force of the previous step was zero */
    return phi;
}

/* The energy the contact absorbed over the step (trapezoid of the applied
 * forces over the relative displacement) minus its change of stored energy. */
static void contact_energy(const stage *s, uint32_t i, const side_b *b, const pair_kin *q,
                           const tl_law *law, const tl_contact *c, double *rec, const double ds[3],
                           double fn_app, const double ft_app[3], const double f_app[TL_FORCE_SLOTS],
                           const tl_force_out *touch, const double dth[3], double th0[TL_TORQUE_SLOTS][6],
                           tl_block_sum *bs) {
    const tl_rec_layout *lay = s->lay;
    double *bk = rec + lay->hist, *be = rec + lay->energy;
    if (s->acc) {
        bool plastic = (law->sub[TL_SLOT_NORMAL]->normal_kind & TL_NORMAL_KIND_PLASTIC) != 0;
        double fn_prev = bk[TL_BK_FN], fel_prev = be[TL_BE_FN_EL], d_prev = bk[TL_BK_DELTA];
        double dd = c->delta - d_prev;
        double damper = 0.5 * ((fn_prev - fel_prev) + (fn_app - c->fn_el)) * dd;
        double spring = 0.5 * (fel_prev + c->fn_el) * dd - (c->e_el_n - be[TL_BE_E_N]);
        double fspring = 0.0;
        if (law->force_count) {
            /* the force slots (cohesion) are conservative springs of their own: the damper is what
             * the applied force did beyond the normal spring's and theirs */
            double fprev = 0.0, fnow = 0.0;
            for (int m = 0; m < law->force_count; m++) {
                const int t = law->force_at[m];
                fprev += be[TL_BE_F_FORCE + t];
                fnow += f_app[t];
                /* a new contact's potential starts from its value at the touch, which forming it
                 * cost: the slot's loss (jkr's jump; zero for a force that starts at zero) */
                double u_prev = be[TL_BE_E_FORCE + t];
                if (touch && touch[t].e != 0.0) {
                    u_prev = touch[t].e;
                    bs->cur.term[law->force_dissipated[m]] -= touch[t].e;
                }
                fspring += 0.5 * (be[TL_BE_F_FORCE + t] + f_app[t]) * dd - (c->fos[t].e - u_prev);
            }
            damper = 0.5 * ((fn_prev - fel_prev - fprev) + (fn_app - c->fn_el - fnow)) * dd;
        }
        bs->cur.dissipated_normal += damper;
        /* a conservative spring returns what it took, but for the integration's error,
         * which is booked as such (not as damping); the hysteresis of an elastoplastic
         * one is plastic work */
        if (plastic) bs->cur.dissipated_plastic += spring;
        else bs->cur.integration_residual += spring;
        if (law->force_count) bs->cur.integration_residual += fspring;
        /* the last step's force through the geometry it was applied with (normal and
         * lever arms), this step's through this one: second order as the contact turns */
        double ds_prev[3] = {0.0, 0.0, 0.0};
        if (!c->first) drift_slip(s, i, b, be + TL_BE_N, be[TL_BE_LA], be[TL_BE_LB], ds_prev);
        /* the tangential force's work: the dashpot's, the stiffness's, friction's or the integration's
         * (tangential_books.h) */
        const tl_tangential_books tb =
            tl_tangential_step(be, c, tl_law_keeps_xi(law), bk + TL_BK_FT, ds_prev, ft_app, ds);
        tl_tangential_add(&bs->cur, &tb);
        for (int k = 0; k < law->torque_count; k++) {
            /* each torque slot's torques (rolling, twisting), spring and dashpot, of the last step and
             * of this one over this drift's relative rotation: the dashpot's is lost; the spring's,
             * less the change of its energy, is the slip's loss at full mobilisation, else the
             * integration's error */
            const int t = law->torque_at[k];
            const double *th = tl_law_torque_hist(law, law->torque_slot[k], rec);
            double ts = -0.5 * (v3_dot(th0[t], dth) + v3_dot(th, dth)) - (c->tqs[t].e_el - be[TL_BE_E_TORQUE + t]);
            bs->cur.term[law->torque_dissipated[k]] += -0.5 * (v3_dot(th0[t] + 3, dth) + v3_dot(th + 3, dth));
            if (c->tqs[t].slip) bs->cur.term[law->torque_dissipated[k]] += ts;
            else bs->cur.integration_residual += ts;
        }
    }
    for (int k = 0; k < law->torque_count; k++) { /* else 0 from the record's opening */
        const int t = law->torque_at[k];
        be[TL_BE_E_TORQUE + t] = c->tqs[t].e_el;
    }
    for (int k = 0; k < law->force_count; k++) {
        const int t = law->force_at[k];
        be[TL_BE_F_FORCE + t] = f_app[t];
        be[TL_BE_E_FORCE + t] = c->fos[t].e;
    }
    be[TL_BE_FN_EL] = c->fn_el;
    be[TL_BE_E_N] = c->e_el_n;
    tl_tangential_store(be, c);
    v3_copy(be + TL_BE_N, q->g.n);
    be[TL_BE_LA] = q->la;
    be[TL_BE_LB] = q->lb;
}

/* The bulk's common case: a particle-particle contact that was touching and
 * still is, under a law with an inlined fused kernel, without energy ledger
 * or impact bookkeeping. It runs the same helpers as interact, in the same
 * order, without interact's other branches (which make the compiler keep
 * much more state): the numbers are identical (test_threads compares both
 * paths). Returns false, having changed nothing, when the contact is not of
 * this kind. steady_lanes_body.h performs its leapfrog, one-size operations in four
 * or eight lanes: a change here is a change there (test_threads compares them). */
static inline __attribute__((always_inline)) bool steady_body(const stage *s, const sink *out, tl_pairs *l,
                                                               size_t k, const bool half_is_v) {
    tl_world *w = s->w;
    const tl_particles *p = &w->p;
    const uint32_t i = l->a[k], j = l->b[k];
    const double *sh = w->broad.nb.shift[l->img[k]];
    double xj[3];
    for (int q = 0; q < 3; q++) xj[q] = p->x[j][q] + sh[q];
    /* tl_geometry_sphere_sphere's arithmetic, R* apart (below) */
    const double ri = p->radius[i], rj = p->radius[j];
    tl_geometry g;
    double d[3] = {xj[0] - p->x[i][0], xj[1] - p->x[i][1], xj[2] - p->x[i][2]};
    double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    g.delta = ri + rj - dist;
    if (!(g.delta > 0.0)) return false;
    if (dist > 0.0) {
        double inv = 1.0 / dist;
        g.n[0] = d[0] * inv;
        g.n[1] = d[1] * inv;
        g.n[2] = d[2] * inv;
    } else {
        g.n[0] = g.n[1] = 0.0;
        g.n[2] = 1.0;
    }
    const tl_law *law;
    const tl_pair_law *pl;
    double imi = 0.0, imj = 0.0, iml = 0.0;
    if (s->all_mono) {
        law = s->mono_law;
        pl = s->mono_pl;
    } else {
        const int ma = p->material[i], mb = p->material[j];
        law = &w->cat.laws[w->cat.law_of[(size_t)ma * w->cat.law_dim + (size_t)mb]];
        if (law->fused_kind != TL_FUSED_HERTZ_MINDLIN) return false;
        imi = p->inv_mass_law[i];
        imj = p->inv_mass_law[j];
        iml = imi + imj;
        if (iml == 0.0) return false;
        pl = tl_world_pair(w, ma, mb);
    }
    double la = p->radius[i] - pl->split * g.delta;
    double lb = p->radius[j] - pl->split_b * g.delta;
    double vrel[3], vt[3];
    contact_velocity(p->v[i], p->w[i], p->v[j], p->w[j], g.n, la, lb, vrel);
    double rate = v3_dot(vrel, g.n);
    v3_copy(vt, vrel);
    v3_axpy(vt, -rate, g.n);
    double *rec = tl_pair_record(l, k);
    double dxi[3];
    if (half_is_v) {
        v3_scale(dxi, vt, s->dt);
    } else {
        side_b b;
        b.wall = false;
        b.index = j;
        b.v = p->v[j];
        b.w = p->w[j];
        drift_slip(s, i, &b, g.n, la, lb, dxi);
    }
    /* the fused kernel on plain values (tl_fused_hertz_mindlin without the record); for a pair
     * of the bed's common size the stage's sqrt(R*) and sqrt(m* sqrt(R*)), the same numbers */
    tl_hm_result r;
    double sr, A;
    if (s->all_mono || (ri == s->mono_r && rj == s->mono_r && imi == s->mono_im && imj == s->mono_im)) {
        sr = s->mono_sr;
        A = s->mono_A;
    } else {
        sr = sqrt(ri * rj / (ri + rj));
        A = sqrt(1.0 / iml * sr);
    }
    tl_hm_eval_sr(law, pl, g.delta, rate, g.n, vt, dxi, sr, A, rec + law->hist_offset[TL_SLOT_HISTORY], &r);
    double fa[3];
    v3_scale(fa, g.n, -r.fn);
    v3_add(fa, fa, r.ft);
    double cn[3];
    v3_cross(cn, g.n, r.ft);
    if (out->slot) {
        double *o = out->slot;
        v3_copy(o + OUT_F, fa);
        v3_copy(o + OUT_C, cn);
        o[OUT_LA] = la;
        o[OUT_LB] = lb;
    } else {
        double (*f)[3] = w->p.f, (*t)[3] = w->p.t, tq[3];
        v3_add(f[i], f[i], fa);
        v3_scale(tq, cn, la);
        v3_add(t[i], t[i], tq);
        v3_sub(f[j], f[j], fa);
        v3_scale(tq, cn, lb);
        v3_add(t[j], t[j], tq);
    }
    double *bk = rec + s->lay->hist;
    bk[TL_BK_DELTA] = g.delta;
    bk[TL_BK_FN] = r.fn;
    v3_copy(bk + TL_BK_FT, r.ft);
    l->state[k] = (uint8_t)(TL_PAIR_TOUCH | (r.sliding ? TL_PAIR_SLIDING : 0) |
                            (out->slot ? TL_PAIR_FORCE : 0));
    return true;
}

/* steady() for each kind of drift velocity: with the flag a constant, the leapfrog version keeps
 * the contact's vectors in registers (the other passes them to drift_slip) */
TL_ISA_CLONES __attribute__((noinline)) static bool steady_leapfrog(const stage *s, const sink *out,
                                                                   tl_pairs *l, size_t k) {
    return steady_body(s, out, l, k, true);
}
TL_ISA_CLONES __attribute__((noinline)) static bool steady_drift(const stage *s, const sink *out,
                                                                tl_pairs *l, size_t k) {
    return steady_body(s, out, l, k, false);
}

/* a candidate's separation, b's image less a: the distance tests and the gaps at the build */
static inline void pair_dx(const double (*X)[3], uint32_t a, uint32_t b, const double *sh, double dx[3]) {
    for (int q = 0; q < 3; q++) dx[q] = (X[b][q] + sh[q]) - X[a][q];
}

static void interact(const stage *s, const sink *out, tl_pairs *l, size_t k, bool wall,
                     tl_block_sum *bs) {
    tl_world *w = s->w;
    const tl_particles *p = &w->p;
    double(*X)[3] = p->x;
    const double *R = p->radius;
    const uint32_t i = l->a[k];
    const uint8_t st0 = l->state[k];
    const bool touching = (st0 & TL_PAIR_TOUCH) != 0;
    if (!wall && !touching) {
        /* cheap rejection before anything else: most candidates do not touch */
        uint32_t j = l->b[k];
        const double *sh = w->broad.nb.shift[l->img[k]];
        double d[3];
        pair_dx((const double(*)[3])X, i, j, sh, d);
        double r = R[i] + R[j];
        if (v3_norm2(d) >= r * r) {
            if (st0) l->state[k] = 0;
            return;
        }
    }
    side_b b;
    side_b_of(w, l, k, wall, &b);
    double iml = p->inv_mass_law[i] + b.inv_mass_law;
    if (iml == 0.0) { /* two immovable bodies do not interact */
        l->state[k] = 0;
        return;
    }
    pair_kin q;
    geometry(w, i, &b, X[i], wall ? NULL : b.x, &q.g);
    if (q.g.delta <= 0.0 && !touching) {
        if (st0) l->state[k] = 0;
        return;
    }
    const int ma = p->material[i];
    const tl_law *law = &w->cat.laws[w->cat.law_of[(size_t)ma * w->cat.law_dim + (size_t)b.material]];
    const tl_pair_law *pl = tl_world_pair(w, ma, b.material);
    /* the contact point divides the overlap in proportion to the bodies' compliances */
    q.la = R[i] - pl->split * q.g.delta;
    q.lb = wall ? 0.0 : R[b.index] - pl->split_b * q.g.delta;
    if (wall) {
        const tl_wall *wl = &w->walls.w[w->walls.f[b.index].wall];
        if (wl->turns) {
            /* a turning wall moves differently at each point: its velocity at the contact point */
            double pt[3];
            v3_copy(pt, X[i]);
            v3_axpy(pt, q.la, q.g.n);
            tl_wall_point_velocity(wl, pt, b.vbuf, b.vhbuf);
            b.v = b.vbuf;
            b.vh = b.vhbuf;
        }
    }
    /* kinematics at the contact point: velocity of a relative to b */
    double vrel[3];
    contact_velocity(p->v[i], p->w[i], b.v, b.w, q.g.n, q.la, q.lb, vrel);
    q.rate = v3_dot(vrel, q.g.n);
    v3_copy(q.vt, vrel);
    v3_axpy(q.vt, -q.rate, q.g.n);

    const tl_rec_layout *lay = s->lay;
    double *rec = tl_pair_record(l, k);
    tl_contact c;
    c.delta = q.g.delta;
    c.delta_rate = q.rate;
    v3_copy(c.n, q.g.n);
    v3_copy(c.vt, q.vt);
    v3_zero(c.dxi);
    c.r_eff = q.g.r_eff;
    c.m_eff = 1.0 / iml;
    c.dt = s->acc ? s->dt : 0.0; /* the evaluation before the first step adds no displacement */
    c.first = false;
    c.ledger = s->energy;
    c.v_impact = lay->impact >= 0 ? rec[lay->impact + TL_BI_V_IN] : 0.0;
    if (law->force_count) { /* the force slots' radii */
        c.ra = R[i];
        c.rb = wall ? INFINITY : R[b.index];
    }

    /* apart: the contact ends, unless a force slot holds it (cohesion's reach: jkr) */
    if (q.g.delta <= 0.0 && !(touching && law->reaches && q.g.delta > -tl_law_reach(law, pl, c.r_eff))) {
        l->state[k] = contact_exit(s, out, l, k, i, &b, &q, law, pl, &c, bs);
        return;
    }

    /* ---- touching ---- */
    double phi = 0.5;
    bool entered = false;
    if (!touching) {
        phi = contact_open(s, l, k, i, &b, &q, &entered);
        c.first = true;
        if (lay->impact >= 0) c.v_impact = rec[lay->impact + TL_BI_V_IN];
    }
    /* the tangential displacement the bodies made in this step's drift (only its part in
     * contact on the first step): what the tangential spring takes */
    double ds[3] = {0.0, 0.0, 0.0};
    if (s->acc) {
        if (s->half_is_v) v3_scale(ds, q.vt, s->dt); /* = drift_slip: the same numbers */
        else drift_slip(s, i, &b, q.g.n, q.la, q.lb, ds);
        if (touching || law->entry_displacement == TL_ENTRY_WHOLE_STEP) v3_copy(c.dxi, ds);
        else v3_scale(c.dxi, ds, phi);
    }

    /* the torque slots' last torques, spring and dashpot (zero for a new contact) */
    double dth[3] = {0.0, 0.0, 0.0}, th0[TL_TORQUE_SLOTS][6];
    memset(th0, 0, sizeof th0);
    if (law->spins) {
        rolling_inputs(s, i, &b, q.la, q.lb, &c, dth);
        v3_scale(c.dth, dth, touching || law->entry_displacement == TL_ENTRY_WHOLE_STEP ? 1.0 : phi);
        for (int m = 0; touching && m < law->torque_count; m++)
            memcpy(th0[law->torque_at[m]], tl_law_torque_hist(law, law->torque_slot[m], rec), sizeof th0[0]);
    }

    if (law->fused_kind == TL_FUSED_HERTZ_MINDLIN) tl_fused_hertz_mindlin(law, pl, &c, rec);
    else tl_law_eval(law, pl, &c, rec);

    /* the force applied to a: the law's, plus the entry correction */
    double fn_app = c.fn, ft_app[3];
    v3_copy(ft_app, c.ft);
    /* the force slots' applied forces: the law's, and the entry correction's share */
    double f_app[TL_FORCE_SLOTS];
    for (int m = 0; m < law->force_count; m++) f_app[law->force_at[m]] = c.fos[law->force_at[m]].f;
    /* a force slot's state at the touch of a new contact: its potential there is what forming the
     * contact cost (jkr's jump; contact_energy) */
    tl_force_out fo0[TL_FORCE_SLOTS];
    const bool touch_known = c.first && law->force_count;
    double fn0 = 0.0, ft0[3] = {0.0, 0.0, 0.0};
    if (touch_known || (entered && s->correct && phi != 0.5)) touch_force(law, pl, &c, NULL, &fn0, ft0, fo0);
    if (entered && s->correct && phi != 0.5) {
        const double wgt = phi - 0.5;
        fn_app += wgt * fn0;
        v3_axpy(ft_app, wgt, ft0);
        for (int m = 0; m < law->force_count; m++) f_app[law->force_at[m]] += wgt * fo0[law->force_at[m]].f;
    }
    double fa[3];
    v3_scale(fa, q.g.n, -fn_app);
    v3_add(fa, fa, ft_app);
    apply(s, out, i, &b, q.g.n, q.la, q.lb, fa, ft_app, law->spins ? c.mr : NULL);

    if (s->energy) contact_energy(s, i, &b, &q, law, &c, rec, ds, fn_app, ft_app, f_app, touch_known ? fo0 : NULL, dth, th0, bs);
    double *bk = rec + lay->hist;
    bk[TL_BK_DELTA] = c.delta;
    bk[TL_BK_FN] = fn_app;
    v3_copy(bk + TL_BK_FT, ft_app);
    if (lay->impact >= 0) {
        double *bi = rec + lay->impact;
        if (c.delta > bi[TL_BI_MAX_DELTA]) bi[TL_BI_MAX_DELTA] = c.delta;
        if (c.fn > bi[TL_BI_MAX_FN]) bi[TL_BI_MAX_FN] = c.fn;
    }
    l->state[k] = (uint8_t)(TL_PAIR_TOUCH | (c.sliding ? TL_PAIR_SLIDING : 0) |
                            (out->slot ? TL_PAIR_FORCE : 0) | (out->slot && law->spins ? TL_PAIR_TORQUE : 0));
    bs->touching++;
}

/* ---- the collision log: contacts that ended in this step ---- */

/* the rows [lo, hi) are logged (on ranks: this rank's own rows); every exit mark is cleared */
static tl_status log_exits(tl_world *w, tl_pairs *l, bool wall, const stage *s, size_t lo, size_t hi) {
    for (size_t k = 0; k < l->count; k++) {
        if (!(l->state[k] & TL_PAIR_EXIT)) continue;
        l->state[k] &= (uint8_t)~TL_PAIR_EXIT;
        if (k < lo || k >= hi) continue;
        uint32_t i = l->a[k];
        side_b b;
        side_b_of(w, l, k, wall, &b);
        tl_geometry g;
        geometry(w, i, &b, w->p.x[i], wall ? NULL : b.x, &g);
        const double *rec = tl_pair_record(l, k);
        const double *bk = rec + s->lay->hist, *bm = rec + s->lay->impact;
        double dprev = bk[TL_BK_DELTA];
        double psi = dprev > 0.0 ? dprev / (dprev - g.delta) : 0.5;
        if (tl_mem_reserve(&w->mem, (void **)&w->log.pend, &w->log.cap_pend, w->log.npend + 1, sizeof *w->log.pend) != 0)
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        tl_pending_exit *e = &w->log.pend[w->log.npend++];
        e->a = w->p.id[i];
        e->b = wall ? b.index : w->p.id[b.index];
        e->wall = wall;
        v3_copy(e->n, g.n);
        e->t_begin = bm[TL_BI_T_BEGIN];
        e->t_end = w->clock.time + psi * s->dt;
        e->v_in = bm[TL_BI_V_IN];
        e->max_delta = bm[TL_BI_MAX_DELTA];
        e->max_fn = bm[TL_BI_MAX_FN];
        e->step = w->clock.steps;
        e->list = wall ? 3 : 2;
    }
    return TL_OK;
}

/* The batch of n <= s->lanes_law.width touching candidates k (lslot: a cross candidate's slot, else
 * SIZE_MAX) in the lanes (four of them when n <= 4), then their forces applied lane by lane in
 * list order, as steady_body would; a lane the lanes left (no longer touching) takes the scalar
 * path at its place. Returns how many were steady contacts. */
static size_t run_lanes(const stage *s, const sink *out, const size_t lk[TL_LANES_MAX],
                        const size_t lslot[TL_LANES_MAX], unsigned n, tl_block_sum *bs) {
    tl_world *w = s->w;
    tl_pairs *pp = &w->contacts.pp;
    const unsigned width = n <= 4 ? 4 : TL_LANES_MAX;
    size_t kl[TL_LANES_MAX];
    uint8_t fb[TL_LANES_MAX];
    for (unsigned l = 0; l < TL_LANES_MAX; l++) { /* a fixed count: unrolled, not a copy loop */
        const unsigned from = l < n ? l : 0;
        kl[l] = lk[from];
        fb[l] = lslot[from] != SIZE_MAX ? TL_PAIR_FORCE : 0;
    }
    tl_lanes_out o;
    const unsigned m = (width == 4 ? tl_steady_lanes4 : tl_steady_lanes8)(
        &s->lanes_law, (const double(*)[3])w->p.x, (const double(*)[3])w->p.v, (const double(*)[3])w->p.w,
        (const double(*)[3])w->broad.nb.shift, pp->a, pp->b, pp->img, pp->rec, pp->state, kl, fb, n, &o);
    double(*f)[3] = w->p.f, (*t)[3] = w->p.t;
    size_t done = 0;
    for (unsigned l = 0; l < n; l++) {
        const size_t k = lk[l];
        if (m >> l & 1u) {
            done++;
            if (lslot[l] != SIZE_MAX) {
                double *so = w->scratch.out + lslot[l] * TL_OUT;
                for (int q = 0; q < 3; q++) {
                    so[OUT_F + q] = o.fa[q][l];
                    so[OUT_C + q] = o.cn[q][l];
                }
                so[OUT_LA] = o.la[l];
                so[OUT_LB] = o.lb[l];
            } else {
                const uint32_t i = pp->a[k], j = pp->b[k];
                for (int q = 0; q < 3; q++) f[i][q] = f[i][q] + o.fa[q][l];
                for (int q = 0; q < 3; q++) t[i][q] = t[i][q] + o.tqi[q][l];
                for (int q = 0; q < 3; q++) f[j][q] = f[j][q] - o.fa[q][l];
                for (int q = 0; q < 3; q++) t[j][q] = t[j][q] + o.tqj[q][l];
            }
            continue;
        }
        sink slot;
        const sink *so = out;
        if (lslot[l] != SIZE_MAX) {
            slot = (sink){NULL, NULL, w->scratch.out + lslot[l] * TL_OUT, w->scratch.out_m + lslot[l] * 3};
            so = &slot;
        }
        if (steady_leapfrog(s, so, pp, k)) done++;
        else interact(s, so, pp, k, false, bs);
    }
    return done;
}

/* The gaps of candidates [lo, hi) at the last build (the positions x_ref), each less a margin
 * and rounded down to a float: a lower bound of the exact distance at the build less the sum of
 * the radii. The margin, 1e-10 of the coordinates' and the radii's magnitude, is a million times
 * the rounding of this computation and of the distance test of run_domain together. A pair
 * touching at the build, or a non-finite one, gets -inf: never skipped. */
static void note_gaps(const tl_world *w, size_t lo, size_t hi) {
    const tl_pairs *pp = &w->contacts.pp;
    const double(*XR)[3] = (const double(*)[3])w->p.x_ref;
    const double *R = w->p.radius;
    const double(*shift)[3] = (const double(*)[3])w->broad.nb.shift;
    for (size_t k = lo; k < hi; k++) {
        const uint32_t a = pp->a[k], b = pp->b[k];
        const double *sh = shift[pp->img[k]];
        double dx[3], mag = 0.0;
        pair_dx(XR, a, b, sh, dx);
        for (int q = 0; q < 3; q++) mag = fmax(mag, fabs(XR[a][q]) + fabs(XR[b][q]) + fabs(sh[q]));
        const double r = R[a] + R[b];
        const double g = sqrt(v3_norm2(dx)) - r - 1e-10 * (mag + r);
        float f = -INFINITY;
        if (g > 0.0) { /* (false for NaN) */
            f = (float)g;
            if ((double)f > g) f = nextafterf(f, 0.0f);
        }
        w->broad.far.gap[k] = f;
    }
}

#define RUN_CHUNK 2048   /* candidates sorted into kept and skipped at a time (512: 3-5 % slower,
                          * the first PARTNER_AHEAD kept of each chunk go unprefetched) */
#define PARTNER_AHEAD 16 /* kept candidates: a few hundred cycles of the loop (24, 32: slower) */
#define RECORD_AHEAD 32  /* kept candidates (lanes only; records of 8 values, one cache line each) */

/* A domain: its particles' candidates in list order (an internal one adds
 * its forces at once; a cross one writes them to its slot, added later in
 * list order by add_cross), then its particles' wall candidates. Most
 * candidates do not touch (the test interact starts with, done here first);
 * most of the others are steady contacts, four or eight at a time where the lanes
 * apply (run_lanes; any other candidate first applies the batch's forces, so
 * the additions stay in list order). The arrays the loop reads are
 * held in locals: the calls in it could write anywhere, so the compiler
 * would otherwise load them again for every candidate. */
TL_ISA_CLONES static void run_domain(const stage *s, size_t d, tl_block_sum *bs) {
    tl_world *w = s->w;
    const tl_domains *dm = &w->broad.dom;
    sink out = {w->scratch.wall_part + d * w->walls.count, w->scratch.wall_tpart + d * w->walls.count, NULL, NULL};
    const uint32_t lo = dm->start[d], hi = dm->start[d + 1];
    tl_pairs *pp = &w->contacts.pp, *pw = &w->contacts.pw;
    const uint32_t *A = pp->a, *B = pp->b;
    const uint8_t *img = pp->img, *state = pp->state;
    const double(*X)[3] = (const double(*)[3])w->p.x;
    const double(*V)[3] = (const double(*)[3])w->p.v, (*W)[3] = (const double(*)[3])w->p.w;
    const double *R = w->p.radius;
    const double(*shift)[3] = (const double(*)[3])w->broad.nb.shift;
    const bool lean = s->lean, lanes = s->lanes;
    const double *REC = pp->rec;
    const double(*F)[3] = (const double(*)[3])w->p.f, (*T)[3] = (const double(*)[3])w->p.t;
    const unsigned lanes_w = s->lanes_law.width;
    const float *GAP = s->gap, *DB = s->disp_blk;
    size_t lk[TL_LANES_MAX], lslot[TL_LANES_MAX]; /* the batch of steady contacts: candidates, cross slots */
    unsigned nl = 0;
    const size_t kend = dm->pp_start[d + 1];
    size_t c = dm->cross_start[d], steady_n = 0, skipped = 0;
    /* the candidates in chunks: first the chunk's candidates that may touch, in list order
     * (without a branch: a far candidate skipped by its gap is simply not kept), with their
     * cross slots (SIZE_MAX: internal); then those, one by one */
    size_t kept[RUN_CHUNK], kslot[RUN_CHUNK];
    for (size_t k0 = dm->pp_start[d]; k0 < kend; k0 += RUN_CHUNK) {
        const size_t k1 = kend - k0 < RUN_CHUNK ? kend : k0 + RUN_CHUNK;
        size_t nk = 0;
        for (size_t k = k0; k < k1; k++) {
            const uint32_t a = A[k], b = B[k];
            /* a cross candidate has its slot whether it touches or not (| and not ||, here and
             * below: the outcomes follow no pattern, a branch on them would be mispredicted) */
            const unsigned cross = (a < lo) | (a >= hi) | (b < lo) | (b >= hi);
            kept[nk] = k;
            kslot[nk] = cross ? c : SIZE_MAX;
            c += cross;
            nk += GAP ? (unsigned)(state[k] != 0) |
                            (unsigned)!(GAP[k] > DB[a / TL_DISP_BLOCK] + DB[b / TL_DISP_BLOCK])
                      : 1u;
        }
        skipped += (k1 - k0) - nk;
        for (size_t j = 0; j < nk; j++) {
            /* the partner of the candidate PARTNER_AHEAD places on: its position, velocity,
             * angular velocity and radius asked for now. On a bed larger than the cache a
             * partner one layer up is first read here from memory, a stream the hardware does
             * not foresee (10^5 spheres: 7 % faster; the same results, a prefetch changes no
             * number) */
            if (j + PARTNER_AHEAD < nk) {
                const size_t ka = kept[j + PARTNER_AHEAD];
                const uint32_t pb = B[ka];
                __builtin_prefetch(X[pb]);
                __builtin_prefetch(V[pb]);
                __builtin_prefetch(W[pb]);
                __builtin_prefetch(R + pb);
                /* with the lanes the contact is short enough that more of its misses show: the
                 * partner's force and torque, and the record RECORD_AHEAD places on, are asked
                 * for too (10^5 spheres: the records 20 %, the force and torque 10 % faster) */
                if (lanes) {
                    __builtin_prefetch(F[pb], 1);
                    __builtin_prefetch(T[pb], 1);
                    if (j + RECORD_AHEAD < nk) __builtin_prefetch(REC + kept[j + RECORD_AHEAD] * 8, 1);
                }
            }
            const size_t k = kept[j], slot_k = kslot[j];
            const bool cross = slot_k != SIZE_MAX;
            const uint32_t a = A[k], b = B[k];
            const uint8_t st = state[k];
            if (st == 0) {
                const double *sh = shift[img[k]];
                double dx[3];
                pair_dx(X, a, b, sh, dx);
                double r = R[a] + R[b];
                if (v3_norm2(dx) >= r * r) continue;
            }
            if (lanes && (st & TL_PAIR_TOUCH)) {
                lk[nl] = k;
                lslot[nl] = slot_k;
                if (++nl == lanes_w) {
                    steady_n += run_lanes(s, &out, lk, lslot, nl, bs);
                    nl = 0;
                }
                continue;
            }
            if (nl) { /* the batch's forces before this candidate's: the list's order */
                steady_n += run_lanes(s, &out, lk, lslot, nl, bs);
                nl = 0;
            }
            sink slot, *o = &out;
            if (cross) {
                slot = (sink){NULL, NULL, w->scratch.out + slot_k * TL_OUT, w->scratch.out_m + slot_k * 3};
                o = &slot;
            }
            if (lean && (st & TL_PAIR_TOUCH) &&
                (s->half_is_v ? steady_leapfrog(s, o, pp, k) : steady_drift(s, o, pp, k)))
                steady_n++;
            else interact(s, o, pp, k, false, bs);
        }
    }
    if (nl) steady_n += run_lanes(s, &out, lk, lslot, nl, bs);
    bs->touching += steady_n;
    bs->skipped += skipped;
    /* the domain's cross candidates, their bodies and state now, for add_cross_range */
    for (size_t e = dm->cross_start[d]; e < dm->cross_start[d + 1]; e++) {
        const uint32_t k = dm->cross[e];
        w->scratch.out_pair[e] = (tl_cross_pair){A[k], B[k], state[k]};
    }
    for (size_t k = dm->pw_start[d]; k < dm->pw_start[d + 1]; k++) interact(s, &out, pw, k, true, bs);
}

/* Whether a particle of [lo, hi) has another radius, inverse mass or material. */
static int differs_from(const tl_particles *p, size_t lo, size_t hi, double r, double im, int m) {
    int d = 0;
    for (size_t i = lo; i < hi; i++) d |= p->radius[i] != r || p->inv_mass_law[i] != im || p->material[i] != m;
    return d;
}

static void add_ledger(tl_energy_ledger *to, const tl_energy_ledger *from) {
    for (int t = 0; t < TL_ENERGY_TERM_COUNT; t++) to->term[t] += from->term[t];
}

tl_status tl_contact_forces(tl_world *w, bool accumulate) {
    if (accumulate) {
        add_ledger(&w->books.ledger, &w->books.next);
        memset(&w->books.next, 0, sizeof w->books.next);
    }
    stage s;
    s.w = w;
    s.lay = &w->contacts.lay;
    s.dt = w->clock.dt;
    s.acc = accumulate;
    s.correct = accumulate && w->def.contact_boundary_correction;
    s.energy = w->def.track_energy && w->contacts.lay.energy >= 0;
    s.half_is_v = w->clock.c_pred[0] == 0.5 && w->clock.c_pred[1] == 0.0;
    s.b1 = w->clock.c_pred[0] - 0.5;
    s.b2 = w->clock.c_pred[1];
    s.lean = !s.energy && w->contacts.lay.impact < 0 && accumulate && !w->knobs.no_fast_path;
    s.mono_r = s.mono_im = NAN; /* matches nothing */
    s.mono_reff = s.mono_meff = s.mono_sr = s.mono_A = NAN;
    if (w->p.count > 0 && w->p.inv_mass_law[0] > 0.0) {
        double r = w->p.radius[0], im = w->p.inv_mass_law[0];
        s.mono_r = r;
        s.mono_im = im;
        s.mono_reff = r * r / (r + r);
        s.mono_meff = 1.0 / (im + im);
        s.mono_sr = sqrt(s.mono_reff);
        s.mono_A = sqrt(s.mono_meff * s.mono_sr);
    }
    const int nt = w->nthreads;
    /* a bed of one size, mass and material (the particles looked at again whenever they change:
     * added, removed, reordered, loaded; each of these changes their generation) */
    s.all_mono = false;
    s.mono_law = NULL;
    s.mono_pl = NULL;
    if (w->p.count > 0 && s.mono_im > 0.0) {
        const int m0 = w->p.material[0];
        const tl_law *law0 = &w->cat.laws[w->cat.law_of[(size_t)m0 * w->cat.law_dim + (size_t)m0]];
        bool same = law0->fused_kind == TL_FUSED_HERTZ_MINDLIN;
        if (same && !(w->scratch.mono_seen && w->scratch.mono_generation == w->p.generation)) {
            int acc = 0; /* some particle differs */
            const size_t np = w->p.count, nblk = (size_t)nt * 4;
            TL_FOR_STATIC_OR(q, nblk, acc |= differs_from(&w->p, q * np / nblk, (q + 1) * np / nblk, s.mono_r,
                                                          s.mono_im, m0);)
            w->scratch.mono_seen = true;
            w->scratch.mono_generation = w->p.generation;
            w->scratch.mono_same = acc == 0;
        }
        same = same && w->scratch.mono_same;
        if (same) {
            s.all_mono = true;
            s.mono_law = law0;
            s.mono_pl = tl_world_pair(w, m0, m0);
        }
    }
    s.lanes = s.lean && s.all_mono && s.half_is_v && !w->knobs.no_lanes &&
              tl_lanes_law_make(&s.lanes_law, s.mono_law, s.mono_pl, s.mono_r, s.mono_sr, s.mono_A, s.dt,
                                w->contacts.lay.hist, w->contacts.pp.stride, w->knobs.lanes_width);
    w->scratch.lanes_on = s.lanes;
    w->scratch.lanes_width_on = s.lanes ? s.lanes_law.width : 0;
    const tl_domains *dm = &w->broad.dom;
    const size_t ndom = dm->count, nwall = w->walls.count, ncross = dm->ncross;
    s.drift = NULL;
    if (!s.half_is_v) {
        size_t np = w->p.count;
        if (tl_mem_reserve(&w->mem, (void **)&w->scratch.drift, &w->scratch.cap_drift, np + 1, sizeof *w->scratch.drift) != 0)
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (contact stage)");
        const size_t nblk = (size_t)nt * 4;
        TL_FOR_STATIC(q, nblk, drift_rows(&w->p, s.dt, s.b1, s.b2, q * np / nblk, (q + 1) * np / nblk, w->scratch.drift);)
        s.drift = (const double(*)[6])w->scratch.drift;
    }
    if (tl_mem_reserve(&w->mem, (void **)&w->scratch.blocks, &w->scratch.cap_blocks, ndom + 1, sizeof *w->scratch.blocks) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&w->scratch.wall_part, &w->scratch.cap_wall_part, ndom * nwall + 1,
                       sizeof *w->scratch.wall_part) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&w->scratch.wall_tpart, &w->scratch.cap_wall_tpart, ndom * nwall + 1,
                       sizeof *w->scratch.wall_tpart) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&w->scratch.out, &w->scratch.cap_out, ncross * TL_OUT + 1, sizeof *w->scratch.out) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&w->scratch.out_m, &w->scratch.cap_out_m, ncross * 3 + 1, sizeof *w->scratch.out_m) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&w->scratch.out_pair, &w->scratch.cap_out_pair, ncross + 1, sizeof *w->scratch.out_pair) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (contact stage)");
    memset(w->scratch.blocks, 0, ndom * sizeof *w->scratch.blocks);
    memset(w->scratch.wall_part, 0, ndom * nwall * sizeof *w->scratch.wall_part);
    memset(w->scratch.wall_tpart, 0, ndom * nwall * sizeof *w->scratch.wall_tpart);
    /* the far candidates: skipped by their gap when the predict stage just measured how far
     * every particle has moved since the build, block by block (each block's displacement kept
     * with a relative 1e-5 to spare: the float sum of two of them, rounded, is still no less
     * than the exact sum of the two displacements) */
    s.gap = s.disp_blk = NULL;
    if (w->broad.far.disp_ok && !w->knobs.no_gap_skip && w->contacts.pp.count > 0) {
        const size_t npp = w->contacts.pp.count;
        if (!w->broad.far.gap_ready) {
            if (tl_mem_reserve(&w->mem, (void **)&w->broad.far.gap, &w->broad.far.cap_gap, npp, sizeof *w->broad.far.gap) != 0)
                return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (contact stage)");
            const size_t nblk = (size_t)nt * 4;
            TL_FOR_STATIC(q, nblk, note_gaps(w, q * npp / nblk, (q + 1) * npp / nblk);)
            w->broad.far.gap_ready = true;
        }
        s.gap = w->broad.far.gap;
        s.disp_blk = w->broad.far.disp_blk;
    }
    w->broad.far.disp_ok = false;

    /* 1. the domains, any of them on any thread */
    TL_FOR_STATIC(d, ndom, run_domain(&s, d, &w->scratch.blocks[d]);)

    /* 2. the cross candidates' forces, in list order, each thread for its range of particles */
    if (ncross) {
        const size_t np = w->p.count, nr = (size_t)nt;
        TL_FOR_STATIC(q, nr, add_cross_range(w, q * np / nr, (q + 1) * np / nr);)
    }

    /* 3. sums in a fixed order (of all ranks' domains in a distributed world) */
    const tl_block_sum *blocks = w->scratch.blocks;
    const double(*wall_part)[3] = (const double(*)[3])w->scratch.wall_part, (*wall_tpart)[3] = (const double(*)[3])w->scratch.wall_tpart;
    size_t nsum = ndom;
    if (w->ranks.established) {
        tl_status st = w->ranks.ops->domain_sums(w, &blocks, &wall_part, &wall_tpart, &nsum);
        if (st != TL_OK) return st;
    }
    for (size_t k = 0; k < nwall; k++) {
        tl_wall *wl = &w->walls.w[k];
        v3_copy(wl->force_prev, wl->force);
        v3_zero(wl->force);
        for (size_t d = 0; d < nsum; d++) v3_add(wl->force, wl->force, wall_part[d * nwall + k]);
        v3_copy(wl->torque_prev, wl->torque);
        v3_zero(wl->torque);
        for (size_t d = 0; d < nsum; d++) v3_add(wl->torque, wl->torque, wall_tpart[d * nwall + k]);
    }
    size_t touching = 0, exits = 0, skipped = 0;
    for (size_t bi = 0; bi < nsum; bi++) {
        add_ledger(&w->books.ledger, &blocks[bi].cur);
        add_ledger(&w->books.next, &blocks[bi].next);
        touching += blocks[bi].touching;
        exits += blocks[bi].exits;
        skipped += blocks[bi].skipped;
    }
    w->contacts.touching = touching;
    w->broad.far.skipped += skipped;
    /* the contacts of other shapes (shape_contacts.c) */
    /* (on ranks whenever there are mesh walls or bodies: its sums are collective) */
    if (w->contacts.sc.cand.count || w->contacts.sc.touching ||
        ((w->walls.nmesh || w->shapes.count > 1) && w->ranks.established)) {
        tl_status st = tl_shape_stage(w, accumulate);
        if (st != TL_OK) return st;
        w->contacts.touching += w->contacts.sc.touching;
    }
    /* 4. constant external forces, in id order */
    if (w->ext.count) tl_external_apply(w);
    if (exits && w->log.on && w->contacts.lay.impact >= 0) {
        size_t lo[2] = {0, 0}, hi[2] = {w->contacts.pp.count, w->contacts.pw.count}; /* serially: every row */
        if (tl_ranks_spread(&w->ranks)) w->ranks.ops->log_rows(w, lo, hi); /* on ranks: this rank's */
        tl_status st = log_exits(w, &w->contacts.pp, false, &s, lo[0], hi[0]);
        if (st == TL_OK) st = log_exits(w, &w->contacts.pw, true, &s, lo[1], hi[1]);
        if (st != TL_OK) return st;
    }
    return TL_OK;
}
