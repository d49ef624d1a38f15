/* html.c - see html.h. */
#include "html.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dataset/base/vocab.h"
#include "../figures/figures.h"
#include "claims.h"
#include "evaldetail.h"
#include "htmlasset.h"
#include "provenance.h"

/* --- escaping ------------------------------------------------------------ */

int html_put_text(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if ((*p < 0x20 && *p != '\n' && *p != '\t') ||
			    *p == 0x7f)
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
	}
	return ferror(f) ? -1 : 0;
}

int html_put_script_json(FILE *f, const char *json)
{
	for (const unsigned char *p = (const unsigned char *)json; *p; p++) {
		if (*p == '<')
			fputs("\\u003c", f);
		else if (p[0] == 0xe2 && p[1] == 0x80 &&
			 (p[2] == 0xa8 || p[2] == 0xa9)) {
			fputs(p[2] == 0xa8 ? "\\u2028" : "\\u2029", f);
			p += 2;
		} else
			fputc(*p, f);
	}
	return ferror(f) ? -1 : 0;
}

/* --- the page's parts ---------------------------------------------------- */

struct page {
	const struct html_input *in;
	FILE *f;
	size_t *first, *next;   /* findings of es row i: first[i], then next[]
				   (SIZE_MAX ends) */
};

static const struct table *find_table(const struct html_input *in,
				      const char *name)
{
	for (size_t i = 0; i < in->ntables; i++)
		if (!strcmp(in->tables[i].name, name))
			return in->tables[i].t;
	return NULL;
}

/* A cell's link for the claims table: to the evaluations of the claim's
 * configuration and level (data- attributes the script turns into
 * filters; without script the link still leads to the list). */
struct claim_link {
	const char *config;
	int level;
};

/* The report table name as a <table>; links (claims only) adds a last
 * column.  Numeric columns are right-aligned. */
