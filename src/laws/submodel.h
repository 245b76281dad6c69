/*
 * A contact sub-model's interface: the per-contact evaluation record (tl_contact), what a
 * sub-model's prepare function is given (tl_prep), and the row every sub-model of every slot
 * has (tl_submodel: its coefficients, history size, source, prepare and kernel), with the
 * helpers the kernels share. A slot file (normal.c, damping.c, tangential.c, history.c,
 * rolling.c, twisting.c) includes this header only; registry.c joins the slot files' rows into
 * the one table, and law.c assembles a law from the table's rows.
 *
 * Kernels are stateless: they read the constants their prepare function
 * derived for a pair of materials, and the per-contact record tl_contact,
 * which lives on the stack of the caller.
 */
#ifndef TL_SUBMODEL_H
#define TL_SUBMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "materials.h"
#include "talus/types.h"

#define TL_PARAMS 12          /* derived constants per sub-model and material pair */
#define TL_MAX_SUB_COEFFS 8   /* coefficients per sub-model */

/* What a normal model provides, and what a damping model accepts. */
enum tl_normal_kind {
    TL_NORMAL_KIND_LINEAR = 1u << 0,   /* F = k delta; c->k = k (N/m) */
    TL_NORMAL_KIND_HERTZIAN = 1u << 1, /* F = K delta^3/2; c->k = K (N/m^1.5) */
    TL_NORMAL_KIND_ADAPTIVE = 1u << 2, /* stiffness and dashpot set per collision (c->eta) */
    TL_NORMAL_KIND_PLASTIC = 1u << 3,  /* loading and unloading differ: its hysteresis is plastic work */
    TL_NORMAL_KIND_YIELDING = 1u << 4, /* Hertzian below a yield overlap, linear above (c->yielded) */
    TL_NORMAL_KIND_ANY = 0xffu
};

/* The torque slots (slots.h): rolling and twisting. A torque slot's place among them is its
 * output's index in tl_contact.tqs and its stored energy's in a contact record. */
#define TL_TORQUE_SLOTS 2

/* The force slots (slots.h, TL_CLASS_FORCE): cohesion. */
#define TL_FORCE_SLOTS 1

/* What a force slot's kernel gives (c->fo). */
typedef struct tl_force_out {
    double f; /* its normal force, N (> 0 repulsive: an adhesive force is negative), in delta's units
               * (the body's force is f times the contact's fn_scale, as the normal slot's) */
    double e; /* its potential, J, with f = dU/d delta, relative to where it stops acting (an adhesive
               * contact's is negative) */
} tl_force_out;

/* What a torque slot's kernel gives (c->tq). */
typedef struct tl_torque_out {
    double m[3];      /* its torque on a (b takes -m), N m */
    double m_damp[3]; /* its dashpot part, N m */
    double e_el;      /* the elastic energy in its spring, J */
    bool slip;        /* at its limit (full mobilisation) */
} tl_torque_out;

/* The per-contact evaluation record. The caller fills the inputs, then the
 * law runs its slots in order: normal, damping, (clamp), history update,
 * tangential, history commit, the torque slots. */
