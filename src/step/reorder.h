/*
 * Reordering the particles, so that particles close in space sit close in
 * memory and every domain of the storage order (neighbors.h: domain d holds
 * indices d n / ndom to (d + 1) n / ndom - 1, the unit of the threads' work
 * and of the MPI ranks' ownership) is a compact box of space.
 *
 * The particles are first sorted by the cell of a grid they lie in, row by
 * row (x fastest, then y, then z: the order of LAMMPS's atom sort and of a
 * lattice data file). Then the range of domains [d0, d1) is cut in two at
 * dm = (d0 + d1) / 2, the first half taking the (dm - d0) n / ndom particles
 * lowest along the axis whose cut is smallest (the box's cross-section,
 * doubled across a periodic axis not yet cut, whose wrap is a second face),
 * ties in the sorted order; each half keeps that order, and is cut again
 * until one domain is left. A domain is then a box of the bisection, row by
 * row inside (a row-major order restricted to a box is the box's own): the
 * pairs across two domains (the cross candidates, whose forces wait for their
 * slots) and a rank's ghosts are those of a box's faces, and the partners of
 * a particle lie in three rows, which the prefetcher follows. A Morton curve,
 * the order before 2026-11-28, left ragged segments (the 10^5 bed: 33,044
 * cross candidates against 14,972 cut; docs/bench.md has the times).
 *
 * Done at a neighbor rebuild, before the search; the order is a function of
 * the positions, the previous order (between particles in one cell) and ndom
 * alone: never of the thread or rank count.
 */
#ifndef TL_REORDER_H
#define TL_REORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "particles.h"
#include "talus/types.h"

typedef struct tl_order_frame {
    double lo[3];      /* the grid's origin, m */
    double cell;       /* its cell width, m */
    size_t ndom;       /* the domains the order is cut into (1: the rows alone) */
    bool periodic[3];  /* axes that wrap */
} tl_order_frame;

/* Whether a reordering is due at this neighbor build of a world of n particles (all ranks'):
 * reorder_every < 0 never; 0 (automatic) for 1000 particles or more at every build before the
 * first step (particles may come after the world was prepared: a data file, a script) and every
 * 20 builds after it. Counts the builds between (the world's builds_since_reorder). */
bool tl_reorder_due(tl_world *w, uint64_t n);

/* This rank's part of the frame's extent: lo[0..2] the particles' lowest coordinates, lo[3]
 * the smallest radius (INFINITY without particles). */
void tl_order_extent(const tl_particles *p, double lo[4]);

/* The frame of a world of n particles from the extent (of all ranks): cells 2 R_min + skin
 * wide from the lowest corner, the contact stage's domain count, the periodic axes. */
tl_order_frame tl_order_frame_of(const tl_world *w, const double lo[4], uint64_t n);

/* The new order of n particles at x: ord[k] receives the index of the one that goes to k.
 * ord needs 2 n entries (the upper half is scratch). 0 on success, -1 out of memory. */
int tl_reorder_order(tl_mem *mem, const double (*x)[3], size_t n, const tl_order_frame *f, uint32_t *ord);

/* Puts the particles in tl_reorder_order's order. 0 on success, -1 out of memory. */
int tl_reorder_particles(tl_mem *mem, tl_particles *p, const tl_order_frame *f);

#endif
