/*
 * Talus: the collision lab. Two bodies (sphere-sphere or sphere-wall), one
 * collision, run by the same engine as a scene (a world built through the
 * public API), with a step fine enough to resolve the contact, and measured:
 * restitution, duration, peaks, energy split, rebound velocity and spin,
 * rebound angles (Li et al. 2022 eq. 20-23).
 *
 * Geometry: body b sits at the origin (a sphere at rest, or the plane z = 0
 * with normal +z, or a triangulated anvil whose top is that plane); body a is a
 * sphere or any shape (tl_collide_def.shape_a); body a arrives with speed `speed` at `angle` from the
 * normal, in the x-z plane: v_in = speed (sin angle, 0, -cos angle). It is
 * placed so that it touches b first with the contact normal along z.
 */
#ifndef TALUS_LAB_H
#define TALUS_LAB_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_collide_def {
    tl_material_def material_a;
    tl_material_def material_b;   /* of the sphere b or of the wall; ignored when same_material */
    bool same_material;           /* b uses material_a */
    tl_law_def law;               /* the law between a and b */
    bool wall;                    /* b is a flat wall (else a sphere) */
    double radius_a, radius_b;    /* m */
    double mass_a, mass_b;        /* kg; 0 = density x volume */
    double speed;                 /* impact speed, m/s (> 0) */
    double angle;                 /* impact angle from the normal, rad, in [0, pi/2) */
    tl_vec3 spin_a, spin_b;       /* initial angular velocities, rad/s */
    double steps_per_contact;     /* resolution of the collision (default 1000) */
    double dt;                    /* s; 0 = from steps_per_contact */
    tl_integrator integrator;
    bool contact_boundary_correction;
    bool record;                  /* keep the time series (tl_collide_result.samples) */
    /* a's shape: kind TL_SHAPE_SPHERE (the default) is the sphere of radius_a; any other
     * kind gives a that shape (its mass mass_a, or the density times its volume), placed
     * with its bounding radius above b at the start. radius_a stays the radius the
     * indicators use (the contact point's velocity, psi). */
    tl_shape_def shape_a;
    tl_quat orientation_a;        /* a's attitude at the start, its shape as given turned about
                                   * its centroid (tl_particle_def.orientation; all zero: none) */
    /* wall only: a triangulated anvil (3 coordinates per vertex, m; 3 indices per facet,
     * counter-clockwise seen from above) as a mesh wall in place of the plane z = 0; its
     * top surface must be the plane z = 0. NULL: the plane. The arrays are read during
     * tl_collide only. */
    const double *anvil_xyz;
    size_t anvil_vertex_count;
    const uint32_t *anvil_triangles;
    size_t anvil_triangle_count;
} tl_collide_def;

/* One row of the time series, taken at the end of every step in contact. */
typedef struct tl_collide_sample {
    double t;            /* s since first touch */
    double overlap;      /* m */
    double overlap_rate; /* m/s, > 0 approaching */
    double fn;           /* N, total normal force (> 0 repulsive) */
    double fn_elastic;   /* N */
    double fn_damping;   /* N */
    double ft;           /* N, tangential force along the impact's tangential direction t */
    double ft_normal;    /* N, tangential force across it (zero in plane impacts) */
} tl_collide_sample;

typedef struct tl_collide_result {
    /* Li et al. 2022 eq. 20-23; n = contact normal (from b to a), t = tangential
     * direction of the incoming velocity */
    double e_n, e_t;           /* normal and tangential restitution */
    double duration;           /* s, from first touch to separation */
    double max_overlap;        /* m */
    double max_normal_force;   /* N */
    tl_vec3 v_in, v_out;       /* velocity of a relative to b, before and after, m/s */
    tl_vec3 omega_out;         /* angular velocity of a after, rad/s */
    tl_vec3 omega_out_b;       /* and of b (sphere-sphere) */
    tl_vec3 vc_out;            /* velocity of a's contact point after (eq. 21), m/s; for two
                                * spheres, relative to b's contact point (the slip velocity) */
    double alpha_v, alpha_c;   /* rebound angles of the centre and the contact point, rad */
    double psi1, psi2;         /* Maw's dimensionless angles (eq. 22, kappa from compliances);
                                * psi1 from the incoming contact-point velocity (= v_in
                                * without initial spin) */
    double kappa;
    double energy_in;          /* J, kinetic energy before (relative motion and spins) */
    double energy_out_translational, energy_out_rotational; /* J, after */
    double diss_normal, diss_plastic, diss_tangential_damping, diss_friction; /* J */
    double integration_residual; /* J, the normal springs' integration error (tl_energy) */
    double energy_error;       /* J, energy_in - out - dissipated - integration_residual */
    double dt;
    int64_t steps;
    tl_collide_sample *samples;
    size_t nsamples;
    tl_energy energy;          /* the pair's energy ledger at the end: every term of the table
                                * (tl_energy_term_get), a law slot's own among them */
} tl_collide_result;

/* ---- impact indicators (Li et al. 2022 eq. 20-23), for the lab and for scenes ---- */

typedef struct tl_impact_input {
    tl_vec3 normal;               /* unit contact normal, from b towards a */
    tl_vec3 v_in, v_out;          /* velocity of a's centre relative to b, before and after, m/s */
    tl_vec3 omega_in, omega_out;  /* a's angular velocity before and after, rad/s */
    tl_vec3 omega_b_in, omega_b_out; /* b's (zero for a wall) */
    double radius_a, radius_b;    /* m; radius_b = INFINITY (or 0) for a wall */
    double mass_a, inertia_a;     /* kg, kg m2: for eq. 23 */
    double kappa;                 /* tangential/normal compliance ratio (tl_kappa); NAN: no psi */
    double mu;                    /* friction coefficient; <= 0 or NAN: no psi */
} tl_impact_input;

typedef struct tl_impact_indicators {
    tl_vec3 t;                 /* unit tangential direction of the incoming velocity (eq. 20) */
    double e_n, e_t;           /* eq. 20; e_t = 0 for a head-on impact */
    tl_vec3 vc_out;            /* velocity of a's contact point after, relative to b's (eq. 21) */
    double alpha_v, alpha_c;   /* rebound angles of the centre and the contact point, rad (eq. 21) */
    double psi1, psi2;         /* eq. 22 (NAN without kappa and mu) */
    double omega_roll;         /* a's spin after about n x t, rad/s (> 0: rolling along t) */
    double energy_out_translational; /* 1/2 m |v_out|^2, J */
    double energy_out_rotational;    /* 1/2 I |omega_out|^2, J (eq. 23) */
    double energy_out_paper;         /* 1/2 m |VC_out|^2 as eq. 23 prints it, J */
} tl_impact_indicators;

TL_API void tl_impact_measure(const tl_impact_input *in, tl_impact_indicators *out);
/* kappa = [sum (1 - nu)/G] / [sum (1 - nu/2)/G] over the two materials (Li et al. 2022 eq. 3;
 * compliances, docs/readings.md li-kappa). NAN when a Young's modulus is missing. */
TL_API double tl_kappa(const tl_material_def *a, const tl_material_def *b);

TL_API tl_collide_def tl_collide_default(void);
/* Runs the collision. On failure writes a message into err. */
TL_API tl_status tl_collide(const tl_collide_def *def, tl_collide_result *out, char *err, size_t err_size);
TL_API void tl_collide_result_free(tl_collide_result *r);

#ifdef __cplusplus
}
#endif

#endif
