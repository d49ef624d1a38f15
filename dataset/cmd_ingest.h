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

/* The database as the commands hold it: opened on first use, so that an
 * input refused while loading never creates it. */
struct ingest_cli {
	struct store *s;   /* NULL until an input loaded */
	int created;       /* the database file did not exist before */
	int stored;        /* inputs committed */
};

/* Load path, open the database on first use, ingest it and print its
 * summary line unless -q. */
int ingest_cli_one(const struct hr_global *g, struct ingest_cli *c,
		   const char *path, const struct ingest_opts *o,
		   struct hr_err *e);

/* Close; a database this command created and stored nothing in is
 * removed again, so a failed first ingest leaves no file behind. */
void ingest_cli_close(const struct hr_global *g, struct ingest_cli *c);

#endif
