/*
 * The registry of contact sub-models: ONE table whose rows are the sub-models
 * of every slot (normal, damping, tangential, history, rolling, twisting), each with its
 * coefficients (names, units, defaults, ranges), its per-contact history size,
 * its source, and its kernel (submodel.h).
 *
 * Each slot file (normal.c, damping.c, tangential.c, history.c, rolling.c, twisting.c) holds its
 * kernels next to their rows; registry.c joins the rows into the one table
 * that the law assembly, the scene loader, `talus models` and the docs read.
 * Adding a sub-model is therefore a change to one file: a kernel and its row.
 */
#ifndef TL_REGISTRY_H
#define TL_REGISTRY_H

#include "slots.h"
#include "submodel.h"

/* The one table. */
int tl_registry_size(void);
const tl_submodel *tl_registry_row(int index);
const tl_submodel *tl_registry_lookup(tl_slot slot, const char *name);
/* The registered name closest to `name` in `slot` (for "did you mean"), or NULL. */
const char *tl_registry_suggest(tl_slot slot, const char *name);

#endif
