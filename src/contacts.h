/*
 * The persistent contact table: one record per touching pair, particle-
 * particle or particle-wall, keyed by stable ids (so a record survives
 * reordering, and later migration between ranks). A record holds the law's
 * history values followed by bookkeeping (the last step's overlap and forces,
 * the elastic energy, the collision measurements). It is created when the
 * pair starts to touch and released when it separates.
 *
 * Candidate lists (from the neighbor search) point at their pair's record
 * through `slot` (-1 = not touching). At each rebuild the new candidates
 * find their records again by key, so history survives the rebuild.
 */
#ifndef TL_CONTACTS_H
#define TL_CONTACTS_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "keymap.h"

/* bookkeeping values after the law history of every record */
enum tl_book {
    TL_BK_DELTA = 0, /* overlap at the last evaluation, m */
    TL_BK_FN,        /* normal force applied in the last step (law + boundary correction), N */
    TL_BK_FT,        /* tangential force applied on a (3 values), N */
    TL_BK_FN_EL = TL_BK_FT + 3, /* elastic part of the normal force (the rest is damping), N */
    TL_BK_E_N,       /* elastic energy, normal, J */
    TL_BK_E_T,       /* elastic energy, tangential, J */
    TL_BK_T_BEGIN,   /* time of first touch, s */
    TL_BK_V_IN,      /* normal approach speed at first touch, m/s */
    TL_BK_MAX_DELTA, /* m */
    TL_BK_MAX_FN,    /* N */
    TL_BK_SLIDING,   /* 1 when at the Coulomb limit */
    TL_BOOK
};

typedef struct tl_candidates {
    size_t count, cap;
    uint32_t *a;    /* particle index */
    uint32_t *b;    /* particle index (particle-particle) or face index (particle-wall) */
    int32_t *slot;  /* contact record, -1 when not touching */
} tl_candidates;

typedef struct tl_contact_table {
    int hist;         /* law history values per record (the largest of the world's laws) */
    int stride;       /* hist + TL_BOOK */
    size_t cap;       /* records allocated */
    size_t high;      /* records ever handed out (the rest of cap is untouched) */
    size_t live;      /* records in use */
    double *data;     /* cap * stride */
    uint64_t *key;    /* TL_KEYMAP_EMPTY when free */
    int32_t *free;    /* released records, reused last-in first-out */
    size_t nfree, capfree;
    tl_keymap lookup; /* scratch for rebuilds */
} tl_contact_table;

/* keys: particle-particle (smaller id, larger id); particle-wall face */
static inline uint64_t tl_key_pp(uint32_t ida, uint32_t idb) {
    return ida < idb ? ((uint64_t)ida << 32) | idb : ((uint64_t)idb << 32) | ida;
}
static inline uint64_t tl_key_pw(uint32_t id, uint32_t face) {
    return (1ULL << 63) | ((uint64_t)id << 24) | (face & 0xffffffu);
}

void tl_candidates_init(tl_candidates *c);
void tl_candidates_free(tl_mem *mem, tl_candidates *c);
int tl_candidates_push(tl_mem *mem, tl_candidates *c, uint32_t a, uint32_t b);

void tl_contacts_init(tl_contact_table *t, int hist);
void tl_contacts_free(tl_mem *mem, tl_contact_table *t);
/* A fresh zeroed record for `key`; -1 on allocation failure. */
int32_t tl_contacts_open(tl_mem *mem, tl_contact_table *t, uint64_t key);
void tl_contacts_close(tl_contact_table *t, int32_t slot);
static inline double *tl_contacts_record(const tl_contact_table *t, int32_t slot) {
    return t->data + (size_t)slot * (size_t)t->stride;
}
/* Points the candidates of a new list at the records of their pairs
 * (by key); records no candidate claims are closed. key_of computes a
 * candidate's key. Returns 0, or -1 on allocation failure. */
int tl_contacts_rebind(tl_mem *mem, tl_contact_table *t, tl_candidates *pp, tl_candidates *pw,
                       const uint32_t *ids);

#endif
