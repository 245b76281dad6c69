/* The material-and-law preamble that many engine tests share: one material
 * (nu = NAN keeps the default Poisson ratio) and the default law between it
 * and itself with restitution e and friction mu. Returns the material index,
 * -1 on failure. */
#ifndef TL_TEST_SETUP_H
#define TL_TEST_SETUP_H

#include <math.h>

#include "talus/talus.h"

static inline int tl_test_material_law(tl_world *w, const char *name, double density, double E, double nu,
                                       double e, double mu) {
    tl_material_def md = tl_material_default();
    md.name = name;
    md.density = density;
    md.youngs_modulus = E;
    if (!isnan(nu)) md.poisson_ratio = nu;
    int m;
    if (tl_world_add_material(w, &md, &m) != TL_OK) return -1;
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", e);
    tl_law_set(&law, "mu", mu);
    if (tl_world_set_law(w, m, m, &law) != TL_OK) return -1;
    return m;
}

#endif
