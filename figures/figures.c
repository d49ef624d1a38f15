/* figures.c - see figures.h. */
#include "figures.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../readmodel/metrics.h"
#include "../report/provenance.h"

const char *const figure_names[] = {
	"speedup_cdf", "correctness", "ref_magnitude", "reported_vs_replayed",
	"coverage", "addressable", "amdahl", "dlrm", NULL,
};

const char *const figure_support[] = { "style", "render", NULL };

struct datafile {
	FILE *f;
	char path[4096];
	int rows, blocks;
};

static int open_data(struct datafile *d, const char *dir, const char *name,
		     const char *ext, const cJSON *prov, struct hr_err *e)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s/%s.%s", dir, name, ext);
	if (!(d->f = fopen(d->path, "w")))
		return hr_errf(e, HR_SYSTEM, "%s: %s", d->path,
			       strerror(errno));
	if (prov)
		provenance_write_line(prov, "# provenance:", "\n", d->f);
	return HR_OK;
}

static int close_data(struct datafile *d, struct hr_err *e)
{
	int bad = ferror(d->f);

	if (fclose(d->f) || bad)
		return hr_errf(e, HR_SYSTEM, "%s: write error", d->path);
	return HR_OK;
}

/* <name>.cfg: the facts a script branches on, as gnuplot assignments. */
static int write_cfg(const char *dir, const char *name, int rows, int blocks,
		     const char *extra, struct hr_err *e)
{
	struct datafile c;

	if (open_data(&c, dir, name, "cfg", NULL, e))
		return e->code;
	fprintf(c.f, "rows = %d\nblocks = %d\n%s", rows, blocks,
		extra ? extra : "");
	return close_data(&c, e);
}

/* gnuplot strings in double quotes: escape what would end or break one. */
static void gp_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('"', f);
}

/* Width of a footer line in characters: DejaVu Sans' digits are 0.64 em
 * wide, so 110 hex digits at the PDF's footer size (5.5 pt) fill 390 of
 * its 450 pt (figures/render.gp). */
#define FOOTER_COLUMNS 110

/* s as a gnuplot string of lines of at most `width` characters, broken
 * at spaces (a longer word stands alone), joined by "\n".  Returns the
 * number of lines. */
static int gp_string_wrapped(FILE *f, const char *s, size_t width)
{
	int lines = 0;

	fputc('"', f);
	while (*s) {
		size_t rest, cut;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		/* the rest of the line if it fits, else up to its last space
		 * that does, else (a word longer than width) that word */
		rest = cut = strcspn(s, "\n");
		if (rest > width) {
			cut = 0;
			for (size_t i = 1; i <= width; i++)
				if (s[i] == ' ')
					cut = i;
			if (!cut)
				cut = strcspn(s, " \n");
		}
		fputs(lines++ ? "\\n" : "", f);
		for (size_t i = 0; i < cut; i++) {
			if (s[i] == '"' || s[i] == '\\')
				fputc('\\', f);
			fputc(s[i], f);
		}
		s += cut;
		if (*s == '\n')
			s++;
	}
	fputc('"', f);
	return lines;
}

/* In place: every "sha256:" and 64 hex digits of s shortened to its
 * first FOOTER_SHA digits and "...", so that a store of many sources
 * keeps a footer of a few lines; provenance.json beside the figures and
 * each NAME.dat's provenance line hold the digests in full. */
#define FOOTER_SHA 16
static void shorten_digests(char *s)
{
	char *w = s;

	while (*s) {
		if (!strncmp(s, "sha256:", 7) &&
		    strspn(s + 7, "0123456789abcdef") >= 64) {
			memmove(w, s, 7 + FOOTER_SHA);
			w += 7 + FOOTER_SHA;
			memcpy(w, "...", 3);
			w += 3;
			s += 7 + 64;
			continue;
		}
		*w++ = *s++;
	}
	*w = '\0';
}

/* provenance.cfg: the provenance line as every figure's footer (style.gp
 * draws it below the plot), wrapped, and its number of lines. */
static int write_footer(const char *dir, const cJSON *prov,
			struct hr_err *e)
{
	struct datafile c;
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	int n, bad;

