/* Li, Zeng, Wen & Zhang (2022), section 3.1: the oblique impacts of Kharaz et
 * al. (an alumina sphere on a soda-lime glass anvil), the four laws M1-M4,
 * and material softening (section 3.1.3). Run with the collision lab: the
 * oblique impact on a flat wall is the paper's vertical fall on a tilted
 * anvil (gravity changes the speed by 5e-5 of it during the 20 us contact). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "validate.h"

static const double PI = 3.14159265358979323846;
static const double R = 0.0025, SPEED = 4.0, MU = 0.092, E_N = 0.98, DT = 1e-8;

enum { M1, M2, M3, M4, NMODELS };
static const char *const model_names[NMODELS] = {"M1", "M2", "M3", "M4"};
static const char *const model_laws[NMODELS] = {
    "hertz + tsuji + mindlin", "linear + restitution + linear (k_n = 1.72e7, k_t = 1.48e7 N/m)",
    "hertz + tsuji + mindlin-renzo", "hertz + tsuji + mindlin-deresiewicz"};

typedef struct kharaz {
    double e_n, e_t, omega, alpha_v, alpha_c, psi1, psi2, e_out, w_out, max_overlap, energy_in,
        energy_error;
    double wall_seconds;
    int64_t steps;
    bool ok;
} kharaz;

static tl_collide_def kharaz_def(int model, double theta_deg, double soften, double dt) {
    tl_collide_def d = tl_collide_default();
    d.material_a = validate_material("alumina", 3500.0, 380e9 * soften, 0.23, 0.0);
    d.material_b = validate_material("glass", 2500.0, 70e9 * soften, 0.25, 0.0);
    d.same_material = false;
    d.wall = true;
    d.radius_a = R;
    d.speed = SPEED;
    d.angle = theta_deg * PI / 180.0;
    d.dt = dt;
    d.law = tl_law_default();
    d.law.coulomb_test = TL_COULOMB_SPRING; /* eq. 5: the spring force is tested */
    tl_law_set(&d.law, "e", E_N);
    tl_law_set(&d.law, "e_t", E_N);
    tl_law_set(&d.law, "mu", MU);
    switch (model) {
    case M2:
        d.law.normal = "linear";
        d.law.damping = "restitution";
        d.law.tangential = "linear";
        tl_law_set(&d.law, "k_n", 1.72e7);
        tl_law_set(&d.law, "k_t", 1.48e7);
        break;
    case M3: d.law.tangential = "mindlin-renzo"; break;
    case M4: d.law.tangential = "mindlin-deresiewicz"; break;
    default: break;
    }
    return d;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static kharaz run(int model, double theta, double soften, double dt, int repeat) {
    kharaz k;
    memset(&k, 0, sizeof k);
    tl_collide_def d = kharaz_def(model, theta, soften, dt);
    tl_collide_result res;
    char err[512];
    double t0 = now_seconds();
    for (int rep = 0; rep < repeat; rep++) {
        if (tl_collide(&d, &res, err, sizeof err) != TL_OK) {
            fprintf(stderr, "talus validate: Kharaz %s at %g deg: %s\n", model_names[model], theta, err);
            return k;
        }
        if (rep + 1 < repeat) tl_collide_result_free(&res);
    }
    k.wall_seconds = (now_seconds() - t0) / repeat;
    k.ok = true;
    k.e_n = res.e_n;
    k.e_t = res.e_t;
    k.omega = res.omega_out.y; /* about n x t = z x x = y */
    k.alpha_v = res.alpha_v * 180.0 / PI;
    k.alpha_c = res.alpha_c * 180.0 / PI;
    k.psi1 = res.psi1;
    k.psi2 = res.psi2;
    double m = 3500.0 * 4.0 / 3.0 * PI * R * R * R;
    k.e_out = 0.5 * m * (res.vc_out.x * res.vc_out.x + res.vc_out.z * res.vc_out.z); /* eq. 23 as printed */
    k.w_out = res.energy_out_rotational;
    k.max_overlap = res.max_overlap;
    k.energy_in = res.energy_in;
    k.energy_error = res.energy_error;
    k.steps = res.steps;
    tl_collide_result_free(&res);
    return k;
}

