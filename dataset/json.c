/* json.c - see json.h. */
#include "json.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

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

/* Records of a JSON array or JSON Lines buffer. */

static long line_of(const char *buf, size_t off)
{
	size_t line, col;

	text_line_col(buf, off, &line, &col);
	return (long)line;
}

/* cJSON copies string bytes through without looking, so the text is
 * checked first, with the validator the archive loader uses. */
static int check_text(const char *file, const char *buf, size_t len,
		      struct hr_err *e)
{
	size_t bad = text_bad_at(buf, len, NULL);

	if (bad == len) {
		bad = text_json_nul_escape_at(buf, len);
		if (bad == len)
			return HR_OK;
		return hr_errf(e, HR_INPUT, "%s:%ld: \\u0000 in a string at "
			       "byte offset %zu (refused: it would cut the "
			       "string there)", file, line_of(buf, bad), bad);
	}
	return hr_errf(e, HR_INPUT, "%s:%ld: %s at byte offset %zu", file,
		       line_of(buf, bad), buf[bad] ? "invalid UTF-8" : "NUL byte", bad);
}

static int blank(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parse buf[start, end) as one JSON value followed only by blanks.  The
 * offset in messages is where cJSON stopped: the offending byte or the one
 * after it, hence "near". */
static cJSON *parse_one(const char *file, const char *buf, size_t start,
			size_t end, struct hr_err *e)
{
	const char *stop = NULL;
	cJSON *v = cJSON_ParseWithLengthOpts(buf + start, end - start, &stop,
					     0);
	const cJSON *dup;
	char clip[80];
	size_t off;

	if (v && (dup = json_duplicate_key(v))) {
		hr_errf(e, HR_INPUT, "%s:%ld: key \"%s\" twice in one object "
			"(refused: only the first would be read)", file,
			line_of(buf, start), text_clip(dup->string, clip,
						       sizeof(clip)));
		cJSON_Delete(v);
		return NULL;
	}
	if (v) {
		off = (size_t)(stop - buf);
		while (off < end && blank(buf[off]))
			off++;
		if (off == end)
			return v;
		cJSON_Delete(v);
		hr_errf(e, HR_INPUT, "%s:%ld: malformed JSON near byte offset "
			"%zu: unexpected text after the value", file,
			line_of(buf, off), off);
		return NULL;
	}
	off = stop ? (size_t)(stop - buf) : start;
	if (off > end)
		off = end;
	hr_errf(e, HR_INPUT, "%s:%ld: malformed JSON near byte offset %zu%s",
		file, line_of(buf, off), off,
		off == end ? " (unexpected end)" : "");
	return NULL;
}

cJSON *jsonrec_parse(const char *file, const char *buf, size_t len,
		     struct hr_err *e)
{
	if (check_text(file, buf, len, e))
		return NULL;
	return parse_one(file, buf, 0, len, e);
}

int jsonrec_open(struct jsonrec_iter *it, const char *file, const char *buf,
		 size_t len, enum jsonrec_layout layout, struct hr_err *e)
{
	size_t i = 0;

	memset(it, 0, sizeof(*it));
	it->file = file;
	it->buf = buf;
	it->len = len;
	if (check_text(file, buf, len, e))
		return e->code;
	while (i < len && blank(buf[i]))
		i++;
	if (layout == JSONREC_AUTO)
		layout = i < len && buf[i] == '[' ? JSONREC_ARRAY
						  : JSONREC_LINES;
	it->layout = layout;
	if (layout == JSONREC_LINES)
		return HR_OK;
	if (!(it->doc = parse_one(file, buf, 0, len, e)))
		return e->code;
	if (!cJSON_IsArray(it->doc)) {
		hr_errf(e, HR_INPUT, "%s: expected a JSON array of records, "
			"got %s", file, json_type_name(it->doc));
		jsonrec_close(it);
		return e->code;
	}
	it->item = it->doc->child;
	it->index = -1;
	return HR_OK;
}

static int next_line(struct jsonrec_iter *it, const cJSON **rec,
		     struct hr_err *e)
{
	size_t start, end, i;
	const char *nl;

	for (;;) {
		if (it->pos >= it->len)
			return 0;
		start = it->pos;
		nl = memchr(it->buf + start, '\n', it->len - start);
		end = nl ? (size_t)(nl - it->buf) : it->len;
		it->pos = end + 1;
		it->line++;
		for (i = start; i < end && blank(it->buf[i]); i++)
			;
		if (i < end)
			break;
	}
	cJSON_Delete(it->doc);
	it->doc = parse_one(it->file, it->buf, start, end, e);
	if (!it->doc)
		return e->code;
	snprintf(it->ref, sizeof(it->ref), "%s:%ld", it->file, it->line);
	if (!cJSON_IsObject(it->doc))
		return hr_errf(e, HR_INPUT, "%s: expected a JSON object, got %s",
			       it->ref, json_type_name(it->doc));
	*rec = it->doc;
	return 1;
}

int jsonrec_next(struct jsonrec_iter *it, const cJSON **rec,
		 struct hr_err *e)
{
	const cJSON *v;

	*rec = NULL;
	if (it->layout == JSONREC_LINES)
		return next_line(it, rec, e);
	if (!(v = it->item))
		return 0;
	it->item = v->next;
	it->index++;
	snprintf(it->ref, sizeof(it->ref), "%s[%ld]", it->file, it->index);
	if (!cJSON_IsObject(v))
		return hr_errf(e, HR_INPUT, "%s: expected a JSON object, got %s",
			       it->ref, json_type_name(v));
	*rec = v;
	return 1;
}

void jsonrec_close(struct jsonrec_iter *it)
{
	cJSON_Delete(it->doc);
	it->doc = NULL;
	it->item = NULL;
}

int jsonrec_absent(const cJSON *v)
{
	return !v || cJSON_IsNull(v);
}

static int type_error(const cJSON *v, const char *ref, const char *key,
		      const char *path, const char *want, struct hr_err *e)
{
	const char *got = cJSON_IsNumber(v) && !isfinite(v->valuedouble) ?
		"a number beyond the range of a double" : json_type_name(v);

	if (path)
		return hr_errf(e, HR_INPUT, "%s: %s (field '%s'): expected %s, "
			       "got %s", ref, key, path, want, got);
	return hr_errf(e, HR_INPUT, "%s: %s: expected %s, got %s", ref, key,
		       want, got);
}

int jsonrec_str(const cJSON *v, const char *ref, const char *key,
		const char *path, const char **out, struct hr_err *e)
{
	*out = NULL;
	if (jsonrec_absent(v))
		return HR_OK;
	if (!cJSON_IsString(v))
		return type_error(v, ref, key, path, "a string", e);
	*out = v->valuestring;
	return HR_OK;
}

int jsonrec_real(const cJSON *v, const char *ref, const char *key,
		 const char *path, double *out, struct hr_err *e)
{
	*out = NAN;
	if (jsonrec_absent(v))
		return HR_OK;
	if (!cJSON_IsNumber(v))
		return type_error(v, ref, key, path, "a number", e);
	/* cJSON turns 1e400 into infinity. */
	if (!isfinite(v->valuedouble))
		return type_error(v, ref, key, path, "a finite number", e);
	*out = v->valuedouble;
	return HR_OK;
}

int jsonrec_int(const cJSON *v, const char *ref, const char *key,
		const char *path, int min, int *out, struct hr_err *e)
{
	const char *want = min == 0 ? "a non-negative integer" :
			   min == 1 ? "a positive integer" : "an integer";
	double d;

	*out = -1;
	if (jsonrec_absent(v))
		return HR_OK;
	if (!cJSON_IsNumber(v))
		return type_error(v, ref, key, path, want, e);
	d = v->valuedouble;
	if (d != floor(d) || d < min || d > INT_MAX)
		return type_error(v, ref, key, path, want, e);
	*out = (int)d;
	return HR_OK;
}

int jsonrec_bool(const cJSON *v, const char *ref, const char *key,
		 const char *path, int *out, struct hr_err *e)
{
	*out = -1;
	if (jsonrec_absent(v))
		return HR_OK;
	if (cJSON_IsBool(v)) {
		*out = cJSON_IsTrue(v);
		return HR_OK;
	}
	if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1)) {
		*out = v->valuedouble == 1;
		return HR_OK;
	}
	return type_error(v, ref, key, path, "true or false", e);
}
