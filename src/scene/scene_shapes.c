/*
 * The `shapes:` mapping of a scene (docs/scene.md): named bodies other than
 * spheres, which particle entries refer to with `shape: NAME`.
 *
 *   shapes:
 *     peanut: {ellipsoid: [0.006, 0.005, 0.005]}              # semi-axes, m
 *     nut:    {mesh: {ellipsoid: [0.012, 0.009, 0.009], vertices: 2864}}
 *     ball:   {mesh: {icosphere: 0.0025, subdivisions: 4}}     # radius, m
 *     rock:   {mesh: {file: rock.stl, units: mm}, contact_radius: area}
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "scene_shapes.h"
#include "shape_kind.h"

typedef tl_loader loader;

#define MAX_SHAPES 256

static const char *const unit_names[] = {"m", "cm", "mm", "um"};
static const double unit_scale[] = {1.0, 1e-2, 1e-3, 1e-6};
static const char *const mesh_keys[] = {"file", "units", "scale", "icosphere", "subdivisions", "ellipsoid",
                                        "vertices"};
static const char *const shape_keys[] = {"ellipsoid", "mesh", "contact_radius", "contact_depth"};
/* in the order of tl_mesh_radius and tl_mesh_depth */
static const char *const radius_rules[] = {"volume", "area"};
static const char *const depth_rules[] = {"volume", "potential"};

size_t tl_load_shape_names(const char *table, const char *const **names) {
    if (strcmp(table, "shape.kind") == 0) return tl_shape_kind_names(names); /* the table of kinds' */
    static const struct {
        const char *table;
        const char *const *names;
        size_t count;
    } tables[] = {
        {"shape", shape_keys, COUNT_OF(shape_keys)},
        {"shape.mesh", mesh_keys, COUNT_OF(mesh_keys)},
        {"shape.units", unit_names, COUNT_OF(unit_names)},
        {"shape.contact_radius", radius_rules, COUNT_OF(radius_rules)},
        {"shape.contact_depth", depth_rules, COUNT_OF(depth_rules)},
    };
    for (size_t i = 0; i < COUNT_OF(tables); i++)
        if (strcmp(table, tables[i].table) == 0) {
            *names = tables[i].names;
            return tables[i].count;
        }
    return 0;
}

static int read_mesh(loader *L, const tl_yval *m, tl_shape_def *sd, char **path) {
    if (tl_ymap_expect(&L->doc, m, "a mapping {file: PATH, units} or {icosphere: R, subdivisions: K} or "
                                   "{ellipsoid: [a, b, c], vertices: V}") ||
        tl_ymap_check_keys(&L->doc, m, mesh_keys, COUNT_OF(mesh_keys), NULL))
        return -1;
    tl_yval file, ico, ell, v;
    tl_ymap_get(m, "file", &file);
    tl_ymap_get(m, "icosphere", &ico);
    tl_ymap_get(m, "ellipsoid", &ell);
    int given = (file.node != NULL) + (ico.node != NULL) + (ell.node != NULL);
    if (given != 1)
        return tl_yfail(&L->doc, m, "give exactly one of file, icosphere or ellipsoid");
    if (file.node) {
        const char *name;
        if (tl_ystring(&L->doc, &file, "a mesh file (STL or OBJ)", &name)) return -1;
        if (tl_load_path(L, &file, name, path, NULL)) return -1;
        sd->source = TL_MESH_FILE;
        sd->file = *path;
        tl_yval u, sc;
        tl_ymap_get(m, "units", &u);
        tl_ymap_get(m, "scale", &sc);
        if (u.node && sc.node) return tl_yfail(&L->doc, &sc, "give either units or scale, not both");
        sd->scale = 1.0;
        if (u.node) {
            int k;
            if (tl_ychoice(&L->doc, &u, unit_names, COUNT_OF(unit_names), &k)) return -1;
            sd->scale = unit_scale[k];
        }
        if (sc.node && tl_ynumber(&L->doc, &sc, ABOVE(0.0, "m per file unit"), &sd->scale)) return -1;
        return 0;
    }
    tl_yval u;
    tl_ymap_get(m, "units", &u);
    if (u.node) return tl_yfail(&L->doc, &u, "units apply to mesh files only (generated meshes are in m)");
    if (ico.node) {
        sd->source = TL_MESH_ICOSPHERE;
        int64_t k = 3;
        tl_ymap_get(m, "subdivisions", &v);
        if (tl_ynumber(&L->doc, &ico, ABOVE(0.0, "m"), &sd->radius)) return -1;
        if (!v.node) return tl_ymissing(&L->doc, &v, "an integer 0 to 7 (10 * 4^k + 2 vertices)");
        if (tl_yint(&L->doc, &v, 0, 7, &k)) return -1;
        sd->subdivisions = (int)k;
        return 0;
    }
    sd->source = TL_MESH_ELLIPSOID;
    if (tl_yvec3(&L->doc, &ell, "m", &sd->semi_axes)) return -1;
    tl_ymap_get(m, "vertices", &v);
    if (!v.node) return tl_ymissing(&L->doc, &v, "the vertex count of the triangulated ellipsoid");
    int64_t nv;
    if (tl_yint(&L->doc, &v, 6, 10000000, &nv)) return -1;
    sd->vertices = (int)nv;
    return 0;
}