static void put_table(struct page *pg, const char *name, const char *caption,
		      const struct claim_link *links, size_t nlinks)
{
	const struct table *t = find_table(pg->in, name);
	FILE *f = pg->f;
	int nc;

	if (!t)
		return;
	nc = table_ncols(t);
	fprintf(f, "<div class=\"scroll\"><table class=\"sortable\" "
		"id=\"t-%s\"><caption>", name);
	html_put_text(f, caption);
	fputs("</caption>\n<thead><tr>", f);
	for (int c = 0; c < nc; c++) {
		fputs("<th scope=\"col\">", f);
		html_put_text(f, table_col_at(t, c)->name);
		fputs("</th>", f);
	}
	if (links)
		fputs("<th scope=\"col\">evaluations</th>", f);
	fputs("</tr></thead>\n<tbody>\n", f);
	for (int r = 0; r < table_rows(t); r++) {
		fputs("<tr>", f);
		for (int c = 0; c < nc; c++) {
			enum table_type ty = table_col_at(t, c)->type;
			const char *v = table_cell(t, r, c);

			fputs(ty == COL_INT || ty == COL_REAL ?
			      "<td class=\"n\">" : "<td>", f);
			html_put_text(f, v);
			fputs("</td>", f);
		}
		if (links && (size_t)r < nlinks &&
		    (links[r].config || links[r].level)) {
			fputs("<td><a href=\"#evaluations\" "
			      "class=\"to-evals\"", f);
			if (links[r].config) {
				fputs(" data-model=\"", f);
				html_put_text(f, links[r].config);
				fputc('"', f);
			}
			if (links[r].level)
				fprintf(f, " data-level=\"%d\"",
					links[r].level);
			fputs(">evaluations</a></td>", f);
		} else if (links) {
			fputs("<td></td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

static void section(FILE *f, const char *id, const char *title,
		    const char *intro)
{
	fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
	if (intro)
		fprintf(f, "<p>%s</p>\n", intro);
}

/* The claim's configuration (role through the roles file) and level
 * (its own, else its suite's), as report/claims.c reads them. */
static void claim_links(const struct html_input *in, struct claim_link *out,
			size_t n, const struct ledger *l)
{
	const cJSON *models = cJSON_GetObjectItemCaseSensitive(l->roles_doc,
							      "models");
	const cJSON *suites = cJSON_GetObjectItemCaseSensitive(l->roles_doc,
							      "suites");

	(void)in;
	for (size_t i = 0; i < n && i < l->n; i++) {
		const cJSON *p = l->claims[i].params, *v;

		v = cJSON_GetObjectItemCaseSensitive(p, "role");
		if (cJSON_IsString(v))
			out[i].config = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(
					models, v->valuestring));
		v = cJSON_GetObjectItemCaseSensitive(p, "level");
		if (cJSON_IsNumber(v))
			out[i].level = v->valueint;
		v = cJSON_GetObjectItemCaseSensitive(p, "suite");
		if (!out[i].level && cJSON_IsString(v)) {
			v = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(
					suites, v->valuestring), "level");
			if (cJSON_IsNumber(v))
				out[i].level = v->valueint;
		}
	}
}

static void put_claims(struct page *pg, const char *claims_path)
{
	const struct table *t = find_table(pg->in, "claims");
	struct claim_link *links = NULL;
	struct ledger l;
	struct hr_err le;
	size_t n = t ? (size_t)table_rows(t) : 0;

	memset(&l, 0, sizeof(l));
	hr_err_clear(&le);
	if (n && (links = calloc(n, sizeof(*links))) &&
	    ledger_load(&l, claims_path, pg->in->roles_path, &le) == HR_OK)
		claim_links(pg->in, links, n, &l);
	section(pg->f, "claims", "Claims ledger", "Each claim of the paper: "
		"the value it states, the value recomputed from the archive "
		"as reported, and this machine&#39;s replay (faithful, "
		"robust; a speedup counts only when its audit verdict is "
		"verified-faster).  The last column lists the evaluations "
		"behind a claim.");
	put_table(pg, "claims", "Claims: stated, archive, faithful, robust, "
		  "status", links ? links : NULL, links ? n : 0);
	fputs("</section>\n", pg->f);
	ledger_release(&l);
	free(links);
}

/* --- verdict counts ------------------------------------------------------ */

struct vcount {
	const char *verdict;
	size_t n[2];
};

static int vcount_cmp(const void *a, const void *b)
{
	return strcmp(((const struct vcount *)a)->verdict,
		      ((const struct vcount *)b)->verdict);
}

static const char *shown_verdict(const struct replay_result *r)
{
	if (!r || !r->have)
		return "not replayed";
	return r->audit[0] ? r->audit : "no audit verdict";
}

static int put_verdicts(struct page *pg)
{
	const struct html_input *in = pg->in;
	struct vcount *v = calloc(2 * in->rs->n + 2, sizeof(*v));
	size_t nv = 0;
	FILE *f = pg->f;

	if (!v)
		return -1;
	for (size_t i = 0; i < in->es->n; i++) {
		const struct replay_row *rr = replayset_find(
			in->rs, in->es->rows[i].id);

		for (int m = 0; m < 2; m++) {
			const char *name = shown_verdict(
				!rr ? NULL : m ? &rr->robust : &rr->faithful);
			size_t k = 0;

			while (k < nv && strcmp(v[k].verdict, name))
				k++;
			if (k == nv) {
				if (nv == 2 * in->rs->n + 2)
					continue; /* cannot happen */
				v[nv++].verdict = name;
			}
			v[k].n[m]++;
		}
	}
	qsort(v, nv, sizeof(*v), vcount_cmp);
	fputs("<div class=\"scroll\"><table class=\"sortable\" "
	      "id=\"t-verdicts\"><caption>Audit verdicts: evaluations by "
	      "the verdict of their latest replay, per mode</caption>\n"
	      "<thead><tr><th scope=\"col\">verdict</th><th scope=\"col\">"
	      "faithful</th><th scope=\"col\">robust</th></tr></thead>\n"
	      "<tbody>\n", f);
	for (size_t k = 0; k < nv; k++) {
		fputs("<tr><td>", f);
		html_put_text(f, v[k].verdict);
		fprintf(f, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu"
			"</td></tr>\n", v[k].n[0], v[k].n[1]);
	}
	fputs("</tbody></table></div>\n", f);
	free(v);
	return 0;
}

/* --- figures ------------------------------------------------------------- */

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     de->d_name) < sizeof(path))
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* dir/name.svg as a data: image; -1 when it cannot be read. */
static int put_svg(FILE *f, const char *dir, const char *name)
{
	char path[4096];
	unsigned char *buf = NULL, *b64 = NULL;
	FILE *in;
	long n;
	int ok = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.svg", dir, name) >=
	    sizeof(path) || !(in = fopen(path, "rb")))
		return -1;
	if (!fseek(in, 0, SEEK_END) && (n = ftell(in)) > 0 &&
	    !fseek(in, 0, SEEK_SET) && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, in) == (size_t)n &&
	    (b64 = malloc(4 * ((size_t)n / 3 + 1) + 1))) {
		EVP_EncodeBlock(b64, buf, (int)n);
		fprintf(f, "<figure id=\"fig-%s\"><img alt=\"figure %s\" "
			"width=\"900\" height=\"540\" "
			"src=\"data:image/svg+xml;base64,%s\"><figcaption>%s"
			"</figcaption></figure>\n", name, name, b64, name);
		ok = 1;
	}
	fclose(in);
	free(buf);
	free(b64);
	return ok ? 0 : -1;
}

