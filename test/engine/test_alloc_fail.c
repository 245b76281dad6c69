/* Allocation failure everywhere (issue 14, item 7): a small scene is loaded and
 * run (two stages, outputs, a checkpoint) once to count the allocations Talus
 * makes, then again with the n-th allocation failing, for every n. Each run
 * must return an error status (or succeed, where the failing allocation was
 * optional), never crash, and free what it built: under `make asan`
 * (LeakSanitizer) a leak fails the test. The allocations counted are Talus's
 * own (malloc, calloc, realloc in the library and its loader, wrapped at link
 * time with -Wl,--wrap); libfyaml's and assimp's internal ones are not.
 * The runs that complete despite a failed allocation lose nothing: a
 * shrink-to-fit of the particle arrays (kept at their size), the fsync of a
 * folder after a rename (the file is in place), the pruning of old checkpoints
 * (one more is kept). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "talus/talus.h"
#include "talus/scene.h"
#include "test.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t s);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t s);
void *__wrap_realloc(void *p, size_t n);

/* the one piece of state a malloc wrapper can have */
static int64_t count, fail_at = -1;

static int fails(void) { return ++count == fail_at; }
void *__wrap_malloc(size_t n) { return fails() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t s) { return fails() ? NULL : __real_calloc(n, s); }
void *__wrap_realloc(void *p, size_t n) { return fails() ? NULL : __real_realloc(p, n); }

static const char *SCENE =
    "talus: 1\n"
    "name: alloc\n"
    "gravity: [0, 0, -9.81]\n"
    "integrator: {dt: 1.0e-5}\n"
    "materials:\n"
    "  glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}\n"
    "laws:\n"
    "  - {between: [glass, glass], normal: hertz, damping: tsuji, tangential: mindlin, history: true,\n"
    "     e: 0.5, mu: 0.4}\n"
    "walls:\n"
    "  - {name: floor, type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}\n"
    "particles:\n"
    "  - lattice: {material: glass, radius: 1.0e-3, min: [0, 0, 0], max: [0.006, 0.006, 0.006],\n"
    "              spacing: 2.1e-3}\n"
    "  - {id: 100, material: glass, radius: 1.0e-3, position: [0.01, 0.01, 0.003]}\n"
    "stages:\n"
    "  - {name: fall, duration: 0.002}\n"
    "  - {name: rest, duration: 0.002, set: {friction: 0}}\n"
    "checkpoint: {every_steps: 60, keep: 1}\n"
    "outputs:\n"
    "  - {type: energy, file: energy.csv, every_steps: 20}\n"
    "  - {type: particles, file: particles.csv, every_steps: 50, fields: [position, velocity]}\n"
    "  - {type: contacts, file: contacts.csv, every_steps: 50}\n";

/* one load and run; returns 0 done, 1 refused cleanly */
static int attempt(const char *dir, int64_t n, char *why, size_t why_size) {
    count = 0;
    fail_at = n;
    tl_scene *s = NULL;
    tl_scene_error err;
    int rc = 0;
    if (tl_scene_load_string(SCENE, "alloc.yaml", &s, &err) != TL_OK) {
        fail_at = -1;
        tl_scene_error_format(&err, why, why_size);
        return 1;
    }
    tl_run_options opt = tl_run_options_default();
    opt.output_dir = dir;
    tl_run_summary sum;
    if (tl_scene_run(s, &opt, &sum) != TL_OK) {
        fail_at = -1;
        snprintf(why, why_size, "%s", tl_scene_run_error(s));
        rc = 1;
    }
    fail_at = -1;
    tl_scene_destroy(s);
    return rc;
}

int main(void) {
    char dir[] = "/tmp/talus-alloc-XXXXXX";
    ENSURE(mkdtemp(dir) != NULL);
    char why[2048];
    /* a clean run: how many allocations */
    int clean = attempt(dir, -1, why, sizeof why);
    if (clean) fprintf(stderr, "the clean run failed: %s\n", why);
    ENSURE(clean == 0);
    int64_t total = count;
    fprintf(stderr, "a clean load and run: %lld allocations\n", (long long)total);
    ENSURE(total > 50);
    int refused = 0, done = 0, named = 0;
    for (int64_t n = 1; n <= total; n++) {
        why[0] = '\0';
        if (attempt(dir, n, why, sizeof why) == 0) {
            done++;
            continue;
        }
        refused++;
        if (strstr(why, "memory")) named++;
        else if (refused - named <= 3) fprintf(stderr, "allocation %lld failed: '%s'\n", (long long)n, why);
    }
    fprintf(stderr, "every one of %lld allocations failed in turn: %d runs refused (%d saying "
            "'memory'), %d completed (the allocation was optional)\n",
            (long long)total, refused, named, done);
    ENSURE(refused > total / 2);
    /* every refusal names its cause (a wall's failed allocation once said
     * "walls[0]: wall floor: .velocity", stale bytes of an unset message) */
    ENSURE(named == refused);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ENSURE(system(cmd) == 0);
    return tl_test_report("test_alloc_fail");
}
