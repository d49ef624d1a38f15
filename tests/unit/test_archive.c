/* test_archive.c - archive_load: what is kept, what is skipped, and every
 * entry that is refused.  Hostile archives are written here with
 * libarchive's writer (ustar keeps raw name bytes), never committed. */
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../dataset/archive.h"
#include "../../dataset/base/text.h"

struct ent {
	const char *name;
	mode_t type;          /* AE_IFREG, AE_IFLNK, ...; 0 = regular */
	const char *data;     /* regular files */
	size_t size;          /* 0: strlen(data); else size bytes of 'z' */
	int hardlink;         /* a hard link to "a.json" */
};

struct tmp {
	char dir[64];
	char path[128];
	struct afileset fs;
	struct archive_limits lim;
	struct hr_err e;
};

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/hr-arch-%d", getpid());
	mkdir(t->dir, 0700);
	archive_limits_default(&t->lim);
	hr_err_clear(&t->e);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;
	char cmd[160];

	afileset_free(&t->fs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		return -1;
	free(t);
	return 0;
}

/* Write entries to dir/name with the given filter (NULL: none). */
static const char *write_tar(struct tmp *t, const char *name,
			     const char *filter, const struct ent *ents,
			     size_t n)
{
	struct archive *a = archive_write_new();
	char *big = NULL;

	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
	archive_write_set_format_ustar(a);
	if (filter && !strcmp(filter, "gzip"))
		archive_write_add_filter_gzip(a);
	assert_int_equal(archive_write_open_filename(a, t->path), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		const char *data = ents[i].data ? ents[i].data : "";
		size_t len = ents[i].size ? ents[i].size : strlen(data);

		if (ents[i].size) {
			big = realloc(big, len);
			memset(big, 'z', len);
			data = big;
		}
		archive_entry_set_pathname(e, ents[i].name);
		archive_entry_set_filetype(e, ents[i].type ? ents[i].type :
					   AE_IFREG);
		archive_entry_set_perm(e, 0644);
		if (ents[i].type == AE_IFLNK)
			archive_entry_set_symlink(e, "/etc/passwd");
		if (ents[i].hardlink)
			archive_entry_set_hardlink(e, "a.json");
		if ((!ents[i].type || ents[i].type == AE_IFREG) &&
		    !ents[i].hardlink)
			archive_entry_set_size(e, (la_int64_t)len);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (archive_entry_size(e) > 0)
			assert_int_equal(archive_write_data(a, data, len),
					 (la_ssize_t)len);
		archive_entry_free(e);
	}
	archive_write_close(a);
	archive_write_free(a);
	free(big);
	return t->path;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int load(struct tmp *t, const char *path)
{
	return archive_load(path, &t->lim, &t->fs, &t->e);
}

#define TAR(t, ...) write_tar(t, "in.tar", NULL, (const struct ent[]){ \
	__VA_ARGS__ }, sizeof((const struct ent[]){ __VA_ARGS__ }) / \
	sizeof(struct ent))

static void files_are_sorted_and_found_by_path(void **state)
{
	struct tmp *t = *state;
	const struct afile *f;

	TAR(t, { .name = "b/x.json", .data = "2" }, { .name = "a.json",
		.data = "1" });
	assert_int_equal(load(t, t->path), HR_OK);
	assert_int_equal(t->fs.n, 2);
	assert_string_equal(t->fs.files[0].path, "a.json");
	f = afileset_find(&t->fs, "b/x.json");
	assert_non_null(f);
	assert_int_equal(f->len, 1);
	assert_int_equal(f->data[1], '\0');
	assert_null(afileset_find(&t->fs, "b"));
}

static void directory_and_archive_of_it_hash_the_same(void **state)
{
	struct tmp *t = *state;
	char dir[128], sub[160], file[200], hash[HR_SHA256_HEX];

	TAR(t, { .name = "run/", .type = AE_IFDIR },
	    { .name = "run/sub/a.json", .data = "{}" });
	assert_int_equal(load(t, t->path), HR_OK);
	memcpy(hash, t->fs.sha256, sizeof(hash));
	afileset_free(&t->fs);
	snprintf(dir, sizeof(dir), "%s/run", t->dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(file, sizeof(file), "%s/a.json", sub);
	mkdir(dir, 0700);
	mkdir(sub, 0700);
	write_file(file, "{}");
	assert_int_equal(load(t, dir), HR_OK);
	assert_string_equal(t->fs.files[0].path, "sub/a.json");
	assert_string_equal(t->fs.sha256, hash);
}

static void one_top_directory_is_read_as_that_directory(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "run/a.json", .data = "1" },
	    { .name = "run/b/c.json", .data = "1" });
	assert_int_equal(load(t, t->path), HR_OK);
	assert_string_equal(t->fs.files[0].path, "a.json");
	assert_string_equal(t->fs.files[1].path, "b/c.json");
	assert_string_equal(t->fs.root_name, "run");
}

