/* Ray, Kempe & Fröhlich (2015), section 6.2: 100 spheres sediment (no fluid) onto a
 * hexagonal layer of 195 fixed spheres with the adaptive collision time model, e = 0.95
 * (Case 1) and 0.7 (Case 2): the energy fractions (eq. 56-59, Fig. 4), the collision
 * counts and the cost of stiffness and damping per collision (Table 3), the paper's
 * direct formulas (eq. 51-54) against the exact inversion. docs/case-sedimentation.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include "cases.h"
#include "talus/scene.h"
#include "validate.h"

#define SED_MAX_ROWS 6000

typedef struct sed_run {
    int n;                                          /* energy records */
    double t[SED_MAX_ROWS], pot[SED_MAX_ROWS], kin[SED_MAX_ROWS], spring[SED_MAX_ROWS];
    double e0;                                      /* E_pot(0) = E_tot(0), J */
    double balance;                                 /* largest |balance_error| */
    double balance_end;                             /* |balance_error| at the end */
    long ncol;                                      /* contacts that ended */
    long nimpact;                                   /* of them with approach speed > 0.1 m/s */
    double contact_steps;                           /* sum of their durations / dt */
    double e_mean;                                  /* mean restitution of the impacts > 0.1 m/s */
    double wall_s;                                  /* wall time of the run */
    double dt;                                      /* s, the step */
} sed_run;

static int column(char *header, const char *name) {
    int k = 0;
    for (char *s = strtok(header, ",\n"); s; s = strtok(NULL, ",\n"), k++)
        if (strcmp(s, name) == 0) return k;
    return -1;
}

static int field_index(const char *path, const char *name) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    int k = fgets(line, sizeof line, f) ? column(line, name) : -1;
    fclose(f);
    return k;
}

/* the values of the columns cols[0..n) of each data row, through a callback */
static int read_csv(const char *path, const char *const *names, int n, void (*row)(const double *v, void *u),
                    void *user) {
    int cols[8];
    for (int k = 0; k < n; k++)
        if ((cols[k] = field_index(path, names[k])) < 0) return -1;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        double all[32] = {0}, v[8];
        int k = 0;
        char *p = line;
        while (k < 32) {
            all[k++] = strtod(p, &p);
            if (*p != ',') break;
            p++;
        }
        for (int j = 0; j < n; j++) v[j] = all[cols[j]];
        row(v, user);
    }
    fclose(f);
    return 0;
}

static void energy_row(const double *v, void *u) {
    sed_run *s = u;
    if (s->n >= SED_MAX_ROWS) return;
    if (s->n > 0 && v[0] <= s->t[s->n - 1]) return; /* the repeated last record */
    s->t[s->n] = v[0];
    s->kin[s->n] = v[1] + v[2];
    s->pot[s->n] = v[3];
    s->spring[s->n] = v[4];
    if (fabs(v[5]) > s->balance) s->balance = fabs(v[5]);
    s->balance_end = fabs(v[5]);
    s->n++;
}

static void collision_row(const double *v, void *u) {
    sed_run *s = u;
    const double dt = s->dt;
    s->ncol++;
    if (v[0] > 0.1) {
        s->nimpact++;
        s->contact_steps += v[1] / dt;
        s->e_mean += v[2];
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the run's files (the scene's outputs, a plot's script) and the folder */
static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[1200];
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        remove(p);
    }
    if (d) closedir(d);
    rmdir(dir);
}

/* runs the case's scene `name` (validation/cases/sediment/checks.yaml) */
static int sediment_run(vcase *cs, report *r, const char *name, sed_run *s) {
    memset(s, 0, sizeof *s);
    s->dt = vcase_param(cs, "dt");
    char dir[] = "/tmp/talus-sediment-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("talus validate: mkdtemp");
        return -1;
    }
    tl_scene *scene = vcase_scene(cs, r, name, "sedimentation");
    if (!scene) {
        rmdir(dir);
        return -1;
    }
    tl_run_options ro = tl_run_options_default();
    ro.output_dir = dir;
    ro.threads = 1;
    tl_run_summary sum;
    double t0 = now();
    tl_status st = tl_scene_run(scene, &ro, &sum);
    s->wall_s = now() - t0;
    tl_scene_destroy(scene);
    int rc = -1;
    if (st == TL_OK) {
        char p[1200];
        static const char *const en[] = {"time", "kinetic_translational", "kinetic_rotational", "potential",
                                         "elastic_normal", "balance_error"};
        static const char *const co[] = {"normal_speed_in", "duration", "restitution"};
        snprintf(p, sizeof p, "%s/energy.csv", dir);
        rc = read_csv(p, en, 6, energy_row, s);
        snprintf(p, sizeof p, "%s/collisions.csv", dir);
        if (rc == 0) rc = read_csv(p, co, 3, collision_row, s);
        if (s->nimpact > 0) s->e_mean /= (double)s->nimpact;
        s->e0 = s->n > 0 ? s->pot[0] + s->kin[0] + s->spring[0] : 0.0;
    } else {
        fprintf(stderr, "talus validate: sedimentation: the run failed\n");
    }
    remove_dir(dir);
    return rc == 0 && s->n > 1 && s->e0 > 0.0 ? 0 : -1;
}

