#include "bodies.h"

#include <string.h>

#include "rigid.h"
#include "vec.h"

static inline bool turns_freely(const tl_particles *p, size_t i) { return p->inv_inertia[i] > 0.0; }

static inline void moments(const tl_particles *p, const tl_shape *shapes, size_t i, double I[3]) {
    tl_shape_moments(&shapes[p->shape[i]], p->mass[i], I);
}

/* the forces of the new step start with gravity on free bodies */
static inline void reset_forces(tl_particles *p, size_t i, const double g[3]) {
    if (p->inv_mass[i] > 0.0) v3_scale(p->f[i], g, p->mass[i]);
    else v3_zero(p->f[i]);
    v3_zero(p->t[i]);
}

static inline double moved2(const tl_particles *p, size_t i) {
    double d[3];
    v3_sub(d, p->x[i], p->x_ref[i]);
    return v3_norm2(d);
}

int tl_body_predict(tl_particles *p, const tl_shape *shapes, size_t i, double dt, double c1, double c2,
                    const double g[3], double lim2, bool two_step) {
    double im = p->inv_mass[i];
    for (int k = 0; k < 3; k++) {
        double a = p->f[i][k] * im;
        p->x[i][k] += dt * (p->v[i][k] + 0.5 * dt * a);
        p->v[i][k] += two_step ? dt * (c1 * a + c2 * p->f_old[i][k] * im) : dt * (c1 * a);
    }
    if (turns_freely(p, i)) {
        double I[3], Lh[3];
        moments(p, shapes, i, I);
        v3_copy(Lh, p->am[i]);
        v3_axpy(Lh, 0.5 * dt, p->t[i]);
        rigid_free_rotation(p->q[i], I, Lh, dt);
        for (int k = 0; k < 3; k++)
            p->am[i][k] += two_step ? dt * (c1 * p->t[i][k] + c2 * p->t_old[i][k]) : dt * (c1 * p->t[i][k]);
        rigid_omega(p->q[i], I, p->am[i], p->w[i]);
    } else {
        q_rotate_by(p->q[i], p->w[i], dt);
    }
    if (two_step) {
        v3_copy(p->f_older[i], p->f_old[i]);
        v3_copy(p->t_older[i], p->t_old[i]);
    }
    v3_copy(p->f_old[i], p->f[i]);
    v3_copy(p->t_old[i], p->t[i]);
    reset_forces(p, i, g);
    return moved2(p, i) > lim2;
}

void tl_body_correct(tl_particles *p, const tl_shape *shapes, size_t i, double dt, double b1, double b2,
                     bool two_step) {
    double im = p->inv_mass[i];
    for (int k = 0; k < 3; k++)
        p->v[i][k] += two_step ? dt * (0.5 * p->f[i][k] + b1 * p->f_old[i][k] + b2 * p->f_older[i][k]) * im
                               : dt * (0.5 * p->f[i][k]) * im;
    if (!turns_freely(p, i)) return;
    for (int k = 0; k < 3; k++)
        p->am[i][k] += two_step ? dt * (0.5 * p->t[i][k] + b1 * p->t_old[i][k] + b2 * p->t_older[i][k])
                                : dt * (0.5 * p->t[i][k]);
    double I[3];
    moments(p, shapes, i, I);
    rigid_omega(p->q[i], I, p->am[i], p->w[i]);
}

int tl_body_pc_predict(tl_particles *p, const tl_shape *shapes, size_t i, double dt, const double g[3],
                       double lim2) {
    double im = p->inv_mass[i];
    for (int k = 0; k < 3; k++) {
        p->x[i][k] += dt * p->v[i][k];
        p->v[i][k] += dt * p->f[i][k] * im;
    }
    if (turns_freely(p, i)) {
        /* the attitude takes its whole step here, with the mid-step momentum
         * L_n + dt/2 T_n (the sphere's corrector adds that part later) */
        double I[3], Lh[3];
        moments(p, shapes, i, I);
        v3_copy(Lh, p->am[i]);
        v3_axpy(Lh, 0.5 * dt, p->t[i]);
        rigid_free_rotation(p->q[i], I, Lh, dt);
        v3_axpy(p->am[i], dt, p->t[i]);
        rigid_omega(p->q[i], I, p->am[i], p->w[i]);
    } else {
        q_rotate_by(p->q[i], p->w[i], dt);
    }
    v3_copy(p->f_old[i], p->f[i]);
    v3_copy(p->t_old[i], p->t[i]);
    reset_forces(p, i, g);
    return moved2(p, i) > lim2;
}

int tl_body_pc_correct(tl_particles *p, const tl_shape *shapes, size_t i, double dt, const double g[3],
                       double lim2) {
    double im = p->inv_mass[i];
    for (int k = 0; k < 3; k++) {
        p->x[i][k] += 0.5 * dt * dt * p->f_old[i][k] * im;
        p->v[i][k] += 0.5 * dt * (p->f[i][k] - p->f_old[i][k]) * im;
    }
    if (turns_freely(p, i)) {
        double I[3];
        moments(p, shapes, i, I);
        for (int k = 0; k < 3; k++) p->am[i][k] += 0.5 * dt * (p->t[i][k] - p->t_old[i][k]);
        rigid_omega(p->q[i], I, p->am[i], p->w[i]);
    }
    v3_copy(p->f_older[i], p->f[i]);
    v3_copy(p->t_older[i], p->t[i]);
    reset_forces(p, i, g);
    return moved2(p, i) > lim2;
}

void tl_body_drift_velocity(const tl_particles *p, const tl_shape *shapes, size_t i, double dt, double b1,
                            double b2, double vh[3], double wh[3]) {
    double im = p->inv_mass[i];
    for (int k = 0; k < 3; k++)
        vh[k] = p->v[i][k] - dt * (b1 * p->f_old[i][k] + b2 * p->f_older[i][k]) * im;
    if (!turns_freely(p, i)) {
        v3_copy(wh, p->w[i]);
        return;
    }
    double L[3], I[3];
    for (int k = 0; k < 3; k++) L[k] = p->am[i][k] - dt * (b1 * p->t_old[i][k] + b2 * p->t_older[i][k]);
    moments(p, shapes, i, I);
    /* the mean angular velocity of the drift: at the attitude of mid-step (q turned back by
     * half a step), not at its end: the contact points' displacement is then second order */
    double w1[3], qm[4];
    rigid_omega(p->q[i], I, L, w1);
    memcpy(qm, p->q[i], sizeof qm);
    double back[3] = {-w1[0], -w1[1], -w1[2]};
    q_rotate_by(qm, back, 0.5 * dt);
    rigid_omega(qm, I, L, wh);
}
