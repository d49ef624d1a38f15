/* kernelbench.c - ingest_kernelbench: KernelBench run directories and
 * baseline timing files (formats: docs/formats.md §1).
 *
 * A run directory holds eval_results.json (problem id -> one record, or
 * -> an array of records since 2025-10; the even older "flat" records with
 * correct/avg_runtime are read too) and the generated kernels
 * level_L_problem_P_sample_S_kernel.py.  Baselines
 * (<hardware_dir>/baseline_time_*.json) are stored, and each correct
 * evaluation with a runtime gets a computed speedup per baseline kind of
 * the same level and file-name id.  What cannot be decided from the input
 * (model name source, unit, which baseline) is written to ctx->notes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "json.h"
#include "base/text.h"

#define PATH_MAX_LEN 4200

static const char eval_results_name[] = "eval_results.json";

/* Error keys of KernelBench metadata, in the order that picks the one
 * that says what went wrong first. */
static const char *const error_keys[] = {
	"compilation_error", "runtime_error", "correctness_issue",
	"cuda_error", "other_error", "error",
};

struct baseline_row {
	int level, pid;
	const char *kind;          /* borrowed from struct kb.kinds */
	const char *hardware_dir;  /* borrowed from the member path copy */
	const char *problem_file;  /* borrowed from the cJSON tree */
	const char *member;        /* borrowed from the file set */
	const char *hardware;      /* borrowed from the cJSON tree, or NULL */
	double mean_ms;
};

struct kb {
	const struct afileset *fs;
	struct ingest_ctx *ctx;
	const char *input;
	unsigned char *used;       /* per file: consumed as a run's kernel */
	struct baseline_row *bl;   /* sorted by level, pid, kind, dir */
	size_t nbl, capbl;
	cJSON **trees;             /* baseline JSON trees the rows borrow */
	size_t ntrees;
	char **strs;               /* strings the rows borrow */
	size_t nstrs;
	int64_t results_files;     /* baseline_<model>_level_<L>_*.json read */
	int64_t not_computed;      /* speedups left out: several baselines */
	int64_t name_conflicts;    /* problem names the baselines disagree on */
};

/* What one run directory tells about all its records. */
struct run {
	const char *dir;           /* "" for the input's top level */
	char name[PATH_MAX_LEN];   /* evaluation.run */
	char model[512];
	const char *model_from;
	char precision[32];
	int level;
	const char *level_from;
	int cfg_level;
	const char *schema;        /* harness: which eval_results schema */
	int no_kernels;            /* a results file without a run dir */
	int64_t records, kernels;
};

static char *keep_str(struct kb *k, const char *s, size_t n)
{
	char **p = realloc(k->strs, (k->nstrs + 1) * sizeof(*p));
	char *c;

	if (!p)
		return NULL;
	k->strs = p;
	if (!(c = malloc(n + 1)))
		return NULL;
	memcpy(c, s, n);
	c[n] = '\0';
	k->strs[k->nstrs++] = c;
	return c;
}

static void kb_free(struct kb *k)
{
	for (size_t i = 0; i < k->ntrees; i++)
		cJSON_Delete(k->trees[i]);
	for (size_t i = 0; i < k->nstrs; i++)
		free(k->strs[i]);
	free(k->trees);
	free(k->strs);
	free(k->bl);
	free(k->used);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Parse a decimal number of at most 9 digits at *s; advance *s. */
static int parse_uint(const char **s, int *out)
{
	const char *p = *s;
	int v = 0, n = 0;

	while (*p >= '0' && *p <= '9' && n < 9) {
		v = v * 10 + (*p++ - '0');
		n++;
	}
	if (!n || (*p >= '0' && *p <= '9'))
		return -1;
	*out = v;
	*s = p;
	return 0;
}

static int eat(const char **s, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*s, lit, n))
		return -1;
	*s += n;
	return 0;
}

/* level_{L}_problem_{P}_sample_{S}_kernel.py */
static int parse_kernel_name(const char *base, int *l, int *p, int *smp)
{
	const char *s = base;

	return eat(&s, "level_") || parse_uint(&s, l) ||
	       eat(&s, "_problem_") || parse_uint(&s, p) ||
	       eat(&s, "_sample_") || parse_uint(&s, smp) ||
	       strcmp(s, "_kernel.py") ? -1 : 0;
}

/* ---- baselines ---------------------------------------------------- */

/* baseline_time_torch.json -> eager, ..._torch_compile_inductor_<mode>
 * -> compile_inductor_<mode>, ..._torch_compile_<backend> ->
 * compile_<backend>; other baseline_time_<x>.json (the old per-machine
 * files) -> unknown.  Writes into buf. */
static void baseline_kind(const char *base, char *buf, size_t n)
{
	const char *s = base + strlen("baseline_time_");
	size_t len = strlen(s) - strlen(".json");

	if (len == strlen("torch") && !strncmp(s, "torch", len))
		snprintf(buf, n, "eager");
	else if (!strncmp(s, "torch_compile_", 14) && len > 14)
		snprintf(buf, n, "compile_%.*s", (int)(len - 14), s + 14);
	else
		snprintf(buf, n, "unknown");
}

