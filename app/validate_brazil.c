/*
 * Li et al. (2022), section 3.2: the Brazil nut effect (issue 13), in
 * `talus validate --long`, with analytic ellipsoids. A box 55 x 40 x 200 mm
 * rocks about y (15 degrees, period 3 s) for 12 s; 150 peanuts (semi-axes
 * 6 x 5 x 5 mm, 0.0019 kg) and one nut (12 x 9 x 9 mm, 0.012 kg); E = 50 MPa,
 * nu = 0.2, mu = 0.8, e_n = e_t = 0.5, dt = 1e-5 s; laws M1 (Mindlin with
 * history) and M4 (Mindlin-Deresiewicz). Three seeds of the initial packing
 * per law (the peanuts' orientations), the pivot through the floor's centre;
 * one run per law with the pivot through the box's centre, to show the choice
 * does not decide the result (docs/readings.md#li-brazil-nut).
 *
 * The nut "reaches the top" when at least 90 % of the peanuts' centres lie
 * below its own (its rank); the report gives that time, the nut's height and
 * speed, and the mean energy per body, against the paper's findings: the nut
 * reaches the top within about 6 s with M1 and about 4 s later with M4; M1
 * keeps more energy and moves more.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "talus/scene.h"
#include "validate.h"

#define PI 3.14159265358979323846
#define SEEDS 3
#define DURATION 12.0
#define SAMPLE 0.01
#define TOP_RANK 0.9

typedef struct brazil_run {
    int model;        /* 1 or 4 */
    int seed;
    double pivot_z;   /* m: the rocking axis's height (0: the floor) */
    char tag[48];
    /* results */
    double t_top;     /* s, NaN: not within the run */
    double final_rank, final_z, mean_speed, mean_ke, mean_e, cpu;
    double max_speed;  /* m/s: the nut's largest speed over the samples */
    double books;      /* the ledger's error: |total's change| over what the box gave and the contacts took */
    double work;       /* J: the work the box did on the bodies */
    double bed_z;      /* m: the bodies' mean height at the end */
    bool ok;
} brazil_run;

static const char *const SCENE =
    "talus: 1\n"
    "name: brazil nut %s\n"
    "seed: %d\n"
    "gravity: [0, 0, -9.81]\n"
    "domain: {min: [-0.2, -0.1, -0.2], max: [0.2, 0.1, 0.4]}\n"
    "integrator: {scheme: verlet, dt: 1.0e-5}\n"
    "materials:\n"
    "  peanut: {density: 3024, youngs_modulus: 5.0e7, poisson_ratio: 0.2}\n"
    "  nut:    {density: 2947, youngs_modulus: 5.0e7, poisson_ratio: 0.2}\n"
    "  box:    {density: 2947, youngs_modulus: 5.0e7, poisson_ratio: 0.2}\n"
    "shapes:\n"
    "  peanut: {ellipsoid: [0.006, 0.005, 0.005]}\n"
    "  nut:    {ellipsoid: [0.012, 0.009, 0.009]}\n"
    "laws:\n"
    "  - {between: [any, any], normal: hertz, damping: tsuji, tangential: %s, history: true,\n"
    "     e: 0.5, e_t: 0.5, mu: 0.8}\n"
    "walls:\n"
    "  - {name: box, type: box, material: box, min: [-0.0275, -0.02, 0.0], max: [0.0275, 0.02, 0.2],\n"
    "     open: [+z], motion: {rock: {axis: [0, 1, 0], point: [0, 0, %g], amplitude_deg: 15, period: 3.0}}}\n"
    "particles:\n"
    "  - {material: nut, shape: nut, position: [0, 0, 0.0095], orientation: [1, 0, 0, 0]}\n"
    "  - lattice: {material: peanut, shape: peanut, min: [-0.0275, -0.02, 0.021], max: [0.0275, 0.02, 0.186],\n"
    "              count: [4, 3, 12]}\n"
    "  - lattice: {material: peanut, shape: peanut, min: [-0.0275, -0.02, 0.186], max: [0.0275, 0.02, 0.2],\n"
    "              count: [3, 2, 1]}\n"
    "stages:\n  - {duration: 12}\n";

