/*
 * Measurements (measure.c): the live contact records, the collision log's pending exits and
 * records.
 */
#ifndef TL_MEASURE_H
#define TL_MEASURE_H

#include "world.h"

/* The terms of the energy sums (step/energy_terms.h: tl_world_energy_terms). */
enum { TL_TERM_KT, TL_TERM_KR, TL_TERM_POT, TL_TERM_EN, TL_TERM_ET, TL_TERM_ER, TL_TERM_ETW, TL_TERM_COUNT };
/* The live contact records (touching particle pairs, particle-wall pairs, other shapes' patches)
 * whose first body is one of the count from first (step/measure.c). */
void tl_world_each_record(const tl_world *w, size_t first, size_t count, void (*fn)(const double *rec, void *user),
                          void *user);

/* Finishes the collisions of this step's pending exits. */
void tl_measure_finish_exits(tl_world *w);
/* Which list a pending exit was noted from (its `list`), from the bodies and faces it names. */
uint8_t tl_measure_pending_list(const tl_world *w, const tl_pending_exit *e);
/* Records a finished collision in the log, with its key (see coll_key). */
tl_status tl_measure_log(tl_world *w, const tl_collision *c, uint64_t key);

#endif
