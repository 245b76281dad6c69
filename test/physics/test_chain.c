/* Granular chains (Wang et al. 2025, section 4; docs/case-chains.md): a chain of
 * 20 touching steel beads, the first one struck. Elastic (Hertz, no damping): the
 * solitary wave travels at Nesterenko's speed for its amplitude, with a steady
 * amplitude, and momentum and energy are conserved. Damped (EDEM, wang-kv): the
 * amplitude decays along the chain. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "talus/talus.h"
#include "test.h"

#define PI 3.14159265358979323846
#define N 20

static const double R = 2.38e-3, M = 0.45e-3, E = 193e9, NU = 0.3, SY = 940e6, V0 = 1.77;

typedef struct run_out {
    double tpeak[N + 1], fpeak[N + 1]; /* of the contact (k, k+1) */
    double p0, p1, e0, e1, ke0;
} run_out;

/* law: 0 Hertz, 1 EDEM (hertz + tsuji), 2 wang-kv */
static int run_chain(int law, double duration, run_out *o) {
    memset(o, 0, sizeof *o);
    tl_world_def wd = tl_world_default();
    wd.dt = 1e-8;
    wd.threads = 1;
    tl_world *w = NULL;
    if (tl_world_create(&wd, &w) != TL_OK) return -1;
    tl_material_def md = tl_material_default();
    md.name = "steel";
    md.density = M / (4.0 / 3.0 * PI * R * R * R);
    md.youngs_modulus = E;
    md.poisson_ratio = NU;
    md.yield_stress = SY;
    int mat;
    ENSURE(tl_world_add_material(w, &md, &mat) == TL_OK);
    tl_law_def law_def = tl_law_default();
    law_def.tangential = "none";
    law_def.history = "none";
    law_def.normal = law == 2 ? "wang-kv" : "hertz";
    law_def.damping = law == 0 ? "none" : law == 1 ? "tsuji" : "wang-kv";
    if (law > 0) tl_law_set(&law_def, "e", 0.89), law_def.clamp_tensile = true;
    if (law == 2) tl_law_set(&law_def, "e_p", 0.70), tl_law_set(&law_def, "psi", 2.84);
    ENSURE(tl_world_set_law(w, mat, mat, &law_def) == TL_OK);
    for (int i = 1; i <= N; i++) {
        tl_particle_def p = tl_particle_default();
        p.id = (uint32_t)i;
        p.material = mat;
        p.radius = R;
        p.position = (tl_vec3){(2 * i - 1) * R, 0, 0};
        if (i == 1) p.velocity = (tl_vec3){V0, 0, 0};
        ENSURE(tl_world_add_particle(w, &p, NULL) == TL_OK);
    }
    if (tl_world_prepare(w) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(w));
        tl_world_destroy(w);
        return -1;
    }
    tl_energy en;
    tl_world_energy(w, &en);
    o->e0 = en.total, o->ke0 = en.kinetic_translational;
    tl_particle_state ps;
    for (int i = 1; i <= N; i++)
        if (tl_world_get_particle(w, (uint32_t)i, &ps) == TL_OK) o->p0 += ps.mass * ps.velocity.x;
    int64_t steps = llround(duration / 1e-8);
    for (int64_t s = 0; s < steps; s++) {
        ENSURE(tl_world_step(w, 1) == TL_OK);
        size_t nc = tl_world_contact_count(w);
        for (size_t c = 0; c < nc; c++) {
            tl_contact_info ci;
            if (tl_world_get_contact(w, c, &ci) != TL_OK || ci.with_wall) continue;
            uint32_t a = ci.id_a < ci.id_b ? ci.id_a : ci.id_b;
            if (a < 1 || a > N) continue;
            if (ci.overlap > 0 && ci.normal_force > o->fpeak[a]) {
                o->fpeak[a] = ci.normal_force;
                o->tpeak[a] = tl_world_time(w);
            }
        }
    }
    for (int i = 1; i <= N; i++)
        if (tl_world_get_particle(w, (uint32_t)i, &ps) == TL_OK) o->p1 += ps.mass * ps.velocity.x;
    tl_world_energy(w, &en);
    o->e1 = en.total;
    tl_world_destroy(w);
    return 0;
}

/* Nesterenko: V_s = (2/sqrt 5) c xi_m^{1/4}, c^2 = 2E/(pi rho (1 - nu^2)), xi_m = delta_m / (2R) */
static double nesterenko(double fm) {
    double rho = M / (4.0 / 3.0 * PI * R * R * R);
    double K = 4.0 / 3.0 * E / (2.0 * (1.0 - NU * NU)) * sqrt(R / 2.0);
    double c = sqrt(2.0 * E / (PI * rho * (1.0 - NU * NU)));
    return 2.0 / sqrt(5.0) * c * pow(pow(fm / K, 2.0 / 3.0) / (2.0 * R), 0.25);
}

int main(void) {
    /* the two printed forms of Nesterenko's speed agree (Daraio et al. 2006 eq. 2) */
    double rho = M / (4.0 / 3.0 * PI * R * R * R), a = 2 * R, fm = 90.0;
    double daraio = 0.6802 * pow(2.0 * E / (a * pow(rho, 1.5) * (1.0 - NU * NU)), 1.0 / 3.0) * pow(fm, 1.0 / 6.0);
    ENSURE_REL(nesterenko(fm), daraio, 2e-4);

    run_out h;
    if (run_chain(0, 120e-6, &h) != 0) return 1;
    /* the wave is formed after a few beads: contacts 6..16 */
    double fmean = 0;
    for (int k = 6; k <= 16; k++) fmean += h.fpeak[k];
    fmean /= 11;
    double speed = 10 * 2 * R / (h.tpeak[16] - h.tpeak[6]);
    double vn = nesterenko(fmean);
    printf("elastic chain: F_m = %.2f N, wave speed %.1f m/s, Nesterenko %.1f m/s (%+.2f%%)\n", fmean, speed, vn,
           100 * (speed / vn - 1));
    ENSURE_REL(speed, vn, 0.03);
    ENSURE_REL(h.fpeak[16], h.fpeak[6], 0.01); /* a solitary wave keeps its amplitude */
    ENSURE(h.fpeak[16] > 80 && h.fpeak[16] < 130);
    ENSURE(fabs(h.p1 - h.p0) <= 1e-12 * h.p0);
    ENSURE(fabs(h.e1 - h.e0) <= 1e-6 * h.ke0);

    /* damped chains lose amplitude along the chain */
    run_out d;
    if (run_chain(1, 120e-6, &d) != 0) return 1;
    printf("EDEM chain: peak contact force %.2f N (contact 6) -> %.2f N (contact 16)\n", d.fpeak[6], d.fpeak[16]);
    ENSURE(d.fpeak[16] < 0.9 * d.fpeak[6]);
    ENSURE(d.e1 < h.e1 && d.fpeak[6] < h.fpeak[6]);
    run_out wk;
    if (run_chain(2, 120e-6, &wk) != 0) return 1;
    printf("wang-kv chain: peak contact force %.2f N (contact 6) -> %.2f N (contact 16)\n", wk.fpeak[6],
           wk.fpeak[16]);
    ENSURE(wk.fpeak[16] < 0.9 * wk.fpeak[6]);
    ENSURE(wk.tpeak[16] > wk.tpeak[6]);
    return tl_test_report("test_chain");
}
