/* test_fuzz_corpora.c - every fuzz target of tests/fuzz/ over its seed
 * corpus (tests/fuzz/corpus/<target>/), without mutation: the inputs that
 * once crashed or were mishandled stay in the corpora, so this is their
 * regression test under the sanitizers of `make check` (no clang needed).
 *
 * Each target's source is included with its entry point renamed, which
 * is what FUZZ_ENTRY in tests/fuzz/fuzz.h is for.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../fuzz/fuzz_common.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_archive_one
#include "../fuzz/fuzz_archive.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_kernelbench_one
#include "../fuzz/fuzz_kernelbench.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_problems_one
#include "../fuzz/fuzz_problems.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_export_one
#include "../fuzz/fuzz_export.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_leaderboard_one
#include "../fuzz/fuzz_leaderboard.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_npy_one
#include "../fuzz/fuzz_npy.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_trace_chrome_one
#include "../fuzz/fuzz_trace_chrome.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_trace_nsys_one
#include "../fuzz/fuzz_trace_nsys.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_merge_one
#include "../fuzz/fuzz_merge.c"
#undef FUZZ_ENTRY

/* Run one on every file of tests/fuzz/corpus/<name>/; returns how many. */
static int replay(const char *name, int (*one)(const uint8_t *, size_t))
{
	const char *root = getenv("ROOT");
	char dir[4096], path[4096 + 256];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s",
		 root && *root ? root : ".", name);
	dp = opendir(dir);
	assert_non_null(dp);
	while ((d = readdir(dp))) {
		FILE *f;
		uint8_t *buf;
		long len;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		assert_non_null(f = fopen(path, "rb"));
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		assert_non_null(buf = malloc((size_t)len + 1));
		assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
		fclose(f);
		one(buf, (size_t)len);
		free(buf);
		n++;
	}
	closedir(dp);
	return n;
}

/* A corpus of at least a handful of seeds: an empty or missing one would
 * make its test pass without reading anything. */
#define CORPUS_TEST(target)                                               \
	static void target##_corpus_replays_clean(void **state)           \
	{                                                                 \
		(void)state;                                              \
		assert_true(replay(#target, fuzz_##target##_one) >= 3);   \
	}
CORPUS_TEST(archive)
CORPUS_TEST(kernelbench)
CORPUS_TEST(problems)
CORPUS_TEST(export)
CORPUS_TEST(leaderboard)
CORPUS_TEST(npy)
CORPUS_TEST(trace_chrome)
CORPUS_TEST(trace_nsys)
CORPUS_TEST(merge)

/* The trace targets hand the reader a file it can open: the good seeds
 * are read whole (a target whose file no reader could open would replay
 * every seed "clean" as a refusal). */
static void read_seed(const char *name, uint8_t **buf, size_t *len)
{
	const char *root = getenv("ROOT");
	char path[4096];
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/%s",
		 root && *root ? root : ".", name);
	assert_non_null(f = fopen(path, "rb"));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	assert_non_null(*buf = malloc((size_t)n + 1));
	assert_int_equal(fread(*buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
}

static void trace_seed_reads(const char *name,
			     int (*reader)(const char *, struct trace *,
					   struct hr_err *),
			     int64_t activities)
{
	struct trace t;
	struct hr_err e;
	uint8_t *buf;
	size_t len;
	const char *path;

	read_seed(name, &buf, &len);
	assert_non_null(path = fuzz_trace_file(buf, len));
	hr_err_clear(&e);
	trace_init(&t);
	assert_int_equal(reader(path, &t, &e), HR_OK);
	assert_int_equal(t.activities, activities);
	trace_release(&t);
	free(buf);
}

static void trace_targets_read_their_good_seeds(void **state)
{
	(void)state;
	trace_seed_reads("trace_chrome/tiny", trace_read_chrome, 7);
	trace_seed_reads("trace_chrome/legacy-gzip", trace_read_chrome, 4);
	trace_seed_reads("trace_nsys/step", trace_read_nsys, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(archive_corpus_replays_clean),
		cmocka_unit_test(kernelbench_corpus_replays_clean),
		cmocka_unit_test(problems_corpus_replays_clean),
		cmocka_unit_test(export_corpus_replays_clean),
		cmocka_unit_test(leaderboard_corpus_replays_clean),
		cmocka_unit_test(npy_corpus_replays_clean),
		cmocka_unit_test(trace_chrome_corpus_replays_clean),
		cmocka_unit_test(trace_nsys_corpus_replays_clean),
		cmocka_unit_test(merge_corpus_replays_clean),
		cmocka_unit_test(trace_targets_read_their_good_seeds),
	};
	return cmocka_run_group_tests_name("fuzz corpora", tests, NULL, NULL);
}