/* the record nearest to time t */
static int at_time(const sed_run *s, double t) {
    int best = 0;
    for (int i = 1; i < s->n; i++)
        if (fabs(s->t[i] - t) < fabs(s->t[best] - t)) best = i;
    return best;
}

/* ---- the cost of stiffness and damping per collision ---- */

static volatile double sink;

static double time_direct(long n, double tc) {
    double m = 0.9656, acc = 0.0;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        double k, d, lam, u = 0.1 + 1e-6 * (double)(i & 1023);
        tl_actm_direct(0.95 - 1e-7 * (double)(i & 255), tc, m, u, &k, &d, &lam);
        acc += k + d;
    }
    double t = (now() - t0) / (double)n;
    sink = acc;
    return t;
}

static double time_exact(long n, double tc) {
    double m = 0.9656, acc = 0.0;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        double k, d, lam, u = 0.1 + 1e-3 * (double)i;
        tl_actm_exact(0.95 - 1e-4 * (double)i, tc, m, u, &k, &d, &lam);
        acc += k + d;
    }
    double t = (now() - t0) / (double)n;
    sink = acc;
    return t;
}

/* what the engine does per collision: lambda and tau_c(lambda) are computed once per
 * material pair (exactly or by eq. 51-52), so each collision costs eq. 52-54 alone */
static double time_engine(long n, double tc) {
    tl_hertz_damped hd;
    tl_hertz_damped_from_restitution(0.95, &hd);
    double m = 0.9656, acc = 0.0, lambda = hd.lambda, tau_c = hd.tau_c;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        double u = fmax(0.1 + 1e-6 * (double)(i & 1023), 1e-3);
        double tstar = tc / tau_c;
        double k = m / sqrt(u * pow(tstar, 5.0));
        double d = 2.0 * lambda * m / tstar;
        acc += k + d;
        m += 1e-12;
    }
    double t = (now() - t0) / (double)n;
    sink = acc;
    return t;
}

