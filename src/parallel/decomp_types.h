/*
 * The state of a world's distribution over MPI ranks (docs/parallel.md): what decomp.c and its
 * parts (decomp_log.c, decomp_shapes.c, decomp_state.c) keep between steps. The engine reads
 * only its face (world/ranks.h: w->ranks).
 */
#ifndef TL_DECOMP_TYPES_H
#define TL_DECOMP_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm.h"
#include "neighbors.h"
#include "ranks.h"
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
    tl_ranks *face;         /* the distribution as the engine sees it (world/ranks.h: w->ranks) */
    tl_comm *comm;
    tl_decomp_cost cost;
    uint64_t *gidx;         /* per stored particle: its index in the global storage order */
    size_t cap_gidx;
    uint64_t nglobal;       /* particles of all ranks */
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
    /* particles moved regardless of forces on some rank: their work is gathered each step */
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

#endif
