/* The tangential force's share of the energy ledger over one step of a contact, the same for the
 * sphere stage (contact_forces.c) and the shape stage (shape_stage.c).
 *
 * The work the bodies did against the tangential force over the step (the trapezoid of the last
 * step's applied force through the last step's geometry and this step's through this one's) is
 * split by what did it:
 *   - the dashpot's part (its force -eta_t v_t, tl_contact.ft_damp): dissipated_tangential_damping;
 *   - a change of the spring's stiffness at a held displacement: a total-form spring (linear,
 *     mindlin, mindlin-renzo: coulomb.h) stores E = 1/2 k_t |xi|^2 with k_t following the overlap
 *     (Mindlin's 8 G* sqrt(R* delta)), so E changes when the load changes with xi held, and no
 *     force did that. By the trapezoid of the spring's force (k_0 xi_0, k_1 xi_1) over xi_1 - xi_0,
 *     E_1 - E_0 - work = 1/2 (k_1 - k_0) xi_0 . xi_1 exactly: tangential_stiffness_work, energy put
 *     in (negative when k_t falls), so that for a constant k_t it is 0 and nothing else is booked
 *     there. It is the energy a total-form spring creates or destroys over load cycles (Li et al.
 *     2022's M1; issue 44);
 *     A model whose energy is its own (mindlin-deresiewicz: a function of its force, of mu P and of
 *     K_t0) reports the same for itself (tl_contact.w_t: its energy of the last force under this
 *     evaluation's P and K_t0, less that under the last's), booked with it;
 *   - the rest: at the Coulomb limit, friction; below it, for a spring of 1/2 k_t |xi|^2 kept over
 *     the contact's life (the true history), the integration's error (integration_residual); for a
 *     model whose energy is its own (mindlin-deresiewicz, kt_xi = 0), the microslip of its
 *     hysteresis, friction; for a spring that keeps nothing (the pseudo and no history: xi is this
 *     step's displacement), a dashpot's loss, dissipated_tangential_damping.
 * A contact that ends takes its spring's stored energy with it: the last force's spring part over
 * the half-drift plus that energy is taken out by the stiffness falling to zero (total-form and
 * constant springs alike: the spring is cut), or, for the other two kinds, booked as above. */
#ifndef TL_TANGENTIAL_BOOKS_H
#define TL_TANGENTIAL_BOOKS_H

#include <stdbool.h>

#include "contacts.h"
#include "submodel.h"
#include "talus/types.h"
#include "vec.h"

typedef struct tl_tangential_books {
    double damping;   /* dissipated_tangential_damping, J */
    double friction;  /* dissipated_friction, J */
    double residual;  /* integration_residual, J */
    double stiffness; /* tangential_stiffness_work (energy put in), J */
} tl_tangential_books;

/* Where a spring's energy goes that is neither the dashpot's nor the stiffness's (see above).
 * held: the history keeps xi over the contact's life (a history slot with a commit). */
static inline tl_energy_term tl_tangential_rest_term(bool held, bool sliding, double kt_xi) {
    if (sliding) return TL_ENERGY_DISSIPATED_FRICTION;
    if (!held) return TL_ENERGY_DISSIPATED_TANGENTIAL_DAMPING;
    return kt_xi > 0.0 ? TL_ENERGY_INTEGRATION_RESIDUAL : TL_ENERGY_DISSIPATED_FRICTION;
}

static inline void tl_tangential_book_rest(tl_tangential_books *b, tl_energy_term t, double x) {
    if (t == TL_ENERGY_DISSIPATED_FRICTION) b->friction += x;
    else if (t == TL_ENERGY_DISSIPATED_TANGENTIAL_DAMPING) b->damping += x;
    else if (t == TL_ENERGY_INTEGRATION_RESIDUAL) b->residual += x;
    else b->stiffness -= x; /* the spring cut: its energy taken out */
}

/* A live contact's step. be: its energy group as the last step left it; ft_prev, ds_prev: the
 * last step's applied tangential force and the slip over this drift at the geometry it was applied
 * with (zero for a new contact); ft_app, ds: this step's; c: this evaluation. */
static inline tl_tangential_books tl_tangential_step(const double *be, const tl_contact *c, bool held,
                                                     const double ft_prev[3], const double ds_prev[3],
                                                     const double ft_app[3], const double ds[3]) {
    tl_tangential_books b = {0.0, 0.0, 0.0, 0.0};
    const double absorbed = -0.5 * (v3_dot(ft_prev, ds_prev) + v3_dot(ft_app, ds));
    b.damping = -0.5 * (v3_dot(be + TL_BE_FTD, ds_prev) + v3_dot(c->ft_damp, ds));
    if (held) b.stiffness = 0.5 * (c->kt_xi - be[TL_BE_KT]) * v3_dot(be + TL_BE_XI, c->xi) + c->w_t;
    const double rest = absorbed + b.stiffness - (c->e_el_t - be[TL_BE_E_T]) - b.damping;
    tl_tangential_book_rest(&b, tl_tangential_rest_term(held, c->sliding, c->kt_xi), rest);
    return b;
}

/* The books added to a ledger. */
static inline void tl_tangential_add(tl_energy *e, const tl_tangential_books *b) {
    e->dissipated_tangential_damping += b->damping;
    e->dissipated_friction += b->friction;
    e->integration_residual += b->residual;
    e->tangential_stiffness_work += b->stiffness;
}

/* What a live contact's step stores for the next one. */
static inline void tl_tangential_store(double *be, const tl_contact *c) {
    be[TL_BE_E_T] = c->e_el_t;
    be[TL_BE_KT] = c->kt_xi;
    v3_copy(be + TL_BE_XI, c->xi);
    v3_copy(be + TL_BE_FTD, c->ft_damp);
}

/* The term that takes a contact's spring when the contact ends: the stiffness work (the spring
 * cut) for a spring of 1/2 k_t |xi|^2 kept over the contact's life, else as a step's rest (the
 * last evaluation was not at the limit, or the spring would hold nothing). */
static inline tl_energy_term tl_tangential_exit_term(const double *be, bool held) {
    if (held && be[TL_BE_KT] > 0.0) return TL_ENERGY_TANGENTIAL_STIFFNESS_WORK;
    return tl_tangential_rest_term(held, false, be[TL_BE_KT]);
}

/* A contact that ended during this drift: the last step's force over half of it (ds_half: the
 * slip over the drift at the last geometry, half of which the last force still acts through) and
 * the energy the spring held. */
static inline tl_tangential_books tl_tangential_exit(const double *be, bool held, const double ft_prev[3],
                                                     const double ds[3]) {
    tl_tangential_books b = {0.0, 0.0, 0.0, 0.0};
    b.damping = -0.5 * v3_dot(be + TL_BE_FTD, ds);
    const double rest = -0.5 * v3_dot(ft_prev, ds) + be[TL_BE_E_T] - b.damping;
    tl_tangential_book_rest(&b, tl_tangential_exit_term(be, held), rest);
    return b;
}

#endif
