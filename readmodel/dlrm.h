/* dlrm.h - DLRM-Bench's projection chain: from each problem's outcome in a
 * replayed DLRM-Bench archive and the DLRM workload's time per kernel class
 * to the win rate, the median speedup of verified wins, the projected
 * end-to-end time reduction R = sum_i w_i (1 - 1/s_i'), and the paper's
 * simplified form p_addr * win_rate * (1 - 1/median) beside it.
 *
 * Owns: the problem -> kernel class mapping (the set's kernel-classes.json,
 * given as a parsed tree), each problem's weight w_i from the classes'
 * time shares, and the projection.  Must not: touch the store, read files
 * or print.  The shares come from the caller (a workload profile); tests
 * state them inline.  docs/dlrm-bench.md explains every rule.
 */
#ifndef HR_DLRM_H
#define HR_DLRM_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "../dataset/base/err.h"

/* One problem of the mapping and the kernel classes it stands for. */
struct dlrm_entry {
	char *problem;      /* owned: the problem's file stem */
	char **classes;     /* owned: nclasses owned strings, distinct */
	size_t nclasses;
};

struct dlrm_map {
	struct dlrm_entry *v; /* owned array of n, in the file's order */
	size_t n;
};

/* Read a mapping {"problems": [{"problem": STEM, "classes": [CLASS...]},
 * ...]} from doc (borrowed; nothing of it is kept).  Errors (HR_INPUT)
 * name where (a file name, for messages) and the entry: a problem twice,
 * a problem without classes, a class twice in one problem.  Release m
 * whether or not it succeeds. */
int dlrm_map_parse(const cJSON *doc, const char *where, struct dlrm_map *m,
		   struct hr_err *e);
void dlrm_map_release(struct dlrm_map *m);

/* The index of problem in m, or -1. */
long dlrm_map_find(const struct dlrm_map *m, const char *problem);

/* A kernel class's share of the workload's time, in [0, 1]. */
struct dlrm_share {
	const char *cls;    /* borrowed */
	double share;
};

/* w[i] for each entry i of m: for every class it names, that class's share
 * divided by the number of entries naming the class.  A class the shares
 * do not list has no time in the workload and adds 0.  Errors (HR_INPUT):
 * a share outside [0, 1] or not a number, a class listed twice, shares
 * adding up to more than 1. */
int dlrm_weights(const struct dlrm_map *m, const struct dlrm_share *s,
		 size_t ns, double *w, struct hr_err *e);

/* One problem's outcome: win is 1 for a verified win (correct under every
 * check, speedup interval above 1), whose speedup is then > 1; otherwise
 * the problem is not deployed and its speedup is ignored. */
struct dlrm_outcome {
	int win;
	double speedup;
};

struct dlrm_projection {
	size_t problems, wins;
	double win_rate;    /* wins / problems */
	double median_win;  /* median speedup of the wins; NAN without wins */
	double reach;       /* sum w_i: R's bound, every problem won at any
			       speed */
	double reduction;   /* R = sum w_i (1 - 1/s_i'), s_i' = s_i for a win,
			       else 1: the share of end-to-end time saved */
	double speedup;     /* 1 / (1 - R) */
	double simplified;  /* p_addr * win_rate * (1 - 1/median_win), the
			       paper's form (equal shares, every win at the
			       median); NAN without wins or without p_addr */
};

/* Project n outcomes with weights w[0..n) (w may be NULL: then reach and
 * reduction are NAN, the rest is computed); p_addr is the workload's
 * addressable fraction (NAN when unknown).  Errors (HR_INPUT): n == 0, a
 * win whose speedup is not > 1, a weight outside [0, 1], weights adding
 * up to more than 1. */
int dlrm_project(const struct dlrm_outcome *o, const double *w, size_t n,
		 double p_addr, struct dlrm_projection *p, struct hr_err *e);

#endif
