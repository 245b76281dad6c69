/*
 * The neighbor search: cell grids (counting sort of the particles into
 * cells) and the candidate lists they produce: every particle-particle pair
 * closer than R_a + R_b + skin (each pair once, a = the smaller id), and
 * every particle-face pair closer than R + skin. The lists are rebuilt only
 * when some particle or wall has moved more than half the skin since the
 * last build, so most steps search nothing.
 *
 * Polydisperse beds: one grid per size class (radii within a factor 2 of
 * each other), each with cells as wide as its own largest pair range
 * (2 R_max,l + skin). Pairs of one class are found in that class's grid
 * (the particle's cell and its neighbors); a particle looks for the smaller
 * particles of other classes in their (finer) grids, over the cells within
 * its own reach R + R_max,l + skin. A large particle therefore visits the
 * cells around it in each finer grid, and a small one never visits the
 * huge cells a single grid sized for the largest particles would give it:
 * the cost per particle stays bounded by the number of its true neighbors
 * (Ogarko & Luding 2012). Monodisperse and narrow distributions use one grid.
 *
 * Periodic axes: the grid spans the period and wraps; a pair is found in its
 * nearest image, whose shift (one of 27, tl_image) is stored with the
 * candidate. Positions are wrapped into the period at each build, so the
 * shift holds until the next one.
 */
#ifndef TL_NEIGHBORS_H
#define TL_NEIGHBORS_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "contacts.h"
#include "particles.h"
#include "walls.h"

#define TL_MAX_LEVELS 8 /* size classes: radii from R_max down to R_max / 2^7, the rest in the last */
#define TL_IMAGE_NONE 13 /* image code of no shift: (sx+1) + 3 (sy+1) + 9 (sz+1) */

typedef struct tl_periodic {
    bool on[3];
    double lo[3], len[3]; /* period along each periodic axis, m */
} tl_periodic;

typedef struct tl_grid {
    double rmax;          /* largest radius of the class, m */
    double w[3];          /* cell width per axis, m */
    int64_t dims[3];
    size_t ncells, n;     /* cells; particles in the class */
    uint32_t *start;      /* ncells + 1 */
    uint32_t *items;      /* particle indices by cell */
    size_t cap_start, cap_items;
} tl_grid;

/* The particles split into domains for the contact stage: consecutive
 * storage ranges of about TL_DOMAIN_SIZE particles (a function of the count
 * alone, never of the thread or rank count; at the default size the count
 * rounded up to a power of two; two domains from 2 TL_DOMAIN_MIN particles
 * on). A candidate whose two particles lie in one domain is
 * internal to it; the others are cross candidates (about 7 % of a settled
 * bed's at 16384 particles a domain, 12 % at 4096). */
#define TL_DOMAIN_SIZE 16384
#define TL_DOMAIN_MIN 4096
typedef struct tl_domains {
    size_t count;
    uint32_t *start;        /* count + 1: domain d holds particles start[d] .. start[d+1]-1 */
    size_t *pp_start;       /* count + 1: the candidates found by the domain's particles */
    size_t *pw_start;       /* count + 1: the wall candidates of the domain's particles */
    uint32_t *cross;        /* the cross candidates, ascending */
    size_t ncross;
    size_t *cross_start;    /* count + 1: the domain's first entry in cross */
    size_t cap, cap_cross;
} tl_domains;

typedef struct tl_neighbors {
    double skin;            /* m */
    double lo[3];           /* origin of the grids of the last build */
    int nlevels;
    tl_grid level[TL_MAX_LEVELS];
    uint8_t *level_of;      /* class of each particle */
    uint32_t *cell_of;      /* cell of each particle in its class's grid */
    size_t cap_of, cap_level;
    double shift[27][3];    /* image shifts, m */
    /* wall displacement at the last build; and for turning walls their angle then, and how
     * far from their pivot a particle could be (a turn by d angle moves a face's point
     * there by up to reach x d angle) */
    double (*wall_ref)[3];
    double *wall_angle_ref, *wall_reach;
    size_t cap_walls;
    size_t domain_size;     /* particles per domain (TL_DOMAIN_SIZE; tests set it smaller) */
    bool all_to_shapes;     /* tests: every candidate goes to the shape list (spheres too) */
    size_t *chunk;          /* candidates per chunk of work, then where its candidates go */
    size_t *seg;            /* each chunk's segment of the scratch: its start (nchunks + 1) */
    uint8_t *spill;         /* a chunk whose candidates outgrew its segment */
    size_t cap_chunk;
    /* the one-pass build's scratch: each chunk writes its candidates into a segment sized from
     * the last build's candidates per particle (per_particle: particle-particle, wall) */
    tl_pairs scratch;
    double per_particle[2];
    int64_t chunks, spills; /* chunks searched, and those searched twice (tests read them) */
    int64_t builds;
} tl_neighbors;

