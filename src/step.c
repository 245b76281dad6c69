/*
 * The time step, stage by stage, in this order:
 *
 *   1. predict    positions x += dt (v + dt/2 a), orientations turned by the
 *                 half-step angular velocity, and the velocity the forces will
 *                 see, v* = v + dt (c1 a_n + c2 a_n-1): verlet predicts the
 *                 end-of-step velocity to second order (c1 = 3/2, c2 = -1/2,
 *                 Adams-Bashforth), leapfrog uses the half step (c1 = 1/2,
 *                 c2 = 0, as LAMMPS and LIGGGHTS); walls move
 *   2. neighbors  particles outside the domain are removed; the candidate
 *                 lists are rebuilt if something moved more than half the
 *                 skin, and the contact records re-bound to them by key
 *   3. forces     body forces (gravity on free particles), then the contact
 *                 stage (contact_forces.c)
 *   4. correct    v_{n+1} = v_n + dt/2 (a_n + a_{n+1}) for translation and rotation
 *                 (whatever the predictor: the trajectory is velocity Verlet)
 *   5. finish     boundary work of walls and prescribed bodies, collisions
 *                 that ended, time advances
 *
 * The integration is second order (velocity Verlet); the quaternion update is
 * the exact rotation by the half-step angular velocity over dt (Li et al. 2022
 * eq. 19 integrated exactly for a constant angular velocity).
 */
#include <math.h>
#include <string.h>

#include "vec.h"
#include "world.h"

/* ---- 1. predict ---- */

static void stage_predict(tl_world *w) {
    tl_particles *p = &w->p;
    const double dt = w->dt, c1 = w->c_pred[0], c2 = w->c_pred[1];
    for (size_t i = 0; i < p->count; i++) {
        double im = p->inv_mass[i], ii = p->inv_inertia[i];
        double *vh = p->vh[i], *wh = p->wh[i];
        for (int k = 0; k < 3; k++) {
            double a = p->f[i][k] * im, al = p->t[i][k] * ii;
            double a1 = p->f_old[i][k] * im, al1 = p->t_old[i][k] * ii;
            vh[k] = p->v[i][k] + 0.5 * dt * a;
            wh[k] = p->w[i][k] + 0.5 * dt * al;
            p->x[i][k] += dt * vh[k];
            p->v[i][k] += dt * (c1 * a + c2 * a1);
            p->w[i][k] += dt * (c1 * al + c2 * al1);
        }
        q_rotate_by(p->q[i], wh, dt);
        v3_copy(p->f_older[i], p->f_old[i]);
        v3_copy(p->t_older[i], p->t_old[i]);
        v3_copy(p->f_old[i], p->f[i]);
        v3_copy(p->t_old[i], p->t[i]);
    }
    tl_walls_advance(&w->walls, dt);
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
            if (!(p->x[i][k] >= lo[k] && p->x[i][k] <= hi[k])) {
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
            if (!(p->x[i][k] >= lo[k] && p->x[i][k] <= hi[k])) keep[i] = 0;
        if (!keep[i] && p->inv_mass[i] > 0.0) {
            /* the energy it carries leaves the system through the boundary */
            double ke = 0.5 * p->mass[i] * v3_norm2(p->v[i]);
            if (p->inv_inertia[i] > 0.0) ke += 0.5 * p->inertia[i] * v3_norm2(p->w[i]);
            double pe = -p->mass[i] * v3_dot(g, p->x[i]);
            w->ledger.boundary_work -= ke + pe;
        }
    }
    size_t n = p->count;
    int r = tl_particles_compact(&w->mem, p, keep);
    tl_mem_free(&w->mem, keep, n);
    if (r != 0) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    w->removed += lost;
    w->neighbors_dirty = true;
    return TL_OK;
}

static tl_status stage_neighbors(tl_world *w) {
    if (!w->neighbors_dirty && !tl_neighbors_stale(&w->nb, &w->p, &w->walls)) return TL_OK;
    tl_status s = remove_lost(w);
    if (s != TL_OK) return s;
    if (tl_neighbors_build(&w->mem, &w->nb, &w->p, &w->walls, &w->pp, &w->pw) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (neighbor lists)");
    if (tl_contacts_rebind(&w->mem, &w->ct, &w->pp, &w->pw, w->p.id) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (contact table)");
    w->neighbors_dirty = false;
    return TL_OK;
}

/* ---- 3. forces ---- */

tl_status tl_world_compute_forces(tl_world *w, bool accumulate) {
    tl_status s = stage_neighbors(w);
    if (s != TL_OK) return s;
    tl_particles *p = &w->p;
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    for (size_t i = 0; i < p->count; i++) {
        if (p->inv_mass[i] > 0.0) v3_scale(p->f[i], g, p->mass[i]);
        else v3_zero(p->f[i]);
        v3_zero(p->t[i]);
    }
    return tl_contact_forces(w, accumulate);
}

/* ---- 4. correct ---- */

static void stage_correct(tl_world *w) {
    tl_particles *p = &w->p;
    const double dt = w->dt, b1 = 0.5 - w->c_pred[0], b2 = -w->c_pred[1];
    for (size_t i = 0; i < p->count; i++) {
        double im = p->inv_mass[i], ii = p->inv_inertia[i];
        for (int k = 0; k < 3; k++) {
            p->v[i][k] += dt * (0.5 * p->f[i][k] + b1 * p->f_old[i][k] + b2 * p->f_older[i][k]) * im;
            p->w[i][k] += dt * (0.5 * p->t[i][k] + b1 * p->t_old[i][k] + b2 * p->t_older[i][k]) * ii;
        }
    }
}

/* ---- 5. finish ---- */

static void stage_finish(tl_world *w) {
    tl_particles *p = &w->p;
    const double dt = w->dt;
    /* work done on the particles by bodies that move regardless of forces */
    double work = 0.0;
    for (size_t i = 0; i < p->count; i++) {
        if (p->inv_mass[i] == 0.0) {
            double f[3];
            v3_add(f, p->f[i], p->f_old[i]);
            work -= 0.5 * dt * v3_dot(f, p->v[i]);
        }
        if (p->inv_inertia[i] == 0.0) {
            double t[3];
            v3_add(t, p->t[i], p->t_old[i]);
            work -= 0.5 * dt * v3_dot(t, p->w[i]);
        }
    }
    for (size_t k = 0; k < w->walls.count; k++) {
        const tl_wall *wl = &w->walls.w[k];
        double f[3];
        v3_add(f, wl->force, wl->force_prev);
        work -= 0.5 * dt * v3_dot(f, wl->vel);
    }
    w->ledger.boundary_work += work;
    w->time += dt;
    w->steps++;
    /* a collision's outgoing velocity is complete one step after it ended:
     * the last force's second half-kick lands then */
    if (w->npend) tl_measure_finish_exits(w);
}

tl_status tl_world_step(tl_world *w, int64_t steps) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (steps < 0) return tl_world_fail(w, TL_ERROR_ARGUMENT, "step count must be >= 0");
    tl_status s = tl_world_prepare(w);
    if (s != TL_OK) return s;
    if (w->neighbors_dirty) {
        /* particles or walls were added since the last step: their laws must exist */
        s = tl_world_check_laws(w);
        if (s != TL_OK) return s;
    }
    for (int64_t n = 0; n < steps; n++) {
        stage_predict(w);
        s = tl_world_compute_forces(w, true);
        if (s != TL_OK) return s;
        stage_correct(w);
        stage_finish(w);
    }
    return TL_OK;
}
