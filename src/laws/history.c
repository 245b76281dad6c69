/*
 * History slot: how the tangential displacement xi is kept
 * (Fleischmann et al. 2015, section 2).
 *
 *   true    accumulated over the contact's life: xi* = xi_old + dxi (the tangential
 *           displacement of the step, vt dt at the step's half-step velocity), then
 *           projected onto the current contact plane, xi = xi* - (n . xi*) n
 *           (eq. 4); rescaled by the tangential model at the Coulomb limit (eq. 6)
 *   pseudo  a single step, xi = vt dt = dxi (eq. 5); nothing is stored
 *   none    xi = 0: only the tangential dashpot acts
 */
#include <stdio.h>
#include <string.h>

#include "submodel.h"
#include "vec.h"

static void none_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    (void)hist;
    v3_zero(c->xi);
}

static void pseudo_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    (void)hist;
    v3_copy(c->xi, c->dxi);
}

static void true_force(const double *p, tl_contact *c, double *hist) {
    (void)p;
    double x[3];
    v3_copy(x, hist);
    v3_add(x, x, c->dxi);
    v3_reject(c->xi, x, c->n);
}

static void true_commit(const double *p, const tl_contact *c, double *hist) {
    (void)p;
    v3_copy(hist, c->xi);
}

/* a history other than none needs a tangential model to keep the displacement of */
static bool needs_tangential(const char *const models[TL_SLOT_COUNT], char *msg, size_t msg_size) {
    if (strcmp(models[TL_SLOT_TANGENTIAL], "none") != 0) return true;
    snprintf(msg, msg_size,
             "history '%s' has no effect without a tangential model: set history: none or choose a tangential model",
             models[TL_SLOT_HISTORY]);
    return false;
}

const tl_submodel tl_history_models[] = {
    {{TL_SLOT_HISTORY, "true",
      "multi-step tangential displacement: accumulate, project, rescale at Coulomb",
      "Fleischmann et al. 2015 eq. 4, 6", NULL, 0, 3},
     0, NULL, true_force, true_commit, false, needs_tangential, NULL, false},
    {{TL_SLOT_HISTORY, "pseudo", "single-step displacement xi = vt dt",
      "Fleischmann et al. 2015 eq. 5", NULL, 0, 0},
     0, NULL, pseudo_force, NULL, false, needs_tangential, NULL, false},
    {{TL_SLOT_HISTORY, "none", "no tangential displacement (dashpot only)",
      "Fleischmann et al. 2015 section 3", NULL, 0, 0},
     0, NULL, none_force, NULL, false, NULL, NULL, false},
    {{TL_SLOT_HISTORY, NULL, NULL, NULL, NULL, 0, 0}, 0, NULL, NULL, NULL, false, NULL, NULL, false},
};
