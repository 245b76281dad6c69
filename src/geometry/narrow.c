/*
 * The narrow phase's table: which geometry function measures which pair of
 * shapes (docs/geometry.md). Spheres are handled here; ellipsoids in
 * ellipsoid.c, meshes in pcm.c.
 */
#include "narrow.h"

#include <string.h>

#include "ellipsoid_pair.h"
#include "mesh.h"
#include "pcm.h"
#include "vec.h"
#include "face.h"

void tl_narrow_scratch_init(tl_narrow_scratch *s, const tl_allocator *a) {
    memset(s, 0, sizeof *s);
    tl_mem_init(&s->mem, a);
}

void tl_narrow_scratch_free(tl_narrow_scratch *s) {
    if (s->pcm) {
        tl_pcm_scratch_free(s->pcm);
        tl_mem_free(&s->mem, s->pcm, sizeof *s->pcm);
    }
    s->pcm = NULL;
}

void tl_narrow_scratch_moved(tl_narrow_scratch *s) {
    if (s->pcm) s->pcm->mem = &s->mem;
}

static tl_pcm_scratch *pcm_scratch(tl_narrow_scratch *s) {
    if (!s->pcm) {
        s->pcm = tl_mem_alloc(&s->mem, sizeof *s->pcm);
        if (s->pcm) tl_pcm_scratch_init(s->pcm, &s->mem);
    }
    return s->pcm;
}

static tl_shape_kind kind_of(const tl_body *b) { return b->shape ? b->shape->kind : TL_SHAPE_SPHERE; }

/* the mesh of a body for the polygonal contact model: a mesh's own surface, an
 * ellipsoid's tessellation (docs/geometry.md) */
static const tl_mesh *mesh_of(const tl_body *b) { return b->shape ? b->shape->mesh : NULL; }

static bool convex(const tl_shape *s) { return !s || s->kind != TL_SHAPE_MESH || (s->mesh && s->mesh->convex); }

int tl_narrow_max_patches(const tl_shape *a, const tl_shape *b) {
    return convex(a) && convex(b) ? 1 : TL_MAX_PATCHES;
}

int tl_narrow_max_patches_face(const tl_shape *a, const struct tl_face *f) {
    return f->kind == TL_FACE_MESH || !convex(a) ? TL_MAX_PATCHES : 1;
}

static tl_pcm_opts opts_of(const tl_body *a, const tl_body *b) {
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

static int clip(int n, int max) { return n > max ? max : n; }

static void reverse(tl_patch *p, int n) {
    for (int k = 0; k < n; k++) v3_scale(p[k].n, p[k].n, -1.0);
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
    out->fn_scale = 1.0;
    out->r_kind = TL_PATCH_R_KEPT;
    v3_zero(out->r_grad);
    v3_zero(out->couple);
    for (int k = 0; k < 6; k++) out->rock[k] = 0.0;
    return 1;
}

int tl_narrow_bodies(const tl_body *a, const tl_body *b, const double *n_hint, tl_patch *out, int max,
                     tl_narrow_scratch *s) {
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
    tl_pcm_scratch *ps = pcm_scratch(s);
    if (!ps) return -2;
    tl_pcm_opts o = opts_of(a, b);
    int n;
    if (ka == TL_SHAPE_SPHERE) {
        n = tl_pcm_sphere_mesh(a->pose.x, a->radius, mesh_of(b), &b->pose, &o, out, max, ps);
    } else if (kb == TL_SHAPE_SPHERE) {
        n = tl_pcm_sphere_mesh(b->pose.x, b->radius, mesh_of(a), &a->pose, &o, out, max, ps);
        if (n > 0) reverse(out, clip(n, max));
    } else {
        const tl_mesh *ma = mesh_of(a), *mb = mesh_of(b);
        if (!ma || !mb) return -1;
        o.n_hint = n_hint;
        n = tl_pcm_mesh_mesh(ma, &a->pose, mb, &b->pose, &o, out, max, ps);
    }
    return n < 0 ? n : clip(n, max);
}

int tl_narrow_face(const tl_body *a, const tl_face *f, tl_patch *out, int max, tl_narrow_scratch *s) {
    (void)s;
    if (max < 1) return 0;
    if (f->kind == TL_FACE_MESH) {
        tl_pcm_scratch *ps = pcm_scratch(s);
        if (!ps) return -2;
        tl_pose wp;
        v3_copy(wp.x, f->T);
        memcpy(wp.R, f->R, sizeof wp.R);
        tl_pcm_opts o = opts_of(a, NULL);
        int n;
        if (kind_of(a) == TL_SHAPE_SPHERE) {
            n = tl_pcm_sphere_mesh(a->pose.x, a->radius, f->mesh, &wp, &o, out, max, ps);
        } else {
            if (!mesh_of(a)) return -1;
            n = tl_pcm_mesh_mesh(mesh_of(a), &a->pose, f->mesh, &wp, &o, out, max, ps);
        }
        return n < 0 ? n : clip(n, max);
    }
    if (kind_of(a) == TL_SHAPE_SPHERE) {
        tl_geometry g;
        tl_face_geometry(f, a->pose.x, a->radius, &g);
        return patch_of_geometry(&g, a->pose.x, a->radius, out);
    }
    if (kind_of(a) == TL_SHAPE_ELLIPSOID) return tl_ellipsoid_face(a, f, out);
    if (!mesh_of(a)) return -1;
    tl_pcm_scratch *ps = pcm_scratch(s);
    if (!ps) return -2;
    tl_pcm_opts o = opts_of(a, NULL);
    int n = tl_pcm_mesh_face(mesh_of(a), &a->pose, f, &o, out, max, ps);
    return n < 0 ? n : clip(n, max);
}
