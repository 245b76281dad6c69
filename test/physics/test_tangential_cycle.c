/* One contact taken round a closed cycle of normal load and tangential displacement (issue 44,
 * item 2): a sphere held and a plane wall that the test moves, undamped (e = e_t = 1), below the
 * Coulomb limit (the sphere is free but 1e12 kg heavy: it stays put). The cycle is a rectangle in (overlap, displacement): at delta_lo the wall slides
 * by U; at that held displacement it presses to delta_hi; there it slides back to 0; at 0 it
 * returns to delta_lo.
 *
 *   - the total-form Mindlin spring (Li et al. 2022's M1: F_t = -k_t xi, k_t = 8 G* sqrt(R* delta))
 *     stores 1/2 k_t U^2 after the first slide; the press raises k_t at the held U, and the slide
 *     back returns 1/2 k_t(delta_hi) U^2: each cycle creates
 *         W = 1/2 (k_t(delta_hi) - k_t(delta_lo)) U^2,
 *     which the wall takes out of the contact (its work on the sphere over a cycle is -W, to the
 *     integration's order), and which the ledger books as tangential_stiffness_work, the only
 *     term that moves but for the integration residual: the dissipation columns stay 0;
 *   - the incremental Mindlin-Deresiewicz force (M4) creates nothing: over a cycle of its periodic
 *     state (the fourth) the wall does positive work on the contact (2.4e-7 J here, either way
 *     round), its microslip's friction less what the change of P and K_t0 put into its energy at
 *     the held force (tl_contact.w_t, booked as tangential_stiffness_work), and the books close.
 * The cycle reversed (press first, slide at delta_hi, release, slide back at delta_lo) loses W
 * under M1: the stiffness work is -W.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

#define R 0.01
#define E 1e8
#define NU 0.3
#define MU 1.0
#define D_LO 1e-5
#define D_HI 4e-5
#define U 4e-6
#define N_PHASE 4000 /* steps per side of the rectangle */

typedef struct run {
    tl_world *w;
    int wall;
    double dt;
} run;

static run make(const char *tangential) {
    run r = {NULL, -1, 0.0};
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, 0};
    wd.dt = 1e-6;
    ENSURE(tl_world_create(&wd, &r.w) == TL_OK);
    tl_material_def md = tl_material_default();
    md.name = "grain";
    md.density = 2500;
    md.youngs_modulus = E;
    md.poisson_ratio = NU;
    int m;
    ENSURE(tl_world_add_material(r.w, &md, &m) == TL_OK);
    tl_law_def law = tl_law_default();
    law.tangential = tangential;
    law.history = "true";
    tl_law_set(&law, "e", 1.0);
    tl_law_set(&law, "e_t", 1.0);
    tl_law_set(&law, "mu", MU);
    ENSURE(tl_world_set_law(r.w, m, m, &law) == TL_OK);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.radius = R;
    /* so heavy that the contact's forces move it by less than 1e-15 m over the run (a fixed
     * particle has no contacts with walls) */
    pd.mass = 1e12;
    uint32_t id;
    ENSURE(tl_world_add_particle(r.w, &pd, &id) == TL_OK);
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    wl.point = (tl_vec3){0, 0, -R + D_LO};
    wl.normal = (tl_vec3){0, 0, 1};
    ENSURE(tl_world_add_wall(r.w, &wl, &r.wall) == TL_OK);
    ENSURE(tl_world_prepare(r.w) == TL_OK);
    r.dt = tl_world_dt(r.w);
    return r;
}

/* one side of the rectangle: the wall moves by (dx, 0, dz) over N_PHASE steps */
static void side(run *r, double dx, double dz) {
    double T = N_PHASE * r->dt;
    ENSURE(tl_world_set_wall_velocity(r->w, r->wall, (tl_vec3){dx / T, 0, dz / T}) == TL_OK);
    ENSURE(tl_world_step(r->w, N_PHASE) == TL_OK);
}

/* the ledger's conserved total less the work put in (boundary and stiffness): what the books owe */
static double books_error(const tl_energy *e) { return e->total; }

