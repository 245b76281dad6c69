/*
 * The world's shapes: bodies other than spheres, stored once in their body
 * frame and referred to by index from the particles (docs/shapes.md).
 */
#include <math.h>
#include <string.h>

#include "mass.h"
#include "mesh.h"
#include "vec.h"
#include "world.h"

/* an ellipsoid's display tessellation (the VTK surfaces): vertices */
#define ELLIPSOID_DISPLAY_VERTICES 402

tl_shape_def tl_shape_default(void) {
    tl_shape_def d;
    memset(&d, 0, sizeof d);
    d.kind = TL_SHAPE_ELLIPSOID;
    d.scale = 1.0;
    d.mesh_radius = TL_MESH_RADIUS_VOLUME;
    /* the conservative reading (docs/geometry.md); the paper's PCM reading by name */
    d.mesh_depth = TL_MESH_DEPTH_POTENTIAL;
    return d;
}

/* a body's length (a radius, a semi-axis): the range of a sphere's radius, TL_MIN_RADIUS (below,
 * masses underflow) to TL_MAX_COORDINATE */
static bool body_length_ok(double x) { return x >= TL_MIN_RADIUS && x <= TL_MAX_COORDINATE; }

/* An ellipsoid of semi-axes a, b, c along the body axes (closed forms). */
static void shape_ellipsoid(tl_shape *s, double a, double b, double c) {
    memset(s, 0, sizeof *s);
    s->kind = TL_SHAPE_ELLIPSOID;
    s->semi[0] = a;
    s->semi[1] = b;
    s->semi[2] = c;
    s->radius = dmax(a, dmax(b, c));
    s->volume = 4.0 / 3.0 * TL_PI * a * b * c;
    s->inertia[0] = (b * b + c * c) / 5.0;
    s->inertia[1] = (a * a + c * c) / 5.0;
    s->inertia[2] = (a * a + b * b) / 5.0;
    s->r_volume = cbrt(a * b * c);
}

/* grows the per-shape arrays to cap entries (the new ones zeroed) */
static int grow_shapes(tl_world *w, size_t need) {
    size_t cap = w->shapes.cap;
    if (need <= cap) return 0;
    size_t ncap = cap ? cap * 2 : 4;
    while (ncap < need) ncap *= 2;
    tl_shape *s = tl_mem_realloc(&w->mem, w->shapes.of, cap * sizeof *s, ncap * sizeof *s);
    if (!s) return -1;
    w->shapes.of = s;
    char **nm = tl_mem_realloc(&w->mem, w->shapes.names, cap * sizeof *nm, ncap * sizeof *nm);
    if (!nm) {
        w->shapes.of = tl_mem_realloc(&w->mem, w->shapes.of, ncap * sizeof *s, cap * sizeof *s);
        return -1;
    }
    w->shapes.names = nm;
    tl_mesh **ms = tl_mem_realloc(&w->mem, w->shapes.mesh, cap * sizeof *ms, ncap * sizeof *ms);
    if (!ms) return -1; /* the other arrays are larger than cap says: freed by their smaller size */
    w->shapes.mesh = ms;
    double (*fr)[12] = tl_mem_realloc(&w->mem, w->shapes.frame, cap * sizeof *fr, ncap * sizeof *fr);
    if (!fr) return -1;
    w->shapes.frame = fr;
    for (size_t k = cap; k < ncap; k++) {
        memset(&w->shapes.of[k], 0, sizeof w->shapes.of[k]);
        w->shapes.names[k] = NULL;
        w->shapes.mesh[k] = NULL;
        memset(w->shapes.frame[k], 0, sizeof w->shapes.frame[k]);
    }
    w->shapes.cap = ncap;
    return 0;
}

static tl_mesh *new_mesh(tl_world *w) {
    tl_mesh *m = tl_mem_alloc(&w->mem, sizeof *m);
    if (m) tl_mesh_init(m);
    return m;
}

static void drop_mesh(tl_world *w, tl_mesh *m) {
    if (!m) return;
    tl_mesh_free(m);
    tl_mem_free(&w->mem, m, sizeof *m);
}

