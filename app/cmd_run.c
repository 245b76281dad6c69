/* talus run: loads a scene (or the built-in one), runs every stage with a
 * progress bar, writes the outputs and prints a summary. */
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "load_scene.h"
#include "options.h"
#include "progress.h"

/* The ledger's work terms of the contact models (kind work, other than the walls' boundary work:
 * curvature_work, tangential_stiffness_work), when any is not 0: energy a model put in that no
 * force did (docs/outputs.md). e: the world's ledger at the end, or NULL. */
static void print_model_work(const tl_energy *e) {
    if (!e) return;
    int shown = 0;
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) {
        const tl_energy_term_info *ti = tl_energy_term_get(k);
        if (ti->kind != TL_ENERGY_KIND_WORK || k == TL_ENERGY_BOUNDARY_WORK || e->term[k] == 0.0) continue;
        printf("%s%s %.4g J", shown++ ? ", " : "  model work   put in by the contact models (no force did it): ",
               ti->label, e->term[k]);
    }
    if (shown) printf("\n");
}

static void print_summary(const tl_scene *scene, const tl_run_summary *s, double dt, const char *how,
                          const tl_energy *books) {
    char steps[32], wall[32], rate[32];
    app_format_count(s->steps, steps, sizeof steps);
    app_format_duration(s->wall_seconds, wall, sizeof wall);
    snprintf(rate, sizeof rate, "%.3g", s->particle_steps_per_second);
    printf("%s: %s\n", how, tl_scene_title(scene));
    printf("  simulated    %.6g s in %s steps of %.4g s\n", s->simulated_time, steps, dt);
    printf("  wall time    %s (%s particle-steps/s)\n", wall, rate);
    printf("  particles    %zu", s->particles);
    if (s->particles_removed) printf(" (%zu left the domain and were removed)", s->particles_removed);
    printf("\n  contacts     %zu at the end, %lld neighbor-list builds\n", s->contacts,
           (long long)s->neighbor_builds);
    if (s->particles_inserted) {
        char n[32];
        app_format_count((long long)s->particles_inserted, n, sizeof n);
        printf("  inserted     %s particles by inflows (%.4g J brought in)\n", n, s->energy_inserted);
    }
    if (!s->energy_tracked) /* no ledger: the terms are NAN (tl_energy) */
        printf("  energy       not tracked (the scene sets track_energy: false)\n");
    else if (isnan(s->energy_dissipated) || isnan(s->energy_balance_error))
        printf("  energy       the books hold a NaN (balance error %.2e, dissipated %.4g J): a term could "
               "not be computed\n", s->energy_balance_error, s->energy_dissipated);
    else
        printf("  energy       balance error %.2e of %.4g J; dissipated %.4g J; integration error %.3g J "
               "(what the springs did not give back at this step)\n",
               s->energy_balance_error, s->energy_scale, s->energy_dissipated, s->energy_integration_residual);
    if (s->energy_tracked) print_model_work(books);
    for (int i = 0; i < tl_scene_stage_count(scene); i++) {
        tl_stage_result r;
        if (tl_scene_stage_result(scene, i, &r) != TL_OK || strcmp(r.ended_by, "not run") == 0)
            continue;
        char n[32];
        app_format_count(r.steps, n, sizeof n);
        printf("  %-12s %s: %s steps to t = %.6g s, ended by %s", i == 0 ? "stages" : "", r.name, n,
               r.time_end, r.ended_by);
        if (r.kinetic_energy == r.kinetic_energy) /* not NAN: a condition was checked */
            printf(" (kinetic energy %.3g J)", r.kinetic_energy);
        printf("\n");
    }
    if (s->warnings[0]) {
        const char *p = s->warnings;
        while (*p) {
            const char *e = strchr(p, '\n');
            int len = e ? (int)(e - p) : (int)strlen(p);
            printf("  warning:     %.*s\n", len, p);
            p += len + (e ? 1 : 0);
        }
    }
    if (s->files_written <= 0) return;
    printf("  outputs      %d files in %s/\n", s->files_written, s->output_dir);
    for (int i = 0; i < tl_scene_output_count(scene); i++) {
        const char *kind, *file;
        if (tl_scene_output(scene, i, &kind, &file) != TL_OK) continue;
        if (strcmp(kind, "vtk") == 0)
            printf("    %s/%s.pvd  (VTK frames: open in ParaView)\n", s->output_dir, file);
        else if (strcmp(kind, "plot") == 0)
            printf("    %s/%s  (plot of the energies)\n", s->output_dir, file);
        else
            printf("    %s/%s  (%s)\n", s->output_dir, file, kind);
    }
}

