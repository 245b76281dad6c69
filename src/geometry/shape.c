#include "shape.h"

#include "vec.h"

bool tl_shape_valid(tl_shape_kind kind) { return kind == TL_SHAPE_SPHERE; }

double tl_shape_volume(tl_shape_kind kind, double radius) {
    (void)kind;
    return 4.0 / 3.0 * TL_PI * radius * radius * radius;
}

double tl_shape_inertia(tl_shape_kind kind, double mass, double radius) {
    (void)kind;
    return 0.4 * mass * radius * radius;
}
