/* cmd_ingest.h - what the commands that add sources share (ingest,
 * problems add): the --max-*-mb options and one input's load, store and
 * summary line.  Command layer: these print.
 */
#ifndef HR_CMD_INGEST_H
#define HR_CMD_INGEST_H

#include <stdint.h>

#include "base/cli.h"
#include "ingest.h"

/* Parse the value of --max-entry-mb (entry != 0) or --max-total-mb into
 * lim; a usage error is printed and HR_USAGE returned when it is not a
 * positive whole number of MiB. */
int ingest_parse_cap(const char *cmd, int entry, const char *arg,
		     struct archive_limits *lim);

/* The database as the commands hold it: opened on first use, so that an
 * input refused while loading never creates it.  A database that did not
 * exist is built under a private name (tmp) and appears under its own
 * name only when something was committed. */
struct ingest_cli {
	struct store *s;   /* NULL until an input loaded */
	char *tmp;         /* the private name of a new database, or NULL */
	int tmp_fd;        /* tmp, open and flock'ed while this process owns
			    * it (ingest_sweep_stale); -1 (or 0 before the
			    * first open) when none */
	FILE *out;         /* summary lines held back while tmp is set */
	char *out_buf;     /* what out wrote (owned) */
	size_t out_len;
	int stored;        /* inputs committed */
};

/* ingest_cli_close: the database appeared while this command was creating
 * it; nothing of this run is kept, run the inputs again into it. */
#define INGEST_CLI_AGAIN (-1)

/* Load path, open the database on first use, ingest it and print its
 * summary line unless -q (held back until the database is published). */
int ingest_cli_one(const struct hr_global *g, struct ingest_cli *c,
		   const char *path, const struct ingest_opts *o,
		   struct hr_err *e);

/* Close after the inputs, rc being how they went (e holds rc's error).
 * A new database is published when something was committed and removed
 * otherwise; a database that exists is never removed.  Returns rc, or
 * the publication's error, or INGEST_CLI_AGAIN. */
int ingest_cli_close(const struct hr_global *g, struct ingest_cli *c, int rc,
		     struct hr_err *e);

/* Remove what ingests that did not finish left beside g->db_path: files
 * named DB.new-XXXXXX (XXXXXX: mkstemp's six letters and digits), with
 * their -wal, -shm and -journal, that are regular files of this user and
 * that no live process holds (their owner keeps an exclusive flock(2) on
 * the main file from its creation until it is published or removed; the
 * kernel drops it when the owner dies, SIGKILL included).  A sidecar
 * whose main file is gone has no owner.  Each removal is named on stderr
 * unless -q.  Errors are ignored: a file left is only a file left. */
void ingest_sweep_stale(const struct hr_global *g);

/* The inputs paths[0..n) in order, stopping at the first that fails, with
 * the run again that INGEST_CLI_AGAIN asks for.  Returns the exit code;
 * e holds the error. */
int ingest_cli_run(const struct hr_global *g, char **paths, int n,
		   const struct ingest_opts *o, struct hr_err *e);

#endif