/* A mesh shape: the surface from its source, checked, moved to its body frame. */
static tl_status shape_mesh(tl_world *w, const tl_shape_def *d, const char *name, tl_shape *s, tl_mesh **out,
                            double frame[12]) {
    tl_mesh *m = new_mesh(w);
    if (!m) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    char msg[512];
    tl_status st;
    tl_mesh_opts opts = {false, d->scale > 0.0 ? d->scale : 1.0};
    switch (d->source) {
    case TL_MESH_FILE:
        if (!d->file) {
            drop_mesh(w, m);
            return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape '%s': a mesh file is needed", name);
        }
        if (!(d->scale >= 0.0) || !isfinite(d->scale)) {
            drop_mesh(w, m);
            return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape '%s': scale must be > 0 (m per file unit)", name);
        }
        st = tl_mesh_load(&w->mem, m, d->file, &opts, msg, sizeof msg);
        break;
    case TL_MESH_ICOSPHERE:
        if (!body_length_ok(d->radius) || d->subdivisions < 0 || d->subdivisions > 7) {
            drop_mesh(w, m);
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "shape '%s': an icosphere needs a radius of 1e-12 to 1e12 m and 0 to 7 subdivisions, got %g and %d",
                                 name, d->radius, d->subdivisions);
        }
        st = tl_mesh_icosphere(&w->mem, m, d->radius, d->subdivisions, msg, sizeof msg);
        break;
    case TL_MESH_ELLIPSOID: {
        double a = d->semi_axes.x, b = d->semi_axes.y, c = d->semi_axes.z;
        if (!body_length_ok(a) || !body_length_ok(b) || !body_length_ok(c) || d->vertices < 6 ||
            d->vertices > 10000000) {
            drop_mesh(w, m);
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "shape '%s': a triangulated ellipsoid needs semi-axes of 1e-12 to 1e12 m and 6 to 1e7 vertices",
                                 name);
        }
        st = tl_mesh_ellipsoid(&w->mem, m, a, b, c, (size_t)d->vertices, msg, sizeof msg);
        break;
    }
    case TL_MESH_ARRAYS:
        if (!d->vertex_xyz || !d->triangles) {
            drop_mesh(w, m);
            return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape '%s': vertex and triangle arrays are needed", name);
        }
        st = tl_mesh_from_arrays(&w->mem, m, d->vertex_xyz, d->vertex_count, d->triangles, d->triangle_count, &opts,
                                 name, msg, sizeof msg);
        break;
    default:
        drop_mesh(w, m);
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape '%s': unknown mesh source %d", name, (int)d->source);
    }
    if (st != TL_OK) {
        drop_mesh(w, m);
        return tl_world_fail(w, st, "shape '%s': %s", name, msg);
    }
    tl_body_frame bf;
    st = tl_mesh_to_body_frame(m, &bf);
    if (st != TL_OK) {
        drop_mesh(w, m);
        return tl_world_fail(w, st, "shape '%s': out of memory (body frame)", name);
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

/* the unit quaternion of a rotation matrix (Shepperd's method) */
static tl_quat matrix_quat(const double *R) {
    double m00 = R[0], m01 = R[1], m02 = R[2], m10 = R[3], m11 = R[4], m12 = R[5], m20 = R[6], m21 = R[7],
           m22 = R[8];
    double tr = m00 + m11 + m22, w, x, y, z;
    if (tr > 0.0) {
        double s = 2.0 * sqrt(tr + 1.0);
        w = 0.25 * s;
        x = (m21 - m12) / s;
        y = (m02 - m20) / s;
        z = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = 2.0 * sqrt(1.0 + m00 - m11 - m22);
        w = (m21 - m12) / s;
        x = 0.25 * s;
        y = (m01 + m10) / s;
        z = (m02 + m20) / s;
    } else if (m11 > m22) {
        double s = 2.0 * sqrt(1.0 + m11 - m00 - m22);
        w = (m02 - m20) / s;
        x = (m01 + m10) / s;
        y = 0.25 * s;
        z = (m12 + m21) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + m22 - m00 - m11);
        w = (m10 - m01) / s;
        x = (m02 + m20) / s;
        y = (m12 + m21) / s;
        z = 0.25 * s;
    }
    if (w < 0.0) w = -w, x = -x, y = -y, z = -z;
    return (tl_quat){w, x, y, z};
}

