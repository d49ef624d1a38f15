/* cmd_ingest.c - `headroom ingest PATH...`: archives, directories or
 * files into the store, one transaction per input.
 *
 * Inputs are taken in order; the first one that fails stops the command
 * (exit 3 for bad input) and leaves the database as it was before that
 * input, with the earlier inputs committed.  A new database is built
 * under a private, flock'ed name and published with link(2); what a
 * killed run left under such a name is removed by the next run
 * (ingest_sweep_stale, cmd_ingest.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../profile/trace.h"
#include "base/runfiles.h"
#include "cmd_ingest.h"
#include "commands.h"

static const char usage[] =
	"usage: headroom ingest PATH... [--map MAP] [--source NAME]\n"
	"                       [--max-entry-mb N] [--max-total-mb N]\n"
	"                       [--workload NAME] [--domain D] [--stack S]\n"
	"                       [--adopt]\n"
	"\n"
	"Store KernelBench-style evaluations: each PATH is a directory, a\n"
	".tar/.tar.gz/.tar.xz/.tar.zst/.zip archive, or a .json/.jsonl file.\n"
	"KernelBench run directories (eval_results.json, level_L_problem_P_\n"
	"sample_S_kernel.py, generation_config.yaml) and baseline timing\n"
	"files (baseline_time_*.json) are found at any depth; --map reads a\n"
	"leaderboard dump through a mapping file (without one, the dumps in\n"
	"a directory or archive are skipped, each named).  An input whose\n"
	"content was already ingested adds nothing.  Nothing is extracted\n"
	"to disk; links, '..', absolute names, devices and oversized\n"
	"entries are refused.\n"
	"\n"
	"Profiler traces are found by their content: a PyTorch profiler\n"
	"Chrome trace (.json, .json.gz) or an Nsight Systems SQLite export;\n"
	"each is read streaming and stored as one profile, keyed by the\n"
	"file's sha256 (docs/profiles.md).\n"
	"\n"
	"  --map MAP         leaderboard mapping: a JSON file, or, when no\n"
	"                    file has that name, the name of one headroom\n"
	"                    ships (e.g. common-schema: the maps/ folder of\n"
	"                    PREFIX/share/headroom)\n"
	"  --source NAME     source name (default: the input's base name)\n"
	"  --max-entry-mb N  largest entry, uncompressed (default 64)\n"
	"  --max-total-mb N  whole input, uncompressed (default 2048)\n"
	"  --workload NAME   trace: the workload it profiles (default: the\n"
	"                    trace's headroom_workload key, else its base\n"
	"                    name)\n"
	"  --domain D        trace: transformer, recommender, cnn, ...\n"
	"  --stack S         trace: the software stack, e.g. eager, compile\n"
	"  --adopt           --db is another program's SQLite database (no\n"
	"                    headroom application_id): add headroom's\n"
	"                    tables beside its own (without it, refused)\n"
	"  --db FILE         database (default ./headroom.db or $HEADROOM_DB)\n"
	"  -q                no summary lines\n";

enum { OPT_MAP = 0x2000, OPT_SOURCE, OPT_MAX_ENTRY, OPT_MAX_TOTAL,
	OPT_WORKLOAD, OPT_DOMAIN, OPT_STACK, OPT_ADOPT };

/* "--max-entry-mb N" / "--max-total-mb N": a positive whole number of
 * MiB. */
int ingest_parse_cap(const char *cmd, int entry, const char *arg,
		     struct archive_limits *lim)
{
	const char *opt = entry ? "--max-entry-mb" : "--max-total-mb";
	long long v;

	if (cli_parse_int(arg, 1, (long long)(UINT64_MAX >> 20), &v))
		return cli_usage_error(cmd, "%s wants a positive number of "
				       "MiB, not '%s'", opt, arg);
	if (entry)
		lim->max_entry_bytes = (uint64_t)v << 20;
	else
		lim->max_total_bytes = (uint64_t)v << 20;
	return HR_OK;
}

