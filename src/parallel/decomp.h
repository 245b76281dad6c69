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

#include "comm.h"
#include "neighbors.h"
#include "talus/talus.h"

struct tl_block_sum;

/* What the ranks cost this rank, counted since the world was spread (tl_world_parallel_stats) */
typedef struct tl_decomp_cost {
    double pack_s, exchange_s, unpack_s; /* ghost refreshes: packing, the exchange, unpacking */
    double sums_s;                       /* the gathers of the domain sums */
    double rebuild_s;                    /* the distributed parts of rebuilds */
    uint64_t refreshes, sums, rebuilds;
    uint64_t packed, unpacked;           /* particles packed and unpacked in refreshes */
    uint64_t sums_bytes;                 /* bytes received in the domain sums */
} tl_decomp_cost;

typedef struct tl_decomp {
    tl_comm *comm;
    tl_decomp_cost cost;
    int rank, size;
    bool established;       /* the particles are distributed (after the first build) */
    uint64_t *gidx;         /* per stored particle: its index in the global storage order */
    size_t cap_gidx;
    size_t own_lo, own_hi;  /* the owned particles: storage [own_lo, own_hi) */
    uint64_t nglobal;       /* particles of all ranks */
    uint64_t arrived;       /* particles that migrated here, all rebuilds together */
    size_t ndom;            /* domains of the whole */
    size_t dom_lo, dom_hi;  /* this rank's: [dom_lo, dom_hi) */
    uint64_t g_lo, g_hi;    /* their global indices */
    size_t first_owned;     /* the local domain index of dom_lo */
    uint32_t *ldom;         /* local domain bounds for the build */
    size_t cap_ldom;
    tl_nb_frame frame;
    double *wall_reach;
    size_t cap_reach;
    /* the ghost refresh: owned particles sent to each rank (storage indices), and the
     * ghosts received from each (a block of storage per rank) */
    uint32_t *send_idx;
    size_t nsend, cap_send;
    size_t *send_n, *recv_n, *recv_at; /* size entries each */
    size_t *bytes_a, *bytes_b;          /* size entries each: exchange counts */
    unsigned char *buf, *buf2;
    size_t cap_buf, cap_buf2;
    /* domain sums gathered from all ranks */
    struct tl_block_sum *blocks;
    size_t cap_blocks;
    double (*wall_part)[3], (*wall_tpart)[3];
    size_t cap_wall_part, cap_wall_tpart;
    /* the views (tl_world_view): the particles of all ranks (on rank 0, or on every rank),
     * and on rank 0 the contacts and the energy */
    bool view, view_all;
    tl_particle_state *vp;
    size_t nvp, cap_vp;
    tl_keymap vindex;          /* id -> index in vp */
    tl_contact_info *vc;
    size_t nvc, cap_vc;
    double *vhist;             /* the contacts' history values */
    size_t cap_vhist;
    tl_energy venergy;
    /* particles moved regardless of forces on some rank: their work is gathered each step */
    bool any_immovable;
    double *terms;
    size_t nterms, cap_terms;
    /* the collision log (decomp_log.c): the ids asked of their owners, the answers */
    uint32_t *log_ids;
    size_t cap_log_ids;
    double *log_got, *log_ans;
    size_t cap_log_got, cap_log_ans;
    void *log_buf;
    size_t cap_log_buf;
    /* the shape stage (decomp_shapes.c): gathered slots, migrating records; the slots sent and
     * put in order (kept between steps) */
    void *shape_buf;
    size_t cap_shape_buf;
    double *shape_send, *shape_ord;
    size_t cap_shape_send, cap_shape_ord;
} tl_decomp;

/* Rank 0 of a distributed world while the record view is on: the particle and contact
 * queries read the gathered copies. */
static inline bool tl_decomp_viewing(const tl_decomp *d) { return d && d->view && d->rank == 0; }
/* Whether the particle queries read the gathered copies (rank 0 in a record view, or any rank
 * in a view of all). */
static inline bool tl_decomp_viewing_particles(const tl_decomp *d) {
    return d && (d->view_all || (d->view && d->rank == 0));
}
/* A particle just appended to a distributed world's store (an insertion during the run,
 * placed alike on every rank): it takes the next global index, on the last rank. */
tl_status tl_decomp_appended(tl_world *w, size_t i);

void tl_decomp_free(tl_world *w);
/* Whether the world's particles are spread over ranks. */
static inline bool tl_decomp_on(const tl_decomp *d) { return d && d->size > 1; }

/* After the predict stage: whether an owned particle of any rank moved more than half
 * the skin (w->moved for the whole). */
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
/* A distributed world's state (collective): rank 0 gets the serial run's bytes (the owned
 * particles and the owned domains' candidate rows of every rank, put together); the others
 * get nothing. */
tl_status tl_decomp_save_state(const tl_world *w, void **data, size_t *size);
/* The domains of a serial state from its counts (decomp.c, for the join of decomp_state.c and
 * the loading): room for nd domains and ncross cross candidates (-1: out of memory), the cross
 * candidates of the candidate list pp by the domains' bounds, and their count beforehand. */
int tl_decomp_domains_alloc(tl_mem *m, tl_domains *D, size_t nd, size_t ncross);
void tl_decomp_domains_cross(tl_domains *D, const tl_pairs *pp);
size_t tl_decomp_count_cross(const tl_pairs *pp, const size_t *pp_start, const uint32_t *start, size_t nd);
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
