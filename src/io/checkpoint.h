/*
 * The world's state as bytes (checkpoint.c): the whole state, and the codec of the collision
 * log's records.
 */
#ifndef TL_CHECKPOINT_H
#define TL_CHECKPOINT_H

#include "world.h"

/* The state's bytes of a world held whole (checkpoint.c; tl_world_save_state calls it, or for a
 * distributed world, rank 0 on the world its ranks' pieces make). */
tl_status tl_world_save_serial(const tl_world *w, void **data, size_t *size);
/* The same, with marks[4] (may be NULL): where the particles begin and end, and where the
 * lists (candidates and records, domains, the shape stage, the collision log) begin and end;
 * the bytes outside the marks are the frame, those of the world held whole (decomp_state.c). */
tl_status tl_world_save_marked(const tl_world *w, void **data, size_t *size, size_t marks[4]);
/* A logged collision and a pending exit field by field (the bytes of the state and of its
 * pieces): TL_COLLISION_BYTES and TL_PENDING_BYTES each; a bool other than 0 or 1, or an id
 * beyond 32 bits, fails the read. */
#define TL_COLLISION_BYTES (10 * 8)
#define TL_PENDING_BYTES (12 * 8)
struct tl_wbuf;
struct tl_rbuf;
void tl_collision_put(struct tl_wbuf *b, const tl_collision *c);
void tl_collision_get(struct tl_rbuf *b, tl_collision *c);
void tl_pending_put(struct tl_wbuf *b, const tl_pending_exit *e);
void tl_pending_get(struct tl_rbuf *b, tl_pending_exit *e);

#endif
