/* dlrmset.c - see dlrmset.h. */
#include "dlrmset.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/json.h"
#include "../profile/kclass.h"
#include "../dataset/base/runfiles.h"

#define MAP_NAME "dlrm-kernel-classes.json"

int dlrmset_suite_level(const char *roles_path, int *level,
			struct hr_err *e)
{
	char *found = NULL, where[4096];
	const cJSON *v;
	cJSON *doc = NULL;

	*level = 0;
	if (!roles_path && !(roles_path = found =
			     runfiles_find(RUNFILES_SHARE, "roles.json"))) {
		runfiles_path(RUNFILES_SHARE, "roles.json", where,
			      sizeof(where));
		return hr_errf(e, HR_SYSTEM, "cannot find %s", where);
	}
	if (json_load_file(roles_path, &doc, e) == HR_OK) {
		v = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(doc,
								 "suites"),
				DLRM_SUITE), "level");
		if (cJSON_IsNumber(v) && v->valueint > 0)
			*level = v->valueint;
		else
			hr_errf(e, HR_INPUT, "%s: suite '%s' has no level "
				"(\"suites\": {\"%s\": {\"level\": N}})",
				roles_path, DLRM_SUITE, DLRM_SUITE);
	}
	cJSON_Delete(doc);
	free(found);
	return e->code;
}

int dlrmset_problem_id(const struct dlrm_map *m, size_t i)
{
	return atoi(m->v[i].problem);
}

static int map_check(const struct dlrm_map *m, const char *path,
		     struct hr_err *e)
{
	for (size_t i = 0; i < m->n; i++) {
		const char *s = m->v[i].problem;

		if (!isdigit((unsigned char)s[0]) || atoi(s) <= 0 ||
		    !strchr(s, '_'))
			return hr_errf(e, HR_INPUT, "%s: problem '%s': a "
				       "stem is ID_Name (e.g. 1_Name)", path,
				       s);
		for (size_t j = 0; j < i; j++)
			if (dlrmset_problem_id(m, j) == atoi(s))
				return hr_errf(e, HR_INPUT, "%s: problem id %d "
					       "twice", path, atoi(s));
		for (size_t k = 0; k < m->v[i].nclasses; k++)
			if (kclass_lookup(m->v[i].classes[k]) < 0)
				return hr_errf(e, HR_INPUT, "%s: problem '%s': "
					       "no kernel class '%s' "
					       "(profile/kclass.h names them)",
					       path, s, m->v[i].classes[k]);
	}
	return HR_OK;
}

int dlrmset_map_load(const char *path, struct dlrm_map *m, struct hr_err *e)
{
	char *found = NULL, where[4096];
	cJSON *doc = NULL;

	memset(m, 0, sizeof(*m));
	if (!path && !(path = found = runfiles_find(RUNFILES_SHARE,
						    MAP_NAME))) {
		runfiles_path(RUNFILES_SHARE, MAP_NAME, where, sizeof(where));
		return hr_errf(e, HR_SYSTEM, "cannot find %s", where);
	}
	if (json_load_file(path, &doc, e) == HR_OK &&
	    dlrm_map_parse(doc, path, m, e) == HR_OK)
		map_check(m, path, e);
	cJSON_Delete(doc);
	free(found);
	return e->code;
}

size_t dlrmset_outcomes(const struct dlrm_map *m, const struct evalset *es,
			const char *config, int level,
			struct dlrm_outcome *o)
{
	size_t have = 0;

	for (size_t i = 0; i < m->n; i++) {
		int id = dlrmset_problem_id(m, i);

		o[i].win = 0;
		o[i].speedup = NAN;
		for (size_t k = 0; k < es->n; k++) {
			const struct evalrow *r = &es->rows[k];

			if (r->level != level || r->problem_id != id ||
			    r->sample_id != 0 || strcmp(r->config, config))
				continue;
			have++;
			o[i].speedup = r->speedup;
			o[i].win = r->correct == 1 && r->speedup > 1.0;
			break;
		}
	}
	return have;
}

/* Add to e's message the recommender workloads that are profiled under
 * stack, which --workload can name instead (rows are sorted by workload:
 * each named once).  Returns e->code. */
static int other_workloads(const struct profileset *ps, const char *stack,
			   struct hr_err *e)
{
	size_t used = strlen(e->msg), k = 0;
	const char *last = NULL;

	for (size_t i = 0; ps && i < ps->n; i++) {
		const struct profile_row *r = &ps->rows[i];

		if (!r->workload || !r->domain ||
		    strcmp(r->domain, "recommender") ||
		    (stack && (!r->stack || strcmp(r->stack, stack))) ||
		    (last && !strcmp(last, r->workload)))
			continue;
		last = r->workload;
		used += (size_t)snprintf(e->msg + used, used < sizeof(e->msg) ?
					 sizeof(e->msg) - used : 0, "%s%s",
					 k++ ? ", " : "; profiled recommender "
					 "workloads (--workload W): ",
					 r->workload);
		if (used >= sizeof(e->msg))
			break;
	}
	return e->code;
}

