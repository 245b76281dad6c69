/*
 * What a shape kind is: the row of the table of kinds (shape_kinds.c), YADE's idea of a shape
 * as a class plus the pair functions found by lookup. A kind lives in its file (shape_sphere.c,
 * shape_ellipsoid.c, shape_mesh.c: its definition, a tl_shape_kind_def, and the functions it
 * names), its row in the table (its name and its definition) and its tl_shape_kind value
 * (include/talus/types.h); docs/contributing.md.
 *
 * The narrow phase (narrow.c) finds a pair's function in the rows: the row of the later kind
 * of the two (the larger tl_shape_kind value) holds the functions of its pairs with every kind
 * up to itself, so a new kind brings its pairs with the kinds before it and no other row
 * changes. The swap of a pair met the other way round is the dispatcher's, once.
 */
#ifndef TL_SHAPE_KIND_H
#define TL_SHAPE_KIND_H

#include <stdbool.h>
#include <stddef.h>

#include <string.h>

#include "alloc.h"
#include "narrow_scratch.h"
#include "patch.h"
#include "pcm.h"

struct tl_face;

/* the most kinds the table can hold (the rows' pair arrays are this long) */
#define TL_SHAPE_KIND_MAX 8

/* The patches of two bodies (tl_narrow_bodies' contract: at most max written, -1 when the pair
 * has no geometry, -2 when the scratch could not grow). */
typedef int (*tl_pair_fn)(const tl_body *a, const tl_body *b, const double *n_hint, tl_patch *out, int max,
                          tl_narrow_scratch *s);
/* The patches of a body against a wall's face (tl_narrow_face's contract). */
typedef int (*tl_face_fn)(const tl_body *a, const struct tl_face *f, tl_patch *out, int max,
                          tl_narrow_scratch *s);

/* The function of the pairs of a row's kind with kind j (j up to the row's own). */
typedef struct tl_shape_pair {
    tl_pair_fn fn; /* NULL: the pair has no geometry function (-1) */
    /* fn takes the body of kind j first and the row's kind second: a pair met the other way
     * round is swapped and its normals reversed by the dispatcher. false: fn takes its bodies
     * in either order (as they come) */
    bool swap;
} tl_shape_pair;

typedef struct tl_shape_kind_def {
    /* Builds the shape of d (a tl_shape_def of this kind; name for messages): its volume,
     * inertia per unit mass, bounding radius and the rest of s; the mesh it owns (*mesh, freed
     * by tl_mesh_free and mem: a mesh's surface, an ellipsoid's display tessellation) or NULL;
     * and where its body frame lies in the frame it was given in (frame: the origin, then R
     * row by row; left as given, the identity, when the two are one). On a failure its status
     * and the message ("shape 'NAME': ...") in msg, nothing kept. NULL: the kind needs no shape
     * (the sphere: its radius). */
    tl_status (*build)(tl_mem *mem, const tl_shape_def *d, const char *name, tl_shape *s, tl_mesh **mesh,
                       double frame[12], char *msg, size_t msg_size);
    /* what tl_world_get_shape reports of the kind beyond the common fields (NULL: nothing) */
    void (*info)(const tl_shape *s, tl_shape_info *o);
    /* the largest radius of curvature it can present to a Hertzian law, m (the step's bound) */
    double (*contact_radius)(const tl_shape *s);
    /* the largest normal speed its spin gives its surface, per rad/s (the step's bound) */
    double (*spin_reach)(const tl_shape *s);
    /* whether its contacts give one patch (a convex body) or up to TL_MAX_PATCHES (NULL: convex) */
    bool (*convex)(const tl_shape *s);
    /* the matrices its pairs' searches need (tl_body.M and .Mi, 9 values each), which the shape
     * stage works out once per body and stage (NULL: none) */
    void (*matrices)(const tl_body *b, double M[9], double Mi[9]);
    /* its geometry against a plane, rectangle or box face, and against a mesh wall */
    tl_face_fn face;
    tl_face_fn mesh_wall;
    /* its pairs with the kinds up to its own, indexed by the other's tl_shape_kind */
    tl_shape_pair pair[TL_SHAPE_KIND_MAX];
} tl_shape_kind_def;

/* The kinds' definitions (shape_kinds.c), indexed by tl_shape_kind: the narrow phase reads
 * them per pair. tl_shape_kind_count() of them. */
extern const tl_shape_kind_def *const tl_shape_kinds[];
size_t tl_shape_kind_count(void);
/* The definition of a kind (NULL: none). */
const tl_shape_kind_def *tl_shape_kind_def_of(tl_shape_kind kind);
/* A kind's name, as scenes, the Python names and messages spell it ("?" for none). */
const char *tl_shape_kind_name(tl_shape_kind kind);
/* The kinds' names in the order of tl_shape_kind (the scene's "shape.kind" table): the count. */
size_t tl_shape_kind_names(const char *const **names);

/* The largest radius of curvature the shape can present to a Hertzian law, m (the time step's
 * bound uses it: a larger radius makes a stiffer contact), and the largest normal speed its
 * spin gives its surface per rad/s (s NULL, a sphere: 0); its kind's. */
double tl_shape_contact_radius(const tl_shape *s);
double tl_shape_spin_reach(const tl_shape *s);

/* ---- what the kinds' files share ---- */

/* the polygonal contact model's readings for a pair (b NULL: a wall) */
static inline tl_pcm_opts tl_shape_pcm_opts(const tl_body *a, const tl_body *b) {
    tl_pcm_opts o;
    memset(&o, 0, sizeof o);
    /* the area rule when either body asks for it */
    bool area = (a && a->shape && a->shape->mesh_radius == TL_MESH_RADIUS_AREA) ||
                (b && b->shape && b->shape->mesh_radius == TL_MESH_RADIUS_AREA);
    o.radius = area ? TL_PCM_RADIUS_AREA : TL_PCM_RADIUS_VOLUME;
    /* the potential reading when either body asks for it (an ellipsoid meets a mesh through its
     * tessellation, and takes the mesh's reading) */
    if ((a && a->shape && a->shape->mesh_depth == TL_MESH_DEPTH_POTENTIAL) ||
        (b && b->shape && b->shape->mesh_depth == TL_MESH_DEPTH_POTENTIAL))
        o.depth = TL_PCM_DEPTH_POTENTIAL;
    return o;
}

/* a count of patches as the narrow phase gives it: a failure (< 0) as is, else at most max */
static inline int tl_shape_patches(int n, int max) { return n < 0 ? n : n > max ? max : n; }

/* the mesh kind's geometry of two bodies through their meshes (an ellipsoid's tessellation),
 * and of a body's mesh against a mesh wall (shape_mesh.c; the ellipsoid meets meshes so) */
int tl_mesh_kind_mesh_mesh(const tl_body *a, const tl_body *b, const double *n_hint, tl_patch *out, int max,
                           tl_narrow_scratch *s);
int tl_mesh_kind_mesh_wall(const tl_body *a, const struct tl_face *f, tl_patch *out, int max,
                           tl_narrow_scratch *s);

#endif
