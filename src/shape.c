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

void tl_geometry_sphere_sphere(const double xa[3], double ra, const double xb[3], double rb,
                               tl_geometry *g) {
    double d[3];
    v3_sub(d, xb, xa);
    double dist = v3_norm(d);
    g->delta = ra + rb - dist;
    if (dist > 0.0) v3_scale(g->n, d, 1.0 / dist);
    else v3_set(g->n, 0.0, 0.0, 1.0);
    /* the contact point is the middle of the overlap along the line of centres */
    double la = ra - 0.5 * g->delta, lb = rb - 0.5 * g->delta;
    v3_scale(g->ra, g->n, la);
    v3_scale(g->rb, g->n, -lb);
    g->r_eff = ra * rb / (ra + rb);
}
