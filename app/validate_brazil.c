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
 *
 * The runs' scenes are examples/000-brazil-nut*.yaml with the seed, the law's tangential model or
 * the meshes' reading set (validation/cases/brazil/checks.yaml, one scene per run, named by the
 * run's tag); the rows, with the paper's values and tolerances, are that file's. The code runs
 * the worlds, samples and measures, and hands the measured quantities to the case by name.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>

#include "cases.h"
#include "talus/scene.h"
#include "validate.h"
#include "write_file.h"

#define PI 3.14159265358979323846
#define SEEDS 3      /* the analytic section's seeds per law (scenes M1_seed1 ... M4_seed3) */
#define MESH_SEEDS 3 /* the meshed section's most seeds per law (--mesh-seeds) */
#define SHAKEN_SECONDS 16 /* the shaken section's heights: one mean per second */

/* what the runs and their analysis take from the case file's parameters */
typedef struct brazil_params {
    double sample;    /* s between the samples of the nut */
    double top_rank;  /* the nut reaches the top when this fraction of the peanuts lies below it */
    double fit_from;  /* s: box_fit leaves out the first settling */
    double amplitude; /* rad: the box's rocking (as in the scenes) */
    double period;    /* s */
    uint64_t build;   /* the running binary's hash (exe_hash): a piece continues only in the build
                       * that began it, whose numbers it would give in one go */
} brazil_params;

typedef struct brazil_run {
    char *text;       /* its scene (the case file's scene named tag, its values set) */
    const char *file; /* the scene's file */
    int model;        /* 1 or 4 */
    int seed;
    bool meshed;      /* the bodies as meshes (else analytic ellipsoids) */
    bool potential;   /* meshes under the conservative reading (else the paper's PCM reading) */
    double pivot_z;   /* m: the rocking axis's height (0: the floor; as in its scene) */
    char tag[48];
    /* results */
    double duration;  /* s: its scene's stage, the run's length */
    double t_top;     /* s, NaN: not within the run */
    double final_rank, final_z, mean_speed, mean_ke, mean_e;
    double wall;       /* s: the run's wall time (the sum of its pieces') */
    double cpu;        /* s: the CPU time of the thread that stepped it (the sum of its pieces') */
    double max_speed;  /* m/s: the nut's largest speed over the samples */
    double books;      /* the ledger's error: |total's change| over what the box gave and the contacts took */
    double work;       /* J: the work the box did on the bodies */
    double bed_z;      /* m: the bodies' mean height at the end */
    /* the nut against a point fixed in the box (box_fit): the rms of its height about the best
     * such point's over t >= fit_from, and its mean speed over that point's */
    double fit_rms, fit_speed_ratio, fit_x, fit_z;
    /* a box shaken along z (the shaken section): its amplitude and period, and the nut's height
     * above the floor, mean over each second [k, k + 1) s (NaN past the run) */
    double shake_amplitude, shake_period;
    double height[SHAKEN_SECONDS];
    bool ok;
} brazil_run;

/* wall-clock seconds */
static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the CPU seconds of the calling thread: each run steps its one-thread world on the thread that
 * runs it (run_all), so this is the run's own CPU time, whatever else shares the machine; the
 * paper's 53 h and 73 h are CPU time */
static double thread_seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The next sample of a run's data text from *cur (t, the nut's z and its speed: the first three
 * columns of a line; comment lines skipped); false at the end. */
static bool next_sample(const char **cur, const char *end, double x[3]) {
    while (*cur < end) {
        const char *p = *cur, *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        *cur = p + len + 1;
        char line[256];
        if (len == 0 || len >= sizeof line || *p == '#') continue;
        memcpy(line, p, len);
        line[len] = 0;
        if (sscanf(line, "%lf %lf %lf", &x[0], &x[1], &x[2]) == 3) return true;
    }
    return false;
}

/* Does the nut ride with the box? A point fixed in the box at (X, Z) from the pivot (the box's
 * frame, x and z) has the height z_pivot + Z cos(theta) - X sin(theta) with the box's angle
 * theta(t) = A sin(2 pi t / T) about y, and the speed |dtheta/dt| sqrt(X^2 + Z^2). From the run's
 * samples (t, nut z, nut speed: the first three columns of its data text) over t >= fit_from,
 * (X, Z) by least squares on the heights; out: the rms of the nut's height about that point's,
 * and the nut's mean speed over the point's mean speed. A nut at rest in the box gives a rms of
 * nothing and a ratio of 1; one that moves through the bed, as the paper's, does not. NaN when
 * there are too few samples. */
static void box_fit(const brazil_params *bp, const char *dat, size_t n, double pivot_z, brazil_run *b) {
    b->fit_rms = b->fit_speed_ratio = b->fit_x = b->fit_z = NAN;
    /* the samples (t >= fit_from): the box's c = cos(theta), s = -sin(theta), |dtheta/dt|, the
     * nut's height over the pivot's and its speed */
    size_t cap = n / 6 + 1, count = 0; /* a sample line holds at least "t z v\n" */
    double(*smp)[5] = malloc(cap * sizeof *smp);
    if (!smp) return;
    const double w = 2.0 * PI / bp->period;
    const char *p = dat;
    double x[3];
    while (count < cap && next_sample(&p, dat + n, x)) {
        const double t = x[0];
        if (t < bp->fit_from) continue;
        double th = bp->amplitude * sin(w * t), *q = smp[count++];
        q[0] = cos(th);
        q[1] = -sin(th);
        q[2] = fabs(bp->amplitude * w * cos(w * t));
        q[3] = x[1] - pivot_z;
        q[4] = x[2];
    }
    if (count >= 10) {
        /* least squares of y = Z c + X s: the normal equations */
        double scc = 0.0, sss = 0.0, scs = 0.0, syc = 0.0, sys = 0.0;
        for (size_t i = 0; i < count; i++) {
            const double *q = smp[i];
            scc += q[0] * q[0];
            sss += q[1] * q[1];
            scs += q[0] * q[1];
            syc += q[3] * q[0];
            sys += q[3] * q[1];
        }
        double det = scc * sss - scs * scs, Z = (sss * syc - scs * sys) / det, X = (scc * sys - scs * syc) / det;
        double r2 = 0.0, nut_speed = 0.0, rate = 0.0;
        for (size_t i = 0; i < count; i++) {
            const double *q = smp[i], r = q[3] - (Z * q[0] + X * q[1]);
            r2 += r * r;
            nut_speed += q[4];
            rate += q[2];
        }
        b->fit_x = X;
        b->fit_z = Z;
        b->fit_rms = sqrt(r2 / (double)count);
        b->fit_speed_ratio = nut_speed / (rate * sqrt(X * X + Z * Z));
    }
    free(smp);
}

/* The nut's height above the floor of a box shaken along z, whose floor is at A sin(2 pi t / T)
 * (the scene's `oscillate`, from 0): the mean over each second [k, k + 1) s of the run's samples
 * (t, nut z: the first two columns of its data text). Sampled at T / 10 (the case's sample), a
 * second's mean holds whole periods, so the floor's motion averages out of it exactly. */