static void ingest_print_result(FILE *out, const char *path,
				const struct ingest_result *r)
{
	if (r->existed) {
		fprintf(out, "%s: already ingested as source %" PRId64 " (sha256 "
		       "%.12s…), nothing added\n", path, r->source_id,
		       r->sha256);
		return;
	}
	if (!strcmp(r->kind, "problems")) {
		fprintf(out, "%s: source %" PRId64 " '%s' (problems): %" PRId64
		       " problems\n", path, r->source_id, r->name,
		       r->n_problems);
		return;
	}
	fprintf(out, "%s: source %" PRId64 " '%s' (%s): %" PRId64 " evaluations, %"
	       PRId64 " kernels (%" PRId64 " new), %" PRId64 " speedups, %"
	       PRId64 " baselines", path, r->source_id, r->name, r->kind,
	       r->n_evaluations, r->n_kernels, r->n_kernels_new,
	       r->n_speedups, r->n_baselines);
	/* A leaderboard's reference_code target, when the dump had it. */
	if (r->n_problems && strcmp(r->kind, "export"))
		fprintf(out, ", %" PRId64 " reference problems", r->n_problems);
	fputc('\n', out);
}

/* JSON Lines, or a JSON array: a leaderboard dump, which only --map reads.
 * Returns what it is, or NULL (not one; KernelBench's files are objects,
 * and its own names, eval_results.json and baseline_*.json, are its
 * reader's even when malformed). */
static const char *dump_kind(const struct afile *f)
{
	const char *base = strrchr(f->path, '/');
	size_t n = strlen(f->path), i = 0;
	int jsonl = n > 6 && !strcmp(f->path + n - 6, ".jsonl");

	base = base ? base + 1 : f->path;
	if (!jsonl && !(n > 5 && !strcmp(f->path + n - 5, ".json")))
		return NULL;
	if (!strcmp(base, "eval_results.json") ||
	    !strncmp(base, "baseline_", 9))
		return NULL;
	while (i < f->len && strchr(" \t\r\n", f->data[i]))
		i++;
	if (i < f->len && f->data[i] == '[')
		return "a JSON array";
	return jsonl && i < f->len && f->data[i] == '{' ? "JSON Lines" : NULL;
}

/* A KernelBench-run ingest reads no leaderboard dump: say which it left. */
static void print_skipped(FILE *out, const char *path,
			  const struct afileset *fs)
{
	struct stat st;
	int dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (size_t i = 0; i < fs->n; i++) {
		const char *what = dump_kind(&fs->files[i]);

		if (!what)
			continue;
		fprintf(out, "%s: skipped %s: %s (a leaderboard dump?), which only a "
		       "mapping reads: headroom ingest ", path,
		       fs->files[i].path, what);
		if (dir)
			fprintf(out, "%.*s/%s", (int)n, path, fs->files[i].path);
		else
			fputs("FILE", out);
		fputs(" --map MAP\n", out);
	}
}

/* An input made of leaderboard dumps only, refused by the KernelBench
 * reader (no run directory in it): the refusal ends with the way to read
 * them, through a mapping.  Returns e->code. */
static int hint_map(const char *path, const struct afileset *fs,
		    struct hr_err *e)
{
	const char *what = NULL;
	size_t used = strlen(e->msg);

	for (size_t i = 0; i < fs->n; i++)
		if (!(what = dump_kind(&fs->files[i])))
			return e->code;
	if (what)
		snprintf(e->msg + used, sizeof(e->msg) - used, "; %s is %s "
			 "(a leaderboard dump?), which only a mapping reads: "
			 "headroom ingest %s --map MAP", fs->n == 1 ?
			 fs->files[0].path : "each file", what, path);
	return e->code;
}

/* A database that does not exist yet is built under a private name in the
 * same directory and published with link(2) only once something is
 * committed: link never replaces a file, so a store that another process
 * created meanwhile is never removed or overwritten, and a refused first
 * ingest leaves no file behind without unlinking a path another process
 * may have opened.  The private file stays open and flock'ed until it is
 * published or removed, which is how a later run tells it from what a
 * killed ingest left (ingest_sweep_stale); a sweep that removed it before
 * the lock was taken shows as a path that is no longer this file, and a
 * new name is made. */
