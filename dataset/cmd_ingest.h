/* cmd_ingest.h - what the commands that add sources share (ingest,
 * problems add): the --max-*-mb options and one input's load, store and
 * summary line.  Command layer: these print.
 */
#ifndef HR_CMD_INGEST_H
#define HR_CMD_INGEST_H

#include <stdint.h>

#include "../report/cli.h"
#include "ingest.h"

/* Parse the value of --max-entry-mb (entry != 0) or --max-total-mb into
 * lim; a usage error is printed and HR_USAGE returned when it is not a
 * positive whole number of MiB. */
int ingest_parse_cap(const char *cmd, int entry, const char *arg,
		     struct archive_limits *lim);

/* Load path, open *s on first use (so a bad input never creates the
 * database), ingest it and print its summary line unless -q. */
int ingest_cli_one(const struct hr_global *g, struct store **s,
		   const char *path, const struct ingest_opts *o,
		   struct hr_err *e);

#endif
