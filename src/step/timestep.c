/*
 * The time step: the shortest elastic contact duration among the bodies
 * that can meet, divided by the number of steps a contact must be resolved
 * with (steps_per_contact, default 20).
 *
 *   linear springs   t_c = pi sqrt(m* / k)                    (Li et al. 2022 Appendix A)
 *   Hertzian springs t_c = 2.9432 (15 m* / (16 E* sqrt(R*)))^2/5 v^-1/5
 *                    = 2.9432 delta_max / v                    (Li et al. 2022 eq. 24, with
 *                    1/E* = sum (1 - nu^2)/E, docs/readings.md li-dt-eq24; 2.9432 = 0.8 B(2/5, 1/2))
 *
 * A body of another shape enters with its own mass and the largest radius
 * of curvature its surface can present to a Hertzian law (an ellipsoid's
 * a^2/c, a the largest semi-axis and c the smallest; a mesh's radius of the
 * law: its volume-equivalent sphere, or its bounding sphere with the area
 * rule): the larger the radius, the stiffer and shorter the contact.
 *
 * The Hertz time depends on the impact speed v: given (impact_speed) or
 * estimated as the fastest body plus the free-fall speed over the scene's
 * height, sqrt(2 g H). The undamped duration is used: damping lengthens
 * contacts, so the bound holds for the damped ones too.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fused.h"
#include "shape_kind.h"
#include "vec.h"
#include "world.h"
#include "timestep.h"

static bool nbodies_any(const tl_world *w) { return w->shapes.nbodies > 0; }

static double hertz_time_constant(void) { return 0.8 * tgamma(0.4) * tgamma(0.5) / tgamma(0.9); }

/* The largest normal speed a body's spin gives its surface, per rad/s: a body turning about its
 * centroid moves its support point r (|r| = rho) across a plane of normal u at u . (omega x r),
 * at most omega rho sin(angle(r, u)). A sphere: none (its surface slides, it does not approach).
 * A convex body holding a ball of radius r_in about its centroid: rho cos >= r_in, so at most
 * omega sqrt(R^2 - r_in^2) with R its bounding radius; an ellipsoid's r_in is its smallest
 * semi-axis. A mesh: omega R (its contact point need not be a support point). Each kind gives
 * its own (tl_shape_spin_reach: the spin_reach of its definition, shape_kind.h). */

/* the fastest a body's surface approaches another: its centre's speed plus what its spin adds
 * (a fast-spinning ellipsoid or block hits with its corners) */
static double body_speed_max(const tl_world *w) {
    const tl_particles *p = &w->p;
    double vmax = 0.0;
    for (size_t i = 0; i < p->count; i++)
        vmax = dmax(vmax, v3_norm(p->v[i]) + v3_norm(p->w[i]) * tl_shape_spin_reach(tl_world_shape_of(w, i)));
    return vmax;
}

/* the fastest a wall's surface meets the bodies: its translation, or its servo's largest speed
 * when that is more, plus, for a turning wall, omega x (x - pivot) at the bodies' positions
 * (a plane spinning about its normal moves its surface under them) */
static double wall_speed_max(const tl_world *w) {
    const tl_particles *p = &w->p;
    double vmax = 0.0;
    for (size_t k = 0; k < w->walls.count; k++) {
        const tl_wall *wl = &w->walls.w[k];
        double v = v3_norm(wl->vel);
        if (wl->servo.enabled && wl->servo.max_speed > 0.0) v = dmax(v, v3_norm(wl->vel) + wl->servo.max_speed);
        double turn = 0.0;
        if (v3_norm2(wl->omega) > 0.0)
            for (size_t i = 0; i < p->count; i++) {
                double d[3], u[3];
                v3_sub(d, p->x[i], wl->pivot);
                v3_cross(u, wl->omega, d);
                /* the surface's speed at the body's centre, and across the body's size */
                const tl_shape *sh = tl_world_shape_of(w, i);
                double r = sh ? sh->radius : p->radius[i];
                turn = dmax(turn, v3_norm(u) + v3_norm(wl->omega) * r);
            }
        vmax = dmax(vmax, v + turn);
    }
    return vmax;
}