static void put_figures(struct page *pg)
{
	const struct html_input *in = pg->in;
	const char *tmp = getenv("TMPDIR");
	char dir[4096], why[1200] = "";
	struct hr_err fe;
	FILE *f = pg->f;

	section(f, "figures", "Figures", "Drawn by gnuplot from the same "
		"scripts and data as <code>headroom figures</code>.");
	hr_err_clear(&fe);
	snprintf(dir, sizeof(dir), "%s/headroom-html-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!in->scripts_dir) {
		snprintf(why, sizeof(why), "%s", in->no_figures);
	} else if (!mkdtemp(dir)) {
		snprintf(why, sizeof(why), "no temporary folder for them: "
			 "%s", strerror(errno));
	} else {
		if (figures_write_data(dir, in->db, in->es, in->as, in->rs,
				       in->ps, in->ds, in->why_dlrm, in->prov,
				       &fe) ||
		    figures_render(dir, in->scripts_dir, cJSON_GetStringValue(
			    cJSON_GetObjectItemCaseSensitive(in->prov,
							     "date")), &fe))
			snprintf(why, sizeof(why), "%s", fe.msg);
		for (int i = 0; !why[0] && figure_names[i]; i++)
			if (put_svg(f, dir, figure_names[i]))
				snprintf(why, sizeof(why), "%s.svg: cannot "
					 "read what gnuplot drew",
					 figure_names[i]);
		remove_dir(dir);
	}
	if (why[0]) {
		fputs("<p class=\"missing\" id=\"figures-missing\">Figures "
		      "not drawn: ", f);
		html_put_text(f, why);
		fputs("</p>\n", f);
	}
	fputs("</section>\n", f);
}

/* --- evaluations --------------------------------------------------------- */

static const char *yes_no(int v)
{
	return v == 1 ? "yes" : v == 0 ? "no" : "?";
}

static void problem_key(const struct evalrow *r, char *buf, size_t n)
{
	snprintf(buf, n, "L%d P%d %s", r->level, r->problem_id,
		 r->problem_name ? r->problem_name : "");
}

