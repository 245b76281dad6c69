#include "shape.h"

#include "vec.h"

double tl_sphere_volume(double radius) { return 4.0 / 3.0 * TL_PI * radius * radius * radius; }

double tl_sphere_inertia(double mass, double radius) { return 0.4 * mass * radius * radius; }

double tl_shape_contact_radius(const tl_shape *s) {
    if (s->kind == TL_SHAPE_ELLIPSOID) {
        double a = dmax(s->semi[0], dmax(s->semi[1], s->semi[2]));
        double c = dmin(s->semi[0], dmin(s->semi[1], s->semi[2]));
        return a * a / c;
    }
    return s->r_contact > 0.0 ? s->r_contact : s->radius;
}