/* wall-clock seconds (CPU time would add the threads' together) */
static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the fraction of the peanuts whose centre lies below the nut's (id 1) */
static double nut_rank(tl_world *w, double nut_z) {
    tl_particle_arrays pa;
    if (tl_world_particle_arrays(w, &pa) != TL_OK || pa.count < 2) return NAN;
    size_t below = 0, n = 0;
    for (size_t i = 0; i < pa.count; i++) {
        if (pa.id[i] == 1) continue;
        n++;
        if (pa.position[3 * i + 2] < nut_z) below++;
    }
    return (double)below / (double)n;
}

/* The runs go side by side on the threads (validate_brazil); what they write into the report
 * (its files, its count of them, its text) goes one at a time. */
static FILE *data_open(report *r, const char *name) {
    FILE *f;
#pragma omp critical(brazil_report)
    f = report_data_open(r, name);
    return f;
}

static void data_close(report *r, FILE *f, const char *name) {
#pragma omp critical(brazil_report)
    report_data_close(r, f, name);
}

static void snapshot(report *r, tl_world *w, const char *name) {
    FILE *f = data_open(r, name);
    if (!f) return;
    tl_particle_arrays pa;
    fprintf(f, "# x (m), z (m), 1 for the nut\n");
    if (tl_world_particle_arrays(w, &pa) == TL_OK)
        for (size_t i = 0; i < pa.count; i++)
            fprintf(f, "%.6g %.6g %d\n", pa.position[3 * i], pa.position[3 * i + 2], pa.id[i] == 1 ? 1 : 0);
    data_close(r, f, name);
}