/* rigid-body impulse formulas for gross sliding (tangential impulse = mu x normal) */
static void sliding_formulas(double theta, double e_n, double *e_t, double *omega, double *alpha_v) {
    double t = theta * PI / 180.0, vn = SPEED * cos(t), vt = SPEED * sin(t);
    *e_t = 1.0 - MU * (1.0 + e_n) * vn / vt;
    *omega = 5.0 * MU * (1.0 + e_n) * vn / (2.0 * R);
    *alpha_v = atan2(vt - MU * (1.0 + e_n) * vn, e_n * vn) * 180.0 / PI;
}

static void table_at_angles(report *r, kharaz res[NMODELS][5], const double *angles) {
    report_text(r, "\n| law | θ (°) | e_n | e_t | ω_out (rad/s) | α_v (°) | α_c (°) | ψ1 | ψ2 | E_out (mJ) | W_out (mJ) |\n"
                   "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int m = 0; m < NMODELS; m++)
        for (int a = 0; a < 5; a++) {
            const kharaz *k = &res[m][a];
            report_text(r, "| %s | %g | %.5f | %.5f | %.2f | %.3f | %.3f | %.3f | %.3f | %.4f | %.4f |\n",
                        model_names[m], angles[a], k->e_n, k->e_t, k->omega, k->alpha_v, k->alpha_c, k->psi1,
                        k->psi2, 1e3 * k->e_out, 1e3 * k->w_out);
        }
}

static void model_checks(report *r, kharaz res[NMODELS][5], const double *angles) {
    report_text(r, "\nChecks (tolerances relative):\n");
    report_compare_begin(r);
    for (int a = 3; a < 5; a++) { /* 40 and 50 degrees: gross sliding */
        for (int m = 0; m < NMODELS; m++) {
            double et, om, av;
            sliding_formulas(angles[a], res[m][a].e_n, &et, &om, &av);
            char q[128];
            snprintf(q, sizeof q, "%s at %g°: e_t vs rigid-body sliding", model_names[m], angles[a]);
            report_compare(r, q, "", et, res[m][a].e_t, 1e-3, 0.0, NULL);
            snprintf(q, sizeof q, "%s at %g°: ω_out vs rigid-body sliding", model_names[m], angles[a]);
            report_compare(r, q, "rad/s", om, res[m][a].omega, 1e-3, 0.0, NULL);
            snprintf(q, sizeof q, "%s at %g°: α_v vs rigid-body sliding", model_names[m], angles[a]);
            report_compare(r, q, "°", av, res[m][a].alpha_v, 1e-3, 0.0, NULL);
        }
    }
    const char *why_m3 =
        "the paper finds M1 and M3 nearly coincident; in Talus they differ where the contact sticks "
        "(psi1 < 4): K_tA = 2/3 K_t0 changes the period of the tangential oscillation during the "
        "stick phase, hence the phase at separation; this is the effect Di Renzo & Di Maio (2004) "
        "introduced K_tA for. Above 30 degrees the contact slides and they agree to 1e-4";
    for (int a = 0; a < 5; a++) {
        char q[128];
        snprintf(q, sizeof q, "e_t at %g°: M3 against M1", angles[a]);
        report_compare(r, q, "", res[M1][a].e_t, res[M3][a].e_t, 1e-3, 0.0, why_m3);
        snprintf(q, sizeof q, "ω_out at %g°: M3 against M1", angles[a]);
        report_compare(r, q, "rad/s", res[M1][a].omega, res[M3][a].omega, 1e-3, 0.0, why_m3);
    }
    const char *why_m4 = "expected: the paper finds M4 different from M1 below 20 degrees "
                         "(incremental stiffness during the stick phase)";
    for (int a = 0; a < 5; a++) {
        char q[128];
        snprintf(q, sizeof q, "e_t at %g°: M4 against M1", angles[a]);
        report_compare(r, q, "", res[M1][a].e_t, res[M4][a].e_t, 1e-3, 0.0, angles[a] < 25 ? why_m4 : NULL);
    }
    for (int a = 0; a < 5; a++) {
        char q[128];
        snprintf(q, sizeof q, "e_n at %g°: M2 (linear) against M1", angles[a]);
        report_compare(r, q, "", res[M1][a].e_n, res[M2][a].e_n, 1e-5, 0.0, NULL);
    }
    double worst = 0.0;
    for (int m = 0; m < NMODELS; m++)
        for (int a = 0; a < 5; a++) worst = fmax(worst, fabs(res[m][a].energy_error) / res[m][a].energy_in);
    report_compare(r, "energy: in − (out + dissipated), largest of 20 runs", "of E_in", 0.0, worst, 0.0, 1e-6,
                   NULL);
    report_compare_end(r);
    report_text(r, "The linear law M2 gives the same e_n as M1 here: its dashpot comes from e_n "
                   "(Appendix A), so both return e_n = 0.98 exactly. The paper's M2 differs in e_n "
                   "because it used 2√(mK), which is critical damping: with that dashpot the sphere "
                   "would not rebound at all (a critically damped linear oscillator never returns to "
                   "zero overlap with a separating speed).\n");
}

static void sweep(report *r, const validate_opts *o) {
    FILE *f = report_data_open(r, "kharaz_sweep.dat");
    if (!f) return;
    fprintf(f, "# theta  then for M1..M4: e_n e_t omega alpha_v alpha_c psi1 psi2\n");
    int n = o->quick ? 5 : 40;
    for (int i = 0; i < n; i++) {
        double theta = o->quick ? 10.0 + 15.0 * i : 2.0 + 2.0 * i;
        fprintf(f, "%g", theta);
        for (int m = 0; m < NMODELS; m++) {
            kharaz k = run(m, theta, 1.0, DT, 1);
            fprintf(f, " %.8g %.8g %.8g %.8g %.8g %.8g %.8g", k.e_n, k.e_t, k.omega, k.alpha_v, k.alpha_c,
                    k.psi1, k.psi2);
        }
        fprintf(f, "\n");
    }
    report_data_close(r, f, "kharaz_sweep.dat");
    report_text(r, "\nThe sweep every 2° from 2° to 80° (data: kharaz_sweep.dat).\n");
    static const struct {
        const char *png, *title, *ylabel;
        int col;
    } figs[] = {{"kharaz_en.png", "Kharaz: normal restitution", "e_n", 2},
                {"kharaz_et.png", "Kharaz: tangential restitution", "e_t", 3},
                {"kharaz_omega.png", "Kharaz: outgoing angular velocity", "omega_out (rad/s)", 4},
                {"kharaz_alpha_v.png", "Kharaz: rebound angle of the centre", "alpha_v (deg)", 5}};
    for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++) {
        char plot[512];
        int c = figs[k].col;
        snprintf(plot, sizeof plot,
                 "'kharaz_sweep.dat' u 1:%d w lp pt 7 ps 0.5 t 'M1', '' u 1:%d w lp pt 5 ps 0.5 t 'M2', "
                 "'' u 1:%d w l lw 2 dt 2 t 'M3', '' u 1:%d w l lw 2 t 'M4'",
                 c, c + 7, c + 14, c + 21);
        report_figure(r, figs[k].png, figs[k].title, "anvil angle theta (deg)", figs[k].ylabel, "", plot);
    }
    report_figure(r, "kharaz_psi.png", "Kharaz: Maw's angles, psi2 against psi1", "psi1", "psi2", "",
                  "'kharaz_sweep.dat' u 7:8 w lp pt 7 ps 0.5 t 'M1', '' u 14:15 w lp pt 5 ps 0.5 t 'M2', "
                  "'' u 21:22 w l lw 2 dt 2 t 'M3', '' u 28:29 w l lw 2 t 'M4'");
}