/* The only static state in the program: a signal handler can only talk to
 * the run through it. While the scene loads (nothing written yet), Ctrl-C
 * (or SIGTERM) ends the program at once. While it runs, the first one stops
 * the run after the current chunk of steps (a quarter of a second): the
 * outputs are committed with the records made up to then and a checkpoint is
 * left. A second one ends the program at once, whatever loop it is in: the
 * outputs stay as their .part files (a resume takes them up), no final file
 * is half-written. */
static volatile sig_atomic_t interrupt_requested = 0;
static volatile sig_atomic_t run_started = 0;

static void say(const char *msg, size_t n) {
    ssize_t w = write(STDERR_FILENO, msg, n);
    (void)w;
}

static void on_interrupt(int sig) {
    if (!run_started) {
        static const char msg[] = "\ntalus: interrupted while loading the scene; nothing was written\n";
        say(msg, sizeof msg - 1);
        _exit(128 + sig);
    }
    if (interrupt_requested) {
        static const char msg[] =
            "\ntalus: interrupted twice: stopped at once; the outputs are left as their .part files "
            "and the checkpoints as they were (resume from the last one)\n";
        say(msg, sizeof msg - 1);
        _exit(128 + sig);
    }
    interrupt_requested = 1;
}

static void run_usage(void) {
    printf("usage: talus run [SCENE.yaml] [options]\n"
           "\n"
           "Runs every stage of a scene (without a file: the built-in demo scene), with a\n"
           "progress bar, writes its outputs and prints a summary. Ctrl-C stops it cleanly.\n"
           "\n"
           "  -o, --output DIR   where the outputs go (default out/<scene name>)\n"
           "  --resume DIR       continue from the latest checkpoint in DIR (or a .tlck file)\n"
           "  --threads N        worker threads, overriding the scene's (0 = all cores)\n"
           "  --no-output        run without writing files\n"
           "  -q, --quiet        no progress bar and no summary\n"
           "  -h, --help         this text\n"
           "\n"
           "Exit status: 0 done, 1 the scene or the run failed, 2 a usage error, 3 the run\n"
           "blew up (stopped with a diagnostic; outputs hold the records before it),\n"
           "130 interrupted (128 + the signal: 143 when a SIGTERM ends it at once). See docs/scene.md\n"
           "and docs/outputs.md.\n");
}

