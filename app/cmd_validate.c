/* talus validate: runs the source papers' cases through the engine (the
 * collision lab, the same code as scenes), compares with the papers' numbers
 * (built-in validation/ CSV files) and writes a Markdown report with figures.
 * Exit status 1 when a row fails (a result that is not a number, a case that could
 * not run, a miss of a prediction of Talus's own model or of an internal check);
 * rows that differ from a paper without an explanation are listed, not failed. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "validate.h"

/* a holds b, letters compared without case */
static bool holds(const char *a, const char *b) {
    size_t n = strlen(b);
    for (; *a; a++) {
        size_t k = 0;
        while (k < n && a[k] && tolower((unsigned char)a[k]) == tolower((unsigned char)b[k])) k++;
        if (k == n) return true;
    }
    return n == 0;
}

static void usage(FILE *f) {
    fprintf(f, "usage: talus validate [--quick] [--long] [--threads N] [--only WORD] [--stop-after S] [--no-plots]\n"
               "                      [--mesh-seeds N] [-o DIR]\n\n"
               "Runs the cases of the source papers, compares Talus with the papers' values and\n"
               "writes DIR/report.md (default out/validation) with data files and figures.\n"
               "  --quick     a short subset (the one `make test` runs)\n"
               "  --long      also the cases that take hours (004: glass beads; 000: Brazil nut; a drum)\n"
               "  --threads N threads for the many-particle runs (direct shear, drum; the Brazil\n"
               "              nut's eight runs go side by side, one per thread; default 1,\n"
               "              0 = all); results are bit-identical for a given N\n"
               "  --only WORD only the sections whose name holds WORD (e.g. drum, shear)\n"
               "  --stop-after S  after S seconds the runs that can go on later (the Brazil nut's)\n"
               "              save where they are in DIR and the command stops (exit 3, no\n"
               "              report); the same command continues them, with the same numbers\n"
               "  --mesh-seeds N  seeds per law of the Brazil nut with meshed bodies (1 to 3,\n"
               "              default 3; one meshed run takes about an hour of CPU)\n"
               "  --no-plots  no figures (gnuplot)\n");
}

/* an integer option's value, from lo to hi; false (said on stderr) for anything else */
static bool int_option(const char *opt, const char *s, long lo, long hi, int *out) {
    char *end;
    long n = strtol(s, &end, 10);
    if (end == s || *end || n < lo || n > hi) {
        fprintf(stderr, "talus validate: %s expects an integer from %ld to %ld, got '%s'\n", opt, lo, hi, s);
        return false;
    }
    *out = (int)n;
    return true;
}

