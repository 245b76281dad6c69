/*
 * A bounding-volume hierarchy over the facets of a mesh, in the mesh's own
 * frame (for a body: its body frame), built once: a binary tree of
 * axis-aligned boxes, split at the median facet centroid along the longest
 * axis, at most 4 facets per leaf (so its depth is about log2(nt / 2)).
 * docs/geometry.md.
 *
 * Queries (all read-only, safe on any thread): the facets whose box meets a
 * box, the closest point of the mesh to a point (with the facet and the
 * feature: face, edge or vertex), the first facet a ray or segment crosses,
 * and whether a point is inside a closed mesh.
 */
#ifndef TL_BVH_H
#define TL_BVH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "talus/types.h"
#include "triangle.h"

typedef struct tl_bvh tl_bvh;

/* The triangles a hierarchy is over, as its queries read them: a mesh's (mesh.h, TL_MESH_TRIS),
 * so that the hierarchy knows triangles, not meshes */
typedef struct tl_tris {
    const double (*v)[3];      /* vertices, m */
    const uint32_t (*tri)[3];  /* facets: vertex indices */
    const double (*c)[3];      /* facet centroids, m */
    size_t nt;                 /* facets */
    const double *lo, *hi;     /* bounding box, m */
    const tl_bvh *bvh;         /* their hierarchy (queries) */
} tl_tris;

typedef struct tl_bvh_node {
    double lo[3], hi[3];
    double c[3], r;  /* a sphere about the box centre holding the node's facets */
    uint32_t first; /* leaf: the first of its facets in idx; inner node: its left child (right: first + 1) */
    uint32_t count; /* leaf: the number of its facets (> 0); inner node: 0 */
} tl_bvh_node;

struct tl_bvh {
    tl_bvh_node *node; /* node[0] is the root */
    uint32_t nnodes;
    size_t capnodes;
    uint32_t *idx;     /* facet indices, leaf by leaf */
    uint32_t *pos;     /* each facet's place in idx (a depth-first walk, left first, meets the
                        * leaves in the order of idx) */
    size_t nidx;
    double (*fbox)[6]; /* each facet's box: lo x, y, z, hi x, y, z (by facet index) */
    int depth;         /* the longest path from the root to a leaf, in nodes */
};

#define TL_BVH_STACK 64

void tl_bvh_init(tl_bvh *b);
/* Builds (or rebuilds) the hierarchy of the mesh's facets. */
tl_status tl_bvh_build(tl_mem *mem, tl_bvh *b, const tl_tris *m);
void tl_bvh_free(tl_mem *mem, tl_bvh *b);

/* The facets whose box meets the box [lo, hi]: writes at most cap of them to
 * out and returns how many there are. */
size_t tl_bvh_box(const tl_tris *m, const double lo[3], const double hi[3], uint32_t *out, size_t cap);

typedef struct tl_mesh_point {
    uint32_t facet;
    tl_feature feature; /* where on the facet q lies */
    int index;          /* which edge or vertex of the facet */
    double q[3];        /* the closest point */
    double dist;        /* |p - q| */
} tl_mesh_point;

/* The point of the mesh closest to p, if one is within max_dist (use
 * INFINITY for no limit). Among facets at the same distance, the one of
 * the lowest index. */
bool tl_bvh_closest(const tl_tris *m, const double p[3], double max_dist, tl_mesh_point *out);

/* The same, starting from the distance to facet `hint` (any facet; one near
 * p makes the search short): always finds the closest point. */
void tl_bvh_closest_hint(const tl_tris *m, const double p[3], uint32_t hint, tl_mesh_point *out);
/* One facet f of the closest-point searches: its closest point to p replaces out when its
 * squared distance is below *best (or equal, and f the lower facet, or none found yet: ties go
 * to the lower index, so the answer does not depend on the order of the search). Returns
 * whether out holds a facet. */
bool tl_bvh_try_facet(const tl_tris *m, const double p[3], uint32_t f, double *best, bool found, tl_mesh_point *out);

typedef struct tl_ray_hit {
    uint32_t facet;
    double t;           /* the hit is at o + t d */
} tl_ray_hit;

/* The first facet the ray o + t d crosses with tmin <= t <= tmax (a segment
 * from o to q: d = q - o, tmin = 0, tmax = 1). d need not be a unit vector;
 * the side of the facet it was hit from is the sign of d . n[facet]. */
bool tl_bvh_ray(const tl_tris *m, const double o[3], const double d[3], double tmin, double tmax, tl_ray_hit *hit);

/* Whether p is inside a closed mesh: the parity of the crossings of three
 * rays in fixed directions off the coordinate axes, by majority (the
 * watertight ray test counts a crossing through an edge or a vertex once).
 * Points on the surface itself may go either way. */
bool tl_bvh_inside(const tl_tris *m, const double p[3]);

#endif
