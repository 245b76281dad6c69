/* talus: runs DEM scenes and the tools around the contact laws. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"

static void usage(FILE *f) {
    fprintf(f,
            "talus %s: a soft-sphere DEM engine with verified contact laws\n"
            "\n"
            "usage: talus <command> [options]\n"
            "\n"
            "  run [SCENE.yaml] [-o DIR] [--quiet] [--no-output] [--threads N] [--resume DIR]\n"
            "                     run a scene (without a file: the built-in demo scene);\n"
            "                     --resume continues it from a checkpoint (scene key checkpoint:)\n"
            "  check SCENE.yaml   validate a scene and print what its laws derive:\n"
            "                     stiffness, damping, contact duration, critical and chosen dt\n"
            "  models             list the contact sub-models and their coefficients\n"
            "  collide [options]  the collision lab: two bodies, one collision, any law\n"
            "  calibrate [options]\n"
            "                     from what you know to what a law needs (k, d, e, dt)\n"
            "  validate [--quick] [--long] [-o DIR]\n"
            "                     run the source papers' cases, compare, write a report\n"
            "  bench SCENE.yaml [--data FILE] [--steps N] [--threads N] [--json]\n"
            "                     time the steps of a scene (bench/ compares with LIGGGHTS, LAMMPS)\n"
            "  version            print the version\n"
            "\n"
            "Outputs go to out/<scene name>/ unless -o is given. See README.md and docs/.\n",
            tl_version());
}

/* OpenMP's waiting threads. libgomp lets a thread that waits at a barrier spin 300,000 times
 * before it sleeps (GOMP_SPINCOUNT's default): on a busy machine the thread it waits for may not
 * be running, and the spinning takes the core from it (a 2-thread run of a 100k bed took 2.7-3.5
 * times its idle time beside two busy processes, where 1,000 spins took 2.0-2.1 times; idle, both
 * are the same: docs/engine.md, "Threads on a busy machine"). libgomp reads its environment when
 * it is loaded, before main: the command sets GOMP_SPINCOUNT=1000 and executes itself once more,
 * unless the user chose (OMP_WAIT_POLICY or GOMP_SPINCOUNT set). */
static void choose_omp_wait(char **argv) {
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    if (setenv("GOMP_SPINCOUNT", "1000", 1) != 0) return;
    execv("/proc/self/exe", argv); /* returns only when it failed: go on as we are */
}

int main(int argc, char **argv) {
    choose_omp_wait(argv);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0) {
        /* under mpirun the run is spread over the ranks (docs/parallel.md) */
        tl_parallel_begin(&argc, &argv);
        int rc = cmd_run(argc - 1, argv + 1);
        tl_parallel_end();
        return rc;
    }
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "models") == 0) return cmd_models(argc - 1, argv + 1);
    if (strcmp(cmd, "collide") == 0) return cmd_collide(argc - 1, argv + 1);
    if (strcmp(cmd, "calibrate") == 0) return cmd_calibrate(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0) return cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) { /* under mpirun: the bed spread over the ranks */
        tl_parallel_begin(&argc, &argv);
        int rc = cmd_bench(argc - 1, argv + 1);
        tl_parallel_end();
        return rc;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        if (app_wants_help(argc - 1, argv + 1)) {
            printf("usage: talus version   prints the version of the command and its library\n");
            return 0;
        }
        if (argc > 2) {
            fprintf(stderr, "talus version: takes no arguments (got '%s')\n", argv[2]);
            return 2;
        }
        printf("talus %s\n", tl_version());
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "talus: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return 2;
}