int cmd_validate(int argc, char **argv) {
    const char *dir = "out/validation";
    validate_opts o = {false, false, 1, 0.0, 3};
    bool plots = true;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) o.quick = true;
        else if (strcmp(argv[i], "--long") == 0) o.long_runs = true;
        else if (strcmp(argv[i], "--no-plots") == 0) plots = false;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!int_option("--threads", argv[++i], 0, 1024, &o.threads)) return 2;
        } else if (strcmp(argv[i], "--stop-after") == 0 && i + 1 < argc) {
            char *end;
            double sec = strtod(argv[++i], &end);
            if (*end || !(sec > 0.0) || sec > 1e7) {
                fprintf(stderr, "talus validate: --stop-after expects seconds, more than 0 and at most 1e7, got '%s'\n",
                        argv[i]);
                return 2;
            }
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            o.stop_at = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + sec;
        }
        else if (strcmp(argv[i], "--mesh-seeds") == 0 && i + 1 < argc) {
            if (!int_option("--mesh-seeds", argv[++i], 1, 3, &o.mesh_seeds)) return 2;
        }
        else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc) dir = argv[++i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "talus validate: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    int (*const cases[])(report *, const validate_opts *) = {
        validate_ray_table1, validate_ray_lambda, validate_wang_spheres, validate_li_kharaz, validate_li_facets,
        validate_sediment,   validate_chains,     validate_bounce,       validate_shear,
        validate_shear_glass, validate_brazil,    validate_brazil_meshes, validate_brazil_shaken, validate_cycle,
        validate_held,
        validate_drum,       validate_agglomerate};
    static const char *const case_names[] = {
        "Ray et al. 2015, Table 1", "Ray et al. 2015, e(lambda)", "Wang et al. 2025, two spheres",
        "Li et al. 2022, Kharaz impacts", "Li et al. 2022, faceted bodies", "Ray et al. 2015, sedimentation", "Wang et al. 2025, chains",
        "Wang et al. 2025, bouncing ball", "Fleischmann et al. 2015, direct shear",
        "Fleischmann et al. 2015, glass beads", "Li et al. 2022, Brazil nut",
        "Li et al. 2022, meshed peanuts and nut", "Li et al. 2022, the nut shaken vertically",
        "a contact's load cycle (Li et al. 2022, M1 and M4)",
        "a held bed's energy (Li et al. 2022, M1 and M4)",
        "a rotating drum", "a cohesive agglomerate thrown at a wall"};
    if (only) {
        bool any = false;
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) any = any || holds(case_names[k], only);
        if (!any) {
            fprintf(stderr, "talus validate: no section's name holds '%s'; the sections:", only);
            for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
                fprintf(stderr, "%s %s", k ? ";" : "", case_names[k]);
            fprintf(stderr, "\n");
            return 2;
        }
    }
    report r;
    if (!report_open(&r, dir, plots)) return 1;
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d", gmtime(&now));
    char threads[32] = "";
    if (o.threads != 1) snprintf(threads, sizeof threads, " --threads %d", o.threads);
    if (o.mesh_seeds != 3)
        snprintf(threads + strlen(threads), sizeof threads - strlen(threads), " --mesh-seeds %d", o.mesh_seeds);
    report_text(&r, "# Talus validation report\n\n"
                    "Generated by `talus validate%s%s%s%s%s` (Talus %s, %s). Each comparison with a paper gives the "
                    "paper's value, Talus's, the difference and a status decided from the numbers alone: "
                    "**ok** within the stated tolerance; **explained** outside it, but Talus hits a prediction "
                    "that the report computes (from the paper's other numbers, or from the method the paper "
                    "describes) and that accounts for the difference; **differs** outside it with no such "
                    "check (counted and listed in the summary; it does not fail the run); **FAIL** for a "
                    "result that is not a number, a case that could not run, or a miss of a prediction of "
                    "Talus's own model. Where a paper is ambiguous the report compares each of its numbers "
                    "with one reading, given with its arithmetic in "
                    "[docs/readings.md](../../docs/readings.md); other readings are shown, not counted. "
                    "Internal checks (Talus against itself or a closed form) and timings have tables of "
                    "their own and are counted apart.\n",
                    o.quick ? " --quick" : "", o.long_runs ? " --long" : "", threads, only ? " --only " : "",
                    only ? only : "", tl_version(), when);
    bool paused = false;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        if (only && !holds(case_names[k], only)) continue;
        int rc = cases[k](&r, &o);
        if (rc > 0) paused = true;
        else if (rc != 0) report_crash(&r, case_names[k]);
        fflush(r.md);
    }
    if (paused) {
        /* no report from part of the runs: the one in DIR (if any) stays as it was */
        report_abort(&r);
        fprintf(stderr, "talus validate: stopped after --stop-after with runs unfinished; their progress is saved in "
                        "%s: run the same command again to continue them\n",
                dir);
        return 3;
    }
    report_summary(&r);
    char line[512];
    report_summary_line(&r, line, sizeof line);
    int failures = report_failures(&r);
    if (!report_close(&r)) {
        fprintf(stderr, "talus validate: cannot write the report in %s\n", dir);
        return 1;
    }
    printf("validation: %s; report: %s/report.md\n", line, dir);
    return failures ? 1 : 0;
}
