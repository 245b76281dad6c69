/*
 * The collision log on several ranks (docs/parallel.md, "The collision log").
 *
 * Serially a contact that ends is noted (a pending exit) in the contact
 * stage's list order, the pairs' list then the walls', and finished one step
 * later from both bodies' velocities and forces. On ranks each candidate row
 * belongs to the rank owning its domain, so each rank notes the exits of its
 * own rows, which are the serial ones in the serial order restricted; the ends
 * of an exit are asked of the ranks that own them when it is finished (an
 * exchange each step while the log is on); and the logs of the ranks merge in
 * the serial order by the key of each entry (the step it ended in, the pairs'
 * list before the walls'), ties in rank order.
 */
#ifndef TL_DECOMP_LOG_H
#define TL_DECOMP_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "talus/talus.h"

struct tl_pending_exit;

/* Whether storage index i (-1: absent) is a particle whose motion this rank knows: any stored
 * one serially, an owned one on ranks. */
bool tl_decomp_log_local(const tl_world *w, int64_t i);
/* The rows whose exits this rank logs: pairs [lo[0], hi[0]), wall pairs [lo[1], hi[1]). */
void tl_decomp_log_rows(const tl_world *w, size_t lo[2], size_t hi[2]);
/* Collective: for the pending exits due now, in order, the ends (a, then b unless a wall)
 * that are not local: velocity, force and inverse mass (7 values each, NaN inverse mass
 * when no rank has the particle), from their owners. */
const double (*tl_decomp_log_fetch(tl_world *w))[7];
/* The entries merged below are allocated (tl_mem) with room for tl_decomp_log_cap(count). */
size_t tl_decomp_log_cap(size_t n);
/* This rank's log (which 0) or pending exits (1) as entries (the key of the serial order, the
 * entry field by field: tl_decomp_log_entry_bytes(which) each), appended to b. */
struct tl_wbuf;
size_t tl_decomp_log_entry_bytes(int which);
void tl_decomp_log_pack(const tl_world *w, int which, struct tl_wbuf *b);
/* Every rank's entries (packed as above, concatenated in rank order) in the serial order: the
 * order of their keys, ties in rank order: *out (tl_collision or tl_pending_exit) and *keys
 * (may be NULL). Refuses bytes that are not whole entries or hold values out of range. */
tl_status tl_decomp_log_join(tl_world *w, int which, const unsigned char *in, size_t bytes, void **out,
                             uint64_t **keys, size_t *n);
/* After a serial state was loaded on every rank, before the lists are cut (the store still
 * holds every particle in the global order): each rank keeps the pending exits of its rows,
 * rank 0 the log. */
void tl_decomp_log_loaded(tl_world *w);

#endif
