/*
 * The shape stage over ranks (docs/parallel.md, "Mesh walls on ranks").
 *
 * The shape stage's candidates of a rank are those of its own rows (a particle
 * it owns against a mesh face), in the serial candidate order restricted, so
 * the concatenation of the ranks' lists in rank order is the serial list.
 * Each rank works out its candidates' patches and forces on its own; the sums
 * of the whole (the walls' reactions, the energy ledger, the touching count),
 * which the serial stage adds candidate after candidate, are added by every
 * rank from every rank's slots, gathered in rank order. The patch records of a
 * migrating particle travel with it; a checkpoint gathers the candidates and
 * their records in the serial order, and loading one, each rank keeps those
 * of its rows.
 */
#ifndef TL_DECOMP_SHAPES_H
#define TL_DECOMP_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ranks.h"
#include "shape_contacts.h"
#include "talus/talus.h"

/* Collective: every rank's slots (TL_SS_COUNT values) and faces of its own rows (a pair
 * between two ranks is on both lists: the rank whose domain found it has it as its own), in the
 * serial order, to `add`. */
tl_status tl_decomp_shape_sums(tl_world *w, const double *slots, const int32_t *face, size_t n, tl_shape_sum_fn add);
/* Whether shape candidate k was found by one of this rank's own domains (always serially). */
bool tl_decomp_own_shape(const tl_world *w, size_t k);
/* The bodies other than spheres among the stored particles (w->shapes.nbodies), after the store
 * changed. */
void tl_decomp_count_bodies(tl_world *w);
/* Collective, in a rebuild after the stash: the patch records of the particles that migrate
 * (dest[i]: the new rank of stored particle i) to their new ranks, adopted there. */
tl_status tl_decomp_shapes_migrate(tl_world *w, const int *dest);
/* This rank's share of the shape stage for a checkpoint, appended to b: the candidates of its
 * own rows (which 0: four values each, global indices and domain), or their live records
 * (which 1: the record and its state). */
struct tl_wbuf;
void tl_decomp_shapes_pack(const tl_world *w, int which, struct tl_wbuf *b);
/* Every rank's share (packed as above, each concatenated in rank order) as the serial shape
 * stage (*out, freed with tl_shape_contacts_free), records of `stride` values, with the touching
 * count of the whole.
 * Refuses entries that are not whole or do not agree. */
tl_status tl_decomp_shapes_join(tl_world *w, const unsigned char *cand, size_t cand_bytes, const unsigned char *recs,
                                size_t rec_bytes, int stride, uint64_t touching, tl_shape_contacts *out);
/* After a serial state was loaded on every rank (partitioned, before the lists are cut): the
 * candidates that involve one of this rank's particles (global indices [g_lo, g_hi)), with
 * their records, as a build would list them: particle indices through loc (global -> local),
 * domains local (the ghosts' domains below, when has_below, then ours, then those above). */
tl_status tl_decomp_shapes_loaded(tl_world *w, const uint32_t *loc, bool has_below);

#endif
