/*
 * The contact stage (contact_forces.c).
 */
#ifndef TL_CONTACT_STAGE_H
#define TL_CONTACT_STAGE_H

#include "world.h"

/* Evaluates every candidate pair: forces, torques, records, energy.
 * accumulate = false for the initial evaluation before the first step. */
tl_status tl_contact_forces(tl_world *w, bool accumulate);

#endif