double tl_timestep_impact_speed(const tl_world *w) {
    const tl_particles *p = &w->p;
    double vmax = dmax(body_speed_max(w), wall_speed_max(w));
    double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    double gn = v3_norm(g);
    if (gn <= 0.0) return vmax;
    double gh[3];
    v3_scale(gh, g, 1.0 / gn);
    double lo = INFINITY, hi = -INFINITY;
    if (w->def.has_domain) {
        const double a[3] = {w->def.domain_min.x, w->def.domain_min.y, w->def.domain_min.z};
        const double b[3] = {w->def.domain_max.x, w->def.domain_max.y, w->def.domain_max.z};
        for (int c = 0; c < 8; c++) {
            double x[3] = {(c & 1) ? b[0] : a[0], (c & 2) ? b[1] : a[1], (c & 4) ? b[2] : a[2]};
            double s = v3_dot(x, gh);
            lo = dmin(lo, s);
            hi = dmax(hi, s);
        }
    } else {
        for (size_t i = 0; i < p->count; i++) {
            double s = v3_dot(p->x[i], gh);
            lo = dmin(lo, s - p->radius[i]);
            hi = dmax(hi, s + p->radius[i]);
        }
        for (size_t f = 0; f < w->walls.nfaces; f++) {
            double s = v3_dot(w->walls.f[f].p, gh);
            lo = dmin(lo, s);
            hi = dmax(hi, s);
        }
    }
    double h = hi > lo ? hi - lo : 0.0;
    return vmax + sqrt(2.0 * gn * h);
}

/* evaluates the law's slots on a probe contact (no history kept) */
static void probe(const tl_law *law, const tl_pair_law *pl, tl_contact *c) {
    double scratch[TL_MAX_HIST];
    memset(scratch, 0, sizeof scratch);
    tl_law_eval(law, pl, c, scratch);
}

tl_status tl_world_estimate_pair(tl_world *w, int ma, int mb, double ra, double mass_a, double rb,
                                 double mass_b, double v, tl_pair_estimate *out) {
    if (!w || !out) return TL_ERROR_ARGUMENT;
    if (ma < 0 || mb < 0 || (size_t)ma >= w->cat.nmat || (size_t)mb >= w->cat.nmat)
        return tl_world_fail(w, TL_ERROR_NOT_FOUND, "estimate: unknown material");
    int32_t li = w->cat.law_of[(size_t)ma * w->cat.law_dim + (size_t)mb];
    if (li < 0)
        return tl_world_fail(w, TL_ERROR_NOT_FOUND, "no contact law between '%s' and '%s'",
                             w->cat.mat[ma].name, w->cat.mat[mb].name);
    const tl_law *law = &w->cat.laws[li];
    tl_pair_law pl = *tl_world_pair(w, ma, mb);
    if (pl.law != li) { /* not prepared yet */
        char msg[512];
        tl_status s = tl_law_prepare(law, &w->cat.mat[ma], &w->cat.mat[mb], &pl, msg, sizeof msg);
        if (s != TL_OK)
            return tl_world_fail(w, s, "law between '%s' and '%s': %s", w->cat.mat[ma].name,
                                 w->cat.mat[mb].name, msg);
        tl_fused_prepare(law, &pl);
    }
    if (!(ra > 0.0) || !(rb > 0.0) || !(mass_a > 0.0) || !(mass_b > 0.0))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "estimate: radii and masses must be > 0");
    memset(out, 0, sizeof *out);
    double ima = isinf(mass_a) ? 0.0 : 1.0 / mass_a, imb = isinf(mass_b) ? 0.0 : 1.0 / mass_b;
    if (ima + imb == 0.0) return tl_world_fail(w, TL_ERROR_ARGUMENT, "estimate: both bodies immovable");
    out->m_eff = 1.0 / (ima + imb);
    out->r_eff = isinf(rb) ? ra : (isinf(ra) ? rb : ra * rb / (ra + rb));
    if (!(v > 0.0)) v = tl_timestep_impact_speed(w);
    out->impact_speed = v;

    tl_contact c;
    memset(&c, 0, sizeof c);
    c.m_eff = out->m_eff;
    c.r_eff = out->r_eff;
    c.delta = 1e-6 * out->r_eff;
    c.v_impact = v;
    c.fn = 0.0;
    probe(law, &pl, &c);
    unsigned kind = law->sub[TL_SLOT_NORMAL]->normal_kind;
    double k = c.k;
    if (kind & TL_NORMAL_KIND_LINEAR) {
        out->contact_time = TL_PI * sqrt(out->m_eff / k);
        out->max_overlap = v * sqrt(out->m_eff / k);
        out->stiffness = k;
    } else {
        if (v > 0.0) {
            out->max_overlap = pow(1.25 * out->m_eff * v * v / k, 0.4);
            out->contact_time = hertz_time_constant() * out->max_overlap / v;
        } else {
            out->max_overlap = 0.0;
            out->contact_time = INFINITY;
        }
        out->stiffness = k * sqrt(out->max_overlap);
    }
    /* damping and tangential stiffness at the peak overlap */
    double dpk = out->max_overlap > 0.0 ? out->max_overlap : 1e-6 * out->r_eff;
    memset(&c, 0, sizeof c);
    c.m_eff = out->m_eff;
    c.r_eff = out->r_eff;
    c.delta = dpk;
    c.delta_rate = 1.0;
    c.v_impact = v;
    probe(law, &pl, &c);
    out->damping = c.fn_damp;
    memset(&c, 0, sizeof c);
    c.m_eff = out->m_eff;
    c.r_eff = out->r_eff;
    c.delta = dpk;
    c.dt = 0.0;
    c.v_impact = v;
    double nscratch[TL_MAX_HIST];
    memset(nscratch, 0, sizeof nscratch);
    law->sub[TL_SLOT_NORMAL]->force(pl.p[TL_SLOT_NORMAL], &c, nscratch + law->hist_offset[TL_SLOT_NORMAL]);
    c.fn = 1e300; /* keep the probe away from the Coulomb limit */
    double xi0 = 1e-12 * out->r_eff;
    c.xi[0] = xi0; /* history-based springs read xi, incremental ones dxi */
    c.dxi[0] = xi0;
    c.dt = 1.0;
    c.m_eff = 0.0; /* no tangential dashpot in the probe */
    double scratch[TL_MAX_HIST];
    memset(scratch, 0, sizeof scratch);
    law->sub[TL_SLOT_TANGENTIAL]->force(pl.p[TL_SLOT_TANGENTIAL], &c,
                                        scratch + law->hist_offset[TL_SLOT_TANGENTIAL]);
    out->tangential_stiffness = fabs(c.ft[0]) / xi0;
    return TL_OK;
}

