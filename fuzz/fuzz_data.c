/* libFuzzer target: the particle data readers (CSV and LAMMPS data), through
 * the scene's `file:` entry as a user reaches them: the input is written to a
 * file next to a fixed scene that reads it, once as CSV and once as LAMMPS data. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "talus/talus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void load(const char *name, const char *format) {
    char path[160], scene_path[160], text[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(scene_path, sizeof scene_path, "%s/scene.yaml", dir);
    snprintf(text, sizeof text,
             "talus: 1\n"
             "materials: {glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25},\n"
             "            steel: {density: 7800, youngs_modulus: 1.0e7, poisson_ratio: 0.3}}\n"
             "laws: [{between: [any, any], normal: hertz, damping: tsuji, tangential: mindlin,\n"
             "        history: true, e: 0.5, mu: 0.5}]\n"
             "integrator: {dt: 1.0e-5}\n"
             "particles:\n"
             "  - {file: %s, format: %s, material: glass%s}\n"
             "stages: [{duration: 1.0e-4}]\n",
             name, format, strcmp(format, "lammps-data") == 0 ? ", types: {1: glass, 2: steel}" : "");
    /* the material key is for CSV; LAMMPS data maps types: drop it there */
    if (strcmp(format, "lammps-data") == 0) {
        char *m = strstr(text, ", material: glass");
        if (m) memmove(m, m + strlen(", material: glass"), strlen(m + strlen(", material: glass")) + 1);
    }
    FILE *f = fopen(scene_path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
    (void)path;
    tl_scene *scene = NULL;
    tl_scene_error err;
    if (tl_scene_load_file(scene_path, &scene, &err) == TL_OK) {
        tl_world *w = tl_scene_world(scene);
        if (tl_world_particle_count(w) <= 2000) tl_world_step(w, 3);
        tl_scene_destroy(scene);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/talus-fuzz-data-%ld", (long)getpid());
        char cmd[128];
        snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
        if (system(cmd) != 0) abort();
    }
    const char *names[2] = {"bed.csv", "bed.data"};
    for (int k = 0; k < 2; k++) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        FILE *f = fopen(path, "wb");
        if (!f) return 0;
        fwrite(data, 1, size, f);
        fclose(f);
    }
    load("bed.csv", "csv");
    load("bed.data", "lammps-data");
    return 0;
}