static int is_baseline_file(const char *base)
{
	size_t n = strlen(base);

	return !strncmp(base, "baseline_time_", 14) && n > 19 &&
	       !strcmp(base + n - 5, ".json");
}

static int add_row(struct kb *k, const struct baseline_row *r)
{
	if (k->nbl == k->capbl) {
		size_t cap = k->capbl ? 2 * k->capbl : 256;
		struct baseline_row *p = realloc(k->bl, cap * sizeof(*p));

		if (!p)
			return -1;
		k->bl = p;
		k->capbl = cap;
	}
	k->bl[k->nbl++] = *r;
	return 0;
}

/* "levelN" -> N (N >= 1), else -1. */
static int level_key(const char *s)
{
	int v;

	if (eat(&s, "level") || parse_uint(&s, &v) || *s || v < 1)
		return -1;
	return v;
}

/* "<ID>_<Name>.py" -> ID, else -1. */
static int problem_file_id(const char *s)
{
	int v;

	if (parse_uint(&s, &v) || *s != '_')
		return -1;
	return v;
}

static int read_baseline_entry(struct kb *k, const struct afile *f,
			       const cJSON *ent, struct baseline_row *row,
			       struct store_baseline *b, struct hr_err *e)
{
	char rec[300];
	struct json_where w = { k->input, f->path, rec };

	snprintf(rec, sizeof(rec), "level%d \"%s\"", b->level,
		 b->problem_file);
	if (!cJSON_IsObject(ent))
		return hr_errf(e, HR_INPUT, "%s: %s: %s: must be an object, "
			       "not %s", k->input, f->path, rec,
			       json_type_name(ent));
	if (json_get_number(&w, ent, "mean", &b->mean_ms, e) ||
	    json_get_number(&w, ent, "std", &b->std_ms, e) ||
	    json_get_number(&w, ent, "min", &b->min_ms, e) ||
	    json_get_number(&w, ent, "max", &b->max_ms, e) ||
	    json_get_count(&w, ent, "num_trials", &b->num_trials, e) ||
	    json_get_string(&w, ent, "hardware", &b->hardware, e) ||
	    json_get_string(&w, ent, "device", &b->device, e))
		return e->code;
	if (!(b->mean_ms > 0))
		return json_bad(&w, "mean", e, "must be a positive time in "
				"ms");
	row->level = b->level;
	row->pid = problem_file_id(b->problem_file);
	row->problem_file = b->problem_file;
	row->hardware = b->hardware;
	row->mean_ms = b->mean_ms;
	return HR_OK;
}

static int read_baseline_file(struct kb *k, const struct afile *f,
			      struct hr_err *e)
{
	char kind[128], *dir, *kind_kept;
	const char *base = base_name(f->path), *slash;
	struct ingest_ctx *ctx = k->ctx;
	cJSON *root, *lv, *ent, **trees;
	int64_t count = 0;

	if (json_parse(k->input, f, &root, e))
		return e->code;
	trees = realloc(k->trees, (k->ntrees + 1) * sizeof(*trees));
	if (!trees) {
		cJSON_Delete(root);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	k->trees = trees;
	k->trees[k->ntrees++] = root;
	if (!cJSON_IsObject(root))
		return hr_errf(e, HR_INPUT, "%s: %s: a baseline timing file "
			       "must be an object of \"levelN\" keys, not %s",
			       k->input, f->path, json_type_name(root));
	baseline_kind(base, kind, sizeof(kind));
	/* hardware_dir = the name of the directory holding the file. */
	slash = base > f->path ? base - 1 : NULL;
	if (slash) {
		const char *d = slash;

		while (d > f->path && d[-1] != '/')
			d--;
		dir = keep_str(k, d, (size_t)(slash - d));
	} else {
		dir = keep_str(k, "", 0);
	}
	kind_kept = keep_str(k, kind, strlen(kind));
	if (!dir || !kind_kept)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	cJSON_ArrayForEach(lv, root) {
		int level = level_key(lv->string);

		if (level < 0)
			return hr_errf(e, HR_INPUT, "%s: %s: key \"%s\": "
				       "expected \"levelN\"", k->input,
				       f->path, lv->string);
		if (!cJSON_IsObject(lv))
			return hr_errf(e, HR_INPUT, "%s: %s: \"%s\": must be "
				       "an object, not %s", k->input, f->path,
				       lv->string, json_type_name(lv));
		cJSON_ArrayForEach(ent, lv) {
			struct store_baseline b = {
				.source_id = ctx->source_id,
				.hardware_dir = dir, .baseline_kind = kind,
				.level = level, .problem_file = ent->string,
			};
			struct baseline_row row = { .kind = kind_kept,
				.hardware_dir = dir, .member = f->path };

			if (read_baseline_entry(k, f, ent, &row, &b, e))
				return e->code;
			if (store_add_baseline(ctx->store, &b, e))
				return hr_err_prefix(e, "%s: %s", k->input,
						     f->path);
			/* A key without a numeric prefix is stored but
			 * cannot be matched to a problem id. */
			if (row.pid >= 0 && add_row(k, &row))
				return hr_errf(e, HR_SYSTEM, "out of memory");
			ctx->n_baselines++;
			count++;
		}
	}
	if (ctx->notes) {
		cJSON *arr = cJSON_GetObjectItemCaseSensitive(ctx->notes,
							      "baselines");
		cJSON *o = cJSON_CreateObject();

		if (!arr)
			arr = cJSON_AddArrayToObject(ctx->notes, "baselines");
		cJSON_AddStringToObject(o, "file", f->path);
		cJSON_AddStringToObject(o, "kind", kind);
		cJSON_AddStringToObject(o, "hardware_dir", dir);
		cJSON_AddNumberToObject(o, "entries", (double)count);
		cJSON_AddItemToArray(arr, o);
	}
	return HR_OK;
}

static int row_cmp(const void *a, const void *b)
{
	const struct baseline_row *x = a, *y = b;
	int c;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if ((c = strcmp(x->kind, y->kind)))
		return c;
	if ((c = strcmp(x->hardware_dir, y->hardware_dir)))
		return c;
	return strcmp(x->member, y->member);
}

/* First row of (level, pid) and how many there are. */
static size_t rows_for(const struct kb *k, int level, int pid, size_t *n)
{
	size_t lo = 0, hi = k->nbl, first;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct baseline_row *r = &k->bl[mid];

		if (r->level < level || (r->level == level && r->pid < pid))
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < k->nbl && k->bl[lo].level == level &&
	       k->bl[lo].pid == pid)
		lo++;
	*n = lo - first;
	return first;
}

