/*
 * The mesh kind (shape_kind.h): a closed triangulated surface (a polyhedron) from a file, a
 * generator or the caller's arrays, moved to its body frame (mass.c), and its contacts by the
 * polygonal contact model (pcm.c, docs/geometry.md): against spheres, ellipsoids (through their
 * tessellation), meshes and every wall. The ellipsoid meets meshes and mesh walls through the
 * functions here.
 */
#include <math.h>
#include <stdio.h>

#include "mass.h"
#include "mesh.h"
#include "shape_kind.h"
#include "vec.h"

static void drop_mesh(tl_mem *mem, tl_mesh *m) {
    tl_mesh_free(m);
    tl_mem_free(mem, m, sizeof *m);
}

/* A mesh shape: the surface from its source, checked, moved to its body frame. */
static tl_status build(tl_mem *mem, const tl_shape_def *d, const char *name, tl_shape *s, tl_mesh **out,
                       double frame[12], char *msg, size_t msg_size) {
    tl_mesh *m = tl_mem_alloc(mem, sizeof *m);
    if (!m) return snprintf(msg, msg_size, "out of memory"), TL_ERROR_MEMORY;
    tl_mesh_init(m);
    char why[512];
    tl_status st;
    tl_mesh_opts opts = {false, d->scale > 0.0 ? d->scale : 1.0};
    switch (d->source) {
    case TL_MESH_FILE:
        if (!d->file) {
            drop_mesh(mem, m);
            snprintf(msg, msg_size, "shape '%s': a mesh file is needed", name);
            return TL_ERROR_ARGUMENT;
        }
        if (!(d->scale >= 0.0) || !isfinite(d->scale)) {
            drop_mesh(mem, m);
            snprintf(msg, msg_size, "shape '%s': scale must be > 0 (m per file unit)", name);
            return TL_ERROR_ARGUMENT;
        }
        st = tl_mesh_load(mem, m, d->file, &opts, why, sizeof why);
        break;
    case TL_MESH_ICOSPHERE:
        if (!tl_body_length_ok(d->radius) || d->subdivisions < 0 || d->subdivisions > 7) {
            drop_mesh(mem, m);
            snprintf(msg, msg_size,
                     "shape '%s': an icosphere needs a radius of 1e-12 to 1e12 m and 0 to 7 subdivisions, got %g and %d",
                     name, d->radius, d->subdivisions);
            return TL_ERROR_ARGUMENT;
        }
        st = tl_mesh_icosphere(mem, m, d->radius, d->subdivisions, why, sizeof why);
        break;
    case TL_MESH_ELLIPSOID: {
        double a = d->semi_axes.x, b = d->semi_axes.y, c = d->semi_axes.z;
        if (!tl_body_length_ok(a) || !tl_body_length_ok(b) || !tl_body_length_ok(c) || d->vertices < 6 ||
            d->vertices > 10000000) {
            drop_mesh(mem, m);
            snprintf(msg, msg_size,
                     "shape '%s': a triangulated ellipsoid needs semi-axes of 1e-12 to 1e12 m and 6 to 1e7 vertices",
                     name);
            return TL_ERROR_ARGUMENT;
        }
        st = tl_mesh_ellipsoid(mem, m, a, b, c, (size_t)d->vertices, why, sizeof why);
        break;
    }
    case TL_MESH_ARRAYS:
        if (!d->vertex_xyz || !d->triangles) {
            drop_mesh(mem, m);
            snprintf(msg, msg_size, "shape '%s': vertex and triangle arrays are needed", name);
            return TL_ERROR_ARGUMENT;
        }
        st = tl_mesh_from_arrays(mem, m, d->vertex_xyz, d->vertex_count, d->triangles, d->triangle_count, &opts,
                                 name, why, sizeof why);
        break;
    default:
        drop_mesh(mem, m);
        snprintf(msg, msg_size, "shape '%s': unknown mesh source %d", name, (int)d->source);
        return TL_ERROR_ARGUMENT;
    }
    if (st != TL_OK) {
        drop_mesh(mem, m);
        snprintf(msg, msg_size, "shape '%s': %s", name, why);
        return st;
    }
    tl_body_frame bf;
    st = tl_mesh_to_body_frame(m, &bf);
    if (st != TL_OK) {
        drop_mesh(mem, m);
        snprintf(msg, msg_size, "shape '%s': out of memory (body frame)", name);
        return st;
    }
    memset(s, 0, sizeof *s);
    s->kind = TL_SHAPE_MESH;
    s->mesh = m;
    s->radius = m->radius;
    s->volume = bf.volume;
    for (int k = 0; k < 3; k++) s->inertia[k] = bf.moments[k];
    s->r_volume = cbrt(3.0 * bf.volume / (4.0 * TL_PI));
    s->mesh_radius = d->mesh_radius;
    s->mesh_depth = d->mesh_depth;
    s->r_contact = d->mesh_radius == TL_MESH_RADIUS_AREA ? m->radius : s->r_volume;
    v3_copy(frame, bf.origin);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) frame[3 + 3 * r + c] = bf.R[r][c];
    *out = m;
    return TL_OK;
}

