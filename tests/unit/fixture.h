/* fixture.h - what the reader tests share: a scratch store, an in-memory
 * file set built from (path, text) pairs, one-value queries.  Included by
 * one test program each (static functions, no link-time sharing).
 */
#ifndef HR_TEST_FIXTURE_H
#define HR_TEST_FIXTURE_H

#include <cjson/cJSON.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../dataset/ingest.h"

/* A store in a scratch file with one source, and a reader context. */
struct fx {
	char path[64];
	struct store *s;
	struct ingest_ctx ctx;
	struct afileset fs;
	struct hr_err e;
};

static inline int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct store_source src = { .name = "src", .path = "in",
		.kind = "test", .sha256 = "0" };
	int existed;

	if (!f)
		return -1;
	snprintf(f->path, sizeof(f->path), "/tmp/hr-unit-%d.db", getpid());
	unlink(f->path);
	hr_err_clear(&f->e);
	if (store_open(&f->s, f->path, STORE_WRITE, &f->e) ||
	    store_add_source(f->s, &src, &f->ctx.source_id, &existed, &f->e))
		return -1;
	f->ctx.store = f->s;
	f->ctx.source_name = "src";
	f->ctx.notes = cJSON_CreateObject();
	f->fs.input = strdup("in");
	*state = f;
	return 0;
}

static inline int fx_teardown(void **state)
{
	struct fx *f = *state;
	char p[80];

	store_close(f->s);
	afileset_free(&f->fs);
	cJSON_Delete(f->ctx.notes);
	unlink(f->path);
	snprintf(p, sizeof(p), "%s-wal", f->path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", f->path);
	unlink(p);
	free(f);
	return 0;
}

/* Add a file of text to the set (finish with fx_finish). */
static inline void fx_file(struct fx *f, const char *path, const char *text)
{
	assert_int_equal(afileset_add(&f->fs, path, text, strlen(text),
				      &f->e), HR_OK);
}

static inline void fx_finish(struct fx *f)
{
	assert_int_equal(afileset_finish(&f->fs, &f->e), HR_OK);
}

/* Prepare a printf-style query (test data only, never user input) and
 * step it once. */
static inline sqlite3_stmt *fx_vquery(struct fx *f, const char *fmt,
				      va_list ap)
{
	char sql[1024];
	sqlite3_stmt *st;

	vsnprintf(sql, sizeof(sql), fmt, ap);
	assert_int_equal(sqlite3_prepare_v2(store_db(f->s), sql, -1, &st,
					    NULL), SQLITE_OK);
	return st;
}

/* One value of a one-row query; NAN for NULL or no row. */
static inline double fx_num(struct fx *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline double fx_num(struct fx *f, const char *fmt, ...)
{
	sqlite3_stmt *st;
	double v = NAN;
	va_list ap;

	va_start(ap, fmt);
	st = fx_vquery(f, fmt, ap);
	va_end(ap);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Text of a one-row query, "(null)" for NULL, "(none)" for no row. */
static inline const char *fx_text(struct fx *f, char *buf, size_t n,
				  const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline const char *fx_text(struct fx *f, char *buf, size_t n,
				  const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = fx_vquery(f, fmt, ap);
	va_end(ap);
	snprintf(buf, n, "(none)");
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, n, "%s", sqlite3_column_text(st, 0) ?
			 (const char *)sqlite3_column_text(st, 0) : "(null)");
	sqlite3_finalize(st);
	return buf;
}

#define FX_TEST(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

#endif
