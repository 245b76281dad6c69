/*
 * Triangle meshes: the surface of a polyhedral body (closed) or of a mesh
 * wall (open), with the per-facet data and the topology the contact model
 * needs, and its bounding-volume hierarchy (bvh.h). docs/geometry.md.
 *
 * Facets are wound counter-clockwise seen from outside: the normal
 * (v1 - v0) x (v2 - v0) points out of the body. A mesh is made from arrays
 * (tl_mesh_from_arrays), read from an STL (ASCII or binary) or OBJ file
 * through assimp (tl_mesh_load), or generated (tl_mesh_icosphere,
 * tl_mesh_ellipsoid); every path checks it (below) and refuses a bad mesh
 * with a message naming the source, the facet and what is wrong.
 *
 * Checks. Always: finite coordinates, vertex indices in range, no degenerate
 * facet (zero area, relative to its longest edge squared, below 1e-14), and
 * neighbouring facets traverse their shared edge in opposite directions
 * (consistent orientation). Closed meshes (the default) also: every edge is
 * shared by exactly two facets, no facet repeats another, and the enclosed
 * signed volume is positive (normals point outwards). Open meshes (mesh
 * walls) may have boundary edges; an edge of three or more facets is then
 * accepted and joins none of them. Self-intersection is not checked.
 *
 * All memory comes from the tl_mem given at creation (counted; failure is
 * reported as TL_ERROR_MEMORY).
 */
#ifndef TL_MESH_H
#define TL_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "bvh.h"
#include "talus/types.h"
#include "triangle.h"

#define TL_MESH_NONE UINT32_MAX

/* the bounds on a mesh file (tl_mesh_load): its size, and one polygon's vertices */
#define TL_MESH_FILE_MAX_BYTES (32ull << 20)
#define TL_MESH_MAX_POLYGON 1000
/* the largest scale (metres per file unit) and coordinate (m, after scaling; the engine's
 * TL_MAX_COORDINATE) a mesh may have */
#define TL_MESH_MAX_SCALE 1e6
#define TL_MESH_MAX_COORD 1e12
/* a convex mesh's table of starting vertices for its support walk: the directions' cube,
 * TL_MESH_CELLS x TL_MESH_CELLS cells on each of its 6 faces */
#define TL_MESH_CELLS 8

typedef struct tl_mesh {
    size_t nv, nt;
    double (*v)[3];       /* vertices, m */
    uint32_t (*tri)[3];   /* facets: vertex indices, counter-clockwise seen from outside */
    double (*n)[3];       /* unit outward facet normals */
    double *area;         /* facet areas, m^2 */
    double (*c)[3];       /* facet centroids, m */
    uint32_t (*adj)[3];   /* the facet across edge k (tri[k] -> tri[(k+1)%3]); TL_MESH_NONE: none */
    uint32_t *vt_start;   /* nv + 1 offsets into vt */
    uint32_t *vt;         /* the facets around each vertex */
    double (*vn)[3];      /* angle-weighted vertex pseudo-normals (Baerentzen & Aanaes 2005) */
    uint32_t *vv_start;   /* convex meshes: nv + 1 offsets into vv (NULL otherwise) */
    uint32_t *vv;         /* convex meshes: the vertices joined to each vertex by an edge */
    double *offset;       /* convex meshes: each facet's plane offset n . v0, m (NULL otherwise) */
    double *reach;        /* convex meshes: each facet's largest distance from its centroid, m */
    uint32_t sup_start[6 * TL_MESH_CELLS * TL_MESH_CELLS]; /* convex: the highest vertex along the
                                                             direction at each cell's centre */
    bool closed;
    bool convex;          /* closed, one piece, and no edge folds inwards (to 1e-12 of the size) */
    double total_area;    /* m^2 */
    double volume;        /* enclosed volume, m^3 (closed meshes; 0 when open) */
    double r_volume;      /* radius of the sphere of the same volume, m (0 when open) */
    double lo[3], hi[3];  /* bounding box, m */
    double radius;        /* largest distance of a vertex from the origin, m */
    tl_bvh bvh;           /* over the facets, in the mesh's own frame */
    tl_mem *mem;
} tl_mesh;

