/* json.h - strict reading of JSON members of an input, with errors that
 * say where: file, line, column and byte offset for syntax, and file plus
 * record for a field of the wrong type.
 *
 * Owns: the rules the readers share for outside JSON: UTF-8 is checked
 * before parsing (cJSON does not), JSON null counts as absent, every other
 * type mismatch is HR_INPUT.  Must not: know any format's field names.
 */
#ifndef HR_JSON_H
#define HR_JSON_H

#include <cjson/cJSON.h>

#include "archive.h"
#include "err.h"

/* Parse member f of input.  On success *out is a tree the caller frees
 * with cJSON_Delete. */
int json_parse(const char *input, const struct afile *f, cJSON **out,
	       struct hr_err *e);

/* Read the JSON file at path (the default archive limits; a file, not an
 * archive of several) and parse it as json_parse does.  On success *out
 * is a tree the caller frees with cJSON_Delete. */
int json_load_file(const char *path, cJSON **out, struct hr_err *e);

/* The first member of an object anywhere in v whose key an earlier
 * member of the same object already has, or NULL.  cJSON keeps both and
 * every lookup finds the first: the second would be ignored without a
 * word. */
const cJSON *json_duplicate_key(const cJSON *v);

/* Where a record is, for messages: "<input>: <member>: <rec>: ...". */
struct json_where {
	const char *input;
	const char *member;
	const char *rec;      /* e.g. "problem 3 sample index 0" */
};

/* "a string", "a number", ...: for "must be X, not Y" messages. */
const char *json_type_name(const cJSON *v);

/* Field getters.  Absent or null: the "missing" value (NULL, NAN, -1)
 * and HR_OK.  Present with another type: HR_INPUT naming w and key. */
int json_get_bool(const struct json_where *w, const cJSON *obj,
		  const char *key, int *out, struct hr_err *e);
int json_get_number(const struct json_where *w, const cJSON *obj,
		    const char *key, double *out, struct hr_err *e);
/* A non-negative integer that fits an int. */
int json_get_count(const struct json_where *w, const cJSON *obj,
		   const char *key, int *out, struct hr_err *e);
int json_get_string(const struct json_where *w, const cJSON *obj,
		    const char *key, const char **out, struct hr_err *e);
int json_get_object(const struct json_where *w, const cJSON *obj,
		    const char *key, const cJSON **out, struct hr_err *e);

/* Report a bad value of key in w: HR_INPUT, "<where>: \"key\": why". */
int json_bad(const struct json_where *w, const char *key, struct hr_err *e,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
