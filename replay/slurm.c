/* slurm.c - see slurm.h. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dataset/base/runfiles.h"
#include "slurm.h"

#define SCRIPT "slurm-replay.sh"

static int plain(const char *s)
{
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_./:=,+@%^-", *s))
			return 0;
	return 1;
}

static void quoted_part(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
}

/* The word a b c (c may be "") quoted as one. */
static void word(FILE *out, const char *a, const char *b, const char *c)
{
	if (*a && plain(a) && plain(b) && plain(c)) {
		fprintf(out, "%s%s%s", a, b, c);
		return;
	}
	fputc('\'', out);
	quoted_part(out, a);
	quoted_part(out, b);
	quoted_part(out, c);
	fputc('\'', out);
}

void slurm_quote(FILE *out, const char *s)
{
	word(out, s, "", "");
}

static char *absolute(const char *path, const char *cwd)
{
	size_t n;
	char *p;

	if (path[0] == '/')
		return strdup(path);
	n = strlen(cwd) + strlen(path) + 2;
	if ((p = malloc(n)))
		snprintf(p, n, "%s/%s", cwd, path);
	return p;
}

int slurm_plan_paths(struct slurm_plan *p, const char *db, const char *dir,
		     char *own[5], struct hr_err *e)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (!(own[0] = getcwd(NULL, 0)))
		return hr_errf(e, HR_SYSTEM, "cannot read the working "
			       "directory");
	p->cwd = own[0];
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return hr_errf(e, HR_SYSTEM, "cannot read /proc/self/exe");
	buf[n] = '\0';
	if (!(own[1] = strdup(buf)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	p->headroom = own[1];
	if (!(own[2] = runfiles_find(RUNFILES_LIBEXEC, SCRIPT))) {
		runfiles_path(RUNFILES_LIBEXEC, SCRIPT, buf, sizeof(buf));
		return hr_errf(e, HR_USAGE, "no job script at %s (see "
			       "$HEADROOM_PREFIX)", buf);
	}
	p->script = own[2];
	if (!(own[3] = realpath(db, NULL)))
		return hr_errf(e, HR_INPUT, "%s: no such store (headroom "
			       "ingest makes one)", db);
	p->store = own[3];
	if (dir) {
		own[4] = absolute(dir, p->cwd);
	} else if ((own[4] = malloc(strlen(p->store) + 8))) {
		snprintf(own[4], strlen(p->store) + 8, "%s.slurm", p->store);
	}
	if (!own[4])
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (strchr(own[4], '%'))
		return hr_errf(e, HR_USAGE, "%s: a '%%' in the folder would be "
			       "a pattern in sbatch's --output; choose another "
			       "with --slurm-dir", own[4]);
	p->dir = own[4];
	return slurm_plan_check(p, e);
}

/* The first of what the lines name that holds a newline, or NULL. */
static const char *with_newline(const struct slurm_plan *p)
{
	const char *paths[] = { p->cwd, p->headroom, p->script, p->store,
				p->dir };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (strchr(paths[i], '\n'))
			return paths[i];
	for (int i = 0; i < p->nrun; i++)
		if (strchr(p->run_args[i], '\n'))
			return p->run_args[i];
	for (int i = 0; i < p->nsel; i++)
		if (strchr(p->sel_args[i], '\n'))
			return p->sel_args[i];
	return NULL;
}

int slurm_plan_check(const struct slurm_plan *p, struct hr_err *e)
{
	const char *bad = with_newline(p);
	char shown[80];
	size_t i;

	if (!bad)
		return HR_OK;
	/* The word as far as its first newline, so that the message itself
	 * stays one line. */
	for (i = 0; i + 1 < sizeof(shown) && bad[i] && bad[i] != '\n'; i++)
		shown[i] = bad[i];
	shown[i] = '\0';
	return hr_errf(e, HR_USAGE, "'%s\\n...': a newline in a path or "
		       "option would split the printed lines; refused", shown);
}

/* What both sbatch lines end with: the job's folder, name and log, then
 * the script, its mode and the arguments both modes take. */
static void job_tail(FILE *out, const struct slurm_plan *p, const char *name,
		     const char *log, const char *mode)
{
	fputc(' ', out);
	word(out, "--chdir=", p->cwd, "");
	fprintf(out, " --job-name=%s ", name);
	word(out, "--output=", p->dir, log);
	fputc(' ', out);
	slurm_quote(out, p->script);
	fprintf(out, " %s ", mode);
	slurm_quote(out, p->headroom);
	fputc(' ', out);
	slurm_quote(out, p->store);
	fputc(' ', out);
	slurm_quote(out, p->dir);
	fprintf(out, " %d", p->shards);
}

static void words(FILE *out, const char *const *w, int n)
{
	for (int i = 0; i < n; i++) {
		fputc(' ', out);
		slurm_quote(out, w[i]);
	}
}

void slurm_print(FILE *out, const struct slurm_plan *p)
{
	/* The paths in the comments are quoted too: what is printed is a
	 * script, and no word of it is left to the reader's shell. */
	fputs("# headroom replay of ", out);
	slurm_quote(out, p->store);
	fprintf(out, " in %d shards through Slurm\n"
		"# (docs/replay.md).  Array task I replays shard I/%d into\n"
		"# ", p->shards, p->shards);
	word(out, p->dir, "/shard-I.db,", "");
	fputs(" a copy of the store (log shard-I.log);\n"
	      "# a requeued task resumes it.  Then the merge job merges every "
	      "shard store\n# into the store (log merge.log).\n", out);
	fputs("mkdir -p ", out);
	slurm_quote(out, p->dir);
	fprintf(out, " &&\njobid=$(sbatch --parsable --array=0-%d --requeue "
		"--open-mode=append", p->shards - 1);
	job_tail(out, p, "headroom-replay", "/shard-%a.log", "shard");
	words(out, p->run_args, p->nrun);
	fputs(" --", out);
	words(out, p->sel_args, p->nsel);
	/* --parsable prints "JOBID[;CLUSTER]". */
	fputs(") &&\necho \"shards: job ${jobid%%;*}\" &&\n", out);
	fputs("sbatch --dependency=afterok:\"${jobid%%;*}\" "
	      "--kill-on-invalid-dep=yes --open-mode=append", out);
	job_tail(out, p, "headroom-merge", "/merge.log", "merge");
	fputc('\n', out);
}