/* The problem name the baselines give for (level, pid): the file stem
 * when all of them agree, else NULL (and the conflict is counted).  buf
 * receives the stem. */
static const char *problem_name(struct kb *k, int level, int pid, char *buf,
				size_t n)
{
	size_t cnt, first = rows_for(k, level, pid, &cnt);
	const char *f;
	size_t len;

	if (!cnt)
		return NULL;
	f = k->bl[first].problem_file;
	for (size_t i = first + 1; i < first + cnt; i++) {
		if (strcmp(k->bl[i].problem_file, f)) {
			k->name_conflicts++;
			return NULL;
		}
	}
	len = strlen(f);
	if (len > 3 && !strcmp(f + len - 3, ".py"))
		len -= 3;
	text_copy(buf, n, f, len);
	return buf;
}

static int add_speedup(struct kb *k, const struct store_eval *ev,
		       int64_t eval_id, const struct baseline_row *r,
		       struct hr_err *e)
{
	char ref[1200];
	struct store_speedup sp = {
		.evaluation_id = eval_id, .baseline_kind = r->kind,
		.baseline_ms = r->mean_ms, .value = r->mean_ms / ev->runtime_ms,
		.origin = "computed", .baseline_ref = ref,
	};
	int n;

	n = snprintf(ref, sizeof(ref), "%s: level%d \"%s\"", r->member,
		     r->level, r->problem_file);
	if ((!ev->hardware || !r->hardware) && n > 0 &&
	    (size_t)n < sizeof(ref))
		snprintf(ref + n, sizeof(ref) - (size_t)n, " (GPU not checked: "
			 "%s hardware unknown)", r->hardware ? "evaluation" :
			 "baseline");
	if (store_add_speedup(k->ctx->store, &sp, e))
		return e->code;
	k->ctx->n_speedups++;
	return HR_OK;
}

/* Which of the baselines [i, j) of one kind times the evaluation's GPU:
 * the one whose hardware string equals the evaluation's; failing that,
 * the only one whose hardware or the evaluation's is unknown.  Returns
 * its index, or j when there is none or more than one. */
static size_t pick_baseline(const struct kb *k, const struct store_eval *ev,
			    size_t i, size_t j)
{
	size_t exact = j, loose = j, nexact = 0, nloose = 0;

	for (size_t m = i; m < j; m++) {
		const char *hw = k->bl[m].hardware;

		if (ev->hardware && hw && !strcmp(ev->hardware, hw)) {
			exact = m;
			nexact++;
		} else if (!ev->hardware || !hw) {
			loose = m;
			nloose++;
		}
	}
	if (nexact)
		return nexact == 1 ? exact : j;
	return nloose == 1 ? loose : j;
}

/* One computed speedup per baseline kind, against a baseline timed on
 * the same GPU (pick_baseline); when there is none, or several, nothing
 * is computed and the notes count it: a speedup across GPUs or between
 * two candidate baselines would be a guess. */
static int add_speedups(struct kb *k, const struct store_eval *ev,
			int64_t eval_id, struct hr_err *e)
{
	size_t cnt, i, first;

	if (ev->correct != 1 || !(ev->runtime_ms > 0))
		return HR_OK;
	first = rows_for(k, ev->level, ev->problem_id, &cnt);
	for (i = first; i < first + cnt;) {
		size_t j = i, m;

		while (j < first + cnt && !strcmp(k->bl[j].kind, k->bl[i].kind))
			j++;
		m = pick_baseline(k, ev, i, j);
		if (m == j)
			k->not_computed++;
		else if (add_speedup(k, ev, eval_id, &k->bl[m], e))
			return e->code;
		i = j;
	}
	return HR_OK;
}