/* Options of mesh creation. */
typedef struct tl_mesh_opts {
    bool allow_open;      /* accept open surfaces (mesh walls): see the checks above */
    double scale;         /* vertices are multiplied by it (0 = 1): metres per file unit */
} tl_mesh_opts;

void tl_mesh_init(tl_mesh *m);
void tl_mesh_free(tl_mesh *m);

/* The mesh's triangles as its hierarchy's queries read them (bvh.h): a pointer to a view made
 * where it is used */
#define TL_MESH_TRIS(m) \
    (&(const tl_tris){(const double(*)[3])(m)->v, (const uint32_t(*)[3])(m)->tri, (const double(*)[3])(m)->c, \
                      (m)->nt, (m)->lo, (m)->hi, &(m)->bvh})

/* A mesh from vertex coordinates (3 nv values) and facets (3 nt indices).
 * `what` names the source in messages (a file name, "icosphere", ...). */
tl_status tl_mesh_from_arrays(tl_mem *mem, tl_mesh *m, const double *xyz, size_t nv, const uint32_t *tri,
                              size_t nt, const tl_mesh_opts *opts, const char *what, char *msg,
                              size_t msg_size);

/* Reads an STL (ASCII or binary) or OBJ file with assimp (identical vertices
 * joined, polygons triangulated, coordinates as read in single precision,
 * times opts->scale), then checks it. */
tl_status tl_mesh_load(tl_mem *mem, tl_mesh *m, const char *path, const tl_mesh_opts *opts, char *msg,
                       size_t msg_size);

/* Metres per unit for the names "m", "cm", "mm", "um"; returns false for
 * any other name. */
bool tl_mesh_unit_scale(const char *unit, double *scale);

/* An icosphere: the icosahedron subdivided k times (0 <= k <= 8), each new
 * vertex pushed onto the sphere of radius R: 10 * 4^k + 2 vertices, 20 * 4^k
 * facets (k = 4: 2562 / 5120, the Kharaz sphere of seed 000, see docs/readings.md#li-brazil-nut). */
tl_status tl_mesh_icosphere(tl_mem *mem, tl_mesh *m, double R, int k, char *msg, size_t msg_size);

/* A triangulated ellipsoid with semi-axes a, b, c (along x, y, z) and
 * exactly `vertices` vertices (>= 5; 2 V - 4 facets): two poles on z and
 * latitude rings whose vertex counts follow sin(latitude), triangulated
 * between neighbouring rings, then diagonals flipped until the mesh is
 * convex (the peanut 810 / 1616 and the Brazil nut 2864 / 5724 of seed 000
 * are made exactly). */
tl_status tl_mesh_ellipsoid(tl_mem *mem, tl_mesh *m, double a, double b, double c, size_t vertices, char *msg,
                            size_t msg_size);

/* Moves the mesh: every vertex x becomes R (x - t) (R a rotation). Facet
 * data, bounding box and BVH are recomputed. Returns TL_ERROR_MEMORY when
 * the BVH could not be rebuilt. */
tl_status tl_mesh_transform(tl_mesh *m, const double R[3][3], const double t[3]);

/* A convex mesh's support along u (not necessarily unit): the vertex with the largest u . v,
 * its value in *h. A walk over the edges from the vertex of the direction cube's cell holding u,
 * each move to the highest neighbour while one lies strictly higher: on a convex surface a
 * vertex with no higher neighbour is the highest (a linear function has no other local maximum
 * there), so the value is exactly max over the vertices of u . v (ties: the vertex the walk meets
 * first). Only for m->convex. */
uint32_t tl_mesh_support(const tl_mesh *m, const double u[3], double *h);
/* The vertex the support walk along u starts from (the table's, within a few edges of the
 * highest): a cheap place near the top of a convex mesh along u. */
uint32_t tl_mesh_support_start(const tl_mesh *m, const double u[3]);

/* The pseudo-normal of a feature of facet f (Baerentzen & Aanaes 2005):
 * the face: its normal; edge k: the normalised sum of the normals of f and
 * of its neighbour across edge k; vertex k: the vertex pseudo-normal. For a
 * point p whose closest point on a closed mesh is q on that feature, p is
 * outside when (p - q) . normal > 0. */
void tl_mesh_feature_normal(const tl_mesh *m, uint32_t f, tl_feature feature, int index, double out[3]);

#endif
