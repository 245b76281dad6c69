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

#endif