/* ---- run directories ---------------------------------------------- */

/* generation_config.yaml: top-level "key: value" lines only; quotes and
 * a trailing comment are dropped; null/~/empty mean absent. */
static int yaml_value(const char *text, const char *key, char *buf, size_t n)
{
	size_t klen = strlen(key);

	for (const char *l = text; *l; l += strcspn(l, "\n"), l += !!*l) {
		const char *v, *end;

		if (strncmp(l, key, klen) || l[klen] != ':')
			continue;
		v = l + klen + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		end = v + strcspn(v, "\r\n");
		if (*v == '"' || *v == '\'') {
			const char *q = memchr(v + 1, *v, (size_t)(end - v - 1));

			if (q) {
				end = q;
				v++;
			}
		} else {
			const char *hash = v;

			while ((hash = memchr(hash, '#', (size_t)(end - hash)))) {
				if (hash == v || hash[-1] == ' ') {
					end = hash;
					break;
				}
				hash++;
			}
			while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
				end--;
		}
		if (end == v || (end - v == 1 && *v == '~') ||
		    (end - v == 4 && !strncmp(v, "null", 4)))
			return 0;
		text_copy(buf, n, v, (size_t)(end - v));
		return 1;
	}
	return 0;
}

static void join(char *buf, size_t n, const char *dir, const char *file)
{
	snprintf(buf, n, "%s%s%s", dir, *dir ? "/" : "", file);
}

/* Files directly inside dir: [*first, *first + *n) in the sorted set
 * holds every path below dir; callers skip the deeper ones. */
static size_t below(const struct afileset *fs, const char *dir, size_t *n)
{
	size_t dl = strlen(dir), lo = 0, hi = fs->n, first;

	if (!dl) {
		*n = fs->n;
		return 0;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(fs->files[mid].path, dir) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < fs->n && !strncmp(fs->files[lo].path, dir, dl) &&
	       fs->files[lo].path[dl] != '/')
		lo++;  /* "dir", "dir-x", "dir.y" sort before "dir/" */
	first = lo;
	while (lo < fs->n && !strncmp(fs->files[lo].path, dir, dl) &&
	       fs->files[lo].path[dl] == '/')
		lo++;
	*n = lo - first;
	return first;
}

static int directly_in(const char *path, const char *dir)
{
	size_t dl = strlen(dir);

	return !strchr(path + (dl ? dl + 1 : 0), '/');
}

/* "level_1" / "level1" anywhere in the run's path: the level of a run
 * directory without kernel files or a config that says it. */
static int level_from_name(const char *name)
{
	const char *p = name;

	while ((p = strstr(p, "level"))) {
		const char *s = p + 5;
		int v;

		if (*s == '_' || *s == '-')
			s++;
		if (!parse_uint(&s, &v) && v >= 1)
			return v;
		p += 5;
	}
	return -1;
}

static int decide_level(struct kb *k, struct run *r, int has_results,
			struct hr_err *e)
{
	size_t n, first = below(k->fs, r->dir, &n);
	int lv = -1, l, p, s;
	for (size_t i = first; i < first + n; i++) {
		const char *path = k->fs->files[i].path;

		if (!directly_in(path, r->dir) ||
		    parse_kernel_name(base_name(path), &l, &p, &s))
			continue;
		if (lv >= 0 && l != lv) {
			if (!has_results)
				break;
			return hr_errf(e, HR_INPUT, "%s: %s: kernel files of "
				       "levels %d and %d: cannot tell the "
				       "level of its %s", k->input, r->name,
				       lv, l, eval_results_name);
		}
		lv = l;
	}
	r->level = lv;
	r->level_from = "kernel file names";
	if (r->level < 0 && r->cfg_level >= 1) {
		r->level = r->cfg_level;
		r->level_from = "generation_config.yaml";
	}
	if (r->level < 0 && (r->level = level_from_name(r->name)) >= 1)
		r->level_from = "run directory name";
	if (r->level < 0 && has_results)
		return hr_errf(e, HR_INPUT, "%s: %s/%s: cannot tell the level "
			       "(no kernel files, no level in "
			       "generation_config.yaml, none in the directory "
			       "name)", k->input, r->name, eval_results_name);
	return HR_OK;
}

static int store_kernel(struct kb *k, const struct afile *f, int64_t *id,
			struct hr_err *e)
{
	if (afile_check_text(k->input, f, e) ||
	    store_add_kernel(k->ctx->store, (const char *)f->data, id, e))
		return e->code;
	k->used[f - k->fs->files] = 1;
	k->ctx->n_kernels++;
	return HR_OK;
}