typedef struct tl_contact {
    /* inputs: geometry and kinematics */
    double delta;      /* overlap, m (> 0 touching) */
    double delta_rate; /* d delta / dt, m/s (> 0 approaching) */
    double n[3];       /* unit normal from body a to body b */
    double vt[3];      /* tangential velocity of a relative to b at the contact point, m/s
                        * (the predicted end-of-step one: what the dashpots see) */
    double dxi[3];     /* tangential displacement of the contact points over this step's
                        * drift, m (zero when the evaluation must not move the history) */
    double r_eff;      /* R* = Ra Rb / (Ra + Rb); Ra for a wall, m */
    double m_eff;      /* m* = ma mb / (ma + mb); ma for a wall or a fixed partner, kg */
    double dt;         /* s */
    bool first;        /* the contact began in this step */
    double v_impact;   /* approach speed at first touch, m/s (>= 0 approaching) */
    bool ledger;       /* the stage keeps the energy ledger: a model computes what only the ledger
                        * reads (w_t) only then */
    /* inputs read by the torque slots only (a law without one leaves them unset) */
    double wr[3];      /* angular velocity of a relative to b (w_a - w_b), rad/s */
    double dth[3];     /* rotation of a relative to b over this step's drift, rad (zero when the
                        * evaluation must not move the history) */
    double i_eff;      /* equivalent moment of inertia for relative rolling, kg m^2:
                        * 1 / (1/(I_a + m_a l_a^2) + 1/(I_b + m_b l_b^2)) */
    /* inputs read by the force slots only (a law without one leaves them unset) */
    double ra, rb;     /* the bodies' radii at the contact, m (rb infinite for a wall) */

    /* normal slot */
    double fn_el;      /* elastic normal force, N (> 0 repulsive) */
    double k;          /* linear: k (N/m); Hertzian: K in F = K delta^3/2 (N/m^1.5) */
    double area;       /* the factor f of Fleischmann et al. 2015 eq. 1: 1 or sqrt(R* delta) */
    double e_el_n;     /* elastic energy stored in the normal spring (recoverable), J */
    double eta;        /* dashpot coefficient chosen by an adaptive normal model, N s/m */
    bool yielded;      /* a yielding normal model is beyond its yield overlap */
    /* damping slot */
    double fn_damp;    /* N (> 0 opposing approach) */
    /* force slots (cohesion: slots.h, TL_CLASS_FORCE), added after the clamp */
    tl_force_out fo;   /* the output of the force slot being evaluated: its kernel writes it */
    tl_force_out fos[TL_FORCE_SLOTS]; /* each force slot's output, by its place (slots.c) */
    double fn_force;   /* the force slots' forces together, N (in delta's units, as fn_el) */
    /* after the clamp and the force slots */
    double fn;         /* total normal force, N (> 0 repulsive) */
    /* history + tangential slots */
    double xi[3];      /* tangential displacement from the history mode, m */
    double ft[3];      /* tangential force on a, N */
    double ft_damp[3]; /* its dashpot part, N */
    double e_el_t;     /* elastic energy in the tangential spring, J */
    bool sliding;      /* at the Coulomb limit in this step */
    double kt;         /* the tangential spring's stiffness of this evaluation, N/m (0: none) */
    double kt_xi;      /* the stiffness of a spring whose energy is 1/2 kt_xi |xi|^2 (coulomb.h: the
                        * linear and mindlin models), 0 for a model whose energy is its own
                        * (mindlin-deresiewicz): the stages book the energy a change of it puts in
                        * at a held xi as tangential_stiffness_work (step/tangential_books.h) */
    double w_t;        /* what a change of such a model's own parameters put into its stored energy
                        * at a held state in this evaluation, J (mindlin-deresiewicz: P and K_t0 at
                        * the held force), booked with the stage's share of kt_xi */
    double eta_t;      /* the tangential dashpot's coefficient of this evaluation, N s/m */
    double mu_t;       /* the tangential slot's friction coefficient */
    /* torque slots (rolling, twisting: slots.h, TL_CLASS_TORQUE) */
    double mr[3];      /* the contact's torque on a of all its torque slots (b takes -mr), N m */
    tl_torque_out tq;  /* the output of the torque slot being evaluated: its kernel writes it */
    tl_torque_out tqs[TL_TORQUE_SLOTS]; /* each torque slot's output, by its place (slots.c) */
} tl_contact;

typedef struct tl_law tl_law;

/* Input to a sub-model's prepare function: the two materials of the pair
 * (b is the wall's material for particle-wall contacts), the coefficient
 * values of this sub-model in declared order (NAN = not given), and the
 * law, for sub-models that read a coefficient of another slot. */
typedef struct tl_prep {
    const tl_material *a, *b;
    const double *coeff;
    const tl_law *law;
    /* what a sub-model may read of the law it is part of: a coefficient of any slot by name
     * (NAN: not given), and the law's Coulomb test (coulomb.h). The law fills them (law.c):
     * a slot file knows the sub-model's interface, never the law's assembly */
    double (*law_coeff)(const tl_law *law, const char *name);
    int coulomb_test;
    const double *normal_params; /* the pair's prepared normal constants */
    char *msg;                   /* message on failure */
    size_t msg_size;
} tl_prep;

typedef struct tl_submodel {
    tl_submodel_info info;   /* slot, name, summary, source, coefficients, history size */
    unsigned normal_kind;    /* normal: what it provides; damping: which normal kinds it accepts */
    /* Derives the pair constants into params[TL_PARAMS]; returns TL_OK or
     * writes a message naming the missing or invalid property. May be NULL. */
    tl_status (*prepare)(const tl_prep *in, double *params);
    /* The kernel; hist points at this sub-model's history values. */
    void (*force)(const double *params, tl_contact *c, double *hist);
    /* History slot only: stores the tangential displacement after the tangential force. */
    void (*commit)(const double *params, const tl_contact *c, double *hist);
    /* reads c->v_impact, the approach speed at first touch (kept in the contact record) */
    bool uses_impact_speed;
    /* What it needs of the law's other slots, checked when the law is assembled: writes a message
     * and returns false when the law does not give it (NULL: nothing). models[s] is the name of
     * the sub-model in slot s. */
    bool (*fits)(const char *const models[TL_SLOT_COUNT], char *msg, size_t msg_size);
    /* A force slot that acts beyond touch once its contact formed (JKR): how far apart, m (>= 0),
     * the contact at the radius r_eff still holds; the stages keep it (the other slots seeing
     * zero overlap) while delta > -reach. NULL: it stops at separation. */
    double (*reach)(const double *params, double r_eff);
    /* A force slot that reads the two bodies' radii (c->ra, c->rb: two spheres' geometry, as
     * sjkr's intersection of two spheres): a pair of the shape stage (a body with a shape, a
     * mesh wall) gives only the contact's equivalent radius, and refuses it. */
    bool uses_radii;
} tl_submodel;

/* Index of a coefficient in a sub-model, or -1. */
int tl_submodel_coeff_index(const tl_submodel *s, const char *name);

/* Helpers shared by the kernels. */
/* beta(e) = -ln e / sqrt(ln^2 e + pi^2): the damping ratio of a linear
 * oscillator whose restitution is e (Li et al. 2022 Appendix A eq. A4). */
double tl_damping_ratio(double e);
int tl_prep_fail(const tl_prep *in, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