/* ---- each kind's keys: the reader of its key's value (v: `ellipsoid: [a, b, c]`, `mesh: {...}`)
 * and of the keys it shares with the other kinds in the shape's mapping m (contact_radius,
 * contact_depth) into sd; *path: a mesh file's path, freed by the caller. -1 after a message. */
typedef int (*shape_reader)(loader *L, const tl_yval *v, const tl_yval *m, tl_shape_def *sd, char **path);

static int read_ellipsoid(loader *L, const tl_yval *ell, const tl_yval *v, tl_shape_def *sd, char **path) {
    (void)path;
    tl_yval rr, rd;
    tl_ymap_get(v, "contact_radius", &rr);
    tl_ymap_get(v, "contact_depth", &rd);
    if (tl_yvec3(&L->doc, ell, "m", &sd->semi_axes)) return -1;
    if (rr.node) return tl_yfail(&L->doc, &rr, "contact_radius applies to meshes (an ellipsoid's comes from its "
                                               "curvature)");
    if (rd.node) return tl_yfail(&L->doc, &rd, "contact_depth applies to meshes (an ellipsoid's overlap comes "
                                               "from its surface)");
    return 0;
}

static int read_mesh_shape(loader *L, const tl_yval *mesh, const tl_yval *v, tl_shape_def *sd, char **path) {
    tl_yval rr, rd;
    tl_ymap_get(v, "contact_radius", &rr);
    tl_ymap_get(v, "contact_depth", &rd);
    if (read_mesh(L, mesh, sd, path)) return -1;
    if (rr.node) {
        int k;
        if (tl_ychoice(&L->doc, &rr, radius_rules, COUNT_OF(radius_rules), &k)) return -1;
        sd->mesh_radius = k == 1 ? TL_MESH_RADIUS_AREA : TL_MESH_RADIUS_VOLUME;
        if (sd->mesh_radius == TL_MESH_RADIUS_AREA && !rd.node)
            return tl_yfail(&L->doc, &rr, "contact_radius: area belongs to the paper's polygonal contact model: "
                                          "give contact_depth: volume with it (the default reading, potential, "
                                          "takes the volume-equivalent radius)");
    }
    if (rd.node) {
        int k;
        if (tl_ychoice(&L->doc, &rd, depth_rules, COUNT_OF(depth_rules), &k)) return -1;
        sd->mesh_depth = k == 1 ? TL_MESH_DEPTH_POTENTIAL : TL_MESH_DEPTH_VOLUME;
        if (sd->mesh_depth == TL_MESH_DEPTH_POTENTIAL && sd->mesh_radius == TL_MESH_RADIUS_AREA)
            return tl_yfail(&L->doc, &rd, "contact_depth: potential takes the volume-equivalent radius; "
                                          "leave out contact_radius: area");
    }
    return 0;
}

/* the kinds a scene names by their key (their name in the table of kinds, geometry/shape_kind.h),
 * indexed by tl_shape_kind; the sphere needs no shape */
static const shape_reader readers[TL_SHAPE_KIND_MAX] = {
    [TL_SHAPE_ELLIPSOID] = read_ellipsoid,
    [TL_SHAPE_MESH] = read_mesh_shape,
};

static int read_shape(loader *L, const char *name, const tl_yval *v) {
    if (tl_ymap_expect(&L->doc, v, "a mapping {ellipsoid: [a, b, c]} or {mesh: {...}}") ||
        tl_ymap_check_keys(&L->doc, v, shape_keys, COUNT_OF(shape_keys), NULL))
        return -1;
    tl_shape_def sd = tl_shape_default();
    sd.name = name;
    /* the kind: the one key that names a kind */
    tl_yval kv;
    int given = 0;
    for (size_t k = 0; k < tl_shape_kind_count(); k++) {
        if (!readers[k]) continue;
        tl_yval x;
        tl_ymap_get(v, tl_shape_kind_name((tl_shape_kind)k), &x);
        if (!x.node) continue;
        if (given++ == 0) {
            kv = x;
            sd.kind = (tl_shape_kind)k;
        }
    }
    if (given != 1)
        return tl_yfail(&L->doc, v, "give exactly one of ellipsoid (semi-axes [a, b, c] in m) or mesh");
    char *path = NULL;
    if (readers[sd.kind](L, &kv, v, &sd, &path)) {
        free(path);
        return -1;
    }
    int index;
    tl_status st = tl_world_add_shape(L->world, &sd, &index);
    free(path);
    if (st == TL_ERROR_MEMORY) return tl_load_out_of_memory(L);
    if (st != TL_OK) return tl_yfail(&L->doc, &kv, "%s", tl_world_error(L->world));
    return 0;
}

