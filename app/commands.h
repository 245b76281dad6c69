/* The `talus` command's subcommands. Each returns the process exit status. */
#ifndef TALUS_APP_COMMANDS_H
#define TALUS_APP_COMMANDS_H

#include "talus/talus.h"

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_collide(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* --help or -h anywhere among a subcommand's arguments (before a lone "--"). */
int app_wants_help(int argc, char **argv);

/* The embedded default scene (examples/default.yaml, built in). */
extern const unsigned char talus_default_scene[];
extern const unsigned long talus_default_scene_size;

/* Loads a scene file, or the embedded default scene when path is NULL;
 * prints the error and returns NULL on failure. */
tl_scene *app_load_scene(const char *path);

#endif