static void eval_init(struct store_eval *ev, const struct kb *k,
		      const struct run *r)
{
	memset(ev, 0, sizeof(*ev));
	ev->source_id = k->ctx->source_id;
	ev->run = r->name;
	ev->model = r->model;
	ev->level = r->level;
	ev->problem_id_base = 1;
	ev->precision = r->precision[0] ? r->precision : NULL;
	ev->atol = ev->rtol = NAN;
	ev->compiled = ev->correct = -1;
	ev->runtime_ms = ev->runtime_std_ms = NAN;
	ev->runtime_min_ms = ev->runtime_max_ms = NAN;
	ev->num_trials = -1;
	ev->correct_trials_passed = ev->correct_trials_total = -1;
}

/* KernelBench's -1.0 means "not measured"; any other negative time is
 * an error in the input. */
static int time_field(const struct json_where *w, const cJSON *o,
		      const char *key, double *out, struct hr_err *e)
{
	if (json_get_number(w, o, key, out, e))
		return e->code;
	if (*out == -1.0)
		*out = NAN;
	else if (*out < 0)
		return json_bad(w, key, e, "negative time %g (only -1 means "
				"\"none\")", *out);
	return HR_OK;
}

static int read_stats(const struct json_where *w, const cJSON *rec,
		      struct store_eval *ev, const char **hw,
		      struct hr_err *e)
{
	const cJSON *st;
	double mean;

	if (json_get_object(w, rec, "runtime_stats", &st, e))
		return e->code;
	if (!st)
		return HR_OK;
	if (time_field(w, st, "mean", &mean, e) ||
	    time_field(w, st, "std", &ev->runtime_std_ms, e) ||
	    time_field(w, st, "min", &ev->runtime_min_ms, e) ||
	    time_field(w, st, "max", &ev->runtime_max_ms, e) ||
	    json_get_count(w, st, "num_trials", &ev->num_trials, e) ||
	    json_get_string(w, st, "hardware", hw, e))
		return e->code;
	if (isnan(ev->runtime_ms))
		ev->runtime_ms = mean;
	return HR_OK;
}

/* "(k / n)" */
static int read_trials(const struct json_where *w, const cJSON *o,
		       struct store_eval *ev, struct hr_err *e)
{
	const char *t, *p;
	int k, n;

	if (json_get_string(w, o, "correctness_trials", &t, e) || !t)
		return e->code;
	/* parse_uint, not sscanf's %d: a count of 10^12 is refused, not
	 * undefined. */
	p = t;
	if (eat(&p, "(") || parse_uint(&p, &k) || eat(&p, " / ") ||
	    parse_uint(&p, &n) || eat(&p, ")") || *p || k > n)
		return json_bad(w, "correctness_trials", e, "expected \"(k / "
				"n)\", not \"%s\"", t);
	ev->correct_trials_passed = k;
	ev->correct_trials_total = n;
	return HR_OK;
}

/* error_kind/error_text: the first error key present.  A non-string
 * value (KernelBench stringifies, but others may not) is kept as JSON. */
static int read_error(const cJSON *o, struct store_eval *ev, char **owned)
{
	for (size_t i = 0; i < sizeof(error_keys) / sizeof(*error_keys); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o,
								  error_keys[i]);

		if (!v || cJSON_IsNull(v))
			continue;
		ev->error_kind = error_keys[i];
		if (cJSON_IsString(v)) {
			ev->error_text = v->valuestring;
		} else {
			if (!(*owned = cJSON_PrintUnformatted(v)))
				return -1;
			ev->error_text = *owned;
		}
		return 0;
	}
	return 0;
}

/* Fill ev from one record; *meta_out owns the metadata JSON text. */
static int read_record(const struct json_where *w,
		       const cJSON *rec, struct store_eval *ev, int *flat,
		       char **meta_out, char **err_owned, struct hr_err *e)
{
	const cJSON *meta = NULL;
	const char *hw = NULL, *hw_stats = NULL;
	cJSON *copy;

	*flat = !cJSON_HasObjectItem(rec, "correctness") &&
		!cJSON_HasObjectItem(rec, "runtime") &&
		(cJSON_HasObjectItem(rec, "correct") ||
		 cJSON_HasObjectItem(rec, "avg_runtime"));
	if (json_get_bool(w, rec, "compiled", &ev->compiled, e) ||
	    json_get_bool(w, rec, *flat ? "correct" : "correctness",
			  &ev->correct, e) ||
	    time_field(w, rec, *flat ? "avg_runtime" : "runtime",
		       &ev->runtime_ms, e) ||
	    read_stats(w, rec, ev, &hw_stats, e))
		return e->code;
	if (*flat) {
		/* Flat records keep metadata at the top level. */
		meta = rec;
	} else if (json_get_object(w, rec, "metadata", &meta, e)) {
		return e->code;
	}
	if (meta && (json_get_string(w, meta, "hardware", &hw, e) ||
		     read_trials(w, meta, ev, e)))
		return e->code;
	ev->hardware = hw ? hw : hw_stats;
	if (meta && read_error(meta, ev, err_owned))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (!meta)
		return HR_OK;
	if (!*flat) {
		*meta_out = cJSON_PrintUnformatted(meta);
	} else {
		/* Everything but the fields stored in columns. */
		copy = cJSON_Duplicate(rec, 1);
		if (!copy)
			return hr_errf(e, HR_SYSTEM, "out of memory");
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "compiled");
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "correct");
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "avg_runtime");
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "runtime_stats");
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "sample_id");
		*meta_out = cJSON_PrintUnformatted(copy);
		cJSON_Delete(copy);
	}
	if (!*meta_out)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return HR_OK;
}