int tl_load_shapes(loader *L) {
    const char *what = "a mapping of shape names to shapes, e.g. peanut: {ellipsoid: [0.006, 0.005, 0.005]}";
    tl_yval m;
    tl_ymap_get(&L->root, "shapes", &m);
    if (!m.node) return 0;
    if (tl_ymap_expect(&L->doc, &m, what)) return -1;
    size_t n = tl_ymap_count(&m);
    if (n > MAX_SHAPES) return tl_yfail(&L->doc, &m, "at most %d shapes", MAX_SHAPES);
    for (size_t i = 0; i < n; i++) {
        const char *name;
        tl_yval key, value;
        tl_ymap_entry(&m, i, &name, &key, &value);
        if (!tl_yis_scalar(&key) || !name[0]) return tl_yexpected(&L->doc, &key, "shape names as keys");
        if (strcmp(name, "sphere") == 0)
            return tl_yfail(&L->doc, &key, "'sphere' is not a shape name: a sphere needs only its radius");
        for (int k = 1; k <= tl_world_shape_count(L->world); k++) {
            tl_shape_info si;
            if (tl_world_get_shape(L->world, k, &si) == TL_OK && strcmp(si.name, name) == 0)
                return tl_yfail(&L->doc, &key, "shape '%s' is defined twice", name);
        }
        if (read_shape(L, name, &value)) return -1;
    }
    return 0;
}

int tl_load_shape(loader *L, const tl_yval *v, int *out) {
    const char *name;
    if (tl_ystring(&L->doc, v, "a shape name (from shapes:)", &name)) return -1;
    const char *names[MAX_SHAPES];
    size_t n = 0;
    for (int k = 1; k <= tl_world_shape_count(L->world); k++) {
        tl_shape_info si;
        if (tl_world_get_shape(L->world, k, &si) != TL_OK) continue;
        if (strcmp(si.name, name) == 0) {
            *out = k;
            return 0;
        }
        if (n < MAX_SHAPES) names[n++] = si.name;
    }
    return tl_yunknown_name(&L->doc, v, "shape", name, names, n);
}

int tl_load_orientation(loader *L, const tl_yval *v, tl_quat *q, bool *random) {
    if (random) *random = false;
    if (tl_yis_scalar(v)) {
        const char *s;
        if (tl_ystring(&L->doc, v, "random or [w, x, y, z]", &s)) return -1;
        if (strcmp(s, "random") == 0 && random) {
            *random = true;
            return 0;
        }
        return tl_yexpected(&L->doc, v, random ? "random, or a quaternion [w, x, y, z]" : "a quaternion [w, x, y, z]");
    }
    if (tl_yseq_count(v) != 4)
        return tl_yexpected(&L->doc, v, random ? "random, or a quaternion [w, x, y, z]" : "a quaternion [w, x, y, z]");
    double c[4];
    for (size_t i = 0; i < 4; i++) {
        tl_yval e;
        tl_yseq_at(v, i, &e);
        if (tl_ynumber(&L->doc, &e, &(tl_yrange){-INFINITY, INFINITY, false, false, ""}, &c[i])) return -1;
    }
    /* the norm by the largest component first: squares of 1e200 overflow where the direction is fine */
    double big = fmax(fmax(fabs(c[0]), fabs(c[1])), fmax(fabs(c[2]), fabs(c[3])));
    if (!(big > 0.0)) return tl_yfail(&L->doc, v, "the quaternion must not be zero");
    for (int i = 0; i < 4; i++) c[i] /= big;
    double n = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
    *q = (tl_quat){c[0] / n, c[1] / n, c[2] / n, c[3] / n};
    return 0;
}

int tl_load_body(loader *L, const tl_yval *m, tl_particle_def *pd, bool radius_required, bool *random_orientation) {
    tl_yval sh, r, o;
    tl_ymap_get(m, "shape", &sh);
    tl_ymap_get(m, "radius", &r);
    tl_ymap_get(m, "orientation", &o);
    if (sh.node) {
        if (r.node) return tl_yfail(&L->doc, &r, "give either radius (a sphere) or shape, not both");
        if (tl_load_shape(L, &sh, &pd->shape)) return -1;
        tl_shape_info si;
        tl_world_get_shape(L->world, pd->shape, &si);
        pd->radius = si.radius; /* what placement keeps apart: the bounding sphere */
        if (random_orientation) *random_orientation = true; /* the default of fills */
    } else if (radius_required) {
        if (tl_ykey_number(&L->doc, m, "radius", true, ABOVE(0.0, "m"), &pd->radius)) return -1;
    }
    if (o.node) {
        if (!sh.node)
            return tl_yfail(&L->doc, &o, "orientation applies to shapes (a sphere's does not act on anything)");
        if (tl_load_orientation(L, &o, &pd->orientation, random_orientation)) return -1;
    }
    return 0;
}