/* Sorted distinct values as <option>s. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int put_options(FILE *f, char **v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(v[i], v[i - 1]))
			continue;
		fputs("<option>", f);
		html_put_text(f, v[i]);
		fputs("</option>", f);
	}
	return 0;
}

static int put_filters(struct page *pg)
{
	const struct evalset *es = pg->in->es;
	char **v = calloc(es->n + 1, sizeof(*v));
	FILE *f = pg->f;
	int bad = !v;

	if (bad)
		return -1;
	fputs("<form id=\"filters\" hidden><fieldset><legend>Filter the "
	      "evaluations</legend>\n<label>model <select name=\"model\">"
	      "<option value=\"\">all</option>", f);
	for (size_t i = 0; i < es->n; i++)
		v[i] = es->rows[i].config;
	put_options(f, v, es->n);
	fputs("</select></label>\n<label>level <select name=\"level\">"
	      "<option value=\"\">all</option>", f);
	for (size_t i = 0; i < es->n; i++)
		if (!i || es->rows[i].level != es->rows[i - 1].level ||
		    strcmp(es->rows[i].config, es->rows[i - 1].config)) {
			int seen = 0;

			for (size_t k = 0; k < i && !seen; k++)
				seen = es->rows[k].level == es->rows[i].level;
			if (!seen)
				fprintf(f, "<option>%d</option>",
					es->rows[i].level);
		}
	fputs("</select></label>\n<label>problem <select name=\"problem\">"
	      "<option value=\"\">all</option>", f);
	for (size_t i = 0; i < es->n && !bad; i++) {
		char key[600];

		problem_key(&es->rows[i], key, sizeof(key));
		bad = !(v[i] = strdup(key));
	}
	if (!bad)
		put_options(f, v, es->n);
	for (size_t i = 0; i < es->n; i++)
		free(v[i]);
	fputs("</select></label>\n<label>verdict <select name=\"verdict\">"
	      "<option value=\"\">all</option>", f);
	for (size_t i = 0; i < es->n; i++)
		v[i] = (char *)shown_verdict(replay_row_shown(replayset_find(
			pg->in->rs, es->rows[i].id)));
	put_options(f, v, es->n);
	fputs("</select></label>\n<button type=\"reset\">show all</button> "
	      "<output id=\"shown\"></output></fieldset></form>\n", f);
	free(v);
	return bad ? -1 : 0;
}

static void put_evaluations(struct page *pg)
{
	const struct evalset *es = pg->in->es;
	FILE *f = pg->f;

	section(f, "evaluations", "Evaluations", "One row per stored "
		"evaluation: the archive&#39;s verdict and speedup, and the "
		"audit verdict of its latest replay (robust, else faithful).  "
		"The id opens its drill-down: code, trials, timings with "
		"intervals, findings with evidence, build log, provenance.");
	put_filters(pg);
	fputs("<div class=\"scroll\"><table class=\"sortable\" "
	      "id=\"t-evaluations\"><caption>Evaluations</caption>\n"
	      "<thead><tr><th scope=\"col\">id</th><th scope=\"col\">"
	      "configuration</th><th scope=\"col\">level</th>"
	      "<th scope=\"col\">problem_id</th><th scope=\"col\">"
	      "problem_name</th><th scope=\"col\">sample_id</th>"
	      "<th scope=\"col\">compiled</th><th scope=\"col\">correct</th>"
	      "<th scope=\"col\">speedup</th><th scope=\"col\">audit</th>"
	      "</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < es->n; i++) {
		const struct evalrow *r = &es->rows[i];
		const char *verdict = shown_verdict(replay_row_shown(
			replayset_find(pg->in->rs, r->id)));
		char key[600];

		problem_key(r, key, sizeof(key));
		fputs("<tr data-model=\"", f);
		html_put_text(f, r->config);
		fprintf(f, "\" data-level=\"%d\" data-problem=\"", r->level);
		html_put_text(f, key);
		fputs("\" data-verdict=\"", f);
		html_put_text(f, verdict);
		fprintf(f, "\"><td class=\"n\"><a href=\"#eval-%lld\">%lld"
			"</a></td><td>", (long long)r->id, (long long)r->id);
		html_put_text(f, r->config);
		fprintf(f, "</td><td class=\"n\">%d</td><td class=\"n\">%d"
			"</td><td>", r->level, r->problem_id);
		html_put_text(f, r->problem_name);
		fprintf(f, "</td><td class=\"n\">%d</td><td>%s</td><td>%s"
			"</td><td class=\"n\">", r->sample_id,
			yes_no(r->compiled), yes_no(r->correct));
		if (!isnan(r->speedup))
			fprintf(f, "%.4g", r->speedup);
		fputs("</td><td>", f);
		html_put_text(f, verdict);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n</section>\n", f);
	fputs("<section id=\"detail\" hidden aria-live=\"polite\">"
	      "</section>\n", f);
}

/* --- drill-down data ----------------------------------------------------- */

