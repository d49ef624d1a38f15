/* cmd_ingest.h - what the commands that add sources share (ingest,
 * problems add): the --max-*-mb options and one input's load, store and
 * summary line.  Command layer: these print.
 */
#ifndef HR_CMD_INGEST_H
#define HR_CMD_INGEST_H

#include <stdint.h>

#include "../report/cli.h"
#include "ingest.h"

/* Parse "--max-*-mb N" into bytes; a usage error is printed and HR_USAGE
 * returned when N is not a positive whole number. */
int ingest_parse_mb(const char *cmd, const char *opt, const char *arg,
		    uint64_t *out);

/* Load path, open *s on first use (so a bad input never creates the
 * database), ingest it and print its summary line unless -q. */
int ingest_cli_one(const struct hr_global *g, struct store **s,
		   const char *path, const struct ingest_opts *o,
		   struct hr_err *e);

#endif
