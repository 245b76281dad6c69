/*
 * The `shapes:` mapping of a scene (scene_shapes.c), and the bodies that
 * particle entries give by radius or by shape name. Internal.
 */
#ifndef TL_SCENE_SHAPES_H
#define TL_SCENE_SHAPES_H

#include <stddef.h>

#include "loader.h"

/* The `shapes:` mapping (scene_shapes.c): each shape added to the world. */
int tl_load_shapes(tl_loader *L);
/* A shape by name; *out its index. */
int tl_load_shape(tl_loader *L, const tl_yval *v, int *out);
/* The names of tl_scene_names' tables "shape", "shape.kind", "shape.mesh", "shape.units",
 * "shape.contact_radius", "shape.contact_depth": the count, 0 for a table it does not hold. */
size_t tl_load_shape_names(const char *table, const char *const **names);
/* A quaternion [w, x, y, z] (normalised), or `random` where random is not NULL. */
int tl_load_orientation(tl_loader *L, const tl_yval *v, tl_quat *q, bool *random);
/* The body of an entry: `radius` (a sphere; required when radius_required) or
 * `shape` (then pd->radius is its bounding radius), and `orientation`.
 * random_orientation (NULL where an entry places one body) is set for shapes
 * unless a fixed orientation is given. */
int tl_load_body(tl_loader *L, const tl_yval *map, tl_particle_def *pd, bool radius_required,
                 bool *random_orientation);

#endif
