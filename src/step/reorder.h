/*
 * Reordering the particles along a space-filling curve (Morton / Z-order), so
 * that particles close in space sit close in memory: the force loop then
 * reads neighbors from the same cache lines. Done at a neighbor rebuild,
 * before the search; the order is a function of the positions alone.
 */
#ifndef TL_REORDER_H
#define TL_REORDER_H

#include "alloc.h"
#include "particles.h"

/* Sorts the particles by the Morton code of their cell in a grid of cell
 * width `cell` from `lo` (stable: equal codes keep their order). */
int tl_reorder_morton(tl_mem *mem, tl_particles *p, const double lo[3], double cell);

#endif
