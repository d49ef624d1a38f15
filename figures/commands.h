/* commands.h - the entry points of the commands that live in figures/
 * (cmd_<name>.c each), for the command table in cli/main.c.  A
 * command lives in the lowest stage that has everything it uses
 * (docs/architecture.md).  Keep sorted by name. */
#ifndef HR_FIGURES_COMMANDS_H
#define HR_FIGURES_COMMANDS_H

#include "../dataset/base/cli.h"

int cmd_figures(int argc, char **argv, struct hr_global *g);

#endif