	if (!m)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	bad = prov ? provenance_write_line(prov, "provenance:", "", m) :
		fputs("provenance: unknown", m) < 0;
	if (fclose(m) || bad) {
		free(line);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	shorten_digests(line);
	if (open_data(&c, dir, "provenance", "cfg", NULL, e)) {
		free(line);
		return e->code;
	}
	fputs("footer = ", c.f);
	n = gp_string_wrapped(c.f, line, FOOTER_COLUMNS);
	fprintf(c.f, "\nfooter_lines = %d\n", n);
	free(line);
	return close_data(&c, e);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int write_speedup_cdf(const char *dir, const struct evalset *es,
			     const cJSON *prov, struct hr_err *e)
{
	struct datafile d;
	double *v = malloc((es->n ? es->n : 1) * sizeof(*v));
	char title[600];

	if (!v)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (open_data(&d, dir, "speedup_cdf", "dat", prov, e)) {
		free(v);
		return e->code;
	}
	for (size_t c = 0; c < es->nconfigs; c++) {
		size_t n = 0;

		for (size_t i = 0; i < es->n; i++) {
			const struct evalrow *r = &es->rows[i];

			if (!strcmp(r->config, es->configs[c]) &&
			    r->sample_id == 0 && r->correct == 1 &&
			    !isnan(r->speedup) && r->speedup > 0)
				v[n++] = r->speedup;
		}
		if (n == 0)
			continue;
		qsort(v, n, sizeof(*v), cmp_double);
		fputs(d.blocks ? "\n\n" : "", d.f);
		/* The block's title is its legend entry: the configuration
		 * and how many problems its curve is drawn from. */
		snprintf(title, sizeof(title), "%s (n = %zu)", es->configs[c],
			 n);
		gp_string(d.f, title);
		fputs(" \"\"\n", d.f);
		for (size_t i = 0; i < n; i++)
			fprintf(d.f, "%.6g %.6g\n", v[i],
				(double)(i + 1) / (double)n);
		d.rows += (int)n;
		d.blocks++;
	}
	free(v);
	if (close_data(&d, e))
		return e->code;
	/* configurations without a timed correct problem draw no curve:
	 * the key says how many of all are drawn */
	snprintf(title, sizeof(title), "configs = %zu\n", es->nconfigs);
	return write_cfg(dir, "speedup_cdf", d.rows, d.blocks, title, e);
}

/* How many of a configuration's evaluations the robust replay ran. */
static size_t replayed_rows(const struct replayset *rs,
			    const struct evalset *es, const char *config)
{
	size_t n = 0;

	for (size_t i = 0; i < es->n; i++) {
		const struct replay_row *rr;

		if (strcmp(es->rows[i].config, config))
			continue;
		rr = replayset_find(rs, es->rows[i].id);
		n += rr && rr->robust.have;
	}
	return n;
}

static int write_correctness(const char *dir, sqlite3 *db,
			     const struct evalset *es,
			     const struct replayset *rs, const cJSON *prov,
			     struct hr_err *e)
{
	struct datafile d;
	struct evalset robust;
	int have_robust, rc = HR_OK;

	if (open_data(&d, dir, "correctness", "dat", prov, e))
		return e->code;
	/* The robust replay's view, once for every configuration. */
	have_robust = rs->n > 0 && !replayset_view(rs, es, 1, &robust);
	fputs("# configuration original_pct scale_invariant_pct\n", d.f);
	for (size_t c = 0; c < es->nconfigs; c++) {
		struct eval_filter f = { es->configs[c], 0, NULL };
		struct config_stats cs;
		size_t nprob = 0;

		/* The models table's denominator: the problem set's size at
		 * the configuration's level. */
		for (size_t i = 0; i < es->n; i++)
			if (!strcmp(es->rows[i].config, es->configs[c])) {
				f.level = es->rows[i].level;
				break;
			}
		if (evalset_dataset_problems(db, f.level, &nprob, e)) {
			rc = e->code;
			break;
		}
		if (evalset_stats(es, &f, nprob, &cs)) {
			rc = hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
		gp_string(d.f, es->configs[c]);
		fprintf(d.f, " %.4g", isnan(cs.correct_rate) ? 0.0 :
			cs.correct_rate);
		/* Scale-invariant: the robust replay's verdicts (original and
		 * scale-invariant checks both passed). */
		if (have_robust && replayed_rows(rs, es, es->configs[c])) {
			if (evalset_stats(&robust, &f, nprob, &cs)) {
				rc = hr_errf(e, HR_SYSTEM, "out of memory");
				break;
			}
			fprintf(d.f, " %.4g\n", isnan(cs.correct_rate) ? 0.0 :
				cs.correct_rate);
		} else {
			fputs(" NaN\n", d.f);
		}
		d.rows++;
	}
	if (have_robust)
		replayset_view_release(&robust);
	if (rc) {
		fclose(d.f);
		return rc;
	}
	if (close_data(&d, e))
		return e->code;
	return write_cfg(dir, "correctness", d.rows, 1, rs->n ?
			 "have_scale_invariant = 1\n" :
			 "have_scale_invariant = 0\n", e);
}

/* ref_magnitude's y range on its log axis: whole decades, from one below
 * the smallest bar (and the 1e-4 line) to a whole decade above the largest
 * bar (and the 1e-2 line) -- the power of ten above it, and one more: a
 * bar of 999990 under a top of 1e6 touched the frame -- so every bar and
 * both lines fit with room above.
 * An all-zero reference (max |ref| 0, no place on a log axis) is drawn at
 * the bottom of the range and labelled 0. */
static int write_ref_magnitude(const char *dir, const struct auditset *as,
			       const cJSON *prov, struct hr_err *e)
{
	struct datafile d;
	char label[64], extra[128];
	double lo = 1e-4, hi = 1e-2, ymin, ymax;

	for (size_t i = 0; i < as->n; i++) {
		double v = as->rows[i].max_abs_ref;

		if (isnan(v) || v <= 0 || isinf(v))
			continue;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	ymin = pow(10.0, floor(log10(lo)) - 1.0);
	ymax = pow(10.0, ceil(log10(hi)) + 1.0);
	if (open_data(&d, dir, "ref_magnitude", "dat", prov, e))
		return e->code;
	fputs("# index max_abs_ref label drawn_at (max_abs_ref, or the "
	      "bottom of the range for 0)\n", d.f);
	for (size_t i = 0; i < as->n; i++) {
		const struct audit_row *a = &as->rows[i];
		double v = a->max_abs_ref;

		if (isnan(v))
			continue;
		snprintf(label, sizeof(label), "L%d-%d", a->level,
			 a->problem_id);
		fprintf(d.f, "%d %.6g ", ++d.rows, v);
		gp_string(d.f, label);
		fprintf(d.f, " %.6g\n", v > 0 ? v : ymin);
	}
	if (close_data(&d, e))
		return e->code;
	snprintf(extra, sizeof(extra), "ymin = %.0e\nymax = %.0e\n", ymin,
		 ymax);
	return write_cfg(dir, "ref_magnitude", d.rows, 1, extra, e);
}

/* Output coverage: one row per evaluation whose replay (replay_row_shown:
 * the robust mode's latest job, else the faithful mode's) holds a
 * partial-write finding, with the % of its output the kernel wrote,
 * 100 (1 - fraction_unwritten).  coverage.cfg's why says what the
 * placeholder shows: no replay, or no flagged job. */
static int write_coverage(const char *dir, const struct evalset *es,
			  const struct replayset *rs, const cJSON *prov,
			  struct hr_err *e)
{
	struct datafile d, c;
	char label[600], why[128];

	if (open_data(&d, dir, "coverage", "dat", prov, e))
		return e->code;
	fputs("# index coverage_pct kernel mode: one row per evaluation whose "
	      "replay (the robust mode's latest job, else the faithful "
	      "mode's) holds a partial-write finding; coverage_pct = "
	      "100 (1 - fraction_unwritten)\n", d.f);
	for (size_t i = 0; i < es->n; i++) {
		const struct evalrow *r = &es->rows[i];
		const struct replay_row *rr = replayset_find(rs, r->id);
		const struct replay_result *res = replay_row_shown(rr);
		double u = replay_result_unwritten(res);

		if (!res || u < 0)
			continue;
		snprintf(label, sizeof(label), "%s L%d-%d s%d", r->config,
			 r->level, r->problem_id, r->sample_id);
		/* NaN: the finding gives no fraction (the bar is missing) */
		if (isnan(u))
			fprintf(d.f, "%d NaN ", ++d.rows);
		else
			fprintf(d.f, "%d %.6g ", ++d.rows, 100.0 * (1.0 - u));
		gp_string(d.f, label);
		fputs(res == &rr->robust ? " robust\n" : " faithful\n", d.f);
	}
	if (close_data(&d, e) ||
	    open_data(&c, dir, "coverage", "cfg", NULL, e))
		return e->code;
	snprintf(why, sizeof(why), "none of the %zu replayed evaluations has "
		 "a partial-write finding", rs->n);
	fprintf(c.f, "rows = %d\nblocks = %d\nwhy = ", d.rows, d.rows > 0);
	gp_string(c.f, rs->n == 0 ? "no replay results: run 'headroom "
		  "replay'" : d.rows ? "" : why);
	fputc('\n', c.f);
	return close_data(&c, e);
}

/* Stacked bars: per profile, its GPU time by kernel class (% of the
 * summed activity time), and the addressable fraction in the label. */
static int write_addressable(const char *dir, const struct profileset *ps,
			     const cJSON *prov, struct hr_err *e)
{
	struct datafile d;

	if (open_data(&d, dir, "addressable", "dat", prov, e))
		return e->code;
	fputs("index label", d.f);
	for (int c = 0; c < KC_COUNT; c++)
		fprintf(d.f, " %s", kclass_name((enum kclass)c));
	fputs(" addressable\n", d.f);
	for (size_t i = 0; i < ps->n; i++) {
		const struct profile_row *r = &ps->rows[i];
		char label[256];

		if (r->kernel_ns <= 0)
			continue;
		snprintf(label, sizeof(label), "%s%s%s (%.1f %%)", r->workload,
			 r->stack ? "/" : "", r->stack ? r->stack : "",
			 100.0 * profile_addressable(r));
		fprintf(d.f, "%d ", ++d.rows);
		gp_string(d.f, label);
		for (int c = 0; c < KC_COUNT; c++)
			fprintf(d.f, " %.4f", 100.0 *
				profile_share(r, (enum kclass)c));
		fprintf(d.f, " %.4f\n", 100.0 * profile_addressable(r));
	}
	if (close_data(&d, e))
		return e->code;
	return write_cfg(dir, "addressable", d.rows, 1, NULL, e);
}

/* Per profile, the time saved f (1 - 1/s) when every addressable kernel
 * runs s times faster (its bound f is the limit); and, where verified
 * speedups give a projection R, the point at the speedup s = f / (f - R)
 * that the addressable time as a whole would need to save R. */
static int write_amdahl(const char *dir, const struct profileset *ps,
			const cJSON *prov, struct hr_err *e)
{
	struct datafile d;
	int points = 0, rows, blocks;
	char extra[64];

	if (open_data(&d, dir, "amdahl", "dat", prov, e))
		return e->code;
	for (size_t i = 0; i < ps->n; i++) {
		const struct profile_row *r = &ps->rows[i];
		double f = profile_addressable(r);
		char title[256];

		if (r->kernel_ns <= 0)
			continue;
		snprintf(title, sizeof(title), "%s%s%s: f %.1f %%, bound %.3fx",
			 r->workload, r->stack ? "/" : "",
			 r->stack ? r->stack : "", 100.0 * f,
			 f < 1 ? 1.0 / (1.0 - f) : INFINITY);
		fputs(d.blocks ? "\n\n" : "", d.f);
		gp_string(d.f, title);
		fputs(" \"\"\n", d.f);
		for (int k = 0; k <= 60; k++) {
			double s = 1.0 + k * 0.05;

			fprintf(d.f, "%.2f %.6g\n", s, 100.0 * f *
				(1.0 - 1.0 / s));
		}
		d.blocks++;
		d.rows += 61;
	}
	rows = d.rows;
	blocks = d.blocks;
	if (close_data(&d, e) ||
	    open_data(&d, dir, "amdahl_point", "dat", prov, e))
		return e->code;
	fputs("# s_effective time_saved_pct (from verified speedups)\n", d.f);
	for (size_t i = 0; i < ps->n; i++) {
		const struct profile_row *r = &ps->rows[i];
		double f = profile_addressable(r);

		if (isnan(r->projected) || !(r->projected > 0) ||
		    !(f > r->projected))
			continue;
		fprintf(d.f, "%.6g %.6g\n", f / (f - r->projected),
			100.0 * r->projected);
		points++;
	}
	if (close_data(&d, e))
		return e->code;
	snprintf(extra, sizeof(extra), "points = %d\n", points);
	return write_cfg(dir, "amdahl", rows, blocks, extra, e);
}

static int write_replayed(const char *dir, const struct evalset *es,
			  const struct replayset *rs, const cJSON *prov,
			  struct hr_err *e)
{
	struct datafile d;

	if (open_data(&d, dir, "reported_vs_replayed", "dat", prov, e))
		return e->code;
	fputs("# reported robust ci_low ci_high (correct, timed, replayed)\n",
	      d.f);
	for (size_t i = 0; i < es->n; i++) {
		const struct evalrow *r = &es->rows[i];
		const struct replay_row *rr = replayset_find(rs, r->id);

		if (r->correct != 1 || isnan(r->speedup) || !rr ||
		    !rr->robust.have || isnan(rr->robust.speedup))
			continue;
		fprintf(d.f, "%.6g %.6g %.6g %.6g\n", r->speedup,
			rr->robust.speedup,
			isnan(rr->robust.ci_low) ? rr->robust.speedup :
			rr->robust.ci_low,
			isnan(rr->robust.ci_high) ? rr->robust.speedup :
			rr->robust.ci_high);
		d.rows++;
	}
	if (close_data(&d, e))
		return e->code;
	return write_cfg(dir, "reported_vs_replayed", d.rows, 1, NULL, e);
}

/* DLRM-Bench: per problem, the speedup that counts in the projection
 * (s_i': a verified win's robust speedup, else 1) and the archive's, one
 * block per configuration (x offset by block), the problems' weights w_i
 * (%) on the second axis, and each configuration's R in its title. */
static int write_dlrm(const char *dir, const struct dlrmset *ds,
		      const char *why, const cJSON *prov, struct hr_err *e)
{
	struct datafile d;
	char title[512], extra[1024];
	int rows = 0;
	size_t wins = 0;

	if (open_data(&d, dir, "dlrm", "dat", prov, e))
		return e->code;
	for (size_t i = 0; ds && i < ds->n; i++) {
		const struct dlrmset_config *c = &ds->c[i];
		const struct dlrm_projection *p = &c->verified;

		if (ds->have_weights)
			snprintf(title, sizeof(title), "%s: R %.2f %% (%zu "
				 "verified wins of %zu; equal shares: %.2f %%)",
				 c->config, 100.0 * p->reduction, p->wins,
				 p->problems, isnan(p->simplified) ? 0.0 :
				 100.0 * p->simplified);
		else
			snprintf(title, sizeof(title), "%s: %zu verified wins "
				 "of %zu", c->config, p->wins, p->problems);
		fputs(d.blocks ? "\n\n" : "", d.f);
		gp_string(d.f, title);
		fputs(" \"\" \"\" \"\" \"\"\n", d.f);
		for (size_t k = 0; k < ds->map.n; k++) {
			const struct dlrmset_problem *q = &c->p[k];

			fprintf(d.f, "%zu ", k + 1);
			gp_string(d.f, q->problem);
			fprintf(d.f, " %.4f %.6g %.6g\n",
				isnan(q->weight) ? 0.0 : 100.0 * q->weight,
				q->verified ? q->robust_speedup : 1.0,
				isnan(q->archive_speedup) ? 0.0 :
				q->archive_speedup);
			rows++;
		}
		d.blocks++;
	}
	if (close_data(&d, e))
		return e->code;
	snprintf(extra, sizeof(extra), "have_weights = %d\nwhy = ",
		 ds && ds->have_weights);
	for (size_t i = 0; ds && i < ds->n; i++)
		wins += ds->c[i].verified.wins;
	{
		struct datafile c;

		if (open_data(&c, dir, "dlrm", "cfg", NULL, e))
			return e->code;
		fprintf(c.f, "rows = %d\nblocks = %d\n%s", rows, d.blocks,
			extra);
		gp_string(c.f, !ds ? why : ds->n == 0 ?
			  "no DLRM-Bench evaluation stored" :
			  !ds->have_weights ? ds->why_weights : "");
		/* What the plot must say of its own bars and weights. */
		fputs("\nworkload = ", c.f);
		gp_string(c.f, ds && ds->workload ? ds->workload : "");
		fputs("\nnote = ", c.f);
		gp_string(c.f, !ds || !ds->n ? "" : !ds->have_weights ?
			  "no weights: the bars alone, no projection" :
			  !wins ? "no verified-faster job yet: every bar is "
			  "the default 1x (a robust replay on a GPU gives "
			  "the speedups)" : "");
		fputc('\n', c.f);
		return close_data(&c, e);
	}
}

int figures_write_data(const char *dir, sqlite3 *db,
		       const struct evalset *es, const struct auditset *as,
		       const struct replayset *rs,
		       const struct profileset *ps, const struct dlrmset *ds,
		       const char *why_dlrm, const cJSON *prov,
		       struct hr_err *e)
{
	return write_footer(dir, prov, e) ||
		write_speedup_cdf(dir, es, prov, e) ||
		write_correctness(dir, db, es, rs, prov, e) ||
		write_ref_magnitude(dir, as, prov, e) ||
		write_replayed(dir, es, rs, prov, e) ||
		write_coverage(dir, es, rs, prov, e) ||
		write_addressable(dir, ps, prov, e) ||
		write_amdahl(dir, ps, prov, e) ||
		write_dlrm(dir, ds, why_dlrm, prov, e) ? e->code : HR_OK;
}

/* --- rendering ----------------------------------------------------------- */

static int read_all(const char *path, char **buf, size_t *len,
		    struct hr_err *e)
{
	FILE *f = fopen(path, "rb");
	long n;

	*buf = NULL;
	if (!f)
		return hr_errf(e, HR_INPUT, "%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(*buf = malloc((size_t)n + 1)) ||
	    fread(*buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(*buf);
		*buf = NULL;
		return hr_errf(e, HR_SYSTEM, "%s: cannot read", path);
	}
	fclose(f);
	*len = (size_t)n;
	return HR_OK;
}

static int write_all(const char *path, const char *buf, size_t len,
		     struct hr_err *e)
{
	FILE *f = fopen(path, "wb");
	int bad;

	if (!f)
		return hr_errf(e, HR_SYSTEM, "%s: %s", path, strerror(errno));
	bad = fwrite(buf, 1, len, f) != len;
	if (fclose(f) || bad)
		return hr_errf(e, HR_SYSTEM, "%s: write error", path);
	return HR_OK;
}

static int copy_script(const char *from_dir, const char *to_dir,
		       const char *name, struct hr_err *e)
{
	char from[4096], to[4096], *buf;
	size_t len;

	snprintf(from, sizeof(from), "%s/%s.gp", from_dir, name);
	snprintf(to, sizeof(to), "%s/%s.gp", to_dir, name);
	if (read_all(from, &buf, &len, e))
		return e->code;
	write_all(to, buf, len, e);
	free(buf);
	return e->code;
}

/* Run gnuplot -d NAME.gp with dir as working directory; no shell. */
static int run_gnuplot(const char *dir, const char *name, struct hr_err *e)
{
	char script[512], log[4096];
	pid_t pid;
	int status, fd;

	snprintf(script, sizeof(script), "%s.gp", name);
	snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
	if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		       0666)) < 0)
		return hr_errf(e, HR_SYSTEM, "%s: %s", log, strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd);
		return hr_errf(e, HR_SYSTEM, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		char *argv[] = { "gnuplot", "-d", script, NULL };

		if (chdir(dir) || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return hr_errf(e, HR_SYSTEM, "waitpid: %s",
				       strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return hr_errf(e, HR_SYSTEM, "gnuplot not found; install it "
			       "(Debian: apt-get install gnuplot-nox)");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return hr_errf(e, HR_SYSTEM, "gnuplot failed on %s/%s (see "
			       "%s)", dir, script, log);
	return HR_OK;
}

int figures_pdf_fix_dates(char *buf, size_t len, const char *date)
{
	static const char *const keys[] = { "/CreationDate (D:",
					    "/ModDate (D:" };
	char digits[15];
	int n = 0, k = 0;

	/* 2026-01-01T00:00:00Z -> 20260101000000 */
	for (const char *p = date; *p && k < 14; p++)
		if (*p >= '0' && *p <= '9')
			digits[k++] = *p;
	if (k != 14)
		return 0;
	for (int i = 0; i < 2; i++) {
		size_t kl = strlen(keys[i]);

		for (size_t at = 0; at + kl + 14 <= len; at++) {
			if (memcmp(buf + at, keys[i], kl))
				continue;
			memcpy(buf + at + kl, digits, 14);
			n++;
		}
	}
	return n;
}

static int fix_pdf(const char *dir, const char *name, const char *date,
		   struct hr_err *e)
{
	char path[4096], *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s.pdf", dir, name);
	if (access(path, F_OK))
		return HR_OK; /* this gnuplot has no pdfcairo */
	if (read_all(path, &buf, &len, e))
		return e->code;
	if (figures_pdf_fix_dates(buf, len, date))
		write_all(path, buf, len, e);
	free(buf);
	return e->code;
}

int figures_render(const char *dir, const char *scripts_dir,
		   const char *date, struct hr_err *e)
{
	char log[4096];

	snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
	unlink(log);
	for (int i = 0; figure_support[i]; i++)
		if (copy_script(scripts_dir, dir, figure_support[i], e))
			return e->code;
	for (int i = 0; figure_names[i]; i++)
		if (copy_script(scripts_dir, dir, figure_names[i], e) ||
		    run_gnuplot(dir, figure_names[i], e) ||
		    fix_pdf(dir, figure_names[i], date, e))
			return e->code;
	return HR_OK;
}