tl_status tl_timestep_compute(tl_world *w) {
    tl_timestep_info *ts = &w->clock.ts;
    memset(ts, 0, sizeof *ts);
    ts->material_a = ts->material_b = -1;
    bool estimated = !(w->def.impact_speed > 0.0);
    double v = estimated ? tl_timestep_impact_speed(w) : w->def.impact_speed;
    ts->impact_speed = v;
    ts->impact_speed_estimated = estimated;

    /* the smallest spheres of each material */
    size_t nm = w->cat.nmat;
    double rmin[256], mmin[256];
    double rbody[256], mbody[256]; /* other shapes: the largest contact radius, the smallest mass */
    size_t ndyn[256];
    bool dyn[256], fixed[256], wall[256];
    for (size_t m = 0; m < nm && m < 256; m++) {
        rmin[m] = mmin[m] = mbody[m] = INFINITY;
        rbody[m] = 0.0;
        ndyn[m] = 0;
        dyn[m] = fixed[m] = wall[m] = false;
    }
    const tl_particles *p = &w->p;
    for (size_t i = 0; i < p->count; i++) {
        int m = p->material[i];
        const tl_shape *sh = tl_world_shape_of(w, i);
        if (sh) {
            rbody[m] = dmax(rbody[m], tl_shape_contact_radius(sh));
            if (p->inv_mass_law[i] > 0.0) {
                dyn[m] = true;
                ndyn[m]++;
                mbody[m] = dmin(mbody[m], p->mass[i]);
            } else {
                fixed[m] = true;
            }
            continue;
        }
        rmin[m] = dmin(rmin[m], p->radius[i]);
        if (p->inv_mass_law[i] > 0.0) {
            dyn[m] = true;
            ndyn[m]++;
            mmin[m] = dmin(mmin[m], p->mass[i]);
        } else {
            fixed[m] = true;
        }
    }
    for (size_t k = 0; k < w->walls.count; k++) wall[w->walls.w[k].material] = true;

    double best = INFINITY, damp_bound = INFINITY;
    int damp_a = 0, damp_b = 0;
    bool damp_wall = false;
    for (size_t a = 0; a < nm; a++) {
        if (!dyn[a]) continue;
        for (int sa = 0; sa < 2; sa++) { /* a sphere of a, then a body of another shape */
        double ra = sa ? rbody[a] : rmin[a], ma_ = sa ? mbody[a] : mmin[a];
        if (!(ra > 0.0) || !isfinite(ra) || !isfinite(ma_)) continue;
        for (size_t b = 0; b < nm; b++) {
            /* partners: dynamic particles, fixed particles, walls */
            /* two moving bodies of one material need two of them */
            bool pair_dyn = dyn[b] && (a != b || ndyn[a] >= 2);
            double rb_any = isfinite(rmin[b]) ? rmin[b] : rbody[b];
            if (rbody[b] > 0.0 && isfinite(rmin[b])) rb_any = dmax(rmin[b], rbody[b]);
            double mb_any = dmin(mmin[b], mbody[b]);
            double mb[3] = {pair_dyn ? mb_any : NAN, fixed[b] ? INFINITY : NAN, wall[b] ? INFINITY : NAN};
            double rbv[3] = {rb_any, rb_any, INFINITY};
            if (!nbodies_any(w)) {
                /* spheres only: as always */
                mb[0] = pair_dyn ? mmin[b] : NAN;
                rbv[0] = rbv[1] = rmin[b];
            }
            for (int kind = 0; kind < 3; kind++) {
                if (isnan(mb[kind])) continue;
                if (w->cat.law_of[a * w->cat.law_dim + b] < 0) continue;
                tl_pair_estimate e;
                tl_status s = tl_world_estimate_pair(w, (int)a, (int)b, ra, ma_, rbv[kind],
                                                     mb[kind], v > 0.0 ? v : -1.0, &e);
                if (s != TL_OK) return s;
                if (v <= 0.0 && !(w->cat.laws[w->cat.law_of[a * w->cat.law_dim + b]].sub[TL_SLOT_NORMAL]->normal_kind &
                                  TL_NORMAL_KIND_LINEAR)) {
                    if (w->def.dt > 0.0) continue;
                    return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                         "cannot estimate the impact speed for the Hertz contact "
                                         "time of '%s'-'%s' (no gravity and nothing moves): set "
                                         "integrator.impact_speed (m/s) or integrator.dt (s)",
                                         w->cat.mat[a].name, w->cat.mat[b].name);
                }
                if (!(e.contact_time > 0.0) || !isfinite(e.contact_time) || !isfinite(v)) {
                    if (w->def.dt > 0.0) continue;
                    return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                         "cannot choose dt automatically: the contact of '%s'-%s'%s' "
                                         "has an estimated duration of %g s at an impact speed of "
                                         "%g m/s (%s), stiffness %g N/m, effective mass %g kg; "
                                         "check gravity, the stiffness and the radii, or give "
                                         "integrator.dt (s)",
                                         w->cat.mat[a].name, kind == 2 ? "wall " : "", w->cat.mat[b].name,
                                         e.contact_time, v,
                                         estimated ? "estimated from gravity and the heights"
                                                   : "integrator.impact_speed",
                                         e.stiffness, e.m_eff);
                }
                if (e.contact_time < best) {
                    best = e.contact_time;
                    ts->material_a = (int)a;
                    ts->material_b = (int)b;
                    ts->wall = kind == 2;
                }
                /* the dashpot's own limit: forward Euler on a damper d and a mass m is
                 * stable below 2 m / d; this integrator (the dashpot sees the predicted
                 * velocity) grew at m / d and 0.75 m / d and was stable at 0.5 m / d
                 * (test_energy): the step takes m / (4 d) */
                if (e.damping > 0.0 && isfinite(e.damping) && 0.25 * e.m_eff / e.damping < damp_bound) {
                    damp_bound = 0.25 * e.m_eff / e.damping;
                    damp_a = (int)a;
                    damp_b = (int)b;
                    damp_wall = kind == 2;
                }
            }
        }
        }
    }
    ts->contact_time = best;
    ts->dt_bound = best / w->def.steps_per_contact;
    bool damp_binds = damp_bound < ts->dt_bound;
    if (damp_binds) ts->dt_bound = damp_bound;
    if (w->def.dt > 0.0) {
        w->clock.dt = w->def.dt;
        if (damp_binds && w->clock.dt > ts->dt_bound * (1.0 + 1e-12) && !w->def.allow_unresolved_contacts)
            return tl_world_fail(w, TL_ERROR_UNRESOLVED,
                                 "dt = %g s is above the dashpot's limit for '%s'-%s'%s' (m*/(4 d) = "
                                 "%.4g s; at m*/d the damped motion grows instead of decaying). Use "
                                 "dt <= %.4g s, or set allow_unresolved_contacts: true",
                                 w->clock.dt, w->cat.mat[damp_a].name, damp_wall ? "wall " : "", w->cat.mat[damp_b].name,
                                 damp_bound, damp_bound);
        if (isfinite(best) && w->clock.dt > ts->dt_bound * (1.0 + 1e-12) && !w->def.allow_unresolved_contacts) {
            char pair[256];
            snprintf(pair, sizeof pair, "'%s'-%s'%s'", w->cat.mat[ts->material_a].name,
                     ts->wall ? "wall " : "", w->cat.mat[ts->material_b].name);
            return tl_world_fail(w, TL_ERROR_UNRESOLVED,
                                 "dt = %g s resolves the shortest contact (%s, %.4g s at %.3g m/s) "
                                 "with only %.1f steps; at least %g are required "
                                 "(integrator.steps_per_contact). Use dt <= %.4g s, or set "
                                 "allow_unresolved_contacts: true",
                                 w->clock.dt, pair, best, v, best / w->clock.dt, w->def.steps_per_contact,
                                 ts->dt_bound);
        }
    } else {
        if (!isfinite(ts->dt_bound))
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "cannot choose dt automatically: no two bodies can touch; give "
                                 "integrator.dt (s)");
        w->clock.dt = ts->dt_bound;
    }
    ts->dt = w->clock.dt;
    ts->steps_per_contact = best / w->clock.dt;
    return TL_OK;
}
