/* evalset.c - see evalset.h. */
#include "evalset.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/select.h"
#include "../dataset/store.h"
#include "metrics.h"

static const char query[] =
	"SELECT e.id, s.name, e.model,"
	/* The label `ls --model` also accepts (dataset/select.h). */
	" " EVALSEL_CONFIG_SQL " AS config,"
	" COALESCE(e.problem_name, (SELECT p.name FROM problem p"
	"   WHERE p.level = e.level AND p.problem_id = e.problem_id"
	"   ORDER BY p.id LIMIT 1)),"
	" e.precision, e.harness, e.level, e.problem_id, e.sample_id,"
	" e.compiled, e.correct, e.atol,"
	" q.value, e.kernel_id"
	" FROM evaluation e JOIN source s ON s.id = e.source_id"
	" JOIN quoted_speedup q ON q.evaluation_id = e.id"
	" ORDER BY config, e.level, e.problem_id, e.sample_id, s.name, e.id";

static char *col_dup(sqlite3_stmt *st, int c, int *oom)
{
	const unsigned char *t = sqlite3_column_text(st, c);
	char *d;

	if (!t)
		return NULL;
	if (!(d = strdup((const char *)t)))
		*oom = 1;
	return d;
}

static int col_tri(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return -1;
	return sqlite3_column_int(st, c) != 0;
}

static double col_real(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, c);
}

static int add_config(struct evalset *es, const char *config)
{
	char **p;

	/* Rows come sorted by configuration: a new one differs from the
	 * last. */
	if (es->nconfigs && !strcmp(es->configs[es->nconfigs - 1], config))
		return 0;
	p = realloc(es->configs, (es->nconfigs + 1) * sizeof(*p));
	if (!p)
		return -1;
	es->configs = p;
	if (!(es->configs[es->nconfigs] = strdup(config)))
		return -1;
	es->nconfigs++;
	return 0;
}

struct load {
	struct evalset *es;
	size_t cap;
};

static int add_row(sqlite3_stmt *st, void *arg, struct hr_err *e)
{
	struct load *l = arg;
	struct evalset *es = l->es;
	struct evalrow *r;
	int oom = 0;

	if (es->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 256;
		struct evalrow *p = realloc(es->rows, nc * sizeof(*p));

		if (!p)
			return hr_errf(e, HR_SYSTEM,
				       "out of memory reading evaluations");
		es->rows = p;
		l->cap = nc;
	}
	r = &es->rows[es->n++];
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	r->source = col_dup(st, 1, &oom);
	r->model = col_dup(st, 2, &oom);
	r->config = col_dup(st, 3, &oom);
	r->problem_name = col_dup(st, 4, &oom);
	r->precision = col_dup(st, 5, &oom);
	r->harness = col_dup(st, 6, &oom);
	r->level = sqlite3_column_int(st, 7);
	r->problem_id = sqlite3_column_int(st, 8);
	r->sample_id = sqlite3_column_int(st, 9);
	r->compiled = col_tri(st, 10);
	r->correct = col_tri(st, 11);
	r->atol = col_real(st, 12);
	r->speedup = col_real(st, 13);
	r->kernel_id = sqlite3_column_int64(st, 14);
	if (oom || !r->model || !r->config || add_config(es, r->config))
		return hr_errf(e, HR_SYSTEM,
			       "out of memory reading evaluations");
	return HR_OK;
}

int evalset_load(struct evalset *es, sqlite3 *db, struct hr_err *e)
{
	struct load l = { es, 0 };

	memset(es, 0, sizeof(*es));
	return store_each(db, query, add_row, &l, e);
}

void evalset_release(struct evalset *es)
{
	for (size_t i = 0; i < es->n; i++) {
		free(es->rows[i].source);
		free(es->rows[i].model);
		free(es->rows[i].config);
		free(es->rows[i].problem_name);
		free(es->rows[i].precision);
		free(es->rows[i].harness);
	}
	for (size_t i = 0; i < es->nconfigs; i++)
		free(es->configs[i]);
	free(es->rows);
	free(es->configs);
	memset(es, 0, sizeof(*es));
}

int eval_filter_match(const struct eval_filter *f, const struct evalrow *r)
{
	if (f->config && strcmp(f->config, r->config))
		return 0;
	if (f->level && f->level != r->level)
		return 0;
	if (f->source && strcmp(f->source, r->source))
		return 0;
	return 1;
}

int eval_is_conv(const char *name)
{
	for (const char *p = name; p && *p; p++)
		if (tolower((unsigned char)p[0]) == 'c' &&
		    tolower((unsigned char)p[1]) == 'o' &&
		    tolower((unsigned char)p[2]) == 'n' &&
		    tolower((unsigned char)p[3]) == 'v')
			return 1;
	return 0;
}

int evalset_stats(const struct evalset *es, const struct eval_filter *f,
		  size_t dataset_problems, struct config_stats *out)
{
	size_t cap = es->n ? es->n : 1;
	double *win = malloc(cap * sizeof(*win));
	double *cor = malloc(cap * sizeof(*cor));
	double *sp0 = malloc(cap * sizeof(*sp0));
	int *ok0 = malloc(cap * sizeof(*ok0));
	size_t nwin = 0, ncor = 0, seen = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!win || !cor || !sp0 || !ok0)
		goto done;
	for (size_t i = 0; i < es->n; i++) {
		const struct evalrow *r = &es->rows[i];

		if (!eval_filter_match(f, r))
			continue;
		out->evaluations++;
		out->compiled += r->compiled == 1;
		out->correct += r->correct == 1;
		if (r->sample_id != 0)
			continue;
		ok0[seen] = r->correct;
		sp0[seen++] = r->speedup;
		if (r->correct != 1 || isnan(r->speedup))
			continue;
		if (r->speedup > 0)
			cor[ncor++] = r->speedup;
		if (r->speedup > 1.0) {
			win[nwin++] = r->speedup;
			out->conv_winners += eval_is_conv(r->problem_name);
		}
	}
	out->problems_correct = metric_fast_p_count(ok0, sp0, seen, 0.0);
	out->winners = metric_fast_p_count(ok0, sp0, seen, 1.0);
	out->problems = dataset_problems ? dataset_problems : seen;
	out->median_winner = metric_median(win, nwin);
	out->geomean_correct = metric_geomean(cor, ncor);
	out->correct_rate = out->problems ?
		100.0 * (double)out->problems_correct / (double)out->problems :
		NAN;
	out->win_rate = out->problems ?
		100.0 * (double)out->winners / (double)out->problems : NAN;
	rc = 0;
done:
	free(win);
	free(cor);
	free(sp0);
	free(ok0);
	return rc;
}

int evalset_dataset_problems(sqlite3 *db, int level, size_t *n,
			     struct hr_err *e)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT COUNT(DISTINCT level * 100000 +"
			       " problem_id) FROM problem WHERE ?1 = 0 OR"
			       " level = ?1", -1, &st, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	sqlite3_bind_int(st, 1, level);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = (size_t)sqlite3_column_int64(st, 0);
	else
		store_db_err(db, NULL, e);
	sqlite3_finalize(st);
	return e->code;
}
