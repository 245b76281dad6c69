/*
 * The step's stages as the rest of the engine reaches them (step.c).
 */
#ifndef TL_STAGES_H
#define TL_STAGES_H

#include "world.h"

/* A world distributed after its lists were built: each rank takes its share of them
 * (step.c; parallel/decomp.c calls it). */
tl_status tl_world_establish(tl_world *w);
/* A serial world between steps (prepared, its lists built): removes the particles whose keep[i]
 * is 0 and rebuilds the lists now, the contact records carried over by key as at any rebuild
 * (those of the removed particles stay behind); the touching counts follow (step.c). */
tl_status tl_world_rebuild_keeping(tl_world *w, const uint8_t *keep);
/* Stages 2-3 of the step: neighbors, body forces, contact forces. */
tl_status tl_world_compute_forces(tl_world *w, bool accumulate);
/* Lists the particles moved regardless of forces (for the boundary work). */
tl_status tl_world_list_immovable(tl_world *w);

/* The forces at t = 0 (body forces, then the contact stage without
 * accumulation); the first predictor step takes a_-1 = a_0 (prepare.c). */
tl_status tl_world_initial_forces(tl_world *w);
/* the automatic skin of a world prepared with no particles, from those added since (prepare.c) */
tl_status tl_world_size_skin(tl_world *w);

/* The stages of one step (step.c, in the order advance.c runs them): 1 predict; 4 correct; 4 + 1
 * correct and the next step's predict in one pass; 5 finish; and the predictor-corrector's whole
 * step. Stages 2 and 3 are tl_world_compute_forces. */
void tl_stage_predict(tl_world *w);
void tl_stage_correct(tl_world *w);
void tl_stage_correct_predict(tl_world *w);
void tl_stage_finish(tl_world *w);
tl_status tl_stage_pc_step(tl_world *w);

#endif
