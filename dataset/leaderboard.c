/* leaderboard.c - leaderboard-style dumps read through a mapping file.
 *
 * Owns: the mapping file (dataset/maps/README.md is its contract) and the
 * reading of dump records into evaluations and reported speedups.  Must
 * not: know any site's field names; those live in mapping files only.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <sys/stat.h>

#include "reader.h"
#include "json.h"
#include "base/text.h"

enum vtype { V_STR, V_INT, V_BOOL, V_TIME, V_ANY };

enum target {
	T_MODEL, T_LEVEL, T_PROBLEM_ID, T_PROBLEM_NAME, T_SAMPLE_ID, T_CODE,
	T_REFERENCE_CODE, T_COMPILED, T_CORRECT, T_HARDWARE, T_PRECISION, T_RUNTIME,
	T_RUNTIME_STD, T_RUNTIME_MIN, T_RUNTIME_MAX, T_NUM_TRIALS, T_ERROR,
	T_METADATA, T_COUNT
};

#define OPT_ZERO_BASED 1u
#define OPT_UNIT 2u

static const struct {
	const char *name;
	enum vtype type;
	unsigned opts;
} targets[T_COUNT] = {
	[T_MODEL] = { "model", V_STR, 0 },
	[T_LEVEL] = { "level", V_INT, 0 },
	[T_PROBLEM_ID] = { "problem_id", V_INT, OPT_ZERO_BASED },
	[T_PROBLEM_NAME] = { "problem_name", V_STR, 0 },
	[T_SAMPLE_ID] = { "sample_id", V_INT, 0 },
	[T_CODE] = { "code", V_STR, 0 },
	[T_REFERENCE_CODE] = { "reference_code", V_STR, 0 },
	[T_COMPILED] = { "compiled", V_BOOL, 0 },
	[T_CORRECT] = { "correct", V_BOOL, 0 },
	[T_HARDWARE] = { "hardware", V_STR, 0 },
	[T_PRECISION] = { "precision", V_STR, 0 },
	[T_RUNTIME] = { "runtime", V_TIME, OPT_UNIT },
	[T_RUNTIME_STD] = { "runtime_std", V_TIME, OPT_UNIT },
	[T_RUNTIME_MIN] = { "runtime_min", V_TIME, OPT_UNIT },
	[T_RUNTIME_MAX] = { "runtime_max", V_TIME, OPT_UNIT },
	[T_NUM_TRIALS] = { "num_trials", V_INT, 0 },
	[T_ERROR] = { "error", V_STR, 0 },
	[T_METADATA] = { "metadata", V_ANY, 0 },
};

static const struct {
	const char *name;
	double ms;
	const char *assumed;  /* evaluation.unit_assumed */
} units[] = {
	{ "us", 1e-3, "mapping:us" },
	{ "ms", 1.0, "mapping:ms" },
	{ "s", 1e3, "mapping:s" },
};