tl_status tl_world_add_shape(tl_world *w, const tl_shape_def *d, int *out_index) {
    if (!w || !d) return TL_ERROR_ARGUMENT;
    const char *name = d->name ? d->name : "";
    if (w->shapes.count == 0) {
        /* index 0 is the sphere: no entry of its own */
        if (grow_shapes(w, 4) != 0) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        w->shapes.count = 1;
    }
    if (w->shapes.count >= 0x7fffffff)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape '%s': too many shapes", name);
    if ((unsigned)d->mesh_radius > (unsigned)TL_MESH_RADIUS_AREA ||
        (unsigned)d->mesh_depth > (unsigned)TL_MESH_DEPTH_POTENTIAL)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape '%s': mesh_radius or mesh_depth out of range", name);
    if (d->mesh_depth == TL_MESH_DEPTH_POTENTIAL && d->mesh_radius == TL_MESH_RADIUS_AREA)
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "shape '%s': the potential contact depth takes the volume-equivalent radius "
                             "(a radius from the patch's area would make the force depend on more than "
                             "the energy's gradient)",
                             name);
    tl_shape s;
    tl_mesh *mesh = NULL;
    double frame[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    switch (d->kind) {
    case TL_SHAPE_ELLIPSOID: {
        double a = d->semi_axes.x, b = d->semi_axes.y, c = d->semi_axes.z;
        if (!body_length_ok(a) || !body_length_ok(b) || !body_length_ok(c))
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "shape '%s': ellipsoid semi_axes must be 1e-12 to 1e12 m (a sphere's radii), got (%g, %g, %g)",
                                 name, a, b, c);
        shape_ellipsoid(&s, a, b, c);
        /* its contacts with meshes go through its tessellation, measured as its def asks (the
         * conservative reading by default); its radius is always the volume-equivalent one */
        s.mesh_depth = d->mesh_depth;
        /* its tessellation: for the outputs, and for its contacts with meshes */
        mesh = new_mesh(w);
        char msg[256];
        if (!mesh || tl_mesh_ellipsoid(&w->mem, mesh, a, b, c, ELLIPSOID_DISPLAY_VERTICES, msg, sizeof msg) != TL_OK) {
            drop_mesh(w, mesh);
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (shape '%s')", name);
        }
        break;
    }
    case TL_SHAPE_MESH: {
        tl_status st = shape_mesh(w, d, name, &s, &mesh, frame);
        if (st != TL_OK) return st;
        break;
    }
    default:
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "shape '%s': kind must be ellipsoid or mesh (spheres need no shape)", name);
    }
    char *copy = tl_mem_strdup(&w->mem, name);
    if (!copy || grow_shapes(w, w->shapes.count + 1) != 0) {
        tl_mem_strfree(&w->mem, copy);
        drop_mesh(w, mesh);
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    }
    size_t k = w->shapes.count++;
    if (s.kind == TL_SHAPE_ELLIPSOID) s.mesh = mesh;
    tl_quat fq = matrix_quat(frame + 3);
    s.frame_q[0] = fq.w;
    s.frame_q[1] = fq.x;
    s.frame_q[2] = fq.y;
    s.frame_q[3] = fq.z;
    s.framed = false;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) s.framed |= frame[3 + 3 * r + c] != (r == c ? 1.0 : 0.0);
    if (!s.framed) {
        s.frame_q[0] = 1.0;
        s.frame_q[1] = s.frame_q[2] = s.frame_q[3] = 0.0;
    }
    w->shapes.of[k] = s;
    w->shapes.names[k] = copy;
    w->shapes.mesh[k] = mesh;
    memcpy(w->shapes.frame[k], frame, sizeof frame);
    if (out_index) *out_index = (int)k;
    return TL_OK;
}

