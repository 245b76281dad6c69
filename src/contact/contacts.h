/*
 * The contact table: the candidate pairs of the neighbor search, each with
 * its contact record (as LAMMPS keeps history per neighbor-list entry).
 *
 * A candidate is a particle-particle pair closer than R_a + R_b + skin, or a
 * particle-face pair closer than R + skin. Its record is live while the pair
 * touches (state TL_PAIR_TOUCH): the law's history values followed by
 * bookkeeping (the last step's overlap and forces, and optional groups for
 * the energy ledger and collision measurements). Records sit next to their
 * candidates, so the force loop reads them in order, needs no allocation
 * (contacts open and close in parallel), and the lists can be split among
 * threads freely.
 *
 * At each neighbor rebuild the new candidate list is merged with the old
 * one: a pair that was touching keeps its record (found by the key of its
 * stable particle ids), in the order of the new list, which is a
 * deterministic function of the positions. A touching pair is always a
 * candidate of the new list (its distance is below the cut-off), unless one
 * of its particles left the domain.
 */
#ifndef TL_CONTACTS_H
#define TL_CONTACTS_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "keymap.h"
#include "submodel.h"

/* candidate state bits */
enum tl_pair_state {
    TL_PAIR_TOUCH = 1u << 0,   /* the record is live */
    TL_PAIR_SLIDING = 1u << 1, /* at the Coulomb limit in the last evaluation */
    TL_PAIR_FORCE = 1u << 2,   /* exerted a force in this step (the gather reads it) */
    TL_PAIR_EXIT = 1u << 3,    /* separated in this step; the record waits for the collision log */
    TL_PAIR_TORQUE = 1u << 4   /* its slot has a rolling (twisting) torque too (contact_forces.c) */
};

/* Bookkeeping after the law history. The core group is always there. */
enum tl_book_core {
    TL_BK_DELTA = 0, /* overlap at the last evaluation, m */
    TL_BK_FN,        /* normal force applied in the last step (law + boundary correction), N */
    TL_BK_FT,        /* tangential force applied on a (3 values), N */
    TL_BK_CORE = TL_BK_FT + 3
};
/* energy group: present when the world tracks energy */
enum tl_book_energy {
    TL_BE_FN_EL = 0, /* elastic part of the law's normal force (the rest is damping), N */
    TL_BE_E_N,       /* elastic energy, normal, J */
    TL_BE_E_T,       /* elastic energy, tangential, J */
    TL_BE_N,         /* the normal of the last evaluation (3 values) */
    TL_BE_LA = TL_BE_N + 3, /* and its lever arms, a then b, m: the last tangential force */
    TL_BE_LB,        /* acted through them, so its work over the next drift is counted there */
    TL_BE_E_TORQUE,  /* elastic energy of each torque slot's spring, by its place (laws/slots.h:
                      * rolling, twisting), J */
    TL_BE_F_FORCE = TL_BE_E_TORQUE + TL_TORQUE_SLOTS, /* each force slot's applied force of the last
                      * step, N, by its place (laws/slots.h: cohesion) */
    TL_BE_E_FORCE = TL_BE_F_FORCE + TL_FORCE_SLOTS,   /* and its potential, J */
    TL_BE_KT = TL_BE_E_FORCE + TL_FORCE_SLOTS, /* the tangential spring's kt_xi of the last evaluation,
                      * N/m, and */
    TL_BE_XI,        /* its displacement xi (3 values), m: what a change of kt_xi at a held xi
                      * put in (step/tangential_books.h) */
    TL_BE_FTD = TL_BE_XI + 3, /* the tangential dashpot's force of the last evaluation (3 values), N */
    TL_BE_COUNT = TL_BE_FTD + 3
};
/* impact group: present when a law needs the impact speed or collisions are logged */
enum tl_book_impact {
    TL_BI_V_IN = 0,  /* normal approach speed at first touch, m/s */
    TL_BI_T_BEGIN,   /* time of first touch, s */
    TL_BI_MAX_DELTA, /* m */
    TL_BI_MAX_FN,    /* N */
    TL_BI_COUNT
};

typedef struct tl_rec_layout {
    int hist;    /* law history values (the largest of the world's laws) */
    int energy;  /* offset of the energy group, -1 when absent */
    int impact;  /* offset of the impact group, -1 when absent */
    int stride;  /* values per record */
} tl_rec_layout;

