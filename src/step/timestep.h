/*
 * The step bound and the step to use (timestep.c).
 */
#ifndef TL_TIMESTEP_H
#define TL_TIMESTEP_H

#include "world.h"

/* Computes the step bound and the step to use (fills w->clock.ts, w->clock.dt). */
tl_status tl_timestep_compute(tl_world *w);
/* The characteristic impact speed of the scene (0 when none). */
double tl_timestep_impact_speed(const tl_world *w);

#endif
