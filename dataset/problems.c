/* problems.c - ingest_problems: a KernelBench-format problem set,
 * levelN/ID_Name.py at any depth (formats.md §2).
 *
 * A problem is identified by the SHA-256 of its file (the store computes
 * it): v0 and v0.1 share file names while their shapes differ hugely.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "reader.h"

/* "levelN", N >= 1 without leading zeros -> N; else -1. */
static int level_dir(const char *s, size_t n)
{
	int v = 0;

	if (n < 6 || strncmp(s, "level", 5) || s[5] == '0')
		return -1;
	for (size_t i = 5; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > 99999)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "ID_Name.py" -> ID (>= 0), the stem's length in *stem; else -1. */
static int problem_file(const char *base, size_t *stem)
{
	size_t n = strlen(base), i = 0;
	int v = 0;

	if (n < 6 || strcmp(base + n - 3, ".py"))
		return -1;
	while (base[i] >= '0' && base[i] <= '9' && i < 9)
		v = v * 10 + (base[i++] - '0');
	if (!i || base[i] != '_' || i + 1 >= n - 3)
		return -1;
	*stem = n - 3;
	return v;
}

static int add_one(const struct afileset *fs, const struct afile *f,
		   int64_t *set_id, struct ingest_ctx *ctx, struct hr_err *e)
{
	const char *base = strrchr(f->path, '/'), *dir;
	size_t stem, dlen;
	int level, pid;
	char name[1024], file[1100];
	int64_t id;

	if (!base || (pid = problem_file(base + 1, &stem)) < 0)
		return HR_OK;
	dir = base;
	while (dir > f->path && dir[-1] != '/')
		dir--;
	dlen = (size_t)(base - dir);
	level = level_dir(dir, dlen);
	if (level < 0) {
		if (dlen >= 5 && !strncasecmp(dir, "level", 5))
			return hr_errf(e, HR_INPUT, "%s: %s: directory '%.*s' "
				       "looks like a level but is not named "
				       "levelN (N >= 1)", fs->input, f->path,
				       (int)dlen, dir);
		return HR_OK;
	}
	if (afile_check_text(fs->input, f, e))
		return e->code;
	if (!*set_id && store_add_problem_set(ctx->store, ctx->source_id,
					      ctx->source_name, set_id, e))
		return e->code;
	snprintf(name, sizeof(name), "%.*s", (int)stem, base + 1);
	snprintf(file, sizeof(file), "level%d/%s", level, base + 1);
	struct store_problem p = {
		.set_id = *set_id, .level = level, .problem_id = pid,
		.name = name, .file_name = file,
		.code = (const char *)f->data,
	};
	if (store_add_problem(ctx->store, &p, &id, e))
		return hr_err_prefix(e, "%s: %s", fs->input, f->path);
	ctx->n_problems++;
	return HR_OK;
}

int ingest_problems(const struct afileset *fs, struct ingest_ctx *ctx,
		    struct hr_err *e)
{
	int64_t set_id = 0;

	for (size_t i = 0; i < fs->n; i++)
		if (add_one(fs, &fs->files[i], &set_id, ctx, e))
			return e->code;
	if (!ctx->n_problems)
		return hr_errf(e, HR_INPUT, "%s: no problem files "
			       "(levelN/ID_Name.py) found", fs->input);
	if (ctx->notes)
		cJSON_AddStringToObject(ctx->notes, "problem_ids", "as in the "
					"file names (KernelBench: 1-based)");
	return HR_OK;
}