static void shaken_heights(const char *dat, size_t n, brazil_run *b) {
    double sum[SHAKEN_SECONDS] = {0}, cnt[SHAKEN_SECONDS] = {0};
    const double w = 2.0 * PI / b->shake_period;
    const char *p = dat;
    double x[3];
    while (next_sample(&p, dat + n, x)) {
        /* a sample at t closes the step ending at t: it counts in the second it ends */
        const double t = x[0];
        int k = t > 0.0 ? (int)ceil(t - 1e-9) - 1 : -1;
        if (k >= 0 && k < SHAKEN_SECONDS) {
            sum[k] += x[1] - b->shake_amplitude * sin(w * t);
            cnt[k] += 1.0;
        }
    }
    for (int k = 0; k < SHAKEN_SECONDS; k++) b->height[k] = cnt[k] > 0.0 ? sum[k] / cnt[k] : NAN;
}

/* box_fit against samples of a point fixed in the box (the case's fit_check.x and fit_check.z from
 * the pivot, printed to 17 digits as the runs' are to 6): the report checks it recovers the point, a
 * rms of nothing and a speed ratio of 1, before it uses it on the runs (the rows of group fit) */
static int box_fit_check(report *r, vcase *cs, const brazil_params *bp, double pivot_z) {
    const double X = vcase_param(cs, "fit_check.x"), Z = vcase_param(cs, "fit_check.z"), w = 2.0 * PI / bp->period;
    char *txt = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&txt, &n);
    if (!f) return -1;
    fprintf(f, "# synthetic\n");
    for (int i = 1; i <= 1200; i++) {
        double t = 0.01 * i, th = bp->amplitude * sin(w * t);
        fprintf(f, "%.17g %.17g %.17g\n", t, pivot_z + Z * cos(th) - X * sin(th),
                fabs(bp->amplitude * w * cos(w * t)) * sqrt(X * X + Z * Z));
    }
    fclose(f);
    brazil_run b;
    memset(&b, 0, sizeof b);
    box_fit(bp, txt, n, pivot_z, &b);
    free(txt);
    vcase_measure(cs, "fit.z", b.fit_z);
    vcase_measure(cs, "fit.rms", b.fit_rms);
    vcase_measure(cs, "fit.speed_ratio", b.fit_speed_ratio);
    return vcase_rows(cs, r, "fit");
}