static int open_new_store(const struct hr_global *g, struct ingest_cli *c,
			  struct hr_err *e)
{
	size_t n = strlen(g->db_path) + sizeof(".new-XXXXXX");
	struct stat fst, pst;
	int fd = -1;

	if (!(c->tmp = malloc(n)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	for (int tries = 0; fd < 0 && tries < 5; tries++) {
		snprintf(c->tmp, n, "%s.new-XXXXXX", g->db_path);
		if ((fd = mkostemp(c->tmp, O_CLOEXEC)) < 0)
			break;
		/* Held already: a sweep is removing it.  A filesystem
		 * without flock (ENOLCK, EOPNOTSUPP) goes on unlocked: no
		 * sweep can take a lock there either, so none removes it. */
		if ((flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) ||
		    fstat(fd, &fst) || lstat(c->tmp, &pst) ||
		    fst.st_ino != pst.st_ino || fst.st_dev != pst.st_dev) {
			close(fd);
			fd = -1;
			errno = EAGAIN;
		}
	}
	if (fd < 0) {
		hr_errf(e, HR_SYSTEM, "%s: cannot create the database: %s",
			g->db_path, strerror(errno));
		free(c->tmp);
		c->tmp = NULL;
		return e->code;
	}
	c->tmp_fd = fd;
	/* mkstemp makes it 0600: the mode of a new store (0640 in a folder
	 * shared with a group). */
	fchmod(fd, store_file_mode(g->db_path));
	c->out = open_memstream(&c->out_buf, &c->out_len);
	if (!c->out)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return store_open(&c->s, c->tmp, STORE_APPEND, e);
}

/* The length of NAME's "<base>.new-XXXXXX" part when it is one (then
 * *suffix is what follows it: "", "-wal", "-shm" or "-journal"), else 0. */
static size_t stale_name(const char *name, const char *base,
			 const char **suffix)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	size_t bl = strlen(base), n = bl + sizeof(".new-XXXXXX") - 1;

	if (strncmp(name, base, bl) || strncmp(name + bl, ".new-", 5))
		return 0;
	for (size_t i = bl + 5; i < n; i++)
		if (!name[i] || !strchr("abcdefghijklmnopqrstuvwxyz"
					"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789", name[i]))
			return 0;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (!strcmp(name + n, sfx[i])) {
			*suffix = sfx[i];
			return n;
		}
	return 0;
}

/* A regular file of this user, not a link: one a sweep may remove. */
static int sweepable(const char *path, struct stat *st)
{
	return !lstat(path, st) && S_ISREG(st->st_mode) &&
		st->st_uid == geteuid();
}

static void sweep_remove(const struct hr_global *g, const char *path)
{
	if (!unlink(path) && !g->quiet)
		fprintf(stderr, "headroom: removed %s, left by an ingest "
			"that did not finish\n", path);
}

/* One stale main file and its sidecars, under its owner's lock. */
static void sweep_one(const struct hr_global *g, const char *main_path)
{
	static const char *const sfx[] = { "-wal", "-shm", "-journal" };
	char side[4096 + 256 + 32];
	struct stat st, fst;
	int fd;

	if (!sweepable(main_path, &st))
		return;
	fd = open(main_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	/* Held: its owner is alive.  Taken: it is dead, and no new owner
	 * can appear, since a new ingest makes a new name. */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && !fstat(fd, &fst) &&
	    fst.st_ino == st.st_ino && fst.st_dev == st.st_dev) {
		for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
			snprintf(side, sizeof(side), "%s%s", main_path, sfx[i]);
			if (sweepable(side, &st))
				sweep_remove(g, side);
		}
		sweep_remove(g, main_path);
	}
	close(fd);
}

