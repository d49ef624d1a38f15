/* fuzz_common.c - see fuzz.h. */
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char files_magic[] = "//files\n";
static const char file_mark[] = "//file ";

/* The next "//file " line at or after off that starts a line. */
static const uint8_t *next_mark(const uint8_t *data, size_t size, size_t off)
{
	size_t n = sizeof(file_mark) - 1;

	for (size_t i = off; i + n <= size; i++)
		if ((i == 0 || data[i - 1] == '\n') &&
		    !memcmp(data + i, file_mark, n))
			return data + i;
	return NULL;
}

int fuzz_fileset(const uint8_t *data, size_t size, const char *default_path,
		 struct afileset *fs, struct hr_err *e)
{
	size_t mlen = sizeof(files_magic) - 1;
	const uint8_t *p, *end = data + size;
	char path[256];

	memset(fs, 0, sizeof(*fs));
	if (!(fs->input = strdup("fuzz-input")))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (size < mlen || memcmp(data, files_magic, mlen)) {
		if (afileset_add(fs, default_path, data, size, e))
			return e->code;
		return afileset_finish(fs, e);
	}
	p = next_mark(data, size, mlen);
	while (p) {
		const uint8_t *name = p + sizeof(file_mark) - 1;
		const uint8_t *nl = memchr(name, '\n', (size_t)(end - name));
		const uint8_t *body, *next;
		size_t plen;

		if (!nl)
			break;
		body = nl + 1;
		next = next_mark(data, size, (size_t)(body - data));
		plen = (size_t)(nl - name);
		if (plen == 0 || plen >= sizeof(path) || memchr(name, 0, plen))
			return hr_errf(e, HR_INPUT, "bad member name");
		memcpy(path, name, plen);
		path[plen] = '\0';
		if (afileset_add(fs, path, body, (size_t)((next ? next : end) -
							  body), e))
			return e->code;
		p = next;
	}
	return afileset_finish(fs, e);
}

void fuzz_check_error(int rc, const struct hr_err *e)
{
	if (rc == HR_OK)
		return;
	if ((rc != HR_INPUT && rc != HR_SYSTEM) || e->code != rc ||
	    !e->msg[0])
		abort();
}

/* One store for the whole run: migrating a new one for every input
 * would be most of the work.  Test-harness state, never freed. */
struct store *fuzz_store(void)
{
	static struct store *s;
	struct hr_err e;

	hr_err_clear(&e);
	if (!s && store_open(&s, ":memory:", STORE_WRITE, &e))
		abort();
	return s;
}

void fuzz_read(const struct afileset *fs, fuzz_reader *reader)
{
	struct store *s = fuzz_store();
	struct store_source src = { .name = "fuzz", .path = fs->input,
		.kind = "fuzz", .sha256 = fs->sha256 };
	struct ingest_ctx ctx = { .store = s, .source_name = "fuzz" };
	struct hr_err e;
	int existed, rc;

	hr_err_clear(&e);
	if (store_begin(s, &e) ||
	    store_add_source(s, &src, &ctx.source_id, &existed, &e))
		abort();
	ctx.notes = cJSON_CreateObject();
	rc = reader(fs, &ctx, &e);
	fuzz_check_error(rc, &e);
	cJSON_Delete(ctx.notes);
	store_rollback(s);
}

void fuzz_read_input(const uint8_t *data, size_t size,
		     const char *default_path, fuzz_reader *reader)
{
	struct afileset fs;
	struct hr_err e;

	hr_err_clear(&e);
	if (fuzz_fileset(data, size, default_path, &fs, &e) == HR_OK)
		fuzz_read(&fs, reader);
	afileset_free(&fs);
}

void fuzz_store_reset(void)
{
	static const char *const sql[] = {
		"DELETE FROM profile_kernel", "DELETE FROM profile",
		"DELETE FROM source",
	};

	for (size_t i = 0; i < sizeof(sql) / sizeof(*sql); i++)
		if (sqlite3_exec(store_db(fuzz_store()), sql[i], NULL, NULL,
				 NULL) != SQLITE_OK)
			abort();
}

int fuzz_temp_file(const char *tag, char *path, size_t n)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(path, n, "%s/headroom-fuzz-%s-XXXXXX", tmp, tag);
	return mkstemp(path);
}
