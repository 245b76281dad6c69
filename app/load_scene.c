/* The scene a command runs or checks; see load_scene.h. */
#include "load_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tl_scene *app_load_scene(const char *path) {
    tl_scene *scene = NULL;
    tl_scene_error err;
    tl_status s;
    if (path) {
        s = tl_scene_load_file(path, &scene, &err);
    } else {
        char *text = malloc(talus_default_scene_size + 1);
        if (!text) return NULL;
        memcpy(text, talus_default_scene, talus_default_scene_size);
        text[talus_default_scene_size] = '\0';
        s = tl_scene_load_string(text, "<built-in default scene>", &scene, &err);
        free(text);
    }
    if (s != TL_OK) {
        char buf[2048];
        tl_scene_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "talus: %s\n", buf);
        return NULL;
    }
    return scene;
}
