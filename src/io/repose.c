/*
 * The dynamic angle of repose of a bed in a rotating drum (tl_world_repose;
 * docs/drum.md), measured two independent ways:
 *
 *  - the free surface: the particles are projected on the drum's
 *    cross-section (u across, v up against gravity, the axis a: (u, v, a)
 *    right-handed); the section is cut into bins across u, each bin's surface
 *    is its highest particle top (v + r); a least-squares line through the
 *    bins of the middle of the surface (a fraction `trim` of its chord left
 *    out at each end, where the surface bends into the wall) gives the angle;
 *  - the centroid: a bed whose free surface is a flat chord is a circular
 *    segment, whose centroid lies on the chord's perpendicular through the
 *    axis; so the centroid's direction from the axis, measured from straight
 *    down, is the surface's tilt, whatever the fill and the bulk density.
 *
 * Both are positive when the surface rises towards +u (a drum turning with
 * positive angular velocity about a carries the bed up on that side). The
 * weight's moment about the axis, M g u_c, is what the drum must supply in
 * steady rotation: the wall torque checks it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"
#include "world.h"

#define MAX_BINS 100000

tl_repose_def tl_repose_default(void) {
    tl_repose_def d;
    memset(&d, 0, sizeof d);
    d.axis = (tl_vec3){0.0, 1.0, 0.0};
    d.material = -1;
    d.trim = 0.2;
    return d;
}

static double deg(double rad) { return rad * 180.0 / 3.14159265358979323846; }

/* particle i, when it counts: free (not fixed or prescribed) and of the material asked */
static bool counted(const tl_world *w, size_t i, const tl_repose_def *def, tl_particle_state *ps) {
    if (tl_world_particle_at(w, i, ps) != TL_OK) return false;
    if (ps->flags & (TL_PARTICLE_FIXED | TL_PARTICLE_PRESCRIBED)) return false;
    return def->material < 0 || ps->material == def->material;
}

tl_status tl_world_repose(const tl_world *w, const tl_repose_def *def, tl_repose *out) {
    if (!w || !def || !out) return TL_ERROR_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->angle_surface = out->angle_centroid = NAN;
    double a[3] = {def->axis.x, def->axis.y, def->axis.z};
    double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    double p0[3] = {def->point.x, def->point.y, def->point.z};
    double la = v3_norm(a);
    if (!(la > 0.0) || !isfinite(la) || !(def->trim >= 0.0 && def->trim < 0.5) ||
        !(def->bin_width >= 0.0) || !isfinite(def->bin_width))
        return TL_ERROR_ARGUMENT;
    v3_scale(a, a, 1.0 / la);
    /* up: against gravity's part across the axis */
    double gp[3];
    v3_copy(gp, g);
    v3_axpy(gp, -v3_dot(g, a), a);
    double lg = v3_norm(gp);
    if (!(lg > 0.0)) return TL_ERROR_ARGUMENT; /* gravity along the axis, or none */
    double ev[3], eu[3];
    v3_scale(ev, gp, -1.0 / lg);
    v3_cross(eu, ev, a);
    /* through the particle queries: on rank 0 of a distributed run writing a record, they
     * answer for every rank's particles */
    const size_t np = tl_world_particle_count(w);
    double mass = 0.0, mu = 0.0, mv = 0.0, umin = INFINITY, umax = -INFINITY, dsum = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < np; i++) {
        tl_particle_state ps;
        if (!counted(w, i, def, &ps)) continue;
        double r[3], x[3] = {ps.position.x, ps.position.y, ps.position.z};
        v3_sub(r, x, p0);
        double u = v3_dot(r, eu), v = v3_dot(r, ev);
        mass += ps.mass;
        mu += ps.mass * u;
        mv += ps.mass * v;
        umin = fmin(umin, u);
        umax = fmax(umax, u);
        dsum += 2.0 * ps.radius;
        n++;
    }
    out->particles = n;
    if (n < 3 || !(mass > 0.0)) return TL_OK;
    out->mass = mass;
    out->centroid_u = mu / mass;
    out->centroid_v = mv / mass;
    out->torque_gravity = mass * lg * out->centroid_u;
    if (out->centroid_v < 0.0) out->angle_centroid = deg(atan2(out->centroid_u, -out->centroid_v));
    /* the free surface */
    double width = def->bin_width > 0.0 ? def->bin_width : 2.0 * dsum / (double)n;
    double span = umax - umin;
    if (!(span > 0.0) || !isfinite(span)) return TL_OK;
    if (span / width > MAX_BINS) width = span / MAX_BINS;
    size_t nb = (size_t)ceil(span / width) + 1;
    double *top = malloc(nb * sizeof *top);
    if (!top) return TL_ERROR_MEMORY;
    for (size_t b = 0; b < nb; b++) top[b] = -INFINITY;
    for (size_t i = 0; i < np; i++) {
        tl_particle_state ps;
        if (!counted(w, i, def, &ps)) continue;
        double r[3], x[3] = {ps.position.x, ps.position.y, ps.position.z};
        v3_sub(r, x, p0);
        double u = v3_dot(r, eu), v = v3_dot(r, ev) + ps.radius;
        size_t b = (size_t)((u - umin) / width);
        if (b >= nb) b = nb - 1;
        if (v > top[b]) top[b] = v;
    }
    /* the middle of the chord: the occupied span less `trim` of it at each end */
    double lo = umin + def->trim * span, hi = umax - def->trim * span;
    double s0 = 0.0, su = 0.0, sv = 0.0, suu = 0.0, suv = 0.0;
    for (size_t b = 0; b < nb; b++) {
        double u = umin + ((double)b + 0.5) * width;
        if (!isfinite(top[b]) || u < lo || u > hi) continue;
        s0 += 1.0;
        su += u;
        sv += top[b];
        suu += u * u;
        suv += u * top[b];
    }
    int bins = (int)s0;
    out->bins = bins;
    if (bins >= 3) {
        double den = s0 * suu - su * su;
        double slope = (s0 * suv - su * sv) / den, icpt = (sv - slope * su) / s0;
        out->angle_surface = deg(atan(slope));
        out->surface_v0 = icpt;
        double ss = 0.0;
        for (size_t b = 0; b < nb; b++) {
            double u = umin + ((double)b + 0.5) * width;
            if (!isfinite(top[b]) || u < lo || u > hi) continue;
            double d = (top[b] - (icpt + slope * u)) / sqrt(1.0 + slope * slope);
            ss += d * d;
        }
        out->surface_rms = sqrt(ss / s0);
    }
    free(top);
    return TL_OK;
}