static void info(const tl_shape *s, tl_shape_info *o) {
    o->vertices = s->mesh->nv;
    o->facets = s->mesh->nt;
}

/* the radius of its law's rule (volume-equivalent, or bounding with the area rule) */
static double contact_radius(const tl_shape *s) { return s->r_contact > 0.0 ? s->r_contact : s->radius; }

/* its contact point need not be a support point: omega R, R its bounding radius (timestep.c) */
static double spin_reach(const tl_shape *s) { return s->radius; }

static bool convex(const tl_shape *s) { return s->mesh && s->mesh->convex; }

/* a sphere (a) against a mesh (b) */
static int sphere_mesh(const tl_body *a, const tl_body *b, const double *n_hint, tl_patch *out, int max,
                       tl_narrow_scratch *s) {
    (void)n_hint;
    tl_pcm_scratch *ps = tl_narrow_pcm(s);
    if (!ps) return -2;
    tl_pcm_opts o = tl_shape_pcm_opts(a, b);
    const tl_mesh *mb = b->shape ? b->shape->mesh : NULL;
    return tl_shape_patches(tl_pcm_sphere_mesh(a->pose.x, a->radius, mb, &b->pose, &o, out, max, ps), max);
}

int tl_mesh_kind_mesh_mesh(const tl_body *a, const tl_body *b, const double *n_hint, tl_patch *out, int max,
                           tl_narrow_scratch *s) {
    tl_pcm_scratch *ps = tl_narrow_pcm(s);
    if (!ps) return -2;
    tl_pcm_opts o = tl_shape_pcm_opts(a, b);
    const tl_mesh *ma = a->shape ? a->shape->mesh : NULL, *mb = b->shape ? b->shape->mesh : NULL;
    if (!ma || !mb) return -1;
    o.n_hint = n_hint;
    return tl_shape_patches(tl_pcm_mesh_mesh(ma, &a->pose, mb, &b->pose, &o, out, max, ps), max);
}

int tl_mesh_kind_mesh_wall(const tl_body *a, const tl_face *f, tl_patch *out, int max, tl_narrow_scratch *s) {
    tl_pcm_scratch *ps = tl_narrow_pcm(s);
    if (!ps) return -2;
    tl_pose wp;
    v3_copy(wp.x, f->T);
    memcpy(wp.R, f->R, sizeof wp.R);
    tl_pcm_opts o = tl_shape_pcm_opts(a, NULL);
    const tl_mesh *ma = a->shape ? a->shape->mesh : NULL;
    if (!ma) return -1;
    return tl_shape_patches(tl_pcm_mesh_mesh(ma, &a->pose, f->mesh, &wp, &o, out, max, ps), max);
}

/* against a plane, rectangle or box face */
static int mesh_face(const tl_body *a, const tl_face *f, tl_patch *out, int max, tl_narrow_scratch *s) {
    const tl_mesh *ma = a->shape ? a->shape->mesh : NULL;
    if (!ma) return -1;
    tl_pcm_scratch *ps = tl_narrow_pcm(s);
    if (!ps) return -2;
    tl_pcm_opts o = tl_shape_pcm_opts(a, NULL);
    return tl_shape_patches(tl_pcm_mesh_face(ma, &a->pose, f, &o, out, max, ps), max);
}

const tl_shape_kind_def tl_mesh_kind = {
    .build = build,
    .info = info,
    .contact_radius = contact_radius,
    .spin_reach = spin_reach,
    .convex = convex,
    .face = mesh_face,
    .mesh_wall = tl_mesh_kind_mesh_wall,
    .pair = {[TL_SHAPE_SPHERE] = {sphere_mesh, true},
             [TL_SHAPE_ELLIPSOID] = {tl_mesh_kind_mesh_mesh, false},
             [TL_SHAPE_MESH] = {tl_mesh_kind_mesh_mesh, false}},
};
