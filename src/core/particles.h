/*
 * The particle store: structure of arrays. The hot arrays (positions,
 * velocities, forces) are what the time step touches; ids, materials and
 * flags are colder. Each vector field is an array of double[3].
 *
 * Stable ids survive reordering and removal; tl_particles_index maps an id to
 * its current storage index.
 */
#ifndef TL_PARTICLES_H
#define TL_PARTICLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "keymap.h"

typedef struct tl_particles {
    size_t count, cap;
    /* hot */
    double (*x)[3];     /* position, m */
    double (*v)[3];     /* velocity, m/s (the predicted one during the force stage) */
    double (*w)[3];     /* angular velocity, rad/s, world frame */
    double (*f)[3];     /* force, N */
    double (*t)[3];     /* torque, N m */
    double (*f_old)[3]; /* force and torque of step n while step n+1 is computed */
    double (*t_old)[3];
    double (*f_older)[3]; /* and of step n-1 (for the velocity predictor) */
    double (*t_older)[3];
    double *radius;
    double *inv_mass;    /* 0 for fixed and prescribed particles: not moved by forces */
    double *inv_inertia; /* 0 when the rotation is fixed, prescribed or locked */
    double *inv_mass_law;/* 0 for fixed particles only: their m* limit is the partner's mass */
    int32_t *material;
    /* cold */
    double (*q)[4];     /* orientation */
    double (*x_ref)[3]; /* position at the last neighbor build */
    double *mass, *inertia;
    double (*am)[3];    /* angular momentum, world frame (bodies other than spheres) */
    uint32_t *id;
    uint8_t *flags;
    int32_t *shape;     /* TL_SPHERE (0) or the index of the world's shape */
    tl_keymap index_of; /* id -> storage index */
    /* Views from outside (tl_world_particle_arrays) read the arrays in place:
     * the generation changes whenever the count, the order or the arrays
     * themselves change; while `exported`, the store is not shrunk, and the
     * blocks that growth or a loaded state replace are kept (tagged with the
     * last generation they served) until tl_particles_release. */
    uint64_t generation;
    bool exported;
    struct tl_replaced_block *replaced;
    size_t nreplaced, capreplaced;
} tl_particles;

typedef struct tl_replaced_block {
    void *ptr;
    size_t size;
    uint64_t generation;
} tl_replaced_block;

void tl_particles_init(tl_particles *p);
void tl_particles_free(tl_mem *mem, tl_particles *p);
/* Appends one particle with zeroed state; returns its index or -1 on failure. */
int64_t tl_particles_push(tl_mem *mem, tl_particles *p, uint32_t id);
/* Storage index of an id, or -1. */
int64_t tl_particles_index(const tl_particles *p, uint32_t id);
/* Removes the particles whose keep[i] is 0, preserving the order of the others. */
int tl_particles_compact(tl_mem *mem, tl_particles *p, const uint8_t *keep);
/* Gives back the growth slack when the store is much larger than its count
 * (after a bulk insertion); never fails (keeps the arrays if it cannot). */
int tl_particles_fit(tl_mem *mem, tl_particles *p);
/* Reorders the store: the particle at index order[k] moves to index k. */
int tl_particles_permute(tl_mem *mem, tl_particles *p, const uint32_t *order);
/* Frees the replaced blocks that last served a generation before `generation`
 * (no view of an older generation is left). */
void tl_particles_release(tl_mem *mem, tl_particles *p, uint64_t generation);
/* Moves the contents of `from` (a store just read) into `to`, whose arrays
 * are released (kept when exported; room for them reserved first by
 * tl_particles_reserve_replace, which may fail); `to` keeps its views'
 * bookkeeping and a new generation. */
int tl_particles_reserve_replace(tl_mem *mem, tl_particles *to);
void tl_particles_replace(tl_mem *mem, tl_particles *to, tl_particles *from);
/* Bytes per particle of the store's arrays (capacity excluded). */
size_t tl_particles_bytes_each(void);

/* One particle's values as tl_particles_bytes_each() bytes (every array of the store), and
 * back: appended as a new particle (-1 on allocation failure, or when its id is already
 * stored), or written over particle i (the same id: the index map is left alone). */
void tl_particles_pack(const tl_particles *p, size_t i, unsigned char *out);
int64_t tl_particles_push_packed(tl_mem *mem, tl_particles *p, const unsigned char *in);
void tl_particles_unpack_at(tl_particles *p, size_t i, const unsigned char *in);

struct tl_wbuf;
struct tl_rbuf;
/* The whole store as bytes (count, then every array), and back: reading
 * replaces the store's contents; 0 on success, -1 on allocation failure or
 * a short buffer (the rbuf is marked failed). */
void tl_particles_write(const tl_particles *p, struct tl_wbuf *b);
int tl_particles_read(tl_mem *mem, tl_particles *p, struct tl_rbuf *b);

#endif
