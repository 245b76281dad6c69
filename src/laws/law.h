/*
 * A contact law: one sub-model per slot, assembled from the registry, with
 * its coefficients checked against their ranges, its per-contact history
 * laid out slot after slot, and its constants prepared per material pair.
 *
 * Evaluation order for one contact (tl_law_eval):
 *   1. normal      elastic force, stiffness, factor f, elastic energy
 *   2. damping     normal dashpot
 *   3. clamp       optional: a tensile total normal force becomes zero
 *      the force slots (slots.h, TL_CLASS_FORCE), each optional: cohesion, its force added
 *                  (then the sum times the contact's fn_scale: tl_law_eval_scaled)
 *   4. history     the tangential displacement xi (true / pseudo / none)
 *   5. tangential  spring + dashpot + Coulomb limit, rescaling xi when sliding
 *   6. commit      the history mode stores xi
 *   7. the torque slots (slots.h, TL_CLASS_TORQUE), in table order, each optional:
 *                  rolling     a torque against the relative rolling (needs fn)
 *                  twisting    a torque against the relative spin about n (needs fn, and the
 *                              tangential slot's kt, eta_t, mu_t for marshall)
 *                  their torques summed into c->mr
 */
#ifndef TL_LAW_H
#define TL_LAW_H

#include "registry.h"
#include "slots.h"

#define TL_MAX_HIST 32 /* law history values per contact, all slots together */

typedef struct tl_law tl_law;
typedef struct tl_pair_law tl_pair_law;
typedef void (*tl_fused_fn)(const tl_law *law, const tl_pair_law *pl, tl_contact *c, double *hist);

struct tl_law {
    const tl_submodel *sub[TL_SLOT_COUNT];
    double coeff[TL_SLOT_COUNT][TL_MAX_SUB_COEFFS]; /* declared order; NAN = not given */
    int hist_offset[TL_SLOT_COUNT];
    int hist_count;
    bool clamp_tensile;
    tl_coulomb_test coulomb_test;
    tl_contact_point contact_point;
    tl_entry_displacement entry_displacement;
    /* the torque slots with a model other than none, in table order: their slot and their place
     * among the torque slots (tl_contact.tqs, the record's stored energies) */
    int torque_slot[TL_TORQUE_SLOTS];
    int torque_at[TL_TORQUE_SLOTS];
    tl_energy_term torque_dissipated[TL_TORQUE_SLOTS]; /* the ledger's term of each one's losses */
    int torque_count;
    /* the force slots with a model other than none, in table order: their slot and their place among
     * the force slots (tl_contact.fos, the record's force and potential) */
    int force_slot[TL_FORCE_SLOTS];
    int force_at[TL_FORCE_SLOTS];
    tl_energy_term force_dissipated[TL_FORCE_SLOTS]; /* the ledger's term of each one's losses */
    int force_count;
    bool reaches;      /* a force slot acts beyond touch (its row's reach): tl_law_reach */
    bool spins;        /* torque_count > 0: the stages give wr, dth, i_eff and apply c->mr */
    tl_fused_fn fused; /* the composition in one function (fused.h), or NULL */
    int fused_kind;    /* tl_fused_kind */
};

/* The constants of a law prepared for one pair of materials. */
typedef struct tl_pair_law {
    int law;                              /* index into the world's laws, -1 = none */
    double p[TL_SLOT_COUNT][TL_PARAMS];
    /* body a's share of the overlap: the contact point lies (R_a - split delta) from a's
     * centre. Each body takes the share of its compliance: (1 - nu^2)/E (Hertz's
     * approach), else 1/k_n; 1/2 when neither is known. */
    double split;
    double split_b; /* body b's share: 1 - split (the law's contact_point: compliance), or 0
                     * (surface: each lever arm is the body's radius, the papers' point contact) */
    double fused[4]; /* constants of the law's fused kernel (fused.h) */
} tl_pair_law;

/* Resolves names, fills defaults and checks every coefficient against its
 * range. On failure writes a message naming the key and its allowed range. */
tl_status tl_law_assemble(const tl_law_def *def, tl_law *out, char *msg, size_t msg_size);

/* Derives the pair constants for materials a and b. */
tl_status tl_law_prepare(const tl_law *law, const tl_material *a, const tl_material *b,
                         tl_pair_law *out, char *msg, size_t msg_size);

/* "0 < e <= 1" style text of a coefficient's allowed range. */
void tl_coeff_range_text(const tl_coeff_info *ci, char *buf, size_t size);

/* "hertz + tsuji + mindlin + true + rolling epsd": the law's models, for messages (the optional
 * torque slots named with their key, and only when used). */
void tl_law_models_text(const tl_law *law, char *buf, size_t size);

/* The value of a named coefficient in any slot of the law (NAN if absent). */
double tl_law_coeff(const tl_law *law, const char *name);

/* Whether the law's history keeps the tangential displacement over a contact's life (true), or
 * holds only a step's (pseudo, none): a spring that keeps nothing dissipates what it takes. */