static void add_num(cJSON *o, const char *k, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, v);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static void add_tri(cJSON *o, const char *k, int v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, v);
}

static int add_replay(struct evaldetail *ed, cJSON *replays,
		      const char *mode, const struct replay_result *res,
		      struct hr_err *e)
{
	cJSON *o = cJSON_AddObjectToObject(replays, mode);
	cJSON *fj;

	if (!o)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	add_str(o, "audit_verdict", res->audit[0] ? res->audit : NULL);
	fj = res->findings_json ? cJSON_Parse(res->findings_json) : NULL;
	if (fj) {
		cJSON *why = cJSON_DetachItemFromObjectCaseSensitive(fj,
								     "why");
		cJSON *ev = cJSON_DetachItemFromObjectCaseSensitive(
			fj, "evidence");
		cJSON *sig = cJSON_DetachItemFromObjectCaseSensitive(
			fj, "signals");

		cJSON_AddItemToObject(o, "why", why ? why :
				      cJSON_CreateNull());
		cJSON_AddItemToObject(o, "evidence", ev ? ev :
				      cJSON_CreateArray());
		cJSON_AddItemToObject(o, "signals", sig ? sig :
				      cJSON_CreateNull());
		cJSON_Delete(fj);
	}
	add_tri(o, "correct", res->correct);
	add_tri(o, "scale_invariant", res->scale_invariant);
	add_num(o, "own_share", res->own_share);
	add_str(o, "tolerance", res->tolerance[0] ? res->tolerance : NULL);
	return evaldetail_job(ed, res->job_id, o, e);
}

static int eval_json(struct page *pg, struct evaldetail *ed, size_t i,
		     cJSON **out, struct hr_err *e)
{
	const struct evalrow *r = &pg->in->es->rows[i];
	const struct replay_row *rr = replayset_find(pg->in->rs, r->id);
	cJSON *o = cJSON_CreateObject(), *fa, *rp;

	*out = o;
	if (!o)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	cJSON_AddNumberToObject(o, "id", (double)r->id);
	add_str(o, "configuration", r->config);
	add_str(o, "model", r->model);
	add_str(o, "source", r->source);
	cJSON_AddNumberToObject(o, "level", r->level);
	cJSON_AddNumberToObject(o, "problem_id", r->problem_id);
	add_str(o, "problem_name", r->problem_name);
	cJSON_AddNumberToObject(o, "sample_id", r->sample_id);
	add_tri(o, "compiled", r->compiled);
	add_tri(o, "correct", r->correct);
	add_num(o, "speedup", r->speedup);
	add_str(o, "precision", r->precision);
	add_str(o, "harness", r->harness);
	add_num(o, "atol", r->atol);
	if (evaldetail_eval(ed, r->id, o, e))
		return e->code;
	if (!(fa = cJSON_AddArrayToObject(o, "findings")))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	for (size_t k = pg->first[i]; k != SIZE_MAX; k = pg->next[k]) {
		const struct finding *fd = &pg->in->fl->items[k];
		cJSON *x = cJSON_CreateObject();

		if (!x || !cJSON_AddItemToArray(fa, x))
			return hr_errf(e, HR_SYSTEM, "out of memory");
		add_str(x, "finding", fd->type);
		add_str(x, "kernel", fd->kernel[0] ? fd->kernel : NULL);
		add_str(x, "evidence", fd->evidence);
	}
	if (!(rp = cJSON_AddObjectToObject(o, "replays")))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (rr && rr->faithful.have &&
	    add_replay(ed, rp, hr_mode_name(MODE_FAITHFUL), &rr->faithful, e))
		return e->code;
	if (rr && rr->robust.have &&
	    add_replay(ed, rp, hr_mode_name(MODE_ROBUST), &rr->robust, e))
		return e->code;
	return HR_OK;
}