static int add_eval(struct kb *k, struct store_eval *ev, struct hr_err *e)
{
	char name[512];
	int64_t id;

	if (!ev->problem_name)
		ev->problem_name = problem_name(k, ev->level, ev->problem_id,
						name, sizeof(name));
	if (store_add_evaluation(k->ctx->store, ev, &id, e))
		return hr_err_prefix(e, "%s", k->input);
	k->ctx->n_evaluations++;
	return add_speedups(k, ev, id, e);
}

static const char unit_note[] = "ms (KernelBench timing)";

static int one_record(struct kb *k, struct run *r, const struct afile *f,
		      const char *pid_key, int pid, const cJSON *rec,
		      int idx, struct hr_err *e)
{
	char where[96], ref[PATH_MAX_LEN + 96], kpath[PATH_MAX_LEN];
	char kname[96], *meta = NULL, *err_text = NULL;
	struct json_where w = { k->input, f->path, where };
	struct store_eval ev;
	const struct afile *kf;
	int sample, flat = 0, rc;

	if (idx >= 0)
		snprintf(where, sizeof(where), "problem \"%s\" sample index "
			 "%d", pid_key, idx);
	else
		snprintf(where, sizeof(where), "problem \"%s\"", pid_key);
	if (!cJSON_IsObject(rec))
		return hr_errf(e, HR_INPUT, "%s: %s: %s: must be an object, "
			       "not %s", k->input, f->path, where,
			       json_type_name(rec));
	eval_init(&ev, k, r);
	ev.problem_id = pid;
	if (json_get_count(&w, rec, "sample_id", &sample, e))
		return e->code;
	if (sample < 0)
		sample = idx >= 0 ? idx : 0;
	ev.sample_id = sample;
	if (idx >= 0)
		snprintf(ref, sizeof(ref), "%s#%s[%d]", f->path, pid_key, idx);
	else
		snprintf(ref, sizeof(ref), "%s#%s", f->path, pid_key);
	ev.record_ref = ref;
	ev.unit_assumed = unit_note;
	rc = read_record(&w, rec, &ev, &flat, &meta, &err_text, e);
	ev.metadata_json = meta;
	ev.harness = flat ? "kernelbench/eval_results-flat" :
		idx >= 0 ? "kernelbench/eval_results-array" :
		"kernelbench/eval_results-object";
	if (!r->schema || strcmp(r->schema, ev.harness))
		r->schema = r->schema ? "mixed" : ev.harness;
	snprintf(kname, sizeof(kname), "level_%d_problem_%d_sample_%d_kernel.py",
		 r->level, pid, sample);
	join(kpath, sizeof(kpath), r->dir, kname);
	/* A kernel already used means a duplicate record: the store names
	 * both records when the evaluation is added. */
	kf = r->no_kernels ? NULL : afileset_find(k->fs, kpath);
	if (rc == HR_OK && kf && !k->used[kf - k->fs->files])
		rc = store_kernel(k, kf, &ev.kernel_id, e);
	if (rc == HR_OK)
		rc = add_eval(k, &ev, e);
	r->records++;
	free(meta);
	free(err_text);
	return rc;
}

/* A problem id key: a positive decimal integer as a string. */
static int pid_of_key(const char *s)
{
	int v;

	if (parse_uint(&s, &v) || *s || v < 1)
		return -1;
	return v;
}

static int read_eval_results(struct kb *k, struct run *r,
			     const struct afile *f, struct hr_err *e)
{
	cJSON *root, *pv, *rec;
	int rc = HR_OK;

	if (json_parse(k->input, f, &root, e))
		return e->code;
	if (!cJSON_IsObject(root)) {
		rc = hr_errf(e, HR_INPUT, "%s: %s: must be an object keyed by "
			     "problem id, not %s", k->input, f->path,
			     json_type_name(root));
		goto out;
	}
	cJSON_ArrayForEach(pv, root) {
		int pid = pid_of_key(pv->string), idx = 0;

		if (pid < 0) {
			rc = hr_errf(e, HR_INPUT, "%s: %s: key \"%s\": a "
				     "problem id must be a positive decimal "
				     "integer", k->input, f->path, pv->string);
			goto out;
		}
		if (!cJSON_IsArray(pv)) {
			if ((rc = one_record(k, r, f, pv->string, pid, pv, -1,
					     e)))
				goto out;
			continue;
		}
		cJSON_ArrayForEach(rec, pv) {
			if ((rc = one_record(k, r, f, pv->string, pid, rec,
					     idx++, e)))
				goto out;
		}
	}
out:
	cJSON_Delete(root);
	return rc;
}

/* Kernel files that no record named: an evaluation whose verdicts are
 * unknown. */