static void cycles(const char *tangential, int reversed, double *created, double *wall_out, double *loss,
                   double *err) {
    run r = make(tangential);
    tl_energy e0, e1;
    /* the first cycles bring the contact onto its loop (M4's virgin loading and the turning points
     * its force keeps); the last is measured */
    for (int c = 0; c < 4; c++) {
        if (c == 3) ENSURE(tl_world_energy(r.w, &e0) == TL_OK);
        if (!reversed) {
            side(&r, U, 0);
            side(&r, 0, D_HI - D_LO);
            side(&r, -U, 0);
            side(&r, 0, D_LO - D_HI);
        } else {
            side(&r, 0, D_HI - D_LO);
            side(&r, U, 0);
            side(&r, 0, D_LO - D_HI);
            side(&r, -U, 0);
        }
    }
    ENSURE(tl_world_energy(r.w, &e1) == TL_OK);
    *created = e1.tangential_stiffness_work - e0.tangential_stiffness_work;
    /* boundary_work: done on the particles by the walls; what the wall took out is minus it */
    *wall_out = -(e1.boundary_work - e0.boundary_work);
    *loss = (e1.dissipated_tangential_damping - e0.dissipated_tangential_damping) +
            (e1.dissipated_friction - e0.dissipated_friction) +
            (e1.dissipated_normal - e0.dissipated_normal);
    *err = fabs(books_error(&e1) - books_error(&e0));
    fprintf(stderr,
            "  %-20s %s: stiffness work %+.6e J, taken out by the wall %+.6e J, dissipated %.3e J, "
            "residual %+.2e J, elastic tangential %.3e -> %.3e J; total's change %.2e J\n",
            tangential, reversed ? "reversed" : "forward ", *created, *wall_out, *loss,
            e1.integration_residual - e0.integration_residual, e0.elastic_tangential, e1.elastic_tangential, *err);
    ENSURE(e1.dissipated_tangential_damping >= 0.0 && e1.dissipated_friction >= 0.0);
    tl_world_destroy(r.w);
}

int main(void) {
    const double G = E / (2.0 * (1.0 + NU)), Gs = 1.0 / (2.0 * (2.0 - NU) / G);
    const double k_lo = 8.0 * Gs * sqrt(R * D_LO), k_hi = 8.0 * Gs * sqrt(R * D_HI);
    const double W = 0.5 * (k_hi - k_lo) * U * U;
    /* below the Coulomb limit everywhere on the loop: k_t U < mu F_n at delta_lo */
    const double Es = E / (2.0 * (1.0 - NU * NU)), fn_lo = 4.0 / 3.0 * Es * sqrt(R) * pow(D_LO, 1.5);
    fprintf(stderr, "closed form: k_t %.6e -> %.6e N/m, U %.1e m: W = %.9e J per cycle (k_t U / mu F_n = %.3f)\n",
            k_lo, k_hi, U, W, k_lo * U / (MU * fn_lo));
    ENSURE(k_lo * U < 0.6 * MU * fn_lo);

    double created, out, loss, err;
    cycles("mindlin", 0, &created, &out, &loss, &err);
    ENSURE_NEAR(created, W, 1e-9 * W);
    ENSURE_NEAR(out, W, 1e-3 * W); /* the wall's work: the integration's order */
    ENSURE(loss == 0.0);
    ENSURE(err < 1e-9 * W);
    cycles("mindlin", 1, &created, &out, &loss, &err);
    ENSURE_NEAR(created, -W, 1e-9 * W);
    ENSURE_NEAR(out, -W, 1e-3 * W);
    ENSURE(loss == 0.0);
    ENSURE(err < 1e-9 * W);

    /* M4: over a cycle of its periodic state the wall puts energy in (it creates none), what its
     * microslip dissipates less what the change of P and K_t0 put into its energy at a held force
     * (its energy is a function of the force, mu P and K_t0: tl_contact.w_t) */
    for (int rev = 0; rev < 2; rev++) {
        cycles("mindlin-deresiewicz", rev, &created, &out, &loss, &err);
        ENSURE(out < -0.1 * W);
        ENSURE(loss > 0.0);
        ENSURE_NEAR(-out, loss - created, 1e-6 * loss);
        ENSURE(err < 1e-9 * W);
    }
    return tl_test_report("test_tangential_cycle");
}
