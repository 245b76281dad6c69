/*
 * Measurements (measure.c): the live contact records, the collision log's pending exits and
 * records.
 */
#ifndef TL_MEASURE_H
#define TL_MEASURE_H

#include "world.h"

/* Finishes the collisions of this step's pending exits. */
void tl_measure_finish_exits(tl_world *w);
/* Which list a pending exit was noted from (its `list`), from the bodies and faces it names. */
uint8_t tl_measure_pending_list(const tl_world *w, const tl_pending_exit *e);
/* Records a finished collision in the log, with its key (see coll_key). */
tl_status tl_measure_log(tl_world *w, const tl_collision *c, uint64_t key);

#endif
