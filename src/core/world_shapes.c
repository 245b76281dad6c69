/*
 * The world's shapes: bodies other than spheres, stored once in their body
 * frame and referred to by index from the particles (docs/shapes.md).
 */
#include <math.h>
#include <string.h>

#include "vec.h"
#include "world.h"

tl_shape_def tl_shape_default(void) {
    tl_shape_def d;
    memset(&d, 0, sizeof d);
    d.kind = TL_SHAPE_ELLIPSOID;
    d.scale = 1.0;
    d.mesh_radius = TL_MESH_RADIUS_VOLUME;
    return d;
}

static bool finite_positive(double x) { return isfinite(x) && x > 0.0; }

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

tl_status tl_world_add_shape(tl_world *w, const tl_shape_def *d, int *out_index) {
    if (!w || !d) return TL_ERROR_ARGUMENT;
    const char *name = d->name ? d->name : "";
    if (w->nshapes == 0) {
        /* index 0 is the sphere: no entry of its own */
        if (tl_mem_reserve(&w->mem, (void **)&w->shapes, &w->capshapes, 4, sizeof *w->shapes) != 0)
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        char **nm = tl_mem_calloc(&w->mem, w->capshapes, sizeof *nm);
        if (!nm) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        w->shape_names = nm;
        memset(&w->shapes[0], 0, sizeof w->shapes[0]);
        w->nshapes = 1;
    }
    if (w->nshapes >= 0x7fffffff)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape '%s': too many shapes", name);
    tl_shape s;
    switch (d->kind) {
    case TL_SHAPE_ELLIPSOID: {
        double a = d->semi_axes.x, b = d->semi_axes.y, c = d->semi_axes.z;
        if (!finite_positive(a) || !finite_positive(b) || !finite_positive(c))
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "shape '%s': ellipsoid semi_axes must be finite and > 0 m, got (%g, %g, %g)",
                                 name, a, b, c);
        shape_ellipsoid(&s, a, b, c);
        break;
    }
    case TL_SHAPE_MESH:
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape '%s': mesh shapes are not in this build yet", name);
    default:
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "shape '%s': kind must be ellipsoid or mesh (spheres need no shape)", name);
    }
    size_t cap = w->capshapes;
    if (tl_mem_reserve(&w->mem, (void **)&w->shapes, &w->capshapes, w->nshapes + 1, sizeof *w->shapes) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    if (w->capshapes != cap) {
        char **nm = tl_mem_realloc(&w->mem, w->shape_names, cap * sizeof *nm, w->capshapes * sizeof *nm);
        if (!nm) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        for (size_t k = cap; k < w->capshapes; k++) nm[k] = NULL;
        w->shape_names = nm;
    }
    char *copy = tl_mem_strdup(&w->mem, name);
    if (!copy) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    size_t k = w->nshapes++;
    w->shapes[k] = s;
    w->shape_names[k] = copy;
    if (out_index) *out_index = (int)k;
    return TL_OK;
}

int tl_world_shape_count(const tl_world *w) { return w->nshapes ? (int)w->nshapes - 1 : 0; }

tl_status tl_world_get_shape(const tl_world *w, int index, tl_shape_info *o) {
    if (!w || !o) return TL_ERROR_ARGUMENT;
    if (index < 1 || (size_t)index >= w->nshapes) return TL_ERROR_NOT_FOUND;
    const tl_shape *s = &w->shapes[index];
    memset(o, 0, sizeof *o);
    o->kind = s->kind;
    o->name = w->shape_names[index];
    o->volume = s->volume;
    o->radius = s->radius;
    o->volume_radius = s->r_volume;
    o->inertia = (tl_vec3){s->inertia[0], s->inertia[1], s->inertia[2]};
    o->semi_axes = (tl_vec3){s->semi[0], s->semi[1], s->semi[2]};
    o->frame = (tl_quat){1.0, 0.0, 0.0, 0.0};
    return TL_OK;
}

tl_status tl_world_shape_mesh(const tl_world *w, int index, const double **xyz, size_t *nv,
                              const uint32_t **tri, size_t *nt) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (index < 1 || (size_t)index >= w->nshapes) return TL_ERROR_NOT_FOUND;
    (void)xyz;
    (void)nv;
    (void)tri;
    (void)nt;
    return TL_ERROR_NOT_FOUND; /* not a mesh */
}

void tl_world_shapes_free(tl_world *w) {
    for (size_t k = 0; k < w->nshapes; k++) tl_mem_strfree(&w->mem, w->shape_names[k]);
    tl_mem_free(&w->mem, w->shape_names, w->capshapes * sizeof *w->shape_names);
    tl_mem_free(&w->mem, w->shapes, w->capshapes * sizeof *w->shapes);
    w->shapes = NULL;
    w->shape_names = NULL;
    w->nshapes = w->capshapes = 0;
}
