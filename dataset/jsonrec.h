/* jsonrec.h - the records of a JSON array or JSON Lines buffer, and typed
 * reads of their fields.
 *
 * Owns: splitting a buffer into records (cJSON), the UTF-8 and syntax
 * checks with positions a user can act on (file, line, byte offset), the
 * record reference "file:line" (JSON Lines) or "file[index]" (array), and
 * type-checked reads whose errors name that reference and the key.
 * Must not: know what any field means (readers do), touch the store.
 * json.h reads a key of an object for readers whose records sit at known
 * places; these reads take the value itself, because a mapping finds it
 * by a dotted path, and name the record by its line or index.  Both use
 * text.h for UTF-8 and json_type_name for messages.
 */
#ifndef HR_JSONREC_H
#define HR_JSONREC_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/err.h"

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