static void different_content_hashes_differently(void **state)
{
	struct tmp *t = *state;
	char hash[HR_SHA256_HEX];

	TAR(t, { .name = "a.json", .data = "1" });
	assert_int_equal(load(t, t->path), HR_OK);
	memcpy(hash, t->fs.sha256, sizeof(hash));
	afileset_free(&t->fs);
	TAR(t, { .name = "a.json", .data = "2" });
	assert_int_equal(load(t, t->path), HR_OK);
	assert_string_not_equal(t->fs.sha256, hash);
}

static void single_json_file_is_a_set_of_one(void **state)
{
	struct tmp *t = *state;

	snprintf(t->path, sizeof(t->path), "%s/dump.jsonl", t->dir);
	write_file(t->path, "{\"a\": 1}\n");
	assert_int_equal(load(t, t->path), HR_OK);
	assert_int_equal(t->fs.n, 1);
	assert_string_equal(t->fs.files[0].path, "dump.jsonl");
}

static void leading_dot_slash_is_dropped(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "./a.json", .data = "1" },
	    { .name = "./b//c.json", .data = "1" });
	assert_int_equal(load(t, t->path), HR_OK);
	assert_non_null(afileset_find(&t->fs, "a.json"));
	assert_non_null(afileset_find(&t->fs, "b/c.json"));
}

static void macos_debris_and_directories_are_skipped(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "d/", .type = AE_IFDIR },
	    { .name = "__MACOSX/d/._a.json", .data = "x" },
	    { .name = "d/.DS_Store", .data = "x" },
	    { .name = "d/._a.json", .data = "x" },
	    { .name = "e/a.json", .data = "1" },
	    { .name = "top.json", .data = "1" });
	assert_int_equal(load(t, t->path), HR_OK);
	assert_int_equal(t->fs.n, 2);
	assert_string_equal(t->fs.files[0].path, "e/a.json");
	assert_string_equal(t->fs.files[1].path, "top.json");
}

static void absolute_path_is_refused(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "/etc/a.json", .data = "1" });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "entry '/etc/a.json': absolute path"));
	assert_int_equal(t->fs.n, 0);
}

static void dotdot_component_is_refused(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "a/../../b.json", .data = "1" });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "'..' in path"));
}

static void backslash_dotdot_is_refused(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "a\\..\\..\\b.json", .data = "1" });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "'..' in path"));
}

static void symlink_entry_is_refused(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "a.json", .type = AE_IFLNK });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "symbolic link"));
}

static void hardlink_entry_is_refused(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "a.json", .data = "1" },
	    { .name = "b.json", .hardlink = 1 });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "entry 'b.json': hard link"));
}

static void device_entry_is_refused(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "dev", .type = AE_IFCHR });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "device file"));
}

static void fifo_entry_is_refused(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "pipe", .type = AE_IFIFO });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "fifo"));
}

static void non_utf8_name_is_refused_and_shown_escaped(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "bad\xff.json", .data = "1" });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "entry 'bad\\xff.json': name is not"
			       " valid UTF-8"));
}

static void same_name_twice_is_refused(void **state)
{
	struct tmp *t = *state;

	TAR(t, { .name = "a.json", .data = "1" },
	    { .name = "./a.json", .data = "2" });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "entry 'a.json' appears twice"));
}

static void entry_over_the_cap_is_refused(void **state)
{
	struct tmp *t = *state;

	t->lim.max_entry_bytes = 1000;
	TAR(t, { .name = "big.json", .size = 1001 });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "1001 bytes, over the 1000-byte entry"
			       " cap"));
}

static void entry_at_the_cap_is_kept(void **state)
{
	struct tmp *t = *state;

	t->lim.max_entry_bytes = 1000;
	TAR(t, { .name = "big.json", .size = 1000 });
	assert_int_equal(load(t, t->path), HR_OK);
	assert_int_equal(t->fs.files[0].len, 1000);
}

static void total_over_the_cap_is_refused(void **state)
{
	struct tmp *t = *state;

	t->lim.max_total_bytes = 1500;
	TAR(t, { .name = "a.json", .size = 1000 },
	    { .name = "b.json", .size = 1000 });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "entry 'b.json': the input's total"
			       " passes the 1500-byte cap"));
}

static void too_many_entries_are_refused(void **state)
{
	struct tmp *t = *state;

	t->lim.max_entries = 2;
	TAR(t, { .name = "a", .data = "1" }, { .name = "b", .data = "1" },
	    { .name = "c", .data = "1" });
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "entry 'c': more than 2 entries"));
}

static void compression_ratio_over_the_cap_is_refused(void **state)
{
	struct tmp *t = *state;
	const struct ent big = { .name = "zeros.json", .size = 3 << 20 };

	write_tar(t, "in.tar.gz", "gzip", &big, 1);
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "over the compression ratio cap 200"));
}

static void same_ratio_is_accepted_when_cap_is_raised(void **state)
{
	struct tmp *t = *state;
	const struct ent big = { .name = "zeros.json", .size = 3 << 20 };

	t->lim.max_ratio = 1e6;
	write_tar(t, "in.tar.gz", "gzip", &big, 1);
	assert_int_equal(load(t, t->path), HR_OK);
}