/* {"modes": [the replay modes, vocab.def's order], "evaluations": {"ID":
 * {...}, ...}}, one evaluation at a time so that memory stays one
 * evaluation's. */
static int put_data(struct page *pg, struct hr_err *e)
{
	const struct evalset *es = pg->in->es;
	struct evaldetail ed;
	FILE *f = pg->f;

	if (evaldetail_open(&ed, pg->in->db, e)) {
		evaldetail_close(&ed);
		return e->code;
	}
	fputs("<script type=\"application/json\" id=\"hr-data\">"
	      "{\"modes\":[", f);
	for (int m = 0; m < HR_NMODES; m++)
		fprintf(f, "%s\"%s\"", m ? "," : "", hr_mode_name((enum hr_mode)m));
	fputs("],\"evaluations\":{", f);
	for (size_t i = 0; i < es->n && !e->code; i++) {
		cJSON *o = NULL;
		char *txt = NULL;

		if (eval_json(pg, &ed, i, &o, e) == HR_OK &&
		    !(txt = cJSON_PrintUnformatted(o)))
			hr_errf(e, HR_SYSTEM, "out of memory");
		if (txt) {
			fprintf(f, "%s\"%lld\":", i ? "," : "",
				(long long)es->rows[i].id);
			html_put_script_json(f, txt);
		}
		cJSON_free(txt);
		cJSON_Delete(o);
	}
	fputs("}}</script>\n", f);
	evaldetail_close(&ed);
	return e->code;
}

/* Findings of each evaluation, as lists through first[] and next[]. */
static int index_findings(struct page *pg)
{
	const struct html_input *in = pg->in;
	size_t *last;

	pg->first = malloc((in->es->n + 1) * sizeof(size_t));
	pg->next = malloc((in->fl->n + 1) * sizeof(size_t));
	last = malloc((in->es->n + 1) * sizeof(size_t));
	if (!pg->first || !pg->next || !last) {
		free(last);
		return -1;
	}
	for (size_t i = 0; i < in->es->n; i++)
		pg->first[i] = last[i] = SIZE_MAX;
	for (size_t k = 0; k < in->fl->n; k++) {
		size_t i = (size_t)(in->fl->items[k].eval - in->es->rows);

		pg->next[k] = SIZE_MAX;
		if (i >= in->es->n)
			continue;
		if (last[i] == SIZE_MAX)
			pg->first[i] = k;
		else
			pg->next[last[i]] = k;
		last[i] = k;
	}
	free(last);
	return 0;
}

/* --- the page ------------------------------------------------------------ */

static const char *const nav[][2] = {
	{ "claims", "Claims" }, { "models", "Models" },
	{ "problems", "Problems" }, { "audit", "Audit" },
	{ "replay", "Replay" }, { "profiles", "Profiles and DLRM-Bench" },
	{ "figures", "Figures" }, { "evaluations", "Evaluations" },
	{ "provenance", "Provenance" },
};