static void softening(report *r, const validate_opts *o) {
    const double cs[5] = {1.0, 1e-1, 1e-2, 1e-3, 1e-4};
    const double angles[5] = {10, 20, 30, 40, 50};
    const double paper_saving[5] = {NAN, 0.49, 0.84, 0.93, NAN};
    int nc = o->quick ? 3 : 5, repeat = o->quick ? 1 : 5;
    report_text(r, "\n### Softening (section 3.1.3)\n\n"
                   "Both Young's moduli multiplied by c; M1 at 10°–50°. Each c is run at the paper's step "
                   "(10⁻⁸ s) and at the step enlarged by eq. 24 corrected (1/E* = Σ(1−ν²)/E): the Hertz "
                   "contact time scales as E*^(−2/5), so the step grows by c^(−2/5) = 2.51, 6.31, 15.8, 39.8 "
                   "(the paper: 2.5, 6.3 and 15.9 for c = 10⁻¹…10⁻³). Changes are the largest over the five "
                   "angles, from c = 1; CPU time is the wall time of the five runs (repeated %d times).\n\n"
                   "| c | dt (s) | max Δe_n | max Δe_t | max Δω_out (rad/s) | max Δα_v (°) | peak overlap / R | steps | CPU time (s) | saved |\n"
                   "|---|---|---|---|---|---|---|---|---|---|\n",
                repeat);
    kharaz base[5];
    double cpu_original = 0.0;
    int64_t steps_original = 0;
    FILE *f = report_data_open(r, "kharaz_softening.dat");
    if (f) fprintf(f, "# c  then per angle 10..50: e_n e_t omega alpha_v (original step)\n");
    double saved[5] = {NAN, NAN, NAN, NAN, NAN};
    double overlap[5] = {0};
    for (int ic = 0; ic < nc; ic++) {
        for (int pass = 0; pass < 2; pass++) {
            if (ic == 0 && pass == 1) continue;
            double dt = pass == 0 ? DT : DT * pow(cs[ic], -0.4);
            double de_n = 0, de_t = 0, dom = 0, dav = 0, ov = 0, cpu = 0;
            int64_t steps = 0;
            if (f && pass == 0) fprintf(f, "%g", cs[ic]);
            for (int a = 0; a < 5; a++) {
                kharaz k = run(M1, angles[a], cs[ic], dt, repeat);
                if (ic == 0) base[a] = k;
                de_n = fmax(de_n, fabs(k.e_n - base[a].e_n));
                de_t = fmax(de_t, fabs(k.e_t - base[a].e_t));
                dom = fmax(dom, fabs(k.omega - base[a].omega));
                dav = fmax(dav, fabs(k.alpha_v - base[a].alpha_v));
                ov = fmax(ov, k.max_overlap / R);
                cpu += k.wall_seconds;
                steps += k.steps;
                if (f && pass == 0) fprintf(f, " %.8g %.8g %.8g %.8g", k.e_n, k.e_t, k.omega, k.alpha_v);
            }
            if (f && pass == 0) fprintf(f, "\n");
            /* the paper's saving: the enlarged step against the original one, same c */
            if (pass == 0) {
                cpu_original = cpu;
                steps_original = steps;
                overlap[ic] = ov;
            }
            double sv = pass == 1 ? 1.0 - cpu / cpu_original : NAN;
            double ss = pass == 1 ? 1.0 - (double)steps / (double)steps_original : NAN;
            if (pass == 1) saved[ic] = sv;
            char svs[64];
            if (isnan(sv)) snprintf(svs, sizeof svs, "–");
            else snprintf(svs, sizeof svs, "%.0f%% (steps: %.0f%%)", 100.0 * sv, 100.0 * ss);
            report_text(r, "| %g | %.3g | %.2e | %.2e | %.3g | %.3g | %.3g%% | %lld | %.4f | %s |\n", cs[ic], dt,
                        de_n, de_t, dom, dav, 100.0 * ov, (long long)steps, cpu, svs);
        }
    }
    if (f) report_data_close(r, f, "kharaz_softening.dat");
    report_compare_begin(r);
    for (int ic = 1; ic < nc && ic < 4; ic++) {
        char q[96];
        snprintf(q, sizeof q, "CPU time saved by the enlarged step, c = %g", cs[ic]);
        report_compare(r, q, "", paper_saving[ic], saved[ic], 0.15, 0.0,
                       "the lab's run is almost all contact (3.4 steps of approach), so the saving "
                       "is 1 − c^(2/5) = 60%, 84%, 94% of the steps; the paper's runs carry overheads "
                       "of its polyhedral contact detection that do not shrink with the step");
    }
    for (int ic = 0; ic < nc; ic++) {
        char q[96];
        snprintf(q, sizeof q, "peak overlap / R, c = %g (the paper: below 1%%)", cs[ic]);
        report_bound(r, q, "", 0.01, overlap[ic],
                     "the peak overlap of a softened contact grows as c^(-2/5): 0.64% of R at c = 1 "
                     "(10 degrees, 3.94 m/s normal), then 1.6%, 4.1%, 10% and 26% for c = 0.1 ... 1e-4; "
                     "the paper's 'below 1%' holds here only for c = 1");
    }
    report_compare_end(r);
    report_figure(r, "kharaz_softening.png", "Kharaz softening (M1, original step): e_t against c", "c",
                  "e_t", "set logscale x",
                  "'kharaz_softening.dat' u 1:3 w lp t '10 deg', '' u 1:7 w lp t '20 deg', '' u 1:11 w lp t "
                  "'30 deg', '' u 1:15 w lp t '40 deg', '' u 1:19 w lp t '50 deg'");
    report_figure(r, "kharaz_softening_omega.png", "Kharaz softening (M1, original step): omega_out against c",
                  "c", "omega_out (rad/s)", "set logscale x",
                  "'kharaz_softening.dat' u 1:4 w lp t '10 deg', '' u 1:8 w lp t '20 deg', '' u 1:12 w lp t "
                  "'30 deg', '' u 1:16 w lp t '40 deg', '' u 1:20 w lp t '50 deg'");
}