static void truncated_gzip_is_refused(void **state)
{
	struct tmp *t = *state;
	struct ent e = { .name = "a.json" };
	char *noise = malloc(200000);
	struct stat st;

	/* Incompressible data, so the cut falls inside the entry. */
	srand(7);
	for (int i = 0; i < 199999; i++)
		noise[i] = (char)('!' + rand() % 90);
	noise[199999] = '\0';
	e.data = noise;
	write_tar(t, "in.tar.gz", "gzip", &e, 1);
	free(noise);
	assert_int_equal(stat(t->path, &st), 0);
	assert_int_equal(truncate(t->path, st.st_size / 2), 0);
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "entry 'a.json': read error"));
}

static void not_an_archive_is_refused(void **state)
{
	struct tmp *t = *state;

	snprintf(t->path, sizeof(t->path), "%s/notes.txt", t->dir);
	write_file(t->path, "hello\n");
	assert_int_equal(load(t, t->path), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "cannot read it as an archive"));
}

static void missing_input_is_refused(void **state)
{
	struct tmp *t = *state;

	assert_int_equal(load(t, "/nonexistent/x.tar"), HR_INPUT);
	assert_string_equal(t->e.msg, "/nonexistent/x.tar: No such file or"
			    " directory");
}

static void symlink_inside_directory_is_refused(void **state)
{
	struct tmp *t = *state;
	char dir[128], link[160];

	snprintf(dir, sizeof(dir), "%s/d", t->dir);
	snprintf(link, sizeof(link), "%s/evil.json", dir);
	mkdir(dir, 0700);
	assert_int_equal(symlink("/etc/passwd", link), 0);
	assert_int_equal(load(t, dir), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "entry 'evil.json': symbolic link"));
}

static void hard_linked_file_in_directory_is_refused(void **state)
{
	struct tmp *t = *state;
	char dir[128], a[160], b[160];

	snprintf(dir, sizeof(dir), "%s/d", t->dir);
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	mkdir(dir, 0700);
	write_file(a, "1");
	assert_int_equal(link(a, b), 0);
	assert_int_equal(load(t, dir), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "several hard links"));
}

static void fifo_in_directory_is_refused(void **state)
{
	struct tmp *t = *state;
	char dir[128], p[160];

	snprintf(dir, sizeof(dir), "%s/d", t->dir);
	snprintf(p, sizeof(p), "%s/pipe", dir);
	mkdir(dir, 0700);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(load(t, dir), HR_INPUT);
	assert_non_null(strstr(t->e.msg, "entry 'pipe': fifo"));
}

/* The one rule for stored text (text_bad_at), as afile_check_text and
 * the JSON record reader apply it: the first NUL or invalid UTF-8 byte,
 * whichever comes first. */
static void text_rule_finds_the_first_fault(void **state)
{
	const char *what = NULL;

	(void)state;
	assert_int_equal(text_bad_at("ok \xc3\xa9", 5, &what), 5);
	assert_int_equal(text_bad_at("ab\0" "c\xff", 5, &what), 2);
	assert_string_equal(what, "NUL byte");
	assert_int_equal(text_bad_at("ab\xff" "c\0", 5, &what), 2);
	assert_string_equal(what, "not valid UTF-8");
	assert_int_equal(text_bad_at("\xc0\xaf", 2, &what), 0);   /* overlong */
	assert_string_equal(what, "not valid UTF-8");
	assert_int_equal(text_bad_at("", 0, NULL), 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_rule_finds_the_first_fault),
		T(files_are_sorted_and_found_by_path),
		T(directory_and_archive_of_it_hash_the_same),
		T(one_top_directory_is_read_as_that_directory),
		T(different_content_hashes_differently),
		T(single_json_file_is_a_set_of_one),
		T(leading_dot_slash_is_dropped),
		T(macos_debris_and_directories_are_skipped),
		T(absolute_path_is_refused),
		T(dotdot_component_is_refused),
		T(backslash_dotdot_is_refused),
		T(symlink_entry_is_refused),
		T(hardlink_entry_is_refused),
		T(device_entry_is_refused),
		T(fifo_entry_is_refused),
		T(non_utf8_name_is_refused_and_shown_escaped),
		T(same_name_twice_is_refused),
		T(entry_over_the_cap_is_refused),
		T(entry_at_the_cap_is_kept),
		T(total_over_the_cap_is_refused),
		T(too_many_entries_are_refused),
		T(compression_ratio_over_the_cap_is_refused),
		T(same_ratio_is_accepted_when_cap_is_raised),
		T(truncated_gzip_is_refused),
		T(not_an_archive_is_refused),
		T(missing_input_is_refused),
		T(symlink_inside_directory_is_refused),
		T(hard_linked_file_in_directory_is_refused),
		T(fifo_in_directory_is_refused),
	};
	return cmocka_run_group_tests_name("archive", tests, NULL, NULL);
}