static int leftover_kernels(struct kb *k, struct run *r, struct hr_err *e)
{
	size_t n, first = below(k->fs, r->dir, &n);
	struct store_eval ev;
	int l, p, s;

	for (size_t i = first; i < first + n; i++) {
		const struct afile *f = &k->fs->files[i];

		if (k->used[i] || !directly_in(f->path, r->dir) ||
		    parse_kernel_name(base_name(f->path), &l, &p, &s))
			continue;
		if (p < 1)
			return hr_errf(e, HR_INPUT, "%s: %s: problem ids are "
				       "1-based", k->input, f->path);
		if (l < 1)
			return hr_errf(e, HR_INPUT, "%s: %s: levels start at "
				       "1", k->input, f->path);
		eval_init(&ev, k, r);
		ev.level = l;
		ev.problem_id = p;
		ev.sample_id = s;
		ev.record_ref = f->path;
		if (store_kernel(k, f, &ev.kernel_id, e) ||
		    add_eval(k, &ev, e))
			return e->code;
		r->kernels++;
	}
	return HR_OK;
}

static void note_run(struct kb *k, const struct run *r)
{
	cJSON *arr, *o;

	if (!k->ctx->notes)
		return;
	arr = cJSON_GetObjectItemCaseSensitive(k->ctx->notes, "runs");
	if (!arr)
		arr = cJSON_AddArrayToObject(k->ctx->notes, "runs");
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "run", r->name);
	cJSON_AddStringToObject(o, "model", r->model);
	cJSON_AddStringToObject(o, "model_from", r->model_from);
	if (r->level >= 1) {
		cJSON_AddNumberToObject(o, "level", r->level);
		cJSON_AddStringToObject(o, "level_from", r->level_from);
	}
	if (r->precision[0])
		cJSON_AddStringToObject(o, "precision", r->precision);
	if (r->schema)
		cJSON_AddStringToObject(o, "schema", r->schema);
	cJSON_AddNumberToObject(o, "records", (double)r->records);
	cJSON_AddNumberToObject(o, "kernels_without_record",
				(double)r->kernels);
	cJSON_AddItemToArray(arr, o);
}

static int read_run(struct kb *k, const char *dir, struct hr_err *e)
{
	char path[PATH_MAX_LEN], buf[32];
	const struct afile *res, *cfg;
	struct run r = { .dir = dir, .cfg_level = -1 };
	const char *mb;
	int rc;

	if (*dir)
		text_copy(r.name, sizeof(r.name), dir, strlen(dir));
	else if (k->fs->root_name)
		text_copy(r.name, sizeof(r.name), k->fs->root_name,
			  strlen(k->fs->root_name));
	else
		archive_base_name(k->input, r.name, sizeof(r.name));
	join(path, sizeof(path), dir, "generation_config.yaml");
	cfg = afileset_find(k->fs, path);
	if (cfg && afile_check_text(k->input, cfg, e))
		return e->code;
	if (cfg && yaml_value((const char *)cfg->data, "model_name", r.model,
			      sizeof(r.model))) {
		r.model_from = "generation_config.yaml model_name";
	} else {
		mb = base_name(r.name);
		text_copy(r.model, sizeof(r.model), mb, strlen(mb));
		r.model_from = "run directory name (no model_name in "
			"generation_config.yaml)";
	}
	if (cfg)
		yaml_value((const char *)cfg->data, "precision", r.precision,
			   sizeof(r.precision));
	if (cfg && yaml_value((const char *)cfg->data, "level", buf,
			      sizeof(buf))) {
		const char *s = buf;
		int v;

		if (!parse_uint(&s, &v) && !*s && v >= 1)
			r.cfg_level = v;
	}
	join(path, sizeof(path), dir, eval_results_name);
	res = afileset_find(k->fs, path);
	rc = decide_level(k, &r, res != NULL, e);
	if (rc == HR_OK && res)
		rc = read_eval_results(k, &r, res, e);
	if (rc == HR_OK)
		rc = leftover_kernels(k, &r, e);
	if (rc == HR_OK)
		note_run(k, &r);
	return rc;
}

/* The early sample store's per-model result files,
 * baseline_<model>_level_<L>_<hardware>.json (not baseline_time_*): model
 * and level from the name.  Returns 0 and fills model and *level when
 * base has that shape. */
static int parse_results_name(const char *base, char *model, size_t n,
			      int *level)
{
	const char *s = base + strlen("baseline_"), *lv = NULL, *p = s;
	size_t len = strlen(base);

	if (strncmp(base, "baseline_", 9) || is_baseline_file(base) ||
	    len < 5 || strcmp(base + len - 5, ".json"))
		return -1;
	/* The last "_level_<digits>_" or "_level_<digits>.json". */
	while ((p = strstr(p, "_level_"))) {
		const char *d = p + 7;
		int v;

		if (!parse_uint(&d, &v) && v >= 1 && (*d == '_' || *d == '.')) {
			lv = p;
			*level = v;
		}
		p += 7;
	}
	if (!lv || lv == s)
		return -1;
	text_copy(model, n, s, (size_t)(lv - s));
	return 0;
}

