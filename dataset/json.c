/* json.c - see json.h. */
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

int json_parse(const char *input, const struct afile *f, cJSON **out,
	       struct hr_err *e)
{
	const char *end = NULL;
	const cJSON *dup;
	size_t bad, line, col;
	char clip[80];

	*out = NULL;
	if (afile_check_text(input, f, e))
		return e->code;
	bad = text_json_nul_escape_at(f->data, f->len);
	if (bad < f->len) {
		text_line_col(f->data, bad, &line, &col);
		return hr_errf(e, HR_INPUT, "%s: %s: line %zu, column %zu "
			       "(byte %zu): \\u0000 in a string (refused: it "
			       "would cut the string there)", input, f->path,
			       line, col, bad);
	}
	/* The length-bounded parser with its own end pointer: the global
	 * cJSON_GetErrorPtr is not thread-safe.  The length includes the
	 * NUL that afile guarantees after the data, which is what
	 * require_null_terminated checks for. */
	*out = cJSON_ParseWithLengthOpts((const char *)f->data, f->len + 1,
					 &end, 1);
	if (*out && (dup = json_duplicate_key(*out))) {
		hr_errf(e, HR_INPUT, "%s: %s: key \"%s\" twice in one object "
			"(refused: only the first would be read)", input,
			f->path, text_clip(dup->string, clip, sizeof(clip)));
		cJSON_Delete(*out);
		*out = NULL;
		return e->code;
	}
	if (*out)
		return HR_OK;
	bad = end ? (size_t)(end - (const char *)f->data) : 0;
	if (bad > f->len)
		bad = f->len;
	text_line_col(f->data, bad, &line, &col);
	return hr_errf(e, HR_INPUT, "%s: %s: line %zu, column %zu (byte %zu): "
		       "malformed JSON%s", input, f->path, line, col, bad,
		       bad >= f->len ? " (unexpected end)" : "");
}

int json_load_file(const char *path, cJSON **out, struct hr_err *e)
{
	struct archive_limits lim;
	struct afileset fs;

	*out = NULL;
	archive_limits_default(&lim);
	if (archive_load(path, &lim, &fs, e) == HR_OK) {
		if (fs.n != 1)
			hr_errf(e, HR_INPUT, "%s: not a JSON file", path);
		else
			json_parse(path, &fs.files[0], out, e);
	}
	afileset_free(&fs);
	return e->code;
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string,
		      (*(const cJSON *const *)b)->string);
}

/* Duplicates among the members of one object: sorted copies of the
 * member pointers, neighbours compared.  Objects of a few members (the
 * usual record) are compared pairwise without allocating. */
static const cJSON *duplicate_member(const cJSON *obj)
{
	const cJSON *c, *d, **v, *found = NULL;
	size_t n = 0, i = 0;

	cJSON_ArrayForEach(c, obj)
		n++;
	if (n <= 16) {
		for (c = obj->child; c; c = c->next)
			for (d = obj->child; d != c; d = d->next)
				if (!strcmp(c->string, d->string))
					return c;
		return NULL;
	}
	if (!(v = malloc(n * sizeof(*v))))
		return NULL;
	cJSON_ArrayForEach(c, obj)
		v[i++] = c;
	qsort(v, n, sizeof(*v), by_key);
	for (i = 1; i < n && !found; i++)
		if (!strcmp(v[i - 1]->string, v[i]->string))
			found = v[i];
	free(v);
	return found;
}

const cJSON *json_duplicate_key(const cJSON *v)
{
	const cJSON *c, *d;

	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return NULL;
	if (cJSON_IsObject(v) && (d = duplicate_member(v)))
		return d;
	/* cJSON caps nesting at CJSON_NESTING_LIMIT, which bounds this. */
	cJSON_ArrayForEach(c, v)
		if ((d = json_duplicate_key(c)))
			return d;
	return NULL;
}

const char *json_type_name(const cJSON *v)
{
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsNull(v))
		return "null";
	return "an invalid value";
}

int json_bad(const struct json_where *w, const char *key, struct hr_err *e,
	     const char *fmt, ...)
{
	char why[512], clip[80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);

	return hr_errf(e, HR_INPUT, "%s: %s: %s: \"%s\": %s", w->input,
		       w->member, w->rec, text_clip(key, clip, sizeof(clip)),
		       why);
}

/* The item for key, or NULL when absent or null. */
static const cJSON *field(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return v && !cJSON_IsNull(v) ? v : NULL;
}

int json_get_bool(const struct json_where *w, const cJSON *obj,
		  const char *key, int *out, struct hr_err *e)
{
	const cJSON *v = field(obj, key);

	*out = -1;
	if (!v)
		return HR_OK;
	if (!cJSON_IsBool(v))
		return json_bad(w, key, e, "must be true or false, not %s",
				json_type_name(v));
	*out = cJSON_IsTrue(v);
	return HR_OK;
}

int json_get_number(const struct json_where *w, const cJSON *obj,
		    const char *key, double *out, struct hr_err *e)
{
	const cJSON *v = field(obj, key);

	*out = NAN;
	if (!v)
		return HR_OK;
	if (!cJSON_IsNumber(v))
		return json_bad(w, key, e, "must be a number, not %s",
				json_type_name(v));
	/* cJSON turns 1e400 into infinity. */
	if (!isfinite(v->valuedouble))
		return json_bad(w, key, e, "must be a finite number (this "
				"one overflows a double)");
	*out = v->valuedouble;
	return HR_OK;
}

int json_get_count(const struct json_where *w, const cJSON *obj,
		   const char *key, int *out, struct hr_err *e)
{
	const cJSON *v = field(obj, key);
	double d;

	*out = -1;
	if (!v)
		return HR_OK;
	if (!cJSON_IsNumber(v))
		return json_bad(w, key, e, "must be a number, not %s",
				json_type_name(v));
	d = v->valuedouble;
	if (!(d >= 0 && d <= 2147483647.0) || d != floor(d))
		return json_bad(w, key, e, "must be a non-negative integer, "
				"not %g", d);
	*out = (int)d;
	return HR_OK;
}

int json_get_string(const struct json_where *w, const cJSON *obj,
		    const char *key, const char **out, struct hr_err *e)
{
	const cJSON *v = field(obj, key);

	*out = NULL;
	if (!v)
		return HR_OK;
	if (!cJSON_IsString(v))
		return json_bad(w, key, e, "must be a string, not %s",
				json_type_name(v));
	*out = v->valuestring;
	return HR_OK;
}

int json_get_object(const struct json_where *w, const cJSON *obj,
		    const char *key, const cJSON **out, struct hr_err *e)
{
	const cJSON *v = field(obj, key);

	*out = NULL;
	if (!v)
		return HR_OK;
	if (!cJSON_IsObject(v))
		return json_bad(w, key, e, "must be an object, not %s",
				json_type_name(v));
	*out = v;
	return HR_OK;
}
