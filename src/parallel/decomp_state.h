/*
 * A distributed world's state saved as the serial run's (decomp_state.c, docs/parallel.md).
 */
#ifndef TL_DECOMP_STATE_H
#define TL_DECOMP_STATE_H

#include <stddef.h>

#include "talus/talus.h"

/* A distributed world's state (collective): rank 0 gets the serial run's bytes (the owned
 * particles and the owned domains' candidate rows of every rank, put together); the others
 * get nothing. */
tl_status tl_decomp_save_state(const tl_world *w, void **data, size_t *size);

#endif