int dlrmset_weights(const struct dlrm_map *m, const struct profileset *ps,
		    const char *workload, const char *stack, double *w,
		    double *addressable, struct hr_err *e)
{
	double share[KC_COUNT];
	struct dlrm_share s[KC_COUNT];

	if (!ps || profile_workload_shares(ps, workload, stack, share,
					   addressable)) {
		hr_errf(e, HR_INPUT, "no profile of workload '%s'%s%s "
			"ingested ('headroom profile %s')", workload,
			stack ? " under stack " : "", stack ? stack : "",
			workload);
		return other_workloads(ps, stack, e);
	}
	for (int c = 0; c < KC_COUNT; c++) {
		s[c].cls = kclass_name((enum kclass)c);
		s[c].share = share[c];
	}
	return dlrm_weights(m, s, KC_COUNT, w, e);
}

void dlrmset_release(struct dlrmset *ds)
{
	for (size_t i = 0; i < ds->n; i++)
		free(ds->c[i].p);
	free(ds->c);
	dlrm_map_release(&ds->map);
	memset(ds, 0, sizeof(*ds));
}

/* Configurations with an evaluation at level, in es's (sorted) order. */
static int has_level(const struct evalset *es, const char *config,
		     int level)
{
	for (size_t k = 0; k < es->n; k++)
		if (es->rows[k].level == level &&
		    !strcmp(es->rows[k].config, config))
			return 1;
	return 0;
}

static int load_config(struct dlrmset *ds, struct dlrmset_config *c,
		       const double *w, const struct evalset *es,
		       const struct evalset *view,
		       const struct replayset *rs, struct hr_err *e)
{
	size_t n = ds->map.n;
	struct dlrm_outcome *arch = calloc(n, sizeof(*arch));
	struct dlrm_outcome *ver = calloc(n, sizeof(*ver));

	if (!arch || !ver || !(c->p = calloc(n, sizeof(*c->p)))) {
		free(arch);
		free(ver);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	dlrmset_outcomes(&ds->map, es, c->config, ds->level, arch);
	dlrmset_outcomes(&ds->map, view, c->config, ds->level, ver);
	for (size_t i = 0; i < n; i++) {
		struct dlrmset_problem *p = &c->p[i];

		p->problem_id = dlrmset_problem_id(&ds->map, i);
		p->problem = ds->map.v[i].problem;
		p->weight = w ? w[i] : NAN;
		p->archive_speedup = arch[i].speedup;
		p->archive_win = arch[i].win;
		p->robust_speedup = p->ci_low = NAN;
		p->verified = ver[i].win;
		c->archive_wins += arch[i].win;
		for (size_t k = 0; k < es->n; k++) {
			const struct evalrow *r = &es->rows[k];
			const struct replay_row *rr;

			if (r->level != ds->level ||
			    r->problem_id != p->problem_id ||
			    r->sample_id != 0 || strcmp(r->config, c->config))
				continue;
			rr = replayset_find(rs, r->id);
			if (rr && rr->robust.have) {
				p->verdict = rr->robust.audit[0] ?
					rr->robust.audit : NULL;
				p->robust_speedup = rr->robust.speedup;
				p->ci_low = rr->robust.ci_low;
				c->replayed++;
			}
			break;
		}
	}
	dlrm_project(ver, w, n, ds->addressable, &c->verified, e);
	free(arch);
	free(ver);
	return e->code;
}

int dlrmset_load(struct dlrmset *ds, const char *map_path, int level,
		 const char *workload, const char *stack,
		 const struct evalset *es, const struct replayset *rs,
		 const struct profileset *ps, struct hr_err *e)
{
	struct evalset view;
	double *w = NULL;
	struct hr_err we;

	memset(ds, 0, sizeof(*ds));
	ds->level = level;
	ds->workload = workload;
	ds->stack = stack;
	ds->addressable = NAN;
	if (dlrmset_map_load(map_path, &ds->map, e))
		return e->code;
	if (!ds->map.n)
		return hr_errf(e, HR_INPUT, "the DLRM-Bench mapping lists no "
			       "problem");
	if (!(w = calloc(ds->map.n, sizeof(*w))) ||
	    !(ds->c = calloc(es->nconfigs ? es->nconfigs : 1,
			     sizeof(*ds->c)))) {
		free(w);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	hr_err_clear(&we);
	ds->have_weights = dlrmset_weights(&ds->map, ps, workload, stack, w,
					   &ds->addressable, &we) == HR_OK;
	if (!ds->have_weights) {
		snprintf(ds->why_weights, sizeof(ds->why_weights), "%s",
			 we.msg);
		ds->addressable = NAN;
	}
	if (replayset_view(rs, es, 1, &view)) {
		free(w);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	for (size_t i = 0; i < es->nconfigs && e->code == HR_OK; i++) {
		if (!has_level(es, es->configs[i], level))
			continue;
		ds->c[ds->n].config = es->configs[i];
		load_config(ds, &ds->c[ds->n++],
			    ds->have_weights ? w : NULL, es, &view, rs, e);
	}
	replayset_view_release(&view);
	free(w);
	return e->code;
}
