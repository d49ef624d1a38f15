/* slurm.h - the sbatch lines of `headroom replay --slurm N`: a job array
 * of N shard replays and a merge job that waits for it, both running
 * replay/slurm-replay.sh (docs/replay.md, *A cluster through Slurm*).
 *
 * Owns: the text of those lines (the shard stores' and logs' names, the
 * sbatch options, the shell quoting of every argument) and the absolute
 * paths they name.  Must not: run sbatch or anything else, open the store.
 */
#ifndef HR_REPLAY_SLURM_H
#define HR_REPLAY_SLURM_H

#include <stdio.h>

#include "../dataset/base/err.h"

/* Everything the lines name; the strings are borrowed. */
struct slurm_plan {
	const char *headroom;  /* this binary, absolute */
	const char *script;    /* slurm-replay.sh, absolute */
	const char *store;     /* the user's store, absolute */
	const char *dir;       /* shard stores and logs, absolute */
	const char *cwd;       /* the jobs' working directory (--chdir) */
	int shards;            /* N: array tasks 0..N-1 */
	/* replay options every attempt of a shard takes (--device, --jobs,
	 * --python, ...), then the selection (--level ... --eval) that only
	 * a shard's first attempt takes: a resumed run keeps its own. */
	const char *const *run_args;
	int nrun;
	const char *const *sel_args;
	int nsel;
};

/* Fill p's path fields: headroom from /proc/self/exe, the script from the
 * libexec folder (dataset/base/runfiles.h), store = realpath(db), dir =
 * given (else DB.slurm) made absolute, cwd = getcwd.  Owned strings go to
 * own[0..4] (free()).  A missing store is HR_INPUT, a missing script, a
 * dir holding '%' (sbatch's pattern character) or a newline anywhere
 * (slurm_plan_check) HR_USAGE. */
int slurm_plan_paths(struct slurm_plan *p, const char *db, const char *dir,
		     char *own[5], struct hr_err *e);

/* HR_USAGE when a path or an option of p holds a newline: quoted or not,
 * it would end a comment line or a command line of the printed script. */
int slurm_plan_check(const struct slurm_plan *p, struct hr_err *e);

/* Write the comment lines naming the paths and the three command lines
 * (mkdir, the array's sbatch, the merge's sbatch after it) to out: a
 * shell script, each argument quoted for sh. */
void slurm_print(FILE *out, const struct slurm_plan *p);

/* s as one sh word: as it is when it holds only [A-Za-z0-9_./:=,+@%^-],
 * else in single quotes ('\'' for a quote). */
void slurm_quote(FILE *out, const char *s);

#endif
