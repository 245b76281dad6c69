/*
 * What the engine's tests set and read inside a world (issue 43: no test reaches into the
 * fields of tl_world). Internal: not in include/talus/ and not exported from libtalus.so; the
 * tests link the static library and include this header with the public one. It does not
 * include world.h, so a test that names a field of tl_world does not compile (and test_layers
 * refuses a test that includes world.h).
 */
#ifndef TL_WORLD_PROBE_H
#define TL_WORLD_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "contacts.h"
#include "debug_knobs.h"
#include "law.h"
#include "neighbors.h"
#include "particles.h"
#include "talus/talus.h"
#include "walls.h"

/* The tests' switches (tl_debug_knobs: the general path instead of the fused one, no lanes, a
 * lane width of four, no gap skip), set before the first step. */
void tl_probe_set_knobs(tl_world *w, const tl_debug_knobs *k);
/* The particles per domain of the next builds (0: the default). */
void tl_probe_set_domain_size(tl_world *w, size_t n);
/* Every contact, spheres' too, through the shape stage. */
void tl_probe_set_all_to_shapes(tl_world *w, bool on);
/* The k-th next allocation of the world fails (k > 0; 0: none). */
void tl_probe_fail_alloc_in(tl_world *w, int64_t k);

/* What the last steps did, as the tests check it. */
typedef struct tl_probe {
    bool lanes_on;           /* the last contact stage ran steady contacts in the lanes */
    unsigned lanes_width_on; /* how many lanes (0: none) */
    uint64_t far_skipped;    /* far candidates skipped by their gap, all stages together */
    uint64_t arrived;        /* particles that migrated to this rank, all rebuilds together */
    size_t domains, cross;   /* the particles' domains and their cross candidates */
    bool log_on;             /* the collision log is on */
    size_t log_pending;      /* contacts that ended, their collisions not yet finished */
} tl_probe;
void tl_probe_read(const tl_world *w, tl_probe *out);

/* The law between materials a and b as the world prepared it (NULL: none). */
const tl_law *tl_probe_law(const tl_world *w, int a, int b);

/* The broad phase's parts, for the tests of the broad phase on a world's particles. */
typedef struct tl_probe_parts {
    tl_mem *mem;
    tl_particles *p;
    tl_walls *walls;
    tl_periodic *per;
    tl_pairs *pp, *pw;
    tl_neighbors *nb;
    tl_domains *dom;
} tl_probe_parts;
tl_probe_parts tl_probe_parts_of(tl_world *w);

#endif
