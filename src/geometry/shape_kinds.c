/*
 * The table of shape kinds (shape_kind.h): a row per kind, in the order of tl_shape_kind, its
 * name (as scenes, the Python names and messages spell it) and its definition, which lives in
 * the kind's file. Everything else of a kind derives from its definition: building it, its
 * mass properties and bounding radius, the step's bound, its geometry against walls and
 * against the other kinds (narrow.c), the scene's and Python's names.
 */
#include "shape_kind.h"

#define TL_SHAPE_KIND_ROWS(ROW)                        \
    ROW(TL_SHAPE_SPHERE, "sphere", tl_sphere_kind)     \
    ROW(TL_SHAPE_ELLIPSOID, "ellipsoid", tl_ellipsoid_kind) \
    ROW(TL_SHAPE_MESH, "mesh", tl_mesh_kind)

/* the definitions, each in its kind's file */
#define DECLARE(kind, name, def) extern const tl_shape_kind_def def;
TL_SHAPE_KIND_ROWS(DECLARE)
#undef DECLARE

#define NAME(kind, name, def) [kind] = name,
static const char *const names[] = {TL_SHAPE_KIND_ROWS(NAME)};
#undef NAME

#define DEF(kind, name, def) [kind] = &def,
const tl_shape_kind_def *const tl_shape_kinds[] = {TL_SHAPE_KIND_ROWS(DEF)};
#undef DEF

_Static_assert(sizeof names / sizeof names[0] <= TL_SHAPE_KIND_MAX, "more kinds than TL_SHAPE_KIND_MAX");

size_t tl_shape_kind_count(void) { return sizeof names / sizeof names[0]; }

const tl_shape_kind_def *tl_shape_kind_def_of(tl_shape_kind kind) {
    return (size_t)kind < tl_shape_kind_count() ? tl_shape_kinds[kind] : NULL;
}

const char *tl_shape_kind_name(tl_shape_kind kind) {
    return (size_t)kind < tl_shape_kind_count() ? names[kind] : "?";
}

size_t tl_shape_kind_names(const char *const **out) {
    *out = names;
    return tl_shape_kind_count();
}

double tl_shape_contact_radius(const tl_shape *s) { return tl_shape_kinds[s->kind]->contact_radius(s); }

double tl_shape_spin_reach(const tl_shape *s) { return s ? tl_shape_kinds[s->kind]->spin_reach(s) : 0.0; }