void ingest_sweep_stale(const struct hr_global *g)
{
	const char *slash = strrchr(g->db_path, '/');
	const char *base = slash ? slash + 1 : g->db_path;
	char dir[4096], prefix[4096], path[4096 + 256 + 16];
	struct dirent *d;
	struct stat st;
	DIR *dp;

	/* Names as the user wrote the database's: DIR/DB.new-..., or
	 * DB.new-... in the working directory. */
	snprintf(prefix, sizeof(prefix), "%.*s",
		 slash ? (int)(slash - g->db_path + 1) : 0, g->db_path);
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - g->db_path +
							 (slash == g->db_path)),
			 g->db_path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (!*base || !(dp = opendir(dir)))
		return;
	while ((d = readdir(dp))) {
		const char *suffix;
		size_t n = stale_name(d->d_name, base, &suffix);

		if (!n)
			continue;
		snprintf(path, sizeof(path), "%s%s", prefix, d->d_name);
		if (!*suffix) {
			sweep_one(g, path);
			continue;
		}
		/* A sidecar without its main file has no owner. */
		snprintf(path, sizeof(path), "%s%.*s", prefix, (int)n,
			 d->d_name);
		if (lstat(path, &st) && errno == ENOENT) {
			snprintf(path, sizeof(path), "%s%s", prefix, d->d_name);
			if (sweepable(path, &st))
				sweep_remove(g, path);
		}
	}
	closedir(dp);
}

/* The store of this ingest, opened once: a new database privately
 * (open_new_store), an existing file as it is (STORE_APPEND changes
 * nothing until a write commits). */
static int open_store(const struct hr_global *g, struct ingest_cli *c,
		      const struct ingest_opts *o, struct hr_err *e)
{
	if (c->s || c->tmp)
		return HR_OK;
	if (access(g->db_path, F_OK) && errno == ENOENT)
		return open_new_store(g, c, e);
	return store_open(&c->s, g->db_path,
			  STORE_APPEND | (o->adopt ? STORE_ADOPT : 0), e);
}

/* A profiler trace: read it whole (streaming) before the database is
 * opened, so that a bad trace stores nothing. */
static int ingest_trace(const struct hr_global *g, struct ingest_cli *c,
			const char *path, enum trace_format fmt,
			const struct ingest_opts *o, struct hr_err *e)
{
	struct trace_meta m = { .source_name = o->source_name, .path = path,
		.workload = o->workload, .domain = o->domain,
		.stack = o->stack };
	struct trace t;
	FILE *out;
	int64_t id = 0;
	int existed = 0, rc;

	trace_init(&t);
	rc = fmt == TRACE_NSYS ? trace_read_nsys(path, &t, e) :
		trace_read_chrome(path, &t, e);
	if (rc == HR_OK)
		rc = open_store(g, c, o, e);
	if (rc == HR_OK)
		rc = trace_store(c->s, &t, &m, &id, &existed, e);
	if (rc == HR_OK && !existed)
		c->stored++;
	out = c->out ? c->out : stdout;
	if (rc == HR_OK && !g->quiet && existed)
		fprintf(out, "%s: already ingested as source %" PRId64 " (sha256 "
			"%.12s…), nothing added\n", path, id, t.sha256);
	else if (rc == HR_OK && !g->quiet)
		fprintf(out, "%s: source %" PRId64 " (profile, %s): %" PRId64
		       " GPU activities, %zu distinct names, %.3f ms summed\n",
		       path, id, fmt == TRACE_NSYS ? "nsys" : "chrome",
		       t.activities, t.nnames, (double)t.kernel_ns / 1e6);
	trace_release(&t);
	return rc;
}

int ingest_cli_one(const struct hr_global *g, struct ingest_cli *c,
		   const char *path, const struct ingest_opts *o,
		   struct hr_err *e)
{
	struct ingest_result res;
	struct afileset fs;
	enum trace_format fmt;
	int rc = HR_OK;

