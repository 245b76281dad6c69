/* The scene a command runs or checks: a scene file, or the embedded default scene. */
#ifndef TALUS_APP_LOAD_SCENE_H
#define TALUS_APP_LOAD_SCENE_H

#include "talus/talus.h"

/* The embedded default scene (examples/default.yaml, built in). */
extern const unsigned char talus_default_scene[];
extern const unsigned long talus_default_scene_size;

/* Loads a scene file, or the embedded default scene when path is NULL;
 * prints the error and returns NULL on failure. */
tl_scene *app_load_scene(const char *path);

#endif