static const char *const baselines[] = {
	"eager", "compile_inductor_default", "compile_reduce_overhead",
	"compile_max_autotune", "compile_max_autotune_no_cudagraphs",
	"compile_cudagraphs", "cuda_graph", "cudnn", "unknown",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct spec {
	int set;                /* 1 when the mapping names this target */
	char *path;             /* owned: the dotted path, '.' -> '\0' */
	int ncomp;              /* components in path */
	const char *text;       /* owned copy of the path as written */
	const cJSON *konst;     /* borrowed from lb_map.doc, or NULL */
	int required;
	int zero_based;
	double unit_ms;
	const char *unit;         /* static, from units[] */
	const char *unit_assumed;
	const char *baseline;   /* static, from baselines[] */
};

struct lb_map {
	char *file;             /* the mapping file, for messages */
	cJSON *doc;             /* owns every const value */
	char *name;
	enum jsonrec_layout layout;
	struct spec f[T_COUNT];
	struct spec *speedups;
	size_t n_speedups;
};

static void spec_release(struct spec *sp)
{
	free(sp->path);
	free((char *)sp->text);
}

void lb_map_free(struct lb_map *m)
{
	if (!m)
		return;
	for (int t = 0; t < T_COUNT; t++)
		spec_release(&m->f[t]);
	for (size_t i = 0; i < m->n_speedups; i++)
		spec_release(&m->speedups[i]);
	free(m->speedups);
	cJSON_Delete(m->doc);
	free(m->name);
	free(m->file);
	free(m);
}

const char *lb_map_name(const struct lb_map *m)
{
	return m->name;
}

/* A mapping error: "<mapping file>: <key>: <message>". */
static int bad(const struct lb_map *m, const char *key, struct hr_err *e,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int bad(const struct lb_map *m, const char *key, struct hr_err *e,
	       const char *fmt, ...)
{
	char msg[256], clip[80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return hr_errf(e, HR_INPUT, "%s: %s: %s", m->file,
		       text_clip(key, clip, sizeof(clip)), msg);
}

static int set_path(struct lb_map *m, struct spec *sp, const char *key,
		    const char *path, struct hr_err *e)
{
	size_t n = strlen(path);

	if (!n || path[0] == '.' || path[n - 1] == '.' || strstr(path, ".."))
		return bad(m, key, e, "'%s' is not a field path (names "
			   "joined by single dots)", path);
	if (!(sp->path = strdup(path)) || !(sp->text = strdup(path)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	sp->ncomp = 1;
	for (char *p = sp->path; *p; p++)
		if (*p == '.') {
			*p = '\0';
			sp->ncomp++;
		}
	return HR_OK;
}

static int want_bool(struct lb_map *m, const cJSON *v, const char *key,
		     int *out, struct hr_err *e)
{
	if (!cJSON_IsBool(v))
		return bad(m, key, e, "expected true or false, got %s",
			   json_type_name(v));
	*out = cJSON_IsTrue(v);
	return HR_OK;
}

/* Parse one field spec: "path", {"field": ...} or {"const": ...} with the
 * options opts allows.  key is the spec's place, e.g. "fields.runtime". */
static int parse_spec(struct lb_map *m, const cJSON *v, const char *key,
		      unsigned opts, int in_speedups, struct spec *sp,
		      struct hr_err *e)
{
	char sub[160];
	const cJSON *c;
	int has_field = 0;

	sp->set = 1;
	sp->unit_ms = 1.0;
	if (cJSON_IsString(v))
		return (opts & OPT_UNIT) ?
			bad(m, key, e, "%s needs a unit: write {\"field\": "
			    "..., \"unit\": \"us\"|\"ms\"|\"s\"}", "a time") :
			set_path(m, sp, key, v->valuestring, e);
	if (!cJSON_IsObject(v))
		return bad(m, key, e, "expected a field path or an object, "
			   "got %s", json_type_name(v));
	cJSON_ArrayForEach(c, v) {
		snprintf(sub, sizeof(sub), "%s.%s", key, c->string);
		if (!strcmp(c->string, "field")) {
			if (!cJSON_IsString(c))
				return bad(m, sub, e, "expected a string, got "
					   "%s", json_type_name(c));
			if (sp->path)
				return bad(m, sub, e, "%s", "given twice");
			if (set_path(m, sp, sub, c->valuestring, e))
				return e->code;
			has_field = 1;
		} else if (!strcmp(c->string, "const") ||
			   !strcmp(c->string, "value")) {
			/* "value" is the samples branch's first draft. */
			if (sp->konst)
				return bad(m, sub, e, "%s", "given twice");
			sp->konst = c;
		} else if (!strcmp(c->string, "required")) {
			if (want_bool(m, c, sub, &sp->required, e))
				return e->code;
		} else if (!strcmp(c->string, "zero_based") &&
			   (opts & OPT_ZERO_BASED)) {
			if (want_bool(m, c, sub, &sp->zero_based, e))
				return e->code;
		} else if (!strcmp(c->string, "unit") && (opts & OPT_UNIT)) {
			size_t i = 0;

			while (i < NELEM(units) && !(cJSON_IsString(c) &&
				!strcmp(c->valuestring, units[i].name)))
				i++;
			if (i == NELEM(units))
				return bad(m, sub, e, "unknown unit %s (us, ms "
					   "or s)", cJSON_IsString(c) ?
					   c->valuestring : "(not a string)");
			sp->unit_ms = units[i].ms;
			sp->unit = units[i].name;
			sp->unit_assumed = units[i].assumed;
		} else if (!strcmp(c->string, "baseline") && in_speedups) {
			size_t i = 0;

			while (i < NELEM(baselines) && !(cJSON_IsString(c) &&
				!strcmp(c->valuestring, baselines[i])))
				i++;
			if (i == NELEM(baselines))
				return bad(m, sub, e, "unknown baseline kind "
					   "%s (see dataset/maps/README.md)",
					   cJSON_IsString(c) ? c->valuestring :
					   "(not a string)");
			sp->baseline = baselines[i];
		} else {
			return bad(m, sub, e, "%s", "unknown key");
		}
	}
	if (has_field == !!sp->konst)
		return bad(m, key, e, "%s", "needs exactly one of \"field\" "
			   "and \"const\" (or \"value\")");
	if ((opts & OPT_UNIT) && !sp->unit_assumed)
		return bad(m, key, e, "%s needs a unit: \"us\", \"ms\" or "
			   "\"s\"", "a time");
	if (in_speedups && !sp->baseline)
		return bad(m, key, e, "%s", "needs \"baseline\" (the baseline "
			   "kind)");
	return HR_OK;
}

/* A constant must have the type its target reads, or every record would
 * fail with the same error: say so once, naming the mapping key. */
static int check_const(struct lb_map *m, const struct spec *sp,
		       enum vtype type, const char *key, struct hr_err *e)
{
	const cJSON *c = sp->konst;
	const char *want = NULL;

	if (!c || cJSON_IsNull(c))
		return HR_OK;
	if (type == V_STR && !cJSON_IsString(c))
		want = "a string";
	else if (type == V_INT && !(cJSON_IsNumber(c) &&
				    c->valuedouble == floor(c->valuedouble)))
		want = "an integer";
	else if (type == V_BOOL && !cJSON_IsBool(c) &&
		 !(cJSON_IsNumber(c) && (c->valuedouble == 0 ||
					 c->valuedouble == 1)))
		want = "true or false";
	else if (type == V_TIME && !cJSON_IsNumber(c))
		want = "a number";
	if (!want)
		return HR_OK;
	return bad(m, key, e, "const: expected %s, got %s", want,
		   json_type_name(c));
}

static int parse_speedups(struct lb_map *m, const cJSON *v,
			  struct hr_err *e)
{
	char key[64];
	const cJSON *c;
	size_t i = 0;

	if (!cJSON_IsArray(v))
		return bad(m, "fields.speedups", e, "expected an array, got "
			   "%s", json_type_name(v));
	m->n_speedups = (size_t)cJSON_GetArraySize(v);
	if (m->n_speedups &&
	    !(m->speedups = calloc(m->n_speedups, sizeof(*m->speedups))))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	cJSON_ArrayForEach(c, v) {
		snprintf(key, sizeof(key), "fields.speedups[%zu]", i);
		if (parse_spec(m, c, key, 0, 1, &m->speedups[i], e) ||
		    check_const(m, &m->speedups[i], V_TIME, key, e))
			return e->code;
		i++;
	}
	return HR_OK;
}

static int parse_fields(struct lb_map *m, const cJSON *fields,
			struct hr_err *e)
{
	char key[64];
	const cJSON *c;
	int t;

	if (!cJSON_IsObject(fields))
		return bad(m, "fields", e, "expected an object, got %s",
			   json_type_name(fields));
	cJSON_ArrayForEach(c, fields) {
		snprintf(key, sizeof(key), "fields.%s", c->string);
		if (!strcmp(c->string, "speedups")) {
			if (m->speedups || m->n_speedups)
				return bad(m, key, e, "%s", "given twice");
			if (parse_speedups(m, c, e))
				return e->code;
			continue;
		}
		for (t = 0; t < T_COUNT; t++)
			if (!strcmp(c->string, targets[t].name))
				break;
		if (t == T_COUNT)
			return bad(m, key, e, "%s", "unknown target (see "
				   "dataset/maps/README.md)");
		if (m->f[t].set)
			return bad(m, key, e, "%s", "given twice");
		if (parse_spec(m, c, key, targets[t].opts, 0, &m->f[t], e) ||
		    check_const(m, &m->f[t], targets[t].type, key, e))
			return e->code;
	}
	if (!m->f[T_MODEL].set)
		return bad(m, "fields.model", e, "%s", "missing (a record "
			   "needs a model; use {\"const\": ...} for one-model "
			   "dumps)");
	if (!m->f[T_LEVEL].set)
		return bad(m, "fields.level", e, "%s", "missing");
	if (!m->f[T_PROBLEM_ID].set && !m->f[T_PROBLEM_NAME].set)
		return bad(m, "fields.problem_id", e, "%s", "missing (needed "
			   "unless problem_name starts with the id)");
	return HR_OK;
}

static int parse_map(struct lb_map *m, struct hr_err *e)
{
	const cJSON *c, *fields = NULL;

	if (!cJSON_IsObject(m->doc))
		return hr_errf(e, HR_INPUT, "%s: a mapping is a JSON object, "
			       "got %s", m->file, json_type_name(m->doc));
	m->layout = JSONREC_AUTO;
	cJSON_ArrayForEach(c, m->doc) {
		if (!strcmp(c->string, "name")) {
			if (!cJSON_IsString(c) || !*c->valuestring ||
			    strspn(c->valuestring, "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
			    strlen(c->valuestring))
				return bad(m, "name", e, "%s", "expected a "
					   "name of letters, digits, '.', '_' "
					   "and '-'");
			free(m->name);
			if (!(m->name = strdup(c->valuestring)))
				return hr_errf(e, HR_SYSTEM, "out of memory");
		} else if (!strcmp(c->string, "description")) {
			if (!cJSON_IsString(c))
				return bad(m, "description", e, "expected a "
					   "string, got %s",
					   json_type_name(c));
		} else if (!strcmp(c->string, "records")) {
			const char *r = cJSON_IsString(c) ? c->valuestring : "";

			if (!strcmp(r, "array"))
				m->layout = JSONREC_ARRAY;
			else if (!strcmp(r, "jsonl"))
				m->layout = JSONREC_LINES;
			else if (strcmp(r, "auto"))
				return bad(m, "records", e, "%s", "expected "
					   "\"array\", \"jsonl\" or \"auto\"");
		} else if (!strcmp(c->string, "fields")) {
			fields = c;
		} else {
			return bad(m, c->string, e, "%s", "unknown key");
		}
	}
	if (!m->name)
		return bad(m, "name", e, "%s", "missing");
	if (!fields)
		return bad(m, "fields", e, "%s", "missing");
	return parse_fields(m, fields, e);
}

static int read_file(const char *path, char **buf, size_t *len,
		     struct hr_err *e)
{
	FILE *f;
	size_t cap = 4096, n = 0, got;
	char *b = NULL, *nb;

	/* A FIFO would block, a device be read forever. */
	if (archive_fopen_regular(path, "mapping file", &f, e))
		return e->code;
	do {
		if (!(nb = realloc(b, cap + 1))) {
			free(b);
			fclose(f);
			return hr_errf(e, HR_SYSTEM, "out of memory");
		}
		b = nb;
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (n == cap)
			cap *= 2;
	} while (got > 0);
	if (ferror(f)) {
		free(b);
		fclose(f);
		return hr_errf(e, HR_SYSTEM, "%s: read error", path);
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return HR_OK;
}

int lb_map_parse(const char *name, const char *buf, size_t len,
		 struct lb_map **out, struct hr_err *e)
{
	struct lb_map *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m || !(m->file = strdup(name))) {
		free(m);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	if (!(m->doc = jsonrec_parse(name, buf, len, e)) || parse_map(m, e)) {
		lb_map_free(m);
		return e->code;
	}
	*out = m;
	return HR_OK;
}

int lb_map_load(const char *path, struct lb_map **out, struct hr_err *e)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (read_file(path, &buf, &len, e))
		return e->code;
	rc = lb_map_parse(path, buf, len, out, e);
	free(buf);
	return rc;
}

/* The value a spec gives for rec: its constant, or the value at its path;
 * NULL when the path is absent. */
static const cJSON *lookup(const struct spec *sp, const cJSON *rec)
{
	const cJSON *v = rec;
	const char *comp = sp->path;

	if (!sp->set)
		return NULL;
	if (sp->konst)
		return sp->konst;
	for (int i = 0; i < sp->ncomp && v; i++, comp += strlen(comp) + 1) {
		if (cJSON_IsArray(v) && comp[strspn(comp, "0123456789")] ==
		    '\0' && strlen(comp) < 9)
			v = cJSON_GetArrayItem(v, atoi(comp));
		else if (cJSON_IsObject(v))
			v = cJSON_GetObjectItemCaseSensitive(v, comp);
		else
			v = NULL;
	}
	return v;
}

/* Everything one record needs beyond its fields. */
struct rec_ctx {
	const struct lb_map *map;
	struct ingest_ctx *ctx;
	const char *run;
	const char *ref;
	int64_t *ref_set;   /* the source's reference problem set, 0 until
			       a record carries reference code */
};

static const cJSON *field(const struct rec_ctx *rc, enum target t,
			  const cJSON *rec, struct hr_err *e)
{
	const struct spec *sp = &rc->map->f[t];
	const cJSON *v = lookup(sp, rec);

	if (sp->required && jsonrec_absent(v))
		hr_errf(e, HR_INPUT, "%s: %s (field '%s'): required but absent",
			rc->ref, targets[t].name, sp->text);
	return v;
}

static const char *path_of(const struct spec *sp)
{
	return sp->text ? sp->text : "const";
}

static int get_str(const struct rec_ctx *rc, enum target t, const cJSON *rec,
		   const char **out, struct hr_err *e)
{
	const cJSON *v = field(rc, t, rec, e);

	if (e->code)
		return e->code;
	return jsonrec_str(v, rc->ref, targets[t].name,
			   path_of(&rc->map->f[t]), out, e);
}

static int get_int(const struct rec_ctx *rc, enum target t, const cJSON *rec,
		   int min, int *out, struct hr_err *e)
{
	const cJSON *v = field(rc, t, rec, e);

	if (e->code)
		return e->code;
	return jsonrec_int(v, rc->ref, targets[t].name,
			   path_of(&rc->map->f[t]), min, out, e);
}

static int get_bool(const struct rec_ctx *rc, enum target t,
		    const cJSON *rec, int *out, struct hr_err *e)
{
	const cJSON *v = field(rc, t, rec, e);

	if (e->code)
		return e->code;
	return jsonrec_bool(v, rc->ref, targets[t].name,
			    path_of(&rc->map->f[t]), out, e);
}

/* A time in ms; negative values (KernelBench's -1) mean not measured. */
static int get_time(const struct rec_ctx *rc, enum target t,
		    const cJSON *rec, double *out, struct hr_err *e)
{
	const struct spec *sp = &rc->map->f[t];
	const cJSON *v = field(rc, t, rec, e);

	if (e->code || jsonrec_real(v, rc->ref, targets[t].name, path_of(sp),
				    out, e))
		return e->code;
	if (*out < 0)
		*out = NAN;
	else
		*out *= sp->unit_ms;
	/* 1e306 s is a finite number but no finite number of ms. */
	if (isinf(*out))
		return hr_errf(e, HR_INPUT, "%s: %s (%s): out of range once "
			       "converted to ms", rc->ref, targets[t].name,
			       path_of(sp));
	return HR_OK;
}

/* The problem id a KernelBench file stem starts with ("12_Foo" -> 12). */
static int id_from_name(const char *name)
{
	long v;
	char *end;

	if (!name || *name < '0' || *name > '9')
		return -1;
	v = strtol(name, &end, 10);
	return *end == '_' && v >= 1 && v < 1000000 ? (int)v : -1;
}

static int read_ids(const struct rec_ctx *rc, const cJSON *rec,
		    struct store_eval *ev, struct hr_err *e)
{
	const struct spec *pid = &rc->map->f[T_PROBLEM_ID];
	int v;

	if (get_str(rc, T_MODEL, rec, &ev->model, e) ||
	    get_int(rc, T_LEVEL, rec, 1, &ev->level, e) ||
	    get_str(rc, T_PROBLEM_NAME, rec, &ev->problem_name, e) ||
	    get_int(rc, T_PROBLEM_ID, rec, pid->zero_based ? 0 : 1, &v, e) ||
	    get_int(rc, T_SAMPLE_ID, rec, 0, &ev->sample_id, e))
		return e->code;
	if (!ev->model)
		return hr_errf(e, HR_INPUT, "%s: model (field '%s'): absent; "
			       "a record needs a model", rc->ref,
			       path_of(&rc->map->f[T_MODEL]));
	if (ev->level < 0)
		return hr_errf(e, HR_INPUT, "%s: level (field '%s'): absent; "
			       "a record needs a level", rc->ref,
			       path_of(&rc->map->f[T_LEVEL]));
	ev->problem_id_base = pid->zero_based ? 0 : 1;
	/* The 1-based id of the largest zero-based one would not fit. */
	if (pid->zero_based && v == INT_MAX)
		return hr_errf(e, HR_INPUT, "%s: problem_id (field '%s'): %d "
			       "is too large", rc->ref, path_of(pid), v);
	if (v >= 0) {
		ev->problem_id = v + (pid->zero_based ? 1 : 0);
	} else if ((ev->problem_id = id_from_name(ev->problem_name)) < 0) {
		/* A KernelBench file stem carries the 1-based id. */
		return hr_errf(e, HR_INPUT, "%s: problem_id (field '%s'): "
			       "absent, and problem_name does not start with "
			       "an id", rc->ref, path_of(pid));
	} else {
		ev->problem_id_base = 1;
	}
	if (ev->sample_id < 0)
		ev->sample_id = 0;
	return HR_OK;
}

static int add_speedups(const struct rec_ctx *rc, const cJSON *rec,
			int64_t eval_id, struct hr_err *e)
{
	for (size_t i = 0; i < rc->map->n_speedups; i++) {
		const struct spec *sp = &rc->map->speedups[i];
		const cJSON *v = lookup(sp, rec);
		struct store_speedup s = {
			.evaluation_id = eval_id, .baseline_kind = sp->baseline,
			.baseline_ms = NAN, .origin = "reported",
		};
		char key[48];

		snprintf(key, sizeof(key), "speedups[%zu]", i);
		if (sp->required && jsonrec_absent(v))
			return hr_errf(e, HR_INPUT, "%s: %s (field '%s'): "
				       "required but absent", rc->ref, key,
				       path_of(sp));
		if (jsonrec_real(v, rc->ref, key, path_of(sp), &s.value, e))
			return e->code;
		if (isnan(s.value) || s.value <= 0)
			continue;
		if (store_add_speedup(rc->ctx->store, &s, e))
			return hr_err_prefix(e, "%s", rc->ref);
		rc->ctx->n_speedups++;
	}
	return HR_OK;
}

/* 1 when the mapping reads top-level key k of a record (first component
 * of some field path). */
static int key_used(const struct lb_map *m, const char *k)
{
	for (int t = 0; t < T_COUNT; t++)
		if (m->f[t].path && !strcmp(m->f[t].path, k))
			return 1;
	for (size_t i = 0; i < m->n_speedups; i++)
		if (m->speedups[i].path && !strcmp(m->speedups[i].path, k))
			return 1;
	return 0;
}

/* Without a metadata field, the record's top-level keys that the mapping
 * does not read are kept as its metadata, so nothing the site reported is
 * lost (a submission id, a timestamp).  *out is NULL when there are none;
 * returns -1 on no memory. */
static int unmapped_keys(const struct lb_map *m, const cJSON *rec,
			 char **out)
{
	cJSON *o = NULL, *dup;
	const cJSON *c;

	*out = NULL;
	cJSON_ArrayForEach(c, rec) {
		if (key_used(m, c->string))
			continue;
		if (!o && !(o = cJSON_CreateObject()))
			return -1;
		dup = cJSON_Duplicate(c, 1);
		if (!dup || !cJSON_AddItemToObject(o, c->string, dup)) {
			cJSON_Delete(dup);
			cJSON_Delete(o);
			return -1;
		}
	}
	if (o && !(*out = cJSON_PrintUnformatted(o))) {
		cJSON_Delete(o);
		return -1;
	}
	cJSON_Delete(o);
	return 0;
}

/* KernelBench problem names are file stems; some dumps keep ".py". */
static const char *stem(const char *name, char *buf, size_t n)
{
	size_t len = name ? strlen(name) : 0;

	if (len < 4 || strcmp(name + len - 3, ".py") || len - 3 >= n)
		return name;
	memcpy(buf, name, len - 3);
	buf[len - 3] = '\0';
	return buf;
}

/* A record's reference problem code: stored once per (level, problem id)
 * in the source's reference set, by hash like `problems add`; the same id
 * with other code in one source is refused (a replay could not tell
 * which the evaluation was judged against). */
static int add_reference(const struct rec_ctx *rc, const struct store_eval *ev,
			 const char *code, struct hr_err *e)
{
	struct store *s = rc->ctx->store;
	char sha[HR_SHA256_HEX], have[HR_SHA256_HEX], name[300], file[320];
	struct store_problem p;
	int64_t id;
	int found;

	if (!*code)
		return hr_errf(e, HR_INPUT, "%s: reference_code (field '%s'): "
			       "empty", rc->ref,
			       path_of(&rc->map->f[T_REFERENCE_CODE]));
	if (!*rc->ref_set) {
		snprintf(name, sizeof(name), "%s" INGEST_REFERENCE_SET_SUFFIX,
			 rc->ctx->source_name);
		if (store_add_problem_set(s, rc->ctx->source_id, name,
					  rc->ref_set, e))
			return e->code;
	}
	found = store_find_problem(s, *rc->ref_set, ev->level, ev->problem_id,
				   &id, have, e);
	if (found != 0 && found != 1)
		return e->code;
	if (hr_sha256_hex(code, strlen(code), sha))
		return hr_errf(e, HR_SYSTEM, "sha256 failed");
	if (found)
		return strcmp(sha, have) ? hr_errf(e, HR_INPUT, "%s: "
			"reference_code (field '%s'): level %d problem %d has "
			"other reference code in an earlier record of this "
			"input (one reference per problem)", rc->ref,
			path_of(&rc->map->f[T_REFERENCE_CODE]), ev->level,
			ev->problem_id) : HR_OK;
	if (ev->problem_name)
		snprintf(name, sizeof(name), "%s", ev->problem_name);
	else
		snprintf(name, sizeof(name), "%d_reference", ev->problem_id);
	snprintf(file, sizeof(file), "level%d/%s.py", ev->level, name);
	p = (struct store_problem){ .set_id = *rc->ref_set,
		.level = ev->level, .problem_id = ev->problem_id,
		.name = name, .file_name = file, .code = code };
	if (store_add_problem(s, &p, &id, e))
		return hr_err_prefix(e, "%s", rc->ref);
	rc->ctx->n_problems++;
	return HR_OK;
}

static int add_record(const struct rec_ctx *rc, const cJSON *rec,
		      struct hr_err *e)
{
	const struct lb_map *m = rc->map;
	struct store_eval ev = {
		.source_id = rc->ctx->source_id, .run = rc->run,
		.atol = NAN, .rtol = NAN, .num_trials = -1,
		.correct_trials_passed = -1, .correct_trials_total = -1,
		.record_ref = rc->ref,
	};
	const char *code, *ref_code;
	char *meta = NULL, name[256];
	const cJSON *mv;
	int64_t id;

	if (read_ids(rc, rec, &ev, e) ||
	    get_str(rc, T_CODE, rec, &code, e) ||
	    get_str(rc, T_REFERENCE_CODE, rec, &ref_code, e) ||
	    get_bool(rc, T_COMPILED, rec, &ev.compiled, e) ||
	    get_bool(rc, T_CORRECT, rec, &ev.correct, e) ||
	    get_str(rc, T_HARDWARE, rec, &ev.hardware, e) ||
	    get_str(rc, T_PRECISION, rec, &ev.precision, e) ||
	    get_time(rc, T_RUNTIME, rec, &ev.runtime_ms, e) ||
	    get_time(rc, T_RUNTIME_STD, rec, &ev.runtime_std_ms, e) ||
	    get_time(rc, T_RUNTIME_MIN, rec, &ev.runtime_min_ms, e) ||
	    get_time(rc, T_RUNTIME_MAX, rec, &ev.runtime_max_ms, e) ||
	    get_int(rc, T_NUM_TRIALS, rec, 0, &ev.num_trials, e) ||
	    get_str(rc, T_ERROR, rec, &ev.error_text, e))
		return e->code;
	ev.problem_name = stem(ev.problem_name, name, sizeof(name));
	if (ref_code && add_reference(rc, &ev, ref_code, e))
		return e->code;
	if (ev.error_text)
		ev.error_kind = "reported";
	if (!isnan(ev.runtime_ms))
		ev.unit_assumed = m->f[T_RUNTIME].unit_assumed;
	if (m->f[T_METADATA].set) {
		mv = field(rc, T_METADATA, rec, e);
		if (e->code)
			return e->code;
		if (!jsonrec_absent(mv) &&
		    !(meta = cJSON_PrintUnformatted(mv)))
			return hr_errf(e, HR_SYSTEM, "out of memory");
	} else if (unmapped_keys(m, rec, &meta)) {
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	ev.metadata_json = meta;
	if (code) {
		if (store_add_kernel(rc->ctx->store, code, &ev.kernel_id, e)) {
			free(meta);
			return e->code;
		}
		rc->ctx->n_kernels++;
	}
	if (store_add_evaluation(rc->ctx->store, &ev, &id, e)) {
		free(meta);
		return e->code;
	}
	free(meta);
	rc->ctx->n_evaluations++;
	return add_speedups(rc, rec, id, e);
}

static int is_dump(const char *path)
{
	size_t n = strlen(path);

	return (n > 5 && !strcmp(path + n - 5, ".json")) ||
	       (n > 6 && !strcmp(path + n - 6, ".jsonl"));
}

static int ingest_dump(const struct afile *f, const struct lb_map *map,
		       struct ingest_ctx *ctx, int64_t *ref_set,
		       struct hr_err *e)
{
	struct jsonrec_iter it;
	struct rec_ctx rc = { .map = map, .ctx = ctx, .run = f->path,
			      .ref_set = ref_set };
	const cJSON *rec;
	size_t n = 0;
	int r;

	if (jsonrec_open(&it, f->path, (const char *)f->data, f->len,
			 map->layout, e))
		return e->code;
	rc.ref = it.ref;
	while ((r = jsonrec_next(&it, &rec, e)) == 1) {
		n++;
		if (add_record(&rc, rec, e))
			break;
	}
	jsonrec_close(&it);
	/* An empty dump is a truncated or wrong file far more often than a
	 * leaderboard with no entry: storing it would hide that. */
	if (e->code == HR_OK && !n)
		return hr_errf(e, HR_INPUT, "%s: no record in it (an empty "
			       "dump)", f->path);
	return e->code;
}

/* What the source's notes should say about this reading: the assumptions
 * came from the mapping, not from the dump. */
static int add_notes(const struct lb_map *map, struct ingest_ctx *ctx,
		     struct hr_err *e)
{
	const struct spec *rt = &map->f[T_RUNTIME];
	const struct spec *pid = &map->f[T_PROBLEM_ID];

	if (!ctx->notes)
		return HR_OK;
	if (!cJSON_AddStringToObject(ctx->notes, "mapping", map->name) ||
	    (rt->set && !cJSON_AddStringToObject(ctx->notes, "runtime_unit",
						 rt->unit)) ||
	    !cJSON_AddNumberToObject(ctx->notes, "problem_id_base",
				     pid->set && pid->zero_based ? 0 : 1))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return HR_OK;
}

int ingest_leaderboard(const struct afileset *fs, const struct lb_map *map,
		       struct ingest_ctx *ctx, struct hr_err *e)
{
	int64_t ref_set = 0;
	size_t n = 0;

	for (size_t i = 0; i < fs->n; i++) {
		if (!is_dump(fs->files[i].path))
			continue;
		n++;
		if (ingest_dump(&fs->files[i], map, ctx, &ref_set, e))
			return e->code;
	}
	if (!n)
		return hr_errf(e, HR_INPUT, "%s: no .json or .jsonl file to "
			       "read with mapping %s", fs->input, map->name);
	return add_notes(map, ctx, e);
}
