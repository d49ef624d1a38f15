/* profileset.c - see profileset.h. */
#include "profileset.h"
#include "../dataset/base/runfiles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/store.h"
#include "../dataset/base/cli.h"

void profileset_release(struct profileset *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct profile_row *r = &ps->rows[i];

		free(r->workload);
		free(r->domain);
		free(r->stack);
		free(r->format);
		free(r->device);
		free(r->top_name);
	}
	free(ps->rows);
	kclass_free(ps->rules);
	memset(ps, 0, sizeof(*ps));
}

double profile_share(const struct profile_row *r, enum kclass c)
{
	return r->kernel_ns > 0 ? (double)r->class_ns[c] /
		(double)r->kernel_ns : NAN;
}

double profile_addressable(const struct profile_row *r)
{
	return r->kernel_ns > 0 ? (double)r->addressable_ns /
		(double)r->kernel_ns : NAN;
}

int profile_workload_shares(const struct profileset *ps,
			    const char *workload, const char *stack,
			    double share[KC_COUNT], double *addressable)
{
	const struct profile_row *best = NULL;

	for (size_t i = 0; i < ps->n; i++) {
		const struct profile_row *r = &ps->rows[i];

		if (strcmp(r->workload, workload) ||
		    (stack && (!r->stack || strcmp(r->stack, stack))))
			continue;
		if (!best || r->id > best->id)
			best = r;
	}
	if (!best || best->kernel_ns <= 0)
		return -1;
	for (int c = 0; c < KC_COUNT; c++)
		share[c] = profile_share(best, (enum kclass)c);
	*addressable = profile_addressable(best);
	return 0;
}

/* The per-class sums of one profile. */
static int classify(sqlite3 *db, const struct kclass_rules *rules,
		    struct profile_row *r, struct hr_err *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT kind, name, total_ns FROM"
			       " profile_kernel WHERE profile_id = ?1"
			       " ORDER BY kind, name", -1, &st, NULL) !=
	    SQLITE_OK)
		return store_db_err(db, NULL, e);
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		int64_t ns = sqlite3_column_int64(st, 2);
		enum kclass c = kclass_of(rules, kind, name);

		r->class_ns[c] += ns;
		if (!kclass_addressable(rules, c))
			continue;
		r->addressable_ns += ns;
		if (ns > r->top_ns) {
			free(r->top_name);
			if (!(r->top_name = strdup(name))) {
				sqlite3_finalize(st);
				return hr_errf(e, HR_SYSTEM, "out of memory");
			}
			r->top_ns = ns;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? HR_OK : store_db_err(db, NULL, e);
}

struct win {
	int cls, level, problem;
	double s;
};

