/* json.h - strict reading of outside JSON, with errors that say where:
 * file, line, column and byte offset for syntax, and file plus record for
 * a field of the wrong type.
 *
 * Owns: the rules the readers share for outside JSON: UTF-8 is checked
 * before parsing (cJSON does not), a key twice in one object is refused,
 * JSON null counts as absent, every other type mismatch is HR_INPUT.  Two
 * ways in: json_parse and the json_get_* getters read a key of an object
 * for readers whose records sit at known places (messages name the member
 * and record, "<input>: <member>: <rec>: ..."); jsonrec_* split a JSON
 * array or JSON Lines buffer into records and read a value itself,
 * because a mapping finds it by a dotted path (messages name the record
 * by its line or index, "file:line" or "file[index]").  Must not: know
 * any format's field names, touch the store.
 */
#ifndef HR_JSON_H
#define HR_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "archive.h"
#include "base/err.h"

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

/* Records of a JSON array or JSON Lines buffer. */
enum jsonrec_layout {
	JSONREC_AUTO,   /* '[' as the first non-blank byte: array, else lines */
	JSONREC_ARRAY,  /* one JSON array of objects */
	JSONREC_LINES,  /* one object per line; blank lines skipped */
};

struct jsonrec_iter {
	const char *file;          /* borrowed: name used in messages */
	const char *buf;           /* borrowed: len bytes */
	size_t len;
	enum jsonrec_layout layout;/* resolved by jsonrec_open */
	cJSON *doc;                /* owned: the array, or the current line */
	const cJSON *item;         /* ARRAY: the next element */
	size_t pos;                /* LINES: offset of the next line */
	long line;                 /* LINES: 1-based line of the record */
	long index;                /* ARRAY: 0-based index of the record */
	char ref[512];             /* reference of the current record */
};

/* Check buf (UTF-8, and for arrays the whole syntax) and prepare to walk
 * it.  On error nothing is left to free. */
int jsonrec_open(struct jsonrec_iter *it, const char *file, const char *buf,
		 size_t len, enum jsonrec_layout layout, struct hr_err *e);

/* Next record, an object borrowed until the next call: returns 1 with *rec
 * set, 0 at the end, or an error code (HR_INPUT naming file and line or
 * index) with e set. */
int jsonrec_next(struct jsonrec_iter *it, const cJSON **rec,
		 struct hr_err *e);

void jsonrec_close(struct jsonrec_iter *it);

/* Parse buf as one JSON document (any value) with the same checks and
 * messages; the caller owns the result.  NULL with e set on error. */
cJSON *jsonrec_parse(const char *file, const char *buf, size_t len,
		     struct hr_err *e);

/* Typed reads.  v may be NULL or JSON null: the value is unknown and the
 * out parameter gets the unknown value (NULL, NAN, -1).  A value of another
 * type is HR_INPUT: "<ref>: <key> (field '<path>'): expected ..., got ...";
 * path may be NULL when the key is the field. */
int jsonrec_str(const cJSON *v, const char *ref, const char *key,
		const char *path, const char **out, struct hr_err *e);
int jsonrec_real(const cJSON *v, const char *ref, const char *key,
		 const char *path, double *out, struct hr_err *e);
/* Integral numbers in [min, INT_MAX]; *out = -1 when unknown. */
int jsonrec_int(const cJSON *v, const char *ref, const char *key,
		const char *path, int min, int *out, struct hr_err *e);
/* true/false, or the numbers 1/0; *out = -1 when unknown. */
int jsonrec_bool(const cJSON *v, const char *ref, const char *key,
		 const char *path, int *out, struct hr_err *e);

/* 1 when v is absent or JSON null. */
int jsonrec_absent(const cJSON *v);

#endif
