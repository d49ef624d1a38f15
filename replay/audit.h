/* audit.h - `headroom audit problems`: run each stored problem's reference
 * once and record how large its output is and which degenerate outputs
 * (zeros, the reference mean, an input) the original check would accept.
 *
 * Owns: the tolerance presets audited and the problem_audit rows.  The
 * reference runs in a replay worker (replay/worker.py, job with
 * stop_after "reference"); the gates are computed there by the verify
 * library, so the rules exist once (verify/rules.h).  Must not: print.
 */
#ifndef HR_REPLAY_AUDIT_H
#define HR_REPLAY_AUDIT_H

#include "../dataset/select.h"
#include "../dataset/store.h"
#include "pool.h"
#include "proto.h"

struct audit_opts {
	struct worker_opts w;      /* the worker (pool.h); w.gpus is the one
	                              GPU index it runs on */
	const char *set;           /* only this problem set (NULL: all) */
	const struct evalsel *sel; /* which problems (select.h); NULL: all */
	double timeout;            /* seconds for one reference */
	int inputs_on_device;      /* draw inputs with the device generator */
};

/* One audited problem, as the callback sees it. */
struct audit_row {
	int level, problem_id;
	const char *name, *sha256;
	enum proto_verdict status; /* PV_AUDITED, PV_PROBLEM_ERROR, PV_TIMEOUT
				      or PV_CRASHED */
	const char *error;         /* why, when not audited */
	double max_abs_ref;        /* NAN unless audited */
	const char *gates_json;    /* NULL unless audited */
};

typedef void (*audit_cb)(void *arg, const struct audit_row *row, int done,
			 int total);

/* How many problems audit_problems would audit (*n), without a worker. */
int audit_count(struct store *s, const struct audit_opts *o, int *n,
		struct hr_err *e);

/* Audit every matching problem (distinct by sha256); one transaction per
 * audited problem.  *failed counts problems not audited.  Returns HR_OK,
 * or an error when the worker cannot start or the store fails. */
int audit_problems(struct store *s, const struct audit_opts *o, audit_cb cb,
		   void *cb_arg, int *failed, struct hr_err *e);

/* The presets audited: name, KernelBench harness, dtype, atol = rtol. */
struct audit_preset {
	const char *name, *harness, *dtype;
	double tol;
};
extern const struct audit_preset audit_presets[];
extern const int audit_npresets;

#endif
