/*
 * Inserting spheres: size distributions, and random non-overlapping
 * placement in a box region ("rainfall") that avoids the particles already
 * in a world, the walls, and the spheres placed before. Independent of the
 * scene format: the scene loader (random fills), the run driver (inflows)
 * and the tests call it.
 *
 * Placement is random sequential addition: a sphere tries up to a number of
 * uniformly drawn centres and takes the first one where it touches nothing
 * (distance >= sum of radii, and no wall contact as the engine would see
 * it). A hash grid of the spheres near the region makes each try cost a few
 * distance tests, so 10^5 spheres place in a fraction of a second. Random
 * sequential addition of equal spheres jams near a solid fraction of 0.38;
 * fills up to about 0.3 go quickly.
 */
#ifndef TL_INSERT_H
#define TL_INSERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "talus/talus.h"

/* ---- size distributions -------------------------------------------------- */

typedef enum tl_dist_kind {
    TL_DIST_CONSTANT = 0, /* always value */
    TL_DIST_UNIFORM,      /* uniform on [min, max] */
    TL_DIST_NORMAL,       /* normal (mean, std) truncated to [min, max] */
    TL_DIST_LOGNORMAL,    /* ln x normal (mu, sigma) truncated to [min, max] */
    TL_DIST_LIST          /* one of values, with probabilities proportional to weights */
} tl_dist_kind;

#define TL_DIST_MAX_VALUES 64

/* A plain value (no pointers): it can be copied and stored as it is. */
typedef struct tl_dist {
    tl_dist_kind kind;
    double value;     /* constant */
    double min, max;  /* uniform: the bounds; normal, log-normal: the truncation (NAN = default) */
    double mean, std; /* normal */
    double mu, sigma; /* log-normal: mean and standard deviation of ln x */
    int nvalues;      /* list */
    double values[TL_DIST_MAX_VALUES];
    double weights[TL_DIST_MAX_VALUES]; /* > 0; normalised by tl_dist_finish */
} tl_dist;

tl_dist tl_dist_constant(double value);

/* Completes and checks a distribution of a positive size: the default
 * truncation of normal (mean +- 5 std) and log-normal (mu +- 5 sigma in
 * ln x) where min/max are NAN; every value it can draw must be > 0 and
 * finite. Returns 0, or -1 with a message ("std must be > 0, got -1"). */
int tl_dist_finish(tl_dist *d, char *msg, size_t size);

/* One draw (inverse transform: exactly one uniform number per draw for
 * every kind, so a stream of draws does not depend on the values drawn). */
double tl_dist_sample(const tl_dist *d, tl_rng *rng);

/* E[x^k] of what tl_dist_sample draws (the truncated distribution), k >= 0. */
double tl_dist_moment(const tl_dist *d, int k);

/* The smallest and largest values it can draw. */
double tl_dist_lower(const tl_dist *d);
double tl_dist_upper(const tl_dist *d);

/* ---- the space spheres are placed in ---------------------------------------- */

typedef struct tl_insert_space {
    tl_vec3 min, max;         /* the region: every sphere lies entirely inside it */
    bool periodic[3];         /* periodic axes: distances across the period count */
    tl_vec3 period_min, period_max; /* the periodic box (the domain) */
    const tl_wall_def *walls; /* obstacles, as they are now (may be NULL) */
    size_t nwalls;
} tl_insert_space;

/* The overlap grid of one region: what is there and what was placed. */
typedef struct tl_inserter tl_inserter;

/* Collects the world's particles near the region (world may be NULL) for
 * spheres of radius up to r_max. NULL when out of memory. */
tl_inserter *tl_inserter_create(const tl_insert_space *space, double r_max, const tl_world *world);
void tl_inserter_destroy(tl_inserter *ins);

/* Tries up to attempts uniformly drawn centres for a sphere of radius r
 * (<= r_max) and keeps the first that touches nothing: true and *centre set,
 * and the sphere is an obstacle for the next ones. -1 when out of memory. */
int tl_inserter_place(tl_inserter *ins, tl_rng *rng, double r, int attempts, tl_vec3 *centre);

/* Whether a sphere would touch a wall (as the engine's contact geometry
 * sees it) or another sphere the inserter knows. */
bool tl_inserter_free(const tl_inserter *ins, const tl_vec3 *centre, double r);

/* Distance-based test against one wall: the overlap (> 0 touching). */
double tl_wall_overlap(const tl_wall_def *wall, const tl_vec3 *centre, double r);

/* ---- filling a region at once ------------------------------------------------- */

typedef struct tl_fill_def {
    tl_insert_space space;
    tl_dist size;              /* of the radius, or of the diameter (size_scale 0.5) */
    double size_scale;         /* radius = size_scale x draw; 0 = 1 */
    size_t count;              /* spheres to place; 0 = by volume_fraction */
    double volume_fraction;    /* the spheres' volume / the region's volume */
    tl_particle_def particle;  /* material, velocity, flags, ... of every sphere */
    double velocity_jitter;    /* m/s: a uniform amount in [-j, j] added per axis */
    uint64_t seed;
    int max_attempts;          /* centres tried per sphere; 0 = 1000 */
    bool keep_order;           /* place in the order drawn (default: largest first) */
    bool random_orientation;   /* bodies other than spheres: each turned at random */
} tl_fill_def;

typedef struct tl_fill_result {
    size_t requested;          /* spheres drawn */
    size_t placed;             /* spheres that found a place (all of them on success) */
    double volume_fraction;    /* of the spheres placed */
    double largest_failed;     /* radius of the first sphere that found no place, m */
} tl_fill_result;

/* Draws the spheres' sizes, places them (largest first), then adds them
 * all to the world; when one finds no place after max_attempts tries,
 * nothing is added and TL_ERROR_ARGUMENT is returned with a message that
 * says how many fit. */
tl_status tl_insert_fill(tl_world *world, const tl_fill_def *def, tl_fill_result *result, char *msg,
                         size_t msg_size);

#endif