static int run_one(report *r, brazil_run *b, bool snapshots, int threads) {
    char text[4096], name[128], snap[128];
    snprintf(text, sizeof text, SCENE, b->tag, b->seed, b->model == 4 ? "mindlin-deresiewicz" : "mindlin",
             b->pivot_z);
    tl_scene *sc;
#pragma omp critical(brazil_report)
    sc = validate_scene(r, text, "brazil.yaml", b->tag);
    if (!sc) return -1;
    tl_world *w = tl_scene_world(sc);
    double t0 = seconds_now();
    if (tl_world_set_threads(w, threads) != TL_OK || tl_world_prepare(w) != TL_OK) {
        tl_scene_destroy(sc);
        return -1;
    }
    double dt = tl_world_dt(w);
    int64_t every = (int64_t)llround(SAMPLE / dt), total = (int64_t)llround(DURATION / dt);
    snprintf(name, sizeof name, "brazil_%s.dat", b->tag);
    FILE *f = data_open(r, name);
    if (!f) {
        tl_scene_destroy(sc);
        return -1;
    }
    fprintf(f, "# t (s), nut z (m), nut speed (m/s), nut rank (fraction of peanuts below), kinetic "
               "energy per body (J), kinetic + potential per body above the floor's level (J)\n");
    if (snapshots) {
        snprintf(snap, sizeof snap, "brazil_%s_initial.dat", b->tag);
        snapshot(r, w, snap);
    }
    b->t_top = NAN;
    tl_energy e_start;
    if (tl_world_energy(w, &e_start) != TL_OK) {
        tl_scene_destroy(sc);
        return -1;
    }
    double sum_speed = 0.0, sum_ke = 0.0, sum_e = 0.0;
    int samples = 0;
    tl_status st = TL_OK;
    for (int64_t k = 0; k < total && st == TL_OK; k += every) {
        st = tl_world_step(w, every);
        if (st != TL_OK) break;
        tl_particle_state nut;
        tl_energy e;
        if (tl_world_get_particle(w, 1, &nut) != TL_OK || tl_world_energy(w, &e) != TL_OK) {
            st = TL_ERROR_STATE;
            break;
        }
        double n = (double)tl_world_particle_count(w);
        double speed = sqrt(nut.velocity.x * nut.velocity.x + nut.velocity.y * nut.velocity.y +
                            nut.velocity.z * nut.velocity.z);
        double rank = nut_rank(w, nut.position.z);
        double ke = (e.kinetic_translational + e.kinetic_rotational) / n, et = ke + e.potential / n;
        double t = tl_world_time(w);
        if (isnan(b->t_top) && rank >= TOP_RANK) b->t_top = t;
        fprintf(f, "%.4f %.6g %.6g %.4f %.6g %.6g\n", t, nut.position.z, speed, rank, ke, et);
        sum_speed += speed;
        if (speed > b->max_speed) b->max_speed = speed;
        sum_ke += ke;
        sum_e += et;
        samples++;
        b->final_rank = rank;
        b->final_z = nut.position.z;
    }
    data_close(r, f, name);
    if (st != TL_OK) {
#pragma omp critical(brazil_report)
        report_text(r, "\n%s: the run stopped: %s\n", b->tag, tl_world_error(w));
        tl_scene_destroy(sc);
        return -1;
    }
    if (snapshots) {
        snprintf(snap, sizeof snap, "brazil_%s_final.dat", b->tag);
        snapshot(r, w, snap);
    }
    tl_particle_arrays pa;
    if (tl_world_particle_arrays(w, &pa) == TL_OK && pa.count > 0) {
        double zs = 0.0;
        for (size_t i = 0; i < pa.count; i++) zs += pa.position[3 * i + 2];
        b->bed_z = zs / (double)pa.count;
    }
    tl_energy e_end;
    if (tl_world_energy(w, &e_end) == TL_OK) {
        double lost = e_end.dissipated_normal + e_end.dissipated_plastic + e_end.dissipated_tangential_damping +
                      e_end.dissipated_friction + e_end.dissipated_rolling;
        b->work = e_end.boundary_work - e_start.boundary_work;
        b->books = fabs(e_end.total - e_start.total) / fmax(fabs(b->work), lost);
    } else {
        b->books = NAN;
    }
    b->mean_speed = sum_speed / samples;
    b->mean_ke = sum_ke / samples;
    b->mean_e = sum_e / samples;
    b->cpu = seconds_now() - t0;
    b->ok = true;
    tl_scene_destroy(sc);
    return 0;
}

/* mean and sample standard deviation of the finite values; *count of them */
static void stats(const double *x, int n, double *mean, double *sd, int *count) {
    double s = 0.0, ss = 0.0;
    int c = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(x[i])) {
            s += x[i];
            c++;
        }
    *count = c;
    *mean = c ? s / c : NAN;
    for (int i = 0; i < n; i++)
        if (isfinite(x[i])) ss += (x[i] - *mean) * (x[i] - *mean);
    *sd = c > 1 ? sqrt(ss / (c - 1)) : NAN;
}

