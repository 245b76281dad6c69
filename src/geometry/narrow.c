/*
 * The narrow phase's dispatcher (docs/geometry.md): which geometry function measures which
 * pair of shapes, looked up in the table of shape kinds (shape_kind.h). The functions are
 * each kind's (shape_sphere.c, shape_ellipsoid.c, shape_mesh.c) over the kernels
 * (ellipsoid_pair.c, pcm.c, face.c).
 */
#include "narrow.h"

#include "face.h"
#include "shape_kind.h"
#include "vec.h"

static inline tl_shape_kind kind_of(const tl_body *b) { return b->shape ? b->shape->kind : TL_SHAPE_SPHERE; }

static bool convex(const tl_shape *s) {
    if (!s) return true;
    const tl_shape_kind_def *k = tl_shape_kinds[s->kind];
    return !k->convex || k->convex(s);
}

int tl_narrow_max_patches(const tl_shape *a, const tl_shape *b) {
    return convex(a) && convex(b) ? 1 : TL_MAX_PATCHES;
}

int tl_narrow_max_patches_face(const tl_shape *a, const struct tl_face *f) {
    return f->kind == TL_FACE_MESH || !convex(a) ? TL_MAX_PATCHES : 1;
}

static void reverse(tl_patch *p, int n) {
    for (int k = 0; k < n; k++) v3_scale(p[k].n, p[k].n, -1.0);
}

int tl_narrow_bodies(const tl_body *a, const tl_body *b, const double *n_hint, tl_patch *out, int max,
                     tl_narrow_scratch *s) {
    if (max < 1) return 0;
    const tl_shape_kind ka = kind_of(a), kb = kind_of(b);
    /* the pair's function is in the row of the later kind */
    const tl_shape_pair *pr = ka >= kb ? &tl_shape_kinds[ka]->pair[kb] : &tl_shape_kinds[kb]->pair[ka];
    if (!pr->fn) return -1;
    if (!(pr->swap && ka > kb)) return pr->fn(a, b, n_hint, out, max, s);
    /* the function takes the earlier kind first: b's, so the pair is measured from b to a */
    double h[3];
    if (n_hint) v3_scale(h, n_hint, -1.0);
    int n = pr->fn(b, a, n_hint ? h : NULL, out, max, s);
    if (n > 0) reverse(out, n);
    return n;
}

int tl_narrow_face(const tl_body *a, const tl_face *f, tl_patch *out, int max, tl_narrow_scratch *s) {
    if (max < 1) return 0;
    const tl_shape_kind_def *k = tl_shape_kinds[kind_of(a)];
    tl_face_fn fn = f->kind == TL_FACE_MESH ? k->mesh_wall : k->face;
    return fn ? fn(a, f, out, max, s) : -1;
}
