/* commands.h - every subcommand's entry point (one file each, in the folder
 * of its stage; see docs/architecture.md).  Keep sorted by name. */
#ifndef HR_COMMANDS_H
#define HR_COMMANDS_H

#include "cli.h"

int cmd_audit(int argc, char **argv, struct hr_global *g);
int cmd_export(int argc, char **argv, struct hr_global *g);
int cmd_figures(int argc, char **argv, struct hr_global *g);
int cmd_ingest(int argc, char **argv, struct hr_global *g);
int cmd_ls(int argc, char **argv, struct hr_global *g);
int cmd_merge(int argc, char **argv, struct hr_global *g);
int cmd_problems(int argc, char **argv, struct hr_global *g);
int cmd_profile(int argc, char **argv, struct hr_global *g);
int cmd_replay(int argc, char **argv, struct hr_global *g);
int cmd_report(int argc, char **argv, struct hr_global *g);
int cmd_show(int argc, char **argv, struct hr_global *g);
int cmd_verify(int argc, char **argv, struct hr_global *g);

#endif
