/*
 * The blow-up check (blowup.c).
 */
#ifndef TL_BLOWUP_H
#define TL_BLOWUP_H

#include "world.h"

/* Blow-up detection (step/blowup.c): the energy reference, and the check. */
void tl_blowup_reference(tl_world *w);
tl_status tl_blowup_check(tl_world *w);

#endif
