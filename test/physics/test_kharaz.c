/* The Kharaz oblique impacts with the four laws M1-M4 of Li et al. (2022),
 * run in the collision lab: the rigid-body limit in gross sliding, the
 * agreement between the laws, the energy balance, and softening. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

static const double R = 0.0025, SPEED = 4.0, MU = 0.092, EN = 0.98;

static tl_material_def mat(const char *name, double rho, double E, double nu) {
    tl_material_def m = tl_material_default();
    m.name = name;
    m.density = rho;
    m.youngs_modulus = E;
    m.poisson_ratio = nu;
    return m;
}

static tl_collide_result kharaz(int model, double theta_deg, double soften, double dt) {
    tl_collide_def d = tl_collide_default();
    d.material_a = mat("alumina", 3500, 380e9 * soften, 0.23);
    d.material_b = mat("glass", 2500, 70e9 * soften, 0.25);
    d.same_material = false;
    d.wall = true;
    d.radius_a = R;
    d.speed = SPEED;
    d.angle = theta_deg * M_PI / 180.0;
    d.dt = dt;
    d.law = tl_law_default();
    d.law.coulomb_test = TL_COULOMB_SPRING;
    tl_law_set(&d.law, "e", EN);
    tl_law_set(&d.law, "e_t", EN);
    tl_law_set(&d.law, "mu", MU);
    if (model == 2) {
        d.law.normal = "linear";
        d.law.damping = "restitution";
        d.law.tangential = "linear";
        tl_law_set(&d.law, "k_n", 1.72e7);
        tl_law_set(&d.law, "k_t", 1.48e7);
    }
    if (model == 3) d.law.tangential = "mindlin-renzo";
    if (model == 4) d.law.tangential = "mindlin-deresiewicz";
    tl_collide_result r;
    char err[512];
    memset(&r, 0, sizeof r);
    if (tl_collide(&d, &r, err, sizeof err) != TL_OK) fprintf(stderr, "%s\n", err);
    return r;
}

static void test_gross_sliding(void) {
    /* tangential impulse = mu x normal impulse: e_t, omega_out, alpha_v from the rigid-body formulas */
    double worst[3] = {0, 0, 0};
    for (int m = 1; m <= 4; m++)
        for (int a = 40; a <= 80; a += 10) {
            tl_collide_result r = kharaz(m, a, 1.0, 1e-8);
            double t = a * M_PI / 180.0, vn = SPEED * cos(t), vt = SPEED * sin(t);
            double et = 1.0 - MU * (1.0 + r.e_n) * vn / vt;
            double om = 5.0 * MU * (1.0 + r.e_n) * vn / (2.0 * R);
            double av = atan2(vt - MU * (1.0 + r.e_n) * vn, r.e_n * vn);
            worst[0] = fmax(worst[0], fabs(r.e_t / et - 1.0));
            worst[1] = fmax(worst[1], fabs(r.omega_out.y / om - 1.0));
            worst[2] = fmax(worst[2], fabs(r.alpha_v / av - 1.0));
            tl_collide_result_free(&r);
        }
    fprintf(stderr, "gross sliding, M1-M4 at 40-80 deg: e_t, omega_out, alpha_v within %.1e, %.1e, %.1e "
                    "of the rigid-body formulas\n", worst[0], worst[1], worst[2]);
    ENSURE(worst[0] < 1e-3);
    ENSURE(worst[1] < 1e-3);
    ENSURE(worst[2] < 1e-3);
}

static void test_laws_compared(void) {
    double et[5][3], en[5][3], err = 0.0;
    const double angles[3] = {10, 20, 40};
    for (int m = 1; m <= 4; m++)
        for (int a = 0; a < 3; a++) {
            tl_collide_result r = kharaz(m, angles[a], 1.0, 1e-8);
            et[m][a] = r.e_t;
            en[m][a] = r.e_n;
            err = fmax(err, fabs(r.energy_error) / r.energy_in);
            tl_collide_result_free(&r);
        }
    fprintf(stderr, "e_t at 10/20/40 deg: M1 %.4f %.4f %.4f, M2 %.4f %.4f %.4f, M3 %.4f %.4f %.4f, M4 %.4f %.4f %.4f\n",
            et[1][0], et[1][1], et[1][2], et[2][0], et[2][1], et[2][2], et[3][0], et[3][1], et[3][2], et[4][0],
            et[4][1], et[4][2]);
    /* sliding (40 deg): the four agree */
    for (int m = 2; m <= 4; m++) ENSURE_REL(et[m][2], et[1][2], 1e-4);
    /* sticking (below 20 deg): M4 differs from M1 (the paper's observation) */
    ENSURE(fabs(et[4][0] / et[1][0] - 1.0) > 0.01);
    ENSURE(fabs(et[4][1] / et[1][1] - 1.0) > 0.01);
    /* M3's 2/3 stiffness changes the stick phase too (the paper saw M1 and M3 coincide; we do not) */
    ENSURE(fabs(et[3][0] / et[1][0] - 1.0) > 0.05);
    /* M2's dashpot comes from e_n: the same e_n as M1 */
    for (int a = 0; a < 3; a++) ENSURE_NEAR(en[2][a], en[1][a], 1e-5);
    fprintf(stderr, "energy balance over the 12 impacts: within %.1e of the energy in\n", err);
    ENSURE(err < 1e-6);
}

static void test_softening(void) {
    /* with the step enlarged by c^(-2/5) (eq. 24 corrected) the contact is resolved with the same
     * number of steps: e_n is unchanged, and the indicators move only by the overlap's size */
    tl_collide_result r0 = kharaz(1, 30, 1.0, 1e-8);
    const double cs[3] = {1e-1, 1e-2, 1e-3};
    for (int k = 0; k < 3; k++) {
        double dt = 1e-8 * pow(cs[k], -0.4);
        tl_collide_result r = kharaz(1, 30, cs[k], dt);
        fprintf(stderr, "softening c = %g, dt = %.3g s: %lld steps (c = 1: %lld), e_n %.7f, e_t %.5f (c = 1: %.5f), "
                        "peak overlap %.2f%% of R\n",
                cs[k], dt, (long long)r.steps, (long long)r0.steps, r.e_n, r.e_t, r0.e_t,
                100.0 * r.max_overlap / R);
        ENSURE(llabs(r.steps - r0.steps) <= 1);
        ENSURE_NEAR(r.e_n, r0.e_n, 1e-9);
        ENSURE_REL(r.max_overlap, r0.max_overlap * pow(cs[k], -0.4), 1e-6);
        ENSURE(fabs(r.e_t - r0.e_t) < 0.02);
        tl_collide_result_free(&r);
    }
    tl_collide_result_free(&r0);
}

int main(void) {
    test_gross_sliding();
    test_laws_compared();
    test_softening();
    return tl_test_report("test_kharaz");
}