static int cmp_win(const void *a, const void *b)
{
	const struct win *x = a, *y = b;

	if (x->cls != y->cls)
		return x->cls - y->cls;
	if (x->level != y->level)
		return x->level - y->level;
	if (x->problem != y->problem)
		return x->problem - y->problem;
	return (x->s < y->s) - (x->s > y->s); /* best first */
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* s_i': per class, the median over its problems of each problem's best
 * verified speedup (the robust replay's view: correct under every check
 * and an interval above 1). */
static int class_speedups(struct profileset *ps,
			  const struct kclass_rules *pmap,
			  const struct evalset *es,
			  const struct replayset *rs, struct hr_err *e)
{
	struct evalset view;
	struct win *w = NULL;
	double *best = NULL;
	size_t n = 0;

	if (replayset_view(rs, es, 1, &view))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (!(w = calloc(view.n ? view.n : 1, sizeof(*w))) ||
	    !(best = calloc(view.n ? view.n : 1, sizeof(*best)))) {
		free(w);
		replayset_view_release(&view);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	for (size_t i = 0; i < view.n; i++) {
		const struct evalrow *r = &view.rows[i];
		int c;

		if (r->correct != 1 || !(r->speedup > 1) || !r->problem_name)
			continue;
		if ((c = kclass_match(pmap, r->problem_name)) < 0)
			continue;
		w[n++] = (struct win){ c, r->level, r->problem_id,
				       r->speedup };
	}
	qsort(w, n, sizeof(*w), cmp_win);
	for (size_t i = 0; i < n;) {
		int cls = w[i].cls;
		size_t k = 0;

		while (i < n && w[i].cls == cls) {
			size_t p = i;

			best[k++] = w[p].s; /* sorted best first */
			while (i < n && w[i].cls == cls &&
			       w[i].level == w[p].level &&
			       w[i].problem == w[p].problem)
				i++;
		}
		qsort(best, k, sizeof(*best), cmp_double);
		ps->class_speedup[cls] = k % 2 ? best[k / 2] :
			0.5 * (best[k / 2 - 1] + best[k / 2]);
		ps->class_wins[cls] = (int)k;
	}
	free(best);
	free(w);
	replayset_view_release(&view);
	return HR_OK;
}

static void project(struct profileset *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct profile_row *r = &ps->rows[i];
		double R = 0;

		for (int c = 0; c < KC_COUNT; c++)
			if (kclass_addressable(ps->rules, (enum kclass)c))
				R += profile_share(r, (enum kclass)c) *
					(1.0 - 1.0 / ps->class_speedup[c]);
		r->projected = R;
	}
}

/* A rule file: the one given, else NAME in the share folder
 * (dataset/base/runfiles.h).  must: its absence is an error; else absent is
 * HR_OK with *out NULL. */
static int load_rules(const char *given, const char *name,
		      struct kclass_rules **out, int must, struct hr_err *e)
{
	char *found = given ? NULL : runfiles_find(RUNFILES_SHARE, name);
	char where[4096];

	*out = NULL;
	if (!given && !found) {
		if (!must)
			return HR_OK; /* optional and absent */
		runfiles_path(RUNFILES_SHARE, name, where, sizeof(where));
		return hr_errf(e, HR_SYSTEM, "cannot find %s", where);
	}
	kclass_load(given ? given : found, out, e);
	free(found);
	return e->code;
}

/* profileset_load's rows as they come, and the room for them. */
struct grow {
	struct profileset *ps;
	size_t cap;
};

static int add_profile(sqlite3_stmt *st, void *arg, struct hr_err *e)
{
	struct grow *g = arg;
	struct profileset *ps = g->ps;
	struct profile_row *r;

	if (ps->n == g->cap) {
		struct profile_row *nr = realloc(ps->rows, (g->cap = g->cap ?
			2 * g->cap : 16) * sizeof(*nr));

		if (!nr)
			return hr_errf(e, HR_SYSTEM, "out of memory");
		ps->rows = nr;
	}
	r = &ps->rows[ps->n++];
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	r->workload = store_col_dup(st, 1, "");
	r->domain = store_col_dup(st, 2, NULL);
	r->stack = store_col_dup(st, 3, NULL);
	r->format = store_col_dup(st, 4, "");
	r->device = store_col_dup(st, 5, NULL);
	r->activities = sqlite3_column_int64(st, 6);
	r->kernel_ns = sqlite3_column_int64(st, 7);
	r->busy_ns = sqlite3_column_int64(st, 8);
	r->span_ns = sqlite3_column_int64(st, 9);
	r->projected = NAN;
	if (!r->workload || !r->format)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return HR_OK;
}

int profileset_load(struct profileset *ps, sqlite3 *db, const char *classes,
		    const char *problems, const struct evalset *es,
		    const struct replayset *rs, struct hr_err *e)
{
	struct kclass_rules *pmap = NULL;

	memset(ps, 0, sizeof(*ps));
	ps->why = "no profiles ingested";
	for (int c = 0; c < KC_COUNT; c++)
		ps->class_speedup[c] = 1.0;
	/* Rule files named on the command line are read, their regexes
	 * checked, even where no row needs them: a bad one is never
	 * silently ignored. */
	if ((classes && load_rules(classes, NULL, &ps->rules, 1, e)) ||
	    (problems && load_rules(problems, NULL, &pmap, 1, e)))
		goto out;
	if (!store_has_table(db, "profile"))
		goto out;
	if (store_each(db, "SELECT id, workload, domain, stack, format,"
		       " device, activities, kernel_ns, busy_ns, span_ns"
		       " FROM profile ORDER BY workload, stack, id",
		       add_profile, &(struct grow){ ps, 0 }, e))
		goto out;
	if (ps->n == 0)
		goto out;
	if (!ps->rules && load_rules(NULL, "maps/kernel-classes.rules",
				     &ps->rules, 1, e))
		goto out;
	for (size_t i = 0; i < ps->n; i++)
		if (classify(db, ps->rules, &ps->rows[i], e))
			goto out;
	ps->why = NULL;
	if (!rs->n) {
		ps->why = "no replay results: no verified speedup to project";
		goto out;
	}
	if (!pmap && load_rules(NULL, "problem-classes.rules", &pmap, 0, e))
		goto out;
	if (!pmap) {
		ps->why = "no problem map (paper/problem-classes.rules)";
		goto out;
	}
	if (class_speedups(ps, pmap, es, rs, e) == HR_OK)
		project(ps);
out:
	kclass_free(pmap);
	return e->code;
}