static int put_page(struct page *pg, const char *claims_path,
		    struct hr_err *e)
{
	FILE *f = pg->f;
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	provenance_write_line(pg->in->prov, "provenance:", "", m);
	fclose(m);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
	      "content=\"width=device-width, initial-scale=1\">\n"
	      "<title>headroom audit</title>\n<style>\n", f);
	fputs(html_css, f);
	fputs("</style>\n</head>\n<body>\n<header>\n<h1>headroom audit</h1>\n"
	      "<p class=\"prov\" id=\"prov\">", f);
	html_put_text(f, line);
	free(line);
	fputs("</p>\n<nav aria-label=\"sections\"><ul>", f);
	for (size_t i = 0; i < sizeof(nav) / sizeof(nav[0]); i++)
		fprintf(f, "<li><a href=\"#%s\">%s</a></li>", nav[i][0],
			nav[i][1]);
	fputs("</ul></nav>\n</header>\n<main>\n", f);

	put_claims(pg, claims_path);
	section(f, "models", "Models", "Per model configuration and level: "
		"evaluations, compiled, correct (original and "
		"scale-invariant checks), speedups above 1, median speedup "
		"of winners, convolutions solved.");
	put_table(pg, "models", "Models", NULL, 0);
	fputs("</section>\n", f);
	section(f, "problems", "Problem audit", "Per problem: the reference "
		"output&#39;s magnitude and the tolerance presets under "
		"which zeros (z), a constant (c) or an input (i) already "
		"passes the original check: vacuous problems and their "
		"gates.");
	put_table(pg, "problems", "Problems", NULL, 0);
	fputs("</section>\n", f);
	section(f, "audit", "Audit", NULL);
	if (put_verdicts(pg))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	fputs("<h3>Evidence: what the replay&#39;s checks found</h3>\n", f);
	put_table(pg, "evidence", "Evidence findings per replayed kernel "
		  "and mode", NULL, 0);
	fputs("<h3>Signals: static rules over the source (never part of "
	      "a verdict)</h3>\n", f);
	put_table(pg, "signals", "Signals", NULL, 0);
	fputs("<h3>Findings: what the archive alone shows</h3>\n", f);
	put_table(pg, "findings", "Findings", NULL, 0);
	fputs("<h3>Detection: the planted suite</h3>\n", f);
	put_table(pg, "detection", "Detection", NULL, 0);
	fputs("</section>\n", f);
	section(f, "replay", "Replay", "Per correct timed evaluation: "
		"reported against replayed speedup, the robust interval, "
		"status and the tolerance behind it.");
	put_table(pg, "replay", "Replay", NULL, 0);
	fputs("</section>\n", f);
	section(f, "profiles", "Profiles and DLRM-Bench", NULL);
	put_table(pg, "profiles", "Profiles: GPU time by kernel class, "
		  "addressable fraction, projection", NULL, 0);
	put_table(pg, "dlrm", "DLRM-Bench: weights, speedups, projection",
		  NULL, 0);
	fputs("</section>\n", f);
	put_figures(pg);
	put_evaluations(pg);
	section(f, "provenance", "Provenance", NULL);
	put_table(pg, "provenance", "Where the numbers come from", NULL, 0);
	fputs("</section>\n</main>\n", f);
	if (put_data(pg, e))
		return e->code;
	fputs("<script>\n", f);
	fputs(html_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
	return HR_OK;
}

int html_write_file(const struct html_input *in, const char *path,
		    struct hr_err *e)
{
	struct page pg = { in, NULL, NULL, NULL };
	char tmp[4096];
	int bad;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return hr_errf(e, HR_INPUT, "--out %s: path too long", path);
	if (index_findings(&pg)) {
		free(pg.first);
		free(pg.next);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	if (!(pg.f = fopen(tmp, "w"))) {
		free(pg.first);
		free(pg.next);
		return hr_errf(e, HR_SYSTEM, "%s: %s", tmp, strerror(errno));
	}
	put_page(&pg, in->claims_path, e);
	bad = ferror(pg.f);
	if (fclose(pg.f) || bad)
		hr_errf(e, HR_SYSTEM, "%s: write error", tmp);
	if (!e->code && rename(tmp, path))
		hr_errf(e, HR_SYSTEM, "%s: %s", path, strerror(errno));
	if (e->code)
		unlink(tmp);
	free(pg.first);
	free(pg.next);
	return e->code;
}
