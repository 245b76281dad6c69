/*
 * The narrow phase's working memory, one per thread: the kinds' geometry functions (the shape
 * kinds' files) take it and grow what they need in it. Below both the kinds' files and the
 * dispatcher (narrow.c), which looks those up.
 */
#ifndef TL_NARROW_SCRATCH_H
#define TL_NARROW_SCRATCH_H

#include "alloc.h"

/* Working memory of the narrow phase, one per thread (the mesh pairs keep
 * their element lists here); grown on demand through the allocator. */
typedef struct tl_narrow_scratch {
    tl_mem mem;            /* its own allocation books (threads grow their scratches at once) */
    struct tl_pcm_scratch *pcm; /* the polygonal contact model's buffers (pcm.h) */
    /* the least overlap a pair's patch is kept at, m: 0 (touching), or below 0 for a contact held
     * beyond touch (a force with a reach: the shape stage sets it per candidate). A kind whose
     * geometry measures bodies apart (the ellipsoid's: minus their distance) honours it; the others
     * (meshes) see touch only */
    double floor;
} tl_narrow_scratch;

/* a: the allocator of the world (its own byte count is kept apart) */
void tl_narrow_scratch_init(tl_narrow_scratch *s, const tl_allocator *a);
void tl_narrow_scratch_free(tl_narrow_scratch *s);
/* after the scratch was moved in memory (an array of them reallocated): its buffers' books
 * are its own member, so the pointer to them is set again */
void tl_narrow_scratch_moved(tl_narrow_scratch *s);
/* the polygonal contact model's buffers, made on first use (NULL: out of memory) */
struct tl_pcm_scratch *tl_narrow_pcm(tl_narrow_scratch *s);

#endif