	/* A leaderboard dump read through --map is never a trace. */
	fmt = o->kind == INGEST_AUTO && !o->map ? trace_sniff(path) :
		TRACE_NONE;
	if (fmt != TRACE_NONE)
		return ingest_trace(g, c, path, fmt, o, e);
	if (archive_load(path, &o->limits, &fs, e))
		return e->code;
	rc = open_store(g, c, o, e);
	if (rc == HR_OK) {
		rc = ingest_fileset(c->s, &fs, o, &res, e);
		if (rc == HR_INPUT && o->kind == INGEST_AUTO && !o->map)
			rc = hint_map(path, &fs, e);
	}
	if (rc == HR_OK && !res.existed)
		c->stored++;
	if (rc == HR_OK && !g->quiet) {
		FILE *out = c->out ? c->out : stdout;

		ingest_print_result(out, path, &res);
		if (!strcmp(res.kind, "kernelbench-run"))
			print_skipped(out, path, &fs);
	}
	afileset_free(&fs);
	return rc;
}

/* A new store that could not be published is kept under a name no sweep
 * takes (".new-" becomes ".kept-"), with its WAL; *kept is that name, or
 * the private one when the rename failed. */
static const char *keep_aside(struct ingest_cli *c, char *kept, size_t n)
{
	char *at = strstr(c->tmp, ".new-"), wal[4096 + 8], kwal[4096 + 8];

	snprintf(kept, n, "%.*s.kept-%s", (int)(at - c->tmp), c->tmp, at + 5);
	if (link(c->tmp, kept))
		return c->tmp;
	snprintf(wal, sizeof(wal), "%s-wal", c->tmp);
	snprintf(kwal, sizeof(kwal), "%s-wal", kept);
	if (!access(wal, F_OK) && rename(wal, kwal)) {
		unlink(kept);
		return c->tmp;
	}
	unlink(c->tmp);
	return kept;
}

/* Publish the new store built under c->tmp: HR_OK, INGEST_CLI_AGAIN when
 * the database appeared meanwhile, HR_SYSTEM otherwise. */
static int publish(const struct hr_global *g, struct ingest_cli *c,
		   struct hr_err *e)
{
	size_t n = strlen(c->tmp) + sizeof("-wal");
	char *wal = malloc(n), kept[4096 + 8];
	int rc = HR_OK;

	if (!wal)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	/* Closing the last connection checkpoints the WAL into the file and
	 * removes it; a WAL left behind would hold committed data that a
	 * link of the main file alone would lose. */
	snprintf(wal, n, "%s-wal", c->tmp);
	if (!access(wal, F_OK))
		rc = hr_errf(e, HR_SYSTEM, "%s: the new database's WAL was "
			     "not checkpointed; it is kept as %s", g->db_path,
			     keep_aside(c, kept, sizeof(kept)));
	else if (link(c->tmp, g->db_path) == 0)
		unlink(c->tmp);
	else if (errno == EEXIST)
		rc = INGEST_CLI_AGAIN;
	else
		rc = hr_errf(e, HR_SYSTEM, "%s: cannot create the database: "
			     "%s (what was stored is kept as %s)", g->db_path,
			     strerror(errno), keep_aside(c, kept,
							 sizeof(kept)));
	free(wal);
	return rc;
}

int ingest_cli_close(const struct hr_global *g, struct ingest_cli *c, int rc,
		     struct hr_err *e)
{
	int pub = HR_OK;

	if (c->s && c->tmp && c->stored)
		sqlite3_exec(store_db(c->s), "PRAGMA wal_checkpoint(TRUNCATE)",
			     NULL, NULL, NULL);
	store_close(c->s);
	c->s = NULL;
	if (c->out)
		fclose(c->out);
	if (c->tmp && c->stored) {
		pub = publish(g, c, rc ? &(struct hr_err){ 0 } : e);
		if (pub == INGEST_CLI_AGAIN)
			unlink(c->tmp);
	} else if (c->tmp) {
		unlink(c->tmp);
	}
	/* The lock goes last: until the name is published or gone, a sweep
	 * must see its owner alive. */
	if (c->tmp)
		close(c->tmp_fd);
	/* The summary lines of a published store; those of a store that lost
	 * the race are printed by the run that follows. */
	if (c->out_buf && pub == HR_OK)
		fwrite(c->out_buf, 1, c->out_len, stdout);
	free(c->out_buf);
	free(c->tmp);
	memset(c, 0, sizeof(*c));
	if (pub == INGEST_CLI_AGAIN)
		return pub;
	return rc ? rc : pub;
}

