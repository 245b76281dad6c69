/* libFuzzer target: the scene loader (YAML text -> a validated scene), the
 * loader's every check included; a scene that loads is stepped a little.
 * Built by -DTALUS_FUZZ=ON with clang (fuzz/README.md). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "talus/talus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    tl_scene *scene = NULL;
    tl_scene_error err;
    if (tl_scene_load_string(text, "fuzz/scene.yaml", &scene, &err) == TL_OK) {
        tl_world *w = tl_scene_world(scene);
        /* a few steps of a scene of modest size (the loader bounded the rest) */
        if (tl_world_particle_count(w) <= 2000) tl_world_step(w, 5);
        tl_scene_destroy(scene);
    } else {
        char buf[2048];
        tl_scene_error_format(&err, buf, sizeof buf);
    }
    free(text);
    return 0;
}