/* A layout with the core group after `hist` history values and the optional groups. */
tl_rec_layout tl_rec_layout_make(int hist, bool energy, bool impact);

typedef struct tl_pairs {
    size_t count, cap;
    int stride;      /* record values per candidate */
    uint32_t *a;     /* particle index */
    uint32_t *b;     /* particle index (particle-particle) or face index (particle-wall) */
    uint8_t *img;    /* particle-particle: periodic image of b seen from a (tl_image code) */
    uint8_t *state;  /* tl_pair_state bits */
    double *rec;     /* count * stride values; meaningful while TL_PAIR_TOUCH or TL_PAIR_EXIT.
                      * Aligned to 64 bytes: a record of 8 values is one cache line */
    void *rec_block; /* the allocation rec lies in */
    size_t rec_block_bytes;
} tl_pairs;

/* keys: particle-particle (smaller id, larger id); particle-wall face */
static inline uint64_t tl_key_pp(uint32_t ida, uint32_t idb) {
    return ida < idb ? ((uint64_t)ida << 32) | idb : ((uint64_t)idb << 32) | ida;
}
static inline uint64_t tl_key_pw(uint32_t id, uint32_t face) {
    return (1ULL << 63) | ((uint64_t)id << 24) | (face & 0xffffffu);
}

static inline double *tl_pair_record(const tl_pairs *l, size_t k) {
    return l->rec + k * (size_t)l->stride;
}

void tl_pairs_init(tl_pairs *l, int stride);
void tl_pairs_free(tl_mem *mem, tl_pairs *l);
/* Room for n candidates (contents kept); 0 on success. */
int tl_pairs_reserve(tl_mem *mem, tl_pairs *l, size_t n);
/* Copies one record's groups from one layout to another (the history up to
 * the shorter of the two; optional groups present in both). */
void tl_rec_copy_layout(double *to_rec, const tl_rec_layout *to, const double *from_rec,
                        const tl_rec_layout *from);

/* The candidates that involve a body other than a sphere (its shape's
 * bounding sphere is within reach): particle-particle (wall = 0) or
 * particle-face (wall = 1, b a face index). Their contacts are patches,
 * handled by the shape stage (shape_contacts.h). */
typedef struct tl_shape_list {
    size_t count, cap;
    uint32_t *a, *b;
    uint8_t *img;
    uint8_t *wall;
    uint32_t *dom; /* the domain whose rows found it (its place in the contact stage's order;
                    * on MPI ranks: which rank's row it is) */
} tl_shape_list;

void tl_shape_list_free(tl_mem *mem, tl_shape_list *l);
/* Room for n candidates (contents kept); 0 on success. */
int tl_shape_list_reserve(tl_mem *mem, tl_shape_list *l, size_t n);

/* Number of candidates with state TL_PAIR_TOUCH. */
size_t tl_pairs_touching(const tl_pairs *l);
/* Changes the record layout, keeping each group's values; 0 on success. */
int tl_pairs_relayout(tl_mem *mem, tl_pairs *l, const tl_rec_layout *from, const tl_rec_layout *to);

/* The records of the touching candidates, set aside while the lists are
 * rebuilt (only the touching ones: the lists themselves are reused), and
 * found again by the keys of their stable particle ids. */
typedef struct tl_stash {
    tl_keymap pp, pw;  /* key -> stash index */
    double *rec;
    uint8_t *state;
    size_t count, cap;
    int stride;
} tl_stash;

void tl_stash_init(tl_stash *s);
void tl_stash_free(tl_mem *mem, tl_stash *s);
/* Empties the stash, then takes the touching records of both lists. Call it
 * before particles are removed or reordered (the keys use their ids). */
int tl_stash_take(tl_mem *mem, tl_stash *s, const tl_pairs *pp, const tl_pairs *pw,
                  const uint32_t *ids);
/* Gives each candidate of a new list the record of its pair, if stashed; the
 * others start untouched. */
void tl_stash_give(const tl_stash *s, tl_pairs *l, bool wall, const uint32_t *ids, int threads);
/* Adds one record under its key (a particle-particle key, or a particle-wall one: bit 63)
 * unless the key is there already; 0 on success, -1 on allocation failure. */
int tl_stash_put(tl_mem *mem, tl_stash *s, uint64_t key, uint8_t state, const double *rec);
/* Bytes the stash holds. */
size_t tl_stash_bytes(const tl_stash *s);

#endif
