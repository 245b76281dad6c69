/*
 * The ranks port (issue 43, docs/architecture.md "The ranks port"): what the engine's stages
 * need of a run spread over MPI ranks, without reaching up into parallel/.
 *
 * The world holds a tl_ranks (w->ranks): the face of the distribution every stage may read (how
 * many ranks, whether the particles are spread, which stored particles this rank owns, the
 * gathered copies a record view reads) and the operations (ops) the stages call once per stage,
 * never once per contact. parallel/decomp.c installs its implementation when a world is
 * distributed (tl_world_distribute) and is the only writer of the face; a serial world keeps
 * ops NULL and the face zero, and every call below is then its serial identity (nothing to
 * gather, every particle local), so the serial engine needs nothing of MPI.
 *
 * The operations' meanings are those of parallel/decomp.h, decomp_log.h and decomp_shapes.h,
 * which implement them (collective: every rank calls them at the same point of the step).
 */
#ifndef TL_RANKS_H
#define TL_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keymap.h"
#include "talus/talus.h"

typedef struct tl_world tl_world;
struct tl_block_sum;
struct tl_rsum;
struct tl_nb_frame;
struct tl_decomp;

/* Adds the sums of the whole from n slots (stride values each) in order: face[k] the face of
 * candidate k (-1: none), or, with face NULL, the face stored after each slot (gathered). */
typedef void (*tl_shape_sum_fn)(tl_world *w, const double *slots, size_t n, size_t stride, const int32_t *face);

typedef struct tl_ranks_ops {
    /* the world's life: its end, a particle appended during the run, a state saved and loaded */
    void (*free)(tl_world *w);
    tl_status (*appended)(tl_world *w, size_t i);
    tl_status (*save_state)(const tl_world *w, void **data, size_t *size);
    tl_status (*loaded)(tl_world *w);
    /* sums over the ranks that do not depend on their count */
    void (*max)(const tl_world *w, double *v, size_t n);
    void (*or_)(const tl_world *w, int *v, size_t n);
    void (*merge)(const tl_world *w, struct tl_rsum *s, size_t n);
    void (*gather_fixed)(const tl_world *w, const void *mine, size_t bytes, void *all);
    void (*abort)(const tl_world *w, const char *why);
    tl_status (*domain_sums)(tl_world *w, const struct tl_block_sum **blocks, const double (**wall_part)[3],
                             const double (**wall_tpart)[3], size_t *ndom);
    tl_status (*shape_sums)(tl_world *w, const double *slots, const int32_t *face, size_t n, tl_shape_sum_fn add);
    bool (*own_shape)(const tl_world *w, size_t k);
    double (*external_potential)(const tl_world *w);
    void (*term)(tl_world *w, double t);
    void (*terms_subtract)(tl_world *w, double *acc);
    void (*note_immovable)(tl_world *w);
    /* the exchange of particles: the rebuild's parts, the ghosts' refresh */
    tl_status (*establish)(tl_world *w);
    tl_status (*particles)(tl_world *w);
    tl_status (*ghosts)(tl_world *w, const struct tl_nb_frame **frame);
    void (*moved)(tl_world *w);
    tl_status (*refresh)(tl_world *w);
    /* the collision log */
    void (*log_rows)(const tl_world *w, size_t lo[2], size_t hi[2]);
    const double (*(*log_fetch)(tl_world *w))[7];
} tl_ranks_ops;

typedef struct tl_ranks {
    const tl_ranks_ops *ops; /* NULL: a serial world */
    struct tl_decomp *dc;    /* the implementation's own state (parallel/decomp.h) */
    int rank, size;
    bool established;        /* the particles are distributed (after the first build) */
    size_t own_lo, own_hi;   /* the owned particles: storage [own_lo, own_hi) */
    bool any_immovable;      /* some rank has particles moved regardless of forces */
    uint64_t arrived;        /* particles that migrated here, all rebuilds together */
    /* the views (tl_world_view): the particles of all ranks (on rank 0, or on every rank),
     * and on rank 0 the contacts and the energy */
    bool view, view_all;
    tl_particle_state *vp;
    size_t nvp, cap_vp;
    tl_keymap vindex;        /* id -> index in vp */
    tl_contact_info *vc;
    size_t nvc, cap_vc;
    double *vhist;           /* the contacts' history values */
    size_t cap_vhist;
    tl_energy venergy;
} tl_ranks;

/* Whether the world's particles are spread over more than one rank. */
static inline bool tl_ranks_on(const tl_ranks *r) { return r->size > 1; }
/* Whether they are spread now (after the first build): the stages then gather their sums. */
static inline bool tl_ranks_spread(const tl_ranks *r) { return r->size > 1 && r->established; }
/* Whether storage index i (-1: absent) is a particle whose motion this rank knows: any stored
 * particle serially, an owned one on ranks. */
static inline bool tl_ranks_local(const tl_ranks *r, int64_t i) {
    if (i < 0) return false;
    if (!tl_ranks_spread(r)) return true;
    return (size_t)i >= r->own_lo && (size_t)i < r->own_hi;
}
/* Rank 0 of a distributed world while the record view is on: the particle and contact
 * queries read the gathered copies. */
static inline bool tl_ranks_viewing(const tl_ranks *r) { return r->view && r->rank == 0; }
/* Whether the particle queries read the gathered copies (rank 0 in a record view, or any rank
 * in a view of all). */
static inline bool tl_ranks_viewing_particles(const tl_ranks *r) {
    return r->view_all || (r->view && r->rank == 0);
}

#endif