/* ---- Orientations ----
 * A mesh is stored in its body frame (centroid at the origin, axes along the
 * principal axes): a point with body coordinates b lies at c + E b in the
 * frame the mesh was given in (E = R(frame_q), c its centroid). The
 * orientation q a user gives or reads turns the mesh as given about its
 * centroid: the given point v is at x + R(q) (v - c) = x + R(q) E b, so the
 * engine's attitude of the body frame is q_body = q * frame_q (R(a * b) =
 * R(a) R(b), Hamilton products), and q = q_body * conj(frame_q). Shapes whose
 * frame is exactly the identity (ellipsoids, meshes already in their
 * principal axes) are left alone, bit for bit. */
void tl_shape_body_attitude(const tl_shape *s, const double given[4], double body[4]) {
    if (!s || !s->framed) {
        memmove(body, given, 4 * sizeof *body);
        return;
    }
    double b[4];
    q_mul(b, given, s->frame_q);
    q_normalize(b);
    memcpy(body, b, sizeof b);
}

void tl_shape_given_attitude(const tl_shape *s, const double body[4], double given[4]) {
    if (!s || !s->framed) {
        memmove(given, body, 4 * sizeof *given);
        return;
    }
    const double c[4] = {s->frame_q[0], -s->frame_q[1], -s->frame_q[2], -s->frame_q[3]};
    double g[4];
    q_mul(g, body, c);
    memcpy(given, g, sizeof g);
}

int tl_world_shape_count(const tl_world *w) { return w->shapes.count ? (int)w->shapes.count - 1 : 0; }

tl_status tl_world_get_shape(const tl_world *w, int index, tl_shape_info *o) {
    if (!w || !o) return TL_ERROR_ARGUMENT;
    if (index < 1 || (size_t)index >= w->shapes.count) return TL_ERROR_NOT_FOUND;
    const tl_shape *s = &w->shapes.of[index];
    memset(o, 0, sizeof *o);
    o->kind = s->kind;
    o->name = w->shapes.names[index];
    o->volume = s->volume;
    o->radius = s->radius;
    o->volume_radius = s->r_volume;
    o->inertia = (tl_vec3){s->inertia[0], s->inertia[1], s->inertia[2]};
    o->semi_axes = (tl_vec3){s->semi[0], s->semi[1], s->semi[2]};
    const double *fr = w->shapes.frame[index];
    o->origin = (tl_vec3){fr[0], fr[1], fr[2]};
    o->frame = matrix_quat(fr + 3);
    if (s->kind == TL_SHAPE_MESH) {
        o->vertices = s->mesh->nv;
        o->facets = s->mesh->nt;
    }
    return TL_OK;
}

tl_status tl_world_shape_mesh(const tl_world *w, int index, const double **xyz, size_t *nv,
                              const uint32_t **tri, size_t *nt) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (index < 1 || (size_t)index >= w->shapes.count || !w->shapes.mesh[index]) return TL_ERROR_NOT_FOUND;
    const tl_mesh *m = w->shapes.mesh[index];
    if (xyz) *xyz = &m->v[0][0];
    if (nv) *nv = m->nv;
    if (tri) *tri = &m->tri[0][0];
    if (nt) *nt = m->nt;
    return TL_OK;
}

void tl_world_shapes_free(tl_world *w) {
    for (size_t k = 0; k < w->shapes.count; k++) {
        tl_mem_strfree(&w->mem, w->shapes.names[k]);
        drop_mesh(w, w->shapes.mesh[k]);
    }
    tl_mem_free(&w->mem, w->shapes.names, w->shapes.cap * sizeof *w->shapes.names);
    tl_mem_free(&w->mem, w->shapes.of, w->shapes.cap * sizeof *w->shapes.of);
    tl_mem_free(&w->mem, w->shapes.mesh, w->shapes.cap * sizeof *w->shapes.mesh);
    tl_mem_free(&w->mem, w->shapes.frame, w->shapes.cap * sizeof *w->shapes.frame);
    w->shapes.of = NULL;
    w->shapes.names = NULL;
    w->shapes.mesh = NULL;
    w->shapes.frame = NULL;
    w->shapes.count = w->shapes.cap = 0;
}