/* what the columns of box_fit say, under a table of runs */
static void box_fit_text(report *r, const brazil_params *bp) {
    report_text(r, "\nThe nut's z about a point fixed in the box: the box's angle is known at every sample "
                   "(15 degrees sin(2 pi t / 3 s) about y through the pivot), so the height of a point fixed in the "
                   "box at (X, Z) from the pivot is Z cos(theta) - X sin(theta) above the pivot; X and Z are fitted to "
                   "the nut's sampled heights by least squares over t >= %g s, and the column gives the rms of the "
                   "nut's height about the fitted point's; the next column is the nut's mean speed over that point's "
                   "(|dtheta/dt| sqrt(X^2 + Z^2)) over the same samples. A nut at rest in the box gives a rms of "
                   "nothing and a ratio of 1; a nut that moves through the bed, as in the paper (mean speed 0.19 m/s "
                   "where the box's floor moves at about 0.003 m/s), does not. The fit is checked on samples of a "
                   "point fixed in the box (the internal checks below).\n", bp->fit_from);
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

/* A rendered picture of the bed as it is (the box seen along y, as the snapshots' x-z; the camera
 * of examples/000-brazil-nut*.yaml, fixed so that the first and last pictures compare): for a
 * run with snapshots, brazil_TAG_first.png and brazil_TAG_last.png */
static void picture(const report *r, tl_world *w, const char *tag, const char *when) {
    tl_render_options ro = tl_render_default();
    ro.width = 720;
    ro.height = 800;
    ro.antialias = 2;
    ro.color_by = "material";
    ro.fit = false;
    ro.center = (tl_vec3){0.0, 0.0, 0.1};
    ro.extent = 0.2;
    char png[128];
    snprintf(png, sizeof png, "brazil_%s_%s.png", tag, when);
    /* one at a time: the runs go in parallel, and the renderer's text goes through fontconfig */
#pragma omp critical(brazil_picture)
    report_picture(r, w, png, &ro);
}

/* the bodies' x and z, 1 for the nut (the snapshots' data) */
static void snapshot(FILE *f, tl_world *w) {
    tl_particle_arrays pa;
    fprintf(f, "# x (m), z (m), 1 for the nut\n");
    if (tl_world_particle_arrays(w, &pa) == TL_OK)
        for (size_t i = 0; i < pa.count; i++)
            fprintf(f, "%.6g %.6g %d\n", pa.position[3 * i], pa.position[3 * i + 2], pa.id[i] == 1 ? 1 : 0);
}

static bool write_data(report *r, const char *name, const char *text, size_t n) {
    FILE *f = data_open(r, name);
    if (!f) return false;
    bool ok = fwrite(text, 1, n, f) == n;
    data_close(r, f, name);
    return ok;
}

/* ---- a run in pieces ----
 * A run saves where it is (the world's state, its sums so far and the text of its data files)
 * every few minutes and when `--stop-after` ends the command, in DIR/brazil_TAG.resume (written
 * to a .part name and renamed); the same command later continues from there. The world's state
 * continues bit for bit (tl_world_save_state), so a run in pieces gives the numbers of a run in
 * one go, in the binary that began it (a piece holds that binary's hash: another build, whose
 * last digits may differ, starts the run afresh); only its wall time is the sum of the pieces'. A run that ends saves a last piece (all its
 * steps done, its world at the end: every number the report takes from it is recomputed on load),
 * so a section stopped later keeps it; the pieces are removed once all the section's runs ended. */

typedef struct progress {
    int64_t k, samples;                    /* steps done, samples taken */
    double t_top, sum_speed, sum_ke, sum_e, max_speed, final_rank, final_z;
    double wall;                           /* s: the pieces' wall time so far */
    double cpu;                            /* s: and their CPU time (thread_seconds_now) */
    tl_energy e_start;
} progress;

static const char RESUME_MAGIC[8] = "TLBRAZ3";
#define SAVE_EVERY 120.0 /* s of wall time between saves */

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

/* The hash of the running binary's bytes (/proc/self/exe; 0 where it cannot be read, which every
 * such build shares) */
static uint64_t exe_hash(void) {
    FILE *f = fopen("/proc/self/exe", "rb");
    if (!f) return 0;
    uint64_t h = 14695981039346656037ull;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = fnv(h, buf, n);
    fclose(f);
    return h;
}

static void resume_path(const report *r, const brazil_run *b, char *path, size_t size) {
    snprintf(path, size, "%s/brazil_%s.resume", r->dir, b->tag);
}

/* a resume file's parts, in the order written (resume_load reads them back) */
typedef struct resume_parts {
    uint64_t scene, build, sum, lens[4];
    const progress *pg;
    const char *dat, *init;
    const void *state;
} resume_parts;

static void write_resume(FILE *f, const void *data) {
    const resume_parts *p = data;
    fwrite(RESUME_MAGIC, 1, 8, f);
    fwrite(&p->scene, sizeof p->scene, 1, f);
    fwrite(&p->build, sizeof p->build, 1, f);
    fwrite(&p->sum, sizeof p->sum, 1, f);
    fwrite(p->lens, sizeof p->lens, 1, f);
    fwrite(p->pg, sizeof *p->pg, 1, f);
    fwrite(p->dat, 1, p->lens[1], f);
    fwrite(p->init, 1, p->lens[2], f);
    fwrite(p->state, 1, p->lens[3], f);
}

/* the three texts (data, initial snapshot) and the world's state after the progress block */
static bool resume_save(const report *r, const brazil_run *b, uint64_t scene, uint64_t build, const progress *pg,
                        tl_world *w, const char *dat, size_t ndat, const char *init, size_t ninit) {
    if (!r->owns_md) return true; /* a report on a stream keeps nothing */
    void *state = NULL;
    size_t nstate = 0;
    if (tl_world_save_state(w, &state, &nstate) != TL_OK) return false;
    uint64_t lens[4] = {sizeof *pg, ndat, ninit, nstate}, sum = 14695981039346656037ull;
    sum = fnv(sum, lens, sizeof lens);
    sum = fnv(sum, pg, sizeof *pg);
    sum = fnv(sum, dat, ndat);
    sum = fnv(sum, init, ninit);
    sum = fnv(sum, state, nstate);
    char final[1200];
    resume_path(r, b, final, sizeof final);
    const resume_parts parts = {scene, build, sum, {lens[0], lens[1], lens[2], lens[3]}, pg, dat, init, state};
    bool ok = app_write_file("talus validate: resume file", final, write_resume, &parts) == 0;
    free(state);
    return ok;
}

/* Loads a run's saved piece: 1 when it continues from there, 0 when there is none (or it is of
 * another scene or build, or damaged: said on stderr, and the run starts afresh). */
static int resume_load(const report *r, const brazil_run *b, uint64_t scene, uint64_t build, progress *pg,
                       tl_world *w, FILE *dat, FILE *init) {
    if (!r->owns_md) return 0;
    char path[1200];
    resume_path(r, b, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char magic[8];
    uint64_t h, bh, sum, lens[4];
    char *buf = NULL;
    const char *why = "damaged";
    int got = 0;
    const bool read_magic = fread(magic, 1, 8, f) == 8;
    if (read_magic && memcmp(magic, RESUME_MAGIC, 6) == 0 && memcmp(magic, RESUME_MAGIC, 8) != 0)
        why = "of another format (an older build's)";
    if (read_magic && memcmp(magic, RESUME_MAGIC, 8) == 0 && fread(&h, sizeof h, 1, f) == 1 &&
        fread(&bh, sizeof bh, 1, f) == 1 && fread(&sum, sizeof sum, 1, f) == 1 && fread(lens, sizeof lens, 1, f) == 1) {
        if (h != scene) why = "of another scene";
        else if (bh != build || lens[0] != sizeof *pg) why = "of another build (a binary other than the one that began it)";
        else if (lens[1] < (1u << 30) && lens[2] < (1u << 30) && lens[3] < (1ull << 34)) {
            size_t n = (size_t)(lens[0] + lens[1] + lens[2] + lens[3]);
            buf = malloc(n ? n : 1);
            if (buf && fread(buf, 1, n, f) == n && fgetc(f) == EOF &&
                fnv(fnv(14695981039346656037ull, lens, sizeof lens), buf, n) == sum) {
                const char *p = buf;
                memcpy(pg, p, sizeof *pg);
                p += lens[0];
                if (tl_world_load_state(w, p + lens[1] + lens[2], (size_t)lens[3]) == TL_OK) {
                    fwrite(p, 1, (size_t)lens[1], dat);
                    fwrite(p + lens[1], 1, (size_t)lens[2], init);
                    got = 1;
                } else {
                    why = "refused by the world";
                }
            }
        }
    }
    fclose(f);
    free(buf);
    if (!got) {
        memset(pg, 0, sizeof *pg);
        fprintf(stderr, "talus validate: %s is %s: the run %s starts afresh\n", path, why, b->tag);
    } else {
        fprintf(stderr, "talus validate: the run %s continues from t = %.2f s (%s)\n", b->tag, tl_world_time(w), path);
    }
    return got;
}

/* 0 when the run ended, 1 when it stopped at the deadline (its piece saved), -1 on an error */
static int run_one(report *r, const brazil_params *bp, brazil_run *b, bool snapshots, int threads,
                   double stop_at) {
    /* past the deadline before it began: left for the next piece as it is */
    if (stop_at > 0.0 && seconds_now() >= stop_at) return 1;
    char name[128], snap[128];
    /* a piece continues only the same scene sampled the same way */
    uint64_t scene = fnv(14695981039346656037ull, b->text, strlen(b->text));
    scene = fnv(scene, &bp->sample, sizeof bp->sample);
    scene = fnv(scene, &bp->top_rank, sizeof bp->top_rank);
    tl_scene *sc;
#pragma omp critical(brazil_report)
    sc = validate_scene(r, b->text, b->file, b->tag);
    if (!sc) return -1;
    b->duration = tl_scene_stage_duration(sc, 0);
    tl_world *w = tl_scene_world(sc);
    double t0 = seconds_now(), last_save = t0, c0 = thread_seconds_now();
    if (tl_world_set_threads(w, threads) != TL_OK || tl_world_prepare(w) != TL_OK) {
        tl_scene_destroy(sc);
        return -1;
    }
    double dt = tl_world_dt(w);
    int64_t every = (int64_t)llround(bp->sample / dt), total = (int64_t)llround(b->duration / dt);
    /* the data files' text, kept in memory until the run ends (and in its saved pieces) */
    char *dat = NULL, *init = NULL;
    size_t ndat = 0, ninit = 0;
    FILE *fd = open_memstream(&dat, &ndat), *fi = open_memstream(&init, &ninit);
    progress pg;
    memset(&pg, 0, sizeof pg);
    int rc = -1;
    if (!fd || !fi) goto done;
    if (resume_load(r, b, scene, bp->build, &pg, w, fd, fi) == 0) {
        fprintf(fd, "# t (s), nut z (m), nut speed (m/s), nut rank (fraction of peanuts below), kinetic "
                    "energy per body (J), kinetic + potential per body above the floor's level (J)\n");
        snapshot(fi, w);
        if (snapshots) picture(r, w, b->tag, "first");
        pg.t_top = NAN;
        if (tl_world_energy(w, &pg.e_start) != TL_OK) goto done;
    }
    const bool ended_before = pg.k >= total; /* a last piece: nothing left to step or time */
    tl_status st = TL_OK;
    while (pg.k < total) {
        if (stop_at > 0.0 && seconds_now() >= stop_at) break;
        if (seconds_now() - last_save >= SAVE_EVERY) {
            double now = seconds_now();
            progress keep = pg;
            keep.wall += now - t0;
            keep.cpu += thread_seconds_now() - c0;
            fflush(fd);
            fflush(fi);
            if (!resume_save(r, b, scene, bp->build, &keep, w, dat, ndat, init, ninit)) goto done;
            last_save = now;
        }
        st = tl_world_step(w, every);
        if (st != TL_OK) break;
        pg.k += every;
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
        if (isnan(pg.t_top) && rank >= bp->top_rank) pg.t_top = t;
        fprintf(fd, "%.4f %.6g %.6g %.4f %.6g %.6g\n", t, nut.position.z, speed, rank, ke, et);
        pg.sum_speed += speed;
        if (speed > pg.max_speed) pg.max_speed = speed;
        pg.sum_ke += ke;
        pg.sum_e += et;
        pg.samples++;
        pg.final_rank = rank;
        pg.final_z = nut.position.z;
    }
    if (st != TL_OK) {
#pragma omp critical(brazil_report)
        report_text(r, "\n%s: the run stopped: %s\n", b->tag, tl_world_error(w));
        goto done;
    }
    if (!ended_before) {
        pg.wall += seconds_now() - t0;
        pg.cpu += thread_seconds_now() - c0;
    }
    fflush(fd);
    fflush(fi);
    if (pg.k < total) {
        /* the deadline: this piece saved, the run continues when the command is run again */
        rc = resume_save(r, b, scene, bp->build, &pg, w, dat, ndat, init, ninit) ? 1 : -1;
        goto done;
    }
    /* ended: its last piece keeps it until the section's runs have all ended (remove_pieces) */
    if (!ended_before && !resume_save(r, b, scene, bp->build, &pg, w, dat, ndat, init, ninit)) goto done;
    snprintf(name, sizeof name, "brazil_%s.dat", b->tag);
    if (!write_data(r, name, dat, ndat)) goto done;
    if (snapshots) {
        snprintf(snap, sizeof snap, "brazil_%s_initial.dat", b->tag);
        if (!write_data(r, snap, init, ninit)) goto done;
        char *fin = NULL;
        size_t nfin = 0;
        FILE *ff = open_memstream(&fin, &nfin);
        if (!ff) goto done;
        snapshot(ff, w);
        fclose(ff);
        picture(r, w, b->tag, "last");
        snprintf(snap, sizeof snap, "brazil_%s_final.dat", b->tag);
        bool ok = write_data(r, snap, fin, nfin);
        free(fin);
        if (!ok) goto done;
    }
    b->t_top = pg.t_top;
    b->max_speed = pg.max_speed;
    b->final_rank = pg.final_rank;
    b->final_z = pg.final_z;
    tl_particle_arrays pa;
    if (tl_world_particle_arrays(w, &pa) == TL_OK && pa.count > 0) {
        double zs = 0.0;
        for (size_t i = 0; i < pa.count; i++) zs += pa.position[3 * i + 2];
        b->bed_z = zs / (double)pa.count;
    }
    tl_energy e_end;
    if (tl_world_energy(w, &e_end) == TL_OK) {
        double lost = e_end.dissipated_normal + e_end.dissipated_plastic + e_end.dissipated_tangential_damping +
                      e_end.dissipated_friction + e_end.dissipated_rolling + e_end.dissipated_twisting;
        b->work = e_end.boundary_work - pg.e_start.boundary_work;
        b->books = fabs(e_end.total - pg.e_start.total) / fmax(fabs(b->work), lost);
    } else {
        b->books = NAN;
    }
    b->mean_speed = pg.sum_speed / (double)pg.samples;
    b->mean_ke = pg.sum_ke / (double)pg.samples;
    b->mean_e = pg.sum_e / (double)pg.samples;
    b->wall = pg.wall;
    b->cpu = pg.cpu;
    box_fit(bp, dat, ndat, b->pivot_z, b);
    if (b->shake_period > 0.0) shaken_heights(dat, ndat, b);
    b->ok = true;
    rc = 0;
done:
    if (fd) fclose(fd);
    if (fi) fclose(fi);
    free(dat);
    free(init);
    tl_scene_destroy(sc);
    return rc;
}

/* The runs side by side, one thread each (151 bodies gain little from threads within a run;
 * each run's numbers do not depend on which thread runs it or on what runs beside it):
 * 0 when all ended, 1 when the deadline stopped some (their pieces saved), -1 on an error. */
static int run_all(report *r, const validate_opts *o, vcase *cs, const brazil_params *bp, brazil_run *runs,
                   int nr) {
    int nt = o->threads > 0 ? o->threads : omp_get_max_threads(), failed = 0, paused = 0;
    /* the scenes, each the case file's scene named by the run's tag, made before the runs start */
    for (int k = 0; k < nr; k++)
        if (!(runs[k].text = vcase_scene_text(cs, runs[k].tag, &runs[k].file))) failed = 1;
    if (!failed) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
        for (int k = 0; k < nr; k++) {
            int rc = run_one(r, bp, &runs[k], runs[k].seed == 1 && runs[k].pivot_z == 0.0, 1, o->stop_at);
            if (rc < 0) {
#pragma omp atomic write
                failed = 1;
            } else if (rc > 0) {
#pragma omp atomic write
                paused = 1;
            }
        }
    }
    for (int k = 0; k < nr; k++) {
        free(runs[k].text);
        runs[k].text = NULL;
    }
    return failed ? -1 : paused;
}

/* once every run of a section has ended: their last pieces are no longer needed */
static void remove_pieces(const report *r, const brazil_run *runs, int nr) {
    if (!r->owns_md) return;
    for (int k = 0; k < nr; k++) {
        char path[1200];
        resume_path(r, &runs[k], path, sizeof path);
        unlink(path);
    }
}

/* the pictures of three snapshots: {data file's stem, what it shows} */
static void snapshot_figures(report *r, const char *const snaps[3][2]) {
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
    /* the same states rendered (the run's first state, and each run's last) */
    for (int k = 0; k < 3; k++) {
        char stem[96], png[128], title[160];
        const size_t n = strlen(snaps[k][0]);
        const bool first = n > 8 && strcmp(snaps[k][0] + n - 8, "_initial") == 0;
        snprintf(stem, sizeof stem, "%.*s", (int)(n - (first ? 8 : 6)), snaps[k][0]);
        snprintf(png, sizeof png, "%s_%s.png", stem, first ? "first" : "last");
        snprintf(title, sizeof title, "Brazil nut: %s, rendered (the nut in its material's colour)", snaps[k][1]);
        report_picture_embed(r, png, title);
    }
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

static int run_brazil(report *r, const validate_opts *o, vcase *cs, const brazil_params *bp);
static int run_meshes(report *r, const validate_opts *o, vcase *cs, const brazil_params *bp);

/* the case (validation/cases/<section>/checks.yaml: brazil or shaken) and its parameters; NULL (said on stderr) when
 * it cannot be read */
static vcase *load_case(const validate_opts *o, const char *section, brazil_params *bp) {
    vcase *cs = vcase_load(section, o->quick);
    if (!cs) return NULL;
    bp->sample = vcase_param(cs, "sample");
    bp->build = exe_hash();
    bp->top_rank = vcase_param(cs, "top_rank");
    bp->fit_from = vcase_param(cs, "fit_from");
    bp->amplitude = vcase_param(cs, "amplitude_deg") * PI / 180.0;
    bp->period = vcase_param(cs, "period");
    if (isnan(bp->sample + bp->top_rank + bp->fit_from + bp->amplitude + bp->period) || !(bp->sample > 0.0)) {
        vcase_free(cs);
        return NULL;
    }
    return cs;
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
    brazil_params bp;
    vcase *cs = load_case(o, "brazil", &bp);
    if (!cs) return -1;
    int rc = run_brazil(r, o, cs, &bp);
    vcase_free(cs);
    return rc;
}

static int run_brazil(report *r, const validate_opts *o, vcase *cs, const brazil_params *bp) {
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
        b->pivot_z = vcase_param(cs, "centre_pivot_z");
        snprintf(b->tag, sizeof b->tag, "M%d_seed1_pivot_centre", b->model);
    }
    int rc = run_all(r, o, cs, bp, runs, nr);
    if (rc != 0) return rc;
    remove_pieces(r, runs, nr);
    /* per run */
    report_text(r, "\n| run | pivot | reaches the top (s) | final rank | final z (m) | nut's mean speed (m/s) | "
                   "mean kinetic energy per body (J) | mean energy per body (J) | nut's z about a point fixed in the box, "
                   "rms (m) | nut's mean speed over that point's | CPU time (s) | wall time (s) |\n"
                   "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < nr; k++) {
        const brazil_run *b = &runs[k];
        char top[32];
        if (isfinite(b->t_top)) snprintf(top, sizeof top, "%.2f", b->t_top);
        else snprintf(top, sizeof top, "not within %g s", b->duration);
        report_text(r, "| M%d, seed %d | %s | %s | %.3f | %.4f | %.4f | %.4g | %.4g | %.2g | %.3f | %.0f | %.0f |\n", b->model, b->seed,
                    b->pivot_z > 0.0 ? "box centre" : "floor centre", top, b->final_rank, b->final_z,
                    b->mean_speed, b->mean_ke, b->mean_e, b->fit_rms, b->fit_speed_ratio, b->cpu, b->wall);
    }
    box_fit_text(r, bp);
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
    /* the paper's Fig. 10a: M1's nut "has a maximum value exceeding 2 m/s, and the average value is
     * around 0.19 m/s"; M4's "is less than 0.12 m/s" */
    double vmax1 = 0.0, vmax4 = 0.0;
    for (int s = 0; s < SEEDS; s++) {
        vmax1 = fmax(vmax1, runs[s].max_speed);
        vmax4 = fmax(vmax4, runs[SEEDS + s].max_speed);
    }
    vcase_measure(cs, "seeds", SEEDS);
    vcase_measure(cs, "m1.reached", c1);
    vcase_measure(cs, "m4.reached", c4);
    vcase_measure(cs, "m1.top", m1);
    vcase_measure(cs, "later", m4 - m1);
    vcase_measure(cs, "later_in_sd", (m4 - m1) / fmax(sd1, sd4));
    vcase_measure(cs, "ke_ratio", ke1 / ke4);
    vcase_measure(cs, "speed_ratio", v1 / v4);
    {
        /* the scatter the paper's "M1 keeps more energy and moves more" must clear: the seeds'
         * larger sd of the law's mean, in units of M4's mean (the ratio's) */
        double ka[SEEDS], kb[SEEDS], va[SEEDS], vb[SEEDS], mk1, sk1, mk4, sk4, mv1, sv1, mv4, sv4;
        int cnt;
        for (int q = 0; q < SEEDS; q++) {
            ka[q] = runs[q].mean_ke;
            kb[q] = runs[SEEDS + q].mean_ke;
            va[q] = runs[q].mean_speed;
            vb[q] = runs[SEEDS + q].mean_speed;
        }
        stats(ka, SEEDS, &mk1, &sk1, &cnt);
        stats(kb, SEEDS, &mk4, &sk4, &cnt);
        stats(va, SEEDS, &mv1, &sv1, &cnt);
        stats(vb, SEEDS, &mv4, &sv4, &cnt);
        vcase_measure(cs, "ke_ratio_sd", fmax(sk1, sk4) / ke4);
        vcase_measure(cs, "speed_ratio_sd", fmax(sv1, sv4) / v4);
    }
    vcase_measure(cs, "m1.speed", v1);
    vcase_measure(cs, "m1.max_speed", vmax1);
    vcase_measure(cs, "m4.max_speed", vmax4);
    vcase_measure(cs, "m1.cpu_h", cpu1 / 3600.0);
    vcase_measure(cs, "m4.cpu_h", cpu4 / 3600.0);
    /* the times to the top where every seed's nut reached it, else the counts of those that did */
    if (vcase_rows(cs, r, c1 == SEEDS ? "top" : "top_count") != 0 ||
        vcase_rows(cs, r, c1 == SEEDS && c4 == SEEDS ? "later" : "later_count") != 0 ||
        vcase_rows(cs, r, "findings") != 0)
        return -1;
    report_table_end(r);
    /* what drives the bed: the box, whose fastest wall point at the height h moves at
     * A (2 pi / T) h, and the ledger, which must show that nothing else gives energy */
    const double omega_max = bp->amplitude * 2.0 * PI / bp->period; /* rad/s */
    double books = 0.0, work1 = 0.0;
    for (int k = 0; k < nr; k++) books = fmax(books, runs[k].books);
    for (int s = 0; s < SEEDS; s++) work1 += runs[s].work / SEEDS;
    vcase_measure(cs, "bed_z", runs[0].bed_z);
    vcase_measure(cs, "wall_speed", omega_max * runs[0].bed_z);
    vcase_measure(cs, "m1.work", work1);
    vcase_measure(cs, "books", books);
    if (vcase_rows(cs, r, "drive") != 0 || vcase_rows(cs, r, "books") != 0 || box_fit_check(r, cs, bp, 0.0) != 0)
        return -1;
    report_table_end(r);
    report_section(r, 3, "The pivot");
    /* the pivot at the box's centre against the floor's, seed 1 of each law: the final rank, and the
     * time to the top where both reached it, within the seeds' scatter (the case's pivot.sds sd, at
     * least pivot.least) */
    const double sds = vcase_param(cs, "pivot.sds"), least = vcase_param(cs, "pivot.least");
    for (int m = 0; m < 2; m++) {
        const brazil_run *a = &runs[m * SEEDS], *b = &runs[2 * SEEDS + m];
        double sd = m ? sd4 : sd1;
        vcase_measure(cs, "model", a->model);
        vcase_measure(cs, "floor.rank", a->final_rank);
        vcase_measure(cs, "centre.rank", b->final_rank);
        if (vcase_rows(cs, r, "pivot_rank") != 0) return -1;
        if (isfinite(a->t_top) && isfinite(b->t_top)) {
            vcase_measure(cs, "floor.top", a->t_top);
            vcase_measure(cs, "centre.top", b->t_top);
            vcase_measure(cs, "top_tolerance", fmax(least, isfinite(sd) ? sds * sd : least));
            if (vcase_rows(cs, r, "pivot_top") != 0) return -1;
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
    snapshot_figures(r, snaps);
    return 0;
}

/* The same case with the bodies as meshes with the paper's vertex counts (810 for a peanut,
 * 2864 for the nut) and the polygonal contact model (docs/geometry.md), one seed per law, beside
 * the analytic ellipsoids of the same seed: the paper's own bodies, and what a mesh changes. */
int validate_brazil_meshes(report *r, const validate_opts *o) {
    if (!o->long_runs || o->quick) return 0;
    report_section(r, 2, "Li et al. (2022), section 3.2: the Brazil nut with meshed bodies (`--long`)");
    const int ns = o->mesh_seeds >= 1 && o->mesh_seeds <= MESH_SEEDS ? o->mesh_seeds : MESH_SEEDS;
    report_text(r, "The case of the section above (the box, its motion, the materials, the laws M1 and M4, the "
                   "seeds' packings, the pivot at the floor's centre) with the paper's own bodies: the peanuts "
                   "as meshes of 810 vertices and the nut as one of 2864 (the vertex counts of 000 section 3.2), "
                   "each fitted to the ellipsoid of the analytic run (`{mesh: {ellipsoid: [a, b, c], vertices: "
                   "n}}`, docs/geometry.md), in contact by the paper's polygonal contact model (`contact_depth: "
                   "volume`) and, for seed 1, by Talus's default, the conservative reading (`contact_depth: "
                   "potential`, docs/geometry.md \"Two meshes\"); beside them the analytic ellipsoids of seed 1. %d seed%s of the initial packing per law with meshes (`--mesh-seeds`; "
                   "three, as with the ellipsoids above, set a difference between M1 and M4 against the seeds' "
                   "scatter). The runs save where they are every two minutes, so that `--stop-after` can split "
                   "the section over several sittings with the same numbers.\n", ns, ns > 1 ? "s" : "");
    brazil_params bp;
    vcase *cs = load_case(o, "brazil", &bp);
    if (!cs) return -1;
    int rc = run_meshes(r, o, cs, &bp);
    vcase_free(cs);
    return rc;
}

static int run_meshes(report *r, const validate_opts *o, vcase *cs, const brazil_params *bp) {
    const int ns = o->mesh_seeds >= 1 && o->mesh_seeds <= MESH_SEEDS ? o->mesh_seeds : MESH_SEEDS;
    /* seed 1's four runs first (they go first to the two threads), then the meshes' other seeds, then
     * seed 1 with the meshes under the conservative reading (Talus's default) */
    const int NR = 4 + 2 * (ns - 1) + 2;
    brazil_run runs[4 + 2 * (MESH_SEEDS - 1) + 2];
    const brazil_run *mesh[2][MESH_SEEDS]; /* [M1, M4][seed - 1] */
    for (int k = 0; k < NR; k++) {
        brazil_run *b = &runs[k];
        memset(b, 0, sizeof *b);
        b->model = k % 2 ? 4 : 1;
        b->potential = k >= NR - 2;
        b->seed = k < 4 || b->potential ? 1 : 2 + (k - 4) / 2;
        b->meshed = k < 2 || k >= 4;
        snprintf(b->tag, sizeof b->tag, "M%d_seed%d%s", b->model, b->seed,
                 b->potential ? "_mesh_potential" : b->meshed ? "_mesh" : "");
        if (b->meshed && !b->potential) mesh[k % 2][b->seed - 1] = b;
    }
    int rc = run_all(r, o, cs, bp, runs, NR);
    if (rc != 0) return rc;
    remove_pieces(r, runs, NR);
    report_text(r, "\n| run | bodies | reaches the top (s) | final rank | final z (m) | nut's mean speed (m/s) | "
                   "nut's largest speed (m/s) | mean kinetic energy per body (J) | mean energy per body (J) | nut's z "
                   "about a point fixed in the box, rms (m) | nut's mean speed over that point's | CPU time (h) | "
                   "wall time (h) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < NR; k++) {
        const brazil_run *b = &runs[k];
        char top[32];
        if (isfinite(b->t_top)) snprintf(top, sizeof top, "%.2f", b->t_top);
        else snprintf(top, sizeof top, "not within %g s", b->duration);
        report_text(r, "| M%d, seed %d | %s | %s | %.3f | %.4f | %.4f | %.4f | %.4g | %.4g | %.2g | %.3f | %.2f | %.2f |\n",
                    b->model, b->seed,
                    b->potential ? "meshes, conservative reading" : b->meshed ? "meshes (810, 2864 vertices), PCM reading" : "analytic ellipsoids", top, b->final_rank, b->final_z,
                    b->mean_speed, b->max_speed, b->mean_ke, b->mean_e, b->fit_rms, b->fit_speed_ratio, b->cpu / 3600.0,
                    b->wall / 3600.0);
    }
    box_fit_text(r, bp);
    /* the meshes' seeds per law: means and sds */
    double top[2][MESH_SEEDS], ke[2][MESH_SEEDS], v[2][MESH_SEEDS], cpu[2][MESH_SEEDS];
    double mtop[2], sdtop[2], mke[2], sdke[2], mv[2], sdv[2], mcpu[2], sdcpu[2], vmax[2] = {0.0, 0.0};
    int ctop[2], cdummy;
    for (int m = 0; m < 2; m++) {
        for (int i = 0; i < ns; i++) {
            top[m][i] = mesh[m][i]->t_top;
            ke[m][i] = mesh[m][i]->mean_ke;
            v[m][i] = mesh[m][i]->mean_speed;
            cpu[m][i] = mesh[m][i]->cpu;
            vmax[m] = fmax(vmax[m], mesh[m][i]->max_speed);
        }
        stats(top[m], ns, &mtop[m], &sdtop[m], &ctop[m]);
        stats(ke[m], ns, &mke[m], &sdke[m], &cdummy);
        stats(v[m], ns, &mv[m], &sdv[m], &cdummy);
        stats(cpu[m], ns, &mcpu[m], &sdcpu[m], &cdummy);
    }
    if (ns > 1)
        report_text(r, "\nMeshes, %d seeds: M1 reached the top in %d, M4 in %d; mean kinetic energy per body M1 %.4g J "
                       "(sd %.2g), M4 %.4g J (sd %.2g); the nut's mean speed M1 %.4g m/s (sd %.2g), M4 %.4g m/s (sd "
                       "%.2g).\n",
                    ns, ctop[0], ctop[1], mke[0], sdke[0], mke[1], sdke[1], mv[0], sdv[0], mv[1], sdv[1]);
    else
        report_text(r, "\nMeshes, one seed (`--mesh-seeds 1`): the rows below compare M1 and M4 without the seeds' "
                       "scatter, which the section above measures for the ellipsoids.\n");
    const brazil_run *m1 = &runs[0], *m4 = &runs[1], *a1 = &runs[2], *a4 = &runs[3];
    report_section(r, 3, "Against the paper's findings (meshed bodies)");
    vcase_measure(cs, "mesh_seeds", ns);
    vcase_measure(cs, "m1.reached", ctop[0]);
    vcase_measure(cs, "m4.reached", ctop[1]);
    vcase_measure(cs, "m1.top", mtop[0]);
    vcase_measure(cs, "later", mtop[1] - mtop[0]);
    vcase_measure(cs, "ke_ratio", mke[0] / mke[1]);
    vcase_measure(cs, "ke_ratio_sd", ns > 1 ? fmax(sdke[0], sdke[1]) / mke[1] : NAN);
    vcase_measure(cs, "speed_ratio", mv[0] / mv[1]);
    vcase_measure(cs, "speed_ratio_sd", ns > 1 ? fmax(sdv[0], sdv[1]) / mv[1] : NAN);
    vcase_measure(cs, "m1.speed", mv[0]);
    vcase_measure(cs, "m1.max_speed", vmax[0]);
    vcase_measure(cs, "m4.max_speed", vmax[1]);
    vcase_measure(cs, "m1.cpu_h", mcpu[0] / 3600.0);
    vcase_measure(cs, "m4.cpu_h", mcpu[1] / 3600.0);
    /* the times to the top where every seed's nut reached it, else the counts; a difference set
     * against the seeds' scatter where there are seeds to scatter */
    if (vcase_rows(cs, r, ctop[0] == ns ? "mesh_top" : "mesh_top_count") != 0 ||
        vcase_rows(cs, r, ctop[0] == ns && ctop[1] == ns ? "mesh_later" : "mesh_later_count") != 0 ||
        (ns > 1 && vcase_rows(cs, r, "mesh_energy") != 0) || (ns > 1 && vcase_rows(cs, r, "mesh_speed") != 0) ||
        vcase_rows(cs, r, "mesh_findings") != 0)
        return -1;
    report_table_end(r);
    report_section(r, 3, "Meshes against analytic ellipsoids (seed 1)");
    double books = 0.0;
    for (int k = 0; k < NR; k++) books = fmax(books, runs[k].books);
    vcase_measure(cs, "books", books);
    if (vcase_rows(cs, r, "books") != 0 || box_fit_check(r, cs, bp, 0.0) != 0) return -1;
    report_table_end(r);
    vcase_measure(cs, "m1.dz", m1->final_z - a1->final_z);
    vcase_measure(cs, "m4.dz", m4->final_z - a4->final_z);
    vcase_measure(cs, "m1.speed_over", m1->mean_speed / a1->mean_speed);
    vcase_measure(cs, "m4.speed_over", m4->mean_speed / a4->mean_speed);
    vcase_measure(cs, "m1.ke_over", m1->mean_ke / a1->mean_ke);
    vcase_measure(cs, "m4.ke_over", m4->mean_ke / a4->mean_ke);
    vcase_measure(cs, "m1.work_mesh", m1->work);
    vcase_measure(cs, "m1.work_ellipsoids", a1->work);
    vcase_measure(cs, "m1.cpu_over", m1->cpu / a1->cpu);
    if (vcase_rows(cs, r, "mesh_against") != 0) return -1;
    report_table_end(r);
    /* the nut's height: seed 1's four runs, then the meshes' other seeds */
    char plot[1200] = "'brazil_M1_seed1_mesh.dat' u 1:2 w l lc 1 t 'M1 meshes', 'brazil_M4_seed1_mesh.dat' u 1:2 w l "
                      "lc 2 t 'M4 meshes', 'brazil_M1_seed1.dat' u 1:2 w l dt 2 lc 1 t 'M1 ellipsoids', "
                      "'brazil_M4_seed1.dat' u 1:2 w l dt 2 lc 2 t 'M4 ellipsoids'";
    for (int i = 2; i <= ns; i++)
        for (int m = 0; m < 2; m++) {
            char curve[120];
            snprintf(curve, sizeof curve, ", 'brazil_M%d_seed%d_mesh.dat' u 1:2 w l lc %d t 'M%d meshes, seed %d'",
                     m ? 4 : 1, i, 2 * i + m - 1, m ? 4 : 1, i);
            strncat(plot, curve, sizeof plot - strlen(plot) - 1);
        }
    report_figure(r, "brazil_mesh_height.png", "Brazil nut: the nut's height (solid meshes, dashed ellipsoids)",
                  "t (s)", "z (m)", "", plot);
    report_figure(r, "brazil_mesh_speed.png", "Brazil nut with meshes: the nut's speed", "t (s)", "speed (m/s)", "",
                  "'brazil_M1_seed1_mesh.dat' u 1:3 w l t 'M1', 'brazil_M4_seed1_mesh.dat' u 1:3 w l t 'M4'");
    report_figure(r, "brazil_mesh_energy.png", "Brazil nut: mean kinetic energy per body (solid meshes, dashed "
                  "ellipsoids)", "t (s)", "J", "set logscale y",
                  "'brazil_M1_seed1_mesh.dat' u 1:5 w l lc 1 t 'M1 meshes', 'brazil_M4_seed1_mesh.dat' u 1:5 w l lc 2 t "
                  "'M4 meshes', 'brazil_M1_seed1.dat' u 1:5 w l dt 2 lc 1 t 'M1 ellipsoids', 'brazil_M4_seed1.dat' u "
                  "1:5 w l dt 2 lc 2 t 'M4 ellipsoids'");
    static const char *const snaps[][2] = {{"brazil_M1_seed1_mesh_initial", "meshes, initial packing (seed 1)"},
                                           {"brazil_M1_seed1_mesh_final", "M1 with meshes, after 12 s"},
                                           {"brazil_M4_seed1_mesh_final", "M4 with meshes, after 12 s"}};
    snapshot_figures(r, snaps);
    return 0;
}

/* The paper's box shaken vertically in place of the rocking (issue 44, item 3): what makes Talus's
 * nut rise. The box oscillates along z, z = A sin(2 pi t / T), at Gamma = A (2 pi / T)^2 / g of
 * 2.0 (M1 and M4), 1.6, 1.2 and 0.4 (M1): the classic Brazil-nut regime lies above Gamma = 1, where the
 * bed leaves the floor once a cycle. The scenes are examples/000-brazil-nut-shaken.yaml with the
 * amplitude and the law set (validation/cases/shaken/checks.yaml); the runs are the analytic
 * section's (run_one), sampled every T / 10. */
static int run_shaken(report *r, const validate_opts *o, vcase *cs, const brazil_params *bp);

int validate_brazil_shaken(report *r, const validate_opts *o) {
    if (!o->long_runs || o->quick) return 0;
    report_section(r, 2, "Li et al. (2022), section 3.2, shaken vertically: what makes the nut rise (`--long`)");
    brazil_params bp;
    vcase *cs = load_case(o, "shaken", &bp);
    if (!cs) return -1;
    int rc = run_shaken(r, o, cs, &bp);
    vcase_free(cs);
    return rc;
}

static int run_shaken(report *r, const validate_opts *o, vcase *cs, const brazil_params *bp) {
    /* {tag (its scene), law, the case's parameter holding its amplitude} */
    static const struct {
        const char *tag;
        int model;
        const char *amplitude;
    } RUNS[] = {{"M1_gamma2", 1, "amplitude_gamma2"},
                {"M4_gamma2", 4, "amplitude_gamma2"},
                {"M1_gamma1.6", 1, "amplitude_gamma1.6"},
                {"M1_gamma1.2", 1, "amplitude_gamma1.2"},
                {"M1_gamma0.4", 1, "amplitude_gamma0.4"}};
    enum { NR = sizeof RUNS / sizeof RUNS[0] };
    const double T = vcase_param(cs, "shake_period"), g = vcase_param(cs, "gravity");
    const double from = vcase_param(cs, "rise_from"), to = vcase_param(cs, "rise_to");
    if (!(T > 0.0) || !(g > 0.0) || !(from >= 0.0) || !(to > from) || to > SHAKEN_SECONDS) {
        fprintf(stderr, "talus validate: %s: shake_period, gravity, rise_from and rise_to: expected T > 0, g > 0 "
                        "and 0 <= rise_from < rise_to <= %d s\n", "validation/cases/shaken/checks.yaml",
                SHAKEN_SECONDS);
        return -1;
    }
    brazil_run runs[NR];
    for (int k = 0; k < NR; k++) {
        brazil_run *b = &runs[k];
        memset(b, 0, sizeof *b);
        b->model = RUNS[k].model;
        b->seed = 1;
        b->shake_amplitude = vcase_param(cs, RUNS[k].amplitude);
        b->shake_period = T;
        snprintf(b->tag, sizeof b->tag, "%s", RUNS[k].tag);
        if (!(b->shake_amplitude > 0.0)) return -1; /* said by vcase_param */
    }
    const double w = 2.0 * PI / T;
    report_text(r, "The box, the bodies, the materials, the step and the 12 s of the section above, seed 1's "
                   "packing, with the rocking (15 degrees, period 3 s: about 0.02 g at the bed) replaced by a "
                   "vertical oscillation of the whole box, z = A sin(2 pi t / T), T = %g s "
                   "(`examples/000-brazil-nut-shaken.yaml`). Gamma = A (2 pi / T)^2 / g: %.2f (A = %g mm) under "
                   "M1 and M4, %.2f (A = %g mm), %.2f (A = %g mm) and %.2f (A = %g mm) under M1. Above Gamma = 1 the bed leaves the "
                   "floor once a cycle, the classic Brazil-nut regime. This is not the paper's setup, so no row "
                   "here compares with the paper: the runs show what it takes to make this nut rise in Talus, "
                   "beside the paper's Fig. 10 (its nut at the top within about 6 s under M1, about 4 s later "
                   "under M4). The nut's height is its centre's above the box's floor, the mean over a second "
                   "(whole periods: the floor's motion averages out).\n",
                T, runs[0].shake_amplitude * w * w / g, runs[0].shake_amplitude * 1e3,
                runs[2].shake_amplitude * w * w / g, runs[2].shake_amplitude * 1e3,
                runs[3].shake_amplitude * w * w / g, runs[3].shake_amplitude * 1e3,
                runs[4].shake_amplitude * w * w / g, runs[4].shake_amplitude * 1e3);
    int rc = run_all(r, o, cs, bp, runs, NR);
    if (rc != 0) return rc;
    remove_pieces(r, runs, NR);
    report_text(r, "\n| run | Gamma | height (mm) at 0-1 s | 2-3 s | 5-6 s | 8-9 s | 11-12 s | reaches the top (s) | "
                   "final rank | nut's mean speed (m/s) | CPU time (s) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < NR; k++) {
        const brazil_run *b = &runs[k];
        char top[32];
        if (isfinite(b->t_top)) snprintf(top, sizeof top, "%.2f", b->t_top);
        else snprintf(top, sizeof top, "not within %g s", b->duration);
        report_text(r, "| M%d | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %.3f | %.4f | %.0f |\n", b->model,
                    b->shake_amplitude * w * w / g, 1e3 * b->height[0], 1e3 * b->height[2], 1e3 * b->height[5],
                    1e3 * b->height[8], 1e3 * b->height[11], top, b->final_rank, b->mean_speed, b->cpu);
    }
    double books = 0.0;
    for (int k = 0; k < NR; k++) {
        const brazil_run *b = &runs[k];
        char name[64];
        books = fmax(books, b->books);
        /* the rise: the mean height over the second ending at rise_to less that over the one ending at
         * rise_from + 1 (after the first settling) */
        snprintf(name, sizeof name, "%s.rise", b->tag);
        vcase_measure(cs, name, b->height[(int)to - 1] - b->height[(int)from]);
        snprintf(name, sizeof name, "%s.rank", b->tag);
        vcase_measure(cs, name, b->final_rank);
        snprintf(name, sizeof name, "%s.top", b->tag);
        vcase_measure(cs, name, b->t_top);
        snprintf(name, sizeof name, "%s.gamma", b->tag);
        vcase_measure(cs, name, b->shake_amplitude * w * w / g);
    }
    vcase_measure(cs, "books", books);
    if (vcase_rows(cs, r, "rise") != 0 || vcase_rows(cs, r, "checks") != 0) return -1;
    report_table_end(r);
    char plot[1400];
    snprintf(plot, sizeof plot,
             "'brazil_M1_gamma2.dat' u 1:($2 - %.17g*sin(%.17g*$1)) w l lc 1 t 'M1, Gamma 2', "
             "'brazil_M4_gamma2.dat' u 1:($2 - %.17g*sin(%.17g*$1)) w l lc 2 t 'M4, Gamma 2', "
             "'brazil_M1_gamma1.6.dat' u 1:($2 - %.17g*sin(%.17g*$1)) w l lc 3 t 'M1, Gamma 1.6', "
             "'brazil_M1_gamma1.2.dat' u 1:($2 - %.17g*sin(%.17g*$1)) w l lc 4 t 'M1, Gamma 1.2', "
             "'brazil_M1_gamma0.4.dat' u 1:($2 - %.17g*sin(%.17g*$1)) w l lc 7 t 'M1, Gamma 0.4'",
             runs[0].shake_amplitude, w, runs[1].shake_amplitude, w, runs[2].shake_amplitude, w,
             runs[3].shake_amplitude, w, runs[4].shake_amplitude, w);
    report_figure(r, "brazil_shaken_height.png",
                  "The nut shaken: its height above the floor (dotted: the paper's rocked nut on top, M1 6 s, M4 10 s)",
                  "t (s)", "height above the floor (m)",
                  "set arrow from 6, graph 0 to 6, graph 1 nohead dt 3 lc 1; "
                  "set arrow from 10, graph 0 to 10, graph 1 nohead dt 3 lc 2",
                  plot);
    static const char *const snaps[][2] = {{"brazil_M1_gamma2_initial", "shaken, initial packing (seed 1)"},
                                           {"brazil_M1_gamma2_final", "M1 shaken at Gamma 2, after 12 s"},
                                           {"brazil_M4_gamma2_final", "M4 shaken at Gamma 2, after 12 s"}};
    snapshot_figures(r, snaps);
    return 0;
}
