/*
 * The sphere kind (shape_kind.h): a body of its radius alone, no tl_shape of its own (a
 * particle's shape TL_SPHERE, tl_body.shape NULL); its geometry against another sphere and
 * against walls. Its pairs with the other kinds are theirs (the later kind's file).
 */
#include "face.h"
#include "shape_kind.h"
#include "vec.h"

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

static int sphere_sphere(const tl_body *a, const tl_body *b, const double *n_hint, tl_patch *out, int max,
                         tl_narrow_scratch *s) {
    (void)n_hint, (void)max, (void)s;
    tl_geometry g;
    tl_geometry_sphere_sphere(a->pose.x, a->radius, b->pose.x, b->radius, &g);
    return patch_of_geometry(&g, a->pose.x, a->radius, out);
}

static int sphere_face(const tl_body *a, const tl_face *f, tl_patch *out, int max, tl_narrow_scratch *s) {
    (void)max, (void)s;
    tl_geometry g;
    tl_face_geometry(f, a->pose.x, a->radius, &g);
    return patch_of_geometry(&g, a->pose.x, a->radius, out);
}

static int sphere_mesh_wall(const tl_body *a, const tl_face *f, tl_patch *out, int max, tl_narrow_scratch *s) {
    tl_pcm_scratch *ps = tl_narrow_pcm(s);
    if (!ps) return -2;
    tl_pose wp;
    v3_copy(wp.x, f->T);
    memcpy(wp.R, f->R, sizeof wp.R);
    tl_pcm_opts o = tl_shape_pcm_opts(a, NULL);
    return tl_shape_patches(tl_pcm_sphere_mesh(a->pose.x, a->radius, f->mesh, &wp, &o, out, max, ps), max);
}

const tl_shape_kind_def tl_sphere_kind = {
    .face = sphere_face,
    .mesh_wall = sphere_mesh_wall,
    .pair = {[TL_SHAPE_SPHERE] = {sphere_sphere, false}},
};
