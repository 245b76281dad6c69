/*
 * The constant external forces on particles (external.c).
 */
#ifndef TL_EXTERNAL_H
#define TL_EXTERNAL_H

#include "world.h"

const double *tl_external_force_of(const tl_world *w, uint32_t id); /* NULL: none */
void tl_external_apply(tl_world *w);          /* adds them to the particles' forces */
double tl_external_potential(const tl_world *w); /* sum of -F.x, J */
/* Sets the forces of n particles (3 values each; ids checked, each once; a zero force removes
 * one), all or nothing; and drops those of the particles whose keep[i] is 0 (a removal). */
tl_status tl_external_set_many(tl_world *w, const uint32_t *ids, size_t n, const double *f);
void tl_external_drop(tl_world *w, const uint8_t *keep);

#endif
