/*
 * The checks a change of many particles shares (world_edit.c; the removal, step/remove.c).
 */
#ifndef TL_WORLD_EDIT_H
#define TL_WORLD_EDIT_H

#include "world.h"

/* A world spread over ranks keeps its particles apart: these calls are serial (or before the
 * world is prepared, when every rank makes the same calls). TL_OK or the error, set. */
tl_status tl_edit_refuse_distributed(tl_world *w, const char *what);
/* Each id's storage index into idx (n of them), every id known and given once; mark has
 * room for the store (zeroed here). TL_OK or the error, set. */
tl_status tl_edit_find_all(tl_world *w, const char *what, const uint32_t *ids, size_t n, size_t *idx,
                           uint8_t *mark);
/* The rotational kinetic energy of particle i as the ledger counts it. */
double tl_edit_spin_energy(const tl_particles *p, size_t i);

#endif
