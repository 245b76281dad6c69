#include "materials.h"

double tl_material_e_star(const tl_material *a, const tl_material *b) {
    double ca = (1.0 - a->poisson_ratio * a->poisson_ratio) / a->youngs_modulus;
    double cb = (1.0 - b->poisson_ratio * b->poisson_ratio) / b->youngs_modulus;
    return 1.0 / (ca + cb);
}

double tl_material_g_star(const tl_material *a, const tl_material *b) {
    double ca = (2.0 - a->poisson_ratio) / a->shear_modulus;
    double cb = (2.0 - b->poisson_ratio) / b->shear_modulus;
    return 1.0 / (ca + cb);
}

double tl_series(double ka, double kb) { return ka * kb / (ka + kb); }
