/*
 * Domain decomposition over MPI ranks (docs/parallel.md), built so that a run
 * on any number of ranks ends in the same bits as the serial run.
 *
 * The serial engine adds every particle's forces in an order fixed by the
 * storage order and the domains (neighbors.h): internal candidates of a
 * domain at once, cross candidates from their slots in list order. A rank
 * therefore owns whole domains of the global storage order (rank r: domains
 * r ndom / P to (r + 1) ndom / P, balanced by particle count since domains
 * are), holds its particles in that order with ghost copies of the others
 * within reach (those of lower global index before its own, the higher
 * after), and builds the candidate rows of all of them on the grid of the
 * whole: each owned particle then receives the serial additions in the serial
 * order, and a candidate between two ranks is evaluated by both from the same
 * bits. Global sums (energy terms, wall reactions, counts) are gathered per
 * domain and added in domain order; the reorderings of the storage are sorts
 * of the global key list, so every rank knows the serial order.
 *
 * At each neighbor rebuild: the lost particles are removed and the positions
 * wrapped (their energy terms added in global order), the storage reordered
 * when due, the particles migrate to the rank owning their new global index
 * with the contact records that involve them, and the ghosts are exchanged
 * anew. Between rebuilds the ghosts are refreshed after each predict stage.
 */
#ifndef TL_DECOMP_H
#define TL_DECOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decomp_types.h"
#include "talus/talus.h"


/* A particle just appended to a distributed world's store (an insertion during the run,
 * placed alike on every rank): it takes the next global index, on the last rank. */
tl_status tl_decomp_appended(tl_world *w, size_t i);

void tl_decomp_free(tl_world *w);

/* After the predict stage: whether an owned particle of any rank moved more than half
 * the skin (w->broad.moved for the whole). */
void tl_decomp_moved(tl_world *w);
/* The rebuild's first part on a distributed world: removal of the lost particles, the
 * periodic wrap, the reordering when due, the migration; afterwards the rank holds its
 * owned particles only, in global order. */
tl_status tl_decomp_particles(tl_world *w);
/* The first rebuild: every rank holds all particles (the serial part of the rebuild
 * ran on each alike); each keeps its own. */
tl_status tl_decomp_establish(tl_world *w);
/* The rebuild's second part: the frame of the whole and the ghosts around the owned
 * particles; *frame is what tl_neighbors_build needs. */
tl_status tl_decomp_ghosts(tl_world *w, const tl_nb_frame **frame);
/* Between rebuilds, after the predict stage: the ghosts take their owners' state. */
tl_status tl_decomp_refresh(tl_world *w);
/* The contact stage's per-domain sums of all ranks, in domain order. */
tl_status tl_decomp_domain_sums(tl_world *w, const struct tl_block_sum **blocks, const double (**wall_part)[3],
                                const double (**wall_tpart)[3], size_t *ndom);
/* Sums over all ranks that do not depend on the rank count: n maxima in place, and n
 * reproducible partial sums merged exactly (core/rsum.h). Collective. */
struct tl_rsum;
void tl_decomp_max(const tl_world *w, double *v, size_t n);
void tl_decomp_or(const tl_world *w, int *v, size_t n);
void tl_decomp_merge(const tl_world *w, struct tl_rsum *s, size_t n);
/* Every rank's bytes of one size, in rank order, into all (ranks x bytes): the same on every
 * rank. Collective. */
void tl_decomp_gather_fixed(const tl_world *w, const void *mine, size_t bytes, void *all);
/* Stops every rank with a message (out of memory in a collective the others wait in). */
void tl_decomp_abort(const tl_world *w, const char *why);
/* After a serial state was loaded on every rank (collective): each keeps its share of it. */
tl_status tl_decomp_loaded(tl_world *w);
/* After the immovable particles were listed (at a build or a load; collective): whether any
 * rank has some. */
void tl_decomp_note_immovable(tl_world *w);
/* A term of a sum the serial engine adds in storage order, noted; then every rank's noted
 * terms subtracted from *acc one by one in global order (collective), and forgotten. */
void tl_decomp_term(tl_world *w, double t);
void tl_decomp_terms_subtract(tl_world *w, double *acc);
/* tl_external_potential over the ranks (collective). */
double tl_decomp_external_potential(const tl_world *w);
/* Refuses what a distributed world cannot do yet (names it); TL_OK otherwise. */
tl_status tl_decomp_supported(tl_world *w);

#endif
