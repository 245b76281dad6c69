/*
 * Reordering the particles along a space-filling curve (Morton / Z-order), so
 * that particles close in space sit close in memory: the force loop then
 * reads neighbors from the same cache lines. Done at a neighbor rebuild,
 * before the search; the order is a function of the positions alone.
 */
#ifndef TL_REORDER_H
#define TL_REORDER_H

#include <stdint.h>

#include "alloc.h"
#include "particles.h"

/* Sorts the particles by the Morton code of their cell in a grid of cell
 * width `cell` from `lo` (stable: equal codes keep their order). */
int tl_reorder_morton(tl_mem *mem, tl_particles *p, const double lo[3], double cell);

/* The Morton code of x's cell (the one tl_reorder_morton sorts by). */
uint64_t tl_morton_key(const double x[3], const double lo[3], double cell);
/* Stable sort of n keys: ord[k] receives the index of the k-th smallest (equal keys in
 * index order). key and ord need 2 n entries (the upper halves are scratch); key is
 * left sorted. */
void tl_sort_keys(uint64_t *key, uint32_t *ord, size_t n);

#endif