int validate_brazil(report *r, const validate_opts *o) {
    if (!o->long_runs || o->quick) return 0;
    report_section(r, 2, "Li et al. (2022), section 3.2: the Brazil nut (`--long`)");
    report_text(r, "A box 55 x 40 x 200 mm rocking about y (15 degrees, period 3 s, the angle 15 deg "
                   "sin(2 pi t / 3 s)) for 12 s; 150 peanuts and one nut as analytic ellipsoids with "
                   "semi-axes 6 x 5 x 5 mm and 12 x 9 x 9 mm (the masses 0.0019 and 0.012 kg fit only "
                   "that reading, [li-brazil-nut](../../docs/readings.md#li-brazil-nut)); E = 50 MPa, nu = "
                   "0.2, mu = 0.8, e_n = e_t = 0.5, dt = 1e-5 s; M1 (Mindlin, true history) and M4 "
                   "(Mindlin-Deresiewicz). The nut starts flat on the floor, the peanuts on a loose "
                   "lattice above it, each turned at random (the seed); the paper does not describe "
                   "its packing. The pivot is not stated: the runs turn about the floor's centre, and "
                   "one run per law about the box's centre (0.1 m up). The nut **reaches the top** when "
                   "at least 90 %% of the peanuts' centres lie below its own. Energies per body: kinetic "
                   "(translation and rotation), and kinetic plus potential above the floor's level, "
                   "averaged over the run every 0.01 s.\n");
    brazil_run runs[2 * SEEDS + 2];
    int nr = 0;
    for (int m = 0; m < 2; m++)
        for (int s = 1; s <= SEEDS; s++) {
            brazil_run *b = &runs[nr++];
            memset(b, 0, sizeof *b);
            b->model = m ? 4 : 1;
            b->seed = s;
            snprintf(b->tag, sizeof b->tag, "M%d_seed%d", b->model, s);
        }
    for (int m = 0; m < 2; m++) {
        brazil_run *b = &runs[nr++];
        memset(b, 0, sizeof *b);
        b->model = m ? 4 : 1;
        b->seed = 1;
        b->pivot_z = 0.1;
        snprintf(b->tag, sizeof b->tag, "M%d_seed1_pivot_centre", b->model);
    }
    /* the runs side by side, one thread each (151 bodies gain little from threads within a run;
     * each run's numbers do not depend on which thread runs it or on what runs beside it) */
    int nt = o->threads > 0 ? o->threads : omp_get_max_threads(), failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (int k = 0; k < nr; k++)
        if (run_one(r, &runs[k], runs[k].seed == 1 && runs[k].pivot_z == 0.0, 1) != 0) {
#pragma omp atomic write
            failed = 1;
        }
    if (failed) return -1;
    /* per run */
    report_text(r, "\n| run | pivot | reaches the top (s) | final rank | final z (m) | nut's mean speed (m/s) | "
                   "mean kinetic energy per body (J) | mean energy per body (J) | wall time (s) |\n"
                   "|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < nr; k++) {
        const brazil_run *b = &runs[k];
        char top[32];
        if (isfinite(b->t_top)) snprintf(top, sizeof top, "%.2f", b->t_top);
        else snprintf(top, sizeof top, "not within %g s", DURATION);
        report_text(r, "| M%d, seed %d | %s | %s | %.3f | %.4f | %.4f | %.4g | %.4g | %.0f |\n", b->model, b->seed,
                    b->pivot_z > 0.0 ? "box centre" : "floor centre", top, b->final_rank, b->final_z,
                    b->mean_speed, b->mean_ke, b->mean_e, b->cpu);
    }
    double t1[SEEDS], t4[SEEDS], ke1 = 0.0, ke4 = 0.0, v1 = 0.0, v4 = 0.0, cpu1 = 0.0, cpu4 = 0.0;
    for (int s = 0; s < SEEDS; s++) {
        t1[s] = runs[s].t_top;
        t4[s] = runs[SEEDS + s].t_top;
        ke1 += runs[s].mean_ke / SEEDS;
        ke4 += runs[SEEDS + s].mean_ke / SEEDS;
        v1 += runs[s].mean_speed / SEEDS;
        v4 += runs[SEEDS + s].mean_speed / SEEDS;
        cpu1 += runs[s].cpu / SEEDS;
        cpu4 += runs[SEEDS + s].cpu / SEEDS;
    }
    double m1, sd1, m4, sd4;
    int c1, c4;
    stats(t1, SEEDS, &m1, &sd1, &c1);
    stats(t4, SEEDS, &m4, &sd4, &c4);
    report_text(r, "\nM1: the nut reached the top in %d of %d seeds, at %.2f s on average (sd %.2f s); M4: "
                   "in %d of %d, at %.2f s (sd %.2f s).\n",
                c1, SEEDS, m1, sd1, c4, SEEDS, m4, sd4);
    report_section(r, 3, "Against the paper's findings");
    if (c1 == SEEDS)
        report_paper(r, "M1: the nut reaches the top (mean of the seeds; the paper: within about 6 s)", "s", 6.0,
                     (tolerance){0.0, 2.0}, m1, NULL, "li-brazil-nut");
    else
        report_paper_bound(r, "M1: seeds whose nut reached the top within 12 s (the paper: about 6 s)", "", SEEDS,
                           BOUND_AT_LEAST, c1, NULL, "li-brazil-nut");
    if (c1 == SEEDS && c4 == SEEDS) {
        report_paper(r, "M4 later than M1 (difference of the means; the paper: about 4 s)", "s", 4.0,
                     (tolerance){0.0, 2.0}, m4 - m1, NULL, "li-brazil-nut");
        double scatter = fmax(sd1, sd4);
        report_paper_bound(r, "that difference in units of the seeds' larger sd (beyond the scatter at 2)", "", 2.0,
                           BOUND_AT_LEAST, (m4 - m1) / scatter, NULL, "li-brazil-nut");
    } else {
        report_paper_bound(r, "M4: seeds whose nut reached the top within 12 s (the paper: about 10 s)", "", SEEDS,
                           BOUND_AT_LEAST, c4, NULL, "li-brazil-nut");
    }
    report_paper_bound(r, "M1 keeps more energy: mean kinetic energy per body, M1 over M4", "", 1.0, BOUND_AT_LEAST,
                       ke1 / ke4, NULL, "li-brazil-nut");
    report_paper_bound(r, "M1 moves more: the nut's mean speed, M1 over M4", "", 1.0, BOUND_AT_LEAST, v1 / v4, NULL,
                       "li-brazil-nut");
    /* the paper's Fig. 10a: M1's nut "has a maximum value exceeding 2 m/s, and the average value is
     * around 0.19 m/s"; M4's "is less than 0.12 m/s" */
    double vmax1 = 0.0, vmax4 = 0.0;
    for (int s = 0; s < SEEDS; s++) {
        vmax1 = fmax(vmax1, runs[s].max_speed);
        vmax4 = fmax(vmax4, runs[SEEDS + s].max_speed);
    }
    report_paper(r, "M1: the nut's mean speed over the 12 s (mean of the seeds; the paper: around 0.19)", "m/s", 0.19,
                 (tolerance){0.25, 0.0}, v1, NULL, "li-brazil-nut");
    report_paper_bound(r, "M1: the nut's largest speed, sampled every 0.01 s (the paper: exceeding 2)", "m/s", 2.0,
                       BOUND_AT_LEAST, vmax1, NULL, "li-brazil-nut");
    report_paper_bound(r, "M4: the nut's largest speed, sampled every 0.01 s (the paper: less than 0.12)", "m/s", 0.12,
                       BOUND_AT_MOST, vmax4, NULL, "li-brazil-nut");
    report_timing(r, "M1: wall time of one 12 s run (the paper: 53 h of CPU)", "h", 53.0, cpu1 / 3600.0);
    report_timing(r, "M4: wall time of one 12 s run (the paper: 73 h of CPU)", "h", 73.0, cpu4 / 3600.0);
    report_table_end(r);
    /* what drives the bed: the box, whose fastest wall point at the height h moves at
     * A (2 pi / T) h, and the ledger, which must show that nothing else gives energy */
    const double omega_max = 15.0 * PI / 180.0 * 2.0 * PI / 3.0; /* rad/s */
    report_value(r, "M1, seed 1: the bodies' mean height at the end", "m", runs[0].bed_z);
    report_value(r, "the box's largest wall speed at that height, A (2 pi / T) z (at the box's top, 0.2 m: 0.11 m/s)",
                 "m/s", omega_max * runs[0].bed_z);
    double books = 0.0, work1 = 0.0;
    for (int k = 0; k < nr; k++) books = fmax(books, runs[k].books);
    for (int s = 0; s < SEEDS; s++) work1 += runs[s].work / SEEDS;
    report_value(r, "M1: work the box did on the bodies over 12 s (mean of the seeds)", "J", work1);
    report_check_bound(r, "the energy books of every run close: |change of the total| over the larger of the box's "
                          "work and the energy dissipated",
                       "", 1e-3, BOUND_AT_MOST, books);
    report_table_end(r);
    report_section(r, 3, "The pivot");
    for (int m = 0; m < 2; m++) {
        const brazil_run *a = &runs[m * SEEDS], *b = &runs[2 * SEEDS + m];
        double sd = m ? sd4 : sd1;
        char q[200];
        snprintf(q, sizeof q, "M%d, seed 1: final rank of the nut, pivot at the box's centre against the floor's",
                 a->model);
        report_check(r, q, "", a->final_rank, (tolerance){0.0, 0.1}, b->final_rank);
        if (isfinite(a->t_top) && isfinite(b->t_top)) {
            snprintf(q, sizeof q, "M%d, seed 1: time to the top, pivot at the box's centre against the floor's "
                                  "(within the seeds' 2 sd, at least 1 s)", a->model);
            report_check(r, q, "s", a->t_top, (tolerance){0.0, fmax(1.0, isfinite(sd) ? 2.0 * sd : 1.0)}, b->t_top);
        }
    }
    report_table_end(r);
    /* figures */
    report_figure(r, "brazil_height.png", "Brazil nut: the nut's height (solid M1, dashed M4)", "t (s)", "z (m)", "",
                  "'brazil_M1_seed1.dat' u 1:2 w l lc 1 t 'M1 seed 1', 'brazil_M1_seed2.dat' u 1:2 w l lc 2 t 'M1 seed 2', "
                  "'brazil_M1_seed3.dat' u 1:2 w l lc 3 t 'M1 seed 3', 'brazil_M4_seed1.dat' u 1:2 w l dt 2 lc 1 t 'M4 seed "
                  "1', 'brazil_M4_seed2.dat' u 1:2 w l dt 2 lc 2 t 'M4 seed 2', 'brazil_M4_seed3.dat' u 1:2 w l dt 2 lc 3 t "
                  "'M4 seed 3'");
    report_figure(r, "brazil_speed.png", "Brazil nut: the nut's speed, seed 1", "t (s)", "speed (m/s)", "",
                  "'brazil_M1_seed1.dat' u 1:3 w l t 'M1', 'brazil_M4_seed1.dat' u 1:3 w l t 'M4'");
    report_figure(r, "brazil_energy.png", "Brazil nut: mean kinetic energy per body, seed 1", "t (s)", "J",
                  "set logscale y",
                  "'brazil_M1_seed1.dat' u 1:5 w l t 'M1', 'brazil_M4_seed1.dat' u 1:5 w l t 'M4'");
    static const char *const snaps[][2] = {{"brazil_M1_seed1_initial", "initial packing (seed 1)"},
                                           {"brazil_M1_seed1_final", "M1, seed 1, after 12 s"},
                                           {"brazil_M4_seed1_final", "M4, seed 1, after 12 s"}};
    for (int k = 0; k < 3; k++) {
        char png[96], plot[512], title[128];
        snprintf(png, sizeof png, "%s.png", snaps[k][0]);
        snprintf(title, sizeof title, "Brazil nut: %s (x-z, the nut in red)", snaps[k][1]);
        snprintf(plot, sizeof plot,
                 "'%s.dat' u ($3 == 0 ? $1 : 1/0):2 w p pt 7 ps 1.2 lc rgb 'grey40' t 'peanuts', '%s.dat' u "
                 "($3 == 1 ? $1 : 1/0):2 w p pt 7 ps 3 lc rgb 'red' t 'nut'",
                 snaps[k][0], snaps[k][0]);
        report_figure(r, png, title, "x (m)", "z (m)", "set size ratio -1; set xrange [-0.12:0.12]", plot);
    }
    return 0;
}
