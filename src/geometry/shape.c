#include "shape.h"

#include "vec.h"

double tl_sphere_volume(double radius) { return 4.0 / 3.0 * TL_PI * radius * radius * radius; }

double tl_sphere_inertia(double mass, double radius) { return 0.4 * mass * radius * radius; }