static inline bool tl_law_keeps_xi(const tl_law *law) { return law->sub[TL_SLOT_HISTORY]->commit != NULL; }

/* Runs the slots in order on one contact. hist: the contact's law history. fn_scale: the
 * body's normal force per unit of the law's (1 but for the PCM's potential depth, whose delta
 * is a generalised coordinate: narrow.h, tl_patch): the normal and damping slots work in
 * delta, c->fn after the clamp is the body's force, which the Coulomb limit and the rolling
 * model read. */
static inline void tl_law_eval_scaled(const tl_law *law, const tl_pair_law *pl, tl_contact *c, double *hist,
                                      double fn_scale) {
    c->area = 1.0;
    c->eta = 0.0;
    c->yielded = false;
    c->fn_damp = 0.0;
    c->e_el_t = 0.0;
    c->kt_xi = 0.0;
    c->w_t = 0.0;
    c->sliding = false;
    for (int i = 0; i < 3; i++) c->xi[i] = c->ft[i] = c->ft_damp[i] = c->mr[i] = 0.0;
    /* a contact held apart by a force slot's reach (delta < 0): the other slots see touch */
    const double delta = c->delta;
    if (delta < 0.0) c->delta = 0.0;
    law->sub[TL_SLOT_NORMAL]->force(pl->p[TL_SLOT_NORMAL], c, hist + law->hist_offset[TL_SLOT_NORMAL]);
    law->sub[TL_SLOT_DAMPING]->force(pl->p[TL_SLOT_DAMPING], c,
                                     hist + law->hist_offset[TL_SLOT_DAMPING]);
    double fn = c->fn_el + c->fn_damp;
    if (law->clamp_tensile && fn < 0.0) fn = 0.0;
    /* the force slots (cohesion) in table order, after the clamp, at the true overlap */
    if (law->force_count) {
        c->delta = delta;
        c->fn_force = 0.0;
        for (int k = 0; k < law->force_count; k++) {
            const int s = law->force_slot[k];
            law->sub[s]->force(pl->p[s], c, hist + law->hist_offset[s]);
            c->fos[law->force_at[k]] = c->fo;
            c->fn_force += c->fo.f;
        }
        fn += c->fn_force;
        if (delta < 0.0) c->delta = 0.0;
    }
    c->fn = fn * fn_scale;
    const tl_submodel *h = law->sub[TL_SLOT_HISTORY];
    double *hh = hist + law->hist_offset[TL_SLOT_HISTORY];
    h->force(pl->p[TL_SLOT_HISTORY], c, hh);
    law->sub[TL_SLOT_TANGENTIAL]->force(pl->p[TL_SLOT_TANGENTIAL], c,
                                        hist + law->hist_offset[TL_SLOT_TANGENTIAL]);
    if (h->commit) h->commit(pl->p[TL_SLOT_HISTORY], c, hh);
    /* the torque slots in table order; the first of the table sets mr, the others add to it */
    for (int k = 0; k < law->torque_count; k++) {
        const int s = law->torque_slot[k], t = law->torque_at[k];
        law->sub[s]->force(pl->p[s], c, hist + law->hist_offset[s]);
        c->tqs[t] = c->tq;
        if (t == 0)
            for (int i = 0; i < 3; i++) c->mr[i] = c->tq.m[i];
        else
            for (int i = 0; i < 3; i++) c->mr[i] += c->tq.m[i];
    }
    c->delta = delta;
}

/* How far apart (m, >= 0) a formed contact of this law at the radius r_eff still holds: the
 * largest reach of its force slots (0: it ends at separation). */
static inline double tl_law_reach(const tl_law *law, const tl_pair_law *pl, double r_eff) {
    double r = 0.0;
    for (int k = 0; law->reaches && k < law->force_count; k++) {
        const tl_submodel *m = law->sub[law->force_slot[k]];
        if (m->reach) {
            const double x = m->reach(pl->p[law->force_slot[k]], r_eff);
            if (x > r) r = x;
        }
    }
    return r;
}

/* Runs the slots in order on one contact (fn_scale 1). */
static inline void tl_law_eval_slots(const tl_law *law, const tl_pair_law *pl, tl_contact *c,
                                     double *hist) {
    tl_law_eval_scaled(law, pl, c, hist, 1.0);
}

/* A torque slot's history in a contact's law history: its spring torque (3) then its dashpot
 * torque (3) of the last evaluation, what the energy ledger reads (slots.h, TL_CLASS_TORQUE). */
static inline const double *tl_law_torque_hist(const tl_law *law, int slot, const double *hist) {
    return hist + law->hist_offset[slot];
}

/* The same, through the law's fused kernel when it has one (same numbers). */
static inline void tl_law_eval(const tl_law *law, const tl_pair_law *pl, tl_contact *c,
                               double *hist) {
    if (law->fused) law->fused(law, pl, c, hist);
    else tl_law_eval_slots(law, pl, c, hist);
}

#endif
