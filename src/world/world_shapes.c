/*
 * The world's shapes: bodies other than spheres, stored once in their body
 * frame and referred to by index from the particles (docs/shapes.md). Each is
 * built by its kind (the table of kinds, geometry/shape_kind.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mesh.h"
#include "shape_kind.h"
#include "vec.h"
#include "world.h"

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

static void drop_mesh(tl_world *w, tl_mesh *m) {
    if (!m) return;
    tl_mesh_free(m);
    tl_mem_free(&w->mem, m, sizeof *m);
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
    const tl_shape_kind_def *kd = tl_shape_kind_def_of(d->kind);
    if (!kd || !kd->build) {
        /* the kinds that take a shape, from the table: "ellipsoid or mesh" */
        char kinds[256] = "";
        const size_t nk = tl_shape_kind_count();
        size_t given = 0, n = 0;
        for (size_t k = 0; k < nk; k++) given += tl_shape_kinds[k]->build != NULL;
        for (size_t k = 0; k < nk; k++) {
            if (!tl_shape_kinds[k]->build) continue;
            size_t at = strlen(kinds);
            snprintf(kinds + at, sizeof kinds - at, "%s%s", n == 0 ? "" : n + 1 == given ? " or " : ", ",
                     tl_shape_kind_name((tl_shape_kind)k));
            n++;
        }
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape '%s': kind must be %s (spheres need no shape)", name,
                             kinds);
    }
    char msg[sizeof w->error];
    tl_status built = kd->build(&w->mem, d, name, &s, &mesh, frame, msg, sizeof msg);
    if (built != TL_OK) return tl_world_fail(w, built, "%s", msg);
    char *copy = tl_mem_strdup(&w->mem, name);
    if (!copy || grow_shapes(w, w->shapes.count + 1) != 0) {
        tl_mem_strfree(&w->mem, copy);
        drop_mesh(w, mesh);
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    }
    size_t k = w->shapes.count++;
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
    const tl_shape_kind_def *kd = tl_shape_kinds[s->kind];
    if (kd->info) kd->info(s, o);
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