/* A distributed run's view of the whole, for the build on one rank (parallel/decomp.c).
 * The rank holds the particles it owns and the ghosts around them, in the order of their
 * global storage index; the grid, the size classes and the domains are laid out as they
 * would be over all particles (so every row of candidates is the serial one), and the
 * candidates between two ghosts are left out. NULL in a serial run. */
typedef struct tl_nb_frame {
    double lo[3], hi[3];              /* the extent of all particles, m */
    double rmax;                      /* the largest radius of all */
    size_t level_n[TL_MAX_LEVELS];    /* particles per size class, all ranks */
    double level_rmax[TL_MAX_LEVELS];
    int nlevels;
    const double *wall_reach;         /* per wall, over all particles */
    size_t own_lo, own_hi;            /* the owned particles: storage [own_lo, own_hi) */
    size_t ndom;                      /* the local domains: the owned ones, and one before */
    const uint32_t *dom_start;        /* and one after them for the ghosts (ndom + 1 bounds) */
} tl_nb_frame;

/* The size class of radius r when the largest is rmax (0 for the largest). */
int tl_neighbors_size_class(double rmax, double r);
/* The number of domains for n particles (a function of n and the domain size alone). */
size_t tl_neighbors_domain_count(const tl_neighbors *nb, size_t n);

void tl_neighbors_init(tl_neighbors *nb, double skin);
void tl_neighbors_free(tl_mem *mem, tl_neighbors *nb);
/* true when a wall moved more than skin/2 since the last build (the
 * particles are checked by the predict stage) */
bool tl_neighbors_walls_moved(const tl_neighbors *nb, const tl_walls *w);
/* Room for the build references of n walls; 0 on success. */
int tl_neighbors_reserve_walls(tl_mem *mem, tl_neighbors *nb, size_t n);
/* The largest interaction range 2 R_max + skin. */
double tl_neighbors_range(const tl_neighbors *nb, const tl_particles *p);
/* Rebuilds both candidate lists (their records are not touched: states are
 * left for the caller to set) and the domains, and records the reference
 * positions. With `shapes`, the candidates that involve a body other than a
 * sphere go to that list instead (particle-particle first, then particle-face).
 * Positions must already be wrapped into the periodic axes. Returns 0, or -1
 * on allocation failure. */
int tl_neighbors_build(tl_mem *mem, tl_neighbors *nb, tl_particles *p, const tl_walls *w,
                       const tl_periodic *per, tl_pairs *pp, tl_pairs *pw, tl_domains *dom,
                       tl_shape_list *shapes, int threads, const tl_nb_frame *frame);
void tl_domains_free(tl_mem *mem, tl_domains *d);
/* The domains of a serial state from its counts (a checkpoint read on ranks): room for nd domains
 * and ncross cross candidates (-1: out of memory), the cross candidates of the candidate list pp
 * by the domains' bounds, and their count beforehand. */
int tl_domains_alloc(tl_mem *m, tl_domains *D, size_t nd, size_t ncross);
void tl_domains_cross(tl_domains *D, const tl_pairs *pp);
size_t tl_domains_count_cross(const tl_pairs *pp, const size_t *pp_start, const uint32_t *start, size_t nd);

/* The image code of shift (sx, sy, sz), each in {-1, 0, 1}. */
static inline uint8_t tl_image_code(int sx, int sy, int sz) {
    return (uint8_t)((sx + 1) + 3 * (sy + 1) + 9 * (sz + 1));
}

#endif
