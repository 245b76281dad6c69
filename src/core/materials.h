/* Materials: the intrinsic properties of the bodies (particles and walls). */
#ifndef TL_MATERIALS_H
#define TL_MATERIALS_H

typedef struct tl_material {
    char *name;
    double density;        /* kg/m3 */
    double youngs_modulus; /* Pa, 0 = not given */
    double poisson_ratio;
    double shear_modulus;  /* Pa, E / (2 (1 + nu)) when E is given */
    double k_n, k_t;       /* N/m per body, 0 = not given */
    double yield_stress;   /* Pa, 0 = not given */
} tl_material;

/* Effective modulus of a pair: 1/E* = (1 - nu_a^2)/E_a + (1 - nu_b^2)/E_b
 * (Li et al. 2022 eq. 6, with the index swap corrected: docs/readings.md, li-kn-index). */
double tl_material_e_star(const tl_material *a, const tl_material *b);
/* Effective shear modulus of a pair: 1/G* = (2 - nu_a)/G_a + (2 - nu_b)/G_b
 * (Li et al. 2022 eq. 4: K_t0 = 8 G* sqrt(R* delta)). */
double tl_material_g_star(const tl_material *a, const tl_material *b);
/* Series combination k_a k_b / (k_a + k_b) of per-body stiffnesses. */
double tl_series(double ka, double kb);

#endif
