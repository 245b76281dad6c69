/*
 * Engine hooks the scene layer needs and the public API lacks (to be folded
 * into world.c). Internal.
 */
#ifndef TL_WORLD_QUERY_H
#define TL_WORLD_QUERY_H

#include "talus/talus.h"

/* After particles of a material that had none were added to a prepared
 * world (an inflow's first particles): checks the laws of the pairs that
 * can meet now and prepares their constants, as tl_world_prepare does.
 * Without it the contact stage would meet a pair whose law was never
 * prepared. */
tl_status tl_world_refresh_laws(tl_world *world);

/* While tl_scene_run's step callback runs (on), tl_world_step and tl_world_load_state refuse
 * with a message that says why. */
void tl_world_mark_run_callback(tl_world *world, bool on);

#endif