int validate_li_kharaz(report *r, const validate_opts *o) {
    report_text(r, "\n## Li et al. (2022), section 3.1: the Kharaz oblique impacts, M1–M4\n\n"
                   "An alumina sphere (d = 5 mm, E = 380 GPa, ν = 0.23, density 3500 kg/m³: the paper's "
                   "mass 2.29e-4 kg and moment of inertia 5.73e-10 kg m² imply it, not the 4000 of its "
                   "text) hits a soda-lime glass anvil (E = 70 GPa, ν = 0.25) at 4 m/s, θ from the normal. "
                   "μ = 0.092 and e_n = e_t = 0.98 (not given by the paper; the usual values). Step 10⁻⁸ s "
                   "as the paper. The Coulomb test is on the spring force (eq. 5). The laws:\n\n");
    for (int m = 0; m < NMODELS; m++) report_text(r, "- %s: %s\n", model_names[m], model_laws[m]);
    report_text(r, "\nThe experiment's values are only in the paper's figures, which the text does not "
                   "carry: the checks below are the rigid-body limit, the agreement between the laws, "
                   "and the energy balance.\n");
    const double angles[5] = {10, 20, 30, 40, 50};
    kharaz res[NMODELS][5];
    for (int m = 0; m < NMODELS; m++)
        for (int a = 0; a < 5; a++) res[m][a] = run(m, angles[a], 1.0, DT, 1);
    table_at_angles(r, res, angles);
    model_checks(r, res, angles);
    sweep(r, o);
    softening(r, o);
    return 0;
}
