/* commands.h - the entry points of the commands that live in dataset/
 * (cmd_<name>.c each), for the command table in cli/main.c.  A
 * command lives in the lowest stage that has everything it uses
 * (docs/architecture.md).  Keep sorted by name. */
#ifndef HR_DATASET_COMMANDS_H
#define HR_DATASET_COMMANDS_H

#include "../dataset/base/cli.h"

int cmd_export(int argc, char **argv, struct hr_global *g);
int cmd_ingest(int argc, char **argv, struct hr_global *g);
int cmd_ls(int argc, char **argv, struct hr_global *g);
int cmd_problems(int argc, char **argv, struct hr_global *g);

#endif
