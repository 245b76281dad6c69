/*
 * Contact of triangle meshes: the polygonal contact model (PCM; Hippmann,
 * "An algorithm for compliant contact between complexly shaped bodies",
 * Multibody Syst. Dyn. 12, 345-362, 2004; the contact model of seed 000) for
 * mesh-mesh and mesh-wall pairs, and the closest feature for sphere-mesh
 * pairs. docs/geometry.md gives the method and the choices made where the
 * sources are silent.
 *
 * PCM in brief. Contact elements are the facets of one body lying inside
 * the other, each with its penetration into the other body. Here the
 * penetration is the distance to the other body's surface (signed by the
 * pseudo-normal of the closest feature), found at the facet's three vertices
 * and linear over it, and a facet that straddles the other surface counts
 * with the part of it that is inside; the option whole_facets gives
 * Hippmann's elements as they are (a facet counts whole when its centroid
 * is inside). Each element is weighted by how flat the other surface is over
 * it. Elements are found both ways (a's facets in b, b's facets in a), split
 * into patches by adjacency, and each patch gives one contact (tl_patch,
 * narrow.h):
 *   n      the area-weighted mean of a's element normals and of minus b's;
 *   delta  by tl_pcm_depth (below);
 *   p      on the line along n through the projected-area centroid of the
 *          elements, in the middle between the two surfaces;
 *   area   the patch's area projected on the contact plane;
 *   r_eff  by tl_pcm_radius (below).
 * Each body's side is weighted by how many of its facets the patch covers,
 * so a finely meshed body against a coarse one is measured by its own fine
 * facets, and swapping a and b gives the same patch with n reversed.
 *
 * Every function writes its patches to out and returns their number; when
 * more were found than max, the smallest are merged into their nearest
 * neighbours until max remain (the sphere-mesh pair keeps the deepest max
 * instead), max are written and the number found (> max) is returned: read
 * min(returned, max). -2: the scratch could not grow (out of memory).
 * Functions are thread-safe with one scratch per thread, and give the same
 * bits whatever the scratch served before.
 */
#ifndef TL_PCM_H
#define TL_PCM_H

#include <stdbool.h>

#include "alloc.h"
#include "mesh.h"
#include "patch.h"
#include "face.h"

/* How a patch's overlap delta is measured (docs/geometry.md compares them on
 * faceted spheres). */
typedef enum tl_pcm_depth {
    TL_PCM_DEPTH_VOLUME = 0, /* 2 V / A: the overlap volume over the projected area (exact for two
                              * paraboloids; twice the depth for two flat faces) */
    TL_PCM_DEPTH_LINE,       /* the thickness of the overlap along n through the patch's centre */
    TL_PCM_DEPTH_MAX,        /* the largest element penetration, projected on n */
    TL_PCM_DEPTH_POTENTIAL   /* against a plane or rectangle (mesh_halfspace): delta = 3 Phi / V,
                              * Phi = int d^2/2 dA the overlap's first moment about the face (exact
                              * for a paraboloid, 3h/2 for a flat face pressed h), with the force
                              * along delta's gradient: fn_scale = d delta / d(approach) in
                              * [3/4, 3/2] for a convex body, at the point where the gradient's
                              * moment puts it. Between two meshes (tl_pcm_mesh_mesh) the same
                              * 3 Phi / V over both bodies' surfaces inside each other, the force
                              * and couple its exact gradient (tl_patch.couple). The law's energy
                              * E(delta(pose)) is then a potential: the contact conserves energy
                              * (geometry.md) */
} tl_pcm_depth;

/* The equivalent radius a Hertzian law is given. */
typedef enum tl_pcm_radius {
    TL_PCM_RADIUS_VOLUME = 0, /* R* = Ra Rb / (Ra + Rb) from the radii of the spheres of the same volume
                               * (a wall, or an open mesh: the body's own); seed 000's reading */
    TL_PCM_RADIUS_AREA        /* A / (2 pi delta): exact for spheres (a^2 = 2 R* delta) */
} tl_pcm_radius;

typedef struct tl_pcm_opts {
    tl_pcm_depth depth;
    tl_pcm_radius radius;
    bool whole_facets; /* Hippmann's elements: whole facets whose centroid is inside */
    const double *n_hint; /* mesh-mesh, two convex bodies: a unit normal from a to b (world) near
                           * the contact's, e.g. the last step's, or NULL. It steers the search
                           * only: the patches do not depend on it (their elements are summed
                           * in facet order) */
} tl_pcm_opts;

/* Working memory, one per thread, grown on demand through mem (which must
 * not be shared with another thread while this scratch grows). */
typedef struct tl_pcm_scratch {
    tl_mem *mem;
    struct tl_pcm_work *w;
    size_t visited;  /* facets the last call looked at (both bodies) */
    size_t elements; /* contact elements it found */
} tl_pcm_scratch;

void tl_pcm_scratch_init(tl_pcm_scratch *s, tl_mem *mem);
void tl_pcm_scratch_free(tl_pcm_scratch *s);

/* Two closed meshes (bodies) or a closed and an open one (a mesh wall, b),
 * each placed by its pose; n from a to b. opts may be NULL (the defaults). */
int tl_pcm_mesh_mesh(const tl_mesh *a, const tl_pose *pa, const tl_mesh *b, const tl_pose *pb,
                     const tl_pcm_opts *opts, tl_patch *out, int max, tl_pcm_scratch *s);

/* A mesh against a wall face: an infinite plane (one-sided: the half-space
 * behind it, opposite its normal) or a rectangle (two-sided: the side
 * opposite the body's centroid, over the rectangle only). n from the mesh to
 * the face. */
int tl_pcm_mesh_plane(const tl_mesh *a, const tl_pose *pa, const tl_face *f, const tl_pcm_opts *opts,
                      tl_patch *out, int max, tl_pcm_scratch *s);
int tl_pcm_mesh_rect(const tl_mesh *a, const tl_pose *pa, const tl_face *f, const tl_pcm_opts *opts,
                     tl_patch *out, int max, tl_pcm_scratch *s);
/* Either, by the face's kind. */
int tl_pcm_mesh_face(const tl_mesh *a, const tl_pose *pa, const tl_face *f, const tl_pcm_opts *opts,
                     tl_patch *out, int max, tl_pcm_scratch *s);

/* A sphere (centre c, radius r) against a mesh: per connected region of the
 * mesh inside the sphere, the closest point of the mesh to the centre (a
 * face, edge or vertex), which is continuous as the sphere moves across
 * edges and vertices and never counts a shared edge twice. n from the sphere
 * to the mesh; p in the middle of the overlap on the line from the centre to
 * the closest point. A closed mesh pushes a centre that is inside it out
 * (delta = r + distance); an open one pushes the sphere to the side its
 * centre is on. */
int tl_pcm_sphere_mesh(const double c[3], double r, const tl_mesh *b, const tl_pose *pb, const tl_pcm_opts *opts,
                       tl_patch *out, int max, tl_pcm_scratch *s);

#endif