int cmd_run(int argc, char **argv) {
    if (app_wants_help(argc, argv)) {
        run_usage();
        return 0;
    }
    const char *path = NULL, *outdir = NULL, *resume = NULL;
    bool quiet = false, no_output = false;
    int threads = -1; /* the scene's */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (++i >= argc) {
                fprintf(stderr, "talus run: -o needs a directory\n");
                return 2;
            }
            outdir = argv[i];
        } else if (strcmp(argv[i], "--resume") == 0) {
            if (++i >= argc || !argv[i][0]) {
                fprintf(stderr, "talus run: --resume needs a checkpoint directory (or a .tlck file)\n");
                return 2;
            }
            resume = argv[i];
        } else if (strcmp(argv[i], "--threads") == 0) {
            char *end = NULL;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
            if (i + 1 >= argc || !end || *end || end == argv[i + 1] || v < 0 || v > 4096) {
                fprintf(stderr, "talus run: --threads needs a count from 0 (all cores) to 4096\n");
                return 2;
            }
            threads = (int)v;
            i++;
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            quiet = true;
        } else if (strcmp(argv[i], "--no-output") == 0) {
            no_output = true;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "talus run: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "talus run: one scene at a time ('%s' and '%s')\n", path, argv[i]);
            return 2;
        }
    }
    /* several MPI ranks: rank 0 speaks and writes; every rank runs its share */
    const int ranks = tl_parallel_begin(&argc, &argv);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    tl_scene *scene = app_load_scene(path);
    if (!scene) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        return 1;
    }
    tl_world *w = tl_scene_world(scene);
    if (ranks > 1) {
        if (tl_world_distribute(w) != TL_OK) {
            fprintf(stderr, "talus run: %s\n", tl_world_error(w));
            tl_scene_destroy(scene);
            return 1;
        }
        if (tl_world_rank(w) != 0) quiet = true;
    }
    /* the errors after this: once, from rank 0 (the ranks agree on the outcome) */
    FILE *err = tl_world_rank(w) == 0 ? stderr : fopen("/dev/null", "w");
    if (!err) err = stderr;
    tl_timestep_info ts;
    tl_world_timestep(w, &ts);
    if (!quiet) {
        char steps[32];
        app_format_count((long long)(tl_scene_duration(scene) / ts.dt + 0.5), steps, sizeof steps);
        printf("talus %s: %s (%s)\n", tl_version(), tl_scene_title(scene),
               path ? path : "built-in default scene");
        int nw = tl_world_wall_count(w);
        char per[64] = "no contact among the particles present";
        if (isfinite(ts.steps_per_contact))
            snprintf(per, sizeof per, "%.1f steps per shortest contact", ts.steps_per_contact);
        printf("  %zu particles, %d wall%s; dt = %.4g s (%s); %.6g s in about %s steps\n",
               tl_world_particle_total(w), nw, nw == 1 ? "" : "s", ts.dt, per, tl_scene_duration(scene),
               steps);
        if (resume) printf("  resuming from %s\n", resume);
        if (ranks > 1) printf("  spread over %d MPI ranks\n", ranks);
        fflush(stdout);
    }
    app_progress bar;
    app_progress_init(&bar, quiet);
    tl_run_options opt = tl_run_options_default();
    opt.output_dir = outdir;
    opt.write_outputs = !no_output;
    opt.threads = threads > 0 ? threads : 0;
    if (threads == 0) tl_world_set_threads(w, 0); /* all cores, as threads: 0 in a scene */
    opt.resume = resume;
    opt.progress = app_progress_draw;
    opt.progress_user = &bar;
    opt.interrupt = &interrupt_requested;
    run_started = 1;
    tl_run_summary sum;
    tl_status s = tl_scene_run(scene, &opt, &sum);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    app_progress_end(&bar);
    if (s == TL_INTERRUPTED) {
        fprintf(err, "talus: %s; the outputs hold the records up to then\n", tl_scene_run_error(scene));
        if (sum.checkpoint[0]) {
            const char *slash = strrchr(sum.checkpoint, '/');
            int dir_len = slash ? (int)(slash - sum.checkpoint) : 1;
            fprintf(err, "talus: checkpoint %s written; to continue: talus run %s%s%s --resume %.*s\n",
                    sum.checkpoint, path ? path : "", outdir ? " -o " : "", outdir ? outdir : "",
                    dir_len, slash ? sum.checkpoint : ".");
        }
        tl_energy fin; /* on every rank: the ledger's sums are collective */
        const tl_energy *pe = tl_world_energy(w, &fin) == TL_OK ? &fin : NULL;
        if (!quiet) print_summary(scene, &sum, ts.dt, "interrupted", pe);
        tl_scene_destroy(scene);
        if (err != stderr) fclose(err);
        return 130;
    }
    if (s == TL_ERROR_BLOWUP) {
        fprintf(err, "talus: %s\ntalus: the outputs hold the records made before it", tl_scene_run_error(scene));
        if (sum.checkpoint[0]) fprintf(err, "; the last checkpoint before it: %s", sum.checkpoint);
        fprintf(err, "\n");
        tl_energy fin; /* on every rank: the ledger's sums are collective */
        const tl_energy *pe = tl_world_energy(w, &fin) == TL_OK ? &fin : NULL;
        if (!quiet) print_summary(scene, &sum, ts.dt, "stopped by the blow-up check", pe);
        tl_scene_destroy(scene);
        if (err != stderr) fclose(err);
        return 3;
    }
    if (s != TL_OK) {
        const char *msg = tl_scene_run_error(scene);
        if (strncmp(msg, "cannot resume", 13) == 0) fprintf(err, "talus: %s\n", msg);
        else fprintf(err, "talus: run failed: %s\n", msg);
        tl_scene_destroy(scene);
        if (err != stderr) fclose(err);
        return 1;
    }
    tl_energy fin; /* on every rank: the ledger's sums are collective */
    const tl_energy *pe = tl_world_energy(w, &fin) == TL_OK ? &fin : NULL;
    if (!quiet) print_summary(scene, &sum, ts.dt, "done", pe);
    tl_scene_destroy(scene);
    if (err != stderr) fclose(err);
    return 0;
}
