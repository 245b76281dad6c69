/*
 * The live contact records, visited (tl_world_each_record): the data the energy sums, the
 * blow-up check and the checkpoint read, whatever stage wrote it.
 */
#ifndef TL_WORLD_RECORDS_H
#define TL_WORLD_RECORDS_H

#include "world.h"

/* The live contact records (touching particle pairs, particle-wall pairs, other shapes' patches)
 * whose first body is one of the count from first: fn(record, user) for each, in that order (a
 * pair between two ranks is held by both: the owner of its first body counts it). */
void tl_world_each_record(const tl_world *w, size_t first, size_t count, void (*fn)(const double *rec, void *user),
                          void *user);

#endif