static int read_results_file(struct kb *k, const struct afile *f,
			     struct hr_err *e)
{
	struct run r = { .dir = "", .no_kernels = 1, .cfg_level = -1,
		.model_from = "file name (baseline_<model>_level_<L>_"
			"<hardware>.json)", .level_from = "file name" };
	int rc;

	if (parse_results_name(base_name(f->path), r.model, sizeof(r.model),
			       &r.level))
		return HR_OK;
	text_copy(r.name, sizeof(r.name), f->path, strlen(f->path));
	k->results_files++;
	rc = read_eval_results(k, &r, f, e);
	if (rc == HR_OK)
		note_run(k, &r);
	return rc;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The run directories: dirs holding eval_results.json or kernel files,
 * sorted, each once.  *out holds pointers into k->strs. */
static int find_runs(struct kb *k, char ***out, size_t *n, struct hr_err *e)
{
	char **dirs = NULL;
	size_t nd = 0;
	int l, p, s;

	for (size_t i = 0; i < k->fs->n; i++) {
		const char *path = k->fs->files[i].path;
		const char *b = base_name(path);
		char *d, **nd_p;
		size_t dlen;

		if (strcmp(b, eval_results_name) &&
		    parse_kernel_name(b, &l, &p, &s))
			continue;
		dlen = b > path ? (size_t)(b - path - 1) : 0;
		/* Most hits share the previous hit's directory. */
		if (nd && strlen(dirs[nd - 1]) == dlen &&
		    !strncmp(dirs[nd - 1], path, dlen))
			continue;
		d = keep_str(k, path, dlen);
		nd_p = realloc(dirs, (nd + 1) * sizeof(*dirs));
		if (!d || !nd_p) {
			free(nd_p ? nd_p : dirs);
			return hr_errf(e, HR_SYSTEM, "out of memory");
		}
		dirs = nd_p;
		dirs[nd++] = d;
	}
	if (nd)
		qsort(dirs, nd, sizeof(*dirs), str_cmp);
	/* Drop repeats left by interleaved paths ("a/x", "a/b/y", "a/z"). */
	size_t u = 0;
	for (size_t i = 0; i < nd; i++)
		if (!u || strcmp(dirs[u - 1], dirs[i]))
			dirs[u++] = dirs[i];
	*out = dirs;
	*n = u;
	return HR_OK;
}

static void final_notes(struct kb *k)
{
	cJSON *n = k->ctx->notes;

	if (!n)
		return;
	cJSON_AddStringToObject(n, "reader", "kernelbench");
	cJSON_AddStringToObject(n, "problem_ids", "1-based, as in KernelBench "
				"kernel file names and eval_results keys");
	cJSON_AddStringToObject(n, "runtime_unit", "ms assumed: KernelBench's "
				"get_timing_stats reports milliseconds (the "
				"KernelExecResult comment says us)");
	if (k->nbl)
		cJSON_AddStringToObject(n, "speedups", "computed = baseline "
			"mean_ms / runtime_ms for correct evaluations, "
			"against this input's baselines of the same level and "
			"file-name id; meaningful only if the baseline timed "
			"the same problem-set version (v0 and v0.1 share file "
			"names) on the same GPU");
	if (k->not_computed)
		cJSON_AddNumberToObject(n, "speedups_not_computed_no_single_"
					"baseline_on_the_same_gpu",
					(double)k->not_computed);
	if (k->name_conflicts)
		cJSON_AddNumberToObject(n, "problem_names_left_empty_"
					"baselines_disagree",
					(double)k->name_conflicts);
}

int ingest_kernelbench(const struct afileset *fs, struct ingest_ctx *ctx,
		       struct hr_err *e)
{
	struct kb k = { .fs = fs, .ctx = ctx, .input = fs->input ?
			fs->input : "input" };
	char **runs = NULL;
	size_t nruns = 0;
	int rc = HR_OK;

	if (!(k.used = calloc(fs->n ? fs->n : 1, 1)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	for (size_t i = 0; i < fs->n && rc == HR_OK; i++)
		if (is_baseline_file(base_name(fs->files[i].path)))
			rc = read_baseline_file(&k, &fs->files[i], e);
	if (rc == HR_OK && k.nbl)
		qsort(k.bl, k.nbl, sizeof(*k.bl), row_cmp);
	if (rc == HR_OK)
		rc = find_runs(&k, &runs, &nruns, e);
	for (size_t i = 0; i < nruns && rc == HR_OK; i++)
		rc = read_run(&k, runs[i], e);
	for (size_t i = 0; i < fs->n && rc == HR_OK; i++)
		rc = read_results_file(&k, &fs->files[i], e);
	if (rc == HR_OK && !nruns && !k.results_files && !ctx->n_baselines)
		rc = hr_errf(e, HR_INPUT, "%s: no KernelBench run directory "
			     "(%s, level_L_problem_P_sample_S_kernel.py), no "
			     "baseline_<model>_level_<L>_<hw>.json results and "
			     "no baseline_time_*.json found", k.input,
			     eval_results_name);
	if (rc == HR_OK)
		final_notes(&k);
	free(runs);
	kb_free(&k);
	return rc;
}
