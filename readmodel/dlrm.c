/* dlrm.c - see dlrm.h. */
#include "dlrm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

/* Shares and weights are sums of measured fractions: this much rounding
 * above 1 is not an error. */
#define SUM_SLACK 1e-9

static int entry_parse(const cJSON *o, size_t i, const char *where,
		       struct dlrm_entry *d, struct hr_err *e)
{
	const char *name = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(o, "problem"));
	const cJSON *cls = cJSON_GetObjectItemCaseSensitive(o, "classes");
	const cJSON *c;
	size_t k = 0;

	if (!name || !*name)
		return hr_errf(e, HR_INPUT, "%s: problem %zu: \"problem\" must "
			       "be a file stem", where, i + 1);
	if (!cJSON_IsArray(cls) || cJSON_GetArraySize(cls) == 0)
		return hr_errf(e, HR_INPUT, "%s: problem '%s': \"classes\" "
			       "must be a non-empty array of kernel classes",
			       where, name);
	if (!(d->problem = strdup(name)) ||
	    !(d->classes = calloc((size_t)cJSON_GetArraySize(cls),
				  sizeof(*d->classes))))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	cJSON_ArrayForEach(c, cls) {
		const char *s = cJSON_GetStringValue(c);

		if (!s || !*s)
			return hr_errf(e, HR_INPUT, "%s: problem '%s': class "
				       "%zu is not a name", where, name, k + 1);
		for (size_t j = 0; j < k; j++)
			if (!strcmp(d->classes[j], s))
				return hr_errf(e, HR_INPUT, "%s: problem '%s': "
					       "class '%s' twice", where, name,
					       s);
		if (!(d->classes[k] = strdup(s)))
			return hr_errf(e, HR_SYSTEM, "out of memory");
		d->nclasses = ++k;
	}
	return HR_OK;
}

int dlrm_map_parse(const cJSON *doc, const char *where, struct dlrm_map *m,
		   struct hr_err *e)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "problems");
	const cJSON *o;
	size_t i = 0;

	memset(m, 0, sizeof(*m));
	if (!cJSON_IsArray(arr))
		return hr_errf(e, HR_INPUT, "%s: wants an array \"problems\"",
			       where);
	if (!(m->v = calloc((size_t)cJSON_GetArraySize(arr) + 1,
			    sizeof(*m->v))))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	cJSON_ArrayForEach(o, arr) {
		if (!cJSON_IsObject(o))
			return hr_errf(e, HR_INPUT, "%s: problem %zu is not an "
				       "object", where, i + 1);
		m->n = i + 1;
		if (entry_parse(o, i, where, &m->v[i], e))
			return e->code;
		if (dlrm_map_find(m, m->v[i].problem) != (long)i)
			return hr_errf(e, HR_INPUT, "%s: problem '%s' twice",
				       where, m->v[i].problem);
		i++;
	}
	return HR_OK;
}

void dlrm_map_release(struct dlrm_map *m)
{
	for (size_t i = 0; i < m->n; i++) {
		for (size_t j = 0; j < m->v[i].nclasses; j++)
			free(m->v[i].classes[j]);
		free(m->v[i].classes);
		free(m->v[i].problem);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

long dlrm_map_find(const struct dlrm_map *m, const char *problem)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].problem, problem))
			return (long)i;
	return -1;
}

/* How many entries of m name class cls. */
static size_t naming(const struct dlrm_map *m, const char *cls)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->v[i].nclasses; j++)
			n += !strcmp(m->v[i].classes[j], cls);
	return n;
}

static int fraction(double v)
{
	return v >= 0.0 && v <= 1.0;   /* false for NAN */
}

int dlrm_weights(const struct dlrm_map *m, const struct dlrm_share *s,
		 size_t ns, double *w, struct hr_err *e)
{
	double total = 0.0;

	for (size_t k = 0; k < ns; k++) {
		if (!fraction(s[k].share))
			return hr_errf(e, HR_INPUT, "class '%s': share %g is not "
				       "in [0, 1]", s[k].cls, s[k].share);
		for (size_t j = 0; j < k; j++)
			if (!strcmp(s[j].cls, s[k].cls))
				return hr_errf(e, HR_INPUT, "class '%s' has two "
					       "shares", s[k].cls);
		total += s[k].share;
	}
	if (total > 1.0 + SUM_SLACK)
		return hr_errf(e, HR_INPUT, "the class shares add up to %g, "
			       "more than the whole workload", total);
	for (size_t i = 0; i < m->n; i++) {
		w[i] = 0.0;
		for (size_t j = 0; j < m->v[i].nclasses; j++)
			for (size_t k = 0; k < ns; k++)
				if (!strcmp(s[k].cls, m->v[i].classes[j]))
					w[i] += s[k].share /
						(double)naming(m, s[k].cls);
	}
	return HR_OK;
}

int dlrm_project(const struct dlrm_outcome *o, const double *w, size_t n,
		 double p_addr, struct dlrm_projection *p, struct hr_err *e)
{
	double *wins;
	double reach = 0.0, saved = 0.0;

	memset(p, 0, sizeof(*p));
	if (n == 0)
		return hr_errf(e, HR_INPUT, "no problems to project");
	for (size_t i = 0; i < n; i++) {
		if (o[i].win && !(o[i].speedup > 1.0))
			return hr_errf(e, HR_INPUT, "problem %zu: a win with "
				       "speedup %g (a win is faster: > 1)",
				       i + 1, o[i].speedup);
		if (w && !fraction(w[i]))
			return hr_errf(e, HR_INPUT, "problem %zu: weight %g is "
				       "not in [0, 1]", i + 1, w[i]);
		if (w) {
			reach += w[i];
			if (o[i].win)
				saved += w[i] * (1.0 - 1.0 / o[i].speedup);
		}
	}
	if (reach > 1.0 + SUM_SLACK)
		return hr_errf(e, HR_INPUT, "the weights add up to %g, more "
			       "than the whole workload", reach);
	if (!(wins = malloc(n * sizeof(*wins))))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (o[i].win)
			wins[p->wins++] = o[i].speedup;
	p->problems = n;
	p->win_rate = (double)p->wins / (double)n;
	p->median_win = metric_median(wins, p->wins);
	free(wins);
	p->reach = w ? reach : NAN;
	p->reduction = w ? saved : NAN;
	p->speedup = 1.0 / (1.0 - p->reduction);
	p->simplified = p->wins && !isnan(p_addr) ?
		metric_amdahl_reduction(p_addr, p->win_rate, p->median_win) :
		NAN;
	return HR_OK;
}
