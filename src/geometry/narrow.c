/*
 * The narrow phase's table: which geometry function measures which pair of
 * shapes (docs/geometry.md). Spheres are handled here; ellipsoids in
 * ellipsoid.c, meshes in pcm.c.
 */
#include "narrow.h"

#include <string.h>

#include "ellipsoid_pair.h"
#include "vec.h"
#include "walls.h"

void tl_narrow_scratch_init(tl_narrow_scratch *s, tl_mem *mem) {
    memset(s, 0, sizeof *s);
    s->mem = mem;
}

void tl_narrow_scratch_free(tl_narrow_scratch *s) {
    tl_mem *mem = s->mem;
    tl_narrow_scratch_init(s, mem);
}

static tl_shape_kind kind_of(const tl_body *b) { return b->shape ? b->shape->kind : TL_SHAPE_SPHERE; }

int tl_narrow_max_patches(const tl_shape *a, const tl_shape *b) {
    (void)a;
    (void)b;
    return 1;
}

/* a patch from a sphere's tl_geometry: the point in the middle of the overlap */
static int patch_of_geometry(const tl_geometry *g, const double xa[3], double ra, tl_patch *out) {
    if (!(g->delta > 0.0)) return 0;
    out->delta = g->delta;
    v3_copy(out->n, g->n);
    v3_copy(out->p, xa);
    v3_axpy(out->p, ra - 0.5 * g->delta, g->n);
    out->r_eff = g->r_eff;
    out->area = 0.0;
    return 1;
}

int tl_narrow_bodies(const tl_body *a, const tl_body *b, tl_patch *out, int max, tl_narrow_scratch *s) {
    (void)s;
    if (max < 1) return 0;
    tl_shape_kind ka = kind_of(a), kb = kind_of(b);
    if (ka == TL_SHAPE_SPHERE && kb == TL_SHAPE_SPHERE) {
        tl_geometry g;
        tl_geometry_sphere_sphere(a->pose.x, a->radius, b->pose.x, b->radius, &g);
        return patch_of_geometry(&g, a->pose.x, a->radius, out);
    }
    if ((ka == TL_SHAPE_SPHERE || ka == TL_SHAPE_ELLIPSOID) && (kb == TL_SHAPE_SPHERE || kb == TL_SHAPE_ELLIPSOID))
        return tl_ellipsoid_pair(a, b, NULL, out, NULL);
    return -1;
}

int tl_narrow_face(const tl_body *a, const tl_face *f, tl_patch *out, int max, tl_narrow_scratch *s) {
    (void)s;
    if (max < 1) return 0;
    if (f->kind == TL_FACE_MESH) return -1;
    if (kind_of(a) == TL_SHAPE_SPHERE) {
        tl_geometry g;
        tl_face_geometry(f, a->pose.x, a->radius, &g);
        return patch_of_geometry(&g, a->pose.x, a->radius, out);
    }
    if (kind_of(a) == TL_SHAPE_ELLIPSOID) return tl_ellipsoid_face(a, f, out);
    return -1;
}
