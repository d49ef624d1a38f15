/* evalset.h - the stored evaluations, loaded once for a report.
 *
 * Owns: the one SELECT that reads evaluations for report/ and figures/, and
 * the choice of the speedup a report quotes (the same as `headroom ls`:
 * against the eager baseline, as reported when the archive reported one,
 * else computed from the archive's baseline as KernelBench's score.py does,
 * baseline mean / runtime).  Also the per-configuration summary every table,
 * claim and figure shares.  Must not: write to the store, print.
 *
 * A "model configuration" is one run of one model (KernelBench: one run
 * directory; a leaderboard dump: one model in it).  Its label is the run's
 * last path component when that names the model
 * (runs/acme-frontier-2_greedy_level1 -> acme-frontier-2_greedy_level1),
 * else "MODEL [RUN]".  Problem-level numbers follow KernelBench's
 * benchmark_eval_analysis.py: only sample_id 0 counts for a problem.
 */
#ifndef HR_EVALSET_H
#define HR_EVALSET_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../dataset/base/err.h"

struct evalrow {
	int64_t id;
	char *source;        /* owned; source name */
	char *model;         /* owned */
	char *config;        /* owned; configuration label, see above */
	char *problem_name;  /* owned; the record's, else the problem set's,
				else NULL */
	char *precision;     /* owned or NULL */
	char *harness;       /* owned or NULL */
	int level, problem_id, sample_id;
	int compiled, correct; /* 1, 0, or -1 unknown */
	double atol;           /* NAN when unknown */
	double speedup;        /* NAN when none was stored */
	int64_t kernel_id;     /* 0 when no code was stored */
};

struct evalset {
	struct evalrow *rows; /* owned; sorted by config, level, problem,
				 sample, source, id */
	size_t n;
	char **configs;       /* owned; distinct configurations, sorted */
	size_t nconfigs;
};

/* Load every evaluation.  On success es owns the rows; release with
 * evalset_release (also safe after a failed load). */
int evalset_load(struct evalset *es, sqlite3 *db, struct hr_err *e);
void evalset_release(struct evalset *es);

/* Which rows a summary covers.  NULL / 0 fields match everything. */
struct eval_filter {
	const char *config;
	int level;
	const char *source;
};

int eval_filter_match(const struct eval_filter *f, const struct evalrow *r);

/* Does a problem name say it is a convolution ("conv", any case)? */
int eval_is_conv(const char *problem_name);

struct config_stats {
	size_t evaluations;   /* rows, all samples */
	size_t compiled;      /* rows with compiled = 1 */
	size_t correct;       /* rows with correct = 1 (original check) */
	size_t problems;      /* KernelBench denominator, see evalset_stats */
	size_t problems_correct;  /* problems whose sample 0 is correct */
	size_t winners;       /* ... and speedup > 1 (fast_1 numerator) */
	size_t conv_winners;  /* winners whose problem name says conv */
	double median_winner; /* median speedup of winners, NAN if none */
	double geomean_correct; /* geometric mean over correct sample-0
				   speedups, 0 if none (KernelBench) */
	double correct_rate;  /* problems_correct / problems * 100, NAN if
				 problems is 0 */
	double win_rate;      /* winners / problems * 100 */
};

/* Summarise the rows f selects.  dataset_problems is the number of problems
 * of f->level in the stored problem set (KernelBench patches problems a run
 * lacks in as failed); when it is 0 the denominator is the number of
 * distinct problems with a sample-0 row. */
int evalset_stats(const struct evalset *es, const struct eval_filter *f,
		  size_t dataset_problems, struct config_stats *out);

/* Number of stored problems at a level (0 = all levels). */
int evalset_dataset_problems(sqlite3 *db, int level, size_t *n,
			     struct hr_err *e);

#endif