static int sediment_cases(report *r, const validate_opts *o, vcase *cs) {
    const int steps = vcase_int(cs, "steps", 1, 1000000000);
    const double dt = vcase_param(cs, "dt"), tc = vcase_param(cs, "T_c");
    const double es[2] = {vcase_param(cs, "e_case1"), vcase_param(cs, "e_case2")};
    const char *const tags[2] = {"095", "07"};
    /* Table 3 */
    const double paper_ncol_newton[2] = {vcase_param(cs, "ncol_newton_case1"), vcase_param(cs, "ncol_newton_case2")},
                 paper_ncol_present[2] = {vcase_param(cs, "ncol_present_case1"),
                                          vcase_param(cs, "ncol_present_case2")};
    report_section(r, 2, "Ray, Kempe & Fröhlich (2015), section 6.2: sedimentation onto a fixed hexagonal layer");
    report_text(r,
                "100 spheres (D = 0.1154 m, 1200 kg/m³) placed at random at rest in [0.1, 1.4] x [0.3, 1.2] "
                "x [0.1, 1.4] m fall (g = 9.81 m/s²) onto 195 fixed spheres in one hexagonal layer (15 rows "
                "of 13) in the domain [0, 1.5]³ m, periodic in x and z, with a plane at the top y = 1.5 m; "
                "normal forces only: Hertz + a linear dashpot with k and d chosen per collision for "
                "T_c = %.3g s (10 dt: 003 does not print T_c; Kempe & Fröhlich's rule, [readings: ray-tc-sediment]"
                "(../../docs/readings.md#ray-tc-sediment)) and e = 0.95 "
                "(Case 1) or 0.7 (Case 2); dt = %.3g s, %d steps%s. `hertz-adaptive` is the exact "
                "inversion (in place of the paper's Newton iterations, 'iterative' in Fig. 4), "
                "`hertz-adaptive-direct` the paper's eq. 51-54 ('present'). Scenes: "
                "examples/003-sedimentation.yaml, examples/003-sedimentation-e07.yaml; "
                "docs/case-sedimentation.md.\n\n"
                "Energy fractions (eq. 56-59): E_pot = Σ m g y (y from the domain's floor), E_kin = Σ ½ m "
                "u², E_spring = Σ 2/5 k ζ^{5/2} (eq. 58 prints 5/2; the integral of k ζ^{3/2} is 2/5 "
                "k ζ^{5/2}: [readings: ray-eq58](../../docs/readings.md#ray-eq58)), each divided by E_tot(0) = E_pot(0) (the spheres start at rest); the "
                "remainder is what the dashpots dissipated.\n",
                tc, dt, steps, o->quick ? " (quick: the first 0.5 s)" : "");
    for (int c = 0; c < 2; c++) {
        static sed_run rx, rd;
        char exact[32], direct[32];
        snprintf(exact, sizeof exact, "case%d-exact", c + 1);
        snprintf(direct, sizeof direct, "case%d-direct", c + 1);
        if (sediment_run(cs, r, exact, &rx) != 0 || sediment_run(cs, r, direct, &rd) != 0) return -1;
        char name[64];
        snprintf(name, sizeof name, "sediment_e%s.dat", tags[c]);
        FILE *f = report_data_open(r, name);
        if (f) {
            fprintf(f, "# sedimentation e = %.2f: energy fractions of E_tot(0) = %.9g J\n"
                       "# t(s) pot_exact kin_exact spring_exact pot_direct kin_direct spring_direct\n",
                    es[c], rx.e0);
            for (int i = 0; i < rx.n && i < rd.n; i++)
                fprintf(f, "%.6g %.9g %.9g %.9g %.9g %.9g %.9g\n", rx.t[i], rx.pot[i] / rx.e0, rx.kin[i] / rx.e0,
                        rx.spring[i] / rx.e0, rd.pot[i] / rd.e0, rd.kin[i] / rd.e0, rd.spring[i] / rd.e0);
            report_data_close(r, f, name);
        }
        report_section(r, 3, "Case %d, e = %.2f", c + 1, es[c]);
        report_text(r, "| t (s) | E_pot/E_0 exact | E_kin/E_0 exact | E_spring/E_0 exact | E_pot/E_0 direct | "
                       "E_kin/E_0 direct | E_spring/E_0 direct |\n|---|---|---|---|---|---|---|\n");
        const double times[] = {0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5};
        for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
            if (times[k] > rx.t[rx.n - 1] + 1e-9) break;
            int i = at_time(&rx, times[k]), j = at_time(&rd, times[k]);
            report_text(r, "| %.3g | %.4f | %.4f | %.2e | %.4f | %.4f | %.2e |\n", rx.t[i], rx.pot[i] / rx.e0,
                        rx.kin[i] / rx.e0, rx.spring[i] / rx.e0, rd.pot[j] / rd.e0, rd.kin[j] / rd.e0,
                        rd.spring[j] / rd.e0);
        }
        report_text(r, "\nRuns: %.2f s (exact) and %.2f s (direct) of wall time for %d steps of 295 spheres.\n\n",
                    rx.wall_s, rd.wall_s, steps);
        int last = rx.n - 1, lastd = rd.n - 1;
        /* Verlet's energy error inside a contact: for an oscillator of frequency w stepped by dt the
         * energy swings by (w dt)^2 / 4 of the energy in the contact, with w = pi / T_c; the energy
         * in contacts is at most the kinetic energy; the error returns as contacts end */
        double kin_max = 0.0;
        for (int i = 0; i < rx.n; i++) kin_max = fmax(kin_max, rx.kin[i] / rx.e0);
        vcase_measure(cs, "kin_end_exact", rx.kin[last] / rx.e0);
        vcase_measure(cs, "kin_end_direct", rd.kin[lastd] / rd.e0);
        vcase_measure(cs, "pot_end_difference", rd.pot[lastd] / rd.e0 - rx.pot[last] / rx.e0);
        /* n_col: "the overall number of collisions"; Talus counts contacts from first touch to
         * separation, the reading t_col = t_coeff / n_col implies (docs/readings.md, ray-ncol) */
        vcase_measure(cs, "ncol_exact", (double)rx.ncol);
        vcase_measure(cs, "ncol_direct", (double)rd.ncol);
        vcase_measure(cs, "contact_steps_exact", rx.contact_steps);
        vcase_measure(cs, "balance_end_exact", rx.balance_end);
        vcase_measure(cs, "balance_end_direct", rd.balance_end);
        vcase_measure(cs, "balance_exact", rx.balance);
        vcase_measure(cs, "verlet", pow(3.14159265358979323846 * dt / tc, 2.0) / 4.0 * kin_max);
        /* the adaptive law gives e per binary collision; contacts with several neighbours at once
         * do not separate at the two-body e */
        vcase_measure(cs, "e_mean_exact", rx.e_mean);
        vcase_measure(cs, "e", es[c]);
        char group[16];
        snprintf(group, sizeof group, "case%d", c + 1);
        if (vcase_rows(cs, r, group) != 0) return -1;
        report_table_end(r);
        report_text(r, "\nCollisions (contacts that ended): %ld exact, %ld direct; with an approach speed above "
                       "0.1 m/s: %ld exact (%.0f contact-steps), %ld direct (%.0f contact-steps). Paper (Table "
                       "3): %.0f (Newton), %.0f (present).\n\n",
                    rx.ncol, rd.ncol, rx.nimpact, rx.contact_steps, rd.nimpact, rd.contact_steps,
                    paper_ncol_newton[c], paper_ncol_present[c]);
        if (r->plots) {
            char png[64], title[128], plot[1024];
            snprintf(png, sizeof png, "sediment_e%s.png", tags[c]);
            snprintf(title, sizeof title, "Sedimentation, e = %.2f: fractions of E_tot(0)", es[c]);
            snprintf(plot, sizeof plot,
                     "'%s' u 1:2 w l lw 2 lc 1 t 'potential, exact', '%s' u 1:3 w l lw 2 lc 2 t 'kinetic, "
                     "exact', '%s' u 1:4 w l lw 2 lc 3 t 'spring, exact', '%s' u 1:5 w l dt 2 lc 1 t "
                     "'potential, direct', '%s' u 1:6 w l dt 2 lc 2 t 'kinetic, direct', '%s' u 1:7 w l dt "
                     "2 lc 3 t 'spring, direct'",
                     name, name, name, name, name, name);
            report_figure(r, png, title, "t (s)", "fraction of E_tot(0)", "set yrange [0:1.05]", plot);
        }
    }

    /* the cost per collision */
    long nd = vcase_int(cs, "bench_calls_direct", 1, 1000000000), nx = vcase_int(cs, "bench_calls_exact", 1, 1000000),
         ne = nd;
    double td = time_direct(nd, tc), tx = time_exact(nx, tc), te = time_engine(ne, tc);
    report_section(r, 3, "Cost of stiffness and damping per collision");
    report_text(r,
                "Micro-benchmark on this machine, one thread (timings are reported, not tested): "
                "`tl_actm_direct` (eq. 51-54 in full: λ, t*, d, k) %.3g s per call (%ld calls); "
                "`tl_actm_exact` (solves eq. 6 and inverts e(λ) by secant iterations, then t*, d, k) "
                "%.3g s per call (%ld calls); what the engine does per collision (λ and τ_c(λ) are "
                "computed once per material pair, for both variants, so a collision costs eq. 52-54 "
                "alone) %.3g s. Paper (Table 3, t_col): Newton iterations 1.01e-2 to 1.22e-2 s, "
                "direct 8.3e-7 to 9.7e-7 s per collision.\n\n",
                td, nd, tx, nx, te);
    vcase_measure(cs, "t_direct", td);
    vcase_measure(cs, "t_exact", tx);
    vcase_measure(cs, "t_engine", te);
    if (vcase_rows(cs, r, "cost") != 0) return -1;
    report_table_end(r);
    report_text(r, "The paper's t_col are 2015 timings on another machine with a clock of 1/256 s; its "
                   "'present' rows are not t_coeff / n_col ([readings: ray-tcol](../../docs/readings.md#ray-tcol)). "
                   "Talus's exact inversion is a different algorithm from the paper's Newton iterations (a fine "
                   "RK4 integration of eq. 6 per secant step), and the engine never calls it per collision.\n");
    return 0;
}

int validate_sediment(report *r, const validate_opts *o) {
    vcase *cs = vcase_load("sediment", o->quick);
    if (!cs) return -1;
    int rc = sediment_cases(r, o, cs);
    vcase_free(cs);
    return rc;
}