int ingest_cli_run(const struct hr_global *g, char **paths, int n,
		   const struct ingest_opts *o, struct hr_err *e)
{
	struct ingest_cli cli = { 0 };
	int rc;

	/* Again only when the database appeared during the first run; the
	 * second opens it, so it cannot lose that race a second time. */
	ingest_sweep_stale(g);
	for (int tries = 0; tries < 3; tries++) {
		rc = HR_OK;
		hr_err_clear(e);
		for (int i = 0; i < n && rc == HR_OK; i++)
			rc = ingest_cli_one(g, &cli, paths[i], o, e);
		rc = ingest_cli_close(g, &cli, rc, e);
		if (rc != INGEST_CLI_AGAIN)
			return rc;
	}
	return hr_errf(e, HR_SYSTEM, "%s: the database kept appearing and "
		       "disappearing while it was being created", g->db_path);
}

int cmd_ingest(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "map", required_argument, NULL, OPT_MAP },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "max-entry-mb", required_argument, NULL, OPT_MAX_ENTRY },
		{ "max-total-mb", required_argument, NULL, OPT_MAX_TOTAL },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "domain", required_argument, NULL, OPT_DOMAIN },
		{ "stack", required_argument, NULL, OPT_STACK },
		{ "adopt", no_argument, NULL, OPT_ADOPT },
		{ 0 }
	};
	struct ingest_opts o = { .kind = INGEST_AUTO };
	struct lb_map *map = NULL;
	const char *map_path = NULL;
	char *found = NULL, shipped[512];
	struct hr_err e;
	int c, r, rc;

	hr_err_clear(&e);
	archive_limits_default(&o.limits);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL))
	       != -1) {
		r = cli_common_option(g, "ingest", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		switch (c) {
		case OPT_MAP:
			map_path = optarg;
			break;
		case OPT_SOURCE:
			o.source_name = optarg;
			break;
		case OPT_WORKLOAD:
			o.workload = optarg;
			break;
		case OPT_DOMAIN:
			o.domain = optarg;
			break;
		case OPT_STACK:
			o.stack = optarg;
			break;
		case OPT_ADOPT:
			o.adopt = 1;
			break;
		case OPT_MAX_ENTRY:
		case OPT_MAX_TOTAL:
			r = ingest_parse_cap("ingest", c == OPT_MAX_ENTRY, optarg,
					     &o.limits);
			if (r)
				return r;
			break;
		}
	}
	if ((r = cli_check_format(g, "ingest", 0)) != CLI_NEXT)
		return r;
	if (optind >= argc)
		return cli_usage_error("ingest", "no input given");
	if (map_path && access(map_path, F_OK) != 0 &&
	    !strchr(map_path, '/') && !strstr(map_path, ".json")) {
		/* A bare name that names no file here: one of the maps
		 * headroom ships. */
		snprintf(shipped, sizeof(shipped), "maps/%s.json", map_path);
		if (!(found = runfiles_find(RUNFILES_SHARE, shipped))) {
			runfiles_path(RUNFILES_SHARE, "maps", shipped,
				      sizeof(shipped));
			return cli_usage_error("ingest", "--map %s: no map of "
					       "that name in %s; give a "
					       "file's path", map_path,
					       shipped);
		}
		map_path = found;
	}
	if (map_path && lb_map_load(map_path, &map, &e)) {
		free(found);
		return cli_report("ingest", &e);
	}
	o.map = map;
	rc = ingest_cli_run(g, argv + optind, argc - optind, &o, &e);
	lb_map_free(map);
	free(found);
	return rc ? cli_report("ingest", &e) : HR_OK;
}
