/*
 * The neighbor search: a linked-cell grid (counting sort of the particles
 * into cubic cells) and the candidate lists it produces: every
 * particle-particle pair closer than R_a + R_b + skin (each pair once, a =
 * the smaller id), and every particle-wall-face pair closer than R + skin.
 * The lists are rebuilt only when some particle or wall has moved more than
 * half the skin since the last build, so a build costs O(N) and most steps
 * none.
 */
#ifndef TL_NEIGHBORS_H
#define TL_NEIGHBORS_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "contacts.h"
#include "particles.h"
#include "walls.h"

typedef struct tl_neighbors {
    double skin;            /* m */
    /* the grid of the last build */
    double lo[3];
    double h;               /* cell edge, m */
    int64_t dims[3];
    uint32_t *cell_start;   /* ncells + 1 */
    uint32_t *cell_items;   /* particle indices by cell */
    uint32_t *cell_of;      /* cell of each particle */
    size_t cap_cells, cap_items, cap_of;
    /* wall displacement at the last build */
    double (*wall_ref)[3];
    size_t cap_walls;
    int64_t builds;
} tl_neighbors;

void tl_neighbors_init(tl_neighbors *nb, double skin);
void tl_neighbors_free(tl_mem *mem, tl_neighbors *nb);
/* true when a particle or a wall moved more than skin/2 since the last build */
bool tl_neighbors_stale(const tl_neighbors *nb, const tl_particles *p, const tl_walls *w);
/* Rebuilds both candidate lists (slots set to -1) and records the reference
 * positions. Returns 0, or -1 on allocation failure. */
int tl_neighbors_build(tl_mem *mem, tl_neighbors *nb, tl_particles *p, const tl_walls *w,
                       tl_candidates *pp, tl_candidates *pw);

#endif
