/*
 * The ellipsoid kind (shape_kind.h): semi-axes a, b, c along the body axes, closed forms for
 * its volume and inertia; its pairs with spheres and ellipsoids and its walls by the
 * common-normal contact (ellipsoid_pair.c, docs/ellipsoid.md); with meshes and mesh walls
 * through its display tessellation (the mesh kind's functions, shape_mesh.c).
 */
#include <math.h>
#include <stdio.h>

#include "ellipsoid_pair.h"
#include "mesh.h"
#include "narrow_scratch.h"
#include "shape_kind.h"
#include "vec.h"

/* an ellipsoid's display tessellation (the VTK surfaces): vertices */
#define ELLIPSOID_DISPLAY_VERTICES 402

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

static tl_status build(tl_mem *mem, const tl_shape_def *d, const char *name, tl_shape *s, tl_mesh **out,
                       double frame[12], char *msg, size_t msg_size) {
    (void)frame; /* its body frame is the frame it was given in */
    double a = d->semi_axes.x, b = d->semi_axes.y, c = d->semi_axes.z;
    if (!tl_body_length_ok(a) || !tl_body_length_ok(b) || !tl_body_length_ok(c)) {
        snprintf(msg, msg_size,
                 "shape '%s': ellipsoid semi_axes must be 1e-12 to 1e12 m (a sphere's radii), got (%g, %g, %g)", name,
                 a, b, c);
        return TL_ERROR_ARGUMENT;
    }
    shape_ellipsoid(s, a, b, c);
    /* its contacts with meshes go through its tessellation, measured as its def asks (the
     * conservative reading by default); its radius is always the volume-equivalent one */
    s->mesh_depth = d->mesh_depth;
    /* its tessellation: for the outputs, and for its contacts with meshes */
    tl_mesh *mesh = tl_mem_alloc(mem, sizeof *mesh);
    if (mesh) tl_mesh_init(mesh);
    char why[256];
    if (!mesh || tl_mesh_ellipsoid(mem, mesh, a, b, c, ELLIPSOID_DISPLAY_VERTICES, why, sizeof why) != TL_OK) {
        if (mesh) {
            tl_mesh_free(mesh);
            tl_mem_free(mem, mesh, sizeof *mesh);
        }
        snprintf(msg, msg_size, "out of memory (shape '%s')", name);
        return TL_ERROR_MEMORY;
    }
    s->mesh = mesh;
    *out = mesh;
    return TL_OK;
}

/* a^2 / c, a the largest semi-axis and c the smallest */
static double contact_radius(const tl_shape *s) {
    double a = dmax(s->semi[0], dmax(s->semi[1], s->semi[2]));
    double c = dmin(s->semi[0], dmin(s->semi[1], s->semi[2]));
    return a * a / c;
}

/* a convex body holding the ball of its smallest semi-axis c about its centroid: at most
 * sqrt(a^2 - c^2) (timestep.c) */
static double spin_reach(const tl_shape *s) {
    double a = dmax(s->semi[0], dmax(s->semi[1], s->semi[2]));
    double c = dmin(s->semi[0], dmin(s->semi[1], s->semi[2]));
    return sqrt(dmax(a * a - c * c, 0.0));
}

static int ellipsoid_pair(const tl_body *a, const tl_body *b, const double *n_hint, tl_patch *out, int max,
                          tl_narrow_scratch *s) {
    (void)max;
    /* the last step's normal starts the search (warm start: docs/ellipsoid.md); apart down to the
     * scratch's floor (a contact held beyond touch) */
    return tl_ellipsoid_pair_within(a, b, n_hint, s ? s->floor : 0.0, out, NULL);
}

static int ellipsoid_face(const tl_body *a, const tl_face *f, tl_patch *out, int max, tl_narrow_scratch *s) {
    (void)max;
    return tl_ellipsoid_face_within(a, f, s ? s->floor : 0.0, out);
}

const tl_shape_kind_def tl_ellipsoid_kind = {
    .build = build,
    .contact_radius = contact_radius,
    .spin_reach = spin_reach,
    .matrices = tl_ellipsoid_matrices,
    .face = ellipsoid_face,
    .mesh_wall = tl_mesh_kind_mesh_wall,
    .pair = {[TL_SHAPE_SPHERE] = {ellipsoid_pair, false}, [TL_SHAPE_ELLIPSOID] = {ellipsoid_pair, false}},
};
